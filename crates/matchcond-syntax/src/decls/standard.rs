//! Declarations of the CEL standard library.
use super::Function;

/// The standard functions.
pub(crate) fn functions() -> Vec<Function> {
    Vec::new()
}
