//! `matchcond replay`: audit logs replayed through webhook configurations (and a baseline),
//! reported as text, JSON or a self-contained HTML page.

use std::fs::File;
use std::io::IsTerminal;
use std::sync::Arc;

use clap::{Args, ValueEnum};
use matchcond::dispatch::audit::{
    Change, DecisionClass, HookCounts, Replay, ReplayOptions, ReplayReport, Sample, Side, Source,
    WebhookReport,
};
use matchcond::dispatch::request::Catalog;
use matchcond::dispatch::{Configuration, Dispatcher};
use matchcond::KubeVersion;
use serde_json::{json, Value as Json};

use crate::color::{Streams, Tone};
use crate::commands::hook_kind_word;
use crate::input::{self, InputError};
use crate::lint_cmd::SCHEMA_VERSION;
use crate::request_args;

/// The report's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReplayOutput {
    /// Human-readable lines.
    Text,
    /// One JSON object with a `schemaVersion`.
    Json,
    /// A self-contained HTML page with charts (no network needed to open it).
    Html,
}

/// The options of `matchcond replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// Audit logs (JSON lines, gzip too; `-` for standard input). Rotated files of one log
    /// are read oldest first.
    #[arg(long = "audit", required = true, num_args = 1.., value_name = "FILE")]
    pub audit: Vec<String>,
    /// The configurations to replay through.
    #[arg(long = "config", required = true, num_args = 1.., value_name = "FILE")]
    pub configs: Vec<String>,
    /// The configurations in place today: report the decisions that change.
    #[arg(long = "baseline", num_args = 1.., value_name = "FILE")]
    pub baseline: Vec<String>,
    /// CustomResourceDefinitions (YAML or JSON): the kinds of their resources.
    #[arg(long = "crd", num_args = 1.., value_name = "FILE")]
    pub crds: Vec<String>,
    /// Namespaces (`kubectl get ns -o yaml`): the labels namespaceSelectors read. Without
    /// them a namespaceSelector's answer is undetermined.
    #[arg(long = "namespace-object", num_args = 1.., value_name = "FILE")]
    pub namespace_objects: Vec<String>,
    /// A static authorizer table (YAML). Without it, conditions calling the authorizer are
    /// undetermined.
    #[arg(long, value_name = "FILE")]
    pub authorizer: Option<String>,
    /// The Kubernetes version (MAJOR.MINOR).
    #[arg(long = "k8s-version", value_name = "V", default_value_t = matchcond::KubeVersion::LATEST, value_parser = input::parse_version)]
    pub k8s_version: KubeVersion,
    /// Worker threads (0: one per core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
    /// Sample requests kept per webhook and change.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub samples: usize,
    /// The output format.
    #[arg(long, value_enum, default_value = "text")]
    pub output: ReplayOutput,
}

/// `--help`'s epilogue.
pub const HELP: &str = concat!(
    "Only requests that pass through admission count (create, update, patch, delete,\n",
    "deletecollection, connect), one per auditID; reads, requests refused by authentication\n",
    "or authorization, and updates, patches, deletes and creates answered 404 (no such\n",
    "object or namespace: refused before admission) are left out. A decision that depends\n",
    "on what the events do not record (the object at level Metadata, the old object at any\n",
    "level, a DELETE's options and dry run at level Metadata, namespace labels or an\n",
    "authorizer not given) is counted as undetermined, never guessed.\n",
    "Lines that cannot be read are reported with file and line; the replay goes on.\n\n",
    "Exit codes:\n  0  replayed; no request is rejected (with --baseline: no decision becomes a rejection)\n",
    "  1  replayed; the configurations reject requests (with --baseline: requests the baseline admits)\n",
    "  2  unusable input (unreadable files, no configuration, a bad option)\n\n",
    "JSON output (--output json): one object with \"schemaVersion\": 1; its fields are described in crates/matchcond-cli/README.md."
);

/// Reads the configurations of files (every one must load; invalid ones are decided as
/// stored, with a warning).
fn configurations(
    files: &[String],
    version: KubeVersion,
    paint: Streams,
) -> Result<Vec<Configuration>, InputError> {
    let mut out = Vec::new();
    for c in input::stored_configurations(files, version)? {
        if !c.errors.is_empty() {
            errln!(
                "{}",
                paint.err.tone(
                    Tone::Warning,
                    &format!(
                        "matchcond: warning: {} is invalid ({} error(s), see `matchcond lint`); replayed as if it were stored",
                        c.described(),
                        c.errors.len()
                    )
                )
            );
        }
        out.push(c.configuration);
    }
    if out.is_empty() {
        return Err(InputError(format!(
            "no webhook configuration in {}",
            files.join(", ")
        )));
    }
    Ok(out)
}

/// The order in which files are read: the rotated files of one log oldest first, then the
/// live one (`audit-2024-05-01T10-00-00.000.log.gz` before `audit.log`; logrotate's
/// `audit.log.2.gz` before `audit.log.1`); logs keep the order in which they were given.
pub fn read_order(files: &[String]) -> Vec<String> {
    fn key(path: &str) -> (String, u8, String, i64) {
        let file = path.rsplit('/').next().unwrap_or(path);
        let plain = file.strip_suffix(".gz").unwrap_or(file);
        // logrotate: NAME.N
        if let Some((base, n)) = plain.rsplit_once('.') {
            if let Ok(n) = n.parse::<i64>() {
                return (base.to_owned(), 0, String::new(), -n);
            }
        }
        // lumberjack: STEM-YYYY-MM-DDTHH-MM-SS.mmm.EXT
        let (stem_ts, ext) = plain.rsplit_once('.').unwrap_or((plain, ""));
        let (stem_ts, ms) = stem_ts.rsplit_once('.').unwrap_or((stem_ts, ""));
        if stem_ts.len() > 20 && ms.len() == 3 && ms.bytes().all(|b| b.is_ascii_digit()) {
            let (stem, ts) = stem_ts.split_at(stem_ts.len() - 19);
            if let Some(stem) = stem.strip_suffix('-') {
                if ts.as_bytes().get(10) == Some(&b'T') {
                    return (format!("{stem}.{ext}"), 0, format!("{ts}.{ms}"), 0);
                }
            }
        }
        (plain.to_owned(), 1, String::new(), 0)
    }
    let dir = |p: &str| {
        p.rsplit_once('/')
            .map_or(String::new(), |(d, _)| d.to_owned())
    };
    let keys: Vec<(String, (String, u8, String, i64))> = files
        .iter()
        .map(|f| (format!("{}/{}", dir(f), key(f).0), key(f)))
        .collect();
    let mut groups: Vec<String> = Vec::new();
    for (g, _) in &keys {
        if !groups.contains(g) {
            groups.push(g.clone());
        }
    }
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by(|&a, &b| {
        let at = |i: usize| {
            keys.get(i)
                .map(|(g, k)| (groups.iter().position(|x| x == g), k.1, k.2.clone(), k.3))
        };
        at(a).cmp(&at(b))
    });
    order
        .into_iter()
        .filter_map(|i| files.get(i).cloned())
        .collect()
}

fn open_sources(files: &[String]) -> Result<(Vec<Source>, Option<u64>), InputError> {
    let mut sources = Vec::new();
    let mut total = Some(0u64);
    for f in read_order(files) {
        if f == "-" {
            total = None;
            sources.push(Source::new("-", Box::new(std::io::stdin())));
            continue;
        }
        let file = File::open(&f).map_err(|e| InputError(format!("cannot read {f}: {e}")))?;
        let len = file.metadata().map(|m| m.len()).ok();
        total = total.zip(len).map(|(a, b)| a + b);
        sources.push(Source::new(f, Box::new(file)));
    }
    Ok((sources, total))
}

fn progress_bar(total: Option<u64>) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = match total {
        Some(t) => indicatif::ProgressBar::new(t),
        None => indicatif::ProgressBar::new_spinner(),
    };
    let template = if total.is_some() {
        "{elapsed_precise} [{bar:30}] {bytes}/{total_bytes} ({binary_bytes_per_sec}, eta {eta}) {msg}"
    } else {
        "{elapsed_precise} {spinner} {bytes} ({binary_bytes_per_sec}) {msg}"
    };
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// `matchcond replay`.
pub fn run(args: &ReplayArgs, paint: Streams) -> Result<u8, InputError> {
    let version = args.k8s_version;
    let current = configurations(&args.configs, version, paint)?;
    let baseline = if args.baseline.is_empty() {
        None
    } else {
        Some(configurations(&args.baseline, version, paint)?)
    };
    let (catalog, table) = request_args::resources(&args.crds, version)?;
    let namespaces = if args.namespace_objects.is_empty() {
        None
    } else {
        Some(request_args::namespaces(&args.namespace_objects)?)
    };
    let authorizer = match &args.authorizer {
        Some(p) => Some(Arc::new(input::read_authorizer(p)?)),
        None => None,
    };
    let side = |configs: &[Configuration]| {
        let d = Dispatcher::with_resources(configs, version, Arc::clone(&table) as _);
        Side::new(match &authorizer {
            Some(a) => d.with_authorizer(Arc::clone(a) as _),
            None => d,
        })
    };
    let replay = Replay::new(
        side(&current),
        baseline.as_deref().map(side),
        Arc::new(catalog),
        namespaces.map(|n| Arc::new(n) as _),
    );
    let (sources, total) = open_sources(&args.audit)?;
    let bar = progress_bar(total);
    let started = std::time::Instant::now();
    let options = ReplayOptions::default()
        .with_threads(args.threads)
        .with_samples(args.samples);
    let report = replay.run(sources, options, &|p| {
        bar.set_position(p.bytes);
        let secs = started.elapsed().as_secs_f64().max(1e-3);
        bar.set_message(format!(
            "{} lines, {:.0} lines/s",
            group(p.lines),
            p.lines as f64 / secs
        ));
    });
    bar.finish_and_clear();
    match args.output {
        ReplayOutput::Text => text(&report, paint),
        ReplayOutput::Json => outln!("{}", report_json(&report)),
        ReplayOutput::Html => outln!("{}", html(&report)),
    }
    Ok(exit_code(&report))
}

/// 1 when the configurations reject requests (with a baseline: requests it does not).
pub fn exit_code(report: &ReplayReport) -> u8 {
    let rejects = report.webhooks.iter().any(|w| {
        if report.has_baseline {
            w.changes.iter().any(|c| c.to == DecisionClass::Reject)
        } else {
            w.current.as_ref().is_some_and(|c| c.rejected > 0)
        }
    });
    u8::from(rejects)
}

/// `1234567` as `1,234,567`.
fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn sample_line(s: &Sample) -> String {
    let object = match (s.namespace.is_empty(), s.name.is_empty()) {
        (true, true) => String::new(),
        (true, false) => format!(" {}", s.name),
        (false, true) => format!(" {}/", s.namespace),
        (false, false) => format!(" {}/{}", s.namespace, s.name),
    };
    format!(
        "{} {} {} {}{} by {}",
        s.time, s.audit_id, s.operation, s.resource, object, s.user
    )
}

fn counts_line(c: &HookCounts) -> String {
    format!(
        "selected {} (+{} with selectors undetermined): called {}, skipped by conditions {}, rejected {}, errors ignored {}, undetermined {}",
        group(c.selected),
        group(c.selector_undetermined),
        group(c.called),
        group(c.skipped),
        group(c.rejected),
        group(c.error_ignored),
        group(c.undetermined)
    )
}

fn text(report: &ReplayReport, paint: Streams) {
    let i = &report.input;
    outln!(
        "{} lines, {} events: {} requests through admission; left out: {} reads, {} non-resource, {} unauthenticated, {} throttled, {} forbidden, {} not found; {} bad",
        group(i.lines),
        group(i.events),
        group(i.admitted),
        group(i.reads),
        group(i.non_resource),
        group(i.unauthenticated),
        group(i.throttled),
        group(i.forbidden),
        group(i.not_found),
        group(i.bad)
    );
    for b in &report.bad {
        outln!(
            "  {}",
            paint.out.tone(
                Tone::Warning,
                &format!("{}:{}: {}", b.file, b.line, b.message)
            )
        );
    }
    if i.bad > report.bad.len() as u64 {
        outln!("  … and {} more", group(i.bad - report.bad.len() as u64));
    }
    for w in &report.webhooks {
        outln!();
        outln!(
            "{} {} ({})",
            paint.out.strong("webhook"),
            paint.out.strong(&format!("{}/{}", w.configuration, w.name)),
            hook_kind_word(w.kind)
        );
        match &w.current {
            Some(c) => {
                outln!("  {}", counts_line(c));
                for cc in &c.conditions {
                    outln!(
                        "    {:<24} skipped {}  false {}  errors {}  undetermined {}",
                        cc.name,
                        group(cc.skipped),
                        group(cc.r#false),
                        group(cc.errors),
                        group(cc.undetermined)
                    );
                }
                for s in &c.rejected_samples {
                    outln!(
                        "    {} {}",
                        paint.out.label(Tone::Error, "rejected"),
                        sample_line(s)
                    );
                }
            }
            None => outln!("  not in the configurations replayed"),
        }
        if report.has_baseline {
            match &w.baseline {
                Some(b) => outln!("  baseline: {}", counts_line(b)),
                None => outln!("  baseline: not in the baseline"),
            }
            if w.changes.is_empty() {
                outln!("  no decision changes");
            }
            for c in &w.changes {
                let tone = if c.to == DecisionClass::Reject {
                    Tone::Error
                } else {
                    Tone::Warning
                };
                outln!(
                    "  {} {}",
                    paint
                        .out
                        .label(tone, &format!("{} -> {}:", c.from.as_str(), c.to.as_str())),
                    group(c.count)
                );
                for s in &c.samples {
                    outln!("    {}", sample_line(s));
                }
            }
        }
    }
}

fn sample_json(s: &Sample) -> Json {
    json!({
        "auditID": s.audit_id,
        "user": s.user,
        "resource": s.resource,
        "namespace": s.namespace,
        "name": s.name,
        "operation": s.operation,
        "time": s.time,
    })
}

fn counts_json(c: &HookCounts) -> Json {
    json!({
        "selected": c.selected,
        "selectorUndetermined": c.selector_undetermined,
        "called": c.called,
        "skipped": c.skipped,
        "rejected": c.rejected,
        "errorsIgnored": c.error_ignored,
        "undetermined": c.undetermined,
        "conditions": c.conditions.iter().map(|cc| json!({
            "name": cc.name,
            "skipped": cc.skipped,
            "false": cc.r#false,
            "errors": cc.errors,
            "undetermined": cc.undetermined,
        })).collect::<Vec<_>>(),
        "rejectedSamples": c.rejected_samples.iter().map(sample_json).collect::<Vec<_>>(),
        "callsPerMinute": c.calls_by_minute.iter().map(|(m, n)| json!({
            "minute": minute_text(*m),
            "calls": n,
        })).collect::<Vec<_>>(),
    })
}

fn change_json(c: &Change) -> Json {
    json!({
        "from": c.from.as_str(),
        "to": c.to.as_str(),
        "count": c.count,
        "samples": c.samples.iter().map(sample_json).collect::<Vec<_>>(),
    })
}

fn webhook_json(w: &WebhookReport) -> Json {
    json!({
        "uid": w.uid,
        "configuration": w.configuration,
        "name": w.name,
        "kind": hook_kind_word(w.kind),
        "current": w.current.as_ref().map_or(Json::Null, counts_json),
        "baseline": w.baseline.as_ref().map_or(Json::Null, counts_json),
        "changes": w.changes.iter().map(change_json).collect::<Vec<_>>(),
    })
}

/// The JSON report (see the README).
pub fn report_json(report: &ReplayReport) -> Json {
    let i = &report.input;
    json!({
        "schemaVersion": SCHEMA_VERSION,
        "input": {
            "bytes": i.bytes,
            "lines": i.lines,
            "events": i.events,
            "admitted": i.admitted,
            "reads": i.reads,
            "nonResource": i.non_resource,
            "unauthenticated": i.unauthenticated,
            "throttled": i.throttled,
            "forbidden": i.forbidden,
            "notFound": i.not_found,
            "bad": i.bad,
        },
        "badLines": report.bad.iter().map(|b| json!({
            "file": b.file, "line": b.line, "message": b.message,
        })).collect::<Vec<_>>(),
        "hasBaseline": report.has_baseline,
        "webhooks": report.webhooks.iter().map(webhook_json).collect::<Vec<_>>(),
    })
}

/// A Unix minute as `2024-05-01T12:34Z`.
fn minute_text(m: i64) -> String {
    let days = m.div_euclid(1440);
    let rest = m.rem_euclid(1440);
    // Civil date from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(mo <= 2);
    format!("{y:04}-{mo:02}-{d:02}T{:02}:{:02}Z", rest / 60, rest % 60)
}

fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const COLOURS: [&str; 8] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// Horizontal bars: calls per webhook, now and (when given) in the baseline.
fn bars_svg(report: &ReplayReport) -> String {
    let rows: Vec<(String, u64, Option<u64>)> = report
        .webhooks
        .iter()
        .map(|w| {
            (
                w.name.clone(),
                w.current.as_ref().map_or(0, |c| c.called),
                report
                    .has_baseline
                    .then(|| w.baseline.as_ref().map_or(0, |c| c.called)),
            )
        })
        .collect();
    let max = rows
        .iter()
        .map(|(_, a, b)| (*a).max(b.unwrap_or(0)))
        .max()
        .unwrap_or(0)
        .max(1);
    let per = if report.has_baseline { 34 } else { 22 };
    let height = 30 + rows.len() * per;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" height=\"{height}\" role=\"img\" aria-label=\"calls per webhook\">"
    );
    let width = |n: u64| 560.0 * n as f64 / max as f64;
    for (i, (name, now, before)) in rows.iter().enumerate() {
        let y = 20 + i * per;
        svg.push_str(&format!(
            "<text x=\"0\" y=\"{}\" class=\"label\">{}</text>",
            y + 12,
            esc(name)
        ));
        svg.push_str(&format!(
            "<rect x=\"300\" y=\"{y}\" width=\"{:.1}\" height=\"14\" fill=\"#1f77b4\"><title>now: {now}</title></rect><text x=\"{:.1}\" y=\"{}\" class=\"num\">{}</text>",
            width(*now),
            305.0 + width(*now),
            y + 12,
            group(*now)
        ));
        if let Some(b) = before {
            let y = y + 15;
            svg.push_str(&format!(
                "<rect x=\"300\" y=\"{y}\" width=\"{:.1}\" height=\"12\" fill=\"#aaaaaa\"><title>baseline: {b}</title></rect><text x=\"{:.1}\" y=\"{}\" class=\"num\">{}</text>",
                width(*b),
                305.0 + width(*b),
                y + 10,
                group(*b)
            ));
        }
    }
    svg.push_str("</svg>");
    svg
}

/// Calls per minute, one line per webhook.
fn timeline_svg(report: &ReplayReport) -> String {
    let series: Vec<(&str, &std::collections::BTreeMap<i64, u64>)> = report
        .webhooks
        .iter()
        .filter_map(|w| {
            w.current
                .as_ref()
                .map(|c| (w.name.as_str(), &c.calls_by_minute))
        })
        .collect();
    let first = series
        .iter()
        .filter_map(|(_, m)| m.keys().next())
        .min()
        .copied();
    let last = series
        .iter()
        .filter_map(|(_, m)| m.keys().last())
        .max()
        .copied();
    let (Some(first), Some(last)) = (first, last) else {
        return "<p>No call has a timestamp.</p>".to_owned();
    };
    let span = (last - first).max(1) as f64;
    let max = series
        .iter()
        .flat_map(|(_, m)| m.values())
        .max()
        .copied()
        .unwrap_or(1)
        .max(1) as f64;
    let (w, h, left, top) = (860.0, 240.0, 50.0, 10.0);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"920\" height=\"{}\" role=\"img\" aria-label=\"calls over time\">",
        h + 60.0 + 18.0 * series.len() as f64
    );
    svg.push_str(&format!(
        "<line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\"/><line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{}\" stroke=\"#888\"/>",
        top + h,
        left + w,
        top + h,
        top + h
    ));
    svg.push_str(&format!(
        "<text x=\"0\" y=\"{}\" class=\"num\">{}</text><text x=\"0\" y=\"{}\" class=\"num\">0</text>",
        top + 10.0,
        max,
        top + h
    ));
    svg.push_str(&format!(
        "<text x=\"{left}\" y=\"{}\" class=\"num\">{}</text><text x=\"{}\" y=\"{}\" class=\"num\" text-anchor=\"end\">{}</text>",
        top + h + 16.0,
        minute_text(first),
        left + w,
        top + h + 16.0,
        minute_text(last)
    ));
    for (i, (name, m)) in series.iter().enumerate() {
        let colour = COLOURS.get(i % COLOURS.len()).copied().unwrap_or("#000");
        let points: Vec<String> = (first..=last)
            .filter(|t| m.contains_key(t) || span < 2000.0)
            .map(|t| {
                let n = m.get(&t).copied().unwrap_or(0) as f64;
                format!(
                    "{:.1},{:.1}",
                    left + w * (t - first) as f64 / span,
                    top + h - h * n / max
                )
            })
            .collect();
        svg.push_str(&format!(
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.5\" points=\"{}\"/>",
            points.join(" ")
        ));
        let y = top + h + 36.0 + 18.0 * i as f64;
        svg.push_str(&format!(
            "<rect x=\"{left}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{colour}\"/><text x=\"{}\" y=\"{y}\" class=\"label\">{}</text>",
            y - 10.0,
            left + 18.0,
            esc(name)
        ));
    }
    svg.push_str("</svg>");
    svg
}

fn counts_row(label: &str, c: Option<&HookCounts>) -> String {
    match c {
        None => format!("<tr><th>{label}</th><td colspan=\"7\">absent</td></tr>"),
        Some(c) => format!(
            "<tr><th>{label}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            group(c.selected),
            group(c.selector_undetermined),
            group(c.called),
            group(c.skipped),
            group(c.rejected),
            group(c.error_ignored),
            group(c.undetermined)
        ),
    }
}

/// The self-contained HTML page: inline CSS and SVG, no script, no external resource.
pub fn html(report: &ReplayReport) -> String {
    let i = &report.input;
    let mut page = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>matchcond replay</title><style>\
body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:.5em 0 1em}\
th,td{border:1px solid #ccc;padding:2px 8px;text-align:right}th{background:#f4f4f4}td.l,th.l{text-align:left}\
.label{font-size:12px}.num{font-size:11px;fill:#444}.bad{color:#b00}h2{margin-top:2em}code{font-size:90%}\
</style></head><body><h1>matchcond replay</h1>",
    );
    page.push_str(&format!(
        "<p>{} lines, {} events: <b>{} requests through admission</b>; left out: {} reads, {} non-resource, {} unauthenticated, {} throttled, {} forbidden, {} not found; <span class=\"bad\">{} bad</span>.</p>",
        group(i.lines), group(i.events), group(i.admitted), group(i.reads), group(i.non_resource),
        group(i.unauthenticated), group(i.throttled), group(i.forbidden), group(i.not_found), group(i.bad)
    ));
    if !report.bad.is_empty() {
        page.push_str("<details><summary>Lines that could not be read</summary><ul>");
        for b in &report.bad {
            page.push_str(&format!(
                "<li><code>{}:{}</code>: {}</li>",
                esc(&b.file),
                b.line,
                esc(&b.message)
            ));
        }
        page.push_str("</ul></details>");
    }
    page.push_str(&format!(
        "<h2>Calls per webhook{}</h2>{}",
        if report.has_baseline {
            " (blue: now, grey: baseline)"
        } else {
            ""
        },
        bars_svg(report)
    ));
    page.push_str(&format!(
        "<h2>Calls over time (per minute)</h2>{}",
        timeline_svg(report)
    ));
    for w in &report.webhooks {
        page.push_str(&format!(
            "<h2>{} <small>({}, {})</small></h2>",
            esc(&w.name),
            esc(&w.configuration),
            hook_kind_word(w.kind)
        ));
        page.push_str("<table><tr><th></th><th>selected</th><th>selectors undetermined</th><th>called</th><th>skipped</th><th>rejected</th><th>errors ignored</th><th>undetermined</th></tr>");
        page.push_str(&counts_row("now", w.current.as_ref()));
        if report.has_baseline {
            page.push_str(&counts_row("baseline", w.baseline.as_ref()));
        }
        page.push_str("</table>");
        if let Some(c) = &w.current {
            page.push_str("<table><tr><th class=\"l\">condition</th><th>skipped</th><th>false</th><th>errors</th><th>undetermined</th></tr>");
            for cc in &c.conditions {
                page.push_str(&format!(
                    "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    esc(&cc.name),
                    group(cc.skipped),
                    group(cc.r#false),
                    group(cc.errors),
                    group(cc.undetermined)
                ));
            }
            page.push_str("</table>");
        }
        if !w.changes.is_empty() {
            page.push_str("<table><tr><th class=\"l\">change</th><th>requests</th><th class=\"l\">samples</th></tr>");
            for c in &w.changes {
                let samples: Vec<String> = c.samples.iter().map(|s| esc(&sample_line(s))).collect();
                page.push_str(&format!(
                    "<tr><td class=\"l{}\">{} &rarr; {}</td><td>{}</td><td class=\"l\"><code>{}</code></td></tr>",
                    if c.to == DecisionClass::Reject { " bad" } else { "" },
                    c.from.as_str(),
                    c.to.as_str(),
                    group(c.count),
                    samples.join("<br>")
                ));
            }
            page.push_str("</table>");
        }
    }
    page.push_str("</body></html>");
    page
}

/// One level's figures of `matchcond bench --replay`.
struct LevelFigures {
    level: &'static str,
    events: u64,
    bytes: u64,
    floor: Vec<f64>,
    replay: Vec<f64>,
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// The peak resident memory of the process so far (Linux `VmHWM`), in bytes.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// `matchcond bench --replay`: generated audit logs (Metadata and RequestResponse levels)
/// replayed through `examples/webhooks.yaml`'s configurations beside the floor (the same
/// reading and parsing of each line into an event, nothing more), on every core, several
/// runs each, side by side; medians.
pub fn bench(quick: bool, output: crate::Output) -> Result<u8, InputError> {
    use matchcond_bench::audit_log::{self, Level, Spec};
    let configs = matchcond::dispatch::load_documents(audit_log::CONFIGURATIONS)
        .map_err(|e| InputError(format!("examples/webhooks.yaml: {e}")))?;
    let version = KubeVersion::LATEST;
    let replay = Replay::new(
        Side::new(Dispatcher::new(&configs, version)),
        None,
        Arc::new(Catalog::builtin_for(version)),
        None,
    );
    let threads = ReplayOptions::default().threads;
    let runs = if quick { 3 } else { 7 };
    let mut figures = Vec::new();
    for (level, name, requests) in [
        (
            Level::Metadata,
            "Metadata",
            if quick { 100_000 } else { 1_000_000 },
        ),
        (
            Level::RequestResponse,
            "RequestResponse",
            if quick { 20_000 } else { 200_000 },
        ),
    ] {
        let mut log = Vec::new();
        let lines = audit_log::write(&mut log, &Spec::new(level, requests))
            .map_err(|e| InputError(e.to_string()))?;
        let log: Arc<[u8]> = log.into();
        let source = || {
            vec![Source::new(
                "generated",
                Box::new(std::io::Cursor::new(Arc::clone(&log))) as Box<dyn std::io::Read + Send>,
            )]
        };
        let options = ReplayOptions::default();
        let mut f = LevelFigures {
            level: name,
            events: lines,
            bytes: log.len() as u64,
            floor: Vec::new(),
            replay: Vec::new(),
        };
        for _ in 0..runs {
            let t = std::time::Instant::now();
            let (events, _) = matchcond::dispatch::audit::parse_only(source(), options);
            f.floor.push(events as f64 / t.elapsed().as_secs_f64());
            let t = std::time::Instant::now();
            let report = replay.run(source(), options, &|_| {});
            f.replay
                .push(report.input.events as f64 / t.elapsed().as_secs_f64());
        }
        figures.push(f);
    }
    let peak = peak_rss();
    match output {
        crate::Output::Text => {
            outln!(
                "replay through examples/webhooks.yaml on {threads} threads, median of {runs} runs (floor: the same reading, each line parsed into an event)"
            );
            outln!(
                "{:<16} {:>10} {:>10} {:>16} {:>16} {:>8}",
                "level",
                "events",
                "MB",
                "floor events/s",
                "replay events/s",
                "ratio"
            );
            for f in &figures {
                let (fl, re) = (median(&f.floor), median(&f.replay));
                outln!(
                    "{:<16} {:>10} {:>10.1} {:>16} {:>16} {:>8.2}",
                    f.level,
                    group(f.events),
                    f.bytes as f64 / 1e6,
                    group(fl as u64),
                    group(re as u64),
                    fl / re.max(1.0)
                );
            }
            if let Some(p) = peak {
                outln!("peak resident memory of the process: {:.1} MB (the logs are generated in memory)", p as f64 / 1e6);
            }
        }
        crate::Output::Json => outln!(
            "{}",
            json!({
                "schemaVersion": SCHEMA_VERSION,
                "threads": threads,
                "runs": runs,
                "levels": figures.iter().map(|f| json!({
                    "level": f.level,
                    "events": f.events,
                    "bytes": f.bytes,
                    "floorEventsPerSecond": median(&f.floor).round(),
                    "replayEventsPerSecond": median(&f.replay).round(),
                    "ratio": median(&f.floor) / median(&f.replay).max(1.0),
                })).collect::<Vec<_>>(),
                "peakResidentBytes": peak,
            })
        ),
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotated_files_are_read_oldest_first() {
        let files: Vec<String> = [
            "/var/log/audit.log",
            "/var/log/audit-2024-05-02T00-00-00.000.log.gz",
            "/var/log/audit-2024-05-01T00-00-00.000.log",
            "other.log",
            "kube.log.1",
            "kube.log.2.gz",
            "kube.log",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            read_order(&files),
            [
                "/var/log/audit-2024-05-01T00-00-00.000.log",
                "/var/log/audit-2024-05-02T00-00-00.000.log.gz",
                "/var/log/audit.log",
                "other.log",
                "kube.log.2.gz",
                "kube.log.1",
                "kube.log",
            ]
        );
    }

    #[test]
    fn minutes_are_written_as_utc_times() {
        assert_eq!(minute_text(0), "1970-01-01T00:00Z");
        assert_eq!(minute_text(1_714_566_840 / 60), "2024-05-01T12:34Z");
        assert_eq!(group(1_234_567), "1,234,567");
        assert_eq!(group(12), "12");
    }
}
