//! The webhook without a cluster: watcher events fed to the live dispatcher by hand, a
//! namespace store filled through its writer, the exact answers of `decide` and of the
//! routes, and the routes served on a loopback socket.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::sync::Arc;

use axum::http::StatusCode;
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::api::core::v1::Namespace;
use kube::runtime::reflector::store::Writer;
use kube::runtime::watcher::Event;
use matchcond::runtime::{LiveDispatcher, StoreNamespaces};
use matchcond::KubeVersion;
use matchcond_kube_webhook::{decide, router, serve, tls_config, App, Metrics};
use serde_json::{json, Value as Json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

const HOOK: &str = "pods.policy.example.com";
const UID: &str = "5e47603a-d537-4826-af6d-af0ed1ddaada";

/// A validating configuration: pods created in namespaces of team payments, not in dry
/// runs, with an `app` label that must be `web` (reading it from a pod without one is an
/// error, and the failure policy is `Fail`).
fn validating() -> ValidatingWebhookConfiguration {
    serde_json::from_value(json!({
        "metadata": {"name": "policy", "resourceVersion": "1"},
        "webhooks": [{
            "name": HOOK, "sideEffects": "None", "admissionReviewVersions": ["v1"],
            "clientConfig": {"url": "https://policy.example.com/validate"},
            "failurePolicy": "Fail",
            "namespaceSelector": {"matchLabels": {"team": "payments"}},
            "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                       "resources": ["pods"]}],
            "matchConditions": [
                {"name": "not-dry-run", "expression": "request.dryRun != true"},
                {"name": "web", "expression": "object.metadata.labels['app'] == 'web'"}
            ]
        }]
    }))
    .unwrap()
}

/// A mutating configuration whose condition does not compile: it fails when deciding,
/// here ignored.
fn mutating() -> MutatingWebhookConfiguration {
    serde_json::from_value(json!({
        "metadata": {"name": "inject"},
        "webhooks": [{
            "name": "inject.example.com", "sideEffects": "None",
            "admissionReviewVersions": ["v1"], "failurePolicy": "Ignore",
            "clientConfig": {"url": "https://inject.example.com/mutate"},
            "rules": [{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"],
                       "resources": ["*"]}],
            "matchConditions": [{"name": "broken", "expression": "object.spec.("}]
        }]
    }))
    .unwrap()
}

fn namespace(name: &str, labels: Json) -> Namespace {
    let mut labels = labels;
    labels["kubernetes.io/metadata.name"] = json!(name);
    serde_json::from_value(json!({"metadata": {"name": name, "labels": labels}})).unwrap()
}

/// The live dispatcher after a first listing of both kinds, and a namespace store with
/// `shop` (team payments) and `lab` (team research).
fn cluster() -> (LiveDispatcher, StoreNamespaces) {
    let live = LiveDispatcher::new(KubeVersion::V1_34);
    live.apply_validating(Event::Init);
    let applied = live.apply_validating(Event::InitApply(validating()));
    assert_eq!(applied.problems().count(), 0);
    assert!(
        live.dispatcher().is_empty(),
        "a listing applies whole at InitDone"
    );
    live.apply_validating(Event::InitDone);
    live.apply_mutating(Event::Init);
    let applied = live.apply_mutating(Event::InitApply(mutating()));
    let problems: Vec<String> = applied
        .problems()
        .flat_map(|c| {
            c.problems
                .iter()
                .map(|p| format!("{}: {}", c.name, p.field))
        })
        .collect();
    assert_eq!(
        problems,
        ["inject: webhooks[0].matchConditions[0].expression"]
    );
    live.apply_mutating(Event::InitDone);
    assert_eq!(live.dispatcher().len(), 2);

    let mut writer = Writer::<Namespace>::default();
    writer.apply_watcher_event(&Event::Init);
    writer.apply_watcher_event(&Event::InitApply(namespace(
        "shop",
        json!({"team": "payments"}),
    )));
    writer.apply_watcher_event(&Event::InitDone);
    writer.apply_watcher_event(&Event::Apply(namespace("lab", json!({"team": "research"}))));
    (live, StoreNamespaces::new(writer.as_reader()))
}

/// A pod's CREATE review.
fn review(namespace: &str, labels: Json, dry_run: bool) -> Vec<u8> {
    let review = json!({
        "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "request": {
            "uid": UID,
            "kind": {"group": "", "version": "v1", "kind": "Pod"},
            "resource": {"group": "", "version": "v1", "resource": "pods"},
            "requestKind": {"group": "", "version": "v1", "kind": "Pod"},
            "requestResource": {"group": "", "version": "v1", "resource": "pods"},
            "name": "web-0", "namespace": namespace, "operation": "CREATE",
            "userInfo": {"username": "alice", "groups": ["system:authenticated"]},
            "object": {"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": "web-0", "namespace": namespace, "labels": labels},
                       "spec": {"containers": [{"name": "web", "image": "nginx"}]}},
            "oldObject": null, "dryRun": dry_run,
            "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"}
        }
    });
    serde_json::to_vec(&review).unwrap()
}

fn allowed(decision: &str) -> Json {
    json!({
        "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "response": {"uid": UID, "allowed": true, "status": {},
                     "auditAnnotations": {"matchcond.example.com/decision": decision}}
    })
}

fn denied(code: u16, reason: &str, message: &str) -> Json {
    json!({
        "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "response": {"uid": UID, "allowed": false,
                     "status": {"code": code, "reason": reason, "message": message},
                     "auditAnnotations": {"matchcond.example.com/decision": "reject"}}
    })
}

fn status(code: u16, reason: &str, message: &str) -> Json {
    json!({"apiVersion": "v1", "kind": "Status", "status": "Failure",
           "message": message, "reason": reason, "code": code})
}

#[test]
fn decisions_are_the_apiservers() {
    let (live, namespaces) = cluster();
    let metrics = Metrics::new();
    let decide = |name: &str, body: &[u8]| decide(&live, &namespaces, &metrics, name, body);

    // Every condition true: the apiserver calls the webhook.
    let web = review("shop", json!({"app": "web"}), false);
    assert_eq!(decide(HOOK, &web), (StatusCode::OK, allowed("call")));
    // By its uid too, `<configuration>/<webhook>/<n>`.
    let uid = format!("policy/{HOOK}/0");
    assert_eq!(decide(&uid, &web), (StatusCode::OK, allowed("call")));
    // A false condition skips it.
    let dry_run = review("shop", json!({"app": "web"}), true);
    assert_eq!(decide(HOOK, &dry_run), (StatusCode::OK, allowed("skip")));
    // So does the namespaceSelector, read from the store.
    let lab = review("lab", json!({"app": "web"}), false);
    assert_eq!(decide(HOOK, &lab), (StatusCode::OK, allowed("skip")));
    // A condition's error under failurePolicy Fail rejects the request.
    let unlabelled = review("shop", json!({"tier": "db"}), false);
    let message = "pods \"web-0\" is forbidden: expression \
        'object.metadata.labels['app'] == 'web'' resulted in error: no such key: app";
    assert_eq!(
        decide(HOOK, &unlabelled),
        (StatusCode::OK, denied(403, "Forbidden", message))
    );
    // A namespace the store does not have fails the request whatever the policy.
    let gone = review("gone", json!({"app": "web"}), false);
    let message = "namespaces \"gone\" not found";
    assert_eq!(
        decide(HOOK, &gone),
        (StatusCode::OK, denied(404, "NotFound", message))
    );
    // The mutating webhook's condition does not compile: ignored, skipped.
    assert_eq!(
        decide("inject.example.com", &web),
        (StatusCode::OK, allowed("skip"))
    );

    // Not a webhook of the cluster.
    let message = "no webhook \"nope.example.com\" in the cluster's webhook configurations";
    assert_eq!(
        decide("nope.example.com", &web),
        (StatusCode::NOT_FOUND, status(404, "NotFound", message))
    );
    // Not an AdmissionReview, or one without a request.
    let message = "malformed AdmissionReview: expected ident at line 1 column 2";
    assert_eq!(
        decide(HOOK, b"not json"),
        (StatusCode::BAD_REQUEST, status(400, "BadRequest", message))
    );
    let no_request = br#"{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}"#;
    let message = "malformed AdmissionReview: it has no request";
    assert_eq!(
        decide(HOOK, no_request),
        (StatusCode::BAD_REQUEST, status(400, "BadRequest", message))
    );

    // The apiserver's metrics: one exclusion (the false condition; a selector's skip is
    // not the conditions'), one error, and the ignored error of the mutating webhook.
    let text = metrics.encode().unwrap();
    let series = |metric: &str, name: &str, kind: &str| {
        format!(
            "apiserver_admission_match_condition_{metric}{{name=\"{name}\",kind=\"webhook\",\
             type=\"{kind}\",operation=\"CREATE\"}}"
        )
    };
    for (line, value) in [
        (series("exclusions_total", HOOK, "validate"), 1),
        (series("evaluation_errors_total", HOOK, "validating"), 1),
        (series("evaluation_seconds_count", HOOK, "validating"), 2),
        (series("exclusions_total", "inject.example.com", "admit"), 1),
        (
            series("evaluation_errors_total", "inject.example.com", "admit"),
            1,
        ),
    ] {
        assert!(
            text.contains(&format!("{line} {value}\n")),
            "{line} in\n{text}"
        );
    }
}

#[test]
fn configurations_follow_the_watchers() {
    let (live, namespaces) = cluster();
    let metrics = Metrics::new();
    let web = review("shop", json!({"app": "web"}), false);
    let decide = |body: &[u8]| decide(&live, &namespaces, &metrics, HOOK, body).0;
    assert_eq!(decide(&web), StatusCode::OK);

    // A change: the conditions now skip every pod.
    let mut changed = validating();
    changed.metadata.resource_version = Some("2".into());
    let hook = &mut changed.webhooks.as_mut().unwrap()[0];
    hook.match_conditions.as_mut().unwrap()[1].expression = "false".into();
    let applied = live.apply_validating(Event::Apply(changed.clone()));
    assert!(applied.swapped);
    let answer = matchcond_kube_webhook::decide(&live, &namespaces, &metrics, HOOK, &web);
    assert_eq!(answer, (StatusCode::OK, allowed("skip")));

    // Applied again with only its metadata changed: nothing is compiled.
    changed.metadata.resource_version = Some("3".into());
    let applied = live.apply_validating(Event::Apply(changed.clone()));
    assert_eq!((applied.compiled.len(), applied.swapped), (0, false));

    // Deleted: the webhook is gone.
    let applied = live.apply_validating(Event::Delete(changed));
    assert_eq!(applied.removed, ["policy"]);
    assert_eq!(decide(&web), StatusCode::NOT_FOUND);
}

/// Sends one HTTP/1.1 request and reads the whole answer: the status code and the body.
async fn http(addr: std::net::SocketAddr, method: &str, path: &str, body: &[u8]) -> (u16, String) {
    exchange(TcpStream::connect(addr).await.unwrap(), method, path, body).await
}

/// Sends one HTTP/1.1 request on a connection and reads the whole answer.
async fn exchange<S>(mut stream: S, method: &str, path: &str, body: &[u8]) -> (u16, String)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    let code = head[9..12].parse().unwrap();
    (code, body.to_owned())
}

#[tokio::test]
async fn serves_on_a_loopback_socket() {
    let (live, namespaces) = cluster();
    let app = Arc::new(App::new(live, Arc::new(namespaces)));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve(listener, None, router(Arc::clone(&app)), async {
        let _ = stopped.await;
    }));

    let web = review("shop", json!({"app": "web"}), false);
    let path = format!("/decide/{HOOK}");
    // Not ready: nothing is decided yet.
    assert_eq!(http(addr, "GET", "/healthz", b"").await, (200, "ok".into()));
    assert_eq!(
        http(addr, "GET", "/readyz", b"").await,
        (503, "not ready".into())
    );
    let (code, body) = http(addr, "POST", &path, &web).await;
    let message = "not ready: the webhook configurations and namespaces are not listed yet";
    assert_eq!(code, 503);
    let expected = status(503, "ServiceUnavailable", message);
    assert_eq!(serde_json::from_str::<Json>(&body).unwrap(), expected);

    app.set_ready(true);
    assert_eq!(http(addr, "GET", "/readyz", b"").await, (200, "ok".into()));
    let (code, body) = http(addr, "POST", &path, &web).await;
    assert_eq!(code, 200);
    assert_eq!(
        serde_json::from_str::<Json>(&body).unwrap(),
        allowed("call")
    );
    let dry_run = review("shop", json!({"app": "web"}), true);
    let (code, body) = http(addr, "POST", &path, &dry_run).await;
    assert_eq!(
        (code, serde_json::from_str::<Json>(&body).unwrap()),
        (200, allowed("skip"))
    );
    let (code, _) = http(addr, "POST", "/decide/nope.example.com", &web).await;
    assert_eq!(code, 404);
    let (code, _) = http(addr, "POST", &path, b"{").await;
    assert_eq!(code, 400);
    let (code, _) = http(addr, "GET", &path, b"").await;
    assert_eq!(code, 405);

    let (code, text) = http(addr, "GET", "/metrics", b"").await;
    assert_eq!(code, 200);
    let exclusion = format!(
        "apiserver_admission_match_condition_exclusions_total{{name=\"{HOOK}\",\
         kind=\"webhook\",type=\"validate\",operation=\"CREATE\"}} 1\n"
    );
    assert!(text.contains(&exclusion), "{text}");
    assert!(text.ends_with("# EOF\n"), "{text}");

    // Shutdown: the server stops accepting and returns.
    stop.send(()).unwrap();
    tokio::time::timeout(std::time::Duration::from_secs(5), server)
        .await
        .unwrap()
        .unwrap();
    assert!(TcpStream::connect(addr).await.is_err());
}

#[tokio::test]
async fn serves_over_tls() {
    let generated = rcgen::generate_simple_self_signed(["localhost".to_owned()]).unwrap();
    let (cert_pem, key_pem) = (generated.cert.pem(), generated.signing_key.serialize_pem());
    let tls = tls_config(cert_pem.as_bytes(), key_pem.as_bytes()).unwrap();
    assert_eq!(tls.alpn_protocols, [b"h2".to_vec(), b"http/1.1".to_vec()]);
    let error = tls_config(b"", key_pem.as_bytes()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the certificate file has no CERTIFICATE block"
    );

    let (live, namespaces) = cluster();
    let app = Arc::new(App::new(live, Arc::new(namespaces)));
    app.set_ready(true);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve(listener, Some(Arc::new(tls)), router(app), async {
        let _ = stopped.await;
    }));

    // A client trusting the certificate, speaking HTTP/1.1.
    let mut roots = rustls::RootCertStore::empty();
    roots.add(generated.cert.der().clone()).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut client = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    client.alpn_protocols = vec![b"http/1.1".to_vec()];
    let connector = tokio_rustls::TlsConnector::from(Arc::new(client));
    let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
    let tcp = TcpStream::connect(addr).await.unwrap();
    let stream = connector.connect(name, tcp).await.unwrap();
    assert_eq!(stream.get_ref().1.alpn_protocol(), Some(&b"http/1.1"[..]));
    let web = review("shop", json!({"app": "web"}), false);
    let (code, body) = exchange(stream, "POST", &format!("/decide/{HOOK}"), &web).await;
    assert_eq!(
        (code, serde_json::from_str::<Json>(&body).unwrap()),
        (200, allowed("call"))
    );

    stop.send(()).unwrap();
    tokio::time::timeout(std::time::Duration::from_secs(5), server)
        .await
        .unwrap()
        .unwrap();
}
