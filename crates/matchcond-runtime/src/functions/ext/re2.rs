//! Go regular expressions (`regexp`, RE2 syntax) on top of the `regex` crate.
//!
//! A pattern is parsed with Go's rules (`regexp/syntax` with the `Perl` flags that
//! `regexp.Compile` uses) and rewritten into an equivalent `regex` pattern. Syntax errors are
//! reported as Go reports them (`error parsing regexp: missing closing ): `(a``), so messages
//! such as `Illegal regex: …` match Kubernetes'.
//!
//! What the rewrite makes agree with Go:
//! * `\d`, `\s`, `\w` (and negations) are ASCII classes (`\s` is `[\t\n\f\r ]`, without `\v`);
//!   `\b` and `\B` are ASCII word boundaries; POSIX classes are ASCII.
//! * `^` and `$` without `(?m)` are `\A` and `\z`; `.` excludes only `\n`.
//! * Flags are `i`, `m`, `s`, `U` only, scoped to the enclosing group (also across `|`);
//!   `\Q…\E`, octal escapes (`\0`, `\12`), `\x{…}`, named groups `(?P<n>…)` and `(?<n>…)`.
//! * Go's syntax errors: unmatched parentheses and brackets, stacked repetition operators
//!   (`a**`), repetition without operand, counts above 1000 (also nested: `(a{100}){100}`),
//!   invalid escapes (`\q`, `\8`, `\C`, `\b` inside a class), invalid ranges, unknown POSIX
//!   classes, unknown `\p{…}` names, unsupported Perl syntax (`(?=`, `(?x)`), invalid group
//!   names.
//!
//! Known differences: `\p{…}` names follow Go 1.25 (general categories with their aliases,
//! scripts, `Any`, `ASCII`, `Assigned`, matched loosely); the Unicode tables are the `regex`
//! crate's, which may be of another Unicode version than Go's. Go's limits on nesting depth
//! (1000) and program size are approximated: the nesting depth counts groups and repetitions,
//! and a pattern the `regex` crate finds too large (over 64 MiB compiled) is reported as
//! `expression too large`. Matching semantics (leftmost-first, non-overlapping `findAll`,
//! empty matches not adjacent to a previous match) are the same in both libraries.

use std::cell::RefCell;
use std::fmt;

use regex::{Regex, RegexBuilder};

/// A syntax error, as Go's `regexp/syntax.Error` prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// Go's error code text (`missing closing )`).
    pub code: &'static str,
    /// The offending part of the pattern.
    pub expr: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error parsing regexp: {}: `{}`", self.code, self.expr)
    }
}

impl std::error::Error for Error {}

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
const ERR_LARGE: &str = "expression too large";
const ERR_INTERNAL: &str = "regexp/syntax: internal error";

fn err(code: &'static str, expr: &str) -> Error {
    Error {
        code,
        expr: expr.to_string(),
    }
}

/// The largest repetition count Go accepts.
const MAX_REPEAT: u64 = 1000;
/// Go's maximum expression height.
const MAX_HEIGHT: u32 = 1000;
/// The compiled size above which a pattern is reported as too large.
const SIZE_LIMIT: usize = 64 << 20;
/// A class that matches nothing (for code points that cannot occur in a string).
const NEVER: &str = r"[^\x{0}-\x{10FFFF}]";

thread_local! {
    static CACHE: RefCell<Vec<(String, Result<Regex, Error>)>> = const { RefCell::new(Vec::new()) };
}
const CACHE_SIZE: usize = 64;

/// Compiles a Go regular expression. Results are cached per thread.
pub fn compile(pattern: &str) -> Result<Regex, Error> {
    let cached = CACHE.with(|c| {
        let mut c = c.borrow_mut();
        let pos = c.iter().position(|(p, _)| p == pattern)?;
        let entry = c.remove(pos);
        let result = entry.1.clone();
        c.push(entry);
        Some(result)
    });
    if let Some(r) = cached {
        return r;
    }
    let result = compile_uncached(pattern);
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_SIZE {
            let _evicted = c.remove(0);
        }
        c.push((pattern.to_string(), result.clone()));
    });
    result
}

fn compile_uncached(pattern: &str) -> Result<Regex, Error> {
    let translated = translate(pattern)?;
    RegexBuilder::new(&translated)
        .size_limit(SIZE_LIMIT)
        .nest_limit(4 * MAX_HEIGHT)
        .build()
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(_) => err(ERR_LARGE, pattern),
            _ => err(ERR_INTERNAL, pattern),
        })
}

/// Rewrites a Go pattern into an equivalent `regex` crate pattern, or returns Go's error.
pub fn translate(pattern: &str) -> Result<String, Error> {
    Parser::new(pattern).parse()
}

/// Go's parser flags that matter for the rewrite.
#[derive(Clone, Copy, Debug)]
struct Flags {
    fold: bool,
    one_line: bool,
    dot_nl: bool,
    non_greedy: bool,
}

impl Flags {
    const PERL: Flags = Flags {
        fold: false,
        one_line: true,
        dot_nl: false,
        non_greedy: false,
    };
}

/// One operand of a concatenation, already rewritten.
#[derive(Debug)]
struct Item {
    text: String,
    /// Whether the text ends with a repetition operator.
    repeated: bool,
    /// The largest product of repetition counts along any path inside (Go's
    /// `repeatIsValid`).
    product: u64,
    /// Nesting height.
    height: u32,
}

impl Item {
    fn atom(text: String) -> Item {
        Item {
            text,
            repeated: false,
            product: 1,
            height: 1,
        }
    }
}

/// An open group.
#[derive(Debug)]
struct Frame {
    alternatives: Vec<Vec<Item>>,
    current: Vec<Item>,
    saved_flags: Flags,
    capture: bool,
}

impl Frame {
    fn new(saved_flags: Flags, capture: bool) -> Frame {
        Frame {
            alternatives: Vec::new(),
            current: Vec::new(),
            saved_flags,
            capture,
        }
    }

    /// Closes the group into one item.
    fn into_item(mut self) -> Item {
        self.alternatives.push(std::mem::take(&mut self.current));
        let mut product = 1;
        let mut height = 0;
        let texts: Vec<String> = self
            .alternatives
            .into_iter()
            .map(|alt| {
                let mut text = String::new();
                for item in alt {
                    product = product.max(item.product);
                    height = height.max(item.height);
                    text.push_str(&item.text);
                }
                text
            })
            .collect();
        let open = if self.capture { "(" } else { "(?:" };
        Item {
            text: format!("{open}{})", texts.join("|")),
            repeated: false,
            product,
            height: height + 1,
        }
    }
}

struct Parser<'p> {
    whole: &'p str,
    pos: usize,
    flags: Flags,
    stack: Vec<Frame>,
}

/// Decodes the character at the start of `s`.
fn first_char(s: &str) -> Option<char> {
    s.chars().next()
}

fn is_alnum(c: char) -> bool {
    c.is_ascii_alphanumeric()
}

/// A literal code point (which may be a surrogate from an escape) for the `regex` crate.
fn literal_text(c: u32, fold: bool) -> String {
    match char::from_u32(c) {
        Some(ch) => {
            let escaped = regex::escape(ch.encode_utf8(&mut [0; 4]));
            if fold {
                format!("(?i:{escaped})")
            } else {
                escaped
            }
        }
        None => NEVER.to_string(),
    }
}

/// A class range for the `regex` crate, without surrogate code points.
fn push_range(out: &mut Vec<String>, lo: u32, hi: u32) {
    let mut parts = Vec::new();
    if lo < 0xD800 {
        parts.push((lo, hi.min(0xD7FF)));
    }
    if hi > 0xDFFF {
        parts.push((lo.max(0xE000), hi));
    }
    for (a, b) in parts {
        if a == b {
            out.push(format!("\\x{{{a:X}}}"));
        } else {
            out.push(format!("\\x{{{a:X}}}-\\x{{{b:X}}}"));
        }
    }
}

/// A class from (lo, hi) ranges, negated or not.
fn ranges_class(ranges: &[(u32, u32)], negate: bool) -> String {
    let mut items = Vec::new();
    for &(lo, hi) in ranges {
        push_range(&mut items, lo, hi);
    }
    format!("[{}{}]", if negate { "^" } else { "" }, items.concat())
}

/// Go's Perl classes `\d \s \w`, as ranges.
fn perl_class(c: char) -> Option<(&'static [(u32, u32)], bool)> {
    const DIGIT: &[(u32, u32)] = &[(0x30, 0x39)];
    const SPACE: &[(u32, u32)] = &[(0x09, 0x0A), (0x0C, 0x0D), (0x20, 0x20)];
    const WORD: &[(u32, u32)] = &[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)];
    match c {
        'd' => Some((DIGIT, false)),
        'D' => Some((DIGIT, true)),
        's' => Some((SPACE, false)),
        'S' => Some((SPACE, true)),
        'w' => Some((WORD, false)),
        'W' => Some((WORD, true)),
        _ => None,
    }
}

/// Go's POSIX classes, as ranges.
fn posix_class(name: &str) -> Option<&'static [(u32, u32)]> {
    Some(match name {
        "alnum" => &[(0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)],
        "alpha" => &[(0x41, 0x5A), (0x61, 0x7A)],
        "ascii" => &[(0x00, 0x7F)],
        "blank" => &[(0x09, 0x09), (0x20, 0x20)],
        "cntrl" => &[(0x00, 0x1F), (0x7F, 0x7F)],
        "digit" => &[(0x30, 0x39)],
        "graph" => &[(0x21, 0x7E)],
        "lower" => &[(0x61, 0x7A)],
        "print" => &[(0x20, 0x7E)],
        "punct" => &[(0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)],
        "space" => &[(0x09, 0x0D), (0x20, 0x20)],
        "upper" => &[(0x41, 0x5A)],
        "word" => &[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)],
        "xdigit" => &[(0x30, 0x39), (0x41, 0x46), (0x61, 0x66)],
        _ => return None,
    })
}

/// Normalizes a `\p` name for loose matching: lower case, without spaces, `_` and `-`.
fn loose(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, ' ' | '_' | '-'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// General categories (short names and aliases) and the special names Go accepts.
const CATEGORY_NAMES: &[&str] = &[
    "Any",
    "ASCII",
    "Assigned",
    "C",
    "Other",
    "Cc",
    "Control",
    "cntrl",
    "Cf",
    "Format",
    "Cn",
    "Unassigned",
    "Co",
    "Private_Use",
    "Cs",
    "Surrogate",
    "L",
    "Letter",
    "LC",
    "Cased_Letter",
    "Ll",
    "Lowercase_Letter",
    "Lm",
    "Modifier_Letter",
    "Lo",
    "Other_Letter",
    "Lt",
    "Titlecase_Letter",
    "Lu",
    "Uppercase_Letter",
    "M",
    "Mark",
    "Combining_Mark",
    "Mc",
    "Spacing_Mark",
    "Me",
    "Enclosing_Mark",
    "Mn",
    "Nonspacing_Mark",
    "N",
    "Number",
    "Nd",
    "Decimal_Number",
    "digit",
    "Nl",
    "Letter_Number",
    "No",
    "Other_Number",
    "P",
    "Punctuation",
    "punct",
    "Pc",
    "Connector_Punctuation",
    "Pd",
    "Dash_Punctuation",
    "Pe",
    "Close_Punctuation",
    "Pf",
    "Final_Punctuation",
    "Pi",
    "Initial_Punctuation",
    "Po",
    "Other_Punctuation",
    "Ps",
    "Open_Punctuation",
    "S",
    "Symbol",
    "Sc",
    "Currency_Symbol",
    "Sk",
    "Modifier_Symbol",
    "Sm",
    "Math_Symbol",
    "So",
    "Other_Symbol",
    "Z",
    "Separator",
    "Zl",
    "Line_Separator",
    "Zp",
    "Paragraph_Separator",
    "Zs",
    "Space_Separator",
];

/// Unicode script names (Go's `unicode.Scripts`, Unicode 15).
const SCRIPT_NAMES: &[&str] = &[
    "Adlam",
    "Ahom",
    "Anatolian_Hieroglyphs",
    "Arabic",
    "Armenian",
    "Avestan",
    "Balinese",
    "Bamum",
    "Bassa_Vah",
    "Batak",
    "Bengali",
    "Bhaiksuki",
    "Bopomofo",
    "Brahmi",
    "Braille",
    "Buginese",
    "Buhid",
    "Canadian_Aboriginal",
    "Carian",
    "Caucasian_Albanian",
    "Chakma",
    "Cham",
    "Cherokee",
    "Chorasmian",
    "Common",
    "Coptic",
    "Cuneiform",
    "Cypriot",
    "Cypro_Minoan",
    "Cyrillic",
    "Deseret",
    "Devanagari",
    "Dives_Akuru",
    "Dogra",
    "Duployan",
    "Egyptian_Hieroglyphs",
    "Elbasan",
    "Elymaic",
    "Ethiopic",
    "Georgian",
    "Glagolitic",
    "Gothic",
    "Grantha",
    "Greek",
    "Gujarati",
    "Gunjala_Gondi",
    "Gurmukhi",
    "Han",
    "Hangul",
    "Hanifi_Rohingya",
    "Hanunoo",
    "Hatran",
    "Hebrew",
    "Hiragana",
    "Imperial_Aramaic",
    "Inherited",
    "Inscriptional_Pahlavi",
    "Inscriptional_Parthian",
    "Javanese",
    "Kaithi",
    "Kannada",
    "Katakana",
    "Kawi",
    "Kayah_Li",
    "Kharoshthi",
    "Khitan_Small_Script",
    "Khmer",
    "Khojki",
    "Khudawadi",
    "Lao",
    "Latin",
    "Lepcha",
    "Limbu",
    "Linear_A",
    "Linear_B",
    "Lisu",
    "Lycian",
    "Lydian",
    "Mahajani",
    "Makasar",
    "Malayalam",
    "Mandaic",
    "Manichaean",
    "Marchen",
    "Masaram_Gondi",
    "Medefaidrin",
    "Meetei_Mayek",
    "Mende_Kikakui",
    "Meroitic_Cursive",
    "Meroitic_Hieroglyphs",
    "Miao",
    "Modi",
    "Mongolian",
    "Mro",
    "Multani",
    "Myanmar",
    "Nabataean",
    "Nag_Mundari",
    "Nandinagari",
    "New_Tai_Lue",
    "Newa",
    "Nko",
    "Nushu",
    "Nyiakeng_Puachue_Hmong",
    "Ogham",
    "Ol_Chiki",
    "Old_Hungarian",
    "Old_Italic",
    "Old_North_Arabian",
    "Old_Permic",
    "Old_Persian",
    "Old_Sogdian",
    "Old_South_Arabian",
    "Old_Turkic",
    "Old_Uyghur",
    "Oriya",
    "Osage",
    "Osmanya",
    "Pahawh_Hmong",
    "Palmyrene",
    "Pau_Cin_Hau",
    "Phags_Pa",
    "Phoenician",
    "Psalter_Pahlavi",
    "Rejang",
    "Runic",
    "Samaritan",
    "Saurashtra",
    "Sharada",
    "Shavian",
    "Siddham",
    "SignWriting",
    "Sinhala",
    "Sogdian",
    "Sora_Sompeng",
    "Soyombo",
    "Sundanese",
    "Syloti_Nagri",
    "Syriac",
    "Tagalog",
    "Tagbanwa",
    "Tai_Le",
    "Tai_Tham",
    "Tai_Viet",
    "Takri",
    "Tamil",
    "Tangsa",
    "Tangut",
    "Telugu",
    "Thaana",
    "Thai",
    "Tibetan",
    "Tifinagh",
    "Tirhuta",
    "Toto",
    "Ugaritic",
    "Vai",
    "Vithkuqi",
    "Wancho",
    "Warang_Citi",
    "Yezidi",
    "Yi",
    "Zanabazar_Square",
];

/// The canonical name of a `\p` name Go knows, or `None`.
fn unicode_name(name: &str) -> Option<&'static str> {
    let key = loose(name);
    CATEGORY_NAMES
        .iter()
        .chain(SCRIPT_NAMES)
        .find(|n| loose(n) == key)
        .copied()
}

/// A class element recognized by the common class and top-level escapes.
enum ClassPart {
    /// A rewritten class (`[0-9]`, `\p{Greek}` …).
    Class(String),
}

impl<'p> Parser<'p> {
    fn new(whole: &'p str) -> Self {
        Parser {
            whole,
            pos: 0,
            flags: Flags::PERL,
            stack: vec![Frame::new(Flags::PERL, false)],
        }
    }

    fn rest(&self) -> &'p str {
        self.whole.get(self.pos..).unwrap_or_default()
    }

    fn frame(&mut self) -> Result<&mut Frame, Error> {
        self.stack
            .last_mut()
            .ok_or_else(|| err(ERR_INTERNAL, self.whole))
    }

    fn push_item(&mut self, item: Item) -> Result<(), Error> {
        if item.height > MAX_HEIGHT {
            return Err(err(ERR_NESTING_DEPTH, self.whole));
        }
        self.frame()?.current.push(item);
        Ok(())
    }

    fn push_atom(&mut self, text: String) -> Result<(), Error> {
        self.push_item(Item::atom(text))
    }

    fn parse(mut self) -> Result<String, Error> {
        let mut last_repeat: Option<usize> = None;
        while let Some(c) = first_char(self.rest()) {
            let mut repeat = None;
            match c {
                '(' => {
                    if self.rest().starts_with("(?") {
                        self.parse_perl_flags()?;
                    } else {
                        let saved = self.flags;
                        self.stack.push(Frame::new(saved, true));
                        self.pos += 1;
                    }
                }
                '|' => {
                    let frame = self.frame()?;
                    let alt = std::mem::take(&mut frame.current);
                    frame.alternatives.push(alt);
                    self.pos += 1;
                }
                ')' => {
                    if self.stack.len() < 2 {
                        return Err(err(ERR_UNEXPECTED_PAREN, self.whole));
                    }
                    let frame = self
                        .stack
                        .pop()
                        .ok_or_else(|| err(ERR_UNEXPECTED_PAREN, self.whole))?;
                    self.flags = frame.saved_flags;
                    self.push_item(frame.into_item())?;
                    self.pos += 1;
                }
                '^' => {
                    let text = if self.flags.one_line { r"\A" } else { "(?m:^)" };
                    self.push_atom(text.to_string())?;
                    self.pos += 1;
                }
                '$' => {
                    let text = if self.flags.one_line { r"\z" } else { "(?m:$)" };
                    self.push_atom(text.to_string())?;
                    self.pos += 1;
                }
                '.' => {
                    let text = if self.flags.dot_nl {
                        "(?s:.)"
                    } else {
                        r"[^\n]"
                    };
                    self.push_atom(text.to_string())?;
                    self.pos += 1;
                }
                '[' => {
                    let class = self.parse_class()?;
                    self.push_atom(class)?;
                }
                '*' | '+' | '?' => {
                    let before = self.pos;
                    self.pos += 1;
                    self.repeat(c.to_string(), None, before, last_repeat)?;
                    repeat = Some(before);
                }
                '{' => {
                    let before = self.pos;
                    match parse_repeat(self.rest()) {
                        None => {
                            self.push_atom(literal_text(u32::from('{'), self.flags.fold))?;
                            self.pos += 1;
                        }
                        Some((min, max, len)) => {
                            self.pos += len;
                            let text = self.whole.get(before..self.pos).unwrap_or_default();
                            let too_big = min < 0
                                || min > MAX_REPEAT as i64
                                || max > MAX_REPEAT as i64
                                || (max >= 0 && min > max);
                            if too_big {
                                return Err(err(ERR_INVALID_REPEAT_SIZE, text));
                            }
                            let op = if max == -1 {
                                format!("{{{min},}}")
                            } else if max == min {
                                format!("{{{min}}}")
                            } else {
                                format!("{{{min},{max}}}")
                            };
                            self.repeat(op, Some((min, max)), before, last_repeat)?;
                            repeat = Some(before);
                        }
                    }
                }
                '\\' => self.parse_backslash()?,
                _ => {
                    self.push_atom(literal_text(u32::from(c), self.flags.fold))?;
                    self.pos += c.len_utf8();
                }
            }
            last_repeat = repeat;
        }
        if self.stack.len() != 1 {
            return Err(err(ERR_MISSING_PAREN, self.whole));
        }
        let root = self
            .stack
            .pop()
            .ok_or_else(|| err(ERR_INTERNAL, self.whole))?;
        let item = root.into_item();
        Ok(item.text)
    }

    /// Applies a repetition operator (already consumed, text `op`) to the last operand.
    /// `counts` are the bounds of a `{…}` operator.
    fn repeat(
        &mut self,
        op: String,
        counts: Option<(i64, i64)>,
        before: usize,
        last_repeat: Option<usize>,
    ) -> Result<(), Error> {
        let mut greedy = !self.flags.non_greedy;
        if self.rest().starts_with('?') {
            self.pos += 1;
            greedy = !greedy;
        }
        if let Some(last) = last_repeat {
            let text = self.whole.get(last..self.pos).unwrap_or_default();
            return Err(err(ERR_INVALID_REPEAT_OP, text));
        }
        let op_text = self.whole.get(before..self.pos).unwrap_or_default();
        let whole = self.whole;
        let frame = self.frame()?;
        let Some(item) = frame.current.pop() else {
            return Err(err(ERR_MISSING_REPEAT_ARGUMENT, op_text));
        };
        let mut text = if item.repeated {
            format!("(?:{})", item.text)
        } else {
            item.text
        };
        text.push_str(&op);
        if !greedy {
            text.push('?');
        }
        let product = match counts {
            Some((min, max)) => {
                let m = if max == -1 { min } else { max };
                let m = u64::try_from(m).unwrap_or(0);
                if m == 0 {
                    1
                } else {
                    m.saturating_mul(item.product)
                }
            }
            None => item.product,
        };
        if let Some((min, max)) = counts {
            if (min >= 2 || max >= 2) && product > MAX_REPEAT {
                return Err(err(ERR_INVALID_REPEAT_SIZE, op_text));
            }
        }
        let new_item = Item {
            text,
            repeated: true,
            product,
            height: item.height + 1,
        };
        if new_item.height > MAX_HEIGHT {
            return Err(err(ERR_NESTING_DEPTH, whole));
        }
        frame.current.push(new_item);
        Ok(())
    }

    /// Parses `(?…`: a named group, a non-capturing group with flags, or a flag change.
    fn parse_perl_flags(&mut self) -> Result<(), Error> {
        let s = self.rest();
        let bytes = s.as_bytes();
        let starts_with_p =
            bytes.len() > 4 && bytes.get(2) == Some(&b'P') && bytes.get(3) == Some(&b'<');
        let starts_with_name = bytes.len() > 3 && bytes.get(2) == Some(&b'<');
        if starts_with_p || starts_with_name {
            let name_start = if starts_with_name { 3 } else { 4 };
            let Some(end) = s.find('>') else {
                return Err(err(ERR_INVALID_NAMED_CAPTURE, s));
            };
            let capture = s.get(..=end).unwrap_or_default();
            let name = s.get(name_start..end).unwrap_or_default();
            if name.is_empty() || !name.chars().all(|c| c == '_' || is_alnum(c)) {
                return Err(err(ERR_INVALID_NAMED_CAPTURE, capture));
            }
            let saved = self.flags;
            self.stack.push(Frame::new(saved, true));
            self.pos += end + 1;
            return Ok(());
        }
        let mut flags = self.flags;
        let mut negated = false;
        let mut saw_flag = false;
        let mut consumed = 2;
        for c in s.get(2..).unwrap_or_default().chars() {
            consumed += c.len_utf8();
            match c {
                'i' => {
                    flags.fold = !negated;
                    saw_flag = true;
                }
                'm' => {
                    flags.one_line = negated;
                    saw_flag = true;
                }
                's' => {
                    flags.dot_nl = !negated;
                    saw_flag = true;
                }
                'U' => {
                    flags.non_greedy = !negated;
                    saw_flag = true;
                }
                '-' => {
                    if negated {
                        break;
                    }
                    negated = true;
                    saw_flag = false;
                }
                ':' | ')' => {
                    if negated && !saw_flag {
                        break;
                    }
                    if c == ':' {
                        let saved = self.flags;
                        self.stack.push(Frame::new(saved, false));
                    }
                    self.flags = flags;
                    self.pos += consumed;
                    return Ok(());
                }
                _ => break,
            }
        }
        Err(err(
            ERR_INVALID_PERL_OP,
            s.get(..consumed).unwrap_or_default(),
        ))
    }

    /// Parses a backslash sequence outside a class.
    fn parse_backslash(&mut self) -> Result<(), Error> {
        let s = self.rest();
        let next = s.get(1..).and_then(first_char);
        match next {
            Some('A') => {
                self.push_atom(r"\A".to_string())?;
                self.pos += 2;
                return Ok(());
            }
            Some('z') => {
                self.push_atom(r"\z".to_string())?;
                self.pos += 2;
                return Ok(());
            }
            Some('b') => {
                self.push_atom(r"(?-u:\b)".to_string())?;
                self.pos += 2;
                return Ok(());
            }
            Some('B') => {
                self.push_atom(r"(?-u:\B)".to_string())?;
                self.pos += 2;
                return Ok(());
            }
            Some('C') => return Err(err(ERR_INVALID_ESCAPE, s.get(..2).unwrap_or_default())),
            Some('Q') => {
                let lit = s.get(2..).unwrap_or_default();
                let (lit, consumed) = match lit.find(r"\E") {
                    Some(i) => (lit.get(..i).unwrap_or_default(), 2 + i + 2),
                    None => (lit, s.len()),
                };
                for c in lit.chars() {
                    self.push_atom(literal_text(u32::from(c), self.flags.fold))?;
                }
                self.pos += consumed;
                return Ok(());
            }
            _ => {}
        }
        if let Some((ClassPart::Class(class), len)) = self.parse_class_escape(s)? {
            let text = if self.flags.fold {
                format!("(?i:{class})")
            } else {
                class
            };
            self.push_atom(text)?;
            self.pos += len;
            return Ok(());
        }
        let (c, len) = parse_escape(s)?;
        self.push_atom(literal_text(c, self.flags.fold))?;
        self.pos += len;
        Ok(())
    }

    /// `\p{…}`, `\P{…}`, `\d` …: a class, with the bytes it takes.
    fn parse_class_escape(&self, s: &str) -> Result<Option<(ClassPart, usize)>, Error> {
        let mut chars = s.chars();
        if chars.next() != Some('\\') {
            return Ok(None);
        }
        match chars.next() {
            Some(p @ ('p' | 'P')) => {
                let mut negate = p == 'P';
                let after = s.get(2..).unwrap_or_default();
                let (seq_len, name) = match first_char(after) {
                    Some('{') => match s.find('}') {
                        Some(end) => (end + 1, s.get(3..end).unwrap_or_default()),
                        None => return Err(err(ERR_INVALID_CHAR_RANGE, s)),
                    },
                    Some(c) => (
                        2 + c.len_utf8(),
                        after.get(..c.len_utf8()).unwrap_or_default(),
                    ),
                    None => (2, ""),
                };
                let seq = s.get(..seq_len).unwrap_or_default();
                let mut name = name;
                if let Some(stripped) = name.strip_prefix('^') {
                    negate = !negate;
                    name = stripped;
                }
                let canonical =
                    unicode_name(name).ok_or_else(|| err(ERR_INVALID_CHAR_RANGE, seq))?;
                let class = format!("\\{}{{{}}}", if negate { 'P' } else { 'p' }, canonical);
                Ok(Some((ClassPart::Class(class), seq_len)))
            }
            Some(c) => match perl_class(c) {
                Some((ranges, negate)) => {
                    Ok(Some((ClassPart::Class(ranges_class(ranges, negate)), 2)))
                }
                None => Ok(None),
            },
            None => Ok(None),
        }
    }

    /// Parses a bracketed class starting at `[`.
    fn parse_class(&mut self) -> Result<String, Error> {
        let whole_class = self.rest();
        let mut t = whole_class.get(1..).unwrap_or_default();
        let mut negate = false;
        if let Some(rest) = t.strip_prefix('^') {
            negate = true;
            t = rest;
        }
        let mut items: Vec<String> = Vec::new();
        let mut first = true;
        while t.is_empty() || !t.starts_with(']') || first {
            first = false;
            // POSIX classes: [:alpha:], [:^alpha:].
            if t.len() > 2 && t.starts_with("[:") {
                if let Some(i) = t.get(2..).and_then(|r| r.find(":]")) {
                    let name = t.get(..i + 4).unwrap_or_default();
                    let inner = name.get(2..name.len() - 2).unwrap_or_default();
                    let (neg, inner) = match inner.strip_prefix('^') {
                        Some(n) => (true, n),
                        None => (false, inner),
                    };
                    let ranges =
                        posix_class(inner).ok_or_else(|| err(ERR_INVALID_CHAR_RANGE, name))?;
                    items.push(ranges_class(ranges, neg));
                    t = t.get(i + 4..).unwrap_or_default();
                    continue;
                }
            }
            if let Some((ClassPart::Class(class), len)) = self.parse_class_escape(t)? {
                items.push(class);
                t = t.get(len..).unwrap_or_default();
                continue;
            }
            let range_start = t;
            let (lo, len) = parse_class_char(t, whole_class)?;
            t = t.get(len..).unwrap_or_default();
            let mut hi = lo;
            if t.len() >= 2
                && t.starts_with('-')
                && !t.get(1..).unwrap_or_default().starts_with(']')
            {
                t = t.get(1..).unwrap_or_default();
                let (h, len) = parse_class_char(t, whole_class)?;
                t = t.get(len..).unwrap_or_default();
                hi = h;
                if hi < lo {
                    let frag = range_start
                        .get(..range_start.len() - t.len())
                        .unwrap_or_default();
                    return Err(err(ERR_INVALID_CHAR_RANGE, frag));
                }
            }
            push_range(&mut items, lo, hi);
        }
        // Skip the closing bracket.
        t = t.get(1..).unwrap_or_default();
        self.pos += whole_class.len() - t.len();
        if items.is_empty() {
            items.push(NEVER.to_string());
        }
        let class = format!("[{}{}]", if negate { "^" } else { "" }, items.concat());
        Ok(if self.flags.fold {
            format!("(?i:{class})")
        } else {
            class
        })
    }
}

/// A class character (a literal or an escape); a missing `]` when the pattern ends.
fn parse_class_char(s: &str, whole_class: &str) -> Result<(u32, usize), Error> {
    match first_char(s) {
        None => Err(err(ERR_MISSING_BRACKET, whole_class)),
        Some('\\') => parse_escape(s),
        Some(c) => Ok((u32::from(c), c.len_utf8())),
    }
}

fn unhex(c: char) -> Option<u32> {
    c.to_digit(16)
}

/// Go's `parseEscape`: a single-character escape at the start of `s` (which begins with a
/// backslash). Returns the code point and the bytes taken.
fn parse_escape(s: &str) -> Result<(u32, usize), Error> {
    let t = s.get(1..).unwrap_or_default();
    let mut chars = t.char_indices();
    let Some((_, c)) = chars.next() else {
        return Err(err(ERR_TRAILING_BACKSLASH, ""));
    };
    // Bytes consumed so far (including the backslash).
    let mut used = 1 + c.len_utf8();
    let invalid = |used: usize| err(ERR_INVALID_ESCAPE, s.get(..used).unwrap_or(s));
    let octal = |b: Option<&u8>| matches!(b, Some(b'0'..=b'7'));
    match c {
        '1'..='7' if !octal(s.as_bytes().get(used)) => Err(invalid(used)),
        '0'..='7' => {
            let mut r = c.to_digit(8).unwrap_or(0);
            for _ in 1..3 {
                match s.as_bytes().get(used) {
                    Some(&b @ b'0'..=b'7') => {
                        r = r * 8 + u32::from(b - b'0');
                        used += 1;
                    }
                    _ => break,
                }
            }
            Ok((r, used))
        }
        'x' => {
            let Some((_, c1)) = chars.next() else {
                return Err(invalid(used));
            };
            used += c1.len_utf8();
            if c1 == '{' {
                let mut r: u32 = 0;
                let mut nhex = 0;
                loop {
                    let Some((_, d)) = chars.next() else {
                        return Err(invalid(used));
                    };
                    used += d.len_utf8();
                    if d == '}' {
                        break;
                    }
                    let Some(v) = unhex(d) else {
                        return Err(invalid(used));
                    };
                    r = r * 16 + v;
                    if r > 0x10FFFF {
                        return Err(invalid(used));
                    }
                    nhex += 1;
                }
                if nhex == 0 {
                    return Err(invalid(used));
                }
                return Ok((r, used));
            }
            let x = unhex(c1);
            let c2 = chars.next().map(|(_, c2)| c2);
            if let Some(c2) = c2 {
                used += c2.len_utf8();
            }
            match (x, c2.and_then(unhex)) {
                (Some(x), Some(y)) => Ok((x * 16 + y, used)),
                _ => Err(invalid(used)),
            }
        }
        'a' => Ok((0x07, used)),
        'f' => Ok((0x0C, used)),
        'n' => Ok((0x0A, used)),
        'r' => Ok((0x0D, used)),
        't' => Ok((0x09, used)),
        'v' => Ok((0x0B, used)),
        c if c.is_ascii() && !is_alnum(c) => Ok((u32::from(c), used)),
        _ => Err(invalid(used)),
    }
}

/// Go's `parseInt` for repetition counts: digits without leading zeros; `-1` when too big.
fn parse_int(s: &str) -> Option<(i64, usize)> {
    let b = s.as_bytes();
    match b.first() {
        Some(b'0'..=b'9') => {}
        _ => return None,
    }
    if b.first() == Some(&b'0') && matches!(b.get(1), Some(b'0'..=b'9')) {
        return None;
    }
    let len = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let mut n: i64 = 0;
    for &d in b.get(..len).unwrap_or_default() {
        if n >= 100_000_000 {
            n = -1;
            break;
        }
        n = n * 10 + i64::from(d - b'0');
    }
    Some((n, len))
}

/// Go's `parseRepeat`: `{n}`, `{n,}`, `{n,m}` at the start of `s`. Returns min, max (-1 for
/// no maximum) and the bytes taken; `None` when `s` is not a repetition (a literal `{`).
fn parse_repeat(s: &str) -> Option<(i64, i64, usize)> {
    let mut i = 1;
    let rest = s.get(1..)?;
    let (mut min, len) = parse_int(rest)?;
    i += len;
    let max;
    match s.as_bytes().get(i) {
        None => return None,
        Some(b',') => {
            i += 1;
            match s.as_bytes().get(i) {
                None => return None,
                Some(b'}') => max = -1,
                Some(_) => {
                    let (m, len) = parse_int(s.get(i..)?)?;
                    i += len;
                    if m < 0 {
                        min = -1;
                    }
                    max = m;
                }
            }
        }
        Some(_) => max = min,
    }
    if s.as_bytes().get(i) != Some(&b'}') {
        return None;
    }
    Some((min, max, i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(p: &str) -> String {
        match compile(p) {
            Ok(_) => "ok".to_string(),
            Err(e) => e.to_string(),
        }
    }

    fn find_all(p: &str, s: &str) -> Vec<String> {
        compile(p)
            .map(|r| r.find_iter(s).map(|m| m.as_str().to_string()).collect())
            .unwrap_or_default()
    }

    #[test]
    fn go_error_messages() {
        assert_eq!(e(")"), "error parsing regexp: unexpected ): `)`");
        assert_eq!(e("a)b"), "error parsing regexp: unexpected ): `a)b`");
        assert_eq!(e("(abc"), "error parsing regexp: missing closing ): `(abc`");
        assert_eq!(
            e("x[a-z"),
            "error parsing regexp: missing closing ]: `[a-z`"
        );
        assert_eq!(e("[]"), "error parsing regexp: missing closing ]: `[]`");
        assert_eq!(
            e("a**"),
            "error parsing regexp: invalid nested repetition operator: `**`"
        );
        assert_eq!(
            e("a+*?"),
            "error parsing regexp: invalid nested repetition operator: `+*?`"
        );
        assert_eq!(
            e("a{2}{3}"),
            "error parsing regexp: invalid nested repetition operator: `{2}{3}`"
        );
        assert_eq!(
            e("*a"),
            "error parsing regexp: missing argument to repetition operator: `*`"
        );
        assert_eq!(
            e("a|+?"),
            "error parsing regexp: missing argument to repetition operator: `+?`"
        );
        assert_eq!(
            e("(*)"),
            "error parsing regexp: missing argument to repetition operator: `*`"
        );
        assert_eq!(
            e("{2}"),
            "error parsing regexp: missing argument to repetition operator: `{2}`"
        );
        assert_eq!(
            e("a{1001}"),
            "error parsing regexp: invalid repeat count: `{1001}`"
        );
        assert_eq!(
            e("a{2,1}"),
            "error parsing regexp: invalid repeat count: `{2,1}`"
        );
        assert_eq!(
            e("(a{100}){11}"),
            "error parsing regexp: invalid repeat count: `{11}`"
        );
        assert_eq!(e("(a{100}){10}"), "ok");
        assert_eq!(e("(a{0}){1000}"), "ok");
        assert_eq!(
            e("a\\"),
            "error parsing regexp: trailing backslash at end of expression: ``"
        );
        assert_eq!(
            e("\\q"),
            "error parsing regexp: invalid escape sequence: `\\q`"
        );
        assert_eq!(
            e("\\8"),
            "error parsing regexp: invalid escape sequence: `\\8`"
        );
        assert_eq!(
            e("\\1"),
            "error parsing regexp: invalid escape sequence: `\\1`"
        );
        assert_eq!(
            e("\\C"),
            "error parsing regexp: invalid escape sequence: `\\C`"
        );
        assert_eq!(
            e("[\\b]"),
            "error parsing regexp: invalid escape sequence: `\\b`"
        );
        assert_eq!(
            e("\\x{zz}"),
            "error parsing regexp: invalid escape sequence: `\\x{z`"
        );
        assert_eq!(
            e("\\x4"),
            "error parsing regexp: invalid escape sequence: `\\x4`"
        );
        assert_eq!(
            e("[z-a]"),
            "error parsing regexp: invalid character class range: `z-a`"
        );
        assert_eq!(
            e("[[:foo:]]"),
            "error parsing regexp: invalid character class range: `[:foo:]`"
        );
        assert_eq!(
            e("\\pX"),
            "error parsing regexp: invalid character class range: `\\pX`"
        );
        assert_eq!(
            e("\\p{Foo}x"),
            "error parsing regexp: invalid character class range: `\\p{Foo}`"
        );
        assert_eq!(
            e("\\p{Greek"),
            "error parsing regexp: invalid character class range: `\\p{Greek`"
        );
        assert_eq!(
            e("(?x)a"),
            "error parsing regexp: invalid or unsupported Perl syntax: `(?x`"
        );
        assert_eq!(
            e("(?=a)"),
            "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"
        );
        assert_eq!(
            e("(?i"),
            "error parsing regexp: invalid or unsupported Perl syntax: `(?i`"
        );
        assert_eq!(
            e("(?-)"),
            "error parsing regexp: invalid or unsupported Perl syntax: `(?-)`"
        );
        assert_eq!(
            e("(?<=a)"),
            "error parsing regexp: invalid named capture: `(?<=a)`"
        );
        assert_eq!(
            e("(?P<>a)"),
            "error parsing regexp: invalid named capture: `(?P<>`"
        );
        assert_eq!(
            e("(?P<a-b>x)"),
            "error parsing regexp: invalid named capture: `(?P<a-b>`"
        );
        assert_eq!(
            e("x++"),
            "error parsing regexp: invalid nested repetition operator: `++`"
        );
    }

    #[test]
    fn accepted_syntax() {
        for p in [
            "",
            "a",
            "(?i)abc",
            "(?i:a)b",
            "(?P<name>a)",
            "(?<name>a)",
            "(?:)",
            "(?)",
            "^*",
            "a{,5}",
            "a{01}",
            "x{0}",
            "\\Qa.b\\E+",
            "\\Q*",
            "[]a]",
            "[^]a]",
            "[a-]",
            "[-a]",
            "\\pL",
            "\\p{Greek}",
            "\\p{^Greek}",
            "\\PL",
            "\\p{Letter}",
            "\\p{lu}",
            "[\\p{Lu}\\d]",
            "[[:alpha:][:^digit:]]",
            "\\x{10FFFF}",
            "\\x41",
            "\\0",
            "\\123",
            "\\_",
            "\\ ",
            "(?s).",
            "(?m)^a$",
            "(?U)a+",
            "a(?i)*",
            "[\\x{D800}-\\x{E000}]",
            "\\x{D800}",
        ] {
            assert_eq!(e(p), "ok", "pattern {p:?}");
        }
    }

    #[test]
    fn go_semantics() {
        assert_eq!(find_all("\\d+", "12 ٣٤ 5"), vec!["12", "5"]);
        assert_eq!(
            find_all("\\w+", "héllo wörld"),
            vec!["h", "llo", "w", "rld"]
        );
        assert_eq!(find_all("\\s", "a\u{b}b c"), vec![" "]);
        assert_eq!(find_all("\\bx", "éx x"), vec!["x", "x"]);
        assert_eq!(find_all("a$", "a\na"), vec!["a"]);
        assert_eq!(find_all("(?m)a$", "a\na"), vec!["a", "a"]);
        assert_eq!(find_all("^a", "a\na"), vec!["a"]);
        assert_eq!(find_all(".", "a\nb"), vec!["a", "b"]);
        assert_eq!(find_all("(?s).", "a\nb"), vec!["a", "\n", "b"]);
        assert_eq!(find_all("(?i)k", "kK\u{212a}"), vec!["k", "K", "\u{212a}"]);
        assert_eq!(find_all("(?i:a)b", "ABAbab"), vec!["Ab", "ab"]);
        assert_eq!(find_all("a(?i)b|c", "aBC"), vec!["aB", "C"]);
        assert_eq!(find_all("(a(?i)b)c", "aBcaBC"), vec!["aBc"]);
        assert_eq!(find_all("(?U)a+", "aaa"), vec!["a", "a", "a"]);
        assert_eq!(find_all("(?U)a+?", "aaa"), vec!["aaa"]);
        assert_eq!(find_all("\\Qa.b\\E+", "a.bbb axb"), vec!["a.bbb"]);
        assert_eq!(find_all("a{,2}", "a{,2}"), vec!["a{,2}"]);
        assert_eq!(find_all("[[:punct:]]", "a,b!"), vec![",", "!"]);
        assert_eq!(find_all("\\101", "ABA"), vec!["A", "A"]);
        assert_eq!(find_all("a*", "baaab"), vec!["", "aaa", ""]);
        assert_eq!(find_all("\\x{D800}|b", "abc"), vec!["b"]);
        assert_eq!(find_all("[&&]+", "a&&b"), vec!["&&"]);
        assert_eq!(find_all("[a-c--b]", "-b"), vec!["-", "b"]);
    }

    #[test]
    fn cache_returns_same_results() {
        assert_eq!(e("(a"), e("(a"));
        assert!(compile("a+").is_ok());
        assert!(compile("a+").is_ok());
    }
}
