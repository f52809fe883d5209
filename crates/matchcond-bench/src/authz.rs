//! The workload's mock authorizer (bench README), one rule shared by the engine, the
//! floor and the cel crate baseline.
//!
//! Members of `system:masters` may do anything; the verb `breakglass` is allowed only to
//! the group `breakglass-admins`; `create` on core `pods` is allowed to users named
//! `system:serviceaccount:kube-system:*` and, in the namespace `shop`, to the group
//! `oidc:shop-devs`; everything else is denied. It decides in constant time.

use matchcond::authz::{Attributes, Authorizer, AuthzResponse};

/// One resource check, as the mock sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Check<'a> {
    /// The verb.
    pub verb: &'a str,
    /// The API group (`""` for core).
    pub group: &'a str,
    /// The resource.
    pub resource: &'a str,
    /// The namespace (`""` for none).
    pub namespace: &'a str,
}

/// The mock's decision for a user (name and groups) and a resource check (`None` for a
/// path check).
pub fn mock_allows<'g, G>(user: &str, groups: G, check: Option<Check<'_>>) -> bool
where
    G: IntoIterator<Item = &'g str> + Clone,
{
    let in_group = |g: &str| groups.clone().into_iter().any(|x| x == g);
    if in_group("system:masters") {
        return true;
    }
    let Some(c) = check else {
        return false;
    };
    if c.verb == "breakglass" {
        return in_group("breakglass-admins");
    }
    if c.verb == "create" && c.group.is_empty() && c.resource == "pods" {
        return user.starts_with("system:serviceaccount:kube-system:")
            || (c.namespace == "shop" && in_group("oidc:shop-devs"));
    }
    false
}

/// The mock as the engine's [`Authorizer`].
#[derive(Clone, Copy, Debug, Default)]
pub struct MockAuthorizer;

impl Authorizer for MockAuthorizer {
    fn authorize(&self, a: &Attributes<'_>) -> AuthzResponse {
        let check = a.resource.as_ref().map(|r| Check {
            verb: a.verb,
            group: r.api_group,
            resource: r.resource,
            namespace: r.namespace,
        });
        if mock_allows(a.user.name(), a.user.groups(), check) {
            AuthzResponse::allow()
        } else {
            AuthzResponse::deny()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pods(ns: &str) -> Option<Check<'_>> {
        Some(Check {
            verb: "create",
            group: "",
            resource: "pods",
            namespace: ns,
        })
    }

    #[test]
    fn rules() {
        let none: [&str; 0] = [];
        assert!(mock_allows("x", ["system:masters"], None));
        assert!(!mock_allows("x", none, None));
        assert!(mock_allows(
            "system:serviceaccount:kube-system:statefulset-controller",
            none,
            pods("shop")
        ));
        assert!(mock_allows("alice", ["oidc:shop-devs"], pods("shop")));
        assert!(!mock_allows("alice", ["oidc:shop-devs"], pods("edge")));
        assert!(!mock_allows("bob", none, pods("shop")));
        let bg = Some(Check {
            verb: "breakglass",
            ..Check::default()
        });
        assert!(!mock_allows("alice", ["oidc:shop-devs"], bg));
        assert!(mock_allows("alice", ["breakglass-admins"], bg));
    }
}
