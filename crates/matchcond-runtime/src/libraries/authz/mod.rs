//! The Kubernetes authz library (kubernetes/apiserver `pkg/cel/library/authz.go`,
//! `kubernetes.authz`, Kubernetes 1.27+): builders of authorization checks on the
//! `authorizer` variable, `check()`, and the accessors of the decision. Every overload is a
//! member overload. The values and the [`Authorizer`](crate::authz::Authorizer) they call are
//! in [`crate::authz`]; the selectors of checks are the library of [`super::authz_selectors`].
//!
//! The library's types (`Authorizer`, `PathCheck`, `GroupCheck`, `ResourceCheck`, `Decision`
//! in `kubernetes.authorization`) are only named by the declarations and by the variables'
//! types; the apiserver does not register them with the type provider, so an expression
//! cannot name them (`type(authorizer) == kubernetes.authorization.Authorizer` is an
//! undeclared reference), while `type(authorizer)` still gives the type value.

use std::sync::Arc;

use matchcond_front::Type;

use super::definition::{function, member, Definition, FunctionEntry, Implementation, Library};
use crate::authz::RESOURCE_CHECK_TYPE;
use crate::authz::{AuthorizerValue, DecisionValue, GroupCheck, PathCheck, ResourceCheck};
use crate::authz::{AUTHORIZER_TYPE, DECISION_TYPE, GROUP_CHECK_TYPE, PATH_CHECK_TYPE};
use crate::cost::{Estimate, AUTHZ_CHECK_COST};
use crate::error::EvalError;
use crate::value::{Opaque, Value};

/// The receiver as a library value of type `T`.
fn receiver<'v, T: 'static>(v: &'v Value<'_>) -> Option<&'v T> {
    match v {
        Value::Opaque(o) => o.as_any().downcast_ref::<T>(),
        _ => None,
    }
}

pub(super) fn wrap<'a>(v: impl Opaque) -> Value<'a> {
    Value::Opaque(Arc::new(v))
}

/// A member function of `T` taking one string.
pub(super) fn with_string<'a, T: 'static>(
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

/// `kubernetes.authorization.<name>`
pub(super) fn authz_type(name: &'static str) -> Type {
    Type::named(name)
}

/// A member overload `receiver.f(string) -> result`, as a function priced 1 by the
/// Kubernetes estimator.
fn builder(
    name: &'static str,
    id: &'static str,
    receiver: &'static str,
    result: &'static str,
    f: Implementation,
) -> FunctionEntry {
    function(
        name,
        [member(
            id,
            [authz_type(receiver), Type::String],
            authz_type(result),
            f,
        )],
    )
    .estimate_by(Estimate::Fixed(1))
}

/// An accessor of the decision, priced 1 by the Kubernetes estimator.
fn accessor(
    name: &'static str,
    id: &'static str,
    result: Type,
    f: Implementation,
) -> FunctionEntry {
    function(name, [member(id, [authz_type(DECISION_TYPE)], result, f)])
        .estimate_by(Estimate::Fixed(1))
}

/// The library, from Kubernetes 1.27.
pub(crate) fn library() -> Definition {
    Definition::new(Library::K8sAuthz)
        .object_types([
            AUTHORIZER_TYPE,
            PATH_CHECK_TYPE,
            GROUP_CHECK_TYPE,
            RESOURCE_CHECK_TYPE,
            DECISION_TYPE,
        ])
        .functions([
            builder(
                "path",
                "authorizer_path",
                AUTHORIZER_TYPE,
                PATH_CHECK_TYPE,
                |a| with_string("path", a, |z: &AuthorizerValue, p| z.path(p).map(wrap)),
            ),
            builder(
                "group",
                "authorizer_group",
                AUTHORIZER_TYPE,
                GROUP_CHECK_TYPE,
                |a| with_string("group", a, |z: &AuthorizerValue, g| Ok(wrap(z.group(g)))),
            ),
            function(
                "serviceAccount",
                [member(
                    "authorizer_serviceaccount",
                    [authz_type(AUTHORIZER_TYPE), Type::String, Type::String],
                    authz_type(AUTHORIZER_TYPE),
                    |a| match a {
                        [r, Value::String(ns), Value::String(name)] => {
                            match receiver::<AuthorizerValue>(r) {
                                Some(z) => z.service_account(ns, name).map(wrap),
                                None => Err(EvalError::no_such_overload("serviceAccount", a)),
                            }
                        }
                        _ => Err(EvalError::no_such_overload("serviceAccount", a)),
                    },
                )],
            )
            .estimate_by(Estimate::Fixed(1)),
            builder(
                "resource",
                "groupcheck_resource",
                GROUP_CHECK_TYPE,
                RESOURCE_CHECK_TYPE,
                |a| with_string("resource", a, |g: &GroupCheck, r| g.resource(r).map(wrap)),
            ),
            builder(
                "subresource",
                "resourcecheck_subresource",
                RESOURCE_CHECK_TYPE,
                RESOURCE_CHECK_TYPE,
                |a| {
                    with_string("subresource", a, |r: &ResourceCheck, s| {
                        Ok(wrap(r.with_subresource(s)))
                    })
                },
            ),
            builder(
                "namespace",
                "resourcecheck_namespace",
                RESOURCE_CHECK_TYPE,
                RESOURCE_CHECK_TYPE,
                |a| {
                    with_string("namespace", a, |r: &ResourceCheck, s| {
                        Ok(wrap(r.with_namespace(s)))
                    })
                },
            ),
            builder(
                "name",
                "resourcecheck_name",
                RESOURCE_CHECK_TYPE,
                RESOURCE_CHECK_TYPE,
                |a| with_string("name", a, |r: &ResourceCheck, s| Ok(wrap(r.with_name(s)))),
            ),
            function(
                "check",
                [
                    member(
                        "pathcheck_check",
                        [authz_type(PATH_CHECK_TYPE), Type::String],
                        authz_type(DECISION_TYPE),
                        |a| with_string("check", a, |p: &PathCheck, verb| Ok(wrap(p.check(verb)))),
                    ),
                    member(
                        "resourcecheck_check",
                        [authz_type(RESOURCE_CHECK_TYPE), Type::String],
                        authz_type(DECISION_TYPE),
                        |a| {
                            with_string("check", a, |r: &ResourceCheck, verb| {
                                Ok(wrap(r.check(verb)))
                            })
                        },
                    ),
                ],
            )
            .estimate_by(Estimate::Fixed(AUTHZ_CHECK_COST)),
            accessor("errored", "decision_errored", Type::Bool, |a| {
                decision("errored", a, |d| Value::Bool(d.errored()))
            }),
            accessor("error", "decision_error", Type::String, |a| {
                decision("error", a, |d| Value::string(d.error()))
            }),
            accessor("allowed", "decision_allowed", Type::Bool, |a| {
                decision("allowed", a, |d| Value::Bool(d.allowed()))
            }),
            accessor("reason", "decision_reason", Type::String, |a| {
                decision("reason", a, |d| Value::string(d.reason()))
            }),
        ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::authz::{Attributes, AuthzResponse, UserInfo};
    use crate::error::ErrorKind;
    use crate::test_util::{call, s};

    fn authorizer() -> Value<'static> {
        let allow_pods = |a: &Attributes<'_>| match &a.resource {
            Some(r) if r.resource == "pods" => AuthzResponse::allow().with_reason("pods ok"),
            Some(_) => AuthzResponse::deny(),
            None => AuthzResponse::error("no paths"),
        };
        crate::authz::authorizer_value(UserInfo::new("u"), Arc::new(allow_pods))
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

    #[test]
    fn overload_ids_as_go() {
        let ids = |def: &Definition| {
            crate::test_util::declared(def)
                .into_iter()
                .map(|(f, id, member)| {
                    assert!(member, "{id}");
                    (f, id)
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            ids(&library()),
            vec![
                ("path", "authorizer_path"),
                ("group", "authorizer_group"),
                ("serviceAccount", "authorizer_serviceaccount"),
                ("resource", "groupcheck_resource"),
                ("subresource", "resourcecheck_subresource"),
                ("namespace", "resourcecheck_namespace"),
                ("name", "resourcecheck_name"),
                ("check", "pathcheck_check"),
                ("check", "resourcecheck_check"),
                ("errored", "decision_errored"),
                ("error", "decision_error"),
                ("allowed", "decision_allowed"),
                ("reason", "decision_reason"),
            ]
        );
        assert_eq!(
            ids(&super::super::authz_selectors::library()),
            vec![
                ("fieldSelector", "authorizer_fieldselector"),
                ("labelSelector", "authorizer_labelselector"),
            ]
        );
        assert!(library().type_names().is_empty());
    }

    #[test]
    fn signatures() {
        let def = library();
        let sa = crate::test_util::declaration(&def, "authorizer_serviceaccount");
        let authorizer = authz_type(AUTHORIZER_TYPE);
        assert_eq!(
            sa.params,
            vec![authorizer.clone(), Type::String, Type::String]
        );
        assert_eq!(sa.result, authorizer);
        let check = crate::test_util::declaration(&def, "resourcecheck_check");
        assert_eq!(check.params[0], authz_type(RESOURCE_CHECK_TYPE));
        assert_eq!(check.result, authz_type(DECISION_TYPE));
    }
}
