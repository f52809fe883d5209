//! Builds the AST from the CST, the way CEL's reference parser visits its parse tree:
//! node ids are allocated in the same order, operators become calls, logical chains are
//! balanced, macros are expanded, literals are decoded, and the same semantic errors are
//! reported. The nesting of selections, calls, indexing, binary operators and ternaries
//! is limited ("max recursion depth exceeded"); that limit keeps this recursion bounded.

use std::borrow::Cow;

use super::grammar::{Node, Recognizer, N, T};
use super::unescape::unescape_with;
use super::SyntaxErrors;
use crate::ast::{Expr, ExprId, ExprKind, FieldInit, Literal, MapEntry};
use crate::macros::{self, Helper, MacroError, MacroSet};

/// The visit was abandoned on the depth limit (already reported).
pub(super) struct DepthExceeded;

type V<X> = Result<X, DepthExceeded>;

/// Identifiers that may not name variables or functions.
pub(super) fn reserved(id: &str) -> bool {
    matches!(
        id,
        "as" | "break"
            | "const"
            | "continue"
            | "else"
            | "false"
            | "for"
            | "function"
            | "if"
            | "import"
            | "in"
            | "let"
            | "loop"
            | "package"
            | "namespace"
            | "null"
            | "return"
            | "true"
            | "var"
            | "void"
            | "while"
    )
}

/// The function an operator token's text calls.
pub(super) fn operator(text: &str) -> Option<&'static str> {
    Some(match text {
        "+" => "_+_",
        "/" => "_/_",
        "==" => "_==_",
        ">" => "_>_",
        ">=" => "_>=_",
        "in" => "@in",
        "<" => "_<_",
        "<=" => "_<=_",
        "%" => "_%_",
        "*" => "_*_",
        "!=" => "_!=_",
        "-" => "_-_",
        _ => return None,
    })
}

/// cel-go's message for a backquoted name when the escape syntax is off.
const UNSUPPORTED_ESCAPE: &str = "unsupported syntax: '`'";

pub(super) struct Builder<'r, 'a> {
    rec: &'r Recognizer<'a>,
    pub errs: SyntaxErrors,
    pub next_id: ExprId,
    depth: usize,
    max_depth: usize,
    optional_syntax: bool,
    escaped_idents: bool,
    macros: MacroSet,
}

impl<'r, 'a> Builder<'r, 'a> {
    pub fn new(
        rec: &'r Recognizer<'a>,
        errs: SyntaxErrors,
        max_depth: usize,
        optional_syntax: bool,
        escaped_idents: bool,
        macros: MacroSet,
    ) -> Self {
        Builder {
            rec,
            errs,
            next_id: 1,
            depth: 0,
            max_depth,
            optional_syntax,
            escaped_idents,
            macros,
        }
    }

    fn node(&self, n: N) -> Option<&'r Node> {
        self.rec.nodes.get(n as usize)
    }

    fn new_id(&mut self) -> ExprId {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    fn tok_off(&self, t: T) -> u32 {
        self.rec.offset(t)
    }

    fn expr(&mut self, offset: u32, kind: ExprKind) -> Expr {
        let id = self.new_id();
        Expr::new(id, offset, kind)
    }

    /// A placeholder for a part of the tree that could not be built.
    fn placeholder(&mut self, offset: u32) -> Expr {
        self.expr(offset, ExprKind::Literal(Literal::Null))
    }

    /// Reports an error at `offset` (None: no position) and returns a placeholder.
    fn report(&mut self, offset: Option<u32>, msg: String) -> Expr {
        let e = self.placeholder(offset.unwrap_or(0));
        self.errs.semantic(offset, msg);
        e
    }

    fn enter(&mut self) -> V<()> {
        self.depth += 1;
        if self.depth > self.max_depth {
            self.errs
                .internal("max recursion depth exceeded".to_string());
            return Err(DepthExceeded);
        }
        Ok(())
    }

    /// Skips the nodes that only wrap a single child.
    fn unnest(&self, mut n: Option<N>) -> Option<N> {
        while let Some(i) = n {
            let next = match self.node(i)? {
                Node::Expr { op: None, e, .. } => *e,
                Node::Or { ops, e, .. } | Node::And { ops, e, .. } if ops.is_empty() => *e,
                Node::Relation { op: None, lhs, .. } | Node::Calc { op: None, lhs, .. } => *lhs,
                Node::Nested { e } => *e,
                _ => return Some(i),
            };
            n = next;
        }
        None
    }

    fn unknown(&mut self, what: &str) -> Expr {
        if self.errs.is_empty() {
            self.report(None, format!("unknown parse element encountered: {what}"))
        } else {
            self.placeholder(0)
        }
    }

    pub fn visit(&mut self, n: Option<N>) -> V<Expr> {
        let Some(i) = self.unnest(n) else {
            return Ok(self.unknown("<<nil>>"));
        };
        let Some(node) = self.node(i) else {
            return Ok(self.unknown("<<nil>>"));
        };
        match node {
            Node::Expr { e, op, e1, e2, .. } => {
                self.enter()?;
                let r = self.visit_ternary(*e, *op, *e1, *e2);
                self.depth -= 1;
                r
            }
            Node::Or {
                e,
                ops,
                rest,
                start,
            } => self.visit_logical("_||_", *start, *e, ops, rest),
            Node::And {
                e,
                ops,
                rest,
                start,
            } => self.visit_logical("_&&_", *start, *e, ops, rest),
            Node::Relation {
                lhs,
                op,
                rhs,
                start,
            }
            | Node::Calc {
                lhs,
                op,
                rhs,
                start,
            } => {
                self.enter()?;
                let r = self.visit_binary(*start, *lhs, *op, *rhs);
                self.depth -= 1;
                r
            }
            Node::LogicalNot { ops, member } => self.visit_unary("!_", ops, *member),
            Node::Negate { ops, member } => self.visit_unary("-_", ops, *member),
            Node::UnaryErr { start } => {
                let off = self.tok_off(*start);
                Ok(self.expr(off, ExprKind::Literal(Literal::String("<<error>>".into()))))
            }
            Node::Ident { start, dot, id } => Ok(self.visit_ident(*start, *dot, *id)),
            Node::GlobalCall {
                start,
                dot,
                id,
                op,
                args,
            } => self.visit_global_call(*start, *dot, *id, *op, *args),
            Node::Select {
                start,
                member,
                op,
                opt,
                id,
            } => {
                self.enter()?;
                let r = self.visit_select(*start, *member, *op, *opt, *id);
                self.depth -= 1;
                r
            }
            Node::MemberCall {
                start,
                member,
                id,
                open,
                args,
            } => {
                self.enter()?;
                let r = self.visit_member_call(*start, *member, *id, *open, *args);
                self.depth -= 1;
                r
            }
            Node::Index {
                start,
                member,
                op,
                opt,
                index,
            } => {
                self.enter()?;
                let r = self.visit_index(*start, *member, *op, *opt, *index);
                self.depth -= 1;
                r
            }
            Node::CreateList { op, elems } => self.visit_list(*op, *elems),
            Node::CreateStruct { op, entries } => self.visit_map(*op, *entries),
            Node::CreateMessage {
                dot,
                ids,
                op,
                entries,
            } => self.visit_message(*dot, ids, *op, *entries),
            Node::Int { start, sign, tok } => Ok(self.visit_int(*start, *sign, *tok)),
            Node::Uint { start, tok } => Ok(self.visit_uint(*start, *tok)),
            Node::Double { start, sign, tok } => Ok(self.visit_double(*start, *sign, *tok)),
            Node::Str { start, tok } => Ok(self.visit_string(*start, *tok, false)),
            Node::Bytes { start, tok } => Ok(self.visit_string(*start, *tok, true)),
            Node::Bool { start, value } => {
                let off = self.tok_off(*start);
                Ok(self.expr(off, ExprKind::Literal(Literal::Bool(*value))))
            }
            Node::Null { start } => {
                let off = self.tok_off(*start);
                Ok(self.expr(off, ExprKind::Literal(Literal::Null)))
            }
            Node::PrimaryErr => Ok(self.unknown("<<*gen.PrimaryContext>>")),
            Node::LiteralErr => Ok(self.unknown("<<*gen.LiteralContext>>")),
            _ => Ok(self.unknown("<<unexpected>>")),
        }
    }

    fn visit_ternary(
        &mut self,
        e: Option<N>,
        op: Option<T>,
        e1: Option<N>,
        e2: Option<N>,
    ) -> V<Expr> {
        let cond = self.visit(e)?;
        let Some(op) = op else {
            return Ok(cond);
        };
        let op_id = self.new_id();
        let op_off = self.tok_off(op);
        let t = self.visit(e1)?;
        let f = self.visit(e2)?;
        Ok(self.global_call_or_macro(op_id, op_off, "_?_:_", vec![cond, t, f]))
    }

    fn visit_logical(
        &mut self,
        function: &str,
        start: T,
        e: Option<N>,
        ops: &[T],
        rest: &[N],
    ) -> V<Expr> {
        let first = self.visit(e)?;
        if ops.is_empty() {
            return Ok(first);
        }
        let mut terms: Vec<Option<Expr>> = Vec::with_capacity(ops.len() + 1);
        terms.push(Some(first));
        let mut op_ids = Vec::with_capacity(ops.len());
        for (i, op) in ops.iter().enumerate() {
            let Some(&r) = rest.get(i) else {
                let off = self.tok_off(start);
                return Ok(self.report(
                    Some(off),
                    format!("unexpected character, wanted '{}'", &function[1..3]),
                ));
            };
            let next = self.visit(Some(r))?;
            let id = self.new_id();
            op_ids.push((id, self.tok_off(*op)));
            terms.push(Some(next));
        }
        Ok(balance(function, &mut terms, &op_ids, 0, op_ids.len() - 1))
    }

    fn visit_binary(&mut self, start: T, lhs: Option<N>, op: Option<T>, rhs: Option<N>) -> V<Expr> {
        let name = op.and_then(|o| self.rec.text_ref(o)).and_then(operator);
        let (Some(op), Some(name)) = (op, name) else {
            let off = self.tok_off(start);
            return Ok(self.report(Some(off), "operator not found".into()));
        };
        let l = self.visit(lhs)?;
        let op_id = self.new_id();
        let op_off = self.tok_off(op);
        let r = self.visit(rhs)?;
        Ok(self.global_call_or_macro(op_id, op_off, name, vec![l, r]))
    }

    fn visit_unary(&mut self, function: &str, ops: &[T], member: Option<N>) -> V<Expr> {
        if ops.len().is_multiple_of(2) {
            return self.visit(member);
        }
        let op_id = self.new_id();
        let op_off = ops.first().map(|t| self.tok_off(*t)).unwrap_or(0);
        let target = self.visit(member)?;
        Ok(self.global_call_or_macro(op_id, op_off, function, vec![target]))
    }

    fn visit_ident(&mut self, start: T, dot: Option<T>, id: Option<T>) -> Expr {
        let Some(id) = id else {
            let off = self.tok_off(start);
            return self.placeholder(off);
        };
        let text = self.rec.text(id);
        if reserved(&text) {
            let off = self.tok_off(start);
            return self.report(Some(off), format!("reserved identifier: {text}"));
        }
        let name = if dot.is_some() {
            format!(".{text}")
        } else {
            text.into_owned()
        };
        let off = self.tok_off(id);
        self.expr(off, ExprKind::Ident(name))
    }

    fn visit_global_call(
        &mut self,
        start: T,
        dot: Option<T>,
        id: Option<T>,
        op: Option<T>,
        args: Option<N>,
    ) -> V<Expr> {
        let Some(id) = id else {
            let off = self.tok_off(start);
            return Ok(self.placeholder(off));
        };
        let text = self.rec.text(id);
        if reserved(&text) {
            let off = self.tok_off(start);
            return Ok(self.report(Some(off), format!("reserved identifier: {text}")));
        }
        let name = if dot.is_some() {
            Cow::Owned(format!(".{text}"))
        } else {
            text
        };
        let op_id = self.new_id();
        let op_off = op.map(|o| self.tok_off(o)).unwrap_or(0);
        let args = self.visit_expr_list(args)?;
        Ok(self.global_call_or_macro(op_id, op_off, &name, args))
    }

    fn visit_expr_list(&mut self, args: Option<N>) -> V<Vec<Expr>> {
        let Some(Node::ExprList { es }) = args.and_then(|a| self.node(a)) else {
            return Ok(Vec::new());
        };
        let mut out = Vec::with_capacity(es.len());
        for e in es {
            out.push(self.visit(Some(*e))?);
        }
        Ok(out)
    }

    /// The field name of an `escapeIdent` node; a backquoted name without the escape
    /// syntax is `Some(Err(_))` (cel-go reports ``unsupported syntax: '`'``).
    fn ident_name(&self, n: Option<N>) -> Option<Result<String, ()>> {
        match n.and_then(|n| self.node(n))? {
            Node::SimpleIdent { id } => Some(Ok(id
                .map(|t| self.rec.text(t).into_owned())
                .unwrap_or_default())),
            Node::EscIdent { .. } if !self.escaped_idents => Some(Err(())),
            Node::EscIdent { id, .. } => {
                let text = id.map(|t| self.rec.text(t)).unwrap_or_default();
                let inner = text
                    .strip_prefix('`')
                    .and_then(|s| s.strip_suffix('`'))
                    .unwrap_or_default();
                Some(Ok(inner.to_string()))
            }
            _ => None,
        }
    }

    fn ident_start(&self, n: Option<N>) -> Option<u32> {
        match n.and_then(|n| self.node(n))? {
            Node::SimpleIdent { id: Some(t) } => Some(self.tok_off(*t)),
            Node::EscIdent { start, .. } => Some(self.tok_off(*start)),
            _ => None,
        }
    }

    fn visit_select(
        &mut self,
        start: T,
        member: N,
        op: Option<T>,
        opt: Option<T>,
        id: Option<N>,
    ) -> V<Expr> {
        let operand = self.visit(Some(member))?;
        let (Some(op), Some(name)) = (op, self.ident_name(id)) else {
            let off = self.tok_off(start);
            return Ok(self.placeholder(off));
        };
        let name = name.unwrap_or_else(|()| {
            let at = self.ident_start(id);
            self.report(at, UNSUPPORTED_ESCAPE.into());
            String::new()
        });
        let op_off = self.tok_off(op);
        if opt.is_some() {
            if !self.optional_syntax {
                return Ok(self.report(Some(op_off), "unsupported syntax '.?'".into()));
            }
            let id_off = self.ident_start(id).unwrap_or(op_off);
            let field = self.expr(id_off, ExprKind::Literal(Literal::String(name)));
            return Ok(self.expr(
                op_off,
                ExprKind::Call {
                    target: None,
                    function: "_?._".into(),
                    args: vec![operand, field],
                },
            ));
        }
        Ok(self.expr(
            op_off,
            ExprKind::Select {
                operand: Box::new(operand),
                field: name,
                test_only: false,
            },
        ))
    }

    fn visit_member_call(
        &mut self,
        start: T,
        member: N,
        id: Option<T>,
        open: Option<T>,
        args: Option<N>,
    ) -> V<Expr> {
        let operand = self.visit(Some(member))?;
        let Some(id) = id else {
            let off = self.tok_off(start);
            return Ok(self.placeholder(off));
        };
        let name = self.rec.text(id);
        let op_id = self.new_id();
        let op_off = open.map(|o| self.tok_off(o)).unwrap_or(0);
        let args = self.visit_expr_list(args)?;
        Ok(self.receiver_call_or_macro(op_id, op_off, &name, operand, args))
    }

    fn visit_index(
        &mut self,
        start: T,
        member: N,
        op: Option<T>,
        opt: Option<T>,
        index: Option<N>,
    ) -> V<Expr> {
        let target = self.visit(Some(member))?;
        let Some(op) = op else {
            let off = self.tok_off(start);
            return Ok(self.placeholder(off));
        };
        let op_id = self.new_id();
        let op_off = self.tok_off(op);
        let index = self.visit(index)?;
        let mut function = "_[_]";
        if opt.is_some() {
            if !self.optional_syntax {
                return Ok(self.report(Some(op_off), "unsupported syntax '[?'".into()));
            }
            function = "_[?_]";
        }
        Ok(self.global_call_or_macro(op_id, op_off, function, vec![target, index]))
    }

    fn visit_list(&mut self, op: Option<T>, elems: Option<N>) -> V<Expr> {
        let list_id = self.new_id();
        let off = op.map(|o| self.tok_off(o)).unwrap_or(0);
        let mut elements = Vec::new();
        let mut optional_indices = Vec::new();
        if let Some(Node::ListInit { elems }) = elems.and_then(|e| self.node(e)) {
            elements.reserve(elems.len());
            for (i, oe) in elems.iter().enumerate() {
                let (e, opt) = match self.node(*oe) {
                    Some(Node::OptExpr { e, opt, .. }) => (*e, *opt),
                    _ => (None, None),
                };
                let x = self.visit(e)?;
                elements.push(x);
                if let Some(q) = opt {
                    if !self.optional_syntax {
                        let qo = self.tok_off(q);
                        self.report(Some(qo), "unsupported syntax '?'".into());
                        continue;
                    }
                    optional_indices.push(u32::try_from(i).unwrap_or(u32::MAX));
                }
            }
        }
        Ok(Expr::new(
            list_id,
            off,
            ExprKind::List {
                elements,
                optional_indices,
            },
        ))
    }

    fn visit_map(&mut self, op: Option<T>, entries: Option<N>) -> V<Expr> {
        let map_id = self.new_id();
        let off = op.map(|o| self.tok_off(o)).unwrap_or(0);
        let mut out = Vec::new();
        if let Some(Node::MapInits { keys, cols, values }) = entries.and_then(|e| self.node(e)) {
            for (i, col) in cols.iter().enumerate() {
                let col_id = self.new_id();
                let col_off = self.tok_off(*col);
                let (Some(k), Some(v)) = (keys.get(i), values.get(i)) else {
                    out.clear();
                    break;
                };
                let (ke, opt, kstart) = match self.node(*k) {
                    Some(Node::OptExpr { e, opt, start }) => (*e, *opt, *start),
                    _ => (None, None, 0),
                };
                if opt.is_some() && !self.optional_syntax {
                    let so = self.tok_off(kstart);
                    self.report(Some(so), "unsupported syntax '?'".into());
                    continue;
                }
                let key = self.visit(ke)?;
                let value = self.visit(Some(*v))?;
                out.push(MapEntry {
                    id: col_id,
                    offset: col_off,
                    key,
                    value,
                    optional: opt.is_some(),
                });
            }
        }
        Ok(Expr::new(map_id, off, ExprKind::Map { entries: out }))
    }

    fn visit_message(
        &mut self,
        dot: Option<T>,
        ids: &[T],
        op: Option<T>,
        entries: Option<N>,
    ) -> V<Expr> {
        let mut name = ids
            .iter()
            .map(|t| self.rec.text(*t))
            .collect::<Vec<_>>()
            .join(".");
        if dot.is_some() {
            name.insert(0, '.');
        }
        let obj_id = self.new_id();
        let off = op.map(|o| self.tok_off(o)).unwrap_or(0);
        let mut fields_out = Vec::new();
        if let Some(Node::FieldInits {
            start,
            fields,
            cols,
            values,
        }) = entries.and_then(|e| self.node(e))
        {
            for (i, f) in fields.iter().enumerate() {
                let (Some(col), Some(v)) = (cols.get(i), values.get(i)) else {
                    fields_out.clear();
                    break;
                };
                let init_id = self.new_id();
                let col_off = self.tok_off(*col);
                let (opt, ident, fstart) = match self.node(*f) {
                    Some(Node::OptField { opt, ident, start }) => (*opt, *ident, *start),
                    _ => (None, None, 0),
                };
                if opt.is_some() && !self.optional_syntax {
                    let so = self.tok_off(fstart);
                    self.report(Some(so), "unsupported syntax '?'".into());
                    continue;
                }
                let field = match self.ident_name(ident) {
                    Some(Ok(field)) => field,
                    Some(Err(())) => {
                        let so = self.tok_off(*start);
                        self.report(Some(so), UNSUPPORTED_ESCAPE.into());
                        continue;
                    }
                    None => {
                        let so = self.tok_off(*start);
                        self.report(Some(so), "unsupported ident kind".into());
                        continue;
                    }
                };
                let value = self.visit(Some(*v))?;
                fields_out.push(FieldInit {
                    id: init_id,
                    offset: col_off,
                    field,
                    value,
                    optional: opt.is_some(),
                });
            }
        }
        Ok(Expr::new(
            obj_id,
            off,
            ExprKind::Struct {
                type_name: name,
                fields: fields_out,
            },
        ))
    }

    fn visit_int(&mut self, start: T, sign: Option<T>, tok: Option<T>) -> Expr {
        let off = self.tok_off(start);
        let text = tok.map(|t| self.rec.text(t)).unwrap_or_default();
        let (digits, radix) = match text.strip_prefix("0x") {
            Some(h) => (h, 16),
            None => (text.as_ref(), 10),
        };
        let full = if sign.is_some() {
            Cow::Owned(format!("-{digits}"))
        } else {
            Cow::Borrowed(digits)
        };
        match i64::from_str_radix(&full, radix) {
            Ok(v) if !full.is_empty() => self.expr(off, ExprKind::Literal(Literal::Int(v))),
            _ => self.report(Some(off), "invalid int literal".into()),
        }
    }

    fn visit_uint(&mut self, start: T, tok: Option<T>) -> Expr {
        let off = self.tok_off(start);
        let text = tok.map(|t| self.rec.text(t)).unwrap_or_default();
        let text = text.get(..text.len().saturating_sub(1)).unwrap_or_default();
        let (digits, radix) = match text.strip_prefix("0x") {
            Some(h) => (h, 16),
            None => (text, 10),
        };
        match u64::from_str_radix(digits, radix) {
            Ok(v) => self.expr(off, ExprKind::Literal(Literal::Uint(v))),
            Err(_) => self.report(Some(off), "invalid uint literal".into()),
        }
    }

    fn visit_double(&mut self, start: T, sign: Option<T>, tok: Option<T>) -> Expr {
        let off = self.tok_off(start);
        let text = tok.map(|t| self.rec.text(t)).unwrap_or_default();
        let full = if sign.is_some() {
            Cow::Owned(format!("-{text}"))
        } else {
            text
        };
        match full.parse::<f64>() {
            Ok(v) if v.is_finite() => self.expr(off, ExprKind::Literal(Literal::Double(v))),
            _ => self.report(Some(off), "invalid double literal".into()),
        }
    }

    fn visit_string(&mut self, start: T, tok: Option<T>, bytes: bool) -> Expr {
        let off = self.tok_off(start);
        let text = tok.map(|t| self.rec.text(t)).unwrap_or_default();
        let quoted = if bytes {
            text.get(1..).unwrap_or_default()
        } else {
            &text
        };
        match unescape_with(quoted, bytes, self.macros.invalid_code_points_replaced) {
            Ok(v) => {
                let lit = if bytes {
                    Literal::Bytes(v)
                } else {
                    Literal::String(String::from_utf8(v).unwrap_or_default())
                };
                self.expr(off, ExprKind::Literal(lit))
            }
            Err(msg) => {
                self.errs.semantic(Some(off), msg.to_string());
                let lit = if bytes {
                    Literal::Bytes(quoted.as_bytes().to_vec())
                } else {
                    Literal::String(quoted.to_string())
                };
                self.expr(off, ExprKind::Literal(lit))
            }
        }
    }

    fn global_call_or_macro(
        &mut self,
        id: ExprId,
        off: u32,
        function: &str,
        args: Vec<Expr>,
    ) -> Expr {
        self.call_or_macro(id, off, function, None, args)
    }

    fn receiver_call_or_macro(
        &mut self,
        id: ExprId,
        off: u32,
        function: &str,
        target: Expr,
        args: Vec<Expr>,
    ) -> Expr {
        self.call_or_macro(id, off, function, Some(target), args)
    }

    fn call_or_macro(
        &mut self,
        id: ExprId,
        off: u32,
        function: &str,
        target: Option<Expr>,
        args: Vec<Expr>,
    ) -> Expr {
        match call_or_macro(
            &mut self.next_id,
            self.macros,
            id,
            off,
            function,
            target,
            args,
        ) {
            Ok(e) => e,
            Err(e) => self.report(Some(e.offset), e.message),
        }
    }
}

/// A call node with id `id` at `off`, or the expansion of the macro it names (`id` is
/// then given back when no id was allocated after it).
pub(super) fn call_or_macro(
    next_id: &mut ExprId,
    set: MacroSet,
    id: ExprId,
    off: u32,
    function: &str,
    target: Option<Expr>,
    args: Vec<Expr>,
) -> Result<Expr, MacroError> {
    if let Some(m) = macros::lookup(function, args.len(), target.is_some(), set) {
        let mut h = Helper::new(next_id, off, set);
        let r = macros::expand(m, &mut h, target, args);
        if id + 1 == *next_id {
            *next_id -= 1;
        }
        return r;
    }
    Ok(Expr::new(
        id,
        off,
        ExprKind::Call {
            target: target.map(Box::new),
            function: function.to_string(),
            args,
        },
    ))
}

/// Builds the balanced tree of a logical chain: `terms[lo..=hi+1]` joined by the
/// operators `ops[lo..=hi]` (ids and offsets), rooted at the middle operator.
pub(super) fn balance(
    function: &str,
    terms: &mut [Option<Expr>],
    ops: &[(ExprId, u32)],
    lo: usize,
    hi: usize,
) -> Expr {
    let mid = (lo + hi).div_ceil(2);
    let take = |terms: &mut [Option<Expr>], i: usize| {
        terms
            .get_mut(i)
            .and_then(Option::take)
            .unwrap_or_else(|| Expr::new(0, 0, ExprKind::Literal(Literal::Null)))
    };
    let left = if mid == lo {
        take(terms, mid)
    } else {
        balance(function, terms, ops, lo, mid - 1)
    };
    let right = if mid == hi {
        take(terms, mid + 1)
    } else {
        balance(function, terms, ops, mid + 1, hi)
    };
    let (id, off) = ops.get(mid).copied().unwrap_or((0, 0));
    Expr::new(
        id,
        off,
        ExprKind::Call {
            target: None,
            function: function.to_string(),
            args: vec![left, right],
        },
    )
}
