//! What several libraries share: cel-go's runtime type guards ([`guard`]), the orderings of
//! its `Compare` methods ([`compare`]), Go's `%v` of values ([`gofmt`]), its error texts, and
//! regular expressions with Go's syntax.
//!
//! # Conventions of cel-go's extensions
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

use std::borrow::Cow;
use std::sync::Arc;

use matchcond_gocompat::regexp;

use crate::error::{ErrorKind, EvalError};
use crate::value::Value;

pub(crate) mod compare;
pub(crate) mod gofmt;
pub(crate) mod guard;

/// A final error with cel-go's message.
pub(crate) fn fail(msg: impl Into<Cow<'static, str>>) -> EvalError {
    EvalError::new(ErrorKind::Other, msg)
}

/// A function of one argument: what `apply` makes of it; no such overload where the call has
/// not exactly one argument or `apply` takes nothing from it.
pub(crate) fn unary<'a>(
    function: &str,
    args: &[Value<'a>],
    apply: impl FnOnce(&Value<'a>) -> Option<Value<'a>>,
) -> Result<Value<'a>, EvalError> {
    match args {
        [v] => apply(v).ok_or_else(|| EvalError::no_such_overload(function, args)),
        _ => Err(EvalError::no_such_overload(function, args)),
    }
}

/// cel-go's bare `no such overload` error, raised inside an implementation (final).
pub(crate) fn bare_no_such_overload() -> EvalError {
    fail("no such overload")
}

/// `index out of range: <i>`, the strings extension's index error.
pub(crate) fn string_index_error(i: i64) -> EvalError {
    EvalError::new(
        ErrorKind::IndexOutOfRange,
        format!("index out of range: {i}"),
    )
}

/// Calls a regex function whose pattern was a constant, compiled when the program was
/// planned: `matches`, `find`, `findAll` (the pattern is the second argument, after the
/// string).
pub fn call_with_regex<'a>(
    function: &str,
    re: &regex::Regex,
    args: &[Value<'a>],
) -> Result<Value<'a>, EvalError> {
    match (function, args) {
        ("matches", [Value::String(s), _]) => Ok(Value::Bool(re.is_match(s))),
        ("find", [Value::String(s), _]) => Ok(Value::string(re.find(s).map_or("", |m| m.as_str()))),
        ("findAll", [Value::String(s), _]) => Ok(Value::list(
            re.find_iter(s).map(|m| Value::string(m.as_str())).collect(),
        )),
        ("findAll", [Value::String(s), _, Value::Int(n)]) => {
            let all = re.find_iter(s).map(|m| Value::string(m.as_str()));
            Ok(Value::list(match usize::try_from(*n) {
                Ok(limit) => all.take(limit).collect(),
                Err(_) => all.collect(),
            }))
        }
        _ => Err(EvalError::no_such_overload(function, args)),
    }
}

/// Compiles a regular expression with Go's (RE2) syntax and semantics, as cel-go does when
/// it builds a program with a constant pattern; the error is Go's text.
pub fn compile_regex(pattern: &str) -> Result<regex::Regex, EvalError> {
    regexp::compile_uncached(pattern).map_err(|e| EvalError::invalid_argument(e.to_string()))
}

/// Compiles a regular expression with Go's syntax (cached per thread); the error is Go's
/// text as an invalid-argument evaluation error.
pub(crate) fn cached_regex(pattern: &str) -> Result<Arc<regex::Regex>, EvalError> {
    regexp::compile(pattern).map_err(|e| EvalError::invalid_argument(e.to_string()))
}
