//! Test files: configurations and cases — a request given by manifests and options or by
//! a review — with the outcome expected of each webhook. Read strictly with positions:
//! unknown, duplicate and mistyped fields are errors with their path and `line:column`,
//! and every error of a file is reported.
//!
//! ```yaml
//! apiVersion: matchcond/v1alpha1
//! kind: Test
//! configurations: [webhooks.yaml]      # paths relative to the test file
//! kubernetesVersion: "1.34"            # optional (default: the newest modelled)
//! crds: [crds.yaml]                    # optional CustomResourceDefinition files
//! namespaces:                          # optional: the namespaces that exist
//! - {name: shop, labels: {env: prod}}  #   short form, a Namespace manifest, or a file
//! authorizer: {default: allow}         # optional: a table inline or a file
//! cases:
//! - name: alice creates a pod in shop
//!   object: pod.yaml                   # a file or an inline manifest
//!   user: alice
//!   groups: [dev]
//!   expect:
//!     pods.example.com: called
//!     team.example.com: {skipped: {condition: payments-team}}
//!     prod.example.com: {skipped: namespaceSelector}
//!     strict.example.com: {rejected: "pods \"web-0\" is forbidden: …"}
//! ```

use std::collections::BTreeMap;

use crate::request::catalog::Operation;
use crate::request::manifest::RequestOptions;
use crate::request::ManifestError;
use crate::yaml::{read_documents, read_documents_as, Node, Position, Schema, Value};
use matchcond_compiler::KubeVersion;
use matchcond_matcher::Skip;
use matchcond_runtime::authz::UserInfo;

/// The `apiVersion` of test files.
pub const TEST_API_VERSION: &str = "matchcond/v1alpha1";
/// The `kind` of test files.
pub const TEST_KIND: &str = "Test";

/// The fields of a test file.
pub const FILE_FIELDS: &[&str] = &[
    "apiVersion",
    "kind",
    "name",
    "configurations",
    "kubernetesVersion",
    "crds",
    "namespaces",
    "authorizer",
    "cases",
];

/// The fields of a case.
pub const CASE_FIELDS: &[&str] = &[
    "name",
    "object",
    "oldObject",
    "review",
    "operation",
    "subresource",
    "namespace",
    "user",
    "groups",
    "uid",
    "extra",
    "dryRun",
    "namespaces",
    "authorizer",
    "expect",
];

/// The skip checks an expectation may name.
pub const SKIP_CHECKS: &[&str] = &[
    "exemptKind",
    "namespaceSelector",
    "objectSelector",
    "rules",
    "matchConditions",
    "sideEffectsUnsetIgnored",
];

/// A file, or a document written inline.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// A path relative to the test file.
    File(String),
    /// An inline document (positions are the test file's).
    Inline(Node),
}

/// A namespace given in a test file.
#[derive(Clone, Debug, PartialEq)]
pub enum NamespaceSource {
    /// A file of Namespace manifests.
    File(String),
    /// `{name, labels}`.
    Short {
        /// The name.
        name: String,
        /// The labels.
        labels: BTreeMap<String, String>,
    },
    /// A Namespace manifest.
    Manifest(Node),
}

/// What a webhook is expected to do.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Expectation {
    /// Called.
    Called,
    /// Skipped, by any check (`None`) or by this one.
    Skipped(Option<SkipCheck>),
    /// The request is rejected, with this message when given.
    Rejected(Option<String>),
}

/// The check an expected skip names.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkipCheck {
    /// A check before the conditions, or the conditions themselves (a false one, or
    /// their failure under `failurePolicy: Ignore`: `matchConditions`).
    Reason(SkipStage),
    /// This condition was false.
    Condition(String),
}

/// One expectation of a case.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Expect {
    /// The webhook: its name, or `<configuration>/<webhook>/<n>`.
    pub webhook: String,
    /// What it is expected to do.
    pub expectation: Expectation,
    /// Where the expectation is written.
    pub position: Position,
}

/// One case.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct TestCase {
    /// Its name.
    pub name: String,
    /// Where it starts.
    pub position: Position,
    /// The request's object.
    pub object: Option<Source>,
    /// The stored object.
    pub old_object: Option<Source>,
    /// A whole AdmissionReview instead of manifests.
    pub review: Option<Source>,
    /// The request's options (operation, subresource, namespace, user, dry run).
    pub options: RequestOptions,
    /// The namespaces of this case (instead of the file's).
    pub namespaces: Option<Vec<NamespaceSource>>,
    /// The authorizer of this case (instead of the file's).
    pub authorizer: Option<Source>,
    /// The expectations, in order.
    pub expect: Vec<Expect>,
    /// What kubectl reads otherwise than the objects written in the case seem to say: each
    /// plain `yes`, `on`, `n`, … it sends as a boolean (as for a manifest file, see
    /// [`Manifests::warnings`](crate::request::Manifests::warnings)).
    pub warnings: Vec<ManifestError>,
}

/// A test file.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct TestFile {
    /// Its name, when given.
    pub name: Option<String>,
    /// Files of configurations.
    pub configurations: Vec<String>,
    /// The Kubernetes version, a modelled one (`None`: the newest modelled).
    pub kubernetes_version: Option<KubeVersion>,
    /// CustomResourceDefinition files.
    pub crds: Vec<String>,
    /// The namespaces that exist (`None`: every namespace exists, with only its name label).
    pub namespaces: Option<Vec<NamespaceSource>>,
    /// The authorizer.
    pub authorizer: Option<Source>,
    /// The cases.
    pub cases: Vec<TestCase>,
}

struct Reader {
    errors: Vec<ManifestError>,
    /// The file read as kubectl reads a manifest ([`Schema::Kubectl`]), for the manifests
    /// written in it.
    applied: Option<Node>,
}

/// The mapping of `root` that starts at character `index`.
fn mapping_at(root: &Node, index: usize) -> Option<&Node> {
    match &root.value {
        Value::Map(_) if root.start_index == index => Some(root),
        Value::Map(entries) => entries.iter().find_map(|(_, v)| mapping_at(v, index)),
        Value::Seq(items) => items.iter().find_map(|v| mapping_at(v, index)),
        _ => None,
    }
}

impl Reader {
    /// A manifest written in the test file, as kubectl would send it.
    fn as_applied(&self, manifest: &Node) -> Node {
        self.applied
            .as_ref()
            .and_then(|root| mapping_at(root, manifest.start_index))
            .unwrap_or(manifest)
            .clone()
    }

    fn err(&mut self, node: &Node, path: &str, message: impl Into<String>) {
        self.errors.push(ManifestError::at(node, path, message));
    }

    /// Unknown and duplicate fields of a mapping.
    fn fields(&mut self, node: &Node, path: &str, allowed: &[&str]) -> bool {
        let Value::Map(entries) = &node.value else {
            self.err(
                node,
                path,
                format!("must be an object, not {}", node.describe()),
            );
            return false;
        };
        let mut seen: Vec<String> = Vec::new();
        for (k, _) in entries {
            let key = k.key_text().unwrap_or_default().into_owned();
            let at = join(path, &key);
            if !allowed.contains(&key.as_str()) {
                self.err(
                    k,
                    &at,
                    format!("unknown field {key:?} (known: {})", allowed.join(", ")),
                );
            } else if seen.contains(&key) {
                self.err(k, &at, format!("duplicate field {key:?}"));
            }
            seen.push(key);
        }
        true
    }

    fn string(&mut self, node: &Node, key: &str, path: &str) -> Option<String> {
        let n = node.get(key)?;
        match &n.value {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            _ => {
                self.err(
                    n,
                    &join(path, key),
                    format!("must be a string, not {}", n.describe()),
                );
                None
            }
        }
    }

    fn strings(&mut self, node: &Node, key: &str, path: &str) -> Vec<String> {
        let Some(n) = node.get(key) else {
            return Vec::new();
        };
        let at = join(path, key);
        match &n.value {
            Value::Seq(items) => items
                .iter()
                .enumerate()
                .filter_map(|(i, item)| match &item.value {
                    Value::String(s) => Some(s.clone()),
                    _ => {
                        self.err(
                            item,
                            &format!("{at}[{i}]"),
                            format!("must be a string, not {}", item.describe()),
                        );
                        None
                    }
                })
                .collect(),
            Value::Null => Vec::new(),
            _ => {
                self.err(
                    n,
                    &at,
                    format!("must be a list of strings, not {}", n.describe()),
                );
                Vec::new()
            }
        }
    }

    fn source(&mut self, node: &Node, key: &str, path: &str) -> Option<Source> {
        let n = node.get(key)?;
        match &n.value {
            Value::String(s) => Some(Source::File(s.clone())),
            // Objects are manifests kubectl would send; a review (what the apiserver sends)
            // and an authorizer table are not.
            Value::Map(_) if matches!(key, "object" | "oldObject") => {
                Some(Source::Inline(self.as_applied(n)))
            }
            Value::Map(_) => Some(Source::Inline(n.clone())),
            Value::Null => None,
            _ => {
                self.err(
                    n,
                    &join(path, key),
                    format!(
                        "must be a file name or an inline object, not {}",
                        n.describe()
                    ),
                );
                None
            }
        }
    }

    fn namespaces(&mut self, node: &Node, path: &str) -> Option<Vec<NamespaceSource>> {
        let n = node.get("namespaces")?;
        let at = join(path, "namespaces");
        let Value::Seq(items) = &n.value else {
            self.err(n, &at, format!("must be a list, not {}", n.describe()));
            return None;
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let at = format!("{at}[{i}]");
            match &item.value {
                Value::String(s) => out.push(NamespaceSource::File(s.clone())),
                Value::Map(_) if item.get("kind").is_some() => {
                    out.push(NamespaceSource::Manifest(self.as_applied(item)));
                }
                Value::Map(_) => {
                    self.fields(item, &at, &["name", "labels"]);
                    let Some(name) = self.string(item, "name", &at).filter(|s| !s.is_empty())
                    else {
                        self.err(item, &join(&at, "name"), "Required value");
                        continue;
                    };
                    match crate::request::string_map(item, "labels", &join(&at, "labels")) {
                        Ok(labels) => out.push(NamespaceSource::Short { name, labels }),
                        Err(e) => self.errors.push(e),
                    }
                }
                _ => self.err(
                    item,
                    &at,
                    format!(
                        "must be a file name, {{name, labels}} or a Namespace manifest, not {}",
                        item.describe()
                    ),
                ),
            }
        }
        Some(out)
    }

    fn expectation(&mut self, node: &Node, path: &str) -> Option<Expectation> {
        let check = |reader: &mut Reader, n: &Node, at: &str| -> Option<Option<SkipCheck>> {
            match &n.value {
                Value::Null => Some(None),
                Value::String(s) => match skip_reason(s) {
                    Some(r) => Some(Some(SkipCheck::Reason(r))),
                    None => {
                        reader.err(
                            n,
                            at,
                            format!(
                                "unknown check {s:?} (known: {}, or {{condition: NAME}})",
                                SKIP_CHECKS.join(", ")
                            ),
                        );
                        None
                    }
                },
                Value::Map(_) => {
                    reader.fields(n, at, &["condition"]);
                    reader
                        .string(n, "condition", at)
                        .map(|c| Some(SkipCheck::Condition(c)))
                        .or_else(|| {
                            reader.err(n, &join(at, "condition"), "Required value");
                            None
                        })
                }
                _ => {
                    reader.err(
                        n,
                        at,
                        format!(
                            "must be a check name or {{condition: NAME}}, not {}",
                            n.describe()
                        ),
                    );
                    None
                }
            }
        };
        match &node.value {
            Value::String(s) => match s.as_str() {
                "called" => Some(Expectation::Called),
                "skipped" => Some(Expectation::Skipped(None)),
                "rejected" => Some(Expectation::Rejected(None)),
                other => {
                    self.err(
                        node,
                        path,
                        format!("unknown outcome {other:?} (expected called, skipped or rejected)"),
                    );
                    None
                }
            },
            Value::Map(entries) => {
                if !self.fields(node, path, &["called", "skipped", "rejected"]) {
                    return None;
                }
                if entries.len() != 1 {
                    self.err(node, path, "give exactly one of called, skipped, rejected");
                    return None;
                }
                let (k, v) = entries.first()?;
                let key = k.key_text().unwrap_or_default().into_owned();
                let at = join(path, &key);
                match key.as_str() {
                    "called" => match v.value {
                        Value::Bool(true) | Value::Null => Some(Expectation::Called),
                        _ => {
                            self.err(v, &at, "must be true");
                            None
                        }
                    },
                    "skipped" => check(self, v, &at).map(Expectation::Skipped),
                    "rejected" => match &v.value {
                        Value::Null | Value::Bool(true) => Some(Expectation::Rejected(None)),
                        Value::String(m) => Some(Expectation::Rejected(Some(m.clone()))),
                        _ => {
                            self.err(v, &at, format!("must be the message, not {}", v.describe()));
                            None
                        }
                    },
                    _ => None,
                }
            }
            _ => {
                self.err(
                    node,
                    path,
                    format!(
                        "must be called, skipped, rejected or an object, not {}",
                        node.describe()
                    ),
                );
                None
            }
        }
    }

    fn case(&mut self, node: &Node, path: &str, index: usize) -> Option<TestCase> {
        if !self.fields(node, path, CASE_FIELDS) {
            return None;
        }
        let before = self.errors.len();
        let name = self
            .string(node, "name", path)
            .unwrap_or_else(|| format!("case {}", index + 1));
        let object = self.source(node, "object", path);
        let old_object = self.source(node, "oldObject", path);
        let review = self.source(node, "review", path);
        if review.is_some() && (object.is_some() || old_object.is_some()) {
            if let Some(n) = node.get("review") {
                self.err(
                    n,
                    &join(path, "review"),
                    "a case gives a review or manifests (object, oldObject), not both",
                );
            }
        }
        if review.is_none() && object.is_none() && old_object.is_none() {
            self.err(
                node,
                path,
                "a case needs a request: object, oldObject or review",
            );
        }
        let mut options = RequestOptions::default();
        if let Some(op) = self.string(node, "operation", path) {
            match Operation::parse(&op) {
                Some(o) => options.operation = Some(o),
                None => {
                    if let Some(n) = node.get("operation") {
                        self.err(n, &join(path, "operation"), format!("unknown operation {op:?} (expected CREATE, UPDATE, DELETE or CONNECT)"));
                    }
                }
            }
        }
        options.subresource = self.string(node, "subresource", path);
        options.namespace = self.string(node, "namespace", path);
        let mut user = UserInfo::new(self.string(node, "user", path).unwrap_or_default());
        user.groups = self.strings(node, "groups", path);
        user.uid = self.string(node, "uid", path).unwrap_or_default();
        if let Some(n) = node.get("extra") {
            let at = join(path, "extra");
            match &n.value {
                Value::Map(entries) => {
                    for (k, v) in entries {
                        let key = k.key_text().unwrap_or_default().into_owned();
                        let values = match &v.value {
                            Value::String(s) => vec![s.clone()],
                            Value::Seq(_) => self.strings(n, &key, &at),
                            _ => {
                                self.err(
                                    v,
                                    &join(&at, &key),
                                    format!(
                                        "must be a string or a list of strings, not {}",
                                        v.describe()
                                    ),
                                );
                                Vec::new()
                            }
                        };
                        user.extra.insert(key, values);
                    }
                }
                Value::Null => {}
                _ => self.err(n, &at, format!("must be an object, not {}", n.describe())),
            }
        }
        options.user = user;
        if let Some(n) = node.get("dryRun") {
            match n.value {
                Value::Bool(b) => options.dry_run = b,
                Value::Null => {}
                _ => self.err(
                    n,
                    &join(path, "dryRun"),
                    format!("must be a boolean, not {}", n.describe()),
                ),
            }
        }
        let namespaces = self.namespaces(node, path);
        let authorizer = self.source(node, "authorizer", path);
        let mut expect = Vec::new();
        match node.get("expect") {
            Some(n) => {
                let at = join(path, "expect");
                match &n.value {
                    Value::Map(entries) if !entries.is_empty() => {
                        let mut seen = Vec::new();
                        for (k, v) in entries {
                            let webhook = k.key_text().unwrap_or_default().into_owned();
                            let p = join(&at, &webhook);
                            if seen.contains(&webhook) {
                                self.err(k, &p, format!("duplicate webhook {webhook:?}"));
                                continue;
                            }
                            seen.push(webhook.clone());
                            if let Some(e) = self.expectation(v, &p) {
                                expect.push(Expect {
                                    webhook,
                                    expectation: e,
                                    position: k.start,
                                });
                            }
                        }
                    }
                    _ => self.err(
                        n,
                        &at,
                        "must map webhook names to outcomes (called, skipped, rejected)",
                    ),
                }
            }
            None => self.err(
                node,
                &join(path, "expect"),
                "Required value: what each webhook is expected to do",
            ),
        }
        let mut warnings = Vec::new();
        for (source, key) in [(&object, "object"), (&old_object, "oldObject")] {
            if let Some(Source::Inline(n)) = source {
                crate::request::yaml11_warnings(n, &join(path, key), &mut warnings);
            }
        }
        (self.errors.len() == before).then_some(TestCase {
            name,
            position: node.start,
            object,
            old_object,
            review,
            options,
            namespaces,
            authorizer,
            expect,
            warnings,
        })
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// The check of the dispatcher that skipped a webhook, as a test file names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SkipStage {
    /// The request is for an admission configuration kind.
    ExemptKind,
    /// The namespaceSelector does not match.
    NamespaceSelector,
    /// The objectSelector does not match.
    ObjectSelector,
    /// No rule matches.
    Rules,
    /// The matchConditions: one was false, or they erred under `failurePolicy: Ignore`.
    MatchConditions,
    /// A dry run reached a webhook without `sideEffects` under `failurePolicy: Ignore`.
    SideEffectsUnsetIgnored,
}

impl SkipStage {
    /// The stage's key, as the skip reasons' keys in JSON outputs ([`Skip::key`]).
    pub fn key(self) -> &'static str {
        match self {
            SkipStage::ExemptKind => "exemptKind",
            SkipStage::NamespaceSelector => "namespaceSelector",
            SkipStage::ObjectSelector => "objectSelector",
            SkipStage::Rules => "rules",
            SkipStage::MatchConditions => "matchCondition",
            SkipStage::SideEffectsUnsetIgnored => "sideEffectsUnsetIgnored",
        }
    }

    /// Whether a skip was made at this stage.
    pub fn matches(self, skip: &Skip<'_>) -> bool {
        skip.key() == self.key()
    }
}

/// A skip check by its key ([`Skip::key`]; `matchConditions` too).
pub fn skip_reason(key: &str) -> Option<SkipStage> {
    Some(match key {
        "exemptKind" => SkipStage::ExemptKind,
        "namespaceSelector" => SkipStage::NamespaceSelector,
        "objectSelector" => SkipStage::ObjectSelector,
        "rules" => SkipStage::Rules,
        "matchConditions" | "matchCondition" => SkipStage::MatchConditions,
        "sideEffectsUnsetIgnored" => SkipStage::SideEffectsUnsetIgnored,
        _ => return None,
    })
}

/// Reads a test file strictly. The file is returned only when it has no error; every error
/// is reported.
pub fn load_test_file(text: &str) -> Result<TestFile, Vec<ManifestError>> {
    let docs = read_documents(text);
    let mut r = Reader {
        errors: Vec::new(),
        applied: read_documents_as(text, Schema::Kubectl)
            .documents
            .into_iter()
            .find_map(|d| d.root),
    };
    if let Some(e) = docs.error {
        return Err(vec![ManifestError::new(
            Some(e.position),
            "",
            format!("not YAML: {}", e.message),
        )]);
    }
    let mut roots = docs.documents.into_iter().filter_map(|d| d.root);
    let Some(root) = roots.next() else {
        return Err(vec![ManifestError::new(None, "", "empty test file")]);
    };
    if let Some(extra) = roots.next() {
        r.err(&extra, "", "a test file holds one document");
    }
    if !r.fields(&root, "", FILE_FIELDS) {
        return Err(r.errors);
    }
    match (r.string(&root, "apiVersion", ""), r.string(&root, "kind", "")) {
        (Some(v), Some(k)) if v == TEST_API_VERSION && k == TEST_KIND => {}
        (v, k) => r.err(
            root.get("apiVersion").unwrap_or(&root),
            "apiVersion",
            format!(
                "not a test file: apiVersion {:?}, kind {:?} (expected apiVersion {TEST_API_VERSION}, kind {TEST_KIND})",
                v.unwrap_or_default(),
                k.unwrap_or_default()
            ),
        ),
    }
    let mut file = TestFile {
        name: r.string(&root, "name", ""),
        configurations: r.strings(&root, "configurations", ""),
        crds: r.strings(&root, "crds", ""),
        ..TestFile::default()
    };
    if file.configurations.is_empty() && !r.errors.iter().any(|e| e.path() == "configurations") {
        r.err(
            root.get("configurations").unwrap_or(&root),
            "configurations",
            "Required value: the files of the webhook configurations tested",
        );
    }
    if let Some(n) = root.get("kubernetesVersion") {
        match &n.value {
            Value::String(s) => match s.parse::<KubeVersion>() {
                Ok(version) => file.kubernetes_version = Some(version),
                Err(e) => r.err(n, "kubernetesVersion", e.to_string()),
            },
            _ => r.err(
                n,
                "kubernetesVersion",
                format!("must be a string such as \"1.34\" (quoted: 1.30 unquoted is the number 1.3), not {}", n.describe()),
            ),
        }
    }
    file.namespaces = r.namespaces(&root, "");
    file.authorizer = r.source(&root, "authorizer", "");
    match root.get("cases").map(|n| (n, &n.value)) {
        Some((_, Value::Seq(items))) if !items.is_empty() => {
            let mut named: std::collections::HashMap<String, usize> =
                std::collections::HashMap::new();
            for (i, item) in items.iter().enumerate() {
                if let Some(c) = r.case(item, &format!("cases[{i}]"), i) {
                    // A report tells cases by name: two of one name could not be told apart.
                    let first = *named.entry(c.name.clone()).or_insert(i);
                    if first != i {
                        let at = item.get("name").unwrap_or(item);
                        r.err(
                            at,
                            &format!("cases[{i}].name"),
                            format!("Duplicate value: {:?} (cases[{first}] has it)", c.name),
                        );
                    }
                    file.cases.push(c);
                }
            }
        }
        Some((n, _)) => r.err(n, "cases", "must be a non-empty list of cases"),
        None => r.err(&root, "cases", "Required value"),
    }
    if r.errors.is_empty() {
        Ok(file)
    } else {
        r.errors.sort_by_key(ManifestError::position);
        Err(r.errors)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn with_version(version: &str) -> String {
        format!(
            "apiVersion: matchcond/v1alpha1\nkind: Test\nconfigurations: [w.yaml]\n\
             kubernetesVersion: {version}\ncases:\n- name: c\n  operation: CREATE\n  \
             object: {{apiVersion: v1, kind: Pod, metadata: {{name: p}}}}\n  \
             expect: {{w: called}}\n"
        )
    }

    /// An object written in the test file is read as kubectl would send it (YAML 1.1, as
    /// a manifest file is); the test file's own fields by YAML 1.2.
    #[test]
    fn inline_objects_are_read_as_kubectl_sends_them() {
        let text = "apiVersion: matchcond/v1alpha1\nkind: Test\nconfigurations: [w.yaml]\n\
                    cases:\n- name: 'no'\n  operation: CREATE\n  \
                    object: {apiVersion: v1, kind: Pod, metadata: {name: p},\n    \
                    spec: {volumes: [{name: s, secret: {secretName: s, defaultMode: 0644}}],\n    \
                    nodeSelector: {on: yes}}}\n  expect: {w: called}\n";
        let file = load_test_file(text).unwrap();
        let Some(Source::Inline(object)) = &file.cases[0].object else {
            panic!("no inline object");
        };
        let json = object.to_json();
        assert_eq!(json["spec"]["volumes"][0]["secret"]["defaultMode"], 420);
        assert_eq!(
            json["spec"]["nodeSelector"],
            serde_json::json!({"true": true})
        );
        assert_eq!(file.cases[0].name, "no");
        assert_eq!(object.start, Position::new(7, 11));
        let warnings: Vec<String> = file.cases[0]
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            warnings,
            [
                "9:20: cases[0].object.spec.nodeSelector.true: the key on is the boolean true in YAML 1.1: kubectl apply sends the key \"true\" (quote it)",
                "9:24: cases[0].object.spec.nodeSelector.true: yes is the boolean true in YAML 1.1: kubectl apply sends true, which the apiserver refuses where a string is expected (quote it)",
            ]
        );
    }

    #[test]
    fn case_names_are_unique() {
        let text = "apiVersion: matchcond/v1alpha1\nkind: Test\nconfigurations: [w.yaml]\ncases:\n\
                    - {name: a, object: p.yaml, expect: {w: called}}\n\
                    - {name: a, object: p.yaml, expect: {w: called}}\n\
                    - {object: p.yaml, expect: {w: called}}\n\
                    - {name: a, object: p.yaml, expect: {w: called}}\n";
        let errors: Vec<String> = load_test_file(text)
            .unwrap_err()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            errors,
            [
                "6:10: cases[1].name: Duplicate value: \"a\" (cases[0] has it)",
                "8:10: cases[3].name: Duplicate value: \"a\" (cases[0] has it)",
            ]
        );
    }

    #[test]
    fn the_version_is_read_as_every_command_reads_it() {
        let file = load_test_file(&with_version("\"v1.33.2\"")).unwrap();
        assert_eq!(file.kubernetes_version, Some(KubeVersion::V1_33));
        let errors = |v: &str| -> Vec<String> {
            load_test_file(&with_version(v))
                .unwrap_err()
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        assert_eq!(
            errors("\"1.27\""),
            ["4:20: kubernetesVersion: unsupported Kubernetes version 1.27 (supported: 1.28 to 1.37)"]
        );
        assert_eq!(
            errors("\"1.x\""),
            ["4:20: kubernetesVersion: invalid Kubernetes version \"1.x\" (expected MAJOR.MINOR[.PATCH], as 1.34, v1.34.2, 1.34+ or v1.34.2-eks-1a2b3c)"]
        );
    }
}
