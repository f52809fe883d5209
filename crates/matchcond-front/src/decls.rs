//! Function declarations: the overloads the type checker resolves calls against.
//!
//! Overload ids follow cel-go's (`add_int64`, `size_string`, `string_to_int64` …). The
//! libraries that declare functions are the runtime's (`matchcond_runtime::libraries`), each
//! declaration beside its implementation and cost.

use crate::types::Type;

/// One overload of a function.
#[derive(Clone, Debug, PartialEq)]
pub struct Overload {
    /// The overload id, as cel-go names it.
    pub id: &'static str,
    /// True for a receiver-style (member) overload; the receiver is the first parameter.
    pub member: bool,
    /// Parameter types (receiver first for member overloads). May use `Type::Param`.
    pub params: Vec<Type>,
    /// The result type. May use the parameters' type parameters.
    pub result: Type,
}

/// A function with all its overloads.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// The function name (`_+_`, `size`, `startsWith`, `optional.of` …).
    pub name: &'static str,
    /// The overloads.
    pub overloads: Vec<Overload>,
}
