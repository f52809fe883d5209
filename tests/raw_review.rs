//! Deciding from the bytes of a review, parsing only what the conditions read, gives what
//! deciding on the whole parsed review gives: same decision, same outcome and cost per
//! condition.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::PathBuf;

use matchcond::{Activation, Environment, FailurePolicy, MatchCondition, MatchConditions};

fn workload() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/bench")
}

/// Every condition of the workload alone, and every set.
fn condition_sets() -> Vec<(String, Vec<MatchCondition>)> {
    let doc: serde_yaml_ng::Value = serde_yaml_ng::from_str(
        &std::fs::read_to_string(workload().join("conditions.yaml")).unwrap(),
    )
    .unwrap();
    let mut all = Vec::new();
    for list in ["conditions", "filler_conditions"] {
        for c in doc[list].as_sequence().unwrap() {
            let name = c["name"].as_str().unwrap().to_string();
            let expr = c["expression"].as_str().unwrap().to_string();
            all.push((name, expr));
        }
    }
    let mut sets: Vec<(String, Vec<MatchCondition>)> = all
        .iter()
        .map(|(n, e)| (n.clone(), vec![MatchCondition::new(n, e)]))
        .collect();
    for (set, names) in doc["condition_sets"].as_mapping().unwrap() {
        let conditions = names
            .as_sequence()
            .unwrap()
            .iter()
            .map(|n| {
                let n = n.as_str().unwrap();
                let (_, e) = all.iter().find(|(m, _)| m == n).unwrap();
                MatchCondition::new(n, e)
            })
            .collect();
        sets.push((set.as_str().unwrap().to_string(), conditions));
    }
    sets
}

#[test]
fn pruned_reading_decides_like_the_whole_review() {
    let env = Environment::latest();
    let sets = condition_sets();
    assert!(sets.len() > 70);
    let mut compared = 0;
    for request in [
        "pod-create",
        "deployment-update",
        "configmap-delete",
        "large-configmap-create",
    ] {
        let bytes = std::fs::read(workload().join(format!("requests/{request}.json"))).unwrap();
        let review: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let whole = &review["request"];
        for (name, conditions) in &sets {
            let set = MatchConditions::compile(&env, conditions).unwrap();
            for policy in [FailurePolicy::Fail, FailurePolicy::Ignore] {
                let expected = set.explain(&Activation::from_request(whole), policy);
                let pruned = set.read_review(&bytes).unwrap();
                let got = set.explain(&Activation::from_request(&pruned), policy);
                assert_eq!(got, expected, "{name} on {request}");
                assert_eq!(
                    set.decide_review(&bytes, policy).unwrap(),
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
    let env = Environment::latest();
    let set = MatchConditions::compile(
        &env,
        &[MatchCondition::new(
            "labels",
            "has(object.metadata.labels) && object.metadata.labels['app'] == 'web'",
        )],
    )
    .unwrap();
    let bytes = std::fs::read(workload().join("requests/pod-create.json")).unwrap();
    let request = set.read_review(&bytes).unwrap();
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
fn unreadable_reviews_are_errors() {
    let env = Environment::latest();
    let set =
        MatchConditions::compile(&env, &[MatchCondition::new("a", "object != null")]).unwrap();
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
    let err = set.read_review(b"{\"request\": \"\xff\"}").unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid AdmissionReview: invalid unicode code point at line 1 column 14"
    );
}
