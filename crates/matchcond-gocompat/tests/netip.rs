//! Go's `net/netip` parsing, checked against results recorded from Go
//! (`tests/data/k8s_net.jsonl`: one JSON object per line; `go` is `ParseAddr` /
//! `ParsePrefix`, each `ok <String()>` or `err <message>`; the `k8s` results of the
//! Kubernetes wrappers are checked by the runtime's IP and CIDR library tests).

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use matchcond_gocompat::netip::{self, parse_addr, parse_prefix, Addr};
use matchcond_gocompat::strconv::quote;
use serde_json::Value as Json;

mod common {
    pub mod k8s_net;
}
use common::k8s_net;

fn check_addr(case: &Json) {
    let input = case["in"].as_str().unwrap();
    let go = case["go"].as_str().unwrap();
    let parsed = netip::parse_addr(input);
    let got = match &parsed {
        Ok((a, Some(zone))) => format!("ok {a}%{zone}"),
        Ok((a, None)) => format!("ok {a}"),
        Err(e) => format!("err {e}"),
    };
    assert_eq!(got, go, "ParseAddr({input:?})");
    if let Ok((a, zone)) = &parsed {
        assert_eq!(
            *zone,
            Some(case["zone"].as_str().unwrap()).filter(|z| !z.is_empty())
        );
        if zone.is_none() {
            let flags: Vec<bool> = case["flags"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f.as_bool().unwrap())
                .collect();
            let mine = vec![
                a.is_unspecified(),
                a.is_loopback(),
                a.is_link_local_multicast(),
                a.is_link_local_unicast(),
                a.is_global_unicast(),
                a.is_4in6(),
            ];
            assert_eq!(mine, flags, "flags of {input:?}");
        }
    }
}

fn check_prefix(case: &Json) {
    let input = case["in"].as_str().unwrap();
    let go = case["go"].as_str().unwrap();
    let got = match netip::parse_prefix(input) {
        Ok(p) => format!("ok {p}"),
        Err(e) => format!("err {e}"),
    };
    assert_eq!(got, go, "ParsePrefix({input:?})");
}

#[test]
fn recorded_results_of_go() {
    let counts = k8s_net::check_recorded(check_addr, check_prefix, |_| {});
    assert!(counts[..2].iter().all(|c| *c > 100), "{counts:?}");
}

#[test]
fn canonical_text() {
    let (mapped, _) = netip::parse_addr("0:0:0:0:0:ffff:0102:0304").unwrap();
    assert_eq!(mapped.to_string(), "::ffff:1.2.3.4");
    assert!(mapped.is_4in6());
    assert_eq!(mapped.unmap(), Addr::V4([1, 2, 3, 4]));
    assert_eq!(
        netip::parse_prefix("::ffff:1.2.3.4/120")
            .unwrap()
            .to_string(),
        "::ffff:1.2.3.4/120"
    );
}

#[test]
fn quoting_in_messages() {
    assert_eq!(
        quote("\u{7}\u{0}\u{7f}\u{200b}é"),
        "\"\\a\\x00\\x7f\\u200bé\""
    );
}

// Unit tests of the `net/netip` behaviour. Expected texts are Go's (`net/netip`).

fn addr(s: &str) -> Addr {
    match parse_addr(s) {
        Ok((a, None)) => a,
        other => panic!("{s}: {other:?}"),
    }
}

fn addr_error(s: &str) -> String {
    match parse_addr(s) {
        Err(e) => e.to_string(),
        Ok(a) => panic!("{s}: parsed as {a:?}"),
    }
}

#[test]
fn addr_errors_in_go_order() {
    let cases = [
        ("", "ParseAddr(\"\"): unable to parse IP"),
        ("abc", "ParseAddr(\"abc\"): unable to parse IP"),
        ("%x", "ParseAddr(\"%x\"): missing IPv6 address"),
        (
            "1.2.3.4.5",
            "ParseAddr(\"1.2.3.4.5\"): IPv4 address too long",
        ),
        // A trailing dot is reported before the length.
        (
            "1.2.3.4.",
            "ParseAddr(\"1.2.3.4.\"): IPv4 field must have at least one digit (at \".\")",
        ),
        (
            ".1.2.3",
            "ParseAddr(\".1.2.3\"): IPv4 field must have at least one digit (at \".1.2.3\")",
        ),
        ("1.2.3", "ParseAddr(\"1.2.3\"): IPv4 address too short"),
        (
            "00.1.2.3",
            "ParseAddr(\"00.1.2.3\"): IPv4 field has octet with leading zero",
        ),
        (
            "1.2.3.2560",
            "ParseAddr(\"1.2.3.2560\"): IPv4 field has value >255",
        ),
        (
            "1.2.3.4%eth0",
            "ParseAddr(\"1.2.3.4%eth0\"): unexpected character (at \"%eth0\")",
        ),
        (
            "1.2.3.é",
            "ParseAddr(\"1.2.3.é\"): unexpected character (at \"é\")",
        ),
        (
            "fe80::1%",
            "ParseAddr(\"fe80::1%\"): zone must be a non-empty string",
        ),
        (
            ":::",
            "ParseAddr(\":::\"): each colon-separated field must have at least one digit (at \":\")",
        ),
        (
            "1:2:3:4:5:6:7:8:9",
            "ParseAddr(\"1:2:3:4:5:6:7:8:9\"): trailing garbage after address (at \"9\")",
        ),
        (
            "1:2:3:4:5:6:7:8::",
            "ParseAddr(\"1:2:3:4:5:6:7:8::\"): the :: must expand to at least one field of zeros",
        ),
        (
            "1::2::3",
            "ParseAddr(\"1::2::3\"): multiple :: in address (at \":3\")",
        ),
        (
            "1:2:3:4:5:6:7:",
            "ParseAddr(\"1:2:3:4:5:6:7:\"): colon must be followed by more characters (at \":\")",
        ),
        (
            "1:2x",
            "ParseAddr(\"1:2x\"): unexpected character, want colon (at \"x\")",
        ),
        (
            "::12345",
            "ParseAddr(\"::12345\"): each group must have 4 or less digits (at \"12345\")",
        ),
        ("1:2:3", "ParseAddr(\"1:2:3\"): address string too short"),
        (
            "1:2:3:4:5:6:7:1.2.3.4",
            "ParseAddr(\"1:2:3:4:5:6:7:1.2.3.4\"): embedded IPv4 address must replace the final 2 fields of the address (at \"1.2.3.4\")",
        ),
        (
            "1:2:3:4:5:6:7::1.2.3.4",
            "ParseAddr(\"1:2:3:4:5:6:7::1.2.3.4\"): too many hex fields to fit an embedded IPv4 at the end of the address (at \"1.2.3.4\")",
        ),
        // The embedded IPv4 tail reports against the whole text, zone excluded from `at`.
        (
            "::1.2.x.4%eth0",
            "ParseAddr(\"::1.2.x.4%eth0\"): unexpected character (at \"x.4\")",
        ),
        (
            "::1.2.3",
            "ParseAddr(\"::1.2.3\"): IPv4 address too short",
        ),
    ];
    for (input, want) in cases {
        assert_eq!(addr_error(input), want, "{input:?}");
    }
}

#[test]
fn addr_forms() {
    assert_eq!(addr("1.2.3.4"), Addr::V4([1, 2, 3, 4]));
    assert_eq!(addr("0.0.0.0"), Addr::V4([0; 4]));
    assert_eq!(addr("::"), Addr::V6([0; 16]));
    let mut one = [0u8; 16];
    one[15] = 1;
    assert_eq!(addr("::1"), Addr::V6(one));
    assert_eq!(addr("0:0:0:0:0:0:0:1"), Addr::V6(one));
    assert_eq!(
        addr("1:2:3:4:5:6:7:8"),
        Addr::V6([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8])
    );
    assert_eq!(
        addr("1::8"),
        Addr::V6([0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8])
    );
    assert_eq!(
        addr("1:2:3:4:5:6:1.2.3.4"),
        Addr::V6([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 1, 2, 3, 4])
    );
    assert_eq!(parse_addr("fe80::1%eth0%x").unwrap().1, Some("eth0%x"));
    assert_eq!(parse_addr("::%z").unwrap(), (Addr::V6([0; 16]), Some("z")));
}

#[test]
fn text_forms() {
    for (input, want) in [
        ("1.2.3.4", "1.2.3.4"),
        ("255.255.255.255", "255.255.255.255"),
        ("::", "::"),
        ("1::", "1::"),
        ("::1", "::1"),
        ("1:0:0:2:0:0:0:3", "1:0:0:2::3"),
        ("1:0:0:0:2:0:0:3", "1::2:0:0:3"),
        ("0:1:0:1:0:1:0:1", "0:1:0:1:0:1:0:1"),
        ("ABCD:EF01::", "abcd:ef01::"),
        ("::ffff:1.2.3.4", "::ffff:1.2.3.4"),
        ("::ffff:0:0", "::ffff:0.0.0.0"),
        ("::fffe:1.2.3.4", "::fffe:102:304"),
    ] {
        assert_eq!(addr(input).to_string(), want, "{input}");
    }
}

#[test]
fn classification() {
    // IPv4-mapped addresses are classified as their IPv4 address, except "unspecified".
    let mapped = addr("::ffff:127.0.0.1");
    assert!(mapped.is_4in6() && mapped.is_loopback() && !mapped.is_global_unicast());
    assert!(!addr("::ffff:0.0.0.0").is_unspecified());
    assert!(!addr("::ffff:255.255.255.255").is_global_unicast());
    assert!(addr("::ffff:169.254.0.1").is_link_local_unicast());
    assert!(addr("::ffff:224.0.0.9").is_link_local_multicast());
    assert!(addr("239.255.255.255").is_multicast());
    assert!(!addr("240.0.0.0").is_multicast());
    assert!(addr("240.0.0.0").is_global_unicast());
    assert!(addr("ffff::").is_multicast());
    assert!(addr("fe80::").is_link_local_unicast());
    assert!(addr("febf:ffff::").is_link_local_unicast());
    assert!(!addr("fe7f::").is_link_local_unicast());
    assert!(addr("fff2::").is_link_local_multicast());
    assert!(!addr("ff03::").is_link_local_multicast());
    assert!(addr("::2").is_global_unicast());
    assert!(!addr("0.0.0.0").is_global_unicast());
}

#[test]
fn prefixes() {
    let p = parse_prefix("10.1.2.3/8").unwrap();
    assert_eq!(p.addr(), Addr::V4([10, 1, 2, 3]));
    assert_eq!(p.bits(), 8);
    assert_eq!(p.to_string(), "10.1.2.3/8");
    assert_eq!(p.masked().to_string(), "10.0.0.0/8");
    assert_eq!(
        parse_prefix("ffff:ffff::ffff/17")
            .unwrap()
            .masked()
            .to_string(),
        "ffff:8000::/17"
    );
    assert_eq!(
        parse_prefix("1.2.3.4/32").unwrap().masked().to_string(),
        "1.2.3.4/32"
    );
    assert_eq!(
        parse_prefix("1.2.3.4/0").unwrap().masked().to_string(),
        "0.0.0.0/0"
    );
    assert!(p.contains(addr("10.255.255.255")));
    assert!(!p.contains(addr("11.0.0.0")));
    assert!(!p.contains(addr("::ffff:10.0.0.1")));
    assert!(parse_prefix("::/0")
        .unwrap()
        .contains(addr("::ffff:10.0.0.1")));
    assert!(!parse_prefix("::/0").unwrap().contains(addr("10.0.0.1")));
    let q = parse_prefix("10.0.0.0/16").unwrap();
    assert!(p.overlaps(&q) && q.overlaps(&p));
    assert!(!q.overlaps(&parse_prefix("10.1.0.0/16").unwrap()));
    assert!(!parse_prefix("0.0.0.0/0")
        .unwrap()
        .overlaps(&parse_prefix("::/0").unwrap()));
}

#[test]
fn prefix_errors() {
    let cases = [
        ("1.2.3.4", "netip.ParsePrefix(\"1.2.3.4\"): no '/'"),
        ("", "netip.ParsePrefix(\"\"): no '/'"),
        (
            "/8",
            "netip.ParsePrefix(\"/8\"): ParseAddr(\"\"): unable to parse IP",
        ),
        (
            "1.2.3.4/",
            "netip.ParsePrefix(\"1.2.3.4/\"): bad bits after slash: \"\"",
        ),
        (
            "1.2.3.4/-0",
            "netip.ParsePrefix(\"1.2.3.4/-0\"): bad bits after slash: \"-0\"",
        ),
        (
            "1.2.3.4/-",
            "netip.ParsePrefix(\"1.2.3.4/-\"): bad bits after slash: \"-\"",
        ),
        (
            "1.2.3.4/1 ",
            "netip.ParsePrefix(\"1.2.3.4/1 \"): bad bits after slash: \"1 \"",
        ),
        (
            "1.2.3.4/9223372036854775807",
            "netip.ParsePrefix(\"1.2.3.4/9223372036854775807\"): prefix length out of range",
        ),
        (
            "1.2.3.4/9223372036854775808",
            "netip.ParsePrefix(\"1.2.3.4/9223372036854775808\"): bad bits after slash: \"9223372036854775808\"",
        ),
        (
            "1.2.3.4/256",
            "netip.ParsePrefix(\"1.2.3.4/256\"): prefix length out of range",
        ),
        (
            "::%z/64",
            "netip.ParsePrefix(\"::%z/64\"): IPv6 zones cannot be present in a prefix",
        ),
        // The address is checked before the length.
        (
            "::%/x",
            "netip.ParsePrefix(\"::%/x\"): ParseAddr(\"::%\"): zone must be a non-empty string",
        ),
    ];
    for (input, want) in cases {
        match parse_prefix(input) {
            Err(e) => assert_eq!(e.to_string(), want, "{input:?}"),
            Ok(p) => panic!("{input:?} parsed as {p}"),
        }
    }
    assert_eq!(parse_prefix("::/128").unwrap().bits(), 128);
    assert_eq!(parse_prefix("1.2.3.4/0").unwrap().bits(), 0);
}

#[test]
fn go_quoting() {
    assert_eq!(quote("abc"), "\"abc\"");
    assert_eq!(quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
    assert_eq!(
        quote("\t\r\n\u{b}\u{c}\u{8}\u{7}"),
        "\"\\t\\r\\n\\v\\f\\b\\a\""
    );
    assert_eq!(quote("\u{1}\u{1f}\u{7f}"), "\"\\x01\\x1f\\x7f\"");
    assert_eq!(
        quote("\u{85}\u{a0}\u{2028}\u{feff}"),
        "\"\\u0085\\u00a0\\u2028\\ufeff\""
    );
    assert_eq!(quote("é中\u{1F600}"), "\"é中\u{1F600}\"");
    assert_eq!(quote("\u{e0001}"), "\"\\U000e0001\"");
    assert_eq!(quote("\u{301}"), "\"\u{301}\"");
}

#[test]
fn address_families_and_errors() {
    let family = |s: &str| {
        parse_addr(s)
            .map(|(a, _)| a.is_4())
            .map_err(|e| e.to_string())
    };
    assert_eq!(family("::1"), Ok(false));
    assert_eq!(family("fe80::1%en0"), Ok(false));
    assert_eq!(family("::ffff:1.2.3.4"), Ok(false));
    assert_eq!(family("1.2.3.4"), Ok(true));
    let err = |s: &str| parse_addr(s).unwrap_err().to_string();
    assert_eq!(err("1.2.3"), "ParseAddr(\"1.2.3\"): IPv4 address too short");
    assert_eq!(
        err("01.2.3.4"),
        "ParseAddr(\"01.2.3.4\"): IPv4 field has octet with leading zero"
    );
    assert_eq!(
        err("1::2::3"),
        "ParseAddr(\"1::2::3\"): multiple :: in address (at \":3\")"
    );
    assert_eq!(err("1:2"), "ParseAddr(\"1:2\"): address string too short");
    assert_eq!(
        err("1:2:3:4:5:6:7:8::"),
        "ParseAddr(\"1:2:3:4:5:6:7:8::\"): the :: must expand to at least one field of zeros"
    );
    assert_eq!(
        err("fe80::1%"),
        "ParseAddr(\"fe80::1%\"): zone must be a non-empty string"
    );
    assert_eq!(err("abc"), "ParseAddr(\"abc\"): unable to parse IP");
    assert_eq!(
        err("::1.2.3.400"),
        "ParseAddr(\"::1.2.3.400\"): IPv4 field has value >255"
    );
}
