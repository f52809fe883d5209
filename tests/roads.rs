//! Every road into the engine gives the apiserver's decision: the raw bytes of a review,
//! its parsed `serde_json::Value`, kube-rs's typed `AdmissionRequest<DynamicObject>` (taken
//! by `KubeRequest`, or serialised back by `serde_json::to_value` as a user would), and
//! `AdmissionRequest<T>` for k8s-openapi's types — on every example and benchmark review,
//! also with `null` written for the members Go omits and with the zero values Go writes
//! left out. Decision, outcome and cost of every condition are the same on every road, and
//! so is the dispatch of `examples/webhooks.yaml`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::PathBuf;
use std::sync::Arc;

use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube_core::admission::{AdmissionRequest, AdmissionReview};
use kube_core::{DynamicObject, Resource};
use matchcond::kube::{KubeRequest, WebhookConditions};
use matchcond::{
    Activation, Environment, FailurePolicy, KubeVersion, MatchCondition, MatchConditions, Report,
};
use matchcond_bench::authz::MockAuthorizer;
use matchcond_bench::workload::Workload;
use serde::Deserialize;
use serde_json::{json, Value as Json};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The example reviews and the benchmark workload's reviews: (name, bytes).
fn reviews() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for dir in [
        "examples/reviews",
        "crates/matchcond-bench/workload/requests",
    ] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for f in files {
            let name = format!("{dir}/{}", f.file_name().unwrap().to_string_lossy());
            out.push((name, std::fs::read(&f).unwrap()));
        }
    }
    out
}

/// A set of conditions with the failure policies to decide it under.
struct Set {
    name: String,
    conditions: MatchConditions,
    policies: Vec<FailurePolicy>,
}

/// Every set of the workload, every workload condition alone, and every webhook of
/// `examples/webhooks.yaml` (taken from k8s-openapi's types, with its failure policy).
fn sets(env: &Environment) -> Vec<Set> {
    let workload = Workload::builtin().unwrap();
    let both = vec![FailurePolicy::Fail, FailurePolicy::Ignore];
    let mut out = Vec::new();
    for set in &workload.sets {
        let conditions: Vec<MatchCondition> = workload
            .set_conditions(set)
            .iter()
            .map(|c| MatchCondition::new(&c.name, &c.expression))
            .collect();
        out.push(Set {
            name: format!("set {}", set.name),
            conditions: MatchConditions::compile(env, &conditions).unwrap(),
            policies: both.clone(),
        });
    }
    for c in &workload.conditions {
        out.push(Set {
            name: format!("condition {}", c.name),
            conditions: MatchConditions::compile(
                env,
                &[MatchCondition::new(&c.name, &c.expression)],
            )
            .unwrap(),
            policies: both.clone(),
        });
    }
    let yaml = std::fs::read_to_string(root().join("examples/webhooks.yaml")).unwrap();
    let mut webhooks = 0;
    for doc in serde_yaml_ng::Deserializer::from_str(&yaml) {
        let doc = serde_yaml_ng::Value::deserialize(doc).unwrap();
        let hooks: Vec<WebhookConditions> = match doc["kind"].as_str().unwrap() {
            "ValidatingWebhookConfiguration" => webhooks_of(
                doc,
                |c: ValidatingWebhookConfiguration| c.webhooks,
                |w| WebhookConditions::from_validating(env, w),
            ),
            "MutatingWebhookConfiguration" => webhooks_of(
                doc,
                |c: MutatingWebhookConfiguration| c.webhooks,
                |w| WebhookConditions::from_mutating(env, w),
            ),
            other => panic!("{other}"),
        };
        for h in hooks {
            webhooks += 1;
            out.push(Set {
                name: format!("webhook {}", h.name),
                policies: vec![h.failure_policy],
                conditions: h.conditions,
            });
        }
    }
    assert_eq!(webhooks, 3);
    out
}

/// The members of the v1 AdmissionRequest that Go omits when empty (`omitempty` strings
/// and pointers) or writes as `null` (the objects and options when there are none).
const NULLABLE: [&str; 10] = [
    "subResource",
    "requestKind",
    "requestResource",
    "requestSubResource",
    "name",
    "namespace",
    "object",
    "oldObject",
    "options",
    "dryRun",
];

/// The members of `userInfo`, all `omitempty`.
const USER_INFO: [&str; 4] = ["username", "uid", "groups", "extra"];

/// A review with `null` for every absent member Go omits (as serde writes an `Option`).
fn with_nulls(review: &Json, dry_run: bool) -> Json {
    let mut r = review.clone();
    let req = r["request"].as_object_mut().unwrap();
    for k in NULLABLE {
        if k == "dryRun" && !dry_run {
            // kube's `dryRun` is a `bool`: it reads no null.
            continue;
        }
        req.entry(k).or_insert(Json::Null);
    }
    let user = req["userInfo"].as_object_mut().unwrap();
    for k in USER_INFO {
        user.entry(k).or_insert(Json::Null);
    }
    r
}

/// A review without the zero values Go writes: `dryRun: false`, a null `object`,
/// `oldObject` or `options`; with `nested`, also the empty strings of `kind`, `resource`,
/// `requestKind` and `requestResource` (which kube's types require).
fn without_zeros(review: &Json, nested: bool) -> Json {
    let mut r = review.clone();
    let req = r["request"].as_object_mut().unwrap();
    req.retain(|k, v| {
        !(v.is_null() || (k == "dryRun" && *v == json!(false)) || (k == "uid" && *v == json!("")))
    });
    if nested {
        for k in ["kind", "resource", "requestKind", "requestResource"] {
            if let Some(Json::Object(m)) = req.get_mut(k) {
                m.retain(|_, v| *v != json!(""));
            }
        }
    }
    r
}

/// The conditions of each webhook of a configuration document of type `C`.
fn webhooks_of<C, W, E>(
    doc: serde_yaml_ng::Value,
    webhooks: fn(C) -> Option<Vec<W>>,
    conditions: impl Fn(&W) -> Result<WebhookConditions, E>,
) -> Vec<WebhookConditions>
where
    C: serde::de::DeserializeOwned,
    E: std::fmt::Debug,
{
    let config: C = serde_yaml_ng::from_value(doc).unwrap();
    webhooks(config)
        .unwrap()
        .iter()
        .map(|w| conditions(w).unwrap())
        .collect()
}

/// The review written again as other clients write it: a name, the JSON, and whether
/// kube-rs's typed request can read it.
fn rewritten(review: &Json) -> [(&'static str, Json, bool); 4] {
    [
        ("nulls written", with_nulls(review, false), true),
        ("nulls written, dryRun too", with_nulls(review, true), false),
        ("zeros left out", without_zeros(review, false), true),
        ("nested zeros left out", without_zeros(review, true), false),
    ]
}

/// The request kube-rs's typed `AdmissionRequest<T>` gives, through `KubeRequest`.
fn typed<T>(bytes: &[u8]) -> Json
where
    T: Resource + serde::Serialize + serde::de::DeserializeOwned,
{
    let review: AdmissionReview<T> = serde_json::from_slice(bytes).unwrap();
    let request: AdmissionRequest<T> = review.try_into().unwrap();
    KubeRequest::from_typed(&request).unwrap().into_json()
}

/// The requests of every road for one review variant: (road, request JSON). The raw-bytes
/// road, which reads per set, is `None`.
fn roads(bytes: &[u8], kube: bool) -> Vec<(&'static str, Option<Json>)> {
    let review: Json = serde_json::from_slice(bytes).unwrap();
    let mut out = vec![
        ("raw bytes", None),
        ("serde_json::Value", Some(review["request"].clone())),
    ];
    if !kube {
        return out;
    }
    let parsed: AdmissionReview<DynamicObject> = serde_json::from_slice(bytes).unwrap();
    let request: AdmissionRequest<DynamicObject> = parsed.try_into().unwrap();
    out.push((
        "kube to_value",
        Some(serde_json::to_value(&request).unwrap()),
    ));
    out.push((
        "KubeRequest::from_typed(DynamicObject)",
        Some(KubeRequest::from_typed(&request).unwrap().into_json()),
    ));
    out.push((
        "KubeRequest::from_dynamic",
        Some(KubeRequest::from_dynamic(request).unwrap().into_json()),
    ));
    let kind = review["request"]["kind"]["kind"].as_str().unwrap();
    let typed = match kind {
        "Pod" => typed::<Pod>(bytes),
        "Deployment" => typed::<Deployment>(bytes),
        "ConfigMap" => typed::<ConfigMap>(bytes),
        other => panic!("no typed road for {other}"),
    };
    out.push(("KubeRequest::from_typed(k8s-openapi)", Some(typed)));
    out
}

fn explain<'s>(set: &'s MatchConditions, request: &Json, policy: FailurePolicy) -> Report<'s> {
    let mut act = Activation::from_request(request);
    if set.uses_authorizer() {
        act = act.with_authorizer(Arc::new(MockAuthorizer));
    }
    set.explain(&act, policy)
}

#[test]
fn every_road_gives_the_same_decision_outcomes_and_costs() {
    let env = Environment::kubernetes(KubeVersion::LATEST);
    let sets = sets(&env);
    let reviews = reviews();
    assert_eq!(reviews.len(), 7);
    let mut compared = 0;
    let mut roads_seen = std::collections::BTreeSet::new();
    for (name, bytes) in &reviews {
        let review: Json = serde_json::from_slice(bytes).unwrap();
        let mut variants = vec![("as sent", review.clone(), true)];
        variants.extend(rewritten(&review));
        let mut variant_roads = Vec::new();
        for (variant, json, kube) in &variants {
            let bytes = serde_json::to_vec(json).unwrap();
            variant_roads.push((*variant, roads(&bytes, *kube), bytes));
        }
        for set in &sets {
            for &policy in &set.policies {
                let mut act = Activation::from_request(&review["request"]);
                if set.conditions.uses_authorizer() {
                    act = act.with_authorizer(Arc::new(MockAuthorizer));
                }
                let expected = set.conditions.explain(&act, policy).into_owned();
                for (variant, roads, bytes) in &variant_roads {
                    for (road, request) in roads {
                        let got = match request {
                            Some(r) => explain(&set.conditions, r, policy).into_owned(),
                            None => {
                                let pruned = set.conditions.read_review(bytes).unwrap();
                                let to_decide =
                                    set.conditions.read_review_to_decide(bytes).unwrap();
                                let got = explain(&set.conditions, &to_decide, policy);
                                assert_eq!(
                                    got.into_owned(),
                                    expected,
                                    "{} on {name} ({variant}), only what is read",
                                    set.name
                                );
                                explain(&set.conditions, &pruned, policy).into_owned()
                            }
                        };
                        assert_eq!(
                            got, expected,
                            "{} on {name} ({variant}), road {road}",
                            set.name
                        );
                        roads_seen.insert(*road);
                        compared += 1;
                    }
                }
            }
        }
    }
    assert_eq!(roads_seen.len(), 6);
    // 7 reviews × (3 variants × 6 roads + 2 variants × 2 roads) × every set and policy.
    let decisions: usize = sets.iter().map(|s| s.policies.len()).sum();
    assert_eq!(compared, 7 * (3 * 6 + 2 * 2) * decisions);
}

#[test]
fn kube_writes_nulls_that_the_request_view_reads_as_absent() {
    // A cluster-scoped CREATE as kube-rs holds it: `namespace`, `subResource`,
    // `requestKind`… are `None`, serialised as null; its GroupVersionResource carries an
    // `api_version` member.
    let bytes = br#"{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
      "request": {"uid": "1", "operation": "CREATE", "name": "shop",
        "kind": {"group": "", "version": "v1", "kind": "Namespace"},
        "resource": {"group": "", "version": "v1", "resource": "namespaces"},
        "userInfo": {"username": "alice"}, "dryRun": false,
        "object": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}}}"#;
    let review: AdmissionReview<DynamicObject> = serde_json::from_slice(bytes).unwrap();
    let request: AdmissionRequest<DynamicObject> = review.try_into().unwrap();
    let natural = serde_json::to_value(&request).unwrap();
    assert_eq!(natural["namespace"], Json::Null);
    assert_eq!(natural["requestKind"], Json::Null);
    assert_eq!(natural["resource"]["api_version"], json!(""));
    let env = Environment::kubernetes(KubeVersion::V1_34);
    let eval = |expr: &str, request: &Json| {
        let p = env.compile_condition(expr).unwrap();
        let act = Activation::from_request(request);
        match p.evaluate(&act, None).result {
            Ok(v) => v.to_string(),
            Err(e) => format!("error: {}", e.message()),
        }
    };
    let ours = KubeRequest::from_dynamic(request).unwrap().into_json();
    for request in [&natural, &ours] {
        for (expr, want) in [
            ("has(request.subResource)", "false"),
            (
                "request.namespace != 'kube-system'",
                "error: no such key: namespace",
            ),
            ("has(request.namespace)", "false"),
            ("request.requestKind.kind == 'Namespace'", "true"),
            ("has(request.userInfo.groups)", "false"),
            ("size(dyn(request.resource)) == 3", "true"),
            (
                "dyn(request.resource) == {'group': '', 'version': 'v1', 'resource': 'namespaces'}",
                "true",
            ),
            ("request.options == null", "true"),
            ("request.dryRun", "false"),
        ] {
            assert_eq!(eval(expr, request), want, "{expr} on {request}");
        }
    }
    // What kube-rs's own serialisation writes is not what KubeRequest keeps.
    assert_eq!(ours.get("namespace"), None);
    assert_eq!(
        ours["resource"],
        json!({"group": "", "version": "v1", "resource": "namespaces"})
    );
}

#[test]
fn structures_read_as_go_declares_them_at_the_same_cost() {
    // The same request, as the apiserver sends it and as other roads may write it.
    let canonical = json!({
        "uid": "1", "operation": "UPDATE", "name": "web", "namespace": "shop",
        "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
        "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
        "requestKind": {"group": "", "version": "v1", "kind": "Deployment"},
        "userInfo": {"username": "alice", "groups": ["dev"]},
        "object": {"spec": {"replicas": 2}}, "oldObject": {"spec": {"replicas": 1}}
    });
    let written = json!({
        "uid": "1", "operation": "UPDATE", "name": "web", "namespace": "shop",
        "subResource": null, "requestSubResource": "", "requestResource": null,
        "kind": {"group": "apps", "version": "v1", "kind": "Deployment", "api_version": "apps/v1"},
        "resource": {"group": "apps", "version": "v1", "resource": "deployments", "extra": 1},
        "requestKind": {"group": null, "version": "v1", "kind": "Deployment"},
        "userInfo": {"username": "alice", "uid": "", "groups": ["dev"], "extra": {}},
        "object": {"spec": {"replicas": 2}}, "oldObject": {"spec": {"replicas": 1}},
        "options": null, "dryRun": null
    });
    let env = Environment::kubernetes(KubeVersion::V1_34);
    let run = |expr: &str, request: &Json| {
        let p = env.compile_condition(expr).unwrap();
        let act = Activation::from_request(request);
        let e = p.evaluate(&act, None);
        let v = match e.result {
            Ok(v) => v.to_string(),
            Err(e) => format!("error: {}", e.message()),
        };
        (v, e.cost)
    };
    let mut checked = 0;
    for expr in [
        "request.kind.group == 'apps'",
        "request.requestKind.group == ''",
        "has(request.requestKind.group)",
        "size(dyn(request.kind)) == 3",
        "dyn(request.resource) == {'group': 'apps', 'version': 'v1', 'resource': 'deployments'}",
        "dyn(request.resource).all(k, k in ['group', 'version', 'resource'])",
        "request.resource.resource == 'deployments' && request.requestResource.group == 'apps'",
        "!has(request.userInfo.uid)",
        "!has(request.userInfo.extra)",
        "'dev' in request.userInfo.groups",
        "size(dyn(request.userInfo)) == 2",
        "dyn(request.userInfo) == {'username': dyn('alice'), 'groups': dyn(['dev'])}",
        "request.userInfo.username.startsWith('al')",
        "!dyn(request.userInfo).exists(k, k == 'uid')",
        "request.?userInfo.?uid.orValue('none') == 'none'",
        "!has(request.subResource) && !has(request.requestSubResource)",
        "request.dryRun == false && request.options == null",
        "string(dyn(request).size()) == '13'",
        "object.spec != oldObject.spec",
    ] {
        let want = run(expr, &canonical);
        assert_eq!(want.0, "true", "{expr}");
        assert_eq!(run(expr, &written), want, "{expr}");
        checked += 1;
    }
    assert_eq!(checked, 19);
}

#[test]
fn the_dispatcher_decides_alike_on_every_road() {
    use matchcond::dispatch::{load_documents, AnyNamespace, Dispatcher};
    let yaml = std::fs::read_to_string(root().join("examples/webhooks.yaml")).unwrap();
    let configs = load_documents(&yaml).unwrap();
    let dispatcher =
        Dispatcher::new(&configs, KubeVersion::LATEST).with_authorizer(Arc::new(MockAuthorizer));
    let namespaces = AnyNamespace(Default::default());
    let mut compared = 0;
    let mut called = 0;
    for (name, bytes) in reviews() {
        let review: Json = serde_json::from_slice(&bytes).unwrap();
        let expected = dispatcher
            .dispatch(&review["request"], &namespaces)
            .unwrap();
        called += expected.called().count();
        for (variant, json, kube) in rewritten(&review) {
            let bytes = serde_json::to_vec(&json).unwrap();
            for (road, request) in roads(&bytes, kube) {
                // The dispatcher takes the review's bytes as they are.
                let got = match request {
                    Some(request) => dispatcher.dispatch(&request, &namespaces).unwrap(),
                    None => dispatcher.dispatch(&bytes[..], &namespaces).unwrap(),
                };
                assert_eq!(got, expected, "{name} ({variant}), road {road}");
                compared += 1;
            }
            if kube {
                // A KubeRequest as it is, and the bytes in a Vec, for one webhook too.
                let parsed: AdmissionReview<DynamicObject> =
                    serde_json::from_slice(&bytes).unwrap();
                let request = KubeRequest::from_review(parsed).unwrap();
                let got = dispatcher.dispatch(&request, &namespaces).unwrap();
                assert_eq!(got, expected, "{name} ({variant}), a KubeRequest");
                for (i, hook) in dispatcher.hooks().enumerate() {
                    let one = dispatcher
                        .decide_webhook(&hook.uid, &request, &namespaces)
                        .unwrap()
                        .unwrap();
                    let from_vec = dispatcher
                        .decide_webhook(&hook.uid, &bytes, &namespaces)
                        .unwrap()
                        .unwrap();
                    assert_eq!(one, from_vec, "{name} ({variant}), {}", hook.uid);
                    let json = dispatcher
                        .decide_at(i, &review["request"], &namespaces)
                        .unwrap()
                        .unwrap();
                    assert_eq!(one.decision, json.decision, "{name}, {}", hook.uid);
                }
                compared += 1;
            }
        }
    }
    // 7 reviews × (2 variants × 6 roads + 2 variants × 2 roads), and a KubeRequest on
    // each of the 2 variants kube reads.
    assert_eq!(compared, 7 * (16 + 2));
    // The original reviews call six webhooks in all (the rest are skipped by rules,
    // selectors or conditions).
    assert_eq!(called, 6);
}

#[test]
fn the_dispatcher_says_why_bytes_are_not_a_review() {
    use matchcond::dispatch::{load_documents, Dispatcher, NoNamespaces, RequestError};
    let yaml = std::fs::read_to_string(root().join("examples/webhooks.yaml")).unwrap();
    let dispatcher = Dispatcher::new(&load_documents(&yaml).unwrap(), KubeVersion::LATEST);
    let error = |bytes: &[u8]| dispatcher.dispatch(bytes, &NoNamespaces).unwrap_err();
    assert_eq!(
        error(b"{\"kind\": \"AdmissionReview\"}").to_string(),
        "invalid AdmissionReview: no request"
    );
    assert_eq!(
        error(b"{\"request\": {\"uid\": 1}").to_string(),
        "invalid AdmissionReview: EOF while parsing an object at line 1 column 22"
    );
    assert!(matches!(error(b"[]"), RequestError::Review { .. }));
    // A review with a request that is not an AdmissionRequest: the request's own error.
    assert_eq!(error(b"{\"request\": 5}"), RequestError::NotAnObject);
    assert_eq!(
        dispatcher
            .decide_webhook("nothing-by-this-name", &b"{}"[..], &NoNamespaces)
            .unwrap_err()
            .to_string(),
        "invalid AdmissionReview: no request"
    );
}
