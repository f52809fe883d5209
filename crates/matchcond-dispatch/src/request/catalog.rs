//! The catalog of API resources: for every kind, the resource that serves it (group,
//! version, plural), whether its objects live in a namespace, and its subresources with the
//! kind each one takes and the operations that reach admission through it.
//!
//! [`Catalog::builtin`] holds kube-apiserver's built-in resources, every version served by
//! default in some release; [`Catalog::builtin_for`] keeps those a given release serves.
//! CustomResourceDefinitions add theirs ([`Catalog::add_crd`]). The kinds of `scale`
//! subresources and the versions of the multi-version resources agree with the
//! equivalence table ([`ResourceTable`]), which a test
//! checks.

use std::collections::HashMap;

use matchcond_compiler::KubeVersion;

use crate::request::crd::CustomResourceDefinition;
use crate::resources::{ResourceMapper, ResourceTable};
use crate::types::{Gvk, Gvr};

pub use crate::types::Operation;

/// A subresource of an API resource.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ApiSubresource {
    /// Its name (`status`, `exec`, …).
    pub name: String,
    /// The kind a request to it carries (`Pod` for `pods/status`, `PodExecOptions` for
    /// `pods/exec`, `autoscaling/v1 Scale` for `deployments/scale`).
    pub kind: Gvk,
    /// The admission operations that reach it (empty for read-only subresources such as
    /// `pods/log`).
    pub operations: Vec<Operation>,
}

/// An API resource: the resource serving one kind in one group/version.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ApiResource {
    /// The group (`""` for the core group).
    pub group: String,
    /// The version.
    pub version: String,
    /// The kind.
    pub kind: String,
    /// The resource (the plural: `pods`).
    pub plural: String,
    /// Whether objects live in a namespace.
    pub namespaced: bool,
    /// The admission operations on the main resource (review kinds such as `TokenReview`
    /// take only `CREATE`).
    pub operations: Vec<Operation>,
    /// The subresources.
    pub subresources: Vec<ApiSubresource>,
}

impl ApiResource {
    /// The group/version/resource.
    pub fn gvr(&self) -> Gvr {
        Gvr::new(&self.group, &self.version, &self.plural)
    }

    /// The group/version/kind.
    pub fn gvk(&self) -> Gvk {
        Gvk::new(&self.group, &self.version, &self.kind)
    }

    /// The `apiVersion` of its objects (`v1`, `apps/v1`).
    pub fn api_version(&self) -> String {
        api_version(&self.group, &self.version)
    }

    /// A subresource by name.
    pub fn subresource(&self, name: &str) -> Option<&ApiSubresource> {
        self.subresources.iter().find(|s| s.name == name)
    }
}

/// `group/version`, or `version` for the core group.
pub fn api_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    }
}

/// True when the resource is one kube-apiserver serves built in (of some release): its
/// objects are typed, not custom resources.
pub(crate) fn is_builtin_resource(group: &str, version: &str, plural: &str) -> bool {
    BUILTIN
        .iter()
        .any(|r| r.group == group && r.version == version && r.plural == plural)
}

/// The namespace admission sees for a request on `group`/`resource` named `name` whose URL
/// gives `namespace`: that, or, for a request on a Namespace (its creation included, which
/// the create handler puts in the namespace it creates), the Namespace's name.
pub(crate) fn admitted_namespace<'a>(
    group: &str,
    resource: &str,
    namespace: &'a str,
    name: &'a str,
) -> &'a str {
    if namespace.is_empty() && group.is_empty() && resource == "namespaces" {
        name
    } else {
        namespace
    }
}

/// Splits an `apiVersion` into group and version (`v1` is the core group's).
pub fn split_api_version(api_version: &str) -> (&str, &str) {
    match api_version.rsplit_once('/') {
        Some((g, v)) => (g, v),
        None => ("", api_version),
    }
}

/// The resources known by kind and by resource.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    resources: Vec<ApiResource>,
    by_kind: HashMap<Gvk, usize>,
    by_resource: HashMap<Gvr, usize>,
}

impl Catalog {
    /// An empty catalog.
    pub fn new() -> Catalog {
        Catalog::default()
    }

    /// The built-in resources of every release (the versions each served by default in
    /// some release, removed ones such as `extensions/v1beta1` included).
    pub fn builtin() -> Catalog {
        Catalog::from_rows(BUILTIN.iter(), u32::MAX)
    }

    /// The built-in resources that kube-apiserver of `version` serves by default.
    pub fn builtin_for(version: KubeVersion) -> Catalog {
        let minor = if version.major == 1 {
            version.minor
        } else {
            u32::MAX
        };
        Catalog::from_rows(
            BUILTIN.iter().filter(|r| version.within(r.since, r.until)),
            minor,
        )
    }

    fn from_rows<'a>(rows: impl Iterator<Item = &'a Row>, minor: u32) -> Catalog {
        let equivalence = ResourceTable::builtin();
        let mut catalog = Catalog::new();
        for row in rows {
            let gvr = Gvr::new(row.group, row.version, row.plural);
            let later = LATER_SUBRESOURCES
                .iter()
                .filter(|(g, p, _, since)| *g == row.group && *p == row.plural && *since <= minor)
                .map(|(_, _, name, _)| *name);
            let subresources = row
                .subresources
                .split_whitespace()
                .chain(later)
                .map(|name| {
                    let (kind, operations) = subresource_kind(row, name);
                    let kind = equivalence.kind_for(&gvr, name).unwrap_or(kind);
                    ApiSubresource {
                        name: name.to_owned(),
                        kind,
                        operations,
                    }
                })
                .collect();
            let operations = if row.create_only {
                vec![Operation::Create]
            } else {
                vec![Operation::Create, Operation::Update, Operation::Delete]
            };
            catalog.add(ApiResource {
                group: row.group.to_owned(),
                version: row.version.to_owned(),
                kind: row.kind.to_owned(),
                plural: row.plural.to_owned(),
                namespaced: row.namespaced,
                operations,
                subresources,
            });
        }
        catalog
    }

    /// Adds a resource; one already known with the same group/version/resource (or
    /// group/version/kind) is replaced.
    pub fn add(&mut self, resource: ApiResource) {
        let gvr = resource.gvr();
        let gvk = resource.gvk();
        let existing = self
            .by_resource
            .get(&gvr)
            .or_else(|| self.by_kind.get(&gvk))
            .copied();
        let at = match existing.and_then(|i| self.resources.get_mut(i).map(|r| (i, r))) {
            Some((i, slot)) => {
                let old = std::mem::replace(slot, resource);
                self.by_resource.remove(&old.gvr());
                self.by_kind.remove(&old.gvk());
                i
            }
            None => {
                self.resources.push(resource);
                self.resources.len() - 1
            }
        };
        self.by_resource.insert(gvr, at);
        self.by_kind.insert(gvk, at);
    }

    /// Adds the resources of a CustomResourceDefinition: one per served version, with
    /// the `status` and `scale` subresources the version declares.
    pub fn add_crd(&mut self, crd: &CustomResourceDefinition) {
        for v in crd.versions.iter().filter(|v| v.served) {
            let mut subresources = Vec::new();
            if v.status {
                subresources.push(ApiSubresource {
                    name: "status".to_owned(),
                    kind: Gvk::new(&crd.group, &v.name, &crd.kind),
                    operations: vec![Operation::Update],
                });
            }
            if v.scale {
                subresources.push(ApiSubresource {
                    name: "scale".to_owned(),
                    kind: Gvk::new("autoscaling", "v1", "Scale"),
                    operations: vec![Operation::Update],
                });
            }
            self.add(ApiResource {
                group: crd.group.clone(),
                version: v.name.clone(),
                kind: crd.kind.clone(),
                plural: crd.plural.clone(),
                namespaced: crd.namespaced,
                operations: vec![Operation::Create, Operation::Update, Operation::Delete],
                subresources,
            });
        }
    }

    /// The resource serving a group/version/kind.
    pub fn by_kind(&self, group: &str, version: &str, kind: &str) -> Option<&ApiResource> {
        self.by_kind
            .get(&Gvk::new(group, version, kind))
            .and_then(|i| self.resources.get(*i))
    }

    /// The resource serving the kind of a manifest (`apiVersion` and `kind`).
    pub fn by_api_version_kind(&self, api_version: &str, kind: &str) -> Option<&ApiResource> {
        let (group, version) = split_api_version(api_version);
        self.by_kind(group, version, kind)
    }

    /// The resource of a group/version and plural.
    pub fn by_resource(&self, group: &str, version: &str, plural: &str) -> Option<&ApiResource> {
        self.by_resource
            .get(&Gvr::new(group, version, plural))
            .and_then(|i| self.resources.get(*i))
    }

    /// The resources of a group and plural in every version the catalog knows.
    pub fn versions_of(&self, group: &str, plural: &str) -> impl Iterator<Item = &ApiResource> {
        let (group, plural) = (group.to_owned(), plural.to_owned());
        self.resources
            .iter()
            .filter(move |r| r.group == group && r.plural == plural)
    }

    /// The resources serving a kind in a group in every version the catalog knows.
    pub fn kinds_of(&self, group: &str, kind: &str) -> impl Iterator<Item = &ApiResource> {
        let (group, kind) = (group.to_owned(), kind.to_owned());
        self.resources
            .iter()
            .filter(move |r| r.group == group && r.kind == kind)
    }

    /// Every resource, in the order added.
    pub fn iter(&self) -> impl Iterator<Item = &ApiResource> {
        self.resources.iter()
    }

    /// The number of resources.
    pub fn len(&self) -> usize {
        self.resources.len()
    }

    /// True when the catalog knows no resource.
    pub fn is_empty(&self) -> bool {
        self.resources.is_empty()
    }
}

/// The kind and operations of a built-in subresource (the `scale` kinds of the
/// equivalence table take precedence).
fn subresource_kind(row: &Row, name: &str) -> (Gvk, Vec<Operation>) {
    let own = || Gvk::new(row.group, row.version, row.kind);
    let core = |kind: &str| Gvk::new("", "v1", kind);
    let update = vec![Operation::Update];
    let create = vec![Operation::Create];
    let connect = vec![Operation::Connect];
    match (row.plural, name) {
        (_, "scale") => (Gvk::new("autoscaling", "v1", "Scale"), update),
        ("pods", "exec") => (core("PodExecOptions"), connect),
        ("pods", "attach") => (core("PodAttachOptions"), connect),
        ("pods", "portforward") => (core("PodPortForwardOptions"), connect),
        ("pods", "proxy") => (core("PodProxyOptions"), connect),
        ("nodes", "proxy") => (core("NodeProxyOptions"), connect),
        ("services", "proxy") => (core("ServiceProxyOptions"), connect),
        ("pods", "log") => (own(), Vec::new()),
        ("pods", "binding") => (core("Binding"), create),
        ("pods", "eviction") => (Gvk::new("policy", "v1", "Eviction"), create),
        ("serviceaccounts", "token") => (
            Gvk::new("authentication.k8s.io", "v1", "TokenRequest"),
            create,
        ),
        _ => (own(), update),
    }
}

/// One built-in resource of one group/version.
struct Row {
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    plural: &'static str,
    namespaced: bool,
    /// Only `CREATE` reaches admission (the review kinds).
    create_only: bool,
    /// Subresource names, separated by spaces.
    subresources: &'static str,
    /// First minor version serving it by default.
    since: u32,
    /// First minor version no longer serving it.
    until: Option<u32>,
}

const NS: bool = true;
const CL: bool = false;

macro_rules! rows {
    ($( $group:literal $version:literal $kind:literal $plural:literal $ns:ident
        $create_only:literal $subs:literal [$since:literal, $until:expr] ;)*) => {
        &[$( Row {
            group: $group, version: $version, kind: $kind, plural: $plural, namespaced: $ns,
            create_only: $create_only, subresources: $subs, since: $since, until: $until,
        }, )*]
    };
}

/// kube-apiserver's built-in resources (served by default), preferred versions first
/// within a group. Subresources that exist only behind feature gates are left out;
/// `pods/resize` is served from 1.33.
static BUILTIN: &[Row] = rows![
    "" "v1" "Pod" "pods" NS false "status exec attach portforward proxy log binding eviction ephemeralcontainers" [0, None];
    "" "v1" "Binding" "bindings" NS true "" [0, None];
    "" "v1" "ConfigMap" "configmaps" NS false "" [0, None];
    "" "v1" "Endpoints" "endpoints" NS false "" [0, None];
    "" "v1" "Event" "events" NS false "" [0, None];
    "" "v1" "LimitRange" "limitranges" NS false "" [0, None];
    "" "v1" "Namespace" "namespaces" CL false "status finalize" [0, None];
    "" "v1" "Node" "nodes" CL false "status proxy" [0, None];
    "" "v1" "PersistentVolumeClaim" "persistentvolumeclaims" NS false "status" [0, None];
    "" "v1" "PersistentVolume" "persistentvolumes" CL false "status" [0, None];
    "" "v1" "PodTemplate" "podtemplates" NS false "" [0, None];
    "" "v1" "ReplicationController" "replicationcontrollers" NS false "status scale" [0, None];
    "" "v1" "ResourceQuota" "resourcequotas" NS false "status" [0, None];
    "" "v1" "Secret" "secrets" NS false "" [0, None];
    "" "v1" "ServiceAccount" "serviceaccounts" NS false "token" [0, None];
    "" "v1" "Service" "services" NS false "status proxy" [0, None];
    "admissionregistration.k8s.io" "v1" "MutatingWebhookConfiguration" "mutatingwebhookconfigurations" CL false "" [16, None];
    "admissionregistration.k8s.io" "v1" "ValidatingWebhookConfiguration" "validatingwebhookconfigurations" CL false "" [16, None];
    "admissionregistration.k8s.io" "v1" "ValidatingAdmissionPolicy" "validatingadmissionpolicies" CL false "status" [30, None];
    "admissionregistration.k8s.io" "v1" "ValidatingAdmissionPolicyBinding" "validatingadmissionpolicybindings" CL false "" [30, None];
    "admissionregistration.k8s.io" "v1" "MutatingAdmissionPolicy" "mutatingadmissionpolicies" CL false "" [36, None];
    "admissionregistration.k8s.io" "v1" "MutatingAdmissionPolicyBinding" "mutatingadmissionpolicybindings" CL false "" [36, None];
    "admissionregistration.k8s.io" "v1beta1" "MutatingWebhookConfiguration" "mutatingwebhookconfigurations" CL false "" [9, Some(22)];
    "admissionregistration.k8s.io" "v1beta1" "ValidatingWebhookConfiguration" "validatingwebhookconfigurations" CL false "" [9, Some(22)];
    "apiextensions.k8s.io" "v1" "CustomResourceDefinition" "customresourcedefinitions" CL false "status" [16, None];
    "apiregistration.k8s.io" "v1" "APIService" "apiservices" CL false "status" [10, None];
    "apps" "v1" "ControllerRevision" "controllerrevisions" NS false "" [9, None];
    "apps" "v1" "DaemonSet" "daemonsets" NS false "status" [9, None];
    "apps" "v1" "Deployment" "deployments" NS false "status scale" [9, None];
    "apps" "v1" "ReplicaSet" "replicasets" NS false "status scale" [9, None];
    "apps" "v1" "StatefulSet" "statefulsets" NS false "status scale" [9, None];
    "apps" "v1beta2" "DaemonSet" "daemonsets" NS false "status" [8, Some(16)];
    "apps" "v1beta2" "Deployment" "deployments" NS false "status scale" [8, Some(16)];
    "apps" "v1beta2" "ReplicaSet" "replicasets" NS false "status scale" [8, Some(16)];
    "apps" "v1beta2" "StatefulSet" "statefulsets" NS false "status scale" [8, Some(16)];
    "apps" "v1beta1" "Deployment" "deployments" NS false "status scale rollback" [6, Some(16)];
    "apps" "v1beta1" "StatefulSet" "statefulsets" NS false "status scale" [5, Some(16)];
    "authentication.k8s.io" "v1" "TokenReview" "tokenreviews" CL true "" [6, None];
    "authentication.k8s.io" "v1" "SelfSubjectReview" "selfsubjectreviews" CL true "" [28, None];
    "authorization.k8s.io" "v1" "LocalSubjectAccessReview" "localsubjectaccessreviews" NS true "" [6, None];
    "authorization.k8s.io" "v1" "SelfSubjectAccessReview" "selfsubjectaccessreviews" CL true "" [6, None];
    "authorization.k8s.io" "v1" "SelfSubjectRulesReview" "selfsubjectrulesreviews" CL true "" [8, None];
    "authorization.k8s.io" "v1" "SubjectAccessReview" "subjectaccessreviews" CL true "" [6, None];
    "autoscaling" "v2" "HorizontalPodAutoscaler" "horizontalpodautoscalers" NS false "status" [23, None];
    "autoscaling" "v1" "HorizontalPodAutoscaler" "horizontalpodautoscalers" NS false "status" [2, None];
    "autoscaling" "v2beta2" "HorizontalPodAutoscaler" "horizontalpodautoscalers" NS false "status" [12, Some(26)];
    "autoscaling" "v2beta1" "HorizontalPodAutoscaler" "horizontalpodautoscalers" NS false "status" [8, Some(25)];
    "batch" "v1" "CronJob" "cronjobs" NS false "status" [21, None];
    "batch" "v1" "Job" "jobs" NS false "status" [2, None];
    "batch" "v1beta1" "CronJob" "cronjobs" NS false "status" [8, Some(25)];
    "certificates.k8s.io" "v1" "CertificateSigningRequest" "certificatesigningrequests" CL false "status approval" [19, None];
    "coordination.k8s.io" "v1" "Lease" "leases" NS false "" [14, None];
    "discovery.k8s.io" "v1" "EndpointSlice" "endpointslices" NS false "" [21, None];
    "events.k8s.io" "v1" "Event" "events" NS false "" [19, None];
    "events.k8s.io" "v1beta1" "Event" "events" NS false "" [12, Some(25)];
    "extensions" "v1beta1" "DaemonSet" "daemonsets" NS false "status" [2, Some(16)];
    "extensions" "v1beta1" "Deployment" "deployments" NS false "status scale rollback" [2, Some(16)];
    "extensions" "v1beta1" "Ingress" "ingresses" NS false "status" [2, Some(22)];
    "extensions" "v1beta1" "NetworkPolicy" "networkpolicies" NS false "" [3, Some(16)];
    "extensions" "v1beta1" "PodSecurityPolicy" "podsecuritypolicies" CL false "" [3, Some(16)];
    "extensions" "v1beta1" "ReplicaSet" "replicasets" NS false "status scale" [2, Some(16)];
    "flowcontrol.apiserver.k8s.io" "v1" "FlowSchema" "flowschemas" CL false "status" [29, None];
    "flowcontrol.apiserver.k8s.io" "v1" "PriorityLevelConfiguration" "prioritylevelconfigurations" CL false "status" [29, None];
    "flowcontrol.apiserver.k8s.io" "v1beta3" "FlowSchema" "flowschemas" CL false "status" [26, Some(32)];
    "flowcontrol.apiserver.k8s.io" "v1beta3" "PriorityLevelConfiguration" "prioritylevelconfigurations" CL false "status" [26, Some(32)];
    "flowcontrol.apiserver.k8s.io" "v1beta2" "FlowSchema" "flowschemas" CL false "status" [23, Some(29)];
    "flowcontrol.apiserver.k8s.io" "v1beta2" "PriorityLevelConfiguration" "prioritylevelconfigurations" CL false "status" [23, Some(29)];
    "networking.k8s.io" "v1" "IngressClass" "ingressclasses" CL false "" [19, None];
    "networking.k8s.io" "v1" "Ingress" "ingresses" NS false "status" [19, None];
    "networking.k8s.io" "v1" "NetworkPolicy" "networkpolicies" NS false "" [7, None];
    "networking.k8s.io" "v1" "IPAddress" "ipaddresses" CL false "" [33, None];
    "networking.k8s.io" "v1" "ServiceCIDR" "servicecidrs" CL false "status" [33, None];
    "networking.k8s.io" "v1beta1" "Ingress" "ingresses" NS false "status" [14, Some(22)];
    "node.k8s.io" "v1" "RuntimeClass" "runtimeclasses" CL false "" [20, None];
    "policy" "v1" "PodDisruptionBudget" "poddisruptionbudgets" NS false "status" [21, None];
    "policy" "v1beta1" "PodDisruptionBudget" "poddisruptionbudgets" NS false "status" [5, Some(25)];
    "policy" "v1beta1" "PodSecurityPolicy" "podsecuritypolicies" CL false "" [10, Some(25)];
    "rbac.authorization.k8s.io" "v1" "ClusterRoleBinding" "clusterrolebindings" CL false "" [8, None];
    "rbac.authorization.k8s.io" "v1" "ClusterRole" "clusterroles" CL false "" [8, None];
    "rbac.authorization.k8s.io" "v1" "RoleBinding" "rolebindings" NS false "" [8, None];
    "rbac.authorization.k8s.io" "v1" "Role" "roles" NS false "" [8, None];
    "resource.k8s.io" "v1" "DeviceClass" "deviceclasses" CL false "" [34, None];
    "resource.k8s.io" "v1" "ResourceClaim" "resourceclaims" NS false "status" [34, None];
    "resource.k8s.io" "v1" "ResourceClaimTemplate" "resourceclaimtemplates" NS false "" [34, None];
    "resource.k8s.io" "v1" "ResourceSlice" "resourceslices" CL false "" [34, None];
    "scheduling.k8s.io" "v1" "PriorityClass" "priorityclasses" CL false "" [14, None];
    "storage.k8s.io" "v1" "CSIDriver" "csidrivers" CL false "" [18, None];
    "storage.k8s.io" "v1" "CSINode" "csinodes" CL false "" [17, None];
    "storage.k8s.io" "v1" "CSIStorageCapacity" "csistoragecapacities" NS false "" [24, None];
    "storage.k8s.io" "v1" "StorageClass" "storageclasses" CL false "" [6, None];
    "storage.k8s.io" "v1" "VolumeAttachment" "volumeattachments" CL false "status" [13, None];
    "storage.k8s.io" "v1" "VolumeAttributesClass" "volumeattributesclasses" CL false "" [34, None];
    "storage.k8s.io" "v1beta1" "CSIStorageCapacity" "csistoragecapacities" NS false "" [21, Some(27)];
];

/// Subresources added to a row from a minor version on.
static LATER_SUBRESOURCES: &[(&str, &str, &str, u32)] = &[("", "pods", "resize", 33)];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_by_kind_and_by_resource() {
        let c = Catalog::builtin_for(KubeVersion::V1_34);
        let pods = c.by_kind("", "v1", "Pod").unwrap();
        assert_eq!(pods.plural, "pods");
        assert!(pods.namespaced);
        assert_eq!(
            pods.subresource("exec").unwrap().kind,
            Gvk::new("", "v1", "PodExecOptions")
        );
        assert_eq!(
            pods.subresource("exec").unwrap().operations,
            vec![Operation::Connect]
        );
        assert_eq!(
            pods.subresource("eviction").unwrap().kind,
            Gvk::new("policy", "v1", "Eviction")
        );
        assert!(pods.subresource("resize").is_some());
        assert!(Catalog::builtin_for(KubeVersion::V1_32)
            .by_kind("", "v1", "Pod")
            .unwrap()
            .subresource("resize")
            .is_none());
        let ns = c.by_api_version_kind("v1", "Namespace").unwrap();
        assert!(!ns.namespaced);
        let d = c.by_resource("apps", "v1", "deployments").unwrap();
        assert_eq!(d.kind, "Deployment");
        assert_eq!(
            d.subresource("scale").unwrap().kind,
            Gvk::new("autoscaling", "v1", "Scale")
        );
        assert_eq!(
            c.by_kind("authentication.k8s.io", "v1", "TokenReview")
                .unwrap()
                .operations,
            vec![Operation::Create]
        );
        assert!(c.by_kind("extensions", "v1beta1", "Deployment").is_none());
        let all = Catalog::builtin();
        assert_eq!(
            all.by_kind("extensions", "v1beta1", "Deployment")
                .unwrap()
                .subresource("scale")
                .unwrap()
                .kind,
            Gvk::new("extensions", "v1beta1", "Scale")
        );
        assert_eq!(all.versions_of("apps", "deployments").count(), 3);
        assert_eq!(all.kinds_of("", "Pod").count(), 1);
    }

    /// Every registration of the equivalence table is a resource of the catalog, with the
    /// same kind, served in the same releases.
    #[test]
    fn agrees_with_the_equivalence_table() {
        for minor in 16..=40 {
            let v = KubeVersion::new(1, minor);
            let table = ResourceTable::builtin_for(v);
            let catalog = Catalog::builtin_for(v);
            for r in catalog.iter() {
                for s in std::iter::once("").chain(r.subresources.iter().map(|s| s.name.as_str())) {
                    if let Some(kind) = table.kind_for(&r.gvr(), s) {
                        let ours = if s.is_empty() {
                            r.gvk()
                        } else {
                            r.subresource(s).unwrap().kind.clone()
                        };
                        assert_eq!(ours, kind, "{} {s} in 1.{minor}", r.gvr());
                    }
                }
            }
            for r in catalog.iter() {
                for eq in table.equivalent_resources(&r.gvr(), "") {
                    assert!(
                        catalog
                            .by_resource(&eq.group, &eq.version, &eq.resource)
                            .is_some(),
                        "{eq} in 1.{minor}"
                    );
                }
            }
        }
    }

    #[test]
    fn operations_parse() {
        assert_eq!(Operation::parse("create"), Some(Operation::Create));
        assert_eq!(Operation::parse("CONNECT"), Some(Operation::Connect));
        assert_eq!(Operation::parse("PATCH"), None);
        assert_eq!(split_api_version("apps/v1"), ("apps", "v1"));
        assert_eq!(split_api_version("v1"), ("", "v1"));
        assert_eq!(api_version("", "v1"), "v1");
    }
}
