//! Compile-time validation of literal arguments (Kubernetes 1.29+): a constant string
//! passed to `duration()`, `timestamp()` or as the pattern of `matches()` must be valid.

use matchcond_runtime::functions::{compile_regex, implementation};
use matchcond_runtime::value::{Str, Value};
use matchcond_syntax::ast::{Expr, ExprKind};
use matchcond_syntax::checker::{format_type, Checked};
use matchcond_syntax::{Issue, Type};

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

/// Functions whose arguments may hold mixed-type literals (`"%s %d".format(["a", 1])`).
const HOMOGENEITY_EXEMPT: [&str; 1] = ["format"];

/// cel-go's homogeneous aggregate literal validator: the elements of a list literal, and the
/// keys and the values of a map literal, must all have the same type (`dyn` included), except
/// inside the arguments of `format`.
pub(crate) fn validate_homogeneous(e: &Expr, checked: &Checked, issues: &mut Vec<Issue>) {
    homogeneous(e, checked, issues, false, 0);
}

fn type_of(checked: &Checked, e: &Expr) -> Type {
    checked.element_type(e.id).cloned().unwrap_or(Type::Dyn)
}

fn unwrap_opt(t: Type) -> Type {
    match t {
        Type::Optional(inner) => (*inner).clone(),
        other => other,
    }
}

fn mismatch(e: &Expr, expected: &Type, actual: &Type, issues: &mut Vec<Issue>) {
    issues.push(Issue {
        offset: Some(e.offset),
        message: format!(
            "expected type '{}' but found '{}'",
            format_type(expected),
            format_type(actual)
        ),
    });
}

fn homogeneous(e: &Expr, checked: &Checked, issues: &mut Vec<Issue>, exempt: bool, depth: u32) {
    if depth > 10_000 {
        return;
    }
    match &e.kind {
        ExprKind::List {
            elements,
            optional_indices,
        } => {
            if !exempt {
                let mut first: Option<Type> = None;
                for (i, el) in elements.iter().enumerate() {
                    let mut t = type_of(checked, el);
                    if optional_indices.iter().any(|&o| o as usize == i) {
                        t = unwrap_opt(t);
                    }
                    match &first {
                        None => first = Some(t),
                        Some(f) if *f != t => {
                            mismatch(el, f, &t, issues);
                            break;
                        }
                        Some(_) => {}
                    }
                }
            }
            for el in elements {
                homogeneous(el, checked, issues, exempt, depth + 1);
            }
        }
        ExprKind::Map { entries } => {
            if !exempt {
                let mut first: Option<(Type, Type)> = None;
                for en in entries {
                    let kt = type_of(checked, &en.key);
                    let mut vt = type_of(checked, &en.value);
                    if en.optional {
                        vt = unwrap_opt(vt);
                    }
                    match &first {
                        None => first = Some((kt, vt)),
                        Some((fk, fv)) => {
                            if *fk != kt {
                                mismatch(&en.key, fk, &kt, issues);
                            }
                            if *fv != vt {
                                mismatch(&en.value, fv, &vt, issues);
                            }
                        }
                    }
                }
            }
            for en in entries {
                homogeneous(&en.key, checked, issues, exempt, depth + 1);
                homogeneous(&en.value, checked, issues, exempt, depth + 1);
            }
        }
        ExprKind::Call {
            target,
            function,
            args,
        } => {
            let exempt = exempt || HOMOGENEITY_EXEMPT.contains(&function.as_str());
            if let Some(t) = target {
                homogeneous(t, checked, issues, exempt, depth + 1);
            }
            for a in args {
                homogeneous(a, checked, issues, exempt, depth + 1);
            }
        }
        ExprKind::Select { operand, .. } => {
            homogeneous(operand, checked, issues, exempt, depth + 1)
        }
        ExprKind::Struct { fields, .. } => {
            for f in fields {
                homogeneous(&f.value, checked, issues, exempt, depth + 1);
            }
        }
        ExprKind::Comprehension(c) => {
            for x in [
                &c.iter_range,
                &c.accu_init,
                &c.loop_condition,
                &c.loop_step,
                &c.result,
            ] {
                homogeneous(x, checked, issues, exempt, depth + 1);
            }
        }
        ExprKind::Literal(_) | ExprKind::Ident(_) => {}
    }
}
