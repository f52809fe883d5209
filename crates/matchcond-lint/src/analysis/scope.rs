//! The requests a webhook's rules let through, as a small set of *worlds*: one per rule,
//! operation and main-resource-or-subresource, each knowing what the apiserver binds in it
//! (`object` null on DELETE, `oldObject` null on CREATE and CONNECT, `object` the options
//! on CONNECT, `request.subResource` absent for main resources, `request.namespace` absent
//! for cluster-scoped resources, `request.name` absent on CREATE with `generateName`).

use matchcond_dispatch::WebhookSpec;

use crate::finding::Operation;

/// The most worlds kept; beyond, the rules are merged.
const MAX_WORLDS: usize = 128;

/// Core and built-in resources that are cluster-scoped (their requests have no namespace).
const CLUSTER_SCOPED: &[&str] = &[
    "namespaces",
    "nodes",
    "persistentvolumes",
    "componentstatuses",
    "clusterroles",
    "clusterrolebindings",
    "customresourcedefinitions",
    "apiservices",
    "storageclasses",
    "csidrivers",
    "csinodes",
    "volumeattachments",
    "volumeattributesclasses",
    "priorityclasses",
    "validatingwebhookconfigurations",
    "mutatingwebhookconfigurations",
    "validatingadmissionpolicies",
    "validatingadmissionpolicybindings",
    "mutatingadmissionpolicies",
    "mutatingadmissionpolicybindings",
    "runtimeclasses",
    "certificatesigningrequests",
    "clustertrustbundles",
    "ingressclasses",
    "flowschemas",
    "prioritylevelconfigurations",
    "tokenreviews",
    "subjectaccessreviews",
    "selfsubjectaccessreviews",
    "selfsubjectrulesreviews",
    "selfsubjectreviews",
    "ipaddresses",
    "servicecidrs",
    "deviceclasses",
    "resourceslices",
    "storageversions",
    "storageversionmigrations",
];

/// One kind of request the rules let through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct World {
    /// The operation.
    pub(crate) op: Operation,
    /// The rule (its index; 0 for all when the rules were merged).
    pub(crate) rule: usize,
    /// A subresource is requested.
    pub(crate) sub: bool,
    /// The resource may be cluster-scoped (no `request.namespace`).
    pub(crate) cluster_scoped: bool,
    /// The objects always have `metadata.labels`: the rule selects only namespaces, whose
    /// `kubernetes.io/metadata.name` label the apiserver sets before admission (except on a
    /// CREATE by `generateName` that a mutating webhook sees).
    pub(crate) labelled: bool,
}

/// A set of worlds of a [`Scope`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Worlds(u128);

impl Worlds {
    pub(crate) const NONE: Worlds = Worlds(0);

    pub(crate) fn union(self, o: Worlds) -> Worlds {
        Worlds(self.0 | o.0)
    }

    pub(crate) fn intersect(self, o: Worlds) -> Worlds {
        Worlds(self.0 & o.0)
    }

    pub(crate) fn minus(self, o: Worlds) -> Worlds {
        Worlds(self.0 & !o.0)
    }

    pub(crate) fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub(crate) fn contains(self, i: usize) -> bool {
        i < 128 && self.0 & (1u128 << i) != 0
    }

    fn with(self, i: usize) -> Worlds {
        if i < 128 {
            Worlds(self.0 | (1u128 << i))
        } else {
            self
        }
    }
}

/// The worlds of a webhook.
#[derive(Clone, Debug)]
pub(crate) struct Scope {
    pub(crate) worlds: Vec<World>,
}

fn rule_worlds(
    operations: &[String],
    resources: &[String],
    scope: Option<&str>,
    index: usize,
    mutating: bool,
    out: &mut Vec<World>,
) {
    let namespaces = !resources.is_empty()
        && resources
            .iter()
            .all(|r| r.split_once('/').map_or(r.as_str(), |(r, _)| r) == "namespaces");
    let mut main = false;
    let mut sub = false;
    let mut cluster = false;
    for r in resources {
        let (res, subres) = r.split_once('/').unwrap_or((r.as_str(), ""));
        match subres {
            "" => main = true,
            "*" => {
                main = true;
                sub = true;
            }
            _ => sub = true,
        }
        if res == "*" || CLUSTER_SCOPED.contains(&res) {
            cluster = true;
        }
    }
    match scope {
        Some("Namespaced") => cluster = false,
        Some("Cluster") => cluster = true,
        _ => {}
    }
    let all = operations.iter().any(|o| o == "*");
    for op in Operation::ALL {
        if !(all || operations.iter().any(|o| o == op.as_str())) {
            continue;
        }
        for s in [false, true] {
            let possible = if s {
                sub
            } else {
                main && op != Operation::Connect
            };
            if !possible {
                continue;
            }
            out.push(World {
                op,
                rule: index,
                sub: s,
                cluster_scoped: cluster,
                labelled: namespaces && !(mutating && op == Operation::Create),
            });
        }
    }
}

impl Scope {
    /// The worlds of a webhook's rules (`mutating`: of a MutatingWebhookConfiguration).
    pub(crate) fn of(hook: &WebhookSpec, mutating: bool) -> Scope {
        let mut worlds = Vec::new();
        for (i, rule) in hook.rules.iter().enumerate() {
            rule_worlds(
                rule.operations.as_deref().unwrap_or_default(),
                rule.resources.as_deref().unwrap_or_default(),
                rule.scope.as_deref(),
                i,
                mutating,
                &mut worlds,
            );
        }
        if worlds.len() > MAX_WORLDS {
            let mut merged: Vec<World> = Vec::new();
            for w in worlds {
                match merged.iter_mut().find(|m| m.op == w.op && m.sub == w.sub) {
                    Some(m) => {
                        m.cluster_scoped |= w.cluster_scoped;
                        m.labelled &= w.labelled;
                    }
                    None => merged.push(World { rule: 0, ..w }),
                }
            }
            worlds = merged;
        }
        Scope { worlds }
    }

    /// A scope of the given operations on namespaced main resources and their
    /// subresources (for tests and expressions without rules).
    #[cfg(test)]
    pub(crate) fn of_operations(ops: &[Operation]) -> Scope {
        let mut worlds = Vec::new();
        for &op in ops {
            for sub in [false, true] {
                if op == Operation::Connect && !sub {
                    continue;
                }
                worlds.push(World {
                    op,
                    rule: 0,
                    sub,
                    cluster_scoped: false,
                    labelled: false,
                });
            }
        }
        Scope { worlds }
    }

    /// Every world.
    pub(crate) fn all(&self) -> Worlds {
        self.select(|_| true)
    }

    /// The worlds where `f` holds.
    pub(crate) fn select(&self, f: impl Fn(&World) -> bool) -> Worlds {
        self.worlds
            .iter()
            .enumerate()
            .filter(|(_, w)| f(w))
            .fold(Worlds::NONE, |acc, (i, _)| acc.with(i))
    }

    /// The worlds of these operations.
    pub(crate) fn with_ops(&self, ops: &[Operation]) -> Worlds {
        self.select(|w| ops.contains(&w.op))
    }

    /// The operations of a set of worlds, in order.
    pub(crate) fn operations(&self, set: Worlds) -> Vec<Operation> {
        let mut ops: Vec<Operation> = self
            .worlds
            .iter()
            .enumerate()
            .filter(|(i, _)| set.contains(*i))
            .map(|(_, w)| w.op)
            .collect();
        ops.sort();
        ops.dedup();
        ops
    }
}

/// `CREATE, UPDATE and DELETE`.
pub(crate) fn op_list(ops: &[Operation]) -> String {
    let names: Vec<&str> = ops.iter().map(|o| o.as_str()).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use matchcond_dispatch::load_documents;

    fn scope(rules: &str) -> Scope {
        let text = format!("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {{name: x}}\nwebhooks:\n- name: a.b.c\n  rules: {rules}\n");
        let c = load_documents(&text).unwrap().remove(0);
        Scope::of(&c.webhooks[0], false)
    }

    #[test]
    fn worlds_of_rules() {
        let s =
            scope("[{operations: ['*'], apiGroups: [''], apiVersions: [v1], resources: [pods]}]");
        assert_eq!(
            s.operations(s.all()),
            [Operation::Create, Operation::Update, Operation::Delete]
        );
        assert!(s.worlds.iter().all(|w| !w.sub && !w.cluster_scoped));
        let s = scope(
            "[{operations: ['*'], apiGroups: [''], apiVersions: [v1], resources: ['pods/*']}]",
        );
        assert_eq!(s.operations(s.all()), Operation::ALL);
        assert_eq!(s.worlds.len(), 7);
        let s = scope("[{operations: [CONNECT], apiGroups: [''], apiVersions: [v1], resources: ['pods/exec']}]");
        assert_eq!(s.worlds.len(), 1);
        assert!(s.worlds[0].sub);
        let s = scope(
            "[{operations: [CREATE], apiGroups: ['*'], apiVersions: ['*'], resources: ['*']}]",
        );
        assert!(s.worlds[0].cluster_scoped);
        let s = scope("[{operations: [CREATE], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: Namespaced}]");
        assert!(!s.worlds[0].cluster_scoped);
        let s = scope(
            "[{operations: [UPDATE], apiGroups: [''], apiVersions: [v1], resources: [nodes]}]",
        );
        assert!(s.worlds[0].cluster_scoped);
        assert_eq!(
            op_list(&[Operation::Create, Operation::Update, Operation::Delete]),
            "CREATE, UPDATE and DELETE"
        );
    }
}
