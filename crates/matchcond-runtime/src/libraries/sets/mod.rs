//! The sets extension (cel-go `ext/sets.go`, Kubernetes 1.29+): `sets.contains`,
//! `sets.equivalent`, `sets.intersects`, with CEL equality (so `1`, `1u` and `1.0` are one
//! element). Their cost is the extension's own tracker.

use matchcond_front::Type;

use super::definition::{function, global, Definition, FunctionEntry, Implementation, Library};
use crate::cost::{Cost, Tracker};
use crate::error::EvalError;
use crate::value::{values_equal, List, Value};

#[cfg(test)]
mod tests;

/// The extension, from Kubernetes 1.29.
pub(crate) fn library() -> Definition {
    Definition::new(Library::Sets).functions([
        set_function(
            "sets.contains",
            "list_sets_contains_list",
            contains,
            Tracker::SetsProduct,
        ),
        set_function(
            "sets.equivalent",
            "list_sets_equivalent_list",
            equivalent,
            Tracker::SetsEquivalent,
        ),
        set_function(
            "sets.intersects",
            "list_sets_intersects_list",
            intersects,
            Tracker::SetsProduct,
        ),
    ])
}

/// `name(list(T), list(T)) -> bool`, one overload `id` costed by `tracker`.
fn set_function(
    name: &'static str,
    id: &'static str,
    implementation: Implementation,
    tracker: Tracker,
) -> FunctionEntry {
    let l = || Type::list(Type::param("T"));
    function(
        name,
        [global(id, [l(), l()], Type::Bool, implementation).cost_rule(Cost::tracked(tracker))],
    )
}

/// Whether the list has an element equal to `v`.
fn list_contains(list: &List<'_>, v: &Value<'_>) -> bool {
    list.iter().any(|e| values_equal(v, &e))
}

/// Whether every element of `sub` is in `list`.
fn contains_all(list: &List<'_>, sub: &List<'_>) -> bool {
    sub.iter().all(|e| list_contains(list, &e))
}

/// `sets.contains(list(T), list(T)) -> bool`: every element of the second list is in the
/// first.
fn contains<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::List(l), Value::List(sub)] => Ok(Value::Bool(contains_all(l, sub))),
        _ => Err(EvalError::no_such_overload("sets.contains", args)),
    }
}

/// `sets.equivalent(list(T), list(T)) -> bool`: each list contains the other.
fn equivalent<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::List(a), Value::List(b)] => {
            Ok(Value::Bool(contains_all(a, b) && contains_all(b, a)))
        }
        _ => Err(EvalError::no_such_overload("sets.equivalent", args)),
    }
}

/// `sets.intersects(list(T), list(T)) -> bool`: the lists share an element.
fn intersects<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::List(a), Value::List(b)] => Ok(Value::Bool(a.iter().any(|e| list_contains(b, &e)))),
        _ => Err(EvalError::no_such_overload("sets.intersects", args)),
    }
}
