//! The HTTP routes: `POST /validate/<webhook>` and `POST /mutate/<webhook>` answer
//! AdmissionReviews, `GET /healthz` answers `ok`; anything else gets a plain-text error.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::header::{ALLOW, CONTENT_TYPE};
use axum::http::{Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use matchcond::dispatch::HookKind;
use serde_json::Value as Json;

use crate::webhooks::{ReviewError, Webhooks};

/// The largest AdmissionReview body accepted (larger ones get 413).
pub const MAX_BODY_BYTES: usize = 16 << 20;

/// The routes, answering for `webhooks`.
pub fn router(webhooks: Arc<Webhooks>) -> Router {
    Router::new()
        .route("/validate/{name}", post(validate).fallback(post_only))
        .route("/mutate/{name}", post(mutate).fallback(post_only))
        .route("/healthz", get(healthz).fallback(get_only))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(webhooks)
}

async fn validate(
    State(webhooks): State<Arc<Webhooks>>,
    Path(name): Path<String>,
    body: Bytes,
) -> Response {
    answer(&webhooks, HookKind::Validating, &name, &body)
}

async fn mutate(
    State(webhooks): State<Arc<Webhooks>>,
    Path(name): Path<String>,
    body: Bytes,
) -> Response {
    answer(&webhooks, HookKind::Mutating, &name, &body)
}

fn text(status: StatusCode, message: &str) -> Response {
    (status, format!("{message}\n")).into_response()
}

fn answer(webhooks: &Webhooks, kind: HookKind, name: &str, body: &[u8]) -> Response {
    match webhooks.review(kind, name, body) {
        Ok(review) => {
            log_review(kind, name, &review);
            (
                StatusCode::OK,
                [(CONTENT_TYPE, "application/json")],
                review.to_string(),
            )
                .into_response()
        }
        Err(e @ ReviewError::UnknownWebhook(_)) => text(StatusCode::NOT_FOUND, &e.to_string()),
        Err(e @ ReviewError::Malformed(_)) => {
            eprintln!("{} {name}: {e}", crate::webhooks::route_word(kind));
            text(StatusCode::BAD_REQUEST, &e.to_string())
        }
    }
}

fn log_review(kind: HookKind, name: &str, review: &Json) {
    let response = review.get("response");
    let field = |k: &str| response.and_then(|r| r.get(k)).cloned();
    let decision = response
        .and_then(|r| {
            r.pointer(&format!(
                "/auditAnnotations/{}",
                crate::webhooks::DECISION_ANNOTATION
            ))
        })
        .and_then(Json::as_str)
        .unwrap_or("");
    eprintln!(
        "{} {name}: uid {} allowed {} ({decision})",
        crate::webhooks::route_word(kind),
        field("uid").unwrap_or(Json::Null),
        field("allowed").unwrap_or(Json::Null),
    );
}

async fn healthz() -> &'static str {
    "ok\n"
}

fn method_not_allowed(method: &Method, uri: &Uri, allow: &'static str) -> Response {
    (
        StatusCode::METHOD_NOT_ALLOWED,
        [(ALLOW, allow)],
        format!(
            "method {method} not allowed on {}: use {allow}\n",
            uri.path()
        ),
    )
        .into_response()
}

async fn post_only(method: Method, uri: Uri) -> Response {
    method_not_allowed(&method, &uri, "POST")
}

async fn get_only(method: Method, uri: Uri) -> Response {
    method_not_allowed(&method, &uri, "GET")
}

async fn not_found(method: Method, uri: Uri) -> Response {
    text(
        StatusCode::NOT_FOUND,
        &format!(
            "no route for {method} {}: POST AdmissionReviews to /validate/<webhook> or /mutate/<webhook>",
            uri.path()
        ),
    )
}
