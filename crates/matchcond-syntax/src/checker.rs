//! The type checker: resolves identifiers, field selections and function overloads against
//! an environment, infers the type of every node, and reports errors in cel-go's wording.
//!
//! The algorithm follows cel-go's checker: type parameters of overloads are instantiated with
//! fresh type variables and unified through a substitution map; `dyn` is assignable to and
//! from everything; list and map literals must be homogeneous when the environment asks for
//! it; comprehension variables are scoped.

use std::collections::HashMap;
use std::sync::Arc;

use crate::ast::{Comprehension, Expr, ExprId, ExprKind, Literal};
use crate::decls::{Function, Overload};
use crate::source::Issue;
use crate::types::Type;

/// What the checker checks against: declared variables, object types and functions.
#[derive(Clone, Debug, Default)]
pub struct CheckerEnv {
    /// Variables by (possibly dotted) name.
    pub variables: HashMap<String, Type>,
    /// Object types (with fields) by name.
    pub object_types: HashMap<String, HashMap<String, Type>>,
    /// Type names that can be used as type values (`int`, `net.IP` …), with their type.
    pub type_idents: HashMap<String, Type>,
    /// Functions by name, overloads merged across libraries.
    pub functions: HashMap<String, Function>,
    /// Reject list and map literals whose elements have different types.
    pub homogeneous_aggregate_literals: bool,
    /// Object (struct) types that no type provider describes (the authorizer library's
    /// types): selecting a field of one is `unexpected failed resolution of '<type>'`.
    pub unresolved_struct_types: std::collections::HashSet<String>,
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

/// How an identifier, a select or a call was resolved.
#[derive(Clone, Debug, PartialEq)]
pub enum Reference {
    /// A variable (global or comprehension-local) with this full name.
    Variable(String),
    /// A type identifier, evaluating to the type value of the given type.
    TypeValue(Type),
    /// A function call resolved to these overloads (several when arguments are dynamic).
    /// `global` is true when a member-style call was resolved to a namespaced global function
    /// (`optional.of(x)`), in which case the target is not an argument.
    Function {
        /// The resolved function name.
        name: String,
        /// Overload ids that may apply.
        overloads: Vec<&'static str>,
        /// True when the call's target was part of the function name.
        global: bool,
    },
    /// An optional field selection `a.?b`.
    OptionalSelect,
}

/// The result of checking: the type of every node, the resolution of names, and the type
/// of the whole expression.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The type of each node.
    pub types: HashMap<ExprId, Type>,
    /// Resolutions of identifiers, selects and calls.
    pub references: HashMap<ExprId, Reference>,
    /// The type of the whole expression.
    pub result_type: Type,
}

/// Checks a parsed expression. Returns the issues found on failure.
pub fn check(expr: &Expr, env: &CheckerEnv) -> Result<Checked, Vec<Issue>> {
    let mut c = Checker {
        env,
        scopes: Vec::new(),
        mapping: Vec::new(),
        fresh: 0,
        types: HashMap::new(),
        refs: HashMap::new(),
        issues: Vec::new(),
    };
    c.check(expr);
    if !c.issues.is_empty() {
        return Err(c.issues);
    }
    let mut types = HashMap::with_capacity(c.types.len());
    for (id, t) in &c.types {
        types.insert(*id, c.substitute(t, true));
    }
    let result_type = types.get(&expr.id).cloned().unwrap_or(Type::Dyn);
    Ok(Checked {
        types,
        references: c.refs,
        result_type,
    })
}

/// Formats a type as cel-go's checker does in messages (`timestamp`, `null`, `list(int)`).
pub fn format_type(t: &Type) -> String {
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
        Type::List(e) => format!("list({})", format_type(e)),
        Type::Map(k, v) => format!("map({}, {})", format_type(k), format_type(v)),
        Type::Optional(e) => format!("optional_type({})", format_type(e)),
        Type::Type(e) => format!("type({})", format_type(e)),
        Type::Named(n, ps) if ps.is_empty() => n.to_string(),
        Type::Named(n, ps) => format!(
            "{}({})",
            n,
            ps.iter().map(format_type).collect::<Vec<_>>().join(", ")
        ),
        Type::Param(n) => n.to_string(),
        Type::Error => "!error!".into(),
    }
}

struct Checker<'e> {
    env: &'e CheckerEnv,
    scopes: Vec<HashMap<String, Type>>,
    /// Substitutions of type variables (few per expression: a vector is cheapest to copy
    /// and search).
    mapping: Vec<(Arc<str>, Type)>,
    fresh: u32,
    types: HashMap<ExprId, Type>,
    refs: HashMap<ExprId, Reference>,
    issues: Vec<Issue>,
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
    match &e.kind {
        ExprKind::Ident(n) => Some(n.clone()),
        ExprKind::Select {
            operand,
            field,
            test_only: false,
        } => qualified_name(operand).map(|q| format!("{q}.{field}")),
        _ => None,
    }
}

impl<'e> Checker<'e> {
    fn error(&mut self, e: &Expr, message: String) {
        self.issues.push(Issue {
            offset: Some(e.offset),
            message,
        });
    }

    fn set_type(&mut self, e: &Expr, t: Type) {
        self.types.insert(e.id, t);
    }

    fn get_type(&self, e: &Expr) -> Type {
        self.types.get(&e.id).cloned().unwrap_or(Type::Error)
    }

    fn new_type_var(&mut self) -> Type {
        let n = self.fresh;
        self.fresh += 1;
        Type::Param(Arc::from(format!("_var{n}").as_str()))
    }

    fn lookup_ident(&self, name: &str) -> Option<(String, Type, bool)> {
        if let Some(global) = name.strip_prefix('.') {
            return self.lookup_global(global);
        }
        for scope in self.scopes.iter().rev() {
            if let Some(t) = scope.get(name) {
                return Some((name.to_string(), t.clone(), false));
            }
        }
        self.lookup_global(name)
    }

    fn lookup_global(&self, name: &str) -> Option<(String, Type, bool)> {
        if let Some(t) = self.env.variables.get(name) {
            return Some((name.to_string(), t.clone(), false));
        }
        if let Some(t) = self.env.type_idents.get(name) {
            return Some((name.to_string(), Type::type_of(t.clone()), true));
        }
        None
    }

    fn check(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Literal(l) => {
                let t = match l {
                    Literal::Null => Type::Null,
                    Literal::Bool(_) => Type::Bool,
                    Literal::Int(_) => Type::Int,
                    Literal::Uint(_) => Type::Uint,
                    Literal::Double(_) => Type::Double,
                    Literal::String(_) => Type::String,
                    Literal::Bytes(_) => Type::Bytes,
                };
                self.set_type(e, t);
            }
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
            } => self.check_list(e, elements, optional_indices),
            ExprKind::Map { entries } => {
                let mut key_t: Option<Type> = None;
                let mut val_t: Option<Type> = None;
                for entry in entries {
                    self.check(&entry.key);
                    let kt = self.get_type(&entry.key);
                    key_t = Some(self.join_types(&entry.key, key_t, kt));
                    self.check(&entry.value);
                    let mut vt = self.get_type(&entry.value);
                    if entry.optional {
                        let (inner, is_opt) = self.unwrap_optional(&vt);
                        if !is_opt && !is_dyn_or_error(&inner) {
                            let msg = format!(
                                "expected type '{}' but found '{}'",
                                format_type(&Type::optional(inner.clone())),
                                format_type(&inner)
                            );
                            self.error(&entry.value, msg);
                        }
                        vt = inner;
                    }
                    val_t = Some(self.join_types(&entry.value, val_t, vt));
                }
                let k = match key_t {
                    Some(t) => t,
                    None => self.new_type_var(),
                };
                let v = match val_t {
                    Some(t) => t,
                    None => self.new_type_var(),
                };
                self.set_type(e, Type::map(k, v));
            }
            ExprKind::Struct { type_name, fields } => {
                for f in fields {
                    self.check(&f.value);
                }
                let name = type_name.trim_start_matches('.');
                let msg = format!("undeclared reference to '{name}' (in container '')");
                self.error(e, msg);
                self.set_type(e, Type::Error);
            }
            ExprKind::Comprehension(c) => self.check_comprehension(e, c),
        }
    }

    fn check_ident(&mut self, e: &Expr, name: &str) {
        match self.lookup_ident(name) {
            Some((full, t, is_type)) => {
                if is_type {
                    let inner = match &t {
                        Type::Type(i) => (**i).clone(),
                        other => other.clone(),
                    };
                    self.refs.insert(e.id, Reference::TypeValue(inner));
                } else {
                    self.refs.insert(e.id, Reference::Variable(full));
                }
                self.set_type(e, t);
            }
            None => {
                let msg = format!(
                    "undeclared reference to '{}' (in container '')",
                    name.trim_start_matches('.')
                );
                self.error(e, msg);
                self.set_type(e, Type::Error);
            }
        }
    }

    fn check_select(&mut self, e: &Expr, operand: &Expr, field: &str, test_only: bool) {
        if !test_only {
            if let Some(q) = qualified_name(e) {
                if let Some((full, t, is_type)) = self.lookup_ident(&q) {
                    // Resolve only names that are not a local variable's field.
                    let root_is_local = match root_ident(operand) {
                        Some(r) => self.scopes.iter().any(|s| s.contains_key(r)),
                        None => false,
                    };
                    if !root_is_local {
                        if is_type {
                            let inner = match &t {
                                Type::Type(i) => (**i).clone(),
                                other => other.clone(),
                            };
                            self.refs.insert(e.id, Reference::TypeValue(inner));
                        } else {
                            self.refs.insert(e.id, Reference::Variable(full));
                        }
                        self.set_type(e, t);
                        return;
                    }
                }
            }
        }
        let mut t = self.check_select_field(e, operand, field, false);
        if test_only {
            t = Type::Bool;
        }
        self.set_type(e, t);
    }

    fn unwrap_optional(&self, t: &Type) -> (Type, bool) {
        match t {
            Type::Optional(inner) => ((**inner).clone(), true),
            other => (other.clone(), false),
        }
    }

    fn check_select_field(
        &mut self,
        e: &Expr,
        operand: &Expr,
        field: &str,
        optional: bool,
    ) -> Type {
        self.check(operand);
        let op_t = self.get_type(operand);
        let op_t = self.substitute(&op_t, false);
        let (target, is_opt) = self.unwrap_optional(&op_t);
        let result = match &target {
            Type::Map(_, v) => (**v).clone(),
            Type::Named(name, _) if self.env.object_types.contains_key(name.as_ref()) => match self
                .env
                .object_types
                .get(name.as_ref())
                .and_then(|fs| fs.get(field))
            {
                Some(ft) => ft.clone(),
                None => {
                    self.error(e, format!("undefined field '{field}'"));
                    Type::Error
                }
            },
            Type::Param(_) => {
                let _ = self.is_assignable(&Type::Dyn, &target);
                Type::Dyn
            }
            t if is_dyn_or_error(t) => Type::Dyn,
            Type::Named(name, _) if self.env.unresolved_struct_types.contains(name.as_ref()) => {
                self.error(e, format!("unexpected failed resolution of '{name}'"));
                Type::Error
            }
            other => {
                let msg = format!(
                    "type '{}' does not support field selection",
                    format_type(other)
                );
                self.error(e, msg);
                Type::Dyn
            }
        };
        if is_opt || optional {
            Type::optional(result)
        } else {
            result
        }
    }

    fn check_list(&mut self, e: &Expr, elements: &[Expr], optional_indices: &[u32]) {
        let mut elem_t: Option<Type> = None;
        for (i, el) in elements.iter().enumerate() {
            self.check(el);
            let mut t = self.get_type(el);
            if optional_indices.iter().any(|&o| o as usize == i) {
                let (inner, is_opt) = self.unwrap_optional(&t);
                if !is_opt && !is_dyn_or_error(&inner) {
                    let msg = format!(
                        "expected type '{}' but found '{}'",
                        format_type(&Type::optional(inner.clone())),
                        format_type(&inner)
                    );
                    self.error(el, msg);
                }
                t = inner;
            }
            elem_t = Some(self.join_types(el, elem_t, t));
        }
        let t = match elem_t {
            Some(t) => t,
            None => self.new_type_var(),
        };
        self.set_type(e, Type::list(t));
    }

    fn join_types(&mut self, e: &Expr, previous: Option<Type>, current: Type) -> Type {
        let Some(prev) = previous else {
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
                format_type(&p),
                format_type(&c)
            ),
        );
        Type::Error
    }

    fn check_comprehension(&mut self, e: &Expr, c: &Comprehension) {
        self.check(&c.iter_range);
        self.check(&c.accu_init);
        let accu_t = self.get_type(&c.accu_init);
        let range_t = self.get_type(&c.iter_range);
        let range_t = self.substitute(&range_t, false);
        let (var1, var2) = match &range_t {
            Type::List(el) => {
                if c.iter_var2.is_some() {
                    (Type::Int, (**el).clone())
                } else {
                    ((**el).clone(), Type::Dyn)
                }
            }
            Type::Map(k, v) => ((**k).clone(), (**v).clone()),
            t if is_dyn_or_error(t) => (Type::Dyn, Type::Dyn),
            Type::Param(_) => {
                let _ = self.is_assignable(&Type::Dyn, &range_t);
                (Type::Dyn, Type::Dyn)
            }
            other => {
                let msg = format!(
                    "expression of type '{}' cannot be range of a comprehension (must be list, map, or dynamic)",
                    format_type(other)
                );
                self.error(&c.iter_range, msg);
                (Type::Dyn, Type::Dyn)
            }
        };
        let mut accu_scope = HashMap::new();
        accu_scope.insert(c.accu_var.clone(), accu_t.clone());
        self.scopes.push(accu_scope);
        let mut iter_scope = HashMap::new();
        iter_scope.insert(c.iter_var.clone(), var1);
        if let Some(v2) = &c.iter_var2 {
            iter_scope.insert(v2.clone(), var2);
        }
        self.scopes.push(iter_scope);
        self.check(&c.loop_condition);
        self.assert_type(&c.loop_condition, &Type::Bool);
        self.check(&c.loop_step);
        self.assert_type(&c.loop_step, &accu_t);
        self.scopes.pop();
        self.check(&c.result);
        self.scopes.pop();
        let rt = self.get_type(&c.result);
        let rt = self.substitute(&rt, false);
        self.set_type(e, rt);
    }

    fn assert_type(&mut self, e: &Expr, t: &Type) {
        let actual = self.get_type(e);
        if !self.is_assignable(t, &actual) {
            let exp = self.substitute(t, true);
            let act = self.substitute(&actual, true);
            self.error(
                e,
                format!(
                    "expected type '{}' but found '{}'",
                    format_type(&exp),
                    format_type(&act)
                ),
            );
        }
    }

    fn check_call(&mut self, e: &Expr, target: Option<&Expr>, function: &str, args: &[Expr]) {
        if function == "_?._" {
            self.check_opt_select(e, args);
            return;
        }
        for a in args {
            self.check(a);
        }
        let Some(target) = target else {
            let name = function.trim_start_matches('.');
            match self.env.functions.get(name) {
                Some(f) => self.resolve_overload(e, f, None, args, name.to_string(), false),
                None => {
                    self.error(
                        e,
                        format!("undeclared reference to '{name}' (in container '')"),
                    );
                    self.set_type(e, Type::Error);
                }
            }
            return;
        };
        if let Some(prefix) = qualified_name(target) {
            let qualified = format!("{}.{}", prefix.trim_start_matches('.'), function);
            let local_root = root_ident(target)
                .map(|r| self.scopes.iter().any(|s| s.contains_key(r)))
                .unwrap_or(false);
            if !local_root {
                if let Some(f) = self.env.functions.get(&qualified) {
                    self.resolve_overload(e, f, None, args, qualified, true);
                    return;
                }
            }
        }
        self.check(target);
        match self.env.functions.get(function) {
            Some(f) => self.resolve_overload(e, f, Some(target), args, function.to_string(), false),
            None => {
                self.error(
                    e,
                    format!("undeclared reference to '{function}' (in container '')"),
                );
                self.set_type(e, Type::Error);
            }
        }
    }

    fn check_opt_select(&mut self, e: &Expr, args: &[Expr]) {
        let (Some(operand), Some(field)) = (args.first(), args.get(1)) else {
            self.error(e, "unsupported optional field selection".into());
            self.set_type(e, Type::Error);
            return;
        };
        let Some(name) = field.as_string_literal() else {
            self.error(field, "unsupported optional field selection".into());
            self.set_type(e, Type::Error);
            return;
        };
        let t = self.check_select_field(e, operand, name, true);
        let t = self.substitute(&t, false);
        self.set_type(e, t);
        self.refs.insert(e.id, Reference::OptionalSelect);
    }

    fn resolve_overload(
        &mut self,
        e: &Expr,
        f: &Function,
        target: Option<&Expr>,
        args: &[Expr],
        name: String,
        global: bool,
    ) {
        let mut arg_types: Vec<Type> = Vec::with_capacity(args.len() + 1);
        if let Some(t) = target {
            arg_types.push(self.get_type(t));
        }
        for a in args {
            arg_types.push(self.get_type(a));
        }
        if (name == "_&&_" || name == "_||_") && target.is_none() {
            // cel-go checks each operand of a logical operator against bool on its own and
            // reports a mismatch at the operand.
            let mut ok = true;
            for (a, t) in args.iter().zip(arg_types.iter()) {
                if !self.is_assignable(t, &Type::Bool) {
                    let shown = self.substitute(t, true);
                    self.error(
                        a,
                        format!("expected type 'bool' but found '{}'", format_type(&shown)),
                    );
                    ok = false;
                }
            }
            if ok {
                let id = f.overloads.first().map(|o| o.id).unwrap_or("logical_and");
                self.set_type(e, Type::Bool);
                self.refs.insert(
                    e.id,
                    Reference::Function {
                        name,
                        overloads: vec![id],
                        global,
                    },
                );
            } else {
                self.set_type(e, Type::Error);
            }
            return;
        }
        let mut result: Option<Type> = None;
        let mut ids: Vec<&'static str> = Vec::new();
        for o in &f.overloads {
            if (target.is_none() && o.member) || (target.is_some() && !o.member) {
                continue;
            }
            if o.params.len() != arg_types.len() {
                continue;
            }
            let (params, res) = self.instantiate(o);
            let snapshot = self.mapping.clone();
            let mut ok = true;
            for (p, a) in params.iter().zip(arg_types.iter()) {
                if !self.is_assignable(p, a) {
                    ok = false;
                    break;
                }
            }
            if !ok {
                self.mapping = snapshot;
                continue;
            }
            ids.push(o.id);
            let r = self.substitute(&res, false);
            result = Some(match result {
                None => r,
                Some(prev) => {
                    if !prev.is_dyn() && !exact_eq(&prev, &r) {
                        Type::Dyn
                    } else {
                        prev
                    }
                }
            });
        }
        match result {
            Some(t) => {
                self.set_type(e, t);
                self.refs.insert(
                    e.id,
                    Reference::Function {
                        name,
                        overloads: ids,
                        global,
                    },
                );
            }
            None => {
                let shown: Vec<String> = arg_types
                    .iter()
                    .map(|t| format_type(&self.substitute(t, true)))
                    .collect();
                let sig = if target.is_some() {
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
                        name, sig
                    ),
                );
                self.set_type(e, Type::Error);
            }
        }
    }

    /// Instantiates an overload's type parameters with fresh type variables.
    fn instantiate(&mut self, o: &Overload) -> (Vec<Type>, Type) {
        let mut params_seen: Vec<Arc<str>> = Vec::new();
        for p in &o.params {
            collect_params(p, &mut params_seen);
        }
        collect_params(&o.result, &mut params_seen);
        if params_seen.is_empty() {
            return (o.params.clone(), o.result.clone());
        }
        let mut subst: Vec<(Arc<str>, Type)> = Vec::with_capacity(params_seen.len());
        for p in params_seen {
            let v = self.new_type_var();
            subst.push((p, v));
        }
        let params = o.params.iter().map(|t| replace_params(t, &subst)).collect();
        let result = replace_params(&o.result, &subst);
        (params, result)
    }

    fn find(&self, t: &Type) -> Option<Type> {
        match t {
            Type::Param(n) => self
                .mapping
                .iter()
                .rev()
                .find(|(k, _)| k == n)
                .map(|(_, v)| v.clone()),
            _ => None,
        }
    }

    fn bind(&mut self, name: &Arc<str>, t: Type) {
        match self.mapping.iter_mut().find(|(k, _)| k == name) {
            Some(entry) => entry.1 = t,
            None => self.mapping.push((name.clone(), t)),
        }
    }

    fn substitute(&self, t: &Type, param_to_dyn: bool) -> Type {
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
        let snapshot = self.mapping.clone();
        if self.internal_is_assignable(t1, t2, 0) {
            true
        } else {
            self.mapping = snapshot;
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
        if is_dyn_or_error(t1) || is_dyn_or_error(t2) {
            return true;
        }
        if let Type::Null = t1 {
            return legacy_nullable(t2);
        }
        if let Type::Null = t2 {
            return legacy_nullable(t1);
        }
        match (t1, t2) {
            (Type::Type(_), other) => matches!(other, Type::Type(_)),
            (Type::List(a), Type::List(b)) => self.internal_is_assignable(a, b, depth + 1),
            (Type::Map(ak, av), Type::Map(bk, bv)) => {
                self.internal_is_assignable(ak, bk, depth + 1)
                    && self.internal_is_assignable(av, bv, depth + 1)
            }
            (Type::Optional(a), Type::Optional(b)) => self.internal_is_assignable(a, b, depth + 1),
            (Type::Named(a, ap), Type::Named(b, bp)) => {
                a == b
                    && ap.len() == bp.len()
                    && ap
                        .iter()
                        .zip(bp.iter())
                        .all(|(x, y)| self.internal_is_assignable(x, y, depth + 1))
            }
            (a, b) => kind_rank(a) == kind_rank(b) && exact_eq(a, b),
        }
    }

    fn valid_substitution(&mut self, t1: &Type, t2: &Type, depth: u32) -> (bool, bool) {
        if exact_eq(t1, t2) {
            return (true, true);
        }
        if let Some(t2sub) = self.find(t2) {
            if exact_eq(t1, &t2sub) {
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
        if exact_eq(t, within) {
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

fn root_ident(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Ident(n) => Some(n.as_str()),
        ExprKind::Select { operand, .. } => root_ident(operand),
        _ => None,
    }
}

fn legacy_nullable(t: &Type) -> bool {
    matches!(
        t,
        Type::Named(..) | Type::Optional(_) | Type::Duration | Type::Timestamp
    )
}

fn exact_eq(a: &Type, b: &Type) -> bool {
    a == b
}

fn is_equal_or_less_specific(t1: &Type, t2: &Type) -> bool {
    if matches!(t1, Type::Dyn | Type::Param(_)) {
        return true;
    }
    if matches!(t2, Type::Dyn | Type::Param(_)) {
        return false;
    }
    match (t1, t2) {
        (Type::List(a), Type::List(b)) => is_equal_or_less_specific(a, b),
        (Type::Map(ak, av), Type::Map(bk, bv)) => {
            is_equal_or_less_specific(ak, bk) && is_equal_or_less_specific(av, bv)
        }
        (Type::Optional(a), Type::Optional(b)) => is_equal_or_less_specific(a, b),
        (Type::Named(a, ap), Type::Named(b, bp)) => {
            a == b
                && ap.len() == bp.len()
                && ap
                    .iter()
                    .zip(bp.iter())
                    .all(|(x, y)| is_equal_or_less_specific(x, y))
        }
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

fn collect_params(t: &Type, out: &mut Vec<Arc<str>>) {
    match t {
        Type::Param(n) if !out.contains(n) => out.push(n.clone()),
        Type::List(e) | Type::Optional(e) | Type::Type(e) => collect_params(e, out),
        Type::Map(k, v) => {
            collect_params(k, out);
            collect_params(v, out);
        }
        Type::Named(_, ps) => ps.iter().for_each(|p| collect_params(p, out)),
        _ => {}
    }
}

fn replace_params(t: &Type, subst: &[(Arc<str>, Type)]) -> Type {
    match t {
        Type::Param(n) => subst
            .iter()
            .find(|(k, _)| k == n)
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
