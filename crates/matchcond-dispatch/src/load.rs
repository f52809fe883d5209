//! Strict, positioned loading of webhook configurations from YAML or JSON text.
//!
//! Every document of the text is read and reported on: webhook configurations (also inside
//! `List`, `ValidatingWebhookConfigurationList` and `MutatingWebhookConfigurationList`) are
//! checked field by field as the apiserver's strict field validation checks them — unknown
//! fields, fields given twice and values of the wrong type are errors with their field path
//! and their line and column —, documents of other kinds are skipped with a note, and a text
//! without any webhook configuration is an error. Nothing stops at the first problem: a
//! syntax error ends the reading of the text, but the documents before it are loaded.
//!
//! ```
//! use matchcond_dispatch::load::{load_text, DiagnosticKind};
//!
//! let loaded = load_text("
//! apiVersion: admissionregistration.k8s.io/v1
//! kind: ValidatingWebhookConfiguration
//! metadata: {name: policy}
//! webhooks:
//! - name: pods.policy.example.com
//!   matchCondition:
//!   - {name: a, expression: 'true'}
//! ");
//! let d = &loaded.diagnostics()[0];
//! assert_eq!(d.kind, DiagnosticKind::UnknownField);
//! assert_eq!(d.to_string(), "7:3: webhooks[0].matchCondition: unknown field (did you mean matchConditions?)");
//! // The configuration is still loaded (without the unknown field).
//! assert_eq!(loaded.configurations().count(), 1);
//! ```

use std::fmt;

use serde_json::Value as Json;

use crate::error::LoadError;
use crate::schema::{self, FieldProblem, Problem, Shape};
use crate::types::{Configuration, HookKind, API_VERSION};
use crate::yaml::{read_documents, Node, Position, Value};

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Information (a skipped document).
    Note,
    /// Accepted, but probably not what was meant.
    Warning,
    /// The apiserver (or kubectl) refuses it.
    Error,
}

impl Severity {
    /// `error`, `warning` or `note`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a loading diagnostic is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum DiagnosticKind {
    /// The text is not YAML or JSON (error).
    Syntax,
    /// The text holds no webhook configuration (error).
    NoConfiguration,
    /// A document is not an object, or has no `kind` (error).
    NotAnObject,
    /// A document of another kind, skipped (note).
    SkippedKind,
    /// A webhook configuration of another `apiVersion` than `admissionregistration.k8s.io/v1` (error).
    UnsupportedApiVersion,
    /// A webhook configuration without `apiVersion` (warning: kubectl refuses it).
    MissingApiVersion,
    /// A field the type does not have (error).
    UnknownField,
    /// A field given twice (error).
    DuplicateField,
    /// A value of the wrong type (error).
    InvalidType,
    /// A value of the right type that cannot be decoded (error).
    InvalidValue,
    /// A plain `yes`, `no`, `on`, `off`, `y` or `n` where a string is expected: kubectl's
    /// YAML 1.1 decoder sends a boolean, which the apiserver refuses (warning).
    Yaml11Boolean,
}

impl DiagnosticKind {
    /// Every kind, in a stable order.
    pub const ALL: [DiagnosticKind; 11] = [
        DiagnosticKind::Syntax,
        DiagnosticKind::NoConfiguration,
        DiagnosticKind::NotAnObject,
        DiagnosticKind::SkippedKind,
        DiagnosticKind::UnsupportedApiVersion,
        DiagnosticKind::MissingApiVersion,
        DiagnosticKind::UnknownField,
        DiagnosticKind::DuplicateField,
        DiagnosticKind::InvalidType,
        DiagnosticKind::InvalidValue,
        DiagnosticKind::Yaml11Boolean,
    ];

    /// The diagnostic's code: `syntax`, `unknownField` …
    pub fn code(self) -> &'static str {
        match self {
            DiagnosticKind::Syntax => "syntax",
            DiagnosticKind::NoConfiguration => "noConfiguration",
            DiagnosticKind::NotAnObject => "notAnObject",
            DiagnosticKind::SkippedKind => "skippedKind",
            DiagnosticKind::UnsupportedApiVersion => "unsupportedApiVersion",
            DiagnosticKind::MissingApiVersion => "missingApiVersion",
            DiagnosticKind::UnknownField => "unknownField",
            DiagnosticKind::DuplicateField => "duplicateField",
            DiagnosticKind::InvalidType => "invalidType",
            DiagnosticKind::InvalidValue => "invalidValue",
            DiagnosticKind::Yaml11Boolean => "yaml11Boolean",
        }
    }

    /// The severity diagnostics of this kind have.
    pub fn severity(self) -> Severity {
        match self {
            DiagnosticKind::SkippedKind => Severity::Note,
            DiagnosticKind::MissingApiVersion | DiagnosticKind::Yaml11Boolean => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

/// One problem (or note) found while loading.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Diagnostic {
    /// What it is about.
    pub kind: DiagnosticKind,
    /// The field path, relative to the object (`webhooks[0].matchCondition`); empty for
    /// the document or the text.
    pub path: String,
    /// Where in the text.
    pub position: Position,
    /// What is wrong (without the path and position).
    pub message: String,
}

impl Diagnostic {
    fn new(kind: DiagnosticKind, path: &str, position: Position, message: String) -> Diagnostic {
        Diagnostic {
            kind,
            path: path.to_owned(),
            position,
            message,
        }
    }

    /// The diagnostic's severity.
    pub fn severity(&self) -> Severity {
        self.kind.severity()
    }
}

/// `line:column: path: message` (`line:column: message` without a path).
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}: {}", self.position, self.message)
        } else {
            write!(f, "{}: {}: {}", self.position, self.path, self.message)
        }
    }
}

/// A webhook configuration object found in a document.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct LoadedConfiguration {
    /// Validating or mutating.
    pub kind: HookKind,
    /// `metadata.name` (empty when absent).
    pub name: String,
    /// The index in the document's `items` when the document is a list.
    pub item: Option<usize>,
    /// The object's node (positions of every field: see [`Node::at_path`]).
    pub node: Node,
    /// The configuration; `None` when a value of the wrong type kept it from decoding.
    pub configuration: Option<Configuration>,
    /// Problems of the object (paths relative to it).
    pub diagnostics: Vec<Diagnostic>,
}

impl LoadedConfiguration {
    /// The position of a field of the object (or of the object itself for `""`).
    pub fn position_of(&self, path: &str) -> Option<Position> {
        self.node.at_path(path).map(|n| n.start)
    }
}

/// One document of a text.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct LoadedDocument {
    /// The document's position in the text (0-based, counting empty documents).
    pub index: usize,
    /// Where the document starts.
    pub start: Position,
    /// Its `kind` (`None` for an empty document or one without a kind).
    pub kind: Option<String>,
    /// The webhook configurations it holds (several for a list).
    pub configurations: Vec<LoadedConfiguration>,
    /// Problems and notes of the document itself.
    pub diagnostics: Vec<Diagnostic>,
}

/// Everything loaded from one text.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct LoadedText {
    /// The documents read, in order.
    pub documents: Vec<LoadedDocument>,
    /// Problems of the text as a whole (a syntax error, no configuration at all).
    pub text_diagnostics: Vec<Diagnostic>,
}

impl LoadedText {
    /// Every diagnostic: the documents' and their configurations' in order, then the
    /// text's.
    pub fn diagnostics(&self) -> Vec<&Diagnostic> {
        let mut out = Vec::new();
        for d in &self.documents {
            out.extend(&d.diagnostics);
            for c in &d.configurations {
                out.extend(&c.diagnostics);
            }
        }
        out.extend(&self.text_diagnostics);
        out
    }

    /// Every configuration that decoded.
    pub fn configurations(&self) -> impl Iterator<Item = &Configuration> {
        self.documents
            .iter()
            .flat_map(|d| &d.configurations)
            .filter_map(|c| c.configuration.as_ref())
    }

    /// True when some diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics()
            .iter()
            .any(|d| d.severity() == Severity::Error)
    }
}

fn kind_of(node: &Node) -> Option<&str> {
    node.get("kind").and_then(Node::as_str)
}

fn hook_kind(kind: &str) -> Option<HookKind> {
    match kind {
        "ValidatingWebhookConfiguration" => Some(HookKind::Validating),
        "MutatingWebhookConfiguration" => Some(HookKind::Mutating),
        _ => None,
    }
}

/// Loads one webhook configuration object (`kind` known).
fn load_configuration(node: &Node, kind: HookKind, item: Option<usize>) -> LoadedConfiguration {
    let mut diagnostics = Vec::new();
    let api_version = node.get("apiVersion");
    match api_version.map(|v| (v, v.as_str())) {
        None if item.is_none() => diagnostics.push(Diagnostic::new(
            DiagnosticKind::MissingApiVersion,
            "apiVersion",
            node.start,
            format!("not set (kubectl refuses the object; use {API_VERSION})"),
        )),
        None => {}
        Some((_, Some(API_VERSION))) => {}
        Some((v, Some(other))) => diagnostics.push(Diagnostic::new(
            DiagnosticKind::UnsupportedApiVersion,
            "apiVersion",
            v.start,
            format!(
                "unsupported apiVersion {other:?} (only {API_VERSION} is served since Kubernetes 1.22)"
            ),
        )),
        Some((_, None)) => {}
    }
    let shape = match kind {
        HookKind::Validating => Shape::Object(&schema::VALIDATING_CONFIGURATION),
        HookKind::Mutating => Shape::Object(&schema::MUTATING_CONFIGURATION),
    };
    let mut problems = Vec::new();
    let json = schema::check(node, shape, "", &mut problems);
    // A mistyped or undecodable value keeps the configuration from decoding.
    let decodable = !problems
        .iter()
        .any(|p| matches!(p.problem, Problem::Type { .. } | Problem::Value { .. }));
    diagnostics.extend(problems.into_iter().map(field_diagnostic));
    let name = node
        .at_path("metadata.name")
        .and_then(Node::as_str)
        .unwrap_or("")
        .to_owned();
    let unsupported = diagnostics
        .iter()
        .any(|d| d.kind == DiagnosticKind::UnsupportedApiVersion);
    let configuration = if decodable && !unsupported {
        match Configuration::from_json_as(&without_api_version(json), kind) {
            Ok(c) => Some(c),
            Err(e) => {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::InvalidValue,
                    "",
                    node.start,
                    e.to_string(),
                ));
                None
            }
        }
    } else {
        None
    };
    LoadedConfiguration {
        kind,
        name,
        item,
        node: node.clone(),
        configuration,
        diagnostics,
    }
}

/// The diagnostic of a problem the schema check found.
fn field_diagnostic(p: FieldProblem) -> Diagnostic {
    let found = &p.found;
    let (kind, message) = match p.problem {
        Problem::Unknown { suggestion } => (
            DiagnosticKind::UnknownField,
            match suggestion {
                Some(s) => format!("unknown field (did you mean {s}?)"),
                None => "unknown field".to_owned(),
            },
        ),
        Problem::Duplicate => (DiagnosticKind::DuplicateField, "duplicate field".to_owned()),
        Problem::Type { expected } => (
            DiagnosticKind::InvalidType,
            format!("invalid type: {found}, expected {expected}"),
        ),
        Problem::Value { detail } => (
            DiagnosticKind::InvalidValue,
            format!("invalid value: {detail}"),
        ),
        Problem::Yaml11Boolean(b) => (
            DiagnosticKind::Yaml11Boolean,
            format!("{found} is the boolean {b} in YAML 1.1: kubectl apply sends {b}, which the apiserver refuses where a string is expected (quote it)"),
        ),
    };
    Diagnostic::new(kind, &p.path, p.position, message)
}

fn without_api_version(mut json: Json) -> Json {
    if let Json::Object(m) = &mut json {
        m.remove("apiVersion");
    }
    json
}

/// Loads the items of a list document.
fn load_list(node: &Node, item_kind: Option<HookKind>, doc: &mut LoadedDocument) {
    let mut problems = Vec::new();
    if let Value::Map(entries) = &node.value {
        for (k, v) in entries {
            match k.key_text().as_deref() {
                Some("apiVersion" | "kind" | "items") => {}
                Some("metadata") => {
                    schema::check(
                        v,
                        Shape::Object(&schema::LIST_META),
                        "metadata",
                        &mut problems,
                    );
                }
                other => doc.diagnostics.push(Diagnostic::new(
                    DiagnosticKind::UnknownField,
                    other.unwrap_or(""),
                    k.start,
                    "unknown field".to_owned(),
                )),
            }
        }
    }
    doc.diagnostics
        .extend(problems.into_iter().map(field_diagnostic));
    let items = match node.get("items") {
        None => return,
        Some(n) => match &n.value {
            Value::Seq(items) => items,
            Value::Null => return,
            _ => {
                doc.diagnostics.push(Diagnostic::new(
                    DiagnosticKind::InvalidType,
                    "items",
                    n.start,
                    format!("invalid type: {}, expected a list", n.describe()),
                ));
                return;
            }
        },
    };
    for (i, item) in items.iter().enumerate() {
        let path = format!("items[{i}]");
        if !matches!(item.value, Value::Map(_)) {
            doc.diagnostics.push(Diagnostic::new(
                DiagnosticKind::NotAnObject,
                &path,
                item.start,
                format!("not an object: {}", item.describe()),
            ));
            continue;
        }
        match (kind_of(item), item_kind) {
            (None, Some(k)) => doc
                .configurations
                .push(load_configuration(item, k, Some(i))),
            (Some(kind), _) => match hook_kind(kind) {
                Some(k) => doc
                    .configurations
                    .push(load_configuration(item, k, Some(i))),
                None => doc.diagnostics.push(Diagnostic::new(
                    DiagnosticKind::SkippedKind,
                    &path,
                    item.start,
                    format!("skipped: {kind} is not a webhook configuration"),
                )),
            },
            (None, None) => doc.diagnostics.push(Diagnostic::new(
                DiagnosticKind::NotAnObject,
                &path,
                item.start,
                "the object has no kind".to_owned(),
            )),
        }
    }
}

/// The message of a text without any webhook configuration.
pub const NO_CONFIGURATION: &str =
    "no ValidatingWebhookConfiguration or MutatingWebhookConfiguration found";

/// Loads every document of a text (see the module documentation).
pub fn load_text(text: &str) -> LoadedText {
    let read = read_documents(text);
    let mut documents = Vec::new();
    for d in read.documents {
        let mut doc = LoadedDocument {
            index: d.index,
            start: d.start,
            kind: None,
            configurations: Vec::new(),
            diagnostics: Vec::new(),
        };
        if let Some(root) = &d.root {
            if !matches!(root.value, Value::Map(_)) {
                doc.diagnostics.push(Diagnostic::new(
                    DiagnosticKind::NotAnObject,
                    "",
                    root.start,
                    format!("not an object: {}", root.describe()),
                ));
            } else {
                let kind = kind_of(root).map(str::to_owned);
                match kind.as_deref() {
                    None => doc.diagnostics.push(Diagnostic::new(
                        DiagnosticKind::NotAnObject,
                        "",
                        root.start,
                        "the object has no kind".to_owned(),
                    )),
                    Some("List") => load_list(root, None, &mut doc),
                    Some("ValidatingWebhookConfigurationList") => {
                        load_list(root, Some(HookKind::Validating), &mut doc)
                    }
                    Some("MutatingWebhookConfigurationList") => {
                        load_list(root, Some(HookKind::Mutating), &mut doc)
                    }
                    Some(k) => match hook_kind(k) {
                        Some(h) => doc.configurations.push(load_configuration(root, h, None)),
                        None => doc.diagnostics.push(Diagnostic::new(
                            DiagnosticKind::SkippedKind,
                            "",
                            root.start,
                            format!("skipped: {k} is not a webhook configuration"),
                        )),
                    },
                }
                doc.kind = kind;
            }
        }
        documents.push(doc);
    }
    let mut text_diagnostics = Vec::new();
    if let Some(e) = read.error {
        text_diagnostics.push(Diagnostic::new(
            DiagnosticKind::Syntax,
            "",
            e.position,
            format!("syntax error: {}", e.message),
        ));
    } else if documents.iter().all(|d| d.configurations.is_empty()) {
        let end = Position::new(
            u32::try_from(text.lines().count().max(1)).unwrap_or(u32::MAX),
            1,
        );
        let at = documents.first().map_or(end, |d| d.start);
        text_diagnostics.push(Diagnostic::new(
            DiagnosticKind::NoConfiguration,
            "",
            at,
            NO_CONFIGURATION.to_owned(),
        ));
    }
    LoadedText {
        documents,
        text_diagnostics,
    }
}

/// Reads every webhook configuration of a text holding JSON, or YAML with any number of
/// `---`-separated documents, strictly (see [`crate::load`]): `List`,
/// `ValidatingWebhookConfigurationList` and `MutatingWebhookConfigurationList` objects
/// contribute their items, documents of other kinds are skipped, and the first error —
/// a syntax error, an unknown, duplicate or mistyped field, an unsupported `apiVersion`,
/// no webhook configuration at all — is returned with its line and column. Use
/// [`load_text`] for every problem with its position.
pub fn load_documents(text: &str) -> Result<Vec<Configuration>, LoadError> {
    let loaded = load_text(text);
    for doc in &loaded.documents {
        let errors = doc
            .diagnostics
            .iter()
            .chain(doc.configurations.iter().flat_map(|c| &c.diagnostics));
        for d in errors {
            if d.severity() == Severity::Error {
                return Err(LoadError::Document {
                    index: doc.index,
                    source: Box::new(LoadError::Decode(d.to_string())),
                });
            }
        }
    }
    if let Some(d) = loaded.text_diagnostics.first() {
        return Err(match d.kind {
            DiagnosticKind::NoConfiguration => LoadError::NoConfiguration,
            _ => LoadError::Syntax(d.to_string()),
        });
    }
    Ok(loaded.configurations().cloned().collect())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

    fn messages(text: &str) -> Vec<String> {
        load_text(text)
            .diagnostics()
            .iter()
            .map(|d| format!("{} {}", d.kind.code(), d))
            .collect()
    }

    const HEAD: &str = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: x}\n";

    #[test]
    fn loads_yaml_documents_and_lists() {
        let text = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: b-config}
webhooks:
- name: a.example.com
  clientConfig: {url: "https://example.com"}
  admissionReviewVersions: [v1]
- name: b.example.com
  sideEffects: None
  clientConfig: {service: {name: s, namespace: n}}
  admissionReviewVersions: [v1]
  timeoutSeconds: null
---
---
apiVersion: v1
kind: List
items:
- apiVersion: admissionregistration.k8s.io/v1
  kind: MutatingWebhookConfiguration
  metadata: {name: a-config}
  webhooks:
  - name: m.example.com
    sideEffects: None
    reinvocationPolicy: IfNeeded
    clientConfig: {url: "https://m.example.com"}
    admissionReviewVersions: [v1]
---
kind: ValidatingWebhookConfigurationList
apiVersion: admissionregistration.k8s.io/v1
items:
- metadata: {name: c-config}
"#;
        let configs = load_documents(text).unwrap();
        assert_eq!(configs.len(), 3);
        assert_eq!(configs[0].name(), "b-config");
        assert_eq!(configs[0].hook_kind(), HookKind::Validating);
        assert_eq!(configs[0].webhooks[0].side_effects, None);
        assert_eq!(configs[0].webhooks[1].side_effects.as_deref(), Some("None"));
        assert_eq!(configs[0].webhooks[1].timeout_seconds, None);
        assert_eq!(configs[1].hook_kind(), HookKind::Mutating);
        assert_eq!(
            configs[1].webhooks[0].reinvocation_policy.as_deref(),
            Some("IfNeeded")
        );
        assert_eq!(configs[2].name(), "c-config");
        assert!(configs[2].webhooks.is_empty());
    }

    #[test]
    fn loads_json_and_rejects_other_kinds() {
        let c = load_documents(
            r#"{"kind": "MutatingWebhookConfiguration", "metadata": {"name": "x"}}"#,
        )
        .unwrap();
        assert_eq!(c[0].hook_kind(), HookKind::Mutating);
        let e = load_documents("kind: Pod\napiVersion: v1\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "no ValidatingWebhookConfiguration or MutatingWebhookConfiguration found"
        );
        let e = load_documents(
            "kind: ValidatingWebhookConfiguration\napiVersion: admissionregistration.k8s.io/v1beta1\n",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "document 0: 2:13: apiVersion: unsupported apiVersion \"admissionregistration.k8s.io/v1beta1\" (only admissionregistration.k8s.io/v1 is served since Kubernetes 1.22)"
        );
        let e = load_documents(
            "kind: ValidatingWebhookConfiguration\nwebhooks: [{timeoutSeconds: abc}]\n",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "document 0: 2:29: webhooks[0].timeoutSeconds: invalid type: string \"abc\", expected an integer (int32)"
        );
        assert!(matches!(
            load_documents("a: [").unwrap_err(),
            LoadError::Syntax(_)
        ));
    }

    #[test]
    fn defaults() {
        let mut c = load_documents(
            r#"
kind: MutatingWebhookConfiguration
metadata: {name: x}
webhooks:
- name: a.b.c
  clientConfig: {service: {name: s, namespace: n}}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
"#,
        )
        .unwrap()
        .remove(0);
        c.apply_defaults();
        let h = &c.webhooks[0];
        assert_eq!(h.failure_policy.as_deref(), Some("Fail"));
        assert_eq!(h.match_policy.as_deref(), Some("Equivalent"));
        assert_eq!(h.namespace_selector, Some(LabelSelector::default()));
        assert_eq!(h.object_selector, Some(LabelSelector::default()));
        assert_eq!(h.timeout_seconds, Some(10));
        assert_eq!(h.reinvocation_policy.as_deref(), Some("Never"));
        assert_eq!(h.rules[0].scope.as_deref(), Some("*"));
        assert_eq!(h.client_config.service.as_ref().unwrap().port, Some(443));
        assert_eq!(h.side_effects, None);
        let round = Configuration::from_mutating(&c.to_mutating());
        assert_eq!(round.webhooks[0].side_effects.as_deref(), Some(""));
    }

    #[test]
    fn unknown_fields_have_paths_positions_and_suggestions() {
        let text = format!(
            "{HEAD}webhooks:\n- name: a.b.c\n  failurepolicy: Fail\n  matchCondition: []\n  clientConfig: {{url: 'https://x', urls: []}}\n"
        );
        assert_eq!(
            messages(&text),
            [
                "unknownField 6:3: webhooks[0].failurepolicy: unknown field (did you mean failurePolicy?)",
                "unknownField 7:3: webhooks[0].matchCondition: unknown field (did you mean matchConditions?)",
                "unknownField 8:36: webhooks[0].clientConfig.urls: unknown field (did you mean url?)",
            ]
        );
        // Unknown fields do not keep the configuration from loading.
        let loaded = load_text(&text);
        let c = loaded.configurations().next().unwrap();
        assert_eq!(c.webhooks[0].name, "a.b.c");
        assert_eq!(c.webhooks[0].failure_policy, None);
    }

    #[test]
    fn mistyped_values_name_the_field_and_line() {
        let text = format!(
            "{HEAD}webhooks:\n- name: a.b.c\n  timeoutSeconds: ten\n  rules: [{{operations: CREATE}}]\n  clientConfig: {{service: {{port: 99999999999}}, caBundle: '%%%'}}\n  matchConditions:\n  - {{name: 1, expression: true}}\n"
        );
        assert_eq!(
            messages(&text),
            [
                "invalidType 6:19: webhooks[0].timeoutSeconds: invalid type: string \"ten\", expected an integer (int32)",
                "invalidType 7:24: webhooks[0].rules[0].operations: invalid type: string \"CREATE\", expected a list of strings",
                "invalidValue 8:34: webhooks[0].clientConfig.service.port: invalid value: integer 99999999999 is not an int32",
                "invalidValue 8:58: webhooks[0].clientConfig.caBundle: invalid value: illegal base64 data at input byte 0",
                "invalidType 10:12: webhooks[0].matchConditions[0].name: invalid type: integer 1, expected a string",
                "invalidType 10:27: webhooks[0].matchConditions[0].expression: invalid type: boolean true, expected a string",
            ]
        );
        let loaded = load_text(&text);
        assert!(loaded.documents[0].configurations[0]
            .configuration
            .is_none());
        assert_eq!(loaded.configurations().count(), 0);
    }

    /// `caBundle` is read as Go's JSON decoder reads a `[]byte`: newlines skipped, the
    /// unused bits of the last digit ignored, and a bad one blamed where Go blames it.
    #[test]
    fn ca_bundles_are_base64_as_go_reads_it() {
        let bundle = |b: &str| {
            format!("{HEAD}webhooks:\n- name: a.b.c\n  sideEffects: None\n  admissionReviewVersions: [v1]\n  clientConfig: {{url: 'https://x.example.com', caBundle: {b}}}\n")
        };
        assert!(messages(&bundle("'YR=='")).is_empty());
        assert!(messages(&bundle("\"YWJj\\nZA==\\n\"")).is_empty());
        let loaded = load_text(&bundle("'YR=='"));
        let configuration = loaded.documents[0].configurations[0].configuration.as_ref();
        let hook = &configuration.unwrap().webhooks[0];
        assert_eq!(
            hook.client_config
                .ca_bundle
                .as_ref()
                .map(|b| b.0.as_slice()),
            Some(&b"a"[..])
        );
        assert_eq!(
            messages(&bundle("'AA='")),
            ["invalidValue 8:58: webhooks[0].clientConfig.caBundle: invalid value: illegal base64 data at input byte 3"]
        );
    }

    /// A plain `yes`/`no`/`on`/`off`/`y`/`n` where a string is expected is a string here
    /// (YAML 1.2) and a boolean for kubectl (YAML 1.1): a warning; quoted, block or JSON
    /// strings and other words are not.
    #[test]
    fn yaml_1_1_booleans_in_strings_are_warned_about() {
        let text = format!(
            "{HEAD}webhooks:\n- name: a.b.c\n  sideEffects: None\n  admissionReviewVersions: [v1]\n  clientConfig: {{url: 'https://x.example.com'}}\n  namespaceSelector:\n    matchLabels: {{a: yes, b: 'no', c: \"on\", d: Off, e: n, f: yess, g: true}}\n    matchExpressions: [{{key: k, operator: In, values: [Y, |-\n        N\n      ]}}]\n"
        );
        let m = |key: &str, col: u32, shown: &str, b: bool| {
            format!("yaml11Boolean 10:{col}: webhooks[0].namespaceSelector.{key}: string \"{shown}\" is the boolean {b} in YAML 1.1: kubectl apply sends {b}, which the apiserver refuses where a string is expected (quote it)")
        };
        assert_eq!(
            messages(&text),
            [
                m("matchLabels[a]", 22, "yes", true),
                m("matchLabels[d]", 48, "Off", false),
                m("matchLabels[e]", 56, "n", false),
                "invalidType 10:71: webhooks[0].namespaceSelector.matchLabels[g]: invalid type: boolean true, expected a string".to_owned(),
                "yaml11Boolean 11:56: webhooks[0].namespaceSelector.matchExpressions[0].values[0]: string \"Y\" is the boolean true in YAML 1.1: kubectl apply sends true, which the apiserver refuses where a string is expected (quote it)".to_owned(),
            ]
        );
        assert_eq!(DiagnosticKind::Yaml11Boolean.severity(), Severity::Warning);
        // A warning does not keep the configuration from decoding.
        let loaded = load_text(&text.replace(", g: true", ""));
        assert!(loaded.documents[0].configurations[0]
            .configuration
            .is_some());
    }

    /// A list's own metadata is checked as an object's: each problem with its own message.
    #[test]
    fn a_lists_metadata_problems_have_their_own_messages() {
        let text = "apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: '1'\n  resourceVersion: '2'\n  colour: red\nitems: []\n";
        assert_eq!(
            messages(text),
            [
                "duplicateField 5:3: metadata.resourceVersion: duplicate field",
                "unknownField 6:3: metadata.colour: unknown field",
                "noConfiguration 1:1: no ValidatingWebhookConfiguration or MutatingWebhookConfiguration found",
            ]
        );
    }

    #[test]
    fn duplicates_labels_and_times() {
        let text = "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: x\n  name: z\n  labels: {enabled: true, a: b, a: c}\n  creationTimestamp: null\n  deletionTimestamp: soon\n";
        assert_eq!(
            messages(text),
            [
                "duplicateField 5:3: metadata.name: duplicate field",
                "invalidType 6:21: metadata.labels[enabled]: invalid type: boolean true, expected a string",
                "duplicateField 6:33: metadata.labels[a]: duplicate field",
                "invalidValue 8:22: metadata.deletionTimestamp: invalid value: \"soon\" is not an RFC 3339 time",
            ]
        );
    }

    #[test]
    fn other_kinds_are_skipped_with_a_note() {
        let text = format!(
            "# Source: chart/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\ndata: {{a: b}}\n---\n{HEAD}webhooks: []\n---\napiVersion: v1\nkind: List\nitems:\n- {{apiVersion: v1, kind: Service}}\n- {{apiVersion: admissionregistration.k8s.io/v1, kind: MutatingWebhookConfiguration, metadata: {{name: m}}}}\n"
        );
        let loaded = load_text(&text);
        assert_eq!(
            messages(&text),
            [
                "skippedKind 2:1: skipped: ConfigMap is not a webhook configuration",
                "skippedKind 14:3: items[0]: skipped: Service is not a webhook configuration",
            ]
        );
        assert_eq!(loaded.documents.len(), 3);
        assert_eq!(loaded.documents[0].kind.as_deref(), Some("ConfigMap"));
        assert_eq!(loaded.configurations().count(), 2);
        assert_eq!(loaded.documents[2].configurations[0].item, Some(1));
        assert_eq!(loaded.documents[2].configurations[0].name, "m");
        assert!(!loaded.has_errors());
    }

    #[test]
    fn empty_and_configuration_free_texts_are_errors() {
        assert_eq!(
            messages(""),
            ["noConfiguration 1:1: no ValidatingWebhookConfiguration or MutatingWebhookConfiguration found"]
        );
        assert_eq!(
            messages("# nothing\n---\n"),
            ["noConfiguration 2:1: no ValidatingWebhookConfiguration or MutatingWebhookConfiguration found"]
        );
        assert_eq!(
            messages("apiVersion: v1\nkind: Secret\n"),
            [
                "skippedKind 1:1: skipped: Secret is not a webhook configuration",
                "noConfiguration 1:1: no ValidatingWebhookConfiguration or MutatingWebhookConfiguration found"
            ]
        );
        assert_eq!(
            messages("- a\n"),
            [
                "notAnObject 1:1: not an object: a list",
                "noConfiguration 1:1: no ValidatingWebhookConfiguration or MutatingWebhookConfiguration found"
            ]
        );
    }

    #[test]
    fn syntax_errors_keep_the_documents_before() {
        let text = format!("{HEAD}webhooks: []\n---\nkind: [\n");
        let loaded = load_text(&text);
        assert_eq!(loaded.configurations().count(), 1);
        assert_eq!(
            messages(&text),
            ["syntax 7:1: syntax error: while parsing a node, did not find expected node content"]
        );
    }

    #[test]
    fn api_versions() {
        assert_eq!(
            messages("kind: ValidatingWebhookConfiguration\nmetadata: {name: x}\n"),
            ["missingApiVersion 1:1: apiVersion: not set (kubectl refuses the object; use admissionregistration.k8s.io/v1)"]
        );
        let loaded = load_text(
            "apiVersion: admissionregistration.k8s.io/v1beta1\nkind: ValidatingWebhookConfiguration\n",
        );
        assert_eq!(
            loaded.diagnostics()[0].to_string(),
            "1:13: apiVersion: unsupported apiVersion \"admissionregistration.k8s.io/v1beta1\" (only admissionregistration.k8s.io/v1 is served since Kubernetes 1.22)"
        );
        assert_eq!(loaded.configurations().count(), 0);
    }

    #[test]
    fn positions_of_fields() {
        let loaded = load_text(&format!(
            "{HEAD}webhooks:\n- name: a.b.c\n  matchConditions:\n  - name: n\n    expression: |\n      object != null\n"
        ));
        let c = &loaded.documents[0].configurations[0];
        assert_eq!(
            c.position_of("webhooks[0].matchConditions[0].expression"),
            Some(Position::new(9, 7))
        );
        assert_eq!(c.position_of("webhooks[0].name"), Some(Position::new(5, 9)));
        assert_eq!(c.position_of("webhooks[1]"), None);
    }
}
