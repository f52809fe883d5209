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

pub use matchcond_compiler as compiler;
pub use matchcond_dispatch as dispatch;
pub use matchcond_eval as eval;
pub use matchcond_lint as lint;
pub use matchcond_runtime as runtime;
pub use matchcond_syntax as syntax;

pub use matchcond_compiler::{
    CompileError, CompileOptions, EnvMode, Environment, KubeVersion, Program, PER_CALL_COST_LIMIT,
};
pub use matchcond_eval::{
    ConditionOutcome, ConditionResult, Decision, FailurePolicy, MatchCondition, MatchConditions,
    Report, MATCH_CONDITIONS_BUDGET,
};
pub use matchcond_runtime::{Activation, EvalError, Value};

/// The README's examples, compiled and run as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
