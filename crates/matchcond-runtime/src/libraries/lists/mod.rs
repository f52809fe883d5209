//! The lists extension (cel-go `ext/lists.go`, `ext.Lists(ext.ListsVersion(3))`, Kubernetes
//! 1.34+).
//!
//! Version 0: `slice`. Version 1 adds `flatten`. Version 2 adds `sort`, the `sortBy` macro and
//! the `@sortByAssociatedKeys` function it expands to, `lists.range`, `reverse` and `distinct`.
//! Version 3 adds cost estimates only. (`first` and `last` belong to the optional types
//! library.) Every function is priced by the extension's own cost tracker.

use std::cmp::Ordering;

use matchcond_front::Type;

use super::definition::{function, global, member, Definition, FunctionEntry, Library};
use super::support::compare::{compare, is_comparable, COMPARABLE_TYPES};
use super::support::fail;
use super::support::gofmt::runtime_type;
use super::support::guard::{check, G, LIST_ANY};
use crate::cost::{Cost, Tracker};
use crate::error::EvalError;
use crate::limits::check_list_size;
use crate::value::{values_equal, List, Value};
use sort::sort_slice;

mod sort;

#[cfg(test)]
mod tests;

/// Overload ids of `sort`, one per comparable element type.
const SORT_IDS: [&str; 8] = [
    "list_int_sort",
    "list_uint_sort",
    "list_double_sort",
    "list_bool_sort",
    "list_google.protobuf.Duration_sort",
    "list_google.protobuf.Timestamp_sort",
    "list_string_sort",
    "list_bytes_sort",
];

/// Overload ids of `@sortByAssociatedKeys` (the helper the `sortBy` macro expands to), one per
/// comparable key type.
const SORT_BY_IDS: [&str; 8] = [
    "list_int_sortByAssociatedKeys",
    "list_uint_sortByAssociatedKeys",
    "list_double_sortByAssociatedKeys",
    "list_bool_sortByAssociatedKeys",
    "list_google.protobuf.Duration_sortByAssociatedKeys",
    "list_google.protobuf.Timestamp_sortByAssociatedKeys",
    "list_string_sortByAssociatedKeys",
    "list_bytes_sortByAssociatedKeys",
];

/// The extension at version 3, from Kubernetes 1.34.
pub(crate) fn library() -> Definition {
    Definition::new(Library::ListsV3).functions(functions(3))
}

/// The functions of the extension at a version.
fn functions(version: u32) -> Vec<FunctionEntry> {
    let t = || Type::param("T");
    let l = || Type::list(t());
    let result = Cost::tracked(Tracker::Result);
    let mut fns = vec![function(
        "slice",
        [member("list_slice", [l(), Type::Int, Type::Int], l(), slice).cost_rule(result)],
    )];
    if version >= 1 {
        fns.push(function(
            "flatten",
            [
                member("list_flatten", [Type::list(l())], l(), flatten).cost_rule(Cost::tracked(
                    Tracker::Flatten {
                        depth_argument: false,
                    },
                )),
                member(
                    "list_flatten_int",
                    [Type::list(Type::Dyn), Type::Int],
                    Type::list(Type::Dyn),
                    flatten_depth,
                )
                .cost_rule(Cost::tracked(Tracker::Flatten {
                    depth_argument: true,
                })),
            ],
        ));
    }
    if version >= 2 {
        let self_compare = |i| Cost::tracked(Tracker::SelfCompare(i));
        fns.push(function(
            "sort",
            COMPARABLE_TYPES.iter().zip(SORT_IDS).map(|(ty, id)| {
                member(id, [Type::list(ty.clone())], Type::list(ty.clone()), sort)
                    .cost_rule(self_compare(0))
            }),
        ));
        fns.push(function(
            "@sortByAssociatedKeys",
            COMPARABLE_TYPES.iter().zip(SORT_BY_IDS).map(|(ty, id)| {
                member(
                    id,
                    [l(), Type::list(ty.clone())],
                    l(),
                    sort_by_associated_keys,
                )
                .cost_rule(self_compare(1))
            }),
        ));
        fns.push(function(
            "lists.range",
            [global("lists_range", [Type::Int], Type::list(Type::Int), range).cost_rule(result)],
        ));
        fns.push(function(
            "reverse",
            [member("list_reverse", [l()], l(), reverse).cost_rule(result)],
        ));
        fns.push(function(
            "distinct",
            [member("list_distinct", [l()], l(), distinct).cost_rule(self_compare(0))],
        ));
    }
    fns
}

/// `list(T).slice(int, int) -> list(T)`: the elements from the first index (inclusive) to the
/// second (exclusive).
fn slice<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    check("slice", &[LIST_ANY, G::Int, G::Int], args)?;
    let [Value::List(l), Value::Int(start), Value::Int(end)] = args else {
        return Err(EvalError::no_such_overload("slice", args));
    };
    let (start, end) = (*start, *end);
    if start < 0 || end < 0 {
        return Err(fail(format!(
            "cannot slice({start}, {end}), negative indexes not supported"
        )));
    }
    if start > end {
        return Err(fail(format!(
            "cannot slice({start}, {end}), start index must be less than or equal to end index"
        )));
    }
    let len = l.len();
    let (from, to) = (
        usize::try_from(start).unwrap_or(usize::MAX),
        usize::try_from(end).unwrap_or(usize::MAX),
    );
    if len < to {
        return Err(fail(format!(
            "cannot slice({start}, {end}), list is length {len}"
        )));
    }
    Ok(Value::list((from..to).filter_map(|i| l.get(i)).collect()))
}

/// Flattens nested lists down to `depth` levels, appending to `out`; stops with an error
/// when the result would exceed the list size limit.
fn flatten_into<'a>(
    list: &List<'a>,
    depth: i64,
    out: &mut Vec<Value<'a>>,
) -> Result<(), EvalError> {
    for elem in list.iter() {
        match &elem {
            Value::List(inner) if depth > 0 => flatten_into(inner, depth - 1, out)?,
            _ => {
                check_list_size(out.len() + 1)?;
                out.push(elem)
            }
        }
    }
    Ok(())
}

/// `list(list(T)).flatten() -> list(T)`: flattens one level. cel-go binds this overload
/// without a type guard: any list is accepted (elements that are not lists are kept); a
/// receiver that is not a list is `no such overload: <type>.flatten()`.
fn flatten<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::List(l)] => {
            let mut out = Vec::new();
            flatten_into(l, 1, &mut out)?;
            Ok(Value::list(out))
        }
        [other] => Err(fail(format!(
            "no such overload: {}.flatten()",
            runtime_type(other)
        ))),
        _ => Err(EvalError::no_such_overload("flatten", args)),
    }
}

/// `list(dyn).flatten(int) -> list(dyn)`: flattens `depth` levels; a negative depth is an
/// error `level must be non-negative`.
fn flatten_depth<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::List(l), Value::Int(depth)] => {
            if *depth < 0 {
                return Err(fail("level must be non-negative"));
            }
            let mut out = Vec::new();
            flatten_into(l, *depth, &mut out)?;
            Ok(Value::list(out))
        }
        [list, depth] => Err(fail(format!(
            "no such overload: {}.flatten({})",
            runtime_type(list),
            runtime_type(depth)
        ))),
        _ => Err(EvalError::no_such_overload("flatten", args)),
    }
}

/// `lists.range(int) -> list(int)`: `[0, 1, …, n-1]`; empty for `n <= 0`.
fn range<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::Int(n)] => {
            let n = (*n).max(0);
            check_list_size(usize::try_from(n).unwrap_or(usize::MAX))?;
            Ok(Value::list((0..n).map(Value::Int).collect()))
        }
        _ => Err(EvalError::no_such_overload("lists.range", args)),
    }
}

/// `list(T).reverse() -> list(T)`
fn reverse<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::List(l)] => {
            let mut v: Vec<Value<'a>> = l.iter().collect();
            v.reverse();
            Ok(Value::list(v))
        }
        _ => Err(EvalError::no_such_overload("reverse", args)),
    }
}

/// `list(T).distinct() -> list(T)`: the first occurrence of each element, by CEL equality.
fn distinct<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [list @ Value::List(l)] => {
            if l.is_empty() {
                return Ok(list.clone());
            }
            let mut unique: Vec<Value<'a>> = Vec::new();
            for elem in l.iter() {
                if !unique.iter().any(|u| values_equal(&elem, u)) {
                    unique.push(elem);
                }
            }
            Ok(Value::list(unique))
        }
        _ => Err(EvalError::no_such_overload("distinct", args)),
    }
}

/// Orders `list` by the associated `keys` (cel-go `sortListByAssociatedKeys`), with Go's
/// unstable sort.
fn sort_by_keys<'a>(list: &Value<'a>, keys: &List<'a>) -> Result<Value<'a>, EvalError> {
    let Value::List(items) = list else {
        return Err(EvalError::no_such_overload(
            "sort",
            std::slice::from_ref(list),
        ));
    };
    let (n, m) = (items.len(), keys.len());
    if n != m {
        return Err(fail(format!(
            "@sortByAssociatedKeys() expected a list of the same size as the associated keys \
             list, but got {n} and {m} elements respectively"
        )));
    }
    let keys: Vec<Value<'a>> = keys.iter().collect();
    let Some(first) = keys.first() else {
        return Ok(list.clone());
    };
    if !is_comparable(first) {
        return Err(fail("list elements must be comparable"));
    }
    // cel-go reports a key of another type when the sort compares it, and every key takes
    // part in some comparison once there are two or more.
    let first_type = first.type_name();
    if keys.iter().any(|k| k.type_name() != first_type) {
        return Err(fail("list elements must have the same type"));
    }
    let mut order: Vec<usize> = (0..n).collect();
    sort_slice(&mut order, |&i, &j| match (keys.get(i), keys.get(j)) {
        (Some(a), Some(b)) => compare(a, b) == Some(Ordering::Less),
        _ => false,
    });
    Ok(Value::list(
        order.into_iter().filter_map(|i| items.get(i)).collect(),
    ))
}

/// `list(T).sort() -> list(T)` for every comparable `T` (one implementation for all the
/// `list_<type>_sort` overloads; cel-go binds them as one function without type guards).
/// Errors: `list elements must be comparable`, `list elements must have the same type`.
fn sort<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [list @ Value::List(l)] => sort_by_keys(list, l),
        _ => Err(EvalError::no_such_overload("sort", args)),
    }
}

/// `list(T).@sortByAssociatedKeys(list(U)) -> list(T)`, the function the `sortBy` macro
/// expands to: sorts the receiver by the keys at the same positions.
fn sort_by_associated_keys<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [list @ Value::List(_), Value::List(keys)] => sort_by_keys(list, keys),
        _ => Err(EvalError::no_such_overload("@sortByAssociatedKeys", args)),
    }
}
