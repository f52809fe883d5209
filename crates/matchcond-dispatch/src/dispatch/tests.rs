use std::collections::BTreeMap;

use serde_json::json;

use super::*;
use crate::namespaces::{AnyNamespace, NamespaceFn, NoNamespaces};

/// A decision with its detail in one value, as the tests compare them.
#[derive(Clone, Debug, PartialEq, Eq)]
enum HookDecision {
    Call(Invocation),
    Skip(SkipReason),
    Reject(Rejection),
}

/// A skip's check, with the condition it names.
#[derive(Clone, Debug, PartialEq, Eq)]
enum SkipReason {
    ExemptKind,
    NamespaceSelector,
    ObjectSelector,
    Rules,
    MatchCondition { name: Option<String> },
    Ignored { condition: String, message: String },
    SideEffectsUnsetIgnored,
}

impl HookOutcome {
    /// The decision with its detail; checks that the outcome's parts agree.
    fn old(&self) -> HookDecision {
        match (&self.decision, self.invocation(), self.rejection()) {
            (Decision::Call, Some(i), None) => HookDecision::Call(i.clone()),
            (Decision::Skip(s), None, None) => HookDecision::Skip(match s {
                Skip::ExemptKind => SkipReason::ExemptKind,
                Skip::NamespaceSelector => SkipReason::NamespaceSelector,
                Skip::ObjectSelector => SkipReason::ObjectSelector,
                Skip::Rules => SkipReason::Rules,
                Skip::Condition(c) => SkipReason::MatchCondition {
                    name: Some(c.to_string()),
                },
                Skip::Ignored(e) => SkipReason::Ignored {
                    condition: e.condition().to_owned(),
                    message: e.message().to_owned(),
                },
                Skip::SideEffectsUnsetIgnored => SkipReason::SideEffectsUnsetIgnored,
                other => panic!("unknown reason {other:?}"),
            }),
            (Decision::Reject { message }, None, Some(r)) if *message == r.message => {
                HookDecision::Reject(r.clone())
            }
            other => panic!("the parts of an outcome disagree: {other:?}"),
        }
    }
}
use crate::load::load_documents;

/// The equivalence table of `generic/webhook_test.go`: deployments co-located across
/// groups, scale kinds, and widgets registered with empty kinds.
fn test_mapper() -> Arc<ResourceTable> {
    let mut t = ResourceTable::new();
    for (g, v) in [
        ("extensions", "v1beta1"),
        ("apps", "v1"),
        ("apps", "v1beta1"),
        ("apps", "v1alpha1"),
    ] {
        t.register_with_key(
            "/deployments",
            Gvr::new(g, v, "deployments"),
            "",
            Gvk::new(g, v, "Deployment"),
        );
    }
    for (g, v, kg, kv) in [
        ("extensions", "v1beta1", "extensions", "v1beta1"),
        ("apps", "v1", "autoscaling", "v1"),
        ("apps", "v1beta1", "apps", "v1beta1"),
        ("apps", "v1alpha1", "apps", "v1alpha1"),
    ] {
        t.register_with_key(
            "/deployments",
            Gvr::new(g, v, "deployments"),
            "scale",
            Gvk::new(kg, kv, "Scale"),
        );
    }
    t.register(Gvr::new("example.com", "v1", "widgets"), "", Gvk::default());
    t.register(Gvr::new("example.com", "v2", "widgets"), "", Gvk::default());
    Arc::new(t)
}

fn hook_yaml(body: &str) -> String {
    format!(
        "- name: hook.example.com\n  sideEffects: None\n  admissionReviewVersions: [v1]\n  clientConfig: {{url: \"https://example.com\"}}\n{body}"
    )
}

fn dispatcher(body: &str) -> Dispatcher {
    let text = format!(
        "kind: ValidatingWebhookConfiguration\nmetadata: {{name: c}}\nwebhooks:\n{}",
        hook_yaml(body)
    );
    Dispatcher::with_resources(
        &load_documents(&text).unwrap(),
        KubeVersion::V1_36,
        test_mapper(),
    )
}

fn request(kind: (&str, &str, &str), resource: (&str, &str, &str), sub: &str) -> Json {
    json!({
        "uid": "u",
        "kind": {"group": kind.0, "version": kind.1, "kind": kind.2},
        "resource": {"group": resource.0, "version": resource.1, "resource": resource.2},
        "subResource": sub,
        "namespace": "ns",
        "name": "name",
        "operation": "CREATE",
        "userInfo": {"username": "alice"},
        "object": {"metadata": {"name": "name", "labels": {"app": "web"}}}
    })
}

fn deployment_request() -> Json {
    request(
        ("apps", "v1", "Deployment"),
        ("apps", "v1", "deployments"),
        "",
    )
}

/// A request for a custom resource in a version no webhook names.
fn widgets_v2_request() -> Json {
    request(
        ("example.com", "v2", "Widget"),
        ("example.com", "v2", "widgets"),
        "",
    )
}

fn scale_request() -> Json {
    request(
        ("autoscaling", "v1", "Scale"),
        ("apps", "v1", "deployments"),
        "scale",
    )
}

fn decide(d: &Dispatcher, req: &Json) -> HookDecision {
    d.decide_at(0, req, &NoNamespaces).unwrap().unwrap().old()
}

/// The call of a webhook for [`deployment_request`], as it came.
fn deployment_call() -> HookDecision {
    call(
        ("apps", "v1", "deployments"),
        "",
        ("apps", "v1", "Deployment"),
    )
}

fn call(resource: (&str, &str, &str), sub: &str, kind: (&str, &str, &str)) -> HookDecision {
    HookDecision::Call(Invocation {
        resource: Gvr::new(resource.0, resource.1, resource.2),
        subresource: sub.to_owned(),
        kind: Gvk::new(kind.0, kind.1, kind.2),
    })
}

const RULES_EXT_APPS: &str = "  rules:\n  - {operations: [\"*\"], apiGroups: [extensions], apiVersions: [v1beta1], resources: [deployments, deployments/scale]}\n  - {operations: [\"*\"], apiGroups: [apps], apiVersions: [v1beta1], resources: [deployments, deployments/scale]}\n";
const RULES_APPS_EXT: &str = "  rules:\n  - {operations: [\"*\"], apiGroups: [apps], apiVersions: [v1beta1], resources: [deployments, deployments/scale]}\n  - {operations: [\"*\"], apiGroups: [extensions], apiVersions: [v1beta1], resources: [deployments, deployments/scale]}\n";

// generic/webhook_test.go TestShouldCallHook, with its fake mapper.
#[test]
fn should_call_hook_table() {
    let d = dispatcher("");
    assert_eq!(
        decide(&d, &deployment_request()),
        HookDecision::Skip(SkipReason::Rules)
    );

    let d = dispatcher("  rules: [{operations: [\"*\"], apiGroups: [example.com], apiVersions: [v1], resources: [widgets]}]\n");
    let widgets = widgets_v2_request();
    // both widget versions share the default key; their kinds are empty
    assert_eq!(
        decide(&d, &widgets),
        HookDecision::Reject(Rejection::internal(
            "unable to convert to example.com/v1, Resource=widgets: unknown kind"
        ))
    );

    let d = dispatcher("  rules: [{operations: [\"*\"], apiGroups: [\"*\"], apiVersions: [\"*\"], resources: [\"*\"]}]\n");
    assert_eq!(decide(&d, &deployment_request()), deployment_call());

    let exact_first = format!(
        "{RULES_EXT_APPS}  - {{operations: [\"*\"], apiGroups: [apps], apiVersions: [v1], resources: [deployments, deployments/scale]}}\n"
    );
    let d = dispatcher(&exact_first);
    assert_eq!(decide(&d, &deployment_request()), deployment_call());
    assert_eq!(
        decide(&d, &scale_request()),
        call(
            ("apps", "v1", "deployments"),
            "scale",
            ("autoscaling", "v1", "Scale")
        )
    );

    let d = dispatcher(&format!("{RULES_EXT_APPS}  matchPolicy: Exact\n"));
    assert_eq!(
        decide(&d, &deployment_request()),
        HookDecision::Skip(SkipReason::Rules)
    );
    assert_eq!(
        decide(&d, &scale_request()),
        HookDecision::Skip(SkipReason::Rules)
    );

    let d = dispatcher(&format!("{RULES_EXT_APPS}  matchPolicy: Equivalent\n"));
    assert_eq!(
        decide(&d, &deployment_request()),
        call(
            ("extensions", "v1beta1", "deployments"),
            "",
            ("extensions", "v1beta1", "Deployment")
        )
    );
    assert_eq!(
        decide(&d, &scale_request()),
        call(
            ("extensions", "v1beta1", "deployments"),
            "scale",
            ("extensions", "v1beta1", "Scale")
        )
    );
    let d = dispatcher(RULES_APPS_EXT);
    assert_eq!(
        decide(&d, &deployment_request()),
        call(
            ("apps", "v1beta1", "deployments"),
            "",
            ("apps", "v1beta1", "Deployment")
        )
    );
    assert_eq!(
        decide(&d, &scale_request()),
        call(
            ("apps", "v1beta1", "deployments"),
            "scale",
            ("apps", "v1beta1", "Scale")
        )
    );
}

#[test]
fn unknown_equivalent_kind_is_an_internal_error() {
    let mut t = ResourceTable::new();
    t.register_with_key(
        "w",
        Gvr::new("example.com", "v1", "widgets"),
        "",
        Gvk::default(),
    );
    t.register_with_key(
        "w",
        Gvr::new("example.com", "v2", "widgets"),
        "",
        Gvk::new("example.com", "v2", "Widget"),
    );
    let text = format!(
        "kind: ValidatingWebhookConfiguration\nmetadata: {{name: c}}\nwebhooks:\n{}",
        hook_yaml("  rules: [{operations: [\"*\"], apiGroups: [example.com], apiVersions: [v1], resources: [widgets]}]\n")
    );
    let d = Dispatcher::with_resources(
        &load_documents(&text).unwrap(),
        KubeVersion::V1_36,
        Arc::new(t),
    );
    let widgets = widgets_v2_request();
    assert_eq!(
        decide(&d, &widgets),
        HookDecision::Reject(Rejection::internal(
            "unable to convert to example.com/v1, Resource=widgets: unknown kind"
        ))
    );
}

const ALL: &str = "  rules: [{operations: [\"*\"], apiGroups: [\"*\"], apiVersions: [\"*\"], resources: [\"*\"]}]\n";

#[test]
fn match_conditions() {
    let err = "{name: e, expression: 'object.nope == 1'}";
    let forbidden = |message: &str| {
        HookDecision::Reject(Rejection::forbidden(
            &Gvr::new("apps", "v1", "deployments"),
            "name",
            message,
        ))
    };
    for (hook, want) in [
        (
            "matchConditions: [{name: t, expression: 'true'}]".to_owned(),
            deployment_call(),
        ),
        (
            "matchConditions: [{name: t, expression: 'true'}, {name: f, expression: 'false'}]"
                .to_owned(),
            HookDecision::Skip(SkipReason::MatchCondition {
                name: Some("f".into()),
            }),
        ),
        (
            format!("matchConditions: [{err}]"),
            HookDecision::Reject(Rejection {
                code: 403,
                reason: "Forbidden",
                message: "deployments.apps \"name\" is forbidden: expression 'object.nope == 1' resulted in error: no such key: nope".into(),
            }),
        ),
        (
            format!("failurePolicy: Ignore\n  matchConditions: [{err}]"),
            HookDecision::Skip(SkipReason::Ignored {
                condition: "e".into(),
                message: "expression 'object.nope == 1' resulted in error: no such key: nope"
                    .into(),
            }),
        ),
        // a failure policy validation would reject: errors fall through to a call
        (
            format!("failurePolicy: Other\n  matchConditions: [{err}]"),
            deployment_call(),
        ),
        // a stored condition that does not compile is an evaluation error
        (
            "matchConditions: [{name: c, expression: '1'}]".to_owned(),
            forbidden("compilation error: must evaluate to bool but got int"),
        ),
    ] {
        let d = dispatcher(&format!("{ALL}  {hook}\n"));
        assert_eq!(decide(&d, &deployment_request()), want, "{hook}");
    }
    let d = dispatcher(&format!(
        "{ALL}  matchConditions: [{{name: c, expression: '1'}}]\n"
    ));
    // without a name, and for the core group
    let mut pod = request(("", "v1", "Pod"), ("", "v1", "pods"), "");
    pod["name"] = json!("");
    assert_eq!(
        decide(&d, &pod),
        HookDecision::Reject(Rejection::forbidden(
            &Gvr::new("", "v1", "pods"),
            "",
            "compilation error: must evaluate to bool but got int"
        ))
    );
    assert_eq!(
        Rejection::forbidden(&Gvr::new("", "v1", "pods"), "", "x").message,
        "pods is forbidden: x"
    );
    assert_eq!(
        Rejection::forbidden(&Gvr::default(), "n", "x").message,
        "forbidden: x"
    );
}

#[test]
fn cel_request_kind_is_the_invocation_kind() {
    let body = format!(
        "{RULES_APPS_EXT}  matchConditions:\n  - {{name: kind, expression: \"request.kind.version == 'v1beta1' && request.kind.kind == 'Deployment'\"}}\n  - {{name: resource, expression: \"request.resource.version == 'v1' && request.requestResource.version == 'v1' && request.requestKind.version == 'v1'\"}}\n  - {{name: fields, expression: \"!has(request.subResource) && request.name == 'name' && request.userInfo.username == 'alice' && request.dryRun == false\"}}\n"
    );
    let d = dispatcher(&body);
    let outcome = d
        .decide_at(0, &deployment_request(), &NoNamespaces)
        .unwrap()
        .unwrap();
    assert_eq!(
        outcome.old(),
        call(
            ("apps", "v1beta1", "deployments"),
            "",
            ("apps", "v1beta1", "Deployment")
        )
    );
    let report = outcome.conditions.unwrap();
    assert_eq!(report.conditions.len(), 3);
    assert_eq!(report.decision, Decision::Call);
}

#[test]
fn namespace_selector() {
    let sel = "  namespaceSelector: {matchLabels: {env: prod}}\n";
    let d = dispatcher(&format!("{ALL}{sel}"));
    let prod: BTreeMap<String, Labels> = [(
        "ns".to_owned(),
        Labels::from([("env".to_owned(), "prod".to_owned())]),
    )]
    .into();
    let dev: BTreeMap<String, Labels> = [(
        "ns".to_owned(),
        Labels::from([("env".to_owned(), "dev".to_owned())]),
    )]
    .into();
    let req = deployment_request();
    let call_it = deployment_call();
    assert_eq!(d.decide_at(0, &req, &prod).unwrap().unwrap().old(), call_it);
    assert_eq!(
        d.decide_at(0, &req, &dev).unwrap().unwrap().old(),
        HookDecision::Skip(SkipReason::NamespaceSelector)
    );
    // not found: 404, but only when a rule matches
    assert_eq!(
        d.decide_at(0, &req, &NoNamespaces).unwrap().unwrap().old(),
        HookDecision::Reject(Rejection {
            code: 404,
            reason: "NotFound",
            message: "namespaces \"ns\" not found".into()
        })
    );
    let no_rules = dispatcher(sel);
    assert_eq!(
        no_rules
            .decide_at(0, &req, &NoNamespaces)
            .unwrap()
            .unwrap()
            .old(),
        HookDecision::Skip(SkipReason::Rules)
    );
    let failing = NamespaceFn(|_: &str| -> Result<Option<Labels>, String> { Err("boom".into()) });
    assert_eq!(
        d.decide_at(0, &req, &failing).unwrap().unwrap().old(),
        HookDecision::Reject(Rejection::internal("boom"))
    );
    // cluster-scoped objects are never exempted
    let mut cluster = request(
        ("rbac.authorization.k8s.io", "v1", "ClusterRole"),
        ("rbac.authorization.k8s.io", "v1", "clusterroles"),
        "",
    );
    cluster["namespace"] = json!("");
    assert_eq!(
        d.decide_at(0, &cluster, &NoNamespaces)
            .unwrap()
            .unwrap()
            .old(),
        call(
            ("rbac.authorization.k8s.io", "v1", "clusterroles"),
            "",
            ("rbac.authorization.k8s.io", "v1", "ClusterRole")
        )
    );
    // an empty selector never looks the namespace up
    let any = dispatcher(ALL);
    assert_eq!(
        any.decide_at(0, &req, &NoNamespaces)
            .unwrap()
            .unwrap()
            .old(),
        call_it
    );
}

#[test]
fn namespace_objects_use_their_own_labels() {
    let d = dispatcher(&format!(
        "{ALL}  namespaceSelector: {{matchLabels: {{env: prod}}}}\n"
    ));
    let mut ns = request(("", "v1", "Namespace"), ("", "v1", "namespaces"), "");
    ns["namespace"] = json!("team");
    ns["name"] = json!("team");
    ns["object"] = json!({"metadata": {"name": "team", "labels": {"env": "prod"}}});
    let lister = AnyNamespace(Labels::new());
    let call_ns = call(("", "v1", "namespaces"), "", ("", "v1", "Namespace"));
    assert_eq!(
        d.decide_at(0, &ns, &lister).unwrap().unwrap().old(),
        call_ns
    );
    ns["operation"] = json!("UPDATE");
    assert_eq!(
        d.decide_at(0, &ns, &lister).unwrap().unwrap().old(),
        call_ns
    );
    // DELETE looks the namespace up
    ns["operation"] = json!("DELETE");
    assert_eq!(
        d.decide_at(0, &ns, &lister).unwrap().unwrap().old(),
        HookDecision::Skip(SkipReason::NamespaceSelector)
    );
    // subresources look it up too
    ns["operation"] = json!("UPDATE");
    ns["subResource"] = json!("finalize");
    assert_eq!(
        d.decide_at(0, &ns, &lister).unwrap().unwrap().old(),
        HookDecision::Skip(SkipReason::NamespaceSelector)
    );
    // an object without metadata
    ns["subResource"] = json!("");
    ns["object"] = json!({"spec": {}});
    assert_eq!(
        d.decide_at(0, &ns, &lister).unwrap().unwrap().old(),
        HookDecision::Reject(Rejection::internal(
            "object does not implement the Object interfaces"
        ))
    );
    // a namespace request without a name, deleted: the lookup of "" fails
    ns["operation"] = json!("DELETE");
    ns["namespace"] = json!("");
    assert_eq!(
        d.decide_at(0, &ns, &NoNamespaces).unwrap().unwrap().old(),
        HookDecision::Reject(Rejection::internal("resource name may not be empty"))
    );
}

#[test]
fn object_selector() {
    let d = dispatcher(&format!(
        "{ALL}  objectSelector: {{matchLabels: {{app: web}}}}\n"
    ));
    let call_it = deployment_call();
    let mut req = deployment_request();
    assert_eq!(decide(&d, &req), call_it);
    req["object"] = json!({"metadata": {"labels": {"app": "db"}}});
    assert_eq!(
        decide(&d, &req),
        HookDecision::Skip(SkipReason::ObjectSelector)
    );
    req["oldObject"] = json!({"metadata": {"labels": {"app": "web"}}});
    assert_eq!(decide(&d, &req), call_it);
    // objects without metadata (options kinds) never match
    req["object"] = json!({"kind": "PodExecOptions"});
    req["oldObject"] = json!(null);
    assert_eq!(
        decide(&d, &req),
        HookDecision::Skip(SkipReason::ObjectSelector)
    );
    // an empty selector matches even without objects
    let any = dispatcher(ALL);
    req["object"] = json!(null);
    assert_eq!(decide(&any, &req), call_it);
}

#[test]
fn selector_errors_surface_only_for_matching_rules() {
    let bad = "  objectSelector: {matchExpressions: [{key: a, operator: Bogus}]}\n";
    let d = dispatcher(&format!("{ALL}{bad}"));
    assert_eq!(
        decide(&d, &deployment_request()),
        HookDecision::Reject(Rejection::internal(
            "\"Bogus\" is not a valid label selector operator"
        ))
    );
    let d = dispatcher(bad);
    assert_eq!(
        decide(&d, &deployment_request()),
        HookDecision::Skip(SkipReason::Rules)
    );
    // the namespace error comes before the object error
    let d = dispatcher(&format!(
        "{ALL}{bad}  namespaceSelector: {{matchLabels: {{env: prod}}}}\n"
    ));
    assert_eq!(
        decide(&d, &deployment_request()),
        HookDecision::Reject(Rejection::namespace_not_found("ns"))
    );
}

#[test]
fn exempt_configuration_kinds() {
    let d = dispatcher(ALL);
    let req = request(
        (
            "admissionregistration.k8s.io",
            "v1",
            "ValidatingWebhookConfiguration",
        ),
        (
            "admissionregistration.k8s.io",
            "v1",
            "validatingwebhookconfigurations",
        ),
        "",
    );
    assert_eq!(decide(&d, &req), HookDecision::Skip(SkipReason::ExemptKind));
    // by kind, not resource
    let req = request(
        ("example.com", "v1", "ValidatingWebhookConfiguration"),
        (
            "admissionregistration.k8s.io",
            "v1",
            "validatingwebhookconfigurations",
        ),
        "",
    );
    assert!(matches!(decide(&d, &req), HookDecision::Call(_)));
}

fn dry_run_decision(side_effects: Option<&str>, policy: &str) -> HookDecision {
    let se = side_effects
        .map(|s| format!("  sideEffects: {s}\n"))
        .unwrap_or_default();
    let text = format!(
        "kind: MutatingWebhookConfiguration\nmetadata: {{name: c}}\nwebhooks:\n- name: dry.example.com\n  admissionReviewVersions: [v1]\n  clientConfig: {{url: \"https://example.com\"}}\n  failurePolicy: {policy}\n{se}{ALL}"
    );
    let d = Dispatcher::new(&load_documents(&text).unwrap(), KubeVersion::V1_36);
    let mut req = deployment_request();
    req["dryRun"] = json!(true);
    d.decide_at(0, &req, &NoNamespaces).unwrap().unwrap().old()
}

#[test]
fn dry_run() {
    assert!(matches!(
        dry_run_decision(Some("None"), "Fail"),
        HookDecision::Call(_)
    ));
    assert!(matches!(
        dry_run_decision(Some("NoneOnDryRun"), "Fail"),
        HookDecision::Call(_)
    ));
    for se in ["Unknown", "Some"] {
        for policy in ["Fail", "Ignore"] {
            assert_eq!(
                dry_run_decision(Some(se), policy),
                HookDecision::Reject(Rejection {
                    code: 400,
                    reason: "BadRequest",
                    message: "admission webhook \"dry.example.com\" does not support dry run"
                        .into()
                })
            );
        }
    }
    assert_eq!(
        dry_run_decision(None, "Fail"),
        HookDecision::Reject(Rejection::internal(
            "failed calling webhook \"dry.example.com\": Webhook SideEffects is nil"
        ))
    );
    assert_eq!(
        dry_run_decision(None, "Ignore"),
        HookDecision::Skip(SkipReason::SideEffectsUnsetIgnored)
    );
}

#[test]
fn order_uids_and_dispatch() {
    let text = r#"
kind: ValidatingWebhookConfiguration
metadata: {name: b}
webhooks:
- name: dup.example.com
  sideEffects: Unknown
  admissionReviewVersions: [v1]
  clientConfig: {url: "https://example.com"}
  rules: [{operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"]}]
- name: dup.example.com
  sideEffects: None
  admissionReviewVersions: [v1]
  clientConfig: {url: "https://example.com"}
  rules: [{operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"]}]
---
kind: ValidatingWebhookConfiguration
metadata: {name: a}
webhooks:
- name: first.example.com
  sideEffects: None
  admissionReviewVersions: [v1]
  clientConfig: {url: "https://example.com"}
  rules: [{operations: [DELETE], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"]}]
---
kind: MutatingWebhookConfiguration
metadata: {name: z}
webhooks:
- name: mutating.example.com
  sideEffects: None
  admissionReviewVersions: [v1]
  clientConfig: {url: "https://example.com"}
  rules: [{operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"]}]
  matchConditions: [{name: not-dry, expression: "!request.dryRun"}]
"#;
    let d = Dispatcher::new(&load_documents(text).unwrap(), KubeVersion::V1_36);
    let uids: Vec<&str> = d.hooks().map(|h| h.uid.as_str()).collect();
    assert_eq!(
        uids,
        [
            "z/mutating.example.com/0",
            "a/first.example.com/0",
            "b/dup.example.com/0",
            "b/dup.example.com/1"
        ]
    );
    let mut req = deployment_request();
    let out = d.dispatch(&req, &NoNamespaces).unwrap();
    assert_eq!(out.rejection, None);
    let called: Vec<&str> = out.called().map(|(h, _)| h.uid.as_str()).collect();
    assert_eq!(
        called,
        [
            "z/mutating.example.com/0",
            "b/dup.example.com/0",
            "b/dup.example.com/1"
        ]
    );
    // a dry run: the mutating webhook is skipped by its condition, the first validating one
    // cannot take a dry run; every validating decision is still made
    req["dryRun"] = json!(true);
    let out = d.dispatch(&req, &NoNamespaces).unwrap();
    assert_eq!(out.hooks.len(), 4);
    assert_eq!(
        out.hooks[0].old(),
        HookDecision::Skip(SkipReason::MatchCondition {
            name: Some("not-dry".into())
        })
    );
    assert_eq!(
        out.rejection.as_ref().map(|r| r.message.as_str()),
        Some("admission webhook \"dup.example.com\" does not support dry run")
    );
    assert!(matches!(out.hooks[3].old(), HookDecision::Call(_)));
    // a rejection while deciding stops the chain
    let text = format!(
        "kind: MutatingWebhookConfiguration\nmetadata: {{name: m}}\nwebhooks:\n{}{}",
        hook_yaml(&format!(
            "{ALL}  matchConditions: [{{name: e, expression: 'object.nope'}}]\n"
        )),
        hook_yaml(ALL)
    );
    let d = Dispatcher::new(&load_documents(&text).unwrap(), KubeVersion::V1_36);
    let out = d.dispatch(&deployment_request(), &NoNamespaces).unwrap();
    assert_eq!(out.hooks.len(), 1);
    assert_eq!(
        out.rejection.unwrap().message,
        "deployments.apps \"name\" is forbidden: compilation error: must evaluate to bool but got dyn"
    );
}

#[test]
fn request_errors() {
    let d = dispatcher(ALL);
    assert_eq!(
        d.decide_at(0, &json!([]), &NoNamespaces).unwrap_err(),
        RequestError::NotAnObject
    );
    assert_eq!(
        d.decide_at(0, &json!({"kind": {"group": 1}}), &NoNamespaces)
            .unwrap_err()
            .to_string(),
        "the admission request's field kind.group must be a string"
    );
    assert_eq!(
        d.decide_at(0, &json!({"dryRun": "yes"}), &NoNamespaces)
            .unwrap_err()
            .to_string(),
        "the admission request's field dryRun must be a boolean"
    );
    assert_eq!(d.decide_at(5, &json!({}), &NoNamespaces).unwrap(), None);
    assert_eq!(
        d.decide_webhook("nope", &json!({}), &NoNamespaces).unwrap(),
        None
    );
    assert!(d.decide_webhook("nope", &json!([]), &NoNamespaces).is_err());
}

#[test]
fn webhooks_are_found_by_name_or_uid() {
    let configs = load_documents(
        r#"
kind: ValidatingWebhookConfiguration
metadata: {name: b}
webhooks:
- {name: same.example.com, sideEffects: None, admissionReviewVersions: [v1], clientConfig: {url: "https://b"}, rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]}
- {name: other.example.com, sideEffects: None, admissionReviewVersions: [v1], clientConfig: {url: "https://b"}}
---
kind: MutatingWebhookConfiguration
metadata: {name: a}
webhooks:
- {name: same.example.com, sideEffects: None, admissionReviewVersions: [v1], clientConfig: {url: "https://a"}}
"#,
    )
    .unwrap();
    let d = Dispatcher::new(&configs, KubeVersion::V1_34);
    // Mutating webhooks come first in dispatch order: a repeated name finds that one.
    assert_eq!(
        d.webhook("same.example.com").unwrap().uid,
        "a/same.example.com/0"
    );
    assert_eq!(
        d.webhook("b/same.example.com/0").unwrap().kind,
        HookKind::Validating
    );
    assert_eq!(d.webhook("other.example.com").unwrap().configuration, "b");
    assert!(d.webhook("b").is_none());
    let req = request(("", "v1", "Pod"), ("", "v1", "pods"), "");
    let by_uid = d
        .decide_webhook("b/same.example.com/0", &req, &NoNamespaces)
        .unwrap()
        .unwrap();
    assert_eq!(by_uid.hook.uid, "b/same.example.com/0");
    assert_eq!(
        by_uid.old(),
        d.decide_at(1, &req, &NoNamespaces).unwrap().unwrap().old()
    );
    let other = d
        .decide_webhook("other.example.com", &req, &NoNamespaces)
        .unwrap()
        .unwrap();
    assert_eq!(other.old(), HookDecision::Skip(SkipReason::Rules));
    assert_eq!(other.skip_text().as_deref(), Some("no rule matches"));
}

#[test]
fn attributes_prefer_the_original_request() {
    let a = Attributes::from_request(&json!({
        "kind": {"group": "apps", "version": "v1beta1", "kind": "Deployment"},
        "resource": {"group": "apps", "version": "v1beta1", "resource": "deployments"},
        "subResource": "scale",
        "requestKind": {"group": "apps", "version": "v1", "kind": "Deployment"},
        "requestResource": {"group": "apps", "version": "v1", "resource": "deployments"},
        "operation": "UPDATE", "dryRun": true
    }))
    .unwrap();
    assert_eq!(a.kind, Gvk::new("apps", "v1", "Deployment"));
    assert_eq!(a.resource, Gvr::new("apps", "v1", "deployments"));
    assert_eq!(a.subresource, "");
    assert!(a.dry_run);
}

#[test]
fn attributes_name_the_field_of_the_wrong_type() {
    let wrong = |request: Json| Attributes::from_request(&request).unwrap_err().to_string();
    let field = |path: &str, expected: &str| {
        format!("the admission request's field {path} must be {expected}")
    };
    let resource = json!({"group": "", "version": "v1", "resource": "pods"});
    assert_eq!(
        wrong(json!({"requestResource": {"group": "", "version": 1, "resource": "pods"}})),
        field("requestResource.version", "a string")
    );
    assert_eq!(
        wrong(json!({"resource": {"group": "", "version": "v1", "resource": ["pods"]}})),
        field("resource.resource", "a string")
    );
    assert_eq!(
        wrong(json!({"resource": resource, "requestKind": {"group": true}})),
        field("requestKind.group", "a string")
    );
    assert_eq!(
        wrong(json!({"resource": resource, "kind": {"group": "", "version": "v1", "kind": 3}})),
        field("kind.kind", "a string")
    );
    assert_eq!(
        wrong(json!({"resource": "pods"})),
        field("resource", "an object")
    );
    assert_eq!(
        wrong(json!({"requestResource": resource, "requestSubResource": 0})),
        field("requestSubResource", "a string")
    );
    assert_eq!(
        wrong(json!({"resource": resource, "subResource": {}})),
        field("subResource", "a string")
    );
    for member in ["name", "namespace", "operation"] {
        assert_eq!(
            wrong(json!({"resource": resource, member: 1})),
            field(member, "a string")
        );
    }
    assert_eq!(
        wrong(json!({"resource": resource, "dryRun": "true"})),
        field("dryRun", "a boolean")
    );
    assert_eq!(
        wrong(json!([])),
        "the admission request must be a JSON object"
    );
    // Absent and null members are empty.
    let a = Attributes::from_request(&json!({"resource": null, "name": null})).unwrap();
    assert_eq!(a.resource, Gvr::new("", "", ""));
    assert_eq!((a.name.as_str(), a.dry_run), ("", false));
}

#[test]
fn equivalent_builtin_resources() {
    let text = format!(
        "kind: ValidatingWebhookConfiguration\nmetadata: {{name: c}}\nwebhooks:\n{}",
        hook_yaml("  rules: [{operations: [\"*\"], apiGroups: [events.k8s.io], apiVersions: [v1], resources: [events]}]\n")
    );
    let d = Dispatcher::new(&load_documents(&text).unwrap(), KubeVersion::V1_36);
    let req = request(("", "v1", "Event"), ("", "v1", "events"), "");
    assert_eq!(
        decide(&d, &req),
        call(
            ("events.k8s.io", "v1", "events"),
            "",
            ("events.k8s.io", "v1", "Event")
        )
    );
}

/// The conditions of a webhook on every request (`ALL`-like rules on deployments).
const RULES_APPS_V1: &str = "  rules:\n  - {operations: [\"*\"], apiGroups: [apps], apiVersions: [v1], resources: [deployments, deployments/scale]}\n";

/// Decides one webhook with `rules` and one condition per expression: the decision and the
/// conditions' results.
fn conditions_on(
    rules: &str,
    expressions: &[&str],
    request: &Json,
) -> (Decision<'static>, Vec<String>) {
    let mut body = format!("{rules}  matchConditions:\n");
    for (i, e) in expressions.iter().enumerate() {
        body.push_str(&format!("  - {{name: c{i}, expression: {}}}\n", json!(e)));
    }
    let d = dispatcher(&body);
    let outcome = d.decide_at(0, request, &NoNamespaces).unwrap().unwrap();
    let report = outcome.conditions.unwrap();
    let results = report
        .conditions
        .iter()
        .map(|c| format!("{:?}", c.outcome))
        .collect();
    (report.decision, results)
}

#[test]
fn the_request_view_hides_uid_and_objects_and_the_users_empty_members() {
    let mut request = deployment_request();
    request["uid"] = json!("705ab4f5-6393-11e8-b7cc-42010a800002");
    request["oldObject"] = json!({"metadata": {"name": "old"}});
    request["userInfo"] = json!({"username": "alice", "uid": "", "groups": [], "extra": {}});
    let expressions = [
        "dyn(request).uid == ''",
        "dyn(request).object == null && dyn(request).oldObject == null",
        "object.metadata.name == 'name' && oldObject.metadata.name == 'old'",
        "request.userInfo.username == 'alice' && !has(request.userInfo.uid) && !has(request.userInfo.groups) && !has(request.userInfo.extra)",
        "size(dyn(request.userInfo)) == 1",
        "dyn(request).all(k, k in ['dryRun', 'kind', 'name', 'namespace', 'object', 'oldObject', 'operation', 'options', 'requestKind', 'requestResource', 'resource', 'uid', 'userInfo'])",
        "size(dyn(request)) == 13",
    ];
    let (decision, results) = conditions_on(RULES_APPS_V1, &expressions, &request);
    assert_eq!(results, vec!["Value(true)"; expressions.len()]);
    assert_eq!(decision, Decision::Call);
}

#[test]
fn the_request_view_shows_the_invocation_kind_not_the_reviews() {
    // A review as sent to a webhook of another version: its `kind` is the converted one,
    // the attributes (and an exact rule match) are the original request's.
    let mut request = deployment_request();
    request["kind"] = json!({"group": "apps", "version": "v1beta1", "kind": "Deployment"});
    request["resource"] = json!({"group": "apps", "version": "v1beta1", "resource": "deployments"});
    request["requestKind"] = json!({"group": "apps", "version": "v1", "kind": "Deployment"});
    request["requestResource"] =
        json!({"group": "apps", "version": "v1", "resource": "deployments"});
    let expressions = [
        "request.kind.version == 'v1' && request.requestKind.version == 'v1'",
        "request.resource.version == 'v1' && request.requestResource.version == 'v1'",
        "dyn(request).kind == {'group': 'apps', 'version': 'v1', 'kind': 'Deployment'}",
    ];
    let (decision, results) = conditions_on(RULES_APPS_V1, &expressions, &request);
    assert_eq!(results, vec!["Value(true)"; expressions.len()]);
    assert_eq!(decision, Decision::Call);
    // Converted by an equivalent rule, the kind is the equivalent resource's.
    let (_, results) = conditions_on(
        RULES_APPS_EXT,
        &["request.kind.version == 'v1beta1' && request.requestKind.version == 'v1'"],
        &request,
    );
    assert_eq!(results, ["Value(true)"]);
}

#[test]
fn a_request_whose_members_disagree_with_its_attributes_is_seen_as_its_attributes() {
    // `requestResource` given: the subresource is `requestSubResource` (empty), whatever
    // `subResource` says; a `userInfo` that is not an object is the empty user.
    let mut request = deployment_request();
    request["requestResource"] =
        json!({"group": "apps", "version": "v1", "resource": "deployments"});
    request["subResource"] = json!("status");
    request["userInfo"] = json!("alice");
    let expressions = [
        "!has(request.subResource) && !has(request.requestSubResource)",
        "size(dyn(request.userInfo)) == 0",
        "object.metadata.name == 'name'",
    ];
    let (decision, results) = conditions_on(RULES_APPS_V1, &expressions, &request);
    assert_eq!(results, vec!["Value(true)"; expressions.len()]);
    assert_eq!(decision, Decision::Call);
}
