//! The panic hook keeps a case's panic quiet and puts its message and location in the failure.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use matchcond_conformance::model::{
    CelValue, ConditionsInput, DecisionOutcome, Engine, ExprInput, ExprOutcome,
};
use matchcond_conformance::run::{install_panic_hook, run_case_guarded};
use matchcond_conformance::suite::parse_suite;

struct Panicking;

impl Engine for Panicking {
    fn eval(&self, input: &ExprInput<'_>) -> Result<ExprOutcome, String> {
        let n: usize = input.expression.len();
        let items: Vec<u8> = Vec::new();
        // An out-of-bounds index: a panic with a formatted message.
        Ok(ExprOutcome::Value {
            value: CelValue::Int(i64::from(items[n])),
            cost: 0,
        })
    }
    fn eval_literal(&self, _: &str) -> Result<CelValue, String> {
        Err("unused".into())
    }
    fn decide(&self, _: &ConditionsInput<'_>) -> Result<DecisionOutcome, String> {
        panic!("static message")
    }
}

#[test]
fn panics_become_failures_with_their_location() {
    install_panic_hook();
    let suite = parse_suite(
        "suite: s\ncases:\n  - {name: a, expression: abc, expect: {value: 1}}\n  - {name: b, matchConditions: [], expect: {decision: Call}}\n",
    )
    .unwrap();
    let spec = suite.cases[0].spec.as_ref().unwrap();
    let err = run_case_guarded(&Panicking, spec).unwrap_err();
    assert!(
        err.starts_with(
            "panicked: index out of bounds: the len is 0 but the index is 3 (at conformance/tests/panic_hook.rs:"
        ),
        "{err}"
    );
    let spec = suite.cases[1].spec.as_ref().unwrap();
    let err = run_case_guarded(&Panicking, spec).unwrap_err();
    assert!(
        err.starts_with("panicked: static message (at conformance/tests/panic_hook.rs:"),
        "{err}"
    );
    // Panics outside a case still reach the previous hook and unwind as usual.
    let outside = std::panic::catch_unwind(|| panic!("outside"));
    assert!(outside.is_err());
}
