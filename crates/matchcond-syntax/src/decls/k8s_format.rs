//! Declarations of a Kubernetes CEL library.
use super::Function;
use crate::types::Type;

/// The functions.
pub(crate) fn functions() -> Vec<Function> {
    Vec::new()
}

/// The type names.
pub(crate) fn types() -> Vec<(&'static str, Type)> {
    Vec::new()
}
