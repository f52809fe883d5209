//! The Kubernetes authz selectors library (kubernetes/apiserver `pkg/cel/library/authz.go`,
//! `kubernetes.authzSelectors`, Kubernetes 1.31+): `fieldSelector` and `labelSelector` on a
//! resource check, parsed when the check is made (see [`crate::authz`]). The Kubernetes
//! estimator prices them by the selector's length.

use matchcond_front::Type;

use super::authz::{authz_type, with_string, wrap};
use super::definition::{function, member, Definition, FunctionEntry, Implementation, Library};
use crate::authz::{ResourceCheck, RESOURCE_CHECK_TYPE};
use crate::cost::Estimate;

/// The library, from Kubernetes 1.31.
pub(crate) fn library() -> Definition {
    Definition::new(Library::K8sAuthzSelectors).functions([
        selector("fieldSelector", "authorizer_fieldselector", |a| {
            with_string("fieldSelector", a, |r: &ResourceCheck, s| {
                Ok(wrap(r.with_field_selector(s)))
            })
        }),
        selector("labelSelector", "authorizer_labelselector", |a| {
            with_string("labelSelector", a, |r: &ResourceCheck, s| {
                Ok(wrap(r.with_label_selector(s)))
            })
        }),
    ])
}

/// `<ResourceCheck>.name(string) -> ResourceCheck`, one overload `id`, priced by the
/// selector's length.
fn selector(name: &'static str, id: &'static str, implementation: Implementation) -> FunctionEntry {
    let check = || authz_type(RESOURCE_CHECK_TYPE);
    function(
        name,
        [member(id, [check(), Type::String], check(), implementation)],
    )
    .estimate_by(Estimate::Selector)
}
