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
    MatchCondition, MatchConditions, Skip,
};
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value as Json;

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
    /// The status message of a call (the same for every request: written once).
    called: Arc<str>,
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
    pub message: Message,
    /// How long the conditions took to evaluate (binding the request included).
    pub evaluation: Duration,
}

/// The status message of a response (`Deref` to `str`, `Display`): a call's, the same for
/// every request and shared, or one written for the request (a skip's reason, a
/// rejection's text) and kept as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// The webhook's call message, written once.
    Shared(Arc<str>),
    /// A message written for this request.
    Written(String),
}

impl std::ops::Deref for Message {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            Message::Shared(s) => s,
            Message::Written(s) => s,
        }
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
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
                let called = called_message(&spec.name, conditions.len());
                let mut hook = Webhook {
                    called,
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
        let request = read_request(&hook.conditions, body)?;
        let uid = match request.get("uid") {
            Some(Json::String(s)) if !s.is_empty() => s.as_str(),
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
        let mut body = Vec::with_capacity(RESPONSE_CAPACITY);
        let (outcome, message, evaluation) = if self.warnings && !hook.conditions.is_empty() {
            // Every condition's outcome is listed: explain, and count what is explained.
            let report = hook.conditions.explain(&activation, hook.failure_policy);
            let evaluation = started.elapsed();
            hook.metrics
                .observe_report(&attributes.operation, &report, evaluation);
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
            let (outcome, message) = respond(
                &mut body,
                hook,
                uid,
                &attributes,
                &report.decision,
                &warnings,
            );
            (outcome, message, evaluation)
        } else {
            // Decided and counted as the apiserver counts, without an explanation.
            let decision = hook.metrics.decide(
                &hook.conditions,
                &activation,
                hook.failure_policy,
                &attributes.operation,
            );
            let evaluation = started.elapsed();
            let (outcome, message) = respond(&mut body, hook, uid, &attributes, &decision, &[]);
            (outcome, message, evaluation)
        };
        Ok(Answer {
            body,
            uid: uid.to_owned(),
            operation: Operation::parse(&attributes.operation),
            outcome,
            message,
            evaluation,
        })
    }
}

/// Room for a response without warnings (they are some 350 bytes).
const RESPONSE_CAPACITY: usize = 512;

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

/// The members of an AdmissionReview checked when [`read_request`]'s one pass fails, for
/// the complaint: `apiVersion`, `kind` and the shape of `request` (the rest of the body is
/// scanned, not built).
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

/// Reads the `request` of an AdmissionReview, checking (as [`check_envelope`] does) that
/// the body is one JSON object with the AdmissionReview `apiVersion` and `kind` and a
/// `request` object, in one pass over the bytes. A body that pass cannot read gets the
/// complaint of the envelope's check, or else of the request's reading.
fn read_request(conditions: &MatchConditions, body: &[u8]) -> Result<Json, ReviewError> {
    let bad = ReviewError::Malformed;
    let Ok(Json::Object(mut review)) = conditions.read_review_envelope(body) else {
        check_envelope(body)?;
        return match conditions.read_review(body) {
            Err(matchcond::ReviewError::Json(e)) => Err(bad(format!("invalid JSON: {e}"))),
            _ => Err(bad("no \"request\" object".into())),
        };
    };
    let (api_version, kind) = (review.get("apiVersion"), review.get("kind"));
    if api_version.and_then(Json::as_str) != Some(ADMISSION_API_VERSION)
        || kind.and_then(Json::as_str) != Some("AdmissionReview")
    {
        return Err(bad(format!(
            "expected apiVersion \"{ADMISSION_API_VERSION}\" and kind \"AdmissionReview\", got apiVersion {} and kind {}",
            describe(api_version),
            describe(kind)
        )));
    }
    match review.remove("request") {
        Some(request @ Json::Object(_)) => Ok(request),
        _ => Err(bad("no \"request\" object".into())),
    }
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

/// The `status` of a response.
struct Status<'a> {
    code: u16,
    message: &'a str,
    reason: Option<&'a str>,
    status: &'static str,
}

/// Writes a JSON string (serde_json's escaping).
fn write_str(out: &mut Vec<u8>, text: &str) {
    // Writing a string into a Vec cannot fail.
    serde_json::to_writer(&mut *out, text).ok();
}

/// Writes the response AdmissionReview: the bytes serde_json writes for it as a JSON value
/// (members in key order, no spaces), without building the value.
fn write_response(
    out: &mut Vec<u8>,
    uid: &str,
    allowed: bool,
    status: &Status<'_>,
    warnings: &[String],
    outcome: Outcome,
) {
    out.extend_from_slice(b"{\"apiVersion\":");
    write_str(out, ADMISSION_API_VERSION);
    out.extend_from_slice(b",\"kind\":\"AdmissionReview\",\"response\":{\"allowed\":");
    out.extend_from_slice(if allowed { b"true" } else { b"false" });
    out.extend_from_slice(b",\"auditAnnotations\":{");
    write_str(out, DECISION_ANNOTATION);
    out.push(b':');
    write_str(out, outcome.as_str());
    out.extend_from_slice(b"},\"status\":{\"code\":");
    out.extend_from_slice(status.code.to_string().as_bytes());
    out.extend_from_slice(b",\"message\":");
    write_str(out, status.message);
    if let Some(reason) = status.reason {
        out.extend_from_slice(b",\"reason\":");
        write_str(out, reason);
    }
    out.extend_from_slice(b",\"status\":");
    write_str(out, status.status);
    out.extend_from_slice(b"},\"uid\":");
    write_str(out, uid);
    if !warnings.is_empty() {
        out.extend_from_slice(b",\"warnings\":[");
        for (i, w) in warnings.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_str(out, w);
        }
        out.push(b']');
    }
    out.extend_from_slice(b"}}");
}

/// The status message of a call of the webhook `name` with `conditions` matchConditions.
fn called_message(name: &str, conditions: usize) -> Arc<str> {
    let why = match conditions {
        0 => "it has no matchConditions".to_owned(),
        1 => "its only matchCondition is true".to_owned(),
        n => format!("all {n} of its matchConditions are true"),
    };
    format!("webhook {name:?} is called: {why}").into()
}

/// Writes the response to a decision into `out`; gives the outcome and the status message.
fn respond(
    out: &mut Vec<u8>,
    hook: &Webhook,
    uid: &str,
    attributes: &Attributes,
    decision: &Decision<'_>,
    warnings: &[String],
) -> (Outcome, Message) {
    let (allowed, outcome, message, code, reason, status) = match decision {
        Decision::Call => (
            true,
            Outcome::Call,
            Message::Shared(hook.called.clone()),
            200,
            None,
            "Success",
        ),
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
            (
                true,
                Outcome::Skip,
                Message::Written(message),
                200,
                None,
                "Success",
            )
        }
        Decision::Reject { message } => {
            let rejection = Rejection::forbidden(&attributes.resource, &attributes.name, message);
            let message = format!(
                "webhook {:?}: the apiserver rejects the request (failurePolicy Fail): {}",
                hook.name, rejection.message
            );
            (
                false,
                Outcome::Reject,
                Message::Written(message),
                rejection.code,
                Some(rejection.reason),
                "Failure",
            )
        }
    };
    let status = Status {
        code,
        message: &message,
        reason,
        status,
    };
    write_response(out, uid, allowed, &status, warnings, outcome);
    (outcome, message)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    const CONFIG: &str = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: answers}
webhooks:
- name: none.example.com
  clientConfig: {url: "https://example.com/none"}
  sideEffects: None
  admissionReviewVersions: [v1]
- name: one.example.com
  clientConfig: {url: "https://example.com/one"}
  sideEffects: None
  admissionReviewVersions: [v1]
  matchConditions:
  - {name: web, expression: "request.name == 'web-0'"}
- name: three.example.com
  clientConfig: {url: "https://example.com/three"}
  sideEffects: None
  admissionReviewVersions: [v1]
  matchConditions:
  - {name: a, expression: "true"}
  - {name: b, expression: "request.namespace == 'shop'"}
  - {name: c, expression: "request.name.startsWith('web')"}
- name: false.example.com
  clientConfig: {url: "https://example.com/false"}
  sideEffects: None
  admissionReviewVersions: [v1]
  matchConditions:
  - {name: other.name, expression: "request.name == 'other'"}
  - {name: later, expression: "object.spec.missing == 1"}
- name: ignore.example.com
  clientConfig: {url: "https://example.com/ignore"}
  failurePolicy: Ignore
  sideEffects: None
  admissionReviewVersions: [v1]
  matchConditions:
  - {name: missing, expression: "object.spec.missing == 1"}
- name: reject.example.com
  clientConfig: {url: "https://example.com/reject"}
  sideEffects: None
  admissionReviewVersions: [v1]
  matchConditions:
  - {name: web, expression: "request.name == 'web-0'"}
  - {name: missing, expression: "object.spec.missing == 1"}
"#;

    /// A review of a pod `web-0` in `shop`, with a uid that needs escapes.
    const REVIEW: &str = r#"{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
      "request": {"uid": "u\"1\\é\n\u0001", "operation": "CREATE", "namespace": "shop", "name": "web-0",
        "kind": {"group": "", "version": "v1", "kind": "Pod"},
        "resource": {"group": "", "version": "v1", "resource": "pods"},
        "userInfo": {"username": "alice"},
        "object": {"metadata": {"name": "web-0"}, "spec": {}}}}"#;

    const UID: &str = r#""u\"1\\é\n\u0001""#;

    fn answer(warnings: bool, path: &str) -> Answer {
        let hooks = Webhooks::from_text(CONFIG, KubeVersion::LATEST)
            .unwrap()
            .with_warnings(warnings);
        hooks
            .review(hooks.route(path).unwrap(), REVIEW.as_bytes())
            .unwrap()
    }

    fn body(warnings: bool, path: &str) -> String {
        let body = String::from_utf8(answer(warnings, path).body).unwrap();
        // The bytes are those serde_json writes for the same value.
        let value: Json = serde_json::from_str(&body).unwrap();
        assert_eq!(serde_json::to_string(&value).unwrap(), body);
        body
    }

    fn expected(allowed: bool, decision: &str, status: &str, warnings: &str) -> String {
        format!(
            r#"{{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{{"allowed":{allowed},"auditAnnotations":{{"matchcond-decision":"{decision}"}},"status":{status},"uid":{UID}{warnings}}}}}"#
        )
    }

    #[test]
    fn calls_are_answered_with_exact_bodies() {
        for (path, why) in [
            ("/none", "it has no matchConditions"),
            ("/one", "its only matchCondition is true"),
            ("/three", "all 3 of its matchConditions are true"),
        ] {
            let name = format!("{}.example.com", &path[1..]);
            let status = format!(
                r#"{{"code":200,"message":"webhook \"{name}\" is called: {why}","status":"Success"}}"#
            );
            assert_eq!(body(false, path), expected(true, "call", &status, ""));
            let answer = answer(false, path);
            assert_eq!(answer.outcome, Outcome::Call);
            assert_eq!(answer.uid, "u\"1\\é\n\u{1}");
            assert_eq!(answer.operation, Operation::Create);
            assert_eq!(
                &*answer.message,
                format!("webhook {name:?} is called: {why}")
            );
        }
        // No conditions: no warnings, even when asked for.
        let status = r#"{"code":200,"message":"webhook \"none.example.com\" is called: it has no matchConditions","status":"Success"}"#;
        assert_eq!(body(true, "/none"), expected(true, "call", status, ""));
        let status = r#"{"code":200,"message":"webhook \"three.example.com\" is called: all 3 of its matchConditions are true","status":"Success"}"#;
        assert_eq!(
            body(true, "/three"),
            expected(
                true,
                "call",
                status,
                r#","warnings":["matchCondition \"a\": true","matchCondition \"b\": true","matchCondition \"c\": true"]"#
            )
        );
    }

    #[test]
    fn skips_are_answered_with_exact_bodies() {
        let status = r#"{"code":200,"message":"webhook \"false.example.com\" is not called (the apiserver would skip it): matchCondition \"other.name\" is false","status":"Success"}"#;
        assert_eq!(body(false, "/false"), expected(true, "skip", status, ""));
        assert_eq!(
            body(true, "/false"),
            expected(
                true,
                "skip",
                status,
                r#","warnings":["matchCondition \"other.name\": false","matchCondition \"later\": error"]"#
            )
        );
        let status = r#"{"code":200,"message":"webhook \"ignore.example.com\" is not called (the apiserver would skip it): its matchConditions failed and its failurePolicy is Ignore: expression 'object.spec.missing == 1' resulted in error: no such key: missing","status":"Success"}"#;
        assert_eq!(body(false, "/ignore"), expected(true, "skip", status, ""));
        assert_eq!(answer(false, "/ignore").outcome, Outcome::Skip);
    }

    #[test]
    fn rejections_are_answered_with_exact_bodies() {
        let message = r#"webhook \"reject.example.com\": the apiserver rejects the request (failurePolicy Fail): pods \"web-0\" is forbidden: expression 'object.spec.missing == 1' resulted in error: no such key: missing"#;
        let status = format!(
            r#"{{"code":403,"message":"{message}","reason":"Forbidden","status":"Failure"}}"#
        );
        assert_eq!(
            body(false, "/reject"),
            expected(false, "reject", &status, "")
        );
        assert_eq!(
            body(true, "/reject"),
            expected(
                false,
                "reject",
                &status,
                r#","warnings":["matchCondition \"web\": true","matchCondition \"missing\": error"]"#
            )
        );
        let answer = answer(false, "/reject");
        assert_eq!(answer.outcome, Outcome::Reject);
        assert_eq!(&*answer.message, message.replace("\\\"", "\""));
    }

    #[test]
    fn malformed_reviews_get_the_envelope_complaint_first() {
        let hooks = Webhooks::from_text(CONFIG, KubeVersion::LATEST).unwrap();
        let index = hooks.route("/one").unwrap();
        let complaint = |body: &str| match hooks.review(index, body.as_bytes()) {
            Err(ReviewError::Malformed(m)) => m,
            Ok(_) => panic!("answered {body}"),
        };
        for (body, message) in [
            ("[1]", "the body must be a JSON object"),
            ("\"x\"", "the body must be a JSON object"),
            ("{\"request\": {\"uid\": }", "invalid JSON: expected value at line 1 column 21"),
            ("{} x", "invalid JSON: trailing characters at line 1 column 4"),
            (
                r#"{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {}} x"#,
                "invalid JSON: trailing characters at line 1 column 81",
            ),
            (
                r#"{"apiVersion": "v1", "kind": 3, "request": 5}"#,
                "expected apiVersion \"admission.k8s.io/v1\" and kind \"AdmissionReview\", got apiVersion \"v1\" and kind 3",
            ),
            (
                r#"{"kind": "AdmissionReview", "request": {}}"#,
                "expected apiVersion \"admission.k8s.io/v1\" and kind \"AdmissionReview\", got apiVersion none and kind \"AdmissionReview\"",
            ),
            (
                r#"{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": 5}"#,
                "no \"request\" object",
            ),
            (
                r#"{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": null}"#,
                "no \"request\" object",
            ),
            (
                r#"{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}"#,
                "no \"request\" object",
            ),
            (
                r#"{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": 5, "request": {}}"#,
                "invalid JSON: invalid type: integer `5`, expected an AdmissionRequest object at line 1 column 77",
            ),
            (
                r#"{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {}, "request": null}"#,
                "no \"request\" object",
            ),
            (
                r#"{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": ""}}"#,
                "request.uid must be a non-empty string",
            ),
        ] {
            assert_eq!(complaint(body), message, "{body}");
        }
    }
}
