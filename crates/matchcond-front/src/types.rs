//! CEL types as the type checker sees them.

use std::fmt;
use std::sync::Arc;

/// A CEL type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `dyn`: any type, checked at run time.
    Dyn,
    /// `null_type`
    Null,
    /// `bool`
    Bool,
    /// `int`
    Int,
    /// `uint`
    Uint,
    /// `double`
    Double,
    /// `string`
    String,
    /// `bytes`
    Bytes,
    /// `google.protobuf.Timestamp`
    Timestamp,
    /// `google.protobuf.Duration`
    Duration,
    /// `list(T)`
    List(Arc<Type>),
    /// `map(K, V)`
    Map(Arc<Type>, Arc<Type>),
    /// `optional_type(T)`
    Optional(Arc<Type>),
    /// `type(T)`: the type of a type value.
    Type(Arc<Type>),
    /// A named type: an object type with declared fields (`kubernetes.AdmissionRequest`) or an
    /// opaque library type (`kubernetes.Quantity`, `net.IP`), with optional type parameters.
    Named(Arc<str>, Vec<Type>),
    /// A type parameter of an overload (`A`, `B`), or a fresh type variable during checking.
    Param(Arc<str>),
    /// The type of an expression that failed to check.
    Error,
}

impl Type {
    /// `list(t)`
    pub fn list(t: Type) -> Type {
        Type::List(Arc::new(t))
    }
    /// `map(k, v)`
    pub fn map(k: Type, v: Type) -> Type {
        Type::Map(Arc::new(k), Arc::new(v))
    }
    /// `optional_type(t)`
    pub fn optional(t: Type) -> Type {
        Type::Optional(Arc::new(t))
    }
    /// `type(t)`
    pub fn type_of(t: Type) -> Type {
        Type::Type(Arc::new(t))
    }
    /// A named type without parameters.
    pub fn named(name: &str) -> Type {
        Type::Named(Arc::from(name), Vec::new())
    }
    /// A type parameter.
    pub fn param(name: &str) -> Type {
        Type::Param(Arc::from(name))
    }

    /// True for `dyn` (and the error type, which behaves like it).
    pub fn is_dyn(&self) -> bool {
        matches!(self, Type::Dyn | Type::Error)
    }

    /// The type cel-go v0.22 (Kubernetes 1.32) leaves unset, Go's nil: the second variable
    /// of a two-variable comprehension over a `dyn` range has it. A named type without a
    /// name, shown as the empty string; only `dyn` and type parameters accept it, it equals
    /// no type (itself included), and where cel-go tests a type for nil it counts as
    /// absent.
    pub fn untyped() -> Type {
        Type::named("")
    }

    /// Whether this is [`Type::untyped`].
    pub fn is_untyped(&self) -> bool {
        matches!(self, Type::Named(n, ps) if n.is_empty() && ps.is_empty())
    }

    /// Whether this is or holds [`Type::untyped`] at any depth.
    pub fn holds_untyped(&self) -> bool {
        match self {
            Type::List(e) | Type::Optional(e) | Type::Type(e) => e.holds_untyped(),
            Type::Map(k, v) => k.holds_untyped() || v.holds_untyped(),
            Type::Named(n, ps) => n.is_empty() || ps.iter().any(Type::holds_untyped),
            _ => false,
        }
    }
}

impl fmt::Display for Type {
    /// Formats the type the way cel-go's checker prints it in messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Dyn => f.write_str("dyn"),
            Type::Null => f.write_str("null_type"),
            Type::Bool => f.write_str("bool"),
            Type::Int => f.write_str("int"),
            Type::Uint => f.write_str("uint"),
            Type::Double => f.write_str("double"),
            Type::String => f.write_str("string"),
            Type::Bytes => f.write_str("bytes"),
            Type::Timestamp => f.write_str("google.protobuf.Timestamp"),
            Type::Duration => f.write_str("google.protobuf.Duration"),
            Type::List(e) => write!(f, "list({e})"),
            Type::Map(k, v) => write!(f, "map({k}, {v})"),
            Type::Optional(t) => write!(f, "optional_type({t})"),
            Type::Type(t) => write!(f, "type({t})"),
            Type::Named(n, ps) => {
                f.write_str(n)?;
                if !ps.is_empty() {
                    f.write_str("(")?;
                    for (i, p) in ps.iter().enumerate() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "{p}")?;
                    }
                    f.write_str(")")?;
                }
                Ok(())
            }
            Type::Param(n) => f.write_str(n),
            Type::Error => f.write_str("*error*"),
        }
    }
}
