//! The engine's side of the benchmark: a webhook's conditions compiled with
//! [`MatchConditions`], decided with the workload's mock authorizer bound.

use std::sync::Arc;

use matchcond::authz::Authorizer;
use matchcond::{
    Activation, ConditionOutcome, Decision, Environment, FailurePolicy, MatchCondition,
    MatchConditions, Program, Value, PER_CALL_COST_LIMIT,
};
use serde_json::Value as Json;

use crate::authz::MockAuthorizer;
use crate::workload::ConditionSpec;

/// One webhook's conditions compiled by the engine, with the authorizer they are decided
/// with.
pub struct EngineSet {
    conditions: MatchConditions,
    authorizer: Arc<dyn Authorizer>,
}

impl std::fmt::Debug for EngineSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineSet")
            .field("conditions", &self.conditions)
            .finish()
    }
}

impl EngineSet {
    /// Compiles conditions in an environment; fails when one does not compile (its name
    /// and the error) or there are too many.
    pub fn compile(env: &Environment, conditions: &[&ConditionSpec]) -> Result<EngineSet, String> {
        let list: Vec<MatchCondition> = conditions
            .iter()
            .map(|c| MatchCondition::new(c.name.clone(), c.expression.clone()))
            .collect();
        // Strict: the error names each condition that does not compile.
        let compiled = MatchConditions::compile(env, &list).map_err(|e| e.to_string())?;
        Ok(EngineSet {
            conditions: compiled,
            authorizer: Arc::new(MockAuthorizer),
        })
    }

    /// The compiled conditions.
    pub fn conditions(&self) -> &MatchConditions {
        &self.conditions
    }

    /// The activation of a request: its variables, and the mock authorizer when a
    /// condition reads it (threads deciding together then share nothing they write).
    pub fn activation<'a>(&self, req: &'a Json) -> Activation<'a> {
        let act = Activation::from_request(req);
        if self.conditions.uses_authorizer() {
            act.with_authorizer(Arc::clone(&self.authorizer))
        } else {
            act
        }
    }

    /// The decision on a parsed request (activation included), with
    /// `failurePolicy: Fail`.
    pub fn decide(&self, req: &Json) -> Decision<'_> {
        self.conditions
            .decide(&self.activation(req), FailurePolicy::Fail)
    }

    /// The decision from an AdmissionReview's bytes (parse, take `request`, decide);
    /// `None` when the bytes are not an AdmissionReview.
    pub fn decide_raw(&self, raw: &[u8]) -> Option<Decision<'_>> {
        // The engine's own path from bytes: only what the conditions read is built.
        let request = self.conditions.read_review_to_decide(raw).ok()?;
        Some(self.decide(&request))
    }

    /// Every condition's result on a request (`None`: an error, or not evaluated).
    pub fn results(&self, req: &Json) -> Vec<Option<bool>> {
        self.conditions
            .explain(&self.activation(req), FailurePolicy::Fail)
            .conditions
            .into_iter()
            .map(|c| match c.outcome {
                ConditionOutcome::Value(b) => Some(b),
                _ => None,
            })
            .collect()
    }
}

/// One condition compiled by the engine, evaluated alone (activation included) with the
/// apiserver's per-expression cost limit.
pub struct EngineCondition {
    program: Arc<Program>,
    authorizer: Arc<dyn Authorizer>,
}

impl std::fmt::Debug for EngineCondition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineCondition")
            .field("expression", &self.program.expression())
            .finish()
    }
}

impl EngineCondition {
    /// Compiles a condition (it must be a bool expression); fails with the error text.
    pub fn compile(env: &Environment, condition: &ConditionSpec) -> Result<Self, String> {
        let program = env
            .compile_condition(&condition.expression)
            .map_err(|e| format!("{}: {e}", condition.name))?;
        Ok(EngineCondition {
            program,
            authorizer: Arc::new(MockAuthorizer),
        })
    }

    /// Builds the activation of a request and evaluates the condition: `None` for an
    /// evaluation error.
    pub fn eval(&self, req: &Json) -> Option<bool> {
        let act = Activation::from_request(req).with_authorizer(Arc::clone(&self.authorizer));
        match self
            .program
            .evaluate(&act, Some(PER_CALL_COST_LIMIT))
            .result
        {
            Ok(Value::Bool(b)) => Some(b),
            _ => None,
        }
    }
}
