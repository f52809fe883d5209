//! Per condition × request on the shared workload (the built-in copy of the benchmark workload): one evaluation
//! from the parsed request, the engine's activation (or the cel crate's conversion)
//! included, beside the hand-written floor. Groups are `condition/<condition>/<request>`
//! with `engine`, `floor` and `cel_crate`; select with a filter, e.g.
//! `cargo bench --bench conditions -- condition/spec-changed/`. The 53 filler conditions
//! are left out (they share two shapes with `exclude-kube-system` and
//! `exclude-system-masters`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_main, Criterion};
use matchcond::Environment;
use matchcond_bench::celcrate::{CelCondition, CelCrate};
use matchcond_bench::engine::EngineCondition;
use matchcond_bench::floor::Floor;
use matchcond_bench::{Outcome, Workload};

fn conditions(c: &mut Criterion) {
    let w = Workload::builtin().unwrap();
    let env = Environment::latest();
    let cel = Arc::new(CelCrate::new().unwrap());
    for spec in w.conditions.iter().filter(|c| !c.filler) {
        let engine = EngineCondition::compile(&env, spec).unwrap();
        let floor = Floor::new(&[spec]).unwrap();
        let check = &floor.checks()[0];
        let celc = CelCondition::compile(Arc::clone(&cel), &spec.expression);
        for r in &w.requests {
            let req = &r.request;
            let want = w.expected_outcome(&spec.name, &r.name).unwrap();
            assert_eq!(
                Outcome::of(engine.eval(req)),
                want,
                "{} on {}",
                spec.name,
                r.name
            );
            assert_eq!(Outcome::of(floor.eval(check, req)), want);
            let mut g = c.benchmark_group(format!("condition/{}/{}", spec.name, r.name));
            g.bench_function("engine", |b| {
                b.iter(|| black_box(engine.eval(black_box(req))))
            });
            g.bench_function("floor", |b| {
                b.iter(|| black_box(floor.eval(check, black_box(req))))
            });
            // The cel crate runs only where it gives the expected result.
            if let Some(celc) = celc
                .as_ref()
                .filter(|cc| cc.eval(req).map(Outcome::of) == Some(want))
            {
                g.bench_function("cel_crate", |b| {
                    b.iter(|| black_box(celc.eval(black_box(req))))
                });
            }
            g.finish();
        }
    }
}

mod settings;

mod group {
    //! The benchmark group (criterion's macro generates undocumented items).
    #![allow(missing_docs)]
    use super::conditions;
    use super::settings::with_times;
    use criterion::criterion_group;
    use std::time::Duration;

    criterion_group! {
        name = benches;
        config = with_times(Duration::from_millis(300), Duration::from_secs(1));
        targets = conditions
    }
}

criterion_main!(group::benches);
