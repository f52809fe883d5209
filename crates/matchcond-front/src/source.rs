//! Source text, positions and the rendering of compile issues.
//!
//! Positions are reported the way cel-go reports them: a 1-based line and a 1-based column
//! counted in Unicode code points, followed by the source line and a caret. An issue with no
//! position (such as a recursion-limit error) is reported at `-1:0` without a snippet.

use std::fmt;

/// Longest source line (in bytes) that is echoed under an error message.
const MAX_SNIPPET_LENGTH: usize = 16384;

/// The default number of issues rendered before the rest are summarised.
pub const DEFAULT_MAX_ISSUES: usize = 100;

/// A parsed expression's source text with its line index.
#[derive(Clone, Debug)]
pub struct Source {
    text: String,
    /// Byte offsets where each line after the first starts.
    line_starts: Vec<usize>,
    /// An issue of an empty text is at column 1 (cel-go before v0.22), not 0.
    pub(crate) empty_input_at_first_column: bool,
}

/// A line and column (both 1-based; the column counts code points).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Location {
    /// 1-based line, or -1 when unknown.
    pub line: i32,
    /// 1-based column in code points, or 0 when unknown.
    pub column: i32,
}

impl Location {
    /// The location used for issues that have no position.
    pub const NONE: Location = Location {
        line: -1,
        column: 0,
    };
}

impl Source {
    /// Wraps an expression's text.
    pub fn new(text: &str) -> Self {
        let line_starts = text.match_indices('\n').map(|(i, _)| i + 1).collect();
        Source {
            text: text.to_owned(),
            line_starts,
            empty_input_at_first_column: false,
        }
    }

    /// The whole text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The location of a byte offset.
    pub fn location(&self, offset: u32) -> Location {
        let offset = (offset as usize).min(self.text.len());
        let line_idx = self.line_starts.partition_point(|&s| s <= offset);
        let start = if line_idx == 0 {
            0
        } else {
            self.line_starts.get(line_idx - 1).copied().unwrap_or(0)
        };
        let col = self
            .text
            .get(start..offset)
            .map(|s| s.chars().count())
            .unwrap_or(0);
        Location {
            line: i32::try_from(line_idx + 1).unwrap_or(i32::MAX),
            column: i32::try_from(col + 1).unwrap_or(i32::MAX),
        }
    }

    /// The text of a 1-based line, without its newline.
    pub fn line_text(&self, line: i32) -> Option<&str> {
        if line < 1 {
            return None;
        }
        let idx = usize::try_from(line - 1).ok()?;
        let start = if idx == 0 {
            0
        } else {
            *self.line_starts.get(idx - 1)?
        };
        let end = match self.line_starts.get(idx) {
            Some(&next) => next - 1,
            None => self.text.len(),
        };
        self.text.get(start..end)
    }

    /// cel-go's two-line snippet of the byte offset's line with a caret under it, as compile
    /// issues show it: ` | line`, then ` | ....^` (one `.` per code point before the offset;
    /// `．` and `＾` over multi-byte characters; tabs shown as spaces). The line is shown
    /// whatever its length (issues leave out lines over 16,384 bytes).
    pub fn caret(&self, offset: u32) -> String {
        let location = self.location(offset);
        let mut out = String::new();
        push_snippet(
            self.line_text(location.line).unwrap_or(""),
            usize::try_from(location.column - 1).unwrap_or(0),
            &mut out,
        );
        out
    }
}

/// One compile-time problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    pub(crate) offset: Option<u32>,
    pub(crate) message: String,
}

impl Issue {
    /// An issue at a byte offset of the expression (`None`: without position).
    pub fn new(offset: Option<u32>, message: impl Into<String>) -> Self {
        Issue {
            offset,
            message: message.into(),
        }
    }

    /// The byte offset of the problem in the expression, or `None` for an issue without
    /// position.
    pub fn offset(&self) -> Option<u32> {
        self.offset
    }

    /// The message, in cel-go's wording.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// All problems found while compiling one expression, rendered as cel-go renders them.
#[derive(Clone, Debug)]
pub struct Issues {
    source: Source,
    issues: Vec<Issue>,
    max_reported: usize,
}

impl Issues {
    /// Collects issues for a source.
    pub fn new(source: Source, issues: Vec<Issue>) -> Self {
        Issues {
            source,
            issues,
            max_reported: DEFAULT_MAX_ISSUES,
        }
    }

    /// The individual issues, in the order they were found.
    pub fn issues(&self) -> &[Issue] {
        &self.issues
    }

    /// The source the issues refer to.
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// Each issue with its resolved location, sorted by position (stable).
    pub fn located(&self) -> Vec<(Location, &Issue)> {
        let mut v: Vec<(Location, &Issue)> = self
            .issues
            .iter()
            .map(|i| {
                let loc = match i.offset {
                    Some(o) => self.source.location(o),
                    None => Location::NONE,
                };
                (loc, i)
            })
            .collect();
        v.sort_by_key(|a| a.0);
        v
    }

    fn render_one(&self, loc: Location, issue: &Issue, out: &mut String) {
        use std::fmt::Write;
        if self.source.text.is_empty() && loc != Location::NONE {
            // ANTLR puts the end of an empty input before its first column, and cel-go shows
            // no snippet of an empty source.
            let column = i32::from(self.source.empty_input_at_first_column);
            let _ = write!(
                out,
                "ERROR: <input>:{}:{column}: {}",
                loc.line, issue.message
            );
            return;
        }
        let _ = write!(
            out,
            "ERROR: <input>:{}:{}: {}",
            loc.line, loc.column, issue.message
        );
        if let Some(line) = self.source.line_text(loc.line) {
            if line.len() <= MAX_SNIPPET_LENGTH {
                out.push('\n');
                push_snippet(line, usize::try_from(loc.column - 1).unwrap_or(0), out);
            }
        }
    }
}

/// Appends cel-go's snippet of a source line with a caret under a column (0-based, in code
/// points): ` | line` (tabs shown as spaces), a line break, then ` | ` and a `.` for each
/// column before the caret `^`, both wide (`．`, `＾`) over a multi-byte character.
fn push_snippet(line: &str, column: usize, out: &mut String) {
    let line = line.replace('\t', " ");
    out.push_str(" | ");
    out.push_str(&line);
    out.push_str("\n | ");
    let mut chars = line.chars();
    for _ in 0..column {
        match chars.next() {
            Some(c) if c.len_utf8() > 1 => out.push('\u{FF0E}'),
            Some(_) => out.push('.'),
            None => break,
        }
    }
    match chars.next() {
        Some(c) if c.len_utf8() > 1 => out.push('\u{FF3E}'),
        _ => out.push('^'),
    }
}

impl std::error::Error for Issues {}

/// A message as Go's `fmt.Sprintf` prints it when it is used as the format string with no
/// arguments: every verb becomes `%!v(MISSING)` (`%%` a `%`, a trailing `%` `%!(NOVERB)`),
/// as older cel-go reports some messages.
pub fn sprintf_without_arguments(message: &str) -> String {
    let mut out = String::with_capacity(message.len() + 16);
    let mut chars = message.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        // Flags, width and precision, then the verb.
        while let Some(&f) = chars.peek() {
            if matches!(f, '+' | '-' | '#' | ' ' | '0'..='9' | '.') {
                chars.next();
            } else {
                break;
            }
        }
        match chars.next() {
            Some('%') => out.push('%'),
            Some(verb) => {
                out.push_str("%!");
                out.push(verb);
                out.push_str("(MISSING)");
            }
            None => out.push_str("%!(NOVERB)"),
        }
    }
    out
}

impl fmt::Display for Issues {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let located = self.located();
        let mut out = String::new();
        for (i, (loc, issue)) in located.iter().enumerate() {
            if i >= self.max_reported {
                break;
            }
            if i > 0 {
                out.push('\n');
            }
            self.render_one(*loc, issue, &mut out);
        }
        if located.len() > self.max_reported {
            out.push('\n');
            out.push_str(&format!(
                "{} more errors were truncated",
                located.len() - self.max_reported
            ));
        }
        f.write_str(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_source_is_reported_before_its_first_column_without_a_snippet() {
        let issues = Issues::new(
            Source::new(""),
            vec![Issue::new(Some(0), "Syntax error: x")],
        );
        assert_eq!(issues.to_string(), "ERROR: <input>:1:0: Syntax error: x");
        // cel-go before v0.22 (Kubernetes 1.31 and older): at the first column.
        let mut old = Source::new("");
        old.empty_input_at_first_column = true;
        let issues = Issues::new(old, vec![Issue::new(Some(0), "Syntax error: x")]);
        assert_eq!(issues.to_string(), "ERROR: <input>:1:1: Syntax error: x");
        let issues = Issues::new(
            Source::new(" "),
            vec![Issue::new(Some(1), "Syntax error: x")],
        );
        assert_eq!(
            issues.to_string(),
            "ERROR: <input>:1:2: Syntax error: x\n |  \n | .^"
        );
    }

    #[test]
    fn renders_like_cel_go() {
        let src = Source::new("object.x in [1, 2,");
        let issues = Issues::new(
            src,
            vec![Issue {
                offset: Some(18),
                message: "Syntax error: missing ']' at '<EOF>'".into(),
            }],
        );
        assert_eq!(
            issues.to_string(),
            "ERROR: <input>:1:19: Syntax error: missing ']' at '<EOF>'\n | object.x in [1, 2,\n | ..................^"
        );
    }

    #[test]
    fn caret_points_at_an_offset_as_issues_do() {
        let src = Source::new("a &&\n\t'é' == b");
        assert_eq!(src.caret(0), " | a &&\n | ^");
        assert_eq!(src.caret(3), " | a &&\n | ...^");
        // Tabs are shown as spaces; wide dots and caret over multi-byte characters.
        assert_eq!(src.caret(7), " |  'é' == b\n | ..＾");
        assert_eq!(src.caret(10), " |  'é' == b\n | ..．.^");
        // Past the end: after the last character.
        assert_eq!(src.caret(99), " |  'é' == b\n | ..．......^");
    }

    #[test]
    fn no_location_has_no_snippet() {
        let issues = Issues::new(
            Source::new("a"),
            vec![Issue {
                offset: None,
                message: "max recursion depth exceeded".into(),
            }],
        );
        assert_eq!(
            issues.to_string(),
            "ERROR: <input>:-1:0: max recursion depth exceeded"
        );
    }

    #[test]
    fn multiline_and_wide_runes() {
        let src = Source::new("a &&\n'é' == b");
        assert_eq!(src.location(5), Location { line: 2, column: 1 });
        let off = u32::try_from("a &&\n'é' ".len()).unwrap();
        assert_eq!(src.location(off), Location { line: 2, column: 5 });
        let issues = Issues::new(
            src,
            vec![Issue {
                offset: Some(6),
                message: "m".into(),
            }],
        );
        assert_eq!(
            issues.to_string(),
            "ERROR: <input>:2:2: m\n | 'é' == b\n | .＾"
        );
    }
}
