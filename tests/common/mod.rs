//! What the facade's integration tests share: work on a small stack with a time bound, the
//! benchmark workload's conditions as the matcher takes them, conditions compiled in the
//! newest environment, and the example reviews.
// Each test file uses a part of these.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use matchcond::{Environment, MatchCondition, MatchConditions};
use matchcond_bench::Workload;

/// The stack of the threads the tests run hostile inputs on: 2 MiB, a common default for
/// threads a host spawns.
pub const STACK: usize = 2 * 1024 * 1024;

/// Runs `f` on a thread named `what` with a 2 MiB stack; it must not overflow or panic.
pub fn on_small_stack<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .name(what.to_owned())
        .stack_size(STACK)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap_or_else(|_| panic!("{what}: panicked or overflowed the stack"))
}

/// Like [`on_small_stack`], and it must take less than `limit`.
pub fn bounded<T: Send + 'static>(
    what: &str,
    limit: Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let started = Instant::now();
    let out = on_small_stack(what, f);
    let took = started.elapsed();
    assert!(took < limit, "{what}: took {took:?}");
    out
}

/// The benchmark workload: the repository's copy, which the bench crate's tests compare
/// with the shared one.
pub fn workload() -> Workload {
    Workload::builtin().unwrap()
}

/// The conditions of a set of the workload, in order, as the matcher takes them.
pub fn set_conditions(w: &Workload, set: &str) -> Vec<MatchCondition> {
    let set = w.sets.iter().find(|s| s.name == set).unwrap();
    w.set_conditions(set)
        .iter()
        .map(|c| MatchCondition::new(c.name.as_str(), c.expression.as_str()))
        .collect()
}

/// The `(name, expression)` conditions compiled in the newest environment.
pub fn compile(conditions: &[(&str, &str)]) -> MatchConditions {
    let conditions: Vec<MatchCondition> = conditions
        .iter()
        .map(|(name, expression)| MatchCondition::new(*name, *expression))
        .collect();
    MatchConditions::compile(&Environment::latest(), &conditions).unwrap()
}

/// The `request` of one of the repository's example reviews (`examples/reviews/<name>.json`).
pub fn example_request(name: &str) -> serde_json::Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/reviews")
        .join(format!("{name}.json"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["request"].clone()
}
