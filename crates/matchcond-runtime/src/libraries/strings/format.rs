//! `string.format(list)` as the strings extension implements it before version 4 (cel-go
//! `ext/formatting.go`), which is what Kubernetes enables (strings version 2).
//!
//! Clauses: `%%`, `%s`, `%d`, `%f`, `%e`, `%b`, `%x`, `%X`, `%o`, each with an optional
//! precision `.N` (used by `%f` and `%e` only). The locale is cel-go's default, `en_US`:
//!
//! * `%f` is printed by golang.org/x/text's number formatting: digits grouped by thousands
//!   (`1,234,567.500000`), `NaN`, `∞` and `-∞` for non-finite values. The precision sets
//!   both the minimum (modulo 256) and the maximum (as a 16-bit signed number) of fraction
//!   digits, as x/text stores them; precisions above 10,000,009 are refused by Go's printf
//!   parser, which prints `%!(NOVERB)`.
//! * `%e` is printed in x/text's scientific form `2.718280×10⁰⁰` (superscript exponent of at
//!   least two digits; x/text before v0.23.0, in Kubernetes up to 1.32, puts narrow no-break
//!   spaces around `×`: [`string_format_spaced`]), always with 6 fraction digits:
//!   cel-go passes the clause's precision as the field width, so it only pads with spaces
//!   (to `precision` code points; the default precision 6 never pads).
//! * `%s` prints values as CEL's `string()` conversion would, and lists and maps as CEL
//!   literals: strings and bytes quoted with Go's `%q`, doubles with 6 fraction digits,
//!   timestamps and durations as `timestamp("…")` / `duration("…")`, map entries sorted by
//!   their printed key (`{"a":1, "b":2}`).
//!
//! Errors carry cel-go's messages (`index 2 out of range`, `unexpected end of string`,
//! `could not parse formatting clause: …`, `error during formatting: …`). The compile-time
//! validation of constant format strings (cel-go's `stringFormatValidator`) belongs to the
//! checker.

use std::fmt::Write as _;

use matchcond_gocompat::fmt::{fixed_digits, format_g, shortest_digits, significant_digits};

use crate::error::{ErrorKind, EvalError};
use crate::libraries::support::gofmt::{duration_seconds, quote, rfc3339_nano};
use crate::libraries::support::guard::{check, G, LIST_ANY};
use crate::value::{List, Value};

/// `string.format(list(dyn)) -> string`
pub(super) fn string_format<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    string_format_in(args, Scientific::Unspaced)
}

/// `string.format(list(dyn)) -> string` as built with golang.org/x/text before v0.23.0
/// (Kubernetes up to 1.32): `%e` prints narrow no-break spaces around `×`.
pub(super) fn string_format_spaced<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    string_format_in(args, Scientific::Spaced)
}

fn string_format_in<'a>(args: &[Value<'a>], sci: Scientific) -> Result<Value<'a>, EvalError> {
    check("format", &[G::Str, LIST_ANY], args)?;
    match args {
        [Value::String(f), Value::List(l)] => format_with(f, l, sci)
            .map(Value::string)
            .map_err(|msg| EvalError::new(ErrorKind::InvalidArgument, msg)),
        _ => Err(EvalError::no_such_overload("format", args)),
    }
}

/// How x/text writes the `×10` of a scientific number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scientific {
    /// `2.718280×10⁰⁰` (x/text v0.23.0 and later).
    Unspaced,
    /// `2.718280\u{202f}×\u{202f}10⁰⁰` (x/text before v0.23.0).
    Spaced,
}

/// Formats `fmt` with the arguments of `list`, `%e` in the given style; the error is cel-go's
/// message.
pub(crate) fn format_with(fmt: &str, list: &List<'_>, sci: Scientific) -> Result<String, String> {
    let bytes = fmt.as_bytes();
    let mut out = String::with_capacity(fmt.len());
    let mut literal_start = 0;
    let mut i = 0;
    let mut arg_index = 0usize;
    while let Some(&b) = bytes.get(i) {
        if b != b'%' {
            i += 1;
            continue;
        }
        out.push_str(fmt.get(literal_start..i).unwrap_or_default());
        if bytes.get(i + 1) == Some(&b'%') {
            out.push('%');
            i += 2;
            literal_start = i;
            continue;
        }
        let arg = list
            .get(arg_index)
            .ok_or_else(|| format!("index {arg_index} out of range"))?;
        if i + 1 >= bytes.len() {
            return Err("unexpected end of string".to_string());
        }
        let rest = bytes.get(i + 1..).unwrap_or_default();
        let (read, clause) =
            parse_clause(rest).map_err(|e| format!("could not parse formatting clause: {e}"))?;
        let text = apply(clause, &arg, sci).map_err(|e| format!("error during formatting: {e}"))?;
        let size = out.len().saturating_add(text.len());
        crate::limits::check_string_size(size).map_err(|e| e.message.into_owned())?;
        out.push_str(&text);
        i += 1 + read;
        literal_start = i;
        arg_index += 1;
    }
    out.push_str(fmt.get(literal_start..).unwrap_or_default());
    Ok(out)
}

/// A parsed formatting clause.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Clause {
    /// `%s`
    Str,
    /// `%d`
    Decimal,
    /// `%f`, with its precision.
    Fixed(Option<u64>),
    /// `%e`, with its precision.
    Scientific(Option<u64>),
    /// `%b`
    Binary,
    /// `%x` / `%X`
    Hex {
        /// `%X`
        upper: bool,
    },
    /// `%o`
    Octal,
}

/// Parses the clause after a `%`: an optional precision and the verb. Returns the number of
/// bytes read, or cel-go's message without its `could not parse formatting clause: ` prefix
/// (`unrecognized formatting clause "v"`). `t` must not be empty.
pub fn parse_clause(t: &[u8]) -> Result<(usize, Clause), String> {
    let (read, precision) =
        parse_precision(t).map_err(|e| format!("error while parsing precision: {e}"))?;
    let verb = t.get(read).copied().unwrap_or(0);
    let clause = match verb {
        b's' => Clause::Str,
        b'd' => Clause::Decimal,
        b'f' => Clause::Fixed(precision),
        b'e' => Clause::Scientific(precision),
        b'b' => Clause::Binary,
        b'x' => Clause::Hex { upper: false },
        b'X' => Clause::Hex { upper: true },
        b'o' => Clause::Octal,
        // cel-go converts the single byte to a rune, so a multi-byte character shows as its
        // first byte read as Latin-1.
        other => {
            return Err(format!(
                "unrecognized formatting clause \"{}\"",
                char::from(other)
            ))
        }
    };
    Ok((read + 1, clause))
}

/// Parses `.N`, returning the bytes read and the precision.
fn parse_precision(t: &[u8]) -> Result<(usize, Option<u64>), String> {
    if t.first() != Some(&b'.') {
        return Ok((0, None));
    }
    let mut i = 1;
    loop {
        match t.get(i) {
            None => return Err("could not find end of precision specifier".to_string()),
            Some(b) if b.is_ascii_digit() => i += 1,
            Some(_) => break,
        }
    }
    let digits = std::str::from_utf8(t.get(1..i).unwrap_or_default()).unwrap_or_default();
    if digits.is_empty() {
        return Err(format!(
            "error while converting precision to integer: strconv.Atoi: parsing {}: invalid syntax",
            quote(digits)
        ));
    }
    match digits.parse::<i64>() {
        Ok(p) => Ok((i, Some(p.unsigned_abs()))),
        Err(_) => Err(format!(
            "error while converting precision to integer: strconv.Atoi: parsing {}: value out of range",
            quote(digits)
        )),
    }
}

fn apply(clause: Clause, arg: &Value<'_>, sci: Scientific) -> Result<String, String> {
    match clause {
        Clause::Str => format_string(arg),
        Clause::Decimal => format_decimal(arg),
        Clause::Fixed(p) => {
            let x = float_arg(arg).ok_or_else(|| {
                format!(
                    "fixed-point clause can only be used on doubles, was given {}",
                    arg.type_name()
                )
            })?;
            Ok(xtext_fixed(x, p.unwrap_or(6)))
        }
        Clause::Scientific(p) => {
            let x = float_arg(arg).ok_or_else(|| {
                format!(
                    "scientific clause can only be used on doubles, was given {}",
                    arg.type_name()
                )
            })?;
            Ok(xtext_scientific(x, p.unwrap_or(6), sci))
        }
        Clause::Binary => match arg {
            Value::Int(i) => Ok(signed_radix(*i, 2)),
            Value::Uint(u) => Ok(format!("{u:b}")),
            Value::Bool(b) => Ok(if *b { "1" } else { "0" }.to_string()),
            other => Err(format!(
                "only integers and bools can be formatted as binary, was given {}",
                other.type_name()
            )),
        },
        Clause::Hex { upper } => {
            let text = match arg {
                Value::String(s) => hex_bytes(s.as_bytes()),
                Value::Bytes(b) => hex_bytes(b),
                Value::Int(i) => signed_radix(*i, 16),
                Value::Uint(u) => format!("{u:x}"),
                other => {
                    return Err(format!(
                        "only integers, byte buffers, and strings can be formatted as hex, was given {}",
                        other.type_name()
                    ))
                }
            };
            Ok(if upper {
                text.to_ascii_uppercase()
            } else {
                text
            })
        }
        Clause::Octal => match arg {
            Value::Int(i) => Ok(signed_radix(*i, 8)),
            Value::Uint(u) => Ok(format!("{u:o}")),
            other => Err(format!(
                "octal clause can only be used on integers, was given {}",
                other.type_name()
            )),
        },
    }
}

/// The double a `%f` / `%e` clause accepts: a double, or one of the strings `NaN`,
/// `Infinity`, `-Infinity`.
fn float_arg(arg: &Value<'_>) -> Option<f64> {
    match arg {
        Value::Double(d) => Some(*d),
        Value::String(s) => match s.as_str() {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

/// Go's `%b`, `%o`, `%x` of an int64: sign and magnitude.
fn signed_radix(i: i64, radix: u32) -> String {
    let m = i.unsigned_abs();
    let digits = match radix {
        2 => format!("{m:b}"),
        8 => format!("{m:o}"),
        _ => format!("{m:x}"),
    };
    if i < 0 {
        format!("-{digits}")
    } else {
        digits
    }
}

fn hex_bytes(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len() * 2);
    for byte in b {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// `%d`: ints and uints in decimal.
fn format_decimal(arg: &Value<'_>) -> Result<String, String> {
    match arg {
        Value::Int(i) => Ok(i.to_string()),
        Value::Uint(u) => Ok(u.to_string()),
        other => Err(format!(
            "decimal clause can only be used on integers, was given {}",
            other.type_name()
        )),
    }
}

/// A lower bound of the size of a list or map's text (`[a, b]`, `{k:v}`), counted up to
/// just over `limit`: lists may hold one large value many times.
fn text_size_at_least(v: &Value<'_>, limit: usize) -> usize {
    match v {
        Value::List(l) => {
            let mut size = 2usize;
            for elem in l.iter() {
                if size > limit {
                    break;
                }
                size = size.saturating_add(2 + text_size_at_least(&elem, limit - size));
            }
            size
        }
        Value::Map(m) => {
            let mut size = 2usize;
            for (k, v) in m.iter() {
                if size > limit {
                    break;
                }
                let rest = limit - size;
                let entry = 3 + text_size_at_least(&k, rest) + text_size_at_least(&v, rest);
                size = size.saturating_add(entry);
            }
            size
        }
        Value::String(s) => s.len(),
        Value::Bytes(b) => b.len(),
        _ => 1,
    }
}

/// `%s` (cel-go `FormatString`).
fn format_string(arg: &Value<'_>) -> Result<String, String> {
    if matches!(arg, Value::List(_) | Value::Map(_)) {
        let at_least = text_size_at_least(arg, crate::limits::MAX_STRING_SIZE);
        crate::limits::check_string_size(at_least).map_err(|e| e.message.into_owned())?;
    }
    match arg {
        Value::List(l) => format_list(l),
        Value::Map(_) => format_map(arg),
        Value::Int(i) => Ok(i.to_string()),
        Value::Uint(u) => Ok(u.to_string()),
        Value::Double(d) => Ok(format_g(*d)),
        Value::Bool(b) => Ok(b.to_string()),
        Value::String(s) => Ok(s.to_string()),
        Value::Timestamp(t) => Ok(rfc3339_nano(t)),
        Value::Duration(d) => Ok(duration_seconds(d)),
        Value::Type(t) => Ok(t.as_str().to_string()),
        Value::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => Ok(s.to_string()),
            Err(_) => Err(format!(
                "could not convert argument {} to string",
                quote("invalid UTF-8 in bytes, cannot convert to string")
            )),
        },
        Value::Null => Ok("null".to_string()),
        other => Err(format!(
            "string clause can only be used on strings, bools, bytes, ints, doubles, maps, \
             lists, types, durations, and timestamps, was given {}",
            other.type_name()
        )),
    }
}

/// The text of a list element or map value (cel-go `clauseForType` + `quoteForCEL`).
fn format_member(v: &Value<'_>) -> Result<String, String> {
    match v {
        Value::Int(_) | Value::Uint(_) => format_decimal(v),
        Value::String(_) => Ok(quote(&format_string(v)?)),
        Value::Bytes(_) => Ok(format!("b{}", quote(&format_string(v)?))),
        Value::Bool(_) | Value::Null | Value::Type(_) => format_string(v),
        Value::Timestamp(t) => Ok(format!("timestamp({})", quote(&rfc3339_nano(t)))),
        Value::Duration(d) => Ok(format!("duration({})", quote(&duration_seconds(d)))),
        Value::List(l) => format_list(l),
        Value::Map(_) => format_map(v),
        Value::Double(d) => Ok(if d.is_nan() {
            quote("NaN")
        } else if d.is_infinite() {
            quote(if *d > 0.0 { "+Inf" } else { "-Inf" })
        } else {
            format!("{d:.6}")
        }),
        other => Err(format!("no formatting function for {}", other.type_name())),
    }
}

fn format_list(l: &List<'_>) -> Result<String, String> {
    let mut out = String::from("[");
    for (i, elem) in l.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&format_member(&elem)?);
    }
    out.push(']');
    Ok(out)
}

fn format_map(m: &Value<'_>) -> Result<String, String> {
    let Value::Map(m) = m else {
        return Err(format!("no formatting function for {}", m.type_name()));
    };
    let mut pairs = Vec::with_capacity(m.len());
    for (k, v) in m.iter() {
        let key = match &k {
            Value::String(s) => quote(s),
            Value::Bool(b) => b.to_string(),
            Value::Int(_) | Value::Uint(_) => format_decimal(&k)?,
            other => {
                return Err(format!(
                    "no formatting function for map key of type {}",
                    other.type_name()
                ))
            }
        };
        pairs.push((key, format_member(&v)?));
    }
    pairs.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let body: Vec<String> = pairs.into_iter().map(|(k, v)| format!("{k}:{v}")).collect();
    Ok(format!("{{{}}}", body.join(", ")))
}

/// The largest precision (or width) Go's printf parser accepts in a clause.
const MAX_PRINTF_NUMBER: u64 = 10_000_009;

/// The times sign and base of x/text's scientific form (v0.23.0 and later).
const TIMES_TEN: &str = "\u{d7}10";

/// The narrow no-break space, times sign, narrow no-break space and base of x/text's
/// scientific form before v0.23.0.
const TIMES_TEN_SPACED: &str = "\u{202f}\u{d7}\u{202f}10";

/// Superscript digits 0-9.
const SUPERSCRIPT: [char; 10] = [
    '\u{2070}', '\u{b9}', '\u{b2}', '\u{b3}', '\u{2074}', '\u{2075}', '\u{2076}', '\u{2077}',
    '\u{2078}', '\u{2079}',
];

/// Removes leading and trailing zero digits (adjusting the point for leading ones).
fn normalize(digits: &mut Vec<u8>, point: &mut i32) {
    let lead = digits.iter().take_while(|&&d| d == 0).count();
    digits.drain(..lead);
    *point -= i32::try_from(lead).unwrap_or(0);
    while digits.last() == Some(&0) {
        digits.pop();
    }
    if digits.is_empty() {
        *point = 0;
    }
}

fn push_digit(out: &mut String, d: u8) {
    out.push(char::from(b'0' + d));
}

/// Whether a thousands separator follows the integer digit at `pos` (counted from the
/// decimal point, 1-based), for grouping by three.
fn needs_separator(pos: i64) -> bool {
    let p = pos - 1;
    p > 0 && p % 3 == 0
}

/// `%.Nf` through golang.org/x/text's `en-US` printer.
fn xtext_fixed(x: f64, precision: u64) -> String {
    if precision > MAX_PRINTF_NUMBER {
        return "%!(NOVERB)".to_string();
    }
    if x.is_nan() {
        return "NaN".to_string();
    }
    let neg = x < 0.0;
    if x.is_infinite() {
        return if neg { "-\u{221e}" } else { "\u{221e}" }.to_string();
    }
    // x/text keeps the minimum as a uint8 and the maximum as an int16.
    let min_frac = i64::try_from(precision % 256).unwrap_or(0);
    let max_frac = i64::from(precision as u16 as i16);
    let abs = x.abs();
    let (mut digits, mut point) = if max_frac >= 0 {
        fixed_digits(abs, usize::try_from(max_frac).unwrap_or(0))
    } else {
        shortest_digits(abs)
    };
    normalize(&mut digits, &mut point);
    let point = i64::from(point);
    let len = digits.len() as i64;
    let (point, end) = if len == 0 {
        (0, min_frac)
    } else {
        (point, len.max(point + min_frac))
    };
    let num_int = point.max(0);
    let num_frac = end - point;
    let int_len = usize::try_from(num_int).unwrap_or(0).min(digits.len());
    let (int_digits, frac_digits) = if point > 0 {
        digits.split_at(int_len)
    } else {
        digits.split_at(0)
    };

    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if num_int == 0 {
        out.push('0');
    }
    let mut pos = num_int;
    for &d in int_digits {
        push_digit(&mut out, d);
        if needs_separator(pos) {
            out.push(',');
        }
        pos -= 1;
    }
    while pos > 0 {
        out.push('0');
        if needs_separator(pos) {
            out.push(',');
        }
        pos -= 1;
    }
    if num_frac > 0 {
        out.push('.');
    }
    let mut written = 0i64;
    for _ in 0..(-point).max(0) {
        out.push('0');
        written += 1;
    }
    for &d in frac_digits {
        push_digit(&mut out, d);
        written += 1;
    }
    while written < num_frac {
        out.push('0');
        written += 1;
    }
    out
}

/// `%<width>e` through golang.org/x/text's `en-US` printer: 7 significant digits, padded with
/// spaces on the left to `width` code points (width 0 means none).
fn xtext_scientific(x: f64, width: u64, sci: Scientific) -> String {
    if width > MAX_PRINTF_NUMBER {
        return "%!(NOVERB)".to_string();
    }
    let text = if x.is_nan() {
        "NaN".to_string()
    } else if x.is_infinite() {
        if x < 0.0 { "-\u{221e}" } else { "\u{221e}" }.to_string()
    } else {
        let (mut digits, mut point) = significant_digits(x.abs(), 7);
        normalize(&mut digits, &mut point);
        if digits.is_empty() {
            digits.push(0);
            point = 1;
        }
        let mut out = String::new();
        if x < 0.0 {
            out.push('-');
        }
        let (first, rest) = digits.split_at(1);
        for &d in first {
            push_digit(&mut out, d);
        }
        out.push('.');
        for i in 0..6 {
            push_digit(&mut out, rest.get(i).copied().unwrap_or(0));
        }
        out.push_str(match sci {
            Scientific::Unspaced => TIMES_TEN,
            Scientific::Spaced => TIMES_TEN_SPACED,
        });
        let exp = point - 1;
        if exp < 0 {
            out.push('\u{207b}');
        }
        let exp_digits = format!("{:02}", exp.unsigned_abs());
        for b in exp_digits.bytes() {
            out.push(
                SUPERSCRIPT
                    .get(usize::from(b - b'0'))
                    .copied()
                    .unwrap_or('\u{2070}'),
            );
        }
        out
    };
    // x/text keeps the width as a uint16.
    let width = usize::from(width as u16);
    let count = text.chars().count();
    if count < width {
        let mut padded = " ".repeat(width - count);
        padded.push_str(&text);
        padded
    } else {
        text
    }
}

#[cfg(test)]
#[allow(clippy::approx_constant)]
mod tests {
    use super::*;

    #[test]
    fn fixed_point() {
        assert_eq!(xtext_fixed(1.2345, 3), "1.234");
        assert_eq!(xtext_fixed(2.71828, 6), "2.718280");
        assert_eq!(xtext_fixed(123.0, 0), "123");
        assert_eq!(xtext_fixed(3.5001, 0), "4");
        assert_eq!(xtext_fixed(3.4999, 0), "3");
        assert_eq!(xtext_fixed(1.5, 0), "2");
        assert_eq!(xtext_fixed(2.5, 0), "2");
        assert_eq!(xtext_fixed(123.4999, 3), "123.500");
        assert_eq!(xtext_fixed(-123.4994, 3), "-123.499");
        assert_eq!(xtext_fixed(-1.2, 5), "-1.20000");
        assert_eq!(xtext_fixed(1234567.5, 2), "1,234,567.50");
        assert_eq!(xtext_fixed(1000.0, 0), "1,000");
        assert_eq!(xtext_fixed(999.0, 1), "999.0");
        assert_eq!(xtext_fixed(0.0, 2), "0.00");
        assert_eq!(xtext_fixed(-0.0, 2), "0.00");
        assert_eq!(xtext_fixed(-0.0001, 2), "-0.00");
        assert_eq!(xtext_fixed(0.00123, 5), "0.00123");
        assert_eq!(xtext_fixed(1e21, 0), "1,000,000,000,000,000,000,000");
        assert_eq!(xtext_fixed(f64::NAN, 6), "NaN");
        assert_eq!(xtext_fixed(f64::INFINITY, 6), "\u{221e}");
        assert_eq!(xtext_fixed(f64::NEG_INFINITY, 6), "-\u{221e}");
        assert_eq!(xtext_fixed(1.0, 10_000_010), "%!(NOVERB)");
    }

    #[test]
    fn fixed_point_wide_precisions() {
        // The minimum fraction digits are kept modulo 256: 300 keeps 44 trailing digits.
        let s = xtext_fixed(1.5, 300);
        assert_eq!(s.len(), 2 + 44);
        assert!(s.starts_with("1.5000"));
        // The exact binary value of 0.1 has 55 fraction digits, all shown.
        assert_eq!(
            xtext_fixed(0.1, 300),
            "0.1000000000000000055511151231257827021181583404541015625"
        );
        // A maximum that wraps to a negative int16 shows the shortest digits.
        let s = xtext_fixed(0.1, 40_000);
        assert_eq!(s.len(), 2 + 64);
        assert!(s.starts_with("0.1000"));
    }

    #[test]
    fn scientific_before_x_text_0_23() {
        assert_eq!(
            xtext_scientific(1052.032911275, 6, Scientific::Spaced),
            "1.052033\u{202f}\u{d7}\u{202f}10\u{2070}\u{b3}"
        );
        assert_eq!(
            xtext_scientific(2.71828, 6, Scientific::Spaced),
            "2.718280\u{202f}\u{d7}\u{202f}10\u{2070}\u{2070}"
        );
        assert_eq!(
            xtext_scientific(0.000000002, 0, Scientific::Spaced),
            "2.000000\u{202f}\u{d7}\u{202f}10\u{207b}\u{2070}\u{2079}"
        );
        assert_eq!(
            xtext_scientific(-1e100, 0, Scientific::Spaced),
            "-1.000000\u{202f}\u{d7}\u{202f}10\u{b9}\u{2070}\u{2070}"
        );
        assert_eq!(
            xtext_scientific(0.0, 0, Scientific::Spaced),
            "0.000000\u{202f}\u{d7}\u{202f}10\u{2070}\u{2070}"
        );
        assert_eq!(
            xtext_scientific(1.0, 20, Scientific::Spaced),
            "     1.000000\u{202f}\u{d7}\u{202f}10\u{2070}\u{2070}"
        );
        assert_eq!(xtext_scientific(f64::NAN, 5, Scientific::Unspaced), "  NaN");
        assert_eq!(
            xtext_scientific(f64::NEG_INFINITY, 0, Scientific::Unspaced),
            "-\u{221e}"
        );
    }

    #[test]
    fn scientific() {
        // golang.org/x/text v0.23.0 dropped the narrow no-break spaces around the times sign.
        assert_eq!(
            xtext_scientific(1.5, 6, Scientific::Unspaced),
            "1.500000\u{d7}10\u{2070}\u{2070}"
        );
        assert_eq!(
            xtext_scientific(-1e-3, 12, Scientific::Unspaced),
            "-1.000000\u{d7}10\u{207b}\u{2070}\u{b3}"
        );
        // The width counts code points.
        assert_eq!(
            xtext_scientific(1.0, 18, Scientific::Unspaced),
            "     1.000000\u{d7}10\u{2070}\u{2070}"
        );
    }
}
