//! Declarations of the Kubernetes CEL libraries `kubernetes.lists` and `kubernetes.regex`
//! (kubernetes/apiserver: `pkg/cel/library/lists.go`, `pkg/cel/library/regex.go`).

use super::{func, ov, Function};
use crate::types::Type;

/// The element types of `isSorted`, `min` and `max`, named as the overload ids name them.
const COMPARABLE: [(&str, Type); 8] = [
    ("int", Type::Int),
    ("uint", Type::Uint),
    ("double", Type::Double),
    ("bool", Type::Bool),
    ("duration", Type::Duration),
    ("timestamp", Type::Timestamp),
    ("string", Type::String),
    ("bytes", Type::Bytes),
];

/// Overload ids of `isSorted`, in the order of [`COMPARABLE`].
const IS_SORTED_IDS: [&str; 8] = [
    "list_int_is_sorted_bool",
    "list_uint_is_sorted_bool",
    "list_double_is_sorted_bool",
    "list_bool_is_sorted_bool",
    "list_duration_is_sorted_bool",
    "list_timestamp_is_sorted_bool",
    "list_string_is_sorted_bool",
    "list_bytes_is_sorted_bool",
];

/// Overload ids of `max`, in the order of [`COMPARABLE`].
const MAX_IDS: [&str; 8] = [
    "list_int_max_int",
    "list_uint_max_uint",
    "list_double_max_double",
    "list_bool_max_bool",
    "list_duration_max_duration",
    "list_timestamp_max_timestamp",
    "list_string_max_string",
    "list_bytes_max_bytes",
];

/// Overload ids of `min`, in the order of [`COMPARABLE`].
const MIN_IDS: [&str; 8] = [
    "list_int_min_int",
    "list_uint_min_uint",
    "list_double_min_double",
    "list_bool_min_bool",
    "list_duration_min_duration",
    "list_timestamp_min_timestamp",
    "list_string_min_string",
    "list_bytes_min_bytes",
];

/// The element types of `sum` with their overload ids.
const SUMMABLE: [(&str, Type); 4] = [
    ("list_int_sum_int", Type::Int),
    ("list_uint_sum_uint", Type::Uint),
    ("list_double_sum_double", Type::Double),
    ("list_duration_sum_duration", Type::Duration),
];

/// The Kubernetes lists library at a version (`library.Lists(library.ListsVersion(version))`).
///
/// Version 0: `isSorted`, `sum`, `max`, `min`, `indexOf`, `lastIndexOf`. Version 1 adds
/// `includes`.
pub(crate) fn lists(version: u32) -> Vec<Function> {
    let per_type = |ids: [&'static str; 8], result: Option<Type>| {
        COMPARABLE
            .iter()
            .zip(ids)
            .map(|((_, ty), id)| {
                ov(
                    id,
                    true,
                    vec![Type::list(ty.clone())],
                    result.clone().unwrap_or_else(|| ty.clone()),
                )
            })
            .collect::<Vec<_>>()
    };
    let a = || Type::param("A");
    let mut fns = vec![
        func("isSorted", per_type(IS_SORTED_IDS, Some(Type::Bool))),
        func(
            "sum",
            SUMMABLE
                .iter()
                .map(|(id, ty)| ov(id, true, vec![Type::list(ty.clone())], ty.clone()))
                .collect(),
        ),
        func("max", per_type(MAX_IDS, None)),
        func("min", per_type(MIN_IDS, None)),
        func(
            "indexOf",
            vec![ov(
                "list_a_index_of_int",
                true,
                vec![Type::list(a()), a()],
                Type::Int,
            )],
        ),
        func(
            "lastIndexOf",
            vec![ov(
                "list_a_last_index_of_int",
                true,
                vec![Type::list(a()), a()],
                Type::Int,
            )],
        ),
    ];
    if version >= 1 {
        fns.push(func(
            "includes",
            vec![ov(
                "list_includes_dyn_dyn",
                true,
                vec![Type::Dyn, Type::Dyn],
                Type::Bool,
            )],
        ));
    }
    fns
}

/// The Kubernetes regex library: `find`, `findAll`.
pub(crate) fn regex() -> Vec<Function> {
    vec![
        func(
            "find",
            vec![ov(
                "string_find_string",
                true,
                vec![Type::String, Type::String],
                Type::String,
            )],
        ),
        func(
            "findAll",
            vec![
                ov(
                    "string_find_all_string",
                    true,
                    vec![Type::String, Type::String],
                    Type::list(Type::String),
                ),
                ov(
                    "string_find_all_string_int",
                    true,
                    vec![Type::String, Type::String, Type::Int],
                    Type::list(Type::String),
                ),
            ],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_type_names() {
        for (i, (name, _)) in COMPARABLE.iter().enumerate() {
            assert_eq!(IS_SORTED_IDS[i], format!("list_{name}_is_sorted_bool"));
            assert_eq!(MAX_IDS[i], format!("list_{name}_max_{name}"));
            assert_eq!(MIN_IDS[i], format!("list_{name}_min_{name}"));
        }
    }

    #[test]
    fn versions() {
        let v0 = lists(0);
        assert!(v0.iter().all(|f| f.name != "includes"));
        let count = |fns: &[Function]| fns.iter().map(|f| f.overloads.len()).sum::<usize>();
        assert_eq!(count(&v0), 8 + 4 + 8 + 8 + 1 + 1);
        let v1 = lists(1);
        assert_eq!(count(&v1), count(&v0) + 1);
        let sum = v0
            .iter()
            .find(|f| f.name == "sum")
            .map(|f| f.overloads.clone());
        assert_eq!(
            sum.and_then(|o| o.last().map(|o| o.result.clone())),
            Some(Type::Duration)
        );
    }
}
