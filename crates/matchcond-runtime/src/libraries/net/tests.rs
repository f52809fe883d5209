//! Unit tests of the IP and CIDR libraries' parsing on top of `net/netip` (whose own
//! behaviour is tested with it, in `matchcond-gocompat`). Expected texts are Go's.

#![allow(clippy::unwrap_used, clippy::panic)]

use matchcond_gocompat::netip::Addr;

use super::{parse_cidr, parse_ip};

#[test]
fn library_wrappers() {
    assert_eq!(parse_ip("10.0.0.1"), Ok(Addr::V4([10, 0, 0, 1])));
    assert_eq!(
        parse_ip("::1%lo"),
        Err("IP address \"::1%lo\" with zone value is not allowed".to_string())
    );
    assert_eq!(
        parse_ip("::ffff:10.0.0.1"),
        Err("IPv4-mapped IPv6 address \"::ffff:10.0.0.1\" is not allowed".to_string())
    );
    assert_eq!(
        parse_ip("x"),
        Err(
            "IP Address \"x\" parse error during conversion from string: ParseAddr(\"x\"): unable to parse IP"
                .to_string()
        )
    );
    assert_eq!(
        parse_cidr("::ffff:0:0/96").map(|p| p.to_string()),
        Err("IPv4-mapped IPv6 address \"::ffff:0:0/96\" is not allowed".to_string())
    );
    assert_eq!(
        parse_cidr("10.0.0.0").map(|p| p.to_string()),
        Err(
            "network address parse error during conversion from string: netip.ParsePrefix(\"10.0.0.0\"): no '/'"
                .to_string()
        )
    );
    assert_eq!(
        parse_cidr("10.0.0.1/8").map(|p| p.to_string()),
        Ok("10.0.0.1/8".to_string())
    );
}

#[test]
fn ip_library_declarations() {
    use crate::test_util::{declaration, declared};
    use matchcond_front::Type;
    let def = super::ip_library();
    assert_eq!(
        declared(&def),
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
    let family = declaration(&def, "ip_family");
    assert_eq!(
        (family.params, family.result),
        (vec![Type::named("net.IP")], Type::Int)
    );
    assert_eq!(def.type_names(), [("net.IP", Type::named("net.IP"))]);
}

#[test]
fn cidr_library_declarations() {
    use crate::test_util::{declaration, declared};
    use matchcond_front::Type;
    let def = super::cidr_library();
    assert_eq!(
        declared(&def),
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
    let contains_ip: Vec<_> = ["cidr_contains_ip_string", "cidr_contains_ip_ip"]
        .into_iter()
        .map(|id| {
            let d = declaration(&def, id);
            (d.params, d.result)
        })
        .collect();
    assert_eq!(
        contains_ip,
        vec![
            (vec![Type::named("net.CIDR"), Type::String], Type::Bool),
            (
                vec![Type::named("net.CIDR"), Type::named("net.IP")],
                Type::Bool
            ),
        ]
    );
    assert_eq!(def.type_names(), [("net.CIDR", Type::named("net.CIDR"))]);
}
