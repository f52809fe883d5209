//! The matcher of matchcond: a webhook's matchConditions, compiled once and decided
//! per request exactly as the apiserver's matcher decides them.
//!
//! Every condition is evaluated, in order, under one shared cost budget (2,500,000); then:
//! any `false` skips the webhook (the first false condition by order is reported, even if
//! others erred); otherwise any error goes to the failure policy (`Fail`, the default,
//! rejects the request with the aggregated error; `Ignore` skips the webhook); otherwise the
//! webhook is called. Running out of the shared budget is an error of the whole evaluation
//! and goes to the failure policy even when a condition was false.
//!
//! ```
//! use matchcond_compiler::{Environment, KubeVersion};
//! use matchcond_matcher::{MatchConditions, MatchCondition, FailurePolicy, Decision};
//! use matchcond_runtime::Activation;
//!
//! let env = Environment::kubernetes(KubeVersion::V1_34);
//! let conditions = MatchConditions::compile(&env, &[
//!     MatchCondition::new("not-kube-system", "request.namespace != 'kube-system'"),
//!     MatchCondition::new("create-only", "oldObject == null"),
//! ]).unwrap();
//! let request = serde_json::json!({
//!     "operation": "UPDATE", "namespace": "shop", "dryRun": false,
//!     "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
//!     "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
//!     "userInfo": {"username": "alice"},
//!     "object": {"metadata": {"name": "web"}}, "oldObject": {"metadata": {"name": "web"}}
//! });
//! let decision = conditions.decide(&Activation::from_request(&request), FailurePolicy::Fail);
//! assert_eq!(decision, Decision::skip_condition("create-only"));
//! ```
//!
//! # Should I be using this crate?
//!
//! Probably not. This is an internal crate of matchcond: its API follows what the other
//! crates need and changes without notice. Use the `matchcond` crate (the facade at the root
//! of the workspace), whose curated API is the one kept stable; it does not re-export this
//! crate.

mod policy;
mod raw;
#[cfg(feature = "k8s-openapi")]
mod webhook;

pub use policy::ParseFailurePolicyError;
#[cfg(feature = "k8s-openapi")]
pub use webhook::{WebhookConditions, WebhookError};

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, OnceLock};

use matchcond_compiler::{CompileError, Environment, Program, PER_CALL_COST_LIMIT};
use matchcond_runtime::activation::Lookups;
use matchcond_runtime::fast::FastEval;
use matchcond_runtime::{Activation, Evaluation, Value};

/// The cost budget shared by all conditions of one webhook for one request
/// (`RuntimeCELCostBudgetMatchConditions`).
pub const MATCH_CONDITIONS_BUDGET: u64 = 2_500_000;

/// The most matchConditions a webhook may have (the matcher refuses more, the configuration
/// validator reports more).
pub const MAX_MATCH_CONDITIONS: usize = 64;

/// The message of the error raised when the shared budget runs out.
pub const OUT_OF_BUDGET: &str =
    "validation failed due to running out of cost budget, no further validation rules will be run";

/// One `matchConditions` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchCondition {
    /// The condition's name.
    pub name: String,
    /// The CEL expression.
    pub expression: String,
}

impl MatchCondition {
    /// A condition.
    pub fn new(name: impl Into<String>, expression: impl Into<String>) -> Self {
        MatchCondition {
            name: name.into(),
            expression: expression.into(),
        }
    }
}

/// The webhook's `failurePolicy`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FailurePolicy {
    /// Errors reject the request (the default).
    #[default]
    Fail,
    /// Errors skip the webhook.
    Ignore,
}

/// Whether the webhook must be called: the one verdict of every road — a webhook's
/// conditions ([`MatchConditions::decide`], `WebhookConditions::decide`) and the
/// dispatcher's decision for one webhook of a configuration.
///
/// `Decision` is exhaustive on purpose: these three outcomes are the apiserver's, and a
/// caller that acts on a decision must handle each; should another ever appear, code that
/// matches on it ought to stop compiling rather than treat it as one of these. Why a
/// webhook is skipped is a [`Skip`], which will grow.
///
/// A decision borrows the name of the condition it reports from the [`MatchConditions`]
/// that made it, so that deciding writes nothing shared: threads deciding with one compiled
/// set do not contend on a reference count. [`Decision::into_owned`] detaches it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision<'a> {
    /// Every condition is true: call the webhook.
    Call,
    /// Do not call the webhook, for the reason given.
    Skip(Skip<'a>),
    /// The request must be rejected (`failurePolicy: Fail` and errors).
    Reject {
        /// The apiserver's error text (one error, or `[e1, e2]` for several), written when
        /// first read.
        message: ErrorText<'a>,
    },
}

/// An error text in the apiserver's words, written when it is first read (`Deref` to
/// `str`, `Display`): a decision whose text nobody reads costs no formatting. It compares
/// equal to the same text however it was made.
#[derive(Clone)]
pub struct ErrorText<'a> {
    /// The failures of a text not written yet (empty once written or given).
    failures: Vec<Failure<'a>>,
    text: OnceLock<String>,
}

impl<'a> ErrorText<'a> {
    fn of_failures(failures: Vec<Failure<'a>>) -> Self {
        ErrorText {
            failures,
            text: OnceLock::new(),
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        self.text.get_or_init(|| aggregate_failures(&self.failures))
    }

    /// The same text, owned.
    pub fn into_owned(self) -> ErrorText<'static> {
        ErrorText::from(self.into_string())
    }

    /// The text as a `String`.
    pub fn into_string(mut self) -> String {
        self.as_str();
        self.text.take().unwrap_or_default()
    }
}

impl From<String> for ErrorText<'_> {
    fn from(text: String) -> Self {
        ErrorText {
            failures: Vec::new(),
            text: OnceLock::from(text),
        }
    }
}

impl From<&str> for ErrorText<'_> {
    fn from(text: &str) -> Self {
        ErrorText::from(text.to_owned())
    }
}

impl std::ops::Deref for ErrorText<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for ErrorText<'_> {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for ErrorText<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for ErrorText<'_> {}

impl PartialEq<str> for ErrorText<'_> {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ErrorText<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for ErrorText<'_> {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl fmt::Debug for ErrorText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for ErrorText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a webhook is not called.
///
/// The first two come from the matchConditions; the others from the checks the
/// dispatcher makes before them (or, for a dry run, when calling the webhook).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Skip<'a> {
    /// A condition evaluated to false: the first one by order (even if others erred).
    Condition(Cow<'a, str>),
    /// Conditions erred, or the shared budget ran out, and `failurePolicy` is `Ignore`:
    /// the error the apiserver swallows (and counts).
    Ignored(IgnoredError<'a>),
    /// The request is for an admission configuration kind, which API-configured webhooks
    /// never see.
    ExemptKind,
    /// The namespaceSelector does not match the namespace's labels.
    NamespaceSelector,
    /// The objectSelector matches neither the object nor the old object.
    ObjectSelector,
    /// No rule matches (exactly, nor through an equivalent resource under
    /// `matchPolicy: Equivalent`).
    Rules,
    /// A dry run reached a webhook without `sideEffects`: calling it fails, and
    /// `failurePolicy: Ignore` lets the request through without it.
    SideEffectsUnsetIgnored,
}

/// The error of conditions that `failurePolicy: Ignore` swallowed: the first condition
/// that erred (or ran out of the shared budget) and the apiserver's text — what
/// `failurePolicy: Fail` would have rejected the request with.
///
/// The text is written when it is first read ([`IgnoredError::message`], `Display`): a
/// decision that ignores it costs no formatting.
#[derive(Clone, Debug)]
pub struct IgnoredError<'a> {
    condition: Cow<'a, str>,
    text: ErrorText<'a>,
    out_of_budget: bool,
}

impl<'a> IgnoredError<'a> {
    /// The name of the first condition (by order) that erred, or that ran out of the
    /// shared budget.
    pub fn condition(&self) -> &str {
        &self.condition
    }

    /// The apiserver's text: one error, or `[e1, e2]` for several (duplicates removed).
    pub fn message(&self) -> &str {
        self.text.as_str()
    }

    /// True when the shared budget ran out (an error of the whole evaluation, which the
    /// apiserver does not count as a condition's evaluation error).
    pub fn out_of_budget(&self) -> bool {
        self.out_of_budget
    }

    /// The same error, owning the condition's name and its text.
    pub fn into_owned(self) -> IgnoredError<'static> {
        IgnoredError {
            condition: Cow::Owned(self.condition.into_owned()),
            text: self.text.into_owned(),
            out_of_budget: self.out_of_budget,
        }
    }
}

/// Equal when they name the same condition with the same text.
impl PartialEq for IgnoredError<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.condition == other.condition
            && self.out_of_budget == other.out_of_budget
            && self.message() == other.message()
    }
}

impl Eq for IgnoredError<'_> {}

impl fmt::Display for IgnoredError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for IgnoredError<'_> {}

impl Skip<'_> {
    /// The same reason, owning what it borrows.
    pub fn into_owned(self) -> Skip<'static> {
        match self {
            Skip::Condition(c) => Skip::Condition(Cow::Owned(c.into_owned())),
            Skip::Ignored(e) => Skip::Ignored(e.into_owned()),
            Skip::ExemptKind => Skip::ExemptKind,
            Skip::NamespaceSelector => Skip::NamespaceSelector,
            Skip::ObjectSelector => Skip::ObjectSelector,
            Skip::Rules => Skip::Rules,
            Skip::SideEffectsUnsetIgnored => Skip::SideEffectsUnsetIgnored,
        }
    }

    /// The reason's key in JSON outputs (`matchCondition`, `namespaceSelector`, …; both
    /// reasons of the matchConditions are `matchCondition`).
    pub fn key(&self) -> &'static str {
        match self {
            Skip::Condition(_) | Skip::Ignored(_) => "matchCondition",
            Skip::ExemptKind => "exemptKind",
            Skip::NamespaceSelector => "namespaceSelector",
            Skip::ObjectSelector => "objectSelector",
            Skip::Rules => "rules",
            Skip::SideEffectsUnsetIgnored => "sideEffectsUnsetIgnored",
        }
    }

    /// The false condition's name, for [`Skip::Condition`].
    pub fn condition(&self) -> Option<&str> {
        match self {
            Skip::Condition(c) => Some(c),
            _ => None,
        }
    }

    /// The swallowed error, for [`Skip::Ignored`].
    pub fn ignored_error(&self) -> Option<&IgnoredError<'_>> {
        match self {
            Skip::Ignored(e) => Some(e),
            _ => None,
        }
    }
}

/// In words: `matchCondition "name" is false`, `matchConditions failed and failurePolicy
/// is Ignore: <error>`, `namespaceSelector does not match`, …
impl fmt::Display for Skip<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skip::Condition(c) => write!(f, "matchCondition {:?} is false", c.as_ref()),
            Skip::Ignored(e) => write!(
                f,
                "matchConditions failed and failurePolicy is Ignore: {}",
                e.message()
            ),
            Skip::ExemptKind => f.write_str("admission configuration kinds are exempt"),
            Skip::NamespaceSelector => f.write_str("namespaceSelector does not match"),
            Skip::ObjectSelector => f.write_str("objectSelector does not match"),
            Skip::Rules => f.write_str("no rule matches"),
            Skip::SideEffectsUnsetIgnored => {
                f.write_str("dry run and sideEffects unset, failurePolicy is Ignore")
            }
        }
    }
}

impl<'a> Decision<'a> {
    /// The same decision, owning the condition's name.
    pub fn into_owned(self) -> Decision<'static> {
        match self {
            Decision::Call => Decision::Call,
            Decision::Skip(s) => Decision::Skip(s.into_owned()),
            Decision::Reject { message } => Decision::Reject {
                message: message.into_owned(),
            },
        }
    }

    /// `Skip(Skip::Condition(name))`: the condition `name` is false.
    pub fn skip_condition(name: impl Into<Cow<'a, str>>) -> Self {
        Decision::Skip(Skip::Condition(name.into()))
    }

    /// The reason of a skip.
    pub fn skip(&self) -> Option<&Skip<'a>> {
        match self {
            Decision::Skip(s) => Some(s),
            _ => None,
        }
    }
}

/// What one condition evaluated to.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ConditionOutcome {
    /// The boolean result.
    Value(bool),
    /// An error, worded as the apiserver words it
    /// (`expression '…' resulted in error: …`, `compilation error: …`).
    Error(String),
    /// Not evaluated because the shared budget ran out before it.
    NotEvaluated,
}

/// The result of one condition, for explaining a decision (borrowing the condition's
/// name and expression from the [`MatchConditions`]; [`ConditionResult::into_owned`]
/// detaches it).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ConditionResult<'a> {
    /// The condition's name.
    pub name: Cow<'a, str>,
    /// The expression.
    pub expression: Cow<'a, str>,
    /// What it evaluated to.
    pub outcome: ConditionOutcome,
    /// The runtime cost it was charged.
    pub cost: u64,
}

/// A decision with the result of every condition (borrowing names and expressions from
/// the [`MatchConditions`]; [`Report::into_owned`] detaches it).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Report<'a> {
    /// The decision.
    pub decision: Decision<'a>,
    /// Per condition, in order.
    pub conditions: Vec<ConditionResult<'a>>,
    /// The whole-evaluation error (the shared budget ran out), if any.
    pub evaluation_error: Option<String>,
    /// Total cost charged.
    pub total_cost: u64,
}

impl ConditionResult<'_> {
    /// The same result, owning the name and expression.
    pub fn into_owned(self) -> ConditionResult<'static> {
        ConditionResult {
            name: Cow::Owned(self.name.into_owned()),
            expression: Cow::Owned(self.expression.into_owned()),
            outcome: self.outcome,
            cost: self.cost,
        }
    }
}

impl Report<'_> {
    /// The same report, owning every name and expression.
    pub fn into_owned(self) -> Report<'static> {
        Report {
            decision: self.decision.into_owned(),
            conditions: self
                .conditions
                .into_iter()
                .map(ConditionResult::into_owned)
                .collect(),
            evaluation_error: self.evaluation_error,
            total_cost: self.total_cost,
        }
    }
}

/// Why a webhook's conditions cannot be compiled: too many of them, or (with the strict
/// [`MatchConditions::compile`]) conditions that do not compile. Validating a whole
/// configuration (names, empty expressions, the wording of each Kubernetes version) is the
/// configuration validator's job (`matchcond::dispatch::Validator`).
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConditionsError {
    /// More than [`MAX_MATCH_CONDITIONS`] conditions (the count given).
    #[error("matchConditions: Too many: {0}: must have at most {max} items", max = MAX_MATCH_CONDITIONS)]
    TooMany(usize),
    /// Conditions that do not compile, each with its name, index and the apiserver's message
    /// (in order; never empty). `Display` writes one line per condition.
    #[error("{}", display_conditions(.0))]
    Compile(Vec<ConditionError>),
}

impl ConditionsError {
    /// The conditions that do not compile (empty for [`ConditionsError::TooMany`]).
    pub fn conditions(&self) -> &[ConditionError] {
        match self {
            ConditionsError::Compile(c) => c,
            ConditionsError::TooMany(_) => &[],
        }
    }
}

fn display_conditions(errors: &[ConditionError]) -> String {
    let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
    lines.join("\n")
}

/// A condition that does not compile: `matchConditions[1] "name": compilation failed: …`
/// (the index, the name, then the apiserver's message, carets included).
#[derive(Clone, Debug, thiserror::Error)]
#[error("matchConditions[{index}] {name:?}: {error}")]
pub struct ConditionError {
    index: usize,
    name: String,
    error: CompileError,
}

impl ConditionError {
    /// The condition's position in the list given.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The condition's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Why it does not compile; its `Display` is the apiserver's message.
    pub fn error(&self) -> &CompileError {
        &self.error
    }
}

struct Compiled {
    name: String,
    expression: String,
    program: Result<Arc<Program>, CompileError>,
}

/// A webhook's compiled matchConditions.
pub struct MatchConditions {
    conditions: Vec<Compiled>,
    per_call_limit: u64,
    budget: u64,
    /// What the conditions read of `object` and of `oldObject`.
    reads: [raw::Need; 2],
    /// The members of the request other than the objects that the conditions (or the
    /// authorizer they ask) read.
    request_reads: raw::Need,
    /// Some condition reads `authorizer` or `authorizer.requestResource`.
    uses_authorizer: bool,
}

/// An AdmissionReview given as bytes could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReviewError {
    /// The bytes are not a JSON AdmissionReview.
    #[error("invalid AdmissionReview: {0}")]
    Json(#[from] serde_json::Error),
    /// The review has no `request`.
    #[error("invalid AdmissionReview: no request")]
    NoRequest,
}

impl fmt::Debug for MatchConditions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.conditions.iter().map(|c| &c.name))
            .finish()
    }
}

/// Joins error messages as apimachinery's aggregate error does: one message alone, several
/// as `[m1, m2]` with duplicates removed (one message left: no brackets).
pub fn aggregate_messages(messages: &[String]) -> String {
    let mut uniq: Vec<&str> = Vec::new();
    for m in messages {
        if !uniq.contains(&m.as_str()) {
            uniq.push(m);
        }
    }
    match uniq.as_slice() {
        [] => String::new(),
        [one] => (*one).to_string(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// Why a condition failed, kept as its parts: the apiserver's text is written only when
/// someone reads it (a rejection's message, an ignored error, an explanation), not for a
/// decision that drops it (a false condition that skips anyway).
#[derive(Clone, Debug)]
enum Failure<'a> {
    /// The condition did not compile: `compilation error: <error>`.
    Compile(&'a CompileError),
    /// The evaluation failed: `expression '<expression>' resulted in error: <error>`.
    Eval(&'a str, matchcond_runtime::EvalError),
    /// The value is not a bool (possible only for conditions compiled without the type
    /// checker): `expression '<expression>' resulted in error: expected a bool, got <type>`.
    NotBool(&'a str, &'static str),
}

impl fmt::Display for Failure<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const BEFORE: &str = "expression '";
        const AFTER: &str = "' resulted in error: ";
        match self {
            Failure::Compile(e) => write!(f, "compilation error: {e}"),
            Failure::Eval(expression, e) => {
                f.write_str(BEFORE)?;
                f.write_str(expression)?;
                f.write_str(AFTER)?;
                f.write_str(e.message())
            }
            Failure::NotBool(expression, type_name) => {
                f.write_str(BEFORE)?;
                f.write_str(expression)?;
                f.write_str(AFTER)?;
                f.write_str("expected a bool, got ")?;
                f.write_str(type_name)
            }
        }
    }
}

impl Failure<'_> {
    /// The text, written once into a string of the right size where the size is known
    /// (the common case: an evaluation error), without the formatting machinery.
    fn text(&self) -> String {
        match self {
            Failure::Eval(expression, e) => {
                const BEFORE: &str = "expression '";
                const AFTER: &str = "' resulted in error: ";
                let mut m = String::with_capacity(
                    BEFORE.len() + expression.len() + AFTER.len() + e.message().len(),
                );
                m.push_str(BEFORE);
                m.push_str(expression);
                m.push_str(AFTER);
                m.push_str(e.message());
                m
            }
            other => other.to_string(),
        }
    }
}

/// The apiserver's aggregated message of failures ([`aggregate_messages`] of their texts),
/// written only for a decision that reports it.
fn aggregate_failures(failures: &[Failure<'_>]) -> String {
    match failures {
        [] => String::new(),
        [one] => one.text(),
        many => {
            let texts: Vec<String> = many.iter().map(Failure::text).collect();
            aggregate_messages(&texts)
        }
    }
}

/// The failures of one evaluation, and the first condition that failed.
#[derive(Default)]
struct Errors<'a> {
    failures: Vec<Failure<'a>>,
    first: Option<usize>,
    /// The condition that ran out of the shared budget.
    out_of_budget: Option<usize>,
}

impl<'a> Errors<'a> {
    fn push(&mut self, i: usize, failure: Failure<'a>) {
        self.first.get_or_insert(i);
        self.failures.push(failure);
    }
}

/// What a decision's conditions gave (see [`MatchConditions::decide_counting`]).
struct Outcomes<'a> {
    /// False when the shared budget ran out.
    completed: bool,
    /// The first condition that was false.
    first_false: Option<usize>,
    errors: Errors<'a>,
    /// The errors the apiserver counts.
    counted: usize,
}

/// One condition's outcome in [`MatchConditions::run`].
enum Step<'a> {
    /// A boolean, with the cost.
    Bool(bool, u64),
    /// An error or a value that is not a boolean, with the cost.
    Failed(Failure<'a>, u64),
    /// The shared budget ran out (the condition's cost).
    OutOfBudget(u64),
}

impl MatchConditions {
    /// Compiles a webhook's conditions in an environment (through its cache), strictly:
    /// when a condition does not compile (a typo such as `request.userinfo.username`), the
    /// error lists every condition that does not, with its name, index and the apiserver's
    /// message. Fails too when there are more than [`MAX_MATCH_CONDITIONS`] conditions.
    ///
    /// The apiserver itself is lenient with a configuration it stored: see
    /// [`MatchConditions::compile_lenient`].
    ///
    /// ```
    /// use matchcond::{Environment, MatchCondition, MatchConditions};
    /// let env = Environment::latest();
    /// let err = MatchConditions::compile(&env, &[
    ///     MatchCondition::new("ok", "true"),
    ///     MatchCondition::new("typo", "request.userinfo.username == 'alice'"),
    /// ]).unwrap_err();
    /// let bad = &err.conditions()[0];
    /// assert_eq!((bad.index(), bad.name()), (1, "typo"));
    /// assert!(err.to_string().starts_with(
    ///     "matchConditions[1] \"typo\": compilation failed: ERROR: <input>:1:8: undefined field 'userinfo'"));
    /// ```
    pub fn compile(
        env: &Environment,
        conditions: &[MatchCondition],
    ) -> Result<Self, ConditionsError> {
        let set = Self::compile_lenient(env, conditions)?;
        let errors: Vec<ConditionError> = set
            .conditions
            .iter()
            .enumerate()
            .filter_map(|(index, c)| {
                c.program.as_ref().err().map(|e| ConditionError {
                    index,
                    name: c.name.clone(),
                    error: e.clone(),
                })
            })
            .collect();
        if errors.is_empty() {
            Ok(set)
        } else {
            Err(ConditionsError::Compile(errors))
        }
    }

    /// Compiles a webhook's conditions as the apiserver treats a configuration it stored: a
    /// condition that does not compile is kept, and at decision time it is an error
    /// `compilation error: …` that the failure policy decides
    /// ([`MatchConditions::compile_errors`] lists them). Fails only when there are more than
    /// [`MAX_MATCH_CONDITIONS`] conditions.
    pub fn compile_lenient(
        env: &Environment,
        conditions: &[MatchCondition],
    ) -> Result<Self, ConditionsError> {
        if conditions.len() > MAX_MATCH_CONDITIONS {
            return Err(ConditionsError::TooMany(conditions.len()));
        }
        Ok(Self::compile_unbounded(env, conditions))
    }

    /// Like [`MatchConditions::compile_lenient`] without the count limit (the apiserver
    /// evaluates whatever configuration it stored; the dispatcher's way).
    #[doc(hidden)]
    pub fn compile_unbounded(env: &Environment, conditions: &[MatchCondition]) -> Self {
        let conditions = conditions
            .iter()
            .map(|c| Compiled {
                name: c.name.clone(),
                expression: c.expression.clone(),
                program: env.compile_condition(&c.expression),
            })
            .collect::<Vec<Compiled>>();
        use matchcond_runtime::activation::{
            request_field_index, request_field_sources, SLOT_AUTHORIZER, SLOT_OBJECT,
            SLOT_OLD_OBJECT, SLOT_REQUEST, SLOT_REQUEST_RESOURCE,
        };
        let mut reads = [raw::Need::Nothing, raw::Need::Nothing];
        let mut request_reads = raw::Need::Nothing;
        let mut uses_authorizer = false;
        for p in conditions.iter().filter_map(|c| c.program.as_ref().ok()) {
            for path in p.read_paths() {
                match path.slot {
                    SLOT_OBJECT | SLOT_OLD_OBJECT => {
                        if let Some(need) = reads.get_mut(path.slot - SLOT_OBJECT) {
                            if path.presence_only {
                                need.add_presence(&path.fields);
                            } else {
                                need.add(&path.fields);
                            }
                        }
                    }
                    // A member read is built whole, with the other member it may be
                    // read from; `request` itself (or a member unknown here), all of it.
                    SLOT_REQUEST => {
                        match path.fields.first().and_then(|m| request_field_index(m)) {
                            Some(index) => {
                                for member in request_field_sources(index).into_iter().flatten() {
                                    request_reads.add(&[member.into()]);
                                }
                            }
                            None => request_reads.add(&[]),
                        }
                    }
                    // The authorizer reads the user and the resource: the whole request.
                    SLOT_AUTHORIZER | SLOT_REQUEST_RESOURCE => {
                        uses_authorizer = true;
                        request_reads.add(&[]);
                    }
                    _ => {}
                }
            }
        }
        MatchConditions {
            conditions,
            per_call_limit: PER_CALL_COST_LIMIT,
            budget: MATCH_CONDITIONS_BUDGET,
            reads,
            request_reads,
            uses_authorizer,
        }
    }

    /// What condition `index` reads: the variable paths of its program (see
    /// `Program::read_paths`); empty for a condition that did not compile or an index out
    /// of range.
    #[doc(hidden)]
    pub fn condition_read_paths(&self, index: usize) -> &[matchcond_compiler::ReadPath] {
        match self.conditions.get(index).map(|c| &c.program) {
            Some(Ok(p)) => p.read_paths(),
            _ => &[],
        }
    }

    /// True when some condition reads `authorizer` or `authorizer.requestResource`: a host
    /// need not bind an authorizer (nor clone its `Arc` per request) for the others.
    pub fn uses_authorizer(&self) -> bool {
        self.uses_authorizer
    }

    /// Reads the `request` of an AdmissionReview given as JSON bytes, building of `object`
    /// and `oldObject` only the parts these conditions can read (the rest is checked to be
    /// JSON but not built; a part no condition reads may come back as null). Deciding on the
    /// result gives the decision on the whole request; bind it with
    /// [`Activation::from_request`] (and an authorizer if the conditions use one).
    pub fn read_review(&self, bytes: &[u8]) -> Result<serde_json::Value, ReviewError> {
        self.read_review_as(bytes, &raw::Need::All)
    }

    /// Reads of an AdmissionReview given as JSON bytes only what these conditions read:
    /// [`MatchConditions::read_review`]'s `object` and `oldObject`, and of the request's
    /// other members those the conditions (or the authorizer they ask) read; the others
    /// are absent (checked to be JSON but not built). For deciding with these conditions
    /// (bind it with [`Activation::from_request`], and an authorizer if the conditions use
    /// one): the decision on the result is the decision on the whole request. A host that
    /// also needs other members of the request (its `uid`) uses
    /// [`MatchConditions::read_review`].
    pub fn read_review_to_decide(&self, bytes: &[u8]) -> Result<serde_json::Value, ReviewError> {
        self.read_review_as(bytes, &self.request_reads)
    }

    /// The request of a review, its members other than the objects built as `request` says.
    fn read_review_as(
        &self,
        bytes: &[u8],
        request: &raw::Need,
    ) -> Result<serde_json::Value, ReviewError> {
        use serde::de::DeserializeSeed;
        let [object, old_object] = &self.reads;
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let request = raw::ReviewSeed {
            object,
            old_object,
            request,
        }
        .deserialize(&mut de)?;
        de.end()?;
        request.ok_or(ReviewError::NoRequest)
    }

    /// Reads an AdmissionReview given as JSON bytes into one object of its `apiVersion`,
    /// `kind` and `request` (those present), the request read as
    /// [`MatchConditions::read_review`] reads it; the other members are checked to be JSON
    /// but not built. A host that checks the review's type before deciding reads the bytes
    /// once. An error when the bytes are not one JSON object, or `request` is neither an
    /// object nor null.
    pub fn read_review_envelope(&self, bytes: &[u8]) -> Result<serde_json::Value, ReviewError> {
        use serde::de::DeserializeSeed;
        let [object, old_object] = &self.reads;
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let review = raw::EnvelopeSeed { object, old_object }.deserialize(&mut de)?;
        de.end()?;
        Ok(review)
    }

    /// Decides from the JSON bytes of an AdmissionReview, parsing only what the conditions
    /// read (see [`MatchConditions::read_review`]).
    pub fn decide_review(
        &self,
        bytes: &[u8],
        policy: FailurePolicy,
    ) -> Result<Decision<'_>, ReviewError> {
        let request = self.read_review_to_decide(bytes)?;
        Ok(self.decide(&Activation::from_request(&request), policy))
    }

    /// Sets the per-expression cost limit (default 1,000,000, the apiserver's).
    pub fn with_per_call_limit(mut self, limit: u64) -> Self {
        self.per_call_limit = limit;
        self
    }

    /// Sets the cost budget shared by the conditions (default 2,500,000, the apiserver's).
    pub fn with_budget(mut self, budget: u64) -> Self {
        self.budget = budget;
        self
    }

    /// The number of conditions.
    pub fn len(&self) -> usize {
        self.conditions.len()
    }

    /// True when there are no conditions (the webhook is always called).
    pub fn is_empty(&self) -> bool {
        self.conditions.is_empty()
    }

    /// The compile errors, by condition name.
    pub fn compile_errors(&self) -> Vec<(&str, &CompileError)> {
        self.conditions
            .iter()
            .filter_map(|c| c.program.as_ref().err().map(|e| (&*c.name, e)))
            .collect()
    }

    /// The compile errors, by condition index.
    pub fn condition_compile_errors(&self) -> impl Iterator<Item = (usize, &CompileError)> {
        self.conditions
            .iter()
            .enumerate()
            .filter_map(|(i, c)| c.program.as_ref().err().map(|e| (i, e)))
    }

    /// Evaluates every condition in order under the shared budget, calling `sink` with
    /// each condition's index and result. Returns false when the budget ran out.
    fn run<'s>(
        &'s self,
        activation: &Activation<'_>,
        mut sink: impl FnMut(usize, Step<'s>),
    ) -> bool {
        let mut remaining = self.budget;
        let lookups = Lookups::new();
        let mut fast = FastEval::new(activation, &lookups);
        let limit = Some(self.per_call_limit);
        for (i, c) in self.conditions.iter().enumerate() {
            let p = match &c.program {
                Ok(p) => p,
                Err(e) => {
                    sink(i, Step::Failed(Failure::Compile(e), 0));
                    continue;
                }
            };
            if let Some((result, cost)) = p.evaluate_fast_with(&mut fast, limit) {
                if cost > remaining {
                    sink(i, Step::OutOfBudget(cost));
                    return false;
                }
                remaining -= cost;
                match result {
                    Ok(b) => sink(i, Step::Bool(b, cost)),
                    Err(e) => sink(i, Step::Failed(Failure::Eval(&c.expression, e), cost)),
                }
                continue;
            }
            let Evaluation { result, cost } = p.evaluate_general_in(activation, &lookups, limit);
            if cost > remaining {
                sink(i, Step::OutOfBudget(cost));
                return false;
            }
            remaining -= cost;
            match result {
                Ok(Value::Bool(b)) => sink(i, Step::Bool(b, cost)),
                Ok(other) => sink(
                    i,
                    Step::Failed(Failure::NotBool(&c.expression, other.type_name()), cost),
                ),
                Err(e) => sink(i, Step::Failed(Failure::Eval(&c.expression, e), cost)),
            }
        }
        true
    }

    /// Decides whether the webhook must be called.
    ///
    /// Under `failurePolicy: Ignore`, a skip caused by errors carries them
    /// ([`Skip::Ignored`]): which condition erred first and the apiserver's text.
    pub fn decide(&self, activation: &Activation<'_>, policy: FailurePolicy) -> Decision<'_> {
        let Outcomes {
            completed,
            first_false,
            errors,
            ..
        } = self.outcomes(activation);
        // Concluded here, not through `decide_counting`'s pair: the decision is written
        // once, where the caller reads it (moved out of a pair, it was copied back in wider
        // loads than it was written with, and waited for its own stores).
        self.conclude(completed, first_false, errors, policy)
    }

    /// [`MatchConditions::decide`], with the number of condition errors the apiserver
    /// counts (`apiserver_admission_match_condition_evaluation_errors_total`): the errors
    /// of the conditions before the first false one, or of all when none is false; none
    /// when the shared budget ran out.
    #[doc(hidden)]
    #[inline]
    pub fn decide_counting(
        &self,
        activation: &Activation<'_>,
        policy: FailurePolicy,
    ) -> (Decision<'_>, usize) {
        let Outcomes {
            completed,
            first_false,
            errors,
            counted,
        } = self.outcomes(activation);
        (
            self.conclude(completed, first_false, errors, policy),
            counted,
        )
    }

    /// What the conditions gave on an activation, gathered for a decision.
    #[inline(always)]
    fn outcomes(&self, activation: &Activation<'_>) -> Outcomes<'_> {
        let mut first_false: Option<usize> = None;
        let mut errors = Errors::default();
        let mut counted = 0usize;
        let completed = self.run(activation, |i, step| match step {
            Step::Bool(false, _) => {
                if first_false.is_none() {
                    first_false = Some(i);
                }
            }
            Step::Bool(true, _) => {}
            Step::OutOfBudget(_) => errors.out_of_budget = Some(i),
            Step::Failed(failure, _) => {
                counted += usize::from(first_false.is_none());
                errors.push(i, failure);
            }
        });
        if !completed {
            counted = 0;
        }
        Outcomes {
            completed,
            first_false,
            errors,
            counted,
        }
    }

    fn name(&self, i: usize) -> Cow<'_, str> {
        Cow::Borrowed(self.conditions.get(i).map_or("", |c| c.name.as_str()))
    }

    /// The decision from the evaluation's results (the failure policy is applied in
    /// [`MatchConditions::conclude_otherwise`] and nowhere else).
    #[inline]
    fn conclude<'a>(
        &'a self,
        completed: bool,
        first_false: Option<usize>,
        errors: Errors<'a>,
        policy: FailurePolicy,
    ) -> Decision<'a> {
        if completed {
            if let Some(i) = first_false {
                return Decision::Skip(Skip::Condition(self.name(i)));
            }
            if errors.failures.is_empty() {
                return Decision::Call;
            }
        }
        self.conclude_otherwise(completed, first_false, errors, policy)
    }

    /// [`MatchConditions::conclude`] when the budget ran out or a condition failed.
    #[cold]
    #[inline(never)]
    fn conclude_otherwise<'a>(
        &'a self,
        completed: bool,
        first_false: Option<usize>,
        errors: Errors<'a>,
        policy: FailurePolicy,
    ) -> Decision<'a> {
        let ignored = |text, condition: Option<usize>, out_of_budget| {
            Decision::Skip(Skip::Ignored(IgnoredError {
                condition: self.name(condition.unwrap_or(0)),
                text,
                out_of_budget,
            }))
        };
        if !completed {
            let text = ErrorText::from(OUT_OF_BUDGET);
            return match policy {
                FailurePolicy::Fail => Decision::Reject { message: text },
                FailurePolicy::Ignore => ignored(text, errors.out_of_budget, true),
            };
        }
        if let Some(i) = first_false {
            return Decision::Skip(Skip::Condition(self.name(i)));
        }
        if !errors.failures.is_empty() {
            let text = ErrorText::of_failures(errors.failures);
            return match policy {
                FailurePolicy::Fail => Decision::Reject { message: text },
                FailurePolicy::Ignore => ignored(text, errors.first, false),
            };
        }
        Decision::Call
    }

    /// Decides, and reports every condition's value or error and cost.
    pub fn explain(&self, activation: &Activation<'_>, policy: FailurePolicy) -> Report<'_> {
        let mut results: Vec<ConditionResult<'_>> = self
            .conditions
            .iter()
            .map(|c| ConditionResult {
                name: Cow::Borrowed(&c.name),
                expression: Cow::Borrowed(&c.expression),
                outcome: ConditionOutcome::NotEvaluated,
                cost: 0,
            })
            .collect();
        let mut first_false = None;
        let mut errors = Errors::default();
        let mut total = 0u64;
        let completed = self.run(activation, |i, step| {
            let (outcome, cost) = match step {
                Step::Bool(b, cost) => {
                    if !b && first_false.is_none() {
                        first_false = Some(i);
                    }
                    (ConditionOutcome::Value(b), cost)
                }
                Step::Failed(failure, cost) => {
                    let text = failure.text();
                    errors.push(i, failure);
                    (ConditionOutcome::Error(text), cost)
                }
                Step::OutOfBudget(cost) => {
                    errors.out_of_budget = Some(i);
                    (ConditionOutcome::Error(OUT_OF_BUDGET.into()), cost)
                }
            };
            total = total.saturating_add(cost);
            if let Some(r) = results.get_mut(i) {
                r.outcome = outcome;
                r.cost = cost;
            }
        });
        let decision = self.conclude(completed, first_false, errors, policy);
        Report {
            decision,
            conditions: results,
            evaluation_error: if completed {
                None
            } else {
                Some(OUT_OF_BUDGET.to_string())
            },
            total_cost: total,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_whether_a_condition_reads_the_authorizer() {
        #![allow(clippy::unwrap_used)]
        let env = Environment::latest();
        let uses = |exprs: &[&str]| {
            let list: Vec<MatchCondition> = exprs
                .iter()
                .enumerate()
                .map(|(i, e)| MatchCondition::new(format!("c{i}"), *e))
                .collect();
            MatchConditions::compile_lenient(&env, &list)
                .unwrap()
                .uses_authorizer()
        };
        assert!(!uses(&[]));
        assert!(!uses(&["request.namespace != 'x'", "has(object.metadata)"]));
        assert!(uses(&[
            "request.namespace != 'x'",
            "authorizer.group('').resource('pods').check('create').allowed()",
        ]));
        assert!(uses(&["authorizer.requestResource.check('get').allowed()"]));
        // A condition that does not compile reads nothing.
        assert!(!uses(&["authorizer.nope("]));
    }

    #[test]
    fn aggregate_dedups() {
        assert_eq!(aggregate_messages(&["a".into()]), "a");
        assert_eq!(aggregate_messages(&["a".into(), "a".into()]), "a");
        assert_eq!(
            aggregate_messages(&["a".into(), "b".into(), "a".into()]),
            "[a, b]"
        );
    }
}
