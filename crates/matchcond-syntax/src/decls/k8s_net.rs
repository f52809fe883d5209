//! Declarations of the Kubernetes IP and CIDR libraries.
use super::Function;
use crate::types::Type;

/// The IP library's functions.
pub(crate) fn ip_functions() -> Vec<Function> {
    Vec::new()
}

/// The CIDR library's functions.
pub(crate) fn cidr_functions() -> Vec<Function> {
    Vec::new()
}

/// The IP library's type names.
pub(crate) fn ip_types() -> Vec<(&'static str, Type)> {
    Vec::new()
}

/// The CIDR library's type names.
pub(crate) fn cidr_types() -> Vec<(&'static str, Type)> {
    Vec::new()
}
