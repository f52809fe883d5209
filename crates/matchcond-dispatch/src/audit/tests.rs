#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::io::Write;
use std::sync::Arc;

use matchcond_compiler::KubeVersion;
use serde_json::json;

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
            "object": pod, "oldObject": null
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
        "pods",
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
    assert_eq!(r.missing.names(), ["oldObject", "options"]);
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
    assert_eq!(report.input.lines, 8);
    assert_eq!(report.input.events, 4);
    assert_eq!(report.input.admitted, 2);
    assert_eq!(report.input.reads, 1);
    assert_eq!(report.input.bad, 3);
    let places: Vec<(u64, &str)> = report
        .bad
        .iter()
        .map(|b| (b.line, &b.message[..12]))
        .collect();
    assert_eq!(
        places,
        [
            (6, "not JSON: EO"),
            (7, "not an audit"),
            (8, "unsupported ")
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

/// Every resource and subresource of the newest release's catalog and of two custom
/// resources, created, updated and deleted, by an audit event and from manifests: the two roads give the same request, but
/// for what an audit event cannot hold (the old object) and the uid. A subresource whose
/// kind several take (a `Scale`) is built from its parent's manifest; the event then
/// records the object the manifests gave.
#[test]
fn an_audit_event_and_manifests_give_the_same_request() {
    use crate::request::manifest::{build_review, RequestOptions};
    use crate::yaml::read_documents;
    use matchcond_runtime::authz::UserInfo;

    let mut catalog = Catalog::builtin_for(KubeVersion::LATEST);
    let (crds, errors) = crate::request::crd::load_crds(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions:\n  - {name: v1, served: true, subresources: {status: {}, scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}}}\n  - {name: v1beta1, served: true}\n  - {name: v1alpha1, served: false}\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: example.com\n  names: {kind: Gadget, plural: gadgets}\n  scope: Cluster\n  versions: [{name: v2, served: true, subresources: {status: {}}}]\n",
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(crds.len(), 2);
    for crd in &crds {
        catalog.add_crd(crd);
    }
    let node = |v: &serde_json::Value| {
        read_documents(&v.to_string())
            .documents
            .remove(0)
            .root
            .unwrap()
    };
    let (mut compared, mut failures) = (0, Vec::new());
    for r in catalog.iter() {
        let mut targets: Vec<(&str, crate::types::Gvk, &[Operation])> =
            vec![("", r.gvk(), r.operations.as_slice())];
        for s in &r.subresources {
            targets.push((s.name.as_str(), s.kind.clone(), s.operations.as_slice()));
        }
        for (sub, kind, operations) in targets {
            for &op in operations {
                if op == Operation::Connect {
                    continue;
                }
                // A generated name: only a CREATE of the resource itself can leave it out.
                let generated = [false, true]
                    .into_iter()
                    .filter(|&g| !g || (op == Operation::Create && sub.is_empty()));
                for (dry, generated) in generated.flat_map(|g| [(false, g), (true, g)]) {
                    let mut meta = if generated {
                        json!({"generateName": "web-", "labels": {"app": "web"}})
                    } else {
                        json!({"name": "web-0", "labels": {"app": "web"}})
                    };
                    if r.namespaced {
                        meta["namespace"] = json!("shop");
                    }
                    let object = json!({
                        "apiVersion": crate::request::catalog::api_version(&kind.group, &kind.version),
                        "kind": kind.kind, "metadata": meta, "spec": {"x": 1},
                    });
                    let main = json!({
                        "apiVersion": r.api_version(), "kind": r.kind,
                        "metadata": object["metadata"], "spec": {"x": 0},
                    });
                    // The manifests: the object and, for an update or delete, the stored one.
                    let (new, old) = match op {
                        Operation::Create => (Some(node(&object)), None),
                        Operation::Update => (Some(node(&object)), Some(node(&main))),
                        _ => (None, Some(node(&main))),
                    };
                    let options = RequestOptions {
                        operation: Some(op),
                        subresource: Some(sub.to_owned()),
                        user: UserInfo::new("alice").with_groups(["devs"]),
                        dry_run: dry,
                        ..RequestOptions::default()
                    };
                    let mut built = build_review(&catalog, new.as_ref(), old.as_ref(), &options);
                    if matches!(&built, Err(e) if e.to_string().contains("give the parent")) {
                        let parent = json!({
                            "apiVersion": r.api_version(), "kind": r.kind,
                            "metadata": object["metadata"], "spec": {"x": 1},
                        });
                        built =
                            build_review(&catalog, Some(&node(&parent)), old.as_ref(), &options);
                    }
                    let built = match built {
                        Ok(b) => b,
                        Err(e) => {
                            failures.push(format!(
                                "{} {}/{sub} {op:?}: manifests refused: {e}",
                                r.plural,
                                r.api_version()
                            ));
                            continue;
                        }
                    };
                    // The audit event of the same request.
                    let recorded = built.request()["object"].clone();
                    let (verb, body, name) = match op {
                        Operation::Create if sub.is_empty() => ("create", Some(&recorded), ""),
                        Operation::Create => ("create", Some(&recorded), "web-0"),
                        Operation::Update => ("update", Some(&recorded), "web-0"),
                        _ => ("delete", None, "web-0"),
                    };
                    let mut uri = resource_uri(r, name, sub);
                    if dry {
                        uri.push_str("?dryRun=All");
                    }
                    let mut extra = json!({
                        "requestURI": uri,
                        "user": {"username": "alice", "groups": ["devs", "system:authenticated"]},
                        "objectRef": {"resource": r.plural,
                                      "name": if generated { "" } else { "web-0" },
                                      "apiGroup": r.group, "apiVersion": r.version,
                                      "subresource": sub},
                        "responseStatus": {"metadata": {}, "code": if verb == "create" { 201 } else { 200 }},
                    });
                    if r.namespaced {
                        extra["objectRef"]["namespace"] = json!("shop");
                    }
                    if let Some(body) = body {
                        extra["requestObject"] = body.clone();
                    }
                    let line = event(verb, &r.plural, sub, "RequestResponse", extra);
                    let e = Event::from_line(line.as_bytes()).unwrap();
                    let audit = match admission_request(&e, &catalog) {
                        Ok(a) => a,
                        Err(err) => {
                            failures.push(format!(
                                "{} {}/{sub} {op:?}: not admitted from the event: {err}",
                                r.plural,
                                r.api_version()
                            ));
                            continue;
                        }
                    };
                    let mut from_manifests = built.request().clone();
                    let mut from_event = audit.request.clone();
                    for m in [&mut from_manifests, &mut from_event] {
                        let m = m.as_object_mut().unwrap();
                        m.remove("uid");
                        m.remove("oldObject");
                    }
                    // A delete without a body records no options.
                    if op == Operation::Delete {
                        from_manifests.as_object_mut().unwrap().remove("options");
                        from_event.as_object_mut().unwrap().remove("options");
                    }
                    compared += 1;
                    if from_manifests != from_event {
                        failures.push(format!(
                            "{} {}/{sub} {op:?} dry {dry} generated {generated}:\n  manifests {from_manifests}\n  event     {from_event}\n  missing {:?}",
                            r.plural,
                            r.api_version(),
                            audit.missing.names()
                        ));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {compared}:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(compared > 400, "{compared}");
}
