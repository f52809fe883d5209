//! The validators cel-go runs on a type-checked expression, as the apiserver configures them:
//! the literal validators (Kubernetes 1.29+: a literal argument of `duration()` or
//! `timestamp()` must convert, the first literal argument of `matches` must be a valid regular
//! expression), the strings extension's `format` validator (Kubernetes 1.31+: a literal format
//! string against a list literal of arguments) and the homogeneous aggregate literal validator.

use matchcond_front::ast::{Expr, ExprKind, Literal};
use matchcond_front::checker::{format_type_as, Checked, Reference};
use matchcond_front::{Issue, Type};
use matchcond_runtime::libraries::strings::{parse_format_clause, FormatClause};
use matchcond_runtime::libraries::{compile_regex, implementation};
use matchcond_runtime::value::{Str, Value};

use crate::env::{Features, FormatValidation};

/// Which call validators run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CallValidators {
    /// `duration()`, `timestamp()` and `matches` literals (1.29+).
    pub literals: bool,
    /// `string.format` calls.
    pub format: FormatValidation,
}

impl CallValidators {
    pub(crate) fn for_features(features: &Features) -> Self {
        CallValidators {
            literals: features.literal_validators,
            format: features.format_validation,
        }
    }

    fn any(&self) -> bool {
        self.literals || self.format != FormatValidation::Off
    }
}

/// Walks the tree and reports what the literal validators and the `format` validator
/// report, in the order cel-go's validators run (the literal validators first).
pub(crate) fn validate_calls(
    e: &Expr,
    checked: &Checked<'_>,
    validators: CallValidators,
    issues: &mut Vec<Issue>,
) {
    if !validators.any() {
        return;
    }
    let mut format_issues = Vec::new();
    let mut walk = Walk {
        checked,
        validators,
        literal_issues: issues,
        format_issues: &mut format_issues,
    };
    walk.visit(e, 0);
    issues.append(&mut format_issues);
}

struct Walk<'w, 'c> {
    checked: &'w Checked<'c>,
    validators: CallValidators,
    literal_issues: &'w mut Vec<Issue>,
    format_issues: &'w mut Vec<Issue>,
}

/// Whether `duration(lit)` / `timestamp(lit)` evaluates without error, as cel-go's validator
/// finds out by planning and evaluating the call on its own: the overload is chosen by the
/// literal's type, and a literal no overload takes (a `null`) fails.
fn conversion_succeeds(function: &str, lit: &Literal) -> bool {
    let (overload, arg) = match (function, lit) {
        ("duration", Literal::String(s)) => ("string_to_duration", Value::String(Str::Borrowed(s))),
        ("duration", Literal::Int(i)) => ("int64_to_duration", Value::Int(*i)),
        ("timestamp", Literal::String(s)) => {
            ("string_to_timestamp", Value::String(Str::Borrowed(s)))
        }
        ("timestamp", Literal::Int(i)) => ("int64_to_timestamp", Value::Int(*i)),
        _ => return false,
    };
    match implementation(overload) {
        Some(f) => f(&[arg]).is_ok(),
        None => false,
    }
}

impl Walk<'_, '_> {
    fn visit(&mut self, e: &Expr, depth: u32) {
        if depth > 10_000 {
            return;
        }
        match &e.kind {
            ExprKind::Call {
                target,
                function,
                args,
            } => {
                if self.validators.literals {
                    self.check_literal_argument(function, args);
                }
                if self.validators.format != FormatValidation::Off && function == "format" {
                    if let Some(t) = target {
                        self.check_format(e, t, args);
                    }
                }
                if let Some(t) = target {
                    self.visit(t, depth + 1);
                }
                for a in args {
                    self.visit(a, depth + 1);
                }
            }
            ExprKind::Select { operand, .. } => self.visit(operand, depth + 1),
            ExprKind::List { elements, .. } => {
                for el in elements {
                    self.visit(el, depth + 1);
                }
            }
            ExprKind::Map { entries } => {
                for en in entries {
                    self.visit(&en.key, depth + 1);
                    self.visit(&en.value, depth + 1);
                }
            }
            ExprKind::Struct { fields, .. } => {
                for f in fields {
                    self.visit(&f.value, depth + 1);
                }
            }
            ExprKind::Comprehension(c) => {
                self.visit(&c.iter_range, depth + 1);
                self.visit(&c.accu_init, depth + 1);
                self.visit(&c.loop_condition, depth + 1);
                self.visit(&c.loop_step, depth + 1);
                self.visit(&c.result, depth + 1);
            }
            ExprKind::Literal(_) | ExprKind::Ident(_) => {}
        }
    }

    /// The literal validators: each looks at the first argument (not counting a receiver) of
    /// every call of its function, global or member, when that argument is a literal. For
    /// the global `matches(s, pattern)` that is the string, not the pattern (an invalid
    /// constant pattern there fails when the program is built).
    fn check_literal_argument(&mut self, function: &str, args: &[Expr]) {
        let Some(arg) = args.first() else {
            return;
        };
        let ExprKind::Literal(lit) = &arg.kind else {
            return;
        };
        let valid = match function {
            "duration" | "timestamp" => conversion_succeeds(function, lit),
            "matches" => match lit {
                Literal::String(p) => compile_regex(p).is_ok(),
                _ => true,
            },
            _ => return,
        };
        if !valid {
            self.literal_issues.push(Issue::new(
                Some(arg.offset),
                format!("invalid {function} argument"),
            ));
        }
    }

    /// cel-go's `stringFormatValidator`: a member call `'<literal>'.format([<elements>])`
    /// resolved to the strings extension's overload has its clauses parsed and each clause
    /// checked against the checked type of the element it formats (`dyn` passes), and the
    /// number of elements against the number of clauses.
    fn check_format(&mut self, call: &Expr, target: &Expr, args: &[Expr]) {
        let Some(fmt) = target.as_string_literal() else {
            return;
        };
        let [list] = args else {
            return;
        };
        let ExprKind::List { elements, .. } = &list.kind else {
            return;
        };
        if let Some(Reference::Function {
            function,
            overloads,
            ..
        }) = self.checked.reference(call.id)
        {
            if !overloads
                .overloads(function)
                .any(|o| o.id == "string_format")
            {
                return;
            }
        }
        match self.format_clauses(fmt, elements) {
            Ok(requested) if elements.len() > requested => self.format_issues.push(Issue::new(
                Some(call.offset),
                format!(
                    "too many arguments supplied to string.format (expected {requested}, got {})",
                    elements.len()
                ),
            )),
            Ok(_) => {}
            Err((at, message)) => {
                let message = match self.validators.format {
                    FormatValidation::MessageAsPattern => {
                        matchcond_front::source::sprintf_without_arguments(&message)
                    }
                    _ => message,
                };
                self.format_issues
                    .push(Issue::new(Some(at.unwrap_or(call).offset), message));
            }
        }
    }

    /// Walks the format string as cel-go's `parseFormatString` does with the checker's
    /// callbacks. Returns the number of arguments the clauses ask for, or the first error
    /// with the element it is reported at (`None`: the call).
    fn format_clauses<'e>(
        &self,
        fmt: &str,
        elements: &'e [Expr],
    ) -> Result<usize, (Option<&'e Expr>, String)> {
        let bytes = fmt.as_bytes();
        let mut i = 0;
        let mut arg_index = 0;
        while let Some(&b) = bytes.get(i) {
            if b != b'%' {
                i += 1;
                continue;
            }
            if bytes.get(i + 1) == Some(&b'%') {
                i += 2;
                continue;
            }
            let Some(rest) = bytes.get(i + 1..).filter(|r| !r.is_empty()) else {
                return Err((None, "unexpected end of string".to_string()));
            };
            let Some(element) = elements.get(arg_index) else {
                return Err((None, format!("index {arg_index} out of range")));
            };
            let (read, clause) = parse_format_clause(rest)
                .map_err(|e| (None, format!("could not parse formatting clause: {e}")))?;
            self.check_clause(clause, element)
                .map_err(|(at, e)| (Some(at), format!("error during formatting: {e}")))?;
            i += 1 + read;
            arg_index += 1;
        }
        Ok(arg_index)
    }

    /// The checked type of a list element or map key or value (`dyn` if unknown).
    fn type_of(&self, e: &Expr) -> Type {
        self.checked
            .element_type(e.id)
            .cloned()
            .unwrap_or(Type::Dyn)
    }

    fn check_clause<'e>(
        &self,
        clause: FormatClause,
        element: &'e Expr,
    ) -> Result<(), (&'e Expr, String)> {
        let t = self.type_of(element);
        let (ok, what) = match clause {
            FormatClause::Str => return self.check_string_clause(element),
            FormatClause::Decimal => (
                is_kind(&t, &[Type::Int, Type::Uint]),
                "decimal clause can only be used on integers",
            ),
            FormatClause::Fixed(_) => (
                is_kind(&t, &[Type::Double, Type::String]),
                "fixed-point clause can only be used on doubles",
            ),
            FormatClause::Scientific(_) => (
                is_kind(&t, &[Type::Double, Type::String]),
                "scientific clause can only be used on doubles",
            ),
            FormatClause::Binary => (
                is_kind(&t, &[Type::Int, Type::Uint, Type::Bool]),
                "only integers and bools can be formatted as binary",
            ),
            FormatClause::Hex { .. } => (
                is_kind(&t, &[Type::Int, Type::Uint, Type::String, Type::Bytes]),
                "only integers, byte buffers, and strings can be formatted as hex",
            ),
            FormatClause::Octal => (
                is_kind(&t, &[Type::Int, Type::Uint]),
                "octal clause can only be used on integers",
            ),
        };
        if ok {
            Ok(())
        } else {
            Err((element, format!("{what}, was given {}", type_name(&t))))
        }
    }

    /// `%s`: the element's type must be one `%s` prints, and so must the elements, keys and
    /// values of list and map literals inside it.
    fn check_string_clause<'e>(&self, e: &'e Expr) -> Result<(), (&'e Expr, String)> {
        let mut stack = vec![e];
        while let Some(e) = stack.pop() {
            let t = self.type_of(e);
            let printable = matches!(t, Type::List(_) | Type::Map(..))
                || is_kind(
                    &t,
                    &[
                        Type::Int,
                        Type::Uint,
                        Type::Double,
                        Type::Bool,
                        Type::String,
                        Type::Timestamp,
                        Type::Bytes,
                        Type::Duration,
                        Type::Null,
                    ],
                )
                || matches!(t, Type::Type(_));
            if !printable {
                return Err((
                    e,
                    format!(
                        "string clause can only be used on strings, bools, bytes, ints, doubles, \
                         maps, lists, types, durations, and timestamps, was given {}",
                        type_name(&t)
                    ),
                ));
            }
            match &e.kind {
                ExprKind::List { elements, .. } => stack.extend(elements.iter().rev()),
                ExprKind::Map { entries } => {
                    for en in entries.iter().rev() {
                        stack.push(&en.value);
                        stack.push(&en.key);
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// cel-go's `verifyTypeOneOf`: `dyn` passes, else the type's kind must be one of these
/// (parameters are not looked at).
fn is_kind(t: &Type, kinds: &[Type]) -> bool {
    t.is_dyn()
        || kinds
            .iter()
            .any(|k| std::mem::discriminant(k) == std::mem::discriminant(t))
}

/// The runtime type name of a checked type, as cel-go's `Type.TypeName()` gives it.
fn type_name(t: &Type) -> String {
    match t {
        Type::List(_) => "list".into(),
        Type::Map(..) => "map".into(),
        Type::Optional(_) => "optional_type".into(),
        Type::Type(_) => "type".into(),
        Type::Named(n, _) => n.to_string(),
        other => other.to_string(),
    }
}

/// Functions whose arguments may hold mixed-type literals (`"%s %d".format(["a", 1])`).
const HOMOGENEITY_EXEMPT: [&str; 1] = ["format"];

/// cel-go's homogeneous aggregate literal validator: the elements of a list literal, and the
/// keys and the values of a map literal, must all have the same type (`dyn` included), except
/// inside the arguments of `format` (with `exempt_nested`, cel-go v0.20+: 1.31+, the literals
/// nested in them too; before, only the arguments themselves).
pub(crate) fn validate_homogeneous(
    e: &Expr,
    checked: &Checked,
    issues: &mut Vec<Issue>,
    rules: Homogeneity,
) {
    homogeneous(e, checked, issues, false, 0, rules);
}

/// What the homogeneity check of a cel-go release exempts, and how it names types.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Homogeneity {
    /// Literals nested in `format`'s arguments are exempt too (cel-go v0.20+).
    pub exempt_nested: bool,
    /// The optional type's name in messages (`optional` on cel-go v0.17).
    pub optional_name: &'static str,
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

fn mismatch(e: &Expr, expected: &Type, actual: &Type, issues: &mut Vec<Issue>, rules: Homogeneity) {
    issues.push(Issue::new(
        Some(e.offset),
        format!(
            "expected type '{}' but found '{}'",
            format_type_as(expected, rules.optional_name),
            format_type_as(actual, rules.optional_name)
        ),
    ));
}

fn homogeneous(
    e: &Expr,
    checked: &Checked,
    issues: &mut Vec<Issue>,
    exempt: bool,
    depth: u32,
    rules: Homogeneity,
) {
    if depth > 10_000 {
        return;
    }
    // Before cel-go v0.20 only the literals that are themselves `format`'s arguments are
    // exempt, not literals nested in them (`'%d %f'.format(dyn([1, 2.0]))` is checked).
    let inner = exempt && rules.exempt_nested;
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
                        // cel-go v0.22's untyped type is Go's nil: no first type yet.
                        Some(f) if !f.is_untyped() => {
                            if !f.is_equivalent(&t) {
                                mismatch(el, f, &t, issues, rules);
                                break;
                            }
                        }
                        _ => first = Some(t),
                    }
                }
            }
            for el in elements {
                homogeneous(el, checked, issues, inner, depth + 1, rules);
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
                        // Both untyped (Go's nil in cel-go v0.22): no first entry yet.
                        Some((fk, fv)) if !(fk.is_untyped() && fv.is_untyped()) => {
                            if !fk.is_equivalent(&kt) {
                                mismatch(&en.key, fk, &kt, issues, rules);
                            }
                            if !fv.is_equivalent(&vt) {
                                mismatch(&en.value, fv, &vt, issues, rules);
                            }
                        }
                        _ => first = Some((kt, vt)),
                    }
                }
            }
            for en in entries {
                homogeneous(&en.key, checked, issues, inner, depth + 1, rules);
                homogeneous(&en.value, checked, issues, inner, depth + 1, rules);
            }
        }
        ExprKind::Call {
            target,
            function,
            args,
        } => {
            let exempt = inner || HOMOGENEITY_EXEMPT.contains(&function.as_str());
            if let Some(t) = target {
                homogeneous(t, checked, issues, exempt, depth + 1, rules);
            }
            for a in args {
                homogeneous(a, checked, issues, exempt, depth + 1, rules);
            }
        }
        ExprKind::Select { operand, .. } => {
            homogeneous(operand, checked, issues, inner, depth + 1, rules)
        }
        ExprKind::Struct { fields, .. } => {
            for f in fields {
                homogeneous(&f.value, checked, issues, inner, depth + 1, rules);
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
                homogeneous(x, checked, issues, inner, depth + 1, rules);
            }
        }
        ExprKind::Literal(_) | ExprKind::Ident(_) => {}
    }
}
