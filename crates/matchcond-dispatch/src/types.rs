//! Webhook configurations: the `admissionregistration.k8s.io/v1` objects (as k8s-openapi
//! types), a uniform view of their webhooks, the apiserver's defaults, and loading from
//! YAML or JSON documents.

use std::fmt;

use k8s_openapi::api::admissionregistration::v1 as ar;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use serde_json::Value as Json;

use crate::error::LoadError;

/// The API version of webhook configurations.
pub const API_VERSION: &str = "admissionregistration.k8s.io/v1";
/// The API group of webhook configurations.
pub const GROUP: &str = "admissionregistration.k8s.io";

/// Validating or mutating.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum HookKind {
    /// A `ValidatingWebhookConfiguration` webhook.
    #[default]
    Validating,
    /// A `MutatingWebhookConfiguration` webhook.
    Mutating,
}

impl HookKind {
    /// The configuration kind (`ValidatingWebhookConfiguration`, ...).
    pub fn configuration_kind(self) -> &'static str {
        match self {
            HookKind::Validating => "ValidatingWebhookConfiguration",
            HookKind::Mutating => "MutatingWebhookConfiguration",
        }
    }

    /// The configuration resource (`validatingwebhookconfigurations`, ...).
    pub fn configuration_resource(self) -> &'static str {
        match self {
            HookKind::Validating => "validatingwebhookconfigurations",
            HookKind::Mutating => "mutatingwebhookconfigurations",
        }
    }
}

/// A group, version and kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Gvk {
    /// The API group (`""` for the core group).
    pub group: String,
    /// The version.
    pub version: String,
    /// The kind.
    pub kind: String,
}

impl Gvk {
    /// A group, version and kind.
    pub fn new(group: &str, version: &str, kind: &str) -> Gvk {
        Gvk {
            group: group.to_owned(),
            version: version.to_owned(),
            kind: kind.to_owned(),
        }
    }

    /// True when every part is empty (`GroupVersionKind.Empty()`).
    pub fn is_empty(&self) -> bool {
        self.group.is_empty() && self.version.is_empty() && self.kind.is_empty()
    }

    /// The JSON form (`{"group": .., "version": .., "kind": ..}`).
    pub fn to_json(&self) -> Json {
        serde_json::json!({"group": self.group, "version": self.version, "kind": self.kind})
    }
}

/// Go's `GroupVersionKind.String()`: `apps/v1, Kind=Deployment`.
impl fmt::Display for Gvk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}, Kind={}", self.group, self.version, self.kind)
    }
}

/// A group, version and resource.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Gvr {
    /// The API group (`""` for the core group).
    pub group: String,
    /// The version.
    pub version: String,
    /// The resource (plural, lower case).
    pub resource: String,
}

impl Gvr {
    /// A group, version and resource.
    pub fn new(group: &str, version: &str, resource: &str) -> Gvr {
        Gvr {
            group: group.to_owned(),
            version: version.to_owned(),
            resource: resource.to_owned(),
        }
    }

    /// `GroupResource.String()`: `deployments.apps`, or `pods` for the core group.
    pub fn group_resource(&self) -> String {
        if self.group.is_empty() {
            self.resource.clone()
        } else {
            format!("{}.{}", self.resource, self.group)
        }
    }

    /// The JSON form (`{"group": .., "version": .., "resource": ..}`).
    pub fn to_json(&self) -> Json {
        serde_json::json!({"group": self.group, "version": self.version, "resource": self.resource})
    }
}

/// Go's `GroupVersionResource.String()`: `apps/v1, Resource=deployments`.
impl fmt::Display for Gvr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}, Resource={}",
            self.group, self.version, self.resource
        )
    }
}

/// One webhook of either kind, as the validation and dispatch code sees it (the fields
/// of `ValidatingWebhook` plus `reinvocationPolicy` of `MutatingWebhook`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WebhookSpec {
    /// `name`.
    pub name: String,
    /// `clientConfig`.
    pub client_config: ar::WebhookClientConfig,
    /// `rules`.
    pub rules: Vec<ar::RuleWithOperations>,
    /// `failurePolicy`.
    pub failure_policy: Option<String>,
    /// `matchPolicy`.
    pub match_policy: Option<String>,
    /// `namespaceSelector`.
    pub namespace_selector: Option<LabelSelector>,
    /// `objectSelector`.
    pub object_selector: Option<LabelSelector>,
    /// `sideEffects`; `None` when the field was absent from the document.
    pub side_effects: Option<String>,
    /// `timeoutSeconds`.
    pub timeout_seconds: Option<i32>,
    /// `admissionReviewVersions`.
    pub admission_review_versions: Vec<String>,
    /// `matchConditions`.
    pub match_conditions: Vec<ar::MatchCondition>,
    /// `reinvocationPolicy` (mutating webhooks only).
    pub reinvocation_policy: Option<String>,
}

/// The fields the two k8s-openapi webhook types share, between one and a [`WebhookSpec`]:
/// `spec_from!(webhook, reinvocation_policy)` views one, `webhook_from!(Type, spec, {own
/// fields})` builds one back (an unset `sideEffects` becomes `""`).
macro_rules! spec_from {
    ($h:expr, $reinvocation_policy:expr) => {
        WebhookSpec {
            name: $h.name.clone(),
            client_config: $h.client_config.clone(),
            rules: $h.rules.clone().unwrap_or_default(),
            failure_policy: $h.failure_policy.clone(),
            match_policy: $h.match_policy.clone(),
            namespace_selector: $h.namespace_selector.clone(),
            object_selector: $h.object_selector.clone(),
            side_effects: Some($h.side_effects.clone()),
            timeout_seconds: $h.timeout_seconds,
            admission_review_versions: $h.admission_review_versions.clone(),
            match_conditions: $h.match_conditions.clone().unwrap_or_default(),
            reinvocation_policy: $reinvocation_policy,
        }
    };
}

macro_rules! webhook_from {
    ($($ty:ident)::+, $s:expr, { $($own:ident: $value:expr),* }) => {
        $($ty)::+ {
            admission_review_versions: $s.admission_review_versions.clone(),
            client_config: $s.client_config.clone(),
            failure_policy: $s.failure_policy.clone(),
            match_conditions: some_vec(&$s.match_conditions),
            match_policy: $s.match_policy.clone(),
            name: $s.name.clone(),
            namespace_selector: $s.namespace_selector.clone(),
            object_selector: $s.object_selector.clone(),
            rules: some_vec(&$s.rules),
            side_effects: $s.side_effects.clone().unwrap_or_default(),
            timeout_seconds: $s.timeout_seconds,
            $($own: $value),*
        }
    };
}

impl WebhookSpec {
    /// The view of a validating webhook (its `sideEffects` counts as set).
    pub fn from_validating(h: &ar::ValidatingWebhook) -> WebhookSpec {
        spec_from!(h, None)
    }

    /// The view of a mutating webhook (its `sideEffects` counts as set).
    pub fn from_mutating(h: &ar::MutatingWebhook) -> WebhookSpec {
        spec_from!(h, h.reinvocation_policy.clone())
    }

    /// Back to a `ValidatingWebhook` (an unset `sideEffects` becomes `""`).
    pub fn to_validating(&self) -> ar::ValidatingWebhook {
        webhook_from!(ar::ValidatingWebhook, self, {})
    }

    /// Back to a `MutatingWebhook` (an unset `sideEffects` becomes `""`).
    pub fn to_mutating(&self) -> ar::MutatingWebhook {
        webhook_from!(ar::MutatingWebhook, self, {
            reinvocation_policy: self.reinvocation_policy.clone()
        })
    }

    /// Reads one webhook object (JSON or YAML already parsed). `kind` says which type to
    /// read it as; an absent `sideEffects` is kept as unset.
    pub fn from_json(value: &Json, kind: HookKind) -> Result<WebhookSpec, LoadError> {
        let cleaned = strip_nulls(value);
        let side_effects_set = cleaned.get("sideEffects").is_some();
        let mut spec = match kind {
            HookKind::Validating => WebhookSpec::from_validating(&decode(cleaned)?),
            HookKind::Mutating => WebhookSpec::from_mutating(&decode(cleaned)?),
        };
        if !side_effects_set {
            spec.side_effects = None;
        }
        Ok(spec)
    }

    /// Applies the apiserver's defaults (`pkg/apis/admissionregistration/v1/defaults.go`):
    /// failurePolicy `Fail`, matchPolicy `Equivalent`, empty namespace and object selectors,
    /// timeoutSeconds 10, rule scope `*`, service port 443 and, for mutating webhooks,
    /// reinvocationPolicy `Never`.
    pub fn apply_defaults(&mut self, kind: HookKind) {
        self.failure_policy.get_or_insert_with(|| "Fail".to_owned());
        self.match_policy
            .get_or_insert_with(|| "Equivalent".to_owned());
        self.namespace_selector
            .get_or_insert_with(LabelSelector::default);
        self.object_selector
            .get_or_insert_with(LabelSelector::default);
        self.timeout_seconds.get_or_insert(10);
        if kind == HookKind::Mutating {
            self.reinvocation_policy
                .get_or_insert_with(|| "Never".to_owned());
        }
        for rule in &mut self.rules {
            rule.scope.get_or_insert_with(|| "*".to_owned());
        }
        if let Some(service) = &mut self.client_config.service {
            service.port.get_or_insert(443);
        }
    }
}

fn some_vec<T: Clone>(v: &[T]) -> Option<Vec<T>> {
    if v.is_empty() {
        None
    } else {
        Some(v.to_vec())
    }
}

/// A whole webhook configuration of either kind.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Configuration {
    /// Validating or mutating.
    pub kind: HookKind,
    /// `metadata`.
    pub metadata: ObjectMeta,
    /// `webhooks`, in order.
    pub webhooks: Vec<WebhookSpec>,
}

impl Configuration {
    /// The view of a `ValidatingWebhookConfiguration`.
    pub fn from_validating(c: &ar::ValidatingWebhookConfiguration) -> Configuration {
        Configuration {
            kind: HookKind::Validating,
            metadata: c.metadata.clone(),
            webhooks: c
                .webhooks
                .iter()
                .flatten()
                .map(WebhookSpec::from_validating)
                .collect(),
        }
    }

    /// The view of a `MutatingWebhookConfiguration`.
    pub fn from_mutating(c: &ar::MutatingWebhookConfiguration) -> Configuration {
        Configuration {
            kind: HookKind::Mutating,
            metadata: c.metadata.clone(),
            webhooks: c
                .webhooks
                .iter()
                .flatten()
                .map(WebhookSpec::from_mutating)
                .collect(),
        }
    }

    /// Validating or mutating.
    pub fn hook_kind(&self) -> HookKind {
        self.kind
    }

    /// `metadata.name` (empty when unset).
    pub fn name(&self) -> &str {
        self.metadata.name.as_deref().unwrap_or("")
    }

    /// As a `ValidatingWebhookConfiguration` (whatever the kind).
    pub fn to_validating(&self) -> ar::ValidatingWebhookConfiguration {
        ar::ValidatingWebhookConfiguration {
            metadata: self.metadata.clone(),
            webhooks: Some(
                self.webhooks
                    .iter()
                    .map(WebhookSpec::to_validating)
                    .collect(),
            ),
        }
    }

    /// As a `MutatingWebhookConfiguration` (whatever the kind).
    pub fn to_mutating(&self) -> ar::MutatingWebhookConfiguration {
        ar::MutatingWebhookConfiguration {
            metadata: self.metadata.clone(),
            webhooks: Some(self.webhooks.iter().map(WebhookSpec::to_mutating).collect()),
        }
    }

    /// Applies the apiserver's defaults to every webhook ([`WebhookSpec::apply_defaults`]).
    pub fn apply_defaults(&mut self) {
        let kind = self.hook_kind();
        for h in &mut self.webhooks {
            h.apply_defaults(kind);
        }
    }

    /// The configuration with defaults applied.
    pub fn defaulted(&self) -> Configuration {
        let mut c = self.clone();
        c.apply_defaults();
        c
    }

    /// Reads one configuration object. Its `kind` must be `ValidatingWebhookConfiguration`
    /// or `MutatingWebhookConfiguration` and its `apiVersion` (when given)
    /// `admissionregistration.k8s.io/v1`. `null` values count as absent, as Go's decoder
    /// treats them, and an absent `sideEffects` is kept as unset.
    pub fn from_json(value: &Json) -> Result<Configuration, LoadError> {
        let kind = match value.get("kind").and_then(Json::as_str) {
            Some("ValidatingWebhookConfiguration") => HookKind::Validating,
            Some("MutatingWebhookConfiguration") => HookKind::Mutating,
            other => {
                return Err(LoadError::UnsupportedKind(other.unwrap_or("").to_owned()));
            }
        };
        Configuration::from_json_as(value, kind)
    }

    pub(crate) fn from_json_as(value: &Json, kind: HookKind) -> Result<Configuration, LoadError> {
        match value.get("apiVersion").and_then(Json::as_str) {
            None | Some(API_VERSION) => {}
            Some(other) => return Err(LoadError::UnsupportedApiVersion(other.to_owned())),
        }
        let mut cleaned = strip_nulls(value);
        if let Json::Object(m) = &mut cleaned {
            m.insert("apiVersion".into(), Json::String(API_VERSION.into()));
            m.insert(
                "kind".into(),
                Json::String(kind.configuration_kind().into()),
            );
        }
        let unset: Vec<bool> = cleaned
            .get("webhooks")
            .and_then(Json::as_array)
            .map(|hooks| {
                hooks
                    .iter()
                    .map(|h| h.get("sideEffects").is_none())
                    .collect()
            })
            .unwrap_or_default();
        let mut config = match kind {
            HookKind::Validating => Configuration::from_validating(&decode(cleaned)?),
            HookKind::Mutating => Configuration::from_mutating(&decode(cleaned)?),
        };
        for (hook, unset) in config.webhooks.iter_mut().zip(unset) {
            if unset {
                hook.side_effects = None;
            }
        }
        Ok(config)
    }
}

/// Removes `null` members of objects, recursively (Go's decoder leaves such fields at their
/// zero value).
fn strip_nulls(value: &Json) -> Json {
    match value {
        Json::Object(m) => Json::Object(
            m.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), strip_nulls(v)))
                .collect(),
        ),
        Json::Array(a) => Json::Array(a.iter().map(strip_nulls).collect()),
        other => other.clone(),
    }
}

/// Parses a text of JSON or (multi-document) YAML into JSON values, one per document
/// (`null` for an empty document). Syntax errors give their line and column.
pub fn parse_documents(text: &str) -> Result<Vec<Json>, LoadError> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        if let Ok(v) = serde_json::from_str::<Json>(text) {
            return Ok(vec![v]);
        }
    }
    let read = crate::yaml::read_documents(text);
    if let Some(e) = read.error {
        return Err(LoadError::Syntax(e.to_string()));
    }
    Ok(read
        .documents
        .iter()
        .map(|d| {
            d.root
                .as_ref()
                .map_or(Json::Null, crate::yaml::Node::to_json)
        })
        .collect())
}

/// A Kubernetes type decoded from JSON with nulls already stripped.
fn decode<T: serde::de::DeserializeOwned>(cleaned: Json) -> Result<T, LoadError> {
    serde_json::from_value(cleaned).map_err(|e| LoadError::Decode(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let r = Gvr::new("apps", "v1", "deployments");
        assert_eq!(r.group_resource(), "deployments.apps");
        assert_eq!(r.to_string(), "apps/v1, Resource=deployments");
        assert_eq!(Gvr::new("", "v1", "pods").group_resource(), "pods");
        assert_eq!(
            Gvk::new("apps", "v1", "Deployment").to_string(),
            "apps/v1, Kind=Deployment"
        );
    }
}

/// An admission operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Operation {
    /// `CREATE`.
    Create,
    /// `UPDATE`.
    Update,
    /// `DELETE`.
    Delete,
    /// `CONNECT`.
    Connect,
}

impl Operation {
    /// Every operation, in the apiserver's order.
    pub const ALL: [Operation; 4] = [
        Operation::Create,
        Operation::Update,
        Operation::Delete,
        Operation::Connect,
    ];

    /// The operation's name in an AdmissionRequest (`CREATE`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "CREATE",
            Operation::Update => "UPDATE",
            Operation::Delete => "DELETE",
            Operation::Connect => "CONNECT",
        }
    }

    /// The operation of a name, as an AdmissionRequest writes it (`CREATE`, …).
    pub fn named(name: &str) -> Option<Operation> {
        Operation::ALL.into_iter().find(|o| o.as_str() == name)
    }

    /// Reads an operation name (case-insensitive, as a command line takes it).
    pub fn parse(text: &str) -> Option<Operation> {
        Operation::ALL
            .into_iter()
            .find(|o| o.as_str().eq_ignore_ascii_case(text))
    }
}

impl std::fmt::Display for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
