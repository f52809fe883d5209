//! The Kubernetes IP and CIDR libraries, called by overload id, checked against results
//! recorded from the Kubernetes wrappers of Go's `net/netip` (the data lives with the
//! `net/netip` reimplementation: `matchcond-gocompat/tests/data/k8s_net.jsonl`, one JSON
//! object per line; `k8s` is `ip()` / `cidr()`, each `ok <String()>` or `err <message>`; the
//! `go` results are checked there).

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::cloned_ref_to_slice_refs
)]

use matchcond_gocompat::netip;
use matchcond_runtime::libraries::net::{Cidr, Ip, CIDR_TYPE, IP_TYPE};
use matchcond_runtime::value::Value;
use matchcond_runtime::ErrorKind;
use serde_json::Value as Json;

mod common;
use common::{call, err, ok, s, R};
#[path = "../../matchcond-gocompat/tests/common/k8s_net.rs"]
mod k8s_net_cases;

fn ip(text: &str) -> Value<'static> {
    ok(call("string_to_ip", &[s(text)]))
}

fn cidr(text: &str) -> Value<'static> {
    ok(call("string_to_cidr", &[s(text)]))
}

fn text(v: &Value<'_>) -> String {
    match v {
        Value::Opaque(o) => o.text(),
        Value::String(s) => s.to_string(),
        other => panic!("not text: {other:?}"),
    }
}

/// `ok <text>` or `err <message>`, as the fixture writes results.
fn outcome(r: &R) -> String {
    match r {
        Ok(v) => format!("ok {}", text(v)),
        Err(e) => format!("err {}", e.message()),
    }
}

fn bool_of(r: R) -> bool {
    match ok(r) {
        Value::Bool(b) => b,
        other => panic!("want a bool, got {other:?}"),
    }
}

fn int_of(r: R) -> i64 {
    match ok(r) {
        Value::Int(i) => i,
        other => panic!("want an int, got {other:?}"),
    }
}

fn check_addr(case: &Json) {
    let input = case["in"].as_str().unwrap();
    let parsed = netip::parse_addr(input);
    let k8s = case["k8s"].as_str().unwrap();
    let v = call("string_to_ip", &[s(input)]);
    assert_eq!(outcome(&v), k8s, "ip({input:?})");
    assert_eq!(
        bool_of(call("is_ip", &[s(input)])),
        v.is_ok(),
        "isIP({input:?})"
    );
    let canonical = call("ip_is_canonical", &[s(input)]);
    match v {
        Ok(v) => {
            assert_eq!(bool_of(canonical), case["canonical"].as_bool().unwrap());
            assert_eq!(
                int_of(call("ip_family", &[v.clone()])),
                case["family"].as_i64().unwrap()
            );
            assert_eq!(v.cost_size(), case["size"].as_u64().unwrap());
            let (a, _) = parsed.unwrap();
            for (id, want) in [
                ("ip_is_unspecified", a.is_unspecified()),
                ("ip_is_loopback", a.is_loopback()),
                ("ip_is_link_local_multicast", a.is_link_local_multicast()),
                ("ip_is_link_local_unicast", a.is_link_local_unicast()),
                ("ip_is_global_unicast", a.is_global_unicast()),
            ] {
                assert_eq!(bool_of(call(id, &[v.clone()])), want, "{id}({input:?})");
            }
            assert_eq!(
                outcome(&call("ip_to_string", &[v])),
                k8s,
                "string({input:?})"
            );
        }
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::InvalidArgument);
            assert_eq!(err(canonical).message(), e.message());
        }
    }
}

fn check_prefix(case: &Json) {
    let input = case["in"].as_str().unwrap();
    let k8s = case["k8s"].as_str().unwrap();
    let v = call("string_to_cidr", &[s(input)]);
    assert_eq!(outcome(&v), k8s, "cidr({input:?})");
    assert_eq!(bool_of(call("is_cidr", &[s(input)])), v.is_ok());
    if let Ok(v) = v {
        assert_eq!(
            text(&ok(call("cidr_masked", &[v.clone()]))),
            case["masked"].as_str().unwrap()
        );
        assert_eq!(
            text(&ok(call("cidr_ip", &[v.clone()]))),
            case["ip"].as_str().unwrap()
        );
        assert_eq!(
            int_of(call("cidr_prefix_length", &[v.clone()])),
            case["bits"].as_i64().unwrap()
        );
        assert_eq!(v.cost_size(), case["size"].as_u64().unwrap());
        assert_eq!(outcome(&call("cidr_to_string", &[v])), k8s);
    }
}

fn check_contains(case: &Json) {
    let c = cidr(case["cidr"].as_str().unwrap());
    let other = case["other"].as_str().unwrap();
    let what = format!("{:?} contains {other:?}", case["cidr"]);
    let contains_as = |calls: [(&str, Value<'static>); 2], want: bool| {
        for (id, argument) in calls {
            assert_eq!(bool_of(call(id, &[c.clone(), argument])), want, "{what}");
        }
    };
    match case.get("ip").and_then(Json::as_bool) {
        Some(want) => contains_as(
            [
                ("cidr_contains_ip_string", s(other)),
                ("cidr_contains_ip_ip", ip(other)),
            ],
            want,
        ),
        None => {
            let e = err(call("cidr_contains_ip_string", &[c.clone(), s(other)]));
            assert_eq!(e.message(), "no such overload", "{what}");
            assert_ne!(e.kind(), ErrorKind::NoSuchOverload);
        }
    }
    match case.get("cidr_in").and_then(Json::as_bool) {
        Some(want) => {
            let o = cidr(other);
            contains_as(
                [
                    ("cidr_contains_cidr_string", s(other)),
                    ("cidr_contains_cidr", o.clone()),
                ],
                want,
            );
            assert_eq!(c == o, case["equal"].as_bool().unwrap(), "{what} (==)");
        }
        None => {
            let e = err(call("cidr_contains_cidr_string", &[c.clone(), s(other)]));
            let direct = err(call("string_to_cidr", &[s(other)]));
            assert_eq!(e, direct, "{what}");
        }
    }
}

#[test]
fn recorded_results_of_the_kubernetes_wrappers() {
    let counts = k8s_net_cases::check_recorded(check_addr, check_prefix, check_contains);
    assert!(counts.iter().all(|c| *c > 100), "{counts:?}");
}

#[test]
fn library_test_messages() {
    for (id, input, want) in [
        (
            "string_to_ip",
            "192.168.0.1.0",
            "IP Address \"192.168.0.1.0\" parse error during conversion from string: \
             ParseAddr(\"192.168.0.1.0\"): IPv4 address too long",
        ),
        (
            "string_to_ip",
            "2001:db8:::68",
            "IP Address \"2001:db8:::68\" parse error during conversion from string: \
             ParseAddr(\"2001:db8:::68\"): each colon-separated field must have at least one \
             digit (at \":68\")",
        ),
        (
            "ip_is_canonical",
            "127.0.0.1.0",
            "IP Address \"127.0.0.1.0\" parse error during conversion from string: \
             ParseAddr(\"127.0.0.1.0\"): IPv4 address too long",
        ),
        (
            "string_to_ip",
            "fe80::1%en0",
            "IP address \"fe80::1%en0\" with zone value is not allowed",
        ),
        (
            "string_to_ip",
            "::ffff:192.168.0.1",
            "IPv4-mapped IPv6 address \"::ffff:192.168.0.1\" is not allowed",
        ),
        (
            "string_to_ip",
            "01.2.3.4",
            "IP Address \"01.2.3.4\" parse error during conversion from string: \
             ParseAddr(\"01.2.3.4\"): IPv4 field has octet with leading zero",
        ),
        (
            "string_to_cidr",
            "192.168.0.0/",
            "network address parse error during conversion from string: network address parse \
             error during conversion from string: netip.ParsePrefix(\"192.168.0.0/\"): bad bits \
             after slash: \"\"",
        ),
        (
            "string_to_cidr",
            "2001:db8::/",
            "network address parse error during conversion from string: network address parse \
             error during conversion from string: netip.ParsePrefix(\"2001:db8::/\"): bad bits \
             after slash: \"\"",
        ),
        (
            "string_to_cidr",
            "::ffff:192.168.0.1/24",
            "network address parse error during conversion from string: IPv4-mapped IPv6 \
             address \"::ffff:192.168.0.1/24\" is not allowed",
        ),
        (
            "string_to_cidr",
            "fe80::1%en0/24",
            "network address parse error during conversion from string: network address parse \
             error during conversion from string: netip.ParsePrefix(\"fe80::1%en0/24\"): IPv6 \
             zones cannot be present in a prefix",
        ),
    ] {
        assert_eq!(
            err(call(id, &[s(input)])).message(),
            want,
            "{id}({input:?})"
        );
    }
    // containsIP discards the parse error; containsCIDR keeps it.
    let c = cidr("10.0.0.0/8");
    let e = err(call(
        "cidr_contains_ip_string",
        &[c.clone(), s("10.0.0.256")],
    ));
    assert_eq!(e.message(), "no such overload");
    let e = err(call("cidr_contains_cidr_string", &[c, s("10.0.0.0/33")]));
    assert_eq!(
        e.message(),
        "network address parse error during conversion from string: network address parse \
         error during conversion from string: netip.ParsePrefix(\"10.0.0.0/33\"): prefix \
         length out of range"
    );
}

#[test]
fn library_test_results() {
    let b = |id: &str, args: &[Value<'static>]| bool_of(call(id, args));
    assert_eq!(text(&ip("192.168.0.1")), "192.168.0.1");
    assert!(b("is_ip", &[s("192.168.0.1")]));
    assert!(!b("is_ip", &[s("192.168.0.1.0")]));
    assert!(b("ip_is_canonical", &[s("127.0.0.1")]));
    assert!(b("ip_is_canonical", &[s("2001:db8::68")]));
    assert!(!b("ip_is_canonical", &[s("2001:DB8::68")]));
    assert!(!b("ip_is_canonical", &[s("2001:db8::0:0:0:abcd")]));
    assert_eq!(int_of(call("ip_family", &[ip("192.168.0.1")])), 4);
    assert_eq!(int_of(call("ip_family", &[ip("2001:db8::68")])), 6);
    // (predicate, an IPv4 address with the property, one without, an IPv6 address with it,
    // one without)
    let cases = [
        ("ip_is_unspecified", "0.0.0.0", "127.0.0.1", "::", "::1"),
        (
            "ip_is_loopback",
            "127.0.0.1",
            "1.2.3.4",
            "::1",
            "2001:db8::abcd",
        ),
        (
            "ip_is_link_local_multicast",
            "224.0.0.1",
            "224.0.1.1",
            "ff02::1",
            "fd00::1",
        ),
        (
            "ip_is_link_local_unicast",
            "169.254.169.254",
            "192.168.0.1",
            "fe80::1",
            "fd80::1",
        ),
        (
            "ip_is_global_unicast",
            "192.168.0.1",
            "255.255.255.255",
            "2001:db8::abcd",
            "ff00::1",
        ),
    ];
    for (id, v4, not_v4, v6, not_v6) in cases {
        for (addr, want) in [(v4, true), (not_v4, false), (v6, true), (not_v6, false)] {
            assert_eq!(b(id, &[ip(addr)]), want, "{id}({addr})");
        }
    }
    let c4 = cidr("192.168.0.0/24");
    let c6 = cidr("2001:db8::/32");
    let (host4, all4) = (cidr("192.168.1.1/32"), cidr("0.0.0.0/0"));
    // (function, the CIDR, its argument, the result)
    let contains = [
        ("cidr_contains_ip_ip", &c4, ip("192.168.0.1"), true),
        ("cidr_contains_ip_ip", &c4, ip("192.168.1.1"), false),
        ("cidr_contains_ip_string", &c4, s("192.168.0.1"), true),
        ("cidr_contains_ip_string", &c4, s("192.168.1.1"), false),
        ("cidr_contains_cidr", &c4, cidr("192.168.0.0/25"), true),
        ("cidr_contains_cidr", &c4, cidr("192.168.0.1/32"), true),
        ("cidr_contains_cidr", &c4, cidr("192.168.0.0/23"), false),
        ("cidr_contains_cidr", &c4, cidr("192.169.0.1/32"), false),
        ("cidr_contains_cidr_string", &c4, s("192.168.0.0/25"), true),
        ("cidr_contains_cidr_string", &c4, s("192.168.0.0/23"), false),
        ("cidr_contains_ip_ip", &c6, ip("2001:db8::1"), true),
        ("cidr_contains_ip_ip", &c6, ip("2001:dc8::1"), false),
        ("cidr_contains_ip_ip", &c6, ip("192.168.1.1"), false),
        ("cidr_contains_ip_ip", &host4, ip("2001:db8::1"), false),
        ("cidr_contains_cidr", &c6, cidr("2001:db8::/33"), true),
        ("cidr_contains_cidr", &c6, cidr("2001:db8::/31"), false),
        ("cidr_contains_cidr", &c6, cidr("10.0.0.0/8"), false),
        ("cidr_contains_cidr", &all4, cidr("::/0"), false),
    ];
    for (id, receiver, argument, want) in contains {
        let case = format!("{id}({receiver:?}, {argument:?})");
        assert_eq!(b(id, &[receiver.clone(), argument]), want, "{case}");
    }
    assert_eq!(ok(call("cidr_ip", &[c4.clone()])), ip("192.168.0.0"));
    assert_eq!(ok(call("cidr_masked", &[c4.clone()])), c4);
    assert_eq!(
        ok(call("cidr_masked", &[cidr("192.168.0.1/24")])),
        cidr("192.168.0.0/24")
    );
    assert_eq!(int_of(call("cidr_prefix_length", &[c4.clone()])), 24);
    assert_eq!(
        ok(call("cidr_masked", &[cidr("2001:db8:1::/32")])),
        cidr("2001:db8::/32")
    );
    assert_eq!(ok(call("cidr_ip", &[c6.clone()])), ip("2001:db8::"));
    assert_eq!(text(&ok(call("cidr_to_string", &[c4]))), "192.168.0.0/24");
    // Host bits are kept by cidr() and ip(), and count for equality.
    let host = cidr("192.168.0.1/16");
    assert_eq!(text(&host), "192.168.0.1/16");
    assert_eq!(ok(call("cidr_ip", &[host.clone()])), ip("192.168.0.1"));
    assert_ne!(host, cidr("192.168.0.0/16"));
    assert_eq!(cidr("127.0.0.1/24"), cidr("127.0.0.1/24"));
    assert_ne!(cidr("2001:db8::/32"), cidr("10.0.0.1/32"));
    assert_ne!(ip("0.0.0.0"), ip("::"));
    assert_eq!(ip("2001:db8::1"), ip("2001:DB8::1"));
    assert_ne!(ip("::"), ip("::ffff"));
}

#[test]
fn canonical_text() {
    for (input, want) in [
        ("2001:DB8::68", "2001:db8::68"),
        ("2001:db8:0:0:0:0:0:68", "2001:db8::68"),
        ("0:0:0:0:0:0:0:0", "::"),
        ("0:0:0:0:0:0:0:1", "::1"),
        ("1:0:0:0:0:0:0:0", "1::"),
        ("1:0:1:0:1:0:1:0", "1:0:1:0:1:0:1:0"),
        ("1:0:0:1:0:0:0:1", "1:0:0:1::1"),
        ("1:0:0:1:1:0:0:1", "1::1:1:0:0:1"),
        ("0001:0db8:0000:0000:0000:0000:0000:000a", "1:db8::a"),
        ("::ffff", "::ffff"),
        ("::1.2.3.4", "::102:304"),
        ("ffff::1.2.3.4", "ffff::102:304"),
    ] {
        assert_eq!(text(&ip(input)), want, "{input}");
        assert_eq!(
            bool_of(call("ip_is_canonical", &[s(input)])),
            input == want,
            "{input}"
        );
    }
}

#[test]
fn quoting_in_messages() {
    assert_eq!(
        err(call(
            "string_to_ip",
            &[s("a\"b\\\n\u{a0}\u{1F600}\u{e000}\u{10ffff}")]
        ))
        .message(),
        "IP Address \"a\\\"b\\\\\\n\\u00a0\u{1F600}\\ue000\\U0010ffff\" parse error during \
         conversion from string: ParseAddr(\"a\\\"b\\\\\\n\\u00a0\u{1F600}\\ue000\\U0010ffff\"): \
         unable to parse IP"
    );
}

#[test]
fn values() {
    let v = ip("10.0.0.1");
    assert_eq!(v.type_name(), IP_TYPE);
    assert_eq!(v.cost_size(), 4);
    assert_eq!(ip("::1").cost_size(), 16);
    let c = cidr("10.0.0.0/8");
    assert_eq!(c.type_name(), CIDR_TYPE);
    assert_eq!(c.cost_size(), 1);
    assert_eq!(cidr("0.0.0.0/0").cost_size(), 0);
    assert_eq!(cidr("10.0.0.0/9").cost_size(), 2);
    assert_eq!(cidr("::/128").cost_size(), 16);
    assert_eq!(cidr("::/127").cost_size(), 16);
    // An IP is never equal to a CIDR nor to another library's value.
    assert_ne!(ip("10.0.0.0"), c);
    match (&v, &c) {
        (Value::Opaque(a), Value::Opaque(b)) => {
            assert!(a.as_any().downcast_ref::<Ip>().is_some());
            assert!(b.as_any().downcast_ref::<Cidr>().is_some());
            assert!(!a.equals(b.as_ref()));
            assert!(!b.equals(a.as_ref()));
        }
        _ => panic!("opaque values expected"),
    }
}

#[test]
fn wrong_argument_types() {
    let v4 = ip("10.0.0.1");
    let c = cidr("10.0.0.0/8");
    let cases: Vec<(&str, Vec<Value<'static>>)> = vec![
        ("string_to_ip", vec![Value::Int(1)]),
        ("string_to_ip", vec![v4.clone()]),
        ("string_to_ip", vec![]),
        ("string_to_ip", vec![s("1.2.3.4"), s("1.2.3.4")]),
        ("is_ip", vec![c.clone()]),
        ("ip_is_canonical", vec![Value::Null]),
        ("ip_family", vec![c.clone()]),
        ("ip_family", vec![s("10.0.0.1")]),
        ("ip_is_unspecified", vec![c.clone()]),
        ("ip_is_loopback", vec![Value::Bool(true)]),
        ("ip_is_link_local_multicast", vec![]),
        ("ip_is_link_local_unicast", vec![v4.clone(), v4.clone()]),
        ("ip_is_global_unicast", vec![s("::1")]),
        ("ip_to_string", vec![c.clone()]),
        ("string_to_cidr", vec![v4.clone()]),
        ("is_cidr", vec![Value::Int(3)]),
        ("cidr_contains_ip_string", vec![v4.clone(), s("10.0.0.1")]),
        ("cidr_contains_ip_string", vec![c.clone(), v4.clone()]),
        ("cidr_contains_ip_ip", vec![c.clone(), s("10.0.0.1")]),
        ("cidr_contains_ip_ip", vec![c.clone(), c.clone()]),
        ("cidr_contains_ip_ip", vec![v4.clone(), v4.clone()]),
        (
            "cidr_contains_cidr_string",
            vec![v4.clone(), s("10.0.0.0/8")],
        ),
        ("cidr_contains_cidr_string", vec![c.clone(), c.clone()]),
        ("cidr_contains_cidr", vec![c.clone(), s("10.0.0.0/8")]),
        ("cidr_contains_cidr", vec![c.clone(), v4.clone()]),
        ("cidr_contains_cidr", vec![c.clone()]),
        ("cidr_ip", vec![v4.clone()]),
        ("cidr_prefix_length", vec![s("10.0.0.0/8")]),
        ("cidr_masked", vec![v4.clone()]),
        ("cidr_to_string", vec![v4.clone()]),
    ];
    for (id, args) in cases {
        let e = err(call(id, &args));
        assert_eq!(e.kind(), ErrorKind::NoSuchOverload, "{id}");
        assert!(e.message().starts_with("no such overload"), "{id}");
    }
}
