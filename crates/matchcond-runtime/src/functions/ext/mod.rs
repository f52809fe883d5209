//! Implementations of cel-go's extension libraries (optional types, strings, sets, lists) and
//! of the Kubernetes `kubernetes.lists` and `kubernetes.regex` libraries, keyed by overload id.
//!
//! # Conventions
//!
//! * Each implementation first applies cel-go's runtime type guard for its declaration: every
//!   argument must be of the declared type, where `list(T)` is checked on the list's first
//!   element only, and type parameters and `dyn` accept anything. A value that fails the guard
//!   gives [`EvalError::no_such_overload`] (kind [`ErrorKind::NoSuchOverload`]), so that the
//!   runtime may try the next overload. Overloads that cel-go binds without guards (`sort`,
//!   `@sortByAssociatedKeys`, `flatten`) only check what their implementation needs.
//! * Any other failure is final and carries cel-go's message. Failures that cel-go reports with
//!   the bare text `no such overload` (an element of the wrong type met while summing, say) use
//!   [`ErrorKind::Other`], so that they are not mistaken for a failed guard.
//! * The reference behaviour is cel-go at the version Kubernetes ships (the `ext` package and
//!   `cel/library.go`), and kubernetes/apiserver `pkg/cel/library`. Where cel-go changed
//!   after v0.26, the newer behaviour is implemented: `indexOf('', i)` and
//!   `lastIndexOf('', i)` clamp an offset past the end to the length (v0.26 returned the
//!   offset), and `or` / `orValue` on a receiver that is not an optional are
//!   `no such overload` (v0.26 returned the receiver).
//! * Orderings (`sort`, `sortBy`, `isSorted`, `min`, `max`) follow cel-go's `Compare`
//!   methods, which convert an int or uint to a double to compare it with a double; equality
//!   (`distinct`, sets, `indexOf`, `includes`) is [`crate::value::values_equal`].
//!
//! Declared overloads that have no implementation here are listed in
//! [`INTERPRETER_OVERLOADS`]: the interpreter evaluates them itself.

use std::borrow::Cow;

use super::Function;
use crate::error::{ErrorKind, EvalError};

mod compare;
pub(crate) mod format;
mod gofmt;
mod guard;
mod k8s_lists;
mod k8s_regex;
mod lists;
mod optionals;
mod sets;
mod sort;
mod strings;

/// The formatting clauses of `string.format`, for the compile-time validation of literal
/// format strings.
pub use format::{parse_clause as parse_format_clause, Clause as FormatClause};

// The test data has values such as 2.71828 and 3.14 that are not meant as constants.
#[cfg(test)]
#[allow(clippy::approx_constant)]
mod tests;

/// Overload ids declared by these libraries that the interpreter evaluates instead of a
/// function: optional field selection `_?._`, optional indexing `_[?_]`, and indexing of an
/// optional list or map `_[_]` (cel-go evaluates these through attributes).
pub static INTERPRETER_OVERLOADS: &[&str] = &[
    "select_optional_field",
    "list_optindex_optional_int",
    "optional_list_optindex_optional_int",
    "map_optindex_optional_value",
    "optional_map_optindex_optional_value",
    "optional_list_index_int",
    "optional_map_index_value",
];

/// Overload ids whose evaluation must short-circuit in the interpreter: cel-go evaluates the
/// right operand of `or` and `orValue` only when the left optional is empty. The functions
/// here implement the result for already evaluated operands.
pub static SHORT_CIRCUIT_OVERLOADS: &[&str] = &["optional_or_optional", "optional_orValue_value"];

/// The overloads this module implements.
pub static FUNCTIONS: &[(&str, Function)] = &[
    // Optional types.
    ("optional_of", optionals::optional_of),
    (
        "optional_ofNonZeroValue",
        optionals::optional_of_non_zero_value,
    ),
    ("optional_none", optionals::optional_none),
    ("optional_value", optionals::optional_value),
    ("optional_hasValue", optionals::optional_has_value),
    ("optional_or_optional", optionals::optional_or),
    ("optional_orValue_value", optionals::optional_or_value),
    ("list_first", optionals::list_first),
    ("list_last", optionals::list_last),
    ("optional_unwrap", optionals::optional_unwrap),
    ("optional_unwrapOpt", optionals::optional_unwrap_opt),
    // Strings extension.
    ("string_char_at_int", strings::char_at),
    ("string_index_of_string", strings::index_of),
    ("string_index_of_string_int", strings::index_of_offset),
    ("string_last_index_of_string", strings::last_index_of),
    (
        "string_last_index_of_string_int",
        strings::last_index_of_offset,
    ),
    ("string_lower_ascii", strings::lower_ascii),
    ("string_upper_ascii", strings::upper_ascii),
    ("string_replace_string_string", strings::replace),
    ("string_replace_string_string_int", strings::replace_n),
    ("string_split_string", strings::split),
    ("string_split_string_int", strings::split_n),
    ("string_substring_int", strings::substring),
    ("string_substring_int_int", strings::substring_range),
    ("string_trim", strings::trim),
    ("string_reverse", strings::reverse),
    ("list_join", strings::join),
    ("list_join_string", strings::join_separator),
    ("strings_quote", strings::quote),
    ("string_format", format::string_format),
    // Sets extension.
    ("list_sets_contains_list", sets::contains),
    ("list_sets_equivalent_list", sets::equivalent),
    ("list_sets_intersects_list", sets::intersects),
    // Lists extension.
    ("list_slice", lists::slice),
    ("list_flatten", lists::flatten),
    ("list_flatten_int", lists::flatten_depth),
    ("lists_range", lists::range),
    ("list_reverse", lists::reverse),
    ("list_distinct", lists::distinct),
    ("list_int_sort", lists::sort),
    ("list_uint_sort", lists::sort),
    ("list_double_sort", lists::sort),
    ("list_bool_sort", lists::sort),
    ("list_google.protobuf.Duration_sort", lists::sort),
    ("list_google.protobuf.Timestamp_sort", lists::sort),
    ("list_string_sort", lists::sort),
    ("list_bytes_sort", lists::sort),
    (
        "list_int_sortByAssociatedKeys",
        lists::sort_by_associated_keys,
    ),
    (
        "list_uint_sortByAssociatedKeys",
        lists::sort_by_associated_keys,
    ),
    (
        "list_double_sortByAssociatedKeys",
        lists::sort_by_associated_keys,
    ),
    (
        "list_bool_sortByAssociatedKeys",
        lists::sort_by_associated_keys,
    ),
    (
        "list_google.protobuf.Duration_sortByAssociatedKeys",
        lists::sort_by_associated_keys,
    ),
    (
        "list_google.protobuf.Timestamp_sortByAssociatedKeys",
        lists::sort_by_associated_keys,
    ),
    (
        "list_string_sortByAssociatedKeys",
        lists::sort_by_associated_keys,
    ),
    (
        "list_bytes_sortByAssociatedKeys",
        lists::sort_by_associated_keys,
    ),
    // Kubernetes lists library.
    ("list_int_is_sorted_bool", k8s_lists::is_sorted_int),
    ("list_uint_is_sorted_bool", k8s_lists::is_sorted_uint),
    ("list_double_is_sorted_bool", k8s_lists::is_sorted_double),
    ("list_bool_is_sorted_bool", k8s_lists::is_sorted_bool),
    (
        "list_duration_is_sorted_bool",
        k8s_lists::is_sorted_duration,
    ),
    (
        "list_timestamp_is_sorted_bool",
        k8s_lists::is_sorted_timestamp,
    ),
    ("list_string_is_sorted_bool", k8s_lists::is_sorted_string),
    ("list_bytes_is_sorted_bool", k8s_lists::is_sorted_bytes),
    ("list_int_sum_int", k8s_lists::sum_int),
    ("list_uint_sum_uint", k8s_lists::sum_uint),
    ("list_double_sum_double", k8s_lists::sum_double),
    ("list_duration_sum_duration", k8s_lists::sum_duration),
    ("list_int_max_int", k8s_lists::max_int),
    ("list_uint_max_uint", k8s_lists::max_uint),
    ("list_double_max_double", k8s_lists::max_double),
    ("list_bool_max_bool", k8s_lists::max_bool),
    ("list_duration_max_duration", k8s_lists::max_duration),
    ("list_timestamp_max_timestamp", k8s_lists::max_timestamp),
    ("list_string_max_string", k8s_lists::max_string),
    ("list_bytes_max_bytes", k8s_lists::max_bytes),
    ("list_int_min_int", k8s_lists::min_int),
    ("list_uint_min_uint", k8s_lists::min_uint),
    ("list_double_min_double", k8s_lists::min_double),
    ("list_bool_min_bool", k8s_lists::min_bool),
    ("list_duration_min_duration", k8s_lists::min_duration),
    ("list_timestamp_min_timestamp", k8s_lists::min_timestamp),
    ("list_string_min_string", k8s_lists::min_string),
    ("list_bytes_min_bytes", k8s_lists::min_bytes),
    ("list_a_index_of_int", k8s_lists::index_of),
    ("list_a_last_index_of_int", k8s_lists::last_index_of),
    ("list_includes_dyn_dyn", k8s_lists::includes),
    // Kubernetes regex library.
    ("string_find_string", k8s_regex::find),
    ("string_find_all_string", k8s_regex::find_all),
    ("string_find_all_string_int", k8s_regex::find_all_n),
];

/// A final error with cel-go's message.
fn fail(msg: impl Into<Cow<'static, str>>) -> EvalError {
    EvalError::new(ErrorKind::Other, msg)
}

/// cel-go's bare `no such overload` error, raised inside an implementation (final).
fn bare_no_such_overload() -> EvalError {
    fail("no such overload")
}

/// `index out of range: <i>`, the strings extension's index error.
fn string_index_error(i: i64) -> EvalError {
    EvalError::new(
        ErrorKind::IndexOutOfRange,
        format!("index out of range: {i}"),
    )
}
