//! The Kubernetes quantity library (`kubernetes.quantity`, kubernetes/apiserver
//! `pkg/cel/library/quantity.go`): values of type `kubernetes.Quantity`.

mod amount;
mod big;

use std::any::Any;
use std::cmp::Ordering;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::Arc;

use amount::{add, canonical, cmp_amounts, parse, Amount, Format, Parsed};

use crate::error::EvalError;
use crate::functions::Function;
use crate::value::{Opaque, Value};

/// The CEL type name.
pub const TYPE_NAME: &str = "kubernetes.Quantity";

/// A quantity value.
///
/// Like the Go `*resource.Quantity` it wraps, a scaled-integer quantity turns into its
/// decimal form for good when it is the receiver of a comparison with a decimal-backed
/// quantity (`Quantity.Cmp` converts its receiver in place); after that, `isInteger()` on
/// the same value is false.
#[derive(Debug)]
pub struct Quantity {
    amount: Amount,
    format: Format,
    text: Option<String>,
    converted: AtomicBool,
}

impl Quantity {
    fn new(amount: Amount, format: Format, text: Option<String>) -> Self {
        Quantity {
            amount,
            format,
            text,
            converted: AtomicBool::new(false),
        }
    }

    /// Parses a quantity as `resource.ParseQuantity` does; the error has its wording.
    pub fn parse(s: &str) -> Result<Quantity, String> {
        let Parsed {
            amount,
            format,
            text,
        } = parse(s).map_err(|e| e.message())?;
        Ok(Quantity::new(amount, format, text))
    }

    /// The amount in its current representation.
    fn current(&self) -> Amount {
        match &self.amount {
            Amount::Int { .. } if self.converted.load(AtomicOrdering::Relaxed) => {
                Amount::Dec(self.amount.as_dec())
            }
            a => a.clone(),
        }
    }

    /// `Quantity.Cmp` with this quantity as the receiver.
    fn compare(&self, other: &Quantity) -> Result<Ordering, String> {
        let (a, b) = (self.current(), other.current());
        if !matches!((&a, &b), (Amount::Int { .. }, Amount::Int { .. })) {
            self.converted.store(true, AtomicOrdering::Relaxed);
        }
        cmp_amounts(&a, &b)
    }

    /// -1, 0 or 1.
    pub fn sign(&self) -> i64 {
        self.amount.sign()
    }

    /// `AsInt64`: the value as an integer, if it is held as a scaled integer that fits.
    pub fn as_i64(&self) -> Option<i64> {
        self.current().as_i64()
    }

    /// `AsApproximateFloat64`.
    pub fn approximate_float(&self) -> f64 {
        self.current().approximate_float()
    }

    /// The sum or difference, as `Quantity.Add` / `Quantity.Sub` give it on a copy.
    fn plus(&self, other: &Quantity, sub: bool) -> Result<Quantity, String> {
        let (amount, format) = add(
            &self.current(),
            self.format,
            &other.current(),
            other.format,
            sub,
        )?;
        Ok(Quantity::new(amount, format, None))
    }

    /// The text `Quantity.String` gives.
    pub fn to_text(&self) -> String {
        if let Some(t) = &self.text {
            return t.clone();
        }
        canonical(&self.amount, self.format).unwrap_or_else(|| {
            let d = self.amount.as_dec();
            let sign = if d.neg { "-" } else { "" };
            format!("{sign}{}e{}", d.mag.to_decimal(), -i64::from(d.scale))
        })
    }
}

impl Opaque for Quantity {
    fn type_name(&self) -> &'static str {
        TYPE_NAME
    }

    fn equals(&self, other: &dyn Opaque) -> bool {
        match other.as_any().downcast_ref::<Quantity>() {
            Some(o) => cmp_amounts(&self.current(), &o.current()) == Ok(Ordering::Equal),
            None => false,
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn text(&self) -> String {
        self.to_text()
    }
}

fn quantity<'v>(v: &'v Value<'_>) -> Option<&'v Quantity> {
    match v {
        Value::Opaque(o) => o.as_any().downcast_ref::<Quantity>(),
        _ => None,
    }
}

fn wrap<'a>(q: Quantity) -> Value<'a> {
    Value::Opaque(Arc::new(q))
}

fn unary<'a>(
    name: &str,
    args: &[Value<'a>],
    f: impl FnOnce(&Quantity) -> Result<Value<'a>, EvalError>,
) -> Result<Value<'a>, EvalError> {
    match args {
        [a] => match quantity(a) {
            Some(q) => f(q),
            None => Err(EvalError::no_such_overload(name, args)),
        },
        _ => Err(EvalError::no_such_overload(name, args)),
    }
}

fn binary<'a>(
    name: &str,
    args: &[Value<'a>],
    f: impl FnOnce(&Quantity, &Quantity) -> Result<Value<'a>, EvalError>,
) -> Result<Value<'a>, EvalError> {
    match args {
        [a, b] => match (quantity(a), quantity(b)) {
            (Some(x), Some(y)) => f(x, y),
            _ => Err(EvalError::no_such_overload(name, args)),
        },
        _ => Err(EvalError::no_such_overload(name, args)),
    }
}

fn with_int<'a>(
    name: &str,
    args: &[Value<'a>],
    f: impl FnOnce(&Quantity, i64) -> Result<Value<'a>, EvalError>,
) -> Result<Value<'a>, EvalError> {
    match args {
        [a, Value::Int(i)] => match quantity(a) {
            Some(q) => f(q, *i),
            None => Err(EvalError::no_such_overload(name, args)),
        },
        _ => Err(EvalError::no_such_overload(name, args)),
    }
}

fn compared(x: &Quantity, y: &Quantity) -> Result<Ordering, EvalError> {
    x.compare(y).map_err(EvalError::invalid_argument)
}

fn order_int(o: Ordering) -> i64 {
    match o {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }
}

fn sum<'a>(x: &Quantity, y: &Quantity, sub: bool) -> Result<Value<'a>, EvalError> {
    x.plus(y, sub)
        .map(wrap)
        .map_err(EvalError::invalid_argument)
}

fn int_quantity(i: i64) -> Quantity {
    Quantity::new(
        Amount::Int { value: i, scale: 0 },
        Format::DecimalExponent,
        None,
    )
}

/// The overloads this module implements.
pub static FUNCTIONS: &[(&str, Function)] = &[
    ("string_to_quantity", |a| match a {
        [Value::String(s)] => Quantity::parse(s)
            .map(wrap)
            .map_err(EvalError::invalid_argument),
        _ => Err(EvalError::no_such_overload("quantity", a)),
    }),
    ("is_quantity_string", |a| match a {
        [Value::String(s)] => Ok(Value::Bool(parse(s).is_ok())),
        _ => Err(EvalError::no_such_overload("isQuantity", a)),
    }),
    ("quantity_sign", |a| {
        unary("sign", a, |q| Ok(Value::Int(q.sign())))
    }),
    ("quantity_is_greater_than", |a| {
        binary("isGreaterThan", a, |x, y| {
            Ok(Value::Bool(compared(x, y)? == Ordering::Greater))
        })
    }),
    ("quantity_is_less_than", |a| {
        binary("isLessThan", a, |x, y| {
            Ok(Value::Bool(compared(x, y)? == Ordering::Less))
        })
    }),
    ("quantity_compare_to", |a| {
        binary("compareTo", a, |x, y| {
            Ok(Value::Int(order_int(compared(x, y)?)))
        })
    }),
    ("quantity_get_float", |a| {
        unary("asApproximateFloat", a, |q| {
            Ok(Value::Double(q.approximate_float()))
        })
    }),
    ("quantity_get_int", |a| {
        unary("asInteger", a, |q| match q.as_i64() {
            Some(i) => Ok(Value::Int(i)),
            None => Err(EvalError::invalid_argument(
                "cannot convert value to integer",
            )),
        })
    }),
    ("quantity_is_integer", |a| {
        unary("isInteger", a, |q| Ok(Value::Bool(q.as_i64().is_some())))
    }),
    ("quantity_add", |a| {
        binary("add", a, |x, y| sum(x, y, false))
    }),
    ("quantity_add_int", |a| {
        with_int("add", a, |x, i| sum(x, &int_quantity(i), false))
    }),
    ("quantity_sub", |a| binary("sub", a, |x, y| sum(x, y, true))),
    ("quantity_sub_int", |a| {
        with_int("sub", a, |x, i| sum(x, &int_quantity(i), true))
    }),
];

#[cfg(test)]
mod tests;
