//! The harness on the shared workload: every answer verified, every set timed, the floor
//! and the cel crate usable everywhere; and the workload loader's error paths.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;
use std::time::Duration;

use matchcond_bench::harness::{self, measure, Options, Prepared};
use matchcond_bench::workload::{data_size, GROWTH_KEYS};
use matchcond_bench::{DecisionClass, Workload};

fn workload() -> Workload {
    Workload::builtin().unwrap()
}

#[test]
fn the_workload_loads() {
    let w = workload();
    assert_eq!(w.conditions.len(), 73);
    assert_eq!(w.conditions.iter().filter(|c| c.filler).count(), 53);
    let sets: Vec<&str> = w.sets.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(sets, ["typical3", "heavy", "authz2", "max64"]);
    assert_eq!(w.sets[3].conditions.len(), 64);
    let reqs: Vec<&str> = w.requests.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        reqs,
        [
            "pod-create",
            "deployment-update",
            "configmap-delete",
            "large-configmap-create"
        ]
    );
    assert_eq!(
        w.expected_decision("typical3", "configmap-delete"),
        Some(DecisionClass::FailurePolicy)
    );
    for n in GROWTH_KEYS {
        let r = w.truncated_configmap(n).unwrap();
        assert_eq!(data_size(&r).0, n);
    }
    // Sorted order: the first key survives every truncation.
    let small = w.truncated_configmap(64).unwrap();
    let first = small["object"]["data"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    assert_eq!(first, "route-00000.conf");
}

#[test]
fn verification_covers_everything_and_every_baseline_runs() {
    let w = workload();
    let p = Prepared::new(w).unwrap();
    let v = harness::verify(&p).unwrap();
    assert_eq!(v.conditions, 73 * 4 * 2);
    assert_eq!(v.decisions, 16);
    assert!(v.floor_excluded.is_empty());
    for s in &p.sets {
        assert!(s.floor.is_ok(), "{}", s.name);
    }
    if cfg!(feature = "cel-baseline") {
        assert_eq!(v.notes, Vec::<String>::new());
        assert!(v.cel_excluded.is_empty());
        for s in &p.sets {
            assert!(s.cel.is_ok(), "{}", s.name);
        }
    } else {
        // Built without the cel crate: one note, and the baseline left out everywhere.
        assert_eq!(
            v.notes,
            ["cel crate: not built in (build with the cel-baseline feature to compare with it)"]
        );
        assert_eq!(v.cel_excluded.len(), 16);
    }
}

#[test]
fn quick_run_times_every_cell() {
    let w = workload();
    let p = Prepared::new(w).unwrap();
    let v = harness::verify(&p).unwrap();
    let opts = Options {
        budget: Duration::from_micros(200),
        batches: 1,
    };
    let mut seen = 0;
    let rows = harness::run(&p, &v, &opts, |_| seen += 1);
    assert_eq!(rows.len(), 16);
    assert_eq!(seen, 16);
    assert!(rows.iter().all(|r| r.engine.median_ns > 0.0
        && r.floor.is_some()
        && r.cel_crate.is_some() == cfg!(feature = "cel-baseline")));
    assert_eq!(rows[2].decision, DecisionClass::FailurePolicy);
}

#[test]
fn measure_reports_batches() {
    let opts = Options {
        budget: Duration::from_millis(3),
        batches: 3,
    };
    let t = measure(&opts, || std::hint::black_box(1 + 1));
    assert!(t.iterations >= 1);
    assert!(t.min_ns <= t.median_ns && t.median_ns <= t.max_ns);
}

#[test]
fn loader_errors_name_the_file() {
    let e = Workload::load(Path::new("/nonexistent")).unwrap_err();
    assert_eq!(e.path, Path::new("/nonexistent/conditions.yaml"));
    let dir = std::env::temp_dir().join(format!("matchcond-bench-loader-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("conditions.yaml"),
        "conditions: [{name: a, expression: 'true'}]\ncondition_sets: {s: [a, b]}\n",
    )
    .unwrap();
    let e = Workload::load(&dir).unwrap_err();
    assert_eq!(e.message, "condition set s: unknown condition b");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The repository's copy of the workload is the shared one, file for file (when the shared
/// copy is beside the repository; `MATCHCOND_REQUIRE_SHARED=1` makes its absence a failure).
#[test]
fn the_builtin_workload_is_the_shared_one() {
    let Some(shared) = matchcond_bench::shared_workload_dir() else {
        assert!(
            std::env::var_os("MATCHCOND_REQUIRE_SHARED").is_none(),
            "../shared/bench is required (MATCHCOND_REQUIRE_SHARED is set) but not found"
        );
        eprintln!("../shared/bench not found: the built-in workload is not compared");
        return;
    };
    for (rel, bytes) in matchcond_bench::builtin_files() {
        let theirs = std::fs::read(shared.join(rel)).unwrap();
        assert!(
            theirs == bytes,
            "{rel} differs from {}; copy the shared workload into crates/matchcond-bench/workload",
            shared.join(rel).display()
        );
    }
    // Every file of the shared copy's layout is built in.
    let mut shared_files: Vec<String> =
        vec!["conditions.yaml".into(), "expected-outcomes.json".into()];
    for e in std::fs::read_dir(shared.join("requests")).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        shared_files.push(format!("requests/{name}"));
    }
    for f in &shared_files {
        assert!(
            matchcond_bench::builtin_files().any(|(rel, _)| rel == f),
            "{f} of the shared workload is not built in"
        );
    }
}
