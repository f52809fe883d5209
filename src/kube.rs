//! kube-rs integration: decide on the AdmissionRequest a kube-rs webhook server already
//! holds, and take conditions from k8s-openapi's webhook types.
//!
//! [`KubeRequest`] turns kube's typed `AdmissionRequest<DynamicObject>` (or
//! `AdmissionRequest<T>` for a k8s-openapi type `T`) into the request the apiserver sends,
//! in the shape of its typed `admission.k8s.io/v1` AdmissionRequest: members Go omits when
//! empty are omitted (kube keeps them as `null`), `kind`, `resource`, `requestKind` and
//! `requestResource` carry exactly their three members, `userInfo` its non-empty members.
//! [`KubeRequest::activation`] binds it. From a `DynamicObject` the object's members are
//! moved, not copied; only its typed metadata is serialised.
//!
//! `object` and `oldObject` are what the Rust types carry: a `DynamicObject` keeps every
//! member of the object except where k8s-openapi's `ObjectMeta` drops `null` members
//! (`metadata.creationTimestamp: null`, which Go sends for an unset timestamp, becomes
//! absent); a typed `T` keeps what k8s-openapi models of it. Conditions that read such
//! members see the difference; everything else decides as on the raw review.
//!
//! Deciding on `serde_json::to_value(&request)` of kube's request also gives the
//! apiserver's decision (the `request` view reads `null` as absent and shows the declared
//! members of the request's structures only), at a higher cost per decision: prefer
//! [`KubeRequest`].
//!
//! ```
//! use kube_core::admission::{AdmissionRequest, AdmissionReview};
//! use kube_core::DynamicObject;
//! use matchcond::kube::KubeRequest;
//! use matchcond::{Decision, Environment, FailurePolicy, KubeVersion, MatchCondition, MatchConditions};
//!
//! let env = Environment::kubernetes(KubeVersion::V1_34);
//! let conditions = MatchConditions::compile(&env, &[
//!     MatchCondition::new("not-kube-system", "request.namespace != 'kube-system'"),
//! ]).unwrap();
//! let body = br#"{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
//!   "request": {"uid": "1", "operation": "CREATE", "name": "shop",
//!     "kind": {"group": "", "version": "v1", "kind": "Namespace"},
//!     "resource": {"group": "", "version": "v1", "resource": "namespaces"},
//!     "userInfo": {"username": "alice"},
//!     "object": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}}}"#;
//! let review: AdmissionReview<DynamicObject> = serde_json::from_slice(body).unwrap();
//! let request: AdmissionRequest<DynamicObject> = review.try_into().unwrap();
//! // A Namespace is cluster-scoped: `request.namespace` is absent, as in the apiserver.
//! let request = KubeRequest::from_dynamic(request).unwrap();
//! let decision = conditions.decide(&request.activation(), FailurePolicy::Fail);
//! assert_eq!(decision, Decision::Reject {
//!     message: "expression 'request.namespace != 'kube-system'' resulted in error: \
//!               no such key: namespace".into(),
//! });
//! ```

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube_core::admission::{AdmissionRequest, AdmissionReview, Operation};
use kube_core::{DynamicObject, GroupVersionKind, GroupVersionResource, Resource};
use serde_json::{Map, Value as Json};

use matchcond_runtime::Activation;

pub use matchcond_matcher::{WebhookConditions, WebhookError};

/// Why a kube-rs AdmissionReview or AdmissionRequest could not be taken.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// The AdmissionReview has no `request`.
    #[error("the AdmissionReview has no request")]
    NoRequest,
    /// An object (or the request's options) did not serialise to JSON.
    #[error("cannot serialise the request's {member}: {source}")]
    Serialize {
        /// `object`, `oldObject` or `options`.
        member: &'static str,
        /// serde_json's error.
        source: serde_json::Error,
    },
}

/// An AdmissionRequest of kube-rs, as the apiserver sends it: bind it with
/// [`KubeRequest::activation`] (see the [module](self) docs).
#[derive(Clone, Debug, PartialEq)]
pub struct KubeRequest {
    json: Json,
}

impl KubeRequest {
    /// Takes a request with `DynamicObject`s, moving their members (no copy of the objects).
    pub fn from_dynamic(request: AdmissionRequest<DynamicObject>) -> Result<Self, RequestError> {
        let mut m = header(&request);
        if let Some(o) = request.object {
            m.insert("object".into(), dynamic_json(o, "object")?);
        }
        if let Some(o) = request.old_object {
            m.insert("oldObject".into(), dynamic_json(o, "oldObject")?);
        }
        if let Some(o) = request.options {
            put_present(&mut m, "options", o.0);
        }
        Ok(KubeRequest {
            json: Json::Object(m),
        })
    }

    /// Takes the request of a review with `DynamicObject`s (see
    /// [`KubeRequest::from_dynamic`]).
    pub fn from_review(review: AdmissionReview<DynamicObject>) -> Result<Self, RequestError> {
        Self::from_dynamic(review.request.ok_or(RequestError::NoRequest)?)
    }

    /// Takes a request with objects of any serialisable type (a k8s-openapi type such as
    /// `Pod`, or a `DynamicObject` without giving it up): the objects are serialised.
    pub fn from_typed<T>(request: &AdmissionRequest<T>) -> Result<Self, RequestError>
    where
        T: Resource + serde::Serialize,
    {
        let mut m = header(request);
        for (member, o) in [
            ("object", request.object.as_ref()),
            ("oldObject", request.old_object.as_ref()),
        ] {
            if let Some(o) = o {
                let j = serde_json::to_value(o)
                    .map_err(|source| RequestError::Serialize { member, source })?;
                m.insert(member.into(), j);
            }
        }
        if let Some(o) = &request.options {
            put_present(&mut m, "options", o.0.clone());
        }
        Ok(KubeRequest {
            json: Json::Object(m),
        })
    }

    /// The variables of the request: `object`, `oldObject`, `request` (bind an authorizer
    /// with [`Activation::with_authorizer`] for conditions that use one).
    pub fn activation(&self) -> Activation<'_> {
        Activation::from_request(&self.json)
    }

    /// The request as JSON (the `request` member of the AdmissionReview the apiserver
    /// sends).
    pub fn json(&self) -> &Json {
        &self.json
    }

    /// The request as JSON, owned.
    pub fn into_json(self) -> Json {
        self.json
    }
}

/// The dispatcher decides a `KubeRequest` as it is, without a copy.
#[cfg(feature = "dispatch")]
impl crate::dispatch::AdmissionInput for KubeRequest {
    fn admission_request(
        &self,
    ) -> Result<std::borrow::Cow<'_, Json>, crate::dispatch::RequestError> {
        Ok(std::borrow::Cow::Borrowed(&self.json))
    }
}

impl TryFrom<AdmissionRequest<DynamicObject>> for KubeRequest {
    type Error = RequestError;
    fn try_from(request: AdmissionRequest<DynamicObject>) -> Result<Self, RequestError> {
        KubeRequest::from_dynamic(request)
    }
}

impl TryFrom<AdmissionReview<DynamicObject>> for KubeRequest {
    type Error = RequestError;
    fn try_from(review: AdmissionReview<DynamicObject>) -> Result<Self, RequestError> {
        KubeRequest::from_review(review)
    }
}

impl<T: Resource + serde::Serialize> TryFrom<&AdmissionRequest<T>> for KubeRequest {
    type Error = RequestError;
    fn try_from(request: &AdmissionRequest<T>) -> Result<Self, RequestError> {
        KubeRequest::from_typed(request)
    }
}

/// The members of a request other than its objects and options, as Go's
/// `admission/v1.AdmissionRequest` marshals them (`omitempty` strings and pointers omitted
/// when empty).
fn header<T: Resource>(r: &AdmissionRequest<T>) -> Map<String, Json> {
    let mut m = Map::new();
    m.insert("uid".into(), Json::String(r.uid.clone()));
    m.insert("kind".into(), gvk(&r.kind));
    m.insert("resource".into(), gvr(&r.resource));
    put_string(&mut m, "subResource", r.sub_resource.as_deref());
    if let Some(k) = &r.request_kind {
        m.insert("requestKind".into(), gvk(k));
    }
    if let Some(res) = &r.request_resource {
        m.insert("requestResource".into(), gvr(res));
    }
    put_string(
        &mut m,
        "requestSubResource",
        r.request_sub_resource.as_deref(),
    );
    put_string(&mut m, "name", Some(&r.name));
    put_string(&mut m, "namespace", r.namespace.as_deref());
    let operation = match r.operation {
        Operation::Create => "CREATE",
        Operation::Update => "UPDATE",
        Operation::Delete => "DELETE",
        Operation::Connect => "CONNECT",
    };
    m.insert("operation".into(), Json::String(operation.into()));
    m.insert("userInfo".into(), user_info(&r.user_info));
    m.insert("dryRun".into(), Json::Bool(r.dry_run));
    m
}

/// A string member, omitted when empty.
fn put_string(m: &mut Map<String, Json>, key: &str, value: Option<&str>) {
    if let Some(v) = value.filter(|v| !v.is_empty()) {
        m.insert(key.into(), Json::String(v.to_owned()));
    }
}

/// A member, omitted when null.
fn put_present(m: &mut Map<String, Json>, key: &str, value: Json) {
    if !value.is_null() {
        m.insert(key.into(), value);
    }
}

fn gvk(k: &GroupVersionKind) -> Json {
    triple([
        ("group", &k.group),
        ("version", &k.version),
        ("kind", &k.kind),
    ])
}

fn gvr(r: &GroupVersionResource) -> Json {
    triple([
        ("group", &r.group),
        ("version", &r.version),
        ("resource", &r.resource),
    ])
}

/// A kind or a resource: its three members, always present.
fn triple(members: [(&str, &String); 3]) -> Json {
    Json::Object(
        members
            .into_iter()
            .map(|(k, v)| (k.to_owned(), Json::String(v.clone())))
            .collect(),
    )
}

/// `userInfo`: every member is `omitempty` in Go.
fn user_info(u: &k8s_openapi::api::authentication::v1::UserInfo) -> Json {
    let strings = |v: &[String]| Json::Array(v.iter().cloned().map(Json::String).collect());
    let mut m = Map::new();
    put_string(&mut m, "username", u.username.as_deref());
    put_string(&mut m, "uid", u.uid.as_deref());
    if let Some(groups) = u.groups.as_ref().filter(|g| !g.is_empty()) {
        m.insert("groups".into(), strings(groups));
    }
    if let Some(extra) = u.extra.as_ref().filter(|e| !e.is_empty()) {
        let extra = extra.iter().map(|(k, v)| (k.clone(), strings(v))).collect();
        m.insert("extra".into(), Json::Object(extra));
    }
    Json::Object(m)
}

/// A `DynamicObject` as JSON: its members moved, its type and metadata added.
fn dynamic_json(o: DynamicObject, member: &'static str) -> Result<Json, RequestError> {
    let DynamicObject {
        types,
        metadata,
        data,
    } = o;
    let mut m = match data {
        Json::Object(m) => m,
        _ => Map::new(),
    };
    if let Some(t) = types {
        m.insert("apiVersion".into(), Json::String(t.api_version));
        m.insert("kind".into(), Json::String(t.kind));
    }
    m.insert("metadata".into(), metadata_json(metadata, member)?);
    Ok(Json::Object(m))
}

/// A typed `ObjectMeta` as JSON, as k8s-openapi serialises it, except that the
/// `managedFields` entries' `fieldsV1` trees (most of the metadata of a real object) are
/// moved rather than serialised.
fn metadata_json(mut metadata: ObjectMeta, member: &'static str) -> Result<Json, RequestError> {
    let error = |source| RequestError::Serialize { member, source };
    let managed = metadata.managed_fields.take();
    let mut json = serde_json::to_value(&metadata).map_err(error)?;
    if let (Some(entries), Json::Object(m)) = (managed, &mut json) {
        let mut list = Vec::with_capacity(entries.len());
        for mut entry in entries {
            let fields = entry.fields_v1.take();
            let mut e = serde_json::to_value(&entry).map_err(error)?;
            if let (Some(f), Json::Object(e)) = (fields, &mut e) {
                e.insert("fieldsV1".into(), f.0);
            }
            list.push(e);
        }
        m.insert("managedFields".into(), Json::Array(list));
    }
    Ok(json)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn metadata_is_what_k8s_openapi_serialises() {
        let object: Json = serde_json::json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {
                "name": "web-0", "namespace": "shop", "labels": {"app": "web"},
                "creationTimestamp": "2024-06-11T09:14:07Z",
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet",
                    "name": "web", "uid": "u", "controller": true}],
                "managedFields": [
                    {"manager": "kubectl", "operation": "Update", "apiVersion": "v1",
                     "time": "2024-06-11T09:14:07Z", "fieldsType": "FieldsV1",
                     "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}}},
                    {"manager": "kubelet", "operation": "Update", "subresource": "status"}
                ]
            },
            "spec": {"containers": [{"name": "web", "image": "nginx"}]}
        });
        let dynamic: DynamicObject = serde_json::from_value(object.clone()).unwrap();
        let whole = serde_json::to_value(&dynamic).unwrap();
        assert_eq!(dynamic_json(dynamic, "object").unwrap(), whole);
        assert_eq!(whole, object);
    }
}
