//! The Kubernetes regex library (kubernetes/apiserver `pkg/cel/library/regex.go`): `find` and
//! `findAll`, with Go's regular expression syntax (see [`matchcond_gocompat::regexp`]).
//!
//! An invalid pattern is the error `Illegal regex: <Go's error>`. (Kubernetes compiles a
//! constant pattern when it builds the program, so there an invalid constant pattern fails
//! program creation instead, with Go's error text.)

use std::sync::Arc;

use ::regex::Regex;
use matchcond_front::Type;
use matchcond_gocompat::regexp;

use super::definition::{function, member, Definition, Library};
use crate::cost::Estimate;
use crate::error::{ErrorKind, EvalError};
use crate::value::Value;

#[cfg(test)]
mod tests;

/// The library, in every version.
pub(crate) fn library() -> Definition {
    use Type::{Int, String};
    Definition::new(Library::K8sRegex).functions([
        function(
            "find",
            [member("string_find_string", [String, String], String, find)],
        )
        .estimate_by(Estimate::Find),
        function(
            "findAll",
            [
                member(
                    "string_find_all_string",
                    [String, String],
                    Type::list(String),
                    find_all,
                ),
                member(
                    "string_find_all_string_int",
                    [String, String, Int],
                    Type::list(String),
                    find_all_n,
                ),
            ],
        )
        .estimate_by(Estimate::Find),
    ])
}

fn compile(pattern: &str) -> Result<Arc<Regex>, EvalError> {
    regexp::compile(pattern)
        .map_err(|e| EvalError::new(ErrorKind::InvalidArgument, format!("Illegal regex: {e}")))
}

/// `string.find(string) -> string`: the first match, or `''`.
fn find<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::String(s), Value::String(re)] => {
            let re = compile(re)?;
            Ok(Value::string(re.find(s).map_or("", |m| m.as_str())))
        }
        _ => Err(EvalError::no_such_overload("find", args)),
    }
}

/// All non-overlapping matches, at most `limit` when given (Go's `FindAllString`).
fn find_all_limit<'a>(s: &str, re: &str, limit: Option<usize>) -> Result<Value<'a>, EvalError> {
    let re = compile(re)?;
    let mut out = Vec::new();
    for m in re.find_iter(s).take(limit.unwrap_or(usize::MAX)) {
        crate::limits::check_list_size(out.len() + 1)?;
        out.push(Value::string(m.as_str()));
    }
    Ok(Value::list(out))
}

/// `string.findAll(string) -> list(string)`: all matches.
fn find_all<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::String(s), Value::String(re)] => find_all_limit(s, re, None),
        _ => Err(EvalError::no_such_overload("findAll", args)),
    }
}

/// `string.findAll(string, int) -> list(string)`: at most `n` matches; all when `n < 0`.
fn find_all_n<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::String(s), Value::String(re), Value::Int(n)] => {
            find_all_limit(s, re, usize::try_from(*n).ok())
        }
        _ => Err(EvalError::no_such_overload("findAll", args)),
    }
}
