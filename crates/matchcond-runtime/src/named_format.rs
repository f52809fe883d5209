//! The values of the format library's type, `kubernetes.NamedFormat` (the apiserver's
//! `cel.Format`): a named format, its validation and the size of its largest regular
//! expression, which the Kubernetes cost estimator prices `validate` by ([`crate::cost`]).
//! The formats and the functions on them are the format library's
//! ([`crate::libraries::format`]).

use std::any::Any;
use std::sync::Arc;

use matchcond_gocompat::validation::Package;

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
