//! Implementations of CEL functions, keyed by overload id.
//!
//! Every declared overload (see `matchcond_syntax::decls`) has one implementation here with
//! the same id. An implementation receives the arguments (the receiver first for member
//! calls) already evaluated, and may assume the types the declaration promises only after
//! checking them: with dynamic arguments the runtime tries overloads in turn, and an
//! implementation given values of other types returns [`EvalError::no_such_overload`].

use crate::error::EvalError;
use crate::value::Value;

pub mod ext;
pub mod std_ops;
pub mod time;

/// A function implementation.
pub type Function = for<'a> fn(&[Value<'a>]) -> Result<Value<'a>, EvalError>;

/// The implementation of an overload.
pub fn implementation(overload_id: &str) -> Option<Function> {
    std_ops::FUNCTIONS
        .iter()
        .chain(time::FUNCTIONS.iter())
        .chain(ext::FUNCTIONS.iter())
        .find(|(id, _)| *id == overload_id)
        .map(|(_, f)| *f)
}
