//! Text forms that cel-go produces with Go's formatting: `%g` of a double, `strconv.Quote`,
//! `%v` of a value, RFC 3339 timestamps, the seconds form of durations, and the printed form
//! of runtime types.

use std::fmt::Write as _;

use crate::value::{Duration, Timestamp, Value};

/// The shortest decimal digits that round-trip `abs` (finite, non-negative), and the position
/// of the decimal point: the value is `0.d1d2… × 10^point`. Zero gives no digits.
pub(super) fn shortest_digits(abs: f64) -> (Vec<u8>, i32) {
    if abs == 0.0 {
        return (Vec::new(), 0);
    }
    scientific_digits(&format!("{abs:e}"))
}

/// The digits of `abs` rounded to `significant` significant digits (half to even on exact
/// ties, as Go's strconv rounds), with the decimal point position as in [`shortest_digits`].
pub(super) fn significant_digits(abs: f64, significant: usize) -> (Vec<u8>, i32) {
    if abs == 0.0 {
        return (Vec::new(), 0);
    }
    let prec = significant.saturating_sub(1);
    scientific_digits(&format!("{abs:.prec$e}"))
}

/// Parses Rust's `{:e}` output (`d.ddde[-]x`) into digits and point position.
fn scientific_digits(text: &str) -> (Vec<u8>, i32) {
    let (mantissa, exp) = text.split_once('e').unwrap_or((text, "0"));
    let digits: Vec<u8> = mantissa
        .bytes()
        .filter(u8::is_ascii_digit)
        .map(|b| b - b'0')
        .collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    (digits, exp.saturating_add(1))
}

/// The digits of `abs` rounded to `frac` places after the decimal point (exactly, half to even
/// on exact ties), with the decimal point position as in [`shortest_digits`]. Leading zeros are
/// kept (`0.001` gives digits `0001` and point 1).
pub(super) fn fixed_digits(abs: f64, frac: usize) -> (Vec<u8>, i32) {
    let text = format!("{abs:.frac$}");
    let mut digits = Vec::with_capacity(text.len());
    let mut point = None;
    for b in text.bytes() {
        if b == b'.' {
            point = Some(digits.len());
        } else if b.is_ascii_digit() {
            digits.push(b - b'0');
        }
    }
    let point = point.unwrap_or(digits.len());
    (digits, i32::try_from(point).unwrap_or(i32::MAX))
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)`, which is also `fmt`'s `%g` and `%v` of a
/// float64: the shortest representation, in exponent form when the exponent is below -4 or at
/// least 6 (`1e+06`, `2e-09`), `+Inf`, `-Inf`, `NaN`.
pub(super) fn format_g(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_string();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_string();
    }
    let mut out = String::new();
    if f.is_sign_negative() {
        out.push('-');
    }
    let (digits, point) = shortest_digits(f.abs());
    if digits.is_empty() {
        out.push('0');
        return out;
    }
    let exp = point - 1;
    let push_digits = |out: &mut String, ds: &[u8]| {
        for d in ds {
            out.push(char::from(b'0' + d));
        }
    };
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        push_digits(&mut out, first);
        if !rest.is_empty() {
            out.push('.');
            push_digits(&mut out, rest);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let _ = write!(out, "{:02}", exp.unsigned_abs());
    } else if point <= 0 {
        out.push_str("0.");
        for _ in 0..point.unsigned_abs() {
            out.push('0');
        }
        push_digits(&mut out, &digits);
    } else {
        let point = usize::try_from(point).unwrap_or(0);
        if point >= digits.len() {
            push_digits(&mut out, &digits);
            for _ in digits.len()..point {
                out.push('0');
            }
        } else {
            let (int, frac) = digits.split_at(point);
            push_digits(&mut out, int);
            out.push('.');
            push_digits(&mut out, frac);
        }
    }
    out
}

pub(super) use crate::functions::go_strconv::quote;

/// A timestamp in Go's `time.RFC3339Nano` layout (`2023-02-03T23:31:20.5Z`): fractional
/// seconds without trailing zeros, UTC as `Z`.
pub(super) fn rfc3339_nano(t: &Timestamp) -> String {
    crate::functions::time::format_rfc3339(t)
}

/// Go's `time.Time.String()`: `2006-01-02 15:04:05.999999999 +0000 UTC`, or at a parsed
/// offset, which has no zone name, `… -0500 -0500`.
fn go_time_string(t: &Timestamp) -> String {
    let shown = t.secs.saturating_add(i64::from(t.offset));
    let mut out = match chrono::DateTime::from_timestamp(shown, 0) {
        Some(dt) => dt.format("%Y-%m-%d %H:%M:%S").to_string(),
        None => return format!("{}s", t.secs),
    };
    if t.nanos > 0 {
        let frac = format!("{:09}", t.nanos);
        out.push('.');
        out.push_str(frac.trim_end_matches('0'));
    }
    if t.offset == 0 {
        out.push_str(" +0000 UTC");
    } else {
        let mut zone = String::new();
        crate::functions::time::push_offset(&mut zone, t.offset, "");
        out.push(' ');
        out.push_str(&zone);
        out.push(' ');
        out.push_str(&zone);
    }
    out
}

/// cel-go's string form of a duration: the seconds in Go's shortest `'f'` format and `s`
/// (`6347s`, `0.000000002s`, `-1.5s`).
pub(super) fn duration_seconds(d: &Duration) -> String {
    let secs = d.nanos / 1_000_000_000;
    let nanos = d.nanos % 1_000_000_000;
    let value = secs as f64 + nanos as f64 / 1e9;
    format!("{value}s")
}

/// Go's `time.Duration.String()`: `1h2m3.5s`, `1.5ms`, `0s`.
fn go_duration_string(d: &Duration) -> String {
    let nanos = d.nanos;
    if nanos == 0 {
        return "0s".to_string();
    }
    let neg = nanos < 0;
    let u = nanos.unsigned_abs();
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if u < 1_000_000_000 {
        // Below one second: a fraction of ns, µs or ms.
        let (unit, scale) = if u < 1_000 {
            ("ns", 1u64)
        } else if u < 1_000_000 {
            ("µs", 1_000)
        } else {
            ("ms", 1_000_000)
        };
        push_fraction(&mut out, u, scale);
        out.push_str(unit);
        return out;
    }
    let hours = u / 3_600_000_000_000;
    let rem = u % 3_600_000_000_000;
    let minutes = rem / 60_000_000_000;
    let rem = rem % 60_000_000_000;
    if hours > 0 {
        let _ = write!(out, "{hours}h");
    }
    if hours > 0 || minutes > 0 {
        let _ = write!(out, "{minutes}m");
    }
    push_fraction(&mut out, rem, 1_000_000_000);
    out.push('s');
    out
}

/// Writes `v / scale` with the fraction's trailing zeros removed.
fn push_fraction(out: &mut String, v: u64, scale: u64) {
    let int = v / scale;
    let frac = v % scale;
    let _ = write!(out, "{int}");
    if frac > 0 {
        let width = scale.ilog10() as usize;
        let digits = format!("{frac:0width$}");
        out.push('.');
        out.push_str(digits.trim_end_matches('0'));
    }
}

/// Go's `%v` of a cel-go value, as it appears in some of cel-go's error messages.
///
/// Lists and maps are printed as cel-go's `String()` methods print them (`[1, 2]`,
/// `{a: 1}`); elements that Go keeps as plain Go values inside such containers may print
/// differently in cel-go (this only affects the wording of error messages).
pub(super) fn value_v(v: &Value<'_>) -> String {
    match v {
        Value::Null => "NULL_VALUE".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Double(d) => format_g(*d),
        Value::String(s) => s.to_string(),
        Value::Bytes(b) => {
            let parts: Vec<String> = b.iter().map(u8::to_string).collect();
            format!("[{}]", parts.join(" "))
        }
        Value::List(l) => {
            let parts: Vec<String> = l.iter().map(|e| value_v(&e)).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Map(m) => {
            let parts: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}: {}", value_v(&k), value_v(&v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        Value::Timestamp(t) => go_time_string(t),
        Value::Duration(d) => go_duration_string(d),
        Value::Type(t) => t.as_str().to_string(),
        Value::Optional(o) => match o.get() {
            Some(inner) => format!("optional({})", value_v(&inner)),
            None => "optional.none()".to_string(),
        },
        Value::Opaque(o) => o.type_name().to_string(),
    }
}

/// How cel-go prints the runtime type of a value (`%v` of `ref.Type`): `list(dyn)`,
/// `map(dyn, dyn)`, `optional_type(dyn)`, otherwise the type name.
pub(super) fn runtime_type(v: &Value<'_>) -> String {
    match v {
        Value::List(_) => "list(dyn)".to_string(),
        Value::Map(_) => "map(dyn, dyn)".to_string(),
        Value::Optional(_) => "optional_type(dyn)".to_string(),
        other => other.type_name().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_format() {
        assert_eq!(format_g(2.71), "2.71");
        assert_eq!(format_g(56.8), "56.8");
        assert_eq!(format_g(0.000000002), "2e-09");
        assert_eq!(format_g(1e6), "1e+06");
        assert_eq!(format_g(123456.0), "123456");
        assert_eq!(format_g(1234567.0), "1.234567e+06");
        assert_eq!(format_g(0.0001), "0.0001");
        assert_eq!(format_g(0.00001), "1e-05");
        assert_eq!(format_g(1e100), "1e+100");
        assert_eq!(format_g(-0.0), "-0");
        assert_eq!(format_g(0.0), "0");
        assert_eq!(format_g(-1.5), "-1.5");
        assert_eq!(format_g(f64::INFINITY), "+Inf");
        assert_eq!(format_g(f64::NEG_INFINITY), "-Inf");
        assert_eq!(format_g(f64::NAN), "NaN");
        assert_eq!(format_g(100.0), "100");
    }

    #[test]
    fn go_quote() {
        assert_eq!(quote("abc"), "\"abc\"");
        assert_eq!(quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(quote("\u{7}\n\u{0}\u{7f}"), "\"\\a\\n\\x00\\x7f\"");
        assert_eq!(quote("\u{a0}é😀"), "\"\\u00a0é😀\"");
        assert_eq!(quote("\u{200b}"), "\"\\u200b\"");
        assert_eq!(quote("\u{e0001}"), "\"\\U000e0001\"");
        assert_eq!(quote("\u{301}"), "\"\u{301}\"");
    }

    #[test]
    fn times() {
        let t = Timestamp {
            secs: 1_675_467_080,
            nanos: 0,
            offset: 0,
        };
        assert_eq!(rfc3339_nano(&t), "2023-02-03T23:31:20Z");
        let t = Timestamp {
            secs: Timestamp::MIN_SECS,
            nanos: 500_000_000,
            offset: 0,
        };
        assert_eq!(rfc3339_nano(&t), "0001-01-01T00:00:00.5Z");
        assert_eq!(go_time_string(&t), "0001-01-01 00:00:00.5 +0000 UTC");
        let d = |n: i64| Duration { nanos: n };
        assert_eq!(duration_seconds(&d(6_347_000_000_000)), "6347s");
        assert_eq!(duration_seconds(&d(2)), "0.000000002s");
        assert_eq!(duration_seconds(&d(-1_500_000_000)), "-1.5s");
        assert_eq!(go_duration_string(&d(3_600_000_000_000)), "1h0m0s");
        assert_eq!(go_duration_string(&d(1_500)), "1.5µs");
        assert_eq!(go_duration_string(&d(-61_000_000_000)), "-1m1s");
        assert_eq!(go_duration_string(&d(0)), "0s");
    }

    #[test]
    fn values() {
        assert_eq!(value_v(&Value::Int(2)), "2");
        assert_eq!(value_v(&Value::Null), "NULL_VALUE");
        assert_eq!(
            value_v(&Value::list(vec![Value::Int(1), Value::string("a")])),
            "[1, a]"
        );
        assert_eq!(runtime_type(&Value::list(vec![])), "list(dyn)");
        assert_eq!(runtime_type(&Value::string("")), "string");
    }

    #[test]
    fn digits() {
        assert_eq!(fixed_digits(0.001, 3), (vec![0, 0, 0, 1], 1));
        assert_eq!(fixed_digits(2.5, 0), (vec![2], 1));
        assert_eq!(fixed_digits(1.2345, 3), (vec![1, 2, 3, 4], 1));
        assert_eq!(
            significant_digits(1052.032911275, 7),
            (vec![1, 0, 5, 2, 0, 3, 3], 4)
        );
        assert_eq!(shortest_digits(0.000000002), (vec![2], -8));
    }
}
