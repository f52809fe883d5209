//! Algebraic properties the engine must have on its own (property tests):
//!
//! * `&&` and `||` absorb errors as CEL's commutative logical operators do: `false && e`
//!   and `e && false` are false, `true || e` and `e || true` are true, whatever error `e`
//!   raises; otherwise an error operand makes the result an error (langdef, Logical
//!   Operators; logic.yaml);
//! * comparisons of ints, uints and doubles, across types, follow one ordering: `a < b` is
//!   `b > a`, `==` and `!=` are complements, and the ordering is cel-go's (common/types/
//!   compare.go: an int or uint is compared with a double as a double, except beyond the
//!   double's integer range; NaN cannot be ordered and equals nothing);
//! * a webhook's decision does not depend on the order of its conditions: a false
//!   anywhere skips the webhook, even after errors; otherwise an error anywhere leaves it
//!   to the failurePolicy; otherwise it is called.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::cmp::Ordering;

use matchcond::{
    Activation, CompileOptions, Decision, Environment, FailurePolicy, MatchCondition,
    MatchConditions, Skip, Value,
};
use proptest::prelude::*;
use serde_json::{json, Value as Json};

/// The document bound to `object`.
fn doc() -> Json {
    json!({"zero": 0, "s": "a", "i": 3, "n": 5, "t": true, "f": false})
}

#[derive(Clone, Debug, PartialEq)]
enum Out {
    Bool(bool),
    Other(String),
    Error,
}

/// Evaluates unchecked, and checked when the checker accepts it (both must agree).
fn eval(env: &Environment, expr: &str) -> Out {
    let doc = doc();
    let run = |unchecked: bool| -> Option<Out> {
        let opts = CompileOptions::default().with_unchecked(unchecked);
        let program = env.compile(expr, &opts).ok()?;
        let mut act = Activation::empty();
        act.bind_variable("object", Value::from_json(&doc));
        Some(match program.evaluate(&act, None).result {
            Ok(Value::Bool(b)) => Out::Bool(b),
            Ok(v) => Out::Other(v.to_string()),
            Err(_) => Out::Error,
        })
    };
    let unchecked = run(true).unwrap_or_else(|| panic!("{expr} does not parse"));
    if let Some(checked) = run(false) {
        assert_eq!(checked, unchecked, "checked and unchecked differ on {expr}");
    }
    unchecked
}

/// Expressions that raise an evaluation error (of various kinds).
const ERRORS: [&str; 7] = [
    "object.missing",
    "(1 / object.zero == 1)",
    "(object.s > 1)",
    "([1][object.i] == 1)",
    "object.n.x",
    "((0.0 / 0.0) < 1.0)",
    "(object.s + 1 == 'a1')",
];

/// A boolean operand: a known value written several ways, or an error.
#[derive(Clone, Debug)]
enum Operand {
    Value(bool, String),
    Error(&'static str),
}

impl Operand {
    fn text(&self) -> &str {
        match self {
            Operand::Value(_, t) => t,
            Operand::Error(t) => t,
        }
    }
    fn value(&self) -> Option<bool> {
        match self {
            Operand::Value(b, _) => Some(*b),
            Operand::Error(_) => None,
        }
    }
}

fn operand() -> impl Strategy<Value = Operand> {
    prop_oneof![
        any::<bool>().prop_map(|b| Operand::Value(b, b.to_string())),
        (-3i64..3, -3i64..3).prop_map(|(a, b)| Operand::Value(a < b, format!("({a} < {b})"))),
        any::<bool>()
            .prop_map(|b| Operand::Value(b, if b { "object.t" } else { "object.f" }.to_string())),
        any::<bool>()
            .prop_map(|b| Operand::Value(b, format!("('{}' in ['x'])", if b { "x" } else { "y" }))),
        prop::sample::select(ERRORS.to_vec()).prop_map(Operand::Error),
    ]
}

fn expect(v: Option<bool>) -> Out {
    v.map_or(Out::Error, Out::Bool)
}

/// `a && b` in CEL: false wins over errors, then errors, then true.
fn and(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

/// `a || b` in CEL: true wins over errors, then errors, then false.
fn or(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }
}

/// A number of one of the three numeric types.
#[derive(Clone, Copy, Debug)]
enum Num {
    Int(i64),
    Uint(u64),
    Double(f64),
}

impl Num {
    fn text(self) -> String {
        match self {
            Num::Int(i) if i == i64::MIN => "-9223372036854775808".to_string(),
            Num::Int(i) if i < 0 => format!("({i})"),
            Num::Int(i) => i.to_string(),
            Num::Uint(u) => format!("{u}u"),
            Num::Double(d) if d.is_nan() => "(0.0 / 0.0)".to_string(),
            Num::Double(d) if d == f64::INFINITY => "(1.0 / 0.0)".to_string(),
            Num::Double(d) if d == f64::NEG_INFINITY => "(-1.0 / 0.0)".to_string(),
            Num::Double(d) if d < 0.0 || (d == 0.0 && d.is_sign_negative()) => format!("({d:?})"),
            Num::Double(d) => format!("{d:?}"),
        }
    }
}

fn num() -> impl Strategy<Value = Num> {
    let edge_ints = prop::sample::select(vec![
        i64::MIN,
        i64::MIN + 1,
        -1,
        0,
        1,
        i64::MAX - 1,
        i64::MAX,
        9_007_199_254_740_993,
    ]);
    let edge_uints = prop::sample::select(vec![0u64, 1, 1 << 63, u64::MAX - 1, u64::MAX]);
    let edge_doubles = prop::sample::select(vec![
        0.0,
        -0.0,
        0.5,
        -1.0,
        i64::MAX as f64,
        i64::MIN as f64,
        1.8446744073709552e19,
        9_007_199_254_740_992.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e300,
    ]);
    prop_oneof![
        (-4i64..4).prop_map(Num::Int),
        edge_ints.prop_map(Num::Int),
        any::<i64>().prop_map(Num::Int),
        (0u64..4).prop_map(Num::Uint),
        edge_uints.prop_map(Num::Uint),
        (-8i32..8).prop_map(|x| Num::Double(f64::from(x) / 2.0)),
        edge_doubles.prop_map(Num::Double),
        any::<f64>().prop_map(Num::Double),
    ]
}

/// cel-go's comparison (common/types/compare.go); `None` when a NaN is involved.
fn cel_cmp(a: Num, b: Num) -> Option<Ordering> {
    fn double_int(d: f64, i: i64) -> Option<Ordering> {
        if d < i64::MIN as f64 {
            Some(Ordering::Less)
        } else if d > i64::MAX as f64 {
            Some(Ordering::Greater)
        } else {
            d.partial_cmp(&(i as f64))
        }
    }
    fn double_uint(d: f64, u: u64) -> Option<Ordering> {
        if d < 0.0 {
            Some(Ordering::Less)
        } else if d > u64::MAX as f64 {
            Some(Ordering::Greater)
        } else {
            d.partial_cmp(&(u as f64))
        }
    }
    match (a, b) {
        (Num::Double(x), _) | (_, Num::Double(x)) if x.is_nan() => None,
        (Num::Int(x), Num::Int(y)) => Some(x.cmp(&y)),
        (Num::Uint(x), Num::Uint(y)) => Some(x.cmp(&y)),
        (Num::Double(x), Num::Double(y)) => x.partial_cmp(&y),
        (Num::Int(x), Num::Uint(y)) => Some(i128::from(x).cmp(&i128::from(y))),
        (Num::Uint(x), Num::Int(y)) => Some(i128::from(x).cmp(&i128::from(y))),
        (Num::Double(d), Num::Int(i)) => double_int(d, i),
        (Num::Int(i), Num::Double(d)) => double_int(d, i).map(Ordering::reverse),
        (Num::Double(d), Num::Uint(u)) => double_uint(d, u),
        (Num::Uint(u), Num::Double(d)) => double_uint(d, u).map(Ordering::reverse),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// `&&` and `||`: the truth tables with errors, in both operand orders.
    #[test]
    fn logical_operators_absorb_errors(a in operand(), b in operand()) {
        let env = Environment::latest();
        let (x, y) = (a.value(), b.value());
        for (l, r, lv, rv) in [(&a, &b, x, y), (&b, &a, y, x)] {
            let and_text = format!("({} && {})", l.text(), r.text());
            prop_assert_eq!(eval(&env, &and_text), expect(and(lv, rv)), "{}", and_text);
            let or_text = format!("({} || {})", l.text(), r.text());
            prop_assert_eq!(eval(&env, &or_text), expect(or(lv, rv)), "{}", or_text);
        }
        // Negation and the conditional do not absorb errors.
        let not_text = format!("!{}", a.text());
        prop_assert_eq!(eval(&env, &not_text), expect(x.map(|v| !v)), "{}", not_text);
        let cond_text = format!("({} ? true : false)", a.text());
        prop_assert_eq!(eval(&env, &cond_text), expect(x), "{}", cond_text);
    }

    /// Nested: absorption is decided by values, wherever the error is.
    #[test]
    fn absorption_nests(e in prop::sample::select(ERRORS.to_vec()), b in operand()) {
        let env = Environment::latest();
        let t = format!("(({e} && false) || true)");
        prop_assert_eq!(eval(&env, &t), Out::Bool(true), "{}", t);
        let t = format!("(({e} || true) && false)");
        prop_assert_eq!(eval(&env, &t), Out::Bool(false), "{}", t);
        let t = format!("(false && ({e} || {}))", b.text());
        prop_assert_eq!(eval(&env, &t), Out::Bool(false), "{}", t);
        let t = format!("[1, 2].exists(x, {e} || x == 2)");
        prop_assert_eq!(eval(&env, &t), Out::Bool(true), "{}", t);
        let t = format!("[1, 2].all(x, {e} && x == 3)");
        prop_assert_eq!(eval(&env, &t), Out::Bool(false), "{}", t);
    }

    /// Numeric comparisons across int, uint and double.
    #[test]
    fn numeric_comparisons_are_consistent(a in num(), b in num()) {
        let env = Environment::latest();
        let (ta, tb) = (a.text(), b.text());
        let ord = cel_cmp(a, b);
        let cases: [(&str, Option<bool>); 6] = [
            ("<", ord.map(|o| o == Ordering::Less)),
            ("<=", ord.map(|o| o != Ordering::Greater)),
            (">", ord.map(|o| o == Ordering::Greater)),
            (">=", ord.map(|o| o != Ordering::Less)),
            // Equality is defined with NaN: it equals nothing.
            ("==", Some(ord == Some(Ordering::Equal))),
            ("!=", Some(ord != Some(Ordering::Equal))),
        ];
        for (op, want) in cases {
            let t = format!("{ta} {op} {tb}");
            prop_assert_eq!(eval(&env, &t), expect(want), "{}", t);
        }
        // Converse and complement, as expressions.
        let lt = eval(&env, &format!("{ta} < {tb}"));
        prop_assert_eq!(lt, eval(&env, &format!("{tb} > {ta}")));
        let le = eval(&env, &format!("{ta} <= {tb}"));
        prop_assert_eq!(le, eval(&env, &format!("{tb} >= {ta}")));
        let eq = eval(&env, &format!("{ta} == {tb}"));
        let ne = eval(&env, &format!("{ta} != {tb}"));
        prop_assert_eq!(eq.clone(), eval(&env, &format!("{tb} == {ta}")));
        prop_assert!(matches!((&eq, &ne), (Out::Bool(x), Out::Bool(y)) if x != y));
    }

    /// The decision class does not depend on the order of the conditions.
    #[test]
    fn decision_does_not_depend_on_order(
        kinds in prop::collection::vec(0u8..3, 1..10)
            .prop_flat_map(|v| (Just(v.clone()), Just(v).prop_shuffle())),
        fail in any::<bool>(),
    ) {
        let env = Environment::latest();
        let (original, shuffled) = kinds;
        let policy = if fail { FailurePolicy::Fail } else { FailurePolicy::Ignore };
        let want = {
            let any_false = original.contains(&1);
            let any_error = original.contains(&2);
            match (any_false, any_error, fail) {
                (true, _, _) => "skip",
                (false, true, true) => "reject",
                (false, true, false) => "skip(error)",
                (false, false, _) => "call",
            }
        };
        for order in [&original, &shuffled] {
            let conds: Vec<MatchCondition> = order
                .iter()
                .enumerate()
                .map(|(i, k)| {
                    let expr = match k {
                        0 => ["object.t == true", "object.n == 5", "'a' in [object.s]"][i % 3],
                        1 => ["object.f == true", "object.n == 4", "object.s.startsWith('b')"][i % 3],
                        _ => ["object.missing == 1", "1 / object.zero == 1", "[1][object.i] == 1"][i % 3],
                    };
                    MatchCondition::new(format!("c{i}-{k}"), expr)
                })
                .collect();
            let compiled = MatchConditions::compile(&env, &conds).unwrap();
            prop_assert!(compiled.compile_errors().is_empty());
            let request = json!({"object": doc()});
            let act = Activation::from_request(&request);
            let d = compiled.decide(&act, policy);
            let got = match &d {
                Decision::Call => "call",
                Decision::Skip(Skip::Condition(name)) => {
                    // The false condition named is the first false in this order.
                    let first_false = order.iter().position(|k| *k == 1).unwrap();
                    prop_assert_eq!(name.as_ref(), format!("c{first_false}-1"));
                    "skip"
                }
                Decision::Skip(Skip::Ignored(e)) => {
                    // The error carried is the one `Fail` rejects with.
                    let fail = compiled.decide(&act, FailurePolicy::Fail);
                    prop_assert_eq!(fail, Decision::Reject { message: e.message().into() });
                    "skip(error)"
                }
                Decision::Skip(other) => panic!("unexpected skip {other:?}"),
                Decision::Reject { .. } => "reject",
            };
            prop_assert_eq!(got, want, "{:?}", order);
        }
    }
}

#[test]
fn cel_go_comparison_examples() {
    // Checked against cel-go's rules: an int is compared with a double as a double.
    let env = Environment::latest();
    for (expr, want) in [
        ("9223372036854775807 < 9223372036854775808.0", false),
        ("9007199254740993 == 9007199254740992.0", true),
        ("18446744073709551615u > 1.8446744073709552e19", false),
        ("-1 < 0u", true),
        ("1u < -1", false),
        ("1 < 1.5", true),
    ] {
        assert_eq!(eval(&env, expr), Out::Bool(want), "{expr}");
    }
    assert_eq!(eval(&env, "(0.0 / 0.0) < 1.0"), Out::Error);
    assert_eq!(eval(&env, "(0.0 / 0.0) == (0.0 / 0.0)"), Out::Bool(false));
}
