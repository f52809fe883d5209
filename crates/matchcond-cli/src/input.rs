//! Reading the command's input files: AdmissionReviews, webhook configurations, static
//! authorizer tables and namespace labels. Every failure is an [`InputError`] (exit 2).

use std::fmt;
use std::io::Read;

use matchcond::authz::{AuthorizerTable, StaticAuthorizer};
use matchcond::dispatch::load::{load_text, LoadedText, Position, Severity};
use matchcond::dispatch::{parse_documents, Configuration, Labels, Validator};
use matchcond::KubeVersion;
use serde::Deserialize;
use serde_json::Value as Json;

/// Input the command cannot use: the message names the file and the problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError(pub String);

/// How the problems of one error are printed apart: each on its own `matchcond:` line.
const PROBLEM_SEPARATOR: &str = "\nmatchcond: ";

impl InputError {
    /// One error of several problems, printed one a line.
    pub fn of_problems(problems: &[String]) -> InputError {
        InputError(problems.join(PROBLEM_SEPARATOR))
    }

    /// The problems of the error, one each.
    pub fn problems(&self) -> impl Iterator<Item = &str> {
        self.0.split(PROBLEM_SEPARATOR)
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A configuration as messages name it: its kind and name, `""` for a configuration
/// without a name (as the apiserver names it).
pub fn configuration_label(kind: &str, name: &str) -> String {
    if name.is_empty() {
        format!("{kind} \"\"")
    } else {
        format!("{kind} {name}")
    }
}

/// Parses `--k8s-version` as the library reads a version (`KubeVersion`'s `FromStr`: a
/// modelled version, `1.34`, `v1.34.2`, …), with its words.
pub fn parse_version(text: &str) -> Result<KubeVersion, String> {
    text.parse::<KubeVersion>().map_err(|e| e.to_string())
}

/// Reads a file, or standard input for `-`.
pub fn read_text(path: &str) -> Result<String, InputError> {
    String::from_utf8(read_bytes(path)?).map_err(|_| {
        let name = if path == "-" { "<stdin>" } else { path };
        InputError(format!(
            "{name}: cannot read: stream did not contain valid UTF-8"
        ))
    })
}

/// Reads a file's bytes (`-`: standard input), whatever their encoding.
pub fn read_bytes(path: &str) -> Result<Vec<u8>, InputError> {
    if path == "-" {
        let mut b = Vec::new();
        std::io::stdin()
            .read_to_end(&mut b)
            .map_err(|e| InputError(format!("<stdin>: cannot read: {e}")))?;
        return Ok(b);
    }
    std::fs::read(path).map_err(|e| InputError(format!("{path}: cannot read: {e}")))
}

/// The display name of an input path.
pub fn display_name(path: &str) -> &str {
    if path == "-" {
        "<stdin>"
    } else {
        path
    }
}

/// The AdmissionReview version the apiserver sends by default.
pub const REVIEW_API_VERSION: &str = "admission.k8s.io/v1";

/// A review's `request`, with the warnings reading it gave.
#[derive(Debug)]
pub struct Review {
    /// The `request` object.
    pub request: Json,
    /// Warnings (an `admission.k8s.io/v1beta1` review).
    pub warnings: Vec<String>,
    /// The review's text.
    pub text: String,
}

/// Reads an AdmissionReview (JSON or YAML): an `admission.k8s.io/v1` `AdmissionReview`
/// with a `request` object (`v1beta1`, which the apiserver still sends to webhooks that
/// ask for it, is read with a warning).
pub fn read_review(path: &str) -> Result<Review, InputError> {
    let name = display_name(path);
    let text = read_text(path)?;
    let docs = parse_documents(&text).map_err(|e| InputError(format!("{name}: {e}")))?;
    let mut docs = docs.into_iter().filter(|d| !d.is_null());
    let (Some(review), None) = (docs.next(), docs.next()) else {
        return Err(InputError(format!(
            "{name}: expected exactly one AdmissionReview document"
        )));
    };
    let (request, warnings) = review_request(name, &review)?;
    Ok(Review {
        request,
        warnings,
        text,
    })
}

/// The `request` of an AdmissionReview (named `name` in messages), with the warnings about
/// its type: an `admission.k8s.io/v1` `AdmissionReview` (`v1beta1` read with a warning).
pub fn review_request(name: &str, review: &Json) -> Result<(Json, Vec<String>), InputError> {
    let mut warnings = Vec::new();
    let api_version = review.get("apiVersion").and_then(Json::as_str);
    let kind = review.get("kind").and_then(Json::as_str);
    match (api_version, kind) {
        (Some(REVIEW_API_VERSION), Some("AdmissionReview")) => {}
        (Some("admission.k8s.io/v1beta1"), Some("AdmissionReview")) => warnings.push(format!(
            "{name}: admission.k8s.io/v1beta1 AdmissionReview read as {REVIEW_API_VERSION} (the apiserver sends v1beta1 only to webhooks whose admissionReviewVersions ask for it first)"
        )),
        (v, Some("AdmissionReview")) => {
            return Err(InputError(format!(
                "{name}: unsupported AdmissionReview apiVersion {:?} (expected {REVIEW_API_VERSION})",
                v.unwrap_or("")
            )))
        }
        (v, k) => {
            return Err(InputError(format!(
                "{name}: not an AdmissionReview: apiVersion {:?}, kind {:?} (expected apiVersion {REVIEW_API_VERSION}, kind AdmissionReview)",
                v.unwrap_or(""),
                k.unwrap_or("")
            )))
        }
    }
    match review.get("request") {
        Some(request @ Json::Object(_)) => Ok((request.clone(), warnings)),
        _ => Err(InputError(format!(
            "{name}: the AdmissionReview has no \"request\" object"
        ))),
    }
}

/// Reads and loads (strictly, with positions) the configurations of a file.
pub fn read_configurations(path: &str) -> Result<(String, LoadedText), InputError> {
    let text = read_text(path)?;
    let loaded = load_text(&text);
    Ok((text, loaded))
}

/// A configuration read from a file to be decided as stored, with what the apiserver's
/// validation says of it.
pub struct StoredConfiguration {
    /// The configuration.
    pub configuration: Configuration,
    /// The file's name as shown.
    pub file: String,
    /// Where it starts in the file.
    pub at: Position,
    /// Its kind (`ValidatingWebhookConfiguration`, …).
    pub kind: &'static str,
    /// Its name.
    pub name: String,
    /// The validation's errors (empty when the apiserver accepts it).
    pub errors: Vec<String>,
}

impl StoredConfiguration {
    /// Where it is and what it is, as warnings name it: `FILE:LINE:COLUMN: KIND NAME`.
    pub fn described(&self) -> String {
        format!("{}:{}: {} {}", self.file, self.at, self.kind, self.name)
    }
}

/// Reads the configurations of files to decide with, as the apiserver decides with the
/// configurations it stored: every one must load (a text or field error is unusable
/// input); one the validation refuses is kept with its errors, for a warning.
pub fn stored_configurations(
    files: &[String],
    version: KubeVersion,
) -> Result<Vec<StoredConfiguration>, InputError> {
    let validator = Validator::new(version);
    let mut out = Vec::new();
    for file in files {
        let name = display_name(file);
        let (_, loaded) = read_configurations(file)?;
        if let Some(d) = loaded.text_diagnostics.first() {
            return Err(InputError(format!("{name}:{d}")));
        }
        for doc in &loaded.documents {
            for c in &doc.configurations {
                let mut errors: Vec<String> = c
                    .diagnostics
                    .iter()
                    .filter(|d| d.severity() == Severity::Error)
                    .map(ToString::to_string)
                    .collect();
                let Some(config) = &c.configuration else {
                    return Err(InputError(format!(
                        "{name}: {} {} cannot be read: {}",
                        c.kind.configuration_kind(),
                        c.name,
                        errors.join("; ")
                    )));
                };
                errors.extend(validator.validate(config).iter().map(ToString::to_string));
                out.push(StoredConfiguration {
                    configuration: config.clone(),
                    file: name.to_owned(),
                    at: c.node.start,
                    kind: c.kind.configuration_kind(),
                    name: c.name.clone(),
                    errors,
                });
            }
        }
    }
    Ok(out)
}

/// Parses `--namespace-labels k=v,k2=v2` (empty: no labels).
pub fn parse_labels(text: &str) -> Result<Labels, String> {
    let mut labels = Labels::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((k, v)) = part.split_once('=') else {
            return Err(format!("invalid label {part:?} (expected key=value)"));
        };
        if k.trim().is_empty() {
            return Err(format!("invalid label {part:?} (empty key)"));
        }
        labels.insert(k.trim().to_owned(), v.trim().to_owned());
    }
    Ok(labels)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableFile {
    authorizer: AuthorizerTable,
}

/// Reads a static authorizer table ([`AuthorizerTable`]: `default`, `defaultReason`,
/// `rules`, the conformance case format's), at the top level of the file or under an
/// `authorizer` key.
pub fn read_authorizer(path: &str) -> Result<StaticAuthorizer, InputError> {
    let name = display_name(path);
    let text = read_text(path)?;
    let value: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(&text).map_err(|e| InputError(format!("{name}: {e}")))?;
    let nested = value
        .as_mapping()
        .is_some_and(|m| m.contains_key("authorizer"));
    let table: AuthorizerTable = if nested {
        serde_yaml_ng::from_value::<TableFile>(value).map(|f| f.authorizer)
    } else if value.is_null() {
        Ok(AuthorizerTable::default())
    } else {
        serde_yaml_ng::from_value::<AuthorizerTable>(value)
    }
    .map_err(|e| InputError(format!("{name}: {e}")))?;
    table
        .to_static_authorizer()
        .map_err(|e| InputError(format!("{name}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!(parse_version("1.34"), Ok(KubeVersion::V1_34));
        assert_eq!(parse_version("v1.30"), Ok(KubeVersion::V1_30));
        assert!(parse_version("1.20").is_err());
        assert!(parse_version("x").is_err());
    }

    #[test]
    fn labels() {
        let l = parse_labels("env=prod, team=a").unwrap();
        assert_eq!(l.get("env").map(String::as_str), Some("prod"));
        assert_eq!(l.get("team").map(String::as_str), Some("a"));
        assert!(parse_labels("").unwrap().is_empty());
        assert_eq!(
            parse_labels("nokey"),
            Err("invalid label \"nokey\" (expected key=value)".to_owned())
        );
    }
}
