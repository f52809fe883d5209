//! The Kubernetes regex library, through its overload ids, with the expectations of
//! Kubernetes' library tests.

use crate::error::ErrorKind;
use crate::libraries::Library;
use crate::test_util::*;

#[test]
fn declarations() {
    assert!(declared(Library::K8sRegex.definition()).contains(&(
        "findAll",
        "string_find_all_string_int",
        true
    )));
}

#[test]
fn k8s_regex() {
    let text = "this is a 123 string 456";
    for (id, args, want) in [
        ("string_find_string", vec![s(text), s("[0-9]+")], "\"123\""),
        ("string_find_string", vec![s(text), s("xyz")], "\"\""),
        (
            "string_find_all_string",
            vec![s(text), s("[0-9]+")],
            "[\"123\", \"456\"]",
        ),
        ("string_find_all_string", vec![s(text), s("xyz")], "[]"),
        (
            "string_find_all_string_int",
            vec![s(text), s("xyz"), i(1)],
            "[]",
        ),
        (
            "string_find_string",
            vec![s("abc 123"), s("[0-9]*")],
            "\"\"",
        ),
        (
            "string_find_string",
            vec![s("Kubernetes"), s("(?i)NET")],
            "\"net\"",
        ),
        (
            "string_find_all_string",
            vec![s("a1b٢c3"), s("\\d")],
            "[\"1\", \"3\"]",
        ),
    ] {
        assert_eq!(ok(id, args), want, "{id:?}");
    }
    let n = |k: i64| {
        ok(
            "string_find_all_string_int",
            vec![s(text), s("[0-9]+"), i(k)],
        )
    };
    assert_eq!(n(0), "[]");
    assert_eq!(n(1), "[\"123\"]");
    assert_eq!(n(2), "[\"123\", \"456\"]");
    assert_eq!(n(3), "[\"123\", \"456\"]");
    assert_eq!(n(-1), "[\"123\", \"456\"]");
    for (id, args, want) in [
        (
            "string_find_string",
            vec![s(text), s(")")],
            "Illegal regex: error parsing regexp: unexpected ): `)`",
        ),
        (
            "string_find_all_string",
            vec![s(text), s(")")],
            "Illegal regex: error parsing regexp: unexpected ): `)`",
        ),
        (
            "string_find_all_string_int",
            vec![s(text), s("x++"), i(1)],
            "Illegal regex: error parsing regexp: invalid nested repetition operator: `++`",
        ),
    ] {
        assert_eq!(err(id, args), want, "{id:?}");
    }
    for (id, args, want) in [
        (
            "string_find_string",
            vec![s(text), s("[")],
            ErrorKind::InvalidArgument,
        ),
        (
            "string_find_string",
            vec![i(1), s("a")],
            ErrorKind::NoSuchOverload,
        ),
        (
            "string_find_all_string_int",
            vec![s("a"), s("a"), s("1")],
            ErrorKind::NoSuchOverload,
        ),
    ] {
        assert_eq!(err_kind(id, args), want, "{id:?}");
    }
}
