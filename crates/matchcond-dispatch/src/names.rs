//! apimachinery's name checks (`IsDNS1123Subdomain`, `IsDNS1035Label`, `IsQualifiedName` /
//! `IsLabelKey`, `IsValidLabelValue`) with their exact messages, by release wording.

use crate::field::Wording;

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/// The longest DNS-1123 subdomain.
pub const DNS1123_SUBDOMAIN_MAX: usize = 253;
/// The longest DNS label (RFC 1123 or 1035), label-key name part and label value.
pub const LABEL_MAX: usize = 63;

/// apimachinery's `RegexError`.
pub(crate) fn regex_error(msg: &str, re: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{msg} (regex used for validation is '{re}')");
    }
    let mut out = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            out.push_str(" or ");
        }
        out.push('\'');
        out.push_str(e);
        out.push_str("', ");
    }
    out.push_str("regex used for validation is '");
    out.push_str(re);
    out.push_str("')");
    out
}

fn max_len_error(max: usize, bytes: bool) -> String {
    if bytes {
        format!("must be no more than {max} bytes")
    } else {
        format!("must be no more than {max} characters")
    }
}

fn is_lower_alnum(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
fn matches_dns1123_label(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(&f), Some(&l)) => {
            is_lower_alnum(f)
                && is_lower_alnum(l)
                && b.iter().all(|&c| is_lower_alnum(c) || c == b'-')
        }
        _ => false,
    }
}

/// `^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
pub(crate) fn matches_dns1123_subdomain(s: &str) -> bool {
    s.split('.').all(matches_dns1123_label)
}

/// `IsDNS1123Subdomain`. `bytes` selects the `content` package wording (`bytes`) over the
/// `util/validation` one (`characters`).
pub fn dns1123_subdomain(value: &str, bytes: bool) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_SUBDOMAIN_MAX {
        errs.push(max_len_error(DNS1123_SUBDOMAIN_MAX, bytes));
    }
    if !matches_dns1123_subdomain(value) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_MSG,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// `IsDNS1123Label`.
pub fn dns1123_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > LABEL_MAX {
        errs.push(max_len_error(LABEL_MAX, false));
    }
    if !matches_dns1123_label(value) {
        if matches_dns1123_subdomain(value) {
            errs.push("must not contain dots".to_owned());
        } else {
            errs.push(regex_error(
                DNS1123_LABEL_MSG,
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

/// `IsDNS1035Label`.
pub fn dns1035_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > LABEL_MAX {
        errs.push(max_len_error(LABEL_MAX, false));
    }
    let b = value.as_bytes();
    let ok = match (b.first(), b.last()) {
        (Some(&f), Some(&l)) => {
            f.is_ascii_lowercase()
                && is_lower_alnum(l)
                && b.iter().all(|&c| is_lower_alnum(c) || c == b'-')
        }
        _ => false,
    };
    if !ok {
        errs.push(regex_error(
            DNS1035_LABEL_MSG,
            DNS1035_LABEL_FMT,
            &["my-name", "abc-123"],
        ));
    }
    errs
}

fn is_alnum(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
fn matches_label_key_name(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(&f), Some(&l)) => {
            is_alnum(f)
                && is_alnum(l)
                && b.iter()
                    .all(|&c| is_alnum(c) || c == b'-' || c == b'_' || c == b'.')
        }
        _ => false,
    }
}

/// `IsQualifiedName` (up to 1.34) / `IsLabelKey` (1.35+): an optional DNS-subdomain prefix
/// and `/`, then a name part.
pub fn qualified_name(value: &str, wording: Wording) -> Vec<String> {
    let v2 = wording.label_keys_v2;
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_owned());
            } else {
                for m in dns1123_subdomain(prefix, v2) {
                    errs.push(format!("prefix part {m}"));
                }
            }
            *name
        }
        _ => {
            let what = if v2 {
                "a valid label key"
            } else {
                "a qualified name"
            };
            errs.push(format!(
                "{what} {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(
                    LABEL_KEY_MSG,
                    LABEL_KEY_FMT,
                    &["MyName", "my.name", "123-abc"]
                )
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_owned());
    } else if name.len() > LABEL_MAX {
        errs.push(format!("name part {}", max_len_error(LABEL_MAX, v2)));
    }
    if !matches_label_key_name(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                LABEL_KEY_MSG,
                LABEL_KEY_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errs
}

/// `IsValidLabelValue` / `IsLabelValue`.
pub fn label_value(value: &str, wording: Wording) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > LABEL_MAX {
        errs.push(max_len_error(LABEL_MAX, wording.label_keys_v2));
    }
    if !(value.is_empty() || matches_label_key_name(value)) {
        errs.push(regex_error(
            LABEL_VALUE_MSG,
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: Wording = Wording {
        json_values: false,
        label_keys_v2: false,
        too_long_v2: false,
    };
    const NEW: Wording = Wording {
        json_values: true,
        label_keys_v2: true,
        too_long_v2: true,
    };

    #[test]
    fn subdomains() {
        assert!(dns1123_subdomain("webhook.k8s.io", false).is_empty());
        assert_eq!(
            dns1123_subdomain("--bad", false),
            vec!["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".to_owned()]
        );
        assert!(!dns1123_subdomain("a..b", false).is_empty());
        assert!(!dns1123_subdomain("A.b", false).is_empty());
        let long = "a".repeat(254);
        let errs = dns1123_subdomain(&long, false);
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0], "must be no more than 253 characters");
        assert_eq!(
            dns1123_subdomain(&long, true)[0],
            "must be no more than 253 bytes"
        );
    }

    #[test]
    fn labels_1035() {
        assert!(dns1035_label("v1beta1").is_empty());
        assert_eq!(
            dns1035_label("0v"),
            vec!["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')".to_owned()]
        );
        assert_eq!(
            dns1123_label("a.b"),
            vec!["must not contain dots".to_owned()]
        );
    }

    #[test]
    fn qualified_names() {
        assert!(qualified_name("thing.test.com", NEW).is_empty());
        assert!(qualified_name("example.com/MyName", NEW).is_empty());
        let msg = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
        assert_eq!(qualified_name("-hello", NEW), vec![msg.to_owned()]);
        assert_eq!(qualified_name(".io", NEW), vec![msg.to_owned()]);
        assert_eq!(qualified_name("some name", OLD), vec![msg.to_owned()]);
        assert_eq!(
            qualified_name("/a", NEW),
            vec!["prefix part must be non-empty".to_owned()]
        );
        assert_eq!(
            qualified_name("a/", NEW),
            vec!["name part must be non-empty".to_owned(), msg.to_owned()]
        );
        let long = "a".repeat(64);
        assert_eq!(
            qualified_name(&long, NEW),
            vec!["name part must be no more than 63 bytes".to_owned()]
        );
        assert_eq!(
            qualified_name(&long, OLD),
            vec!["name part must be no more than 63 characters".to_owned()]
        );
        assert_eq!(
            qualified_name("a/b/c", NEW),
            vec!["a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')".to_owned()]
        );
        assert!(qualified_name("a/b/c", OLD)[0].starts_with("a qualified name must consist"));
        assert_eq!(
            qualified_name("Bad_/x", NEW),
            vec![format!(
                "prefix part {}",
                dns1123_subdomain("Bad_", true)[0]
            )]
        );
    }

    #[test]
    fn label_values() {
        assert!(label_value("", NEW).is_empty());
        assert!(label_value("my_value", NEW).is_empty());
        assert_eq!(
            label_value("-x", NEW),
            vec!["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')".to_owned()]
        );
        assert_eq!(
            label_value(&"a".repeat(64), OLD),
            vec!["must be no more than 63 characters".to_owned()]
        );
    }
}
