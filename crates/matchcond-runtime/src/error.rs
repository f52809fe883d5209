//! Evaluation errors.

use std::borrow::Cow;

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

/// The most bytes of a message kept inline in an [`EvalError`] (no allocation): the size of
/// the error stays that of a static or boxed text.
const INLINE: usize = 22;

/// An error's message: static text, short text kept inline (`no such key: metadata`, the
/// error of a field of `null`, is made without allocating), or owned text.
#[derive(Clone)]
pub(crate) enum Text {
    Static(&'static str),
    Inline(u8, [u8; INLINE]),
    Owned(Box<str>),
}

impl Text {
    /// `a` then `b`, inline when it fits.
    fn concat(a: &str, b: &str) -> Text {
        let len = a.len() + b.len();
        if len <= INLINE {
            let mut buf = [0u8; INLINE];
            let (head, tail) = buf.split_at_mut(a.len());
            head.copy_from_slice(a.as_bytes());
            if let Some(t) = tail.get_mut(..b.len()) {
                t.copy_from_slice(b.as_bytes());
            }
            // `len` fits in a byte: it is at most INLINE.
            return Text::Inline(len as u8, buf);
        }
        let mut m = String::with_capacity(len);
        m.push_str(a);
        m.push_str(b);
        Text::Owned(m.into_boxed_str())
    }

    pub(crate) fn as_str(&self) -> &str {
        match self {
            Text::Static(s) => s,
            // Whole UTF-8 texts were copied in: the prefix is always valid.
            Text::Inline(len, buf) => buf
                .get(..usize::from(*len))
                .and_then(|b| std::str::from_utf8(b).ok())
                .unwrap_or(""),
            Text::Owned(s) => s,
        }
    }

    /// The text as a `String`.
    pub(crate) fn into_owned(self) -> String {
        match self {
            Text::Owned(s) => s.into_string(),
            other => other.as_str().to_owned(),
        }
    }
}

impl From<Cow<'static, str>> for Text {
    fn from(c: Cow<'static, str>) -> Text {
        match c {
            Cow::Borrowed(s) => Text::Static(s),
            Cow::Owned(s) if s.len() <= INLINE => Text::concat(&s, ""),
            Cow::Owned(s) => Text::Owned(s.into_boxed_str()),
        }
    }
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error raised while evaluating an expression. The message follows cel-go's wording.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct EvalError {
    pub(crate) kind: ErrorKind,
    pub(crate) message: Text,
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

    /// An error with a message (kept inline when short).
    pub fn new(kind: ErrorKind, message: impl Into<Cow<'static, str>>) -> Self {
        EvalError {
            kind,
            message: Text::from(message.into()),
        }
    }

    /// `no such key: <field>` for a field name.
    pub fn no_such_field_key(field: &str) -> Self {
        EvalError {
            kind: ErrorKind::NoSuchKey,
            message: Text::concat("no such key: ", field),
        }
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

    /// `operation cancelled: actual cost limit exceeded`
    pub fn cost_limit_exceeded() -> Self {
        EvalError::new(
            ErrorKind::CostLimitExceeded,
            "operation cancelled: actual cost limit exceeded",
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn messages_short_and_long_read_back_whole() {
        for field in [
            "",
            "metadata",
            "abcdefghi",
            "abcdefghij",
            "labels-é-x",
            "a much longer field name",
        ] {
            let e = EvalError::no_such_field_key(field);
            assert_eq!(e.message(), format!("no such key: {field}"));
            assert_eq!(e.to_string(), format!("no such key: {field}"));
            assert_eq!(e.clone(), e);
        }
        let short = EvalError::new(ErrorKind::Other, format!("{}", 12));
        assert!(matches!(short.message, Text::Inline(2, _)));
        assert_eq!(short.message(), "12");
        let long = EvalError::new(ErrorKind::Other, "x".repeat(40));
        assert_eq!(long.message(), "x".repeat(40));
        assert_eq!(long.message.clone().into_owned(), "x".repeat(40));
        assert_eq!(EvalError::overflow().message, "integer overflow");
        assert_eq!(
            std::mem::size_of::<EvalError>(),
            std::mem::size_of::<(ErrorKind, Cow<'static, str>)>()
        );
    }
}
