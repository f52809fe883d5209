//! # matchcond
//!
//! Decides, for every admission request, whether a Kubernetes admission webhook must be
//! called: it compiles and validates a webhook's CEL `matchConditions` once and evaluates
//! them per request exactly as kube-apiserver does — the same type checking, the same
//! semantics, the same cost limits and the same error texts.
//!
//! This crate is matchcond's only public contract. The `matchcond-*` crates it is built on
//! are internal: their APIs change without notice.
//!
//! ## The roads in
//!
//! | you hold | you use |
//! | --- | --- |
//! | an AdmissionRequest as JSON (`serde_json::Value`) | [`MatchConditions::compile`], [`Activation::from_request`], [`MatchConditions::decide`] or [`MatchConditions::explain`] |
//! | the raw bytes of an AdmissionReview | [`MatchConditions::decide_review`]: only what the conditions read is built; [`MatchConditions::read_review_to_decide`] to bind the request yourself ([`MatchConditions::read_review`] keeps the request's other members), [`MatchConditions::read_review_envelope`] with the review's `apiVersion` and `kind` from the same pass |
//! | kube-rs's typed `AdmissionReview<DynamicObject>` (feature `kube`) | [`kube::KubeRequest`][kube-request], [`kube::WebhookConditions`][kube-webhook] |
//! | whole webhook configurations (feature `dispatch`) | [`dispatch::load_documents`] or the strict [`dispatch::load::load_text`], [`dispatch::Validator`], [`dispatch::Dispatcher`]: it decides a request given as JSON, as an AdmissionReview's bytes or as a `KubeRequest` alike ([`dispatch::AdmissionInput`]) |
//! | configurations to check in CI (feature `lint`) | [`lint::Linter`] |
//! | conditions that call `authorizer` | [`authz::Authorizer`] (yours) or [`authz::StaticAuthorizer`] |
//! | one CEL expression | [`Environment::compile`], [`Program::evaluate`] |
//! | the cluster's own objects | see [below](#from-the-clusters-own-objects) |
//!
//! ## From the cluster's own objects
//!
//! | the cluster gives | you use |
//! | --- | --- |
//! | its version (`/version`'s `gitVersion`, `v1.38.1`) | [`KubeVersion::for_cluster`]: the model to use, flagged when the cluster is newer than the newest model ([`KubeVersion`]'s `FromStr` is strict) |
//! | one `ValidatingWebhook` / `MutatingWebhook` (k8s-openapi) | `WebhookConditions::from_validating` / `from_mutating` (features `dispatch` or `kube`) |
//! | a `ValidatingWebhookConfiguration` / `MutatingWebhookConfiguration` | [`dispatch::Configuration`]`::from_validating` / `from_mutating`, then [`dispatch::Dispatcher`] (feature `dispatch`) |
//! | watcher or reflector events of both configuration kinds | [`runtime::LiveDispatcher`][live]: recompiles what changed, swaps the set atomically (feature `runtime`) |
//! | a reflector's `Store<Namespace>` | [`runtime::StoreNamespaces`][store], the namespaces of namespaceSelectors (feature `runtime`) |
//! | a webhook's `failurePolicy` field | [`FailurePolicy::from_field`] (`Fail` when unset) |
//! | decisions to count as the apiserver does | [`metrics::MatchConditionMetrics`][metrics] (feature `metrics`): its matchConditions metrics, by name and labels |
//!
//! `examples/kube-webhook` puts these together: a kube-rs webhook server that watches its
//! cluster's configurations and namespaces and serves its metrics.
//!
//! Every road answers with one verdict, [`Decision`]: `Call`, `Reject` with the apiserver's
//! text (an [`ErrorText`], written when first read), or `Skip` with its [`Skip`] reason — the false condition, the dispatcher's check,
//! or the error `failurePolicy: Ignore` swallowed ([`IgnoredError`]: which condition, the
//! apiserver's text), ready to log or count without evaluating again.
//!
//! Compiling is strict: [`MatchConditions::compile`] refuses conditions that do not compile
//! and names each of them ([`ConditionsError`]). The apiserver is lenient with a
//! configuration it has stored — such a condition is an error `compilation error: …` when
//! deciding, which the failure policy then decides — and
//! [`MatchConditions::compile_lenient`] does the same.
//!
//! ## Deciding on JSON
//!
//! ```
//! use matchcond::{Activation, Decision, Environment, FailurePolicy, KubeVersion, MatchCondition, MatchConditions};
//!
//! let env = Environment::kubernetes(KubeVersion::V1_34);
//! let conditions = MatchConditions::compile(&env, &[
//!     MatchCondition::new("exclude-leases",
//!         "!(request.resource.group == 'coordination.k8s.io' && request.resource.resource == 'leases')"),
//!     MatchCondition::new("opted-in", "object.?metadata.?labels['team'].orValue('') == 'payments'"),
//! ]).unwrap();
//!
//! let review: serde_json::Value = serde_json::from_str(r#"{
//!   "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
//!   "request": {
//!     "uid": "1", "operation": "CREATE", "namespace": "shop", "name": "web-0", "dryRun": false,
//!     "kind": {"group": "", "version": "v1", "kind": "Pod"},
//!     "resource": {"group": "", "version": "v1", "resource": "pods"},
//!     "userInfo": {"username": "alice"},
//!     "object": {"metadata": {"name": "web-0", "labels": {"team": "payments"}}}
//!   }
//! }"#).unwrap();
//!
//! let activation = Activation::from_request(&review["request"]);
//! assert_eq!(conditions.decide(&activation, FailurePolicy::Fail), Decision::Call);
//!
//! // A typo does not compile: every such condition is named, with the apiserver's message.
//! let err = MatchConditions::compile(&env, &[
//!     MatchCondition::new("alice", "request.userinfo.username == 'alice'"),
//! ]).unwrap_err();
//! assert_eq!(err.conditions()[0].name(), "alice");
//! assert!(err.to_string().contains("undefined field 'userinfo'"));
//! ```
//!
//! ## Deciding on raw bytes
//!
//! ```
//! use matchcond::{Decision, Environment, FailurePolicy, MatchCondition, MatchConditions};
//!
//! let set = MatchConditions::compile(&Environment::latest(), &[
//!     MatchCondition::new("web", "object.metadata.labels['app'] == 'web'"),
//! ]).unwrap();
//! let bytes = br#"{"request": {"operation": "CREATE",
//!   "object": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": []}}}}"#;
//! assert_eq!(set.decide_review(bytes, FailurePolicy::Fail).unwrap(), Decision::Call);
//! ```
//!
//! The [`kube`][kube-module] module (feature `kube`) decides on kube-rs's typed requests,
//! [`dispatch`] (feature `dispatch`) on whole configurations by webhook name, [`lint`]
//! (feature `lint`) finds what the apiserver refuses and the traps it accepts, and [`authz`]
//! binds the authorizer the conditions may call; each module's page starts with an example.
//!
//! ## Features
//!
//! `dispatch`, `lint` and `tz` (IANA time zones) are on by default; `kube` adds the
//! [`kube`][kube-module] module, `runtime` the [`runtime`][runtime-module] module (kube-runtime's
//! events and stores), `metrics` the `metrics` module (the apiserver's matchConditions
//! metrics in a prometheus-client registry). With `default-features = false` the core — compile, decide
//! over JSON — needs neither k8s-openapi nor a YAML parser nor time-zone data. No feature chooses
//! k8s-openapi's Kubernetes version: the final binary does.
//!
//! ## Errors
//!
//! Every error type implements `std::error::Error + Send + Sync + 'static`, and its
//! `Display` is the apiserver's (or cel-go's) text where the apiserver has one. Error enums
//! are `#[non_exhaustive]`; errors that carry data give it through accessors.
//!
#![cfg_attr(feature = "kube", doc = "[kube-module]: kube")]
#![cfg_attr(feature = "kube", doc = "[kube-request]: kube::KubeRequest")]
#![cfg_attr(feature = "kube", doc = "[kube-webhook]: kube::WebhookConditions")]
#![cfg_attr(feature = "runtime", doc = "[runtime-module]: runtime")]
#![cfg_attr(feature = "runtime", doc = "[live]: runtime::LiveDispatcher")]
#![cfg_attr(feature = "runtime", doc = "[store]: runtime::StoreNamespaces")]
#![cfg_attr(feature = "metrics", doc = "[metrics]: metrics::MatchConditionMetrics")]
#![cfg_attr(not(feature = "metrics"), doc = "[metrics]: #features")]
#![cfg_attr(not(feature = "runtime"), doc = "[runtime-module]: #features")]
#![cfg_attr(not(feature = "runtime"), doc = "[live]: #features")]
#![cfg_attr(not(feature = "runtime"), doc = "[store]: #features")]
#![cfg_attr(not(feature = "kube"), doc = "[kube-module]: #features")]
#![cfg_attr(not(feature = "kube"), doc = "[kube-request]: #features")]
#![cfg_attr(not(feature = "kube"), doc = "[kube-webhook]: #features")]
#![forbid(unsafe_code)]

pub use matchcond_compiler::{
    ClusterVersion, CompileError, CompileOptions, EnvMode, Environment, KubeVersion,
    ParseKubeVersionError, Program, PER_CALL_COST_LIMIT,
};
pub use matchcond_front::{Issue, Issues, Type};
pub use matchcond_matcher::{
    aggregate_messages, ConditionError, ConditionOutcome, ConditionResult, ConditionsError,
    Decision, ErrorText, FailurePolicy, IgnoredError, MatchCondition, MatchConditions,
    ParseFailurePolicyError, Report, ReviewError, Skip, MATCH_CONDITIONS_BUDGET,
    MAX_MATCH_CONDITIONS,
};
pub use matchcond_runtime::{Activation, ErrorKind, EvalError, Evaluation, Value};

pub mod authz;
#[cfg(feature = "dispatch")]
pub mod dispatch;
#[cfg(feature = "kube")]
pub mod kube;
pub mod limits;
#[cfg(feature = "lint")]
pub mod lint;
#[cfg(feature = "metrics")]
pub mod metrics;
#[cfg(feature = "runtime")]
pub mod runtime;
pub mod value;

/// The README's examples, compiled and run as doc tests (they use every feature).
#[doc = include_str!("../README.md")]
#[cfg(all(
    doctest,
    feature = "dispatch",
    feature = "lint",
    feature = "kube",
    feature = "runtime"
))]
pub struct ReadmeDoctests;

#[cfg(test)]
mod tests {
    /// Every error type of the public API is a `std::error::Error + Send + Sync + 'static`.
    #[test]
    fn every_error_is_an_error_send_sync_and_static() {
        fn is_error<T: std::error::Error + Send + Sync + 'static>() {}
        is_error::<crate::CompileError>();
        is_error::<crate::ConditionsError>();
        is_error::<crate::ConditionError>();
        is_error::<crate::EvalError>();
        is_error::<crate::Issues>();
        is_error::<crate::ReviewError>();
        is_error::<crate::ParseKubeVersionError>();
        is_error::<crate::ParseFailurePolicyError>();
        is_error::<crate::IgnoredError<'static>>();
        is_error::<crate::authz::SelectorError>();
        #[cfg(feature = "dispatch")]
        {
            is_error::<crate::authz::TableError>();
            is_error::<crate::dispatch::LoadError>();
            is_error::<crate::dispatch::RequestError>();
            is_error::<crate::dispatch::FieldError>();
        }
        #[cfg(feature = "kube")]
        {
            is_error::<crate::kube::RequestError>();
            is_error::<crate::kube::WebhookError>();
        }
    }
}
