//! From an audit event to the AdmissionRequest the apiserver built for it: which events
//! pass through admission, their operation, kind, resource, name, namespace and user, the
//! objects and options the event recorded, and what it could not carry ([`Missing`]).
//!
//! How the apiserver derives them: the request info (`RequestInfoFactory`) gives the verb,
//! resource, subresource, namespace and name the event's `verb` and `objectRef` record;
//! the REST handlers turn them into admission attributes: `create` is `CREATE`, `update`
//! and `patch` are `UPDATE` (`CREATE` when the update created the object: response 201),
//! `delete` and `deletecollection` are `DELETE`, and the connect subresources (`exec`,
//! `attach`, `portforward`, `proxy`) are `CONNECT` whatever the HTTP method. Reads (`get`,
//! `list`, `watch`) never reach admission; neither do requests refused by authentication
//! (response 401), by priority and fairness (response 429 before authorization decided) or
//! by authorization (annotation `authorization.k8s.io/decision: forbid`).

use serde_json::{Map, Value as Json};

use super::connect;
use super::event::{Event, Level, Stage};
use super::uri::RequestUri;
use crate::dispatch::{insert_attributes, Attributes};
use crate::request::catalog::{admitted_namespace, is_builtin_resource, Catalog, Operation};
use crate::request::place_in_namespace;
use crate::types::{Gvk, Gvr};

/// Whether an event's request passes through admission.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Passage {
    /// It does, with this operation.
    Admitted(Operation),
    /// A read (`get`, `list`, `watch`, …): admission is not called.
    Read,
    /// A request for a non-resource URL (no `objectRef`).
    NonResource,
    /// Refused by authentication (response 401) before admission.
    Unauthenticated,
    /// Refused by authorization (`authorization.k8s.io/decision: forbid`) before admission.
    Forbidden,
    /// Answered 429 before authorization decided (no `authorization.k8s.io/decision`):
    /// refused by the priority-and-fairness or max-in-flight filter, which run before
    /// authorization and admission.
    Throttled,
    /// Answered 404 before admission: an update, patch or delete of an object that does
    /// not exist (the store looks it up before it admits the change), or a create in a
    /// namespace that does not exist (refused by the first admission plugin, before any
    /// webhook). A create of a subresource (`pods/eviction`) and a CONNECT look their
    /// object up after admission, so their 404 says nothing of it.
    NotFound,
}

/// True when the catalog serves `resource/subresource` through a connecter
/// (`pods/exec`, `pods/attach`, `pods/portforward`, `pods/proxy`, `services/proxy`,
/// `nodes/proxy`): admission sees CONNECT whatever the HTTP method.
pub fn is_connect(
    catalog: &Catalog,
    group: &str,
    version: &str,
    resource: &str,
    sub: &str,
) -> bool {
    !sub.is_empty()
        && catalog
            .by_resource(group, version, resource)
            .and_then(|r| r.subresource(sub))
            .is_some_and(|s| s.operations.contains(&Operation::Connect))
}

/// Whether the request of an event passes through admission, and with which operation.
pub fn passage(event: &Event<'_>, catalog: &Catalog) -> Passage {
    let Some(r) = &event.object_ref else {
        return Passage::NonResource;
    };
    if r.resource.is_empty() {
        return Passage::NonResource;
    }
    let status = event.response_status.as_ref().map_or(0, |s| s.code);
    if status == 401 {
        return Passage::Unauthenticated;
    }
    let decision = event
        .annotations
        .as_ref()
        .and_then(|a| a.authorization_decision.as_deref());
    match (decision, status) {
        (Some("forbid"), _) => return Passage::Forbidden,
        (None, 429) => return Passage::Throttled,
        _ => {}
    }
    if is_connect(
        catalog,
        &r.api_group,
        &r.api_version,
        &r.resource,
        &r.subresource,
    ) {
        return Passage::Admitted(Operation::Connect);
    }
    let op = match &*event.verb {
        "create" => Operation::Create,
        "update" | "patch" if status == 201 => Operation::Create,
        "update" | "patch" => Operation::Update,
        "delete" | "deletecollection" => Operation::Delete,
        _ => return Passage::Read,
    };
    if status == 404 && (op != Operation::Create || r.subresource.is_empty()) {
        return Passage::NotFound;
    }
    Passage::Admitted(op)
}

/// The members of the AdmissionRequest that an event could not carry. A condition that
/// reads one of them has no determined result from the event alone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Missing {
    /// `object`: not recorded (level `Metadata`, stage `RequestReceived`, a patch whose body is the patch, the
    /// options of a CONNECT whose URL does not give them).
    pub object: bool,
    /// `oldObject`: the stored object before an UPDATE or DELETE (no level records it).
    pub old_object: bool,
    /// `options`: a DELETE's options when its body is not recorded (level `Metadata`,
    /// stage `RequestReceived`), and a pod's DELETE options unless they ask a grace period
    /// of 0 (the store sets `gracePeriodSeconds` from the stored pod before admission).
    pub options: bool,
    /// `dryRun`: a DELETE's when its body is not recorded (a DELETE sets it in its options,
    /// which a client sends in the body; the query tells only when no body was sent, which
    /// level `Metadata` and stage `RequestReceived` do not show).
    pub dry_run: bool,
    /// `kind` and `requestKind`: the resource is in no catalog and the event records no
    /// object that names its kind.
    pub kind: bool,
    /// `name`: a CREATE recorded at stage `RequestReceived`, whose name the handler reads
    /// from the body after that stage is written (unless the URL gives it).
    pub name: bool,
}

impl Missing {
    /// True when nothing is missing.
    pub fn is_empty(&self) -> bool {
        *self == Missing::default()
    }

    /// The names of the missing members, as the AdmissionRequest names them.
    pub fn names(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        for (set, name) in [
            (self.kind, "kind"),
            (self.name, "name"),
            (self.object, "object"),
            (self.old_object, "oldObject"),
            (self.options, "options"),
            (self.dry_run, "dryRun"),
        ] {
            if set {
                out.push(name);
            }
        }
        out
    }
}

/// An event's AdmissionRequest: the request as the apiserver builds it for matchConditions
/// (`request` members; `object` and `oldObject` beside it, null where the operation has
/// none), with what the event could not carry.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct AuditRequest {
    /// The AdmissionRequest (JSON, as in an AdmissionReview's `request`); `uid` is the
    /// event's `auditID`. A missing member is absent (a missing object reads as null if the
    /// request is evaluated as it is: see [`Missing`]).
    pub request: Json,
    /// What the event could not carry.
    pub missing: Missing,
}

/// Why an event has no AdmissionRequest.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotAdmitted {
    /// The request does not pass through admission.
    #[error("the request does not pass through admission ({0:?})")]
    Passage(Passage),
    /// The event's user or recorded object is not valid JSON of its type.
    #[error("invalid {field}: {message}")]
    Invalid {
        /// The event member (`user`, `requestObject`).
        field: &'static str,
        /// What is wrong.
        message: String,
    },
}

/// Builds the AdmissionRequest of an event (see [`AuditRequest`]), the kinds from
/// the catalog (then from the recorded object's `apiVersion` and `kind`).
pub fn admission_request(
    event: &Event<'_>,
    catalog: &Catalog,
) -> Result<AuditRequest, NotAdmitted> {
    let (attrs, kind_known) = attributes(event, catalog)?;
    let (object, old_object, options, mut missing) = parts(event, &attrs)?;
    missing.kind = !kind_known;
    let user = user_info(event)?;
    let mut m = Map::new();
    m.insert("uid".into(), Json::String(event.audit_id.to_string()));
    insert_attributes(&mut m, &attrs, &attrs.kind, user, options);
    m.insert("object".into(), object.unwrap_or(Json::Null));
    m.insert("oldObject".into(), old_object.unwrap_or(Json::Null));
    Ok(AuditRequest {
        request: Json::Object(m),
        missing,
    })
}

/// The dispatch attributes of an event whose request passes through admission, and
/// whether its kind is known.
pub fn attributes(event: &Event<'_>, catalog: &Catalog) -> Result<(Attributes, bool), NotAdmitted> {
    let op = match passage(event, catalog) {
        Passage::Admitted(op) => op,
        other => return Err(NotAdmitted::Passage(other)),
    };
    let r = event.object_ref.clone().unwrap_or_default();
    let resource = Gvr::new(&r.api_group, &r.api_version, &r.resource);
    let mut kind = catalog
        .by_resource(&r.api_group, &r.api_version, &r.resource)
        .and_then(|res| {
            if r.subresource.is_empty() {
                Some(res.gvk())
            } else {
                res.subresource(&r.subresource).map(|s| s.kind.clone())
            }
        });
    if kind.is_none() && r.subresource.is_empty() && op != Operation::Delete {
        kind = event.request_object.and_then(|o| object_kind(o.get()));
    }
    let kind_known = kind.is_some();
    // The request's namespace is the URL's. The event's records the body's when the URL
    // names none (a cluster-scoped object written with a namespace).
    let url_namespace = if r.namespace.is_empty()
        || event.request_uri.is_empty()
        || path_names_namespace(&event.request_uri)
    {
        &*r.namespace
    } else {
        ""
    };
    let namespace = admitted_namespace(&r.api_group, &r.resource, url_namespace, &r.name);
    let attrs = Attributes {
        kind: kind.unwrap_or_default(),
        resource,
        subresource: r.subresource.to_string(),
        name: r.name.to_string(),
        namespace: namespace.to_owned(),
        operation: op.as_str().to_owned(),
        dry_run: dry_run(event, op).unwrap_or(false),
    };
    Ok((attrs, kind_known))
}

/// True when a request URI's path names a namespace as the request info reads it: its
/// first segment after `/api/VERSION` or `/apis/GROUP/VERSION` is `namespaces`, followed by
/// a name.
pub(crate) fn path_names_namespace(uri: &str) -> bool {
    let path = uri.split(['?', '#']).next().unwrap_or_default();
    let mut parts = path.split('/').filter(|p| !p.is_empty());
    let skip = match parts.next() {
        Some("api") => 1,
        Some("apis") => 2,
        _ => return false,
    };
    let mut parts = parts.skip(skip);
    parts.next() == Some("namespaces") && parts.next().is_some()
}

/// Whether admission sees a dry run (`dryrun.IsDryRun` of the options' `dryRun`), `None`
/// when the event cannot tell. A CONNECT is never one, whatever the query says. A DELETE's
/// options are its body's when it sent one (client-go always does) and the query's only
/// when not, so a DELETE recorded at level `Metadata`, which records no body, does not
/// tell. Any other request's options are the query's.
pub(crate) fn dry_run(event: &Event<'_>, op: Operation) -> Option<bool> {
    let query = || RequestUri::gives(&event.request_uri, "dryRun");
    if !tells_dry_run(event, op == Operation::Delete) {
        return None;
    }
    match op {
        Operation::Connect => Some(false),
        Operation::Delete => Some(match event.request_object {
            Some(raw) => body_dry_run(raw.get()),
            None => query(),
        }),
        _ => Some(query()),
    }
}

/// False when the event cannot tell whether its request (a DELETE when `delete`) was a dry
/// run: a DELETE recorded at level `Metadata` (see [`dry_run`]).
pub(crate) fn tells_dry_run(event: &Event<'_>, delete: bool) -> bool {
    !delete || records_body(event)
}

/// True when the event can record its request's body: level `Request` or above, at a stage
/// after `RequestReceived` (the handler records the body after that stage is written).
pub(crate) fn records_body(event: &Event<'_>) -> bool {
    event.level >= Level::Request && event.stage != Stage::RequestReceived
}

/// True when a DELETE's body gives `dryRun` values (false when it is not DeleteOptions'
/// JSON: such a body is reported when the options are built).
fn body_dry_run(raw: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Body {
        #[serde(default, rename = "dryRun")]
        dry_run: Option<Vec<serde::de::IgnoredAny>>,
    }
    serde_json::from_str::<Body>(raw)
        .ok()
        .and_then(|b| b.dry_run)
        .is_some_and(|d| !d.is_empty())
}

/// The `apiVersion` and `kind` an object names.
fn object_kind(raw: &str) -> Option<Gvk> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct TypeMeta<'a> {
        #[serde(borrow, default)]
        api_version: std::borrow::Cow<'a, str>,
        #[serde(borrow, default)]
        kind: std::borrow::Cow<'a, str>,
    }
    let t: TypeMeta<'_> = serde_json::from_str(raw).ok()?;
    if t.kind.is_empty() || t.api_version.is_empty() {
        return None;
    }
    let (group, version) = match t.api_version.split_once('/') {
        Some((g, v)) => (g, v),
        None => ("", &*t.api_version),
    };
    Some(Gvk::new(group, version, &t.kind))
}

/// The `object`, `oldObject` and `options` an event records for its request (`None` where
/// missing or null), and what is missing.
#[allow(clippy::type_complexity)]
pub(crate) fn parts(
    event: &Event<'_>,
    attrs: &Attributes,
) -> Result<(Option<Json>, Option<Json>, Option<Json>, Missing), NotAdmitted> {
    let mut missing = Missing::default();
    let uri = RequestUri::parse(&event.request_uri);
    let body = if records_body(event) {
        match event.request_object {
            Some(raw) => match serde_json::from_str::<Json>(raw.get()) {
                // A body the handler decoded is an object (or null: none recorded).
                Ok(Json::Null) => None,
                Ok(o @ Json::Object(_)) => Some(o),
                Ok(_) => {
                    return Err(NotAdmitted::Invalid {
                        field: "requestObject",
                        message: "not an object".to_owned(),
                    })
                }
                Err(e) => {
                    return Err(NotAdmitted::Invalid {
                        field: "requestObject",
                        message: e.to_string(),
                    })
                }
            },
            None => None,
        }
    } else {
        None
    };
    let (object, old_object, options) = match attrs.operation.as_str() {
        "CREATE" => {
            missing.name = attrs.name.is_empty() && event.stage == Stage::RequestReceived;
            let mut object = if event.verb == "patch" { None } else { body };
            if let Some(o) = &mut object {
                if !preserves_system_fields(attrs) {
                    wipe_system_fields(o, attrs);
                }
                place_in_namespace(o, expected_namespace(attrs));
            }
            missing.object = object.is_none();
            (
                object,
                None,
                Some(options_from_query(&uri, "CreateOptions")),
            )
        }
        "UPDATE" => {
            let mut object = if event.verb == "update" { body } else { None };
            if let Some(o) = &mut object {
                place_in_namespace(o, expected_namespace(attrs));
            }
            missing.object = object.is_none();
            missing.old_object = true;
            (
                object,
                None,
                Some(options_from_query(&uri, "UpdateOptions")),
            )
        }
        "DELETE" => {
            missing.old_object = true;
            // Level Metadata records no body: neither the options nor the dry run they set.
            let unrecorded = !records_body(event);
            missing.options = unrecorded;
            missing.dry_run = unrecorded;
            let mut options = match body {
                Some(b) => Some(delete_options(b)),
                None if unrecorded => None,
                None => Some(options_from_query(&uri, "DeleteOptions")),
            };
            if let Some(Json::Object(o)) = &mut options {
                // The store's delete turns a negative grace period into 1 before it admits.
                if o.get("gracePeriodSeconds")
                    .and_then(Json::as_i64)
                    .is_some_and(|g| g < 0)
                {
                    o.insert("gracePeriodSeconds".into(), Json::from(1));
                }
                // A pod's graceful delete then sets the period from the stored pod (0 when
                // it is unscheduled or finished, else the one asked, else the pod's own):
                // known only when 0 was asked.
                let pod = attrs.resource.group.is_empty()
                    && attrs.resource.resource == "pods"
                    && attrs.subresource.is_empty();
                if pod && o.get("gracePeriodSeconds").and_then(Json::as_i64) != Some(0) {
                    missing.options = true;
                }
            }
            (None, None, options)
        }
        _ => {
            // CONNECT: the connecter's options, decoded from the URL.
            let object = connect::connect_object(&uri, &attrs.kind);
            missing.object = object.is_none();
            (object, None, None)
        }
    };
    Ok((object, old_object, options, missing))
}

/// True for the subresources whose create keeps the object's system fields (`uid` as a
/// precondition): `pods/binding` and `serviceaccounts/token`.
fn preserves_system_fields(attrs: &Attributes) -> bool {
    attrs.resource.group.is_empty()
        && matches!(
            (attrs.resource.resource.as_str(), attrs.subresource.as_str()),
            ("pods", "binding") | ("serviceaccounts", "token")
        )
}

/// Clears the system fields of a created object as the create handler does before
/// admission (`WipeObjectMetaSystemFields`): `uid`, `selfLink`, `deletionTimestamp`,
/// `deletionGracePeriodSeconds`, and `creationTimestamp`, which a built-in type writes as
/// null and a custom resource leaves out.
fn wipe_system_fields(object: &mut Json, attrs: &Attributes) {
    let Some(Json::Object(meta)) = object.get_mut("metadata") else {
        return;
    };
    for field in [
        "uid",
        "selfLink",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
    ] {
        meta.remove(field);
    }
    if meta.get("creationTimestamp").is_some_and(|t| !t.is_null()) {
        let r = &attrs.resource;
        if is_builtin_resource(&r.group, &r.version, &r.resource) {
            meta.insert("creationTimestamp".into(), Json::Null);
        } else {
            meta.remove("creationTimestamp");
        }
    }
}

/// The namespace a request's object must be in (`ExpectedNamespaceForResource`): the
/// request's, but none for a Namespace (whose request is in the namespace it names).
fn expected_namespace(attrs: &Attributes) -> &str {
    let r = &attrs.resource;
    if r.group.is_empty() && r.resource == "namespaces" {
        ""
    } else {
        &attrs.namespace
    }
}

/// The user admission sees, as the AdmissionRequest's `userInfo`.
pub(crate) fn user_info(event: &Event<'_>) -> Result<Json, NotAdmitted> {
    match event.effective_user() {
        Some(raw) => {
            let user: Json = serde_json::from_str(raw.get()).map_err(|e| NotAdmitted::Invalid {
                field: "user",
                message: e.to_string(),
            })?;
            if user.is_object() {
                Ok(user)
            } else {
                Err(NotAdmitted::Invalid {
                    field: "user",
                    message: "not an object".to_owned(),
                })
            }
        }
        None => Ok(Json::Object(Map::new())),
    }
}

/// The members of `meta/v1` DeleteOptions besides its type (without
/// `ignoreStoreReadErrorWithClusterBreakingPotential`: see [`delete_options`]).
const DELETE_OPTIONS_MEMBERS: [&str; 5] = [
    "dryRun",
    "gracePeriodSeconds",
    "orphanDependents",
    "preconditions",
    "propagationPolicy",
];

/// The options of a DELETE that sent a body, as the delete handlers admit them: the body
/// decoded into `meta/v1` DeleteOptions (its members only; a `null` member, an empty
/// `dryRun` and a `null` precondition dropped, as `omitempty` drops a nil pointer or an
/// empty list) and typed `meta.k8s.io/v1` `DeleteOptions` whatever version the body named
/// (a log records the body in the version the client sent, `v1` for older clients).
/// `ignoreStoreReadErrorWithClusterBreakingPotential` is cleared, as it is while the
/// `AllowUnsafeMalformedObjectDeletion` feature is off (its default). A body that is not an
/// object is kept as it is.
fn delete_options(body: Json) -> Json {
    let Json::Object(given) = body else {
        return body;
    };
    let mut m = Map::new();
    m.insert("kind".into(), Json::String("DeleteOptions".to_owned()));
    m.insert(
        "apiVersion".into(),
        Json::String("meta.k8s.io/v1".to_owned()),
    );
    for (k, v) in given {
        if !DELETE_OPTIONS_MEMBERS.contains(&k.as_str()) {
            continue;
        }
        let v = match v {
            Json::Null => continue,
            Json::Array(a) if a.is_empty() && k == "dryRun" => continue,
            Json::Object(p) if k == "preconditions" => {
                Json::Object(p.into_iter().filter(|(_, v)| !v.is_null()).collect())
            }
            v => v,
        };
        m.insert(k, v);
    }
    Json::Object(m)
}

/// The options of a create, update or delete as the handler decodes them from the query
/// (`dryRun`, `fieldManager`, `fieldValidation`; `gracePeriodSeconds`, `orphanDependents`
/// and `propagationPolicy` of a delete), with their `apiVersion` and `kind`.
fn options_from_query(uri: &RequestUri, kind: &str) -> Json {
    let mut m = Map::new();
    m.insert("kind".into(), Json::String(kind.to_owned()));
    m.insert(
        "apiVersion".into(),
        Json::String("meta.k8s.io/v1".to_owned()),
    );
    let dry: Vec<Json> = uri
        .values("dryRun")
        .iter()
        .map(|v| Json::String(String::from_utf8_lossy(v).into_owned()))
        .collect();
    if !dry.is_empty() {
        m.insert("dryRun".into(), Json::Array(dry));
    }
    let names: &[&str] = if kind == "DeleteOptions" {
        &["propagationPolicy"]
    } else {
        &["fieldManager", "fieldValidation"]
    };
    for name in names {
        if let Some(v) = uri.first(name) {
            m.insert((*name).to_owned(), Json::String(v));
        }
    }
    if kind == "DeleteOptions" {
        if let Some(n) = uri
            .first("gracePeriodSeconds")
            .and_then(|v| v.parse::<i64>().ok())
        {
            m.insert("gracePeriodSeconds".into(), Json::from(n));
        }
        // Any value but `0` and `false` (in any case) is true, as the query conversions read
        // a boolean.
        if let Some(v) = uri.values("orphanDependents").first() {
            m.insert(
                "orphanDependents".into(),
                Json::Bool(connect::query_true(v)),
            );
        }
    }
    Json::Object(m)
}
