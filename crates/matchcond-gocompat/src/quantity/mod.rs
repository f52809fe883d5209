//! Kubernetes resource quantities (`k8s.io/apimachinery/pkg/api/resource.Quantity`):
//! parsing, comparison, addition and subtraction, conversions and the canonical text, with
//! the same two internal representations as the Go type (a scaled `int64` when the value
//! fits, an arbitrary-precision decimal otherwise), since some results depend on which one
//! a value has (`isInteger` is false for any decimal-backed value).
//!
//! The CEL library built on them (`kubernetes.quantity`) lives in the runtime; this module
//! holds the Go type's arithmetic only.

mod amount;
mod big;

pub use amount::*;
pub use big::Nat;
