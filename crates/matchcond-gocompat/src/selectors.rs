//! Field and label selectors parsed as kubernetes/apimachinery's `fields.ParseSelector` and
//! `labels.ParseToRequirements` parse them, with apimachinery's error texts (the authorizer
//! library's `fieldSelector` and `labelSelector` hand them to the authorizer).

use std::fmt;

use crate::strconv::{parse_int, quote};
use crate::validation::{label_value_errors, qualified_name_errors, Package};

/// The operator of a selector requirement (apimachinery `selection.Operator`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SelectorOperator {
    /// `in` (label selectors).
    In,
    /// `notin` (label selectors).
    NotIn,
    /// `=`.
    Equals,
    /// `==` (label selectors; field selectors report `==` as [`SelectorOperator::Equals`]).
    DoubleEquals,
    /// `!=`.
    NotEquals,
    /// A bare key: the label exists.
    Exists,
    /// `!key`: the label does not exist.
    DoesNotExist,
    /// `>` (label selectors, integer values).
    GreaterThan,
    /// `<` (label selectors, integer values).
    LessThan,
}

impl SelectorOperator {
    /// The operator as apimachinery spells it: `in`, `notin`, `=`, `==`, `!=`, `exists`, `!`,
    /// `gt`, `lt`.
    pub fn as_str(self) -> &'static str {
        match self {
            SelectorOperator::In => "in",
            SelectorOperator::NotIn => "notin",
            SelectorOperator::Equals => "=",
            SelectorOperator::DoubleEquals => "==",
            SelectorOperator::NotEquals => "!=",
            SelectorOperator::Exists => "exists",
            SelectorOperator::DoesNotExist => "!",
            SelectorOperator::GreaterThan => "gt",
            SelectorOperator::LessThan => "lt",
        }
    }
}

impl fmt::Display for SelectorOperator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One requirement of a field selector (`fields.Requirement`): `field = value` or
/// `field != value`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldRequirement {
    /// The field path, e.g. `spec.nodeName`.
    pub field: String,
    /// [`SelectorOperator::Equals`] (for `=` and `==`) or [`SelectorOperator::NotEquals`].
    pub operator: SelectorOperator,
    /// The value, unescaped.
    pub value: String,
}

/// One requirement of a label selector (`labels.Requirement`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LabelRequirement {
    /// The label key.
    pub key: String,
    /// The operator.
    pub operator: SelectorOperator,
    /// The values, sorted and without duplicates; empty for `exists` and `!`.
    pub values: Vec<String>,
}

/// Why a selector did not parse; the text is apimachinery's error text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SelectorError(pub String);

impl SelectorError {
    /// The error text.
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SelectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SelectorError {}

/// Parses a field selector as `fields.ParseSelector` does and returns its requirements.
///
/// Terms are separated by unescaped commas and sorted; each is `field=value`, `field==value`
/// or `field!=value` (the first operator found splits the term); values may escape `\`, `,`
/// and `=` with a backslash. Terms with an empty field and value are dropped.
pub fn parse_field_selector(selector: &str) -> Result<Vec<FieldRequirement>, SelectorError> {
    let mut terms = split_field_terms(selector);
    terms.sort_unstable();
    let mut out = Vec::with_capacity(terms.len());
    for term in terms {
        if term.is_empty() {
            continue;
        }
        let Some((field, op, raw)) = split_field_term(term) else {
            return Err(SelectorError(format!(
                "invalid selector: '{selector}'; can't understand '{term}'"
            )));
        };
        let value = unescape_field_value(raw)?;
        if field.is_empty() && value.is_empty() {
            continue;
        }
        out.push(FieldRequirement {
            field: field.to_owned(),
            operator: op,
            value,
        });
    }
    Ok(out)
}

/// Splits at commas that are not escaped; the backslashes stay in the terms.
fn split_field_terms(s: &str) -> Vec<&str> {
    if s.is_empty() {
        return Vec::new();
    }
    let mut terms = Vec::new();
    let mut start = 0;
    let mut in_slash = false;
    for (i, c) in s.char_indices() {
        if in_slash {
            in_slash = false;
        } else if c == '\\' {
            in_slash = true;
        } else if c == ',' {
            terms.push(s.get(start..i).unwrap_or(""));
            start = i + 1;
        }
    }
    terms.push(s.get(start..).unwrap_or(""));
    terms
}

/// Splits a term at the first operator (`!=`, `==`, `=`, tried in that order at each
/// position).
fn split_field_term(term: &str) -> Option<(&str, SelectorOperator, &str)> {
    const OPS: [(&str, SelectorOperator); 3] = [
        ("!=", SelectorOperator::NotEquals),
        ("==", SelectorOperator::Equals),
        ("=", SelectorOperator::Equals),
    ];
    for (i, _) in term.char_indices() {
        let rest = term.get(i..)?;
        for (text, op) in OPS {
            if rest.starts_with(text) {
                return Some((term.get(..i)?, op, rest.get(text.len()..)?));
            }
        }
    }
    None
}

/// `fields.UnescapeValue`.
fn unescape_field_value(s: &str) -> Result<String, SelectorError> {
    if !s.contains(['\\', ',', '=']) {
        return Ok(s.to_owned());
    }
    let mut out = String::with_capacity(s.len());
    let mut in_slash = false;
    for c in s.chars() {
        if in_slash {
            match c {
                '\\' | ',' | '=' => out.push(c),
                other => {
                    return Err(SelectorError(format!(
                        "invalid field selector: invalid escape sequence: \\{other}"
                    )))
                }
            }
            in_slash = false;
            continue;
        }
        match c {
            '\\' => in_slash = true,
            ',' | '=' => {
                return Err(SelectorError(format!(
                    "invalid field selector: unescaped character in value: {}",
                    u32::from(c)
                )))
            }
            other => out.push(other),
        }
    }
    if in_slash {
        return Err(SelectorError(
            "invalid field selector: invalid escape sequence: \\".to_owned(),
        ));
    }
    Ok(out)
}

/// Tokens of the label selector lexer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Error,
    End,
    ClosedPar,
    Comma,
    DoesNotExist,
    DoubleEquals,
    Equals,
    GreaterThan,
    Identifier,
    In,
    LessThan,
    NotEquals,
    NotIn,
    OpenPar,
}

/// The literal tokens (`string2token`).
fn literal_token(s: &[u8]) -> Option<Tok> {
    Some(match s {
        b")" => Tok::ClosedPar,
        b"," => Tok::Comma,
        b"!" => Tok::DoesNotExist,
        b"==" => Tok::DoubleEquals,
        b"=" => Tok::Equals,
        b">" => Tok::GreaterThan,
        b"in" => Tok::In,
        b"<" => Tok::LessThan,
        b"!=" => Tok::NotEquals,
        b"notin" => Tok::NotIn,
        b"(" => Tok::OpenPar,
        _ => return None,
    })
}

fn is_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_special(b: u8) -> bool {
    matches!(b, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

/// The label selector lexer: works on bytes; a NUL byte reads like the end of the input.
struct Lexer<'s> {
    s: &'s [u8],
    pos: usize,
}

impl<'s> Lexer<'s> {
    fn read(&mut self) -> u8 {
        match self.s.get(self.pos) {
            Some(b) => {
                self.pos += 1;
                *b
            }
            None => 0,
        }
    }

    fn unread(&mut self) {
        self.pos = self.pos.saturating_sub(1);
    }

    fn text(&self, from: usize, to: usize) -> String {
        String::from_utf8_lossy(self.s.get(from..to).unwrap_or(&[])).into_owned()
    }

    fn scan_id_or_keyword(&mut self) -> (Tok, String) {
        let mut buf = Vec::new();
        loop {
            let ch = self.read();
            if ch == 0 {
                break;
            }
            if is_special(ch) || is_whitespace(ch) {
                self.unread();
                break;
            }
            buf.push(ch);
        }
        let tok = literal_token(&buf).unwrap_or(Tok::Identifier);
        (tok, String::from_utf8_lossy(&buf).into_owned())
    }

    fn scan_special(&mut self) -> (Tok, String) {
        let start = self.pos;
        let mut last: Option<(Tok, usize)> = None;
        loop {
            let ch = self.read();
            if ch == 0 {
                break;
            }
            if !is_special(ch) {
                self.unread();
                break;
            }
            let buf = self.s.get(start..self.pos).unwrap_or(&[]);
            if let Some(t) = literal_token(buf) {
                last = Some((t, self.pos));
            } else if last.is_some() {
                self.unread();
                break;
            }
        }
        match last {
            Some((t, end)) => (t, self.text(start, end)),
            None => (
                Tok::Error,
                format!(
                    "error expected: keyword found '{}'",
                    self.text(start, self.pos)
                ),
            ),
        }
    }

    fn lex(&mut self) -> (Tok, String) {
        let mut ch = self.read();
        while is_whitespace(ch) {
            ch = self.read();
        }
        if ch == 0 {
            return (Tok::End, String::new());
        }
        self.unread();
        if is_special(ch) {
            self.scan_special()
        } else {
            self.scan_id_or_keyword()
        }
    }
}

/// Where the parser is: after a key `in`/`notin` are operators, elsewhere identifiers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    KeyAndOperator,
    Values,
}

struct Parser {
    items: Vec<(Tok, String)>,
    position: usize,
}

impl Parser {
    fn at(&self, i: usize, ctx: Ctx) -> (Tok, &str) {
        let (tok, lit) = match self.items.get(i) {
            Some((t, l)) => (*t, l.as_str()),
            None => (Tok::End, ""),
        };
        match (ctx, tok) {
            (Ctx::Values, Tok::In | Tok::NotIn) => (Tok::Identifier, lit),
            _ => (tok, lit),
        }
    }

    fn lookahead(&self, ctx: Ctx) -> (Tok, String) {
        let (t, l) = self.at(self.position, ctx);
        (t, l.to_owned())
    }

    fn consume(&mut self, ctx: Ctx) -> (Tok, String) {
        let r = self.lookahead(ctx);
        self.position += 1;
        r
    }

    fn parse(&mut self) -> Result<Vec<LabelRequirement>, String> {
        let mut reqs = Vec::new();
        loop {
            let (tok, lit) = self.lookahead(Ctx::Values);
            match tok {
                Tok::Identifier | Tok::DoesNotExist => {
                    let r = self
                        .parse_requirement()
                        .map_err(|e| format!("unable to parse requirement: {e}"))?;
                    reqs.push(r);
                    let (t, l) = self.consume(Ctx::Values);
                    match t {
                        Tok::End => return Ok(reqs),
                        Tok::Comma => {
                            let (t2, l2) = self.lookahead(Ctx::Values);
                            if t2 != Tok::Identifier && t2 != Tok::DoesNotExist {
                                return Err(format!(
                                    "found '{l2}', expected: identifier after ','"
                                ));
                            }
                        }
                        _ => return Err(format!("found '{l}', expected: ',' or 'end of string'")),
                    }
                }
                Tok::End => return Ok(reqs),
                _ => {
                    return Err(format!(
                        "found '{lit}', expected: !, identifier, or 'end of string'"
                    ))
                }
            }
        }
    }

    fn parse_requirement(&mut self) -> Result<LabelRequirement, String> {
        let (key, op) = self.parse_key_and_infer_operator()?;
        if let Some(op @ (SelectorOperator::Exists | SelectorOperator::DoesNotExist)) = op {
            return new_requirement(key, op, Vec::new());
        }
        let op = self.parse_operator()?;
        let values = match op {
            SelectorOperator::In | SelectorOperator::NotIn => self.parse_values()?,
            _ => self.parse_exact_value()?,
        };
        new_requirement(key, op, values)
    }

    fn parse_key_and_infer_operator(
        &mut self,
    ) -> Result<(String, Option<SelectorOperator>), String> {
        let mut op = None;
        let (mut tok, mut lit) = self.consume(Ctx::Values);
        if tok == Tok::DoesNotExist {
            op = Some(SelectorOperator::DoesNotExist);
            (tok, lit) = self.consume(Ctx::Values);
        }
        if tok != Tok::Identifier {
            return Err(format!("found '{lit}', expected: identifier"));
        }
        let errs = qualified_name_errors(&lit, Package::Current);
        if !errs.is_empty() {
            return Err(invalid("<nil>", &lit, &errs.join("; ")));
        }
        let (next, _) = self.at(self.position, Ctx::Values);
        if matches!(next, Tok::End | Tok::Comma) && op != Some(SelectorOperator::DoesNotExist) {
            op = Some(SelectorOperator::Exists);
        }
        Ok((lit, op))
    }

    fn parse_operator(&mut self) -> Result<SelectorOperator, String> {
        let (tok, lit) = self.consume(Ctx::KeyAndOperator);
        Ok(match tok {
            Tok::In => SelectorOperator::In,
            Tok::Equals => SelectorOperator::Equals,
            Tok::DoubleEquals => SelectorOperator::DoubleEquals,
            Tok::GreaterThan => SelectorOperator::GreaterThan,
            Tok::LessThan => SelectorOperator::LessThan,
            Tok::NotIn => SelectorOperator::NotIn,
            Tok::NotEquals => SelectorOperator::NotEquals,
            _ => {
                return Err(format!(
                    "found '{lit}', expected: in, notin, =, ==, !=, gt, lt"
                ))
            }
        })
    }

    fn parse_values(&mut self) -> Result<Vec<String>, String> {
        let (tok, lit) = self.consume(Ctx::Values);
        if tok != Tok::OpenPar {
            return Err(format!("found '{lit}' expected: '('"));
        }
        let (tok, lit) = self.lookahead(Ctx::Values);
        match tok {
            Tok::Identifier | Tok::Comma => {
                let s = self.parse_identifiers_list()?;
                let (t, _) = self.consume(Ctx::Values);
                if t != Tok::ClosedPar {
                    return Err(format!("found '{lit}', expected: ')'"));
                }
                Ok(s)
            }
            Tok::ClosedPar => {
                self.consume(Ctx::Values);
                Ok(vec![String::new()])
            }
            _ => Err(format!("found '{lit}', expected: ',', ')' or identifier")),
        }
    }

    fn parse_identifiers_list(&mut self) -> Result<Vec<String>, String> {
        let mut s: Vec<String> = Vec::new();
        let insert = |s: &mut Vec<String>, v: String| {
            if !s.contains(&v) {
                s.push(v);
            }
        };
        loop {
            let (tok, lit) = self.consume(Ctx::Values);
            match tok {
                Tok::Identifier => {
                    insert(&mut s, lit);
                    let (t2, l2) = self.lookahead(Ctx::Values);
                    match t2 {
                        Tok::Comma => continue,
                        Tok::ClosedPar => return Ok(s),
                        _ => return Err(format!("found '{l2}', expected: ',' or ')'")),
                    }
                }
                Tok::Comma => {
                    if s.is_empty() {
                        insert(&mut s, String::new());
                    }
                    let (t2, _) = self.lookahead(Ctx::Values);
                    if t2 == Tok::ClosedPar {
                        insert(&mut s, String::new());
                        return Ok(s);
                    }
                    if t2 == Tok::Comma {
                        insert(&mut s, String::new());
                    }
                }
                _ => return Err(format!("found '{lit}', expected: ',', or identifier")),
            }
        }
    }

    fn parse_exact_value(&mut self) -> Result<Vec<String>, String> {
        let (tok, _) = self.lookahead(Ctx::Values);
        if matches!(tok, Tok::End | Tok::Comma) {
            return Ok(vec![String::new()]);
        }
        let (tok, lit) = self.consume(Ctx::Values);
        if tok == Tok::Identifier {
            return Ok(vec![lit]);
        }
        Err(format!("found '{lit}', expected: identifier"))
    }
}

/// A `field.Invalid` error with a string value: `<path>: Invalid value: "<value>": <detail>`.
fn invalid(path: &str, value: &str, detail: &str) -> String {
    format!("{path}: Invalid value: {}: {detail}", quote(value))
}

/// `labels.NewRequirement` for what the parser can produce: the values are sorted and
/// validated (integers for `gt`/`lt`, label values for all).
fn new_requirement(
    key: String,
    operator: SelectorOperator,
    mut values: Vec<String>,
) -> Result<LabelRequirement, String> {
    values.sort_unstable();
    values.dedup();
    let mut errs: Vec<String> = Vec::new();
    let key_errs = qualified_name_errors(&key, Package::Current);
    if !key_errs.is_empty() {
        errs.push(invalid("key", &key, &key_errs.join("; ")));
    }
    if matches!(
        operator,
        SelectorOperator::GreaterThan | SelectorOperator::LessThan
    ) {
        for (i, v) in values.iter().enumerate() {
            if parse_int(v).is_none() {
                errs.push(invalid(
                    &format!("values[{i}]"),
                    v,
                    "for 'Gt', 'Lt' operators, the value must be an integer",
                ));
            }
        }
    }
    for (i, v) in values.iter().enumerate() {
        let value_errs = label_value_errors(v, Package::Current);
        if !value_errs.is_empty() {
            errs.push(invalid(
                &format!("values[{i}][{key}]"),
                v,
                &value_errs.join("; "),
            ));
        }
    }
    if errs.is_empty() {
        return Ok(LabelRequirement {
            key,
            operator,
            values,
        });
    }
    Err(aggregate(errs))
}

/// `utilerrors.NewAggregate(...).Error()`: one message alone, several deduplicated in
/// brackets.
fn aggregate(errs: Vec<String>) -> String {
    let mut seen: Vec<String> = Vec::new();
    for e in errs {
        if !seen.contains(&e) {
            seen.push(e);
        }
    }
    if seen.len() == 1 {
        return seen.pop().unwrap_or_default();
    }
    format!("[{}]", seen.join(", "))
}

/// Parses a label selector as `labels.ParseToRequirements` does; the requirements are sorted
/// by key.
///
/// The grammar: requirements separated by commas, each `key`, `!key`, `key = v`, `key == v`,
/// `key != v`, `key > n`, `key < n`, `key in (v, …)` or `key notin (v, …)`. Keys must be
/// label keys (an optional DNS-subdomain prefix and `/`, then a name of at most 63
/// characters); values must be label values.
pub fn parse_label_selector(selector: &str) -> Result<Vec<LabelRequirement>, SelectorError> {
    let mut lexer = Lexer {
        s: selector.as_bytes(),
        pos: 0,
    };
    let mut items = Vec::new();
    loop {
        let (tok, lit) = lexer.lex();
        items.push((tok, lit));
        if tok == Tok::End {
            break;
        }
    }
    let mut parser = Parser { items, position: 0 };
    let mut reqs = parser.parse().map_err(SelectorError)?;
    reqs.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(reqs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use SelectorOperator as Op;

    fn freq(field: &str, op: Op, value: &str) -> FieldRequirement {
        FieldRequirement {
            field: field.into(),
            operator: op,
            value: value.into(),
        }
    }

    fn lreq(key: &str, op: Op, values: &[&str]) -> LabelRequirement {
        LabelRequirement {
            key: key.into(),
            operator: op,
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }

    fn ferr(s: &str) -> String {
        parse_field_selector(s).unwrap_err().0
    }

    fn lerr(s: &str) -> String {
        parse_label_selector(s).unwrap_err().0
    }

    #[test]
    fn field_selectors() {
        assert_eq!(
            parse_field_selector("spec.nodeName=mynode").unwrap(),
            vec![freq("spec.nodeName", Op::Equals, "mynode")]
        );
        // Terms are sorted; == is reported as =.
        assert_eq!(
            parse_field_selector("status.phase!=Running,metadata.name==web").unwrap(),
            vec![
                freq("metadata.name", Op::Equals, "web"),
                freq("status.phase", Op::NotEquals, "Running"),
            ]
        );
        assert_eq!(parse_field_selector("").unwrap(), vec![]);
        assert_eq!(parse_field_selector(",,").unwrap(), vec![]);
        assert_eq!(parse_field_selector("=").unwrap(), vec![]);
        assert_eq!(
            parse_field_selector("=x").unwrap(),
            vec![freq("", Op::Equals, "x")]
        );
        assert_eq!(
            parse_field_selector("a=").unwrap(),
            vec![freq("a", Op::Equals, "")]
        );
        // Escapes in values; an escaped comma does not split.
        assert_eq!(
            parse_field_selector(r"a=x\,y\=z\\").unwrap(),
            vec![freq("a", Op::Equals, r"x,y=z\")]
        );
        // The first operator splits: a!=b=c has value "b=c", which needs escaping.
        assert_eq!(
            ferr("a!=b=c"),
            "invalid field selector: unescaped character in value: 61"
        );
        assert_eq!(
            ferr("a=b,c"),
            "invalid selector: 'a=b,c'; can't understand 'c'"
        );
        assert_eq!(
            ferr(r"a=\x"),
            r"invalid field selector: invalid escape sequence: \x"
        );
        assert_eq!(
            ferr(r"a=x\"),
            r"invalid field selector: invalid escape sequence: \"
        );
        assert_eq!(ferr("x"), "invalid selector: 'x'; can't understand 'x'");
    }

    #[test]
    fn label_selectors() {
        assert_eq!(
            parse_label_selector("app=example").unwrap(),
            vec![lreq("app", Op::Equals, &["example"])]
        );
        assert_eq!(
            parse_label_selector("x in (foo,,baz),y,z notin ()").unwrap(),
            vec![
                lreq("x", Op::In, &["", "baz", "foo"]),
                lreq("y", Op::Exists, &[]),
                lreq("z", Op::NotIn, &[""]),
            ]
        );
        assert_eq!(
            parse_label_selector(" !b , a==1,c!=2, d>3,e<4 ").unwrap(),
            vec![
                lreq("a", Op::DoubleEquals, &["1"]),
                lreq("b", Op::DoesNotExist, &[]),
                lreq("c", Op::NotEquals, &["2"]),
                lreq("d", Op::GreaterThan, &["3"]),
                lreq("e", Op::LessThan, &["4"]),
            ]
        );
        assert_eq!(
            parse_label_selector("example.com/tier in (in, notin)").unwrap(),
            vec![lreq("example.com/tier", Op::In, &["in", "notin"])]
        );
        assert_eq!(
            parse_label_selector("a=").unwrap(),
            vec![lreq("a", Op::Equals, &[""])]
        );
        assert_eq!(parse_label_selector("").unwrap(), vec![]);
        assert_eq!(parse_label_selector("   ").unwrap(), vec![]);
    }

    #[test]
    fn label_selector_errors() {
        for (input, want) in [
            ("a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
            ("a=b c", "found 'c', expected: ',' or 'end of string'"),
            ("a,", "found '', expected: identifier after ','"),
            ("=a", "found '=', expected: !, identifier, or 'end of string'"),
            ("!", "unable to parse requirement: found '', expected: identifier"),
            ("a in b", "unable to parse requirement: found 'b' expected: '('"),
            ("a in (b", "unable to parse requirement: found '', expected: ',' or ')'"),
            ("a in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"),
            ("a>b", "unable to parse requirement: values[0]: Invalid value: \"b\": for 'Gt', 'Lt' operators, the value must be an integer"),
            ("a=-b", "unable to parse requirement: values[0][a]: Invalid value: \"-b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
            ("a<x-", "unable to parse requirement: [values[0]: Invalid value: \"x-\": for 'Gt', 'Lt' operators, the value must be an integer, values[0][a]: Invalid value: \"x-\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]"),
            ("-a", "unable to parse requirement: <nil>: Invalid value: \"-a\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
            ("/a", "unable to parse requirement: <nil>: Invalid value: \"/a\": prefix part must be non-empty"),
            ("Ex.com/", "unable to parse requirement: <nil>: Invalid value: \"Ex.com/\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'); name part must be non-empty; name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
            ("a/b/c", "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"),
        ] {
            assert_eq!(lerr(input), want, "{input:?}");
        }
        // An integer for `<` must still be a label value.
        assert!(lerr("e<-4").starts_with(
            "unable to parse requirement: values[0][e]: Invalid value: \"-4\": a valid label"
        ));
        let long = "k".repeat(64);
        assert!(lerr(&long).ends_with(": name part must be no more than 63 bytes"));
        let long_value = format!("a={}", "v".repeat(64));
        assert!(lerr(&long_value).ends_with(": must be no more than 63 bytes"));
    }

    #[test]
    fn label_lexer_corners() {
        // `!a=b`: the key is taken as "does not exist", then `=` is unexpected.
        assert_eq!(lerr("!a=b"), "found '=', expected: ',' or 'end of string'");
        // A NUL byte inside an identifier ends it; at the start of a token it ends the input.
        assert_eq!(
            lerr("a\0b"),
            "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"
        );
        assert_eq!(
            parse_label_selector("a \0 junk").unwrap(),
            vec![lreq("a", Op::Exists, &[])]
        );
        // `===` lexes as `==` then `=`.
        assert_eq!(
            lerr("a===b"),
            "unable to parse requirement: found '=', expected: identifier"
        );
        // `in` is an operator only after a key.
        assert_eq!(
            parse_label_selector("in in (in)").unwrap(),
            vec![lreq("in", Op::In, &["in"])]
        );
    }
}
