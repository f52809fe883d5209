//! What the tests share: an HTTPS client (HTTP/1.1 or HTTP/2 by ALPN, trusting one
//! certificate), bodies sent whole or bit by bit, the server run in-process or as the
//! binary.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::convert::Infallible;
use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::pin::Pin;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Frame};
use hyper::Request;
use hyper_util::rt::{TokioExecutor, TokioIo};
use matchcond::KubeVersion;
use matchcond_webhook_server::tls::crypto_provider;
use matchcond_webhook_server::{
    self_signed, serve, server_config, App, Limits, ServeOptions, Webhooks,
};
use rustls::{ClientConfig, RootCertStore};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, ServerName};
use serde_json::Value as Json;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot};
use tokio_rustls::TlsConnector;

pub type Body = BoxBody<Bytes, Infallible>;

pub fn examples(path: &str) -> String {
    format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"))
}

pub fn data(path: &str) -> String {
    format!("{}/tests/data/{path}", env!("CARGO_MANIFEST_DIR"))
}

pub fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap()
}

pub fn review(name: &str) -> Json {
    serde_json::from_str(&read(&examples(&format!("reviews/{name}")))).unwrap()
}

pub fn full(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into()).boxed()
}

/// A body sent in parts, as the test pushes them.
pub struct Parts(mpsc::Receiver<Bytes>);

impl hyper::body::Body for Parts {
    type Data = Bytes;
    type Error = Infallible;
    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0.poll_recv(cx).map(|b| b.map(|b| Ok(Frame::data(b))))
    }
}

/// A body whose parts the returned sender pushes; dropping the sender ends it.
pub fn parts() -> (mpsc::Sender<Bytes>, Body) {
    let (tx, rx) = mpsc::channel(16);
    (tx, Parts(rx).boxed())
}

#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: hyper::HeaderMap,
    pub body: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().unwrap())
    }

    pub fn json(&self) -> Json {
        assert_eq!(self.status, 200, "{}", self.body);
        assert_eq!(self.header("content-type"), Some("application/json"));
        serde_json::from_str(&self.body).unwrap()
    }
}

pub fn connector(ca: &CertificateDer<'static>, alpn: &[u8]) -> TlsConnector {
    let mut roots = RootCertStore::empty();
    roots.add(ca.clone()).unwrap();
    let mut config = ClientConfig::builder_with_provider(crypto_provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![alpn.to_vec()];
    TlsConnector::from(Arc::new(config))
}

/// One client connection, HTTP/1.1 or HTTP/2.
pub enum Client {
    H1(SocketAddr, hyper::client::conn::http1::SendRequest<Body>),
    H2(SocketAddr, hyper::client::conn::http2::SendRequest<Body>),
}

impl Clone for Client {
    /// Another handle on an HTTP/2 connection, to send requests on concurrent streams.
    fn clone(&self) -> Client {
        match self {
            Client::H2(a, s) => Client::H2(*a, s.clone()),
            Client::H1(..) => panic!("an HTTP/1.1 connection sends one request at a time"),
        }
    }
}

impl Client {
    pub async fn connect(addr: SocketAddr, ca: &CertificateDer<'static>, h2: bool) -> Client {
        let tcp = TcpStream::connect(addr).await.unwrap();
        tcp.set_nodelay(true).unwrap();
        let alpn: &[u8] = if h2 { b"h2" } else { b"http/1.1" };
        let tls = connector(ca, alpn)
            .connect(ServerName::try_from("localhost").unwrap(), tcp)
            .await
            .unwrap();
        assert_eq!(tls.get_ref().1.alpn_protocol(), Some(alpn));
        if h2 {
            let (sender, conn) =
                hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(tls))
                    .await
                    .unwrap();
            tokio::spawn(conn);
            Client::H2(addr, sender)
        } else {
            let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
                .await
                .unwrap();
            tokio::spawn(conn);
            Client::H1(addr, sender)
        }
    }

    pub async fn request(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Body,
    ) -> Result<Reply, hyper::Error> {
        let (addr, h2) = match self {
            Client::H1(a, _) => (*a, false),
            Client::H2(a, _) => (*a, true),
        };
        let uri = if h2 {
            format!("https://localhost:{}{path}", addr.port())
        } else {
            path.to_owned()
        };
        let mut request = Request::builder().method(method).uri(uri);
        if !h2 {
            request = request.header("host", format!("localhost:{}", addr.port()));
        }
        for (k, v) in headers {
            request = request.header(*k, *v);
        }
        let request = request.body(body).unwrap();
        let response = match self {
            Client::H1(_, s) => {
                s.ready().await?;
                s.send_request(request).await?
            }
            Client::H2(_, s) => s.send_request(request).await?,
        };
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = response.into_body().collect().await?.to_bytes();
        Ok(Reply {
            status,
            headers,
            body: String::from_utf8(body.to_vec()).unwrap(),
        })
    }

    pub async fn post(&mut self, path: &str, review: &Json) -> Reply {
        self.request(
            "POST",
            path,
            &[("content-type", "application/json")],
            full(review.to_string()),
        )
        .await
        .unwrap()
    }

    pub async fn get(&mut self, path: &str) -> Reply {
        self.request("GET", path, &[], full(Bytes::new()))
            .await
            .unwrap()
    }
}

/// The server run in-process on 127.0.0.1 with a self-signed certificate.
pub struct Server {
    pub addr: SocketAddr,
    pub ca: CertificateDer<'static>,
    pub app: Arc<App>,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<matchcond_webhook_server::Drained>,
}

impl Server {
    pub async fn start(config: &str) -> Server {
        Server::start_with(config, Limits::default(), false).await
    }

    pub async fn start_with(config: &str, limits: Limits, warnings: bool) -> Server {
        let webhooks = Webhooks::from_text(&read(config), KubeVersion::V1_34)
            .unwrap()
            .with_warnings(warnings);
        let generated = self_signed(&["localhost".to_owned()]).unwrap();
        let tls =
            server_config(generated.cert_pem.as_bytes(), generated.key_pem.as_bytes()).unwrap();
        let ca = CertificateDer::from_pem_slice(generated.cert_pem.as_bytes()).unwrap();
        Server::start_tls(webhooks, limits, tls, ca).await
    }

    pub async fn start_tls(
        webhooks: Webhooks,
        limits: Limits,
        tls: rustls::ServerConfig,
        ca: CertificateDer<'static>,
    ) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = App::new(webhooks, limits);
        let (stop, stopped) = oneshot::channel::<()>();
        let ready = app.clone();
        let task = tokio::spawn(serve(
            listener,
            Arc::new(tls),
            app.clone(),
            ServeOptions::default(),
            async {
                let _ = stopped.await;
            },
        ));
        while !ready.is_ready() {
            tokio::task::yield_now().await;
        }
        Server {
            addr,
            ca,
            app,
            stop: Some(stop),
            task,
        }
    }

    pub async fn client(&self, h2: bool) -> Client {
        Client::connect(self.addr, &self.ca, h2).await
    }

    pub async fn post(&self, path: &str, review: &Json) -> Reply {
        self.client(false).await.post(path, review).await
    }

    pub async fn stop(mut self) -> matchcond_webhook_server::Drained {
        if let Some(s) = self.stop.take() {
            s.send(()).unwrap();
        }
        tokio::time::timeout(Duration::from_secs(10), &mut self.task)
            .await
            .unwrap()
            .unwrap()
    }
}

/// The arguments that serve `examples/webhooks.yaml` on `listen` with a self-signed
/// certificate written to `cert`, then `more`.
pub fn example_args(cert: &str, listen: &str, more: &[&str]) -> Vec<String> {
    let mut args = vec![
        "--config".to_owned(),
        examples("webhooks.yaml"),
        "--self-signed".to_owned(),
        "--write-cert".to_owned(),
        cert.to_owned(),
        "--listen".to_owned(),
        listen.to_owned(),
    ];
    args.extend(more.iter().map(|a| (*a).to_owned()));
    args
}

/// The binary, killed on drop.
pub struct Binary {
    pub child: Child,
    pub addr: SocketAddr,
    pub routes: Vec<String>,
    stderr: std::thread::JoinHandle<String>,
}

impl Binary {
    /// Starts the binary with the arguments, reads the address it listens on and the
    /// routes it prints.
    pub fn start<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Binary {
        Binary::start_program(env!("CARGO_BIN_EXE_matchcond-webhook-server"), args)
    }

    /// Starts another build of the server the same way.
    pub fn start_program<S: AsRef<std::ffi::OsStr>>(program: &str, args: &[S]) -> Binary {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Standard error is read on a thread as it comes (a full pipe would block the
        // server).
        let mut err = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = err.read_to_string(&mut text);
            text
        });
        // Standard output is read on a thread: the address line, then the route lines
        // printed right after it.
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let first = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(line) => line,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("no address printed ({e}): {}", stderr.join().unwrap());
            }
        };
        let addr: SocketAddr = first
            .strip_prefix("listening on https://")
            .unwrap()
            .parse()
            .unwrap();
        let mut routes = Vec::new();
        while let Ok(line) = rx.recv_timeout(Duration::from_millis(500)) {
            routes.push(line);
        }
        Binary {
            child,
            addr,
            routes,
            stderr,
        }
    }

    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits for the exit (at most `limit`), returning its code and standard error.
    pub fn wait(mut self, limit: Duration) -> (Option<i32>, String) {
        let started = std::time::Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let stderr = std::mem::replace(&mut self.stderr, std::thread::spawn(String::new));
                return (status.code(), stderr.join().unwrap());
            }
            assert!(started.elapsed() < limit, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Binary {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A temporary directory, removed on drop.
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!(
            "matchcond-webhook-server-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub fn path(&self, name: &str) -> String {
        self.0.join(name).to_str().unwrap().to_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The value of a metric line `name{labels} value` in a `/metrics` text.
pub fn metric(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .map(|v| v.parse().unwrap())
}

/// Percentiles of durations (sorted in place).
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}
