//! `matchcond lint`: every file and document reported, findings as
//! `FILE:LINE:COLUMN: SEVERITY[CODE]: …` (or JSON, SARIF, GitHub workflow commands, JUnit),
//! severities set per code, suppressions with their reasons, and the exit code from the
//! worst finding kept against `--fail-on`.

mod codes;
mod config;
mod formats;
mod suppress;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::ValueEnum;
use matchcond::dispatch::load::{load_text, Position, Severity};
use matchcond::dispatch::Configuration;
use matchcond::lint::{
    ConfigurationReport, CostRange, Finding, Linter, TextReport, VersionVerdict, WebhookReport,
};
use matchcond::KubeVersion;
use serde::Deserialize;
use serde_json::{json, Value as Json};

use crate::color::{Paint, Streams, Tone};
use crate::input::{self, InputError};
use config::LintConfig;
use suppress::{Marker, Source};

/// The version of the JSON output's shape.
pub const SCHEMA_VERSION: u32 = 1;

/// A severity as options and the configuration file write it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Errors.
    Error,
    /// Warnings (and errors).
    Warning,
    /// Notes (and warnings and errors).
    Note,
}

impl Level {
    fn severity(self) -> Severity {
        match self {
            Level::Error => Severity::Error,
            Level::Warning => Severity::Warning,
            Level::Note => Severity::Note,
        }
    }
}

/// The output formats of `lint`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LintOutput {
    /// Human-readable lines.
    Text,
    /// One JSON object with a `schemaVersion` (see crates/matchcond-cli/README.md).
    Json,
    /// SARIF 2.1.0 (code scanning).
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
    /// JUnit XML: a test case per configuration and webhook.
    Junit,
}

/// The options of `lint`.
#[derive(Debug)]
pub struct Options {
    /// Files and folders (`-`: standard input).
    pub files: Vec<String>,
    /// The stored configurations (`--old`).
    pub old: Option<String>,
    /// Compute the versions that accept each configuration.
    pub compatibility: bool,
    /// The version linted for.
    pub version: KubeVersion,
    /// The output format.
    pub output: LintOutput,
    /// The exit threshold (`None`: the configuration file's, else errors).
    pub fail_on: Option<Level>,
    /// `CODE=LEVEL` severities.
    pub severities: Vec<String>,
    /// The configuration file (`None`: `.matchcond.yaml` found from each file upwards).
    pub lint_config: Option<String>,
    /// Findings only.
    pub quiet: bool,
    /// Also files without findings, and what was suppressed.
    pub verbose: bool,
}

/// Parses `--severity CODE=LEVEL`.
pub fn parse_severity(text: &str) -> Result<String, String> {
    let (code, level) = text
        .split_once('=')
        .ok_or_else(|| format!("expected CODE=LEVEL, got {text:?}"))?;
    config::check_code(code)?;
    Level::from_str(level, false)
        .map_err(|_| format!("unknown level {level:?} (expected error, warning or note)"))?;
    Ok(text.to_owned())
}

/// One finding as reported: the linter's or the command's own, with its severity after the
/// configuration.
#[derive(Clone, Debug)]
pub struct Item {
    /// The severity reported.
    pub severity: Severity,
    /// The severity the finding has by default.
    pub default_severity: Severity,
    /// The code.
    pub code: String,
    /// The message.
    pub message: String,
    /// The help.
    pub help: Option<String>,
    /// The field path.
    pub path: String,
    /// The position in the file.
    pub position: Option<Position>,
    /// The expression snippet.
    pub snippet: Option<String>,
    /// The JSON form (severity fields set when written).
    json: Json,
    /// `Kind name: ` for text output.
    pub context: String,
    /// Where it belongs in the JSON tree.
    slot: Slot,
    /// The configuration (index among the file's configurations).
    pub configuration: Option<usize>,
    /// The webhook (index and name).
    pub webhook: Option<(usize, String)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Document(usize),
    Configuration(usize, usize),
    File,
}

/// A suppressed finding.
#[derive(Clone, Debug)]
pub struct Suppressed {
    /// The finding.
    pub item: Item,
    /// The reason given.
    pub reason: String,
    /// Annotation, comment or configuration file.
    pub source: Source,
    /// Where the suppression is written (`FILE:LINE:COLUMN`).
    pub by: String,
    /// The file it is written in.
    pub by_file: String,
}

/// One configuration of a file, for the formats.
#[derive(Clone, Debug)]
pub struct ConfigSummary {
    /// `ValidatingWebhookConfiguration` or `MutatingWebhookConfiguration`.
    pub kind: &'static str,
    /// Its name.
    pub name: String,
    /// Its webhooks' names.
    pub webhooks: Vec<String>,
}

/// One input's outcome.
#[derive(Debug)]
pub struct FileOutcome {
    /// The name shown.
    pub name: String,
    /// Why it could not be read.
    pub error: Option<String>,
    report: Option<TextReport>,
    /// The findings reported.
    pub items: Vec<Item>,
    /// The findings suppressed.
    pub suppressed: Vec<Suppressed>,
    /// Its configurations.
    pub configurations: Vec<ConfigSummary>,
    /// An unrendered Helm template found in a folder (its syntax error is a note).
    pub template: bool,
}

fn old_configurations(path: &str) -> Result<Vec<Configuration>, InputError> {
    let name = input::display_name(path);
    let (_, loaded) = input::read_configurations(path)?;
    if let Some(d) = loaded
        .diagnostics()
        .into_iter()
        .find(|d| d.severity() == Severity::Error)
    {
        return Err(InputError(format!("{name}:{d}")));
    }
    Ok(loaded.configurations().cloned().collect())
}

/// The extensions linted in folders.
const EXTENSIONS: [&str; 3] = ["yaml", "yml", "json"];

/// The files of a folder, recursively, in sorted order (hidden entries skipped).
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), InputError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| InputError(format!("{}: cannot read: {e}", dir.display())))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            !p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('.'))
        })
        .collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            walk(&p, out)?;
        } else if p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTENSIONS.contains(&e))
        {
            out.push(p);
        }
    }
    Ok(())
}

/// The inputs: files as given, folders walked (`true`: found in a folder).
fn expand(files: &[String]) -> Vec<Result<(String, bool), (String, String)>> {
    let mut out = Vec::new();
    for f in files {
        let p = Path::new(f);
        if f != "-" && p.is_dir() {
            let mut found = Vec::new();
            match walk(p, &mut found) {
                Err(e) => out.push(Err((f.clone(), e.0))),
                Ok(()) if found.is_empty() => out.push(Err((
                    f.clone(),
                    "the folder holds no .yaml, .yml or .json file".to_owned(),
                ))),
                Ok(()) => out.extend(
                    found
                        .into_iter()
                        .map(|p| Ok((p.display().to_string(), true))),
                ),
            }
        } else {
            out.push(Ok((f.clone(), false)));
        }
    }
    out
}

/// The configuration files in use, by path.
struct Configs {
    explicit: Option<usize>,
    loaded: Vec<(LintConfig, Vec<usize>)>,
    by_path: BTreeMap<PathBuf, usize>,
    /// Per allow entry (config, entry): linted a file it covers.
    exercised: Vec<Vec<bool>>,
}

impl Configs {
    fn for_file(&mut self, file: Option<&Path>) -> Result<Option<usize>, InputError> {
        if self.explicit.is_some() {
            return Ok(self.explicit);
        }
        let start = file.map_or_else(|| PathBuf::from("stdin"), Path::to_path_buf);
        let Some(found) = LintConfig::find_for(&start) else {
            return Ok(None);
        };
        if let Some(&i) = self.by_path.get(&found) {
            return Ok(Some(i));
        }
        let c = LintConfig::load(&found)?;
        let n = c.form.allow.len();
        self.loaded.push((c, vec![0; n]));
        self.exercised.push(vec![false; n]);
        let i = self.loaded.len() - 1;
        self.by_path.insert(found, i);
        Ok(Some(i))
    }
}

fn finding_item(
    f: &Finding,
    slot: Slot,
    context: String,
    configuration: Option<usize>,
    report: Option<&ConfigurationReport>,
) -> Item {
    let (h, _) = suppress::path_indexes(f.path());
    let webhook = match (h, report) {
        (Some(h), Some(r)) => r.webhooks.get(h).map(|w| (h, w.name.clone())),
        _ => None,
    };
    Item {
        severity: f.severity(),
        default_severity: f.severity(),
        code: f.code().as_str().to_owned(),
        message: f.message().to_owned(),
        help: f.help().map(str::to_owned),
        path: f.path().to_owned(),
        position: f.position(),
        snippet: f.span().map(|s| s.snippet.clone()),
        json: finding_json(f),
        context,
        slot,
        configuration,
        webhook,
    }
}

/// A finding of the command itself.
fn own_item(
    severity: Severity,
    code: &str,
    message: String,
    help: Option<String>,
    position: Option<Position>,
    configuration: Option<usize>,
    slot: Slot,
) -> Item {
    let json = json!({
        "severity": severity.as_str(),
        "code": code,
        "message": message,
        "help": help,
        "path": "",
        "line": position.map(|p| p.line),
        "column": position.map(|p| p.column),
        "span": null,
        "operations": [],
        "versions": [],
        "fieldError": null,
    });
    Item {
        severity,
        default_severity: severity,
        code: code.to_owned(),
        message,
        help,
        path: String::new(),
        position,
        snippet: None,
        json,
        context: String::new(),
        slot,
        configuration,
        webhook: None,
    }
}

const HELM_HINT: &str = "this looks like an unrendered Helm template: render it first (helm template RELEASE CHART > rendered.yaml) and lint the output";

/// Lints one text into items.
fn lint_one(name: String, text: &str, linter: &Linter, walked: bool) -> FileOutcome {
    let report = linter.lint_text(text);
    let mut items = Vec::new();
    let mut configurations = Vec::new();
    let helm = text.contains("{{");
    let mut template = false;
    let mut k = 0;
    for (d, doc) in report.documents.iter().enumerate() {
        for f in &doc.findings {
            items.push(finding_item(
                f,
                Slot::Document(d),
                String::new(),
                None,
                None,
            ));
        }
        for (c, conf) in doc.configurations.iter().enumerate() {
            let context = format!(
                "{}: ",
                crate::input::configuration_label(conf.kind.configuration_kind(), &conf.name)
            );
            for f in &conf.findings {
                items.push(finding_item(
                    f,
                    Slot::Configuration(d, c),
                    context.clone(),
                    Some(k),
                    Some(conf),
                ));
            }
            configurations.push(ConfigSummary {
                kind: conf.kind.configuration_kind(),
                name: conf.name.clone(),
                webhooks: conf.webhooks.iter().map(|w| w.name.clone()).collect(),
            });
            k += 1;
        }
    }
    for f in &report.findings {
        let mut item = finding_item(f, Slot::File, String::new(), None, None);
        if helm && matches!(item.code.as_str(), "syntax" | "noConfiguration") {
            item.help = Some(HELM_HINT.to_owned());
            set(&mut item.json, "help", json!(HELM_HINT));
            // A chart's template found in a folder is not an input to lint.
            if walked && item.code == "syntax" {
                item.severity = Severity::Note;
                template = true;
            }
        }
        items.push(item);
    }
    // Suppressions written in the file.
    let mut suppressed = Vec::new();
    if suppress::may_hold_markers(text) {
        let loaded = load_text(text);
        let (mut markers, problems) = suppress::markers(text, &loaded);
        let mut kept = Vec::new();
        for item in items {
            match markers.iter_mut().find(|m| covers(m, &item)) {
                Some(m) => {
                    m.uses += 1;
                    suppressed.push(Suppressed {
                        reason: m.reason.clone(),
                        source: m.source,
                        by: format!("{name}:{}", m.position),
                        by_file: name.clone(),
                        item,
                    });
                }
                None => kept.push(item),
            }
        }
        items = kept;
        let slot_of = |k: usize| {
            let mut n = 0;
            for (d, doc) in report.documents.iter().enumerate() {
                for c in 0..doc.configurations.len() {
                    if n == k {
                        return Slot::Configuration(d, c);
                    }
                    n += 1;
                }
            }
            Slot::File
        };
        for p in problems {
            items.push(own_item(
                Severity::Warning,
                codes::INVALID_SUPPRESSION,
                p.message,
                Some(codes::describe(codes::INVALID_SUPPRESSION).1.to_owned()),
                Some(p.position),
                Some(p.configuration),
                slot_of(p.configuration),
            ));
        }
        for m in markers.iter().filter(|m| m.uses == 0) {
            items.push(own_item(
                Severity::Warning,
                codes::UNUSED_SUPPRESSION,
                suppress::unused_message(&m.codes, &m.webhooks, m.source.as_str()),
                Some(codes::describe(codes::UNUSED_SUPPRESSION).1.to_owned()),
                Some(m.position),
                Some(m.configuration),
                slot_of(m.configuration),
            ));
        }
    }
    FileOutcome {
        name,
        error: None,
        report: Some(report),
        items,
        suppressed,
        configurations,
        template,
    }
}

fn covers(m: &Marker, item: &Item) -> bool {
    let (_, condition) = suppress::path_indexes(&item.path);
    m.covers(
        &item.code,
        item.configuration,
        item.webhook.as_ref().map(|(i, n)| (*i, n.as_str())),
        condition,
    )
}

/// `matchcond lint`.
pub fn lint(opts: &Options, paint: Streams) -> Result<u8, InputError> {
    let olds = match &opts.old {
        Some(p) => old_configurations(p)?,
        None => Vec::new(),
    };
    let linter = Linter::new(opts.version)
        .with_old_configurations(olds)
        .with_compatibility(opts.compatibility);
    let mut configs = Configs {
        explicit: None,
        loaded: Vec::new(),
        by_path: BTreeMap::new(),
        exercised: Vec::new(),
    };
    if let Some(path) = &opts.lint_config {
        let c = LintConfig::load(Path::new(path))?;
        let n = c.form.allow.len();
        configs.loaded.push((c, vec![0; n]));
        configs.exercised.push(vec![false; n]);
        configs.explicit = Some(0);
    }
    let overrides: Vec<(String, Severity)> = opts
        .severities
        .iter()
        .filter_map(|s| {
            let (code, level) = s.split_once('=')?;
            Some((
                code.to_owned(),
                Level::from_str(level, false).ok()?.severity(),
            ))
        })
        .collect();
    let mut results = Vec::new();
    let mut fail_on_config = None;
    // The folders linted whole: an allow entry of a configuration file in (or below) one of
    // them that suppressed nothing is reported (a list of files, as pre-commit passes, may
    // leave out the file it is for).
    let walked_roots: Vec<PathBuf> = opts
        .files
        .iter()
        .filter(|f| *f != "-" && Path::new(f).is_dir())
        .filter_map(|f| std::path::absolute(f).ok())
        .map(|p| config::normalize(&p))
        .collect();
    for input in expand(&opts.files) {
        let file = match input {
            Err((name, error)) => {
                results.push((
                    FileOutcome {
                        name,
                        error: Some(error),
                        report: None,
                        items: Vec::new(),
                        suppressed: Vec::new(),
                        configurations: Vec::new(),
                        template: false,
                    },
                    None,
                ));
                continue;
            }
            Ok(f) => f,
        };
        let (file, walked) = file;
        let name = input::display_name(&file).to_owned();
        let path = (file != "-").then(|| PathBuf::from(&file));
        let config = configs.for_file(path.as_deref())?;
        let outcome = match input::read_text(&file) {
            Err(e) => FileOutcome {
                error: Some(
                    e.0.strip_prefix(&format!("{name}: "))
                        .unwrap_or(&e.0)
                        .to_owned(),
                ),
                name,
                report: None,
                items: Vec::new(),
                suppressed: Vec::new(),
                configurations: Vec::new(),
                template: false,
            },
            Ok(text) => lint_one(name, &text, &linter, walked),
        };
        if let Some(c) = config {
            if let Some((lc, _)) = configs.loaded.get(c) {
                fail_on_config = fail_on_config.or(lc.form.fail_on);
            }
        }
        results.push((outcome, config.map(|c| (c, path))));
    }
    let configuration_count: usize = results.iter().map(|(r, _)| r.configurations.len()).sum();
    // The configuration files' severities and allow entries, then the command line's.
    for (outcome, config) in &mut results {
        let lc = config
            .as_ref()
            .and_then(|(c, p)| configs.loaded.get_mut(*c).map(|l| (*c, l, p)));
        let mut kept = Vec::new();
        let (config_index, relative, mut lc) = match lc {
            Some((ci, (l, uses), p)) => {
                let rel = p.as_deref().and_then(|p| l.relative(p));
                (Some(ci), rel, Some((l, uses)))
            }
            None => (None, None, None),
        };
        if let (Some(ci), Some((l, _))) = (config_index, lc.as_ref()) {
            for (e, entry) in l.form.allow.iter().enumerate() {
                let webhook_present = entry.webhooks.is_empty()
                    || outcome
                        .configurations
                        .iter()
                        .any(|c| c.webhooks.iter().any(|w| entry.covers_webhook(Some(w))));
                if entry.covers_file(relative.as_deref()) && webhook_present {
                    if let Some(x) = configs.exercised.get_mut(ci).and_then(|v| v.get_mut(e)) {
                        *x = true;
                    }
                }
            }
        }
        for mut item in std::mem::take(&mut outcome.items) {
            // Inputs as found in a repository: what holds no webhook configuration is
            // information, unless no input holds any.
            if matches!(item.code.as_str(), "noConfiguration" | "notAnObject")
                && configuration_count > 0
            {
                item.severity = Severity::Note;
            }
            let mut suppressed_by = None;
            if let Some((l, uses)) = lc.as_mut() {
                if let Some(s) = l.form.severity.get(&config::CodeName(item.code.clone())) {
                    item.severity = s.severity();
                }
                let webhook = item.webhook.as_ref().map(|(_, n)| n.as_str());
                if let Some(e) = l.form.allow.iter().position(|e| {
                    e.allows(&item.code)
                        && e.covers_file(relative.as_deref())
                        && e.covers_webhook(webhook)
                }) {
                    if let Some(u) = uses.get_mut(e) {
                        *u += 1;
                    }
                    let (line, _) = l.entry_lines.get(e).copied().unwrap_or((0, 0));
                    suppressed_by = l.form.allow.get(e).map(|entry| {
                        (
                            l.name.clone(),
                            entry.reason.0.clone(),
                            if line > 0 {
                                format!("{}:{line}", l.name)
                            } else {
                                format!("{}: allow[{e}]", l.name)
                            },
                        )
                    });
                }
            }
            if let Some((_, s)) = overrides.iter().rev().find(|(c, _)| *c == item.code) {
                item.severity = *s;
            }
            match suppressed_by {
                Some((by_file, reason, by)) => outcome.suppressed.push(Suppressed {
                    item,
                    reason,
                    source: Source::Config,
                    by,
                    by_file,
                }),
                None => kept.push(item),
            }
        }
        outcome.items = kept;
    }
    let mut outcomes: Vec<FileOutcome> = results.into_iter().map(|(o, _)| o).collect();
    // Allow entries of the configuration files that allowed nothing where they applied.
    for (ci, (l, uses)) in configs.loaded.iter().enumerate() {
        let mut items = Vec::new();
        for (e, entry) in l.form.allow.iter().enumerate() {
            let exercised = configs
                .exercised
                .get(ci)
                .and_then(|v| v.get(e))
                .copied()
                .unwrap_or(false);
            let whole = if configs.explicit.is_some() {
                !walked_roots.is_empty()
            } else {
                walked_roots.iter().any(|r| l.dir.starts_with(r))
            };
            if whole && exercised && uses.get(e).copied().unwrap_or(0) == 0 {
                let codes: Vec<String> = entry.codes.iter().map(|c| c.0.clone()).collect();
                let webhooks: Vec<String> = entry
                    .webhooks
                    .iter()
                    .map(|g| g.0.as_str().to_owned())
                    .collect();
                let (line, column) = l.entry_lines.get(e).copied().unwrap_or((0, 0));
                items.push(own_item(
                    Severity::Warning,
                    codes::UNUSED_SUPPRESSION,
                    format!(
                        "allow[{e}]: {}",
                        suppress::unused_message(&codes, &webhooks, "entry")
                    ),
                    Some(codes::describe(codes::UNUSED_SUPPRESSION).1.to_owned()),
                    (line > 0).then(|| Position::new(line, column)),
                    None,
                    Slot::File,
                ));
            }
        }
        for item in &mut items {
            if let Some(s) = l.form.severity.get(&config::CodeName(item.code.clone())) {
                item.severity = s.severity();
            }
            if let Some((_, s)) = overrides.iter().rev().find(|(c, _)| *c == item.code) {
                item.severity = *s;
            }
        }
        if !items.is_empty() {
            outcomes.push(FileOutcome {
                name: l.name.clone(),
                error: None,
                report: None,
                items,
                suppressed: Vec::new(),
                configurations: Vec::new(),
                template: false,
            });
        }
    }
    let fail_on = opts
        .fail_on
        .or(fail_on_config)
        .unwrap_or(Level::Error)
        .severity();
    let count = |s: Severity| -> usize {
        outcomes
            .iter()
            .map(|r| {
                r.items.iter().filter(|i| i.severity == s).count()
                    + usize::from(s == Severity::Error && r.error.is_some())
            })
            .sum()
    };
    let totals = Totals {
        errors: count(Severity::Error),
        warnings: count(Severity::Warning),
        notes: count(Severity::Note),
        suppressed: outcomes.iter().map(|r| r.suppressed.len()).sum(),
        configurations: configuration_count,
    };
    let unusable = configuration_count == 0
        || outcomes.iter().any(|r| {
            r.error.is_some()
                || (!r.template
                    && r.report
                        .as_ref()
                        .is_some_and(|t| t.findings().any(|f| f.code().as_str() == "syntax")))
        });
    let failing = outcomes
        .iter()
        .any(|r| r.error.is_some() || r.items.iter().any(|i| i.severity >= fail_on));
    match opts.output {
        LintOutput::Text => {
            for r in &outcomes {
                print_file(r, paint.out, opts);
            }
            if !opts.quiet {
                print_summary(&totals, outcomes.len(), paint.out);
            }
        }
        LintOutput::Json => {
            let files: Vec<Json> = outcomes.iter().map(|r| file_json(r, opts)).collect();
            outln!(
                "{}",
                json!({
                    "schemaVersion": SCHEMA_VERSION,
                    "k8sVersion": opts.version.to_string(),
                    "files": files,
                    "configurationCount": totals.configurations,
                    "errorCount": totals.errors,
                    "warningCount": totals.warnings,
                    "noteCount": totals.notes,
                    "suppressedCount": totals.suppressed,
                    "failOn": fail_on.as_str(),
                })
            );
        }
        LintOutput::Sarif => outln!("{}", formats::sarif(&outcomes)),
        LintOutput::Github => {
            for line in formats::github(&outcomes) {
                outln!("{line}");
            }
            if !opts.quiet {
                print_summary(&totals, outcomes.len(), Paint(false));
            }
        }
        LintOutput::Junit => outln!("{}", formats::junit(&outcomes, fail_on)),
    }
    Ok(if unusable { 2 } else { u8::from(failing) })
}

struct Totals {
    errors: usize,
    warnings: usize,
    notes: usize,
    suppressed: usize,
    configurations: usize,
}

fn print_summary(t: &Totals, files: usize, paint: Paint) {
    let mut parts = vec![
        if t.errors > 0 {
            paint.label(Tone::Error, &format!("{} error(s)", t.errors))
        } else {
            format!("{} error(s)", t.errors)
        },
        if t.warnings > 0 {
            paint.label(Tone::Warning, &format!("{} warning(s)", t.warnings))
        } else {
            format!("{} warning(s)", t.warnings)
        },
    ];
    if t.notes > 0 {
        parts.push(format!("{} note(s)", t.notes));
    }
    if t.suppressed > 0 {
        parts.push(format!("{} suppressed", t.suppressed));
    }
    outln!(
        "{} configuration(s) checked in {files} file(s): {}",
        t.configurations,
        parts.join(", ")
    );
}

fn tone(s: Severity) -> Tone {
    match s {
        Severity::Error => Tone::Error,
        Severity::Warning => Tone::Warning,
        Severity::Note => Tone::Good,
    }
}

fn print_item(file: &str, f: &Item, paint: Paint, quiet: bool) {
    let at = match f.position {
        Some(p) => format!("{file}:{}:{}", p.line, p.column),
        None => file.to_owned(),
    };
    let label = paint.label(tone(f.severity), &format!("{}[{}]", f.severity, f.code));
    let field_error = f.json.get("fieldError").is_some_and(|e| !e.is_null());
    let path = if f.path.is_empty() || field_error {
        String::new()
    } else {
        format!("{}: ", f.path)
    };
    let message = if f.severity == Severity::Error {
        paint.message(Tone::Error, &f.message)
    } else {
        f.message.clone()
    };
    outln!(
        "{}: {label}: {}{path}{message}",
        paint.strong(&at),
        f.context
    );
    if quiet {
        return;
    }
    if let Some(snippet) = &f.snippet {
        outln!("{}", paint.snippet(tone(f.severity), snippet));
    }
    if let Some(help) = &f.help {
        outln!("  help: {help}");
    }
}

fn print_file(r: &FileOutcome, paint: Paint, opts: &Options) {
    if let Some(e) = &r.error {
        let label = paint.label(Tone::Error, "error");
        outln!(
            "{}: {label}: {}",
            paint.strong(&r.name),
            paint.message(Tone::Error, e)
        );
        return;
    }
    for item in &r.items {
        print_item(&r.name, item, paint, opts.quiet);
    }
    if opts.verbose {
        for s in &r.suppressed {
            let at = match s.item.position {
                Some(p) => format!("{}:{}:{}", r.name, p.line, p.column),
                None => r.name.clone(),
            };
            outln!(
                "{}: suppressed {}[{}] by {} ({}): {}{}",
                paint.strong(&at),
                s.item.default_severity,
                s.item.code,
                s.by,
                s.reason,
                s.item.context,
                s.item.message
            );
        }
        if r.items.is_empty() && r.report.is_some() {
            outln!(
                "{}: ok: {} configuration(s), no finding",
                paint.strong(&r.name),
                r.configurations.len()
            );
        }
    }
}

fn finding_json(f: &Finding) -> Json {
    json!({
        "severity": f.severity().as_str(),
        "code": f.code().as_str(),
        "message": f.message(),
        "help": f.help(),
        "path": f.path(),
        "line": f.position().map(|p| p.line),
        "column": f.position().map(|p| p.column),
        "span": f.span().map(|s| json!({
            "start": s.start, "end": s.end, "line": s.line, "column": s.column,
            "snippet": s.snippet,
        })),
        "operations": f.operations().iter().map(|o| o.as_str()).collect::<Vec<_>>(),
        "versions": f.versions().iter().map(ToString::to_string).collect::<Vec<_>>(),
        "fieldError": f.field_error().map(|e| json!({
            "field": e.field(), "type": e.kind().as_str(), "detail": e.detail(),
        })),
    })
}

/// Sets a member of a JSON object (nothing for other values).
pub(crate) fn set(j: &mut Json, key: &str, value: Json) {
    if let Some(o) = j.as_object_mut() {
        o.insert(key.to_owned(), value);
    }
}

fn item_json(i: &Item) -> Json {
    let mut j = i.json.clone();
    set(&mut j, "severity", json!(i.severity.as_str()));
    if let Some(h) = &i.help {
        set(&mut j, "help", json!(h));
    }
    if i.severity != i.default_severity {
        set(
            &mut j,
            "defaultSeverity",
            json!(i.default_severity.as_str()),
        );
    }
    j
}

fn cost_json(c: &CostRange) -> Json {
    json!({"min": c.min, "max": c.max, "fixedMax": c.fixed_max})
}

fn webhook_json(w: &WebhookReport) -> Json {
    json!({
        "name": w.name,
        "operations": w.operations.iter().map(|o| o.as_str()).collect::<Vec<_>>(),
        "cost": cost_json(&w.cost),
        "conditions": w.conditions.iter().map(|c| json!({
            "name": c.name,
            "cost": c.cost.as_ref().map(cost_json),
            "minimumVersion": c.minimum_version.map(|v| v.to_string()),
        })).collect::<Vec<_>>(),
    })
}

fn verdict_json(v: &VersionVerdict) -> Json {
    json!({
        "version": v.version.to_string(),
        "accepted": v.errors.is_empty(),
        "errors": v.errors.iter().map(ToString::to_string).collect::<Vec<_>>(),
    })
}

fn configuration_json(c: &ConfigurationReport, findings: Vec<Json>) -> Json {
    json!({
        "kind": c.kind.configuration_kind(),
        "name": c.name,
        "item": c.item,
        "line": c.position.map(|p| p.line),
        "column": c.position.map(|p| p.column),
        "operation": if c.update { "update" } else { "create" },
        "findings": findings,
        "webhooks": c.webhooks.iter().map(webhook_json).collect::<Vec<_>>(),
        "compatibility": c.compatibility.iter().map(verdict_json).collect::<Vec<_>>(),
    })
}

fn file_json(r: &FileOutcome, _opts: &Options) -> Json {
    let of = |slot: Slot| -> Vec<Json> {
        r.items
            .iter()
            .filter(|i| i.slot == slot)
            .map(item_json)
            .collect()
    };
    let documents: Vec<Json> = r
        .report
        .iter()
        .flat_map(|t| t.documents.iter().enumerate())
        .map(|(di, d)| {
            json!({
                "index": d.index,
                "line": d.start.line,
                "kind": d.kind,
                "findings": of(Slot::Document(di)),
                "configurations": d.configurations.iter().enumerate()
                    .map(|(ci, c)| configuration_json(c, of(Slot::Configuration(di, ci))))
                    .collect::<Vec<_>>(),
            })
        })
        .collect();
    let suppressed: Vec<Json> = r
        .suppressed
        .iter()
        .map(|s| {
            let mut j = item_json(&s.item);
            set(&mut j, "reason", json!(s.reason));
            set(&mut j, "source", json!(s.source.as_str()));
            set(&mut j, "suppressedBy", json!(s.by));
            set(
                &mut j,
                "webhook",
                json!(s.item.webhook.as_ref().map(|(_, n)| n)),
            );
            j
        })
        .collect();
    json!({
        "file": r.name,
        "error": r.error,
        "findings": of(Slot::File),
        "documents": documents,
        "suppressed": suppressed,
    })
}
