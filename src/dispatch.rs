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
    load_documents, parse_documents, AdmissionInput, AnyNamespace, Attributes, BadValue,
    Configuration, Dispatch, Dispatcher, ErrorType, FieldError, Gvk, Gvr, HookInfo, HookKind,
    HookOutcome, Invocation, Labels, LoadError, NamespaceFn, NamespaceLister, NoNamespaces,
    Rejection, RequestError, ResourceMapper, ResourceTable, Validator, WebhookSpec,
};

/// Audit logs replayed through configurations: what a change of matchConditions does to a
/// cluster's recorded traffic before it is applied.
///
/// * [`Event`](audit::Event) reads one line of an `audit.k8s.io/v1` log;
///   [`passage`](audit::passage) tells whether its request passes through admission, and
///   [`admission_request`](audit::admission_request) builds the AdmissionRequest the
///   apiserver built for it, with what the event could not carry
///   ([`Missing`](audit::Missing): the object at level `Metadata`, the old object always).
/// * [`Replay`](audit::Replay) streams logs (plain or gzip, several files in order) through
///   one set of configurations, or two to compare, on every core, one request per
///   `auditID`, and counts per webhook what its rules and selectors let through, what each
///   condition skipped, calls, errors by failurePolicy and undetermined decisions: a
///   decision depending on what the event lacks is never guessed.
///
/// ```
/// use std::sync::Arc;
/// use matchcond::dispatch::audit::{Replay, ReplayOptions, Side, Source};
/// use matchcond::dispatch::request::Catalog;
/// use matchcond::dispatch::{load_documents, Dispatcher};
/// use matchcond::KubeVersion;
///
/// let configs = load_documents(r#"
/// kind: ValidatingWebhookConfiguration
/// metadata: {name: pods}
/// webhooks:
/// - name: pods.example.com
///   sideEffects: None
///   admissionReviewVersions: [v1]
///   clientConfig: {url: "https://example.com"}
///   rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
///   matchConditions:
///   - {name: not-system, expression: "request.namespace != 'kube-system'"}
///   - {name: web, expression: "object.metadata.labels.app == 'web'"}
/// "#).unwrap();
/// let side = Side::new(Dispatcher::new(&configs, KubeVersion::V1_34));
/// let replay = Replay::new(side, None, Arc::new(Catalog::builtin()), None);
/// let log = r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a1","stage":"ResponseComplete","verb":"create","user":{"username":"alice"},"objectRef":{"resource":"pods","namespace":"kube-system","apiVersion":"v1"},"requestReceivedTimestamp":"2024-05-01T12:00:00.000000Z"}
/// {"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a2","stage":"ResponseComplete","verb":"create","user":{"username":"alice"},"objectRef":{"resource":"pods","namespace":"shop","apiVersion":"v1"},"requestReceivedTimestamp":"2024-05-01T12:00:01.000000Z"}
/// "#;
/// let source = Source::new("audit.log", Box::new(std::io::Cursor::new(log)));
/// let report = replay.run(vec![source], ReplayOptions::default(), &|_| {});
/// let counts = report.webhooks[0].current.as_ref().unwrap();
/// assert_eq!(counts.conditions[0].skipped, 1); // kube-system: exact at any level
/// assert_eq!(counts.undetermined, 1); // shop: the label is not in a Metadata event
/// ```
pub mod audit {
    pub use matchcond_dispatch::audit::{
        admission_request, parse_only, passage, AuditRequest, BadInput, Change, ConditionCounts,
        DecisionClass, Event, EventError, HookCounts, InputCounts, Level, Missing, NotAdmitted,
        Passage, Progress, Replay, ReplayOptions, ReplayReport, Sample, Side, Source, Stage,
        WebhookReport,
    };
}

/// The strict, positioned loader: every document and configuration of a text, with the
/// problems found reading it (`line:column` and path).
pub mod load {
    pub use matchcond_dispatch::load::{
        load_text, Diagnostic, DiagnosticKind, LoadedConfiguration, LoadedDocument, LoadedText,
        Severity,
    };
    pub use matchcond_dispatch::yaml::{Node, Position, Style, Value};
}

/// Requests built as the apiserver builds them, from manifests: the catalog of API
/// resources (built in by release, extended by CustomResourceDefinitions), the
/// CustomResourceDefinition and Namespace loaders, the review builder and the check of
/// hand-written reviews; and the strict loader of test files (`matchcond test`).
///
/// ```
/// use matchcond::authz::UserInfo;
/// use matchcond::dispatch::request::{build_review, read_manifests, Catalog, RequestOptions};
/// use matchcond::KubeVersion;
///
/// let pod = read_manifests("apiVersion: v1\nkind: Pod\nmetadata: {generateName: web-, namespace: shop}\n");
/// let mut options = RequestOptions::default();
/// options.user = UserInfo::new("alice");
/// let built = build_review(&Catalog::builtin_for(KubeVersion::V1_34), pod.objects.first(), None, &options)
///     .unwrap();
/// let request = built.request();
/// assert_eq!(request["resource"]["resource"], "pods");
/// assert_eq!(request["namespace"], "shop");
/// assert!(request.get("name").is_none()); // generateName: the name is not known yet
/// assert_eq!(request["options"]["kind"], "CreateOptions");
/// ```
pub mod request {
    pub use matchcond_dispatch::request::catalog::{
        ApiResource, ApiSubresource, Catalog, Operation,
    };
    pub use matchcond_dispatch::request::crd::{load_crds, CrdVersion, CustomResourceDefinition};
    pub use matchcond_dispatch::request::from_audit::{
        review_from_audit_event, AuditReview, AuditReviewError,
    };
    pub use matchcond_dispatch::request::manifest::{
        build_review, check_request, BuildError, BuiltReview, RequestOptions, ReviewWarning, Role,
    };
    pub use matchcond_dispatch::request::namespaces::{
        load_namespaces, NamespaceObject, NamespaceSet,
    };
    pub use matchcond_dispatch::request::suite::{
        load_test_file, Expect, Expectation, NamespaceSource, SkipCheck, Source, TestCase,
        TestFile, CASE_FIELDS, FILE_FIELDS,
    };
    pub use matchcond_dispatch::request::{
        read_manifests, ManifestError, ManifestErrorKind, Manifests,
    };
}
