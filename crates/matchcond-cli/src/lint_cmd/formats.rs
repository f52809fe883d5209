//! The formats CI systems read: SARIF 2.1.0 (code scanning), GitHub Actions workflow
//! commands (annotations), JUnit XML (a test case per configuration and webhook).

use std::fmt::Write as _;

use matchcond::dispatch::load::Severity;
use serde_json::{json, Value as Json};

use super::{codes, set, FileOutcome, Item};

/// The SARIF schema a log names.
const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The default severity of a code.
fn default_severity(code: &str) -> Severity {
    match code {
        "syntax"
        | "noConfiguration"
        | "notAnObject"
        | "unsupportedApiVersion"
        | "unknownField"
        | "duplicateField"
        | "invalidType"
        | "invalidValue"
        | "validation"
        | codes::UNREADABLE => Severity::Error,
        "skippedKind" | "compatibility" => Severity::Note,
        _ => Severity::Warning,
    }
}

/// SARIF's level of a severity.
fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// A file name as a URI reference: `\` becomes `/`, and what a URI cannot hold is
/// percent-encoded; an absolute path is a `file` URI (`/tmp/a.yaml` is
/// `file:///tmp/a.yaml`, `C:\a.yaml` is `file:///C:/a.yaml`), a relative one a relative
/// reference.
fn uri(name: &str) -> String {
    let name = name.replace('\\', "/");
    let (mut out, rest) = match name.as_bytes() {
        [b'/', ..] => ("file://".to_owned(), name.as_str()),
        [d, b':', b'/', ..] if d.is_ascii_alphabetic() => (
            format!("file:///{}:", char::from(*d)),
            name.get(2..).unwrap_or_default(),
        ),
        _ => (String::new(), name.as_str()),
    };
    for b in rest.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// The message with its context and field path.
fn full_message(i: &Item) -> String {
    let path = if i.path.is_empty() || i.code == "validation" {
        String::new()
    } else {
        format!("{}: ", i.path)
    };
    format!("{}{path}{}", i.context, i.message)
}

fn sarif_result(file: &str, i: &Item, rules: &[&str]) -> Json {
    let mut physical = json!({"artifactLocation": {"uri": uri(file)}});
    if let Some(p) = i.position {
        set(
            &mut physical,
            "region",
            json!({"startLine": p.line.max(1), "startColumn": p.column.max(1)}),
        );
    }
    let location = json!({ "physicalLocation": physical });
    let mut text = full_message(i);
    if let Some(h) = &i.help {
        text.push_str("\nhelp: ");
        text.push_str(h);
    }
    let mut r = json!({
        "ruleId": i.code,
        "level": level(i.severity),
        "message": {"text": text},
        "locations": [location],
        "properties": {"path": i.path, "webhook": i.webhook.as_ref().map(|(_, n)| n)},
    });
    if let Some(index) = rules.iter().position(|c| *c == i.code) {
        set(&mut r, "ruleIndex", json!(index));
    }
    r
}

/// The SARIF 2.1.0 log of a run.
pub fn sarif(outcomes: &[FileOutcome]) -> Json {
    let rules: Vec<&str> = codes::names();
    let rule_objects: Vec<Json> = rules
        .iter()
        .map(|code| {
            let (description, help) = codes::describe(code);
            json!({
                "id": code,
                "name": code,
                "shortDescription": {"text": description},
                "fullDescription": {"text": description},
                "help": {"text": help},
                "defaultConfiguration": {"level": level(default_severity(code))},
            })
        })
        .collect();
    let mut results = Vec::new();
    for r in outcomes {
        if let Some(e) = &r.error {
            results.push(json!({
                "ruleId": codes::UNREADABLE,
                "ruleIndex": rules.iter().position(|c| *c == codes::UNREADABLE),
                "level": "error",
                "message": {"text": e},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri(&r.name)}}}],
            }));
        }
        for i in &r.items {
            results.push(sarif_result(&r.name, i, &rules));
        }
        for s in &r.suppressed {
            let mut j = sarif_result(&r.name, &s.item, &rules);
            set(
                &mut j,
                "suppressions",
                json!([{
                    "kind": if s.source == super::Source::Config { "external" } else { "inSource" },
                    "status": "accepted",
                    "justification": s.reason,
                    "location": {"physicalLocation": {"artifactLocation": {"uri": uri(&s.by_file)}}},
                }]),
            );
            results.push(j);
        }
    }
    json!({
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "matchcond",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rule_objects,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

/// Escapes a workflow command's message (GitHub's `escapeData`).
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow command's property (GitHub's `escapeProperty`).
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One workflow command per finding: `::error file=…,line=…,col=…,title=…::message`.
pub fn github(outcomes: &[FileOutcome]) -> Vec<String> {
    let mut lines = Vec::new();
    for r in outcomes {
        if let Some(e) = &r.error {
            lines.push(format!(
                "::error file={},title={}::{}",
                escape_property(&r.name),
                escape_property("matchcond unreadable"),
                escape_data(e)
            ));
        }
        for i in &r.items {
            let command = match i.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Note => "notice",
            };
            let mut props = format!("file={}", escape_property(&r.name));
            if let Some(p) = i.position {
                let _ = write!(props, ",line={},col={}", p.line, p.column);
            }
            let _ = write!(
                props,
                ",title={}",
                escape_property(&format!("matchcond {}", i.code))
            );
            let mut message = full_message(i);
            if let Some(h) = &i.help {
                message.push_str("\nhelp: ");
                message.push_str(h);
            }
            lines.push(format!("::{command} {props}::{}", escape_data(&message)));
        }
    }
    lines
}

/// Escapes text for XML 1.0 (characters it cannot hold are dropped).
fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c < ' ' || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

struct Case {
    name: String,
    failing: Vec<String>,
    other: Vec<String>,
}

fn line_of(file: &str, i: &Item) -> String {
    let at = match i.position {
        Some(p) => format!("{file}:{}:{}", p.line, p.column),
        None => file.to_owned(),
    };
    format!("{at}: {}[{}]: {}", i.severity, i.code, full_message(i))
}

/// The JUnit XML of a run: a suite per file, a case per configuration and per webhook (and
/// one for the file's own findings); a case fails when it has a finding at or above
/// `fail_on`.
pub fn junit(outcomes: &[FileOutcome], fail_on: Severity) -> String {
    let mut suites = String::new();
    let (mut all_tests, mut all_failures) = (0usize, 0usize);
    for r in outcomes {
        let mut cases: Vec<Case> = Vec::new();
        let mut file_case = Case {
            name: r.name.clone(),
            failing: Vec::new(),
            other: Vec::new(),
        };
        if let Some(e) = &r.error {
            file_case
                .failing
                .push(format!("{}: error[unreadable]: {e}", r.name));
        }
        // Case k*? : the configuration, then its webhooks.
        let mut index: Vec<(Option<usize>, Option<usize>, usize)> = Vec::new();
        for (k, c) in r.configurations.iter().enumerate() {
            index.push((Some(k), None, cases.len()));
            cases.push(Case {
                name: format!("{} {}", c.kind, c.name),
                failing: Vec::new(),
                other: Vec::new(),
            });
            for (h, w) in c.webhooks.iter().enumerate() {
                index.push((Some(k), Some(h), cases.len()));
                cases.push(Case {
                    name: format!("{} {} / {w}", c.kind, c.name),
                    failing: Vec::new(),
                    other: Vec::new(),
                });
            }
        }
        for i in &r.items {
            let key = (i.configuration, i.webhook.as_ref().map(|(h, _)| *h));
            let case = index
                .iter()
                .find(|(k, h, _)| (*k, *h) == key)
                .or_else(|| index.iter().find(|(k, h, _)| *k == key.0 && h.is_none()))
                .and_then(|(_, _, c)| cases.get_mut(*c))
                .unwrap_or(&mut file_case);
            let line = line_of(&r.name, i);
            if i.severity >= fail_on {
                case.failing.push(line);
            } else {
                case.other.push(line);
            }
        }
        if !file_case.failing.is_empty() || !file_case.other.is_empty() || cases.is_empty() {
            cases.insert(0, file_case);
        }
        let failures = cases.iter().filter(|c| !c.failing.is_empty()).count();
        all_tests += cases.len();
        all_failures += failures;
        let _ = writeln!(
            suites,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">",
            xml(&r.name),
            cases.len()
        );
        for c in &cases {
            let _ = write!(
                suites,
                "    <testcase name=\"{}\" classname=\"{}\"",
                xml(&c.name),
                xml(&r.name)
            );
            if c.failing.is_empty() && c.other.is_empty() {
                suites.push_str("/>\n");
                continue;
            }
            suites.push_str(">\n");
            if let Some(first) = c.failing.first() {
                let _ = writeln!(
                    suites,
                    "      <failure message=\"{}\" type=\"matchcond lint\">{}</failure>",
                    xml(&format!(
                        "{} finding(s) at or above {fail_on}: {first}",
                        c.failing.len()
                    )),
                    xml(&c.failing.join("\n"))
                );
            }
            if !c.other.is_empty() {
                let _ = writeln!(
                    suites,
                    "      <system-out>{}</system-out>",
                    xml(&c.other.join("\n"))
                );
            }
            suites.push_str("    </testcase>\n");
        }
        suites.push_str("  </testsuite>\n");
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"matchcond lint\" tests=\"{all_tests}\" failures=\"{all_failures}\" errors=\"0\">\n{suites}</testsuites>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(escape_data("a%b\r\nc:d,e"), "a%25b%0D%0Ac:d,e");
        assert_eq!(escape_property("a%b\r\nc:d,e"), "a%25b%0D%0Ac%3Ad%2Ce");
        assert_eq!(
            xml("<a & 'b'>\u{1}\"\n"),
            "&lt;a &amp; &apos;b&apos;&gt;&quot;\n"
        );
        assert_eq!(uri("dir\\my file.yaml"), "dir/my%20file.yaml");
        assert_eq!(uri("<stdin>"), "%3Cstdin%3E");
        assert_eq!(
            uri("/tmp/weird dir/a.yaml"),
            "file:///tmp/weird%20dir/a.yaml"
        );
        assert_eq!(uri("C:\\cfg\\a b.yaml"), "file:///C:/cfg/a%20b.yaml");
        assert_eq!(uri("c:/a.yaml"), "file:///c:/a.yaml");
    }
}
