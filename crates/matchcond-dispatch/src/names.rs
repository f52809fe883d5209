//! apimachinery's name checks (`IsDNS1123Subdomain`, `IsDNS1035Label`, `IsQualifiedName` /
//! `IsLabelKey`, `IsValidLabelValue`) with their exact messages, by release wording: the checks
//! of [`matchcond_gocompat::validation`], worded as a release words them.

use matchcond_gocompat::validation::{self as checks, Package};

use crate::field::Wording;

pub use matchcond_gocompat::validation::{DNS1123_SUBDOMAIN_MAX, LABEL_MAX};

/// The package whose wording the label-key and label-value checks of a release use.
fn package(wording: Wording) -> Package {
    Package::content_if(wording.label_keys_v2)
}

/// `IsDNS1123Subdomain`. `bytes` selects the `content` package wording (`bytes`) over the
/// `util/validation` one (`characters`).
pub fn dns1123_subdomain(value: impl AsRef<[u8]>, bytes: bool) -> Vec<String> {
    checks::dns1123_subdomain_errors(value, Package::content_if(bytes))
}

/// `IsDNS1123Label`.
pub fn dns1123_label(value: &str) -> Vec<String> {
    checks::dns1123_label_errors(value)
}

/// `IsDNS1035Label`.
pub fn dns1035_label(value: &str) -> Vec<String> {
    checks::dns1035_label_errors(value)
}

/// `IsQualifiedName` (up to 1.34) / `IsLabelKey` (1.35+): an optional DNS-subdomain prefix
/// and `/`, then a name part.
pub fn qualified_name(value: &str, wording: Wording) -> Vec<String> {
    checks::qualified_name_errors(value, package(wording))
}

/// `IsValidLabelValue` / `IsLabelValue`.
pub fn label_value(value: &str, wording: Wording) -> Vec<String> {
    checks::label_value_errors(value, package(wording))
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: Wording = Wording::OLD;
    const NEW: Wording = Wording::NEW;

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
