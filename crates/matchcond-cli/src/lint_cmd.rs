//! `matchcond lint`: every file and document reported, findings as
//! `FILE:LINE:COLUMN: SEVERITY[CODE]: …` (or JSON), the exit code from the worst finding.

use matchcond::dispatch::load::Severity;
use matchcond::dispatch::Configuration;
use matchcond::lint::{
    ConfigurationReport, CostRange, Finding, Linter, TextReport, VersionVerdict, WebhookReport,
};
use matchcond::KubeVersion;
use serde_json::{json, Value as Json};

use crate::color::{Paint, Streams, Tone};
use crate::input::{self, InputError};
use crate::Output;

/// The version of the JSON output's shape.
pub const SCHEMA_VERSION: u32 = 1;

/// One file's outcome.
struct FileResult {
    name: String,
    /// Why the file could not be read.
    error: Option<String>,
    report: Option<TextReport>,
}

/// True when a finding makes its file unusable (exit 2).
fn unusable(f: &Finding) -> bool {
    matches!(f.code().as_str(), "syntax" | "noConfiguration")
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

/// `matchcond lint`.
pub fn lint(
    files: &[String],
    old: Option<&str>,
    compatibility: bool,
    version: KubeVersion,
    output: Output,
    paint: Streams,
) -> Result<u8, InputError> {
    let olds = match old {
        Some(p) => old_configurations(p)?,
        None => Vec::new(),
    };
    let linter = Linter::new(version)
        .with_old_configurations(olds)
        .with_compatibility(compatibility);
    let mut results = Vec::new();
    for file in files {
        let name = input::display_name(file).to_owned();
        match input::read_text(file) {
            Err(e) => results.push(FileResult {
                error: Some(
                    e.0.strip_prefix(&format!("{name}: "))
                        .unwrap_or(&e.0)
                        .to_owned(),
                ),
                name,
                report: None,
            }),
            Ok(text) => results.push(FileResult {
                name,
                error: None,
                report: Some(linter.lint_text(&text)),
            }),
        }
    }
    let count = |s: Severity| -> usize {
        results
            .iter()
            .map(|r| {
                r.report.as_ref().map_or(0, |t| t.count(s))
                    + usize::from(s == Severity::Error && r.error.is_some())
            })
            .sum()
    };
    let (errors, warnings, notes) = (
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Note),
    );
    let configurations: usize = results
        .iter()
        .filter_map(|r| r.report.as_ref())
        .map(|t| t.configurations().count())
        .sum();
    match output {
        Output::Text => {
            for r in &results {
                print_file(r, paint.out);
            }
            let mut parts = vec![
                if errors > 0 {
                    paint.out.label(Tone::Error, &format!("{errors} error(s)"))
                } else {
                    format!("{errors} error(s)")
                },
                if warnings > 0 {
                    paint
                        .out
                        .label(Tone::Warning, &format!("{warnings} warning(s)"))
                } else {
                    format!("{warnings} warning(s)")
                },
            ];
            if notes > 0 {
                parts.push(format!("{notes} note(s)"));
            }
            outln!(
                "{configurations} configuration(s) checked in {} file(s): {}",
                results.len(),
                parts.join(", ")
            );
        }
        Output::Json => {
            let files: Vec<Json> = results.iter().map(file_json).collect();
            outln!(
                "{}",
                json!({
                    "schemaVersion": SCHEMA_VERSION,
                    "k8sVersion": version.to_string(),
                    "files": files,
                    "configurationCount": configurations,
                    "errorCount": errors,
                    "warningCount": warnings,
                    "noteCount": notes,
                })
            );
        }
    }
    let any_unusable = results.iter().any(|r| {
        r.error.is_some()
            || r.report
                .as_ref()
                .is_some_and(|t| t.findings().any(unusable))
    });
    Ok(if any_unusable {
        2
    } else {
        u8::from(errors > 0)
    })
}

fn tone(s: Severity) -> Tone {
    match s {
        Severity::Error => Tone::Error,
        Severity::Warning => Tone::Warning,
        Severity::Note => Tone::Good,
    }
}

fn print_finding(file: &str, context: &str, f: &Finding, paint: Paint) {
    let at = match f.position() {
        Some(p) => format!("{file}:{}:{}", p.line, p.column),
        None => file.to_owned(),
    };
    let label = paint.label(
        tone(f.severity()),
        &format!("{}[{}]", f.severity(), f.code()),
    );
    let path = if f.path().is_empty() || f.field_error().is_some() {
        String::new()
    } else {
        format!("{}: ", f.path())
    };
    let message = if f.severity() == Severity::Error {
        paint.message(Tone::Error, f.message())
    } else {
        f.message().to_owned()
    };
    outln!("{}: {label}: {context}{path}{message}", paint.strong(&at));
    if let Some(span) = f.span() {
        outln!("{}", paint.snippet(tone(f.severity()), &span.snippet));
    }
    if let Some(help) = f.help() {
        outln!("  help: {help}");
    }
}

fn print_file(r: &FileResult, paint: Paint) {
    if let Some(e) = &r.error {
        let label = paint.label(Tone::Error, "error");
        outln!(
            "{}: {label}: {}",
            paint.strong(&r.name),
            paint.message(Tone::Error, e)
        );
        return;
    }
    let Some(report) = &r.report else { return };
    for d in &report.documents {
        for f in &d.findings {
            print_finding(&r.name, "", f, paint);
        }
        for c in &d.configurations {
            let context = format!("{} {}: ", c.kind.configuration_kind(), c.name);
            for f in &c.findings {
                print_finding(&r.name, &context, f, paint);
            }
        }
    }
    for f in &report.findings {
        print_finding(&r.name, "", f, paint);
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

fn configuration_json(c: &ConfigurationReport) -> Json {
    json!({
        "kind": c.kind.configuration_kind(),
        "name": c.name,
        "item": c.item,
        "line": c.position.map(|p| p.line),
        "column": c.position.map(|p| p.column),
        "operation": if c.update { "update" } else { "create" },
        "findings": c.findings.iter().map(finding_json).collect::<Vec<_>>(),
        "webhooks": c.webhooks.iter().map(webhook_json).collect::<Vec<_>>(),
        "compatibility": c.compatibility.iter().map(verdict_json).collect::<Vec<_>>(),
    })
}

fn file_json(r: &FileResult) -> Json {
    let documents: Vec<Json> = r
        .report
        .iter()
        .flat_map(|t| t.documents.iter())
        .map(|d| {
            json!({
                "index": d.index,
                "line": d.start.line,
                "kind": d.kind,
                "findings": d.findings.iter().map(finding_json).collect::<Vec<_>>(),
                "configurations": d.configurations.iter().map(configuration_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "file": r.name,
        "error": r.error,
        "findings": r.report.iter().flat_map(|t| t.findings.iter()).map(finding_json).collect::<Vec<_>>(),
        "documents": documents,
    })
}
