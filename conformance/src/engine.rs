//! The adapter that runs cases on matchcond: expressions are compiled in the
//! matchConditions environment of one Kubernetes version (the newest modelled by default; the
//! "stored expressions" environment the apiserver evaluates with) and evaluated with the case's
//! request; condition lists are decided by the matcher; whole webhooks by the dispatcher
//! and whole configurations by the validator, of the same version. Every case has an
//! authorizer, as webhooks always have one: the case's table built into the library's
//! [`StaticAuthorizer`], or, without one, an authorizer that answers every check with no
//! opinion.
//!
//! Unlike the other users in the workspace, the runner uses the layer crates directly rather
//! than the `matchcond` facade: it drives internals the public API does not give (variables
//! bound by slot, unbounded condition lists, the environment's parser options), as a test of
//! the layers themselves.

use std::sync::Arc;

use matchcond_compiler::{CompileOptions, Environment, KubeVersion, PER_CALL_COST_LIMIT};
use matchcond_dispatch::{
    AnyNamespace, Configuration, Dispatcher, HookKind, Labels, NoNamespaces, Validator, WebhookSpec,
};
use matchcond_front::Type;
use matchcond_matcher::{Decision, FailurePolicy, MatchCondition, MatchConditions};
use matchcond_runtime::authz::{AuthzDecision, StaticAuthorizer};
use matchcond_runtime::value::{Optional, Value};
use matchcond_runtime::Activation;

use crate::model::{
    AuthorizerTable, CelValue, ConditionsInput, DecisionOutcome, Engine, ExprInput, ExprOutcome,
    WebhookInput,
};

/// The matchcond engine, as the runner sees it.
#[derive(Debug)]
pub struct MatchcondEngine {
    env: Environment,
}

impl Default for MatchcondEngine {
    fn default() -> Self {
        MatchcondEngine::new()
    }
}

impl MatchcondEngine {
    /// Creates the engine for the newest modelled Kubernetes version.
    pub fn new() -> MatchcondEngine {
        MatchcondEngine::for_version(KubeVersion::LATEST)
    }

    /// Creates the engine for a Kubernetes version.
    pub fn for_version(version: KubeVersion) -> MatchcondEngine {
        MatchcondEngine {
            env: Environment::kubernetes(version),
        }
    }

    /// The engine with backquoted field names accepted or not (see
    /// [`Environment::with_ident_escape_syntax`]).
    pub fn with_ident_escape_syntax(self, enable: bool) -> MatchcondEngine {
        MatchcondEngine {
            env: self.env.with_ident_escape_syntax(enable),
        }
    }

    fn literal(&self, expression: &str) -> Result<Value<'static>, String> {
        let program = self
            .env
            .compile(expression, &CompileOptions::default())
            .map_err(|e| format!("literal {expression:?} does not compile: {e}"))?;
        let act = Activation::empty();
        let out = program.evaluate(&act, None);
        match out.result {
            Ok(v) => Ok(v.into_owned()),
            Err(e) => Err(format!("literal {expression:?} does not evaluate: {e}")),
        }
    }
}

/// Converts an engine value to the runner's representation.
pub fn to_cel(v: &Value<'_>) -> CelValue {
    match v {
        Value::Null => CelValue::Null,
        Value::Bool(b) => CelValue::Bool(*b),
        Value::Int(i) => CelValue::Int(*i),
        Value::Uint(u) => CelValue::Uint(*u),
        Value::Double(d) => CelValue::Double(*d),
        Value::String(s) => CelValue::String(s.to_string()),
        Value::Bytes(b) => CelValue::Bytes(b.to_vec()),
        Value::List(l) => CelValue::List(l.iter().map(|e| to_cel(&e)).collect()),
        Value::Map(m) => CelValue::Map(m.iter().map(|(k, v)| (to_cel(&k), to_cel(&v))).collect()),
        Value::Timestamp(t) => CelValue::Timestamp {
            secs: t.secs,
            nanos: t.nanos,
        },
        Value::Duration(d) => CelValue::Duration { nanos: d.nanos },
        Value::Type(t) => CelValue::Type(t.as_str().to_string()),
        Value::Optional(o) => match o {
            Optional::None => CelValue::Optional(None),
            other => CelValue::Optional(other.get().map(|v| Box::new(to_cel(&v)))),
        },
        Value::Opaque(o) => CelValue::Opaque {
            type_name: o.type_name().to_string(),
            text: o.text(),
        },
    }
}

/// The library's static authorizer for a case's table (none: no opinion on every check).
pub fn to_static_authorizer(table: Option<&AuthorizerTable>) -> Result<StaticAuthorizer, String> {
    match table {
        None => Ok(StaticAuthorizer::new(AuthzDecision::NoOpinion)),
        Some(table) => table
            .to_static_authorizer()
            .map_err(|e| format!("authorizer.{e}")),
    }
}

/// A decision of the matcher or the dispatcher and its cost, in the suites' vocabulary: a
/// skip names the false condition, if any; a rejection's message is the apiserver's status
/// message.
fn outcome_of(decision: Decision<'_>, cost: u64) -> DecisionOutcome {
    match decision {
        Decision::Call => DecisionOutcome::Call { cost },
        Decision::Skip(skip) => DecisionOutcome::Skip {
            failed_condition: skip.condition().map(str::to_owned),
            cost,
        },
        Decision::Reject { message } => DecisionOutcome::Reject {
            message: message.into_string(),
            cost,
        },
    }
}

fn activation<'a>(
    request: Option<&'a serde_json::Value>,
    authorizer: Option<&AuthorizerTable>,
) -> Result<Activation<'a>, String> {
    let act = match request {
        Some(r) => Activation::from_request(r),
        None => Activation::empty(),
    };
    Ok(act.with_authorizer(Arc::new(to_static_authorizer(authorizer)?)))
}

fn policy(p: Option<&str>) -> Result<FailurePolicy, String> {
    match p {
        None => Ok(FailurePolicy::Fail),
        Some(s) => s
            .parse::<FailurePolicy>()
            .map_err(|_| format!("unknown failurePolicy {s:?}")),
    }
}

impl Engine for MatchcondEngine {
    fn eval(&self, input: &ExprInput<'_>) -> Result<ExprOutcome, String> {
        let mut bound = Vec::with_capacity(input.bindings.len());
        for (name, expr) in &input.bindings {
            bound.push((name.clone(), self.literal(expr)?));
        }
        let options = bound
            .iter()
            .fold(CompileOptions::default(), |o, (n, _)| {
                o.with_variable(n.clone(), Type::Dyn)
            })
            .with_unchecked(input.disable_check);
        let program = match self.env.compile(input.expression, &options) {
            Ok(p) => p,
            Err(e) => return Ok(ExprOutcome::CompileError(e.to_string())),
        };
        let mut act = activation(input.request, input.authorizer)?;
        for (name, value) in &bound {
            if let Some(slot) = program.slot(name) {
                act.set(slot, value.clone());
            }
        }
        let out = program.evaluate(&act, Some(input.cost_limit.unwrap_or(PER_CALL_COST_LIMIT)));
        Ok(match out.result {
            Ok(v) => ExprOutcome::Value {
                value: to_cel(&v),
                cost: out.cost,
            },
            // As the apiserver's condition evaluator reports it: the error of the expression,
            // prefixed with the expression (`expression '…' resulted in error: …`), so that an
            // expectation written with or without the prefix matches.
            Err(e) => ExprOutcome::EvalError {
                message: format!("expression '{}' resulted in error: {e}", input.expression),
                cost: Some(out.cost),
            },
        })
    }

    fn type_name(&self, value: &CelValue) -> String {
        match value {
            CelValue::Optional(_) if self.env.features().behaviours.optional_named_optional => {
                "optional".to_owned()
            }
            other => other.type_name(),
        }
    }

    fn eval_literal(&self, expression: &str) -> Result<CelValue, String> {
        self.literal(expression).map(|v| to_cel(&v))
    }

    fn decide(&self, input: &ConditionsInput<'_>) -> Result<DecisionOutcome, String> {
        let conditions: Vec<MatchCondition> = input
            .conditions
            .iter()
            .map(|(n, e)| MatchCondition::new(n.clone(), e.clone()))
            .collect();
        let compiled = MatchConditions::compile_unbounded(&self.env, &conditions)
            .with_per_call_limit(input.cost_limit.unwrap_or(PER_CALL_COST_LIMIT));
        let policy = policy(input.failure_policy)?;
        let act = activation(input.request, input.authorizer)?;
        let report = compiled.explain(&act, policy);
        // The road from a review's bytes, building only what the conditions read, explains
        // the decision alike.
        if let Some(request @ serde_json::Value::Object(_)) = input.request {
            let bytes = serde_json::to_vec(&serde_json::json!({ "request": request }))
                .map_err(|e| e.to_string())?;
            let read = compiled
                .read_review_to_decide(&bytes)
                .map_err(|e| e.to_string())?;
            let act = activation(Some(&read), input.authorizer)?;
            let from_bytes = compiled.explain(&act, policy);
            if from_bytes != report {
                return Err(format!(
                    "deciding from the review's bytes gives {from_bytes:?}, not {report:?}"
                ));
            }
        }
        let cost = report.total_cost;
        Ok(outcome_of(report.decision, cost))
    }

    fn compile_conditions(&self, input: &ConditionsInput<'_>) -> Result<Vec<String>, String> {
        Ok(input
            .conditions
            .iter()
            .filter_map(|(_, e)| self.env.compile_condition(e).err().map(|e| e.to_string()))
            .collect())
    }

    fn decide_webhook(&self, input: &WebhookInput<'_>) -> Result<DecisionOutcome, String> {
        let kind = if input.webhook.get("reinvocationPolicy").is_some() {
            HookKind::Mutating
        } else {
            HookKind::Validating
        };
        let spec = WebhookSpec::from_json(input.webhook, kind)
            .map_err(|e| format!("invalid webhook: {e}"))?;
        let dispatcher = Dispatcher::for_webhook(&spec, kind, self.env.version())
            .with_authorizer(Arc::new(to_static_authorizer(input.authorizer)?));
        let empty = serde_json::json!({});
        let request = input.request.unwrap_or(&empty);
        let outcome = match input.namespace_labels {
            None => dispatcher.decide_at(0, request, &NoNamespaces),
            Some(labels) => {
                let labels: Labels = serde_json::from_value(labels.clone())
                    .map_err(|e| format!("invalid namespaceLabels: {e}"))?;
                dispatcher.decide_at(0, request, &AnyNamespace(labels))
            }
        }
        .map_err(|e| e.to_string())?
        .ok_or_else(|| "the webhook was not compiled".to_owned())?;
        let cost = outcome.conditions.as_ref().map_or(0, |r| r.total_cost);
        Ok(outcome_of(outcome.decision, cost))
    }

    fn validate_configuration(&self, config: &serde_json::Value) -> Result<Vec<String>, String> {
        let config =
            Configuration::from_json(config).map_err(|e| format!("invalid configuration: {e}"))?;
        Ok(Validator::new(self.env.version())
            .validate(&config)
            .iter()
            .map(ToString::to_string)
            .collect())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use matchcond_runtime::authz::{Attributes, Authorizer, UserInfo};

    use super::*;

    /// An evaluation error reads as the apiserver's condition evaluator gives it, so that
    /// expectations written with or without the prefix both match.
    #[test]
    fn evaluation_errors_carry_the_condition_evaluators_prefix() {
        let engine = MatchcondEngine::new();
        let input = ExprInput {
            expression: "1 / 0 == 1",
            request: None,
            bindings: Vec::new(),
            authorizer: None,
            disable_check: false,
            cost_limit: None,
        };
        match engine.eval(&input).unwrap() {
            ExprOutcome::EvalError { message, cost } => {
                assert_eq!(
                    message,
                    "expression '1 / 0 == 1' resulted in error: division by zero"
                );
                assert_eq!(cost, Some(2));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn no_table_is_no_opinion() {
        let converted = to_static_authorizer(None).unwrap();
        let user = UserInfo::new("alice");
        let got = converted.authorize(&Attributes::non_resource(&user, "get", "/"));
        assert_eq!(got.decision, AuthzDecision::NoOpinion);
        assert_eq!(got.reason, "");
        assert_eq!(got.error, None);
    }
}
