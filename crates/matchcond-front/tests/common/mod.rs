//! Helpers shared by the parser's tests and examples: the reference parser table, the
//! reference's debug printer, and hostile inputs.
// Each test binary and example uses a part of them.
#![allow(dead_code)]

pub mod celgo_cases;
pub mod debug;

/// Inputs of up to 100,000 code points built to exhaust a parser: long runs of each opening
/// token and operator, chains, deep nesting of every form, pseudo-random bytes and token
/// soups (a fixed seed: the same inputs every run).
pub fn hostile_inputs() -> Vec<(String, String)> {
    let n = 100_000;
    let mut v: Vec<(String, String)> = vec![
        ("parens".into(), "(".repeat(n)),
        (
            "closed parens".into(),
            format!("{}1{}", "(".repeat(n / 2 - 1), ")".repeat(n / 2 - 1)),
        ),
        ("brackets".into(), "[".repeat(n)),
        ("braces".into(), "{".repeat(n)),
        ("minus".into(), "-".repeat(n)),
        ("minus operand".into(), format!("{}x", "-".repeat(n - 1))),
        ("bang".into(), "!".repeat(n)),
        ("bang operand".into(), format!("{}x", "!".repeat(n - 1))),
        ("question".into(), "?".repeat(n)),
        ("dots".into(), ".".repeat(n)),
        ("colons".into(), ":".repeat(n)),
        ("commas".into(), ",".repeat(n)),
        (
            "select chain".into(),
            format!("a{}", ".b".repeat(n / 2 - 1)),
        ),
        (
            "call chain".into(),
            format!("a{}", ".b()".repeat(n / 4 - 1)),
        ),
        ("plus chain".into(), format!("1{}", "+1".repeat(n / 2 - 1))),
        (
            "relation chain".into(),
            format!("1{}", "<1".repeat(n / 2 - 1)),
        ),
        ("and chain".into(), format!("a{}", "&&a".repeat(n / 3 - 1))),
        ("or chain".into(), format!("a{}", "||a".repeat(n / 3 - 1))),
        (
            "ternary chain".into(),
            format!("{}c", "a?b:".repeat(n / 4 - 1)),
        ),
        (
            "index chain".into(),
            format!("x{}", "[0]".repeat(n / 3 - 1)),
        ),
        (
            "nested calls".into(),
            format!("{}{}", "f(".repeat(n / 3 - 1), ")".repeat(n / 3 - 1)),
        ),
        (
            "nested lists".into(),
            format!("{}{}", "[".repeat(n / 2 - 1), "]".repeat(n / 2 - 1)),
        ),
        (
            "nested maps".into(),
            format!("{}1{}", "{1:".repeat(n / 4 - 1), "}".repeat(n / 4 - 1)),
        ),
        (
            "nested messages".into(),
            format!("{}1{}", "M{f:".repeat(n / 5 - 1), "}".repeat(n / 5 - 1)),
        ),
        (
            "nested macros".into(),
            format!(
                "{}x{}",
                "x.all(x,".repeat(n / 10 - 1),
                ")".repeat(n / 10 - 1)
            ),
        ),
        (
            "unterminated string".into(),
            format!("'{}", "a".repeat(n - 1)),
        ),
        (
            "unterminated triple".into(),
            format!("'''{}", "a".repeat(n - 3)),
        ),
        ("multibyte".into(), "é".repeat(n)),
        ("bad chars".into(), "@".repeat(n)),
        ("unary mix".into(), "-!".repeat(n / 2)),
        (
            "negated chain".into(),
            format!("{}1", "-(".repeat(n / 2 - 1)),
        ),
        ("mul chain".into(), format!("1{}", "*-1".repeat(n / 3 - 1))),
        ("opt chain".into(), format!("a{}", ".?b".repeat(n / 3 - 1))),
        (
            "message chain".into(),
            format!("a{}{{", ".b".repeat(n / 2 - 1)),
        ),
    ];
    // Pseudo-random bytes (valid UTF-8 after lossy conversion) and token soups.
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for i in 0..4 {
        let bytes: Vec<u8> = (0..n).map(|_| (next() & 0xff) as u8).collect();
        let s: String = String::from_utf8_lossy(&bytes).chars().take(n).collect();
        v.push((format!("random bytes {i}"), s));
    }
    let pieces = [
        "(", ")", "[", "]", "{", "}", ".", ",", "-", "!", "?", ":", "a", "1", "'x'", "+", "&&",
        "||", "==", "in", " ", "f(", "m.all(x,", "b\"", "`q`", "1u", ".5",
    ];
    for i in 0..4 {
        let mut s = String::new();
        while s.chars().count() < n - 10 {
            s.push_str(pieces[(next() % pieces.len() as u64) as usize]);
        }
        v.push((format!("token soup {i}"), s));
    }
    v
}
