//! Namespace manifests: their labels, as the apiserver stores them, answer the
//! namespaceSelector's lookups.

use std::collections::BTreeMap;

use serde_json::Value as Json;

use crate::namespaces::{Labels, NamespaceLister};
use crate::request::{opt_map, opt_str, read_manifests, string_map, ManifestError};
use crate::yaml::Node;

/// The label the apiserver sets on every namespace to its name.
pub const METADATA_NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// A Namespace as stored.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct NamespaceObject {
    /// `metadata.name`.
    pub name: String,
    /// `metadata.labels`, with `kubernetes.io/metadata.name` set to the name (the
    /// apiserver's defaulting overwrites whatever the manifest says).
    pub labels: Labels,
    /// The manifest as JSON, its labels defaulted.
    pub object: Json,
}

impl NamespaceObject {
    /// A namespace with a name and labels (the name label is set).
    pub fn new(name: &str, labels: Labels) -> NamespaceObject {
        let mut labels = labels;
        labels.insert(METADATA_NAME_LABEL.to_owned(), name.to_owned());
        let object = serde_json::json!({
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": name, "labels": labels},
        });
        NamespaceObject {
            name: name.to_owned(),
            labels,
            object,
        }
    }

    /// Reads a `v1` Namespace object.
    pub fn from_node(node: &Node) -> Result<NamespaceObject, ManifestError> {
        let api_version = opt_str(node, "apiVersion", "apiVersion")?.unwrap_or_default();
        let kind = opt_str(node, "kind", "kind")?.unwrap_or_default();
        if kind != "Namespace" || api_version != "v1" {
            return Err(ManifestError::at(
                node.get("kind").unwrap_or(node),
                "kind",
                format!("expected a v1 Namespace, not apiVersion {api_version:?}, kind {kind:?}"),
            ));
        }
        let Some(meta) = opt_map(node, "metadata", "metadata")? else {
            return Err(ManifestError::at(node, "metadata.name", "Required value"));
        };
        let name = match opt_str(meta, "name", "metadata.name")? {
            Some(n) if !n.is_empty() => n,
            _ => {
                return Err(ManifestError::at(
                    meta.get("name").unwrap_or(meta),
                    "metadata.name",
                    "Required value",
                ))
            }
        };
        let labels = string_map(meta, "labels", "metadata.labels")?;
        let mut ns = NamespaceObject::new(name, labels);
        let mut object = node.to_json();
        if let Some(Json::Object(m)) = object.get_mut("metadata") {
            m.insert(
                "labels".to_owned(),
                serde_json::to_value(&ns.labels).unwrap_or(Json::Null),
            );
        }
        ns.object = object;
        Ok(ns)
    }
}

/// Namespaces by name; a [`NamespaceLister`] (a name it does not hold does not exist).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NamespaceSet {
    namespaces: BTreeMap<String, NamespaceObject>,
}

impl NamespaceSet {
    /// An empty set.
    pub fn new() -> NamespaceSet {
        NamespaceSet::default()
    }

    /// Adds a namespace (replacing one of the same name).
    pub fn insert(&mut self, namespace: NamespaceObject) {
        self.namespaces.insert(namespace.name.clone(), namespace);
    }

    /// A namespace by name.
    pub fn get(&self, name: &str) -> Option<&NamespaceObject> {
        self.namespaces.get(name)
    }

    /// The namespaces, by name.
    pub fn iter(&self) -> impl Iterator<Item = &NamespaceObject> {
        self.namespaces.values()
    }

    /// The number of namespaces.
    pub fn len(&self) -> usize {
        self.namespaces.len()
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.namespaces.is_empty()
    }
}

impl NamespaceLister for NamespaceSet {
    fn namespace_labels(&self, name: &str) -> Result<Option<Labels>, String> {
        Ok(self.namespaces.get(name).map(|n| n.labels.clone()))
    }
}

/// Reads the Namespaces of a text (several documents, lists); every document that is not
/// one is an error, and reading goes on.
pub fn load_namespaces(text: &str) -> (Vec<NamespaceObject>, Vec<ManifestError>) {
    let manifests = read_manifests(text);
    let mut errors = manifests.errors;
    let mut out = Vec::new();
    for object in &manifests.objects {
        match NamespaceObject::from_node(object) {
            Ok(n) => out.push(n),
            Err(e) => errors.push(e),
        }
    }
    errors.sort_by_key(ManifestError::position);
    (out, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_defaulted_as_stored() {
        let (ns, errors) = load_namespaces(
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: dev\n  labels: {env: dev, kubernetes.io/metadata.name: other}\n---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Namespace, metadata: {name: prod}}\n",
        );
        assert_eq!(errors, vec![]);
        assert_eq!(ns.len(), 2);
        let mut set = NamespaceSet::new();
        for n in ns {
            set.insert(n);
        }
        let dev = set.namespace_labels("dev").unwrap().unwrap();
        assert_eq!(dev.get("env").map(String::as_str), Some("dev"));
        assert_eq!(
            dev.get(METADATA_NAME_LABEL).map(String::as_str),
            Some("dev")
        );
        assert_eq!(
            set.get("prod").unwrap().object["metadata"]["labels"][METADATA_NAME_LABEL],
            "prod"
        );
        assert_eq!(set.namespace_labels("qa"), Ok(None));
    }

    #[test]
    fn errors_have_paths_and_positions() {
        let (_, errors) = load_namespaces(
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: dev\n  labels: {env: 3}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: x}\n---\n42\n",
        );
        let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            vec![
                "5:17: metadata.labels.env: must be a string, not integer 3".to_owned(),
                "8:7: kind: expected a v1 Namespace, not apiVersion \"v1\", kind \"Pod\""
                    .to_owned(),
                "11:1: a manifest must be an object, not integer 42".to_owned(),
            ]
        );
    }
}
