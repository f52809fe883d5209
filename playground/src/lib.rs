//! The matchcond playground: the engine compiled to WebAssembly for a static web page.
//!
//! The page (`playground/web`) calls three functions, each taking and returning JSON text:
//! [`versions`], [`analyze`] (lint the configuration, decide every webhook for the review)
//! and [`evaluate`] (the expression box). Every engine call is in [`engine`]; [`text`]
//! turns lines and columns into the editor's offsets.

pub mod engine;
pub mod text;

use wasm_bindgen::prelude::wasm_bindgen;

fn reply<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value)
        .unwrap_or_else(|e| serde_json::json!({ "failure": e.to_string() }).to_string())
}

fn input(text: &str) -> Result<engine::Input, String> {
    serde_json::from_str(text).map_err(|e| {
        serde_json::json!({ "failure": format!("the page sent an unreadable request: {e}") })
            .to_string()
    })
}

/// The Kubernetes versions offered (newest first) and the default, as JSON.
#[wasm_bindgen]
pub fn versions() -> String {
    reply(&engine::versions())
}

/// Lints the configuration and decides every webhook for the review: an
/// [`engine::Input`] as JSON in, an [`engine::Analysis`] as JSON out.
#[wasm_bindgen]
pub fn analyze(request: &str) -> String {
    match input(request) {
        Ok(i) => reply(&engine::analyze(&i)),
        Err(e) => e,
    }
}

/// Evaluates the expression box: an [`engine::Input`] as JSON in, an
/// [`engine::Evaluated`] as JSON out.
#[wasm_bindgen]
pub fn evaluate(request: &str) -> String {
    match input(request) {
        Ok(i) => reply(&engine::evaluate(&i)),
        Err(e) => e,
    }
}
