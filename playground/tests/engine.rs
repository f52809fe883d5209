//! The playground's engine module on the native target: what the page is given for the
//! repository's examples and for broken input, and where findings are placed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use matchcond_playground::engine::{analyze, evaluate, versions, Analysis, Input, Position};

fn example(path: &str) -> String {
    std::fs::read_to_string(format!("{}/../examples/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn input(config: &str, review: &str) -> Input {
    Input {
        config: config.to_owned(),
        review: review.to_owned(),
        version: "1.34".into(),
        ..Input::default()
    }
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
    assert_eq!(a.version, "1.34");
    assert!(a.findings.is_empty(), "{:?}", a.findings);
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
    let a = analyze(&input(&config, &example("reviews/deployment-update.json")));
    assert_eq!(a.hooks[2].decision, "call");
}

#[test]
fn a_condition_that_does_not_compile_is_placed_at_its_issue() {
    let config = example("webhooks.yaml").replace(
        "request.userInfo.groups",
        "request.userInfo.group) && ('é😀' in request.userInfo.nope",
    );
    let a = analyze(&input(&config, &example("reviews/pod-create.json")));
    let found: Vec<(&str, String, String)> = a
        .findings
        .iter()
        .map(|f| {
            (
                f.code.as_str(),
                f.message.clone(),
                at(&config, f.position.unwrap()),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                "cel/compile",
                "undefined field 'group'".to_owned(),
                ".group".to_owned()
            ),
            (
                "cel/compile",
                "undefined field 'nope'".to_owned(),
                ".nope".to_owned()
            ),
        ]
    );
    let first = &a.findings[0];
    assert_eq!(
        first.field.as_deref(),
        Some("webhooks[0].matchConditions[1].expression")
    );
    assert_eq!(first.document, Some(0));
    assert_eq!(first.expression_span, Some((36, 42)));
    assert_eq!(
        first.snippet.as_deref(),
        Some(
            " | !('system:nodes' in request.userInfo.group) && ('é😀' in request.userInfo.nope)\n \
             | ....................................^"
        )
    );
    // The apiserver's whole message, as `matchcond lint` prints it.
    let detail = first.detail.as_deref().unwrap();
    assert!(
        detail.starts_with(
            "webhooks[0].matchConditions[1].expression: Invalid value: \"!('system:nodes' in "
        ),
        "{detail}"
    );
    assert!(detail.contains("compilation failed: ERROR: <input>:1:37: undefined field 'group'"));
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

#[test]
fn issues_are_placed_in_every_scalar_style() {
    let review = example("reviews/pod-create.json");
    for (written, marked) in [
        ("expression: request.uid == 'x'", ".uid"),
        (
            "expression: \"request.\\u0075id == \\\"x\\\"\"",
            ".\\u0075id",
        ),
        ("expression: 'request.uid == ''x'''", ".uid"),
        (
            "expression: |\n          request.name == 'x' &&\n            request.uid == 'x'",
            ".uid",
        ),
        (
            "expression: >-\n          request.name == 'x' &&\n          request.uid == 'x'",
            ".uid",
        ),
        (
            "expression: request.name == 'x' &&\n          request.uid == 'x'",
            ".uid",
        ),
    ] {
        let config = example("webhooks.yaml").replace(
            "expression: \"request.namespace != 'kube-system'\"",
            written,
        );
        let a = analyze(&input(&config, &review));
        assert_eq!(a.findings.len(), 1, "{written}: {:?}", a.findings);
        let f = &a.findings[0];
        assert_eq!(f.message, "undefined field 'uid'", "{written}");
        assert_eq!(at(&config, f.position.unwrap()), marked, "{written}");
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
        .map(|f| {
            (
                f.field.clone().unwrap(),
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
    assert_eq!(a.findings[0].code, "field/NotSupported");
    assert_eq!(a.findings[1].document, Some(1));
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
";
    let a = analyze(&input(config, &example("reviews/pod-create.json")));
    assert_eq!(a.findings.len(), 1, "{:?}", a.findings);
    assert_eq!(at(config, a.findings[0].position.unwrap()), ".uid");
    assert_eq!(a.hooks.len(), 1);
    assert_eq!(
        at(config, a.hooks[0].conditions[0].position.unwrap()),
        "'request.uid == 1'"
    );
    assert_eq!(at(config, a.hooks[0].position.unwrap()), "a.example.com");
}

#[test]
fn text_that_cannot_be_read_is_a_finding_not_a_failure() {
    let review = example("reviews/pod-create.json");
    let a = analyze(&input("kind: [unclosed\n  x: y", &review));
    assert_eq!(a.findings.len(), 1);
    assert_eq!(a.findings[0].code, "yaml");
    assert!(a.findings[0].position.is_some());
    assert!(a.hooks.is_empty());
    assert_eq!(a.admitted, Some(true));

    let a = analyze(&input("kind: ConfigMap\n---\nkind: Pod\n", &review));
    let messages: Vec<&str> = a.findings.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "document 0: unsupported kind \"ConfigMap\"",
            "document 1: unsupported kind \"Pod\""
        ]
    );
    assert_eq!(a.findings[1].position.unwrap().line, 3);

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
        assert_eq!(a.review_findings.len(), 1);
        assert_eq!(a.review_findings[0].message, message);
    }
    let a = analyze(&input(
        &example("webhooks.yaml"),
        "{\n  \"request\": {\n    oops\n}",
    ));
    let f = &a.review_findings[0];
    // The YAML reader's position (after the last line): the end of the text.
    assert!(f.message.contains("at line 5 column 1"), "{}", f.message);
    assert_eq!(f.position.unwrap().line, 4);

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
    ] {
        let _ = analyze(&input(text, text));
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
    // The version: unknown ones fall back to the default.
    let mut i = input(&config, &review);
    i.version = "1.28".into();
    assert_eq!(analyze(&i).version, "1.28");
    i.version = "2.0".into();
    assert_eq!(analyze(&i).version, "1.34");
    let v = versions();
    assert_eq!(v.default, "1.34");
    assert_eq!(v.versions.first().map(String::as_str), Some("1.36"));
    assert_eq!(v.versions.last().map(String::as_str), Some("1.28"));
}

#[test]
fn the_expression_box_evaluates_as_matchcond_eval() {
    let review = example("reviews/pod-create.json");
    let e = |expression: &str| {
        evaluate(&Input {
            expression: expression.into(),
            review: review.clone(),
            version: "1.34".into(),
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
    assert_eq!(out["default"], "1.34");
}
