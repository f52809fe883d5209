//! Loops for profilers (perf, samply): one operation repeated, its result printed.
//!
//! ```text
//! cargo run --release --example profile -- compile [ITERATIONS]
//! cargo run --release --example profile -- set SET REQUEST [ITERATIONS] [floor|raw|validate|metrics]
//! ```
//!
//! `compile` compiles a typical condition. `set` decides a condition set of the benchmark
//! workload on one of its requests (`set typical3 pod-create`, `set heavy
//! large-configmap-create 20`): with the engine from the parsed request (the workload's mock
//! authorizer bound when a condition reads it), with the hand-written floor (`floor`), or
//! from the review's bytes (`raw`, beside one `serde_json` pass that only validates them), or
//! plain and with the apiserver's metrics recorded, interleaved (`metrics`). `PROFILE_ONLY=i`
//! keeps condition `i` of the set alone.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use matchcond::authz::Authorizer;
use matchcond::{
    Activation, CompileOptions, Environment, FailurePolicy, MatchCondition, MatchConditions,
};
use matchcond_bench::authz::MockAuthorizer;
use matchcond_bench::floor::Floor;
use matchcond_bench::Workload;

/// Runs `f` `n` times; the time per run and the last result.
fn timed<T>(n: u32, mut f: impl FnMut() -> T) -> (Duration, Option<T>) {
    let start = Instant::now();
    let mut last = None;
    for _ in 0..n {
        last = Some(f());
    }
    (start.elapsed() / n.max(1), last)
}

fn compile(n: u32) {
    let env = Environment::latest();
    let expr = "has(object.metadata.labels) && 'app' in object.metadata.labels && object.metadata.labels['app'] == 'web'";
    let opts = CompileOptions::default().with_result_type(matchcond::Type::Bool);
    let (per, last) = timed(n, || env.compile(black_box(expr), &opts).is_ok());
    println!("compile: {last:?}, {per:?} per compilation");
}

fn set(set: &str, request: &str, n: u32, mode: Option<&str>) {
    let w = Workload::builtin().unwrap();
    let spec = w.sets.iter().find(|s| s.name == set).expect("no such set");
    let mut specs = w.set_conditions(spec);
    if let Some(i) = std::env::var("PROFILE_ONLY")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        specs = vec![specs.swap_remove(i)];
    }
    let conditions: Vec<MatchCondition> = specs
        .iter()
        .map(|c| MatchCondition::new(c.name.as_str(), c.expression.as_str()))
        .collect();
    let bytes = &w.request(request).expect("no such request").raw;
    let review: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    let req = review.get("request").expect("no request");
    let c = MatchConditions::compile(&Environment::latest(), &conditions).unwrap();
    match mode {
        Some("floor") => {
            let floor = Floor::new(&specs).unwrap();
            let (per, last) = timed(n, || floor.decide(black_box(req)));
            println!("{set} on {request} (floor): {last:?}, {per:?} per decision");
        }
        Some("validate") => {
            let (per, last) = timed(n, || matchcond_bench::floor::validate_raw(black_box(bytes)));
            println!("{request}: one validating serde_json pass: {last:?}, {per:?} per pass");
        }
        Some("metrics") => {
            // Plain and recorded decisions interleaved in rounds (the machine is shared):
            // the median of the rounds' ratios.
            use matchcond::dispatch::HookKind;
            use matchcond::metrics::MatchConditionMetrics;
            let metrics = MatchConditionMetrics::new();
            let hook = metrics.webhook("profile.example.com", HookKind::Validating);
            let op = req["operation"].as_str().unwrap_or_default().to_owned();
            let rounds = 41;
            let per_round = (n / rounds).max(1);
            let mut ratios = Vec::new();
            let (mut plain_all, mut recorded_all) = (Duration::ZERO, Duration::ZERO);
            let plain = || {
                timed(per_round, || {
                    let act = Activation::from_request(black_box(req));
                    c.decide(&act, FailurePolicy::Fail)
                })
                .0
            };
            let recorded = || {
                timed(per_round, || {
                    let act = Activation::from_request(black_box(req));
                    hook.decide(&c, &act, FailurePolicy::Fail, &op)
                })
                .0
            };
            for round in 0..rounds {
                // Each goes first in every other round: neither gains from the order.
                let (plain, recorded) = if round % 2 == 0 {
                    let p = plain();
                    (p, recorded())
                } else {
                    let r = recorded();
                    (plain(), r)
                };
                ratios.push(recorded.as_secs_f64() / plain.as_secs_f64());
                plain_all += plain;
                recorded_all += recorded;
            }
            ratios.sort_by(f64::total_cmp);
            let median = ratios[ratios.len() / 2];
            println!(
                "{set} on {request}: plain {:?}, with metrics {:?} per decision; median ratio {median:.3} over {rounds} rounds",
                plain_all / rounds,
                recorded_all / rounds
            );
        }
        Some("raw") => {
            let (raw, last) = timed(n, || c.decide_review(black_box(bytes), FailurePolicy::Fail));
            let (validate, _) = timed(n, || {
                black_box(matchcond_bench::floor::validate_raw(black_box(bytes)))
            });
            println!("{set} on {request} from bytes: {last:?}, {raw:?} per decision; one validating serde_json pass {validate:?}");
        }
        _ => {
            let authorizer: Option<Arc<dyn Authorizer>> = c
                .uses_authorizer()
                .then(|| Arc::new(MockAuthorizer) as Arc<dyn Authorizer>);
            let (per, last) = timed(n, || {
                let mut act = Activation::from_request(black_box(req));
                if let Some(a) = &authorizer {
                    act = act.with_authorizer(Arc::clone(a));
                }
                c.decide(&act, FailurePolicy::Fail)
            });
            println!("{set} on {request}: {last:?}, {per:?} per decision");
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| args.get(i).map(String::as_str);
    let iterations =
        |i: usize, default: u32| arg(i).and_then(|s| s.parse().ok()).unwrap_or(default);
    match arg(0) {
        Some("compile") => compile(iterations(1, 10_000)),
        Some("set") => set(
            arg(1).unwrap_or("typical3"),
            arg(2).unwrap_or("pod-create"),
            iterations(3, 1000),
            arg(4),
        ),
        _ => {
            eprintln!("usage: profile compile [ITERATIONS] | profile set SET REQUEST [ITERATIONS] [floor|raw|validate|metrics]");
            std::process::exit(2);
        }
    }
}
