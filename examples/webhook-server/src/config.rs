//! Loading and checking a webhook configuration: the one place the server reads
//! configurations with the library. It loads the documents and validates every
//! configuration as the apiserver does on create, as `matchcond lint` does; whatever the
//! command line's checks become, this function follows them, and nothing else in the
//! server reads configuration text.

use matchcond::dispatch::{load_documents, parse_documents, Configuration, LoadError, Validator};
use matchcond::KubeVersion;

/// Why a webhook configuration cannot be served.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

/// The configurations of a YAML or JSON text (one or more documents of
/// `ValidatingWebhookConfiguration` / `MutatingWebhookConfiguration`, or `List`s of them),
/// each one valid for the apiserver of `version` (validation as on create). Empty documents
/// are skipped; a text without any configuration is refused.
pub fn load(text: &str, version: KubeVersion) -> Result<Vec<Configuration>, ConfigError> {
    let mut configurations: Vec<Configuration> = Vec::new();
    let docs = parse_documents(text).map_err(|e| ConfigError(e.to_string()))?;
    for (index, doc) in docs.iter().enumerate() {
        if doc.is_null() {
            continue;
        }
        let loaded = load_documents(&doc.to_string()).map_err(|e| {
            let e = match e {
                LoadError::Document { source, .. } => *source,
                other => other,
            };
            ConfigError(format!("document {index}: {e}"))
        })?;
        configurations.extend(loaded);
    }
    if configurations.is_empty() {
        return Err(ConfigError(
            "no ValidatingWebhookConfiguration or MutatingWebhookConfiguration found".into(),
        ));
    }
    let validator = Validator::new(version);
    let mut problems = Vec::new();
    for c in &configurations {
        for e in validator.validate(c) {
            problems.push(format!(
                "{} {}: {e}",
                c.hook_kind().configuration_kind(),
                c.name()
            ));
        }
    }
    if !problems.is_empty() {
        return Err(ConfigError(format!(
            "the apiserver would refuse the configuration:\n{}",
            problems.join("\n")
        )));
    }
    Ok(configurations)
}
