//! Audit logs replayed through webhook configurations: what a change of matchConditions
//! does to a cluster's real traffic before it is applied.
//!
//! * [`event`]: the `audit.k8s.io/v1` [`Event`] as the log backend writes it (one JSON
//!   object per line), read without copying.
//! * [`admission`]: which events pass through admission ([`passage`]) and the
//!   AdmissionRequest the apiserver built for one ([`admission_request`]), with the members
//!   the event could not carry ([`Missing`]); a CONNECT's options are rebuilt from its
//!   request URI.
//! * [`engine`]: every webhook's decision for an event, three-valued: a decision that
//!   depends on what the event lacks is [`Verdict::Undetermined`], never guessed.
//! * [`replay`]: the streaming replay over many files on every core ([`Replay`]), with its
//!   [`ReplayReport`].

pub mod admission;
pub(crate) mod connect;
pub mod engine;
pub mod event;
pub mod replay;
mod uri;

pub use admission::{admission_request, passage, AuditRequest, Missing, NotAdmitted, Passage};
pub use engine::{DecisionClass, HookResult, Selection, Side, Verdict};
pub use event::{Event, EventError, Level, Stage};
pub use replay::{
    parse_only, BadInput, Change, ConditionCounts, HookCounts, InputCounts, Progress, Replay,
    ReplayOptions, ReplayReport, Sample, Source, WebhookReport,
};

#[cfg(test)]
mod tests;
