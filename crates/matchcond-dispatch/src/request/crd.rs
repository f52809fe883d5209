//! CustomResourceDefinition manifests (`apiextensions.k8s.io/v1`): what the request
//! builder needs of them — group, names, scope, served versions and their subresources.

use crate::request::{opt_map, opt_str, read_manifests, req_str, ManifestError};
use crate::yaml::{Node, Value};

/// The API version of CustomResourceDefinitions.
pub const CRD_API_VERSION: &str = "apiextensions.k8s.io/v1";

/// A CustomResourceDefinition, reduced to what serving its resource needs.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CustomResourceDefinition {
    /// `metadata.name` (`<plural>.<group>`).
    pub name: String,
    /// `spec.group`.
    pub group: String,
    /// `spec.names.kind`.
    pub kind: String,
    /// `spec.names.plural`.
    pub plural: String,
    /// `spec.scope` is `Namespaced`.
    pub namespaced: bool,
    /// `spec.versions`, in order.
    pub versions: Vec<CrdVersion>,
}

/// One version of a CustomResourceDefinition.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CrdVersion {
    /// The version's name (`v1alpha1`).
    pub name: String,
    /// Whether it is served.
    pub served: bool,
    /// Whether it is the storage version.
    pub storage: bool,
    /// It has the `status` subresource.
    pub status: bool,
    /// It has the `scale` subresource.
    pub scale: bool,
}

fn bool_field(node: &Node, key: &str, path: &str) -> Result<bool, ManifestError> {
    match node.get(key) {
        None => Ok(false),
        Some(n) => match n.value {
            Value::Bool(b) => Ok(b),
            Value::Null => Ok(false),
            _ => Err(ManifestError::at(
                n,
                path,
                format!("must be a boolean, not {}", n.describe()),
            )),
        },
    }
}

impl CustomResourceDefinition {
    /// Reads a CustomResourceDefinition object; every problem is an error with its path
    /// and position.
    pub fn from_node(node: &Node) -> Result<CustomResourceDefinition, ManifestError> {
        let api_version = opt_str(node, "apiVersion", "apiVersion")?.unwrap_or_default();
        let kind = opt_str(node, "kind", "kind")?.unwrap_or_default();
        if kind != "CustomResourceDefinition" {
            return Err(ManifestError::at(
                node.get("kind").unwrap_or(node),
                "kind",
                format!("expected a CustomResourceDefinition, not {kind:?}"),
            ));
        }
        if api_version != CRD_API_VERSION {
            return Err(ManifestError::at(
                node.get("apiVersion").unwrap_or(node),
                "apiVersion",
                format!("unsupported apiVersion {api_version:?} (expected {CRD_API_VERSION})"),
            ));
        }
        let name = opt_map(node, "metadata", "metadata")?
            .map(|m| opt_str(m, "name", "metadata.name"))
            .transpose()?
            .flatten()
            .unwrap_or_default()
            .to_owned();
        let Some(spec) = opt_map(node, "spec", "spec")? else {
            return Err(ManifestError::at(node, "spec", "Required value"));
        };
        let group = req_str(spec, "group", "spec.group")?.to_owned();
        let Some(names) = opt_map(spec, "names", "spec.names")? else {
            return Err(ManifestError::at(spec, "spec.names", "Required value"));
        };
        let kind = req_str(names, "kind", "spec.names.kind")?.to_owned();
        let plural = req_str(names, "plural", "spec.names.plural")?.to_owned();
        let namespaced = match req_str(spec, "scope", "spec.scope")? {
            "Namespaced" => true,
            "Cluster" => false,
            other => {
                return Err(ManifestError::at(
                    spec.get("scope").unwrap_or(spec),
                    "spec.scope",
                    format!(
                    "Unsupported value: {other:?}: supported values: \"Cluster\", \"Namespaced\""
                ),
                ))
            }
        };
        let versions_node = spec.get("versions");
        let items = match versions_node.map(|n| &n.value) {
            Some(Value::Seq(items)) if !items.is_empty() => items,
            _ => {
                return Err(ManifestError::at(
                    versions_node.unwrap_or(spec),
                    "spec.versions",
                    "must have at least one version",
                ))
            }
        };
        let mut versions = Vec::new();
        for (i, v) in items.iter().enumerate() {
            let at = format!("spec.versions[{i}]");
            if !matches!(v.value, Value::Map(_)) {
                return Err(ManifestError::at(
                    v,
                    &at,
                    format!("must be an object, not {}", v.describe()),
                ));
            }
            let subresources = opt_map(v, "subresources", &format!("{at}.subresources"))?;
            let has = |key: &str| -> Result<bool, ManifestError> {
                Ok(match subresources {
                    Some(s) => {
                        opt_map(s, key, &format!("{at}.subresources.{key}"))?.is_some()
                            || s.get(key).is_some_and(|n| matches!(n.value, Value::Null))
                    }
                    None => false,
                })
            };
            versions.push(CrdVersion {
                name: req_str(v, "name", &format!("{at}.name"))?.to_owned(),
                served: bool_field(v, "served", &format!("{at}.served"))?,
                storage: bool_field(v, "storage", &format!("{at}.storage"))?,
                status: has("status")?,
                scale: has("scale")?,
            });
        }
        Ok(CustomResourceDefinition {
            name,
            group,
            kind,
            plural,
            namespaced,
            versions,
        })
    }
}

/// Reads the CustomResourceDefinitions of a text (several documents, lists); every
/// document that is not one is an error, and reading goes on.
pub fn load_crds(text: &str) -> (Vec<CustomResourceDefinition>, Vec<ManifestError>) {
    let manifests = read_manifests(text);
    let mut errors = manifests.errors;
    let mut crds = Vec::new();
    for object in &manifests.objects {
        match CustomResourceDefinition::from_node(object) {
            Ok(c) => crds.push(c),
            Err(e) => errors.push(e),
        }
    }
    errors.sort_by_key(ManifestError::position);
    (crds, errors)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::catalog::Catalog;

    const CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}, scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}}
  - name: v1alpha1
    served: false
    storage: false
"#;

    #[test]
    fn reads_a_crd_into_the_catalog() {
        let (crds, errors) = load_crds(CRD);
        assert_eq!(errors, vec![]);
        let crd = &crds[0];
        assert_eq!(crd.group, "example.com");
        assert_eq!(crd.versions.len(), 2);
        assert!(crd.versions[0].status && crd.versions[0].scale);
        let mut c = Catalog::new();
        c.add_crd(crd);
        let w = c.by_kind("example.com", "v1", "Widget").unwrap();
        assert_eq!(w.plural, "widgets");
        assert!(w.namespaced);
        assert_eq!(w.subresources.len(), 2);
        assert!(c.by_kind("example.com", "v1alpha1", "Widget").is_none());
        assert!(c.by_resource("example.com", "v1", "widgets").is_some());
    }

    #[test]
    fn every_bad_document_is_reported_with_its_position() {
        let text = "- a list\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: g\n  names: {kind: K, plural: ks}\n  scope: Global\n  versions: [{name: v1, served: true}]\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: g\n  names: {kind: K}\n";
        let (crds, errors) = load_crds(text);
        assert!(crds.is_empty());
        let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            vec![
                "1:1: a manifest must be an object, not a list".to_owned(),
                "8:10: spec.scope: Unsupported value: \"Global\": supported values: \"Cluster\", \"Namespaced\"".to_owned(),
                "15:10: spec.names.plural: Required value".to_owned(),
            ]
        );
    }
}
