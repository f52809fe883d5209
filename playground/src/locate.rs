//! Where things are in the configuration editor's text: field paths
//! (`webhooks[0].matchConditions[1].expression`) to source spans, and offsets inside a
//! scalar's value (a CEL expression) to offsets in the text that wrote it.
//!
//! The text is read as YAML events with source spans; this knows nothing of webhooks. Any
//! text the YAML reader refuses simply has no positions (findings are still listed).

use saphyr_parser::{Event, Parser, ScalarStyle, Span};

/// Deeper nodes are not kept (a field path never goes that deep).
const MAX_DEPTH: usize = 64;

/// A span of the text, in code points (`start..end`), with the 1-based line and 0-based
/// column of its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CharSpan {
    /// First code point.
    pub start: usize,
    /// One past the last code point.
    pub end: usize,
    /// 1-based line of `start`.
    pub line: usize,
    /// 0-based column of `start`, in code points.
    pub column: usize,
}

impl CharSpan {
    fn of(span: Span) -> CharSpan {
        CharSpan {
            start: span.start.index(),
            end: span.end.index().max(span.start.index()),
            line: span.start.line(),
            column: span.start.col(),
        }
    }
}

/// A scalar as written.
#[derive(Clone, Debug)]
pub struct Scalar {
    /// Its value.
    pub value: String,
    /// How it was written.
    pub style: ScalarStyle,
}

#[derive(Clone, Debug)]
enum Kind {
    Map(Vec<(String, CharSpan, Node)>),
    Seq(Vec<Node>),
    Scalar(Scalar),
    /// An alias, or what lies deeper than [`MAX_DEPTH`].
    Other,
}

/// A node of a document.
#[derive(Clone, Debug)]
pub struct Node {
    span: CharSpan,
    kind: Kind,
}

impl Node {
    /// Where the node is written.
    pub fn span(&self) -> CharSpan {
        self.span
    }

    /// The scalar, if the node is one.
    pub fn scalar(&self) -> Option<&Scalar> {
        match &self.kind {
            Kind::Scalar(s) => Some(s),
            _ => None,
        }
    }

    fn get(&self, segment: &Segment) -> Option<(Option<CharSpan>, &Node)> {
        match (&self.kind, segment) {
            (Kind::Map(entries), Segment::Key(k)) => entries
                .iter()
                .find(|(key, _, _)| key == k)
                .map(|(_, span, node)| (Some(*span), node)),
            (Kind::Seq(items), Segment::Index(i)) => items.get(*i).map(|n| (None, n)),
            _ => None,
        }
    }
}

/// One step of a field path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    /// A field (`webhooks`) or a map key (`[app.kubernetes.io/name]`).
    Key(String),
    /// A list index (`[0]`).
    Index(usize),
}

/// Splits `webhooks[0].rules[1].operations` (apimachinery's field paths; a bracketed
/// non-number is a map key).
pub fn parse_path(path: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('[') {
            let close = after.find(']').unwrap_or(after.len());
            let inner = after.get(..close).unwrap_or("");
            out.push(match inner.parse::<usize>() {
                Ok(i) => Segment::Index(i),
                Err(_) => Segment::Key(inner.to_owned()),
            });
            rest = after.get(close + 1..).unwrap_or("");
        } else {
            let rest_trimmed = rest.strip_prefix('.').unwrap_or(rest);
            let end = rest_trimmed.find(['.', '[']).unwrap_or(rest_trimmed.len());
            let name = rest_trimmed.get(..end).unwrap_or("");
            if !name.is_empty() {
                out.push(Segment::Key(name.to_owned()));
            }
            rest = rest_trimmed.get(end..).unwrap_or("");
        }
    }
    out
}

/// Where a field path leads.
#[derive(Clone, Debug)]
pub struct Found<'a> {
    /// The deepest node reached.
    pub node: &'a Node,
    /// The key that names it, if it is a mapping's value (not a list's item).
    pub key: Option<CharSpan>,
    /// True when the whole path was found.
    pub complete: bool,
}

impl Found<'_> {
    /// The span to mark: the value when it is a scalar, else its key, else its start (an
    /// empty span: the rest of its line).
    pub fn mark(&self) -> CharSpan {
        match (&self.node.kind, self.key) {
            (Kind::Scalar(_), _) if self.complete => self.node.span,
            (_, Some(key)) => key,
            _ => CharSpan {
                end: self.node.span.start,
                ..self.node.span
            },
        }
    }
}

/// The documents of a text, as trees with spans.
#[derive(Clone, Debug, Default)]
pub struct Documents {
    docs: Vec<Node>,
}

impl Documents {
    /// Reads every document of a text; `None` when it is not YAML the reader takes.
    pub fn read(text: &str) -> Option<Documents> {
        let mut builder = Builder::default();
        for event in Parser::new_from_str(text) {
            let (event, span) = event.ok()?;
            builder.event(event, span);
        }
        Some(Documents { docs: builder.docs })
    }

    /// The number of documents.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// True when there is no document.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// The root of a document.
    pub fn root(&self, document: usize) -> Option<&Node> {
        self.docs.get(document)
    }

    /// Follows a path from a document's root as far as it goes.
    pub fn find(&self, document: usize, path: &[Segment]) -> Option<Found<'_>> {
        let mut found = Found {
            node: self.docs.get(document)?,
            key: None,
            complete: true,
        };
        for segment in path {
            match found.node.get(segment) {
                Some((key, node)) => {
                    found.node = node;
                    found.key = key;
                }
                None => {
                    found.complete = false;
                    break;
                }
            }
        }
        Some(found)
    }
}

/// Builds trees from events without recursion (any nesting depth).
#[derive(Default)]
struct Builder {
    docs: Vec<Node>,
    /// Open collections: the node, and for a mapping the key waiting for its value.
    stack: Vec<(Node, Option<(String, CharSpan)>)>,
    /// Levels opened beyond [`MAX_DEPTH`] (not kept).
    skipped: usize,
}

impl Builder {
    fn event(&mut self, event: Event<'_>, span: Span) {
        let here = CharSpan::of(span);
        match event {
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                if self.skipped > 0 || self.stack.len() >= MAX_DEPTH {
                    self.skipped += 1;
                    return;
                }
                let kind = if matches!(event, Event::MappingStart(..)) {
                    Kind::Map(Vec::new())
                } else {
                    Kind::Seq(Vec::new())
                };
                self.stack.push((Node { span: here, kind }, None));
            }
            Event::MappingEnd | Event::SequenceEnd => {
                if self.skipped > 0 {
                    self.skipped -= 1;
                    if self.skipped == 0 {
                        self.add(Node {
                            span: here,
                            kind: Kind::Other,
                        });
                    }
                    return;
                }
                if let Some((mut node, _)) = self.stack.pop() {
                    node.span.end = here.end.max(node.span.start);
                    self.add(node);
                }
            }
            Event::Scalar(value, style, ..) if self.skipped == 0 => self.add(Node {
                span: here,
                kind: Kind::Scalar(Scalar {
                    value: value.into_owned(),
                    style,
                }),
            }),
            Event::Alias(_) if self.skipped == 0 => self.add(Node {
                span: here,
                kind: Kind::Other,
            }),
            _ => {}
        }
    }

    /// Adds a finished node to the open collection, or ends a document with it.
    fn add(&mut self, node: Node) {
        let Some((parent, pending)) = self.stack.last_mut() else {
            self.docs.push(node);
            return;
        };
        match &mut parent.kind {
            Kind::Seq(items) => items.push(node),
            Kind::Map(entries) => match pending.take() {
                Some((key, key_span)) => entries.push((key, key_span, node)),
                None => {
                    let key = match &node.kind {
                        Kind::Scalar(s) => s.value.clone(),
                        _ => String::new(),
                    };
                    *pending = Some((key, node.span));
                }
            },
            _ => {}
        }
    }
}

/// A text's code points with their UTF-16 offsets (the editor's positions) and lines.
#[derive(Clone, Debug)]
pub struct TextIndex {
    chars: Vec<char>,
    /// UTF-16 offset of each code point, and of the end.
    utf16: Vec<u32>,
    /// Code point index where each line starts.
    line_starts: Vec<usize>,
}

impl TextIndex {
    /// Indexes a text.
    pub fn new(text: &str) -> TextIndex {
        let chars: Vec<char> = text.chars().collect();
        let mut utf16 = Vec::with_capacity(chars.len() + 1);
        let mut line_starts = vec![0];
        let mut at: u32 = 0;
        for (i, c) in chars.iter().enumerate() {
            utf16.push(at);
            at = at.saturating_add(u32::try_from(c.len_utf16()).unwrap_or(2));
            if *c == '\n' {
                line_starts.push(i + 1);
            }
        }
        utf16.push(at);
        TextIndex {
            chars,
            utf16,
            line_starts,
        }
    }

    /// The code points.
    pub fn chars(&self) -> &[char] {
        &self.chars
    }

    /// The UTF-16 offset of a code point index (clamped to the end).
    pub fn utf16(&self, index: usize) -> u32 {
        self.utf16
            .get(index.min(self.chars.len()))
            .copied()
            .unwrap_or(0)
    }

    /// The 1-based line and 1-based column (in code points) of a code point index.
    pub fn line_column(&self, index: usize) -> (usize, usize) {
        let index = index.min(self.chars.len());
        let line = self.line_starts.partition_point(|s| *s <= index);
        let start = self
            .line_starts
            .get(line.saturating_sub(1))
            .copied()
            .unwrap_or(0);
        (line.max(1), index - start + 1)
    }

    /// The code point index of a 1-based line and column (clamped to the line).
    pub fn index_of(&self, line: usize, column: usize) -> usize {
        let Some(start) = self.line_starts.get(line.saturating_sub(1)).copied() else {
            return self.chars.len();
        };
        let end = self
            .line_starts
            .get(line)
            .map_or(self.chars.len(), |next| next.saturating_sub(1));
        (start + column.saturating_sub(1)).min(end)
    }

    /// The end of the line holding a code point index (before its line break).
    pub fn line_end(&self, index: usize) -> usize {
        let (line, _) = self.line_column(index);
        self.line_starts
            .get(line)
            .map_or(self.chars.len(), |next| next.saturating_sub(1))
    }
}

/// A decoded code point and the code points `start..end` of the text that wrote it.
type Written = (char, usize, usize);

/// For each code point of a scalar's value, the code points of the text that wrote it
/// (`start..end`: an escape is several); `None` when the scalar is written in a way this
/// does not follow (then only the whole scalar can be marked).
pub fn value_map(chars: &[char], node: &Node) -> Option<Vec<(usize, usize)>> {
    let Kind::Scalar(scalar) = &node.kind else {
        return None;
    };
    let span = node.span;
    let (start, end) = (span.start, span.end.min(chars.len()));
    let written = chars.get(start..end)?;
    let decoded = match scalar.style {
        ScalarStyle::Plain => flow(written, start, Quotes::None),
        ScalarStyle::SingleQuoted => flow(unquote(written, '\'')?, start + 1, Quotes::Single),
        ScalarStyle::DoubleQuoted => flow(unquote(written, '"')?, start + 1, Quotes::Double),
        ScalarStyle::Literal | ScalarStyle::Folded => block(
            chars,
            start,
            end,
            span.column,
            scalar.style == ScalarStyle::Folded,
        ),
    };
    // Block scalars end with line breaks their chomping decides: compare without them.
    let block = matches!(scalar.style, ScalarStyle::Literal | ScalarStyle::Folded);
    let trim = |s: &[char]| {
        if block {
            s.len() - s.iter().rev().take_while(|c| **c == '\n').count()
        } else {
            s.len()
        }
    };
    let value: Vec<char> = scalar.value.chars().collect();
    let ours: Vec<char> = decoded.iter().map(|d| d.0).collect();
    let n = trim(&value);
    if n != trim(&ours) || value.get(..n) != ours.get(..n) {
        return None;
    }
    let mut map: Vec<(usize, usize)> = decoded.iter().take(n).map(|d| (d.1, d.2)).collect();
    let last = map.last().map_or(start, |p| p.1);
    map.resize(value.len(), (last, last));
    Some(map)
}

fn unquote(written: &[char], quote: char) -> Option<&[char]> {
    match written {
        [first, inner @ .., last] if *first == quote && *last == quote => Some(inner),
        _ => None,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Quotes {
    None,
    Single,
    Double,
}

/// Decodes a plain or quoted scalar's text (without its quotes) with line folding, keeping
/// where each code point came from.
fn flow(text: &[char], offset: usize, quotes: Quotes) -> Vec<Written> {
    let mut out: Vec<Written> = Vec::new();
    // Code points before this index came from escapes and survive line folding.
    let mut kept = 0;
    let mut i = 0;
    while let Some(&c) = text.get(i) {
        let at = offset + i;
        if c == '\n' || c == '\r' {
            while out.len() > kept && matches!(out.last(), Some((' ' | '\t', ..))) {
                out.pop();
            }
            let mut breaks = 0;
            while let Some(&b) = text.get(i) {
                match b {
                    '\n' => {
                        breaks += 1;
                        i += 1;
                    }
                    '\r' | ' ' | '\t' => i += 1,
                    _ => break,
                }
            }
            if breaks <= 1 {
                out.push((' ', at, at + 1));
            } else {
                out.extend(std::iter::repeat_n(('\n', at, at + 1), breaks - 1));
            }
            continue;
        }
        match (quotes, c) {
            (Quotes::Single, '\'') if text.get(i + 1) == Some(&'\'') => {
                out.push(('\'', at, at + 2));
                i += 2;
                kept = out.len();
            }
            (Quotes::Double, '\\') => {
                let Some(&e) = text.get(i + 1) else {
                    out.push((c, at, at + 1));
                    i += 1;
                    continue;
                };
                if e == '\n' || e == '\r' {
                    // An escaped line break: nothing, and the next line's indentation goes.
                    i += 1;
                    while matches!(text.get(i), Some('\n' | '\r' | ' ' | '\t')) {
                        i += 1;
                    }
                    kept = out.len();
                    continue;
                }
                let hex = |n: usize| -> Option<char> {
                    let digits: String = text.get(i + 2..i + 2 + n)?.iter().collect();
                    char::from_u32(u32::from_str_radix(&digits, 16).ok()?)
                };
                let (decoded, width) = match e {
                    '0' => (Some('\0'), 2),
                    'a' => (Some('\u{7}'), 2),
                    'b' => (Some('\u{8}'), 2),
                    't' | '\t' => (Some('\t'), 2),
                    'n' => (Some('\n'), 2),
                    'v' => (Some('\u{b}'), 2),
                    'f' => (Some('\u{c}'), 2),
                    'r' => (Some('\r'), 2),
                    'e' => (Some('\u{1b}'), 2),
                    ' ' => (Some(' '), 2),
                    '"' => (Some('"'), 2),
                    '/' => (Some('/'), 2),
                    '\\' => (Some('\\'), 2),
                    'N' => (Some('\u{85}'), 2),
                    '_' => (Some('\u{a0}'), 2),
                    'L' => (Some('\u{2028}'), 2),
                    'P' => (Some('\u{2029}'), 2),
                    'x' => (hex(2), 4),
                    'u' => (hex(4), 6),
                    'U' => (hex(8), 10),
                    _ => (None, 2),
                };
                out.push((decoded.unwrap_or(e), at, at + width));
                i += width;
                kept = out.len();
            }
            _ => {
                out.push((c, at, at + 1));
                i += 1;
            }
        }
    }
    out
}

/// Decodes a literal (`|`) or folded (`>`) block scalar whose content starts at `start`
/// (its first line's indentation already skipped: the indentation is `start`'s column) and
/// ends at `end`, keeping where each code point came from.
fn block(chars: &[char], start: usize, end: usize, indent: usize, folded: bool) -> Vec<Written> {
    // The lines, as (code point index of the first content code point, length).
    let mut lines: Vec<(usize, usize)> = Vec::new();
    let mut i = start;
    let mut first = true;
    while i < end {
        let line_end = (i..end)
            .find(|j| chars.get(*j) == Some(&'\n'))
            .unwrap_or(end);
        let text = chars.get(i..line_end).unwrap_or(&[]);
        let text = text.strip_suffix(&['\r']).unwrap_or(text);
        let strip = if first {
            0
        } else {
            text.iter().take(indent).take_while(|c| **c == ' ').count()
        };
        first = false;
        lines.push((i + strip, text.len() - strip));
        i = line_end + 1;
    }
    let mut out = Vec::new();
    let is_blank = |line: &(usize, usize)| line.1 == 0;
    let more_indented =
        |line: &(usize, usize)| matches!(chars.get(line.0), Some(' ' | '\t')) && line.1 > 0;
    let mut n = 0;
    while let Some(line) = lines.get(n) {
        out.extend((line.0..line.0 + line.1).filter_map(|j| Some((*chars.get(j)?, j, j + 1))));
        let at = line.0 + line.1;
        // The blank lines that follow, and the next line with content.
        let blanks = lines.iter().skip(n + 1).take_while(|l| is_blank(l)).count();
        let Some(next) = lines.get(n + 1 + blanks) else {
            break;
        };
        let keep_breaks = !folded || is_blank(line) || more_indented(line) || more_indented(next);
        if keep_breaks {
            out.extend(std::iter::repeat_n(('\n', at, at + 1), blanks + 1));
        } else if blanks == 0 {
            out.push((' ', at, at + 1));
        } else {
            out.extend(std::iter::repeat_n(('\n', at, at + 1), blanks));
        }
        n += 1 + blanks;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(k: &str) -> Segment {
        Segment::Key(k.to_owned())
    }

    /// The text a span covers.
    fn text(source: &str, span: CharSpan) -> String {
        source
            .chars()
            .skip(span.start)
            .take(span.end - span.start)
            .collect()
    }

    #[test]
    fn field_paths_split_into_fields_indexes_and_keys() {
        assert_eq!(
            parse_path("webhooks[0].rules[12].operations"),
            vec![
                key("webhooks"),
                Segment::Index(0),
                key("rules"),
                Segment::Index(12),
                key("operations")
            ]
        );
        assert_eq!(
            parse_path("metadata.labels[app.kubernetes.io/name]"),
            vec![
                key("metadata"),
                key("labels"),
                key("app.kubernetes.io/name")
            ]
        );
        assert_eq!(parse_path(""), Vec::<Segment>::new());
        assert_eq!(parse_path("a[unclosed"), vec![key("a"), key("unclosed")]);
    }

    const TWO: &str = "\
# first
kind: ValidatingWebhookConfiguration
metadata: {name: a}
webhooks:
  - name: one.example.com
    failurePolicy: Sometimes
    rules:
      - operations: [\"CREATE\"]
---
kind: MutatingWebhookConfiguration
webhooks:
- name: two.example.com
  matchConditions:
  - name: c
    expression: 'x'
";

    #[test]
    fn paths_lead_to_values_keys_or_where_they_stop() {
        let docs = Documents::read(TWO).unwrap();
        assert_eq!(docs.len(), 2);
        let mark = |doc, path: &str| {
            let found = docs.find(doc, &parse_path(path)).unwrap();
            (text(TWO, found.mark()), found.complete)
        };
        assert_eq!(
            mark(0, "webhooks[0].failurePolicy"),
            ("Sometimes".to_owned(), true)
        );
        assert_eq!(mark(0, "metadata.name"), ("a".to_owned(), true));
        assert_eq!(
            mark(0, "webhooks[0].rules[0].operations[0]"),
            ("\"CREATE\"".to_owned(), true)
        );
        // A collection: its key.
        assert_eq!(mark(0, "webhooks[0].rules"), ("rules".to_owned(), true));
        // A list item: where it starts (the rest of its line is marked in the editor).
        let found = docs.find(0, &parse_path("webhooks[0]")).unwrap();
        assert_eq!(found.mark().end, found.mark().start);
        assert_eq!(found.mark().line, 5);
        // A missing field: the object that should hold it.
        let found = docs
            .find(0, &parse_path("webhooks[0].sideEffects"))
            .unwrap();
        assert!(!found.complete);
        assert_eq!(found.mark().line, 5);
        assert_eq!(
            mark(1, "webhooks[0].matchConditions[0].expression"),
            ("'x'".to_owned(), true)
        );
        assert!(docs.find(2, &[]).is_none());
    }

    #[test]
    fn text_that_is_not_yaml_has_no_positions() {
        assert!(Documents::read("a: [1, 2\nb: }").is_none());
        assert!(Documents::read("").is_some_and(|d| d.is_empty()));
    }

    #[test]
    fn nesting_of_any_depth_is_read_without_recursion() {
        // The reader refuses very deep nesting; nothing overflows.
        let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(Documents::read(&deep).is_none());
        let deep_map = format!("{}1{}", "{a: ".repeat(200), "}".repeat(200));
        let docs = Documents::read(&deep_map).unwrap();
        // Collections deeper than MAX_DEPTH are not kept.
        let path: Vec<Segment> = (0..MAX_DEPTH).map(|_| key("a")).collect();
        assert!(docs.find(0, &path).unwrap().complete);
        let path: Vec<Segment> = (0..=MAX_DEPTH).map(|_| key("a")).collect();
        assert!(!docs.find(0, &path).unwrap().complete);
    }

    #[test]
    fn text_index_counts_utf16_and_lines() {
        let index = TextIndex::new("a😀b\nçd\n");
        assert_eq!(index.chars().len(), 7);
        assert_eq!(index.utf16(1), 1);
        assert_eq!(index.utf16(2), 3);
        assert_eq!(index.utf16(99), 8);
        assert_eq!(index.line_column(0), (1, 1));
        assert_eq!(index.line_column(2), (1, 3));
        assert_eq!(index.line_column(4), (2, 1));
        assert_eq!(index.line_column(7), (3, 1));
        assert_eq!(index.index_of(2, 2), 5);
        assert_eq!(index.index_of(2, 99), 6);
        assert_eq!(index.index_of(9, 1), 7);
        assert_eq!(index.line_end(4), 6);
    }

    /// Where each code point of the value at `path` was written, as the text of the span
    /// from the value's byte `from` to `to`.
    fn written(source: &str, path: &str, from: &str) -> Option<String> {
        let docs = Documents::read(source).unwrap();
        let node = docs.find(0, &parse_path(path)).unwrap().node;
        let value = &node.scalar().unwrap().value;
        let chars: Vec<char> = source.chars().collect();
        let map = value_map(&chars, node)?;
        let start = value[..value.find(from).unwrap()].chars().count();
        let end = start + from.chars().count();
        let (a, b) = (map[start].0, map[end - 1].1);
        Some(chars[a..b].iter().collect())
    }

    #[test]
    fn plain_and_quoted_scalars_map_back_to_their_text() {
        assert_eq!(
            written("e: request.uid == 'x'\n", "e", "uid").as_deref(),
            Some("uid")
        );
        assert_eq!(
            written("e: \"a \\\"q\\\" \\u00e9 request.uid\"\n", "e", "uid").as_deref(),
            Some("uid")
        );
        assert_eq!(
            written("e: \"a \\\"q\\\" \\u00e9 request.uid\"\n", "e", "\"q\"").as_deref(),
            Some("\\\"q\\\"")
        );
        assert_eq!(
            written("e: 'it''s request.uid'\n", "e", "uid").as_deref(),
            Some("uid")
        );
        // Line folding: the break is one space, indentation goes.
        assert_eq!(
            written(
                "e: request.namespace ==\n   'a' &&\n   request.uid\n",
                "e",
                "uid"
            )
            .as_deref(),
            Some("uid")
        );
        assert_eq!(
            written("e: \"request.a \\\n   && request.uid\"\n", "e", "uid").as_deref(),
            Some("uid")
        );
    }

    #[test]
    fn block_scalars_map_back_to_their_text() {
        let literal = "e: |\n  request.a &&\n    request.uid\n";
        assert_eq!(written(literal, "e", "uid").as_deref(), Some("uid"));
        let folded = "e: >-\n  request.a &&\n  request.uid == 'x'\n\n  && b\nf: 1\n";
        assert_eq!(written(folded, "e", "uid").as_deref(), Some("uid"));
        assert_eq!(written(folded, "e", "b").as_deref(), Some("b"));
        let kept = "e: |+ # comment\n  a\n\n  request.uid\n\n";
        assert_eq!(written(kept, "e", "uid").as_deref(), Some("uid"));
        assert_eq!(
            written("e: |2\n   request.uid\n", "e", "uid").as_deref(),
            Some("uid")
        );
    }
}
