//! `matchcond`: evaluates matchConditions expressions, lints webhook configurations and
//! explains webhook dispatch, exactly as kube-apiserver does them.
//!
//! The commands, their options, exit codes and JSON output are documented in the crate's
//! README (`crates/matchcond-cli/README.md`); `matchcond <command> --help` lists the exit
//! codes of each command.

#![forbid(unsafe_code)]

#[macro_use]
mod out;
mod bench;
mod color;
mod commands;
mod input;
mod json_value;
mod lint_cmd;
mod replay_cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// The output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// Human-readable lines.
    Text,
    /// One JSON object with a `schemaVersion` (see crates/matchcond-cli/README.md).
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
    #[command(after_help = EVAL_HELP)]
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
        #[arg(long = "k8s-version", value_name = "V", default_value = DEFAULT_VERSION, value_parser = input::parse_version)]
        k8s_version: matchcond::KubeVersion,
        /// The output format.
        #[arg(long, value_enum, default_value = "text")]
        output: Output,
    },
    /// Validate webhook configurations as the apiserver does on create (or update), strictly,
    /// and warn about the matchConditions traps it accepts.
    #[command(after_help = LINT_HELP)]
    Lint {
        /// Files of configurations: YAML (several documents) or JSON; `-` for standard input.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<String>,
        /// The stored configurations: validate as an update from them.
        #[arg(long, value_name = "FILE")]
        old: Option<String>,
        /// Do not compute which Kubernetes versions accept each configuration.
        #[arg(long = "no-compatibility")]
        no_compatibility: bool,
        /// The Kubernetes version (MAJOR.MINOR).
        #[arg(long = "k8s-version", value_name = "V", default_value = DEFAULT_VERSION, value_parser = input::parse_version)]
        k8s_version: matchcond::KubeVersion,
        /// The output format.
        #[arg(long, value_enum, default_value = "text")]
        output: Output,
    },
    /// Decide, webhook by webhook, which webhooks are called for an AdmissionReview.
    #[command(after_help = MATCH_HELP)]
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
        #[arg(long = "k8s-version", value_name = "V", default_value = DEFAULT_VERSION, value_parser = input::parse_version)]
        k8s_version: matchcond::KubeVersion,
        /// The output format.
        #[arg(long, value_enum, default_value = "text")]
        output: Output,
    },
    /// Replay audit logs through webhook configurations: what each webhook is called for,
    /// what each condition skips, and (with --baseline) which decisions change.
    #[command(after_help = replay_cmd::HELP)]
    Replay(replay_cmd::ReplayArgs),
    /// Verify and time the benchmark workload: engine, hand-written floor, cel crate.
    #[command(after_help = BENCH_HELP)]
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
        /// Time the audit-log replay instead: generated logs (Metadata and RequestResponse
        /// levels) through examples/webhooks.yaml beside the plain parse of their lines.
        #[arg(long, conflicts_with = "workload")]
        replay: bool,
    },
}

/// The default `--k8s-version`: the newest modelled version ([`KubeVersion::LATEST`], which
/// a test holds it to).
const DEFAULT_VERSION: &str = "1.37";

const EVAL_HELP: &str = concat!(
    "Exit codes:\n  0  the expression has a value\n  1  it does not compile, or its evaluation fails\n  2  unusable input (unreadable or invalid review or authorizer file, bad option)\n\n",
    "JSON output (--output json): one object with \"schemaVersion\": 1; its fields are described in crates/matchcond-cli/README.md."
);

const LINT_HELP: &str = concat!(
    "Every file and document is reported: findings print as FILE:LINE:COLUMN: SEVERITY[CODE]: ...\n",
    "Errors are what the apiserver (or kubectl's strict field validation) refuses; warnings are\n",
    "the matchConditions traps it accepts; notes are information.\n\n",
    "Exit codes:\n  0  no error (warnings and notes do not change the exit code)\n  1  errors: the apiserver refuses a configuration (unknown, duplicate or mistyped fields, validation errors)\n  2  unusable input: a file cannot be read, is not YAML/JSON, or holds no webhook configuration; a bad option\n\n",
    "JSON output (--output json): one object with \"schemaVersion\": 1; its fields are described in crates/matchcond-cli/README.md."
);

const MATCH_HELP: &str = concat!(
    "The configurations are validated first; an invalid one is reported on standard error\n",
    "(and in JSON) and decided as if it were stored.\n\n",
    "Exit codes:\n  0  the request is admitted (no webhook rejects it before any call)\n  1  the request is rejected\n  2  unusable input (unreadable files, no configuration, not an admission.k8s.io/v1 AdmissionReview, bad option)\n\n",
    "JSON output (--output json): one object with \"schemaVersion\": 1; its fields are described in crates/matchcond-cli/README.md."
);

const BENCH_HELP: &str = concat!(
    "Exit codes:\n  0  every answer verified\n  1  the engine differs from the expected outcomes\n  2  the workload cannot be loaded\n\n",
    "JSON output (--output json): one object with \"schemaVersion\": 1; its fields are described in crates/matchcond-cli/README.md."
);

/// Refuses standard input (`-`) given for more than one input.
fn stdin_once(inputs: &[(&str, Option<&str>)]) -> Result<(), input::InputError> {
    let users: Vec<&str> = inputs
        .iter()
        .filter(|(_, v)| *v == Some("-"))
        .map(|(name, _)| *name)
        .collect();
    if users.len() > 1 {
        return Err(input::InputError(format!(
            "standard input (-) can be read only once, but it is given for {}",
            users.join(" and ")
        )));
    }
    Ok(())
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
        } => stdin_once(&[
            ("--review", review.as_deref()),
            ("--authorizer", authorizer.as_deref()),
        ])
        .and_then(|()| {
            commands::eval(
                &expr,
                review.as_deref(),
                authorizer.as_deref(),
                k8s_version,
                output,
                paint,
            )
        }),
        Command::Lint {
            files,
            old,
            no_compatibility,
            k8s_version,
            output,
        } => {
            let mut inputs: Vec<(&str, Option<&str>)> =
                files.iter().map(|f| ("FILE", Some(f.as_str()))).collect();
            inputs.push(("--old", old.as_deref()));
            stdin_once(&inputs).and_then(|()| {
                lint_cmd::lint(
                    &files,
                    old.as_deref(),
                    !no_compatibility,
                    k8s_version,
                    output,
                    paint,
                )
            })
        }
        Command::Match {
            configs,
            review,
            namespace_labels,
            authorizer,
            k8s_version,
            output,
        } => {
            let mut inputs: Vec<(&str, Option<&str>)> = configs
                .iter()
                .map(|f| ("--config", Some(f.as_str())))
                .collect();
            inputs.push(("--review", Some(review.as_str())));
            inputs.push(("--authorizer", authorizer.as_deref()));
            stdin_once(&inputs).and_then(|()| {
                commands::dispatch(
                    &configs,
                    &review,
                    namespace_labels,
                    authorizer.as_deref(),
                    k8s_version,
                    output,
                    paint,
                )
            })
        }
        Command::Replay(args) => {
            let mut inputs: Vec<(&str, Option<&str>)> = Vec::new();
            for (name, files) in [
                ("--audit", &args.audit),
                ("--config", &args.configs),
                ("--baseline", &args.baseline),
                ("--crd", &args.crds),
                ("--namespace-object", &args.namespace_objects),
            ] {
                inputs.extend(files.iter().map(|f| (name, Some(f.as_str()))));
            }
            inputs.push(("--authorizer", args.authorizer.as_deref()));
            stdin_once(&inputs).and_then(|()| replay_cmd::run(&args, paint))
        }
        Command::Bench {
            quick,
            output,
            replay: true,
            ..
        } => replay_cmd::bench(quick, output),
        Command::Bench {
            quick,
            output,
            workload,
            replay: false,
        } => bench::bench(quick, output, workload.as_deref()),
    };
    out::flush();
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            errln!(
                "{}",
                paint
                    .err
                    .tone(color::Tone::Error, &format!("matchcond: {e}"))
            );
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_version_is_the_newest_modelled() {
        assert_eq!(
            input::parse_version(DEFAULT_VERSION),
            Ok(matchcond::KubeVersion::LATEST)
        );
    }
}
