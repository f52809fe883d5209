//! The conformance runner of matchcond: loads suites in the conformance case format, runs every
//! case against the engine through the [`model::Engine`] trait, and reports.
//!
//! - [`suite`]: the YAML model and its validation;
//! - [`expect`]: the expectation checks (`value` loosely, `equals` strictly, error substrings);
//! - [`known`]: the known-failures file and its ratchet;
//! - [`run`]: finding suite files, running cases under a panic guard, the report;
//! - [`engine`]: the adapter that runs cases on matchcond.
//!
//! Choices the case format leaves open: a `value` of `null` matches `optional.none()` and any
//! other `value` is compared with the inner value of `optional.of(v)` (check `type:
//! optional_type` to tell them apart); a type value matches its name, a library value (IP, CIDR,
//! Quantity, URL, Semver) its text form; map keys that are ints, uints or bools match object keys
//! written as their text. `invalid` texts are matched case-sensitively (field paths are exact);
//! `error` alone in a `matchConditions` or `webhook` case accepts a compile error or a rejection.

pub mod engine;
pub mod expect;
pub mod known;
pub mod model;
pub mod run;
pub mod suite;
