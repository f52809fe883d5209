//! The linter's reports: what it found in each text, document, configuration, webhook and
//! condition.

use matchcond_compiler::KubeVersion;
use matchcond_dispatch::load::Severity;
use matchcond_dispatch::yaml::Position;
use matchcond_dispatch::{FieldError, HookKind};
use matchcond_runtime::cost::StaticRange;

use crate::finding::{Finding, Operation};

/// The oldest Kubernetes version modelled ([`KubeVersion::OLDEST`]).
pub const OLDEST_VERSION: KubeVersion = KubeVersion::OLDEST;

/// Every modelled Kubernetes version, oldest first.
pub fn modelled_versions() -> Vec<KubeVersion> {
    KubeVersion::modelled().collect()
}

/// A range of costs: the least and the most a condition (or a webhook's conditions) can be
/// charged, `max` `None` when it depends on sizes of the request's data without bound, and
/// `fixed_max`, the most it can be charged whatever those sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CostRange {
    /// The least cost.
    pub min: u64,
    /// The most cost (`None`: no bound, it grows with the data's sizes).
    pub max: Option<u64>,
    /// The most cost that does not depend on the data's sizes.
    pub fixed_max: u64,
}

impl CostRange {
    pub(crate) fn of(worst: StaticRange, fixed: StaticRange) -> CostRange {
        CostRange {
            min: worst.min,
            max: (worst.max != u64::MAX).then_some(worst.max),
            fixed_max: fixed.max,
        }
    }
}

/// One condition of a webhook.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConditionReport {
    /// The condition's name.
    pub name: String,
    /// Its estimated cost (`None` when it does not compile).
    pub cost: Option<CostRange>,
    /// The oldest modelled Kubernetes version whose environment compiles it.
    pub minimum_version: Option<KubeVersion>,
}

/// One webhook of a configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct WebhookReport {
    /// The webhook's name.
    pub name: String,
    /// The estimated cost of its conditions together, each counted up to the
    /// per-expression limit (where the run time cancels it).
    pub cost: CostRange,
    /// Its conditions.
    pub conditions: Vec<ConditionReport>,
    /// The operations its rules let through.
    pub operations: Vec<Operation>,
}

/// Whether one Kubernetes version accepts a configuration on create.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct VersionVerdict {
    /// The version.
    pub version: KubeVersion,
    /// The errors that version's validation gives (empty: accepted).
    pub errors: Vec<FieldError>,
}

/// One webhook configuration.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ConfigurationReport {
    /// Validating or mutating.
    pub kind: HookKind,
    /// `metadata.name`.
    pub name: String,
    /// The index in its document's `items`, for a list.
    pub item: Option<usize>,
    /// Where the configuration starts in the text.
    pub position: Option<Position>,
    /// Validated as an update from an old configuration (else as a create).
    pub update: bool,
    /// The findings, in the order of their positions.
    pub findings: Vec<Finding>,
    /// Its webhooks (empty when the configuration could not be decoded).
    pub webhooks: Vec<WebhookReport>,
    /// Each modelled version's verdict on create (empty unless compatibility is computed).
    pub compatibility: Vec<VersionVerdict>,
}

/// One document of a text.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct DocumentReport {
    /// The document's index in the text (0-based, counting empty documents).
    pub index: usize,
    /// Where it starts.
    pub start: Position,
    /// Its `kind`.
    pub kind: Option<String>,
    /// Findings about the document itself (a skipped kind, a document that is no object).
    pub findings: Vec<Finding>,
    /// The webhook configurations it holds.
    pub configurations: Vec<ConfigurationReport>,
}

/// Everything found in one text.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct TextReport {
    /// The documents, in order.
    pub documents: Vec<DocumentReport>,
    /// Findings about the whole text (a syntax error, no configuration).
    pub findings: Vec<Finding>,
}

impl TextReport {
    /// Every finding: each document's, its configurations', then the text's.
    pub fn findings(&self) -> impl Iterator<Item = &Finding> + '_ {
        self.documents
            .iter()
            .flat_map(|d| {
                d.findings
                    .iter()
                    .chain(d.configurations.iter().flat_map(|c| c.findings.iter()))
            })
            .chain(self.findings.iter())
    }

    /// Every configuration.
    pub fn configurations(&self) -> impl Iterator<Item = &ConfigurationReport> + '_ {
        self.documents.iter().flat_map(|d| d.configurations.iter())
    }

    /// How many findings have this severity.
    pub fn count(&self, severity: Severity) -> usize {
        self.findings().filter(|f| f.severity == severity).count()
    }

    /// The most serious severity found.
    pub fn worst(&self) -> Option<Severity> {
        self.findings().map(|f| f.severity).max()
    }
}
