//! Rule matching (`predicates/rules/rules.go`): scope, operation, group, version and
//! resource, in that order.

use k8s_openapi::api::admissionregistration::v1::RuleWithOperations;

use crate::types::{Gvk, Gvr, GROUP};

/// The attributes a rule is matched against.
#[derive(Clone, Copy, Debug)]
pub struct RuleAttributes<'a> {
    /// The resource (possibly an equivalent one).
    pub resource: &'a Gvr,
    /// The subresource (`""` for the main resource).
    pub subresource: &'a str,
    /// The namespace (`""` for cluster-scoped objects; the namespace's own name for
    /// requests on a Namespace).
    pub namespace: &'a str,
    /// The operation (`CREATE`, `UPDATE`, `DELETE`, `CONNECT`).
    pub operation: &'a str,
}

fn exact_or_wildcard(items: Option<&Vec<String>>, requested: &str) -> bool {
    items
        .into_iter()
        .flatten()
        .any(|i| i == "*" || i == requested)
}

fn is_namespace_resource(r: &Gvr) -> bool {
    r.group.is_empty() && r.version == "v1" && r.resource == "namespaces"
}

fn scope_matches(rule: &RuleWithOperations, a: &RuleAttributes<'_>) -> bool {
    match rule.scope.as_deref() {
        None | Some("*") => true,
        Some("Namespaced") => !is_namespace_resource(a.resource) && !a.namespace.is_empty(),
        Some("Cluster") => is_namespace_resource(a.resource) || a.namespace.is_empty(),
        Some(_) => false,
    }
}

fn resource_matches(rule: &RuleWithOperations, a: &RuleAttributes<'_>) -> bool {
    rule.resources.iter().flatten().any(|entry| {
        let (res, sub) = entry.split_once('/').unwrap_or((entry, ""));
        (res == "*" || res == a.resource.resource) && (sub == "*" || sub == a.subresource)
    })
}

/// Whether a rule matches the attributes: `Matcher.Matches()`.
pub fn rule_matches(rule: &RuleWithOperations, a: &RuleAttributes<'_>) -> bool {
    scope_matches(rule, a)
        && rule
            .operations
            .iter()
            .flatten()
            .any(|op| op == "*" || op == a.operation)
        && exact_or_wildcard(rule.api_groups.as_ref(), &a.resource.group)
        && exact_or_wildcard(rule.api_versions.as_ref(), &a.resource.version)
        && resource_matches(rule, a)
}

/// The kinds whose requests never reach API-configured webhooks
/// (`IsExemptAdmissionConfigurationResource`).
pub const EXEMPT_KINDS: [&str; 6] = [
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding",
];

/// Whether a request for this kind is exempt from API-configured webhooks: webhook and
/// admission-policy configuration kinds of `admissionregistration.k8s.io` (by kind, not
/// resource).
pub fn is_exempt_kind(kind: &Gvk) -> bool {
    kind.group == GROUP && EXEMPT_KINDS.contains(&kind.kind.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(
        ops: &[&str],
        groups: &[&str],
        versions: &[&str],
        res: &[&str],
        scope: Option<&str>,
    ) -> RuleWithOperations {
        let v = |x: &[&str]| Some(x.iter().map(|s| (*s).to_owned()).collect());
        RuleWithOperations {
            operations: v(ops),
            api_groups: v(groups),
            api_versions: v(versions),
            resources: v(res),
            scope: scope.map(str::to_owned),
        }
    }

    fn attrs<'a>(r: &'a Gvr, sub: &'a str, ns: &'a str, op: &'a str) -> RuleAttributes<'a> {
        RuleAttributes {
            resource: r,
            subresource: sub,
            namespace: ns,
            operation: op,
        }
    }

    // The table of rules_test.go (TestGroup, TestVersion, TestOperation, TestResource,
    // TestScope).
    #[test]
    fn resources_table() {
        let r = Gvr::new("g", "v", "r");
        let r2 = Gvr::new("2", "v", "r2");
        let r3 = Gvr::new("2", "v", "r3");
        let r4 = Gvr::new("2", "v", "r4");
        let check = |res: &[&str], yes: &[(&Gvr, &str)], no: &[(&Gvr, &str)]| {
            let rl = rule(&["*"], &["*"], &["*"], res, None);
            for (g, s) in yes {
                assert!(
                    rule_matches(&rl, &attrs(g, s, "ns", "CREATE")),
                    "{res:?} {g:?} {s}"
                );
            }
            for (g, s) in no {
                assert!(
                    !rule_matches(&rl, &attrs(g, s, "ns", "CREATE")),
                    "{res:?} {g:?} {s}"
                );
            }
        };
        check(
            &["*"],
            &[(&r, ""), (&r2, "")],
            &[(&r, "exec"), (&r2, "proxy")],
        );
        check(
            &["r/*"],
            &[(&r, ""), (&r, "exec")],
            &[(&r2, ""), (&r2, "proxy")],
        );
        check(
            &["r/*", "r2"],
            &[(&r, ""), (&r, "exec"), (&r2, "")],
            &[(&r2, "proxy")],
        );
        check(
            &["*/proxy", "*/exec"],
            &[(&r, "exec"), (&r2, "proxy"), (&r3, "proxy")],
            &[(&r, ""), (&r2, ""), (&r4, "scale")],
        );
        check(&["*/*"], &[(&r, ""), (&r, "exec"), (&r4, "scale")], &[]);
        check(&[], &[], &[(&r, "")]);
    }

    #[test]
    fn groups_versions_operations() {
        let r = Gvr::new("g1", "v1", "r");
        let rl = rule(&["CREATE"], &["g1", "g2"], &["v1"], &["r"], None);
        assert!(rule_matches(&rl, &attrs(&r, "", "", "CREATE")));
        assert!(!rule_matches(
            &rl,
            &attrs(&Gvr::new("g3", "v1", "r"), "", "", "CREATE")
        ));
        assert!(!rule_matches(
            &rl,
            &attrs(&Gvr::new("g1", "v2", "r"), "", "", "CREATE")
        ));
        for op in ["UPDATE", "DELETE", "CONNECT"] {
            assert!(!rule_matches(&rl, &attrs(&r, "", "", op)));
        }
        let all = rule(&["*"], &["*"], &["*"], &["*"], None);
        for op in ["CREATE", "UPDATE", "DELETE", "CONNECT"] {
            assert!(rule_matches(&all, &attrs(&r, "", "", op)));
        }
        let connect = rule(&["CONNECT"], &["*"], &["*"], &["*"], None);
        assert!(rule_matches(&connect, &attrs(&r, "", "", "CONNECT")));
        assert!(!rule_matches(&connect, &attrs(&r, "", "", "CREATE")));
        let no_groups = rule(&["*"], &[], &["*"], &["*"], None);
        assert!(!rule_matches(&no_groups, &attrs(&r, "", "", "CREATE")));
    }

    #[test]
    fn scopes() {
        let r = Gvr::new("g", "v", "r");
        let ns = Gvr::new("", "v1", "namespaces");
        let cluster = rule(&["*"], &["*"], &["*"], &["*", "*/*"], Some("Cluster"));
        let namespaced = rule(&["*"], &["*"], &["*"], &["*", "*/*"], Some("Namespaced"));
        let all = rule(&["*"], &["*"], &["*"], &["*", "*/*"], Some("*"));
        let bogus = rule(&["*"], &["*"], &["*"], &["*", "*/*"], Some("Other"));
        // cluster-scoped objects
        assert!(rule_matches(&cluster, &attrs(&r, "", "", "CREATE")));
        assert!(rule_matches(&cluster, &attrs(&r, "exec", "", "CREATE")));
        assert!(!rule_matches(&namespaced, &attrs(&r, "", "", "CREATE")));
        // namespaced objects
        assert!(!rule_matches(&cluster, &attrs(&r, "", "ns", "CREATE")));
        assert!(rule_matches(&namespaced, &attrs(&r, "", "ns", "CREATE")));
        assert!(rule_matches(
            &namespaced,
            &attrs(&r, "exec", "ns", "CREATE")
        ));
        // namespaces, with or without the namespace set, and their subresources
        for (sub, n) in [("", ""), ("", "ns"), ("finalize", ""), ("finalize", "ns")] {
            assert!(rule_matches(&cluster, &attrs(&ns, sub, n, "CREATE")));
            assert!(!rule_matches(&namespaced, &attrs(&ns, sub, n, "CREATE")));
        }
        // other groups/versions of "namespaces" are not the Namespace resource
        let other = Gvr::new("other", "v1", "namespaces");
        assert!(rule_matches(
            &namespaced,
            &attrs(&other, "", "ns", "CREATE")
        ));
        assert!(rule_matches(&all, &attrs(&r, "", "ns", "CREATE")));
        assert!(!rule_matches(&bogus, &attrs(&r, "", "ns", "CREATE")));
    }

    #[test]
    fn exempt_kinds() {
        for k in EXEMPT_KINDS {
            assert!(is_exempt_kind(&Gvk::new(GROUP, "v1", k)));
            assert!(!is_exempt_kind(&Gvk::new("example.com", "v1", k)));
        }
        assert!(!is_exempt_kind(&Gvk::new(GROUP, "v1", "Other")));
    }
}
