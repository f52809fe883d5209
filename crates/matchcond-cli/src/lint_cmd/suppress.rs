//! Suppressions written in the linted files: an annotation on a configuration's metadata
//! (it survives `kubectl get -o yaml`, which drops comments) and a YAML comment on a
//! condition's own lines. Both read `CODE[,CODE…][@WEBHOOK[,WEBHOOK…]]: REASON`; the
//! annotation holds one entry per line (or `;`-separated entries).
//!
//! ```yaml
//! metadata:
//!   name: policy
//!   annotations:
//!     matchcond.io/lint-allow: "absentMap@pods.policy.example.com: our mutating webhook adds the labels"
//! webhooks:
//! - name: pods.policy.example.com
//!   matchConditions:
//!   - name: team  # matchcond:allow absentMap: labels are added by the tenancy webhook
//!     expression: "'team' in object.metadata.labels"
//! ```

use matchcond::dispatch::load::{LoadedText, Node, Position};

/// The annotation key.
pub const ANNOTATION: &str = "matchcond.io/lint-allow";
/// The comment marker.
pub const COMMENT: &str = "matchcond:allow";

/// Where a suppression is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The configuration's annotation.
    Annotation,
    /// A comment on a condition's lines.
    Comment,
    /// An entry of the lint configuration file.
    Config,
}

impl Source {
    /// `annotation`, `comment` or `config`.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Annotation => "annotation",
            Source::Comment => "comment",
            Source::Config => "config",
        }
    }
}

/// One suppression written in a file.
#[derive(Clone, Debug)]
pub struct Marker {
    /// The codes it allows.
    pub codes: Vec<String>,
    /// The webhooks it is limited to (empty: every webhook of its configuration).
    pub webhooks: Vec<String>,
    /// Why.
    pub reason: String,
    /// Annotation or comment.
    pub source: Source,
    /// Where it is written.
    pub position: Position,
    /// The configuration (its index among the file's configurations).
    pub configuration: usize,
    /// For a comment: the condition (webhook index, condition index) whose lines hold it.
    pub condition: Option<(usize, usize)>,
    /// How many findings it suppressed.
    pub uses: usize,
}

/// A marker that cannot be read.
#[derive(Clone, Debug)]
pub struct Problem {
    /// Where.
    pub position: Position,
    /// The configuration.
    pub configuration: usize,
    /// What is wrong.
    pub message: String,
}

/// The line and column (1-based, in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> Position {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(start..).map_or(0, |s| s.chars().count()) + 1;
    Position::new(
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}

/// Parses `CODES[@WEBHOOKS]: REASON`.
fn parse_entry(entry: &str) -> Result<(Vec<String>, Vec<String>, String), String> {
    let Some((head, reason)) = entry.split_once(':') else {
        return Err(format!(
            "{entry:?} gives no reason: write CODE[,CODE][@WEBHOOK[,WEBHOOK]]: REASON"
        ));
    };
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(format!(
            "{:?} gives no reason: say why the finding does not apply",
            entry.trim()
        ));
    }
    let (codes, webhooks) = head.split_once('@').unwrap_or((head, ""));
    let list = |s: &str| -> Vec<String> {
        s.split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let codes = list(codes);
    if codes.is_empty() {
        return Err(format!("{:?} names no finding code", entry.trim()));
    }
    for c in &codes {
        super::config::check_code(c)?;
    }
    Ok((codes, list(webhooks), reason.to_owned()))
}

/// True when the text may hold a suppression (a cheap test before reading the markers).
pub fn may_hold_markers(text: &str) -> bool {
    text.contains(ANNOTATION) || text.contains(COMMENT)
}

/// The byte range of the lines a node spans.
fn line_range(text: &str, node: &Node) -> (usize, usize) {
    let start = text
        .get(..node.start_index)
        .and_then(|s| s.rfind('\n'))
        .map_or(0, |i| i + 1);
    let last = node.end_index.saturating_sub(1).max(node.start_index);
    let end = text
        .get(last..)
        .and_then(|s| s.find('\n'))
        .map_or(text.len(), |i| last + i);
    (start, end)
}

/// Reads the markers of every configuration of a loaded text.
pub fn markers(text: &str, loaded: &LoadedText) -> (Vec<Marker>, Vec<Problem>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    let configs = loaded
        .documents
        .iter()
        .flat_map(|d| d.configurations.iter());
    for (k, c) in configs.enumerate() {
        let node = &c.node;
        // The annotation.
        if let Some(a) = node
            .get("metadata")
            .and_then(|m| m.get("annotations"))
            .and_then(|a| a.get(ANNOTATION))
        {
            let value = a.as_str().unwrap_or("");
            for entry in value.split(['\n', ';']).filter(|e| !e.trim().is_empty()) {
                match parse_entry(entry) {
                    Ok((codes, webhooks, reason)) => out.push(Marker {
                        codes,
                        webhooks,
                        reason,
                        source: Source::Annotation,
                        position: a.start,
                        configuration: k,
                        condition: None,
                        uses: 0,
                    }),
                    Err(message) => problems.push(Problem {
                        position: a.start,
                        configuration: k,
                        message: format!("annotation {ANNOTATION}: {message}"),
                    }),
                }
            }
        }
        // Comments on each condition's lines.
        let Some(hooks) = node.get("webhooks") else {
            continue;
        };
        let mut h = 0;
        while let Some(hook) = hooks.index(h) {
            let mut i = 0;
            while let Some(cond) = hook.get("matchConditions").and_then(|m| m.index(i)) {
                let (start, end) = line_range(text, cond);
                let lines = text.get(start..end).unwrap_or("");
                let mut from = 0;
                while let Some(found) = lines.get(from..).and_then(|s| s.find(COMMENT)) {
                    let at = from + found;
                    from = at + COMMENT.len();
                    // A comment: `#` (after white space or at the line's start) before the marker.
                    let line_start = lines
                        .get(..at)
                        .and_then(|s| s.rfind('\n'))
                        .map_or(0, |n| n + 1);
                    let before = lines.get(line_start..at).unwrap_or("");
                    let Some(hash) = before.rfind('#') else {
                        continue;
                    };
                    let preceded = before
                        .get(..hash)
                        .is_none_or(|b| b.is_empty() || b.ends_with([' ', '\t']));
                    if !preceded || !before.get(hash + 1..).is_some_and(|s| s.trim().is_empty()) {
                        continue;
                    }
                    let line_end = lines
                        .get(from..)
                        .and_then(|s| s.find('\n'))
                        .map_or(lines.len(), |n| from + n);
                    let body = lines.get(from..line_end).unwrap_or("");
                    let position = line_col(text, start + line_start + hash);
                    match parse_entry(body) {
                        Ok((codes, webhooks, reason)) => out.push(Marker {
                            codes,
                            webhooks,
                            reason,
                            source: Source::Comment,
                            position,
                            configuration: k,
                            condition: Some((h, i)),
                            uses: 0,
                        }),
                        Err(message) => problems.push(Problem {
                            position,
                            configuration: k,
                            message: format!("comment {COMMENT}: {message}"),
                        }),
                    }
                }
                i += 1;
            }
            h += 1;
        }
    }
    (out, problems)
}

/// The webhook and condition indexes a finding's path names (`webhooks[1].matchConditions[0]…`).
pub fn path_indexes(path: &str) -> (Option<usize>, Option<usize>) {
    let index_after = |s: &str, prefix: &str| -> Option<(usize, usize)> {
        let rest = s.strip_prefix(prefix)?;
        let close = rest.find(']')?;
        let n = rest.get(..close)?.parse().ok()?;
        Some((n, prefix.len() + close + 1))
    };
    let Some((h, used)) = index_after(path, "webhooks[") else {
        return (None, None);
    };
    let cond = path
        .get(used..)
        .and_then(|r| index_after(r, ".matchConditions["))
        .map(|(c, _)| c);
    (Some(h), cond)
}

impl Marker {
    /// True when the marker covers a finding of this code, configuration, webhook (index
    /// and name) and condition.
    pub fn covers(
        &self,
        code: &str,
        configuration: Option<usize>,
        webhook: Option<(usize, &str)>,
        condition: Option<usize>,
    ) -> bool {
        if configuration != Some(self.configuration) || !self.codes.iter().any(|c| c == code) {
            return false;
        }
        if let Some(at) = self.condition {
            if webhook.map(|w| w.0) != Some(at.0) || condition != Some(at.1) {
                return false;
            }
        }
        self.webhooks.is_empty()
            || webhook.is_some_and(|(_, name)| {
                self.webhooks
                    .iter()
                    .any(|w| glob::Pattern::new(w).map_or(w == name, |p| p.matches(name)))
            })
    }
}

/// The message of a suppression that suppressed nothing.
pub fn unused_message(codes: &[String], webhooks: &[String], source: &str) -> String {
    let on = if webhooks.is_empty() {
        String::new()
    } else {
        format!(" for {}", webhooks.join(", "))
    };
    format!(
        "this {source} allows {}{on}, but nothing here is reported with {}",
        codes.join(", "),
        if codes.len() == 1 {
            "that code"
        } else {
            "these codes"
        }
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn entries() {
        assert_eq!(
            parse_entry(" absentMap,listIndex@a.b.c,d.e.f : why not").unwrap(),
            (
                vec!["absentMap".to_owned(), "listIndex".to_owned()],
                vec!["a.b.c".to_owned(), "d.e.f".to_owned()],
                "why not".to_owned()
            )
        );
        assert_eq!(
            parse_entry("absentMap").unwrap_err(),
            "\"absentMap\" gives no reason: write CODE[,CODE][@WEBHOOK[,WEBHOOK]]: REASON"
        );
        assert_eq!(
            parse_entry("absentMap:  ").unwrap_err(),
            "\"absentMap:\" gives no reason: say why the finding does not apply"
        );
        assert!(parse_entry("absentMaps: x")
            .unwrap_err()
            .starts_with("unknown finding code \"absentMaps\""));
        assert_eq!(
            path_indexes("webhooks[2].matchConditions[10].expression"),
            (Some(2), Some(10))
        );
        assert_eq!(path_indexes("webhooks[2].rules"), (Some(2), None));
        assert_eq!(path_indexes("metadata.name"), (None, None));
        assert_eq!(line_col("ab\ncdé\nx", 7).to_string(), "2:4");
    }
}
