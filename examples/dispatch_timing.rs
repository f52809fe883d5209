//! The dispatcher's cost per request: `Dispatcher::dispatch` of the example reviews through
//! `examples/webhooks.yaml` (every webhook decided: selectors, rules, matchConditions), and of
//! the deployment update as a request in `apps/v1beta2`, which the deployments webhook
//! (`matchPolicy: Equivalent`, rules on `apps/v1`) sees converted to `apps/v1`.
//!
//! Run it in release: `cargo run --release --example dispatch_timing [ROUNDS]`. Each row is
//! the median over the rounds of the mean time of one dispatch in a round of 20,000.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::hint::black_box;
use std::time::Instant;

use matchcond::dispatch::{load_documents, AnyNamespace, Dispatcher};
use matchcond::KubeVersion;
use serde_json::Value as Json;

/// Dispatches in one round.
const PER_ROUND: u32 = 20_000;

fn review(name: &str) -> Json {
    let path = format!(
        "{}/examples/reviews/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("the example reviews");
    let review: Json = serde_json::from_str(&text).expect("JSON");
    review["request"].clone()
}

/// The deployment update as a request for `apps/v1beta2`.
fn converted() -> Json {
    let mut request = review("deployment-update");
    for member in ["kind", "resource", "requestKind", "requestResource"] {
        request[member]["version"] = Json::from("v1beta2");
    }
    request
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(15);
    let configs = load_documents(include_str!("webhooks.yaml")).expect("the example webhooks");
    let dispatcher = Dispatcher::new(&configs, KubeVersion::LATEST);
    let requests = [
        ("pod-create", review("pod-create")),
        ("deployment-update", review("deployment-update")),
        ("configmap-delete", review("configmap-delete")),
        ("deployment-update-v1beta2", converted()),
    ];
    // Every namespace exists, without labels.
    let namespaces = AnyNamespace::default();
    println!("{:<28} {:>12}  decisions", "request", "ns/dispatch");
    for (name, request) in &requests {
        let outcome = dispatcher.dispatch(request, &namespaces).expect("decided");
        let called: Vec<String> = outcome
            .hooks
            .iter()
            .map(|h| {
                let conditions = h.conditions.as_ref().map_or(0, |r| r.conditions.len());
                let kind = h.invocation().map(|i| format!(" as {}", i.kind));
                format!(
                    "{}: {:?}{} ({conditions} conditions)",
                    h.hook.name,
                    h.decision,
                    kind.unwrap_or_default()
                )
            })
            .collect();
        let mut means: Vec<f64> = (0..rounds)
            .map(|_| {
                let start = Instant::now();
                for _ in 0..PER_ROUND {
                    black_box(dispatcher.dispatch(black_box(request), &namespaces)).ok();
                }
                start.elapsed().as_nanos() as f64 / f64::from(PER_ROUND)
            })
            .collect();
        means.sort_by(f64::total_cmp);
        println!(
            "{name:<28} {:>12.0}  {}",
            means[means.len() / 2],
            called.join("; ")
        );
    }
}
