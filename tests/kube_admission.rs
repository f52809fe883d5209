//! The kube-rs example (`examples/kube_admission.rs`) answers the example review exactly.

#![allow(clippy::unwrap_used)]

#[path = "../examples/kube_admission.rs"]
mod example;

use matchcond::KubeVersion;

fn root(path: &str) -> String {
    format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_kube_example_answers_the_pod_review() {
    let config = std::fs::read_to_string(root("examples/webhooks.yaml")).unwrap();
    let review = std::fs::read(root("examples/reviews/pod-create.json")).unwrap();
    let out = example::answer(&config, &review, KubeVersion::LATEST).unwrap();
    let line = |decision: &str| {
        format!(
            r#"{{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{{"uid":"5e47603a-d537-4826-af6d-af0ed1ddaada","allowed":true,"status":{{}},"auditAnnotations":{{"matchcond.example.com/decision":"{decision}"}}}}}}"#
        ) + "\n"
    };
    // Mutating webhooks first (the admission chain's order), then validating ones.
    assert_eq!(
        out,
        [
            line("inject.sidecar.example.com: call"),
            line("pods.policy.example.com: call"),
            line("deployments.policy.example.com: skip: no rule matches"),
        ]
        .concat()
    );
}

#[test]
fn a_condition_that_errs_under_fail_denies_with_the_apiservers_status() {
    let config = std::fs::read_to_string(root("examples/webhooks.yaml")).unwrap();
    let mut review: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root("examples/reviews/pod-create.json")).unwrap())
            .unwrap();
    // A user without groups: `request.userInfo.groups` has no such key.
    review["request"]["userInfo"]
        .as_object_mut()
        .unwrap()
        .remove("groups");
    let bytes = serde_json::to_vec(&review).unwrap();
    let out = example::answer(&config, &bytes, KubeVersion::LATEST).unwrap();
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(
        lines[1]["response"]["auditAnnotations"]["matchcond.example.com/decision"],
        "pods.policy.example.com: reject"
    );
    assert_eq!(lines[1]["response"]["allowed"], false);
    assert_eq!(lines[1]["response"]["status"]["code"], 403);
    assert_eq!(lines[1]["response"]["status"]["reason"], "Forbidden");
    assert_eq!(
        lines[1]["response"]["status"]["message"],
        "pods \"web-0\" is forbidden: expression '!('system:nodes' in request.userInfo.groups)' \
         resulted in error: no such key: groups"
    );
}
