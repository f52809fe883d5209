//! Decision benchmarks on the shared workload (the built-in copy of the benchmark workload), each group timing the
//! engine beside the hand-written floor and the `cel` crate (see `matchcond-bench`):
//!
//! * `set/<set>/<request>/parsed` and `.../raw`: one decision of a condition set, from
//!   the parsed request (activation or conversion included) and from the file's bytes
//!   (`serde_json::from_slice` of the whole AdmissionReview included), the raw group with
//!   its own floor `validate`: one `serde_json` pass that only validates the bytes;
//! * `kube/typical3/pod-create`: the kube-rs road beside the raw-bytes road: from the
//!   review's bytes as a kube-rs server receives them (serde into
//!   `AdmissionReview<DynamicObject>`, then `KubeRequest` and the decision), kube's
//!   deserialisation alone, from the already deserialised `AdmissionRequest` (the request
//!   dropped after the decision, as a server drops it), dropping that request alone, and
//!   `KubeRequest::from_dynamic` alone;
//! * `compile`: one condition compiled cold, and through the engine's cache;
//! * `growth/<condition>`: the large ConfigMap truncated to 64…4127 keys, per key
//!   (throughput in elements = keys);
//! * `throughput/<set>/<request>`: decisions per second on 1 thread and on 2 threads
//!   sharing one compiled set, beside a control loop that shares nothing (the machine's
//!   ceiling for 2 threads).
//!
//! Select with a filter, e.g. `cargo bench --bench decision -- set/typical3`. Every
//! answer is checked against `expected-outcomes.json` before it is timed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_main, BenchmarkId, Criterion, Throughput};
use matchcond::Environment;
use matchcond_bench::celcrate::{CelCondition, CelCrate, CelSet};
use matchcond_bench::engine::{EngineCondition, EngineSet};
use matchcond_bench::floor::{validate_raw, Floor};
use matchcond_bench::workload::{data_size, GROWTH_CONDITIONS, GROWTH_KEYS};
use matchcond_bench::{DecisionClass, Outcome, Workload};

#[path = "../tests/common/mod.rs"]
mod common;
use common::workload;

struct Set {
    name: String,
    engine: EngineSet,
    floor: Floor,
    cel: CelSet,
}

fn compile_sets(w: &Workload) -> Vec<Set> {
    let env = Environment::latest();
    let cel = Arc::new(CelCrate::new().unwrap());
    w.sets
        .iter()
        .map(|s| {
            let specs = w.set_conditions(s);
            Set {
                name: s.name.clone(),
                engine: EngineSet::compile(&env, &specs).unwrap(),
                floor: Floor::new(&specs).unwrap(),
                cel: CelSet::compile(Arc::clone(&cel), &specs).unwrap(),
            }
        })
        .collect()
}

/// Per set × request: parsed and raw, engine / floor / cel crate.
fn sets(c: &mut Criterion) {
    let w = workload();
    for s in compile_sets(&w) {
        for r in &w.requests {
            let want = w.expected_decision(&s.name, &r.name).unwrap();
            let req = &r.request;
            let raw = r.raw.as_slice();
            let engine = DecisionClass::of_decision(&s.engine.decide(req));
            assert_eq!(engine, want, "engine: {} on {}", s.name, r.name);
            assert_eq!(s.floor.decide(req), want, "floor: {} on {}", s.name, r.name);
            assert_eq!(s.cel.decide(req), Ok(want), "cel: {} on {}", s.name, r.name);
            let raw_engine = s.engine.decide_raw(raw).unwrap();
            assert_eq!(DecisionClass::of_decision(&raw_engine), want);
            assert_eq!(s.floor.decide_raw(raw), Some(want));
            assert_eq!(s.cel.decide_raw(raw), Ok(want));

            let mut g = c.benchmark_group(format!("set/{}/{}/parsed", s.name, r.name));
            g.bench_function("engine", |b| {
                b.iter(|| black_box(s.engine.decide(black_box(req))))
            });
            g.bench_function("floor", |b| {
                b.iter(|| black_box(s.floor.decide(black_box(req))))
            });
            g.bench_function("cel_crate", |b| {
                b.iter(|| black_box(s.cel.decide(black_box(req))))
            });
            g.finish();

            let mut g = c.benchmark_group(format!("set/{}/{}/raw", s.name, r.name));
            g.throughput(Throughput::Bytes(raw.len() as u64));
            g.bench_function("engine", |b| {
                b.iter(|| black_box(s.engine.decide_raw(black_box(raw))))
            });
            g.bench_function("floor", |b| {
                b.iter(|| black_box(s.floor.decide_raw(black_box(raw))))
            });
            g.bench_function("cel_crate", |b| {
                b.iter(|| black_box(s.cel.decide_raw(black_box(raw))))
            });
            // The floor of the road from bytes: one pass that only validates them.
            g.bench_function("validate", |b| {
                b.iter(|| black_box(validate_raw(black_box(raw))))
            });
            g.finish();
        }
    }
}

/// The cost of the apiserver's metrics (feature `metrics`): a decision plain and recorded,
/// on a call (typical3 / pod-create: the clock read, nothing observed) and on a rejection
/// (typical3 / configmap-delete: time and errors observed).
fn metrics(c: &mut Criterion) {
    use matchcond::dispatch::HookKind;
    use matchcond::metrics::MatchConditionMetrics;
    use matchcond::FailurePolicy;

    let w = workload();
    let s = compile_sets(&w)
        .into_iter()
        .find(|s| s.name == "typical3")
        .unwrap();
    let metrics = MatchConditionMetrics::new();
    let hook = metrics.webhook("typical3.example.com", HookKind::Validating);
    let conditions = s.engine.conditions();
    for request in ["pod-create", "configmap-delete"] {
        let req = &w.request(request).unwrap().request;
        let operation = req["operation"].as_str().unwrap().to_owned();
        let mut g = c.benchmark_group(format!("metrics/typical3/{request}"));
        g.bench_function("plain", |b| {
            b.iter(|| {
                let act = s.engine.activation(black_box(req));
                black_box(conditions.decide(&act, FailurePolicy::Fail));
            })
        });
        g.bench_function("metrics", |b| {
            b.iter(|| {
                let act = s.engine.activation(black_box(req));
                black_box(hook.decide(conditions, &act, FailurePolicy::Fail, &operation));
            })
        });
        g.finish();
    }
}

/// The kube-rs road on typical3 / pod-create, beside the raw-bytes road.
fn kube(c: &mut Criterion) {
    use criterion::BatchSize;
    use kube_core::admission::{AdmissionRequest, AdmissionReview};
    use kube_core::DynamicObject;
    use matchcond::kube::KubeRequest;

    let w = workload();
    let (set, request) = ("typical3", "pod-create");
    let s = compile_sets(&w)
        .into_iter()
        .find(|s| s.name == set)
        .unwrap();
    let r = w.request(request).unwrap();
    let raw = r.raw.as_slice();
    let want = w.expected_decision(set, request).unwrap();
    let typed = |raw: &[u8]| -> AdmissionRequest<DynamicObject> {
        let review: AdmissionReview<DynamicObject> = serde_json::from_slice(raw).unwrap();
        review.try_into().unwrap()
    };
    let via_kube = |raw: &[u8]| {
        let request = KubeRequest::from_dynamic(typed(raw)).unwrap();
        DecisionClass::of_decision(&s.engine.decide(request.json()))
    };
    assert_eq!(via_kube(raw), want);
    let parsed = typed(raw);

    let mut g = c.benchmark_group(format!("kube/{set}/{request}"));
    g.bench_function("raw_bytes", |b| {
        b.iter(|| black_box(s.engine.decide_raw(black_box(raw))))
    });
    g.bench_function("kube_from_bytes", |b| {
        b.iter(|| black_box(via_kube(black_box(raw))))
    });
    g.bench_function("kube_deserialise_only", |b| {
        b.iter(|| black_box(typed(black_box(raw))))
    });
    g.bench_function("kube_from_typed_request", |b| {
        b.iter_batched(
            || parsed.clone(),
            |req| {
                let request = KubeRequest::from_dynamic(req).unwrap();
                black_box(DecisionClass::of_decision(&s.engine.decide(request.json())))
            },
            BatchSize::SmallInput,
        )
    });
    g.bench_function("kube_drop_typed_request", |b| {
        b.iter_batched(|| parsed.clone(), drop, BatchSize::SmallInput)
    });
    g.bench_function("kube_request_only", |b| {
        b.iter_batched(
            || parsed.clone(),
            |req| black_box(KubeRequest::from_dynamic(req).unwrap()),
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

/// Compiling one typical condition: cold (parse, check, plan), through the cache, and
/// the cel crate's compile (parse only: it has no checker).
fn compile(c: &mut Criterion) {
    let env = Environment::latest();
    let expr = "has(object.metadata.labels) && 'app' in object.metadata.labels && object.metadata.labels['app'] == 'web'";
    let opts = matchcond::CompileOptions::default().with_result_type(matchcond::Type::Bool);
    let cel = CelCrate::new().unwrap();
    let mut g = c.benchmark_group("compile");
    g.bench_function("cold", |b| {
        b.iter(|| black_box(env.compile(black_box(expr), &opts).unwrap()))
    });
    env.compile_condition(expr).unwrap();
    g.bench_function("cache-hit", |b| {
        b.iter(|| black_box(env.compile_condition(black_box(expr)).unwrap()))
    });
    g.bench_function("cel_crate", |b| {
        b.iter(|| black_box(cel.compile(black_box(expr)).unwrap()))
    });
    g.finish();
}

/// The two configmap conditions on the large ConfigMap truncated to its first N keys:
/// one evaluation per iteration (activation or conversion included), N elements.
fn growth(c: &mut Criterion) {
    let w = workload();
    let env = Environment::latest();
    let cel = Arc::new(CelCrate::new().unwrap());
    let requests: Vec<(usize, serde_json::Value)> = GROWTH_KEYS
        .iter()
        .map(|&n| (n, w.truncated_configmap(n).unwrap()))
        .collect();
    for name in GROWTH_CONDITIONS {
        let spec = w.condition(name).unwrap();
        let engine = EngineCondition::compile(&env, spec).unwrap();
        let floor = Floor::new(&[spec]).unwrap();
        let check = &floor.checks()[0];
        let celc = CelCondition::compile(Arc::clone(&cel), &spec.expression).unwrap();
        let mut g = c.benchmark_group(format!("growth/{name}"));
        for (n, req) in &requests {
            let (keys, bytes) = data_size(req);
            assert_eq!(keys, *n, "the large ConfigMap has {keys} keys");
            let want = w
                .expected_outcome(name, matchcond_bench::workload::LARGE_CONFIGMAP)
                .unwrap();
            assert_eq!(
                Outcome::of(engine.eval(req)),
                want,
                "{name} at {n} keys ({bytes} bytes)"
            );
            assert_eq!(Outcome::of(floor.eval(check, req)), want);
            assert_eq!(celc.eval(req).map(Outcome::of), Some(want));
            g.throughput(Throughput::Elements(*n as u64));
            g.bench_with_input(BenchmarkId::new("engine", n), req, |b, req| {
                b.iter(|| black_box(engine.eval(black_box(req))))
            });
            g.bench_with_input(BenchmarkId::new("floor", n), req, |b, req| {
                b.iter(|| black_box(floor.eval(check, black_box(req))))
            });
            g.bench_with_input(BenchmarkId::new("cel_crate", n), req, |b, req| {
                b.iter(|| black_box(celc.eval(black_box(req))))
            });
        }
        g.finish();
    }
}

/// Decisions per second: 2 decisions per iteration, made by 1 thread, or by 2 threads
/// sharing one compiled set and one request. The 2 threads serve one queue of decisions
/// (taken in chunks from a shared counter, as a server's worker pool would), so a thread
/// the host pauses for a moment does not leave the other idle at the end.
///
/// `control` is the machine's own ceiling: a loop of register arithmetic that reads and
/// writes no memory, timed in the same way. Its ratio is what 2 threads give code that
/// shares nothing at all; the others are to be read against it.
fn throughput(c: &mut Criterion) {
    let w = workload();
    let sets = compile_sets(&w);
    for (set, request) in [("typical3", "pod-create"), ("max64", "deployment-update")] {
        let s = sets.iter().find(|s| s.name == set).unwrap();
        let req = &w.request(request).unwrap().request;
        // The control loop lasts about as long as the floor's decision.
        let rounds = control_rounds(|| {
            black_box(s.floor.decide(black_box(req)));
        });
        let mut g = c.benchmark_group(format!("throughput/{set}/{request}"));
        g.throughput(Throughput::Elements(2));
        let impls: [(&str, &(dyn Fn() -> DecisionClass + Sync)); 4] = [
            ("engine", &|| {
                DecisionClass::of_decision(&s.engine.decide(req))
            }),
            ("floor", &|| s.floor.decide(req)),
            ("cel_crate", &|| s.cel.decide(req).unwrap()),
            ("control", &|| control(rounds)),
        ];
        for (name, op) in impls {
            g.bench_function(BenchmarkId::new(name, "1-thread"), |b| {
                b.iter(|| {
                    black_box(op());
                    black_box(op())
                })
            });
            g.bench_function(BenchmarkId::new(name, "2-threads"), |b| {
                b.iter_custom(|iters| on_threads(2, 2 * iters, op))
            });
        }
        g.finish();
    }
}

/// Register arithmetic only: `rounds` steps of a multiplicative hash chain.
fn control(rounds: u64) -> DecisionClass {
    let mut x = black_box(0x9e37_79b9_7f4a_7c15_u64);
    for _ in 0..rounds {
        x = (x ^ (x >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    }
    if black_box(x) == 0 {
        DecisionClass::Skip
    } else {
        DecisionClass::Call
    }
}

/// The number of control rounds that takes about as long as `op`.
fn control_rounds(op: impl Fn()) -> u64 {
    let per = |f: &dyn Fn()| {
        let start = Instant::now();
        for _ in 0..2000 {
            f();
        }
        start.elapsed().as_nanos().max(1)
    };
    let base = per(&|| {
        black_box(control(1000));
    });
    let target = per(&op);
    u64::try_from(target * 1000 / base)
        .unwrap_or(u64::MAX)
        .max(1)
}

/// Makes `total` calls of `op` on `threads` threads started together, each taking the next
/// chunk of calls from a shared counter until none are left; the time until the last ends.
fn on_threads(threads: usize, total: u64, op: &(dyn Fn() -> DecisionClass + Sync)) -> Duration {
    const CHUNK: u64 = 64;
    let next = AtomicU64::new(0);
    let start = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let first = next.fetch_add(CHUNK, Ordering::Relaxed);
                if first >= total {
                    break;
                }
                for _ in first..(first + CHUNK).min(total) {
                    black_box(op());
                }
            });
        }
    });
    start.elapsed()
}

mod settings;

mod group {
    //! The benchmark groups (criterion's macro generates undocumented items).
    #![allow(missing_docs)]
    use super::settings::with_times;
    use super::{compile, growth, kube, metrics, sets, throughput};
    use criterion::criterion_group;
    use std::time::Duration;

    criterion_group! {
        name = benches;
        config = with_times(Duration::from_millis(500), Duration::from_secs(2));
        targets = sets, kube, metrics, compile, growth, throughput
    }
}

criterion_main!(group::benches);
