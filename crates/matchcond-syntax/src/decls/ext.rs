//! Declarations of cel-go's extension libraries.
use super::Function;

/// Optional types.
pub(crate) fn optionals() -> Vec<Function> {
    Vec::new()
}
/// Strings extension at a version.
pub(crate) fn strings(_version: u32) -> Vec<Function> {
    Vec::new()
}
/// Sets extension.
pub(crate) fn sets() -> Vec<Function> {
    Vec::new()
}
/// Lists extension at a version.
pub(crate) fn lists(_version: u32) -> Vec<Function> {
    Vec::new()
}
