use super::*;
use crate::value::Str;

fn call<'a>(id: &str, args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    let f = FUNCTIONS
        .iter()
        .find(|(n, _)| *n == id)
        .map(|(_, f)| *f)
        .unwrap();
    f(args)
}

fn s(text: &'static str) -> Value<'static> {
    Value::String(Str::Borrowed(text))
}

fn url(text: &'static str) -> Value<'static> {
    call("string_to_url", &[s(text)]).unwrap()
}

fn get(id: &str, text: &'static str) -> String {
    match call(id, &[url(text)]).unwrap() {
        Value::String(v) => v.to_string(),
        other => panic!("{other:?}"),
    }
}

fn url_err(text: &'static str) -> String {
    call("string_to_url", &[s(text)])
        .unwrap_err()
        .message
        .to_string()
}

#[test]
fn accessors() {
    let u = "https://user:pw@example.com:8443/a%2Fb/c?x=1&y=2&x=3#frag";
    assert_eq!(get("url_get_scheme", u), "https");
    assert_eq!(get("url_get_host", u), "example.com:8443");
    assert_eq!(get("url_get_hostname", u), "example.com");
    assert_eq!(get("url_get_port", u), "8443");
    assert_eq!(get("url_get_escaped_path", u), "/a%2Fb/c");
    assert_eq!(get("url_get_host", "http://[::1]:80/"), "[::1]:80");
    assert_eq!(get("url_get_hostname", "http://[::1]:80/"), "::1");
    assert_eq!(
        get("url_get_hostname", "http://[fe80::1%25en0]/"),
        "fe80::1%en0"
    );
    assert_eq!(get("url_get_port", "http://example.com/"), "");
    assert_eq!(get("url_get_scheme", "HTTPS://example.com"), "https");
    assert_eq!(get("url_get_escaped_path", "/a b"), "/a%20b");
    assert_eq!(get("url_get_hostname", "https:://kubernetes.io/"), "");
    assert_eq!(get("url_get_scheme", "https:://kubernetes.io/"), "https");
    // Colons in the host: strict for http(s), the last one for other schemes.
    assert_eq!(get("url_get_host", "postgres://h1:1,h2:2/db"), "h1:1,h2:2");
    assert_eq!(get("url_get_port", "postgres://h1:1,h2:2/db"), "2");
}

#[test]
fn query() {
    let q = call(
        "url_get_query",
        &[url("https://x/?a=1&b=2&a=3&c&d=%20+&e=%zz&f;g=1")],
    )
    .unwrap();
    let Value::Map(m) = q else { panic!() };
    let got: Vec<(String, Vec<String>)> = m
        .iter()
        .map(|(k, v)| {
            let Value::List(l) = v else { panic!() };
            (
                k.as_str().unwrap().to_owned(),
                l.iter().map(|e| e.as_str().unwrap().to_owned()).collect(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("a".to_owned(), vec!["1".to_owned(), "3".to_owned()]),
            ("b".to_owned(), vec!["2".to_owned()]),
            ("c".to_owned(), vec![String::new()]),
            ("d".to_owned(), vec!["  ".to_owned()]),
        ]
    );
    let empty = call("url_get_query", &[url("https://x/")]).unwrap();
    assert!(matches!(empty, Value::Map(m) if m.is_empty()));
}

#[test]
fn errors() {
    let p = "URL parse error during conversion from string: ";
    assert_eq!(
        url_err("foo"),
        format!("{p}parse \"foo\": invalid URI for request")
    );
    assert_eq!(url_err(""), format!("{p}parse \"\": empty url"));
    assert_eq!(
        url_err(":x"),
        format!("{p}parse \":x\": missing protocol scheme")
    );
    assert_eq!(
        url_err("http://a\nb"),
        format!("{p}parse \"http://a\\nb\": net/url: invalid control character in URL")
    );
    assert_eq!(
        url_err("https://example.com:abc/x"),
        format!("{p}parse \"https://example.com:abc/x\": invalid port \":abc\" after host")
    );
    assert_eq!(
        url_err("http://localhost:80:80/"),
        format!("{p}parse \"http://localhost:80:80/\": invalid port \":80:80\" after host")
    );
    assert_eq!(
        url_err("https://ü@example.com/"),
        format!("{p}parse \"https://ü@example.com/\": net/url: invalid userinfo")
    );
    assert_eq!(
        url_err("https://example.com/%zz"),
        format!("{p}parse \"https://example.com/%zz\": invalid URL escape \"%zz\"")
    );
    assert_eq!(
        url_err("https://example.com/%zé"),
        format!("{p}parse \"https://example.com/%zé\": invalid URL escape \"%z\\xc3\"")
    );
    assert_eq!(
        url_err("https://a{b}/"),
        format!("{p}parse \"https://a{{b}}/\": invalid character \"{{\" in host name")
    );
    assert_eq!(
        url_err("https://[1.2.3.4]/"),
        format!("{p}parse \"https://[1.2.3.4]/\": invalid IP-literal")
    );
    assert_eq!(
        url_err("https://[v1.x]/"),
        format!(
            "{p}parse \"https://[v1.x]/\": invalid host: ParseAddr(\"v1.x\"): unexpected character (at \"v1.x\")"
        )
    );
    assert_eq!(
        url_err("https://[::1/"),
        format!("{p}parse \"https://[::1/\": missing ']' in host")
    );
    assert_eq!(
        url_err("https://a[::1]/"),
        format!("{p}parse \"https://a[::1]/\": invalid IP-literal")
    );
    // A bad fragment is reported by the second parse, with the whole text.
    assert_eq!(
        url_err("https://x/#%zz"),
        format!("{p}parse \"https://x/#%zz\": invalid URL escape \"%zz\"")
    );
    assert_eq!(
        call("is_url_string", &[s("/just/a/path")]).unwrap(),
        Value::Bool(true)
    );
    assert_eq!(
        call("is_url_string", &[s("x/y")]).unwrap(),
        Value::Bool(false)
    );
    assert_eq!(
        call("string_to_url", &[Value::Int(1)]).unwrap_err().kind,
        crate::error::ErrorKind::NoSuchOverload
    );
}

#[test]
fn parse_addr_errors() {
    let e = |t: &str| parse_addr_bytes(t.as_bytes()).unwrap_err().to_string();
    assert_eq!(e("2001:db8:::68"), "ParseAddr(\"2001:db8:::68\"): each colon-separated field must have at least one digit (at \":68\")");
    assert_eq!(
        e("1.2.3.4.5"),
        "ParseAddr(\"1.2.3.4.5\"): IPv4 address too long"
    );
    assert_eq!(
        e("fe80::1%"),
        "ParseAddr(\"fe80::1%\"): zone must be a non-empty string"
    );
    assert_eq!(e("abc"), "ParseAddr(\"abc\"): unable to parse IP");
    assert_eq!(e("%x"), "ParseAddr(\"%x\"): missing IPv6 address");
    assert_eq!(
        e("::1.2.3"),
        "ParseAddr(\"::1.2.3\"): IPv4 address too short"
    );
    assert_eq!(
        e("1:2:3:4:5:6:7:8:9"),
        "ParseAddr(\"1:2:3:4:5:6:7:8:9\"): trailing garbage after address (at \"9\")"
    );
    assert_eq!(
        e("1:2:3:4:5:6:7::8"),
        "ParseAddr(\"1:2:3:4:5:6:7::8\"): the :: must expand to at least one field of zeros"
    );
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

#[test]
fn text_and_equality() {
    let text = |v: Value<'static>| match v {
        Value::Opaque(o) => o.text(),
        _ => String::new(),
    };
    assert_eq!(
        text(url("HTTPS://Example.com/a%2fb?q#f g")),
        "https://Example.com/a%2fb?q#f%20g"
    );
    assert_eq!(text(url("https:/path")), "https:/path");
    assert_eq!(text(url("https:///path")), "https:///path");
    assert_eq!(text(url("mailto:a@b")), "mailto:a@b");
    assert_eq!(text(url("/a:b/c")), "/a:b/c");
    assert!(crate::value::values_equal(
        &url("https://x/a b"),
        &url("https://x/a%20b")
    ));
    assert!(!crate::value::values_equal(
        &url("https://x/"),
        &url("https://x")
    ));
}

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
