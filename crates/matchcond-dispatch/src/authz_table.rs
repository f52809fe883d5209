//! The static authorizer's rule table as files write it: one schema for the command line's
//! `--authorizer` file and the `authorizer` of a conformance case.
//!
//! ```yaml
//! default: deny            # allow | deny | noOpinion; absent: noOpinion
//! defaultReason: "no rule" # optional reason given with the default decision
//! rules:                   # the first rule whose every given field matches decides
//!   - {user: alice, verb: create, group: "", resource: pods, decision: allow}
//!   - {verb: "*", resource: secrets, decision: deny, reason: "secrets are off limits"}
//!   - {resource: configmaps, error: "authorizer unavailable"}
//!   - {userGroups: [system:masters, breakglass], verbs: [update, patch], decision: allow}
//! ```
//!
//! A rule's fields are `user`, `verb`, `group`, `resource`, `subresource`, `namespace`,
//! `name`, `path`, `fieldSelector` and `labelSelector`; an absent field or `"*"` matches
//! anything (see [`StaticRule`] for what each is compared with). Two take lists: `verbs`
//! (the check's verb is one of them) and `userGroups` (the principal has one of these
//! groups; `group` is the API group). A rule gives `decision` (with an optional `reason`)
//! or `error`.
//!
//! [`AuthorizerTable`] is the serde form (unknown fields are refused, whatever the format
//! the caller reads); [`AuthorizerTable::to_static_authorizer`] checks what the types do not
//! say (the decision names, a decision or an error per rule) and builds the runtime's
//! [`StaticAuthorizer`] through its public API. It lives here, beside the crate's other
//! readers of files, because the runtime's authorizer is a plain type with no serde form.

use matchcond_runtime::authz::{AuthzDecision, StaticAuthorizer, StaticRule};
use serde::Deserialize;

/// A static authorizer table as written in a file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AuthorizerTable {
    /// The decision when no rule matches (`allow`, `deny` or `noOpinion`; absent:
    /// `noOpinion`).
    pub default: Option<String>,
    /// The reason given with the default decision.
    pub default_reason: Option<String>,
    /// The rules, in order.
    #[serde(default)]
    pub rules: Vec<TableRule>,
}

/// One rule of an [`AuthorizerTable`]: the attributes it applies to (each absent or `"*"`
/// matches anything) and its outcome, `decision` (with `reason`) or `error`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TableRule {
    /// The principal: the request's user name, or `system:serviceaccount:NS:NAME`.
    pub user: Option<String>,
    /// The verb.
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
    /// The principal's groups (not the API group): the principal has one of them.
    pub user_groups: Option<Vec<String>>,
    /// The decision the rule gives (`allow`, `deny` or `noOpinion`).
    pub decision: Option<String>,
    /// The reason given with `decision`.
    pub reason: Option<String>,
    /// The error the rule gives instead of a decision.
    pub error: Option<String>,
}

/// A table that cannot be an authorizer; the text starts with the field's path in the table.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TableError {
    /// A decision that is not `allow`, `deny` or `noOpinion`.
    #[error("{field}: unknown decision {decision:?} (expected allow, deny or noOpinion)")]
    UnknownDecision {
        /// `default` or `rules[i].decision`.
        field: String,
        /// The decision as written.
        decision: String,
    },
    /// A rule gives both a decision and an error (its index).
    #[error("rules[{0}] gives both `decision` and `error`")]
    DecisionAndError(usize),
    /// A rule gives neither a decision nor an error (its index).
    #[error("rules[{0}] gives neither `decision` nor `error`")]
    NoOutcome(usize),
    /// A rule gives a reason with an error (its index).
    #[error("rules[{0}] gives `reason` without `decision`")]
    ReasonWithoutDecision(usize),
}

fn decision(
    text: Option<&str>,
    field: impl FnOnce() -> String,
) -> Result<AuthzDecision, TableError> {
    match text {
        None | Some("noOpinion") => Ok(AuthzDecision::NoOpinion),
        Some("allow") => Ok(AuthzDecision::Allow),
        Some("deny") => Ok(AuthzDecision::Deny),
        Some(other) => Err(TableError::UnknownDecision {
            field: field(),
            decision: other.to_owned(),
        }),
    }
}

impl TableRule {
    fn to_rule(&self, index: usize) -> Result<StaticRule, TableError> {
        let mut rule = match (&self.decision, &self.error) {
            (Some(_), Some(_)) => return Err(TableError::DecisionAndError(index)),
            (None, None) => return Err(TableError::NoOutcome(index)),
            (None, Some(_)) if self.reason.is_some() => {
                return Err(TableError::ReasonWithoutDecision(index))
            }
            (None, Some(error)) => StaticRule::error(error.clone()),
            (Some(d), None) => {
                StaticRule::decide(decision(Some(d), || format!("rules[{index}].decision"))?)
                    .reason(self.reason.clone().unwrap_or_default())
            }
        };
        rule.user.clone_from(&self.user);
        rule.verb.clone_from(&self.verb);
        rule.group.clone_from(&self.group);
        rule.resource.clone_from(&self.resource);
        rule.subresource.clone_from(&self.subresource);
        rule.namespace.clone_from(&self.namespace);
        rule.name.clone_from(&self.name);
        rule.path.clone_from(&self.path);
        rule.field_selector.clone_from(&self.field_selector);
        rule.label_selector.clone_from(&self.label_selector);
        rule.verbs.clone_from(&self.verbs);
        rule.user_groups.clone_from(&self.user_groups);
        Ok(rule)
    }
}

impl AuthorizerTable {
    /// The runtime's authorizer answering from this table, or the table's first problem.
    pub fn to_static_authorizer(&self) -> Result<StaticAuthorizer, TableError> {
        let default = decision(self.default.as_deref(), || "default".to_owned())?;
        let mut authorizer = StaticAuthorizer::new(default)
            .with_default_reason(self.default_reason.clone().unwrap_or_default());
        for (index, rule) in self.rules.iter().enumerate() {
            authorizer.push(rule.to_rule(index)?);
        }
        Ok(authorizer)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use matchcond_runtime::authz::{
        Attributes, Authorizer, AuthzResponse, ResourceAttributes, Selector, UserInfo,
    };

    use super::*;

    fn table(json: serde_json::Value) -> Result<StaticAuthorizer, String> {
        serde_json::from_value::<AuthorizerTable>(json)
            .map_err(|e| e.to_string())?
            .to_static_authorizer()
            .map_err(|e| e.to_string())
    }

    fn resource<'c>(
        user: &'c UserInfo,
        verb: &'c str,
        resource: &'c str,
        label_selector: &'c str,
    ) -> Attributes<'c> {
        Attributes::resource(
            user,
            verb,
            ResourceAttributes {
                api_group: "",
                api_version: "*",
                resource,
                subresource: "",
                namespace: "x",
                name: "",
                field_selector: None,
                label_selector: (!label_selector.is_empty()).then_some(Selector {
                    text: label_selector,
                    parsed: Ok(Vec::new()),
                }),
            },
        )
    }

    /// The first rule whose every given field matches answers, with its reason or error;
    /// no rule: the default with its reason.
    #[test]
    fn the_table_answers_by_its_first_matching_rule() {
        let authz = table(serde_json::json!({
            "default": "deny",
            "defaultReason": "no rule",
            "rules": [
                {"user": "alice", "verb": "create", "group": "", "resource": "pods", "decision": "allow"},
                {"path": "/healthz", "decision": "noOpinion", "reason": "paths"},
                {"verb": "*", "resource": "secrets", "decision": "deny", "reason": "secrets are off limits"},
                {"resource": "configmaps", "error": "authorizer unavailable"},
                {"labelSelector": "app=web", "decision": "allow"},
            ],
        }))
        .unwrap();
        let alice = UserInfo::new("alice");
        let bob = UserInfo::new("bob");
        let decided = |d: AuthzDecision, reason: &str| AuthzResponse::new(d, reason);
        for (attributes, want) in [
            (
                resource(&alice, "create", "pods", ""),
                decided(AuthzDecision::Allow, ""),
            ),
            (
                resource(&bob, "create", "pods", ""),
                decided(AuthzDecision::Deny, "no rule"),
            ),
            (
                Attributes::non_resource(&bob, "get", "/healthz"),
                decided(AuthzDecision::NoOpinion, "paths"),
            ),
            (
                resource(&bob, "get", "secrets", ""),
                decided(AuthzDecision::Deny, "secrets are off limits"),
            ),
            (
                resource(&bob, "get", "configmaps", ""),
                AuthzResponse::error("authorizer unavailable"),
            ),
            (
                resource(&bob, "list", "services", "app=web"),
                decided(AuthzDecision::Allow, ""),
            ),
            (
                resource(&bob, "list", "services", "app=db"),
                decided(AuthzDecision::Deny, "no rule"),
            ),
        ] {
            assert_eq!(authz.authorize(&attributes), want, "{attributes:?}");
        }
    }

    /// `userGroups` matches the principal's groups (any of them), `verbs` the check's verb.
    #[test]
    fn user_groups_and_lists_of_verbs() {
        let authz = table(serde_json::json!({
            "default": "deny",
            "rules": [
                {"userGroups": ["system:masters", "breakglass"], "decision": "allow", "reason": "breakglass"},
                {"verbs": ["get", "list", "watch"], "resource": "pods", "decision": "allow"},
                {"userGroups": ["*"], "verbs": ["*"], "resource": "secrets", "error": "no secrets"},
            ],
        }))
        .unwrap();
        let admin = UserInfo::new("root").with_groups(["system:authenticated", "system:masters"]);
        let oncall = UserInfo::new("bob").with_groups(["breakglass"]);
        let dev = UserInfo::new("carol").with_groups(["devs"]);
        let nobody = UserInfo::new("system:anonymous");
        for (attributes, want) in [
            (
                resource(&admin, "delete", "nodes", ""),
                AuthzResponse::new(AuthzDecision::Allow, "breakglass"),
            ),
            (
                resource(&oncall, "update", "pods", ""),
                AuthzResponse::new(AuthzDecision::Allow, "breakglass"),
            ),
            (
                resource(&dev, "update", "pods", ""),
                AuthzResponse::new(AuthzDecision::Deny, ""),
            ),
            (
                resource(&dev, "watch", "pods", ""),
                AuthzResponse::new(AuthzDecision::Allow, ""),
            ),
            (
                resource(&dev, "get", "secrets", ""),
                AuthzResponse::error("no secrets"),
            ),
            // "*" matches anything, as in the other fields (a principal without groups too).
            (
                resource(&nobody, "get", "secrets", ""),
                AuthzResponse::error("no secrets"),
            ),
            (
                resource(&nobody, "create", "pods", ""),
                AuthzResponse::new(AuthzDecision::Deny, ""),
            ),
        ] {
            assert_eq!(authz.authorize(&attributes), want, "{attributes:?}");
        }
    }

    #[test]
    fn an_empty_table_has_no_opinion() {
        let authz = table(serde_json::json!({})).unwrap();
        let user = UserInfo::new("alice");
        assert_eq!(
            authz.authorize(&Attributes::non_resource(&user, "get", "/")),
            AuthzResponse::new(AuthzDecision::NoOpinion, "")
        );
    }

    #[test]
    fn problems_name_their_field() {
        for (json, message) in [
            (
                serde_json::json!({"default": "maybe"}),
                "default: unknown decision \"maybe\" (expected allow, deny or noOpinion)",
            ),
            (
                serde_json::json!({"rules": [{"decision": "allow"}, {"decision": "Allow"}]}),
                "rules[1].decision: unknown decision \"Allow\" (expected allow, deny or noOpinion)",
            ),
            (
                serde_json::json!({"rules": [{"verb": "get"}]}),
                "rules[0] gives neither `decision` nor `error`",
            ),
            (
                serde_json::json!({"rules": [{"decision": "allow", "error": "e"}]}),
                "rules[0] gives both `decision` and `error`",
            ),
            (
                serde_json::json!({"rules": [{"error": "e", "reason": "r"}]}),
                "rules[0] gives `reason` without `decision`",
            ),
            (
                serde_json::json!({"rules": [{"decision": "allow", "group": "", "groups": ["get"]}]}),
                "unknown field `groups`, expected one of `user`, `verb`, `group`, `resource`, `subresource`, `namespace`, `name`, `path`, `fieldSelector`, `labelSelector`, `verbs`, `userGroups`, `decision`, `reason`, `error`",
            ),
        ] {
            assert_eq!(table(json.clone()).unwrap_err(), message, "{json}");
        }
    }
}
