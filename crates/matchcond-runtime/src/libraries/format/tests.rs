use super::*;
use crate::test_util::{call, s};

fn validate(key: &str, s: &str) -> Vec<String> {
    named(key).unwrap().validate(s)
}

const LABEL: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

#[test]
fn library_test_messages() {
    assert_eq!(validate("dns1123Label", "contains a space"), vec![LABEL]);
    assert_eq!(
        validate("dns1123Subdomain", "contains a space"),
        vec![SUBDOMAIN]
    );
    assert_eq!(validate("dns1035Label", "contains a space"), vec![DNS1035]);
    assert_eq!(
        validate("qualifiedName", "contains a space"),
        vec![NAME_PART]
    );
    assert_eq!(
        validate("dns1123LabelPrefix", "contains a space-"),
        vec![LABEL]
    );
    assert_eq!(
        validate("dns1123SubdomainPrefix", "contains a space-"),
        vec![SUBDOMAIN]
    );
    assert_eq!(
        validate("dns1035LabelPrefix", "contains a space-"),
        vec![DNS1035]
    );
    assert_eq!(
        validate("labelValue", "my-cool-label-Value!!\n\n!!!"),
        vec![LABEL_VALUE]
    );
    for (key, ok) in [
        ("dns1123Label", "my-label-name"),
        ("dns1123Subdomain", "apiextensions.k8s.io"),
        ("qualifiedName", "apiextensions.k8s.io/v1beta1"),
        ("dns1123LabelPrefix", "my-label-prefix-"),
        ("dns1123SubdomainPrefix", "mysubdomain.prefix.-"),
        ("dns1035LabelPrefix", "my-label-prefix-"),
        ("uri", "http://example.com"),
        ("uuid", "123e4567-e89b-12d3-a456-426614174000"),
        ("byte", "aGVsbG8="),
        ("date", "2021-01-01"),
        ("datetime", "2021-01-01T00:00:00Z"),
        ("labelValue", "my-cool-label-Value"),
        ("labelValue", ""),
    ] {
        assert_eq!(validate(key, ok), Vec::<String>::new(), "{key} {ok}");
    }
    assert_eq!(validate("byte", "aGVsbG8"), vec!["invalid base64"]);
    assert_eq!(validate("date", "2020-01-32"), vec!["invalid date"]);
    assert_eq!(
        validate("datetime", "2020-01-32T00:00:00Z"),
        vec!["invalid datetime"]
    );
}

#[test]
fn more_messages() {
    let long = "a".repeat(64);
    assert_eq!(
        validate("dns1123Label", &long),
        vec!["must be no more than 63 characters"]
    );
    assert_eq!(
        validate("dns1123Label", "a.b"),
        vec!["must not contain dots"]
    );
    assert_eq!(
        validate("dns1123Label", &format!("{long}."))[0],
        "must be no more than 63 characters"
    );
    assert_eq!(validate("dns1035Label", "1abc"), vec![DNS1035]);
    // The masked prefix drops the byte before the dash: "a-" becomes "a", "-" stays.
    assert!(validate("dns1123LabelPrefix", "a-").is_empty());
    assert_eq!(validate("dns1123LabelPrefix", "-"), vec![LABEL]);
    assert!(validate("dns1123LabelPrefix", "ab-").is_empty());
    assert_eq!(
        validate("qualifiedName", "/name"),
        vec!["prefix part must be non-empty"]
    );
    assert_eq!(
        validate("qualifiedName", "Example.com/name"),
        vec![format!("prefix part {SUBDOMAIN}")]
    );
    assert_eq!(
        validate("qualifiedName", "example.com/"),
        vec![
            "name part must be non-empty".to_owned(),
            NAME_PART.to_owned()
        ]
    );
    assert_eq!(
        validate("qualifiedName", &format!("x/{long}")),
        vec!["name part must be no more than 63 bytes"]
    );
    assert_eq!(
        validate("qualifiedName", "a/b/c"),
        vec!["a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    );
    assert_eq!(
        validate("labelValue", &long),
        vec!["must be no more than 63 bytes"]
    );
    assert_eq!(
        validate("uri", "foo"),
        vec!["parse \"foo\": invalid URI for request"]
    );
    assert_eq!(
        validate("uuid", "123e4567e89b12d3a456426614174000"),
        Vec::<String>::new()
    );
    assert_eq!(
        validate("uuid", "123E4567-E89B-12D3-A456-426614174000"),
        Vec::<String>::new()
    );
    assert_eq!(
        validate("uuid", "123e4567-e89b-12d3-a456-42661417400"),
        vec!["does not match the UUID format"]
    );
    assert_eq!(validate("byte", ""), vec!["invalid base64"]);
    assert!(validate("byte", "ab+/").is_empty());
    assert!(validate("byte", "abc=").is_empty());
    assert_eq!(validate("byte", "a===").len(), 1);
    assert_eq!(validate("byte", "aGVsbG8-"), vec!["invalid base64"]);
    assert!(validate("date", "2024-02-29").is_empty());
    assert_eq!(validate("date", "2023-02-29"), vec!["invalid date"]);
    assert!(validate("date", "0000-02-29").is_empty());
    assert_eq!(validate("date", "2020-1-01"), vec!["invalid date"]);
    assert_eq!(validate("date", "2020-00-01"), vec!["invalid date"]);
    for ok in [
        "2021-01-01t23:59:59z",
        "2021-01-01T00:00:00.123+05:30",
        "2021-01-01T00:00:00+05:30",
        "2021-01-01T00:00:00x1Z",
        "2021-01-01T00:00:00Ztrailing",
    ] {
        assert!(validate("datetime", ok).is_empty(), "{ok}");
    }
    for bad in [
        "2021-01-01T24:00:00Z",
        "2021-01-01T00:60:00Z",
        "2021-01-01T00:00:00",
        "2021-01-01 00:00:00Z",
        "2021-01-01T00:00:00.Z",
        "abc",
    ] {
        assert_eq!(validate("datetime", bad), vec!["invalid datetime"], "{bad}");
    }
}

#[test]
fn functions() {
    assert!(matches!(
        call("format-named", &[s("unknown")]).unwrap(),
        Value::Optional(Optional::None)
    ));
    let by_name = call("format-named", &[s("uuid")]).unwrap();
    let Value::Optional(o) = by_name else {
        panic!()
    };
    let uuid = call("format.uuid", &[]).unwrap();
    assert!(crate::value::values_equal(&o.get().unwrap(), &uuid));
    assert!(!crate::value::values_equal(
        &uuid,
        &call("format.date", &[]).unwrap()
    ));
    let r = call("format-validate", &[uuid.clone(), s("x")]).unwrap();
    let Value::Optional(o) = r else { panic!() };
    assert_eq!(
        o.get().unwrap(),
        Value::list(vec![Value::string("does not match the UUID format")])
    );
    let r = call(
        "format-validate",
        &[uuid.clone(), s("123e4567e89b12d3a456426614174000")],
    )
    .unwrap();
    assert!(matches!(r, Value::Optional(Optional::None)));
    assert_eq!(
        call("format-validate", &[s("x"), s("y")]).unwrap_err().kind,
        crate::error::ErrorKind::NoSuchOverload
    );
    let Value::Opaque(u) = uuid else { panic!() };
    assert_eq!(as_format(u.as_ref()).map(|f| f.max_regex_size()), Some(70));
    assert_eq!(named("date").map(|f| f.max_regex_size()), Some(71));
    assert_eq!(FORMATS.len(), CONSTANTS.len());
    for f in FORMATS.iter() {
        assert_eq!(
            call(&format!("format.{}", f.key()), &[]).map(|v| v.type_name()),
            Ok("kubernetes.NamedFormat")
        );
    }
}

#[test]
fn declarations() {
    let def = library();
    assert_eq!(def.entries().len(), 15);
    let dns = crate::test_util::declaration(&def, "format.dns1123Label");
    assert_eq!(
        (dns.member, dns.params, dns.result),
        (false, vec![], Type::named("kubernetes.NamedFormat"))
    );
    assert_eq!(
        def.type_names(),
        [(
            "kubernetes.NamedFormat",
            Type::named("kubernetes.NamedFormat")
        )]
    );
}
