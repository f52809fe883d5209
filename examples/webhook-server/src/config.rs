//! Loading and checking a webhook configuration: the one place the server reads
//! configurations with the library, with the same strict loading, validation and lint as
//! `matchcond lint`. Unknown, duplicate or mistyped fields, a text without any webhook
//! configuration and every error the apiserver would give on create refuse the
//! configuration; the traps the apiserver accepts (reads that fail at run time, costs over
//! the budget, …) are returned as warnings for the log.

use matchcond::dispatch::load::{load_text, Severity as LoadSeverity};
use matchcond::dispatch::{Configuration, Validator};
use matchcond::lint::{Linter, Severity};
use matchcond::KubeVersion;

/// Why a webhook configuration cannot be served.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

/// A configuration text, loaded and checked.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The configurations, each valid for the apiserver of the version (validation as on
    /// create).
    pub configurations: Vec<Configuration>,
    /// The lint warnings, one line each (`LINE:COLUMN: warning[code]: path: message`).
    pub warnings: Vec<String>,
}

/// The configurations of a YAML or JSON text (one or more documents of
/// `ValidatingWebhookConfiguration` / `MutatingWebhookConfiguration`, or `List`s of them;
/// documents of other kinds are skipped), each one valid for the apiserver of `version`,
/// with the lint warnings of the text.
pub fn load(text: &str, version: KubeVersion) -> Result<Loaded, ConfigError> {
    // Strict loading, as kubectl's field validation: positions and field paths.
    let loaded = load_text(text);
    let errors: Vec<String> = loaded
        .diagnostics()
        .into_iter()
        .filter(|d| d.severity() == LoadSeverity::Error)
        .map(ToString::to_string)
        .collect();
    if !errors.is_empty() {
        return Err(ConfigError(errors.join("\n")));
    }
    let configurations: Vec<Configuration> = loaded.configurations().cloned().collect();
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
    let report = Linter::new(version)
        .with_compatibility(false)
        .lint_text(text);
    let warnings = report
        .findings()
        .filter(|f| f.severity() == Severity::Warning)
        .map(|f| match f.position() {
            Some(p) => format!("{p}: {f}"),
            None => f.to_string(),
        })
        .collect();
    Ok(Loaded {
        configurations,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = "\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: policy}
webhooks:
- name: pods.policy.example.com
  clientConfig: {url: \"https://policy.example.com/validate\"}
  rules: [{operations: [\"CREATE\", \"DELETE\"], apiGroups: [\"\"], apiVersions: [\"v1\"], resources: [\"pods\"]}]
  sideEffects: None
  admissionReviewVersions: [\"v1\"]
  matchConditions:
  - {name: web, expression: \"object.metadata.name == 'web'\"}
";

    #[test]
    fn lint_warnings_come_with_the_configurations() {
        let loaded = load(CONFIG, KubeVersion::LATEST).unwrap();
        assert_eq!(loaded.configurations.len(), 1);
        assert!(
            loaded
                .warnings
                .iter()
                .any(|w| w.starts_with("11:") && w.contains("warning[objectOnDelete]")),
            "{:?}",
            loaded.warnings
        );
    }

    #[test]
    fn strict_loading_refuses_unknown_fields() {
        let text = CONFIG.replace("sideEffects", "sideEffect");
        let err = load(&text, KubeVersion::LATEST).unwrap_err();
        assert!(
            err.0.starts_with(
                "8:3: webhooks[0].sideEffect: unknown field (did you mean sideEffects?)"
            ),
            "{err}"
        );
    }
}
