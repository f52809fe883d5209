//! Times the parser: each hostile input of the parser's stack-safety tests (100,000 code
//! points built to exhaust a parser), then a typical matchCondition parsed 20,000 times.
//! Build it optimised:
//!
//! ```text
//! cargo run --release -p matchcond-front --example parse_timing
//! ```
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;
use std::time::Instant;

use matchcond_front::{parse, ParserOptions};

const TYPICAL: &str = "object.metadata.name.startsWith('kube-') && request.userInfo.groups.exists(g, g == 'system:masters') || has(object.spec.replicas) && object.spec.replicas > 3 && !(request.operation in ['DELETE', 'CONNECT'])";

fn main() {
    let options = ParserOptions::default();
    for (name, input) in common::hostile_inputs() {
        let start = Instant::now();
        let issues = parse(&input, &options).map_or_else(|e| e.issues().len(), |_| 0);
        println!("{name}: {:?} ({issues} issues)", start.elapsed());
    }
    for _ in 0..1000 {
        parse(TYPICAL, &options).unwrap();
    }
    let runs = 20_000;
    let start = Instant::now();
    for _ in 0..runs {
        black_box(parse(black_box(TYPICAL), &options).unwrap());
    }
    println!(
        "typical ({} bytes): {:?} per parse",
        TYPICAL.len(),
        start.elapsed() / runs
    );
}
