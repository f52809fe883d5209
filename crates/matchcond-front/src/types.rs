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

    /// Whether two types are the same, as cel-go's `IsEquivalentType` says: equal, and
    /// [`Type::untyped`] the same as no type, itself included.
    pub fn is_equivalent(&self, other: &Type) -> bool {
        match (self, other) {
            // Fresh variables share their names: most comparisons are of a name with itself.
            (Type::Param(x), Type::Param(y)) => Arc::ptr_eq(x, y) || x == y,
            _ => self == other && !self.holds_untyped(),
        }
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

impl Type {
    /// The runtime's name of a type whose name is fixed (`dyn`, `null_type`,
    /// `google.protobuf.Timestamp`, `list`, `map`, `type`); `None` for the optional type, a
    /// named type, a type parameter and the error type, whose names depend on the use.
    pub fn runtime_name(&self) -> Option<&'static str> {
        Some(match self {
            Type::Dyn => "dyn",
            Type::Null => "null_type",
            Type::Bool => "bool",
            Type::Int => "int",
            Type::Uint => "uint",
            Type::Double => "double",
            Type::String => "string",
            Type::Bytes => "bytes",
            Type::Timestamp => "google.protobuf.Timestamp",
            Type::Duration => "google.protobuf.Duration",
            Type::List(_) => "list",
            Type::Map(..) => "map",
            Type::Type(_) => "type",
            Type::Optional(_) | Type::Named(..) | Type::Param(_) | Type::Error => return None,
        })
    }

    /// Writes the type by its runtime names, parameters in parentheses (`list(int)`,
    /// `map(string, google.protobuf.Timestamp)`), with the optional and error types named
    /// as given.
    pub fn write_runtime<W: fmt::Write + ?Sized>(
        &self,
        optional: &str,
        error: &str,
        out: &mut W,
    ) -> fmt::Result {
        let params: Vec<&Type> = match self {
            Type::List(e) | Type::Optional(e) | Type::Type(e) => vec![&**e],
            Type::Map(k, v) => vec![&**k, &**v],
            Type::Named(_, ps) => ps.iter().collect(),
            _ => Vec::new(),
        };
        out.write_str(match self {
            Type::Optional(_) => optional,
            Type::Error => error,
            Type::Named(n, _) | Type::Param(n) => n,
            other => other.runtime_name().unwrap_or_default(),
        })?;
        if !params.is_empty() {
            out.write_char('(')?;
            for (i, p) in params.into_iter().enumerate() {
                if i > 0 {
                    out.write_str(", ")?;
                }
                p.write_runtime(optional, error, out)?;
            }
            out.write_char(')')?;
        }
        Ok(())
    }
}

impl fmt::Display for Type {
    /// Formats the type the way cel-go's checker prints it in messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_runtime("optional_type", "*error*", f)
    }
}
