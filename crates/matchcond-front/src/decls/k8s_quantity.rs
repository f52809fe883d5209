//! Declarations of the Kubernetes quantity library (`kubernetes.quantity`,
//! kubernetes/apiserver `pkg/cel/library/quantity.go`), type `kubernetes.Quantity`.
//!
//! `sign` is declared as a global function only, as the library declares it (its
//! documentation shows a member call, which does not compile).
use super::{func, ov, Function};
use crate::types::Type;

/// The CEL type name of quantities.
pub(crate) const QUANTITY: &str = "kubernetes.Quantity";

fn q() -> Type {
    Type::named(QUANTITY)
}

/// The functions.
pub(crate) fn functions() -> Vec<Function> {
    let member = |name: &'static str, id: &'static str, params: Vec<Type>, result: Type| {
        func(name, vec![ov(id, true, params, result)])
    };
    vec![
        func(
            "quantity",
            vec![ov("string_to_quantity", false, vec![Type::String], q())],
        ),
        func(
            "isQuantity",
            vec![ov(
                "is_quantity_string",
                false,
                vec![Type::String],
                Type::Bool,
            )],
        ),
        func(
            "sign",
            vec![ov("quantity_sign", false, vec![q()], Type::Int)],
        ),
        member(
            "isGreaterThan",
            "quantity_is_greater_than",
            vec![q(), q()],
            Type::Bool,
        ),
        member(
            "isLessThan",
            "quantity_is_less_than",
            vec![q(), q()],
            Type::Bool,
        ),
        member(
            "compareTo",
            "quantity_compare_to",
            vec![q(), q()],
            Type::Int,
        ),
        member(
            "asApproximateFloat",
            "quantity_get_float",
            vec![q()],
            Type::Double,
        ),
        member("asInteger", "quantity_get_int", vec![q()], Type::Int),
        member("isInteger", "quantity_is_integer", vec![q()], Type::Bool),
        func(
            "add",
            vec![
                ov("quantity_add", true, vec![q(), q()], q()),
                ov("quantity_add_int", true, vec![q(), Type::Int], q()),
            ],
        ),
        func(
            "sub",
            vec![
                ov("quantity_sub", true, vec![q(), q()], q()),
                ov("quantity_sub_int", true, vec![q(), Type::Int], q()),
            ],
        ),
    ]
}

/// The type names.
pub(crate) fn types() -> Vec<(&'static str, Type)> {
    vec![(QUANTITY, q())]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_is_global_only() {
        let fns = functions();
        let sign = fns
            .iter()
            .find(|f| f.name == "sign")
            .map(|f| f.overloads.clone());
        assert_eq!(
            sign,
            Some(vec![ov("quantity_sign", false, vec![q()], Type::Int)])
        );
        let count: usize = fns.iter().map(|f| f.overloads.len()).sum();
        assert_eq!(count, 13);
        assert_eq!(types(), vec![("kubernetes.Quantity", q())]);
    }
}
