//! Every call the playground makes into the engine, in one module.
//!
//! The page sends the editors' texts and gets back what it draws: the lint findings (with
//! their positions in the configuration editor), every webhook's decision with the checks
//! that led to it and each condition's value or error and cost, and the value of the
//! expression box. Everything here is plain data (`serde::Serialize`): the JavaScript side
//! only renders it.
//!
//! Lint findings come from one function, `lint`: today it gathers the [`Validator`]'s
//! field errors and the compile errors of each matchCondition, with positions computed by
//! [`crate::locate`] (the loader's errors come from `load`). A lint library giving
//! structured findings (severity, code, message, field path, file position, expression
//! span) replaces the body of `lint`, mapping each of them into a [`Finding`]: nothing else
//! changes.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use matchcond::compiler::EnvMode;
use matchcond::dispatch::{
    load_documents, parse_documents, Attributes, Configuration, Dispatcher, FieldError,
    HookDecision, HookKind, HookOutcome, Labels, LoadError, NamespaceFn, Rejection, SkipReason,
    Validator, WebhookSpec,
};
use matchcond::runtime::authz::{AuthzDecision, StaticAuthorizer};
use matchcond::syntax::Issues;
use matchcond::{
    Activation, CompileError, CompileOptions, ConditionOutcome, Decision, Environment, KubeVersion,
    MATCH_CONDITIONS_BUDGET, PER_CALL_COST_LIMIT,
};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use crate::locate::{self, CharSpan, Documents, Segment, TextIndex};

/// The oldest Kubernetes version the page offers.
const OLDEST: KubeVersion = KubeVersion::V1_28;
/// The version the page starts with: the command line's default.
const DEFAULT: KubeVersion = KubeVersion::V1_34;

/// What the page asks for: the editors' texts and the settings.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Input {
    /// The webhook configurations (YAML or JSON, several documents).
    pub config: String,
    /// The AdmissionReview (JSON or YAML).
    pub review: String,
    /// `1.34`; empty for the newest.
    pub version: String,
    /// The namespace's labels, `k=v, k2=v2`.
    pub namespace_labels: String,
    /// What the authorizer answers every check: `allow`, `deny`, or `noOpinion`.
    pub authorizer: String,
    /// The expression box.
    pub expression: String,
}

/// A place in an editor: UTF-16 offsets (the editor's positions) and the 1-based line and
/// column (in code points) of its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Position {
    /// Start, in UTF-16 code units.
    pub from: u32,
    /// End, in UTF-16 code units.
    pub to: u32,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in code points.
    pub column: usize,
}

impl Position {
    fn of(index: &TextIndex, start: usize, end: usize) -> Position {
        let (line, column) = index.line_column(start);
        Position {
            from: index.utf16(start),
            to: index.utf16(end.max(start)),
            line,
            column,
        }
    }

    /// The span, or the rest of its line when it is empty.
    fn of_span(index: &TextIndex, span: CharSpan) -> Position {
        let end = if span.end > span.start {
            span.end
        } else {
            index.line_end(span.start).max(span.start)
        };
        Position::of(index, span.start, end)
    }
}

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Severity {
    /// The apiserver refuses the configuration (or the page cannot read it).
    Error,
    /// Accepted, but probably not what was meant.
    Warning,
}

/// One lint finding, in the form the page draws.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// How bad it is.
    pub severity: Severity,
    /// A stable identifier of the kind of finding (`yaml`, `load`, `review`,
    /// `field/Invalid`, `field/Required`, …, `cel/compile`).
    pub code: String,
    /// The message, as the apiserver (or the loader) words it.
    pub message: String,
    /// The field path (`webhooks[0].matchConditions[1].expression`), if any.
    pub field: Option<String>,
    /// The document (0-based, counting empty documents), if known.
    pub document: Option<usize>,
    /// Where it is in the editor, if known.
    pub position: Option<Position>,
    /// For a finding in a CEL expression: the byte span in the expression.
    pub expression_span: Option<(usize, usize)>,
    /// For a CEL compile error: the expression's line with a caret under the position.
    pub snippet: Option<String>,
    /// The apiserver's whole message, when the finding is one part of it (one issue of a
    /// compile error).
    pub detail: Option<String>,
}

/// One check of a webhook's decision, in the apiserver's order.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    /// `namespaceSelector`, `objectSelector`, `rules`, `matchConditions`, `exemptKind`,
    /// `dryRun`.
    pub check: &'static str,
    /// `pass`, `fail`, `error` or `notReached`.
    pub state: &'static str,
    /// What was compared.
    pub detail: String,
}

/// One condition's result.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    /// The condition's name.
    pub name: String,
    /// Its expression.
    pub expression: String,
    /// `true`, `false`, `error` or `notEvaluated`.
    pub outcome: &'static str,
    /// The error, worded as the apiserver words it.
    pub error: Option<String>,
    /// The runtime cost charged.
    pub cost: u64,
    /// Where the expression is in the editor.
    pub position: Option<Position>,
}

/// One webhook's decision and why.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hook {
    /// `<configuration>/<webhook>/<n>`.
    pub uid: String,
    /// The configuration's name.
    pub configuration: String,
    /// The webhook's name.
    pub name: String,
    /// `validating` or `mutating`.
    pub kind: &'static str,
    /// `call`, `skip` or `reject`.
    pub decision: &'static str,
    /// Why, in words.
    pub reason: String,
    /// For a call: the resource and kind sent.
    pub invocation: Option<String>,
    /// For a rejection: `403 Forbidden: …`.
    pub rejection: Option<String>,
    /// The failure policy in force (defaulted).
    pub failure_policy: String,
    /// The checks, in order.
    pub steps: Vec<Step>,
    /// The conditions, when they were evaluated.
    pub conditions: Vec<Condition>,
    /// An error of the whole evaluation (the budget ran out).
    pub evaluation_error: Option<String>,
    /// The cost of the conditions.
    pub total_cost: u64,
    /// The webhook's budget for all its conditions.
    pub budget: u64,
    /// The per-expression cost limit.
    pub per_call_limit: u64,
    /// Where the webhook's name is in the editor.
    pub position: Option<Position>,
}

/// Everything the page draws for the configuration and the review.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    /// The Kubernetes version used.
    pub version: String,
    /// The configurations read (`Kind name`).
    pub configurations: Vec<String>,
    /// Lint findings on the configuration.
    pub findings: Vec<Finding>,
    /// Problems reading the review (positions in the review editor).
    pub review_findings: Vec<Finding>,
    /// The webhooks in dispatch order, up to the first rejection.
    pub hooks: Vec<Hook>,
    /// Whether the request is admitted (`None` when there was no review to decide).
    pub admitted: Option<bool>,
    /// The error that fails the request.
    pub rejection: Option<String>,
}

/// The expression box's result.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluated {
    /// `value`, `compileError`, `evalError`, `empty`.
    pub result: &'static str,
    /// The value as a CEL literal.
    pub value: Option<String>,
    /// The value's type.
    pub r#type: Option<String>,
    /// The cost charged.
    pub cost: Option<u64>,
    /// The error text, as the apiserver words it.
    pub error: Option<String>,
    /// Compile errors with their positions in the expression box.
    pub issues: Vec<Finding>,
    /// A problem with the review (the expression was then evaluated without a request).
    pub review_error: Option<String>,
}

/// The Kubernetes versions the page offers.
#[derive(Clone, Debug, Serialize)]
pub struct Versions {
    /// Newest first.
    pub versions: Vec<String>,
    /// The one to start with.
    pub default: String,
}

/// The Kubernetes versions the page offers, newest first, and the default.
pub fn versions() -> Versions {
    let mut versions = Vec::new();
    let mut v = KubeVersion::LATEST;
    while v >= OLDEST {
        versions.push(v.to_string());
        v = v.previous();
    }
    Versions {
        versions,
        default: DEFAULT.to_string(),
    }
}

/// The version of the picker's text; the default when it is not one the page offers.
fn version_of(text: &str) -> KubeVersion {
    match KubeVersion::parse(text) {
        Some(v) if v >= OLDEST && v <= KubeVersion::LATEST => v,
        _ => DEFAULT,
    }
}

/// What is kept between updates: environments and validators by version, and the last
/// configuration compiled (typing in the review editor does not compile it again).
#[derive(Default)]
struct Cache {
    validators: HashMap<KubeVersion, Validator>,
    /// The environments evaluations use (the expression box), by version.
    environments: HashMap<KubeVersion, Environment>,
    /// The environments of new expressions (where the validator compiles them), by version.
    new_environments: HashMap<KubeVersion, Environment>,
    compiled: Option<Compiled>,
}

struct Compiled {
    key: (String, KubeVersion, String),
    loaded: Loaded,
    findings: Vec<Finding>,
    dispatcher: Dispatcher,
}

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::new(Cache::default());
}

fn authorizer(text: &str) -> StaticAuthorizer {
    StaticAuthorizer::new(match text {
        "allow" => AuthzDecision::Allow,
        "deny" => AuthzDecision::Deny,
        _ => AuthzDecision::NoOpinion,
    })
}

/// A configuration read from the editor, with where it is.
struct Placed {
    document: usize,
    /// The path of the configuration object in its document (`items[2]` in a list).
    prefix: Vec<Segment>,
    config: Configuration,
}

/// The configuration editor's text, read.
struct Loaded {
    index: TextIndex,
    tree: Option<Documents>,
    configs: Vec<Placed>,
}

impl Loaded {
    fn position(&self, document: usize, path: &[Segment]) -> Option<Position> {
        let found = self.tree.as_ref()?.find(document, path)?;
        Some(Position::of_span(&self.index, found.mark()))
    }
}

/// The first `line L column C` of a message (serde's error positions).
fn line_column_in(message: &str) -> Option<(usize, usize)> {
    let at = message.find("line ")?;
    let rest = message.get(at + 5..)?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let line = digits.parse().ok()?;
    let rest = rest.get(digits.len()..)?.strip_prefix(" column ")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((line, digits.parse().ok()?))
}

fn error_at(index: &TextIndex, code: &str, message: String, document: Option<usize>) -> Finding {
    let position = line_column_in(&message).map(|(line, column)| {
        let at = index.index_of(line, column);
        Position::of(index, at, index.line_end(at).max(at + 1))
    });
    Finding {
        severity: Severity::Error,
        code: code.to_owned(),
        message,
        field: None,
        document,
        position,
        expression_span: None,
        snippet: None,
        detail: None,
    }
}

fn is_list_kind(doc: &Json) -> bool {
    matches!(
        doc.get("kind").and_then(Json::as_str),
        Some("List" | "ValidatingWebhookConfigurationList" | "MutatingWebhookConfigurationList")
    )
}

/// Reads the configuration editor's text document by document, as the command line does.
fn load(text: &str) -> (Loaded, Vec<Finding>) {
    let index = TextIndex::new(text);
    let tree = Documents::read(text);
    let mut findings = Vec::new();
    let mut configs = Vec::new();
    match parse_documents(text) {
        Err(e) => findings.push(error_at(&index, "yaml", e.to_string(), None)),
        Ok(docs) => {
            for (document, doc) in docs.iter().enumerate() {
                if doc.is_null() {
                    continue;
                }
                match load_documents(&doc.to_string()) {
                    Ok(found) => {
                        let list = is_list_kind(doc);
                        for (k, config) in found.into_iter().enumerate() {
                            let prefix = if list {
                                vec![Segment::Key("items".into()), Segment::Index(k)]
                            } else {
                                Vec::new()
                            };
                            configs.push(Placed {
                                document,
                                prefix,
                                config,
                            });
                        }
                    }
                    Err(e) => {
                        let e = match e {
                            LoadError::Document { source, .. } => *source,
                            other => other,
                        };
                        let position = tree.as_ref().and_then(|t| t.root(document)).map(|root| {
                            let start = root.span().start;
                            Position::of(&index, start, index.line_end(start))
                        });
                        findings.push(Finding {
                            severity: Severity::Error,
                            code: "load".into(),
                            message: format!("document {document}: {e}"),
                            field: None,
                            document: Some(document),
                            position,
                            expression_span: None,
                            snippet: None,
                            detail: None,
                        });
                    }
                }
            }
        }
    }
    (
        Loaded {
            index,
            tree,
            configs,
        },
        findings,
    )
}

/// The lint findings of the configurations: where the lint library plugs in.
///
/// Today: the [`Validator`]'s field errors on create, placed by their field path, and, for
/// a matchCondition that does not compile, one finding per compile issue at its position
/// in the expression. A lint library's structured findings (severity, code, message, field
/// path, file position, expression span) replace this body, each mapped into a
/// [`Finding`] (a file position becomes a [`Position`] through `loaded.index`); the
/// loader's errors ([`load`]) and everything the page draws stay as they are.
fn lint(loaded: &Loaded, validator: &Validator, new_env: &Environment) -> Vec<Finding> {
    let mut out = Vec::new();
    for placed in &loaded.configs {
        for error in validator.validate(&placed.config) {
            out.extend(field_findings(loaded, placed, &error, new_env));
        }
    }
    out
}

/// The findings of one field error: the error itself, or its compile issues.
fn field_findings(
    loaded: &Loaded,
    placed: &Placed,
    error: &FieldError,
    new_env: &Environment,
) -> Vec<Finding> {
    let mut path = placed.prefix.clone();
    path.extend(locate::parse_path(&error.field));
    let position = loaded.position(placed.document, &path);
    let finding = Finding {
        severity: Severity::Error,
        code: format!("field/{:?}", error.kind),
        message: error.to_string(),
        field: Some(error.field.clone()),
        document: Some(placed.document),
        position,
        expression_span: None,
        snippet: None,
        detail: None,
    };
    if !error.field.ends_with(".expression") {
        return vec![finding];
    }
    // A matchCondition's expression: compile it as the validator does (trimmed, in the
    // environment of new expressions) to place each issue.
    let Some(expression) = expression_at(placed, &error.field) else {
        return vec![finding];
    };
    let trimmed = expression.trim();
    let lead = expression.len() - expression.trim_start().len();
    let Err(CompileError::Invalid(issues)) = new_env.compile_condition(trimmed) else {
        return vec![finding];
    };
    let node = loaded
        .tree
        .as_ref()
        .and_then(|t| t.find(placed.document, &path))
        .filter(|f| f.complete)
        .map(|f| f.node);
    let map = node.and_then(|n| locate::value_map(loaded.index.chars(), n));
    let mut out = Vec::new();
    for (_, issue) in issues.located() {
        let span = issue.offset.map(|o| {
            let start = usize::try_from(o).unwrap_or(0).min(trimmed.len());
            (start, token_end(trimmed, start))
        });
        let position = match (span, &map) {
            (Some((s, e)), Some(map)) => {
                let to_char =
                    |byte: usize| expression.get(..lead + byte).map(|p| p.chars().count());
                match (to_char(s), to_char(e)) {
                    (Some(cs), Some(ce)) => {
                        // Past the end (an error at the end of the expression): its end.
                        let end = map.last().map_or(0, |p| p.1);
                        let from = map.get(cs).map_or(end, |p| p.0);
                        let to = map.get(ce.saturating_sub(1).max(cs)).map_or(end, |p| p.1);
                        Some(Position::of(&loaded.index, from, to.max(from + 1)))
                    }
                    _ => finding.position,
                }
            }
            _ => finding.position,
        };
        // The issue rendered alone, as the apiserver renders it: its source line and caret.
        let rendered = Issues::new(issues.source().clone(), vec![issue.clone()]).to_string();
        let snippet = rendered.split_once('\n').map(|(_, caret)| caret.to_owned());
        out.push(Finding {
            severity: Severity::Error,
            code: "cel/compile".into(),
            message: issue.message.clone(),
            field: Some(error.field.clone()),
            document: Some(placed.document),
            position,
            expression_span: span,
            snippet,
            detail: None,
        });
    }
    if out.is_empty() {
        return vec![finding];
    }
    // The apiserver's whole message stays available on the first issue.
    if let Some(first) = out.first_mut() {
        first.detail = Some(error.to_string());
    }
    out
}

/// The end of the token starting at a byte offset: an identifier (with the `.` before it,
/// where the checker places a field's errors), or one code point.
fn token_end(text: &str, start: usize) -> usize {
    let mut rest = text.get(start..).unwrap_or("");
    let mut start = start;
    if let Some(field) = rest.strip_prefix('.') {
        if field.starts_with(|c: char| c.is_alphabetic() || c == '_') {
            rest = field;
            start += 1;
        }
    }
    let ident: usize = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .map(char::len_utf8)
        .sum();
    if ident > 0 {
        start + ident
    } else {
        start + rest.chars().next().map_or(0, char::len_utf8)
    }
}

/// The expression at `webhooks[i].matchConditions[j].expression`.
fn expression_at<'a>(placed: &'a Placed, field: &str) -> Option<&'a str> {
    let path = locate::parse_path(field);
    let [Segment::Key(w), Segment::Index(i), Segment::Key(m), Segment::Index(j), Segment::Key(e)] =
        path.as_slice()
    else {
        return None;
    };
    if w != "webhooks" || m != "matchConditions" || e != "expression" {
        return None;
    }
    let hook = placed.config.webhooks.get(*i)?;
    Some(hook.match_conditions.get(*j)?.expression.as_str())
}

fn parse_labels(text: &str) -> Labels {
    let mut labels = Labels::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if let Some((k, v)) = part.split_once('=') {
            if !k.trim().is_empty() {
                labels.insert(k.trim().to_owned(), v.trim().to_owned());
            }
        }
    }
    labels
}

/// Reads the review editor: its `request`, or the findings that say why not.
fn read_review(text: &str) -> Result<Json, Vec<Finding>> {
    let index = TextIndex::new(text);
    let fail = |message: String| Err(vec![error_at(&index, "review", message, None)]);
    if text.trim().is_empty() {
        return fail("no AdmissionReview: paste one, or pick an example".into());
    }
    let docs = match parse_documents(text) {
        Ok(d) => d,
        Err(e) => return fail(e.to_string()),
    };
    let mut docs = docs.into_iter().filter(|d| !d.is_null());
    let (Some(review), None) = (docs.next(), docs.next()) else {
        return fail("expected exactly one AdmissionReview document".into());
    };
    match review.get("request") {
        Some(request @ Json::Object(_)) => Ok(request.clone()),
        _ => fail("not an AdmissionReview: no \"request\" object".into()),
    }
}

fn kind_word(kind: HookKind) -> &'static str {
    match kind {
        HookKind::Validating => "validating",
        HookKind::Mutating => "mutating",
    }
}

fn rejection_text(r: &Rejection) -> String {
    format!("{} {}: {}", r.code, r.reason, r.message)
}

fn list(items: Option<&Vec<String>>) -> String {
    match items {
        None => "[]".into(),
        Some(v) => format!(
            "[{}]",
            v.iter()
                .map(|s| if s.is_empty() {
                    "\"\"".into()
                } else {
                    s.clone()
                })
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// What an empty selector's check says.
const EVERYTHING: &str = "{} (matches everything)";

fn is_empty_selector<T: Serialize>(selector: Option<&T>) -> bool {
    selector_text(selector) == "{}"
}

fn selector_text<T: Serialize>(selector: Option<&T>) -> String {
    selector
        .and_then(|s| serde_json::to_string(s).ok())
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| "{}".to_owned())
}

fn labels_text(labels: &Labels) -> String {
    serde_json::to_string(labels).unwrap_or_default()
}

fn object_labels(object: Option<&Json>) -> String {
    match object
        .and_then(|o| o.get("metadata"))
        .and_then(|m| m.get("labels"))
    {
        Some(l) => l.to_string(),
        None => "{}".into(),
    }
}

/// Adds the call-time dry-run check, which decided: its index and state.
fn dry_run(steps: &mut Vec<Step>) -> (usize, &'static str) {
    steps.push(Step {
        check: "dryRun",
        state: "pass",
        detail: "a dry run may only call webhooks whose sideEffects are None or NoneOnDryRun"
            .into(),
    });
    (steps.len() - 1, "fail")
}

/// The checks of a webhook, in the apiserver's order, given how it was decided.
fn steps(
    spec: Option<&WebhookSpec>,
    outcome: &HookOutcome,
    request: &Json,
    namespace: &Labels,
) -> Vec<Step> {
    let attrs = Attributes::from_request(request).unwrap_or_default();
    let namespace_selector = spec.and_then(|s| s.namespace_selector.as_ref());
    let ns_detail = if attrs.namespace.is_empty() && attrs.resource.resource != "namespaces" {
        "cluster-scoped request: not applied".to_owned()
    } else if is_empty_selector(namespace_selector) {
        EVERYTHING.to_owned()
    } else {
        format!(
            "{} against namespace {:?} labels {}",
            selector_text(namespace_selector),
            attrs.namespace,
            labels_text(namespace)
        )
    };
    let object_selector = spec.and_then(|s| s.object_selector.as_ref());
    let obj_detail = if is_empty_selector(object_selector) {
        EVERYTHING.to_owned()
    } else {
        format!(
            "{} against object labels {}, old object labels {}",
            selector_text(object_selector),
            object_labels(request.get("object").filter(|o| !o.is_null())),
            object_labels(request.get("oldObject").filter(|o| !o.is_null())),
        )
    };
    let rules = spec.map_or_else(String::new, |s| {
        s.rules
            .iter()
            .map(|r| {
                format!(
                    "{} {} {} {}{}",
                    list(r.operations.as_ref()),
                    list(r.api_groups.as_ref()),
                    list(r.api_versions.as_ref()),
                    list(r.resources.as_ref()),
                    r.scope
                        .as_ref()
                        .map(|s| format!(" scope {s}"))
                        .unwrap_or_default()
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    });
    let subresource = if attrs.subresource.is_empty() {
        String::new()
    } else {
        format!("/{}", attrs.subresource)
    };
    let rules_detail = format!(
        "request {} {}{subresource}{}; rules: {}{}",
        attrs.operation,
        attrs.resource,
        if attrs.namespace.is_empty() {
            String::new()
        } else {
            format!(" in {}", attrs.namespace)
        },
        if rules.is_empty() { "none" } else { &rules },
        spec.and_then(|s| s.match_policy.as_deref())
            .map(|p| format!(" (matchPolicy {p})"))
            .unwrap_or_default()
    );
    let count = spec.map_or(0, |s| s.match_conditions.len());
    let conditions_detail = if count == 0 {
        "no matchConditions".to_owned()
    } else {
        format!("{count} condition(s)")
    };
    let mut out = vec![
        Step {
            check: "namespaceSelector",
            state: "pass",
            detail: ns_detail,
        },
        Step {
            check: "objectSelector",
            state: "pass",
            detail: obj_detail,
        },
        Step {
            check: "rules",
            state: "pass",
            detail: rules_detail,
        },
        Step {
            check: "matchConditions",
            state: "pass",
            detail: conditions_detail,
        },
    ];
    // The check that decided, and what was not reached after it.
    let decided = match &outcome.decision {
        HookDecision::Call(_) => None,
        HookDecision::Skip(SkipReason::ExemptKind) => {
            out.insert(
                0,
                Step {
                    check: "exemptKind",
                    state: "pass",
                    detail: format!("{} is an admission configuration kind", attrs.kind),
                },
            );
            Some((0, "fail"))
        }
        HookDecision::Skip(SkipReason::NamespaceSelector) => Some((0, "fail")),
        HookDecision::Skip(SkipReason::ObjectSelector) => Some((1, "fail")),
        HookDecision::Skip(SkipReason::Rules) => Some((2, "fail")),
        HookDecision::Skip(SkipReason::MatchCondition { .. }) => Some((3, "fail")),
        HookDecision::Skip(SkipReason::SideEffectsUnsetIgnored) => Some(dry_run(&mut out)),
        HookDecision::Reject(_) => {
            let report = outcome.conditions.as_ref();
            if report.is_some_and(|r| !matches!(r.decision, Decision::Call)) {
                Some((3, "error"))
            } else if attrs.dry_run {
                Some(dry_run(&mut out))
            } else {
                None
            }
        }
    };
    if let Some((at, state)) = decided {
        for (i, step) in out.iter_mut().enumerate() {
            if i == at {
                step.state = state;
            } else if i > at {
                step.state = "notReached";
            }
        }
    } else if let HookDecision::Reject(_) = outcome.decision {
        for step in &mut out {
            step.state = "notReached";
        }
    }
    out
}

fn hook_json(
    outcome: &HookOutcome,
    placed: Option<(&Placed, usize)>,
    loaded: &Loaded,
    request: &Json,
    namespace: &Labels,
) -> Hook {
    let spec = placed.and_then(|(p, i)| p.config.webhooks.get(i)).map(|s| {
        let mut s = s.clone();
        s.apply_defaults(outcome.hook.kind);
        s
    });
    let hook_path = |tail: &[Segment]| -> Option<Position> {
        let (p, i) = placed?;
        let mut path = p.prefix.clone();
        path.push(Segment::Key("webhooks".into()));
        path.push(Segment::Index(i));
        path.extend(tail.iter().cloned());
        loaded.position(p.document, &path)
    };
    let (decision, reason, invocation, rejection) = match &outcome.decision {
        HookDecision::Call(inv) => (
            "call",
            "every check passed".to_owned(),
            Some(format!("{}, {}", inv.resource, inv.kind)),
            None,
        ),
        HookDecision::Skip(r) => ("skip", r.to_string(), None, None),
        HookDecision::Reject(r) => ("reject", r.message.clone(), None, Some(rejection_text(r))),
    };
    let report = outcome.conditions.as_ref();
    let conditions = report
        .map(|r| {
            r.conditions
                .iter()
                .enumerate()
                .map(|(j, c)| {
                    let (outcome, error) = match &c.outcome {
                        ConditionOutcome::Value(true) => ("true", None),
                        ConditionOutcome::Value(false) => ("false", None),
                        ConditionOutcome::Error(e) => ("error", Some(e.clone())),
                        ConditionOutcome::NotEvaluated => ("notEvaluated", None),
                    };
                    Condition {
                        name: c.name.to_string(),
                        expression: c.expression.to_string(),
                        outcome,
                        error,
                        cost: c.cost,
                        position: hook_path(&[
                            Segment::Key("matchConditions".into()),
                            Segment::Index(j),
                            Segment::Key("expression".into()),
                        ]),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    Hook {
        uid: outcome.hook.uid.clone(),
        configuration: outcome.hook.configuration.clone(),
        name: outcome.hook.name.clone(),
        kind: kind_word(outcome.hook.kind),
        decision,
        reason,
        invocation,
        rejection,
        failure_policy: spec
            .as_ref()
            .and_then(|s| s.failure_policy.clone())
            .unwrap_or_else(|| "Fail".into()),
        steps: steps(spec.as_ref(), outcome, request, namespace),
        conditions,
        evaluation_error: report.and_then(|r| r.evaluation_error.clone()),
        total_cost: report.map_or(0, |r| r.total_cost),
        budget: MATCH_CONDITIONS_BUDGET,
        per_call_limit: PER_CALL_COST_LIMIT,
        position: hook_path(&[Segment::Key("name".into())]),
    }
}

/// The webhook a dispatcher's outcome is about: its configuration and index there.
fn place_hooks<'a>(
    loaded: &'a Loaded,
    outcomes: &[HookOutcome],
) -> Vec<Option<(&'a Placed, usize)>> {
    let mut all: Vec<(HookKind, String, &Placed, usize)> = Vec::new();
    for placed in &loaded.configs {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, spec) in placed.config.webhooks.iter().enumerate() {
            let n = seen.entry(spec.name.as_str()).or_insert(0);
            all.push((
                placed.config.hook_kind(),
                format!("{}/{}/{}", placed.config.name(), spec.name, n),
                placed,
                i,
            ));
            *n += 1;
        }
    }
    let mut taken = vec![false; all.len()];
    outcomes
        .iter()
        .map(|o| {
            let k = all.iter().enumerate().position(|(k, (kind, uid, _, _))| {
                !taken.get(k).copied().unwrap_or(true) && *kind == o.hook.kind && *uid == o.hook.uid
            })?;
            if let Some(t) = taken.get_mut(k) {
                *t = true;
            }
            all.get(k).map(|(_, _, p, i)| (*p, *i))
        })
        .collect()
}

/// Lints the configuration and decides every webhook for the review.
pub fn analyze(input: &Input) -> Analysis {
    let version = version_of(&input.version);
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        let key = (input.config.clone(), version, input.authorizer.clone());
        if cache.compiled.as_ref().is_none_or(|c| c.key != key) {
            let validator = cache
                .validators
                .entry(version)
                .or_insert_with(|| Validator::new(version))
                .clone();
            let new_env = cache
                .new_environments
                .entry(version)
                .or_insert_with(|| Environment::with_mode(version, EnvMode::NewExpressions))
                .clone();
            let (loaded, mut findings) = load(&input.config);
            findings.extend(lint(&loaded, &validator, &new_env));
            let configs: Vec<Configuration> =
                loaded.configs.iter().map(|p| p.config.clone()).collect();
            let dispatcher = Dispatcher::new(&configs, version)
                .with_authorizer(Arc::new(authorizer(&input.authorizer)));
            cache.compiled = Some(Compiled {
                key,
                loaded,
                findings,
                dispatcher,
            });
        }
        let Some(compiled) = cache.compiled.as_ref() else {
            return empty_analysis(version, Vec::new());
        };
        let mut analysis = empty_analysis(version, compiled.findings.clone());
        analysis.configurations = compiled
            .loaded
            .configs
            .iter()
            .map(|p| {
                format!(
                    "{} {}",
                    p.config.hook_kind().configuration_kind(),
                    p.config.name()
                )
            })
            .collect();
        let request = match read_review(&input.review) {
            Ok(r) => r,
            Err(findings) => {
                analysis.review_findings = findings;
                return analysis;
            }
        };
        let mut labels = parse_labels(&input.namespace_labels);
        let namespace = request
            .get("namespace")
            .and_then(Json::as_str)
            .unwrap_or("")
            .to_owned();
        labels
            .entry("kubernetes.io/metadata.name".to_owned())
            .or_insert_with(|| namespace.clone());
        let lister = NamespaceFn(|name: &str| -> Result<Option<Labels>, String> {
            let mut l = labels.clone();
            l.insert("kubernetes.io/metadata.name".to_owned(), name.to_owned());
            Ok(Some(l))
        });
        match compiled.dispatcher.dispatch(&request, &lister) {
            Err(e) => {
                let index = TextIndex::new(&input.review);
                analysis.review_findings = vec![error_at(&index, "review", e.to_string(), None)];
            }
            Ok(result) => {
                let places = place_hooks(&compiled.loaded, &result.hooks);
                analysis.hooks = result
                    .hooks
                    .iter()
                    .zip(places)
                    .map(|(o, p)| hook_json(o, p, &compiled.loaded, &request, &labels))
                    .collect();
                analysis.admitted = Some(result.rejection.is_none());
                analysis.rejection = result.rejection.as_ref().map(rejection_text);
            }
        }
        analysis
    })
}

fn empty_analysis(version: KubeVersion, findings: Vec<Finding>) -> Analysis {
    Analysis {
        version: version.to_string(),
        configurations: Vec::new(),
        findings,
        review_findings: Vec::new(),
        hooks: Vec::new(),
        admitted: None,
        rejection: None,
    }
}

/// Evaluates the expression box against the review's variables, as `matchcond eval` does.
pub fn evaluate(input: &Input) -> Evaluated {
    let mut out = Evaluated {
        result: "empty",
        value: None,
        r#type: None,
        cost: None,
        error: None,
        issues: Vec::new(),
        review_error: None,
    };
    if input.expression.trim().is_empty() {
        return out;
    }
    let version = version_of(&input.version);
    let request = match read_review(&input.review) {
        Ok(r) => Some(r),
        Err(findings) => {
            out.review_error = findings.into_iter().next().map(|f| f.message);
            None
        }
    };
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        let env = cache
            .environments
            .entry(version)
            .or_insert_with(|| Environment::kubernetes(version));
        let program = match env.compile(&input.expression, &CompileOptions::default()) {
            Ok(p) => p,
            Err(e) => {
                out.result = "compileError";
                out.error = Some(e.to_string());
                if let Some(issues) = e.issues() {
                    let index = TextIndex::new(&input.expression);
                    for (location, issue) in issues.located() {
                        let position = issue.offset.map(|o| {
                            let start = usize::try_from(o).unwrap_or(0).min(input.expression.len());
                            let end = token_end(&input.expression, start);
                            let chars = |b: usize| {
                                input.expression.get(..b).map_or(0, |p| p.chars().count())
                            };
                            Position::of(&index, chars(start), chars(end).max(chars(start) + 1))
                        });
                        out.issues.push(Finding {
                            severity: Severity::Error,
                            code: "cel/compile".into(),
                            message: format!(
                                "ERROR: <input>:{}:{}: {}",
                                location.line, location.column, issue.message
                            ),
                            field: None,
                            document: None,
                            position,
                            expression_span: None,
                            snippet: None,
                            detail: None,
                        });
                    }
                }
                return;
            }
        };
        let activation = match &request {
            Some(r) => Activation::from_request(r),
            None => Activation::empty(),
        }
        .with_authorizer(Arc::new(authorizer(&input.authorizer)));
        let evaluation = program.evaluate(&activation, Some(PER_CALL_COST_LIMIT));
        out.cost = Some(evaluation.cost);
        match evaluation.result {
            Ok(v) => {
                out.result = "value";
                out.value = Some(v.to_string());
                out.r#type = Some(v.type_name().to_owned());
            }
            Err(e) => {
                out.result = "evalError";
                out.error = Some(e.to_string());
            }
        }
    });
    out
}
