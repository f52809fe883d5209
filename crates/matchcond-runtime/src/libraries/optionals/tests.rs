//! The optional types library: its declarations, and its functions through their overload
//! ids, with the expectations of cel-go's tests and doc comments and the cel-spec suites.

use matchcond_front::Type;

use crate::error::ErrorKind;
use crate::libraries::Library;
use crate::test_util::*;
use crate::value::{Timestamp, Value};

#[test]
fn optional_member_styles() {
    let def = Library::Optionals.definition();
    assert!(!declaration(def, "optional_unwrap").member);
    assert!(declaration(def, "optional_unwrapOpt").member);
    assert!(declaration(def, "list_first").member);
    assert_eq!(
        declaration(def, "optional_orValue_value").result,
        Type::param("V")
    );
    assert_eq!(declared_ids(def).len(), 18);
    let names = declared(def);
    for (name, id) in [
        ("optional.unwrap", "optional_unwrap"),
        ("unwrapOpt", "optional_unwrapOpt"),
        ("_?._", "select_optional_field"),
        ("_[?_]", "map_optindex_optional_value"),
        ("_[_]", "optional_list_index_int"),
    ] {
        assert!(
            names.iter().any(|(n, i, _)| (*n, *i) == (name, id)),
            "{name} / {id}"
        );
    }
}

// The functions, through their overload ids.

#[test]
fn optional_constructors() {
    assert_eq!(ok("optional_of", vec![i(1)]), "optional.of(1)");
    assert_eq!(ok("optional_of", vec![Value::Null]), "optional.of(null)");
    assert_eq!(ok("optional_none", vec![]), "optional.none()");
    for zero in [
        Value::Null,
        i(0),
        u(0),
        d(0.0),
        d(-0.0),
        s(""),
        b(false),
        l(vec![]),
        map(vec![]),
        by(b""),
        Value::Timestamp(Timestamp {
            secs: Timestamp::MIN_SECS,
            nanos: 0,
            offset: 0,
        }),
        dur(0),
    ] {
        assert_eq!(
            ok("optional_ofNonZeroValue", vec![zero.clone()]),
            "optional.none()",
            "{}",
            show(&zero)
        );
    }
    for value in [
        i(1),
        u(1),
        d(1.1),
        s("a"),
        b(true),
        strs(&["a"]),
        map(vec![(s("k"), s("v"))]),
        ts(1_313_622_000),
        dur(68617),
        d(f64::NAN),
        none(),
        ty("int"),
    ] {
        assert!(
            ok("optional_ofNonZeroValue", vec![value.clone()]).starts_with("optional.of("),
            "{}",
            show(&value)
        );
    }
    assert_eq!(
        ok("optional_ofNonZeroValue", vec![s("hello")]),
        "optional.of(\"hello\")"
    );
}

#[test]
fn optional_accessors() {
    assert_eq!(ok("optional_value", vec![opt(i(1))]), "1");
    assert_eq!(
        err("optional_value", vec![none()]),
        "optional.none() dereference"
    );
    assert_eq!(
        ok("optional_hasValue", vec![opt(map(vec![(i(1), i(2))]))]),
        "true"
    );
    assert_eq!(ok("optional_hasValue", vec![none()]), "false");
    assert_eq!(ok("optional_hasValue", vec![opt(Value::Null)]), "true");
    assert_eq!(
        err_kind("optional_hasValue", vec![i(1)]),
        ErrorKind::NoSuchOverload
    );
    assert_eq!(
        err_kind("optional_value", vec![Value::Null]),
        ErrorKind::NoSuchOverload
    );
}

#[test]
fn optional_or() {
    assert_eq!(
        ok("optional_or_optional", vec![none(), opt(i(1))]),
        "optional.of(1)"
    );
    assert_eq!(
        ok("optional_or_optional", vec![opt(i(42)), opt(i(20))]),
        "optional.of(42)"
    );
    assert_eq!(
        ok("optional_or_optional", vec![none(), none()]),
        "optional.none()"
    );
    assert_eq!(ok("optional_orValue_value", vec![none(), i(42)]), "42");
    assert_eq!(
        ok("optional_orValue_value", vec![opt(s("v")), s("nope")]),
        "\"v\""
    );
    // cel-go returns the alternative as it is, whatever its type.
    assert_eq!(ok("optional_or_optional", vec![none(), i(1)]), "1");
    assert_eq!(
        err_kind("optional_or_optional", vec![i(1), opt(i(2))]),
        ErrorKind::NoSuchOverload
    );
    assert_eq!(
        err_kind("optional_orValue_value", vec![s("x"), s("y")]),
        ErrorKind::NoSuchOverload
    );
}

#[test]
fn optional_list_functions() {
    assert_eq!(ok("list_first", vec![ints(&[1, 2, 3])]), "optional.of(1)");
    assert_eq!(ok("list_last", vec![ints(&[1, 2, 3])]), "optional.of(3)");
    assert_eq!(ok("list_first", vec![l(vec![])]), "optional.none()");
    assert_eq!(ok("list_last", vec![l(vec![])]), "optional.none()");
    let json = serde_json::json!(["a", "b"]);
    assert_eq!(
        ok("list_last", vec![Value::from_json(&json).into_owned()]),
        "optional.of(\"b\")"
    );
    assert_eq!(
        ok("optional_unwrap", vec![l(vec![opt(i(1)), none()])]),
        "[1]"
    );
    assert_eq!(
        ok("optional_unwrapOpt", vec![l(vec![opt(i(1)), none()])]),
        "[1]"
    );
    assert_eq!(ok("optional_unwrap", vec![l(vec![])]), "[]");
    assert_eq!(
        ok(
            "optional_unwrapOpt",
            vec![l(vec![none(), opt(s("a")), opt(s("b"))])]
        ),
        "[\"a\", \"b\"]"
    );
    assert_eq!(
        err("optional_unwrap", vec![l(vec![opt(i(1)), i(2)])]),
        "value 2 is not optional"
    );
    // The guard checks the first element.
    assert_eq!(
        err_kind("optional_unwrap", vec![ints(&[1])]),
        ErrorKind::NoSuchOverload
    );
    assert_eq!(
        err_kind("list_first", vec![s("abc")]),
        ErrorKind::NoSuchOverload
    );
}
