//! Function implementations (time).
use super::Function;

/// The overloads this module implements.
pub static FUNCTIONS: &[(&str, Function)] = &[];
