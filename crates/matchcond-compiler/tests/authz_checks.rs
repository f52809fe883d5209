//! Resource checks read at once (`authorizer.group(…).resource(…)….check(v).allowed()`):
//! the authorizer is asked once per check with the attributes the builders give, and
//! every road off the common one (a failing or non-string argument, a blank resource, an
//! unbound authorizer, the cost limit) has the results, costs and errors of the calls made
//! one by one.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::sync::{Arc, Mutex};

use matchcond_compiler::{Environment, KubeVersion, PER_CALL_COST_LIMIT};
use matchcond_runtime::authz::{Attributes, Authorizer, AuthzResponse};
use matchcond_runtime::{Activation, Value};

/// Records what each check asked (verb, group, resource, subresource, namespace, name,
/// user) and allows `create` only.
#[derive(Default)]
struct Recorder(Mutex<Vec<String>>);

impl Authorizer for Recorder {
    fn authorize(&self, a: &Attributes<'_>) -> AuthzResponse {
        let r = a.resource.as_ref().unwrap();
        self.0.lock().unwrap().push(format!(
            "{} {}/{}/{}/{} ns={} name={} {}/{:?}",
            a.verb,
            r.api_group,
            r.api_version,
            r.resource,
            r.subresource,
            r.namespace,
            r.name,
            a.user.name(),
            a.user.groups().collect::<Vec<_>>()
        ));
        match a.verb {
            "create" => AuthzResponse::allow(),
            "fail" => AuthzResponse::error("the authorizer failed"),
            _ => AuthzResponse::deny(),
        }
    }
}

/// The result (value or error text), the cost and the checks asked.
fn run(version: u32, expr: &str) -> (Result<String, String>, u64, Vec<String>) {
    let env = Environment::kubernetes(KubeVersion::new(1, version));
    let program = env.compile_condition(expr).unwrap();
    let request = serde_json::json!({
        "operation": "CREATE",
        "namespace": "shop",
        "name": "web",
        "userInfo": {"username": "alice", "groups": ["devs", "system:authenticated"]},
        "object": {"metadata": {"name": "web-1", "labels": {"n": 1}}}
    });
    let recorder = Arc::new(Recorder::default());
    let activation =
        Activation::from_request(&request).with_authorizer(Arc::clone(&recorder) as Arc<_>);
    let out = program.evaluate(&activation, Some(PER_CALL_COST_LIMIT));
    let result = match out.result {
        Ok(Value::Bool(b)) => Ok(b.to_string()),
        Ok(other) => Ok(format!("{other:?}")),
        Err(e) => Err(e.message().to_string()),
    };
    let seen = recorder.0.lock().unwrap().clone();
    (result, out.cost, seen)
}

const USER: &str = r#"alice/["devs", "system:authenticated"]"#;

#[test]
fn a_check_asks_once_with_the_builders_attributes() {
    let (r, cost, seen) = run(
        36,
        "authorizer.group('apps').resource('deployments').subresource('scale')\
         .namespace(request.namespace).name(object.metadata.name).check('create').allowed()",
    );
    assert_eq!(r, Ok("true".into()));
    // `authorizer` 1, `request.namespace` 2, `object.metadata.name` 3, five builders and
    // the accessor 1 each, the check 350,000.
    assert_eq!(cost, 350_012);
    assert_eq!(
        seen,
        [format!(
            "create apps/*/deployments/scale ns=shop name=web-1 {USER}"
        )]
    );
    // The later of two builders of one field wins.
    let (r, _, seen) = run(
        36,
        "!authorizer.group('').resource('pods').namespace('a').namespace('').check('get').allowed()",
    );
    assert_eq!(r, Ok("true".into()));
    assert_eq!(seen, [format!("get /*/pods/ ns= name= {USER}")]);
    let (r, cost, _) = run(
        36,
        "authorizer.group('').resource('pods').check('fail').errored()",
    );
    assert_eq!((r, cost), (Ok("true".into()), 350_004));
    // Before 1.32 every library call costs 1.
    let (r, cost, _) = run(
        31,
        "authorizer.group('').resource('pods').check('get').allowed()",
    );
    assert_eq!((r, cost), (Ok("false".into()), 5));
}

#[test]
fn a_negated_check_is_asked_once_and_charged_for_the_negation() {
    let not_get = "!authorizer.group('').resource('pods').check('get').allowed()";
    let (r, cost, seen) = run(36, not_get);
    assert_eq!((r, cost), (Ok("true".into()), 350_005));
    assert_eq!(seen, [format!("get /*/pods/ ns= name= {USER}")]);
    // Version, expression, result, cost and checks asked. Negated twice, the outer
    // negation is an ordinary call (`!!` parses as no negation).
    let cases: [(u32, &str, &str, u64, usize); 5] = [
        (31, not_get, "true", 6, 1),
        (
            36,
            "!authorizer.group('').resource('pods').check('create').allowed()",
            "false",
            350_005,
            1,
        ),
        (
            36,
            "!authorizer.group('').resource('pods').check('fail').errored()",
            "false",
            350_005,
            1,
        ),
        (
            36,
            "!(!authorizer.group('').resource('pods').check('get').allowed())",
            "false",
            350_006,
            1,
        ),
        (
            36,
            "!!authorizer.group('').resource('pods').check('get').allowed()",
            "false",
            350_004,
            1,
        ),
    ];
    for (version, expr, result, expected_cost, asked) in cases {
        let (r, cost, seen) = run(version, expr);
        assert_eq!(
            (r, cost, seen.len()),
            (Ok(result.into()), expected_cost, asked),
            "{expr}"
        );
    }
    // Off the common road, the negation's result, cost and error are the calls'.
    let (r, cost, seen) = run(
        36,
        "!authorizer.group('').resource(' ').check('get').allowed()",
    );
    assert_eq!(r, Err("resource must not be empty".into()));
    assert_eq!((cost, seen.len()), (350_005, 0));
    let (r, _, seen) = run(36, &format!("{not_get} && {not_get} && {not_get}"));
    assert_eq!(
        r,
        Err("operation cancelled: actual cost limit exceeded".into())
    );
    assert_eq!(seen.len(), 2);
}

#[test]
fn roads_off_the_common_one_keep_the_calls_results_costs_and_errors() {
    // A blank resource.
    let (r, cost, seen) = run(
        36,
        "authorizer.group('').resource(' ').check('get').allowed()",
    );
    assert_eq!(r, Err("resource must not be empty".into()));
    // A failed argument does not spare the calls' charges.
    assert_eq!((cost, seen.len()), (350_004, 0));
    // An argument that fails, and one that is not a string.
    let (r, cost, seen) = run(
        36,
        "authorizer.group('').resource('pods').namespace(object.nope).check('get').allowed()",
    );
    assert_eq!(r, Err("no such key: nope".into()));
    assert_eq!((cost, seen.len()), (350_007, 0));
    let (r, _, seen) = run(
        36,
        "authorizer.group('').resource('pods').name(dyn(object.metadata.labels.n)).check('get').allowed()",
    );
    assert_eq!(
        r,
        Err("no such overload: name(kubernetes.authorization.ResourceCheck, int)".into())
    );
    assert!(seen.is_empty());
    // The third check of an expression would pass the cost limit: it is not made.
    let one = "authorizer.group('').resource('pods').check('create').allowed()";
    let (r, _, seen) = run(36, &format!("{one} && {one} && {one}"));
    assert_eq!(
        r,
        Err("operation cancelled: actual cost limit exceeded".into())
    );
    assert_eq!(seen.len(), 2);
    // Absorbed by `||` as the calls' errors are.
    let (r, _, _) = run(
        36,
        "authorizer.group('').resource('').check('get').allowed() || true",
    );
    assert_eq!(r, Ok("true".into()));
}

#[test]
fn an_unbound_authorizer_is_no_such_attribute() {
    let env = Environment::kubernetes(KubeVersion::new(1, 36));
    let program = env
        .compile_condition("authorizer.group('').resource('pods').check('get').allowed()")
        .unwrap();
    let request = serde_json::json!({"operation": "CREATE"});
    let out = program.evaluate(
        &Activation::from_request(&request),
        Some(PER_CALL_COST_LIMIT),
    );
    assert_eq!(
        out.result.unwrap_err().message(),
        "no such attribute(s): authorizer"
    );
}

/// The checks asked and the result of `expr` on `request`, `authorizer` bound lazily to
/// the request's user, or to `host_user` when given.
fn asked(
    expr: &str,
    request: &serde_json::Value,
    host_user: Option<matchcond_runtime::authz::UserInfo>,
) -> (Result<String, String>, Vec<String>) {
    let env = Environment::kubernetes(KubeVersion::new(1, 36));
    let program = env.compile_condition(expr).unwrap();
    let recorder = Arc::new(Recorder::default());
    let mut activation = Activation::from_request(request);
    match host_user {
        Some(user) => activation.bind_authorizer_for(
            user,
            Arc::clone(&recorder) as Arc<_>,
            &matchcond_runtime::authz::RequestResource::from_request(request),
        ),
        None => activation.bind_authorizer(Arc::clone(&recorder) as Arc<_>),
    }
    let out = program.evaluate(&activation, Some(PER_CALL_COST_LIMIT));
    let result = match out.result {
        Ok(v) => Ok(format!("{v:?}")),
        Err(e) => Err(e.message().to_string()),
    };
    let seen = recorder.0.lock().unwrap().clone();
    (result, seen)
}

#[test]
fn every_road_asks_for_the_same_principal() {
    let at_once = "authorizer.group('').resource('pods').check('create').allowed()";
    // `authorizer` inside a list is not the common road: the builders' values ask.
    let by_values = "[authorizer][0].group('').resource('pods').check('create').allowed()";
    let requests = [
        serde_json::json!({"userInfo": {"username": "alice", "uid": "u1",
            "groups": ["devs", 7, "ops"], "extra": {"k": ["v"]}}}),
        // Malformed members read as empty.
        serde_json::json!({"userInfo": {"username": 7, "groups": "devs"}}),
        serde_json::json!({"userInfo": "alice"}),
        serde_json::json!({"operation": "CREATE"}),
    ];
    let expected = [
        r#"create /*/pods/ ns= name= alice/["devs", "ops"]"#,
        "create /*/pods/ ns= name= /[]",
        "create /*/pods/ ns= name= /[]",
        "create /*/pods/ ns= name= /[]",
    ];
    for (request, want) in requests.iter().zip(expected) {
        for expr in [at_once, by_values] {
            let (r, seen) = asked(expr, request, None);
            assert_eq!(r, Ok("Bool(true)".into()), "{expr} on {request}");
            assert_eq!(seen, [want], "{expr} on {request}");
        }
    }
    // A principal the host binds is asked for on every road.
    let host = matchcond_runtime::authz::UserInfo::new("bob").with_groups(["admins"]);
    for expr in [at_once, by_values] {
        let (_, seen) = asked(expr, &requests[0], Some(host.clone()));
        assert_eq!(
            seen,
            [r#"create /*/pods/ ns= name= bob/["admins"]"#],
            "{expr}"
        );
    }
}
