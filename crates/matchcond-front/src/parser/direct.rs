//! The direct parser: builds the AST in one pass, without the concrete syntax tree, for
//! the expressions that parse without any error — almost all of them.
//!
//! It takes the same decisions as the recognizer (see `grammar.rs`) on the same
//! lookahead, and builds each node as the tree builder (see `build.rs`) would, allocating
//! node ids in the same order. It gives up (`None`) wherever the recognizer or the builder
//! would report anything: a token the grammar does not allow, a lexical error, a reserved
//! identifier, an invalid literal, a malformed macro call, optional syntax when it is not
//! enabled. It also gives up on message construction (`T{...}`, which the checker rejects
//! anyway); on expressions nested more than a few dozen levels deep; and on inputs with as
//! many tokens as the recursion limit allows nested rules: below that, neither the
//! recognizer's per-rule nesting limit nor the builder's depth limit can be reached (each
//! level of nesting consumes a token). The two-pass parser then parses the input again and
//! reports exactly what it reports; when this parser succeeds, the two-pass parser would
//! have built the same tree.

use super::build::{balance, call_or_macro, operator, reserved};
use super::grammar::{
    b, has, ADDOPS, FIRST_EXPR, FIRST_MEMBER, FIRST_OPTEXPR, LIT, MULOPS, RELOPS, SUFFIX,
};
use super::unescape::unescape_with;
use crate::ast::{Expr, ExprId, ExprKind, Literal, MapEntry};
use crate::lexer::{tt, Lexed, Lexer, Token};
use crate::macros::MacroSet;

/// `None`: give up (the two-pass parser decides).
type P<X> = Option<X>;

/// The deepest nesting of expressions (parentheses, arguments, elements, …) this parser
/// follows before giving up: it keeps its recursion, and its stack, small.
const MAX_NESTING: usize = 32;

const NO_TOKEN: Token = Token {
    kind: tt::EOF,
    start: 0,
    end: 0,
};

struct Direct<'a> {
    src: &'a str,
    lexer: Lexer<'a>,
    /// The next visible tokens (the current one first); `len` of them are lexed.
    ahead: [Token; 3],
    len: usize,
    /// Tokens consumed, and the most this parser consumes.
    consumed: usize,
    limit: usize,
    /// Expressions being parsed, one inside the other.
    nesting: usize,
    next_id: ExprId,
    optional_syntax: bool,
    escaped_idents: bool,
    macros: MacroSet,
}

/// Parses `src` into its tree and the next free node id, or `None` when the two-pass
/// parser must decide.
pub(super) fn parse(
    src: &str,
    max_recursion_depth: usize,
    optional_syntax: bool,
    escaped_idents: bool,
    macros: MacroSet,
) -> Option<(Expr, ExprId)> {
    let mut p = Direct {
        src,
        lexer: Lexer::new(src),
        ahead: [NO_TOKEN; 3],
        len: 0,
        consumed: 0,
        limit: max_recursion_depth.checked_sub(2)?,
        nesting: 0,
        next_id: 1,
        optional_syntax,
        escaped_idents,
        macros,
    };
    let e = p.expr()?;
    if p.peek(1)? != tt::EOF {
        return None;
    }
    Some((e, p.next_id))
}

impl<'a> Direct<'a> {
    // ----- tokens ------------------------------------------------------------------

    /// The next visible token from the lexer.
    fn fetch(&mut self) -> P<Token> {
        loop {
            match self.lexer.next() {
                Lexed::Token(t) if t.hidden() => {}
                Lexed::Token(t) => return Some(t),
                Lexed::Error { .. } => return None,
            }
        }
    }

    /// The k-th visible token from the current one (1 ≤ k ≤ 3).
    fn tok(&mut self, k: usize) -> P<Token> {
        while self.len < k {
            let t = self.fetch()?;
            *self.ahead.get_mut(self.len)? = t;
            self.len += 1;
        }
        self.ahead.get(k - 1).copied()
    }

    fn peek(&mut self, k: usize) -> P<u8> {
        self.tok(k).map(|t| t.kind)
    }

    /// Consumes the current token (never the end of input).
    fn advance(&mut self) -> P<Token> {
        let t = self.tok(1)?;
        if t.kind == tt::EOF || self.consumed >= self.limit {
            return None;
        }
        self.ahead.copy_within(1.., 0);
        self.len -= 1;
        self.consumed += 1;
        Some(t)
    }

    fn expect(&mut self, kind: u8) -> P<Token> {
        if self.peek(1)? == kind {
            self.advance()
        } else {
            None
        }
    }

    fn text(&self, t: Token) -> P<&'a str> {
        self.src.get(t.start as usize..t.end as usize)
    }

    fn new_id(&mut self) -> ExprId {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    fn call(
        &mut self,
        id: ExprId,
        off: u32,
        function: &str,
        target: Option<Expr>,
        args: Vec<Expr>,
    ) -> P<Expr> {
        call_or_macro(
            &mut self.next_id,
            self.macros,
            id,
            off,
            function,
            target,
            args,
        )
        .ok()
    }

    // ----- rules -------------------------------------------------------------------

    fn expr(&mut self) -> P<Expr> {
        if self.nesting >= MAX_NESTING {
            return None;
        }
        self.nesting += 1;
        let e = self.expr_body();
        self.nesting -= 1;
        e
    }

    /// expr: conditionalOr ('?' conditionalOr ':' expr)?
    fn expr_body(&mut self) -> P<Expr> {
        let cond = self.conditional_or()?;
        if self.peek(1)? != tt::QUESTIONMARK {
            return Some(cond);
        }
        let op = self.advance()?;
        let op_id = self.new_id();
        let t = self.conditional_or()?;
        self.expect(tt::COLON)?;
        let f = self.expr()?;
        self.call(op_id, op.start, "_?_:_", None, vec![cond, t, f])
    }

    fn conditional_or(&mut self) -> P<Expr> {
        self.logical(tt::LOGICAL_OR, "_||_")
    }

    fn conditional_and(&mut self) -> P<Expr> {
        self.logical(tt::LOGICAL_AND, "_&&_")
    }

    /// first ('op' next)*, balanced as the builder balances logical chains.
    fn logical(&mut self, op_tok: u8, function: &str) -> P<Expr> {
        let sub = |p: &mut Self| {
            if op_tok == tt::LOGICAL_OR {
                p.conditional_and()
            } else {
                p.relation()
            }
        };
        let first = sub(self)?;
        if self.peek(1)? != op_tok {
            return Some(first);
        }
        let mut terms = Vec::with_capacity(4);
        terms.push(Some(first));
        let mut ops = Vec::with_capacity(3);
        while self.peek(1)? == op_tok {
            let op = self.advance()?;
            let next = sub(self)?;
            let id = self.new_id();
            ops.push((id, op.start));
            terms.push(Some(next));
        }
        Some(balance(function, &mut terms, &ops, 0, ops.len() - 1))
    }

    /// relation: calc (relop calc)*, left associative.
    fn relation(&mut self) -> P<Expr> {
        let mut cur = self.calc(0)?;
        while has(RELOPS, self.peek(1)?) {
            let op = self.advance()?;
            let name = operator(self.text(op)?)?;
            let op_id = self.new_id();
            let rhs = self.calc(0)?;
            cur = self.call(op_id, op.start, name, None, vec![cur, rhs])?;
        }
        Some(cur)
    }

    /// calc[p]: unary ({p <= 2}? ('*'|'/'|'%') calc[3] | {p <= 1}? ('+'|'-') calc[2])*
    fn calc(&mut self, prec: u8) -> P<Expr> {
        let mut cur = self.unary()?;
        loop {
            let la = self.peek(1)?;
            let mul = has(MULOPS, la) && prec <= 2;
            let add = has(ADDOPS, la) && prec <= 1;
            if !(mul || add) {
                break;
            }
            let op = self.advance()?;
            let name = operator(self.text(op)?)?;
            let op_id = self.new_id();
            let rhs = self.calc(if mul { 3 } else { 2 })?;
            cur = self.call(op_id, op.start, name, None, vec![cur, rhs])?;
        }
        Some(cur)
    }

    /// unary: member | '!'+ member | '-'+ member (a '-' before a number is its sign).
    fn unary(&mut self) -> P<Expr> {
        let la1 = self.peek(1)?;
        if la1 == tt::EXCLAM {
            let first = self.tok(1)?;
            let mut count = 0usize;
            loop {
                self.expect(tt::EXCLAM)?;
                count += 1;
                let la = self.peek(1)?;
                if la != tt::EXCLAM && !has(FIRST_MEMBER, la) {
                    return None;
                }
                if la != tt::EXCLAM {
                    break;
                }
            }
            return self.unary_op("!_", first.start, count);
        }
        if la1 == tt::MINUS {
            let la2 = self.peek(2)?;
            if la2 == tt::NUM_INT || la2 == tt::NUM_FLOAT {
                return self.member();
            }
            if !has(FIRST_MEMBER, la2) {
                return None;
            }
            let first = self.tok(1)?;
            let mut count = 0usize;
            loop {
                self.expect(tt::MINUS)?;
                count += 1;
                let la = self.peek(1)?;
                if la == tt::MINUS {
                    if !has(FIRST_MEMBER, self.peek(2)?) {
                        return None;
                    }
                } else if has(FIRST_MEMBER, la) {
                    break;
                } else {
                    return None;
                }
            }
            return self.unary_op("-_", first.start, count);
        }
        if has(FIRST_MEMBER, la1) {
            return self.member();
        }
        None
    }

    /// The operand of `count` prefix operators: an odd count calls `function` once.
    fn unary_op(&mut self, function: &str, off: u32, count: usize) -> P<Expr> {
        if count.is_multiple_of(2) {
            return self.member();
        }
        let op_id = self.new_id();
        let target = self.member()?;
        self.call(op_id, off, function, None, vec![target])
    }

    /// member: primary ('.' field | '.' '?' field | '.' name '(' args ')' | '[' '?'? expr ']')*
    fn member(&mut self) -> P<Expr> {
        let mut cur = self.primary()?;
        while has(SUFFIX, self.peek(1)?) {
            cur = if self.peek(1)? == tt::LBRACKET {
                self.index(cur)?
            } else {
                match self.peek(2)? {
                    tt::QUESTIONMARK | tt::ESC_IDENTIFIER => self.select(cur)?,
                    tt::IDENTIFIER if self.peek(3)? == tt::LPAREN => self.member_call(cur)?,
                    tt::IDENTIFIER => self.select(cur)?,
                    _ => return None,
                }
            };
        }
        Some(cur)
    }

    fn select(&mut self, operand: Expr) -> P<Expr> {
        let op = self.expect(tt::DOT)?;
        let opt = self.eat(tt::QUESTIONMARK)?;
        let id = self.tok(1)?;
        let name = match id.kind {
            tt::IDENTIFIER => self.text(id)?.to_string(),
            tt::ESC_IDENTIFIER if self.escaped_idents => self
                .text(id)?
                .strip_prefix('`')
                .and_then(|s| s.strip_suffix('`'))
                .unwrap_or_default()
                .to_string(),
            _ => return None,
        };
        self.advance()?;
        if opt {
            if !self.optional_syntax {
                return None;
            }
            let field_id = self.new_id();
            let field = Expr::new(field_id, id.start, ExprKind::Literal(Literal::String(name)));
            let call_id = self.new_id();
            return Some(Expr::new(
                call_id,
                op.start,
                ExprKind::Call {
                    target: None,
                    function: "_?._".into(),
                    args: vec![operand, field],
                },
            ));
        }
        let select_id = self.new_id();
        Some(Expr::new(
            select_id,
            op.start,
            ExprKind::Select {
                operand: Box::new(operand),
                field: name,
                test_only: false,
            },
        ))
    }

    fn member_call(&mut self, operand: Expr) -> P<Expr> {
        self.expect(tt::DOT)?;
        let id = self.expect(tt::IDENTIFIER)?;
        let open = self.expect(tt::LPAREN)?;
        let name = self.text(id)?;
        let op_id = self.new_id();
        let args = self.args()?;
        self.call(op_id, open.start, name, Some(operand), args)
    }

    fn index(&mut self, target: Expr) -> P<Expr> {
        let op = self.expect(tt::LBRACKET)?;
        let opt = self.eat(tt::QUESTIONMARK)?;
        let op_id = self.new_id();
        let index = self.expr()?;
        self.expect(tt::RBRACKET)?;
        if opt && !self.optional_syntax {
            return None;
        }
        let function = if opt { "_[?_]" } else { "_[_]" };
        self.call(op_id, op.start, function, None, vec![target, index])
    }

    /// The arguments of a call after its '(', and the ')'.
    fn args(&mut self) -> P<Vec<Expr>> {
        let la = self.peek(1)?;
        let mut out = Vec::new();
        if has(FIRST_EXPR, la) {
            out.push(self.expr()?);
            while self.peek(1)? == tt::COMMA {
                self.advance()?;
                out.push(self.expr()?);
            }
        } else if la != tt::RPAREN {
            return None;
        }
        self.expect(tt::RPAREN)?;
        Some(out)
    }

    fn primary(&mut self) -> P<Expr> {
        let la1 = self.peek(1)?;
        match la1 {
            tt::LPAREN => {
                self.advance()?;
                let e = self.expr()?;
                self.expect(tt::RPAREN)?;
                Some(e)
            }
            tt::LBRACKET => self.list(),
            tt::LBRACE => self.map(),
            _ if has(LIT | b(tt::MINUS), la1) => self.literal(),
            tt::DOT | tt::IDENTIFIER => self.ident_or_call(),
            _ => None,
        }
    }

    /// '.'? IDENTIFIER, or a global call '.'? IDENTIFIER '(' args ')'. (A dotted name
    /// followed by '{' is a message construction: then the '{' fits nowhere after the
    /// name and its selections, and this parser gives up.)
    fn ident_or_call(&mut self) -> P<Expr> {
        let dot = self.peek(1)? == tt::DOT;
        if dot {
            self.advance()?;
        }
        let id = self.expect(tt::IDENTIFIER)?;
        let text = self.text(id)?;
        let next = self.peek(1)?;
        if next == tt::LBRACE || reserved(text) {
            return None;
        }
        if next == tt::LPAREN {
            let open = self.advance()?;
            let op_id = self.new_id();
            let args = self.args()?;
            return if dot {
                let name = format!(".{text}");
                self.call(op_id, open.start, &name, None, args)
            } else {
                self.call(op_id, open.start, text, None, args)
            };
        }
        let name = if dot {
            format!(".{text}")
        } else {
            text.to_string()
        };
        let ident_id = self.new_id();
        Some(Expr::new(ident_id, id.start, ExprKind::Ident(name)))
    }

    /// '[' (optExpr (',' optExpr)*)? ','? ']'
    fn list(&mut self) -> P<Expr> {
        let open = self.expect(tt::LBRACKET)?;
        let list_id = self.new_id();
        let mut elements = Vec::new();
        let mut optional_indices = Vec::new();
        self.items(tt::RBRACKET, |p| {
            let opt = p.opt_mark()?;
            let e = p.expr()?;
            if opt {
                optional_indices.push(u32::try_from(elements.len()).ok()?);
            }
            elements.push(e);
            Some(())
        })?;
        Some(Expr::new(
            list_id,
            open.start,
            ExprKind::List {
                elements,
                optional_indices,
            },
        ))
    }

    /// '{' (optExpr ':' expr (',' optExpr ':' expr)*)? ','? '}'
    fn map(&mut self) -> P<Expr> {
        let open = self.expect(tt::LBRACE)?;
        let map_id = self.new_id();
        let mut entries = Vec::new();
        self.items(tt::RBRACE, |p| {
            let entry_id = p.new_id();
            let optional = p.opt_mark()?;
            let key = p.expr()?;
            let col = p.expect(tt::COLON)?;
            let value = p.expr()?;
            entries.push(MapEntry {
                id: entry_id,
                offset: col.start,
                key,
                value,
                optional,
            });
            Some(())
        })?;
        Some(Expr::new(map_id, open.start, ExprKind::Map { entries }))
    }

    /// The items of a list or map literal after its opening token: `item` parses one, and
    /// they are separated by ',', with an optional trailing ',' before `close`.
    fn items(&mut self, close: u8, mut item: impl FnMut(&mut Self) -> P<()>) -> P<()> {
        let la = self.peek(1)?;
        if has(FIRST_OPTEXPR, la) {
            loop {
                item(self)?;
                if !self.more()? {
                    break;
                }
                self.advance()?;
            }
        } else if la != tt::COMMA && la != close {
            return None;
        }
        self.eat(tt::COMMA)?;
        self.expect(close)?;
        Some(())
    }

    /// The '?' of an optional element or entry (only with optional syntax).
    fn opt_mark(&mut self) -> P<bool> {
        if self.peek(1)? == tt::QUESTIONMARK && !self.optional_syntax {
            return None;
        }
        self.eat(tt::QUESTIONMARK)
    }

    /// Consumes the next token if it is of `kind`; whether it was.
    fn eat(&mut self, kind: u8) -> P<bool> {
        if self.peek(1)? != kind {
            return Some(false);
        }
        self.advance()?;
        Some(true)
    }

    /// Whether an initializer list goes on: a ',' followed by another element.
    fn more(&mut self) -> P<bool> {
        Some(self.peek(1)? == tt::COMMA && has(FIRST_OPTEXPR, self.peek(2)?))
    }

    fn literal(&mut self) -> P<Expr> {
        let start = self.tok(1)?;
        let kind = match start.kind {
            tt::MINUS => match self.peek(2)? {
                tt::NUM_INT => {
                    self.advance()?;
                    let tok = self.expect(tt::NUM_INT)?;
                    Literal::Int(int_value(self.text(tok)?, true)?)
                }
                tt::NUM_FLOAT => {
                    self.advance()?;
                    let tok = self.expect(tt::NUM_FLOAT)?;
                    Literal::Double(double_value(self.text(tok)?, true)?)
                }
                _ => return None,
            },
            tt::NUM_INT => {
                self.advance()?;
                Literal::Int(int_value(self.text(start)?, false)?)
            }
            tt::NUM_UINT => {
                self.advance()?;
                let text = self.text(start)?;
                let text = text.get(..text.len().saturating_sub(1)).unwrap_or_default();
                let (digits, radix) = match text.strip_prefix("0x") {
                    Some(h) => (h, 16),
                    None => (text, 10),
                };
                Literal::Uint(u64::from_str_radix(digits, radix).ok()?)
            }
            tt::NUM_FLOAT => {
                self.advance()?;
                Literal::Double(double_value(self.text(start)?, false)?)
            }
            tt::STRING => {
                self.advance()?;
                let v = unescape_with(
                    self.text(start)?,
                    false,
                    self.macros.invalid_code_points_replaced,
                )
                .ok()?;
                Literal::String(String::from_utf8(v).unwrap_or_default())
            }
            tt::BYTES => {
                self.advance()?;
                let text = self.text(start)?;
                Literal::Bytes(unescape_with(text.get(1..).unwrap_or_default(), true, false).ok()?)
            }
            tt::CEL_TRUE => {
                self.advance()?;
                Literal::Bool(true)
            }
            tt::CEL_FALSE => {
                self.advance()?;
                Literal::Bool(false)
            }
            tt::NUL => {
                self.advance()?;
                Literal::Null
            }
            _ => return None,
        };
        let id = self.new_id();
        Some(Expr::new(id, start.start, ExprKind::Literal(kind)))
    }
}

/// The value of an int literal token (with a '-' sign before it), as the builder reads it.
fn int_value(text: &str, negative: bool) -> P<i64> {
    let (digits, radix) = match text.strip_prefix("0x") {
        Some(h) => (h, 16),
        None => (text, 10),
    };
    if negative {
        i64::from_str_radix(&format!("-{digits}"), radix).ok()
    } else if digits.is_empty() {
        None
    } else {
        i64::from_str_radix(digits, radix).ok()
    }
}

/// The value of a double literal token (with a '-' sign before it), as the builder reads it.
fn double_value(text: &str, negative: bool) -> P<f64> {
    let v = if negative {
        format!("-{text}").parse::<f64>().ok()?
    } else {
        text.parse::<f64>().ok()?
    };
    v.is_finite().then_some(v)
}
