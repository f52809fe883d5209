//! `matchcond test`: test files run against configurations, text, JSON and JUnit output,
//! coverage, and every problem of every test file reported with its position.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use std::path::Path;

use common::{json, run, run_in, Session};

#[test]
fn test_text_and_coverage() {
    let mut s = Session::new("test-text");
    s.run(&["test", "suite/pods.test.yaml"]);
    s.run(&["test", "suite/pods.test.yaml", "--coverage"]);
    s.run(&["test", "suite/pods.test.yaml", "--run", "^admins"]);
    s.run(&["test", "suite/failing.test.yaml"]);
    s.check();
}

#[test]
fn test_json_and_junit() {
    let mut s = Session::new("test-json");
    s.run(&["test", "suite/failing.test.yaml", "--output", "json"]);
    s.run(&[
        "test",
        "suite/pods.test.yaml",
        "--coverage",
        "--output",
        "json",
    ]);
    s.run(&["test", "suite/failing.test.yaml", "--output", "junit"]);
    s.check();
}

#[test]
fn every_bad_test_file_is_reported() {
    let mut s = Session::new("test-errors");
    // A folder: its test files are found and each is reported.
    s.run(&["test", "suite/bad"]);
    s.run(&[
        "test",
        "suite/bad",
        "suite/pods.test.yaml",
        "--output",
        "junit",
    ]);
    s.run(&["test", "nowhere"]);
    s.run(&["test", "suite", "--run", "("]);
    s.check();
}

/// The JUnit output has the shape of the JUnit XML schema's (Jenkins' `junit-10.xsd`):
/// `testsuites` > `testsuite` > `testcase` > `failure` | `error`, with the required
/// attributes, the counts adding up, and the text escaped.
#[test]
fn junit_output_follows_the_schema() {
    let r = run(&["test", "suite", "--output", "junit"]);
    assert_eq!(r.code, 2);
    let xml = r.stdout;
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "));
    assert!(xml.trim_end().ends_with("</testsuites>"));
    let mut stack: Vec<String> = Vec::new();
    let (mut suites, mut cases) = (0, 0);
    let allowed = |parent: Option<&str>, child: &str| {
        matches!(
            (parent, child),
            (None, "testsuites")
                | (Some("testsuites"), "testsuite")
                | (Some("testsuite"), "testcase")
                | (Some("testcase"), "failure" | "error")
        )
    };
    let required: &[(&str, &[&str])] = &[
        ("testsuites", &["name", "tests", "failures", "errors"]),
        (
            "testsuite",
            &["name", "tests", "failures", "errors", "skipped"],
        ),
        ("testcase", &["name", "classname"]),
        ("failure", &["message", "type"]),
        ("error", &["message", "type"]),
    ];
    let mut rest = xml.split_once("?>").unwrap().1;
    while let Some(open) = rest.find('<') {
        let close = rest[open..].find('>').unwrap() + open;
        let tag = &rest[open + 1..close];
        let text = &rest[..open];
        assert!(!text.contains(['<', '>', '"']), "unescaped text {text:?}");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name));
        } else {
            let self_closing = tag.ends_with('/');
            let tag = tag.trim_end_matches('/');
            let name = tag.split_whitespace().next().unwrap();
            assert!(
                allowed(stack.last().map(String::as_str), name),
                "{name} in {stack:?}"
            );
            for (el, attrs) in required {
                if *el == name {
                    for a in *attrs {
                        assert!(tag.contains(&format!(" {a}=\"")), "{name} without {a}");
                    }
                }
            }
            suites += usize::from(name == "testsuite");
            cases += usize::from(name == "testcase");
            if !self_closing {
                stack.push(name.to_owned());
            }
        }
        rest = &rest[close + 1..];
    }
    assert!(stack.is_empty());
    assert!(suites >= 5 && cases >= 10, "{suites} suites, {cases} cases");
    let total: usize = xml
        .split("<testsuites ")
        .nth(1)
        .and_then(|s| s.split("tests=\"").nth(1))
        .and_then(|s| s.split('"').next())
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(total, cases);
}

/// The examples' test suite passes and sees every condition of examples/webhooks.yaml
/// true and false.
#[test]
fn the_examples_suite_passes_with_full_coverage() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let r = run_in(
        &root,
        &["test", "examples", "--coverage", "--output", "json"],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let out = json(&r.stdout);
    assert_eq!(out["summary"]["failed"], 0);
    assert_eq!(out["summary"]["errors"], 0);
    let coverage = &out["coverage"];
    assert_eq!(coverage["notExercised"], serde_json::json!([]));
    assert_eq!(coverage["outcomesSeen"], coverage["outcomes"]);
    assert_eq!(coverage["outcomes"], 14);
    let text = run_in(&root, &["test", "examples"]);
    assert_eq!(text.code, 0);
}

/// A validating and a mutating configuration may share a name: expectations name a webhook
/// with its kind, a name that several webhooks share is an error, and coverage keeps the two
/// apart.
#[test]
fn webhooks_of_both_kinds_are_told_apart() {
    let r = run(&["test", "kinds", "--coverage"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "ok   kinds/kinds.test.yaml:5:3: web by kind\n  no user given: the request's userInfo is empty\n\
         ok   kinds/kinds.test.yaml:11:3: db by kind\n  no user given: the request's userInfo is empty\n\
         ERROR kinds/kinds.test.yaml:17:3: ambiguous\n  kinds/kinds.test.yaml:21:5: \"h.example.com\" names 2 webhooks (mutating:same/h.example.com/0, validating:same/h.example.com/0): name one by its kind and uid\n  no user given: the request's userInfo is empty\n\
         \n\
         coverage: 4 of 4 condition outcomes seen (each condition true and false)\n\
         \x20 mutating same/h.example.com/0\n    \"mutate-web\": true 1, false 1, error 0\n\
         \x20 validating same/h.example.com/0\n    \"validate-db\": true 1, false 1, error 0\n\
         every condition was seen true and false\n\
         \n\
         2 passed, 0 failed, 1 errors; 0 problems in test files\n"
    );
}

/// A review written in a test file is checked as a review file is: its type, then its
/// members, each warning at the member it is about.
#[test]
fn inline_reviews_are_checked() {
    let r = run(&["test", "reviews-inline.test.yaml"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "ERROR reviews-inline.test.yaml:5:3: bogus\n  \
         reviews-inline.test.yaml:6:11: review: not an AdmissionReview: apiVersion \"foo/v1\", kind \"Bogus\" (expected apiVersion admission.k8s.io/v1, kind AdmissionReview)\n\
         ERROR reviews-inline.test.yaml:8:3: beta\n  \
         the request: the admission request's field dryRun must be a boolean\n  \
         warning: reviews-inline.test.yaml:10:5: review: admission.k8s.io/v1beta1 AdmissionReview read as admission.k8s.io/v1 (the apiserver sends v1beta1 only to webhooks whose admissionReviewVersions ask for it first)\n  \
         warning: reviews-inline.test.yaml:24:15: request.dryRun: must be a boolean, not a string\n\
         \n\
         0 passed, 0 failed, 2 errors; 0 problems in test files\n"
    );
}

/// A `--run` pattern that no case's name matches runs nothing, and says so.
#[test]
fn a_run_pattern_matching_no_case_is_noted() {
    let r = run(&["test", "suite/pods.test.yaml", "--run", "zzz"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stderr, "matchcond: note: no case matches --run \"zzz\"\n");
    assert_eq!(
        r.stdout,
        "\n0 passed, 0 failed, 0 errors; 0 problems in test files\n"
    );
}
