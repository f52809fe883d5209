//! Function declarations: the overloads the type checker resolves calls against.
//!
//! Overload ids follow cel-go's (`add_int64`, `size_string`, `string_to_int64` …) so that the
//! runtime's implementations and the cost model can be keyed by them.

use crate::types::Type;

mod ext;
mod k8s;
mod k8s_authz;
mod k8s_format;
mod k8s_net;
mod k8s_quantity;
mod k8s_semver;
mod k8s_urls;
mod standard;

/// One overload of a function.
#[derive(Clone, Debug, PartialEq)]
pub struct Overload {
    /// The overload id, as cel-go names it.
    pub id: &'static str,
    /// True for a receiver-style (member) overload; the receiver is the first parameter.
    pub member: bool,
    /// Parameter types (receiver first for member overloads). May use `Type::Param`.
    pub params: Vec<Type>,
    /// The result type. May use the parameters' type parameters.
    pub result: Type,
}

/// A function with all its overloads.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// The function name (`_+_`, `size`, `startsWith`, `optional.of` …).
    pub name: &'static str,
    /// The overloads.
    pub overloads: Vec<Overload>,
}

/// A library of functions that an environment may enable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Library {
    /// The CEL standard library (operators, conversions, strings, timestamps …).
    Standard,
    /// Optional types (`optional.of`, `hasValue`, `orValue` …).
    Optionals,
    /// cel-go strings extension, version 0.
    StringsV0,
    /// cel-go strings extension, version 2.
    StringsV2,
    /// cel-go sets extension.
    Sets,
    /// cel-go lists extension, version 3.
    ListsV3,
    /// Kubernetes lists library, version 0 (`isSorted`, `sum`, `min`, `max`, `indexOf`,
    /// `lastIndexOf`).
    K8sListsV0,
    /// Kubernetes lists library, version 1 (adds `includes`).
    K8sListsV1,
    /// Kubernetes regex library (`find`, `findAll`).
    K8sRegex,
    /// cel-go's two-variable comprehensions (the `cel.@mapInsert` helper of `transformMap`).
    TwoVarComprehensions,
    /// Kubernetes URLs library (`url`, `isURL`, `getScheme` …), type `kubernetes.URL`.
    K8sUrls,
    /// Kubernetes quantity library, type `kubernetes.Quantity`.
    K8sQuantity,
    /// Kubernetes IP library, type `net.IP`.
    K8sIp,
    /// Kubernetes CIDR library, type `net.CIDR`.
    K8sCidr,
    /// Kubernetes format library, type `kubernetes.NamedFormat`.
    K8sFormat,
    /// Kubernetes semver library (version 1, with normalisation), type `kubernetes.Semver`.
    K8sSemver,
    /// Kubernetes authorizer library.
    K8sAuthz,
    /// Kubernetes authorizer selectors (`fieldSelector`, `labelSelector`).
    K8sAuthzSelectors,
}

/// Shorthand for building an overload.
pub(crate) fn ov(id: &'static str, member: bool, params: Vec<Type>, result: Type) -> Overload {
    Overload {
        id,
        member,
        params,
        result,
    }
}

/// Shorthand for building a function.
pub(crate) fn func(name: &'static str, overloads: Vec<Overload>) -> Function {
    Function { name, overloads }
}

/// The functions a library declares.
pub fn library_functions(lib: Library) -> Vec<Function> {
    match lib {
        Library::Standard => standard::functions(),
        Library::Optionals => ext::optionals(),
        Library::StringsV0 => ext::strings(0),
        Library::StringsV2 => ext::strings(2),
        Library::Sets => ext::sets(),
        Library::ListsV3 => ext::lists(3),
        Library::K8sListsV0 => k8s::lists(0),
        Library::K8sListsV1 => k8s::lists(1),
        Library::K8sRegex => k8s::regex(),
        Library::TwoVarComprehensions => two_var_comprehensions(),
        Library::K8sUrls => k8s_urls::functions(),
        Library::K8sQuantity => k8s_quantity::functions(),
        Library::K8sIp => k8s_net::ip_functions(),
        Library::K8sCidr => k8s_net::cidr_functions(),
        Library::K8sFormat => k8s_format::functions(),
        Library::K8sSemver => k8s_semver::functions(),
        Library::K8sAuthz => k8s_authz::functions(),
        Library::K8sAuthzSelectors => k8s_authz::selector_functions(),
    }
}

/// Object types a library declares without a type provider for their fields (`cel.ObjectType`
/// in the apiserver: every library type but the opaque `net.IP` and `net.CIDR`).
pub fn library_struct_types(lib: Library) -> Vec<&'static str> {
    match lib {
        Library::K8sUrls => vec!["kubernetes.URL"],
        Library::K8sQuantity => vec!["kubernetes.Quantity"],
        Library::K8sFormat => vec!["kubernetes.NamedFormat"],
        Library::K8sSemver => vec!["kubernetes.Semver"],
        Library::K8sAuthz => vec![
            "kubernetes.authorization.Authorizer",
            "kubernetes.authorization.PathCheck",
            "kubernetes.authorization.GroupCheck",
            "kubernetes.authorization.ResourceCheck",
            "kubernetes.authorization.Decision",
        ],
        _ => Vec::new(),
    }
}

/// The type names a library declares, usable as type values (`type(x) == net.IP`).
pub fn library_types(lib: Library) -> Vec<(&'static str, Type)> {
    match lib {
        Library::K8sUrls => k8s_urls::types(),
        Library::K8sQuantity => k8s_quantity::types(),
        Library::K8sIp => k8s_net::ip_types(),
        Library::K8sCidr => k8s_net::cidr_types(),
        Library::K8sFormat => k8s_format::types(),
        Library::K8sSemver => k8s_semver::types(),
        Library::K8sAuthz => k8s_authz::types(),
        _ => Vec::new(),
    }
}

/// The helper function the `transformMap` / `transformMapEntry` macros expand to.
fn two_var_comprehensions() -> Vec<Function> {
    let k = Type::param("K");
    let v = Type::param("V");
    let m = Type::map(k.clone(), v.clone());
    vec![func(
        "cel.@mapInsert",
        vec![
            ov(
                "@mapInsert_map_key_value",
                false,
                vec![m.clone(), k, v],
                m.clone(),
            ),
            ov("@mapInsert_map_map", false, vec![m.clone(), m.clone()], m),
        ],
    )]
}
