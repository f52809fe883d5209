//! Per-request decision benchmarks on the shared workload (`../shared/bench`): the engine
//! beside a hand-written Rust floor doing the same checks on the same `serde_json::Value`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{criterion_main, Criterion};
use matchcond::{
    Activation, Decision, Environment, FailurePolicy, MatchCondition, MatchConditions,
};
use serde_json::Value as Json;

fn request(name: &str) -> Json {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/bench/requests");
    let text = std::fs::read_to_string(dir.join(format!("{name}.json")))
        .or_else(|_| {
            std::fs::read_to_string(
                PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                    .join("examples/reviews")
                    .join(format!("{name}.json")),
            )
        })
        .expect("bench request");
    let review: Json = serde_json::from_str(&text).unwrap();
    review["request"].clone()
}

/// The floor for `typical3`: the same three conditions, hand-written, with the same
/// decision rules (any false skips; else an error fails; else call).
#[derive(Debug, PartialEq)]
enum FloorDecision {
    Call,
    Skip,
    Fail,
}

fn floor_typical3(req: &Json) -> FloorDecision {
    // exclude-kube-system: request.namespace != 'kube-system' (absent namespace: error)
    let c1 = match req.get("namespace") {
        Some(Json::String(ns)) => Some(ns != "kube-system"),
        _ => None,
    };
    // not-dry-run: request.dryRun != true (absent: false)
    let c2 = match req.get("dryRun") {
        Some(Json::Bool(b)) => Some(!*b),
        None => Some(true),
        _ => None,
    };
    // label-opt-in-app-web: has(object.metadata.labels) && 'app' in labels && labels['app'] == 'web'
    let c3 = match req.get("object") {
        Some(Json::Object(o)) => match o.get("metadata") {
            Some(Json::Object(m)) => match m.get("labels") {
                Some(Json::Object(l)) => match l.get("app") {
                    Some(v) => Some(v == "web"),
                    None => Some(false),
                },
                Some(_) => None,
                None => Some(false),
            },
            _ => None,
        },
        _ => None,
    };
    let results = [c1, c2, c3];
    if results.contains(&Some(false)) {
        FloorDecision::Skip
    } else if results.contains(&None) {
        FloorDecision::Fail
    } else {
        FloorDecision::Call
    }
}

fn typical3(c: &mut Criterion) {
    let env = Environment::latest();
    let conditions = MatchConditions::compile(
        &env,
        &[
            MatchCondition::new("exclude-kube-system", "request.namespace != 'kube-system'"),
            MatchCondition::new("not-dry-run", "request.dryRun != true"),
            MatchCondition::new(
                "label-opt-in-app-web",
                "has(object.metadata.labels) && 'app' in object.metadata.labels && object.metadata.labels['app'] == 'web'",
            ),
        ],
    )
    .unwrap();
    for name in [
        "pod-create",
        "deployment-update",
        "configmap-delete",
        "large-configmap-create",
    ] {
        let req = request(name);
        let engine = conditions.decide(&Activation::from_request(&req), FailurePolicy::Fail);
        let floor = floor_typical3(&req);
        let same = matches!(
            (&engine, &floor),
            (Decision::Call, FloorDecision::Call)
                | (Decision::Skip { .. }, FloorDecision::Skip)
                | (Decision::Reject { .. }, FloorDecision::Fail)
        );
        assert!(same, "{name}: engine {engine:?}, floor {floor:?}");
        let mut g = c.benchmark_group(format!("typical3/{name}"));
        g.bench_function("engine", |b| {
            b.iter(|| {
                let act = Activation::from_request(black_box(&req));
                black_box(conditions.decide(&act, FailurePolicy::Fail))
            })
        });
        g.bench_function("floor", |b| {
            b.iter(|| black_box(floor_typical3(black_box(&req))))
        });
        g.finish();
    }
}

/// Compiling one typical condition: cold (parse, check, plan) and through the cache.
fn compile(c: &mut Criterion) {
    let env = Environment::latest();
    let expr = "has(object.metadata.labels) && 'app' in object.metadata.labels && object.metadata.labels['app'] == 'web'";
    let opts = matchcond::CompileOptions {
        result_type: Some(matchcond::syntax::Type::Bool),
        ..Default::default()
    };
    let mut g = c.benchmark_group("compile");
    g.bench_function("cold", |b| {
        b.iter(|| black_box(env.compile(black_box(expr), &opts).unwrap()))
    });
    env.compile_condition(expr).unwrap();
    g.bench_function("cache-hit", |b| {
        b.iter(|| black_box(env.compile_condition(black_box(expr)).unwrap()))
    });
    g.finish();
}

mod group {
    //! The benchmark group (criterion's macro generates undocumented items).
    #![allow(missing_docs)]
    use super::{compile, typical3};
    use criterion::criterion_group;
    criterion_group!(benches, typical3, compile);
}

criterion_main!(group::benches);
