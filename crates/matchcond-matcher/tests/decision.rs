//! The matcher's decision table (kubernetes/apiserver matchconditions matcher tests), with
//! real expressions, the shared budget and the error texts.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use matchcond_compiler::Environment;
use matchcond_matcher::{
    ConditionOutcome, Decision, FailurePolicy, MatchCondition, MatchConditions, Skip, OUT_OF_BUDGET,
};
use matchcond_runtime::Activation;

const ERR: &str = "object.nonExistentProperty == 'someval'";

fn request() -> serde_json::Value {
    serde_json::json!({
        "uid": "u", "operation": "CREATE", "namespace": "default", "name": "test1", "dryRun": false,
        "kind": {"group": "", "version": "v1", "kind": "Pod"},
        "resource": {"group": "", "version": "v1", "resource": "pods"},
        "userInfo": {"username": "alice", "groups": ["devs"]},
        "object": {"metadata": {"name": "test1", "namespace": "default"}}
    })
}

/// The `(name, expression)` conditions as the matcher takes them.
fn conditions(conds: &[(&str, &str)]) -> Vec<MatchCondition> {
    conds
        .iter()
        .map(|(n, e)| MatchCondition::new(*n, *e))
        .collect()
}

/// The conditions compiled in the newest environment.
fn compile(conds: &[(&str, &str)]) -> MatchConditions {
    MatchConditions::compile(&Environment::latest(), &conditions(conds)).unwrap()
}

fn decide(conds: &[(&str, &str)], policy: FailurePolicy) -> Decision<'static> {
    // The apiserver's decisions, conditions that do not compile included.
    let compiled =
        MatchConditions::compile_lenient(&Environment::latest(), &conditions(conds)).unwrap();
    let req = request();
    compiled
        .decide(&Activation::from_request(&req), policy)
        .into_owned()
}

fn skip(name: &str) -> Decision<'_> {
    Decision::skip_condition(name)
}

/// The error a skip under `failurePolicy: Ignore` carries: (condition, message, out of budget).
fn ignored(d: &Decision<'_>) -> (String, String, bool) {
    match d {
        Decision::Skip(Skip::Ignored(e)) => (
            e.condition().to_owned(),
            e.message().to_owned(),
            e.out_of_budget(),
        ),
        other => panic!("not an ignored error: {other:?}"),
    }
}

#[test]
fn all_true_or_empty_calls() {
    assert_eq!(
        decide(&[("a", "true")], FailurePolicy::Fail),
        Decision::Call
    );
    assert_eq!(
        decide(&[("a", "true"), ("b", "true")], FailurePolicy::Fail),
        Decision::Call
    );
    assert_eq!(decide(&[], FailurePolicy::Fail), Decision::Call);
}

#[test]
fn first_false_by_order_skips() {
    assert_eq!(
        decide(&[("test1", "false")], FailurePolicy::Fail),
        skip("test1")
    );
    assert_eq!(
        decide(
            &[("test1", "false"), ("test2", "false")],
            FailurePolicy::Fail
        ),
        skip("test1")
    );
    assert_eq!(
        decide(
            &[("test2", "true"), ("test1", "false")],
            FailurePolicy::Fail
        ),
        skip("test1")
    );
    assert_eq!(
        decide(
            &[("t2", "true"), ("t1", "false"), ("t3", "true")],
            FailurePolicy::Fail
        ),
        skip("t1")
    );
}

#[test]
fn false_beats_errors_under_both_policies() {
    let conds = [
        ("e1", ERR),
        ("t", "true"),
        ("f", "false"),
        ("t2", "true"),
        ("e2", ERR),
    ];
    assert_eq!(decide(&conds, FailurePolicy::Fail), skip("f"));
    assert_eq!(decide(&conds, FailurePolicy::Ignore), skip("f"));
}

#[test]
fn errors_follow_the_failure_policy() {
    let conds = [("e1", ERR), ("t", "true"), ("t2", "true"), ("e2", ERR)];
    assert_eq!(
        decide(&conds, FailurePolicy::Fail),
        Decision::Reject {
            message: format!(
                "expression '{ERR}' resulted in error: no such key: nonExistentProperty"
            )
            .into()
        }
    );
    assert_eq!(
        ignored(&decide(&conds, FailurePolicy::Ignore)),
        (
            "e1".to_owned(),
            format!("expression '{ERR}' resulted in error: no such key: nonExistentProperty"),
            false
        )
    );
    // The error carried is the one `Fail` rejects with, on every road.
    let compiled =
        MatchConditions::compile_lenient(&Environment::latest(), &conditions(&conds)).unwrap();
    let review = serde_json::json!({"request": request()}).to_string();
    let by_bytes = compiled
        .decide_review(review.as_bytes(), FailurePolicy::Ignore)
        .unwrap();
    assert_eq!(by_bytes, decide(&conds, FailurePolicy::Ignore));
    let req = request();
    let report = compiled.explain(&Activation::from_request(&req), FailurePolicy::Ignore);
    assert_eq!(report.decision, by_bytes);
}

#[test]
fn the_apiserver_counts_errors_before_the_first_false_condition() {
    let count = |conds: &[(&str, &str)]| {
        let compiled =
            MatchConditions::compile_lenient(&Environment::latest(), &conditions(conds)).unwrap();
        let req = request();
        compiled
            .decide_counting(&Activation::from_request(&req), FailurePolicy::Ignore)
            .1
    };
    assert_eq!(count(&[("e1", ERR), ("f", "false"), ("e2", ERR)]), 1);
    assert_eq!(count(&[("e1", ERR), ("t", "true"), ("e2", ERR)]), 2);
    assert_eq!(count(&[("t", "true")]), 0);
}

#[test]
fn distinct_errors_aggregate() {
    let conds = [("e1", ERR), ("e2", "1 / 0 == 1")];
    assert_eq!(
        decide(&conds, FailurePolicy::Fail),
        Decision::Reject {
            message: format!(
                "[expression '{ERR}' resulted in error: no such key: nonExistentProperty, expression '1 / 0 == 1' resulted in error: division by zero]"
            )
            .into()
        }
    );
}

#[test]
fn compile_errors_are_condition_errors() {
    let conds = [("bad", "1 + 1"), ("ok", "true")];
    assert_eq!(
        decide(&conds, FailurePolicy::Fail),
        Decision::Reject {
            message: "compilation error: must evaluate to bool but got int".into()
        }
    );
    let conds = [("bad", "params.x == 1"), ("no", "false")];
    assert_eq!(decide(&conds, FailurePolicy::Fail), skip("no"));
}

#[test]
fn strict_compilation_names_every_condition_that_does_not_compile() {
    let env = Environment::kubernetes(matchcond_compiler::KubeVersion::V1_34);
    let conds = [
        MatchCondition::new("bad", "1 + 1"),
        MatchCondition::new("ok", "true"),
        MatchCondition::new("typo", "request.userinfo.username == 'alice'"),
    ];
    let err = MatchConditions::compile(&env, &conds).unwrap_err();
    let failing: Vec<(usize, &str)> = err
        .conditions()
        .iter()
        .map(|c| (c.index(), c.name()))
        .collect();
    assert_eq!(failing, [(0, "bad"), (2, "typo")]);
    assert_eq!(
        err.conditions()[1].error().to_string(),
        "compilation failed: ERROR: <input>:1:8: undefined field 'userinfo'\n | request.userinfo.username == 'alice'\n | .......^"
    );
    assert_eq!(
        err.to_string(),
        "matchConditions[0] \"bad\": must evaluate to bool but got int\n\
         matchConditions[2] \"typo\": compilation failed: ERROR: <input>:1:8: undefined field 'userinfo'\n | request.userinfo.username == 'alice'\n | .......^"
    );
    assert!(MatchConditions::compile(&env, &conds[1..2]).is_ok());
}

#[test]
fn per_call_limit_is_a_condition_error() {
    let compiled = compile(&[("c", "[1, 2, 3].all(x, x > 0)")]).with_per_call_limit(5);
    let req = request();
    let report = compiled.explain(&Activation::from_request(&req), FailurePolicy::Fail);
    assert_eq!(
        report.decision,
        Decision::Reject {
            message: "expression '[1, 2, 3].all(x, x > 0)' resulted in error: operation cancelled: actual cost limit exceeded".into()
        }
    );
    assert_eq!(report.conditions[0].cost, 6);
}

#[test]
fn shared_budget_exhaustion_beats_a_false_condition() {
    // Each evaluation of the comprehension costs 16; the budget admits one.
    let expr = "[1, 2, 3].all(x, x > 0)";
    let compiled = compile(&[("is-false", "false"), ("a", expr), ("b", expr)]).with_budget(20);
    let req = request();
    let act = Activation::from_request(&req);
    assert_eq!(
        compiled.decide(&act, FailurePolicy::Fail),
        Decision::Reject {
            message: OUT_OF_BUDGET.into()
        }
    );
    assert_eq!(
        ignored(&compiled.decide(&act, FailurePolicy::Ignore)),
        ("b".to_owned(), OUT_OF_BUDGET.to_owned(), true)
    );
    let report = compiled.explain(&act, FailurePolicy::Fail);
    assert_eq!(report.conditions[0].outcome, ConditionOutcome::Value(false));
    assert_eq!(report.conditions[1].cost, 16);
    assert_eq!(
        report.conditions[2].outcome,
        ConditionOutcome::Error(OUT_OF_BUDGET.into())
    );
    assert_eq!(report.evaluation_error.as_deref(), Some(OUT_OF_BUDGET));
}

#[test]
fn budget_may_be_used_exactly() {
    let expr = "[1, 2, 3].all(x, x > 0)";
    let compiled = compile(&[("a", expr), ("t", "true")]).with_budget(16);
    let req = request();
    assert_eq!(
        compiled.decide(&Activation::from_request(&req), FailurePolicy::Fail),
        Decision::Call
    );
}

#[test]
fn more_than_64_conditions_is_an_error() {
    let env = Environment::latest();
    let conds: Vec<MatchCondition> = (0..65)
        .map(|i| MatchCondition::new(format!("c{i}"), "true"))
        .collect();
    let err = MatchConditions::compile(&env, &conds).unwrap_err();
    assert_eq!(
        err.to_string(),
        "matchConditions: Too many: 65: must have at most 64 items"
    );
    assert!(MatchConditions::compile(&env, &conds[..64]).is_ok());
}

/// The conditions of a decision share its request lookups, but what one condition
/// remembered of the paths it walked is not another's: each reads its own paths.
#[test]
fn conditions_of_one_decision_read_their_own_paths() {
    let conds = [
        (
            "app",
            "object.metadata.labels.app == 'web' && object.metadata.labels.app != 'db'",
        ),
        // `spec` is missing: the left side errs before reaching `tier`, the right side
        // walks to it and errs too.
        ("tier", "has(object.spec.tier) || object.spec.tier == 'web'"),
    ];
    let compiled = compile(&conds);
    let req = serde_json::json!({
        "uid": "u", "operation": "CREATE", "namespace": "default", "name": "web",
        "kind": {"group": "", "version": "v1", "kind": "Pod"},
        "resource": {"group": "", "version": "v1", "resource": "pods"},
        "userInfo": {"username": "alice"},
        "object": {"metadata": {"labels": {"app": "web"}}}
    });
    let act = Activation::from_request(&req);
    let outcomes: Vec<_> = compiled
        .explain(&act, FailurePolicy::Fail)
        .conditions
        .into_iter()
        .map(|c| (c.outcome, c.cost))
        .collect();
    assert_eq!(
        outcomes,
        [
            (ConditionOutcome::Value(true), 10),
            (
                ConditionOutcome::Error(
                    "expression 'has(object.spec.tier) || object.spec.tier == 'web'' resulted in error: no such key: spec".into()
                ),
                4
            ),
        ]
    );
    // Each alone gives the same.
    for (i, c) in conds.iter().enumerate() {
        let alone = compile(&[*c]);
        let r = alone.explain(&act, FailurePolicy::Fail).conditions;
        assert_eq!((r[0].outcome.clone(), r[0].cost), outcomes[i], "{}", c.0);
    }
}
