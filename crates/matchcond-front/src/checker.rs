//! The type checker: resolves identifiers, field selections and function overloads against
//! an environment, infers the type of every node, and reports errors in cel-go's wording.
//!
//! The algorithm follows cel-go's checker: type parameters of overloads are instantiated with
//! fresh type variables and unified through a substitution map; `dyn` is assignable to and
//! from everything; list and map literals must be homogeneous when the environment asks for
//! it; comprehension variables are scoped.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, LazyLock};

use crate::ast::{Comprehension, Expr, ExprId, ExprKind, Literal};
use crate::decls::{Function, Overload};
use crate::source::Issue;
use crate::types::Type;

mod revisits;

/// The hasher of the environment's tables (declared names are not chosen by the input, and
/// lookups are on every compile's hot path).
pub type NameHasher = foldhash::fast::RandomState;

/// A table keyed by declared name.
pub type NameMap<V> = HashMap<String, V, NameHasher>;

/// What the checker checks against: declared variables, object types and functions.
#[derive(Clone, Debug, Default)]
pub struct CheckerEnv {
    /// Variables by (possibly dotted) name.
    pub variables: NameMap<Type>,
    /// Object types (with fields) by name.
    pub object_types: NameMap<NameMap<Type>>,
    /// Type names that can be used as type values (`int`, `net.IP` …), with their type.
    pub type_idents: NameMap<Type>,
    /// Functions by name, overloads merged across libraries.
    pub functions: NameMap<Function>,
    /// Reject list and map literals whose elements have different types.
    pub homogeneous_aggregate_literals: bool,
    /// Object (struct) types that no type provider describes (the authorizer library's
    /// types): selecting a field of one is `unexpected failed resolution of '<type>'`.
    pub unresolved_struct_types: HashSet<String, NameHasher>,
    /// Names the type provider resolves to a type, looked up after the declared names
    /// (`timestamp`, the declared object types): they check as names of type `type(T)`,
    /// but the runtime knows no such identifier.
    pub provider_types: NameMap<Type>,
    /// The optional type is named `optional` in messages (cel-go v0.17: Kubernetes 1.30).
    pub optional_named_optional: bool,
    /// The second variable of a two-variable comprehension over a `dyn` range (or over a
    /// value that is no range) has no type, [`Type::untyped`] (cel-go v0.22: Kubernetes
    /// 1.32): only a type variable or `dyn` accepts it, `type '' does not support field
    /// selection`, a literal takes it for no element type and an overload for no result
    /// type, and an expression that uses it otherwise fails after checking
    /// ([`Checked::untyped`]).
    pub untyped_dyn_range_second_variable: bool,
    /// A node checked again (the target of `optMap` / `optFlatMap` when the parser shares
    /// it, see [`crate::ParserOptions::shared_macro_nodes`]: cel-go before v0.18,
    /// Kubernetes 1.30 and older) keeps the type of its first check, and a different type
    /// from a later check is reported as cel-go's checker reports it (`incompatible type
    /// already exists for expression: …`).
    pub one_type_per_node: bool,
}

impl CheckerEnv {
    /// Adds a library's functions, merging overloads of functions already present.
    pub fn add_functions(&mut self, functions: Vec<Function>) {
        for f in functions {
            match self.functions.get_mut(f.name) {
                Some(existing) => {
                    for o in f.overloads {
                        if !existing.overloads.iter().any(|e| e.id == o.id) {
                            existing.overloads.push(o);
                        }
                    }
                }
                None => {
                    self.functions.insert(f.name.to_string(), f);
                }
            }
        }
    }

    /// Declares the standard type identifiers (`int`, `list`, `google.protobuf.Timestamp` …).
    pub fn add_standard_type_idents(&mut self) {
        let std: [(&str, Type); 12] = [
            ("bool", Type::Bool),
            ("bytes", Type::Bytes),
            ("double", Type::Double),
            ("google.protobuf.Duration", Type::Duration),
            ("int", Type::Int),
            ("list", Type::list(Type::Dyn)),
            ("map", Type::map(Type::Dyn, Type::Dyn)),
            ("null_type", Type::Null),
            ("string", Type::String),
            ("google.protobuf.Timestamp", Type::Timestamp),
            ("type", Type::type_of(Type::Dyn)),
            ("uint", Type::Uint),
        ];
        for (n, t) in std {
            self.type_idents.insert(n.to_string(), t);
        }
    }
}

/// A set of overloads of one function, by position in its overload list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OverloadSet {
    /// Positions below 64, one bit each.
    low: u64,
    /// Positions from 64 on, ascending.
    high: Vec<usize>,
}

impl OverloadSet {
    /// Adds a position (positions are added in ascending order).
    pub fn insert(&mut self, position: usize) {
        if position < 64 {
            self.low |= 1u64 << position;
        } else if !self.high.contains(&position) {
            self.high.push(position);
        }
    }

    /// Whether a position is in the set.
    pub fn contains(&self, position: usize) -> bool {
        if position < 64 {
            self.low & (1u64 << position) != 0
        } else {
            self.high.contains(&position)
        }
    }

    /// The number of positions.
    pub fn len(&self) -> usize {
        self.low.count_ones() as usize + self.high.len()
    }

    /// True when the set is empty.
    pub fn is_empty(&self) -> bool {
        self.low == 0 && self.high.is_empty()
    }

    /// The positions in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        let low = self.low;
        (0..64usize)
            .filter(move |i| low & (1u64 << i) != 0)
            .chain(self.high.iter().copied())
    }

    /// The overloads of `function` in the set, in declaration order.
    pub fn overloads<'f>(&'f self, function: &'f Function) -> impl Iterator<Item = &'f Overload> {
        self.iter().filter_map(|i| function.overloads.get(i))
    }
}

/// How an identifier, a select or a call was resolved.
#[derive(Clone, Debug, PartialEq)]
pub enum Reference<'a> {
    /// A variable (global or comprehension-local) with this full name.
    Variable(&'a str),
    /// A type identifier, evaluating to the type value of the given type.
    TypeValue(Type),
    /// A function call resolved to these overloads (several when arguments are dynamic).
    /// `global` is true when a member-style call was resolved to a namespaced global function
    /// (`optional.of(x)`), in which case the target is not an argument.
    Function {
        /// The resolved function (its name is the call's function name).
        function: &'a Function,
        /// The overloads that may apply.
        overloads: OverloadSet,
        /// True when the call's target was part of the function name.
        global: bool,
    },
    /// An optional field selection `a.?b`.
    OptionalSelect,
    /// A name whose checked type is a type that the runtime cannot resolve by this name (a
    /// comprehension variable holding a type, `timestamp`): planning it fails with
    /// `reference to undefined type: <name>`, as cel-go's planner does.
    UndefinedType(&'a str),
}

/// The result of checking: the resolution of names, the types the homogeneity of list and
/// map literals is judged on, and the type of the whole expression.
#[derive(Clone, Debug)]
pub struct Checked<'a> {
    /// The types of list elements and of map keys and values, ordered by node id.
    element_types: Vec<(ExprId, Type)>,
    /// Resolutions of identifiers, selects and calls, ordered by node id.
    references: Vec<(ExprId, Reference<'a>)>,
    /// The type of the whole expression.
    pub result_type: Type,
    /// Some expression has no type (see [`CheckerEnv::untyped_dyn_range_second_variable`]):
    /// cel-go v0.22 then fails converting the checked expression
    /// (`missing type conversion to proto: `).
    pub untyped: bool,
}

/// The entry for `id` in a list ordered by node id.
fn by_id<T>(list: &[(ExprId, T)], id: ExprId) -> Option<&T> {
    let i = list.binary_search_by_key(&id, |(k, _)| *k).ok()?;
    list.get(i).map(|(_, x)| x)
}

/// Orders a list by node id; of the entries for one node, the last made is kept.
fn order_by_id<T>(list: &mut Vec<(ExprId, T)>) {
    list.reverse();
    list.sort_by_key(|(id, _)| *id);
    list.dedup_by_key(|(id, _)| *id);
}

impl<'a> Checked<'a> {
    /// The type of a list element, a map key or a map value.
    pub fn element_type(&self, id: ExprId) -> Option<&Type> {
        by_id(&self.element_types, id)
    }

    /// The resolution of an identifier, a select or a call.
    pub fn reference(&self, id: ExprId) -> Option<&Reference<'a>> {
        by_id(&self.references, id)
    }
}

/// Checks a parsed expression. Returns the issues found on failure.
pub fn check<'a>(expr: &'a Expr, env: &'a CheckerEnv) -> Result<Checked<'a>, Vec<Issue>> {
    check_ids(expr, env, 0)
}

/// [`check`] for a tree whose node ids are below `next_id` (see
/// [`crate::Parsed::next_id`]), which sizes the tables once.
pub fn check_ids<'a>(
    expr: &'a Expr,
    env: &'a CheckerEnv,
    next_id: u32,
) -> Result<Checked<'a>, Vec<Issue>> {
    let mut c = Checker {
        env,
        locals: Vec::new(),
        scope_marks: Vec::new(),
        mapping: Vec::with_capacity(8),
        fresh: 0,
        elements: Vec::new(),
        refs: Vec::with_capacity(next_id.min(16) as usize),
        issues: Vec::new(),
        name_buf: String::with_capacity(64),
        stack: Vec::with_capacity(8),
        seen_buf: Vec::with_capacity(4),
        subst_buf: Vec::with_capacity(4),
        type_valued: Vec::new(),
        untyped: false,
        node_types: Vec::new(),
        renamed: Vec::new(),
    };
    let root = c.check(expr);
    if !c.issues.is_empty() {
        return Err(c.issues);
    }
    for (id, name, t) in std::mem::take(&mut c.type_valued) {
        if let Type::Type(_) = c.substitute(&t, true) {
            c.refs.push((id, Reference::UndefinedType(name)));
        }
    }
    let mut element_types = std::mem::take(&mut c.elements);
    for (_, t) in element_types.iter_mut() {
        if !is_plain(t, 0) {
            *t = c.substitute(t, true);
        }
    }
    order_by_id(&mut element_types);
    let result_type = c.substitute(&root, true);
    let mut references = c.refs;
    order_by_id(&mut references);
    Ok(Checked {
        element_types,
        references,
        result_type,
        untyped: c.untyped,
    })
}

/// Formats a type as cel-go's checker does in messages (`timestamp`, `null`, `list(int)`).
pub fn format_type(t: &Type) -> String {
    format_type_as(t, "optional_type")
}

/// [`format_type`] with the optional type named `optional` (`optional` on cel-go v0.17,
/// Kubernetes 1.30; `optional_type` after).
pub fn format_type_as(t: &Type, optional: &str) -> String {
    let f = |t: &Type| format_type_as(t, optional);
    match t {
        Type::Dyn => "dyn".into(),
        Type::Null => "null".into(),
        Type::Bool => "bool".into(),
        Type::Int => "int".into(),
        Type::Uint => "uint".into(),
        Type::Double => "double".into(),
        Type::String => "string".into(),
        Type::Bytes => "bytes".into(),
        Type::Timestamp => "timestamp".into(),
        Type::Duration => "duration".into(),
        Type::List(e) => format!("list({})", f(e)),
        Type::Map(k, v) => format!("map({}, {})", f(k), f(v)),
        Type::Optional(e) => format!("{optional}({})", f(e)),
        Type::Type(e) => format!("type({})", f(e)),
        Type::Named(n, ps) if ps.is_empty() => n.to_string(),
        Type::Named(n, ps) => format!("{}({})", n, ps.iter().map(f).collect::<Vec<_>>().join(", ")),
        Type::Param(n) => n.to_string(),
        Type::Error => "!error!".into(),
    }
}

/// The names of the first fresh type variables, shared by every check.
static TYPE_VARS: LazyLock<Vec<Arc<str>>> = LazyLock::new(|| {
    (0..128)
        .map(|n| Arc::from(format!("_var{n}").as_str()))
        .collect()
});

/// Fresh type variable number `n` (`_var<n>`, as cel-go names them).
fn type_var(n: u32) -> Type {
    match TYPE_VARS.get(n as usize) {
        Some(name) => Type::Param(Arc::clone(name)),
        None => Type::Param(Arc::from(format!("_var{n}").as_str())),
    }
}

struct Checker<'a> {
    env: &'a CheckerEnv,
    /// Comprehension variables in scope, innermost last.
    locals: Vec<(&'a str, Type)>,
    /// Where each open scope starts in `locals`.
    scope_marks: Vec<usize>,
    /// Substitutions of type variables, latest last: a variable bound again is pushed again
    /// (the latest binding is the one in force), so that undoing the bindings of a failed
    /// attempt is a truncation.
    mapping: Vec<(Arc<str>, Type)>,
    fresh: u32,
    /// The types of list elements and map keys and values, as checked.
    elements: Vec<(ExprId, Type)>,
    /// Resolutions by node id, in the order they were made.
    refs: Vec<(ExprId, Reference<'a>)>,
    issues: Vec<Issue>,
    /// Scratch space for qualified names.
    name_buf: String,
    /// The types of the arguments of the calls being checked, innermost call last.
    stack: Vec<Type>,
    /// Scratch space for the type parameters of an overload.
    seen_buf: Vec<&'a Arc<str>>,
    /// Scratch space for the fresh variables standing for them.
    subst_buf: Vec<(&'a Arc<str>, Type)>,
    /// Names resolved to a variable whose type is, or may turn out to be, a type.
    type_valued: Vec<(ExprId, &'a str, Type)>,
    /// An identifier of the untyped type was checked.
    untyped: bool,
    /// With [`CheckerEnv::one_type_per_node`]: the type of each node id's first check.
    node_types: Vec<Option<Type>>,
    /// With [`CheckerEnv::one_type_per_node`]: the nodes cel-go's checker rewrites when it
    /// resolves them, as it then shows them in messages.
    renamed: Vec<(ExprId, revisits::Renamed<'a>)>,
}

fn kind_rank(t: &Type) -> u8 {
    match t {
        Type::Dyn => 0,
        Type::Null => 1,
        Type::Bool => 2,
        Type::Int => 3,
        Type::Uint => 4,
        Type::Double => 5,
        Type::String => 6,
        Type::Bytes => 7,
        Type::Timestamp => 8,
        Type::Duration => 9,
        Type::List(_) => 10,
        Type::Map(..) => 11,
        Type::Optional(_) => 12,
        Type::Type(_) => 13,
        Type::Named(..) => 14,
        Type::Param(_) => 15,
        Type::Error => 16,
    }
}

fn is_dyn_or_error(t: &Type) -> bool {
    matches!(t, Type::Dyn | Type::Error)
}

/// The qualified name an ident/select chain spells (`a.b.c`), if it is one.
pub fn qualified_name(e: &Expr) -> Option<String> {
    let mut s = String::new();
    write_qualified_name(e, &mut s).then_some(s)
}

/// Appends the qualified name an ident/select chain spells (`a.b.c`) to `out`; false (with
/// `out` partly written) when the expression is not such a chain.
pub fn write_qualified_name(e: &Expr, out: &mut String) -> bool {
    match &e.kind {
        ExprKind::Ident(n) => {
            out.push_str(n);
            true
        }
        ExprKind::Select {
            operand,
            field,
            test_only: false,
        } => {
            if !write_qualified_name(operand, out) {
                return false;
            }
            out.push('.');
            out.push_str(field);
            true
        }
        _ => false,
    }
}

/// True when substituting `t` (met at nesting `depth`) would give `t` itself: it holds no
/// type parameter and is not nested deeper than substitution goes.
fn is_plain(t: &Type, depth: u32) -> bool {
    if depth > 256 {
        return false;
    }
    match t {
        Type::Param(_) => false,
        Type::List(e) | Type::Optional(e) | Type::Type(e) => is_plain(e, depth + 1),
        Type::Map(k, v) => is_plain(k, depth + 1) && is_plain(v, depth + 1),
        Type::Named(_, ps) => ps.iter().all(|p| is_plain(p, depth + 1)),
        _ => true,
    }
}

/// False when a parameter of shape `p` can never be assigned an argument of type `a`,
/// whatever the type variables inside them are bound to: the outermost level of
/// [`Checker::internal_is_assignable`], which alone does not depend on the substitutions.
fn may_assign(p: &Type, a: &Type) -> bool {
    if matches!(p, Type::Param(_)) || matches!(a, Type::Param(_)) {
        return true;
    }
    if let Some(decided) = assign_by_kind(p, a) {
        return decided;
    }
    match (p, a) {
        (Type::Type(_), other) => matches!(other, Type::Type(_)),
        (Type::List(_), Type::List(_))
        | (Type::Map(..), Type::Map(..))
        | (Type::Optional(_), Type::Optional(_)) => true,
        (Type::Named(x, xp), Type::Named(y, yp)) => x == y && xp.len() == yp.len(),
        (x, y) => kind_rank(x) == kind_rank(y) && x.is_equivalent(y),
    }
}

/// The assignability rules that decide on the kinds alone, before any type parameters are
/// looked at: `dyn` or an error on either side is assignable, and `null` is assignable to
/// and from the legacy nullable types. `None` when they do not decide.
fn assign_by_kind(p: &Type, a: &Type) -> Option<bool> {
    if is_dyn_or_error(p) || is_dyn_or_error(a) {
        return Some(true);
    }
    if p.is_untyped() || a.is_untyped() {
        return Some(false);
    }
    if let Type::Null = p {
        return Some(nullable(a));
    }
    if let Type::Null = a {
        return Some(nullable(p));
    }
    None
}

impl<'a> Checker<'a> {
    fn error(&mut self, e: &Expr, message: String) {
        self.issues.push(Issue {
            offset: Some(e.offset),
            message,
        });
    }

    fn set_ref(&mut self, e: &Expr, r: Reference<'a>) {
        self.refs.push((e.id, r));
    }

    /// Keeps the type of a list element or a map key or value (for [`Checked`]).
    fn record(&mut self, e: &Expr, t: &Type) {
        self.elements.push((e.id, t.clone()));
    }

    fn new_type_var(&mut self) -> Type {
        let n = self.fresh;
        self.fresh += 1;
        type_var(n)
    }

    /// A type as this environment's messages show it.
    fn format_type(&self, t: &Type) -> String {
        if self.env.optional_named_optional {
            format_type_as(t, "optional")
        } else {
            format_type(t)
        }
    }

    fn is_local(&self, name: &str) -> bool {
        self.locals.iter().any(|(n, _)| *n == name)
    }

    fn lookup_ident(&self, name: &str) -> Option<(&'a str, Type, bool)> {
        if let Some(global) = name.strip_prefix('.') {
            return self.lookup_global(global);
        }
        if let Some((n, t)) = self.locals.iter().rev().find(|(n, _)| *n == name) {
            return Some((n, t.clone(), false));
        }
        self.lookup_global(name)
    }

    fn lookup_global(&self, name: &str) -> Option<(&'a str, Type, bool)> {
        let env = self.env;
        if let Some((n, t)) = env.variables.get_key_value(name) {
            return Some((n.as_str(), t.clone(), false));
        }
        if let Some((n, t)) = env.type_idents.get_key_value(name) {
            return Some((n.as_str(), Type::type_of(t.clone()), true));
        }
        if let Some((n, t)) = env.provider_types.get_key_value(name) {
            return Some((n.as_str(), Type::type_of(t.clone()), false));
        }
        None
    }

    /// Records the resolution of a name to a variable or a type.
    fn resolve_name(&mut self, e: &Expr, full: &'a str, t: &Type, is_type: bool) {
        self.note_renamed(e, revisits::Renamed::Ident(full));
        if is_type {
            let inner = match t {
                Type::Type(i) => (**i).clone(),
                other => other.clone(),
            };
            self.set_ref(e, Reference::TypeValue(inner));
        } else {
            if matches!(t, Type::Type(_) | Type::Param(_)) {
                self.type_valued.push((e.id, full, t.clone()));
            }
            self.set_ref(e, Reference::Variable(full));
        }
    }

    /// Checks a node and gives its type.
    fn check(&mut self, e: &'a Expr) -> Type {
        let t = self.check_node(e);
        if self.env.one_type_per_node {
            self.keep_first_type(e, t)
        } else {
            t
        }
    }

    /// [`Checker::check`] before the type is kept.
    fn check_node(&mut self, e: &'a Expr) -> Type {
        match &e.kind {
            ExprKind::Literal(l) => match l {
                Literal::Null => Type::Null,
                Literal::Bool(_) => Type::Bool,
                Literal::Int(_) => Type::Int,
                Literal::Uint(_) => Type::Uint,
                Literal::Double(_) => Type::Double,
                Literal::String(_) => Type::String,
                Literal::Bytes(_) => Type::Bytes,
            },
            ExprKind::Ident(name) => self.check_ident(e, name),
            ExprKind::Select {
                operand,
                field,
                test_only,
            } => self.check_select(e, operand, field, *test_only),
            ExprKind::Call {
                target,
                function,
                args,
            } => self.check_call(e, target.as_deref(), function, args),
            ExprKind::List {
                elements,
                optional_indices,
            } => self.check_list(elements, optional_indices),
            ExprKind::Map { entries } => self.check_map(entries),
            ExprKind::Struct { type_name, fields } => {
                for f in fields {
                    self.check(&f.value);
                }
                let name = type_name.trim_start_matches('.');
                let msg = format!("undeclared reference to '{name}' (in container '')");
                self.error(e, msg);
                Type::Error
            }
            ExprKind::Comprehension(c) => self.check_comprehension(c),
        }
    }

    fn check_map(&mut self, entries: &'a [crate::ast::MapEntry]) -> Type {
        let mut key_t: Option<Type> = None;
        let mut val_t: Option<Type> = None;
        for entry in entries {
            let kt = self.check(&entry.key);
            self.record(&entry.key, &kt);
            key_t = Some(self.join_types(&entry.key, key_t, kt));
            let mut vt = self.check(&entry.value);
            self.record(&entry.value, &vt);
            if entry.optional {
                vt = self.optional_entry(&entry.value, vt);
            }
            val_t = Some(self.join_types(&entry.value, val_t, vt));
        }
        // cel-go decides whether the map is empty by its key type alone, and the untyped
        // type is Go's nil there: a map whose keys are untyped gets two fresh variables.
        match (key_t, val_t) {
            (Some(k), Some(v)) if !k.is_untyped() => Type::map(k, v),
            _ => {
                let k = self.new_type_var();
                let v = self.new_type_var();
                Type::map(k, v)
            }
        }
    }

    /// The type of the second variable of a two-variable comprehension over a `dyn` range
    /// (or over a type that is no range, an error reported besides).
    fn dyn_range_second_variable(&self) -> Type {
        if self.env.untyped_dyn_range_second_variable {
            Type::untyped()
        } else {
            Type::Dyn
        }
    }

    fn check_ident(&mut self, e: &Expr, name: &str) -> Type {
        match self.lookup_ident(name) {
            Some((full, t, is_type)) => {
                if t.is_untyped() {
                    self.untyped = true;
                }
                self.resolve_name(e, full, &t, is_type);
                t
            }
            None => {
                let msg = format!(
                    "undeclared reference to '{}' (in container '')",
                    name.trim_start_matches('.')
                );
                self.error(e, msg);
                Type::Error
            }
        }
    }

    /// Resolves the qualified name `e` spells, if it is one and is declared.
    fn lookup_qualified(&mut self, e: &Expr) -> Option<(&'a str, Type, bool)> {
        let mut name = std::mem::take(&mut self.name_buf);
        name.clear();
        let found = if write_qualified_name(e, &mut name) {
            self.lookup_ident(&name)
        } else {
            None
        };
        self.name_buf = name;
        found
    }

    fn check_select(
        &mut self,
        e: &'a Expr,
        operand: &'a Expr,
        field: &str,
        test_only: bool,
    ) -> Type {
        if !test_only {
            if let Some((full, t, is_type)) = self.lookup_qualified(e) {
                // Resolve only names that are not a local variable's field.
                let root_is_local = match root_ident(operand) {
                    Some(r) => self.is_local(r),
                    None => false,
                };
                if !root_is_local {
                    self.resolve_name(e, full, &t, is_type);
                    return t;
                }
            }
        }
        let t = self.check_select_field(e, operand, field, false);
        if test_only {
            Type::Bool
        } else {
            t
        }
    }

    fn check_select_field(
        &mut self,
        e: &Expr,
        operand: &'a Expr,
        field: &str,
        optional: bool,
    ) -> Type {
        let op_t = self.check(operand);
        let op_t = self.substitute(&op_t, false);
        let (target, is_opt) = unwrap_optional(op_t);
        let result = match &target {
            Type::Map(_, v) => (**v).clone(),
            Type::Param(_) => {
                let _ = self.is_assignable(&Type::Dyn, &target);
                Type::Dyn
            }
            t if is_dyn_or_error(t) => Type::Dyn,
            Type::Named(name, _) => {
                let env = self.env;
                if let Some(fields) = env.object_types.get(name.as_ref()) {
                    match fields.get(field) {
                        Some(ft) => ft.clone(),
                        None => {
                            self.error(e, format!("undefined field '{field}'"));
                            Type::Error
                        }
                    }
                } else if env.unresolved_struct_types.contains(name.as_ref()) {
                    self.error(e, format!("unexpected failed resolution of '{name}'"));
                    Type::Error
                } else {
                    self.no_field_selection(e, &target)
                }
            }
            other => self.no_field_selection(e, other),
        };
        if is_opt || optional {
            Type::optional(result)
        } else {
            result
        }
    }

    fn no_field_selection(&mut self, e: &Expr, t: &Type) -> Type {
        let msg = format!(
            "type '{}' does not support field selection",
            self.format_type(t)
        );
        self.error(e, msg);
        Type::Dyn
    }

    /// The type of an optional entry `?e` of a list or map literal: the type inside
    /// `optional_type(T)`; any other type but `dyn` is reported.
    fn optional_entry(&mut self, e: &'a Expr, t: Type) -> Type {
        let (inner, is_opt) = unwrap_optional(t);
        if !is_opt && !is_dyn_or_error(&inner) {
            let msg = format!(
                "expected type '{}' but found '{}'",
                self.format_type(&Type::optional(inner.clone())),
                self.format_type(&inner)
            );
            self.error(e, msg);
        }
        inner
    }

    fn check_list(&mut self, elements: &'a [Expr], optional_indices: &[u32]) -> Type {
        let mut elem_t: Option<Type> = None;
        for (i, el) in elements.iter().enumerate() {
            let mut t = self.check(el);
            self.record(el, &t);
            if optional_indices.iter().any(|&o| o as usize == i) {
                t = self.optional_entry(el, t);
            }
            elem_t = Some(self.join_types(el, elem_t, t));
        }
        let t = match elem_t {
            Some(t) if !t.is_untyped() => t,
            _ => self.new_type_var(),
        };
        Type::list(t)
    }

    /// The type of an aggregate's elements so far (`previous`, none before the first)
    /// joined with the next element's. The untyped type is Go's nil in cel-go v0.22's
    /// join, as if no element came before.
    fn join_types(&mut self, e: &Expr, previous: Option<Type>, current: Type) -> Type {
        let Some(prev) = previous.filter(|p| !p.is_untyped()) else {
            return current;
        };
        if self.is_assignable(&prev, &current) {
            return most_general(&prev, &current);
        }
        if !self.env.homogeneous_aggregate_literals {
            return Type::Dyn;
        }
        let p = self.substitute(&prev, true);
        let c = self.substitute(&current, true);
        self.error(
            e,
            format!(
                "expected type '{}' but found '{}'",
                self.format_type(&p),
                self.format_type(&c)
            ),
        );
        Type::Error
    }

    fn push_scope(&mut self) {
        self.scope_marks.push(self.locals.len());
    }

    fn pop_scope(&mut self) {
        if let Some(mark) = self.scope_marks.pop() {
            self.locals.truncate(mark);
        }
    }

    fn check_comprehension(&mut self, c: &'a Comprehension) -> Type {
        let range = self.check(&c.iter_range);
        let accu_t = self.check(&c.accu_init);
        let range_t = self.substitute(&range, false);
        let (var1, var2) = match &range_t {
            Type::List(el) => {
                if c.iter_var2.is_some() {
                    (Type::Int, (**el).clone())
                } else {
                    ((**el).clone(), Type::Dyn)
                }
            }
            Type::Map(k, v) => ((**k).clone(), (**v).clone()),
            t if is_dyn_or_error(t) => (Type::Dyn, self.dyn_range_second_variable()),
            Type::Param(_) => {
                let _ = self.is_assignable(&Type::Dyn, &range_t);
                (Type::Dyn, self.dyn_range_second_variable())
            }
            other => {
                let msg = format!(
                    "expression of type '{}' cannot be range of a comprehension (must be list, map, or dynamic)",
                    self.format_type(other)
                );
                self.error(&c.iter_range, msg);
                (Type::Dyn, self.dyn_range_second_variable())
            }
        };
        self.push_scope();
        self.locals.push((c.accu_var.as_str(), accu_t.clone()));
        self.push_scope();
        self.locals.push((c.iter_var.as_str(), var1));
        if let Some(v2) = &c.iter_var2 {
            self.locals.push((v2.as_str(), var2));
        }
        let cond_t = self.check(&c.loop_condition);
        self.assert_type(&c.loop_condition, &Type::Bool, &cond_t);
        let step_t = self.check(&c.loop_step);
        self.assert_type(&c.loop_step, &accu_t, &step_t);
        self.pop_scope();
        let rt = self.check(&c.result);
        self.pop_scope();
        self.substitute(&rt, false)
    }

    /// Reports `actual` not assignable to `t`, both shown as they are, type variables by
    /// their names (`expected type 'map(_var0, _var1)' but found 'map(string, )'`), as
    /// cel-go's `assertType` shows them.
    fn assert_type(&mut self, e: &Expr, t: &Type, actual: &Type) {
        if !self.is_assignable(t, actual) {
            self.error(
                e,
                format!(
                    "expected type '{}' but found '{}'",
                    self.format_type(t),
                    self.format_type(actual)
                ),
            );
        }
    }

    fn check_call(
        &mut self,
        e: &'a Expr,
        target: Option<&'a Expr>,
        function: &'a str,
        args: &'a [Expr],
    ) -> Type {
        if function == "_?._" {
            return self.check_opt_select(e, args);
        }
        let base = self.stack.len();
        for a in args {
            let t = self.check(a);
            self.stack.push(t);
        }
        let env = self.env;
        let t = match target {
            None => {
                let name = function.trim_start_matches('.');
                match env.functions.get(name) {
                    Some(f) => {
                        self.note_renamed(e, revisits::Renamed::Global(f.name));
                        self.resolve_overload(e, f, false, args, base, false)
                    }
                    None => {
                        self.error(
                            e,
                            format!("undeclared reference to '{name}' (in container '')"),
                        );
                        Type::Error
                    }
                }
            }
            Some(target) => {
                if let Some(f) = self.qualified_function(target, function) {
                    self.note_renamed(e, revisits::Renamed::Global(f.name));
                    self.resolve_overload(e, f, false, args, base, true)
                } else {
                    let target_t = self.check(target);
                    match env.functions.get(function) {
                        Some(f) => {
                            // The receiver is the first argument.
                            self.stack.insert(base, target_t);
                            self.resolve_overload(e, f, true, args, base, false)
                        }
                        None => {
                            self.error(
                                e,
                                format!("undeclared reference to '{function}' (in container '')"),
                            );
                            Type::Error
                        }
                    }
                }
            }
        };
        self.stack.truncate(base);
        t
    }

    /// The namespaced global function a member-style call `a.b.f(…)` names (`a.b.f`), if
    /// the target is a qualified name whose root is not a local variable.
    fn qualified_function(&mut self, target: &Expr, function: &str) -> Option<&'a Function> {
        let env = self.env;
        let mut name = std::mem::take(&mut self.name_buf);
        name.clear();
        let mut found = None;
        if write_qualified_name(target, &mut name) {
            let start = name.len() - name.trim_start_matches('.').len();
            name.push('.');
            name.push_str(function);
            let local_root = root_ident(target)
                .map(|r| self.is_local(r))
                .unwrap_or(false);
            if !local_root {
                found = name.get(start..).and_then(|q| env.functions.get(q));
            }
        }
        self.name_buf = name;
        found
    }

    fn check_opt_select(&mut self, e: &'a Expr, args: &'a [Expr]) -> Type {
        let (Some(operand), Some(field)) = (args.first(), args.get(1)) else {
            self.error(e, "unsupported optional field selection".into());
            return Type::Error;
        };
        let Some(name) = field.as_string_literal() else {
            self.error(field, "unsupported optional field selection".into());
            return Type::Error;
        };
        let t = self.check_select_field(e, operand, name, true);
        let t = self.substitute(&t, false);
        self.set_ref(e, Reference::OptionalSelect);
        t
    }

    /// Resolves a call to `f` whose argument types (the receiver's first for a member call)
    /// are on the stack from `base`.
    fn resolve_overload(
        &mut self,
        e: &Expr,
        f: &'a Function,
        member: bool,
        args: &[Expr],
        base: usize,
        global: bool,
    ) -> Type {
        let stack = std::mem::take(&mut self.stack);
        let arg_types = stack.get(base..).unwrap_or_default();
        let t = if (f.name == "_&&_" || f.name == "_||_") && !member {
            self.resolve_logical(e, f, args, arg_types, global)
        } else {
            self.resolve_with(e, f, member, arg_types, global)
        };
        self.stack = stack;
        t
    }

    /// cel-go checks each operand of a logical operator against bool on its own and reports
    /// a mismatch at the operand.
    fn resolve_logical(
        &mut self,
        e: &Expr,
        f: &'a Function,
        args: &[Expr],
        arg_types: &[Type],
        global: bool,
    ) -> Type {
        let mut ok = true;
        for (a, t) in args.iter().zip(arg_types.iter()) {
            if !self.is_assignable(t, &Type::Bool) {
                let shown = self.substitute(t, true);
                self.error(
                    a,
                    format!(
                        "expected type 'bool' but found '{}'",
                        self.format_type(&shown)
                    ),
                );
                ok = false;
            }
        }
        if !ok {
            return Type::Error;
        }
        let mut overloads = OverloadSet::default();
        if !f.overloads.is_empty() {
            overloads.insert(0);
        }
        self.set_ref(
            e,
            Reference::Function {
                function: f,
                overloads,
                global,
            },
        );
        Type::Bool
    }

    fn resolve_with(
        &mut self,
        e: &Expr,
        f: &'a Function,
        member: bool,
        arg_types: &[Type],
        global: bool,
    ) -> Type {
        let mut result: Option<Type> = None;
        let mut ids = OverloadSet::default();
        for (i, o) in f.overloads.iter().enumerate() {
            if o.member != member || o.params.len() != arg_types.len() {
                continue;
            }
            let Some(r) = self.try_overload(o, arg_types) else {
                continue;
            };
            ids.insert(i);
            // An untyped result is Go's nil in cel-go v0.22: as if no overload had matched
            // yet, and an error when no other does.
            result = Some(match result.filter(|p| !p.is_untyped()) {
                None => r,
                Some(prev) => {
                    if !prev.is_dyn() && !prev.is_equivalent(&r) {
                        Type::Dyn
                    } else {
                        prev
                    }
                }
            });
        }
        match result.filter(|t| !t.is_untyped()) {
            Some(t) => {
                self.set_ref(
                    e,
                    Reference::Function {
                        function: f,
                        overloads: ids,
                        global,
                    },
                );
                t
            }
            None => {
                let shown: Vec<String> = arg_types
                    .iter()
                    .map(|t| self.format_type(&self.substitute(t, true)))
                    .collect();
                let sig = if member {
                    let mut it = shown.into_iter();
                    let recv = it.next().unwrap_or_default();
                    format!("{}.({})", recv, it.collect::<Vec<_>>().join(", "))
                } else {
                    format!("({})", shown.join(", "))
                };
                self.error(
                    e,
                    format!(
                        "found no matching overload for '{}' applied to '{}'",
                        f.name, sig
                    ),
                );
                Type::Error
            }
        }
    }

    /// Tries one overload against the argument types: its type parameters are instantiated
    /// with fresh type variables, and the arguments must be assignable to the parameters.
    /// Gives the result type (substituted) when they are; otherwise the substitutions are
    /// left as they were.
    fn try_overload(&mut self, o: &'a Overload, arg_types: &[Type]) -> Option<Type> {
        let mut seen = std::mem::take(&mut self.seen_buf);
        seen.clear();
        for p in &o.params {
            collect_params(p, &mut seen);
        }
        collect_params(&o.result, &mut seen);
        let result = if seen.is_empty() {
            self.assign_all(&o.params, arg_types)
                .then(|| self.substitute(&o.result, false))
        } else if !o
            .params
            .iter()
            .zip(arg_types.iter())
            .all(|(p, a)| may_assign(p, a))
        {
            // Not assignable whatever the variables are: instantiating would only have
            // used up the fresh variables' numbers.
            self.fresh += u32::try_from(seen.len()).unwrap_or(u32::MAX);
            None
        } else {
            let mut subst = std::mem::take(&mut self.subst_buf);
            subst.clear();
            for p in seen.iter().copied() {
                let v = self.new_type_var();
                subst.push((p, v));
            }
            let r = if self.assign_instantiated(&o.params, &subst, arg_types) {
                let res = replace_params(&o.result, &subst);
                Some(self.substitute(&res, false))
            } else {
                None
            };
            self.subst_buf = subst;
            r
        };
        self.seen_buf = seen;
        result
    }

    /// [`Checker::assign_all`] for the parameters of an overload instantiated with `subst`.
    /// A parameter that is not a type variable itself is assignable from `dyn` (and the
    /// error type) without binding anything: it is instantiated only to be compared with
    /// another type.
    fn assign_instantiated(
        &mut self,
        params: &[Type],
        subst: &[(&Arc<str>, Type)],
        arg_types: &[Type],
    ) -> bool {
        let snapshot = self.mapping.len();
        for (p, a) in params.iter().zip(arg_types.iter()) {
            let assignable = if !matches!(p, Type::Param(_)) && is_dyn_or_error(a) {
                true
            } else {
                // The argument first, as cel-go compares them: a variable of the overload
                // is bound to the argument's type, not the other way round.
                let p = replace_params(p, subst);
                self.is_assignable(a, &p)
            };
            if !assignable {
                self.mapping.truncate(snapshot);
                return false;
            }
        }
        true
    }

    /// Whether every argument type is assignable to its parameter; on failure the
    /// substitutions are left as they were.
    fn assign_all(&mut self, params: &[Type], arg_types: &[Type]) -> bool {
        let snapshot = self.mapping.len();
        for (p, a) in params.iter().zip(arg_types.iter()) {
            if !self.is_assignable(a, p) {
                self.mapping.truncate(snapshot);
                return false;
            }
        }
        true
    }

    fn find(&self, t: &Type) -> Option<Type> {
        match t {
            Type::Param(n) => self
                .mapping
                .iter()
                .rev()
                .find(|(k, _)| same_name(k, n))
                .map(|(_, v)| v.clone()),
            _ => None,
        }
    }

    fn bind(&mut self, name: &Arc<str>, t: Type) {
        self.mapping.push((Arc::clone(name), t));
    }

    fn substitute(&self, t: &Type, param_to_dyn: bool) -> Type {
        if is_plain(t, 0) {
            return t.clone();
        }
        self.substitute_depth(t, param_to_dyn, 0)
    }

    fn substitute_depth(&self, t: &Type, param_to_dyn: bool, depth: u32) -> Type {
        if depth > 256 {
            return Type::Dyn;
        }
        if let Some(s) = self.find(t) {
            return self.substitute_depth(&s, param_to_dyn, depth + 1);
        }
        match t {
            Type::Param(_) if param_to_dyn => Type::Dyn,
            Type::List(e) => Type::list(self.substitute_depth(e, param_to_dyn, depth + 1)),
            Type::Map(k, v) => Type::map(
                self.substitute_depth(k, param_to_dyn, depth + 1),
                self.substitute_depth(v, param_to_dyn, depth + 1),
            ),
            Type::Optional(e) => Type::optional(self.substitute_depth(e, param_to_dyn, depth + 1)),
            Type::Type(e) => Type::type_of(self.substitute_depth(e, param_to_dyn, depth + 1)),
            Type::Named(n, ps) if !ps.is_empty() => Type::Named(
                n.clone(),
                ps.iter()
                    .map(|p| self.substitute_depth(p, param_to_dyn, depth + 1))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    fn is_assignable(&mut self, t1: &Type, t2: &Type) -> bool {
        let snapshot = self.mapping.len();
        if self.internal_is_assignable(t1, t2, 0) {
            true
        } else {
            self.mapping.truncate(snapshot);
            false
        }
    }

    fn internal_is_assignable(&mut self, t1: &Type, t2: &Type, depth: u32) -> bool {
        if depth > 256 {
            return false;
        }
        if let Type::Param(_) = t2 {
            let (valid, has_sub) = self.valid_substitution(t1, t2, depth);
            if valid {
                return true;
            }
            if has_sub {
                return false;
            }
        }
        if let Type::Param(_) = t1 {
            let (valid, _) = self.valid_substitution(t2, t1, depth);
            return valid;
        }
        if let Some(decided) = assign_by_kind(t1, t2) {
            return decided;
        }
        if let Some(all) = params_all(t1, t2, |x, y| self.internal_is_assignable(x, y, depth + 1)) {
            return all;
        }
        match (t1, t2) {
            (Type::Type(_), other) => matches!(other, Type::Type(_)),
            (a, b) => kind_rank(a) == kind_rank(b) && a.is_equivalent(b),
        }
    }

    fn valid_substitution(&mut self, t1: &Type, t2: &Type, depth: u32) -> (bool, bool) {
        if t1.is_equivalent(t2) {
            return (true, true);
        }
        if let Some(t2sub) = self.find(t2) {
            if t1.is_equivalent(&t2sub) {
                return (true, true);
            }
            if self.internal_is_assignable(t1, &t2sub, depth + 1) {
                let t2new = most_general(t1, &t2sub);
                if self.not_referenced_in(t2, &t2new, 0) {
                    if let Type::Param(n) = t2 {
                        self.bind(n, t2new);
                    }
                }
                return (true, true);
            }
            return (false, true);
        }
        if self.not_referenced_in(t2, t1, 0) {
            if let Type::Param(n) = t2 {
                self.bind(n, t1.clone());
            }
            return (true, false);
        }
        (false, false)
    }

    fn not_referenced_in(&self, t: &Type, within: &Type, depth: u32) -> bool {
        if depth > 256 {
            return false;
        }
        if t.is_equivalent(within) {
            return false;
        }
        match within {
            Type::Param(_) => match self.find(within) {
                None => true,
                Some(s) => self.not_referenced_in(t, &s, depth + 1),
            },
            Type::List(e) | Type::Optional(e) | Type::Type(e) => {
                self.not_referenced_in(t, e, depth + 1)
            }
            Type::Map(k, v) => {
                self.not_referenced_in(t, k, depth + 1) && self.not_referenced_in(t, v, depth + 1)
            }
            Type::Named(_, ps) => ps.iter().all(|p| self.not_referenced_in(t, p, depth + 1)),
            _ => true,
        }
    }
}

/// The type inside an optional type, and whether it was one.
fn unwrap_optional(t: Type) -> (Type, bool) {
    match t {
        Type::Optional(inner) => ((*inner).clone(), true),
        other => (other, false),
    }
}

fn root_ident(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Ident(n) => Some(n.as_str()),
        ExprKind::Select { operand, .. } => root_ident(operand),
        _ => None,
    }
}

/// Whether `null` is assignable to `t`: the legacy nullable types and `null` itself.
fn nullable(t: &Type) -> bool {
    matches!(t, Type::Null) || legacy_nullable(t)
}

fn legacy_nullable(t: &Type) -> bool {
    matches!(
        t,
        Type::Named(..) | Type::Optional(_) | Type::Duration | Type::Timestamp
    )
}

/// Whether two type parameter names are the same (fresh variables share their names, and
/// most comparisons are of a name with itself).
fn same_name(a: &Arc<str>, b: &Arc<str>) -> bool {
    Arc::ptr_eq(a, b) || a == b
}

/// Where `t1` and `t2` are the same parameterised type (list, map, optional, or a named
/// type with as many parameters), whether `rel` holds for each pair of parameters; `None`
/// for any other pair of types.
fn params_all(t1: &Type, t2: &Type, mut rel: impl FnMut(&Type, &Type) -> bool) -> Option<bool> {
    match (t1, t2) {
        (Type::List(a), Type::List(b)) | (Type::Optional(a), Type::Optional(b)) => Some(rel(a, b)),
        (Type::Map(ak, av), Type::Map(bk, bv)) => Some(rel(ak, bk) && rel(av, bv)),
        (Type::Named(a, ap), Type::Named(b, bp)) => {
            Some(a == b && ap.len() == bp.len() && ap.iter().zip(bp.iter()).all(|(x, y)| rel(x, y)))
        }
        _ => None,
    }
}

fn is_equal_or_less_specific(t1: &Type, t2: &Type) -> bool {
    if matches!(t1, Type::Dyn | Type::Param(_)) {
        return true;
    }
    if matches!(t2, Type::Dyn | Type::Param(_)) {
        return false;
    }
    if let Some(all) = params_all(t1, t2, is_equal_or_less_specific) {
        return all;
    }
    match (t1, t2) {
        (Type::Type(_), Type::Type(_)) => true,
        (a, b) => a == b,
    }
}

fn most_general(t1: &Type, t2: &Type) -> Type {
    if is_equal_or_less_specific(t1, t2) {
        t1.clone()
    } else {
        t2.clone()
    }
}

fn collect_params<'t>(t: &'t Type, out: &mut Vec<&'t Arc<str>>) {
    match t {
        Type::Param(n) if !out.iter().any(|o| same_name(o, n)) => out.push(n),
        Type::List(e) | Type::Optional(e) | Type::Type(e) => collect_params(e, out),
        Type::Map(k, v) => {
            collect_params(k, out);
            collect_params(v, out);
        }
        Type::Named(_, ps) => ps.iter().for_each(|p| collect_params(p, out)),
        _ => {}
    }
}

fn replace_params(t: &Type, subst: &[(&Arc<str>, Type)]) -> Type {
    match t {
        Type::Param(n) => subst
            .iter()
            .find(|(k, _)| same_name(k, n))
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| t.clone()),
        Type::List(e) => Type::list(replace_params(e, subst)),
        Type::Map(k, v) => Type::map(replace_params(k, subst), replace_params(v, subst)),
        Type::Optional(e) => Type::optional(replace_params(e, subst)),
        Type::Type(e) => Type::type_of(replace_params(e, subst)),
        Type::Named(n, ps) => Type::Named(
            n.clone(),
            ps.iter().map(|p| replace_params(p, subst)).collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse, ParserOptions};

    /// A checker environment with `x` of type `dyn`, indexing, `_+_` on ints and lists, and
    /// cel-go v0.22's untyped second variable when `v0_22`.
    fn env(v0_22: bool) -> CheckerEnv {
        let a = || Type::param("A");
        let b = || Type::param("B");
        let mut env = CheckerEnv {
            untyped_dyn_range_second_variable: v0_22,
            ..CheckerEnv::default()
        };
        env.variables.insert("x".into(), Type::Dyn);
        env.add_functions(vec![
            Function {
                name: "_[_]",
                overloads: vec![
                    Overload {
                        id: "index_list",
                        member: false,
                        params: vec![Type::list(a()), Type::Int],
                        result: a(),
                    },
                    Overload {
                        id: "index_map",
                        member: false,
                        params: vec![Type::map(a(), b()), a()],
                        result: b(),
                    },
                ],
            },
            Function {
                name: "_+_",
                overloads: vec![
                    Overload {
                        id: "add_int64",
                        member: false,
                        params: vec![Type::Int, Type::Int],
                        result: Type::Int,
                    },
                    Overload {
                        id: "add_list",
                        member: false,
                        params: vec![Type::list(a()), Type::list(a())],
                        result: Type::list(a()),
                    },
                ],
            },
        ]);
        env
    }

    /// The result type of `text`, or its first issue.
    fn check_text(text: &str, v0_22: bool) -> Result<(Type, bool), String> {
        let options = ParserOptions {
            enable_two_var_comprehensions: true,
            ..ParserOptions::default()
        };
        let parsed = parse(text, &options).map_err(|e| format!("{e:?}"))?;
        let env = env(v0_22);
        match check(&parsed.expr, &env) {
            Ok(c) => Ok((c.result_type, c.untyped)),
            Err(issues) => Err(issues
                .first()
                .map(|i| i.message.clone())
                .unwrap_or_default()),
        }
    }

    #[test]
    fn an_untyped_element_counts_for_no_type_in_a_literal() {
        // `[v, 1]` is a list of int on cel-go v0.22, of dyn later.
        assert_eq!(
            check_text("x.transformList(k, v, [v, 1][0] + 'a')", true),
            Err("found no matching overload for '_+_' applied to '(int, string)'".into())
        );
        assert_eq!(
            check_text("x.transformList(k, v, [v, 1][0] + 'a')", false),
            Err("found no matching overload for '_+_' applied to '(dyn, string)'".into())
        );
        // `[v]` is a list of a fresh variable; the expression fails after checking.
        assert_eq!(
            check_text("x.transformList(k, v, [v])", true),
            Ok((Type::list(Type::list(Type::Dyn)), true))
        );
        assert_eq!(
            check_text("x.transformList(k, v, [v])", false),
            Ok((Type::list(Type::list(Type::Dyn)), false))
        );
        // `{v: 1}` has fresh variables for its key and value types, not `map(, int)`:
        // indexing it gives a variable, unbound.
        assert_eq!(
            check_text("x.transformList(k, v, {v: 1}[k] + 'a')", true),
            Err("found no matching overload for '_+_' applied to '(dyn, string)'".into())
        );
    }

    #[test]
    fn an_untyped_result_is_no_match() {
        assert_eq!(
            check_text("x.transformList(k, v, {'a': v}['a'] + 1)", true),
            Err(
                "found no matching overload for '_[_]' applied to '(map(string, ), string)'".into()
            )
        );
        assert_eq!(
            check_text("x.transformList(k, v, {'a': v}['a'] + 1)", false),
            Ok((Type::list(Type::Int), false))
        );
    }

    #[test]
    fn overload_sets_hold_any_position() {
        let mut s = OverloadSet::default();
        for p in [0, 5, 63, 64, 200] {
            s.insert(p);
        }
        s.insert(64);
        assert_eq!(s.iter().collect::<Vec<_>>(), [0, 5, 63, 64, 200]);
        assert_eq!(s.len(), 5);
        assert!(s.contains(63) && s.contains(200) && !s.contains(6) && !s.contains(65));
        assert!(OverloadSet::default().is_empty());
    }
}
