//! The dispatcher: which webhooks of a set of configurations kube-apiserver calls for one
//! admission request, decided webhook by webhook as `(*Webhook).ShouldCallHook` does
//! (namespaceSelector, objectSelector, rules — exact, then equivalent — then
//! matchConditions), followed by the dry-run check made when a webhook is called.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use matchcond_compiler::{Environment, KubeVersion};
use matchcond_matcher::{Decision, FailurePolicy, MatchCondition, MatchConditions, Report, Skip};
use matchcond_runtime::activation::{request_fields, RequestView, SLOT_OBJECT, SLOT_OLD_OBJECT};
use matchcond_runtime::authz::Authorizer;
use matchcond_runtime::request_parts::Part;
use matchcond_runtime::request_schema::{is_empty, omitted_when_empty};
use matchcond_runtime::{Activation, Value};
use serde_json::{Map, Value as Json};

use crate::error::RequestError;
use crate::field::Wording;
use crate::namespaces::{Labels, NamespaceLister};
use crate::resources::{ResourceMapper, ResourceTable};
use crate::rules::{is_exempt_kind, rule_matches, RuleAttributes};
use crate::selector::{parse_selector, Selector};
use crate::types::{Configuration, Gvk, Gvr, HookKind, WebhookSpec};

/// A request as the dispatcher decides it: the same inputs as `WebhookConditions` —
/// an AdmissionRequest as JSON ([`Json`]), the bytes of an `admission.k8s.io/v1`
/// AdmissionReview as the apiserver sends it (`[u8]`, `Vec<u8>`; its `request` is read,
/// the rest only checked to be JSON), or kube-rs's request (`matchcond::kube::KubeRequest`,
/// feature `kube`).
///
/// ```
/// use matchcond::dispatch::{load_documents, Dispatcher, NoNamespaces};
/// use matchcond::KubeVersion;
///
/// let configs = load_documents(include_str!("../../../examples/webhooks.yaml")).unwrap();
/// let dispatcher = Dispatcher::new(&configs, KubeVersion::LATEST);
/// let bytes = include_bytes!("../../../examples/reviews/pod-create.json");
/// let from_bytes = dispatcher.dispatch(&bytes[..], &NoNamespaces).unwrap();
/// let review: serde_json::Value = serde_json::from_slice(bytes).unwrap();
/// let from_json = dispatcher.dispatch(&review["request"], &NoNamespaces).unwrap();
/// assert_eq!(from_bytes, from_json);
/// ```
pub trait AdmissionInput {
    /// The AdmissionRequest as JSON: borrowed when it is JSON already, read otherwise.
    fn admission_request(&self) -> Result<Cow<'_, Json>, RequestError>;
}

impl AdmissionInput for Json {
    fn admission_request(&self) -> Result<Cow<'_, Json>, RequestError> {
        Ok(Cow::Borrowed(self))
    }
}

impl AdmissionInput for [u8] {
    fn admission_request(&self) -> Result<Cow<'_, Json>, RequestError> {
        /// The one member of a review the dispatcher reads (the others are skipped).
        #[derive(serde::Deserialize)]
        struct Review {
            request: Option<Json>,
        }
        let review: Review = serde_json::from_slice(self).map_err(|e| RequestError::Review {
            message: e.to_string(),
        })?;
        match review.request {
            Some(r) => Ok(Cow::Owned(r)),
            None => Err(RequestError::Review {
                message: "no request".to_owned(),
            }),
        }
    }
}

impl AdmissionInput for Vec<u8> {
    fn admission_request(&self) -> Result<Cow<'_, Json>, RequestError> {
        self.as_slice().admission_request()
    }
}

/// The attributes of an admission request that dispatch looks at.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attributes {
    /// The kind of the request's object.
    pub kind: Gvk,
    /// The resource requested.
    pub resource: Gvr,
    /// The subresource requested (`""` for the main resource).
    pub subresource: String,
    /// The object's name (`""` when unknown, e.g. CREATE with generateName).
    pub name: String,
    /// The namespace (`""` for cluster-scoped objects; the namespace's own name for a
    /// Namespace).
    pub namespace: String,
    /// `CREATE`, `UPDATE`, `DELETE` or `CONNECT`.
    pub operation: String,
    /// Whether the request is a dry run.
    pub dry_run: bool,
}

/// A string member of a request (`""` when absent or null); `path` names it in the error
/// (formatted only then).
fn str_field<'a>(
    m: &'a Map<String, Json>,
    key: &str,
    path: impl FnOnce() -> String,
) -> Result<&'a str, RequestError> {
    match m.get(key) {
        None | Some(Json::Null) => Ok(""),
        Some(Json::String(s)) => Ok(s),
        Some(_) => Err(RequestError::WrongType {
            field: path(),
            expected: "a string",
        }),
    }
}

fn string_field(m: &Map<String, Json>, key: &str) -> Result<String, RequestError> {
    str_field(m, key, || key.to_owned()).map(str::to_owned)
}

/// A group, version and `last` of a request member (`kind`, `resource`, …); `None` when
/// absent or null.
fn triple<'a>(
    m: &'a Map<String, Json>,
    key: &str,
    last: &str,
) -> Result<Option<[&'a str; 3]>, RequestError> {
    match m.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::Object(o)) => Ok(Some([
            str_field(o, "group", || format!("{key}.group"))?,
            str_field(o, "version", || format!("{key}.version"))?,
            str_field(o, last, || format!("{key}.{last}"))?,
        ])),
        Some(_) => Err(RequestError::WrongType {
            field: key.to_owned(),
            expected: "an object",
        }),
    }
}

impl Attributes {
    /// Reads the attributes of an AdmissionRequest (the `request` of an AdmissionReview).
    /// The original request's kind, resource and subresource are `requestKind`,
    /// `requestResource` and `requestSubResource` when `requestResource` is given (as in
    /// a request sent to a webhook), else `kind`, `resource` and `subResource`.
    pub fn from_request(request: &Json) -> Result<Attributes, RequestError> {
        let Json::Object(m) = request else {
            return Err(RequestError::NotAnObject);
        };
        let (resource, subresource) = match triple(m, "requestResource", "resource")? {
            Some(r) => (r, string_field(m, "requestSubResource")?),
            None => (
                triple(m, "resource", "resource")?.unwrap_or_default(),
                string_field(m, "subResource")?,
            ),
        };
        let kind = match triple(m, "requestKind", "kind")? {
            Some(k) => k,
            None => triple(m, "kind", "kind")?.unwrap_or_default(),
        };
        let dry_run = match m.get("dryRun") {
            None | Some(Json::Null) => false,
            Some(Json::Bool(b)) => *b,
            Some(_) => {
                return Err(RequestError::WrongType {
                    field: "dryRun".to_owned(),
                    expected: "a boolean",
                })
            }
        };
        Ok(Attributes {
            kind: Gvk::new(kind[0], kind[1], kind[2]),
            resource: Gvr::new(resource[0], resource[1], resource[2]),
            subresource,
            name: string_field(m, "name")?,
            namespace: string_field(m, "namespace")?,
            operation: string_field(m, "operation")?,
            dry_run,
        })
    }
}

/// How a webhook is called: the (possibly equivalent) resource and kind sent to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    /// The resource (the request's, or the equivalent one a rule matched).
    pub resource: Gvr,
    /// The subresource.
    pub subresource: String,
    /// The kind the objects are converted to.
    pub kind: Gvk,
}

/// An error that fails the whole admission request (an apiserver `StatusError`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Rejection {
    /// The HTTP status code.
    pub code: u16,
    /// The status reason (`Forbidden`, `InternalError`, `NotFound`, `BadRequest`).
    pub reason: &'static str,
    /// The message.
    pub message: String,
}

impl Rejection {
    /// `NewForbidden(groupResource, name, err)`.
    pub fn forbidden(resource: &Gvr, name: &str, err: &str) -> Rejection {
        let gr = resource.group_resource();
        let message = if gr.is_empty() {
            format!("forbidden: {err}")
        } else if name.is_empty() {
            format!("{gr} is forbidden: {err}")
        } else {
            format!(
                "{gr} {} is forbidden: {err}",
                matchcond_gocompat::strconv::quote(name)
            )
        };
        Rejection {
            code: 403,
            reason: "Forbidden",
            message,
        }
    }

    /// `NewInternalError(err)`.
    pub fn internal(err: &str) -> Rejection {
        Rejection {
            code: 500,
            reason: "InternalError",
            message: format!("Internal error occurred: {err}"),
        }
    }

    /// `NewNotFound(namespaces, name)`.
    pub fn namespace_not_found(name: &str) -> Rejection {
        Rejection {
            code: 404,
            reason: "NotFound",
            message: format!(
                "namespaces {} not found",
                matchcond_gocompat::strconv::quote(name)
            ),
        }
    }

    /// `NewBadRequest(reason)`.
    pub fn bad_request(reason: &str) -> Rejection {
        Rejection {
            code: 400,
            reason: "BadRequest",
            message: reason.to_owned(),
        }
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// One webhook's decision with what led to it: the [`Decision`] — the same verdict as
/// [`MatchConditions::decide`]'s, with the [`Skip`] reason of the check that skipped it
/// (the selectors, the rules, a condition, an ignored error) — and, when it is called,
/// its [`Invocation`], when it is rejected, the apiserver's [`Rejection`] (whose message is
/// the decision's).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct HookOutcome {
    /// The webhook's identity.
    pub hook: HookInfo,
    /// The decision.
    pub decision: Decision<'static>,
    /// The matchConditions evaluation, when the conditions were evaluated.
    pub conditions: Option<Report<'static>>,
    /// When the conditions were evaluated for a webhook matched through an equivalent
    /// resource of another version (`matchPolicy: Equivalent`), the kind it is invoked
    /// with. The apiserver converts `object` and `oldObject` to that kind before it
    /// evaluates them; they were evaluated on the objects as given.
    pub converted_to: Option<Gvk>,
    /// Kept with the decision: the invocation of a `Call`, the status of a `Reject`.
    detail: Detail,
}

impl HookOutcome {
    fn new(
        hook: HookInfo,
        detail: Detail,
        conditions: Option<Report<'static>>,
        converted_to: Option<Gvk>,
    ) -> Self {
        let decision = match &detail {
            Detail::Call(_) => Decision::Call,
            Detail::Skip(s) => Decision::Skip(s.clone()),
            Detail::Reject(r) => Decision::Reject {
                message: r.message.as_str().into(),
            },
        };
        HookOutcome {
            hook,
            decision,
            conditions,
            converted_to,
            detail,
        }
    }

    /// How the webhook is called: `Some` exactly when the decision is `Call`.
    pub fn invocation(&self) -> Option<&Invocation> {
        match &self.detail {
            Detail::Call(i) => Some(i),
            _ => None,
        }
    }

    /// The error that fails the request: `Some` exactly when the decision is `Reject`.
    pub fn rejection(&self) -> Option<&Rejection> {
        match &self.detail {
            Detail::Reject(r) => Some(r),
            _ => None,
        }
    }

    /// Why the webhook is skipped: `Some` exactly when the decision is `Skip`.
    pub fn skip(&self) -> Option<&Skip<'static>> {
        self.decision.skip()
    }

    /// Why the webhook is skipped, in words (`matchCondition "name" is false`,
    /// `namespaceSelector does not match`, …); `None` unless the decision is `Skip`.
    pub fn skip_text(&self) -> Option<String> {
        self.skip().map(ToString::to_string)
    }
}

/// Where a decision was made: deciding whether to call the webhook, or calling it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Deciding,
    Calling,
}

/// A decision with its detail.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Detail {
    Call(Invocation),
    Skip(Skip<'static>),
    Reject(Rejection),
}

/// Identifies a webhook of the dispatcher.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct HookInfo {
    /// `<configuration>/<webhook>/<n>`, n counting earlier webhooks of the same name in the
    /// configuration.
    pub uid: String,
    /// The configuration's name.
    pub configuration: String,
    /// The webhook's name.
    pub name: String,
    /// Validating or mutating.
    pub kind: HookKind,
}

/// A webhook's failure policy, read once from its (defaulted) `failurePolicy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Policy {
    Known(FailurePolicy),
    /// A value validation would reject: the apiserver's matcher lets errors fall through
    /// to "call", and a failed call is not ignored.
    Other,
}

impl Policy {
    fn read(field: Option<&str>) -> Policy {
        FailurePolicy::from_field(field).map_or(Policy::Other, Policy::Known)
    }

    /// The policy the conditions are decided under: an unknown value decides as `Fail`,
    /// whose rejection the dispatcher then turns into a call.
    pub(crate) fn for_conditions(self) -> FailurePolicy {
        match self {
            Policy::Known(p) => p,
            Policy::Other => FailurePolicy::Fail,
        }
    }
}

pub(crate) struct CompiledHook {
    pub(crate) info: HookInfo,
    pub(crate) spec: WebhookSpec,
    pub(crate) namespace_selector: Result<Selector, String>,
    pub(crate) object_selector: Result<Selector, String>,
    pub(crate) conditions: MatchConditions,
    pub(crate) policy: Policy,
}

/// One configuration's webhooks, compiled once: their selectors parsed and their
/// matchConditions compiled as the apiserver treats a stored configuration (a condition
/// that does not compile is an error when deciding). Cheap to clone (the webhooks are
/// shared).
#[derive(Clone)]
pub struct CompiledConfiguration {
    kind: HookKind,
    name: String,
    hooks: Vec<Arc<CompiledHook>>,
}

impl fmt::Debug for CompiledConfiguration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompiledConfiguration")
            .field("kind", &self.kind)
            .field("name", &self.name)
            .field("webhooks", &self.hooks.len())
            .finish()
    }
}

/// Something of a stored configuration that fails every decision it takes part in: a
/// condition that does not compile, a selector that does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompileProblem {
    /// The field, from the configuration (`webhooks[0].matchConditions[1].expression`).
    pub field: String,
    /// The apiserver's message.
    pub message: String,
}

impl fmt::Display for CompileProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl CompiledConfiguration {
    /// Compiles a configuration in an environment (the "stored expressions" environment
    /// of a version, as [`Dispatcher::new`] uses).
    pub fn compile(config: &Configuration, env: &Environment) -> CompiledConfiguration {
        let wording = Wording::for_version(env.version());
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        let hooks = config
            .webhooks
            .iter()
            .map(|spec| {
                let n = seen.entry(spec.name.as_str()).or_insert(0);
                let uid = format!("{}/{}/{}", config.name(), spec.name, n);
                *n += 1;
                Arc::new(compile_hook(
                    HookInfo {
                        uid,
                        configuration: config.name().to_owned(),
                        name: spec.name.clone(),
                        kind: config.hook_kind(),
                    },
                    spec,
                    env,
                    wording,
                ))
            })
            .collect();
        CompiledConfiguration {
            kind: config.hook_kind(),
            name: config.name().to_owned(),
            hooks,
        }
    }

    /// Validating or mutating.
    pub fn kind(&self) -> HookKind {
        self.kind
    }

    /// The configuration's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What fails every decision it takes part in, in order: selectors that do not parse
    /// and conditions that do not compile, by field.
    pub fn problems(&self) -> Vec<CompileProblem> {
        let mut out = Vec::new();
        for (i, h) in self.hooks.iter().enumerate() {
            for (field, selector) in [
                ("namespaceSelector", &h.namespace_selector),
                ("objectSelector", &h.object_selector),
            ] {
                if let Err(message) = selector {
                    out.push(CompileProblem {
                        field: format!("webhooks[{i}].{field}"),
                        message: message.clone(),
                    });
                }
            }
            for (j, error) in h.conditions.condition_compile_errors() {
                out.push(CompileProblem {
                    field: format!("webhooks[{i}].matchConditions[{j}].expression"),
                    message: error.to_string(),
                });
            }
        }
        out
    }
}

/// Decides which webhooks of a set of configurations are called for admission requests.
///
/// Configurations are ordered as the apiserver orders them: mutating before validating
/// (the admission chain's order), each kind sorted by configuration name (stable), webhooks
/// in list order. Defaults are applied; selectors are parsed and matchConditions compiled
/// (in the "stored expressions" environment of the version) once, here.
///
/// ```
/// use matchcond::dispatch::{load_documents, Dispatcher, NoNamespaces};
/// use matchcond::{Decision, KubeVersion};
///
/// let configs = load_documents(r#"
/// kind: ValidatingWebhookConfiguration
/// metadata: {name: pods}
/// webhooks:
/// - name: pods.example.com
///   sideEffects: None
///   admissionReviewVersions: [v1]
///   clientConfig: {url: "https://example.com"}
///   rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
///   matchConditions:
///   - {name: not-system, expression: "request.namespace != 'kube-system'"}
/// "#).unwrap();
/// let dispatcher = Dispatcher::new(&configs, KubeVersion::V1_34);
/// let request = serde_json::json!({
///     "operation": "CREATE", "namespace": "kube-system", "name": "p",
///     "kind": {"group": "", "version": "v1", "kind": "Pod"},
///     "resource": {"group": "", "version": "v1", "resource": "pods"},
///     "userInfo": {"username": "alice"}, "object": {"metadata": {"name": "p"}}
/// });
/// let outcome = dispatcher.decide_webhook("pods.example.com", &request, &NoNamespaces)
///     .unwrap().unwrap();
/// assert_eq!(outcome.decision, Decision::skip_condition("not-system"));
/// assert_eq!(outcome.skip_text().unwrap(), r#"matchCondition "not-system" is false"#);
/// ```
///
/// A clone shares the compiled webhooks (another authorizer bound to it costs no
/// compilation).
#[derive(Clone)]
pub struct Dispatcher {
    hooks: Vec<Arc<CompiledHook>>,
    resources: Arc<dyn ResourceMapper + Send + Sync>,
    version: KubeVersion,
    authorizer: Option<Arc<dyn Authorizer>>,
}

impl fmt::Debug for Dispatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dispatcher")
            .field("version", &self.version)
            .field(
                "hooks",
                &self.hooks.iter().map(|h| &h.info.uid).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// The decisions for one request.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Dispatch {
    /// The decisions, in dispatch order, up to the first rejection.
    pub hooks: Vec<HookOutcome>,
    /// The error that fails the request, if any.
    pub rejection: Option<Rejection>,
}

impl Dispatch {
    /// The webhooks that are called, in order.
    pub fn called(&self) -> impl Iterator<Item = (&HookInfo, &Invocation)> {
        self.hooks
            .iter()
            .filter_map(|o| o.invocation().map(|i| (&o.hook, i)))
    }
}

impl Dispatcher {
    /// A dispatcher for the configurations with the built-in equivalence table of the
    /// version ([`ResourceTable::builtin_for`]).
    pub fn new(configurations: &[Configuration], version: KubeVersion) -> Dispatcher {
        Dispatcher::with_resources(
            configurations,
            version,
            Arc::new(ResourceTable::builtin_for(version)),
        )
    }

    /// A dispatcher with a host-supplied resource-equivalence table.
    pub fn with_resources(
        configurations: &[Configuration],
        version: KubeVersion,
        resources: Arc<dyn ResourceMapper + Send + Sync>,
    ) -> Dispatcher {
        let env = Environment::kubernetes(version);
        let compiled: Vec<CompiledConfiguration> = configurations
            .iter()
            .map(|c| CompiledConfiguration::compile(c, &env))
            .collect();
        Dispatcher::from_compiled(compiled.iter(), version, resources)
    }

    /// A dispatcher over configurations compiled before (shared, not recompiled: a live
    /// dispatcher recompiles only the configurations that changed), in the apiserver's
    /// order whatever the order given.
    pub fn from_compiled<'c>(
        configurations: impl IntoIterator<Item = &'c CompiledConfiguration>,
        version: KubeVersion,
        resources: Arc<dyn ResourceMapper + Send + Sync>,
    ) -> Dispatcher {
        let mut sorted: Vec<&CompiledConfiguration> = configurations.into_iter().collect();
        sorted.sort_by(|a, b| {
            let order = |k: HookKind| u8::from(k == HookKind::Validating);
            order(a.kind)
                .cmp(&order(b.kind))
                .then_with(|| a.name.cmp(&b.name))
        });
        Dispatcher {
            hooks: sorted
                .into_iter()
                .flat_map(|c| c.hooks.iter().cloned())
                .collect(),
            resources,
            version,
            authorizer: None,
        }
    }

    /// A dispatcher for a single webhook (as if alone in a configuration named `""`).
    pub fn for_webhook(spec: &WebhookSpec, kind: HookKind, version: KubeVersion) -> Dispatcher {
        let config = Configuration {
            kind,
            webhooks: vec![spec.clone()],
            ..Configuration::default()
        };
        Dispatcher::new(std::slice::from_ref(&config), version)
    }

    /// The Kubernetes version.
    pub fn version(&self) -> KubeVersion {
        self.version
    }

    /// Binds `authorizer` and `authorizer.requestResource` in every webhook's
    /// matchConditions to this authorizer, for the requesting user (without one, authorizer
    /// variables are unbound and using them is an evaluation error).
    pub fn with_authorizer(mut self, authorizer: Arc<dyn Authorizer>) -> Self {
        self.authorizer = Some(authorizer);
        self
    }

    /// The compiled webhooks in dispatch order.
    pub(crate) fn compiled(&self) -> &[Arc<CompiledHook>] {
        &self.hooks
    }

    /// Whether an authorizer is bound.
    pub(crate) fn authorizer(&self) -> Option<&Arc<dyn Authorizer>> {
        self.authorizer.as_ref()
    }

    /// The webhooks in dispatch order.
    pub fn hooks(&self) -> impl Iterator<Item = &HookInfo> {
        self.hooks.iter().map(|h| &h.info)
    }

    /// The number of webhooks.
    pub fn len(&self) -> usize {
        self.hooks.len()
    }

    /// True when there is no webhook.
    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    /// The first webhook, in dispatch order, named `name`: a webhook's name, or its
    /// [`HookInfo::uid`] (`<configuration>/<webhook>/<n>`) where names repeat across
    /// configurations.
    pub fn webhook(&self, name: &str) -> Option<&HookInfo> {
        self.position(name)
            .and_then(|i| self.hooks.get(i))
            .map(|h| &h.info)
    }

    fn position(&self, name: &str) -> Option<usize> {
        self.hooks
            .iter()
            .position(|h| h.info.name == name)
            .or_else(|| self.hooks.iter().position(|h| h.info.uid == name))
    }

    /// Decides the webhook named `name` (see [`Dispatcher::webhook`]) for a request, as if
    /// it were the only one: `Ok(None)` when there is no such webhook.
    pub fn decide_webhook<R: AdmissionInput + ?Sized>(
        &self,
        name: &str,
        request: &R,
        namespaces: &dyn NamespaceLister,
    ) -> Result<Option<HookOutcome>, RequestError> {
        let request = request.admission_request()?;
        match self.position(name) {
            Some(i) => self.decide_at(i, &*request, namespaces),
            None => {
                Attributes::from_request(&request)?;
                Ok(None)
            }
        }
    }

    /// Decides the webhook at a position of the dispatch order ([`Dispatcher::hooks`]) for a
    /// request, as if it were the only one: `Ok(None)` when there is no such webhook.
    pub fn decide_at<R: AdmissionInput + ?Sized>(
        &self,
        position: usize,
        request: &R,
        namespaces: &dyn NamespaceLister,
    ) -> Result<Option<HookOutcome>, RequestError> {
        let request = request.admission_request()?;
        let request: &Json = &request;
        let attrs = Attributes::from_request(request)?;
        Ok(self.hooks.get(position).map(|h| {
            self.decide_hook(h, &attrs, request, namespaces, &mut CelRequests::default())
                .0
        }))
    }

    /// Decides every webhook for a request in dispatch order, as the admission chain does:
    /// a rejection while deciding whether to call a webhook ends the request at once. For
    /// validating webhooks every decision is made before any call; the first call-time
    /// rejection (a dry run a webhook cannot take) then fails the request.
    pub fn dispatch<R: AdmissionInput + ?Sized>(
        &self,
        request: &R,
        namespaces: &dyn NamespaceLister,
    ) -> Result<Dispatch, RequestError> {
        let request = request.admission_request()?;
        let request: &Json = &request;
        let attrs = Attributes::from_request(request)?;
        let mut out = Dispatch {
            hooks: Vec::new(),
            rejection: None,
        };
        let mut call_time: Option<Rejection> = None;
        let mut cel_requests = CelRequests::default();
        for h in &self.hooks {
            let (outcome, stage) =
                self.decide_hook(h, &attrs, request, namespaces, &mut cel_requests);
            if let Some(r) = outcome.rejection() {
                if stage == Stage::Deciding || h.info.kind == HookKind::Mutating {
                    out.rejection = Some(r.clone());
                    out.hooks.push(outcome);
                    return Ok(out);
                }
                call_time.get_or_insert_with(|| r.clone());
            }
            out.hooks.push(outcome);
        }
        out.rejection = call_time;
        Ok(out)
    }

    /// The decision for one webhook, made here and nowhere else: `ShouldCallHook`
    /// (exempt kinds, selectors, rules, matchConditions under the failure policy), then
    /// the check made when calling it for a dry run. Says at which stage a rejection came.
    fn decide_hook(
        &self,
        h: &CompiledHook,
        attrs: &Attributes,
        request: &Json,
        namespaces: &dyn NamespaceLister,
        cel_requests: &mut CelRequests,
    ) -> (HookOutcome, Stage) {
        let (mut detail, conditions, converted_to) =
            self.should_call_inner(h, attrs, request, namespaces, cel_requests);
        let mut stage = Stage::Deciding;
        if matches!(detail, Detail::Call(_)) {
            if let Some(d) = call_time_check(h, attrs) {
                detail = d;
                stage = Stage::Calling;
            }
        }
        (
            HookOutcome::new(h.info.clone(), detail, conditions, converted_to),
            stage,
        )
    }

    fn should_call_inner(
        &self,
        h: &CompiledHook,
        attrs: &Attributes,
        request: &Json,
        namespaces: &dyn NamespaceLister,
        cel_requests: &mut CelRequests,
    ) -> (Detail, Option<Report<'static>>, Option<Gvk>) {
        let skip = |r| (Detail::Skip(r), None, None);
        if is_exempt_kind(&attrs.kind) {
            return skip(Skip::ExemptKind);
        }
        let object = request.get("object").filter(|o| !o.is_null());
        let old_object = request.get("oldObject").filter(|o| !o.is_null());
        let (ns_match, ns_err) = match_namespace(h, attrs, object, namespaces);
        if !ns_match && ns_err.is_none() {
            return skip(Skip::NamespaceSelector);
        }
        let (obj_match, obj_err) = match_object(h, object, old_object);
        if !obj_match && obj_err.is_none() {
            return skip(Skip::ObjectSelector);
        }
        let invocation = match self.match_rules(h, attrs) {
            Ok(Some(i)) => i,
            Ok(None) => return skip(Skip::Rules),
            Err(r) => return (Detail::Reject(r), None, None),
        };
        if let Some(e) = ns_err.or(obj_err) {
            return (Detail::Reject(e), None, None);
        }
        if h.conditions.is_empty() {
            return (Detail::Call(invocation), None, None);
        }
        let converted_to = (invocation.kind != attrs.kind).then(|| invocation.kind.clone());
        let cel_request = cel_requests.get(attrs, &invocation.kind, request);
        let mut act = cel_request.activation();
        if !cel_request.original {
            act.set(
                SLOT_OBJECT,
                object.map(Value::from_json).unwrap_or(Value::Null),
            );
            act.set(
                SLOT_OLD_OBJECT,
                old_object.map(Value::from_json).unwrap_or(Value::Null),
            );
        }
        if let Some(a) = &self.authorizer {
            act.bind_authorizer(Arc::clone(a));
        }
        let policy = h.policy.for_conditions();
        let report = h.conditions.explain(&act, policy).into_owned();
        let decision = match &report.decision {
            Decision::Call => Detail::Call(invocation),
            Decision::Skip(s) => Detail::Skip(s.clone()),
            Decision::Reject { .. } if h.policy == Policy::Other => Detail::Call(invocation),
            Decision::Reject { message } => {
                Detail::Reject(Rejection::forbidden(&attrs.resource, &attrs.name, message))
            }
        };
        (decision, Some(report), converted_to)
    }

    pub(crate) fn match_rules(
        &self,
        h: &CompiledHook,
        attrs: &Attributes,
    ) -> Result<Option<Invocation>, Rejection> {
        let rule_attrs = |resource| RuleAttributes {
            resource,
            subresource: &attrs.subresource,
            namespace: &attrs.namespace,
            operation: &attrs.operation,
        };
        if h.spec
            .rules
            .iter()
            .any(|r| rule_matches(r, &rule_attrs(&attrs.resource)))
        {
            return Ok(Some(Invocation {
                resource: attrs.resource.clone(),
                subresource: attrs.subresource.clone(),
                kind: attrs.kind.clone(),
            }));
        }
        if h.spec.match_policy.as_deref() != Some("Equivalent") {
            return Ok(None);
        }
        let equivalents = self
            .resources
            .equivalent_resources(&attrs.resource, &attrs.subresource);
        for rule in &h.spec.rules {
            for eq in equivalents.iter().filter(|e| **e != attrs.resource) {
                if rule_matches(rule, &rule_attrs(eq)) {
                    let kind = self
                        .resources
                        .kind_for(eq, &attrs.subresource)
                        .unwrap_or_default();
                    if kind.is_empty() {
                        return Err(Rejection::internal(&format!(
                            "unable to convert to {eq}: unknown kind"
                        )));
                    }
                    return Ok(Some(Invocation {
                        resource: eq.clone(),
                        subresource: attrs.subresource.clone(),
                        kind,
                    }));
                }
            }
        }
        Ok(None)
    }
}

fn compile_hook(info: HookInfo, spec: &WebhookSpec, env: &Environment, w: Wording) -> CompiledHook {
    let mut spec = spec.clone();
    spec.apply_defaults(info.kind);
    let conditions: Vec<MatchCondition> = spec
        .match_conditions
        .iter()
        .map(|c| MatchCondition::new(c.name.clone(), c.expression.clone()))
        .collect();
    let policy = Policy::read(spec.failure_policy.as_deref());
    CompiledHook {
        namespace_selector: parse_selector(spec.namespace_selector.as_ref(), w),
        object_selector: parse_selector(spec.object_selector.as_ref(), w),
        conditions: MatchConditions::compile_unbounded(env, &conditions),
        policy,
        info,
        spec,
    }
}

/// The labels of an object (`meta.Accessor(obj).GetLabels()`); `None` when it has no
/// object metadata.
pub(crate) fn object_labels(object: &Json) -> Option<Labels> {
    let meta = object.get("metadata")?.as_object()?;
    let mut labels = Labels::new();
    if let Some(Json::Object(m)) = meta.get("labels") {
        for (k, v) in m {
            match v {
                Json::String(s) => {
                    labels.insert(k.clone(), s.clone());
                }
                _ => return Some(Labels::new()),
            }
        }
    }
    Some(labels)
}

pub(crate) fn match_namespace(
    h: &CompiledHook,
    attrs: &Attributes,
    object: Option<&Json>,
    namespaces: &dyn NamespaceLister,
) -> (bool, Option<Rejection>) {
    if attrs.namespace.is_empty() && attrs.resource.resource != "namespaces" {
        return (true, None);
    }
    let selector = match &h.namespace_selector {
        Ok(s) => s,
        Err(e) => return (false, Some(Rejection::internal(e))),
    };
    if selector.is_empty() {
        return (true, None);
    }
    let own_labels = attrs.resource.resource == "namespaces"
        && attrs.subresource.is_empty()
        && (attrs.operation == "CREATE" || attrs.operation == "UPDATE");
    let labels = if own_labels {
        match object.and_then(object_labels) {
            Some(l) => l,
            None => {
                return (
                    false,
                    Some(Rejection::internal(
                        "object does not implement the Object interfaces",
                    )),
                )
            }
        }
    } else {
        match namespaces.namespace_labels(&attrs.namespace) {
            Ok(Some(l)) => l,
            Ok(None) if attrs.namespace.is_empty() => {
                return (
                    false,
                    Some(Rejection::internal("resource name may not be empty")),
                )
            }
            Ok(None) => {
                return (
                    false,
                    Some(Rejection::namespace_not_found(&attrs.namespace)),
                )
            }
            Err(e) => return (false, Some(Rejection::internal(&e))),
        }
    };
    (selector.matches(&labels), None)
}

fn match_object(
    h: &CompiledHook,
    object: Option<&Json>,
    old_object: Option<&Json>,
) -> (bool, Option<Rejection>) {
    let selector = match &h.object_selector {
        Ok(s) => s,
        Err(e) => return (false, Some(Rejection::internal(e))),
    };
    if selector.is_empty() {
        return (true, None);
    }
    let matches = |o: Option<&Json>| {
        o.and_then(object_labels)
            .is_some_and(|l| selector.matches(&l))
    };
    (matches(object) || matches(old_object), None)
}

/// The `request` the matchConditions of one admission request see
/// (`CreateAdmissionRequest`): the original AdmissionRequest's JSON seen through the request
/// schema (see `matchcond_runtime::request_schema`), with `kind` the kind each webhook is
/// invoked with. Nothing is copied for a request the apiserver sent; the only JSON built is
/// a kind that differs from the request's own (a request converted under
/// `matchPolicy: Equivalent`), once per kind.
#[derive(Default)]
pub(crate) struct CelRequests {
    /// The invocation kinds the request's view does not show, as JSON.
    kinds: Vec<(Gvk, Json)>,
    /// Set on first use: the request rebuilt from its attributes when the view of the
    /// original says otherwise than the attributes (see [`CelRequests::agrees`]); `None`
    /// inside when the original is viewed itself.
    rebuilt: Option<Option<Json>>,
}

/// The `request` a webhook's matchConditions see: the JSON viewed and the kind it is seen
/// with.
pub(crate) struct CelRequest<'a> {
    /// The AdmissionRequest viewed: the original, or (for a request whose members disagree
    /// with its attributes) the request rebuilt from them, which has no objects.
    pub(crate) json: &'a Json,
    /// The kind the view shows instead of the request's own, when they differ.
    pub(crate) kind: Option<&'a Json>,
    /// True when `json` is the original request (its objects are the request's).
    pub(crate) original: bool,
}

impl CelRequest<'_> {
    /// The activation that binds `request` (and, for the original request, `object` and
    /// `oldObject`, read from it in place).
    pub(crate) fn activation(&self) -> Activation<'_> {
        Activation::from_request_with_kind(self.json, self.kind)
    }
}

impl CelRequests {
    pub(crate) fn get<'a>(
        &'a mut self,
        attrs: &Attributes,
        kind: &Gvk,
        original: &'a Json,
    ) -> CelRequest<'a> {
        let rebuilt = self.rebuilt.get_or_insert_with(|| {
            (!Self::agrees(original, attrs)).then(|| cel_request(attrs, &attrs.kind, original))
        });
        let (json, is_original) = match rebuilt {
            Some(r) => (&*r, false),
            None => (original, true),
        };
        let own_kind = match json {
            Json::Object(m) => RequestView::new(m).field(request_fields::KIND),
            _ => None,
        };
        if own_kind.is_some_and(|k| shows_kind(k, kind)) {
            return CelRequest {
                json,
                kind: None,
                original: is_original,
            };
        }
        let i = match self.kinds.iter().position(|(k, _)| k == kind) {
            Some(i) => i,
            None => {
                self.kinds.push((kind.clone(), kind.to_json()));
                self.kinds.len() - 1
            }
        };
        CelRequest {
            json,
            kind: self.kinds.get(i).map(|(_, j)| j),
            original: is_original,
        }
    }

    /// True when the view of an AdmissionRequest shows what its attributes say (the
    /// dispatcher's rule, which a request the apiserver sent always follows): the
    /// subresource of the requested resource (`requestSubResource` when `requestResource` is
    /// given), and a user that is an object.
    fn agrees(original: &Json, attrs: &Attributes) -> bool {
        let Json::Object(m) = original else {
            return false;
        };
        let view = RequestView::new(m);
        let sub = match view.field(request_fields::SUB_RESOURCE) {
            None => attrs.subresource.is_empty(),
            Some(Json::String(s)) => *s == attrs.subresource,
            Some(_) => false,
        };
        sub && matches!(view.field(request_fields::USER_INFO), Some(Json::Object(_)))
    }
}

/// True when a `kind` node of the view shows exactly `kind`.
fn shows_kind(node: &Json, kind: &Gvk) -> bool {
    let Json::Object(m) = node else {
        return false;
    };
    let is = |k: &str, want: &str| m.get(k).and_then(Json::as_str) == Some(want);
    Part::Gvk.shows_as_is(node)
        && is("group", &kind.group)
        && is("version", &kind.version)
        && is("kind", &kind.kind)
}

/// The `request` rebuilt from the attributes (`kind` as given), the original's user and
/// options.
fn cel_request(attrs: &Attributes, kind: &Gvk, original: &Json) -> Json {
    let mut m = Map::new();
    let user = original.get("userInfo").cloned().unwrap_or(Json::Null);
    let options = original.get("options").filter(|o| !o.is_null()).cloned();
    insert_attributes(&mut m, attrs, kind, user, options);
    Json::Object(m)
}

/// Writes the request members of the attributes (`kind` as given), the user and the
/// options, leaving out the empty members the request schema omits when empty (the
/// apiserver's `omitempty`): `name`, `namespace`, the subresources and the user's members
/// (an undeclared member of the user, which the view does not show, is left out when empty
/// too).
pub(crate) fn insert_attributes(
    m: &mut Map<String, Json>,
    attrs: &Attributes,
    kind: &Gvk,
    user: Json,
    options: Option<Json>,
) {
    let mut insert = |name: &str, value: Json| {
        if !(is_empty(&value) && omitted_when_empty(&[name])) {
            m.insert(name.into(), value);
        }
    };
    let text = |s: &str| Json::String(s.to_owned());
    insert("kind", kind.to_json());
    insert("resource", attrs.resource.to_json());
    insert("subResource", text(&attrs.subresource));
    insert("requestKind", attrs.kind.to_json());
    insert("requestResource", attrs.resource.to_json());
    insert("requestSubResource", text(&attrs.subresource));
    insert("name", text(&attrs.name));
    insert("namespace", text(&attrs.namespace));
    insert("operation", text(&attrs.operation));
    let user = match user {
        Json::Object(u) => u.into_iter().filter(|(_, v)| !is_empty(v)).collect(),
        _ => Map::new(),
    };
    insert("userInfo", Json::Object(user));
    insert("dryRun", Json::Bool(attrs.dry_run));
    if let Some(o) = options {
        insert("options", o);
    }
}

/// The check made when a webhook is called for a dry run.
pub(crate) fn call_time_check(h: &CompiledHook, attrs: &Attributes) -> Option<Detail> {
    if !attrs.dry_run {
        return None;
    }
    dry_run_check(h)
}

/// What [`call_time_check`] gives for a dry run: `None` when the webhook declares no side
/// effects (`None`, `NoneOnDryRun`).
pub(crate) fn dry_run_check(h: &CompiledHook) -> Option<Detail> {
    match h.spec.side_effects.as_deref() {
        None => Some(if h.policy == Policy::Known(FailurePolicy::Ignore) {
            Detail::Skip(Skip::SideEffectsUnsetIgnored)
        } else {
            Detail::Reject(Rejection::internal(&format!(
                "failed calling webhook {}: Webhook SideEffects is nil",
                matchcond_gocompat::strconv::quote(&h.info.name)
            )))
        }),
        Some("None" | "NoneOnDryRun") => None,
        Some(_) => Some(Detail::Reject(Rejection::bad_request(&format!(
            "admission webhook {} does not support dry run",
            matchcond_gocompat::strconv::quote(&h.info.name)
        )))),
    }
}

#[cfg(test)]
mod tests;
