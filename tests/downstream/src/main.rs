//! Decides a kube-rs AdmissionReview and a k8s-openapi webhook, as a webhook server built
//! on kube does, with k8s-openapi on Kubernetes 1.34.

use k8s_openapi::api::admissionregistration::v1::{
    MatchCondition, ValidatingWebhook, ValidatingWebhookConfiguration,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::admission::{AdmissionRequest, AdmissionReview};
use kube::core::DynamicObject;
use matchcond::kube::{KubeRequest, WebhookConditions};
use matchcond::{Decision, Environment, KubeVersion, Skip};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let version: KubeVersion = "v1.34.2+k3s1".parse()?;
    let env = Environment::kubernetes(version);
    let webhook = ValidatingWebhook {
        name: "pods.policy.example.com".into(),
        match_conditions: Some(vec![
            MatchCondition {
                name: "not-kube-system".into(),
                expression: "request.namespace != 'kube-system'".into(),
            },
            MatchCondition {
                name: "web".into(),
                expression: "object.metadata.labels['app'] == 'web'".into(),
            },
        ]),
        failure_policy: Some("Ignore".into()),
        ..Default::default()
    };
    let hook = WebhookConditions::from_validating(&env, &webhook)?;
    let body = br#"{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
      "request": {"uid": "1", "operation": "CREATE", "namespace": "shop", "name": "web-0",
        "kind": {"group": "", "version": "v1", "kind": "Pod"},
        "resource": {"group": "", "version": "v1", "resource": "pods"},
        "userInfo": {"username": "alice"},
        "object": {"apiVersion": "v1", "kind": "Pod",
          "metadata": {"name": "web-0", "namespace": "shop", "labels": {"app": "web"}}}}}"#;
    let review: AdmissionReview<DynamicObject> = serde_json::from_slice(body)?;
    let request: AdmissionRequest<DynamicObject> = review.try_into()?;
    let request = KubeRequest::from_dynamic(request)?;
    let decision = hook.decide(&request.activation());
    if decision != Decision::Call {
        return Err(format!("expected Call, got {decision:?}").into());
    }
    // A live dispatcher fed a watcher event, at the version the cluster reports.
    let cluster = KubeVersion::for_cluster("v1.38.1")?;
    assert!(cluster.is_newer_than_modelled());
    let live = matchcond::runtime::LiveDispatcher::new(cluster.model);
    let config = ValidatingWebhookConfiguration {
        metadata: ObjectMeta {
            name: Some("pods".into()),
            ..Default::default()
        },
        webhooks: Some(vec![webhook.clone()]),
    };
    let applied = live.apply_validating(kube_runtime::watcher::Event::Apply(config));
    assert!(applied.swapped && applied.problems().next().is_none());
    let outcome = live
        .dispatcher()
        .decide_webhook(&webhook.name, request.json(), &matchcond::dispatch::NoNamespaces)?
        .ok_or("no webhook")?;
    // No rule: the dispatcher skips the webhook before its conditions.
    if outcome.decision != Decision::Skip(Skip::Rules) {
        return Err(format!("expected a skip by rules, got {:?}", outcome.decision).into());
    }
    // The whole configuration road works with the same k8s-openapi.
    let configs = matchcond::dispatch::load_documents(
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: p}\nwebhooks: []\n",
    )?;
    println!("{} {:?}, {} configuration", hook.name, decision, configs.len());
    Ok(())
}
