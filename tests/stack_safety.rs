//! No input up to the expression length limit crashes the compiler or the evaluator on a
//! thread with a 2 MiB stack: long chains and deep nesting end in a result or an error.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use matchcond::{Activation, CompileOptions, Environment};

const LIMIT: usize = 100_000;

/// The inputs: a name, and the text `before` × n, `middle`, `after` × n.
fn inputs() -> Vec<(String, String)> {
    let shapes: [(&str, &str, &str, &str, usize); 21] = [
        // (name, before, middle, after, n)
        ("select chain", "", "a", ".b", LIMIT / 2 - 1),
        ("addition chain", "", "1", "+1", LIMIT / 2 - 1),
        ("index chain", "", "x", "[0]", LIMIT / 3 - 1),
        ("call chain", "f(", "x", ")", LIMIT / 3),
        ("member call chain", "", "x", ".f()", LIMIT / 4 - 1),
        ("parentheses", "(", "1", ")", LIMIT / 2 - 1),
        ("lists", "[", "1", "]", LIMIT / 2 - 1),
        ("maps", "{1:", "1", "}", LIMIT / 4 - 1),
        ("negations", "!", "true", "", LIMIT - 4),
        ("minus", "-", "1", "", LIMIT - 1),
        ("ors", "", "true", " || false", (LIMIT - 4) / 9),
        ("ands", "", "true", " && true", (LIMIT - 4) / 8),
        ("ternaries", "true ? ", "1", " : 2", LIMIT / 9),
        ("relations", "", "1", " < 1", LIMIT / 4 - 1),
        ("unterminated string", "", "'", "a", LIMIT - 1),
        ("open brackets", "[", "", "", LIMIT),
        ("open parens", "(", "", "", LIMIT),
        ("open braces", "{", "", "", LIMIT),
        ("wide runes", "é", "", "", LIMIT),
        ("nested macros", "[1].all(x, ", "true", ")", 2000),
        ("too long", "1+", "", "", LIMIT),
    ];
    shapes
        .iter()
        .map(|(name, before, middle, after, n)| {
            let text = format!("{}{middle}{}", before.repeat(*n), after.repeat(*n));
            ((*name).to_owned(), text)
        })
        .collect()
}

#[test]
fn long_and_deep_inputs_never_overflow() {
    let outcomes = common::on_small_stack("long and deep inputs", || {
        let env = Environment::latest();
        let opts = CompileOptions::default();
        let unchecked = CompileOptions::default().with_unchecked(true);
        let mut outcomes = Vec::new();
        for (name, text) in inputs() {
            for o in [&opts, &unchecked] {
                match env.compile(&text, o) {
                    Ok(p) => {
                        let act = Activation::empty();
                        let r = p.evaluate(&act, Some(1_000_000));
                        outcomes.push(format!("{name}: evaluated ({})", r.result.is_ok()));
                    }
                    Err(e) => {
                        let msg = e.to_string();
                        assert!(
                            msg.starts_with("compilation failed: ERROR: <input>:"),
                            "{name}: {msg}"
                        );
                        outcomes.push(format!("{name}: error"));
                    }
                }
            }
        }
        outcomes
    });
    assert_eq!(outcomes.len(), inputs().len() * 2);
}

#[test]
fn deep_nesting_reports_the_recursion_limit() {
    let env = Environment::latest();
    let text = format!("{}1{}", "(".repeat(300), ")".repeat(300));
    let err = env.compile(&text, &CompileOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "compilation failed: ERROR: <input>:-1:0: expression recursion limit exceeded: 250"
    );
    let text = format!("a{}", ".b".repeat(300));
    let err = env.compile(&text, &CompileOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "compilation failed: ERROR: <input>:-1:0: max recursion depth exceeded"
    );
}

#[test]
fn over_the_length_limit_is_an_error() {
    let env = Environment::latest();
    let text = "1+".repeat(LIMIT / 2) + "1";
    let err = env.compile(&text, &CompileOptions::default()).unwrap_err();
    assert!(
        err.to_string()
            .contains("expression code point size exceeds limit: size: 100001, limit 100000"),
        "{err}"
    );
}

/// Nesting forms: `(prefix, suffix, seed)`; the input `n` deep is `prefix×n seed suffix×n`.
const NESTING_FORMS: &[(&str, &str, &str)] = &[
    ("(", ")", "1"),
    ("[", "]", "1"),
    ("{1: ", "}", "1"),
    ("string(", ")", "1"),
    ("size([", "])", "1"),
    ("-(", ")", "1"),
    ("!(", ")", "true"),
    ("1 + (", ")", "1"),
    ("true ? (", ") : 2", "1"),
    ("(true ? 1 : ", ")", "1"),
    ("[1].all(x, ", ")", "true"),
    ("[1].map(x, ", ")", "1"),
    ("[1].exists_one(x, ", ")", "true"),
    ("{1: 2}.transformMap(k, v, ", ")", "1"),
    ("optional.of(", ")", "1"),
    ("[", "][0]", "1"),
    ("{'a': ", "}.a", "1"),
    ("{'a': ", "}.?a.orValue(1)", "1"),
    ("(", " + 1)", "1"),
    ("(", ").lowerAscii()", "'a'"),
    ("[1].all(x, [x].all(y, ", "))", "true"),
    ("[[1]].map(x, x.map(y, ", "))", "1"),
];

/// The deepest nesting of each form the parser accepts compiles and evaluates (checked and
/// unchecked) on a 2 MiB stack: the checker, planner and evaluator recurse no deeper per
/// level than the parser.
#[test]
fn the_deepest_accepted_nesting_compiles_and_evaluates() {
    let depths = common::on_small_stack("the deepest nesting", || {
        let env = Environment::latest();
        let text = |form: &(&str, &str, &str), n: usize| {
            format!("{}{}{}", form.0.repeat(n), form.2, form.1.repeat(n))
        };
        let mut depths = Vec::new();
        for form in NESTING_FORMS {
            // The largest n the parser accepts (it rejects 1000 levels of every form).
            assert!(env.parse(&text(form, 1000)).is_err(), "{form:?}");
            let (mut ok, mut bad) = (0usize, 1000usize);
            while bad - ok > 1 {
                let mid = (ok + bad) / 2;
                if env.parse(&text(form, mid)).is_ok() {
                    ok = mid;
                } else {
                    bad = mid;
                }
            }
            assert!(ok >= 10, "{form:?}: {ok}");
            let input = text(form, ok);
            for unchecked in [false, true] {
                let opts = CompileOptions::default().with_unchecked(unchecked);
                if let Ok(p) = env.compile(&input, &opts) {
                    let act = Activation::empty();
                    let _ = p.evaluate(&act, Some(1_000_000));
                }
            }
            depths.push(ok);
        }
        depths
    });
    assert_eq!(depths.len(), NESTING_FORMS.len());
}
