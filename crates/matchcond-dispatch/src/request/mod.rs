//! Admission requests built as kube-apiserver builds them, from what a policy author has at
//! hand: object manifests, the operation and the requesting user.
//!
//! * [`catalog`]: the built-in API resources (kind, plural, scope, subresources with their
//!   kinds, versions served by release), extended by CustomResourceDefinitions.
//! * [`crd`]: CustomResourceDefinition manifests read with positions.
//! * [`namespaces`]: Namespace manifests read with positions, their labels defaulted as
//!   the apiserver defaults them; a [`NamespaceLister`](crate::NamespaceLister).
//! * [`manifest`]: a manifest and request options to the AdmissionReview the apiserver
//!   sends, and the check of hand-written reviews.

pub mod catalog;
pub mod crd;
pub mod from_audit;
pub mod manifest;

pub mod namespaces;
pub mod suite;

use std::fmt;

use crate::yaml::{read_documents_as, Node, Position, Schema, Value};

/// A problem in a manifest (or a request option), with the field path and the position in
/// its text when it has one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub struct ManifestError {
    kind: ManifestErrorKind,
    position: Option<Position>,
    path: String,
    message: String,
}

impl ManifestError {
    /// An error at a position (`None` for a problem of the options rather than of a
    /// text), for a field path (`""` for the whole document).
    pub fn new(position: Option<Position>, path: &str, message: impl Into<String>) -> Self {
        ManifestError {
            kind: ManifestErrorKind::Invalid,
            position,
            path: path.to_owned(),
            message: message.into(),
        }
    }

    /// The same error, of another kind.
    pub fn with_kind(mut self, kind: ManifestErrorKind) -> Self {
        self.kind = kind;
        self
    }

    /// What sort of problem it is.
    pub fn kind(&self) -> ManifestErrorKind {
        self.kind
    }

    /// An error at a node of a document.
    pub(crate) fn at(node: &Node, path: &str, message: impl Into<String>) -> Self {
        ManifestError::new(Some(node.start), path, message)
    }

    /// Where in the text (line and column), when the error is in a text.
    pub fn position(&self) -> Option<Position> {
        self.position
    }

    /// The field path (`metadata.labels`, `spec.versions[0].name`), empty for the whole
    /// document.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// What sort of problem a [`ManifestError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ManifestErrorKind {
    /// The text or a field of it is not what it must be.
    Invalid,
    /// The manifest's kind is neither built in nor defined by a CustomResourceDefinition
    /// given.
    UnknownKind,
    /// The request's options contradict the manifests (a namespace, an operation that takes
    /// no old object, …), or the manifests each other.
    Conflict,
}

/// `LINE:COLUMN: PATH: MESSAGE` (the parts it has).
impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = self.position {
            write!(f, "{p}: ")?;
        }
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        f.write_str(&self.message)
    }
}

/// The objects of a text of manifests: every document that is an object, the items of
/// `List` documents, with the errors of the documents that are not objects (each reported;
/// reading goes on).
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Manifests {
    /// The objects, in order.
    pub objects: Vec<Node>,
    /// The documents that could not be used.
    pub errors: Vec<ManifestError>,
    /// What kubectl reads otherwise than the text seems to say: each plain `yes`, `on`,
    /// `n`, … it sends as a boolean (a key as `"true"` or `"false"`).
    pub warnings: Vec<ManifestError>,
}

/// Reads the objects of a YAML or JSON text (several documents, `kind: …List` with
/// `items`) as kubectl and Helm send them to the apiserver ([`Schema::Kubectl`]: YAML 1.1
/// scalars, integral numbers as integers). Empty documents are skipped.
pub fn read_manifests(text: &str) -> Manifests {
    let docs = read_documents_as(text, Schema::Kubectl);
    let mut out = Manifests::default();
    for doc in docs.documents {
        let Some(root) = doc.root else { continue };
        yaml11_warnings(&root, "", &mut out.warnings);
        let Value::Map(_) = root.value else {
            out.errors.push(ManifestError::at(
                &root,
                "",
                format!("a manifest must be an object, not {}", root.describe()),
            ));
            continue;
        };
        let is_list = root
            .get("kind")
            .and_then(Node::as_str)
            .is_some_and(|k| k.ends_with("List"))
            && root.get("items").is_some();
        if !is_list {
            out.objects.push(root);
            continue;
        }
        match root.get("items").map(|n| &n.value) {
            Some(Value::Seq(items)) => {
                for (i, item) in items.iter().enumerate() {
                    if let Value::Map(_) = item.value {
                        out.objects.push(item.clone());
                    } else {
                        out.errors.push(ManifestError::at(
                            item,
                            &format!("items[{i}]"),
                            format!("a manifest must be an object, not {}", item.describe()),
                        ));
                    }
                }
            }
            Some(Value::Null) => {}
            _ => {
                if let Some(items) = root.get("items") {
                    out.errors.push(ManifestError::at(
                        items,
                        "items",
                        format!("must be a list, not {}", items.describe()),
                    ));
                }
            }
        }
    }
    if let Some(e) = docs.error {
        out.errors.push(ManifestError::new(
            Some(e.position),
            "",
            format!("not YAML or JSON: {}", e.message),
        ));
    }
    out
}

/// Puts an object (its `metadata`) in the namespace its request expects, as the handlers
/// do before admission (`EnsureObjectNamespaceMatchesRequestNamespace`): given when the
/// object has none, cleared when none is expected (a cluster-scoped object, a Namespace).
/// An object of another namespace is refused before admission, and kept as it is.
pub(crate) fn place_in_namespace(object: &mut serde_json::Value, expected: &str) {
    let Some(serde_json::Value::Object(meta)) = object.get_mut("metadata") else {
        return;
    };
    let own = meta
        .get("namespace")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    if own == expected {
        return;
    }
    if own.is_empty() {
        meta.insert("namespace".into(), expected.into());
    } else if expected.is_empty() {
        meta.remove("namespace");
    }
}

/// A warning for each scalar of `node` (at `path`) that only YAML 1.1 reads as a boolean.
pub(crate) fn yaml11_warnings(node: &Node, path: &str, out: &mut Vec<ManifestError>) {
    let mut at = path.to_owned();
    yaml11_warnings_at(node, &mut at, out);
}

/// [`yaml11_warnings`] with the path in one buffer, each step written and taken back.
fn yaml11_warnings_at(node: &Node, path: &mut String, out: &mut Vec<ManifestError>) {
    use std::fmt::Write as _;
    let len = path.len();
    match &node.value {
        Value::Bool(b) => {
            if let Some(text) = node.yaml11_word() {
                out.push(ManifestError::at(
                    node,
                    path,
                    format!("{text} is the boolean {b} in YAML 1.1: kubectl apply sends {b}, which the apiserver refuses where a string is expected (quote it)"),
                ));
            }
        }
        Value::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                let _ = write!(path, "[{i}]");
                yaml11_warnings_at(item, path, out);
                path.truncate(len);
            }
        }
        Value::Map(entries) => {
            for (k, v) in entries {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&k.key_text().unwrap_or_default());
                if let (Value::Bool(b), Some(text)) = (&k.value, k.yaml11_word()) {
                    out.push(ManifestError::at(
                        k,
                        path,
                        format!("the key {text} is the boolean {b} in YAML 1.1: kubectl apply sends the key \"{b}\" (quote it)"),
                    ));
                }
                yaml11_warnings_at(v, path, out);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

/// The string at `key` of a mapping node: `Ok(None)` when absent or null, an error naming
/// `path` when of another type.
pub(crate) fn opt_str<'a>(
    node: &'a Node,
    key: &str,
    path: &str,
) -> Result<Option<&'a str>, ManifestError> {
    match node.get(key) {
        None => Ok(None),
        Some(n) => match &n.value {
            Value::Null => Ok(None),
            Value::String(s) => Ok(Some(s)),
            _ => Err(ManifestError::at(
                n,
                path,
                format!("must be a string, not {}", n.describe()),
            )),
        },
    }
}

/// A required non-empty string at `key`; the error is at `at` when absent.
pub(crate) fn req_str<'a>(node: &'a Node, key: &str, path: &str) -> Result<&'a str, ManifestError> {
    match opt_str(node, key, path)? {
        Some(s) if !s.is_empty() => Ok(s),
        _ => Err(ManifestError::at(
            node.get(key).unwrap_or(node),
            path,
            "Required value",
        )),
    }
}

/// The object at `key` (`Ok(None)` when absent or null).
pub(crate) fn opt_map<'a>(
    node: &'a Node,
    key: &str,
    path: &str,
) -> Result<Option<&'a Node>, ManifestError> {
    match node.get(key) {
        None => Ok(None),
        Some(n) => match &n.value {
            Value::Null => Ok(None),
            Value::Map(_) => Ok(Some(n)),
            _ => Err(ManifestError::at(
                n,
                path,
                format!("must be an object, not {}", n.describe()),
            )),
        },
    }
}

/// A map of strings at `key` (labels): every value must be a string.
pub(crate) fn string_map(
    node: &Node,
    key: &str,
    path: &str,
) -> Result<crate::Labels, ManifestError> {
    let mut out = crate::Labels::new();
    let Some(m) = opt_map(node, key, path)? else {
        return Ok(out);
    };
    if let Value::Map(entries) = &m.value {
        for (k, v) in entries {
            let name = k.key_text().unwrap_or_default().into_owned();
            match &v.value {
                Value::String(s) => {
                    out.insert(name, s.clone());
                }
                _ => {
                    return Err(ManifestError::at(
                        v,
                        &format!("{path}.{name}"),
                        format!("must be a string, not {}", v.describe()),
                    ))
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    /// A manifest is read as kubectl sends it; each plain word only YAML 1.1 reads as a
    /// boolean is a warning with its position and path.
    #[test]
    fn manifests_are_read_as_kubectl_sends_them() {
        let m = read_manifests(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {ready: yes}\n\
             spec:\n  replicas: 2.0\n  volumes:\n  - secret: {defaultMode: 0755}\n  \
             nodeSelector:\n    off: 'x'\n",
        );
        assert!(m.errors.is_empty(), "{:?}", m.errors);
        let json = m.objects[0].to_json();
        assert_eq!(json["metadata"]["labels"]["ready"], true);
        assert_eq!(json["spec"]["replicas"], serde_json::json!(2));
        assert!(json["spec"]["replicas"].is_i64());
        assert_eq!(json["spec"]["volumes"][0]["secret"]["defaultMode"], 493);
        assert_eq!(
            json["spec"]["nodeSelector"],
            serde_json::json!({"false": "x"})
        );
        let warnings: Vec<String> = m.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(
            warnings,
            [
                "5:19: metadata.labels.ready: yes is the boolean true in YAML 1.1: kubectl apply sends true, which the apiserver refuses where a string is expected (quote it)",
                "11:5: spec.nodeSelector.false: the key off is the boolean false in YAML 1.1: kubectl apply sends the key \"false\" (quote it)",
            ]
        );
    }
}
