//! Prometheus metrics, in the text exposition format at `/metrics`.
//!
//! Per webhook, named after the apiserver's own match-condition metrics
//! (`apiserver_admission_match_condition_*`, with the same labels `name`, `kind`, `type`
//! and `operation`) where they count the same thing:
//!
//! * `matchcond_admission_match_condition_evaluation_seconds` — histogram of the time the
//!   conditions take (the apiserver's buckets, with finer ones below a millisecond);
//! * `matchcond_admission_match_condition_evaluation_errors_total` — conditions that
//!   ended in an error (one per condition, as the apiserver counts them);
//! * `matchcond_admission_match_condition_exclusions_total` — reviews for which the
//!   apiserver would skip the webhook;
//! * `matchcond_webhook_decisions_total` — reviews by decision (`call`, `skip`, `reject`);
//! * `matchcond_webhook_inflight_requests` — reviews being received or decided.
//!
//! And for the server: requests and body bytes in flight, responses by status code and
//! certificate reloads. The label sets are known at startup (the webhooks of the
//! configuration and a bounded set of operations, decisions and codes), so every series
//! is a fixed atomic counter: recording takes no lock and allocates nothing.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use crate::webhooks::{Operation, Outcome, Webhooks};

/// The upper bounds of the evaluation histogram, in seconds: the apiserver's buckets
/// (1 ms to 250 ms) preceded by finer ones, since conditions take microseconds.
pub const EVALUATION_BUCKETS: [f64; 13] = [
    0.000_005, 0.000_01, 0.000_025, 0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.005, 0.01,
    0.025, 0.1, 0.25,
];

const OPERATIONS: usize = Operation::ALL.len();
const OUTCOMES: usize = Outcome::ALL.len();

/// The status codes counted one by one; any other counts as `other`.
pub const CODES: [u16; 10] = [200, 400, 404, 405, 408, 413, 415, 500, 503, 0];

#[derive(Default)]
struct Histogram {
    buckets: [AtomicU64; EVALUATION_BUCKETS.len()],
    count: AtomicU64,
    sum_nanos: AtomicU64,
}

impl Histogram {
    fn observe(&self, elapsed: Duration) {
        let seconds = elapsed.as_secs_f64();
        if let Some(i) = EVALUATION_BUCKETS.iter().position(|b| seconds <= *b) {
            if let Some(b) = self.buckets.get(i) {
                b.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.count.fetch_add(1, Ordering::Relaxed);
        let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        self.sum_nanos.fetch_add(nanos, Ordering::Relaxed);
    }
}

#[derive(Default)]
struct PerOperation {
    decisions: [AtomicU64; OUTCOMES],
    errors: AtomicU64,
    exclusions: AtomicU64,
    seconds: Histogram,
}

struct HookMetrics {
    name: String,
    admission_type: &'static str,
    operations: [PerOperation; OPERATIONS],
    inflight: AtomicI64,
}

/// The server's metrics.
pub struct Metrics {
    hooks: Vec<HookMetrics>,
    inflight_requests: AtomicI64,
    inflight_bytes: AtomicI64,
    responses: [AtomicU64; CODES.len()],
    reloads_ok: AtomicU64,
    reloads_failed: AtomicU64,
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
    gauge: &'a AtomicI64,
    amount: i64,
}

impl Gauge<'_> {
    /// Adds to the amount counted.
    pub fn add(&mut self, amount: i64) {
        self.gauge.fetch_add(amount, Ordering::Relaxed);
        self.amount += amount;
    }
}

impl Drop for Gauge<'_> {
    fn drop(&mut self) {
        self.gauge.fetch_sub(self.amount, Ordering::Relaxed);
    }
}

fn gauge(gauge: &AtomicI64, amount: i64) -> Gauge<'_> {
    gauge.fetch_add(amount, Ordering::Relaxed);
    Gauge { gauge, amount }
}

impl Metrics {
    /// Metrics for the webhooks (in their index order).
    pub fn new(webhooks: &Webhooks) -> Metrics {
        Metrics {
            hooks: webhooks
                .iter()
                .map(|h| HookMetrics {
                    name: h.name.clone(),
                    admission_type: h.admission_type(),
                    operations: Default::default(),
                    inflight: AtomicI64::new(0),
                })
                .collect(),
            inflight_requests: AtomicI64::new(0),
            inflight_bytes: AtomicI64::new(0),
            responses: Default::default(),
            reloads_ok: AtomicU64::new(0),
            reloads_failed: AtomicU64::new(0),
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

    /// Records a decided review.
    pub fn decided(
        &self,
        index: usize,
        operation: Operation,
        outcome: Outcome,
        condition_errors: usize,
        evaluation: Duration,
    ) {
        let Some(per) = self
            .hooks
            .get(index)
            .and_then(|h| h.operations.get(operation.index()))
        else {
            return;
        };
        if let Some(c) = per.decisions.get(outcome.index()) {
            c.fetch_add(1, Ordering::Relaxed);
        }
        if outcome == Outcome::Skip {
            per.exclusions.fetch_add(1, Ordering::Relaxed);
        }
        per.errors
            .fetch_add(condition_errors as u64, Ordering::Relaxed);
        per.seconds.observe(evaluation);
    }

    /// Records a response's status code.
    pub fn responded(&self, code: u16) {
        let i = CODES
            .iter()
            .position(|c| *c == code)
            .unwrap_or(CODES.len() - 1);
        if let Some(c) = self.responses.get(i) {
            c.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Records a certificate reload.
    pub fn reloaded(&self, ok: bool) {
        let c = if ok {
            &self.reloads_ok
        } else {
            &self.reloads_failed
        };
        c.fetch_add(1, Ordering::Relaxed);
    }

    /// Admission requests in flight.
    pub fn requests_in_flight(&self) -> i64 {
        self.inflight_requests.load(Ordering::Relaxed)
    }

    /// The metrics in the Prometheus text exposition format (version 0.0.4).
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(4096);
        let hook_labels = |h: &HookMetrics, op: Operation| {
            format!(
                "name=\"{}\",kind=\"webhook\",type=\"{}\",operation=\"{}\"",
                escape(&h.name),
                h.admission_type,
                op.as_str()
            )
        };

        header(
            &mut out,
            "matchcond_admission_match_condition_evaluation_seconds",
            "histogram",
            "Admission match condition evaluation time in seconds, identified by name and broken out for each kind containing matchConditions (webhook), operation and type (validate or admit).",
        );
        for h in &self.hooks {
            for (op, per) in observed(h) {
                let labels = hook_labels(h, op);
                let mut cumulative = 0;
                for (bound, count) in EVALUATION_BUCKETS.iter().zip(&per.seconds.buckets) {
                    cumulative += count.load(Ordering::Relaxed);
                    let _ = writeln!(
                        out,
                        "matchcond_admission_match_condition_evaluation_seconds_bucket{{{labels},le=\"{bound}\"}} {cumulative}"
                    );
                }
                let count = per.seconds.count.load(Ordering::Relaxed);
                let _ = writeln!(
                    out,
                    "matchcond_admission_match_condition_evaluation_seconds_bucket{{{labels},le=\"+Inf\"}} {count}"
                );
                let sum = per.seconds.sum_nanos.load(Ordering::Relaxed) as f64 / 1e9;
                let _ = writeln!(
                    out,
                    "matchcond_admission_match_condition_evaluation_seconds_sum{{{labels}}} {sum}"
                );
                let _ = writeln!(
                    out,
                    "matchcond_admission_match_condition_evaluation_seconds_count{{{labels}}} {count}"
                );
            }
        }

        header(
            &mut out,
            "matchcond_admission_match_condition_evaluation_errors_total",
            "counter",
            "Admission match condition evaluation errors count, identified by name of resource containing the match condition and broken out for each kind containing matchConditions (webhook), operation and admission type (validate or admit).",
        );
        for h in &self.hooks {
            for (op, per) in observed(h) {
                let _ = writeln!(
                    out,
                    "matchcond_admission_match_condition_evaluation_errors_total{{{}}} {}",
                    hook_labels(h, op),
                    per.errors.load(Ordering::Relaxed)
                );
            }
        }

        header(
            &mut out,
            "matchcond_admission_match_condition_exclusions_total",
            "counter",
            "Admission match condition evaluation exclusions count (the webhook is not called), identified by name of resource containing the match condition and broken out for each kind containing matchConditions (webhook), operation and admission type (validate or admit).",
        );
        for h in &self.hooks {
            for (op, per) in observed(h) {
                let _ = writeln!(
                    out,
                    "matchcond_admission_match_condition_exclusions_total{{{}}} {}",
                    hook_labels(h, op),
                    per.exclusions.load(Ordering::Relaxed)
                );
            }
        }

        header(
            &mut out,
            "matchcond_webhook_decisions_total",
            "counter",
            "AdmissionReviews decided, by webhook, admission type, operation and decision (call: the apiserver calls the webhook; skip: it does not; reject: it rejects the request).",
        );
        for h in &self.hooks {
            for (op, per) in observed(h) {
                for outcome in Outcome::ALL {
                    let n = per
                        .decisions
                        .get(outcome.index())
                        .map_or(0, |c| c.load(Ordering::Relaxed));
                    let _ = writeln!(
                        out,
                        "matchcond_webhook_decisions_total{{name=\"{}\",type=\"{}\",operation=\"{}\",decision=\"{}\"}} {n}",
                        escape(&h.name),
                        h.admission_type,
                        op.as_str(),
                        outcome.as_str()
                    );
                }
            }
        }

        header(
            &mut out,
            "matchcond_webhook_inflight_requests",
            "gauge",
            "AdmissionReviews being received or decided, by webhook.",
        );
        for h in &self.hooks {
            let _ = writeln!(
                out,
                "matchcond_webhook_inflight_requests{{name=\"{}\",type=\"{}\"}} {}",
                escape(&h.name),
                h.admission_type,
                h.inflight.load(Ordering::Relaxed)
            );
        }

        header(
            &mut out,
            "matchcond_server_inflight_requests",
            "gauge",
            "Admission requests being received or decided.",
        );
        let _ = writeln!(
            out,
            "matchcond_server_inflight_requests {}",
            self.inflight_requests.load(Ordering::Relaxed)
        );
        header(
            &mut out,
            "matchcond_server_inflight_bytes",
            "gauge",
            "Bytes of admission request bodies held in memory.",
        );
        let _ = writeln!(
            out,
            "matchcond_server_inflight_bytes {}",
            self.inflight_bytes.load(Ordering::Relaxed)
        );
        header(
            &mut out,
            "matchcond_server_responses_total",
            "counter",
            "HTTP responses by status code.",
        );
        for (code, count) in CODES.iter().zip(&self.responses) {
            let n = count.load(Ordering::Relaxed);
            if n == 0 {
                continue;
            }
            let code = if *code == 0 {
                "other".to_owned()
            } else {
                code.to_string()
            };
            let _ = writeln!(
                out,
                "matchcond_server_responses_total{{code=\"{code}\"}} {n}"
            );
        }
        header(
            &mut out,
            "matchcond_server_certificate_reloads_total",
            "counter",
            "Reloads of the serving certificate after its files changed, by result.",
        );
        let _ = writeln!(
            out,
            "matchcond_server_certificate_reloads_total{{result=\"success\"}} {}",
            self.reloads_ok.load(Ordering::Relaxed)
        );
        let _ = writeln!(
            out,
            "matchcond_server_certificate_reloads_total{{result=\"failure\"}} {}",
            self.reloads_failed.load(Ordering::Relaxed)
        );
        out
    }
}

/// The operations a webhook has decided reviews for, with their counters.
fn observed(h: &HookMetrics) -> impl Iterator<Item = (Operation, &PerOperation)> + '_ {
    Operation::ALL.into_iter().filter_map(move |op| {
        let per = h.operations.get(op.index())?;
        (per.seconds.count.load(Ordering::Relaxed) > 0).then_some((op, per))
    })
}

fn header(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

/// A label value escaped for the text format.
fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_and_sum() {
        let h = Histogram::default();
        h.observe(Duration::from_micros(3));
        h.observe(Duration::from_micros(30));
        h.observe(Duration::from_secs(1));
        let counts: Vec<u64> = h
            .buckets
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .collect();
        assert_eq!(counts, [1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(h.count.load(Ordering::Relaxed), 3);
        assert_eq!(h.sum_nanos.load(Ordering::Relaxed), 1_000_033_000);
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
