//! Ordering as cel-go's `traits.Comparer` implementations give it (`common/types`: `Int.Compare`,
//! `Double.Compare`, `compareIntDouble` …), used by `sort`, `sortBy`, `isSorted`, `min` and
//! `max`.
//!
//! This differs from exact numeric comparison in one respect that cel-go defines: an int or a
//! uint compared with a double is converted to a double first (so `9007199254740993` and
//! `9007199254740992.0` compare equal), after range checks against the int64/uint64 bounds.
//! NaN cannot be ordered (`None`). Values of different kinds (other than numbers) cannot be
//! ordered either.

use std::cmp::Ordering;

use matchcond_front::Type;

use crate::value::{Trait, Value};

/// The element types of the lists functions that order their elements (the lists extension's
/// `sort` and `sortBy`, the Kubernetes library's `isSorted`, `min` and `max`), in the order of
/// their overloads: the types whose values are [`is_comparable`].
pub(crate) const COMPARABLE_TYPES: [Type; 8] = [
    Type::Int,
    Type::Uint,
    Type::Double,
    Type::Bool,
    Type::Duration,
    Type::Timestamp,
    Type::String,
    Type::Bytes,
];

/// Whether the value implements cel-go's `traits.Comparer` (int, uint, double, string, bytes,
/// bool, timestamp, duration).
pub(crate) fn is_comparable(v: &Value<'_>) -> bool {
    Trait::Comparer.of(v)
}

/// `a.Compare(b)` as cel-go computes it; `None` where cel-go returns an error.
pub(crate) fn compare(a: &Value<'_>, b: &Value<'_>) -> Option<Ordering> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::Uint(x), Value::Uint(y)) => Some(x.cmp(y)),
        (Value::Int(x), Value::Uint(y)) => Some(int_uint(*x, *y)),
        (Value::Uint(x), Value::Int(y)) => Some(int_uint(*y, *x).reverse()),
        (Value::Double(x), Value::Double(y)) => x.partial_cmp(y),
        (Value::Double(d), Value::Int(i)) => double_int(*d, *i),
        (Value::Int(i), Value::Double(d)) => double_int(*d, *i).map(Ordering::reverse),
        (Value::Double(d), Value::Uint(u)) => double_uint(*d, *u),
        (Value::Uint(u), Value::Double(d)) => double_uint(*d, *u).map(Ordering::reverse),
        (Value::String(x), Value::String(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (Value::Bytes(x), Value::Bytes(y)) => Some((**x).cmp(&**y)),
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
        (Value::Timestamp(x), Value::Timestamp(y)) => Some(x.cmp(y)),
        (Value::Duration(x), Value::Duration(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

/// cel-go `compareIntUint`.
fn int_uint(i: i64, u: u64) -> Ordering {
    match u64::try_from(i) {
        Ok(i) => i.cmp(&u),
        Err(_) => Ordering::Less,
    }
}

/// cel-go `compareDoubleInt`: range checks, then a comparison of doubles.
fn double_int(d: f64, i: i64) -> Option<Ordering> {
    if d.is_nan() {
        return None;
    }
    if d < i64::MIN as f64 {
        return Some(Ordering::Less);
    }
    if d > i64::MAX as f64 {
        return Some(Ordering::Greater);
    }
    d.partial_cmp(&(i as f64))
}

/// cel-go `compareDoubleUint`.
fn double_uint(d: f64, u: u64) -> Option<Ordering> {
    if d.is_nan() {
        return None;
    }
    if d < 0.0 {
        return Some(Ordering::Less);
    }
    if d > u64::MAX as f64 {
        return Some(Ordering::Greater);
    }
    d.partial_cmp(&(u as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_across_types() {
        assert_eq!(
            compare(&Value::Int(1), &Value::Double(1.5)),
            Some(Ordering::Less)
        );
        assert_eq!(
            compare(&Value::Uint(2), &Value::Int(-1)),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare(&Value::Int(-1), &Value::Uint(0)),
            Some(Ordering::Less)
        );
        // cel-go converts the int to a double.
        assert_eq!(
            compare(
                &Value::Int(9_007_199_254_740_993),
                &Value::Double(9_007_199_254_740_992.0)
            ),
            Some(Ordering::Equal)
        );
        assert_eq!(compare(&Value::Int(1), &Value::Double(f64::NAN)), None);
        assert_eq!(compare(&Value::Double(f64::NAN), &Value::Double(1.0)), None);
        assert_eq!(
            compare(&Value::Double(-0.0), &Value::Double(0.0)),
            Some(Ordering::Equal)
        );
        assert_eq!(
            compare(&Value::Double(1e300), &Value::Int(i64::MAX)),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare(&Value::Double(-1.0), &Value::Uint(0)),
            Some(Ordering::Less)
        );
    }

    #[test]
    fn other_kinds() {
        assert_eq!(
            compare(&Value::string("a"), &Value::string("b")),
            Some(Ordering::Less)
        );
        assert_eq!(
            compare(&Value::Bool(true), &Value::Bool(false)),
            Some(Ordering::Greater)
        );
        assert_eq!(compare(&Value::string("a"), &Value::Int(1)), None);
        assert_eq!(compare(&Value::Null, &Value::Null), None);
        assert!(!is_comparable(&Value::Null));
        assert!(is_comparable(&Value::bytes(vec![1u8])));
    }
}
