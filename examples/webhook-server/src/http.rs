//! The HTTP side: each webhook's paths answer AdmissionReviews (POST), `/healthz`,
//! `/readyz` and `/metrics` answer GETs, anything else gets an error in the server's own
//! words.
//!
//! Every body is read within the [`Limits`]: a declared length over the body limit is
//! refused before reading, bytes and requests in flight are taken from shared budgets
//! (none left: 503), and the whole body must arrive within the request timeout (408).
//! Error answers are a Kubernetes `Status` object when the client accepts JSON (the
//! apiserver does, and shows its message in its own error), plain text otherwise. Before
//! an error is answered, the rest of the request body is read and dropped (up to
//! [`DRAIN_FACTOR`] times the body limit, within the request timeout), so that HTTP/2 clients get the status instead of a
//! reset stream and HTTP/1.1 clients can finish sending; a body too large even for that
//! is kept unread until the answer is sent, then the stream is closed as HTTP/2 allows
//! (`RST_STREAM` with `NO_ERROR`).

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::http::header::{ACCEPT, ALLOW, CONTENT_LENGTH, CONTENT_TYPE, EXPECT, RETRY_AFTER};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use http_body_util::{BodyExt, Full};
use serde_json::json;
use tokio::time::Instant;

use crate::limits::{Budget, Limits, Share};
use crate::metrics::{Gauge, Metrics};
use crate::paths;
use crate::webhooks::{Outcome, ReviewError, Webhooks};

/// Bodies at least this large are decided on a blocking thread, so that parsing them
/// does not hold up the connections served by the same worker.
pub const INLINE_BODY_BYTES: usize = 256 << 10;

/// Before an error answer, up to this many times the body limit is read and dropped.
pub const DRAIN_FACTOR: usize = 4;

/// The peer address of a request, set by the server on each one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer(pub SocketAddr);

/// What the routes answer with: the compiled webhooks, the limits and budgets, the
/// metrics and whether the server is ready.
#[derive(Debug)]
pub struct App {
    /// The webhooks served.
    pub webhooks: Arc<Webhooks>,
    /// The metrics.
    pub metrics: Arc<Metrics>,
    /// The limits.
    pub limits: Limits,
    requests: Arc<Budget>,
    bytes: Arc<Budget>,
    ready: AtomicBool,
}

impl App {
    /// The state for serving compiled webhooks within limits; not ready until
    /// [`App::set_ready`] (the server sets it when it starts accepting connections and
    /// clears it when it starts shutting down).
    pub fn new(webhooks: Webhooks, limits: Limits) -> Arc<App> {
        let metrics = Arc::new(Metrics::new(&webhooks));
        Arc::new(App {
            webhooks: Arc::new(webhooks),
            metrics,
            requests: Budget::new(limits.max_inflight_requests),
            bytes: Budget::new(limits.max_inflight_bytes),
            limits,
            ready: AtomicBool::new(false),
        })
    }

    /// Sets whether `/readyz` answers 200.
    pub fn set_ready(&self, ready: bool) {
        self.ready.store(ready, Ordering::SeqCst);
    }

    /// Whether `/readyz` answers 200.
    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::SeqCst)
    }
}

/// The routes.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/healthz", get(healthz).fallback(get_only))
        .route("/readyz", get(readyz).fallback(get_only))
        .route("/metrics", get(metrics).fallback(get_only))
        .fallback(admission)
        .with_state(app)
}

/// The floor's routes ([`crate::ServeOptions::floor`]): any request's body is read whole and
/// answered with one fixed AdmissionReview, allowed, as a webhook that decides nothing. The
/// load test measures the server against it, over the same TLS and HTTP stack.
pub fn floor_router() -> Router {
    const ANSWER: &str = r#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"00000000-0000-0000-0000-000000000000","allowed":true}}"#;
    // The body is read whole by its extractor, as the server reads a review's.
    async fn answer(_body: axum::body::Bytes) -> Response {
        ([(CONTENT_TYPE, "application/json")], ANSWER).into_response()
    }
    Router::new().fallback(answer)
}

async fn healthz() -> &'static str {
    "ok\n"
}

async fn readyz(State(app): State<Arc<App>>) -> Response {
    if app.is_ready() {
        (StatusCode::OK, "ok\n").into_response()
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "not ready\n").into_response()
    }
}

async fn metrics(State(app): State<Arc<App>>) -> Response {
    (
        [(CONTENT_TYPE, crate::metrics::CONTENT_TYPE)],
        app.metrics.render(),
    )
        .into_response()
}

/// An error answer.
#[derive(Debug)]
struct Refusal {
    status: StatusCode,
    reason: &'static str,
    message: String,
    allow: Option<&'static str>,
    retry_after: bool,
}

impl Refusal {
    fn new(status: StatusCode, reason: &'static str, message: String) -> Refusal {
        Refusal {
            status,
            reason,
            message,
            allow: None,
            retry_after: false,
        }
    }

    fn busy(message: String) -> Refusal {
        Refusal {
            retry_after: true,
            ..Refusal::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "ServiceUnavailable",
                message,
            )
        }
    }

    fn method(method: &Method, path: &str, allow: &'static str) -> Refusal {
        Refusal {
            allow: Some(allow),
            ..Refusal::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "MethodNotAllowed",
                format!("method {method} not allowed on {path}: use {allow}"),
            )
        }
    }

    fn response(&self, json: bool) -> Response {
        let mut response = if json {
            let status = json!({
                "kind": "Status",
                "apiVersion": "v1",
                "metadata": {},
                "status": "Failure",
                "message": self.message,
                "reason": self.reason,
                "code": self.status.as_u16(),
            });
            (
                self.status,
                [(CONTENT_TYPE, "application/json")],
                status.to_string(),
            )
                .into_response()
        } else {
            (self.status, format!("{}\n", self.message)).into_response()
        };
        if let Some(allow) = self.allow {
            response
                .headers_mut()
                .insert(ALLOW, HeaderValue::from_static(allow));
        }
        if self.retry_after {
            response
                .headers_mut()
                .insert(RETRY_AFTER, HeaderValue::from_static("1"));
        }
        response
    }
}

/// What is known of a request for answering and logging it.
struct Ctx {
    json: bool,
    expect_continue: bool,
    peer: Option<SocketAddr>,
    method: Method,
    path: String,
    deadline: Instant,
}

impl Ctx {
    fn new(app: &App, parts: &axum::http::request::Parts) -> Ctx {
        let header = |name| {
            parts
                .headers
                .get(name)
                .and_then(|v: &HeaderValue| v.to_str().ok())
                .unwrap_or("")
        };
        Ctx {
            json: header(ACCEPT).contains("application/json"),
            expect_continue: header(EXPECT).eq_ignore_ascii_case("100-continue"),
            peer: parts.extensions.get::<Peer>().map(|p| p.0),
            method: parts.method.clone(),
            path: parts.uri.path().to_owned(),
            deadline: Instant::now() + app.limits.request_timeout,
        }
    }

    fn peer(&self) -> String {
        self.peer.map_or_else(String::new, |p| p.to_string())
    }
}

async fn get_only(State(app): State<Arc<App>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let ctx = Ctx::new(&app, &parts);
    let refusal = Refusal::method(&ctx.method, &ctx.path, "GET");
    refuse(&app, &ctx, Some(body), false, refusal).await
}

/// Answers an error: logs it, reads and drops what is left of the body (see the module
/// documentation), and keeps a body too large to drop until the answer is sent.
async fn refuse(
    app: &App,
    ctx: &Ctx,
    body: Option<Body>,
    read_some: bool,
    refusal: Refusal,
) -> Response {
    tracing::warn!(
        status = refusal.status.as_u16(),
        method = %ctx.method,
        path = %ctx.path,
        peer = %ctx.peer(),
        "{}",
        refusal.message
    );
    let rest = match body {
        Some(body) if !ctx.expect_continue || read_some => {
            drain(
                body,
                app.limits.max_body_bytes.saturating_mul(DRAIN_FACTOR),
                ctx.deadline,
            )
            .await
        }
        other => other,
    };
    let response = refusal.response(ctx.json);
    match rest {
        None => response,
        Some(unread) => {
            let (parts, body) = response.into_parts();
            Response::from_parts(
                parts,
                Body::new(Holding {
                    body,
                    _unread: unread,
                }),
            )
        }
    }
}

/// Reads and drops up to `limit` bytes of a body until `deadline`; gives the body back if
/// it did not end by then.
async fn drain(mut body: Body, limit: usize, deadline: Instant) -> Option<Body> {
    let mut seen = 0usize;
    loop {
        match tokio::time::timeout_at(deadline, body.frame()).await {
            Err(_) => return Some(body),
            Ok(None) | Ok(Some(Err(_))) => return None,
            Ok(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    seen = seen.saturating_add(data.len());
                    if seen > limit {
                        return Some(body);
                    }
                }
            }
        }
    }
}

/// A response body that keeps the unread request body until the response is sent.
struct Holding {
    body: Body,
    _unread: Body,
}

impl HttpBody for Holding {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

/// Why a body was not read whole.
enum ReadError {
    TooLarge(usize),
    NoBytesLeft,
    Timeout(usize),
    Client(String),
}

/// Reads a body within the body limit, the bytes budget and the deadline.
async fn read_body(
    mut body: Body,
    declared: Option<usize>,
    limits: &Limits,
    share: &mut Share,
    held: &mut Gauge<'_>,
    deadline: Instant,
) -> Result<Vec<u8>, (Option<Body>, ReadError)> {
    let mut buffer = Vec::with_capacity(declared.unwrap_or(0));
    loop {
        let frame = match tokio::time::timeout_at(deadline, body.frame()).await {
            Err(_) => return Err((Some(body), ReadError::Timeout(buffer.len()))),
            Ok(None) => return Ok(buffer),
            Ok(Some(Err(e))) => return Err((None, ReadError::Client(e.to_string()))),
            Ok(Some(Ok(frame))) => frame,
        };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let total = buffer.len().saturating_add(data.len());
        if total > limits.max_body_bytes {
            return Err((Some(body), ReadError::TooLarge(total)));
        }
        if total > share.amount() {
            let more = total - share.amount();
            if !share.grow(more) {
                return Err((Some(body), ReadError::NoBytesLeft));
            }
            held.add(i64::try_from(more).unwrap_or(i64::MAX));
        }
        buffer.extend_from_slice(&data);
    }
}

fn content_length(headers: &HeaderMap) -> Option<usize> {
    headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
}

fn too_large(size: usize, limits: &Limits, declared: bool) -> Refusal {
    let size = if declared {
        format!("{size} bytes")
    } else {
        format!("more than {} bytes", limits.max_body_bytes)
    };
    Refusal::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "RequestEntityTooLarge",
        format!(
            "request body too large: {size}, the limit is {} bytes",
            limits.max_body_bytes
        ),
    )
}

/// The first paths of a list, and how many more there are.
fn listed(paths: &[&str]) -> String {
    const SHOWN: usize = 8;
    let shown: Vec<&str> = paths.iter().take(SHOWN).copied().collect();
    match paths.len().saturating_sub(SHOWN) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// Answers an AdmissionReview POSTed to a webhook's path; anything else is refused.
async fn admission(State(app): State<Arc<App>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let ctx = Ctx::new(&app, &parts);
    let Some(index) = app.webhooks.route(&paths::decoded(&ctx.path)) else {
        let refusal = Refusal::new(
            StatusCode::NOT_FOUND,
            "NotFound",
            format!(
                "no webhook is served at {}: the paths served are {}",
                ctx.path,
                listed(&app.webhooks.served_paths())
            ),
        );
        return refuse(&app, &ctx, Some(body), false, refusal).await;
    };
    if parts.method != Method::POST {
        let refusal = Refusal::method(&ctx.method, &ctx.path, "POST");
        return refuse(&app, &ctx, Some(body), false, refusal).await;
    }
    let Some(_slot) = app.requests.try_take(1) else {
        let refusal = Refusal::busy(format!(
            "too many admission requests in flight (the limit is {}); retry",
            app.requests.max()
        ));
        return refuse(&app, &ctx, Some(body), false, refusal).await;
    };
    let _request = app.metrics.request_inflight();
    let _webhook = app.metrics.webhook_inflight(index);
    let declared = content_length(&parts.headers);
    let mut held = app.metrics.bytes_inflight();
    let mut share = match declared {
        Some(n) if n > app.limits.max_body_bytes => {
            let refusal = too_large(n, &app.limits, true);
            return refuse(&app, &ctx, Some(body), false, refusal).await;
        }
        Some(n) => match app.bytes.try_take(n) {
            Some(share) => {
                held.add(i64::try_from(n).unwrap_or(i64::MAX));
                share
            }
            None => {
                let refusal = Refusal::busy(format!(
                    "too many request bytes in flight (the limit is {} bytes); retry",
                    app.bytes.max()
                ));
                return refuse(&app, &ctx, Some(body), false, refusal).await;
            }
        },
        None => app.bytes.share(),
    };
    let bytes = match read_body(
        body,
        declared,
        &app.limits,
        &mut share,
        &mut held,
        ctx.deadline,
    )
    .await
    {
        Ok(bytes) => bytes,
        Err((rest, error)) => {
            let refusal = match error {
                ReadError::TooLarge(size) => too_large(size, &app.limits, false),
                ReadError::NoBytesLeft => Refusal::busy(format!(
                    "too many request bytes in flight (the limit is {} bytes); retry",
                    app.bytes.max()
                )),
                ReadError::Timeout(got) => Refusal::new(
                    StatusCode::REQUEST_TIMEOUT,
                    "Timeout",
                    format!(
                        "the request body did not arrive within {:?} ({got} bytes received)",
                        app.limits.request_timeout
                    ),
                ),
                ReadError::Client(e) => Refusal::new(
                    StatusCode::BAD_REQUEST,
                    "BadRequest",
                    format!("cannot read the request body: {e}"),
                ),
            };
            return refuse(&app, &ctx, rest, true, refusal).await;
        }
    };
    let answer = if bytes.len() >= INLINE_BODY_BYTES {
        let worker = app.clone();
        match tokio::task::spawn_blocking(move || worker.webhooks.review(index, &bytes)).await {
            Ok(answer) => answer,
            Err(e) => {
                let refusal = Refusal::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "InternalError",
                    format!("the review could not be decided: {e}"),
                );
                return refuse(&app, &ctx, None, true, refusal).await;
            }
        }
    } else {
        app.webhooks.review(index, &bytes)
    };
    drop(share);
    drop(held);
    let Some(hook) = app.webhooks.webhook(index) else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    match answer {
        Ok(answer) => {
            app.metrics.decided(index, answer.operation, answer.outcome);
            if answer.outcome == Outcome::Reject {
                tracing::info!(
                    webhook = %hook.name,
                    uid = %answer.uid,
                    operation = answer.operation.as_str(),
                    decision = answer.outcome.as_str(),
                    "{}",
                    answer.message
                );
            } else {
                tracing::debug!(
                    webhook = %hook.name,
                    uid = %answer.uid,
                    operation = answer.operation.as_str(),
                    decision = answer.outcome.as_str(),
                    evaluation_us = answer.evaluation.as_micros() as u64,
                    "{}",
                    answer.message
                );
            }
            (
                StatusCode::OK,
                [(CONTENT_TYPE, "application/json")],
                Body::new(Full::new(Bytes::from(answer.body))),
            )
                .into_response()
        }
        Err(e @ ReviewError::Malformed(_)) => {
            let refusal = Refusal::new(StatusCode::BAD_REQUEST, "BadRequest", e.to_string());
            refuse(&app, &ctx, None, true, refusal).await
        }
    }
}
