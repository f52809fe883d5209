//! Deciding from the bytes of a review, parsing only what the conditions read, gives what
//! deciding on the whole parsed review gives: same decision, same outcome and cost per
//! condition.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use matchcond::{Activation, Environment, FailurePolicy, MatchCondition, MatchConditions};

/// Every condition of the benchmark workload alone, and every set.
fn condition_sets(w: &matchcond_bench::Workload) -> Vec<(String, Vec<MatchCondition>)> {
    let alone = w.conditions.iter().map(|c| {
        (
            c.name.clone(),
            vec![MatchCondition::new(&c.name, &c.expression)],
        )
    });
    let sets = w
        .sets
        .iter()
        .map(|s| (s.name.clone(), common::set_conditions(w, &s.name)));
    alone.chain(sets).collect()
}

#[test]
fn pruned_reading_decides_like_the_whole_review() {
    let env = Environment::latest();
    let w = common::workload();
    let sets = condition_sets(&w);
    assert!(sets.len() > 70);
    let mut compared = 0;
    for request in [
        "pod-create",
        "deployment-update",
        "configmap-delete",
        "large-configmap-create",
    ] {
        let bytes = &w.request(request).unwrap().raw;
        let review: serde_json::Value = serde_json::from_slice(bytes).unwrap();
        let whole = &review["request"];
        for (name, conditions) in &sets {
            let set = MatchConditions::compile(&env, conditions).unwrap();
            for policy in [FailurePolicy::Fail, FailurePolicy::Ignore] {
                let expected = set.explain(&Activation::from_request(whole), policy);
                let pruned = set.read_review(bytes).unwrap();
                let envelope = set.read_review_envelope(bytes).unwrap();
                assert_eq!(envelope["request"], pruned, "{name} on {request}");
                assert_eq!(envelope["apiVersion"], review["apiVersion"]);
                assert_eq!(envelope["kind"], review["kind"]);
                let got = set.explain(&Activation::from_request(&pruned), policy);
                assert_eq!(got, expected, "{name} on {request}");
                let to_decide = set.read_review_to_decide(bytes).unwrap();
                let got = set.explain(&Activation::from_request(&to_decide), policy);
                assert_eq!(got, expected, "{name} on {request} (to decide)");
                assert_eq!(
                    set.decide_review(bytes, policy).unwrap(),
                    expected.decision,
                    "{name} on {request}"
                );
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 4 * 2 * sets.len());
}

#[test]
fn only_what_is_read_is_built() {
    let set = common::compile(&[(
        "labels",
        "has(object.metadata.labels) && object.metadata.labels['app'] == 'web'",
    )]);
    let w = common::workload();
    let request = set
        .read_review(&w.request("pod-create").unwrap().raw)
        .unwrap();
    let object = request["object"].as_object().unwrap();
    assert_eq!(object.keys().collect::<Vec<_>>(), ["metadata"]);
    assert_eq!(
        object["metadata"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["labels"]
    );
    assert_eq!(request["oldObject"], serde_json::Value::Null);
    assert_eq!(
        request["userInfo"]["username"],
        "system:serviceaccount:kube-system:statefulset-controller"
    );
}

#[test]
fn to_decide_only_the_members_read_are_built() {
    let w = common::workload();
    let bytes = &w.request("pod-create").unwrap().raw;
    let members = |conditions: &[(&str, &str)]| {
        let request = common::compile(conditions)
            .read_review_to_decide(bytes)
            .unwrap();
        let mut keys: Vec<String> = request.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        (keys, request)
    };
    // The objects are always there (null when nothing of them is read).
    let (keys, request) = members(&[("ns", "request.namespace != 'kube-system'")]);
    assert_eq!(keys, ["namespace", "object", "oldObject"]);
    assert_eq!(request["namespace"], "shop");
    assert_eq!(request["object"], serde_json::Value::Null);
    // A member is built whole, with the member it may be read from in a converted request.
    let (keys, request) = members(&[
        ("user", "request.userInfo.username != 'x'"),
        ("kind", "request.kind.kind == 'Pod'"),
        ("labels", "has(object.metadata.labels)"),
    ]);
    assert_eq!(
        keys,
        ["kind", "object", "oldObject", "requestKind", "userInfo"]
    );
    let full: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    assert_eq!(request["userInfo"], full["request"]["userInfo"]);
    assert_eq!(request["requestKind"], full["request"]["requestKind"]);
    assert_eq!(
        request["object"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["metadata"]
    );
    // `request` itself, or an authorizer (which reads the user and the resource): all.
    for condition in [
        "request != null",
        "authorizer.group('').resource('pods').check('get').allowed()",
    ] {
        let (_, request) = members(&[("all", condition)]);
        let mut whole = full["request"].clone();
        whole["object"] = serde_json::Value::Null;
        assert_eq!(request, whole, "{condition}");
    }
    // No condition: nothing but the objects, and the bytes are still checked.
    let none = MatchConditions::compile(&Environment::latest(), &[]).unwrap();
    assert_eq!(
        none.read_review_to_decide(bytes).unwrap(),
        serde_json::json!({"object": null, "oldObject": null})
    );
    assert_eq!(
        none.read_review_to_decide(br#"{"request": {"uid": [1, }}"#)
            .unwrap_err()
            .to_string(),
        "invalid AdmissionReview: expected value at line 1 column 25"
    );
}

#[test]
fn a_presence_test_reads_no_value() {
    let w = common::workload();
    let bytes = &w.request("pod-create").unwrap().raw;
    // The benchmark's label condition: `has()` and `in` ask whether a member is there;
    // only the label compared is built.
    let set = common::compile(&[(
        "label",
        "has(object.metadata.labels) && 'app' in object.metadata.labels && object.metadata.labels['app'] == 'web'",
    )]);
    let request = set.read_review_to_decide(bytes).unwrap();
    assert_eq!(
        request["object"],
        serde_json::json!({"metadata": {"labels": {"app": "web"}}})
    );
    // A member only tested is there, as null; an absent one stays absent.
    let set = common::compile(&[
        ("spec", "has(object.spec)"),
        ("status", "has(object.status)"),
        ("key", "'team' in object.metadata.labels"),
    ]);
    let request = set.read_review_to_decide(bytes).unwrap();
    assert_eq!(
        request["object"],
        serde_json::json!({"spec": null, "metadata": {"labels": {"team": null}}})
    );
    let whole: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    for policy in [FailurePolicy::Fail, FailurePolicy::Ignore] {
        assert_eq!(
            set.explain(&Activation::from_request(&request), policy),
            set.explain(&Activation::from_request(&whole["request"]), policy)
        );
    }
}

#[test]
fn unreadable_reviews_are_errors() {
    let set = common::compile(&[("a", "object != null")]);
    let err = set
        .read_review(br#"{"request": {"object": {"a": }}}"#)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid AdmissionReview: expected value at line 1 column 30"
    );
    let err = set
        .read_review(br#"{"kind": "AdmissionReview"}"#)
        .unwrap_err();
    assert_eq!(err.to_string(), "invalid AdmissionReview: no request");
    let err = set.read_review(br#"{"request": {}} trailing"#).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid AdmissionReview: trailing characters at line 1 column 17"
    );
    let err = set.read_review(b"[1]").unwrap_err();
    assert_eq!(err.to_string(), "invalid AdmissionReview: invalid type: sequence, expected an AdmissionReview object at line 1 column 0");
    // A name that is only compared is not checked as UTF-8, as a value skipped is not;
    // a string built is.
    let names = common::compile(&[("a", "has(object.metadata)")]);
    let pruned = names
        .read_review(b"{\"request\": {\"object\": {\"\xff\": \"\xff\"}}}")
        .unwrap();
    assert_eq!(pruned, serde_json::json!({"object": {}}));
    let err = set
        .read_review(b"{\"request\": {\"object\": {\"\xff\": 1}}}")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid AdmissionReview: invalid unicode code point at line 1 column 26"
    );
    let err = set.read_review(b"{\"request\": \"\xff\"}").unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid AdmissionReview: invalid unicode code point at line 1 column 14"
    );
}

#[test]
fn the_envelope_is_the_type_and_the_request_read_once() {
    let set = common::compile(&[("a", "object.metadata.name == 'x'")]);
    let review = set
        .read_review_envelope(
            br#"{"apiVersion": "admission.k8s.io/v1", "response": {"allowed": true},
                "request": {"uid": "1", "object": {"metadata": {"name": "x"}, "spec": {}}},
                "kind": "AdmissionReview"}"#,
        )
        .unwrap();
    assert_eq!(
        review,
        serde_json::json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {"uid": "1", "object": {"metadata": {"name": "x"}}}})
    );
    // Absent members are absent, a null request is null.
    assert_eq!(
        set.read_review_envelope(br#"{"kind": 7, "request": null}"#)
            .unwrap(),
        serde_json::json!({"kind": 7, "request": null})
    );
    for (bytes, error) in [
        (&b"[1]"[..], "invalid AdmissionReview: invalid type: sequence, expected an AdmissionReview object at line 1 column 0"),
        (br#"{"request": 5}"#, "invalid AdmissionReview: invalid type: integer `5`, expected an AdmissionRequest object at line 1 column 13"),
        (br#"{"request": {}} trailing"#, "invalid AdmissionReview: trailing characters at line 1 column 17"),
        (br#"{"extra": [1, }"#, "invalid AdmissionReview: expected value at line 1 column 15"),
    ] {
        let err = set.read_review_envelope(bytes).unwrap_err();
        assert_eq!(err.to_string(), error);
    }
}
