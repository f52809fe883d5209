//! `matchcond test`: runs the cases of test files against their webhook configurations,
//! reports each case (text, JSON or JUnit XML) and, with `--coverage`, which condition
//! outcomes the cases saw.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use matchcond::authz::{AuthorizerTable, AuthzDecision, StaticAuthorizer};
use matchcond::dispatch::load::{Node, Position, Severity};
use matchcond::dispatch::request::{
    build_review, load_test_file, Catalog, Expectation, NamespaceObject, NamespaceSet,
    NamespaceSource, SkipCheck, Source, TestCase, TestFile,
};
use matchcond::dispatch::{
    Configuration, Dispatcher, HookInfo, HookKind, HookOutcome, Labels, NamespaceFn,
    NamespaceLister, Validator,
};
use matchcond::{ConditionOutcome, Decision, KubeVersion, Skip};
use serde_json::{json, Value as Json};

use crate::color::{Streams, Tone};
use crate::commands::hook_kind_word;
use crate::input::{self, InputError};
use crate::lint_cmd::SCHEMA_VERSION;
use crate::request_args;

/// The output formats of `matchcond test`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TestOutput {
    /// Human-readable lines.
    Text,
    /// One JSON object with a `schemaVersion`.
    Json,
    /// JUnit XML (one testsuite per test file, one testcase per case).
    Junit,
}

/// The names a folder's test files end with.
pub const TEST_FILE_SUFFIXES: &[&str] = &[".test.yaml", ".test.yml"];

/// The test files of the paths: files as given, folders searched (recursively, in name
/// order, hidden folders left out, each folder once however links reach it) for
/// `*.test.yaml` and `*.test.yml`.
fn discover(paths: &[String]) -> (Vec<PathBuf>, Vec<String>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for p in paths {
        let path = PathBuf::from(p);
        if path.is_dir() {
            let before = files.len();
            walk(&path, &mut files, &mut errors, &mut seen);
            if files.len() == before {
                errors.push(format!(
                    "{p}: no test file (*.test.yaml, *.test.yml) in this folder"
                ));
            }
        } else if path.exists() {
            files.push(path);
        } else {
            errors.push(format!("{p}: no such file or folder"));
        }
    }
    (files, errors)
}

fn walk(
    dir: &Path,
    files: &mut Vec<PathBuf>,
    errors: &mut Vec<String>,
    seen: &mut std::collections::HashSet<PathBuf>,
) {
    // A folder reached again (a link to a folder above it) is not searched again.
    if !seen.insert(std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf())) {
        return;
    }
    let mut entries: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(e) => {
            errors.push(format!("{}: cannot read: {e}", dir.display()));
            return;
        }
    };
    entries.sort();
    for e in entries {
        let hidden = e
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'));
        if e.is_dir() {
            if !hidden {
                walk(&e, files, errors, seen);
            }
        } else if e
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| TEST_FILE_SUFFIXES.iter().any(|s| n.ends_with(s)))
        {
            files.push(e);
        }
    }
}

/// A webhook's conditions and what the cases saw of each.
#[derive(Default)]
struct HookCoverage {
    kind: &'static str,
    /// (name, expression, seen true, seen false, seen error)
    conditions: Vec<(String, String, u32, u32, u32)>,
}

/// A webhook as coverage tells it apart: its uid, its kind (a validating and a mutating
/// configuration may share a name) and its conditions' expressions (test files may test
/// configurations of the same names that differ).
type CoverageKey = (String, &'static str, Vec<String>);

/// The condition outcomes seen, by webhook.
#[derive(Default)]
struct Coverage {
    hooks: BTreeMap<CoverageKey, HookCoverage>,
}

impl Coverage {
    fn declare(&mut self, configs: &[Configuration]) {
        for c in configs {
            let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
            for w in &c.webhooks {
                let n = seen.entry(w.name.as_str()).or_insert(0);
                let uid = format!("{}/{}/{}", c.name(), w.name, n);
                *n += 1;
                let kind = hook_kind_word(c.hook_kind());
                let expressions = w
                    .match_conditions
                    .iter()
                    .map(|m| m.expression.clone())
                    .collect();
                self.hooks
                    .entry((uid, kind, expressions))
                    .or_insert_with(|| HookCoverage {
                        kind,
                        conditions: w
                            .match_conditions
                            .iter()
                            .map(|m| (m.name.clone(), m.expression.clone(), 0, 0, 0))
                            .collect(),
                    });
            }
        }
    }

    fn record(&mut self, outcome: &HookOutcome) {
        let Some(report) = outcome.conditions.as_ref() else {
            return;
        };
        let key = (
            outcome.hook.uid.clone(),
            hook_kind_word(outcome.hook.kind),
            report
                .conditions
                .iter()
                .map(|c| c.expression.to_string())
                .collect(),
        );
        let Some(hook) = self.hooks.get_mut(&key) else {
            return;
        };
        for c in &report.conditions {
            if let Some(slot) = hook.conditions.iter_mut().find(|s| s.0 == *c.name) {
                match c.outcome {
                    ConditionOutcome::Value(true) => slot.2 += 1,
                    ConditionOutcome::Value(false) => slot.3 += 1,
                    ConditionOutcome::Error(_) => slot.4 += 1,
                    _ => {}
                }
            }
        }
    }

    /// (outcomes seen of true/false, outcomes possible).
    fn totals(&self) -> (usize, usize) {
        let mut seen = 0;
        let mut all = 0;
        for h in self.hooks.values() {
            for c in &h.conditions {
                all += 2;
                seen += usize::from(c.2 > 0) + usize::from(c.3 > 0);
            }
        }
        (seen, all)
    }

    fn missing(&self) -> Vec<(String, String, &'static str)> {
        let mut out = Vec::new();
        for ((uid, _, _), h) in &self.hooks {
            for c in &h.conditions {
                let what = match (c.2 > 0, c.3 > 0, c.4 > 0) {
                    (false, false, false) => "never evaluated",
                    (false, false, true) => "only erred",
                    (false, true, _) => "never true",
                    (true, false, _) => "never false",
                    (true, true, _) => continue,
                };
                out.push((uid.clone(), c.0.clone(), what));
            }
        }
        out
    }

    fn to_json(&self) -> Json {
        let (seen, all) = self.totals();
        let webhooks: Vec<Json> = self
            .hooks
            .iter()
            .map(|((uid, _, _), h)| {
                json!({
                    "uid": uid,
                    "kind": h.kind,
                    "conditions": h.conditions.iter().map(|c| json!({
                        "name": c.0, "expression": c.1,
                        "true": c.2, "false": c.3, "error": c.4,
                        "covered": c.2 > 0 && c.3 > 0,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        let missing: Vec<Json> = self
            .missing()
            .into_iter()
            .map(|(uid, name, what)| json!({"webhook": uid, "condition": name, "missing": what}))
            .collect();
        json!({"outcomesSeen": seen, "outcomes": all, "webhooks": webhooks, "notExercised": missing})
    }
}

/// One webhook's check in a case.
struct WebhookResult {
    webhook: String,
    expected: String,
    actual: String,
    passed: bool,
    conditions: Vec<(String, String)>,
    position: Position,
}

enum CaseStatus {
    Passed,
    Failed,
    Error(String),
}

struct CaseResult {
    name: String,
    position: Position,
    status: CaseStatus,
    webhooks: Vec<WebhookResult>,
    notes: Vec<String>,
}

struct FileResult {
    file: String,
    name: Option<String>,
    errors: Vec<String>,
    cases: Vec<CaseResult>,
}

/// The options of `matchcond test`.
pub struct TestOptions<'a> {
    /// Files and folders.
    pub paths: &'a [String],
    /// Only cases whose name matches.
    pub run: Option<&'a regex::Regex>,
    /// Report the conditions' coverage.
    pub coverage: bool,
    /// The output format.
    pub output: TestOutput,
    /// Colours.
    pub paint: Streams,
}

/// `matchcond test`.
pub fn test(o: &TestOptions<'_>) -> Result<u8, InputError> {
    let (files, discover_errors) = discover(o.paths);
    let mut results = Vec::new();
    let mut coverage = Coverage::default();
    for e in &discover_errors {
        results.push(FileResult {
            file: String::new(),
            name: None,
            errors: vec![e.clone()],
            cases: Vec::new(),
        });
    }
    for f in &files {
        results.push(run_file(f, o.run, &mut coverage));
    }
    let count = |p: fn(&CaseStatus) -> bool| {
        results
            .iter()
            .flat_map(|f| &f.cases)
            .filter(|c| p(&c.status))
            .count()
    };
    let passed = count(|s| matches!(s, CaseStatus::Passed));
    let failed = count(|s| matches!(s, CaseStatus::Failed));
    let errored = count(|s| matches!(s, CaseStatus::Error(_)));
    let unusable = results.iter().filter(|f| !f.errors.is_empty()).count();
    if let (Some(pattern), 0) = (o.run, passed + failed + errored) {
        if unusable == 0 && !files.is_empty() {
            errln!(
                "matchcond: note: no case matches --run {:?}",
                pattern.as_str()
            );
        }
    }
    match o.output {
        TestOutput::Text => print_text(&results, o, &coverage, (passed, failed, errored)),
        TestOutput::Json => print_json(&results, o, &coverage, (passed, failed, errored)),
        TestOutput::Junit => print_junit(&results),
    }
    Ok(if unusable > 0 || errored > 0 {
        2
    } else if failed > 0 {
        1
    } else {
        0
    })
}

fn at(file: &str, p: Position) -> String {
    format!("{file}:{p}")
}

/// Loads what a file's cases need; the file's problems are errors.
struct Setup {
    dispatcher: Dispatcher,
    configurations: Vec<Configuration>,
    catalog: Catalog,
    namespaces: Option<NamespaceSet>,
}

fn run_file(path: &Path, run: Option<&regex::Regex>, coverage: &mut Coverage) -> FileResult {
    let file = path.display().to_string();
    let mut result = FileResult {
        file: file.clone(),
        name: None,
        errors: Vec::new(),
        cases: Vec::new(),
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            result.errors.push(format!("{file}: cannot read: {e}"));
            return result;
        }
    };
    let tf = match load_test_file(&text) {
        Ok(t) => t,
        Err(errors) => {
            result.errors = errors
                .iter()
                .map(|e| request_args::at_file(&file, e))
                .collect();
            return result;
        }
    };
    result.name.clone_from(&tf.name);
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let setup = match setup(&tf, &base, &file) {
        Ok(s) => s,
        Err(errors) => {
            result.errors = errors;
            return result;
        }
    };
    coverage.declare(&setup.configurations);
    for case in &tf.cases {
        if run.is_some_and(|r| !r.is_match(&case.name)) {
            continue;
        }
        let r = run_case(case, &setup, &base, &file, coverage);
        result.cases.push(r);
    }
    result
}

/// A path relative to the test file's folder, `..` resolved lexically (`suite/../pod.yaml`
/// is `pod.yaml`).
fn resolve(base: &Path, rel: &str) -> String {
    use std::path::Component;
    let p = Path::new(rel);
    if p.is_absolute() {
        return rel.to_owned();
    }
    let mut out = PathBuf::new();
    for c in base.join(p).components() {
        match c {
            Component::CurDir => {}
            // `a/..` is `.` unless `a` is a link, whose parent the system finds.
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_)))
                    && !std::fs::symlink_metadata(&out)
                        .is_ok_and(|m| m.file_type().is_symlink()) =>
            {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out.display().to_string()
}

fn authorizer_from(source: &Source, base: &Path, file: &str) -> Result<StaticAuthorizer, String> {
    match source {
        Source::File(rel) => input::read_authorizer(&resolve(base, rel)).map_err(|e| e.0),
        Source::Inline(node) => serde_json::from_value::<AuthorizerTable>(node.to_json())
            .map_err(|e| format!("{}: authorizer: {e}", at(file, node.start)))
            .and_then(|t| {
                t.to_static_authorizer()
                    .map_err(|e| format!("{}: authorizer: {e}", at(file, node.start)))
            }),
    }
}

fn namespaces_from(
    sources: &[NamespaceSource],
    base: &Path,
    file: &str,
) -> Result<NamespaceSet, Vec<String>> {
    let mut set = NamespaceSet::new();
    let mut errors = Vec::new();
    for s in sources {
        match s {
            NamespaceSource::File(rel) => match request_args::namespaces(&[resolve(base, rel)]) {
                Ok(ns) => {
                    for n in ns.iter() {
                        set.insert(n.clone());
                    }
                }
                Err(e) => errors.extend(e.problems().map(str::to_owned)),
            },
            NamespaceSource::Short { name, labels } => {
                set.insert(NamespaceObject::new(name, labels.clone()));
            }
            NamespaceSource::Manifest(node) => match NamespaceObject::from_node(node) {
                Ok(n) => set.insert(n),
                Err(e) => errors.push(request_args::at_file(file, &e)),
            },
        }
    }
    if errors.is_empty() {
        Ok(set)
    } else {
        Err(errors)
    }
}

/// The position (in dispatch order) of the webhook an expectation names: a webhook's name,
/// or its uid where names repeat, either prefixed with `validating:` or `mutating:` where a
/// validating and a mutating configuration share a name. An error when none or several
/// match.
fn find_webhook(dispatcher: &Dispatcher, name: &str) -> Result<usize, String> {
    let (kind, bare) = match name.split_once(':') {
        Some(("validating", rest)) => (Some(HookKind::Validating), rest),
        Some(("mutating", rest)) => (Some(HookKind::Mutating), rest),
        _ => (None, name),
    };
    let candidates: Vec<(usize, &HookInfo)> = dispatcher
        .hooks()
        .enumerate()
        .filter(|(_, h)| kind.is_none_or(|k| h.kind == k))
        .collect();
    let by_name: Vec<&(usize, &HookInfo)> =
        candidates.iter().filter(|(_, h)| h.name == bare).collect();
    let found = if by_name.is_empty() {
        candidates.iter().filter(|(_, h)| h.uid == bare).collect()
    } else {
        by_name
    };
    let named = |hooks: &mut dyn Iterator<Item = &HookInfo>| -> String {
        hooks
            .map(|h| format!("{}:{}", hook_kind_word(h.kind), h.uid))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match found.as_slice() {
        [(i, _)] => Ok(*i),
        [] => Err(format!(
            "no webhook {name:?} in the configurations (webhooks: {})",
            dispatcher
                .hooks()
                .map(|h| h.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
        many => Err(format!(
            "{name:?} names {} webhooks ({}): name one by its kind and uid",
            many.len(),
            named(&mut many.iter().map(|(_, h)| *h))
        )),
    }
}

fn setup(tf: &TestFile, base: &Path, file: &str) -> Result<Setup, Vec<String>> {
    let mut errors = Vec::new();
    let version = tf.kubernetes_version.unwrap_or(KubeVersion::LATEST);
    let validator = Validator::new(version);
    let mut configurations = Vec::new();
    for rel in &tf.configurations {
        let path = resolve(base, rel);
        match input::read_configurations(&path) {
            Ok((_, loaded)) => {
                for d in &loaded.text_diagnostics {
                    errors.push(format!("{path}:{d}"));
                }
                if loaded.configurations().next().is_none() && loaded.text_diagnostics.is_empty() {
                    errors.push(format!("{path}: no webhook configuration"));
                }
                for doc in &loaded.documents {
                    for c in &doc.configurations {
                        let errs: Vec<String> = c
                            .diagnostics
                            .iter()
                            .filter(|d| d.severity() == Severity::Error)
                            .map(|d| format!("{path}:{d}"))
                            .collect();
                        match &c.configuration {
                            Some(config) if errs.is_empty() => {
                                // What the apiserver would refuse to store is no test of it.
                                let refused: Vec<String> = validator
                                    .validate(config)
                                    .iter()
                                    .map(|e| {
                                        let at = c.node.locate_nearest(e.field());
                                        let named = input::configuration_label(
                                            c.kind.configuration_kind(),
                                            &c.name,
                                        );
                                        format!("{path}:{at}: {named}: {e}")
                                    })
                                    .collect();
                                if refused.is_empty() {
                                    configurations.push(config.clone());
                                } else {
                                    errors.extend(refused);
                                }
                            }
                            _ => errors.extend(errs),
                        }
                    }
                }
            }
            Err(e) => errors.push(format!("{file}: configurations: {}", e.0)),
        }
    }
    let crds: Vec<String> = tf.crds.iter().map(|c| resolve(base, c)).collect();
    let (catalog, table) = match request_args::resources(&crds, version) {
        Ok(r) => r,
        Err(e) => {
            errors.extend(e.problems().map(str::to_owned));
            (Catalog::new(), Arc::default())
        }
    };
    let namespaces = match &tf.namespaces {
        Some(sources) => match namespaces_from(sources, base, file) {
            Ok(s) => Some(s),
            Err(e) => {
                errors.extend(e);
                None
            }
        },
        None => None,
    };
    let authz = match &tf.authorizer {
        Some(s) => authorizer_from(s, base, file).unwrap_or_else(|e| {
            errors.push(e);
            StaticAuthorizer::new(AuthzDecision::NoOpinion)
        }),
        None => StaticAuthorizer::new(AuthzDecision::NoOpinion),
    };
    if !errors.is_empty() {
        return Err(errors);
    }
    let dispatcher = Dispatcher::with_resources(&configurations, version, table)
        .with_authorizer(Arc::new(authz));
    Ok(Setup {
        dispatcher,
        configurations,
        catalog,
        namespaces,
    })
}

/// The object of a source, the file it is in (empty: the test file) and the warnings about
/// it.
fn manifest(
    source: &Source,
    base: &Path,
    what: &str,
) -> Result<(Node, String, Vec<String>), String> {
    match source {
        Source::File(rel) => {
            let path = resolve(base, rel);
            request_args::read_object(&path, what)
                .map(|(n, w)| (n, path, w))
                .map_err(|e| e.0)
        }
        Source::Inline(node) => Ok((node.clone(), String::new(), Vec::new())),
    }
}

/// The request of a case, with the notes on it.
fn case_request(
    case: &TestCase,
    setup: &Setup,
    base: &Path,
    file: &str,
) -> Result<(Json, Vec<String>), String> {
    if let Some(review) = &case.review {
        let (value, name, warnings, type_warnings) = match review {
            Source::File(rel) => {
                let path = resolve(base, rel);
                let r = input::read_review(&path).map_err(|e| e.0)?;
                let w = request_args::review_warnings(&r.text, &r.request);
                (r.request, path, w, r.warnings)
            }
            Source::Inline(node) => {
                // Checked as a review file is: its type, then its request's members, each
                // warning at the member it is about (or the nearest one written).
                let place = at(file, node.start);
                let (request, type_warnings) =
                    input::review_request(&format!("{place}: review"), &node.to_json())
                        .map_err(|e| e.0)?;
                let warnings =
                    matchcond::dispatch::request::check_request(&request, &setup.catalog)
                        .into_iter()
                        .map(|w| (Some(node.locate_nearest(&w.path)), w))
                        .collect();
                (request, file.to_owned(), warnings, type_warnings)
            }
        };
        let notes = type_warnings
            .iter()
            .map(|w| format!("warning: {w}"))
            .chain(warnings.iter().map(|(p, w)| match p {
                Some(p) => format!("warning: {name}:{p}: {w}"),
                None => format!("warning: {name}: {w}"),
            }))
            .collect();
        return Ok((value, notes));
    }
    let object = case
        .object
        .as_ref()
        .map(|s| manifest(s, base, "object"))
        .transpose()?;
    let old = case
        .old_object
        .as_ref()
        .map(|s| manifest(s, base, "oldObject"))
        .transpose()?;
    let name_of = |m: &Option<(Node, String, Vec<String>)>| -> Option<String> {
        m.as_ref().map(|(_, p, _)| {
            if p.is_empty() {
                file.to_owned()
            } else {
                p.clone()
            }
        })
    };
    let built = build_review(
        &setup.catalog,
        object.as_ref().map(|(n, _, _)| n),
        old.as_ref().map(|(n, _, _)| n),
        &case.options,
    )
    .map_err(|e| {
        let text = request_args::build_error_text(
            &e,
            name_of(&object).as_deref(),
            name_of(&old).as_deref(),
        );
        text.replace(
            "give its CustomResourceDefinition with --crd",
            "list its CustomResourceDefinition under crds",
        )
    })?;
    let mut notes: Vec<String> = [&object, &old]
        .into_iter()
        .flatten()
        .flat_map(|(_, _, w)| w.iter().map(|w| format!("warning: {w}")))
        .chain(
            case.warnings
                .iter()
                .map(|w| format!("warning: {}", request_args::at_file(file, w))),
        )
        .collect();
    let request = built.request().clone();
    notes.extend(built.notes);
    Ok((request, notes))
}

fn expected_text(e: &Expectation) -> String {
    match e {
        Expectation::Called => "called".to_owned(),
        Expectation::Skipped(None) => "skipped".to_owned(),
        Expectation::Skipped(Some(SkipCheck::Reason(r))) => format!("skipped ({})", r.key()),
        Expectation::Skipped(Some(SkipCheck::Condition(c))) => {
            format!("skipped (matchCondition {c:?} is false)")
        }
        Expectation::Rejected(None) => "rejected".to_owned(),
        Expectation::Rejected(Some(m)) => format!("rejected: {m}"),
        _ => "?".to_owned(),
    }
}

fn actual_text(o: &HookOutcome) -> String {
    match &o.decision {
        Decision::Call => "called".to_owned(),
        Decision::Skip(s @ (Skip::Condition(_) | Skip::Ignored(_))) => format!("skipped ({s})"),
        Decision::Skip(s) => format!("skipped ({})", s.key()),
        Decision::Reject { message } => format!("rejected: {message}"),
    }
}

fn matches(e: &Expectation, o: &HookOutcome) -> bool {
    match (e, &o.decision) {
        (Expectation::Called, Decision::Call) => true,
        (Expectation::Skipped(None), Decision::Skip(_)) => true,
        (Expectation::Skipped(Some(SkipCheck::Reason(r))), Decision::Skip(s)) => r.matches(s),
        (Expectation::Skipped(Some(SkipCheck::Condition(c))), Decision::Skip(s)) => {
            s.condition() == Some(c.as_str())
        }
        (Expectation::Rejected(None), Decision::Reject { .. }) => true,
        (Expectation::Rejected(Some(m)), Decision::Reject { message }) => message == m,
        _ => false,
    }
}

fn run_case(
    case: &TestCase,
    setup: &Setup,
    base: &Path,
    file: &str,
    coverage: &mut Coverage,
) -> CaseResult {
    let mut result = CaseResult {
        name: case.name.clone(),
        position: case.position,
        status: CaseStatus::Passed,
        webhooks: Vec::new(),
        notes: Vec::new(),
    };
    let (request, notes) = match case_request(case, setup, base, file) {
        Ok(r) => r,
        Err(e) => {
            result.status = CaseStatus::Error(e);
            return result;
        }
    };
    result.notes = notes;
    let own_ns = match &case.namespaces {
        Some(sources) => match namespaces_from(sources, base, file) {
            Ok(s) => Some(s),
            Err(e) => {
                result.status = CaseStatus::Error(e.join("\n"));
                return result;
            }
        },
        None => None,
    };
    let any_namespace = NamespaceFn(|name: &str| -> Result<Option<Labels>, String> {
        Ok(Some(Labels::from([(
            "kubernetes.io/metadata.name".to_owned(),
            name.to_owned(),
        )])))
    });
    let namespaces: &dyn NamespaceLister = match (&own_ns, &setup.namespaces) {
        (Some(s), _) | (None, Some(s)) => s,
        (None, None) => &any_namespace,
    };
    let own_dispatcher = match &case.authorizer {
        Some(source) => match authorizer_from(source, base, file) {
            // The file's webhooks, compiled once, with the case's authorizer.
            Ok(a) => Some(setup.dispatcher.clone().with_authorizer(Arc::new(a))),
            Err(e) => {
                result.status = CaseStatus::Error(e);
                return result;
            }
        },
        None => None,
    };
    let dispatcher = own_dispatcher.as_ref().unwrap_or(&setup.dispatcher);
    for e in &case.expect {
        let position = match find_webhook(dispatcher, &e.webhook) {
            Ok(p) => p,
            Err(why) => {
                result.status = CaseStatus::Error(format!("{}: {why}", at(file, e.position)));
                return result;
            }
        };
        let outcome = match dispatcher.decide_at(position, &request, namespaces) {
            Ok(Some(o)) => o,
            Ok(None) => continue,
            Err(err) => {
                result.status = CaseStatus::Error(format!("the request: {err}"));
                return result;
            }
        };
        coverage.record(&outcome);
        if let Some(w) = request_args::conversion_warning(&outcome, &request) {
            result.notes.push(format!("warning: {}: {w}", e.webhook));
        }
        let passed = matches(&e.expectation, &outcome);
        if !passed {
            result.status = CaseStatus::Failed;
        }
        let conditions = outcome
            .conditions
            .as_ref()
            .map(|r| {
                r.conditions
                    .iter()
                    .map(|c| {
                        let v = match &c.outcome {
                            ConditionOutcome::Value(b) => b.to_string(),
                            ConditionOutcome::Error(e) => format!("error: {e}"),
                            _ => "not evaluated".to_owned(),
                        };
                        (c.name.to_string(), v)
                    })
                    .collect()
            })
            .unwrap_or_default();
        result.webhooks.push(WebhookResult {
            webhook: e.webhook.clone(),
            expected: expected_text(&e.expectation),
            actual: actual_text(&outcome),
            passed,
            conditions,
            position: e.position,
        });
    }
    result
}

fn print_text(
    results: &[FileResult],
    o: &TestOptions<'_>,
    coverage: &Coverage,
    (passed, failed, errored): (usize, usize, usize),
) {
    let p = o.paint.out;
    let mut unusable = 0;
    for f in results {
        for e in &f.errors {
            unusable += 1;
            errln!(
                "{}",
                o.paint.err.tone(Tone::Error, &format!("matchcond: {e}"))
            );
        }
        for c in &f.cases {
            let place = at(&f.file, c.position);
            match &c.status {
                CaseStatus::Passed => outln!("{} {place}: {}", p.label(Tone::Good, "ok  "), c.name),
                CaseStatus::Failed => {
                    outln!("{} {place}: {}", p.label(Tone::Error, "FAIL"), c.name);
                    for w in c.webhooks.iter().filter(|w| !w.passed) {
                        outln!("  {}: expected {}", w.webhook, w.expected);
                        outln!("  {}  actual {}", " ".repeat(w.webhook.len()), w.actual);
                        for (name, v) in &w.conditions {
                            outln!("    condition {name:?}: {v}");
                        }
                    }
                }
                CaseStatus::Error(e) => {
                    outln!("{} {place}: {}", p.label(Tone::Error, "ERROR"), c.name);
                    for line in e.lines() {
                        outln!("  {line}");
                    }
                }
            }
            for n in &c.notes {
                outln!("  {n}");
            }
        }
    }
    if o.coverage {
        let (seen, all) = coverage.totals();
        outln!();
        outln!("coverage: {seen} of {all} condition outcomes seen (each condition true and false)");
        for ((uid, _, _), h) in &coverage.hooks {
            if h.conditions.is_empty() {
                continue;
            }
            outln!("  {} {uid}", h.kind);
            for c in &h.conditions {
                outln!("    {:?}: true {}, false {}, error {}", c.0, c.2, c.3, c.4);
            }
        }
        let missing = coverage.missing();
        if missing.is_empty() {
            outln!("every condition was seen true and false");
        } else {
            outln!("not exercised:");
            for (uid, name, what) in missing {
                outln!("  {uid} condition {name:?}: {what}");
            }
        }
    }
    outln!();
    let summary = format!(
        "{passed} passed, {failed} failed, {errored} errors; {unusable} problems in test files"
    );
    let tone = if failed + errored + unusable > 0 {
        Tone::Error
    } else {
        Tone::Good
    };
    outln!("{}", p.tone(tone, &summary));
}

fn print_json(
    results: &[FileResult],
    o: &TestOptions<'_>,
    coverage: &Coverage,
    (passed, failed, errored): (usize, usize, usize),
) {
    let files: Vec<Json> = results
        .iter()
        .map(|f| {
            let cases: Vec<Json> = f
                .cases
                .iter()
                .map(|c| {
                    let (status, error) = match &c.status {
                        CaseStatus::Passed => ("passed", None),
                        CaseStatus::Failed => ("failed", None),
                        CaseStatus::Error(e) => ("error", Some(e.clone())),
                    };
                    json!({
                        "name": c.name,
                        "line": c.position.line,
                        "column": c.position.column,
                        "status": status,
                        "error": error,
                        "notes": c.notes,
                        "webhooks": c.webhooks.iter().map(|w| json!({
                            "webhook": w.webhook,
                            "line": w.position.line,
                            "column": w.position.column,
                            "expected": w.expected,
                            "actual": w.actual,
                            "passed": w.passed,
                            "conditions": w.conditions.iter().map(|(n, v)| json!({"name": n, "outcome": v})).collect::<Vec<_>>(),
                        })).collect::<Vec<_>>(),
                    })
                })
                .collect();
            json!({"file": f.file, "name": f.name, "errors": f.errors, "cases": cases})
        })
        .collect();
    let unusable: usize = results.iter().map(|f| f.errors.len()).sum();
    let mut out = json!({
        "schemaVersion": SCHEMA_VERSION,
        "files": files,
        "summary": {"passed": passed, "failed": failed, "errors": errored, "fileProblems": unusable},
    });
    if o.coverage {
        if let Json::Object(m) = &mut out {
            m.insert("coverage".into(), coverage.to_json());
        }
    }
    outln!("{out}");
}

/// Escapes text for XML content and attribute values.
fn xml(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&apos;"),
            '\n' => s.push_str("&#10;"),
            '\t' | '\r' => s.push(' '),
            // What XML 1.0 cannot hold.
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => s.push('?'),
            c => s.push(c),
        }
    }
    s
}

fn print_junit(results: &[FileResult]) {
    let mut body = String::new();
    let (mut tests, mut failures, mut errors) = (0, 0, 0);
    for f in results {
        let name = if f.file.is_empty() {
            "matchcond"
        } else {
            &f.file
        };
        let f_fail = f
            .cases
            .iter()
            .filter(|c| matches!(c.status, CaseStatus::Failed))
            .count();
        let f_err = f
            .cases
            .iter()
            .filter(|c| matches!(c.status, CaseStatus::Error(_)))
            .count()
            + usize::from(!f.errors.is_empty());
        let f_tests = f.cases.len() + usize::from(!f.errors.is_empty());
        tests += f_tests;
        failures += f_fail;
        errors += f_err;
        body.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{f_tests}\" failures=\"{f_fail}\" errors=\"{f_err}\" skipped=\"0\" time=\"0\">\n",
            xml(name)
        ));
        if !f.errors.is_empty() {
            body.push_str(&format!(
                "    <testcase name=\"load\" classname=\"{}\" time=\"0\">\n      <error message=\"the test file cannot be used\" type=\"input\">{}</error>\n    </testcase>\n",
                xml(name),
                xml(&f.errors.join("\n"))
            ));
        }
        for c in &f.cases {
            body.push_str(&format!(
                "    <testcase name=\"{}\" classname=\"{}\" time=\"0\"",
                xml(&c.name),
                xml(name)
            ));
            match &c.status {
                CaseStatus::Passed => body.push_str("/>\n"),
                CaseStatus::Failed => {
                    let mut detail = String::new();
                    for w in c.webhooks.iter().filter(|w| !w.passed) {
                        detail.push_str(&format!(
                            "{}: expected {}, actual {}\n",
                            w.webhook, w.expected, w.actual
                        ));
                        for (n, v) in &w.conditions {
                            detail.push_str(&format!("  condition {n:?}: {v}\n"));
                        }
                    }
                    let first = c
                        .webhooks
                        .iter()
                        .find(|w| !w.passed)
                        .map_or(String::new(), |w| {
                            format!(
                                "{}: expected {}, actual {}",
                                w.webhook, w.expected, w.actual
                            )
                        });
                    body.push_str(&format!(
                        ">\n      <failure message=\"{}\" type=\"mismatch\">{}</failure>\n    </testcase>\n",
                        xml(&first),
                        xml(&detail)
                    ));
                }
                CaseStatus::Error(e) => body.push_str(&format!(
                    ">\n      <error message=\"{}\" type=\"input\">{}</error>\n    </testcase>\n",
                    xml(e.lines().next().unwrap_or("")),
                    xml(e)
                )),
            }
        }
        body.push_str("  </testsuite>\n");
    }
    outln!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
    outln!("<testsuites name=\"matchcond test\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" time=\"0\">");
    if !body.is_empty() {
        outln!("{}", body.trim_end_matches('\n'));
    }
    outln!("</testsuites>");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Text in JUnit XML holds only what XML 1.0 can.
    #[test]
    fn xml_text_holds_only_xml_characters() {
        assert_eq!(
            xml("a<b>&\"'\n\t\u{1}\u{FFFE}\u{FFFF}é"),
            "a&lt;b&gt;&amp;&quot;&apos;&#10; ???é"
        );
    }

    /// `a/..` is `.`, unless `a` is a link.
    #[test]
    fn parent_steps_resolve_through_links() {
        assert_eq!(resolve(Path::new("suite/bad"), "../../c.yaml"), "c.yaml");
        let dir = std::env::temp_dir().join(format!("matchcond-resolve-{}", std::process::id()));
        let deep = dir.join("real/deeper");
        std::fs::create_dir_all(&deep).unwrap_or_default();
        let link = dir.join("link");
        #[cfg(unix)]
        {
            let _ = std::os::unix::fs::symlink(&deep, &link);
            let got = resolve(&link, "../c.yaml");
            assert_eq!(got, link.join("..").join("c.yaml").display().to_string());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
