//! The linter: loads each text, validates and analyses its configurations, and writes the
//! reports.

use std::sync::OnceLock;

use matchcond_compiler::{Environment, KubeVersion};
use matchcond_dispatch::load::{load_text, Diagnostic, LoadedConfiguration, Severity};
use matchcond_dispatch::yaml::{Node, Position};
use matchcond_dispatch::{Configuration, Validator};

use crate::analysis::{self, Envs};
use crate::finding::{Code, Finding};
use crate::position::text_position;
use crate::report::{
    modelled_versions, ConfigurationReport, DocumentReport, TextReport, VersionVerdict,
};

/// Lints webhook configurations for one Kubernetes version: strict loading, the
/// apiserver's validation (on create, or on update from old configurations), the traps of
/// every matchCondition, cost estimates and the versions that accept each configuration.
///
/// It reads text and gives findings: no files, no threads, no I/O.
///
/// ```
/// use matchcond::lint::{Code, Linter, Severity};
/// use matchcond::KubeVersion;
///
/// let report = Linter::new(KubeVersion::V1_34).lint_text("
/// apiVersion: admissionregistration.k8s.io/v1
/// kind: ValidatingWebhookConfiguration
/// metadata: {name: policy}
/// webhooks:
/// - name: pods.policy.example.com
///   clientConfig: {url: 'https://policy.example.com/validate'}
///   rules: [{operations: ['*'], apiGroups: [''], apiVersions: [v1], resources: [pods]}]
///   sideEffects: None
///   admissionReviewVersions: [v1]
///   matchConditions:
///   - name: labelled
///     expression: object.metadata.name != 'x'
/// ");
/// let f = report.findings().next().unwrap();
/// assert_eq!(f.code(), Code::ObjectOnDelete);
/// assert_eq!(f.severity(), Severity::Warning);
/// assert_eq!(f.path(), "webhooks[0].matchConditions[0].expression");
/// assert_eq!(f.position().unwrap().to_string(), "13:17");
/// assert_eq!(f.operations()[0].as_str(), "DELETE");
/// ```
#[derive(Debug)]
pub struct Linter {
    version: KubeVersion,
    old: Vec<Configuration>,
    compatibility: bool,
    validator: Validator,
    stored: Vec<Environment>,
    validators: OnceLock<Vec<Validator>>,
}

impl Linter {
    /// A linter for a Kubernetes version (one of [`modelled_versions`]).
    pub fn new(version: KubeVersion) -> Linter {
        Linter {
            version,
            old: Vec::new(),
            compatibility: true,
            validator: Validator::new(version),
            stored: modelled_versions()
                .into_iter()
                .map(Environment::kubernetes)
                .collect(),
            validators: OnceLock::new(),
        }
    }

    /// Validates configurations as updates from these (matched by kind and name; others
    /// are validated as creates).
    pub fn with_old_configurations(mut self, old: Vec<Configuration>) -> Linter {
        self.old = old;
        self
    }

    /// Whether to compute which modelled versions accept each configuration (on by
    /// default; it validates each configuration once per version).
    pub fn with_compatibility(mut self, on: bool) -> Linter {
        self.compatibility = on;
        self
    }

    /// The version linted for.
    pub fn version(&self) -> KubeVersion {
        self.version
    }

    /// Lints every document of a YAML or JSON text.
    pub fn lint_text(&self, text: &str) -> TextReport {
        let loaded = load_text(text);
        let mut documents = Vec::new();
        for doc in &loaded.documents {
            let findings = doc
                .diagnostics
                .iter()
                .map(|d| from_diagnostic(d, ""))
                .collect();
            let configurations = doc
                .configurations
                .iter()
                .map(|c| self.lint_loaded(text, c))
                .collect();
            documents.push(DocumentReport {
                index: doc.index,
                start: doc.start,
                kind: doc.kind.clone(),
                findings,
                configurations,
            });
        }
        TextReport {
            documents,
            findings: loaded
                .text_diagnostics
                .iter()
                .map(|d| from_diagnostic(d, ""))
                .collect(),
        }
    }

    /// Lints a configuration that was not read from text (findings have no positions).
    pub fn lint_configuration(&self, configuration: &Configuration) -> ConfigurationReport {
        let mut report = ConfigurationReport {
            kind: configuration.hook_kind(),
            name: configuration.name().to_owned(),
            item: None,
            position: None,
            update: false,
            findings: Vec::new(),
            webhooks: Vec::new(),
            compatibility: Vec::new(),
        };
        self.check(configuration, &mut report);
        report
    }

    fn lint_loaded(&self, text: &str, loaded: &LoadedConfiguration) -> ConfigurationReport {
        let mut report = ConfigurationReport {
            kind: loaded.kind,
            name: loaded.name.clone(),
            item: loaded.item,
            position: Some(loaded.node.start),
            update: false,
            findings: loaded
                .diagnostics
                .iter()
                .map(|d| from_diagnostic(d, ""))
                .collect(),
            webhooks: Vec::new(),
            compatibility: Vec::new(),
        };
        if let Some(c) = &loaded.configuration {
            let first = report.findings.len();
            self.check(c, &mut report);
            for f in report.findings.iter_mut().skip(first) {
                f.position = Some(locate(text, &loaded.node, f));
            }
        }
        report
            .findings
            .sort_by_key(|f| f.position.unwrap_or(Position::new(u32::MAX, u32::MAX)));
        report
    }

    fn check(&self, c: &Configuration, report: &mut ConfigurationReport) {
        let old = self
            .old
            .iter()
            .find(|o| o.hook_kind() == c.hook_kind() && o.name() == c.name());
        report.update = old.is_some();
        let errors = match old {
            Some(o) => self.validator.validate_update(c, o),
            None => self.validator.validate(c),
        };
        for e in errors {
            let mut f =
                Finding::new(Severity::Error, Code::Validation, e.to_string()).at_path(e.field());
            f.field_error = Some(e);
            report.findings.push(f);
        }
        let envs = Envs {
            version: self.version,
            stored: &self.stored,
        };
        let (findings, webhooks) = analysis::analyze_configuration(c, &envs);
        report.findings.extend(findings);
        report.webhooks = webhooks;
        if self.compatibility {
            let validators = self.validators.get_or_init(|| {
                modelled_versions()
                    .into_iter()
                    .map(Validator::new)
                    .collect()
            });
            report.compatibility = validators
                .iter()
                .map(|v| VersionVerdict {
                    version: v.version(),
                    errors: v.validate(c),
                })
                .collect();
            // Only for a configuration the version linted for accepts: the errors say the rest.
            let valid = !report.findings.iter().any(|f| f.code == Code::Validation);
            if valid {
                if let Some(f) = compatibility_finding(&report.compatibility) {
                    report.findings.push(f);
                }
            }
        }
    }
}

/// `1.30 to 1.36`, `1.28 and 1.29`, `1.31`.
fn version_ranges(versions: &[KubeVersion]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while let Some(&start) = versions.get(i) {
        let mut end = start;
        while versions
            .get(i + 1)
            .is_some_and(|v| v.major == end.major && v.minor == end.minor + 1)
        {
            i += 1;
            end = versions.get(i).copied().unwrap_or(end);
        }
        parts.push(if start == end {
            start.to_string()
        } else if end.minor == start.minor + 1 {
            format!("{start} and {end}")
        } else {
            format!("{start} to {end}")
        });
        i += 1;
    }
    parts.join(", ")
}

fn compatibility_finding(verdicts: &[VersionVerdict]) -> Option<Finding> {
    let refused: Vec<&VersionVerdict> = verdicts.iter().filter(|v| !v.errors.is_empty()).collect();
    let newest_refusal = refused.last()?;
    let accepted: Vec<KubeVersion> = verdicts
        .iter()
        .filter(|v| v.errors.is_empty())
        .map(|v| v.version)
        .collect();
    let refused_versions: Vec<KubeVersion> = refused.iter().map(|v| v.version).collect();
    let first = newest_refusal
        .errors
        .first()
        .map(|e| e.to_string().lines().next().unwrap_or("").to_owned())
        .unwrap_or_default();
    let message = if accepted.is_empty() {
        format!(
            "no modelled Kubernetes version ({}) accepts this configuration",
            version_ranges(&refused_versions)
        )
    } else {
        format!(
            "accepted on create by Kubernetes {}; refused by {} ({}: {first})",
            version_ranges(&accepted),
            version_ranges(&refused_versions),
            newest_refusal.version
        )
    };
    let mut f = Finding::new(Severity::Note, Code::Compatibility, message);
    f.versions = refused_versions;
    Some(f)
}

fn from_diagnostic(d: &Diagnostic, prefix: &str) -> Finding {
    let mut f = Finding::new(d.severity(), Code::Load(d.kind), d.message.clone())
        .at_path(format!("{prefix}{}", d.path));
    f.position = Some(d.position);
    if d.kind == matchcond_dispatch::load::DiagnosticKind::NoConfiguration {
        f.help = Some("lint files that hold ValidatingWebhookConfiguration or MutatingWebhookConfiguration objects (documents of other kinds are skipped)".to_owned());
    }
    f
}

/// The position of a finding: the expression's character for findings with a span, else the
/// field (or its nearest present ancestor).
fn locate(text: &str, node: &Node, f: &Finding) -> Position {
    if let (Some(span), Some(target)) = (&f.span, node.at_path(&f.path)) {
        if let Some(expression) = target.as_str() {
            return text_position(text, target, expression, span.start);
        }
    }
    node.locate_nearest(&f.path)
}
