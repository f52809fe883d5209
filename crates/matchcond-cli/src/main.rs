//! `matchcond`: evaluates matchConditions expressions, lints webhook configurations and
//! explains webhook dispatch, exactly as kube-apiserver does them.
//!
//! # Commands
//!
//! * `matchcond eval EXPR [--review FILE] [--authorizer FILE] [--k8s-version V] [--output text|json]`
//!   compiles `EXPR` in the matchConditions environment of the version (the "stored
//!   expressions" environment; any result type) and evaluates it with the AdmissionReview's
//!   `request` (JSON or YAML; without `--review` the request is empty). An authorizer is
//!   always bound: the static table of `--authorizer`, or one with no opinion on every check.
//! * `matchcond lint FILE... [--old FILE] [--k8s-version V] [--output text|json]` validates
//!   every Validating/MutatingWebhookConfiguration of the files (multi-document YAML or JSON,
//!   `List` kinds, `-` for standard input) as the apiserver does on create, or, with `--old`,
//!   as an update from the configuration of `--old` with the same kind and name (one without
//!   such an old configuration is validated as a create). Every matchCondition is also
//!   checked for the classic traps — `object` read where DELETE makes it null, `oldObject`
//!   where CREATE does, a map key read without a presence test, several authorizer checks
//!   in one expression — reported as warnings with the caret under the position (the
//!   heuristic is documented in `src/traps.rs`). Warnings do not change the exit code.
//! * `matchcond match --config FILE... --review FILE [--namespace-labels k=v,...]
//!   [--authorizer FILE] [--k8s-version V] [--output text|json]` decides every webhook of the
//!   configurations, in dispatch order, for the AdmissionReview. Every namespace exists and
//!   has the labels of `--namespace-labels` plus `kubernetes.io/metadata.name: <name>` (as
//!   the apiserver sets it).
//! * `matchcond bench [--quick] [--output text|json] [--workload DIR]` runs the benchmark
//!   workload in-process (the repository's, compiled in, or the one in `DIR`): it first checks every condition and decision against the
//!   workload's expected outcomes, then prints, per condition set and request, the median ns
//!   per decision of the engine, a hand-written Rust floor and the `cel` crate (JSON: rows
//!   `{"set", "request", "engine_ns", "floor_ns", "cel_crate_ns"}`, `null` where a baseline
//!   cannot run the set). It is a benchmark, not a test.
//!
//! `--color auto|always|never` (any command, default `auto`): text output is coloured
//! (errors red, warnings yellow, carets in bold) only on a terminal and when `NO_COLOR` is
//! unset or empty, unless `always`; uncoloured text is exactly the coloured text without
//! its escape sequences. JSON output is never coloured.
//!
//! The Kubernetes version defaults to 1.34 (1.28 to 1.36 are modelled). An authorizer file
//! holds a static authorizer table (`default: allow|deny|noOpinion`, `defaultReason`,
//! `rules: [{user, verb, group, resource, subresource, namespace, name, path, fieldSelector,
//! labelSelector, decision, reason, error}]`), at the top level or under an `authorizer` key.
//!
//! # Exit codes
//!
//! * `eval`: 0 a value, 1 a compile or evaluation error, 2 unusable input.
//! * `lint`: 0 no error (warnings or not), 1 validation errors found, 2 unusable input.
//! * `match`: 0 the request is admitted (no webhook rejects it before any call), 1 the
//!   request is rejected, 2 unusable input.
//! * `bench`: 0 every answer verified, 1 the engine differs from the expected outcomes,
//!   2 the workload cannot be loaded.
//!
//! Unusable input (an unreadable file, bad JSON/YAML, a document of another kind, a bad
//! option) is reported on standard error as `matchcond: <file>: <problem>`; nothing is
//! written to standard output then. Text-mode compile and evaluation errors of `eval` go to
//! standard error too; everything else goes to standard output.
//!
//! # JSON output (`--output json`)
//!
//! One JSON object on standard output, followed by a newline.
//!
//! `eval`:
//! ```json
//! {"result": "value", "value": <JSON value>, "valueText": "<CEL literal>",
//!  "type": "<CEL type>", "cost": 3}
//! {"result": "compileError", "error": "<message with the caret lines>"}
//! {"result": "evalError", "error": "<message>", "cost": 0}
//! ```
//!
//! `value` is the value in JSON (protobuf's JSON mapping: `int`/`uint` exact numbers,
//! `bytes` base64, map keys as text, timestamps and durations as text, `NaN`/`Infinity`
//! as strings, `optional.of(v)` as `v`, `optional.none()` as `null`, library values by
//! their text; see `src/json_value.rs`), `valueText` the CEL literal
//! (`{"a": [1u, b"\x00"]}`), as the text output prints it.
//!
//! `lint`:
//! ```json
//! {"configurations": [
//!    {"file": "a.yaml", "document": 0, "kind": "ValidatingWebhookConfiguration",
//!     "name": "cfg", "operation": "create" | "update",
//!     "errors": [{"field": "webhooks[0].name", "type": "Invalid value",
//!                 "detail": "...", "message": "<the full field error text>"}],
//!     "warnings": [{"field": "webhooks[0].matchConditions[2].expression",
//!                   "trap": "objectOnDelete" | "oldObjectOnCreate" | "mapKeyWithoutTest"
//!                         | "multipleAuthorizerChecks",
//!                   "message": "...", "line": 1, "column": 5,
//!                   "caret": " | <expression line>\n | ....^"}]}],
//!  "errorCount": 1, "warningCount": 1}
//! ```
//!
//! `match`:
//! ```json
//! {"webhooks": [
//!    {"uid": "cfg/hook.example.com/0", "configuration": "cfg", "name": "hook.example.com",
//!     "kind": "validating" | "mutating",
//!     "decision": "call" | "skip" | "reject",
//!     "invocation": {"group": "", "version": "v1", "resource": "pods", "subresource": "",
//!                    "kind": {"group": "", "version": "v1", "kind": "Pod"}},  // call only
//!     "skipReason": "rules" | "namespaceSelector" | "objectSelector" | "exemptKind"
//!                 | "matchCondition" | "sideEffectsUnsetIgnored",     // skip only
//!     "skipText": "no rule matches",                                  // skip only
//!     "failedCondition": "name" | null,                               // matchCondition skip only
//!     "rejection": {"code": 403, "reason": "Forbidden", "message": "..."}, // reject only
//!     "conditions": null | {
//!        "results": [{"name": "...", "expression": "...", "outcome": "true" | "false"
//!                     | "error" | "notEvaluated", "error": "..." /* error only */,
//!                     "cost": 3}],
//!        "evaluationError": null | "...", "totalCost": 3}}],
//!  "rejection": null | {"code": 403, "reason": "Forbidden", "message": "..."},
//!  "admitted": true}
//! ```
//! `conditions` is `null` when the webhook has no matchConditions or was decided before
//! they were evaluated (selectors, rules).

#![forbid(unsafe_code)]

mod bench;
mod color;
mod commands;
mod input;
mod json_value;
mod traps;

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// The output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// Human-readable lines.
    Text,
    /// One JSON object (see the crate documentation for its shape).
    Json,
}

#[derive(Debug, Parser)]
#[command(
    name = "matchcond",
    version,
    about = "Evaluate matchConditions, lint webhook configurations, explain webhook dispatch, as kube-apiserver does"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Colour the text output: `auto` on a terminal unless NO_COLOR is set.
    #[arg(
        long,
        value_enum,
        global = true,
        default_value = "auto",
        value_name = "WHEN"
    )]
    color: color::ColorChoice,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Compile and evaluate one expression in the matchConditions environment.
    Eval {
        /// The CEL expression.
        expr: String,
        /// An AdmissionReview (JSON or YAML) whose request the expression sees.
        #[arg(long, value_name = "FILE")]
        review: Option<String>,
        /// A static authorizer table (YAML).
        #[arg(long, value_name = "FILE")]
        authorizer: Option<String>,
        /// The Kubernetes version (MAJOR.MINOR).
        #[arg(long = "k8s-version", value_name = "V", default_value = "1.34", value_parser = input::parse_version)]
        k8s_version: matchcond::KubeVersion,
        /// The output format.
        #[arg(long, value_enum, default_value = "text")]
        output: Output,
    },
    /// Validate webhook configurations as the apiserver does on create (or update).
    Lint {
        /// Files of configurations (`-` for standard input).
        #[arg(required = true, value_name = "FILE")]
        files: Vec<String>,
        /// The stored configurations: validate as an update from them.
        #[arg(long, value_name = "FILE")]
        old: Option<String>,
        /// The Kubernetes version (MAJOR.MINOR).
        #[arg(long = "k8s-version", value_name = "V", default_value = "1.34", value_parser = input::parse_version)]
        k8s_version: matchcond::KubeVersion,
        /// The output format.
        #[arg(long, value_enum, default_value = "text")]
        output: Output,
    },
    /// Decide, webhook by webhook, which webhooks are called for an AdmissionReview.
    Match {
        /// Files of configurations (`-` for standard input).
        #[arg(long = "config", required = true, num_args = 1.., value_name = "FILE")]
        configs: Vec<String>,
        /// The AdmissionReview (JSON or YAML).
        #[arg(long, value_name = "FILE")]
        review: String,
        /// The labels of every namespace (`k=v,k2=v2`).
        #[arg(long = "namespace-labels", value_name = "LABELS", default_value = "", value_parser = input::parse_labels)]
        namespace_labels: matchcond::dispatch::Labels,
        /// A static authorizer table (YAML).
        #[arg(long, value_name = "FILE")]
        authorizer: Option<String>,
        /// The Kubernetes version (MAJOR.MINOR).
        #[arg(long = "k8s-version", value_name = "V", default_value = "1.34", value_parser = input::parse_version)]
        k8s_version: matchcond::KubeVersion,
        /// The output format.
        #[arg(long, value_enum, default_value = "text")]
        output: Output,
    },
    /// Verify and time the benchmark workload: engine, hand-written floor, cel crate.
    Bench {
        /// A short run (rough times; every answer is still checked).
        #[arg(long)]
        quick: bool,
        /// The output format.
        #[arg(long, value_enum, default_value = "text")]
        output: Output,
        /// A workload directory in the same layout (default: the built-in workload).
        #[arg(long, value_name = "DIR")]
        workload: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let paint = color::Streams::detect(cli.color);
    let result = match cli.command {
        Command::Eval {
            expr,
            review,
            authorizer,
            k8s_version,
            output,
        } => commands::eval(
            &expr,
            review.as_deref(),
            authorizer.as_deref(),
            k8s_version,
            output,
            paint,
        ),
        Command::Lint {
            files,
            old,
            k8s_version,
            output,
        } => commands::lint(&files, old.as_deref(), k8s_version, output, paint),
        Command::Match {
            configs,
            review,
            namespace_labels,
            authorizer,
            k8s_version,
            output,
        } => commands::dispatch(
            &configs,
            &review,
            namespace_labels,
            authorizer.as_deref(),
            k8s_version,
            output,
            paint,
        ),
        Command::Bench {
            quick,
            output,
            workload,
        } => bench::bench(quick, output, workload.as_deref()),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!(
                "{}",
                paint
                    .err
                    .tone(color::Tone::Error, &format!("matchcond: {e}"))
            );
            ExitCode::from(2)
        }
    }
}
