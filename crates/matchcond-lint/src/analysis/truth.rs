//! Conditions whose value the rules already decide: false for every request the rules let
//! through (the webhook is never called), true for every one (the condition never skips),
//! or false for every authenticated user.
//!
//! The condition is evaluated in three-valued logic (true, false, unknown) in every world
//! of the rules (see [`super::scope`]), for an authenticated and for an anonymous user:
//! operation tests are decided by the world, `'system:authenticated' in
//! request.userInfo.groups` (and `system:unauthenticated`, `system:anonymous`) by the
//! user, literals and comparisons of literals by themselves, `!`, `&&`, `||` and `?:` by
//! CEL's rules; everything else is unknown.

use matchcond_front::ast::{Expr, ExprKind, Literal};

use super::scope::{Scope, World};
use crate::finding::Operation;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum T {
    True,
    False,
    Unknown,
}

impl T {
    fn not(self) -> T {
        match self {
            T::True => T::False,
            T::False => T::True,
            T::Unknown => T::Unknown,
        }
    }

    fn of(b: bool) -> T {
        if b {
            T::True
        } else {
            T::False
        }
    }
}

/// What the rules decide about a condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Nothing.
    Open,
    /// False for every request the rules let through.
    NeverTrue,
    /// True for every request the rules let through.
    AlwaysTrue,
    /// False for every authenticated user (true or unknown for anonymous requests only).
    ExcludesAuthenticated,
}

struct Ctx<'a> {
    world: &'a World,
    authenticated: bool,
    bound: Vec<&'a str>,
}

fn is_request_member(ctx: &Ctx<'_>, e: &Expr, path: &[&str]) -> bool {
    let mut e = e;
    for (i, step) in path.iter().enumerate().rev() {
        if i == 0 {
            return e.as_ident() == Some(step) && !ctx.bound.contains(step);
        }
        match &e.kind {
            ExprKind::Select {
                operand,
                field,
                test_only: false,
            } if field == step => e = operand,
            _ => return false,
        }
    }
    false
}

fn literal(e: &Expr) -> Option<&Literal> {
    match &e.kind {
        ExprKind::Literal(l) => Some(l),
        _ => None,
    }
}

fn literal_equal(a: &Literal, b: &Literal) -> Option<bool> {
    use Literal::*;
    Some(match (a, b) {
        (Null, Null) => true,
        (Bool(x), Bool(y)) => x == y,
        (Int(x), Int(y)) => x == y,
        (Uint(x), Uint(y)) => x == y,
        (String(x), String(y)) => x == y,
        (Bytes(x), Bytes(y)) => x == y,
        (Double(x), Double(y)) => x == y,
        _ => return None,
    })
}

fn equality(ctx: &Ctx<'_>, a: &Expr, b: &Expr) -> T {
    if let (Some(x), Some(y)) = (literal(a), literal(b)) {
        return literal_equal(x, y).map_or(T::Unknown, T::of);
    }
    for (x, y) in [(a, b), (b, a)] {
        if let Some(s) = y.as_string_literal() {
            if is_request_member(ctx, x, &["request", "operation"]) {
                return T::of(ctx.world.op.as_str() == s);
            }
            if is_request_member(ctx, x, &["request", "userInfo", "username"])
                && s == "system:anonymous"
            {
                return T::of(!ctx.authenticated);
            }
        }
    }
    T::Unknown
}

fn eval(ctx: &mut Ctx<'_>, e: &Expr) -> T {
    match &e.kind {
        ExprKind::Literal(Literal::Bool(b)) => T::of(*b),
        ExprKind::Call {
            target: None,
            function,
            args,
        } => match (function.as_str(), args.as_slice()) {
            ("!_", [x]) => eval(ctx, x).not(),
            ("_&&_", [a, b]) => match (eval(ctx, a), eval(ctx, b)) {
                (T::False, _) | (_, T::False) => T::False,
                (T::True, T::True) => T::True,
                _ => T::Unknown,
            },
            ("_||_", [a, b]) => match (eval(ctx, a), eval(ctx, b)) {
                (T::True, _) | (_, T::True) => T::True,
                (T::False, T::False) => T::False,
                _ => T::Unknown,
            },
            ("_?_:_", [c, t, f]) => match eval(ctx, c) {
                T::True => eval(ctx, t),
                T::False => eval(ctx, f),
                T::Unknown => match (eval(ctx, t), eval(ctx, f)) {
                    (x, y) if x == y => x,
                    _ => T::Unknown,
                },
            },
            ("_==_", [a, b]) => equality(ctx, a, b),
            ("_!=_", [a, b]) => equality(ctx, a, b).not(),
            ("@in", [x, list]) => {
                if is_request_member(ctx, x, &["request", "operation"]) {
                    if let ExprKind::List {
                        elements,
                        optional_indices,
                    } = &list.kind
                    {
                        if optional_indices.is_empty() {
                            let names: Option<Vec<&str>> =
                                elements.iter().map(Expr::as_string_literal).collect();
                            if let Some(names) = names {
                                return T::of(names.contains(&ctx.world.op.as_str()));
                            }
                        }
                    }
                }
                if is_request_member(ctx, list, &["request", "userInfo", "groups"]) {
                    match x.as_string_literal() {
                        Some("system:authenticated") => return T::of(ctx.authenticated),
                        Some("system:unauthenticated") => return T::of(!ctx.authenticated),
                        _ => {}
                    }
                }
                T::Unknown
            }
            _ => T::Unknown,
        },
        ExprKind::Comprehension(_) => T::Unknown,
        _ => T::Unknown,
    }
}

/// What the rules decide about a condition (`None` for a webhook without worlds).
pub(crate) fn verdict(expr: &Expr, scope: &Scope) -> Verdict {
    if scope.worlds.is_empty() {
        return Verdict::Open;
    }
    let mut values = Vec::new();
    for world in &scope.worlds {
        for authenticated in [true, false] {
            let mut ctx = Ctx {
                world,
                authenticated,
                bound: Vec::new(),
            };
            values.push((authenticated, eval(&mut ctx, expr)));
        }
    }
    if values.iter().all(|(_, v)| *v == T::False) {
        Verdict::NeverTrue
    } else if values.iter().all(|(_, v)| *v == T::True) {
        Verdict::AlwaysTrue
    } else if values.iter().all(|(a, v)| !*a || *v == T::False) {
        Verdict::ExcludesAuthenticated
    } else {
        Verdict::Open
    }
}

/// The operations of the worlds, for messages.
pub(crate) fn scope_operations(scope: &Scope) -> Vec<Operation> {
    scope.operations(scope.all())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use matchcond_front::{parse, ParserOptions};
    use Operation::*;

    fn v(text: &str, ops: &[Operation]) -> Verdict {
        let parsed = parse(text, &ParserOptions::default()).unwrap();
        verdict(&parsed.expr, &Scope::of_operations(ops))
    }

    #[test]
    fn operation_tests_under_the_rules() {
        let cu = &[Create, Update];
        assert_eq!(v("request.operation == 'DELETE'", cu), Verdict::NeverTrue);
        assert_eq!(
            v("request.operation == 'DELETE' && object.x == 1", cu),
            Verdict::NeverTrue
        );
        assert_eq!(
            v("object.x == 1 && 'DELETE' == request.operation", cu),
            Verdict::NeverTrue
        );
        assert_eq!(
            v("request.operation in ['DELETE', 'CONNECT']", cu),
            Verdict::NeverTrue
        );
        assert_eq!(
            v(
                "request.operation == 'CREATE' && request.operation == 'UPDATE'",
                cu
            ),
            Verdict::NeverTrue
        );
        assert_eq!(v("request.operation != 'DELETE'", cu), Verdict::AlwaysTrue);
        assert_eq!(
            v(
                "request.operation != 'CREATE' || request.operation != 'UPDATE'",
                cu
            ),
            Verdict::AlwaysTrue
        );
        assert_eq!(v("request.operation == 'CREATE'", cu), Verdict::Open);
        assert_eq!(
            v("request.operation == 'DELETE' || object.x == 1", cu),
            Verdict::Open
        );
        assert_eq!(
            v(
                "request.operation == 'UPDATE' ? object.x == 1 : false",
                &[Create]
            ),
            Verdict::NeverTrue
        );
        // A comprehension variable named request is not the request.
        assert_eq!(
            v(
                "[{'operation': 'x'}].all(request, request.operation == 'DELETE')",
                cu
            ),
            Verdict::Open
        );
    }

    #[test]
    fn constants_and_users() {
        assert_eq!(v("true", &[Create]), Verdict::AlwaysTrue);
        assert_eq!(v("false || 1 == 2", &[Create]), Verdict::NeverTrue);
        assert_eq!(v("'a' != 'a'", &[Create]), Verdict::NeverTrue);
        assert_eq!(
            v(
                "!('system:authenticated' in request.userInfo.groups)",
                &[Create]
            ),
            Verdict::ExcludesAuthenticated
        );
        assert_eq!(
            v("request.userInfo.username == 'system:anonymous'", &[Create]),
            Verdict::ExcludesAuthenticated
        );
        assert_eq!(
            v(
                "'system:authenticated' in request.userInfo.groups",
                &[Create]
            ),
            Verdict::Open
        );
        assert_eq!(
            v("!('system:nodes' in request.userInfo.groups)", &[Create]),
            Verdict::Open
        );
        assert_eq!(v("true", &[]), Verdict::Open);
    }
}
