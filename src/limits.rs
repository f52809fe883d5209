//! The limits matchcond enforces beyond the apiserver's cost limits, each checked before
//! the work or allocation it bounds.
//!
//! The apiserver's own limits are at the crate's root: [`PER_CALL_COST_LIMIT`] per
//! expression, [`MATCH_CONDITIONS_BUDGET`] shared by a webhook's conditions and
//! [`MAX_MATCH_CONDITIONS`] conditions per webhook; expressions are at most 100,000 code
//! points, nested at most 250 deep. The others bound what an evaluation creates:
//!
//! - a string or bytes value created by a function is at most [`MAX_STRING_SIZE`] bytes;
//! - a list created by a function is at most [`MAX_LIST_SIZE`] elements;
//! - the values created by the function calls of one evaluation take at most
//!   [`MAX_CREATED_SIZE`] bytes in total;
//! - a regular expression pattern is at most [`MAX_REGEX_PATTERN_SIZE`] bytes, and its
//!   compiled form at most [`REGEX_SIZE_LIMIT`] bytes.
//!
//! Exceeding one of the first two is an error of the call (`string size exceeds limit: …`);
//! exceeding the third aborts the evaluation, as the cost limit does.
//!
//! [`PER_CALL_COST_LIMIT`]: crate::PER_CALL_COST_LIMIT
//! [`MATCH_CONDITIONS_BUDGET`]: crate::MATCH_CONDITIONS_BUDGET
//! [`MAX_MATCH_CONDITIONS`]: crate::MAX_MATCH_CONDITIONS

pub use matchcond_gocompat::regexp::REGEX_SIZE_LIMIT;
pub use matchcond_runtime::limits::{
    MAX_CREATED_SIZE, MAX_LIST_SIZE, MAX_REGEX_PATTERN_SIZE, MAX_STRING_SIZE,
};
