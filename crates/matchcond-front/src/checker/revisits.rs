//! Nodes checked more than once: cel-go before v0.18 (Kubernetes 1.30 and older) expands
//! `optMap` and `optFlatMap` with their target itself under both `hasValue()` and `value()`,
//! so its checker checks the target's nodes twice (four times inside another such macro's
//! target). Its type map keeps the first type set for a node id; a later check that gives
//! the node a type not exactly the same — an empty list or map literal, a call of a generic
//! function: fresh type variables each time — is reported, with the node as protobuf's text
//! format prints it (as the checker has rewritten it by then) and both types as
//! `types.Type.String()` prints them:
//! `incompatible type already exists for expression: id:2 call_expr:{function:"optional.none"}(2) old:optional(_var0), new:optional(_var3)`.

use std::fmt::Write;

use super::Checker;
use crate::ast::{Expr, ExprId, ExprKind, Literal};
use crate::types::Type;

/// How cel-go's checker rewrites a node it resolves.
#[derive(Clone, Copy, Debug)]
pub(super) enum Renamed<'a> {
    /// An identifier or a qualified name (`a.b.c` selections) resolved to a declaration:
    /// an identifier of the declared name.
    Ident(&'a str),
    /// A call resolved to a global function (`optional.none()`): the function's name and no
    /// target.
    Global(&'a str),
}

impl<'a> Checker<'a> {
    /// Records how cel-go's checker rewrites a node it resolves (only where nodes are
    /// checked again, [`super::CheckerEnv::one_type_per_node`]).
    pub(super) fn note_renamed(&mut self, e: &Expr, r: Renamed<'a>) {
        if self.env.one_type_per_node {
            self.renamed.push((e.id, r));
        }
    }

    /// Keeps the type of a node's first check: a later check giving another type is
    /// reported, and the node keeps the first type (cel-go's `setType`).
    pub(super) fn keep_first_type(&mut self, e: &'a Expr, t: Type) -> Type {
        let i = e.id as usize;
        if self.node_types.len() <= i {
            self.node_types.resize(i + 1, None);
        }
        let Some(slot) = self.node_types.get_mut(i) else {
            return t;
        };
        match slot {
            None => {
                *slot = Some(t.clone());
                t
            }
            Some(old) if old.is_equivalent(&t) => t,
            Some(old) => {
                let old = old.clone();
                let optional = if self.env.optional_named_optional {
                    "optional"
                } else {
                    "optional_type"
                };
                let mut msg = String::from("incompatible type already exists for expression: ");
                write_node(e, &self.renamed, &mut TextWriter::new(&mut msg));
                let _ = write!(msg, "({}) old:", e.id);
                let _ = old.write_runtime(optional, "error", &mut msg);
                msg.push_str(", new:");
                let _ = t.write_runtime(optional, "error", &mut msg);
                self.error(e, msg);
                old
            }
        }
    }
}

/// How the node `id` was rewritten, if it was.
fn renamed<'a>(renames: &[(ExprId, Renamed<'a>)], id: ExprId) -> Option<Renamed<'a>> {
    renames
        .iter()
        .rev()
        .find(|(i, _)| *i == id)
        .map(|(_, r)| *r)
}

/// Writes a node as protobuf-go's compact text format prints cel-go's `Expr` message, with
/// the rewrites cel-go's checker made to it and its children.
fn write_node(e: &Expr, renames: &[(ExprId, Renamed<'_>)], w: &mut TextWriter<'_>) {
    let child = |name: &str, e: &Expr, w: &mut TextWriter<'_>| {
        w.open(name);
        write_node(e, renames, w);
        w.close();
    };
    w.scalar("id", &e.id.to_string());
    if let Some(Renamed::Ident(name)) = renamed(renames, e.id) {
        w.open("ident_expr");
        w.string("name", name.as_bytes());
        w.close();
        return;
    }
    match &e.kind {
        ExprKind::Literal(l) => {
            w.open("const_expr");
            match l {
                Literal::Null => w.scalar("null_value", "NULL_VALUE"),
                Literal::Bool(b) => w.scalar("bool_value", if *b { "true" } else { "false" }),
                Literal::Int(i) => w.scalar("int64_value", &i.to_string()),
                Literal::Uint(u) => w.scalar("uint64_value", &u.to_string()),
                Literal::Double(d) => w.scalar("double_value", &go_float(*d)),
                Literal::String(s) => w.string("string_value", s.as_bytes()),
                Literal::Bytes(b) => w.string("bytes_value", b),
            }
            w.close();
        }
        ExprKind::Ident(name) => {
            w.open("ident_expr");
            w.string("name", name.as_bytes());
            w.close();
        }
        ExprKind::Select {
            operand,
            field,
            test_only,
        } => {
            w.open("select_expr");
            child("operand", operand, w);
            w.string("field", field.as_bytes());
            if *test_only {
                w.scalar("test_only", "true");
            }
            w.close();
        }
        ExprKind::Call {
            target,
            function,
            args,
        } => {
            w.open("call_expr");
            match renamed(renames, e.id) {
                Some(Renamed::Global(name)) => w.string("function", name.as_bytes()),
                _ => {
                    if let Some(t) = target {
                        child("target", t, w);
                    }
                    w.string("function", function.as_bytes());
                }
            }
            for a in args {
                child("args", a, w);
            }
            w.close();
        }
        ExprKind::List {
            elements,
            optional_indices,
        } => {
            w.open("list_expr");
            for el in elements {
                child("elements", el, w);
            }
            for i in optional_indices {
                w.scalar("optional_indices", &i.to_string());
            }
            w.close();
        }
        ExprKind::Map { entries } => {
            w.open("struct_expr");
            for en in entries {
                w.open("entries");
                w.scalar("id", &en.id.to_string());
                child("map_key", &en.key, w);
                child("value", &en.value, w);
                if en.optional {
                    w.scalar("optional_entry", "true");
                }
                w.close();
            }
            w.close();
        }
        ExprKind::Struct { type_name, fields } => {
            w.open("struct_expr");
            w.string("message_name", type_name.as_bytes());
            for f in fields {
                w.open("entries");
                w.scalar("id", &f.id.to_string());
                w.string("field_key", f.field.as_bytes());
                child("value", &f.value, w);
                if f.optional {
                    w.scalar("optional_entry", "true");
                }
                w.close();
            }
            w.close();
        }
        ExprKind::Comprehension(c) => {
            w.open("comprehension_expr");
            w.string("iter_var", c.iter_var.as_bytes());
            child("iter_range", &c.iter_range, w);
            w.string("accu_var", c.accu_var.as_bytes());
            child("accu_init", &c.accu_init, w);
            child("loop_condition", &c.loop_condition, w);
            child("loop_step", &c.loop_step, w);
            child("result", &c.result, w);
            w.close();
        }
    }
}

/// protobuf-go's compact text format: `name:value` fields, `name:{…}` messages, a space
/// between a field and the next.
struct TextWriter<'o> {
    out: &'o mut String,
    /// The last thing written ends a field (a value or a closing brace).
    after_field: bool,
}

impl<'o> TextWriter<'o> {
    fn new(out: &'o mut String) -> Self {
        TextWriter {
            out,
            after_field: false,
        }
    }

    fn name(&mut self, name: &str) {
        if self.after_field {
            self.out.push(' ');
        }
        self.out.push_str(name);
        self.out.push(':');
    }

    fn scalar(&mut self, name: &str, value: &str) {
        self.name(name);
        self.out.push_str(value);
        self.after_field = true;
    }

    /// A string or bytes field, quoted as protobuf-go quotes it: `"`, `\` and control
    /// characters escaped, C1 controls as `\u00XX`, bytes that are not UTF-8 as `\xXX`,
    /// other characters as they are.
    fn string(&mut self, name: &str, value: &[u8]) {
        self.name(name);
        let out = &mut *self.out;
        out.push('"');
        for chunk in value.utf8_chunks() {
            for c in chunk.valid().chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    c if c < ' ' || c == '\u{7f}' => {
                        let _ = write!(out, "\\x{:02x}", u32::from(c));
                    }
                    c if ('\u{80}'..='\u{9f}').contains(&c) => {
                        let _ = write!(out, "\\u{:04x}", u32::from(c));
                    }
                    c => out.push(c),
                }
            }
            for b in chunk.invalid() {
                let _ = write!(out, "\\x{b:02x}");
            }
        }
        out.push('"');
        self.after_field = true;
    }

    fn open(&mut self, name: &str) {
        self.name(name);
        self.out.push('{');
        self.after_field = false;
    }

    fn close(&mut self) {
        self.out.push('}');
        self.after_field = true;
    }
}

/// A double as protobuf-go's text format writes it: Go's `strconv.FormatFloat(v, 'g', -1,
/// 64)` (`1.5`, `1e+06`, `1.5e-05`), `nan`, `inf`, `-inf`.
fn go_float(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.into();
    }
    matchcond_gocompat::fmt::format_g(v)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::checker::{check, CheckerEnv};
    use crate::decls::{Function, Overload};
    use crate::{parse, ParserOptions};

    fn node_text(src: &str, renames: &[(ExprId, Renamed<'_>)]) -> String {
        let parsed = parse(src, &ParserOptions::default()).unwrap();
        let mut out = String::new();
        write_node(&parsed.expr, renames, &mut TextWriter::new(&mut out));
        out
    }

    #[test]
    fn nodes_are_written_in_protobuf_text_format() {
        assert_eq!(
            node_text("f(a.b, 1u, -2, 3.5, 'q', b'r', null, true)", &[]),
            "id:1 call_expr:{function:\"f\" args:{id:3 select_expr:{operand:{id:2 \
             ident_expr:{name:\"a\"}} field:\"b\"}} args:{id:4 const_expr:{uint64_value:1}} \
             args:{id:5 const_expr:{int64_value:-2}} args:{id:6 const_expr:{double_value:3.5}} \
             args:{id:7 const_expr:{string_value:\"q\"}} args:{id:8 const_expr:{bytes_value:\"r\"}} \
             args:{id:9 const_expr:{null_value:NULL_VALUE}} args:{id:10 const_expr:{bool_value:true}}}"
        );
        assert_eq!(
            node_text("[x, ?y, has(m.g)]", &[]),
            "id:1 list_expr:{elements:{id:2 ident_expr:{name:\"x\"}} elements:{id:3 \
             ident_expr:{name:\"y\"}} elements:{id:7 select_expr:{operand:{id:5 \
             ident_expr:{name:\"m\"}} field:\"g\" test_only:true}} optional_indices:1}"
        );
        assert_eq!(
            node_text("{'k': v, ?'o': w}", &[]),
            "id:1 struct_expr:{entries:{id:2 map_key:{id:3 const_expr:{string_value:\"k\"}} \
             value:{id:4 ident_expr:{name:\"v\"}}} entries:{id:5 map_key:{id:6 \
             const_expr:{string_value:\"o\"}} value:{id:7 ident_expr:{name:\"w\"}} \
             optional_entry:true}}"
        );
        assert_eq!(
            node_text("[1].exists(i, true)", &[]),
            "id:13 comprehension_expr:{iter_var:\"i\" iter_range:{id:1 list_expr:{elements:{id:2 \
             const_expr:{int64_value:1}}}} accu_var:\"@result\" accu_init:{id:6 \
             const_expr:{bool_value:false}} loop_condition:{id:9 call_expr:{function:\"@not_strictly_false\" \
             args:{id:8 call_expr:{function:\"!_\" args:{id:7 ident_expr:{name:\"@result\"}}}}}} \
             loop_step:{id:11 call_expr:{function:\"_||_\" args:{id:10 ident_expr:{name:\"@result\"}} \
             args:{id:5 const_expr:{bool_value:true}}}} result:{id:12 ident_expr:{name:\"@result\"}}}"
        );
        // As the checker rewrites them: a qualified name resolved to a variable, a call of
        // a namespaced function.
        assert_eq!(
            node_text(
                "[a.b.c, .x, ns.f(1)]",
                &[
                    (4, Renamed::Ident("a.b.c")),
                    (5, Renamed::Ident("x")),
                    (7, Renamed::Global("ns.f"))
                ]
            ),
            "id:1 list_expr:{elements:{id:4 ident_expr:{name:\"a.b.c\"}} elements:{id:5 \
             ident_expr:{name:\"x\"}} elements:{id:7 call_expr:{function:\"ns.f\" args:{id:8 \
             const_expr:{int64_value:1}}}}}"
        );
    }

    fn shared_text(src: &str) -> String {
        let options = ParserOptions {
            shared_macro_nodes: true,
            enable_hidden_accumulator_name: false,
            ..ParserOptions::default()
        };
        let parsed = parse(src, &options).unwrap();
        let mut out = String::new();
        write_node(&parsed.expr, &[], &mut TextWriter::new(&mut out));
        out
    }

    #[test]
    fn expansions_share_nodes_as_cel_go_0_17_builds_them() {
        // One accumulator identifier (6) in the step and as the result.
        assert_eq!(
            shared_text("[1].map(x, x)"),
            "id:11 comprehension_expr:{iter_var:\"x\" iter_range:{id:1 list_expr:{elements:{id:2 \
             const_expr:{int64_value:1}}}} accu_var:\"__result__\" accu_init:{id:7 list_expr:{}} \
             loop_condition:{id:8 const_expr:{bool_value:true}} loop_step:{id:10 \
             call_expr:{function:\"_+_\" args:{id:6 ident_expr:{name:\"__result__\"}} args:{id:9 \
             list_expr:{elements:{id:5 ident_expr:{name:\"x\"}}}}}} result:{id:6 \
             ident_expr:{name:\"__result__\"}}}"
        );
        assert_eq!(
            shared_text("[1].filter(x, true)"),
            "id:12 comprehension_expr:{iter_var:\"x\" iter_range:{id:1 list_expr:{elements:{id:2 \
             const_expr:{int64_value:1}}}} accu_var:\"__result__\" accu_init:{id:7 list_expr:{}} \
             loop_condition:{id:8 const_expr:{bool_value:true}} loop_step:{id:11 \
             call_expr:{function:\"_?_:_\" args:{id:5 const_expr:{bool_value:true}} args:{id:10 \
             call_expr:{function:\"_+_\" args:{id:6 ident_expr:{name:\"__result__\"}} args:{id:9 \
             list_expr:{elements:{id:4 ident_expr:{name:\"x\"}}}}}} args:{id:6 \
             ident_expr:{name:\"__result__\"}}}} result:{id:6 ident_expr:{name:\"__result__\"}}}"
        );
        // One literal 1 (7) in the step and the result.
        assert_eq!(
            shared_text("[1].exists_one(x, true)"),
            "id:15 comprehension_expr:{iter_var:\"x\" iter_range:{id:1 list_expr:{elements:{id:2 \
             const_expr:{int64_value:1}}}} accu_var:\"__result__\" accu_init:{id:6 \
             const_expr:{int64_value:0}} loop_condition:{id:8 const_expr:{bool_value:true}} \
             loop_step:{id:12 call_expr:{function:\"_?_:_\" args:{id:5 const_expr:{bool_value:true}} \
             args:{id:10 call_expr:{function:\"_+_\" args:{id:9 ident_expr:{name:\"__result__\"}} \
             args:{id:7 const_expr:{int64_value:1}}}} args:{id:11 ident_expr:{name:\"__result__\"}}}} \
             result:{id:14 call_expr:{function:\"_==_\" args:{id:13 ident_expr:{name:\"__result__\"}} \
             args:{id:7 const_expr:{int64_value:1}}}}}"
        );
        // The target (1, 2) under both `hasValue()` and `value()`.
        assert_eq!(
            shared_text("o.optMap(v, v)"),
            "id:13 call_expr:{function:\"_?_:_\" args:{id:5 call_expr:{target:{id:1 \
             ident_expr:{name:\"o\"}} function:\"hasValue\"}} args:{id:11 \
             call_expr:{function:\"optional.of\" args:{id:10 comprehension_expr:{iter_var:\"#unused\" \
             iter_range:{id:6 list_expr:{}} accu_var:\"v\" accu_init:{id:7 call_expr:{target:{id:1 \
             ident_expr:{name:\"o\"}} function:\"value\"}} loop_condition:{id:8 \
             const_expr:{bool_value:false}} loop_step:{id:9 ident_expr:{name:\"v\"}} result:{id:4 \
             ident_expr:{name:\"v\"}}}}}} args:{id:12 call_expr:{function:\"optional.none\"}}}"
        );
    }

    /// `optMap`'s functions, as the optional library declares them.
    fn optional_env() -> CheckerEnv {
        let a = || Type::param("A");
        let o = |t: Type| Type::optional(t);
        let f = |name, id, member, params: Vec<Type>, result| Function {
            name,
            overloads: vec![Overload {
                id,
                member,
                params,
                result,
            }],
        };
        let mut env = CheckerEnv {
            one_type_per_node: true,
            optional_named_optional: true,
            ..CheckerEnv::default()
        };
        env.add_functions(vec![
            f("optional.none", "optional_none", false, vec![], o(a())),
            f("optional.of", "optional_of", false, vec![a()], o(a())),
            f(
                "hasValue",
                "optional_hasValue",
                true,
                vec![o(a())],
                Type::Bool,
            ),
            f("value", "optional_value", true, vec![o(a())], a()),
            f(
                "_?_:_",
                "conditional",
                false,
                vec![Type::Bool, a(), a()],
                a(),
            ),
        ]);
        env
    }

    fn check_errors(src: &str, env: &CheckerEnv, shared: bool) -> Vec<(u32, String)> {
        let options = ParserOptions {
            shared_macro_nodes: shared,
            ..ParserOptions::default()
        };
        let parsed = parse(src, &options).unwrap();
        match check(&parsed.expr, env) {
            Ok(_) => Vec::new(),
            Err(issues) => issues
                .iter()
                .map(|i| (i.offset().unwrap_or(u32::MAX), i.message().to_string()))
                .collect(),
        }
    }

    #[test]
    fn a_shared_target_keeps_its_first_type_and_reports_the_second() {
        let env = optional_env();
        assert_eq!(
            check_errors("optional.none().optMap(v, v)", &env, true),
            [(
                13,
                "incompatible type already exists for expression: id:2 \
                 call_expr:{function:\"optional.none\"}(2) old:optional(_var0), \
                 new:optional(_var3)"
                    .to_string()
            )]
        );
        // A target whose type has no fresh type variable checks the same twice.
        assert_eq!(check_errors("optional.of(1).optMap(v, v)", &env, true), []);
        // Copied with fresh ids, the target is checked as a node of its own.
        assert_eq!(
            check_errors("optional.none().optMap(v, v)", &env, false),
            []
        );
        let mut unchecked = env.clone();
        unchecked.one_type_per_node = false;
        assert_eq!(
            check_errors("optional.none().optMap(v, v)", &unchecked, true),
            []
        );
    }

    #[test]
    fn doubles_are_written_as_go_formats_them() {
        for (v, text) in [
            (1.5, "1.5"),
            (-2.0, "-2"),
            (0.0, "0"),
            (1e6, "1e+06"),
            (123456.0, "123456"),
            (1.5e-5, "1.5e-05"),
            (0.0001, "0.0001"),
            (1e21, "1e+21"),
            (1.2345678e-7, "1.2345678e-07"),
            (0.1, "0.1"),
            (100.25, "100.25"),
            (1e100, "1e+100"),
        ] {
            assert_eq!(go_float(v), text, "{v}");
        }
    }

    #[test]
    fn strings_are_quoted_as_protobuf_go_quotes_them() {
        let mut out = String::new();
        let mut w = TextWriter::new(&mut out);
        w.string("s", "a\"b\\c\n\t\u{1}\u{7f}\u{85}é😀".as_bytes());
        w.string("b", b"\xc3\xa9\xff\x00");
        assert_eq!(out, r#"s:"a\"b\\c\n\t\x01\x7f\u0085é😀" b:"é\xff\x00""#);
    }

    #[test]
    fn types_are_written_as_cel_go_v0_17_prints_them() {
        let mut out = String::new();
        let t = Type::map(
            Type::Timestamp,
            Type::optional(Type::list(Type::param("_var3"))),
        );
        t.write_runtime("optional", "error", &mut out).unwrap();
        assert_eq!(out, "map(google.protobuf.Timestamp, optional(list(_var3)))");
    }
}
