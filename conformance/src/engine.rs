//! The adapter that runs cases on matchcond: expressions are compiled in the
//! matchConditions environment of the newest modelled Kubernetes version (the "stored
//! expressions" environment the apiserver evaluates with) and evaluated with the case's
//! request; condition lists are decided by the matcher.

use matchcond_compiler::{CompileOptions, Environment, PER_CALL_COST_LIMIT};
use matchcond_eval::{Decision, FailurePolicy, MatchCondition, MatchConditions};
use matchcond_runtime::value::{Optional, Value};
use matchcond_runtime::Activation;
use matchcond_syntax::Type;

use crate::model::{
    CelValue, ConditionsInput, DecisionOutcome, Engine, ExprInput, ExprOutcome, WebhookInput,
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
    /// Creates the engine.
    pub fn new() -> MatchcondEngine {
        MatchcondEngine {
            env: Environment::latest(),
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

fn activation<'a>(request: Option<&'a serde_json::Value>) -> Activation<'a> {
    match request {
        Some(r) => Activation::from_request(r),
        None => Activation::empty(),
    }
}

fn policy(p: Option<&str>) -> Result<FailurePolicy, String> {
    match p {
        None => Ok(FailurePolicy::Fail),
        Some(s) => FailurePolicy::parse(s).ok_or_else(|| format!("unknown failurePolicy {s:?}")),
    }
}

impl Engine for MatchcondEngine {
    fn eval(&self, input: &ExprInput<'_>) -> Result<ExprOutcome, String> {
        let mut bound = Vec::with_capacity(input.bindings.len());
        for (name, expr) in &input.bindings {
            bound.push((name.clone(), self.literal(expr)?));
        }
        let options = CompileOptions {
            extra_variables: bound.iter().map(|(n, _)| (n.clone(), Type::Dyn)).collect(),
            unchecked: input.disable_check,
            result_type: None,
        };
        let program = match self.env.compile(input.expression, &options) {
            Ok(p) => p,
            Err(e) => return Ok(ExprOutcome::CompileError(e.to_string())),
        };
        let mut act = activation(input.request);
        for (name, value) in &bound {
            if let Some(slot) = program.slot(name) {
                act.set(slot, value.clone());
            }
        }
        if input.authorizer.is_some() {
            return Err("the authorizer is not available".to_owned());
        }
        let out = program.evaluate(&act, Some(input.cost_limit.unwrap_or(PER_CALL_COST_LIMIT)));
        Ok(match out.result {
            Ok(v) => ExprOutcome::Value {
                value: to_cel(&v),
                cost: out.cost,
            },
            Err(e) => ExprOutcome::EvalError {
                message: e.to_string(),
                cost: Some(out.cost),
            },
        })
    }

    fn eval_literal(&self, expression: &str) -> Result<CelValue, String> {
        self.literal(expression).map(|v| to_cel(&v))
    }

    fn decide(&self, input: &ConditionsInput<'_>) -> Result<DecisionOutcome, String> {
        if input.authorizer.is_some() {
            return Err("the authorizer is not available".to_owned());
        }
        let conditions: Vec<MatchCondition> = input
            .conditions
            .iter()
            .map(|(n, e)| MatchCondition::new(n.clone(), e.clone()))
            .collect();
        let compiled = MatchConditions::compile_unbounded(&self.env, &conditions)
            .with_per_call_limit(input.cost_limit.unwrap_or(PER_CALL_COST_LIMIT));
        let act = activation(input.request);
        let report = compiled.explain(&act, policy(input.failure_policy)?);
        let cost = report.total_cost;
        Ok(match report.decision {
            Decision::Call => DecisionOutcome::Call { cost },
            Decision::Skip { condition } => DecisionOutcome::Skip {
                failed_condition: condition.map(|c| c.to_string()),
                cost,
            },
            Decision::Reject { message } => DecisionOutcome::Reject { message, cost },
        })
    }

    fn compile_conditions(&self, input: &ConditionsInput<'_>) -> Result<Vec<String>, String> {
        Ok(input
            .conditions
            .iter()
            .filter_map(|(_, e)| self.env.compile_condition(e).err().map(|e| e.to_string()))
            .collect())
    }

    fn decide_webhook(&self, _: &WebhookInput<'_>) -> Result<DecisionOutcome, String> {
        Err("webhook cases are not supported yet".to_owned())
    }

    fn validate_configuration(&self, _: &serde_json::Value) -> Result<Vec<String>, String> {
        Err("configuration validation is not supported yet".to_owned())
    }
}
