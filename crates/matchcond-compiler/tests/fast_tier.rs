//! The fast tier gives the general evaluator's result and cost, or gives up.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use matchcond_compiler::Environment;
use matchcond_runtime::Activation;
use serde_json::{json, Value as Json};

const EXPRESSIONS: &[&str] = &[
    "request.namespace != 'kube-system'",
    "request.dryRun != true",
    "request.dryRun == false",
    "has(object.metadata.labels) && 'app' in object.metadata.labels && object.metadata.labels['app'] == 'web'",
    "!(request.resource.group == 'coordination.k8s.io' && request.resource.resource == 'leases')",
    "!('system:nodes' in request.userInfo.groups)",
    "!request.userInfo.username.startsWith('system:')",
    "request.userInfo.username.endsWith('@example.com')",
    "request.userInfo.username.contains('serviceaccount')",
    "request.operation in ['CREATE', 'UPDATE']",
    "object.metadata.name == 'a-rather-long-object-name-for-costs'",
    "object.metadata.generation == 1",
    "object.spec.replicas == 3 || object.spec.replicas == 3.0",
    "object.metadata.namespace == null",
    "oldObject.metadata.resourceVersion != ''",
    "has(request.name) && request.name != ''",
    "has(request.subResource)",
    "has(request.options) || has(request.kind)",
    "request.object == null",
    "has(request.object)",
    "has(object.metadata) && has(object.metadata.labels)",
    "'app' in object.metadata.labels || 'team' in object.metadata.labels",
    "object.kind in ['Pod', 'Deployment']",
    "object.metadata.labels.app.startsWith('w')",
    "true && request.namespace == 'shop'",
    "false || !(request.kind.kind == 'Pod')",
    "object == null",
    "oldObject == null && object != null",
    "object.spec.containers.all(c, c.image.startsWith('registry.example.com/'))",
    "object.spec.containers.exists(c, c.name == 'web')",
    "object.spec.containers.exists(c, c.securityContext.privileged == true)",
    "object == null || !has(object.data) || object.data.all(k, !k.startsWith('secret-'))",
    "object == null || !has(object.data) || !object.data.exists(k, object.data[k].contains('BEGIN'))",
    "object.metadata.labels.exists(k, k.startsWith('app'))",
    "object.metadata.labels.all(k, object.metadata.labels[k] != '')",
    "request.userInfo.groups.exists(g, g == 'system:masters')",
    "object.metadata.labels.exists_one(k, k == 'app')",
    "object.spec.containers.all(c, c.ports.all(p, p.name != 'x'))",
    "[1, 2].all(x, x == 1)",
    "object.metadata.name != '' && has(object.metadata.labels)",
    "object.metadata.labels.app == 'web' && 'app' in object.metadata.labels",
    "object.metadata.labels['app'] == 'web' && has(object.metadata.labels.app) && has(object.metadata.labels)",
    "request.namespace == 'shop' && has(request.namespace) && request.userInfo.username != ''",
    "request.dryRun || request.name == ''",
    "has(object.metadata.labels.app) && object.metadata.labels.app.startsWith('w')",
    "'team' in object.metadata.labels && object.metadata.labels.team == null",
    "!('b' in object.metadata.labels) || object.metadata.labels['b'] == 1",
    "has(object.spec) && 'replicas' in object.spec && object.spec.replicas == 3",
    "'app' in object.metadata.labels && has(object.metadata.labels.app)",
    "request.operation != 'UPDATE' || object.spec != oldObject.spec",
    "object.metadata == oldObject.metadata",
    "object.metadata.labels.app == object.metadata.labels['app']",
    "object.spec.replicas == oldObject.metadata.generation",
    "object.metadata.labels.exists(k, object.metadata.labels[k] == oldObject.metadata.resourceVersion)",
    // Fields selected where there are none: errors, and how `&&`, `||`, `!` and calls take them.
    "object.metadata.labels.app.tier == 'x'",
    "has(object.spec.replicas.x) || has(object.metadata)",
    "!(object.metadata.name == 'x')",
    "object.metadata.name.startsWith('a') || true",
    "false || object.metadata.uid.contains('a')",
    "object.status.phase in ['Running', 'Pending']",
    "object.metadata.name == oldObject.metadata.name",
    "oldObject.metadata.name != object.metadata.name && false",
    "object.data.all(k, k != 'x')",
    "request.object.metadata.name == 'x'",
    "'app' in object.metadata.annotations && object.metadata.annotations.app == 'x'",
    "object.spec.paused",
    // Lists and maps beside scalars: never equal, priced by whether they are empty.
    "object.spec == null",
    "null != object.data",
    "object.spec.containers == 1",
    "object.metadata.labels != true",
    "object.data == 2.5 || object.spec.containers != 0u",
];

/// Sets of mixed types, which the checker refuses (run unchecked): a string equals only
/// strings, a number any equal number.
const UNCHECKED_ONLY: &[&str] = &[
    "request.operation in [1, 'CREATE', null]",
    "object.metadata.name in ['x', 7.0, 'web']",
];

/// Shapes the fast tier does not take.
const GENERAL_ONLY: &[&str] = &[
    "object.metadata.labels.exists_one(k, k == 'app')",
    "[1, 2].all(x, x == 1)",
];

fn requests() -> Vec<Json> {
    let mut out = Vec::new();
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/reviews");
    for name in ["pod-create", "deployment-update", "configmap-delete"] {
        let text = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
        let review: Json = serde_json::from_str(&text).unwrap();
        out.push(review["request"].clone());
    }
    out.push(json!({
        "uid": "u", "kind": {"group": "", "version": "v1", "kind": "Pod"},
        "resource": {"group": "", "version": "v1", "resource": "pods"},
        "operation": "CREATE", "name": "", "namespace": "", "subResource": "",
        "userInfo": {"username": "system:serviceaccount:x:y", "groups": ["system:nodes", 3]},
        "object": {"kind": "Pod", "metadata": {"labels": "not-a-map", "name": 7},
                   "spec": {"replicas": 3.0}},
        "options": null
    }));
    out.push(json!({
        "uid": "u", "operation": "UPDATE", "namespace": "kube-system", "dryRun": "yes",
        "userInfo": {"username": 5, "groups": "system:nodes"},
        "resource": {"group": "coordination.k8s.io", "resource": "leases"},
        "object": {"metadata": {"labels": {"app": "web", "team": null}, "generation": 1,
                   "namespace": null}, "spec": {"replicas": 3}},
        "oldObject": {"metadata": {"resourceVersion": ""}}
    }));
    out.push(json!({"object": null, "oldObject": [1, 2]}));
    out.push(json!({
        "operation": "CREATE", "dryRun": false,
        "object": {"metadata": {"labels": {"app": "", "b": 1}},
                   "data": {"a": "x", "secret-b": "-----BEGIN", "c": 5},
                   "spec": {"containers": [{"name": "web", "image": "registry.example.com/a",
                                            "ports": [{"name": "x"}]}, 7]}}
    }));
    out.push(json!({
        "operation": "CREATE", "dryRun": false,
        "object": {"data": {"a": "no", "b": "BEGIN here"},
                   "spec": {"containers": [{"name": "a", "image": "other/b",
                                            "securityContext": {"privileged": true}}]}}
    }));
    out.push(json!({
        "operation": "CREATE",
        "object": {"metadata": {"labels": {}}, "data": {}, "spec": {"containers": []}}
    }));
    out.push(json!("not an object"));
    out
}

fn describe(ev: &matchcond_runtime::Evaluation<'_>) -> String {
    match &ev.result {
        Ok(v) => format!("{v:?} cost {}", ev.cost),
        Err(e) => format!("error {} cost {}", e.message(), ev.cost),
    }
}

#[test]
fn fast_tier_matches_the_general_evaluator() {
    let env = Environment::latest();
    let mut fast_programs = 0;
    let mut compared = 0;
    let unchecked = matchcond_compiler::CompileOptions::default().with_unchecked(true);
    for expr in UNCHECKED_ONLY {
        assert!(env.compile_condition(expr).is_err(), "{expr}");
    }
    let programs = EXPRESSIONS.iter().chain(UNCHECKED_ONLY).flat_map(|expr| {
        let checked = env.compile_condition(expr).ok().map(|p| (expr, true, p));
        let plain = env
            .compile(expr, &unchecked)
            .ok()
            .map(|p| (expr, false, std::sync::Arc::new(p)));
        [checked, plain].into_iter().flatten()
    });
    for (expr, checked, p) in programs {
        if checked {
            // Every checked shape above has a fast form (the test would prove little otherwise).
            assert!(p.has_fast_tier() || GENERAL_ONLY.contains(expr), "{expr}");
            fast_programs += 1;
        }
        for req in requests() {
            let act = Activation::from_request(&req);
            for limit in [None, Some(1), Some(3), Some(1_000_000)] {
                let general = describe(&p.evaluate_general(&act, limit));
                let either = describe(&p.evaluate(&act, limit));
                assert_eq!(either, general, "{expr} on {req} (limit {limit:?})");
                compared += 1;
            }
        }
    }
    // A few expressions read fields the typed `request` does not have (compile errors when
    // checked); they still run unchecked.
    assert!(fast_programs >= EXPRESSIONS.len() - 4, "{fast_programs}");
    assert_eq!(
        compared,
        (EXPRESSIONS.len() + UNCHECKED_ONLY.len() + fast_programs) * 10 * 4
    );
}

#[test]
fn lookups_shared_by_a_decision_give_each_program_its_own_result() {
    let env = Environment::latest();
    let programs: Vec<_> = EXPRESSIONS
        .iter()
        .filter_map(|e| env.compile_condition(e).ok())
        .collect();
    for req in requests() {
        let act = Activation::from_request(&req);
        // One set of lookups for every program, in two orders.
        for reverse in [false, true] {
            let lookups = matchcond_runtime::activation::Lookups::new();
            let mut order: Vec<_> = programs.iter().collect();
            if reverse {
                order.reverse();
            }
            for p in order {
                let shared = describe(&p.evaluate_in(&act, &lookups, Some(1_000_000)));
                let general = describe(&p.evaluate_general(&act, Some(1_000_000)));
                assert_eq!(shared, general, "{} on {req}", p.expression());
            }
        }
    }
}

/// The fast tier answers a field selected where there is none itself (the general
/// evaluator would give the same error and cost; see the test above).
#[test]
fn the_fast_tier_reproduces_a_missing_field() {
    let env = Environment::latest();
    let delete = json!({"operation": "DELETE", "object": null,
                        "oldObject": {"metadata": {"name": "a", "labels": {"app": 3}}}});
    let act = Activation::from_request(&delete);
    for (expr, want) in [
        (
            "has(object.metadata.labels) && 'app' in object.metadata.labels && object.metadata.labels['app'] == 'web'",
            Err(("no such key: metadata", 7)),
        ),
        ("oldObject.metadata.labels.app.tier == 'x'", Err(("no such key: tier", 6))),
        ("oldObject.metadata.annotations.x == 'y' || true", Ok((true, 4))),
        ("has(oldObject.metadata.labels.app.tier)", Ok((false, 4))),
        ("has(object.metadata)", Ok((false, 1))),
        ("object.spec.paused && false", Ok((false, 2))),
    ] {
        let p = env.compile_condition(expr).unwrap();
        let lookups = matchcond_runtime::activation::Lookups::new();
        let got = p
            .evaluate_fast(&act, &lookups, Some(1_000_000))
            .unwrap_or_else(|| panic!("{expr}: the fast tier gave up"));
        let got = match got {
            (Ok(b), cost) => Ok((b, cost)),
            (Err(e), cost) => Err((e.message().to_owned(), cost)),
        };
        let want = want.map_err(|(m, c)| (m.to_owned(), c));
        assert_eq!(
            describe(&p.evaluate_general(&act, Some(1_000_000))),
            match &got {
                Ok((b, c)) => format!("Bool({b}) cost {c}"),
                Err((m, c)) => format!("error {m} cost {c}"),
            },
            "{expr}"
        );
        assert_eq!(got, want, "{expr}");
    }
}

#[test]
fn typical_conditions_have_a_fast_form() {
    let env = Environment::latest();
    for expr in [
        "request.namespace != 'kube-system'",
        "request.dryRun != true",
        "has(object.metadata.labels) && 'app' in object.metadata.labels && object.metadata.labels['app'] == 'web'",
        "object.spec.containers.all(c, c.image.startsWith('r/'))",
    ] {
        assert!(env.compile_condition(expr).unwrap().has_fast_tier(), "{expr}");
    }
    // Optional selection and comprehensions stay with the general evaluator.
    for expr in [
        "object.?metadata.?labels['team'].orValue('') == 'payments'",
        "object.spec.containers.map(c, c.name).size() > 1",
    ] {
        assert!(
            !env.compile_condition(expr).unwrap().has_fast_tier(),
            "{expr}"
        );
    }
}

#[test]
fn read_paths_mark_what_is_only_tested_for_presence() {
    use matchcond_compiler::ReadPath;
    let env = Environment::latest();
    let path = |slot: usize, fields: &[&str], presence_only: bool| ReadPath {
        slot,
        fields: fields.iter().map(|f| Box::from(*f)).collect(),
        presence_only,
    };
    let program = env
        .compile_condition(
            "has(object.metadata.labels) && 'app' in object.metadata.labels && object.metadata.labels['app'] == 'web' && request.namespace != 'x' && 'k' in object.spec[request.name]",
        )
        .unwrap();
    let mut got = program.read_paths().to_vec();
    got.sort_by(|a, b| {
        (a.slot, &a.fields, a.presence_only).cmp(&(b.slot, &b.fields, b.presence_only))
    });
    assert_eq!(
        got,
        [
            path(0, &["metadata", "labels"], true),
            path(0, &["metadata", "labels", "app"], false),
            path(0, &["metadata", "labels", "app"], true),
            // The map indexed at run time is read whole.
            path(0, &["spec"], false),
            path(2, &["name"], false),
            path(2, &["namespace"], false),
        ]
    );
}
