//! The decision of every webhook for one audit event, reasoned three-valued: what the
//! event could not carry (the objects it did not record, an authorizer or namespace labels
//! that were not given) is unknown, and a decision that depends on it is undetermined.
//!
//! The apiserver's rules are followed exactly: a webhook is called when its
//! namespaceSelector, objectSelector and rules select the request and every condition is
//! true; any false condition skips it (whatever the others are, errors included); else
//! errors go to failurePolicy. So a determined false selector, rule or condition decides
//! the skip on its own; otherwise an unknown one leaves the decision undetermined.
//!
//! A condition is evaluated with the members the event lacks *unknown* — reading `object`
//! or `oldObject` is then an error, as is reading an unbound `authorizer` — and CEL's error
//! absorption does the rest: a condition that still yields a boolean (`request.operation
//! != 'UPDATE' || object.spec != oldObject.spec` on a CREATE) has the same result whatever
//! the missing values are; one that fails and reads a missing member is undetermined.
//! `request.options` and `request.kind`, when missing, are judged by what the condition
//! reads (its read paths): a condition reading them is undetermined.

use std::sync::Arc;

use matchcond_matcher::{ConditionOutcome, FailurePolicy};
use matchcond_runtime::activation::{
    SLOT_AUTHORIZER, SLOT_OBJECT, SLOT_OLD_OBJECT, SLOT_REQUEST, SLOT_REQUEST_RESOURCE,
};
use matchcond_runtime::Value;
use serde_json::{Map, Value as Json};

use super::admission::{self, Missing, NotAdmitted};
use super::event::Event;
use crate::dispatch::{
    call_time_check, dry_run_check, insert_attributes, match_namespace, object_labels, Attributes,
    CelRequest, CelRequests, CompiledHook, Detail, Dispatcher, Policy,
};
use crate::namespaces::NamespaceLister;
use crate::request::catalog::Catalog;
use crate::rules::is_exempt_kind;
use crate::selector::Selector;
use crate::types::Gvk;

/// A webhook's decision for one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Verdict {
    /// Its rules or selectors leave the request out (determined).
    NotSelected,
    /// Condition `n` (by position) is false: the webhook is skipped.
    Skipped(u16),
    /// The webhook is called.
    Called,
    /// The request is rejected: conditions failed under `failurePolicy: Fail` (or a
    /// selector, an equivalent resource's kind or a dry run the webhook cannot take).
    Rejected,
    /// Conditions failed under `failurePolicy: Ignore`: the webhook is skipped.
    ErrorIgnored,
    /// The decision depends on what the event does not carry.
    Undetermined,
}

/// The decision in four classes, for comparing two configurations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DecisionClass {
    /// Rejected.
    Reject,
    /// Called.
    Call,
    /// Not called.
    Skip,
    /// Undetermined.
    Undetermined,
}

impl DecisionClass {
    /// The class's name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            DecisionClass::Reject => "reject",
            DecisionClass::Call => "call",
            DecisionClass::Skip => "skip",
            DecisionClass::Undetermined => "undetermined",
        }
    }
}

impl Verdict {
    /// The verdict's decision class.
    pub fn class(self) -> DecisionClass {
        match self {
            Verdict::NotSelected | Verdict::Skipped(_) | Verdict::ErrorIgnored => {
                DecisionClass::Skip
            }
            Verdict::Called => DecisionClass::Call,
            Verdict::Rejected => DecisionClass::Reject,
            Verdict::Undetermined => DecisionClass::Undetermined,
        }
    }
}

/// Whether the rules and selectors let a request through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Selection {
    /// They do not.
    No,
    /// They do.
    Yes,
    /// The rules do; a selector's answer is unknown (no namespace labels, no object).
    Unknown,
}

/// One webhook's result for one request: the verdict, and what each condition gave (bit
/// `n` for condition `n`; conditions past 64 are not tracked).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct HookResult {
    /// The decision.
    pub verdict: Verdict,
    /// What the rules and selectors said.
    pub selection: Selection,
    /// Conditions that were false.
    pub false_mask: u64,
    /// Conditions that failed (determined errors).
    pub error_mask: u64,
    /// Conditions whose result is undetermined.
    pub unknown_mask: u64,
}

impl HookResult {
    fn new(verdict: Verdict, selection: Selection) -> Self {
        HookResult {
            verdict,
            selection,
            false_mask: 0,
            error_mask: 0,
            unknown_mask: 0,
        }
    }
}

/// What a condition reads that an event may lack.
#[derive(Clone, Copy, Debug, Default)]
struct Reads {
    object: bool,
    old_object: bool,
    authorizer: bool,
    options: bool,
    kind: bool,
    dry_run: bool,
    name: bool,
}

fn condition_reads(h: &CompiledHook) -> Vec<Reads> {
    (0..h.conditions.len())
        .map(|i| {
            let mut r = Reads::default();
            for path in h.conditions.condition_read_paths(i) {
                match path.slot {
                    SLOT_OBJECT => r.object = true,
                    SLOT_OLD_OBJECT => r.old_object = true,
                    // An authorizer check asks about the request's resource, name included.
                    SLOT_AUTHORIZER | SLOT_REQUEST_RESOURCE => {
                        r.authorizer = true;
                        r.name = true;
                    }
                    SLOT_REQUEST => match path.fields.first().map(|p| &**p) {
                        Some("options") => r.options = true,
                        Some("kind" | "requestKind") => r.kind = true,
                        Some("dryRun") => r.dry_run = true,
                        Some("name") => r.name = true,
                        Some(_) => {}
                        None => {
                            r.options = true;
                            r.kind = true;
                            r.dry_run = true;
                            r.name = true;
                        }
                    },
                    _ => {}
                }
            }
            r
        })
        .collect()
}

/// The webhooks of one set of configurations, ready to replay events through.
pub struct Side {
    dispatcher: Dispatcher,
    reads: Vec<Vec<Reads>>,
}

impl Side {
    /// Prepares a dispatcher (its authorizer, if bound, answers `authorizer` checks;
    /// without one they are undetermined).
    pub fn new(dispatcher: Dispatcher) -> Side {
        let reads = dispatcher
            .compiled()
            .iter()
            .map(|h| condition_reads(h))
            .collect();
        Side { dispatcher, reads }
    }

    /// The dispatcher.
    pub fn dispatcher(&self) -> &Dispatcher {
        &self.dispatcher
    }
}

/// The parts of an event's AdmissionRequest, built when a webhook first needs them.
struct Built {
    /// The event's AdmissionRequest as the matchConditions see it (without the objects),
    /// built once from the attributes, the user and the options.
    original: Json,
    object: Option<Json>,
    missing: Missing,
}

/// One admitted event, being decided.
pub(crate) struct Prepared<'e, 'a> {
    event: &'e Event<'a>,
    pub(crate) attrs: Attributes,
    kind_known: bool,
    built: Option<Built>,
    /// The `request` of the matchConditions, by invocation kind (shared by the webhooks).
    cel_requests: CelRequests,
}

impl<'e, 'a> Prepared<'e, 'a> {
    /// The event's attributes; an error when it does not pass through admission.
    pub(crate) fn new(event: &'e Event<'a>, catalog: &Catalog) -> Result<Self, NotAdmitted> {
        let (attrs, kind_known) = admission::attributes(event, catalog)?;
        Ok(Prepared {
            event,
            attrs,
            kind_known,
            built: None,
            cel_requests: CelRequests::default(),
        })
    }

    /// True when the event does not tell whether the request was a dry run (`attrs.dry_run`
    /// is then false).
    fn dry_run_unknown(&self) -> bool {
        !admission::tells_dry_run(self.event, self.attrs.operation == "DELETE")
    }

    fn built(&mut self) -> Result<&Built, NotAdmitted> {
        if self.built.is_none() {
            let (object, _, options, mut missing) = admission::parts(self.event, &self.attrs)?;
            missing.kind = !self.kind_known;
            let mut m = Map::new();
            let user = admission::user_info(self.event)?;
            insert_attributes(&mut m, &self.attrs, &self.attrs.kind, user, options);
            self.built = Some(Built {
                original: Json::Object(m),
                object,
                missing,
            });
        }
        self.built.as_ref().ok_or(NotAdmitted::Invalid {
            field: "requestObject",
            message: String::new(),
        })
    }

    /// The `request` the matchConditions of a webhook invoked with `kind` see, built once
    /// per kind, and the parts of the event's AdmissionRequest.
    fn cel_request(&mut self, kind: &Gvk) -> Result<(CelRequest<'_>, &Built), NotAdmitted> {
        self.built()?;
        let built = self.built.as_ref().ok_or(NotAdmitted::Invalid {
            field: "requestObject",
            message: String::new(),
        })?;
        let request = self.cel_requests.get(&self.attrs, kind, &built.original);
        Ok((request, built))
    }
}

/// Three-valued truth.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tri {
    True,
    False,
    Unknown,
    Error,
}

impl Side {
    /// Decides every webhook for a prepared event.
    pub(crate) fn decide(
        &self,
        p: &mut Prepared<'_, '_>,
        namespaces: Option<&(dyn NamespaceLister + Send + Sync)>,
    ) -> Result<Vec<HookResult>, NotAdmitted> {
        let hooks = self.dispatcher.compiled();
        let mut out = Vec::with_capacity(hooks.len());
        for (h, reads) in hooks.iter().zip(&self.reads) {
            out.push(self.decide_hook(h, reads, p, namespaces)?);
        }
        Ok(out)
    }

    fn decide_hook(
        &self,
        h: &CompiledHook,
        reads: &[Reads],
        p: &mut Prepared<'_, '_>,
        namespaces: Option<&(dyn NamespaceLister + Send + Sync)>,
    ) -> Result<HookResult, NotAdmitted> {
        let no = HookResult::new(Verdict::NotSelected, Selection::No);
        if is_exempt_kind(&p.attrs.kind) {
            return Ok(no);
        }
        let invocation = match self.dispatcher.match_rules(h, &p.attrs) {
            Ok(Some(i)) => i,
            Ok(None) => return Ok(no),
            Err(_) => return Ok(HookResult::new(Verdict::Rejected, Selection::Yes)),
        };
        let ns = namespace_selected(h, p, namespaces)?;
        let obj = object_selected(&h.object_selector, p)?;
        if ns == Tri::False || obj == Tri::False {
            return Ok(no);
        }
        let unknown_selection = ns == Tri::Unknown || obj == Tri::Unknown;
        let selection = if unknown_selection {
            Selection::Unknown
        } else {
            Selection::Yes
        };
        if ns == Tri::Error || obj == Tri::Error {
            let v = if unknown_selection {
                Verdict::Undetermined
            } else {
                Verdict::Rejected
            };
            return Ok(HookResult::new(v, selection));
        }
        let mut result = HookResult::new(Verdict::Called, selection);
        if !h.conditions.is_empty() {
            self.decide_conditions(h, reads, p, &invocation.kind, &mut result)?;
        }
        if result.verdict == Verdict::Called && unknown_selection {
            result.verdict = Verdict::Undetermined;
        }
        if result.verdict == Verdict::Called && p.dry_run_unknown() && dry_run_check(h).is_some() {
            // A dry run would not call it, and the event does not tell whether it was one.
            result.verdict = Verdict::Undetermined;
        }
        if result.verdict == Verdict::Called {
            match call_time_check(h, &p.attrs) {
                Some(Detail::Reject(_)) => result.verdict = Verdict::Rejected,
                Some(Detail::Skip(..)) => result.verdict = Verdict::NotSelected,
                _ => {}
            }
        }
        Ok(result)
    }

    fn decide_conditions(
        &self,
        h: &CompiledHook,
        reads: &[Reads],
        p: &mut Prepared<'_, '_>,
        kind: &Gvk,
        result: &mut HookResult,
    ) -> Result<(), NotAdmitted> {
        // A webhook matched through an equivalent resource of another version sees the
        // objects converted to it, which the event does not record.
        let converted = *kind != p.attrs.kind;
        let (request, built) = p.cel_request(kind)?;
        let mut missing = built.missing;
        if converted && built.object.is_some() {
            missing.object = true;
        }
        let mut act = request.activation();
        if missing.object {
            act.unbind(SLOT_OBJECT);
        } else {
            act.set(
                SLOT_OBJECT,
                built.object.as_ref().map_or(Value::Null, Value::from_json),
            );
        }
        if missing.old_object {
            act.unbind(SLOT_OLD_OBJECT);
        } else {
            act.set(SLOT_OLD_OBJECT, Value::Null);
        }
        let authorizer = self.dispatcher.authorizer();
        if let Some(a) = authorizer {
            act.bind_authorizer(Arc::clone(a));
        }
        let policy = h.policy.for_conditions();
        let report = h.conditions.explain(&act, policy);
        let mut first_false = None;
        let mut errors = false;
        let mut depends_any = false;
        for (i, (c, r)) in report.conditions.iter().zip(reads).enumerate() {
            let bit = 1u64.checked_shl(i as u32).unwrap_or(0);
            let depends = (r.object && missing.object)
                || (r.old_object && missing.old_object)
                || (r.authorizer && authorizer.is_none());
            let by_reads = (r.name && missing.name)
                || (r.options && missing.options)
                || (r.kind && missing.kind)
                || (r.dry_run && missing.dry_run);
            depends_any |= depends || by_reads;
            match &c.outcome {
                ConditionOutcome::Value(_) | ConditionOutcome::Error(_) if by_reads => {
                    result.unknown_mask |= bit;
                }
                ConditionOutcome::Value(false) => {
                    result.false_mask |= bit;
                    first_false.get_or_insert(i);
                }
                ConditionOutcome::Value(true) => {}
                ConditionOutcome::Error(_) if depends => result.unknown_mask |= bit,
                ConditionOutcome::Error(_) => {
                    result.error_mask |= bit;
                    errors = true;
                }
                _ => {}
            }
        }
        if report.evaluation_error.is_some() {
            // The shared budget ran out: an error of the whole evaluation, which decides
            // even over a false condition; with unknown inputs the cost is unknown too.
            result.verdict = if depends_any {
                Verdict::Undetermined
            } else {
                policy_verdict(h.policy)
            };
            return Ok(());
        }
        result.verdict = if let Some(i) = first_false {
            Verdict::Skipped(u16::try_from(i).unwrap_or(u16::MAX))
        } else if result.unknown_mask != 0 {
            Verdict::Undetermined
        } else if errors {
            policy_verdict(h.policy)
        } else {
            Verdict::Called
        };
        Ok(())
    }
}

fn policy_verdict(policy: Policy) -> Verdict {
    match policy {
        Policy::Known(FailurePolicy::Fail) => Verdict::Rejected,
        Policy::Known(FailurePolicy::Ignore) => Verdict::ErrorIgnored,
        Policy::Other => Verdict::Called,
    }
}

fn namespace_selected(
    h: &CompiledHook,
    p: &mut Prepared<'_, '_>,
    namespaces: Option<&(dyn NamespaceLister + Send + Sync)>,
) -> Result<Tri, NotAdmitted> {
    let attrs = &p.attrs;
    if attrs.namespace.is_empty() && attrs.resource.resource != "namespaces" {
        return Ok(Tri::True);
    }
    let selector = match &h.namespace_selector {
        Ok(s) if s.is_empty() => return Ok(Tri::True),
        Ok(s) => s,
        Err(_) => return Ok(Tri::Error),
    };
    let own_labels = attrs.resource.resource == "namespaces"
        && attrs.resource.group.is_empty()
        && attrs.subresource.is_empty()
        && (attrs.operation == "CREATE" || attrs.operation == "UPDATE");
    if own_labels {
        p.built()?;
        let Some(built) = p.built.as_ref() else {
            return Ok(Tri::Unknown);
        };
        if built.missing.object {
            return Ok(Tri::Unknown);
        }
        let (m, err) = match_namespace(h, &p.attrs, built.object.as_ref(), &NoLister);
        return Ok(tri(m, err.is_some()));
    }
    let Some(lister) = namespaces else {
        return Ok(Tri::Unknown);
    };
    match lister.namespace_labels(&attrs.namespace) {
        Ok(Some(labels)) => Ok(if selector_matches(selector, &labels) {
            Tri::True
        } else {
            Tri::False
        }),
        // A namespace the given list does not hold: the list may be older than the log.
        Ok(None) | Err(_) => Ok(Tri::Unknown),
    }
}

fn selector_matches(s: &Selector, labels: &crate::namespaces::Labels) -> bool {
    s.matches(labels)
}

struct NoLister;

impl NamespaceLister for NoLister {
    fn namespace_labels(&self, _: &str) -> Result<Option<crate::namespaces::Labels>, String> {
        Ok(None)
    }
}

fn tri(matched: bool, error: bool) -> Tri {
    match (matched, error) {
        (_, true) => Tri::Error,
        (true, false) => Tri::True,
        (false, false) => Tri::False,
    }
}

fn object_selected(
    selector: &Result<Selector, String>,
    p: &mut Prepared<'_, '_>,
) -> Result<Tri, NotAdmitted> {
    let selector = match selector {
        Ok(s) if s.is_empty() => return Ok(Tri::True),
        Ok(s) => s,
        Err(_) => return Ok(Tri::Error),
    };
    let built = p.built()?;
    let matches = |o: Option<&Json>| {
        o.and_then(object_labels)
            .is_some_and(|l| selector.matches(&l))
    };
    let object = if built.missing.object {
        Tri::Unknown
    } else if matches(built.object.as_ref()) {
        Tri::True
    } else {
        Tri::False
    };
    let old = if built.missing.old_object {
        Tri::Unknown
    } else {
        Tri::False
    };
    Ok(match (object, old) {
        (Tri::True, _) | (_, Tri::True) => Tri::True,
        (Tri::False, Tri::False) => Tri::False,
        _ => Tri::Unknown,
    })
}
