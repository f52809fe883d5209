//! The name checks of kubernetes/apimachinery with their exact messages: DNS-1123 labels and
//! subdomains, DNS-1035 labels, qualified names / label keys and label values, as
//! `util/validation` (up to 1.34) and `api/validate/content` (1.35+) word them.
//!
//! Every check takes the text as bytes (`&str` and `&[u8]` both work): lengths are byte
//! lengths, as in Go, and a value need not be valid UTF-8.

/// The longest DNS-1123 subdomain.
pub const DNS1123_SUBDOMAIN_MAX: usize = 253;
/// The longest DNS label (RFC 1123 or 1035), label-key name part and label value.
pub const LABEL_MAX: usize = 63;

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
/// The DNS-1123 subdomain pattern, as messages quote it.
pub const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
/// The DNS-1123 subdomain message.
pub const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_KEY_EXAMPLES: &[&str] = &["MyName", "my.name", "123-abc"];
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/// Which apimachinery package words the messages (a release's choice).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Package {
    /// `util/validation` (qualified names up to 1.34): lengths in `characters`, `a qualified
    /// name`.
    Legacy,
    /// `api/validate/content` (label keys from 1.35): lengths in `bytes`, `a valid label key`.
    Current,
}

impl Package {
    /// The content package's wording when `content` holds, the legacy one otherwise.
    pub fn content_if(content: bool) -> Package {
        if content {
            Package::Current
        } else {
            Package::Legacy
        }
    }
}

/// `RegexError`: the message, the examples and the pattern.
pub fn regex_error(msg: &str, re: &str, examples: &[&str]) -> String {
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

/// `MaxLenError`: `characters` (legacy) or `bytes` (content).
pub fn max_len_error(max: usize, wording: Package) -> String {
    match wording {
        Package::Legacy => format!("must be no more than {max} characters"),
        Package::Current => format!("must be no more than {max} bytes"),
    }
}

#[inline]
fn is_lower_alnum(b: &u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

/// Whether the whole text matches `[a-z0-9]([-a-z0-9]*[a-z0-9])?` (any length).
pub fn matches_dns1123_label(s: impl AsRef<[u8]>) -> bool {
    let b = s.as_ref();
    b.first().is_some_and(is_lower_alnum)
        && b.last().is_some_and(is_lower_alnum)
        && b.iter().all(|c| is_lower_alnum(c) || *c == b'-')
}

/// Whether the whole text is dot-separated DNS-1123 labels (any length).
pub fn matches_dns1123_subdomain(s: impl AsRef<[u8]>) -> bool {
    s.as_ref().split(|&b| b == b'.').all(matches_dns1123_label)
}

/// Whether the whole text matches `[a-z]([-a-z0-9]*[a-z0-9])?` (any length).
pub fn matches_dns1035_label(s: impl AsRef<[u8]>) -> bool {
    let b = s.as_ref();
    matches_dns1123_label(b) && b.first().is_some_and(u8::is_ascii_lowercase)
}

/// Whether the whole text matches `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]` (a label-key name
/// part or a non-empty label value, any length).
pub fn matches_label_name(s: impl AsRef<[u8]>) -> bool {
    let b = s.as_ref();
    b.first().is_some_and(u8::is_ascii_alphanumeric)
        && b.last().is_some_and(u8::is_ascii_alphanumeric)
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// True when the text is a DNS-1123 label of at most 63 bytes.
pub fn is_dns1123_label(s: impl AsRef<[u8]>) -> bool {
    let b = s.as_ref();
    b.len() <= LABEL_MAX && matches_dns1123_label(b)
}

/// True when the text is a DNS-1123 subdomain of at most 253 bytes.
pub fn is_dns1123_subdomain(s: impl AsRef<[u8]>) -> bool {
    let b = s.as_ref();
    b.len() <= DNS1123_SUBDOMAIN_MAX && matches_dns1123_subdomain(b)
}

/// `maskTrailingDash` (names that are `generateName` prefixes): a trailing dash of a name
/// longer than one byte, with the byte before it, becomes `a`.
pub fn mask_trailing_dash(s: impl AsRef<[u8]>) -> Vec<u8> {
    let b = s.as_ref();
    match b.len().checked_sub(2).and_then(|n| b.get(..n)) {
        Some(head) if b.ends_with(b"-") => {
            let mut out = head.to_vec();
            out.push(b'a');
            out
        }
        _ => b.to_vec(),
    }
}

/// `IsDNS1123Label` (`util/validation` wording): the messages, empty when valid.
pub fn dns1123_label_errors(value: impl AsRef<[u8]>) -> Vec<String> {
    let b = value.as_ref();
    let mut errs = Vec::new();
    if b.len() > LABEL_MAX {
        errs.push(max_len_error(LABEL_MAX, Package::Legacy));
    }
    if !matches_dns1123_label(b) {
        if matches_dns1123_subdomain(b) {
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

/// `IsDNS1123Subdomain` in the given wording: the messages, empty when valid.
pub fn dns1123_subdomain_errors(value: impl AsRef<[u8]>, wording: Package) -> Vec<String> {
    let b = value.as_ref();
    let mut errs = Vec::new();
    if b.len() > DNS1123_SUBDOMAIN_MAX {
        errs.push(max_len_error(DNS1123_SUBDOMAIN_MAX, wording));
    }
    if !matches_dns1123_subdomain(b) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_MSG,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// `IsDNS1035Label` (`util/validation` wording): the messages, empty when valid.
pub fn dns1035_label_errors(value: impl AsRef<[u8]>) -> Vec<String> {
    let b = value.as_ref();
    let mut errs = Vec::new();
    if b.len() > LABEL_MAX {
        errs.push(max_len_error(LABEL_MAX, Package::Legacy));
    }
    if !matches_dns1035_label(b) {
        errs.push(regex_error(
            DNS1035_LABEL_MSG,
            DNS1035_LABEL_FMT,
            &["my-name", "abc-123"],
        ));
    }
    errs
}

/// `IsQualifiedName` (legacy) / `IsLabelKey` (content): an optional DNS-subdomain prefix and
/// `/`, then a name part. The messages, empty when valid.
pub fn qualified_name_errors(value: impl AsRef<[u8]>, wording: Package) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&[u8]> = value.as_ref().split(|&b| b == b'/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_owned());
            } else {
                errs.extend(
                    dns1123_subdomain_errors(prefix, wording)
                        .into_iter()
                        .map(|m| format!("prefix part {m}")),
                );
            }
            *name
        }
        _ => {
            let what = match wording {
                Package::Legacy => "a qualified name",
                Package::Current => "a valid label key",
            };
            errs.push(format!(
                "{what} {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, LABEL_KEY_EXAMPLES)
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_owned());
    } else if name.len() > LABEL_MAX {
        errs.push(format!("name part {}", max_len_error(LABEL_MAX, wording)));
    }
    if !matches_label_name(name) {
        errs.push(format!(
            "name part {}",
            regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, LABEL_KEY_EXAMPLES)
        ));
    }
    errs
}

/// `IsValidLabelValue` (legacy) / `IsLabelValue` (content): the messages, empty when valid.
pub fn label_value_errors(value: impl AsRef<[u8]>, wording: Package) -> Vec<String> {
    let b = value.as_ref();
    let mut errs = Vec::new();
    if b.len() > LABEL_MAX {
        errs.push(max_len_error(LABEL_MAX, wording));
    }
    if !(b.is_empty() || matches_label_name(b)) {
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

    const NAME_PART: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

    #[test]
    fn regex_error_text() {
        assert_eq!(
            regex_error("m", "re", &[]),
            "m (regex used for validation is 're')"
        );
        assert_eq!(
            regex_error("m", "re", &["a", "b"]),
            "m (e.g. 'a',  or 'b', regex used for validation is 're')"
        );
    }

    #[test]
    fn trailing_dash() {
        assert_eq!(mask_trailing_dash("abc-"), b"aba");
        assert_eq!(mask_trailing_dash("-"), b"-");
        assert_eq!(mask_trailing_dash("ab"), b"ab");
        assert_eq!(mask_trailing_dash(""), b"");
    }

    #[test]
    fn labels() {
        for ok in ["a", "default", "kube-system", "0", "a-0", &"a".repeat(63)] {
            assert!(is_dns1123_label(ok), "{ok}");
            assert!(dns1123_label_errors(ok).is_empty(), "{ok}");
        }
        for bad in [
            "",
            "-a",
            "a-",
            "A",
            "a.b",
            "a_b",
            "not@a#valid!namespace",
            &"a".repeat(64),
        ] {
            assert!(!is_dns1123_label(bad), "{bad}");
        }
        assert_eq!(dns1123_label_errors("a.b"), vec!["must not contain dots"]);
        assert_eq!(
            dns1123_label_errors("A"),
            vec!["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]
        );
        assert_eq!(
            dns1123_label_errors("a".repeat(64)),
            vec!["must be no more than 63 characters"]
        );
        assert!(dns1035_label_errors("v1beta1").is_empty());
        assert_eq!(
            dns1035_label_errors("0v"),
            vec!["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"]
        );
    }

    #[test]
    fn subdomains() {
        for ok in ["a", "valid.example.com", "a-b.c", &"a".repeat(63)] {
            assert!(is_dns1123_subdomain(ok), "{ok}");
        }
        for bad in ["", ".a", "a.", "a..b", "A.com", "invalid@*name", "a_b"] {
            assert!(!is_dns1123_subdomain(bad), "{bad}");
        }
        assert_eq!(
            dns1123_subdomain_errors("--bad", Package::Legacy),
            vec![format!("{DNS1123_SUBDOMAIN_MSG} (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")]
        );
        let long = "a".repeat(254);
        assert!(!is_dns1123_subdomain(&long));
        assert_eq!(
            dns1123_subdomain_errors(&long, Package::Legacy),
            vec!["must be no more than 253 characters"]
        );
        assert_eq!(
            dns1123_subdomain_errors(&long, Package::Current),
            vec!["must be no more than 253 bytes"]
        );
    }

    #[test]
    fn qualified_names() {
        for n in ["thing.test.com", "a", "example.com/MyName", "123-abc"] {
            assert!(qualified_name_errors(n, Package::Current).is_empty(), "{n}");
        }
        for n in ["-hello", ".io", "some name", " test1"] {
            assert_eq!(qualified_name_errors(n, Package::Legacy), vec![NAME_PART]);
        }
        assert_eq!(
            qualified_name_errors("a/", Package::Current),
            vec!["name part must be non-empty", NAME_PART]
        );
        assert_eq!(
            qualified_name_errors("/a", Package::Current),
            vec!["prefix part must be non-empty"]
        );
        let long = "a".repeat(64);
        assert_eq!(
            qualified_name_errors(&long, Package::Legacy),
            vec!["name part must be no more than 63 characters"]
        );
        assert_eq!(
            qualified_name_errors(&long, Package::Current),
            vec!["name part must be no more than 63 bytes"]
        );
        let prefix = format!("{}/a", "a".repeat(254));
        assert_eq!(
            qualified_name_errors(&prefix, Package::Current),
            vec!["prefix part must be no more than 253 bytes"]
        );
        assert_eq!(
            qualified_name_errors(&prefix, Package::Legacy),
            vec!["prefix part must be no more than 253 characters"]
        );
        assert_eq!(
            qualified_name_errors("a/b/c", Package::Current),
            vec!["a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
        );
        assert!(qualified_name_errors("a/b/c", Package::Legacy)[0]
            .starts_with("a qualified name must consist of"));
    }

    #[test]
    fn label_values() {
        assert!(label_value_errors("", Package::Current).is_empty());
        assert!(label_value_errors("my_value", Package::Current).is_empty());
        assert_eq!(
            label_value_errors("-x", Package::Current),
            vec!["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"]
        );
        assert_eq!(
            label_value_errors("a".repeat(64), Package::Legacy),
            vec!["must be no more than 63 characters"]
        );
        assert_eq!(
            label_value_errors("a".repeat(64), Package::Current),
            vec!["must be no more than 63 bytes"]
        );
        // Bytes that are not UTF-8 are checked as Go checks them.
        assert_eq!(label_value_errors([0xff_u8], Package::Current).len(), 1);
    }

    // matchCondition names, as `ValidateQualifiedName` reports them.

    #[test]
    fn valid_names() {
        for n in [
            "thing.test.com",
            "a",
            "example.com/MyName",
            "123-abc",
            "my.name",
        ] {
            assert!(qualified_name_errors(n, Package::Current).is_empty(), "{n}");
        }
    }

    #[test]
    fn invalid_names_have_apimachinery_messages() {
        for n in ["-hello", ".io", "some name", " test1"] {
            assert_eq!(
                qualified_name_errors(n, Package::Current),
                vec![NAME_PART.to_string()],
                "{n}"
            );
        }
        assert_eq!(
            qualified_name_errors("", Package::Current),
            vec![
                "name part must be non-empty".to_string(),
                NAME_PART.to_string()
            ]
        );
        let long = "a".repeat(64);
        assert_eq!(
            qualified_name_errors(&long, Package::Legacy),
            vec!["name part must be no more than 63 characters".to_string()]
        );
        assert_eq!(
            qualified_name_errors(&long, Package::Current),
            vec!["name part must be no more than 63 bytes".to_string()]
        );
        assert_eq!(
            qualified_name_errors("/a", Package::Current),
            vec!["prefix part must be non-empty".to_string()]
        );
        assert_eq!(
            qualified_name_errors("Example.com/a", Package::Current),
            vec![format!("prefix part {DNS1123_SUBDOMAIN_MSG} (e.g. 'example.com', regex used for validation is '{DNS1123_SUBDOMAIN_FMT}')")]
        );
        let many = qualified_name_errors("a/b/c", Package::Legacy);
        assert_eq!(many.len(), 1);
        assert!(many[0].starts_with("a qualified name must consist of"));
        assert!(many[0].ends_with(
            "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ));
        assert!(qualified_name_errors("a/b/c", Package::Current)[0]
            .starts_with("a valid label key must consist of"));
    }
}
