//! The Kubernetes lists library (kubernetes/apiserver `pkg/cel/library/lists.go`,
//! `library.Lists(library.ListsVersion(n))`): version 0 (`isSorted`, `sum`, `min`, `max`,
//! `indexOf`, `lastIndexOf`) until Kubernetes 1.37, version 1 (adds `includes`) from then.
//! The Kubernetes cost estimator prices each by one traversal of the list.

use std::cmp::Ordering;

use matchcond_front::Type;

use super::definition::{function, member, Definition, FunctionEntry, Implementation, Library};
use super::support::compare::{compare, is_comparable, COMPARABLE_TYPES};
use super::support::guard::{check, G};
use super::support::{bare_no_such_overload, fail};
use crate::cost::Estimate;
use crate::error::EvalError;
use crate::value::{values_equal, Duration, List, Timestamp, Trait, Value};

#[cfg(test)]
mod tests;

/// The overloads of `isSorted`, in the order of [`COMPARABLE_TYPES`].
const IS_SORTED: [(&str, Implementation); 8] = [
    ("list_int_is_sorted_bool", is_sorted_int),
    ("list_uint_is_sorted_bool", is_sorted_uint),
    ("list_double_is_sorted_bool", is_sorted_double),
    ("list_bool_is_sorted_bool", is_sorted_bool),
    ("list_duration_is_sorted_bool", is_sorted_duration),
    ("list_timestamp_is_sorted_bool", is_sorted_timestamp),
    ("list_string_is_sorted_bool", is_sorted_string),
    ("list_bytes_is_sorted_bool", is_sorted_bytes),
];

/// The overloads of `max`, in the order of [`COMPARABLE_TYPES`].
const MAX: [(&str, Implementation); 8] = [
    ("list_int_max_int", max_int),
    ("list_uint_max_uint", max_uint),
    ("list_double_max_double", max_double),
    ("list_bool_max_bool", max_bool),
    ("list_duration_max_duration", max_duration),
    ("list_timestamp_max_timestamp", max_timestamp),
    ("list_string_max_string", max_string),
    ("list_bytes_max_bytes", max_bytes),
];

/// The overloads of `min`, in the order of [`COMPARABLE_TYPES`].
const MIN: [(&str, Implementation); 8] = [
    ("list_int_min_int", min_int),
    ("list_uint_min_uint", min_uint),
    ("list_double_min_double", min_double),
    ("list_bool_min_bool", min_bool),
    ("list_duration_min_duration", min_duration),
    ("list_timestamp_min_timestamp", min_timestamp),
    ("list_string_min_string", min_string),
    ("list_bytes_min_bytes", min_bytes),
];

/// The overloads of `sum`, with their element types.
const SUM: [(&str, Type, Implementation); 4] = [
    ("list_int_sum_int", Type::Int, sum_int),
    ("list_uint_sum_uint", Type::Uint, sum_uint),
    ("list_double_sum_double", Type::Double, sum_double),
    ("list_duration_sum_duration", Type::Duration, sum_duration),
];

/// The library at a version: 0 before Kubernetes 1.37, 1 from then.
pub(crate) fn library(version: u32) -> Definition {
    let per_type = |name: &'static str,
                    overloads: [(&'static str, Implementation); 8],
                    result: Option<Type>| {
        let overloads = COMPARABLE_TYPES.iter().zip(overloads).map(|(ty, (id, f))| {
            member(
                id,
                [Type::list(ty.clone())],
                result.clone().unwrap_or_else(|| ty.clone()),
                f,
            )
        });
        traversal(function(name, overloads))
    };
    let a = || Type::param("A");
    let library = match version {
        0 => Library::K8sListsV0,
        _ => Library::K8sListsV1,
    };
    let mut fns = vec![
        per_type("isSorted", IS_SORTED, Some(Type::Bool)),
        traversal(function(
            "sum",
            SUM.into_iter()
                .map(|(id, ty, f)| member(id, [Type::list(ty.clone())], ty, f)),
        )),
        per_type("max", MAX, None),
        per_type("min", MIN, None),
        traversal(function(
            "indexOf",
            [member(
                "list_a_index_of_int",
                [Type::list(a()), a()],
                Type::Int,
                index_of,
            )],
        )),
        traversal(function(
            "lastIndexOf",
            [member(
                "list_a_last_index_of_int",
                [Type::list(a()), a()],
                Type::Int,
                last_index_of,
            )],
        )),
    ];
    if version >= 1 {
        fns.push(traversal(function(
            "includes",
            [member(
                "list_includes_dyn_dyn",
                [Type::Dyn, Type::Dyn],
                Type::Bool,
                includes,
            )],
        )));
    }
    Definition::new(library).functions(fns)
}

/// Priced by the Kubernetes estimator as one traversal of the list.
fn traversal(f: FunctionEntry) -> FunctionEntry {
    f.estimate_by(Estimate::ListTraversal)
}

/// Applies the `list(<elem>)` guard of an overload and returns the list.
fn guarded_list<'l, 'a>(
    function: &str,
    elem: &'static G,
    args: &'l [Value<'a>],
) -> Result<&'l List<'a>, EvalError> {
    check(function, &[G::List(elem)], args)?;
    match args {
        [Value::List(l)] => Ok(l),
        _ => Err(EvalError::no_such_overload(function, args)),
    }
}

/// `isSorted`: false as soon as an element compares greater than the next one. Elements that
/// cannot be compared with each other (NaN, or values of unrelated types in a `dyn` list) do
/// not make the list unsorted; an element that cannot be compared at all is
/// `no such overload`.
fn is_sorted<'a>(elem: &'static G, args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    let list = guarded_list("isSorted", elem, args)?;
    let mut prev: Option<Value<'a>> = None;
    for next in list.iter() {
        if !is_comparable(&next) {
            return Err(bare_no_such_overload());
        }
        if let Some(p) = &prev {
            if compare(p, &next) == Some(Ordering::Greater) {
                return Ok(Value::Bool(false));
            }
        }
        prev = Some(next);
    }
    Ok(Value::Bool(true))
}

macro_rules! per_type {
    ($(#[$doc:meta])* $name:ident, $inner:ident, $elem:expr) => {
        $(#[$doc])*
        fn $name<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
            $inner(&$elem, args)
        }
    };
}

per_type!(
    /// `list(int).isSorted() -> bool`
    is_sorted_int, is_sorted, G::Int);
per_type!(
    /// `list(uint).isSorted() -> bool`
    is_sorted_uint, is_sorted, G::Uint);
per_type!(
    /// `list(double).isSorted() -> bool`
    is_sorted_double, is_sorted, G::Double);
per_type!(
    /// `list(bool).isSorted() -> bool`
    is_sorted_bool, is_sorted, G::Bool);
per_type!(
    /// `list(duration).isSorted() -> bool`
    is_sorted_duration, is_sorted, G::Duration);
per_type!(
    /// `list(timestamp).isSorted() -> bool`
    is_sorted_timestamp, is_sorted, G::Timestamp);
per_type!(
    /// `list(string).isSorted() -> bool`
    is_sorted_string, is_sorted, G::Str);
per_type!(
    /// `list(bytes).isSorted() -> bool`
    is_sorted_bytes, is_sorted, G::Bytes);

/// A duration added to a timestamp, with cel-go's range check (`timestamp overflow`).
fn add_timestamp(t: &Timestamp, d: &Duration) -> Result<Timestamp, EvalError> {
    let total = t.total_nanos() + i128::from(d.nanos);
    Timestamp::from_total_nanos(total)
        .ok_or_else(|| EvalError::new(crate::error::ErrorKind::Overflow, "timestamp overflow"))
}

/// `acc + next` as cel-go's `Add` methods compute it for the accumulators `sum` can hold.
fn add<'a>(acc: &Value<'a>, next: &Value<'a>) -> Result<Value<'a>, EvalError> {
    match (acc, next) {
        (Value::Int(x), Value::Int(y)) => x
            .checked_add(*y)
            .map(Value::Int)
            .ok_or_else(EvalError::overflow),
        (Value::Uint(x), Value::Uint(y)) => x.checked_add(*y).map(Value::Uint).ok_or_else(|| {
            EvalError::new(
                crate::error::ErrorKind::Overflow,
                "unsigned integer overflow",
            )
        }),
        (Value::Double(x), Value::Double(y)) => Ok(Value::Double(x + y)),
        (Value::Duration(x), Value::Duration(y)) => x
            .nanos
            .checked_add(y.nanos)
            .map(|nanos| Value::Duration(Duration { nanos }))
            .ok_or_else(EvalError::overflow),
        (Value::Duration(d), Value::Timestamp(t)) | (Value::Timestamp(t), Value::Duration(d)) => {
            add_timestamp(t, d).map(Value::Timestamp)
        }
        _ => Err(bare_no_such_overload()),
    }
}

/// `sum`: the zero of the element type plus every element.
fn sum<'a>(elem: &'static G, zero: Value<'a>, args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    let list = guarded_list("sum", elem, args)?;
    let mut acc = zero;
    for next in list.iter() {
        if !Trait::Adder.of(&next) {
            return Err(bare_no_such_overload());
        }
        acc = add(&acc, &next)?;
    }
    Ok(acc)
}

/// `list(int).sum() -> int`
fn sum_int<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    sum(&G::Int, Value::Int(0), args)
}

/// `list(uint).sum() -> uint`
fn sum_uint<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    sum(&G::Uint, Value::Uint(0), args)
}

/// `list(double).sum() -> double`
fn sum_double<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    sum(&G::Double, Value::Double(0.0), args)
}

/// `list(duration).sum() -> duration`
fn sum_duration<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    sum(&G::Duration, Value::Duration(Duration { nanos: 0 }), args)
}

/// `min` / `max`: the first element that no later element beats (`prefer` is the comparison
/// result of `current.compare(next)` that makes `next` the new result).
fn extreme<'a>(
    op: &'static str,
    prefer: Ordering,
    elem: &'static G,
    args: &[Value<'a>],
) -> Result<Value<'a>, EvalError> {
    let list = guarded_list(op, elem, args)?;
    let mut result: Option<Value<'a>> = None;
    for next in list.iter() {
        if !is_comparable(&next) {
            return Err(bare_no_such_overload());
        }
        match &result {
            None => result = Some(next),
            Some(current) => {
                if compare(current, &next) == Some(prefer) {
                    result = Some(next);
                }
            }
        }
    }
    result.ok_or_else(|| fail(format!("{op} called on empty list")))
}

fn min<'a>(elem: &'static G, args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    extreme("min", Ordering::Greater, elem, args)
}

fn max<'a>(elem: &'static G, args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    extreme("max", Ordering::Less, elem, args)
}

per_type!(
    /// `list(int).max() -> int`
    max_int, max, G::Int);
per_type!(
    /// `list(uint).max() -> uint`
    max_uint, max, G::Uint);
per_type!(
    /// `list(double).max() -> double`
    max_double, max, G::Double);
per_type!(
    /// `list(bool).max() -> bool`
    max_bool, max, G::Bool);
per_type!(
    /// `list(duration).max() -> duration`
    max_duration, max, G::Duration);
per_type!(
    /// `list(timestamp).max() -> timestamp`
    max_timestamp, max, G::Timestamp);
per_type!(
    /// `list(string).max() -> string`
    max_string, max, G::Str);
per_type!(
    /// `list(bytes).max() -> bytes`
    max_bytes, max, G::Bytes);
per_type!(
    /// `list(int).min() -> int`
    min_int, min, G::Int);
per_type!(
    /// `list(uint).min() -> uint`
    min_uint, min, G::Uint);
per_type!(
    /// `list(double).min() -> double`
    min_double, min, G::Double);
per_type!(
    /// `list(bool).min() -> bool`
    min_bool, min, G::Bool);
per_type!(
    /// `list(duration).min() -> duration`
    min_duration, min, G::Duration);
per_type!(
    /// `list(timestamp).min() -> timestamp`
    min_timestamp, min, G::Timestamp);
per_type!(
    /// `list(string).min() -> string`
    min_string, min, G::Str);
per_type!(
    /// `list(bytes).min() -> bytes`
    min_bytes, min, G::Bytes);

/// `list(A).indexOf(A) -> int`: the first index of an equal element, or -1.
fn index_of<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::List(l), item] => Ok(Value::Int(
            l.iter()
                .position(|e| values_equal(&e, item))
                .map_or(-1, |i| i as i64),
        )),
        _ => Err(EvalError::no_such_overload("indexOf", args)),
    }
}

/// `list(A).lastIndexOf(A) -> int`: the last index of an equal element, or -1.
fn last_index_of<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::List(l), item] => {
            let found = (0..l.len())
                .rev()
                .find(|&i| l.get(i).is_some_and(|e| values_equal(&e, item)));
            Ok(Value::Int(found.map_or(-1, |i| i as i64)))
        }
        _ => Err(EvalError::no_such_overload("lastIndexOf", args)),
    }
}

/// `dyn.includes(dyn) -> bool` (version 1): for a list, whether an element equals the
/// argument; for any other value, whether it equals the argument.
fn includes<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::List(l), arg] => Ok(Value::Bool(l.iter().any(|e| values_equal(&e, arg)))),
        [target, arg] => Ok(Value::Bool(values_equal(target, arg))),
        _ => Err(EvalError::no_such_overload("includes", args)),
    }
}
