//! `matchcond-conformance [OPTIONS] PATH...`: runs conformance suites against matchcond.
//!
//! Exit status: 0 when the run succeeds, 1 when a case failed (outside the known-failures list)
//! or a suite could not be loaded, 2 on a usage or I/O error.

use std::path::PathBuf;
use std::process::ExitCode;

use matchcond_compiler::KubeVersion;
use matchcond_conformance::engine::MatchcondEngine;
use matchcond_conformance::known::{render, KnownFailures};
use matchcond_conformance::run::{install_panic_hook, run, Options, Totals};

const USAGE: &str = "\
usage: matchcond-conformance [OPTIONS] PATH...

Runs every suite file given and every *.yaml below the folders given (in sorted order).

options:
  --known-failures FILE        cases listed in FILE (`<suite> | <case name> | <reason>` lines)
                               may fail; a listed case that passes or did not run fails the run
  --write-known-failures FILE  write the failed cases of this run to FILE, in that format
  --filter SUBSTRING           run only cases whose `suite :: name` contains SUBSTRING
  --k8s-version V              the Kubernetes version whose apiserver is modelled (1.28 to
                               the newest, 1.37, the default)
  --ident-escape-syntax        accept backquoted field names in expressions (the CEL
                               specification's syntax, cel-go's EnableIdentEscapeSyntax;
                               no apiserver enables it)
  --verbose                    report passed and skipped cases too
  -h, --help                   show this help
";

/// The stack of the thread that runs the cases.
const STACK_SIZE: usize = 64 << 20;

#[derive(Debug, Default)]
struct Args {
    options: Options,
    known_failures: Option<PathBuf>,
    write_known_failures: Option<PathBuf>,
    k8s_version: Option<KubeVersion>,
    ident_escape_syntax: bool,
    help: bool,
}

/// Parses `--k8s-version` as the library reads a version (`KubeVersion`'s `FromStr`).
fn parse_version(text: &str) -> Result<KubeVersion, String> {
    text.parse::<KubeVersion>().map_err(|e| e.to_string())
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args::default();
    let mut args = args.into_iter();
    let mut only_paths = false;
    while let Some(arg) = args.next() {
        if only_paths || !arg.starts_with('-') || arg == "-" {
            parsed.options.paths.push(PathBuf::from(arg));
            continue;
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => {
                (flag.to_owned(), Some(value.to_owned()))
            }
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            match inline.clone().or_else(|| args.next()) {
                Some(v) => Ok(v),
                None => Err(format!("{name} needs a value")),
            }
        };
        match flag.as_str() {
            "--" => only_paths = true,
            "-h" | "--help" => parsed.help = true,
            "--verbose" if inline.is_none() => parsed.options.verbose = true,
            "--ident-escape-syntax" if inline.is_none() => parsed.ident_escape_syntax = true,
            "--filter" => parsed.options.filter = Some(value("--filter")?),
            "--k8s-version" => parsed.k8s_version = Some(parse_version(&value("--k8s-version")?)?),
            "--known-failures" => {
                parsed.known_failures = Some(PathBuf::from(value("--known-failures")?))
            }
            "--write-known-failures" => {
                parsed.write_known_failures = Some(PathBuf::from(value("--write-known-failures")?))
            }
            _ => return Err(format!("unknown option `{arg}`")),
        }
    }
    if !parsed.help && parsed.options.paths.is_empty() {
        return Err("no suite file or folder given".to_owned());
    }
    Ok(parsed)
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("error: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if args.help {
        print!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let known = match &args.known_failures {
        None => None,
        Some(path) => {
            let parsed = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read: {e}"))
                .and_then(|text| KnownFailures::parse(&text));
            match parsed {
                Ok(known) => Some(known),
                Err(message) => {
                    eprintln!("error: known-failures file {}: {message}", path.display());
                    return ExitCode::from(2);
                }
            }
        }
    };

    install_panic_hook();
    let options = args.options.clone();
    let known_for_run = known.clone();
    let version = args.k8s_version.unwrap_or(KubeVersion::LATEST);
    let ident_escape_syntax = args.ident_escape_syntax;
    let worker = std::thread::Builder::new()
        .name("conformance".to_owned())
        .stack_size(STACK_SIZE)
        .spawn(move || {
            let engine =
                MatchcondEngine::for_version(version).with_ident_escape_syntax(ident_escape_syntax);
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            run(&engine, &options, known_for_run.as_ref(), &mut out)
        });
    let totals: Totals = match worker.map(|handle| handle.join()) {
        Ok(Ok(Ok(totals))) => totals,
        Ok(Ok(Err(e))) => {
            eprintln!("error: writing the report: {e}");
            return ExitCode::from(2);
        }
        Ok(Err(_)) => {
            eprintln!("error: the runner stopped unexpectedly");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("error: cannot start the runner thread: {e}");
            return ExitCode::from(2);
        }
    };

    if let Some(path) = &args.write_known_failures {
        // Keep the reason already written for a case that still fails.
        let failures: Vec<(String, String, String)> = totals
            .failures
            .iter()
            .map(|(suite, case, message)| {
                let reason = known
                    .as_ref()
                    .and_then(|k| k.get(suite, case))
                    .map(|e| e.reason.clone())
                    .filter(|r| !r.is_empty())
                    .unwrap_or_else(|| message.clone());
                (suite.clone(), case.clone(), reason)
            })
            .collect();
        if let Err(e) = std::fs::write(path, render(&failures)) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
        eprintln!(
            "wrote {} known failures to {}",
            failures.len(),
            path.display()
        );
    }

    if totals.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, String> {
        parse_args(args.iter().map(|s| (*s).to_owned()))
    }

    #[test]
    fn parses_options_and_paths() {
        let args = parse(&[
            "--known-failures",
            "k.txt",
            "a.yaml",
            "--filter=x :: y",
            "--verbose",
            "--k8s-version",
            "v1.36",
            "--write-known-failures",
            "out.txt",
            "--",
            "--odd-name.yaml",
        ])
        .unwrap();
        assert_eq!(args.known_failures, Some(PathBuf::from("k.txt")));
        assert_eq!(args.write_known_failures, Some(PathBuf::from("out.txt")));
        assert_eq!(args.options.filter.as_deref(), Some("x :: y"));
        assert!(args.options.verbose);
        assert_eq!(args.k8s_version, Some(KubeVersion::V1_36));
        assert_eq!(
            args.options.paths,
            vec![PathBuf::from("a.yaml"), PathBuf::from("--odd-name.yaml")]
        );
    }

    #[test]
    fn rejects_bad_usage() {
        assert_eq!(parse(&[]).unwrap_err(), "no suite file or folder given");
        assert_eq!(parse(&["--filter"]).unwrap_err(), "--filter needs a value");
        assert_eq!(
            parse(&["--nope", "a"]).unwrap_err(),
            "unknown option `--nope`"
        );
        assert_eq!(
            parse(&["--verbose=1", "a"]).unwrap_err(),
            "unknown option `--verbose=1`"
        );
        assert!(parse(&["--help"]).unwrap().help);
        assert_eq!(
            parse(&["--k8s-version", "1.27", "a"]).unwrap_err(),
            "unsupported Kubernetes version 1.27 (supported: 1.28 to 1.37)"
        );
        assert_eq!(parse(&["a"]).unwrap().k8s_version, None);
    }
}
