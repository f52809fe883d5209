//! The lists extension: its declarations by version, and its functions through their
//! overload ids, with the expectations of cel-go's `ext` tests and the cel-spec suites.

use matchcond_front::checker::format_type;
use matchcond_front::Type;

use super::{functions, SORT_BY_IDS, SORT_IDS};
use crate::error::ErrorKind;
use crate::libraries::support::compare::COMPARABLE_TYPES;
use crate::test_util::*;
use crate::value::Value;

fn ids(version: u32) -> Vec<&'static str> {
    functions(version)
        .iter()
        .flat_map(|f| f.overloads().iter().map(|o| o.id()))
        .collect()
}

#[test]
fn sort_ids_follow_type_names() {
    // The ids embed the type's protobuf name (`list_google.protobuf.Duration_sort` …).
    for (i, ty) in COMPARABLE_TYPES.iter().enumerate() {
        let name = match ty {
            Type::Duration => "google.protobuf.Duration".to_owned(),
            Type::Timestamp => "google.protobuf.Timestamp".to_owned(),
            other => format_type(other),
        };
        assert_eq!(SORT_IDS[i], format!("list_{name}_sort"));
        assert_eq!(SORT_BY_IDS[i], format!("list_{name}_sortByAssociatedKeys"));
    }
}

#[test]
fn lists_versions() {
    assert_eq!(ids(0), vec!["list_slice"]);
    assert_eq!(
        ids(1),
        vec!["list_slice", "list_flatten", "list_flatten_int"]
    );
    let v3 = ids(3);
    assert_eq!(v3.len(), 3 + 8 + 8 + 3);
    assert_eq!(v3, ids(2));
    assert!(v3.contains(&"list_google.protobuf.Timestamp_sort"));
    assert!(v3.contains(&"lists_range"));
    let def = crate::libraries::Library::ListsV3.definition();
    for (name, id) in [
        ("@sortByAssociatedKeys", "list_string_sortByAssociatedKeys"),
        ("lists.range", "lists_range"),
    ] {
        assert!(
            declared(def).iter().any(|(n, i, _)| (*n, *i) == (name, id)),
            "{id}"
        );
    }
}

// The functions, through their overload ids.

#[test]
fn lists_range_reverse_slice() {
    assert_eq!(ok("lists_range", vec![i(4)]), "[0, 1, 2, 3]");
    assert_eq!(ok("lists_range", vec![i(0)]), "[]");
    assert_eq!(ok("lists_range", vec![i(-3)]), "[]");
    assert_eq!(ok("lists_range", vec![i(5)]), "[0, 1, 2, 3, 4]");
    assert_eq!(
        ok("list_reverse", vec![ints(&[5, 1, 2, 3])]),
        "[3, 2, 1, 5]"
    );
    assert_eq!(ok("list_reverse", vec![l(vec![])]), "[]");
    assert_eq!(ok("list_reverse", vec![ints(&[1])]), "[1]");
    assert_eq!(
        ok(
            "list_reverse",
            vec![strs(&["are", "you", "as", "bored", "as", "I", "am"])]
        ),
        "[\"am\", \"I\", \"as\", \"bored\", \"as\", \"you\", \"are\"]"
    );
    assert_eq!(
        ok("list_reverse", vec![l(vec![b(false), b(true), b(true)])]),
        "[true, true, false]"
    );
    let sl = |a: i64, c: i64| ok("list_slice", vec![ints(&[1, 2, 3, 4]), i(a), i(c)]);
    let sl_err = |a: i64, c: i64| err("list_slice", vec![ints(&[1, 2, 3, 4]), i(a), i(c)]);
    for (from, to, want) in [
        (0, 4, "[1, 2, 3, 4]"),
        (0, 0, "[]"),
        (1, 1, "[]"),
        (4, 4, "[]"),
        (1, 3, "[2, 3]"),
        (2, 4, "[3, 4]"),
    ] {
        assert_eq!(sl(from, to), want, "slice({from}, {to})");
    }
    assert_eq!(
        sl_err(3, 0),
        "cannot slice(3, 0), start index must be less than or equal to end index"
    );
    assert_eq!(sl_err(0, 10), "cannot slice(0, 10), list is length 4");
    assert_eq!(
        sl_err(-5, 10),
        "cannot slice(-5, 10), negative indexes not supported"
    );
    assert_eq!(
        sl_err(-5, -3),
        "cannot slice(-5, -3), negative indexes not supported"
    );
    assert_eq!(
        err_kind("list_slice", vec![ints(&[1]), i(0), u(1)]),
        ErrorKind::NoSuchOverload
    );
}

#[test]
fn lists_flatten() {
    assert_eq!(ok("list_flatten", vec![l(vec![])]), "[]");
    assert_eq!(
        ok("list_flatten", vec![ints(&[1, 2, 3, 4])]),
        "[1, 2, 3, 4]"
    );
    let nested = l(vec![i(1), l(vec![i(2), ints(&[3, 4])])]);
    assert_eq!(ok("list_flatten", vec![nested.clone()]), "[1, 2, [3, 4]]");
    assert_eq!(
        ok("list_flatten_int", vec![nested.clone(), i(2)]),
        "[1, 2, 3, 4]"
    );
    assert_eq!(
        ok("list_flatten_int", vec![nested, i(0)]),
        "[1, [2, [3, 4]]]"
    );
    assert_eq!(
        ok(
            "list_flatten",
            vec![l(vec![i(1), i(2), l(vec![]), l(vec![]), ints(&[3, 4])])]
        ),
        "[1, 2, 3, 4]"
    );
    assert_eq!(
        ok(
            "list_flatten",
            vec![l(vec![i(1), ints(&[2, 3]), ints(&[4])])]
        ),
        "[1, 2, 3, 4]"
    );
    let deep = l(vec![i(1), l(vec![i(2), l(vec![i(3), ints(&[4])])])]);
    assert_eq!(
        ok("list_flatten_int", vec![deep.clone(), i(2)]),
        "[1, 2, 3, [4]]"
    );
    assert_eq!(
        ok("list_flatten_int", vec![deep.clone(), i(100)]),
        "[1, 2, 3, 4]"
    );
    assert_eq!(
        err("list_flatten_int", vec![deep, i(-1)]),
        "level must be non-negative"
    );
    assert_eq!(
        err("list_flatten_int", vec![l(vec![]), i(-1)]),
        "level must be non-negative"
    );
    assert_eq!(
        err("list_flatten", vec![map(vec![])]),
        "no such overload: map(dyn, dyn).flatten()"
    );
    assert_eq!(
        err("list_flatten_int", vec![map(vec![]), i(0)]),
        "no such overload: map(dyn, dyn).flatten(int)"
    );
    assert_eq!(
        err("list_flatten_int", vec![l(vec![]), s("1")]),
        "no such overload: list(dyn).flatten(string)"
    );
    let json = serde_json::json!([[1, 2], [3, [4]]]);
    assert_eq!(
        ok("list_flatten", vec![Value::from_json(&json).into_owned()]),
        "[1, 2, 3, [4]]"
    );
}

#[test]
fn lists_distinct() {
    assert_eq!(ok("list_distinct", vec![l(vec![])]), "[]");
    assert_eq!(ok("list_distinct", vec![ints(&[1])]), "[1]");
    assert_eq!(
        ok("list_distinct", vec![ints(&[-2, 5, -2, 1, 1, 5, -2, 1])]),
        "[-2, 5, 1]"
    );
    assert_eq!(
        ok(
            "list_distinct",
            vec![strs(&["c", "a", "a", "b", "a", "b", "c", "c"])]
        ),
        "[\"c\", \"a\", \"b\"]"
    );
    assert_eq!(
        ok(
            "list_distinct",
            vec![l(vec![i(1), d(2.0), s("c"), i(3), s("c"), i(1)])]
        ),
        "[1, 2.0, \"c\", 3]"
    );
    assert_eq!(
        ok("list_distinct", vec![l(vec![i(1), d(1.0), i(2)])]),
        "[1, 2]"
    );
    assert_eq!(
        ok(
            "list_distinct",
            vec![l(vec![ints(&[1]), ints(&[1]), ints(&[2])])]
        ),
        "[[1], [2]]"
    );
    assert_eq!(ok("list_distinct", vec![ints(&[1, 2, 2, 1])]), "[1, 2]");
    assert_eq!(
        ok("list_distinct", vec![l(vec![i(1), s("b"), i(2), s("b")])]),
        "[1, \"b\", 2]"
    );
    assert_eq!(
        ok("list_distinct", vec![strs(&["b", "b", "c", "a", "c"])]),
        "[\"b\", \"c\", \"a\"]"
    );
    assert_eq!(
        ok("list_distinct", vec![l(vec![d(f64::NAN), d(f64::NAN)])]),
        "[NaN, NaN]"
    );
}

#[test]
fn lists_sort() {
    let sort = |v: Value<'static>| ok("list_int_sort", vec![v]);
    assert_eq!(sort(l(vec![])), "[]");
    assert_eq!(sort(ints(&[1])), "[1]");
    assert_eq!(sort(ints(&[4, 3, 2, 1])), "[1, 2, 3, 4]");
    assert_eq!(sort(ints(&[2, 1, 3])), "[1, 2, 3]");
    assert_eq!(sort(ints(&[3, 2, 1])), "[1, 2, 3]");
    assert_eq!(
        ok("list_string_sort", vec![strs(&["d", "a", "b", "c"])]),
        "[\"a\", \"b\", \"c\", \"d\"]"
    );
    assert_eq!(
        ok(
            "list_string_sort",
            vec![strs(&["b", "a", "c", "c", "a", "b"])]
        ),
        "[\"a\", \"a\", \"b\", \"b\", \"c\", \"c\"]"
    );
    assert_eq!(
        ok("list_double_sort", vec![l(vec![d(2.5), d(-1.0), d(0.0)])]),
        "[-1.0, 0.0, 2.5]"
    );
    assert_eq!(ok("list_uint_sort", vec![l(vec![u(3), u(1)])]), "[1u, 3u]");
    assert_eq!(
        ok("list_bool_sort", vec![l(vec![b(true), b(false), b(true)])]),
        "[false, true, true]"
    );
    assert_eq!(
        ok(
            "list_bytes_sort",
            vec![l(vec![by(b"b"), by(b"a"), by(b"ab")])]
        ),
        "[b\"a\", b\"ab\", b\"b\"]"
    );
    assert_eq!(
        ok(
            "list_google.protobuf.Duration_sort",
            vec![l(vec![dur(60), dur(1)])]
        ),
        "[dur(1000000000), dur(60000000000)]"
    );
    assert_eq!(
        ok(
            "list_google.protobuf.Timestamp_sort",
            vec![l(vec![ts(10), ts(-10)])]
        ),
        "[ts(-10, 0), ts(10, 0)]"
    );
    // Strings order by bytes (code points).
    assert_eq!(
        ok("list_string_sort", vec![strs(&["é", "z", "Z", "a"])]),
        "[\"Z\", \"a\", \"z\", \"é\"]"
    );
    assert_eq!(
        err("list_int_sort", vec![l(vec![s("d"), i(3), i(2), s("c")])]),
        "list elements must have the same type"
    );
    assert_eq!(
        err("list_int_sort", vec![l(vec![i(1), d(2.0)])]),
        "list elements must have the same type"
    );
    assert_eq!(
        err("list_int_sort", vec![l(vec![ints(&[1, 2, 3])])]),
        "list elements must be comparable"
    );
    assert_eq!(
        err("list_int_sort", vec![l(vec![Value::Null])]),
        "list elements must be comparable"
    );
    // Every sort overload shares the implementation, without a type guard.
    assert_eq!(ok("list_bool_sort", vec![ints(&[2, 1])]), "[1, 2]");
    assert_eq!(
        err_kind("list_int_sort", vec![i(1)]),
        ErrorKind::NoSuchOverload
    );
    let json = serde_json::json!([3, 1, 2]);
    assert_eq!(sort(Value::from_json(&json).into_owned()), "[1, 2, 3]");
    let long: Vec<i64> = (0..100).map(|x| (x * 37) % 101).collect();
    let mut expected = long.clone();
    expected.sort_unstable();
    assert_eq!(sort(ints(&long)), show(&ints(&expected)));
}

#[test]
fn lists_sort_by_associated_keys() {
    let sort_by = |list: Value<'static>, keys: Value<'static>| {
        ok("list_int_sortByAssociatedKeys", vec![list, keys])
    };
    assert_eq!(
        sort_by(strs(&["foo", "bar", "baz"]), ints(&[3, 1, 2])),
        "[\"bar\", \"baz\", \"foo\"]"
    );
    assert_eq!(sort_by(l(vec![]), l(vec![])), "[]");
    assert_eq!(sort_by(strs(&["a"]), strs(&["a"])), "[\"a\"]");
    // [-3, 1, -5, -2, 4].sortBy(e, -(e * e)) == [-5, 4, -3, -2, 1]
    assert_eq!(
        sort_by(ints(&[-3, 1, -5, -2, 4]), ints(&[-9, -1, -25, -4, -16])),
        "[-5, 4, -3, -2, 1]"
    );
    // lists.range(3).sortBy(e, -e) == [2, 1, 0]
    assert_eq!(sort_by(ints(&[0, 1, 2]), ints(&[0, -1, -2])), "[2, 1, 0]");
    // ["a", "c", "b", "first"].sortBy(e, e == "first" ? "" : e)
    assert_eq!(
        ok(
            "list_string_sortByAssociatedKeys",
            vec![strs(&["a", "c", "b", "first"]), strs(&["a", "c", "b", ""])]
        ),
        "[\"first\", \"a\", \"b\", \"c\"]"
    );
    // [{'field': 'lo'}, {'field': 'hi'}].sortBy(m, m.field)
    assert_eq!(
        ok(
            "list_string_sortByAssociatedKeys",
            vec![
                l(vec![
                    map(vec![(s("field"), s("lo"))]),
                    map(vec![(s("field"), s("hi"))])
                ]),
                strs(&["lo", "hi"])
            ]
        ),
        "[{\"field\": \"hi\"}, {\"field\": \"lo\"}]"
    );
    // Equal keys keep their order in short lists.
    assert_eq!(
        sort_by(strs(&["a", "b", "c", "d"]), ints(&[1, 0, 1, 0])),
        "[\"b\", \"d\", \"a\", \"c\"]"
    );
    assert_eq!(
        err("list_int_sortByAssociatedKeys", vec![ints(&[1, 2]), ints(&[1])]),
        "@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got 2 and 1 elements respectively"
    );
    assert_eq!(
        err(
            "list_int_sortByAssociatedKeys",
            vec![ints(&[1, 2]), l(vec![map(vec![]), map(vec![])])]
        ),
        "list elements must be comparable"
    );
    assert_eq!(
        err(
            "list_int_sortByAssociatedKeys",
            vec![ints(&[1, 2]), l(vec![i(1), s("a")])]
        ),
        "list elements must have the same type"
    );
    assert_eq!(
        err_kind("list_int_sortByAssociatedKeys", vec![ints(&[1]), i(1)]),
        ErrorKind::NoSuchOverload
    );
}
