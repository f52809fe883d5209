//! Implementations of a Kubernetes CEL library.
use crate::functions::Function;

/// The overloads this module implements.
pub static FUNCTIONS: &[(&str, Function)] = &[];
