//! The bodies of the fuzz targets (`fuzz/fuzz_targets/*.rs`), as plain functions over bytes,
//! so that `tests/fuzz_regressions.rs` replays saved inputs through exactly the code the
//! fuzzer runs. Each function must return normally for every input: a panic, an overflow,
//! a hang or an unbounded allocation is a bug.
//!
//! Input formats:
//! - `parse`, `check`: the bytes are the expression (UTF-8; invalid bytes are also tried
//!   replaced by U+FFFD).
//! - `eval`: `EXPRESSION \0 JSON`; the JSON is an AdmissionReview or an AdmissionRequest.
//! - `decide`: `JSON \0 CONDITION \0 CONDITION ...`.
//! - `config`: YAML or JSON documents of webhook configurations.
//! - `manifest`: `OPTIONS \0 OBJECT \0 OLD-OBJECT`: OPTIONS is a line of words (an
//!   operation, `sub=NAME`, `ns=NAME`, `user=NAME`, `dry`), the objects YAML or JSON
//!   manifests (also read as CustomResourceDefinitions and Namespaces).
//! - `testfile`: a test file of `matchcond test` (YAML).
//! - `audit`: an audit log (JSON lines, possibly gzip).
#![allow(dead_code)]

use std::sync::{Arc, OnceLock};

use matchcond::authz::{AuthzDecision, StaticAuthorizer, StaticRule};
use matchcond::dispatch::{load_documents, AnyNamespace, Dispatcher, Validator};
use matchcond::{
    Activation, CompileOptions, EnvMode, Environment, FailurePolicy, KubeVersion, MatchCondition,
    MatchConditions, PER_CALL_COST_LIMIT,
};
use serde_json::Value as Json;

/// The separator between the parts of an `eval` or `decide` input.
pub const SEPARATOR: u8 = 0;

/// The per-call cost limit of the evaluating targets: a tenth of the apiserver's, so that
/// every input runs in well under a second even with the address sanitizer (evaluation time
/// is proportional to the cost).
pub const COST_LIMIT: u64 = PER_CALL_COST_LIMIT / 10;

/// The oldest Kubernetes version whose environment the targets compile in.
pub const OLD_VERSION: KubeVersion = KubeVersion::V1_28;

/// The names of the targets, as directories under `fuzz/regressions/`.
pub const TARGETS: [&str; 8] = [
    "parse", "check", "eval", "decide", "config", "manifest", "testfile", "audit",
];

/// Runs the target named `name` on `data`; false for an unknown name.
pub fn run(name: &str, data: &[u8]) -> bool {
    match name {
        "parse" => parse(data),
        "check" => check(data),
        "eval" => eval(data),
        "decide" => decide(data),
        "config" => config(data),
        "manifest" => manifest(data),
        "testfile" => testfile(data),
        "audit" => audit(data),
        _ => return false,
    }
    true
}

struct Envs {
    latest: Environment,
    old: Environment,
    new_expressions: Environment,
}

fn envs() -> &'static Envs {
    static ENVS: OnceLock<Envs> = OnceLock::new();
    ENVS.get_or_init(|| Envs {
        latest: Environment::latest(),
        old: Environment::kubernetes(OLD_VERSION),
        new_expressions: Environment::with_mode(KubeVersion::LATEST, EnvMode::NewExpressions),
    })
}

/// The text of some bytes: the UTF-8 text as is, or with invalid sequences replaced by
/// U+FFFD.
fn text_of(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// `parse`: the parser with the options of the newest apiserver (with and without
/// backquoted names) and of the oldest modelled one (no two-variable comprehensions, no
/// lists macros); errors are rendered.
pub fn parse(data: &[u8]) {
    let text = text_of(data);
    let newest = Environment::latest();
    let envs = [
        newest.with_ident_escape_syntax(true),
        newest,
        Environment::kubernetes(KubeVersion::V1_28),
    ];
    for env in &envs {
        match env.parse(&text) {
            Ok(parsed) => {
                // The AST is walkable and printable.
                let _ = format!("{:?}", parsed.expr).len();
            }
            Err(issues) => {
                let _ = issues.to_string();
            }
        }
    }
}

/// `check`: parse and type check in the newest environment (stored and new expressions)
/// and in an older one; as a matchCondition (bool result) and as any expression.
pub fn check(data: &[u8]) {
    let text = text_of(data);
    let e = envs();
    let any = CompileOptions::default();
    let condition = CompileOptions::default().with_result_type(matchcond::Type::Bool);
    for env in [&e.latest, &e.old, &e.new_expressions] {
        for opts in [&any, &condition] {
            match env.compile(&text, opts) {
                Ok(p) => {
                    let _ = p.result_type().to_string();
                }
                Err(err) => {
                    let _ = err.to_string();
                }
            }
        }
    }
}

fn split_first(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|b| *b == SEPARATOR) {
        Some(i) => (
            data.get(..i).unwrap_or(&[]),
            data.get(i + 1..).unwrap_or(&[]),
        ),
        None => (data, &[]),
    }
}

/// The AdmissionRequest of a JSON document: its `request` member if it is an
/// AdmissionReview, else the document itself; not JSON → `null`.
fn request_of(json: &[u8]) -> Json {
    match serde_json::from_slice::<Json>(json) {
        Ok(Json::Object(mut m)) => match m.remove("request") {
            Some(r @ Json::Object(_)) => r,
            Some(other) => {
                m.insert("request".to_string(), other);
                Json::Object(m)
            }
            None => Json::Object(m),
        },
        Ok(other) => other,
        Err(_) => Json::Null,
    }
}

fn authorizer() -> Arc<StaticAuthorizer> {
    static AUTHZ: OnceLock<Arc<StaticAuthorizer>> = OnceLock::new();
    AUTHZ
        .get_or_init(|| {
            Arc::new(
                StaticAuthorizer::new(AuthzDecision::Allow)
                    .with_default_reason("allowed by default")
                    .rule(StaticRule::deny().resource("secrets").reason("no secrets"))
                    .rule(StaticRule::error("authorizer unavailable").group("apps")),
            )
        })
        .clone()
}

/// `eval`: `EXPRESSION \0 JSON`. The expression is compiled unchecked and checked in the
/// newest environment and evaluated over the request with a per-call cost limit (unchecked
/// without an authorizer, checked with one). A value is only returned within the limit.
pub fn eval(data: &[u8]) {
    let (expr, json) = split_first(data);
    let text = text_of(expr);
    let request = request_of(json);
    let env = &envs().latest;
    let unchecked = CompileOptions::default().with_unchecked(true);
    let checked = CompileOptions::default();
    for opts in [&unchecked, &checked] {
        let program = match env.compile(&text, opts) {
            Ok(p) => p,
            Err(e) => {
                let _ = e.to_string();
                continue;
            }
        };
        let act = if opts.unchecked {
            Activation::from_request(&request)
        } else {
            Activation::from_request(&request).with_authorizer(authorizer())
        };
        let out = program.evaluate(&act, Some(COST_LIMIT));
        match &out.result {
            Ok(v) => {
                assert!(
                    out.cost <= COST_LIMIT,
                    "a value was returned at cost {} over the limit",
                    out.cost
                );
                let _ = format!("{v:?}").len();
                let _ = v.type_name();
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
}

/// `decide`: `JSON \0 CONDITION \0 CONDITION ...`. The conditions are compiled as a
/// webhook's matchConditions (named `c0`, `c1` …) and decided over the request under both
/// failure policies, with a tenth of the apiserver's limits and with small ones; `decide`
/// and `explain` must agree.
pub fn decide(data: &[u8]) {
    let mut parts = data.split(|b| *b == SEPARATOR);
    let request = request_of(parts.next().unwrap_or(&[]));
    let conditions: Vec<MatchCondition> = parts
        .enumerate()
        .map(|(i, p)| MatchCondition::new(format!("c{i}"), text_of(p)))
        .collect();
    let env = &envs().latest;
    let act = Activation::from_request(&request).with_authorizer(authorizer());
    let budget = matchcond::MATCH_CONDITIONS_BUDGET / 10;
    for (per_call, budget) in [(COST_LIMIT, budget), (50, 120)] {
        let compiled = match MatchConditions::compile(env, &conditions) {
            Ok(c) => c,
            Err(e) => {
                let _ = e.to_string();
                MatchConditions::compile_unbounded(env, &conditions)
            }
        };
        let compiled = compiled.with_per_call_limit(per_call).with_budget(budget);
        for policy in [FailurePolicy::Fail, FailurePolicy::Ignore] {
            let decision = compiled.decide(&act, policy);
            let report = compiled.explain(&act, policy);
            assert_eq!(decision, report.decision, "decide and explain disagree");
            assert_eq!(report.conditions.len(), conditions.len());
            let total: u64 = report.conditions.iter().map(|c| c.cost).sum();
            assert_eq!(total, report.total_cost);
        }
    }
}

/// The review the `config` target dispatches.
const REVIEW: &str = include_str!("../../examples/reviews/pod-create.json");

/// `config`: YAML or JSON documents are loaded as webhook configurations, validated on
/// create and on update (against themselves) for the newest and an older version, and
/// dispatched for a fixed Pod CREATE review.
pub fn config(data: &[u8]) {
    static REQUEST: OnceLock<Json> = OnceLock::new();
    let request = REQUEST.get_or_init(|| request_of(REVIEW.as_bytes()));
    let text = text_of(data);
    let configs = match load_documents(&text) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    for version in [KubeVersion::LATEST, OLD_VERSION] {
        let validator = Validator::new(version);
        for c in &configs {
            for e in validator.validate(c) {
                let _ = e.to_string();
            }
            for e in validator.validate_update(c, c) {
                let _ = e.to_string();
            }
        }
        let dispatcher = Dispatcher::new(&configs, version).with_authorizer(authorizer());
        let namespaces = AnyNamespace(Default::default());
        match dispatcher.dispatch(request, &namespaces) {
            Ok(d) => {
                let _ = format!("{d:?}").len();
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
}

/// `manifest`: `OPTIONS \0 OBJECT \0 OLD-OBJECT`. The objects are read as manifests, as
/// CustomResourceDefinitions (added to the catalog) and as Namespaces; the review is built
/// for every operation (and the one inferred) in the newest release's catalog and in the
/// catalog of every release. A review built must pass the check of hand-written reviews.
pub fn manifest(data: &[u8]) {
    use matchcond::dispatch::request::{
        build_review, check_request, load_crds, load_namespaces, read_manifests, Catalog,
        Operation, RequestOptions,
    };
    let mut parts = data.splitn(3, |b| *b == SEPARATOR);
    let options = text_of(parts.next().unwrap_or_default());
    let object = text_of(parts.next().unwrap_or_default());
    let old = text_of(parts.next().unwrap_or_default());
    let mut base = RequestOptions::default();
    for word in options.split_whitespace() {
        if let Some(v) = word.strip_prefix("sub=") {
            base.subresource = Some(v.to_owned());
        } else if let Some(v) = word.strip_prefix("ns=") {
            base.namespace = Some(v.to_owned());
        } else if let Some(v) = word.strip_prefix("user=") {
            base.user = matchcond::authz::UserInfo::new(v);
        } else if word == "dry" {
            base.dry_run = true;
        }
    }
    let objects = read_manifests(&object);
    let olds = read_manifests(&old);
    for e in objects.errors.iter().chain(&olds.errors) {
        let _ = e.to_string();
    }
    let mut catalogs = [
        Catalog::builtin_for(KubeVersion::LATEST),
        Catalog::builtin(),
    ];
    for text in [&object, &old] {
        let (crds, errors) = load_crds(text);
        for e in &errors {
            let _ = e.to_string();
        }
        for c in &mut catalogs {
            for crd in &crds {
                c.add_crd(crd);
            }
        }
        let (namespaces, errors) = load_namespaces(text);
        let _ = (namespaces.len(), errors.len());
    }
    let operations = [
        None,
        Some(Operation::Create),
        Some(Operation::Update),
        Some(Operation::Delete),
        Some(Operation::Connect),
    ];
    for catalog in &catalogs {
        for op in operations {
            let mut o = base.clone();
            o.operation = op;
            for (obj, old) in [
                (objects.objects.first(), None),
                (objects.objects.first(), olds.objects.first()),
                (None, olds.objects.first()),
            ] {
                match build_review(catalog, obj, old, &o) {
                    Ok(built) => {
                        let mut warnings = check_request(built.request(), catalog);
                        // Without a user, the request has none: the one warning expected.
                        warnings.retain(|w| {
                            !(o.user.name.is_empty() && w.path == "request.userInfo.username")
                        });
                        assert!(
                            warnings.is_empty(),
                            "a built review fails the check: {warnings:?}"
                        );
                    }
                    Err(e) => {
                        let _ = e.to_string();
                    }
                }
            }
        }
    }
}

/// `testfile`: a test file, read strictly; every error rendered.
pub fn testfile(data: &[u8]) {
    match matchcond::dispatch::request::load_test_file(&text_of(data)) {
        Ok(f) => {
            let _ = format!("{f:?}").len();
        }
        Err(errors) => {
            for e in errors {
                let _ = e.to_string();
            }
        }
    }
}

/// `audit`: the bytes are an audit log. Each line is read as an event and, when it is one,
/// converted to its AdmissionRequest; then the whole log is replayed (plain or gzip, on one
/// worker and on two) through `examples/webhooks.yaml` against itself as a baseline. The
/// counts must add up: no event is lost, every bad line is counted.
pub fn audit(data: &[u8]) {
    use matchcond::dispatch::audit::{
        admission_request, passage, Event, Replay, ReplayOptions, Side, Source,
    };
    use matchcond::dispatch::request::Catalog;
    static CATALOG: OnceLock<Arc<Catalog>> = OnceLock::new();
    let catalog = CATALOG.get_or_init(|| Arc::new(Catalog::builtin()));
    let mut events = 0u64;
    for line in data.split(|b| *b == b'\n') {
        if let Ok(e) = Event::from_line(line) {
            events += 1;
            let _ = passage(&e, catalog);
            match admission_request(&e, catalog) {
                Ok(r) => {
                    let _ = (r.request.to_string(), r.missing.names());
                }
                Err(e) => {
                    let _ = e.to_string();
                }
            }
        }
    }
    let configs = load_documents(include_str!("../../examples/webhooks.yaml")).unwrap_or_default();
    let side =
        || Side::new(Dispatcher::new(&configs, KubeVersion::LATEST).with_authorizer(authorizer()));
    let replay = Replay::new(
        side(),
        Some(side()),
        Arc::clone(catalog),
        Some(Arc::new(AnyNamespace(Default::default()))),
    );
    for threads in [1, 2] {
        let source = Source::new("fuzz", Box::new(std::io::Cursor::new(data.to_vec())));
        let options = ReplayOptions::default()
            .with_threads(threads)
            .with_pending_limit(4);
        let report = replay.run(vec![source], options, &|_| {});
        let gzip = data.starts_with(&[0x1f, 0x8b]);
        assert!(
            gzip || report.input.events == events,
            "{} != {events}",
            report.input.events
        );
        assert!(
            report.webhooks.iter().all(|w| w.changes.is_empty()),
            "a baseline equal to the configurations changes nothing"
        );
    }
}
