//! The lists extension (cel-go `ext/lists.go`, version 3).

use std::cmp::Ordering;

use super::compare::{compare, is_comparable};
use super::fail;
use super::gofmt::runtime_type;
use super::guard::{check, G, LIST_ANY};
use super::sort::sort_slice;
use crate::error::EvalError;
use crate::limits::check_list_size;
use crate::value::{values_equal, List, Value};

/// `list(T).slice(int, int) -> list(T)`: the elements from the first index (inclusive) to the
/// second (exclusive).
pub(super) fn slice<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
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
pub(super) fn flatten<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
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
pub(super) fn flatten_depth<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
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
pub(super) fn range<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
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
pub(super) fn reverse<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
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
pub(super) fn distinct<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
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
pub(super) fn sort<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [list @ Value::List(l)] => sort_by_keys(list, l),
        _ => Err(EvalError::no_such_overload("sort", args)),
    }
}

/// `list(T).@sortByAssociatedKeys(list(U)) -> list(T)`, the function the `sortBy` macro
/// expands to: sorts the receiver by the keys at the same positions.
pub(super) fn sort_by_associated_keys<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [list @ Value::List(_), Value::List(keys)] => sort_by_keys(list, keys),
        _ => Err(EvalError::no_such_overload("@sortByAssociatedKeys", args)),
    }
}
