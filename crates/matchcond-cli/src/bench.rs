//! `matchcond bench`: the benchmark workload (built in, or `--workload DIR`), verified against
//! its expected outcomes, then timed per condition set × request for the engine, the
//! hand-written floor and the `cel` crate (see the `matchcond-bench` crate); then, from the
//! review's bytes, the engine beside one `serde_json` pass that only validates them.

use std::path::Path;

use matchcond_bench::harness::{self, Options, Prepared, RawRow, Row, Timing};
use matchcond_bench::Workload;
use serde_json::{json, Value as Json};

use crate::input::InputError;
use crate::Output;

/// `matchcond bench`: exit 0 when every answer of the engine is the expected one (then
/// the table or the JSON rows are printed), 1 when one differs, 2 when the workload
/// cannot be loaded.
pub fn bench(quick: bool, output: Output, workload: Option<&str>) -> Result<u8, InputError> {
    let w = match workload {
        Some(d) => Workload::load(Path::new(d)),
        None => Workload::builtin(),
    }
    .map_err(|e| InputError(e.to_string()))?;
    let dir = w.dir.clone();
    let prepared = match Prepared::new(w) {
        Ok(p) => p,
        Err(e) => {
            errln!("matchcond bench: {e}");
            return Ok(1);
        }
    };
    let verification = match harness::verify(&prepared) {
        Ok(v) => v,
        Err(e) => {
            errln!("matchcond bench: {e}");
            return Ok(1);
        }
    };
    errln!(
        "matchcond bench: expected outcomes verified: {} condition results, {} decisions ({})",
        verification.conditions,
        verification.decisions,
        dir.display()
    );
    for n in &verification.notes {
        errln!("matchcond bench: baseline left out: {n}");
    }
    let options = if quick {
        Options::quick()
    } else {
        Options::full()
    };
    match output {
        Output::Text => {
            print_header(&dir, &options);
            let rows = harness::run(&prepared, &verification, &options, |r| {
                outln!("{}", text_row(r))
            });
            outln!();
            outln!(
                "{} rows; ns per decision, median of {} batches; parsed input, activation/conversion included.",
                rows.len(),
                options.batches
            );
            outln!();
            outln!("from the review's bytes, beside one serde_json pass that only validates them");
            outln!(
                "{:<8} {:<24} {:>11} {:>11} {:>12}",
                "set",
                "request",
                "engine",
                "validate",
                "engine/floor"
            );
            let raw = match harness::run_raw(&prepared, &options, |r| outln!("{}", raw_text_row(r)))
            {
                Ok(raw) => raw,
                Err(e) => {
                    errln!("matchcond bench: {e}");
                    return Ok(1);
                }
            };
            outln!();
            outln!(
                "{} rows; ns per decision from the AdmissionReview's bytes, median of {} batches.",
                raw.len(),
                options.batches
            );
        }
        Output::Json => {
            let rows = harness::run(&prepared, &verification, &options, |_| {});
            let raw = match harness::run_raw(&prepared, &options, |_| {}) {
                Ok(raw) => raw,
                Err(e) => {
                    errln!("matchcond bench: {e}");
                    return Ok(1);
                }
            };
            outln!(
                "{}",
                serde_json::json!({
                    "schemaVersion": crate::lint_cmd::SCHEMA_VERSION,
                    "rows": json_rows(&rows),
                    "rawRows": json_raw_rows(&raw),
                })
            );
        }
    }
    Ok(0)
}

fn print_header(dir: &Path, options: &Options) {
    outln!(
        "workload {} — {} ms per implementation and cell, {} batches",
        dir.display(),
        options.budget.as_millis(),
        options.batches
    );
    outln!(
        "{:<8} {:<24} {:<14} {:>11} {:>11} {:>11} {:>12} {:>10}",
        "set",
        "request",
        "decision",
        "engine",
        "floor",
        "cel crate",
        "engine/floor",
        "cel/engine"
    );
}

/// A duration in ns, with a unit that keeps it short.
pub fn human_ns(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}×", a / b),
        _ => "-".to_string(),
    }
}

fn text_row(r: &Row) -> String {
    let t = |t: Option<Timing>| t.map_or("-".to_string(), |t| human_ns(t.median_ns));
    let e = Some(r.engine.median_ns);
    let f = r.floor.map(|t| t.median_ns);
    let c = r.cel_crate.map(|t| t.median_ns);
    format!(
        "{:<8} {:<24} {:<14} {:>11} {:>11} {:>11} {:>12} {:>10}",
        r.set,
        r.request,
        r.decision.to_string(),
        t(Some(r.engine)),
        t(r.floor),
        t(r.cel_crate),
        ratio(e, f),
        ratio(c, e)
    )
}

fn raw_text_row(r: &RawRow) -> String {
    format!(
        "{:<8} {:<24} {:>11} {:>11} {:>12}",
        r.set,
        r.request,
        human_ns(r.engine.median_ns),
        human_ns(r.floor.median_ns),
        ratio(Some(r.engine.median_ns), Some(r.floor.median_ns))
    )
}

/// The rows from the review's bytes: `{"set", "request", "engine_ns", "floor_ns"}`
/// (medians in ns; the floor is one `serde_json` pass that only validates the bytes).
pub fn json_raw_rows(rows: &[RawRow]) -> Json {
    Json::Array(
        rows.iter()
            .map(|r| {
                json!({
                    "set": r.set,
                    "request": r.request,
                    "engine_ns": r.engine.median_ns.round() as u64,
                    "floor_ns": r.floor.median_ns.round() as u64,
                })
            })
            .collect(),
    )
}

/// The JSON rows: `{"set", "request", "engine_ns", "floor_ns", "cel_crate_ns"}` (medians
/// in ns; `null` where a baseline cannot run the set).
pub fn json_rows(rows: &[Row]) -> Json {
    Json::Array(
        rows.iter()
            .map(|r| {
                json!({
                    "set": r.set,
                    "request": r.request,
                    "engine_ns": r.engine.median_ns.round() as u64,
                    "floor_ns": r.floor.map(|t| t.median_ns.round() as u64),
                    "cel_crate_ns": r.cel_crate.map(|t| t.median_ns.round() as u64),
                })
            })
            .collect(),
    )
}
