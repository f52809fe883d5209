//! Lint warnings: the classic matchConditions traps the Kubernetes documentation names,
//! found on the parsed expression (the AST of `matchcond::syntax`). They are warnings, not
//! validation errors: the apiserver accepts these expressions, but they fail at run time on
//! some requests (and an error rejects the request under `failurePolicy: Fail`).
//!
//! # The traps
//!
//! * **`objectOnDelete`**: `object` is null for DELETE requests, so a *read* of it —
//!   `object.f` or `object[k]` — fails with `no such key`. Reported (once per expression,
//!   at the first such read) when the webhook's rules can match DELETE and the read is not
//!   guarded.
//! * **`oldObjectOnCreate`**: the same for `oldObject`, null for CREATE (and CONNECT)
//!   requests, when the rules can match CREATE or CONNECT.
//! * **`mapKeyWithoutTest`**: reading a map key that may be absent — an index with a string
//!   literal key `m['k']` (on schemaless JSON every string-keyed index is a map lookup), or a
//!   field of a map-typed field `…labels.k` (`labels`, `annotations`, `data`, `stringData`,
//!   `binaryData`, `nodeSelector`, `matchLabels`, `extra`) — fails with `no such key` when
//!   the key is absent. Reported at each unguarded read.
//! * **`multipleAuthorizerChecks`**: more than one authorizer `.check(…)` call in one
//!   expression. Each check costs 350000 against the per-expression cost limit of 1000000
//!   (and the 2500000 shared by all conditions of the webhook), so three checks that all run
//!   exceed the limit. Reported once, at the second check.
//!
//! Reads that cannot fail this way are not reads: optional selection and indexing
//! (`object.?spec`, `m[?'k']`) and everything chained after them, `has(object.f)` (false
//! for a null object), and the root variables themselves (`object == null`).
//!
//! # Guards
//!
//! A read is guarded when the facts known where it is evaluated rule the failure out. The
//! facts are derived from the expression around the read:
//!
//! * In a conjunction `a && b && …`, each operand is evaluated knowing that all the *other*
//!   operands are true; in a disjunction `a || b || …`, knowing that all the others are
//!   false. CEL's `&&` and `||` are commutative over errors (`false && error` is `false`,
//!   `true || error` is `true`), so the order of the operands does not matter.
//! * In `c ? t : f`, `t` knows that `c` is true and `f` that `c` is false.
//! * `request.operation == 'X'`, `!=` and `request.operation in ['X', …]` restrict the
//!   possible operations; `object != null` / `object == null` (and `null` first),
//!   `has(object.…)` tell that `object` is not null (the same for `oldObject`);
//!   `'k' in m`, `has(m.k)` and `has(m)` tell that `m`'s key `k` may be read (`has(m)` is
//!   taken as the author's presence test of the map); `!` swaps true and false.
//! * The possible operations start as the operations of the webhook's rules: a webhook
//!   whose rules do not match DELETE never sees a null `object`.
//!
//! A guard that itself reads a null `object` (`has(object.metadata.labels)` evaluates
//! `object.metadata`) is reported as the read it is.

use matchcond::runtime::cost::AUTHZ_CHECK_COST;
use matchcond::syntax::ast::{Expr, ExprKind, Literal};
use matchcond::syntax::{parse, Location, ParserOptions, Source};
use matchcond::PER_CALL_COST_LIMIT;

/// A set of admission operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ops(u8);

impl Ops {
    /// CREATE.
    pub const CREATE: Ops = Ops(1);
    /// UPDATE.
    pub const UPDATE: Ops = Ops(2);
    /// DELETE.
    pub const DELETE: Ops = Ops(4);
    /// CONNECT.
    pub const CONNECT: Ops = Ops(8);
    /// No operation.
    pub const NONE: Ops = Ops(0);
    /// Every operation.
    pub const ALL: Ops = Ops(15);

    /// The operation of a name (`*` is every operation); `None` for unknown names.
    pub fn named(name: &str) -> Option<Ops> {
        match name {
            "CREATE" => Some(Ops::CREATE),
            "UPDATE" => Some(Ops::UPDATE),
            "DELETE" => Some(Ops::DELETE),
            "CONNECT" => Some(Ops::CONNECT),
            "*" => Some(Ops::ALL),
            _ => None,
        }
    }

    /// The union.
    pub fn union(self, other: Ops) -> Ops {
        Ops(self.0 | other.0)
    }

    fn intersect(self, other: Ops) -> Ops {
        Ops(self.0 & other.0)
    }

    fn complement(self) -> Ops {
        Ops(Ops::ALL.0 & !self.0)
    }

    fn is_disjoint(self, other: Ops) -> bool {
        self.0 & other.0 == 0
    }
}

/// The operations of a webhook's rules (their union; `*` is every operation).
pub fn rule_operations<'a>(operations: impl IntoIterator<Item = &'a str>) -> Ops {
    operations
        .into_iter()
        .filter_map(Ops::named)
        .fold(Ops::NONE, Ops::union)
}

/// Which trap a warning is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trap {
    /// `object` read where it may be null (DELETE).
    ObjectOnDelete,
    /// `oldObject` read where it may be null (CREATE, CONNECT).
    OldObjectOnCreate,
    /// A map key read without a presence test.
    MapKeyWithoutTest,
    /// More than one authorizer check in one expression.
    MultipleAuthorizerChecks,
}

impl Trap {
    /// The trap's key in JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Trap::ObjectOnDelete => "objectOnDelete",
            Trap::OldObjectOnCreate => "oldObjectOnCreate",
            Trap::MapKeyWithoutTest => "mapKeyWithoutTest",
            Trap::MultipleAuthorizerChecks => "multipleAuthorizerChecks",
        }
    }
}

/// One trap found in an expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The trap.
    pub trap: Trap,
    /// The byte offset in the expression the warning points at.
    pub offset: u32,
    /// What is wrong and how to guard it.
    pub message: String,
}

/// A finding located in its expression's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// The finding.
    pub finding: Finding,
    /// Its line and column (1-based, columns in code points).
    pub location: Location,
    /// The source line and the caret under the position, as compile errors show them:
    /// `" | <line>\n | ....^"`.
    pub caret: String,
}

/// Parses an expression and finds its traps, for a webhook whose rules match `ops`.
/// Expressions that do not parse have no findings (their error is reported instead).
pub fn check_expression(text: &str, ops: Ops) -> Vec<Located> {
    let Ok(parsed) = parse(text, &ParserOptions::default()) else {
        return Vec::new();
    };
    analyze(&parsed.expr, ops)
        .into_iter()
        .map(|finding| {
            let (location, caret) = caret(&parsed.source, finding.offset);
            Located {
                finding,
                location,
                caret,
            }
        })
        .collect()
}

/// The location of an offset and its source line with a caret under it, rendered as
/// cel-go renders the snippet of a compile error.
pub fn caret(source: &Source, offset: u32) -> (Location, String) {
    let location = source.location(offset);
    let line = source
        .line_text(location.line)
        .unwrap_or("")
        .replace('\t', " ");
    let mut out = format!(" | {line}\n | ");
    let before = usize::try_from(location.column - 1).unwrap_or(0);
    let mut chars = line.chars();
    for _ in 0..before {
        match chars.next() {
            Some(c) if c.len_utf8() > 1 => out.push('\u{FF0E}'),
            Some(_) => out.push('.'),
            None => break,
        }
    }
    match chars.next() {
        Some(c) if c.len_utf8() > 1 => out.push('\u{FF3E}'),
        _ => out.push('^'),
    }
    (location, out)
}

/// Finds the traps of a parsed expression, for a webhook whose rules match `ops`.
/// Findings are in the order of their positions.
pub fn analyze(expr: &Expr, ops: Ops) -> Vec<Finding> {
    let mut w = Walker::default();
    let facts = Facts {
        ops,
        ..Facts::none()
    };
    w.walk(expr, &facts);
    if w.checks.len() > 1 {
        if let Some(&offset) = w.checks.get(1) {
            let n = w.checks.len();
            let total = AUTHZ_CHECK_COST.saturating_mul(n as u64);
            w.findings.push(Finding {
                trap: Trap::MultipleAuthorizerChecks,
                offset,
                message: format!(
                    "{n} authorizer checks in one expression: each costs {AUTHZ_CHECK_COST} ({total} when all run) against the per-expression cost limit of {PER_CALL_COST_LIMIT}; use one check per condition"
                ),
            });
        }
    }
    w.findings.sort_by_key(|f| f.offset);
    w.findings
}

/// The root variables that can be null.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Var {
    Object,
    OldObject,
}

impl Var {
    fn of(name: &str) -> Option<Var> {
        match name {
            "object" => Some(Var::Object),
            "oldObject" => Some(Var::OldObject),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Var::Object => "object",
            Var::OldObject => "oldObject",
        }
    }

    /// The operations for which the variable is null.
    fn null_ops(self) -> Ops {
        match self {
            Var::Object => Ops::DELETE,
            Var::OldObject => Ops::CREATE.union(Ops::CONNECT),
        }
    }
}

/// What is known at a point of the expression.
#[derive(Clone, Debug, PartialEq)]
struct Facts {
    /// The operations still possible.
    ops: Ops,
    /// `object` is not null.
    object: bool,
    /// `oldObject` is not null.
    old_object: bool,
    /// Paths known present (`'k' in m`, `has(m.k)` give `m.k`; `has(m)` gives `m`).
    present: Vec<Vec<String>>,
}

impl Facts {
    /// Nothing known.
    fn none() -> Facts {
        Facts {
            ops: Ops::ALL,
            object: false,
            old_object: false,
            present: Vec::new(),
        }
    }

    /// Both hold.
    fn and(&self, other: &Facts) -> Facts {
        let mut present = self.present.clone();
        for p in &other.present {
            if !present.contains(p) {
                present.push(p.clone());
            }
        }
        Facts {
            ops: self.ops.intersect(other.ops),
            object: self.object || other.object,
            old_object: self.old_object || other.old_object,
            present,
        }
    }

    /// One of the two holds.
    fn or(&self, other: &Facts) -> Facts {
        Facts {
            ops: self.ops.union(other.ops),
            object: self.object && other.object,
            old_object: self.old_object && other.old_object,
            present: self
                .present
                .iter()
                .filter(|p| other.present.contains(p))
                .cloned()
                .collect(),
        }
    }

    fn non_null(var: Var) -> Facts {
        Facts {
            object: var == Var::Object,
            old_object: var == Var::OldObject,
            ..Facts::none()
        }
    }

    fn with_ops(ops: Ops) -> Facts {
        Facts {
            ops,
            ..Facts::none()
        }
    }

    /// A read of `var` cannot meet a null value.
    fn safe(&self, var: Var) -> bool {
        let known = match var {
            Var::Object => self.object,
            Var::OldObject => self.old_object,
        };
        known || self.ops.is_disjoint(var.null_ops())
    }

    /// The key `key` of the map at `map` may be read.
    fn has_key(&self, map: &[String], key: &str) -> bool {
        self.present.iter().any(|p| {
            p.as_slice() == map
                || (p.len() == map.len() + 1
                    && p.starts_with(map)
                    && p.last().map(String::as_str) == Some(key))
        })
    }
}

/// Fields whose values are maps with optional keys.
const MAP_FIELDS: &[&str] = &[
    "labels",
    "annotations",
    "data",
    "stringData",
    "binaryData",
    "nodeSelector",
    "matchLabels",
    "extra",
];

/// Root variables whose string-keyed indexes are not map lookups of user data.
const NON_MAP_ROOTS: &[&str] = &["request", "authorizer", "namespaceObject"];

fn call<'e>(e: &'e Expr, name: &str) -> Option<&'e [Expr]> {
    match &e.kind {
        ExprKind::Call {
            target: None,
            function,
            args,
        } if function == name => Some(args),
        _ => None,
    }
}

fn string_literal(e: &Expr) -> Option<&str> {
    e.as_string_literal()
}

fn is_null(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Literal(Literal::Null))
}

/// True for expressions whose value is an optional: optional selection and indexing and
/// selections and indexes chained after them.
fn is_optional_valued(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Call {
            target: None,
            function,
            args,
        } => match function.as_str() {
            "_?._" | "_[?_]" => true,
            "_[_]" => args.first().is_some_and(is_optional_valued),
            _ => false,
        },
        ExprKind::Select {
            operand,
            test_only: false,
            ..
        } => is_optional_valued(operand),
        _ => false,
    }
}

/// `true` when a name is a CEL identifier (rendered `.name`, else `['name']`).
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn quote(text: &str) -> String {
    let mut out = String::from("'");
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

fn render_path(path: &[String]) -> String {
    let mut out = String::new();
    for (i, seg) in path.iter().enumerate() {
        if i == 0 {
            out.push_str(seg);
        } else if is_identifier(seg) {
            out.push('.');
            out.push_str(seg);
        } else {
            out.push('[');
            out.push_str(&quote(seg));
            out.push(']');
        }
    }
    out
}

#[derive(Default)]
struct Walker {
    findings: Vec<Finding>,
    reported: [bool; 2],
    /// Names bound by the enclosing comprehensions (they shadow root variables).
    bound: Vec<String>,
    /// Offsets of the authorizer `.check(` calls.
    checks: Vec<u32>,
}

impl Walker {
    /// The root variable an identifier names, unless a comprehension variable shadows it.
    fn root(&self, e: &Expr) -> Option<Var> {
        let name = e.as_ident()?;
        if self.bound.iter().any(|b| b == name) {
            return None;
        }
        Var::of(name)
    }

    fn is_unbound_ident(&self, e: &Expr, name: &str) -> bool {
        e.as_ident() == Some(name) && !self.bound.iter().any(|b| b == name)
    }

    /// `request.operation`.
    fn is_operation(&self, e: &Expr) -> bool {
        matches!(&e.kind, ExprKind::Select { operand, field, test_only: false }
            if field == "operation" && self.is_unbound_ident(operand, "request"))
    }

    /// The path of a selection chain (`object.metadata.labels`, `m['k']`, `c.env`).
    fn path(&self, e: &Expr) -> Option<Vec<String>> {
        match &e.kind {
            ExprKind::Ident(name) => Some(vec![name.clone()]),
            ExprKind::Select {
                operand,
                field,
                test_only: false,
            } => {
                let mut p = self.path(operand)?;
                p.push(field.clone());
                Some(p)
            }
            ExprKind::Call {
                target: None,
                function,
                args,
            } if matches!(function.as_str(), "_[_]" | "_[?_]" | "_?._") => {
                let [operand, key] = args.as_slice() else {
                    return None;
                };
                let mut p = self.path(operand)?;
                p.push(string_literal(key)?.to_owned());
                Some(p)
            }
            _ => None,
        }
    }

    /// The root variable a path starts at.
    fn path_root(&self, path: &[String]) -> Option<Var> {
        let first = path.first()?;
        if self.bound.iter().any(|b| b == first) {
            return None;
        }
        Var::of(first)
    }

    /// Facts from a presence test of `path` (the path's object is then not null).
    fn presence(&self, path: Vec<String>) -> Facts {
        let mut f = match self.path_root(&path) {
            Some(v) => Facts::non_null(v),
            None => Facts::none(),
        };
        f.present.push(path);
        f
    }

    /// The possible operations `request.operation == <literal>` / `in [<literals>]`
    /// allow when true.
    fn operation_set(&self, e: &Expr) -> Option<Ops> {
        match &e.kind {
            ExprKind::Literal(Literal::String(s)) => Some(Ops::named(s).unwrap_or(Ops::NONE)),
            ExprKind::List {
                elements,
                optional_indices,
            } if optional_indices.is_empty() => {
                let mut ops = Ops::NONE;
                for el in elements {
                    let s = string_literal(el)?;
                    ops = ops.union(Ops::named(s).unwrap_or(Ops::NONE));
                }
                Some(ops)
            }
            _ => None,
        }
    }

    /// Facts for `a == b` being true (`equal`) or false (`!equal`).
    fn equality(&self, a: &Expr, b: &Expr, equal: bool) -> Facts {
        for (x, y) in [(a, b), (b, a)] {
            if self.is_operation(x) {
                if let Some(s) = string_literal(y) {
                    let ops = Ops::named(s).unwrap_or(Ops::NONE);
                    return Facts::with_ops(if equal { ops } else { ops.complement() });
                }
            }
            if let (Some(v), true) = (self.root(x), is_null(y)) {
                // `object == null` false, or `object != null` true: not null.
                return if equal {
                    Facts::none()
                } else {
                    Facts::non_null(v)
                };
            }
        }
        Facts::none()
    }

    /// What is known when `e` is true (`value`) or false (`!value`).
    fn facts(&self, e: &Expr, value: bool) -> Facts {
        match &e.kind {
            ExprKind::Select {
                operand,
                field,
                test_only: true,
            } => {
                if !value {
                    return Facts::none();
                }
                match self.path(operand) {
                    Some(mut p) => {
                        p.push(field.clone());
                        self.presence(p)
                    }
                    None => Facts::none(),
                }
            }
            ExprKind::Call {
                target: None,
                function,
                args,
            } => match (function.as_str(), args.as_slice()) {
                ("!_", [x]) => self.facts(x, !value),
                ("_&&_", _) | ("_||_", _) => {
                    let mut operands = Vec::new();
                    flatten(e, function, &mut operands);
                    let parts: Vec<Facts> = operands.iter().map(|o| self.facts(o, value)).collect();
                    // `a && b` true: both true; false: one false. `||` the other way round.
                    let all = (function == "_&&_") == value;
                    let mut iter = parts.iter();
                    let Some(first) = iter.next() else {
                        return Facts::none();
                    };
                    iter.fold(
                        first.clone(),
                        |acc, f| if all { acc.and(f) } else { acc.or(f) },
                    )
                }
                ("_==_", [a, b]) => self.equality(a, b, value),
                ("_!=_", [a, b]) => self.equality(a, b, !value),
                ("@in", [x, container]) => {
                    if self.is_operation(x) {
                        if let (Some(ops), ExprKind::List { .. }) =
                            (self.operation_set(container), &container.kind)
                        {
                            return Facts::with_ops(if value { ops } else { ops.complement() });
                        }
                    }
                    match (value, string_literal(x), self.path(container)) {
                        (true, Some(k), Some(mut p)) => {
                            p.push(k.to_owned());
                            self.presence(p)
                        }
                        _ => Facts::none(),
                    }
                }
                _ => Facts::none(),
            },
            _ => Facts::none(),
        }
    }

    fn report_read(&mut self, var: Var, at: u32, what: String, facts: &Facts) {
        let slot = match var {
            Var::Object => 0,
            Var::OldObject => 1,
        };
        if facts.safe(var) || self.reported.get(slot).copied().unwrap_or(true) {
            return;
        }
        if let Some(r) = self.reported.get_mut(slot) {
            *r = true;
        }
        let name = var.name();
        let message = match var {
            Var::Object => format!(
                "object is null for DELETE requests, where {what} fails; guard it (request.operation != 'DELETE', object != null) or read it optionally ({name}.?field)"
            ),
            Var::OldObject => format!(
                "oldObject is null for CREATE and CONNECT requests, where {what} fails; guard it (request.operation == 'UPDATE', oldObject != null) or read it optionally ({name}.?field)"
            ),
        };
        self.findings.push(Finding {
            trap: match var {
                Var::Object => Trap::ObjectOnDelete,
                Var::OldObject => Trap::OldObjectOnCreate,
            },
            offset: at,
            message,
        });
    }

    /// Reports the read of `key` in `map` (written `map[key]` when `indexed`, else
    /// `map.key`) unless `facts` guard it.
    fn report_key(&mut self, map: &Expr, key: &str, indexed: bool, at: u32, facts: &Facts) {
        let path = self.path(map);
        if let Some(p) = &path {
            if facts.has_key(p, key) {
                return;
            }
        }
        let k = quote(key);
        let message = match path {
            Some(p) => {
                let m = render_path(&p);
                let (read, has) = if is_identifier(key) {
                    let read = if indexed {
                        format!("{m}[{k}]")
                    } else {
                        format!("{m}.{key}")
                    };
                    (read, format!(" (or has({m}.{key}))"))
                } else {
                    (format!("{m}[{k}]"), String::new())
                };
                format!(
                    "{read} fails when the key is absent; test {k} in {m}{has} first, or read it optionally ({m}[?{k}])"
                )
            }
            None => format!(
                "the map key {k} is read without a presence test; test {k} in the map first, or read it optionally ([?{k}])"
            ),
        };
        self.findings.push(Finding {
            trap: Trap::MapKeyWithoutTest,
            offset: at,
            message,
        });
    }

    /// Walks operands of a `&&` or `||` chain: each knows the others' `value`s
    /// (true for `&&`, false for `||`).
    fn walk_chain(&mut self, operands: &[&Expr], value: bool, facts: &Facts) {
        let parts: Vec<Facts> = operands.iter().map(|o| self.facts(o, value)).collect();
        // prefix[i]: the facts of operands before i; suffix[i]: of operands from i on.
        let mut prefix = Vec::with_capacity(parts.len() + 1);
        prefix.push(Facts::none());
        for p in &parts {
            let next = prefix.last().map_or_else(Facts::none, |l: &Facts| l.and(p));
            prefix.push(next);
        }
        let mut suffix = vec![Facts::none(); parts.len() + 1];
        for i in (0..parts.len()).rev() {
            if let (Some(p), Some(after)) = (parts.get(i), suffix.get(i + 1)) {
                let s = after.and(p);
                if let Some(slot) = suffix.get_mut(i) {
                    *slot = s;
                }
            }
        }
        for (i, o) in operands.iter().enumerate() {
            let (Some(before), Some(after)) = (prefix.get(i), suffix.get(i + 1)) else {
                continue;
            };
            let known = facts.and(before).and(after);
            self.walk(o, &known);
        }
    }

    fn walk(&mut self, e: &Expr, facts: &Facts) {
        match &e.kind {
            ExprKind::Literal(_) | ExprKind::Ident(_) => {}
            ExprKind::Select {
                operand,
                field,
                test_only,
            } => {
                if let Some(v) = self.root(operand) {
                    // `has(object.f)` is false for a null object: not a read.
                    if !test_only {
                        let what = render_path(&[v.name().to_owned(), field.clone()]);
                        self.report_read(v, operand.offset, what, facts);
                    }
                    return;
                }
                if !test_only && !is_optional_valued(operand) {
                    if let ExprKind::Select {
                        field: map_field,
                        test_only: false,
                        ..
                    } = &operand.kind
                    {
                        if MAP_FIELDS.contains(&map_field.as_str()) {
                            self.report_key(operand, field, false, e.offset, facts);
                        }
                    }
                }
                self.walk(operand, facts);
            }
            ExprKind::Call {
                target,
                function,
                args,
            } => {
                if let Some(t) = target {
                    if function == "check" && args.len() == 1 {
                        self.checks.push(e.offset);
                    }
                    self.walk(t, facts);
                    for a in args {
                        self.walk(a, facts);
                    }
                    return;
                }
                match (function.as_str(), args.as_slice()) {
                    ("_&&_", _) | ("_||_", _) => {
                        let mut operands = Vec::new();
                        flatten(e, function, &mut operands);
                        self.walk_chain(&operands, function == "_&&_", facts);
                    }
                    ("_?_:_", [c, t, f]) => {
                        self.walk(c, facts);
                        let when_true = facts.and(&self.facts(c, true));
                        let when_false = facts.and(&self.facts(c, false));
                        self.walk(t, &when_true);
                        self.walk(f, &when_false);
                    }
                    ("_[_]", [m, k]) => {
                        if let Some(v) = self.root(m) {
                            let what = match string_literal(k) {
                                Some(s) => format!("{}[{}]", v.name(), quote(s)),
                                None => format!("{}[…]", v.name()),
                            };
                            self.report_read(v, m.offset, what, facts);
                        } else if let Some(key) = string_literal(k) {
                            let root_excluded = m.as_ident().is_some_and(|n| {
                                NON_MAP_ROOTS.contains(&n) && !self.bound.iter().any(|b| b == n)
                            });
                            if !root_excluded
                                && !is_optional_valued(m)
                                && !matches!(m.kind, ExprKind::Map { .. })
                            {
                                self.report_key(m, key, true, e.offset, facts);
                            }
                        }
                        self.walk(m, facts);
                        self.walk(k, facts);
                    }
                    _ => {
                        for a in args {
                            self.walk(a, facts);
                        }
                    }
                }
            }
            ExprKind::List { elements, .. } => {
                for el in elements {
                    self.walk(el, facts);
                }
            }
            ExprKind::Map { entries } => {
                for en in entries {
                    self.walk(&en.key, facts);
                    self.walk(&en.value, facts);
                }
            }
            ExprKind::Struct { fields, .. } => {
                for f in fields {
                    self.walk(&f.value, facts);
                }
            }
            ExprKind::Comprehension(c) => {
                self.walk(&c.iter_range, facts);
                self.walk(&c.accu_init, facts);
                let depth = self.bound.len();
                self.bound.push(c.iter_var.clone());
                if let Some(v2) = &c.iter_var2 {
                    self.bound.push(v2.clone());
                }
                self.bound.push(c.accu_var.clone());
                self.walk(&c.loop_condition, facts);
                self.walk(&c.loop_step, facts);
                self.walk(&c.result, facts);
                self.bound.truncate(depth);
            }
        }
    }
}

/// The operands of a chain of the same logical operator.
fn flatten<'e>(e: &'e Expr, function: &str, out: &mut Vec<&'e Expr>) {
    match call(e, function) {
        Some(args) => {
            for a in args {
                flatten(a, function, out);
            }
        }
        None => out.push(e),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn traps(text: &str, ops: Ops) -> Vec<(Trap, String)> {
        check_expression(text, ops)
            .into_iter()
            .map(|l| {
                let col = usize::try_from(l.location.column - 1).unwrap();
                let at: String = text.chars().skip(col).take(12).collect();
                (l.finding.trap, at)
            })
            .collect()
    }

    fn kinds(text: &str) -> Vec<Trap> {
        traps(text, Ops::ALL).into_iter().map(|t| t.0).collect()
    }

    fn clean(text: &str) {
        assert_eq!(check_expression(text, Ops::ALL), Vec::new(), "{text}");
    }

    #[test]
    fn object_reads_without_guard() {
        assert_eq!(
            traps("object.metadata.name == 'x'", Ops::ALL),
            [(Trap::ObjectOnDelete, "object.metad".to_owned())]
        );
        assert_eq!(
            traps(
                "request.namespace == 'a' && object['spec'] != null",
                Ops::ALL
            ),
            [(Trap::ObjectOnDelete, "object['spec".to_owned())]
        );
        // Once per expression and variable, at the first read.
        assert_eq!(
            traps("object.a == 1 || object.b == 2", Ops::ALL),
            [(Trap::ObjectOnDelete, "object.a == ".to_owned())]
        );
        // Inside a comprehension.
        assert_eq!(
            kinds("object.spec.containers.all(c, c.image != '')"),
            [Trap::ObjectOnDelete]
        );
        // A guard that does not guard: `request.operation == 'DELETE'` conjoined.
        assert_eq!(
            kinds("request.operation == 'DELETE' && object.x == 1"),
            [Trap::ObjectOnDelete]
        );
        assert_eq!(
            kinds("request.operation != 'CREATE' && object.x == 1"),
            [Trap::ObjectOnDelete]
        );
        // A read cannot guard another.
        assert_eq!(
            kinds("object.metadata.name == 'a' && object.spec.x == 1"),
            [Trap::ObjectOnDelete]
        );
        // has() of a deeper path reads object.metadata, which fails on DELETE.
        assert_eq!(
            traps("has(object.metadata.labels)", Ops::ALL),
            [(Trap::ObjectOnDelete, "object.metad".to_owned())]
        );
    }

    #[test]
    fn object_guards() {
        clean("request.operation != 'DELETE' && object.x == 1");
        clean("object.x == 1 && request.operation != 'DELETE'");
        clean("'DELETE' != request.operation && object.x == 1");
        clean("object == null || object.x == 1");
        clean("null == object || object.x == 1");
        clean("object != null && object.x == 1");
        clean("request.operation == 'DELETE' || object.x == 1");
        clean("request.operation in ['CREATE', 'UPDATE'] && object.spec.replicas > 1");
        clean("!(request.operation in ['DELETE', 'CONNECT']) && object.spec.replicas > 1");
        clean("!(request.operation == 'DELETE' || object == null) && object.x == 1");
        clean("request.operation == 'CREATE' && object.x == 1");
        clean("object != null ? object.x == 1 : false");
        clean("object == null ? false : object.x == 1");
        clean("has(object.spec) && object.spec.replicas > 1");
        clean("has(object.metadata)");
        clean("object.?metadata.?labels['app'].orValue('') == 'web'");
        clean("object[?'metadata'].hasValue()");
        clean("object.?spec.replicas.orValue(0) > 1");
        clean("object == null");
        // Nested: the guard of an outer conjunction reaches inner expressions.
        clean("request.operation != 'DELETE' && (object.a == 1 || object.b == 2)");
        clean("request.operation == 'UPDATE' && [1].all(i, object.x == i)");
        // A comprehension variable named object is not the root variable.
        clean("[{'a': 1}].all(object, object.a == 1)");
    }

    #[test]
    fn rules_without_delete_need_no_guard() {
        let create_update = Ops::CREATE.union(Ops::UPDATE);
        assert_eq!(traps("object.x == 1", create_update), []);
        assert_eq!(
            traps("object.x == oldObject.x", create_update),
            [(Trap::OldObjectOnCreate, "oldObject.x".to_owned())]
        );
        assert_eq!(traps("object.x == oldObject.x", Ops::UPDATE), []);
        assert_eq!(traps("object.x == 1", Ops::NONE), []);
        assert_eq!(
            rule_operations(["CREATE", "UPDATE"]),
            Ops::CREATE.union(Ops::UPDATE)
        );
        assert_eq!(rule_operations(["*"]), Ops::ALL);
        assert_eq!(rule_operations(["PATCH"]), Ops::NONE);
        assert_eq!(rule_operations([]), Ops::NONE);
    }

    #[test]
    fn old_object_reads() {
        assert_eq!(
            traps("oldObject.spec != object.spec", Ops::ALL),
            [
                (Trap::OldObjectOnCreate, "oldObject.sp".to_owned()),
                (Trap::ObjectOnDelete, "object.spec".to_owned())
            ]
        );
        clean("request.operation != 'UPDATE' || object.spec != oldObject.spec");
        clean("request.operation == 'UPDATE' && object.spec != oldObject.spec");
        clean("oldObject == null || oldObject.spec.replicas != 1");
        // CREATE excluded, CONNECT still possible.
        assert_eq!(
            kinds("request.operation != 'CREATE' && oldObject.x == 1"),
            [Trap::OldObjectOnCreate]
        );
        clean("request.operation in ['UPDATE', 'DELETE'] && oldObject.x == 1");
    }

    #[test]
    fn map_keys() {
        let ops = Ops::CREATE;
        assert_eq!(
            traps("object.metadata.labels['app'] == 'web'", ops),
            [(Trap::MapKeyWithoutTest, "['app'] == '".to_owned())]
        );
        assert_eq!(
            traps("object.metadata.annotations.team == 'a'", ops),
            [(Trap::MapKeyWithoutTest, ".team == 'a'".to_owned())]
        );
        assert_eq!(
            traps("request.userInfo.extra['scopes'].size() > 0", ops),
            [(Trap::MapKeyWithoutTest, "['scopes'].s".to_owned())]
        );
        // Two keys, two warnings; one guarded.
        assert_eq!(
            traps(
                "'a' in object.metadata.labels && object.metadata.labels['a'] == object.metadata.labels['b']",
                ops
            ),
            [(Trap::MapKeyWithoutTest, "['b']".to_owned())]
        );
        // Guarded forms.
        for text in [
            "'app' in labels && labels['app'] == 'x'",
            "has(object.metadata.labels) && object.metadata.labels['app'] == 'x'",
            "has(object.metadata.labels.app) && object.metadata.labels['app'] == 'x'",
            "has(object.metadata.labels) && object.metadata.labels.app == 'x'",
            "!('app' in object.metadata.labels) || object.metadata.labels['app'] == 'x'",
            "'app' in object.metadata.labels ? object.metadata.labels['app'] : ''",
            "object.metadata.labels[?'app'].orValue('') == 'x'",
            "object.metadata.?labels['app'].orValue('') == 'x'",
            "object.metadata.labels.?app.orValue('') == 'x'",
            "{'a': 1}['a'] == 1",
            "request['namespace'] == 'x'",
            "object.spec.containers[0].image == 'x'",
            "object.spec.containers.all(c, 'name' in c && c['name'] != '')",
        ] {
            assert_eq!(traps(text, ops), [], "{text}");
        }
        // Not guarded by a test of another map or key.
        assert_eq!(
            kinds("'app' in object.metadata.annotations && object.metadata.labels['app'] == 'x'")
                .into_iter()
                .filter(|t| *t == Trap::MapKeyWithoutTest)
                .count(),
            1
        );
        assert_eq!(
            traps("'b' in labels && labels['a'] == 'x'", ops),
            [(Trap::MapKeyWithoutTest, "['a'] == 'x'".to_owned())]
        );
    }

    #[test]
    fn brief_guarded_forms_with_operations() {
        // The map test guards the key; the DELETE trap remains only where DELETE is
        // possible (has() of object.metadata.labels reads object.metadata).
        let text = "has(object.metadata.labels) && object.metadata.labels['app'] == 'x'";
        assert_eq!(traps(text, Ops::CREATE.union(Ops::UPDATE)), []);
        assert_eq!(
            traps(text, Ops::ALL),
            [(Trap::ObjectOnDelete, "object.metad".to_owned())]
        );
        clean("request.operation != 'DELETE' && has(object.metadata.labels) && object.metadata.labels['app'] == 'x'");
    }

    #[test]
    fn authorizer_checks() {
        let one = "authorizer.group('').resource('pods').check('get').allowed()";
        clean(one);
        let two = format!("{one} || authorizer.group('').resource('pods').check('list').allowed()");
        let found = check_expression(&two, Ops::ALL);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].finding.trap, Trap::MultipleAuthorizerChecks);
        assert_eq!(
            found[0].finding.message,
            "2 authorizer checks in one expression: each costs 350000 (700000 when all run) against the per-expression cost limit of 1000000; use one check per condition"
        );
        // At the second check's parenthesis.
        let second = two.rfind("check(").unwrap() + "check".len();
        assert_eq!(found[0].finding.offset, u32::try_from(second).unwrap());
        let three = format!("{two} || authorizer.requestResource.check('watch').allowed()");
        let found = check_expression(&three, Ops::ALL);
        assert_eq!(found.len(), 1);
        assert!(found[0].finding.message.starts_with(
            "3 authorizer checks in one expression: each costs 350000 (1050000 when all run)"
        ));
    }

    #[test]
    fn messages_and_carets() {
        let found = check_expression(
            "request.name != '' &&\n  object.metadata.labels['app'] == 'web'",
            Ops::ALL,
        );
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].finding.trap, Trap::ObjectOnDelete);
        assert_eq!(
            found[0].finding.message,
            "object is null for DELETE requests, where object.metadata fails; guard it (request.operation != 'DELETE', object != null) or read it optionally (object.?field)"
        );
        assert_eq!(found[0].location, Location { line: 2, column: 3 });
        assert_eq!(
            found[0].caret,
            " |   object.metadata.labels['app'] == 'web'\n | ..^"
        );
        assert_eq!(found[1].finding.trap, Trap::MapKeyWithoutTest);
        assert_eq!(
            found[1].finding.message,
            "object.metadata.labels['app'] fails when the key is absent; test 'app' in object.metadata.labels (or has(object.metadata.labels.app)) first, or read it optionally (object.metadata.labels[?'app'])"
        );
        assert_eq!(
            found[1].location,
            Location {
                line: 2,
                column: 25
            }
        );
        let found = check_expression(
            "oldObject.metadata.annotations['example.com/x'] == 'é'",
            Ops::UPDATE,
        );
        assert_eq!(
            found[0].finding.message,
            "oldObject.metadata.annotations['example.com/x'] fails when the key is absent; test 'example.com/x' in oldObject.metadata.annotations first, or read it optionally (oldObject.metadata.annotations[?'example.com/x'])"
        );
        let found = check_expression("object.metadata.annotations.team == 'a'", Ops::UPDATE);
        assert_eq!(
            found[0].finding.message,
            "object.metadata.annotations.team fails when the key is absent; test 'team' in object.metadata.annotations (or has(object.metadata.annotations.team)) first, or read it optionally (object.metadata.annotations[?'team'])"
        );
        assert_eq!(
            found[0].caret,
            " | object.metadata.annotations.team == 'a'\n | ...........................^"
        );
        let found = check_expression(
            "[1].exists(x, {'a': x}['b'] == 1) && request.object['k'] == 1",
            Ops::UPDATE,
        );
        assert_eq!(
            found[0].finding.message,
            "request.object['k'] fails when the key is absent; test 'k' in request.object (or has(request.object.k)) first, or read it optionally (request.object[?'k'])"
        );
        let found = check_expression("x()['k'] == 1", Ops::UPDATE);
        assert_eq!(
            found[0].finding.message,
            "the map key 'k' is read without a presence test; test 'k' in the map first, or read it optionally ([?'k'])"
        );
        let found = check_expression("'é' == object.x", Ops::ALL);
        assert_eq!(found[0].caret, " | 'é' == object.x\n | .\u{FF0E}.....^");
        // Unparsable expressions have no findings.
        assert_eq!(check_expression("object.x ==", Ops::ALL), []);
    }
}
