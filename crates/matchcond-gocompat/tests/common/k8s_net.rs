//! The results recorded from Go's `net/netip` and the Kubernetes wrappers of it
//! (`tests/data/k8s_net.jsonl`, one JSON object per line), read by this crate's `net/netip`
//! tests and by the runtime's IP and CIDR library tests.

use serde_json::Value as Json;

/// The kinds of recorded case, in the order [`for_each_case`] counts them.
pub const KINDS: [&str; 3] = ["addr", "prefix", "contains"];

/// Calls `check` with the kind and the case of every recorded case; returns how many cases
/// of each of [`KINDS`] there are. A case of another kind panics.
pub fn for_each_case(mut check: impl FnMut(&str, &Json)) -> [usize; 3] {
    let data = include_str!("../data/k8s_net.jsonl");
    let mut counts = [0usize; 3];
    for line in data.lines().filter(|l| !l.trim().is_empty()) {
        let case: Json = serde_json::from_str(line).unwrap();
        let kind = case["kind"].as_str().unwrap();
        let Some(index) = KINDS.iter().position(|k| *k == kind) else {
            panic!("unknown kind {kind}");
        };
        check(kind, &case);
        counts[index] += 1;
    }
    counts
}
