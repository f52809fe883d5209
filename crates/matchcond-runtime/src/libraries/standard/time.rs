//! Timestamps and durations: conversions, arithmetic and accessors, with cel-go's semantics
//! (which are Go's `time` package's: `time.Parse(time.RFC3339, …)`, `time.ParseDuration`,
//! `Format(time.RFC3339Nano)`, `time.LoadLocation`, fixed offsets such as `+05:30`).
//!
//! Timestamps range over 0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999999999Z; results
//! outside fail with `timestamp overflow`. Durations are signed 64-bit nanosecond counts.
//!
//! `string(timestamp)` renders the instant in UTC (`…Z`). cel-go keeps the offset a timestamp
//! was parsed with (`timestamp('2024-01-01T10:00:00+02:00')` renders with `+02:00`); the
//! value model here keeps only the instant.

use matchcond_gocompat::strconv as go_strconv;

use crate::error::{ErrorKind, EvalError};
use crate::time::{civil, days_from_civil, Civil, NANOS_PER_SECOND};
pub use crate::time::{format_duration, format_rfc3339};
use crate::value::{Duration, Timestamp, Value};

type R<'a> = Result<Value<'a>, EvalError>;

// Arithmetic.
overload!(
    add_timestamp_duration,
    "_+_",
    [Value::Timestamp(t), Value::Duration(d)] => add_checked(t, d.nanos)
);

overload!(
    add_duration_timestamp,
    "_+_",
    [Value::Duration(d), Value::Timestamp(t)] => add_checked(t, d.nanos)
);

pub(super) fn add_duration_duration<'a>(a: &[Value<'a>]) -> R<'a> {
    match a {
        [Value::Duration(x), Value::Duration(y)] => x
            .nanos
            .checked_add(y.nanos)
            .map(duration)
            .ok_or_else(EvalError::overflow),
        _ => Err(EvalError::no_such_overload("_+_", a)),
    }
}

pub(super) fn subtract_timestamp_duration<'a>(a: &[Value<'a>]) -> R<'a> {
    match a {
        [Value::Timestamp(t), Value::Duration(d)] => match d.nanos.checked_neg() {
            Some(n) => add_checked(t, n),
            None => Err(EvalError::overflow()),
        },
        _ => Err(EvalError::no_such_overload("_-_", a)),
    }
}

overload!(
    subtract_timestamp_timestamp,
    "_-_",
    [Value::Timestamp(x), Value::Timestamp(y)] => subtract_timestamps(x, y)
);

pub(super) fn subtract_duration_duration<'a>(a: &[Value<'a>]) -> R<'a> {
    match a {
        [Value::Duration(x), Value::Duration(y)] => x
            .nanos
            .checked_sub(y.nanos)
            .map(duration)
            .ok_or_else(EvalError::overflow),
        _ => Err(EvalError::no_such_overload("_-_", a)),
    }
}

// Conversions.
overload!(timestamp_to_timestamp, "timestamp", [Value::Timestamp(t)] => Ok(Value::Timestamp(*t)));

pub(super) fn int64_to_timestamp<'a>(a: &[Value<'a>]) -> R<'a> {
    match a {
        [Value::Int(i)] => Timestamp::new(*i, 0)
            .map(Value::Timestamp)
            .ok_or_else(timestamp_overflow),
        _ => Err(EvalError::no_such_overload("timestamp", a)),
    }
}

pub(super) fn string_to_timestamp<'a>(a: &[Value<'a>]) -> R<'a> {
    match a {
        [Value::String(s)] => match parse_rfc3339(s) {
            Some(Ok(t)) => Ok(Value::Timestamp(t)),
            Some(Err(e)) => Err(e),
            None => Err(conversion_error("string", "google.protobuf.Timestamp")),
        },
        _ => Err(EvalError::no_such_overload("timestamp", a)),
    }
}

overload!(duration_to_duration, "duration", [Value::Duration(d)] => Ok(Value::Duration(*d)));

// Declared by cel-go, but an int does not convert to a duration.
overload!(
    int64_to_duration,
    "duration",
    [Value::Int(_)] => Err(conversion_error("int", "google.protobuf.Duration"))
);

pub(super) fn string_to_duration<'a>(a: &[Value<'a>]) -> R<'a> {
    match a {
        [Value::String(s)] => parse_duration(s)
            .map(duration)
            .ok_or_else(|| conversion_error("string", "google.protobuf.Duration")),
        _ => Err(EvalError::no_such_overload("duration", a)),
    }
}

overload!(
    timestamp_to_string,
    "string",
    [Value::Timestamp(t)] => Ok(Value::string(format_rfc3339(t)))
);

overload!(
    duration_to_string,
    "string",
    [Value::Duration(d)] => Ok(Value::string(format_duration(d.nanos)))
);

overload!(timestamp_to_int64, "int", [Value::Timestamp(t)] => Ok(Value::Int(t.secs)));

overload!(duration_to_int64, "int", [Value::Duration(d)] => Ok(Value::Int(d.nanos)));

/// `pub(super) fn $utc` and `pub(super) fn $tz`, the overloads of the timestamp accessor
/// `$function` without and with a time zone: the `$field` of the civil time.
macro_rules! timestamp_accessors {
    ($($utc:ident, $tz:ident: $function:literal => |$c:ident| $field:expr;)+) => {
        $(
            pub(super) fn $utc<'a>(a: &[Value<'a>]) -> R<'a> {
                accessor($function, a, |$c| $field)
            }

            pub(super) fn $tz<'a>(a: &[Value<'a>]) -> R<'a> {
                accessor_tz($function, a, |$c| $field)
            }
        )+
    };
}

// Timestamp accessors, in UTC and in a time zone: the function => the field of the civil time.
timestamp_accessors! {
    timestamp_to_year, timestamp_to_year_with_tz:
        "getFullYear" => |c| c.year;
    timestamp_to_month, timestamp_to_month_with_tz:
        "getMonth" => |c| i64::from(c.month) - 1;
    timestamp_to_day_of_year, timestamp_to_day_of_year_with_tz:
        "getDayOfYear" => |c| i64::from(c.year_day) - 1;
    timestamp_to_day_of_month, timestamp_to_day_of_month_with_tz:
        "getDayOfMonth" => |c| i64::from(c.day) - 1;
    timestamp_to_day_of_month_1_based, timestamp_to_day_of_month_1_based_with_tz:
        "getDate" => |c| i64::from(c.day);
    timestamp_to_day_of_week, timestamp_to_day_of_week_with_tz:
        "getDayOfWeek" => |c| i64::from(c.weekday);
    timestamp_to_hours, timestamp_to_hours_with_tz:
        "getHours" => |c| i64::from(c.hour);
    timestamp_to_minutes, timestamp_to_minutes_with_tz:
        "getMinutes" => |c| i64::from(c.minute);
    timestamp_to_seconds, timestamp_to_seconds_tz:
        "getSeconds" => |c| i64::from(c.second);
    timestamp_to_milliseconds, timestamp_to_milliseconds_with_tz:
        "getMilliseconds" => |c| i64::from(c.nanos / 1_000_000);
}

// Duration accessors.
overload!(
    duration_to_hours,
    "getHours",
    [Value::Duration(d)] => Ok(Value::Int(duration_in_units(d.nanos, 3_600)))
);

overload!(
    duration_to_minutes,
    "getMinutes",
    [Value::Duration(d)] => Ok(Value::Int(duration_in_units(d.nanos, 60)))
);

overload!(
    duration_to_seconds,
    "getSeconds",
    [Value::Duration(d)] => Ok(Value::Int(duration_in_units(d.nanos, 1)))
);

overload!(
    duration_to_milliseconds,
    "getMilliseconds",
    [Value::Duration(d)] => Ok(Value::Int(d.nanos / 1_000_000))
);

fn duration<'a>(nanos: i64) -> Value<'a> {
    Value::Duration(Duration { nanos })
}

fn timestamp_overflow() -> EvalError {
    EvalError::new(ErrorKind::Overflow, "timestamp overflow")
}

fn conversion_error(from: &str, to: &str) -> EvalError {
    EvalError::invalid_argument(format!("type conversion error from '{from}' to '{to}'"))
}

/// `timestamp + nanos`, failing with `timestamp overflow` outside the timestamp range; the
/// result keeps the timestamp's offset.
fn add_checked<'a>(t: &Timestamp, nanos: i64) -> R<'a> {
    Timestamp::from_total_nanos(t.total_nanos() + i128::from(nanos))
        .map(|r| Value::Timestamp(r.with_offset(t.offset)))
        .ok_or_else(timestamp_overflow)
}

/// `x - y` as a duration, failing with `integer overflow` as cel-go does: the difference of
/// the seconds is scaled to nanoseconds, then the difference of the nanoseconds is added,
/// each step checked.
fn subtract_timestamps<'a>(x: &Timestamp, y: &Timestamp) -> R<'a> {
    let nanos = i64::from(x.nanos) - i64::from(y.nanos);
    x.secs
        .checked_sub(y.secs)
        .and_then(|s| s.checked_mul(NANOS_PER_SECOND))
        .and_then(|s| s.checked_add(nanos))
        .map(duration)
        .ok_or_else(EvalError::overflow)
}

/// A duration in whole hours, minutes or seconds as Go computes it (`int64(d.Hours())`: the
/// whole units plus the remainder as a fraction, in floating point, truncated).
fn duration_in_units(nanos: i64, unit_seconds: i64) -> i64 {
    let unit = unit_seconds * NANOS_PER_SECOND;
    let whole = nanos / unit;
    let rest = nanos % unit;
    (whole as f64 + rest as f64 / unit as f64) as i64
}

/// Go's `time.ParseDuration`: a possibly signed sequence of decimal numbers with optional
/// fractions and units `ns`, `us`, `µs`, `μs`, `ms`, `s`, `m`, `h` (`1h30m`, `-1.5s`, `0`).
/// `None` when invalid or out of the 64-bit nanosecond range.
pub fn parse_duration(text: &str) -> Option<i64> {
    const LIMIT: u64 = 1 << 63;
    let mut s = text.as_bytes();
    let mut neg = false;
    if let Some(&c @ (b'-' | b'+')) = s.first() {
        neg = c == b'-';
        s = s.get(1..)?;
    }
    if s == b"0" {
        return Some(0);
    }
    if s.is_empty() {
        return None;
    }
    let mut total: u64 = 0;
    while !s.is_empty() {
        if !s.first().is_some_and(|c| *c == b'.' || c.is_ascii_digit()) {
            return None;
        }
        // Whole part.
        let int_len = s.iter().take_while(|c| c.is_ascii_digit()).count();
        let mut v: u64 = 0;
        for c in s.get(..int_len)? {
            if v > LIMIT / 10 {
                return None;
            }
            v = v * 10 + u64::from(c - b'0');
            if v > LIMIT {
                return None;
            }
        }
        s = s.get(int_len..)?;
        // Fraction.
        let mut frac: u64 = 0;
        let mut scale: f64 = 1.0;
        let mut frac_len = 0;
        if s.first() == Some(&b'.') {
            s = s.get(1..)?;
            frac_len = s.iter().take_while(|c| c.is_ascii_digit()).count();
            let mut overflow = false;
            for c in s.get(..frac_len)? {
                if overflow {
                    continue;
                }
                if frac > (LIMIT - 1) / 10 {
                    overflow = true;
                    continue;
                }
                let y = frac * 10 + u64::from(c - b'0');
                if y > LIMIT {
                    overflow = true;
                    continue;
                }
                frac = y;
                scale *= 10.0;
            }
            s = s.get(frac_len..)?;
        }
        if int_len == 0 && frac_len == 0 {
            return None;
        }
        // Unit.
        let unit_len = s
            .iter()
            .take_while(|c| **c != b'.' && !c.is_ascii_digit())
            .count();
        if unit_len == 0 {
            return None;
        }
        let unit: u64 = match s.get(..unit_len)? {
            b"ns" => 1,
            b"us" | b"\xC2\xB5s" | b"\xCE\xBCs" => 1_000,
            b"ms" => 1_000_000,
            b"s" => 1_000_000_000,
            b"m" => 60_000_000_000,
            b"h" => 3_600_000_000_000,
            _ => return None,
        };
        s = s.get(unit_len..)?;
        if v > LIMIT / unit {
            return None;
        }
        v *= unit;
        if frac > 0 {
            v += (frac as f64 * (unit as f64 / scale)) as u64;
            if v > LIMIT {
                return None;
            }
        }
        total = total.wrapping_add(v);
        if total > LIMIT {
            return None;
        }
    }
    if neg {
        return Some(0i64.wrapping_sub_unsigned(total));
    }
    i64::try_from(total).ok()
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        _ => 28,
    }
}

/// A timestamp accessor in UTC, whatever offset the timestamp was parsed with (cel-go's
/// standard library passes its UTC zone): `ts.f()`.
fn accessor<'a>(name: &str, args: &[Value<'a>], field: fn(&Civil) -> i64) -> R<'a> {
    match args {
        [Value::Timestamp(t)] => Ok(Value::Int(field(&civil(t, 0)))),
        _ => Err(EvalError::no_such_overload(name, args)),
    }
}

/// A timestamp accessor in a time zone: `ts.f(tz)`.
fn accessor_tz<'a>(name: &str, args: &[Value<'a>], field: fn(&Civil) -> i64) -> R<'a> {
    match args {
        [Value::Timestamp(t), Value::String(tz)] => {
            let offset = utc_offset(t, tz)?;
            Ok(Value::Int(field(&civil(t, offset))))
        }
        _ => Err(EvalError::no_such_overload(name, args)),
    }
}

/// The offset east of UTC, in seconds, of a time zone argument at an instant, as cel-go
/// resolves it: text with a `:` is a numeric offset `[+-]HH:MM` (hours and minutes parsed
/// with `strconv.Atoi`); other text is an IANA time zone name (`""` and `UTC` are UTC).
fn utc_offset(t: &Timestamp, tz: &str) -> Result<i64, EvalError> {
    let Some(colon) = tz.find(':') else {
        return zone_offset(t, tz);
    };
    let hours = go_strconv::atoi(tz.get(..colon).unwrap_or("")).map_err(tz_error)?;
    let minutes = go_strconv::atoi(tz.get(colon + 1..).unwrap_or("")).map_err(tz_error)?;
    let offset_minutes = if tz.starts_with('-') {
        hours.wrapping_mul(60).wrapping_sub(minutes)
    } else {
        hours.wrapping_mul(60).wrapping_add(minutes)
    };
    // time.Duration(offset) * time.Minute, then Seconds(), truncated to an int.
    let d = offset_minutes.wrapping_mul(60 * NANOS_PER_SECOND);
    let seconds = (d / NANOS_PER_SECOND) as f64 + (d % NANOS_PER_SECOND) as f64 / 1e9;
    Ok(seconds as i64)
}

fn tz_error(message: String) -> EvalError {
    EvalError::invalid_argument(message)
}

/// The UTC offset of a named zone at an instant (Go's `time.LoadLocation`). `Local`, the
/// server's own zone in Go, is taken as UTC, the zone the apiserver runs in by default.
fn zone_offset(t: &Timestamp, name: &str) -> Result<i64, EvalError> {
    if name.is_empty() || name == "UTC" || name == "Local" {
        return Ok(0);
    }
    if name.contains("..") || name.starts_with('/') || name.starts_with('\\') {
        return Err(tz_error(String::from("time: invalid location name")));
    }
    named_zone_offset(t, name)
}

/// The UTC offset of an IANA zone at an instant, from chrono-tz's database.
#[cfg(feature = "tz")]
fn named_zone_offset(t: &Timestamp, name: &str) -> Result<i64, EvalError> {
    use std::str::FromStr;
    let zone =
        chrono_tz::Tz::from_str(name).map_err(|_| tz_error(format!("unknown time zone {name}")))?;
    Ok(offset_in_zone(&zone, t.secs))
}

/// Without the time zone database (the `tz` feature) a named zone cannot be resolved: an
/// error says so (never a different answer).
#[cfg(not(feature = "tz"))]
fn named_zone_offset(_: &Timestamp, name: &str) -> Result<i64, EvalError> {
    Err(tz_error(format!(
        "time zone {name} needs the IANA time zone database, which this build of matchcond \
         lacks (enable the `tz` feature)"
    )))
}

/// The first year from which the offset is computed from a year with the same calendar
/// inside the range the zone tables list transitions for (they end in 2099; Go applies the
/// zone's final rule to every later year).
#[cfg(feature = "tz")]
const FINAL_RULE_FROM: i64 = 2090;
/// The 28 years the final rule is read from.
#[cfg(feature = "tz")]
const FINAL_RULE_YEARS: std::ops::Range<i64> = 2062..2090;

#[cfg(feature = "tz")]
fn offset_in_zone(zone: &chrono_tz::Tz, secs: i64) -> i64 {
    use chrono::{Offset, TimeZone};
    let days = secs.div_euclid(86_400);
    let (year, _, _) = crate::time::civil_from_days(days);
    let mut secs = secs;
    if year >= FINAL_RULE_FROM {
        let jan1 = days_from_civil(year, 1, 1);
        let weekday = (jan1 + 4).rem_euclid(7);
        let leap = is_leap(year);
        if let Some(r) = FINAL_RULE_YEARS.clone().find(|y| {
            is_leap(*y) == leap && (days_from_civil(*y, 1, 1) + 4).rem_euclid(7) == weekday
        }) {
            secs -= (jan1 - days_from_civil(r, 1, 1)) * 86_400;
        }
    }
    match chrono::DateTime::from_timestamp(secs, 0) {
        Some(dt) => i64::from(
            zone.offset_from_utc_datetime(&dt.naive_utc())
                .fix()
                .local_minus_utc(),
        ),
        None => 0,
    }
}

/// Go's `time.Parse(time.RFC3339, text)` followed by cel-go's range check: `None` when Go
/// rejects the text, `Some(Err(timestamp overflow))` when the instant is outside years
/// 1 … 9999.
///
/// Go accepts more than RFC 3339 here: a one-digit hour (`T1:02:03Z`), a comma before the
/// fraction, any number of fraction digits (truncated to nanoseconds) and offsets up to
/// `±24:60`.
pub fn parse_rfc3339(text: &str) -> Option<Result<Timestamp, EvalError>> {
    let b = text.as_bytes();
    let digits = |s: &[u8]| -> Option<i64> {
        if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
            return None;
        }
        s.iter().try_fold(0i64, |n, c| {
            n.checked_mul(10)?.checked_add(i64::from(c - b'0'))
        })
    };
    let year = digits(b.get(0..4)?)?;
    let mut i = 4;
    let expect = |i: &mut usize, c: u8| -> Option<()> {
        if b.get(*i) == Some(&c) {
            *i += 1;
            Some(())
        } else {
            None
        }
    };
    expect(&mut i, b'-')?;
    let month = digits(b.get(i..i + 2)?)?;
    i += 2;
    expect(&mut i, b'-')?;
    let day = digits(b.get(i..i + 2)?)?;
    i += 2;
    expect(&mut i, b'T')?;
    // A one- or two-digit hour.
    let hour_len = if b.get(i + 1).is_some_and(u8::is_ascii_digit) {
        2
    } else {
        1
    };
    let hour = digits(b.get(i..i + hour_len)?)?;
    i += hour_len;
    expect(&mut i, b':')?;
    let minute = digits(b.get(i..i + 2)?)?;
    i += 2;
    expect(&mut i, b':')?;
    let second = digits(b.get(i..i + 2)?)?;
    i += 2;
    let mut nanos: i64 = 0;
    if matches!(b.get(i), Some(b'.' | b',')) && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
        let n = b
            .get(i + 1..)?
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        let kept = n.min(9);
        let frac = digits(b.get(i + 1..i + 1 + kept)?)?;
        nanos = frac * 10i64.pow(u32::try_from(9 - kept).ok()?);
        i += 1 + n;
    }
    let offset = match b.get(i)? {
        b'Z' => {
            i += 1;
            0
        }
        &sign @ (b'+' | b'-') => {
            if b.get(i + 3) != Some(&b':') {
                return None;
            }
            let hh = digits(b.get(i + 1..i + 3)?)?;
            let mm = digits(b.get(i + 4..i + 6)?)?;
            if hh > 24 || mm > 60 {
                return None;
            }
            i += 6;
            let o = (hh * 60 + mm) * 60;
            if sign == b'-' {
                -o
            } else {
                o
            }
        }
        _ => return None,
    };
    if i != b.len() {
        return None;
    }
    if !(1..=12).contains(&month) || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let month = u32::try_from(month).ok()?;
    if day < 1 || day > i64::from(days_in_month(year, month)) {
        return None;
    }
    let day = u32::try_from(day).ok()?;
    let secs =
        days_from_civil(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second - offset;
    let offset = i32::try_from(offset).ok()?;
    Some(
        Timestamp::new(secs, u32::try_from(nanos).ok()?)
            .map(|t| t.with_offset(offset))
            .ok_or_else(timestamp_overflow),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{call, error, int, s, string};

    fn ts(s: &str) -> Value<'static> {
        Value::Timestamp(parse_rfc3339(s).unwrap().unwrap())
    }

    fn dur(s: &str) -> Value<'static> {
        Value::Duration(Duration {
            nanos: parse_duration(s).unwrap(),
        })
    }

    #[test]
    fn rfc3339_parsing() {
        let t = |s: &str| match parse_rfc3339(s) {
            Some(Ok(t)) => (t.secs, t.nanos),
            other => panic!("{s}: {other:?}"),
        };
        assert_eq!(t("1970-01-01T00:00:00Z"), (0, 0));
        assert_eq!(t("2009-02-13T23:31:30Z"), (1_234_567_890, 0));
        assert_eq!(
            t("2009-02-13T23:31:30.123456789Z"),
            (1_234_567_890, 123_456_789)
        );
        assert_eq!(t("2009-02-13T23:31:30.5Z"), (1_234_567_890, 500_000_000));
        assert_eq!(t("2009-02-13T23:31:30,5Z"), (1_234_567_890, 500_000_000));
        assert_eq!(
            t("2009-02-13T23:31:30.1234567891Z"),
            (1_234_567_890, 123_456_789)
        );
        assert_eq!(t("2009-02-14T01:31:30+02:00"), (1_234_567_890, 0));
        assert_eq!(t("2009-02-13T20:01:30-03:30"), (1_234_567_890, 0));
        assert_eq!(t("2009-02-13T3:31:30Z"), (1_234_495_890, 0));
        assert_eq!(t("2009-02-14T23:31:30+24:00"), (1_234_567_890, 0));
        assert_eq!(t("2009-02-13T23:31:30-00:00"), (1_234_567_890, 0));
        assert_eq!(t("2024-02-29T00:00:00Z").0, 1_709_164_800);
        assert_eq!(t("0001-01-01T00:00:00Z"), (Timestamp::MIN_SECS, 0));
        assert_eq!(
            t("9999-12-31T23:59:59.999999999Z"),
            (Timestamp::MAX_SECS, 999_999_999)
        );
        let bad = [
            "",
            "2009-02-13",
            "2009-02-13T23:31:30",
            "2009-02-13 23:31:30Z",
            "2009-02-13t23:31:30Z",
            "2009-02-13T23:31:30z",
            "2009-2-13T23:31:30Z",
            "2009-02-3T23:31:30Z",
            "2009-02-13T23:1:30Z",
            "2009-02-13T23:31:3Z",
            "2009-02-13T24:00:00Z",
            "2009-02-13T23:60:00Z",
            "2009-02-13T23:59:60Z",
            "2009-13-01T00:00:00Z",
            "2009-00-01T00:00:00Z",
            "2009-02-29T00:00:00Z",
            "2009-04-31T00:00:00Z",
            "2009-02-00T00:00:00Z",
            "2009-02-13T23:31:30.Z",
            "2009-02-13T23:31:30+0200",
            "2009-02-13T23:31:30+02",
            "2009-02-13T23:31:30+25:00",
            "2009-02-13T23:31:30+02:61",
            "2009-02-13T23:31:30Z ",
            "+2009-02-13T23:31:30Z",
            "10000-01-01T00:00:00Z",
            "209-02-13T23:31:30Z",
        ];
        for b in bad {
            assert!(parse_rfc3339(b).is_none(), "{b}");
        }
        for over in [
            "0000-01-01T00:00:00Z",
            "0001-01-01T00:00:00+00:01",
            "9999-12-31T23:59:59-00:01",
        ] {
            assert_eq!(
                parse_rfc3339(over).unwrap().unwrap_err().message,
                "timestamp overflow"
            );
        }
    }

    #[test]
    fn rfc3339_formatting() {
        assert_eq!(
            string(call("timestamp_to_string", &[ts("2009-02-13T23:31:30Z")])),
            "2009-02-13T23:31:30Z"
        );
        assert_eq!(
            string(call(
                "timestamp_to_string",
                &[ts("9999-12-31T23:59:59.999999999Z")]
            )),
            "9999-12-31T23:59:59.999999999Z"
        );
        assert_eq!(
            string(call(
                "timestamp_to_string",
                &[ts("2009-02-13T23:31:30.120Z")]
            )),
            "2009-02-13T23:31:30.12Z"
        );
        assert_eq!(
            string(call(
                "timestamp_to_string",
                &[ts("0001-01-01T00:00:00.000001Z")]
            )),
            "0001-01-01T00:00:00.000001Z"
        );
        assert_eq!(
            string(call(
                "timestamp_to_string",
                &[ts("2009-02-14T01:31:30+02:00")]
            )),
            "2009-02-14T01:31:30+02:00"
        );
    }

    /// A timestamp keeps the offset it was parsed with, as Go's `time.Time` keeps its
    /// location: `string()` shows it, and adding or subtracting a duration keeps it (cel-go's
    /// `addTimeDurationChecked` ends with `.In(x.Location())`). The accessors without a time
    /// zone read UTC (the standard library passes its UTC zone). Equality compares instants.
    #[test]
    fn timestamps_keep_their_offset() {
        let t = ts("2023-12-31T23:59:59-05:00");
        assert_eq!(
            string(call("timestamp_to_string", std::slice::from_ref(&t))),
            "2023-12-31T23:59:59-05:00"
        );
        let int = |r: Result<Value<'_>, EvalError>| match r {
            Ok(Value::Int(i)) => i,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            int(call("timestamp_to_year", std::slice::from_ref(&t))),
            2024
        );
        assert_eq!(int(call("timestamp_to_hours", std::slice::from_ref(&t))), 4);
        assert_eq!(
            int(call(
                "timestamp_to_hours_with_tz",
                &[t.clone(), Value::string("UTC")]
            )),
            4
        );
        let later = call(
            "add_timestamp_duration",
            &[
                t.clone(),
                Value::Duration(Duration {
                    nanos: 2_000_000_000,
                }),
            ],
        )
        .unwrap();
        assert_eq!(
            string(call("timestamp_to_string", &[later])),
            "2024-01-01T00:00:01-05:00"
        );
        assert!(t == ts("2024-01-01T04:59:59Z"));
        assert_eq!(
            string(call(
                "timestamp_to_string",
                &[ts("2023-06-01T10:00:00+05:30")]
            )),
            "2023-06-01T10:00:00+05:30"
        );
        assert_eq!(
            string(call(
                "timestamp_to_string",
                &[ts("2023-06-01T10:00:00+00:00")]
            )),
            "2023-06-01T10:00:00Z"
        );
        // int(), epoch seconds, is the instant's.
        assert_eq!(int(call("timestamp_to_int64", &[t])), 1_704_085_199);
    }

    #[test]
    fn timestamp_conversions() {
        assert_eq!(
            int(call("timestamp_to_int64", &[ts("2009-02-13T23:31:30Z")])),
            1_234_567_890
        );
        assert_eq!(
            int(call("timestamp_to_int64", &[ts("1969-12-31T23:59:59.5Z")])),
            -1
        );
        assert_eq!(
            string(call(
                "timestamp_to_string",
                &[call("int64_to_timestamp", &[Value::Int(1)]).unwrap()]
            )),
            "1970-01-01T00:00:01Z"
        );
        assert_eq!(
            error(call("int64_to_timestamp", &[Value::Int(-62_135_596_801)])),
            "timestamp overflow"
        );
        assert_eq!(
            error(call("int64_to_timestamp", &[Value::Int(253_402_300_800)])),
            "timestamp overflow"
        );
        assert!(call("int64_to_timestamp", &[Value::Int(253_402_300_799)]).is_ok());
        assert_eq!(
            error(call("string_to_timestamp", &[s("2009-02-13")])),
            "type conversion error from 'string' to 'google.protobuf.Timestamp'"
        );
        assert_eq!(
            error(call("string_to_timestamp", &[s("0000-01-01T00:00:00Z")])),
            "timestamp overflow"
        );
        let e = call("string_to_timestamp", &[Value::Int(1)]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::NoSuchOverload);
        assert!(matches!(
            call("timestamp_to_timestamp", &[ts("2009-02-13T23:31:30Z")]),
            Ok(Value::Timestamp(t)) if t.secs == 1_234_567_890
        ));
    }

    #[test]
    fn durations() {
        let p = |s: &str| parse_duration(s);
        assert_eq!(p("0"), Some(0));
        assert_eq!(p("-0"), Some(0));
        assert_eq!(p("+0"), Some(0));
        assert_eq!(p("0s"), Some(0));
        assert_eq!(p("1s"), Some(1_000_000_000));
        assert_eq!(p("1.5s"), Some(1_500_000_000));
        assert_eq!(p("-1.5h"), Some(-5_400_000_000_000));
        assert_eq!(p("1h30m"), Some(5_400_000_000_000));
        assert_eq!(p("2h45m30.5s"), Some(9_930_500_000_000));
        assert_eq!(p("300ms"), Some(300_000_000));
        assert_eq!(p("1us"), Some(1_000));
        assert_eq!(p("1µs"), Some(1_000));
        assert_eq!(p("1μs"), Some(1_000));
        assert_eq!(p("1ns"), Some(1));
        assert_eq!(p(".5s"), Some(500_000_000));
        assert_eq!(p("5.s"), Some(5_000_000_000));
        assert_eq!(p("1.0000000001s"), Some(1_000_000_000));
        assert_eq!(p("123.321456789s"), Some(123_321_456_789));
        assert_eq!(p("1s1s"), Some(2_000_000_000));
        assert_eq!(p("9223372036854775807ns"), Some(i64::MAX));
        assert_eq!(p("-9223372036854775808ns"), Some(i64::MIN));
        assert_eq!(p("9223372036.854775807s"), Some(i64::MAX));
        assert_eq!(p("2562047h47m16.854775807s"), Some(i64::MAX));
        for bad in [
            "",
            "-",
            "+",
            "s",
            "1",
            "1x",
            "1 s",
            " 1s",
            "1s ",
            ".s",
            "-.s",
            "1S",
            "1sec",
            "9223372036854775808ns",
            "2562048h",
            "1e3s",
            "1..5s",
            "--1s",
        ] {
            assert_eq!(p(bad), None, "{bad:?}");
        }
        let f = format_duration;
        assert_eq!(f(0), "0s");
        assert_eq!(f(1_500_000_000), "1.5s");
        assert_eq!(f(1), "0.000000001s");
        assert_eq!(f(-90_000_000_000), "-90s");
        assert_eq!(f(1_000_000 * NANOS_PER_SECOND), "1000000s");
        assert_eq!(f(5_400_000_000_000), "5400s");
        assert_eq!(f(i64::MAX), "9223372036.854776s");
        assert_eq!(f(123_321_456_789), "123.321456789s");
        assert_eq!(
            error(call("string_to_duration", &[s("1x")])),
            "type conversion error from 'string' to 'google.protobuf.Duration'"
        );
        assert_eq!(
            error(call("int64_to_duration", &[Value::Int(1)])),
            "type conversion error from 'int' to 'google.protobuf.Duration'"
        );
        assert_eq!(string(call("duration_to_string", &[dur("1h30m")])), "5400s");
        assert_eq!(int(call("duration_to_int64", &[dur("1s")])), 1_000_000_000);
    }

    #[test]
    fn duration_accessors() {
        assert_eq!(int(call("duration_to_hours", &[dur("10000s")])), 2);
        assert_eq!(int(call("duration_to_minutes", &[dur("3730s")])), 62);
        assert_eq!(int(call("duration_to_seconds", &[dur("3730s")])), 3730);
        assert_eq!(int(call("duration_to_seconds", &[dur("3723.456s")])), 3723);
        assert_eq!(
            int(call("duration_to_milliseconds", &[dur("123.321456789s")])),
            123_321
        );
        assert_eq!(int(call("duration_to_hours", &[dur("-1.5h")])), -1);
        assert_eq!(int(call("duration_to_minutes", &[dur("-90s")])), -1);
        // Go computes whole units plus a floating-point fraction: this rounds up.
        assert_eq!(
            int(call(
                "duration_to_hours",
                &[Value::Duration(Duration { nanos: i64::MAX })]
            )),
            2_562_047
        );
        let almost = Duration {
            nanos: 2_562_046 * 3_600 * NANOS_PER_SECOND + 3_600 * NANOS_PER_SECOND - 1,
        };
        assert_eq!(
            int(call("duration_to_hours", &[Value::Duration(almost)])),
            2_562_047
        );
        let e = call("duration_to_hours", &[ts("2009-02-13T23:31:30Z")]).unwrap_err();
        assert_eq!(
            e.message,
            "no such overload: getHours(google.protobuf.Timestamp)"
        );
    }

    #[test]
    fn arithmetic() {
        let r = call(
            "add_timestamp_duration",
            &[ts("2009-02-13T23:00:00Z"), dur("240s")],
        );
        assert_eq!(
            string(call("timestamp_to_string", &[r.unwrap()])),
            "2009-02-13T23:04:00Z"
        );
        let r = call(
            "add_duration_timestamp",
            &[dur("120s"), ts("2009-02-13T23:01:00Z")],
        );
        assert_eq!(
            string(call("timestamp_to_string", &[r.unwrap()])),
            "2009-02-13T23:03:00Z"
        );
        let r = call(
            "add_timestamp_duration",
            &[ts("0001-01-01T00:00:01.000000001Z"), dur("-999999999ns")],
        );
        assert_eq!(
            string(call("timestamp_to_string", &[r.unwrap()])),
            "0001-01-01T00:00:00.000000002Z"
        );
        let r = call(
            "add_timestamp_duration",
            &[ts("0001-01-01T00:00:01.999999999Z"), dur("999999999ns")],
        );
        assert_eq!(
            string(call("timestamp_to_string", &[r.unwrap()])),
            "0001-01-01T00:00:02.999999998Z"
        );
        let r = call(
            "subtract_timestamp_duration",
            &[ts("2009-02-13T23:10:00Z"), dur("600s")],
        );
        assert_eq!(
            string(call("timestamp_to_string", &[r.unwrap()])),
            "2009-02-13T23:00:00Z"
        );
        let r = call(
            "subtract_timestamp_timestamp",
            &[ts("2009-02-13T23:31:00Z"), ts("2009-02-13T23:29:00Z")],
        );
        assert_eq!(string(call("duration_to_string", &[r.unwrap()])), "120s");
        let r = call(
            "subtract_timestamp_timestamp",
            &[ts("2009-02-13T23:29:00.5Z"), ts("2009-02-13T23:31:00Z")],
        );
        assert_eq!(string(call("duration_to_string", &[r.unwrap()])), "-119.5s");
        let r = call("add_duration_duration", &[dur("600s"), dur("50s")]);
        assert_eq!(string(call("duration_to_string", &[r.unwrap()])), "650s");
        let r = call("subtract_duration_duration", &[dur("900s"), dur("42s")]);
        assert_eq!(string(call("duration_to_string", &[r.unwrap()])), "858s");
        // Range errors.
        let over = [
            (
                "add_timestamp_duration",
                ts("0001-01-01T00:00:00Z"),
                dur("-1s"),
            ),
            (
                "add_timestamp_duration",
                ts("9999-12-31T23:59:59Z"),
                dur("1s"),
            ),
            (
                "add_timestamp_duration",
                ts("9999-12-31T23:59:59.999999999Z"),
                dur("1ns"),
            ),
            (
                "add_timestamp_duration",
                ts("0001-01-01T00:00:00Z"),
                dur("-1ns"),
            ),
            (
                "subtract_timestamp_duration",
                ts("0001-01-01T00:00:00Z"),
                dur("1ns"),
            ),
        ];
        for (id, a, b) in over {
            assert_eq!(error(call(id, &[a, b])), "timestamp overflow", "{id}");
        }
        assert_eq!(
            error(call(
                "subtract_timestamp_timestamp",
                &[ts("9999-12-31T23:59:59Z"), ts("0001-01-01T00:00:00Z")]
            )),
            "integer overflow"
        );
        let min = Value::Duration(Duration { nanos: i64::MIN });
        let max = Value::Duration(Duration { nanos: i64::MAX });
        assert_eq!(
            error(call(
                "subtract_timestamp_duration",
                &[ts("2009-02-13T23:10:00Z"), min.clone()]
            )),
            "integer overflow"
        );
        assert_eq!(
            error(call("add_duration_duration", &[max.clone(), dur("1ns")])),
            "integer overflow"
        );
        assert_eq!(
            error(call("subtract_duration_duration", &[min, dur("1ns")])),
            "integer overflow"
        );
        let e = call("add_timestamp_duration", &[dur("1s"), dur("1s")]).unwrap_err();
        assert_eq!(
            e.message,
            "no such overload: _+_(google.protobuf.Duration, google.protobuf.Duration)"
        );
    }

    #[test]
    fn accessors_utc() {
        let t = ts("2009-02-13T23:31:30Z");
        let cases = [
            ("timestamp_to_year", 2009),
            ("timestamp_to_month", 1),
            ("timestamp_to_day_of_year", 43),
            ("timestamp_to_day_of_month", 12),
            ("timestamp_to_day_of_month_1_based", 13),
            ("timestamp_to_day_of_week", 5),
            ("timestamp_to_hours", 23),
            ("timestamp_to_minutes", 31),
            ("timestamp_to_seconds", 30),
            ("timestamp_to_milliseconds", 0),
        ];
        for (id, want) in cases {
            assert_eq!(int(call(id, std::slice::from_ref(&t))), want, "{id}");
        }
        let t = ts("2009-02-13T23:31:20.123456789Z");
        assert_eq!(int(call("timestamp_to_milliseconds", &[t])), 123);
        let t = ts("2023-07-14T10:30:45.123Z");
        assert_eq!(int(call("timestamp_to_month", std::slice::from_ref(&t))), 6);
        assert_eq!(int(call("timestamp_to_day_of_week", &[t])), 5);
        let t = ts("0001-01-01T00:00:00Z");
        assert_eq!(
            int(call("timestamp_to_day_of_week", std::slice::from_ref(&t))),
            1
        );
        assert_eq!(int(call("timestamp_to_year", &[t])), 1);
        let t = ts("2024-12-31T12:00:00Z");
        assert_eq!(int(call("timestamp_to_day_of_year", &[t])), 365);
    }

    #[test]
    #[cfg(feature = "tz")]
    fn accessors_with_zones() {
        let t = ts("2009-02-13T23:31:30Z");
        let t2 = ts("2009-02-13T02:00:00Z");
        let cases = [
            (
                "timestamp_to_day_of_month_1_based_with_tz",
                t.clone(),
                "Australia/Sydney",
                14,
            ),
            (
                "timestamp_to_day_of_month_with_tz",
                t.clone(),
                "US/Central",
                12,
            ),
            ("timestamp_to_day_of_month_with_tz", t.clone(), "+11:00", 13),
            (
                "timestamp_to_day_of_month_with_tz",
                t2.clone(),
                "-02:30",
                11,
            ),
            (
                "timestamp_to_day_of_month_with_tz",
                t2.clone(),
                "America/St_Johns",
                11,
            ),
            ("timestamp_to_day_of_week_with_tz", t.clone(), "UTC", 5),
            (
                "timestamp_to_day_of_year_with_tz",
                t.clone(),
                "US/Central",
                43,
            ),
            ("timestamp_to_year_with_tz", t.clone(), "-09:30", 2009),
            ("timestamp_to_hours_with_tz", t.clone(), "02:00", 1),
            (
                "timestamp_to_minutes_with_tz",
                t.clone(),
                "Asia/Kathmandu",
                16,
            ),
            ("timestamp_to_month_with_tz", t.clone(), "UTC", 1),
            ("timestamp_to_seconds_tz", t.clone(), "-00:00", 30),
            ("timestamp_to_hours_with_tz", t.clone(), "", 23),
            ("timestamp_to_hours_with_tz", t.clone(), "+05:30", 5),
            ("timestamp_to_minutes_with_tz", t.clone(), "+05:30", 1),
            ("timestamp_to_minutes_with_tz", t.clone(), "-0:30", 1),
            ("timestamp_to_hours_with_tz", t.clone(), "+05:99", 6),
            ("timestamp_to_minutes_with_tz", t.clone(), "+05:99", 10),
            ("timestamp_to_hours_with_tz", t.clone(), "-08:00", 15),
            (
                "timestamp_to_milliseconds_with_tz",
                t.clone(),
                "Europe/Berlin",
                0,
            ),
        ];
        for (id, t, tz, want) in cases {
            assert_eq!(int(call(id, &[t, s(tz)])), want, "{id} {tz}");
        }
        // Daylight saving time.
        let summer = ts("2023-07-14T10:30:45.123Z");
        assert_eq!(
            int(call(
                "timestamp_to_hours_with_tz",
                &[summer.clone(), s("America/Los_Angeles")]
            )),
            3
        );
        assert_eq!(
            int(call(
                "timestamp_to_hours_with_tz",
                &[summer, s("America/New_York")]
            )),
            6
        );
        let winter = ts("2023-01-01T05:30:00Z");
        assert_eq!(
            int(call(
                "timestamp_to_year_with_tz",
                &[winter.clone(), s("-08:00")]
            )),
            2022
        );
        assert_eq!(
            int(call(
                "timestamp_to_month_with_tz",
                &[winter, s("America/Los_Angeles")]
            )),
            11
        );
        // After the zone tables end, the final rule still applies.
        let far = ts("2150-07-01T12:00:00Z");
        assert_eq!(
            int(call(
                "timestamp_to_hours_with_tz",
                &[far.clone(), s("America/New_York")]
            )),
            8
        );
        let far_winter = ts("2150-01-15T12:00:00Z");
        assert_eq!(
            int(call(
                "timestamp_to_hours_with_tz",
                &[far_winter, s("America/New_York")]
            )),
            7
        );
        assert_eq!(
            int(call(
                "timestamp_to_hours_with_tz",
                &[far, s("Australia/Sydney")]
            )),
            22
        );
        let max = ts("9999-12-31T23:59:59Z");
        assert_eq!(
            int(call(
                "timestamp_to_year_with_tz",
                &[max.clone(), s("+01:00")]
            )),
            10000
        );
        assert_eq!(
            int(call(
                "timestamp_to_year_with_tz",
                &[max, s("Pacific/Kiritimati")]
            )),
            10000
        );
        let min = ts("0001-01-01T00:00:00Z");
        assert_eq!(
            int(call("timestamp_to_year_with_tz", &[min, s("-01:00")])),
            0
        );
    }

    #[test]
    #[cfg(not(feature = "tz"))]
    fn named_zones_need_the_time_zone_database() {
        let t = ts("2009-02-13T23:31:30Z");
        let e = call(
            "timestamp_to_hours_with_tz",
            &[t.clone(), s("Europe/Paris")],
        )
        .unwrap_err();
        assert_eq!(
            e.message,
            "time zone Europe/Paris needs the IANA time zone database, which this build of \
             matchcond lacks (enable the `tz` feature)"
        );
        assert_eq!(e.kind, ErrorKind::InvalidArgument);
        // What needs no database still answers.
        for (tz, hours) in [
            ("UTC", 23),
            ("", 23),
            ("Local", 23),
            ("+01:00", 0),
            ("-02:30", 21),
        ] {
            assert_eq!(
                int(call("timestamp_to_hours_with_tz", &[t.clone(), s(tz)])),
                hours,
                "{tz}"
            );
        }
        let e = call("timestamp_to_hours_with_tz", &[t.clone(), s("../etc")]).unwrap_err();
        assert_eq!(e.message, "time: invalid location name");
    }

    #[test]
    #[cfg(feature = "tz")]
    fn zone_errors() {
        let t = ts("2009-02-13T23:31:30Z");
        let cases = [
            ("Mars/Olympus", "unknown time zone Mars/Olympus"),
            ("utc", "unknown time zone utc"),
            ("../etc/passwd", "time: invalid location name"),
            ("/etc/localtime", "time: invalid location name"),
            (
                "America/New_York:00",
                "strconv.Atoi: parsing \"America/New_York\": invalid syntax",
            ),
            (":30", "strconv.Atoi: parsing \"\": invalid syntax"),
            ("+05:", "strconv.Atoi: parsing \"\": invalid syntax"),
            (
                "+05:30:00",
                "strconv.Atoi: parsing \"30:00\": invalid syntax",
            ),
        ];
        for (tz, want) in cases {
            let e = call("timestamp_to_hours_with_tz", &[t.clone(), s(tz)]).unwrap_err();
            assert_eq!(e.message, want, "{tz}");
            assert_eq!(e.kind, ErrorKind::InvalidArgument);
        }
        let e = call("timestamp_to_hours_with_tz", &[t.clone(), Value::Int(1)]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::NoSuchOverload);
        let e = call("timestamp_to_hours", &[s("x")]).unwrap_err();
        assert_eq!(e.message, "no such overload: getHours(string)");
        // Each overload takes exactly its own arguments.
        let e = call("timestamp_to_hours", &[t.clone(), s("UTC")]).unwrap_err();
        assert_eq!(
            e.message,
            "no such overload: getHours(google.protobuf.Timestamp, string)"
        );
        let ids = crate::libraries::Library::Standard
            .definition()
            .entries()
            .iter()
            .flat_map(|f| f.overloads().iter().map(|o| o.id()));
        for id in ids {
            if id.starts_with("timestamp_to_") && id.ends_with("tz") {
                let e = call(id, std::slice::from_ref(&t)).unwrap_err();
                assert_eq!(e.kind, ErrorKind::NoSuchOverload, "{id}");
            }
        }
    }
}
