//! The lint analysis of webhook configurations (feature `lint`).
//!
//! Lints Kubernetes admission webhook configurations as cluster admins and CI run it before
//! the apiserver sees them: strict loading (unknown, duplicate and mistyped fields with
//! their line and column), the apiserver's own validation with its exact messages, and the
//! traps of `matchConditions` that the apiserver accepts but that fail or mislead at run
//! time — reads of `object` on DELETE or of `oldObject` on CREATE, request members the
//! apiserver omits, maps and keys that may be absent, conditions the rules make constant,
//! costs over the limits, expressions that need a newer Kubernetes — each with its
//! position, the operations or versions concerned and a fix.
//!
//! The analysis is a library: [`Linter::lint_text`] takes text and gives a [`TextReport`]
//! of [`Finding`]s, without files, threads or any I/O.
//!
//! # Findings
//!
//! Every finding has a [`Severity`], a stable [`Code`] (its JSON key), a message, a field
//! path, a [`Position`] in the text and, for findings about an expression, an [`ExprSpan`].
//! Errors are what the apiserver (or kubectl's strict field validation) refuses; warnings
//! are the traps (never a change to what is valid); notes are information (a skipped
//! document, the Kubernetes versions that accept a configuration).
//!
//! | code | severity | what |
//! | --- | --- | --- |
//! | `syntax`, `noConfiguration`, `notAnObject` | error | the text is not YAML/JSON, holds no webhook configuration, or a document is not an object |
//! | `unknownField`, `duplicateField`, `invalidType`, `invalidValue`, `unsupportedApiVersion` | error | strict field validation |
//! | `missingApiVersion` | warning | kubectl refuses an object without `apiVersion` |
//! | `yaml11Boolean` | warning | a plain `yes`, `no`, `on`, `off`, `y` or `n` where a string is expected: kubectl's YAML 1.1 decoder sends a boolean, which the apiserver refuses |
//! | `skippedKind` | note | a document of another kind |
//! | `validation` | error | the apiserver's validation, with its message |
//! | `objectOnDelete`, `oldObjectOnCreate` | warning | `object` read where DELETE makes it null, `oldObject` where CREATE or CONNECT do (also behind key-presence tests, which read the object themselves) |
//! | `connectOptions` | warning | `object.metadata` (or another member) read on CONNECT, where `object` is the options |
//! | `namespaceObjectNull` | warning | `namespaceObject` is always null for webhooks |
//! | `paramsUndeclared` | warning | `params` is not declared for webhooks |
//! | `omittedRequestField` | warning | `request.namespace`, `name`, `subResource`, `requestSubResource`, `userInfo.uid`, `userInfo.extra` read where the apiserver omits them |
//! | `absentMap`, `mapKeyWithoutTest` | warning | a map or list that objects may lack (read with `in`, an index, a macro, a method or `size()`), or a key, read without a test |
//! | `listIndex` | warning | a constant index into a list that may be shorter (`split(':')[2]`) or absent (`ownerReferences[0]`) |
//! | `noRules` | warning | a webhook without rules: it is never called, whatever its conditions say |
//! | `costLimit`, `costBudget` | warning | a condition over the per-expression cost limit, or the conditions together over the webhook's budget |
//! | `neverTrue`, `alwaysTrue`, `excludesAuthenticated` | warning | a condition the rules make constant, or that excludes every authenticated user |
//! | `minimumVersion` | warning | an expression that needs a newer Kubernetes than the one linted for |
//! | `compatibility` | note | the modelled versions that accept (and refuse) the configuration |
//!
//! ```
//! use matchcond::lint::{Code, Linter, Severity};
//! use matchcond::KubeVersion;
//!
//! let report = Linter::new(KubeVersion::V1_34).lint_text(r#"
//! apiVersion: admissionregistration.k8s.io/v1
//! kind: ValidatingWebhookConfiguration
//! metadata: {name: policy}
//! webhooks:
//! - name: pods.policy.example.com
//!   clientConfig: {url: "https://policy.example.com/validate"}
//!   rules: [{operations: ["*"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"]}]
//!   sideEffects: None
//!   admissionReviewVersions: ["v1"]
//!   matchConditions:
//!   - {name: labelled, expression: "object.metadata.labels['app'] == 'web'"}
//! "#);
//! let f = report.findings().find(|f| f.code() == Code::ObjectOnDelete).unwrap();
//! assert_eq!(f.severity(), Severity::Warning);
//! assert_eq!(f.position().unwrap().to_string(), "12:35");
//! ```

pub use matchcond_lint::{
    modelled_versions, Code, ConditionReport, ConfigurationReport, CostRange, DiagnosticKind,
    DocumentReport, ExprSpan, Finding, Linter, Operation, Position, Severity, TextReport,
    VersionVerdict, WebhookReport, OLDEST_VERSION,
};
