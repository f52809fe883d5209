//! The Kubernetes format library (`kubernetes.format`, kubernetes/apiserver
//! `pkg/cel/library/format.go`, Kubernetes 1.31+): named formats (type `kubernetes.NamedFormat`) that validate
//! strings with the apimachinery and kube-openapi checks and messages.

use matchcond_front::Type;

use super::definition::{function, global, member, Definition, Implementation, Library};
use crate::cost::Estimate;
use crate::error::EvalError;
use crate::named_format::format_value;
pub use crate::named_format::{as_format, NamedFormat, TYPE_NAME};
use crate::value::{Optional, Value};
use matchcond_gocompat::url::Url;
use matchcond_gocompat::validation::{
    dns1035_label_errors, dns1123_label_errors, dns1123_subdomain_errors, label_value_errors,
    mask_trailing_dash, qualified_name_errors, Package,
};

/// kube-openapi's `strfmt.UUIDPattern` (its length is the format's regex size).
const UUID_PATTERN: &str = "(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$";
/// kube-openapi's `strfmt.DateTimePattern`.
const DATE_TIME_PATTERN: &str =
    "^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$";

/// `validation.IsDNS1123Label`.
fn dns1123_label(s: &[u8], _: Package) -> Vec<String> {
    dns1123_label_errors(s)
}

/// `validation.IsDNS1035Label`.
fn dns1035_label(s: &[u8], _: Package) -> Vec<String> {
    dns1035_label_errors(s)
}

/// `validation.IsDNS1123Subdomain`.
fn dns1123_subdomain(s: &[u8], _: Package) -> Vec<String> {
    dns1123_subdomain_errors(s, Package::Legacy)
}

/// `content.IsLabelKey` (`validation.IsQualifiedName` up to 1.34).
fn qualified_name(s: &[u8], wording: Package) -> Vec<String> {
    qualified_name_errors(s, wording)
}

/// `content.IsLabelValue` (`validation.IsValidLabelValue` up to 1.34).
fn label_value(s: &[u8], wording: Package) -> Vec<String> {
    label_value_errors(s, wording)
}

/// The `uri` format: the error of Go's `url.ParseRequestURI`.
fn uri(s: &[u8], _: Package) -> Vec<String> {
    match std::str::from_utf8(s) {
        Ok(text) => match Url::parse_request_uri(text) {
            Ok(_) => Vec::new(),
            Err(e) => vec![e],
        },
        Err(_) => vec!["invalid URI".to_owned()],
    }
}

/// `strfmt.IsUUID`.
fn is_uuid(s: &[u8]) -> bool {
    let mut rest = s;
    for (i, n) in [8usize, 4, 4, 4, 12].into_iter().enumerate() {
        if i > 0 {
            if let Some(r) = rest.strip_prefix(b"-") {
                rest = r;
            }
        }
        let Some(group) = rest.get(..n) else {
            return false;
        };
        if !group.iter().all(u8::is_ascii_hexdigit) {
            return false;
        }
        rest = rest.get(n..).unwrap_or_default();
    }
    rest.is_empty()
}

/// govalidator's `IsBase64`.
fn is_base64(s: &[u8]) -> bool {
    let alpha = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/');
    if s.is_empty() || !s.len().is_multiple_of(4) {
        return false;
    }
    let (body, last) = s.split_at(s.len() - 4);
    if !body.iter().all(alpha) {
        return false;
    }
    match last {
        [a, b, b'=', b'='] => alpha(a) && alpha(b),
        [a, b, c, b'='] => alpha(a) && alpha(b) && alpha(c),
        _ => last.iter().all(alpha),
    }
}

fn two_digits(s: &[u8]) -> Option<u32> {
    match s {
        [a, b] if a.is_ascii_digit() && b.is_ascii_digit() => {
            Some(u32::from(a - b'0') * 10 + u32::from(b - b'0'))
        }
        _ => None,
    }
}

/// `strfmt.IsDate`: Go's `time.Parse("2006-01-02", s)`.
fn is_date(s: &[u8]) -> bool {
    let [y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1] = s else {
        return false;
    };
    let year: Option<u32> = [y0, y1, y2, y3].iter().try_fold(0u32, |acc, d| {
        d.is_ascii_digit().then(|| acc * 10 + u32::from(**d - b'0'))
    });
    let (Some(year), Some(month), Some(day)) =
        (year, two_digits(&[*m0, *m1]), two_digits(&[*d0, *d1]))
    else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// `[+-][0-9]{2}:[0-9]{2}` or `z`, the whole text.
fn is_zone(s: &[u8]) -> bool {
    match s {
        [b'z'] => true,
        [b'+' | b'-', a, b, b':', c, d] => [a, b, c, d].iter().all(|x| x.is_ascii_digit()),
        _ => false,
    }
}

/// kube-openapi's `DateTimePattern` applied to the time part.
fn time_part_matches(s: &[u8]) -> bool {
    let (Some(h), Some(m), Some(sec)) = (
        s.get(0..2).and_then(two_digits),
        s.get(3..5).and_then(two_digits),
        s.get(6..8).and_then(two_digits),
    ) else {
        return false;
    };
    if s.get(2) != Some(&b':') || s.get(5) != Some(&b':') {
        return false;
    }
    let rest = s.get(8..).unwrap_or_default();
    let tail_ok = is_zone(rest) || fractional_then_zone(rest);
    // The pattern's groups compare as strings ("23" at most for hours, "59" for the rest).
    tail_ok && h <= 23 && m <= 59 && sec <= 59
}

/// `(.[0-9]+)` (any one character but a newline, then digits) followed by a zone.
fn fractional_then_zone(s: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(s) else {
        return false;
    };
    let mut chars = text.chars();
    match chars.next() {
        None | Some('\n') => return false,
        Some(_) => {}
    }
    let rest = chars.as_str().as_bytes();
    [1usize, 6].into_iter().any(|zone_len| {
        rest.len() > zone_len && {
            let (digits, zone) = rest.split_at(rest.len() - zone_len);
            !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) && is_zone(zone)
        }
    })
}

/// `strfmt.IsDateTime`.
fn is_date_time(s: &[u8]) -> bool {
    if s.len() < 4 {
        return false;
    }
    let lower: String = String::from_utf8_lossy(s)
        .chars()
        .filter_map(|c| c.to_lowercase().next())
        .collect();
    let mut parts = lower.split('t');
    let (Some(date), Some(time)) = (parts.next(), parts.next()) else {
        return false;
    };
    is_date(date.as_bytes()) && time_part_matches(time.as_bytes())
}

fn check(ok: bool, msg: &str) -> Vec<String> {
    if ok {
        Vec::new()
    } else {
        vec![msg.to_owned()]
    }
}

/// The named formats, in the library's order.
static FORMATS: [NamedFormat; 13] = [
    NamedFormat::new("dns1123Label", "DNS1123Label", 30, dns1123_label),
    NamedFormat::new(
        "dns1123Subdomain",
        "DNS1123Subdomain",
        60,
        dns1123_subdomain,
    ),
    NamedFormat::new("dns1035Label", "DNS1035Label", 30, dns1035_label),
    NamedFormat::new("qualifiedName", "QualifiedName", 60, qualified_name),
    NamedFormat::new("dns1123LabelPrefix", "DNS1123LabelPrefix", 30, |s, w| {
        dns1123_label(&mask_trailing_dash(s), w)
    }),
    NamedFormat::new(
        "dns1123SubdomainPrefix",
        "DNS1123SubdomainPrefix",
        60,
        |s, w| dns1123_subdomain(&mask_trailing_dash(s), w),
    ),
    NamedFormat::new("dns1035LabelPrefix", "DNS1035LabelPrefix", 30, |s, w| {
        dns1035_label(&mask_trailing_dash(s), w)
    }),
    NamedFormat::new("labelValue", "LabelValue", 40, label_value),
    NamedFormat::new("uri", "URI", 1103, uri),
    NamedFormat::new("uuid", "uuid", UUID_PATTERN.len() as u64, |s, _| {
        check(is_uuid(s), "does not match the UUID format")
    }),
    NamedFormat::new("byte", "byte", 84, |s, _| {
        check(is_base64(s), "invalid base64")
    }),
    NamedFormat::new("date", "date", DATE_TIME_PATTERN.len() as u64, |s, _| {
        check(is_date(s), "invalid date")
    }),
    NamedFormat::new(
        "datetime",
        "datetime",
        DATE_TIME_PATTERN.len() as u64,
        |s, _| check(is_date_time(s), "invalid datetime"),
    ),
];

/// The least and the most of the named formats' largest regular-expression sizes: the
/// range `validate` is priced in before the format is known.
pub(crate) fn regex_size_bounds() -> (u64, u64) {
    let sizes = FORMATS.iter().map(NamedFormat::max_regex_size);
    (sizes.clone().min().unwrap_or(0), sizes.max().unwrap_or(0))
}

/// The format `format.named` finds for a key.
pub fn named(key: &str) -> Option<&'static NamedFormat> {
    FORMATS.iter().find(|f| f.key() == key)
}

fn constant<'a>(key: &str, args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match (args, named(key)) {
        ([], Some(f)) => Ok(format_value(f)),
        _ => Err(EvalError::no_such_overload(key, args)),
    }
}

/// The library, from Kubernetes 1.31.
pub(crate) fn library() -> Definition {
    let f = || Type::named(TYPE_NAME);
    let mut fns = vec![
        function(
            "validate",
            [member(
                "format-validate",
                [f(), Type::String],
                Type::optional(Type::list(Type::String)),
                validate::<true>,
            )
            .by_behaviours(|b| {
                if b.label_messages_in_bytes {
                    validate::<true>
                } else {
                    validate::<false>
                }
            })],
        )
        .estimate_by(Estimate::Validate),
        function(
            "format.named",
            [global(
                "format-named",
                [Type::String],
                Type::optional(f()),
                |a| match a {
                    [Value::String(s)] => Ok(Value::Optional(match named(s) {
                        Some(f) => Optional::of(format_value(f)),
                        None => Optional::None,
                    })),
                    _ => Err(EvalError::no_such_overload("format.named", a)),
                },
            )],
        )
        .estimate_by(Estimate::Fixed(1)),
    ];
    // The function name is also the overload id.
    fns.extend(
        CONSTANTS
            .into_iter()
            .map(|(name, c)| function(name, [global(name, [], f(), c)])),
    );
    Definition::new(Library::K8sFormat)
        .opaque_type(TYPE_NAME)
        .functions(fns)
}

/// `NamedFormat.validate(string) -> optional(list(string))`, the messages worded by
/// apimachinery's content package (`BYTES`, Kubernetes 1.35+) or by `util/validation`
/// (`must be no more than 63 characters`, `a qualified name must consist of …`).
fn validate<'a, const BYTES: bool>(a: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match a {
        [Value::Opaque(o), Value::String(s)] => match as_format(o.as_ref()) {
            Some(f) => {
                let errs = f.validate_worded(s, Package::content_if(BYTES));
                Ok(Value::Optional(if errs.is_empty() {
                    Optional::None
                } else {
                    Optional::of(Value::list(errs.into_iter().map(Value::string).collect()))
                }))
            }
            None => Err(EvalError::no_such_overload("validate", a)),
        },
        _ => Err(EvalError::no_such_overload("validate", a)),
    }
}

/// The zero-argument constant functions, `format.<name>()`, one per named format.
const CONSTANTS: [(&str, Implementation); 13] = [
    ("format.dns1123Label", |a| constant("dns1123Label", a)),
    ("format.dns1123Subdomain", |a| {
        constant("dns1123Subdomain", a)
    }),
    ("format.dns1035Label", |a| constant("dns1035Label", a)),
    ("format.qualifiedName", |a| constant("qualifiedName", a)),
    ("format.dns1123LabelPrefix", |a| {
        constant("dns1123LabelPrefix", a)
    }),
    ("format.dns1123SubdomainPrefix", |a| {
        constant("dns1123SubdomainPrefix", a)
    }),
    ("format.dns1035LabelPrefix", |a| {
        constant("dns1035LabelPrefix", a)
    }),
    ("format.labelValue", |a| constant("labelValue", a)),
    ("format.uri", |a| constant("uri", a)),
    ("format.uuid", |a| constant("uuid", a)),
    ("format.byte", |a| constant("byte", a)),
    ("format.date", |a| constant("date", a)),
    ("format.datetime", |a| constant("datetime", a)),
];

#[cfg(test)]
mod tests;
