//! The standard library's implementations, called directly by overload id. Expected values
//! follow cel-go (many are the cel-spec conformance suites' cases).

#![allow(clippy::unwrap_used, clippy::panic)]

use std::sync::Arc;

use matchcond_runtime::libraries::standard::time;
use matchcond_runtime::value::{Duration, Map, MapData, Timestamp, TypeName, Value};
use matchcond_runtime::ErrorKind;

mod common;
use common::{call, err, s, R};

fn b(v: &[u8]) -> Value<'static> {
    Value::bytes(v)
}

fn i(v: i64) -> Value<'static> {
    Value::Int(v)
}

fn u(v: u64) -> Value<'static> {
    Value::Uint(v)
}

fn d(v: f64) -> Value<'static> {
    Value::Double(v)
}

fn list(v: Vec<Value<'static>>) -> Value<'static> {
    Value::list(v)
}

fn map(entries: Vec<(Value<'static>, Value<'static>)>) -> Value<'static> {
    Value::Map(Map::Shared(Arc::new(
        MapData::from_entries(entries).unwrap(),
    )))
}

fn ts(text: &str) -> Value<'static> {
    Value::Timestamp(time::parse_rfc3339(text).unwrap().unwrap())
}

fn dur(text: &str) -> Value<'static> {
    Value::Duration(Duration {
        nanos: time::parse_duration(text).unwrap(),
    })
}

/// `fn $name(r: R) -> $t`: the value of a call that succeeded with a `$variant`.
macro_rules! ok_variant {
    ($name:ident, $variant:ident, $t:ty, $want:literal, |$v:ident| $value:expr) => {
        #[track_caller]
        fn $name(r: R) -> $t {
            match r {
                Ok(Value::$variant($v)) => $value,
                other => panic!(concat!("want ", $want, ", got {:?}"), other),
            }
        }
    };
}

ok_variant!(ok_int, Int, i64, "an int", |v| v);
ok_variant!(ok_uint, Uint, u64, "a uint", |v| v);
ok_variant!(ok_double, Double, f64, "a double", |v| v);
ok_variant!(ok_bool, Bool, bool, "a bool", |v| v);
ok_variant!(ok_string, String, String, "a string", |v| v.to_string());
ok_variant!(ok_bytes, Bytes, Vec<u8>, "bytes", |v| v.to_vec());

/// The kind and message of a failed call.
#[track_caller]
fn failure(r: R) -> (ErrorKind, String) {
    let e = err(r);
    (e.kind(), e.message().to_string())
}

#[track_caller]
fn err_msg(r: R) -> String {
    err(r).message().to_string()
}

#[test]
fn integer_math() {
    assert_eq!(ok_int(call("add_int64", &[i(40), i(2)])), 42);
    assert_eq!(ok_int(call("add_int64", &[i(-4), i(-2)])), -6);
    assert_eq!(ok_int(call("subtract_int64", &[i(42), i(-22)])), 64);
    assert_eq!(ok_int(call("multiply_int64", &[i(40), i(-2)])), -80);
    assert_eq!(ok_int(call("divide_int64", &[i(-20), i(2)])), -10);
    assert_eq!(ok_int(call("divide_int64", &[i(-7), i(2)])), -3);
    assert_eq!(ok_int(call("modulo_int64", &[i(47), i(5)])), 2);
    assert_eq!(ok_int(call("modulo_int64", &[i(43), i(-5)])), 3);
    assert_eq!(ok_int(call("modulo_int64", &[i(-42), i(-5)])), -2);
    assert_eq!(ok_int(call("modulo_int64", &[i(-3), i(5)])), -3);
    assert_eq!(ok_int(call("negate_int64", &[i(-42)])), 42);
    assert_eq!(ok_int(call("negate_int64", &[i(0)])), 0);
    assert_eq!(
        ok_int(call("add_int64", &[i(i64::MAX - 1), i(1)])),
        i64::MAX
    );
    assert_eq!(
        ok_int(call("multiply_int64", &[i(i64::MIN), i(1)])),
        i64::MIN
    );
    let overflow = (ErrorKind::Overflow, String::from("integer overflow"));
    let cases: [(&str, Vec<Value<'static>>); 9] = [
        ("add_int64", vec![i(i64::MAX), i(1)]),
        ("subtract_int64", vec![i(i64::MIN), i(1)]),
        ("add_int64", vec![i(i64::MIN), i(-1)]),
        ("subtract_int64", vec![i(1), i(-i64::MAX)]),
        ("negate_int64", vec![i(i64::MIN)]),
        ("multiply_int64", vec![i(i64::MIN), i(-1)]),
        ("divide_int64", vec![i(i64::MIN), i(-1)]),
        ("modulo_int64", vec![i(i64::MIN), i(-1)]),
        ("multiply_int64", vec![i(5_000_000_000), i(-5_000_000_000)]),
    ];
    for (id, args) in cases {
        assert_eq!(failure(call(id, &args)), overflow, "{id} {args:?}");
    }
    assert_eq!(
        failure(call("divide_int64", &[i(15), i(0)])),
        (ErrorKind::DivisionByZero, String::from("division by zero"))
    );
    assert_eq!(
        failure(call("modulo_int64", &[i(34), i(0)])),
        (ErrorKind::ModulusByZero, String::from("modulus by zero"))
    );
}

#[test]
fn unsigned_math() {
    assert_eq!(ok_uint(call("add_uint64", &[u(42), u(2)])), 44);
    assert_eq!(ok_uint(call("subtract_uint64", &[u(42), u(12)])), 30);
    assert_eq!(ok_uint(call("multiply_uint64", &[u(40), u(2)])), 80);
    assert_eq!(ok_uint(call("divide_uint64", &[u(60), u(2)])), 30);
    assert_eq!(ok_uint(call("modulo_uint64", &[u(42), u(5)])), 2);
    let overflow = (
        ErrorKind::Overflow,
        String::from("unsigned integer overflow"),
    );
    assert_eq!(failure(call("add_uint64", &[u(u64::MAX), u(1)])), overflow);
    assert_eq!(failure(call("subtract_uint64", &[u(0), u(1)])), overflow);
    assert_eq!(
        failure(call(
            "multiply_uint64",
            &[u(5_000_000_000), u(5_000_000_000)]
        )),
        overflow
    );
    assert_eq!(
        err_msg(call("divide_uint64", &[u(15), u(0)])),
        "division by zero"
    );
    assert_eq!(
        err_msg(call("modulo_uint64", &[u(34), u(0)])),
        "modulus by zero"
    );
    // Mixed types are not an overload.
    assert_eq!(
        failure(call("add_uint64", &[u(1), i(1)])),
        (
            ErrorKind::NoSuchOverload,
            String::from("no such overload: _+_(uint, int)")
        )
    );
    assert_eq!(
        err_msg(call("negate_int64", &[u(5)])),
        "no such overload: -_(uint)"
    );
}

#[test]
fn floating_point_math() {
    assert_eq!(ok_double(call("add_double", &[d(4.25), d(15.25)])), 19.5);
    assert_eq!(
        ok_double(call("subtract_double", &[d(-4.875), d(-0.125)])),
        -4.75
    );
    assert_eq!(
        ok_double(call("multiply_double", &[d(40.75), d(-2.25)])),
        -91.6875
    );
    assert_eq!(
        ok_double(call("divide_double", &[d(-8.875), d(-0.0625)])),
        142.0
    );
    assert_eq!(
        ok_double(call("divide_double", &[d(15.75), d(0.0)])),
        f64::INFINITY
    );
    assert!(ok_double(call("divide_double", &[d(0.0), d(0.0)])).is_nan());
    assert_eq!(
        ok_double(call("multiply_double", &[d(2.0), d(-8.988466e307)])),
        f64::NEG_INFINITY
    );
    assert_eq!(ok_double(call("divide_double", &[d(1e-324), d(2.0)])), 0.0);
    let z = ok_double(call("negate_double", &[d(0.0)]));
    assert!(z == 0.0 && z.is_sign_negative());
    assert_eq!(
        err_msg(call("add_double", &[d(1.0), i(1)])),
        "no such overload: _+_(double, int)"
    );
}

#[test]
fn concatenation() {
    assert_eq!(ok_string(call("add_string", &[s("he"), s("llo")])), "hello");
    assert_eq!(ok_string(call("add_string", &[s(""), s("abc")])), "abc");
    assert_eq!(ok_string(call("add_string", &[s("abc"), s("")])), "abc");
    assert_eq!(ok_string(call("add_string", &[s("a"), s("ÿ🐱")])), "aÿ🐱");
    assert_eq!(
        ok_bytes(call("add_bytes", &[b(b"abc"), b(b"def")])),
        b"abcdef"
    );
    assert_eq!(
        ok_bytes(call("add_bytes", &[b(b""), b(b"\xffoo")])),
        b"\xffoo"
    );
    let l = call("add_list", &[list(vec![i(1)]), list(vec![i(2), s("x")])]).unwrap();
    assert!(l == list(vec![i(1), i(2), s("x")]));
    let json = serde_json::json!([1, 2]);
    let l = call(
        "add_list",
        &[Value::from_json(Box::leak(Box::new(json))), list(vec![])],
    )
    .unwrap();
    assert!(l == list(vec![i(1), i(2)]));
}

#[test]
fn conversions_to_int_and_uint() {
    assert_eq!(ok_int(call("uint64_to_int64", &[u(42)])), 42);
    assert_eq!(
        ok_int(call("uint64_to_int64", &[u(9_223_372_036_854_775_807)])),
        i64::MAX
    );
    assert_eq!(
        err_msg(call("uint64_to_int64", &[u(u64::MAX)])),
        "integer overflow"
    );
    assert_eq!(ok_int(call("double_to_int64", &[d(-123.456)])), -123);
    assert_eq!(ok_int(call("double_to_int64", &[d(1.9)])), 1);
    assert_eq!(ok_int(call("double_to_int64", &[d(-7.9)])), -7);
    assert_eq!(
        ok_int(call("double_to_int64", &[d(36_028_797_018_963_968.0)])),
        36_028_797_018_963_968
    );
    assert_eq!(
        ok_int(call("double_to_int64", &[d(-9_223_372_036_854_774_784.0)])),
        -9_223_372_036_854_774_784
    );
    for bad in [
        9_223_372_036_854_775_807.0,
        -9_223_372_036_854_775_808.0,
        1e99,
        f64::NAN,
        f64::INFINITY,
    ] {
        assert_eq!(
            failure(call("double_to_int64", &[d(bad)])),
            (ErrorKind::Overflow, String::from("integer overflow")),
            "{bad}"
        );
    }
    assert_eq!(ok_int(call("string_to_int64", &[s("987")])), 987);
    assert_eq!(
        ok_int(call("string_to_int64", &[s("-9223372036854775808")])),
        i64::MIN
    );
    for bad in [
        "",
        "1.0",
        " 1",
        "0x10",
        "1e3",
        "9223372036854775808",
        "1_000",
    ] {
        assert_eq!(
            failure(call("string_to_int64", &[s(bad)])),
            (
                ErrorKind::InvalidArgument,
                String::from("type conversion error from 'string' to 'int'")
            ),
            "{bad:?}"
        );
    }
    assert_eq!(ok_int(call("int64_to_int64", &[i(1)])), 1);

    assert_eq!(ok_uint(call("int64_to_uint64", &[i(1729)])), 1729);
    assert_eq!(
        ok_uint(call("int64_to_uint64", &[i(i64::MAX)])),
        9_223_372_036_854_775_807
    );
    assert_eq!(
        failure(call("int64_to_uint64", &[i(-1)])),
        (
            ErrorKind::Overflow,
            String::from("unsigned integer overflow")
        )
    );
    assert_eq!(ok_uint(call("double_to_uint64", &[d(3.75)])), 3);
    assert_eq!(ok_uint(call("double_to_uint64", &[d(25.5)])), 25);
    assert_eq!(ok_uint(call("double_to_uint64", &[d(-0.0)])), 0);
    assert_eq!(
        ok_uint(call("double_to_uint64", &[d(18_446_744_073_709_549_568.0)])),
        18_446_744_073_709_549_568
    );
    for bad in [6.022e23, -0.5, -1.0, 18_446_744_073_709_551_616.0, f64::NAN] {
        assert_eq!(
            err_msg(call("double_to_uint64", &[d(bad)])),
            "unsigned integer overflow",
            "{bad}"
        );
    }
    assert_eq!(ok_uint(call("string_to_uint64", &[s("300")])), 300);
    for bad in ["-1", "+1", "", "18446744073709551616", "1u"] {
        assert_eq!(
            err_msg(call("string_to_uint64", &[s(bad)])),
            "type conversion error from 'string' to 'uint'",
            "{bad:?}"
        );
    }
    assert_eq!(ok_uint(call("uint64_to_uint64", &[u(1)])), 1);
}

#[test]
fn conversions_to_double() {
    assert_eq!(
        ok_double(call("int64_to_double", &[i(1_000_000_000_000)])),
        1e12
    );
    assert_eq!(
        ok_double(call("int64_to_double", &[i(i64::MAX)])),
        9.223_372_036_854_776e18
    );
    assert_eq!(
        ok_double(call("uint64_to_double", &[u(u64::MAX)])),
        1.844_674_407_370_955_2e19
    );
    assert_eq!(ok_double(call("uint64_to_double", &[u(123)])), 123.0);
    let cases = [
        ("0", 0.0),
        ("123", 123.0),
        ("123.456", 123.456),
        ("-987.654", -987.654),
        ("6.02214e23", 6.02214e23),
        ("1.38e-23", 1.38e-23),
        ("-84.32e7", -843_200_000.0),
        ("-5.43e-21", -5.43e-21),
        ("Infinity", f64::INFINITY),
        ("-inf", f64::NEG_INFINITY),
        ("0x1p-2", 0.25),
        ("1_000.5", 1000.5),
    ];
    for (text, want) in cases {
        assert_eq!(
            ok_double(call("string_to_double", &[s(text)])),
            want,
            "{text}"
        );
    }
    let z = ok_double(call("string_to_double", &[s("-0.0")]));
    assert!(z == 0.0 && z.is_sign_negative());
    assert!(ok_double(call("string_to_double", &[s("NaN")])).is_nan());
    for bad in ["", "abc", "1e400", "1.0 ", "--1", "+nan", "0x1"] {
        assert_eq!(
            err_msg(call("string_to_double", &[s(bad)])),
            "type conversion error from 'string' to 'double'",
            "{bad:?}"
        );
    }
    assert_eq!(ok_double(call("double_to_double", &[d(5.5)])), 5.5);
}

#[test]
fn conversions_to_string() {
    assert_eq!(ok_string(call("int64_to_string", &[i(-456)])), "-456");
    assert_eq!(ok_string(call("uint64_to_string", &[u(9876)])), "9876");
    assert_eq!(
        ok_string(call("bool_to_string", &[Value::Bool(true)])),
        "true"
    );
    assert_eq!(
        ok_string(call("bool_to_string", &[Value::Bool(false)])),
        "false"
    );
    let doubles = [
        (123.456, "123.456"),
        (-4.5e-3, "-0.0045"),
        (-1.23e4, "-12300"),
        (1e6, "1e+06"),
        (123_456.0, "123456"),
        (1_234_567.0, "1.234567e+06"),
        (1e-5, "1e-05"),
        (0.0, "0"),
        (f64::INFINITY, "+Inf"),
        (f64::NAN, "NaN"),
    ];
    for (v, want) in doubles {
        assert_eq!(ok_string(call("double_to_string", &[d(v)])), want, "{v}");
    }
    assert_eq!(ok_string(call("bytes_to_string", &[b(b"abc")])), "abc");
    assert_eq!(ok_string(call("bytes_to_string", &[b(b"\xc3\xbf")])), "ÿ");
    assert_eq!(
        failure(call("bytes_to_string", &[b(b"\x00\xff")])),
        (
            ErrorKind::InvalidArgument,
            String::from("invalid UTF-8 in bytes, cannot convert to string")
        )
    );
    assert_eq!(ok_string(call("string_to_string", &[s("hello")])), "hello");
    assert_eq!(
        ok_string(call("timestamp_to_string", &[ts("2009-02-13T23:31:30Z")])),
        "2009-02-13T23:31:30Z"
    );
    assert_eq!(
        ok_string(call("duration_to_string", &[dur("1000000s")])),
        "1000000s"
    );
    assert_eq!(
        err_msg(call("int64_to_string", &[u(1)])),
        "no such overload: string(uint)"
    );
}

#[test]
fn conversions_to_bool_bytes_type_dyn() {
    for t in ["1", "t", "true", "TRUE", "True"] {
        assert!(ok_bool(call("string_to_bool", &[s(t)])), "{t}");
    }
    for f in ["0", "f", "false", "FALSE", "False"] {
        assert!(!ok_bool(call("string_to_bool", &[s(f)])), "{f}");
    }
    for bad in ["TrUe", "FaLsE", "yes", ""] {
        assert_eq!(
            err_msg(call("string_to_bool", &[s(bad)])),
            "type conversion error from 'string' to 'bool'"
        );
    }
    assert!(ok_bool(call("bool_to_bool", &[Value::Bool(true)])));
    assert_eq!(ok_bytes(call("string_to_bytes", &[s("ÿ")])), b"\xc3\xbf");
    assert_eq!(ok_bytes(call("string_to_bytes", &[s("")])), b"");
    assert_eq!(ok_bytes(call("bytes_to_bytes", &[b(b"abc")])), b"abc");
    let type_of = |v: Value<'static>| match call("type", &[v]) {
        Ok(Value::Type(t)) => t,
        other => panic!("{other:?}"),
    };
    assert_eq!(type_of(i(1)), TypeName::new_static("int"));
    assert_eq!(type_of(u(1)), TypeName::new_static("uint"));
    assert_eq!(type_of(s("")), TypeName::new_static("string"));
    assert_eq!(type_of(Value::Null), TypeName::new_static("null_type"));
    assert_eq!(type_of(list(vec![])), TypeName::new_static("list"));
    assert_eq!(
        type_of(ts("2009-02-13T23:31:30Z")),
        TypeName::new_static("google.protobuf.Timestamp")
    );
    assert_eq!(
        type_of(Value::Type(TypeName::new_static("int"))),
        TypeName::new_static("type")
    );
    assert!(call("to_dyn", &[s("x")]).unwrap() == s("x"));
    assert_eq!(
        ok_int(call("timestamp_to_int64", &[ts("2004-09-16T23:59:59Z")])),
        1_095_379_199
    );
    assert_eq!(
        ok_int(call("duration_to_int64", &[dur("1s")])),
        1_000_000_000
    );
}

#[test]
fn logic() {
    assert!(!ok_bool(call("logical_not", &[Value::Bool(true)])));
    assert!(ok_bool(call("logical_not", &[Value::Bool(false)])));
    assert_eq!(
        err_msg(call("logical_not", &[i(1)])),
        "no such overload: !_(int)"
    );
    assert!(!ok_bool(call("not_strictly_false", &[Value::Bool(false)])));
    assert!(ok_bool(call("not_strictly_false", &[Value::Bool(true)])));
    assert!(ok_bool(call("not_strictly_false", &[i(1)])));
}

#[test]
fn strings() {
    let sizes = [
        ("", 0),
        ("A", 1),
        ("ÿ", 1),
        ("four", 4),
        ("πέντε", 5),
        ("🐱😀", 2),
    ];
    for (text, n) in sizes {
        assert_eq!(ok_int(call("size_string", &[s(text)])), n);
        assert_eq!(ok_int(call("string_size", &[s(text)])), n);
    }
    assert_eq!(ok_int(call("size_bytes", &[b(b"abc")])), 3);
    assert_eq!(ok_int(call("bytes_size", &[b(b"\xc3\xbf")])), 2);
    assert_eq!(ok_int(call("size_list", &[list(vec![i(1), i(2)])])), 2);
    assert_eq!(ok_int(call("list_size", &[list(vec![])])), 0);
    assert_eq!(ok_int(call("size_map", &[map(vec![(s("a"), i(1))])])), 1);
    assert_eq!(ok_int(call("map_size", &[map(vec![])])), 0);
    assert_eq!(
        err_msg(call("size_string", &[b(b"x")])),
        "no such overload: size(bytes)"
    );
    // (function, string, argument, result)
    let tests = [
        ("starts_with_string", "foobar", "foo", true),
        ("starts_with_string", "foobar", "bar", false),
        ("starts_with_string", "", "foo", false),
        ("starts_with_string", "foobar", "", true),
        ("starts_with_string", "", "", true),
        ("starts_with_string", "завтра", "за", true),
        ("starts_with_string", "🐱😀😛", "🐱", true),
        ("ends_with_string", "foobar", "bar", true),
        ("ends_with_string", "foobar", "foo", false),
        ("ends_with_string", "", "foo", false),
        ("ends_with_string", "foobar", "", true),
        ("ends_with_string", "forté", "té", true),
        ("ends_with_string", "🐱😀😛", "😛", true),
        ("contains_string", "hello", "he", true),
        ("contains_string", "hello", "", true),
        ("contains_string", "hello", "ol", false),
        ("contains_string", "abababc", "ababc", true),
        ("contains_string", "Straße", "aß", true),
        ("contains_string", "", "something", false),
        ("contains_string", "", "", true),
    ];
    for (id, x, y, want) in tests {
        assert_eq!(ok_bool(call(id, &[s(x), s(y)])), want, "{id} {x} {y}");
    }
    assert_eq!(
        err_msg(call("contains_string", &[s("a"), i(1)])),
        "no such overload: contains(string, int)"
    );
}

#[test]
fn regular_expressions() {
    let cases = [
        ("hubba", "ubb", true),
        ("", "foo|bar", false),
        ("cows", "", true),
        ("", "", true),
        ("abcd", "bc", true),
        ("grey", "gr(a|e)y", true),
        ("banana", "ba(na)*", true),
        ("mañana", "a+ñ+a+", true),
        ("🐱😀😀", "(a|😀){2}", true),
        ("123-456", "^[0-9]+(-[0-9]+)?$", true),
        ("hello", "^h.*o$", true),
        ("٣", r"^\d$", false),
        ("k8s-node-1", r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", true),
        ("Kube", "(?i)^kube$", true),
    ];
    for (text, pattern, want) in cases {
        assert_eq!(
            ok_bool(call("matches_string", &[s(text), s(pattern)])),
            want,
            "{pattern}"
        );
        assert_eq!(
            ok_bool(call("matches", &[s(text), s(pattern)])),
            want,
            "{pattern}"
        );
    }
    assert_eq!(
        failure(call("matches_string", &[s("x"), s("(")])),
        (
            ErrorKind::InvalidArgument,
            String::from("error parsing regexp: missing closing ): `(`")
        )
    );
    assert_eq!(
        err_msg(call("matches", &[s("x"), s("a**")])),
        "error parsing regexp: invalid nested repetition operator: `**`"
    );
    assert_eq!(
        err_msg(call("matches", &[s("x"), i(1)])),
        "no such overload: matches(string, int)"
    );
}

#[test]
fn equality() {
    let eq = |x: Value<'static>, y: Value<'static>| {
        let e = ok_bool(call("equals", &[x.clone(), y.clone()]));
        assert_eq!(ok_bool(call("not_equals", &[x, y])), !e);
        e
    };
    assert!(eq(i(1), d(1.0)));
    assert!(eq(u(1), i(1)));
    assert!(eq(d(1.0), u(1)));
    assert!(!eq(d(1.5), i(1)));
    assert!(!eq(d(f64::NAN), d(f64::NAN)));
    assert!(eq(d(-0.0), d(0.0)));
    // cel-go compares a double with an integer converted to double.
    assert!(eq(i(i64::MAX), d(9_223_372_036_854_775_808.0)));
    assert!(eq(i(9_007_199_254_740_993), d(9_007_199_254_740_992.0)));
    assert!(eq(u(u64::MAX), d(18_446_744_073_709_551_616.0)));
    assert!(!eq(i(-1), u(u64::MAX)));
    assert!(eq(b(b"\xc3\xbf"), b("ÿ".as_bytes())));
    assert!(!eq(b(b"abc"), b(b"abcd")));
    assert!(!eq(s("a"), b(b"a")));
    assert!(!eq(i(1), s("1")));
    assert!(eq(Value::Null, Value::Null));
    assert!(!eq(list(vec![]), Value::Null));
    assert!(eq(
        list(vec![d(1.0), i(2), i(3)]),
        list(vec![u(1), i(2), u(3)])
    ));
    assert!(!eq(list(vec![d(1.0), d(2.1)]), list(vec![u(1), i(2)])));
    assert!(eq(
        map(vec![(i(1), d(1.0)), (u(2), u(3))]),
        map(vec![(u(1), i(1)), (i(2), d(3.0))])
    ));
    assert!(!eq(
        map(vec![(s("k"), s("v"))]),
        map(vec![(s("k"), s("v1"))])
    ));
    assert!(eq(
        ts("2009-02-13T23:31:30Z"),
        ts("2009-02-14T01:31:30+02:00")
    ));
    assert!(!eq(dur("60s"), dur("3600s")));
    assert!(eq(dur("1h"), dur("60m")));
    assert!(eq(
        Value::Type(TypeName::new_static("int")),
        Value::Type(TypeName::new_static("int"))
    ));
}

#[test]
fn relations() {
    let t = |id: &str, x: Value<'static>, y: Value<'static>| ok_bool(call(id, &[x, y]));
    assert!(t("less_int64", i(-1), i(0)));
    assert!(!t("less_int64", i(0), i(0)));
    assert!(t("less_uint64", u(0), u(1)));
    assert!(t("less_double", d(1.0), d(1.000_000_1)));
    assert!(!t("less_double", d(-0.0), d(0.0)));
    assert!(t("less_string", s("a"), s("b")));
    assert!(t("less_string", s("Abc"), s("aBC")));
    assert!(t("less_string", s("a"), s("á")));
    assert!(!t("less_string", s("a"), s("AB")));
    assert!(t("less_string", s("f"), s("\u{1EBF}")));
    assert!(t("less_bytes", b(b"a"), b(b"b")));
    assert!(!t("less_bytes", b("á".as_bytes()), b(b"b")));
    assert!(t("less_bool", Value::Bool(false), Value::Bool(true)));
    assert!(!t("less_bool", Value::Bool(true), Value::Bool(false)));
    assert!(t("greater_string", s("α"), s("omega")));
    assert!(t("greater_bytes", b(b"\x00"), b(b"")));
    assert!(!t("greater_bytes", b(b"\x00\x01"), b(b"\x01")));
    assert!(t("less_equals_string", s(""), s("")));
    assert!(!t("less_equals_bytes", b(b"\x01\x00"), b(b"\x01")));
    assert!(t(
        "greater_equals_bool",
        Value::Bool(true),
        Value::Bool(false)
    ));
    assert!(t(
        "less_timestamp",
        ts("2009-02-13T23:00:00Z"),
        ts("2009-03-13T23:00:00Z")
    ));
    assert!(t(
        "less_equals_timestamp",
        ts("2009-02-13T23:00:00Z"),
        ts("2009-02-13T23:00:00Z")
    ));
    assert!(!t(
        "greater_equals_timestamp",
        ts("2009-02-13T22:58:00Z"),
        ts("2009-02-13T23:00:00Z")
    ));
    assert!(t(
        "greater_timestamp",
        ts("2009-02-13T23:59:00Z"),
        ts("2009-02-13T23:00:00Z")
    ));
    assert!(t("less_duration", dur("200s"), dur("300s")));
    assert!(!t("less_equals_duration", dur("300s"), dur("200s")));
    assert!(t("greater_duration", dur("1ms"), dur("1us")));
    assert!(t("greater_equals_duration", dur("60s"), dur("1m")));
}

#[test]
fn cross_type_numeric_relations() {
    let t = |id: &str, x: Value<'static>, y: Value<'static>| ok_bool(call(id, &[x, y]));
    // The cel-spec comparisons suite.
    assert!(t("less_int64_uint64", i(1), u(2)));
    assert!(t("less_int64_double", i(1), d(2.0)));
    assert!(t("less_uint64_int64", u(1), i(2)));
    assert!(t("less_uint64_double", u(1), d(2.0)));
    assert!(t("less_double_int64", d(1.0), i(2)));
    assert!(t("less_double_uint64", d(1.0), u(2)));
    assert!(!t("less_int64_uint64", i(1), u(1)));
    assert!(!t("less_int64_double", i(1), d(1.0)));
    assert!(t("less_int64_uint64", i(1), u(9_223_372_036_854_775_808)));
    assert!(t("less_int64_uint64", i(-1), u(0)));
    assert!(!t(
        "less_int64_double",
        i(i64::MAX),
        d(9_223_372_036_854_775_808.0)
    ));
    assert!(t(
        "less_int64_double",
        i(i64::MAX),
        d(9_223_372_036_854_777_857.0)
    ));
    assert!(!t(
        "less_int64_double",
        i(i64::MAX),
        d(-9_223_372_036_854_777_857.0)
    ));
    assert!(!t(
        "less_int64_double",
        i(i64::MIN),
        d(-9_223_372_036_854_775_809.0)
    ));
    assert!(!t("less_uint64_int64", u(1), i(i64::MIN)));
    assert!(!t("less_uint64_int64", u(9_223_372_036_854_775_808), i(1)));
    assert!(!t("less_uint64_double", u(u64::MAX), d(-1.0)));
    assert!(t(
        "less_uint64_double",
        u(u64::MAX),
        d(18_446_744_073_709_590_000.0)
    ));
    assert!(!t(
        "less_double_uint64",
        d(18_446_744_073_709_553_665.0),
        u(u64::MAX)
    ));
    assert!(!t(
        "less_double_int64",
        d(9_223_372_036_854_775_808.0),
        i(i64::MAX)
    ));
    assert!(!t(
        "less_double_int64",
        d(-9_223_372_036_854_775_809.0),
        i(i64::MIN)
    ));
    assert!(t("greater_int64_uint64", i(2), u(1)));
    assert!(!t(
        "greater_int64_uint64",
        i(1),
        u(9_223_372_036_854_775_808)
    ));
    assert!(!t("greater_int64_uint64", i(-1), u(0)));
    assert!(!t(
        "greater_int64_double",
        i(i64::MAX),
        d(9_223_372_036_854_775_808.0)
    ));
    assert!(t(
        "greater_int64_double",
        i(i64::MIN),
        d(-9_223_372_036_854_777_857.0)
    ));
    assert!(t("greater_uint64_int64", u(1), i(-1)));
    assert!(t(
        "greater_uint64_double",
        u(9_223_372_036_854_775_807),
        d(-1.0)
    ));
    assert!(!t(
        "greater_uint64_double",
        u(u64::MAX),
        d(18_446_744_073_709_590_000.0)
    ));
    assert!(t(
        "greater_double_uint64",
        d(18_446_744_073_709_553_665.0),
        u(u64::MAX)
    ));
    assert!(t(
        "less_equals_int64_double",
        i(i64::MAX),
        d(9_223_372_036_854_775_808.0)
    ));
    assert!(t(
        "less_equals_int64_double",
        i(i64::MIN),
        d(-9_223_372_036_854_775_809.0)
    ));
    assert!(!t(
        "less_equals_int64_double",
        i(i64::MIN),
        d(-9_223_372_036_854_777_857.0)
    ));
    assert!(t(
        "less_equals_double_int64",
        d(9_223_372_036_854_775_808.0),
        i(i64::MAX)
    ));
    assert!(t("greater_equals_uint64_double", u(2), d(1.9)));
    assert!(t("greater_equals_double_uint64", d(2.3), u(2)));
    // NaN cannot be ordered.
    let nan = (
        ErrorKind::InvalidArgument,
        String::from("NaN values cannot be ordered"),
    );
    assert_eq!(failure(call("less_double", &[d(f64::NAN), d(1.0)])), nan);
    assert_eq!(
        failure(call("greater_equals_double", &[d(1.0), d(f64::NAN)])),
        nan
    );
    assert_eq!(
        failure(call("less_int64_double", &[i(1), d(f64::NAN)])),
        nan
    );
    assert_eq!(
        failure(call("greater_double_uint64", &[d(f64::NAN), u(1)])),
        nan
    );
    // Each overload accepts only its own operand types.
    assert_eq!(
        err_msg(call("less_int64", &[i(1), u(2)])),
        "no such overload: _<_(int, uint)"
    );
    assert_eq!(
        err_msg(call("less_int64_uint64", &[u(1), i(2)])),
        "no such overload: _<_(uint, int)"
    );
    assert_eq!(
        err_msg(call("greater_equals_string", &[s("foo"), i(1024)])),
        "no such overload: _>=_(string, int)"
    );
    assert_eq!(
        err_msg(call("less_equals_bool", &[Value::Null, Value::Null])),
        "no such overload: _<=_(null_type, null_type)"
    );
}

#[test]
fn membership() {
    let l = list(vec![i(1), s("two"), d(3.0)]);
    let t = |x: Value<'static>, c: &Value<'static>, id: &str| ok_bool(call(id, &[x, c.clone()]));
    assert!(t(i(1), &l, "in_list"));
    assert!(t(u(3), &l, "in_list"));
    assert!(t(d(1.0), &l, "in_list"));
    assert!(t(s("two"), &l, "in_list"));
    assert!(!t(s("one"), &l, "in_list"));
    assert!(!t(d(f64::NAN), &list(vec![d(f64::NAN)]), "in_list"));
    assert!(!t(i(1), &list(vec![]), "in_list"));
    let m = map(vec![
        (s("key1"), s("v")),
        (i(1), s("one")),
        (u(2), s("two")),
        (Value::Bool(true), i(0)),
    ]);
    assert!(t(s("key1"), &m, "in_map"));
    assert!(!t(s("key2"), &m, "in_map"));
    assert!(t(u(1), &m, "in_map"));
    assert!(t(d(1.0), &m, "in_map"));
    assert!(!t(d(1.5), &m, "in_map"));
    assert!(t(i(2), &m, "in_map"));
    assert!(t(Value::Bool(true), &m, "in_map"));
    assert!(!t(list(vec![]), &m, "in_map"));
    let json = Box::leak(Box::new(serde_json::json!({"a": 1, "1": 2})));
    let jm = Value::from_json(json);
    assert!(t(s("a"), &jm, "in_map"));
    assert!(!t(i(1), &jm, "in_map"));
    let jl = Value::from_json(Box::leak(Box::new(serde_json::json!([1, "x", 2.5]))));
    assert!(t(d(1.0), &jl, "in_list"));
    assert!(t(s("x"), &jl, "in_list"));
    assert!(t(d(2.5), &jl, "in_list"));
    assert_eq!(
        err_msg(call("in_list", &[i(1), m.clone()])),
        "no such overload: @in(int, map)"
    );
    assert_eq!(
        err_msg(call("in_map", &[i(1), l])),
        "no such overload: @in(int, list)"
    );
}

#[test]
fn indexing() {
    let l = list(vec![i(10), s("x"), d(3.5)]);
    assert_eq!(ok_int(call("index_list", &[l.clone(), i(0)])), 10);
    assert_eq!(ok_string(call("index_list", &[l.clone(), u(1)])), "x");
    assert_eq!(ok_double(call("index_list", &[l.clone(), d(2.0)])), 3.5);
    let range = |r: R| failure(r);
    assert_eq!(
        range(call("index_list", &[l.clone(), i(3)])),
        (
            ErrorKind::IndexOutOfRange,
            String::from("index '3' out of range in list size '3'")
        )
    );
    assert_eq!(
        range(call("index_list", &[l.clone(), i(-1)])),
        (
            ErrorKind::IndexOutOfRange,
            String::from("index '-1' out of range in list size '3'")
        )
    );
    assert_eq!(
        err_msg(call("index_list", &[l.clone(), d(1.5)])),
        "unsupported index value 1.5 in list"
    );
    assert_eq!(
        err_msg(call("index_list", &[l.clone(), d(1e20)])),
        "unsupported index value 1e+20 in list"
    );
    assert_eq!(
        err_msg(call("index_list", &[l.clone(), u(u64::MAX)])),
        "unsupported index value 18446744073709551615 in list"
    );
    assert_eq!(
        failure(call("index_list", &[l.clone(), s("0")])),
        (
            ErrorKind::InvalidArgument,
            String::from("unsupported index type 'string' in list")
        )
    );
    assert_eq!(
        err_msg(call("index_list", &[l.clone(), list(vec![])])),
        "unsupported index type 'list(dyn)' in list"
    );
    let jl = Value::from_json(Box::leak(Box::new(serde_json::json!(["a", {"b": 1}]))));
    assert_eq!(ok_string(call("index_list", &[jl, i(0)])), "a");

    let m = map(vec![
        (s("key"), s("value")),
        (i(1), s("one")),
        (u(2), s("two")),
    ]);
    assert_eq!(
        ok_string(call("index_map", &[m.clone(), s("key")])),
        "value"
    );
    assert_eq!(ok_string(call("index_map", &[m.clone(), u(1)])), "one");
    assert_eq!(ok_string(call("index_map", &[m.clone(), d(2.0)])), "two");
    assert_eq!(
        failure(call("index_map", &[m.clone(), s("missing")])),
        (ErrorKind::NoSuchKey, String::from("no such key: missing"))
    );
    assert_eq!(
        err_msg(call("index_map", &[m.clone(), i(3)])),
        "no such key: 3"
    );
    assert_eq!(
        err_msg(call("index_map", &[m.clone(), d(1.5)])),
        "no such key: 1.5"
    );
    assert_eq!(
        err_msg(call("index_map", &[m.clone(), Value::Bool(true)])),
        "no such key: true"
    );
    let jm = Value::from_json(Box::leak(Box::new(serde_json::json!({"a": [1, 2]}))));
    assert_eq!(
        ok_int(call(
            "index_list",
            &[call("index_map", &[jm.clone(), s("a")]).unwrap(), i(1)]
        )),
        2
    );
    assert_eq!(err_msg(call("index_map", &[jm, i(1)])), "no such key: 1");
    assert_eq!(
        err_msg(call("index_map", &[l, s("a")])),
        "no such overload: _[_](list, string)"
    );
    assert_eq!(
        err_msg(call("index_list", &[m, i(0)])),
        "no such overload: _[_](map, int)"
    );
}

#[test]
fn timestamps_through_the_registry() {
    let t = ts("2009-02-13T23:31:30Z");
    assert_eq!(
        ok_int(call("timestamp_to_day_of_week", std::slice::from_ref(&t))),
        5
    );
    // Named zones need the time zone database.
    #[cfg(feature = "tz")]
    {
        assert_eq!(
            ok_int(call(
                "timestamp_to_day_of_month_1_based_with_tz",
                &[t.clone(), s("Australia/Sydney")]
            )),
            14
        );
        assert_eq!(
            ok_int(call(
                "timestamp_to_minutes_with_tz",
                &[t.clone(), s("Asia/Kathmandu")]
            )),
            16
        );
    }
    let later = call("add_timestamp_duration", &[t.clone(), dur("240s")]).unwrap();
    assert!(later == ts("2009-02-13T23:35:30Z"));
    assert!(matches!(
        later,
        Value::Timestamp(Timestamp {
            secs: 1_234_568_130,
            nanos: 0,
            ..
        })
    ));
    assert_eq!(
        err_msg(call("string_to_timestamp", &[s("2009-02-13T23:31:30")])),
        "type conversion error from 'string' to 'google.protobuf.Timestamp'"
    );
}
