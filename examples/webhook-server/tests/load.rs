//! A bounded load test of the server binary on loopback, with its own client. Ignored by
//! default; run it on a release build:
//!
//! ```sh
//! cargo test --release -p matchcond-webhook-server --test load -- --ignored --nocapture
//! ```
//!
//! It starts the binary on 127.0.0.1 and, for HTTP/1.1 (16 connections, one request at a
//! time on each) and HTTP/2 (16 concurrent streams on one connection), POSTs
//! `examples/reviews/pod-create.json` to `/validate-pods`:
//!
//! * as fast as the 16 requests in flight allow, for `LOAD_SECONDS` (default 5);
//! * at a fixed rate of `LOAD_RATE` requests per second (default 2000) for `LOAD_SECONDS`,
//!   latencies counted from each request's scheduled time;
//! * for HTTP/2, 400 requests 16 at a time;
//!
//! and prints requests per second, p50, p99 and the largest latency, errors and the
//! server's resident memory. Last, it sends SIGTERM while 16 slow uploads are in flight
//! and prints how many were answered and how long the server took to exit.
//!
//! `LOAD_SERVER_BIN` runs another build of the server instead and `LOAD_PATH` posts to
//! another path (to compare two builds under the same conditions).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{example_args, full, parts, percentile, review, Binary, Client, TempDir};
use hyper::body::Bytes;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::CertificateDer;

const CONCURRENCY: usize = 16;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// How requests are sent: as fast as the requests in flight allow, at a fixed rate, or a
/// fixed number of them.
#[derive(Clone, Copy)]
enum Pace {
    ClosedLoop(Duration),
    Rate(u64, Duration),
    Count(u64),
}

struct Outcome {
    latencies: Vec<Duration>,
    errors: u64,
    elapsed: Duration,
}

fn path() -> String {
    std::env::var("LOAD_PATH").unwrap_or_else(|_| "/validate-pods".to_owned())
}

async fn drive(clients: Vec<Client>, body: Bytes, pace: Pace) -> Outcome {
    let issued = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut workers = Vec::new();
    for mut client in clients {
        let (issued, errors, body) = (issued.clone(), errors.clone(), body.clone());
        let path = path();
        workers.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            loop {
                let i = issued.fetch_add(1, Ordering::Relaxed);
                let from = match pace {
                    Pace::ClosedLoop(d) => {
                        if started.elapsed() >= d {
                            break;
                        }
                        Instant::now()
                    }
                    Pace::Rate(rate, d) => {
                        let at = started + Duration::from_secs_f64(i as f64 / rate as f64);
                        if at >= started + d {
                            break;
                        }
                        tokio::time::sleep_until(at.into()).await;
                        at
                    }
                    Pace::Count(n) => {
                        if i >= n {
                            break;
                        }
                        Instant::now()
                    }
                };
                match client
                    .request(
                        "POST",
                        &path,
                        &[("content-type", "application/json")],
                        full(body.clone()),
                    )
                    .await
                {
                    Ok(r) if r.status == 200 => latencies.push(from.elapsed()),
                    _ => {
                        errors.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
            latencies
        }));
    }
    let mut latencies = Vec::new();
    for w in workers {
        latencies.extend(w.await.unwrap());
    }
    let elapsed = started.elapsed();
    latencies.sort_unstable();
    Outcome {
        latencies,
        errors: errors.load(Ordering::Relaxed),
        elapsed,
    }
}

async fn clients(server: &Binary, ca: &CertificateDer<'static>, h2: bool) -> Vec<Client> {
    if h2 {
        let one = Client::connect(server.addr, ca, true).await;
        (0..CONCURRENCY).map(|_| one.clone()).collect()
    } else {
        let mut all = Vec::new();
        for _ in 0..CONCURRENCY {
            all.push(Client::connect(server.addr, ca, false).await);
        }
        all
    }
}

fn report(name: &str, outcome: &Outcome, rss: (u64, u64)) {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{name:<28} {:>9.0} req/s  p50 {:>6.2} ms  p99 {:>6.2} ms  max {:>7.2} ms  {:>7} ok  {} errors  RSS {:.1} -> {:.1} MB",
        outcome.latencies.len() as f64 / outcome.elapsed.as_secs_f64(),
        ms(percentile(&outcome.latencies, 50.0)),
        ms(percentile(&outcome.latencies, 99.0)),
        ms(outcome.latencies.last().copied().unwrap_or_default()),
        outcome.latencies.len(),
        outcome.errors,
        rss.0 as f64 / 1024.0,
        rss.1 as f64 / 1024.0,
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a load test: run it on a release build with --ignored --nocapture"]
async fn load() {
    let seconds = Duration::from_secs(env_number("LOAD_SECONDS", 5).clamp(1, 60));
    let rate = env_number("LOAD_RATE", 2000).clamp(1, 100_000);
    let dir = TempDir::new("load");
    let cert = dir.path("ca.pem");
    let program = std::env::var("LOAD_SERVER_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_matchcond-webhook-server").to_owned());
    let server = Binary::start_program(&program, &example_args(&cert, "127.0.0.1:0", &[]));
    let pid = server.child.id();
    let ca = CertificateDer::from_pem_file(&cert).unwrap();
    let body = Bytes::from(review("pod-create.json").to_string());
    println!(
        "\nloopback, {} bytes per review, {CONCURRENCY} requests in flight, {} s per phase",
        body.len(),
        seconds.as_secs()
    );
    for h2 in [false, true] {
        let protocol = if h2 { "HTTP/2" } else { "HTTP/1.1" };
        let before = rss_kib(pid);
        let outcome = drive(
            clients(&server, &ca, h2).await,
            body.clone(),
            Pace::ClosedLoop(seconds),
        )
        .await;
        report(
            &format!("{protocol} closed loop"),
            &outcome,
            (before, rss_kib(pid)),
        );
        let before = rss_kib(pid);
        let outcome = drive(
            clients(&server, &ca, h2).await,
            body.clone(),
            Pace::Rate(rate, seconds),
        )
        .await;
        report(
            &format!("{protocol} {rate} req/s"),
            &outcome,
            (before, rss_kib(pid)),
        );
    }
    let before = rss_kib(pid);
    let outcome = drive(
        clients(&server, &ca, true).await,
        body.clone(),
        Pace::Count(400),
    )
    .await;
    report("HTTP/2 400 multiplexed", &outcome, (before, rss_kib(pid)));

    // The drain: 16 uploads half sent, SIGTERM, then the other halves.
    let text = body.clone();
    let (head, tail) = text.split_at(text.len() / 2);
    let (head, tail) = (Bytes::from(head.to_vec()), Bytes::from(tail.to_vec()));
    let h2 = Client::connect(server.addr, &ca, true).await;
    let mut uploads = Vec::new();
    for i in 0..CONCURRENCY {
        let path = path();
        let mut client = if i % 2 == 0 {
            Client::connect(server.addr, &ca, false).await
        } else {
            h2.clone()
        };
        let (tx, part_body) = parts();
        tx.send(head.clone()).await.unwrap();
        uploads.push((
            tx,
            tokio::spawn(async move { client.request("POST", &path, &[], part_body).await }),
        ));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let signalled = Instant::now();
    server.signal("TERM");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let refused = tokio::net::TcpStream::connect(server.addr).await.is_err();
    for (tx, _) in &uploads {
        tx.send(tail.clone()).await.unwrap();
    }
    let mut answered = 0;
    for (tx, task) in uploads {
        drop(tx);
        if matches!(task.await.unwrap(), Ok(r) if r.status == 200) {
            answered += 1;
        }
    }
    drop(h2);
    let (code, _) = tokio::task::block_in_place(|| server.wait(Duration::from_secs(40)));
    println!(
        "SIGTERM with {CONCURRENCY} uploads in flight: {answered}/{CONCURRENCY} answered, new connections refused: {refused}, exit code {code:?} {:.0} ms after the signal (200 ms of it waiting to send the rest)",
        signalled.elapsed().as_secs_f64() * 1000.0
    );
    assert_eq!(answered, CONCURRENCY);
    assert_eq!(code, Some(0));
}

/// The server against its floor: the same binary with `--floor`, which reads each body and
/// answers one fixed AdmissionReview over the same TLS and HTTP stack. Closed loops of
/// `LOAD_SECONDS` (default 5) per side split in `LOAD_ROUNDS` (default 3) rounds per
/// protocol; each round runs both sides back to back (the floor first in every other round),
/// so that both see the same machine. Prints every round's requests per second and p99 for
/// both sides, then the medians over the rounds and the median of the rounds' ratios
/// (goal: at least 90% of the floor's requests per second, p99 within 1.2 times the
/// floor's).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a load test: run it on a release build with --ignored --nocapture"]
async fn against_the_floor() {
    let seconds = Duration::from_secs(env_number("LOAD_SECONDS", 5).clamp(1, 60));
    let rounds = u32::try_from(env_number("LOAD_ROUNDS", 3).clamp(1, 20)).unwrap();
    let program = std::env::var("LOAD_SERVER_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_matchcond-webhook-server").to_owned());
    let dir = TempDir::new("floor");
    let (server_ca, floor_ca) = (dir.path("server.pem"), dir.path("floor.pem"));
    let server = Binary::start_program(&program, &example_args(&server_ca, "127.0.0.1:0", &[]));
    let floor = Binary::start_program(
        &program,
        &example_args(&floor_ca, "127.0.0.1:0", &["--floor"]),
    );
    let server_ca = CertificateDer::from_pem_file(&server_ca).unwrap();
    let floor_ca = CertificateDer::from_pem_file(&floor_ca).unwrap();
    let body = Bytes::from(review("pod-create.json").to_string());
    println!(
        "\nloopback, {} bytes per review, {CONCURRENCY} requests in flight, {rounds} rounds of {:.1} s per side; server and floor are one {} binary",
        body.len(),
        seconds.as_secs_f64() / f64::from(rounds),
        if cfg!(debug_assertions) { "debug (figures mean little: use --release)" } else { "release" }
    );
    for h2 in [false, true] {
        let protocol = if h2 { "HTTP/2" } else { "HTTP/1.1" };
        let mut seen: Vec<Round> = Vec::new();
        for round in 0..rounds {
            let mut figures = [(0.0, Duration::ZERO); 2];
            let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
            for i in order {
                let (binary, ca, name) = if i == 0 {
                    (&server, &server_ca, "server")
                } else {
                    (&floor, &floor_ca, "floor")
                };
                let mut outcome = drive(
                    clients(binary, ca, h2).await,
                    body.clone(),
                    Pace::ClosedLoop(seconds / rounds),
                )
                .await;
                assert_eq!(outcome.errors, 0, "{protocol} {name}");
                outcome.latencies.sort_unstable();
                let rps = outcome.latencies.len() as f64 / outcome.elapsed.as_secs_f64();
                let p99 = percentile(&outcome.latencies, 99.0);
                println!(
                    "{protocol:<9} round {} {name:<7} {rps:>9.0} req/s  p50 {:>6.2} ms  p99 {:>6.2} ms",
                    round + 1,
                    percentile(&outcome.latencies, 50.0).as_secs_f64() * 1000.0,
                    p99.as_secs_f64() * 1000.0,
                );
                figures[i] = (rps, p99);
            }
            seen.push(figures);
        }
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let of = |f: &dyn Fn(&Round) -> f64| median(seen.iter().map(f).collect());
        println!(
            "{protocol:<9} medians of {rounds} rounds: server {:.0} req/s, p99 {:.2} ms; floor {:.0} req/s, p99 {:.2} ms",
            of(&|r| r[0].0),
            of(&|r| ms(r[0].1)),
            of(&|r| r[1].0),
            of(&|r| ms(r[1].1)),
        );
        println!(
            "{protocol:<9} server/floor, median of the rounds' ratios: {:.1}% of the requests per second (goal >= 90%), p99 {:.2}x (goal <= 1.2x)",
            100.0 * of(&|r| r[0].0 / r[1].0),
            of(&|r| r[0].1.as_secs_f64() / r[1].1.as_secs_f64()),
        );
    }
}

/// One round against the floor: requests per second and p99 of the server, then of the
/// floor.
type Round = [(f64, Duration); 2];

/// The median of some figures (the mean of the middle two for an even count).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => values[n / 2],
        _ => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}
