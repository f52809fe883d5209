//! The CEL standard library's operators and functions (other than the timestamp and duration
//! ones, in [`super::time`]); their declarations and costs are in [`super`], with cel-go's semantics and error messages.
//!
//! `_&&_` (`logical_and`), `_||_` (`logical_or`) and `_?_:_` (`conditional`) are evaluated
//! by the interpreter itself (they are not strict in their arguments), so they have no
//! implementation here. `@not_strictly_false` has one, for completeness: the interpreter also handles it
//! before its argument's error could reach a function.
//!
//! Each implementation checks its argument types and returns `no such overload` when they do
//! not match its declaration. The index and membership operators decide on their container
//! argument only: a list indexed with a string, for example, fails with cel-go's
//! `unsupported index type 'string' in list`, not with `no such overload`.

use std::cmp::Ordering;

use matchcond_gocompat::strconv as go_strconv;

use crate::error::{ErrorKind, EvalError};
use crate::libraries::support::cached_regex;
use crate::limits::{check_list_size, check_string_size};
use crate::value::{cel_numeric_cmp, values_equal, List, Value};

type R<'a> = Result<Value<'a>, EvalError>;

// Logic.
overload!(logical_not, "!_", [Value::Bool(b)] => Ok(Value::Bool(!b)));

pub(super) fn not_strictly_false<'a>(a: &[Value<'a>]) -> R<'a> {
    match a {
        [Value::Bool(b)] => Ok(Value::Bool(*b)),
        [_] => Ok(Value::Bool(true)),
        _ => Err(EvalError::no_such_overload("@not_strictly_false", a)),
    }
}

// Equality.
// A library value on the left decides: its `Equal` may reject the other value, which is
// an error for `==` and makes `!=` true (cel-go's evalNe tests `Equal(..) != true`).
pub(super) fn equals<'a>(a: &[Value<'a>]) -> R<'a> {
    match a {
        [Value::Opaque(o), y] => match o.equal_value(y) {
            Some(b) => Ok(Value::Bool(b)),
            // `MaybeNoSuchOverloadErr(other)`.
            None => Err(EvalError::no_such_overload_bare()),
        },
        [x, y] => Ok(Value::Bool(values_equal(x, y))),
        _ => Err(EvalError::no_such_overload("_==_", a)),
    }
}

pub(super) fn not_equals<'a>(a: &[Value<'a>]) -> R<'a> {
    match a {
        [Value::Opaque(o), y] => Ok(Value::Bool(o.equal_value(y) != Some(true))),
        [x, y] => Ok(Value::Bool(!values_equal(x, y))),
        _ => Err(EvalError::no_such_overload("_!=_", a)),
    }
}

// Addition.
overload!(add_int64, "_+_", [Value::Int(x), Value::Int(y)] => int_result(x.checked_add(*y)));

overload!(add_uint64, "_+_", [Value::Uint(x), Value::Uint(y)] => uint_result(x.checked_add(*y)));

overload!(add_double, "_+_", [Value::Double(x), Value::Double(y)] => Ok(Value::Double(x + y)));

overload!(add_string, "_+_", [Value::String(x), Value::String(y)] => {
    if y.is_empty() {
        return Ok(Value::String(x.clone()));
    }
    if x.is_empty() {
        return Ok(Value::String(y.clone()));
    }
    check_string_size(x.len().saturating_add(y.len()))?;
    let mut s = String::with_capacity(x.len() + y.len());
    s.push_str(x);
    s.push_str(y);
    Ok(Value::string(s))
});

overload!(add_bytes, "_+_", [Value::Bytes(x), Value::Bytes(y)] => {
    check_string_size(x.len().saturating_add(y.len()))?;
    let mut v = Vec::with_capacity(x.len() + y.len());
    v.extend_from_slice(x);
    v.extend_from_slice(y);
    Ok(Value::bytes(v))
});

overload!(add_list, "_+_", [Value::List(x), Value::List(y)] => concat_lists(x, y));

// Subtraction.
overload!(subtract_int64, "_-_", [Value::Int(x), Value::Int(y)] => int_result(x.checked_sub(*y)));

overload!(
    subtract_uint64,
    "_-_",
    [Value::Uint(x), Value::Uint(y)] => uint_result(x.checked_sub(*y))
);

overload!(subtract_double, "_-_", [Value::Double(x), Value::Double(y)] => Ok(Value::Double(x - y)));

// Multiplication.
overload!(multiply_int64, "_*_", [Value::Int(x), Value::Int(y)] => int_result(x.checked_mul(*y)));

overload!(
    multiply_uint64,
    "_*_",
    [Value::Uint(x), Value::Uint(y)] => uint_result(x.checked_mul(*y))
);

overload!(multiply_double, "_*_", [Value::Double(x), Value::Double(y)] => Ok(Value::Double(x * y)));

// Division.
overload!(
    divide_int64,
    "_/_",
    [Value::Int(_), Value::Int(0)] => Err(EvalError::division_by_zero()),
    [Value::Int(x), Value::Int(y)] => int_result(x.checked_div(*y)),
);

overload!(
    divide_uint64,
    "_/_",
    [Value::Uint(_), Value::Uint(0)] => Err(EvalError::division_by_zero()),
    [Value::Uint(x), Value::Uint(y)] => uint_result(x.checked_div(*y)),
);

overload!(divide_double, "_/_", [Value::Double(x), Value::Double(y)] => Ok(Value::Double(x / y)));

// Modulo.
overload!(
    modulo_int64,
    "_%_",
    [Value::Int(_), Value::Int(0)] => Err(EvalError::modulus_by_zero()),
    [Value::Int(x), Value::Int(y)] => int_result(x.checked_rem(*y)),
);

overload!(
    modulo_uint64,
    "_%_",
    [Value::Uint(_), Value::Uint(0)] => Err(EvalError::modulus_by_zero()),
    [Value::Uint(x), Value::Uint(y)] => uint_result(x.checked_rem(*y)),
);

// Negation.
overload!(negate_int64, "-_", [Value::Int(x)] => int_result(x.checked_neg()));

overload!(negate_double, "-_", [Value::Double(x)] => Ok(Value::Double(-x)));

// Relations.
pub(super) fn less_bool<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<_", a, ord_bool, Ordering::is_lt)
}

pub(super) fn less_int64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<_", a, ord_int, Ordering::is_lt)
}

pub(super) fn less_int64_double<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<_", a, ord_int_double, Ordering::is_lt)
}

pub(super) fn less_int64_uint64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<_", a, ord_int_uint, Ordering::is_lt)
}

pub(super) fn less_uint64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<_", a, ord_uint, Ordering::is_lt)
}

pub(super) fn less_uint64_double<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<_", a, ord_uint_double, Ordering::is_lt)
}

pub(super) fn less_uint64_int64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<_", a, ord_uint_int, Ordering::is_lt)
}

pub(super) fn less_double<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<_", a, ord_double, Ordering::is_lt)
}

pub(super) fn less_double_int64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<_", a, ord_double_int, Ordering::is_lt)
}

pub(super) fn less_double_uint64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<_", a, ord_double_uint, Ordering::is_lt)
}

pub(super) fn less_string<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<_", a, ord_string, Ordering::is_lt)
}

pub(super) fn less_bytes<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<_", a, ord_bytes, Ordering::is_lt)
}

pub(super) fn less_timestamp<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<_", a, ord_timestamp, Ordering::is_lt)
}

pub(super) fn less_duration<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<_", a, ord_duration, Ordering::is_lt)
}

pub(super) fn less_equals_bool<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<=_", a, ord_bool, Ordering::is_le)
}

pub(super) fn less_equals_int64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<=_", a, ord_int, Ordering::is_le)
}

pub(super) fn less_equals_int64_double<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<=_", a, ord_int_double, Ordering::is_le)
}

pub(super) fn less_equals_int64_uint64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<=_", a, ord_int_uint, Ordering::is_le)
}

pub(super) fn less_equals_uint64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<=_", a, ord_uint, Ordering::is_le)
}

pub(super) fn less_equals_uint64_double<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<=_", a, ord_uint_double, Ordering::is_le)
}

pub(super) fn less_equals_uint64_int64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<=_", a, ord_uint_int, Ordering::is_le)
}

pub(super) fn less_equals_double<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<=_", a, ord_double, Ordering::is_le)
}

pub(super) fn less_equals_double_int64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<=_", a, ord_double_int, Ordering::is_le)
}

pub(super) fn less_equals_double_uint64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<=_", a, ord_double_uint, Ordering::is_le)
}

pub(super) fn less_equals_string<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<=_", a, ord_string, Ordering::is_le)
}

pub(super) fn less_equals_bytes<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<=_", a, ord_bytes, Ordering::is_le)
}

pub(super) fn less_equals_timestamp<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<=_", a, ord_timestamp, Ordering::is_le)
}

pub(super) fn less_equals_duration<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_<=_", a, ord_duration, Ordering::is_le)
}

pub(super) fn greater_bool<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>_", a, ord_bool, Ordering::is_gt)
}

pub(super) fn greater_int64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>_", a, ord_int, Ordering::is_gt)
}

pub(super) fn greater_int64_double<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>_", a, ord_int_double, Ordering::is_gt)
}

pub(super) fn greater_int64_uint64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>_", a, ord_int_uint, Ordering::is_gt)
}

pub(super) fn greater_uint64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>_", a, ord_uint, Ordering::is_gt)
}

pub(super) fn greater_uint64_double<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>_", a, ord_uint_double, Ordering::is_gt)
}

pub(super) fn greater_uint64_int64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>_", a, ord_uint_int, Ordering::is_gt)
}

pub(super) fn greater_double<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>_", a, ord_double, Ordering::is_gt)
}

pub(super) fn greater_double_int64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>_", a, ord_double_int, Ordering::is_gt)
}

pub(super) fn greater_double_uint64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>_", a, ord_double_uint, Ordering::is_gt)
}

pub(super) fn greater_string<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>_", a, ord_string, Ordering::is_gt)
}

pub(super) fn greater_bytes<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>_", a, ord_bytes, Ordering::is_gt)
}

pub(super) fn greater_timestamp<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>_", a, ord_timestamp, Ordering::is_gt)
}

pub(super) fn greater_duration<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>_", a, ord_duration, Ordering::is_gt)
}

pub(super) fn greater_equals_bool<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>=_", a, ord_bool, Ordering::is_ge)
}

pub(super) fn greater_equals_int64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>=_", a, ord_int, Ordering::is_ge)
}

pub(super) fn greater_equals_int64_double<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>=_", a, ord_int_double, Ordering::is_ge)
}

pub(super) fn greater_equals_int64_uint64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>=_", a, ord_int_uint, Ordering::is_ge)
}

pub(super) fn greater_equals_uint64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>=_", a, ord_uint, Ordering::is_ge)
}

pub(super) fn greater_equals_uint64_double<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>=_", a, ord_uint_double, Ordering::is_ge)
}

pub(super) fn greater_equals_uint64_int64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>=_", a, ord_uint_int, Ordering::is_ge)
}

pub(super) fn greater_equals_double<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>=_", a, ord_double, Ordering::is_ge)
}

pub(super) fn greater_equals_double_int64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>=_", a, ord_double_int, Ordering::is_ge)
}

pub(super) fn greater_equals_double_uint64<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>=_", a, ord_double_uint, Ordering::is_ge)
}

pub(super) fn greater_equals_string<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>=_", a, ord_string, Ordering::is_ge)
}

pub(super) fn greater_equals_bytes<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>=_", a, ord_bytes, Ordering::is_ge)
}

pub(super) fn greater_equals_timestamp<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>=_", a, ord_timestamp, Ordering::is_ge)
}

pub(super) fn greater_equals_duration<'a>(a: &[Value<'a>]) -> R<'a> {
    relation("_>=_", a, ord_duration, Ordering::is_ge)
}

// Indexing and membership.
overload!(index_list, "_[_]", [Value::List(l), i] => list_at(l, i));

pub(super) fn index_map<'a>(a: &[Value<'a>]) -> R<'a> {
    match a {
        [Value::Map(m), k] => m.get(k).ok_or_else(|| {
            EvalError::new(
                ErrorKind::NoSuchKey,
                format!("no such key: {}", format_key(k)),
            )
        }),
        _ => Err(EvalError::no_such_overload("_[_]", a)),
    }
}

overload!(
    in_list,
    "@in",
    [x, Value::List(l)] => Ok(Value::Bool(l.iter().any(|e| values_equal(x, &e))))
);

overload!(in_map, "@in", [k, Value::Map(m)] => Ok(Value::Bool(m.contains_key(k))));

// Size (the global and the member overload of a type share one implementation).
overload!(size_string, "size", [Value::String(s)] => size_result(s.chars().count()));
overload!(size_bytes, "size", [Value::Bytes(b)] => size_result(b.len()));
overload!(size_list, "size", [Value::List(l)] => size_result(l.len()));
overload!(size_map, "size", [Value::Map(m)] => size_result(m.len()));

// Strings.
overload!(
    contains_string,
    "contains",
    [Value::String(s), Value::String(t)] => Ok(Value::Bool(s.contains(t.as_str())))
);

overload!(
    starts_with_string,
    "startsWith",
    [Value::String(s), Value::String(t)] => Ok(Value::Bool(s.starts_with(t.as_str())))
);

overload!(
    ends_with_string,
    "endsWith",
    [Value::String(s), Value::String(t)] => Ok(Value::Bool(s.ends_with(t.as_str())))
);

// `matches(string, string)` and `string.matches(string)`.
overload!(matches, "matches", [Value::String(s), Value::String(p)] => {
    cached_regex(p).map(|re| Value::Bool(re.is_match(s)))
});

// Type conversions.
overload!(type_of, "type", [x] => Ok(Value::Type(x.type_value())));

// `type(x)` where the optional type is named `optional` (cel-go v0.17: Kubernetes 1.30).
overload!(type_of_optional_named_optional, "type", [x] => Ok(Value::Type(match x {
    Value::Optional(_) => crate::value::TypeName::new_static("optional"),
    other => other.type_value(),
})));

overload!(to_dyn, "dyn", [x] => Ok(x.clone()));

overload!(int64_to_int64, "int", [Value::Int(i)] => Ok(Value::Int(*i)));

overload!(uint64_to_int64, "int", [Value::Uint(u)] => int_result(i64::try_from(*u).ok()));

overload!(double_to_int64, "int", [Value::Double(d)] => int_result(double_to_int(*d)));

overload!(
    string_to_int64,
    "int",
    [Value::String(s)] => parse(s, "int", go_strconv::parse_int, Value::Int)
);

overload!(uint64_to_uint64, "uint", [Value::Uint(u)] => Ok(Value::Uint(*u)));

overload!(int64_to_uint64, "uint", [Value::Int(i)] => uint_result(u64::try_from(*i).ok()));

overload!(double_to_uint64, "uint", [Value::Double(d)] => uint_result(double_to_uint(*d)));

overload!(
    string_to_uint64,
    "uint",
    [Value::String(s)] => parse(s, "uint", go_strconv::parse_uint, Value::Uint)
);

overload!(double_to_double, "double", [Value::Double(d)] => Ok(Value::Double(*d)));

overload!(int64_to_double, "double", [Value::Int(i)] => Ok(Value::Double(*i as f64)));

overload!(uint64_to_double, "double", [Value::Uint(u)] => Ok(Value::Double(*u as f64)));

overload!(
    string_to_double,
    "double",
    [Value::String(s)] => parse(s, "double", go_strconv::parse_float, Value::Double)
);

overload!(string_to_string, "string", [Value::String(s)] => Ok(Value::String(s.clone())));

overload!(
    bool_to_string,
    "string",
    [Value::Bool(b)] => Ok(Value::string(if *b { "true" } else { "false" }))
);

overload!(int64_to_string, "string", [Value::Int(i)] => Ok(Value::string(i.to_string())));

overload!(uint64_to_string, "string", [Value::Uint(u)] => Ok(Value::string(u.to_string())));

overload!(
    double_to_string,
    "string",
    [Value::Double(d)] => Ok(Value::string(go_strconv::format_float_g(*d)))
);

pub(super) fn bytes_to_string<'a>(a: &[Value<'a>]) -> R<'a> {
    match a {
        [Value::Bytes(b)] => match std::str::from_utf8(b) {
            Ok(s) => Ok(Value::string(s)),
            Err(_) => Err(EvalError::invalid_argument(
                "invalid UTF-8 in bytes, cannot convert to string",
            )),
        },
        _ => Err(EvalError::no_such_overload("string", a)),
    }
}

overload!(bool_to_bool, "bool", [Value::Bool(b)] => Ok(Value::Bool(*b)));

overload!(
    string_to_bool,
    "bool",
    [Value::String(s)] => parse(s, "bool", go_strconv::parse_bool, Value::Bool)
);

overload!(bytes_to_bytes, "bytes", [Value::Bytes(b)] => Ok(Value::Bytes(b.clone())));

overload!(string_to_bytes, "bytes", [Value::String(s)] => Ok(Value::bytes(s.as_bytes())));

fn int_result<'a>(v: Option<i64>) -> R<'a> {
    v.map(Value::Int).ok_or_else(EvalError::overflow)
}

fn uint_result<'a>(v: Option<u64>) -> R<'a> {
    v.map(Value::Uint).ok_or_else(uint_overflow)
}

/// `unsigned integer overflow`
fn uint_overflow() -> EvalError {
    EvalError::new(ErrorKind::Overflow, "unsigned integer overflow")
}

/// A conversion of a string by Go's parser for the type `to`.
fn parse<'a, T>(
    s: &str,
    to: &str,
    parse: fn(&str) -> Option<T>,
    value: fn(T) -> Value<'a>,
) -> R<'a> {
    parse(s)
        .map(value)
        .ok_or_else(|| conversion_error("string", to))
}

fn conversion_error(from: &str, to: &str) -> EvalError {
    EvalError::invalid_argument(format!("type conversion error from '{from}' to '{to}'"))
}

/// `int(double)`: truncation toward zero; NaN, infinities and values at or beyond ±2^63
/// fail (cel-go also rejects -2^63 itself).
fn double_to_int(d: f64) -> Option<i64> {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if d.is_nan() || d <= -TWO_63 || d >= TWO_63 {
        return None;
    }
    Some(d as i64)
}

/// `uint(double)`: truncation toward zero; NaN, infinities, negative values and values at or
/// beyond 2^64 fail.
fn double_to_uint(d: f64) -> Option<u64> {
    const TWO_64: f64 = 18_446_744_073_709_551_616.0;
    if d.is_nan() || !(0.0..TWO_64).contains(&d) {
        return None;
    }
    Some(d as u64)
}

fn concat_lists<'a>(x: &List<'a>, y: &List<'a>) -> R<'a> {
    if y.is_empty() {
        return Ok(Value::List(x.clone()));
    }
    if x.is_empty() {
        return Ok(Value::List(y.clone()));
    }
    check_list_size(x.len().saturating_add(y.len()))?;
    let mut v = Vec::with_capacity(x.len() + y.len());
    v.extend(x.iter());
    v.extend(y.iter());
    Ok(Value::list(v))
}

/// `list[index]`: an int, a uint that fits an int, or a double with an integral value.
fn list_at<'a>(l: &List<'a>, index: &Value<'_>) -> R<'a> {
    let i: i64 = match index {
        Value::Int(i) => *i,
        Value::Uint(u) => i64::try_from(*u).map_err(|_| {
            EvalError::invalid_argument(format!("unsupported index value {u} in list"))
        })?,
        Value::Double(d) => match double_to_int(*d) {
            Some(i) if i as f64 == *d => i,
            _ => {
                return Err(EvalError::invalid_argument(format!(
                    "unsupported index value {} in list",
                    go_strconv::format_float_g(*d)
                )))
            }
        },
        other => {
            return Err(EvalError::invalid_argument(format!(
                "unsupported index type '{}' in list",
                go_type_string(other)
            )))
        }
    };
    usize::try_from(i)
        .ok()
        .and_then(|u| l.get(u))
        .ok_or_else(|| {
            EvalError::new(
                ErrorKind::IndexOutOfRange,
                format!("index '{i}' out of range in list size '{}'", l.len()),
            )
        })
}

/// A map key as cel-go prints it in `no such key: …` (Go's `%v`).
fn format_key(k: &Value<'_>) -> String {
    match k {
        Value::String(s) => s.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Double(d) => go_strconv::format_float_g(*d),
        Value::Null => String::from("0"),
        other => go_type_string(other),
    }
}

/// A value's type as cel-go prints it in messages (`list(dyn)`, `map(dyn, dyn)`, `int` …).
fn go_type_string(v: &Value<'_>) -> String {
    match v {
        Value::List(_) => String::from("list(dyn)"),
        Value::Map(_) => String::from("map(dyn, dyn)"),
        other => other.type_name().to_string(),
    }
}

/// A size as an int.
fn size_result<'a>(n: usize) -> R<'a> {
    int_result(i64::try_from(n).ok())
}

/// The outcome of ordering two arguments: `None` when their types do not fit the overload.
type Order = Option<Result<Ordering, EvalError>>;

/// A relation operator: orders the arguments and tests the ordering.
fn relation<'a>(
    name: &str,
    args: &[Value<'a>],
    order: fn(&Value<'_>, &Value<'_>) -> Order,
    test: fn(Ordering) -> bool,
) -> R<'a> {
    match args {
        [x, y] => match order(x, y) {
            Some(Ok(o)) => Ok(Value::Bool(test(o))),
            Some(Err(e)) => Err(e),
            None => Err(EvalError::no_such_overload(name, args)),
        },
        _ => Err(EvalError::no_such_overload(name, args)),
    }
}

/// `fn $name($x, $y) -> Order`: `$order` where the pair of values matches `$pair`, else `None`
/// (a pair the overload does not take).
macro_rules! order {
    ($name:ident($x:ident, $y:ident), $pair:pat => $order:expr) => {
        fn $name($x: &Value<'_>, $y: &Value<'_>) -> Order {
            match ($x, $y) {
                $pair => $order,
                _ => None,
            }
        }
    };
}

/// `NaN values cannot be ordered`
fn nan_error() -> EvalError {
    EvalError::invalid_argument("NaN values cannot be ordered")
}

fn numeric(x: &Value<'_>, y: &Value<'_>) -> Order {
    Some(cel_numeric_cmp(x, y).ok_or_else(nan_error))
}

order!(ord_bool(x, y), (Value::Bool(a), Value::Bool(b)) => Some(Ok(a.cmp(b))));
order!(ord_int(x, y), (Value::Int(a), Value::Int(b)) => Some(Ok(a.cmp(b))));
order!(ord_int_double(x, y), (Value::Int(_), Value::Double(_)) => numeric(x, y));
order!(ord_int_uint(x, y), (Value::Int(_), Value::Uint(_)) => numeric(x, y));
order!(ord_uint(x, y), (Value::Uint(a), Value::Uint(b)) => Some(Ok(a.cmp(b))));
order!(ord_uint_double(x, y), (Value::Uint(_), Value::Double(_)) => numeric(x, y));
order!(ord_uint_int(x, y), (Value::Uint(_), Value::Int(_)) => numeric(x, y));
order!(ord_double(x, y), (Value::Double(_), Value::Double(_)) => numeric(x, y));
order!(ord_double_int(x, y), (Value::Double(_), Value::Int(_)) => numeric(x, y));
order!(ord_double_uint(x, y), (Value::Double(_), Value::Uint(_)) => numeric(x, y));
order!(
    ord_string(x, y),
    (Value::String(a), Value::String(b)) => Some(Ok(a.as_str().cmp(b.as_str())))
);

order!(ord_bytes(x, y), (Value::Bytes(a), Value::Bytes(b)) => Some(Ok((**a).cmp(&**b))));
order!(ord_timestamp(x, y), (Value::Timestamp(a), Value::Timestamp(b)) => Some(Ok(a.cmp(b))));
order!(ord_duration(x, y), (Value::Duration(a), Value::Duration(b)) => Some(Ok(a.cmp(b))));
