//! Field-level validation errors in apimachinery's format
//! (`<path>: <Type>[: <value>][: <detail>]`), with the value rendering of each release.

use std::fmt;

use matchcond_compiler::{Change, KubeVersion};
use matchcond_gocompat::strconv::quote;

/// The wording of messages that changed between Kubernetes releases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Wording {
    /// Values that are neither strings nor numbers are rendered as JSON (1.34+); before,
    /// with Go's `%#v` (`[]string{"a", "b"}`).
    pub json_values: bool,
    /// Label keys and values are checked by the `content` package (1.35+): `a valid label key`
    /// and `must be no more than 63 bytes`; before: `a qualified name` and `characters`.
    pub label_keys_v2: bool,
    /// `Too long` errors say `may not be more than N bytes` (1.32+); before:
    /// `must have at most N bytes`.
    pub too_long_v2: bool,
}

impl Wording {
    /// The wording of a Kubernetes release, from the release table.
    pub fn for_version(version: KubeVersion) -> Wording {
        Wording {
            json_values: Change::JsonFieldValues.in_force(version),
            label_keys_v2: Change::ContentPackageMessages.in_force(version),
            too_long_v2: Change::TooLongSaysMayNot.in_force(version),
        }
    }
}

#[cfg(test)]
impl Wording {
    /// Every message as the releases before the changes word it (1.28 to 1.31).
    pub(crate) const OLD: Wording = Wording {
        json_values: false,
        label_keys_v2: false,
        too_long_v2: false,
    };
    /// Every message as the releases after the changes word it (1.35+).
    pub(crate) const NEW: Wording = Wording {
        json_values: true,
        label_keys_v2: true,
        too_long_v2: true,
    };
}

/// The kind of a field error (apimachinery's `ErrorType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorType {
    /// `Required value`.
    Required,
    /// `Invalid value`.
    Invalid,
    /// `Unsupported value`.
    NotSupported,
    /// `Duplicate value`.
    Duplicate,
    /// `Too many`.
    TooMany,
    /// `Too long`.
    TooLong,
    /// `Forbidden`.
    Forbidden,
    /// `Internal error`.
    Internal,
}

impl ErrorType {
    /// The text apimachinery gives the type.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorType::Required => "Required value",
            ErrorType::Invalid => "Invalid value",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::TooMany => "Too many",
            ErrorType::TooLong => "Too long",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::Internal => "Internal error",
        }
    }

    /// The machine-readable cause type (`FieldValueRequired`, ...).
    pub fn cause(self) -> &'static str {
        match self {
            ErrorType::Required => "FieldValueRequired",
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::NotSupported => "FieldValueNotSupported",
            ErrorType::Duplicate => "FieldValueDuplicate",
            ErrorType::TooMany => "FieldValueTooMany",
            ErrorType::TooLong => "FieldValueTooLong",
            ErrorType::Forbidden => "FieldValueForbidden",
            ErrorType::Internal => "InternalError",
        }
    }
}

/// The offending value of a field error, as the Go code passes it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum BadValue {
    /// No value is shown (`Required`, `Forbidden`, `Too long`, `Internal error`).
    None,
    /// A Go `string`: rendered with `%q`.
    Str(String),
    /// A value of a named string type (`admissionregistration.OperationType`, ...): `%#v`
    /// before 1.34 (the same quoting as `%q`), JSON since.
    Named(String),
    /// An integer.
    Int(i64),
    /// A slice of strings; `type_name` is the Go element type for `%#v`
    /// (`string`, `admissionregistration.OperationType`). `nil` is a nil slice.
    List {
        /// The Go element type name.
        type_name: &'static str,
        /// The items.
        items: Vec<String>,
        /// Whether the slice is nil (`[]string(nil)`, JSON `null`).
        nil: bool,
    },
    /// A value already rendered as JSON (structs), shown as is in every release.
    Json(String),
}

impl BadValue {
    /// A `[]string` value.
    pub fn strings(items: &[String]) -> BadValue {
        BadValue::List {
            type_name: "string",
            items: items.to_vec(),
            nil: false,
        }
    }

    fn render(&self, wording: Wording) -> Option<String> {
        match self {
            BadValue::None => None,
            BadValue::Str(s) => Some(quote(s)),
            BadValue::Named(s) => Some(if wording.json_values {
                json_quote(s)
            } else {
                quote(s)
            }),
            BadValue::Int(i) => Some(i.to_string()),
            BadValue::Json(j) => Some(j.clone()),
            BadValue::List {
                type_name,
                items,
                nil,
            } => Some(if wording.json_values {
                if *nil {
                    "null".to_owned()
                } else {
                    let parts: Vec<String> = items.iter().map(|s| json_quote(s)).collect();
                    format!("[{}]", parts.join(","))
                }
            } else if *nil {
                format!("[]{type_name}(nil)")
            } else {
                let parts: Vec<String> = items.iter().map(|s| quote(s)).collect();
                format!("[]{type_name}{{{}}}", parts.join(", "))
            }),
        }
    }
}

/// Quotes a string as Go's `encoding/json` does (HTML characters and U+2028/U+2029
/// escaped).
pub fn json_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", u32::from(c)));
            }
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One field-level validation error: `Display` is apimachinery's text
/// (`webhooks[0].name: Required value`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldError {
    pub(crate) kind: ErrorType,
    pub(crate) field: String,
    pub(crate) value: BadValue,
    pub(crate) detail: String,
    /// The release wording used to render the value.
    pub(crate) wording: Wording,
}

impl FieldError {
    /// The kind of error.
    pub fn kind(&self) -> ErrorType {
        self.kind
    }

    /// The field path (`webhooks[0].clientConfig.url`).
    pub fn field(&self) -> &str {
        &self.field
    }

    /// The offending value.
    pub fn value(&self) -> &BadValue {
        &self.value
    }

    /// The detail message (may be empty).
    pub fn detail(&self) -> &str {
        &self.detail
    }

    fn new(
        kind: ErrorType,
        field: impl Into<String>,
        value: BadValue,
        detail: impl Into<String>,
        wording: Wording,
    ) -> FieldError {
        FieldError {
            kind,
            field: field.into(),
            value,
            detail: detail.into(),
            wording,
        }
    }

    /// `field.Required`.
    #[doc(hidden)]
    pub fn required(field: impl Into<String>, detail: impl Into<String>, w: Wording) -> Self {
        FieldError::new(ErrorType::Required, field, BadValue::None, detail, w)
    }

    /// `field.Invalid`.
    #[doc(hidden)]
    pub fn invalid(
        field: impl Into<String>,
        value: BadValue,
        detail: impl Into<String>,
        w: Wording,
    ) -> Self {
        FieldError::new(ErrorType::Invalid, field, value, detail, w)
    }

    /// `field.NotSupported` with the supported values (already sorted as the Go code gives
    /// them).
    #[doc(hidden)]
    pub fn not_supported(
        field: impl Into<String>,
        value: BadValue,
        supported: &[&str],
        w: Wording,
    ) -> Self {
        let detail = if supported.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = supported.iter().map(|s| quote(s)).collect();
            format!("supported values: {}", quoted.join(", "))
        };
        FieldError::new(ErrorType::NotSupported, field, value, detail, w)
    }

    /// `field.Duplicate`.
    #[doc(hidden)]
    pub fn duplicate(field: impl Into<String>, value: BadValue, w: Wording) -> Self {
        FieldError::new(ErrorType::Duplicate, field, value, "", w)
    }

    /// `field.TooMany`.
    #[doc(hidden)]
    pub fn too_many(field: impl Into<String>, actual: usize, max: usize, w: Wording) -> Self {
        let unit = if max == 1 { "item" } else { "items" };
        FieldError::new(
            ErrorType::TooMany,
            field,
            BadValue::Int(i64::try_from(actual).unwrap_or(i64::MAX)),
            format!("must have at most {max} {unit}"),
            w,
        )
    }

    /// `field.TooLong` (the value is never shown).
    #[doc(hidden)]
    pub fn too_long(field: impl Into<String>, max: usize, w: Wording) -> Self {
        let detail = if w.too_long_v2 {
            let unit = if max == 1 { "byte" } else { "bytes" };
            format!("may not be more than {max} {unit}")
        } else {
            format!("must have at most {max} bytes")
        };
        FieldError::new(ErrorType::TooLong, field, BadValue::None, detail, w)
    }

    /// `field.Forbidden`.
    #[doc(hidden)]
    pub fn forbidden(field: impl Into<String>, detail: impl Into<String>, w: Wording) -> Self {
        FieldError::new(ErrorType::Forbidden, field, BadValue::None, detail, w)
    }

    /// `field.InternalError`.
    #[doc(hidden)]
    pub fn internal(field: impl Into<String>, detail: impl Into<String>, w: Wording) -> Self {
        FieldError::new(ErrorType::Internal, field, BadValue::None, detail, w)
    }

    /// The message without the field path (apimachinery's `ErrorBody`).
    pub fn body(&self) -> String {
        let mut s = self.kind.as_str().to_owned();
        let shows_value = !matches!(
            self.kind,
            ErrorType::Required | ErrorType::Forbidden | ErrorType::TooLong | ErrorType::Internal
        );
        if shows_value {
            if let Some(v) = self.value.render(self.wording) {
                s.push_str(": ");
                s.push_str(&v);
            }
        }
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }
}

impl std::error::Error for FieldError {}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

/// Joins errors as `ErrorList.ToAggregate().Error()` does: one error alone, several as
/// `[e1, e2]` with duplicate messages removed. Empty for no errors.
pub fn aggregate(errors: &[FieldError]) -> String {
    let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
    matchcond_matcher::aggregate_messages(&messages)
}

/// A field path under construction (`webhooks[0].rules[1].operations`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Path(String);

impl Path {
    pub(crate) fn new(name: &str) -> Path {
        Path(name.to_owned())
    }

    pub(crate) fn child(&self, name: &str) -> Path {
        if self.0.is_empty() {
            Path(name.to_owned())
        } else {
            Path(format!("{}.{name}", self.0))
        }
    }

    pub(crate) fn index(&self, i: usize) -> Path {
        Path(format!("{}[{i}]", self.0))
    }

    pub(crate) fn key(&self, k: &str) -> Path {
        Path(format!("{}[{k}]", self.0))
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&Path> for String {
    fn from(p: &Path) -> String {
        p.0.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: Wording = Wording::OLD;
    const NEW: Wording = Wording::NEW;

    #[test]
    fn renders_like_apimachinery() {
        let e = FieldError::required("webhooks[0].name", "", NEW);
        assert_eq!(e.to_string(), "webhooks[0].name: Required value");
        let e = FieldError::invalid(
            "webhooks[0].timeoutSeconds",
            BadValue::Int(31),
            "the timeout value must be between 1 and 30 seconds",
            NEW,
        );
        assert_eq!(
            e.to_string(),
            "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds"
        );
        let e = FieldError::not_supported(
            "webhooks[0].failurePolicy",
            BadValue::Named("other".into()),
            &["Fail", "Ignore"],
            NEW,
        );
        assert_eq!(
            e.to_string(),
            "webhooks[0].failurePolicy: Unsupported value: \"other\": supported values: \"Fail\", \"Ignore\""
        );
        let e = FieldError::too_many("webhooks[0].matchConditions", 65, 64, NEW);
        assert_eq!(
            e.to_string(),
            "webhooks[0].matchConditions: Too many: 65: must have at most 64 items"
        );
        let e = FieldError::duplicate("webhooks[1].name", BadValue::Str("a.b.c".into()), NEW);
        assert_eq!(
            e.to_string(),
            "webhooks[1].name: Duplicate value: \"a.b.c\""
        );
        let e = FieldError::forbidden("metadata.namespace", "not allowed on this type", NEW);
        assert_eq!(
            e.to_string(),
            "metadata.namespace: Forbidden: not allowed on this type"
        );
        let e = FieldError::internal("x", "boom", NEW);
        assert_eq!(e.to_string(), "x: Internal error: boom");
    }

    #[test]
    fn lists_render_by_release() {
        let v = BadValue::strings(&["*/*".into(), "a".into()]);
        let e = FieldError::invalid("r", v.clone(), "d", OLD);
        assert_eq!(
            e.to_string(),
            "r: Invalid value: []string{\"*/*\", \"a\"}: d"
        );
        let e = FieldError::invalid("r", v, "d", NEW);
        assert_eq!(e.to_string(), "r: Invalid value: [\"*/*\",\"a\"]: d");
        let nil = BadValue::List {
            type_name: "string",
            items: vec![],
            nil: true,
        };
        let named = BadValue::Named("<a>".into());
        for (value, detail, release, want) in [
            (nil.clone(), "d", OLD, "v: Invalid value: []string(nil): d"),
            (nil, "d", NEW, "v: Invalid value: null: d"),
            (
                named.clone(),
                "",
                NEW,
                "v: Invalid value: \"\\u003ca\\u003e\"",
            ),
            (named, "", OLD, "v: Invalid value: \"<a>\""),
        ] {
            assert_eq!(
                FieldError::invalid("v", value, detail, release).to_string(),
                want
            );
        }
    }

    #[test]
    fn too_long_by_release() {
        assert_eq!(
            FieldError::too_long("metadata.annotations", 262144, NEW).to_string(),
            "metadata.annotations: Too long: may not be more than 262144 bytes"
        );
        assert_eq!(
            FieldError::too_long("metadata.annotations", 262144, OLD).to_string(),
            "metadata.annotations: Too long: must have at most 262144 bytes"
        );
    }

    #[test]
    fn aggregates() {
        let a = FieldError::required("a", "", NEW);
        let b = FieldError::required("b", "", NEW);
        assert_eq!(aggregate(&[]), "");
        assert_eq!(aggregate(std::slice::from_ref(&a)), "a: Required value");
        assert_eq!(
            aggregate(&[a.clone(), b, a]),
            "[a: Required value, b: Required value]"
        );
    }

    #[test]
    fn paths() {
        let p = Path::new("webhooks").index(0).child("rules").index(2);
        assert_eq!(p.as_str(), "webhooks[0].rules[2]");
        assert_eq!(Path::new("").child("key").as_str(), "key");
        assert_eq!(
            Path::new("values").index(0).key("k").as_str(),
            "values[0][k]"
        );
    }
}
