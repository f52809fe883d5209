//! The dispatcher: which webhooks of a set of configurations kube-apiserver calls for one
//! admission request, decided webhook by webhook as `(*Webhook).ShouldCallHook` does
//! (namespaceSelector, objectSelector, rules — exact, then equivalent — then
//! matchConditions), followed by the dry-run check made when a webhook is called.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use matchcond_compiler::{Environment, KubeVersion};
use matchcond_matcher::{Decision, FailurePolicy, MatchCondition, MatchConditions, Report};
use matchcond_runtime::activation::{SLOT_OBJECT, SLOT_OLD_OBJECT};
use matchcond_runtime::authz::Authorizer;
use matchcond_runtime::{Activation, Value};
use serde_json::{Map, Value as Json};

use crate::error::RequestError;
use crate::field::Wording;
use crate::namespaces::{Labels, NamespaceLister};
use crate::resources::{ResourceMapper, ResourceTable};
use crate::rules::{is_exempt_kind, rule_matches, RuleAttributes};
use crate::selector::{parse_selector, Selector};
use crate::types::{Configuration, Gvk, Gvr, HookKind, WebhookSpec};

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

fn string_field(m: &Map<String, Json>, key: &str, path: &str) -> Result<String, RequestError> {
    match m.get(key) {
        None | Some(Json::Null) => Ok(String::new()),
        Some(Json::String(s)) => Ok(s.clone()),
        Some(_) => Err(RequestError::WrongType {
            field: path.to_owned(),
            expected: "a string",
        }),
    }
}

fn triple(
    m: &Map<String, Json>,
    key: &str,
    last: &str,
) -> Result<Option<(String, String, String)>, RequestError> {
    match m.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::Object(o)) => Ok(Some((
            string_field(o, "group", &format!("{key}.group"))?,
            string_field(o, "version", &format!("{key}.version"))?,
            string_field(o, last, &format!("{key}.{last}"))?,
        ))),
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
            Some(r) => (
                r,
                string_field(m, "requestSubResource", "requestSubResource")?,
            ),
            None => (
                triple(m, "resource", "resource")?.unwrap_or_default(),
                string_field(m, "subResource", "subResource")?,
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
            kind: Gvk::new(&kind.0, &kind.1, &kind.2),
            resource: Gvr::new(&resource.0, &resource.1, &resource.2),
            subresource,
            name: string_field(m, "name", "name")?,
            namespace: string_field(m, "namespace", "namespace")?,
            operation: string_field(m, "operation", "operation")?,
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

/// Which check skipped a webhook (the [`Decision::Skip`] of a [`HookOutcome`]; the
/// condition a skip names is the decision's own `condition`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SkipReason {
    /// The request is for an admission configuration kind, which API-configured webhooks
    /// never see.
    ExemptKind,
    /// The namespaceSelector does not match the namespace's labels.
    NamespaceSelector,
    /// The objectSelector matches neither the object nor the old object.
    ObjectSelector,
    /// No rule matches (exactly, nor through an equivalent resource under
    /// `matchPolicy: Equivalent`).
    Rules,
    /// The matchConditions: one was false (the decision names it), or conditions erred
    /// under `failurePolicy: Ignore` (the decision names none).
    MatchConditions,
    /// A dry run reached a webhook without `sideEffects`: calling it fails, and
    /// `failurePolicy: Ignore` lets the request through without it.
    SideEffectsUnsetIgnored,
}

impl SkipReason {
    /// The reason's key in JSON outputs (`namespaceSelector`, `matchCondition`, …).
    pub fn key(self) -> &'static str {
        match self {
            SkipReason::ExemptKind => "exemptKind",
            SkipReason::NamespaceSelector => "namespaceSelector",
            SkipReason::ObjectSelector => "objectSelector",
            SkipReason::Rules => "rules",
            SkipReason::MatchConditions => "matchCondition",
            SkipReason::SideEffectsUnsetIgnored => "sideEffectsUnsetIgnored",
        }
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SkipReason::ExemptKind => "admission configuration kinds are exempt",
            SkipReason::NamespaceSelector => "namespaceSelector does not match",
            SkipReason::ObjectSelector => "objectSelector does not match",
            SkipReason::Rules => "no rule matches",
            SkipReason::MatchConditions => "matchConditions skip the webhook",
            SkipReason::SideEffectsUnsetIgnored => {
                "dry run and sideEffects unset, failurePolicy is Ignore"
            }
        })
    }
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

/// One webhook's decision with what led to it. The decision is the matcher's
/// [`Decision`], the same vocabulary as [`MatchConditions::decide`]'s: `Call` with the
/// [`Invocation`], `Skip` with the check that skipped it ([`SkipReason`]; a false condition
/// is named by the decision), `Reject` with the apiserver's [`Rejection`] (whose message is
/// the decision's).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct HookOutcome {
    /// The webhook's identity.
    pub hook: HookInfo,
    /// The decision.
    pub decision: Decision<'static>,
    /// How the webhook is called, when the decision is `Call`.
    pub invocation: Option<Invocation>,
    /// Which check skipped it, when the decision is `Skip`.
    pub skip_reason: Option<SkipReason>,
    /// The error that fails the request, when the decision is `Reject`.
    pub rejection: Option<Rejection>,
    /// The matchConditions evaluation, when the conditions were evaluated.
    pub conditions: Option<Report<'static>>,
}

impl HookOutcome {
    fn new(hook: HookInfo, detail: Detail, conditions: Option<Report<'static>>) -> Self {
        let mut outcome = HookOutcome {
            hook,
            decision: Decision::Call,
            invocation: None,
            skip_reason: None,
            rejection: None,
            conditions,
        };
        outcome.set(detail);
        outcome
    }

    fn set(&mut self, detail: Detail) {
        self.invocation = None;
        self.skip_reason = None;
        self.rejection = None;
        match detail {
            Detail::Call(i) => {
                self.decision = Decision::Call;
                self.invocation = Some(i);
            }
            Detail::Skip(reason, condition) => {
                self.decision = Decision::Skip {
                    condition: condition.map(Cow::Owned),
                };
                self.skip_reason = Some(reason);
            }
            Detail::Reject(r) => {
                self.decision = Decision::Reject {
                    message: r.message.clone(),
                };
                self.rejection = Some(r);
            }
        }
    }

    /// Why the webhook is skipped, in words (`matchCondition "name" is false`,
    /// `namespaceSelector does not match`, …); `None` unless the decision is `Skip`.
    pub fn skip_text(&self) -> Option<String> {
        let reason = self.skip_reason?;
        Some(match (&self.decision, reason) {
            (Decision::Skip { condition: Some(n) }, SkipReason::MatchConditions) => {
                format!("matchCondition {:?} is false", n.as_ref())
            }
            (_, SkipReason::MatchConditions) => {
                "matchConditions failed and failurePolicy is Ignore".to_owned()
            }
            (_, other) => other.to_string(),
        })
    }
}

/// A decision with its detail, while deciding.
pub(crate) enum Detail {
    Call(Invocation),
    Skip(SkipReason, Option<String>),
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Policy {
    Fail,
    Ignore,
    /// A value validation would reject: errors fall through to "call".
    Other,
}

pub(crate) struct CompiledHook {
    pub(crate) info: HookInfo,
    pub(crate) spec: WebhookSpec,
    pub(crate) namespace_selector: Result<Selector, String>,
    pub(crate) object_selector: Result<Selector, String>,
    pub(crate) conditions: MatchConditions,
    pub(crate) policy: Policy,
}

/// Decides which webhooks of a set of configurations are called for admission requests.
///
/// Configurations are ordered as the apiserver orders them: mutating before validating
/// (the admission chain's order), each kind sorted by configuration name (stable), webhooks
/// in list order. Defaults are applied; selectors are parsed and matchConditions compiled
/// (in the "stored expressions" environment of the version) once, here.
///
/// ```
/// use matchcond::dispatch::{load_documents, Dispatcher, NoNamespaces, SkipReason};
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
/// assert_eq!(outcome.decision, Decision::Skip { condition: Some("not-system".into()) });
/// assert_eq!(outcome.skip_reason, Some(SkipReason::MatchConditions));
/// ```
pub struct Dispatcher {
    hooks: Vec<CompiledHook>,
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
            .filter_map(|o| o.invocation.as_ref().map(|i| (&o.hook, i)))
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
        let wording = Wording::for_version(version);
        let mut sorted: Vec<&Configuration> = configurations.iter().collect();
        sorted.sort_by(|a, b| {
            let order = |k: HookKind| u8::from(k == HookKind::Validating);
            order(a.hook_kind())
                .cmp(&order(b.hook_kind()))
                .then_with(|| a.name().cmp(b.name()))
        });
        let mut hooks = Vec::new();
        for config in sorted {
            let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
            for spec in &config.webhooks {
                let n = seen.entry(spec.name.as_str()).or_insert(0);
                let uid = format!("{}/{}/{}", config.name(), spec.name, n);
                *n += 1;
                hooks.push(compile_hook(
                    HookInfo {
                        uid,
                        configuration: config.name().to_owned(),
                        name: spec.name.clone(),
                        kind: config.hook_kind(),
                    },
                    spec,
                    &env,
                    wording,
                ));
            }
        }
        Dispatcher {
            hooks,
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
    pub(crate) fn compiled(&self) -> &[CompiledHook] {
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
    pub fn decide_webhook(
        &self,
        name: &str,
        request: &Json,
        namespaces: &dyn NamespaceLister,
    ) -> Result<Option<HookOutcome>, RequestError> {
        match self.position(name) {
            Some(i) => self.decide_at(i, request, namespaces),
            None => {
                Attributes::from_request(request)?;
                Ok(None)
            }
        }
    }

    /// Decides the webhook at a position of the dispatch order ([`Dispatcher::hooks`]) for a
    /// request, as if it were the only one: `Ok(None)` when there is no such webhook.
    pub fn decide_at(
        &self,
        position: usize,
        request: &Json,
        namespaces: &dyn NamespaceLister,
    ) -> Result<Option<HookOutcome>, RequestError> {
        let attrs = Attributes::from_request(request)?;
        Ok(self.hooks.get(position).map(|h| {
            let mut outcome =
                self.should_call(h, &attrs, request, namespaces, &mut CelRequests::default());
            if outcome.invocation.is_some() {
                if let Some(d) = call_time_check(h, &attrs) {
                    outcome.set(d);
                }
            }
            outcome
        }))
    }

    /// Decides every webhook for a request in dispatch order, as the admission chain does:
    /// a rejection while deciding whether to call a webhook ends the request at once. For
    /// validating webhooks every decision is made before any call; the first call-time
    /// rejection (a dry run a webhook cannot take) then fails the request.
    pub fn dispatch(
        &self,
        request: &Json,
        namespaces: &dyn NamespaceLister,
    ) -> Result<Dispatch, RequestError> {
        let attrs = Attributes::from_request(request)?;
        let mut out = Dispatch {
            hooks: Vec::new(),
            rejection: None,
        };
        let mut call_time: Option<Rejection> = None;
        let mut cel_requests = CelRequests::default();
        for h in &self.hooks {
            let mut outcome = self.should_call(h, &attrs, request, namespaces, &mut cel_requests);
            if let Some(r) = &outcome.rejection {
                out.rejection = Some(r.clone());
                out.hooks.push(outcome);
                return Ok(out);
            }
            if outcome.invocation.is_some() {
                if let Some(d) = call_time_check(h, &attrs) {
                    outcome.set(d);
                }
            }
            if let Some(r) = &outcome.rejection {
                if h.info.kind == HookKind::Mutating {
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

    fn should_call(
        &self,
        h: &CompiledHook,
        attrs: &Attributes,
        request: &Json,
        namespaces: &dyn NamespaceLister,
        cel_requests: &mut CelRequests,
    ) -> HookOutcome {
        let (detail, conditions) =
            self.should_call_inner(h, attrs, request, namespaces, cel_requests);
        HookOutcome::new(h.info.clone(), detail, conditions)
    }

    fn should_call_inner(
        &self,
        h: &CompiledHook,
        attrs: &Attributes,
        request: &Json,
        namespaces: &dyn NamespaceLister,
        cel_requests: &mut CelRequests,
    ) -> (Detail, Option<Report<'static>>) {
        let skip = |r| (Detail::Skip(r, None), None);
        if is_exempt_kind(&attrs.kind) {
            return skip(SkipReason::ExemptKind);
        }
        let object = request.get("object").filter(|o| !o.is_null());
        let old_object = request.get("oldObject").filter(|o| !o.is_null());
        let (ns_match, ns_err) = match_namespace(h, attrs, object, namespaces);
        if !ns_match && ns_err.is_none() {
            return skip(SkipReason::NamespaceSelector);
        }
        let (obj_match, obj_err) = match_object(h, object, old_object);
        if !obj_match && obj_err.is_none() {
            return skip(SkipReason::ObjectSelector);
        }
        let invocation = match self.match_rules(h, attrs) {
            Ok(Some(i)) => i,
            Ok(None) => return skip(SkipReason::Rules),
            Err(r) => return (Detail::Reject(r), None),
        };
        if let Some(e) = ns_err.or(obj_err) {
            return (Detail::Reject(e), None);
        }
        if h.conditions.is_empty() {
            return (Detail::Call(invocation), None);
        }
        let cel_request = cel_requests.get(attrs, &invocation.kind, request);
        let mut act = Activation::from_request(cel_request);
        act.set(
            SLOT_OBJECT,
            object.map(Value::from_json).unwrap_or(Value::Null),
        );
        act.set(
            SLOT_OLD_OBJECT,
            old_object.map(Value::from_json).unwrap_or(Value::Null),
        );
        if let Some(a) = &self.authorizer {
            act.bind_authorizer(Arc::clone(a));
        }
        let policy = match h.policy {
            Policy::Ignore => FailurePolicy::Ignore,
            Policy::Fail | Policy::Other => FailurePolicy::Fail,
        };
        let report = h.conditions.explain(&act, policy);
        let decision = match &report.decision {
            Decision::Call => Detail::Call(invocation),
            Decision::Skip { condition } => Detail::Skip(
                SkipReason::MatchConditions,
                condition.as_ref().map(|c| c.to_string()),
            ),
            Decision::Reject { .. } if h.policy == Policy::Other => Detail::Call(invocation),
            Decision::Reject { message } => {
                Detail::Reject(Rejection::forbidden(&attrs.resource, &attrs.name, message))
            }
        };
        (decision, Some(report.into_owned()))
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
    let policy = match spec.failure_policy.as_deref() {
        None | Some("Fail") => Policy::Fail,
        Some("Ignore") => Policy::Ignore,
        Some(_) => Policy::Other,
    };
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

/// The `request` the matchConditions see (`CreateAdmissionRequest`): `kind` is the
/// invocation's kind, `resource` the request's own resource.
/// The `request` documents of one admission request, by invocation kind: built once per
/// kind, shared by every webhook invoked with that kind.
#[derive(Default)]
struct CelRequests {
    by_kind: Vec<(Gvk, Json)>,
}

impl CelRequests {
    fn get<'a>(&'a mut self, attrs: &Attributes, kind: &Gvk, original: &'a Json) -> &'a Json {
        let i = match self.by_kind.iter().position(|(k, _)| k == kind) {
            Some(i) => i,
            None => {
                self.by_kind
                    .push((kind.clone(), cel_request(attrs, kind, original)));
                self.by_kind.len() - 1
            }
        };
        match self.by_kind.get(i) {
            Some((_, r)) => r,
            None => original,
        }
    }
}

pub(crate) fn cel_request(attrs: &Attributes, kind: &Gvk, original: &Json) -> Json {
    let mut m = Map::new();
    m.insert("kind".into(), kind.to_json());
    m.insert("resource".into(), attrs.resource.to_json());
    if !attrs.subresource.is_empty() {
        m.insert(
            "subResource".into(),
            Json::String(attrs.subresource.clone()),
        );
    }
    m.insert("requestKind".into(), attrs.kind.to_json());
    m.insert("requestResource".into(), attrs.resource.to_json());
    if !attrs.subresource.is_empty() {
        m.insert(
            "requestSubResource".into(),
            Json::String(attrs.subresource.clone()),
        );
    }
    if !attrs.name.is_empty() {
        m.insert("name".into(), Json::String(attrs.name.clone()));
    }
    if !attrs.namespace.is_empty() {
        m.insert("namespace".into(), Json::String(attrs.namespace.clone()));
    }
    m.insert("operation".into(), Json::String(attrs.operation.clone()));
    let mut user = Map::new();
    if let Some(Json::Object(u)) = original.get("userInfo") {
        for (k, v) in u {
            let keep = match v {
                Json::Null => false,
                Json::String(s) => !s.is_empty(),
                Json::Array(a) => !a.is_empty(),
                Json::Object(o) => !o.is_empty(),
                _ => true,
            };
            if keep {
                user.insert(k.clone(), v.clone());
            }
        }
    }
    m.insert("userInfo".into(), Json::Object(user));
    m.insert("dryRun".into(), Json::Bool(attrs.dry_run));
    if let Some(o) = original.get("options").filter(|o| !o.is_null()) {
        m.insert("options".into(), o.clone());
    }
    Json::Object(m)
}

/// The check made when a webhook is called for a dry run.
pub(crate) fn call_time_check(h: &CompiledHook, attrs: &Attributes) -> Option<Detail> {
    if !attrs.dry_run {
        return None;
    }
    match h.spec.side_effects.as_deref() {
        None => Some(if h.policy == Policy::Ignore {
            Detail::Skip(SkipReason::SideEffectsUnsetIgnored, None)
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
