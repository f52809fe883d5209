//! The audit-log replay beside its floor: generated logs (the mix of a busy cluster,
//! `matchcond_bench::audit_log`) at levels Metadata and RequestResponse, replayed through
//! `examples/webhooks.yaml` on every core (`replay`), and the same reading with each line
//! parsed into an event and nothing more (`floor`). Throughput is in events (lines).
//! `matchcond bench --replay` prints the same comparison as events per second.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_main, Criterion, Throughput};
use matchcond::dispatch::audit::{parse_only, Replay, ReplayOptions, Side, Source};
use matchcond::dispatch::request::Catalog;
use matchcond::dispatch::{load_documents, Dispatcher};
use matchcond::KubeVersion;
use matchcond_bench::audit_log::{write, Level, Spec};

fn sources(log: &Arc<[u8]>) -> Vec<Source> {
    vec![Source::new(
        "generated",
        Box::new(std::io::Cursor::new(Arc::clone(log))),
    )]
}

fn replay(c: &mut Criterion) {
    let configs = load_documents(matchcond_bench::audit_log::CONFIGURATIONS).unwrap();
    let replay = Replay::new(
        Side::new(Dispatcher::new(&configs, KubeVersion::LATEST)),
        None,
        Arc::new(Catalog::builtin()),
        None,
    );
    let options = ReplayOptions::default();
    for (level, name, requests) in [
        (Level::Metadata, "metadata", 50_000),
        (Level::RequestResponse, "request_response", 10_000),
    ] {
        let mut log = Vec::new();
        let lines = write(&mut log, &Spec::new(level, requests)).unwrap();
        let log: Arc<[u8]> = log.into();
        let report = replay.run(sources(&log), options, &|_| {});
        assert_eq!(report.input.events, lines);
        assert_eq!(report.input.bad, 0);
        let mut g = c.benchmark_group(format!("replay/{name}"));
        g.throughput(Throughput::Elements(lines));
        g.sample_size(10);
        g.bench_function("floor", |b| {
            b.iter(|| black_box(parse_only(sources(&log), options)))
        });
        g.bench_function("replay", |b| {
            b.iter(|| black_box(replay.run(sources(&log), options, &|_| {})))
        });
        g.finish();
    }
}

/// The replay group, with criterion's settings from the command line.
fn benches() {
    let mut c = Criterion::default().configure_from_args();
    replay(&mut c);
}

criterion_main!(benches);
