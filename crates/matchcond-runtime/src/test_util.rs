//! Helpers of the runtime's unit tests: an overload called by its id (through the library
//! registry, as the newest modelled version behaves), values built in a word, results shown
//! with their types. (The integration tests have theirs in `tests/common/mod.rs`.)

use std::sync::Arc;

use matchcond_front::decls::Overload;

use crate::error::{ErrorKind, EvalError};
use crate::libraries::support::gofmt::container_text;
use crate::libraries::{implementation, Definition};
use crate::value::{Duration, Map, MapData, Optional, Timestamp, TypeName, Value};

/// The result of a call.
pub(crate) type R<'a> = Result<Value<'a>, EvalError>;

/// Calls the implementation of an overload of any library.
#[track_caller]
pub(crate) fn call<'a>(id: &str, args: impl AsRef<[Value<'a>]>) -> R<'a> {
    let f = implementation(id).unwrap_or_else(|| panic!("no implementation of {id}"));
    f(args.as_ref())
}

/// The result of a call, shown with its types (`1`, `1u`, `1.0`, `"a"`, `[..]` …).
#[track_caller]
pub(crate) fn ok(id: &str, args: Vec<Value<'static>>) -> String {
    match call(id, args) {
        Ok(v) => show(&v),
        Err(e) => panic!("{id}: unexpected error {e}"),
    }
}

/// The error message of a call; panics on success.
#[track_caller]
pub(crate) fn err(id: &str, args: Vec<Value<'static>>) -> String {
    match call(id, args) {
        Ok(v) => panic!("{id}: expected an error, got {}", show(&v)),
        Err(e) => e.message.to_string(),
    }
}

/// The error kind of a call; panics on success.
#[track_caller]
pub(crate) fn err_kind(id: &str, args: Vec<Value<'static>>) -> ErrorKind {
    match call(id, args) {
        Ok(v) => panic!("{id}: expected an error, got {}", show(&v)),
        Err(e) => e.kind,
    }
}

/// An int result.
#[track_caller]
pub(crate) fn int(r: R<'_>) -> i64 {
    match r {
        Ok(Value::Int(i)) => i,
        other => panic!("not an int: {other:?}"),
    }
}

/// A string result.
#[track_caller]
pub(crate) fn string(r: R<'_>) -> String {
    match r {
        Ok(Value::String(s)) => s.to_string(),
        other => panic!("not a string: {other:?}"),
    }
}

/// An error's message.
#[track_caller]
pub(crate) fn error(r: R<'_>) -> String {
    match r {
        Err(e) => e.message.to_string(),
        Ok(v) => panic!("not an error: {v:?}"),
    }
}

/// A value shown with its types.
pub(crate) fn show(v: &Value<'_>) -> String {
    match v {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => format!("{u}u"),
        Value::Double(d) => format!("{d:?}"),
        Value::String(s) => format!("{:?}", s.as_str()),
        Value::Bytes(b) => format!("b{:?}", String::from_utf8_lossy(b)),
        Value::List(_) | Value::Map(_) => container_text(v, show),
        Value::Timestamp(t) => format!("ts({}, {})", t.secs, t.nanos),
        Value::Duration(d) => format!("dur({})", d.nanos),
        Value::Type(t) => format!("type({})", t.as_str()),
        Value::Optional(o) => match o.get() {
            Some(x) => format!("optional.of({})", show(&x)),
            None => "optional.none()".to_string(),
        },
        Value::Opaque(o) => o.type_name().to_string(),
    }
}

/// A string.
pub(crate) fn s(x: &str) -> Value<'static> {
    Value::string(x)
}

/// An int.
pub(crate) fn i(x: i64) -> Value<'static> {
    Value::Int(x)
}

/// A uint.
pub(crate) fn u(x: u64) -> Value<'static> {
    Value::Uint(x)
}

/// A double.
pub(crate) fn d(x: f64) -> Value<'static> {
    Value::Double(x)
}

/// A bool.
pub(crate) fn b(x: bool) -> Value<'static> {
    Value::Bool(x)
}

/// A list.
pub(crate) fn l(v: Vec<Value<'static>>) -> Value<'static> {
    Value::list(v)
}

/// Bytes.
pub(crate) fn by(x: &[u8]) -> Value<'static> {
    Value::bytes(x.to_vec())
}

/// A list of ints.
pub(crate) fn ints(v: &[i64]) -> Value<'static> {
    l(v.iter().map(|&x| i(x)).collect())
}

/// A list of strings.
pub(crate) fn strs(v: &[&str]) -> Value<'static> {
    l(v.iter().map(|x| s(x)).collect())
}

/// A duration of whole seconds.
pub(crate) fn dur(secs: i64) -> Value<'static> {
    Value::Duration(Duration {
        nanos: secs * 1_000_000_000,
    })
}

/// The timestamp of a Unix time in seconds.
pub(crate) fn ts(secs: i64) -> Value<'static> {
    Value::Timestamp(Timestamp {
        secs,
        nanos: 0,
        offset: 0,
    })
}

/// `optional.of(v)`.
pub(crate) fn opt(v: Value<'static>) -> Value<'static> {
    Value::Optional(Optional::of(v))
}

/// `optional.none()`.
pub(crate) fn none() -> Value<'static> {
    Value::Optional(Optional::None)
}

/// A map.
#[track_caller]
pub(crate) fn map(entries: Vec<(Value<'static>, Value<'static>)>) -> Value<'static> {
    let data = MapData::from_entries(entries).unwrap_or_else(|e| panic!("{e}"));
    Value::Map(Map::Shared(Arc::new(data)))
}

/// A type value.
pub(crate) fn ty(name: &'static str) -> Value<'static> {
    Value::Type(TypeName::new_static(name))
}

/// The overloads a library declares: (function name, overload id, member), in order.
pub(crate) fn declared(def: &Definition) -> Vec<(&'static str, &'static str, bool)> {
    def.entries()
        .iter()
        .flat_map(|f| {
            f.overloads()
                .iter()
                .map(move |o| (f.name(), o.id(), o.declaration().member))
        })
        .collect()
}

/// The overload ids a library declares, in order.
pub(crate) fn declared_ids(def: &Definition) -> Vec<&'static str> {
    declared(def).into_iter().map(|(_, id, _)| id).collect()
}

/// The declaration of an overload of a library.
#[track_caller]
pub(crate) fn declaration(def: &Definition, id: &str) -> Overload {
    def.entries()
        .iter()
        .flat_map(|f| f.overloads())
        .find(|o| o.id() == id)
        .map(|o| o.declaration().clone())
        .unwrap_or_else(|| panic!("{id} is not declared"))
}
