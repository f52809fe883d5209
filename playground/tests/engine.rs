//! The playground's engine module on the native target: what the page is given for the
//! repository's examples and for broken input, the lint findings (those of `matchcond lint
//! --output json`) and where they are marked.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use matchcond_playground::engine::{
    analyze, evaluate, versions, Analysis, Finding, Input, Position, Severity,
};
use serde_json::Value as Json;

fn example(path: &str) -> String {
    std::fs::read_to_string(format!("{}/../examples/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The page's input, at its default version (the newest).
fn input(config: &str, review: &str) -> Input {
    Input {
        config: config.to_owned(),
        review: review.to_owned(),
        ..Input::default()
    }
}

/// The newest version the page offers: its default.
fn newest() -> String {
    versions().versions[0].clone()
}

/// A finding as `matchcond lint --output json` prints it: without the page's own fields.
fn as_cli(f: &Finding) -> Json {
    let mut v = serde_json::to_value(f).unwrap();
    let o = v.as_object_mut().unwrap();
    for own in ["context", "document", "position"] {
        o.remove(own).unwrap();
    }
    v
}

/// Each finding's code and the text its editor range marks.
fn marks(config: &str, a: &Analysis) -> Vec<(String, String)> {
    a.findings
        .iter()
        .map(|f| (f.code.clone(), at(config, f.position.unwrap())))
        .collect()
}

/// The text at an editor position (UTF-16 offsets).
fn at(text: &str, p: Position) -> String {
    let units: Vec<u16> = text.encode_utf16().collect();
    String::from_utf16(&units[p.from as usize..p.to as usize]).unwrap()
}

/// A condition's name, outcome and cost.
type Cond = (String, &'static str, u64);

/// Each webhook's uid, decision and conditions.
fn decisions(a: &Analysis) -> Vec<(String, &'static str, Vec<Cond>)> {
    a.hooks
        .iter()
        .map(|h| {
            (
                h.uid.clone(),
                h.decision,
                h.conditions
                    .iter()
                    .map(|c| (c.name.clone(), c.outcome, c.cost))
                    .collect(),
            )
        })
        .collect()
}

fn c(name: &str, outcome: &'static str, cost: u64) -> Cond {
    (name.to_owned(), outcome, cost)
}

#[test]
fn the_examples_decide_as_the_command_line_prints() {
    let config = example("webhooks.yaml");
    let a = analyze(&input(&config, &example("reviews/pod-create.json")));
    assert_eq!(a.version, newest());
    // Accepted: the only findings are the notes of the versions that refuse `.?`.
    let notes: Vec<(&str, Option<u32>, &[String])> = a
        .findings
        .iter()
        .map(|f| (f.code.as_str(), f.line, f.versions.as_slice()))
        .collect();
    assert_eq!(
        notes,
        [
            ("compatibility", Some(4), &["1.28".to_owned()][..]),
            ("compatibility", Some(46), &["1.28".to_owned()][..])
        ]
    );
    assert_eq!(
        (a.counts.errors, a.counts.warnings, a.counts.notes),
        (0, 0, 2)
    );
    assert!(a.refused.is_empty());
    assert_eq!(a.undecided, None);
    assert!(a.review_findings.is_empty());
    assert_eq!(a.admitted, Some(true));
    assert_eq!(
        a.configurations,
        [
            "ValidatingWebhookConfiguration shop-policy",
            "MutatingWebhookConfiguration sidecar-injector"
        ]
    );
    assert_eq!(
        decisions(&a),
        vec![
            (
                "sidecar-injector/inject.sidecar.example.com/0".into(),
                "call",
                vec![c("not-dry-run", "true", 3), c("no-opt-out", "true", 4)]
            ),
            (
                "shop-policy/pods.policy.example.com/0".into(),
                "call",
                vec![
                    c("exclude-kube-system", "true", 3),
                    c("exclude-kubelet", "true", 7),
                    c("app-web-only", "true", 5)
                ]
            ),
            (
                "shop-policy/deployments.policy.example.com/0".into(),
                "skip",
                vec![]
            ),
        ]
    );
    let pods = &a.hooks[1];
    assert_eq!(pods.total_cost, 15);
    assert_eq!(pods.budget, 2_500_000);
    assert_eq!(pods.per_call_limit, 1_000_000);
    assert_eq!(
        pods.invocation.as_deref(),
        Some("/v1, Resource=pods, /v1, Kind=Pod")
    );
    // Each condition and webhook points at its text in the editor.
    assert_eq!(
        at(&config, pods.conditions[0].position.unwrap()),
        "\"request.namespace != 'kube-system'\""
    );
    assert_eq!(pods.conditions[0].position.unwrap().line, 23);
    assert_eq!(
        at(&config, pods.position.unwrap()),
        "pods.policy.example.com"
    );
    assert_eq!(
        at(&config, a.hooks[0].conditions[1].position.unwrap()),
        "\"object.?metadata.?annotations[?'sidecar.example.com/inject'].orValue('true') != 'false'\""
    );
    // Why the deployments webhook is skipped: the rules, after both selectors passed.
    let steps: Vec<(&str, &str)> = a.hooks[2]
        .steps
        .iter()
        .map(|s| (s.check, s.state))
        .collect();
    assert_eq!(
        steps,
        [
            ("namespaceSelector", "pass"),
            ("objectSelector", "pass"),
            ("rules", "fail"),
            ("matchConditions", "notReached")
        ]
    );
    assert_eq!(a.hooks[2].reason, "no rule matches");
    assert_eq!(
        a.hooks[2].steps[2].detail,
        "request CREATE /v1, Resource=pods in shop; rules: [CREATE, UPDATE] [apps] [v1] \
         [deployments, deployments/scale] scope * (matchPolicy Equivalent)"
    );

    let a = analyze(&input(&config, &example("reviews/configmap-delete.json")));
    assert!(a.hooks.iter().all(|h| h.decision == "skip"));
    assert!(a.linted);
    let a = analyze(&input(&config, &example("reviews/deployment-update.json")));
    assert_eq!(a.hooks[2].decision, "call");
}

/// A configuration with an unknown field and three traps, and a document of another kind.
const TRAP: &str = "\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: policy}
webhooks:
- name: pods.policy.example.com
  clientConfig: {url: 'https://policy.example.com/validate'}
  rules: [{operations: ['*'], apiGroups: [''], apiVersions: [v1], resources: [pods]}]
  sideEffects: None
  admissionReviewVersions: [v1]
  matchCondition: []
  matchConditions:
  - name: labelled
    expression: >-
      request.name != '' &&
      object.metadata.labels['app'] == 'web'
---
kind: ConfigMap
";

/// What `matchcond lint --output json` prints for [`TRAP`] (Kubernetes 1.37, its default):
/// the findings, in its order (each document's, its configurations', then the file's).
const TRAP_LINT: &str = r#"[
 {"code": "unknownField", "column": 3, "fieldError": null, "help": null, "line": 10, "message": "unknown field (did you mean matchConditions?)", "operations": [], "path": "webhooks[0].matchCondition", "severity": "error", "span": null, "versions": []},
 {"code": "omittedRequestField", "column": 15, "fieldError": null, "help": "test has(request.name) first, or read object.metadata.?name / request.?name.orValue('')", "line": 14, "message": "request.name is absent on CREATE when the object is named by generateName (as controllers name pods, jobs and replica sets); reading it then fails with \"no such key\" (failurePolicy Fail: the apiserver rejects these CREATE requests instead of calling the webhook)", "operations": ["CREATE"], "path": "webhooks[0].matchConditions[0].expression", "severity": "warning", "span": {"column": 9, "end": 12, "line": 1, "snippet": " | request.name != '' && object.metadata.labels['app'] == 'web'\n | ........^", "start": 8}, "versions": []},
 {"code": "objectOnDelete", "column": 7, "fieldError": null, "help": "guard the read: request.operation != 'DELETE' (in this condition or in another one: a false condition skips the webhook) or object != null; or read it optionally (object.?metadata)", "line": 15, "message": "object is null for DELETE requests, where object.metadata fails with \"no such key\" (failurePolicy Fail: the apiserver rejects these DELETE requests instead of calling the webhook)", "operations": ["DELETE"], "path": "webhooks[0].matchConditions[0].expression", "severity": "warning", "span": {"column": 23, "end": 28, "line": 1, "snippet": " | request.name != '' && object.metadata.labels['app'] == 'web'\n | ......................^", "start": 22}, "versions": []},
 {"code": "absentMap", "column": 29, "fieldError": null, "help": "test has(object.metadata.labels) first, or read it optionally: object.metadata.?labels[?'app'].orValue('')", "line": 15, "message": "object.metadata.labels is absent on objects without labels, where object.metadata.labels['app'] fails with \"no such key\" (failurePolicy Fail: the apiserver rejects such requests instead of calling the webhook)", "operations": [], "path": "webhooks[0].matchConditions[0].expression", "severity": "warning", "span": {"column": 45, "end": 45, "line": 1, "snippet": " | request.name != '' && object.metadata.labels['app'] == 'web'\n | ............................................^", "start": 44}, "versions": []},
 {"code": "skippedKind", "column": 1, "fieldError": null, "help": null, "line": 17, "message": "skipped: ConfigMap is not a webhook configuration", "operations": [], "path": "", "severity": "note", "span": null, "versions": []}
]"#;

#[test]
fn the_findings_are_those_of_matchcond_lint() {
    let a = analyze(&input(TRAP, &example("reviews/pod-create.json")));
    let cli: Json = serde_json::from_str(TRAP_LINT).unwrap();
    let page: Vec<Json> = a.findings.iter().map(as_cli).collect();
    assert_eq!(Json::Array(page), cli);
    assert_eq!(
        (a.counts.errors, a.counts.warnings, a.counts.notes),
        (1, 3, 1)
    );
    // Each is marked in the editor from its position: the key, the expression's piece.
    assert_eq!(
        marks(TRAP, &a),
        [
            ("unknownField".to_owned(), "matchCondition".to_owned()),
            ("omittedRequestField".to_owned(), "name".to_owned()),
            ("objectOnDelete".to_owned(), "object".to_owned()),
            ("absentMap".to_owned(), "[".to_owned()),
            // A note on a document: the rest of its first line.
            ("skippedKind".to_owned(), "kind: ConfigMap".to_owned()),
        ]
    );
    for f in &a.findings {
        let p = f.position.unwrap();
        assert_eq!(
            (Some(p.line as u32), Some(p.column as u32)),
            (f.line, f.column)
        );
    }
    let configuration = "ValidatingWebhookConfiguration policy";
    assert_eq!(a.findings[2].context.as_deref(), Some(configuration));
    assert_eq!(a.findings[2].document, Some(0));
    assert_eq!(a.findings[4].context, None);
    assert_eq!(a.findings[4].document, Some(1));
    // The apiserver refuses the unknown field; the configuration is decided as if it were
    // stored (as `matchcond match` does), the ConfigMap skipped.
    assert_eq!(a.refused, [configuration]);
    assert_eq!(a.configurations, [configuration]);
    assert_eq!(decisions(&a)[0].1, "call");
    assert_eq!(a.admitted, Some(true));
}

#[test]
fn a_condition_that_does_not_compile_is_the_apiservers_error() {
    let config = example("webhooks.yaml").replace(
        "request.userInfo.groups",
        "request.userInfo.group) && ('é😀' in request.userInfo.nope",
    );
    let a = analyze(&input(&config, &example("reviews/pod-create.json")));
    let expression =
        "!('system:nodes' in request.userInfo.group) && ('é😀' in request.userInfo.nope)";
    let caret = "....................................^";
    let detail = format!(
        "compilation failed: ERROR: <input>:1:37: undefined field 'group'\n | {expression}\n | \
         {caret}\nERROR: <input>:1:73: undefined field 'nope'\n | {expression}\n | \
         .................................................\u{ff0e}\u{ff0e}.....................^"
    );
    let path = "webhooks[0].matchConditions[1].expression";
    let expected = serde_json::json!({
        "code": "validation", "severity": "error", "line": 25, "column": 21,
        "message": format!("{path}: Invalid value: \"{expression}\": {detail}"),
        "fieldError": {"field": path, "type": "Invalid value", "detail": detail},
        "help": null, "operations": [], "path": path, "span": null, "versions": [],
    });
    assert_eq!(as_cli(&a.findings[0]), expected);
    // The configuration the apiserver refuses has no compatibility note; the other has.
    let codes: Vec<&str> = a.findings.iter().map(|f| f.code.as_str()).collect();
    assert_eq!(codes, ["validation", "compatibility"]);
    // Marked: the whole expression, as written.
    assert_eq!(
        at(&config, a.findings[0].position.unwrap()),
        format!("\"{expression}\"")
    );
    assert_eq!(a.refused, ["ValidatingWebhookConfiguration shop-policy"]);
    // At decision time the condition is an error: failurePolicy Fail rejects.
    assert_eq!(a.hooks[1].decision, "reject");
    assert_eq!(a.hooks[1].conditions[1].outcome, "error");
    assert_eq!(a.admitted, Some(false));
    assert!(a
        .rejection
        .as_deref()
        .unwrap()
        .starts_with("403 Forbidden: pods \"web-0\" is forbidden: "));
    let steps: Vec<&str> = a.hooks[1].steps.iter().map(|s| s.state).collect();
    assert_eq!(steps, ["pass", "pass", "pass", "error"]);
}

/// A webhook on every operation whose condition reads `object`, written in a YAML style.
fn on_every_operation(expression: &str) -> String {
    format!(
        "\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {{name: policy}}
webhooks:
- name: pods.policy.example.com
  clientConfig: {{url: 'https://policy.example.com/validate'}}
  rules: [{{operations: ['*'], apiGroups: [''], apiVersions: [v1], resources: [pods]}}]
  sideEffects: None
  admissionReviewVersions: [v1]
  matchConditions:
  - name: c
    expression: {expression}
"
    )
}

#[test]
fn spans_are_marked_in_every_scalar_style() {
    let review = example("reviews/pod-create.json");
    for (written, marked) in [
        ("object.metadata.uid == 'x'", "object"),
        ("\"\\u006fbject.metadata.uid == \\\"x\\\"\"", "\\u006fbject"),
        (
            "'request.operation == ''x'' || object.metadata.uid == ''x'''",
            "object",
        ),
        (
            "|\n      request.operation == 'x' ||\n        object.metadata.uid == 'x'",
            "object",
        ),
        (
            ">-\n      request.operation == 'x' ||\n      object.metadata.uid == 'x'",
            "object",
        ),
        (
            "request.operation == 'x' ||\n      object.metadata.uid == 'x'",
            "object",
        ),
    ] {
        let config = on_every_operation(written);
        let a = analyze(&input(&config, &review));
        let traps: Vec<&Finding> = a
            .findings
            .iter()
            .filter(|f| f.code == "objectOnDelete")
            .collect();
        assert_eq!(traps.len(), 1, "{written}: {:?}", a.findings);
        let f = traps[0];
        assert_eq!(at(&config, f.position.unwrap()), marked, "{written}");
        assert_eq!(f.operations, ["DELETE"]);
        assert!(f.help.as_deref().unwrap().starts_with("guard the read"));
    }
}

#[test]
fn validation_errors_are_placed_by_their_field_path() {
    let config = example("webhooks.yaml")
        .replace("failurePolicy: Fail", "failurePolicy: Sometimes")
        .replace("    sideEffects: NoneOnDryRun\n", "");
    let a = analyze(&input(&config, &example("reviews/pod-create.json")));
    let found: Vec<(String, String, String)> = a
        .findings
        .iter()
        .filter(|f| f.code == "validation")
        .map(|f| {
            (
                f.path.clone(),
                f.message.clone(),
                at(&config, f.position.unwrap()),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                "webhooks[0].failurePolicy".to_owned(),
                "webhooks[0].failurePolicy: Unsupported value: \"Sometimes\": supported values: \"Fail\", \"Ignore\"".to_owned(),
                "Sometimes".to_owned()
            ),
            (
                "webhooks[0].sideEffects".to_owned(),
                "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun".to_owned(),
                // A missing field: the webhook that should have it, its first line.
                "name: inject.sidecar.example.com".to_owned()
            ),
        ]
    );
    let unsupported = &a.findings[0];
    let field_error = unsupported.field_error.as_ref().unwrap();
    assert_eq!(field_error.r#type, "Unsupported value");
    let sides = a
        .findings
        .iter()
        .find(|f| f.path == "webhooks[0].sideEffects")
        .unwrap();
    assert_eq!(sides.document, Some(1));
    assert_eq!(
        a.refused,
        [
            "ValidatingWebhookConfiguration shop-policy",
            "MutatingWebhookConfiguration sidecar-injector"
        ]
    );
}

#[test]
fn lists_of_configurations_are_placed_through_their_items() {
    let config = "\
apiVersion: v1
kind: List
items:
- apiVersion: admissionregistration.k8s.io/v1
  kind: ValidatingWebhookConfiguration
  metadata: {name: listed}
  webhooks:
  - name: a.example.com
    sideEffects: None
    admissionReviewVersions: [v1]
    clientConfig: {url: 'https://a.example.com'}
    rules: [{operations: [CREATE], apiGroups: ['*'], apiVersions: ['*'], resources: ['*']}]
    matchConditions:
    - {name: c, expression: 'request.uid == 1'}
    matchPolicy: Sometimes
";
    let a = analyze(&input(config, &example("reviews/pod-create.json")));
    assert_eq!(
        marks(config, &a),
        [
            ("validation".to_owned(), "'request.uid == 1'".to_owned()),
            ("validation".to_owned(), "Sometimes".to_owned()),
        ]
    );
    assert_eq!(a.findings[0].line, Some(14));
    assert_eq!(a.hooks.len(), 1);
    assert_eq!(
        at(config, a.hooks[0].conditions[0].position.unwrap()),
        "'request.uid == 1'"
    );
    assert_eq!(at(config, a.hooks[0].position.unwrap()), "a.example.com");
}

#[test]
fn text_that_cannot_be_used_is_a_finding_not_a_failure() {
    let review = example("reviews/pod-create.json");
    let text = "kind: [unclosed\n  x: y";
    let a = analyze(&input(text, &review));
    assert_eq!(
        a.findings.iter().map(as_cli).collect::<Vec<_>>(),
        [serde_json::json!({
            "code": "syntax", "column": 4, "fieldError": null, "help": null, "line": 2,
            "message": "syntax error: illegal placement of ':' indicator", "operations": [],
            "path": "", "severity": "error", "span": null, "versions": []
        })]
    );
    assert_eq!(at(text, a.findings[0].position.unwrap()), ": y");
    assert!(a.hooks.is_empty());
    assert_eq!(a.admitted, None);
    assert_eq!(
        a.undecided.as_deref(),
        Some("the configuration text cannot be used: syntax error: illegal placement of ':' indicator")
    );

    // Documents of other kinds are notes; a text without any webhook configuration is the
    // error.
    let text = "kind: ConfigMap\n---\nkind: Pod\n";
    let a = analyze(&input(text, &review));
    let found: Vec<(&str, Severity, &str, Option<u32>)> = a
        .findings
        .iter()
        .map(|f| (f.code.as_str(), f.severity, f.message.as_str(), f.line))
        .collect();
    assert_eq!(
        found,
        [
            (
                "skippedKind",
                Severity::Note,
                "skipped: ConfigMap is not a webhook configuration",
                Some(1)
            ),
            (
                "skippedKind",
                Severity::Note,
                "skipped: Pod is not a webhook configuration",
                Some(3)
            ),
            (
                "noConfiguration",
                Severity::Error,
                "no ValidatingWebhookConfiguration or MutatingWebhookConfiguration found",
                Some(1)
            ),
        ]
    );
    assert!(a.findings[2].help.is_some());
    assert_eq!(a.admitted, None);
    // Beside webhook configurations, they change nothing.
    let text = format!("{}---\nkind: ConfigMap\n", example("webhooks.yaml"));
    let a = analyze(&input(&text, &review));
    assert_eq!(a.counts.errors, 0);
    assert_eq!(a.findings.last().unwrap().code, "skippedKind");
    assert_eq!(a.admitted, Some(true));
    assert_eq!(a.hooks.len(), 3);
    // A configuration that cannot be decoded: nothing is decided, as by `matchcond match`.
    let text = example("webhooks.yaml")
        .replace("timeoutSeconds", "x")
        .replace(
            "    failurePolicy: Fail\n",
            "    failurePolicy: Fail\n    timeoutSeconds: soon\n",
        );
    let a = analyze(&input(&text, &review));
    let bad = a.findings.iter().find(|f| f.code == "invalidType").unwrap();
    assert_eq!(bad.path, "webhooks[0].timeoutSeconds");
    assert_eq!(at(&text, bad.position.unwrap()), "soon");
    assert_eq!(
        a.undecided.as_deref(),
        Some("ValidatingWebhookConfiguration shop-policy cannot be decoded")
    );
    assert!(a.hooks.is_empty());

    for (review, message) in [
        ("", "no AdmissionReview: paste one, or pick an example"),
        (
            "{\"kind\": \"AdmissionReview\"}",
            "not an AdmissionReview: no \"request\" object",
        ),
        (
            "{\"request\": {\"operation\": 1}}",
            "the admission request's field operation must be a string",
        ),
    ] {
        let a = analyze(&input(&example("webhooks.yaml"), review));
        assert_eq!(a.admitted, None, "{review}");
        assert!(a.undecided.is_some());
        assert_eq!(a.review_findings.len(), 1);
        assert_eq!(a.review_findings[0].message, message);
        assert_eq!(a.review_findings[0].code, "review");
    }
    let a = analyze(&input(
        &example("webhooks.yaml"),
        "{\n  \"request\": {\n    oops\n}",
    ));
    let f = &a.review_findings[0];
    // The YAML reader's position (after the last line): the end of the text.
    assert_eq!(
        f.message,
        "syntax error: 5:1: while parsing a flow mapping, did not find expected ',' or '}'"
    );
    assert_eq!((f.line, f.position.unwrap().line), (Some(4), 4));

    // Whatever the text, nothing panics.
    for text in [
        "\t",
        "{",
        "[]",
        "- - -",
        "---\n---\n",
        "*a",
        "!!binary x",
        "\u{feff}{}",
        "a: &x 1\nb: *x",
        "kind: ValidatingWebhookConfiguration\nwebhooks: [{name: 1, matchConditions: [{expression: \"\\u00\"}]}]",
        "kind: MutatingWebhookConfiguration\nwebhooks:\n- matchConditions:\n  - expression: |\n      object.x\n\n      \u{1F600}",
    ] {
        let a = analyze(&input(text, text));
        for f in &a.findings {
            if let Some(p) = f.position {
                assert!(p.from <= p.to && p.to as usize <= text.encode_utf16().count());
            }
        }
        let _ = evaluate(&Input {
            expression: text.to_owned(),
            review: text.to_owned(),
            ..Input::default()
        });
    }
}

#[test]
fn the_settings_reach_the_decision() {
    let config = example("webhooks.yaml");
    let review = example("reviews/pod-create.json");
    // An authorizer that allows the break-glass check: on an update of a deployment, the
    // deployments webhook is skipped by its second condition.
    let mut i = input(&config, &example("reviews/deployment-update.json"));
    i.authorizer = "allow".into();
    let a = analyze(&i);
    assert_eq!(a.hooks[2].decision, "skip");
    assert_eq!(
        a.hooks[2].reason,
        "matchCondition \"not-breakglass\" is false"
    );
    // Namespace labels for the sidecar's namespaceSelector.
    let mut i = input(&config, &review);
    i.namespace_labels = "mesh.example.com/inject=disabled, team = shop".into();
    let a = analyze(&i);
    assert_eq!(a.hooks[0].decision, "skip");
    assert_eq!(a.hooks[0].reason, "namespaceSelector does not match");
    assert_eq!(a.hooks[0].steps[0].state, "fail");
    // The version: unknown ones fall back to the default, the newest.
    let mut i = input(&config, &review);
    i.version = "1.28".into();
    let a = analyze(&i);
    assert_eq!(a.version, "1.28");
    // Kubernetes 1.28 has no optional syntax: the linter says so for that version.
    assert_eq!(a.counts.errors, 2);
    for unknown in ["2.0", "1.27", "", "latest"] {
        i.version = unknown.into();
        assert_eq!(analyze(&i).version, newest(), "{unknown}");
    }
    let v = versions();
    assert_eq!(v.default, newest());
    // Every minor version from the newest (1.37 or later) down to 1.28.
    let minors: Vec<u32> = v
        .versions
        .iter()
        .map(|x| x.strip_prefix("1.").unwrap().parse().unwrap())
        .collect();
    assert!(minors[0] >= 37, "{minors:?}");
    assert_eq!(minors, (28..=minors[0]).rev().collect::<Vec<_>>());
}

#[test]
fn the_first_decision_can_come_before_the_lint() {
    let config = example("webhooks.yaml").replace("shop-policy", "first-policy");
    let review = example("reviews/pod-create.json");
    let first = analyze(&Input {
        decide_only: true,
        ..input(&config, &review)
    });
    assert!(!first.linted);
    assert!(first.findings.is_empty());
    assert_eq!(first.counts.notes, 0);
    assert_eq!(first.admitted, Some(true));
    let then = analyze(&input(&config, &review));
    assert!(then.linted);
    assert_eq!(then.counts.notes, 2);
    assert_eq!(decisions(&first), decisions(&then));
    // Once linted, deciding only still gives the findings.
    let again = analyze(&Input {
        decide_only: true,
        ..input(&config, &review)
    });
    assert!(again.linted);
    assert_eq!(again.findings, then.findings);
}

#[test]
fn the_expression_box_evaluates_as_matchcond_eval() {
    let review = example("reviews/pod-create.json");
    let e = |expression: &str| {
        evaluate(&Input {
            expression: expression.into(),
            review: review.clone(),
            ..Input::default()
        })
    };
    let r = e("request.namespace");
    assert_eq!(
        (r.result, r.value.as_deref(), r.r#type.as_deref(), r.cost),
        ("value", Some("\"shop\""), Some("string"), Some(2))
    );
    let r = e("object.metadata.labels.size() > 3 ? 'many' : 'few'");
    assert_eq!(r.value.as_deref(), Some("\"many\""));
    let r = e("object.spec.nope");
    assert_eq!(r.result, "evalError");
    assert_eq!(r.error.as_deref(), Some("no such key: nope"));
    let r = e("'😀' + request.uid");
    assert_eq!(r.result, "compileError");
    assert_eq!(
        r.error.as_deref(),
        Some("compilation failed: ERROR: <input>:1:14: undefined field 'uid'\n | '😀' + request.uid\n | .．...........^")
    );
    let p = r.issues[0].position.unwrap();
    assert_eq!((p.from, p.to, p.line, p.column), (14, 18, 1, 14));
    assert_eq!(e("  ").result, "empty");
    let r = evaluate(&Input {
        expression: "1 + 1".into(),
        ..Input::default()
    });
    assert_eq!(r.value.as_deref(), Some("2"));
    assert_eq!(
        r.review_error.as_deref(),
        Some("no AdmissionReview: paste one, or pick an example")
    );
}

#[test]
fn the_wasm_entry_points_answer_unreadable_requests() {
    let out: serde_json::Value =
        serde_json::from_str(&matchcond_playground::analyze("not json")).unwrap();
    assert!(out["failure"]
        .as_str()
        .unwrap()
        .starts_with("the page sent an unreadable request"));
    let out: serde_json::Value =
        serde_json::from_str(&matchcond_playground::evaluate("{\"expression\": \"1\"}")).unwrap();
    assert_eq!(out["value"], "1");
    let out: serde_json::Value = serde_json::from_str(&matchcond_playground::versions()).unwrap();
    assert_eq!(out["default"], newest().as_str());
}

#[test]
fn an_authorizer_table_matches_user_groups_and_verbs() {
    let review = example("reviews/pod-create.json");
    let with_table = |table: &str, expression: &str| {
        evaluate(&Input {
            expression: expression.into(),
            review: review.clone(),
            authorizer: "table".into(),
            authorizer_table: table.into(),
            ..Input::default()
        })
    };
    // The review's user is a service account, in the group system:serviceaccounts.
    let table = "default: deny\nrules:\n- {userGroups: [system:serviceaccounts], verbs: [create, update], decision: allow}\n";
    let check = |verb: &str| format!("authorizer.requestResource.check('{verb}').allowed()");
    assert_eq!(
        with_table(table, &check("create")).value.as_deref(),
        Some("true")
    );
    assert_eq!(
        with_table(table, &check("delete")).value.as_deref(),
        Some("false")
    );
    // The same table under `authorizer`, as the command line's files hold it.
    let nested = format!("authorizer:\n{}", indent(table));
    assert_eq!(
        with_table(&nested, &check("update")).value.as_deref(),
        Some("true")
    );
    // A group the user is not in: the default.
    let other = "default: deny\nrules:\n- {userGroups: [breakglass], decision: allow}\n";
    assert_eq!(
        with_table(other, &check("create")).value.as_deref(),
        Some("false")
    );
    // Unknown fields are refused, and nothing is evaluated or decided.
    let bad = "rules:\n- {group: [x], decision: allow}\n- {usergroups: [a], decision: allow}\n";
    let r = with_table(bad, &check("create"));
    assert_eq!(r.value, None);
    assert!(r.authorizer_error.is_some());
    let a = analyze(&Input {
        config: example("webhooks.yaml"),
        review: review.clone(),
        authorizer: "table".into(),
        authorizer_table: "rules:\n- {usergroups: [a], decision: allow}\n".into(),
        ..Input::default()
    });
    assert!(a
        .authorizer_error
        .as_deref()
        .unwrap()
        .contains("usergroups"));
    assert_eq!(
        a.undecided.as_deref(),
        Some("the authorizer table cannot be used")
    );
    assert!(a.hooks.is_empty());
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("  {l}\n")).collect()
}
