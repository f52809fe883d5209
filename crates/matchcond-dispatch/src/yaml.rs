//! A YAML (and therefore JSON) reader that keeps positions: every node of every document
//! knows the line and column it starts at, and scalars keep their style and the character
//! span of their source text.
//!
//! Scalars are resolved with the YAML 1.2 core schema (`null`, `~` and empty plain scalars
//! are null; `true`/`false` booleans; decimal, `0o` octal and `0x` hexadecimal integers;
//! floats with `.inf` and `.nan`); quoted and block scalars are strings. Aliases are
//! expanded (with a bound on the nodes they may create), and `<<` merge keys are applied as
//! Kubernetes' YAML decoder applies them. JSON is read as YAML: positions are the same.
//!
//! Manifests are read as kubectl and Helm read them ([`Schema::Kubectl`]): their YAML
//! decoder (sigs.k8s.io/yaml on go-yaml v2) resolves plain scalars by YAML 1.1 (`yes`,
//! `on`, `n`… are booleans; `0644` is octal; `1_000`, `0b101` are integers), and the JSON
//! it sends prints every integral number without a fraction, which the apiserver decodes
//! as an integer.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Span};
use serde_json::Value as Json;

/// A position in a text: 1-based line and column, columns counted in characters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    /// The line (1-based).
    pub line: u32,
    /// The column (1-based, in characters).
    pub column: u32,
}

impl Position {
    /// A position.
    pub const fn new(line: u32, column: u32) -> Position {
        Position { line, column }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// How a scalar was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Style {
    /// A plain (unquoted) scalar.
    Plain,
    /// A single-quoted scalar.
    SingleQuoted,
    /// A double-quoted scalar.
    DoubleQuoted,
    /// A literal block scalar (`|`).
    Literal,
    /// A folded block scalar (`>`).
    Folded,
    /// A mapping or a sequence.
    Collection,
}

/// The value of a node.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `null`, `~` or an empty plain scalar.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// An unsigned integer above `i64::MAX`.
    Uint(u64),
    /// A floating-point number.
    Float(f64),
    /// A string.
    String(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, its entries in order (duplicates kept).
    Map(Vec<(Node, Node)>),
}

/// One node of a document.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The value.
    pub value: Value,
    /// Where the node starts (for a quoted scalar, its opening quote; for a block scalar,
    /// its first content line).
    pub start: Position,
    /// The character index in the text where the node's source starts.
    pub start_index: usize,
    /// The character index in the text just after the node's source (scalars only; for
    /// collections, equal to `start_index`).
    pub end_index: usize,
    /// How it was written.
    pub style: Style,
}

impl Node {
    /// The text of a string scalar.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The member of a mapping with this key (the last one when duplicated, as decoders do).
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Map(entries) => entries
                .iter()
                .rev()
                .find(|(k, _)| k.key_text().as_deref() == Some(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The element of a sequence.
    pub fn index(&self, i: usize) -> Option<&Node> {
        match &self.value {
            Value::Seq(items) => items.get(i),
            _ => None,
        }
    }

    /// The node at a field path such as `webhooks[0].matchConditions[1].expression`
    /// (relative to this node); `None` when some step is absent.
    pub fn at_path(&self, path: &str) -> Option<&Node> {
        let mut node = self;
        for step in path_steps(path)? {
            node = match step {
                Step::Field(f) => node.get(f)?,
                Step::Index(i) => node.index(i)?,
            };
        }
        Some(node)
    }

    /// Where a field path points (relative to this node): a scalar value's own position;
    /// for an object or a list, the key that names it (or the list element's start).
    /// `None` when some step is absent.
    pub fn locate(&self, path: &str) -> Option<Position> {
        let mut node = self;
        let mut at = self.start;
        for step in path_steps(path)? {
            match step {
                Step::Field(f) => {
                    let Value::Map(entries) = &node.value else {
                        return None;
                    };
                    let (k, v) = entries
                        .iter()
                        .rev()
                        .find(|(k, _)| k.key_text().as_deref() == Some(f))?;
                    at = match v.value {
                        Value::Map(_) | Value::Seq(_) => k.start,
                        _ => v.start,
                    };
                    node = v;
                }
                Step::Index(i) => {
                    node = node.index(i)?;
                    at = node.start;
                }
            }
        }
        Some(at)
    }

    /// Where a field path points ([`Node::locate`]), or else its nearest part that is there
    /// (`a.b[2].c`, then `a.b[2]`, `a.b`, `a`); the node's own start when none is.
    pub fn locate_nearest(&self, path: &str) -> Position {
        let mut p = path;
        loop {
            if let Some(at) = self.locate(p) {
                return at;
            }
            match p.rfind(['.', '[']) {
                Some(i) => p = p.get(..i).unwrap_or_default(),
                None => return self.start,
            }
        }
    }

    /// The text a scalar key stands for (a key `1` is the string `"1"`, as Kubernetes'
    /// YAML-to-JSON conversion makes it).
    pub fn key_text(&self) -> Option<Cow<'_, str>> {
        match &self.value {
            Value::String(s) => Some(Cow::Borrowed(s)),
            Value::Null => Some(Cow::Borrowed("null")),
            Value::Bool(b) => Some(Cow::Owned(b.to_string())),
            Value::Int(i) => Some(Cow::Owned(i.to_string())),
            Value::Uint(u) => Some(Cow::Owned(u.to_string())),
            Value::Float(f) if f.is_nan() => Some(Cow::Borrowed(".nan")),
            Value::Float(f) if f.is_infinite() && *f > 0.0 => Some(Cow::Borrowed(".inf")),
            Value::Float(f) if f.is_infinite() => Some(Cow::Borrowed("-.inf")),
            Value::Float(f) => Some(Cow::Owned(f.to_string())),
            Value::Seq(_) | Value::Map(_) => None,
        }
    }

    /// For a boolean written as a plain `y`, `yes`, `on`, `n`, `no` or `off` (in any of its
    /// cases), which only YAML 1.1 reads as a boolean ([`Schema::Kubectl`]), that word in
    /// lower case.
    pub fn yaml11_word(&self) -> Option<&'static str> {
        let Value::Bool(b) = self.value else {
            return None;
        };
        if self.style != Style::Plain {
            return None;
        }
        // `true` and `false` are four and five characters long; each length below names
        // one word of each value.
        Some(match (self.end_index.saturating_sub(self.start_index), b) {
            (1, true) => "y",
            (1, false) => "n",
            (2, true) => "on",
            (2, false) => "no",
            (3, true) => "yes",
            (3, false) => "off",
            _ => return None,
        })
    }

    /// A short description of the node's type for messages: `string "ten"`, `integer 3`,
    /// `a mapping`.
    pub fn describe(&self) -> String {
        match &self.value {
            Value::Null => "null".to_owned(),
            Value::Bool(b) => match self.yaml11_word() {
                Some(w) => format!("boolean {b} (a plain {w} in YAML 1.1, as kubectl reads it: quote it for a string)"),
                None => format!("boolean {b}"),
            },
            Value::Int(i) => format!("integer {i}"),
            Value::Uint(u) => format!("integer {u}"),
            Value::Float(f) => format!("number {f}"),
            Value::String(s) => {
                let mut shown: String = s.chars().take(40).collect();
                if shown.len() < s.len() {
                    shown.push('…');
                }
                format!("string {shown:?}")
            }
            Value::Seq(_) => "a list".to_owned(),
            Value::Map(_) => "an object".to_owned(),
        }
    }

    /// The node as JSON (mapping keys as text; for duplicated keys the last value wins).
    pub fn to_json(&self) -> Json {
        match &self.value {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Int(i) => Json::from(*i),
            Value::Uint(u) => Json::from(*u),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(Json::Null, Json::Number),
            Value::String(s) => Json::String(s.clone()),
            Value::Seq(items) => Json::Array(items.iter().map(Node::to_json).collect()),
            Value::Map(entries) => {
                let mut m = serde_json::Map::new();
                for (k, v) in entries {
                    if let Some(k) = k.key_text() {
                        m.insert(k.into_owned(), v.to_json());
                    }
                }
                Json::Object(m)
            }
        }
    }
}

/// One step of a field path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step<'a> {
    Field(&'a str),
    Index(usize),
}

/// The steps of `a.b[0].c` (`None` for a malformed path).
pub(crate) fn path_steps(path: &str) -> Option<Vec<Step<'_>>> {
    let mut steps = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (field, mut rest) = match part.find('[') {
            Some(at) => part.split_at(at),
            None => (part, ""),
        };
        if !field.is_empty() {
            steps.push(Step::Field(field));
        }
        while let Some(inner) = rest.strip_prefix('[') {
            let close = inner.find(']')?;
            let (number, after) = inner.split_at(close);
            steps.push(Step::Index(number.parse().ok()?));
            rest = after.get(1..)?;
        }
        if !rest.is_empty() {
            return None;
        }
    }
    Some(steps)
}

/// One document of a text.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    /// The document's position in the text (0-based, counting empty documents).
    pub index: usize,
    /// Where the document starts.
    pub start: Position,
    /// Its root node; `None` for an empty (or null) document.
    pub root: Option<Node>,
}

/// A text that is not YAML (nor JSON).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{position}: {message}")]
pub struct SyntaxError {
    /// Where the reader stopped.
    pub position: Position,
    /// What it found.
    pub message: String,
}

/// The documents of a text, and the syntax error that stopped the reading, if any (the
/// documents before it are complete).
#[derive(Clone, Debug, PartialEq)]
pub struct Documents {
    /// The complete documents, in order.
    pub documents: Vec<Document>,
    /// The error that ended the reading early.
    pub error: Option<SyntaxError>,
}

/// How plain scalars are resolved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Schema {
    /// The YAML 1.2 core schema.
    #[default]
    Core,
    /// As kubectl and Helm send a manifest to the apiserver: YAML 1.1 as go-yaml v2
    /// resolves it (booleans `y`, `yes`, `on`, `n`, `no`, `off` in three cases; integers
    /// with `0` (octal), `0b`, `0o` and `0x` prefixes, signs and `_` separators), and every
    /// number as the apiserver decodes the JSON sent: an integral one (below 1e21) as an
    /// integer when it fits 64 bits, any other as a floating-point number.
    Kubectl,
}

/// The deepest nesting of collections accepted.
pub const MAX_DEPTH: usize = 1000;
/// The most nodes that alias expansion may create in one text.
pub const MAX_ALIAS_NODES: usize = 1_000_000;

fn position(m: &saphyr_parser::Marker) -> Position {
    let line = u32::try_from(m.line()).unwrap_or(u32::MAX);
    let column = u32::try_from(m.col()).unwrap_or(u32::MAX - 1) + 1;
    Position::new(line, column)
}

fn scan_error(e: &ScanError) -> SyntaxError {
    SyntaxError {
        position: position(e.marker()),
        message: e.info().to_owned(),
    }
}

/// A collection being built.
enum Open {
    Seq {
        node: Node,
        items: Vec<Node>,
        anchor: usize,
    },
    Map {
        node: Node,
        entries: Vec<(Node, Node)>,
        key: Option<Node>,
        anchor: usize,
    },
}

struct Builder {
    stack: Vec<Open>,
    anchors: HashMap<usize, Node>,
    alias_nodes: usize,
    schema: Schema,
}

fn count_nodes(n: &Node) -> usize {
    match &n.value {
        Value::Seq(items) => 1 + items.iter().map(count_nodes).sum::<usize>(),
        Value::Map(entries) => {
            1 + entries
                .iter()
                .map(|(k, v)| count_nodes(k) + count_nodes(v))
                .sum::<usize>()
        }
        _ => 1,
    }
}

impl Builder {
    /// Adds a finished node to the collection being built; returns it when it is a root.
    fn push(&mut self, node: Node) -> Result<Option<Node>, SyntaxError> {
        match self.stack.last_mut() {
            None => Ok(Some(node)),
            Some(Open::Seq { items, .. }) => {
                items.push(node);
                Ok(None)
            }
            Some(Open::Map { entries, key, .. }) => {
                match key.take() {
                    None => {
                        if matches!(node.value, Value::Seq(_) | Value::Map(_)) {
                            return Err(SyntaxError {
                                position: node.start,
                                message: "a mapping key must be a scalar".to_owned(),
                            });
                        }
                        *key = Some(node);
                    }
                    Some(k) => entries.push((k, node)),
                }
                Ok(None)
            }
        }
    }

    fn scalar(
        &self,
        text: Cow<'_, str>,
        style: ScalarStyle,
        tag: Option<&saphyr_parser::Tag>,
        span: &Span,
    ) -> Node {
        let (value, style) = match style {
            ScalarStyle::Plain if self.schema == Schema::Kubectl => {
                (resolve_plain_kubectl(&text, tag), Style::Plain)
            }
            ScalarStyle::Plain => (resolve_plain(&text, tag), Style::Plain),
            ScalarStyle::SingleQuoted => (Value::String(text.into_owned()), Style::SingleQuoted),
            ScalarStyle::DoubleQuoted => (Value::String(text.into_owned()), Style::DoubleQuoted),
            ScalarStyle::Literal => (Value::String(text.into_owned()), Style::Literal),
            ScalarStyle::Folded => (Value::String(text.into_owned()), Style::Folded),
        };
        Node {
            value,
            start: position(&span.start),
            start_index: span.start.index(),
            end_index: span.end.index(),
            style,
        }
    }
}

/// A plain scalar resolved by the YAML 1.2 core schema (and the explicit core tags).
fn resolve_plain(text: &str, tag: Option<&saphyr_parser::Tag>) -> Value {
    if is_str_tag(tag) {
        return Value::String(text.to_owned());
    }
    if let Some(v) = core_word(text) {
        return v;
    }
    if let Some(v) = resolve_int(text) {
        return v;
    }
    if is_float(text) {
        if let Ok(f) = text.parse::<f64>() {
            return Value::Float(f);
        }
    }
    Value::String(text.to_owned())
}

/// True for an explicit `!!str` tag.
fn is_str_tag(tag: Option<&saphyr_parser::Tag>) -> bool {
    tag.is_some_and(|t| t.is_yaml_core_schema() && t.suffix == "str")
}

/// The null, booleans, infinities and NaN of the YAML 1.2 core schema (which YAML 1.1 reads
/// alike).
fn core_word(text: &str) -> Option<Value> {
    Some(match text {
        "" | "~" | "null" | "Null" | "NULL" => Value::Null,
        "true" | "True" | "TRUE" => Value::Bool(true),
        "false" | "False" | "FALSE" => Value::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Value::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Value::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => Value::Float(f64::NAN),
        _ => return None,
    })
}

/// Whether a number's text is negative, and the text after its sign.
fn split_sign(text: &str) -> Option<(bool, &str)> {
    Some(match text.as_bytes().first()? {
        b'-' => (true, text.get(1..)?),
        b'+' => (false, text.get(1..)?),
        _ => (false, text),
    })
}

fn resolve_int(text: &str) -> Option<Value> {
    let (negative, digits) = split_sign(text)?;
    let (radix, body) = if let Some(h) = digits.strip_prefix("0x") {
        if text.starts_with(['-', '+']) {
            return None;
        }
        (16, h)
    } else if let Some(o) = digits.strip_prefix("0o") {
        if text.starts_with(['-', '+']) {
            return None;
        }
        (8, o)
    } else {
        (10, digits)
    };
    if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u128::from_str_radix(body, radix).ok();
    Some(match (negative, magnitude) {
        (false, Some(m)) if m <= i64::MAX as u128 => Value::Int(m as i64),
        (false, Some(m)) if m <= u128::from(u64::MAX) => Value::Uint(m as u64),
        (true, Some(m)) if m <= (i64::MAX as u128) + 1 => {
            Value::Int((m as i128).wrapping_neg() as i64)
        }
        _ => Value::Float(text.parse::<f64>().ok()?),
    })
}

/// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`
fn is_float(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    let int_start = i;
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let int_digits = i - int_start;
    let mut frac_digits = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let f = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        frac_digits = i - f;
    }
    if int_digits == 0 && frac_digits == 0 {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        let e = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == e {
            return false;
        }
    }
    i == b.len()
}

/// A plain scalar as go-yaml v2 resolves it (kubectl's and Helm's YAML 1.1), each number as
/// the apiserver decodes the JSON kubectl sends for it.
fn resolve_plain_kubectl(text: &str, tag: Option<&saphyr_parser::Tag>) -> Value {
    if is_str_tag(tag) {
        return Value::String(text.to_owned());
    }
    // go-yaml tries the other types only for a scalar whose first character may start one.
    let number_like = match text.as_bytes().first() {
        None => false,
        Some(b'+' | b'-' | b'0'..=b'9') => true,
        Some(b'.' | b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~') => {
            false
        }
        Some(_) => return Value::String(text.to_owned()),
    };
    match text {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => return Value::Bool(true),
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => return Value::Bool(false),
        _ => {}
    }
    if let Some(v) = core_word(text) {
        return v;
    }
    if text.starts_with('.') {
        return match text.parse::<f64>() {
            Ok(f) if is_float(text) => sent_number(f),
            _ => Value::String(text.to_owned()),
        };
    }
    if !number_like {
        return Value::String(text.to_owned());
    }
    let plain = text.replace('_', "");
    if let Some(v) = go_parse_int(&plain) {
        return v;
    }
    if is_float(&plain) {
        if let Ok(f) = plain.parse::<f64>() {
            return sent_number(f);
        }
    }
    Value::String(text.to_owned())
}

/// An integer as Go's `strconv.ParseInt(s, 0, 64)` (and, failing that, `ParseUint`) reads
/// it: an optional sign, then a `0x`, `0o`, `0b` prefix (either case) or a leading `0`
/// for octal. A magnitude beyond 64 bits is a number too (go-yaml keeps it as a big
/// integer); every value is given as the apiserver decodes it.
fn go_parse_int(s: &str) -> Option<Value> {
    let (negative, unsigned) = split_sign(s)?;
    let (radix, digits) = match unsigned.as_bytes() {
        [] => return None,
        [b'0', p, _, ..] if p.eq_ignore_ascii_case(&b'x') => (16, unsigned.get(2..)?),
        [b'0', p, _, ..] if p.eq_ignore_ascii_case(&b'o') => (8, unsigned.get(2..)?),
        [b'0', p, _, ..] if p.eq_ignore_ascii_case(&b'b') => (2, unsigned.get(2..)?),
        // A lone `0` is octal with no digits: zero.
        [b'0', ..] => (8, unsigned.get(1..)?),
        _ => (10, unsigned),
    };
    if !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    if digits.is_empty() {
        return Some(Value::Int(0));
    }
    let sign = if negative { -1.0 } else { 1.0 };
    // Beyond 128 bits, the nearest double (go-yaml's big integer, printed as digits and
    // decoded by the apiserver as a double).
    let Ok(magnitude) = u128::from_str_radix(digits, radix) else {
        let f = digits.chars().fold(0f64, |acc, c| {
            acc * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
        });
        return Some(Value::Float(sign * f));
    };
    let signed = i128::try_from(magnitude)
        .ok()
        .map(|m| if negative { -m } else { m });
    Some(match signed.and_then(|m| i64::try_from(m).ok()) {
        Some(i) => Value::Int(i),
        // Beyond 64 bits: printed as digits, decoded by the apiserver as a double.
        None => Value::Float(sign * magnitude as f64),
    })
}

/// A floating-point number as the apiserver receives it from kubectl: Go's JSON encoder
/// prints an integral value below 1e21 without a fraction, and the apiserver decodes such
/// a literal as an integer when it fits 64 bits.
fn sent_number(f: f64) -> Value {
    // -2^63 ≤ f < 2^63: an integer of 64 bits (and so below 1e21).
    let in_range = f >= i64::MIN as f64 && f < i64::MAX as f64;
    if f.is_finite() && f.fract() == 0.0 && in_range {
        Value::Int(f as i64)
    } else {
        Value::Float(f)
    }
}

/// Applies `<<` merge keys: the merged mappings' entries come first, the mapping's own
/// entries override them.
fn apply_merges(entries: Vec<(Node, Node)>) -> Vec<(Node, Node)> {
    if !entries
        .iter()
        .any(|(k, _)| k.style == Style::Plain && k.as_str() == Some("<<"))
    {
        return entries;
    }
    let mut merged: Vec<(Node, Node)> = Vec::new();
    let mut own = Vec::new();
    for (k, v) in entries {
        if k.style == Style::Plain && k.as_str() == Some("<<") {
            let sources = match v.value {
                Value::Map(m) => vec![m],
                Value::Seq(items) => items
                    .into_iter()
                    .filter_map(|n| match n.value {
                        Value::Map(m) => Some(m),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            for source in sources {
                for (mk, mv) in source {
                    let name = mk.key_text().map(Cow::into_owned);
                    if !merged
                        .iter()
                        .any(|(e, _)| e.key_text().map(Cow::into_owned) == name)
                    {
                        merged.push((mk, mv));
                    }
                }
            }
        } else {
            own.push((k, v));
        }
    }
    merged.retain(|(k, _)| {
        let name = k.key_text();
        !own.iter().any(|(o, _)| o.key_text() == name)
    });
    merged.extend(own);
    merged
}

/// Reads every document of a text. A syntax error stops the reading; the documents before
/// it are returned with it.
pub fn read_documents(text: &str) -> Documents {
    read_documents_as(text, Schema::Core)
}

/// Reads every document of a text, its plain scalars resolved by `schema`. A syntax error
/// stops the reading; the documents before it are returned with it.
pub fn read_documents_as(text: &str, schema: Schema) -> Documents {
    let mut b = Builder {
        stack: Vec::new(),
        anchors: HashMap::new(),
        alias_nodes: 0,
        schema,
    };
    let mut documents = Vec::new();
    let mut current: Option<(Position, Option<Node>)> = None;
    let mut index = 0;
    for event in Parser::new_from_str(text) {
        let (event, span) = match event {
            Ok(e) => e,
            Err(e) => {
                return Documents {
                    documents,
                    error: Some(scan_error(&e)),
                }
            }
        };
        let finished = match event {
            Event::Nothing | Event::StreamStart | Event::StreamEnd => None,
            Event::DocumentStart(_) => {
                current = Some((position(&span.start), None));
                b.anchors.clear();
                None
            }
            Event::DocumentEnd => {
                if let Some((start, root)) = current.take() {
                    let root = root.filter(|r| r.value != Value::Null);
                    documents.push(Document { index, start, root });
                    index += 1;
                }
                None
            }
            Event::Alias(id) => {
                let Some(target) = b.anchors.get(&id) else {
                    return Documents {
                        documents,
                        error: Some(SyntaxError {
                            position: position(&span.start),
                            message: "unknown anchor".to_owned(),
                        }),
                    };
                };
                b.alias_nodes = b.alias_nodes.saturating_add(count_nodes(target));
                if b.alias_nodes > MAX_ALIAS_NODES {
                    return Documents {
                        documents,
                        error: Some(SyntaxError {
                            position: position(&span.start),
                            message: "the document contains excessive aliasing".to_owned(),
                        }),
                    };
                }
                let mut node = target.clone();
                node.start = position(&span.start);
                node.start_index = span.start.index();
                node.end_index = span.end.index();
                Some(node)
            }
            Event::Scalar(value, style, anchor, tag) => {
                let node = b.scalar(value, style, tag.as_deref(), &span);
                if anchor > 0 {
                    b.anchors.insert(anchor, node.clone());
                }
                Some(node)
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                if b.stack.len() >= MAX_DEPTH {
                    return Documents {
                        documents,
                        error: Some(SyntaxError {
                            position: position(&span.start),
                            message: format!("nesting deeper than {MAX_DEPTH} levels"),
                        }),
                    };
                }
                let node = Node {
                    value: Value::Null,
                    start: position(&span.start),
                    start_index: span.start.index(),
                    end_index: span.start.index(),
                    style: Style::Collection,
                };
                b.stack.push(if matches!(event, Event::SequenceStart(..)) {
                    Open::Seq {
                        node,
                        items: Vec::new(),
                        anchor,
                    }
                } else {
                    Open::Map {
                        node,
                        entries: Vec::new(),
                        key: None,
                        anchor,
                    }
                });
                None
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (node, anchor) = match b.stack.pop() {
                    Some(Open::Seq {
                        mut node,
                        items,
                        anchor,
                    }) => {
                        node.value = Value::Seq(items);
                        (node, anchor)
                    }
                    Some(Open::Map {
                        mut node,
                        entries,
                        anchor,
                        ..
                    }) => {
                        node.value = Value::Map(apply_merges(entries));
                        (node, anchor)
                    }
                    None => continue,
                };
                if anchor > 0 {
                    b.anchors.insert(anchor, node.clone());
                }
                Some(node)
            }
        };
        if let Some(node) = finished {
            match b.push(node) {
                Ok(Some(root)) => {
                    if let Some((_, slot)) = current.as_mut() {
                        *slot = Some(root);
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    return Documents {
                        documents,
                        error: Some(e),
                    }
                }
            }
        }
    }
    Documents {
        documents,
        error: None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;

    fn one(text: &str) -> Node {
        let d = read_documents(text);
        assert_eq!(d.error, None, "{text}");
        d.documents[0].root.clone().unwrap()
    }

    #[test]
    fn scalars_resolve_by_the_core_schema() {
        let n = one("a: 1\nb: -2\nc: 0x1f\nd: 1.5e3\ne: true\nf: ~\ng: '1'\nh: \"x\"\ni: text\nj:\nk: .inf\nl: 18446744073709551615\nm: 0o17\nn: 1_000\n");
        assert_eq!(n.get("a").unwrap().value, Value::Int(1));
        assert_eq!(n.get("b").unwrap().value, Value::Int(-2));
        assert_eq!(n.get("c").unwrap().value, Value::Int(31));
        assert_eq!(n.get("d").unwrap().value, Value::Float(1500.0));
        assert_eq!(n.get("e").unwrap().value, Value::Bool(true));
        assert_eq!(n.get("f").unwrap().value, Value::Null);
        assert_eq!(n.get("g").unwrap().value, Value::String("1".into()));
        assert_eq!(n.get("h").unwrap().style, Style::DoubleQuoted);
        assert_eq!(n.get("i").unwrap().value, Value::String("text".into()));
        assert_eq!(n.get("j").unwrap().value, Value::Null);
        assert_eq!(n.get("k").unwrap().value, Value::Float(f64::INFINITY));
        assert_eq!(n.get("l").unwrap().value, Value::Uint(u64::MAX));
        assert_eq!(n.get("m").unwrap().value, Value::Int(15));
        assert_eq!(n.get("n").unwrap().value, Value::String("1_000".into()));
    }

    /// Each plain scalar as go-yaml v2 resolves it for kubectl (sigs.k8s.io/yaml's
    /// YAMLToJSON), each number as the apiserver decodes the JSON kubectl prints for it.
    #[test]
    fn scalars_resolve_as_kubectl_sends_them() {
        let cases: &[(&str, Value)] = &[
            ("0644", Value::Int(420)),
            ("-0644", Value::Int(-420)),
            ("00", Value::Int(0)),
            ("0", Value::Int(0)),
            ("08", Value::Int(8)),
            ("0o17", Value::Int(15)),
            ("0O17", Value::Int(15)),
            ("0x1F", Value::Int(31)),
            ("-0x1F", Value::Int(-31)),
            ("+0x1F", Value::Int(31)),
            ("0b101", Value::Int(5)),
            ("-0b101", Value::Int(-5)),
            ("1_000", Value::Int(1000)),
            ("+12", Value::Int(12)),
            ("1e3", Value::Int(1000)),
            ("3.0", Value::Int(3)),
            ("-0.0", Value::Int(0)),
            ("1.5", Value::Float(1.5)),
            ("1_0.5", Value::Float(10.5)),
            (".5", Value::Float(0.5)),
            ("+.5", Value::Float(0.5)),
            ("1e21", Value::Float(1e21)),
            ("9223372036854775807", Value::Int(i64::MAX)),
            ("-9223372036854775808", Value::Int(i64::MIN)),
            (
                "9223372036854775808",
                Value::Float(9_223_372_036_854_775_808.0),
            ),
            (
                "18446744073709551615",
                Value::Float(18_446_744_073_709_551_615.0),
            ),
            ("y", Value::Bool(true)),
            ("Yes", Value::Bool(true)),
            ("ON", Value::Bool(true)),
            ("True", Value::Bool(true)),
            ("n", Value::Bool(false)),
            ("NO", Value::Bool(false)),
            ("off", Value::Bool(false)),
            ("~", Value::Null),
            ("Null", Value::Null),
            ("0x", Value::String("0x".into())),
            ("+", Value::String("+".into())),
            ("_1", Value::String("_1".into())),
            ("12:30", Value::String("12:30".into())),
            ("2001-12-14", Value::String("2001-12-14".into())),
            ("1.2.3", Value::String("1.2.3".into())),
            ("nan", Value::String("nan".into())),
            ("yess", Value::String("yess".into())),
            ("Infinity", Value::String("Infinity".into())),
        ];
        for (text, want) in cases {
            let d = read_documents_as(&format!("v: {text}\n"), Schema::Kubectl);
            let v = d.documents[0].root.as_ref().unwrap().get("v").unwrap();
            assert_eq!(&v.value, want, "{text}");
        }
        let n = read_documents_as(
            ".inf: .nan\nq: 'yes'\ns: !!str 0644\non: 0644\n",
            Schema::Kubectl,
        );
        let n = n.documents[0].root.clone().unwrap();
        assert_eq!(
            n.to_json(),
            serde_json::json!({".inf": null, "q": "yes", "s": "0644", "true": 420})
        );
        // The core schema reads the same text otherwise.
        assert_eq!(one("v: 0644\n").get("v").unwrap().value, Value::Int(644));
        assert_eq!(
            one("v: yes\n").get("v").unwrap().value,
            Value::String("yes".into())
        );
    }

    #[test]
    fn yaml_1_1_booleans_are_told_apart() {
        let d = read_documents_as(
            "[y, n, on, no, yes, off, true, FALSE, 'yes', *a]\n",
            Schema::Kubectl,
        );
        // The alias is an error (no anchor); the sequence before it is not read.
        assert!(d.error.is_some());
        let d = read_documents_as(
            "[y, N, On, no, YES, Off, true, FALSE, 'yes']\n",
            Schema::Kubectl,
        );
        let Value::Seq(items) = &d.documents[0].root.as_ref().unwrap().value else {
            panic!("not a list");
        };
        let words: Vec<Option<&str>> = items.iter().map(Node::yaml11_word).collect();
        assert_eq!(
            words,
            [
                Some("y"),
                Some("n"),
                Some("on"),
                Some("no"),
                Some("yes"),
                Some("off"),
                None,
                None,
                None
            ]
        );
        assert_eq!(
            items[1].describe(),
            "boolean false (a plain n in YAML 1.1, as kubectl reads it: quote it for a string)"
        );
        assert_eq!(items[6].describe(), "boolean true");
    }

    #[test]
    fn positions_of_nodes() {
        let n = one("a:\n  b: [x, 'y']\n  c: |\n    text\n");
        let b = n.get("a").unwrap().get("b").unwrap();
        assert_eq!(b.start, Position::new(2, 6));
        assert_eq!(b.index(1).unwrap().start, Position::new(2, 10));
        let c = n.at_path("a.c").unwrap();
        assert_eq!(c.start, Position::new(4, 5));
        assert_eq!(c.style, Style::Literal);
        assert_eq!(n.at_path("a.b[0]").unwrap().as_str(), Some("x"));
        assert_eq!(n.at_path("a.b[2]"), None);
        assert_eq!(n.at_path("a.b[x]"), None);
    }

    #[test]
    fn json_is_read_with_positions() {
        let n = one("{\n\t\"a\": \"x\\u00e9\",\n\t\"b\": [1, 2.5, null]\n}\n");
        assert_eq!(n.get("a").unwrap().as_str(), Some("xé"));
        assert_eq!(n.get("b").unwrap().start, Position::new(3, 7));
        assert_eq!(
            n.to_json(),
            serde_json::json!({"a": "xé", "b": [1, 2.5, null]})
        );
    }

    #[test]
    fn documents_and_errors() {
        let d = read_documents("a: 1\n---\n---\nb: [\n");
        assert_eq!(d.documents.len(), 2);
        assert_eq!(d.documents[1].root, None);
        assert_eq!(d.documents[1].index, 1);
        let e = d.error.unwrap();
        assert_eq!(e.position.line, 5);
        assert!(read_documents("").documents.is_empty());
        let e = read_documents("a: 1\n b: 2\n").error.unwrap();
        assert_eq!(
            e.to_string(),
            "2:3: mapping values are not allowed in this context"
        );
    }

    #[test]
    fn aliases_and_merges() {
        let n = one("a: &x {k: 1, j: 0}\nb: *x\nc:\n  <<: *x\n  j: 2\n");
        assert_eq!(
            n.to_json(),
            serde_json::json!({"a": {"k": 1, "j": 0}, "b": {"k": 1, "j": 0}, "c": {"k": 1, "j": 2}})
        );
        assert_eq!(n.get("b").unwrap().start, Position::new(2, 4));
        // Exponential aliasing is refused.
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        let e = read_documents(&text).error.unwrap();
        assert_eq!(e.message, "the document contains excessive aliasing");
    }

    #[test]
    fn deep_nesting_is_refused() {
        let e = read_documents(&"[".repeat(5000)).error.unwrap();
        assert_eq!(e.message, "recursion limit exceeded");
        let mut text = String::new();
        for i in 0..1200 {
            text.push_str(&" ".repeat(i));
            text.push_str("a:\n");
        }
        let e = read_documents(&text).error.unwrap();
        assert_eq!(e.message, "nesting deeper than 1000 levels");
        // The deepest accepted nesting is read, converted and dropped on a 2 MiB stack.
        let handle = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(|| {
                let mut text = String::new();
                for i in 0..999 {
                    text.push_str(&" ".repeat(i));
                    text.push_str("a:\n");
                }
                let d = read_documents(&text);
                assert_eq!(d.error, None);
                let json = d.documents[0].root.as_ref().unwrap().to_json();
                drop(d);
                json.is_object()
            })
            .unwrap();
        assert!(handle.join().unwrap());
    }

    #[test]
    fn duplicate_keys_are_kept() {
        let n = one("a: 1\na: 2\n");
        match &n.value {
            Value::Map(e) => assert_eq!(e.len(), 2),
            _ => panic!(),
        }
        assert_eq!(n.get("a").unwrap().value, Value::Int(2));
    }
}
