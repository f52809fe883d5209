//! Declarations of the Kubernetes CEL libraries.
use super::Function;

/// Kubernetes lists library at a version.
pub(crate) fn lists(_version: u32) -> Vec<Function> {
    Vec::new()
}
/// Kubernetes regex library.
pub(crate) fn regex() -> Vec<Function> {
    Vec::new()
}
