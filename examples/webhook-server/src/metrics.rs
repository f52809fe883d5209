//! Prometheus metrics, in the OpenMetrics text format at `/metrics`.
//!
//! Per webhook, the apiserver's own matchConditions metrics, from the library
//! (`matchcond::metrics`, the names, labels `name`, `kind`, `type`, `operation`, buckets and
//! counting rules of kube-apiserver):
//!
//! * `apiserver_admission_match_condition_evaluation_errors_total` — conditions that
//!   ended in an error, counted up to the first false condition;
//! * `apiserver_admission_match_condition_exclusions_total` — reviews for which the
//!   apiserver would skip the webhook;
//! * `apiserver_admission_match_condition_evaluation_seconds` — the time the conditions
//!   took, when they skip the webhook or erred;
//!
//! and the server's own:
//!
//! * `matchcond_webhook_decisions_total` — reviews by decision (`call`, `skip`, `reject`);
//! * `matchcond_webhook_inflight_requests` — reviews being received or decided;
//! * requests and body bytes in flight, responses by status code and certificate reloads.
//!
//! The server's label sets are known at startup (the webhooks of the configuration and a
//! bounded set of operations, decisions and codes): every series is made then and kept, so
//! recording takes no lock and allocates nothing.

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge as PromGauge;
use prometheus_client::registry::Registry;

use crate::webhooks::{Operation, Outcome, Webhooks};

const OPERATIONS: usize = Operation::ALL.len();
const OUTCOMES: usize = Outcome::ALL.len();

/// The status codes counted one by one; any other counts as `other`.
pub const CODES: [u16; 10] = [200, 400, 404, 405, 408, 413, 415, 500, 503, 0];

/// The content type of [`Metrics::render`]'s text.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

type Labels = Vec<(&'static str, String)>;

struct HookMetrics {
    /// Per operation, per outcome.
    decisions: [[Counter; OUTCOMES]; OPERATIONS],
    inflight: PromGauge,
}

/// The server's metrics.
pub struct Metrics {
    registry: Registry,
    hooks: Vec<HookMetrics>,
    inflight_requests: PromGauge,
    inflight_bytes: PromGauge,
    responses: [Counter; CODES.len()],
    reloads_ok: Counter,
    reloads_failed: Counter,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics")
            .field("webhooks", &self.hooks.len())
            .finish_non_exhaustive()
    }
}

/// Counts one in-flight unit (a request, or bytes) while it lives.
#[derive(Debug)]
pub struct Gauge<'a> {
    gauge: &'a PromGauge,
    amount: i64,
}

impl Gauge<'_> {
    /// Adds to the amount counted.
    pub fn add(&mut self, amount: i64) {
        self.gauge.inc_by(amount);
        self.amount += amount;
    }
}

impl Drop for Gauge<'_> {
    fn drop(&mut self) {
        self.gauge.dec_by(self.amount);
    }
}

fn gauge(gauge: &PromGauge, amount: i64) -> Gauge<'_> {
    gauge.inc_by(amount);
    Gauge { gauge, amount }
}

/// A family's series for each label set, made now.
fn series<const N: usize>(
    family: &Family<Labels, Counter>,
    labels: impl Fn(usize) -> Labels,
) -> [Counter; N] {
    std::array::from_fn(|i| family.get_or_create_owned(&labels(i)))
}

impl Metrics {
    /// Metrics for the webhooks (in their index order), with their matchConditions
    /// metrics.
    pub fn new(webhooks: &Webhooks) -> Metrics {
        let mut registry = Registry::default();
        webhooks.match_condition_metrics().register(&mut registry);

        let decisions = Family::<Labels, Counter>::default();
        let inflight = Family::<Labels, PromGauge>::default();
        let hooks = webhooks
            .iter()
            .map(|h| {
                let name = || ("name", h.name.clone());
                let admission_type = || ("type", h.admission_type().to_owned());
                HookMetrics {
                    decisions: Operation::ALL.map(|op| {
                        series(&decisions, |i| {
                            let outcome = Outcome::ALL.get(i).map_or("", |o| o.as_str());
                            vec![
                                name(),
                                admission_type(),
                                ("operation", op.as_str().to_owned()),
                                ("decision", outcome.to_owned()),
                            ]
                        })
                    }),
                    inflight: inflight.get_or_create_owned(&vec![name(), admission_type()]),
                }
            })
            .collect();
        registry.register(
            "matchcond_webhook_decisions",
            "AdmissionReviews decided, by webhook, admission type, operation and decision (call: the apiserver calls the webhook; skip: it does not; reject: it rejects the request).",
            decisions,
        );
        registry.register(
            "matchcond_webhook_inflight_requests",
            "AdmissionReviews being received or decided, by webhook.",
            inflight,
        );

        let inflight_requests = PromGauge::default();
        registry.register(
            "matchcond_server_inflight_requests",
            "Admission requests being received or decided.",
            inflight_requests.clone(),
        );
        let inflight_bytes = PromGauge::default();
        registry.register(
            "matchcond_server_inflight_bytes",
            "Bytes of admission request bodies held in memory.",
            inflight_bytes.clone(),
        );
        let responses = Family::<Labels, Counter>::default();
        let by_code = series(&responses, |i| {
            let code = match CODES.get(i) {
                Some(0) | None => "other".to_owned(),
                Some(code) => code.to_string(),
            };
            vec![("code", code)]
        });
        registry.register(
            "matchcond_server_responses",
            "HTTP responses by status code.",
            responses,
        );
        let reloads = Family::<Labels, Counter>::default();
        let reload =
            |result: &str| reloads.get_or_create_owned(&vec![("result", result.to_owned())]);
        let (reloads_ok, reloads_failed) = (reload("success"), reload("failure"));
        registry.register(
            "matchcond_server_certificate_reloads",
            "Reloads of the serving certificate after its files changed, by result.",
            reloads,
        );
        Metrics {
            registry,
            hooks,
            inflight_requests,
            inflight_bytes,
            responses: by_code,
            reloads_ok,
            reloads_failed,
        }
    }

    /// Counts a review for the webhook at `index` in flight while the guard lives.
    pub fn webhook_inflight(&self, index: usize) -> Option<Gauge<'_>> {
        self.hooks.get(index).map(|h| gauge(&h.inflight, 1))
    }

    /// Counts an admission request in flight while the guard lives.
    pub fn request_inflight(&self) -> Gauge<'_> {
        gauge(&self.inflight_requests, 1)
    }

    /// Counts body bytes held while the guard lives (grow it with [`Gauge::add`]).
    pub fn bytes_inflight(&self) -> Gauge<'_> {
        gauge(&self.inflight_bytes, 0)
    }

    /// Records a decided review (its matchConditions metrics are recorded when it is
    /// decided, by the webhook's own series).
    pub fn decided(&self, index: usize, operation: Operation, outcome: Outcome) {
        if let Some(c) = self
            .hooks
            .get(index)
            .and_then(|h| h.decisions.get(operation.index()))
            .and_then(|d| d.get(outcome.index()))
        {
            c.inc();
        }
    }

    /// Records a response's status code.
    pub fn responded(&self, code: u16) {
        let i = CODES
            .iter()
            .position(|c| *c == code)
            .unwrap_or(CODES.len() - 1);
        if let Some(c) = self.responses.get(i) {
            c.inc();
        }
    }

    /// Records a certificate reload.
    pub fn reloaded(&self, ok: bool) {
        if ok {
            self.reloads_ok.inc();
        } else {
            self.reloads_failed.inc();
        }
    }

    /// Admission requests in flight.
    pub fn requests_in_flight(&self) -> i64 {
        self.inflight_requests.get()
    }

    /// The metrics in the OpenMetrics text format ([`CONTENT_TYPE`]).
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(8192);
        // Writing to a String cannot fail.
        let _ = encode(&mut out, &self.registry);
        out
    }
}
