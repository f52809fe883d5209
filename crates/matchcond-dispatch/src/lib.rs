//! Admission-webhook dispatch and whole-configuration validation, as kube-apiserver does
//! them.
//!
//! * [`types`]: `ValidatingWebhookConfiguration` / `MutatingWebhookConfiguration`
//!   (k8s-openapi types), a uniform [`WebhookSpec`] view, the apiserver's defaults, and
//!   [`load_documents`] for YAML/JSON (multi-document, `List` kinds).
//! * [`load`]: strict, positioned loading: unknown, duplicate and mistyped fields with
//!   their paths and line:column, other kinds skipped with a note (reads YAML with
//!   [`yaml`], which keeps positions).
//! * [`validation`]: [`Validator`] checks a configuration on create or update with every
//!   rule of kubernetes' `validation.go` and apimachinery's messages
//!   (`webhooks[0].clientConfig.url: Invalid value: "": host must be specified; ...`), in
//!   the wording of the chosen Kubernetes version.
//! * [`dispatch`]: [`Dispatcher`] decides, webhook by webhook, whether the apiserver calls
//!   it for an AdmissionRequest: namespaceSelector, objectSelector, rules (exact, then
//!   equivalent resources from a [`ResourceTable`]), then matchConditions (compiled once),
//!   and the dry-run check made at call time.
//! * [`audit`]: audit logs (`audit.k8s.io/v1` events) replayed through configurations:
//!   each event's AdmissionRequest with what it could not carry, every webhook's decision
//!   three-valued, streamed over many files on every core.
//! * [`authz_table`]: the static authorizer's rule table as files write it (the command
//!   line's `--authorizer` file, a conformance case's `authorizer`), read with serde and
//!   built into the runtime's `StaticAuthorizer`.
//!
//! # Should I be using this crate?
//!
//! Probably not. This is an internal crate of matchcond: its API follows what the other
//! crates need and changes without notice. Use the `matchcond` crate (the facade at the root
//! of the workspace), whose curated API is the one kept stable; it does not re-export this
//! crate.

#![forbid(unsafe_code)]

pub mod audit;
pub mod authz_table;
pub mod dispatch;
pub mod error;
pub mod field;
pub mod load;
pub mod names;
pub mod namespaces;
pub mod request;
pub mod resources;
pub mod rules;
mod schema;
pub mod selector;
pub mod types;
pub mod validation;
pub mod yaml;

pub use dispatch::{
    AdmissionInput, Attributes, CompileProblem, CompiledConfiguration, Dispatch, Dispatcher,
    HookInfo, HookOutcome, Invocation, Rejection,
};
pub use error::{LoadError, RequestError};
pub use field::{aggregate, BadValue, ErrorType, FieldError, Wording};
pub use load::load_documents;
pub use namespaces::{AnyNamespace, Labels, NamespaceFn, NamespaceLister, NoNamespaces};
pub use resources::{ResourceMapper, ResourceTable};
pub use types::{parse_documents, Configuration, Gvk, Gvr, HookKind, WebhookSpec};
pub use validation::{invalid_message, Validator};
