//! Runs the built `matchcond` and compares its whole output and exit codes with the sessions
//! recorded in `tests/snapshots` (`UPDATE_SNAPSHOTS=1` rewrites them), then checks what a
//! snapshot cannot say: the text and JSON outputs agree, colour adds only escape sequences,
//! pipes and terminals.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use std::process::{Command, Stdio};

use common::{data, json, run, run_env, strip_colour, Session};

const REVIEW: &str = "pod-create.json";

// ---- eval ----

#[test]
fn eval_text() {
    let mut s = Session::new("eval-text");
    s.run(&[
        "eval",
        "object.metadata.labels.team + '!'",
        "--review",
        REVIEW,
    ]);
    s.run(&["eval", "1 + 2"]);
    // No review: every request member is empty.
    s.run(&["eval", "request.operation == 'CREATE'"]);
    s.run(&["eval", "1 + "]);
    s.run(&["eval", "1 / 0"]);
    s.run_with_stdin(
        &["eval", "request.namespace", "--review", "-"],
        Some("apiVersion: admission.k8s.io/v1\nkind: AdmissionReview\nrequest:\n  namespace: shop\n  operation: CREATE\n"),
    );
    s.run(&[
        "eval",
        "authorizer.group('').resource('pods').check('create').allowed()",
        "--review",
        REVIEW,
        "--authorizer",
        "authz.yaml",
    ]);
    // The two-variable comprehensions exist from 1.33 on.
    s.run(&["eval", "[1, 2].all(i, v, v > i)", "--k8s-version", "1.33"]);
    s.run(&["eval", "[1, 2].all(i, v, v > i)", "--k8s-version", "1.30"]);
    s.check();
}

#[test]
fn eval_json() {
    let mut s = Session::new("eval-json");
    s.run(&[
        "eval",
        "request.operation",
        "--review",
        REVIEW,
        "--output",
        "json",
    ]);
    s.run(&["eval", "'a' + 1", "--output", "json"]);
    s.run(&["eval", "1 / 0", "--output", "json"]);
    s.run(&[
        "eval",
        "authorizer.group('').resource('secrets').check('get').allowed()",
        "--review",
        REVIEW,
        "--authorizer",
        "authz.yaml",
        "--output",
        "json",
    ]);
    s.check();
}

/// Values of every kind, as text and as JSON; `valueText` is the text output's value.
#[test]
fn eval_values_and_their_text() {
    // The example review of the repository (from tests/data).
    let review = "../../../../examples/reviews/pod-create.json";
    let mut s = Session::new("eval-values");
    for expr in [
        "object.metadata.labels.filter(k, k.startsWith('app.kubernetes.io/'))",
        "object.spec.containers[0].resources.requests",
        "{1: dyn(2u), 3: dyn(-4)}",
        "b'ab'",
        "1.0 / 0.0",
        "timestamp('2024-06-11T09:14:07Z')",
        "object.?metadata.?labels['none']",
        "quantity(object.spec.containers[0].resources.limits.memory)",
        "oldObject",
    ] {
        let text = run(&["eval", expr, "--review", review]);
        assert_eq!(text.code, 0, "{expr}: {}", text.stderr);
        let literal = text.stdout.lines().next().unwrap().strip_prefix("value: ");
        let r = s.run(&["eval", expr, "--review", review, "--output", "json"]);
        assert_eq!(r.code, 0);
        assert_eq!(json(&r.stdout)["valueText"].as_str(), literal, "{expr}");
    }
    s.check();
}

#[test]
fn eval_unusable_input() {
    let mut s = Session::new("eval-unusable-input");
    s.run(&["eval", "true", "--review", "missing.json"]);
    s.run(&["eval", "true", "--review", "-"]);
    // Only AdmissionReviews of admission.k8s.io/v1 (v1beta1 with a warning, below).
    for review in [
        "{\"request\": [1,",
        "apiVersion: admission.k8s.io/v1\nkind: AdmissionReview\n",
        "apiVersion: apps/v1\nkind: Deployment\nrequest: {}\n",
        "request: {operation: CREATE}\n",
        "apiVersion: admission.k8s.io/v2\nkind: AdmissionReview\nrequest: {}\n",
    ] {
        s.run_with_stdin(&["eval", "true", "--review", "-"], Some(review));
    }
    s.run_with_stdin(
        &["eval", "request.operation", "--review", "-"],
        Some("apiVersion: admission.k8s.io/v1beta1\nkind: AdmissionReview\nrequest: {operation: CREATE}\n"),
    );
    s.run(&["eval", "true", "--k8s-version", "1.2"]);
    s.run(&["eval", "true", "--output", "xml"]);
    for table in [
        "default: maybe\n",
        "rules: [{decision: allow, error: boom}]\n",
    ] {
        s.run_with_stdin(&["eval", "true", "--authorizer", "-"], Some(table));
    }
    s.check();
}

// ---- lint ----

#[test]
fn lint_text() {
    // invalid.yaml: 65 conditions, a duplicate condition name, a non-bool expression and an
    // http:// URL, each reported with its field path and line:column (exit 1).
    let config: serde_json::Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(data("invalid.yaml")).unwrap()).unwrap();
    assert_eq!(
        config["webhooks"][0]["matchConditions"]
            .as_array()
            .unwrap()
            .len(),
        65
    );
    let mut s = Session::new("lint-text");
    s.run(&["lint", "webhooks.yaml"]);
    s.run(&["lint", "webhooks.yaml", "--no-compatibility"]);
    s.run(&[
        "lint",
        "webhooks.yaml",
        "invalid.yaml",
        "--no-compatibility",
    ]);
    // Warnings keep the exit code 0.
    s.run(&["lint", "traps.yaml"]);
    s.run(&["lint", "invalid.yaml", "traps.yaml", "--no-compatibility"]);
    // Unchanged matchConditions are not checked again on update.
    s.run(&["lint", "invalid.yaml", "--old", "invalid.yaml"]);
    s.run_with_stdin_file(&["lint", "-", "--no-compatibility"], "multi.yaml");
    // One unusable file does not hide the others' findings; the exit code is the worst.
    s.run(&[
        "lint",
        "traps.yaml",
        "missing.yaml",
        "invalid.yaml",
        "--no-compatibility",
    ]);
    s.check();
}

/// Strict loading: unknown and mistyped fields with their path and line:column, every
/// document reported, other kinds skipped with a note; and input that is not usable.
#[test]
fn lint_strict_loading_and_unusable_input() {
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: typo}\nwebhooks:\n- name: typo.example.com\n  sideEffects: None\n  admissionReviewVersions: [v1]\n  clientConfig: {url: 'https://typo.example.com'}\n  failurepolicy: Ignore\n  timeoutSeconds: ten\n  matchCondition:\n  - {name: a, expression: 'true'}\n";
    let mut s = Session::new("lint-loading");
    s.run_with_stdin(&["lint", "-", "--no-compatibility"], Some(text));
    s.run_with_stdin(&["lint", "-", "--output", "json"], Some(text));
    // A text without any webhook configuration.
    s.run_with_stdin(&["lint", "-"], Some("apiVersion: v1\nkind: Pod\n"));
    s.run_with_stdin(&["lint", "-"], Some(""));
    s.run(&["lint", "missing.yaml"]);
    s.run_with_stdin(&["lint", "-"], Some("a: [1,\n"));
    s.run(&["lint"]);
    // An old file that cannot be used is unusable input.
    s.run_with_stdin(&["lint", "webhooks.yaml", "--old", "-"], Some("kind: [\n"));
    s.check();
}

#[test]
fn lint_json() {
    let mut s = Session::new("lint-json");
    s.run(&[
        "lint",
        "webhooks.yaml",
        "--output",
        "json",
        "--no-compatibility",
    ]);
    s.run(&["lint", "traps.yaml", "--output", "json"]);
    s.run_with_stdin_file(&["lint", "-", "--output", "json"], "multi.yaml");
    s.run(&["lint", "traps.yaml", "missing.yaml", "--output", "json"]);
    s.check();
    // 65 conditions, each with its costs and minimum version, on create and on update.
    let mut s = Session::new("lint-json-invalid");
    s.run(&["lint", "invalid.yaml", "--output", "json"]);
    s.check();
    let mut s = Session::new("lint-json-invalid-update");
    s.run(&[
        "lint",
        "invalid.yaml",
        "--old",
        "invalid.yaml",
        "--output",
        "json",
    ]);
    s.check();
}

/// Every finding of the JSON output, in order.
fn findings(v: &serde_json::Value) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    for f in v["files"].as_array().unwrap() {
        out.extend(f["findings"].as_array().unwrap().iter().cloned());
        for d in f["documents"].as_array().unwrap() {
            out.extend(d["findings"].as_array().unwrap().iter().cloned());
            for c in d["configurations"].as_array().unwrap() {
                out.extend(c["findings"].as_array().unwrap().iter().cloned());
            }
        }
    }
    out
}

/// The text output says what the JSON output says: each finding's position, severity,
/// code, configuration, path and message on its first line, then its snippet and help.
#[test]
fn lint_text_is_the_json_findings() {
    for file in ["invalid.yaml", "traps.yaml"] {
        let text = run(&["lint", file, "--no-compatibility"]);
        let v = json(&run(&["lint", file, "--no-compatibility", "--output", "json"]).stdout);
        let mut want = Vec::new();
        for f in findings(&v) {
            let message = f["message"].as_str().unwrap();
            let head = match f["path"].as_str() {
                Some(path) if !message.starts_with(path) => format!("{path}: {message}"),
                _ => message.to_owned(),
            };
            want.push(format!(
                "{file}:{}:{}: {}[{}]: ValidatingWebhookConfiguration {}: {head}",
                f["line"],
                f["column"],
                f["severity"].as_str().unwrap(),
                f["code"].as_str().unwrap(),
                v["files"][0]["documents"][0]["configurations"][0]["name"]
                    .as_str()
                    .unwrap(),
            ));
            if let Some(snippet) = f["span"]["snippet"].as_str() {
                want.extend(snippet.lines().map(str::to_owned));
            }
            if let Some(help) = f["help"].as_str() {
                want.push(format!("  help: {help}"));
            }
        }
        let got: Vec<&str> = text.stdout.lines().collect();
        assert_eq!(got[..got.len() - 1], want, "{file}");
    }
}

#[test]
fn standard_input_is_read_once() {
    let mut s = Session::new("stdin-once");
    for args in [
        vec!["lint", "-", "-"],
        vec!["lint", "-", "--old", "-"],
        vec!["match", "--config", "-", "--review", "-"],
        vec!["eval", "true", "--review", "-", "--authorizer", "-"],
    ] {
        s.run_with_stdin(&args, Some("{}"));
    }
    s.check();
}

/// Output to a pipe closed early ends quietly with the command's exit code.
#[test]
fn closed_pipe_ends_quietly() {
    let mut text = vec!["lint"];
    text.extend(["traps.yaml"; 300]);
    let mut json = text.clone();
    json.extend(["--output", "json"]);
    for args in [text, json] {
        let mut child = common::command_in(&common::data_dir(), &args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Read 10 bytes, then close the pipe.
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0u8; 10];
        std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
        drop(stdout);
        let out = child.wait_with_output().unwrap();
        let code = out.status.code();
        assert!(matches!(code, Some(0 | 1)), "{args:?}: {code:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(stderr, "", "{args:?}");
    }
}

// ---- match ----

#[test]
fn match_text_and_json() {
    let mut s = Session::new("match");
    let call_and_skip = ["match", "--config", "webhooks.yaml", "--review", REVIEW];
    let rejection = [
        "match",
        "--config",
        "webhooks.yaml",
        "reject.yaml",
        "--review",
        REVIEW,
    ];
    for args in [&call_and_skip[..], &rejection[..]] {
        s.run(args);
        let mut json = args.to_vec();
        json.extend(["--output", "json"]);
        s.run(&json);
    }
    s.run(&[
        "match",
        "--config",
        "webhooks.yaml",
        "--review",
        "missing.json",
    ]);
    s.run(&[
        "match",
        "--config",
        "webhooks.yaml",
        "--review",
        REVIEW,
        "--namespace-labels",
        "novalue",
    ]);
    let review = "{\"apiVersion\": \"admission.k8s.io/v1\", \"kind\": \"AdmissionReview\", \"request\": {\"uid\": \"1\", \"operation\": \"CREATE\", \"dryRun\": \"yes\"}}";
    for output in ["text", "json"] {
        s.run_with_stdin(
            &[
                "match",
                "--config",
                "webhooks.yaml",
                "--review",
                "-",
                "--output",
                output,
            ],
            Some(review),
        );
    }
    s.check();
}

// ---- colour ----

/// Every command and output, coloured with `--color always`, is the plain text plus escape
/// sequences; `--color never` and `auto` (no terminal here) are the plain text.
#[test]
fn colour_adds_only_escape_sequences() {
    let cases: Vec<Vec<&str>> = vec![
        vec!["lint", "invalid.yaml", "traps.yaml", "multi.yaml"],
        vec!["lint", "webhooks.yaml", "--no-compatibility"],
        vec!["lint", "webhooks.yaml"],
        vec!["match", "--config", "webhooks.yaml", "--review", REVIEW],
        vec![
            "match",
            "--config",
            "webhooks.yaml",
            "reject.yaml",
            "--review",
            REVIEW,
        ],
        vec!["eval", "1 + "],
        vec!["eval", "1 / 0"],
        vec!["eval", "'a' + 'b'"],
        vec!["eval", "true", "--review", "missing.json"],
    ];
    for args in cases {
        let plain = run(&args);
        let with = |extra: &[&'static str]| {
            let mut a = args.clone();
            a.extend(extra);
            run(&a)
        };
        let coloured = with(&["--color", "always"]);
        assert_eq!(coloured.code, plain.code, "{args:?}");
        assert_eq!(strip_colour(&coloured.stdout), plain.stdout, "{args:?}");
        assert_eq!(strip_colour(&coloured.stderr), plain.stderr, "{args:?}");
        // A clean lint and a value have nothing to highlight.
        let highlighted = args != ["lint", "webhooks.yaml", "--no-compatibility"]
            && args != ["eval", "'a' + 'b'"];
        assert_eq!(
            coloured.stdout.contains('\x1b') || coloured.stderr.contains('\x1b'),
            highlighted,
            "{args:?}"
        );
        for when in ["never", "auto"] {
            let r = with(&["--color", when]);
            assert_eq!(
                (r.code, &r.stdout, &r.stderr),
                (plain.code, &plain.stdout, &plain.stderr)
            );
        }
        // JSON is never coloured.
        if args[0] != "eval" || args.len() == 2 {
            let plain = with(&["--output", "json"]);
            let coloured = with(&["--output", "json", "--color", "always"]);
            assert_eq!(coloured.stdout, plain.stdout, "{args:?}");
        }
    }
}

#[test]
fn colour_escapes() {
    let r = run(&[
        "--color",
        "always",
        "lint",
        "traps.yaml",
        "invalid.yaml",
        "--no-compatibility",
    ]);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(
        &lines[..3],
        [
            "\x1b[1mtraps.yaml:16:18\x1b[0m: \x1b[1;33mwarning[objectOnDelete]\x1b[0m: ValidatingWebhookConfiguration traps: webhooks[0].matchConditions[0].expression: object is null for DELETE requests, where object.metadata fails with \"no such key\" (failurePolicy Fail: the apiserver rejects these DELETE requests instead of calling the webhook)",
            " | object.metadata.labels['app'] == 'web'",
            " | \x1b[1;33m^\x1b[0m",
        ]
    );
    assert_eq!(
        lines[20],
        "\x1b[1minvalid.yaml:10:10\x1b[0m: \x1b[1;31merror[validation]\x1b[0m: ValidatingWebhookConfiguration broken: \x1b[31mwebhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]\x1b[0m"
    );
    assert_eq!(
        lines.last().unwrap(),
        &"2 configuration(s) checked in 2 file(s): \x1b[1;31m4 error(s)\x1b[0m, \x1b[1;33m6 warning(s)\x1b[0m"
    );
    let r = run(&["eval", "1 + ", "--color", "always"]);
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert!(lines[0].starts_with("\x1b[31mcompilation failed: ERROR: <input>:1:5: "));
    assert!(lines[0].ends_with("\x1b[0m"));
    assert_eq!(lines[1], " | 1 + ");
    assert_eq!(lines[2], " | ....\x1b[1;31m^\x1b[0m");
    let r = run(&[
        "match",
        "--config",
        "webhooks.yaml",
        "--review",
        REVIEW,
        "--color",
        "always",
    ]);
    assert_eq!(
        r.stdout.lines().next().unwrap(),
        "\x1b[1mvalidating pods/all-pods.example.com/0\x1b[0m: \x1b[1;32mcall\x1b[0m (/v1, Resource=pods, /v1, Kind=Pod)"
    );
    let r = run(&[
        "eval",
        "true",
        "--review",
        "missing.json",
        "--color",
        "always",
    ]);
    assert_eq!(r.code, 2);
    assert!(r
        .stderr
        .starts_with("\x1b[31mmatchcond: missing.json: cannot read: "));
}

#[test]
fn colour_choice_and_no_color() {
    // `always` wins over NO_COLOR; `auto` without a terminal never colours.
    let r = run_env(
        &["eval", "1 / 0", "--color", "always"],
        &[("NO_COLOR", "1")],
    );
    assert_eq!(
        r.stderr,
        "\x1b[31mevaluation error: division by zero\x1b[0m\ncost: 1\n"
    );
    let r = run_env(&["eval", "1 / 0"], &[]);
    assert_eq!(r.stderr, "evaluation error: division by zero\ncost: 1\n");
    let r = run(&["eval", "1", "--color", "sometimes"]);
    assert_eq!(r.code, 2);
    assert!(r
        .stderr
        .contains("invalid value 'sometimes' for '--color <WHEN>'"));
}

/// On a terminal (a pseudo-terminal made by util-linux `script`, where it is installed),
/// `auto` colours unless NO_COLOR is set.
#[test]
fn colour_auto_on_a_terminal() {
    let script = ["/usr/bin/script", "/bin/script"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists());
    let Some(script) = script else {
        eprintln!("no `script` command: the terminal case is covered by the unit tests only");
        return;
    };
    let command = format!("{} eval '1 / 0'", env!("CARGO_BIN_EXE_matchcond"));
    let on_tty = |no_color: Option<&str>| {
        let mut c = Command::new(script);
        c.args(["-qec", &command, "/dev/null"]).stdin(Stdio::null());
        match no_color {
            Some(v) => c.env("NO_COLOR", v),
            None => c.env_remove("NO_COLOR"),
        };
        String::from_utf8(c.output().unwrap().stdout).unwrap()
    };
    assert_eq!(
        on_tty(None),
        "\x1b[31mevaluation error: division by zero\x1b[0m\r\ncost: 1\r\n"
    );
    assert_eq!(on_tty(Some("")), on_tty(None));
    assert_eq!(
        on_tty(Some("1")),
        "evaluation error: division by zero\r\ncost: 1\r\n"
    );
}

// ---- every command: unusable input in JSON mode, help, version ----

#[test]
fn unusable_input_in_json_mode_writes_nothing_to_stdout() {
    let mut s = Session::new("json-unusable-input");
    for args in [
        &["eval", "true", "--review", "missing.json"][..],
        &["lint", "webhooks.yaml", "--old", "missing.yaml"],
        &["match", "--config", "missing.yaml", "--review", REVIEW],
        &[
            "match",
            "--config",
            "webhooks.yaml",
            "--review",
            "missing.json",
        ],
        &["eval", "true", "--authorizer", "missing.yaml"],
    ] {
        let mut args = args.to_vec();
        args.extend(["--output", "json"]);
        let r = s.run(&args);
        assert_eq!((r.code, r.stdout.as_str()), (2, ""), "{args:?}");
    }
    s.check();
}

#[test]
fn help_version_and_usage_errors() {
    let mut s = Session::new("help");
    s.run(&["--help"]);
    // Every command's help lists its exit codes and points to the JSON schema.
    for command in ["lint", "match", "eval", "test", "bench"] {
        let r = s.run(&[command, "--help"]);
        assert!(r.stdout.contains("Exit codes:\n  0  "), "{command}");
        assert!(
            r.stdout.contains(
                "\"schemaVersion\": 1; its fields are described in crates/matchcond-cli/README.md"
            ),
            "{command}"
        );
    }
    for args in [
        &[][..],
        &["frobnicate"],
        &["match", "--review", "pod-create.json"],
    ] {
        s.run(args);
    }
    s.check();
    let r = run(&["--version"]);
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stdout,
        format!("matchcond {}\n", env!("CARGO_PKG_VERSION"))
    );
}
