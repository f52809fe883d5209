//! The apiserver's matchConditions metrics, in the Prometheus text format, counted as the
//! apiserver counts them.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use matchcond::dispatch::HookKind;
use matchcond::metrics::MatchConditionMetrics;
use matchcond::{Activation, Environment, FailurePolicy, MatchCondition, MatchConditions};
use prometheus_client::encoding::text::encode;
use prometheus_client::registry::Registry;

fn conditions(list: &[(&str, &str)]) -> MatchConditions {
    let list: Vec<MatchCondition> = list
        .iter()
        .map(|(n, e)| MatchCondition::new(*n, *e))
        .collect();
    MatchConditions::compile(&Environment::latest(), &list).unwrap()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// The sample lines of a metric (its `_count` for a histogram), sorted.
fn samples(text: &str, metric: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .lines()
        .filter(|l| l.starts_with(metric))
        .map(String::from)
        .collect();
    out.sort();
    out
}

#[test]
fn decisions_are_counted_as_the_apiserver_counts_them() {
    let metrics = MatchConditionMetrics::new();
    let mut registry = Registry::default();
    metrics.register(&mut registry);
    let validating = metrics.webhook("v.example.com", HookKind::Validating);
    let mutating = metrics.webhook("m.example.com", HookKind::Mutating);
    let err = "object.metadata.nope == 1";
    // An error before the first false condition is counted; one after it is not.
    let error_then_false = conditions(&[("e1", err), ("f", "false"), ("e2", err)]);
    let errors = conditions(&[("e1", err), ("t", "true"), ("e2", err)]);
    let all_true = conditions(&[("t", "true")]);
    let request = serde_json::json!({"operation": "CREATE", "object": {"metadata": {}}});
    let act = Activation::from_request(&request);
    for _ in 0..2 {
        validating.decide(&error_then_false, &act, FailurePolicy::Fail, "CREATE");
    }
    validating.decide(&errors, &act, FailurePolicy::Ignore, "CREATE");
    validating.decide(&errors, &act, FailurePolicy::Fail, "UPDATE");
    validating.decide(&all_true, &act, FailurePolicy::Fail, "DELETE");
    mutating.decide(&error_then_false, &act, FailurePolicy::Fail, "CONNECT");

    let mut text = String::new();
    encode(&mut text, &registry).unwrap();
    let labels = |name: &str, t: &str, op: &str| {
        format!("{{name=\"{name}\",kind=\"webhook\",type=\"{t}\",operation=\"{op}\"}}")
    };
    let errors_total = "apiserver_admission_match_condition_evaluation_errors_total";
    assert_eq!(
        samples(&text, errors_total),
        sorted(vec![
            format!(
                "{errors_total}{} 1",
                labels("m.example.com", "admit", "CONNECT")
            ),
            format!(
                "{errors_total}{} 2",
                labels("v.example.com", "validating", "UPDATE")
            ),
            // Twice one error before the false condition, then two under Ignore.
            format!(
                "{errors_total}{} 4",
                labels("v.example.com", "validating", "CREATE")
            ),
        ])
    );
    let exclusions = "apiserver_admission_match_condition_exclusions_total";
    assert_eq!(
        samples(&text, exclusions),
        sorted(vec![
            format!(
                "{exclusions}{} 1",
                labels("m.example.com", "admit", "CONNECT")
            ),
            format!(
                "{exclusions}{} 0",
                labels("v.example.com", "validate", "UPDATE")
            ),
            // Two false conditions and one error ignored.
            format!(
                "{exclusions}{} 3",
                labels("v.example.com", "validate", "CREATE")
            ),
        ])
    );
    let count = "apiserver_admission_match_condition_evaluation_seconds_count";
    assert_eq!(
        samples(&text, count),
        sorted(vec![
            format!("{count}{} 1", labels("m.example.com", "admit", "CONNECT")),
            format!(
                "{count}{} 1",
                labels("v.example.com", "validating", "UPDATE")
            ),
            format!(
                "{count}{} 3",
                labels("v.example.com", "validating", "CREATE")
            ),
        ])
    );
    // The apiserver's buckets; a call observes nothing (no DELETE series).
    let buckets: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("_seconds_bucket") && l.contains("m.example.com"))
        .map(|l| l.split("le=\"").nth(1).unwrap().split('"').next().unwrap())
        .collect();
    assert_eq!(
        buckets,
        ["0.005", "0.025", "0.1", "0.5", "1.0", "2.5", "+Inf"]
    );
    assert!(!text.contains("DELETE"));
    assert!(
        text.contains("# TYPE apiserver_admission_match_condition_evaluation_seconds histogram")
    );
}

#[test]
fn an_explained_decision_is_counted_as_a_decided_one() {
    let err = "object.metadata.nope == 1";
    let sets = [
        conditions(&[("e1", err), ("f", "false"), ("e2", err)]),
        conditions(&[("e1", err), ("t", "true"), ("e2", err)]),
        conditions(&[("t", "true")]),
        conditions(&[("f", "false")]),
        // Out of the shared budget (an error before it): nothing counted as an error.
        conditions(&[
            ("e1", err),
            ("a", "[1, 2].all(x, x > 0)"),
            ("b", "[1, 2].all(x, x > 0)"),
        ])
        .with_budget(12),
    ];
    let request = serde_json::json!({"operation": "UPDATE", "object": {"metadata": {}}});
    let act = Activation::from_request(&request);
    let text = |explained: bool| {
        let metrics = MatchConditionMetrics::new();
        let mut registry = Registry::default();
        metrics.register(&mut registry);
        let hook = metrics.webhook("v.example.com", HookKind::Validating);
        for set in &sets {
            for policy in [FailurePolicy::Fail, FailurePolicy::Ignore] {
                if explained {
                    let report = set.explain(&act, policy);
                    hook.observe_report("UPDATE", &report, std::time::Duration::ZERO);
                } else {
                    hook.decide(set, &act, policy, "UPDATE");
                }
            }
        }
        let mut text = String::new();
        encode(&mut text, &registry).unwrap();
        // The time taken differs; the counts do not.
        text.lines()
            .filter(|l| !l.contains("_sum") && !l.contains("_bucket"))
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let decided = text(false);
    assert_eq!(text(true), decided);
    let errors = "apiserver_admission_match_condition_evaluation_errors_total";
    assert_eq!(
        samples(&decided.join("\n"), errors),
        [format!(
            "{errors}{{name=\"v.example.com\",kind=\"webhook\",type=\"validating\",operation=\"UPDATE\"}} 6"
        )]
    );
}

#[test]
fn the_time_observed_is_the_time_the_conditions_took() {
    let metrics = MatchConditionMetrics::new();
    let mut registry = Registry::default();
    metrics.register(&mut registry);
    let hook = metrics.webhook("v.example.com", HookKind::Validating);
    // About 40,000 comprehension steps, then a false condition: the webhook is skipped and
    // the time observed.
    let range = (0..200)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let slow = format!("[{range}].all(x, [{range}].all(y, x + y >= 0))");
    let set = conditions(&[("slow", slow.as_str()), ("f", "false")]);
    let request = serde_json::json!({"operation": "CREATE"});
    let act = Activation::from_request(&request);
    let started = std::time::Instant::now();
    hook.decide(&set, &act, FailurePolicy::Fail, "CREATE");
    let wall = started.elapsed().as_secs_f64();
    let mut text = String::new();
    encode(&mut text, &registry).unwrap();
    let sum: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("apiserver_admission_match_condition_evaluation_seconds_sum{"))
        .and_then(|l| l.rsplit(' ').next())
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        sum > 0.0 && sum <= wall,
        "observed {sum} s, the call took {wall} s"
    );
    // Not a rough tick: at least a tenth of the whole call's time.
    assert!(
        sum >= wall / 10.0,
        "observed {sum} s, the call took {wall} s"
    );
}
