//! Turns a checked AST into an executable plan: names to slots, calls to implementations,
//! constant literals folded, constant conversions and constant-list membership precomputed,
//! constant regular expressions compiled — what cel-go's planner does with `OptOptimize`.

use std::borrow::Cow;
use std::sync::Arc;

use matchcond_front::checker::{NameMap, OverloadSet};
use matchcond_front::decls::Overload;

use matchcond_front::ast::{Comprehension, Expr, ExprKind, Literal};
use matchcond_front::checker::{qualified_name, Checked, Reference};
use matchcond_front::decls::Function;
use matchcond_front::Type;
use matchcond_runtime::cost::CostKind;
use matchcond_runtime::libraries::{compile_regex, Bindings};
use matchcond_runtime::plan::{
    singleton_dispatch, Attr, AttrRoot, AuthzCheck, Call, Candidate, Dispatch, Fold, Node, Qual,
    QualKind,
};
use matchcond_runtime::value::{Bin, List, Map, MapData, Str, TypeName, Value};
use matchcond_runtime::{Activation, EvalError};

/// A call resolved by the checker: the function and the overloads that may apply.
type Resolved<'c> = (&'c Function, &'c OverloadSet);

/// The candidate overloads of a call, in declaration order: those the checker selected, or
/// (unchecked) those of the right style and arity.
#[derive(Clone)]
struct Overloads<'c> {
    function: Option<&'c Function>,
    set: Option<&'c OverloadSet>,
    member: bool,
    arity: usize,
    next: usize,
}

impl<'c> Iterator for Overloads<'c> {
    type Item = &'c Overload;

    fn next(&mut self) -> Option<&'c Overload> {
        loop {
            let i = self.next;
            let o = self.function?.overloads.get(i)?;
            self.next += 1;
            let candidate = match self.set {
                Some(set) => set.contains(i),
                None => o.member == self.member && o.params.len() == self.arity,
            };
            if candidate {
                return Some(o);
            }
        }
    }
}

/// Functions that convert between types; constant arguments are converted at plan time.
const TYPE_CONVERSIONS: [&str; 10] = [
    "bool",
    "bytes",
    "double",
    "duration",
    "dyn",
    "int",
    "string",
    "timestamp",
    "type",
    "uint",
];

pub(crate) struct Planner<'c> {
    pub checked: Option<&'c Checked<'c>>,
    pub globals: &'c [String],
    pub functions: &'c NameMap<Function>,
    /// The implementations and costs of the environment's libraries.
    pub bindings: &'c Bindings,
    pub type_idents: &'c NameMap<Type>,
    pub scopes: Vec<(String, usize)>,
    pub depth: usize,
    pub max_locals: usize,
    /// Calls are priced by the Kubernetes cost estimator (1.32+), else by cel-go alone.
    pub strict_cost: bool,
    /// Two-variable comprehensions report a failed range as cel-go v0.22 does (1.32).
    pub two_var_range_error_unsupported: bool,
    /// Accumulators are initialized before the loop (cel-go before v0.22: 1.30, 1.31).
    pub eager_accumulator_init: bool,
    /// Names checked as types the runtime does not know evaluate to `no such attribute(s)`
    /// (cel-go before v0.22: 1.30, 1.31) rather than failing to plan.
    pub undefined_types_unbound: bool,
}

/// The run-time name of a type value.
pub(crate) fn type_name(t: &Type) -> TypeName {
    let s: &'static str = match t {
        Type::Named(n, _) => return TypeName(Cow::Owned(n.to_string())),
        Type::Optional(_) => "optional_type",
        // Type parameters and the error type are `dyn` at run time.
        other => other.runtime_name().unwrap_or("dyn"),
    };
    TypeName::new_static(s)
}

/// cel-go's planner error for a name checked as a type that its type provider cannot find.
fn undefined_type(name: &str) -> String {
    format!("reference to undefined type: {name}")
}

fn literal_value(l: &Literal) -> Value<'static> {
    match l {
        Literal::Null => Value::Null,
        Literal::Bool(b) => Value::Bool(*b),
        Literal::Int(i) => Value::Int(*i),
        Literal::Uint(u) => Value::Uint(*u),
        Literal::Double(d) => Value::Double(*d),
        Literal::String(s) => Value::String(Str::Shared(Arc::from(s.as_str()))),
        Literal::Bytes(b) => Value::Bytes(Bin::Shared(Arc::from(b.as_slice()))),
    }
}

fn into_attr(n: Node) -> Attr {
    match n {
        Node::Attr(a) if !a.test_only => *a,
        Node::Cond(..) => Attr::new(AttrRoot::Cond(n)),
        other => Attr::new(AttrRoot::Expr(other)),
    }
}

fn is_set_element(v: &Value<'_>) -> bool {
    matches!(
        v,
        Value::Null
            | Value::Bool(_)
            | Value::Int(_)
            | Value::Uint(_)
            | Value::Double(_)
            | Value::String(_)
    )
}

/// A list literal's node: a constant when every element is (kept out of
/// [`Planner::plan`], whose frame is on the stack once per level of nesting).
#[inline(never)]
fn list_node(nodes: Vec<Node>, optional_indices: &[u32]) -> Node {
    let optional: Vec<bool> = (0..nodes.len())
        .map(|i| optional_indices.iter().any(|&o| o as usize == i))
        .collect();
    if optional.iter().all(|o| !o) && nodes.iter().all(|n| matches!(n, Node::Const(_))) {
        let values: Vec<Value<'static>> = nodes
            .into_iter()
            .filter_map(|n| match n {
                Node::Const(v) => Some(v),
                _ => None,
            })
            .collect();
        return Node::Const(Value::List(List::Shared(Arc::new(values))));
    }
    Node::List(nodes, optional)
}

/// A map literal's node: a constant when every entry is.
#[inline(never)]
fn map_node(nodes: Vec<(Node, Node, bool)>) -> Result<Node, String> {
    let all_const = nodes
        .iter()
        .all(|(k, v, o)| !o && matches!(k, Node::Const(_)) && matches!(v, Node::Const(_)));
    if all_const {
        let mut data = MapData::new();
        for (k, v, _) in nodes {
            if let (Node::Const(k), Node::Const(v)) = (k, v) {
                data.insert_literal(k, v);
            }
        }
        return Ok(Node::Const(Value::Map(Map::Shared(Arc::new(data)))));
    }
    Ok(Node::Map(nodes))
}

impl<'c> Planner<'c> {
    fn reference(&self, e: &Expr) -> Option<&'c Reference<'c>> {
        self.checked.and_then(|c| c.reference(e.id))
    }

    fn local(&self, name: &str) -> Option<usize> {
        self.scopes
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, s)| *s)
    }

    /// Whether the first name of a qualified name is a comprehension variable in scope.
    fn root_is_local(&self, qualified: &str) -> bool {
        qualified
            .split('.')
            .next()
            .is_some_and(|r| self.local(r).is_some())
    }

    fn global(&self, name: &str) -> Option<usize> {
        let name = name.strip_prefix('.').unwrap_or(name);
        self.globals.iter().position(|g| g == name)
    }

    fn variable(&self, name: &str) -> Option<Node> {
        if !name.starts_with('.') {
            if let Some(slot) = self.local(name) {
                return Some(Node::Attr(Box::new(Attr::new(AttrRoot::Local(slot)))));
            }
        }
        self.global(name)
            .map(|slot| Node::Attr(Box::new(Attr::new(AttrRoot::Global(slot)))))
    }

    pub(crate) fn plan(&mut self, e: &'c Expr) -> Result<Node, String> {
        match &e.kind {
            ExprKind::Literal(l) => Ok(Node::Const(literal_value(l))),
            ExprKind::Ident(name) => self.plan_ident(e, name),
            ExprKind::Select {
                operand,
                field,
                test_only,
            } => {
                if !test_only {
                    if let Some(node) = self.plan_qualified_name(e)? {
                        return Ok(node);
                    }
                }
                let op = self.plan(operand)?;
                let mut attr = into_attr(op);
                attr.quals.push(Qual {
                    kind: QualKind::Field(field.as_str().into()),
                    optional: false,
                });
                attr.test_only = *test_only;
                Ok(Node::Attr(Box::new(attr)))
            }
            ExprKind::Call {
                target,
                function,
                args,
            } => self.plan_call(e, target.as_deref(), function, args),
            ExprKind::List {
                elements,
                optional_indices,
            } => {
                let mut nodes = Vec::with_capacity(elements.len());
                for el in elements {
                    nodes.push(self.plan(el)?);
                }
                Ok(list_node(nodes, optional_indices))
            }
            ExprKind::Map { entries } => {
                let mut nodes = Vec::with_capacity(entries.len());
                for en in entries {
                    let k = self.plan(&en.key)?;
                    let v = self.plan(&en.value)?;
                    nodes.push((k, v, en.optional));
                }
                map_node(nodes)
            }
            ExprKind::Struct { type_name, .. } => Err(format!(
                "unknown type: {}",
                type_name.trim_start_matches('.')
            )),
            ExprKind::Comprehension(c) => self.plan_fold(c),
        }
    }

    /// A selection that names a variable or a type as a whole (`a.b.c` declared as one
    /// name), if it is one. (Kept out of [`Planner::plan`], whose frame is on the stack once
    /// per level of nesting.)
    #[inline(never)]
    fn plan_qualified_name(&self, e: &Expr) -> Result<Option<Node>, String> {
        match self.reference(e) {
            Some(Reference::Variable(n)) => {
                if let Some(v) = self.variable(n) {
                    return Ok(Some(v));
                }
            }
            Some(Reference::TypeValue(t)) => {
                return Ok(Some(Node::type_const(type_name(t))));
            }
            Some(Reference::UndefinedType(n)) => return self.undefined_type(n).map(Some),
            _ => {}
        }
        if self.checked.is_none() {
            if let Some(q) = qualified_name(e) {
                if !self.root_is_local(&q) {
                    if let Some(v) = self.variable(&q) {
                        return Ok(Some(v));
                    }
                    if let Some(t) = self.type_idents.get(&q) {
                        return Ok(Some(Node::type_const(type_name(t))));
                    }
                }
            }
        }
        Ok(None)
    }

    fn plan_ident(&mut self, e: &'c Expr, name: &str) -> Result<Node, String> {
        match self.reference(e) {
            Some(Reference::TypeValue(t)) => return Ok(Node::type_const(type_name(t))),
            Some(Reference::UndefinedType(n)) => return self.undefined_type(n),
            Some(Reference::Variable(n)) => {
                if let Some(v) = self.variable(n) {
                    return Ok(v);
                }
            }
            _ => {}
        }
        if let Some(v) = self.variable(name) {
            return Ok(v);
        }
        if let Some(t) = self.type_idents.get(name.trim_start_matches('.')) {
            return Ok(Node::type_const(type_name(t)));
        }
        Ok(Node::Error(EvalError::new(
            matchcond_runtime::ErrorKind::Unbound,
            format!("no such attribute(s): {}", name.trim_start_matches('.')),
        )))
    }

    /// A name checked as a type that the runtime does not know: cel-go v0.22+ (1.32+) fails
    /// to plan it; before, it is an attribute that is never found.
    fn undefined_type(&self, name: &str) -> Result<Node, String> {
        let local = self.scopes.iter().any(|(n, _)| n == name);
        if self.undefined_types_unbound && !local {
            Ok(Node::Error(EvalError::new(
                matchcond_runtime::ErrorKind::Unbound,
                format!("no such attribute(s): {}", name.trim_start_matches('.')),
            )))
        } else {
            Err(undefined_type(name))
        }
    }

    fn plan_fold(&mut self, c: &'c Comprehension) -> Result<Node, String> {
        let range = self.plan(&c.iter_range)?;
        let init = self.plan(&c.accu_init)?;
        let accu_slot = self.depth;
        let iter_slot = self.depth + 1;
        let iter2_slot = c.iter_var2.as_ref().map(|_| self.depth + 2);
        self.depth += 3;
        self.max_locals = self.max_locals.max(self.depth);
        self.scopes.push((c.accu_var.clone(), accu_slot));
        self.scopes.push((c.iter_var.clone(), iter_slot));
        if let (Some(v2), Some(s2)) = (&c.iter_var2, iter2_slot) {
            self.scopes.push((v2.clone(), s2));
        }
        let cond = self.plan(&c.loop_condition)?;
        let step = self.plan(&c.loop_step)?;
        self.scopes.pop();
        if c.iter_var2.is_some() {
            self.scopes.pop();
        }
        let result = self.plan(&c.result)?;
        self.scopes.pop();
        self.depth -= 3;
        let step_reads_accu_once = step.reads_of_local(accu_slot) <= 1;
        Ok(Node::Fold(Box::new(Fold {
            range,
            init,
            accu_slot,
            iter_slot,
            iter2_slot,
            cond,
            step,
            result,
            step_reads_accu_once,
            range_error_unsupported: self.two_var_range_error_unsupported && c.iter_var2.is_some(),
            eager_init: self.eager_accumulator_init,
        })))
    }

    fn plan_index(&mut self, args: &'c [Expr], optional: bool) -> Result<Node, String> {
        let (Some(operand), Some(index)) = (args.first(), args.get(1)) else {
            return Err("index needs two arguments".into());
        };
        let op = self.plan(operand)?;
        let constant = |v: Value<'static>| match v {
            Value::String(s) => Ok(QualKind::Field(s.as_str().into())),
            v @ (Value::Int(_) | Value::Uint(_) | Value::Bool(_) | Value::Double(_)) => {
                Ok(QualKind::Const(v))
            }
            // cel-go makes qualifiers of these types only (attributes.go, newQualifier).
            other => Err(format!(
                "invalid qualifier type: {}",
                matchcond_runtime::interp::go_type_name(&other)
            )),
        };
        let kind = match &index.kind {
            ExprKind::Literal(l) => constant(literal_value(l))?,
            _ => match self.plan(index)? {
                Node::Const(v) => constant(v)?,
                n => QualKind::Dyn(n),
            },
        };
        let mut attr = into_attr(op);
        attr.quals.push(Qual { kind, optional });
        Ok(Node::Attr(Box::new(attr)))
    }

    /// Resolves a call's function name, its overloads (when checked) and whether the target
    /// is an argument.
    #[inline(never)]
    fn resolve_call(
        &self,
        e: &Expr,
        target: Option<&Expr>,
        function: &'c str,
    ) -> (&'c str, Option<Resolved<'c>>, bool) {
        match self.reference(e) {
            Some(Reference::Function {
                function,
                overloads,
                global,
            }) => (function.name, Some((function, overloads)), !global),
            Some(Reference::OptionalSelect) => ("_?._", None, false),
            _ => {
                let mut resolved = (function.trim_start_matches('.'), None, true);
                if let Some(t) = target {
                    if let Some(prefix) = qualified_name(t) {
                        let q = format!("{}.{}", prefix.trim_start_matches('.'), function);
                        if !self.root_is_local(&prefix) {
                            if let Some((q, _)) = self.functions.get_key_value(&q) {
                                resolved = (q.as_str(), None, false);
                            }
                        }
                    }
                }
                resolved
            }
        }
    }

    /// Plans a call. Its frame is on the stack once per level of nesting: what is done
    /// after the arguments are planned is in [`Planner::finish_call`].
    fn plan_call(
        &mut self,
        e: &'c Expr,
        target: Option<&'c Expr>,
        function: &'c str,
        args: &'c [Expr],
    ) -> Result<Node, String> {
        let (name, resolved, target_is_arg) = self.resolve_call(e, target, function);
        let target = if target_is_arg { target } else { None };
        match name {
            "_&&_" | "_||_" | "_?_:_" => {
                if let ("_&&_" | "_||_", [l, r]) = (name, args) {
                    let l = Box::new(self.plan(l)?);
                    let r = Box::new(self.plan(r)?);
                    return Ok(if name == "_&&_" {
                        Node::And(l, r)
                    } else {
                        Node::Or(l, r)
                    });
                }
                let mut planned = Vec::with_capacity(args.len());
                for a in args {
                    planned.push(self.plan(a)?);
                }
                let mut it = planned.into_iter();
                return match (name, it.next(), it.next(), it.next()) {
                    ("_&&_", Some(l), Some(r), None) => Ok(Node::And(Box::new(l), Box::new(r))),
                    ("_||_", Some(l), Some(r), None) => Ok(Node::Or(Box::new(l), Box::new(r))),
                    ("_?_:_", Some(c), Some(t), Some(f)) => {
                        Ok(Node::Cond(Box::new(c), Box::new(t), Box::new(f)))
                    }
                    _ => Err(format!("wrong number of arguments to {name}")),
                };
            }
            "_[_]" if target.is_none() => return self.plan_index(args, false),
            "_[?_]" if target.is_none() => return self.plan_index(args, true),
            "_?._" if target.is_none() => {
                let (Some(operand), Some(field)) = (args.first(), args.get(1)) else {
                    return Err("optional select needs two arguments".into());
                };
                let Some(field) = field.as_string_literal() else {
                    return Err("optional select needs a field name".into());
                };
                let op = self.plan(operand)?;
                let mut attr = into_attr(op);
                attr.quals.push(Qual {
                    kind: QualKind::Field(field.into()),
                    optional: true,
                });
                return Ok(Node::Attr(Box::new(attr)));
            }
            _ => {}
        }
        let mut planned = Vec::with_capacity(args.len() + usize::from(target.is_some()));
        for a in target.into_iter().chain(args.iter()) {
            planned.push(self.plan(a)?);
        }
        self.finish_call(name, resolved, target.is_some(), planned)
    }

    /// Builds a call node from its planned arguments: candidate overloads, the short-circuit
    /// and set-membership forms, a precompiled constant regex, folded constant conversions.
    #[inline(never)]
    fn finish_call(
        &self,
        name: &str,
        resolved: Option<Resolved<'c>>,
        member: bool,
        planned: Vec<Node>,
    ) -> Result<Node, String> {
        // Candidate overloads.
        let overloads = match resolved {
            Some((f, set)) => Overloads {
                function: Some(f),
                set: Some(set),
                member,
                arity: planned.len(),
                next: 0,
            },
            None => Overloads {
                function: self.functions.get(name),
                set: None,
                member,
                arity: planned.len(),
                next: 0,
            },
        };
        let mut first_two = overloads.clone();
        let single = match (first_two.next(), first_two.next()) {
            (Some(o), None) if resolved.is_some() => Some(o.id),
            _ => None,
        };

        // Optional or / orValue are short-circuiting and free.
        if member && planned.len() == 2 && (name == "or" || name == "orValue") {
            let is_opt_fn = overloads.clone().all(|o| o.id.starts_with("optional_or"));
            if is_opt_fn && overloads.clone().next().is_some() {
                let mut it = planned.into_iter();
                return match (it.next(), it.next()) {
                    (Some(l), Some(r)) if name == "or" => Ok(Node::OptOr(Box::new(l), Box::new(r))),
                    (Some(l), Some(r)) => Ok(Node::OptOrValue(Box::new(l), Box::new(r))),
                    _ => Err(format!("wrong number of arguments to {name}")),
                };
            }
        }

        // `x in [constants]` becomes a set membership test.
        if name == "@in" && single == Some("in_list") {
            if let Some(Node::Const(Value::List(List::Shared(items)))) = planned.get(1) {
                if items.iter().all(is_set_element) {
                    let set: Vec<Value<'static>> = items.iter().cloned().collect();
                    let mut it = planned.into_iter();
                    if let Some(arg) = it.next() {
                        if set.is_empty() {
                            return Ok(Node::Const(Value::Bool(false)));
                        }
                        return Ok(Node::InConstSet(Box::new(arg), set));
                    }
                    return Err("in needs two arguments".into());
                }
            }
        }

        // Which overloads run is decided as cel-go's planner and function bindings decide
        // it: a function with one implementation for all its overloads (a singleton binding)
        // dispatches on the values whatever the checker chose; one overload is guarded by its
        // parameter types; several are tried in declaration order.
        let declared = resolved
            .map(|(f, _)| f)
            .or_else(|| self.functions.get(name));
        let static_count = overloads.clone().count();
        let dispatch = match singleton_dispatch(name) {
            Some(d) => d,
            None if static_count == 1 => Dispatch::Guarded,
            None => Dispatch::Dynamic,
        };
        let chosen: Vec<&Overload> = match dispatch {
            Dispatch::Singleton(_) => declared
                .map(|f| {
                    f.overloads
                        .iter()
                        .filter(|o| o.params.len() == planned.len())
                        .collect()
                })
                .unwrap_or_default(),
            Dispatch::Guarded => overloads.collect(),
            Dispatch::Dynamic | Dispatch::Unguarded => Overloads {
                function: declared,
                set: None,
                member,
                arity: planned.len(),
                next: 0,
            }
            .collect(),
        };
        let mut candidates = Vec::with_capacity(chosen.len());
        for o in chosen {
            let id = o.id;
            let Some(func) = self.bindings.implementation(id) else {
                return Err(format!("no such overload: {name} ({id})"));
            };
            candidates.push(Candidate {
                id,
                params: o.params.clone(),
                func,
            });
        }
        if candidates.is_empty() {
            return Ok(Node::Error(EvalError::new(
                matchcond_runtime::ErrorKind::NoSuchOverload,
                format!("no such overload: {name}"),
            )));
        }

        // Precompile a constant regular expression.
        // (cel-go's regex optimizations: `matches`, and the Kubernetes `find`/`findAll`,
        // whose pattern is the second argument; an invalid constant pattern fails here.)
        let mut regex = None;
        let regex_fn = matches!(name, "matches" | "find" | "findAll");
        if regex_fn && planned.len() >= 2 && (name == "matches" || member) {
            if let Some(Node::Const(Value::String(p))) = planned.get(1) {
                let re = compile_regex(p).map_err(|e| e.message().to_string())?;
                regex = Some(Box::new(re));
            }
        }

        let non_strict = name == "@not_strictly_false" || name == "__not_strictly_false__";
        // Which calls cel-go's planner makes variadic (`planCall`): three or more arguments,
        // the function-level dispatcher (bound as a variadic function) when the checker left
        // several overloads, overloads bound as variadic functions (`string_format`), and the
        // calls its regular expression optimization rebuilds around a constant pattern.
        let varargs = planned.len() >= 3
            || (planned.len() == 2
                && (regex.is_some()
                    || dispatch == Dispatch::Dynamic
                    || single == Some("string_format")));
        let call = Call {
            cost: self.bindings.cost(name, single, self.strict_cost),
            function: name.into(),
            overload: single,
            candidates,
            args: planned,
            regex,
            non_strict,
            dispatch,
            varargs,
            tracked: self.bindings.tracked_argument(single),
        };

        // Conversions of constants happen once, now.
        if TYPE_CONVERSIONS.contains(&name)
            && call.args.len() == 1
            && matches!(call.args.first(), Some(Node::Const(_)))
        {
            let node = Node::Call(Box::new(call));
            let act = Activation::empty();
            let ev =
                matchcond_runtime::evaluate(&node, matchcond_runtime::Frame::default(), &act, None);
            return match ev.result {
                Ok(v) => Ok(Node::Const(v.into_owned())),
                Err(e) => Err(e.message().to_string()),
            };
        }
        if matches!(single, Some("decision_allowed" | "decision_errored")) {
            return Ok(self.authz_check(call));
        }
        if single == Some("logical_not") {
            return Ok(negated_authz_check(call));
        }
        Ok(Node::Call(Box::new(call)))
    }

    /// `authorizer.group(g).resource(r)…check(verb).allowed()` (or `.errored()`) as one
    /// [`AuthzCheck`] node, when every call of the chain is the library's, with a fixed
    /// cost, and every argument a constant or an attribute of a variable; the call as it is
    /// otherwise.
    fn authz_check(&self, accessor: Call) -> Node {
        let plain = |c: &Call, overloads: &[&str]| {
            c.overload.is_some_and(|o| overloads.contains(&o))
                && c.candidates.len() == 1
                && c.dispatch == Dispatch::Guarded
                && !c.varargs
                && !c.non_strict
                && c.regex.is_none()
                && c.tracked.is_none()
        };
        let fixed = |c: &Call| match c.cost {
            CostKind::Fixed(n) => Some(n),
            _ => None,
        };
        let simple_arg = |n: &Node| match n {
            Node::Const(Value::String(_)) => true,
            Node::Attr(a) => {
                !a.test_only
                    && matches!(a.root, AttrRoot::Global(_))
                    && a.quals.iter().all(|q| !matches!(q.kind, QualKind::Dyn(_)))
            }
            _ => false,
        };
        let authorizer = self.global("authorizer");
        let fused = (|| {
            let mut cost = fixed(&accessor)?;
            let Some(Node::Call(check)) = accessor.args.first() else {
                return None;
            };
            if !plain(check, &["resourcecheck_check"]) {
                return None;
            }
            cost = cost.checked_add(fixed(check)?)?;
            let [receiver, verb] = check.args.as_slice() else {
                return None;
            };
            let mut at = receiver;
            if !simple_arg(verb) {
                return None;
            }
            loop {
                let Node::Call(b) = at else {
                    return None;
                };
                let b: &Call = b;
                let [receiver, arg] = b.args.as_slice() else {
                    return None;
                };
                if !simple_arg(arg) {
                    return None;
                }
                cost = cost.checked_add(fixed(b)?)?;
                if plain(b, &["authorizer_group"]) {
                    let Node::Attr(a) = receiver else {
                        return None;
                    };
                    let root_is_authorizer =
                        matches!(a.root, AttrRoot::Global(s) if Some(s) == authorizer);
                    return (root_is_authorizer && a.quals.is_empty() && !a.test_only)
                        .then_some(cost);
                }
                if !plain(
                    b,
                    &[
                        "groupcheck_resource",
                        "resourcecheck_subresource",
                        "resourcecheck_namespace",
                        "resourcecheck_name",
                    ],
                ) {
                    return None;
                }
                at = receiver;
            }
        })();
        match fused {
            Some(cost) => Node::AuthzCheck(Box::new(AuthzCheck {
                calls: Node::Call(Box::new(accessor)),
                cost,
                negated: false,
            })),
            None => Node::Call(Box::new(accessor)),
        }
    }
}

/// `!` of a resource check read at once (the break-glass form,
/// `!authorizer….check(verb).allowed()`) as one [`AuthzCheck`] whose result is negated and
/// whose cost includes the negation's; the call as it is otherwise.
fn negated_authz_check(mut not: Call) -> Node {
    let CostKind::Fixed(not_cost) = not.cost else {
        return Node::Call(Box::new(not));
    };
    let foldable = not.candidates.len() == 1
        && !not.varargs
        && !not.non_strict
        && not.tracked.is_none()
        && matches!(not.args.as_slice(),
            [Node::AuthzCheck(c)] if !c.negated && c.cost.checked_add(not_cost).is_some());
    if !foldable {
        return Node::Call(Box::new(not));
    }
    let Some(Node::AuthzCheck(check)) = not.args.pop() else {
        return Node::Call(Box::new(not));
    };
    let AuthzCheck { calls, cost, .. } = *check;
    let cost = cost.saturating_add(not_cost);
    not.args.push(calls);
    Node::AuthzCheck(Box::new(AuthzCheck {
        calls: Node::Call(Box::new(not)),
        cost,
        negated: true,
    }))
}
