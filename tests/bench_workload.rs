//! The shared benchmark workload's expected outcomes (computed by cel-go) are reproduced:
//! every condition on every request, and the decision of every condition set. The
//! authorizer conditions are answered by the workload's mock authorizer (bench README).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use matchcond::runtime::authz::{Attributes, Authorizer, AuthzResponse};
use matchcond::{
    Activation, Decision, Environment, FailurePolicy, MatchCondition, MatchConditions, Value,
};
use serde::Deserialize;

#[derive(Deserialize)]
struct Condition {
    name: String,
    expression: String,
    #[serde(default)]
    needs_authorizer: bool,
}

/// The workload's mock authorizer: members of `system:masters` may do anything; the verb
/// `breakglass` is allowed only to the group `breakglass-admins`; `create` on core `pods` is
/// allowed to users named `system:serviceaccount:kube-system:*` and, in the namespace
/// `shop`, to the group `oidc:shop-devs`; everything else is denied.
struct MockAuthorizer;

impl Authorizer for MockAuthorizer {
    fn authorize(&self, a: &Attributes<'_>) -> AuthzResponse {
        let in_group = |g: &str| a.user.groups.iter().any(|x| x == g);
        if in_group("system:masters") {
            return AuthzResponse::allow();
        }
        if a.verb == "breakglass" {
            return if in_group("breakglass-admins") {
                AuthzResponse::allow()
            } else {
                AuthzResponse::deny()
            };
        }
        if let Some(r) = &a.resource {
            if a.verb == "create" && r.api_group.is_empty() && r.resource == "pods" {
                if a.user
                    .name
                    .starts_with("system:serviceaccount:kube-system:")
                {
                    return AuthzResponse::allow();
                }
                if in_group("oidc:shop-devs") && r.namespace == "shop" {
                    return AuthzResponse::allow();
                }
            }
        }
        AuthzResponse::deny()
    }
}

fn activation(request: &serde_json::Value) -> Activation<'_> {
    Activation::from_request(request).with_authorizer(Arc::new(MockAuthorizer))
}

#[derive(Deserialize)]
struct Conditions {
    conditions: Vec<Condition>,
    filler_conditions: Vec<Condition>,
    condition_sets: BTreeMap<String, Vec<String>>,
}

#[derive(Deserialize)]
struct Expected {
    requests: Vec<String>,
    conditions: BTreeMap<String, BTreeMap<String, String>>,
    condition_sets: BTreeMap<String, BTreeMap<String, String>>,
}

fn bench_dir() -> Option<PathBuf> {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/bench");
    d.join("conditions.yaml").exists().then_some(d)
}

struct Workload {
    conditions: Vec<Condition>,
    sets: BTreeMap<String, Vec<String>>,
    expected: Expected,
    requests: BTreeMap<String, serde_json::Value>,
}

fn load() -> Option<Workload> {
    let Some(dir) = bench_dir() else {
        eprintln!("../shared/bench not found; skipping");
        return None;
    };
    let c: Conditions =
        serde_yaml_ng::from_str(&std::fs::read_to_string(dir.join("conditions.yaml")).unwrap())
            .unwrap();
    let expected: Expected =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected-outcomes.json")).unwrap())
            .unwrap();
    let mut requests = BTreeMap::new();
    for r in &expected.requests {
        let text = std::fs::read_to_string(dir.join("requests").join(format!("{r}.json"))).unwrap();
        let review: serde_json::Value = serde_json::from_str(&text).unwrap();
        requests.insert(r.clone(), review["request"].clone());
    }
    let mut conditions = c.conditions;
    conditions.extend(c.filler_conditions);
    Some(Workload {
        conditions,
        sets: c.condition_sets,
        expected,
        requests,
    })
}

#[test]
fn every_condition_on_every_request() {
    let Some(w) = load() else { return };
    let env = Environment::latest();
    let mut checked = 0;
    let mut with_authorizer = 0;
    for c in &w.conditions {
        if c.needs_authorizer {
            with_authorizer += 1;
        }
        let program = env
            .compile_condition(&c.expression)
            .unwrap_or_else(|e| panic!("{}: {e}", c.name));
        for (rname, req) in &w.requests {
            let act = activation(req);
            let out = program.evaluate(&act, Some(1_000_000));
            let got = match &out.result {
                Ok(Value::Bool(true)) => "true".to_string(),
                Ok(Value::Bool(false)) => "false".to_string(),
                Ok(other) => format!("non-bool {other:?}"),
                Err(e) => format!("error: {e}"),
            };
            let want = &w.expected.conditions[&c.name][rname];
            if want.starts_with("error") {
                assert!(
                    got.starts_with("error"),
                    "{} on {rname}: want {want}, got {got}",
                    c.name
                );
            } else {
                assert_eq!(&got, want, "{} on {rname}", c.name);
            }
            checked += 1;
        }
    }
    assert!(checked >= 73 * 4, "checked {checked}");
    assert_eq!(with_authorizer, 2);
}

#[test]
fn every_condition_set_decision() {
    let Some(w) = load() else { return };
    let env = Environment::latest();
    let by_name: BTreeMap<&str, &Condition> =
        w.conditions.iter().map(|c| (c.name.as_str(), c)).collect();
    let mut sets = 0;
    for (set, names) in &w.sets {
        let conds: Vec<&Condition> = names.iter().map(|n| by_name[n.as_str()]).collect();
        let mcs: Vec<MatchCondition> = conds
            .iter()
            .map(|c| MatchCondition::new(c.name.clone(), c.expression.clone()))
            .collect();
        let compiled = MatchConditions::compile(&env, &mcs).unwrap();
        for (rname, req) in &w.requests {
            let act = activation(req);
            let got = match compiled.decide(&act, FailurePolicy::Fail) {
                Decision::Call => "call",
                Decision::Skip { .. } => "skip",
                Decision::Reject { .. } => "failurePolicy",
            };
            assert_eq!(
                got, w.expected.condition_sets[set][rname],
                "{set} on {rname}"
            );
        }
        sets += 1;
    }
    assert!(sets >= 4 && w.sets.contains_key("authz2"), "{sets} sets");
}
