//! Generated conditions and requests through the engine's two tiers and two roads: the
//! shapes the fast tier takes (paths with fields, indexes and optional steps, comparisons,
//! membership, string tests, presence, sizes, comprehensions, `!`, `&&`, `||`) combined at
//! random over requests whose members have every JSON type or are missing.
//!
//! * Every program gives the general evaluator's result, error text and cost, under several
//!   cost limits.
//! * A webhook's conditions decide the same from the review's bytes (read pruned to what
//!   they read) as from the parsed request: decision, outcome and cost of every condition.
//!
//! `GENERATED_CASES` sets how many conditions are generated (default 4,000) and
//! `GENERATED_SEED` the seed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use matchcond::{
    Activation, CompileOptions, Environment, Evaluation, FailurePolicy, MatchCondition,
    MatchConditions,
};
use matchcond_bench::rng::Rng;
use serde_json::{json, Map, Value as Json};

const OBJECT_FIELDS: &[&str] = &[
    "metadata",
    "labels",
    "annotations",
    "name",
    "namespace",
    "spec",
    "replicas",
    "containers",
    "data",
    "app",
    "image",
    "securityContext",
    "privileged",
    "generation",
    "x",
];

const REQUEST_PATHS: &[&str] = &[
    "request.operation",
    "request.namespace",
    "request.name",
    "request.subResource",
    "request.dryRun",
    "request.userInfo.username",
    "request.userInfo.groups",
    "request.userInfo.uid",
    "request.userInfo.extra",
    "request.kind.kind",
    "request.resource.group",
    "request.resource.resource",
    "request.requestKind.version",
];

const STRINGS: &[&str] = &[
    "''",
    "'web'",
    "'a'",
    "'CREATE'",
    "'UPDATE'",
    "'kube-system'",
    "'system:'",
    "'system:nodes'",
    "'registry.example.com/'",
    "'x'",
];

const CONSTANTS: &[&str] = &[
    "''",
    "'web'",
    "'a'",
    "'CREATE'",
    "0",
    "1",
    "3",
    "3.0",
    "-1",
    "1u",
    "true",
    "false",
    "null",
    "['a', 'b']",
    "[]",
    "{}",
    "{'a': 'b'}",
    "b'a'",
];

/// The members an object's member usually has (its shape), by the member's name.
fn members(name: &str) -> &'static [&'static str] {
    match name {
        "object" | "oldObject" => &["metadata", "spec", "data", "kind"],
        "metadata" => &["name", "namespace", "labels", "annotations", "generation"],
        "labels" | "annotations" | "data" => &["app", "a", "x"],
        "spec" => &["replicas", "containers", "x", "privileged"],
        "container" => &["name", "image", "securityContext"],
        "securityContext" => &["privileged"],
        _ => &[],
    }
}

/// The next field after `at`: mostly one of its usual members, sometimes any name.
fn field(r: &mut Rng, at: &str) -> &'static str {
    let usual = members(at);
    if usual.is_empty() || r.chance(15) {
        r.pick::<&str>(OBJECT_FIELDS)
    } else {
        r.pick::<&str>(usual)
    }
}

/// A path into `object`, `oldObject` or `request`, with fields, indexes and optional steps.
fn path(r: &mut Rng) -> String {
    if r.chance(35) {
        return (*r.pick(REQUEST_PATHS)).to_owned();
    }
    let mut at: &str = r.pick::<&str>(&["object", "oldObject", "object", "object"]);
    let mut p = at.to_owned();
    let mut optional = false;
    for _ in 0..=r.below(4) {
        match r.below(10) {
            0 => {
                let index = if at == "containers" {
                    at = "container";
                    "0"
                } else {
                    at = "";
                    *r.pick(&["'app'", "'a'", "0", "1"])
                };
                p.push_str(&format!("[{index}]"));
            }
            1 => {
                at = field(r, at);
                p.push_str(&format!(".?{at}"));
                optional = true;
            }
            2 if optional => {
                at = "";
                p.push_str(&format!("[?{}]", *r.pick(&["'app'", "'a'", "0"])));
            }
            _ => {
                at = field(r, at);
                p.push('.');
                p.push_str(at);
            }
        }
    }
    if optional {
        let default = *r.pick(&["''", "'web'", "false", "0", "null", "[]"]);
        if r.chance(70) {
            p = format!("{p}.orValue({default})");
        } else {
            p = format!("{p}.hasValue()");
        }
    }
    p
}

/// A boolean condition of depth at most `depth`.
fn condition(r: &mut Rng, depth: u32) -> String {
    if depth > 0 && r.chance(40) {
        return match r.below(4) {
            0 => format!("!({})", condition(r, depth - 1)),
            1 => format!(
                "({}) && ({})",
                condition(r, depth - 1),
                condition(r, depth - 1)
            ),
            2 => format!(
                "({}) || ({})",
                condition(r, depth - 1),
                condition(r, depth - 1)
            ),
            _ => format!(
                "{} && {} || {}",
                condition(r, 0),
                condition(r, 0),
                condition(r, 0)
            ),
        };
    }
    let p = path(r);
    match r.below(17) {
        0 | 1 => format!("{p} == {}", *r.pick(CONSTANTS)),
        2 => format!("{p} != {}", *r.pick(CONSTANTS)),
        3 => format!("{} in {p}", *r.pick(STRINGS)),
        4 => format!("{p} in [{}, {}]", *r.pick(CONSTANTS), *r.pick(STRINGS)),
        5 => format!("{p}.startsWith({})", *r.pick(STRINGS)),
        6 => format!("{p}.endsWith({})", *r.pick(STRINGS)),
        7 => format!("{p}.contains({})", *r.pick(STRINGS)),
        8 => {
            let p = path_without_optional(r);
            format!("has({p})")
        }
        9 => format!("size({p}) {} {}", *r.pick(&["<=", "==", ">"]), r.below(4)),
        10 => format!("{p}.exists(c, c == {})", *r.pick(CONSTANTS)),
        11 => format!(
            "{p}.all(c, c.{}.startsWith({}))",
            *r.pick(&["image", "name"]),
            *r.pick(STRINGS)
        ),
        12 => format!("{p}.exists(c, c.securityContext.?privileged.orValue(false))"),
        13 => format!("{p} {} {}", *r.pick(&["==", "!="]), path(r)),
        14 => match r.below(3) {
            0 => p,
            1 => format!("!{p}"),
            _ => format!("{} {} {p}", *r.pick(CONSTANTS), *r.pick(&["==", "!="])),
        },
        15 => match r.below(4) {
            0 => format!("{p}.all(k, !k.startsWith({}))", *r.pick(STRINGS)),
            1 => format!("{p}.exists(k, {p}[k] == {})", *r.pick(CONSTANTS)),
            2 => format!(
                "{p}.all(c, c.exists(d, d {} {}))",
                *r.pick(&["==", "!="]),
                *r.pick(CONSTANTS)
            ),
            _ => format!("{p}.exists(k, {} in {p}[k])", *r.pick(STRINGS)),
        },
        _ => format!(
            "{p} {} {}",
            *r.pick(&["<", ">=", "=="]),
            *r.pick(&["1", "3.0", "'a'"])
        ),
    }
}

/// A path of fields only (for `has`).
fn path_without_optional(r: &mut Rng) -> String {
    if r.chance(30) {
        return (*r.pick(REQUEST_PATHS)).to_owned();
    }
    let mut at: &str = r.pick::<&str>(&["object", "oldObject"]);
    let mut p = at.to_owned();
    for _ in 0..=r.below(3) {
        at = field(r, at);
        p.push('.');
        p.push_str(at);
    }
    p
}

/// A value for the member `name`: mostly of its usual shape, sometimes of any type.
fn member_value(r: &mut Rng, name: &str, depth: u32) -> Json {
    if depth == 0 || r.chance(20) {
        return value(r, depth.min(1));
    }
    let usual = members(name);
    match name {
        "containers" => Json::Array(
            (0..r.below(3))
                .map(|_| member_value(r, "container", depth - 1))
                .collect(),
        ),
        "name" | "namespace" | "image" | "app" | "a" | "x" | "kind" => Json::String(
            (*r.pick(&["", "web", "a", "registry.example.com/x", "kube-system"])).to_owned(),
        ),
        "replicas" | "generation" => json!(*r.pick(&[0, 1, 3])),
        "privileged" => Json::Bool(r.chance(50)),
        _ if !usual.is_empty() => {
            let mut m = Map::new();
            for key in usual {
                if r.chance(70) {
                    m.insert((*key).to_owned(), member_value(r, key, depth - 1));
                }
            }
            Json::Object(m)
        }
        _ => value(r, depth),
    }
}

/// A JSON value of any type, nesting the object fields at most `depth` deep.
fn value(r: &mut Rng, depth: u32) -> Json {
    match r.below(if depth == 0 { 8 } else { 11 }) {
        0 => Json::Null,
        1 => Json::Bool(r.chance(50)),
        2 => json!(r.below(5) as i64 - 1),
        3 => json!(3.0),
        4 => json!(u64::MAX),
        5 => Json::String(
            (*r.pick(&[
                "",
                "web",
                "a",
                "CREATE",
                "system:nodes",
                "registry.example.com/x",
                "kube-system",
            ]))
            .to_owned(),
        ),
        6 => json!(["a", "b"]),
        7 => json!([]),
        8 | 9 => {
            let mut m = Map::new();
            for _ in 0..r.below(5) {
                let key = *r.pick(OBJECT_FIELDS);
                m.insert(key.to_owned(), value(r, depth - 1));
            }
            Json::Object(m)
        }
        _ => {
            let n = r.below(3);
            Json::Array((0..n).map(|_| value(r, depth - 1)).collect())
        }
    }
}

/// A request: the usual members, some of them of the wrong type or missing.
fn request(r: &mut Rng) -> Json {
    let mut m = Map::new();
    let typed = |r: &mut Rng, good: Json| if r.chance(80) { good } else { value(r, 1) };
    let entries: Vec<(&str, Json)> = vec![
        ("uid", json!("u")),
        (
            "operation",
            json!(*r.pick(&["CREATE", "UPDATE", "DELETE", "CONNECT"])),
        ),
        ("namespace", json!(*r.pick(&["", "kube-system", "web"]))),
        ("name", json!(*r.pick(&["", "web", "a"]))),
        ("subResource", json!(*r.pick(&["", "status"]))),
        ("dryRun", json!(r.chance(50))),
        (
            "userInfo",
            json!({"username": *r.pick(&["system:admin", "alice", ""]),
                   "groups": ["system:nodes", "a"], "uid": "1", "extra": {"a": ["b"]}}),
        ),
        ("kind", json!({"group": "", "version": "v1", "kind": "Pod"})),
        (
            "resource",
            json!({"group": "", "version": "v1", "resource": "pods"}),
        ),
        (
            "requestKind",
            json!({"group": "apps", "version": "v1", "kind": "Deployment"}),
        ),
    ];
    for (k, v) in entries {
        if r.chance(90) {
            let v = typed(r, v);
            m.insert(k.to_owned(), v);
        }
    }
    for k in ["object", "oldObject"] {
        if r.chance(90) {
            let v = if r.chance(80) {
                member_value(r, k, 5)
            } else {
                value(r, 3)
            };
            m.insert(k.to_owned(), v);
        }
    }
    Json::Object(m)
}

fn describe(ev: &Evaluation<'_>) -> String {
    match &ev.result {
        Ok(v) => format!("{v:?} cost {}", ev.cost),
        Err(e) => format!("error {} cost {}", e.message(), ev.cost),
    }
}

#[test]
fn the_fast_tier_matches_the_general_evaluator_on_generated_conditions() {
    let (cases, mut r) = settings();
    let env = Environment::latest();
    let unchecked = CompileOptions::default().with_unchecked(true);
    let requests: Vec<Json> = (0..24).map(|_| request(&mut r)).collect();
    let (mut fast, mut compared, mut failures) = (0usize, 0usize, Vec::new());
    for _ in 0..cases {
        let expr = condition(&mut r, 2);
        let programs = [
            env.compile_condition(&expr).ok(),
            env.compile(&expr, &unchecked).ok().map(std::sync::Arc::new),
        ];
        for p in programs.into_iter().flatten() {
            if !p.has_fast_tier() {
                continue;
            }
            fast += 1;
            for req in &requests {
                let act = Activation::from_request(req);
                for limit in [None, Some(0), Some(1), Some(2), Some(5), Some(20)] {
                    let general = describe(&p.evaluate_general(&act, limit));
                    let either = describe(&p.evaluate(&act, limit));
                    compared += 1;
                    if either != general && failures.len() < 20 {
                        failures.push(format!(
                            "{expr}\n  on {req}\n  limit {limit:?}: fast tier {either}, general {general}"
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Most generated conditions have a fast form (the test would prove little otherwise).
    assert!(
        fast * 2 > cases,
        "only {fast} of {cases} conditions had a fast form"
    );
    assert!(compared > 0);
}

/// How many conditions to generate, and the generator.
fn settings() -> (usize, Rng) {
    let number = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let cases = number("GENERATED_CASES").unwrap_or(4000);
    let seed = number("GENERATED_SEED").unwrap_or(0x5eed_1234_abcd_0001);
    (usize::try_from(cases).unwrap(), Rng::new(seed))
}

/// Each condition's name, outcome and cost, and the decision.
fn report(conditions: &MatchConditions, request: &Json, policy: FailurePolicy) -> String {
    let report = conditions.explain(&Activation::from_request(request), policy);
    let mut out = format!(
        "{:?} total {} {:?}",
        report.decision, report.total_cost, report.evaluation_error
    );
    for c in &report.conditions {
        out.push_str(&format!(
            "\n  {}: {:?} cost {:?}",
            c.name, c.outcome, c.cost
        ));
    }
    out
}

#[test]
fn conditions_decide_the_same_from_the_bytes_as_from_the_parsed_request() {
    let (cases, mut r) = settings();
    let env = Environment::latest();
    // Each request with the bytes of its review.
    let requests: Vec<(Json, Vec<u8>)> = (0..24)
        .map(|_| {
            let req = request(&mut r);
            let review = json!({
                "apiVersion": "admission.k8s.io/v1",
                "kind": "AdmissionReview",
                "request": req,
            });
            (req, serde_json::to_vec(&review).unwrap())
        })
        .collect();
    let (mut sets, mut failures) = (0usize, Vec::new());
    let mut pending: Vec<MatchCondition> = Vec::new();
    for i in 0..cases {
        let expr = condition(&mut r, 2);
        if env.compile_condition(&expr).is_err() {
            continue;
        }
        pending.push(MatchCondition::new(format!("c{i}"), expr));
        if pending.len() as u64 <= r.below(4) {
            continue;
        }
        let set = std::mem::take(&mut pending);
        let conditions = MatchConditions::compile(&env, &set).unwrap();
        let written: Vec<&str> = set.iter().map(|c| c.expression.as_str()).collect();
        sets += 1;
        for (req, bytes) in &requests {
            let pruned = conditions.read_review_to_decide(bytes).unwrap();
            for policy in [FailurePolicy::Fail, FailurePolicy::Ignore] {
                let whole = report(&conditions, req, policy);
                let from_bytes = report(&conditions, &pruned, policy);
                if whole != from_bytes && failures.len() < 10 {
                    failures.push(format!(
                        "{written:?}\n  on {req}\n  read as {pruned}\n  parsed: {whole}\n  bytes: {from_bytes}"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        sets * 8 > cases,
        "only {sets} sets of conditions for {cases} cases"
    );
}
