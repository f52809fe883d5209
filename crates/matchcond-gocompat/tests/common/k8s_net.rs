//! The results recorded from Go's `net/netip` and the Kubernetes wrappers of it
//! (`tests/data/k8s_net.jsonl`, one JSON object per line), read by this crate's `net/netip`
//! tests and by the runtime's IP and CIDR library tests.

use serde_json::Value as Json;

/// The kinds of recorded case, in the order [`check_recorded`] counts them.
pub const KINDS: [&str; 3] = ["addr", "prefix", "contains"];

/// Checks every recorded case with the checker of its kind; returns how many cases of each
/// of [`KINDS`] there are. A case of another kind panics.
pub fn check_recorded(addr: fn(&Json), prefix: fn(&Json), contains: fn(&Json)) -> [usize; 3] {
    let data = include_str!("../data/k8s_net.jsonl");
    let checks = [addr, prefix, contains];
    let mut counts = [0usize; 3];
    for line in data.lines().filter(|l| !l.trim().is_empty()) {
        let case: Json = serde_json::from_str(line).unwrap();
        let kind = case["kind"].as_str().unwrap();
        let Some(index) = KINDS.iter().position(|k| *k == kind) else {
            panic!("unknown kind {kind}");
        };
        checks[index](&case);
        counts[index] += 1;
    }
    counts
}
