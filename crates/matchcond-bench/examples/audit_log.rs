//! Writes a generated audit log to standard output:
//! `cargo run --release -p matchcond-bench --example audit_log -- metadata 1000000 > audit.log`
//! (`metadata` or `request-response`, then the number of requests).

use std::io::{BufWriter, Write};

use matchcond_bench::audit_log::{write, Level, Spec};

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let level = match args.first().map(String::as_str) {
        Some("metadata") | None => Level::Metadata,
        Some("request-response") => Level::RequestResponse,
        Some(other) => {
            eprintln!("audit_log: unknown level {other:?} (metadata, request-response)");
            return std::process::ExitCode::from(2);
        }
    };
    let requests = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(100_000);
    let mut out = BufWriter::new(std::io::stdout().lock());
    match write(&mut out, &Spec::new(level, requests)).and_then(|_| out.flush()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("audit_log: {e}");
            std::process::ExitCode::from(1)
        }
    }
}
