//! The authorizer that matchConditions call through `authorizer` and
//! `authorizer.requestResource` (Kubernetes' authorization library).
//!
//! A host implements [`Authorizer`] (a closure `Fn(&Attributes) -> AuthzResponse` is one),
//! or uses the table-driven [`StaticAuthorizer`], and binds it with
//! [`Activation::with_authorizer`](crate::Activation::with_authorizer) or
//! [`Dispatcher::with_authorizer`](crate::dispatch::Dispatcher::with_authorizer). Each
//! check costs 350,000 from Kubernetes 1.32 (at most two fit in one expression), as in the
//! apiserver.
//!
//! ```
//! use std::sync::Arc;
//! use matchcond::authz::{AuthzDecision, StaticAuthorizer, StaticRule};
//! use matchcond::{Activation, Decision, Environment, FailurePolicy, MatchCondition, MatchConditions};
//!
//! let authz = StaticAuthorizer::new(AuthzDecision::Deny)
//!     .with_default_reason("no rule")
//!     .rule(StaticRule::allow().user("alice").verb("create").group("").resource("pods"));
//! let conditions = MatchConditions::compile(&Environment::latest(), &[MatchCondition::new(
//!     "may-create-pods",
//!     "authorizer.group('').resource('pods').check('create').allowed()",
//! )]).unwrap();
//! let request = serde_json::json!({"operation": "CREATE", "userInfo": {"username": "alice"}});
//! let activation = Activation::from_request(&request).with_authorizer(Arc::new(authz));
//! assert_eq!(conditions.decide(&activation, FailurePolicy::Fail), Decision::Call);
//! ```
//!
//! The rule table's file form ([`AuthorizerTable`], feature `dispatch`) is what the command
//! line's `--authorizer` file holds.

#[cfg(feature = "dispatch")]
pub use matchcond_dispatch::authz_table::{AuthorizerTable, TableError, TableRule};
pub use matchcond_runtime::authz::{
    Attributes, Authorizer, AuthzDecision, AuthzResponse, FieldRequirement, LabelRequirement,
    ResourceAttributes, RuleOutcome, Selector, SelectorError, SelectorOperator, StaticAuthorizer,
    StaticRule, User, UserInfo,
};
