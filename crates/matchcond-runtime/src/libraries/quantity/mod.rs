//! The Kubernetes quantity library (`kubernetes.quantity`, kubernetes/apiserver
//! `pkg/cel/library/quantity.go`, Kubernetes 1.28+): values of type `kubernetes.Quantity`.
//!
//! `sign` is declared as a global function only, as the library declares it (its
//! documentation shows a member call, which does not compile).

use std::any::Any;
use std::cmp::Ordering;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use matchcond_gocompat::quantity::{add, canonical, cmp_amounts, parse, Amount, Format, Parsed};

use matchcond_front::Type;

use super::definition::{
    fixed_member, function, global, member, ordering_functions, Behaviours, Definition,
    FunctionEntry, Implementation, Library,
};
use crate::cost::Estimate;
use crate::error::EvalError;
use crate::value::{Opaque, Value};

/// The CEL type name.
pub const TYPE_NAME: &str = "kubernetes.Quantity";

/// A quantity value.
///
/// Like the Go `*resource.Quantity` it wraps, a quantity holds either a scaled integer of
/// its own or a decimal (`*inf.Dec`) that copies of it share:
///
/// - a scaled-integer quantity turns into its decimal form for good when it is the receiver
///   of a comparison with a decimal-backed quantity (`Quantity.Cmp` converts its receiver in
///   place); after that, `isInteger()` on the same value is false;
/// - `add` and `sub` work on a shallow copy of the receiver (`copy := *q` up to Kubernetes
///   1.36): a decimal-backed receiver shares its decimal with the copy, so the sum is
///   written into the receiver too, and the two values stay linked (1.37 copies deeply);
/// - their results are pointers (`&apiservercel.Quantity{…}`), which the library's `Equal`
///   does not take as its argument: `quantity('2') == quantity('1').add(1)` is
///   `no such overload` (the other way round compares).
#[derive(Debug)]
pub struct Quantity {
    repr: Mutex<Repr>,
    format: Format,
    text: Option<String>,
    /// A result of `add` or `sub` (a `*Quantity` in Go).
    pointer: bool,
}

/// How a quantity holds its amount.
#[derive(Debug)]
enum Repr {
    /// A scaled integer of its own (`int64Amount`).
    Int(Amount),
    /// A decimal, shared with the shallow copies made of it (`*inf.Dec`).
    Dec(Arc<Mutex<Amount>>),
}

/// Locks a mutex, taking the value even if a thread panicked while holding it.
fn locked<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Repr {
    fn of(amount: Amount) -> Repr {
        match amount {
            a @ Amount::Int { .. } => Repr::Int(a),
            d => Repr::Dec(Arc::new(Mutex::new(d))),
        }
    }
}

impl Quantity {
    fn new(amount: Amount, format: Format, text: Option<String>) -> Self {
        Quantity {
            repr: Mutex::new(Repr::of(amount)),
            format,
            text,
            pointer: false,
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
        match &*locked(&self.repr) {
            Repr::Int(a) => a.clone(),
            Repr::Dec(cell) => locked(cell).clone(),
        }
    }

    /// `Quantity.Cmp` with this quantity as the receiver.
    fn compare(&self, other: &Quantity) -> Result<Ordering, String> {
        let (a, b) = (self.current(), other.current());
        if !matches!((&a, &b), (Amount::Int { .. }, Amount::Int { .. })) {
            // `q.AsDec()` converts the receiver in place.
            let mut repr = locked(&self.repr);
            if let Repr::Int(i) = &*repr {
                *repr = Repr::Dec(Arc::new(Mutex::new(Amount::Dec(i.as_dec()))));
            }
        }
        cmp_amounts(&a, &b)
    }

    /// -1, 0 or 1.
    pub fn sign(&self) -> i64 {
        self.current().sign()
    }

    /// `AsInt64`: the value as an integer, if it is held as a scaled integer that fits.
    pub fn as_i64(&self) -> Option<i64> {
        self.current().as_i64()
    }

    /// `AsApproximateFloat64`.
    pub fn approximate_float(&self) -> f64 {
        self.current().approximate_float()
    }

    /// The sum or difference, as `Quantity.Add` / `Quantity.Sub` give it on a copy of the
    /// receiver: a shallow copy (`shared`, up to Kubernetes 1.36) shares a decimal-backed
    /// receiver's decimal, which the operation then changes for both.
    fn plus(&self, other: &Quantity, sub: bool, shared: bool) -> Result<Quantity, String> {
        let a = self.current();
        let b = other.current();
        let (amount, format) = add(&a, self.format, &b, other.format, sub)?;
        let repr = match &*locked(&self.repr) {
            Repr::Dec(cell) if shared => {
                *locked(cell) = amount;
                Repr::Dec(Arc::clone(cell))
            }
            _ => Repr::of(amount),
        };
        Ok(Quantity {
            repr: Mutex::new(repr),
            format,
            text: None,
            pointer: true,
        })
    }

    /// The text `Quantity.String` gives.
    pub fn to_text(&self) -> String {
        if let Some(t) = &self.text {
            return t.clone();
        }
        let amount = self.current();
        canonical(&amount, self.format).unwrap_or_else(|| {
            let d = amount.as_dec();
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

    /// `Quantity.Equal` takes a `Quantity` value as its argument; the pointer that `add` and
    /// `sub` return is refused (`MaybeNoSuchOverloadErr`).
    fn equal_value(&self, other: &Value<'_>) -> Option<bool> {
        match other {
            Value::Opaque(o) => match o.as_any().downcast_ref::<Quantity>() {
                Some(q) if !q.pointer => Some(self.equals(o.as_ref())),
                _ => None,
            },
            _ => None,
        }
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

fn sum<'a>(x: &Quantity, y: &Quantity, sub: bool, shared: bool) -> Result<Value<'a>, EvalError> {
    x.plus(y, sub, shared)
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

/// The library, from Kubernetes 1.28.
pub(crate) fn library() -> Definition {
    let q = || Type::named(TYPE_NAME);
    Definition::new(Library::K8sQuantity)
        .opaque_type(TYPE_NAME)
        .functions([
            function(
                "quantity",
                [global(
                    "string_to_quantity",
                    [Type::String],
                    q(),
                    |a| match a {
                        [Value::String(s)] => Quantity::parse(s)
                            .map(wrap)
                            .map_err(EvalError::invalid_argument),
                        _ => Err(EvalError::no_such_overload("quantity", a)),
                    },
                )],
            )
            .estimate_by(Estimate::StringTraversal),
            function(
                "isQuantity",
                [global(
                    "is_quantity_string",
                    [Type::String],
                    Type::Bool,
                    |a| match a {
                        [Value::String(s)] => Ok(Value::Bool(parse(s).is_ok())),
                        _ => Err(EvalError::no_such_overload("isQuantity", a)),
                    },
                )],
            )
            .estimate_by(Estimate::StringTraversal),
            function(
                "sign",
                [global("quantity_sign", [q()], Type::Int, |a| {
                    unary("sign", a, |q| Ok(Value::Int(q.sign())))
                })],
            )
            .estimate_by(Estimate::Fixed(1)),
        ])
        .functions(ordering_functions(
            q(),
            [
                "quantity_is_greater_than",
                "quantity_is_less_than",
                "quantity_compare_to",
            ],
            [
                |a| {
                    binary("isGreaterThan", a, |x, y| {
                        Ok(Value::Bool(compared(x, y)? == Ordering::Greater))
                    })
                },
                |a| {
                    binary("isLessThan", a, |x, y| {
                        Ok(Value::Bool(compared(x, y)? == Ordering::Less))
                    })
                },
                |a| {
                    binary("compareTo", a, |x, y| {
                        Ok(Value::Int(order_int(compared(x, y)?)))
                    })
                },
            ],
        ))
        .functions([
            fixed_member(
                "asApproximateFloat",
                "quantity_get_float",
                [q()],
                Type::Double,
                |a| {
                    unary("asApproximateFloat", a, |q| {
                        Ok(Value::Double(q.approximate_float()))
                    })
                },
            ),
            fixed_member("asInteger", "quantity_get_int", [q()], Type::Int, |a| {
                unary("asInteger", a, |q| match q.as_i64() {
                    Some(i) => Ok(Value::Int(i)),
                    None => Err(EvalError::invalid_argument(
                        "cannot convert value to integer",
                    )),
                })
            }),
            fixed_member("isInteger", "quantity_is_integer", [q()], Type::Bool, |a| {
                unary("isInteger", a, |q| Ok(Value::Bool(q.as_i64().is_some())))
            }),
            sum_function::<false>("add", ["quantity_add", "quantity_add_int"]),
            sum_function::<true>("sub", ["quantity_sub", "quantity_sub_int"]),
        ])
}

/// `add` and `sub` as the binary implements them: on a shallow copy of the receiver (up to
/// Kubernetes 1.36), or on a deep copy (`q.DeepCopy()`, 1.37), which they leave unchanged.
fn pick(
    behaviours: Behaviours,
    shared: Implementation,
    deep_copy: Implementation,
) -> Implementation {
    if behaviours.quantity_add_sub_deep_copy {
        deep_copy
    } else {
        shared
    }
}

/// `add` (`SUB` false) or `sub`, of two quantities and of a quantity and an int, on the copy
/// of the receiver the binary makes (see [`pick`]).
fn sum_function<const SUB: bool>(name: &'static str, ids: [&'static str; 2]) -> FunctionEntry {
    let q = || Type::named(TYPE_NAME);
    let [of_quantities, with_an_int] = ids;
    function(
        name,
        [
            member(of_quantities, [q(), q()], q(), sum_of::<SUB, true>)
                .by_behaviours(|b| pick(b, sum_of::<SUB, true>, sum_of::<SUB, false>)),
            member(
                with_an_int,
                [q(), Type::Int],
                q(),
                sum_with_int::<SUB, true>,
            )
            .by_behaviours(|b| pick(b, sum_with_int::<SUB, true>, sum_with_int::<SUB, false>)),
        ],
    )
    .estimate_by(Estimate::Fixed(1))
}

/// The function's name in messages.
fn sum_name(sub: bool) -> &'static str {
    if sub {
        "sub"
    } else {
        "add"
    }
}

/// `q.add(q2)` or `q.sub(q2)`, on a shared (`SHARED`) or a deep copy of the receiver.
fn sum_of<'a, const SUB: bool, const SHARED: bool>(
    a: &[Value<'a>],
) -> Result<Value<'a>, EvalError> {
    binary(sum_name(SUB), a, |x, y| sum(x, y, SUB, SHARED))
}

/// `q.add(i)` or `q.sub(i)`, on a shared (`SHARED`) or a deep copy of the receiver.
fn sum_with_int<'a, const SUB: bool, const SHARED: bool>(
    a: &[Value<'a>],
) -> Result<Value<'a>, EvalError> {
    with_int(sum_name(SUB), a, |x, i| {
        sum(x, &int_quantity(i), SUB, SHARED)
    })
}

#[cfg(test)]
mod tests;
