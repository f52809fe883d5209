//! Where things are in an editor's text: 1-based lines and columns (columns in code
//! points, as the YAML reader counts them) as the editor's UTF-16 offsets, and where a
//! piece of a scalar's value (a CEL expression) ends in the text that wrote it.
//!
//! This knows nothing of webhooks or of the engine: it works on characters.

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

    /// Where `part`, a piece of a string scalar's value whose first code point is written
    /// at `start`, ends in the text (one past its last code point), looking no further than
    /// `limit`. Code points of the text that produce nothing in the value are skipped:
    /// quotes, indentation, line breaks (a folded line break is the value's space), and in
    /// a double-quoted scalar an escape is one code point of the value. `None` when the
    /// text does not write `part` there.
    pub fn written_end(
        &self,
        start: usize,
        limit: usize,
        part: &str,
        double_quoted: bool,
    ) -> Option<usize> {
        let limit = limit.min(self.chars.len());
        let mut i = start;
        for wanted in part.chars() {
            loop {
                let written = *self.chars.get(i).filter(|_| i < limit)?;
                if double_quoted && written == '\\' {
                    match self.chars.get(i + 1) {
                        // An escaped line break: nothing in the value.
                        Some('\n' | '\r') => {
                            i += 2;
                            continue;
                        }
                        Some('x') => i += 4,
                        Some('u') => i += 6,
                        Some('U') => i += 10,
                        _ => i += 2,
                    }
                    break;
                }
                if written == wanted || (wanted == ' ' && written == '\n') {
                    i += 1;
                    break;
                }
                if matches!(written, ' ' | '\t' | '\n' | '\r' | '\'' | '"') {
                    i += 1;
                    continue;
                }
                return None;
            }
        }
        Some(i.min(limit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// The text marked for `part`, written from the first occurrence of `from` in `text`.
    fn marked(text: &str, from: &str, part: &str, double_quoted: bool) -> Option<String> {
        let index = TextIndex::new(text);
        let start = text[..text.find(from).unwrap()].chars().count();
        let end = index.written_end(start, index.chars().len(), part, double_quoted)?;
        Some(index.chars()[start..end].iter().collect())
    }

    #[test]
    fn a_piece_of_a_value_ends_where_its_text_ends() {
        // Plain and quoted on one line.
        assert_eq!(
            marked("e: object.x == 1", "object", "object", false).as_deref(),
            Some("object")
        );
        // Escapes in double quotes: one code point of the value each.
        assert_eq!(
            marked(r#"e: "m[\"k\"] == 1""#, "m[", "m[\"k\"]", true).as_deref(),
            Some(r#"m[\"k\"]"#)
        );
        assert_eq!(
            marked(r#"e: "request.\u0075id""#, "\\u", "uid", true).as_deref(),
            Some(r"\u0075id")
        );
        // Doubled single quotes.
        assert_eq!(
            marked("e: 'a[''k'']'", "a[", "a['k']", false).as_deref(),
            Some("a[''k'']")
        );
        // A folded line break is a space of the value; the indentation after it is skipped.
        assert_eq!(
            marked("e: >-\n  a &&\n    object.x", "&&", "&& object", false).as_deref(),
            Some("&&\n    object")
        );
        // Text that does not write the piece.
        assert_eq!(marked("e: object.x", "object", "objekt", false), None);
        // Not past the limit.
        let index = TextIndex::new("abc");
        assert_eq!(index.written_end(0, 2, "abc", false), None);
        assert_eq!(index.written_end(0, 2, "ab", false), Some(2));
    }
}
