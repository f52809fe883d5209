//! The `audit.k8s.io/v1` `Event`, as the apiserver's log backend writes it (one JSON object
//! per line), read with serde without copying: strings borrow the line where they hold no
//! escape, and the recorded objects and the user stay raw JSON text until a condition needs
//! them.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

/// The API version of the events read (`audit.k8s.io/v1`).
pub const API_VERSION: &str = "audit.k8s.io/v1";

/// How much of a request an event records (`audit.k8s.io/v1` `Level`).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Nothing is logged (no event carries it).
    None,
    /// The request's metadata: user, verb, resource, response status; no body.
    Metadata,
    /// The metadata and the request body (`requestObject`).
    Request,
    /// The metadata, the request body and the response body.
    RequestResponse,
}

impl Level {
    /// The level's name as the log writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::None => "None",
            Level::Metadata => "Metadata",
            Level::Request => "Request",
            Level::RequestResponse => "RequestResponse",
        }
    }
}

/// When in the request's life an event is written (`audit.k8s.io/v1` `Stage`).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, Hash)]
pub enum Stage {
    /// As soon as the audit handler receives the request.
    RequestReceived,
    /// When the response headers are sent, for long-running requests (watch, exec).
    ResponseStarted,
    /// When the response is complete.
    ResponseComplete,
    /// When a panic ended the request.
    Panic,
}

impl Stage {
    /// True for the stages that end a request (`ResponseComplete`, `Panic`): no other event
    /// of the same `auditID` follows.
    pub fn is_final(self) -> bool {
        matches!(self, Stage::ResponseComplete | Stage::Panic)
    }
}

/// The object a request is about (`audit.k8s.io/v1` `ObjectReference`).
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ObjectRef<'a> {
    /// The resource (plural), e.g. `pods`.
    #[serde(borrow, default)]
    pub resource: Cow<'a, str>,
    /// The namespace (empty for cluster-scoped resources).
    #[serde(borrow, default)]
    pub namespace: Cow<'a, str>,
    /// The object's name (empty for a collection, or a create whose name is generated).
    #[serde(borrow, default)]
    pub name: Cow<'a, str>,
    /// The API group (empty for the core group).
    #[serde(borrow, default)]
    pub api_group: Cow<'a, str>,
    /// The API version of the request.
    #[serde(borrow, default)]
    pub api_version: Cow<'a, str>,
    /// The subresource (`status`, `exec`, …), empty for the main resource.
    #[serde(borrow, default)]
    pub subresource: Cow<'a, str>,
}

/// The part of the response status a replay reads (`metav1.Status`).
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResponseStatus<'a> {
    /// The HTTP status code.
    #[serde(default)]
    pub code: i64,
    /// The machine-readable reason (`Forbidden`, `Unauthorized`, …).
    #[serde(borrow, default)]
    pub reason: Cow<'a, str>,
}

/// The annotations a replay reads.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[non_exhaustive]
pub struct Annotations<'a> {
    /// `authorization.k8s.io/decision`: `allow` or `forbid`.
    #[serde(borrow, default, rename = "authorization.k8s.io/decision")]
    pub authorization_decision: Option<Cow<'a, str>>,
}

/// One audit event, borrowing the line it was read from. The members a replay does not
/// read (`sourceIPs`, `userAgent`, `responseObject`, other annotations) are checked as JSON
/// and skipped.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Event<'a> {
    /// `Event`.
    #[serde(borrow, default)]
    pub kind: Cow<'a, str>,
    /// `audit.k8s.io/v1`.
    #[serde(borrow, default)]
    pub api_version: Cow<'a, str>,
    /// How much of the request the event records.
    pub level: Level,
    /// The request's unique id, shared by every stage of it.
    #[serde(borrow, rename = "auditID")]
    pub audit_id: Cow<'a, str>,
    /// When the event was written.
    pub stage: Stage,
    /// The request URI (path and query).
    #[serde(borrow, default, rename = "requestURI")]
    pub request_uri: Cow<'a, str>,
    /// The Kubernetes verb (`create`, `get`, `watch`, …).
    #[serde(borrow, default)]
    pub verb: Cow<'a, str>,
    /// The authenticated user (`authentication.k8s.io/v1` `UserInfo`), as JSON text.
    #[serde(borrow, default)]
    pub user: Option<&'a RawValue>,
    /// The user impersonated, when the request impersonates: admission sees this user.
    #[serde(borrow, default)]
    pub impersonated_user: Option<&'a RawValue>,
    /// The object of the request.
    #[serde(borrow, default)]
    pub object_ref: Option<ObjectRef<'a>>,
    /// The response status (absent before the response).
    #[serde(borrow, default)]
    pub response_status: Option<ResponseStatus<'a>>,
    /// The request body, at levels `Request` and `RequestResponse`, as JSON text.
    #[serde(borrow, default)]
    pub request_object: Option<&'a RawValue>,
    /// When the request was received (RFC 3339 with microseconds).
    #[serde(borrow, default)]
    pub request_received_timestamp: Cow<'a, str>,
    /// The annotations a replay reads.
    #[serde(borrow, default)]
    pub annotations: Option<Annotations<'a>>,
}

/// Why a line is not an audit event.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EventError {
    /// Not JSON, or JSON cut short (a truncated line).
    #[error("not JSON: {0}")]
    Json(String),
    /// JSON, but not an object with the members of an audit event.
    #[error("not an audit event: {0}")]
    NotAnEvent(String),
    /// An object of another kind.
    #[error("not an audit event: kind {0:?}")]
    Kind(String),
    /// An audit event of another API version.
    #[error("unsupported apiVersion {0:?} (expected \"audit.k8s.io/v1\")")]
    ApiVersion(String),
}

impl<'a> Event<'a> {
    /// Reads one line of an audit log (trailing white space allowed).
    pub fn from_line(line: &'a [u8]) -> Result<Event<'a>, EventError> {
        let event: Event<'a> = match serde_json::from_slice(line) {
            Ok(e) => e,
            Err(e) if e.is_data() => {
                // Say what the object is when it names its kind.
                #[derive(Deserialize)]
                #[serde(rename_all = "camelCase")]
                struct TypeMeta {
                    #[serde(default)]
                    kind: String,
                    #[serde(default)]
                    api_version: String,
                }
                return Err(match serde_json::from_slice::<TypeMeta>(line) {
                    Ok(t) if !t.kind.is_empty() && t.kind != "Event" => EventError::Kind(t.kind),
                    Ok(t) if t.kind == "Event" && t.api_version != API_VERSION => {
                        EventError::ApiVersion(t.api_version)
                    }
                    _ => EventError::NotAnEvent(e.to_string()),
                });
            }
            Err(e) => return Err(EventError::Json(e.to_string())),
        };
        if event.kind != "Event" {
            return Err(EventError::Kind(event.kind.into_owned()));
        }
        if event.api_version != API_VERSION {
            return Err(EventError::ApiVersion(event.api_version.into_owned()));
        }
        // The users stay raw until read, but a user that is not an object makes the whole
        // event invalid whether or not a condition reads it.
        for (field, raw) in [
            ("user", event.user),
            ("impersonatedUser", event.impersonated_user),
        ] {
            if raw.is_some_and(|r| !r.get().trim_start().starts_with('{')) {
                return Err(EventError::NotAnEvent(format!(
                    "invalid type: {field} is not an object"
                )));
            }
        }
        Ok(event)
    }

    /// The user admission sees: the impersonated user when the request impersonates, else
    /// the authenticated one.
    pub fn effective_user(&self) -> Option<&'a RawValue> {
        self.impersonated_user.or(self.user)
    }
}
