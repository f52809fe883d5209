//! The Kubernetes format library (`kubernetes.format`, kubernetes/apiserver
//! `pkg/cel/library/format.go`, Kubernetes 1.31+): named formats (type `kubernetes.NamedFormat`) that validate
//! strings with the apimachinery and kube-openapi checks and messages.

use matchcond_front::Type;

use super::definition::{function, global, member, Definition, Implementation, Library};
use crate::cost::Estimate;
use crate::error::EvalError;
use crate::named_format::format_value;
#[cfg(test)]
use crate::named_format::FORMATS;
pub use crate::named_format::{as_format, named, NamedFormat, TYPE_NAME};
use crate::value::{Optional, Value};
use matchcond_gocompat::validation::Package;

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
