//! Declarations of the Kubernetes URLs library (`kubernetes.urls`, kubernetes/apiserver
//! `pkg/cel/library/urls.go`), type `kubernetes.URL`.
use super::{func, ov, Function};
use crate::types::Type;

/// The CEL type name of URLs.
pub(crate) const URL: &str = "kubernetes.URL";

fn u() -> Type {
    Type::named(URL)
}

/// The functions.
pub(crate) fn functions() -> Vec<Function> {
    let getter = |name: &'static str, id: &'static str, result: Type| {
        func(name, vec![ov(id, true, vec![u()], result)])
    };
    vec![
        func(
            "url",
            vec![ov("string_to_url", false, vec![Type::String], u())],
        ),
        getter("getScheme", "url_get_scheme", Type::String),
        getter("getHost", "url_get_host", Type::String),
        getter("getHostname", "url_get_hostname", Type::String),
        getter("getPort", "url_get_port", Type::String),
        getter("getEscapedPath", "url_get_escaped_path", Type::String),
        getter(
            "getQuery",
            "url_get_query",
            Type::map(Type::String, Type::list(Type::String)),
        ),
        func(
            "isURL",
            vec![ov("is_url_string", false, vec![Type::String], Type::Bool)],
        ),
    ]
}

/// The type names.
pub(crate) fn types() -> Vec<(&'static str, Type)> {
    vec![(URL, u())]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations() {
        let fns = functions();
        assert_eq!(fns.len(), 8);
        let query = fns
            .iter()
            .find(|f| f.name == "getQuery")
            .and_then(|f| f.overloads.first().map(|o| o.result.clone()));
        assert_eq!(
            query,
            Some(Type::map(Type::String, Type::list(Type::String)))
        );
        assert_eq!(types(), vec![("kubernetes.URL", u())]);
    }
}
