//! Runtime layer of matchcond: CEL values that view the request in place, function
//! implementations, the evaluator of planned programs and cost accounting.

pub mod error;
pub mod functions;
pub mod value;

pub use error::{ErrorKind, EvalError};
pub use value::Value;
