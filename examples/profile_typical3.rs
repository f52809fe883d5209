//! Runs the typical3 decision in a loop (for profilers).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
use matchcond::{Activation, Environment, FailurePolicy, MatchCondition, MatchConditions};
fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let text = std::fs::read_to_string("examples/reviews/pod-create.json").unwrap();
    let review: serde_json::Value = serde_json::from_str(&text).unwrap();
    let req = &review["request"];
    let env = Environment::latest();
    let mut all = vec![
        MatchCondition::new("a", "request.namespace != 'kube-system'"),
        MatchCondition::new("b", "request.dryRun != true"),
        MatchCondition::new("c", "has(object.metadata.labels) && 'app' in object.metadata.labels && object.metadata.labels['app'] == 'web'"),
    ];
    // PROFILE_ONLY=i keeps condition i alone (to profile one condition).
    if let Some(i) = std::env::var("PROFILE_ONLY")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
    {
        all = vec![all.swap_remove(i)];
    }
    let c = MatchConditions::compile(&env, &all).unwrap();
    let mut calls = 0u64;
    if std::env::args().nth(2).as_deref() == Some("floor") {
        for _ in 0..n {
            if floor(std::hint::black_box(req)) {
                calls += 1;
            }
        }
        println!("{calls}");
        return;
    }
    for _ in 0..n {
        let act = Activation::from_request(std::hint::black_box(req));
        if matches!(
            c.decide(&act, FailurePolicy::Fail),
            matchcond::Decision::Call
        ) {
            calls += 1;
        }
    }
    println!("{calls}");
}

/// The same three conditions by hand (true when the webhook is called).
fn floor(req: &serde_json::Value) -> bool {
    use serde_json::Value as J;
    let c1 = matches!(req.get("namespace"), Some(J::String(ns)) if ns != "kube-system");
    let c2 = !matches!(req.get("dryRun"), Some(J::Bool(true)));
    let c3 = matches!(
        req.get("object").and_then(|o| o.get("metadata")).and_then(|m| m.get("labels")).and_then(|l| l.get("app")),
        Some(J::String(a)) if a == "web"
    );
    c1 && c2 && c3
}
