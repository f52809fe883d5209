//! cel-go's two-variable comprehensions (`ext.TwoVarComprehensions()`, Kubernetes 1.32+):
//! the macros (`all`, `exists`, `existsOne`, `transformList`, `transformMap`,
//! `transformMapEntry` with two variables) are the parser's; the library declares the helper
//! they expand to, `cel.@mapInsert`, which `transformMap` and `transformMapEntry` use to
//! build their result.

use std::sync::Arc;

use matchcond_front::Type;

use super::definition::{function, global, Definition, Library};
use crate::error::EvalError;
use crate::value::{Map, MapData, Value};

/// The library, from Kubernetes 1.32.
pub(crate) fn library() -> Definition {
    let k = Type::param("K");
    let v = Type::param("V");
    let m = Type::map(k.clone(), v.clone());
    Definition::new(Library::TwoVarComprehensions).functions([function(
        "cel.@mapInsert",
        [
            global(
                "@mapInsert_map_key_value",
                [m.clone(), k, v],
                m.clone(),
                map_insert_key_value,
            ),
            global(
                "@mapInsert_map_map",
                [m.clone(), m.clone()],
                m,
                map_insert_map,
            ),
        ],
    )])
}

fn copy_entries<'a>(m: &Map<'a>) -> MapData<'a> {
    let mut d = MapData::new();
    for (k, v) in m.iter() {
        // Keys of an existing map are valid and distinct.
        let _ = d.insert(k, v);
    }
    d
}

/// Inserts a key that must not be present (`insert failed: key … already exists`).
pub(crate) fn insert<'a>(d: &mut MapData<'a>, k: Value<'a>, v: Value<'a>) -> Result<(), EvalError> {
    if d.get(&k).is_some() {
        return Err(EvalError::invalid_argument(format!(
            "insert failed: key {} already exists",
            key_text(&k)
        )));
    }
    d.insert_new(k, v)
}

fn key_text(k: &Value<'_>) -> String {
    match k {
        Value::String(s) => s.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Bool(b) => b.to_string(),
        other => other.type_name().to_string(),
    }
}

fn map_insert_key_value<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::Map(m), k, v] => {
            let mut d = copy_entries(m);
            insert(&mut d, k.clone(), v.clone())?;
            Ok(Value::Map(Map::Shared(Arc::new(d))))
        }
        _ => Err(EvalError::no_such_overload("cel.@mapInsert", args)),
    }
}

fn map_insert_map<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::Map(target), Value::Map(update)] => {
            let mut d = copy_entries(target);
            for (k, v) in update.iter() {
                insert(&mut d, k, v)?;
            }
            Ok(Value::Map(Map::Shared(Arc::new(d))))
        }
        _ => Err(EvalError::no_such_overload("cel.@mapInsert", args)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_and_rejects_duplicates() {
        let empty = Value::Map(Map::Shared(Arc::new(MapData::new())));
        let one = map_insert_key_value(&[empty, Value::string("a"), Value::Int(1)]).unwrap();
        let Value::Map(m) = &one else { panic!() };
        assert_eq!(m.len(), 1);
        let err =
            map_insert_key_value(&[one.clone(), Value::string("a"), Value::Int(2)]).unwrap_err();
        assert_eq!(err.message, "insert failed: key a already exists");
        let merged = map_insert_map(&[one.clone(), one]).unwrap_err();
        assert_eq!(merged.message, "insert failed: key a already exists");
    }
}
