//! Parsing a webhook's `failurePolicy`.

use std::str::FromStr;

use crate::FailurePolicy;

/// A `failurePolicy` other than `Fail` and `Ignore` (the apiserver refuses it with
/// `supported values: "Fail", "Ignore"`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unsupported failurePolicy {given:?}: supported values: \"Fail\", \"Ignore\"")]
pub struct ParseFailurePolicyError {
    /// The text given.
    pub given: String,
}

impl FailurePolicy {
    /// A webhook's `failurePolicy` field: `Fail` when unset (the apiserver's default),
    /// else exactly `Fail` or `Ignore`. Every road from a webhook's configuration reads
    /// its policy here.
    pub fn from_field(field: Option<&str>) -> Result<Self, ParseFailurePolicyError> {
        field.map_or(Ok(FailurePolicy::default()), str::parse)
    }
}

impl FromStr for FailurePolicy {
    type Err = ParseFailurePolicyError;

    /// `Fail` or `Ignore`, exactly (as the apiserver compares them).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "Fail" => Ok(FailurePolicy::Fail),
            "Ignore" => Ok(FailurePolicy::Ignore),
            _ => Err(ParseFailurePolicyError {
                given: s.to_string(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn failure_policies_parse_exactly() {
        assert_eq!("Fail".parse::<FailurePolicy>(), Ok(FailurePolicy::Fail));
        assert_eq!("Ignore".parse::<FailurePolicy>(), Ok(FailurePolicy::Ignore));
        let e = "fail".parse::<FailurePolicy>().unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"unsupported failurePolicy "fail": supported values: "Fail", "Ignore""#
        );
        assert!(" Fail".parse::<FailurePolicy>().is_err());
        assert!("".parse::<FailurePolicy>().is_err());
    }
}
