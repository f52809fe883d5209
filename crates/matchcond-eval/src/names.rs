//! Validation of matchCondition names: qualified names (label-key rules) with apimachinery's
//! messages, as `ValidateQualifiedName` reports them. The checks are
//! [`matchcond_runtime::apimachinery`]'s.

pub use matchcond_runtime::apimachinery::Wording;
use matchcond_runtime::apimachinery::{self as checks};

/// apimachinery's `IsDNS1123Subdomain` (`util/validation` wording).
pub fn dns1123_subdomain_errors(value: &str) -> Vec<String> {
    checks::dns1123_subdomain_errors(value, Wording::Legacy)
}

/// apimachinery's `IsQualifiedName` (label-key rules): the messages for an invalid name,
/// empty when the name is valid.
pub fn qualified_name_errors(value: &str, wording: Wording) -> Vec<String> {
    checks::qualified_name_errors(value, wording)
}

#[cfg(test)]
mod tests {
    use super::*;
    use matchcond_runtime::apimachinery::{DNS1123_SUBDOMAIN_FMT, DNS1123_SUBDOMAIN_MSG};

    const NAME_PART: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

    #[test]
    fn valid_names() {
        for n in [
            "thing.test.com",
            "a",
            "example.com/MyName",
            "123-abc",
            "my.name",
        ] {
            assert!(qualified_name_errors(n, Wording::Current).is_empty(), "{n}");
        }
    }

    #[test]
    fn invalid_names_have_apimachinery_messages() {
        for n in ["-hello", ".io", "some name", " test1"] {
            assert_eq!(
                qualified_name_errors(n, Wording::Current),
                vec![NAME_PART.to_string()],
                "{n}"
            );
        }
        assert_eq!(
            qualified_name_errors("", Wording::Current),
            vec![
                "name part must be non-empty".to_string(),
                NAME_PART.to_string()
            ]
        );
        let long = "a".repeat(64);
        assert_eq!(
            qualified_name_errors(&long, Wording::Legacy),
            vec!["name part must be no more than 63 characters".to_string()]
        );
        assert_eq!(
            qualified_name_errors(&long, Wording::Current),
            vec!["name part must be no more than 63 bytes".to_string()]
        );
        assert_eq!(
            qualified_name_errors("/a", Wording::Current),
            vec!["prefix part must be non-empty".to_string()]
        );
        assert_eq!(
            qualified_name_errors("Example.com/a", Wording::Current),
            vec![format!("prefix part {DNS1123_SUBDOMAIN_MSG} (e.g. 'example.com', regex used for validation is '{DNS1123_SUBDOMAIN_FMT}')")]
        );
        let many = qualified_name_errors("a/b/c", Wording::Legacy);
        assert_eq!(many.len(), 1);
        assert!(many[0].starts_with("a qualified name must consist of"));
        assert!(many[0].ends_with(
            "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ));
        assert!(qualified_name_errors("a/b/c", Wording::Current)[0]
            .starts_with("a valid label key must consist of"));
    }
}
