use super::*;
use crate::test_util::{call, s};

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
fn declarations() {
    let def = library();
    assert_eq!(def.entries().len(), 8);
    assert_eq!(
        crate::test_util::declaration(&def, "url_get_query").result,
        Type::map(Type::String, Type::list(Type::String))
    );
    assert_eq!(
        def.type_names(),
        [("kubernetes.URL", Type::named("kubernetes.URL"))]
    );
}
