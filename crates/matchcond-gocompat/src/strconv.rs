//! Number parsing and formatting with the exact behaviour of Go's `strconv` and `fmt`, which
//! cel-go uses for CEL's conversions: `int(string)` (`strconv.ParseInt(s, 10, 64)`),
//! `uint(string)` (`ParseUint`), `double(string)` (`ParseFloat`), `bool(string)`
//! (`ParseBool`), `string(double)` (`fmt.Sprintf("%g")`) and `string(duration)`
//! (`FormatFloat(seconds, 'f', -1, 64)`).

use std::fmt::Write as _;

/// `strconv.ParseInt(s, 10, 64)`: an optional sign and decimal digits, no underscores, no
/// surrounding space; `None` on a syntax or range error.
#[inline]
pub fn parse_int(s: &str) -> Option<i64> {
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, s.get(1..)?),
        Some(b'+') => (false, s.get(1..)?),
        _ => (false, s),
    };
    let magnitude = parse_uint(digits)?;
    if neg {
        if magnitude > 1u64 << 63 {
            return None;
        }
        Some(0i64.wrapping_sub_unsigned(magnitude))
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// `strconv.ParseUint(s, 10, 64)`: decimal digits only (no sign, no underscores); `None` on a
/// syntax or range error.
#[inline]
pub fn parse_uint(s: &str) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let mut n: u64 = 0;
    for c in s.bytes() {
        if !c.is_ascii_digit() {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
    }
    Some(n)
}

/// `strconv.Atoi` (64-bit `int`), with Go's error text, e.g.
/// `strconv.Atoi: parsing "x": invalid syntax` or `... value out of range`.
pub fn atoi(s: &str) -> Result<i64, String> {
    let syntax = || format!("strconv.Atoi: parsing {}: invalid syntax", quote(s));
    let range = || format!("strconv.Atoi: parsing {}: value out of range", quote(s));
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, s.get(1..).unwrap_or("")),
        Some(b'+') => (false, s.get(1..).unwrap_or("")),
        _ => (false, s),
    };
    if digits.is_empty() {
        return Err(syntax());
    }
    // Digits are read left to right; the first bad character or the first overflow decides
    // which error is reported.
    let mut n: u64 = 0;
    for c in digits.bytes() {
        if !c.is_ascii_digit() {
            return Err(syntax());
        }
        n = match n
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(c - b'0')))
        {
            Some(v) => v,
            None => return Err(range()),
        };
    }
    if neg {
        if n > 1u64 << 63 {
            return Err(range());
        }
        Ok(0i64.wrapping_sub_unsigned(n))
    } else {
        i64::try_from(n).map_err(|_| range())
    }
}

/// `strconv.ParseBool`.
pub fn parse_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Some(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Some(false),
        _ => None,
    }
}

/// `strconv.ParseFloat(s, 64)`: Go's float literal syntax (decimal and hexadecimal
/// mantissas, `_` digit separators, `inf`/`infinity`/`nan` in any case); `None` on a syntax
/// error or when the value overflows to an infinity.
pub fn parse_float(s: &str) -> Option<f64> {
    if let Some(v) = parse_special(s) {
        return Some(v);
    }
    let lit = scan_float_literal(s)?;
    if lit.hex {
        return hex_float(&lit);
    }
    let cleaned: String = s.chars().filter(|c| *c != '_').collect();
    let v: f64 = cleaned.parse().ok()?;
    if v.is_infinite() {
        return None;
    }
    Some(v)
}

/// `inf`, `infinity` (optionally signed) and `nan`, ignoring case, filling the whole text.
fn parse_special(s: &str) -> Option<f64> {
    let (sign, rest, signed) = match s.as_bytes().first() {
        Some(b'+') => (1.0, s.get(1..)?, true),
        Some(b'-') => (-1.0, s.get(1..)?, true),
        _ => (1.0, s, false),
    };
    if rest.eq_ignore_ascii_case("inf") || rest.eq_ignore_ascii_case("infinity") {
        return Some(sign * f64::INFINITY);
    }
    if !signed && rest.eq_ignore_ascii_case("nan") {
        return Some(f64::NAN);
    }
    None
}

/// A scanned float literal.
struct FloatLiteral {
    neg: bool,
    hex: bool,
    /// Mantissa digits (up to 16 significant hex digits), leading zeros dropped.
    mantissa: u64,
    /// Binary exponent to apply to `mantissa` (hexadecimal literals only).
    exp: i64,
    /// Non-zero digits were dropped from the mantissa.
    trunc: bool,
}

/// Checks the literal syntax as Go's `readFloat` does and, for hexadecimal literals, collects
/// the mantissa and exponent.
fn scan_float_literal(s: &str) -> Option<FloatLiteral> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut neg = false;
    match b.first() {
        Some(b'+') => i += 1,
        Some(b'-') => {
            i += 1;
            neg = true;
        }
        _ => {}
    }
    let mut hex = false;
    if i + 2 < b.len()
        && b.get(i) == Some(&b'0')
        && b.get(i + 1).map(|c| c.to_ascii_lowercase()) == Some(b'x')
    {
        hex = true;
        i += 2;
    }
    let max_digits = 16;
    let mut underscores = false;
    let mut saw_dot = false;
    let mut saw_digits = false;
    let mut nd: i64 = 0;
    let mut nd_mant: i64 = 0;
    let mut dp: i64 = 0;
    let mut mantissa: u64 = 0;
    let mut trunc = false;
    while let Some(&c) = b.get(i) {
        let digit = if c.is_ascii_digit() {
            Some(u64::from(c - b'0'))
        } else if hex && (b'a'..=b'f').contains(&c.to_ascii_lowercase()) {
            Some(u64::from(c.to_ascii_lowercase() - b'a' + 10))
        } else {
            None
        };
        if c == b'_' {
            underscores = true;
        } else if c == b'.' {
            if saw_dot {
                break;
            }
            saw_dot = true;
            dp = nd;
        } else if let Some(d) = digit {
            saw_digits = true;
            if d == 0 && nd == 0 {
                dp -= 1;
            } else {
                nd += 1;
                if nd_mant < max_digits {
                    mantissa = mantissa * 16 + d;
                    nd_mant += 1;
                } else if d != 0 {
                    trunc = true;
                }
            }
        } else {
            break;
        }
        i += 1;
    }
    if !saw_digits {
        return None;
    }
    if !saw_dot {
        dp = nd;
    }
    if hex {
        dp *= 4;
        nd_mant *= 4;
    }
    let exp_char = if hex { b'p' } else { b'e' };
    if b.get(i).map(|c| c.to_ascii_lowercase()) == Some(exp_char) {
        i += 1;
        let mut esign = 1;
        match b.get(i) {
            Some(b'+') => i += 1,
            Some(b'-') => {
                i += 1;
                esign = -1;
            }
            None => return None,
            _ => {}
        }
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        let mut e: i64 = 0;
        while let Some(&c) = b.get(i) {
            if c == b'_' {
                underscores = true;
            } else if c.is_ascii_digit() {
                if e < 10000 {
                    e = e * 10 + i64::from(c - b'0');
                }
            } else {
                break;
            }
            i += 1;
        }
        dp += e * esign;
    } else if hex {
        return None;
    }
    if i != b.len() {
        return None;
    }
    if underscores && !underscores_ok(s) {
        return None;
    }
    let exp = if mantissa != 0 { dp - nd_mant } else { 0 };
    Some(FloatLiteral {
        neg,
        hex,
        mantissa,
        exp,
        trunc,
    })
}

/// Underscores may only separate digits (or follow a base prefix).
fn underscores_ok(s: &str) -> bool {
    let mut b = s.as_bytes();
    if let Some(b'+' | b'-') = b.first() {
        b = b.get(1..).unwrap_or(&[]);
    }
    // What the previous character was: '^' start, '0' digit or base prefix, '_', '!' other.
    let mut saw = b'^';
    let mut hex = false;
    let mut rest = b;
    if b.len() >= 2
        && b.first() == Some(&b'0')
        && matches!(
            b.get(1).map(|c| c.to_ascii_lowercase()),
            Some(b'b' | b'o' | b'x')
        )
    {
        hex = b.get(1).map(|c| c.to_ascii_lowercase()) == Some(b'x');
        saw = b'0';
        rest = b.get(2..).unwrap_or(&[]);
    }
    for &c in rest {
        if c.is_ascii_digit() || (hex && (b'a'..=b'f').contains(&c.to_ascii_lowercase())) {
            saw = b'0';
            continue;
        }
        if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
            continue;
        }
        if saw == b'_' {
            return false;
        }
        saw = b'!';
    }
    saw != b'_'
}

/// Rounds a hexadecimal mantissa and binary exponent to the nearest double (ties to even);
/// `None` when the result overflows.
fn hex_float(lit: &FloatLiteral) -> Option<f64> {
    const MANT_BITS: u32 = 52;
    const BIAS: i64 = -1023;
    let max_exp: i64 = (1 << 11) + BIAS - 2;
    let min_exp: i64 = BIAS + 1;
    let mut mantissa = lit.mantissa;
    let mut exp = lit.exp + i64::from(MANT_BITS);
    // Bring the mantissa to 1 + 52 bits plus two rounding bits, the lowest of which is sticky.
    while mantissa != 0 && mantissa >> (MANT_BITS + 2) == 0 {
        mantissa <<= 1;
        exp -= 1;
    }
    if lit.trunc {
        mantissa |= 1;
    }
    while mantissa >> (1 + MANT_BITS + 2) != 0 {
        mantissa = (mantissa >> 1) | (mantissa & 1);
        exp += 1;
    }
    // Too small: denormalise.
    while mantissa > 1 && exp < min_exp - 2 {
        mantissa = (mantissa >> 1) | (mantissa & 1);
        exp += 1;
    }
    let mut round = mantissa & 3;
    mantissa >>= 2;
    round |= mantissa & 1;
    exp += 2;
    if round == 3 {
        mantissa += 1;
        if mantissa == 1 << (1 + MANT_BITS) {
            mantissa >>= 1;
            exp += 1;
        }
    }
    if mantissa >> MANT_BITS == 0 {
        exp = BIAS;
    }
    if exp > max_exp {
        return None;
    }
    let biased = u64::try_from(exp - BIAS).ok()? & 0x7FF;
    let mut bits = (mantissa & ((1 << MANT_BITS) - 1)) | (biased << MANT_BITS);
    if lit.neg {
        bits |= 1 << 63;
    }
    Some(f64::from_bits(bits))
}

/// The shortest decimal digits that identify `v` (finite, non-negative) and the decimal
/// exponent of the first digit: `v = 0.d1d2… × 10^(exp+1)`, i.e. `d1.d2… × 10^exp`.
fn shortest_digits(v: f64) -> (String, i32) {
    let s = format!("{v:e}");
    let (mant, exp) = s.split_once('e').unwrap_or((s.as_str(), "0"));
    let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    if digits.chars().all(|c| c == '0') {
        return (String::from("0"), 0);
    }
    (digits, exp)
}

/// Lays digits out in plain decimal notation (`%f` with exactly the given digits).
fn layout_fixed(digits: &str, exp: i32, out: &mut String) {
    let n = i32::try_from(digits.len()).unwrap_or(i32::MAX);
    if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(digits);
        return;
    }
    let int_len = exp + 1;
    if int_len >= n {
        out.push_str(digits);
        for _ in 0..(int_len - n) {
            out.push('0');
        }
    } else {
        let (int_part, frac) = digits.split_at(usize::try_from(int_len).unwrap_or(0));
        out.push_str(int_part);
        out.push('.');
        out.push_str(frac);
    }
}

/// Go's text for NaN and the infinities (`NaN`, `+Inf`, `-Inf`); `None` for a finite value.
fn non_finite(v: f64) -> Option<String> {
    if v.is_nan() {
        Some(String::from("NaN"))
    } else if v.is_infinite() {
        Some(String::from(if v > 0.0 { "+Inf" } else { "-Inf" }))
    } else {
        None
    }
}

/// Go's `fmt.Sprintf("%g", v)` (also `%v`): the shortest representation, in exponent form
/// when the exponent is below -4 or at least 6 (`1e+06`, `1.5e-05`), `NaN`, `+Inf`, `-Inf`.
pub fn format_float_g(v: f64) -> String {
    if let Some(text) = non_finite(v) {
        return text;
    }
    let mut out = String::from(if v.is_sign_negative() { "-" } else { "" });
    let (digits, exp) = shortest_digits(v.abs());
    if v == 0.0 {
        out.push('0');
        return out;
    }
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let e = exp.unsigned_abs();
        if e < 10 {
            out.push('0');
        }
        out.push_str(&e.to_string());
        return out;
    }
    layout_fixed(&digits, exp, &mut out);
    out
}

/// Go's `strconv.FormatFloat(v, 'f', -1, 64)`: the shortest representation in plain decimal
/// notation.
pub fn format_float_f(v: f64) -> String {
    if let Some(text) = non_finite(v) {
        return text;
    }
    let mut out = String::from(if v.is_sign_negative() { "-" } else { "" });
    if v == 0.0 {
        out.push('0');
        return out;
    }
    let (digits, exp) = shortest_digits(v.abs());
    layout_fixed(&digits, exp, &mut out);
    out
}

/// Go's `strconv.Quote` (and `%q`): double quotes, `\a \b \f \n \r \t \v \\ \"` escapes,
/// `\xNN` for other ASCII controls, `\uNNNN` / `\UNNNNNNNN` for other non-printable
/// characters (as [`is_print`] decides).
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    push_quoted(&mut out, s);
    out.push('"');
    out
}

/// Go's `strconv.Quote` of bytes that need not be UTF-8: invalid bytes become `\xNN`.
pub fn quote_bytes(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len() + 2);
    out.push('"');
    for chunk in b.utf8_chunks() {
        push_quoted(&mut out, chunk.valid());
        for byte in chunk.invalid() {
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    out.push('"');
    out
}

/// The two-character escape Go's `strconv.Quote` writes for `c`, where it has one: `\a \b \f
/// \n \r \t \v \\ \"`.
pub fn simple_escape(c: char) -> Option<&'static str> {
    Some(match c {
        '"' => "\\\"",
        '\\' => "\\\\",
        '\u{7}' => "\\a",
        '\u{8}' => "\\b",
        '\u{c}' => "\\f",
        '\n' => "\\n",
        '\r' => "\\r",
        '\t' => "\\t",
        '\u{b}' => "\\v",
        _ => return None,
    })
}

/// Appends the escaped characters of `s` (no quotes).
fn push_quoted(out: &mut String, s: &str) {
    for c in s.chars() {
        if let Some(escape) = simple_escape(c) {
            out.push_str(escape);
            continue;
        }
        match c {
            c if is_print(c) => out.push(c),
            c if c < ' ' || c == '\u{7f}' => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c if u32::from(c) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\U{:08x}", u32::from(c));
            }
        }
    }
}

/// Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space.
pub fn is_print(c: char) -> bool {
    if c.is_ascii() {
        return (' '..='~').contains(&c);
    }
    // Rust's debug escaping escapes exactly the characters that are not printable (general
    // categories C* and Z*), and grapheme extenders at the start of a string only, which the
    // leading `a` rules out.
    let probe = format!("a{c}");
    probe.escape_debug().eq(probe.chars())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints() {
        assert_eq!(parse_int("123"), Some(123));
        assert_eq!(parse_int("-123"), Some(-123));
        assert_eq!(parse_int("+7"), Some(7));
        assert_eq!(parse_int("007"), Some(7));
        assert_eq!(parse_int("-0"), Some(0));
        assert_eq!(parse_int("9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_int("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_int("9223372036854775808"), None);
        assert_eq!(parse_int("-9223372036854775809"), None);
        for bad in [
            "", "+", "-", " 1", "1 ", "1_000", "0x10", "1.0", "1e3", "--1", "+-1",
        ] {
            assert_eq!(parse_int(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn uints() {
        assert_eq!(parse_uint("18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_uint("18446744073709551616"), None);
        assert_eq!(parse_uint("0"), Some(0));
        for bad in ["", "+1", "-1", "-0", "1u", "1_0", " 1"] {
            assert_eq!(parse_uint(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn atoi_errors() {
        assert_eq!(atoi("-08"), Ok(-8));
        assert_eq!(atoi("+5"), Ok(5));
        assert_eq!(
            atoi("America/New_York"),
            Err(String::from(
                "strconv.Atoi: parsing \"America/New_York\": invalid syntax"
            ))
        );
        assert_eq!(
            atoi(""),
            Err(String::from("strconv.Atoi: parsing \"\": invalid syntax"))
        );
        assert_eq!(
            atoi("99999999999999999999x"),
            Err(String::from(
                "strconv.Atoi: parsing \"99999999999999999999x\": value out of range"
            ))
        );
        assert_eq!(
            atoi("9223372036854775808"),
            Err(String::from(
                "strconv.Atoi: parsing \"9223372036854775808\": value out of range"
            ))
        );
    }

    #[test]
    fn bools() {
        for t in ["1", "t", "T", "true", "TRUE", "True"] {
            assert_eq!(parse_bool(t), Some(true));
        }
        for f in ["0", "f", "F", "false", "FALSE", "False"] {
            assert_eq!(parse_bool(f), Some(false));
        }
        for bad in ["tRuE", "yes", "", " true"] {
            assert_eq!(parse_bool(bad), None);
        }
    }

    #[test]
    fn floats() {
        let ok = [
            ("1", 1.0),
            ("-1.5", -1.5),
            ("+.5", 0.5),
            ("1.", 1.0),
            ("1e3", 1000.0),
            ("1E+3", 1000.0),
            ("2.5e-3", 0.0025),
            ("1_000.5", 1000.5),
            ("1e1_0", 1e10),
            ("0x1p-2", 0.25),
            ("0x1.8p1", 3.0),
            ("0X_1P0", 1.0),
            ("0x.8p1", 1.0),
            ("0x1p-1074", 5e-324),
            ("0x1p-1075", 0.0),
            ("0x1.8p-1075", 5e-324),
            ("1e-400", 0.0),
            ("123456789012345678901234567890", 1.2345678901234568e29),
        ];
        for (s, v) in ok {
            assert_eq!(parse_float(s), Some(v), "{s}");
        }
        assert_eq!(parse_float("inf"), Some(f64::INFINITY));
        assert_eq!(parse_float("-Infinity"), Some(f64::NEG_INFINITY));
        assert_eq!(parse_float("+INF"), Some(f64::INFINITY));
        assert!(parse_float("NaN").is_some_and(f64::is_nan));
        assert!(parse_float("nan").is_some_and(f64::is_nan));
        let bad = [
            "", ".", "e5", "1e", "1e+", "1x", "+nan", "-nan", "infin", "infx", "1__0", "_1", "1_",
            "1_.5", "1._5", "0x1", "0x1.8", "0x", "1p5", " 1", "1 ", "1e400", "-1e400", "0x1p1024",
            "1.5.2",
        ];
        for s in bad {
            assert_eq!(parse_float(s), None, "{s:?}");
        }
        assert_eq!(parse_float("0x1.fffffffffffffp1023"), Some(f64::MAX));
    }

    #[test]
    fn format_g() {
        let cases = [
            (123.456, "123.456"),
            (-4.5e-3, "-0.0045"),
            (-1.23e4, "-12300"),
            (1e6, "1e+06"),
            (123456.0, "123456"),
            (1234567.0, "1.234567e+06"),
            (100000.0, "100000"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e21, "1e+21"),
            (1e100, "1e+100"),
            (0.0, "0"),
            (-0.0, "-0"),
            (1.0, "1"),
            (0.1, "0.1"),
            (0.30000000000000004, "0.30000000000000004"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (f64::INFINITY, "+Inf"),
            (f64::NEG_INFINITY, "-Inf"),
            (f64::NAN, "NaN"),
        ];
        for (v, s) in cases {
            assert_eq!(format_float_g(v), s, "{v}");
        }
    }

    #[test]
    fn format_f() {
        let cases = [
            (1.5, "1.5"),
            (1e-9, "0.000000001"),
            (1000000.0, "1000000"),
            (1e21, "1000000000000000000000"),
            (-9223372036.854776, "-9223372036.854776"),
            (0.0, "0"),
            (-2.5, "-2.5"),
        ];
        for (v, s) in cases {
            assert_eq!(format_float_f(v), s, "{v}");
        }
    }

    #[test]
    fn quoting() {
        assert_eq!(quote("a\"b\\c\n\u{1}"), "\"a\\\"b\\\\c\\n\\x01\"");
        assert_eq!(quote("é"), "\"é\"");
    }
}
