//! The apiserver's matchConditions metrics, for any embedding (feature `metrics`), in a
//! [prometheus-client] registry the host owns.
//!
//! The names, label names, buckets and counting rules are the apiserver's
//! (`k8s.io/apiserver` `pkg/admission/metrics` and the webhook matcher):
//!
//! * `apiserver_admission_match_condition_evaluation_errors_total{name, kind, type,
//!   operation}`: one per condition that ended in an error, counted up to the first false
//!   condition (running out of the shared budget is not counted);
//! * `apiserver_admission_match_condition_exclusions_total{…}`: webhooks the conditions
//!   skip (a false condition, or errors under `failurePolicy: Ignore`);
//! * `apiserver_admission_match_condition_evaluation_seconds{…}`: the time the conditions
//!   took, observed when they skip the webhook or erred (not when it is called), buckets
//!   0.005, 0.025, 0.1, 0.5, 1, 2.5 seconds.
//!
//! `name` is the webhook's name and `kind` is `webhook`. As in the apiserver, `type` is
//! `admit` for a mutating webhook, and for a validating one `validating` on the errors and
//! the time, `validate` on the exclusions.
//!
//! ```
//! use matchcond::dispatch::HookKind;
//! use matchcond::metrics::MatchConditionMetrics;
//! use matchcond::{Activation, Environment, FailurePolicy, MatchCondition, MatchConditions};
//! use prometheus_client::registry::Registry;
//!
//! let metrics = MatchConditionMetrics::new();
//! let mut registry = Registry::default();
//! metrics.register(&mut registry);
//! // One handle per webhook, made once: observing takes no lock once its series exist.
//! let hook = metrics.webhook("pods.example.com", HookKind::Validating);
//! let conditions = MatchConditions::compile(&Environment::latest(), &[
//!     MatchCondition::new("not-system", "request.namespace != 'kube-system'"),
//! ]).unwrap();
//! let request = serde_json::json!({"operation": "CREATE", "namespace": "kube-system"});
//! let decision = hook.decide(&conditions, &Activation::from_request(&request),
//!     FailurePolicy::Fail, "CREATE");
//! assert!(matches!(decision, matchcond::Decision::Skip(_)));
//! let mut text = String::new();
//! prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
//! assert!(text.contains("apiserver_admission_match_condition_exclusions_total{name=\"pods.example.com\",kind=\"webhook\",type=\"validate\",operation=\"CREATE\"} 1"));
//! ```
//!
//! [prometheus-client]: https://docs.rs/prometheus-client

use std::sync::OnceLock;
use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::dispatch::HookKind;
use crate::{Activation, ConditionOutcome, Decision, FailurePolicy, MatchConditions, Report, Skip};

/// The buckets of `apiserver_admission_match_condition_evaluation_seconds`.
pub const EVALUATION_BUCKETS: [f64; 6] = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];

/// `name`, `kind`, `type`, `operation`.
type Labels = [(&'static str, String); 4];

fn histogram() -> Histogram {
    Histogram::new(EVALUATION_BUCKETS)
}

/// The three metrics; clones share their series.
#[derive(Clone, Debug)]
pub struct MatchConditionMetrics {
    errors: Family<Labels, Counter>,
    exclusions: Family<Labels, Counter>,
    seconds: Family<Labels, Histogram, fn() -> Histogram>,
    /// The clock [`WebhookMetrics::decide`] times the conditions with.
    clock: quanta::Clock,
}

impl Default for MatchConditionMetrics {
    fn default() -> Self {
        Self::new()
    }
}

/// The operations the apiserver sends; anything else shares one slot.
const OPERATIONS: [&str; 4] = ["CREATE", "UPDATE", "DELETE", "CONNECT"];

fn operation_index(operation: &str) -> usize {
    OPERATIONS
        .iter()
        .position(|o| *o == operation)
        .unwrap_or(OPERATIONS.len())
}

impl MatchConditionMetrics {
    /// The metrics, with no series yet. Calibrates the clock deciding is timed with (the
    /// time-stamp counter against the system's monotonic clock: up to 200 ms, once per
    /// process), so that no decision waits for it.
    pub fn new() -> Self {
        static CLOCK: OnceLock<quanta::Clock> = OnceLock::new();
        MatchConditionMetrics {
            errors: Family::default(),
            exclusions: Family::default(),
            seconds: Family::new_with_constructor(histogram),
            clock: CLOCK.get_or_init(quanta::Clock::new).clone(),
        }
    }

    /// Registers the three metrics under the apiserver's names.
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "apiserver_admission_match_condition_evaluation_errors",
            "Admission match condition evaluation errors count, identified by name of resource containing the match condition and broken out for each kind containing matchConditions (webhook or policy), operation and admission type (validate or admit).",
            self.errors.clone(),
        );
        registry.register(
            "apiserver_admission_match_condition_exclusions",
            "Admission match condition evaluation exclusions count, identified by name of resource containing the match condition and broken out for each kind containing matchConditions (webhook or policy), operation and admission type (validate or admit).",
            self.exclusions.clone(),
        );
        registry.register(
            "apiserver_admission_match_condition_evaluation_seconds",
            "Admission match condition evaluation time in seconds, identified by name and broken out for each kind containing matchConditions (webhook or policy), operation and type (validate or admit).",
            self.seconds.clone(),
        );
    }

    /// The handle of one webhook (make it once, keep it with the webhook's conditions).
    pub fn webhook(&self, name: &str, kind: HookKind) -> WebhookMetrics {
        WebhookMetrics {
            metrics: self.clone(),
            name: name.to_owned(),
            kind,
            operations: Default::default(),
        }
    }
}

/// One webhook's series for one operation, made when first observed.
#[derive(Debug)]
struct Series {
    errors: Counter,
    exclusions: Counter,
    seconds: Histogram,
}

/// The metrics of one webhook ([`MatchConditionMetrics::webhook`]).
#[derive(Debug)]
pub struct WebhookMetrics {
    metrics: MatchConditionMetrics,
    name: String,
    kind: HookKind,
    operations: [OnceLock<Series>; OPERATIONS.len()],
}

impl WebhookMetrics {
    /// Decides as [`MatchConditions::decide`] does, and records the decision.
    #[inline]
    pub fn decide<'a>(
        &self,
        conditions: &'a MatchConditions,
        activation: &Activation<'_>,
        policy: FailurePolicy,
        operation: &str,
    ) -> Decision<'a> {
        // One read of the time-stamp counter before, a second only when the apiserver
        // would observe the time (the conditions skip the webhook or erred).
        let clock = &self.metrics.clock;
        let start = clock.raw();
        let (decision, errors) = conditions.decide_counting(activation, policy);
        if !matches!(decision, Decision::Call) || errors > 0 {
            let took = clock.delta(start, clock.raw());
            self.observe(operation, &decision, errors, took);
        }
        decision
    }

    /// Records a decision made by the conditions, with the number of condition errors
    /// the apiserver counts and the time the conditions took.
    pub fn observe(&self, operation: &str, decision: &Decision<'_>, errors: usize, took: Duration) {
        if matches!(decision, Decision::Call) && errors == 0 {
            // Nothing the apiserver counts (and no series made for it).
            return;
        }
        self.with_series(operation, |series| {
            if errors > 0 {
                series.errors.inc_by(errors as u64);
            }
            match decision {
                Decision::Call => {}
                Decision::Skip(skip) => {
                    if matches!(skip, Skip::Condition(_) | Skip::Ignored(_)) {
                        series.exclusions.inc();
                    }
                    series.seconds.observe(took.as_secs_f64());
                }
                Decision::Reject { .. } => series.seconds.observe(took.as_secs_f64()),
            }
        });
    }

    /// Records a decision explained by [`MatchConditions::explain`], counting its errors as
    /// the apiserver does: those before the first false condition, none when the shared
    /// budget ran out.
    pub fn observe_report(&self, operation: &str, report: &Report<'_>, took: Duration) {
        let errors = if report.evaluation_error.is_some() {
            0
        } else {
            report
                .conditions
                .iter()
                .take_while(|c| c.outcome != ConditionOutcome::Value(false))
                .filter(|c| matches!(c.outcome, ConditionOutcome::Error(_)))
                .count()
        };
        self.observe(operation, &report.decision, errors, took);
    }

    /// The series of an operation: made once for the apiserver's four, made each time
    /// for any other.
    fn with_series(&self, operation: &str, f: impl FnOnce(&Series)) {
        match self.operations.get(operation_index(operation)) {
            Some(slot) => f(slot.get_or_init(|| self.make_series(operation))),
            None => f(&self.make_series(operation)),
        }
    }

    fn make_series(&self, operation: &str) -> Series {
        let (matcher_type, hook_type) = match self.kind {
            HookKind::Validating => ("validating", "validate"),
            HookKind::Mutating => ("admit", "admit"),
        };
        let labels = |t: &'static str| -> Labels {
            [
                ("name", self.name.clone()),
                ("kind", "webhook".to_owned()),
                ("type", t.to_owned()),
                ("operation", operation.to_owned()),
            ]
        };
        let m = &self.metrics;
        Series {
            errors: m.errors.get_or_create_owned(&labels(matcher_type)),
            exclusions: m.exclusions.get_or_create_owned(&labels(hook_type)),
            seconds: m.seconds.get_or_create_owned(&labels(matcher_type)),
        }
    }
}
