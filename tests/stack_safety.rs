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

fn inputs() -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = Vec::new();
    let rep = |s: &str, n: usize| s.repeat(n);
    v.push((
        "select chain".into(),
        format!("a{}", rep(".b", LIMIT / 2 - 1)),
    ));
    v.push((
        "addition chain".into(),
        format!("1{}", rep("+1", LIMIT / 2 - 1)),
    ));
    v.push((
        "index chain".into(),
        format!("x{}", rep("[0]", LIMIT / 3 - 1)),
    ));
    v.push((
        "call chain".into(),
        format!("{}x{}", rep("f(", LIMIT / 3), rep(")", LIMIT / 3)),
    ));
    v.push((
        "member call chain".into(),
        format!("x{}", rep(".f()", LIMIT / 4 - 1)),
    ));
    v.push((
        "parentheses".into(),
        format!("{}1{}", rep("(", LIMIT / 2 - 1), rep(")", LIMIT / 2 - 1)),
    ));
    v.push((
        "lists".into(),
        format!("{}1{}", rep("[", LIMIT / 2 - 1), rep("]", LIMIT / 2 - 1)),
    ));
    v.push((
        "maps".into(),
        format!("{}1{}", rep("{1:", LIMIT / 4 - 1), rep("}", LIMIT / 4 - 1)),
    ));
    v.push(("negations".into(), format!("{}true", rep("!", LIMIT - 4))));
    v.push(("minus".into(), format!("{}1", rep("-", LIMIT - 1))));
    v.push((
        "ors".into(),
        format!("true{}", rep(" || false", (LIMIT - 4) / 9)),
    ));
    v.push((
        "ands".into(),
        format!("true{}", rep(" && true", (LIMIT - 4) / 8)),
    ));
    v.push((
        "ternaries".into(),
        format!("{}1{}", rep("true ? ", LIMIT / 9), rep(" : 2", LIMIT / 9)),
    ));
    v.push((
        "relations".into(),
        format!("1{}", rep(" < 1", LIMIT / 4 - 1)),
    ));
    v.push((
        "unterminated string".into(),
        format!("'{}", rep("a", LIMIT - 1)),
    ));
    v.push(("open brackets".into(), rep("[", LIMIT)));
    v.push(("open parens".into(), rep("(", LIMIT)));
    v.push(("open braces".into(), rep("{", LIMIT)));
    v.push(("wide runes".into(), rep("é", LIMIT)));
    v.push((
        "nested macros".into(),
        format!("{}true{}", rep("[1].all(x, ", 2000), rep(")", 2000)),
    ));
    v.push(("too long".into(), rep("1+", LIMIT)));
    v
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
