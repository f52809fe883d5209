//! The timing harness behind `matchcond bench`: it first checks the engine's answers
//! (every condition on every request, and every set's decision) against
//! `expected-outcomes.json`, then times, per set × request and on the parsed request,
//! one decision of the engine (activation included), of the floor and of the `cel`
//! crate (conversion included): the median of several batches, in ns per decision. From
//! the review's bytes ([`run_raw`]), it times the engine's road from bytes beside its floor,
//! one `serde_json` pass that only validates the same bytes.

use std::collections::BTreeSet;
use std::fmt;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use matchcond::Environment;

use crate::celcrate::{CelCrate, CelSet};
use crate::engine::EngineSet;
use crate::floor::{validate_raw, Floor};
use crate::workload::{ConditionSpec, DecisionClass, Outcome, Workload};

/// How long to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The time spent measuring one implementation on one set × request (warm-up
    /// excluded; a single decision slower than a batch's share runs once per batch).
    pub budget: Duration,
    /// The number of batches whose median is reported.
    pub batches: usize,
}

impl Options {
    /// A few hundred milliseconds per implementation and cell, 7 batches.
    pub fn full() -> Options {
        Options {
            budget: Duration::from_millis(300),
            batches: 7,
        }
    }

    /// A short run (3 batches, 5 ms per implementation and cell): checks everything,
    /// times roughly.
    pub fn quick() -> Options {
        Options {
            budget: Duration::from_millis(5),
            batches: 3,
        }
    }
}

/// A timing: ns per operation over the batches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// The median of the batches.
    pub median_ns: f64,
    /// The fastest batch.
    pub min_ns: f64,
    /// The slowest batch.
    pub max_ns: f64,
    /// Operations per batch.
    pub iterations: u64,
}

/// Times `op`: one warm-up call (which also sizes the batches), then `batches` batches.
pub fn measure<R>(options: &Options, mut op: impl FnMut() -> R) -> Timing {
    let batches = options.batches.max(1);
    let start = Instant::now();
    black_box(op());
    let once = start.elapsed().as_nanos().max(1);
    let share = options.budget.as_nanos() / u128::try_from(batches).unwrap_or(1);
    let iterations = u64::try_from((share / once).max(1)).unwrap_or(u64::MAX);
    let mut per_op: Vec<f64> = (0..batches)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..iterations {
                black_box(op());
            }
            t.elapsed().as_nanos() as f64 / iterations as f64
        })
        .collect();
    per_op.sort_by(f64::total_cmp);
    Timing {
        median_ns: per_op.get(per_op.len() / 2).copied().unwrap_or(0.0),
        min_ns: per_op.first().copied().unwrap_or(0.0),
        max_ns: per_op.last().copied().unwrap_or(0.0),
        iterations,
    }
}

/// One set × request of the report.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The set.
    pub set: String,
    /// The request.
    pub request: String,
    /// The decision (verified against the expected outcome).
    pub decision: DecisionClass,
    /// The engine.
    pub engine: Timing,
    /// The floor; `None` when it cannot decide the set (a condition without a floor).
    pub floor: Option<Timing>,
    /// The cel crate; `None` when it cannot run the set (a condition it cannot compile,
    /// or a result that differs from the expected one).
    pub cel_crate: Option<Timing>,
}

/// One set × request decided from the review's bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct RawRow {
    /// The set.
    pub set: String,
    /// The request.
    pub request: String,
    /// The engine from the bytes: the review read (only what the conditions read is
    /// built), then decided.
    pub engine: Timing,
    /// The floor: one `serde_json` pass that only validates the bytes
    /// ([`crate::floor::validate_raw`]).
    pub floor: Timing,
}

/// What was checked against `expected-outcomes.json`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verification {
    /// Condition results of the engine checked (every condition on every request,
    /// alone and inside each set).
    pub conditions: usize,
    /// Set decisions of the engine checked.
    pub decisions: usize,
    /// Why a baseline was left out of a set × request, one line each.
    pub notes: Vec<String>,
    /// The set × request pairs where the floor is left out.
    pub floor_excluded: BTreeSet<(String, String)>,
    /// The set × request pairs where the cel crate is left out.
    pub cel_excluded: BTreeSet<(String, String)>,
}

/// The engine's answer differs from the expected one, or the workload cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HarnessError(pub String);

impl fmt::Display for HarnessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HarnessError {}

/// One set, compiled for the three implementations.
#[derive(Debug)]
pub struct PreparedSet {
    /// The set's name.
    pub name: String,
    /// Its conditions.
    pub conditions: Vec<ConditionSpec>,
    /// The engine's compiled set.
    pub engine: EngineSet,
    /// The floor, or the name of a condition without one.
    pub floor: Result<Floor, String>,
    /// The cel crate's compiled set, or why it cannot compile it.
    pub cel: Result<CelSet, String>,
}

/// The workload, compiled.
#[derive(Debug)]
pub struct Prepared {
    /// The workload.
    pub workload: Workload,
    /// Its sets, in order.
    pub sets: Vec<PreparedSet>,
    env: Environment,
    /// The cel crate, or why it is not there (built without the `cel-baseline` feature).
    cel: Result<Arc<CelCrate>, String>,
}

impl Prepared {
    /// Compiles every set with the engine (in the newest environment), the floor and the
    /// cel crate. Fails when the engine does not compile a condition.
    pub fn new(workload: Workload) -> Result<Prepared, HarnessError> {
        let env = Environment::latest();
        let cel = CelCrate::new().map(Arc::new);
        let mut sets = Vec::new();
        for s in &workload.sets {
            let specs = workload.set_conditions(s);
            let engine = EngineSet::compile(&env, &specs)
                .map_err(|e| HarnessError(format!("set {}: the engine: {e}", s.name)))?;
            let floor = Floor::new(&specs);
            let cel_set = match &cel {
                Ok(c) => CelSet::compile(Arc::clone(c), &specs),
                Err(e) => Err(e.clone()),
            };
            sets.push(PreparedSet {
                name: s.name.clone(),
                conditions: specs.into_iter().cloned().collect(),
                engine,
                floor,
                cel: cel_set,
            });
        }
        Ok(Prepared {
            workload,
            sets,
            env,
            cel,
        })
    }
}

/// The reasons a baseline is left out of a set × request (empty: it is usable there).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Usable {
    floor: Vec<String>,
    cel: Vec<String>,
}

fn mismatch(what: &str, cond: &str, req: &str, want: Outcome, got: Outcome) -> String {
    format!("{what}: condition {cond} on {req}: expected {want}, got {got}")
}

/// The error for what expected-outcomes.json lacks (`what`: "outcome for condition",
/// "decision for set") for a subject on a request.
fn unlisted(what: &str, subject: &str, request: &str) -> HarnessError {
    HarnessError(format!(
        "expected-outcomes.json has no {what} {subject} on {request}"
    ))
}

/// Checks the engine against the expected outcomes: every condition alone on every
/// request, then every set's per-condition results and decision. The floor and the cel
/// crate are checked too; where they differ, or cannot run, they are left out of that
/// set × request (see [`Verification::notes`]).
pub fn verify(p: &Prepared) -> Result<Verification, HarnessError> {
    let w = &p.workload;
    let mut v = Verification::default();
    let mut baseline_bad: Vec<(String, String, &'static str, String)> = Vec::new();
    for c in &w.conditions {
        let engine = EngineSet::compile(&p.env, &[c]).map_err(HarnessError)?;
        let floor = Floor::new(&[c]);
        let cel = p
            .cel
            .as_ref()
            .ok()
            .map(|k| CelSet::compile(Arc::clone(k), &[c]));
        for r in &w.requests {
            let want = w
                .expected_outcome(&c.name, &r.name)
                .ok_or_else(|| unlisted("outcome for condition", &c.name, &r.name))?;
            let got = Outcome::of(engine.results(&r.request).first().copied().flatten());
            if got != want {
                return Err(HarnessError(mismatch(
                    "the engine differs from expected-outcomes.json",
                    &c.name,
                    &r.name,
                    want,
                    got,
                )));
            }
            v.conditions += 1;
            let mut bad = |baseline: &'static str, message: String| {
                baseline_bad.push((c.name.clone(), r.name.clone(), baseline, message));
            };
            if let Ok(f) = &floor {
                let got = Outcome::of(f.results(&r.request).next().flatten());
                if got != want {
                    bad("floor", mismatch("floor", &c.name, &r.name, want, got));
                }
            }
            match &cel {
                None => {}
                Some(Ok(s)) => match s.results(&r.request) {
                    Ok(res) => {
                        let got = Outcome::of(res.first().copied().flatten());
                        if got != want {
                            bad("cel", mismatch("cel crate", &c.name, &r.name, want, got));
                        }
                    }
                    Err(e) => bad("cel", format!("cel crate: converting {}: {e}", r.name)),
                },
                Some(Err(e)) => bad("cel", format!("cel crate cannot compile {e}")),
            }
        }
    }
    for s in &p.sets {
        for r in &w.requests {
            let want = w
                .expected_decision(&s.name, &r.name)
                .ok_or_else(|| unlisted("decision for set", &s.name, &r.name))?;
            let results = s.engine.results(&r.request);
            for (c, got) in s.conditions.iter().zip(&results) {
                let exp = w
                    .expected_outcome(&c.name, &r.name)
                    .unwrap_or(Outcome::Error);
                if Outcome::of(*got) != exp {
                    return Err(HarnessError(mismatch(
                        &format!(
                            "the engine differs from expected-outcomes.json in set {}",
                            s.name
                        ),
                        &c.name,
                        &r.name,
                        exp,
                        Outcome::of(*got),
                    )));
                }
                v.conditions += 1;
            }
            let got = DecisionClass::of_decision(&s.engine.decide(&r.request));
            if got != want {
                return Err(HarnessError(format!(
                    "the engine differs from expected-outcomes.json: set {} on {}: expected {want}, got {got}",
                    s.name, r.name
                )));
            }
            v.decisions += 1;
            let usable = usable(s, &r.name, &r.request, want, &baseline_bad);
            let key = (s.name.clone(), r.name.clone());
            if !usable.floor.is_empty() {
                v.floor_excluded.insert(key.clone());
            }
            if p.cel.is_err() || !usable.cel.is_empty() {
                v.cel_excluded.insert(key);
            }
            let cel_notes = if p.cel.is_ok() {
                usable.cel
            } else {
                Vec::new()
            };
            v.notes.extend(
                usable
                    .floor
                    .into_iter()
                    .chain(cel_notes)
                    .map(|n| format!("{} on {}: {n}", s.name, r.name)),
            );
        }
    }
    if let Err(e) = &p.cel {
        v.notes.push(format!("cel crate: {e}"));
    }
    Ok(v)
}

fn usable(
    s: &PreparedSet,
    req_name: &str,
    req: &serde_json::Value,
    want: DecisionClass,
    baseline_bad: &[(String, String, &'static str, String)],
) -> Usable {
    let mut u = Usable::default();
    let bad = |which: &str| -> Vec<String> {
        baseline_bad
            .iter()
            .filter(|(c, r, w, _)| {
                *w == which && r == req_name && s.conditions.iter().any(|x| &x.name == c)
            })
            .map(|(_, _, _, m)| m.clone())
            .collect()
    };
    match &s.floor {
        Err(c) => u.floor.push(format!("floor: no floor for condition {c}")),
        Ok(f) => {
            u.floor = bad("floor");
            let got = f.decide(req);
            if u.floor.is_empty() && got != want {
                u.floor
                    .push(format!("floor: decision expected {want}, got {got}"));
            }
        }
    }
    match &s.cel {
        Err(e) => u.cel.push(format!("cel crate cannot compile {e}")),
        Ok(c) => {
            u.cel = bad("cel");
            if u.cel.is_empty() {
                match c.decide(req) {
                    Ok(got) if got == want => {}
                    Ok(got) => u
                        .cel
                        .push(format!("cel crate: decision expected {want}, got {got}")),
                    Err(e) => u.cel.push(format!("cel crate: {e}")),
                }
            }
        }
    }
    u
}

/// Times every set × request (parsed input): the engine, and the floor and the cel crate
/// where [`verify`] found them usable. `progress` sees each row as it is measured.
pub fn run(
    p: &Prepared,
    verification: &Verification,
    options: &Options,
    mut progress: impl FnMut(&Row),
) -> Vec<Row> {
    let w = &p.workload;
    let mut rows = Vec::new();
    for s in &p.sets {
        for r in &w.requests {
            let req = &r.request;
            let key = (s.name.clone(), r.name.clone());
            let decision = DecisionClass::of_decision(&s.engine.decide(req));
            let engine = measure(options, || s.engine.decide(req));
            let floor = match &s.floor {
                Ok(f) if !verification.floor_excluded.contains(&key) => {
                    Some(measure(options, || f.decide(req)))
                }
                _ => None,
            };
            let cel_crate = match &s.cel {
                Ok(c) if !verification.cel_excluded.contains(&key) => {
                    Some(measure(options, || c.decide(req)))
                }
                _ => None,
            };
            let row = Row {
                set: s.name.clone(),
                request: r.name.clone(),
                decision,
                engine,
                floor,
                cel_crate,
            };
            progress(&row);
            rows.push(row);
        }
    }
    rows
}

/// Times every set × request from the review's bytes: the engine's road from bytes
/// (verified to give the decision of the parsed request) beside one `serde_json` pass that
/// only validates the bytes. `progress` sees each row as it is measured.
pub fn run_raw(
    p: &Prepared,
    options: &Options,
    mut progress: impl FnMut(&RawRow),
) -> Result<Vec<RawRow>, HarnessError> {
    let w = &p.workload;
    let mut rows = Vec::new();
    for s in &p.sets {
        for r in &w.requests {
            let raw = r.raw.as_slice();
            let parsed = DecisionClass::of_decision(&s.engine.decide(&r.request));
            let from_bytes = s
                .engine
                .decide_raw(raw)
                .map(|d| DecisionClass::of_decision(&d));
            if from_bytes != Some(parsed) || !validate_raw(raw) {
                return Err(HarnessError(format!(
                    "set {} on {}: the decision from the review's bytes differs from the parsed request's",
                    s.name, r.name
                )));
            }
            let engine = measure(options, || s.engine.decide_raw(raw));
            let floor = measure(options, || validate_raw(raw));
            let row = RawRow {
                set: s.name.clone(),
                request: r.name.clone(),
                engine,
                floor,
            };
            progress(&row);
            rows.push(row);
        }
    }
    Ok(rows)
}
