//! A table-driven [`Authorizer`]: an ordered list of rules and a default.
//!
//! The first rule whose every given field matches the check decides; when none does, the
//! default decision (with its reason) applies. A field that is not given, or is `"*"`,
//! matches anything; any other value must equal the checked attribute exactly. Attributes a
//! check does not carry are empty: a path check has an empty group and resource, a resource
//! check an empty path, a check without selectors empty selector texts. The principal
//! compared with `user` is the request's user name, or `system:serviceaccount:NS:NAME` after
//! `authorizer.serviceAccount(NS, NAME)`. Two fields take lists: `verbs` (the check's verb
//! is one of them) and `user_groups` (the principal has one of these groups, as RBAC binds
//! groups: `system:masters`, a breakglass group, `system:serviceaccounts:NS`); `"*"` in a
//! list matches anything.
//!
//! ```
//! use matchcond_runtime::authz::{AuthzDecision, StaticAuthorizer, StaticRule};
//!
//! let authz = StaticAuthorizer::new(AuthzDecision::Deny)
//!     .with_default_reason("no rule")
//!     .rule(StaticRule::allow().user("alice").verb("create").group("").resource("pods"))
//!     .rule(StaticRule::deny().resource("secrets").reason("secrets are off limits"))
//!     .rule(StaticRule::error("authorizer unavailable").resource("configmaps"));
//! # let _ = authz;
//! ```

use super::{Attributes, Authorizer, AuthzDecision, AuthzResponse};

/// What a [`StaticRule`] answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleOutcome {
    /// A decision with a reason (possibly empty).
    Decision {
        /// The decision.
        decision: AuthzDecision,
        /// The reason.
        reason: String,
    },
    /// An error (the decision is then no opinion, the reason empty).
    Error(String),
}

/// One rule of a [`StaticAuthorizer`]: the attributes it applies to and its outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaticRule {
    /// The principal's user name.
    pub user: Option<String>,
    /// The verb (an API verb, or an HTTP verb for path checks).
    pub verb: Option<String>,
    /// The API group (`""` is the core group).
    pub group: Option<String>,
    /// The resource.
    pub resource: Option<String>,
    /// The subresource.
    pub subresource: Option<String>,
    /// The namespace.
    pub namespace: Option<String>,
    /// The object name.
    pub name: Option<String>,
    /// The non-resource path.
    pub path: Option<String>,
    /// The field selector text the check carries, compared as written.
    pub field_selector: Option<String>,
    /// The label selector text the check carries, compared as written.
    pub label_selector: Option<String>,
    /// The verbs: the check's verb is one of them.
    pub verbs: Option<Vec<String>>,
    /// The principal's groups: the principal has one of them.
    pub user_groups: Option<Vec<String>>,
    /// The outcome.
    pub outcome: RuleOutcome,
}

macro_rules! rule_field {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        pub fn $name(mut self, value: impl Into<String>) -> Self {
            self.$name = Some(value.into());
            self
        }
    };
}

impl StaticRule {
    /// A rule that matches every check and gives `outcome`.
    pub fn new(outcome: RuleOutcome) -> Self {
        StaticRule {
            user: None,
            verb: None,
            group: None,
            resource: None,
            subresource: None,
            namespace: None,
            name: None,
            path: None,
            field_selector: None,
            label_selector: None,
            verbs: None,
            user_groups: None,
            outcome,
        }
    }

    /// A rule that gives `decision` with an empty reason.
    pub fn decide(decision: AuthzDecision) -> Self {
        StaticRule::new(RuleOutcome::Decision {
            decision,
            reason: String::new(),
        })
    }

    /// A rule that allows.
    pub fn allow() -> Self {
        StaticRule::decide(AuthzDecision::Allow)
    }

    /// A rule that denies.
    pub fn deny() -> Self {
        StaticRule::decide(AuthzDecision::Deny)
    }

    /// A rule that has no opinion.
    pub fn no_opinion() -> Self {
        StaticRule::decide(AuthzDecision::NoOpinion)
    }

    /// A rule that fails with an error.
    pub fn error(message: impl Into<String>) -> Self {
        StaticRule::new(RuleOutcome::Error(message.into()))
    }

    /// Sets the reason of a decision rule (no effect on an error rule).
    pub fn reason(mut self, reason: impl Into<String>) -> Self {
        if let RuleOutcome::Decision { reason: r, .. } = &mut self.outcome {
            *r = reason.into();
        }
        self
    }

    rule_field!(
        /// Restricts the rule to a principal.
        user
    );
    rule_field!(
        /// Restricts the rule to a verb.
        verb
    );
    rule_field!(
        /// Restricts the rule to an API group.
        group
    );
    rule_field!(
        /// Restricts the rule to a resource.
        resource
    );
    rule_field!(
        /// Restricts the rule to a subresource.
        subresource
    );
    rule_field!(
        /// Restricts the rule to a namespace.
        namespace
    );
    rule_field!(
        /// Restricts the rule to an object name.
        name
    );
    rule_field!(
        /// Restricts the rule to a non-resource path.
        path
    );
    rule_field!(
        /// Restricts the rule to a field selector text.
        field_selector
    );
    rule_field!(
        /// Restricts the rule to a label selector text.
        label_selector
    );

    /// Restricts the rule to checks of one of these verbs.
    pub fn verbs<I, S>(mut self, verbs: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.verbs = Some(verbs.into_iter().map(Into::into).collect());
        self
    }

    /// Restricts the rule to principals in one of these groups.
    pub fn user_groups<I, S>(mut self, groups: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.user_groups = Some(groups.into_iter().map(Into::into).collect());
        self
    }

    /// Whether every field the rule gives matches the check.
    pub fn matches(&self, attributes: &Attributes<'_>) -> bool {
        if let Some(verbs) = &self.verbs {
            if !verbs.iter().any(|v| v == "*" || v == attributes.verb) {
                return false;
            }
        }
        if let Some(groups) = &self.user_groups {
            if !groups
                .iter()
                .any(|g| g == "*" || attributes.user.in_group(g))
            {
                return false;
            }
        }
        let resource = attributes.resource_attributes();
        fn text(s: Option<&str>) -> &str {
            s.unwrap_or("")
        }
        let fields: [(&Option<String>, &str); 10] = [
            (&self.user, attributes.user.name()),
            (&self.verb, attributes.verb),
            (&self.group, text(resource.map(|r| r.api_group))),
            (&self.resource, text(resource.map(|r| r.resource))),
            (&self.subresource, text(resource.map(|r| r.subresource))),
            (&self.namespace, text(resource.map(|r| r.namespace))),
            (&self.name, text(resource.map(|r| r.name))),
            (&self.path, attributes.path),
            (
                &self.field_selector,
                text(resource.and_then(|r| r.field_selector.as_ref().map(|s| s.text))),
            ),
            (
                &self.label_selector,
                text(resource.and_then(|r| r.label_selector.as_ref().map(|s| s.text))),
            ),
        ];
        fields.iter().all(|(want, have)| match want {
            None => true,
            Some(w) => w == "*" || w == have,
        })
    }
}

/// An [`Authorizer`] answering from a fixed table of [`StaticRule`]s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaticAuthorizer {
    /// The decision when no rule matches.
    pub default: AuthzDecision,
    /// The reason given with the default decision.
    pub default_reason: String,
    /// The rules, in order.
    pub rules: Vec<StaticRule>,
}

impl Default for StaticAuthorizer {
    /// No rules; every check gets no opinion.
    fn default() -> Self {
        StaticAuthorizer::new(AuthzDecision::NoOpinion)
    }
}

impl StaticAuthorizer {
    /// No rules, and `default` for every check.
    pub fn new(default: AuthzDecision) -> Self {
        StaticAuthorizer {
            default,
            default_reason: String::new(),
            rules: Vec::new(),
        }
    }

    /// Sets the reason given with the default decision.
    pub fn with_default_reason(mut self, reason: impl Into<String>) -> Self {
        self.default_reason = reason.into();
        self
    }

    /// Appends a rule.
    pub fn rule(mut self, rule: StaticRule) -> Self {
        self.rules.push(rule);
        self
    }

    /// Appends a rule in place.
    pub fn push(&mut self, rule: StaticRule) {
        self.rules.push(rule);
    }
}

impl Authorizer for StaticAuthorizer {
    fn authorize(&self, attributes: &Attributes<'_>) -> AuthzResponse {
        match self.rules.iter().find(|r| r.matches(attributes)) {
            Some(rule) => match &rule.outcome {
                RuleOutcome::Decision { decision, reason } => {
                    AuthzResponse::new(*decision, reason.clone())
                }
                RuleOutcome::Error(e) => AuthzResponse::error(e.clone()),
            },
            None => AuthzResponse::new(self.default, self.default_reason.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::authz::{ResourceAttributes, Selector, UserInfo};

    fn table() -> StaticAuthorizer {
        StaticAuthorizer::new(AuthzDecision::Deny)
            .with_default_reason("no rule")
            .rule(
                StaticRule::allow()
                    .user("alice")
                    .verb("create")
                    .group("")
                    .resource("pods")
                    .namespace("default"),
            )
            .rule(
                StaticRule::allow()
                    .user("system:serviceaccount:ns:sa")
                    .path("/healthz")
                    .verb("get"),
            )
            .rule(
                StaticRule::deny()
                    .verb("*")
                    .resource("secrets")
                    .reason("secrets are off limits"),
            )
            .rule(StaticRule::error("authorizer unavailable").resource("configmaps"))
            .rule(StaticRule::allow().label_selector("app=web"))
    }

    fn resource<'c>(
        user: &'c UserInfo,
        verb: &'c str,
        group: &'c str,
        res: &'c str,
        namespace: &'c str,
    ) -> Attributes<'c> {
        Attributes::resource(
            user,
            verb,
            ResourceAttributes {
                api_group: group,
                api_version: "*",
                resource: res,
                subresource: "",
                namespace,
                name: "",
                field_selector: None,
                label_selector: None,
            },
        )
    }

    #[test]
    fn first_matching_rule_wins() {
        let t = table();
        let alice = UserInfo::new("alice");
        let bob = UserInfo::new("bob");
        let r = t.authorize(&resource(&alice, "create", "", "pods", "default"));
        assert_eq!(r, AuthzResponse::new(AuthzDecision::Allow, ""));
        let r = t.authorize(&resource(&alice, "create", "", "pods", "other"));
        assert_eq!(r, AuthzResponse::new(AuthzDecision::Deny, "no rule"));
        let r = t.authorize(&resource(&bob, "get", "", "secrets", ""));
        assert_eq!(
            r,
            AuthzResponse::new(AuthzDecision::Deny, "secrets are off limits")
        );
        let r = t.authorize(&resource(&bob, "get", "", "configmaps", ""));
        assert_eq!(r.decision, AuthzDecision::NoOpinion);
        assert_eq!(r.reason, "");
        assert_eq!(r.error.as_deref(), Some("authorizer unavailable"));
    }

    #[test]
    fn path_checks_and_selectors() {
        let t = table();
        let sa = UserInfo::service_account("ns", "sa");
        assert_eq!(
            t.authorize(&Attributes::non_resource(&sa, "get", "/healthz"))
                .decision,
            AuthzDecision::Allow
        );
        assert_eq!(
            t.authorize(&Attributes::non_resource(&sa, "post", "/healthz"))
                .decision,
            AuthzDecision::Deny
        );
        let bob = UserInfo::new("bob");
        let mut attrs = resource(&bob, "list", "", "pods", "");
        assert_eq!(t.authorize(&attrs).decision, AuthzDecision::Deny);
        let sel = Selector {
            text: "app=web",
            parsed: Ok(Vec::new()),
        };
        if let Some(r) = attrs.resource.as_mut() {
            r.label_selector = Some(sel);
        }
        assert_eq!(t.authorize(&attrs).decision, AuthzDecision::Allow);
    }

    #[test]
    fn empty_table() {
        let t = StaticAuthorizer::default();
        let u = UserInfo::new("u");
        assert_eq!(
            t.authorize(&Attributes::non_resource(&u, "get", "/")),
            AuthzResponse::new(AuthzDecision::NoOpinion, "")
        );
    }
}
