//! Compile-time validation of literal arguments (Kubernetes 1.29+): a constant string
//! passed to `duration()`, `timestamp()` or as the pattern of `matches()` must be valid.

use matchcond_runtime::functions::{compile_regex, implementation};
use matchcond_runtime::value::{Str, Value};
use matchcond_syntax::ast::{Expr, ExprKind};
use matchcond_syntax::Issue;

fn string_literal_valid(overload: &str, s: &str) -> bool {
    match implementation(overload) {
        Some(f) => f(&[Value::String(Str::Borrowed(s))]).is_ok(),
        None => true,
    }
}

/// Walks the tree and reports invalid literal arguments as cel-go's validators do.
pub(crate) fn validate_literals(e: &Expr, issues: &mut Vec<Issue>) {
    visit(e, issues, 0);
}

fn visit(e: &Expr, issues: &mut Vec<Issue>, depth: u32) {
    if depth > 10_000 {
        return;
    }
    match &e.kind {
        ExprKind::Call {
            target,
            function,
            args,
        } => {
            match (function.as_str(), target.as_deref(), args.as_slice()) {
                ("duration", None, [arg]) => {
                    if let Some(s) = arg.as_string_literal() {
                        if !string_literal_valid("string_to_duration", s) {
                            issues.push(Issue {
                                offset: Some(arg.offset),
                                message: "invalid duration argument".into(),
                            });
                        }
                    }
                }
                ("timestamp", None, [arg]) => {
                    if let Some(s) = arg.as_string_literal() {
                        if !string_literal_valid("string_to_timestamp", s) {
                            issues.push(Issue {
                                offset: Some(arg.offset),
                                message: "invalid timestamp argument".into(),
                            });
                        }
                    }
                }
                ("matches", Some(_), [pat]) | ("matches", None, [_, pat]) => {
                    if let Some(p) = pat.as_string_literal() {
                        if compile_regex(p).is_err() {
                            issues.push(Issue {
                                offset: Some(pat.offset),
                                message: "invalid matches argument".into(),
                            });
                        }
                    }
                }
                _ => {}
            }
            if let Some(t) = target {
                visit(t, issues, depth + 1);
            }
            for a in args {
                visit(a, issues, depth + 1);
            }
        }
        ExprKind::Select { operand, .. } => visit(operand, issues, depth + 1),
        ExprKind::List { elements, .. } => {
            for el in elements {
                visit(el, issues, depth + 1);
            }
        }
        ExprKind::Map { entries } => {
            for en in entries {
                visit(&en.key, issues, depth + 1);
                visit(&en.value, issues, depth + 1);
            }
        }
        ExprKind::Struct { fields, .. } => {
            for f in fields {
                visit(&f.value, issues, depth + 1);
            }
        }
        ExprKind::Comprehension(c) => {
            visit(&c.iter_range, issues, depth + 1);
            visit(&c.accu_init, issues, depth + 1);
            visit(&c.loop_condition, issues, depth + 1);
            visit(&c.loop_step, issues, depth + 1);
            visit(&c.result, issues, depth + 1);
        }
        ExprKind::Literal(_) | ExprKind::Ident(_) => {}
    }
}
