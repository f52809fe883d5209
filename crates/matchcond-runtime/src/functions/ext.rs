//! Function implementations (ext).
use super::Function;

/// The overloads this module implements.
pub static FUNCTIONS: &[(&str, Function)] = &[];
