//! The Kubernetes authz library (kubernetes/apiserver `pkg/cel/library/authz.go`, libraries
//! `kubernetes.authz` and `kubernetes.authzSelectors`): builders of authorization checks on
//! the `authorizer` variable, `check()`, and the accessors of the decision. The values and
//! the [`Authorizer`](crate::authz::Authorizer) they call are in [`crate::authz`].

use std::sync::Arc;

use crate::authz::{AuthorizerValue, DecisionValue, GroupCheck, PathCheck, ResourceCheck};
use crate::error::EvalError;
use crate::functions::Function;
use crate::value::{Opaque, Value};

/// The receiver as a library value of type `T`.
fn receiver<'v, T: 'static>(v: &'v Value<'_>) -> Option<&'v T> {
    match v {
        Value::Opaque(o) => o.as_any().downcast_ref::<T>(),
        _ => None,
    }
}

fn wrap<'a>(v: impl Opaque) -> Value<'a> {
    Value::Opaque(Arc::new(v))
}

/// A member function of `T` taking one string.
fn with_string<'a, T: 'static>(
    function: &str,
    args: &[Value<'a>],
    f: impl FnOnce(&T, &str) -> Result<Value<'a>, EvalError>,
) -> Result<Value<'a>, EvalError> {
    match args {
        [r, Value::String(s)] => match receiver::<T>(r) {
            Some(t) => f(t, s),
            None => Err(EvalError::no_such_overload(function, args)),
        },
        _ => Err(EvalError::no_such_overload(function, args)),
    }
}

/// A member function of `Decision` without arguments.
fn decision<'a>(
    function: &str,
    args: &[Value<'a>],
    f: impl FnOnce(&DecisionValue) -> Value<'a>,
) -> Result<Value<'a>, EvalError> {
    match args {
        [r] => match receiver::<DecisionValue>(r) {
            Some(d) => Ok(f(d)),
            None => Err(EvalError::no_such_overload(function, args)),
        },
        _ => Err(EvalError::no_such_overload(function, args)),
    }
}

/// The overloads this module implements.
pub static FUNCTIONS: &[(&str, Function)] = &[
    ("authorizer_path", |a| {
        with_string("path", a, |z: &AuthorizerValue, p| z.path(p).map(wrap))
    }),
    ("authorizer_group", |a| {
        with_string("group", a, |z: &AuthorizerValue, g| Ok(wrap(z.group(g))))
    }),
    ("authorizer_serviceaccount", |a| match a {
        [r, Value::String(ns), Value::String(name)] => match receiver::<AuthorizerValue>(r) {
            Some(z) => z.service_account(ns, name).map(wrap),
            None => Err(EvalError::no_such_overload("serviceAccount", a)),
        },
        _ => Err(EvalError::no_such_overload("serviceAccount", a)),
    }),
    ("groupcheck_resource", |a| {
        with_string("resource", a, |g: &GroupCheck, r| g.resource(r).map(wrap))
    }),
    ("resourcecheck_subresource", |a| {
        with_string("subresource", a, |r: &ResourceCheck, s| {
            Ok(wrap(r.with_subresource(s)))
        })
    }),
    ("resourcecheck_namespace", |a| {
        with_string("namespace", a, |r: &ResourceCheck, s| {
            Ok(wrap(r.with_namespace(s)))
        })
    }),
    ("resourcecheck_name", |a| {
        with_string("name", a, |r: &ResourceCheck, s| Ok(wrap(r.with_name(s))))
    }),
    ("authorizer_fieldselector", |a| {
        with_string("fieldSelector", a, |r: &ResourceCheck, s| {
            Ok(wrap(r.with_field_selector(s)))
        })
    }),
    ("authorizer_labelselector", |a| {
        with_string("labelSelector", a, |r: &ResourceCheck, s| {
            Ok(wrap(r.with_label_selector(s)))
        })
    }),
    ("pathcheck_check", |a| {
        with_string("check", a, |p: &PathCheck, verb| Ok(wrap(p.check(verb))))
    }),
    ("resourcecheck_check", |a| {
        with_string("check", a, |r: &ResourceCheck, verb| {
            Ok(wrap(r.check(verb)))
        })
    }),
    ("decision_allowed", |a| {
        decision("allowed", a, |d| Value::Bool(d.allowed()))
    }),
    ("decision_reason", |a| {
        decision("reason", a, |d| Value::string(d.reason()))
    }),
    ("decision_errored", |a| {
        decision("errored", a, |d| Value::Bool(d.errored()))
    }),
    ("decision_error", |a| {
        decision("error", a, |d| Value::string(d.error()))
    }),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::authz::{Attributes, AuthzResponse, UserInfo};
    use crate::error::ErrorKind;

    fn call<'a>(id: &str, args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
        let f = FUNCTIONS.iter().find(|(i, _)| *i == id).unwrap().1;
        f(args)
    }

    fn authorizer() -> Value<'static> {
        let allow_pods = |a: &Attributes<'_>| match &a.resource {
            Some(r) if r.resource == "pods" => AuthzResponse::allow().with_reason("pods ok"),
            Some(_) => AuthzResponse::deny(),
            None => AuthzResponse::error("no paths"),
        };
        crate::authz::authorizer_value(UserInfo::new("u"), Arc::new(allow_pods))
    }

    fn s(v: &str) -> Value<'_> {
        Value::string(v)
    }

    #[test]
    fn chain() {
        let z = authorizer();
        let g = call("authorizer_group", &[z.clone(), s("")]).unwrap();
        assert_eq!(g.type_name(), "kubernetes.authorization.GroupCheck");
        let r = call("groupcheck_resource", &[g, s("pods")]).unwrap();
        let r = call("resourcecheck_namespace", &[r, s("default")]).unwrap();
        let d = call("resourcecheck_check", &[r, s("create")]).unwrap();
        assert!(matches!(
            call("decision_allowed", std::slice::from_ref(&d)),
            Ok(Value::Bool(true))
        ));
        assert_eq!(
            call("decision_reason", std::slice::from_ref(&d))
                .unwrap()
                .as_str(),
            Some("pods ok")
        );
        assert!(matches!(
            call("decision_errored", std::slice::from_ref(&d)),
            Ok(Value::Bool(false))
        ));
        assert_eq!(call("decision_error", &[d]).unwrap().as_str(), Some(""));

        let p = call("authorizer_path", &[z, s("/healthz")]).unwrap();
        let d = call("pathcheck_check", &[p, s("GET")]).unwrap();
        assert!(matches!(
            call("decision_allowed", std::slice::from_ref(&d)),
            Ok(Value::Bool(false))
        ));
        assert_eq!(
            call("decision_error", &[d]).unwrap().as_str(),
            Some("no paths")
        );
    }

    #[test]
    fn wrong_receivers_are_no_such_overload() {
        let z = authorizer();
        let e = call("groupcheck_resource", &[z.clone(), s("pods")]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::NoSuchOverload);
        assert_eq!(
            e.message,
            "no such overload: resource(kubernetes.authorization.Authorizer, string)"
        );
        let e = call("authorizer_path", &[z.clone(), Value::Int(1)]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::NoSuchOverload);
        let e = call("decision_allowed", &[z]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::NoSuchOverload);
        let e = call("authorizer_serviceaccount", &[s("x"), s("a"), s("b")]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::NoSuchOverload);
    }

    #[test]
    fn builder_errors() {
        let z = authorizer();
        let e = call("authorizer_path", &[z.clone(), s("  ")]).unwrap_err();
        assert_eq!(e.message, "path must not be empty");
        let e = call("authorizer_serviceaccount", &[z.clone(), s("ns"), s("Bad")]).unwrap_err();
        assert_eq!(e.message, "Invalid service account name");
        let g = call("authorizer_group", &[z, s("apps")]).unwrap();
        let e = call("groupcheck_resource", &[g, s("")]).unwrap_err();
        assert_eq!(e.message, "resource must not be empty");
    }
}
