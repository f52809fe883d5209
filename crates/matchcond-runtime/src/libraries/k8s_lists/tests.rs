//! The Kubernetes lists library: its declarations by version, and its functions through
//! their overload ids, with the expectations of Kubernetes' library tests.

use matchcond_front::Type;

use matchcond_front::checker::format_type;

use super::{library, IS_SORTED, MAX, MIN};
use crate::error::ErrorKind;
use crate::libraries::support::compare::COMPARABLE_TYPES;
use crate::test_util::*;
use crate::value::{Timestamp, Value};

#[test]
fn ids_follow_type_names() {
    // The ids embed the CEL type name (`list_duration_max_duration` …).
    for (i, ty) in COMPARABLE_TYPES.iter().enumerate() {
        let name = format_type(ty);
        assert_eq!(IS_SORTED[i].0, format!("list_{name}_is_sorted_bool"));
        assert_eq!(MAX[i].0, format!("list_{name}_max_{name}"));
        assert_eq!(MIN[i].0, format!("list_{name}_min_{name}"));
    }
}

#[test]
fn versions() {
    let v0 = library(0);
    assert!(declared(&v0).iter().all(|(f, _, _)| *f != "includes"));
    assert_eq!(declared(&v0).len(), 8 + 4 + 8 + 8 + 1 + 1);
    assert_eq!(declared(&library(1)).len(), declared(&v0).len() + 1);
    assert!(declared(&library(1)).contains(&("includes", "list_includes_dyn_dyn", true)));
    assert_eq!(
        declaration(&v0, "list_duration_sum_duration").result,
        Type::Duration
    );
}

// The functions, through their overload ids.

#[test]
fn k8s_is_sorted() {
    assert_eq!(
        ok("list_int_is_sorted_bool", vec![ints(&[1, 2, 3])]),
        "true"
    );
    assert_eq!(
        ok("list_int_is_sorted_bool", vec![ints(&[1, 2, 2, 3])]),
        "true"
    );
    assert_eq!(ok("list_int_is_sorted_bool", vec![ints(&[2, 1])]), "false");
    assert_eq!(ok("list_int_is_sorted_bool", vec![ints(&[1])]), "true");
    assert_eq!(ok("list_int_is_sorted_bool", vec![l(vec![])]), "true");
    assert_eq!(
        ok(
            "list_string_is_sorted_bool",
            vec![strs(&["a", "b", "b", "c"])]
        ),
        "true"
    );
    assert_eq!(
        ok("list_string_is_sorted_bool", vec![strs(&["b", "a"])]),
        "false"
    );
    assert_eq!(
        ok("list_double_is_sorted_bool", vec![l(vec![d(2.0), d(1.0)])]),
        "false"
    );
    assert_eq!(
        ok(
            "list_double_is_sorted_bool",
            vec![l(vec![d(1.0), d(2.0), d(2.0), d(3.0)])]
        ),
        "true"
    );
    assert_eq!(
        ok(
            "list_duration_is_sorted_bool",
            vec![l(vec![dur(1), dur(60), dur(60), dur(3600)])]
        ),
        "true"
    );
    assert_eq!(
        ok(
            "list_duration_is_sorted_bool",
            vec![l(vec![dur(60), dur(1)])]
        ),
        "false"
    );
    assert_eq!(
        ok("list_timestamp_is_sorted_bool", vec![l(vec![ts(1), ts(2)])]),
        "true"
    );
    assert_eq!(
        ok(
            "list_bytes_is_sorted_bool",
            vec![l(vec![by(b"b"), by(b"a")])]
        ),
        "false"
    );
    assert_eq!(
        ok("list_bool_is_sorted_bool", vec![l(vec![b(false), b(true)])]),
        "true"
    );
    assert_eq!(
        ok("list_uint_is_sorted_bool", vec![l(vec![u(1), u(0)])]),
        "false"
    );
    // Numbers compare across types in a dyn list; other kinds do not compare.
    assert_eq!(
        ok("list_int_is_sorted_bool", vec![l(vec![i(1), d(0.5)])]),
        "false"
    );
    assert_eq!(
        ok("list_int_is_sorted_bool", vec![l(vec![i(1), s("a")])]),
        "true"
    );
    assert_eq!(
        ok(
            "list_double_is_sorted_bool",
            vec![l(vec![d(2.0), d(f64::NAN), d(1.0)])]
        ),
        "true"
    );
    assert_eq!(
        err("list_int_is_sorted_bool", vec![l(vec![i(1), Value::Null])]),
        "no such overload"
    );
    // The guard checks the first element.
    assert_eq!(
        err_kind("list_int_is_sorted_bool", vec![l(vec![d(1.0)])]),
        ErrorKind::NoSuchOverload
    );
    let json = serde_json::json!([1, 2, 2, 3]);
    assert_eq!(
        ok(
            "list_int_is_sorted_bool",
            vec![Value::from_json(&json).into_owned()]
        ),
        "true"
    );
}

#[test]
fn k8s_sum() {
    assert_eq!(ok("list_int_sum_int", vec![ints(&[1, 3])]), "4");
    assert_eq!(ok("list_int_sum_int", vec![ints(&[1, 2, 2, 3])]), "8");
    assert_eq!(ok("list_int_sum_int", vec![l(vec![])]), "0");
    assert_eq!(ok("list_uint_sum_uint", vec![l(vec![])]), "0u");
    assert_eq!(ok("list_double_sum_double", vec![l(vec![])]), "0.0");
    assert_eq!(ok("list_duration_sum_duration", vec![l(vec![])]), "dur(0)");
    assert_eq!(
        ok("list_double_sum_double", vec![l(vec![d(1.0), d(3.0)])]),
        "4.0"
    );
    assert_eq!(ok("list_uint_sum_uint", vec![l(vec![u(1), u(3)])]), "4u");
    // ['1m', '1s'].sum() == duration('1m1s')
    assert_eq!(
        ok("list_duration_sum_duration", vec![l(vec![dur(60), dur(1)])]),
        "dur(61000000000)"
    );
    assert_eq!(
        ok(
            "list_duration_sum_duration",
            vec![l(vec![dur(1), dur(60), dur(60), dur(3600)])]
        ),
        "dur(3721000000000)"
    );
    assert_eq!(
        err("list_int_sum_int", vec![ints(&[i64::MAX, 1])]),
        "integer overflow"
    );
    assert_eq!(
        err("list_uint_sum_uint", vec![l(vec![u(u64::MAX), u(1)])]),
        "unsigned integer overflow"
    );
    assert_eq!(
        err("list_int_sum_int", vec![l(vec![i(1), d(2.0)])]),
        "no such overload"
    );
    assert_eq!(
        err_kind("list_int_sum_int", vec![l(vec![i(1), d(2.0)])]),
        ErrorKind::Other
    );
    assert_eq!(
        err("list_int_sum_int", vec![l(vec![i(1), b(true)])]),
        "no such overload"
    );
    // dyn([1.0, 2.0]).sum(): the int overload's guard fails, the double one applies.
    assert_eq!(
        err_kind("list_int_sum_int", vec![l(vec![d(1.0), d(2.0)])]),
        ErrorKind::NoSuchOverload
    );
    assert_eq!(
        ok("list_double_sum_double", vec![l(vec![d(1.0), d(2.0)])]),
        "3.0"
    );
    // A duration list that meets a timestamp turns into a timestamp.
    assert_eq!(
        ok(
            "list_duration_sum_duration",
            vec![l(vec![dur(1), ts(10), dur(2)])]
        ),
        "ts(13, 0)"
    );
    assert_eq!(
        err(
            "list_duration_sum_duration",
            vec![l(vec![
                dur(1),
                Value::Timestamp(Timestamp {
                    secs: Timestamp::MAX_SECS,
                    nanos: 0,
                    offset: 0,
                })
            ])]
        ),
        "timestamp overflow"
    );
}

#[test]
fn k8s_min_max() {
    assert_eq!(ok("list_int_min_int", vec![ints(&[1, 3])]), "1");
    assert_eq!(ok("list_int_max_int", vec![ints(&[1, 3])]), "3");
    assert_eq!(ok("list_int_min_int", vec![ints(&[1])]), "1");
    assert_eq!(ok("list_int_min_int", vec![ints(&[1, 2, 2, 3])]), "1");
    assert_eq!(ok("list_int_max_int", vec![ints(&[1, 2, 2, 3])]), "3");
    assert_eq!(ok("list_int_min_int", vec![ints(&[0])]), "0");
    assert_eq!(
        ok(
            "list_double_min_double",
            vec![l(vec![d(1.0), d(2.0), d(3.0)])]
        ),
        "1.0"
    );
    assert_eq!(
        ok(
            "list_double_max_double",
            vec![l(vec![d(1.0), d(2.0), d(3.0)])]
        ),
        "3.0"
    );
    assert_eq!(
        ok(
            "list_duration_min_duration",
            vec![l(vec![dur(1), dur(60), dur(3600)])]
        ),
        "dur(1000000000)"
    );
    assert_eq!(
        ok(
            "list_duration_max_duration",
            vec![l(vec![dur(1), dur(60), dur(3600)])]
        ),
        "dur(3600000000000)"
    );
    assert_eq!(
        ok("list_string_min_string", vec![strs(&["a", "b", "b", "c"])]),
        "\"a\""
    );
    assert_eq!(
        ok("list_string_max_string", vec![strs(&["a", "b", "b", "c"])]),
        "\"c\""
    );
    assert_eq!(
        ok(
            "list_timestamp_min_timestamp",
            vec![l(vec![ts(946_684_800), ts(949_363_200), ts(1_262_304_000)])]
        ),
        "ts(946684800, 0)"
    );
    assert_eq!(
        ok(
            "list_timestamp_max_timestamp",
            vec![l(vec![ts(946_684_800), ts(949_363_200), ts(1_262_304_000)])]
        ),
        "ts(1262304000, 0)"
    );
    assert_eq!(
        ok("list_bool_max_bool", vec![l(vec![b(false), b(true)])]),
        "true"
    );
    assert_eq!(
        ok("list_bytes_min_bytes", vec![l(vec![by(b"b"), by(b"a")])]),
        "b\"a\""
    );
    assert_eq!(ok("list_uint_max_uint", vec![l(vec![u(1), u(7)])]), "7u");
    for (id, op) in [
        ("list_int_min_int", "min"),
        ("list_int_max_int", "max"),
        ("list_double_min_double", "min"),
        ("list_double_max_double", "max"),
        ("list_string_min_string", "min"),
        ("list_string_max_string", "max"),
        ("list_bytes_max_bytes", "max"),
    ] {
        assert_eq!(
            err(id, vec![l(vec![])]),
            format!("{op} called on empty list")
        );
    }
    // Ties keep the first element; numbers compare across types.
    assert_eq!(ok("list_int_min_int", vec![l(vec![i(1), d(1.0)])]), "1");
    assert_eq!(
        ok("list_int_max_int", vec![l(vec![i(1), d(1.5), u(1)])]),
        "1.5"
    );
    assert_eq!(
        ok("list_double_min_double", vec![l(vec![d(f64::NAN), d(1.0)])]),
        "NaN"
    );
    assert_eq!(
        ok("list_int_min_int", vec![l(vec![i(2), s("a"), i(1)])]),
        "1"
    );
    assert_eq!(
        err("list_int_max_int", vec![l(vec![i(1), ints(&[2])])]),
        "no such overload"
    );
    assert_eq!(
        err_kind("list_string_min_string", vec![ints(&[1])]),
        ErrorKind::NoSuchOverload
    );
}

#[test]
fn k8s_index_of() {
    assert_eq!(
        ok("list_a_index_of_int", vec![ints(&[1, 2, 2, 3]), i(2)]),
        "1"
    );
    assert_eq!(
        ok("list_a_last_index_of_int", vec![ints(&[1, 2, 2, 3]), i(2)]),
        "2"
    );
    assert_eq!(
        ok("list_a_index_of_int", vec![ints(&[1, 2, 2, 3]), i(10)]),
        "-1"
    );
    assert_eq!(
        ok("list_a_last_index_of_int", vec![ints(&[1, 2, 2, 3]), i(10)]),
        "-1"
    );
    assert_eq!(
        ok(
            "list_a_last_index_of_int",
            vec![strs(&["a", "b", "b", "c"]), s("b")]
        ),
        "2"
    );
    assert_eq!(
        ok("list_a_index_of_int", vec![l(vec![d(1.0)]), d(1.1)]),
        "-1"
    );
    assert_eq!(
        ok("list_a_index_of_int", vec![l(vec![]), s("string")]),
        "-1"
    );
    assert_eq!(
        ok(
            "list_a_index_of_int",
            vec![l(vec![ints(&[1]), ints(&[2])]), ints(&[1])]
        ),
        "0"
    );
    assert_eq!(
        ok(
            "list_a_last_index_of_int",
            vec![
                l(vec![map(vec![(s("a"), i(1))]), map(vec![(s("b"), i(2))])]),
                map(vec![(s("b"), i(2))])
            ]
        ),
        "1"
    );
    assert_eq!(
        ok(
            "list_a_index_of_int",
            vec![l(vec![dur(1), dur(60), dur(60)]), dur(60)]
        ),
        "1"
    );
    assert_eq!(ok("list_a_index_of_int", vec![ints(&[1, 2]), d(2.0)]), "1");
    let json =
        serde_json::json!([{"f1": "a", "f2": "a"}, {"f1": "a", "f2": "b"}, {"f1": "a", "f2": "b"}]);
    let objs = Value::from_json(&json);
    let second = map(vec![(s("f1"), s("a")), (s("f2"), s("b"))]);
    assert_eq!(
        ok(
            "list_a_index_of_int",
            vec![objs.clone().into_owned(), second.clone()]
        ),
        "1"
    );
    assert_eq!(
        ok("list_a_last_index_of_int", vec![objs.into_owned(), second]),
        "2"
    );
    assert_eq!(
        err_kind("list_a_index_of_int", vec![s("abc"), s("b")]),
        ErrorKind::NoSuchOverload
    );
}

#[test]
fn k8s_includes() {
    assert_eq!(
        ok("list_includes_dyn_dyn", vec![ints(&[1, 2, 3]), i(2)]),
        "true"
    );
    assert_eq!(
        ok("list_includes_dyn_dyn", vec![ints(&[1, 2, 3]), i(4)]),
        "false"
    );
    assert_eq!(
        ok("list_includes_dyn_dyn", vec![s("model-a"), s("model-a")]),
        "true"
    );
    assert_eq!(
        ok("list_includes_dyn_dyn", vec![s("model-a"), s("model-b")]),
        "false"
    );
    assert_eq!(
        ok("list_includes_dyn_dyn", vec![ints(&[1, 2, 3]), d(3.0)]),
        "true"
    );
    assert_eq!(
        ok("list_includes_dyn_dyn", vec![l(vec![]), l(vec![])]),
        "false"
    );
    assert_eq!(ok("list_includes_dyn_dyn", vec![i(1), u(1)]), "true");
    assert_eq!(
        ok(
            "list_includes_dyn_dyn",
            vec![map(vec![(s("a"), i(1))]), s("a")]
        ),
        "false"
    );
}
