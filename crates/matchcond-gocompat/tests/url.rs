//! Go's `net/url` parsing: the parts of parsed URLs and Go's error texts.

use matchcond_gocompat::netip::{parse_addr_bytes, Addr};
use matchcond_gocompat::url::Url;

#[test]
fn components() {
    let u = Url::parse("https://harry.potter@example.com:8443/a%2Fb?x=1#frag%20x").unwrap();
    assert_eq!(u.scheme(), b"https");
    assert_eq!(u.user_text().as_deref(), Some("harry.potter"));
    assert_eq!(u.host(), b"example.com:8443");
    assert_eq!(u.path(), b"/a/b");
    assert_eq!(u.raw_query(), b"x=1");
    assert_eq!(u.fragment(), b"frag x");
    let u = Url::parse("HTTPS://u:p%40ss@h/").unwrap();
    assert_eq!(u.scheme(), b"https");
    assert_eq!(u.user_text().as_deref(), Some("u:p%40ss"));
    let u = Url::parse("").unwrap();
    assert_eq!(u, Url::default());
    let u = Url::parse("https:///fancy/webhook").unwrap();
    assert_eq!(u.host(), b"");
    assert_eq!(u.path(), b"/fancy/webhook");
    let u = Url::parse("arg#backwards=thisis?html.index/port:host//:https").unwrap();
    assert_eq!(u.scheme(), b"");
    assert_eq!(u.path(), b"arg");
    assert_eq!(
        u.fragment(),
        b"backwards=thisis?html.index/port:host//:https"
    );
    let u = Url::parse("example.com/k8s/webhook").unwrap();
    assert_eq!(u.host(), b"");
    let u = Url::parse("https:example.com").unwrap();
    assert_eq!(u.opaque(), b"example.com");
    assert_eq!(u.host(), b"");
    let u = Url::parse("https://[::1]:443/x").unwrap();
    assert_eq!(u.host(), b"[::1]:443");
    let u = Url::parse("https://example.com?").unwrap();
    assert_eq!(u.raw_query(), b"");
}

#[test]
fn parse_errors() {
    let cases = [
        ("://x", "parse \"://x\": missing protocol scheme"),
        ("1a:b/x", "parse \"1a:b/x\": first path segment in URL cannot contain colon"),
        ("https://example.com:abc/x", "parse \"https://example.com:abc/x\": invalid port \":abc\" after host"),
        ("https://a:1:2/", "parse \"https://a:1:2/\": invalid port \":1:2\" after host"),
        ("https://a{b}/", "parse \"https://a{b}/\": invalid character \"{\" in host name"),
        ("https://ex ample.com/", "parse \"https://ex ample.com/\": invalid character \" \" in host name"),
        ("https://example.com/%zz", "parse \"https://example.com/%zz\": invalid URL escape \"%zz\""),
        ("https://example.com/%z\u{e9}", "parse \"https://example.com/%z\u{e9}\": invalid URL escape \"%z\\xc3\""),
        ("https://[1.2.3.4]/", "parse \"https://[1.2.3.4]/\": invalid IP-literal"),
        ("https://a[::1]/", "parse \"https://a[::1]/\": invalid IP-literal"),
        ("https://[::1/", "parse \"https://[::1/\": missing ']' in host"),
        ("https://[v1.x]/", "parse \"https://[v1.x]/\": invalid host: ParseAddr(\"v1.x\"): unexpected character (at \"v1.x\")"),
        ("https://\u{fc}@example.com/", "parse \"https://\u{fc}@example.com/\": net/url: invalid userinfo"),
        ("https://exa\tmple.com/", "parse \"https://exa\\tmple.com/\": net/url: invalid control character in URL"),
        ("https://x/#%zz", "parse \"https://x/#%zz\": invalid URL escape \"%zz\""),
        ("https://%41/", "parse \"https://%41/\": invalid URL escape \"%41\""),
    ];
    for (input, want) in cases {
        assert_eq!(Url::parse(input).unwrap_err(), want, "{input}");
    }
}

#[test]
fn parse_addr_errors() {
    let e = |t: &str| parse_addr_bytes(t.as_bytes()).unwrap_err().to_string();
    for (input, want) in [
        ("2001:db8:::68", "ParseAddr(\"2001:db8:::68\"): each colon-separated field must have at least one digit (at \":68\")"),
        ("1.2.3.4.5", "ParseAddr(\"1.2.3.4.5\"): IPv4 address too long"),
        ("fe80::1%", "ParseAddr(\"fe80::1%\"): zone must be a non-empty string"),
        ("abc", "ParseAddr(\"abc\"): unable to parse IP"),
        ("%x", "ParseAddr(\"%x\"): missing IPv6 address"),
        ("::1.2.3", "ParseAddr(\"::1.2.3\"): IPv4 address too short"),
        ("1:2:3:4:5:6:7:8:9", "ParseAddr(\"1:2:3:4:5:6:7:8:9\"): trailing garbage after address (at \"9\")"),
        ("1:2:3:4:5:6:7::8", "ParseAddr(\"1:2:3:4:5:6:7::8\"): the :: must expand to at least one field of zeros"),
    ] {
        assert_eq!(e(input), want, "{input:?}");
    }
    assert!(matches!(
        parse_addr_bytes(b"::ffff:1.2.3.4"),
        Ok((Addr::V6(_), None))
    ));
    assert_eq!(
        parse_addr_bytes(b"1.2.3.4"),
        Ok((Addr::V4([1, 2, 3, 4]), None))
    );
    // Bytes that are not UTF-8 are quoted as Go quotes them; a zone may hold any bytes.
    assert_eq!(
        e("1.2.3.\u{e9}"),
        "ParseAddr(\"1.2.3.\u{e9}\"): unexpected character (at \"\u{e9}\")"
    );
    assert_eq!(
        parse_addr_bytes(b"1.2.3.\xff").unwrap_err().to_string(),
        "ParseAddr(\"1.2.3.\\xff\"): unexpected character (at \"\\xff\")"
    );
    assert_eq!(
        parse_addr_bytes(b"::1%\xff"),
        Ok((
            Addr::V6([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
            Some(&b"\xff"[..])
        ))
    );
}
