//! Authorization checks from CEL: the [`Authorizer`] a host plugs in, the attributes it is
//! asked about, and the values of the Kubernetes authz library
//! (kubernetes/apiserver `pkg/cel/library/authz.go`).
//!
//! # The extension point
//!
//! matchConditions may ask whether the requesting user (or a service account) could do
//! something else: `authorizer.group('apps').resource('deployments').namespace('prod')
//! .check('delete').allowed()`. The apiserver answers such checks with its own authorizer
//! chain (RBAC, webhooks …). matchcond leaves the answer to the host: implement
//! [`Authorizer`] (a SubjectAccessReview client, a cache in front of one, a policy table, or
//! the [`StaticAuthorizer`] shipped here) and bind it to the activation with
//! [`Activation::with_authorizer`](crate::Activation::with_authorizer). That binds the
//! variables `authorizer` (the requesting user, from `request.userInfo`) and
//! `authorizer.requestResource` (a resource check preset with the request's group,
//! resource, subresource, namespace and name).
//!
//! Every `check(verb)` calls [`Authorizer::authorize`] once, synchronously, with the
//! [`Attributes`] the apiserver would pass: the principal, the verb, and either the resource
//! attributes (API group, API version `*`, resource, subresource, namespace, name, and the
//! parsed field and label selectors) or the non-resource path. The answer becomes a
//! `kubernetes.authorization.Decision` value: `allowed()` is true only for
//! [`AuthzDecision::Allow`], `reason()` is the reason, `errored()` / `error()` report the
//! error. An error is not an evaluation error: the expression decides what to do with it.
//! Each check costs 350,000 units of the per-expression cost limit (1,000,000), so an
//! expression can make at most two checks.
//!
//! ```
//! use std::sync::Arc;
//! use matchcond_runtime::authz::{Attributes, AuthzResponse};
//! use matchcond_runtime::Activation;
//!
//! // Allow everything in the "sandbox" namespace, deny the rest.
//! let sandbox = |a: &Attributes<'_>| match a.resource.as_ref() {
//!     Some(r) if r.namespace == "sandbox" => AuthzResponse::allow(),
//!     _ => AuthzResponse::deny().with_reason("outside the sandbox"),
//! };
//! let request = serde_json::json!({"userInfo": {"username": "alice"}});
//! let activation = Activation::from_request(&request).with_authorizer(Arc::new(sandbox));
//! # let _ = activation;
//! ```
//!
//! Without a bound authorizer, expressions that use `authorizer` fail at run time with
//! `no such attribute(s): authorizer`, as in the apiserver when no authorizer is configured.

mod static_rules;
mod user;

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use serde_json::Value as Json;

use crate::error::{ErrorKind, EvalError};
use crate::value::{Opaque, Value};

pub use matchcond_gocompat::selectors::{
    parse_field_selector, parse_label_selector, FieldRequirement, LabelRequirement, SelectorError,
    SelectorOperator,
};
pub use static_rules::{RuleOutcome, StaticAuthorizer, StaticRule};
pub use user::{User, UserInfo};

/// CEL type name of the `authorizer` variable and of `serviceAccount()`'s result.
pub const AUTHORIZER_TYPE: &str = "kubernetes.authorization.Authorizer";

/// A selector a check carries: the text as the expression gave it, and what parsing it gave
/// (a selector that does not parse is not an evaluation error: the parse error goes to the
/// [`Authorizer`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector<'c, R> {
    /// The selector as written.
    pub text: &'c str,
    /// The requirements, in apimachinery's order (field selectors by sorted term, label
    /// selectors by key), or the parse error.
    pub parsed: Result<Vec<R>, SelectorError>,
}
/// CEL type name of `path()`'s result.
pub const PATH_CHECK_TYPE: &str = "kubernetes.authorization.PathCheck";
/// CEL type name of `group()`'s result.
pub const GROUP_CHECK_TYPE: &str = "kubernetes.authorization.GroupCheck";
/// CEL type name of `resource()`'s result and of `authorizer.requestResource`.
pub const RESOURCE_CHECK_TYPE: &str = "kubernetes.authorization.ResourceCheck";
/// CEL type name of `check()`'s result.
pub const DECISION_TYPE: &str = "kubernetes.authorization.Decision";

/// The decision of an authorizer (`authorizer.Decision`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum AuthzDecision {
    /// The request is denied.
    Deny,
    /// The request is allowed.
    Allow,
    /// The authorizer has no opinion; `allowed()` is false.
    #[default]
    NoOpinion,
}

impl AuthzDecision {
    /// `Deny`, `Allow` or `NoOpinion`, as the apiserver prints decisions.
    pub fn as_str(self) -> &'static str {
        match self {
            AuthzDecision::Deny => "Deny",
            AuthzDecision::Allow => "Allow",
            AuthzDecision::NoOpinion => "NoOpinion",
        }
    }
}

impl fmt::Display for AuthzDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an [`Authorizer`] answers to one check: the decision, a reason, and an error. All
/// three are kept as given (an authorizer may return a decision together with an error).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct AuthzResponse {
    /// The decision.
    pub decision: AuthzDecision,
    /// Why (may be empty); what `reason()` returns.
    pub reason: String,
    /// The error, if the check failed; what `error()` returns, and `errored()` is true.
    pub error: Option<String>,
}

impl AuthzResponse {
    /// A decision with a reason and no error.
    pub fn new(decision: AuthzDecision, reason: impl Into<String>) -> Self {
        AuthzResponse {
            decision,
            reason: reason.into(),
            error: None,
        }
    }

    /// Allowed, no reason.
    pub fn allow() -> Self {
        AuthzResponse::new(AuthzDecision::Allow, "")
    }

    /// Denied, no reason.
    pub fn deny() -> Self {
        AuthzResponse::new(AuthzDecision::Deny, "")
    }

    /// No opinion, no reason.
    pub fn no_opinion() -> Self {
        AuthzResponse::new(AuthzDecision::NoOpinion, "")
    }

    /// A failed check: no opinion, no reason, and the error.
    pub fn error(message: impl Into<String>) -> Self {
        AuthzResponse {
            decision: AuthzDecision::NoOpinion,
            reason: String::new(),
            error: Some(message.into()),
        }
    }

    /// Sets the reason.
    pub fn with_reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = reason.into();
        self
    }

    /// Sets the error.
    pub fn with_error(mut self, message: impl Into<String>) -> Self {
        self.error = Some(message.into());
        self
    }
}

/// The resource part of a resource check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceAttributes<'c> {
    /// The API group (`""` is the core group).
    pub api_group: &'c str,
    /// The API version: always `*` for checks from CEL.
    pub api_version: &'c str,
    /// The resource (lower-case plural, e.g. `deployments`).
    pub resource: &'c str,
    /// The subresource, `""` for none.
    pub subresource: &'c str,
    /// The namespace, `""` for cluster scope (or all namespaces).
    pub namespace: &'c str,
    /// The object name, `""` for none.
    pub name: &'c str,
    /// The field selector, when `fieldSelector()` gave a non-empty one: its requirements, or
    /// the parse error.
    pub field_selector: Option<Selector<'c, FieldRequirement>>,
    /// The label selector, when `labelSelector()` gave a non-empty one: its requirements,
    /// or the parse error.
    pub label_selector: Option<Selector<'c, LabelRequirement>>,
}

/// The attributes of one check (`authorizer.Attributes`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attributes<'c> {
    /// The principal: the requesting user (the request's `userInfo`, read in place), or the
    /// service account of `authorizer.serviceAccount(ns, name)`.
    pub user: User<'c>,
    /// The verb: an API verb (`get`, `list`, `create` … or any custom verb) for resource
    /// checks, the HTTP verb as written for path checks.
    pub verb: &'c str,
    /// The resource attributes of a resource check; `None` for a path (non-resource) check.
    pub resource: Option<ResourceAttributes<'c>>,
    /// The path of a path check as written (the leading `/` is optional); `""` for a
    /// resource check.
    pub path: &'c str,
}

impl<'c> Attributes<'c> {
    /// A resource check.
    pub fn resource(
        user: impl Into<User<'c>>,
        verb: &'c str,
        resource: ResourceAttributes<'c>,
    ) -> Self {
        Attributes {
            user: user.into(),
            verb,
            resource: Some(resource),
            path: "",
        }
    }

    /// A non-resource (path) check.
    pub fn non_resource(user: impl Into<User<'c>>, verb: &'c str, path: &'c str) -> Self {
        Attributes {
            user: user.into(),
            verb,
            resource: None,
            path,
        }
    }

    /// True for a resource check.
    pub fn is_resource_request(&self) -> bool {
        self.resource.is_some()
    }

    /// The resource attributes, for a resource check.
    pub fn resource_attributes(&self) -> Option<&ResourceAttributes<'c>> {
        self.resource.as_ref()
    }

    /// True for the verbs `get`, `list` and `watch` (`IsReadOnly`).
    pub fn is_read_only(&self) -> bool {
        matches!(self.verb, "get" | "list" | "watch")
    }
}

/// Answers authorization checks made from CEL expressions.
///
/// The host implements this to connect matchcond to its authorization source. The
/// apiserver uses its authorizer chain (RBAC, Node, webhook …); an external engine typically
/// sends a `SubjectAccessReview` (mapping [`Attributes`] to its `spec`: `user`, `uid`,
/// `groups`, `extra`, and `resourceAttributes` or `nonResourceAttributes`), answers from a
/// cache, or from a table such as [`StaticAuthorizer`].
///
/// `authorize` is called synchronously during evaluation, once per `check()`; it must not
/// panic, and should be quick (a cache, or a bounded remote call). A failure is reported
/// through [`AuthzResponse::error`], not as a panic: the expression sees `errored() == true`
/// and `error()` with the message, and `allowed()` follows the decision given with it
/// (usually [`AuthzDecision::NoOpinion`]).
///
/// Closures `Fn(&Attributes) -> AuthzResponse` implement this trait.
pub trait Authorizer: Send + Sync {
    /// Decides one check.
    fn authorize(&self, attributes: &Attributes<'_>) -> AuthzResponse;
}

impl<F> Authorizer for F
where
    F: Fn(&Attributes<'_>) -> AuthzResponse + Send + Sync,
{
    fn authorize(&self, attributes: &Attributes<'_>) -> AuthzResponse {
        self(attributes)
    }
}

/// A field of a check: empty text costs nothing (no allocation and no shared reference
/// count: threads building checks at once touch nothing in common), other text is shared
/// by the copies the builders make.
#[derive(Clone, Debug, Default)]
struct Text(Option<Arc<str>>);

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.0.as_deref().unwrap_or("")
    }
}

fn text(s: &str) -> Text {
    Text((!s.is_empty()).then(|| Arc::from(s)))
}

/// The principal and authorizer every value derived from `authorizer` carries, behind one
/// reference count of the evaluation's own: the builders' copies do not touch the
/// authorizer's count, which the threads sharing the authorizer have in common.
#[derive(Clone)]
struct Principal(Arc<PrincipalParts>);

struct PrincipalParts {
    user: UserInfo,
    authorizer: Arc<dyn Authorizer>,
}

impl Principal {
    fn new(user: UserInfo, authorizer: Arc<dyn Authorizer>) -> Self {
        Principal(Arc::new(PrincipalParts { user, authorizer }))
    }
}

impl std::ops::Deref for Principal {
    type Target = PrincipalParts;
    fn deref(&self) -> &PrincipalParts {
        &self.0
    }
}

impl fmt::Debug for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Principal")
            .field("user", &self.user.name)
            .field("groups", &self.user.groups)
            .finish_non_exhaustive()
    }
}

/// An evaluation error raised by a builder, with the library's text.
fn library_error(message: &'static str) -> EvalError {
    EvalError::new(ErrorKind::InvalidArgument, message)
}

macro_rules! opaque {
    ($ty:ty, $name:expr) => {
        impl Opaque for $ty {
            fn type_name(&self) -> &'static str {
                $name
            }
            /// cel-go's `Equal` on these values never finds two of them equal (the library
            /// compares only bare receiver values), so `!=` is always true.
            fn equals(&self, _other: &dyn Opaque) -> bool {
                false
            }
            /// `==` on these values is "no such overload" in cel-go.
            fn equal_value(&self, _other: &crate::value::Value<'_>) -> Option<bool> {
                None
            }
            fn as_any(&self) -> &dyn Any {
                self
            }
            fn text(&self) -> String {
                self.describe()
            }
        }
    };
}

/// A `kubernetes.authorization.Authorizer` value: a principal and the authorizer that
/// answers for it.
#[derive(Clone, Debug)]
pub struct AuthorizerValue {
    principal: Principal,
}

impl AuthorizerValue {
    /// The value for a principal.
    pub fn new(user: UserInfo, authorizer: Arc<dyn Authorizer>) -> Self {
        AuthorizerValue {
            principal: Principal::new(user, authorizer),
        }
    }

    /// The principal.
    pub fn user(&self) -> &UserInfo {
        &self.principal.user
    }

    /// `path(p)`: a check of a non-resource path; `path must not be empty` when `p` is blank.
    pub fn path(&self, path: &str) -> Result<PathCheck, EvalError> {
        if path.trim().is_empty() {
            return Err(library_error("path must not be empty"));
        }
        Ok(PathCheck {
            principal: self.principal.clone(),
            path: text(path),
        })
    }

    /// `group(g)`: checks of resources of an API group (`""` is the core group).
    pub fn group(&self, group: &str) -> GroupCheck {
        GroupCheck {
            principal: self.principal.clone(),
            group: text(group),
        }
    }

    /// `serviceAccount(namespace, name)`: the same authorizer, for the service account's
    /// user. The name must be a DNS-1123 subdomain (`Invalid service account name`, checked
    /// first) and the namespace a DNS-1123 label (`Invalid service account namespace`).
    pub fn service_account(&self, namespace: &str, name: &str) -> Result<Self, EvalError> {
        if !matchcond_gocompat::validation::is_dns1123_subdomain(name) {
            return Err(library_error("Invalid service account name"));
        }
        if !matchcond_gocompat::validation::is_dns1123_label(namespace) {
            return Err(library_error("Invalid service account namespace"));
        }
        Ok(AuthorizerValue {
            principal: Principal::new(
                UserInfo::service_account(namespace, name),
                Arc::clone(&self.principal.authorizer),
            ),
        })
    }

    /// The authorizer this value's checks ask, and their principal: a check read at once
    /// (`group(…).resource(…)…check(verb)`) asks them without building the builders' values.
    #[doc(hidden)]
    pub fn asked(&self) -> (&dyn Authorizer, User<'_>) {
        (
            &*self.principal.authorizer,
            User::from(&self.principal.user),
        )
    }

    fn describe(&self) -> String {
        format!("authorizer for {}", self.principal.user.name)
    }
}

opaque!(AuthorizerValue, AUTHORIZER_TYPE);

/// A `kubernetes.authorization.PathCheck` value.
#[derive(Clone, Debug)]
pub struct PathCheck {
    principal: Principal,
    path: Text,
}

impl PathCheck {
    /// The path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The principal.
    pub fn user(&self) -> &UserInfo {
        &self.principal.user
    }

    /// `check(httpVerb)`: asks the authorizer.
    pub fn check(&self, verb: &str) -> DecisionValue {
        let attrs = Attributes::non_resource(&self.principal.user, verb, &self.path);
        DecisionValue::new(self.principal.authorizer.authorize(&attrs))
    }

    fn describe(&self) -> String {
        format!("path check of {}", &*self.path)
    }
}

opaque!(PathCheck, PATH_CHECK_TYPE);

/// A `kubernetes.authorization.GroupCheck` value.
#[derive(Clone, Debug)]
pub struct GroupCheck {
    principal: Principal,
    group: Text,
}

impl GroupCheck {
    /// The API group.
    pub fn group(&self) -> &str {
        &self.group
    }

    /// `resource(r)`: a check of a resource of the group; `resource must not be empty` when
    /// `r` is blank.
    pub fn resource(&self, resource: &str) -> Result<ResourceCheck, EvalError> {
        if resource.trim().is_empty() {
            return Err(library_error("resource must not be empty"));
        }
        Ok(ResourceCheck::new(
            self.principal.clone(),
            self.group.clone(),
            text(resource),
        ))
    }

    fn describe(&self) -> String {
        format!("group check of {:?}", &*self.group)
    }
}

opaque!(GroupCheck, GROUP_CHECK_TYPE);

/// A `kubernetes.authorization.ResourceCheck` value. The builders return modified copies.
#[derive(Clone, Debug)]
pub struct ResourceCheck {
    principal: Principal,
    group: Text,
    resource: Text,
    subresource: Text,
    namespace: Text,
    name: Text,
    field_selector: Text,
    label_selector: Text,
}

impl ResourceCheck {
    fn new(principal: Principal, group: Text, resource: Text) -> Self {
        ResourceCheck {
            principal,
            group,
            resource,
            subresource: Text::default(),
            namespace: Text::default(),
            name: Text::default(),
            field_selector: Text::default(),
            label_selector: Text::default(),
        }
    }

    /// The API group.
    pub fn group(&self) -> &str {
        &self.group
    }

    /// The resource.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The subresource (`""`: none).
    pub fn subresource(&self) -> &str {
        &self.subresource
    }

    /// The namespace (`""`: cluster scope).
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The object name (`""`: none).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The field selector text (`""`: none).
    pub fn field_selector(&self) -> &str {
        &self.field_selector
    }

    /// The label selector text (`""`: none).
    pub fn label_selector(&self) -> &str {
        &self.label_selector
    }

    /// The principal.
    pub fn user(&self) -> &UserInfo {
        &self.principal.user
    }

    /// `subresource(s)`.
    pub fn with_subresource(&self, subresource: &str) -> Self {
        ResourceCheck {
            subresource: text(subresource),
            ..self.clone()
        }
    }

    /// `namespace(ns)`.
    pub fn with_namespace(&self, namespace: &str) -> Self {
        ResourceCheck {
            namespace: text(namespace),
            ..self.clone()
        }
    }

    /// `name(n)`.
    pub fn with_name(&self, name: &str) -> Self {
        ResourceCheck {
            name: text(name),
            ..self.clone()
        }
    }

    /// `fieldSelector(s)`: kept as text, parsed by [`ResourceCheck::check`].
    pub fn with_field_selector(&self, selector: &str) -> Self {
        ResourceCheck {
            field_selector: text(selector),
            ..self.clone()
        }
    }

    /// `labelSelector(s)`: kept as text, parsed by [`ResourceCheck::check`].
    pub fn with_label_selector(&self, selector: &str) -> Self {
        ResourceCheck {
            label_selector: text(selector),
            ..self.clone()
        }
    }

    /// `check(apiVerb)`: parses the selectors (a parse error goes to the authorizer, with no
    /// requirements) and asks the authorizer.
    pub fn check(&self, verb: &str) -> DecisionValue {
        let field_selector = (!self.field_selector.is_empty()).then(|| Selector {
            text: &self.field_selector,
            parsed: parse_field_selector(&self.field_selector),
        });
        let label_selector = (!self.label_selector.is_empty()).then(|| Selector {
            text: &self.label_selector,
            parsed: parse_label_selector(&self.label_selector),
        });
        let attrs = Attributes::resource(
            &self.principal.user,
            verb,
            ResourceAttributes {
                api_group: &self.group,
                api_version: "*",
                resource: &self.resource,
                subresource: &self.subresource,
                namespace: &self.namespace,
                name: &self.name,
                field_selector,
                label_selector,
            },
        );
        DecisionValue::new(self.principal.authorizer.authorize(&attrs))
    }

    fn describe(&self) -> String {
        format!(
            "resource check of group {:?} resource {:?} subresource {:?} namespace {:?} name {:?}",
            &*self.group, &*self.resource, &*self.subresource, &*self.namespace, &*self.name
        )
    }
}

opaque!(ResourceCheck, RESOURCE_CHECK_TYPE);

/// A `kubernetes.authorization.Decision` value: an authorizer's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecisionValue {
    response: AuthzResponse,
}

impl DecisionValue {
    /// Wraps an answer.
    pub fn new(response: AuthzResponse) -> Self {
        DecisionValue { response }
    }

    /// The answer.
    pub fn response(&self) -> &AuthzResponse {
        &self.response
    }

    /// `allowed()`: true only for [`AuthzDecision::Allow`].
    pub fn allowed(&self) -> bool {
        self.response.decision == AuthzDecision::Allow
    }

    /// `reason()`.
    pub fn reason(&self) -> &str {
        &self.response.reason
    }

    /// `errored()`.
    pub fn errored(&self) -> bool {
        self.response.error.is_some()
    }

    /// `error()`: the error text, `""` without error.
    pub fn error(&self) -> &str {
        self.response.error.as_deref().unwrap_or("")
    }

    fn describe(&self) -> String {
        let mut s = self.response.decision.as_str().to_owned();
        if !self.response.reason.is_empty() {
            s.push_str(": ");
            s.push_str(&self.response.reason);
        }
        if let Some(e) = &self.response.error {
            s.push_str(" (error: ");
            s.push_str(e);
            s.push(')');
        }
        s
    }
}

opaque!(DecisionValue, DECISION_TYPE);

/// What `authorizer.requestResource` is preset with: the request's resource, subresource,
/// namespace and name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RequestResource<'r> {
    /// `request.resource.group`.
    pub group: &'r str,
    /// `request.resource.resource`.
    pub resource: &'r str,
    /// `request.subResource`.
    pub subresource: &'r str,
    /// `request.namespace`.
    pub namespace: &'r str,
    /// `request.name`.
    pub name: &'r str,
}

impl<'r> RequestResource<'r> {
    /// Reads an AdmissionRequest as its `request` view shows it (the original request's
    /// resource and subresource, which a converted review gives as `requestResource` and
    /// `requestSubResource`); absent fields are empty.
    pub fn from_request(request: &'r Json) -> Self {
        let Json::Object(m) = request else {
            return RequestResource::default();
        };
        // One pass over the request's members (the view's rules, see
        // `value::request_view_field`: null reads as absent, an empty subresource as none, a
        // review without `requestResource` / `requestSubResource` was not converted).
        let (mut request_resource, mut resource) = (None, None);
        let (mut request_sub, mut sub) = ("", "");
        let (mut namespace, mut name) = ("", "");
        for (k, v) in m {
            let text = || v.as_str().unwrap_or("");
            match k.as_str() {
                "requestResource" if !v.is_null() => request_resource = Some(v),
                "resource" if !v.is_null() => resource = Some(v),
                "requestSubResource" => request_sub = text(),
                "subResource" => sub = text(),
                "namespace" => namespace = text(),
                "name" => name = text(),
                _ => {}
            }
        }
        let resource = request_resource.or(resource);
        let get = |field: &str| {
            resource
                .and_then(|r| r.get(field))
                .and_then(Json::as_str)
                .unwrap_or("")
        };
        RequestResource {
            group: get("group"),
            resource: get("resource"),
            subresource: if request_sub.is_empty() {
                sub
            } else {
                request_sub
            },
            namespace,
            name,
        }
    }
}

/// The value of the `authorizer` variable for a principal.
pub fn authorizer_value(user: UserInfo, authorizer: Arc<dyn Authorizer>) -> Value<'static> {
    Value::Opaque(Arc::new(AuthorizerValue::new(user, authorizer)))
}

/// The values of `authorizer` and `authorizer.requestResource` for a principal and the
/// request's resource (as `NewAuthorizerVal` and `NewResourceAuthorizerVal` build them; the
/// preset check is not validated, so an empty resource is kept).
pub fn authorizer_values(
    user: UserInfo,
    authorizer: Arc<dyn Authorizer>,
    request: &RequestResource<'_>,
) -> (Value<'static>, Value<'static>) {
    let authz = AuthorizerValue::new(user, authorizer);
    let check = preset_check(&authz, request);
    (
        Value::Opaque(Arc::new(authz)),
        Value::Opaque(Arc::new(check)),
    )
}

/// The value of `authorizer.requestResource` for the principal of an `authorizer` value
/// (see [`authorizer_values`]); `null` when `authz` is not one.
pub fn request_resource_value(authz: &Value<'_>, request: &RequestResource<'_>) -> Value<'static> {
    match authz {
        Value::Opaque(o) => match o.as_any().downcast_ref::<AuthorizerValue>() {
            Some(a) => Value::Opaque(Arc::new(preset_check(a, request))),
            None => Value::Null,
        },
        _ => Value::Null,
    }
}

/// The resource check preset with the request's resource, for a principal.
fn preset_check(authz: &AuthorizerValue, request: &RequestResource<'_>) -> ResourceCheck {
    ResourceCheck {
        subresource: text(request.subresource),
        namespace: text(request.namespace),
        name: text(request.name),
        ..ResourceCheck::new(
            authz.principal.clone(),
            text(request.group),
            text(request.resource),
        )
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// Records the attributes of every check and answers with a fixed response.
    struct Recorder {
        seen: Mutex<Vec<String>>,
        answer: AuthzResponse,
    }

    impl Authorizer for Recorder {
        fn authorize(&self, a: &Attributes<'_>) -> AuthzResponse {
            let line = match &a.resource {
                Some(r) => format!(
                    "{} {:?} {} {}/{} {}/{}/{}/{} fs={:?} ls={:?}",
                    a.user.name(),
                    a.user.groups().collect::<Vec<_>>(),
                    a.verb,
                    r.api_group,
                    r.api_version,
                    r.resource,
                    r.subresource,
                    r.namespace,
                    r.name,
                    r.field_selector.as_ref().map(|s| s.parsed.clone()),
                    r.label_selector.as_ref().map(|s| s.parsed.clone()),
                ),
                None => format!("{} {} path {}", a.user.name(), a.verb, a.path),
            };
            self.seen.lock().unwrap().push(line);
            self.answer.clone()
        }
    }

    fn recorder(answer: AuthzResponse) -> Arc<Recorder> {
        Arc::new(Recorder {
            seen: Mutex::new(Vec::new()),
            answer,
        })
    }

    #[test]
    fn builders_and_checks() {
        let rec = recorder(AuthzResponse::allow().with_reason("ok"));
        let authz = AuthorizerValue::new(UserInfo::new("alice").with_groups(["devs"]), rec.clone());
        let d = authz.path("/healthz").unwrap().check("get");
        assert!(d.allowed());
        assert_eq!(d.reason(), "ok");
        assert!(!d.errored());
        assert_eq!(d.error(), "");
        let rc = authz
            .group("apps")
            .resource("deployments")
            .unwrap()
            .with_subresource("scale")
            .with_namespace("prod")
            .with_name("web");
        rc.check("update");
        let sa = authz.service_account("kube-system", "ctrl").unwrap();
        sa.group("")
            .resource("pods")
            .unwrap()
            .with_field_selector("spec.nodeName=n1")
            .with_label_selector("app in (web")
            .check("list");
        let seen = rec.seen.lock().unwrap().clone();
        assert_eq!(
            seen,
            vec![
                "alice get path /healthz".to_string(),
                "alice [\"devs\"] update apps/* deployments/scale/prod/web fs=None ls=None"
                    .to_string(),
                "system:serviceaccount:kube-system:ctrl [\"system:serviceaccounts\", \"system:serviceaccounts:kube-system\"] list /* pods/// fs=Some(Ok([FieldRequirement { field: \"spec.nodeName\", operator: Equals, value: \"n1\" }])) ls=Some(Err(SelectorError(\"unable to parse requirement: found '', expected: ',' or ')'\")))"
                    .to_string(),
            ]
        );
    }

    #[test]
    fn builder_errors() {
        let authz = AuthorizerValue::new(UserInfo::new("u"), recorder(AuthzResponse::deny()));
        assert_eq!(
            authz.path("").unwrap_err().message,
            "path must not be empty"
        );
        assert_eq!(
            authz.path(" \t\u{a0}").unwrap_err().message,
            "path must not be empty"
        );
        assert_eq!(
            authz.group("").resource("  ").unwrap_err().message,
            "resource must not be empty"
        );
        // The name is checked first.
        assert_eq!(
            authz
                .service_account("not@a#valid!namespace", "invalid@*name")
                .unwrap_err()
                .message,
            "Invalid service account name"
        );
        assert_eq!(
            authz
                .service_account("not@a#valid!namespace", "validname")
                .unwrap_err()
                .message,
            "Invalid service account namespace"
        );
        // A namespace must be a label (no dots); a name may be a subdomain.
        assert!(authz.service_account("a.b", "x").is_err());
        assert!(authz.service_account("ns", "x.y.z").is_ok());
    }

    #[test]
    fn decisions_with_errors() {
        let d =
            DecisionValue::new(AuthzResponse::new(AuthzDecision::Allow, "r").with_error("boom"));
        assert!(d.allowed());
        assert!(d.errored());
        assert_eq!(d.error(), "boom");
        assert_eq!(d.text(), "Allow: r (error: boom)");
        let d = DecisionValue::new(AuthzResponse::no_opinion());
        assert!(!d.allowed());
        assert_eq!(d.type_name(), DECISION_TYPE);
    }

    #[test]
    fn user_info_from_json() {
        let u = UserInfo::from_json(&serde_json::json!({
            "username": "alice", "uid": "42", "groups": ["a", 1, "b"],
            "extra": {"scopes": ["x", "y"], "bad": "z"}
        }));
        assert_eq!(u.name, "alice");
        assert_eq!(u.uid, "42");
        assert_eq!(u.groups, vec!["a", "b"]);
        assert_eq!(u.extra.get("scopes").unwrap(), &vec!["x", "y"]);
        assert_eq!(u.extra.get("bad").unwrap(), &Vec::<String>::new());
        assert_eq!(UserInfo::from_json(&Json::Null), UserInfo::default());
    }

    #[test]
    fn request_resource_preset() {
        let req = serde_json::json!({
            "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
            "subResource": "scale", "namespace": "prod", "name": "web"
        });
        let rr = RequestResource::from_request(&req);
        let rec = recorder(AuthzResponse::deny());
        let (a, r) = authorizer_values(UserInfo::new("bob"), rec.clone(), &rr);
        assert_eq!(a.type_name(), AUTHORIZER_TYPE);
        let Value::Opaque(o) = r else { panic!() };
        let check = o.as_any().downcast_ref::<ResourceCheck>().unwrap();
        check.check("patch");
        assert_eq!(
            rec.seen.lock().unwrap().as_slice(),
            ["bob [] patch apps/* deployments/scale/prod/web fs=None ls=None"]
        );
    }

    #[test]
    fn opaque_equality_is_never_true() {
        let authz = AuthorizerValue::new(UserInfo::new("u"), recorder(AuthzResponse::deny()));
        assert!(!authz.equals(&authz.clone()));
        assert_eq!(authz.type_name(), AUTHORIZER_TYPE);
    }
}
