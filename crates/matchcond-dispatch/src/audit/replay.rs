//! Replaying audit logs through webhook configurations: every line read, every event
//! decided on every core, one request per `auditID`, counted per webhook.
//!
//! The reading is streamed: a reader thread cuts the input into chunks of whole lines
//! (decompressing gzip), the workers parse and decide them and count what they can, and the
//! collector puts the chunks back in order to keep one event per request: the final stage
//! (`ResponseComplete` or `Panic`) wins; an earlier stage counts only when no final one
//! follows (held in a bounded table; when it is full the oldest is counted). Memory stays
//! bounded whatever the size of the logs.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io::{self, BufRead, BufReader, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::admission::Passage;
use super::engine::{DecisionClass, HookResult, Prepared, Selection, Side, Verdict};
use super::event::Event;
use crate::dispatch::HookInfo;
use crate::namespaces::NamespaceLister;
use crate::request::catalog::Catalog;
use crate::types::HookKind;

/// One input: a name for reports (a path, `-`) and its bytes (plain or gzip).
pub struct Source {
    /// The name reports give it.
    pub name: String,
    /// The bytes.
    pub reader: Box<dyn Read + Send>,
}

impl Source {
    /// A source.
    pub fn new(name: impl Into<String>, reader: Box<dyn Read + Send>) -> Source {
        Source {
            name: name.into(),
            reader,
        }
    }
}

/// A line or stream that could not be read, with its place.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct BadInput {
    /// The source's name.
    pub file: String,
    /// The line (1-based).
    pub line: u64,
    /// What is wrong.
    pub message: String,
}

/// What the input held, by kind of event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct InputCounts {
    /// Bytes read (compressed bytes for gzip).
    pub bytes: u64,
    /// Lines read (blank lines included).
    pub lines: u64,
    /// Audit events read.
    pub events: u64,
    /// Requests that pass through admission (one per `auditID`).
    pub admitted: u64,
    /// Reads (final stages only: one per request).
    pub reads: u64,
    /// Requests for non-resource URLs (final stages only).
    pub non_resource: u64,
    /// Requests refused by authentication (final stages only).
    pub unauthenticated: u64,
    /// Requests refused by authorization (final stages only).
    pub forbidden: u64,
    /// Requests refused by priority and fairness before authorization (final stages only;
    /// see [`Passage::Throttled`]).
    pub throttled: u64,
    /// Requests answered 404 before admission (final stages only; see
    /// [`Passage::NotFound`]).
    pub not_found: u64,
    /// Lines and streams that could not be read.
    pub bad: u64,
}

/// A sample request.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Sample {
    /// The `auditID`.
    pub audit_id: String,
    /// The user admission sees (`username`).
    pub user: String,
    /// `group/version/resource[/subresource]` (`v1/pods` for the core group).
    pub resource: String,
    /// The namespace.
    pub namespace: String,
    /// The name.
    pub name: String,
    /// The operation.
    pub operation: String,
    /// `requestReceivedTimestamp`.
    pub time: String,
}

/// What one condition gave, over the replay.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConditionCounts {
    /// The condition's name.
    pub name: String,
    /// Requests it skipped the webhook for (the first false condition).
    pub skipped: u64,
    /// Requests for which it was false.
    pub r#false: u64,
    /// Requests for which it failed.
    pub errors: u64,
    /// Requests for which its result is undetermined.
    pub undetermined: u64,
}

/// One webhook's counts, over every request replayed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct HookCounts {
    /// Requests its rules and selectors let through.
    pub selected: u64,
    /// Requests its rules let through whose selectors' answer is unknown.
    pub selector_undetermined: u64,
    /// Requests it is called for.
    pub called: u64,
    /// Requests skipped by a false condition (see each condition's `skipped`).
    pub skipped: u64,
    /// Requests rejected (errors under `failurePolicy: Fail`).
    pub rejected: u64,
    /// Requests whose errors `failurePolicy: Ignore` skipped.
    pub error_ignored: u64,
    /// Requests whose decision is undetermined.
    pub undetermined: u64,
    /// Per condition, in order.
    pub conditions: Vec<ConditionCounts>,
    /// Calls per minute (Unix minutes of `requestReceivedTimestamp`).
    pub calls_by_minute: BTreeMap<i64, u64>,
    /// Some rejected requests.
    pub rejected_samples: Vec<Sample>,
}

/// Requests whose decision for a webhook differs between the baseline and the
/// configurations replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Change {
    /// The baseline's decision.
    pub from: DecisionClass,
    /// The decision now.
    pub to: DecisionClass,
    /// How many requests.
    pub count: u64,
    /// Some of them.
    pub samples: Vec<Sample>,
}

/// One webhook of the replay (in either set of configurations).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct WebhookReport {
    /// `<configuration>/<webhook>/<n>`.
    pub uid: String,
    /// The configuration's name.
    pub configuration: String,
    /// The webhook's name.
    pub name: String,
    /// Validating or mutating.
    pub kind: HookKind,
    /// Its counts in the configurations replayed (`None` when only the baseline has it).
    pub current: Option<HookCounts>,
    /// Its counts in the baseline (`None` without a baseline or when only the
    /// configurations replayed have it).
    pub baseline: Option<HookCounts>,
    /// The decisions that change, rejections first.
    pub changes: Vec<Change>,
}

/// The result of a replay.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReplayReport {
    /// What the input held.
    pub input: InputCounts,
    /// The first lines and streams that could not be read (`input.bad` counts all).
    pub bad: Vec<BadInput>,
    /// Every webhook, in dispatch order (the baseline's own after).
    pub webhooks: Vec<WebhookReport>,
    /// Whether a baseline was compared.
    pub has_baseline: bool,
}

/// Progress of a replay, given to its observer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Progress {
    /// Bytes read.
    pub bytes: u64,
    /// Lines read.
    pub lines: u64,
}

/// Tuning of a replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReplayOptions {
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Requests seen at an early stage held while waiting for their final stage.
    pub pending_limit: usize,
    /// Samples kept per webhook and change.
    pub samples: usize,
    /// Bad lines kept with their place.
    pub bad_kept: usize,
    /// The size of the chunks of lines handed to the workers.
    pub chunk_bytes: usize,
    /// The longest line read (longer ones are reported and skipped).
    pub max_line_bytes: usize,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            pending_limit: 100_000,
            samples: 10,
            bad_kept: 100,
            chunk_bytes: 512 * 1024,
            max_line_bytes: 64 * 1024 * 1024,
        }
    }
}

impl ReplayOptions {
    /// With this many worker threads (0 means one per core).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = if threads == 0 {
            ReplayOptions::default().threads
        } else {
            threads
        };
        self
    }

    /// With this many samples per webhook and change.
    pub fn with_samples(mut self, samples: usize) -> Self {
        self.samples = samples;
        self
    }

    /// With this many early-stage requests held for their final stage.
    pub fn with_pending_limit(mut self, limit: usize) -> Self {
        self.pending_limit = limit.max(1);
        self
    }
}

/// The configurations to replay through (and an optional baseline), with the resource
/// catalog (kinds, connect subresources) and where namespace labels come from.
pub struct Replay {
    sides: Vec<Side>,
    catalog: Arc<Catalog>,
    namespaces: Option<Arc<dyn NamespaceLister + Send + Sync>>,
    /// The union of the webhooks: (identity, position in the current set, in the baseline).
    union: Vec<(HookInfo, Option<usize>, Option<usize>)>,
}

impl Replay {
    /// A replay through `current`, compared with `baseline` when given. Namespace labels
    /// come from `namespaces` (without it, a namespaceSelector's answer is undetermined).
    pub fn new(
        current: Side,
        baseline: Option<Side>,
        catalog: Arc<Catalog>,
        namespaces: Option<Arc<dyn NamespaceLister + Send + Sync>>,
    ) -> Replay {
        let mut union: Vec<(HookInfo, Option<usize>, Option<usize>)> = current
            .dispatcher()
            .hooks()
            .enumerate()
            .map(|(i, h)| (h.clone(), Some(i), None))
            .collect();
        let mut sides = vec![current];
        if let Some(b) = baseline {
            for (i, h) in b.dispatcher().hooks().enumerate() {
                match union.iter_mut().find(|(u, _, _)| u.uid == h.uid) {
                    Some(entry) => entry.2 = Some(i),
                    None => union.push((h.clone(), None, Some(i))),
                }
            }
            sides.push(b);
        }
        Replay {
            sides,
            catalog,
            namespaces,
            union,
        }
    }

    /// Replays the sources in order; `progress` is called about ten times a second.
    pub fn run(
        &self,
        sources: Vec<Source>,
        options: ReplayOptions,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> ReplayReport {
        let threads = options.threads.max(1);
        let bytes = Arc::new(AtomicU64::new(0));
        let lines = Arc::new(AtomicU64::new(0));
        let (chunk_tx, chunk_rx) = mpsc::sync_channel::<Chunk>(threads * 2);
        let chunk_rx = Mutex::new(chunk_rx);
        let (result_tx, result_rx) = mpsc::sync_channel::<ChunkResult>(threads * 2);
        let names: Vec<String> = sources.iter().map(|s| s.name.clone()).collect();
        let mut collector = Collector::new(self, options);
        std::thread::scope(|scope| {
            let reader_bytes = Arc::clone(&bytes);
            let reader_lines = Arc::clone(&lines);
            scope.spawn(move || {
                read_sources(sources, options, &chunk_tx, &reader_bytes, &reader_lines)
            });
            for _ in 0..threads {
                let rx = &chunk_rx;
                let tx = result_tx.clone();
                let names = &names;
                scope.spawn(move || loop {
                    let next = match rx.lock() {
                        Ok(r) => r.recv(),
                        Err(_) => return,
                    };
                    let Ok(chunk) = next else { return };
                    let result = self.process(chunk, names, options);
                    if tx.send(result).is_err() {
                        return;
                    }
                });
            }
            drop(result_tx);
            loop {
                match result_rx.recv_timeout(Duration::from_millis(100)) {
                    Ok(r) => collector.accept(r),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => break,
                }
                progress(Progress {
                    bytes: bytes.load(Ordering::Relaxed),
                    lines: lines.load(Ordering::Relaxed),
                });
            }
        });
        progress(Progress {
            bytes: bytes.load(Ordering::Relaxed),
            lines: lines.load(Ordering::Relaxed),
        });
        let mut report = collector.finish();
        report.input.bytes = bytes.load(Ordering::Relaxed);
        report.input.lines = lines.load(Ordering::Relaxed);
        report
    }

    /// Decides the events of a chunk.
    fn process(&self, chunk: Chunk, names: &[String], options: ReplayOptions) -> ChunkResult {
        let mut out = ChunkResult {
            seq: chunk.seq,
            acc: Acc::new(self),
            items: Vec::new(),
            bad: chunk.bad,
        };
        let mut start = 0usize;
        for (n, &end) in chunk.ends.iter().enumerate() {
            let line = chunk.data.get(start..end).unwrap_or_default();
            start = end;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let line_no = chunk.first_line + n as u64;
            let bad = |message: String| BadInput {
                file: names.get(chunk.source).cloned().unwrap_or_default(),
                line: line_no,
                message,
            };
            let event = match Event::from_line(line) {
                Ok(e) => e,
                Err(e) => {
                    out.bad.push(bad(e.to_string()));
                    continue;
                }
            };
            out.acc.input.events += 1;
            let final_stage = event.stage.is_final();
            let passage = super::admission::passage(&event, &self.catalog);
            if !matches!(passage, Passage::Admitted(_)) {
                if final_stage {
                    let c = &mut out.acc.input;
                    match passage {
                        Passage::Read => c.reads += 1,
                        Passage::NonResource => c.non_resource += 1,
                        Passage::Unauthenticated => c.unauthenticated += 1,
                        Passage::NotFound => c.not_found += 1,
                        Passage::Throttled => c.throttled += 1,
                        _ => c.forbidden += 1,
                    }
                    // An early stage of the same request (`RequestReceived`, written before
                    // the response tells) is not counted either.
                    out.items.push(Item::Final(request_key(&event.audit_id)));
                }
                continue;
            }
            match self.decide(&event) {
                Ok(outcome) => {
                    let key = request_key(&event.audit_id);
                    if final_stage {
                        out.acc.add(self, &outcome, options);
                        out.items.push(Item::Final(key));
                    } else {
                        out.items.push(Item::Pending(key, Box::new(outcome)));
                    }
                }
                Err(e) => out.bad.push(bad(e.to_string())),
            }
        }
        out.bad.sort_by_key(|b| b.line);
        out
    }

    /// Decides one admitted event on every side.
    fn decide(&self, event: &Event<'_>) -> Result<Outcome, super::admission::NotAdmitted> {
        let mut p = Prepared::new(event, &self.catalog)?;
        let ns = self.namespaces.as_deref();
        let mut results = Vec::with_capacity(self.sides.len());
        for side in &self.sides {
            results.push(side.decide(&mut p, ns)?);
        }
        let notable = results
            .iter()
            .flatten()
            .any(|r| r.verdict == Verdict::Rejected)
            || self.changes(&results).next().is_some();
        let sample = notable.then(|| sample(event, &p.attrs));
        Ok(Outcome {
            minute: unix_minute(&event.request_received_timestamp),
            results,
            sample,
        })
    }

    /// The webhooks (union indexes) whose decision class differs between the sides.
    fn changes<'r>(
        &'r self,
        results: &'r [Vec<HookResult>],
    ) -> impl Iterator<Item = (usize, DecisionClass, DecisionClass)> + 'r {
        let (cur, base) = match results {
            [c, b] => (Some(c), Some(b)),
            _ => (None, None),
        };
        self.union
            .iter()
            .enumerate()
            .filter_map(move |(u, (_, ci, bi))| {
                let (cur, base) = (cur?, base?);
                let class = |side: &Vec<HookResult>, i: &Option<usize>| {
                    i.and_then(|i| side.get(i))
                        .map_or(DecisionClass::Skip, |r| r.verdict.class())
                };
                let (to, from) = (class(cur, ci), class(base, bi));
                (to != from).then_some((u, from, to))
            })
    }
}

/// The floor a replay is measured against: the same reading (chunks of lines, gzip, on
/// `options.threads` workers), each line parsed into an [`Event`] and nothing more.
/// Returns the events parsed and the lines that were not events.
pub fn parse_only(sources: Vec<Source>, options: ReplayOptions) -> (u64, u64) {
    let threads = options.threads.max(1);
    let bytes = Arc::new(AtomicU64::new(0));
    let lines = AtomicU64::new(0);
    let (chunk_tx, chunk_rx) = mpsc::sync_channel::<Chunk>(threads * 2);
    let chunk_rx = Mutex::new(chunk_rx);
    let events = AtomicU64::new(0);
    let bad = AtomicU64::new(0);
    std::thread::scope(|scope| {
        let (bytes, lines) = (&bytes, &lines);
        scope.spawn(move || read_sources(sources, options, &chunk_tx, bytes, lines));
        for _ in 0..threads {
            let (rx, events, bad) = (&chunk_rx, &events, &bad);
            scope.spawn(move || loop {
                let next = match rx.lock() {
                    Ok(r) => r.recv(),
                    Err(_) => return,
                };
                let Ok(chunk) = next else { return };
                let (mut ok, mut failed) = (0, chunk.bad.len() as u64);
                let mut start = 0usize;
                for &end in &chunk.ends {
                    let line = chunk.data.get(start..end).unwrap_or_default();
                    start = end;
                    if line.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    match Event::from_line(line) {
                        Ok(e) => {
                            std::hint::black_box(&e);
                            ok += 1;
                        }
                        Err(_) => failed += 1,
                    }
                }
                events.fetch_add(ok, Ordering::Relaxed);
                bad.fetch_add(failed, Ordering::Relaxed);
            });
        }
    });
    (events.into_inner(), bad.into_inner())
}

fn sample(event: &Event<'_>, attrs: &crate::dispatch::Attributes) -> Sample {
    #[derive(serde::Deserialize)]
    struct User {
        #[serde(default)]
        username: String,
    }
    let user = event
        .effective_user()
        .and_then(|u| serde_json::from_str::<User>(u.get()).ok())
        .map(|u| u.username)
        .unwrap_or_default();
    let r = &attrs.resource;
    let mut resource = if r.group.is_empty() {
        format!("{}/{}", r.version, r.resource)
    } else {
        format!("{}/{}/{}", r.group, r.version, r.resource)
    };
    if !attrs.subresource.is_empty() {
        resource.push('/');
        resource.push_str(&attrs.subresource);
    }
    Sample {
        audit_id: event.audit_id.to_string(),
        user,
        resource,
        namespace: attrs.namespace.clone(),
        name: attrs.name.clone(),
        operation: attrs.operation.clone(),
        time: event.request_received_timestamp.to_string(),
    }
}

/// A request's identity: its `auditID` (a UUID as its 128 bits, any other text hashed).
fn request_key(id: &str) -> u128 {
    let hex: String = id.chars().filter(|c| *c != '-').collect();
    if hex.len() == 32 {
        if let Ok(v) = u128::from_str_radix(&hex, 16) {
            return v;
        }
    }
    use std::hash::{Hash, Hasher};
    let mut a = std::collections::hash_map::DefaultHasher::new();
    id.hash(&mut a);
    let mut b = std::collections::hash_map::DefaultHasher::new();
    (id, 1u8).hash(&mut b);
    (u128::from(a.finish()) << 64) | u128::from(b.finish()) | (1 << 127)
}

/// The Unix minute of an RFC 3339 UTC timestamp (`2024-05-01T12:34:56.123456Z`).
pub fn unix_minute(ts: &str) -> Option<i64> {
    let b = ts.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        std::str::from_utf8(b.get(r)?).ok()?.parse().ok()
    };
    if b.get(4) != Some(&b'-') || b.get(10) != Some(&b'T') {
        return None;
    }
    let (y, m, d, hh, mm) = (
        num(0..4)?,
        num(5..7)?,
        num(8..10)?,
        num(11..13)?,
        num(14..16)?,
    );
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || hh > 23 || mm > 59 {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 1440 + hh * 60 + mm)
}

/// One event's decisions, kept until its request is counted.
struct Outcome {
    minute: Option<i64>,
    /// Per side (current, baseline), per webhook of the side.
    results: Vec<Vec<HookResult>>,
    /// The request, when some decision is worth a sample.
    sample: Option<Sample>,
}

enum Item {
    /// A final stage (already counted by the worker).
    Final(u128),
    /// An early stage, counted only if no final stage follows.
    Pending(u128, Box<Outcome>),
}

struct Chunk {
    seq: u64,
    source: usize,
    first_line: u64,
    data: Vec<u8>,
    /// The end of each line in `data`.
    ends: Vec<usize>,
    /// What the reader could not read, up to the end of this chunk.
    bad: Vec<BadInput>,
}

struct ChunkResult {
    seq: u64,
    acc: Acc,
    items: Vec<Item>,
    bad: Vec<BadInput>,
}

/// Counts being gathered (by a worker, or the collector).
struct Acc {
    input: InputCounts,
    /// Per side, per webhook.
    hooks: Vec<Vec<HookCounts>>,
    /// By (union index, from, to).
    changes: HashMap<(usize, DecisionClass, DecisionClass), (u64, Vec<Sample>)>,
}

impl Acc {
    fn new(replay: &Replay) -> Acc {
        Acc {
            input: InputCounts::default(),
            hooks: replay
                .sides
                .iter()
                .map(|s| {
                    s.dispatcher()
                        .compiled()
                        .iter()
                        .map(|h| HookCounts {
                            conditions: h
                                .spec
                                .match_conditions
                                .iter()
                                .map(|c| ConditionCounts {
                                    name: c.name.clone(),
                                    ..ConditionCounts::default()
                                })
                                .collect(),
                            ..HookCounts::default()
                        })
                        .collect()
                })
                .collect(),
            changes: HashMap::new(),
        }
    }

    fn add(&mut self, replay: &Replay, o: &Outcome, options: ReplayOptions) {
        self.input.admitted += 1;
        for (side, results) in self.hooks.iter_mut().zip(&o.results) {
            for (c, r) in side.iter_mut().zip(results) {
                count(c, r, o, options);
            }
        }
        for (u, from, to) in replay.changes(&o.results) {
            let e = self.changes.entry((u, from, to)).or_insert((0, Vec::new()));
            e.0 += 1;
            if e.1.len() < options.samples {
                if let Some(s) = &o.sample {
                    e.1.push(s.clone());
                }
            }
        }
    }

    fn merge(&mut self, other: Acc, options: ReplayOptions) {
        let i = &mut self.input;
        let o = other.input;
        i.events += o.events;
        i.admitted += o.admitted;
        i.reads += o.reads;
        i.non_resource += o.non_resource;
        i.unauthenticated += o.unauthenticated;
        i.forbidden += o.forbidden;
        i.throttled += o.throttled;
        i.not_found += o.not_found;
        i.bad += o.bad;
        for (side, other_side) in self.hooks.iter_mut().zip(other.hooks) {
            for (a, b) in side.iter_mut().zip(other_side) {
                a.selected += b.selected;
                a.selector_undetermined += b.selector_undetermined;
                a.called += b.called;
                a.skipped += b.skipped;
                a.rejected += b.rejected;
                a.error_ignored += b.error_ignored;
                a.undetermined += b.undetermined;
                for (x, y) in a.conditions.iter_mut().zip(b.conditions) {
                    x.skipped += y.skipped;
                    x.r#false += y.r#false;
                    x.errors += y.errors;
                    x.undetermined += y.undetermined;
                }
                for (m, n) in b.calls_by_minute {
                    *a.calls_by_minute.entry(m).or_insert(0) += n;
                }
                for s in b.rejected_samples {
                    if a.rejected_samples.len() < options.samples {
                        a.rejected_samples.push(s);
                    }
                }
            }
        }
        for (k, (n, samples)) in other.changes {
            let e = self.changes.entry(k).or_insert((0, Vec::new()));
            e.0 += n;
            for s in samples {
                if e.1.len() < options.samples {
                    e.1.push(s);
                }
            }
        }
    }
}

fn count(c: &mut HookCounts, r: &HookResult, o: &Outcome, options: ReplayOptions) {
    match r.selection {
        Selection::Yes => c.selected += 1,
        Selection::Unknown => c.selector_undetermined += 1,
        Selection::No => return,
    }
    match r.verdict {
        Verdict::Called => {
            c.called += 1;
            if let Some(m) = o.minute {
                *c.calls_by_minute.entry(m).or_insert(0) += 1;
            }
        }
        Verdict::Skipped(i) => {
            c.skipped += 1;
            if let Some(cc) = c.conditions.get_mut(usize::from(i)) {
                cc.skipped += 1;
            }
        }
        Verdict::Rejected => {
            c.rejected += 1;
            if c.rejected_samples.len() < options.samples {
                if let Some(s) = &o.sample {
                    c.rejected_samples.push(s.clone());
                }
            }
        }
        Verdict::ErrorIgnored => c.error_ignored += 1,
        Verdict::Undetermined => c.undetermined += 1,
        Verdict::NotSelected => {}
    }
    for (i, cc) in c.conditions.iter_mut().enumerate().take(64) {
        let bit = 1u64 << i;
        cc.r#false += u64::from(r.false_mask & bit != 0);
        cc.errors += u64::from(r.error_mask & bit != 0);
        cc.undetermined += u64::from(r.unknown_mask & bit != 0);
    }
}

/// Puts the chunks back in order and keeps one event per request.
struct Collector<'r> {
    replay: &'r Replay,
    options: ReplayOptions,
    acc: Acc,
    next: u64,
    waiting: BTreeMap<u64, ChunkResult>,
    pending: HashMap<u128, (u64, Box<Outcome>)>,
    order: VecDeque<(u128, u64)>,
    generation: u64,
    bad: Vec<BadInput>,
}

impl<'r> Collector<'r> {
    fn new(replay: &'r Replay, options: ReplayOptions) -> Collector<'r> {
        Collector {
            replay,
            options,
            acc: Acc::new(replay),
            next: 0,
            waiting: BTreeMap::new(),
            pending: HashMap::new(),
            order: VecDeque::new(),
            generation: 0,
            bad: Vec::new(),
        }
    }

    fn accept(&mut self, r: ChunkResult) {
        self.waiting.insert(r.seq, r);
        while let Some(r) = self.waiting.remove(&self.next) {
            self.next += 1;
            self.take(r);
        }
    }

    fn take(&mut self, r: ChunkResult) {
        self.acc.input.bad += r.bad.len() as u64;
        for b in r.bad {
            if self.bad.len() < self.options.bad_kept {
                self.bad.push(b);
            }
        }
        self.acc.merge(r.acc, self.options);
        for item in r.items {
            match item {
                Item::Final(k) => {
                    self.pending.remove(&k);
                }
                Item::Pending(k, o) => {
                    self.generation += 1;
                    self.pending.insert(k, (self.generation, o));
                    self.order.push_back((k, self.generation));
                    while self.pending.len() > self.options.pending_limit && self.evict_oldest() {}
                }
            }
        }
    }

    /// Counts the request held longest; false when none is held.
    fn evict_oldest(&mut self) -> bool {
        while let Some((k, g)) = self.order.pop_front() {
            if self.pending.get(&k).is_some_and(|(pg, _)| *pg == g) {
                if let Some((_, o)) = self.pending.remove(&k) {
                    self.acc.add(self.replay, &o, self.options);
                }
                return true;
            }
        }
        false
    }

    fn finish(mut self) -> ReplayReport {
        // Chunks after a gap (none when every chunk arrived) are taken in order.
        let rest = std::mem::take(&mut self.waiting);
        for (_, r) in rest {
            self.take(r);
        }
        while self.evict_oldest() {}
        let replay = self.replay;
        let mut changes: BTreeMap<usize, Vec<Change>> = BTreeMap::new();
        for ((u, from, to), (count, samples)) in self.acc.changes {
            changes.entry(u).or_default().push(Change {
                from,
                to,
                count,
                samples,
            });
        }
        let mut hooks: Vec<std::vec::IntoIter<HookCounts>> =
            self.acc.hooks.into_iter().map(Vec::into_iter).collect();
        let mut current: Vec<Option<HookCounts>> = hooks
            .first_mut()
            .map(|h| h.map(Some).collect())
            .unwrap_or_default();
        let mut baseline: Vec<Option<HookCounts>> = hooks
            .get_mut(1)
            .map(|h| h.map(Some).collect())
            .unwrap_or_default();
        let webhooks = replay
            .union
            .iter()
            .enumerate()
            .map(|(u, (info, ci, bi))| {
                let mut ch = changes.remove(&u).unwrap_or_default();
                ch.sort_by(|a, b| {
                    (
                        a.to != DecisionClass::Reject,
                        a.to,
                        a.from,
                        std::cmp::Reverse(a.count),
                    )
                        .cmp(&(
                            b.to != DecisionClass::Reject,
                            b.to,
                            b.from,
                            std::cmp::Reverse(b.count),
                        ))
                });
                WebhookReport {
                    uid: info.uid.clone(),
                    configuration: info.configuration.clone(),
                    name: info.name.clone(),
                    kind: info.kind,
                    current: ci.and_then(|i| current.get_mut(i)).and_then(Option::take),
                    baseline: bi.and_then(|i| baseline.get_mut(i)).and_then(Option::take),
                    changes: ch,
                }
            })
            .collect();
        ReplayReport {
            input: self.acc.input,
            bad: self.bad,
            webhooks,
            has_baseline: replay.sides.len() > 1,
        }
    }
}

/// Counts the bytes read through it.
struct Counting<R> {
    inner: R,
    bytes: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Opens a source: gzip (by its magic bytes, several members read in turn) or plain.
fn open(
    source: Box<dyn Read + Send>,
    bytes: &Arc<AtomicU64>,
) -> io::Result<Box<dyn BufRead + Send>> {
    let mut raw = BufReader::with_capacity(
        256 * 1024,
        Counting {
            inner: source,
            bytes: Arc::clone(bytes),
        },
    );
    let head = raw.fill_buf()?;
    if head.starts_with(&[0x1f, 0x8b]) {
        Ok(Box::new(BufReader::with_capacity(
            256 * 1024,
            flate2::bufread::MultiGzDecoder::new(raw),
        )))
    } else {
        Ok(Box::new(raw))
    }
}

/// Reads one line into `buf` (without its newline), at most `max` bytes of it kept.
/// Returns `Ok(None)` at the end, `Ok(Some(false))` for a line that was too long.
fn read_line(r: &mut dyn BufRead, buf: &mut Vec<u8>, max: usize) -> io::Result<Option<bool>> {
    let start = buf.len();
    let mut fits = true;
    let mut any = false;
    loop {
        let available = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(any.then_some(fits));
        }
        any = true;
        let (part, found) = match memchr_newline(available) {
            Some(i) => (available.get(..i).unwrap_or_default(), Some(i)),
            None => (available, None),
        };
        if fits && buf.len() - start + part.len() <= max {
            buf.extend_from_slice(part);
        } else if fits {
            fits = false;
            buf.truncate(start);
        }
        let used = found.map_or(available.len(), |i| i + 1);
        r.consume(used);
        if found.is_some() {
            return Ok(Some(fits));
        }
    }
}

fn memchr_newline(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'\n')
}

/// The reader thread: every source in turn, cut into chunks of whole lines.
fn read_sources(
    sources: Vec<Source>,
    options: ReplayOptions,
    chunks: &mpsc::SyncSender<Chunk>,
    bytes: &Arc<AtomicU64>,
    lines: &AtomicU64,
) {
    let mut seq = 0u64;
    let new_chunk = |seq: u64, source: usize, first_line: u64| Chunk {
        seq,
        source,
        first_line,
        data: Vec::with_capacity(options.chunk_bytes + 4096),
        ends: Vec::new(),
        bad: Vec::new(),
    };
    for (source, s) in sources.into_iter().enumerate() {
        let mut line_no = 0u64;
        let mut chunk = new_chunk(seq, source, 1);
        let mut bad = Vec::new();
        let mut reader = match open(s.reader, bytes) {
            Ok(r) => Some(r),
            Err(e) => {
                bad.push(BadInput {
                    file: s.name.clone(),
                    line: 0,
                    message: format!("cannot read: {e}"),
                });
                None
            }
        };
        while let Some(r) = reader.as_mut() {
            match read_line(&mut **r, &mut chunk.data, options.max_line_bytes) {
                Ok(None) => break,
                Ok(Some(fits)) => {
                    line_no += 1;
                    lines.fetch_add(1, Ordering::Relaxed);
                    if !fits {
                        bad.push(BadInput {
                            file: s.name.clone(),
                            line: line_no,
                            message: format!(
                                "line longer than {} bytes, skipped",
                                options.max_line_bytes
                            ),
                        });
                    }
                    chunk.ends.push(chunk.data.len());
                    if chunk.data.len() >= options.chunk_bytes {
                        seq += 1;
                        let full =
                            std::mem::replace(&mut chunk, new_chunk(seq, source, line_no + 1));
                        let mut full = full;
                        full.bad = std::mem::take(&mut bad);
                        if chunks.send(full).is_err() {
                            return;
                        }
                    }
                }
                Err(e) => {
                    // What was read of the last line is kept: it is reported as cut short.
                    if chunk.ends.last().copied().unwrap_or(0) < chunk.data.len() {
                        line_no += 1;
                        lines.fetch_add(1, Ordering::Relaxed);
                        chunk.ends.push(chunk.data.len());
                    }
                    let what = if e.kind() == io::ErrorKind::UnexpectedEof {
                        "the gzip stream is cut short".to_owned()
                    } else {
                        e.to_string()
                    };
                    bad.push(BadInput {
                        file: s.name.clone(),
                        line: line_no + 1,
                        message: format!("read error after line {line_no}: {what}"),
                    });
                    break;
                }
            }
        }
        chunk.bad = bad;
        seq += 1;
        if chunks.send(chunk).is_err() {
            return;
        }
    }
}
