//! The `cel` crate baseline when it is not built in (the `cel-baseline` feature is off, as
//! in the `matchcond` command's default build): [`CelCrate::new`] says so, and no value of
//! these types can exist, so the harness leaves the baseline out everywhere.

use std::sync::Arc;

use serde_json::Value as Json;

use crate::workload::{ConditionSpec, DecisionClass};

/// The `cel` crate, not built in: there is no value of this type.
#[derive(Debug)]
pub enum CelCrate {}

impl CelCrate {
    /// Always an error: the baseline is not part of this build.
    pub fn new() -> Result<CelCrate, String> {
        Err("not built in (build with the cel-baseline feature to compare with it)".into())
    }
}

/// A condition set compiled with the `cel` crate, not built in: there is no value of this
/// type.
#[derive(Debug)]
pub enum CelSet {}

impl CelSet {
    /// Cannot be called: no [`CelCrate`] exists.
    pub fn compile(cel: Arc<CelCrate>, _conditions: &[&ConditionSpec]) -> Result<CelSet, String> {
        match *cel {}
    }

    /// Cannot be called: no [`CelSet`] exists.
    pub fn results(&self, _req: &Json) -> Result<Vec<Option<bool>>, String> {
        match *self {}
    }

    /// Cannot be called: no [`CelSet`] exists.
    pub fn decide(&self, _req: &Json) -> Result<DecisionClass, String> {
        match *self {}
    }
}
