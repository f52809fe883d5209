//! The Kubernetes semver library, version 1 (`kubernetes.Semver`, kubernetes/apiserver
//! `pkg/cel/library/semverlib.go`): values of type `kubernetes.Semver`, parsed with the
//! rules and error texts of blang/semver v4, with the library's optional normalisation (see
//! [`matchcond_gocompat::semver`]).

use std::any::Any;
use std::cmp::Ordering;
use std::sync::Arc;

pub use matchcond_gocompat::semver::Semver;

use crate::error::EvalError;
use crate::functions::Function;
use crate::value::{Opaque, Value};

/// The CEL type name.
pub const TYPE_NAME: &str = "kubernetes.Semver";

impl Opaque for Semver {
    fn type_name(&self) -> &'static str {
        TYPE_NAME
    }

    fn equals(&self, other: &dyn Opaque) -> bool {
        match other.as_any().downcast_ref::<Semver>() {
            Some(o) => self.compare(o) == Ordering::Equal,
            None => false,
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn text(&self) -> String {
        self.to_text()
    }
}

fn semver<'v>(v: &'v Value<'_>) -> Option<&'v Semver> {
    match v {
        Value::Opaque(o) => o.as_any().downcast_ref::<Semver>(),
        _ => None,
    }
}

fn convert<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    let parsed = match args {
        [Value::String(s)] => Semver::parse(s),
        [Value::String(s), Value::Bool(false)] => Semver::parse(s),
        [Value::String(s), Value::Bool(true)] => Semver::parse_normalized(s),
        _ => return Err(EvalError::no_such_overload("semver", args)),
    };
    parsed
        .map(|v| Value::Opaque(Arc::new(v)))
        .map_err(EvalError::invalid_argument)
}

fn is_semver<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    let ok = match args {
        [Value::String(s)] => Semver::parse(s).is_ok(),
        [Value::String(s), Value::Bool(false)] => Semver::parse(s).is_ok(),
        [Value::String(s), Value::Bool(true)] => Semver::parse_normalized(s).is_ok(),
        _ => return Err(EvalError::no_such_overload("isSemver", args)),
    };
    Ok(Value::Bool(ok))
}

fn compare<'a>(
    name: &str,
    args: &[Value<'a>],
    f: fn(Ordering) -> Value<'a>,
) -> Result<Value<'a>, EvalError> {
    match args {
        [a, b] => match (semver(a), semver(b)) {
            (Some(x), Some(y)) => Ok(f(x.compare(y))),
            _ => Err(EvalError::no_such_overload(name, args)),
        },
        _ => Err(EvalError::no_such_overload(name, args)),
    }
}

fn component<'a>(
    name: &str,
    args: &[Value<'a>],
    f: fn(&Semver) -> u64,
) -> Result<Value<'a>, EvalError> {
    match args {
        // Go converts the uint64 to int64 with wrap-around.
        [a] => match semver(a) {
            Some(v) => Ok(Value::Int(f(v) as i64)),
            None => Err(EvalError::no_such_overload(name, args)),
        },
        _ => Err(EvalError::no_such_overload(name, args)),
    }
}

/// The overloads this module implements.
pub static FUNCTIONS: &[(&str, Function)] = &[
    ("string_to_semver", convert),
    ("string_bool_to_semver", convert),
    ("is_semver_string", is_semver),
    ("is_semver_string_bool", is_semver),
    ("semver_is_greater_than", |a| {
        compare("isGreaterThan", a, |o| Value::Bool(o == Ordering::Greater))
    }),
    ("semver_is_less_than", |a| {
        compare("isLessThan", a, |o| Value::Bool(o == Ordering::Less))
    }),
    ("semver_compare_to", |a| {
        compare("compareTo", a, |o| Value::Int(o as i64))
    }),
    ("semver_major", |a| component("major", a, |v| v.major)),
    ("semver_minor", |a| component("minor", a, |v| v.minor)),
    ("semver_patch", |a| component("patch", a, |v| v.patch)),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions() {
        let call = |id: &str, args: &[Value<'static>]| {
            let f = FUNCTIONS
                .iter()
                .find(|(n, _)| *n == id)
                .map(|(_, f)| *f)
                .unwrap();
            f(args)
        };
        let s = |t: &'static str| Value::String(crate::value::Str::Borrowed(t));
        let v = call("string_to_semver", &[s("18446744073709551615.2.3")]).unwrap();
        assert_eq!(
            call("semver_major", std::slice::from_ref(&v)).unwrap(),
            Value::Int(-1)
        );
        assert_eq!(
            call("semver_minor", std::slice::from_ref(&v)).unwrap(),
            Value::Int(2)
        );
        assert_eq!(call("semver_patch", &[v]).unwrap(), Value::Int(3));
        assert_eq!(
            call("is_semver_string_bool", &[s("v1"), Value::Bool(true)]).unwrap(),
            Value::Bool(true)
        );
        assert_eq!(
            call("is_semver_string_bool", &[s("v1"), Value::Bool(false)]).unwrap(),
            Value::Bool(false)
        );
        let e = call("string_to_semver", &[s("v1.0")]).unwrap_err();
        assert_eq!(e.message, "No Major.Minor.Patch elements found");
        let e = call("string_to_semver", &[Value::Int(1)]).unwrap_err();
        assert_eq!(e.kind, crate::error::ErrorKind::NoSuchOverload);
        let a = call("string_to_semver", &[s("1.0.0")]).unwrap();
        let b = call("string_bool_to_semver", &[s("1.2"), Value::Bool(true)]).unwrap();
        assert_eq!(
            call("semver_compare_to", &[a.clone(), b.clone()]).unwrap(),
            Value::Int(-1)
        );
        assert_eq!(
            call("semver_is_less_than", &[a.clone(), b.clone()]).unwrap(),
            Value::Bool(true)
        );
        assert_eq!(
            call("semver_is_greater_than", &[a, b]).unwrap(),
            Value::Bool(false)
        );
    }
}
