//! The benchmark workload of matchcond (kept in `crates/matchcond-bench/workload` and
//! compiled in, the same files as the shared copy `../shared/bench`): loading it, a generator of
//! realistic audit logs for the replay benchmark ([`audit_log`]), the engine's side ([`engine`]), a hand-written Rust floor doing the same
//! checks ([`floor`]), the `cel` crate as a baseline ([`celcrate`]), the workload's mock
//! authorizer ([`authz`]), the timing harness behind `matchcond bench` ([`harness`]) and
//! the seeded generator of the generated tests ([`rng`]).
//!
//! # Should I be using this crate?
//!
//! Probably not. This is an internal crate of matchcond, the support of the `matchcond bench`
//! command and of the benchmarks; it is not part of the engine. To use the engine, use the
//! `matchcond` crate (the facade at the root of the workspace).

pub mod audit_log;
pub mod authz;
#[cfg(feature = "cel-baseline")]
pub mod celcrate;
#[cfg(not(feature = "cel-baseline"))]
#[path = "celcrate_absent.rs"]
pub mod celcrate;
pub mod engine;
pub mod floor;
pub mod harness;
pub mod rng;
pub mod workload;

pub use workload::{
    builtin_files, find_workload_dir, repository_workload_dir, shared_workload_dir, ConditionSet,
    ConditionSpec, DecisionClass, LoadError, Outcome, Request, Workload,
};
