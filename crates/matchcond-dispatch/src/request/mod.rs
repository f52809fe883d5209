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

use crate::yaml::{read_documents, Node, Position, Value};

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
}

/// Reads the objects of a YAML or JSON text (several documents, `kind: …List` with
/// `items`). Empty documents are skipped.
pub fn read_manifests(text: &str) -> Manifests {
    let docs = read_documents(text);
    let mut out = Manifests::default();
    for doc in docs.documents {
        let Some(root) = doc.root else { continue };
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
