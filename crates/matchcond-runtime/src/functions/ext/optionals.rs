//! Optional types (cel-go `cel/library.go`, `optionalLib`, version 2).

use super::fail;
use super::gofmt::value_v;
use super::guard::{check, G};
use crate::error::EvalError;
use crate::value::{Optional, Value};

/// `optional.of(V) -> optional(V)`
pub(super) fn optional_of<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [v] => Ok(Value::Optional(Optional::of(v.clone()))),
        _ => Err(EvalError::no_such_overload("optional.of", args)),
    }
}

/// Whether cel-go considers the value a zero value (`traits.Zeroer`): null, `false`, `0`,
/// `0u`, `0.0` (and `-0.0`), empty strings, bytes, lists and maps, the zero duration and
/// `0001-01-01T00:00:00Z`. Optionals, types and library values have no zero value.
fn is_zero(v: &Value<'_>) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Int(i) => *i == 0,
        Value::Uint(u) => *u == 0,
        Value::Double(d) => *d == 0.0,
        Value::String(s) => s.is_empty(),
        Value::Bytes(b) => b.is_empty(),
        Value::List(l) => l.is_empty(),
        Value::Map(m) => m.is_empty(),
        Value::Duration(d) => d.nanos == 0,
        Value::Timestamp(t) => t.secs == crate::value::Timestamp::MIN_SECS && t.nanos == 0,
        Value::Type(_) | Value::Optional(_) | Value::Opaque(_) => false,
    }
}

/// `optional.ofNonZeroValue(V) -> optional(V)`: `optional.none()` for a zero value.
pub(super) fn optional_of_non_zero_value<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [v] if is_zero(v) => Ok(Value::Optional(Optional::None)),
        [v] => Ok(Value::Optional(Optional::of(v.clone()))),
        _ => Err(EvalError::no_such_overload("optional.ofNonZeroValue", args)),
    }
}

/// `optional.none() -> optional(V)`
pub(super) fn optional_none<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [] => Ok(Value::Optional(Optional::None)),
        _ => Err(EvalError::no_such_overload("optional.none", args)),
    }
}

/// `optional(V).value() -> V`; `optional.none() dereference` when empty.
pub(super) fn optional_value<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::Optional(o)] => o.get().ok_or_else(|| fail("optional.none() dereference")),
        _ => Err(EvalError::no_such_overload("value", args)),
    }
}

/// `optional(V).hasValue() -> bool`
pub(super) fn optional_has_value<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::Optional(o)] => Ok(Value::Bool(o.has_value())),
        _ => Err(EvalError::no_such_overload("hasValue", args)),
    }
}

/// `optional(V).or(optional(V)) -> optional(V)`: the receiver if it has a value, else the
/// argument (returned as it is, as cel-go's evaluation does).
///
/// cel-go evaluates the argument only when the receiver is empty; the interpreter provides
/// that short-circuit. A receiver that is not an optional is `no such overload`.
pub(super) fn optional_or<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::Optional(o), alt] => Ok(if o.has_value() {
            Value::Optional(o.clone())
        } else {
            alt.clone()
        }),
        _ => Err(EvalError::no_such_overload("or", args)),
    }
}

/// `optional(V).orValue(V) -> V`: the receiver's value if present, else the argument.
///
/// Short-circuits like [`optional_or`] in cel-go.
pub(super) fn optional_or_value<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::Optional(o), alt] => Ok(o.get().unwrap_or_else(|| alt.clone())),
        _ => Err(EvalError::no_such_overload("orValue", args)),
    }
}

/// `list(V).first() -> optional(V)`
pub(super) fn list_first<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::List(l)] => Ok(Value::Optional(match l.get(0) {
            Some(v) => Optional::of(v),
            None => Optional::None,
        })),
        _ => Err(EvalError::no_such_overload("first", args)),
    }
}

/// `list(V).last() -> optional(V)`
pub(super) fn list_last<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::List(l)] => Ok(Value::Optional(
            match l.len().checked_sub(1).and_then(|i| l.get(i)) {
                Some(v) => Optional::of(v),
                None => Optional::None,
            },
        )),
        _ => Err(EvalError::no_such_overload("last", args)),
    }
}

/// The values of the present optionals of a list; an element that is not an optional is an
/// error `value <v> is not optional`.
fn unwrap<'a>(function: &str, args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    check(function, &[G::List(&G::Optional)], args)?;
    let [Value::List(l)] = args else {
        return Err(EvalError::no_such_overload(function, args));
    };
    let mut out = Vec::new();
    for elem in l.iter() {
        match &elem {
            Value::Optional(o) => {
                if let Some(v) = o.get() {
                    out.push(v);
                }
            }
            other => return Err(fail(format!("value {} is not optional", value_v(other)))),
        }
    }
    Ok(Value::list(out))
}

/// `optional.unwrap(list(optional(V))) -> list(V)`
pub(super) fn optional_unwrap<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    unwrap("optional.unwrap", args)
}

/// `list(optional(V)).unwrapOpt() -> list(V)`
pub(super) fn optional_unwrap_opt<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    unwrap("unwrapOpt", args)
}
