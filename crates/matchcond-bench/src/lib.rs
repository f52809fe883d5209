//! The shared benchmark workload of matchcond (`../shared/bench` beside the repository):
//! loading it, the engine's side ([`engine`]), a hand-written Rust floor doing the same
//! checks ([`floor`]), the `cel` crate as a baseline ([`celcrate`]), the workload's mock
//! authorizer ([`authz`]) and the timing harness behind `matchcond bench` ([`harness`]).

pub mod authz;
pub mod celcrate;
pub mod engine;
pub mod floor;
pub mod harness;
pub mod workload;

pub use workload::{
    default_workload_dir, find_workload_dir, ConditionSet, ConditionSpec, DecisionClass, LoadError,
    Outcome, Request, Workload,
};
