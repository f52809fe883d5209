//! Runs one condition set of the benchmark workload on one request in a loop (for profilers):
//! `profile_set SET REQUEST [ITERATIONS] [floor|raw]`, e.g. `profile_set heavy large-configmap-create 20`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
use matchcond::{Activation, Environment, FailurePolicy, MatchCondition, MatchConditions};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let set = args.get(1).map(String::as_str).unwrap_or("typical3");
    let request = args.get(2).map(String::as_str).unwrap_or("pod-create");
    let n: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let w = matchcond_bench::Workload::builtin().unwrap();
    let spec = w.sets.iter().find(|s| s.name == set).unwrap();
    let specs = w.set_conditions(spec);
    let conditions: Vec<MatchCondition> = specs
        .iter()
        .map(|c| MatchCondition::new(c.name.as_str(), c.expression.as_str()))
        .collect();
    let raw = &w.request(request).unwrap().raw;
    let text = std::str::from_utf8(raw).unwrap();
    let review: serde_json::Value = serde_json::from_str(text).unwrap();
    let req = &review["request"];
    let c = MatchConditions::compile(&Environment::latest(), &conditions).unwrap();
    if args.get(4).map(String::as_str) == Some("floor") {
        // The hand-written floor of the same set.
        let floor = matchcond_bench::floor::Floor::new(&specs).unwrap();
        let start = std::time::Instant::now();
        let mut last = None;
        for _ in 0..n {
            last = Some(floor.decide(std::hint::black_box(req)));
        }
        let per = start.elapsed() / n.max(1) as u32;
        println!("{set} on {request} (floor): {last:?}, {per:?} per decision");
        return;
    }
    if args.get(4).map(String::as_str) == Some("raw") {
        let bytes = text.as_bytes();
        let start = std::time::Instant::now();
        let mut last = None;
        for _ in 0..n {
            last = Some(c.decide_review(std::hint::black_box(bytes), FailurePolicy::Fail));
        }
        let raw = start.elapsed() / n.max(1) as u32;
        let start = std::time::Instant::now();
        for _ in 0..n {
            let v: serde_json::Value = serde_json::from_slice(std::hint::black_box(bytes)).unwrap();
            std::hint::black_box(v);
        }
        let parse = start.elapsed() / n.max(1) as u32;
        println!("{set} on {request} from bytes: {last:?}, {raw:?} per decision; serde_json::from_slice alone {parse:?}");
        return;
    }
    let start = std::time::Instant::now();
    let mut last = None;
    // The workload's mock authorizer, bound when a condition reads it (as the bench does).
    let authorizer: Option<std::sync::Arc<dyn matchcond::runtime::authz::Authorizer>> = c
        .uses_authorizer()
        .then(|| std::sync::Arc::new(matchcond_bench::authz::MockAuthorizer) as _);
    for _ in 0..n {
        let mut act = Activation::from_request(std::hint::black_box(req));
        if let Some(a) = &authorizer {
            act = act.with_authorizer(std::sync::Arc::clone(a));
        }
        last = Some(c.decide(&act, FailurePolicy::Fail));
    }
    let per = start.elapsed() / n.max(1) as u32;
    println!("{set} on {request}: {last:?}, {per:?} per decision");
}
