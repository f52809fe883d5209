//! Runs the built `matchcond` binary and checks its exact output and exit codes.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::io::Write;
use std::process::{Command, Stdio};

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn data(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn run_with_stdin(args: &[&str], stdin: Option<&str>) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_matchcond"))
        .args(args)
        .current_dir(format!("{}/tests/data", env!("CARGO_MANIFEST_DIR")))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut pipe = child.stdin.take().unwrap();
        if let Some(text) = stdin {
            pipe.write_all(text.as_bytes()).unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

fn run(args: &[&str]) -> Run {
    run_with_stdin(args, None)
}

fn run_env(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_matchcond"));
    command.env_remove("NO_COLOR");
    let out = command
        .args(args)
        .envs(env.iter().copied())
        .current_dir(format!("{}/tests/data", env!("CARGO_MANIFEST_DIR")))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// The text without its ANSI colour sequences.
fn strip_colour(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\x1b[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after.find('m').unwrap();
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap()
}

// ---- eval ----

#[test]
fn eval_text_value_with_review() {
    let r = run(&[
        "eval",
        "object.metadata.labels.team + '!'",
        "--review",
        "pod-create.json",
    ]);
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout, "value: \"checkout!\"\ntype: string\ncost: 5\n");
    assert_eq!(r.stderr, "");
}

#[test]
fn eval_text_value_without_review() {
    let r = run(&["eval", "1 + 2"]);
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout, "value: 3\ntype: int\ncost: 1\n");
}

#[test]
fn eval_text_empty_request() {
    let r = run(&["eval", "request.operation == 'CREATE'"]);
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout, "value: false\ntype: bool\ncost: 2\n");
}

#[test]
fn eval_json_value() {
    let r = run(&[
        "eval",
        "request.operation",
        "--review",
        "pod-create.json",
        "--output",
        "json",
    ]);
    assert_eq!(r.code, 0);
    assert_eq!(
        json(&r.stdout),
        serde_json::json!({"result": "value", "value": "CREATE", "valueText": "\"CREATE\"", "type": "string", "cost": 2})
    );
    assert_eq!(
        r.stdout,
        "{\"cost\":2,\"result\":\"value\",\"type\":\"string\",\"value\":\"CREATE\",\"valueText\":\"\\\"CREATE\\\"\"}\n"
    );
}

#[test]
fn eval_json_values_and_their_text() {
    let cases = [
        (
            "object.metadata.labels.filter(k, k.startsWith('app.kubernetes.io/'))",
            serde_json::json!([
                "app.kubernetes.io/component",
                "app.kubernetes.io/instance",
                "app.kubernetes.io/managed-by",
                "app.kubernetes.io/name",
                "app.kubernetes.io/part-of",
                "app.kubernetes.io/version"
            ]),
            "list",
        ),
        (
            "object.spec.containers[0].resources.requests",
            serde_json::json!({"cpu": "500m", "memory": "512Mi", "ephemeral-storage": "1Gi"}),
            "map",
        ),
        (
            "{1: dyn(2u), 3: dyn(-4)}",
            serde_json::json!({"1": 2, "3": -4}),
            "map",
        ),
        ("b'ab'", serde_json::json!("YWI="), "bytes"),
        ("1.0 / 0.0", serde_json::json!("Infinity"), "double"),
        (
            "timestamp('2024-06-11T09:14:07Z')",
            serde_json::json!("2024-06-11T09:14:07Z"),
            "google.protobuf.Timestamp",
        ),
        (
            "object.?metadata.?labels['none']",
            serde_json::json!(null),
            "optional_type",
        ),
        (
            "quantity(object.spec.containers[0].resources.limits.memory)",
            serde_json::json!("1Gi"),
            "kubernetes.Quantity",
        ),
        ("oldObject", serde_json::json!(null), "null_type"),
    ];
    let review = format!(
        "{}/../../examples/reviews/pod-create.json",
        env!("CARGO_MANIFEST_DIR")
    );
    for (expr, value, type_name) in cases {
        let text = run(&["eval", expr, "--review", &review]);
        assert_eq!(text.code, 0, "{expr}: {}", text.stderr);
        let literal = text
            .stdout
            .lines()
            .next()
            .unwrap()
            .strip_prefix("value: ")
            .unwrap();
        let r = run(&["eval", expr, "--review", &review, "--output", "json"]);
        assert_eq!(r.code, 0);
        let v = json(&r.stdout);
        assert_eq!(v["value"], value, "{expr}");
        assert_eq!(v["valueText"], literal, "{expr}");
        assert_eq!(v["type"], type_name, "{expr}");
    }
}

#[test]
fn eval_authorizer_table() {
    let r = run(&[
        "eval",
        "authorizer.group('').resource('pods').check('create').allowed()",
        "--review",
        "pod-create.json",
        "--authorizer",
        "authz.yaml",
    ]);
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout, "value: true\ntype: bool\ncost: 350004\n");
    let r = run(&[
        "eval",
        "authorizer.group('').resource('secrets').check('get').allowed()",
        "--review",
        "pod-create.json",
        "--authorizer",
        "authz.yaml",
        "--output",
        "json",
    ]);
    assert_eq!(r.code, 0);
    assert_eq!(
        json(&r.stdout),
        serde_json::json!({"result": "value", "value": false, "valueText": "false", "type": "bool", "cost": 350004})
    );
}

#[test]
fn eval_text_compile_error() {
    let r = run(&["eval", "1 + "]);
    assert_eq!(r.code, 1);
    assert_eq!(r.stdout, "");
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[0].starts_with(
        "compilation failed: ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>'"
    ));
    assert_eq!(lines[1], " | 1 + ");
    assert_eq!(lines[2], " | ....^");
}

#[test]
fn eval_json_compile_error() {
    let r = run(&["eval", "'a' + 1", "--output", "json"]);
    assert_eq!(r.code, 1);
    assert_eq!(
        json(&r.stdout),
        serde_json::json!({
            "result": "compileError",
            "error": "compilation failed: ERROR: <input>:1:5: found no matching overload for '_+_' applied to '(string, int)'\n | 'a' + 1\n | ....^"
        })
    );
}

#[test]
fn eval_text_evaluation_error() {
    let r = run(&["eval", "1 / 0"]);
    assert_eq!(r.code, 1);
    assert_eq!(r.stdout, "");
    assert_eq!(r.stderr, "evaluation error: division by zero\ncost: 1\n");
}

#[test]
fn eval_json_evaluation_error() {
    let r = run(&["eval", "1 / 0", "--output", "json"]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stdout,
        "{\"cost\":1,\"error\":\"division by zero\",\"result\":\"evalError\"}\n"
    );
}

#[test]
fn eval_unreadable_review() {
    let r = run(&["eval", "true", "--review", "missing.json"]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "");
    assert!(r
        .stderr
        .starts_with("matchcond: missing.json: cannot read: "));
}

#[test]
fn eval_bad_review_syntax() {
    let r = run(&["eval", "true", "--review", "-"]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "matchcond: <stdin>: expected exactly one AdmissionReview document\n"
    );
    let r = run_with_stdin(
        &["eval", "true", "--review", "-"],
        Some("{\"request\": [1,"),
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.starts_with("matchcond: <stdin>: syntax error: "));
    let r = run_with_stdin(
        &["eval", "true", "--review", "-"],
        Some("kind: AdmissionReview\n"),
    );
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "matchcond: <stdin>: not an AdmissionReview: no \"request\" object\n"
    );
}

#[test]
fn eval_yaml_review() {
    let r = run_with_stdin(
        &["eval", "request.namespace", "--review", "-"],
        Some("kind: AdmissionReview\nrequest:\n  namespace: shop\n  operation: CREATE\n"),
    );
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout, "value: \"shop\"\ntype: string\ncost: 2\n");
}

#[test]
fn eval_bad_version_and_options() {
    let r = run(&["eval", "true", "--k8s-version", "1.2"]);
    assert_eq!(r.code, 2);
    assert!(r
        .stderr
        .contains("unsupported Kubernetes version \"1.2\" (supported: 1.28 to 1.37)"));
    let r = run(&["eval", "true", "--output", "xml"]);
    assert_eq!(r.code, 2);
}

#[test]
fn eval_version_matters() {
    // The two-variable comprehensions exist from 1.33 on.
    let r = run(&["eval", "[1, 2].all(i, v, v > i)", "--k8s-version", "1.33"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.lines().next(), Some("value: true"));
    let r = run(&["eval", "[1, 2].all(i, v, v > i)", "--k8s-version", "1.30"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.starts_with("compilation failed: "));
}

// ---- lint ----

const INVALID_LINES: [&str; 4] = [
    "invalid.yaml:0: ValidatingWebhookConfiguration broken: webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
    "invalid.yaml:0: ValidatingWebhookConfiguration broken: webhooks[0].matchConditions: Too many: 65: must have at most 64 items",
    "invalid.yaml:0: ValidatingWebhookConfiguration broken: webhooks[0].matchConditions[0].expression: Invalid value: \"1 + 2\": must evaluate to bool but got int",
    "invalid.yaml:0: ValidatingWebhookConfiguration broken: webhooks[0].matchConditions[1].name: Duplicate value: \"non-bool\"",
];

#[test]
fn lint_text_clean() {
    let r = run(&["lint", "webhooks.yaml"]);
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout, "1 configuration(s) checked, 0 error(s)\n");
    assert_eq!(r.stderr, "");
}

/// The command line's bar: a configuration with 65 conditions, a duplicate condition name,
/// a non-bool expression and an http:// URL is reported with all four field paths, exit 1.
#[test]
fn lint_text_errors() {
    let config: serde_json::Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(data("invalid.yaml")).unwrap()).unwrap();
    let hook = &config["webhooks"][0];
    assert_eq!(hook["matchConditions"].as_array().unwrap().len(), 65);
    assert_eq!(
        hook["clientConfig"]["url"],
        "http://broken.example.com/validate"
    );
    assert_eq!(
        hook["matchConditions"][0]["name"],
        hook["matchConditions"][1]["name"]
    );
    let r = run(&["lint", "webhooks.yaml", "invalid.yaml"]);
    assert_eq!(r.code, 1);
    let mut want: Vec<&str> = INVALID_LINES.to_vec();
    want.push("2 configuration(s) checked, 4 error(s)");
    assert_eq!(r.stdout.lines().collect::<Vec<_>>(), want);
}

#[test]
fn lint_json_errors() {
    let r = run(&["lint", "invalid.yaml", "--output", "json"]);
    assert_eq!(r.code, 1);
    let v = json(&r.stdout);
    assert_eq!(v["errorCount"], 4);
    let c = &v["configurations"][0];
    assert_eq!(c["file"], "invalid.yaml");
    assert_eq!(c["document"], 0);
    assert_eq!(c["kind"], "ValidatingWebhookConfiguration");
    assert_eq!(c["name"], "broken");
    assert_eq!(c["operation"], "create");
    let fields: Vec<&str> = c["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert_eq!(
        fields,
        [
            "webhooks[0].clientConfig.url",
            "webhooks[0].matchConditions",
            "webhooks[0].matchConditions[0].expression",
            "webhooks[0].matchConditions[1].name",
        ]
    );
    assert_eq!(
        c["errors"][3],
        serde_json::json!({
            "field": "webhooks[0].matchConditions[1].name",
            "type": "Duplicate value",
            "detail": "",
            "message": "webhooks[0].matchConditions[1].name: Duplicate value: \"non-bool\"",
        })
    );
    let messages: Vec<&str> = c["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    let want: Vec<&str> = INVALID_LINES
        .iter()
        .map(|l| {
            l.strip_prefix("invalid.yaml:0: ValidatingWebhookConfiguration broken: ")
                .unwrap()
        })
        .collect();
    assert_eq!(messages, want);
}

#[test]
fn lint_json_clean() {
    let r = run(&["lint", "webhooks.yaml", "--output", "json"]);
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stdout,
        "{\"configurations\":[{\"document\":0,\"errors\":[],\"file\":\"webhooks.yaml\",\"kind\":\"ValidatingWebhookConfiguration\",\"name\":\"pods\",\"operation\":\"create\",\"warnings\":[]}],\"errorCount\":0,\"warningCount\":0}\n"
    );
}

const TRAP_AT: &str = "traps.yaml:0: ValidatingWebhookConfiguration traps: warning: ";

fn trap_lines() -> Vec<String> {
    [
        "webhooks[0].matchConditions[1].expression: object is null for DELETE requests, where object.metadata fails; guard it (request.operation != 'DELETE', object != null) or read it optionally (object.?field)",
        " | object.metadata.labels['app'] == 'web'",
        " | ^",
        "webhooks[0].matchConditions[1].expression: object.metadata.labels['app'] fails when the key is absent; test 'app' in object.metadata.labels (or has(object.metadata.labels.app)) first, or read it optionally (object.metadata.labels[?'app'])",
        " | object.metadata.labels['app'] == 'web'",
        " | ......................^",
        "webhooks[0].matchConditions[2].expression: 2 authorizer checks in one expression: each costs 350000 (700000 when all run) against the per-expression cost limit of 1000000; use one check per condition",
        " | authorizer.group('').resource('pods').check('get').allowed() || authorizer.group('').resource('pods').check('list').allowed()",
        " | ...........................................................................................................^",
        "webhooks[0].matchConditions[3].expression: oldObject is null for CREATE and CONNECT requests, where oldObject.spec fails; guard it (request.operation == 'UPDATE', oldObject != null) or read it optionally (oldObject.?field)",
        " | oldObject.spec != object.spec",
        " | ^",
        "webhooks[0].matchConditions[3].expression: object is null for DELETE requests, where object.spec fails; guard it (request.operation != 'DELETE', object != null) or read it optionally (object.?field)",
        " | oldObject.spec != object.spec",
        " | ..................^",
    ]
    .iter()
    .map(|l| {
        if l.starts_with(" | ") {
            (*l).to_owned()
        } else {
            format!("{TRAP_AT}{l}")
        }
    })
    .collect()
}

#[test]
fn lint_text_warnings_keep_exit_code_zero() {
    let r = run(&["lint", "traps.yaml"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut want = trap_lines();
    want.push("1 configuration(s) checked, 0 error(s), 5 warning(s)".to_owned());
    assert_eq!(r.stdout.lines().collect::<Vec<_>>(), want);
    assert_eq!(r.stderr, "");
}

#[test]
fn lint_json_warnings() {
    let r = run(&["lint", "traps.yaml", "--output", "json"]);
    assert_eq!(r.code, 0);
    let v = json(&r.stdout);
    assert_eq!(v["errorCount"], 0);
    assert_eq!(v["warningCount"], 5);
    let c = &v["configurations"][0];
    assert_eq!(c["file"], "traps.yaml");
    assert_eq!(c["document"], 0);
    assert_eq!(c["errors"], serde_json::json!([]));
    let warnings = c["warnings"].as_array().unwrap();
    let traps: Vec<(&str, &str)> = warnings
        .iter()
        .map(|w| (w["field"].as_str().unwrap(), w["trap"].as_str().unwrap()))
        .collect();
    assert_eq!(
        traps,
        [
            (
                "webhooks[0].matchConditions[1].expression",
                "objectOnDelete"
            ),
            (
                "webhooks[0].matchConditions[1].expression",
                "mapKeyWithoutTest"
            ),
            (
                "webhooks[0].matchConditions[2].expression",
                "multipleAuthorizerChecks"
            ),
            (
                "webhooks[0].matchConditions[3].expression",
                "oldObjectOnCreate"
            ),
            (
                "webhooks[0].matchConditions[3].expression",
                "objectOnDelete"
            ),
        ]
    );
    assert_eq!(
        warnings[1],
        serde_json::json!({
            "field": "webhooks[0].matchConditions[1].expression",
            "trap": "mapKeyWithoutTest",
            "message": "object.metadata.labels['app'] fails when the key is absent; test 'app' in object.metadata.labels (or has(object.metadata.labels.app)) first, or read it optionally (object.metadata.labels[?'app'])",
            "line": 1,
            "column": 23,
            "caret": " | object.metadata.labels['app'] == 'web'\n | ......................^",
        })
    );
    // The text output's lines, message by message.
    let lines = trap_lines();
    for (i, w) in warnings.iter().enumerate() {
        assert_eq!(
            format!(
                "{TRAP_AT}{}: {}",
                w["field"].as_str().unwrap(),
                w["message"].as_str().unwrap()
            ),
            lines[3 * i]
        );
        assert_eq!(
            w["caret"].as_str().unwrap(),
            format!("{}\n{}", lines[3 * i + 1], lines[3 * i + 2])
        );
    }
}

#[test]
fn lint_errors_and_warnings_together() {
    let r = run(&["lint", "invalid.yaml", "traps.yaml"]);
    assert_eq!(r.code, 1);
    let mut want: Vec<String> = INVALID_LINES.iter().map(|l| (*l).to_owned()).collect();
    want.extend(trap_lines());
    want.push("2 configuration(s) checked, 4 error(s), 5 warning(s)".to_owned());
    assert_eq!(r.stdout.lines().collect::<Vec<_>>(), want);
    let r = run(&["lint", "invalid.yaml", "traps.yaml", "--output", "json"]);
    assert_eq!(r.code, 1);
    let v = json(&r.stdout);
    assert_eq!(
        (v["errorCount"].as_u64(), v["warningCount"].as_u64()),
        (Some(4), Some(5))
    );
    assert_eq!(v["configurations"][0]["warnings"], serde_json::json!([]));
}

#[test]
fn lint_update_against_old() {
    // Unchanged matchConditions are not checked again on update.
    let r = run(&["lint", "invalid.yaml", "--old", "invalid.yaml"]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stdout.lines().collect::<Vec<_>>(),
        [INVALID_LINES[0], "1 configuration(s) checked, 1 error(s)"]
    );
    let r = run(&[
        "lint",
        "invalid.yaml",
        "--old",
        "invalid.yaml",
        "--output",
        "json",
    ]);
    assert_eq!(r.code, 1);
    let v = json(&r.stdout);
    assert_eq!(v["configurations"][0]["operation"], "update");
    assert_eq!(v["errorCount"], 1);
}

#[test]
fn lint_stdin_multi_document_and_list() {
    let text = std::fs::read_to_string(data("multi.yaml")).unwrap();
    let r = run_with_stdin(&["lint", "-"], Some(&text));
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stdout.lines().collect::<Vec<_>>(),
        [
            "<stdin>:1: ValidatingWebhookConfiguration syntax: webhooks[0].matchConditions[0].expression: Invalid value: \"request.name ==\": compilation failed: ERROR: <input>:1:16: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}",
            " | request.name ==",
            " | ...............^",
            "2 configuration(s) checked, 1 error(s)",
        ]
    );
    let r = run_with_stdin(&["lint", "-", "--output", "json"], Some(&text));
    assert_eq!(r.code, 1);
    let v = json(&r.stdout);
    assert_eq!(
        v["configurations"][0]["kind"],
        "MutatingWebhookConfiguration"
    );
    assert_eq!(v["configurations"][0]["name"], "listed");
    assert_eq!(v["configurations"][0]["document"], 0);
    assert_eq!(v["configurations"][1]["document"], 1);
}

#[test]
fn lint_unusable_input() {
    let r = run_with_stdin(&["lint", "-"], Some("kind: Pod\n"));
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr,
        "matchcond: <stdin>: document 0: unsupported kind \"Pod\"\n"
    );
    let r = run(&["lint", "missing.yaml"]);
    assert_eq!(r.code, 2);
    assert!(r
        .stderr
        .starts_with("matchcond: missing.yaml: cannot read: "));
    let r = run_with_stdin(&["lint", "-"], Some("a: [1,\n"));
    assert_eq!(r.code, 2);
    assert!(r.stderr.starts_with("matchcond: <stdin>: syntax error: "));
    let r = run(&["lint"]);
    assert_eq!(r.code, 2);
}

// ---- match ----

#[test]
fn match_text_call_and_skip() {
    let r = run(&[
        "match",
        "--config",
        "webhooks.yaml",
        "--review",
        "pod-create.json",
    ]);
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stdout.lines().collect::<Vec<_>>(),
        [
            "validating pods/all-pods.example.com/0: call (/v1, Resource=pods, /v1, Kind=Pod)",
            "validating pods/team-pods.example.com/0: skip: matchCondition \"payments-team\" is false",
            "  condition \"not-kube-system\": true (cost 3)",
            "  condition \"payments-team\": false (cost 5)",
            "admitted: 1 webhook(s) called",
        ]
    );
}

#[test]
fn match_text_rejection() {
    let r = run(&[
        "match",
        "--config",
        "webhooks.yaml",
        "reject.yaml",
        "--review",
        "pod-create.json",
    ]);
    assert_eq!(r.code, 1);
    let msg = "pods \"web-0\" is forbidden: expression 'object.spec.containers[1].image == 'x'' resulted in error: index out of bounds: 1";
    assert_eq!(
        r.stdout.lines().collect::<Vec<_>>(),
        [
            format!("mutating strict/strict.example.com/0: reject: {msg}"),
            "  condition \"image\": error: expression 'object.spec.containers[1].image == 'x'' resulted in error: index out of bounds: 1 (cost 5)".to_owned(),
            format!("rejected: 403 Forbidden: {msg}"),
        ]
    );
}

#[test]
fn match_json() {
    let r = run(&[
        "match",
        "--config",
        "webhooks.yaml",
        "--review",
        "pod-create.json",
        "--output",
        "json",
    ]);
    assert_eq!(r.code, 0);
    assert_eq!(
        json(&r.stdout),
        serde_json::json!({
            "admitted": true,
            "rejection": null,
            "webhooks": [
                {
                    "uid": "pods/all-pods.example.com/0",
                    "configuration": "pods",
                    "name": "all-pods.example.com",
                    "kind": "validating",
                    "decision": "call",
                    "invocation": {
                        "group": "", "version": "v1", "resource": "pods", "subresource": "",
                        "kind": {"group": "", "version": "v1", "kind": "Pod"}
                    },
                    "conditions": null
                },
                {
                    "uid": "pods/team-pods.example.com/0",
                    "configuration": "pods",
                    "name": "team-pods.example.com",
                    "kind": "validating",
                    "decision": "skip",
                    "skipReason": "matchCondition",
                    "skipText": "matchCondition \"payments-team\" is false",
                    "failedCondition": "payments-team",
                    "conditions": {
                        "results": [
                            {"name": "not-kube-system", "expression": "request.namespace != 'kube-system'", "outcome": "true", "cost": 3},
                            {"name": "payments-team", "expression": "object.metadata.?labels['team'].orValue('') == 'payments'", "outcome": "false", "cost": 5}
                        ],
                        "evaluationError": null,
                        "totalCost": 8
                    }
                }
            ]
        })
    );
}

#[test]
fn match_json_rejection() {
    let r = run(&[
        "match",
        "--config",
        "reject.yaml",
        "--review",
        "pod-create.json",
        "--output",
        "json",
    ]);
    assert_eq!(r.code, 1);
    let v = json(&r.stdout);
    assert_eq!(v["admitted"], false);
    assert_eq!(v["rejection"]["code"], 403);
    assert_eq!(v["rejection"]["reason"], "Forbidden");
    assert_eq!(v["webhooks"][0]["decision"], "reject");
    assert_eq!(
        v["webhooks"][0]["conditions"]["results"][0]["outcome"],
        "error"
    );
    assert_eq!(
        v["webhooks"][0]["conditions"]["results"][0]["error"],
        "expression 'object.spec.containers[1].image == 'x'' resulted in error: index out of bounds: 1"
    );
}

#[test]
fn match_unusable_input() {
    let r = run(&[
        "match",
        "--config",
        "webhooks.yaml",
        "--review",
        "missing.json",
    ]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "");
    assert!(r
        .stderr
        .starts_with("matchcond: missing.json: cannot read: "));
    let r = run(&[
        "match",
        "--config",
        "webhooks.yaml",
        "--review",
        "pod-create.json",
        "--namespace-labels",
        "novalue",
    ]);
    assert_eq!(r.code, 2);
    assert!(r
        .stderr
        .contains("invalid label \"novalue\" (expected key=value)"));
}

// ---- colour ----

/// Every command and output, coloured with `--color always`, is the plain text plus escape
/// sequences; `--color never` and `auto` (no terminal here) are the plain text.
#[test]
fn colour_adds_only_escape_sequences() {
    let cases: Vec<Vec<&str>> = vec![
        vec!["lint", "invalid.yaml", "traps.yaml", "multi.yaml"],
        vec!["lint", "webhooks.yaml"],
        vec![
            "match",
            "--config",
            "webhooks.yaml",
            "--review",
            "pod-create.json",
        ],
        vec![
            "match",
            "--config",
            "webhooks.yaml",
            "reject.yaml",
            "--review",
            "pod-create.json",
        ],
        vec!["eval", "1 + "],
        vec!["eval", "1 / 0"],
        vec!["eval", "'a' + 'b'"],
        vec!["eval", "true", "--review", "missing.json"],
    ];
    for args in cases {
        let plain = run(&args);
        let mut coloured_args = args.clone();
        coloured_args.extend(["--color", "always"]);
        let coloured = run(&coloured_args);
        assert_eq!(coloured.code, plain.code, "{args:?}");
        assert_eq!(strip_colour(&coloured.stdout), plain.stdout, "{args:?}");
        assert_eq!(strip_colour(&coloured.stderr), plain.stderr, "{args:?}");
        // A clean lint and a value have nothing to highlight.
        let highlighted = args != ["lint", "webhooks.yaml"] && args != ["eval", "'a' + 'b'"];
        assert_eq!(
            coloured.stdout.contains('\x1b') || coloured.stderr.contains('\x1b'),
            highlighted,
            "{args:?}"
        );
        for when in ["never", "auto"] {
            let mut a = args.clone();
            a.extend(["--color", when]);
            let r = run(&a);
            assert_eq!(
                (r.code, &r.stdout, &r.stderr),
                (plain.code, &plain.stdout, &plain.stderr)
            );
        }
        // JSON is never coloured.
        if args[0] != "eval" || args.len() == 2 {
            let mut a = args.clone();
            a.extend(["--output", "json"]);
            let plain = run(&a);
            a.extend(["--color", "always"]);
            let coloured = run(&a);
            assert_eq!(coloured.stdout, plain.stdout, "{args:?}");
        }
    }
}

#[test]
fn colour_escapes() {
    let r = run(&["--color", "always", "lint", "traps.yaml", "invalid.yaml"]);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(
        &lines[..3],
        [
            "\x1b[1mtraps.yaml:0: ValidatingWebhookConfiguration traps\x1b[0m: \x1b[1;33mwarning\x1b[0m: webhooks[0].matchConditions[1].expression: object is null for DELETE requests, where object.metadata fails; guard it (request.operation != 'DELETE', object != null) or read it optionally (object.?field)",
            " | object.metadata.labels['app'] == 'web'",
            " | \x1b[1;33m^\x1b[0m",
        ]
    );
    assert_eq!(
        lines[15],
        "\x1b[1minvalid.yaml:0: ValidatingWebhookConfiguration broken\x1b[0m: \x1b[31mwebhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]\x1b[0m"
    );
    assert_eq!(
        lines.last().unwrap(),
        &"2 configuration(s) checked, \x1b[1;31m4 error(s)\x1b[0m, \x1b[1;33m5 warning(s)\x1b[0m"
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
        "pod-create.json",
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
    for args in [
        vec![
            "eval",
            "true",
            "--review",
            "missing.json",
            "--output",
            "json",
        ],
        vec!["lint", "missing.yaml", "--output", "json"],
        vec![
            "lint",
            "webhooks.yaml",
            "--old",
            "missing.yaml",
            "--output",
            "json",
        ],
        vec![
            "match",
            "--config",
            "missing.yaml",
            "--review",
            "pod-create.json",
            "--output",
            "json",
        ],
        vec![
            "match",
            "--config",
            "webhooks.yaml",
            "--review",
            "missing.json",
            "--output",
            "json",
        ],
        vec![
            "eval",
            "true",
            "--authorizer",
            "missing.yaml",
            "--output",
            "json",
        ],
    ] {
        let r = run(&args);
        assert_eq!(r.code, 2, "{args:?}");
        assert_eq!(r.stdout, "", "{args:?}");
        assert!(
            r.stderr.starts_with("matchcond: missing."),
            "{args:?}: {}",
            r.stderr
        );
        assert!(r.stderr.contains(": cannot read: "), "{args:?}");
    }
}

#[test]
fn match_request_the_dispatcher_cannot_read() {
    let review = "{\"request\": {\"uid\": \"1\", \"operation\": \"CREATE\", \"dryRun\": \"yes\"}}";
    for output in ["text", "json"] {
        let r = run_with_stdin(
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
        assert_eq!(r.code, 2);
        assert_eq!(r.stdout, "");
        assert_eq!(
            r.stderr,
            "matchcond: <stdin>: the admission request's field dryRun must be a boolean\n"
        );
    }
}

#[test]
fn bad_authorizer_tables() {
    let r = run_with_stdin(
        &["eval", "true", "--authorizer", "-"],
        Some("default: maybe\n"),
    );
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "matchcond: <stdin>: unknown decision \"maybe\" (expected allow, deny or noOpinion)\n"
    );
    let r = run_with_stdin(
        &["eval", "true", "--authorizer", "-"],
        Some("rules: [{decision: allow, error: boom}]\n"),
    );
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "matchcond: <stdin>: rules[0]: a rule gives a decision or an error, not both\n"
    );
}

#[test]
fn help_version_and_usage_errors() {
    let r = run(&["--help"]);
    assert_eq!(r.code, 0);
    for word in ["eval", "lint", "match", "--color"] {
        assert!(r.stdout.contains(word), "{word}");
    }
    let r = run(&["lint", "--help"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("--old <FILE>"));
    let r = run(&["--version"]);
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stdout,
        format!("matchcond {}\n", env!("CARGO_PKG_VERSION"))
    );
    for args in [
        vec![],
        vec!["frobnicate"],
        vec!["match", "--review", "pod-create.json"],
    ] {
        let r = run(&args);
        assert_eq!(r.code, 2, "{args:?}");
        assert_eq!(r.stdout, "", "{args:?}");
        assert!(
            r.stderr.contains("Usage: matchcond"),
            "{args:?}: {}",
            r.stderr
        );
    }
}
