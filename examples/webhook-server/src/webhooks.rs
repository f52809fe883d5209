//! The webhooks the server answers for, compiled once, the paths they are served at, and
//! the answer to one AdmissionReview.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use matchcond::authz::{AuthzDecision, StaticAuthorizer};
use matchcond::dispatch::{Attributes, Configuration, HookKind, Rejection, WebhookSpec};
use matchcond::metrics::{MatchConditionMetrics, WebhookMetrics};
use matchcond::{
    Activation, ConditionOutcome, Decision, Environment, FailurePolicy, KubeVersion,
    MatchCondition, MatchConditions, Report, Skip,
};
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{json, Map, Value as Json};

pub use crate::config::ConfigError;
use crate::paths;

/// The only AdmissionReview version the server reads and answers.
pub const ADMISSION_API_VERSION: &str = "admission.k8s.io/v1";

/// The audit annotation key under which the decision is reported.
pub const DECISION_ANNOTATION: &str = "matchcond-decision";

/// Paths the server answers itself; no webhook may be served there.
pub const RESERVED_PATHS: [&str; 3] = ["/healthz", "/readyz", "/metrics"];

/// One webhook of the configuration, with its matchConditions compiled.
pub struct Webhook {
    /// The webhook's name.
    pub name: String,
    /// The name of its configuration.
    pub configuration: String,
    /// Validating or mutating.
    pub kind: HookKind,
    /// The (defaulted) failure policy.
    pub failure_policy: FailurePolicy,
    /// The path its `clientConfig` makes the apiserver request, when it is not the
    /// default route.
    configured_path: Option<String>,
    conditions: MatchConditions,
    /// Its series of the apiserver's matchConditions metrics.
    metrics: WebhookMetrics,
}

impl fmt::Debug for Webhook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Webhook")
            .field("name", &self.name)
            .field("configuration", &self.configuration)
            .field("kind", &self.kind)
            .field("failure_policy", &self.failure_policy)
            .field("paths", &self.paths())
            .field("conditions", &self.conditions)
            .finish()
    }
}

impl Webhook {
    /// The number of matchConditions.
    pub fn condition_count(&self) -> usize {
        self.conditions.len()
    }

    /// The default route of the webhook: `/validate/<name>` or `/mutate/<name>`.
    pub fn path(&self) -> String {
        format!("/{}/{}", route_word(self.kind), self.name)
    }

    /// Every path the webhook is served at: the path of its `clientConfig` (what the
    /// apiserver requests) first, then the default route.
    pub fn paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = self.configured_path.iter().cloned().collect();
        paths.push(self.path());
        paths
    }

    /// The admission type, as the apiserver's metrics name it: `validate` or `admit`.
    pub fn admission_type(&self) -> &'static str {
        match self.kind {
            HookKind::Validating => "validate",
            HookKind::Mutating => "admit",
        }
    }
}

/// The first path segment of a kind's default routes.
pub fn route_word(kind: HookKind) -> &'static str {
    match kind {
        HookKind::Validating => "validate",
        HookKind::Mutating => "mutate",
    }
}

/// The word for a kind in messages.
fn kind_word(kind: HookKind) -> &'static str {
    match kind {
        HookKind::Validating => "validating",
        HookKind::Mutating => "mutating",
    }
}

/// The operation of an admission request, as a metric label (a bounded set).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    /// `CREATE`.
    Create,
    /// `UPDATE`.
    Update,
    /// `DELETE`.
    Delete,
    /// `CONNECT`.
    Connect,
    /// Anything else (the apiserver sends only the four above).
    Other,
}

impl Operation {
    /// Every operation, in label order.
    pub const ALL: [Operation; 5] = [
        Operation::Create,
        Operation::Update,
        Operation::Delete,
        Operation::Connect,
        Operation::Other,
    ];

    /// The operation of a request's `operation` field.
    pub fn parse(text: &str) -> Operation {
        match text {
            "CREATE" => Operation::Create,
            "UPDATE" => Operation::Update,
            "DELETE" => Operation::Delete,
            "CONNECT" => Operation::Connect,
            _ => Operation::Other,
        }
    }

    /// The label value.
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "CREATE",
            Operation::Update => "UPDATE",
            Operation::Delete => "DELETE",
            Operation::Connect => "CONNECT",
            Operation::Other => "other",
        }
    }

    /// The position in [`Operation::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// What the apiserver does with the webhook for a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Every condition is true: the webhook is called.
    Call,
    /// A condition is false, or conditions failed under `failurePolicy: Ignore`: the
    /// webhook is skipped.
    Skip,
    /// Conditions failed under `failurePolicy: Fail`: the request is rejected.
    Reject,
}

impl Outcome {
    /// Every outcome, in label order.
    pub const ALL: [Outcome; 3] = [Outcome::Call, Outcome::Skip, Outcome::Reject];

    /// The word used in the audit annotation, logs and metrics.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Call => "call",
            Outcome::Skip => "skip",
            Outcome::Reject => "reject",
        }
    }

    /// The position in [`Outcome::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The answer to one AdmissionReview, with what metrics and logs report of it.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The response AdmissionReview, serialized.
    pub body: Vec<u8>,
    /// The request's `uid`.
    pub uid: String,
    /// The request's operation.
    pub operation: Operation,
    /// The decision.
    pub outcome: Outcome,
    /// The status message of the response.
    pub message: String,
    /// How long the conditions took to evaluate (binding the request included).
    pub evaluation: Duration,
}

/// The webhooks of the loaded configurations and the paths they are served at.
pub struct Webhooks {
    hooks: Vec<Webhook>,
    routes: HashMap<String, usize>,
    authorizer: Arc<StaticAuthorizer>,
    warnings: bool,
    match_condition_metrics: MatchConditionMetrics,
}

impl fmt::Debug for Webhooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.hooks.iter()).finish()
    }
}

/// Where a webhook's path comes from, for messages.
#[derive(Clone, Copy)]
enum PathSource {
    Default,
    Service,
    Url,
}

impl PathSource {
    fn describe(self, kind: HookKind) -> String {
        match self {
            PathSource::Default => format!("its /{}/<name> route", route_word(kind)),
            PathSource::Service => "its clientConfig.service.path".to_owned(),
            PathSource::Url => "the path of its clientConfig.url".to_owned(),
        }
    }
}

fn configured_path(spec: &WebhookSpec) -> Option<(String, PathSource)> {
    let client = &spec.client_config;
    if let Some(service) = &client.service {
        return Some((
            paths::request_path(service.path.as_deref().unwrap_or("")),
            PathSource::Service,
        ));
    }
    client
        .url
        .as_deref()
        .map(|url| (paths::url_request_path(url), PathSource::Url))
}

impl Webhooks {
    /// Reads, checks ([`crate::config::load`]) and compiles the configurations of a YAML
    /// or JSON text for the apiserver of `version`. Each webhook is served at the path its
    /// `clientConfig` makes the apiserver request (`service.path`, or the path of `url`)
    /// and at `/validate/<name>` or `/mutate/<name>`. Two webhooks of one kind with the
    /// same name, two webhooks served at one path, and a webhook at one of the server's
    /// own paths ([`RESERVED_PATHS`]) are refused.
    pub fn from_text(text: &str, version: KubeVersion) -> Result<Webhooks, ConfigError> {
        let loaded = crate::config::load(text, version)?;
        Webhooks::compile(&loaded.configurations, version)
    }

    /// Compiles checked configurations (see [`Webhooks::from_text`]).
    pub fn compile(
        configurations: &[Configuration],
        version: KubeVersion,
    ) -> Result<Webhooks, ConfigError> {
        let env = Environment::kubernetes(version);
        let match_condition_metrics = MatchConditionMetrics::new();
        let mut by_name: BTreeMap<(u8, String), (Webhook, Option<PathSource>)> = BTreeMap::new();
        for config in configurations {
            let config = config.defaulted();
            for spec in &config.webhooks {
                let failure_policy = spec
                    .failure_policy
                    .as_deref()
                    .and_then(|p| p.parse::<FailurePolicy>().ok())
                    .unwrap_or_default();
                let conditions: Vec<MatchCondition> = spec
                    .match_conditions
                    .iter()
                    .map(|c| MatchCondition::new(c.name.clone(), c.expression.clone()))
                    .collect();
                let conditions = MatchConditions::compile(&env, &conditions)
                    .map_err(|e| ConfigError(format!("webhook {:?}: {e}", spec.name)))?;
                let mut hook = Webhook {
                    name: spec.name.clone(),
                    configuration: config.name().to_owned(),
                    kind: config.hook_kind(),
                    failure_policy,
                    configured_path: None,
                    conditions,
                    metrics: match_condition_metrics.webhook(&spec.name, config.hook_kind()),
                };
                let mut source = None;
                if let Some((path, from)) = configured_path(spec) {
                    if path != hook.path() {
                        hook.configured_path = Some(path);
                        source = Some(from);
                    }
                }
                let key = (kind_key(hook.kind), hook.name.clone());
                if let Some((first, _)) = by_name.get(&key) {
                    return Err(ConfigError(format!(
                        "{} webhook {:?} is defined twice (configurations {:?} and {:?}); the server routes by webhook name",
                        kind_word(hook.kind),
                        hook.name,
                        first.configuration,
                        hook.configuration
                    )));
                }
                by_name.insert(key, (hook, source));
            }
        }
        let mut hooks = Vec::with_capacity(by_name.len());
        let mut claims: BTreeMap<String, Vec<(usize, PathSource)>> = BTreeMap::new();
        for (index, (hook, source)) in by_name.into_values().enumerate() {
            if let (Some(path), Some(source)) = (&hook.configured_path, source) {
                claims
                    .entry(path.clone())
                    .or_default()
                    .push((index, source));
            }
            claims
                .entry(hook.path())
                .or_default()
                .push((index, PathSource::Default));
            hooks.push(hook);
        }
        let describe = |(index, source): (usize, PathSource)| {
            hooks.get(index).map_or_else(String::new, |h: &Webhook| {
                format!(
                    "{} webhook {:?} ({})",
                    kind_word(h.kind),
                    h.name,
                    source.describe(h.kind)
                )
            })
        };
        let mut problems = Vec::new();
        for (path, claimants) in &claims {
            if RESERVED_PATHS.contains(&path.as_str()) {
                for c in claimants {
                    problems.push(format!(
                        "path {path:?} of {} is one the server answers itself ({})",
                        describe(*c),
                        RESERVED_PATHS.join(", ")
                    ));
                }
            } else if claimants.len() > 1 {
                let names: Vec<String> = claimants.iter().map(|c| describe(*c)).collect();
                problems.push(format!(
                    "path {path:?} would serve several webhooks: {}",
                    names.join(" and ")
                ));
            }
        }
        if !problems.is_empty() {
            return Err(ConfigError(format!(
                "the server routes by path and cannot serve this configuration:\n{}",
                problems.join("\n")
            )));
        }
        let routes = claims
            .into_iter()
            .filter_map(|(path, c)| c.first().map(|(index, _)| (path, *index)))
            .collect();
        Ok(Webhooks {
            hooks,
            routes,
            authorizer: Arc::new(StaticAuthorizer::new(AuthzDecision::NoOpinion)),
            warnings: false,
            match_condition_metrics,
        })
    }

    /// The apiserver's matchConditions metrics of these webhooks (every decided review is
    /// recorded as the apiserver records it), to register where the metrics are served.
    pub fn match_condition_metrics(&self) -> &MatchConditionMetrics {
        &self.match_condition_metrics
    }

    /// Whether responses list every condition's outcome in `warnings` (off by default:
    /// `kubectl` shows warnings to the user who made the request).
    pub fn with_warnings(mut self, on: bool) -> Webhooks {
        self.warnings = on;
        self
    }

    /// The webhooks, mutating ones first, each kind by name; a webhook's position is its
    /// index.
    pub fn iter(&self) -> impl Iterator<Item = &Webhook> {
        self.hooks.iter()
    }

    /// The number of webhooks.
    pub fn len(&self) -> usize {
        self.hooks.len()
    }

    /// Whether there are no webhooks (never, once loaded).
    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    /// The webhook at an index.
    pub fn webhook(&self, index: usize) -> Option<&Webhook> {
        self.hooks.get(index)
    }

    /// The webhook of a kind with a name.
    pub fn get(&self, kind: HookKind, name: &str) -> Option<&Webhook> {
        self.hooks.iter().find(|h| h.kind == kind && h.name == name)
    }

    /// The index of the webhook served at a request path (percent-escapes decoded, see
    /// [`paths::decoded`]).
    pub fn route(&self, path: &str) -> Option<usize> {
        self.routes.get(path).copied()
    }

    /// Every served path, sorted.
    pub fn served_paths(&self) -> Vec<&str> {
        let mut paths: Vec<&str> = self.routes.keys().map(String::as_str).collect();
        paths.sort_unstable();
        paths
    }

    /// Answers one AdmissionReview (the HTTP body) for the webhook at `index`.
    pub fn review(&self, index: usize, body: &[u8]) -> Result<Answer, ReviewError> {
        let hook = self
            .hooks
            .get(index)
            .ok_or_else(|| ReviewError::Malformed(format!("no webhook {index}")))?;
        check_envelope(body)?;
        let request = hook.conditions.read_review(body).map_err(|e| match e {
            matchcond::ReviewError::Json(e) => ReviewError::Malformed(format!("invalid JSON: {e}")),
            _ => ReviewError::Malformed("no \"request\" object".into()),
        })?;
        let uid = match request.get("uid") {
            Some(Json::String(s)) if !s.is_empty() => s.clone(),
            _ => {
                return Err(ReviewError::Malformed(
                    "request.uid must be a non-empty string".into(),
                ))
            }
        };
        let attributes = Attributes::from_request(&request)
            .map_err(|e| ReviewError::Malformed(e.to_string()))?;
        let started = Instant::now();
        let mut activation = Activation::from_request(&request);
        if hook.conditions.uses_authorizer() {
            activation = activation.with_authorizer(self.authorizer.clone());
        }
        let report = hook.conditions.explain(&activation, hook.failure_policy);
        let evaluation = started.elapsed();
        hook.metrics
            .observe_report(&attributes.operation, &report, evaluation);
        let (outcome, message, review) = response(hook, &uid, &attributes, &report, self.warnings);
        let body = serde_json::to_vec(&review)
            .map_err(|e| ReviewError::Malformed(format!("cannot write the response: {e}")))?;
        Ok(Answer {
            body,
            uid,
            operation: Operation::parse(&attributes.operation),
            outcome,
            message,
            evaluation,
        })
    }
}

fn kind_key(kind: HookKind) -> u8 {
    match kind {
        HookKind::Mutating => 0,
        HookKind::Validating => 1,
    }
}

/// Why a body could not be answered with an AdmissionReview.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReviewError {
    /// The body is not a usable `admission.k8s.io/v1` AdmissionReview request (HTTP 400).
    #[error("malformed AdmissionReview: {0}")]
    Malformed(String),
}

/// The members of an AdmissionReview checked before its request is read: `apiVersion`,
/// `kind` and the shape of `request` (the rest of the body is scanned, not built).
enum Envelope {
    Object {
        api_version: Option<Json>,
        kind: Option<Json>,
        request_is_object: bool,
    },
    NotObject,
}

/// Whether a JSON value is an object (scanned, not built).
struct IsObject(bool);

struct ShapeVisitor;

macro_rules! not_an_object {
    ($($method:ident: $t:ty),*) => {
        $(fn $method<E: serde::de::Error>(self, _: $t) -> Result<bool, E> { Ok(false) })*
    };
}

impl<'de> Visitor<'de> for ShapeVisitor {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(true)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(false)
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<bool, E> {
        Ok(false)
    }
    not_an_object!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64, visit_str: &str);
}

impl<'de> Deserialize<'de> for IsObject {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<IsObject, D::Error> {
        d.deserialize_any(ShapeVisitor).map(IsObject)
    }
}

struct EnvelopeVisitor;

impl<'de> Visitor<'de> for EnvelopeVisitor {
    type Value = Envelope;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an AdmissionReview")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Envelope, A::Error> {
        let (mut api_version, mut kind, mut request_is_object) = (None, None, false);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "apiVersion" => api_version = Some(map.next_value::<Json>()?),
                "kind" => kind = Some(map.next_value::<Json>()?),
                "request" => request_is_object = map.next_value::<IsObject>()?.0,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Envelope::Object {
            api_version,
            kind,
            request_is_object,
        })
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Envelope, A::Error> {
        ShapeVisitor.visit_seq(seq).map(|_| Envelope::NotObject)
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Envelope, E> {
        Ok(Envelope::NotObject)
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Envelope, E> {
        Ok(Envelope::NotObject)
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Envelope, E> {
        Ok(Envelope::NotObject)
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Envelope, E> {
        Ok(Envelope::NotObject)
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Envelope, E> {
        Ok(Envelope::NotObject)
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Envelope, E> {
        Ok(Envelope::NotObject)
    }
}

fn describe(value: Option<&Json>) -> String {
    match value {
        None => "none".to_owned(),
        Some(v) => v.to_string(),
    }
}

/// Checks that the body is one JSON object with the AdmissionReview `apiVersion` and
/// `kind` and a `request` object, scanning it without building it.
fn check_envelope(body: &[u8]) -> Result<(), ReviewError> {
    let bad = ReviewError::Malformed;
    let mut de = serde_json::Deserializer::from_slice(body);
    let envelope = de
        .deserialize_any(EnvelopeVisitor)
        .and_then(|e| de.end().map(|()| e))
        .map_err(|e| bad(format!("invalid JSON: {e}")))?;
    let Envelope::Object {
        api_version,
        kind,
        request_is_object,
    } = envelope
    else {
        return Err(bad("the body must be a JSON object".into()));
    };
    if api_version.as_ref().and_then(Json::as_str) != Some(ADMISSION_API_VERSION)
        || kind.as_ref().and_then(Json::as_str) != Some("AdmissionReview")
    {
        return Err(bad(format!(
            "expected apiVersion \"{ADMISSION_API_VERSION}\" and kind \"AdmissionReview\", got apiVersion {} and kind {}",
            describe(api_version.as_ref()),
            describe(kind.as_ref())
        )));
    }
    if !request_is_object {
        return Err(bad("no \"request\" object".into()));
    }
    Ok(())
}

fn outcome_word(outcome: &ConditionOutcome) -> &'static str {
    match outcome {
        ConditionOutcome::Value(true) => "true",
        ConditionOutcome::Value(false) => "false",
        ConditionOutcome::Error(_) => "error",
        ConditionOutcome::NotEvaluated => "not evaluated",
        _ => "unknown",
    }
}

fn response(
    hook: &Webhook,
    uid: &str,
    attributes: &Attributes,
    report: &Report,
    warnings: bool,
) -> (Outcome, String, Json) {
    let count = report.conditions.len();
    let (allowed, outcome, message, status) = match &report.decision {
        Decision::Call => {
            let why = match count {
                0 => "it has no matchConditions".to_owned(),
                1 => "its only matchCondition is true".to_owned(),
                n => format!("all {n} of its matchConditions are true"),
            };
            let message = format!("webhook {:?} is called: {why}", hook.name);
            let status = json!({"status": "Success", "code": 200, "message": message});
            (true, Outcome::Call, message, status)
        }
        Decision::Skip(skip) => {
            let why = match skip {
                Skip::Ignored(e) => format!(
                    "its matchConditions failed and its failurePolicy is Ignore: {}",
                    e.message()
                ),
                other => other.to_string(),
            };
            let message = format!(
                "webhook {:?} is not called (the apiserver would skip it): {why}",
                hook.name
            );
            let status = json!({"status": "Success", "code": 200, "message": message});
            (true, Outcome::Skip, message, status)
        }
        Decision::Reject { message } => {
            let rejection = Rejection::forbidden(&attributes.resource, &attributes.name, message);
            let message = format!(
                "webhook {:?}: the apiserver rejects the request (failurePolicy Fail): {}",
                hook.name, rejection.message
            );
            let status = json!({"status": "Failure", "code": rejection.code, "reason": rejection.reason, "message": message});
            (false, Outcome::Reject, message, status)
        }
    };
    let mut response = Map::new();
    response.insert("uid".into(), json!(uid));
    response.insert("allowed".into(), json!(allowed));
    response.insert("status".into(), status);
    if warnings && count > 0 {
        let warnings: Vec<String> = report
            .conditions
            .iter()
            .map(|c| {
                format!(
                    "matchCondition {:?}: {}",
                    &*c.name,
                    outcome_word(&c.outcome)
                )
            })
            .collect();
        response.insert("warnings".into(), json!(warnings));
    }
    response.insert(
        "auditAnnotations".into(),
        json!({ DECISION_ANNOTATION: outcome.as_str() }),
    );
    let review = json!({
        "apiVersion": ADMISSION_API_VERSION,
        "kind": "AdmissionReview",
        "response": Json::Object(response),
    });
    (outcome, message, review)
}
