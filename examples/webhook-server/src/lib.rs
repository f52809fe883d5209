//! An HTTPS admission webhook server that embeds matchcond.
//!
//! The server loads webhook configurations (`ValidatingWebhookConfiguration` /
//! `MutatingWebhookConfiguration` YAML), validates them as the apiserver does, compiles each
//! webhook's matchConditions once, and answers `admission.k8s.io/v1` AdmissionReviews
//! POSTed to `/validate/<webhook>` or `/mutate/<webhook>`.
//!
//! Its own admission logic is deliberately trivial; it decides the webhook's
//! matchConditions for the request, exactly as the apiserver would before calling it, and
//! answers:
//!
//! * every condition true (the apiserver calls the webhook): `allowed: true`;
//! * a condition false, or errors under `failurePolicy: Ignore` (the apiserver skips the
//!   webhook): `allowed: true`, the status message naming the false condition or the
//!   errors;
//! * errors under `failurePolicy: Fail` (the apiserver rejects the request): `allowed:
//!   false`, status 403 `Forbidden` with the apiserver's message.
//!
//! The response's `warnings` list every condition's outcome (`matchCondition "name":
//! true|false|error|not evaluated`) and its audit annotation `matchcond-decision` is
//! `call`, `skip` or `reject`. The server has no access to the cluster's authorizer:
//! `authorizer` checks in conditions get "no opinion" (`allowed()` is false).

#![forbid(unsafe_code)]

pub mod http;
pub mod tls;
pub mod webhooks;

pub use http::router;
pub use tls::{self_signed, serve, server_config, SelfSigned, TlsError};
pub use webhooks::{ConfigError, ReviewError, Webhook, Webhooks};
