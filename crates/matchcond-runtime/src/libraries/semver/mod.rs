//! The Kubernetes semver library, version 1 (`kubernetes.Semver`, kubernetes/apiserver
//! `pkg/cel/library/semverlib.go`, Kubernetes 1.33+, with the normalising overloads of
//! `semver` and `isSemver`): values of type `kubernetes.Semver`, parsed with the
//! rules and error texts of blang/semver v4, with the library's optional normalisation (see
//! [`matchcond_gocompat::semver`]).

use std::any::Any;
use std::cmp::Ordering;
use std::sync::Arc;

pub use matchcond_gocompat::semver::Semver;

use matchcond_front::Type;

use super::definition::{fixed_member, function, global, ordering_functions, Definition, Library};
use super::support::unary;
use crate::cost::Estimate;
use crate::error::EvalError;
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
    // Go converts the uint64 to int64 with wrap-around.
    unary(name, args, |a| semver(a).map(|v| Value::Int(f(v) as i64)))
}

/// The library at version 1, from Kubernetes 1.33.
pub(crate) fn library() -> Definition {
    let v = || Type::named(TYPE_NAME);
    Definition::new(Library::K8sSemver)
        .opaque_type(TYPE_NAME)
        .functions([
            function(
                "semver",
                [
                    global("string_to_semver", [Type::String], v(), convert),
                    global(
                        "string_bool_to_semver",
                        [Type::String, Type::Bool],
                        v(),
                        convert,
                    ),
                ],
            )
            .estimate_by(Estimate::StringTraversal),
            function(
                "isSemver",
                [
                    global("is_semver_string", [Type::String], Type::Bool, is_semver),
                    global(
                        "is_semver_string_bool",
                        [Type::String, Type::Bool],
                        Type::Bool,
                        is_semver,
                    ),
                ],
            )
            .estimate_by(Estimate::StringTraversal),
        ])
        .functions(ordering_functions(
            v(),
            [
                "semver_is_greater_than",
                "semver_is_less_than",
                "semver_compare_to",
            ],
            [
                |a| compare("isGreaterThan", a, |o| Value::Bool(o == Ordering::Greater)),
                |a| compare("isLessThan", a, |o| Value::Bool(o == Ordering::Less)),
                |a| compare("compareTo", a, |o| Value::Int(o as i64)),
            ],
        ))
        .functions([
            fixed_member("major", "semver_major", [v()], Type::Int, |a| {
                component("major", a, |v| v.major)
            }),
            fixed_member("minor", "semver_minor", [v()], Type::Int, |a| {
                component("minor", a, |v| v.minor)
            }),
            fixed_member("patch", "semver_patch", [v()], Type::Int, |a| {
                component("patch", a, |v| v.patch)
            }),
        ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{call, s};

    #[test]
    fn functions() {
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

    #[test]
    fn version_one_overloads() {
        let def = library();
        assert_eq!(crate::test_util::declared(&def).len(), 10);
        assert!(!crate::test_util::declaration(&def, "string_bool_to_semver").member);
        assert_eq!(
            def.type_names(),
            [("kubernetes.Semver", Type::named("kubernetes.Semver"))]
        );
    }
}
