//! The Kubernetes URLs library (`kubernetes.urls`, kubernetes/apiserver
//! `pkg/cel/library/urls.go`): values of type `kubernetes.URL`, parsed as Go's `net/url`
//! parses them (see [`matchcond_gocompat::url`]), with Go's error texts.

use std::any::Any;
use std::sync::Arc;

use matchcond_front::Type;
use matchcond_gocompat::url::Url;

use super::definition::{function, global, member, Definition, Implementation, Library};
use super::support::unary;
use crate::cost::Estimate;
use crate::error::EvalError;
use crate::value::{MapData, Opaque, Value};

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The CEL type name.
pub const TYPE_NAME: &str = "kubernetes.URL";

impl Opaque for Url {
    fn type_name(&self) -> &'static str {
        TYPE_NAME
    }

    fn equals(&self, other: &dyn Opaque) -> bool {
        match other.as_any().downcast_ref::<Url>() {
            Some(o) => self.to_text() == o.to_text(),
            None => false,
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn text(&self) -> String {
        self.to_text()
    }
}

/// The prefix of conversion errors.
const CONVERSION: &str = "URL parse error during conversion from string: ";

fn url_arg<'v>(v: &'v Value<'_>) -> Option<&'v Url> {
    match v {
        Value::Opaque(o) => o.as_any().downcast_ref::<Url>(),
        _ => None,
    }
}

fn getter<'a>(
    name: &str,
    args: &[Value<'a>],
    f: fn(&Url) -> Value<'static>,
) -> Result<Value<'a>, EvalError> {
    unary(name, args, |a| url_arg(a).map(f))
}

fn string_value(b: &[u8]) -> Value<'static> {
    Value::string(lossy(b))
}

fn query_value(u: &Url) -> Value<'static> {
    let mut map = MapData::new();
    for (k, values) in u.query() {
        let list = Value::list(values.iter().map(|v| string_value(v)).collect());
        // Keys are distinct strings, so inserting cannot fail.
        let _ = map.insert(string_value(&k), list);
    }
    Value::Map(crate::value::Map::Shared(Arc::new(map)))
}

/// The library, in every version: `url`, `isURL` and the getters of `kubernetes.URL`.
pub(crate) fn library() -> Definition {
    let u = || Type::named(TYPE_NAME);
    let accessor = |name: &'static str, id: &'static str, result: Type, f: Implementation| {
        function(name, [member(id, [u()], result, f)]).estimate_by(Estimate::Fixed(1))
    };
    Definition::new(Library::K8sUrls)
        .opaque_type(TYPE_NAME)
        .functions([
            function(
                "url",
                [global("string_to_url", [Type::String], u(), |a| match a {
                    [Value::String(s)] => {
                        Url::parse_request_uri(s)
                            .map_err(|e| EvalError::invalid_argument(format!("{CONVERSION}{e}")))?;
                        let u = Url::parse(s)
                            .map_err(|e| EvalError::invalid_argument(format!("{CONVERSION}{e}")))?;
                        Ok(Value::Opaque(Arc::new(u)))
                    }
                    _ => Err(EvalError::no_such_overload("url", a)),
                })],
            )
            .estimate_by(Estimate::StringTraversal),
            accessor("getScheme", "url_get_scheme", Type::String, |a| {
                getter("getScheme", a, |u| string_value(u.scheme()))
            }),
            accessor("getHost", "url_get_host", Type::String, |a| {
                getter("getHost", a, |u| string_value(u.host()))
            }),
            accessor("getHostname", "url_get_hostname", Type::String, |a| {
                getter("getHostname", a, |u| string_value(u.split_host_port().0))
            }),
            accessor("getPort", "url_get_port", Type::String, |a| {
                getter("getPort", a, |u| string_value(u.split_host_port().1))
            }),
            accessor(
                "getEscapedPath",
                "url_get_escaped_path",
                Type::String,
                |a| getter("getEscapedPath", a, |u| string_value(&u.escaped_path())),
            ),
            accessor(
                "getQuery",
                "url_get_query",
                Type::map(Type::String, Type::list(Type::String)),
                |a| getter("getQuery", a, query_value),
            ),
            function(
                "isURL",
                [global(
                    "is_url_string",
                    [Type::String],
                    Type::Bool,
                    |a| match a {
                        [Value::String(s)] => Ok(Value::Bool(Url::parse_request_uri(s).is_ok())),
                        _ => Err(EvalError::no_such_overload("isURL", a)),
                    },
                )],
            ),
        ])
}

#[cfg(test)]
mod tests;
