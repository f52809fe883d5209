//! cel-go's runtime type guards (`common/decls`: `matchRuntimeArgType`,
//! `Type.defaultIsAssignableRuntimeType`): a declared parameter type accepts a value when the
//! type names agree; for `list(T)` only the first element is checked against `T`; type
//! parameters and `dyn` accept anything.

use crate::error::EvalError;
use crate::value::Value;

/// A declared parameter type, as far as the runtime guard inspects it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum G {
    /// `dyn` or a type parameter.
    Any,
    /// `int`
    Int,
    /// `uint`
    Uint,
    /// `double`
    Double,
    /// `bool`
    Bool,
    /// `string`
    Str,
    /// `bytes`
    Bytes,
    /// `google.protobuf.Duration`
    Duration,
    /// `google.protobuf.Timestamp`
    Timestamp,
    /// `optional_type(T)`, any optional.
    Optional,
    /// `list(T)`: a list whose first element, if any, matches `T`.
    List(&'static G),
}

impl G {
    /// Whether the value passes the guard.
    pub(crate) fn accepts(self, v: &Value<'_>) -> bool {
        match (self, v) {
            (G::Any, _)
            | (G::Int, Value::Int(_))
            | (G::Uint, Value::Uint(_))
            | (G::Double, Value::Double(_))
            | (G::Bool, Value::Bool(_))
            | (G::Str, Value::String(_))
            | (G::Bytes, Value::Bytes(_))
            | (G::Duration, Value::Duration(_))
            | (G::Timestamp, Value::Timestamp(_))
            | (G::Optional, Value::Optional(_)) => true,
            (G::List(elem), Value::List(l)) => match l.get(0) {
                None => true,
                Some(first) => elem.accepts(&first),
            },
            _ => false,
        }
    }
}

/// `list(dyn)`
pub(crate) const LIST_ANY: G = G::List(&G::Any);

/// Checks the arguments against the declared parameter types; on a mismatch returns the
/// no-such-overload error for the function.
pub(crate) fn check(function: &str, params: &[G], args: &[Value<'_>]) -> Result<(), EvalError> {
    if params.len() == args.len() && params.iter().zip(args).all(|(g, a)| g.accepts(a)) {
        Ok(())
    } else {
        Err(EvalError::no_such_overload(function, args))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_guard_checks_first_element_only() {
        let ints = Value::list(vec![Value::Int(1), Value::string("x")]);
        assert!(G::List(&G::Int).accepts(&ints));
        assert!(!G::List(&G::Str).accepts(&ints));
        assert!(G::List(&G::Str).accepts(&Value::list(vec![])));
        assert!(!G::List(&G::Int).accepts(&Value::Int(1)));
        assert!(LIST_ANY.accepts(&ints));
    }

    #[test]
    fn check_reports_the_function() {
        let err = check(
            "charAt",
            &[G::Str, G::Int],
            &[Value::Int(42), Value::Int(2)],
        );
        assert_eq!(
            err.map_err(|e| e.kind),
            Err(crate::error::ErrorKind::NoSuchOverload)
        );
        assert!(check(
            "charAt",
            &[G::Str, G::Int],
            &[Value::string("a"), Value::Int(2)]
        )
        .is_ok());
        assert!(check("charAt", &[G::Str, G::Int], &[Value::string("a")]).is_err());
    }
}
