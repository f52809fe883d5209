//! A printer of parsed trees in the reference implementation's adorned debug format
//! (`expr^#id:*expr.Kind#`, or `^#id@offset#` with offsets), as cel-go's parser tests print
//! them. Comparisons ignore white space, as the reference tests do ([`strip`]).
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use matchcond_front::ast::{Expr, ExprKind, Literal};

fn go_quote(bytes: &[u8], out: &mut String) {
    out.push('"');
    let mut rest = bytes;
    while !rest.is_empty() {
        let (ch, len) = match std::str::from_utf8(rest) {
            Ok(s) => {
                let c = s.chars().next().unwrap();
                (Some(c), c.len_utf8())
            }
            Err(e) if e.valid_up_to() > 0 => {
                let s = std::str::from_utf8(&rest[..e.valid_up_to()]).unwrap();
                let c = s.chars().next().unwrap();
                (Some(c), c.len_utf8())
            }
            Err(_) => (None, 1),
        };
        match ch {
            None => out.push_str(&format!("\\x{:02x}", rest[0])),
            Some(c) => match c {
                '\x07' => out.push_str("\\a"),
                '\x08' => out.push_str("\\b"),
                '\x0c' => out.push_str("\\f"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\x0b' => out.push_str("\\v"),
                '\\' => out.push_str("\\\\"),
                '"' => out.push_str("\\\""),
                c if c.is_ascii_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
                c => out.push(c),
            },
        }
        rest = &rest[len..];
    }
    out.push('"');
}

fn go_float(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let e = format!("{v:e}");
    let (mant, exp) = e.split_once('e').unwrap();
    let exp: i32 = exp.parse().unwrap();
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.abs())
    } else {
        format!("{v}")
    }
}

fn kind_name(e: &Expr) -> &'static str {
    match &e.kind {
        ExprKind::Literal(l) => match l {
            Literal::Null => "*expr.Constant_NullValue",
            Literal::Bool(_) => "*expr.Constant_BoolValue",
            Literal::Int(_) => "*expr.Constant_Int64Value",
            Literal::Uint(_) => "*expr.Constant_Uint64Value",
            Literal::Double(_) => "*expr.Constant_DoubleValue",
            Literal::String(_) => "*expr.Constant_StringValue",
            Literal::Bytes(_) => "*expr.Constant_BytesValue",
        },
        ExprKind::Ident(_) => "*expr.Expr_IdentExpr",
        ExprKind::Select { .. } => "*expr.Expr_SelectExpr",
        ExprKind::Call { .. } => "*expr.Expr_CallExpr",
        ExprKind::List { .. } => "*expr.Expr_ListExpr",
        ExprKind::Map { .. } | ExprKind::Struct { .. } => "*expr.Expr_StructExpr",
        ExprKind::Comprehension(_) => "*expr.Expr_ComprehensionExpr",
    }
}

/// Prints the tree; `adorn` renders the metadata of a node (id, offset…).
fn debug(e: &Expr, adorn: &dyn Fn(u32, u32, &str) -> String, out: &mut String) {
    match &e.kind {
        ExprKind::Literal(l) => match l {
            Literal::Null => out.push_str("null"),
            Literal::Bool(b) => out.push_str(&b.to_string()),
            Literal::Int(i) => out.push_str(&i.to_string()),
            Literal::Uint(u) => out.push_str(&format!("{u}u")),
            Literal::Double(d) => out.push_str(&go_float(*d)),
            Literal::String(s) => go_quote(s.as_bytes(), out),
            Literal::Bytes(b) => {
                out.push('b');
                go_quote(b, out)
            }
        },
        ExprKind::Ident(n) => out.push_str(n),
        ExprKind::Select {
            operand,
            field,
            test_only,
        } => {
            debug(operand, adorn, out);
            out.push('.');
            out.push_str(field);
            if *test_only {
                out.push_str("~test-only~");
            }
        }
        ExprKind::Call {
            target,
            function,
            args,
        } => {
            if let Some(t) = target {
                debug(t, adorn, out);
                out.push('.');
            }
            out.push_str(function);
            out.push('(');
            debug_list(args, adorn, out);
            out.push(')');
        }
        ExprKind::List { elements, .. } => {
            out.push('[');
            debug_list(elements, adorn, out);
            out.push(']');
        }
        ExprKind::Map { entries } => {
            out.push('{');
            for (i, en) in entries.iter().enumerate() {
                entry_start(i, en.optional, out);
                debug(&en.key, adorn, out);
                out.push(':');
                debug(&en.value, adorn, out);
                out.push_str(&adorn(en.id, en.offset, "*expr.Expr_CreateStruct_Entry"));
            }
            out.push('}');
        }
        ExprKind::Struct { type_name, fields } => {
            out.push_str(type_name);
            out.push('{');
            for (i, f) in fields.iter().enumerate() {
                entry_start(i, f.optional, out);
                out.push_str(&f.field);
                out.push(':');
                debug(&f.value, adorn, out);
                out.push_str(&adorn(f.id, f.offset, "*expr.Expr_CreateStruct_Entry"));
            }
            out.push('}');
        }
        ExprKind::Comprehension(c) => {
            out.push_str("__comprehension__(");
            out.push_str("// Variable\n");
            out.push_str(&c.iter_var);
            out.push(',');
            if let Some(v2) = &c.iter_var2 {
                out.push_str(v2);
                out.push(',');
            }
            out.push_str("// Target\n");
            debug(&c.iter_range, adorn, out);
            out.push_str(",// Accumulator\n");
            out.push_str(&c.accu_var);
            out.push_str(",// Init\n");
            debug(&c.accu_init, adorn, out);
            out.push_str(",// LoopCondition\n");
            debug(&c.loop_condition, adorn, out);
            out.push_str(",// LoopStep\n");
            debug(&c.loop_step, adorn, out);
            out.push_str(",// Result\n");
            debug(&c.result, adorn, out);
            out.push(')');
        }
    }
    out.push_str(&adorn(e.id, e.offset, kind_name(e)));
}

/// The trees, separated by commas.
fn debug_list(es: &[Expr], adorn: &dyn Fn(u32, u32, &str) -> String, out: &mut String) {
    for (i, e) in es.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        debug(e, adorn, out);
    }
}

/// The tree with each node's id and kind.
pub fn with_kinds(e: &Expr) -> String {
    let mut s = String::new();
    debug(e, &|id, _, k| format!("^#{id}:{k}#"), &mut s);
    s
}

/// The tree with each node's id and byte offset.
pub fn with_offsets(e: &Expr) -> String {
    let mut s = String::new();
    debug(e, &|id, off, _| format!("^#{id}@{off}#"), &mut s);
    s
}

/// The text without white space.
pub fn strip(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, ' ' | '\n' | '\t' | '\r'))
        .collect()
}

/// The separator before the `i`th entry of a map or message literal, and its `?`.
fn entry_start(i: usize, optional: bool, out: &mut String) {
    if i > 0 {
        out.push(',');
    }
    if optional {
        out.push('?');
    }
}
