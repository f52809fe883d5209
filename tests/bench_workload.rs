//! The benchmark workload's expected outcomes (computed by cel-go) are reproduced:
//! every condition on every request, and the decision of every condition set. The
//! authorizer conditions are answered by the workload's mock authorizer (bench README),
//! shared with the benchmarks through the `matchcond-bench` crate.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::sync::Arc;

use matchcond::{
    Activation, Decision, Environment, FailurePolicy, MatchCondition, MatchConditions, Skip, Value,
};
use matchcond_bench::authz::MockAuthorizer;
use matchcond_bench::{DecisionClass, Outcome, Workload};

fn activation(request: &serde_json::Value) -> Activation<'_> {
    Activation::from_request(request).with_authorizer(Arc::new(MockAuthorizer))
}

fn load() -> Workload {
    Workload::builtin().unwrap()
}

#[test]
fn every_condition_on_every_request() {
    let w = load();
    let env = Environment::latest();
    let mut checked = 0;
    let mut with_authorizer = 0;
    for c in &w.conditions {
        if c.needs_authorizer {
            with_authorizer += 1;
        }
        let program = env
            .compile_condition(&c.expression)
            .unwrap_or_else(|e| panic!("{}: {e}", c.name));
        for r in &w.requests {
            let act = activation(&r.request);
            let out = program.evaluate(&act, Some(1_000_000));
            let got = match &out.result {
                Ok(Value::Bool(true)) => Outcome::True,
                Ok(Value::Bool(false)) => Outcome::False,
                Ok(other) => panic!("{} on {}: non-bool {other:?}", c.name, r.name),
                Err(_) => Outcome::Error,
            };
            let want = w.expected_outcome(&c.name, &r.name).unwrap();
            assert_eq!(got, want, "{} on {}: {:?}", c.name, r.name, out.result);
            checked += 1;
        }
    }
    assert!(checked >= 73 * 4, "checked {checked}");
    assert_eq!(with_authorizer, 2);
}

#[test]
fn every_condition_set_decision() {
    let w = load();
    let env = Environment::latest();
    let mut sets = 0;
    for set in &w.sets {
        let mcs: Vec<MatchCondition> = w
            .set_conditions(set)
            .iter()
            .map(|c| MatchCondition::new(c.name.clone(), c.expression.clone()))
            .collect();
        assert_eq!(mcs.len(), set.conditions.len());
        let compiled = MatchConditions::compile(&env, &mcs).unwrap();
        for r in &w.requests {
            let act = activation(&r.request);
            let decision = compiled.decide(&act, FailurePolicy::Fail);
            let got = DecisionClass::of_decision(&decision);
            assert_eq!(
                Some(got),
                w.expected_decision(&set.name, &r.name),
                "{} on {}",
                set.name,
                r.name
            );
            if got == DecisionClass::Skip {
                assert!(matches!(decision, Decision::Skip(Skip::Condition(_))));
            }
        }
        sets += 1;
    }
    assert!(
        sets >= 4 && w.sets.iter().any(|s| s.name == "authz2"),
        "{sets} sets"
    );
}
