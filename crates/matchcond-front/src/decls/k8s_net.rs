//! Declarations of the Kubernetes IP and CIDR libraries, `kubernetes.net.ip` and
//! `kubernetes.net.cidr` (kubernetes/apiserver: `pkg/cel/library/ip.go`,
//! `pkg/cel/library/cidr.go`), with their opaque types `net.IP` and `net.CIDR`.

use super::{func, ov, Function};
use crate::types::Type;

/// The type name of IP addresses.
const IP: &str = "net.IP";
/// The type name of CIDRs.
const CIDR: &str = "net.CIDR";

fn ip() -> Type {
    Type::named(IP)
}

fn cidr() -> Type {
    Type::named(CIDR)
}

/// A member function of `net.IP` without arguments.
fn ip_member(name: &'static str, id: &'static str, result: Type) -> Function {
    func(name, vec![ov(id, true, vec![ip()], result)])
}

/// A member function of `net.CIDR` without arguments.
fn cidr_member(name: &'static str, id: &'static str, result: Type) -> Function {
    func(name, vec![ov(id, true, vec![cidr()], result)])
}

/// The IP library's functions: `ip(string)`, `isIP(string)`, `ip.isCanonical(string)`, the
/// members `family`, `isUnspecified`, `isLoopback`, `isLinkLocalMulticast`,
/// `isLinkLocalUnicast`, `isGlobalUnicast`, and `string(net.IP)`.
pub(crate) fn ip_functions() -> Vec<Function> {
    vec![
        func(
            "ip",
            vec![ov("string_to_ip", false, vec![Type::String], ip())],
        ),
        ip_member("family", "ip_family", Type::Int),
        func(
            "ip.isCanonical",
            vec![ov("ip_is_canonical", false, vec![Type::String], Type::Bool)],
        ),
        ip_member("isUnspecified", "ip_is_unspecified", Type::Bool),
        ip_member("isLoopback", "ip_is_loopback", Type::Bool),
        ip_member(
            "isLinkLocalMulticast",
            "ip_is_link_local_multicast",
            Type::Bool,
        ),
        ip_member("isLinkLocalUnicast", "ip_is_link_local_unicast", Type::Bool),
        ip_member("isGlobalUnicast", "ip_is_global_unicast", Type::Bool),
        func(
            "isIP",
            vec![ov("is_ip", false, vec![Type::String], Type::Bool)],
        ),
        func(
            "string",
            vec![ov("ip_to_string", false, vec![ip()], Type::String)],
        ),
    ]
}

/// The CIDR library's functions: `cidr(string)`, `isCIDR(string)`, the members
/// `containsIP(string | net.IP)`, `containsCIDR(string | net.CIDR)`, `ip()`, `masked()`,
/// `prefixLength()`, and `string(net.CIDR)`.
pub(crate) fn cidr_functions() -> Vec<Function> {
    vec![
        func(
            "cidr",
            vec![ov("string_to_cidr", false, vec![Type::String], cidr())],
        ),
        func(
            "containsIP",
            vec![
                ov(
                    "cidr_contains_ip_string",
                    true,
                    vec![cidr(), Type::String],
                    Type::Bool,
                ),
                ov("cidr_contains_ip_ip", true, vec![cidr(), ip()], Type::Bool),
            ],
        ),
        func(
            "containsCIDR",
            vec![
                ov(
                    "cidr_contains_cidr_string",
                    true,
                    vec![cidr(), Type::String],
                    Type::Bool,
                ),
                ov("cidr_contains_cidr", true, vec![cidr(), cidr()], Type::Bool),
            ],
        ),
        cidr_member("ip", "cidr_ip", ip()),
        cidr_member("prefixLength", "cidr_prefix_length", Type::Int),
        cidr_member("masked", "cidr_masked", cidr()),
        func(
            "isCIDR",
            vec![ov("is_cidr", false, vec![Type::String], Type::Bool)],
        ),
        func(
            "string",
            vec![ov("cidr_to_string", false, vec![cidr()], Type::String)],
        ),
    ]
}

/// The IP library's type names: `net.IP`.
pub(crate) fn ip_types() -> Vec<(&'static str, Type)> {
    vec![(IP, ip())]
}

/// The CIDR library's type names: `net.CIDR` (the library registers only its own type).
pub(crate) fn cidr_types() -> Vec<(&'static str, Type)> {
    vec![(CIDR, cidr())]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(fns: &[Function]) -> Vec<(&'static str, &'static str, bool)> {
        fns.iter()
            .flat_map(|f| f.overloads.iter().map(move |o| (f.name, o.id, o.member)))
            .collect()
    }

    #[test]
    fn ip_library() {
        assert_eq!(
            ids(&ip_functions()),
            vec![
                ("ip", "string_to_ip", false),
                ("family", "ip_family", true),
                ("ip.isCanonical", "ip_is_canonical", false),
                ("isUnspecified", "ip_is_unspecified", true),
                ("isLoopback", "ip_is_loopback", true),
                ("isLinkLocalMulticast", "ip_is_link_local_multicast", true),
                ("isLinkLocalUnicast", "ip_is_link_local_unicast", true),
                ("isGlobalUnicast", "ip_is_global_unicast", true),
                ("isIP", "is_ip", false),
                ("string", "ip_to_string", false),
            ]
        );
        let family = ip_functions()
            .into_iter()
            .find(|f| f.name == "family")
            .and_then(|f| f.overloads.into_iter().next());
        assert_eq!(
            family.map(|o| (o.params, o.result)),
            Some((vec![Type::named("net.IP")], Type::Int))
        );
        assert_eq!(ip_types(), vec![("net.IP", Type::named("net.IP"))]);
    }

    #[test]
    fn cidr_library() {
        assert_eq!(
            ids(&cidr_functions()),
            vec![
                ("cidr", "string_to_cidr", false),
                ("containsIP", "cidr_contains_ip_string", true),
                ("containsIP", "cidr_contains_ip_ip", true),
                ("containsCIDR", "cidr_contains_cidr_string", true),
                ("containsCIDR", "cidr_contains_cidr", true),
                ("ip", "cidr_ip", true),
                ("prefixLength", "cidr_prefix_length", true),
                ("masked", "cidr_masked", true),
                ("isCIDR", "is_cidr", false),
                ("string", "cidr_to_string", false),
            ]
        );
        let contains_ip = cidr_functions()
            .into_iter()
            .find(|f| f.name == "containsIP")
            .map(|f| {
                f.overloads
                    .into_iter()
                    .map(|o| (o.params, o.result))
                    .collect::<Vec<_>>()
            });
        assert_eq!(
            contains_ip,
            Some(vec![
                (vec![Type::named("net.CIDR"), Type::String], Type::Bool),
                (
                    vec![Type::named("net.CIDR"), Type::named("net.IP")],
                    Type::Bool
                ),
            ])
        );
        assert_eq!(cidr_types(), vec![("net.CIDR", Type::named("net.CIDR"))]);
    }
}
