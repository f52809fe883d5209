//! Function implementations (std_ops).
use super::Function;

/// The overloads this module implements.
pub static FUNCTIONS: &[(&str, Function)] = &[];
