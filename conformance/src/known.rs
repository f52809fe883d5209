//! The known-failures file and its ratchet.
//!
//! The file lists cases that are known to fail, one per line: `<suite> | <case name> | <reason>`;
//! blank lines and lines starting with `#` are ignored. In a suite or case name, `\|` stands for
//! `|` and `\\` for `\`. A run with the file succeeds only if every failed case is listed, every
//! listed case that ran still fails, and every listed case was among the cases run.

use std::collections::HashMap;

/// One listed failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownEntry {
    /// The suite's name.
    pub suite: String,
    /// The case's name.
    pub case: String,
    /// Why it fails (free text).
    pub reason: String,
    /// The line of the file (1-based).
    pub line: usize,
}

impl KnownEntry {
    /// `suite :: case`, as reports and `--filter` see a case.
    pub fn full_name(&self) -> String {
        format!("{} :: {}", self.suite, self.case)
    }
}

/// A parsed known-failures file.
#[derive(Debug, Clone, Default)]
pub struct KnownFailures {
    /// The entries in file order.
    pub entries: Vec<KnownEntry>,
    index: HashMap<(String, String), usize>,
}

/// Splits off one `|`-terminated field, unescaping `\|` and `\\`; returns the field and the rest
/// after the separator, or `None` when there is no separator.
fn split_field(text: &str) -> Option<(String, &str)> {
    let mut field = String::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => match text.get(i + 1..).and_then(|rest| rest.chars().next()) {
                Some(next @ ('|' | '\\')) => {
                    field.push(next);
                    chars.next();
                }
                _ => field.push('\\'),
            },
            '|' => return Some((field, text.get(i + 1..).unwrap_or(""))),
            c => field.push(c),
        }
    }
    None
}

/// Escapes a suite or case name for the file.
fn escape_name(name: &str) -> String {
    name.replace('\\', "\\\\").replace('|', "\\|")
}

/// One line of the file.
pub fn format_line(suite: &str, case: &str, reason: &str) -> String {
    let reason: String = reason
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    format!(
        "{} | {} | {}",
        escape_name(suite),
        escape_name(case),
        reason.trim()
    )
}

/// A whole file listing `failures` (suite, case, reason), in the order given.
pub fn render(failures: &[(String, String, String)]) -> String {
    let mut text = String::from(
        "# Known conformance failures, one per line: <suite> | <case name> | <reason>\n\
         # A listed case must still fail; remove its line once it passes.\n",
    );
    for (suite, case, reason) in failures {
        text.push_str(&format_line(suite, case, reason));
        text.push('\n');
    }
    text
}

impl KnownFailures {
    /// Parses the file's text.
    pub fn parse(text: &str) -> Result<KnownFailures, String> {
        let mut known = KnownFailures::default();
        for (number, line) in text.lines().enumerate() {
            let number = number + 1;
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let bad = || {
                format!(
                    "line {number}: expected `<suite> | <case name> | <reason>`, found `{trimmed}`"
                )
            };
            let (suite, rest) = split_field(trimmed).ok_or_else(bad)?;
            let (case, reason) = split_field(rest).ok_or_else(bad)?;
            let (suite, case) = (suite.trim().to_owned(), case.trim().to_owned());
            if suite.is_empty() || case.is_empty() {
                return Err(bad());
            }
            let key = (suite.clone(), case.clone());
            if let Some(&first) = known.index.get(&key) {
                let first_line = known.entries.get(first).map_or(0, |e| e.line);
                return Err(format!(
                    "line {number}: `{suite} :: {case}` is already listed on line {first_line}"
                ));
            }
            known.index.insert(key, known.entries.len());
            known.entries.push(KnownEntry {
                suite,
                case,
                reason: reason.trim().to_owned(),
                line: number,
            });
        }
        Ok(known)
    }

    /// The entry for a case, if listed.
    pub fn get(&self, suite: &str, case: &str) -> Option<&KnownEntry> {
        self.index
            .get(&(suite.to_owned(), case.to_owned()))
            .and_then(|&i| self.entries.get(i))
    }

    fn position(&self, suite: &str, case: &str) -> Option<usize> {
        self.index
            .get(&(suite.to_owned(), case.to_owned()))
            .copied()
    }
}

/// How a case's result stands against the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Passed, not listed.
    Passed,
    /// Passed but listed: the entry must be removed.
    Fixed,
    /// Failed and listed.
    Known,
    /// Failed and not listed.
    New,
}

/// Tracks a run's results against the list.
#[derive(Debug)]
pub struct Ratchet<'k> {
    known: &'k KnownFailures,
    ran: Vec<bool>,
    /// Listed cases that failed.
    pub still_failing: usize,
    /// Listed cases that passed.
    pub fixed: usize,
    /// Failed cases not listed.
    pub new_failures: usize,
}

impl<'k> Ratchet<'k> {
    /// Starts a run against `known`.
    pub fn new(known: &'k KnownFailures) -> Ratchet<'k> {
        Ratchet {
            known,
            ran: vec![false; known.entries.len()],
            still_failing: 0,
            fixed: 0,
            new_failures: 0,
        }
    }

    /// Records the result of a case that ran (skipped cases are not recorded).
    pub fn record(&mut self, suite: &str, case: &str, passed: bool) -> Verdict {
        let listed = self.known.position(suite, case);
        if let Some(slot) = listed.and_then(|i| self.ran.get_mut(i)) {
            *slot = true;
        }
        match (listed.is_some(), passed) {
            (false, true) => Verdict::Passed,
            (true, true) => {
                self.fixed += 1;
                Verdict::Fixed
            }
            (true, false) => {
                self.still_failing += 1;
                Verdict::Known
            }
            (false, false) => {
                self.new_failures += 1;
                Verdict::New
            }
        }
    }

    /// Listed entries in scope (their `suite :: case` contains `filter`, when one is given).
    pub fn in_scope<'a>(
        &'a self,
        filter: Option<&'a str>,
    ) -> impl Iterator<Item = (usize, &'k KnownEntry)> + 'a {
        let known: &'k KnownFailures = self.known;
        known
            .entries
            .iter()
            .enumerate()
            .filter(move |(_, e)| filter.is_none_or(|f| e.full_name().contains(f)))
    }

    /// How many entries are in scope.
    pub fn listed(&self, filter: Option<&str>) -> usize {
        self.in_scope(filter).count()
    }

    /// Entries in scope whose case was not among the cases run, in file order.
    pub fn stale(&self, filter: Option<&str>) -> Vec<&'k KnownEntry> {
        self.in_scope(filter)
            .filter(|(i, _)| !self.ran.get(*i).copied().unwrap_or(false))
            .map(|(_, e)| e)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "\
# comment
cel-spec/basic | a/b | needs x

  # indented comment
cel-spec/basic|a/c|reason with | pipes || and more
k8s \\| odd | name \\\\ with \\| escapes | r
s | reasonless |
";

    #[test]
    fn parses_entries() {
        let known = KnownFailures::parse(FILE).unwrap();
        let got: Vec<(&str, &str, &str, usize)> = known
            .entries
            .iter()
            .map(|e| (e.suite.as_str(), e.case.as_str(), e.reason.as_str(), e.line))
            .collect();
        assert_eq!(
            got,
            vec![
                ("cel-spec/basic", "a/b", "needs x", 2),
                (
                    "cel-spec/basic",
                    "a/c",
                    "reason with | pipes || and more",
                    5
                ),
                ("k8s | odd", "name \\ with | escapes", "r", 6),
                ("s", "reasonless", "", 7),
            ]
        );
        assert!(known.get("cel-spec/basic", "a/c").is_some());
        assert!(known.get("cel-spec/basic", "a/d").is_none());
    }

    #[test]
    fn rejects_malformed_lines() {
        for (text, want) in [
            (
                "x\ns | c\n",
                "line 1: expected `<suite> | <case name> | <reason>`, found `x`",
            ),
            (
                "s | c\n",
                "line 1: expected `<suite> | <case name> | <reason>`, found `s | c`",
            ),
            (
                " | c | r\n",
                "line 1: expected `<suite> | <case name> | <reason>`, found `| c | r`",
            ),
            (
                "s | c | r\n\ns|c|other\n",
                "line 3: `s :: c` is already listed on line 1",
            ),
        ] {
            assert_eq!(KnownFailures::parse(text).unwrap_err(), want, "{text:?}");
        }
    }

    #[test]
    fn written_lines_read_back() {
        let failures = vec![
            (
                "a|b".to_owned(),
                "c\\|d".to_owned(),
                "expected x, got\ny".to_owned(),
            ),
            ("s".to_owned(), "n".to_owned(), "  r  ".to_owned()),
        ];
        let text = render(&failures);
        assert_eq!(
            text,
            "# Known conformance failures, one per line: <suite> | <case name> | <reason>\n\
             # A listed case must still fail; remove its line once it passes.\n\
             a\\|b | c\\\\\\|d | expected x, got y\n\
             s | n | r\n"
        );
        let known = KnownFailures::parse(&text).unwrap();
        assert_eq!(known.entries.len(), 2);
        assert_eq!(known.entries[0].suite, "a|b");
        assert_eq!(known.entries[0].case, "c\\|d");
        assert_eq!(known.entries[0].reason, "expected x, got y");
    }

    #[test]
    fn ratchet_listed_unlisted_fixed_stale() {
        let known = KnownFailures::parse(
            "s | fails | r\ns | fixed | r\ns | gone | r\nt | filtered out | r\n",
        )
        .unwrap();
        let mut ratchet = Ratchet::new(&known);
        assert_eq!(ratchet.record("s", "fails", false), Verdict::Known);
        assert_eq!(ratchet.record("s", "fixed", true), Verdict::Fixed);
        assert_eq!(ratchet.record("s", "new", false), Verdict::New);
        assert_eq!(ratchet.record("s", "ok", true), Verdict::Passed);
        assert_eq!(ratchet.record("t", "fails", false), Verdict::New);
        assert_eq!(
            (ratchet.still_failing, ratchet.fixed, ratchet.new_failures),
            (1, 1, 2)
        );
        let stale: Vec<String> = ratchet.stale(None).iter().map(|e| e.full_name()).collect();
        assert_eq!(stale, vec!["s :: gone", "t :: filtered out"]);
        let stale: Vec<String> = ratchet
            .stale(Some("s :: "))
            .iter()
            .map(|e| e.full_name())
            .collect();
        assert_eq!(stale, vec!["s :: gone"]);
        assert_eq!(ratchet.listed(None), 4);
        assert_eq!(ratchet.listed(Some("s :: ")), 3);
    }

    #[test]
    fn ratchet_without_list() {
        let known = KnownFailures::default();
        let mut ratchet = Ratchet::new(&known);
        assert_eq!(ratchet.record("s", "a", false), Verdict::New);
        assert_eq!(ratchet.record("s", "b", true), Verdict::Passed);
        assert!(ratchet.stale(None).is_empty());
        assert_eq!(ratchet.listed(None), 0);
    }
}
