//! Expectation checks: comparing what the engine gave with what a case expects.
//!
//! `value` is compared loosely with [`loose_equal`], `equals` strictly with [`strict_equal`]; error
//! expectations are case-insensitive substring matches ([`contains_ci`]). A failed check is
//! described as `expected <...>, got <...>`, each side on one line and at most
//! [`MAX_SHOWN`] characters long.

use base64::Engine as _;

use crate::model::{CelValue, DecisionOutcome, Engine, ExprOutcome};
use crate::suite::{listed, Decision, Expectation};

/// The longest text shown for one side (expected or got) of a failure.
pub const MAX_SHOWN: usize = 300;

/// Makes a text fit on one line (line breaks shown as `\n`) and shortens it to `max` characters.
pub fn one_line(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (count, c) in text.chars().enumerate() {
        if count >= max {
            let total = text.chars().count();
            out.push_str(&format!("… ({} more chars)", total - count));
            break;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() && c != '\t' => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

fn shown(text: &str) -> String {
    one_line(text, MAX_SHOWN)
}

/// Whether `haystack` contains `needle`, ignoring case (`""` is contained in everything).
pub fn contains_ci(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(&needle.to_lowercase())
}

#[derive(Clone, Copy)]
enum Num {
    I(i64),
    U(u64),
    F(f64),
}

/// 2^63 and 2^64 as doubles: the ends of the int and uint ranges.
const TWO_63: f64 = 9_223_372_036_854_775_808.0;
const TWO_64: f64 = 18_446_744_073_709_551_616.0;

fn num_eq(a: Num, b: Num) -> bool {
    match (a, b) {
        (Num::I(x), Num::I(y)) => x == y,
        (Num::U(x), Num::U(y)) => x == y,
        (Num::F(x), Num::F(y)) => x == y,
        (Num::I(i), Num::U(u)) | (Num::U(u), Num::I(i)) => u64::try_from(i) == Ok(u),
        (Num::I(i), Num::F(f)) | (Num::F(f), Num::I(i)) => {
            // `as` is exact here: f is integral and inside the int range.
            f.is_finite() && f.fract() == 0.0 && (-TWO_63..TWO_63).contains(&f) && f as i64 == i
        }
        (Num::U(u), Num::F(f)) | (Num::F(f), Num::U(u)) => {
            f.is_finite() && f.fract() == 0.0 && (0.0..TWO_64).contains(&f) && f as u64 == u
        }
    }
}

fn json_num(n: &serde_json::Number) -> Option<Num> {
    if let Some(i) = n.as_i64() {
        Some(Num::I(i))
    } else if let Some(u) = n.as_u64() {
        Some(Num::U(u))
    } else {
        n.as_f64().map(Num::F)
    }
}

/// Parses a duration written as seconds (`1.5s`, `-3s`, `0.000000001s`) into nanoseconds.
pub fn parse_duration(text: &str) -> Option<i64> {
    let body = text.strip_suffix('s')?;
    let (negative, body) = match body.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, body),
    };
    let (whole, frac) = match body.split_once('.') {
        Some((w, f)) => (w, f),
        None => (body, ""),
    };
    if whole.is_empty()
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
        || frac.len() > 9
        || (body.contains('.') && frac.is_empty())
    {
        return None;
    }
    let secs: i128 = whole.parse().ok()?;
    let frac_nanos: i128 = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<9}").parse().ok()?
    };
    let magnitude = secs.checked_mul(1_000_000_000)?.checked_add(frac_nanos)?;
    let nanos = if negative { -magnitude } else { magnitude };
    i64::try_from(nanos).ok()
}

/// Parses RFC 3339 text into seconds and nanoseconds since the Unix epoch.
pub fn parse_timestamp(text: &str) -> Option<(i64, u32)> {
    let instant = chrono::DateTime::parse_from_rfc3339(text).ok()?;
    Some((instant.timestamp(), instant.timestamp_subsec_nanos()))
}

/// The text a map key is matched against in a JSON object: a string as is, an int, uint or bool
/// as its decimal/`true`/`false` text.
fn key_text(key: &CelValue) -> String {
    match key {
        CelValue::String(s) => s.clone(),
        CelValue::Int(i) => i.to_string(),
        CelValue::Uint(u) => u.to_string(),
        CelValue::Bool(b) => b.to_string(),
        other => other.to_string(),
    }
}

/// The loose comparison of a `value` expectation (JSON) with a result:
/// - `null` matches `null` and `optional.none()`; `optional.of(v)` is compared as `v`;
/// - numbers match int, uint and double results by exact numeric value;
/// - a string matches a string; bytes by their base64 text (padding optional); a timestamp when
///   it is RFC 3339 text for the same instant; a duration when it is `<seconds>s` text for the
///   same length (`1.5s`); a type value by its name; a library value by its text form;
/// - an array matches a list of the same length, element by element, in order;
/// - an object matches a map of the same size when each key (int, uint and bool keys by their
///   text) has a loosely equal value, regardless of order.
pub fn loose_equal(expected: &serde_json::Value, got: &CelValue) -> bool {
    use serde_json::Value as J;
    if let CelValue::Optional(Some(inner)) = got {
        return loose_equal(expected, inner);
    }
    match (expected, got) {
        (J::Null, CelValue::Null | CelValue::Optional(None)) => true,
        (J::Bool(a), CelValue::Bool(b)) => a == b,
        (J::Number(n), CelValue::Int(i)) => json_num(n).is_some_and(|n| num_eq(n, Num::I(*i))),
        (J::Number(n), CelValue::Uint(u)) => json_num(n).is_some_and(|n| num_eq(n, Num::U(*u))),
        (J::Number(n), CelValue::Double(d)) => json_num(n).is_some_and(|n| num_eq(n, Num::F(*d))),
        (J::String(a), CelValue::String(b)) => a == b,
        (J::String(text), CelValue::Bytes(bytes)) => {
            let engines = [
                base64::engine::general_purpose::STANDARD,
                base64::engine::general_purpose::STANDARD_NO_PAD,
            ];
            engines
                .iter()
                .any(|engine| engine.decode(text).is_ok_and(|decoded| decoded == *bytes))
        }
        (J::String(text), CelValue::Timestamp { secs, nanos }) => {
            parse_timestamp(text) == Some((*secs, *nanos))
        }
        (J::String(text), CelValue::Duration { nanos }) => parse_duration(text) == Some(*nanos),
        (J::String(text), CelValue::Type(name)) => text == name,
        (J::String(text), CelValue::Opaque { text: got, .. }) => text == got,
        (J::Array(items), CelValue::List(values)) => {
            items.len() == values.len()
                && items
                    .iter()
                    .zip(values.iter())
                    .all(|(e, g)| loose_equal(e, g))
        }
        (J::Object(fields), CelValue::Map(entries)) => {
            if fields.len() != entries.len() {
                return false;
            }
            let mut used = vec![false; entries.len()];
            fields.iter().all(|(key, value)| {
                let found = entries
                    .iter()
                    .zip(used.iter_mut())
                    .find(|((k, v), used)| !**used && key_text(k) == *key && loose_equal(value, v));
                match found {
                    Some((_, used)) => {
                        *used = true;
                        true
                    }
                    None => false,
                }
            })
        }
        _ => false,
    }
}

/// The strict comparison of an `equals` expectation: the same type at every level, then CEL
/// equality, except that NaN equals NaN (and, as in CEL, -0.0 equals 0.0); maps regardless of
/// entry order.
pub fn strict_equal(a: &CelValue, b: &CelValue) -> bool {
    use CelValue as V;
    match (a, b) {
        (V::Null, V::Null) => true,
        (V::Bool(x), V::Bool(y)) => x == y,
        (V::Int(x), V::Int(y)) => x == y,
        (V::Uint(x), V::Uint(y)) => x == y,
        (V::Double(x), V::Double(y)) => x == y || (x.is_nan() && y.is_nan()),
        (V::String(x), V::String(y)) => x == y,
        (V::Bytes(x), V::Bytes(y)) => x == y,
        (V::List(x), V::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| strict_equal(p, q))
        }
        (V::Map(x), V::Map(y)) => {
            if x.len() != y.len() {
                return false;
            }
            let mut used = vec![false; y.len()];
            x.iter().all(|(xk, xv)| {
                let found = y.iter().zip(used.iter_mut()).find(|((yk, yv), used)| {
                    !**used && strict_equal(xk, yk) && strict_equal(xv, yv)
                });
                match found {
                    Some((_, used)) => {
                        *used = true;
                        true
                    }
                    None => false,
                }
            })
        }
        (
            V::Timestamp {
                secs: s1,
                nanos: n1,
            },
            V::Timestamp {
                secs: s2,
                nanos: n2,
            },
        ) => s1 == s2 && n1 == n2,
        (V::Duration { nanos: x }, V::Duration { nanos: y }) => x == y,
        (V::Type(x), V::Type(y)) => x == y,
        (V::Optional(None), V::Optional(None)) => true,
        (V::Optional(Some(x)), V::Optional(Some(y))) => strict_equal(x, y),
        (
            V::Opaque {
                type_name: t1,
                text: x1,
            },
            V::Opaque {
                type_name: t2,
                text: x2,
            },
        ) => t1 == t2 && x1 == x2,
        _ => false,
    }
}

fn containing(what: &str, text: &str) -> String {
    if text.is_empty() {
        format!("any {what}")
    } else {
        format!("{what} containing {:?}", text)
    }
}

fn with_type_and_cost(mut text: String, type_name: Option<&str>, cost: Option<u64>) -> String {
    if let Some(t) = type_name {
        text.push_str(&format!(" of type {t}"));
    }
    if let Some(c) = cost {
        text.push_str(&format!(", cost {c}"));
    }
    text
}

/// Describes an expectation (the `expected ...` part of a failure).
pub fn describe_expectation(expect: &Expectation) -> String {
    match expect {
        Expectation::Value {
            value,
            type_name,
            cost,
        } => with_type_and_cost(format!("value {value}"), type_name.as_deref(), *cost),
        Expectation::Equals {
            expression,
            type_name,
            cost,
        } => with_type_and_cost(format!("equals {expression}"), type_name.as_deref(), *cost),
        Expectation::CompileError(text) => containing("compile error", text),
        Expectation::EvalError(text) => containing("evaluation error", text),
        Expectation::AnyError(text) => containing("error", text),
        Expectation::Compiles => "the expression to compile".to_owned(),
        Expectation::Decision {
            decision,
            failed_condition,
            error,
            cost,
        } => {
            let mut text = format!("decision {decision}");
            if let Some(name) = failed_condition {
                text.push_str(&format!(" (failed condition {name:?})"));
            }
            if let Some(e) = error {
                text.push_str(&format!(" ({})", containing("error", e)));
            }
            if let Some(c) = cost {
                text.push_str(&format!(", cost {c}"));
            }
            text
        }
        Expectation::Invalid(texts) if texts.is_empty() => "no validation errors".to_owned(),
        Expectation::Invalid(texts) => format!(
            "validation errors containing {}",
            listed(texts, |t| format!("{t:?}"))
        ),
    }
}

/// Describes an expression outcome (the `got ...` part of a failure).
pub fn describe_expr_outcome(outcome: &ExprOutcome) -> String {
    match outcome {
        ExprOutcome::CompileError(message) => format!("compile error: {message}"),
        ExprOutcome::EvalError { message, .. } => format!("evaluation error: {message}"),
        ExprOutcome::Value { value, cost } => {
            format!("value {value} (type {}, cost {cost})", value.type_name())
        }
    }
}

/// Describes a decision outcome.
pub fn describe_decision(outcome: &DecisionOutcome) -> String {
    match outcome {
        DecisionOutcome::Call { cost } => format!("decision Call (cost {cost})"),
        DecisionOutcome::Skip {
            failed_condition: Some(name),
            cost,
        } => format!("decision Skip (failed condition {name:?}, cost {cost})"),
        DecisionOutcome::Skip {
            failed_condition: None,
            cost,
        } => format!("decision Skip (no failed condition, cost {cost})"),
        DecisionOutcome::Reject { message, cost } => {
            format!("decision Reject: {message} (cost {cost})")
        }
        DecisionOutcome::CompileError(message) => format!("compile error: {message}"),
    }
}

/// A failure line's text: `expected <...>, got <...>`.
pub fn mismatch(expected: &str, got: &str) -> String {
    format!("expected {}, got {}", shown(expected), shown(got))
}

/// Checks an expression case's outcome. `engine` evaluates `equals` literals.
pub fn check_expr(
    expect: &Expectation,
    outcome: &ExprOutcome,
    engine: &dyn Engine,
) -> Result<(), String> {
    let fail = || {
        Err(mismatch(
            &describe_expectation(expect),
            &describe_expr_outcome(outcome),
        ))
    };
    match (expect, outcome) {
        (
            Expectation::Value {
                value: expected,
                type_name,
                cost,
            },
            ExprOutcome::Value { value, cost: got },
        ) => {
            let ok = loose_equal(expected, value)
                && type_name
                    .as_ref()
                    .is_none_or(|t| *t == engine.type_name(value))
                && cost.is_none_or(|c| c == *got);
            if ok {
                Ok(())
            } else {
                fail()
            }
        }
        (
            Expectation::Equals {
                expression,
                type_name,
                cost,
            },
            ExprOutcome::Value { value, cost: got },
        ) => {
            let literal = engine.eval_literal(expression).map_err(|e| {
                mismatch(
                    &format!("equals {expression} (which could not be evaluated: {e})"),
                    &describe_expr_outcome(outcome),
                )
            })?;
            let ok = strict_equal(&literal, value)
                && type_name
                    .as_ref()
                    .is_none_or(|t| *t == engine.type_name(value))
                && cost.is_none_or(|c| c == *got);
            if ok {
                Ok(())
            } else {
                let mut expected = format!("equals {literal}");
                if literal.to_string() != *expression {
                    expected = format!("equals {expression} = {literal}");
                }
                Err(mismatch(
                    &with_type_and_cost(expected, type_name.as_deref(), *cost),
                    &describe_expr_outcome(outcome),
                ))
            }
        }
        (Expectation::CompileError(text), ExprOutcome::CompileError(message))
        | (Expectation::AnyError(text), ExprOutcome::CompileError(message))
        | (Expectation::EvalError(text), ExprOutcome::EvalError { message, .. })
        | (Expectation::AnyError(text), ExprOutcome::EvalError { message, .. }) => {
            if contains_ci(message, text) {
                Ok(())
            } else {
                fail()
            }
        }
        (Expectation::Compiles, ExprOutcome::Value { .. } | ExprOutcome::EvalError { .. }) => {
            Ok(())
        }
        _ => fail(),
    }
}

/// Checks a decision (matchConditions or webhook case). `compileError` matches a compile error;
/// `error` alone matches a compile error or a rejection.
pub fn check_decision(expect: &Expectation, outcome: &DecisionOutcome) -> Result<(), String> {
    let ok = match (expect, outcome) {
        (
            Expectation::Decision {
                decision,
                failed_condition,
                error,
                cost,
            },
            got,
        ) => match (decision, got) {
            (Decision::Call, DecisionOutcome::Call { cost: c }) => cost.is_none_or(|e| e == *c),
            (
                Decision::Skip,
                DecisionOutcome::Skip {
                    failed_condition: got_name,
                    cost: c,
                },
            ) => {
                cost.is_none_or(|e| e == *c)
                    && failed_condition
                        .as_ref()
                        .is_none_or(|name| got_name.as_ref() == Some(name))
            }
            (Decision::Reject, DecisionOutcome::Reject { message, cost: c }) => {
                cost.is_none_or(|e| e == *c)
                    && error.as_ref().is_none_or(|text| contains_ci(message, text))
            }
            _ => false,
        },
        (Expectation::CompileError(text), DecisionOutcome::CompileError(message))
        | (Expectation::AnyError(text), DecisionOutcome::CompileError(message))
        | (Expectation::AnyError(text), DecisionOutcome::Reject { message, .. }) => {
            contains_ci(message, text)
        }
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(mismatch(
            &describe_expectation(expect),
            &describe_decision(outcome),
        ))
    }
}

/// Checks the validation errors of a configuration against `invalid`: each expected text must be
/// contained (case-sensitively) in some error; `[]` requires no error at all.
pub fn check_invalid(expected: &[String], errors: &[String]) -> Result<(), String> {
    let ok = if expected.is_empty() {
        errors.is_empty()
    } else {
        expected
            .iter()
            .all(|text| errors.iter().any(|e| e.contains(text.as_str())))
    };
    if ok {
        Ok(())
    } else {
        let got = if errors.is_empty() {
            "no validation errors".to_owned()
        } else {
            format!("validation errors {}", listed(errors, |e| format!("{e:?}")))
        };
        Err(mismatch(
            &describe_expectation(&Expectation::Invalid(expected.to_vec())),
            &got,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{format_duration, ConditionsInput, ExprInput};
    use serde_json::json;

    fn s(text: &str) -> CelValue {
        CelValue::String(text.into())
    }

    #[test]
    fn loose_numbers_compare_by_value() {
        assert!(loose_equal(&json!(1), &CelValue::Int(1)));
        assert!(loose_equal(&json!(1), &CelValue::Uint(1)));
        assert!(loose_equal(&json!(1), &CelValue::Double(1.0)));
        assert!(loose_equal(&json!(1.0), &CelValue::Int(1)));
        assert!(loose_equal(&json!(-0.0), &CelValue::Int(0)));
        assert!(loose_equal(&json!(2.5), &CelValue::Double(2.5)));
        assert!(!loose_equal(&json!(2.5), &CelValue::Int(2)));
        assert!(!loose_equal(&json!(-1), &CelValue::Uint(u64::MAX)));
        assert!(loose_equal(&json!(u64::MAX), &CelValue::Uint(u64::MAX)));
        assert!(!loose_equal(&json!(u64::MAX), &CelValue::Int(-1)));
        assert!(loose_equal(&json!(i64::MIN), &CelValue::Int(i64::MIN)));
        // 2^63 as a double is not an int, and is not i64::MAX.
        assert!(!loose_equal(&json!(TWO_63), &CelValue::Int(i64::MAX)));
        assert!(loose_equal(&json!(TWO_63), &CelValue::Uint(1 << 63)));
        // Exact: i64::MAX is not the nearest double 2^63.
        assert!(!loose_equal(&json!(i64::MAX), &CelValue::Double(TWO_63)));
        assert!(!loose_equal(&json!(1), &CelValue::Double(f64::NAN)));
        assert!(!loose_equal(&json!(1), &CelValue::Bool(true)));
        assert!(!loose_equal(&json!(1), &s("1")));
    }

    #[test]
    fn loose_scalars() {
        assert!(loose_equal(&json!(null), &CelValue::Null));
        assert!(loose_equal(&json!(null), &CelValue::Optional(None)));
        assert!(!loose_equal(&json!(null), &CelValue::Bool(false)));
        assert!(loose_equal(&json!(true), &CelValue::Bool(true)));
        assert!(!loose_equal(&json!(true), &CelValue::Bool(false)));
        assert!(loose_equal(&json!("a"), &s("a")));
        assert!(!loose_equal(&json!("a"), &s("A")));
        assert!(loose_equal(&json!("AP8="), &CelValue::Bytes(vec![0, 0xff])));
        assert!(loose_equal(&json!("AP8"), &CelValue::Bytes(vec![0, 0xff])));
        assert!(loose_equal(&json!(""), &CelValue::Bytes(vec![])));
        assert!(!loose_equal(&json!("AP8="), &CelValue::Bytes(vec![0])));
        assert!(!loose_equal(&json!("\u{0}"), &CelValue::Bytes(vec![0])));
        let ts = CelValue::Timestamp {
            secs: 1_234_567_890,
            nanos: 500_000_000,
        };
        assert!(loose_equal(&json!("2009-02-13T23:31:30.5Z"), &ts));
        assert!(loose_equal(&json!("2009-02-13T23:31:30.500Z"), &ts));
        assert!(loose_equal(&json!("2009-02-14T00:31:30.5+01:00"), &ts));
        assert!(!loose_equal(&json!("2009-02-13T23:31:30Z"), &ts));
        assert!(!loose_equal(&json!("yesterday"), &ts));
        let d = CelValue::Duration {
            nanos: 1_500_000_000,
        };
        assert!(loose_equal(&json!("1.5s"), &d));
        assert!(loose_equal(&json!("1.500s"), &d));
        assert!(!loose_equal(&json!("1.5"), &d));
        assert!(!loose_equal(&json!(1.5), &d));
        assert!(loose_equal(&json!("0s"), &CelValue::Duration { nanos: 0 }));
        assert!(loose_equal(
            &json!("-0.000000001s"),
            &CelValue::Duration { nanos: -1 }
        ));
        assert!(loose_equal(&json!("int"), &CelValue::Type("int".into())));
        let ip = CelValue::Opaque {
            type_name: "net.IP".into(),
            text: "10.0.0.1".into(),
        };
        assert!(loose_equal(&json!("10.0.0.1"), &ip));
        assert!(!loose_equal(&json!("10.0.0.2"), &ip));
        assert!(loose_equal(
            &json!(3),
            &CelValue::Optional(Some(Box::new(CelValue::Int(3))))
        ));
        assert!(!loose_equal(
            &json!(null),
            &CelValue::Optional(Some(Box::new(CelValue::Int(3))))
        ));
    }

    #[test]
    fn loose_aggregates() {
        let list = CelValue::List(vec![CelValue::Int(1), s("a"), CelValue::Null]);
        assert!(loose_equal(&json!([1, "a", null]), &list));
        assert!(!loose_equal(&json!(["a", 1, null]), &list));
        assert!(!loose_equal(&json!([1, "a"]), &list));
        let map = CelValue::Map(vec![
            (s("b"), CelValue::List(vec![CelValue::Uint(2)])),
            (s("a"), CelValue::Double(1.0)),
        ]);
        assert!(loose_equal(&json!({"a": 1, "b": [2]}), &map));
        assert!(!loose_equal(&json!({"a": 1, "b": [3]}), &map));
        assert!(!loose_equal(&json!({"a": 1}), &map));
        assert!(!loose_equal(&json!({"a": 1, "c": [2]}), &map));
        let int_keys = CelValue::Map(vec![
            (CelValue::Int(1), s("x")),
            (CelValue::Uint(2), s("y")),
            (CelValue::Bool(true), s("z")),
        ]);
        assert!(loose_equal(
            &json!({"1": "x", "2": "y", "true": "z"}),
            &int_keys
        ));
        assert!(!loose_equal(&json!([]), &CelValue::Map(vec![])));
        assert!(loose_equal(&json!({}), &CelValue::Map(vec![])));
    }

    #[test]
    fn strict_equality() {
        assert!(strict_equal(&CelValue::Int(1), &CelValue::Int(1)));
        assert!(!strict_equal(&CelValue::Int(1), &CelValue::Uint(1)));
        assert!(!strict_equal(&CelValue::Int(1), &CelValue::Double(1.0)));
        assert!(strict_equal(
            &CelValue::Double(f64::NAN),
            &CelValue::Double(f64::NAN)
        ));
        assert!(strict_equal(
            &CelValue::Double(-0.0),
            &CelValue::Double(0.0)
        ));
        assert!(!strict_equal(
            &CelValue::Double(1.0),
            &CelValue::Double(1.5)
        ));
        assert!(!strict_equal(&CelValue::Null, &CelValue::Optional(None)));
        assert!(strict_equal(
            &CelValue::List(vec![CelValue::Int(1), CelValue::Uint(2)]),
            &CelValue::List(vec![CelValue::Int(1), CelValue::Uint(2)])
        ));
        assert!(!strict_equal(
            &CelValue::List(vec![CelValue::Int(1), CelValue::Uint(2)]),
            &CelValue::List(vec![CelValue::Int(1), CelValue::Int(2)])
        ));
        assert!(!strict_equal(
            &CelValue::List(vec![CelValue::Int(1)]),
            &CelValue::List(vec![CelValue::Int(1), CelValue::Int(1)])
        ));
        let m1 = CelValue::Map(vec![(s("a"), CelValue::Int(1)), (s("b"), CelValue::Int(2))]);
        let m2 = CelValue::Map(vec![(s("b"), CelValue::Int(2)), (s("a"), CelValue::Int(1))]);
        let m3 = CelValue::Map(vec![
            (s("b"), CelValue::Int(2)),
            (s("a"), CelValue::Uint(1)),
        ]);
        assert!(strict_equal(&m1, &m2));
        assert!(!strict_equal(&m1, &m3));
        assert!(!strict_equal(
            &m1,
            &CelValue::Map(vec![(s("a"), CelValue::Int(1))])
        ));
        assert!(strict_equal(
            &CelValue::Timestamp { secs: 1, nanos: 2 },
            &CelValue::Timestamp { secs: 1, nanos: 2 }
        ));
        assert!(!strict_equal(
            &CelValue::Timestamp { secs: 1, nanos: 2 },
            &CelValue::Timestamp { secs: 1, nanos: 3 }
        ));
        assert!(!strict_equal(
            &CelValue::Duration { nanos: 1 },
            &CelValue::Timestamp { secs: 0, nanos: 1 }
        ));
        assert!(strict_equal(
            &CelValue::Type("int".into()),
            &CelValue::Type("int".into())
        ));
        assert!(!strict_equal(&CelValue::Type("int".into()), &s("int")));
        assert!(strict_equal(
            &CelValue::Optional(Some(Box::new(CelValue::Int(1)))),
            &CelValue::Optional(Some(Box::new(CelValue::Int(1))))
        ));
        assert!(!strict_equal(
            &CelValue::Optional(Some(Box::new(CelValue::Int(1)))),
            &CelValue::Optional(None)
        ));
        assert!(strict_equal(
            &CelValue::Bytes(vec![1]),
            &CelValue::Bytes(vec![1])
        ));
        assert!(!strict_equal(&CelValue::Bytes(vec![1]), &s("\u{1}")));
        let q = |t: &str| CelValue::Opaque {
            type_name: "kubernetes.Quantity".into(),
            text: t.into(),
        };
        assert!(strict_equal(&q("1Gi"), &q("1Gi")));
        assert!(!strict_equal(&q("1Gi"), &q("1G")));
    }

    #[test]
    fn durations_parse() {
        assert_eq!(parse_duration("0s"), Some(0));
        assert_eq!(parse_duration("1.5s"), Some(1_500_000_000));
        assert_eq!(parse_duration("-3s"), Some(-3_000_000_000));
        assert_eq!(parse_duration("0.000000001s"), Some(1));
        assert_eq!(parse_duration("-9223372036.854775808s"), Some(i64::MIN));
        assert_eq!(parse_duration("9223372036.854775808s"), None);
        assert_eq!(parse_duration("1.s"), None);
        assert_eq!(parse_duration(".5s"), None);
        assert_eq!(parse_duration("1.0000000001s"), None);
        assert_eq!(parse_duration("1m"), None);
        assert_eq!(parse_duration("s"), None);
        assert_eq!(
            parse_duration(&format_duration(-1_500_000_000)),
            Some(-1_500_000_000)
        );
    }

    #[test]
    fn substrings_ignore_case() {
        assert!(contains_ci("No Such Overload", "no such overload"));
        assert!(contains_ci("anything", ""));
        assert!(!contains_ci("division by zero", "modulus"));
    }

    #[test]
    fn one_line_truncates() {
        assert_eq!(one_line("a\nb", 10), "a\\nb");
        assert_eq!(one_line("abcdef", 3), "abc… (3 more chars)");
        assert_eq!(one_line("ééé", 3), "ééé");
        assert_eq!(one_line("é\u{7}", 5), "é\\u0007");
    }

    /// Evaluates `equals` literals from a fixed table.
    struct Literals;
    impl Engine for Literals {
        fn eval(&self, _: &ExprInput<'_>) -> Result<ExprOutcome, String> {
            Err("unused".into())
        }
        fn eval_literal(&self, expression: &str) -> Result<CelValue, String> {
            match expression {
                "1" => Ok(CelValue::Int(1)),
                "1u" => Ok(CelValue::Uint(1)),
                "double('NaN')" => Ok(CelValue::Double(f64::NAN)),
                _ => Err(format!("cannot evaluate {expression}")),
            }
        }
        fn decide(&self, _: &ConditionsInput<'_>) -> Result<DecisionOutcome, String> {
            Err("unused".into())
        }
    }

    fn value(v: CelValue, cost: u64) -> ExprOutcome {
        ExprOutcome::Value { value: v, cost }
    }

    #[test]
    fn expression_checks() {
        let e = &Literals;
        let val = |j: serde_json::Value, t: Option<&str>, c: Option<u64>| Expectation::Value {
            value: j,
            type_name: t.map(str::to_owned),
            cost: c,
        };
        assert_eq!(
            check_expr(
                &val(json!(1), Some("uint"), Some(3)),
                &value(CelValue::Uint(1), 3),
                e
            ),
            Ok(())
        );
        assert_eq!(
            check_expr(
                &val(json!(1), Some("int"), None),
                &value(CelValue::Uint(1), 3),
                e
            ),
            Err("expected value 1 of type int, got value 1u (type uint, cost 3)".into())
        );
        assert_eq!(
            check_expr(
                &val(json!(1), None, Some(2)),
                &value(CelValue::Uint(1), 3),
                e
            ),
            Err("expected value 1, cost 2, got value 1u (type uint, cost 3)".into())
        );
        assert_eq!(
            check_expr(
                &val(json!(1), None, None),
                &ExprOutcome::EvalError {
                    message: "no such overload".into(),
                    cost: None
                },
                e
            ),
            Err("expected value 1, got evaluation error: no such overload".into())
        );
        let eq = |x: &str| Expectation::Equals {
            expression: x.into(),
            type_name: None,
            cost: None,
        };
        assert_eq!(check_expr(&eq("1"), &value(CelValue::Int(1), 1), e), Ok(()));
        assert_eq!(
            check_expr(&eq("1u"), &value(CelValue::Int(1), 1), e),
            Err("expected equals 1u, got value 1 (type int, cost 1)".into())
        );
        assert_eq!(
            check_expr(&eq("double('NaN')"), &value(CelValue::Double(0.5), 1), e),
            Err("expected equals double('NaN') = double(\"NaN\"), got value 0.5 (type double, cost 1)".into())
        );
        assert_eq!(
            check_expr(
                &eq("double('NaN')"),
                &value(CelValue::Double(f64::NAN), 1),
                e
            ),
            Ok(())
        );
        assert_eq!(
            check_expr(&eq("x"), &value(CelValue::Int(1), 1), e),
            Err("expected equals x (which could not be evaluated: cannot evaluate x), got value 1 (type int, cost 1)".into())
        );
        let compile = ExprOutcome::CompileError(
            "ERROR: <input>:1:1: Undeclared reference to 'x'\n | x\n | ^".into(),
        );
        let eval = ExprOutcome::EvalError {
            message: "division by zero".into(),
            cost: Some(1),
        };
        assert_eq!(
            check_expr(&Expectation::CompileError("undeclared".into()), &compile, e),
            Ok(())
        );
        assert_eq!(
            check_expr(&Expectation::CompileError(String::new()), &compile, e),
            Ok(())
        );
        assert_eq!(
            check_expr(&Expectation::CompileError("overload".into()), &compile, e),
            Err("expected compile error containing \"overload\", got compile error: ERROR: <input>:1:1: Undeclared reference to 'x'\\n | x\\n | ^".into())
        );
        assert_eq!(
            check_expr(&Expectation::CompileError(String::new()), &eval, e),
            Err("expected any compile error, got evaluation error: division by zero".into())
        );
        assert_eq!(
            check_expr(&Expectation::EvalError("DIVISION".into()), &eval, e),
            Ok(())
        );
        assert_eq!(
            check_expr(&Expectation::EvalError(String::new()), &compile, e)
                .map_err(|m| m.starts_with("expected any evaluation error, got compile error")),
            Err(true)
        );
        assert_eq!(
            check_expr(
                &Expectation::EvalError(String::new()),
                &value(CelValue::Null, 0),
                e
            ),
            Err("expected any evaluation error, got value null (type null_type, cost 0)".into())
        );
        assert_eq!(
            check_expr(&Expectation::AnyError(String::new()), &compile, e),
            Ok(())
        );
        assert_eq!(
            check_expr(&Expectation::AnyError("zero".into()), &eval, e),
            Ok(())
        );
        assert!(check_expr(
            &Expectation::AnyError(String::new()),
            &value(CelValue::Null, 0),
            e
        )
        .is_err());
        assert_eq!(
            check_expr(&Expectation::Compiles, &value(CelValue::Null, 0), e),
            Ok(())
        );
        assert_eq!(check_expr(&Expectation::Compiles, &eval, e), Ok(()));
        assert_eq!(
            check_expr(&Expectation::Compiles, &compile, e).map_err(
                |m| m.starts_with("expected the expression to compile, got compile error: ")
            ),
            Err(true)
        );
    }

    #[test]
    fn long_values_are_truncated() {
        let long = CelValue::String("x".repeat(1000));
        let err = check_expr(
            &Expectation::Value {
                value: json!("y"),
                type_name: None,
                cost: None,
            },
            &value(long, 1),
            &Literals,
        )
        .unwrap_err();
        assert!(err.len() < 400, "{err}");
        assert!(err.ends_with("… (730 more chars)"), "{err}");
    }

    #[test]
    fn decision_checks() {
        let d = |decision, failed: Option<&str>, error: Option<&str>, cost| Expectation::Decision {
            decision,
            failed_condition: failed.map(str::to_owned),
            error: error.map(str::to_owned),
            cost,
        };
        let skip_b = DecisionOutcome::Skip {
            failed_condition: Some("b".into()),
            cost: 4,
        };
        let reject = DecisionOutcome::Reject {
            message: "expression 'a' resulted in error: No such key: x".into(),
            cost: 2,
        };
        assert_eq!(
            check_decision(
                &d(Decision::Call, None, None, None),
                &DecisionOutcome::Call { cost: 7 }
            ),
            Ok(())
        );
        assert_eq!(
            check_decision(
                &d(Decision::Call, None, None, Some(6)),
                &DecisionOutcome::Call { cost: 7 }
            ),
            Err("expected decision Call, cost 6, got decision Call (cost 7)".into())
        );
        assert_eq!(
            check_decision(&d(Decision::Skip, Some("b"), None, Some(4)), &skip_b),
            Ok(())
        );
        assert_eq!(
            check_decision(&d(Decision::Skip, None, None, None), &skip_b),
            Ok(())
        );
        assert_eq!(
            check_decision(&d(Decision::Skip, Some("a"), None, None), &skip_b),
            Err("expected decision Skip (failed condition \"a\"), got decision Skip (failed condition \"b\", cost 4)".into())
        );
        assert!(check_decision(
            &d(Decision::Skip, Some("a"), None, None),
            &DecisionOutcome::Skip {
                failed_condition: None,
                cost: 0
            }
        )
        .is_err());
        assert_eq!(
            check_decision(
                &d(Decision::Reject, None, Some("no such KEY"), None),
                &reject
            ),
            Ok(())
        );
        assert_eq!(
            check_decision(&d(Decision::Reject, None, Some("overload"), None), &reject),
            Err("expected decision Reject (error containing \"overload\"), got decision Reject: expression 'a' resulted in error: No such key: x (cost 2)".into())
        );
        assert_eq!(
            check_decision(&d(Decision::Call, None, None, None), &reject),
            Err("expected decision Call, got decision Reject: expression 'a' resulted in error: No such key: x (cost 2)".into())
        );
        let compile = DecisionOutcome::CompileError("undeclared reference to 'y'".into());
        assert_eq!(
            check_decision(&Expectation::CompileError("undeclared".into()), &compile),
            Ok(())
        );
        assert!(check_decision(&Expectation::CompileError(String::new()), &reject).is_err());
        assert_eq!(
            check_decision(&Expectation::AnyError("no such key".into()), &reject),
            Ok(())
        );
        assert_eq!(
            check_decision(&Expectation::AnyError(String::new()), &compile),
            Ok(())
        );
        assert!(check_decision(&Expectation::AnyError(String::new()), &skip_b).is_err());
        assert!(check_decision(&d(Decision::Reject, None, None, None), &compile).is_err());
    }

    #[test]
    fn invalid_checks() {
        let errors = vec![
            "webhooks[0].matchConditions[0].expression: Invalid value: \"x\": compilation failed"
                .to_owned(),
            "webhooks[0].name: Required value".to_owned(),
        ];
        assert_eq!(
            check_invalid(&["matchConditions[0].expression".into()], &errors),
            Ok(())
        );
        assert_eq!(
            check_invalid(
                &["compilation failed".into(), "name: Required".into()],
                &errors
            ),
            Ok(())
        );
        assert_eq!(
            check_invalid(&["required value".into()], &errors),
            Err(format!(
                "expected validation errors containing \"required value\", got validation errors {:?}, {:?}",
                errors[0], errors[1]
            ))
        );
        assert_eq!(check_invalid(&[], &[]), Ok(()));
        assert_eq!(
            check_invalid(&[], &errors[1..]),
            Err("expected no validation errors, got validation errors \"webhooks[0].name: Required value\"".into())
        );
        assert_eq!(
            check_invalid(&["x".into()], &[]),
            Err("expected validation errors containing \"x\", got no validation errors".into())
        );
    }
}
