//! Whole webhook configurations, as the apiserver loads, validates and dispatches them
//! (feature `dispatch`).
//!
//! * Loading: [`load_documents`] reads YAML or JSON (several documents, `List` kinds) into
//!   [`Configuration`]s; [`load::load_text`] is the strict loader, with positions: unknown,
//!   duplicate and mistyped fields are errors with their path and `line:column`, as with
//!   kubectl's strict field validation.
//! * Validation: [`Validator`] checks a configuration on create or update with every rule
//!   of the apiserver's validation, in the wording of the chosen Kubernetes version
//!   (`webhooks[0].clientConfig.url: Invalid value: "": host must be specified`).
//! * Dispatch: [`Dispatcher`] decides which webhooks the apiserver calls for a request —
//!   namespaceSelector, objectSelector, rules, then matchConditions — for every webhook in
//!   dispatch order ([`Dispatcher::dispatch`]) or for one webhook by name
//!   ([`Dispatcher::decide_webhook`]). Each [`HookOutcome`] carries the same
//!   [`Decision`](crate::Decision) as a webhook's conditions decide — a skip says which
//!   check skipped it ([`Skip`](crate::Skip)) — with the [`Invocation`] of a call or the
//!   [`Rejection`] of a reject.
//!
//! A dispatcher compiles matchConditions as the apiserver treats a stored configuration:
//! a condition that does not compile is a `compilation error` when deciding (validate first
//! to refuse it).
//!
//! ```
//! use matchcond::dispatch::{load_documents, AnyNamespace, Dispatcher, Validator};
//! use matchcond::{Decision, KubeVersion};
//!
//! let configs = load_documents(r#"
//! apiVersion: admissionregistration.k8s.io/v1
//! kind: ValidatingWebhookConfiguration
//! metadata: {name: policy}
//! webhooks:
//! - name: pods.policy.example.com
//!   clientConfig: {url: "https://policy.example.com/validate"}
//!   rules: [{operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"]}]
//!   sideEffects: None
//!   admissionReviewVersions: ["v1"]
//!   matchConditions:
//!   - {name: not-kube-system, expression: "request.namespace != 'kube-system'"}
//! "#).unwrap();
//! let version = KubeVersion::V1_34;
//! assert!(Validator::new(version).validate(&configs[0]).is_empty());
//! let dispatcher = Dispatcher::new(&configs, version);
//! let request = serde_json::json!({
//!     "uid": "1", "operation": "CREATE", "namespace": "kube-system", "name": "web-0",
//!     "kind": {"group": "", "version": "v1", "kind": "Pod"},
//!     "resource": {"group": "", "version": "v1", "resource": "pods"},
//!     "userInfo": {"username": "alice"}, "object": {"metadata": {"name": "web-0"}}
//! });
//! let namespaces = AnyNamespace(Default::default());
//! let outcome = dispatcher
//!     .decide_webhook("pods.policy.example.com", &request, &namespaces)
//!     .unwrap()
//!     .unwrap();
//! assert_eq!(outcome.decision, Decision::skip_condition("not-kube-system"));
//! ```

pub use matchcond_dispatch::{
    load_documents, parse_documents, AnyNamespace, Attributes, BadValue, Configuration, Dispatch,
    Dispatcher, ErrorType, FieldError, Gvk, Gvr, HookInfo, HookKind, HookOutcome, Invocation,
    Labels, LoadError, NamespaceFn, NamespaceLister, NoNamespaces, Rejection, RequestError,
    ResourceMapper, ResourceTable, Validator, WebhookSpec,
};

/// The strict, positioned loader: every document and configuration of a text, with the
/// problems found reading it (`line:column` and path).
pub mod load {
    pub use matchcond_dispatch::load::{
        load_text, Diagnostic, DiagnosticKind, LoadedConfiguration, LoadedDocument, LoadedText,
        Severity,
    };
    pub use matchcond_dispatch::yaml::{Node, Position, Style, Value};
}
