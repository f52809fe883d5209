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
