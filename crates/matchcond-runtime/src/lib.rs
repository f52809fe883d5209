//! Runtime layer of matchcond: CEL values that view the request in place, function
//! implementations, the evaluator of planned programs and cost accounting.

pub mod activation;
pub mod apimachinery;
pub mod authz;
pub mod cost;
pub mod error;
pub mod fast;
pub mod functions;
pub mod interp;
pub mod limits;
pub mod plan;
pub mod stack;
pub mod value;

pub use activation::Activation;
pub use authz::{
    Attributes, Authorizer, AuthzDecision, AuthzResponse, StaticAuthorizer, StaticRule, UserInfo,
};
pub use error::{ErrorKind, EvalError};
pub use interp::{evaluate, Evaluation, Frame};
pub use value::Value;
