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
mod request_args;
mod test_cmd;

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
        #[arg(long = "k8s-version", value_name = "V", default_value_t = matchcond::KubeVersion::LATEST, value_parser = input::parse_version)]
        k8s_version: matchcond::KubeVersion,
        /// The output format.
        #[arg(long, value_enum, default_value = "text")]
        output: Output,
        #[command(flatten)]
        request: request_args::RequestArgs,
    },
    /// Validate webhook configurations as the apiserver does on create (or update), strictly,
    /// and warn about the matchConditions traps it accepts.
    #[command(after_help = LINT_HELP)]
    Lint {
        /// Files of configurations: YAML (several documents) or JSON; `-` for standard input;
        /// folders are walked for .yaml, .yml and .json files, in sorted order.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<String>,
        /// The stored configurations: validate as an update from them.
        #[arg(long, value_name = "FILE")]
        old: Option<String>,
        /// Do not compute which Kubernetes versions accept each configuration.
        #[arg(long = "no-compatibility")]
        no_compatibility: bool,
        /// The Kubernetes version (MAJOR.MINOR).
        #[arg(long = "k8s-version", value_name = "V", default_value_t = matchcond::KubeVersion::LATEST, value_parser = input::parse_version)]
        k8s_version: matchcond::KubeVersion,
        /// The output format.
        #[arg(long, value_enum, default_value = "text")]
        output: lint_cmd::LintOutput,
        /// Exit 1 when a finding of this severity or worse is reported [default: error, or
        /// the configuration file's failOn].
        #[arg(long = "fail-on", value_enum, value_name = "LEVEL")]
        fail_on: Option<lint_cmd::Level>,
        /// Set the severity of a finding code (repeatable): `minimumVersion=error`.
        #[arg(long = "severity", value_name = "CODE=LEVEL", value_parser = lint_cmd::parse_severity)]
        severity: Vec<String>,
        /// The lint configuration file [default: .matchcond.yaml in the linted file's folder
        /// or the nearest folder above].
        #[arg(long = "lint-config", value_name = "FILE")]
        lint_config: Option<String>,
        /// Findings only: no summary, snippets or help.
        #[arg(long, conflicts_with = "verbose")]
        quiet: bool,
        /// Also list the files without findings and the findings suppressed.
        #[arg(long)]
        verbose: bool,
    },
    /// Decide, webhook by webhook, which webhooks are called for an AdmissionReview.
    #[command(after_help = MATCH_HELP)]
    Match {
        /// Files of configurations (`-` for standard input).
        #[arg(long = "config", required_unless_present = "print_review", num_args = 1.., value_name = "FILE")]
        configs: Vec<String>,
        /// The AdmissionReview (JSON or YAML); or build it from manifests (--object …).
        #[arg(long, value_name = "FILE", required_unless_present_any = ["object", "old_object", "audit_event"])]
        review: Option<String>,
        /// The labels of every namespace (`k=v,k2=v2`).
        #[arg(long = "namespace-labels", value_name = "LABELS", default_value = "", value_parser = input::parse_labels, conflicts_with = "namespace_objects")]
        namespace_labels: matchcond::dispatch::Labels,
        /// A static authorizer table (YAML).
        #[arg(long, value_name = "FILE")]
        authorizer: Option<String>,
        /// The Kubernetes version (MAJOR.MINOR).
        #[arg(long = "k8s-version", value_name = "V", default_value_t = matchcond::KubeVersion::LATEST, value_parser = input::parse_version)]
        k8s_version: matchcond::KubeVersion,
        /// The output format.
        #[arg(long, value_enum, default_value = "text")]
        output: Output,
        #[command(flatten)]
        request: request_args::RequestArgs,
    },
    /// Run test files: cases (a request and what each webhook is expected to do) against
    /// webhook configurations.
    #[command(after_help = TEST_HELP)]
    Test {
        /// Test files, or folders searched for *.test.yaml and *.test.yml (default: `.`).
        #[arg(value_name = "PATH")]
        paths: Vec<String>,
        /// Run only the cases whose name matches this regular expression.
        #[arg(long, value_name = "PATTERN")]
        run: Option<String>,
        /// Report, per webhook and condition, whether the cases saw it true, false and
        /// erring, and what no case exercised.
        #[arg(long)]
        coverage: bool,
        /// The output format.
        #[arg(long, value_enum, default_value = "text")]
        output: test_cmd::TestOutput,
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

const EVAL_HELP: &str = concat!(
    "Exit codes:\n  0  the expression has a value\n  1  it does not compile, or its evaluation fails\n  2  unusable input (unreadable or invalid review or authorizer file, bad option)\n\n",
    "JSON output (--output json): one object with \"schemaVersion\": 1; its fields are described in crates/matchcond-cli/README.md."
);

const LINT_HELP: &str = concat!(
    "Every file and document is reported: findings print as FILE:LINE:COLUMN: SEVERITY[CODE]: ...\n",
    "Errors are what the apiserver (or kubectl's strict field validation) refuses; warnings are\n",
    "the matchConditions traps it accepts; notes are information. Inputs without a webhook\n",
    "configuration are a note when another input holds one.\n\n",
    "Severities per code and allow-lists (each with a reason) come from .matchcond.yaml (found\n",
    "from each linted file's folder upwards) or --lint-config FILE; a configuration's annotation\n",
    "matchcond.io/lint-allow and a '# matchcond:allow CODE: REASON' comment on a condition's lines\n",
    "suppress findings too. A suppression that suppresses nothing is reported (unusedSuppression).\n\n",
    "Exit codes:\n  0  no finding at or above --fail-on (default: error)\n  1  findings at or above --fail-on (errors: the apiserver refuses a configuration)\n  2  unusable input: a file cannot be read or is not YAML/JSON, no input holds a webhook configuration, a bad option or lint configuration file\n\n",
    "JSON output (--output json): one object with \"schemaVersion\": 1; its fields are described in crates/matchcond-cli/README.md.\n",
    "Also: --output sarif (SARIF 2.1.0), github (workflow commands), junit (JUnit XML)."
);

const MATCH_HELP: &str = concat!(
    "The configurations are validated first; an invalid one is reported on standard error\n",
    "(and in JSON) and decided as if it were stored.\n\n",
    "Exit codes:\n  0  the request is admitted (no webhook rejects it before any call)\n  1  the request is rejected\n  2  unusable input (unreadable files, no configuration, not an admission.k8s.io/v1 AdmissionReview, bad option)\n\n",
    "JSON output (--output json): one object with \"schemaVersion\": 1; its fields are described in crates/matchcond-cli/README.md."
);

const TEST_HELP: &str = concat!(
    "Test files are YAML (apiVersion matchcond/v1alpha1, kind Test); their format is described in\n",
    "crates/matchcond-cli/README.md and by the JSON schema crates/matchcond-cli/test-file.schema.json.\n",
    "Every problem of every test file is reported with its FILE:LINE:COLUMN, and the other files run.\n\n",
    "Exit codes:\n  0  every case passed\n  1  a case failed (a webhook did not do what it was expected to)\n  2  unusable input: a test file, configuration or manifest cannot be used, a case's request cannot be built, a bad option\n\n",
    "JSON output (--output json): one object with \"schemaVersion\": 1; its fields are described in crates/matchcond-cli/README.md.\n",
    "JUnit XML (--output junit): one testsuite per test file, one testcase per case."
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

/// Prints a review (`--print-review`), pretty, and gives exit code 0.
fn print_review(review: &serde_json::Value) -> u8 {
    outln!(
        "{}",
        serde_json::to_string_pretty(review).unwrap_or_default()
    );
    0
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
            request,
        } => {
            let mut inputs = vec![
                ("--review", review.as_deref()),
                ("--authorizer", authorizer.as_deref()),
            ];
            inputs.extend(request.inputs());
            stdin_once(&inputs)
                .and_then(|()| request_args::resolve(review.as_deref(), &request, k8s_version))
                .and_then(|resolved| match resolved {
                    request_args::Resolved::Print(r) => Ok(print_review(&r)),
                    request_args::Resolved::Request(req) => commands::eval(
                        &expr,
                        req,
                        authorizer.as_deref(),
                        k8s_version,
                        output,
                        paint,
                    ),
                })
        }
        Command::Lint {
            files,
            old,
            no_compatibility,
            k8s_version,
            output,
            fail_on,
            severity,
            lint_config,
            quiet,
            verbose,
        } => {
            let mut inputs: Vec<(&str, Option<&str>)> =
                files.iter().map(|f| ("FILE", Some(f.as_str()))).collect();
            inputs.push(("--old", old.as_deref()));
            inputs.push(("--lint-config", lint_config.as_deref()));
            stdin_once(&inputs).and_then(|()| {
                lint_cmd::lint(
                    &lint_cmd::Options {
                        files: files.clone(),
                        old: old.clone(),
                        compatibility: !no_compatibility,
                        version: k8s_version,
                        output,
                        fail_on,
                        severities: severity.clone(),
                        lint_config: lint_config.clone(),
                        quiet,
                        verbose,
                    },
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
            request,
        } => {
            let mut inputs: Vec<(&str, Option<&str>)> = configs
                .iter()
                .map(|f| ("--config", Some(f.as_str())))
                .collect();
            inputs.push(("--review", review.as_deref()));
            inputs.push(("--authorizer", authorizer.as_deref()));
            inputs.extend(request.inputs());
            stdin_once(&inputs)
                .and_then(|()| request_args::resolve(review.as_deref(), &request, k8s_version))
                .and_then(|resolved| match resolved {
                    request_args::Resolved::Print(r) => Ok(print_review(&r)),
                    request_args::Resolved::Request(None) => Err(input::InputError(
                        "no request: give --review, --object/--old-object or --audit-event"
                            .to_owned(),
                    )),
                    request_args::Resolved::Request(Some(req)) => commands::dispatch(
                        &configs,
                        &request.crds,
                        req,
                        namespace_labels,
                        authorizer.as_deref(),
                        k8s_version,
                        output,
                        paint,
                    ),
                })
        }
        Command::Test {
            paths,
            run,
            coverage,
            output,
        } => {
            let paths = if paths.is_empty() {
                vec![".".to_owned()]
            } else {
                paths
            };
            run.as_deref()
                .map(regex::Regex::new)
                .transpose()
                .map_err(|e| input::InputError(format!("--run: {e}")))
                .and_then(|run| {
                    test_cmd::test(&test_cmd::TestOptions {
                        paths: &paths,
                        run: run.as_ref(),
                        coverage,
                        output,
                        paint,
                    })
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
        // clap writes a `default_value_t` and parses it back.
        let latest = matchcond::KubeVersion::LATEST;
        assert_eq!(input::parse_version(&latest.to_string()), Ok(latest));
        assert_eq!(
            input::parse_version("1.2"),
            Err(format!(
                "unsupported Kubernetes version 1.2 (supported: 1.28 to {latest})"
            ))
        );
    }
}
