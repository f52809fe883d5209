//! Go's `regexp/syntax` parser, re-emitting the pattern in the `regex` crate's syntax with
//! Go's meaning, or Go's parse error.

use regex::Regex;

use super::GoRegexError;

const ERR_INVALID_CHAR_RANGE: &str = "invalid character class range";
const ERR_INVALID_ESCAPE: &str = "invalid escape sequence";
const ERR_INVALID_NAMED_CAPTURE: &str = "invalid named capture";
const ERR_INVALID_PERL_OP: &str = "invalid or unsupported Perl syntax";
const ERR_INVALID_REPEAT_OP: &str = "invalid nested repetition operator";
const ERR_INVALID_REPEAT_SIZE: &str = "invalid repeat count";
const ERR_MISSING_BRACKET: &str = "missing closing ]";
const ERR_MISSING_PAREN: &str = "missing closing )";
const ERR_MISSING_REPEAT_ARGUMENT: &str = "missing argument to repetition operator";
const ERR_TRAILING_BACKSLASH: &str = "trailing backslash at end of expression";
const ERR_UNEXPECTED_PAREN: &str = "unexpected )";
const ERR_NESTING_DEPTH: &str = "expression nests too deeply";
pub(super) const ERR_LARGE: &str = "expression too large";

/// Go's limit on a repetition count, and on the product of nested counts.
const MAX_REPEAT: u64 = 1000;
/// Go's limit on the height of the parse tree.
const MAX_HEIGHT: u32 = 1000;
/// Matches nothing.
const NEVER: &str = r"[^\x{0}-\x{10FFFF}]";

pub(super) fn err(code: &'static str, expr: &str) -> GoRegexError {
    GoRegexError {
        code,
        expr: expr.to_string(),
    }
}

/// Parser flags (Go's `FoldCase`, `!OneLine`, `DotNL`, `NonGreedy`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Flags {
    fold: bool,
    multi_line: bool,
    dot_nl: bool,
    non_greedy: bool,
}

/// One translated sub-expression.
#[derive(Debug)]
struct Item {
    /// Self-contained `regex`-crate syntax (safe to follow with a repetition operator).
    text: String,
    /// The largest product of nested repetition counts in it (Go's `repeatIsValid`).
    product: u64,
    /// Approximate height of Go's parse tree for it.
    height: u32,
}

impl Item {
    fn atom(text: String) -> Item {
        Item {
            text,
            product: 1,
            height: 1,
        }
    }
}

/// An open group.
struct Frame {
    capture: bool,
    /// Flags to restore when the group closes.
    saved: Flags,
    /// Completed alternatives.
    alts: Vec<Vec<Item>>,
    /// The alternative being parsed.
    items: Vec<Item>,
}

impl Frame {
    fn new(capture: bool, saved: Flags) -> Frame {
        Frame {
            capture,
            saved,
            alts: Vec::new(),
            items: Vec::new(),
        }
    }

    /// The alternation of the group's content, with its product and height.
    fn finish(mut self) -> (String, u64, u32) {
        self.alts.push(self.items);
        let many = self.alts.len() > 1;
        let mut text = String::new();
        let mut product = 1;
        let mut height = 0;
        for (i, alt) in self.alts.into_iter().enumerate() {
            if i > 0 {
                text.push('|');
            }
            let concat_height = match alt.len() {
                0 => 1,
                1 => alt.first().map_or(1, |x| x.height),
                _ => 1 + alt.iter().map(|x| x.height).max().unwrap_or(0),
            };
            height = height.max(concat_height);
            for item in alt {
                product = product.max(item.product);
                text.push_str(&item.text);
            }
        }
        if many {
            height += 1;
        }
        (text, product, height)
    }
}

/// Translates a Go regular expression into the `regex` crate's syntax with the same meaning,
/// or returns Go's parse error.
pub fn translate(pattern: &str) -> Result<String, GoRegexError> {
    Translator {
        whole: pattern,
        pos: 0,
        flags: Flags::default(),
        stack: vec![Frame::new(false, Flags::default())],
        last_repeat: None,
    }
    .run()
}

struct Translator<'p> {
    whole: &'p str,
    pos: usize,
    flags: Flags,
    stack: Vec<Frame>,
    /// Where the previous token started, if it was a repetition operator.
    last_repeat: Option<usize>,
}

impl<'p> Translator<'p> {
    fn rest(&self) -> &'p str {
        self.whole.get(self.pos..).unwrap_or("")
    }

    fn from(&self, start: usize) -> &'p str {
        self.whole.get(start..self.pos).unwrap_or("")
    }

    fn next_char(&mut self) -> Option<char> {
        let c = self.rest().chars().next()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn top(&mut self) -> Result<&mut Frame, GoRegexError> {
        self.stack
            .last_mut()
            .ok_or_else(|| err(ERR_MISSING_PAREN, self.whole))
    }

    /// Consumes a one-character atom and pushes its translation: `on` where its flag is set,
    /// else `off`.
    fn flagged_atom(&mut self, flag: bool, on: &str, off: &str) -> Result<(), GoRegexError> {
        self.pos += 1;
        let text = if flag { on } else { off };
        self.push(Item::atom(text.to_string()))
    }

    fn push(&mut self, item: Item) -> Result<(), GoRegexError> {
        if item.height > MAX_HEIGHT {
            return Err(err(ERR_NESTING_DEPTH, self.whole));
        }
        self.top()?.items.push(item);
        Ok(())
    }

    fn run(mut self) -> Result<String, GoRegexError> {
        while let Some(c) = self.rest().chars().next() {
            let token_start = self.pos;
            let mut repeat_start = None;
            match c {
                '(' => {
                    if self.rest().as_bytes().get(1) == Some(&b'?') {
                        self.perl_flags()?;
                    } else {
                        self.pos += 1;
                        let saved = self.flags;
                        self.stack.push(Frame::new(true, saved));
                    }
                }
                '|' => {
                    self.pos += 1;
                    let top = self.top()?;
                    let items = std::mem::take(&mut top.items);
                    top.alts.push(items);
                }
                ')' => {
                    self.pos += 1;
                    self.close_group()?;
                }
                // Line anchors with the m flag, text anchors without; `.` takes a newline
                // with the s flag.
                '^' => self.flagged_atom(self.flags.multi_line, "(?m:^)", r"\A")?,
                '$' => self.flagged_atom(self.flags.multi_line, "(?m:$)", r"\z")?,
                '.' => self.flagged_atom(self.flags.dot_nl, "(?s:.)", ".")?,
                '[' => self.class()?,
                '*' | '+' | '?' => {
                    self.pos += 1;
                    self.repeat(token_start, c.to_string(), None)?;
                    repeat_start = Some(token_start);
                }
                '{' => match parse_repeat(self.rest()) {
                    None => {
                        self.pos += 1;
                        self.literal('{')?;
                    }
                    Some((min, max, len)) => {
                        self.pos += len;
                        let too_big = min < 0
                            || min > MAX_REPEAT as i64
                            || max > MAX_REPEAT as i64
                            || (max >= 0 && min > max);
                        if too_big {
                            return Err(err(ERR_INVALID_REPEAT_SIZE, self.from(token_start)));
                        }
                        let op = match max {
                            -1 => format!("{{{min},}}"),
                            m if m == min => format!("{{{min}}}"),
                            m => format!("{{{min},{m}}}"),
                        };
                        self.repeat(token_start, op, Some((min, max)))?;
                        repeat_start = Some(token_start);
                    }
                },
                '\\' => self.backslash()?,
                _ => {
                    self.pos += c.len_utf8();
                    self.literal(c)?;
                }
            }
            self.last_repeat = repeat_start;
        }
        if self.stack.len() != 1 {
            return Err(err(ERR_MISSING_PAREN, self.whole));
        }
        let root = self
            .stack
            .pop()
            .ok_or_else(|| err(ERR_MISSING_PAREN, self.whole))?;
        let (text, _, height) = root.finish();
        if height > MAX_HEIGHT {
            return Err(err(ERR_NESTING_DEPTH, self.whole));
        }
        Ok(text)
    }

    fn literal(&mut self, c: char) -> Result<(), GoRegexError> {
        let text = literal_text(u32::from(c), self.flags.fold);
        self.push(Item::atom(text))
    }

    fn close_group(&mut self) -> Result<(), GoRegexError> {
        if self.stack.len() < 2 {
            return Err(err(ERR_UNEXPECTED_PAREN, self.whole));
        }
        let frame = self
            .stack
            .pop()
            .ok_or_else(|| err(ERR_UNEXPECTED_PAREN, self.whole))?;
        self.flags = frame.saved;
        let capture = frame.capture;
        let (inner, product, height) = frame.finish();
        let item = if capture {
            Item {
                text: format!("({inner})"),
                product,
                height: height + 1,
            }
        } else {
            Item {
                text: format!("(?:{inner})"),
                product,
                height,
            }
        };
        self.push(item)
    }

    /// `(?…`: flags, a non-capturing group or a named capture.
    fn perl_flags(&mut self) -> Result<(), GoRegexError> {
        let start = self.pos;
        let t = self.rest();
        let b = t.as_bytes();
        let starts_with_p = b.len() > 4 && b.get(2) == Some(&b'P') && b.get(3) == Some(&b'<');
        let starts_with_name = b.len() > 3 && b.get(2) == Some(&b'<');
        if starts_with_p || starts_with_name {
            let name_start = if starts_with_p { 4 } else { 3 };
            let Some(end) = t.find('>') else {
                return Err(err(ERR_INVALID_NAMED_CAPTURE, t));
            };
            let name = t.get(name_start..end).unwrap_or("");
            if name.is_empty() || !name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric()) {
                return Err(err(ERR_INVALID_NAMED_CAPTURE, t.get(..=end).unwrap_or(t)));
            }
            self.pos += end + 1;
            let saved = self.flags;
            self.stack.push(Frame::new(true, saved));
            return Ok(());
        }
        self.pos += 2;
        let mut flags = self.flags;
        let mut negate = false;
        let mut saw_flag = false;
        while let Some(c) = self.next_char() {
            match c {
                'i' | 'm' | 's' | 'U' => {
                    let on = !negate;
                    match c {
                        'i' => flags.fold = on,
                        'm' => flags.multi_line = on,
                        's' => flags.dot_nl = on,
                        _ => flags.non_greedy = on,
                    }
                    saw_flag = true;
                }
                '-' => {
                    if negate {
                        break;
                    }
                    negate = true;
                    saw_flag = false;
                }
                ':' | ')' => {
                    if negate && !saw_flag {
                        break;
                    }
                    if c == ':' {
                        let saved = self.flags;
                        self.stack.push(Frame::new(false, saved));
                    }
                    self.flags = flags;
                    return Ok(());
                }
                _ => break,
            }
        }
        Err(err(ERR_INVALID_PERL_OP, self.from(start)))
    }

    /// Applies a repetition operator (already consumed, `op` in `regex` syntax) to the last
    /// item; `counts` is `Some((min, max))` for `{…}` (max -1 when open).
    fn repeat(
        &mut self,
        op_start: usize,
        op: String,
        counts: Option<(i64, i64)>,
    ) -> Result<(), GoRegexError> {
        let mut non_greedy = self.flags.non_greedy;
        if self.rest().starts_with('?') {
            self.pos += 1;
            non_greedy = !non_greedy;
        }
        if let Some(last) = self.last_repeat {
            return Err(err(ERR_INVALID_REPEAT_OP, self.from(last)));
        }
        let expr = self.from(op_start);
        let Some(sub) = self.top()?.items.pop() else {
            return Err(err(ERR_MISSING_REPEAT_ARGUMENT, expr));
        };
        let product = match counts {
            Some((_, 0)) => 1,
            Some((min, max)) => {
                let m = if max < 0 { min } else { max };
                match u64::try_from(m) {
                    Ok(m) if m > 0 => m.saturating_mul(sub.product),
                    _ => sub.product,
                }
            }
            None => sub.product,
        };
        if let Some((min, max)) = counts {
            if (min >= 2 || max >= 2) && product > MAX_REPEAT {
                return Err(err(ERR_INVALID_REPEAT_SIZE, expr));
            }
        }
        let lazy = if non_greedy { "?" } else { "" };
        let item = Item {
            text: format!("(?:{}){op}{lazy}", sub.text),
            product,
            height: sub.height + 1,
        };
        self.push(item)
    }

    fn backslash(&mut self) -> Result<(), GoRegexError> {
        let t = self.rest();
        let b = t.as_bytes();
        if b.len() >= 2 {
            let simple = match b.get(1) {
                Some(b'A') => Some(r"\A"),
                Some(b'b') => Some(r"(?-u:\b)"),
                Some(b'B') => Some(r"(?-u:\B)"),
                Some(b'z') => Some(r"\z"),
                _ => None,
            };
            if let Some(text) = simple {
                self.pos += 2;
                return self.push(Item::atom(text.to_string()));
            }
            match b.get(1) {
                Some(b'C') => return Err(err(ERR_INVALID_ESCAPE, t.get(..2).unwrap_or(t))),
                Some(b'Q') => {
                    let body = t.get(2..).unwrap_or("");
                    let (lit, consumed) = match body.find(r"\E") {
                        Some(i) => (body.get(..i).unwrap_or(""), 2 + i + 2),
                        None => (body, t.len()),
                    };
                    self.pos += consumed;
                    for c in lit.chars() {
                        self.literal(c)?;
                    }
                    return Ok(());
                }
                _ => {}
            }
        }
        if let Some((class, len)) = unicode_class(t)? {
            self.pos += len;
            return self.push(Item::atom(self.wrap_fold(class)));
        }
        if let Some(class) = perl_class(t) {
            self.pos += 2;
            return self.push(Item::atom(self.wrap_fold(class.to_string())));
        }
        let (r, len) = parse_escape(t)?;
        self.pos += len;
        let text = literal_text(r, self.flags.fold);
        self.push(Item::atom(text))
    }

    fn wrap_fold(&self, class: String) -> String {
        if self.flags.fold {
            format!("(?i:{class})")
        } else {
            class
        }
    }

    /// A bracketed character class.
    fn class(&mut self) -> Result<(), GoRegexError> {
        let whole_class = self.rest();
        self.pos += 1;
        let mut negated = false;
        if self.rest().starts_with('^') {
            negated = true;
            self.pos += 1;
        }
        let mut parts = String::new();
        let mut first = true;
        loop {
            let t = self.rest();
            if !first && t.starts_with(']') {
                break;
            }
            first = false;
            if t.len() > 2 && t.starts_with("[:") {
                if let Some((class, len)) = posix_class(t)? {
                    parts.push_str(class);
                    self.pos += len;
                    continue;
                }
            }
            if let Some((class, len)) = unicode_class(t)? {
                parts.push_str(&class);
                self.pos += len;
                continue;
            }
            if let Some(class) = perl_class(t) {
                parts.push_str(class);
                self.pos += 2;
                continue;
            }
            let range_start = self.pos;
            let lo = self.class_char(whole_class)?;
            let mut hi = lo;
            let t = self.rest();
            if t.len() >= 2 && t.starts_with('-') && !t[1..].starts_with(']') {
                self.pos += 1;
                hi = self.class_char(whole_class)?;
                if hi < lo {
                    return Err(err(ERR_INVALID_CHAR_RANGE, self.from(range_start)));
                }
            }
            push_range(&mut parts, lo, hi);
        }
        self.pos += 1;
        let text = if parts.is_empty() {
            if negated {
                String::from(r"[\x{0}-\x{10FFFF}]")
            } else {
                String::from(NEVER)
            }
        } else if negated {
            format!("[^{parts}]")
        } else {
            format!("[{parts}]")
        };
        let text = self.wrap_fold(text);
        self.push(Item::atom(text))
    }

    fn class_char(&mut self, whole_class: &str) -> Result<u32, GoRegexError> {
        let t = self.rest();
        if t.is_empty() {
            return Err(err(ERR_MISSING_BRACKET, whole_class));
        }
        if t.starts_with('\\') {
            let (r, len) = parse_escape(t)?;
            self.pos += len;
            return Ok(r);
        }
        let c = self.next_char().map_or(0, u32::from);
        Ok(c)
    }
}

/// `{min}`, `{min,}` or `{min,max}` at the start of `s`: `(min, max, length)` with max -1
/// for an open range and min -1 for a number too big; `None` when it is not a repetition
/// (then `{` is a literal).
fn parse_repeat(s: &str) -> Option<(i64, i64, usize)> {
    let b = s.as_bytes();
    if b.first() != Some(&b'{') {
        return None;
    }
    let mut i = 1;
    let (mut min, len) = parse_int(b.get(i..)?)?;
    i += len;
    let max;
    match b.get(i)? {
        b',' => {
            i += 1;
            if *b.get(i)? == b'}' {
                max = -1;
            } else {
                let (m, len) = parse_int(b.get(i..)?)?;
                i += len;
                max = m;
                if m < 0 {
                    min = -1;
                }
            }
        }
        _ => max = min,
    }
    if b.get(i) != Some(&b'}') {
        return None;
    }
    Some((min, max, i + 1))
}

/// A decimal integer without leading zeros: `(value, length)`, value -1 when too big.
fn parse_int(b: &[u8]) -> Option<(i64, usize)> {
    let first = *b.first()?;
    if !first.is_ascii_digit() {
        return None;
    }
    if first == b'0' && b.get(1).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let len = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let mut n: i64 = 0;
    for c in b.iter().take(len) {
        if n >= 100_000_000 {
            n = -1;
            break;
        }
        n = n * 10 + i64::from(c - b'0');
    }
    Some((n, len))
}

/// A single-character escape at the start of `s` (which starts with `\`): the character and
/// the length of the escape.
fn parse_escape(s: &str) -> Result<(u32, usize), GoRegexError> {
    let mut chars = s.char_indices().skip(1).peekable();
    let Some((_, c)) = chars.next() else {
        return Err(err(ERR_TRAILING_BACKSLASH, ""));
    };
    let mut consumed = 1 + c.len_utf8();
    let bad = |consumed: usize| err(ERR_INVALID_ESCAPE, s.get(..consumed).unwrap_or(s));
    let is_octal = |c: Option<&(usize, char)>| matches!(c, Some((_, '0'..='7')));
    match c {
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok((u32::from(c), consumed)),
        '1'..='7' | '0' => {
            if c != '0' && !is_octal(chars.peek()) {
                return Err(bad(consumed));
            }
            let mut r = u32::from(c) - u32::from('0');
            for _ in 1..3 {
                if !is_octal(chars.peek()) {
                    break;
                }
                if let Some((_, d)) = chars.next() {
                    r = r * 8 + (u32::from(d) - u32::from('0'));
                    consumed += 1;
                }
            }
            Ok((r, consumed))
        }
        'x' => {
            let Some((_, c)) = chars.next() else {
                return Err(bad(consumed));
            };
            consumed += c.len_utf8();
            if c == '{' {
                let mut n = 0;
                let mut r: u32 = 0;
                loop {
                    let Some((_, c)) = chars.next() else {
                        return Err(bad(consumed));
                    };
                    consumed += c.len_utf8();
                    if c == '}' {
                        break;
                    }
                    let Some(v) = c.to_digit(16) else {
                        return Err(bad(consumed));
                    };
                    r = r.saturating_mul(16).saturating_add(v);
                    if r > 0x10FFFF {
                        return Err(bad(consumed));
                    }
                    n += 1;
                }
                if n == 0 {
                    return Err(bad(consumed));
                }
                return Ok((r, consumed));
            }
            let x = c.to_digit(16);
            let y = match chars.next() {
                Some((_, d)) => {
                    consumed += d.len_utf8();
                    d.to_digit(16)
                }
                None => None,
            };
            match (x, y) {
                (Some(x), Some(y)) => Ok((x * 16 + y, consumed)),
                _ => Err(bad(consumed)),
            }
        }
        'a' => Ok((7, consumed)),
        'f' => Ok((12, consumed)),
        'n' => Ok((10, consumed)),
        'r' => Ok((13, consumed)),
        't' => Ok((9, consumed)),
        'v' => Ok((11, consumed)),
        _ => Err(bad(consumed)),
    }
}

/// `\d`, `\D`, `\s`, `\S`, `\w`, `\W` (ASCII, as in Go) at the start of `s`.
fn perl_class(s: &str) -> Option<&'static str> {
    let b = s.as_bytes();
    if b.first() != Some(&b'\\') {
        return None;
    }
    Some(match b.get(1)? {
        b'd' => "[0-9]",
        b'D' => "[^0-9]",
        b's' => r"[\x{9}\x{A}\x{C}\x{D}\x{20}]",
        b'S' => r"[^\x{9}\x{A}\x{C}\x{D}\x{20}]",
        b'w' => "[0-9A-Za-z_]",
        b'W' => "[^0-9A-Za-z_]",
        _ => return None,
    })
}

/// A POSIX class like `[:alpha:]` or `[:^alpha:]` at the start of `s`: the class and its
/// length; `None` when `s` does not hold one; an error for an unknown name.
fn posix_class(s: &str) -> Result<Option<(&'static str, usize)>, GoRegexError> {
    let Some(i) = s.get(2..).and_then(|r| r.find(":]")) else {
        return Ok(None);
    };
    let len = i + 4;
    let name = s.get(..len).unwrap_or(s);
    let class = match name {
        "[:alnum:]" => "[0-9A-Za-z]",
        "[:^alnum:]" => "[^0-9A-Za-z]",
        "[:alpha:]" => "[A-Za-z]",
        "[:^alpha:]" => "[^A-Za-z]",
        "[:ascii:]" => r"[\x{0}-\x{7F}]",
        "[:^ascii:]" => r"[^\x{0}-\x{7F}]",
        "[:blank:]" => r"[\x{9}\x{20}]",
        "[:^blank:]" => r"[^\x{9}\x{20}]",
        "[:cntrl:]" => r"[\x{0}-\x{1F}\x{7F}]",
        "[:^cntrl:]" => r"[^\x{0}-\x{1F}\x{7F}]",
        "[:digit:]" => "[0-9]",
        "[:^digit:]" => "[^0-9]",
        "[:graph:]" => r"[\x{21}-\x{7E}]",
        "[:^graph:]" => r"[^\x{21}-\x{7E}]",
        "[:lower:]" => "[a-z]",
        "[:^lower:]" => "[^a-z]",
        "[:print:]" => r"[\x{20}-\x{7E}]",
        "[:^print:]" => r"[^\x{20}-\x{7E}]",
        "[:punct:]" => r"[\x{21}-\x{2F}\x{3A}-\x{40}\x{5B}-\x{60}\x{7B}-\x{7E}]",
        "[:^punct:]" => r"[^\x{21}-\x{2F}\x{3A}-\x{40}\x{5B}-\x{60}\x{7B}-\x{7E}]",
        "[:space:]" => r"[\x{9}-\x{D}\x{20}]",
        "[:^space:]" => r"[^\x{9}-\x{D}\x{20}]",
        "[:upper:]" => "[A-Z]",
        "[:^upper:]" => "[^A-Z]",
        "[:word:]" => "[0-9A-Za-z_]",
        "[:^word:]" => "[^0-9A-Za-z_]",
        "[:xdigit:]" => "[0-9A-Fa-f]",
        "[:^xdigit:]" => "[^0-9A-Fa-f]",
        _ => return Err(err(ERR_INVALID_CHAR_RANGE, name)),
    };
    Ok(Some((class, len)))
}

/// A Unicode class `\pN`, `\p{Name}`, `\PN`, `\P{Name}`, `\p{^Name}` at the start of `s`:
/// the class in `regex` syntax and its length.
fn unicode_class(s: &str) -> Result<Option<(String, usize)>, GoRegexError> {
    let b = s.as_bytes();
    if b.len() < 2 || b.first() != Some(&b'\\') || !matches!(b.get(1), Some(b'p' | b'P')) {
        return Ok(None);
    }
    let mut negated = b.get(1) == Some(&b'P');
    let after = s.get(2..).unwrap_or("");
    let (seq_len, mut name) = match after.chars().next() {
        Some('{') => {
            let Some(end) = s.find('}') else {
                return Err(err(ERR_INVALID_CHAR_RANGE, s));
            };
            (end + 1, s.get(3..end).unwrap_or(""))
        }
        Some(c) => (2 + c.len_utf8(), after.get(..c.len_utf8()).unwrap_or("")),
        None => (2, ""),
    };
    let seq = s.get(..seq_len).unwrap_or(s);
    if let Some(n) = name.strip_prefix('^') {
        negated = !negated;
        name = n;
    }
    let Some(class) = unicode_table(name) else {
        return Err(err(ERR_INVALID_CHAR_RANGE, seq));
    };
    let p = if negated { 'P' } else { 'p' };
    let text = match class {
        UnicodeTable::Any => {
            if negated {
                NEVER.to_string()
            } else {
                String::from(r"[\x{0}-\x{10FFFF}]")
            }
        }
        UnicodeTable::Ascii => {
            if negated {
                String::from(r"[^\x{0}-\x{7F}]")
            } else {
                String::from(r"[\x{0}-\x{7F}]")
            }
        }
        UnicodeTable::Assigned => format!(r"\{}{{gc=Cn}}", if negated { 'p' } else { 'P' }),
        UnicodeTable::Category(n) => format!(r"\{p}{{gc={n}}}"),
        UnicodeTable::Script(n) => format!(r"\{p}{{sc={n}}}"),
    };
    Ok(Some((text, seq_len)))
}

enum UnicodeTable<'n> {
    Any,
    Ascii,
    Assigned,
    Category(&'n str),
    Script(&'n str),
}

/// Resolves a Unicode class name as Go does: `Any`, `Assigned`, `ASCII`, a general category
/// or a script, ignoring case, spaces, `_` and `-`.
fn unicode_table(name: &str) -> Option<UnicodeTable<'_>> {
    let canonical: String = name
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect();
    match canonical.as_str() {
        "" => return None,
        "any" => return Some(UnicodeTable::Any),
        "assigned" => return Some(UnicodeTable::Assigned),
        "ascii" => return Some(UnicodeTable::Ascii),
        _ => {}
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' '))
    {
        return None;
    }
    if property_exists("gc", name) {
        return Some(UnicodeTable::Category(name));
    }
    if property_exists("sc", name) {
        return Some(UnicodeTable::Script(name));
    }
    None
}

fn property_exists(key: &str, name: &str) -> bool {
    Regex::new(&format!(r"\p{{{key}={name}}}")).is_ok()
}

/// A literal character in `regex` syntax.
fn literal_text(c: u32, fold: bool) -> String {
    let Some(ch) = char::from_u32(c) else {
        // A surrogate: no valid string contains it.
        return NEVER.to_string();
    };
    let text = escape(ch);
    if fold && ch.to_lowercase().ne(ch.to_uppercase()) {
        format!("(?i:{text})")
    } else {
        text
    }
}

fn escape(c: char) -> String {
    if c.is_ascii_alphanumeric() || c == '_' {
        c.to_string()
    } else {
        format!(r"\x{{{:X}}}", u32::from(c))
    }
}

/// Appends the range `lo-hi` to a class, leaving out surrogates.
fn push_range(parts: &mut String, lo: u32, hi: u32) {
    let (mut lo, mut hi) = (lo, hi);
    if (0xD800..=0xDFFF).contains(&lo) {
        lo = 0xE000;
    }
    if (0xD800..=0xDFFF).contains(&hi) {
        hi = 0xD7FF;
    }
    if lo > hi {
        return;
    }
    let (Some(l), Some(h)) = (char::from_u32(lo), char::from_u32(hi)) else {
        return;
    };
    parts.push_str(&escape(l));
    if h != l {
        parts.push('-');
        parts.push_str(&escape(h));
    }
}

/// The maximum nesting of groups and classes in `regex` syntax produced by [`translate`].
pub(super) fn nesting(text: &str) -> usize {
    let mut depth: usize = 0;
    let mut max = 0;
    let mut escaped = false;
    for c in text.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            '(' | '[' => {
                depth += 1;
                max = max.max(depth);
            }
            ')' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}
