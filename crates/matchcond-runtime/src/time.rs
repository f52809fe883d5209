//! CEL's time values, timestamps and durations (Go's `time.Time` and `time.Duration` as
//! cel-go holds them), the proleptic Gregorian calendar they are read in, and the text Go
//! writes for them (`Format(time.RFC3339Nano)`, the seconds of `string(duration)`). The
//! standard library's functions on them — conversions, arithmetic, accessors, parsing and
//! time zones — are [`crate::libraries::standard::time`]'s.

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};

use matchcond_gocompat::strconv as go_strconv;

/// Nanoseconds in a second.
pub(crate) const NANOS_PER_SECOND: i64 = 1_000_000_000;

/// A point in time with nanosecond precision, and the UTC offset it is shown in.
///
/// Like Go's `time.Time`, a timestamp keeps the offset it was parsed with
/// (`timestamp('2023-12-31T23:59:59-05:00')`), and arithmetic keeps it: `string()` and the
/// accessors without a time zone (`getHours()`) read the time at that offset. Equality,
/// ordering and hashing compare the instant only.
#[derive(Clone, Copy, Debug)]
pub struct Timestamp {
    /// Seconds since the Unix epoch.
    pub secs: i64,
    /// Nanoseconds, 0..1e9.
    pub nanos: u32,
    /// Seconds east of UTC of the offset the time is shown in (0: UTC).
    pub offset: i32,
}

impl PartialEq for Timestamp {
    fn eq(&self, other: &Self) -> bool {
        (self.secs, self.nanos) == (other.secs, other.nanos)
    }
}

impl Eq for Timestamp {}

impl PartialOrd for Timestamp {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Timestamp {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.secs, self.nanos).cmp(&(other.secs, other.nanos))
    }
}

impl Hash for Timestamp {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.secs, self.nanos).hash(state);
    }
}

impl Timestamp {
    /// Seconds of 0001-01-01T00:00:00Z.
    pub const MIN_SECS: i64 = -62_135_596_800;
    /// Seconds of 9999-12-31T23:59:59Z.
    pub const MAX_SECS: i64 = 253_402_300_799;

    /// A timestamp, if within CEL's range (years 1 to 9999).
    pub fn new(secs: i64, nanos: u32) -> Option<Self> {
        if !(Self::MIN_SECS..=Self::MAX_SECS).contains(&secs) || nanos >= 1_000_000_000 {
            return None;
        }
        Some(Timestamp {
            secs,
            nanos,
            offset: 0,
        })
    }

    /// The same instant shown at another UTC offset (seconds east of UTC).
    pub fn with_offset(self, offset: i32) -> Self {
        Timestamp { offset, ..self }
    }

    /// Total nanoseconds since the epoch.
    pub fn total_nanos(&self) -> i128 {
        i128::from(self.secs) * 1_000_000_000 + i128::from(self.nanos)
    }

    /// From total nanoseconds, if in range.
    pub fn from_total_nanos(n: i128) -> Option<Self> {
        let secs = n.div_euclid(1_000_000_000);
        let nanos = n.rem_euclid(1_000_000_000);
        Timestamp::new(i64::try_from(secs).ok()?, u32::try_from(nanos).ok()?)
    }

    /// `string(timestamp)`'s text: RFC 3339 at the timestamp's offset, the fraction of a
    /// second trimmed of trailing zeros (`2009-02-13T23:31:30Z`, `2023-12-31T23:59:59-05:00`).
    pub fn to_rfc3339(&self) -> String {
        format_rfc3339(self)
    }
}

impl Duration {
    /// `string(duration)`'s text: the seconds in shortest decimal form followed by `s`
    /// (`1.5s`, `-90s`).
    pub fn to_text(&self) -> String {
        format_duration(self.nanos)
    }
}

/// A signed span of time with nanosecond precision (cel-go's `time.Duration`: an int64 of
/// nanoseconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration {
    /// Nanoseconds.
    pub nanos: i64,
}

/// `string(duration)`: the seconds in shortest decimal form followed by `s` (`1.5s`,
/// `0.000000001s`, `-90s`).
pub fn format_duration(nanos: i64) -> String {
    let secs = nanos / NANOS_PER_SECOND;
    let rest = nanos % NANOS_PER_SECOND;
    let seconds = secs as f64 + rest as f64 / 1e9;
    let mut s = go_strconv::format_float_f(seconds);
    s.push('s');
    s
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
pub(crate) fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(month);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date of a day count since 1970-01-01.
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        year,
        u32::try_from(month).unwrap_or(1),
        u32::try_from(day).unwrap_or(1),
    )
}

/// The calendar fields of an instant at some UTC offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Civil {
    pub(crate) year: i64,
    pub(crate) month: u32,
    pub(crate) day: u32,
    pub(crate) year_day: u32,
    /// Sunday = 0.
    pub(crate) weekday: u32,
    pub(crate) hour: u32,
    pub(crate) minute: u32,
    pub(crate) second: u32,
    pub(crate) nanos: u32,
}

/// The calendar fields of an instant at `offset_seconds` east of UTC.
pub(crate) fn civil(t: &Timestamp, offset_seconds: i64) -> Civil {
    let local = t.secs + offset_seconds;
    let days = local.div_euclid(86_400);
    let sod = local.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    let year_day = days - days_from_civil(year, 1, 1) + 1;
    let to_u32 = |v: i64| u32::try_from(v).unwrap_or(0);
    Civil {
        year,
        month,
        day,
        year_day: to_u32(year_day),
        weekday: to_u32((days + 4).rem_euclid(7)),
        hour: to_u32(sod / 3_600),
        minute: to_u32(sod % 3_600 / 60),
        second: to_u32(sod % 60),
        nanos: t.nanos,
    }
}

/// `string(timestamp)`: RFC 3339 at the timestamp's offset with the fraction of a second
/// trimmed of trailing zeros (Go's `time.RFC3339Nano`): `2009-02-13T23:31:30Z`, `…30.5Z`,
/// `2023-12-31T23:59:59-05:00`.
pub fn format_rfc3339(t: &Timestamp) -> String {
    let c = civil(t, i64::from(t.offset));
    let mut s = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        c.year, c.month, c.day, c.hour, c.minute, c.second
    );
    if t.nanos != 0 {
        let frac = format!("{:09}", t.nanos);
        s.push('.');
        s.push_str(frac.trim_end_matches('0'));
    }
    push_offset(&mut s, t.offset, ":");
    s
}

/// Appends a UTC offset as Go's `Z07:00` writes it: `Z` for UTC, else `±hh<sep>mm`.
pub(crate) fn push_offset(s: &mut String, offset: i32, sep: &str) {
    if offset == 0 {
        s.push('Z');
        return;
    }
    let sign = if offset < 0 { '-' } else { '+' };
    let minutes = offset.unsigned_abs() / 60;
    s.push(sign);
    s.push_str(&format!("{:02}{sep}{:02}", minutes / 60, minutes % 60));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip() {
        for days in [-719_162, -1, 0, 1, 11_016, 2_932_896, 100_000, -100_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-719_162), (1, 1, 1));
        assert_eq!(civil_from_days(-719_163), (0, 12, 31));
    }
}
