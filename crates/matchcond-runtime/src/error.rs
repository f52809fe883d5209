//! Evaluation errors.

use std::borrow::Cow;

use crate::value::Value;

/// What kind of evaluation error occurred.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A map has no such key, or a JSON object no such field.
    NoSuchKey,
    /// A field was selected on a value that has no fields.
    NoSuchField,
    /// No overload of a function accepts the runtime argument types.
    NoSuchOverload,
    /// Integer overflow, or a conversion out of range.
    Overflow,
    /// Division by zero.
    DivisionByZero,
    /// Modulus by zero.
    ModulusByZero,
    /// A list index out of range.
    IndexOutOfRange,
    /// An argument is invalid (bad regex, bad timestamp text …).
    InvalidArgument,
    /// A variable has no value.
    Unbound,
    /// The per-expression cost limit was exceeded.
    CostLimitExceeded,
    /// A value would exceed a size limit (see [`crate::limits`]).
    SizeLimitExceeded,
    /// Some other problem, such as a repeated map key.
    Other,
}

/// An error raised while evaluating an expression. The message follows cel-go's wording.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct EvalError {
    pub(crate) kind: ErrorKind,
    pub(crate) message: Cow<'static, str>,
}

impl EvalError {
    /// The category.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message, as cel-go words it (also the error's `Display`).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// An error with a message.
    pub fn new(kind: ErrorKind, message: impl Into<Cow<'static, str>>) -> Self {
        EvalError {
            kind,
            message: message.into(),
        }
    }

    /// `no such key: <key>`
    pub fn no_such_key(key: &Value<'_>) -> Self {
        if let Value::String(s) = key {
            return Self::no_such_field_key(s.as_str());
        }
        let k = match key {
            Value::String(s) => s.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Uint(u) => u.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Double(d) => d.to_string(),
            other => other.type_name().to_string(),
        };
        EvalError::new(ErrorKind::NoSuchKey, format!("no such key: {k}"))
    }

    /// `no such key: <field>` for a field name.
    pub fn no_such_field_key(field: &str) -> Self {
        const PREFIX: &str = "no such key: ";
        let mut m = String::with_capacity(PREFIX.len() + field.len());
        m.push_str(PREFIX);
        m.push_str(field);
        EvalError::new(ErrorKind::NoSuchKey, m)
    }

    /// `no such overload: f(t1, t2)`: no overload of a function takes values of these types
    /// (cel-go's `MaybeNoSuchOverload` of the function's dispatcher and type guards).
    pub fn no_such_overload(function: &str, args: &[Value<'_>]) -> Self {
        let types: Vec<&str> = args.iter().map(Value::type_name).collect();
        EvalError::new(
            ErrorKind::NoSuchOverload,
            format!("no such overload: {}({})", function, types.join(", ")),
        )
    }

    /// `no such overload`, bare: a value's own method refused the other value (cel-go's
    /// `MaybeNoSuchOverloadErr`, `ValOrErr(v, "no such overload")`).
    pub fn no_such_overload_bare() -> Self {
        EvalError::new(ErrorKind::NoSuchOverload, "no such overload")
    }

    /// `no such overload: f`: the first argument of an operator lacks the trait its
    /// implementation needs (cel-go's interpreter, `evalUnary` / `evalBinary`).
    pub fn no_such_overload_of(function: &str) -> Self {
        EvalError::new(
            ErrorKind::NoSuchOverload,
            format!("no such overload: {function}"),
        )
    }

    /// `integer overflow`
    pub fn overflow() -> Self {
        EvalError::new(ErrorKind::Overflow, "integer overflow")
    }

    /// `division by zero`
    pub fn division_by_zero() -> Self {
        EvalError::new(ErrorKind::DivisionByZero, "division by zero")
    }

    /// `modulus by zero`
    pub fn modulus_by_zero() -> Self {
        EvalError::new(ErrorKind::ModulusByZero, "modulus by zero")
    }

    /// `index out of bounds: <i>`
    pub fn index_out_of_range(i: impl std::fmt::Display) -> Self {
        EvalError::new(
            ErrorKind::IndexOutOfRange,
            format!("index out of bounds: {i}"),
        )
    }

    /// An invalid argument.
    pub fn invalid_argument(msg: impl Into<Cow<'static, str>>) -> Self {
        EvalError::new(ErrorKind::InvalidArgument, msg)
    }

    /// `Failed with repeated key`
    pub fn repeated_key(_k: &Value<'_>) -> Self {
        EvalError::new(ErrorKind::Other, "Failed with repeated key")
    }

    /// `operation cancelled: actual cost limit exceeded`
    pub fn cost_limit_exceeded() -> Self {
        EvalError::new(
            ErrorKind::CostLimitExceeded,
            "operation cancelled: actual cost limit exceeded",
        )
    }
}
