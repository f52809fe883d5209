//! # matchcond
//!
//! Decides, for every admission request, whether a Kubernetes admission webhook must be
//! called: it compiles and validates a webhook's CEL `matchConditions` once and evaluates
//! them per request exactly as kube-apiserver does — the same type checking, the same
//! semantics, the same cost limits and the same error texts.
//!
//! This crate is the facade over the layers:
//! [`syntax`] (parser, AST, type checker), [`runtime`] (values, evaluator, cost model,
//! function libraries, the authorizer), [`compiler`] (environments by Kubernetes version,
//! compiled programs, the cache), [`eval`] (the matcher's decision), [`dispatch`] (whole
//! webhook configurations: loading, validation and dispatch) and [`lint`] (what the
//! apiserver refuses and the traps it accepts, with positions).
//!
//! Features: `dispatch`, `lint` and `tz` (IANA time zones) are on by default; `kube` adds
//! the `kube` module (decisions on kube-rs's typed `AdmissionRequest`). With
//! `default-features = false` the core — compile, decide over JSON — needs neither
//! k8s-openapi nor a YAML parser nor time-zone data. No feature chooses k8s-openapi's
//! Kubernetes version: the final binary does.
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
//! ```

// The internal crates, whole, under the module names users import (`syntax` is
// matchcond-front, `eval` is matchcond-matcher).
pub use matchcond_compiler as compiler;
#[cfg(feature = "dispatch")]
pub use matchcond_dispatch as dispatch;
pub use matchcond_front as syntax;
pub use matchcond_gocompat as gocompat;
#[cfg(feature = "lint")]
pub use matchcond_lint as lint;
pub use matchcond_matcher as eval;
pub use matchcond_runtime as runtime;

pub use matchcond_compiler::{
    CompileError, CompileOptions, EnvMode, Environment, KubeVersion, Program, PER_CALL_COST_LIMIT,
};
pub use matchcond_matcher::{
    ConditionOutcome, ConditionResult, Decision, FailurePolicy, MatchCondition, MatchConditions,
    Report, MATCH_CONDITIONS_BUDGET,
};
pub use matchcond_runtime::{Activation, EvalError, Value};

#[cfg(feature = "kube")]
pub mod kube;

/// The README's examples, compiled and run as doc tests (they use every feature).
#[doc = include_str!("../README.md")]
#[cfg(all(doctest, feature = "dispatch", feature = "lint", feature = "kube"))]
pub struct ReadmeDoctests;
