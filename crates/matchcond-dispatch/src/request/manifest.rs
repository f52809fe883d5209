//! From manifests to the AdmissionReview kube-apiserver sends: the request's kind,
//! resource and subresource from the catalog, the name and namespace as the request
//! handlers derive them, `object`/`oldObject` by operation, the operation's options object
//! and the requesting user; and the check of hand-written reviews against what the
//! apiserver always sends.

use matchcond_runtime::authz::UserInfo;
use serde_json::{json, Map, Value as Json};

use crate::request::catalog::{
    admitted_namespace, api_version, ApiResource, ApiSubresource, Catalog, Operation,
};
use crate::request::namespaces::METADATA_NAME_LABEL;
use crate::request::{opt_map, opt_str, place_in_namespace, ManifestError, ManifestErrorKind};
use crate::types::Gvk;
use crate::yaml::{Node, Value};

/// The AdmissionReview version built.
pub const REVIEW_API_VERSION: &str = "admission.k8s.io/v1";

/// The namespace a namespaced request goes to when neither the manifest nor the options
/// name one (kubectl's default).
pub const DEFAULT_NAMESPACE: &str = "default";

/// The request uid used when none is given (the apiserver draws a random one; the
/// matchConditions never see it).
pub const DEFAULT_UID: &str = "00000000-0000-0000-0000-000000000000";

/// The user as the apiserver gives it: the groups given, then `system:authenticated` for
/// a named user that is not `system:anonymous` (`system:unauthenticated` for it), as
/// impersonation (`kubectl --as`) adds them.
fn effective_user(user: &UserInfo) -> UserInfo {
    let mut user = user.clone();
    let implied = match user.name.as_str() {
        "" => None,
        "system:anonymous" => Some("system:unauthenticated"),
        _ => Some("system:authenticated"),
    };
    if let Some(g) = implied {
        if !user.groups.iter().any(|x| x == g) {
            user.groups.push(g.to_owned());
        }
    }
    user
}

/// What a request is, beside its manifests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RequestOptions {
    /// The operation; `None` infers it from the manifests given (object only: `CREATE`,
    /// or the subresource's one operation; object and old object: `UPDATE`; old object
    /// only: `DELETE`).
    pub operation: Option<Operation>,
    /// The subresource (`None` or `""`: the main resource).
    pub subresource: Option<String>,
    /// The namespace (`-n`); must agree with the manifest's `metadata.namespace`.
    pub namespace: Option<String>,
    /// The requesting user, as an authenticator (or impersonation) gives it: the review's
    /// `userInfo` adds the group every authenticated user is in (`system:authenticated`,
    /// or `system:unauthenticated` for `system:anonymous`) unless it is given.
    pub user: UserInfo,
    /// The request's uid (default [`DEFAULT_UID`]).
    pub uid: Option<String>,
    /// A dry run.
    pub dry_run: bool,
}

/// A built review, with the notes on what was assumed.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct BuiltReview {
    /// The AdmissionReview (`admission.k8s.io/v1`).
    pub review: Json,
    /// What was assumed for want of an option (`no user`, the default namespace).
    pub notes: Vec<String>,
}

impl BuiltReview {
    /// The review's `request`.
    pub fn request(&self) -> &Json {
        self.review.get("request").unwrap_or(&Json::Null)
    }
}

/// Which manifest an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Role {
    /// The new object (`object`).
    Object,
    /// The stored object (`oldObject`).
    OldObject,
    /// No manifest: the options alone.
    Options,
}

/// An error building a request: which manifest it is about and the problem.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{error}")]
#[non_exhaustive]
pub struct BuildError {
    /// The manifest it is about.
    pub role: Role,
    /// The problem, positioned in that manifest's text.
    pub error: ManifestError,
}

fn conflict(role: Role, node: Option<&Node>, path: &str, message: String) -> BuildError {
    BuildError {
        role,
        error: ManifestError::new(node.map(|n| n.start), path, message)
            .with_kind(ManifestErrorKind::Conflict),
    }
}

fn invalid(role: Role, e: ManifestError) -> BuildError {
    BuildError { role, error: e }
}

/// The identity of a manifest: its type and metadata.
struct Identity<'a> {
    node: &'a Node,
    api_version: &'a str,
    kind: &'a str,
    name: Option<&'a str>,
    generate_name: Option<&'a str>,
    namespace: Option<&'a str>,
}

fn identity(node: &Node, role: Role) -> Result<Identity<'_>, BuildError> {
    if !matches!(node.value, Value::Map(_)) {
        return Err(invalid(
            role,
            ManifestError::at(
                node,
                "",
                format!("a manifest must be an object, not {}", node.describe()),
            ),
        ));
    }
    let need = |key: &str| -> Result<&str, BuildError> {
        match opt_str(node, key, key).map_err(|e| invalid(role, e))? {
            Some(s) if !s.is_empty() => Ok(s),
            _ => Err(invalid(
                role,
                ManifestError::at(node.get(key).unwrap_or(node), key, "Required value"),
            )),
        }
    };
    let api_version = need("apiVersion")?;
    let kind = need("kind")?;
    let meta = opt_map(node, "metadata", "metadata").map_err(|e| invalid(role, e))?;
    let field = |key: &str| -> Result<Option<&str>, BuildError> {
        match meta {
            Some(m) => Ok(opt_str(m, key, &format!("metadata.{key}"))
                .map_err(|e| invalid(role, e))?
                .filter(|s| !s.is_empty())),
            None => Ok(None),
        }
    };
    Ok(Identity {
        node,
        api_version,
        kind,
        name: field("name")?,
        generate_name: field("generateName")?,
        namespace: field("namespace")?,
    })
}

/// Where a manifest's metadata member is, for messages.
fn meta_node<'a>(id: &Identity<'a>, key: &str) -> Option<&'a Node> {
    id.node.get("metadata").and_then(|m| m.get(key))
}

/// The resource (and subresource) a manifest's kind is served by.
fn resolve<'c>(
    catalog: &'c Catalog,
    id: &Identity<'_>,
    subresource: &str,
    role: Role,
) -> Result<(&'c ApiResource, Option<&'c ApiSubresource>), BuildError> {
    let resource = catalog.by_api_version_kind(id.api_version, id.kind);
    if let Some(r) = resource {
        if subresource.is_empty() {
            return Ok((r, None));
        }
        if let Some(s) = r.subresource(subresource) {
            return Ok((r, Some(s)));
        }
    }
    // A subresource's own kind (an Eviction, a Scale, a TokenRequest; a Binding, which is a
    // resource of its own too).
    let (group, version) = crate::request::catalog::split_api_version(id.api_version);
    let own = Gvk::new(group, version, id.kind);
    if !subresource.is_empty() {
        let parents: Vec<(&ApiResource, &ApiSubresource)> = catalog
            .iter()
            .filter_map(|r| {
                r.subresource(subresource)
                    .filter(|s| s.kind == own)
                    .map(|s| (r, s))
            })
            .collect();
        match parents.as_slice() {
            [(r, s)] => return Ok((r, Some(s))),
            [] => {}
            many => {
                let names: Vec<String> = many
                    .iter()
                    .map(|(r, _)| format!("{}/{subresource}", r.plural))
                    .collect();
                return Err(conflict(
                    role,
                    Some(id.node),
                    "kind",
                    format!(
                        "a {} is taken by several subresources ({}): give the parent object's manifest instead",
                        id.kind,
                        names.join(", ")
                    ),
                ));
            }
        }
    }
    if let Some(r) = resource {
        let known: Vec<&str> = r.subresources.iter().map(|s| s.name.as_str()).collect();
        return Err(conflict(
            Role::Options,
            None,
            "",
            format!(
                "{} has no subresource {subresource:?} ({})",
                r.plural,
                if known.is_empty() {
                    "it has none".to_owned()
                } else {
                    format!("it has {}", known.join(", "))
                }
            ),
        ));
    }
    Err(BuildError {
        role,
        error: ManifestError::new(
            Some(id.node.get("kind").unwrap_or(id.node).start),
            "kind",
            format!(
                "unknown kind {:?} of apiVersion {:?}: not a built-in resource, and no CustomResourceDefinition given defines it",
                id.kind, id.api_version
            ),
        )
        .with_kind(ManifestErrorKind::UnknownKind),
    })
}

/// The options object of an operation, as the apiserver passes it to admission.
fn options_object(operation: Operation, dry_run: bool) -> Json {
    let kind = match operation {
        Operation::Create => "CreateOptions",
        Operation::Update => "UpdateOptions",
        Operation::Delete => "DeleteOptions",
        Operation::Connect => return Json::Null,
    };
    let mut m = Map::new();
    m.insert("kind".into(), json!(kind));
    m.insert("apiVersion".into(), json!("meta.k8s.io/v1"));
    if dry_run {
        m.insert("dryRun".into(), json!(["All"]));
    }
    Json::Object(m)
}

/// The object a subresource request carries when its kind is not the parent's: the
/// connect options, or a minimal object of the subresource's kind built from the parent
/// (a `Scale` with the parent's replicas).
fn subresource_object(parent: &Json, sub: &ApiSubresource, id: &Identity<'_>) -> Json {
    let mut m = Map::new();
    m.insert("kind".into(), json!(sub.kind.kind));
    m.insert(
        "apiVersion".into(),
        json!(api_version(&sub.kind.group, &sub.kind.version)),
    );
    if sub.operations.contains(&Operation::Connect) {
        // The options of a connect that names none (`command` of exec is not omitempty).
        return crate::audit::connect::zero_options(&sub.kind).unwrap_or(Json::Object(m));
    }
    let mut meta = Map::new();
    if let Some(Json::Object(pm)) = parent.get("metadata") {
        for key in [
            "name",
            "namespace",
            "uid",
            "resourceVersion",
            "creationTimestamp",
        ] {
            if let Some(v) = pm.get(key) {
                meta.insert(key.into(), v.clone());
            }
        }
    }
    if let (Some(n), false) = (id.name, meta.contains_key("name")) {
        meta.insert("name".into(), json!(n));
    }
    if sub.kind.kind == "Scale" {
        // A typed object: its creation time is written, null when not set.
        meta.entry("creationTimestamp").or_insert(Json::Null);
    }
    m.insert("metadata".into(), Json::Object(meta));
    if sub.kind.kind == "Scale" {
        let replicas = parent
            .get("spec")
            .and_then(|s| s.get("replicas"))
            .cloned()
            .unwrap_or(json!(1));
        let status = parent
            .get("status")
            .and_then(|s| s.get("replicas"))
            .cloned()
            .unwrap_or(json!(0));
        // `spec.replicas` is `omitempty`: a scale to zero has none.
        let spec = if replicas.as_i64() == Some(0) {
            json!({})
        } else {
            json!({"replicas": replicas})
        };
        m.insert("spec".into(), spec);
        let mut st = Map::new();
        st.insert("replicas".into(), status);
        if let Some(selector) = scale_selector(parent).filter(|s| !s.is_empty()) {
            st.insert("selector".into(), Json::String(selector));
        }
        m.insert("status".into(), Json::Object(st));
    }
    Json::Object(m)
}

/// The `status.selector` of a built-in workload's Scale: its label selector as the
/// registry prints it (`LabelSelectorAsSelector(...).String()`: requirements sorted by key,
/// `k=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, values sorted); a ReplicationController's
/// selector map (its template's labels when empty, as defaulting sets it). `None` for
/// another kind or a selector the registry would refuse.
fn scale_selector(parent: &Json) -> Option<String> {
    let spec = parent.get("spec")?;
    // The labels' requirements come first, then the expressions' (a key in both keeps
    // that order through the sort).
    let mut expressions: Vec<(String, String)> = Vec::new();
    let labels = match parent.get("kind").and_then(Json::as_str)? {
        "Deployment" | "ReplicaSet" | "StatefulSet" => {
            let selector = spec.get("selector")?;
            if let Some(Json::Array(exprs)) = selector.get("matchExpressions") {
                for e in exprs {
                    let key = e.get("key")?.as_str()?;
                    let mut values: Vec<&str> = match e.get("values") {
                        Some(Json::Array(v)) => {
                            v.iter().map(Json::as_str).collect::<Option<_>>()?
                        }
                        _ => Vec::new(),
                    };
                    values.sort_unstable();
                    let text = match e.get("operator")?.as_str()? {
                        "In" if !values.is_empty() => format!("{key} in ({})", values.join(",")),
                        "NotIn" if !values.is_empty() => {
                            format!("{key} notin ({})", values.join(","))
                        }
                        "Exists" if values.is_empty() => key.to_owned(),
                        "DoesNotExist" if values.is_empty() => format!("!{key}"),
                        _ => return None,
                    };
                    expressions.push((key.to_owned(), text));
                }
            }
            selector.get("matchLabels").and_then(Json::as_object)
        }
        "ReplicationController" => {
            let own = spec
                .get("selector")
                .and_then(Json::as_object)
                .filter(|m| !m.is_empty());
            match own {
                Some(m) => Some(m),
                None => Some(
                    spec.get("template")?
                        .get("metadata")?
                        .get("labels")?
                        .as_object()?,
                ),
            }
        }
        _ => return None,
    };
    let mut requirements = labels
        .into_iter()
        .flatten()
        .map(|(k, v)| Some((k.clone(), format!("{k}={}", v.as_str()?))))
        .collect::<Option<Vec<_>>>()?;
    requirements.append(&mut expressions);
    requirements.sort_by(|a, b| a.0.cmp(&b.0));
    Some(
        requirements
            .into_iter()
            .map(|(_, text)| text)
            .collect::<Vec<_>>()
            .join(","),
    )
}

/// Builds the AdmissionReview the apiserver sends for a request on these manifests:
/// `object` is the new object (CREATE, UPDATE; the parent object naming the target of a
/// CONNECT), `old_object` the stored one (UPDATE, DELETE; on DELETE either may name the
/// object deleted).
///
/// Errors: a manifest that is not an object or lacks `apiVersion`/`kind`, a kind neither
/// built in nor defined by the catalog's CRDs ([`ManifestErrorKind::UnknownKind`]), options
/// that contradict the manifests ([`ManifestErrorKind::Conflict`]: a namespace against
/// `metadata.namespace`, an old object on CREATE, an operation the resource does not take).
pub fn build_review(
    catalog: &Catalog,
    object: Option<&Node>,
    old_object: Option<&Node>,
    options: &RequestOptions,
) -> Result<BuiltReview, BuildError> {
    let subresource = options.subresource.as_deref().unwrap_or("");
    let new_id = object.map(|n| identity(n, Role::Object)).transpose()?;
    let old_id = old_object
        .map(|n| identity(n, Role::OldObject))
        .transpose()?;
    // The operation.
    let operation = match options.operation {
        Some(op) => op,
        None => match (&new_id, &old_id) {
            (Some(_), Some(_)) => Operation::Update,
            (None, Some(_)) => Operation::Delete,
            (Some(id), None) => {
                let (_, sub) = resolve(catalog, id, subresource, Role::Object)?;
                match sub.map(|s| s.operations.as_slice()) {
                    Some([only]) => *only,
                    _ => Operation::Create,
                }
            }
            (None, None) => {
                return Err(conflict(
                    Role::Options,
                    None,
                    "",
                    "no manifest: give the object of the request".to_owned(),
                ))
            }
        },
    };
    // Which manifest is the target, and which the stored object.
    let (target, stored) = match operation {
        Operation::Create | Operation::Connect => {
            if let Some(old) = &old_id {
                return Err(conflict(
                    Role::OldObject,
                    Some(old.node),
                    "",
                    format!("an old object on {operation}: the apiserver sends no oldObject on {operation}"),
                ));
            }
            let Some(id) = new_id else {
                return Err(conflict(
                    Role::Options,
                    None,
                    "",
                    format!("{operation} needs the object of the request"),
                ));
            };
            (id, None)
        }
        Operation::Update => match (new_id, old_id) {
            (Some(n), Some(o)) => (n, Some(o)),
            (Some(_), None) => {
                return Err(conflict(
                    Role::Options,
                    None,
                    "",
                    "UPDATE needs the old object too (the object as stored before the update)"
                        .to_owned(),
                ))
            }
            (None, _) => {
                return Err(conflict(
                    Role::Options,
                    None,
                    "",
                    "UPDATE needs the new object".to_owned(),
                ))
            }
        },
        Operation::Delete => {
            match (new_id, old_id) {
                (Some(n), None) => (n, None),
                (None, Some(o)) => (o, None),
                (Some(_), Some(o)) => return Err(conflict(
                    Role::OldObject,
                    Some(o.node),
                    "",
                    "DELETE carries one object, the one deleted (sent as oldObject): give it once"
                        .to_owned(),
                )),
                (None, None) => {
                    return Err(conflict(
                        Role::Options,
                        None,
                        "",
                        "DELETE needs the object deleted".to_owned(),
                    ))
                }
            }
        }
    };
    let target_role = if operation == Operation::Delete && object.is_none() {
        Role::OldObject
    } else {
        Role::Object
    };
    let (resource, sub) = resolve(catalog, &target, subresource, target_role)?;
    if let Some(old) = &stored {
        if old.api_version != target.api_version || old.kind != target.kind {
            return Err(conflict(
                Role::OldObject,
                Some(old.node.get("kind").unwrap_or(old.node)),
                "kind",
                format!(
                    "the old object is a {} {}, the object a {} {}",
                    old.api_version, old.kind, target.api_version, target.kind
                ),
            ));
        }
    }
    let takes = match sub {
        Some(s) => &s.operations,
        None => &resource.operations,
    };
    if !takes.contains(&operation) {
        let what = match sub {
            Some(s) => format!("{}/{}", resource.plural, s.name),
            None => resource.plural.clone(),
        };
        let allowed: Vec<&str> = takes.iter().map(|o| o.as_str()).collect();
        return Err(conflict(
            Role::Options,
            None,
            "",
            format!(
                "{what} does not take {operation} ({})",
                if allowed.is_empty() {
                    "no operation reaches admission through it".to_owned()
                } else {
                    format!("it takes {}", allowed.join(", "))
                }
            ),
        ));
    }
    let mut notes = Vec::new();
    // The namespace.
    let namespace: Option<String> = if resource.namespaced {
        let from_manifest = target.namespace;
        if let Some(old) = &stored {
            if old.namespace.is_some() && old.namespace != from_manifest && from_manifest.is_some()
            {
                return Err(conflict(
                    Role::OldObject,
                    meta_node(old, "namespace"),
                    "metadata.namespace",
                    format!(
                        "the old object is in namespace {:?}, the object in {:?}",
                        old.namespace.unwrap_or_default(),
                        from_manifest.unwrap_or_default()
                    ),
                ));
            }
        }
        let from_manifest = from_manifest.or(stored.as_ref().and_then(|o| o.namespace));
        match (from_manifest, options.namespace.as_deref().filter(|n| !n.is_empty())) {
            (Some(m), Some(o)) if m != o => {
                return Err(conflict(
                    target_role,
                    meta_node(&target, "namespace"),
                    "metadata.namespace",
                    format!(
                        "the namespace from the provided object {m:?} does not match the namespace {o:?}"
                    ),
                ))
            }
            (Some(m), _) => Some(m.to_owned()),
            (None, Some(o)) => Some(o.to_owned()),
            (None, None) => {
                notes.push(format!(
                    "no namespace given: the request is in namespace {DEFAULT_NAMESPACE:?}"
                ));
                Some(DEFAULT_NAMESPACE.to_owned())
            }
        }
    } else {
        // Cluster-scoped: in no namespace, unless it is a Namespace (in itself).
        let own = admitted_namespace(
            &resource.group,
            &resource.plural,
            "",
            target.name.unwrap_or(""),
        );
        (!own.is_empty()).then(|| own.to_owned())
    };
    // The name.
    let name = match (target.name, operation) {
        (Some(n), _) => Some(n.to_owned()),
        (None, Operation::Create) if target.generate_name.is_some() && sub.is_none() => None,
        (None, _) => {
            return Err(BuildError {
                role: target_role,
                error: ManifestError::at(
                    target.node.get("metadata").unwrap_or(target.node),
                    "metadata.name",
                    if operation == Operation::Create {
                        "Required value: name or generateName is required"
                    } else {
                        "Required value"
                    },
                ),
            })
        }
    };
    // The objects, in the request's namespace (the stored one is in it too). A Namespace
    // is decoded with the label of its name (`SetDefaults_Namespace`), which its own
    // namespaceSelector reads.
    let own_name_label = resource.group.is_empty() && resource.plural == "namespaces";
    let expected = match &namespace {
        Some(ns) if resource.namespaced => ns.as_str(),
        _ => "",
    };
    let place = |mut json: Json| -> Json {
        place_in_namespace(&mut json, expected);
        if let Some(Json::Object(meta)) = json.get_mut("metadata") {
            let name = meta.get("name").and_then(Json::as_str).map(str::to_owned);
            if let (true, Some(name)) = (own_name_label, name.filter(|n| !n.is_empty())) {
                let labels = meta
                    .entry("labels")
                    .or_insert_with(|| Json::Object(Map::new()));
                if !labels.is_object() {
                    *labels = Json::Object(Map::new());
                }
                if let Json::Object(l) = labels {
                    l.insert(METADATA_NAME_LABEL.into(), Json::String(name));
                }
            }
        }
        json
    };
    let target_json = place(target.node.to_json());
    let differs = sub.is_some_and(|s| s.kind != resource.gvk())
        && !(target.kind == sub.map_or("", |s| s.kind.kind.as_str())
            && catalog
                .by_api_version_kind(target.api_version, target.kind)
                .is_none());
    let convert = |json: Json, id: &Identity<'_>| -> Json {
        match sub {
            Some(s) if differs => subresource_object(&json, s, id),
            _ => json,
        }
    };
    let (object_json, old_json) = match operation {
        Operation::Create => (convert(target_json, &target), Json::Null),
        Operation::Update => {
            let old = stored
                .as_ref()
                .map_or(Json::Null, |o| convert(place(o.node.to_json()), o));
            (convert(target_json, &target), old)
        }
        Operation::Delete => (Json::Null, convert(target_json, &target)),
        Operation::Connect => (
            match sub {
                Some(s) => subresource_object(&target_json, s, &target),
                None => Json::Null,
            },
            Json::Null,
        ),
    };
    let kind = match sub {
        Some(s) => s.kind.clone(),
        None => resource.gvk(),
    };
    let gvr = resource.gvr();
    let mut r = Map::new();
    r.insert(
        "uid".into(),
        json!(options.uid.as_deref().unwrap_or(DEFAULT_UID)),
    );
    r.insert("kind".into(), kind.to_json());
    r.insert("resource".into(), gvr.to_json());
    if let Some(s) = sub {
        r.insert("subResource".into(), json!(s.name));
    }
    r.insert("requestKind".into(), kind.to_json());
    r.insert("requestResource".into(), gvr.to_json());
    if let Some(s) = sub {
        r.insert("requestSubResource".into(), json!(s.name));
    }
    if let Some(n) = &name {
        r.insert("name".into(), json!(n));
    }
    if let Some(ns) = &namespace {
        r.insert("namespace".into(), json!(ns));
    }
    r.insert("operation".into(), json!(operation.as_str()));
    if options.user.name.is_empty() {
        notes.push("no user given: the request's userInfo is empty".to_owned());
    }
    r.insert("userInfo".into(), effective_user(&options.user).to_json());
    r.insert("object".into(), object_json);
    r.insert("oldObject".into(), old_json);
    r.insert("dryRun".into(), json!(options.dry_run));
    r.insert("options".into(), options_object(operation, options.dry_run));
    Ok(BuiltReview {
        review: json!({
            "apiVersion": REVIEW_API_VERSION,
            "kind": "AdmissionReview",
            "request": Json::Object(r),
        }),
        notes,
    })
}

/// A problem of a hand-written AdmissionRequest: a member the apiserver always sends is
/// missing or of the wrong type, or contradicts another.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReviewWarning {
    /// The member's path in the review (`request.kind.kind`).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ReviewWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

fn json_type(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "a list",
        Json::Object(_) => "an object",
    }
}

/// Checks a hand-written AdmissionRequest (a review's `request`) against what the
/// apiserver always sends: `uid`, `kind`, `resource`, `requestKind`, `requestResource`,
/// `operation`, `userInfo`, `dryRun`, a `namespace` for a namespaced resource the
/// catalog knows, `object`/`oldObject` as the operation has them, and the types of the
/// members given. Paths start at `request`.
pub fn check_request(request: &Json, catalog: &Catalog) -> Vec<ReviewWarning> {
    let mut out = Vec::new();
    let mut warn = |path: &str, message: String| {
        out.push(ReviewWarning {
            path: format!("request.{path}"),
            message,
        });
    };
    let Json::Object(m) = request else {
        warn("", format!("must be an object, not {}", json_type(request)));
        return out;
    };
    let string = |key: &str, required: bool, warn: &mut dyn FnMut(&str, String)| match m.get(key) {
        None | Some(Json::Null) if required => {
            warn(key, "missing: the apiserver always sends it".to_owned());
        }
        None | Some(Json::Null | Json::String(_)) => {}
        Some(v) => warn(key, format!("must be a string, not {}", json_type(v))),
    };
    string("uid", true, &mut warn);
    string("name", false, &mut warn);
    string("namespace", false, &mut warn);
    string("subResource", false, &mut warn);
    string("requestSubResource", false, &mut warn);
    for (key, last) in [
        ("kind", "kind"),
        ("resource", "resource"),
        ("requestKind", "kind"),
        ("requestResource", "resource"),
    ] {
        match m.get(key) {
            None | Some(Json::Null) => {
                warn(key, "missing: the apiserver always sends it".to_owned());
            }
            Some(Json::Object(o)) => {
                for part in ["group", "version", last] {
                    match o.get(part) {
                        Some(Json::String(s)) if !s.is_empty() || part == "group" => {}
                        Some(Json::String(_)) => {
                            warn(&format!("{key}.{part}"), "empty".to_owned());
                        }
                        None | Some(Json::Null) => warn(
                            &format!("{key}.{part}"),
                            "missing: the apiserver always sends it".to_owned(),
                        ),
                        Some(v) => warn(
                            &format!("{key}.{part}"),
                            format!("must be a string, not {}", json_type(v)),
                        ),
                    }
                }
            }
            Some(v) => warn(key, format!("must be an object, not {}", json_type(v))),
        }
    }
    let operation = match m.get("operation") {
        None | Some(Json::Null) => {
            warn(
                "operation",
                "missing: the apiserver always sends it".to_owned(),
            );
            None
        }
        Some(Json::String(s)) => match Operation::ALL.into_iter().find(|o| o.as_str() == s) {
            Some(o) => Some(o),
            None => {
                warn(
                    "operation",
                    format!(
                        "{s:?} is not an admission operation (CREATE, UPDATE, DELETE, CONNECT)"
                    ),
                );
                None
            }
        },
        Some(v) => {
            warn(
                "operation",
                format!("must be a string, not {}", json_type(v)),
            );
            None
        }
    };
    match m.get("userInfo") {
        None | Some(Json::Null) => warn(
            "userInfo",
            "missing: the apiserver always sends the requesting user".to_owned(),
        ),
        Some(Json::Object(u)) => {
            match u.get("username") {
                Some(Json::String(s)) if !s.is_empty() => {}
                None | Some(Json::Null | Json::String(_)) => warn(
                    "userInfo.username",
                    "missing: every request has a user (system:anonymous when unauthenticated)"
                        .to_owned(),
                ),
                Some(v) => warn(
                    "userInfo.username",
                    format!("must be a string, not {}", json_type(v)),
                ),
            }
            if let Some(v) = u.get("uid").filter(|v| !v.is_null() && !v.is_string()) {
                warn(
                    "userInfo.uid",
                    format!("must be a string, not {}", json_type(v)),
                );
            }
            match u.get("groups") {
                None | Some(Json::Null) => {}
                Some(Json::Array(items)) => {
                    for (i, g) in items.iter().enumerate() {
                        if !g.is_string() {
                            warn(
                                &format!("userInfo.groups[{i}]"),
                                format!("must be a string, not {}", json_type(g)),
                            );
                        }
                    }
                }
                Some(v) => warn(
                    "userInfo.groups",
                    format!("must be a list, not {}", json_type(v)),
                ),
            }
            match u.get("extra") {
                None | Some(Json::Null) => {}
                Some(Json::Object(e)) => {
                    for (k, v) in e {
                        let ok = match v {
                            Json::Array(items) => items.iter().all(Json::is_string),
                            Json::Null => true,
                            _ => false,
                        };
                        if !ok {
                            warn(
                                &format!("userInfo.extra.{k}"),
                                "must be a list of strings".to_owned(),
                            );
                        }
                    }
                }
                Some(v) => warn(
                    "userInfo.extra",
                    format!("must be an object, not {}", json_type(v)),
                ),
            }
        }
        Some(v) => warn(
            "userInfo",
            format!("must be an object, not {}", json_type(v)),
        ),
    }
    match m.get("dryRun") {
        None | Some(Json::Null) => warn(
            "dryRun",
            "missing: the apiserver always sends it (false unless a dry run)".to_owned(),
        ),
        Some(Json::Bool(_)) => {}
        Some(v) => warn("dryRun", format!("must be a boolean, not {}", json_type(v))),
    }
    let present = |key: &str| m.get(key).is_some_and(|v| !v.is_null());
    for key in ["object", "oldObject", "options"] {
        if let Some(v) = m.get(key).filter(|v| !v.is_null() && !v.is_object()) {
            warn(key, format!("must be an object, not {}", json_type(v)));
        }
    }
    if let Some(op) = operation {
        let (object, old) = match op {
            Operation::Create | Operation::Connect => (true, false),
            Operation::Update => (true, true),
            Operation::Delete => (false, true),
        };
        if object && !present("object") {
            warn("object", format!("missing: {op} requests carry the object"));
        }
        if !object && present("object") {
            warn(
                "object",
                format!("{op} requests carry no object (the apiserver sends null)"),
            );
        }
        if old && !present("oldObject") {
            warn(
                "oldObject",
                format!("missing: {op} requests carry the stored object"),
            );
        }
        if !old && present("oldObject") {
            warn(
                "oldObject",
                format!("{op} requests carry no oldObject (the apiserver sends null)"),
            );
        }
    }
    // A namespaced resource without a namespace reads as cluster-scoped: the
    // namespaceSelector is not evaluated.
    let gvr = m
        .get("requestResource")
        .or_else(|| m.get("resource"))
        .and_then(Json::as_object)
        .map(|o| {
            let s = |k: &str| o.get(k).and_then(Json::as_str).unwrap_or("").to_owned();
            (s("group"), s("version"), s("resource"))
        });
    if let Some((g, v, r)) = gvr {
        if let Some(res) = catalog.by_resource(&g, &v, &r) {
            let ns_empty = m
                .get("namespace")
                .and_then(Json::as_str)
                .is_none_or(str::is_empty);
            if res.namespaced && ns_empty {
                warn(
                    "namespace",
                    format!(
                        "missing: {r} are namespaced; without a namespace the request reads as cluster-scoped and no namespaceSelector is evaluated"
                    ),
                );
            }
            let name = m.get("name").and_then(Json::as_str).unwrap_or("");
            let own = admitted_namespace(&g, &r, "", name);
            if !res.namespaced && !ns_empty && own.is_empty() {
                warn(
                    "namespace",
                    format!("{r} are cluster-scoped: the apiserver sends no namespace"),
                );
            }
            if ns_empty && !own.is_empty() {
                warn(
                    "namespace",
                    format!(
                        "missing: a request on a Namespace (its creation too) is in the namespace it names: the apiserver sends {own:?}"
                    ),
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::read_documents;
    use matchcond_compiler::KubeVersion;

    fn node(text: &str) -> Node {
        read_documents(text).documents.remove(0).root.unwrap()
    }

    fn catalog() -> Catalog {
        Catalog::builtin_for(KubeVersion::V1_34)
    }

    fn alice() -> RequestOptions {
        RequestOptions {
            user: UserInfo::new("alice").with_groups(["dev"]),
            ..RequestOptions::default()
        }
    }

    const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: shop\n  labels: {app: web}\nspec:\n  containers: [{name: c, image: nginx}]\n";

    /// The stored object is in the request's namespace too, and a Namespace carries the
    /// label of its name, as decoding defaults it.
    #[test]
    fn objects_are_placed_as_the_apiserver_holds_them() {
        let deploy = node(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 1}\n",
        );
        let mut o = alice();
        o.namespace = Some("shop".into());
        let built = build_review(&catalog(), Some(&deploy), Some(&deploy), &o).unwrap();
        let r = built.request();
        assert_eq!(r["object"]["metadata"]["namespace"], "shop");
        assert_eq!(r["oldObject"]["metadata"]["namespace"], "shop");
        let ns = node("apiVersion: v1\nkind: Namespace\nmetadata: {name: gatekeeper-system, namespace: x, labels: {kubernetes.io/metadata.name: other, team: a}}\n");
        let built = build_review(&catalog(), Some(&ns), Some(&ns), &alice()).unwrap();
        let r = built.request();
        assert_eq!(r["namespace"], "gatekeeper-system");
        for member in ["object", "oldObject"] {
            assert_eq!(
                r[member]["metadata"],
                json!({"name": "gatekeeper-system", "labels": {"kubernetes.io/metadata.name": "gatekeeper-system", "team": "a"}}),
                "{member}"
            );
        }
        let unnamed = node("apiVersion: v1\nkind: Namespace\nmetadata: {generateName: tmp-}\n");
        let built = build_review(&catalog(), Some(&unnamed), None, &alice()).unwrap();
        assert_eq!(
            built.request()["object"]["metadata"],
            json!({"generateName": "tmp-"})
        );
    }

    #[test]
    fn a_pod_create_is_what_the_apiserver_sends() {
        let pod = node(POD);
        let built = build_review(&catalog(), Some(&pod), None, &alice()).unwrap();
        assert_eq!(built.notes, Vec::<String>::new());
        assert_eq!(
            built.review,
            json!({
                "apiVersion": "admission.k8s.io/v1",
                "kind": "AdmissionReview",
                "request": {
                    "uid": DEFAULT_UID,
                    "kind": {"group": "", "version": "v1", "kind": "Pod"},
                    "resource": {"group": "", "version": "v1", "resource": "pods"},
                    "requestKind": {"group": "", "version": "v1", "kind": "Pod"},
                    "requestResource": {"group": "", "version": "v1", "resource": "pods"},
                    "name": "web",
                    "namespace": "shop",
                    "operation": "CREATE",
                    "userInfo": {"username": "alice", "groups": ["dev", "system:authenticated"]},
                    "object": pod.to_json(),
                    "oldObject": null,
                    "dryRun": false,
                    "options": {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"},
                }
            })
        );
        assert!(check_request(built.request(), &catalog()).is_empty());
    }

    #[test]
    fn names_namespaces_and_objects_by_operation() {
        let c = catalog();
        // generateName: no name; -n fills the object's namespace.
        let gen = node("apiVersion: apps/v1\nkind: Deployment\nmetadata: {generateName: web-}\n");
        let mut o = alice();
        o.namespace = Some("dev".into());
        o.dry_run = true;
        let r = build_review(&c, Some(&gen), None, &o).unwrap();
        let req = r.request();
        assert_eq!(req.get("name"), None);
        assert_eq!(req["namespace"], "dev");
        assert_eq!(req["object"]["metadata"]["namespace"], "dev");
        assert_eq!(req["dryRun"], true);
        assert_eq!(req["options"]["dryRun"], json!(["All"]));
        // -n against metadata.namespace.
        let pod = node(POD);
        let e = build_review(&c, Some(&pod), None, &o).unwrap_err();
        assert_eq!(e.error.kind(), ManifestErrorKind::Conflict);
        assert_eq!(
            e.to_string(),
            "5:14: metadata.namespace: the namespace from the provided object \"shop\" does not match the namespace \"dev\""
        );
        // DELETE: the object is the old object, no object.
        let mut del = alice();
        del.operation = Some(Operation::Delete);
        let r = build_review(&c, Some(&pod), None, &del).unwrap();
        assert_eq!(r.request()["object"], Json::Null);
        assert_eq!(r.request()["oldObject"], pod.to_json());
        assert_eq!(r.request()["options"]["kind"], "DeleteOptions");
        // An old object on CREATE.
        let mut create = alice();
        create.operation = Some(Operation::Create);
        let e = build_review(&c, Some(&pod), Some(&pod), &create).unwrap_err();
        assert_eq!(e.role, Role::OldObject);
        assert!(e.to_string().contains("no oldObject on CREATE"), "{e}");
        // UPDATE inferred from both.
        let r = build_review(&c, Some(&pod), Some(&pod), &alice()).unwrap();
        assert_eq!(r.request()["operation"], "UPDATE");
        assert_eq!(r.request()["options"]["kind"], "UpdateOptions");
        // A cluster-scoped kind has no namespace.
        let node_obj = node("apiVersion: v1\nkind: Node\nmetadata: {name: n1, namespace: x}\n");
        let r = build_review(&c, Some(&node_obj), None, &alice()).unwrap();
        assert_eq!(r.request().get("namespace"), None);
        assert_eq!(r.request()["object"]["metadata"].get("namespace"), None);
        // A Namespace is in itself, created, updated or deleted.
        let ns = node("apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n");
        let r = build_review(&c, Some(&ns), None, &alice()).unwrap();
        assert_eq!(r.request()["namespace"], "team");
        assert!(check_request(r.request(), &c).is_empty());
        let mut hand_written = r.request().clone();
        hand_written.as_object_mut().unwrap().remove("namespace");
        assert_eq!(
            check_request(&hand_written, &c)
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            ["request.namespace: missing: a request on a Namespace (its creation too) is in the namespace it names: the apiserver sends \"team\""]
        );
        let r = build_review(&c, Some(&ns), Some(&ns), &alice()).unwrap();
        assert_eq!(r.request()["namespace"], "team");
        let r = build_review(&c, None, Some(&ns), &alice()).unwrap();
        assert_eq!(r.request()["namespace"], "team");
    }

    #[test]
    fn subresources() {
        let c = catalog();
        let pod = node(POD);
        let mut o = alice();
        o.subresource = Some("exec".into());
        let r = build_review(&c, Some(&pod), None, &o).unwrap();
        let req = r.request();
        assert_eq!(req["operation"], "CONNECT");
        assert_eq!(req["kind"]["kind"], "PodExecOptions");
        assert_eq!(req["subResource"], "exec");
        assert_eq!(req["requestSubResource"], "exec");
        assert_eq!(
            req["object"],
            json!({"kind": "PodExecOptions", "apiVersion": "v1", "command": null})
        );
        assert_eq!(req["options"], Json::Null);
        // An operation the subresource does not take.
        o.operation = Some(Operation::Update);
        let e = build_review(&c, Some(&pod), Some(&pod), &o).unwrap_err();
        assert_eq!(
            e.to_string(),
            "pods/exec does not take UPDATE (it takes CONNECT)"
        );
        // Scale from the parent.
        let d = node("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec: {replicas: 3}\n");
        let mut s = alice();
        s.subresource = Some("scale".into());
        let r = build_review(&c, Some(&d), Some(&d), &s).unwrap();
        assert_eq!(
            r.request()["kind"],
            json!({"group": "autoscaling", "version": "v1", "kind": "Scale"})
        );
        assert_eq!(r.request()["object"]["spec"]["replicas"], 3);
        assert_eq!(r.request()["resource"]["resource"], "deployments");
        // The Scale the registry makes of a workload: its selector printed, a scale to
        // zero without spec.replicas (omitempty), a creation time written.
        let d = node("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  replicas: 0\n  selector:\n    matchLabels: {tier: web, app: shop}\n    matchExpressions:\n    - {key: env, operator: In, values: [prod, dev]}\n    - {key: canary, operator: DoesNotExist}\n    - {key: zone, operator: Exists}\n    - {key: bad, operator: NotIn, values: [x]}\n");
        let r = build_review(&c, Some(&d), Some(&d), &s).unwrap();
        assert_eq!(
            r.request()["oldObject"],
            json!({"kind": "Scale", "apiVersion": "autoscaling/v1",
                   "metadata": {"name": "web", "namespace": "shop", "creationTimestamp": null},
                   "spec": {},
                   "status": {"replicas": 0, "selector": "app=shop,bad notin (x),!canary,env in (dev,prod),tier=web,zone"}})
        );
        let rc = node("apiVersion: v1\nkind: ReplicationController\nmetadata: {name: web, namespace: shop}\nspec:\n  template: {metadata: {labels: {b: '2', a: '1'}}}\n");
        let r = build_review(&c, Some(&rc), Some(&rc), &s).unwrap();
        assert_eq!(r.request()["object"]["status"]["selector"], "a=1,b=2");
        assert_eq!(r.request()["object"]["spec"]["replicas"], 1);
        // An Eviction manifest finds pods/eviction.
        let ev =
            node("apiVersion: policy/v1\nkind: Eviction\nmetadata: {name: web, namespace: shop}\n");
        let mut e = alice();
        e.subresource = Some("eviction".into());
        let r = build_review(&c, Some(&ev), None, &e).unwrap();
        assert_eq!(r.request()["resource"]["resource"], "pods");
        assert_eq!(r.request()["object"], ev.to_json());
        // Unknown subresource.
        let mut u = alice();
        u.subresource = Some("nope".into());
        let err = build_review(&c, Some(&pod), None, &u).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("pods has no subresource \"nope\""),
            "{err}"
        );
    }

    #[test]
    fn bad_manifests() {
        let c = catalog();
        let e = build_review(&c, Some(&node("[1]")), None, &alice()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "1:1: a manifest must be an object, not a list"
        );
        let e = build_review(&c, Some(&node("kind: Pod\n")), None, &alice()).unwrap_err();
        assert_eq!(e.to_string(), "1:1: apiVersion: Required value");
        let w = node("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n");
        let e = build_review(&c, Some(&w), None, &alice()).unwrap_err();
        assert_eq!(e.error.kind(), ManifestErrorKind::UnknownKind);
        assert_eq!(e.to_string(), "2:7: kind: unknown kind \"Widget\" of apiVersion \"example.com/v1\": not a built-in resource, and no CustomResourceDefinition given defines it");
        let e = build_review(
            &c,
            Some(&node(
                "apiVersion: v1\nkind: Pod\nmetadata: {namespace: a}\n",
            )),
            None,
            &alice(),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "3:11: metadata.name: Required value: name or generateName is required"
        );
        let e = build_review(
            &c,
            Some(&node(POD)),
            None,
            &RequestOptions {
                operation: Some(Operation::Update),
                ..alice()
            },
        )
        .unwrap_err();
        assert!(e.to_string().contains("UPDATE needs the old object"), "{e}");
    }

    #[test]
    fn hand_written_requests_are_checked() {
        let c = catalog();
        let w = check_request(&json!({"operation": "CREATE", "object": {}}), &c);
        let shown: Vec<String> = w.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            vec![
                "request.uid: missing: the apiserver always sends it",
                "request.kind: missing: the apiserver always sends it",
                "request.resource: missing: the apiserver always sends it",
                "request.requestKind: missing: the apiserver always sends it",
                "request.requestResource: missing: the apiserver always sends it",
                "request.userInfo: missing: the apiserver always sends the requesting user",
                "request.dryRun: missing: the apiserver always sends it (false unless a dry run)",
            ]
        );
        let w = check_request(
            &json!({"uid": 1, "operation": "DELETE", "object": {}, "dryRun": "no",
                "kind": {"group": "", "version": "v1", "kind": "Pod"},
                "resource": {"group": "", "version": "v1", "resource": "pods"},
                "requestKind": {"group": "", "version": "v1", "kind": "Pod"},
                "requestResource": {"group": "", "version": "v1", "resource": "pods"},
                "userInfo": {"username": "a", "groups": "dev"}}),
            &c,
        );
        let shown: Vec<String> = w.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            vec![
                "request.uid: must be a string, not a number",
                "request.userInfo.groups: must be a list, not a string",
                "request.dryRun: must be a boolean, not a string",
                "request.object: DELETE requests carry no object (the apiserver sends null)",
                "request.oldObject: missing: DELETE requests carry the stored object",
                "request.namespace: missing: pods are namespaced; without a namespace the request reads as cluster-scoped and no namespaceSelector is evaluated",
            ]
        );
    }

    #[test]
    fn crds_serve_custom_kinds() {
        let (crds, _) = crate::request::crd::load_crds(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Cluster\n  versions: [{name: v1, served: true, subresources: {status: {}}}]\n",
        );
        let mut c = catalog();
        c.add_crd(&crds[0]);
        let w = node(
            "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: ignored}\n",
        );
        let r = build_review(&c, Some(&w), None, &alice()).unwrap();
        assert_eq!(
            r.request()["resource"],
            json!({"group": "example.com", "version": "v1", "resource": "widgets"})
        );
        assert_eq!(r.request().get("namespace"), None);
    }
}
