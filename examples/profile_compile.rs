//! Compiles one typical condition in a loop (for profilers).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
use matchcond::{CompileOptions, Environment};
fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    let env = Environment::latest();
    let expr = "has(object.metadata.labels) && 'app' in object.metadata.labels && object.metadata.labels['app'] == 'web'";
    let opts = CompileOptions {
        result_type: Some(matchcond::syntax::Type::Bool),
        ..Default::default()
    };
    let mut ok = 0;
    for _ in 0..n {
        if env.compile(std::hint::black_box(expr), &opts).is_ok() {
            ok += 1;
        }
    }
    println!("{ok}");
}
