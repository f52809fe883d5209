//! Equivalent resources (apimachinery's `EquivalentResourceRegistry`): which
//! group/version/resources reach the same stored objects, and which kind each
//! resource/subresource serves. `matchPolicy: Equivalent` matches rules against them.

use std::collections::HashMap;

use matchcond_compiler::KubeVersion;

use crate::types::{Gvk, Gvr};

/// What the dispatcher needs from a resource-equivalence table.
pub trait ResourceMapper {
    /// The resources equivalent to `resource` for `subresource`, in registration order
    /// (including `resource` itself when registered).
    fn equivalent_resources(&self, resource: &Gvr, subresource: &str) -> Vec<Gvr>;
    /// The kind a resource/subresource serves, if registered.
    fn kind_for(&self, resource: &Gvr, subresource: &str) -> Option<Gvk>;
}

/// A resource-equivalence table, filled by registering the kind of every
/// resource/subresource (`RegisterKindFor`). Resources are equivalent when they share a
/// storage key; the default key is the group/resource, and colocated resources (stored
/// together across groups) register with a shared key.
#[derive(Clone, Debug, Default)]
pub struct ResourceTable {
    keys: HashMap<(String, String), String>,
    resources: HashMap<String, HashMap<String, Vec<Gvr>>>,
    kinds: HashMap<Gvr, HashMap<String, Gvk>>,
}

impl ResourceTable {
    /// An empty table (no resource has equivalents).
    pub fn new() -> ResourceTable {
        ResourceTable::default()
    }

    /// Registers the kind of a resource/subresource under the default key (its
    /// group/resource).
    pub fn register(&mut self, resource: Gvr, subresource: &str, kind: Gvk) {
        let key = resource.group_resource();
        self.register_with_key(&key, resource, subresource, kind);
    }

    /// Registers the kind of a resource/subresource under a storage key; resources with the
    /// same key are equivalent.
    pub fn register_with_key(&mut self, key: &str, resource: Gvr, subresource: &str, kind: Gvk) {
        self.kinds
            .entry(resource.clone())
            .or_default()
            .insert(subresource.to_owned(), kind);
        self.keys.insert(
            (resource.group.clone(), resource.resource.clone()),
            key.to_owned(),
        );
        self.resources
            .entry(key.to_owned())
            .or_default()
            .entry(subresource.to_owned())
            .or_default()
            .push(resource);
    }

    /// Registers the served versions of a CustomResourceDefinition as the apiserver's
    /// handler of custom resources does: each version's resource with its kind, and its
    /// `status` (the same kind) and `scale` (`autoscaling/v1` `Scale`) subresources when it
    /// has them; the versions are equivalent to each other.
    pub fn add_crd(&mut self, crd: &crate::request::crd::CustomResourceDefinition) {
        for v in crd.versions.iter().filter(|v| v.served) {
            let resource = Gvr::new(&crd.group, &v.name, &crd.plural);
            let kind = Gvk::new(&crd.group, &v.name, &crd.kind);
            if v.status {
                self.register(resource.clone(), "status", kind.clone());
            }
            if v.scale {
                self.register(
                    resource.clone(),
                    "scale",
                    Gvk::new("autoscaling", "v1", "Scale"),
                );
            }
            self.register(resource, "", kind);
        }
    }

    /// The built-in API groups' multi-version and colocated resources, every version that
    /// kube-apiserver has served (including removed ones such as `extensions/v1beta1` and
    /// `apps/v1beta1` deployments), with their main-resource, `status` and `scale` kinds.
    pub fn builtin() -> ResourceTable {
        ResourceTable::from_entries(BUILTIN.iter())
    }

    /// The part of [`ResourceTable::builtin`] that kube-apiserver of `version` serves by
    /// default.
    pub fn builtin_for(version: KubeVersion) -> ResourceTable {
        ResourceTable::from_entries(BUILTIN.iter().filter(|e| version.within(e.since, e.until)))
    }

    fn from_entries<'a>(entries: impl Iterator<Item = &'a Entry>) -> ResourceTable {
        let mut t = ResourceTable::new();
        for e in entries {
            let (kg, kv) = e.kind_gv.unwrap_or((e.group, e.version));
            t.register_with_key(
                e.key,
                Gvr::new(e.group, e.version, e.resource),
                e.subresource,
                Gvk::new(kg, kv, e.kind),
            );
        }
        t
    }
}

impl ResourceMapper for ResourceTable {
    fn equivalent_resources(&self, resource: &Gvr, subresource: &str) -> Vec<Gvr> {
        self.keys
            .get(&(resource.group.clone(), resource.resource.clone()))
            .and_then(|k| self.resources.get(k))
            .and_then(|by_sub| by_sub.get(subresource))
            .cloned()
            .unwrap_or_default()
    }

    fn kind_for(&self, resource: &Gvr, subresource: &str) -> Option<Gvk> {
        self.kinds
            .get(resource)
            .and_then(|m| m.get(subresource))
            .cloned()
    }
}

/// One registration of the built-in table.
struct Entry {
    key: &'static str,
    group: &'static str,
    version: &'static str,
    resource: &'static str,
    subresource: &'static str,
    /// The kind's group/version when it differs from the resource's (`scale` kinds).
    kind_gv: Option<(&'static str, &'static str)>,
    kind: &'static str,
    /// First minor version serving it (by default).
    since: u32,
    /// First minor version no longer serving it.
    until: Option<u32>,
}

macro_rules! entries {
    ($( $key:literal $group:literal $version:literal $resource:literal $sub:literal
        $kind_gv:expr, $kind:literal [$since:literal, $until:expr] ;)*) => {
        &[$( Entry {
            key: $key, group: $group, version: $version, resource: $resource,
            subresource: $sub, kind_gv: $kind_gv, kind: $kind, since: $since, until: $until,
        }, )*]
    };
}

const AUTOSCALING_V1: Option<(&str, &str)> = Some(("autoscaling", "v1"));
const EXT_V1BETA1: Option<(&str, &str)> = Some(("extensions", "v1beta1"));

/// The built-in registrations, in the order kube-apiserver installs them (preferred
/// versions first within a group).
static BUILTIN: &[Entry] = entries![
    "deployments" "apps" "v1" "deployments" "" None, "Deployment" [9, None];
    "deployments" "apps" "v1" "deployments" "status" None, "Deployment" [9, None];
    "deployments" "apps" "v1" "deployments" "scale" AUTOSCALING_V1, "Scale" [9, None];
    "deployments" "apps" "v1beta2" "deployments" "" None, "Deployment" [8, Some(16)];
    "deployments" "apps" "v1beta2" "deployments" "status" None, "Deployment" [8, Some(16)];
    "deployments" "apps" "v1beta2" "deployments" "scale" None, "Scale" [8, Some(16)];
    "deployments" "apps" "v1beta1" "deployments" "" None, "Deployment" [6, Some(16)];
    "deployments" "apps" "v1beta1" "deployments" "status" None, "Deployment" [6, Some(16)];
    "deployments" "apps" "v1beta1" "deployments" "scale" None, "Scale" [6, Some(16)];
    "deployments" "apps" "v1beta1" "deployments" "rollback" None, "DeploymentRollback" [6, Some(16)];
    "deployments" "extensions" "v1beta1" "deployments" "" None, "Deployment" [2, Some(16)];
    "deployments" "extensions" "v1beta1" "deployments" "status" None, "Deployment" [2, Some(16)];
    "deployments" "extensions" "v1beta1" "deployments" "scale" EXT_V1BETA1, "Scale" [2, Some(16)];
    "deployments" "extensions" "v1beta1" "deployments" "rollback" None, "DeploymentRollback" [2, Some(16)];
    "replicasets" "apps" "v1" "replicasets" "" None, "ReplicaSet" [9, None];
    "replicasets" "apps" "v1" "replicasets" "status" None, "ReplicaSet" [9, None];
    "replicasets" "apps" "v1" "replicasets" "scale" AUTOSCALING_V1, "Scale" [9, None];
    "replicasets" "apps" "v1beta2" "replicasets" "" None, "ReplicaSet" [8, Some(16)];
    "replicasets" "apps" "v1beta2" "replicasets" "status" None, "ReplicaSet" [8, Some(16)];
    "replicasets" "apps" "v1beta2" "replicasets" "scale" None, "Scale" [8, Some(16)];
    "replicasets" "extensions" "v1beta1" "replicasets" "" None, "ReplicaSet" [2, Some(16)];
    "replicasets" "extensions" "v1beta1" "replicasets" "status" None, "ReplicaSet" [2, Some(16)];
    "replicasets" "extensions" "v1beta1" "replicasets" "scale" EXT_V1BETA1, "Scale" [2, Some(16)];
    "daemonsets" "apps" "v1" "daemonsets" "" None, "DaemonSet" [9, None];
    "daemonsets" "apps" "v1" "daemonsets" "status" None, "DaemonSet" [9, None];
    "daemonsets" "apps" "v1beta2" "daemonsets" "" None, "DaemonSet" [8, Some(16)];
    "daemonsets" "apps" "v1beta2" "daemonsets" "status" None, "DaemonSet" [8, Some(16)];
    "daemonsets" "extensions" "v1beta1" "daemonsets" "" None, "DaemonSet" [2, Some(16)];
    "daemonsets" "extensions" "v1beta1" "daemonsets" "status" None, "DaemonSet" [2, Some(16)];
    "statefulsets" "apps" "v1" "statefulsets" "" None, "StatefulSet" [9, None];
    "statefulsets" "apps" "v1" "statefulsets" "status" None, "StatefulSet" [9, None];
    "statefulsets" "apps" "v1" "statefulsets" "scale" AUTOSCALING_V1, "Scale" [9, None];
    "statefulsets" "apps" "v1beta2" "statefulsets" "" None, "StatefulSet" [8, Some(16)];
    "statefulsets" "apps" "v1beta2" "statefulsets" "status" None, "StatefulSet" [8, Some(16)];
    "statefulsets" "apps" "v1beta2" "statefulsets" "scale" None, "Scale" [8, Some(16)];
    "statefulsets" "apps" "v1beta1" "statefulsets" "" None, "StatefulSet" [5, Some(16)];
    "statefulsets" "apps" "v1beta1" "statefulsets" "status" None, "StatefulSet" [5, Some(16)];
    "statefulsets" "apps" "v1beta1" "statefulsets" "scale" None, "Scale" [8, Some(16)];
    "replicationcontrollers" "" "v1" "replicationcontrollers" "" None, "ReplicationController" [0, None];
    "replicationcontrollers" "" "v1" "replicationcontrollers" "status" None, "ReplicationController" [0, None];
    "replicationcontrollers" "" "v1" "replicationcontrollers" "scale" AUTOSCALING_V1, "Scale" [2, None];
    "events" "" "v1" "events" "" None, "Event" [0, None];
    "events" "events.k8s.io" "v1" "events" "" None, "Event" [19, None];
    "events" "events.k8s.io" "v1beta1" "events" "" None, "Event" [12, Some(25)];
    "horizontalpodautoscalers" "autoscaling" "v2" "horizontalpodautoscalers" "" None, "HorizontalPodAutoscaler" [23, None];
    "horizontalpodautoscalers" "autoscaling" "v2" "horizontalpodautoscalers" "status" None, "HorizontalPodAutoscaler" [23, None];
    "horizontalpodautoscalers" "autoscaling" "v1" "horizontalpodautoscalers" "" None, "HorizontalPodAutoscaler" [2, None];
    "horizontalpodautoscalers" "autoscaling" "v1" "horizontalpodautoscalers" "status" None, "HorizontalPodAutoscaler" [2, None];
    "horizontalpodautoscalers" "autoscaling" "v2beta2" "horizontalpodautoscalers" "" None, "HorizontalPodAutoscaler" [12, Some(26)];
    "horizontalpodautoscalers" "autoscaling" "v2beta2" "horizontalpodautoscalers" "status" None, "HorizontalPodAutoscaler" [12, Some(26)];
    "horizontalpodautoscalers" "autoscaling" "v2beta1" "horizontalpodautoscalers" "" None, "HorizontalPodAutoscaler" [8, Some(25)];
    "horizontalpodautoscalers" "autoscaling" "v2beta1" "horizontalpodautoscalers" "status" None, "HorizontalPodAutoscaler" [8, Some(25)];
    "cronjobs" "batch" "v1" "cronjobs" "" None, "CronJob" [21, None];
    "cronjobs" "batch" "v1" "cronjobs" "status" None, "CronJob" [21, None];
    "cronjobs" "batch" "v1beta1" "cronjobs" "" None, "CronJob" [8, Some(25)];
    "cronjobs" "batch" "v1beta1" "cronjobs" "status" None, "CronJob" [8, Some(25)];
    "poddisruptionbudgets" "policy" "v1" "poddisruptionbudgets" "" None, "PodDisruptionBudget" [21, None];
    "poddisruptionbudgets" "policy" "v1" "poddisruptionbudgets" "status" None, "PodDisruptionBudget" [21, None];
    "poddisruptionbudgets" "policy" "v1beta1" "poddisruptionbudgets" "" None, "PodDisruptionBudget" [5, Some(25)];
    "poddisruptionbudgets" "policy" "v1beta1" "poddisruptionbudgets" "status" None, "PodDisruptionBudget" [5, Some(25)];
    "ingresses" "networking.k8s.io" "v1" "ingresses" "" None, "Ingress" [19, None];
    "ingresses" "networking.k8s.io" "v1" "ingresses" "status" None, "Ingress" [19, None];
    "ingresses" "networking.k8s.io" "v1beta1" "ingresses" "" None, "Ingress" [14, Some(22)];
    "ingresses" "networking.k8s.io" "v1beta1" "ingresses" "status" None, "Ingress" [14, Some(22)];
    "ingresses" "extensions" "v1beta1" "ingresses" "" None, "Ingress" [2, Some(22)];
    "ingresses" "extensions" "v1beta1" "ingresses" "status" None, "Ingress" [2, Some(22)];
    "networkpolicies" "networking.k8s.io" "v1" "networkpolicies" "" None, "NetworkPolicy" [7, None];
    "networkpolicies" "extensions" "v1beta1" "networkpolicies" "" None, "NetworkPolicy" [3, Some(16)];
    "podsecuritypolicies" "policy" "v1beta1" "podsecuritypolicies" "" None, "PodSecurityPolicy" [10, Some(25)];
    "podsecuritypolicies" "extensions" "v1beta1" "podsecuritypolicies" "" None, "PodSecurityPolicy" [3, Some(16)];
    "flowschemas" "flowcontrol.apiserver.k8s.io" "v1" "flowschemas" "" None, "FlowSchema" [29, None];
    "flowschemas" "flowcontrol.apiserver.k8s.io" "v1" "flowschemas" "status" None, "FlowSchema" [29, None];
    "flowschemas" "flowcontrol.apiserver.k8s.io" "v1beta3" "flowschemas" "" None, "FlowSchema" [26, Some(32)];
    "flowschemas" "flowcontrol.apiserver.k8s.io" "v1beta3" "flowschemas" "status" None, "FlowSchema" [26, Some(32)];
    "flowschemas" "flowcontrol.apiserver.k8s.io" "v1beta2" "flowschemas" "" None, "FlowSchema" [23, Some(29)];
    "flowschemas" "flowcontrol.apiserver.k8s.io" "v1beta2" "flowschemas" "status" None, "FlowSchema" [23, Some(29)];
    "prioritylevelconfigurations" "flowcontrol.apiserver.k8s.io" "v1" "prioritylevelconfigurations" "" None, "PriorityLevelConfiguration" [29, None];
    "prioritylevelconfigurations" "flowcontrol.apiserver.k8s.io" "v1" "prioritylevelconfigurations" "status" None, "PriorityLevelConfiguration" [29, None];
    "prioritylevelconfigurations" "flowcontrol.apiserver.k8s.io" "v1beta3" "prioritylevelconfigurations" "" None, "PriorityLevelConfiguration" [26, Some(32)];
    "prioritylevelconfigurations" "flowcontrol.apiserver.k8s.io" "v1beta3" "prioritylevelconfigurations" "status" None, "PriorityLevelConfiguration" [26, Some(32)];
    "prioritylevelconfigurations" "flowcontrol.apiserver.k8s.io" "v1beta2" "prioritylevelconfigurations" "" None, "PriorityLevelConfiguration" [23, Some(29)];
    "prioritylevelconfigurations" "flowcontrol.apiserver.k8s.io" "v1beta2" "prioritylevelconfigurations" "status" None, "PriorityLevelConfiguration" [23, Some(29)];
    "csistoragecapacities" "storage.k8s.io" "v1" "csistoragecapacities" "" None, "CSIStorageCapacity" [24, None];
    "csistoragecapacities" "storage.k8s.io" "v1beta1" "csistoragecapacities" "" None, "CSIStorageCapacity" [21, Some(27)];
];

#[cfg(test)]
mod tests {
    use super::*;

    /// A CRD's served versions are equivalent, with their status and scale.
    #[test]
    fn a_crd_registers_its_served_versions() {
        let (crds, errors) = crate::request::crd::load_crds(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions:\n  - {name: v1, served: true, storage: true, subresources: {status: {}, scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}}}\n  - {name: v1beta1, served: true}\n  - {name: v1alpha1, served: false}\n",
        );
        assert!(errors.is_empty(), "{errors:?}");
        let mut t = ResourceTable::builtin();
        for c in &crds {
            t.add_crd(c);
        }
        let v1 = Gvr::new("example.com", "v1", "widgets");
        let beta = Gvr::new("example.com", "v1beta1", "widgets");
        assert_eq!(
            t.equivalent_resources(&beta, ""),
            vec![v1.clone(), beta.clone()]
        );
        assert_eq!(t.equivalent_resources(&v1, "status"), vec![v1.clone()]);
        assert_eq!(
            t.kind_for(&v1, "scale"),
            Some(Gvk::new("autoscaling", "v1", "Scale"))
        );
        assert_eq!(
            t.kind_for(&beta, ""),
            Some(Gvk::new("example.com", "v1beta1", "Widget"))
        );
        assert_eq!(
            t.kind_for(&Gvr::new("example.com", "v1alpha1", "widgets"), ""),
            None
        );
    }

    #[test]
    fn equivalents_in_registration_order() {
        let t = ResourceTable::builtin();
        let apps_v1 = Gvr::new("apps", "v1", "deployments");
        assert_eq!(
            t.equivalent_resources(&apps_v1, ""),
            vec![
                apps_v1.clone(),
                Gvr::new("apps", "v1beta2", "deployments"),
                Gvr::new("apps", "v1beta1", "deployments"),
                Gvr::new("extensions", "v1beta1", "deployments"),
            ]
        );
        assert_eq!(
            t.equivalent_resources(&apps_v1, "rollback"),
            vec![
                Gvr::new("apps", "v1beta1", "deployments"),
                Gvr::new("extensions", "v1beta1", "deployments"),
            ]
        );
        assert_eq!(
            t.kind_for(&apps_v1, "scale"),
            Some(Gvk::new("autoscaling", "v1", "Scale"))
        );
        assert_eq!(
            t.kind_for(&Gvr::new("extensions", "v1beta1", "deployments"), "scale"),
            Some(Gvk::new("extensions", "v1beta1", "Scale"))
        );
        assert_eq!(
            t.kind_for(&Gvr::new("apps", "v1beta2", "deployments"), "scale"),
            Some(Gvk::new("apps", "v1beta2", "Scale"))
        );
        assert_eq!(t.kind_for(&apps_v1, "exec"), None);
        assert!(t
            .equivalent_resources(&Gvr::new("", "v1", "pods"), "")
            .is_empty());
    }

    #[test]
    fn served_by_version() {
        let t = ResourceTable::builtin_for(KubeVersion::V1_36);
        let apps_v1 = Gvr::new("apps", "v1", "deployments");
        assert_eq!(t.equivalent_resources(&apps_v1, ""), vec![apps_v1]);
        let events = t.equivalent_resources(&Gvr::new("", "v1", "events"), "");
        assert_eq!(
            events,
            vec![
                Gvr::new("", "v1", "events"),
                Gvr::new("events.k8s.io", "v1", "events")
            ]
        );
        let hpa = t.equivalent_resources(
            &Gvr::new("autoscaling", "v1", "horizontalpodautoscalers"),
            "status",
        );
        assert_eq!(hpa.len(), 2);
        let t = ResourceTable::builtin_for(KubeVersion::V1_30);
        let fs = t.equivalent_resources(
            &Gvr::new("flowcontrol.apiserver.k8s.io", "v1", "flowschemas"),
            "",
        );
        assert_eq!(fs.len(), 2);
        let t = ResourceTable::builtin_for(KubeVersion::V1_28);
        let fs = t.equivalent_resources(
            &Gvr::new("flowcontrol.apiserver.k8s.io", "v1beta3", "flowschemas"),
            "",
        );
        assert_eq!(
            fs,
            vec![
                Gvr::new("flowcontrol.apiserver.k8s.io", "v1beta3", "flowschemas"),
                Gvr::new("flowcontrol.apiserver.k8s.io", "v1beta2", "flowschemas"),
            ]
        );
    }

    #[test]
    fn custom_keys() {
        let mut t = ResourceTable::new();
        t.register_with_key(
            "widgets",
            Gvr::new("a.example.com", "v1", "widgets"),
            "",
            Gvk::new("a.example.com", "v1", "Widget"),
        );
        t.register_with_key(
            "widgets",
            Gvr::new("b.example.com", "v2", "gadgets"),
            "",
            Gvk::new("b.example.com", "v2", "Gadget"),
        );
        assert_eq!(
            t.equivalent_resources(&Gvr::new("b.example.com", "v9", "gadgets"), ""),
            vec![
                Gvr::new("a.example.com", "v1", "widgets"),
                Gvr::new("b.example.com", "v2", "gadgets")
            ]
        );
    }
}
