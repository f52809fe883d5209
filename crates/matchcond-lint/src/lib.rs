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
//! # Should I be using this crate?
//!
//! Probably not. This is an internal crate of matchcond: its API follows what the other
//! crates need and changes without notice. Use the `matchcond` crate (the facade at the root
//! of the workspace), whose curated API is the one kept stable; it does not re-export this
//! crate.

#![forbid(unsafe_code)]

mod analysis;
mod finding;
mod linter;
mod position;
mod report;

pub use finding::{Code, ExprSpan, Finding, Operation, Position, Severity};
pub use linter::Linter;
/// The loader's kinds of problem, the findings of [`Code::Load`].
pub use matchcond_dispatch::load::DiagnosticKind;
pub use report::{
    modelled_versions, ConditionReport, ConfigurationReport, CostRange, DocumentReport, TextReport,
    VersionVerdict, WebhookReport, OLDEST_VERSION,
};
