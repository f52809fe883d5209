//! The adapter that runs cases on matchcond. Not wired yet: every method answers
//! `engine not wired`, so every case that runs fails.

use crate::model::{
    CelValue, ConditionsInput, DecisionOutcome, Engine, ExprInput, ExprOutcome, WebhookInput,
};

const NOT_WIRED: &str = "engine not wired";

/// The matchcond engine, as the runner sees it.
#[derive(Debug, Default)]
pub struct MatchcondEngine;

impl MatchcondEngine {
    /// Creates the engine.
    pub fn new() -> MatchcondEngine {
        MatchcondEngine
    }
}

impl Engine for MatchcondEngine {
    fn eval(&self, _: &ExprInput<'_>) -> Result<ExprOutcome, String> {
        Err(NOT_WIRED.to_owned())
    }
    fn eval_literal(&self, _: &str) -> Result<CelValue, String> {
        Err(NOT_WIRED.to_owned())
    }
    fn decide(&self, _: &ConditionsInput<'_>) -> Result<DecisionOutcome, String> {
        Err(NOT_WIRED.to_owned())
    }
    fn decide_webhook(&self, _: &WebhookInput<'_>) -> Result<DecisionOutcome, String> {
        Err(NOT_WIRED.to_owned())
    }
    fn validate_configuration(&self, _: &serde_json::Value) -> Result<Vec<String>, String> {
        Err(NOT_WIRED.to_owned())
    }
}
