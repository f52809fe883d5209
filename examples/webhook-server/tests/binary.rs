//! Runs the `matchcond-webhook-server` binary as an operator would: startup errors, the
//! self-signed certificate kept across restarts, the addresses it listens on, its logs,
//! and the drain of in-flight uploads on SIGTERM.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{data, example_args, examples, metric, parts, review, Binary, Client, TempDir};
use hyper::body::Bytes;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::CertificateDer;
use serde_json::Value as Json;

fn run(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_matchcond-webhook-server"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8(out.stderr).unwrap())
}

/// The JSON log lines of a standard error.
fn log_lines(stderr: &str) -> Vec<Json> {
    stderr
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn messages(lines: &[Json]) -> Vec<&str> {
    lines
        .iter()
        .map(|l| l["message"].as_str().unwrap())
        .collect()
}

#[test]
fn unusable_input_stops_the_server_with_code_2() {
    for (file, problem) in [
        (
            "refused.yaml",
            "the apiserver would refuse the configuration",
        ),
        (
            "clash.yaml",
            "the server routes by path and cannot serve this configuration",
        ),
    ] {
        let (code, stderr) = run(&["--config", &data(file), "--self-signed"]);
        assert_eq!(code, Some(2));
        let head = format!("matchcond-webhook-server: {}: {problem}:\n", data(file));
        assert!(stderr.starts_with(&head), "{stderr}");
    }
    let (code, stderr) = run(&["--config", &data("missing.yaml"), "--self-signed"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("missing.yaml: cannot read: "), "{stderr}");
    // Neither a certificate nor --self-signed.
    let (code, _) = run(&["--config", &examples("webhooks.yaml")]);
    assert_eq!(code, Some(2));
    // A key that is not PEM.
    let webhooks = examples("webhooks.yaml");
    let (code, stderr) = run(&[
        "--config", &webhooks, "--cert", &webhooks, "--key", &webhooks,
    ]);
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr,
        format!("matchcond-webhook-server: {webhooks}: certificate: no CERTIFICATE block found\n")
    );
    // Bad flag values.
    for (flag, value, want) in [
        (
            "--listen",
            "8443",
            "invalid address \"8443\" (expected HOST:PORT or :PORT)",
        ),
        (
            "--grace-period",
            "30",
            "invalid duration \"30\": the unit must be ms, s, m or h",
        ),
        (
            "--max-body-bytes",
            "16MB",
            "invalid size \"16MB\": the suffix must be Ki, Mi, Gi, k, M or G",
        ),
    ] {
        let (code, stderr) = run(&["--config", &webhooks, "--self-signed", flag, value]);
        assert_eq!(code, Some(2));
        assert!(stderr.contains(want), "{stderr}");
    }
    // An address in use.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let (code, stderr) = run(&["--config", &webhooks, "--self-signed", "--listen", &addr]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.starts_with(&format!(
            "matchcond-webhook-server: cannot listen on {addr}: "
        )),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_and_logs_each_review_at_debug_level() {
    let dir = TempDir::new("debug");
    let cert = dir.path("ca.pem");
    let server = Binary::start(&example_args(
        &cert,
        "127.0.0.1:0",
        &[
            "--san",
            "localhost",
            "--log-level",
            "debug",
            "--log-format",
            "json",
        ],
    ));
    assert_eq!(
        server.routes,
        [
            "  POST /inject, /mutate/inject.sidecar.example.com (2 matchConditions, failurePolicy Fail)",
            "  POST /validate-deployments, /validate/deployments.policy.example.com (2 matchConditions, failurePolicy Ignore)",
            "  POST /validate-pods, /validate/pods.policy.example.com (3 matchConditions, failurePolicy Fail)",
        ]
    );
    let ca = CertificateDer::from_pem_file(&cert).unwrap();
    let mut client = Client::connect(server.addr, &ca, false).await;
    let v = client
        .post("/validate-pods", &review("pod-create.json"))
        .await
        .json();
    assert_eq!(v["response"]["allowed"], true);
    drop(client);
    server.signal("INT");
    let (code, stderr) = tokio::task::block_in_place(|| server.wait(Duration::from_secs(10)));
    assert_eq!(code, Some(0), "{stderr}");
    let lines = log_lines(&stderr);
    let decided: Vec<&Json> = lines
        .iter()
        .filter(|l| l.get("decision").is_some())
        .collect();
    assert_eq!(decided.len(), 1, "{stderr}");
    let line = decided[0];
    assert_eq!(line["level"], "DEBUG");
    assert_eq!(line["webhook"], "pods.policy.example.com");
    assert_eq!(line["uid"], "5e47603a-d537-4826-af6d-af0ed1ddaada");
    assert_eq!(line["operation"], "CREATE");
    assert_eq!(line["decision"], "call");
    assert_eq!(
        line["message"],
        "webhook \"pods.policy.example.com\" is called: all 3 of its matchConditions are true"
    );
    assert!(line["evaluation_us"].is_u64());
    let shutdown = lines
        .iter()
        .find(|l| l["message"] == "shutting down")
        .unwrap();
    assert_eq!(shutdown["signal"], "SIGINT");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_self_signed_certificate_is_kept_across_restarts() {
    let dir = TempDir::new("keep");
    let (cert, key) = (dir.path("tls.crt"), dir.path("tls.key"));
    let args = [
        "--config",
        &examples("webhooks.yaml"),
        "--self-signed",
        "--write-cert",
        &cert,
        "--write-key",
        &key,
        "--listen",
        "localhost:0",
        "--log-format",
        "json",
    ];
    let first = Binary::start(&args);
    assert!(first.addr.ip().is_loopback());
    let ca = CertificateDer::from_pem_file(&cert).unwrap();
    let kept = std::fs::read(&cert).unwrap();
    let reply = Client::connect(first.addr, &ca, true)
        .await
        .get("/readyz")
        .await;
    assert_eq!((reply.status, reply.body.as_str()), (200, "ok\n"));
    first.signal("TERM");
    let (code, stderr) = tokio::task::block_in_place(|| first.wait(Duration::from_secs(10)));
    assert_eq!(code, Some(0));
    assert_eq!(
        messages(&log_lines(&stderr))[0],
        "generated a self-signed certificate; later starts reuse it"
    );
    // The second start serves the same certificate: clients (the caBundle) keep trusting it.
    let second = Binary::start(&args);
    let reply = Client::connect(second.addr, &ca, false)
        .await
        .post("/inject", &review("pod-create.json"))
        .await;
    assert_eq!(reply.json()["response"]["allowed"], true);
    second.signal("TERM");
    let (code, stderr) = tokio::task::block_in_place(|| second.wait(Duration::from_secs(10)));
    assert_eq!(code, Some(0));
    assert_eq!(
        messages(&log_lines(&stderr))[0],
        "serving the self-signed certificate written by an earlier start"
    );
    assert_eq!(std::fs::read(&cert).unwrap(), kept);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listens_on_every_interface_with_a_port_alone() {
    let dir = TempDir::new("any");
    let cert = dir.path("ca.pem");
    let server = Binary::start(&example_args(&cert, ":0", &[]));
    assert!(server.addr.ip().is_unspecified(), "{}", server.addr);
    let ca = CertificateDer::from_pem_file(&cert).unwrap();
    let v4 = std::net::SocketAddr::from(([127, 0, 0, 1], server.addr.port()));
    let reply = Client::connect(v4, &ca, false).await.get("/healthz").await;
    assert_eq!(reply.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_drains_sixteen_slow_uploads() {
    let dir = TempDir::new("drain");
    let cert = dir.path("ca.pem");
    let server = Binary::start(&example_args(
        &cert,
        "127.0.0.1:0",
        &["--log-format", "json", "--grace-period", "20s"],
    ));
    let ca = CertificateDer::from_pem_file(&cert).unwrap();
    let body = review("pod-create.json").to_string();
    let (head, tail) = body.as_bytes().split_at(body.len() / 2);
    let (head, tail) = (Bytes::from(head.to_vec()), Bytes::from(tail.to_vec()));
    // 8 uploads on HTTP/1.1 connections and 8 streams of one HTTP/2 connection, each
    // half sent.
    let h2 = Client::connect(server.addr, &ca, true).await;
    let mut uploads = Vec::new();
    for i in 0..16 {
        let mut client = if i < 8 {
            Client::connect(server.addr, &ca, false).await
        } else {
            h2.clone()
        };
        let (tx, part_body) = parts();
        tx.send(head.clone()).await.unwrap();
        let task = tokio::spawn(async move {
            client
                .request(
                    "POST",
                    "/validate-pods",
                    &[("content-type", "application/json")],
                    part_body,
                )
                .await
        });
        uploads.push((tx, task));
    }
    let started = Instant::now();
    loop {
        let text = Client::connect(server.addr, &ca, false)
            .await
            .get("/metrics")
            .await
            .body;
        if metric(&text, "matchcond_server_inflight_requests") == Some(16.0) {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "{text}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.signal("TERM");
    // The listener closes at once; the uploads go on.
    let started = Instant::now();
    while tokio::net::TcpStream::connect(server.addr).await.is_ok() {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "still accepting"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    for (tx, _) in &uploads {
        tx.send(tail.clone()).await.unwrap();
    }
    let mut answered = 0;
    for (tx, task) in uploads {
        drop(tx);
        let reply = task.await.unwrap().unwrap();
        let v = reply.json();
        assert_eq!(v["response"]["uid"], "5e47603a-d537-4826-af6d-af0ed1ddaada");
        assert_eq!(v["response"]["allowed"], true);
        answered += 1;
    }
    assert_eq!(answered, 16);
    drop(h2);
    let (code, stderr) = tokio::task::block_in_place(|| server.wait(Duration::from_secs(20)));
    assert_eq!(code, Some(0), "{stderr}");
    let lines = log_lines(&stderr);
    // Quiet on success: nothing per review.
    assert_eq!(
        messages(&lines),
        [
            "generated a self-signed certificate; without --write-key the next start makes a new one",
            "serving",
            "shutting down",
            "stopped accepting connections; draining",
            "drained: every request in flight was answered",
        ],
        "{stderr}"
    );
    let drained = &lines[4];
    assert_eq!(drained["level"], "INFO");
    assert_eq!(
        (drained["requests"].as_u64(), drained["answered"].as_u64()),
        (Some(16), Some(16))
    );
    assert!(drained["connections"].as_u64().unwrap() >= 9, "{drained}");
    assert_eq!(lines[2]["signal"], "SIGTERM");
    assert_eq!(lines[2]["grace_period"], "20s");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_floor_answers_one_fixed_review_over_both_protocols() {
    let dir = TempDir::new("floor");
    let cert = dir.path("ca.pem");
    let server = Binary::start(&example_args(&cert, "127.0.0.1:0", &["--floor"]));
    let ca = CertificateDer::from_pem_file(&cert).unwrap();
    let fixed = serde_json::json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "response": {"uid": "00000000-0000-0000-0000-000000000000", "allowed": true}
    });
    for h2 in [false, true] {
        let mut client = Client::connect(server.addr, &ca, h2).await;
        // Any path, any body: nothing is decided.
        for path in ["/validate-pods", "/nothing-here"] {
            let reply = client.post(path, &review("pod-create.json")).await;
            assert_eq!(reply.status, 200);
            assert_eq!(reply.header("content-type"), Some("application/json"));
            assert_eq!(reply.json(), fixed);
        }
    }
    server.signal("TERM");
    let (code, stderr) = tokio::task::block_in_place(|| server.wait(Duration::from_secs(10)));
    assert_eq!(code, Some(0), "{stderr}");
}
