//! Size limits on the values an evaluation creates.
//!
//! cel-go's cost model charges some operations far less than the memory or time they take
//! (`l + l` costs 1 whatever the lists' sizes; `s.replace('', t)` is charged by the size of
//! `s` only; `'%s'.format([x])` by the size of the format), and the apiserver relies on
//! the request's size limit and Go's garbage collector. Here every operation that can
//! create a large value checks the size of its result *before* allocating it, and each
//! evaluation counts what its function calls create:
//!
//! - a string or bytes value created by a function is at most [`MAX_STRING_SIZE`] bytes;
//! - a list created by a function is at most [`MAX_LIST_SIZE`] elements;
//! - the strings, bytes, lists and maps created by the function calls of one evaluation
//!   take at most [`MAX_CREATED_SIZE`] bytes in total (a list element or map entry counts
//!   as the size of its values; an element appended to a comprehension's result counts
//!   once);
//! - a regular expression pattern is at most [`MAX_REGEX_PATTERN_SIZE`] bytes (its compiled
//!   form is bounded by [`matchcond_gocompat::regexp::REGEX_SIZE_LIMIT`]; both are checked
//!   where patterns are compiled, in [`matchcond_gocompat::regexp`]).
//!
//! With the apiserver's per-call cost limit, no value reaching the first two limits could be
//! traversed within the budget (traversal costs 0.1 per byte and at least 1 per element),
//! and string concatenation reaches the cost limit before the size limit. Exceeding one of
//! the first two is an error of the call (`string size exceeds limit: …`, `list size
//! exceeds limit: …`); exceeding the third aborts the evaluation, as the cost limit does.

use crate::error::{ErrorKind, EvalError};

/// The most bytes of a string or bytes value a function may create.
pub const MAX_STRING_SIZE: usize = 10_000_000;

/// The most elements of a list a function may create.
pub const MAX_LIST_SIZE: usize = 1_000_000;

/// The most bytes the values created by the function calls of one evaluation may take in
/// total.
pub const MAX_CREATED_SIZE: u64 = 100_000_000;

pub use matchcond_gocompat::regexp::MAX_PATTERN_SIZE as MAX_REGEX_PATTERN_SIZE;

/// The bytes a list element counts for in [`MAX_CREATED_SIZE`].
pub const ELEMENT_SIZE: u64 = std::mem::size_of::<crate::value::Value<'static>>() as u64;

/// Fails when a string or bytes value of `size` bytes may not be created.
pub fn check_string_size(size: usize) -> Result<(), EvalError> {
    check_size("string", size, MAX_STRING_SIZE)
}

/// Fails when a list of `size` elements may not be created.
pub fn check_list_size(size: usize) -> Result<(), EvalError> {
    check_size("list", size, MAX_LIST_SIZE)
}

/// `<what> size exceeds limit: size: <size>, limit <limit>` past the limit.
fn check_size(what: &str, size: usize, limit: usize) -> Result<(), EvalError> {
    if size > limit {
        Err(EvalError::new(
            ErrorKind::SizeLimitExceeded,
            format!("{what} size exceeds limit: size: {size}, limit {limit}"),
        ))
    } else {
        Ok(())
    }
}

/// The error that aborts an evaluation whose calls created more than [`MAX_CREATED_SIZE`].
pub fn created_size_exceeded() -> EvalError {
    EvalError::new(
        ErrorKind::SizeLimitExceeded,
        format!(
            "operation cancelled: created values size limit exceeded: limit {MAX_CREATED_SIZE}"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_inclusive() {
        assert!(check_string_size(MAX_STRING_SIZE).is_ok());
        assert_eq!(
            check_string_size(MAX_STRING_SIZE + 1).unwrap_err().message,
            "string size exceeds limit: size: 10000001, limit 10000000"
        );
        assert!(check_list_size(MAX_LIST_SIZE).is_ok());
        let e = check_list_size(MAX_LIST_SIZE + 1).unwrap_err();
        assert_eq!(e.kind, ErrorKind::SizeLimitExceeded);
        assert_eq!(
            e.message,
            "list size exceeds limit: size: 1000001, limit 1000000"
        );
    }
}

#[cfg(test)]
mod size_tests {
    /// The size limit on created values counts elements at this size: a change of the
    /// value's layout would change which evaluations fail.
    #[test]
    fn a_value_takes_32_bytes() {
        assert_eq!(super::ELEMENT_SIZE, 32);
    }
}
