//! The request handling of `matchcond-kube-webhook`, apart from the cluster so that it can
//! be tested without one: [`decide`] answers an AdmissionReview for one webhook from a
//! [`LiveDispatcher`] and a [`NamespaceLister`], [`router`] puts it behind axum routes
//! with `/healthz`, `/readyz` and `/metrics`, and [`serve`] serves the routes over TLS
//! ([`tls_config`]) or plain HTTP, HTTP/1.1 and HTTP/2, until a shutdown signal.
//!
//! `src/main.rs` feeds the [`LiveDispatcher`] and the namespace store from the cluster.

use std::collections::HashMap;
use std::error::Error;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use hyper_util::service::TowerToHyperService;
use kube::core::admission::{AdmissionRequest, AdmissionResponse, AdmissionReview};
use kube::core::DynamicObject;
use matchcond::dispatch::{HookKind, HookOutcome, NamespaceLister};
use matchcond::kube::KubeRequest;
use matchcond::metrics::{MatchConditionMetrics, WebhookMetrics};
use matchcond::runtime::LiveDispatcher;
use matchcond::Decision;
use prometheus_client::registry::Registry;
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use serde_json::{json, Value as Json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

/// The audit annotation saying what the apiserver does with the webhook: `call`, `skip`
/// or `reject`.
pub const DECISION_ANNOTATION: &str = "matchcond.example.com/decision";

/// The largest AdmissionReview read: the apiserver sends objects of up to 3 MiB, and an
/// UPDATE carries two of them.
pub const MAX_BODY_BYTES: usize = 8 << 20;

/// How long requests in flight may take to finish after the shutdown signal.
pub const GRACE_PERIOD: Duration = Duration::from_secs(30);

/// What the routes share: the live dispatcher, the namespaces, the metrics, readiness.
pub struct App {
    /// The cluster's webhook configurations, compiled.
    pub live: LiveDispatcher,
    /// The namespaces' labels, for namespaceSelectors.
    pub namespaces: Arc<dyn NamespaceLister + Send + Sync>,
    /// The matchConditions metrics served at `/metrics`.
    pub metrics: Metrics,
    ready: AtomicBool,
}

impl App {
    /// An app that is not ready yet (see [`App::set_ready`]).
    pub fn new(live: LiveDispatcher, namespaces: Arc<dyn NamespaceLister + Send + Sync>) -> Self {
        App {
            live,
            namespaces,
            metrics: Metrics::new(),
            ready: AtomicBool::new(false),
        }
    }

    /// Sets readiness: `/readyz` answers 200 and `/decide` decides only when ready (once
    /// the namespaces and both configuration kinds are listed, until shutdown).
    pub fn set_ready(&self, ready: bool) {
        self.ready.store(ready, Ordering::SeqCst);
    }

    /// Whether the app is ready.
    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::SeqCst)
    }
}

/// The apiserver's matchConditions metrics in a Prometheus registry, with one handle per
/// webhook made when it is first decided.
pub struct Metrics {
    registry: Registry,
    conditions: MatchConditionMetrics,
    /// Per kind (validating, mutating), each webhook's handle by name.
    webhooks: RwLock<[HashMap<String, Arc<WebhookMetrics>>; 2]>,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// The metrics, registered, with no series yet.
    pub fn new() -> Self {
        let conditions = MatchConditionMetrics::new();
        let mut registry = Registry::default();
        conditions.register(&mut registry);
        Metrics {
            registry,
            conditions,
            webhooks: RwLock::default(),
        }
    }

    /// Records a decision as the apiserver does, when the webhook's conditions were
    /// evaluated (not when a selector or a rule decided first).
    pub fn observe(&self, outcome: &HookOutcome, operation: &str, took: Duration) {
        let Some(report) = &outcome.conditions else {
            return;
        };
        let (name, kind) = (&outcome.hook.name, outcome.hook.kind);
        let slot = usize::from(kind == HookKind::Mutating);
        // A webhook seen before is read under a shared lock, without allocating.
        let known = self
            .webhooks
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(slot)
            .and_then(|m| m.get(name))
            .cloned();
        let hook = match known {
            Some(hook) => hook,
            None => {
                let mut webhooks = self
                    .webhooks
                    .write()
                    .unwrap_or_else(PoisonError::into_inner);
                let Some(by_name) = webhooks.get_mut(slot) else {
                    return;
                };
                Arc::clone(
                    by_name
                        .entry(name.clone())
                        .or_insert_with(|| Arc::new(self.conditions.webhook(name, kind))),
                )
            }
        };
        // The conditions' own decision: a call-time rejection (a dry run) is not theirs.
        hook.observe_report(operation, report, took);
    }

    /// The metrics in the Prometheus text format.
    pub fn encode(&self) -> Result<String, std::fmt::Error> {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry)?;
        Ok(text)
    }
}

/// Decides the webhook `name` (its name, or `<configuration>/<webhook>/<n>`) for the
/// AdmissionReview `body` and answers with the status and body to send: 200 and an
/// AdmissionReview response (denied with the apiserver's status when it would reject the
/// request, allowed otherwise; the audit annotation [`DECISION_ANNOTATION`] says which),
/// 404 for a webhook no configuration has, 400 for a body that is not an AdmissionReview
/// with a request.
pub fn decide(
    live: &LiveDispatcher,
    namespaces: &dyn NamespaceLister,
    metrics: &Metrics,
    name: &str,
    body: &[u8],
) -> (StatusCode, Json) {
    let malformed = |e: &dyn std::fmt::Display| {
        let message = format!("malformed AdmissionReview: {e}");
        failure(StatusCode::BAD_REQUEST, "BadRequest", &message)
    };
    let review: AdmissionReview<DynamicObject> = match serde_json::from_slice(body) {
        Ok(review) => review,
        Err(e) => return malformed(&e),
    };
    let request: AdmissionRequest<DynamicObject> = match review.try_into() {
        Ok(request) => request,
        Err(_) => return malformed(&"it has no request"),
    };
    // Made before the request is moved into matchcond's form: it keeps the uid.
    let mut response = AdmissionResponse::from(&request);
    let request = match KubeRequest::from_dynamic(request) {
        Ok(request) => request,
        Err(e) => return malformed(&e),
    };
    let started = Instant::now();
    let outcome = match live.dispatcher().decide_webhook(name, &request, namespaces) {
        Ok(Some(outcome)) => outcome,
        Ok(None) => {
            let message = format!("no webhook {name:?} in the cluster's webhook configurations");
            return failure(StatusCode::NOT_FOUND, "NotFound", &message);
        }
        Err(e) => return malformed(&e),
    };
    let operation = request.json().get("operation").and_then(Json::as_str);
    let operation = operation.unwrap_or_default();
    metrics.observe(&outcome, operation, started.elapsed());
    let word = match (&outcome.decision, outcome.rejection()) {
        (Decision::Call, _) => "call",
        (Decision::Skip(_), _) => "skip",
        (Decision::Reject { message }, rejection) => {
            response = response.deny(message);
            if let Some(r) = rejection {
                response.result.code = r.code;
                response.result.reason = r.reason.to_owned();
            }
            "reject"
        }
    };
    response
        .audit_annotations
        .insert(DECISION_ANNOTATION.to_owned(), word.to_owned());
    match serde_json::to_value(response.into_review()) {
        Ok(review) => (StatusCode::OK, review),
        Err(e) => failure(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalError",
            &e.to_string(),
        ),
    }
}

/// A Kubernetes `Status` for a request the server cannot answer.
fn failure(code: StatusCode, reason: &str, message: &str) -> (StatusCode, Json) {
    let status = json!({
        "apiVersion": "v1", "kind": "Status", "status": "Failure",
        "message": message, "reason": reason, "code": code.as_u16(),
    });
    (code, status)
}

/// The routes: `POST /decide/{webhook}`, `GET /healthz`, `GET /readyz`, `GET /metrics`.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/decide/{*webhook}", post(decide_route))
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(app)
}

async fn decide_route(
    State(app): State<Arc<App>>,
    Path(webhook): Path<String>,
    body: Bytes,
) -> Response {
    let (status, json) = if app.is_ready() {
        decide(
            &app.live,
            app.namespaces.as_ref(),
            &app.metrics,
            &webhook,
            &body,
        )
    } else {
        let message = "not ready: the webhook configurations and namespaces are not listed yet";
        failure(
            StatusCode::SERVICE_UNAVAILABLE,
            "ServiceUnavailable",
            message,
        )
    };
    let content_type = [(header::CONTENT_TYPE, "application/json")];
    (status, content_type, json.to_string()).into_response()
}

async fn readyz(State(app): State<Arc<App>>) -> (StatusCode, &'static str) {
    if app.is_ready() {
        (StatusCode::OK, "ok")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "not ready")
    }
}

async fn metrics(State(app): State<Arc<App>>) -> Response {
    match app.metrics.encode() {
        Ok(text) => {
            let openmetrics = "application/openmetrics-text; version=1.0.0; charset=utf-8";
            ([(header::CONTENT_TYPE, openmetrics)], text).into_response()
        }
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// A TLS configuration serving a certificate chain (PEM, leaf first) and its private key
/// (PEM), offering HTTP/2 and HTTP/1.1 by ALPN.
pub fn tls_config(
    cert_pem: &[u8],
    key_pem: &[u8],
) -> Result<rustls::ServerConfig, Box<dyn Error + Send + Sync>> {
    let certs = CertificateDer::pem_slice_iter(cert_pem).collect::<Result<Vec<_>, _>>()?;
    if certs.is_empty() {
        return Err("the certificate file has no CERTIFICATE block".into());
    }
    let key = PrivateKeyDer::from_pem_slice(key_pem)?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(certs, key)?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

/// Serves `router` on `listener` (over TLS when `tls` is given) until `shutdown`
/// completes; then stops accepting, lets each connection finish its requests (HTTP/2
/// connections get `GOAWAY`) and returns when they are done or after [`GRACE_PERIOD`].
pub async fn serve(
    listener: TcpListener,
    tls: Option<Arc<rustls::ServerConfig>>,
    router: Router,
    shutdown: impl Future<Output = ()>,
) {
    let acceptor = tls.map(TlsAcceptor::from);
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors and the like: wait a little, then go on.
                    tracing::warn!("cannot accept a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let (router, acceptor, watcher) = (router.clone(), acceptor.clone(), graceful.watcher());
        tokio::spawn(async move {
            let served = match acceptor {
                None => connection(stream, router, watcher).await,
                Some(acceptor) => {
                    let handshake = acceptor.accept(stream);
                    match tokio::time::timeout(Duration::from_secs(10), handshake).await {
                        Ok(Ok(tls)) => connection(tls, router, watcher).await,
                        Ok(Err(e)) => Err(e.into()),
                        Err(_) => Err("TLS handshake timed out".into()),
                    }
                }
            };
            if let Err(e) = served {
                tracing::debug!(%peer, "connection ended: {e}");
            }
        });
    }
    drop(listener);
    if tokio::time::timeout(GRACE_PERIOD, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("the grace period ran out with requests in flight");
    }
}

/// Serves one connection, HTTP/1.1 or HTTP/2, until it closes or the shutdown asks it to.
async fn connection<I>(
    io: I,
    router: Router,
    watcher: Watcher,
) -> Result<(), Box<dyn Error + Send + Sync>>
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let builder = auto::Builder::new(TokioExecutor::new());
    let conn = builder.serve_connection(TokioIo::new(io), TowerToHyperService::new(router));
    watcher.watch(conn).await
}
