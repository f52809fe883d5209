//! The Kubernetes CEL libraries (`k8s.io/apiserver/pkg/cel/library`).

pub mod authz;
pub mod format;
pub mod net;
pub mod quantity;
pub mod semver;
pub mod urls;

use super::Function;

/// Every overload of the Kubernetes libraries implemented here.
pub fn functions() -> impl Iterator<Item = &'static (&'static str, Function)> {
    authz::FUNCTIONS
        .iter()
        .chain(format::FUNCTIONS.iter())
        .chain(net::FUNCTIONS.iter())
        .chain(quantity::FUNCTIONS.iter())
        .chain(semver::FUNCTIONS.iter())
        .chain(urls::FUNCTIONS.iter())
}
