//! A decision allocates nothing on the heap for request-only and object-field conditions:
//! the request is viewed in place, constants are borrowed from the program, and no error
//! occurs. (`allocation-counter` counts the allocations.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use matchcond::{Activation, Decision, Environment, FailurePolicy, MatchConditions};

mod common;

use common::{compile, example_request as review, set_conditions, workload};

/// Deciding `set` 100 times on `request` gives `want` and allocates nothing.
fn assert_no_allocation(
    name: &str,
    set: &MatchConditions,
    request: &serde_json::Value,
    want: &Decision<'_>,
) {
    let info = allocation_counter::measure(|| {
        for _ in 0..100 {
            let d = set.decide(&Activation::from_request(request), FailurePolicy::Fail);
            assert_eq!(&d, want);
        }
    });
    assert_eq!(
        info.count_total, 0,
        "{name}: {} allocations in 100 decisions ({want:?})",
        info.count_total
    );
}

#[test]
fn typical_decisions_do_not_allocate() {
    let typical3 = compile(&[
        ("exclude-kube-system", "request.namespace != 'kube-system'"),
        ("not-dry-run", "request.dryRun != true"),
        (
            "label-opt-in-app-web",
            "has(object.metadata.labels) && 'app' in object.metadata.labels && object.metadata.labels['app'] == 'web'",
        ),
    ]);
    let request_only = compile(&[
        ("leases", "!(request.resource.group == 'coordination.k8s.io' && request.resource.resource == 'leases')"),
        ("kubelet", "!('system:nodes' in request.userInfo.groups)"),
        ("ops", "request.operation in ['CREATE', 'UPDATE']"),
        ("tenant", "request.namespace != 'tenant-01'"),
    ]);
    for (name, set, want) in [
        ("pod-create", &typical3, Decision::Call),
        ("deployment-update", &typical3, Decision::Call),
        ("pod-create", &request_only, Decision::Call),
        ("deployment-update", &request_only, Decision::Call),
    ] {
        let req = review(name);
        // Warm up (thread-local caches, lazily built tables).
        assert_eq!(
            set.decide(&Activation::from_request(&req), FailurePolicy::Fail),
            want
        );
        assert_no_allocation(name, set, &req, &want);
    }
}

#[test]
fn the_counter_sees_allocations_of_an_error_message() {
    let set = compile(&[("labels", "object.metadata.labels['app'] == 'web'")]);
    // On a DELETE `object` is null: the condition errs, and the error message is built.
    let req = review("configmap-delete");
    let info = allocation_counter::measure(|| {
        let d = set.decide(&Activation::from_request(&req), FailurePolicy::Fail);
        assert!(matches!(d, Decision::Reject { .. }));
    });
    assert!(info.count_total > 0);
}

#[test]
fn max64_decisions_do_not_allocate() {
    let env = Environment::latest();
    let conditions = set_conditions(&workload(), "max64");
    assert_eq!(conditions.len(), 64);
    let set = MatchConditions::compile(&env, &conditions).unwrap();
    for name in ["pod-create", "deployment-update"] {
        let req = review(name);
        let want = set.decide(&Activation::from_request(&req), FailurePolicy::Fail);
        assert_no_allocation(name, &set, &req, &want);
    }
}
