//! `matchcond bench`: the shape of its output, the verification of the expected outcomes
//! and its exit codes (no assertion on times).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use std::path::{Path, PathBuf};

use common::{run_in, Run};

/// Whether the binary times the cel crate (built with the cel-baseline feature): when it
/// does not, it says so once on standard error.
fn cel_built(stderr: &str) -> bool {
    !stderr.contains("baseline left out: cel crate: not built in")
}

/// A copy of the workload without the large request (fast), with `edit` applied to its
/// expected outcomes.
fn small_workload(name: &str, edit: impl FnOnce(&mut serde_json::Value)) -> PathBuf {
    let src = matchcond_bench::repository_workload_dir();
    let dir = std::env::temp_dir().join(format!("matchcond-bench-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("requests")).unwrap();
    std::fs::copy(src.join("conditions.yaml"), dir.join("conditions.yaml")).unwrap();
    let mut expected: serde_json::Value =
        serde_json::from_slice(&std::fs::read(src.join("expected-outcomes.json")).unwrap())
            .unwrap();
    let small = ["pod-create", "deployment-update", "configmap-delete"];
    expected["requests"] = serde_json::json!(small);
    for r in small {
        std::fs::copy(
            src.join("requests").join(format!("{r}.json")),
            dir.join("requests").join(format!("{r}.json")),
        )
        .unwrap();
    }
    edit(&mut expected);
    std::fs::write(
        dir.join("expected-outcomes.json"),
        serde_json::to_vec(&expected).unwrap(),
    )
    .unwrap();
    dir
}

/// `matchcond bench --quick` with `options` on the workload in `workload`.
fn quick_bench(workload: &str, options: &[&str]) -> Run {
    let mut args = vec!["bench", "--quick"];
    args.extend_from_slice(options);
    args.extend(["--workload", workload]);
    run_in(Path::new("/"), &args)
}

#[test]
fn quick_json_rows_for_every_set_and_request() {
    // No --workload: the built-in workload.
    let r = run_in(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &["bench", "--quick", "--output", "json"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "matchcond bench: expected outcomes verified: 584 condition results, 16 decisions"
        ),
        "{}",
        r.stderr
    );
    let out: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(out["schemaVersion"], 1);
    let rows = out["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 16);
    let mut seen = Vec::new();
    for row in rows {
        let obj = row.as_object().unwrap();
        let mut keys: Vec<&str> = obj.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            ["cel_crate_ns", "engine_ns", "floor_ns", "request", "set"],
            "{row}"
        );
        assert!(row["engine_ns"].as_u64().unwrap() > 0, "{row}");
        for k in ["floor_ns", "cel_crate_ns"] {
            assert!(row[k].is_null() || row[k].as_u64().is_some(), "{row}");
        }
        seen.push(format!(
            "{}/{}",
            row["set"].as_str().unwrap(),
            row["request"].as_str().unwrap()
        ));
    }
    // Sets in file order, requests in the order of expected-outcomes.json.
    assert_eq!(seen[0], "typical3/pod-create");
    assert_eq!(seen[3], "typical3/large-configmap-create");
    assert_eq!(seen[15], "max64/large-configmap-create");
    // Every condition of the workload has a floor and runs in the cel crate, when the
    // binary has it (the cel-baseline feature).
    assert!(rows.iter().all(|r| !r["floor_ns"].is_null()));
    let cel = cel_built(&r.stderr);
    assert!(rows.iter().all(|r| r["cel_crate_ns"].is_null() != cel));
    // From the bytes: every set and request again, beside the validating pass.
    let raw = out["rawRows"].as_array().unwrap();
    assert_eq!(raw.len(), 16);
    for row in raw {
        let mut keys: Vec<&str> = row
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(keys, ["engine_ns", "floor_ns", "request", "set"], "{row}");
        assert!(row["engine_ns"].as_u64().unwrap() > 0, "{row}");
        assert!(row["floor_ns"].as_u64().unwrap() > 0, "{row}");
    }
    assert_eq!(raw[0]["set"], "typical3");
    assert_eq!(raw[0]["request"], "pod-create");
}

#[test]
fn quick_text_table() {
    let dir = small_workload("text", |_| {});
    let r = quick_bench(dir.to_str().unwrap(), &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("expected outcomes verified: 438 condition results, 12 decisions"),
        "{}",
        r.stderr
    );
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(lines[0].starts_with("workload "), "{}", r.stdout);
    let header: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(
        header,
        [
            "set",
            "request",
            "decision",
            "engine",
            "floor",
            "cel",
            "crate",
            "engine/floor",
            "cel/engine"
        ]
    );
    let rows: Vec<Vec<&str>> = lines[2..14]
        .iter()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(&rows[0][..3], ["typical3", "pod-create", "call"]);
    assert_eq!(
        &rows[2][..3],
        ["typical3", "configmap-delete", "failurePolicy"]
    );
    assert_eq!(&rows[11][..3], ["max64", "configmap-delete", "skip"]);
    for row in &rows {
        if cel_built(&r.stderr) {
            // engine, floor, cel crate (value + unit each), then two ratios.
            assert_eq!(row.len(), 11, "{row:?}");
            assert!(row[9].ends_with('×') && row[10].ends_with('×'), "{row:?}");
        } else {
            // engine, floor (value + unit each), no cel crate, then the ratios.
            assert_eq!(row.len(), 10, "{row:?}");
            assert!(
                row[7] == "-" && row[8].ends_with('×') && row[9] == "-",
                "{row:?}"
            );
        }
    }
    assert_eq!(lines[14], "");
    assert!(lines[15].starts_with("12 rows; ns per decision, median of 3 batches"));
    assert_eq!(lines[16], "");
    assert_eq!(
        lines[17],
        "from the review's bytes, beside one serde_json pass that only validates them"
    );
    let header: Vec<&str> = lines[18].split_whitespace().collect();
    assert_eq!(
        header,
        ["set", "request", "engine", "validate", "engine/floor"]
    );
    for line in &lines[19..31] {
        let row: Vec<&str> = line.split_whitespace().collect();
        // set, request, engine and validate (value + unit each), the ratio.
        assert_eq!(row.len(), 7, "{row:?}");
        assert!(row[6].ends_with('×'), "{row:?}");
    }
    assert_eq!(
        &lines[19].split_whitespace().collect::<Vec<_>>()[..2],
        ["typical3", "pod-create"]
    );
    assert_eq!(lines[31], "");
    assert!(lines[32].starts_with("12 rows; ns per decision from the AdmissionReview's bytes"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_wrong_expected_outcome_fails_with_a_clear_message() {
    let dir = small_workload("wrong", |e| {
        e["conditions"]["create-only"]["pod-create"] = "false".into();
    });
    let r = quick_bench(dir.to_str().unwrap(), &["--output", "json"]);
    assert_eq!(r.code, 1);
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr,
        "matchcond bench: the engine differs from expected-outcomes.json: condition create-only on pod-create: expected false, got true\n"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_wrong_expected_decision_fails() {
    let dir = small_workload("decision", |e| {
        e["condition_sets"]["typical3"]["configmap-delete"] = "skip".into();
    });
    let r = quick_bench(dir.to_str().unwrap(), &[]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        "matchcond bench: the engine differs from expected-outcomes.json: set typical3 on configmap-delete: expected skip, got failurePolicy\n"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_missing_workload_is_unusable_input() {
    let r = quick_bench("/nonexistent-workload", &[]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "");
    assert!(
        r.stderr
            .starts_with("matchcond: /nonexistent-workload/conditions.yaml: "),
        "{}",
        r.stderr
    );
}
