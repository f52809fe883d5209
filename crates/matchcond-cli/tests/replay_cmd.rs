//! `matchcond replay`: sessions recorded in `tests/snapshots/replay*.txt`, then what a
//! snapshot cannot say (the HTML page is self-contained, the JSON agrees with the text).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::{json, run, Session};

const CHANGE: [&str; 8] = [
    "replay",
    "--audit",
    "audit.log",
    "--config",
    "audit-change.yaml",
    "--baseline",
    "replay-baseline.yaml",
    "--namespace-object",
];

#[test]
fn replay_text_and_json() {
    let mut s = Session::new("replay");
    // One set of configurations, no namespaces: namespaceSelectors are undetermined.
    s.run(&[
        "replay",
        "--audit",
        "audit.log",
        "--config",
        "replay-baseline.yaml",
    ]);
    // A change against its baseline, with the namespaces and an authorizer.
    let mut args = CHANGE.to_vec();
    args.extend(["namespaces-list.yaml", "--authorizer", "authz.yaml"]);
    s.run(&args);
    args.extend(["--output", "json"]);
    s.run(&args);
    // Standard input.
    s.run_with_stdin_file(
        &[
            "replay",
            "--audit",
            "-",
            "--config",
            "replay-baseline.yaml",
            "--output",
            "json",
        ],
        "audit.log",
    );
    // Unusable input.
    s.run(&[
        "replay",
        "--audit",
        "missing.log",
        "--config",
        "replay-baseline.yaml",
    ]);
    s.run(&["replay", "--audit", "audit.log", "--config", "missing.yaml"]);
    s.run(&["replay", "--audit", "audit.log", "--config", "authz.yaml"]);
    s.check();
}

#[test]
fn the_html_page_is_self_contained() {
    let mut args = CHANGE.to_vec();
    args.extend(["namespaces-list.yaml", "--output", "html"]);
    let r = run(&args);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let page = r.stdout;
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.trim_end().ends_with("</html>"));
    assert!(!page.contains("<script"), "no script");
    assert!(!page.contains("src="), "no external resource");
    assert!(!page.contains("<link"), "no stylesheet link");
    // Every URL is the SVG namespace.
    assert_eq!(
        page.matches("http").count(),
        page.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
    );
    assert_eq!(
        page.matches("<svg").count(),
        2,
        "calls per webhook, calls over time"
    );
    assert!(page.contains("skip &rarr; reject"));
    assert!(page.contains("pods.policy.example.com"));
}

#[test]
fn the_json_report_counts_what_the_text_shows() {
    let mut args = CHANGE.to_vec();
    args.extend(["namespaces-list.yaml", "--output", "json"]);
    let r = run(&args);
    let v = json(&r.stdout);
    assert_eq!(v["schemaVersion"], 1);
    assert_eq!(v["input"]["admitted"], 10);
    assert_eq!(v["input"]["bad"], 3);
    assert_eq!(v["badLines"][0]["line"], 13);
    let pods = &v["webhooks"][1];
    assert_eq!(pods["name"], "pods.policy.example.com");
    assert_eq!(pods["current"]["rejected"], 2);
    assert_eq!(pods["baseline"]["rejected"], 0);
    assert_eq!(pods["changes"][0]["from"], "skip");
    assert_eq!(pods["changes"][0]["to"], "reject");
    assert_eq!(pods["changes"][0]["count"], 2);
    assert_eq!(pods["changes"][0]["samples"][0]["user"], "bob");
}
