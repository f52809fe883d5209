//! The live dispatcher fed kube-runtime watcher events directly: adds, updates, deletes,
//! relists and bursts, with threads deciding all along; after every event its decisions
//! are those of a fresh dispatcher built from the same configurations.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use kube_runtime::watcher::Event;
use matchcond::dispatch::{AnyNamespace, Configuration, Dispatcher, HookOutcome, Labels};
use matchcond::runtime::LiveDispatcher;
use matchcond::{Decision, KubeVersion, Skip};
use serde_json::{json, Value as Json};

const VERSION: KubeVersion = KubeVersion::V1_34;

fn webhook(name: &str, expression: &str, policy: &str) -> Json {
    json!({
        "name": name, "sideEffects": "None", "admissionReviewVersions": ["v1"],
        "failurePolicy": policy,
        "clientConfig": {"url": "https://example.com"},
        "rules": [{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"],
                   "resources": ["*"]}],
        "matchConditions": [{"name": "c", "expression": expression}]
    })
}

fn validating(name: &str, hooks: &[Json]) -> ValidatingWebhookConfiguration {
    serde_json::from_value(json!({"metadata": {"name": name}, "webhooks": hooks})).unwrap()
}

fn mutating(name: &str, hooks: &[Json]) -> MutatingWebhookConfiguration {
    serde_json::from_value(json!({"metadata": {"name": name}, "webhooks": hooks})).unwrap()
}

fn requests() -> Vec<Json> {
    let mut out = Vec::new();
    for (op, ns, label) in [
        ("CREATE", "shop", "web"),
        ("UPDATE", "kube-system", "db"),
        ("DELETE", "shop", "web"),
        ("CREATE", "dev", "other"),
    ] {
        out.push(json!({
            "uid": "1", "operation": op, "namespace": ns, "name": "p",
            "kind": {"group": "", "version": "v1", "kind": "Pod"},
            "resource": {"group": "", "version": "v1", "resource": "pods"},
            "userInfo": {"username": "alice"},
            "object": if op == "DELETE" { Json::Null } else {
                json!({"metadata": {"name": "p", "labels": {"app": label}}})
            }
        }));
    }
    out
}

fn namespaces() -> AnyNamespace {
    AnyNamespace(Labels::from([("env".to_owned(), "prod".to_owned())]))
}

/// Every request's decisions, comparable.
fn decisions(d: &Dispatcher) -> Vec<Vec<(String, Decision<'static>)>> {
    requests()
        .iter()
        .map(|r| {
            d.dispatch(r, &namespaces())
                .unwrap()
                .hooks
                .into_iter()
                .map(|h: HookOutcome| (h.hook.uid.clone(), h.decision))
                .collect()
        })
        .collect()
}

/// The configurations in force, as a model of what the live dispatcher should hold.
#[derive(Default)]
struct Model {
    validating: BTreeMap<String, ValidatingWebhookConfiguration>,
    mutating: BTreeMap<String, MutatingWebhookConfiguration>,
}

impl Model {
    fn fresh(&self) -> Dispatcher {
        let configs: Vec<Configuration> = self
            .validating
            .values()
            .map(Configuration::from_validating)
            .chain(self.mutating.values().map(Configuration::from_mutating))
            .collect();
        Dispatcher::new(&configs, VERSION)
    }
}

fn name(c: &ValidatingWebhookConfiguration) -> String {
    c.metadata.name.clone().unwrap()
}

#[test]
fn events_keep_the_dispatcher_in_step_while_threads_decide() {
    let live = Arc::new(LiveDispatcher::new(VERSION));
    let stop = Arc::new(AtomicBool::new(false));
    let decided = Arc::new(AtomicUsize::new(0));
    // Deciders: every set they see is whole — each configuration's two webhooks agree on
    // the generation its conditions carry.
    let deciders: Vec<_> = (0..2)
        .map(|_| {
            let (live, stop, decided) = (live.clone(), stop.clone(), decided.clone());
            std::thread::spawn(move || {
                let reqs = requests();
                while !stop.load(Ordering::Relaxed) {
                    let d = live.dispatcher();
                    for r in &reqs {
                        let out = d.dispatch(r, &namespaces()).unwrap();
                        assert!(out.hooks.len() <= d.len());
                        let mut by_config: BTreeMap<&str, Vec<bool>> = BTreeMap::new();
                        for h in &out.hooks {
                            by_config
                                .entry(&h.hook.configuration)
                                .or_default()
                                .push(matches!(h.decision, Decision::Call));
                        }
                        for (config, calls) in by_config {
                            if config.starts_with("pair") {
                                assert!(calls.windows(2).all(|w| w[0] == w[1]), "{config}");
                            }
                        }
                    }
                    decided.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();

    let mut model = Model::default();
    let check = |model: &Model, live: &LiveDispatcher, step: &str| {
        assert_eq!(
            decisions(&live.dispatcher()),
            decisions(&model.fresh()),
            "{step}"
        );
    };
    let expr = |g: usize| format!("object.metadata.labels['app'] == 'web' || {g} % 2 == 0");

    // Adds.
    for i in 0..4 {
        let c = validating(
            &format!("pair-{i}"),
            &[
                webhook(&format!("a{i}.example.com"), &expr(i), "Fail"),
                webhook(&format!("b{i}.example.com"), &expr(i), "Fail"),
            ],
        );
        model.validating.insert(name(&c), c.clone());
        let applied = live.apply_validating(Event::Apply(c));
        assert!(applied.swapped);
        assert_eq!(applied.compiled.len(), 1);
        check(&model, &live, "add");
    }
    let m = mutating(
        "inject",
        &[webhook(
            "m.example.com",
            "request.namespace != 'kube-system'",
            "Ignore",
        )],
    );
    model.mutating.insert("inject".into(), m.clone());
    live.apply_mutating(Event::Apply(m.clone()));
    check(&model, &live, "add mutating");

    // The same configuration again (a resync, a metadata change): nothing recompiled.
    let mut touched = m.clone();
    touched.metadata.resource_version = Some("42".into());
    let applied = live.apply_mutating(Event::Apply(touched));
    assert_eq!(applied, Default::default());

    // Updates, in a burst.
    for g in 0..40 {
        let i = g % 4;
        let c = validating(
            &format!("pair-{i}"),
            &[
                webhook(&format!("a{i}.example.com"), &expr(g), "Fail"),
                webhook(&format!("b{i}.example.com"), &expr(g), "Fail"),
            ],
        );
        model.validating.insert(name(&c), c.clone());
        live.apply_validating(Event::Apply(c));
    }
    check(&model, &live, "burst of updates");

    // A condition that does not compile: reported, and an error when deciding.
    let broken = validating(
        "broken",
        &[webhook("x.example.com", "object.nope(", "Fail")],
    );
    model.validating.insert("broken".into(), broken.clone());
    let applied = live.apply_validating(Event::Apply(broken));
    let problems: Vec<_> = applied.problems().collect();
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].name, "broken");
    assert_eq!(
        problems[0].problems[0].field,
        "webhooks[0].matchConditions[0].expression"
    );
    assert!(problems[0].problems[0]
        .message
        .starts_with("compilation failed: ERROR: <input>:1:13: Syntax error"));
    assert_eq!(live.problems().len(), 1);
    check(&model, &live, "broken");

    // Deletes (an unknown one changes nothing).
    let gone = model.validating.remove("pair-3").unwrap();
    let applied = live.apply_validating(Event::Delete(gone.clone()));
    assert_eq!(applied.removed, ["pair-3"]);
    assert!(!live.apply_validating(Event::Delete(gone)).swapped);
    check(&model, &live, "delete");

    // A relist: the set before it stays in force until InitDone, then the listed set
    // replaces it whole (what was not listed is removed; what did not change is kept).
    let before = decisions(&live.dispatcher());
    live.apply_validating(Event::Init);
    let kept = model.validating["pair-0"].clone();
    let changed = validating("pair-1", &[webhook("a1.example.com", "false", "Fail")]);
    let added = validating("pair-9", &[webhook("a9.example.com", "true", "Fail")]);
    let mut relisted = Vec::new();
    for c in [kept.clone(), changed.clone(), added.clone()] {
        relisted.push(live.apply_validating(Event::InitApply(c)));
        assert_eq!(decisions(&live.dispatcher()), before, "during the relist");
    }
    assert!(
        relisted[0].compiled.is_empty(),
        "an unchanged configuration is reused"
    );
    assert_eq!(relisted[1].compiled.len(), 1);
    let done = live.apply_validating(Event::InitDone);
    assert!(done.swapped);
    assert_eq!(done.removed, ["broken", "pair-2"]);
    model.validating = [kept, changed, added]
        .into_iter()
        .map(|c| (name(&c), c))
        .collect();
    check(&model, &live, "relist");
    assert!(live.problems().is_empty());
    // The mutating kind was not relisted: its configuration stays.
    assert_eq!(
        live.dispatcher().hooks().next().unwrap().name,
        "m.example.com"
    );

    // An empty relist of the mutating kind removes it.
    live.apply_mutating(Event::Init);
    let done = live.apply_mutating(Event::InitDone);
    assert_eq!(done.removed, ["inject"]);
    model.mutating.clear();
    check(&model, &live, "empty relist");

    stop.store(true, Ordering::Relaxed);
    for d in deciders {
        d.join().unwrap();
    }
    assert!(decided.load(Ordering::Relaxed) > 0);
}

#[test]
fn an_ignored_error_is_carried_through_the_live_dispatcher() {
    let live = LiveDispatcher::new(VERSION);
    live.apply_validating(Event::Apply(validating(
        "v",
        &[webhook(
            "e.example.com",
            "object.metadata.nope == 1",
            "Ignore",
        )],
    )));
    let request = &requests()[0];
    let outcome = live
        .dispatcher()
        .decide_webhook("e.example.com", request, &namespaces())
        .unwrap()
        .unwrap();
    let Decision::Skip(Skip::Ignored(e)) = &outcome.decision else {
        panic!("{:?}", outcome.decision)
    };
    assert_eq!(e.condition(), "c");
    assert_eq!(
        e.message(),
        "expression 'object.metadata.nope == 1' resulted in error: no such key: nope"
    );
}
