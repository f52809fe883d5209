//! Reads that fail at run time for some of the requests the rules let through, found on the
//! expression with what is known where each read is evaluated.
//!
//! # The reads
//!
//! * **`objectOnDelete`**: `object` is null for DELETE, so `object.f` or `object[k]` fails
//!   with `no such key`. **`oldObjectOnCreate`**: the same for `oldObject`, null for CREATE
//!   and CONNECT. Reported once per expression and variable, at the first unguarded read.
//! * **`connectOptions`**: on CONNECT, `object` is the operation's options object
//!   (`PodExecOptions`, `PodAttachOptions`, `PodPortForwardOptions`, the proxy options),
//!   which has no `metadata`, `spec` or `status`.
//! * **`namespaceObjectNull`**: `namespaceObject` is declared for webhooks but always null,
//!   so any field read of it fails on every request.
//! * **`omittedRequestField`**: members of the request that the apiserver omits when empty
//!   (the request schema's `WhenEmpty::Omitted` members):
//!   `request.namespace` for cluster-scoped resources, `request.name` on CREATE (objects
//!   named by `generateName`), `request.subResource` and `request.requestSubResource` for
//!   main resources, `request.userInfo.uid` and `request.userInfo.extra` for users without
//!   them. Each is reported where the rules let such requests through.
//!   (`request.userInfo.groups` is never empty for requests the apiserver serves: every
//!   user has `system:authenticated` or `system:unauthenticated`.)
//! * **`absentMap`**: a map member that objects may lack (`labels`, `annotations`, `data`,
//!   `stringData`, `binaryData`, `nodeSelector`, `matchLabels`) read with `in` or an index.
//! * **`mapKeyWithoutTest`**: a map key that may be absent, read with an index `m['k']`
//!   or a field `…labels.k`.
//!
//! Reads that cannot fail this way are not reads: optional selection and indexing
//! (`object.?spec`, `m[?'k']`) and everything chained after them, `has(object.f)` (false for
//! a null object), the root variables themselves (`object == null`).
//!
//! # What is known where
//!
//! * The possible requests start as the *worlds* of the webhook's rules (see
//!   [`super::scope`]): a webhook whose rules do not match DELETE never sees a null
//!   `object`.
//! * The conditions of a webhook decide together: a false condition skips the webhook
//!   whatever errors the others have. So each condition is read knowing that every *other*
//!   condition is true.
//! * In `a && b && …` each operand is evaluated knowing the others true; in `a || b || …`,
//!   knowing them false (CEL's `&&` and `||` absorb errors both ways, so the order of the
//!   operands does not matter). In `c ? t : f`, `t` knows `c` true and `f` knows it false.
//! * Tests: `request.operation == 'X'`, `!=`, `in [...]` restrict the operations;
//!   `object != null`, `object == null` (and `null` first), `has(object.f)` tell that the
//!   variable is not null (the same for `oldObject`); `'k' in m` and `has(m.k)` tell that
//!   `m.k` is present (`has(m)` tells that `m` is, not its keys). A presence
//!   test of a deeper path (`has(object.metadata.labels)`, `'labels' in object.metadata`)
//!   tells what is present but not that `object` is not null: it reads `object.metadata`
//!   itself, and fails on DELETE like any other read.

use matchcond_front::ast::{Expr, ExprKind, Literal};
use matchcond_runtime::request_schema::omitted_when_empty;

use super::bind_comprehension;
use super::scope::{op_list, Scope, Worlds};
use crate::finding::{Code, Operation};

/// A trap found in one expression (positions are byte offsets in the expression compiled,
/// that is the trimmed text).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Raw {
    pub(crate) code: Code,
    pub(crate) offset: usize,
    pub(crate) end: usize,
    pub(crate) message: String,
    pub(crate) help: Option<String>,
    /// The worlds where the read fails (`None`: it may fail in every world, whatever the
    /// operation; the failure depends on the object or the user).
    pub(crate) worlds: Option<Worlds>,
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
    fn null_ops(self) -> &'static [Operation] {
        match self {
            Var::Object => &[Operation::Delete],
            Var::OldObject => &[Operation::Create, Operation::Connect],
        }
    }
}

/// What is known at a point of the expression.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Facts {
    /// The worlds still possible.
    worlds: Worlds,
    /// `object` is not null.
    object: bool,
    /// `oldObject` is not null.
    old_object: bool,
    /// Paths known present.
    present: Vec<Vec<String>>,
    /// Lists known to have at least so many elements (by their rendering).
    sizes: Vec<(String, usize)>,
    /// Strings known to start with a text (by their rendering).
    prefixes: Vec<(String, String)>,
}

impl Facts {
    /// Nothing known but the worlds.
    pub(crate) fn worlds(worlds: Worlds) -> Facts {
        Facts {
            worlds,
            object: false,
            old_object: false,
            present: Vec::new(),
            sizes: Vec::new(),
            prefixes: Vec::new(),
        }
    }

    /// Nothing known (every world of a scope).
    fn none(all: Worlds) -> Facts {
        Facts::worlds(all)
    }

    /// Both hold.
    pub(crate) fn and(&self, other: &Facts) -> Facts {
        let mut present = self.present.clone();
        for p in &other.present {
            if !present.contains(p) {
                present.push(p.clone());
            }
        }
        let mut sizes = self.sizes.clone();
        sizes.extend(other.sizes.iter().cloned());
        let mut prefixes = self.prefixes.clone();
        prefixes.extend(other.prefixes.iter().cloned());
        Facts {
            worlds: self.worlds.intersect(other.worlds),
            object: self.object || other.object,
            old_object: self.old_object || other.old_object,
            present,
            sizes,
            prefixes,
        }
    }

    /// One of the two holds.
    fn or(&self, other: &Facts) -> Facts {
        Facts {
            worlds: self.worlds.union(other.worlds),
            object: self.object && other.object,
            old_object: self.old_object && other.old_object,
            present: self
                .present
                .iter()
                .filter(|p| other.present.contains(p))
                .cloned()
                .collect(),
            sizes: self
                .sizes
                .iter()
                .filter_map(|(k, n)| {
                    let m = other.min_size(k);
                    (m > 0).then(|| (k.clone(), m.min(*n)))
                })
                .collect(),
            prefixes: self
                .prefixes
                .iter()
                .filter(|p| other.prefixes.contains(p))
                .cloned()
                .collect(),
        }
    }

    /// The fewest elements the list rendered `key` is known to have.
    fn min_size(&self, key: &str) -> usize {
        self.sizes
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, n)| *n)
            .max()
            .unwrap_or(0)
    }

    fn non_null(&self, var: Var) -> bool {
        match var {
            Var::Object => self.object,
            Var::OldObject => self.old_object,
        }
    }

    fn is_present(&self, path: &[String]) -> bool {
        self.present.iter().any(|p| p.as_slice() == path)
    }

    /// The key `key` of the map at `map` may be read.
    fn has_key(&self, map: &[String], key: &str) -> bool {
        self.present.iter().any(|p| {
            p.len() == map.len() + 1
                && p.starts_with(map)
                && p.last().map(String::as_str) == Some(key)
        })
    }
}

/// Map members that objects may lack altogether.
const ABSENT_MAPS: &[&str] = &[
    "labels",
    "annotations",
    "data",
    "stringData",
    "binaryData",
    "nodeSelector",
    "matchLabels",
];

/// List members that objects may lack altogether (the apiserver omits empty lists).
const ABSENT_LISTS: &[&str] = &[
    "ownerReferences",
    "finalizers",
    "tolerations",
    "initContainers",
    "ephemeralContainers",
    "imagePullSecrets",
    "volumes",
    "env",
    "envFrom",
    "volumeMounts",
];

/// Members of objects that are maps whose keys are optional: the maps objects may lack,
/// and `extra`.
fn is_map_field(name: &str) -> bool {
    ABSENT_MAPS.contains(&name) || name == "extra"
}

/// True when `path` is `request` then a member the request schema omits when empty.
fn is_omitted_request_member(path: &[&str]) -> bool {
    match path {
        ["request", below @ ..] => omitted_when_empty(below),
        _ => false,
    }
}

/// Root variables whose string-keyed indexes are not map lookups of user data.
const NON_MAP_ROOTS: &[&str] = &["request", "authorizer", "namespaceObject"];

/// The members of the options objects `object` is on CONNECT.
const OPTIONS_FIELDS: &[&str] = &[
    "kind",
    "apiVersion",
    "stdin",
    "stdout",
    "stderr",
    "tty",
    "container",
    "command",
    "ports",
    "path",
];

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

/// A non-negative integer literal.
fn int_literal(e: &Expr) -> Option<u64> {
    match e.kind {
        ExprKind::Literal(Literal::Int(n)) => u64::try_from(n).ok(),
        ExprKind::Literal(Literal::Uint(n)) => Some(n),
        _ => None,
    }
}

/// `text.split('sep')`: the text and the separator.
fn split_call(e: &Expr) -> Option<(&Expr, &str)> {
    match &e.kind {
        ExprKind::Call {
            target: Some(t),
            function,
            args,
        } if function == "split" => match args.as_slice() {
            [sep] => Some((t, string_literal(sep)?)),
            _ => None,
        },
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

pub(crate) fn quote(text: &str) -> String {
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

/// `object.metadata.?labels[?'k']`: the path read optionally from its second member on.
fn optional_path(path: &[String], key: Option<&str>) -> String {
    let mut out = String::new();
    for (i, seg) in path.iter().enumerate() {
        if i == 0 {
            out.push_str(seg);
        } else if i + 1 == path.len() && is_identifier(seg) {
            out.push_str(".?");
            out.push_str(seg);
        } else if is_identifier(seg) {
            out.push('.');
            out.push_str(seg);
        } else {
            out.push_str(&format!("[?{}]", quote(seg)));
        }
    }
    if let Some(k) = key {
        out.push_str(&format!("[?{}]", quote(k)));
    }
    out
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

/// The facts that hold when an expression is true, for the other conditions of the webhook.
pub(crate) fn facts_when_true(expr: &Expr, scope: &Scope) -> Facts {
    let w = Walker::new(scope);
    w.facts(expr, true)
}

/// Finds the failing reads of an expression, evaluated where `known` holds.
pub(crate) fn analyze(expr: &Expr, scope: &Scope, known: &Facts) -> Vec<Raw> {
    let mut w = Walker::new(scope);
    w.walk(expr, known);
    w.findings.sort_by_key(|f| f.offset);
    w.findings
}

struct Walker<'s> {
    scope: &'s Scope,
    findings: Vec<Raw>,
    /// Codes already reported for a variable (once per expression).
    reported: Vec<(Code, &'static str)>,
    /// Names bound by the enclosing comprehensions (they shadow root variables).
    bound: Vec<String>,
}

impl<'s> Walker<'s> {
    fn new(scope: &'s Scope) -> Walker<'s> {
        Walker {
            scope,
            findings: Vec::new(),
            reported: Vec::new(),
            bound: Vec::new(),
        }
    }

    fn all(&self) -> Facts {
        Facts::none(self.scope.all())
    }

    fn is_bound(&self, name: &str) -> bool {
        self.bound.iter().any(|b| b == name)
    }

    /// The root variable an identifier names, unless a comprehension variable shadows it.
    fn root(&self, e: &Expr) -> Option<Var> {
        let name = e.as_ident()?;
        if self.is_bound(name) {
            return None;
        }
        Var::of(name)
    }

    fn is_unbound_ident(&self, e: &Expr, name: &str) -> bool {
        e.as_ident() == Some(name) && !self.is_bound(name)
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
        if self.is_bound(first) {
            return None;
        }
        Var::of(first)
    }

    /// Facts from a presence test of `path`: present; and, for a test of a root variable's
    /// own member (`has(object.f)`), that the variable is not null.
    fn presence(&self, path: Vec<String>) -> Facts {
        let mut f = self.all();
        if path.len() == 2 {
            match self.path_root(&path) {
                Some(Var::Object) => f.object = true,
                Some(Var::OldObject) => f.old_object = true,
                None => {}
            }
        }
        f.present.push(path);
        f
    }

    /// The operations named by a string literal or a list of them.
    fn operation_set(&self, e: &Expr) -> Option<Vec<Operation>> {
        match &e.kind {
            ExprKind::Literal(Literal::String(s)) => {
                Some(Operation::named(s).into_iter().collect())
            }
            ExprKind::List {
                elements,
                optional_indices,
            } if optional_indices.is_empty() => {
                let mut ops = Vec::new();
                for el in elements {
                    ops.extend(Operation::named(string_literal(el)?));
                }
                Some(ops)
            }
            _ => None,
        }
    }

    fn op_facts(&self, ops: &[Operation], holds: bool) -> Facts {
        let with = self.scope.with_ops(ops);
        let worlds = if holds {
            with
        } else {
            self.scope.all().minus(with)
        };
        Facts::worlds(worlds)
    }

    /// Facts for `a == b` being true (`equal`) or false (`!equal`).
    fn equality(&self, a: &Expr, b: &Expr, equal: bool) -> Facts {
        for (x, y) in [(a, b), (b, a)] {
            if self.is_operation(x) {
                if let Some(s) = string_literal(y) {
                    let ops: Vec<Operation> = Operation::named(s).into_iter().collect();
                    return self.op_facts(&ops, equal);
                }
            }
            if let (Some(v), true) = (self.root(x), is_null(y)) {
                let mut f = self.all();
                if !equal {
                    match v {
                        Var::Object => f.object = true,
                        Var::OldObject => f.old_object = true,
                    }
                }
                return f;
            }
        }
        self.all()
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
                    return self.all();
                }
                match self.path(operand) {
                    Some(mut p) => {
                        p.push(field.clone());
                        self.presence(p)
                    }
                    None => self.all(),
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
                        return self.all();
                    };
                    iter.fold(
                        first.clone(),
                        |acc, f| if all { acc.and(f) } else { acc.or(f) },
                    )
                }
                ("_?_:_", [c, t, f]) => {
                    let when_true = self.facts(c, true).and(&self.facts(t, value));
                    let when_false = self.facts(c, false).and(&self.facts(f, value));
                    when_true.or(&when_false)
                }
                ("_==_" | "_!=_" | "_>_" | "_>=_" | "_<_" | "_<=_", [a, b])
                    if self.size_comparison(function, a, b, value).is_some() =>
                {
                    self.size_comparison(function, a, b, value)
                        .unwrap_or_else(|| self.all())
                }
                ("_==_", [a, b]) => self.equality(a, b, value),
                ("_!=_", [a, b]) => self.equality(a, b, !value),
                ("@in", [x, container]) => {
                    if self.is_operation(x) {
                        if let (Some(ops), ExprKind::List { .. }) =
                            (self.operation_set(container), &container.kind)
                        {
                            return self.op_facts(&ops, value);
                        }
                    }
                    match (value, string_literal(x), self.path(container)) {
                        (true, Some(k), Some(mut p)) => {
                            p.push(k.to_owned());
                            let mut f = self.presence(p);
                            // The container itself was found.
                            if let Some(mut c) = self.path(container) {
                                if c.len() > 1 {
                                    f.present.push(std::mem::take(&mut c));
                                }
                            }
                            f
                        }
                        _ => self.all(),
                    }
                }
                _ => self.all(),
            },
            ExprKind::Call {
                target: Some(t),
                function,
                args,
            } if value && function == "startsWith" => {
                let mut f = self.all();
                if let (Some(p), [arg]) = (self.path(t), args.as_slice()) {
                    if let Some(prefix) = string_literal(arg) {
                        f.prefixes.push((render_path(&p), prefix.to_owned()));
                    }
                }
                f
            }
            ExprKind::Literal(Literal::Bool(b)) if *b != value => Facts::worlds(Worlds::NONE),
            _ => self.all(),
        }
    }

    fn once(&mut self, code: Code, key: &'static str) -> bool {
        if self.reported.contains(&(code, key)) {
            return false;
        }
        self.reported.push((code, key));
        true
    }

    /// A first-level read of `object` or `oldObject` (`what`: `object.metadata`).
    fn report_root_read(
        &mut self,
        var: Var,
        field: Option<&str>,
        at: usize,
        what: &str,
        facts: &Facts,
    ) {
        let name = var.name();
        if !facts.non_null(var) {
            let null_worlds = facts.worlds.intersect(self.scope.with_ops(var.null_ops()));
            if !null_worlds.is_empty() && self.once(code_of(var), name) {
                let ops = self.scope.operations(null_worlds);
                let (message, help) = match var {
                    Var::Object => (
                        format!("object is null for {} requests, where {what} fails with \"no such key\"", op_list(&ops)),
                        format!("guard the read: request.operation != 'DELETE' (in this condition or in another one: a false condition skips the webhook) or object != null; or read it optionally ({})", optional_root(var, field)),
                    ),
                    Var::OldObject => (
                        format!("oldObject is null for {} requests, where {what} fails with \"no such key\"", op_list(&ops)),
                        format!("guard the read: request.operation == 'UPDATE' (in this condition or in another one) or oldObject != null; or read it optionally ({})", optional_root(var, field)),
                    ),
                };
                self.findings.push(Raw {
                    code: code_of(var),
                    offset: at,
                    end: at + name.len(),
                    message,
                    help: Some(help),
                    worlds: Some(null_worlds),
                });
            }
        }
        if var == Var::Object {
            let Some(field) = field else { return };
            if OPTIONS_FIELDS.contains(&field) {
                return;
            }
            let connect = facts
                .worlds
                .intersect(self.scope.with_ops(&[Operation::Connect]));
            let tested = facts.is_present(&["object".to_owned(), field.to_owned()]);
            if !connect.is_empty() && !tested && self.once(Code::ConnectOptions, "object") {
                self.findings.push(Raw {
                    code: Code::ConnectOptions,
                    offset: at,
                    end: at + name.len(),
                    message: format!("on CONNECT, object is the operation's options (PodExecOptions, PodAttachOptions, PodPortForwardOptions or a proxy's options), which have no {field}: {what} fails with \"no such key\""),
                    help: Some(format!("exclude CONNECT (request.operation != 'CONNECT', or rules without CONNECT) or test has(object.{field}) first")),
                    worlds: Some(connect),
                });
            }
        }
    }

    /// A member of `request` that the apiserver omits when empty (the request schema's
    /// `WhenEmpty::Omitted` members), read where the rules let it be empty.
    fn report_request_member(&mut self, path: &[String], at: usize, end: usize, facts: &Facts) {
        let p: Vec<&str> = path.iter().map(String::as_str).collect();
        if facts.is_present(path) || !is_omitted_request_member(&p) {
            return;
        }
        let scope = self.scope;
        let (key, worlds, why, help): (&'static str, Option<Worlds>, String, String) = match p.as_slice() {
            ["request", "namespace"] => (
                "namespace",
                Some(facts.worlds.intersect(scope.select(|w| w.cluster_scoped))),
                "request.namespace is absent for cluster-scoped resources, which the rules match".to_owned(),
                "test has(request.namespace) first, or read request.?namespace.orValue('')".to_owned(),
            ),
            ["request", "name"] => (
                "name",
                Some(facts.worlds.intersect(scope.select(|w| w.op == Operation::Create && !w.sub))),
                "request.name is absent on CREATE when the object is named by generateName (as controllers name pods, jobs and replica sets)".to_owned(),
                "test has(request.name) first, or read object.metadata.?name / request.?name.orValue('')".to_owned(),
            ),
            ["request", f @ ("subResource" | "requestSubResource")] => (
                if *f == "subResource" { "subResource" } else { "requestSubResource" },
                Some(facts.worlds.intersect(scope.select(|w| !w.sub))),
                format!("request.{f} is absent when no subresource is requested, which the rules allow"),
                format!("test has(request.{f}) first, or read request.?{f}.orValue('')"),
            ),
            ["request", "userInfo", "uid"] => (
                "uid",
                None,
                "request.userInfo.uid is absent for users without a UID (client certificates, static tokens, most webhook and OIDC authenticators)".to_owned(),
                "test has(request.userInfo.uid) first, or read request.userInfo.?uid.orValue('')".to_owned(),
            ),
            ["request", "userInfo", "extra"] => (
                "extra",
                None,
                "request.userInfo.extra is absent for users without extra attributes (client certificates, static tokens and many other users)".to_owned(),
                "test has(request.userInfo.extra) first, or read request.userInfo.?extra.orValue({})".to_owned(),
            ),
            _ => return,
        };
        if worlds.is_some_and(Worlds::is_empty) {
            return;
        }
        if !self.once(Code::OmittedRequestField, key) {
            return;
        }
        self.findings.push(Raw {
            code: Code::OmittedRequestField,
            offset: at,
            end,
            message: format!("{why}; reading it then fails with \"no such key\""),
            help: Some(help),
            worlds,
        });
    }

    /// True when the map or list at `path` is known present where `facts` hold: tested, a
    /// deeper path tested, or the labels of namespaces (which the apiserver sets).
    fn known_present(&self, path: &[String], facts: &Facts) -> bool {
        if facts.is_present(path)
            || facts
                .present
                .iter()
                .any(|p| p.len() > path.len() && p.starts_with(path))
        {
            return true;
        }
        let labels = path.len() == 3
            && path.get(1).map(String::as_str) == Some("metadata")
            && path.get(2).map(String::as_str) == Some("labels");
        labels
            && facts
                .worlds
                .minus(self.scope.select(|w| w.labelled))
                .is_empty()
    }

    /// `'k' in m`, `m[k]`, `m.k`, a macro, a method or `size()` on a map or list member
    /// that objects may lack.
    fn report_absent_map(
        &mut self,
        map: &[String],
        key: Option<&str>,
        what: &str,
        at: usize,
        facts: &Facts,
    ) -> bool {
        let Some(last) = map.last() else { return false };
        let list = ABSENT_LISTS.contains(&last.as_str());
        if map.len() < 2
            || !(list || ABSENT_MAPS.contains(&last.as_str()))
            || self.path_root(map).is_none()
        {
            return false;
        }
        if self.known_present(map, facts) {
            return false;
        }
        let m = render_path(map);
        let optional = match (key, list) {
            (Some(k), _) => format!("{}.orValue('')", optional_path(map, Some(k))),
            (None, true) => format!("{}.orValue([])", optional_path(map, None)),
            (None, false) => format!("{}.orValue({{}})", optional_path(map, None)),
        };
        self.findings.push(Raw {
            code: Code::AbsentMap,
            offset: at,
            end: at + 1,
            message: format!(
                "{m} is absent on objects without {last}, where {what} fails with \"no such key\""
            ),
            help: Some(format!(
                "test has({m}) first, or read it optionally: {optional}"
            )),
            worlds: None,
        });
        true
    }

    /// The rendering of a list expression, for size facts: a path, or `path.split('x')`.
    fn list_key(&self, e: &Expr) -> Option<String> {
        if let Some(p) = self.path(e) {
            return Some(render_path(&p));
        }
        let (t, sep) = split_call(e)?;
        Some(format!(
            "{}.split({})",
            render_path(&self.path(t)?),
            quote(sep)
        ))
    }

    /// `size(x)` or `x.size()`: `x`.
    fn size_operand<'e>(&self, e: &'e Expr) -> Option<&'e Expr> {
        match &e.kind {
            ExprKind::Call {
                target: None,
                function,
                args,
            } if function == "size" => match args.as_slice() {
                [x] => Some(x),
                _ => None,
            },
            ExprKind::Call {
                target: Some(t),
                function,
                args,
            } if function == "size" && args.is_empty() => Some(t),
            _ => None,
        }
    }

    /// Facts from `size(x) OP n` (or `n OP size(x)`) having `value`: `x` has at least so
    /// many elements, and (a path) is present.
    fn size_comparison(&self, function: &str, a: &Expr, b: &Expr, value: bool) -> Option<Facts> {
        let (x, op, n) = match (
            self.size_operand(a),
            int_literal(b),
            int_literal(a),
            self.size_operand(b),
        ) {
            (Some(x), Some(n), _, _) => (x, function, n),
            (_, _, Some(n), Some(x)) => (
                x,
                match function {
                    "_>_" => "_<_",
                    "_<_" => "_>_",
                    "_>=_" => "_<=_",
                    "_<=_" => "_>=_",
                    other => other,
                },
                n,
            ),
            _ => return None,
        };
        let op = if value {
            op
        } else {
            match op {
                "_>_" => "_<=_",
                "_<=_" => "_>_",
                "_>=_" => "_<_",
                "_<_" => "_>=_",
                "_==_" => "_!=_",
                "_!=_" => "_==_",
                other => other,
            }
        };
        let min = match op {
            "_>_" => n.checked_add(1)?,
            "_>=_" | "_==_" => n,
            "_!=_" if n == 0 => 1,
            _ => return None,
        };
        let min = usize::try_from(min).ok().filter(|m| *m > 0)?;
        let mut f = match self.path(x) {
            Some(p) if p.len() > 1 => self.presence(p),
            _ => self.all(),
        };
        f.sizes.push((self.list_key(x)?, min));
        Some(f)
    }

    /// `list[n]` with a constant `n`, where the list may be shorter (a `split`) or absent
    /// (a list member that objects may lack).
    fn report_list_index(&mut self, list: &Expr, n: u64, at: usize, facts: &Facts) {
        let Some(key) = self.list_key(list) else {
            return;
        };
        let known = u64::try_from(facts.min_size(&key)).unwrap_or(u64::MAX);
        if known > n {
            return;
        }
        let (message, help) = if let Some((text, sep)) = split_call(list) {
            if n == 0 || sep.is_empty() {
                return;
            }
            // A known prefix with n separators makes n + 1 parts.
            if let Some(t) = self.path(text).map(|p| render_path(&p)) {
                let safe = facts.prefixes.iter().any(|(k, prefix)| {
                    *k == t && u64::try_from(prefix.matches(sep).count()).unwrap_or(0) >= n
                });
                if safe {
                    return;
                }
            }
            (
                format!("{key}[{n}] fails with \"index out of bounds: {n}\" when the text has fewer than {n} {} separator(s) (for request.userInfo.username: every user but service accounts)", quote(sep)),
                format!("test size({key}) > {n} (or a prefix with enough separators: startsWith(...)) first, or read it optionally: {key}[?{n}].orValue('')"),
            )
        } else {
            let Some(path) = self.path(list) else { return };
            let Some(last) = path.last() else { return };
            if path.len() < 2
                || !ABSENT_LISTS.contains(&last.as_str())
                || self.path_root(&path).is_none()
            {
                return;
            }
            // Present lists are not empty (the apiserver omits empty lists).
            if n == 0 && self.known_present(&path, facts) {
                return;
            }
            (
                if n == 0 {
                    format!("{key}[0] fails with \"no such key: {last}\" when the list is absent (the apiserver omits empty lists: most objects have no {last})")
                } else {
                    format!("{key}[{n}] fails when the list is absent (\"no such key: {last}\", most objects have no {last}) or has {n} element(s) or fewer (\"index out of bounds: {n}\")")
                },
                if n == 0 {
                    format!(
                        "test has({key}) first (size() of an absent list fails as the index does), or read it optionally: {}[?0]",
                        optional_path(&path, None)
                    )
                } else {
                    format!("test has({key}) && size({key}) > {n} first, or read it optionally: {}[?{n}]", optional_path(&path, None))
                },
            )
        };
        self.findings.push(Raw {
            code: Code::ListIndex,
            offset: at,
            end: at + 1,
            message,
            help: Some(help),
            worlds: None,
        });
    }

    /// Reports the read of `key` in `map` (written `map[key]` when `indexed`, else `map.key`)
    /// unless `facts` guard it.
    fn report_key(&mut self, map: &Expr, key: &str, indexed: bool, at: usize, facts: &Facts) {
        let path = self.path(map);
        if path
            .as_ref()
            .and_then(|p| p.first())
            .is_some_and(|r| r == "namespaceObject" && !self.is_bound(r))
        {
            return;
        }
        if let Some(p) = &path {
            let what = if indexed {
                format!("{}[{}]", render_path(p), quote(key))
            } else {
                format!("{}.{key}", render_path(p))
            };
            if self.report_absent_map(p, Some(key), &what, at, facts) {
                return;
            }
            if facts.has_key(p, key) {
                return;
            }
        }
        let k = quote(key);
        let (message, help) = match path {
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
                (
                    format!("{read} fails with \"no such key\" when the key is absent"),
                    format!("test {k} in {m}{has} first, or read it optionally ({m}[?{k}])"),
                )
            }
            None => (
                format!("the map key {k} is read without a presence test and fails when the key is absent"),
                format!("test {k} in the map first, or read it optionally ([?{k}])"),
            ),
        };
        self.findings.push(Raw {
            code: Code::MapKeyWithoutTest,
            offset: at,
            end: at + 1,
            message,
            help: Some(help),
            worlds: None,
        });
    }

    /// Walks operands of a `&&` or `||` chain: each knows the others' `value`s
    /// (true for `&&`, false for `||`).
    fn walk_chain(&mut self, operands: &[&Expr], value: bool, facts: &Facts) {
        let parts: Vec<Facts> = operands.iter().map(|o| self.facts(o, value)).collect();
        let mut prefix = Vec::with_capacity(parts.len() + 1);
        prefix.push(self.all());
        for p in &parts {
            let next = prefix
                .last()
                .map_or_else(|| self.all(), |l: &Facts| l.and(p));
            prefix.push(next);
        }
        let mut suffix = vec![self.all(); parts.len() + 1];
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
        if facts.worlds.is_empty() {
            // Not evaluated for any request the rules let through (or never decisive).
            return;
        }
        let at = e.offset as usize;
        match &e.kind {
            ExprKind::Literal(_) | ExprKind::Ident(_) => {}
            ExprKind::Select {
                operand,
                field,
                test_only,
            } => {
                if *test_only {
                    // has(x.f): x is read, f is only tested.
                    if self.root(operand).is_none() {
                        self.walk(operand, facts);
                    }
                    return;
                }
                if let Some(v) = self.root(operand) {
                    let what = render_path(&[v.name().to_owned(), field.clone()]);
                    self.report_root_read(v, Some(field), operand.offset as usize, &what, facts);
                    return;
                }
                if self.is_unbound_ident(operand, "namespaceObject") {
                    self.report_namespace_object(operand.offset as usize);
                    return;
                }
                if let Some(p) = self.path(e) {
                    if p.first().map(String::as_str) == Some("request") && !self.is_bound("request")
                    {
                        self.report_request_member(&p, at + 1, at + 1 + field.len(), facts);
                    }
                }
                if !is_optional_valued(operand) {
                    if let ExprKind::Select {
                        field: map_field,
                        test_only: false,
                        ..
                    } = &operand.kind
                    {
                        if is_map_field(map_field) {
                            self.report_key(operand, field, false, at, facts);
                        }
                    }
                }
                self.walk(operand, facts);
            }
            // Member calls: the receiver, then the arguments.
            ExprKind::Call {
                target: Some(t),
                args,
                function,
            } => {
                if function == "size" && args.is_empty() && !is_optional_valued(t) {
                    if let Some(p) = self.path(t) {
                        let what = format!("{}.size()", render_path(&p));
                        self.report_absent_map(&p, None, &what, t.offset as usize, facts);
                    }
                }
                self.walk(t, facts);
                for a in args {
                    self.walk(a, facts);
                }
            }
            ExprKind::Call { function, args, .. } => match (function.as_str(), args.as_slice()) {
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
                ("size", [x]) => {
                    if !is_optional_valued(x) {
                        if let Some(p) = self.path(x) {
                            let what = format!("size({})", render_path(&p));
                            self.report_absent_map(&p, None, &what, x.offset as usize, facts);
                        }
                    }
                    self.walk(x, facts);
                }
                ("_[_]", [m, k]) => {
                    if let (Some(n), false) = (int_literal(k), is_optional_valued(m)) {
                        self.report_list_index(m, n, at, facts);
                    }
                    if let Some(v) = self.root(m) {
                        let what = match string_literal(k) {
                            Some(s) => format!("{}[{}]", v.name(), quote(s)),
                            None => format!("{}[…]", v.name()),
                        };
                        self.report_root_read(
                            v,
                            string_literal(k),
                            m.offset as usize,
                            &what,
                            facts,
                        );
                    } else if self.is_unbound_ident(m, "namespaceObject") {
                        self.report_namespace_object(m.offset as usize);
                        return;
                    } else if let Some(key) = string_literal(k) {
                        let root_excluded = m
                            .as_ident()
                            .is_some_and(|n| NON_MAP_ROOTS.contains(&n) && !self.is_bound(n));
                        if !root_excluded
                            && !is_optional_valued(m)
                            && !matches!(m.kind, ExprKind::Map { .. })
                        {
                            self.report_key(m, key, true, at, facts);
                        }
                    }
                    self.walk(m, facts);
                    self.walk(k, facts);
                }
                ("@in", [k, m]) => {
                    if !is_optional_valued(m) {
                        if let Some(p) = self.path(m) {
                            let what = format!(
                                "{} in {}",
                                string_literal(k).map_or_else(|| "…".to_owned(), quote),
                                render_path(&p)
                            );
                            self.report_absent_map(&p, None, &what, at, facts);
                        }
                    }
                    self.walk(k, facts);
                    self.walk(m, facts);
                }
                _ => {
                    for a in args {
                        self.walk(a, facts);
                    }
                }
            },
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
                if !is_optional_valued(&c.iter_range) {
                    if let Some(p) = self.path(&c.iter_range) {
                        let what = format!(
                            "iterating over {} (all, exists, exists_one, map, filter)",
                            render_path(&p)
                        );
                        self.report_absent_map(
                            &p,
                            None,
                            &what,
                            c.iter_range.offset as usize,
                            facts,
                        );
                    }
                }
                self.walk(&c.iter_range, facts);
                self.walk(&c.accu_init, facts);
                let depth = bind_comprehension(&mut self.bound, c);
                self.walk(&c.loop_condition, facts);
                self.walk(&c.loop_step, facts);
                self.walk(&c.result, facts);
                self.bound.truncate(depth);
            }
        }
    }

    fn report_namespace_object(&mut self, at: usize) {
        if !self.once(Code::NamespaceObjectNull, "namespaceObject") {
            return;
        }
        self.findings.push(Raw {
            code: Code::NamespaceObjectNull,
            offset: at,
            end: at + "namespaceObject".len(),
            message: "namespaceObject is always null in webhook matchConditions (only admission policies bind it): reading its fields fails with \"no such key\" on every request".to_owned(),
            help: Some("select namespaces with the webhook's namespaceSelector, or test request.namespace".to_owned()),
            worlds: Some(self.scope.all()),
        });
    }
}

fn code_of(var: Var) -> Code {
    match var {
        Var::Object => Code::ObjectOnDelete,
        Var::OldObject => Code::OldObjectOnCreate,
    }
}

fn optional_root(var: Var, field: Option<&str>) -> String {
    match field {
        Some(f) if is_identifier(f) => format!("{}.?{f}", var.name()),
        Some(f) => format!("{}[?{}]", var.name(), quote(f)),
        None => format!("{}.?field", var.name()),
    }
}

/// Where an expression uses `params` (not declared for webhooks), from its parse tree.
pub(crate) fn params_use(expr: &Expr) -> Option<usize> {
    fn find(e: &Expr, bound: &mut Vec<String>) -> Option<usize> {
        match &e.kind {
            ExprKind::Ident(n) if n == "params" && !bound.iter().any(|b| b == "params") => {
                Some(e.offset as usize)
            }
            ExprKind::Literal(_) | ExprKind::Ident(_) => None,
            ExprKind::Select { operand, .. } => find(operand, bound),
            ExprKind::Call { target, args, .. } => target
                .as_deref()
                .and_then(|t| find(t, bound))
                .or_else(|| args.iter().find_map(|a| find(a, bound))),
            ExprKind::List { elements, .. } => elements.iter().find_map(|x| find(x, bound)),
            ExprKind::Map { entries } => entries
                .iter()
                .find_map(|en| find(&en.key, bound).or_else(|| find(&en.value, bound))),
            ExprKind::Struct { fields, .. } => fields.iter().find_map(|f| find(&f.value, bound)),
            ExprKind::Comprehension(c) => {
                let r = find(&c.iter_range, bound).or_else(|| find(&c.accu_init, bound));
                if r.is_some() {
                    return r;
                }
                let depth = bind_comprehension(bound, c);
                let r = find(&c.loop_condition, bound)
                    .or_else(|| find(&c.loop_step, bound))
                    .or_else(|| find(&c.result, bound));
                bound.truncate(depth);
                r
            }
        }
    }
    find(expr, &mut Vec::new())
}

#[cfg(test)]
mod tests;
