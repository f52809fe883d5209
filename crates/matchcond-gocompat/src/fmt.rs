//! Go's formatting of numbers and durations, as cel-go's `string.format` and messages use
//! it: the digits `strconv` generates (shortest round-trip, a number of significant digits,
//! a number of decimals, rounding half to even), `%g` of a float64, and
//! `time.Duration.String()`.

use std::fmt::Write as _;

/// The shortest decimal digits that round-trip `abs` (finite, non-negative), and the position
/// of the decimal point: the value is `0.d1d2… × 10^point`. Zero gives no digits.
pub fn shortest_digits(abs: f64) -> (Vec<u8>, i32) {
    if abs == 0.0 {
        return (Vec::new(), 0);
    }
    scientific_digits(&format!("{abs:e}"))
}

/// The digits of `abs` rounded to `significant` significant digits (half to even on exact
/// ties, as Go's strconv rounds), with the decimal point position as in [`shortest_digits`].
pub fn significant_digits(abs: f64, significant: usize) -> (Vec<u8>, i32) {
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
pub fn fixed_digits(abs: f64, frac: usize) -> (Vec<u8>, i32) {
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
pub fn format_g(f: f64) -> String {
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

/// Go's `time.Duration.String()`: `1h2m3.5s`, `1.5ms`, `0s`.
pub fn duration_string(nanos: i64) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strconv::quote;

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
    fn durations() {
        assert_eq!(duration_string(3_600_000_000_000), "1h0m0s");
        assert_eq!(duration_string(1_500), "1.5µs");
        assert_eq!(duration_string(-61_000_000_000), "-1m1s");
        assert_eq!(duration_string(0), "0s");
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
