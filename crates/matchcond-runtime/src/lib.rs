//! The runtime of matchcond: CEL values that view the request in place, the function
//! libraries (one folder each: declarations, implementations, costs and versions), the
//! evaluator of planned programs and cost accounting. The Go
//! behaviours the libraries rest on are `matchcond-gocompat`'s.
//!
//! # Should I be using this crate?
//!
//! Probably not. This is an internal crate of matchcond: its API follows what the other
//! crates need and changes without notice. Use the `matchcond` crate (the facade at the root
//! of the workspace), whose curated API is the one kept stable; it does not re-export this
//! crate.

pub mod activation;
pub mod authz;
pub mod cost;
pub mod error;
pub mod fast;
pub mod interp;
pub mod libraries;
pub mod limits;
mod named_format;
pub mod plan;
pub mod request_parts;
pub mod request_schema;
mod request_view;
#[cfg(test)]
mod test_util;
mod time;
pub mod value;

pub use activation::Activation;
pub use authz::{
    Attributes, Authorizer, AuthzDecision, AuthzResponse, StaticAuthorizer, StaticRule, UserInfo,
};
pub use error::{ErrorKind, EvalError};
pub use interp::{evaluate, evaluate_in, Evaluation, Frame};
pub use value::Value;
