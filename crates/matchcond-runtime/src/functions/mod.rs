//! Implementations of CEL functions, keyed by overload id.
//!
//! Every declared overload (see `matchcond_syntax::decls`) has one implementation here with
//! the same id. An implementation receives the arguments (the receiver first for member
//! calls) already evaluated, and may assume the types the declaration promises only after
//! checking them: with dynamic arguments the runtime tries overloads in turn, and an
//! implementation given values of other types returns [`EvalError::no_such_overload`].

use crate::error::EvalError;
use crate::value::Value;

pub mod comprehensions;
pub mod ext;
pub mod go_regex;
pub mod go_strconv;
pub mod k8s;
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
        .chain(comprehensions::FUNCTIONS.iter())
        .chain(k8s::functions())
        .find(|(id, _)| *id == overload_id)
        .map(|(_, f)| *f)
}

/// Calls a regex function whose pattern was a constant, compiled when the program was
/// planned: `matches` (the pattern is the second argument, after the string).
pub fn call_with_regex<'a>(
    function: &str,
    re: &regex::Regex,
    args: &[Value<'a>],
) -> Result<Value<'a>, EvalError> {
    match (function, args) {
        ("matches", [Value::String(s), _]) => Ok(Value::Bool(re.is_match(s))),
        _ => Err(EvalError::no_such_overload(function, args)),
    }
}

/// The runtime cost that a library's own cost tracker assigns to an overload, if it has one.
pub fn tracked_cost(
    _overload: Option<&str>,
    _args: &[Value<'_>],
    _result: &Value<'_>,
) -> Option<u64> {
    None
}

/// The maximum regex size of a named format (used by the cost of `validate`).
pub fn format_max_regex_size(_format: &dyn crate::value::Opaque) -> Option<u64> {
    None
}

/// Largest compiled size of a regular expression (bytes of the compiled program).
pub const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Compiles a regular expression with RE2 syntax (the `regex` crate accepts the RE2 syntax
/// CEL uses, with linear-time matching). The error reads as cel-go's.
pub fn compile_regex(pattern: &str) -> Result<regex::Regex, EvalError> {
    regex::RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| {
            EvalError::invalid_argument(format!(
                "error parsing regexp: {}",
                e.to_string()
                    .lines()
                    .last()
                    .unwrap_or("invalid pattern")
                    .trim()
            ))
        })
}
