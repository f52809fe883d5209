//! Starts the server in-process on 127.0.0.1 with a self-signed certificate and sends it
//! real AdmissionReviews over HTTPS (HTTP/1.1 and HTTP/2), checking the exact answers,
//! the paths served, the limits and the metrics.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use std::time::{Duration, Instant};

use common::{data, examples, full, metric, parts, read, review, Client, Server};
use hyper::body::Bytes;
use matchcond::KubeVersion;
use matchcond_webhook_server::{Limits, Webhooks};
use rustls_pki_types::ServerName;
use serde_json::{json, Value as Json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn admission_response(response: Json) -> Json {
    json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response})
}

/// The server's own error, a Kubernetes `Status`.
fn failure(code: u16, reason: &str, message: &str) -> Json {
    json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": message, "reason": reason, "code": code
    })
}

/// The answer for a webhook the apiserver calls or skips (`decision`): allowed, 200.
fn allowed(uid: &str, message: &str, decision: &str) -> Json {
    admission_response(json!({
        "uid": uid,
        "allowed": true,
        "status": {"status": "Success", "code": 200, "message": message},
        "auditAnnotations": {"matchcond-decision": decision}
    }))
}

fn pod_create_called() -> Json {
    allowed(
        "5e47603a-d537-4826-af6d-af0ed1ddaada",
        "webhook \"pods.policy.example.com\" is called: all 3 of its matchConditions are true",
        "call",
    )
}

#[tokio::test]
async fn webhooks_are_served_at_their_configured_paths() {
    let server = Server::start(&examples("webhooks.yaml")).await;
    let mut client = server.client(false).await;
    // clientConfig.service.path, with the timeout parameter the apiserver adds, and the
    // default route.
    for path in [
        "/validate-pods",
        "/validate-pods?timeout=10s",
        "/validate/pods.policy.example.com",
    ] {
        let reply = client.post(path, &review("pod-create.json")).await;
        assert_eq!(reply.json(), pod_create_called(), "{path}");
    }
    // The path of clientConfig.url.
    let reply = client
        .post("/validate-deployments", &review("deployment-update.json"))
        .await;
    assert_eq!(
        reply.json()["response"]["status"]["message"],
        "webhook \"deployments.policy.example.com\" is called: all 2 of its matchConditions are true"
    );
    // A mutating webhook's service path, over HTTP/2.
    let reply = server
        .client(true)
        .await
        .post("/inject?timeout=10s", &review("pod-create.json"))
        .await;
    assert_eq!(
        reply.json(),
        allowed("5e47603a-d537-4826-af6d-af0ed1ddaada", "webhook \"inject.sidecar.example.com\" is called: all 2 of its matchConditions are true", "call")
    );
    let paths: Vec<Vec<String>> = server.app.webhooks.iter().map(|h| h.paths()).collect();
    assert_eq!(
        paths,
        [
            vec!["/inject", "/mutate/inject.sidecar.example.com"],
            vec![
                "/validate-deployments",
                "/validate/deployments.policy.example.com"
            ],
            vec!["/validate-pods", "/validate/pods.policy.example.com"],
        ]
    );
    server.stop().await;
}

#[tokio::test]
async fn warnings_list_the_conditions_when_asked() {
    let server = Server::start_with(&examples("webhooks.yaml"), Limits::default(), true).await;
    let reply = server
        .post("/validate-pods", &review("configmap-delete.json"))
        .await;
    assert_eq!(reply.json(), {
        let mut want = allowed("7ee6fb9d-b169-4f2f-a89f-0ebde2d28ee6", "webhook \"pods.policy.example.com\" is not called (the apiserver would skip it): matchCondition \"app-web-only\" is false", "skip");
        want["response"]["warnings"] = json!([
            "matchCondition \"exclude-kube-system\": true",
            "matchCondition \"exclude-kubelet\": true",
            "matchCondition \"app-web-only\": false"
        ]);
        want
    });
    server.stop().await;
}

#[tokio::test]
async fn every_example_review_is_answered() {
    let server = Server::start(&examples("webhooks.yaml")).await;
    // The DELETE has no object: the label condition is false and the webhook is skipped.
    let reply = server
        .post("/validate-pods", &review("configmap-delete.json"))
        .await;
    assert_eq!(
        reply.json(),
        allowed("7ee6fb9d-b169-4f2f-a89f-0ebde2d28ee6", "webhook \"pods.policy.example.com\" is not called (the apiserver would skip it): matchCondition \"app-web-only\" is false", "skip")
    );
    // The authorizer has no opinion: the break-glass check is not allowed.
    let reply = server
        .post(
            "/validate/deployments.policy.example.com",
            &review("deployment-update.json"),
        )
        .await;
    assert_eq!(
        reply.json(),
        allowed("600754d1-f5ee-4284-a75c-18aa6aeab770", "webhook \"deployments.policy.example.com\" is called: all 2 of its matchConditions are true", "call")
    );
    server.stop().await;
}

#[tokio::test]
async fn a_changed_request_skips_on_the_first_false_condition() {
    let server = Server::start(&examples("webhooks.yaml")).await;
    let mut r = review("pod-create.json");
    r["request"]["namespace"] = json!("kube-system");
    r["request"]["uid"] = json!("u-1");
    let v = server.post("/validate-pods", &r).await.json();
    assert_eq!(v["response"]["uid"], "u-1");
    assert_eq!(v["response"]["allowed"], true);
    assert_eq!(
        v["response"]["status"]["message"],
        "webhook \"pods.policy.example.com\" is not called (the apiserver would skip it): matchCondition \"exclude-kube-system\" is false"
    );
    assert_eq!(
        v["response"]["auditAnnotations"]["matchcond-decision"],
        "skip"
    );
    server.stop().await;
}

#[tokio::test]
async fn errors_reject_under_fail_and_skip_under_ignore() {
    let server = Server::start(&data("strict.yaml")).await;
    let error = "expression 'object.metadata.labels['tier'] == 'gold'' resulted in error: no such key: tier";
    // The URL's path is the webhook's default route: served once.
    let reply = server
        .post(
            "/validate/fail.strict.example.com",
            &review("pod-create.json"),
        )
        .await;
    assert_eq!(
        reply.json(),
        admission_response(json!({
            "uid": "5e47603a-d537-4826-af6d-af0ed1ddaada",
            "allowed": false,
            "status": {
                "status": "Failure",
                "code": 403,
                "reason": "Forbidden",
                "message": format!("webhook \"fail.strict.example.com\": the apiserver rejects the request (failurePolicy Fail): pods \"web-0\" is forbidden: {error}")
            },
            "auditAnnotations": {"matchcond-decision": "reject"}
        }))
    );
    let reply = server
        .post(
            "/validate/ignore.strict.example.com",
            &review("pod-create.json"),
        )
        .await;
    assert_eq!(
        reply.json(),
        allowed("5e47603a-d537-4826-af6d-af0ed1ddaada", &format!("webhook \"ignore.strict.example.com\" is not called (the apiserver would skip it): its matchConditions failed and its failurePolicy is Ignore: {error}"), "skip")
    );
    // No matchConditions: always called.
    let reply = server
        .post(
            "/validate/plain.strict.example.com",
            &review("configmap-delete.json"),
        )
        .await;
    assert_eq!(
        reply.json(),
        allowed(
            "7ee6fb9d-b169-4f2f-a89f-0ebde2d28ee6",
            "webhook \"plain.strict.example.com\" is called: it has no matchConditions",
            "call"
        )
    );
    let paths: Vec<Vec<String>> = server.app.webhooks.iter().map(|h| h.paths()).collect();
    assert_eq!(
        paths,
        [
            ["/validate/fail.strict.example.com"],
            ["/validate/ignore.strict.example.com"],
            ["/validate/plain.strict.example.com"]
        ]
    );
    // The metrics count the decisions and the condition errors, per webhook: the
    // apiserver's matchConditions metrics (its names, labels and rules: the time only when
    // the conditions skip or erred), and the server's own.
    let reply = server.client(false).await.get("/metrics").await;
    assert_eq!(
        reply.header("content-type"),
        Some("application/openmetrics-text; version=1.0.0; charset=utf-8")
    );
    let text = reply.body;
    assert!(text.ends_with("# EOF\n"), "{text}");
    let labels = |name: &str, t: &str| {
        format!("{{name=\"{name}\",kind=\"webhook\",type=\"{t}\",operation=\"CREATE\"}}")
    };
    let errors = "apiserver_admission_match_condition_evaluation_errors_total";
    let exclusions = "apiserver_admission_match_condition_exclusions_total";
    let seconds = "apiserver_admission_match_condition_evaluation_seconds";
    for (series, value) in [
        (
            format!("{errors}{}", labels("fail.strict.example.com", "validating")),
            1.0,
        ),
        (
            format!("{errors}{}", labels("ignore.strict.example.com", "validating")),
            1.0,
        ),
        (
            format!("{exclusions}{}", labels("fail.strict.example.com", "validate")),
            0.0,
        ),
        (
            format!("{exclusions}{}", labels("ignore.strict.example.com", "validate")),
            1.0,
        ),
        (
            format!("{seconds}_count{}", labels("fail.strict.example.com", "validating")),
            1.0,
        ),
        (
            format!("{seconds}_count{}", labels("ignore.strict.example.com", "validating")),
            1.0,
        ),
        (
            "matchcond_webhook_decisions_total{name=\"fail.strict.example.com\",type=\"validate\",operation=\"CREATE\",decision=\"reject\"}".to_owned(),
            1.0,
        ),
        (
            "matchcond_webhook_decisions_total{name=\"plain.strict.example.com\",type=\"validate\",operation=\"DELETE\",decision=\"call\"}".to_owned(),
            1.0,
        ),
        (
            "matchcond_webhook_inflight_requests{name=\"plain.strict.example.com\",type=\"validate\"}".to_owned(),
            0.0,
        ),
        ("matchcond_server_responses_total{code=\"200\"}".to_owned(), 3.0),
        ("matchcond_server_inflight_requests".to_owned(), 0.0),
        ("matchcond_server_inflight_bytes".to_owned(), 0.0),
    ] {
        assert_eq!(metric(&text, &series), Some(value), "{series}\n{text}");
    }
    // A webhook called (no matchConditions) is not timed, as in the apiserver.
    assert!(!text.contains(&format!(
        "{seconds}_count{{name=\"plain.strict.example.com\""
    )));
    assert!(text.contains(&format!("# TYPE {seconds} histogram\n")));
    let bucket = format!(
        "{seconds}_bucket{{le=\"+Inf\",name=\"fail.strict.example.com\",kind=\"webhook\",type=\"validating\",operation=\"CREATE\"}}"
    );
    assert_eq!(metric(&text, &bucket), Some(1.0));
    server.stop().await;
}

#[tokio::test]
async fn malformed_bodies_get_400() {
    let server = Server::start(&examples("webhooks.yaml")).await;
    let mut client = server.client(false).await;
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            b"not json".to_vec(),
            "malformed AdmissionReview: invalid JSON: expected ident at line 1 column 2\n",
        ),
        (
            b"".to_vec(),
            "malformed AdmissionReview: invalid JSON: EOF while parsing a value at line 1 column 0\n",
        ),
        (
            b"[1, 2]".to_vec(),
            "malformed AdmissionReview: the body must be a JSON object\n",
        ),
        (
            b"{} {}".to_vec(),
            "malformed AdmissionReview: invalid JSON: trailing characters at line 1 column 4\n",
        ),
        (
            br#"{"apiVersion": "admission.k8s.io/v1beta1", "kind": "AdmissionReview", "request": {"uid": "1"}}"#.to_vec(),
            "malformed AdmissionReview: expected apiVersion \"admission.k8s.io/v1\" and kind \"AdmissionReview\", got apiVersion \"admission.k8s.io/v1beta1\" and kind \"AdmissionReview\"\n",
        ),
        (
            br#"{"kind": "Pod"}"#.to_vec(),
            "malformed AdmissionReview: expected apiVersion \"admission.k8s.io/v1\" and kind \"AdmissionReview\", got apiVersion none and kind \"Pod\"\n",
        ),
        (
            br#"{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}"#.to_vec(),
            "malformed AdmissionReview: no \"request\" object\n",
        ),
        (
            br#"{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": [1]}"#.to_vec(),
            "malformed AdmissionReview: no \"request\" object\n",
        ),
        (
            br#"{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": 7}}"#.to_vec(),
            "malformed AdmissionReview: request.uid must be a non-empty string\n",
        ),
        (
            br#"{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": "1", "dryRun": "yes"}}"#.to_vec(),
            "malformed AdmissionReview: the admission request's field dryRun must be a boolean\n",
        ),
    ];
    for (body, want) in cases {
        let reply = client
            .request("POST", "/validate-pods", &[], full(body))
            .await
            .unwrap();
        assert_eq!(reply.status, 400, "{want}");
        assert_eq!(
            reply.header("content-type"),
            Some("text/plain; charset=utf-8")
        );
        assert_eq!(reply.body, want);
    }
    // A client that accepts JSON (as the apiserver does) gets a Status.
    let reply = client
        .request(
            "POST",
            "/validate-pods",
            &[("accept", "application/json, */*")],
            full("[]"),
        )
        .await
        .unwrap();
    assert_eq!(reply.status, 400);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(
        serde_json::from_str::<Json>(&reply.body).unwrap(),
        failure(
            400,
            "BadRequest",
            "malformed AdmissionReview: the body must be a JSON object"
        )
    );
    // The server still answers afterwards, on the same connection.
    let reply = client
        .post("/validate-pods", &review("pod-create.json"))
        .await;
    assert_eq!(reply.json()["response"]["allowed"], true);
    server.stop().await;
}

#[tokio::test]
async fn wrong_method_and_path_over_both_protocols() {
    let server = Server::start(&examples("webhooks.yaml")).await;
    let served = "/inject, /mutate/inject.sidecar.example.com, /validate-deployments, /validate-pods, /validate/deployments.policy.example.com, /validate/pods.policy.example.com";
    let body = review("pod-create.json").to_string();
    for h2 in [false, true] {
        let mut client = server.client(h2).await;
        let reply = client
            .request("GET", "/validate/pods.policy.example.com", &[], full(""))
            .await
            .unwrap();
        assert_eq!(reply.status, 405);
        assert_eq!(reply.header("allow"), Some("POST"));
        assert_eq!(
            reply.body,
            "method GET not allowed on /validate/pods.policy.example.com: use POST\n"
        );
        let reply = client
            .request("PUT", "/inject", &[], full("{}"))
            .await
            .unwrap();
        assert_eq!(reply.status, 405);
        assert_eq!(reply.body, "method PUT not allowed on /inject: use POST\n");
        for path in ["/admit", "/validate/nope.example.com", "/validate-pods/"] {
            let reply = client
                .request("POST", path, &[], full(body.clone()))
                .await
                .unwrap();
            assert_eq!(reply.status, 404, "{path}");
            assert_eq!(
                reply.body,
                format!("no webhook is served at {path}: the paths served are {served}\n")
            );
        }
        // A validating webhook is not served as a mutating one.
        let reply = client
            .request(
                "POST",
                "/mutate/pods.policy.example.com",
                &[("accept", "application/json")],
                full(body.clone()),
            )
            .await
            .unwrap();
        assert_eq!(reply.status, 404);
        let status: Json = serde_json::from_str(&reply.body).unwrap();
        assert_eq!(
            (status["reason"].as_str(), status["code"].as_u64()),
            (Some("NotFound"), Some(404))
        );
        let reply = client.get("/healthz").await;
        assert_eq!((reply.status, reply.body.as_str()), (200, "ok\n"));
        let reply = client.get("/readyz").await;
        assert_eq!((reply.status, reply.body.as_str()), (200, "ok\n"));
        let reply = client
            .request("POST", "/healthz", &[], full("x"))
            .await
            .unwrap();
        assert_eq!(reply.status, 405);
        assert_eq!(reply.header("allow"), Some("GET"));
    }
    server.stop().await;
}

#[tokio::test]
async fn bodies_over_the_limit_get_413_never_a_reset() {
    let limits = Limits {
        max_body_bytes: 64 << 10,
        ..Limits::default()
    };
    let server = Server::start_with(&examples("webhooks.yaml"), limits, false).await;
    let big = vec![b' '; 200 << 10];
    for h2 in [false, true] {
        let mut client = server.client(h2).await;
        // Declared length over the limit.
        let reply = client
            .request("POST", "/validate-pods", &[], full(big.clone()))
            .await
            .unwrap();
        assert_eq!(reply.status, 413, "h2 {h2}");
        assert_eq!(
            reply.body,
            "request body too large: 204800 bytes, the limit is 65536 bytes\n"
        );
        // No declared length: found while reading. A Status for a JSON client.
        let (tx, body) = parts();
        let sending = tokio::spawn(async move {
            for _ in 0..3 {
                if tx.send(Bytes::from(vec![b' '; 30 << 10])).await.is_err() {
                    break;
                }
            }
        });
        let reply = client
            .request(
                "POST",
                "/validate-pods",
                &[("accept", "application/json")],
                body,
            )
            .await
            .unwrap();
        sending.await.unwrap();
        assert_eq!(reply.status, 413, "h2 {h2}");
        assert_eq!(
            serde_json::from_str::<Json>(&reply.body).unwrap(),
            failure(
                413,
                "RequestEntityTooLarge",
                "request body too large: more than 65536 bytes, the limit is 65536 bytes"
            )
        );
        // A 404 with a body to drain.
        let reply = client
            .request("POST", "/nowhere", &[], full(big.clone()))
            .await
            .unwrap();
        assert_eq!(reply.status, 404, "h2 {h2}");
        // The connection still serves (HTTP/2; HTTP/1.1 after a drained body too).
        let reply = client
            .post("/validate-pods", &review("pod-create.json"))
            .await;
        assert_eq!(reply.json(), pod_create_called());
    }
    server.stop().await;
}

#[tokio::test]
async fn in_flight_requests_and_bytes_are_capped_with_503() {
    let limits = Limits {
        max_inflight_requests: 2,
        max_inflight_bytes: 64 << 10,
        ..Limits::default()
    };
    let server = Server::start_with(&examples("webhooks.yaml"), limits, false).await;
    let body = review("pod-create.json").to_string();
    let first_half = Bytes::from(body.as_bytes()[..100].to_vec());
    let rest = Bytes::from(body.as_bytes()[100..].to_vec());
    // Two slow uploads hold both request slots.
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut client = server.client(true).await;
        let (tx, part_body) = parts();
        tx.send(first_half.clone()).await.unwrap();
        let task = tokio::spawn(async move {
            client
                .request("POST", "/validate-pods", &[], part_body)
                .await
                .unwrap()
        });
        held.push((tx, task));
    }
    let metrics_text = || async { server.client(false).await.get("/metrics").await.body };
    let started = Instant::now();
    while metric(&metrics_text().await, "matchcond_server_inflight_requests") != Some(2.0) {
        assert!(started.elapsed() < Duration::from_secs(10));
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    for h2 in [false, true] {
        let reply = server
            .client(h2)
            .await
            .request("POST", "/validate-pods", &[], full(body.clone()))
            .await
            .unwrap();
        assert_eq!(reply.status, 503, "h2 {h2}");
        assert_eq!(reply.header("retry-after"), Some("1"));
        assert_eq!(
            reply.body,
            "too many admission requests in flight (the limit is 2); retry\n"
        );
    }
    for (tx, task) in held {
        tx.send(rest.clone()).await.unwrap();
        drop(tx);
        assert_eq!(task.await.unwrap().json(), pod_create_called());
    }
    // Bytes: a declared length the budget cannot hold now.
    let (tx, part_body) = parts();
    tx.send(Bytes::from(vec![b' '; 20 << 10])).await.unwrap();
    let mut slow = server.client(false).await;
    let task = tokio::spawn(async move {
        slow.request(
            "POST",
            "/validate-pods",
            &[("content-length", &(40 << 10).to_string())],
            part_body,
        )
        .await
        .unwrap()
    });
    let started = Instant::now();
    while metric(&metrics_text().await, "matchcond_server_inflight_bytes") != Some(40960.0) {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{}",
            metrics_text().await
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let reply = server
        .client(true)
        .await
        .request("POST", "/validate-pods", &[], full(vec![b' '; 30 << 10]))
        .await
        .unwrap();
    assert_eq!(reply.status, 503);
    assert_eq!(
        reply.body,
        "too many request bytes in flight (the limit is 65536 bytes); retry\n"
    );
    tx.send(Bytes::from(vec![b' '; 20 << 10])).await.unwrap();
    drop(tx);
    assert_eq!(task.await.unwrap().status, 400);
    assert_eq!(
        metric(
            &metrics_text().await,
            "matchcond_server_responses_total{code=\"503\"}"
        ),
        Some(3.0)
    );
    server.stop().await;
}

#[tokio::test]
async fn a_body_that_does_not_arrive_in_time_gets_408() {
    let limits = Limits {
        request_timeout: Duration::from_millis(300),
        ..Limits::default()
    };
    let server = Server::start_with(&examples("webhooks.yaml"), limits, false).await;
    for h2 in [false, true] {
        let (tx, body) = parts();
        tx.send(Bytes::from_static(b"{\"apiVersion\":"))
            .await
            .unwrap();
        let reply = server
            .client(h2)
            .await
            .request("POST", "/validate-pods", &[], body)
            .await
            .unwrap();
        assert_eq!(reply.status, 408, "h2 {h2}");
        assert_eq!(
            reply.body,
            "the request body did not arrive within 300ms (14 bytes received)\n"
        );
        drop(tx);
    }
    server.stop().await;
}

#[tokio::test]
async fn tls_is_required_and_verified() {
    let server = Server::start(&examples("webhooks.yaml")).await;
    // A client that trusts another certificate fails the handshake.
    let other = matchcond_webhook_server::self_signed(&["localhost".to_owned()]).unwrap();
    let other: rustls_pki_types::CertificateDer<'static> =
        rustls_pki_types::pem::PemObject::from_pem_slice(other.cert_pem.as_bytes()).unwrap();
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    let err = common::connector(&other, b"http/1.1")
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("invalid peer certificate"),
        "{err}"
    );
    // Plain HTTP on the TLS port gets no HTTP answer.
    let mut tcp = TcpStream::connect(server.addr).await.unwrap();
    tcp.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let mut got = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), tcp.read_to_end(&mut got))
        .await
        .unwrap();
    assert!(!got.starts_with(b"HTTP/"));
    // The server still answers.
    let reply = server.client(false).await.get("/healthz").await;
    assert_eq!(reply.status, 200);
    server.stop().await;
}

#[tokio::test]
async fn the_certificate_is_reloaded_when_its_files_change() {
    use matchcond_webhook_server::{certified_key, self_signed, server_config_with, CertStore};
    use rustls_pki_types::pem::PemObject as _;
    use rustls_pki_types::CertificateDer;
    let dir = common::TempDir::new("reload");
    let (cert, key) = (dir.path("tls.crt"), dir.path("tls.key"));
    let first = self_signed(&["localhost".to_owned()]).unwrap();
    // Written as Kubernetes updates a mounted secret: each file replaced whole.
    let write = |path: &str, text: &str| {
        let tmp = format!("{path}.tmp");
        std::fs::write(&tmp, text).unwrap();
        std::fs::rename(&tmp, path).unwrap();
    };
    write(&cert, &first.cert_pem);
    write(&key, &first.key_pem);
    let store =
        CertStore::new(certified_key(first.cert_pem.as_bytes(), first.key_pem.as_bytes()).unwrap());
    let webhooks =
        Webhooks::from_text(&read(&examples("webhooks.yaml")), KubeVersion::V1_34).unwrap();
    let first_ca = CertificateDer::from_pem_slice(first.cert_pem.as_bytes()).unwrap();
    let server = Server::start_tls(
        webhooks,
        Limits::default(),
        server_config_with(store.clone()).unwrap(),
        first_ca.clone(),
    )
    .await;
    let watcher = tokio::spawn(matchcond_webhook_server::tls::watch_files(
        store,
        cert.clone().into(),
        key.clone().into(),
        (
            first.cert_pem.clone().into_bytes(),
            first.key_pem.clone().into_bytes(),
        ),
        Duration::from_millis(50),
        Some(server.app.metrics.clone()),
    ));
    assert_eq!(server.client(false).await.get("/healthz").await.status, 200);
    // A renewed pair, the certificate written first: the half-written pair is refused
    // and the first certificate served until the key follows.
    let second = self_signed(&["localhost".to_owned()]).unwrap();
    write(&cert, &second.cert_pem);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(server.client(false).await.get("/healthz").await.status, 200);
    write(&key, &second.key_pem);
    let second_ca = CertificateDer::from_pem_slice(second.cert_pem.as_bytes()).unwrap();
    let started = Instant::now();
    loop {
        let tcp = TcpStream::connect(server.addr).await.unwrap();
        let ok = common::connector(&second_ca, b"http/1.1")
            .connect(ServerName::try_from("localhost").unwrap(), tcp)
            .await
            .is_ok();
        if ok {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "not reloaded");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let reply = Client::connect(server.addr, &second_ca, true)
        .await
        .post("/validate-pods", &review("pod-create.json"))
        .await;
    assert_eq!(reply.json(), pod_create_called());
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    assert!(common::connector(&first_ca, b"http/1.1")
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .is_err());
    let text = Client::connect(server.addr, &second_ca, false)
        .await
        .get("/metrics")
        .await
        .body;
    assert_eq!(
        metric(
            &text,
            "matchcond_server_certificate_reloads_total{result=\"failure\"}"
        ),
        Some(1.0)
    );
    assert_eq!(
        metric(
            &text,
            "matchcond_server_certificate_reloads_total{result=\"success\"}"
        ),
        Some(1.0)
    );
    watcher.abort();
    server.stop().await;
}

#[tokio::test]
async fn stopping_drains_and_readiness_follows() {
    let server = Server::start(&examples("webhooks.yaml")).await;
    assert!(server.app.is_ready());
    let app = server.app.clone();
    let mut client = server.client(true).await;
    let (tx, body) = parts();
    let text = review("pod-create.json").to_string();
    tx.send(Bytes::from(text.as_bytes()[..50].to_vec()))
        .await
        .unwrap();
    let pending = tokio::spawn(async move {
        client
            .request("POST", "/validate-pods", &[], body)
            .await
            .unwrap()
    });
    let started = Instant::now();
    while app.metrics.requests_in_flight() != 1 {
        assert!(started.elapsed() < Duration::from_secs(10));
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let addr = server.addr;
    let stopping = tokio::spawn(server.stop());
    let started = Instant::now();
    while TcpStream::connect(addr).await.is_ok() {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "still accepting"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(!app.is_ready());
    tx.send(Bytes::from(text.as_bytes()[50..].to_vec()))
        .await
        .unwrap();
    drop(tx);
    assert_eq!(pending.await.unwrap().json(), pod_create_called());
    let drained = stopping.await.unwrap();
    // The probe above may have got a connection in before the listener closed.
    assert!(drained.connections >= 1, "{drained:?}");
    assert_eq!(
        (drained.requests, drained.answered, drained.abandoned),
        (1, 1, 0)
    );
}

#[test]
fn configurations_the_server_refuses() {
    let err = Webhooks::from_text(&read(&data("refused.yaml")), KubeVersion::V1_34).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the apiserver would refuse the configuration:\n\
         ValidatingWebhookConfiguration refused: webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]\n\
         ValidatingWebhookConfiguration refused: webhooks[0].matchConditions[0].expression: Invalid value: \"1 + 2\": must evaluate to bool but got int"
    );
    let err = Webhooks::from_text(&read(&data("duplicate.yaml")), KubeVersion::V1_34).unwrap_err();
    assert_eq!(
        err.to_string(),
        "validating webhook \"same.example.com\" is defined twice (configurations \"first\" and \"second\"); the server routes by webhook name"
    );
    let err = Webhooks::from_text(&read(&data("clash.yaml")), KubeVersion::V1_34).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the server routes by path and cannot serve this configuration:\n\
         path \"/metrics\" of validating webhook \"c.clash.example.com\" (its clientConfig.service.path) is one the server answers itself (/healthz, /readyz, /metrics)\n\
         path \"/validate\" would serve several webhooks: validating webhook \"a.clash.example.com\" (its clientConfig.service.path) and validating webhook \"b.clash.example.com\" (the path of its clientConfig.url)\n\
         path \"/validate/a.clash.example.com\" would serve several webhooks: mutating webhook \"d.clash.example.com\" (its clientConfig.service.path) and validating webhook \"a.clash.example.com\" (its /validate/<name> route)"
    );
    let err = Webhooks::from_text("kind: Pod\n", KubeVersion::V1_34).unwrap_err();
    assert_eq!(
        err.to_string(),
        "1:1: no ValidatingWebhookConfiguration or MutatingWebhookConfiguration found"
    );
    let err = Webhooks::from_text("", KubeVersion::V1_34).unwrap_err();
    assert_eq!(
        err.to_string(),
        "1:1: no ValidatingWebhookConfiguration or MutatingWebhookConfiguration found"
    );
    // Strict loading: a typo'd field is refused with its path and position.
    let text = read(&examples("webhooks.yaml")).replace("matchConditions:", "matchCondition:");
    let err = Webhooks::from_text(&text, KubeVersion::V1_34).unwrap_err();
    assert!(
        err.to_string().starts_with(
            "21:5: webhooks[0].matchCondition: unknown field (did you mean matchConditions?)"
        ),
        "{err}"
    );
}
