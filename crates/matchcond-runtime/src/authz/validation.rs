//! The name checks of kubernetes/apimachinery (`api/validate/content`) the authz library
//! needs: DNS-1123 labels and subdomains (service account namespace and name, label key
//! prefixes) and the regex error text.

/// The longest DNS-1123 label, label name or label value.
pub(crate) const MAX_LEN_63: usize = 63;
/// The longest DNS-1123 subdomain.
const MAX_SUBDOMAIN_LEN: usize = 253;

const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

/// `content.RegexError`: the message, the examples and the pattern.
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

/// Matches `[a-z0-9]([-a-z0-9]*[a-z0-9])?` (the whole string).
fn matches_dns_label(s: &str) -> bool {
    let b = s.as_bytes();
    let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    match (b.first(), b.last()) {
        (Some(f), Some(l)) => alnum(f) && alnum(l) && b.iter().all(|c| alnum(c) || *c == b'-'),
        _ => false,
    }
}

/// Matches the DNS-1123 subdomain pattern: dot-separated DNS labels.
fn matches_dns_subdomain(s: &str) -> bool {
    s.split('.').all(matches_dns_label)
}

/// True when `s` is a DNS-1123 label (`ValidateNamespaceName`): at most 63 characters of
/// lower case alphanumerics and `-`, starting and ending with an alphanumeric.
pub(crate) fn is_dns1123_label(s: &str) -> bool {
    s.len() <= MAX_LEN_63 && matches_dns_label(s)
}

/// True when `s` is a DNS-1123 subdomain (`ValidateServiceAccountName`).
pub(crate) fn is_dns1123_subdomain(s: &str) -> bool {
    dns1123_subdomain_errors(s).is_empty()
}

/// `content.IsDNS1123Subdomain`: the error messages, empty when valid.
pub(crate) fn dns1123_subdomain_errors(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > MAX_SUBDOMAIN_LEN {
        errs.push(format!("must be no more than {MAX_SUBDOMAIN_LEN} bytes"));
    }
    if !matches_dns_subdomain(s) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_MSG,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        for ok in ["a", "default", "kube-system", "0", "a-0", &"a".repeat(63)] {
            assert!(is_dns1123_label(ok), "{ok}");
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
    }

    #[test]
    fn subdomains() {
        for ok in ["a", "valid.example.com", "a-b.c", &"a".repeat(63)] {
            assert!(is_dns1123_subdomain(ok), "{ok}");
        }
        for bad in ["", ".a", "a.", "a..b", "A.com", "invalid@*name", "a_b"] {
            assert!(!is_dns1123_subdomain(bad), "{bad}");
        }
        let long = [
            "a".repeat(63),
            "b".repeat(63),
            "c".repeat(63),
            "d".repeat(63),
        ]
        .join(".");
        assert_eq!(long.len(), 255);
        assert_eq!(
            dns1123_subdomain_errors(&long),
            vec!["must be no more than 253 bytes".to_string()]
        );
    }

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
}
