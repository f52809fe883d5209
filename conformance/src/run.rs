//! Running suites: finding the files, running each case under a panic guard, reporting.
//!
//! Report lines (all on standard output, in file order, then case order):
//! - `FAIL <suite> :: <case>: <why>` for a failed case that is not a known failure;
//! - `KNOWN <suite> :: <case>: <why>` for a listed known failure that still fails;
//! - `FIXED <suite> :: <case>: remove it from the known-failures file`;
//! - `STALE <suite> :: <case>: not among the cases run; remove it from the known-failures file`;
//! - `ERROR <file>: <why>` for a file that could not be read or loaded (counted as one failure);
//! - with `verbose`: `PASS <suite> :: <case>` and `SKIP <suite> :: <case>: <reason>`;
//! - with a known-failures file: `known failures: N listed, N still failing`;
//! - last: `N passed, N failed, N skipped`.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use crate::expect::{check_decision, check_expr, check_invalid, describe_expectation, mismatch};
use crate::known::{KnownFailures, Ratchet, Verdict};
use crate::model::{ConditionsInput, Engine, ExprInput, WebhookInput};
use crate::suite::{load_file, CaseKind, CaseSpec};

/// What to run.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Suite files and folders (searched recursively for `*.yaml`).
    pub paths: Vec<PathBuf>,
    /// Run only cases whose `suite :: name` contains this.
    pub filter: Option<String>,
    /// Report passed and skipped cases too.
    pub verbose: bool,
}

/// The outcome of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Totals {
    /// Cases that passed.
    pub passed: usize,
    /// Cases that failed (known failures included), plus files that could not be loaded.
    pub failed: usize,
    /// Cases skipped.
    pub skipped: usize,
    /// Files that could not be read or loaded.
    pub file_errors: usize,
    /// Failed cases not in the known-failures list.
    pub new_failures: usize,
    /// Listed cases that passed.
    pub fixed: usize,
    /// Listed cases that were not run.
    pub stale: usize,
    /// Every failed case: suite, case, and the failure text.
    pub failures: Vec<(String, String, String)>,
}

impl Totals {
    /// Whether the run succeeds: no file error, and no failure outside the known-failures list
    /// (without a list, no failure at all), no fixed and no stale entry.
    pub fn success(&self) -> bool {
        self.file_errors == 0 && self.new_failures == 0 && self.fixed == 0 && self.stale == 0
    }
}

/// The suite files to run, in order: each path given, a folder replaced by the `*.yaml` files
/// below it in sorted order; a file reached twice is run once. Paths that cannot be read come
/// back as errors.
pub fn collect_files(paths: &[PathBuf]) -> Vec<Result<PathBuf, (PathBuf, String)>> {
    let mut out = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    for path in paths {
        let mut found: Vec<Result<PathBuf, (PathBuf, String)>> = Vec::new();
        match std::fs::metadata(path) {
            Err(e) => found.push(Err((path.clone(), format!("cannot read: {e}")))),
            Ok(meta) if meta.is_dir() => {
                let mut files = Vec::new();
                let mut errors = Vec::new();
                walk(path, &mut files, &mut errors);
                files.sort();
                errors.sort();
                found.extend(files.into_iter().map(Ok));
                found.extend(errors.into_iter().map(Err));
            }
            Ok(_) => found.push(Ok(path.clone())),
        }
        for item in found {
            if let Ok(file) = &item {
                let key = std::fs::canonicalize(file).unwrap_or_else(|_| file.clone());
                if !seen.insert(key) {
                    continue;
                }
            }
            out.push(item);
        }
    }
    out
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>, errors: &mut Vec<(PathBuf, String)>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            errors.push((dir.to_path_buf(), format!("cannot read folder: {e}")));
            return;
        }
    };
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                errors.push((dir.to_path_buf(), format!("cannot read folder: {e}")));
                continue;
            }
        };
        let path = entry.path();
        // Symbolic links to folders are not followed (no cycles); links to files are.
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir {
            walk(&path, files, errors);
        } else if path.extension().is_some_and(|e| e == "yaml") && path.is_file() {
            files.push(path);
        }
    }
}

thread_local! {
    static IN_CASE: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs a panic hook that keeps panics inside a running case quiet (their message and
/// location go into the case's failure) and leaves every other panic to the previous hook.
pub fn install_panic_hook() {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if IN_CASE.with(Cell::get) {
            let message = payload_text(info.payload());
            let text = match info.location() {
                Some(l) => format!("{message} (at {}:{}:{})", l.file(), l.line(), l.column()),
                None => message,
            };
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(text));
        } else {
            previous(info);
        }
    }));
}

fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

/// Runs one case and checks its expectation, turning a panic into a failure `panicked: <msg>`.
pub fn run_case_guarded(engine: &dyn Engine, spec: &CaseSpec) -> Result<(), String> {
    IN_CASE.with(|c| c.set(true));
    LAST_PANIC.with(|p| p.borrow_mut().take());
    let result = panic::catch_unwind(AssertUnwindSafe(|| run_case(engine, spec)));
    IN_CASE.with(|c| c.set(false));
    match result {
        Ok(result) => result,
        Err(payload) => {
            let message = LAST_PANIC
                .with(|p| p.borrow_mut().take())
                .unwrap_or_else(|| payload_text(payload.as_ref()));
            Err(format!(
                "panicked: {}",
                crate::expect::one_line(&message, crate::expect::MAX_SHOWN)
            ))
        }
    }
}

/// Runs one case and checks its expectation.
pub fn run_case(engine: &dyn Engine, spec: &CaseSpec) -> Result<(), String> {
    let engine_error = |e: String| {
        mismatch(
            &describe_expectation(&spec.expect),
            &format!("engine error: {e}"),
        )
    };
    match &spec.kind {
        CaseKind::Expression {
            expression,
            bindings,
            disable_check,
            cost_limit,
        } => {
            let input = ExprInput {
                expression,
                request: spec.request.as_ref(),
                bindings: bindings.clone(),
                authorizer: spec.authorizer.as_ref(),
                disable_check: *disable_check,
                cost_limit: *cost_limit,
            };
            let outcome = engine.eval(&input).map_err(engine_error)?;
            check_expr(&spec.expect, &outcome, engine)
        }
        CaseKind::Conditions {
            conditions,
            failure_policy,
            cost_limit,
        } => {
            let input = ConditionsInput {
                conditions: conditions.clone(),
                failure_policy: failure_policy.as_deref(),
                request: spec.request.as_ref(),
                authorizer: spec.authorizer.as_ref(),
                cost_limit: *cost_limit,
            };
            match &spec.expect {
                crate::suite::Expectation::Compiles => {
                    let errors = engine.compile_conditions(&input).map_err(engine_error)?;
                    if errors.is_empty() {
                        Ok(())
                    } else {
                        Err(format!(
                            "expected every condition to compile, got compile errors: {}",
                            errors.join(" | ")
                        ))
                    }
                }
                crate::suite::Expectation::CompileError(text) => {
                    let errors = engine.compile_conditions(&input).map_err(engine_error)?;
                    check_condition_compile_errors(text, &errors)
                }
                crate::suite::Expectation::AnyError(text) => {
                    let errors = engine.compile_conditions(&input).map_err(engine_error)?;
                    if check_condition_compile_errors(text, &errors).is_ok() {
                        return Ok(());
                    }
                    let outcome = engine.decide(&input).map_err(engine_error)?;
                    check_decision(&spec.expect, &outcome)
                }
                _ => {
                    let outcome = engine.decide(&input).map_err(engine_error)?;
                    check_decision(&spec.expect, &outcome)
                }
            }
        }
        CaseKind::Webhook {
            webhook,
            namespace_labels,
        } => {
            let input = WebhookInput {
                webhook,
                request: spec.request.as_ref(),
                namespace_labels: namespace_labels.as_ref(),
                authorizer: spec.authorizer.as_ref(),
            };
            let outcome = engine.decide_webhook(&input).map_err(engine_error)?;
            check_decision(&spec.expect, &outcome)
        }
        CaseKind::Configuration { config } => {
            let errors = engine
                .validate_configuration(config)
                .map_err(engine_error)?;
            match &spec.expect {
                crate::suite::Expectation::Invalid(texts) => check_invalid(texts, &errors),
                other => Err(format!(
                    "invalid case: {} cannot be checked on a configuration",
                    describe_expectation(other)
                )),
            }
        }
    }
}

/// Runs every suite of `options`, writing the report to `out`; `known` is the known-failures
/// list, when one was given.
pub fn run(
    engine: &dyn Engine,
    options: &Options,
    known: Option<&KnownFailures>,
    out: &mut dyn Write,
) -> io::Result<Totals> {
    let empty = KnownFailures::default();
    let mut ratchet = Ratchet::new(known.unwrap_or(&empty));
    let filter = options.filter.as_deref();
    let mut totals = Totals::default();
    let mut suite_files: HashMap<String, PathBuf> = HashMap::new();

    for item in collect_files(&options.paths) {
        let path = match item {
            Ok(path) => path,
            Err((path, message)) => {
                writeln!(out, "ERROR {}: {message}", path.display())?;
                totals.file_errors += 1;
                totals.failed += 1;
                continue;
            }
        };
        let suite = match load_file(&path) {
            Ok(suite) => suite,
            Err(message) => {
                writeln!(out, "ERROR {}: {message}", path.display())?;
                totals.file_errors += 1;
                totals.failed += 1;
                continue;
            }
        };
        if let Some(other) = suite_files.get(&suite.name) {
            writeln!(
                out,
                "ERROR {}: suite name `{}` is already used by {}",
                path.display(),
                suite.name,
                other.display()
            )?;
            totals.file_errors += 1;
            totals.failed += 1;
            continue;
        }
        suite_files.insert(suite.name.clone(), path.clone());

        for case in &suite.cases {
            let full = format!("{} :: {}", suite.name, case.name);
            if filter.is_some_and(|f| !full.contains(f)) {
                continue;
            }
            if let Some(reason) = &case.skip {
                totals.skipped += 1;
                if options.verbose {
                    writeln!(
                        out,
                        "SKIP {full}: {}",
                        crate::expect::one_line(reason, crate::expect::MAX_SHOWN)
                    )?;
                }
                continue;
            }
            let result = match &case.spec {
                Ok(spec) => run_case_guarded(engine, spec),
                Err(problem) => Err(format!("invalid case: {problem}")),
            };
            match result {
                Ok(()) => {
                    totals.passed += 1;
                    match ratchet.record(&suite.name, &case.name, true) {
                        Verdict::Fixed => {
                            writeln!(out, "FIXED {full}: remove it from the known-failures file")?
                        }
                        _ if options.verbose => writeln!(out, "PASS {full}")?,
                        _ => {}
                    }
                }
                Err(message) => {
                    totals.failed += 1;
                    let label = match ratchet.record(&suite.name, &case.name, false) {
                        Verdict::Known => "KNOWN",
                        _ => "FAIL",
                    };
                    writeln!(out, "{label} {full}: {message}")?;
                    totals
                        .failures
                        .push((suite.name.clone(), case.name.clone(), message));
                }
            }
        }
    }

    let stale = ratchet.stale(filter);
    for entry in &stale {
        writeln!(
            out,
            "STALE {}: not among the cases run; remove it from the known-failures file",
            entry.full_name()
        )?;
    }
    totals.stale = stale.len();
    totals.fixed = ratchet.fixed;
    totals.new_failures = ratchet.new_failures;
    if known.is_some() {
        writeln!(
            out,
            "known failures: {} listed, {} still failing",
            ratchet.listed(filter),
            ratchet.still_failing
        )?;
    }
    writeln!(
        out,
        "{} passed, {} failed, {} skipped",
        totals.passed, totals.failed, totals.skipped
    )?;
    Ok(totals)
}

/// Checks a `compileError` expectation against the compile errors of a condition list.
fn check_condition_compile_errors(text: &str, errors: &[String]) -> Result<(), String> {
    let needle = text.to_lowercase();
    if errors.iter().any(|e| e.to_lowercase().contains(&needle)) {
        Ok(())
    } else if errors.is_empty() {
        Err(format!(
            "expected compile error containing {text:?}, got: every condition compiles"
        ))
    } else {
        Err(format!(
            "expected compile error containing {text:?}, got compile errors: {}",
            errors.join(" | ")
        ))
    }
}

#[cfg(test)]
#[path = "../tests/common/temp_dir.rs"]
mod test_dir;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CelValue, DecisionOutcome, ExprOutcome};
    use std::fs;

    /// A fake engine: expressions are looked up in a table, literals are ints.
    struct Fake;
    impl Engine for Fake {
        fn eval(&self, input: &ExprInput<'_>) -> Result<ExprOutcome, String> {
            match input.expression {
                "1" => Ok(ExprOutcome::Value {
                    value: CelValue::Int(1),
                    cost: 0,
                }),
                "x" => Ok(ExprOutcome::CompileError(
                    "ERROR: <input>:1:1: undeclared reference to 'x'".into(),
                )),
                "boom" => panic!("engine exploded"),
                "deep" => {
                    fn recurse(n: u64) -> u64 {
                        let pad = [n; 64];
                        if n == 0 {
                            return 0;
                        }
                        let below = recurse(n - 1);
                        std::hint::black_box(&pad);
                        below
                    }
                    // Far deeper than a default 2 MiB thread stack allows.
                    let depth = recurse(40_000);
                    Ok(ExprOutcome::Value {
                        value: CelValue::Uint(depth),
                        cost: 0,
                    })
                }
                "req" => Ok(ExprOutcome::Value {
                    value: CelValue::String(
                        input
                            .request
                            .and_then(|r| r.get("operation"))
                            .and_then(|o| o.as_str())
                            .unwrap_or("none")
                            .to_owned(),
                    ),
                    cost: 1,
                }),
                other => Err(format!("unsupported: {other}")),
            }
        }
        fn eval_literal(&self, expression: &str) -> Result<CelValue, String> {
            expression
                .parse::<i64>()
                .map(CelValue::Int)
                .map_err(|e| e.to_string())
        }
        fn decide(&self, input: &ConditionsInput<'_>) -> Result<DecisionOutcome, String> {
            Ok(match input.conditions.iter().find(|(_, e)| e == "false") {
                Some((name, _)) => DecisionOutcome::Skip {
                    failed_condition: Some(name.clone()),
                    cost: 1,
                },
                None => DecisionOutcome::Call { cost: 1 },
            })
        }
        fn decide_webhook(&self, _: &WebhookInput<'_>) -> Result<DecisionOutcome, String> {
            Err("webhooks are not supported".into())
        }
        fn validate_configuration(&self, _: &serde_json::Value) -> Result<Vec<String>, String> {
            Ok(vec!["webhooks[0].name: Required value".into()])
        }
    }

    use super::test_dir::{temp_dir, Dir};

    const SUITE_A: &str = r#"
suite: a
cases:
  - {name: one, expression: "1", expect: {value: 1, type: int, cost: 0}}
  - {name: one as uint, expression: "1", expect: {equals: "1", type: uint}}
  - {name: compile, expression: x, expect: {compileError: UNDECLARED}}
  - {name: skipped, expression: x, skip: not today}
  - {name: unsupported, expression: "?", expect: {value: 1}}
  - {name: panics, expression: boom, expect: {value: 1}}
  - {name: no expectation, expression: "1"}
  - {name: request, expression: req, request: {operation: CREATE}, expect: {value: CREATE}}
  - {name: conditions, matchConditions: [{name: a, expression: "true"}, {name: b, expression: "false"}], expect: {decision: Skip, failedCondition: b}}
  - {name: webhook, webhook: {name: w}, expect: {decision: Call}}
  - {name: config, webhookConfiguration: {}, expect: {invalid: [Required value]}}
"#;

    const SUITE_B: &str = r#"
suite: b
cases:
  - {name: deep, expression: deep, expect: {value: 0}}
"#;

    fn setup(name: &str) -> Dir {
        let dir = temp_dir(name);
        fs::create_dir_all(dir.0.join("sub")).unwrap();
        fs::write(dir.0.join("sub/b.yaml"), SUITE_B).unwrap();
        fs::write(dir.0.join("a.yaml"), SUITE_A).unwrap();
        fs::write(dir.0.join("notes.txt"), "not a suite").unwrap();
        fs::write(dir.0.join("broken.yaml"), "suite: c\ncases:\n  - name: [\n").unwrap();
        fs::write(dir.0.join("dup.yaml"), "suite: a\ncases: []\n").unwrap();
        dir
    }

    fn run_text(options: &Options, known: Option<&KnownFailures>) -> (String, Totals) {
        let mut out = Vec::new();
        let totals = run(&Fake, options, known, &mut out).unwrap();
        (String::from_utf8(out).unwrap(), totals)
    }

    fn on_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap()
    }

    #[test]
    fn reports_every_case_in_order() {
        let dir = setup("report");
        let path = dir.0.clone();
        let (text, totals) = on_big_stack(move || {
            run_text(
                &Options {
                    paths: vec![path],
                    ..Options::default()
                },
                None,
            )
        });
        let p = dir.0.display();
        let expected = format!(
            "FAIL a :: one as uint: expected equals 1 of type uint, got value 1 (type int, cost 0)
FAIL a :: unsupported: expected value 1, got engine error: unsupported: ?
FAIL a :: panics: panicked: engine exploded
FAIL a :: no expectation: invalid case: the case has no `expect`
FAIL a :: webhook: expected decision Call, got engine error: webhooks are not supported
ERROR {p}/broken.yaml: invalid YAML: cases[0].name: invalid type: sequence, expected a string at line 3 column 11
ERROR {p}/dup.yaml: suite name `a` is already used by {p}/a.yaml
6 passed, 7 failed, 1 skipped
"
        );
        assert_eq!(text, expected);
        assert_eq!(
            (
                totals.passed,
                totals.failed,
                totals.skipped,
                totals.file_errors
            ),
            (6, 7, 1, 2)
        );
        assert_eq!(totals.new_failures, 5);
        assert!(!totals.success());
        assert_eq!(totals.failures.len(), 5);
    }

    #[test]
    fn verbose_and_filter() {
        let dir = setup("verbose");
        let path = dir.0.join("a.yaml");
        let (text, totals) = run_text(
            &Options {
                paths: vec![path],
                filter: Some("a :: c".into()),
                verbose: true,
            },
            None,
        );
        assert_eq!(
            text,
            "PASS a :: compile\nPASS a :: conditions\nPASS a :: config\n3 passed, 0 failed, 0 skipped\n"
        );
        assert!(totals.success());
        let (text, _) = run_text(
            &Options {
                paths: vec![dir.0.join("a.yaml")],
                filter: Some("skipped".into()),
                verbose: true,
            },
            None,
        );
        assert_eq!(
            text,
            "SKIP a :: skipped: not today\n0 passed, 0 failed, 1 skipped\n"
        );
    }

    #[test]
    fn known_failures_ratchet() {
        let dir = setup("known");
        let path = dir.0.join("a.yaml");
        let known = KnownFailures::parse(
            "a | one as uint | type\n\
             a | unsupported | engine\n\
             a | panics | engine\n\
             a | no expectation | bad case\n\
             a | webhook | no webhooks\n",
        )
        .unwrap();
        let options = Options {
            paths: vec![path.clone()],
            ..Options::default()
        };
        let (text, totals) = run_text(&options, Some(&known));
        assert!(totals.success(), "{text}");
        assert!(text.starts_with("KNOWN a :: one as uint: expected equals 1"));
        assert!(text.ends_with(
            "known failures: 5 listed, 5 still failing\n5 passed, 5 failed, 1 skipped\n"
        ));

        // An unlisted failure, a fixed entry and a stale one each make the run fail.
        let known = KnownFailures::parse(
            "a | one as uint | type\n\
             a | unsupported | engine\n\
             a | panics | engine\n\
             a | no expectation | bad case\n\
             a | one | wrongly listed\n\
             a | skipped | skipped cases do not run\n\
             a | removed | gone\n\
             z | other | filtered out below\n",
        )
        .unwrap();
        let (text, totals) = run_text(&options, Some(&known));
        assert!(!totals.success());
        assert_eq!((totals.new_failures, totals.fixed, totals.stale), (1, 1, 3));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            vec![
                "FIXED a :: one: remove it from the known-failures file",
                "KNOWN a :: one as uint: expected equals 1 of type uint, got value 1 (type int, cost 0)",
                "KNOWN a :: unsupported: expected value 1, got engine error: unsupported: ?",
                "KNOWN a :: panics: panicked: engine exploded",
                "KNOWN a :: no expectation: invalid case: the case has no `expect`",
                "FAIL a :: webhook: expected decision Call, got engine error: webhooks are not supported",
                "STALE a :: skipped: not among the cases run; remove it from the known-failures file",
                "STALE a :: removed: not among the cases run; remove it from the known-failures file",
                "STALE z :: other: not among the cases run; remove it from the known-failures file",
                "known failures: 8 listed, 4 still failing",
                "5 passed, 5 failed, 1 skipped",
            ]
        );
        // With a filter, entries outside it are not stale.
        let (text, totals) = run_text(
            &Options {
                filter: Some("a :: ".into()),
                ..options.clone()
            },
            Some(&known),
        );
        assert_eq!(totals.stale, 2);
        assert!(text.contains("known failures: 7 listed, 4 still failing\n"));
    }

    #[test]
    fn files_in_sorted_order_once() {
        let dir = setup("files");
        let files = collect_files(&[
            dir.0.clone(),
            dir.0.join("a.yaml"),
            dir.0.join("missing.yaml"),
        ]);
        let shown: Vec<String> = files
            .iter()
            .map(|f| match f {
                Ok(p) => p.strip_prefix(&dir.0).unwrap().display().to_string(),
                Err((p, _)) => format!("error {}", p.strip_prefix(&dir.0).unwrap().display()),
            })
            .collect();
        assert_eq!(
            shown,
            vec![
                "a.yaml",
                "broken.yaml",
                "dup.yaml",
                "sub/b.yaml",
                "error missing.yaml"
            ]
        );
    }

    /// Runs nothing.
    struct Failing;
    impl Engine for Failing {
        fn eval(&self, _: &ExprInput<'_>) -> Result<ExprOutcome, String> {
            Err("not here".into())
        }
        fn eval_literal(&self, _: &str) -> Result<CelValue, String> {
            Err("not here".into())
        }
        fn decide(&self, _: &ConditionsInput<'_>) -> Result<DecisionOutcome, String> {
            Err("not here".into())
        }
    }

    #[test]
    fn cel_spec_suites_run_with_a_failing_engine() {
        let Some(dir) = crate::suite::tests::cel_spec_dir() else {
            return;
        };
        let mut out = Vec::new();
        let options = Options {
            paths: vec![dir],
            ..Options::default()
        };
        let totals = run(&Failing, &options, None, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            (
                totals.passed,
                totals.failed,
                totals.skipped,
                totals.file_errors
            ),
            (0, 1398, 1058, 0)
        );
        assert!(text.ends_with("\n0 passed, 1398 failed, 1058 skipped\n"));
        assert!(text.starts_with(
            "FAIL cel-spec/basic :: self_eval_zeroish/self_eval_int_zero: expected equals 0, got engine error: not here\n"
        ));
    }
}
