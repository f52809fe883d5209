//! `matchcond lint` in CI: gating, severities, suppressions with reasons, folders, and the
//! formats CI systems read (SARIF checked against the published SARIF 2.1.0 schema, JUnit
//! parsed as XML).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::{json, run, Session};

#[test]
fn lint_ci_text() {
    let mut s = Session::new("lint-ci-text");
    // A folder: walked in sorted order; the chart's template and the other kinds are notes,
    // the configuration file below ci/ applies, suppressions are reported when unused.
    s.run(&["lint", "--no-compatibility", "ci"]);
    s.run(&["lint", "--no-compatibility", "--verbose", "ci/webhooks"]);
    s.run(&[
        "lint",
        "--no-compatibility",
        "--quiet",
        "ci/webhooks/policy.yaml",
    ]);
    // Gating.
    s.run(&[
        "lint",
        "--no-compatibility",
        "--fail-on",
        "warning",
        "ci/webhooks/clean.yml",
    ]);
    s.run(&[
        "lint",
        "--no-compatibility",
        "--fail-on",
        "warning",
        "--verbose",
        "ci/webhooks/clean.yml",
        "ci/rendered/deploy.yaml",
    ]);
    s.run(&[
        "lint",
        "--no-compatibility",
        "--fail-on",
        "warning",
        "--quiet",
        "ci/webhooks/policy.yaml",
    ]);
    s.run(&[
        "lint",
        "--no-compatibility",
        "--severity",
        "listIndex=error",
        "--severity",
        "unusedSuppression=note",
        "--severity",
        "invalidSuppression=note",
        "--quiet",
        "ci/webhooks/policy.yaml",
    ]);
    // No input holds a configuration; an unrendered template given by name.
    s.run(&["lint", "--no-compatibility", "ci/rendered/deploy.yaml"]);
    s.run(&[
        "lint",
        "--no-compatibility",
        "ci/chart/templates/webhook.yaml",
    ]);
    // Bad options and configuration files.
    s.run(&[
        "lint",
        "--severity",
        "absentMaps=error",
        "ci/webhooks/clean.yml",
    ]);
    s.run(&[
        "lint",
        "--severity",
        "absentMap=fatal",
        "ci/webhooks/clean.yml",
    ]);
    s.run(&[
        "lint",
        "--lint-config",
        "ci-bad-config.yaml",
        "ci/webhooks/clean.yml",
    ]);
    s.run(&[
        "lint",
        "--lint-config",
        "missing.yaml",
        "ci/webhooks/clean.yml",
    ]);
    s.check();
}

#[test]
fn lint_ci_formats() {
    let mut s = Session::new("lint-ci-formats");
    s.run(&[
        "lint",
        "--no-compatibility",
        "--output",
        "json",
        "ci/webhooks/policy.yaml",
    ]);
    s.run(&["lint", "--no-compatibility", "--output", "github", "ci"]);
    s.run(&["lint", "--no-compatibility", "--output", "junit", "ci"]);
    s.check();
}

#[test]
fn sarif_follows_the_published_schema() {
    // The schema as OASIS publishes it (vendored from the serde-sarif crate, which ships it
    // unchanged). Its language pattern (`run.language`, `toolComponent.language`) has a literal `]` that ECMA-262 regexes
    // with the unicode flag refuse, so the meta-schema check refuses the schema: that `]`
    // is escaped (the same meaning) before the schema is compiled.
    let published = include_str!("schemas/sarif-schema-2.1.0.json");
    let stray = r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$""#;
    assert_eq!(published.matches(stray).count(), 2);
    let schema: serde_json::Value = serde_json::from_str(
        &published.replace(stray, r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}\\]?$""#),
    )
    .unwrap();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    for args in [
        &["lint", "--no-compatibility", "--output", "sarif", "ci"][..],
        &[
            "lint",
            "--output",
            "sarif",
            "invalid.yaml",
            "traps.yaml",
            "missing.yaml",
        ][..],
    ] {
        let r = run(args);
        let log = json(&r.stdout);
        let errors: Vec<String> = validator
            .iter_errors(&log)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        assert_eq!(errors, Vec::<String>::new(), "{args:?}");
        assert_eq!(log["version"], "2.1.0");
        let run = &log["runs"][0];
        let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
        // Every result names a rule, by id and index, and has a physical location.
        for result in run["results"].as_array().unwrap() {
            let index = result["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(rules[index]["id"], result["ruleId"]);
            assert!(rules[index]["help"]["text"].as_str().unwrap().len() > 10);
            let location = &result["locations"][0]["physicalLocation"];
            assert!(location["artifactLocation"]["uri"].is_string());
        }
    }
    // Suppressed findings are results with their justification.
    let log = json(&run(&["lint", "--no-compatibility", "--output", "sarif", "ci"]).stdout);
    let results = log["runs"][0]["results"].as_array().unwrap();
    let suppressed: Vec<(&str, &str, &str)> = results
        .iter()
        .filter(|r| r.get("suppressions").is_some())
        .map(|r| {
            (
                r["ruleId"].as_str().unwrap(),
                r["suppressions"][0]["kind"].as_str().unwrap(),
                r["suppressions"][0]["justification"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        suppressed,
        [
            (
                "absentMap",
                "inSource",
                "our mutating webhook adds the labels first"
            ),
            ("absentMap", "inSource", "the injector annotates every pod"),
            (
                "listIndex",
                "external",
                "only service accounts reach this webhook (namespaceSelector)"
            ),
        ]
    );
    let located: Vec<String> = results
        .iter()
        .filter(|r| r["ruleId"] == "listIndex")
        .map(|r| {
            let l = &r["locations"][0]["physicalLocation"];
            format!(
                "{}:{}:{}",
                l["artifactLocation"]["uri"].as_str().unwrap(),
                l["region"]["startLine"],
                l["region"]["startColumn"]
            )
        })
        .collect();
    assert_eq!(
        located,
        [
            "ci/webhooks/policy.yaml:25:49",
            "ci/webhooks/policy.yaml:35:54"
        ]
    );
}

#[test]
fn junit_is_well_formed_xml() {
    let r = run(&[
        "lint",
        "--no-compatibility",
        "--output",
        "junit",
        "--fail-on",
        "warning",
        "ci",
    ]);
    assert_eq!(r.code, 1);
    let doc = roxmltree::Document::parse(&r.stdout).unwrap();
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let suites: Vec<_> = root.children().filter(|n| n.is_element()).collect();
    assert!(suites.iter().all(|s| s.tag_name().name() == "testsuite"));
    let cases: Vec<(String, bool)> = suites
        .iter()
        .flat_map(|s| s.children().filter(|n| n.has_tag_name("testcase")))
        .map(|c| {
            (
                c.attribute("name").unwrap().to_owned(),
                c.children().any(|n| n.has_tag_name("failure")),
            )
        })
        .collect();
    let failing: Vec<&str> = cases
        .iter()
        .filter(|(_, f)| *f)
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(
        failing,
        [
            "ValidatingWebhookConfiguration policy",
            "ValidatingWebhookConfiguration policy / annotations.policy.example.com",
            "ci/.matchcond.yaml",
        ]
    );
    assert_eq!(
        root.attribute("tests"),
        Some(cases.len().to_string().as_str())
    );
    assert_eq!(root.attribute("failures"), Some("3"));
    // Each suite counts its cases and failures.
    for s in &suites {
        let n = s.children().filter(|n| n.has_tag_name("testcase")).count();
        assert_eq!(s.attribute("tests"), Some(n.to_string().as_str()));
    }
}

/// The pre-commit hooks the repository ships run the command as written.
#[test]
fn pre_commit_hooks_run() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.pre-commit-hooks.yaml");
    let hooks: Vec<serde_json::Value> =
        serde_yaml_ng::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(!hooks.is_empty());
    for hook in hooks {
        let entry = hook["entry"].as_str().unwrap();
        let mut words: Vec<&str> = entry.split_whitespace().collect();
        assert_eq!(words.remove(0), "matchcond", "{entry}");
        let clean: Vec<&str> = words
            .iter()
            .copied()
            .chain(["ci/webhooks/clean.yml"])
            .collect();
        assert_eq!(run(&clean).code, 0, "{entry}");
        let traps: Vec<&str> = words.iter().copied().chain(["traps.yaml"]).collect();
        assert_eq!(run(&traps).code, 1, "{entry}");
    }
}
