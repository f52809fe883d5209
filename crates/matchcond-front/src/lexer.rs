//! The CEL lexer.
//!
//! Tokens follow the lexical grammar of CEL exactly as the reference implementation's
//! generated lexer produces them: longest match, with the first-declared rule winning a
//! tie, and a fallback to the longest prefix that formed a token when a longer attempt
//! fails. Text that forms no token at all is reported as a "token recognition error"
//! covering the characters the lexer examined, after which one more character is
//! skipped. Whitespace and comments are kept as hidden tokens, because error messages
//! quote the original text between two tokens.

/// Token types, numbered as in the reference grammar (they order the sets of expected
/// tokens printed in syntax errors). End of input is 0.
pub(crate) mod tt {
    pub const EOF: u8 = 0;
    pub const EQUALS: u8 = 1;
    pub const NOT_EQUALS: u8 = 2;
    pub const IN: u8 = 3;
    pub const LESS: u8 = 4;
    pub const LESS_EQUALS: u8 = 5;
    pub const GREATER_EQUALS: u8 = 6;
    pub const GREATER: u8 = 7;
    pub const LOGICAL_AND: u8 = 8;
    pub const LOGICAL_OR: u8 = 9;
    pub const LBRACKET: u8 = 10;
    pub const RBRACKET: u8 = 11;
    pub const LBRACE: u8 = 12;
    pub const RBRACE: u8 = 13;
    pub const LPAREN: u8 = 14;
    pub const RPAREN: u8 = 15;
    pub const DOT: u8 = 16;
    pub const COMMA: u8 = 17;
    pub const MINUS: u8 = 18;
    pub const EXCLAM: u8 = 19;
    pub const QUESTIONMARK: u8 = 20;
    pub const COLON: u8 = 21;
    pub const PLUS: u8 = 22;
    pub const STAR: u8 = 23;
    pub const SLASH: u8 = 24;
    pub const PERCENT: u8 = 25;
    pub const CEL_TRUE: u8 = 26;
    pub const CEL_FALSE: u8 = 27;
    pub const NUL: u8 = 28;
    pub const WHITESPACE: u8 = 29;
    pub const COMMENT: u8 = 30;
    pub const NUM_FLOAT: u8 = 31;
    pub const NUM_INT: u8 = 32;
    pub const NUM_UINT: u8 = 33;
    pub const STRING: u8 = 34;
    pub const BYTES: u8 = 35;
    pub const IDENTIFIER: u8 = 36;
    pub const ESC_IDENTIFIER: u8 = 37;
}

/// The display name of a token type in "expecting" lists.
pub(crate) fn token_name(t: u8) -> &'static str {
    const NAMES: [&str; 38] = [
        "<EOF>",
        "'=='",
        "'!='",
        "'in'",
        "'<'",
        "'<='",
        "'>='",
        "'>'",
        "'&&'",
        "'||'",
        "'['",
        "']'",
        "'{'",
        "'}'",
        "'('",
        "')'",
        "'.'",
        "','",
        "'-'",
        "'!'",
        "'?'",
        "':'",
        "'+'",
        "'*'",
        "'/'",
        "'%'",
        "'true'",
        "'false'",
        "'null'",
        "WHITESPACE",
        "COMMENT",
        "NUM_FLOAT",
        "NUM_INT",
        "NUM_UINT",
        "STRING",
        "BYTES",
        "IDENTIFIER",
        "ESC_IDENTIFIER",
    ];
    NAMES.get(usize::from(t)).copied().unwrap_or("<INVALID>")
}

/// One token: its type and its byte range in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    /// Token type (see [`tt`]).
    pub kind: u8,
    /// Byte offset of the first character.
    pub start: u32,
    /// Byte offset one past the last character.
    pub end: u32,
}

impl Token {
    /// True for whitespace and comments, which the parser does not see.
    pub fn hidden(&self) -> bool {
        self.kind == tt::WHITESPACE || self.kind == tt::COMMENT
    }
}

/// The outcome of lexing at one position.
pub(crate) enum Lexed {
    /// A token.
    Token(Token),
    /// No token could be formed: the byte range of the characters examined (shown in the
    /// error) and the position where lexing resumes.
    Error {
        /// Start of the failed token.
        start: u32,
        /// End (exclusive) of the text quoted in the error.
        end: u32,
    },
}

/// An on-demand lexer over a source text.
pub(crate) struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    done: bool,
    /// Backquoted identifiers are tokens (cel-go v0.23+); otherwise a backquote is a
    /// character no token starts with.
    backquotes: bool,
}

/// Outcome of a sub-scanner: the longest accepted length (if any) and the failure point.
struct Scan {
    /// Length (from the token start) of the longest accepted prefix, with its type.
    accept: Option<(usize, u8)>,
    /// Position where no continuation was possible (None when the scan ended in an
    /// accept with no further viable continuation).
    fail: Option<usize>,
}

fn is_letter(b: u8) -> bool {
    b.is_ascii_alphabetic()
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn is_esc_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'/' | b' ')
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl<'a> Lexer<'a> {
    /// A lexer positioned at the start of `src`.
    pub fn new(src: &'a str) -> Self {
        Lexer::with_backquotes(src, true)
    }

    /// A lexer that lexes backquoted identifiers as tokens, or not (the grammar of cel-go
    /// before v0.23, where a backquote is a token recognition error).
    pub fn with_backquotes(src: &'a str, backquotes: bool) -> Self {
        Lexer {
            src,
            bytes: src.as_bytes(),
            pos: 0,
            done: false,
            backquotes,
        }
    }

    fn at(&self, i: usize) -> Option<u8> {
        self.bytes.get(i).copied()
    }

    /// Length in bytes of the character starting at `i` (1 at the end of input).
    fn char_len(&self, i: usize) -> usize {
        self.src
            .get(i..)
            .and_then(|s| s.chars().next())
            .map(char::len_utf8)
            .unwrap_or(1)
    }

    /// The next token or error. After the end-of-input token, keeps returning it.
    pub fn next(&mut self) -> Lexed {
        let len = self.bytes.len();
        let start = self.pos;
        if start >= len || self.done {
            self.done = true;
            let l = to_u32(len);
            return Lexed::Token(Token {
                kind: tt::EOF,
                start: l,
                end: l,
            });
        }
        let scan = self.scan_token(start);
        match scan.accept {
            Some((n, kind)) => {
                self.pos = start + n;
                Lexed::Token(Token {
                    kind,
                    start: to_u32(start),
                    end: to_u32(start + n),
                })
            }
            None => {
                let fail = scan.fail.unwrap_or(start).min(len);
                // The failing character is quoted in the error and skipped.
                let end = if fail >= len {
                    len
                } else {
                    fail + self.char_len(fail)
                };
                self.pos = end;
                Lexed::Error {
                    start: to_u32(start),
                    end: to_u32(end),
                }
            }
        }
    }

    fn accept(n: usize, kind: u8) -> Scan {
        Scan {
            accept: Some((n, kind)),
            fail: None,
        }
    }

    fn fail_at(i: usize) -> Scan {
        Scan {
            accept: None,
            fail: Some(i),
        }
    }

    fn scan_token(&self, s: usize) -> Scan {
        let Some(c) = self.at(s) else {
            return Self::fail_at(s);
        };
        let next = self.at(s + 1);
        match c {
            b'\t' | b' ' | b'\r' | b'\n' | 0x0c => {
                let mut i = s + 1;
                while matches!(self.at(i), Some(b'\t' | b' ' | b'\r' | b'\n' | 0x0c)) {
                    i += 1;
                }
                Self::accept(i - s, tt::WHITESPACE)
            }
            b'/' => {
                if next == Some(b'/') {
                    let mut i = s + 2;
                    while let Some(b) = self.at(i) {
                        if b == b'\n' {
                            break;
                        }
                        i += 1;
                    }
                    Self::accept(i - s, tt::COMMENT)
                } else {
                    Self::accept(1, tt::SLASH)
                }
            }
            b'=' => self.pair(s, b'=', tt::EQUALS, None),
            b'&' => self.pair(s, b'&', tt::LOGICAL_AND, None),
            b'|' => self.pair(s, b'|', tt::LOGICAL_OR, None),
            b'!' => self.pair(s, b'=', tt::NOT_EQUALS, Some(tt::EXCLAM)),
            b'<' => self.pair(s, b'=', tt::LESS_EQUALS, Some(tt::LESS)),
            b'>' => self.pair(s, b'=', tt::GREATER_EQUALS, Some(tt::GREATER)),
            b'[' => Self::accept(1, tt::LBRACKET),
            b']' => Self::accept(1, tt::RBRACKET),
            b'{' => Self::accept(1, tt::LBRACE),
            b'}' => Self::accept(1, tt::RBRACE),
            b'(' => Self::accept(1, tt::LPAREN),
            b')' => Self::accept(1, tt::RPAREN),
            b',' => Self::accept(1, tt::COMMA),
            b'-' => Self::accept(1, tt::MINUS),
            b'?' => Self::accept(1, tt::QUESTIONMARK),
            b':' => Self::accept(1, tt::COLON),
            b'+' => Self::accept(1, tt::PLUS),
            b'*' => Self::accept(1, tt::STAR),
            b'%' => Self::accept(1, tt::PERCENT),
            b'.' => {
                if next.is_some_and(|b| b.is_ascii_digit()) {
                    let i = self.digits(s + 1);
                    let i = self.exponent(i);
                    Self::accept(i - s, tt::NUM_FLOAT)
                } else {
                    Self::accept(1, tt::DOT)
                }
            }
            b'0'..=b'9' => Self::accept_pair(self.number(s), s),
            b'"' | b'\'' => {
                let r = self.string(s, false);
                match r.accept {
                    Some((end, _)) => Self::accept(end - s, tt::STRING),
                    None => r,
                }
            }
            b'`' if !self.backquotes => Self::fail_at(s),
            b'`' => {
                let mut i = s + 1;
                while self.at(i).is_some_and(is_esc_ident_char) {
                    i += 1;
                }
                if i > s + 1 && self.at(i) == Some(b'`') {
                    Self::accept(i + 1 - s, tt::ESC_IDENTIFIER)
                } else {
                    Self::fail_at(i)
                }
            }
            _ if is_letter(c) || c == b'_' => self.ident_or_prefixed(s),
            _ => Self::fail_at(s),
        }
    }

    fn accept_pair(r: (usize, u8), s: usize) -> Scan {
        Self::accept(r.0 - s, r.1)
    }

    /// Two-character operators: `first` then `second`; `single` is the type of the first
    /// character alone when it is a token by itself.
    fn pair(&self, s: usize, second: u8, both: u8, single: Option<u8>) -> Scan {
        if self.at(s + 1) == Some(second) {
            Self::accept(2, both)
        } else {
            match single {
                Some(t) => Self::accept(1, t),
                None => Self::fail_at(s + 1),
            }
        }
    }

    fn digits(&self, mut i: usize) -> usize {
        while self.at(i).is_some_and(|b| b.is_ascii_digit()) {
            i += 1;
        }
        i
    }

    /// An optional exponent at `i`; returns the end of the exponent or `i` when there is
    /// none (a partial exponent falls back to the digits before it).
    fn exponent(&self, i: usize) -> usize {
        if matches!(self.at(i), Some(b'e' | b'E')) {
            let mut j = i + 1;
            if matches!(self.at(j), Some(b'+' | b'-')) {
                j += 1;
            }
            if self.at(j).is_some_and(|b| b.is_ascii_digit()) {
                return self.digits(j);
            }
        }
        i
    }

    /// A numeric literal starting with a digit: returns its end and type.
    fn number(&self, s: usize) -> (usize, u8) {
        if self.at(s) == Some(b'0')
            && self.at(s + 1) == Some(b'x')
            && self.at(s + 2).is_some_and(|b| b.is_ascii_hexdigit())
        {
            let mut i = s + 2;
            while self.at(i).is_some_and(|b| b.is_ascii_hexdigit()) {
                i += 1;
            }
            if matches!(self.at(i), Some(b'u' | b'U')) {
                return (i + 1, tt::NUM_UINT);
            }
            return (i, tt::NUM_INT);
        }
        let i = self.digits(s);
        match self.at(i) {
            Some(b'u' | b'U') => (i + 1, tt::NUM_UINT),
            Some(b'.') if self.at(i + 1).is_some_and(|b| b.is_ascii_digit()) => {
                let j = self.digits(i + 1);
                (self.exponent(j), tt::NUM_FLOAT)
            }
            Some(b'e' | b'E') => {
                let j = self.exponent(i);
                if j > i {
                    (j, tt::NUM_FLOAT)
                } else {
                    (i, tt::NUM_INT)
                }
            }
            _ => (i, tt::NUM_INT),
        }
    }

    /// An identifier, keyword, or a raw/bytes string literal introduced by a letter prefix.
    fn ident_or_prefixed(&self, s: usize) -> Scan {
        let mut i = s + 1;
        while self.at(i).is_some_and(is_ident_char) {
            i += 1;
        }
        let word = self.bytes.get(s..i).unwrap_or_default();
        let ident_kind = match word {
            b"in" => tt::IN,
            b"true" => tt::CEL_TRUE,
            b"false" => tt::CEL_FALSE,
            b"null" => tt::NUL,
            _ => tt::IDENTIFIER,
        };
        let ident = (i - s, ident_kind);
        // A string prefix: r"..", b"..", br"..". The string attempt only matters when
        // it is longer than the identifier (always, since it contains the prefix).
        let quote_at = |k: usize| matches!(self.at(k), Some(b'"' | b'\''));
        let (string_start, raw, kind) = match word {
            [b'r' | b'R'] if quote_at(i) => (i, true, tt::STRING),
            [b'b' | b'B'] if quote_at(i) => (i, false, tt::BYTES),
            [b'b' | b'B', b'r' | b'R'] if quote_at(i) => (i, true, tt::BYTES),
            _ => return Self::accept(ident.0, ident.1),
        };
        let r = self.string(string_start, raw);
        match r.accept {
            Some((end, _)) => Self::accept(end - s, kind),
            None => Self::accept(ident.0, ident.1),
        }
    }

    /// A quoted string starting at the quote `s`. The accept (if any) carries the end
    /// position (absolute) instead of a length.
    fn string(&self, s: usize, raw: bool) -> Scan {
        let Some(q) = self.at(s) else {
            return Self::fail_at(s);
        };
        if self.at(s + 1) == Some(q) && self.at(s + 2) == Some(q) {
            // Triple-quoted. The empty string made of the first two quotes is a valid
            // token to fall back on.
            let mut i = s + 3;
            loop {
                match self.at(i) {
                    None => {
                        return Scan {
                            accept: Some((s + 2, tt::STRING)),
                            fail: Some(i),
                        }
                    }
                    Some(b) if b == q && self.at(i + 1) == Some(q) && self.at(i + 2) == Some(q) => {
                        return Self::accept_abs(i + 3);
                    }
                    Some(b'\\') if !raw => match self.escape(i) {
                        Ok(n) => i = n,
                        Err(f) => {
                            return Scan {
                                accept: Some((s + 2, tt::STRING)),
                                fail: Some(f),
                            }
                        }
                    },
                    Some(_) => i += 1,
                }
            }
        }
        let mut i = s + 1;
        loop {
            match self.at(i) {
                None => return Self::fail_at(i),
                Some(b) if b == q => return Self::accept_abs(i + 1),
                Some(b'\n' | b'\r') => return Self::fail_at(i),
                Some(b'\\') if !raw => match self.escape(i) {
                    Ok(n) => i = n,
                    Err(f) => return Self::fail_at(f),
                },
                Some(_) => i += 1,
            }
        }
    }

    fn accept_abs(end: usize) -> Scan {
        Scan {
            accept: Some((end, tt::STRING)),
            fail: None,
        }
    }

    /// An escape sequence at the backslash `i`: its end, or the position where it breaks.
    fn escape(&self, i: usize) -> Result<usize, usize> {
        let k = i + 1;
        let hex = |from: usize, n: usize| -> Result<usize, usize> {
            for j in from..from + n {
                if !self.at(j).is_some_and(|b| b.is_ascii_hexdigit()) {
                    return Err(j);
                }
            }
            Ok(from + n)
        };
        match self.at(k) {
            Some(
                b'a' | b'b' | b'f' | b'n' | b'r' | b't' | b'v' | b'"' | b'\'' | b'\\' | b'?' | b'`',
            ) => Ok(k + 1),
            Some(b'0'..=b'3') => {
                for j in k + 1..k + 3 {
                    if !matches!(self.at(j), Some(b'0'..=b'7')) {
                        return Err(j);
                    }
                }
                Ok(k + 3)
            }
            Some(b'x' | b'X') => hex(k + 1, 2),
            Some(b'u') => hex(k + 1, 4),
            Some(b'U') => hex(k + 1, 8),
            _ => Err(k),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(u8, String)> {
        let mut lx = Lexer::new(src);
        let mut out = Vec::new();
        loop {
            match lx.next() {
                Lexed::Token(t) => {
                    if t.kind == tt::EOF {
                        break;
                    }
                    if !t.hidden() {
                        out.push((t.kind, src[t.start as usize..t.end as usize].to_string()));
                    }
                }
                Lexed::Error { start, end, .. } => {
                    out.push((255, src[start as usize..end as usize].to_string()));
                }
            }
        }
        out
    }

    #[test]
    fn numbers() {
        assert_eq!(kinds("1.5e-3"), vec![(tt::NUM_FLOAT, "1.5e-3".into())]);
        assert_eq!(
            kinds("1.e"),
            vec![
                (tt::NUM_INT, "1".into()),
                (tt::DOT, ".".into()),
                (tt::IDENTIFIER, "e".into())
            ]
        );
        assert_eq!(kinds("0x1Fu"), vec![(tt::NUM_UINT, "0x1Fu".into())]);
        assert_eq!(kinds(".5"), vec![(tt::NUM_FLOAT, ".5".into())]);
        assert_eq!(
            kinds("0xg"),
            vec![(tt::NUM_INT, "0".into()), (tt::IDENTIFIER, "xg".into())]
        );
        assert_eq!(kinds("1e3"), vec![(tt::NUM_FLOAT, "1e3".into())]);
    }

    #[test]
    fn strings_and_errors() {
        assert_eq!(kinds(r#"r"a\""#), vec![(tt::STRING, r#"r"a\""#.into())]);
        assert_eq!(kinds("b'\\xff'"), vec![(tt::BYTES, "b'\\xff'".into())]);
        assert_eq!(
            kinds(r#""\xFh""#),
            vec![(255, r#""\xFh"#.into()), (255, "\"".into())]
        );
        assert_eq!(
            kinds("a | b"),
            vec![
                (tt::IDENTIFIER, "a".into()),
                (255, "| ".into()),
                (tt::IDENTIFIER, "b".into())
            ]
        );
        assert_eq!(
            kinds("\"\"\"abc"),
            vec![(tt::STRING, "\"\"".into()), (255, "\"abc".into())]
        );
        assert_eq!(
            kinds("a.`$b`"),
            vec![
                (tt::IDENTIFIER, "a".into()),
                (tt::DOT, ".".into()),
                (255, "`$".into()),
                (tt::IDENTIFIER, "b".into()),
                (255, "`".into())
            ]
        );
        assert_eq!(
            kinds("in inx"),
            vec![(tt::IN, "in".into()), (tt::IDENTIFIER, "inx".into())]
        );
        assert_eq!(kinds("é"), vec![(255, "é".into())]);
    }
}
