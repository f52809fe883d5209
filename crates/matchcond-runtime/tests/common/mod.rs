//! Helpers of the runtime's integration tests: an overload called by its id (through the
//! library registry, as the newest modelled version behaves), and results unwrapped with a
//! message. (The unit tests have theirs in `src/test_util.rs`.)

// Each test binary uses some of them.
#![allow(dead_code)]

use matchcond_runtime::libraries::implementation;
use matchcond_runtime::value::Value;
use matchcond_runtime::EvalError;

/// The result of a call.
pub type R = Result<Value<'static>, EvalError>;

/// Calls the implementation of an overload of any library.
#[track_caller]
pub fn call(id: &str, args: &[Value<'static>]) -> R {
    let f = implementation(id).unwrap_or_else(|| panic!("no implementation of {id}"));
    f(args)
}

/// A string.
pub fn s(v: &str) -> Value<'static> {
    Value::string(v)
}

/// The value of a successful call.
#[track_caller]
pub fn ok(r: R) -> Value<'static> {
    r.unwrap_or_else(|e| panic!("unexpected error {e}"))
}

/// The error of a failed call.
#[track_caller]
pub fn err(r: R) -> EvalError {
    match r {
        Err(e) => e,
        Ok(v) => panic!("want an error, got {v:?}"),
    }
}
