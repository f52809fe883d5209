//! Declarations of the Kubernetes semver library at version 1 (`kubernetes.Semver`,
//! kubernetes/apiserver `pkg/cel/library/semverlib.go`), type `kubernetes.Semver`.
use super::{func, ov, Function};
use crate::types::Type;

/// The CEL type name of semantic versions.
pub(crate) const SEMVER: &str = "kubernetes.Semver";

fn v() -> Type {
    Type::named(SEMVER)
}

/// The functions (version 1: the normalising overloads of `semver` and `isSemver` included).
pub(crate) fn functions() -> Vec<Function> {
    let member = |name: &'static str, id: &'static str, params: Vec<Type>, result: Type| {
        func(name, vec![ov(id, true, params, result)])
    };
    vec![
        func(
            "semver",
            vec![
                ov("string_to_semver", false, vec![Type::String], v()),
                ov(
                    "string_bool_to_semver",
                    false,
                    vec![Type::String, Type::Bool],
                    v(),
                ),
            ],
        ),
        func(
            "isSemver",
            vec![
                ov("is_semver_string", false, vec![Type::String], Type::Bool),
                ov(
                    "is_semver_string_bool",
                    false,
                    vec![Type::String, Type::Bool],
                    Type::Bool,
                ),
            ],
        ),
        member(
            "isGreaterThan",
            "semver_is_greater_than",
            vec![v(), v()],
            Type::Bool,
        ),
        member(
            "isLessThan",
            "semver_is_less_than",
            vec![v(), v()],
            Type::Bool,
        ),
        member("compareTo", "semver_compare_to", vec![v(), v()], Type::Int),
        member("major", "semver_major", vec![v()], Type::Int),
        member("minor", "semver_minor", vec![v()], Type::Int),
        member("patch", "semver_patch", vec![v()], Type::Int),
    ]
}

/// The type names.
pub(crate) fn types() -> Vec<(&'static str, Type)> {
    vec![(SEMVER, v())]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_one_overloads() {
        let fns = functions();
        let count: usize = fns.iter().map(|f| f.overloads.len()).sum();
        assert_eq!(count, 10);
        assert!(fns
            .iter()
            .flat_map(|f| f.overloads.iter())
            .any(|o| o.id == "string_bool_to_semver" && !o.member));
        assert_eq!(types(), vec![("kubernetes.Semver", v())]);
    }
}
