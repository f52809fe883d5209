//! Positions inside expressions: an expression's byte offset as a line and column of the
//! expression (with cel-go's caret snippet) and as a line and column of the file it was
//! read from, whatever the YAML style of the scalar (plain, quoted with escapes, literal or
//! folded block).

use matchcond_dispatch::yaml::{Node, Position, Style};
use matchcond_front::Source;

use crate::finding::ExprSpan;

/// The span of bytes `start..end` of an expression, with the expression's line and column
/// and cel-go's caret snippet ([`Source::caret`]).
pub(crate) fn expr_span(expression: &str, start: usize, end: usize) -> ExprSpan {
    let start = start.min(expression.len());
    let source = Source::new(expression);
    let offset = u32::try_from(start).unwrap_or(u32::MAX);
    let location = source.location(offset);
    ExprSpan {
        start,
        end: end.max(start).min(expression.len()),
        line: u32::try_from(location.line).unwrap_or(u32::MAX),
        column: u32::try_from(location.column).unwrap_or(u32::MAX),
        snippet: source.caret(offset),
    }
}

/// The position in the text of the character at byte `offset` of a string scalar's value.
///
/// The value's characters are aligned with the scalar's source: equal characters match,
/// source characters that produce nothing (quotes, escapes, indentation, folded line breaks)
/// are skipped. When the value cannot be aligned with its source (escapes such as `\u00e9`
/// that change characters), the scalar's own position is returned.
pub(crate) fn text_position(text: &str, node: &Node, value: &str, offset: usize) -> Position {
    let target = value
        .get(..offset.min(value.len()))
        .map_or(0, |s| s.chars().count());
    let Some(start_byte) = char_to_byte(text, node.start_index) else {
        return node.start;
    };
    let source = text.get(start_byte..).unwrap_or("");
    let mut src = source.chars().peekable();
    let mut line = node.start.line;
    let mut column = node.start.column;
    let mut consumed = 0usize;
    let limit = node.end_index.saturating_sub(node.start_index);
    let escapes = node.style == Style::DoubleQuoted;
    for (i, v) in value.chars().enumerate() {
        // Find the source character (or escape sequence) that produced `v`.
        let width = loop {
            let Some(&s) = src.peek() else {
                return node.start;
            };
            if consumed >= limit {
                return node.start;
            }
            if escapes && s == '\\' {
                let mut ahead = src.clone();
                ahead.next();
                let width = match ahead.next() {
                    Some('x') => 4,
                    Some('u') => 6,
                    Some('U') => 10,
                    Some('\n' | '\r') | None => 0,
                    Some(_) => 2,
                };
                if width > 0 {
                    break width;
                }
            } else if s == v {
                break 1;
            }
            src.next();
            consumed += 1;
            if s == '\n' {
                line += 1;
                column = 1;
            } else {
                column += 1;
            }
        };
        if i == target {
            return Position::new(line, column);
        }
        for _ in 0..width {
            if src.next() == Some('\n') {
                line += 1;
                column = 1;
            } else {
                column += 1;
            }
            consumed += 1;
        }
    }
    if target == value.chars().count() {
        return Position::new(line, column);
    }
    node.start
}

fn char_to_byte(text: &str, chars: usize) -> Option<usize> {
    if chars == 0 {
        return Some(0);
    }
    text.char_indices()
        .nth(chars)
        .map(|(b, _)| b)
        .or_else(|| (text.chars().count() == chars).then_some(text.len()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use matchcond_dispatch::yaml::read_documents;

    /// The text position of the first occurrence of `needle` in the value of key `e`.
    fn at(text: &str, needle: &str) -> Position {
        let root = read_documents(text).documents[0].root.clone().unwrap();
        let node = root.get("e").unwrap();
        let value = node.as_str().unwrap();
        let offset = value.find(needle).unwrap();
        text_position(text, node, value, offset)
    }

    #[test]
    fn plain_and_quoted_scalars() {
        assert_eq!(at("e: object.x == 1\n", "object"), Position::new(1, 4));
        assert_eq!(at("e: object.x == 1\n", "1"), Position::new(1, 16));
        assert_eq!(at("e: 'a ''b'' c'\n", "c"), Position::new(1, 13));
        assert_eq!(
            at("e: \"m[\\\"k\\\"] == 1\"\n", "== 1"),
            Position::new(1, 14)
        );
        assert_eq!(at("x: 1\ne: \"a\\tb c\"\n", "c"), Position::new(2, 10));
        assert_eq!(at("e: \"\\u00e9 + x\"\n", "x"), Position::new(1, 14));
        // A value that does not come from its source: the scalar's position.
        assert_eq!(
            text_position(
                "e: ab\n",
                &read_documents("e: ab\n").documents[0]
                    .root
                    .clone()
                    .unwrap()
                    .get("e")
                    .unwrap()
                    .clone(),
                "zz",
                1
            ),
            Position::new(1, 4)
        );
    }

    #[test]
    fn block_scalars() {
        let text = "e: |\n  request.name != '' &&\n    object.metadata.labels['app'] == 'web'\n";
        assert_eq!(at(text, "object"), Position::new(3, 5));
        assert_eq!(at(text, "['app']"), Position::new(3, 27));
        let text = "e: >-\n  a ||\n  object.x == 1\n";
        assert_eq!(at(text, "object"), Position::new(3, 3));
        let text = "e: a &&\n  object.x\n  == 1\n";
        assert_eq!(at(text, "object"), Position::new(2, 3));
        assert_eq!(at(text, "1"), Position::new(3, 6));
    }

    #[test]
    fn spans() {
        let s = expr_span("request.name != '' &&\n  object.metadata", 24, 30);
        assert_eq!((s.line, s.column), (2, 3));
        assert_eq!(s.snippet, " |   object.metadata\n | ..^");
        let s = expr_span("'é' == object.x", 8, 14);
        assert_eq!(s.snippet, " | 'é' == object.x\n | .\u{FF0E}.....^");
    }
}
