//! Declarations of cel-go's extension libraries: optional types (`cel.OptionalTypes()`), the
//! strings, sets and lists extensions (`ext.Strings`, `ext.Sets`, `ext.Lists`).
//!
//! Function names, overload ids, parameter and result types are cel-go's
//! (google/cel-go: `cel/library.go`, `ext/strings.go`, `ext/sets.go`, `ext/lists.go`).

use super::{func, ov, Function};
use crate::types::Type;

/// The element types cel-go's lists extension calls comparable (`sort`, `sortBy`), with the
/// type name that its overload ids embed (`list_int_sort`,
/// `list_google.protobuf.Duration_sort` …), in cel-go's order.
pub(crate) const LISTS_COMPARABLE: [(&str, Type); 8] = [
    ("int", Type::Int),
    ("uint", Type::Uint),
    ("double", Type::Double),
    ("bool", Type::Bool),
    ("google.protobuf.Duration", Type::Duration),
    ("google.protobuf.Timestamp", Type::Timestamp),
    ("string", Type::String),
    ("bytes", Type::Bytes),
];

/// Overload ids of `sort` in the lists extension, one per comparable element type.
pub(crate) const LIST_SORT_IDS: [&str; 8] = [
    "list_int_sort",
    "list_uint_sort",
    "list_double_sort",
    "list_bool_sort",
    "list_google.protobuf.Duration_sort",
    "list_google.protobuf.Timestamp_sort",
    "list_string_sort",
    "list_bytes_sort",
];

/// Overload ids of `@sortByAssociatedKeys` (the helper the `sortBy` macro expands to), one per
/// comparable key type.
pub(crate) const LIST_SORT_BY_IDS: [&str; 8] = [
    "list_int_sortByAssociatedKeys",
    "list_uint_sortByAssociatedKeys",
    "list_double_sortByAssociatedKeys",
    "list_bool_sortByAssociatedKeys",
    "list_google.protobuf.Duration_sortByAssociatedKeys",
    "list_google.protobuf.Timestamp_sortByAssociatedKeys",
    "list_string_sortByAssociatedKeys",
    "list_bytes_sortByAssociatedKeys",
];

fn v() -> Type {
    Type::param("V")
}

fn k() -> Type {
    Type::param("K")
}

fn t() -> Type {
    Type::param("T")
}

fn opt(t: Type) -> Type {
    Type::optional(t)
}

/// Optional types, at the library's latest version (2): `optional.of`, `optional.none`,
/// `optional.ofNonZeroValue`, `hasValue`, `value`, `or`, `orValue`, `first`, `last`,
/// `optional.unwrap`, `unwrapOpt`, and the `_?._`, `_[?_]` and optional `_[_]` operators.
///
/// `optMap` and `optFlatMap` are macros (the parser expands them). `_?._`, `_[?_]` and the
/// optional-operand `_[_]` overloads have no function implementation: the interpreter evaluates
/// them (as cel-go's does, through attributes). `or` and `orValue` short-circuit in cel-go (the
/// right operand is only evaluated when the left one is empty); the interpreter must do the
/// same, the function implementations are used for already evaluated operands.
pub(crate) fn optionals() -> Vec<Function> {
    vec![
        func(
            "optional.of",
            vec![ov("optional_of", false, vec![v()], opt(v()))],
        ),
        func(
            "optional.ofNonZeroValue",
            vec![ov("optional_ofNonZeroValue", false, vec![v()], opt(v()))],
        ),
        func(
            "optional.none",
            vec![ov("optional_none", false, vec![], opt(v()))],
        ),
        func(
            "value",
            vec![ov("optional_value", true, vec![opt(v())], v())],
        ),
        func(
            "hasValue",
            vec![ov("optional_hasValue", true, vec![opt(v())], Type::Bool)],
        ),
        func(
            "or",
            vec![ov(
                "optional_or_optional",
                true,
                vec![opt(v()), opt(v())],
                opt(v()),
            )],
        ),
        func(
            "orValue",
            vec![ov("optional_orValue_value", true, vec![opt(v()), v()], v())],
        ),
        // Evaluated by the interpreter; the checker types the selected field specially.
        func(
            "_?._",
            vec![ov(
                "select_optional_field",
                false,
                vec![Type::Dyn, Type::String],
                opt(v()),
            )],
        ),
        // Evaluated by the interpreter.
        func(
            "_[?_]",
            vec![
                ov(
                    "list_optindex_optional_int",
                    false,
                    vec![Type::list(v()), Type::Int],
                    opt(v()),
                ),
                ov(
                    "optional_list_optindex_optional_int",
                    false,
                    vec![opt(Type::list(v())), Type::Int],
                    opt(v()),
                ),
                ov(
                    "map_optindex_optional_value",
                    false,
                    vec![Type::map(k(), v()), k()],
                    opt(v()),
                ),
                ov(
                    "optional_map_optindex_optional_value",
                    false,
                    vec![opt(Type::map(k(), v())), k()],
                    opt(v()),
                ),
            ],
        ),
        // Indexing an optional list or map; evaluated by the interpreter.
        func(
            "_[_]",
            vec![
                ov(
                    "optional_list_index_int",
                    false,
                    vec![opt(Type::list(v())), Type::Int],
                    opt(v()),
                ),
                ov(
                    "optional_map_index_value",
                    false,
                    vec![opt(Type::map(k(), v())), k()],
                    opt(v()),
                ),
            ],
        ),
        // Version 2.
        func(
            "last",
            vec![ov("list_last", true, vec![Type::list(v())], opt(v()))],
        ),
        func(
            "first",
            vec![ov("list_first", true, vec![Type::list(v())], opt(v()))],
        ),
        func(
            "optional.unwrap",
            vec![ov(
                "optional_unwrap",
                false,
                vec![Type::list(opt(v()))],
                Type::list(v()),
            )],
        ),
        func(
            "unwrapOpt",
            vec![ov(
                "optional_unwrapOpt",
                true,
                vec![Type::list(opt(v()))],
                Type::list(v()),
            )],
        ),
    ]
}

/// The strings extension at a version (cel-go `ext.Strings(ext.StringsVersion(version))`).
///
/// Version 0: `charAt`, `indexOf`, `lastIndexOf`, `lowerAscii`, `replace`, `split`,
/// `substring`, `trim`, `upperAscii`, `join`. Version 1 adds `format` and `strings.quote`;
/// version 3 adds string `reverse`. (`join` is declared at every version; versions 0 and 1
/// implement it differently only in the error for a non-string element.)
pub(crate) fn strings(version: u32) -> Vec<Function> {
    let s = || Type::String;
    let i = || Type::Int;
    let mut fns = vec![
        func(
            "charAt",
            vec![ov("string_char_at_int", true, vec![s(), i()], s())],
        ),
        func(
            "indexOf",
            vec![
                ov("string_index_of_string", true, vec![s(), s()], i()),
                ov("string_index_of_string_int", true, vec![s(), s(), i()], i()),
            ],
        ),
        func(
            "lastIndexOf",
            vec![
                ov("string_last_index_of_string", true, vec![s(), s()], i()),
                ov(
                    "string_last_index_of_string_int",
                    true,
                    vec![s(), s(), i()],
                    i(),
                ),
            ],
        ),
        func(
            "lowerAscii",
            vec![ov("string_lower_ascii", true, vec![s()], s())],
        ),
        func(
            "replace",
            vec![
                ov(
                    "string_replace_string_string",
                    true,
                    vec![s(), s(), s()],
                    s(),
                ),
                ov(
                    "string_replace_string_string_int",
                    true,
                    vec![s(), s(), s(), i()],
                    s(),
                ),
            ],
        ),
        func(
            "split",
            vec![
                ov("string_split_string", true, vec![s(), s()], Type::list(s())),
                ov(
                    "string_split_string_int",
                    true,
                    vec![s(), s(), i()],
                    Type::list(s()),
                ),
            ],
        ),
        func(
            "substring",
            vec![
                ov("string_substring_int", true, vec![s(), i()], s()),
                ov("string_substring_int_int", true, vec![s(), i(), i()], s()),
            ],
        ),
        func("trim", vec![ov("string_trim", true, vec![s()], s())]),
        func(
            "upperAscii",
            vec![ov("string_upper_ascii", true, vec![s()], s())],
        ),
    ];
    if version >= 1 {
        fns.push(func(
            "format",
            vec![ov(
                "string_format",
                true,
                vec![s(), Type::list(Type::Dyn)],
                s(),
            )],
        ));
        fns.push(func(
            "strings.quote",
            vec![ov("strings_quote", false, vec![s()], s())],
        ));
    }
    fns.push(func(
        "join",
        vec![
            ov("list_join", true, vec![Type::list(s())], s()),
            ov("list_join_string", true, vec![Type::list(s()), s()], s()),
        ],
    ));
    if version >= 3 {
        fns.push(func(
            "reverse",
            vec![ov("string_reverse", true, vec![s()], s())],
        ));
    }
    fns
}

/// The sets extension: `sets.contains`, `sets.equivalent`, `sets.intersects`.
pub(crate) fn sets() -> Vec<Function> {
    let l = || Type::list(t());
    vec![
        func(
            "sets.contains",
            vec![ov(
                "list_sets_contains_list",
                false,
                vec![l(), l()],
                Type::Bool,
            )],
        ),
        func(
            "sets.equivalent",
            vec![ov(
                "list_sets_equivalent_list",
                false,
                vec![l(), l()],
                Type::Bool,
            )],
        ),
        func(
            "sets.intersects",
            vec![ov(
                "list_sets_intersects_list",
                false,
                vec![l(), l()],
                Type::Bool,
            )],
        ),
    ]
}

/// The lists extension at a version (cel-go `ext.Lists(ext.ListsVersion(version))`).
///
/// Version 0: `slice`. Version 1 adds `flatten`. Version 2 adds `sort`, the `sortBy` macro and
/// the `@sortByAssociatedKeys` function it expands to, `lists.range`, `reverse` and `distinct`.
/// Version 3 adds cost estimates only. (`first` and `last` belong to the optional types
/// library.)
pub(crate) fn lists(version: u32) -> Vec<Function> {
    let l = || Type::list(t());
    let mut fns = vec![func(
        "slice",
        vec![ov("list_slice", true, vec![l(), Type::Int, Type::Int], l())],
    )];
    if version >= 1 {
        fns.push(func(
            "flatten",
            vec![
                ov("list_flatten", true, vec![Type::list(l())], l()),
                ov(
                    "list_flatten_int",
                    true,
                    vec![Type::list(Type::Dyn), Type::Int],
                    Type::list(Type::Dyn),
                ),
            ],
        ));
    }
    if version >= 2 {
        fns.push(func(
            "sort",
            LISTS_COMPARABLE
                .iter()
                .zip(LIST_SORT_IDS)
                .map(|((_, ty), id)| {
                    ov(
                        id,
                        true,
                        vec![Type::list(ty.clone())],
                        Type::list(ty.clone()),
                    )
                })
                .collect(),
        ));
        fns.push(func(
            "@sortByAssociatedKeys",
            LISTS_COMPARABLE
                .iter()
                .zip(LIST_SORT_BY_IDS)
                .map(|((_, ty), id)| ov(id, true, vec![l(), Type::list(ty.clone())], l()))
                .collect(),
        ));
        fns.push(func(
            "lists.range",
            vec![ov(
                "lists_range",
                false,
                vec![Type::Int],
                Type::list(Type::Int),
            )],
        ));
        fns.push(func(
            "reverse",
            vec![ov("list_reverse", true, vec![l()], l())],
        ));
        fns.push(func(
            "distinct",
            vec![ov("list_distinct", true, vec![l()], l())],
        ));
    }
    fns
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(fns: &[Function]) -> Vec<&'static str> {
        fns.iter()
            .flat_map(|f| f.overloads.iter().map(|o| o.id))
            .collect()
    }

    #[test]
    fn sort_ids_follow_type_names() {
        for ((name, _), id) in LISTS_COMPARABLE.iter().zip(LIST_SORT_IDS) {
            assert_eq!(id, format!("list_{name}_sort"));
        }
        for ((name, _), id) in LISTS_COMPARABLE.iter().zip(LIST_SORT_BY_IDS) {
            assert_eq!(id, format!("list_{name}_sortByAssociatedKeys"));
        }
    }

    #[test]
    fn strings_versions() {
        let v0 = ids(&strings(0));
        assert!(v0.contains(&"list_join"));
        assert!(!v0.contains(&"string_format"));
        assert!(!v0.contains(&"strings_quote"));
        let v2 = ids(&strings(2));
        assert!(v2.contains(&"string_format"));
        assert!(v2.contains(&"strings_quote"));
        assert!(!v2.contains(&"string_reverse"));
        assert_eq!(v2.len(), v0.len() + 2);
        assert!(ids(&strings(3)).contains(&"string_reverse"));
    }

    #[test]
    fn lists_versions() {
        assert_eq!(ids(&lists(0)), vec!["list_slice"]);
        assert_eq!(
            ids(&lists(1)),
            vec!["list_slice", "list_flatten", "list_flatten_int"]
        );
        let v3 = ids(&lists(3));
        assert_eq!(v3.len(), 3 + 8 + 8 + 3);
        assert_eq!(v3, ids(&lists(2)));
        assert!(v3.contains(&"list_google.protobuf.Timestamp_sort"));
        assert!(v3.contains(&"lists_range"));
    }

    #[test]
    fn optional_member_styles() {
        let fns = optionals();
        let find = |id: &str| {
            fns.iter()
                .flat_map(|f| f.overloads.iter())
                .find(|o| o.id == id)
                .cloned()
        };
        assert_eq!(find("optional_unwrap").map(|o| o.member), Some(false));
        assert_eq!(find("optional_unwrapOpt").map(|o| o.member), Some(true));
        assert_eq!(find("list_first").map(|o| o.member), Some(true));
        let or_value = find("optional_orValue_value");
        assert_eq!(or_value.map(|o| o.result), Some(Type::param("V")));
        assert_eq!(ids(&fns).len(), 18);
    }
}
