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
            // The command may exit before reading (a refused option): a closed pipe is fine.
            let _ = pipe.write_all(text.as_bytes());
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
        serde_json::json!({"schemaVersion": 1, "result": "value", "value": "CREATE", "valueText": "\"CREATE\"", "type": "string", "cost": 2})
    );
    assert_eq!(
        r.stdout,
        "{\"cost\":2,\"result\":\"value\",\"schemaVersion\":1,\"type\":\"string\",\"value\":\"CREATE\",\"valueText\":\"\\\"CREATE\\\"\"}\n"
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
        serde_json::json!({"schemaVersion": 1, "result": "value", "value": false, "valueText": "false", "type": "bool", "cost": 350004})
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
            "schemaVersion": 1,
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
        "{\"cost\":1,\"error\":\"division by zero\",\"result\":\"evalError\",\"schemaVersion\":1}\n"
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
        Some("apiVersion: admission.k8s.io/v1\nkind: AdmissionReview\n"),
    );
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "matchcond: <stdin>: the AdmissionReview has no \"request\" object\n"
    );
    // Only AdmissionReviews of admission.k8s.io/v1 (v1beta1 with a warning).
    let r = run_with_stdin(
        &["eval", "true", "--review", "-"],
        Some("apiVersion: apps/v1\nkind: Deployment\nrequest: {}\n"),
    );
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "matchcond: <stdin>: not an AdmissionReview: apiVersion \"apps/v1\", kind \"Deployment\" (expected apiVersion admission.k8s.io/v1, kind AdmissionReview)\n"
    );
    let r = run_with_stdin(
        &["eval", "true", "--review", "-"],
        Some("request: {operation: CREATE}\n"),
    );
    assert_eq!(r.code, 2);
    assert!(r
        .stderr
        .starts_with("matchcond: <stdin>: not an AdmissionReview: apiVersion \"\", kind \"\""));
    let r = run_with_stdin(
        &["eval", "true", "--review", "-"],
        Some("apiVersion: admission.k8s.io/v2\nkind: AdmissionReview\nrequest: {}\n"),
    );
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "matchcond: <stdin>: unsupported AdmissionReview apiVersion \"admission.k8s.io/v2\" (expected admission.k8s.io/v1)\n"
    );
    let r = run_with_stdin(
        &["eval", "request.operation", "--review", "-"],
        Some("apiVersion: admission.k8s.io/v1beta1\nkind: AdmissionReview\nrequest: {operation: CREATE}\n"),
    );
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout, "value: \"CREATE\"\ntype: string\ncost: 2\n");
    assert_eq!(
        r.stderr,
        "matchcond: warning: <stdin>: admission.k8s.io/v1beta1 AdmissionReview read as admission.k8s.io/v1 (the apiserver sends v1beta1 only to webhooks whose admissionReviewVersions ask for it first)\n"
    );
}

#[test]
fn eval_yaml_review() {
    let r = run_with_stdin(
        &["eval", "request.namespace", "--review", "-"],
        Some("apiVersion: admission.k8s.io/v1\nkind: AdmissionReview\nrequest:\n  namespace: shop\n  operation: CREATE\n"),
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
    "invalid.yaml:10:10: error[validation]: ValidatingWebhookConfiguration broken: webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
    "invalid.yaml:13:3: error[validation]: ValidatingWebhookConfiguration broken: webhooks[0].matchConditions: Too many: 65: must have at most 64 items",
    "invalid.yaml:14:34: error[validation]: ValidatingWebhookConfiguration broken: webhooks[0].matchConditions[0].expression: Invalid value: \"1 + 2\": must evaluate to bool but got int",
    "invalid.yaml:15:12: error[validation]: ValidatingWebhookConfiguration broken: webhooks[0].matchConditions[1].name: Duplicate value: \"non-bool\"",
];

/// The always-true condition of invalid.yaml (a warning beside the errors).
const INVALID_WARNING: [&str; 4] = [
    "invalid.yaml:15:35: warning[alwaysTrue]: ValidatingWebhookConfiguration broken: webhooks[0].matchConditions[1].expression: this condition is true for every request the rules let through (CREATE): it never skips the webhook",
    " | true",
    " | ^",
    "  help: remove it, or fix the test",
];

fn invalid_lines() -> Vec<String> {
    let mut v: Vec<String> = INVALID_LINES.iter().map(|l| (*l).to_owned()).collect();
    v.extend(INVALID_WARNING.iter().map(|l| (*l).to_owned()));
    v
}

fn webhooks_note() -> String {
    format!(
        "webhooks.yaml:1:1: note[compatibility]: ValidatingWebhookConfiguration pods: accepted on create by Kubernetes 1.29 to {}; refused by 1.28 (1.28: webhooks[1].matchConditions[1].expression: Invalid value: \"object.metadata.?labels['team'].orValue('') == 'payments'\": compilation failed: ERROR: <input>:1:16: unsupported syntax '.?')",
        matchcond::KubeVersion::LATEST
    )
}

#[test]
fn lint_text_clean() {
    let r = run(&["lint", "webhooks.yaml"]);
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stdout.lines().collect::<Vec<_>>(),
        [
            webhooks_note().as_str(),
            "1 configuration(s) checked in 1 file(s): 0 error(s), 0 warning(s), 1 note(s)"
        ]
    );
    assert_eq!(r.stderr, "");
    let r = run(&["lint", "webhooks.yaml", "--no-compatibility"]);
    assert_eq!(
        r.stdout,
        "1 configuration(s) checked in 1 file(s): 0 error(s), 0 warning(s)\n"
    );
}

/// A configuration with 65 conditions, a duplicate condition name, a non-bool expression
/// and an http:// URL is reported with all four field paths and their line:column, exit 1.
#[test]
fn lint_text_errors() {
    let config: serde_json::Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(data("invalid.yaml")).unwrap()).unwrap();
    let hook = &config["webhooks"][0];
    assert_eq!(hook["matchConditions"].as_array().unwrap().len(), 65);
    let r = run(&[
        "lint",
        "webhooks.yaml",
        "invalid.yaml",
        "--no-compatibility",
    ]);
    assert_eq!(r.code, 1);
    let mut want = invalid_lines();
    want.push("2 configuration(s) checked in 2 file(s): 4 error(s), 1 warning(s)".to_owned());
    assert_eq!(r.stdout.lines().collect::<Vec<_>>(), want);
}

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

#[test]
fn lint_json_errors() {
    let r = run(&["lint", "invalid.yaml", "--output", "json"]);
    assert_eq!(r.code, 1);
    let v = json(&r.stdout);
    assert_eq!(v["schemaVersion"], 1);
    assert_eq!(v["k8sVersion"], "1.37");
    assert_eq!(
        (v["errorCount"].as_u64(), v["warningCount"].as_u64()),
        (Some(4), Some(1))
    );
    let f = &v["files"][0];
    assert_eq!(f["file"], "invalid.yaml");
    assert_eq!(f["error"], serde_json::Value::Null);
    let c = &f["documents"][0]["configurations"][0];
    assert_eq!(c["kind"], "ValidatingWebhookConfiguration");
    assert_eq!(c["name"], "broken");
    assert_eq!(c["operation"], "create");
    assert_eq!(
        (c["line"].as_u64(), c["column"].as_u64()),
        (Some(1), Some(1))
    );
    // Refused by every modelled version.
    let compat = c["compatibility"].as_array().unwrap();
    assert_eq!(
        compat.len(),
        (matchcond::KubeVersion::LATEST.minor - 28 + 1) as usize
    );
    assert!(compat.iter().all(|v| v["accepted"] == false));
    let all = findings(&v);
    let errors: Vec<&serde_json::Value> = all.iter().filter(|f| f["severity"] == "error").collect();
    assert_eq!(
        errors
            .iter()
            .map(|e| e["path"].as_str().unwrap())
            .collect::<Vec<_>>(),
        [
            "webhooks[0].clientConfig.url",
            "webhooks[0].matchConditions",
            "webhooks[0].matchConditions[0].expression",
            "webhooks[0].matchConditions[1].name",
        ]
    );
    assert_eq!(
        *errors[3],
        serde_json::json!({
            "severity": "error",
            "code": "validation",
            "message": "webhooks[0].matchConditions[1].name: Duplicate value: \"non-bool\"",
            "help": null,
            "path": "webhooks[0].matchConditions[1].name",
            "line": 15,
            "column": 12,
            "span": null,
            "operations": [],
            "versions": [],
            "fieldError": {"field": "webhooks[0].matchConditions[1].name", "type": "Duplicate value", "detail": ""},
        })
    );
    // The text lines are the JSON findings' positions and messages.
    for (e, line) in errors.iter().zip(INVALID_LINES) {
        assert_eq!(
            format!(
                "invalid.yaml:{}:{}: error[validation]: ValidatingWebhookConfiguration broken: {}",
                e["line"],
                e["column"],
                e["message"].as_str().unwrap()
            ),
            line
        );
    }
}

#[test]
fn lint_json_clean() {
    let r = run(&[
        "lint",
        "webhooks.yaml",
        "--output",
        "json",
        "--no-compatibility",
    ]);
    assert_eq!(r.code, 0);
    let v = json(&r.stdout);
    assert_eq!(
        v,
        serde_json::json!({
            "schemaVersion": 1,
            "k8sVersion": "1.37",
            "files": [{
                "file": "webhooks.yaml",
                "error": null,
                "findings": [],
                "documents": [{
                    "index": 0,
                    "line": 1,
                    "kind": "ValidatingWebhookConfiguration",
                    "findings": [],
                    "configurations": [{
                        "kind": "ValidatingWebhookConfiguration",
                        "name": "pods",
                        "item": null,
                        "line": 1,
                        "column": 1,
                        "operation": "create",
                        "findings": [],
                        "webhooks": [
                            {
                                "name": "all-pods.example.com",
                                "operations": ["CREATE"],
                                "cost": {"min": 0, "max": 0, "fixedMax": 0},
                                "conditions": [],
                            },
                            {
                                "name": "team-pods.example.com",
                                "operations": ["CREATE", "UPDATE"],
                                "cost": {"min": 4, "max": 9, "fixedMax": 6},
                                "conditions": [
                                    // The comparisons with literals bound the costs.
                                    {"name": "not-kube-system", "cost": {"min": 2, "max": 4, "fixedMax": 2}, "minimumVersion": "1.28"},
                                    {"name": "payments-team", "cost": {"min": 2, "max": 5, "fixedMax": 4}, "minimumVersion": "1.28"},
                                ],
                            },
                        ],
                        "compatibility": [],
                    }],
                }],
            }],
            "configurationCount": 1,
            "errorCount": 0,
            "warningCount": 0,
            "noteCount": 0,
        })
    );
}

const TRAP_LINES: [&str; 20] = [
    "traps.yaml:16:18: warning[objectOnDelete]: ValidatingWebhookConfiguration traps: webhooks[0].matchConditions[0].expression: object is null for DELETE requests, where object.metadata fails with \"no such key\" (failurePolicy Fail: the apiserver rejects these DELETE requests instead of calling the webhook)",
    " | object.metadata.labels['app'] == 'web'",
    " | ^",
    "  help: guard the read: request.operation != 'DELETE' (in this condition or in another one: a false condition skips the webhook) or object != null; or read it optionally (object.?metadata)",
    "traps.yaml:16:40: warning[absentMap]: ValidatingWebhookConfiguration traps: webhooks[0].matchConditions[0].expression: object.metadata.labels is absent on objects without labels, where object.metadata.labels['app'] fails with \"no such key\" (failurePolicy Fail: the apiserver rejects such requests instead of calling the webhook)",
    " | object.metadata.labels['app'] == 'web'",
    " | ......................^",
    "  help: test has(object.metadata.labels) first, or read it optionally: object.metadata.?labels[?'app'].orValue('')",
    "traps.yaml:18:18: warning[oldObjectOnCreate]: ValidatingWebhookConfiguration traps: webhooks[0].matchConditions[1].expression: oldObject is null for CREATE requests, where oldObject.spec fails with \"no such key\" (failurePolicy Fail: the apiserver rejects these CREATE requests instead of calling the webhook)",
    " | oldObject.spec != object.spec",
    " | ^",
    "  help: guard the read: request.operation == 'UPDATE' (in this condition or in another one) or oldObject != null; or read it optionally (oldObject.?spec)",
    "traps.yaml:18:36: warning[objectOnDelete]: ValidatingWebhookConfiguration traps: webhooks[0].matchConditions[1].expression: object is null for DELETE requests, where object.spec fails with \"no such key\" (failurePolicy Fail: the apiserver rejects these DELETE requests instead of calling the webhook)",
    " | oldObject.spec != object.spec",
    " | ..................^",
    "  help: guard the read: request.operation != 'DELETE' (in this condition or in another one: a false condition skips the webhook) or object != null; or read it optionally (object.?spec)",
    "traps.yaml:21:7: warning[costLimit]: ValidatingWebhookConfiguration traps: webhooks[0].matchConditions[2].expression: this condition can cost 1050012 (3 authorizer check(s)), over the per-expression limit of 1000000: its evaluation is cancelled (\"operation cancelled: actual cost limit exceeded\") (failurePolicy Fail: the apiserver rejects these CREATE, UPDATE and DELETE requests instead of calling the webhook)",
    " | authorizer.group('').resource('pods').check('get').allowed() || authorizer.group('').resource('pods').check('list').allowed() || authorizer.group('').resource('pods').check('watch').allowed()",
    " | ^",
    "  help: at most 2 authorizer checks (350,000 each) fit in one condition: check fewer permissions here (one broader permission), or move checks into conditions of their own",
];

#[test]
fn lint_text_warnings_keep_exit_code_zero() {
    let r = run(&["lint", "traps.yaml"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut want: Vec<&str> = TRAP_LINES.to_vec();
    want.push("1 configuration(s) checked in 1 file(s): 0 error(s), 5 warning(s)");
    assert_eq!(r.stdout.lines().collect::<Vec<_>>(), want);
    assert_eq!(r.stderr, "");
}

#[test]
fn lint_json_warnings() {
    let r = run(&["lint", "traps.yaml", "--output", "json"]);
    assert_eq!(r.code, 0);
    let v = json(&r.stdout);
    assert_eq!(
        (v["errorCount"].as_u64(), v["warningCount"].as_u64()),
        (Some(0), Some(5))
    );
    let all = findings(&v);
    assert_eq!(
        all.iter()
            .map(|f| (f["code"].as_str().unwrap(), f["operations"].clone()))
            .collect::<Vec<_>>(),
        [
            ("objectOnDelete", serde_json::json!(["DELETE"])),
            ("absentMap", serde_json::json!([])),
            ("oldObjectOnCreate", serde_json::json!(["CREATE"])),
            ("objectOnDelete", serde_json::json!(["DELETE"])),
            (
                "costLimit",
                serde_json::json!(["CREATE", "UPDATE", "DELETE"])
            ),
        ]
    );
    assert_eq!(
        all[1]["span"],
        serde_json::json!({
            "start": 22, "end": 23, "line": 1, "column": 23,
            "snippet": " | object.metadata.labels['app'] == 'web'\n | ......................^",
        })
    );
    // The text output's lines, finding by finding.
    for (i, f) in all.iter().enumerate() {
        let at = format!(
            "traps.yaml:{}:{}: warning[{}]: ValidatingWebhookConfiguration traps: {}: {}",
            f["line"],
            f["column"],
            f["code"].as_str().unwrap(),
            f["path"].as_str().unwrap(),
            f["message"].as_str().unwrap()
        );
        assert_eq!(at, TRAP_LINES[4 * i]);
        assert_eq!(
            f["span"]["snippet"].as_str().unwrap(),
            format!("{}\n{}", TRAP_LINES[4 * i + 1], TRAP_LINES[4 * i + 2])
        );
        assert_eq!(
            format!("  help: {}", f["help"].as_str().unwrap()),
            TRAP_LINES[4 * i + 3]
        );
    }
    // The condition costs: the checks' condition is bounded; the others depend on data.
    let hook = &v["files"][0]["documents"][0]["configurations"][0]["webhooks"][0];
    assert_eq!(
        hook["conditions"][2]["cost"],
        serde_json::json!({"min": 350004, "max": 1050012, "fixedMax": 1050012})
    );
}

#[test]
fn lint_errors_and_warnings_together() {
    let r = run(&["lint", "invalid.yaml", "traps.yaml", "--no-compatibility"]);
    assert_eq!(r.code, 1);
    let mut want = invalid_lines();
    want.extend(TRAP_LINES.iter().map(|l| (*l).to_owned()));
    want.push("2 configuration(s) checked in 2 file(s): 4 error(s), 6 warning(s)".to_owned());
    assert_eq!(r.stdout.lines().collect::<Vec<_>>(), want);
}

#[test]
fn lint_update_against_old() {
    // Unchanged matchConditions are not checked again on update.
    let r = run(&["lint", "invalid.yaml", "--old", "invalid.yaml"]);
    assert_eq!(r.code, 1);
    let mut want = vec![INVALID_LINES[0].to_owned()];
    want.extend(INVALID_WARNING.iter().map(|l| (*l).to_owned()));
    want.push("1 configuration(s) checked in 1 file(s): 1 error(s), 1 warning(s)".to_owned());
    assert_eq!(r.stdout.lines().collect::<Vec<_>>(), want);
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
    assert_eq!(
        v["files"][0]["documents"][0]["configurations"][0]["operation"],
        "update"
    );
    assert_eq!(v["errorCount"], 1);
    // An old file that cannot be used is unusable input.
    let r = run_with_stdin(&["lint", "webhooks.yaml", "--old", "-"], Some("kind: [\n"));
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr,
        "matchcond: <stdin>:2:1: syntax error: while parsing a node, did not find expected node content\n"
    );
}

#[test]
fn lint_stdin_multi_document_and_list() {
    let text = std::fs::read_to_string(data("multi.yaml")).unwrap();
    let r = run_with_stdin(&["lint", "-", "--no-compatibility"], Some(&text));
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stdout.lines().collect::<Vec<_>>(),
        [
            "<stdin>:23:29: error[validation]: ValidatingWebhookConfiguration syntax: webhooks[0].matchConditions[0].expression: Invalid value: \"request.name ==\": compilation failed: ERROR: <input>:1:16: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}",
            " | request.name ==",
            " | ...............^",
            "2 configuration(s) checked in 1 file(s): 1 error(s), 0 warning(s)",
        ]
    );
    let r = run_with_stdin(&["lint", "-", "--output", "json"], Some(&text));
    assert_eq!(r.code, 1);
    let v = json(&r.stdout);
    let docs = &v["files"][0]["documents"];
    assert_eq!(v["files"][0]["file"], "<stdin>");
    assert_eq!(docs[0]["kind"], "List");
    assert_eq!(
        docs[0]["configurations"][0]["kind"],
        "MutatingWebhookConfiguration"
    );
    assert_eq!(docs[0]["configurations"][0]["name"], "listed");
    assert_eq!(docs[0]["configurations"][0]["item"], 0);
    assert_eq!(docs[0]["configurations"][0]["line"], 5);
    assert_eq!(docs[1]["index"], 1);
    // A document starts at its `---`.
    assert_eq!(docs[1]["line"], 13);
}

/// Strict loading: unknown and mistyped fields with their path and line:column, every
/// document and file reported, other kinds skipped with a note.
#[test]
fn lint_strict_loading() {
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: typo}\nwebhooks:\n- name: typo.example.com\n  sideEffects: None\n  admissionReviewVersions: [v1]\n  clientConfig: {url: 'https://typo.example.com'}\n  failurepolicy: Ignore\n  timeoutSeconds: ten\n  matchCondition:\n  - {name: a, expression: 'true'}\n";
    let r = run_with_stdin(&["lint", "-", "--no-compatibility"], Some(text));
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stdout.lines().collect::<Vec<_>>(),
        [
            "<stdin>:1:1: note[skippedKind]: skipped: ConfigMap is not a webhook configuration",
            "<stdin>:13:3: error[unknownField]: ValidatingWebhookConfiguration typo: webhooks[0].failurepolicy: unknown field (did you mean failurePolicy?)",
            "<stdin>:14:19: error[invalidType]: ValidatingWebhookConfiguration typo: webhooks[0].timeoutSeconds: invalid type: string \"ten\", expected an integer (int32)",
            "<stdin>:15:3: error[unknownField]: ValidatingWebhookConfiguration typo: webhooks[0].matchCondition: unknown field (did you mean matchConditions?)",
            "1 configuration(s) checked in 1 file(s): 3 error(s), 0 warning(s), 1 note(s)",
        ]
    );
    let r = run_with_stdin(&["lint", "-", "--output", "json"], Some(text));
    let v = json(&r.stdout);
    let f = &findings(&v)[1];
    assert_eq!(
        (
            f["code"].as_str(),
            f["path"].as_str(),
            f["line"].as_u64(),
            f["column"].as_u64()
        ),
        (
            Some("unknownField"),
            Some("webhooks[0].failurepolicy"),
            Some(13),
            Some(3)
        )
    );
}

#[test]
fn lint_reports_every_file() {
    // One unusable file does not hide the others' findings; the exit code is the worst.
    let r = run(&[
        "lint",
        "traps.yaml",
        "missing.yaml",
        "invalid.yaml",
        "--no-compatibility",
    ]);
    assert_eq!(r.code, 2);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines[0], TRAP_LINES[0]);
    assert!(lines
        .iter()
        .any(|l| l.starts_with("missing.yaml: error: cannot read: ")));
    assert!(lines.contains(&INVALID_LINES[0]));
    assert_eq!(
        *lines.last().unwrap(),
        "2 configuration(s) checked in 3 file(s): 5 error(s), 6 warning(s)"
    );
    let r = run(&["lint", "traps.yaml", "missing.yaml", "--output", "json"]);
    assert_eq!(r.code, 2);
    let v = json(&r.stdout);
    assert_eq!(v["files"][1]["file"], "missing.yaml");
    assert!(v["files"][1]["error"]
        .as_str()
        .unwrap()
        .starts_with("cannot read: "));
    assert_eq!(
        v["files"][0]["documents"][0]["configurations"][0]["name"],
        "traps"
    );
}

#[test]
fn lint_unusable_input() {
    // A text without any webhook configuration.
    let r = run_with_stdin(&["lint", "-"], Some("apiVersion: v1\nkind: Pod\n"));
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stdout.lines().collect::<Vec<_>>(),
        [
            "<stdin>:1:1: note[skippedKind]: skipped: Pod is not a webhook configuration",
            "<stdin>:1:1: error[noConfiguration]: no ValidatingWebhookConfiguration or MutatingWebhookConfiguration found",
            "  help: lint files that hold ValidatingWebhookConfiguration or MutatingWebhookConfiguration objects (documents of other kinds are skipped)",
            "0 configuration(s) checked in 1 file(s): 1 error(s), 0 warning(s), 1 note(s)",
        ]
    );
    let r = run_with_stdin(&["lint", "-"], Some(""));
    assert_eq!(r.code, 2);
    assert!(r
        .stdout
        .starts_with("<stdin>:1:1: error[noConfiguration]: "));
    let r = run(&["lint", "missing.yaml"]);
    assert_eq!(r.code, 2);
    assert!(r.stdout.starts_with("missing.yaml: error: cannot read: "));
    let r = run_with_stdin(&["lint", "-"], Some("a: [1,\n"));
    assert_eq!(r.code, 2);
    assert!(r
        .stdout
        .starts_with("<stdin>:2:1: error[syntax]: syntax error: "));
    let r = run(&["lint"]);
    assert_eq!(r.code, 2);
}

#[test]
fn standard_input_is_read_once() {
    for args in [
        vec!["lint", "-", "-"],
        vec!["lint", "-", "--old", "-"],
        vec!["match", "--config", "-", "--review", "-"],
        vec!["eval", "true", "--review", "-", "--authorizer", "-"],
    ] {
        let r = run_with_stdin(&args, Some("{}"));
        assert_eq!(r.code, 2, "{args:?}");
        assert_eq!(r.stdout, "", "{args:?}");
        assert!(
            r.stderr.starts_with(
                "matchcond: standard input (-) can be read only once, but it is given for "
            ),
            "{args:?}: {}",
            r.stderr
        );
    }
    let r = run_with_stdin(&["match", "--config", "-", "--review", "-"], Some("{}"));
    assert_eq!(
        r.stderr,
        "matchcond: standard input (-) can be read only once, but it is given for --config and --review\n"
    );
}

/// Output to a pipe closed early ends quietly with the command's exit code.
#[test]
fn closed_pipe_ends_quietly() {
    let mut text = vec!["lint"];
    text.extend(["traps.yaml"; 300]);
    let mut json = text.clone();
    json.extend(["--output", "json"]);
    for args in [text, json] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_matchcond"))
            .args(&args)
            .current_dir(format!("{}/tests/data", env!("CARGO_MANIFEST_DIR")))
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
            "schemaVersion": 1,
            "admitted": true,
            "rejection": null,
            "invalidConfigurations": [],
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
        vec!["lint", "webhooks.yaml", "--no-compatibility"],
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
        let highlighted = args != ["lint", "webhooks.yaml", "--no-compatibility"]
            && args != ["eval", "'a' + 'b'"];
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
    let review = "{\"apiVersion\": \"admission.k8s.io/v1\", \"kind\": \"AdmissionReview\", \"request\": {\"uid\": \"1\", \"operation\": \"CREATE\", \"dryRun\": \"yes\"}}";
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
        "matchcond: <stdin>: default: unknown decision \"maybe\" (expected allow, deny or noOpinion)\n"
    );
    let r = run_with_stdin(
        &["eval", "true", "--authorizer", "-"],
        Some("rules: [{decision: allow, error: boom}]\n"),
    );
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "matchcond: <stdin>: rules[0] gives both `decision` and `error`\n"
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
    // Every command's help lists its exit codes and points to the JSON schema.
    for command in ["lint", "match", "eval", "bench"] {
        let r = run(&[command, "--help"]);
        assert_eq!(r.code, 0, "{command}");
        assert!(
            r.stdout.contains("Exit codes:\n  0  "),
            "{command}: {}",
            r.stdout
        );
        assert!(r.stdout.contains("  2  "), "{command}");
        assert!(
            r.stdout.contains(
                "\"schemaVersion\": 1; its fields are described in crates/matchcond-cli/README.md"
            ),
            "{command}"
        );
    }
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
