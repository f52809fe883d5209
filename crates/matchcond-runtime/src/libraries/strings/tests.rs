//! The strings extension: its declarations by version, and its functions through their
//! overload ids (`string.format` at the end), with the expectations of cel-go's `ext` tests
//! and doc comments, Kubernetes' library tests and the cel-spec suites.

use super::library;
use crate::error::ErrorKind;
use crate::libraries::Behaviours;
use crate::test_util::*;
use crate::value::{Duration, Timestamp, Value};

#[test]
fn strings_versions() {
    let v0 = declared_ids(&library(0));
    assert!(v0.contains(&"list_join"));
    assert!(!v0.contains(&"string_format"));
    assert!(!v0.contains(&"strings_quote"));
    let v2 = declared_ids(&library(2));
    assert!(v2.contains(&"string_format"));
    assert!(v2.contains(&"strings_quote"));
    assert!(!v2.contains(&"string_reverse"));
    assert_eq!(v2.len(), v0.len() + 2);
    assert!(declared_ids(&library(3)).contains(&"string_reverse"));
    assert!(declared(&library(2)).contains(&("strings.quote", "strings_quote", false)));
}

// The functions, through their overload ids.

#[test]
fn char_at() {
    assert_eq!(ok("string_char_at_int", vec![s("tacocat"), i(3)]), "\"o\"");
    assert_eq!(ok("string_char_at_int", vec![s("tacocat"), i(7)]), "\"\"");
    assert_eq!(ok("string_char_at_int", vec![s("hello"), i(4)]), "\"o\"");
    assert_eq!(ok("string_char_at_int", vec![s("hello"), i(5)]), "\"\"");
    assert_eq!(ok("string_char_at_int", vec![s("©αT"), i(0)]), "\"©\"");
    assert_eq!(ok("string_char_at_int", vec![s("©αT"), i(1)]), "\"α\"");
    assert_eq!(ok("string_char_at_int", vec![s("©αT"), i(2)]), "\"T\"");
    assert_eq!(ok("string_char_at_int", vec![s(""), i(0)]), "\"\"");
    assert_eq!(
        err("string_char_at_int", vec![s("tacocat"), i(30)]),
        "index out of range: 30"
    );
    assert_eq!(
        err("string_char_at_int", vec![s("hello"), i(-1)]),
        "index out of range: -1"
    );
    assert_eq!(
        err_kind("string_char_at_int", vec![s("hello"), i(-1)]),
        ErrorKind::IndexOutOfRange
    );
    assert_eq!(
        err_kind("string_char_at_int", vec![i(42), i(2)]),
        ErrorKind::NoSuchOverload
    );
    assert_eq!(
        err_kind("string_char_at_int", vec![s("hello"), b(true)]),
        ErrorKind::NoSuchOverload
    );
}

#[test]
fn index_of() {
    let idx = |h: &str, n: &str| ok("string_index_of_string", vec![s(h), s(n)]);
    let idx_at =
        |h: &str, n: &str, o: i64| ok("string_index_of_string_int", vec![s(h), s(n), i(o)]);
    assert_eq!(idx("tacocat", ""), "0");
    assert_eq!(idx("tacocat", "ac"), "1");
    assert_eq!(idx("tacocat", "none"), "-1");
    assert_eq!(idx_at("tacocat", "", 3), "3");
    assert_eq!(idx_at("tacocat", "a", 3), "5");
    assert_eq!(idx_at("tacocat", "at", 3), "5");
    assert_eq!(idx("ta©o©αT", "©"), "2");
    assert_eq!(idx_at("ta©o©αT", "©", 3), "4");
    assert_eq!(idx_at("ta©o©αT", "©αT", 3), "4");
    assert_eq!(idx_at("ta©o©αT", "©α", 5), "-1");
    assert_eq!(idx("ijk", "k"), "2");
    assert_eq!(idx("hello wello", "hello wello"), "0");
    assert_eq!(idx_at("hello wello", "ello", 6), "7");
    assert_eq!(idx("hello wello", "elbo room!!"), "-1");
    assert_eq!(idx("hello wello", "elbo room!!!"), "-1");
    assert_eq!(idx("hello mellow", ""), "0");
    assert_eq!(idx("hello mellow", "ello"), "1");
    assert_eq!(idx("hello mellow", "jello"), "-1");
    assert_eq!(idx_at("hello mellow", "", 2), "2");
    assert_eq!(idx_at("hello mellow", "ello", 2), "7");
    assert_eq!(idx_at("hello mellow", "ello", 20), "-1");
    assert_eq!(idx_at("tacocat", "a", 30), "-1");
    assert_eq!(idx_at("tacocat", "", 7), "7");
    // The empty string matches at the offset, unchecked.
    assert_eq!(idx_at("tacocat", "", 30), "30");
    assert_eq!(idx_at("tacocat", "", -1), "-1");
    assert_eq!(idx("", "a"), "-1");
    assert_eq!(idx("", ""), "0");
    assert_eq!(
        err(
            "string_index_of_string_int",
            vec![s("hello mellow"), s("ello"), i(-1)]
        ),
        "index out of range: -1"
    );
    for args in [vec![i(24), s("2")], vec![s("hello"), b(true)]] {
        assert_eq!(
            err_kind("string_index_of_string", args),
            ErrorKind::NoSuchOverload
        );
    }
    for args in [
        vec![i(42), s("4"), i(0)],
        vec![s("42"), i(4), i(0)],
        vec![s("42"), s("4"), s("0")],
    ] {
        assert_eq!(
            err_kind("string_index_of_string_int", args),
            ErrorKind::NoSuchOverload
        );
    }
}

#[test]
fn last_index_of() {
    let idx = |h: &str, n: &str| ok("string_last_index_of_string", vec![s(h), s(n)]);
    let idx_at =
        |h: &str, n: &str, o: i64| ok("string_last_index_of_string_int", vec![s(h), s(n), i(o)]);
    assert_eq!(idx("", "@@"), "-1");
    assert_eq!(idx("tacocat", ""), "7");
    assert_eq!(idx("tacocat", "at"), "5");
    assert_eq!(idx("tacocat", "none"), "-1");
    assert_eq!(idx_at("tacocat", "", 3), "3");
    assert_eq!(idx_at("tacocat", "a", 3), "1");
    assert_eq!(idx("ta©o©αT", "©"), "4");
    assert_eq!(idx_at("ta©o©αT", "©", 3), "2");
    assert_eq!(idx_at("ta©o©αT", "©α", 4), "4");
    assert_eq!(idx_at("hello wello", "ello", 6), "1");
    assert_eq!(idx("hello wello", "low"), "-1");
    assert_eq!(idx("hello wello", "elbo room!!"), "-1");
    assert_eq!(idx("hello wello", "elbo room!!!"), "-1");
    assert_eq!(idx("hello wello", "hello wello"), "0");
    assert_eq!(idx_at("bananananana", "nana", 7), "6");
    assert_eq!(idx("hello mellow", ""), "12");
    assert_eq!(idx("hello mellow", "ello"), "7");
    assert_eq!(idx("hello mellow", "jello"), "-1");
    assert_eq!(idx_at("hello mellow", "ello", 6), "1");
    assert_eq!(idx_at("hello mellow", "ello", 20), "-1");
    assert_eq!(idx_at("tacocat", "a", 30), "-1");
    assert_eq!(idx_at("tacocat", "", 7), "7");
    assert_eq!(idx_at("tacocat", "", 30), "30");
    assert_eq!(idx_at("tacocat", "", -1), "-1");
    assert_eq!(idx_at("abc", "bc", 0), "-1");
    assert_eq!(idx_at("abcabc", "abc", 2), "0");
    assert_eq!(idx("©", "©©"), "-1");
    assert_eq!(
        err(
            "string_last_index_of_string_int",
            vec![s("tacocat"), s("a"), i(-1)]
        ),
        "index out of range: -1"
    );
}

/// What each cel-go release makes of offsets past the end (`StringOffsets`).
#[test]
fn index_offsets_by_cel_go_version() {
    use crate::libraries::StringOffsets::*;
    let call = |offsets,
                f: fn(Behaviours) -> crate::libraries::Implementation,
                args: &[Value<'static>]| {
        match f(Behaviours::new().with_string_offsets(offsets))(args) {
            Ok(v) => format!("{v:?}"),
            Err(e) => e.to_string(),
        }
    };
    let index_of = super::index_of_by;
    let last = super::last_index_of_by;
    let last_at = super::last_index_of_offset_by;
    // 1.30 and 1.31 (cel-go v0.17, v0.20): past the end is an error.
    assert_eq!(
        call(PastEndIsError, index_of, &[s(""), s("a")]),
        "index out of range: 0"
    );
    assert_eq!(
        call(PastEndIsError, last_at, &[s("ab"), s("abc"), i(5)]),
        "index out of range: 5"
    );
    assert_eq!(
        call(PastEndIsError, index_of, &[s("abc"), s(""), i(10)]),
        "Int(10)"
    );
    // 1.32 and 1.33 (v0.22, v0.23): nothing is found past the end, but `lastIndexOf`
    // starts at the last code point, -1 for an empty string.
    assert_eq!(call(PastEndNotFound, index_of, &[s(""), s("a")]), "Int(-1)");
    assert_eq!(
        call(PastEndNotFound, last_at, &[s("ab"), s("abc"), i(5)]),
        "Int(-1)"
    );
    assert_eq!(
        call(PastEndNotFound, last, &[s(""), s("a")]),
        "index out of range: -1"
    );
    assert_eq!(
        call(PastEndIsError, last, &[s(""), s("a")]),
        "index out of range: -1"
    );
    // 1.34 and newer (v0.26+): a longer substring is not found.
    assert_eq!(call(LongerNotFound, last, &[s(""), s("a")]), "Int(-1)");
    for offsets in [PastEndIsError, PastEndNotFound, LongerNotFound] {
        assert_eq!(
            call(offsets, index_of, &[s("abc"), s(""), i(-1)]),
            "Int(-1)"
        );
        assert_eq!(call(offsets, last_at, &[s("abc"), s(""), i(10)]), "Int(10)");
        assert_eq!(
            call(offsets, index_of, &[s("abc"), s("b"), i(-1)]),
            "index out of range: -1"
        );
    }
}

#[test]
fn ascii_casing() {
    assert_eq!(ok("string_lower_ascii", vec![s("TacoCat")]), "\"tacocat\"");
    assert_eq!(ok("string_lower_ascii", vec![s("TacoCÆt")]), "\"tacocÆt\"");
    assert_eq!(
        ok("string_lower_ascii", vec![s("TacoCÆt Xii")]),
        "\"tacocÆt xii\""
    );
    assert_eq!(ok("string_upper_ascii", vec![s("tacoCat")]), "\"TACOCAT\"");
    assert_eq!(ok("string_upper_ascii", vec![s("tacoCαt")]), "\"TACOCαT\"");
    assert_eq!(
        ok("string_upper_ascii", vec![s("TacoCÆt Xii")]),
        "\"TACOCÆT XII\""
    );
    assert_eq!(ok("string_upper_ascii", vec![s("TacoCat")]), "\"TACOCAT\"");
}

#[test]
fn replace() {
    let r = |x: &str, a: &str, c: &str| ok("string_replace_string_string", vec![s(x), s(a), s(c)]);
    let rn = |x: &str, a: &str, c: &str, n: i64| {
        ok(
            "string_replace_string_string_int",
            vec![s(x), s(a), s(c), i(n)],
        )
    };
    assert_eq!(r("12 days 12 hours", "{0}", "2"), "\"12 days 12 hours\"");
    assert_eq!(r("{0} days {0} hours", "{0}", "2"), "\"2 days 2 hours\"");
    assert_eq!(
        rn("{0} days {0} hours", "{0}", "2", 1),
        "\"2 days {0} hours\""
    );
    assert_eq!(r("2 days {0} hours", "{0}", "23"), "\"2 days 23 hours\"");
    assert_eq!(r("1 ©αT taco", "αT", "o©α"), "\"1 ©o©α taco\"");
    assert_eq!(r("hello hello", "", "_"), "\"_h_e_l_l_o_ _h_e_l_l_o_\"");
    assert_eq!(r("hello hello", "h", ""), "\"ello ello\"");
    assert_eq!(r("hello hello", "he", "we"), "\"wello wello\"");
    assert_eq!(rn("hello hello", "he", "we", -1), "\"wello wello\"");
    assert_eq!(rn("hello hello", "he", "we", 1), "\"wello hello\"");
    assert_eq!(rn("hello hello", "he", "we", 0), "\"hello hello\"");
    assert_eq!(rn("hello", "", "_", 2), "\"_h_ello\"");
    assert_eq!(r("©α", "", "-"), "\"-©-α-\"");
    for args in [
        vec![i(42), i(2), i(1)],
        vec![s("42"), i(2), i(1)],
        vec![s("42"), s("2"), i(1)],
    ] {
        assert_eq!(
            err_kind("string_replace_string_string", args),
            ErrorKind::NoSuchOverload
        );
    }
    for args in [
        vec![i(42), s("2"), s("1"), i(1)],
        vec![s("42"), i(2), s("1"), i(1)],
        vec![s("42"), s("2"), i(1), i(1)],
        vec![s("42"), s("2"), s("1"), s("1")],
    ] {
        assert_eq!(
            err_kind("string_replace_string_string_int", args),
            ErrorKind::NoSuchOverload
        );
    }
}

#[test]
fn split() {
    let sp = |x: &str, sep: &str| ok("string_split_string", vec![s(x), s(sep)]);
    let spn = |x: &str, sep: &str, n: i64| ok("string_split_string_int", vec![s(x), s(sep), i(n)]);
    assert_eq!(sp("hello world", " "), "[\"hello\", \"world\"]");
    assert_eq!(spn("hello world events!", " ", 0), "[]");
    assert_eq!(
        spn("hello world events!", " ", 1),
        "[\"hello world events!\"]"
    );
    assert_eq!(spn("o©o©o©o", "©", -1), "[\"o\", \"o\", \"o\", \"o\"]");
    assert_eq!(
        sp("hello hello hello", " "),
        "[\"hello\", \"hello\", \"hello\"]"
    );
    assert_eq!(
        spn("hello hello hello", " ", 2),
        "[\"hello\", \"hello hello\"]"
    );
    assert_eq!(
        spn("hello hello hello", " ", -1),
        "[\"hello\", \"hello\", \"hello\"]"
    );
    assert_eq!(sp("", ","), "[\"\"]");
    assert_eq!(sp("a,", ","), "[\"a\", \"\"]");
    // An empty separator splits into code points.
    assert_eq!(sp("a©c", ""), "[\"a\", \"©\", \"c\"]");
    assert_eq!(sp("", ""), "[]");
    assert_eq!(spn("abcd", "", 2), "[\"a\", \"bcd\"]");
    assert_eq!(spn("ab", "", 5), "[\"a\", \"b\"]");
    assert_eq!(spn("abcd", "", 0), "[]");
    assert_eq!(
        err_kind("string_split_string", vec![i(42), s("")]),
        ErrorKind::NoSuchOverload
    );
    assert_eq!(
        err_kind("string_split_string_int", vec![s("42"), s("2"), s("1")]),
        ErrorKind::NoSuchOverload
    );
}

#[test]
fn substring() {
    let sub = |x: &str, a: i64| ok("string_substring_int", vec![s(x), i(a)]);
    let sub2 = |x: &str, a: i64, c: i64| ok("string_substring_int_int", vec![s(x), i(a), i(c)]);
    assert_eq!(sub("tacocat", 4), "\"cat\"");
    assert_eq!(sub("tacocat", 7), "\"\"");
    assert_eq!(sub2("tacocat", 0, 4), "\"taco\"");
    assert_eq!(sub2("tacocat", 4, 4), "\"\"");
    assert_eq!(sub2("ta©o©αT", 2, 6), "\"©o©α\"");
    assert_eq!(sub2("ta©o©αT", 7, 7), "\"\"");
    assert_eq!(
        err("string_substring_int", vec![s("tacocat"), i(40)]),
        "index out of range: 40"
    );
    assert_eq!(
        err("string_substring_int", vec![s("tacocat"), i(-1)]),
        "index out of range: -1"
    );
    assert_eq!(
        err("string_substring_int_int", vec![s("tacocat"), i(1), i(50)]),
        "index out of range: 50"
    );
    assert_eq!(
        err("string_substring_int_int", vec![s("tacocat"), i(49), i(50)]),
        "index out of range: 49"
    );
    assert_eq!(
        err("string_substring_int_int", vec![s("tacocat"), i(4), i(3)]),
        "invalid substring range. start: 4, end: 3"
    );
    assert_eq!(
        err("string_substring_int_int", vec![s("tacocat"), i(2), i(1)]),
        "invalid substring range. start: 2, end: 1"
    );
    assert_eq!(
        err("string_substring_int_int", vec![s("tacocat"), i(-2), i(-1)]),
        "index out of range: -2"
    );
    assert_eq!(
        err_kind(
            "string_substring_int_int",
            vec![s("tacocat"), b(true), i(3)]
        ),
        ErrorKind::NoSuchOverload
    );
    assert_eq!(
        err_kind(
            "string_substring_int_int",
            vec![s("tacocat"), i(0), b(false)]
        ),
        ErrorKind::NoSuchOverload
    );
}

#[test]
fn trim() {
    let t = |x: &str| ok("string_trim", vec![s(x)]);
    assert_eq!(t(" \u{c}\n\r\t\u{b}text  "), "\"text\"");
    assert_eq!(t("\u{85}\u{a0}\u{1680}text"), "\"text\"");
    assert_eq!(
        t("text\u{2000}\u{2001}\u{2002}\u{2003}\u{2004}\u{2004}\u{2006}\u{2007}\u{2008}\u{2009}"),
        "\"text\""
    );
    assert_eq!(
        t("\u{200a}text\u{2028}\u{2029}\u{202F}\u{205F}\u{3000}"),
        "\"text\""
    );
    let kept = "\u{180e}text\u{200b}\u{200c}\u{200d}\u{2060}\u{feff}";
    assert_eq!(t(kept), format!("{kept:?}"));
    assert_eq!(t("  \ttrim\n    "), "\"trim\"");
}

#[test]
fn reverse_string() {
    // Version 3 of the extension, which no Kubernetes version enables.
    let ok = |_: &str, args: Vec<Value<'static>>| show(&super::reverse(&args).unwrap());
    assert_eq!(ok("string_reverse", vec![s("gums")]), "\"smug\"");
    assert_eq!(
        ok("string_reverse", vec![s("John Smith")]),
        "\"htimS nhoJ\""
    );
    assert_eq!(ok("string_reverse", vec![s("Ta©oCαt")]), "\"tαCo©aT\"");
    assert_eq!(ok("string_reverse", vec![s("")]), "\"\"");
}

#[test]
fn join() {
    assert_eq!(ok("list_join", vec![strs(&["x", "y"])]), "\"xy\"");
    assert_eq!(
        ok("list_join_string", vec![strs(&["x", "y"]), s("-")]),
        "\"x-y\""
    );
    assert_eq!(ok("list_join", vec![l(vec![])]), "\"\"");
    assert_eq!(ok("list_join_string", vec![l(vec![]), s("-")]), "\"\"");
    assert_eq!(
        ok("list_join_string", vec![strs(&["hello", "mellow"]), s(" ")]),
        "\"hello mellow\""
    );
    assert_eq!(
        err("list_join", vec![l(vec![s("a"), i(1)])]),
        "join: invalid input: 1"
    );
    assert_eq!(
        err("list_join_string", vec![l(vec![s("a"), d(1.5)]), s(",")]),
        "join: invalid input: 1.5"
    );
    assert_eq!(
        err_kind("list_join", vec![ints(&[1])]),
        ErrorKind::NoSuchOverload
    );
    let json = serde_json::json!(["a", "b", "c"]);
    assert_eq!(
        ok(
            "list_join_string",
            vec![Value::from_json(&json).into_owned(), s("/")]
        ),
        "\"a/b/c\""
    );
}

#[test]
fn quote() {
    let q = |x: &str| ok("strings_quote", vec![s(x)]);
    let expect = |x: &str| format!("{x:?}");
    for (text, want) in [
        ("first\nsecond", expect("\"first\\nsecond\"")),
        ("bell\u{7}", expect("\"bell\\a\"")),
        ("\u{8}backspace", expect("\"\\bbackspace\"")),
        ("\u{c}form feed", expect("\"\\fform feed\"")),
        ("carriage \r return", expect("\"carriage \\r return\"")),
        ("horizontal tab\t", expect("\"horizontal tab\\t\"")),
        ("vertical \u{b} tab", expect("\"vertical \\v tab\"")),
        ("double \\\\ slash", expect("\"double \\\\\\\\ slash\"")),
        (
            "two escape sequences \u{7}\n",
            expect("\"two escape sequences \\a\\n\""),
        ),
        ("verbatim", expect("\"verbatim\"")),
        ("ends with \\", expect("\"ends with \\\\\"")),
        ("\\ starts with", expect("\"\\\\ starts with\"")),
        ("printable unicode😀", expect("\"printable unicode😀\"")),
        ("mid string \" quote", expect("\"mid string \\\" quote\"")),
        (
            "single-quote with \"double quote\"",
            expect("\"single-quote with \\\"double quote\\\"\""),
        ),
        ("size('ÿ')", expect("\"size('ÿ')\"")),
        ("завтра", expect("\"завтра\"")),
        ("🐱😀😛", expect("\"🐱😀😛\"")),
        ("ta©o©αT", expect("\"ta©o©αT\"")),
        ("", expect("\"\"")),
        (
            "\u{7} \u{8} \"double quotes\"",
            expect("\"\\a \\b \\\"double quotes\\\"\""),
        ),
        // Other control characters are kept as they are.
        ("\u{0}\u{1b}", expect("\"\u{0}\u{1b}\"")),
    ] {
        assert_eq!(q(text), want, "{text:?}");
    }
}

// `string.format` (version 2).

fn fmt(f: &str, args: Vec<Value<'static>>) -> String {
    ok("string_format", vec![s(f), l(args)])
}

fn fmt_err(f: &str, args: Vec<Value<'static>>) -> String {
    err("string_format", vec![s(f), l(args)])
}

#[test]
fn format_substitutions() {
    let q = |x: &str| format!("{x:?}");
    assert_eq!(fmt("no substitution", vec![]), q("no substitution"));
    assert_eq!(
        fmt("str is %s and some more", vec![s("filler")]),
        q("str is filler and some more")
    );
    assert_eq!(fmt("%% and also %%", vec![]), q("% and also %"));
    assert_eq!(fmt("%%%s%%", vec![s("text")]), q("%text%"));
    assert_eq!(
        fmt("%s%%", vec![s("percent on the right")]),
        q("percent on the right%")
    );
    assert_eq!(
        fmt("%%%s", vec![s("percent on the left")]),
        q("%percent on the left")
    );
    assert_eq!(
        fmt(
            "%d %d %d, %s %s %s, %d %d %d, %s %s %s",
            vec![
                i(1),
                i(2),
                i(3),
                s("A"),
                s("B"),
                s("C"),
                i(4),
                i(5),
                i(6),
                s("D"),
                s("E"),
                s("F")
            ]
        ),
        q("1 2 3, A B C, 4 5 6, D E F")
    );
    assert_eq!(
        fmt("%%escaped %s%%", vec![s("percent")]),
        q("%escaped percent%")
    );
    assert_eq!(
        fmt(
            "this is a string: %s\nand an integer: %d",
            vec![s("str"), i(42)]
        ),
        q("this is a string: str\nand an integer: 42")
    );
    assert_eq!(
        fmt("a double substituted with %%s: %s", vec![d(64.2)]),
        q("a double substituted with %s: 64.2")
    );
}

#[test]
fn format_integers() {
    let q = |x: &str| format!("{x:?}");
    assert_eq!(
        fmt("this is 5 in binary: %b", vec![i(5)]),
        q("this is 5 in binary: 101")
    );
    assert_eq!(
        fmt("this is -5 in binary: %b", vec![i(-5)]),
        q("this is -5 in binary: -101")
    );
    assert_eq!(
        fmt("unsigned 64 in binary: %b", vec![u(64)]),
        q("unsigned 64 in binary: 1000000")
    );
    assert_eq!(
        fmt("bit set from bool: %b", vec![b(true)]),
        q("bit set from bool: 1")
    );
    assert_eq!(fmt("%b", vec![b(false)]), q("0"));
    assert_eq!(fmt("%o", vec![i(11)]), q("13"));
    assert_eq!(fmt("%o", vec![i(-11)]), q("-13"));
    assert_eq!(
        fmt("this is an unsigned octal: %o", vec![u(65535)]),
        q("this is an unsigned octal: 177777")
    );
    assert_eq!(
        fmt("%x is 30 in hexadecimal", vec![i(30)]),
        q("1e is 30 in hexadecimal")
    );
    assert_eq!(
        fmt("%X is 20 in hexadecimal", vec![i(30)]),
        q("1E is 20 in hexadecimal")
    );
    assert_eq!(
        fmt("%x is -30 in hexadecimal", vec![i(-30)]),
        q("-1e is -30 in hexadecimal")
    );
    assert_eq!(
        fmt("%X is 6000 in hexadecimal", vec![u(6000)]),
        q("1770 is 6000 in hexadecimal")
    );
    assert_eq!(
        fmt("%x", vec![s("Hello world!")]),
        q("48656c6c6f20776f726c6421")
    );
    assert_eq!(
        fmt("%X", vec![s("Hello world!")]),
        q("48656C6C6F20776F726C6421")
    );
    assert_eq!(
        fmt("%x", vec![by(b"byte string")]),
        q("6279746520737472696e67")
    );
    assert_eq!(
        fmt("%x", vec![by(b"\x00\x00byte string\x00")]),
        q("00006279746520737472696e6700")
    );
    assert_eq!(
        fmt("%X", vec![by(b"byte string")]),
        q("6279746520737472696E67")
    );
    assert_eq!(fmt("%d", vec![u(64)]), q("64"));
    assert_eq!(fmt("%d", vec![i(i64::MIN)]), q("-9223372036854775808"));
    assert_eq!(fmt("%o", vec![i(i64::MIN)]), q("-1000000000000000000000"));
    assert_eq!(fmt("26 in hex: %x", vec![i(26)]), q("26 in hex: 1a"));
    assert_eq!(fmt("30 in octal: %o", vec![i(30)]), q("30 in octal: 36"));
    // The precision is parsed but not used by %d.
    assert_eq!(fmt("%.3d", vec![i(7)]), q("7"));
    let json = serde_json::json!([22, 26]);
    assert_eq!(
        ok(
            "string_format",
            vec![s("%x %X"), Value::from_json(&json).into_owned()]
        ),
        q("16 1A")
    );
}

#[test]
fn format_doubles() {
    let q = |x: &str| format!("{x:?}");
    assert_eq!(fmt("%.3f", vec![d(1.2345)]), q("1.234"));
    assert_eq!(fmt("%f", vec![d(2.71828)]), q("2.718280"));
    assert_eq!(fmt("%f", vec![d(3.14)]), q("3.140000"));
    assert_eq!(
        fmt("dynamic double: %.3f", vec![d(4.5)]),
        q("dynamic double: 4.500")
    );
    assert_eq!(fmt("%.0f", vec![d(123.0)]), q("123"));
    assert_eq!(fmt("%.0f", vec![d(3.5001)]), q("4"));
    assert_eq!(fmt("%.0f", vec![d(3.4999)]), q("3"));
    assert_eq!(fmt("%.0f", vec![d(1.5)]), q("2"));
    assert_eq!(fmt("%.0f", vec![d(2.5)]), q("2"));
    assert_eq!(fmt("%.3f", vec![d(123.4999)]), q("123.500"));
    assert_eq!(fmt("%.3f", vec![d(123.4994)]), q("123.499"));
    assert_eq!(fmt("%.3f", vec![d(-123.4999)]), q("-123.500"));
    assert_eq!(fmt("%.3f", vec![d(-123.4994)]), q("-123.499"));
    assert_eq!(fmt("%.5f", vec![d(-1.2)]), q("-1.20000"));
    assert_eq!(fmt("%.2f", vec![d(1234567.891)]), q("1,234,567.89"));
    assert_eq!(fmt("%f", vec![s("NaN")]), q("NaN"));
    assert_eq!(fmt("%f", vec![s("Infinity")]), q("∞"));
    assert_eq!(fmt("%f", vec![s("-Infinity")]), q("-∞"));
    assert_eq!(
        fmt("NaN: %f, infinity: %f", vec![d(f64::NAN), d(f64::INFINITY)]),
        q("NaN: NaN, infinity: ∞")
    );
    assert_eq!(
        fmt("%.6e", vec![d(1052.032911275)]),
        q("1.052033\u{d7}10\u{2070}\u{b3}")
    );
    assert_eq!(
        fmt("%e", vec![d(2.71828)]),
        q("2.718280\u{d7}10\u{2070}\u{2070}")
    );
    assert_eq!(
        fmt(
            "unescaped unicode: %e, escaped unicode: %e",
            vec![d(2.71828), d(2.71828)]
        ),
        q("unescaped unicode: 2.718280×10⁰⁰, escaped unicode: 2.718280\u{d7}10\u{2070}\u{2070}")
    );
    // The precision of %e is used as a field width.
    assert_eq!(
        fmt("%.2e", vec![d(0.5)]),
        q("5.000000\u{d7}10\u{207b}\u{2070}\u{b9}")
    );
    assert_eq!(
        fmt("[%.18e]", vec![d(1.0)]),
        q("[     1.000000\u{d7}10\u{2070}\u{2070}]")
    );
    assert_eq!(fmt("%e", vec![s("NaN")]), q("   NaN"));
    assert_eq!(fmt("%.0e", vec![s("-Infinity")]), q("-∞"));
    assert_eq!(fmt("%s", vec![d(2.71)]), q("2.71"));
    assert_eq!(fmt("%s", vec![d(0.000000002)]), q("2e-09"));
    assert_eq!(fmt("%s", vec![d(f64::NAN)]), q("NaN"));
    assert_eq!(fmt("%s", vec![d(f64::INFINITY)]), q("+Inf"));
    assert_eq!(fmt("%s", vec![d(f64::NEG_INFINITY)]), q("-Inf"));
    assert_eq!(fmt("%s, %s", vec![i(32), d(56.8)]), q("32, 56.8"));
}

/// Kubernetes up to 1.32 is built with golang.org/x/text before v0.23.0, whose scientific
/// form has narrow no-break spaces around the times sign (cel-go's own tests expect it).
#[test]
fn format_scientific_before_x_text_0_23() {
    let q = |x: &str| format!("{x:?}");
    let spaced = |f: &str, args: Vec<Value<'static>>| {
        let spaced = super::string_format(Behaviours::new().with_spaced_scientific_format(true));
        spaced(&[s(f), l(args)]).map(|v| show(&v))
    };
    assert_eq!(
        spaced("%e", vec![d(2.71828)]),
        Ok(q("2.718280\u{202f}\u{d7}\u{202f}10\u{2070}\u{2070}"))
    );
    assert_eq!(
        spaced("[%.18e]", vec![d(1.0)]),
        Ok(q("[   1.000000\u{202f}\u{d7}\u{202f}10\u{2070}\u{2070}]"))
    );
}

#[test]
fn format_strings() {
    let q = |x: &str| format!("{x:?}");
    assert_eq!(fmt("null: %s", vec![Value::Null]), q("null: null"));
    assert_eq!(fmt("%s", vec![i(999999999999)]), q("999999999999"));
    assert_eq!(
        fmt("some bytes: %s", vec![by(b"xyz")]),
        q("some bytes: xyz")
    );
    assert_eq!(fmt("type is %s", vec![ty("string")]), q("type is string"));
    assert_eq!(
        fmt("%s", vec![ts(1_675_467_080)]),
        q("2023-02-03T23:31:20Z")
    );
    assert_eq!(
        fmt(
            "%s",
            vec![Value::Timestamp(Timestamp {
                secs: 1_675_467_080,
                nanos: 120_000_000,
                offset: 0,
            })]
        ),
        q("2023-02-03T23:31:20.12Z")
    );
    assert_eq!(fmt("%s", vec![dur(6347)]), q("6347s"));
    assert_eq!(
        fmt("%s", vec![Value::Duration(Duration { nanos: 2 })]),
        q("0.000000002s")
    );
    assert_eq!(
        fmt("true bool: %s, false bool: %s", vec![b(true), b(false)]),
        q("true bool: true, false bool: false")
    );
    assert_eq!(
        fmt(
            "true bool: %s - false bool: %s\nbinary bool: %b",
            vec![b(true), b(false), b(true)]
        ),
        q("true bool: true - false bool: false\nbinary bool: 1")
    );
    assert_eq!(fmt("%s", vec![l(vec![d(2.71)])]), q("[2.710000]"));
    assert_eq!(fmt("%s", vec![l(vec![d(0.000000002)])]), q("[0.000000]"));
    assert_eq!(
        fmt(
            "%s",
            vec![l(vec![d(f64::NAN), d(f64::INFINITY), d(f64::NEG_INFINITY)])]
        ),
        q("[\"NaN\", \"+Inf\", \"-Inf\"]")
    );
    assert_eq!(
        fmt(
            "%s",
            vec![l(vec![
                s("abc"),
                d(3.14),
                Value::Null,
                ints(&[9, 8, 7, 6]),
                ts(1_675_467_080)
            ])]
        ),
        q("[\"abc\", 3.140000, null, [9, 8, 7, 6], timestamp(\"2023-02-03T23:31:20Z\")]")
    );
    assert_eq!(
        fmt(
            "%s",
            vec![map(vec![
                (s("key1"), by(b"xyz")),
                (s("key5"), Value::Null),
                (s("key2"), dur(7200)),
                (s("key4"), b(true)),
                (s("key3"), d(2.71828)),
            ])]
        ),
        q("{\"key1\":b\"xyz\", \"key2\":duration(\"7200s\"), \"key3\":2.718280, \"key4\":true, \"key5\":null}")
    );
    assert_eq!(
        fmt(
            "map with multiple key types: %s",
            vec![map(vec![
                (i(1), s("value1")),
                (u(2), s("value2")),
                (b(true), d(f64::NAN)),
            ])]
        ),
        q("map with multiple key types: {1:\"value1\", 2:\"value2\", true:\"NaN\"}")
    );
    assert_eq!(
        fmt(
            "dyntype list: %s",
            vec![l(vec![i(6), d(4.2), s("a string")])]
        ),
        q("dyntype list: [6, 4.200000, \"a string\"]")
    );
    assert_eq!(
        fmt(
            "dyntype map: %s",
            vec![map(vec![
                (s("strKey"), s("x")),
                (b(true), i(42)),
                (
                    i(6),
                    Value::Duration(Duration {
                        nanos: 422_000_000_000
                    })
                ),
            ])]
        ),
        q("dyntype map: {\"strKey\":\"x\", 6:duration(\"422s\"), true:42}")
    );
    assert_eq!(
        fmt(
            "a map inside a list: %s",
            vec![l(vec![
                i(1),
                i(2),
                i(3),
                map(vec![(s("a"), s("x")), (s("b"), s("y")), (s("c"), s("z"))])
            ])]
        ),
        q("a map inside a list: [1, 2, 3, {\"a\":\"x\", \"b\":\"y\", \"c\":\"z\"}]")
    );
    assert_eq!(
        fmt("%s", vec![l(vec![s("new\nline"), by(b"q\"")])]),
        q("[\"new\\nline\", b\"q\\\"\"]")
    );
    assert_eq!(
        fmt("%s", vec![l(vec![ty("int"), dur(1)])]),
        q("[int, duration(\"1s\")]")
    );
    assert_eq!(
        fmt("%s", vec![ok_value("strings_quote", vec![s("%s %s")])]),
        q("\"%s %s\"")
    );
    let json = serde_json::json!({"b": [1, 2.5], "a": {"x": null}});
    assert_eq!(
        ok(
            "string_format",
            vec![s("%s"), l(vec![Value::from_json(&json).into_owned()])]
        ),
        q("{\"a\":{\"x\":null}, \"b\":[1, 2.500000]}")
    );
}

fn ok_value(id: &str, args: Vec<Value<'static>>) -> Value<'static> {
    call(id, args).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn format_of_a_quoted_string() {
    // strings.quote('%s %s').format(['hello', 'world']) == "\"hello world\""
    let format = ok_value("strings_quote", vec![s("%s %s")]);
    assert_eq!(
        ok("string_format", vec![format, strs(&["hello", "world"])]),
        format!("{:?}", "\"hello world\"")
    );
}

#[test]
fn format_errors() {
    assert_eq!(
        fmt_err("%a", vec![i(1)]),
        "could not parse formatting clause: unrecognized formatting clause \"a\""
    );
    assert_eq!(
        fmt_err("double is %E", vec![d(0.5)]),
        "could not parse formatting clause: unrecognized formatting clause \"E\""
    );
    assert_eq!(
        fmt_err("%d %d %d", vec![i(0), i(1)]),
        "index 2 out of range"
    );
    assert_eq!(fmt_err("%s", vec![]), "index 0 out of range");
    assert_eq!(fmt_err("abc %", vec![i(1)]), "unexpected end of string");
    assert_eq!(fmt_err("abc %", vec![]), "index 0 out of range");
    assert_eq!(
        fmt_err("string is %b", vec![s("abc")]),
        "error during formatting: only integers and bools can be formatted as binary, was given string"
    );
    assert_eq!(
        fmt_err("%d", vec![dur(1802)]),
        "error during formatting: decimal clause can only be used on integers, was given google.protobuf.Duration"
    );
    assert_eq!(
        fmt_err("octal: %o", vec![s("a string")]),
        "error during formatting: octal clause can only be used on integers, was given string"
    );
    assert_eq!(
        fmt_err("double is %x", vec![d(0.5)]),
        "error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double"
    );
    assert_eq!(
        fmt_err("null: %d", vec![Value::Null]),
        "error during formatting: decimal clause can only be used on integers, was given null_type"
    );
    assert_eq!(
        fmt_err("null: %e", vec![Value::Null]),
        "error during formatting: scientific clause can only be used on doubles, was given null_type"
    );
    assert_eq!(
        fmt_err("null: %f", vec![Value::Null]),
        "error during formatting: fixed-point clause can only be used on doubles, was given null_type"
    );
    assert_eq!(
        fmt_err("%f", vec![i(2)]),
        "error during formatting: fixed-point clause can only be used on doubles, was given int"
    );
    assert_eq!(
        fmt_err("%e", vec![s("nan")]),
        "error during formatting: scientific clause can only be used on doubles, was given string"
    );
    assert_eq!(
        fmt_err("null: %x", vec![Value::Null]),
        "error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given null_type"
    );
    assert_eq!(
        fmt_err("null: %b", vec![Value::Null]),
        "error during formatting: only integers and bools can be formatted as binary, was given null_type"
    );
    assert_eq!(
        fmt_err("null: %o", vec![Value::Null]),
        "error during formatting: octal clause can only be used on integers, was given null_type"
    );
    assert_eq!(
        fmt_err("%s", vec![opt(i(1))]),
        "error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given optional_type"
    );
    assert_eq!(
        fmt_err("%s", vec![l(vec![opt(i(1))])]),
        "error during formatting: no formatting function for optional_type"
    );
    assert_eq!(
        fmt_err("%s", vec![by(b"\xff")]),
        "error during formatting: could not convert argument \"invalid UTF-8 in bytes, cannot convert to string\" to string"
    );
    assert_eq!(
        fmt_err("%.3", vec![d(1.0)]),
        "could not parse formatting clause: error while parsing precision: could not find end of precision specifier"
    );
    assert_eq!(
        fmt_err("%.f", vec![d(1.0)]),
        "could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing \"\": invalid syntax"
    );
    assert_eq!(
        fmt_err("%.99999999999999999999f", vec![d(1.0)]),
        "could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing \"99999999999999999999\": value out of range"
    );
    assert_eq!(
        fmt_err("%é", vec![i(1)]),
        "could not parse formatting clause: unrecognized formatting clause \"Ã\""
    );
    assert_eq!(
        fmt("%.10000010f", vec![d(1.0)]),
        format!("{:?}", "%!(NOVERB)")
    );
    assert_eq!(
        err_kind("string_format", vec![s("%s"), s("x")]),
        ErrorKind::NoSuchOverload
    );
    assert_eq!(
        err_kind("string_format", vec![s("%d"), l(vec![s("x")])]),
        ErrorKind::InvalidArgument
    );
}
