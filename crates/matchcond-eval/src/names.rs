//! Validation of matchCondition names: qualified names (label-key rules) with apimachinery's
//! messages, as `ValidateQualifiedName` reports them.

/// Longest name part of a qualified name.
const QUALIFIED_NAME_MAX: usize = 63;
/// Longest DNS-1123 subdomain.
const DNS1123_SUBDOMAIN_MAX: usize = 253;

const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QUALIFIED_NAME_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT: &str =
    r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

/// Message wording that changed between Kubernetes releases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wording {
    /// Up to 1.34: "characters", "a qualified name".
    Legacy,
    /// From 1.35: "bytes", "a valid label key".
    Current,
}

fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    let ex: Vec<String> = examples.iter().map(|e| format!("'{e}'")).collect();
    format!(
        "{msg} (e.g. {}, regex used for validation is '{fmt}')",
        ex.join(",  or ")
    )
}

fn is_alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

fn matches_qualified_name(s: &str) -> bool {
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

fn matches_dns1123_label(s: &str) -> bool {
    let b = s.as_bytes();
    let lower_alnum = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    match (b.first(), b.last()) {
        (Some(&f), Some(&l)) => {
            lower_alnum(f) && lower_alnum(l) && b.iter().all(|&c| lower_alnum(c) || c == b'-')
        }
        _ => false,
    }
}

/// apimachinery's `IsDNS1123Subdomain`.
pub fn dns1123_subdomain_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_SUBDOMAIN_MAX {
        errs.push(format!(
            "must be no more than {DNS1123_SUBDOMAIN_MAX} characters"
        ));
    }
    if !value.split('.').all(matches_dns1123_label) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_MSG,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// apimachinery's `IsQualifiedName` (label-key rules): the messages for an invalid name,
/// empty when the name is valid.
pub fn qualified_name_errors(value: &str, wording: Wording) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                errs.extend(
                    dns1123_subdomain_errors(prefix)
                        .into_iter()
                        .map(|m| format!("prefix part {m}")),
                );
            }
            *name
        }
        _ => {
            let lead = match wording {
                Wording::Legacy => "a qualified name",
                Wording::Current => "a valid label key",
            };
            errs.push(format!(
                "{lead} {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, &["MyName", "my.name", "123-abc"])
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > QUALIFIED_NAME_MAX {
        let unit = match wording {
            Wording::Legacy => "characters",
            Wording::Current => "bytes",
        };
        errs.push(format!(
            "name part must be no more than {QUALIFIED_NAME_MAX} {unit}"
        ));
    }
    if !matches_qualified_name(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                QUALIFIED_NAME_MSG,
                QUALIFIED_NAME_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

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
