//! A webhook's `matchConditions` and `failurePolicy` from k8s-openapi's
//! `admissionregistration.k8s.io/v1` types (`ValidatingWebhook`, `MutatingWebhook`,
//! `MatchCondition`), as a kube-rs webhook server or a dispatcher holds them.

use k8s_openapi::api::admissionregistration::v1 as k8s;
use matchcond_compiler::Environment;
use matchcond_runtime::Activation;

use crate::policy::ParseFailurePolicyError;
use crate::{ConditionsError, Decision, FailurePolicy, MatchCondition, MatchConditions, Report};

impl From<k8s::MatchCondition> for MatchCondition {
    fn from(c: k8s::MatchCondition) -> Self {
        MatchCondition {
            name: c.name,
            expression: c.expression,
        }
    }
}

impl From<&k8s::MatchCondition> for MatchCondition {
    fn from(c: &k8s::MatchCondition) -> Self {
        MatchCondition::new(c.name.as_str(), c.expression.as_str())
    }
}

impl From<MatchCondition> for k8s::MatchCondition {
    fn from(c: MatchCondition) -> Self {
        k8s::MatchCondition {
            name: c.name,
            expression: c.expression,
        }
    }
}

/// Why a webhook's conditions could not be taken.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WebhookError {
    /// More than 64 conditions (the apiserver refuses such a configuration).
    #[error("webhook {webhook:?}: matchConditions: Too many: {count}: must have at most 64 items")]
    TooManyConditions {
        /// The webhook's name.
        webhook: String,
        /// The number of conditions.
        count: usize,
    },
    /// Conditions that do not compile (each with its name, index and the apiserver's
    /// message).
    #[error("webhook {webhook:?}: {source}")]
    Compile {
        /// The webhook's name.
        webhook: String,
        /// The conditions that do not compile.
        source: ConditionsError,
    },
    /// A `failurePolicy` other than `Fail` and `Ignore`.
    #[error("webhook {webhook:?}: {source}")]
    FailurePolicy {
        /// The webhook's name.
        webhook: String,
        /// The error.
        source: ParseFailurePolicyError,
    },
}

/// A webhook's compiled `matchConditions` with its `failurePolicy` (`Fail` when unset, the
/// apiserver's default): what decides whether the apiserver calls it.
///
/// As with [`MatchConditions::compile`], conditions that do not compile are an error
/// ([`WebhookError::Compile`]). For the apiserver's lenient behaviour with a stored
/// configuration (such a condition is a `compilation error` at decision time), build one with
/// [`WebhookConditions::new`] from [`MatchConditions::compile_lenient`].
#[derive(Debug)]
pub struct WebhookConditions {
    /// The webhook's name.
    pub name: String,
    /// The compiled conditions.
    pub conditions: MatchConditions,
    /// The failure policy.
    pub failure_policy: FailurePolicy,
}

impl WebhookConditions {
    /// A webhook's conditions compiled by the caller, with its name and failure policy.
    pub fn new(
        name: impl Into<String>,
        conditions: MatchConditions,
        failure_policy: FailurePolicy,
    ) -> Self {
        WebhookConditions {
            name: name.into(),
            conditions,
            failure_policy,
        }
    }

    /// The conditions of a validating webhook.
    pub fn from_validating(
        env: &Environment,
        webhook: &k8s::ValidatingWebhook,
    ) -> Result<Self, WebhookError> {
        Self::build(
            env,
            &webhook.name,
            webhook.match_conditions.as_deref(),
            webhook.failure_policy.as_deref(),
        )
    }

    /// The conditions of a mutating webhook.
    pub fn from_mutating(
        env: &Environment,
        webhook: &k8s::MutatingWebhook,
    ) -> Result<Self, WebhookError> {
        Self::build(
            env,
            &webhook.name,
            webhook.match_conditions.as_deref(),
            webhook.failure_policy.as_deref(),
        )
    }

    fn build(
        env: &Environment,
        name: &str,
        conditions: Option<&[k8s::MatchCondition]>,
        policy: Option<&str>,
    ) -> Result<Self, WebhookError> {
        let failure_policy =
            FailurePolicy::from_field(policy).map_err(|source| WebhookError::FailurePolicy {
                webhook: name.to_string(),
                source,
            })?;
        let list: Vec<MatchCondition> = conditions
            .unwrap_or_default()
            .iter()
            .map(MatchCondition::from)
            .collect();
        let conditions = MatchConditions::compile(env, &list).map_err(|e| match e {
            ConditionsError::TooMany(count) => WebhookError::TooManyConditions {
                webhook: name.to_string(),
                count,
            },
            source => WebhookError::Compile {
                webhook: name.to_string(),
                source,
            },
        })?;
        Ok(WebhookConditions {
            name: name.to_string(),
            conditions,
            failure_policy,
        })
    }

    /// The decision for a request under the webhook's failure policy.
    pub fn decide(&self, activation: &Activation<'_>) -> Decision<'_> {
        self.conditions.decide(activation, self.failure_policy)
    }

    /// The decision with every condition's value or error and cost.
    pub fn explain(&self, activation: &Activation<'_>) -> Report<'_> {
        self.conditions.explain(activation, self.failure_policy)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;
    use crate::Skip;
    use matchcond_compiler::KubeVersion;

    fn webhook(conditions: &[(&str, &str)], policy: Option<&str>) -> k8s::ValidatingWebhook {
        k8s::ValidatingWebhook {
            name: "pods.policy.example.com".into(),
            failure_policy: policy.map(String::from),
            match_conditions: Some(
                conditions
                    .iter()
                    .map(|(n, e)| k8s::MatchCondition {
                        name: (*n).into(),
                        expression: (*e).into(),
                    })
                    .collect(),
            ),
            side_effects: "None".into(),
            admission_review_versions: vec!["v1".into()],
            ..Default::default()
        }
    }

    #[test]
    fn a_validating_webhook_decides_under_its_failure_policy() {
        let env = Environment::kubernetes(KubeVersion::V1_34);
        let request = serde_json::json!({"operation": "DELETE", "namespace": "shop"});
        let act = Activation::from_request(&request);
        let conds = [
            ("not-kube-system", "request.namespace != 'kube-system'"),
            ("labelled", "object.metadata.labels['app'] == 'web'"),
        ];
        let fail = WebhookConditions::from_validating(&env, &webhook(&conds, None)).unwrap();
        assert_eq!(fail.failure_policy, FailurePolicy::Fail);
        assert_eq!(fail.name, "pods.policy.example.com");
        assert_eq!(
            fail.decide(&act),
            Decision::Reject {
                message: "expression 'object.metadata.labels['app'] == 'web'' resulted in \
                          error: no such key: metadata"
                    .into()
            }
        );
        let ignore =
            WebhookConditions::from_validating(&env, &webhook(&conds, Some("Ignore"))).unwrap();
        let Decision::Skip(Skip::Ignored(e)) = ignore.decide(&act) else {
            panic!("not an ignored error")
        };
        assert_eq!(e.condition(), "labelled");
        assert_eq!(
            e.message(),
            "expression 'object.metadata.labels['app'] == 'web'' resulted in error: no such key: metadata"
        );
        assert!(!e.out_of_budget());
        assert_eq!(ignore.explain(&act).conditions.len(), 2);
    }

    #[test]
    fn a_mutating_webhook_without_conditions_is_called() {
        let env = Environment::latest();
        let w = k8s::MutatingWebhook {
            name: "inject.example.com".into(),
            ..Default::default()
        };
        let hook = WebhookConditions::from_mutating(&env, &w).unwrap();
        assert!(hook.conditions.is_empty());
        let request = serde_json::json!({});
        assert_eq!(
            hook.decide(&Activation::from_request(&request)),
            Decision::Call
        );
    }

    #[test]
    fn bad_policies_and_too_many_conditions_are_errors() {
        let env = Environment::latest();
        let e = WebhookConditions::from_validating(&env, &webhook(&[], Some("Retry"))).unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"webhook "pods.policy.example.com": unsupported failurePolicy "Retry": supported values: "Fail", "Ignore""#
        );
        let names: Vec<String> = (0..65).map(|i| format!("c{i}")).collect();
        let many: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "true")).collect();
        let e = WebhookConditions::from_validating(&env, &webhook(&many, None)).unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"webhook "pods.policy.example.com": matchConditions: Too many: 65: must have at most 64 items"#
        );
    }

    #[test]
    fn conditions_that_do_not_compile_are_errors_unless_lenient() {
        let env = Environment::kubernetes(KubeVersion::V1_34);
        let conds = [
            ("typo", "request.userinfo.username == 'alice'"),
            ("ok", "true"),
            ("int", "1 + 1"),
        ];
        let e = WebhookConditions::from_validating(&env, &webhook(&conds, None)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "webhook \"pods.policy.example.com\": matchConditions[0] \"typo\": compilation \
             failed: ERROR: <input>:1:8: undefined field 'userinfo'\n \
             | request.userinfo.username == 'alice'\n | .......^\n\
             matchConditions[2] \"int\": must evaluate to bool but got int"
        );
        let list: Vec<MatchCondition> = conds
            .iter()
            .map(|(n, e)| MatchCondition::new(*n, *e))
            .collect();
        let lenient = WebhookConditions::new(
            "w",
            MatchConditions::compile_lenient(&env, &list).unwrap(),
            FailurePolicy::Ignore,
        );
        let request = serde_json::json!({"operation": "CREATE"});
        let Decision::Skip(Skip::Ignored(e)) = lenient.decide(&Activation::from_request(&request))
        else {
            panic!("not an ignored error")
        };
        assert_eq!(e.condition(), "typo");
        assert!(e.message().starts_with(
            "[compilation error: compilation failed: ERROR: <input>:1:8: undefined field 'userinfo'"
        ));
        assert_eq!(lenient.conditions.compile_errors().len(), 2);
    }

    #[test]
    fn match_conditions_convert_both_ways() {
        let k = k8s::MatchCondition {
            name: "a".into(),
            expression: "true".into(),
        };
        let c = MatchCondition::from(&k);
        assert_eq!(c, MatchCondition::new("a", "true"));
        assert_eq!(k8s::MatchCondition::from(c.clone()), k);
        assert_eq!(MatchCondition::from(k), c);
    }
}
