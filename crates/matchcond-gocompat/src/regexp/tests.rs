use std::sync::Arc;

use super::cache::{compile_weighed, CACHE, CACHE_CAPACITY};
use super::compile::SMALL_REGEX_SIZE;
use super::*;

fn m(p: &str, s: &str) -> bool {
    is_match(p, s).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn e(p: &str) -> String {
    match compile_uncached(p) {
        Ok(_) => panic!("{p} compiled"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn matching() {
    for (pattern, text, want) in [
        // Basic matching.
        ("^[0-9]+(-[0-9]+)?$", "123-456", true),
        ("^h.*o$", "hello", true),
        ("ell", "hello", true),
        ("^ell", "hello", false),
        ("", "anything", true),
        ("a|", "b", true),
        ("(?i)HELLO", "hello", true),
        ("(?i:H)ello", "hello", true),
        ("(?i:H)ELLO", "hello", false),
        ("a(?i)b|c", "aB", true),
        ("a(?i)b|c", "C", true),
        ("x(?i:a|b)y", "xBy", true),
        ("x(?i:a|b)Y", "xBy", false),
        ("(?P<name>a+)b", "aab", true),
        ("(?<n>a)(?<n>b)", "ab", true),
        // Perl classes are ASCII-only.
        (r"^\d$", "7", true),
        (r"^\d$", "٣", false),
        (r"^\w$", "é", false),
        (r"^\W$", "é", true),
        (r"^\s$", "\t", true),
        (r"^\s$", "\u{b}", false),
        (r"^\s$", "\u{a0}", false),
        (r"^[[:space:]]$", "\u{b}", true),
        (r"^[\d\s]+$", "1 2", true),
        (r"^[^\d]$", "x", true),
        (r"^[^\d]$", "5", false),
        (r"\bfoo\b", "a foo b", true),
        (r"\bfoo", "éfoo", true),
        (r"\Bfoo", "éfoo", false),
        (r"(?i)^\w$", "\u{212A}", true),
        (r"(?i)^\W$", "\u{212A}", false),
        // Go's own syntax.
        (r"^a{,5}$", "a{,5}", true),
        (r"^a{$", "a{", true),
        (r"^a{01}$", "a{01}", true),
        (r"^\Q.*+\E$", ".*+", true),
        (r"^\Qa.b", "a.b", true),
        (r"^\Qa.b", "axb", false),
        (r"^\101$", "A", true),
        (r"^\0$", "\0", true),
        (r"^\x41\x{42}$", "AB", true),
        (r"^\<\>$", "<>", true),
        (r"^[a[b]+$", "a[b", true),
        (r"^[a&&b]+$", "a&b", true),
        (r"^[]a]+$", "]a", true),
        (r"^[^]a]$", "b", true),
        (r"^[a-]+$", "a-", true),
        (r"^(?)a$", "a", true),
        (r"^(?ii)a$", "A", true),
        (r"^(?i-i)a$", "a", true),
        (r"^(?i-i)a$", "A", false),
        (r"^*a", "a", true),
        (r"a*(?i)*", "a", true),
        (r"^[[:alpha:]]+$", "abcXYZ", true),
        (r"^[[:^alpha:]]+$", "123", true),
        (r"^\pL+$", "héllo", true),
        (r"^\p{Greek}+$", "αβγ", true),
        (r"^\p{Greek}$", "\u{342}", false),
        (r"^\P{Greek}+$", "abc", true),
        (r"^\p{^Greek}+$", "abc", true),
        (r"^[\p{Lu}]+$", "ABC", true),
        (r"^\p{Any}+$", "a\n", true),
        (r"(?s)^a.b$", "a\nb", true),
        (r"^a.b$", "a\nb", false),
        (r"(?m)^b$", "a\nb\nc", true),
        (r"^b$", "a\nb\nc", false),
        (r"^a$", "a\n", false),
        (r"^[\x{D800}-\x{E000}]$", "\u{E000}", true),
        (r"\x{D800}", "a", false),
        (r"a{2}{", "aa{", true),
    ] {
        assert_eq!(m(pattern, text), want, "{pattern} on {text:?}");
    }
}

#[test]
fn errors() {
    let cases = [
        ("(", "error parsing regexp: missing closing ): `(`"),
        ("a(b", "error parsing regexp: missing closing ): `a(b`"),
        (")", "error parsing regexp: unexpected ): `)`"),
        ("a)b", "error parsing regexp: unexpected ): `a)b`"),
        ("[a", "error parsing regexp: missing closing ]: `[a`"),
        ("x[a-", "error parsing regexp: missing closing ]: `[a-`"),
        ("[]", "error parsing regexp: missing closing ]: `[]`"),
        (
            "[z-a]",
            "error parsing regexp: invalid character class range: `z-a`",
        ),
        (
            "[[:foo:]]",
            "error parsing regexp: invalid character class range: `[:foo:]`",
        ),
        (
            "*",
            "error parsing regexp: missing argument to repetition operator: `*`",
        ),
        (
            "*?",
            "error parsing regexp: missing argument to repetition operator: `*?`",
        ),
        (
            "a|*",
            "error parsing regexp: missing argument to repetition operator: `*`",
        ),
        (
            "(*)",
            "error parsing regexp: missing argument to repetition operator: `*`",
        ),
        (
            "{2}",
            "error parsing regexp: missing argument to repetition operator: `{2}`",
        ),
        (
            "a**",
            "error parsing regexp: invalid nested repetition operator: `**`",
        ),
        (
            "a*?+",
            "error parsing regexp: invalid nested repetition operator: `*?+`",
        ),
        (
            "a{2}*",
            "error parsing regexp: invalid nested repetition operator: `{2}*`",
        ),
        (
            "a{1001}",
            "error parsing regexp: invalid repeat count: `{1001}`",
        ),
        (
            "a{2,1}",
            "error parsing regexp: invalid repeat count: `{2,1}`",
        ),
        (
            "a{1,1001}",
            "error parsing regexp: invalid repeat count: `{1,1001}`",
        ),
        (
            "a{100000000}",
            "error parsing regexp: invalid repeat count: `{100000000}`",
        ),
        (
            "(a{500}){3}",
            "error parsing regexp: invalid repeat count: `{3}`",
        ),
        (
            "((a{10}){10}){11}?",
            "error parsing regexp: invalid repeat count: `{11}?`",
        ),
        (
            r"\",
            "error parsing regexp: trailing backslash at end of expression: ``",
        ),
        (
            r"\q",
            "error parsing regexp: invalid escape sequence: `\\q`",
        ),
        (
            r"\Z",
            "error parsing regexp: invalid escape sequence: `\\Z`",
        ),
        (
            r"\C",
            "error parsing regexp: invalid escape sequence: `\\C`",
        ),
        (
            r"\8",
            "error parsing regexp: invalid escape sequence: `\\8`",
        ),
        (
            r"\1",
            "error parsing regexp: invalid escape sequence: `\\1`",
        ),
        (
            r"\xZ1",
            "error parsing regexp: invalid escape sequence: `\\xZ1`",
        ),
        (
            r"\x{zz}",
            "error parsing regexp: invalid escape sequence: `\\x{z`",
        ),
        (
            r"\x{110000}",
            "error parsing regexp: invalid escape sequence: `\\x{110000`",
        ),
        (
            r"\x",
            "error parsing regexp: invalid escape sequence: `\\x`",
        ),
        (
            r"\é",
            "error parsing regexp: invalid escape sequence: `\\é`",
        ),
        (
            r"[\b]",
            "error parsing regexp: invalid escape sequence: `\\b`",
        ),
        (
            r"[a-\d]",
            "error parsing regexp: invalid escape sequence: `\\d`",
        ),
        (
            r"\pX",
            "error parsing regexp: invalid character class range: `\\pX`",
        ),
        (
            r"\p{Foo}x",
            "error parsing regexp: invalid character class range: `\\p{Foo}`",
        ),
        (
            r"\p{Greek",
            "error parsing regexp: invalid character class range: `\\p{Greek`",
        ),
        (
            r"\p",
            "error parsing regexp: invalid character class range: `\\p`",
        ),
        (
            "(?x)a",
            "error parsing regexp: invalid or unsupported Perl syntax: `(?x`",
        ),
        (
            "(?",
            "error parsing regexp: invalid or unsupported Perl syntax: `(?`",
        ),
        (
            "(?i-)",
            "error parsing regexp: invalid or unsupported Perl syntax: `(?i-)`",
        ),
        (
            "(?--i)",
            "error parsing regexp: invalid or unsupported Perl syntax: `(?--`",
        ),
        (
            "(?P=n)",
            "error parsing regexp: invalid or unsupported Perl syntax: `(?P`",
        ),
        (
            "(?P<n",
            "error parsing regexp: invalid named capture: `(?P<n`",
        ),
        (
            "(?P<a-b>x)",
            "error parsing regexp: invalid named capture: `(?P<a-b>`",
        ),
        (
            "(?<>x)",
            "error parsing regexp: invalid named capture: `(?<>`",
        ),
    ];
    for (p, want) in cases {
        assert_eq!(e(p), want, "{p}");
    }
}

#[test]
fn nesting_limits() {
    let deep = format!("{}a{}", "(".repeat(999), ")".repeat(999));
    assert!(m(&deep, "a"));
    let too_deep = format!("{}a{}", "(".repeat(1001), ")".repeat(1001));
    assert!(e(&too_deep).starts_with("error parsing regexp: expression nests too deeply: `"));
    let noncapturing = format!("{}a{}", "(?:".repeat(2000), ")".repeat(2000));
    assert!(m(&noncapturing, "a"));
}

#[test]
fn the_cache_is_bounded_in_entries_and_memory() {
    let (r, weight) = compile_weighed("^[a-z]+$");
    assert!(r.is_ok());
    assert_eq!(weight, SMALL_REGEX_SIZE + 8);
    let long = "a".repeat(MAX_PATTERN_SIZE + 1);
    assert_eq!(
        compile_weighed(&long).0.unwrap_err().to_string(),
        "regex pattern size exceeds limit: size: 32769, limit 32768"
    );
    for i in 0..300 {
        compile(&format!("^x{i}$")).unwrap();
        CACHE.with(|c| {
            let c = c.borrow();
            assert!(c.entries.len() <= CACHE_CAPACITY);
            assert!(c.size <= REGEX_CACHE_SIZE);
        });
    }
    // Cached: the same compiled expression.
    let a = compile("^x299$").unwrap();
    let b = compile("^x299$").unwrap();
    assert!(Arc::ptr_eq(&a, &b));
}

#[test]
fn cached_results_give_the_same_answers() {
    let e = compile("(").unwrap_err();
    assert_eq!(
        e.to_string(),
        "error parsing regexp: missing closing ): `(`"
    );
    assert!(compile("(").is_err());
    assert!(is_match("a+", "caab").unwrap());
    assert!(is_match("a+", "caab").unwrap());
}
