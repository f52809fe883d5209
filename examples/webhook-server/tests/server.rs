//! Starts the server on 127.0.0.1 with a self-signed certificate and sends it real
//! AdmissionReviews over HTTPS (HTTP/1.1 and HTTP/2), checking the exact answers.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::Arc;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::Request;
use hyper_util::rt::{TokioExecutor, TokioIo};
use matchcond::KubeVersion;
use matchcond_webhook_server::tls::crypto_provider;
use matchcond_webhook_server::{router, self_signed, serve, server_config, Webhooks};
use rustls::{ClientConfig, RootCertStore};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, ServerName};
use serde_json::{json, Value as Json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio_rustls::TlsConnector;

fn examples(path: &str) -> String {
    format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"))
}

fn data(path: &str) -> String {
    format!("{}/tests/data/{path}", env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap()
}

fn review(name: &str) -> Json {
    serde_json::from_str(&read(&examples(&format!("reviews/{name}")))).unwrap()
}

struct Server {
    addr: SocketAddr,
    ca: CertificateDer<'static>,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl Server {
    async fn start(config: &str) -> Server {
        let webhooks = Webhooks::from_text(&read(config), KubeVersion::V1_34).unwrap();
        let generated = self_signed(&["localhost".to_owned()]).unwrap();
        let tls =
            server_config(generated.cert_pem.as_bytes(), generated.key_pem.as_bytes()).unwrap();
        let ca = CertificateDer::from_pem_slice(generated.cert_pem.as_bytes()).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(serve(
            listener,
            Arc::new(tls),
            router(Arc::new(webhooks)),
            async {
                let _ = stopped.await;
            },
        ));
        Server {
            addr,
            ca,
            stop: Some(stop),
            task,
        }
    }

    async fn stop(mut self) {
        if let Some(s) = self.stop.take() {
            s.send(()).unwrap();
        }
        tokio::time::timeout(std::time::Duration::from_secs(5), &mut self.task)
            .await
            .unwrap()
            .unwrap();
    }

    fn client(&self, alpn: &[u8], trusted: bool) -> TlsConnector {
        let mut roots = RootCertStore::empty();
        if trusted {
            roots.add(self.ca.clone()).unwrap();
        }
        let mut config = ClientConfig::builder_with_provider(crypto_provider())
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.alpn_protocols = vec![alpn.to_vec()];
        TlsConnector::from(Arc::new(config))
    }

    async fn send(&self, method: &str, path: &str, body: &[u8]) -> Reply {
        send_to(
            self.addr,
            self.client(b"http/1.1", true),
            false,
            method,
            path,
            body,
        )
        .await
    }

    async fn send_h2(&self, method: &str, path: &str, body: &[u8]) -> Reply {
        send_to(
            self.addr,
            self.client(b"h2", true),
            true,
            method,
            path,
            body,
        )
        .await
    }

    async fn post(&self, path: &str, review: &Json) -> Reply {
        self.send("POST", path, review.to_string().as_bytes()).await
    }
}

#[derive(Debug)]
struct Reply {
    status: u16,
    content_type: String,
    allow: Option<String>,
    body: String,
}

impl Reply {
    fn json(&self) -> Json {
        assert_eq!(self.status, 200, "{}", self.body);
        assert_eq!(self.content_type, "application/json");
        serde_json::from_str(&self.body).unwrap()
    }
}

async fn send_to(
    addr: SocketAddr,
    connector: TlsConnector,
    h2: bool,
    method: &str,
    path: &str,
    body: &[u8],
) -> Reply {
    let tcp = TcpStream::connect(addr).await.unwrap();
    let tls = connector
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .unwrap();
    let negotiated = tls.get_ref().1.alpn_protocol().map(<[u8]>::to_vec);
    let uri = if h2 {
        format!("https://localhost:{}{path}", addr.port())
    } else {
        path.to_owned()
    };
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .header("host", format!("localhost:{}", addr.port()))
        .header("content-type", "application/json")
        .body(Full::new(Bytes::copy_from_slice(body)))
        .unwrap();
    let response = if h2 {
        assert_eq!(negotiated.as_deref(), Some(&b"h2"[..]));
        let (mut sender, conn) =
            hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(tls))
                .await
                .unwrap();
        tokio::spawn(conn);
        sender.send_request(request).await.unwrap()
    } else {
        assert_eq!(negotiated.as_deref(), Some(&b"http/1.1"[..]));
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
            .await
            .unwrap();
        tokio::spawn(conn);
        sender.send_request(request).await.unwrap()
    };
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
    };
    let status = response.status().as_u16();
    let content_type = header("content-type").unwrap_or_default();
    let allow = header("allow");
    let body = response.into_body().collect().await.unwrap().to_bytes();
    Reply {
        status,
        content_type,
        allow,
        body: String::from_utf8(body.to_vec()).unwrap(),
    }
}

fn admission_response(response: Json) -> Json {
    json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response})
}

#[tokio::test]
async fn pod_create_calls_the_pods_webhook() {
    let server = Server::start(&examples("webhooks.yaml")).await;
    let reply = server
        .post(
            "/validate/pods.policy.example.com",
            &review("pod-create.json"),
        )
        .await;
    assert_eq!(
        reply.json(),
        admission_response(json!({
            "uid": "5e47603a-d537-4826-af6d-af0ed1ddaada",
            "allowed": true,
            "status": {
                "status": "Success",
                "code": 200,
                "message": "webhook \"pods.policy.example.com\" is called: all 3 of its matchConditions are true"
            },
            "warnings": [
                "matchCondition \"exclude-kube-system\": true",
                "matchCondition \"exclude-kubelet\": true",
                "matchCondition \"app-web-only\": true"
            ],
            "auditAnnotations": {"matchcond-decision": "call"}
        }))
    );
    server.stop().await;
}

#[tokio::test]
async fn every_example_review_is_answered() {
    let server = Server::start(&examples("webhooks.yaml")).await;
    // The DELETE has no object: the label condition is false and the webhook is skipped.
    let reply = server
        .post(
            "/validate/pods.policy.example.com",
            &review("configmap-delete.json"),
        )
        .await;
    assert_eq!(
        reply.json(),
        admission_response(json!({
            "uid": "7ee6fb9d-b169-4f2f-a89f-0ebde2d28ee6",
            "allowed": true,
            "status": {
                "status": "Success",
                "code": 200,
                "message": "webhook \"pods.policy.example.com\" is not called (the apiserver would skip it): matchCondition \"app-web-only\" is false"
            },
            "warnings": [
                "matchCondition \"exclude-kube-system\": true",
                "matchCondition \"exclude-kubelet\": true",
                "matchCondition \"app-web-only\": false"
            ],
            "auditAnnotations": {"matchcond-decision": "skip"}
        }))
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
        admission_response(json!({
            "uid": "600754d1-f5ee-4284-a75c-18aa6aeab770",
            "allowed": true,
            "status": {
                "status": "Success",
                "code": 200,
                "message": "webhook \"deployments.policy.example.com\" is called: all 2 of its matchConditions are true"
            },
            "warnings": [
                "matchCondition \"spec-changed\": true",
                "matchCondition \"not-breakglass\": true"
            ],
            "auditAnnotations": {"matchcond-decision": "call"}
        }))
    );
    // A mutating webhook, over HTTP/2.
    let reply = server
        .send_h2(
            "POST",
            "/mutate/inject.sidecar.example.com",
            review("pod-create.json").to_string().as_bytes(),
        )
        .await;
    assert_eq!(
        reply.json(),
        admission_response(json!({
            "uid": "5e47603a-d537-4826-af6d-af0ed1ddaada",
            "allowed": true,
            "status": {
                "status": "Success",
                "code": 200,
                "message": "webhook \"inject.sidecar.example.com\" is called: all 2 of its matchConditions are true"
            },
            "warnings": [
                "matchCondition \"not-dry-run\": true",
                "matchCondition \"no-opt-out\": true"
            ],
            "auditAnnotations": {"matchcond-decision": "call"}
        }))
    );
    server.stop().await;
}

#[tokio::test]
async fn a_changed_request_skips_on_the_first_false_condition() {
    let server = Server::start(&examples("webhooks.yaml")).await;
    let mut r = review("pod-create.json");
    r["request"]["namespace"] = json!("kube-system");
    r["request"]["uid"] = json!("u-1");
    let reply = server.post("/validate/pods.policy.example.com", &r).await;
    let v = reply.json();
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
            "warnings": ["matchCondition \"gold-tier\": error"],
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
        admission_response(json!({
            "uid": "5e47603a-d537-4826-af6d-af0ed1ddaada",
            "allowed": true,
            "status": {
                "status": "Success",
                "code": 200,
                "message": format!("webhook \"ignore.strict.example.com\" is not called (the apiserver would skip it): its matchConditions failed and its failurePolicy is Ignore: {error}")
            },
            "warnings": [
                "matchCondition \"not-kube-system\": true",
                "matchCondition \"gold-tier\": error"
            ],
            "auditAnnotations": {"matchcond-decision": "skip"}
        }))
    );
    // No matchConditions: always called, no warnings.
    let reply = server
        .post(
            "/validate/plain.strict.example.com",
            &review("configmap-delete.json"),
        )
        .await;
    assert_eq!(
        reply.json(),
        admission_response(json!({
            "uid": "7ee6fb9d-b169-4f2f-a89f-0ebde2d28ee6",
            "allowed": true,
            "status": {
                "status": "Success",
                "code": 200,
                "message": "webhook \"plain.strict.example.com\" is called: it has no matchConditions"
            },
            "auditAnnotations": {"matchcond-decision": "call"}
        }))
    );
    server.stop().await;
}

#[tokio::test]
async fn malformed_bodies_get_400() {
    let server = Server::start(&examples("webhooks.yaml")).await;
    let path = "/validate/pods.policy.example.com";
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
            br#"{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": 7}}"#.to_vec(),
            "malformed AdmissionReview: request.uid must be a non-empty string\n",
        ),
        (
            br#"{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": "1", "dryRun": "yes"}}"#.to_vec(),
            "malformed AdmissionReview: the admission request's field dryRun must be a boolean\n",
        ),
    ];
    for (body, want) in cases {
        let reply = server.send("POST", path, &body).await;
        assert_eq!(reply.status, 400, "{want}");
        assert_eq!(reply.content_type, "text/plain; charset=utf-8");
        assert_eq!(reply.body, want);
    }
    // The server still answers afterwards.
    let reply = server.post(path, &review("pod-create.json")).await;
    assert_eq!(reply.json()["response"]["allowed"], true);
    server.stop().await;
}

#[tokio::test]
async fn wrong_method_and_path() {
    let server = Server::start(&examples("webhooks.yaml")).await;
    let reply = server
        .send("GET", "/validate/pods.policy.example.com", b"")
        .await;
    assert_eq!(reply.status, 405);
    assert_eq!(reply.allow.as_deref(), Some("POST"));
    assert_eq!(
        reply.body,
        "method GET not allowed on /validate/pods.policy.example.com: use POST\n"
    );
    let reply = server
        .send_h2("PUT", "/mutate/inject.sidecar.example.com", b"{}")
        .await;
    assert_eq!(reply.status, 405);
    assert_eq!(
        reply.body,
        "method PUT not allowed on /mutate/inject.sidecar.example.com: use POST\n"
    );
    let body = review("pod-create.json").to_string();
    let reply = server.send("POST", "/admit", body.as_bytes()).await;
    assert_eq!(reply.status, 404);
    assert_eq!(
        reply.body,
        "no route for POST /admit: POST AdmissionReviews to /validate/<webhook> or /mutate/<webhook>\n"
    );
    let reply = server
        .send("POST", "/validate/nope.example.com", body.as_bytes())
        .await;
    assert_eq!(reply.status, 404);
    assert_eq!(
        reply.body,
        "no validating webhook named \"nope.example.com\" (known: deployments.policy.example.com, pods.policy.example.com)\n"
    );
    // A validating webhook is not served as a mutating one.
    let reply = server
        .send("POST", "/mutate/pods.policy.example.com", body.as_bytes())
        .await;
    assert_eq!(reply.status, 404);
    assert_eq!(
        reply.body,
        "no mutating webhook named \"pods.policy.example.com\" (known: inject.sidecar.example.com)\n"
    );
    let reply = server.send("GET", "/healthz", b"").await;
    assert_eq!((reply.status, reply.body.as_str()), (200, "ok\n"));
    server.stop().await;
}

#[tokio::test]
async fn tls_is_required_and_verified() {
    let server = Server::start(&examples("webhooks.yaml")).await;
    // A client that does not trust the certificate fails the handshake.
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    let err = server
        .client(b"http/1.1", false)
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
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), tcp.read_to_end(&mut got))
        .await
        .unwrap();
    assert!(!got.starts_with(b"HTTP/"));
    // The server still answers.
    let reply = server.send("GET", "/healthz", b"").await;
    assert_eq!(reply.status, 200);
    server.stop().await;
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

fn binary() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_matchcond-webhook-server"));
    c.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

#[test]
fn binary_refuses_unusable_input() {
    let out = binary()
        .args(["--config", &data("refused.yaml"), "--self-signed"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with(&format!(
            "matchcond-webhook-server: {}: the apiserver would refuse the configuration:\n",
            data("refused.yaml")
        )),
        "{stderr}"
    );
    let out = binary()
        .args(["--config", &data("missing.yaml"), "--self-signed"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("missing.yaml: cannot read: "));
    // Neither a certificate nor --self-signed.
    let out = binary()
        .args(["--config", &examples("webhooks.yaml")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // A key that is not PEM.
    let out = binary()
        .args([
            "--config",
            &examples("webhooks.yaml"),
            "--cert",
            &examples("webhooks.yaml"),
            "--key",
            &examples("webhooks.yaml"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "matchcond-webhook-server: {}: certificate: no CERTIFICATE block found\n",
            examples("webhooks.yaml")
        )
    );
}

#[test]
fn binary_serves_with_a_self_signed_certificate() {
    let cert_path = std::env::temp_dir().join(format!(
        "matchcond-webhook-server-test-{}.pem",
        std::process::id()
    ));
    struct KillOnDrop(std::process::Child);
    impl Drop for KillOnDrop {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut child = binary();
    child.stderr(Stdio::null());
    let mut child = child
        .args([
            "--config",
            &examples("webhooks.yaml"),
            "--self-signed",
            "--san",
            "localhost",
            "--write-cert",
            cert_path.to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
        ])
        .spawn()
        .map(KillOnDrop)
        .unwrap();
    let mut lines = BufReader::new(child.0.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let addr: SocketAddr = first
        .strip_prefix("listening on https://")
        .unwrap()
        .parse()
        .unwrap();
    let routes: Vec<String> = lines.take(3).map(Result::unwrap).collect();
    assert_eq!(
        routes,
        [
            "  POST /mutate/inject.sidecar.example.com (2 matchConditions, failurePolicy Fail)",
            "  POST /validate/deployments.policy.example.com (2 matchConditions, failurePolicy Ignore)",
            "  POST /validate/pods.policy.example.com (3 matchConditions, failurePolicy Fail)",
        ]
    );
    let ca = CertificateDer::from_pem_file(&cert_path).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let reply = runtime.block_on(async {
        let server = Server {
            addr,
            ca,
            stop: None,
            task: tokio::spawn(async {}),
        };
        server
            .post(
                "/validate/pods.policy.example.com",
                &review("pod-create.json"),
            )
            .await
    });
    drop(child);
    let _ = std::fs::remove_file(&cert_path);
    let v = reply.json();
    assert_eq!(v["response"]["uid"], "5e47603a-d537-4826-af6d-af0ed1ddaada");
    assert_eq!(v["response"]["allowed"], true);
}
