#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::io::Write;
use std::sync::Arc;

use matchcond_compiler::KubeVersion;
use serde_json::{json, Value as Json};

use super::*;
use crate::dispatch::Dispatcher;
use crate::load::load_documents;
use crate::namespaces::Labels;
use crate::request::catalog::{Catalog, Operation};

fn event(verb: &str, resource: &str, sub: &str, level: &str, extra: serde_json::Value) -> String {
    let mut e = json!({
        "kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": level,
        "auditID": "6b5f2f8a-0c6e-4f7e-9d4a-000000000001", "stage": "ResponseComplete",
        "requestURI": format!("/api/v1/namespaces/shop/{resource}"), "verb": verb,
        "user": {"username": "alice", "groups": ["devs", "system:authenticated"]},
        "objectRef": {"resource": resource, "namespace": "shop", "name": "web-0",
                      "apiVersion": "v1", "subresource": sub},
        "responseStatus": {"metadata": {}, "code": 200},
        "requestReceivedTimestamp": "2024-05-01T12:34:56.123456Z",
        "stageTimestamp": "2024-05-01T12:34:56.223456Z",
        "annotations": {"authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": ""}
    });
    if let (Some(m), serde_json::Value::Object(x)) = (e.as_object_mut(), extra) {
        for (k, v) in x {
            m.insert(k, v);
        }
    }
    e.to_string()
}

#[test]
fn events_are_read_and_bad_lines_are_told_apart() {
    let line = event("create", "pods", "", "Metadata", json!({}));
    let e = Event::from_line(line.as_bytes()).unwrap();
    assert_eq!(e.level, Level::Metadata);
    assert_eq!(e.stage, Stage::ResponseComplete);
    assert_eq!(e.object_ref.as_ref().unwrap().resource, "pods");
    let cut = &line[..line.len() / 2];
    assert!(matches!(
        Event::from_line(cut.as_bytes()),
        Err(EventError::Json(_))
    ));
    let other = r#"{"kind":"Pod","apiVersion":"v1","metadata":{}}"#;
    assert_eq!(
        Event::from_line(other.as_bytes()).unwrap_err().to_string(),
        "not an audit event: kind \"Pod\""
    );
    let beta = line.replace("audit.k8s.io/v1", "audit.k8s.io/v1beta1");
    assert_eq!(
        Event::from_line(beta.as_bytes()).unwrap_err().to_string(),
        "unsupported apiVersion \"audit.k8s.io/v1beta1\" (expected \"audit.k8s.io/v1\")"
    );
    assert!(matches!(
        Event::from_line(b"[1,2]"),
        Err(EventError::NotAnEvent(_))
    ));
}

#[test]
fn the_passage_through_admission_follows_the_verb_and_the_response() {
    let cases = [
        (
            "create",
            "pods",
            "",
            json!({}),
            Passage::Admitted(Operation::Create),
        ),
        (
            "update",
            "pods",
            "status",
            json!({}),
            Passage::Admitted(Operation::Update),
        ),
        (
            "patch",
            "pods",
            "",
            json!({}),
            Passage::Admitted(Operation::Update),
        ),
        (
            "patch",
            "pods",
            "",
            json!({"responseStatus": {"code": 201}}),
            Passage::Admitted(Operation::Create),
        ),
        (
            "delete",
            "pods",
            "",
            json!({}),
            Passage::Admitted(Operation::Delete),
        ),
        (
            "deletecollection",
            "pods",
            "",
            json!({}),
            Passage::Admitted(Operation::Delete),
        ),
        (
            "get",
            "pods",
            "exec",
            json!({}),
            Passage::Admitted(Operation::Connect),
        ),
        (
            "create",
            "pods",
            "exec",
            json!({}),
            Passage::Admitted(Operation::Connect),
        ),
        ("get", "pods", "", json!({}), Passage::Read),
        ("watch", "pods", "", json!({}), Passage::Read),
        ("get", "pods", "log", json!({}), Passage::Read),
        (
            "create",
            "pods",
            "",
            json!({"responseStatus": {"code": 401}}),
            Passage::Unauthenticated,
        ),
        (
            "create",
            "pods",
            "",
            json!({"annotations": {"authorization.k8s.io/decision": "forbid"}}),
            Passage::Forbidden,
        ),
        (
            "create",
            "pods",
            "",
            json!({"objectRef": null}),
            Passage::NonResource,
        ),
        // 404: no object to update or delete, no namespace to create in, before admission;
        // a subresource's create and a CONNECT look their object up after it.
        (
            "delete",
            "pods",
            "",
            json!({"responseStatus": {"code": 404}}),
            Passage::NotFound,
        ),
        (
            "patch",
            "pods",
            "status",
            json!({"responseStatus": {"code": 404}}),
            Passage::NotFound,
        ),
        (
            "create",
            "pods",
            "",
            json!({"responseStatus": {"code": 404}}),
            Passage::NotFound,
        ),
        (
            "create",
            "pods",
            "eviction",
            json!({"responseStatus": {"code": 404}}),
            Passage::Admitted(Operation::Create),
        ),
        (
            "create",
            "pods",
            "exec",
            json!({"responseStatus": {"code": 404}}),
            Passage::Admitted(Operation::Connect),
        ),
        (
            "delete",
            "pods",
            "",
            json!({"responseStatus": {"code": 409}}),
            Passage::Admitted(Operation::Delete),
        ),
        // Priority and fairness answers 429 before authorization decides; a webhook's 429
        // comes after it.
        (
            "create",
            "pods",
            "",
            json!({"responseStatus": {"code": 429}, "annotations": null}),
            Passage::Throttled,
        ),
        (
            "create",
            "pods",
            "",
            json!({"responseStatus": {"code": 429}}),
            Passage::Admitted(Operation::Create),
        ),
    ];
    for (verb, res, sub, extra, want) in cases {
        let line = event(verb, res, sub, "Metadata", extra.clone());
        let e = Event::from_line(line.as_bytes()).unwrap();
        assert_eq!(
            passage(&e, &Catalog::builtin()),
            want,
            "{verb} {res}/{sub} {extra}"
        );
    }
}

#[test]
fn the_admission_request_holds_what_the_event_recorded() {
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-0", "labels": {"app": "web"}}});
    let line = event(
        "create",
        "pods",
        "",
        "RequestResponse",
        json!({"requestObject": pod, "requestURI": "/api/v1/namespaces/shop/pods?dryRun=All&fieldManager=kubectl%20apply",
               "impersonatedUser": {"username": "bob", "groups": ["ops"], "extra": {"scopes": ["a"]}}}),
    );
    let e = Event::from_line(line.as_bytes()).unwrap();
    let r = admission_request(&e, &Catalog::builtin()).unwrap();
    assert!(r.missing.is_empty(), "{:?}", r.missing);
    assert_eq!(
        r.request,
        json!({
            "uid": "6b5f2f8a-0c6e-4f7e-9d4a-000000000001",
            "kind": {"group": "", "version": "v1", "kind": "Pod"},
            "resource": {"group": "", "version": "v1", "resource": "pods"},
            "requestKind": {"group": "", "version": "v1", "kind": "Pod"},
            "requestResource": {"group": "", "version": "v1", "resource": "pods"},
            "name": "web-0", "namespace": "shop", "operation": "CREATE",
            "userInfo": {"username": "bob", "groups": ["ops"], "extra": {"scopes": ["a"]}},
            "dryRun": true,
            "options": {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1", "dryRun": ["All"], "fieldManager": "kubectl apply"},
            // In the request's namespace, as the handler puts it before admission.
            "object": {"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": "web-0", "namespace": "shop", "labels": {"app": "web"}}},
            "oldObject": null
        })
    );
    // Metadata level: no object; an update never has its old object.
    let line = event("update", "pods", "", "Metadata", json!({}));
    let r = admission_request(
        &Event::from_line(line.as_bytes()).unwrap(),
        &Catalog::builtin(),
    )
    .unwrap();
    assert_eq!(r.missing.names(), ["object", "oldObject"]);
    // A delete at level Request records its options; at Metadata they are missing.
    let opts = json!({"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1", "propagationPolicy": "Foreground"});
    let line = event(
        "delete",
        "configmaps",
        "",
        "Request",
        json!({"requestObject": opts}),
    );
    let r = admission_request(
        &Event::from_line(line.as_bytes()).unwrap(),
        &Catalog::builtin(),
    )
    .unwrap();
    assert_eq!(r.missing.names(), ["oldObject"]);
    assert_eq!(r.request["options"], opts);
    assert_eq!(r.request["object"], json!(null));
    let line = event("delete", "pods", "", "Metadata", json!({}));
    let r = admission_request(
        &Event::from_line(line.as_bytes()).unwrap(),
        &Catalog::builtin(),
    )
    .unwrap();
    assert_eq!(r.missing.names(), ["oldObject", "options", "dryRun"]);
    // A patch's body is the patch, not the object; an unknown resource has no kind.
    let line = event(
        "patch",
        "widgets",
        "",
        "Request",
        json!({"requestObject": {"spec": {}}}),
    );
    let r = admission_request(
        &Event::from_line(line.as_bytes()).unwrap(),
        &Catalog::builtin(),
    )
    .unwrap();
    assert_eq!(r.missing.names(), ["kind", "object", "oldObject"]);
    // A read has none.
    let line = event("get", "pods", "", "Metadata", json!({}));
    assert_eq!(
        admission_request(
            &Event::from_line(line.as_bytes()).unwrap(),
            &Catalog::builtin()
        )
        .unwrap_err(),
        NotAdmitted::Passage(Passage::Read)
    );
}

/// A CONNECT's object is the connecter's options, rebuilt from the request URI (recorded
/// at every level); it is never a dry run and has no options.
/// The request of a DELETE whose event is `level` with `extra` members, at `uri`.
fn delete_request(level: &str, uri: &str, extra: Json) -> AuditRequest {
    let mut line: Json = serde_json::from_str(&event("delete", "pods", "", level, extra)).unwrap();
    line["requestURI"] = json!(uri);
    admission_request(
        &Event::from_line(line.to_string().as_bytes()).unwrap(),
        &Catalog::builtin(),
    )
    .unwrap()
}

#[test]
fn a_delete_takes_its_options_and_dry_run_from_its_body() {
    // The body as a log records it, in the version the client sent: decoded into meta/v1
    // DeleteOptions (what it does not have dropped, nulls and an empty list omitted), the
    // unsafe-delete option cleared, the query not read.
    let body = json!({
        "kind": "DeleteOptions", "apiVersion": "v1", "dryRun": ["All"],
        "gracePeriodSeconds": null, "propagationPolicy": "Background",
        "ignoreStoreReadErrorWithClusterBreakingPotential": true,
        "preconditions": {"uid": "u-1", "resourceVersion": null}, "extra": 1
    });
    let r = delete_request(
        "Request",
        "/api/v1/namespaces/shop/pods/web-0",
        json!({"requestObject": body}),
    );
    assert_eq!(
        r.request["options"],
        json!({
            "kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1", "dryRun": ["All"],
            "propagationPolicy": "Background", "preconditions": {"uid": "u-1"}
        })
    );
    assert_eq!(r.request["dryRun"], json!(true));
    // A pod's grace period is then set from the stored pod.
    assert_eq!(r.missing.names(), ["oldObject", "options"]);
    // A body without dryRun is no dry run, whatever the query says.
    let r = delete_request(
        "RequestResponse",
        "/api/v1/namespaces/shop/pods/web-0?dryRun=All",
        json!({"requestObject": {"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1", "dryRun": []}}),
    );
    assert_eq!(
        r.request["options"],
        json!({"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1"})
    );
    assert_eq!(r.request["dryRun"], json!(false));
    // No body (nothing recorded at level Request): the query's.
    let r = delete_request(
        "Request",
        "/api/v1/namespaces/shop/pods/web-0?dryRun=All&gracePeriodSeconds=5&orphanDependents=FALSE",
        json!({}),
    );
    assert_eq!(
        r.request["options"],
        json!({
            "kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1", "dryRun": ["All"],
            "gracePeriodSeconds": 5, "orphanDependents": false
        })
    );
    assert_eq!(r.request["dryRun"], json!(true));
    // Level Metadata records neither body nor whether one was sent.
    let r = delete_request(
        "Metadata",
        "/api/v1/namespaces/shop/pods/web-0?dryRun=All",
        json!({}),
    );
    assert_eq!(r.missing.names(), ["oldObject", "options", "dryRun"]);
}

#[test]
fn a_dry_run_the_event_does_not_tell_leaves_what_depends_on_it_undetermined() {
    let s = side(
        r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: deletes}
webhooks:
- name: not-dry-run.example.com
  clientConfig: {url: "https://example.com"}
  sideEffects: None
  admissionReviewVersions: [v1]
  rules: [{operations: [DELETE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
  matchConditions:
  - {name: not-dry-run, expression: "!request.dryRun"}
- name: name.example.com
  clientConfig: {url: "https://example.com"}
  sideEffects: None
  admissionReviewVersions: [v1]
  rules: [{operations: [DELETE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
  matchConditions:
  - {name: web, expression: "request.name == 'web-0'"}
- name: side-effects.example.com
  clientConfig: {url: "https://example.com"}
  sideEffects: Some
  admissionReviewVersions: [v1]
  rules: [{operations: [DELETE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
"#,
    );
    let at = |level: &str, extra: Json| {
        let mut line: Json =
            serde_json::from_str(&event("delete", "pods", "", level, extra)).unwrap();
        line["requestURI"] = json!("/api/v1/namespaces/shop/pods/web-0");
        decide(&s, &line.to_string(), None)
    };
    // Level Metadata: what reads dryRun, and a webhook a dry run would not call.
    assert_eq!(
        at("Metadata", json!({})),
        [
            Verdict::Undetermined,
            Verdict::Called,
            Verdict::Undetermined
        ]
    );
    let dry =
        json!({"requestObject": {"kind": "DeleteOptions", "apiVersion": "v1", "dryRun": ["All"]}});
    assert_eq!(
        at("Request", dry),
        [Verdict::Skipped(0), Verdict::Called, Verdict::Rejected]
    );
    let wet = json!({"requestObject": {"kind": "DeleteOptions", "apiVersion": "v1"}});
    assert_eq!(
        at("Request", wet),
        [Verdict::Called, Verdict::Called, Verdict::Called]
    );
}

#[test]
fn a_connect_request_is_rebuilt_from_its_url() {
    let request = |sub: &str, uri: &str| {
        let line = event(
            "create",
            "pods",
            sub,
            "Metadata",
            json!({"requestURI": uri, "responseStatus": {"metadata": {}, "code": 101}}),
        );
        admission_request(
            &Event::from_line(line.as_bytes()).unwrap(),
            &Catalog::builtin(),
        )
        .unwrap()
    };
    let r = request(
        "exec",
        "/api/v1/namespaces/shop/pods/web-0/exec?command=sh&command=-c&container=web&stdin=true&tty=true&dryRun=All",
    );
    assert!(r.missing.is_empty(), "{:?}", r.missing);
    assert_eq!(r.request["operation"], "CONNECT");
    assert_eq!(r.request["kind"]["kind"], "PodExecOptions");
    assert_eq!(r.request["dryRun"], false);
    assert_eq!(r.request.get("options"), None);
    assert_eq!(
        r.request["object"],
        json!({"kind": "PodExecOptions", "apiVersion": "v1", "command": ["sh", "-c"],
               "container": "web", "stdin": true, "tty": true})
    );
    // A port the handler refuses (400 before admission): nothing to rebuild.
    let r = request(
        "portforward",
        "/api/v1/namespaces/shop/pods/web-0/portforward?ports=99999",
    );
    assert_eq!(r.missing.names(), ["object"]);
    let r = request("proxy", "/api/v1/namespaces/shop/pods/web-0/proxy/metrics");
    assert!(r.missing.is_empty(), "{:?}", r.missing);
    assert_eq!(r.request["object"]["path"], "/metrics");
}

const CONFIG: &str = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: policy}
webhooks:
- name: pods.example.com
  clientConfig: {url: "https://example.com"}
  sideEffects: None
  admissionReviewVersions: [v1]
  failurePolicy: Fail
  rules: [{operations: [CREATE, UPDATE], apiGroups: [""], apiVersions: [v1], resources: [pods, pods/status]}]
  matchConditions:
  - {name: not-kube-system, expression: "request.namespace != 'kube-system'"}
  - {name: spec-changed, expression: "request.operation != 'UPDATE' || object.spec != oldObject.spec"}
  - {name: web-only, expression: "object.metadata.labels.app == 'web'"}
- name: breakglass.example.com
  clientConfig: {url: "https://example.com"}
  sideEffects: None
  admissionReviewVersions: [v1]
  failurePolicy: Ignore
  rules: [{operations: ["*"], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  namespaceSelector: {matchLabels: {team: shop}}
  matchConditions:
  - {name: not-breakglass, expression: "!authorizer.group('').resource('configmaps').check('breakglass').allowed()"}
"#;

fn side(text: &str) -> Side {
    Side::new(Dispatcher::new(
        &load_documents(text).unwrap(),
        KubeVersion::V1_34,
    ))
}

fn decide(
    side: &Side,
    line: &str,
    ns: Option<&(dyn crate::NamespaceLister + Send + Sync)>,
) -> Vec<Verdict> {
    let e = Event::from_line(line.as_bytes()).unwrap();
    let mut p = engine::Prepared::new(&e, &Catalog::builtin()).unwrap();
    side.decide(&mut p, ns)
        .unwrap()
        .iter()
        .map(|r| r.verdict)
        .collect()
}

#[test]
fn decisions_are_three_valued() {
    let s = side(CONFIG);
    let with_labels = |labels: serde_json::Value| json!({"requestObject": {"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": labels}, "spec": {}}});
    // Metadata level: web-only reads the object: undetermined; spec-changed on a CREATE
    // is true whatever the object (its error is absorbed).
    let meta = event("create", "pods", "", "Metadata", json!({}));
    assert_eq!(decide(&s, &meta, None)[0], Verdict::Undetermined);
    let e = Event::from_line(meta.as_bytes()).unwrap();
    let mut p = engine::Prepared::new(&e, &Catalog::builtin()).unwrap();
    let r = s.decide(&mut p, None).unwrap()[0];
    assert_eq!((r.false_mask, r.error_mask, r.unknown_mask), (0, 0, 0b100));
    // A determined false condition skips whatever the others.
    let system = meta.replace("\"namespace\":\"shop\"", "\"namespace\":\"kube-system\"");
    assert_eq!(decide(&s, &system, None)[0], Verdict::Skipped(0));
    // With the object: exact.
    let web = event(
        "create",
        "pods",
        "",
        "Request",
        with_labels(json!({"app": "web"})),
    );
    assert_eq!(decide(&s, &web, None)[0], Verdict::Called);
    let db = event(
        "create",
        "pods",
        "",
        "Request",
        with_labels(json!({"app": "db"})),
    );
    assert_eq!(decide(&s, &db, None)[0], Verdict::Skipped(2));
    // No labels: the condition fails (no such key) under Fail: rejected.
    let bare = event(
        "create",
        "pods",
        "",
        "Request",
        json!({"requestObject": {"metadata": {}}}),
    );
    assert_eq!(decide(&s, &bare, None)[0], Verdict::Rejected);
    // An update: spec-changed reads oldObject, which no level records.
    let update = event(
        "update",
        "pods",
        "",
        "RequestResponse",
        with_labels(json!({"app": "web"})),
    );
    assert_eq!(decide(&s, &update, None)[0], Verdict::Undetermined);
    // ... but a false condition still decides.
    let update_db = event(
        "update",
        "pods",
        "",
        "RequestResponse",
        with_labels(json!({"app": "db"})),
    );
    assert_eq!(decide(&s, &update_db, None)[0], Verdict::Skipped(2));
}

#[test]
fn selectors_and_the_authorizer_are_undetermined_without_their_tables() {
    let cm = event("create", "configmaps", "", "Metadata", json!({}));
    // No namespace labels: the namespaceSelector is unknown.
    assert_eq!(decide(&side(CONFIG), &cm, None)[1], Verdict::Undetermined);
    let labels: std::collections::BTreeMap<String, Labels> = [
        (
            "shop".to_owned(),
            Labels::from([("team".to_owned(), "shop".to_owned())]),
        ),
        ("infra".to_owned(), Labels::new()),
    ]
    .into();
    // Labels, no authorizer: the condition is undetermined.
    assert_eq!(
        decide(&side(CONFIG), &cm, Some(&labels))[1],
        Verdict::Undetermined
    );
    // A namespace whose labels do not match: not selected, whatever the rest.
    let infra = cm.replace("\"namespace\":\"shop\"", "\"namespace\":\"infra\"");
    assert_eq!(
        decide(&side(CONFIG), &infra, Some(&labels))[1],
        Verdict::NotSelected
    );
    // With an authorizer: exact.
    let table: crate::authz_table::AuthorizerTable = serde_json::from_value(json!({
        "rules": [{"user": "alice", "verb": "breakglass", "decision": "allow"}]
    }))
    .unwrap();
    let authz = Arc::new(table.to_static_authorizer().unwrap());
    let s = Side::new(
        Dispatcher::new(&load_documents(CONFIG).unwrap(), KubeVersion::V1_34)
            .with_authorizer(authz),
    );
    assert_eq!(decide(&s, &cm, Some(&labels))[1], Verdict::Skipped(0));
    let carol = cm.replace("alice", "carol");
    assert_eq!(decide(&s, &carol, Some(&labels))[1], Verdict::Called);
}

fn run(replay: &Replay, files: Vec<(&str, Vec<u8>)>) -> ReplayReport {
    let sources = files
        .into_iter()
        .map(|(n, b)| Source::new(n, Box::new(std::io::Cursor::new(b))))
        .collect();
    replay.run(sources, ReplayOptions::default().with_threads(2), &|_| {})
}

fn replay(current: &str, baseline: Option<&str>) -> Replay {
    Replay::new(
        side(current),
        baseline.map(side),
        Arc::new(Catalog::builtin()),
        None,
    )
}

#[test]
fn a_replay_counts_one_request_per_audit_id_and_reports_bad_lines() {
    let id = |n: u32| format!("6b5f2f8a-0c6e-4f7e-9d4a-{n:012}");
    let mut log = String::new();
    // Request 1: both stages; the final one (kube-system) counts.
    let first = event(
        "create",
        "pods",
        "",
        "Metadata",
        json!({"auditID": id(1), "stage": "RequestReceived"}),
    );
    log.push_str(&first);
    log.push('\n');
    let done = event("create", "pods", "", "Metadata", json!({"auditID": id(1)}))
        .replace("\"namespace\":\"shop\"", "\"namespace\":\"kube-system\"");
    log.push_str(&done);
    log.push('\n');
    // Request 2: only its first stage.
    log.push_str(&event(
        "create",
        "pods",
        "",
        "Metadata",
        json!({"auditID": id(2), "stage": "RequestReceived"}),
    ));
    log.push_str("\n\n");
    // Requests 4 and 5: both stages, the final one refused before admission (forbidden,
    // not found): neither stage counts as admitted.
    for (n, refusal) in [
        (
            4,
            json!({"annotations": {"authorization.k8s.io/decision": "forbid"}, "responseStatus": {"code": 403}}),
        ),
        (5, json!({"responseStatus": {"code": 404}})),
    ] {
        log.push_str(&event(
            "create",
            "pods",
            "",
            "Metadata",
            json!({"auditID": id(n), "stage": "RequestReceived"}),
        ));
        log.push('\n');
        let mut done = refusal;
        done["auditID"] = json!(id(n));
        log.push_str(&event("create", "pods", "", "Metadata", done));
        log.push('\n');
    }
    // A read, a truncated line, a non-audit object, an unknown apiVersion.
    log.push_str(&event(
        "get",
        "pods",
        "",
        "Metadata",
        json!({"auditID": id(3)}),
    ));
    log.push('\n');
    log.push_str(&done[..40]);
    log.push('\n');
    log.push_str("{\"hello\": 1}\n");
    log.push_str(&done.replace("audit.k8s.io/v1", "audit.k8s.io/v2"));
    log.push('\n');
    let report = run(&replay(CONFIG, None), vec![("a.log", log.into_bytes())]);
    assert_eq!(report.input.lines, 12);
    assert_eq!(report.input.events, 8);
    assert_eq!(report.input.admitted, 2);
    assert_eq!(report.input.reads, 1);
    assert_eq!(report.input.forbidden, 1);
    assert_eq!(report.input.not_found, 1);
    assert_eq!(report.input.bad, 3);
    let places: Vec<(u64, &str)> = report
        .bad
        .iter()
        .map(|b| (b.line, &b.message[..12]))
        .collect();
    assert_eq!(
        places,
        [
            (10, "not JSON: EO"),
            (11, "not an audit"),
            (12, "unsupported ")
        ]
    );
    let pods = report.webhooks[0].current.as_ref().unwrap();
    assert_eq!((pods.selected, pods.skipped, pods.undetermined), (2, 1, 1));
    assert_eq!(pods.conditions[0].skipped, 1);
    assert_eq!(pods.conditions[2].undetermined, 2);
}

#[test]
fn gzip_streams_are_read_and_a_cut_one_is_reported() {
    let lines: String = (0..50)
        .map(|n| {
            event(
                "create",
                "pods",
                "",
                "Metadata",
                json!({"auditID": format!("6b5f2f8a-0c6e-4f7e-9d4a-{n:012}")}),
            ) + "\n"
        })
        .collect();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(lines.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    let cut = gz[..gz.len() - 30].to_vec();
    let report = run(
        &replay(CONFIG, None),
        vec![("a.log.gz", gz), ("b.log.gz", cut)],
    );
    assert!(report.input.admitted >= 50, "{:?}", report.input);
    let last = report.bad.last().unwrap();
    assert_eq!(last.file, "b.log.gz");
    assert!(
        last.message.contains("the gzip stream is cut short"),
        "{last:?}"
    );
}

#[test]
fn a_baseline_shows_the_decisions_that_change_rejections_first() {
    let stricter = CONFIG.replace(
        "request.namespace != 'kube-system'",
        "request.namespace != 'shop'",
    );
    let looser = CONFIG.replace(
        "object.metadata.labels.app == 'web'",
        "object.metadata.labels.app == 'web' || request.namespace == 'shop'",
    );
    let pod = |labels: serde_json::Value| {
        event(
            "create",
            "pods",
            "",
            "Request",
            json!({"requestObject": {"metadata": {"labels": labels}}}),
        )
    };
    let log = format!("{}\n{}\n", pod(json!({"app": "db"})), pod(json!({}))).replace(
        "000000000001\",\"stage\":\"ResponseComplete\"",
        "000000000001\",\"stage\":\"ResponseComplete\"",
    );
    // Two different auditIDs.
    let log = log.replacen("000000000001", "000000000002", 1);
    let report = run(
        &replay(&looser, Some(CONFIG)),
        vec![("a.log", log.clone().into_bytes())],
    );
    let changes = &report.webhooks[0].changes;
    let summary: Vec<(DecisionClass, DecisionClass, u64)> =
        changes.iter().map(|c| (c.from, c.to, c.count)).collect();
    // {} was rejected (no such key) and is now called; db was skipped and is now called.
    assert_eq!(
        summary,
        [
            (DecisionClass::Reject, DecisionClass::Call, 1),
            (DecisionClass::Skip, DecisionClass::Call, 1)
        ]
    );
    assert_eq!(changes[0].samples[0].user, "alice");
    assert_eq!(changes[0].samples[0].resource, "v1/pods");
    let report = run(
        &replay(&stricter, Some(CONFIG)),
        vec![("a.log", log.into_bytes())],
    );
    let summary: Vec<(DecisionClass, DecisionClass, u64)> = report.webhooks[0]
        .changes
        .iter()
        .map(|c| (c.from, c.to, c.count))
        .collect();
    assert_eq!(summary, [(DecisionClass::Reject, DecisionClass::Skip, 1)]);
}

#[test]
fn unix_minutes_follow_the_calendar() {
    assert_eq!(replay::unix_minute("1970-01-01T00:01:00Z"), Some(1));
    assert_eq!(
        replay::unix_minute("2024-05-01T12:34:56.123456Z"),
        Some(1_714_566_840 / 60)
    );
    assert_eq!(replay::unix_minute("2024-13-01T00:00:00Z"), None);
    assert_eq!(replay::unix_minute("garbage"), None);
}

/// The URI of a request on a resource of the catalog: its collection (CREATE) or the named
/// object, and the subresource.
fn resource_uri(r: &crate::request::catalog::ApiResource, name: &str, sub: &str) -> String {
    let mut uri = if r.group.is_empty() {
        format!("/api/{}", r.version)
    } else {
        format!("/apis/{}/{}", r.group, r.version)
    };
    if r.namespaced {
        uri.push_str("/namespaces/shop");
    }
    uri.push('/');
    uri.push_str(&r.plural);
    if !name.is_empty() {
        uri.push('/');
        uri.push_str(name);
    }
    if !sub.is_empty() {
        uri.push('/');
        uri.push_str(sub);
    }
    uri
}

/// One request on a resource of the catalog, as the test of both roads makes it.
struct Case<'c> {
    resource: &'c crate::request::catalog::ApiResource,
    sub: &'c str,
    kind: &'c crate::types::Gvk,
    op: Operation,
    dry: bool,
    generated: bool,
}

/// The request of a case from manifests and from its audit event, without the uid and the
/// old object (which no event holds), nor a delete's options (none without a body); or why
/// a road refused it. A subresource whose kind several take (a `Scale`) is built from its
/// parent's manifest, and the event records the object the manifests gave.
fn both_roads(catalog: &Catalog, c: &Case<'_>) -> Result<(Json, Json), String> {
    use crate::request::manifest::{build_review, RequestOptions};
    use crate::yaml::read_documents;
    use matchcond_runtime::authz::UserInfo;

    let r = c.resource;
    let node = |v: &Json| {
        read_documents(&v.to_string())
            .documents
            .remove(0)
            .root
            .unwrap()
    };
    let mut meta = if c.generated {
        json!({"generateName": "web-", "labels": {"app": "web"}})
    } else {
        json!({"name": "web-0", "labels": {"app": "web"}})
    };
    if r.namespaced {
        meta["namespace"] = json!("shop");
    }
    let stored =
        json!({"apiVersion": r.api_version(), "kind": r.kind, "metadata": meta, "spec": {"x": 0}});
    let mut parent = stored.clone();
    parent["spec"]["x"] = json!(1);
    let mut object = parent.clone();
    object["apiVersion"] = json!(crate::request::catalog::api_version(
        &c.kind.group,
        &c.kind.version
    ));
    object["kind"] = json!(c.kind.kind);
    // The manifests: the object and, for an update or delete, the stored one.
    let (new, old) = match c.op {
        Operation::Create => (Some(node(&object)), None),
        Operation::Update => (Some(node(&object)), Some(node(&stored))),
        _ => (None, Some(node(&stored))),
    };
    let options = RequestOptions {
        operation: Some(c.op),
        subresource: Some(c.sub.to_owned()),
        user: UserInfo::new("alice").with_groups(["devs"]),
        dry_run: c.dry,
        ..RequestOptions::default()
    };
    let built = match build_review(catalog, new.as_ref(), old.as_ref(), &options) {
        Err(e) if e.to_string().contains("give the parent") => {
            build_review(catalog, Some(&node(&parent)), old.as_ref(), &options)
        }
        other => other,
    }
    .map_err(|e| format!("manifests refused: {e}"))?;
    // The audit event of the same request.
    let recorded = &built.request()["object"];
    let (verb, code, body) = match c.op {
        Operation::Create => ("create", 201, Some(recorded)),
        Operation::Update => ("update", 200, Some(recorded)),
        _ => ("delete", 200, None),
    };
    let name = if c.generated { "" } else { "web-0" };
    let in_uri = if c.op == Operation::Create && c.sub.is_empty() {
        ""
    } else {
        name
    };
    let mut uri = resource_uri(r, in_uri, c.sub);
    if c.dry {
        uri.push_str("?dryRun=All");
    }
    let mut extra = json!({
        "requestURI": uri,
        "user": {"username": "alice", "groups": ["devs", "system:authenticated"]},
        "objectRef": {"resource": r.plural, "name": name, "apiGroup": r.group,
                      "apiVersion": r.version, "subresource": c.sub},
        "responseStatus": {"metadata": {}, "code": code},
    });
    if r.namespaced {
        extra["objectRef"]["namespace"] = json!("shop");
    }
    if let Some(body) = body {
        extra["requestObject"] = body.clone();
    }
    let line = event(verb, &r.plural, c.sub, "RequestResponse", extra);
    let audit = admission_request(&Event::from_line(line.as_bytes()).unwrap(), catalog)
        .map_err(|e| format!("not admitted from the event: {e}"))?;
    let mut both = (built.request().clone(), audit.request);
    for m in [&mut both.0, &mut both.1] {
        let m = m.as_object_mut().unwrap();
        m.remove("uid");
        m.remove("oldObject");
        if c.op == Operation::Delete {
            m.remove("options");
        }
    }
    Ok(both)
}

/// Every resource and subresource of the newest release's catalog and of two custom
/// resources, created (with a name, and with a generated one where a CREATE can leave it
/// out), updated and deleted, dry run or not: an audit event and manifests give the same
/// request ([`both_roads`]).
#[test]
fn an_audit_event_and_manifests_give_the_same_request() {
    let mut catalog = Catalog::builtin_for(KubeVersion::LATEST);
    let (crds, errors) = crate::request::crd::load_crds(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions:\n  - {name: v1, served: true, subresources: {status: {}, scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}}}\n  - {name: v1beta1, served: true}\n  - {name: v1alpha1, served: false}\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: example.com\n  names: {kind: Gadget, plural: gadgets}\n  scope: Cluster\n  versions: [{name: v2, served: true, subresources: {status: {}}}]\n",
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(crds.len(), 2);
    for crd in &crds {
        catalog.add_crd(crd);
    }
    let gvks: Vec<crate::types::Gvk> = catalog.iter().map(|r| r.gvk()).collect();
    let mut cases = Vec::new();
    for (resource, own_kind) in catalog.iter().zip(&gvks) {
        let own = std::iter::once(("", own_kind, resource.operations.as_slice()));
        let subs = resource
            .subresources
            .iter()
            .map(|s| (s.name.as_str(), &s.kind, s.operations.as_slice()));
        for (sub, kind, operations) in own.chain(subs) {
            for &op in operations.iter().filter(|&&op| op != Operation::Connect) {
                let names: &[bool] = if op == Operation::Create && sub.is_empty() {
                    &[false, true]
                } else {
                    &[false]
                };
                for (&generated, dry) in names.iter().flat_map(|g| [(g, false), (g, true)]) {
                    cases.push(Case {
                        resource,
                        sub,
                        kind,
                        op,
                        dry,
                        generated,
                    });
                }
            }
        }
    }
    let mut failures = Vec::new();
    for c in &cases {
        let what = format!(
            "{} {}/{} {:?} dry {} generated {}",
            c.resource.plural,
            c.resource.api_version(),
            c.sub,
            c.op,
            c.dry,
            c.generated
        );
        match both_roads(&catalog, c) {
            Ok((manifests, event)) if manifests != event => failures.push(format!(
                "{what}:\n  manifests {manifests}\n  event     {event}"
            )),
            Ok(_) => {}
            Err(e) => failures.push(format!("{what}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {}:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(cases.len() > 400, "{}", cases.len());
}

/// The request's namespace is the URL's, and a created object is admitted as the create
/// handler leaves it: in the request's namespace, its system fields cleared.
#[test]
fn a_created_object_is_admitted_as_the_handler_leaves_it() {
    let catalog = Catalog::builtin();
    let built = |line: &str| {
        admission_request(&Event::from_line(line.as_bytes()).unwrap(), &catalog).unwrap()
    };
    // kubectl leaves the namespace out of the body; a copied object may carry a uid.
    let line = event(
        "create",
        "pods",
        "",
        "Request",
        json!({"requestObject": {"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": "web-0", "uid": "1234", "creationTimestamp": "2024-01-01T00:00:00Z",
            "selfLink": "/x", "deletionGracePeriodSeconds": 30}}}),
    );
    let r = built(&line).request;
    assert_eq!(
        r["object"]["metadata"],
        json!({"name": "web-0", "namespace": "shop", "creationTimestamp": null})
    );
    // A cluster-scoped object written with a namespace: the event's objectRef records it,
    // the URL names none.
    let line = json!({
        "kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "Request", "auditID": "c-1",
        "stage": "ResponseComplete", "verb": "create",
        "requestURI": "/apis/rbac.authorization.k8s.io/v1/clusterroles",
        "user": {"username": "alice"},
        "objectRef": {"resource": "clusterroles", "namespace": "foo", "name": "r",
                      "apiGroup": "rbac.authorization.k8s.io", "apiVersion": "v1"},
        "responseStatus": {"metadata": {}, "code": 201},
        "requestObject": {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                          "metadata": {"name": "r", "namespace": "foo"}}
    })
    .to_string();
    let r = built(&line).request;
    assert!(r.get("namespace").is_none(), "{r}");
    assert_eq!(r["object"]["metadata"], json!({"name": "r"}));
    // A Namespace is in itself, and its object in none.
    let line = line
        .replace(
            "/apis/rbac.authorization.k8s.io/v1/clusterroles",
            "/api/v1/namespaces",
        )
        .replace("\"clusterroles\"", "\"namespaces\"")
        .replace("\"rbac.authorization.k8s.io\"", "\"\"")
        .replace("rbac.authorization.k8s.io/v1", "v1")
        .replace("ClusterRole", "Namespace");
    let r = built(&line).request;
    assert_eq!(r["namespace"], "r");
    assert_eq!(r["object"]["metadata"], json!({"name": "r"}));
    // An update's object is put in the request's namespace too, and keeps its uid.
    let line = event(
        "update",
        "configmaps",
        "",
        "Request",
        json!({"requestObject": {"apiVersion": "v1", "kind": "ConfigMap",
                                 "metadata": {"name": "web-0", "uid": "1234"}}}),
    );
    let r = built(&line).request;
    assert_eq!(
        r["object"]["metadata"],
        json!({"name": "web-0", "uid": "1234", "namespace": "shop"})
    );
    // A binding keeps its uid (a precondition).
    let line = event(
        "create",
        "pods",
        "binding",
        "Request",
        json!({"requestObject": {"apiVersion": "v1", "kind": "Binding",
                                 "metadata": {"name": "web-0", "uid": "1234"}}}),
    );
    assert_eq!(built(&line).request["object"]["metadata"]["uid"], "1234");
}

/// The first stage is written before the handler records the body: at any level it tells
/// neither the object nor a DELETE's options and dry run.
#[test]
fn the_first_stage_records_no_body() {
    let catalog = Catalog::builtin();
    let line = event(
        "create",
        "pods",
        "",
        "RequestResponse",
        json!({"stage": "RequestReceived", "responseStatus": null}),
    );
    let line = line.replace("\"name\":\"web-0\"", "\"name\":\"\"");
    let built = admission_request(&Event::from_line(line.as_bytes()).unwrap(), &catalog).unwrap();
    assert!(built.missing.object);
    assert_eq!(built.missing.names(), ["name", "object"]);
    let line = event(
        "delete",
        "configmaps",
        "",
        "Request",
        json!({"stage": "RequestReceived", "responseStatus": null,
               "requestURI": "/api/v1/namespaces/shop/configmaps/web-0?dryRun=All"}),
    );
    let built = admission_request(&Event::from_line(line.as_bytes()).unwrap(), &catalog).unwrap();
    assert!(
        built.missing.options && built.missing.dry_run,
        "{:?}",
        built.missing
    );
}

/// The store's delete sets the options' grace period before admission: a negative one to
/// 1, and a pod's from the stored pod unless 0 was asked.
#[test]
fn a_delete_grace_period_is_the_one_the_store_admits() {
    let catalog = Catalog::builtin();
    let built = |resource: &str, body: Json| {
        let line = event(
            "delete",
            resource,
            "",
            "Request",
            json!({"requestObject": body}),
        );
        admission_request(&Event::from_line(line.as_bytes()).unwrap(), &catalog).unwrap()
    };
    let b = built(
        "configmaps",
        json!({"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1", "gracePeriodSeconds": -5}),
    );
    assert_eq!(b.request["options"]["gracePeriodSeconds"], 1);
    assert!(!b.missing.options);
    let b = built(
        "pods",
        json!({"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1", "propagationPolicy": "Background"}),
    );
    assert!(b.missing.options);
    let b = built(
        "pods",
        json!({"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1", "gracePeriodSeconds": 0}),
    );
    assert!(!b.missing.options);
    assert_eq!(b.request["options"]["gracePeriodSeconds"], 0);
}

#[test]
fn the_url_names_the_namespace() {
    for (uri, names) in [
        ("/api/v1/namespaces/shop/pods", true),
        ("/api/v1/namespaces/shop", true),
        ("/api/v1/namespaces", false),
        (
            "/apis/rbac.authorization.k8s.io/v1/clusterroles?dryRun=All",
            false,
        ),
        ("/apis/example.com/v1/namespaces/a/widgets/w", true),
        ("/apis/example.com/v1/widgets/namespaces", false),
        ("/healthz", false),
    ] {
        assert_eq!(admission::path_names_namespace(uri), names, "{uri}");
    }
}

/// A webhook matched through an equivalent resource of another version has its conditions
/// evaluated on the objects converted to that version, which no event records.
#[test]
fn a_converted_object_is_unknown() {
    let s = side(
        r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: hpa}
webhooks:
- name: v2.example.com
  clientConfig: {url: "https://example.com"}
  sideEffects: None
  admissionReviewVersions: [v1]
  matchPolicy: Equivalent
  rules: [{operations: [CREATE], apiGroups: [autoscaling], apiVersions: [v2], resources: [horizontalpodautoscalers]}]
  matchConditions:
  - {name: metrics, expression: "has(object.spec.metrics)"}
- name: v1.example.com
  clientConfig: {url: "https://example.com"}
  sideEffects: None
  admissionReviewVersions: [v1]
  rules: [{operations: [CREATE], apiGroups: [autoscaling], apiVersions: [v1], resources: [horizontalpodautoscalers]}]
  matchConditions:
  - {name: metrics, expression: "has(object.spec.metrics)"}
- name: kind.example.com
  clientConfig: {url: "https://example.com"}
  sideEffects: None
  admissionReviewVersions: [v1]
  matchPolicy: Equivalent
  rules: [{operations: [CREATE], apiGroups: [autoscaling], apiVersions: [v2], resources: [horizontalpodautoscalers]}]
  matchConditions:
  - {name: v2, expression: "request.kind.version == 'v2'"}
"#,
    );
    let line = json!({
        "kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "Request", "auditID": "h-1",
        "stage": "ResponseComplete", "verb": "create",
        "requestURI": "/apis/autoscaling/v1/namespaces/shop/horizontalpodautoscalers",
        "user": {"username": "alice"},
        "objectRef": {"resource": "horizontalpodautoscalers", "namespace": "shop", "name": "web",
                      "apiGroup": "autoscaling", "apiVersion": "v1"},
        "responseStatus": {"metadata": {}, "code": 201},
        "requestObject": {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
                          "metadata": {"name": "web"},
                          "spec": {"targetCPUUtilizationPercentage": 80}}
    })
    .to_string();
    assert_eq!(
        decide(&s, &line, None),
        [Verdict::Undetermined, Verdict::Skipped(0), Verdict::Called]
    );
}

/// A create's first stage does not tell its name: a condition reading it is undetermined,
/// one that does not is decided.
#[test]
fn a_first_stage_create_has_no_known_name() {
    let s = side(
        r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: names}
webhooks:
- name: name.example.com
  clientConfig: {url: "https://example.com"}
  sideEffects: None
  admissionReviewVersions: [v1]
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
  matchConditions:
  - {name: web, expression: "has(request.name) && request.name.startsWith('web')"}
- name: namespace.example.com
  clientConfig: {url: "https://example.com"}
  sideEffects: None
  admissionReviewVersions: [v1]
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
  matchConditions:
  - {name: shop, expression: "request.namespace == 'shop'"}
"#,
    );
    let line = event(
        "create",
        "pods",
        "",
        "Request",
        json!({"stage": "RequestReceived", "responseStatus": null}),
    )
    .replace("\"name\":\"web-0\"", "\"name\":\"\"");
    assert_eq!(
        decide(&s, &line, None),
        [Verdict::Undetermined, Verdict::Called]
    );
}

/// A recorded body the handler decoded is an object: anything else is an invalid event.
#[test]
fn a_request_object_that_is_not_an_object_is_invalid() {
    for body in [json!("notanobject"), json!([1]), json!(3)] {
        let line = event(
            "create",
            "pods",
            "",
            "Request",
            json!({"requestObject": body}),
        );
        let e = Event::from_line(line.as_bytes()).unwrap();
        assert_eq!(
            admission_request(&e, &Catalog::builtin()).unwrap_err(),
            NotAdmitted::Invalid {
                field: "requestObject",
                message: "not an object".to_owned()
            },
            "{body}"
        );
    }
}

/// A user that is not an object makes the event invalid, whatever reads it.
#[test]
fn a_user_that_is_not_an_object_is_invalid() {
    let line = event("create", "pods", "", "Metadata", json!({"user": "bob"}));
    assert_eq!(
        Event::from_line(line.as_bytes()).unwrap_err().to_string(),
        "not an audit event: invalid type: user is not an object"
    );
    let line = event(
        "create",
        "pods",
        "",
        "Metadata",
        json!({"impersonatedUser": [1]}),
    );
    assert_eq!(
        Event::from_line(line.as_bytes()).unwrap_err().to_string(),
        "not an audit event: invalid type: impersonatedUser is not an object"
    );
    let line = event(
        "create",
        "pods",
        "",
        "Metadata",
        json!({"impersonatedUser": null}),
    );
    assert!(Event::from_line(line.as_bytes()).is_ok());
}
