//! The amounts of quantities: scaled integers and decimals, their parsing, comparison,
//! addition and canonical text.

use std::cmp::Ordering;

use super::big::Nat;

/// The pattern quoted in the format error.
const SPLIT_RE: &str = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";

/// The most decimal digits a mantissa may have; larger values (which need powers of ten in
/// the ten thousands) are rejected instead of being computed.
pub const MAX_DIGITS: usize = 100_000;

/// The largest power of ten a value may be scaled by in one step.
pub const MAX_SHIFT: i64 = 10_000;

/// A parse error, with apimachinery's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// `ErrFormatWrong`.
    Format,
    /// `ErrNumeric`.
    Numeric,
    /// `ErrSuffix`.
    Suffix,
    /// The value is too large to compute.
    TooLarge,
}

impl ParseError {
    /// The message.
    pub fn message(&self) -> String {
        match self {
            ParseError::Format => {
                format!("quantities must match the regular expression '{SPLIT_RE}'")
            }
            ParseError::Numeric => "unable to parse numeric part of quantity".to_owned(),
            ParseError::Suffix => "unable to parse quantity's suffix".to_owned(),
            ParseError::TooLarge => TOO_LARGE.to_owned(),
        }
    }
}

/// The error for values too large to compute.
pub const TOO_LARGE: &str = "quantity too large to compute";

/// How a quantity is written back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `12e6`
    DecimalExponent,
    /// `12Mi`
    BinarySI,
    /// `12M`
    DecimalSI,
}

/// An arbitrary-precision decimal: `(-1)^neg * mag * 10^(-scale)` (inf.Dec's convention,
/// with its 32-bit scale).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dec {
    /// Negative.
    pub neg: bool,
    /// The magnitude's digits.
    pub mag: Nat,
    /// The power of ten the magnitude is divided by.
    pub scale: i32,
}

/// The value of a quantity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Amount {
    /// `value * 10^scale` (apimachinery's `int64Amount`).
    Int {
        /// The unscaled value.
        value: i64,
        /// The power of ten it is multiplied by.
        scale: i32,
    },
    /// An `inf.Dec`.
    Dec(Dec),
}

fn too_large<T>() -> Result<T, String> {
    Err(TOO_LARGE.to_owned())
}

impl Dec {
    fn from_i64(value: i64, scale: i32) -> Dec {
        Dec {
            neg: value < 0,
            mag: Nat::from_u128(u128::from(value.unsigned_abs())),
            scale,
        }
    }

    fn sign(&self) -> i64 {
        if self.mag.is_zero() {
            0
        } else if self.neg {
            -1
        } else {
            1
        }
    }

    /// The magnitude at a larger scale (multiplied by 10^(to - scale)).
    fn mag_at(&self, to: i32) -> Result<Nat, String> {
        let shift = i64::from(to) - i64::from(self.scale);
        let mut m = self.mag.clone();
        if shift <= 0 || m.is_zero() {
            return Ok(m);
        }
        if shift > MAX_SHIFT || m.digits() as i64 + shift > MAX_DIGITS as i64 {
            return too_large();
        }
        m.mul_pow10(shift as usize);
        Ok(m)
    }

    /// `inf.Dec.Cmp`, exactly, without materialising large powers of ten.
    pub fn compare(&self, other: &Dec) -> Ordering {
        let (sa, sb) = (self.sign(), other.sign());
        if sa != sb || sa == 0 {
            return sa.cmp(&sb);
        }
        let mag = cmp_magnitudes(self, other);
        if sa < 0 {
            mag.reverse()
        } else {
            mag
        }
    }

    /// `inf.Dec.Add` (`sub` negates the second operand): the scale of the result is the
    /// larger scale.
    fn add(&self, other: &Dec, sub: bool) -> Result<Dec, String> {
        let scale = self.scale.max(other.scale);
        let a = self.mag_at(scale)?;
        let b = other.mag_at(scale)?;
        let bneg = other.neg != sub;
        let (neg, mag) = if self.neg == bneg {
            let mut m = a;
            m.add_assign(&b);
            (self.neg, m)
        } else if a >= b {
            let mut m = a;
            m.sub_assign(&b);
            (self.neg, m)
        } else {
            let mut m = b;
            m.sub_assign(&a);
            (bneg, m)
        };
        if mag.digits() > MAX_DIGITS {
            return too_large();
        }
        let neg = neg && !mag.is_zero();
        Ok(Dec { neg, mag, scale })
    }

    /// `inf.Dec.Round(x, s, inf.RoundUp)`: to scale `s`, away from zero.
    fn round_up(&self, s: i32) -> Result<Dec, String> {
        let shift = i64::from(s) - i64::from(self.scale);
        if shift >= 0 {
            return Ok(Dec {
                neg: self.neg,
                mag: self.mag_at(s)?,
                scale: s,
            });
        }
        let mut mag = self.mag.clone();
        let down = shift.unsigned_abs();
        let inexact = if down > mag.digits() as u64 {
            let nonzero = !mag.is_zero();
            mag = Nat::zero();
            nonzero
        } else {
            mag.div_pow10(down as usize)
        };
        if inexact {
            mag.increment();
        }
        Ok(Dec {
            neg: self.neg && !mag.is_zero(),
            mag,
            scale: s,
        })
    }
}

/// Compares `|a|` and `|b|` (both non-zero).
fn cmp_magnitudes(a: &Dec, b: &Dec) -> Ordering {
    // The position of the leading digit: digits - scale.
    let pa = a.mag.digits() as i64 - i64::from(a.scale);
    let pb = b.mag.digits() as i64 - i64::from(b.scale);
    if pa != pb {
        return pa.cmp(&pb);
    }
    // Same leading position: the scales differ by the difference of digit counts, which
    // is bounded by the size of the numbers.
    let scale = a.scale.max(b.scale);
    let shift = |d: &Dec| {
        let mut m = d.mag.clone();
        m.mul_pow10((i64::from(scale) - i64::from(d.scale)) as usize);
        m
    };
    shift(a).cmp(&shift(b))
}

/// `int64Amount.Add` / `Sub`: `None` when the result does not fit (the amount is left
/// unchanged in that case, as the Go code leaves it).
fn int_add(a: (i64, i32), b: (i64, i32)) -> Option<(i64, i32)> {
    let (av, ascale) = a;
    let (bv, bscale) = b;
    if bv == 0 {
        return Some(a);
    }
    if av == 0 {
        return Some(b);
    }
    if ascale == bscale {
        return av.checked_add(bv).map(|v| (v, ascale));
    }
    if ascale > bscale {
        let c = positive_scale(av, ascale.wrapping_sub(bscale))?;
        c.checked_add(bv).map(|v| (v, bscale))
    } else {
        let c = positive_scale(bv, bscale.wrapping_sub(ascale))?;
        av.checked_add(c).map(|v| (v, ascale))
    }
}

/// `positiveScaleInt64`: `base * 10^scale`, `None` on overflow. A negative scale (which
/// only a wrapped 32-bit difference produces) leaves the base unchanged, as in Go.
fn positive_scale(base: i64, scale: i32) -> Option<i64> {
    if scale <= 0 || base == 0 {
        return Some(base);
    }
    let mut v = base;
    for _ in 0..scale {
        v = v.checked_mul(10)?;
    }
    Some(v)
}

/// `pow10Int64`.
fn pow10_i64(k: i32) -> i64 {
    if (0..=18).contains(&k) {
        10i64.pow(k as u32)
    } else {
        0
    }
}

/// The message of Go's integer division by zero, which a comparison of two scaled integers
/// whose scales are more than 2^31 apart runs into.
pub const DIVIDE_BY_ZERO: &str = "internal error: runtime error: integer divide by zero";

/// `int64Amount.Cmp`.
fn int_cmp(a: (i64, i32), b: (i64, i32)) -> Result<Ordering, String> {
    let (av, ascale) = a;
    let (bv, bscale) = b;
    let as_dec = |v: i64, s: i32| Dec::from_i64(v, s.wrapping_neg());
    if ascale == bscale {
        return Ok(av.cmp(&bv));
    }
    let (big_first, diff) = if ascale > bscale {
        (true, ascale.wrapping_sub(bscale))
    } else {
        (false, bscale.wrapping_sub(ascale))
    };
    if diff >= 18 {
        return Ok(as_dec(av, ascale).compare(&as_dec(bv, bscale)));
    }
    let divisor = pow10_i64(diff);
    if divisor == 0 {
        return Err(DIVIDE_BY_ZERO.to_owned());
    }
    if big_first {
        let (q, r) = (bv / divisor, bv % divisor);
        if q == av {
            return Ok(0.cmp(&r));
        }
        Ok(av.cmp(&q))
    } else {
        let (q, r) = (av / divisor, av % divisor);
        if q == bv {
            return Ok(r.cmp(&0));
        }
        Ok(q.cmp(&bv))
    }
}

impl Amount {
    /// The unscaled value and scale of an `int64Amount`; `None` for an `inf.Dec`.
    pub fn as_int(&self) -> Option<(i64, i32)> {
        match self {
            Amount::Int { value, scale } => Some((*value, *scale)),
            Amount::Dec(_) => None,
        }
    }

    /// The value as an `inf.Dec` (`AsDec`).
    pub fn as_dec(&self) -> Dec {
        match self {
            Amount::Int { value, scale } => Dec::from_i64(*value, scale.wrapping_neg()),
            Amount::Dec(d) => d.clone(),
        }
    }

    /// -1, 0 or 1.
    pub fn sign(&self) -> i64 {
        match self {
            Amount::Int { value, .. } => value.signum(),
            Amount::Dec(d) => d.sign(),
        }
    }

    fn is_zero(&self) -> bool {
        self.sign() == 0
    }

    /// `Quantity.AsInt64`: only a scaled integer converts.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Amount::Dec(_) => None,
            Amount::Int { value, scale } => {
                if *scale == 0 {
                    Some(*value)
                } else if *scale < 0 {
                    None
                } else {
                    positive_scale(*value, *scale)
                }
            }
        }
    }

    /// `Quantity.AsApproximateFloat64`.
    pub fn approximate_float(&self) -> f64 {
        let (base, exponent) = match self {
            Amount::Int { value, scale } => (*value as f64, i64::from(*scale)),
            Amount::Dec(d) => {
                let digits = d.mag.to_decimal();
                let text = if d.neg { format!("-{digits}") } else { digits };
                (text.parse::<f64>().unwrap_or(f64::NAN), -i64::from(d.scale))
            }
        };
        if exponent == 0 {
            return base;
        }
        base * go_pow10(exponent)
    }
}

/// `Quantity.Cmp` between two amounts (neither converted).
pub fn cmp_amounts(a: &Amount, b: &Amount) -> Result<Ordering, String> {
    match (a.as_int(), b.as_int()) {
        (Some(a), Some(b)) => int_cmp(a, b),
        _ => Ok(a.as_dec().compare(&b.as_dec())),
    }
}

/// Go's `math.Pow10`, with its table arithmetic.
pub fn go_pow10(n: i64) -> f64 {
    const TAB: [f64; 32] = [
        1e00, 1e01, 1e02, 1e03, 1e04, 1e05, 1e06, 1e07, 1e08, 1e09, 1e10, 1e11, 1e12, 1e13, 1e14,
        1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29,
        1e30, 1e31,
    ];
    const POS32: [f64; 10] = [
        1e00, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288,
    ];
    const NEG32: [f64; 11] = [
        1e-00, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320,
    ];
    let at = |t: &[f64], i: i64| t.get(i as usize).copied().unwrap_or(f64::NAN);
    if (0..=308).contains(&n) {
        return at(&POS32, n / 32) * at(&TAB, n % 32);
    }
    if (-323..=0).contains(&n) {
        let m = -n;
        return at(&NEG32, m / 32) / at(&TAB, m % 32);
    }
    if n > 0 {
        f64::INFINITY
    } else {
        0.0
    }
}

/// A parsed quantity: its amount, format and the text kept from parsing when it was
/// already canonical (Go's cached `s`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    /// The amount.
    pub amount: Amount,
    /// The format the text was written in (`DecimalSI`, `BinarySI`, `DecimalExponent`).
    pub format: Format,
    /// The text, when it was already canonical.
    pub text: Option<String>,
}

/// The pieces `parseQuantityString` returns.
struct Pieces<'s> {
    positive: bool,
    value: &'s [u8],
    num: &'s [u8],
    denom: &'s [u8],
    suffix: &'s [u8],
}

fn is_digit(b: u8) -> bool {
    b.is_ascii_digit()
}

/// `parseQuantityString`.
fn split(s: &[u8]) -> Result<Pieces<'_>, ParseError> {
    let mut positive = true;
    let mut pos = 0usize;
    let end = s.len();
    match s.first() {
        Some(b'-') => {
            positive = false;
            pos += 1;
        }
        Some(b'+') => pos += 1,
        _ => {}
    }
    let zero = |positive| Pieces {
        positive,
        value: b"0",
        num: b"0",
        denom: b"",
        suffix: b"",
    };
    // Leading zeros.
    while s.get(pos) == Some(&b'0') {
        pos += 1;
    }
    if pos >= end {
        return Ok(zero(positive));
    }
    // Numerator.
    let num_start = pos;
    while s.get(pos).copied().is_some_and(is_digit) {
        pos += 1;
    }
    let mut num = s.get(num_start..pos).unwrap_or_default();
    if pos >= end {
        return Ok(Pieces {
            positive,
            value: s,
            num,
            denom: b"",
            suffix: b"",
        });
    }
    if num.is_empty() {
        num = b"0";
    }
    let mut denom: &[u8] = b"";
    if s.get(pos) == Some(&b'.') {
        pos += 1;
        let denom_start = pos;
        while s.get(pos).copied().is_some_and(is_digit) {
            pos += 1;
        }
        denom = s.get(denom_start..pos).unwrap_or_default();
        if pos >= end {
            return Ok(Pieces {
                positive,
                value: s,
                num,
                denom,
                suffix: b"",
            });
        }
    }
    let value = s.get(..pos).unwrap_or_default();
    let suffix_start = pos;
    while s.get(pos).is_some_and(|b| b"eEinumkKMGTP".contains(b)) {
        pos += 1;
    }
    if pos < end && matches!(s.get(pos), Some(b'-' | b'+')) {
        pos += 1;
    }
    while s.get(pos).copied().is_some_and(is_digit) {
        pos += 1;
    }
    if pos < end {
        return Err(ParseError::Format);
    }
    Ok(Pieces {
        positive,
        value,
        num,
        denom,
        suffix: s.get(suffix_start..).unwrap_or_default(),
    })
}

/// `quantitySuffixer.interpret`: base, exponent and format.
fn interpret(suffix: &[u8]) -> Option<(u32, i32, Format)> {
    let dec = |e| Some((10, e, Format::DecimalSI));
    let bin = |e| Some((2, e, Format::BinarySI));
    match suffix {
        b"" => dec(0),
        b"n" => dec(-9),
        b"u" => dec(-6),
        b"m" => dec(-3),
        b"k" => dec(3),
        b"M" => dec(6),
        b"G" => dec(9),
        b"T" => dec(12),
        b"P" => dec(15),
        b"E" => dec(18),
        b"Ki" => bin(10),
        b"Mi" => bin(20),
        b"Gi" => bin(30),
        b"Ti" => bin(40),
        b"Pi" => bin(50),
        b"Ei" => bin(60),
        [b'e' | b'E', rest @ ..] if !rest.is_empty() => {
            let text = std::str::from_utf8(rest).ok()?;
            let parsed = crate::strconv::parse_int(text)?;
            Some((10, parsed as i32, Format::DecimalExponent))
        }
        _ => None,
    }
}

/// `inf.Dec.SetString` of the numeric part: an optional sign, digits and at most one point,
/// at least one digit.
fn dec_from_text(value: &[u8]) -> Option<Dec> {
    let (neg, rest) = match value.split_first() {
        Some((b'-', r)) => (true, r),
        Some((b'+', r)) => (false, r),
        _ => (false, value),
    };
    let mut digits = Vec::with_capacity(rest.len());
    let mut point: Option<usize> = None;
    for &b in rest {
        match b {
            b'0'..=b'9' => digits.push(b),
            b'.' if point.is_none() => point = Some(digits.len()),
            _ => return None,
        }
    }
    if digits.is_empty() {
        return None;
    }
    let scale = point.map_or(0, |p| digits.len() - p);
    let mag = Nat::from_digits(&digits);
    Some(Dec {
        neg: neg && !mag.is_zero(),
        mag,
        scale: i32::try_from(scale).ok()?,
    })
}

/// `resource.ParseQuantity`.
pub fn parse(s: &str) -> Result<Parsed, ParseError> {
    let bytes = s.as_bytes();
    if bytes.is_empty() {
        return Err(ParseError::Format);
    }
    if s == "0" {
        return Ok(Parsed {
            amount: Amount::Int { value: 0, scale: 0 },
            format: Format::DecimalSI,
            text: Some(s.to_owned()),
        });
    }
    let p = split(bytes)?;
    let (base, exponent, format) = interpret(p.suffix).ok_or(ParseError::Suffix)?;
    if p.num.len() + p.denom.len() > MAX_DIGITS {
        return Err(ParseError::TooLarge);
    }
    let mut scale: i32 = 0;
    let mut mantissa: i64 = 1;
    let precision: i32 = match format {
        Format::DecimalExponent | Format::DecimalSI => {
            scale = exponent;
            18 - (p.num.len() + p.denom.len()) as i32
        }
        Format::BinarySI => {
            if exponent >= 0 && p.denom.is_empty() {
                mantissa = 1i64 << exponent;
                let digits = ((exponent as f32) * 3.0 / 10.0) as i32;
                15 - p.num.len() as i32 - digits - 1
            } else {
                -1
            }
        }
    };
    if precision >= 0 {
        scale = scale.wrapping_sub(p.denom.len() as i32);
        if scale >= -9 {
            let mut shifted = p.num.to_vec();
            shifted.extend_from_slice(p.denom);
            let value = std::str::from_utf8(&shifted)
                .ok()
                .and_then(crate::strconv::parse_int)
                .ok_or(ParseError::Numeric)?;
            if let Some(mut result) = value.checked_mul(mantissa) {
                if !p.positive {
                    result = -result;
                }
                let canonical = match format {
                    Format::BinarySI => exponent % 10 == 0 && value & 0x07 != 0,
                    _ => {
                        scale % 3 == 0
                            && !shifted.ends_with(b"000")
                            && shifted.first() != Some(&b'0')
                    }
                };
                return Ok(Parsed {
                    amount: Amount::Int {
                        value: result,
                        scale,
                    },
                    format,
                    text: canonical.then(|| s.to_owned()),
                });
            }
        }
    }

    let mut amount = dec_from_text(p.value).ok_or(ParseError::Numeric)?;
    if base == 10 {
        amount.scale = amount.scale.wrapping_add(exponent.wrapping_neg());
    } else {
        amount.mag.mul_pow2(exponent.unsigned_abs());
    }
    let negative = amount.neg;
    amount.neg = false;
    if !amount.mag.is_zero() {
        amount = amount.round_up(9).map_err(|_| ParseError::TooLarge)?;
    }
    let mut format = format;
    if format == Format::BinarySI {
        let max = Dec::from_i64(i64::MAX, 0);
        if amount.compare(&max) == Ordering::Greater {
            amount = max;
        }
        let one = Dec::from_i64(1, 0);
        if amount.compare(&one) == Ordering::Less && !amount.mag.is_zero() {
            format = Format::DecimalSI;
        }
    }
    amount.neg = negative && !amount.mag.is_zero();
    Ok(Parsed {
        amount: Amount::Dec(amount),
        format,
        text: None,
    })
}

/// A quantity being added to or subtracted from: `Quantity.Add` / `Quantity.Sub` on a copy
/// of the receiver. Returns the new amount and format.
pub fn add(
    a: &Amount,
    a_format: Format,
    b: &Amount,
    b_format: Format,
    sub: bool,
) -> Result<(Amount, Format), String> {
    let mut format = a_format;
    if let (Some((av, ascale)), Some((bv, bscale))) = (a.as_int(), b.as_int()) {
        if av == 0 {
            format = b_format;
        }
        let bv = if sub { bv.wrapping_neg() } else { bv };
        if let Some((v, s)) = int_add((av, ascale), (bv, bscale)) {
            return Ok((Amount::Int { value: v, scale: s }, format));
        }
    } else if a.is_zero() {
        format = b_format;
    }
    let d = a.as_dec().add(&b.as_dec(), sub)?;
    Ok((Amount::Dec(d), format))
}

/// The canonical text (`Quantity.String` when nothing was cached), or `None` when the value
/// is too large to print that way.
pub fn canonical(amount: &Amount, format: Format) -> Option<String> {
    if amount.is_zero() {
        return Some("0".to_owned());
    }
    let mut format = format;
    let mut rounded: Option<Dec> = None;
    if format == Format::BinarySI {
        let d = amount.as_dec();
        let lo = Dec::from_i64(-1024, 0);
        let hi = Dec::from_i64(1024, 0);
        if d.compare(&lo) == Ordering::Greater && d.compare(&hi) == Ordering::Less {
            format = Format::DecimalSI;
        } else {
            let r = d.round_up(0).ok()?;
            if r.compare(&d) == Ordering::Equal {
                rounded = Some(r);
            } else {
                format = Format::DecimalSI;
            }
        }
    }
    match (format, rounded) {
        (Format::BinarySI, Some(r)) => {
            let mut mag = r.mag;
            let mut times: i64 = 0;
            while !mag.is_zero() && mag.rem_small(1024) == 0 {
                mag.div_small(1024);
                times += 1;
            }
            let suffix = match times * 10 {
                10 => "Ki",
                20 => "Mi",
                30 => "Gi",
                40 => "Ti",
                50 => "Pi",
                60 => "Ei",
                _ => "",
            };
            let sign = if r.neg { "-" } else { "" };
            Some(format!("{sign}{}{suffix}", mag.to_decimal()))
        }
        _ => {
            let d = amount.as_dec();
            let mut mag = d.mag;
            let mut exponent = d.scale.wrapping_neg();
            while !mag.is_zero() && mag.rem_small(10) == 0 {
                mag.div_small(10);
                exponent = exponent.wrapping_add(1);
            }
            while exponent % 3 != 0 {
                mag.mul_small(10);
                exponent = exponent.wrapping_sub(1);
            }
            let suffix = match format {
                Format::DecimalExponent => {
                    if exponent == 0 {
                        String::new()
                    } else {
                        format!("e{exponent}")
                    }
                }
                _ => match exponent {
                    -9 => "n",
                    -6 => "u",
                    -3 => "m",
                    3 => "k",
                    6 => "M",
                    9 => "G",
                    12 => "T",
                    15 => "P",
                    18 => "E",
                    _ => "",
                }
                .to_owned(),
            };
            let sign = if d.neg { "-" } else { "" };
            Some(format!("{sign}{}{suffix}", mag.to_decimal()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> String {
        let p = parse(s).unwrap();
        p.text
            .clone()
            .unwrap_or_else(|| canonical(&p.amount, p.format).unwrap())
    }

    #[test]
    fn representations() {
        let int = |s: &str| match parse(s).unwrap().amount {
            Amount::Int { value, scale } => Some((value, scale)),
            Amount::Dec(_) => None,
        };
        assert_eq!(int("50k"), Some((50, 3)));
        assert_eq!(int("1.5"), Some((15, -1)));
        assert_eq!(int("1Ki"), Some((1024, 0)));
        assert_eq!(int("1Ti"), Some((1 << 40, 0)));
        assert_eq!(int("1Pi"), None);
        assert_eq!(int("1.5Gi"), None);
        assert_eq!(int("999999999999999999"), Some((999999999999999999, 0)));
        assert_eq!(int("1000000000000000000"), None);
        assert_eq!(int("1n"), Some((1, -9)));
        assert_eq!(int("1e-10"), None);
        assert_eq!(int("-"), Some((0, 0)));
        assert_eq!(int("."), Some((0, 0)));
        // A 64-bit exponent is truncated to 32 bits.
        assert_eq!(int("1e4294967296"), Some((1, 0)));
    }

    #[test]
    fn errors() {
        assert_eq!(parse(""), Err(ParseError::Format));
        assert_eq!(parse(" 1"), Err(ParseError::Format));
        assert_eq!(parse("1 "), Err(ParseError::Format));
        assert_eq!(parse("1.1.M"), Err(ParseError::Format));
        assert_eq!(parse("-3.01e-"), Err(ParseError::Suffix));
        assert_eq!(parse("10Mo"), Err(ParseError::Format));
        assert_eq!(parse("10Mm"), Err(ParseError::Suffix));
        assert_eq!(parse("200K"), Err(ParseError::Suffix));
        assert_eq!(parse("1i"), Err(ParseError::Suffix));
        assert_eq!(parse(".e-10"), Err(ParseError::Numeric));
        // The exponent is truncated to 32 bits: 2e12 becomes -1454759936, which rounds up to 1n.
        assert_eq!(
            parse("1e2000000000000").map(|p| p.amount),
            parse("1n").map(|p| p.amount.as_dec()).map(Amount::Dec)
        );
        assert_eq!(
            parse("12345678901234567890e2000000"),
            Err(ParseError::TooLarge)
        );
        assert!(ParseError::Format
            .message()
            .contains("'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"));
    }

    #[test]
    fn canonical_text() {
        // apimachinery's TestParseQuantity expectations.
        for (input, want) in [
            ("-999999999999999999", "-999999999999999999"),
            ("999999999999999999.1", "999999999999999999100m"),
            ("9999999999999999999", "9999999999999999999"),
            ("1000000000000000000", "1E"),
            ("-1.0E", "-1E"),
            ("9999999999999999999000m", "9999999999999999999"),
            ("1.0000000000000000001E", "1000000000000000000100m"),
            ("10E", "10E"),
            ("10000000000000000000000m", "10E"),
            ("9223372036854775807.1", "9223372036854775807100m"),
            ("1.5", "1500m"),
            ("1.5Gi", "1536Mi"),
            ("+1", "+1"),
            ("01", "01"),
            ("1536", "1536"),
            ("2048Ki", "2Mi"),
            ("0.5Mi", "512Ki"),
            ("100.035Ki", "102435840m"),
            ("0.000000000001Ki", "2n"),
            ("1e3", "1e3"),
            ("1.2e3", "1200"),
            ("1000E", "1"),
            ("9Ei", "9223372036854775807"),
            ("0.1m", "100u"),
            ("3.001n", "4n"),
        ] {
            assert_eq!(text(input), want, "{input}");
        }
    }

    #[test]
    fn comparisons_and_arithmetic() {
        let q = |s: &str| parse(s).unwrap();
        let cmp = |a: &str, b: &str| cmp_amounts(&q(a).amount, &q(b).amount).unwrap();
        assert_eq!(cmp("200M", "0.2G"), Ordering::Equal);
        assert_eq!(cmp("50M", "50Mi"), Ordering::Less);
        assert_eq!(cmp("1Ei", "1152921504606846976"), Ordering::Equal);
        assert_eq!(cmp("1e20", "1n"), Ordering::Greater);
        assert_eq!(cmp("-1e20", "1n"), Ordering::Less);
        assert_eq!(cmp("9999999999999999999999999999G", "1e37"), Ordering::Less);
        assert_eq!(
            cmp_amounts(&q("1e2147483647").amount, &q("1n").amount),
            Err(DIVIDE_BY_ZERO.to_owned())
        );
        let sum = |a: &str, b: &str, sub: bool| {
            let (x, y) = (q(a), q(b));
            let (amount, format) = add(&x.amount, x.format, &y.amount, y.format, sub).unwrap();
            canonical(&amount, format).unwrap()
        };
        assert_eq!(sum("50k", "20k", false), "70k");
        assert_eq!(sum("50k", "20", false), "50020");
        assert_eq!(sum("0", "1Ki", false), "1Ki");
        assert_eq!(sum("1Pi", "1Ki", true), "1099511627775Ki");
        assert_eq!(
            sum("9223372036854775807", "1", false),
            "9223372036854775808"
        );
        assert_eq!(
            add(
                &q("1e20000").amount,
                Format::DecimalSI,
                &q("12345678901234567890").amount,
                Format::DecimalSI,
                false
            ),
            Err(TOO_LARGE.to_owned())
        );
    }

    #[test]
    fn conversions() {
        let q = |s: &str| parse(s).unwrap().amount;
        assert_eq!(q("50k").as_i64(), Some(50000));
        assert_eq!(q("1.5").as_i64(), None);
        assert_eq!(q("1Pi").as_i64(), None);
        assert_eq!(q("9999999999999999999999999999999999999G").as_i64(), None);
        assert_eq!(q("1e18").as_i64(), Some(1_000_000_000_000_000_000));
        assert_eq!(q("10e18").as_i64(), None);
        assert_eq!(q("50.703k").approximate_float(), 50703.0);
        assert_eq!(q("1Pi").approximate_float(), 1125899906842624.0);
        assert!(q("0e400").approximate_float().is_nan());
        assert_eq!(q("1e400").approximate_float(), f64::INFINITY);
        assert_eq!(go_pow10(23), 1e23);
        assert_eq!(go_pow10(-5), 1e-5);
        assert_eq!(go_pow10(400), f64::INFINITY);
        assert_eq!(go_pow10(-400), 0.0);
    }
}
