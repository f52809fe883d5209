//! Text forms that cel-go produces with Go's formatting of its values: `%v` of a value, RFC
//! 3339 timestamps, the seconds form of durations, and the printed form of runtime types.
//! The Go formatting of numbers and durations they rest on is [`matchcond_gocompat::fmt`]'s.

use matchcond_gocompat::fmt::{duration_string, format_g};

use crate::value::{Duration, Timestamp, Value};

pub(crate) use matchcond_gocompat::strconv::quote;

/// A timestamp in Go's `time.RFC3339Nano` layout (`2023-02-03T23:31:20.5Z`): fractional
/// seconds without trailing zeros, UTC as `Z`.
pub(crate) fn rfc3339_nano(t: &Timestamp) -> String {
    crate::time::format_rfc3339(t)
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
        crate::time::push_offset(&mut zone, t.offset, "");
        out.push(' ');
        out.push_str(&zone);
        out.push(' ');
        out.push_str(&zone);
    }
    out
}

/// cel-go's string form of a duration: the seconds in Go's shortest `'f'` format and `s`
/// (`6347s`, `0.000000002s`, `-1.5s`).
pub(crate) fn duration_seconds(d: &Duration) -> String {
    let secs = d.nanos / 1_000_000_000;
    let nanos = d.nanos % 1_000_000_000;
    let value = secs as f64 + nanos as f64 / 1e9;
    format!("{value}s")
}

/// A list as `[a, b]` and a map as `{k: v, …}` (cel-go's `String()` of lists and maps), each
/// element as `each` writes it; empty for any other value.
pub(crate) fn container_text(v: &Value<'_>, each: fn(&Value<'_>) -> String) -> String {
    match v {
        Value::List(l) => {
            let parts: Vec<String> = l.iter().map(|e| each(&e)).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Map(m) => {
            let parts: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}: {}", each(&k), each(&v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        _ => String::new(),
    }
}

/// Go's `%v` of a cel-go value, as it appears in some of cel-go's error messages.
///
/// Lists and maps are printed as cel-go's `String()` methods print them (`[1, 2]`,
/// `{a: 1}`); elements that Go keeps as plain Go values inside such containers may print
/// differently in cel-go (this only affects the wording of error messages).
pub(crate) fn value_v(v: &Value<'_>) -> String {
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
        Value::List(_) | Value::Map(_) => container_text(v, value_v),
        Value::Timestamp(t) => go_time_string(t),
        Value::Duration(d) => duration_string(d.nanos),
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
pub(crate) fn runtime_type(v: &Value<'_>) -> String {
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
}
