//! The parts of a CEL [`Value`](crate::Value): strings, bytes, lists and maps that view the
//! request in place where they can, timestamps, durations, type names, optionals and the
//! values of library types (quantities, IPs, CIDRs, URLs, semvers, …).

pub use matchcond_runtime::value::{
    Bin, Duration, List, Map, Opaque, Optional, Str, Timestamp, TypeName,
};
