//! `match` and `eval` on requests built from manifests (`--object`, `--operation`,
//! `--user`, `--namespace-object`, `--crd`, `--print-review`), and the warnings about
//! hand-written reviews.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::{json, run, Session};

#[test]
fn match_from_manifests() {
    let mut s = Session::new("request-match");
    s.run(&[
        "match",
        "--config",
        "scoped.yaml",
        "--object",
        "pod.yaml",
        "--user",
        "alice",
        "--group",
        "dev",
        "--namespace-object",
        "namespace-objects.yaml",
    ]);
    // The user is an administrator: the condition skips the webhook.
    s.run(&[
        "match",
        "--config",
        "scoped.yaml",
        "--object",
        "pod.yaml",
        "--user",
        "root",
        "--group",
        "system:masters",
        "--namespace-object",
        "namespace-objects.yaml",
    ]);
    // A namespace that does not exist.
    s.run(&[
        "match",
        "--config",
        "scoped.yaml",
        "--object",
        "pod.yaml",
        "-n",
        "shop",
        "--user",
        "alice",
        "--namespace-object",
        "widget.yaml",
    ]);
    // UPDATE from two manifests; DELETE; exec.
    s.run(&[
        "match",
        "--config",
        "webhooks.yaml",
        "--object",
        "pod.yaml",
        "--old-object",
        "pod-old.yaml",
        "--user",
        "alice",
        "--output",
        "json",
    ]);
    s.run(&[
        "match",
        "--config",
        "scoped.yaml",
        "--old-object",
        "pod.yaml",
        "--user",
        "alice",
        "--namespace-object",
        "namespace-objects.yaml",
    ]);
    s.run(&[
        "match",
        "--config",
        "scoped.yaml",
        "--object",
        "pod.yaml",
        "--subresource",
        "exec",
        "--user",
        "alice",
        "--namespace-object",
        "namespace-objects.yaml",
    ]);
    s.check();
}

#[test]
fn print_review() {
    let mut s = Session::new("request-print-review");
    s.run(&[
        "match",
        "--object",
        "pod.yaml",
        "--user",
        "alice",
        "--group",
        "dev",
        "--extra",
        "scopes=read",
        "--uid",
        "u-1",
        "--dry-run",
        "--print-review",
    ]);
    s.run(&[
        "eval",
        "request.subResource",
        "--object",
        "pod.yaml",
        "--subresource",
        "exec",
        "--user",
        "alice",
        "--print-review",
    ]);
    s.run(&[
        "match",
        "--object",
        "widget.yaml",
        "--crd",
        "widget-crd.yaml",
        "--user",
        "alice",
        "--operation",
        "delete",
        "--print-review",
    ]);
    s.check();
}

#[test]
fn bad_requests() {
    let mut s = Session::new("request-errors");
    s.run(&["match", "--config", "webhooks.yaml", "--review", "pod.yaml"]);
    s.run(&[
        "match",
        "--config",
        "webhooks.yaml",
        "--object",
        "pod.yaml",
        "-n",
        "dev",
    ]);
    s.run(&[
        "match",
        "--config",
        "webhooks.yaml",
        "--object",
        "pod.yaml",
        "--old-object",
        "pod-old.yaml",
        "--operation",
        "CREATE",
    ]);
    s.run(&[
        "match",
        "--config",
        "webhooks.yaml",
        "--object",
        "widget.yaml",
    ]);
    s.run(&[
        "match",
        "--config",
        "webhooks.yaml",
        "--object",
        "namespace-objects.yaml",
    ]);
    s.run(&[
        "match",
        "--config",
        "webhooks.yaml",
        "--object",
        "bad-manifests.yaml",
    ]);
    s.run(&[
        "match",
        "--config",
        "webhooks.yaml",
        "--object",
        "pod.yaml",
        "--namespace-object",
        "bad-manifests.yaml",
        "--crd",
        "pod.yaml",
    ]);
    s.run(&[
        "match",
        "--config",
        "webhooks.yaml",
        "--object",
        "pod.yaml",
        "--subresource",
        "exec",
        "--operation",
        "CREATE",
    ]);
    s.run(&[
        "eval",
        "true",
        "--object",
        "pod.yaml",
        "--operation",
        "PATCH",
    ]);
    s.check();
}

#[test]
fn hand_written_reviews_are_checked() {
    let mut s = Session::new("request-review-warnings");
    s.run(&[
        "match",
        "--config",
        "scoped.yaml",
        "--review",
        "review-incomplete.yaml",
    ]);
    s.run(&[
        "eval",
        "request.namespace",
        "--review",
        "review-incomplete.yaml",
        "--output",
        "json",
    ]);
    s.check();
}

/// The review printed is the review built: deciding on it gives the same outcome.
#[test]
fn a_printed_review_decides_the_same() {
    let args = [
        "--config",
        "scoped.yaml",
        "--user",
        "alice",
        "--namespace-labels",
        "env=prod",
    ];
    let printed = run(&[
        "match",
        "--object",
        "pod.yaml",
        "--user",
        "alice",
        "--print-review",
    ]);
    assert_eq!(printed.code, 0);
    let dir = std::env::temp_dir().join(format!("matchcond-review-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("review.json");
    std::fs::write(&file, &printed.stdout).unwrap();
    let file = file.display().to_string();
    let mut from_review = vec!["match", "--review", file.as_str(), "--output", "json"];
    from_review.extend(
        args.iter()
            .copied()
            .filter(|a| *a != "--user" && *a != "alice"),
    );
    let mut from_object = vec!["match", "--object", "pod.yaml", "--output", "json"];
    from_object.extend(args);
    let a = run(&from_review);
    let b = run(&from_object);
    assert_eq!(a.code, b.code);
    let (mut a, mut b) = (json(&a.stdout), json(&b.stdout));
    a["reviewWarnings"] = serde_json::Value::Null;
    b["reviewWarnings"] = serde_json::Value::Null;
    assert_eq!(a, b);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn requests_from_audit_events() {
    let mut s = Session::new("request-audit-event");
    s.run(&[
        "match",
        "--config",
        "webhooks.yaml",
        "--audit-event",
        "audit.jsonl",
        "--index",
        "0",
    ]);
    // An UPDATE at level Request: the stored object is not in the event.
    s.run(&[
        "match",
        "--config",
        "webhooks.yaml",
        "--audit-event",
        "audit.jsonl",
        "--index",
        "1",
        "--output",
        "json",
    ]);
    s.run(&[
        "eval",
        "request.userInfo.username",
        "--audit-event",
        "audit.jsonl",
        "--index",
        "1",
        "--print-review",
    ]);
    s.run(&[
        "match",
        "--config",
        "webhooks.yaml",
        "--audit-event",
        "audit.jsonl",
    ]);
    s.run(&[
        "match",
        "--config",
        "webhooks.yaml",
        "--audit-event",
        "audit.jsonl",
        "--index",
        "2",
    ]);
    s.run(&[
        "match",
        "--config",
        "webhooks.yaml",
        "--audit-event",
        "audit.jsonl",
        "--index",
        "7",
    ]);
    s.check();
}

/// A manifest is read as kubectl sends it: `0644` is octal, a plain `yes` a boolean (a
/// warning with its position and path).
#[test]
fn manifests_are_read_as_kubectl_sends_them() {
    let r = run(&[
        "match",
        "--object",
        "pod-yaml11.yaml",
        "--user",
        "alice",
        "--print-review",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let review = json(&r.stdout);
    let object = &review["request"]["object"];
    assert_eq!(object["spec"]["volumes"][0]["secret"]["defaultMode"], 420);
    assert_eq!(object["spec"]["nodeSelector"]["edge"], true);
    assert_eq!(
        r.stderr,
        "matchcond: warning: pod-yaml11.yaml:16:11: spec.nodeSelector.edge: yes is the boolean true in YAML 1.1: kubectl apply sends true, which the apiserver refuses where a string is expected (quote it)\n"
    );
}

/// A webhook matched through an equivalent resource of another version: the apiserver
/// converts the objects before its conditions read them, which `match` cannot; it says so.
#[test]
fn converted_objects_are_pointed_out() {
    let args = [
        "match",
        "--config",
        "hpa-v1-hook.yaml",
        "--object",
        "hpa-v2.yaml",
        "--user",
        "alice",
    ];
    let r = run(&args);
    assert!(
        r.stdout.contains("\n  warning: the apiserver converts the objects to autoscaling/v1, Kind=HorizontalPodAutoscaler for this webhook (matchPolicy: Equivalent) before its conditions read them; they read them as given\n"),
        "{}",
        r.stdout
    );
    let mut with_json = args.to_vec();
    with_json.extend(["--output", "json"]);
    let out = json(&run(&with_json).stdout);
    assert_eq!(
        out["webhooks"][0]["convertedTo"],
        serde_json::json!({"group": "autoscaling", "version": "v1", "kind": "HorizontalPodAutoscaler"})
    );
}

/// A CRD's served versions are equivalent: a webhook whose rule names one is called for
/// the others under `matchPolicy: Equivalent` (the default), with the kind of its version.
#[test]
fn crd_versions_are_equivalent() {
    let r = run(&[
        "match",
        "--config",
        "gadget-hooks.yaml",
        "--crd",
        "gadget-crd.yaml",
        "--object",
        "gadget-beta.yaml",
        "--user",
        "alice",
    ]);
    assert_eq!(
        r.stdout,
        "validating gadgets/equivalent.example.com/0: call (example.com/v1, Resource=gadgets, example.com/v1, Kind=Gadget)\n\
         validating gadgets/exact.example.com/0: skip: no rule matches\n\
         admitted: 1 webhook(s) called\n"
    );
}

/// A log line that is not UTF-8 is that line's problem: the other events of the file are
/// read.
#[test]
fn an_audit_line_that_is_not_utf8_is_its_own_problem() {
    let good = br#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a1","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/shop/pods","verb":"create","user":{"username":"alice"},"objectRef":{"resource":"pods","namespace":"shop","name":"p","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":201}}"#;
    let mut text = good.to_vec();
    text.extend_from_slice(b"\n");
    text.extend_from_slice(&good[..150]);
    text.extend_from_slice(b"\xff\"}\r\n");
    text.extend_from_slice(good);
    text.extend_from_slice(b"\n");
    let path = std::env::temp_dir().join(format!("matchcond-utf8-{}.log", std::process::id()));
    std::fs::write(&path, &text).unwrap();
    let p = path.display().to_string();
    let args = |i: &'static str| {
        vec![
            "match".to_owned(),
            "--config".to_owned(),
            "webhooks.yaml".to_owned(),
            "--audit-event".to_owned(),
            p.clone(),
            "--index".to_owned(),
            i.to_owned(),
        ]
    };
    let run_args = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        run(&a)
    };
    // Decided (exit 0 or 1), not refused as input (exit 2).
    let ok = run_args(args("2"));
    assert!(ok.code < 2, "{}", ok.stderr);
    assert!(ok.stdout.contains("webhook(s) called") || ok.stdout.contains("rejected"));
    let bad = run_args(args("1"));
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr
            .starts_with(&format!("matchcond: {p}:2: not JSON: ")),
        "{}",
        bad.stderr
    );
    std::fs::remove_file(&path).unwrap();
}
