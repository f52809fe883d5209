//! The webhooks the server answers for, compiled once, and the answer to one
//! AdmissionReview.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use matchcond::dispatch::load::{load_text, Severity};
use matchcond::dispatch::{Attributes, Configuration, HookKind, Rejection, Validator};
use matchcond::eval::aggregate_messages;
use matchcond::runtime::authz::{AuthzDecision, StaticAuthorizer};
use matchcond::{
    Activation, ConditionOutcome, Decision, Environment, FailurePolicy, KubeVersion,
    MatchCondition, MatchConditions, Report,
};
use serde_json::{json, Map, Value as Json};

/// The only AdmissionReview version the server reads and answers.
pub const ADMISSION_API_VERSION: &str = "admission.k8s.io/v1";

/// The audit annotation key under which the decision is reported.
pub const DECISION_ANNOTATION: &str = "matchcond-decision";

/// Why the webhook configuration cannot be served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

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
    conditions: MatchConditions,
}

impl fmt::Debug for Webhook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Webhook")
            .field("name", &self.name)
            .field("configuration", &self.configuration)
            .field("kind", &self.kind)
            .field("failure_policy", &self.failure_policy)
            .field("conditions", &self.conditions)
            .finish()
    }
}

impl Webhook {
    /// The number of matchConditions.
    pub fn condition_count(&self) -> usize {
        self.conditions.len()
    }

    /// The path the webhook is served at: `/validate/<name>` or `/mutate/<name>`.
    pub fn path(&self) -> String {
        format!("/{}/{}", route_word(self.kind), self.name)
    }
}

/// The first path segment of a kind's routes.
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

/// The webhooks of the loaded configurations, by kind and name.
pub struct Webhooks {
    hooks: BTreeMap<(u8, String), Webhook>,
    authorizer: Arc<StaticAuthorizer>,
}

impl fmt::Debug for Webhooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.hooks.values()).finish()
    }
}

fn kind_key(kind: HookKind) -> u8 {
    match kind {
        HookKind::Mutating => 0,
        HookKind::Validating => 1,
    }
}

impl Webhooks {
    /// Reads the configurations of a YAML or JSON text (one or more documents of
    /// `ValidatingWebhookConfiguration` / `MutatingWebhookConfiguration`, or `List`s of
    /// them), validates them as the apiserver does on create for the version, and compiles
    /// every webhook's matchConditions once. Two webhooks of one kind with the same name
    /// are refused: the server routes by name.
    pub fn from_text(text: &str, version: KubeVersion) -> Result<Webhooks, ConfigError> {
        // Strict loading, as kubectl's field validation: unknown, duplicate or mistyped
        // fields are refused with their line and column; other kinds are skipped.
        let loaded = load_text(text);
        let errors: Vec<String> = loaded
            .diagnostics()
            .into_iter()
            .filter(|d| d.severity() == Severity::Error)
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
        let env = Environment::kubernetes(version);
        let mut hooks: BTreeMap<(u8, String), Webhook> = BTreeMap::new();
        for config in &configurations {
            let config = config.defaulted();
            for spec in &config.webhooks {
                let failure_policy = spec
                    .failure_policy
                    .as_deref()
                    .and_then(FailurePolicy::parse)
                    .unwrap_or_default();
                let conditions: Vec<MatchCondition> = spec
                    .match_conditions
                    .iter()
                    .map(|c| MatchCondition::new(c.name.clone(), c.expression.clone()))
                    .collect();
                let conditions = MatchConditions::compile(&env, &conditions)
                    .map_err(|e| ConfigError(format!("webhook {:?}: {e}", spec.name)))?;
                let hook = Webhook {
                    name: spec.name.clone(),
                    configuration: config.name().to_owned(),
                    kind: config.hook_kind(),
                    failure_policy,
                    conditions,
                };
                let key = (kind_key(hook.kind), hook.name.clone());
                if let Some(first) = hooks.get(&key) {
                    return Err(ConfigError(format!(
                        "{} webhook {:?} is defined twice (configurations {:?} and {:?}); the server routes by webhook name",
                        kind_word(hook.kind),
                        hook.name,
                        first.configuration,
                        hook.configuration
                    )));
                }
                hooks.insert(key, hook);
            }
        }
        Ok(Webhooks {
            hooks,
            authorizer: Arc::new(StaticAuthorizer::new(AuthzDecision::NoOpinion)),
        })
    }

    /// The webhooks, mutating ones first, each kind by name.
    pub fn iter(&self) -> impl Iterator<Item = &Webhook> {
        self.hooks.values()
    }

    /// The webhook of a kind with a name.
    pub fn get(&self, kind: HookKind, name: &str) -> Option<&Webhook> {
        self.hooks.get(&(kind_key(kind), name.to_owned()))
    }

    /// Answers one AdmissionReview (the HTTP body) for the webhook of `kind` named `name`.
    pub fn review(&self, kind: HookKind, name: &str, body: &[u8]) -> Result<Json, ReviewError> {
        let Some(hook) = self.get(kind, name) else {
            let known: Vec<&str> = self
                .hooks
                .values()
                .filter(|h| h.kind == kind)
                .map(|h| h.name.as_str())
                .collect();
            return Err(ReviewError::UnknownWebhook(format!(
                "no {} webhook named {name:?} (known: {})",
                kind_word(kind),
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            )));
        };
        let review = read_review(body)?;
        let request = review.request();
        let attributes =
            Attributes::from_request(request).map_err(|e| ReviewError::Malformed(e.to_string()))?;
        let activation = Activation::from_request(request).with_authorizer(self.authorizer.clone());
        let report = hook.conditions.explain(&activation, hook.failure_policy);
        Ok(response(hook, &review.uid, &attributes, &report))
    }
}

/// Why a body could not be answered with an AdmissionReview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReviewError {
    /// No webhook of that kind and name (HTTP 404).
    UnknownWebhook(String),
    /// The body is not a usable `admission.k8s.io/v1` AdmissionReview request (HTTP 400).
    Malformed(String),
}

impl fmt::Display for ReviewError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReviewError::UnknownWebhook(m) => f.write_str(m),
            ReviewError::Malformed(m) => write!(f, "malformed AdmissionReview: {m}"),
        }
    }
}

impl std::error::Error for ReviewError {}

struct Review {
    body: Map<String, Json>,
    uid: String,
}

impl Review {
    fn request(&self) -> &Json {
        self.body.get("request").unwrap_or(&Json::Null)
    }
}

fn describe(value: Option<&Json>) -> String {
    match value {
        None => "none".to_owned(),
        Some(v) => v.to_string(),
    }
}

fn read_review(body: &[u8]) -> Result<Review, ReviewError> {
    let bad = |m: String| ReviewError::Malformed(m);
    let value: Json =
        serde_json::from_slice(body).map_err(|e| bad(format!("invalid JSON: {e}")))?;
    let Json::Object(body) = value else {
        return Err(bad("the body must be a JSON object".into()));
    };
    let api_version = body.get("apiVersion");
    let kind = body.get("kind");
    if api_version.and_then(Json::as_str) != Some(ADMISSION_API_VERSION)
        || kind.and_then(Json::as_str) != Some("AdmissionReview")
    {
        return Err(bad(format!(
            "expected apiVersion \"{ADMISSION_API_VERSION}\" and kind \"AdmissionReview\", got apiVersion {} and kind {}",
            describe(api_version),
            describe(kind)
        )));
    }
    let Some(Json::Object(request)) = body.get("request") else {
        return Err(bad("no \"request\" object".into()));
    };
    let uid = match request.get("uid") {
        Some(Json::String(s)) if !s.is_empty() => s.clone(),
        _ => return Err(bad("request.uid must be a non-empty string".into())),
    };
    Ok(Review { body, uid })
}

fn outcome_word(outcome: &ConditionOutcome) -> &'static str {
    match outcome {
        ConditionOutcome::Value(true) => "true",
        ConditionOutcome::Value(false) => "false",
        ConditionOutcome::Error(_) => "error",
        ConditionOutcome::NotEvaluated => "not evaluated",
    }
}

/// The errors of a report, aggregated as the apiserver aggregates them.
fn report_errors(report: &Report) -> String {
    let mut errors: Vec<String> = report
        .conditions
        .iter()
        .filter_map(|c| match &c.outcome {
            ConditionOutcome::Error(e) => Some(e.clone()),
            _ => None,
        })
        .collect();
    if let Some(e) = &report.evaluation_error {
        errors.push(e.clone());
    }
    aggregate_messages(&errors)
}

fn response(hook: &Webhook, uid: &str, attributes: &Attributes, report: &Report) -> Json {
    let count = report.conditions.len();
    let (allowed, decision, status) = match &report.decision {
        Decision::Call => {
            let why = match count {
                0 => "it has no matchConditions".to_owned(),
                1 => "its only matchCondition is true".to_owned(),
                n => format!("all {n} of its matchConditions are true"),
            };
            let message = format!("webhook {:?} is called: {why}", hook.name);
            (
                true,
                "call",
                json!({"status": "Success", "code": 200, "message": message}),
            )
        }
        Decision::Skip { condition } => {
            let why = match condition {
                Some(c) => format!("matchCondition {c:?} is false"),
                None => format!(
                    "its matchConditions failed and its failurePolicy is Ignore: {}",
                    report_errors(report)
                ),
            };
            let message = format!(
                "webhook {:?} is not called (the apiserver would skip it): {why}",
                hook.name
            );
            (
                true,
                "skip",
                json!({"status": "Success", "code": 200, "message": message}),
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
                "reject",
                json!({"status": "Failure", "code": rejection.code, "reason": rejection.reason, "message": message}),
            )
        }
    };
    let mut response = Map::new();
    response.insert("uid".into(), json!(uid));
    response.insert("allowed".into(), json!(allowed));
    response.insert("status".into(), status);
    if count > 0 {
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
        json!({ DECISION_ANNOTATION: decision }),
    );
    json!({
        "apiVersion": ADMISSION_API_VERSION,
        "kind": "AdmissionReview",
        "response": Json::Object(response),
    })
}
