//! Every call the playground makes into the engine, in one module.
//!
//! The page sends the editors' texts and gets back what it draws: the lint findings (with
//! their positions in the configuration editor), every webhook's decision with the checks
//! that led to it and each condition's value or error and cost, and the value of the
//! expression box. Everything here is plain data (`serde::Serialize`): the JavaScript side
//! only renders it.
//!
//! The configuration editor's text is read by the library's strict loader
//! ([`load_text`]), as `matchcond lint`, `matchcond match` and the webhook server read
//! files, and linted by [`Linter::lint_text`]: the findings are the library's, each mapped
//! into a [`Finding`] with the fields of `matchcond lint --output json` and the range to
//! mark in the editor. The page's first update decides only ([`Input::decide_only`]): the
//! linter (an environment and a validator per modelled version) is set up by the next.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use matchcond::authz::{AuthorizerTable, AuthzDecision, StaticAuthorizer};
use matchcond::dispatch::load::{
    load_text, LoadedConfiguration, LoadedText, Node, Position as YamlPosition, Style,
    Value as YamlValue,
};
use matchcond::dispatch::{
    parse_documents, Attributes, Configuration, Dispatcher, HookKind, HookOutcome, Labels,
    NamespaceFn, Rejection, WebhookSpec,
};
use matchcond::lint::{self, Linter, TextReport};
use matchcond::{
    Activation, CompileOptions, ConditionOutcome, Decision, Environment, KubeVersion, Skip,
    MATCH_CONDITIONS_BUDGET, PER_CALL_COST_LIMIT,
};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use crate::text::TextIndex;

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
    /// What the authorizer answers every check: `allow`, `deny`, or `noOpinion`; `table`
    /// for [`Input::authorizer_table`].
    pub authorizer: String,
    /// A static authorizer table (YAML or JSON), as `matchcond match --authorizer` reads
    /// one: rules by user, user groups, verbs and resources, with a default.
    pub authorizer_table: String,
    /// The expression box.
    pub expression: String,
    /// Decide only, leaving the lint findings to a later call: the page's first update,
    /// which puts the first decision on screen before the linter is set up.
    pub decide_only: bool,
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
    /// Code points `start..end` (the rest of the line when empty).
    fn of(index: &TextIndex, start: usize, end: usize) -> Position {
        let end = if end > start {
            end
        } else {
            index.line_end(start).max(start)
        };
        let (line, column) = index.line_column(start);
        Position {
            from: index.utf16(start),
            to: index.utf16(end),
            line,
            column,
        }
    }

    /// A scalar node's source.
    fn of_node(index: &TextIndex, node: &Node) -> Position {
        Position::of(index, node.start_index, node.end_index)
    }
}

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Severity {
    /// The apiserver (or kubectl, or the page) refuses it.
    Error,
    /// Accepted, but it fails or misleads at run time.
    Warning,
    /// Information (a skipped document, the versions that accept a configuration).
    Note,
}

impl Severity {
    fn of(s: lint::Severity) -> Severity {
        match s {
            lint::Severity::Error => Severity::Error,
            lint::Severity::Warning => Severity::Warning,
            lint::Severity::Note => Severity::Note,
        }
    }
}

/// Where a finding lies in a matchCondition's expression (as `matchcond lint` gives it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Span {
    /// Byte offset of the start in the expression as written.
    pub start: usize,
    /// Byte offset of the end (exclusive).
    pub end: usize,
    /// 1-based line of the start in the expression.
    pub line: u32,
    /// 1-based column of the start in the expression, in characters.
    pub column: u32,
    /// The expression's line with a caret under the start.
    pub snippet: String,
}

/// The apiserver's validation error of a finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FieldError {
    /// Its field path.
    pub field: String,
    /// `Invalid value`, `Required value`, …
    pub r#type: String,
    /// What is wrong with the value.
    pub detail: String,
}

/// One finding, in the form the page draws. The fields up to `field_error` are those of
/// `matchcond lint --output json`, with the same values.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// How bad it is.
    pub severity: Severity,
    /// A stable code: the lint library's (`unknownField`, `validation`, `objectOnDelete`,
    /// …), or the page's own `review` (the review editor) and `compile` (the expression
    /// box).
    pub code: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it, when there is a known fix.
    pub help: Option<String>,
    /// The field path (`webhooks[0].matchConditions[1].expression`); empty for a finding
    /// about a document or the whole text.
    pub path: String,
    /// 1-based line of its position, if known.
    pub line: Option<u32>,
    /// 1-based column of its position (in characters), if known.
    pub column: Option<u32>,
    /// For a finding in an expression: where in the expression.
    pub span: Option<Span>,
    /// The operations concerned (`DELETE`, …).
    pub operations: Vec<String>,
    /// The Kubernetes versions concerned.
    pub versions: Vec<String>,
    /// The apiserver's validation error, for `validation` findings.
    pub field_error: Option<FieldError>,
    /// The configuration it is about (`ValidatingWebhookConfiguration shop-policy`).
    pub context: Option<String>,
    /// The document (0-based, counting empty documents), if known.
    pub document: Option<usize>,
    /// What to mark in the editor, if known.
    pub position: Option<Position>,
}

impl Finding {
    /// A finding of the page's own (the review editor, the expression box).
    fn own(code: &str, message: String, position: Option<Position>) -> Finding {
        let to_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Finding {
            severity: Severity::Error,
            code: code.to_owned(),
            message,
            help: None,
            path: String::new(),
            line: position.map(|p| to_u32(p.line)),
            column: position.map(|p| to_u32(p.column)),
            span: None,
            operations: Vec::new(),
            versions: Vec::new(),
            field_error: None,
            context: None,
            document: None,
            position,
        }
    }
}

/// How many findings of each severity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Errors.
    pub errors: usize,
    /// Warnings.
    pub warnings: usize,
    /// Notes.
    pub notes: usize,
}

impl Counts {
    fn of(findings: &[Finding]) -> Counts {
        let n = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
        Counts {
            errors: n(Severity::Error),
            warnings: n(Severity::Warning),
            notes: n(Severity::Note),
        }
    }
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
    /// The configurations decided (`Kind name`).
    pub configurations: Vec<String>,
    /// The configurations decided although the apiserver refuses them (`Kind name`):
    /// decided as if they were stored, as `matchcond match` does.
    pub refused: Vec<String>,
    /// Whether the configuration text was linted (not for [`Input::decide_only`]).
    pub linted: bool,
    /// The lint findings on the configuration text, as `matchcond lint` gives them.
    pub findings: Vec<Finding>,
    /// How many of each severity.
    pub counts: Counts,
    /// Problems reading the review (positions in the review editor).
    pub review_findings: Vec<Finding>,
    /// The webhooks in dispatch order, up to the first rejection.
    pub hooks: Vec<Hook>,
    /// Whether the request is admitted (`None` when nothing could be decided).
    pub admitted: Option<bool>,
    /// The error that fails the request.
    pub rejection: Option<String>,
    /// Why nothing was decided.
    pub undecided: Option<String>,
    /// Why the authorizer table cannot be used.
    pub authorizer_error: Option<String>,
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
    /// Why the authorizer table cannot be used (the expression was not evaluated).
    pub authorizer_error: Option<String>,
}

/// The Kubernetes versions the page offers.
#[derive(Clone, Debug, Serialize)]
pub struct Versions {
    /// Newest first.
    pub versions: Vec<String>,
    /// The one to start with: the newest.
    pub default: String,
}

/// The Kubernetes versions the page offers (those the linter models), newest first, and
/// the default: the newest.
pub fn versions() -> Versions {
    let mut versions: Vec<String> = lint::modelled_versions()
        .iter()
        .map(ToString::to_string)
        .collect();
    versions.reverse();
    Versions {
        versions,
        default: KubeVersion::LATEST.to_string(),
    }
}

/// The version of the picker's text; the newest when it is not one the page offers.
fn version_of(text: &str) -> KubeVersion {
    match KubeVersion::parse(text) {
        Some(v) if lint::modelled_versions().contains(&v) => v,
        _ => KubeVersion::LATEST,
    }
}

/// What is kept between updates: linters and environments by version, and the last
/// configuration text loaded, linted and compiled (typing in the review editor does not
/// do that again).
#[derive(Default)]
struct Cache {
    linters: HashMap<KubeVersion, Linter>,
    /// The environments the expression box uses, by version.
    environments: HashMap<KubeVersion, Environment>,
    compiled: Option<Compiled>,
}

struct Compiled {
    key: (String, KubeVersion, String, String),
    loaded: Loaded,
    /// The findings, and the configurations decided although the apiserver refuses them;
    /// `None` until linted.
    lint: Option<(Vec<Finding>, Vec<String>)>,
    dispatcher: Dispatcher,
    /// Why the authorizer table cannot be used (nothing is then decided).
    authorizer_error: Option<String>,
}

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::new(Cache::default());
}

/// The authorizer the page's choice makes: one answer to every check, or a table.
fn authorizer(input: &Input) -> Result<StaticAuthorizer, String> {
    Ok(StaticAuthorizer::new(match input.authorizer.as_str() {
        "allow" => AuthzDecision::Allow,
        "deny" => AuthzDecision::Deny,
        "table" => return authorizer_table(&input.authorizer_table),
        _ => AuthzDecision::NoOpinion,
    }))
}

/// An authorizer table's text (the table, or a document with the table under
/// `authorizer`, as the command line's files; empty: no rule, no opinion).
fn authorizer_table(text: &str) -> Result<StaticAuthorizer, String> {
    let documents = parse_documents(text).map_err(|e| e.to_string())?;
    let table = match documents.into_iter().next() {
        None | Some(Json::Null) => AuthorizerTable::default(),
        Some(Json::Object(mut m)) if m.len() == 1 && m.contains_key("authorizer") => {
            let inner = m.remove("authorizer").unwrap_or(Json::Null);
            serde_json::from_value(inner).map_err(|e| format!("authorizer: {e}"))?
        }
        Some(doc) => serde_json::from_value(doc).map_err(|e| e.to_string())?,
    };
    table.to_static_authorizer().map_err(|e| e.to_string())
}

/// The configuration editor's text, loaded.
struct Loaded {
    index: TextIndex,
    text: LoadedText,
    /// The configurations decided: (document, configuration) indexes in `text`.
    decided: Vec<(usize, usize)>,
    /// Why nothing is decided.
    undecided: Option<String>,
}

impl Loaded {
    fn configuration(&self, at: (usize, usize)) -> Option<&LoadedConfiguration> {
        self.text.documents.get(at.0)?.configurations.get(at.1)
    }

    fn decided(&self) -> impl Iterator<Item = (&LoadedConfiguration, &Configuration)> + '_ {
        self.decided.iter().filter_map(|at| {
            let c = self.configuration(*at)?;
            Some((c, c.configuration.as_ref()?))
        })
    }
}

fn describe(c: &LoadedConfiguration) -> String {
    format!("{} {}", c.kind.configuration_kind(), c.name)
}

/// Loads the configuration editor's text with the strict loader. What is decided is what
/// `matchcond match` decides: nothing when the text cannot be read (or holds no webhook
/// configuration) or when a configuration cannot be decoded; otherwise every
/// configuration, those with errors as if they were stored.
fn load(text: &str) -> Loaded {
    let loaded = load_text(text);
    let mut decided = Vec::new();
    let mut undecided = loaded
        .text_diagnostics
        .first()
        .map(|d| format!("the configuration text cannot be used: {}", d.message));
    for (i, doc) in loaded.documents.iter().enumerate() {
        for (j, c) in doc.configurations.iter().enumerate() {
            if c.configuration.is_some() {
                decided.push((i, j));
            } else if undecided.is_none() {
                undecided = Some(format!("{} cannot be decoded", describe(c)));
            }
        }
    }
    if undecided.is_some() {
        decided.clear();
    }
    Loaded {
        index: TextIndex::new(text),
        text: loaded,
        decided,
        undecided,
    }
}

/// The lint findings of the text, in `matchcond lint`'s order: each document's, its
/// configurations', then the text's; and the configurations decided that have errors.
fn findings(loaded: &Loaded, report: &TextReport) -> (Vec<Finding>, Vec<String>) {
    let mut out = Vec::new();
    let mut refused = Vec::new();
    for (i, doc) in report.documents.iter().enumerate() {
        for f in &doc.findings {
            out.push(finding(&loaded.index, None, f, Some(doc.index)));
        }
        for (j, c) in doc.configurations.iter().enumerate() {
            // The loader's configuration: the same text read the same way.
            let node = loaded.configuration((i, j)).map(|l| &l.node);
            let context = format!("{} {}", c.kind.configuration_kind(), c.name);
            let errors = c
                .findings
                .iter()
                .any(|f| f.severity() == lint::Severity::Error);
            if errors && loaded.decided.contains(&(i, j)) {
                refused.push(context.clone());
            }
            for f in &c.findings {
                let mut f = finding(&loaded.index, node, f, Some(doc.index));
                f.context = Some(context.clone());
                out.push(f);
            }
        }
    }
    for f in &report.findings {
        out.push(finding(&loaded.index, None, f, None));
    }
    (out, refused)
}

/// One of the library's findings, for the page; `config` is its configuration's node.
fn finding(
    index: &TextIndex,
    config: Option<&Node>,
    f: &lint::Finding,
    document: Option<usize>,
) -> Finding {
    Finding {
        severity: Severity::of(f.severity()),
        code: f.code().as_str().to_owned(),
        message: f.message().to_owned(),
        help: f.help().map(str::to_owned),
        path: f.path().to_owned(),
        line: f.position().map(|p| p.line),
        column: f.position().map(|p| p.column),
        span: f.span().map(|s| Span {
            start: s.start,
            end: s.end,
            line: s.line,
            column: s.column,
            snippet: s.snippet.clone(),
        }),
        operations: f
            .operations()
            .iter()
            .map(|o| o.as_str().to_owned())
            .collect(),
        versions: f.versions().iter().map(ToString::to_string).collect(),
        field_error: f.field_error().map(|e| FieldError {
            field: e.field().to_owned(),
            r#type: e.kind().as_str().to_owned(),
            detail: e.detail().to_owned(),
        }),
        context: None,
        document,
        position: mark(index, config, f),
    }
}

/// What to mark in the editor for a finding: from its position to the end of what it is
/// about — the expression's piece its span covers, the scalar (value or key) it points
/// at, else the rest of the line.
fn mark(index: &TextIndex, config: Option<&Node>, f: &lint::Finding) -> Option<Position> {
    let at = f.position()?;
    let line = usize::try_from(at.line).unwrap_or(usize::MAX);
    let column = usize::try_from(at.column).unwrap_or(usize::MAX);
    let from = index.index_of(line, column);
    let target = config.filter(|_| !f.path().is_empty());
    let in_expression = match (f.span(), target.and_then(|n| n.at_path(f.path()))) {
        (Some(span), Some(node)) => node.as_str().and_then(|expression| {
            if span.end > span.start {
                let piece = expression.get(span.start..span.end)?;
                index.written_end(
                    from,
                    node.end_index,
                    piece,
                    node.style == Style::DoubleQuoted,
                )
            } else {
                // About the whole condition: the rest of the expression.
                Some(node.end_index)
            }
        }),
        _ => None,
    };
    let to = in_expression
        .or_else(|| target.and_then(|n| scalar_end(n, f.path(), from)))
        .unwrap_or(from);
    Some(Position {
        line,
        column,
        ..Position::of(index, from, to)
    })
}

/// The end of the scalar a path leads to, or of the key that names its last field, when
/// it starts at `from`.
fn scalar_end(config: &Node, path: &str, from: usize) -> Option<usize> {
    if let Some(node) = config.at_path(path) {
        if !matches!(node.value, YamlValue::Map(_) | YamlValue::Seq(_)) && node.start_index == from
        {
            return Some(node.end_index);
        }
    }
    if path.ends_with(']') {
        return None;
    }
    let (parent, field) = match path.rfind('.') {
        Some(dot) => (path.get(..dot)?, path.get(dot + 1..)?),
        None => ("", path),
    };
    let YamlValue::Map(entries) = &config.at_path(parent)?.value else {
        return None;
    };
    entries
        .iter()
        .map(|(k, _)| k)
        .find(|k| k.start_index == from && k.key_text().as_deref() == Some(field))
        .map(|k| k.end_index)
}

/// A problem of the review editor, at a line and column of its text if known.
fn review_error(index: &TextIndex, message: String, at: Option<YamlPosition>) -> Finding {
    let position = at.map(|p| {
        let line = usize::try_from(p.line).unwrap_or(usize::MAX);
        let column = usize::try_from(p.column).unwrap_or(usize::MAX);
        let at = index.index_of(line, column);
        Position::of(index, at, index.line_end(at).max(at + 1))
    });
    Finding::own("review", message, position)
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
    let fail = |message: String| Err(vec![review_error(&index, message, None)]);
    if text.trim().is_empty() {
        return fail("no AdmissionReview: paste one, or pick an example".into());
    }
    let docs = match parse_documents(text) {
        Ok(d) => d,
        Err(e) => {
            // Where the YAML reader stopped (JSON is read as YAML).
            let at = load_text(text).text_diagnostics.first().map(|d| d.position);
            return Err(vec![review_error(&index, e.to_string(), at)]);
        }
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
        Decision::Call => None,
        Decision::Skip(Skip::ExemptKind) => {
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
        Decision::Skip(Skip::NamespaceSelector) => Some((0, "fail")),
        Decision::Skip(Skip::ObjectSelector) => Some((1, "fail")),
        Decision::Skip(Skip::Rules) => Some((2, "fail")),
        Decision::Skip(Skip::SideEffectsUnsetIgnored) => Some(dry_run(&mut out)),
        Decision::Skip(_) => Some((3, "fail")),
        Decision::Reject { .. } => {
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
    } else if let Decision::Reject { .. } = outcome.decision {
        for step in &mut out {
            step.state = "notReached";
        }
    }
    out
}

fn hook_json(
    outcome: &HookOutcome,
    placed: Option<(&LoadedConfiguration, usize)>,
    index: &TextIndex,
    request: &Json,
    namespace: &Labels,
) -> Hook {
    let spec = placed
        .and_then(|(c, i)| c.configuration.as_ref()?.webhooks.get(i))
        .map(|s| {
            let mut s = s.clone();
            s.apply_defaults(outcome.hook.kind);
            s
        });
    // The editor range of a scalar of the webhook.
    let at = |tail: &str| -> Option<Position> {
        let (c, i) = placed?;
        let node = c.node.at_path(&format!("webhooks[{i}].{tail}"))?;
        Some(Position::of_node(index, node))
    };
    let (decision, reason, invocation, rejection) =
        match (outcome.invocation(), outcome.rejection()) {
            (Some(inv), _) => (
                "call",
                "every check passed".to_owned(),
                Some(format!("{}, {}", inv.resource, inv.kind)),
                None,
            ),
            (None, Some(r)) => ("reject", r.message.clone(), None, Some(rejection_text(r))),
            (None, None) => ("skip", outcome.skip_text().unwrap_or_default(), None, None),
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
                        _ => ("notEvaluated", None),
                    };
                    Condition {
                        name: c.name.to_string(),
                        expression: c.expression.to_string(),
                        outcome,
                        error,
                        cost: c.cost,
                        position: at(&format!("matchConditions[{j}].expression")),
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
        position: at("name"),
    }
}

/// The webhook a dispatcher's outcome is about: its configuration and index there.
fn place_hooks<'a>(
    loaded: &'a Loaded,
    outcomes: &[HookOutcome],
) -> Vec<Option<(&'a LoadedConfiguration, usize)>> {
    let mut all: Vec<(HookKind, String, &LoadedConfiguration, usize)> = Vec::new();
    for (placed, config) in loaded.decided() {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, spec) in config.webhooks.iter().enumerate() {
            let n = seen.entry(spec.name.as_str()).or_insert(0);
            all.push((
                config.hook_kind(),
                format!("{}/{}/{}", config.name(), spec.name, n),
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
        let cache = &mut *cache;
        let key = (
            input.config.clone(),
            version,
            input.authorizer.clone(),
            input.authorizer_table.clone(),
        );
        if cache.compiled.as_ref().is_none_or(|c| c.key != key) {
            let loaded = load(&input.config);
            let configs: Vec<Configuration> = loaded.decided().map(|(_, c)| c.clone()).collect();
            let authorizer = authorizer(input);
            let dispatcher = Dispatcher::new(&configs, version).with_authorizer(Arc::new(
                authorizer.as_ref().map_or_else(
                    |_| StaticAuthorizer::new(AuthzDecision::NoOpinion),
                    Clone::clone,
                ),
            ));
            cache.compiled = Some(Compiled {
                key,
                loaded,
                lint: None,
                dispatcher,
                authorizer_error: authorizer.err(),
            });
        }
        if !input.decide_only {
            if let Some(compiled) = cache.compiled.as_mut().filter(|c| c.lint.is_none()) {
                let linter = cache
                    .linters
                    .entry(version)
                    .or_insert_with(|| Linter::new(version));
                let report = linter.lint_text(&input.config);
                compiled.lint = Some(findings(&compiled.loaded, &report));
            }
        }
        let Some(compiled) = cache.compiled.as_ref() else {
            return empty_analysis(version, Vec::new());
        };
        let loaded = &compiled.loaded;
        let mut analysis = match &compiled.lint {
            Some((findings, refused)) => Analysis {
                linted: true,
                refused: refused.clone(),
                ..empty_analysis(version, findings.clone())
            },
            None => empty_analysis(version, Vec::new()),
        };
        analysis.configurations = loaded.decided().map(|(c, _)| describe(c)).collect();
        if let Some(why) = &loaded.undecided {
            analysis.undecided = Some(why.clone());
            return analysis;
        }
        if let Some(e) = &compiled.authorizer_error {
            analysis.authorizer_error = Some(e.clone());
            analysis.undecided = Some("the authorizer table cannot be used".into());
            return analysis;
        }
        let request = match read_review(&input.review) {
            Ok(r) => r,
            Err(findings) => {
                analysis.review_findings = findings;
                analysis.undecided = Some("the review cannot be read".into());
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
                analysis.review_findings = vec![review_error(&index, e.to_string(), None)];
                analysis.undecided = Some("the review cannot be decided".into());
            }
            Ok(result) => {
                let places = place_hooks(loaded, &result.hooks);
                analysis.hooks = result
                    .hooks
                    .iter()
                    .zip(places)
                    .map(|(o, p)| hook_json(o, p, &loaded.index, &request, &labels))
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
        refused: Vec::new(),
        linted: false,
        counts: Counts::of(&findings),
        findings,
        review_findings: Vec::new(),
        hooks: Vec::new(),
        admitted: None,
        rejection: None,
        undecided: None,
        authorizer_error: None,
    }
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
        authorizer_error: None,
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
                        let position = issue.offset().map(|o| {
                            let start = usize::try_from(o).unwrap_or(0).min(input.expression.len());
                            let end = token_end(&input.expression, start);
                            let chars = |b: usize| {
                                input.expression.get(..b).map_or(0, |p| p.chars().count())
                            };
                            Position::of(&index, chars(start), chars(end).max(chars(start) + 1))
                        });
                        out.issues.push(Finding::own(
                            "compile",
                            format!(
                                "ERROR: <input>:{}:{}: {}",
                                location.line,
                                location.column,
                                issue.message()
                            ),
                            position,
                        ));
                    }
                }
                return;
            }
        };
        let authorizer = match authorizer(input) {
            Ok(a) => a,
            Err(e) => {
                out.result = "empty";
                out.authorizer_error = Some(e);
                return;
            }
        };
        let activation = match &request {
            Some(r) => Activation::from_request(r),
            None => Activation::empty(),
        }
        .with_authorizer(Arc::new(authorizer));
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
