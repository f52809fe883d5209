//! The values of the format library's type, `kubernetes.NamedFormat` (the apiserver's
//! `cel.Format`): a named format, its validation and the size of its largest regular
//! expression, which the Kubernetes cost estimator prices `validate` by ([`crate::cost`]).
//! The formats are here ([`named`]); the functions on them are the format library's
//! ([`crate::libraries::format`]).

use std::any::Any;
use std::sync::Arc;

use matchcond_gocompat::url::Url;
use matchcond_gocompat::validation::{
    dns1035_label_errors, dns1123_label_errors, dns1123_subdomain_errors, label_value_errors,
    mask_trailing_dash, qualified_name_errors, Package,
};

use crate::value::{Opaque, Value};

/// The CEL type name.
pub const TYPE_NAME: &str = "kubernetes.NamedFormat";

/// A named format.
#[derive(Debug)]
pub struct NamedFormat {
    /// The name `format.named` takes (`dns1123Label`).
    key: &'static str,
    /// The format's own name (`DNS1123Label`), which equality compares.
    name: &'static str,
    /// The regular-expression size the cost model charges for.
    max_regex_size: u64,
    validate: fn(&[u8], Package) -> Vec<String>,
}

impl NamedFormat {
    pub(crate) const fn new(
        key: &'static str,
        name: &'static str,
        max_regex_size: u64,
        validate: fn(&[u8], Package) -> Vec<String>,
    ) -> Self {
        NamedFormat {
            key,
            name,
            max_regex_size,
            validate,
        }
    }

    /// The regular-expression size the cost of `validate` is computed from.
    pub fn max_regex_size(&self) -> u64 {
        self.max_regex_size
    }

    /// The validation messages for a string (none when it is valid), as the newest release
    /// words them.
    pub fn validate(&self, s: &str) -> Vec<String> {
        self.validate_worded(s, Package::Current)
    }

    /// The validation messages for a string, worded as apimachinery's `wording` package
    /// words them (the legacy `util/validation` up to Kubernetes 1.34).
    pub fn validate_worded(&self, s: &str, wording: Package) -> Vec<String> {
        (self.validate)(s.as_bytes(), wording)
    }

    /// The key `format.named` accepts.
    pub fn key(&self) -> &'static str {
        self.key
    }
}

/// A shared handle to a static format, as an opaque value.
#[derive(Debug)]
struct FormatRef(&'static NamedFormat);

impl Opaque for FormatRef {
    fn type_name(&self) -> &'static str {
        TYPE_NAME
    }

    fn equals(&self, other: &dyn Opaque) -> bool {
        match other.as_any().downcast_ref::<FormatRef>() {
            Some(o) => self.0.name == o.0.name,
            None => false,
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn text(&self) -> String {
        self.0.name.to_owned()
    }
}

/// The format behind an opaque value, if it is one.
pub fn as_format(o: &dyn Opaque) -> Option<&'static NamedFormat> {
    o.as_any().downcast_ref::<FormatRef>().map(|r| r.0)
}

/// A format as a value.
pub(crate) fn format_value<'a>(f: &'static NamedFormat) -> Value<'a> {
    Value::Opaque(Arc::new(FormatRef(f)))
}

/// The size of the largest regular expression of the named format behind a value (what the
/// Kubernetes estimator prices `validate` by), if it is one.
pub(crate) fn max_regex_size(o: &dyn Opaque) -> Option<u64> {
    as_format(o).map(NamedFormat::max_regex_size)
}

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
pub(crate) static FORMATS: [NamedFormat; 13] = [
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
