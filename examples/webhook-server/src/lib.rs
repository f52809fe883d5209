//! An HTTPS admission webhook server that embeds matchcond.
//!
//! The server loads webhook configurations (`ValidatingWebhookConfiguration` /
//! `MutatingWebhookConfiguration` YAML), checks them as the apiserver does
//! ([`config::load`], the one place configurations are read), compiles each webhook's
//! matchConditions once, and answers `admission.k8s.io/v1` AdmissionReviews POSTed to the
//! path the webhook's `clientConfig` names (`service.path`, or the path of `url`) or to
//! `/validate/<webhook>` / `/mutate/<webhook>`.
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
//! The audit annotation `matchcond-decision` is `call`, `skip` or `reject`; on request
//! ([`Webhooks::with_warnings`]) the response's `warnings` list every condition's outcome.
//! The server has no access to the cluster's authorizer: `authorizer` checks in conditions
//! get "no opinion" (`allowed()` is false).
//!
//! Around that, what an operator needs: bounded bodies and in-flight work ([`Limits`]),
//! a graceful drain on shutdown ([`serve`]), `/healthz`, `/readyz` and Prometheus
//! `/metrics`, and a serving certificate reloaded when its files change.

#![forbid(unsafe_code)]

pub mod config;
pub mod flags;
pub mod http;
pub mod limits;
pub mod metrics;
pub mod paths;
pub mod server;
pub mod tls;
pub mod webhooks;

pub use config::ConfigError;
pub use http::{router, App};
pub use limits::Limits;
pub use metrics::Metrics;
pub use server::{serve, Drained, ServeOptions};
pub use tls::{
    certified_key, self_signed, self_signed_files, server_config, server_config_with, CertStore,
    SelfSigned, TlsError,
};
pub use webhooks::{Answer, Message, Operation, Outcome, ReviewError, Webhook, Webhooks};
