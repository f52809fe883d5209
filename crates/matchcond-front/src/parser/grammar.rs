//! The syntactic recognizer: builds a concrete syntax tree (CST) in an arena.
//!
//! The recognizer follows the structure of the CEL grammar rule by rule, with the same
//! decisions, the same synchronisation points and the same error recovery as the
//! reference implementation's generated parser (single-token deletion and insertion,
//! resynchronisation on the follow sets of the active rules, suppression of errors
//! until a token matches again). Each grammar position carries the number of the state
//! the reference parser uses there, so that the sets of expected tokens printed in
//! syntax errors, and the recovery decisions that depend on them, come out the same.
//!
//! Rule nesting is limited per rule (the "expression recursion limit"); the left
//! recursive rules (relations, arithmetic, member access) are loops, so the recursion of
//! this module is bounded by that limit.
//!
//! The file is long (about 2,100 lines) because it is a port of the ANTLR recognizer that
//! cel-go generates (`parser/gen/cel_parser.go`, about 6,200 lines), one function per
//! grammar rule with its state numbers and recovery calls: the rules' repeated
//! `set_state` / `sync` / error-recovery steps are that recognizer's shape, which the
//! expected-token sets and recovery of syntax errors depend on, so they are kept
//! together and in the reference's order rather than split across files.

use std::borrow::Cow;

use super::{Limits, SyntaxErrors};
use crate::lexer::{token_name, tt, Lexed, Lexer, Token};

/// Index of a CST node in the arena.
pub(super) type N = u32;
/// A token reference: an index into the token buffer, or (with the high bit set) into the
/// list of tokens conjured by error recovery.
pub(super) type T = u32;

const CONJURED: u32 = 0x8000_0000;

/// Parsing was abandoned (a limit was hit); the reason is already recorded.
#[derive(Debug)]
pub(super) struct Abort;

pub(super) type R<X> = Result<X, Abort>;

/// CST nodes. Every node records its first token (`start`).
#[derive(Debug)]
pub(super) enum Node {
    Expr {
        e: Option<N>,
        op: Option<T>,
        e1: Option<N>,
        e2: Option<N>,
    },
    Or {
        start: T,
        e: Option<N>,
        ops: Vec<T>,
        rest: Vec<N>,
    },
    And {
        start: T,
        e: Option<N>,
        ops: Vec<T>,
        rest: Vec<N>,
    },
    /// `calc` alone when `op` is None, else `lhs op rhs`.
    Relation {
        start: T,
        lhs: Option<N>,
        op: Option<T>,
        rhs: Option<N>,
    },
    /// `unary` alone when `op` is None, else `lhs op rhs`.
    Calc {
        start: T,
        lhs: Option<N>,
        op: Option<T>,
        rhs: Option<N>,
    },
    UnaryErr {
        start: T,
    },
    LogicalNot {
        ops: Vec<T>,
        member: Option<N>,
    },
    Negate {
        ops: Vec<T>,
        member: Option<N>,
    },
    Select {
        start: T,
        member: N,
        op: Option<T>,
        opt: Option<T>,
        id: Option<N>,
    },
    MemberCall {
        start: T,
        member: N,
        id: Option<T>,
        open: Option<T>,
        args: Option<N>,
    },
    Index {
        start: T,
        member: N,
        op: Option<T>,
        opt: Option<T>,
        index: Option<N>,
    },
    PrimaryErr,
    Ident {
        start: T,
        dot: Option<T>,
        id: Option<T>,
    },
    GlobalCall {
        start: T,
        dot: Option<T>,
        id: Option<T>,
        op: Option<T>,
        args: Option<N>,
    },
    Nested {
        e: Option<N>,
    },
    CreateList {
        op: Option<T>,
        elems: Option<N>,
    },
    CreateStruct {
        op: Option<T>,
        entries: Option<N>,
    },
    CreateMessage {
        dot: Option<T>,
        ids: Vec<T>,
        op: Option<T>,
        entries: Option<N>,
    },
    ExprList {
        es: Vec<N>,
    },
    ListInit {
        elems: Vec<N>,
    },
    FieldInits {
        start: T,
        fields: Vec<N>,
        cols: Vec<T>,
        values: Vec<N>,
    },
    OptField {
        start: T,
        opt: Option<T>,
        ident: Option<N>,
    },
    MapInits {
        keys: Vec<N>,
        cols: Vec<T>,
        values: Vec<N>,
    },
    SimpleIdent {
        id: Option<T>,
    },
    EscIdent {
        start: T,
        id: Option<T>,
    },
    EscapeIdentErr,
    OptExpr {
        start: T,
        opt: Option<T>,
        e: Option<N>,
    },
    Int {
        start: T,
        sign: Option<T>,
        tok: Option<T>,
    },
    Uint {
        start: T,
        tok: Option<T>,
    },
    Double {
        start: T,
        sign: Option<T>,
        tok: Option<T>,
    },
    Str {
        start: T,
        tok: Option<T>,
    },
    Bytes {
        start: T,
        tok: Option<T>,
    },
    Bool {
        start: T,
        value: bool,
    },
    Null {
        start: T,
    },
    LiteralErr,
}

// ---------------------------------------------------------------------------------------
// Token sets: bit i is token type i (0 = end of input); bit 63 is "can reach the end of
// the current rule".

const EPS: u64 = 1 << 63;

pub(super) const fn b(t: u8) -> u64 {
    1u64 << t
}

const EOF_S: u64 = b(tt::EOF);
pub(super) const RELOPS: u64 = b(tt::EQUALS)
    | b(tt::NOT_EQUALS)
    | b(tt::IN)
    | b(tt::LESS)
    | b(tt::LESS_EQUALS)
    | b(tt::GREATER_EQUALS)
    | b(tt::GREATER);
pub(super) const MULOPS: u64 = b(tt::STAR) | b(tt::SLASH) | b(tt::PERCENT);
pub(super) const ADDOPS: u64 = b(tt::PLUS) | b(tt::MINUS);
const CALCOPS: u64 = MULOPS | ADDOPS;
pub(super) const LIT: u64 = b(tt::CEL_TRUE)
    | b(tt::CEL_FALSE)
    | b(tt::NUL)
    | b(tt::NUM_FLOAT)
    | b(tt::NUM_INT)
    | b(tt::NUM_UINT)
    | b(tt::STRING)
    | b(tt::BYTES);
pub(super) const FIRST_PRIMARY: u64 = b(tt::DOT)
    | b(tt::IDENTIFIER)
    | b(tt::LPAREN)
    | b(tt::LBRACKET)
    | b(tt::LBRACE)
    | b(tt::MINUS)
    | LIT;
pub(super) const FIRST_MEMBER: u64 = FIRST_PRIMARY;
pub(super) const FIRST_EXPR: u64 = FIRST_MEMBER | b(tt::EXCLAM);
pub(super) const FIRST_OPTEXPR: u64 = FIRST_EXPR | b(tt::QUESTIONMARK);
const IDENTS: u64 = b(tt::IDENTIFIER) | b(tt::ESC_IDENTIFIER);
pub(super) const SUFFIX: u64 = b(tt::DOT) | b(tt::LBRACKET);

pub(super) fn has(set: u64, t: u8) -> bool {
    t < 63 && set & b(t) != 0
}

/// The tokens that may appear at a grammar position, within its rule (with `EPS` when the
/// rule may end there).
fn next_set(state: u16) -> u64 {
    match state {
        35 => EOF_S,
        40 | 203 | 207 | 221 | 225 => b(tt::COLON),
        43 => b(tt::QUESTIONMARK) | EPS,
        50 | 52 => b(tt::LOGICAL_OR) | EPS,
        46 => b(tt::LOGICAL_OR),
        58 | 60 => b(tt::LOGICAL_AND) | EPS,
        54 => b(tt::LOGICAL_AND),
        69 | 71 => RELOPS | EPS,
        64 | 65 => RELOPS,
        83 | 85 => CALCOPS | EPS,
        81 => CALCOPS,
        75 | 76 => MULOPS,
        78 | 79 => ADDOPS,
        99 => FIRST_EXPR,
        87 | 88 => b(tt::EXCLAM),
        90 => b(tt::EXCLAM) | FIRST_MEMBER,
        93 | 94 => b(tt::MINUS),
        96 => b(tt::MINUS) | FIRST_MEMBER,
        128 | 130 => SUFFIX | EPS,
        126 => SUFFIX,
        104 | 105 | 110 | 111 => b(tt::DOT),
        107 => b(tt::QUESTIONMARK) | IDENTS,
        106 | 120 => b(tt::QUESTIONMARK),
        108 | 112 => b(tt::IDENTIFIER),
        113 => b(tt::LPAREN),
        115 | 141 => FIRST_EXPR | b(tt::RPAREN),
        117 | 143 | 146 => b(tt::RPAREN),
        118 | 119 => b(tt::LBRACKET),
        121 => b(tt::QUESTIONMARK) | FIRST_EXPR,
        124 | 155 => b(tt::RBRACKET),
        184 => FIRST_PRIMARY,
        132 | 136 | 165 => b(tt::DOT) | b(tt::IDENTIFIER),
        131 | 135 | 164 | 168 => b(tt::DOT),
        134 | 138 | 167 | 169 => b(tt::IDENTIFIER),
        139 | 144 => b(tt::LPAREN),
        148 => b(tt::LBRACKET),
        150 => FIRST_OPTEXPR | b(tt::COMMA) | b(tt::RBRACKET),
        153 => b(tt::COMMA) | b(tt::RBRACKET),
        152 | 160 | 179 | 187 | 195 | 205 | 223 => b(tt::COMMA),
        156 | 175 => b(tt::LBRACE),
        158 => FIRST_OPTEXPR | b(tt::COMMA) | b(tt::RBRACE),
        161 | 180 => b(tt::COMMA) | b(tt::RBRACE),
        163 | 182 => b(tt::RBRACE),
        172 | 174 => b(tt::DOT) | b(tt::LBRACE),
        177 => b(tt::QUESTIONMARK) | IDENTS | b(tt::COMMA) | b(tt::RBRACE),
        191 | 193 | 199 | 201 | 212 | 214 | 230 | 232 => b(tt::COMMA) | EPS,
        216 => b(tt::QUESTIONMARK) | IDENTS,
        215 | 237 => b(tt::QUESTIONMARK),
        235 => IDENTS,
        233 => b(tt::IDENTIFIER),
        234 => b(tt::ESC_IDENTIFIER),
        238 => FIRST_OPTEXPR,
        256 => LIT | b(tt::MINUS),
        243 => b(tt::MINUS) | b(tt::NUM_INT),
        248 => b(tt::MINUS) | b(tt::NUM_FLOAT),
        242 | 247 => b(tt::MINUS),
        245 => b(tt::NUM_INT),
        246 => b(tt::NUM_UINT),
        250 => b(tt::NUM_FLOAT),
        251 => b(tt::STRING),
        252 => b(tt::BYTES),
        253 => b(tt::CEL_TRUE),
        254 => b(tt::CEL_FALSE),
        255 => b(tt::NUL),
        _ => EPS,
    }
}

/// The tokens that may follow a rule invoked at `state`, within the invoking rule.
fn follow_set(state: u16) -> u64 {
    match state {
        34 => EOF_S,
        37 => b(tt::QUESTIONMARK) | EPS,
        39 | 202 | 206 | 220 | 224 => b(tt::COLON),
        45 | 47 => b(tt::LOGICAL_OR) | EPS,
        53 | 55 => b(tt::LOGICAL_AND) | EPS,
        62 | 66 => RELOPS | EPS,
        73 | 77 | 80 => CALCOPS | EPS,
        102 | 109 => SUFFIX | EPS,
        114 | 140 | 145 => b(tt::RPAREN),
        123 => b(tt::RBRACKET),
        149 => b(tt::COMMA) | b(tt::RBRACKET),
        157 | 176 => b(tt::COMMA) | b(tt::RBRACE),
        186 | 188 | 194 | 196 | 204 | 208 | 222 | 226 => b(tt::COMMA) | EPS,
        _ => EPS,
    }
}

/// The tokens that may follow the token matched at `state` (for single-token insertion).
fn after_set(state: u16) -> u64 {
    match state {
        40 | 203 | 207 | 221 | 225 => FIRST_EXPR,
        108 | 117 | 124 => SUFFIX | EPS,
        _ => EPS,
    }
}

/// Whether a synchronisation point is a loop back-edge (which skips unexpected tokens
/// and stays in the loop) rather than the start of a block (which deletes one token or
/// fails).
fn is_loop_back(state: u16) -> bool {
    matches!(
        state,
        52 | 60 | 71 | 85 | 90 | 96 | 130 | 174 | 193 | 201 | 214 | 232
    )
}

/// Renders a token set the way syntax errors print it.
fn set_string(set: u64) -> String {
    let names: Vec<&str> = (0u8..38)
        .filter(|t| set & b(*t) != 0)
        .map(token_name)
        .collect();
    match names.as_slice() {
        [] => "{}".to_string(),
        [one] => (*one).to_string(),
        many => format!("{{{}}}", many.join(", ")),
    }
}

fn escape_ws(s: &str) -> String {
    s.replace('\n', "\\n")
        .replace('\r', "\\r")
        .replace('\t', "\\t")
}

// Rule indices, for the per-rule nesting limit.
const RULE_START: usize = 0;
const RULE_EXPR: usize = 1;
const RULE_OR: usize = 2;
const RULE_AND: usize = 3;
const RULE_RELATION: usize = 4;
const RULE_CALC: usize = 5;
const RULE_UNARY: usize = 6;
const RULE_MEMBER: usize = 7;
const RULE_PRIMARY: usize = 8;
const RULE_EXPRLIST: usize = 9;
const RULE_LISTINIT: usize = 10;
const RULE_FIELDINITS: usize = 11;
const RULE_OPTFIELD: usize = 12;
const RULE_MAPINITS: usize = 13;
const RULE_ESCAPEIDENT: usize = 14;
const RULE_OPTEXPR: usize = 15;
const RULE_LITERAL: usize = 16;
const RULE_COUNT: usize = 17;

/// A recognition failure inside a rule, reported and recovered at the rule's exit.
#[derive(Clone, Copy, Debug)]
enum Exc {
    /// No alternative of a decision matches: the decision started at token `start` and
    /// failed at token `offending`.
    NoViable { start: usize, offending: usize },
    /// The current token does not fit; the set expected at `state` is reported.
    Mismatch { offending: usize, state: u16 },
}

/// The recognizer state.
pub(super) struct Recognizer<'a> {
    src: &'a str,
    lexer: Lexer<'a>,
    /// Every token lexed so far, hidden ones included.
    pub tokens: Vec<Token>,
    /// Tokens conjured by single-token insertion.
    pub conjured: Vec<Token>,
    /// The CST arena.
    pub nodes: Vec<Node>,
    lexed_eof: bool,
    /// Index (in `tokens`) of the current token; always visible.
    p: usize,
    pub errs: SyntaxErrors,
    limits: Limits,
    aborted: bool,
    recovery_mode: bool,
    last_error_index: Option<usize>,
    last_error_states: Vec<u16>,
    recovery_attempts: usize,
    /// Tokens consumed in the current recovery and the limit, while recovering.
    lookahead: Option<usize>,
    state: u16,
    ctx: Vec<u16>,
    depth: [usize; RULE_COUNT],
    err: Option<Exc>,
}

impl<'a> Recognizer<'a> {
    pub fn new(src: &'a str, limits: Limits, errs: SyntaxErrors) -> Self {
        Recognizer {
            src,
            lexer: Lexer::with_backquotes(src, limits.backquotes),
            tokens: Vec::with_capacity(src.len() / 2 + 2),
            conjured: Vec::new(),
            nodes: Vec::with_capacity(src.len() / 3 + 2),
            lexed_eof: false,
            p: 0,
            errs,
            limits,
            aborted: false,
            recovery_mode: false,
            last_error_index: None,
            last_error_states: Vec::new(),
            recovery_attempts: 0,
            lookahead: None,
            state: 0,
            ctx: Vec::with_capacity(64),
            depth: [0; RULE_COUNT],
            err: None,
        }
    }

    /// True when parsing stopped on a limit.
    pub fn aborted(&self) -> bool {
        self.aborted
    }

    // ----- tokens ------------------------------------------------------------------

    /// Lexes one more token (or error) into the buffer; false at the end of input.
    fn fetch(&mut self) -> bool {
        if self.lexed_eof {
            return false;
        }
        loop {
            match self.lexer.next() {
                Lexed::Token(t) => {
                    if t.kind == tt::EOF {
                        self.lexed_eof = true;
                    }
                    self.tokens.push(t);
                    return true;
                }
                Lexed::Error { start, end, .. } => {
                    let text = self
                        .src
                        .get(start as usize..end as usize)
                        .unwrap_or_default()
                        .to_string();
                    self.syntax_error(start, &format!("token recognition error at: '{text}'"));
                    if self.aborted {
                        // Stop lexing: the rest of the input reads as its end.
                        let l = u32::try_from(self.src.len()).unwrap_or(u32::MAX);
                        self.tokens.push(Token {
                            kind: tt::EOF,
                            start: l,
                            end: l,
                        });
                        self.lexed_eof = true;
                        return true;
                    }
                }
            }
        }
    }

    fn token(&self, i: usize) -> Token {
        self.tokens.get(i).copied().unwrap_or(Token {
            kind: tt::EOF,
            start: u32::try_from(self.src.len()).unwrap_or(u32::MAX),
            end: u32::try_from(self.src.len()).unwrap_or(u32::MAX),
        })
    }

    /// The index of the first visible token at or after `i`.
    fn visible_from(&mut self, mut i: usize) -> usize {
        if let Some(t) = self.tokens.get(i) {
            if !t.hidden() {
                return i;
            }
        }
        loop {
            while i >= self.tokens.len() {
                if !self.fetch() {
                    return self.tokens.len().saturating_sub(1);
                }
            }
            let t = self.token(i);
            if !t.hidden() {
                return i;
            }
            i += 1;
        }
    }

    fn init_stream(&mut self) {
        self.p = self.visible_from(0);
    }

    /// Index of the k-th visible token from the current one (k >= 1).
    fn lt_index(&mut self, k: usize) -> usize {
        let mut i = self.p;
        for _ in 1..k {
            if self.token(i).kind == tt::EOF {
                return i;
            }
            i = self.visible_from(i + 1);
        }
        i
    }

    /// Type of the k-th visible token (end of input once parsing was abandoned).
    fn la(&mut self, k: usize) -> u8 {
        if self.aborted {
            return tt::EOF;
        }
        let i = self.lt_index(k);
        self.token(i).kind
    }

    /// Moves past the current token (never past the end of input).
    fn consume(&mut self) {
        if self.token(self.p).kind != tt::EOF && !self.aborted {
            self.p = self.visible_from(self.p + 1);
        }
    }

    /// A consumption during error recovery, limited in number per recovery.
    fn consume_counted(&mut self) {
        if let Some(n) = self.lookahead {
            if n >= self.limits.lookahead_limit {
                let msg = format!(
                    "error recovery token lookahead limit exceeded: {}",
                    self.limits.lookahead_limit
                );
                self.errs.internal(msg);
                self.aborted = true;
                return;
            }
            self.lookahead = Some(n + 1);
        }
        self.consume();
    }

    fn token_text(&self, r: T) -> String {
        if r & CONJURED != 0 {
            let t = self
                .conjured
                .get((r & !CONJURED) as usize)
                .map(|t| t.kind)
                .unwrap_or(tt::EOF);
            return format!("<missing {}>", token_name(t));
        }
        let t = self.token(r as usize);
        if t.kind == tt::EOF {
            return "<EOF>".to_string();
        }
        self.src
            .get(t.start as usize..t.end as usize)
            .unwrap_or_default()
            .to_string()
    }

    /// Text of the tokens from `a` to `z` inclusive, hidden ones included.
    fn range_text(&self, a: usize, z: usize) -> String {
        let mut s = String::new();
        for i in a..=z {
            let t = self.token(i);
            if t.kind == tt::EOF {
                break;
            }
            s.push_str(
                self.src
                    .get(t.start as usize..t.end as usize)
                    .unwrap_or_default(),
            );
        }
        s
    }

    fn display(&self, i: usize) -> String {
        format!(
            "'{}'",
            escape_ws(&self.token_text(u32::try_from(i).unwrap_or(0)))
        )
    }

    // ----- errors ------------------------------------------------------------------

    /// Records a syntax error at a byte offset, honouring the error reporting limit.
    fn syntax_error(&mut self, offset: u32, msg: &str) {
        if self.aborted {
            return;
        }
        let patterned;
        let msg = if self.limits.messages_as_patterns {
            patterned = crate::source::sprintf_without_arguments(msg);
            patterned.as_str()
        } else {
            msg
        };
        if !self
            .errs
            .syntax(offset, msg, self.limits.error_reporting_limit)
        {
            self.aborted = true;
        }
    }

    fn notify(&mut self, tok: usize, msg: &str) {
        let mut msg = msg.to_string();
        if let Some(rest) = msg.strip_prefix("no viable alternative at input '") {
            if let Some(inner) = rest.strip_suffix('\'') {
                let mut cs = inner.chars();
                if cs.next().is_some() {
                    let word = cs.as_str();
                    if matches!(word, "true" | "false" | "null") {
                        msg = format!("mismatched input '{word}' expecting IDENTIFIER");
                    }
                }
            }
        }
        let off = self.token(tok).start;
        self.syntax_error(off, &msg);
    }

    fn expected_from(&self, mut following: u64) -> u64 {
        if following & EPS == 0 {
            return following;
        }
        let mut exp = following & !EPS;
        for &cs in self.ctx.iter().rev() {
            if following & EPS == 0 {
                break;
            }
            following = follow_set(cs);
            exp |= following & !EPS;
        }
        if following & EPS != 0 {
            exp |= EOF_S;
        }
        exp
    }

    /// The tokens an error message lists: without backquoted identifiers (the grammar
    /// before cel-go v0.23 names a plain IDENTIFIER where the newer one has escapeIdent).
    fn shown(&self, set: u64) -> u64 {
        if self.limits.backquotes {
            set
        } else {
            set & !b(tt::ESC_IDENTIFIER)
        }
    }

    fn expected(&self) -> u64 {
        self.expected_from(next_set(self.state))
    }

    fn recovery_set(&self) -> u64 {
        self.ctx.iter().fold(0, |acc, &cs| acc | follow_set(cs)) & !EPS
    }

    fn report_match(&mut self) {
        self.recovery_mode = false;
        self.last_error_states.clear();
        self.last_error_index = None;
    }

    fn report_error(&mut self, e: Exc) {
        if self.recovery_mode {
            return;
        }
        self.recovery_mode = true;
        match e {
            Exc::NoViable { start, offending } => {
                let st = self.token(start);
                let input = if st.kind == tt::EOF {
                    "<EOF>".to_string()
                } else {
                    self.range_text(start, offending)
                };
                let msg = format!("no viable alternative at input '{}'", escape_ws(&input));
                self.notify(offending, &msg);
            }
            Exc::Mismatch { offending, state } => {
                let exp = self.expected_from(next_set(state));
                let msg = format!(
                    "mismatched input {} expecting {}",
                    self.display(offending),
                    set_string(self.shown(exp))
                );
                self.notify(offending, &msg);
            }
        }
    }

    fn report_unwanted_token(&mut self) {
        if self.recovery_mode {
            return;
        }
        self.recovery_mode = true;
        let msg = format!(
            "extraneous input {} expecting {}",
            self.display(self.p),
            set_string(self.shown(self.expected()))
        );
        self.notify(self.p, &msg);
    }

    fn report_missing_token(&mut self) {
        if self.recovery_mode {
            return;
        }
        self.recovery_mode = true;
        let msg = format!(
            "missing {} at {}",
            set_string(self.shown(self.expected())),
            self.display(self.p)
        );
        self.notify(self.p, &msg);
    }

    /// Counts a recovery attempt; false (and parsing abandoned) past the limit.
    fn check_attempts(&mut self) -> bool {
        if self.recovery_attempts == self.limits.error_recovery_limit {
            self.recovery_attempts += 1;
            let msg = format!(
                "error recovery attempt limit exceeded: {}",
                self.limits.error_recovery_limit
            );
            let p = self.p;
            self.notify(p, &msg);
            self.aborted = true;
            return false;
        }
        self.recovery_attempts += 1;
        true
    }

    fn consume_until(&mut self, set: u64, counted: bool) {
        loop {
            let t = self.la(1);
            if t == tt::EOF || has(set, t) || self.aborted {
                return;
            }
            if counted {
                self.consume_counted();
            } else {
                self.consume();
            }
        }
    }

    /// Recovery at a rule's exit after an error: skip to a token that can follow one of
    /// the active rules.
    fn recover(&mut self) {
        if !self.check_attempts() {
            return;
        }
        self.lookahead = Some(0);
        if self.last_error_index == Some(self.p) && self.last_error_states.contains(&self.state) {
            self.consume_counted();
        }
        self.last_error_index = Some(self.p);
        self.last_error_states.push(self.state);
        let set = self.recovery_set();
        self.consume_until(set, true);
        self.lookahead = None;
    }

    fn single_token_deletion(&mut self, counted: bool) -> Option<usize> {
        let next = self.la(2);
        if has(self.expected(), next) {
            self.report_unwanted_token();
            if counted {
                self.consume_counted();
            } else {
                self.consume();
            }
            let tok = self.p;
            self.report_match();
            Some(tok)
        } else {
            None
        }
    }

    fn conjure(&mut self) -> T {
        let exp = self.expected();
        let kind = (0u8..38).find(|t| exp & b(*t) != 0).unwrap_or(tt::EOF);
        let mut pos = self.token(self.p);
        if pos.kind == tt::EOF && self.p > 0 {
            // Placed at the previous visible token.
            let mut i = self.p;
            while i > 0 {
                i -= 1;
                if !self.token(i).hidden() {
                    pos = self.token(i);
                    break;
                }
            }
        }
        self.conjured.push(Token {
            kind,
            start: pos.start,
            end: pos.start,
        });
        u32::try_from(self.conjured.len() - 1).unwrap_or(0) | CONJURED
    }

    /// Whether the field of a selection is missing where the grammar before cel-go v0.23
    /// inserts it (single-token insertion: no IDENTIFIER now, none to reach by deleting
    /// one token, and the current token may follow the selection).
    fn missing_select_ident(&mut self) -> bool {
        let cur = self.la(1);
        cur != tt::IDENTIFIER
            && self.la(2) != tt::IDENTIFIER
            && has(self.expected_from(after_set(108)), cur)
    }

    /// Inline recovery for a token that does not match.
    fn recover_inline(&mut self) -> Option<T> {
        if !self.check_attempts() {
            self.err = Some(Exc::Mismatch {
                offending: self.p,
                state: self.state,
            });
            return None;
        }
        self.lookahead = Some(0);
        let result = if let Some(tok) = self.single_token_deletion(true) {
            self.consume_counted();
            Some(u32::try_from(tok).unwrap_or(0))
        } else {
            let cur = self.la(1);
            let ll2 = self.expected_from(after_set(self.state));
            if has(ll2, cur) {
                self.report_missing_token();
                Some(self.conjure())
            } else {
                self.err = Some(Exc::Mismatch {
                    offending: self.p,
                    state: self.state,
                });
                None
            }
        };
        self.lookahead = None;
        result
    }

    fn match_tok(&mut self, t: u8) -> Option<T> {
        if self.la(1) == t && !self.aborted {
            self.report_match();
            let tok = u32::try_from(self.p).unwrap_or(0);
            self.consume();
            Some(tok)
        } else if self.aborted {
            self.err = Some(Exc::Mismatch {
                offending: self.p,
                state: self.state,
            });
            None
        } else {
            self.recover_inline()
        }
    }

    /// Matches the current token as one of a set already predicted (operators).
    fn match_predicted(&mut self) -> T {
        self.report_match();
        let tok = u32::try_from(self.p).unwrap_or(0);
        self.consume();
        tok
    }

    fn sync(&mut self) {
        if self.recovery_mode || self.aborted {
            return;
        }
        let la = self.la(1);
        let next = next_set(self.state);
        if next & EPS != 0 || has(next, la) {
            return;
        }
        if is_loop_back(self.state) {
            self.report_unwanted_token();
            let set = self.expected() | self.recovery_set();
            self.consume_until(set, false);
        } else if self.single_token_deletion(false).is_none() {
            self.err = Some(Exc::Mismatch {
                offending: self.p,
                state: self.state,
            });
        }
    }

    fn set_state(&mut self, s: u16) {
        self.state = s;
    }

    fn failed(&self) -> bool {
        self.err.is_some()
    }

    fn no_viable(&mut self, start: usize, offending: usize) -> u8 {
        self.err = Some(Exc::NoViable { start, offending });
        0
    }

    // ----- rules -------------------------------------------------------------------

    /// Enters a rule invoked at the current state: nesting check, context push.
    fn enter(&mut self, rule: usize) -> R<(u16, T)> {
        if self.aborted {
            return Err(Abort);
        }
        let d = self.depth.get(rule).copied().unwrap_or(0) + 1;
        if let Some(slot) = self.depth.get_mut(rule) {
            *slot = d;
        }
        if d > self.limits.max_recursion_depth {
            self.errs.internal(format!(
                "expression recursion limit exceeded: {}",
                self.limits.max_recursion_depth
            ));
            self.aborted = true;
            return Err(Abort);
        }
        let inv = self.state;
        if rule != RULE_START {
            self.ctx.push(inv);
        }
        let start = u32::try_from(self.p).unwrap_or(0);
        Ok((inv, start))
    }

    /// Leaves a rule: reports and recovers a pending error, restores the context.
    fn exit(&mut self, rule: usize, inv: u16) -> R<()> {
        if let Some(e) = self.err.take() {
            self.report_error(e);
            self.recover();
        }
        if let Some(slot) = self.depth.get_mut(rule) {
            *slot = slot.saturating_sub(1);
        }
        if rule != RULE_START {
            self.ctx.pop();
        }
        self.state = inv;
        if self.aborted {
            Err(Abort)
        } else {
            Ok(())
        }
    }

    fn alloc(&mut self, n: Node) -> N {
        self.nodes.push(n);
        u32::try_from(self.nodes.len() - 1).unwrap_or(0)
    }

    /// Invokes a sub-rule from `state`.
    fn call<F>(&mut self, state: u16, f: F) -> R<N>
    where
        F: FnOnce(&mut Self) -> R<N>,
    {
        self.set_state(state);
        f(self)
    }

    /// start: expr EOF
    pub fn start(&mut self) -> R<N> {
        self.init_stream();
        let (inv, _) = self.enter(RULE_START)?;
        let e = self.call(34, Self::expr)?;
        self.set_state(35);
        self.match_tok(tt::EOF);
        self.exit(RULE_START, inv)?;
        Ok(e)
    }

    /// expr: conditionalOr ('?' conditionalOr ':' expr)?
    fn expr(&mut self) -> R<N> {
        let (inv, _) = self.enter(RULE_EXPR)?;
        let mut op = None;
        let mut e1 = None;
        let mut e2 = None;
        let e = Some(self.call(37, Self::conditional_or)?);
        'body: {
            self.set_state(43);
            self.sync();
            if self.failed() {
                break 'body;
            }
            if self.la(1) == tt::QUESTIONMARK {
                self.set_state(38);
                op = self.match_tok(tt::QUESTIONMARK);
                if self.failed() {
                    break 'body;
                }
                e1 = Some(self.call(39, Self::conditional_or)?);
                self.set_state(40);
                self.match_tok(tt::COLON);
                if self.failed() {
                    break 'body;
                }
                e2 = Some(self.call(41, Self::expr)?);
            }
        }
        self.exit(RULE_EXPR, inv)?;
        if let (None, Some(e)) = (op, e) {
            // A plain `conditionalOr`: the tree builder looks through it anyway.
            return Ok(e);
        }
        Ok(self.alloc(Node::Expr { e, op, e1, e2 }))
    }

    fn conditional_or(&mut self) -> R<N> {
        self.logical(RULE_OR, [45, 50, 46, 47, 52], tt::LOGICAL_OR)
    }

    fn conditional_and(&mut self) -> R<N> {
        self.logical(RULE_AND, [53, 58, 54, 55, 60], tt::LOGICAL_AND)
    }

    /// conditionalOr / conditionalAnd: first ('op' next)*
    fn logical(&mut self, rule: usize, st: [u16; 5], op_tok: u8) -> R<N> {
        let [s_first, s_entry, s_op, s_next, s_back] = st;
        let (inv, start) = self.enter(rule)?;
        let mut ops = Vec::new();
        let mut rest = Vec::new();
        let sub = |p: &mut Self, s: u16| -> R<N> {
            if rule == RULE_OR {
                p.call(s, Self::conditional_and)
            } else {
                p.call(s, |p| p.relation(0))
            }
        };
        let e = Some(sub(self, s_first)?);
        'body: {
            self.set_state(s_entry);
            self.sync();
            if self.failed() {
                break 'body;
            }
            while self.la(1) == op_tok && !self.aborted {
                self.set_state(s_op);
                let t = self.match_tok(op_tok);
                if self.failed() {
                    break 'body;
                }
                if let Some(t) = t {
                    ops.push(t);
                }
                rest.push(sub(self, s_next)?);
                self.set_state(s_back);
                self.sync();
                if self.failed() {
                    break 'body;
                }
            }
        }
        self.exit(rule, inv)?;
        if let (true, Some(e)) = (ops.is_empty(), e) {
            return Ok(e);
        }
        let node = if rule == RULE_OR {
            Node::Or {
                start,
                e,
                ops,
                rest,
            }
        } else {
            Node::And {
                start,
                e,
                ops,
                rest,
            }
        };
        Ok(self.alloc(node))
    }

    /// relation[p]: calc ({precpred 1}? op relation[2])*
    fn relation(&mut self, prec: u8) -> R<N> {
        let (inv, start) = self.enter(RULE_RELATION)?;
        let mut cur = self.call(62, |p| p.calc(0))?;
        'body: {
            self.set_state(69);
            self.sync();
            if self.failed() {
                break 'body;
            }
            loop {
                let alt = if has(RELOPS, self.la(1)) && prec <= 1 {
                    1
                } else {
                    2
                };
                if alt != 1 || self.aborted {
                    break;
                }
                self.set_state(65);
                let op = self.match_predicted();
                let rhs = self.call(66, |p| p.relation(2))?;
                cur = self.alloc(Node::Relation {
                    start,
                    lhs: Some(cur),
                    op: Some(op),
                    rhs: Some(rhs),
                });
                self.set_state(71);
                self.sync();
                if self.failed() {
                    break 'body;
                }
            }
        }
        self.exit(RULE_RELATION, inv)?;
        Ok(cur)
    }

    /// calc[p]: unary ({precpred 2}? ('*'|'/'|'%') calc[3] | {precpred 1}? ('+'|'-') calc[2])*
    fn calc(&mut self, prec: u8) -> R<N> {
        let (inv, start) = self.enter(RULE_CALC)?;
        let mut cur = self.call(73, Self::unary)?;
        'body: {
            self.set_state(83);
            self.sync();
            if self.failed() {
                break 'body;
            }
            loop {
                let la = self.la(1);
                let mul = has(MULOPS, la) && prec <= 2;
                let add = has(ADDOPS, la) && prec <= 1;
                if !(mul || add) || self.aborted {
                    break;
                }
                self.set_state(81);
                self.sync();
                if self.failed() {
                    break 'body;
                }
                let (op_state, sub_state, sub_prec) = if mul { (76, 77, 3) } else { (79, 80, 2) };
                self.set_state(op_state);
                let op = self.match_predicted();
                let rhs = self.call(sub_state, |p| p.calc(sub_prec))?;
                cur = self.alloc(Node::Calc {
                    start,
                    lhs: Some(cur),
                    op: Some(op),
                    rhs: Some(rhs),
                });
                self.set_state(85);
                self.sync();
                if self.failed() {
                    break 'body;
                }
            }
        }
        self.exit(RULE_CALC, inv)?;
        Ok(cur)
    }

    /// Decision of `unary`: 1 member, 2 `!`+ member, 3 `-`+ member.
    fn predict_unary(&mut self) -> u8 {
        let la1 = self.la(1);
        if la1 == tt::EXCLAM {
            return 2;
        }
        if la1 == tt::MINUS {
            let la2 = self.la(2);
            if la2 == tt::NUM_INT || la2 == tt::NUM_FLOAT {
                return 1;
            }
            if has(FIRST_MEMBER, la2) {
                return 3;
            }
            let (s, o) = (self.p, self.lt_index(2));
            return self.no_viable(s, o);
        }
        if has(FIRST_MEMBER, la1) {
            return 1;
        }
        let s = self.p;
        self.no_viable(s, s)
    }

    /// Loop decision inside `-`+: 1 another `-`, 2 the operand.
    fn predict_negate_loop(&mut self) -> u8 {
        let la1 = self.la(1);
        if la1 == tt::MINUS {
            let la2 = self.la(2);
            if has(FIRST_MEMBER, la2) {
                return 1;
            }
            let (s, o) = (self.p, self.lt_index(2));
            return self.no_viable(s, o);
        }
        if has(FIRST_MEMBER, la1) {
            return 2;
        }
        let s = self.p;
        self.no_viable(s, s)
    }

    fn unary(&mut self) -> R<N> {
        let (inv, start) = self.enter(RULE_UNARY)?;
        let mut node = Node::UnaryErr { start };
        'body: {
            self.set_state(99);
            self.sync();
            if self.failed() {
                break 'body;
            }
            match self.predict_unary() {
                1 => {
                    let m = self.call(86, |p| p.member())?;
                    self.exit(RULE_UNARY, inv)?;
                    return Ok(m);
                }
                2 => {
                    let mut ops = Vec::new();
                    node = Node::LogicalNot {
                        ops: Vec::new(),
                        member: None,
                    };
                    self.set_state(88);
                    self.sync();
                    if self.failed() {
                        break 'body;
                    }
                    loop {
                        self.set_state(87);
                        let t = self.match_tok(tt::EXCLAM);
                        if let Some(t) = t {
                            ops.push(t);
                        }
                        if self.failed() {
                            node = Node::LogicalNot { ops, member: None };
                            break 'body;
                        }
                        self.set_state(90);
                        self.sync();
                        if self.failed() {
                            node = Node::LogicalNot { ops, member: None };
                            break 'body;
                        }
                        if self.la(1) != tt::EXCLAM || self.aborted {
                            break;
                        }
                    }
                    let m = self.call(92, |p| p.member())?;
                    node = Node::LogicalNot {
                        ops,
                        member: Some(m),
                    };
                }
                3 => {
                    let mut ops = Vec::new();
                    node = Node::Negate {
                        ops: Vec::new(),
                        member: None,
                    };
                    self.set_state(94);
                    self.sync();
                    if self.failed() {
                        break 'body;
                    }
                    loop {
                        self.set_state(93);
                        let t = self.match_tok(tt::MINUS);
                        if let Some(t) = t {
                            ops.push(t);
                        }
                        if self.failed() {
                            node = Node::Negate { ops, member: None };
                            break 'body;
                        }
                        self.set_state(96);
                        self.sync();
                        let alt = self.predict_negate_loop();
                        if self.failed() {
                            node = Node::Negate { ops, member: None };
                            break 'body;
                        }
                        if alt != 1 || self.aborted {
                            break;
                        }
                    }
                    let m = self.call(98, |p| p.member())?;
                    node = Node::Negate {
                        ops,
                        member: Some(m),
                    };
                }
                _ => {}
            }
        }
        self.exit(RULE_UNARY, inv)?;
        Ok(self.alloc(node))
    }

    /// Which member suffix: 1 select, 2 member call, 3 index.
    fn predict_suffix(&mut self) -> u8 {
        match self.la(1) {
            tt::LBRACKET => 3,
            _ => match self.la(2) {
                tt::QUESTIONMARK | tt::ESC_IDENTIFIER => 1,
                tt::IDENTIFIER => {
                    if self.la(3) == tt::LPAREN {
                        2
                    } else {
                        1
                    }
                }
                _ => {
                    let (s, o) = (self.p, self.lt_index(2));
                    self.no_viable(s, o)
                }
            },
        }
    }

    /// member: primary (suffix)*
    fn member(&mut self) -> R<N> {
        let (inv, start) = self.enter(RULE_MEMBER)?;
        let mut cur = self.call(102, Self::primary)?;
        'body: {
            self.set_state(128);
            self.sync();
            if self.failed() {
                break 'body;
            }
            while has(SUFFIX, self.la(1)) && !self.aborted {
                self.set_state(126);
                self.sync();
                if self.failed() {
                    break 'body;
                }
                match self.predict_suffix() {
                    1 => {
                        let mut opt = None;
                        let mut id = None;
                        self.set_state(105);
                        let op = self.match_tok(tt::DOT);
                        'sel: {
                            if self.failed() {
                                break 'sel;
                            }
                            self.set_state(107);
                            self.sync();
                            if self.failed() {
                                break 'sel;
                            }
                            if self.la(1) == tt::QUESTIONMARK {
                                self.set_state(106);
                                opt = self.match_tok(tt::QUESTIONMARK);
                                if self.failed() {
                                    break 'sel;
                                }
                            }
                            if !self.limits.backquotes && self.missing_select_ident() {
                                // The grammar before cel-go v0.23 matches the field as a
                                // plain IDENTIFIER token, whose inline recovery inserts
                                // it when what follows could follow it.
                                self.set_state(108);
                                let tok = self.match_tok(tt::IDENTIFIER);
                                id = Some(self.alloc(Node::SimpleIdent { id: tok }));
                                break 'sel;
                            }
                            id = Some(self.call(109, Self::escape_ident)?);
                        }
                        cur = self.alloc(Node::Select {
                            start,
                            member: cur,
                            op,
                            opt,
                            id,
                        });
                    }
                    2 => {
                        let mut id = None;
                        let mut open = None;
                        let mut args = None;
                        self.set_state(111);
                        self.match_tok(tt::DOT);
                        'call: {
                            if self.failed() {
                                break 'call;
                            }
                            self.set_state(112);
                            id = self.match_tok(tt::IDENTIFIER);
                            if self.failed() {
                                break 'call;
                            }
                            self.set_state(113);
                            open = self.match_tok(tt::LPAREN);
                            if self.failed() {
                                break 'call;
                            }
                            self.set_state(115);
                            self.sync();
                            if self.failed() {
                                break 'call;
                            }
                            if has(FIRST_EXPR, self.la(1)) {
                                args = Some(self.call(114, Self::expr_list)?);
                            }
                            self.set_state(117);
                            self.match_tok(tt::RPAREN);
                        }
                        cur = self.alloc(Node::MemberCall {
                            start,
                            member: cur,
                            id,
                            open,
                            args,
                        });
                    }
                    3 => {
                        let mut opt = None;
                        let mut index = None;
                        self.set_state(119);
                        let op = self.match_tok(tt::LBRACKET);
                        'idx: {
                            if self.failed() {
                                break 'idx;
                            }
                            self.set_state(121);
                            self.sync();
                            if self.failed() {
                                break 'idx;
                            }
                            if self.la(1) == tt::QUESTIONMARK {
                                self.set_state(120);
                                opt = self.match_tok(tt::QUESTIONMARK);
                                if self.failed() {
                                    break 'idx;
                                }
                            }
                            index = Some(self.call(123, Self::expr)?);
                            self.set_state(124);
                            self.match_tok(tt::RBRACKET);
                        }
                        cur = self.alloc(Node::Index {
                            start,
                            member: cur,
                            op,
                            opt,
                            index,
                        });
                    }
                    _ => {}
                }
                if self.failed() {
                    break 'body;
                }
                self.set_state(130);
                self.sync();
                if self.failed() {
                    break 'body;
                }
            }
        }
        self.exit(RULE_MEMBER, inv)?;
        Ok(cur)
    }

    /// Decision of `primary`: 1 ident, 2 global call, 3 nested, 4 list, 5 map,
    /// 6 message, 7 literal.
    fn predict_primary(&mut self) -> u8 {
        let la1 = self.la(1);
        match la1 {
            tt::LPAREN => return 3,
            tt::LBRACKET => return 4,
            tt::LBRACE => return 5,
            _ if has(LIT | b(tt::MINUS), la1) => return 7,
            tt::DOT | tt::IDENTIFIER => {}
            _ => {
                let s = self.p;
                return self.no_viable(s, s);
            }
        }
        let mut k = 1;
        if la1 == tt::DOT {
            if self.la(2) != tt::IDENTIFIER {
                let (s, o) = (self.p, self.lt_index(2));
                return self.no_viable(s, o);
            }
            k = 2;
        }
        match self.la(k + 1) {
            tt::LPAREN => return 2,
            tt::LBRACE => return 6,
            tt::DOT => {}
            _ => return 1,
        }
        // A dotted name: a message name when it ends with '{', else an identifier
        // followed by selections.
        // Walk the `.IDENT` pairs by token index (linear in the chain length).
        let mut i = self.lt_index(k + 1);
        loop {
            if self.aborted || self.token(i).kind != tt::DOT {
                break;
            }
            let next = self.visible_from(i + 1);
            if self.token(next).kind != tt::IDENTIFIER {
                break;
            }
            i = self.visible_from(next + 1);
        }
        // Anything else is an identifier followed by selections: once the name is
        // followed by a '.', that alternative has left this rule, so it is the one
        // chosen even when the tokens after it fit nothing.
        if self.token(i).kind == tt::LBRACE && !self.aborted {
            6
        } else {
            1
        }
    }

    fn primary(&mut self) -> R<N> {
        let (inv, start) = self.enter(RULE_PRIMARY)?;
        let mut node = Node::PrimaryErr;
        'body: {
            self.set_state(184);
            self.sync();
            if self.failed() {
                break 'body;
            }
            match self.predict_primary() {
                alt @ (1 | 2) => {
                    let (s_opt, s_dot, s_id) = if alt == 1 {
                        (132, 131, 134)
                    } else {
                        (136, 135, 138)
                    };
                    let mut dot = None;
                    let mut id = None;
                    let mut op = None;
                    let mut args = None;
                    'alt: {
                        self.set_state(s_opt);
                        self.sync();
                        if self.failed() {
                            break 'alt;
                        }
                        if self.la(1) == tt::DOT {
                            self.set_state(s_dot);
                            dot = self.match_tok(tt::DOT);
                            if self.failed() {
                                break 'alt;
                            }
                        }
                        self.set_state(s_id);
                        id = self.match_tok(tt::IDENTIFIER);
                        if self.failed() || alt == 1 {
                            break 'alt;
                        }
                        self.set_state(139);
                        op = self.match_tok(tt::LPAREN);
                        if self.failed() {
                            break 'alt;
                        }
                        self.set_state(141);
                        self.sync();
                        if self.failed() {
                            break 'alt;
                        }
                        if has(FIRST_EXPR, self.la(1)) {
                            args = Some(self.call(140, Self::expr_list)?);
                        }
                        self.set_state(143);
                        self.match_tok(tt::RPAREN);
                    }
                    node = if alt == 1 {
                        Node::Ident { start, dot, id }
                    } else {
                        Node::GlobalCall {
                            start,
                            dot,
                            id,
                            op,
                            args,
                        }
                    };
                }
                3 => {
                    let mut e = None;
                    'alt: {
                        self.set_state(144);
                        self.match_tok(tt::LPAREN);
                        if self.failed() {
                            break 'alt;
                        }
                        e = Some(self.call(145, Self::expr)?);
                        self.set_state(146);
                        self.match_tok(tt::RPAREN);
                    }
                    if let (Some(e), false) = (e, self.failed()) {
                        self.exit(RULE_PRIMARY, inv)?;
                        return Ok(e);
                    }
                    node = Node::Nested { e };
                }
                alt @ (4 | 5) => {
                    let list = alt == 4;
                    let (s_open, s_opt, s_call, s_comma, s_close) = if list {
                        (148, 150, 149, 153, 155)
                    } else {
                        (156, 158, 157, 161, 163)
                    };
                    let (open_t, close_t) = if list {
                        (tt::LBRACKET, tt::RBRACKET)
                    } else {
                        (tt::LBRACE, tt::RBRACE)
                    };
                    let mut inner = None;
                    self.set_state(s_open);
                    let op = self.match_tok(open_t);
                    'alt: {
                        if self.failed() {
                            break 'alt;
                        }
                        self.set_state(s_opt);
                        self.sync();
                        if self.failed() {
                            break 'alt;
                        }
                        if has(FIRST_OPTEXPR, self.la(1)) {
                            inner = Some(if list {
                                self.call(s_call, Self::list_init)?
                            } else {
                                self.call(s_call, Self::map_inits)?
                            });
                        }
                        self.set_state(s_comma);
                        self.sync();
                        if self.failed() {
                            break 'alt;
                        }
                        if self.la(1) == tt::COMMA {
                            self.set_state(s_comma - 1);
                            self.match_tok(tt::COMMA);
                            if self.failed() {
                                break 'alt;
                            }
                        }
                        self.set_state(s_close);
                        self.match_tok(close_t);
                    }
                    node = if list {
                        Node::CreateList { op, elems: inner }
                    } else {
                        Node::CreateStruct { op, entries: inner }
                    };
                }
                6 => {
                    let mut dot = None;
                    let mut ids = Vec::new();
                    let mut op = None;
                    let mut entries = None;
                    'alt: {
                        self.set_state(165);
                        self.sync();
                        if self.failed() {
                            break 'alt;
                        }
                        if self.la(1) == tt::DOT {
                            self.set_state(164);
                            dot = self.match_tok(tt::DOT);
                            if self.failed() {
                                break 'alt;
                            }
                        }
                        self.set_state(167);
                        let id = self.match_tok(tt::IDENTIFIER);
                        ids.extend(id);
                        if self.failed() {
                            break 'alt;
                        }
                        self.set_state(172);
                        self.sync();
                        if self.failed() {
                            break 'alt;
                        }
                        while self.la(1) == tt::DOT && !self.aborted {
                            self.set_state(168);
                            self.match_tok(tt::DOT);
                            if self.failed() {
                                break 'alt;
                            }
                            self.set_state(169);
                            let id = self.match_tok(tt::IDENTIFIER);
                            ids.extend(id);
                            if self.failed() {
                                break 'alt;
                            }
                            self.set_state(174);
                            self.sync();
                            if self.failed() {
                                break 'alt;
                            }
                        }
                        self.set_state(175);
                        op = self.match_tok(tt::LBRACE);
                        if self.failed() {
                            break 'alt;
                        }
                        self.set_state(177);
                        self.sync();
                        if self.failed() {
                            break 'alt;
                        }
                        if has(b(tt::QUESTIONMARK) | IDENTS, self.la(1)) {
                            entries = Some(self.call(176, Self::field_inits)?);
                        }
                        self.set_state(180);
                        self.sync();
                        if self.failed() {
                            break 'alt;
                        }
                        if self.la(1) == tt::COMMA {
                            self.set_state(179);
                            self.match_tok(tt::COMMA);
                            if self.failed() {
                                break 'alt;
                            }
                        }
                        self.set_state(182);
                        self.match_tok(tt::RBRACE);
                    }
                    node = Node::CreateMessage {
                        dot,
                        ids,
                        op,
                        entries,
                    };
                }
                7 => {
                    let lit = self.call(183, Self::literal)?;
                    self.exit(RULE_PRIMARY, inv)?;
                    return Ok(lit);
                }
                _ => {}
            }
        }
        self.exit(RULE_PRIMARY, inv)?;
        Ok(self.alloc(node))
    }

    /// exprList: expr (',' expr)*
    fn expr_list(&mut self) -> R<N> {
        let (inv, _) = self.enter(RULE_EXPRLIST)?;
        let mut es = vec![self.call(186, Self::expr)?];
        'body: {
            self.set_state(191);
            self.sync();
            if self.failed() {
                break 'body;
            }
            while self.la(1) == tt::COMMA && !self.aborted {
                self.set_state(187);
                self.match_tok(tt::COMMA);
                if self.failed() {
                    break 'body;
                }
                es.push(self.call(188, Self::expr)?);
                self.set_state(193);
                self.sync();
                if self.failed() {
                    break 'body;
                }
            }
        }
        self.exit(RULE_EXPRLIST, inv)?;
        Ok(self.alloc(Node::ExprList { es }))
    }

    /// Loop decision of the initializer lists: continue when a ',' is followed by the
    /// start of another element.
    fn predict_more(&mut self, first: u64) -> bool {
        self.la(1) == tt::COMMA && has(first, self.la(2)) && !self.aborted
    }

    /// listInit: optExpr (',' optExpr)*
    fn list_init(&mut self) -> R<N> {
        let (inv, _) = self.enter(RULE_LISTINIT)?;
        let mut elems = vec![self.call(194, Self::opt_expr)?];
        'body: {
            self.set_state(199);
            self.sync();
            while self.predict_more(FIRST_OPTEXPR) {
                self.set_state(195);
                self.match_tok(tt::COMMA);
                if self.failed() {
                    break 'body;
                }
                elems.push(self.call(196, Self::opt_expr)?);
                self.set_state(201);
                self.sync();
            }
        }
        self.exit(RULE_LISTINIT, inv)?;
        Ok(self.alloc(Node::ListInit { elems }))
    }

    /// fieldInitializerList: optField ':' expr (',' optField ':' expr)*
    fn field_inits(&mut self) -> R<N> {
        let (inv, start) = self.enter(RULE_FIELDINITS)?;
        let mut fields = Vec::new();
        let mut cols = Vec::new();
        let mut values = Vec::new();
        'body: {
            let mut states = [202u16, 203, 204];
            loop {
                let [s_field, s_col, s_val] = states;
                fields.push(self.call(s_field, Self::opt_field)?);
                self.set_state(s_col);
                let c = self.match_tok(tt::COLON);
                cols.extend(c);
                if self.failed() {
                    break 'body;
                }
                values.push(self.call(s_val, Self::expr)?);
                self.set_state(if states[0] == 202 { 212 } else { 214 });
                self.sync();
                if !self.predict_more(b(tt::QUESTIONMARK) | IDENTS) {
                    break;
                }
                self.set_state(205);
                self.match_tok(tt::COMMA);
                if self.failed() {
                    break 'body;
                }
                states = [206, 207, 208];
            }
        }
        self.exit(RULE_FIELDINITS, inv)?;
        Ok(self.alloc(Node::FieldInits {
            start,
            fields,
            cols,
            values,
        }))
    }

    /// optField: '?'? escapeIdent
    fn opt_field(&mut self) -> R<N> {
        let (inv, start) = self.enter(RULE_OPTFIELD)?;
        let mut opt = None;
        let mut ident = None;
        'body: {
            self.set_state(216);
            self.sync();
            if self.failed() {
                break 'body;
            }
            if self.la(1) == tt::QUESTIONMARK {
                self.set_state(215);
                opt = self.match_tok(tt::QUESTIONMARK);
                if self.failed() {
                    break 'body;
                }
            }
            ident = Some(self.call(218, Self::escape_ident)?);
        }
        self.exit(RULE_OPTFIELD, inv)?;
        Ok(self.alloc(Node::OptField { start, opt, ident }))
    }

    /// mapInitializerList: optExpr ':' expr (',' optExpr ':' expr)*
    fn map_inits(&mut self) -> R<N> {
        let (inv, _) = self.enter(RULE_MAPINITS)?;
        let mut keys = Vec::new();
        let mut cols = Vec::new();
        let mut values = Vec::new();
        'body: {
            let mut states = [220u16, 221, 222];
            loop {
                let [s_key, s_col, s_val] = states;
                keys.push(self.call(s_key, Self::opt_expr)?);
                self.set_state(s_col);
                let c = self.match_tok(tt::COLON);
                cols.extend(c);
                if self.failed() {
                    break 'body;
                }
                values.push(self.call(s_val, Self::expr)?);
                self.set_state(if states[0] == 220 { 230 } else { 232 });
                self.sync();
                if !self.predict_more(FIRST_OPTEXPR) {
                    break;
                }
                self.set_state(223);
                self.match_tok(tt::COMMA);
                if self.failed() {
                    break 'body;
                }
                states = [224, 225, 226];
            }
        }
        self.exit(RULE_MAPINITS, inv)?;
        Ok(self.alloc(Node::MapInits { keys, cols, values }))
    }

    /// escapeIdent: IDENTIFIER | ESC_IDENTIFIER
    fn escape_ident(&mut self) -> R<N> {
        let (inv, start) = self.enter(RULE_ESCAPEIDENT)?;
        let mut node = Node::EscapeIdentErr;
        'body: {
            self.set_state(235);
            self.sync();
            if self.failed() {
                break 'body;
            }
            match self.la(1) {
                tt::IDENTIFIER => {
                    self.set_state(233);
                    let id = self.match_tok(tt::IDENTIFIER);
                    node = Node::SimpleIdent { id };
                }
                tt::ESC_IDENTIFIER => {
                    self.set_state(234);
                    let id = self.match_tok(tt::ESC_IDENTIFIER);
                    node = Node::EscIdent { start, id };
                }
                _ => {
                    let s = self.p;
                    self.no_viable(s, s);
                }
            }
        }
        self.exit(RULE_ESCAPEIDENT, inv)?;
        Ok(self.alloc(node))
    }

    /// optExpr: '?'? expr
    fn opt_expr(&mut self) -> R<N> {
        let (inv, start) = self.enter(RULE_OPTEXPR)?;
        let mut opt = None;
        let mut e = None;
        'body: {
            self.set_state(238);
            self.sync();
            if self.failed() {
                break 'body;
            }
            if self.la(1) == tt::QUESTIONMARK {
                self.set_state(237);
                opt = self.match_tok(tt::QUESTIONMARK);
                if self.failed() {
                    break 'body;
                }
            }
            e = Some(self.call(240, Self::expr)?);
        }
        self.exit(RULE_OPTEXPR, inv)?;
        Ok(self.alloc(Node::OptExpr { start, opt, e }))
    }

    fn literal(&mut self) -> R<N> {
        let (inv, start) = self.enter(RULE_LITERAL)?;
        let mut node = Node::LiteralErr;
        'body: {
            self.set_state(256);
            self.sync();
            if self.failed() {
                break 'body;
            }
            let la1 = self.la(1);
            let alt = match la1 {
                tt::MINUS => match self.la(2) {
                    tt::NUM_INT => 1,
                    tt::NUM_FLOAT => 3,
                    _ => {
                        let (s, o) = (self.p, self.lt_index(2));
                        self.no_viable(s, o)
                    }
                },
                tt::NUM_INT => 1,
                tt::NUM_UINT => 2,
                tt::NUM_FLOAT => 3,
                tt::STRING => 4,
                tt::BYTES => 5,
                tt::CEL_TRUE => 6,
                tt::CEL_FALSE => 7,
                tt::NUL => 8,
                _ => {
                    let s = self.p;
                    self.no_viable(s, s)
                }
            };
            match alt {
                1 | 3 => {
                    let (s_opt, s_sign, s_tok, tok_t) = if alt == 1 {
                        (243, 242, 245, tt::NUM_INT)
                    } else {
                        (248, 247, 250, tt::NUM_FLOAT)
                    };
                    let mut sign = None;
                    let mut tok = None;
                    'lit: {
                        self.set_state(s_opt);
                        self.sync();
                        if self.failed() {
                            break 'lit;
                        }
                        if self.la(1) == tt::MINUS {
                            self.set_state(s_sign);
                            sign = self.match_tok(tt::MINUS);
                            if self.failed() {
                                break 'lit;
                            }
                        }
                        self.set_state(s_tok);
                        tok = self.match_tok(tok_t);
                    }
                    node = if alt == 1 {
                        Node::Int { start, sign, tok }
                    } else {
                        Node::Double { start, sign, tok }
                    };
                }
                2 => {
                    self.set_state(246);
                    let tok = self.match_tok(tt::NUM_UINT);
                    node = Node::Uint { start, tok };
                }
                4 => {
                    self.set_state(251);
                    let tok = self.match_tok(tt::STRING);
                    node = Node::Str { start, tok };
                }
                5 => {
                    self.set_state(252);
                    let tok = self.match_tok(tt::BYTES);
                    node = Node::Bytes { start, tok };
                }
                6 | 7 => {
                    self.set_state(if alt == 6 { 253 } else { 254 });
                    self.match_tok(if alt == 6 {
                        tt::CEL_TRUE
                    } else {
                        tt::CEL_FALSE
                    });
                    node = Node::Bool {
                        start,
                        value: alt == 6,
                    };
                }
                8 => {
                    self.set_state(255);
                    self.match_tok(tt::NUL);
                    node = Node::Null { start };
                }
                _ => {}
            }
        }
        self.exit(RULE_LITERAL, inv)?;
        Ok(self.alloc(node))
    }

    // ----- accessors for the tree builder -------------------------------------------

    /// Byte offset of a token reference.
    pub fn offset(&self, r: T) -> u32 {
        if r & CONJURED != 0 {
            return self
                .conjured
                .get((r & !CONJURED) as usize)
                .map(|t| t.start)
                .unwrap_or(0);
        }
        self.token(r as usize).start
    }

    /// The source text of a token reference (borrowed when it is a real token).
    pub fn text(&self, r: T) -> Cow<'a, str> {
        match self.text_ref(r) {
            Some(s) => Cow::Borrowed(s),
            None => Cow::Owned(self.token_text(r)),
        }
    }

    /// The source text of a token reference, borrowed when it is a real token.
    pub fn text_ref(&self, r: T) -> Option<&'a str> {
        if r & CONJURED != 0 {
            return None;
        }
        let t = self.token(r as usize);
        if t.kind == tt::EOF {
            return None;
        }
        self.src.get(t.start as usize..t.end as usize)
    }
}
