//! The authz library through its public surface: the declared overloads all have
//! implementations, the activation binds `authorizer` and `authorizer.requestResource` from
//! the request, and checks reach the host's [`Authorizer`] with the attributes the apiserver
//! passes (the cases of kubernetes/apiserver `pkg/admission/plugin/cel/condition_test.go`).

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use std::sync::{Arc, Mutex};

use matchcond_runtime::activation::{SLOT_AUTHORIZER, SLOT_REQUEST_RESOURCE};
use matchcond_runtime::authz::{
    Attributes, Authorizer, AuthzDecision, AuthzResponse, FieldRequirement, LabelRequirement,
    SelectorOperator, StaticAuthorizer, StaticRule, UserInfo,
};
use matchcond_runtime::{Activation, ErrorKind, EvalError, Value};

mod common;
use common::{call, s};

/// What one check asked, owned.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Seen {
    user: String,
    groups: Vec<String>,
    verb: String,
    resource_request: bool,
    path: String,
    group: String,
    version: String,
    resource: String,
    subresource: String,
    namespace: String,
    name: String,
    field: Option<Result<Vec<FieldRequirement>, String>>,
    label: Option<Result<Vec<LabelRequirement>, String>>,
}

impl Default for Seen {
    fn default() -> Self {
        Seen {
            user: String::new(),
            groups: Vec::new(),
            verb: String::new(),
            resource_request: true,
            path: String::new(),
            group: String::new(),
            version: "*".into(),
            resource: String::new(),
            subresource: String::new(),
            namespace: String::new(),
            name: String::new(),
            field: None,
            label: None,
        }
    }
}

/// Records every check and answers with a fixed response.
struct Recorder {
    seen: Mutex<Vec<Seen>>,
    answer: AuthzResponse,
}

impl Recorder {
    fn new(answer: AuthzResponse) -> Arc<Recorder> {
        Arc::new(Recorder {
            seen: Mutex::new(Vec::new()),
            answer,
        })
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Authorizer for Recorder {
    fn authorize(&self, a: &Attributes<'_>) -> AuthzResponse {
        let mut s = Seen {
            user: a.user.name().to_owned(),
            groups: a.user.groups().map(str::to_owned).collect(),
            verb: a.verb.into(),
            resource_request: a.is_resource_request(),
            path: a.path.into(),
            version: String::new(),
            ..Seen::default()
        };
        if let Some(r) = &a.resource {
            s.group = r.api_group.into();
            s.version = r.api_version.into();
            s.resource = r.resource.into();
            s.subresource = r.subresource.into();
            s.namespace = r.namespace.into();
            s.name = r.name.into();
            s.field = r
                .field_selector
                .as_ref()
                .map(|x| x.parsed.clone().map_err(|e| e.to_string()));
            s.label = r
                .label_selector
                .as_ref()
                .map(|x| x.parsed.clone().map_err(|e| e.to_string()));
        }
        self.seen.lock().unwrap().push(s);
        self.answer.clone()
    }
}

/// Applies a chain of member calls `(overload id, string arguments)` to a receiver.
fn chain(mut v: Value<'static>, calls: &[(&str, &[&str])]) -> Result<Value<'static>, EvalError> {
    for (id, args) in calls {
        let mut all = vec![v];
        all.extend(args.iter().map(|a| s(a)));
        v = call(id, &all)?;
    }
    Ok(v)
}

fn allowed(decision: Value<'static>) -> bool {
    match call("decision_allowed", &[decision]) {
        Ok(Value::Bool(b)) => b,
        other => panic!("allowed: {other:?}"),
    }
}

/// An AdmissionRequest for `endpoints` (with an optional subresource) in `default`.
fn endpoints_request(subresource: Option<&str>) -> serde_json::Value {
    let mut r = serde_json::json!({
        "uid": "1",
        "kind": {"group": "", "version": "v1", "kind": "Endpoints"},
        "resource": {"group": "", "version": "v1", "resource": "endpoints"},
        "name": "endpoints1",
        "namespace": "default",
        "operation": "CREATE",
        "userInfo": {"username": "alice", "uid": "u-1", "groups": ["devs", "system:authenticated"],
                     "extra": {"scopes": ["a"]}},
        "object": {"metadata": {"name": "endpoints1"}}
    });
    if let Some(sub) = subresource {
        r["subResource"] = sub.into();
        r["operation"] = "UPDATE".into();
    }
    r
}

#[test]
fn request_resource_check() {
    let rec = Recorder::new(AuthzResponse::allow());
    let req = endpoints_request(None);
    let act = Activation::from_request(&req).with_authorizer(rec.clone());
    let rr = act.get(SLOT_REQUEST_RESOURCE).unwrap().clone().into_owned();
    assert_eq!(rr.type_name(), "kubernetes.authorization.ResourceCheck");
    let d = chain(rr, &[("resourcecheck_check", &["custom-verb"])]).unwrap();
    assert!(allowed(d));
    assert_eq!(
        rec.seen(),
        vec![Seen {
            user: "alice".into(),
            groups: vec!["devs".into(), "system:authenticated".into()],
            verb: "custom-verb".into(),
            resource: "endpoints".into(),
            namespace: "default".into(),
            name: "endpoints1".into(),
            ..Seen::default()
        }]
    );
}

#[test]
fn request_resource_with_subresource() {
    let rec = Recorder::new(AuthzResponse::allow());
    let req = endpoints_request(Some("status"));
    let mut act = Activation::from_request(&req);
    act.bind_authorizer(rec.clone());
    let rr = act.get(SLOT_REQUEST_RESOURCE).unwrap().clone().into_owned();
    chain(rr, &[("resourcecheck_check", &["custom-verb"])]).unwrap();
    let seen = rec.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].subresource, "status");
    assert_eq!(seen[0].name, "endpoints1");
}

#[test]
fn empty_activation_has_an_empty_principal() {
    let rec = Recorder::new(AuthzResponse::deny());
    let act = Activation::empty().with_authorizer(rec.clone());
    let a = act.get(SLOT_AUTHORIZER).unwrap().clone().into_owned();
    let d = chain(
        a,
        &[
            ("authorizer_path", &["/healthz"]),
            ("pathcheck_check", &["get"]),
        ],
    )
    .unwrap();
    assert!(!allowed(d));
    let rr = act.get(SLOT_REQUEST_RESOURCE).unwrap().clone().into_owned();
    chain(rr, &[("resourcecheck_check", &["get"])]).unwrap();
    assert_eq!(
        rec.seen(),
        vec![
            Seen {
                verb: "get".into(),
                resource_request: false,
                path: "/healthz".into(),
                version: String::new(),
                ..Seen::default()
            },
            // The preset check is not validated: an empty resource is passed as is.
            Seen {
                verb: "get".into(),
                ..Seen::default()
            },
        ]
    );
}

#[test]
fn all_fields_and_selectors() {
    let rec = Recorder::new(AuthzResponse::allow());
    let req = endpoints_request(None);
    let act = Activation::from_request(&req).with_authorizer(rec.clone());
    let a = act.get(SLOT_AUTHORIZER).unwrap().clone().into_owned();
    let d = chain(
        a.clone(),
        &[
            ("authorizer_group", &["apps"]),
            ("groupcheck_resource", &["deployments"]),
            ("authorizer_fieldselector", &["foo=bar"]),
            ("authorizer_labelselector", &["apple=banana"]),
            ("resourcecheck_subresource", &["status"]),
            ("resourcecheck_namespace", &["test"]),
            ("resourcecheck_name", &["backend"]),
            ("resourcecheck_check", &["create"]),
        ],
    )
    .unwrap();
    assert!(allowed(d));
    chain(
        a,
        &[
            ("authorizer_group", &["apps"]),
            ("groupcheck_resource", &["deployments"]),
            ("authorizer_fieldselector", &["foo badoperator bar"]),
            ("authorizer_labelselector", &["apple badoperator banana"]),
            ("resourcecheck_check", &["create"]),
        ],
    )
    .unwrap();
    let seen = rec.seen();
    let base = Seen {
        user: "alice".into(),
        groups: vec!["devs".into(), "system:authenticated".into()],
        verb: "create".into(),
        group: "apps".into(),
        resource: "deployments".into(),
        ..Seen::default()
    };
    assert_eq!(
        seen,
        vec![
            Seen {
                subresource: "status".into(),
                namespace: "test".into(),
                name: "backend".into(),
                field: Some(Ok(vec![FieldRequirement {
                    field: "foo".into(),
                    operator: SelectorOperator::Equals,
                    value: "bar".into(),
                }])),
                label: Some(Ok(vec![LabelRequirement {
                    key: "apple".into(),
                    operator: SelectorOperator::Equals,
                    values: vec!["banana".into()],
                }])),
                ..base.clone()
            },
            Seen {
                field: Some(Err(
                    "invalid selector: 'foo badoperator bar'; can't understand 'foo badoperator bar'"
                        .into()
                )),
                label: Some(Err(
                    "unable to parse requirement: found 'badoperator', expected: in, notin, =, ==, !=, gt, lt"
                        .into()
                )),
                ..base
            },
        ]
    );
}

#[test]
fn empty_selectors_are_not_passed() {
    let rec = Recorder::new(AuthzResponse::allow());
    let req = endpoints_request(None);
    let act = Activation::from_request(&req).with_authorizer(rec.clone());
    let a = act.get(SLOT_AUTHORIZER).unwrap().clone().into_owned();
    chain(
        a,
        &[
            ("authorizer_group", &[""]),
            ("groupcheck_resource", &["pods"]),
            ("authorizer_fieldselector", &["a=b"]),
            ("authorizer_fieldselector", &[""]),
            ("authorizer_labelselector", &[""]),
            ("resourcecheck_check", &["list"]),
        ],
    )
    .unwrap();
    let seen = rec.seen();
    assert_eq!(seen[0].field, None);
    assert_eq!(seen[0].label, None);
}

#[test]
fn service_account_principal() {
    let rec = Recorder::new(AuthzResponse::allow());
    let req = endpoints_request(None);
    let act = Activation::from_request(&req).with_authorizer(rec.clone());
    let a = act.get(SLOT_AUTHORIZER).unwrap().clone().into_owned();
    let sa = call(
        "authorizer_serviceaccount",
        &[a, s("default"), s("test-serviceaccount")],
    )
    .unwrap();
    assert_eq!(sa.type_name(), "kubernetes.authorization.Authorizer");
    chain(
        sa,
        &[
            ("authorizer_group", &[""]),
            ("groupcheck_resource", &["endpoints"]),
            ("resourcecheck_namespace", &["default"]),
            ("resourcecheck_name", &["endpoints1"]),
            ("resourcecheck_check", &["custom-verb"]),
        ],
    )
    .unwrap();
    assert_eq!(
        rec.seen(),
        vec![Seen {
            user: "system:serviceaccount:default:test-serviceaccount".into(),
            groups: vec![
                "system:serviceaccounts".into(),
                "system:serviceaccounts:default".into()
            ],
            verb: "custom-verb".into(),
            resource: "endpoints".into(),
            namespace: "default".into(),
            name: "endpoints1".into(),
            ..Seen::default()
        }]
    );
}

#[test]
fn decision_accessors() {
    let cases = [
        (
            AuthzResponse::new(AuthzDecision::Deny, "fake reason"),
            false,
            "fake reason",
            false,
            "",
        ),
        (
            AuthzResponse::error("fake authz error"),
            false,
            "",
            true,
            "fake authz error",
        ),
        (
            AuthzResponse::allow().with_error("late"),
            true,
            "",
            true,
            "late",
        ),
        (AuthzResponse::no_opinion(), false, "", false, ""),
    ];
    for (answer, want_allowed, reason, errored, error) in cases {
        let act = Activation::empty().with_authorizer(Recorder::new(answer.clone()));
        let a = act.get(SLOT_AUTHORIZER).unwrap().clone().into_owned();
        let d = chain(
            a,
            &[
                ("authorizer_group", &[""]),
                ("groupcheck_resource", &["endpoints"]),
                ("resourcecheck_check", &["create"]),
            ],
        )
        .unwrap();
        assert_eq!(d.type_name(), "kubernetes.authorization.Decision");
        assert_eq!(allowed(d.clone()), want_allowed, "{answer:?}");
        assert_eq!(
            call("decision_reason", std::slice::from_ref(&d))
                .unwrap()
                .as_str(),
            Some(reason)
        );
        assert!(matches!(
            call("decision_errored", std::slice::from_ref(&d)),
            Ok(Value::Bool(b)) if b == errored
        ));
        assert_eq!(call("decision_error", &[d]).unwrap().as_str(), Some(error));
    }
}

#[test]
fn builder_errors_and_wrong_receivers() {
    let act = Activation::empty().with_authorizer(Recorder::new(AuthzResponse::deny()));
    let a = act.get(SLOT_AUTHORIZER).unwrap().clone().into_owned();
    let err = |r: Result<Value<'static>, EvalError>| r.unwrap_err();
    assert_eq!(
        err(call("authorizer_path", &[a.clone(), s("")])).message(),
        "path must not be empty"
    );
    assert_eq!(
        err(chain(
            a.clone(),
            &[
                ("authorizer_group", &["apps"]),
                ("groupcheck_resource", &[" "])
            ]
        ))
        .message(),
        "resource must not be empty"
    );
    assert_eq!(
        err(call(
            "authorizer_serviceaccount",
            &[a.clone(), s("not@a#valid!namespace"), s("validname")]
        ))
        .message(),
        "Invalid service account namespace"
    );
    assert_eq!(
        err(call(
            "authorizer_serviceaccount",
            &[a.clone(), s("valid.example.com"), s("invalid@*name")]
        ))
        .message(),
        "Invalid service account name"
    );
    let e = err(call("resourcecheck_name", &[a, s("x")]));
    assert_eq!(e.kind(), ErrorKind::NoSuchOverload);
}

#[test]
fn static_authorizer_behind_the_trait() {
    let table: Arc<dyn Authorizer> = Arc::new(
        StaticAuthorizer::new(AuthzDecision::Deny)
            .with_default_reason("no rule")
            .rule(
                StaticRule::allow()
                    .user("alice")
                    .verb("create")
                    .resource("pods")
                    .field_selector("spec.nodeName=n1"),
            )
            .rule(
                StaticRule::allow()
                    .user("system:serviceaccount:ns:sa")
                    .path("*"),
            ),
    );
    let req = endpoints_request(None);
    let act = Activation::from_request(&req).with_authorizer(table);
    let a = act.get(SLOT_AUTHORIZER).unwrap().clone().into_owned();
    let pods = [
        ("authorizer_group", &[""] as &[&str]),
        ("groupcheck_resource", &["pods"]),
    ];
    let d = chain(a.clone(), &pods).unwrap();
    let d = chain(d, &[("resourcecheck_check", &["create"])]).unwrap();
    assert!(!allowed(d.clone()));
    assert_eq!(
        call("decision_reason", &[d]).unwrap().as_str(),
        Some("no rule")
    );
    let d = chain(a.clone(), &pods).unwrap();
    let d = chain(
        d,
        &[
            ("authorizer_fieldselector", &["spec.nodeName=n1"]),
            ("resourcecheck_check", &["create"]),
        ],
    )
    .unwrap();
    assert!(allowed(d));
    let sa = call("authorizer_serviceaccount", &[a, s("ns"), s("sa")]).unwrap();
    let d = chain(
        sa,
        &[
            ("authorizer_path", &["/metrics"]),
            ("pathcheck_check", &["get"]),
        ],
    )
    .unwrap();
    assert!(allowed(d));
}

#[test]
fn closures_are_authorizers() {
    let only_reads = |a: &Attributes<'_>| {
        if a.is_read_only() {
            AuthzResponse::allow()
        } else {
            AuthzResponse::deny().with_reason("read only")
        }
    };
    let act = Activation::empty().with_authorizer(Arc::new(only_reads));
    let a = act.get(SLOT_AUTHORIZER).unwrap().clone().into_owned();
    let p = call("authorizer_path", &[a, s("/x")]).unwrap();
    assert!(allowed(
        call("pathcheck_check", &[p.clone(), s("watch")]).unwrap()
    ));
    assert!(!allowed(call("pathcheck_check", &[p, s("GET")]).unwrap()));
}

#[test]
fn principal_for_a_host_given_user() {
    let rec = Recorder::new(AuthzResponse::allow());
    let mut act = Activation::empty();
    act.bind_authorizer_for(
        UserInfo::new("carol").with_groups(["ops"]),
        rec.clone(),
        &matchcond_runtime::authz::RequestResource {
            group: "batch",
            resource: "jobs",
            ..Default::default()
        },
    );
    let rr = act.get(SLOT_REQUEST_RESOURCE).unwrap().clone().into_owned();
    chain(rr, &[("resourcecheck_check", &["delete"])]).unwrap();
    assert_eq!(
        rec.seen(),
        vec![Seen {
            user: "carol".into(),
            groups: vec!["ops".into()],
            verb: "delete".into(),
            group: "batch".into(),
            resource: "jobs".into(),
            ..Seen::default()
        }]
    );
}
