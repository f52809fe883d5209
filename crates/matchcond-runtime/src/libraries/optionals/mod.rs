//! Optional types (cel-go `cel/library.go`, `optionalLib`, version 2; `cel.OptionalTypes()`,
//! Kubernetes 1.28+): `optional.of`, `optional.none`, `optional.ofNonZeroValue`, `hasValue`,
//! `value`, `or`, `orValue`, `first`, `last`, `optional.unwrap`, `unwrapOpt`, and the `_?._`,
//! `_[?_]` and optional `_[_]` operators.
//!
//! `optMap` and `optFlatMap` are macros (the parser expands them). `_?._`, `_[?_]` and the
//! optional-operand `_[_]` overloads have no function implementation: the interpreter
//! evaluates them (as cel-go's does, through attributes). `or` and `orValue` short-circuit in
//! cel-go (the right operand is only evaluated when the left one is empty); the interpreter
//! does the same, the functions here implement the result for already evaluated operands.

use matchcond_front::Type;

use super::definition::{function, global, interpreted, member, Definition, Library};
use super::support::guard::{check, G};
use super::support::{fail, gofmt::value_v};
use crate::error::EvalError;
use crate::value::{Optional, Value};

#[cfg(test)]
mod tests;

fn v() -> Type {
    Type::param("V")
}

fn k() -> Type {
    Type::param("K")
}

fn opt(t: Type) -> Type {
    Type::optional(t)
}

/// The library at its latest version (2), from Kubernetes 1.28.
pub(crate) fn library() -> Definition {
    let list_v = || Type::list(v());
    let map_kv = || Type::map(k(), v());
    Definition::new(Library::Optionals).functions([
        function(
            "optional.of",
            [global("optional_of", [v()], opt(v()), optional_of)],
        ),
        function(
            "optional.ofNonZeroValue",
            [global(
                "optional_ofNonZeroValue",
                [v()],
                opt(v()),
                optional_of_non_zero_value,
            )],
        ),
        function(
            "optional.none",
            [global("optional_none", [], opt(v()), optional_none)],
        ),
        function(
            "value",
            [member("optional_value", [opt(v())], v(), optional_value)],
        ),
        function(
            "hasValue",
            [member(
                "optional_hasValue",
                [opt(v())],
                Type::Bool,
                optional_has_value,
            )],
        ),
        function(
            "or",
            [member(
                "optional_or_optional",
                [opt(v()), opt(v())],
                opt(v()),
                optional_or,
            )],
        ),
        function(
            "orValue",
            [member(
                "optional_orValue_value",
                [opt(v()), v()],
                v(),
                optional_or_value,
            )],
        ),
        // The checker types the selected field specially.
        function(
            "_?._",
            [interpreted(
                "select_optional_field",
                [Type::Dyn, Type::String],
                opt(v()),
            )],
        ),
        function(
            "_[?_]",
            [
                interpreted(
                    "list_optindex_optional_int",
                    [list_v(), Type::Int],
                    opt(v()),
                ),
                interpreted(
                    "optional_list_optindex_optional_int",
                    [opt(list_v()), Type::Int],
                    opt(v()),
                ),
                interpreted("map_optindex_optional_value", [map_kv(), k()], opt(v())),
                interpreted(
                    "optional_map_optindex_optional_value",
                    [opt(map_kv()), k()],
                    opt(v()),
                ),
            ],
        ),
        // Indexing an optional list or map.
        function(
            "_[_]",
            [
                interpreted(
                    "optional_list_index_int",
                    [opt(list_v()), Type::Int],
                    opt(v()),
                ),
                interpreted("optional_map_index_value", [opt(map_kv()), k()], opt(v())),
            ],
        ),
        // Version 2.
        function(
            "last",
            [member("list_last", [list_v()], opt(v()), list_last)],
        ),
        function(
            "first",
            [member("list_first", [list_v()], opt(v()), list_first)],
        ),
        function(
            "optional.unwrap",
            [global(
                "optional_unwrap",
                [Type::list(opt(v()))],
                list_v(),
                optional_unwrap,
            )],
        ),
        function(
            "unwrapOpt",
            [member(
                "optional_unwrapOpt",
                [Type::list(opt(v()))],
                list_v(),
                optional_unwrap_opt,
            )],
        ),
    ])
}

/// `optional.of(V) -> optional(V)`
fn optional_of<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
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
fn optional_of_non_zero_value<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [v] if is_zero(v) => Ok(Value::Optional(Optional::None)),
        [v] => Ok(Value::Optional(Optional::of(v.clone()))),
        _ => Err(EvalError::no_such_overload("optional.ofNonZeroValue", args)),
    }
}

/// `optional.none() -> optional(V)`
fn optional_none<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [] => Ok(Value::Optional(Optional::None)),
        _ => Err(EvalError::no_such_overload("optional.none", args)),
    }
}

/// `optional(V).value() -> V`; `optional.none() dereference` when empty.
fn optional_value<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::Optional(o)] => o.get().ok_or_else(|| fail("optional.none() dereference")),
        _ => Err(EvalError::no_such_overload("value", args)),
    }
}

/// `optional(V).hasValue() -> bool`
fn optional_has_value<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
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
fn optional_or<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
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
fn optional_or_value<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::Optional(o), alt] => Ok(o.get().unwrap_or_else(|| alt.clone())),
        _ => Err(EvalError::no_such_overload("orValue", args)),
    }
}

/// `list(V).first() -> optional(V)`
fn list_first<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::List(l)] => Ok(Value::Optional(match l.get(0) {
            Some(v) => Optional::of(v),
            None => Optional::None,
        })),
        _ => Err(EvalError::no_such_overload("first", args)),
    }
}

/// `list(V).last() -> optional(V)`
fn list_last<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
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
fn optional_unwrap<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    unwrap("optional.unwrap", args)
}

/// `list(optional(V)).unwrapOpt() -> list(V)`
fn optional_unwrap_opt<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    unwrap("unwrapOpt", args)
}
