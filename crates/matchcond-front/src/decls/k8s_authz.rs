//! Declarations of the Kubernetes authz libraries (kubernetes/apiserver
//! `pkg/cel/library/authz.go`): `kubernetes.authz` (builders of authorization checks on the
//! `authorizer` variable, `check`, and the decision's accessors) and
//! `kubernetes.authzSelectors` (`fieldSelector`, `labelSelector`, Kubernetes 1.31+).
//! Every overload is a member overload.

use super::{func, ov, Function};
use crate::types::Type;

/// `kubernetes.authorization.Authorizer`
fn authorizer() -> Type {
    Type::named("kubernetes.authorization.Authorizer")
}

/// `kubernetes.authorization.PathCheck`
fn path_check() -> Type {
    Type::named("kubernetes.authorization.PathCheck")
}

/// `kubernetes.authorization.GroupCheck`
fn group_check() -> Type {
    Type::named("kubernetes.authorization.GroupCheck")
}

/// `kubernetes.authorization.ResourceCheck`
fn resource_check() -> Type {
    Type::named("kubernetes.authorization.ResourceCheck")
}

/// `kubernetes.authorization.Decision`
fn decision() -> Type {
    Type::named("kubernetes.authorization.Decision")
}

/// A member overload `receiver.f(string) -> result`.
fn string_member(id: &'static str, receiver: Type, result: Type) -> super::Overload {
    ov(id, true, vec![receiver, Type::String], result)
}

/// The functions of `kubernetes.authz`.
pub(crate) fn functions() -> Vec<Function> {
    vec![
        func(
            "path",
            vec![string_member("authorizer_path", authorizer(), path_check())],
        ),
        func(
            "group",
            vec![string_member(
                "authorizer_group",
                authorizer(),
                group_check(),
            )],
        ),
        func(
            "serviceAccount",
            vec![ov(
                "authorizer_serviceaccount",
                true,
                vec![authorizer(), Type::String, Type::String],
                authorizer(),
            )],
        ),
        func(
            "resource",
            vec![string_member(
                "groupcheck_resource",
                group_check(),
                resource_check(),
            )],
        ),
        func(
            "subresource",
            vec![string_member(
                "resourcecheck_subresource",
                resource_check(),
                resource_check(),
            )],
        ),
        func(
            "namespace",
            vec![string_member(
                "resourcecheck_namespace",
                resource_check(),
                resource_check(),
            )],
        ),
        func(
            "name",
            vec![string_member(
                "resourcecheck_name",
                resource_check(),
                resource_check(),
            )],
        ),
        func(
            "check",
            vec![
                string_member("pathcheck_check", path_check(), decision()),
                string_member("resourcecheck_check", resource_check(), decision()),
            ],
        ),
        func(
            "errored",
            vec![ov("decision_errored", true, vec![decision()], Type::Bool)],
        ),
        func(
            "error",
            vec![ov("decision_error", true, vec![decision()], Type::String)],
        ),
        func(
            "allowed",
            vec![ov("decision_allowed", true, vec![decision()], Type::Bool)],
        ),
        func(
            "reason",
            vec![ov("decision_reason", true, vec![decision()], Type::String)],
        ),
    ]
}

/// The type names usable as identifiers: none. The library's types (`Authorizer`,
/// `PathCheck`, `GroupCheck`, `ResourceCheck`, `Decision` in
/// `kubernetes.authorization`) are only named by the declarations above and by the
/// variables' types; the apiserver does not register them with the type provider, so an
/// expression cannot name them (`type(authorizer) == kubernetes.authorization.Authorizer`
/// is an undeclared reference), while `type(authorizer)` still gives the type value.
pub(crate) fn types() -> Vec<(&'static str, Type)> {
    Vec::new()
}

/// The functions of `kubernetes.authzSelectors`: `fieldSelector`, `labelSelector`.
pub(crate) fn selector_functions() -> Vec<Function> {
    vec![
        func(
            "fieldSelector",
            vec![string_member(
                "authorizer_fieldselector",
                resource_check(),
                resource_check(),
            )],
        ),
        func(
            "labelSelector",
            vec![string_member(
                "authorizer_labelselector",
                resource_check(),
                resource_check(),
            )],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(fns: &[Function]) -> Vec<(&'static str, &'static str)> {
        fns.iter()
            .flat_map(|f| f.overloads.iter().map(move |o| (f.name, o.id)))
            .collect()
    }

    #[test]
    fn overload_ids_as_go() {
        assert_eq!(
            ids(&functions()),
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
            ids(&selector_functions()),
            vec![
                ("fieldSelector", "authorizer_fieldselector"),
                ("labelSelector", "authorizer_labelselector"),
            ]
        );
        assert!(functions()
            .iter()
            .chain(selector_functions().iter())
            .all(|f| f.overloads.iter().all(|o| o.member)));
        assert!(types().is_empty());
    }

    #[test]
    fn signatures() {
        let fns = functions();
        let sa = fns.iter().find(|f| f.name == "serviceAccount").unwrap();
        assert_eq!(
            sa.overloads[0].params,
            vec![authorizer(), Type::String, Type::String]
        );
        assert_eq!(sa.overloads[0].result, authorizer());
        let check = fns.iter().find(|f| f.name == "check").unwrap();
        assert_eq!(check.overloads[1].params[0], resource_check());
        assert_eq!(check.overloads[1].result, decision());
    }
}
