//! Macro expansion: `has()`, the comprehension macros (`all`, `exists`, `exists_one` /
//! `existsOne`, `map`, `filter`), the two-variable comprehensions, the optional-value
//! macros `optMap` / `optFlatMap`, and the lists extension's `sortBy`.
//!
//! Each expansion builds exactly the tree CEL's reference parser builds: the same node
//! shapes, helper function names and accumulator name, and node ids allocated in the
//! same order (children before the node that contains them). Every generated node is
//! located at the macro call (its opening parenthesis).

use crate::ast::{Comprehension, Expr, ExprId, ExprKind, Literal, MapEntry, ACCUMULATOR_VAR};

/// The accumulator name used by older expansions; iteration variables may not use it.
const LEGACY_ACCUMULATOR: &str = "__result__";

/// Which macro families are active.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MacroSet {
    /// `optMap`, `optFlatMap`.
    pub optional: bool,
    /// Two-variable comprehensions.
    pub two_var: bool,
    /// `sortBy`.
    pub lists: bool,
    /// `existsOne(x, p)`, the one-variable alias of `exists_one`.
    pub exists_one_alias: bool,
    /// Expansions accumulate in `__result__`, and an iteration variable may take that name
    /// (cel-go before v0.23); otherwise in the hidden `@result`, and neither name may be an
    /// iteration variable.
    pub legacy_accumulator: bool,
    /// Expansions share nodes, ids and all, and allocate ids, as cel-go before v0.18
    /// (Kubernetes 1.30 and older) builds them: `optMap` / `optFlatMap` put their target
    /// itself under both `hasValue()` and `value()`, `map` and `filter` use one accumulator
    /// identifier in the step and as the result, `exists_one` one literal `1` in the step
    /// and the result. Otherwise every use is a node of its own (the target's copy has
    /// fresh ids).
    pub shared_nodes: bool,
    /// Not a macro, but a choice of the same builders: a `\u`/`\U` escape of a code point
    /// that is no character (a lone surrogate) reads as U+FFFD, as cel-go before v0.23
    /// unescapes it; otherwise it is `invalid unicode code point`.
    pub invalid_code_points_replaced: bool,
}

/// The macros, by name, arity and call style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Macro {
    Has,
    All,
    Exists,
    ExistsOne,
    Map,
    Filter,
    OptMap,
    OptFlatMap,
    All2,
    Exists2,
    ExistsOne2,
    TransformList,
    TransformMap,
    TransformMapEntry,
    SortBy,
}

/// Finds the macro for a call, if any.
pub(crate) fn lookup(name: &str, argc: usize, receiver: bool, set: MacroSet) -> Option<Macro> {
    if !receiver {
        return (name == "has" && argc == 1).then_some(Macro::Has);
    }
    let m = match (name, argc) {
        ("all", 2) => Macro::All,
        ("exists", 2) => Macro::Exists,
        ("exists_one", 2) => Macro::ExistsOne,
        ("existsOne", 2) if set.exists_one_alias => Macro::ExistsOne,
        ("map", 2 | 3) => Macro::Map,
        ("filter", 2) => Macro::Filter,
        ("optMap", 2) if set.optional => Macro::OptMap,
        ("optFlatMap", 2) if set.optional => Macro::OptFlatMap,
        ("all", 3) if set.two_var => Macro::All2,
        ("exists", 3) if set.two_var => Macro::Exists2,
        ("existsOne" | "exists_one", 3) if set.two_var => Macro::ExistsOne2,
        ("transformList", 3 | 4) if set.two_var => Macro::TransformList,
        ("transformMap", 3 | 4) if set.two_var => Macro::TransformMap,
        ("transformMapEntry", 3 | 4) if set.two_var => Macro::TransformMapEntry,
        ("sortBy", 2) if set.lists => Macro::SortBy,
        _ => return None,
    };
    Some(m)
}

/// A malformed macro call: the message and the offset of the offending argument.
#[derive(Debug)]
pub(crate) struct MacroError {
    pub offset: u32,
    pub message: String,
}

/// Allocates the nodes of an expansion.
pub(crate) struct Helper<'i> {
    next_id: &'i mut ExprId,
    offset: u32,
    /// The accumulator's name.
    accumulator: &'static str,
    /// Whether iteration variables may not be named as an accumulator.
    check_names: bool,
    /// [`MacroSet::shared_nodes`].
    shared_nodes: bool,
}

impl<'i> Helper<'i> {
    /// A helper allocating ids from `next_id`, locating nodes at `offset`.
    pub fn new(next_id: &'i mut ExprId, offset: u32, set: MacroSet) -> Self {
        let (accumulator, check_names) = if set.legacy_accumulator {
            (LEGACY_ACCUMULATOR, false)
        } else {
            (ACCUMULATOR_VAR, true)
        };
        Helper {
            next_id,
            offset,
            accumulator,
            check_names,
            shared_nodes: set.shared_nodes,
        }
    }

    fn id(&mut self) -> ExprId {
        let id = *self.next_id;
        *self.next_id += 1;
        id
    }

    fn node(&mut self, kind: ExprKind) -> Expr {
        let id = self.id();
        Expr::new(id, self.offset, kind)
    }

    fn lit(&mut self, l: Literal) -> Expr {
        self.node(ExprKind::Literal(l))
    }

    fn list(&mut self, elements: Vec<Expr>) -> Expr {
        self.node(ExprKind::List {
            elements,
            optional_indices: Vec::new(),
        })
    }

    fn empty_map(&mut self) -> Expr {
        self.node(ExprKind::Map {
            entries: Vec::new(),
        })
    }

    fn ident(&mut self, name: &str) -> Expr {
        self.node(ExprKind::Ident(name.to_string()))
    }

    fn accu(&mut self) -> Expr {
        self.ident(self.accumulator)
    }

    fn call(&mut self, function: &str, args: Vec<Expr>) -> Expr {
        self.node(ExprKind::Call {
            target: None,
            function: function.to_string(),
            args,
        })
    }

    fn member_call(&mut self, function: &str, target: Expr, args: Vec<Expr>) -> Expr {
        self.node(ExprKind::Call {
            target: Some(Box::new(target)),
            function: function.to_string(),
            args,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn comprehension(
        &mut self,
        iter_range: Expr,
        iter_var: &str,
        iter_var2: Option<&str>,
        accu_var: &str,
        accu_init: Expr,
        loop_condition: Expr,
        loop_step: Expr,
        result: Expr,
    ) -> Expr {
        self.node(ExprKind::Comprehension(Box::new(Comprehension {
            iter_var: iter_var.to_string(),
            iter_var2: iter_var2.map(str::to_string),
            iter_range,
            accu_var: accu_var.to_string(),
            accu_init,
            loop_condition,
            loop_step,
            result,
        })))
    }

    /// A copy of `e` with fresh ids (each node first, then its children), keeping each
    /// node's location; map entries and struct fields are located at the macro call.
    fn copy(&mut self, e: &Expr) -> Expr {
        let id = self.id();
        let kind = match &e.kind {
            ExprKind::Literal(l) => ExprKind::Literal(l.clone()),
            ExprKind::Ident(n) => ExprKind::Ident(n.clone()),
            ExprKind::Select {
                operand,
                field,
                test_only,
            } => ExprKind::Select {
                operand: Box::new(self.copy(operand)),
                field: field.clone(),
                test_only: *test_only,
            },
            ExprKind::Call {
                target,
                function,
                args,
            } => {
                let args: Vec<Expr> = args.iter().map(|a| self.copy(a)).collect();
                let target = target.as_ref().map(|t| Box::new(self.copy(t)));
                ExprKind::Call {
                    target,
                    function: function.clone(),
                    args,
                }
            }
            ExprKind::List {
                elements,
                optional_indices,
            } => ExprKind::List {
                elements: elements.iter().map(|x| self.copy(x)).collect(),
                optional_indices: optional_indices.clone(),
            },
            ExprKind::Map { entries } => ExprKind::Map {
                entries: entries
                    .iter()
                    .map(|en| {
                        let eid = self.id();
                        let key = self.copy(&en.key);
                        let value = self.copy(&en.value);
                        MapEntry {
                            id: eid,
                            offset: self.offset,
                            key,
                            value,
                            optional: en.optional,
                        }
                    })
                    .collect(),
            },
            ExprKind::Struct { type_name, fields } => ExprKind::Struct {
                type_name: type_name.clone(),
                fields: fields
                    .iter()
                    .map(|f| {
                        let fid = self.id();
                        let value = self.copy(&f.value);
                        crate::ast::FieldInit {
                            id: fid,
                            offset: self.offset,
                            field: f.field.clone(),
                            value,
                            optional: f.optional,
                        }
                    })
                    .collect(),
            },
            ExprKind::Comprehension(c) => {
                let iter_range = self.copy(&c.iter_range);
                let accu_init = self.copy(&c.accu_init);
                let loop_condition = self.copy(&c.loop_condition);
                let loop_step = self.copy(&c.loop_step);
                let result = self.copy(&c.result);
                ExprKind::Comprehension(Box::new(Comprehension {
                    iter_var: c.iter_var.clone(),
                    iter_var2: c.iter_var2.clone(),
                    iter_range,
                    accu_var: c.accu_var.clone(),
                    accu_init,
                    loop_condition,
                    loop_step,
                    result,
                }))
            }
        };
        Expr::new(id, e.offset, kind)
    }
}

fn err(at: &Expr, message: &str) -> MacroError {
    MacroError {
        offset: at.offset,
        message: message.to_string(),
    }
}

fn is_accumulator(name: &str) -> bool {
    name == ACCUMULATOR_VAR || name == LEGACY_ACCUMULATOR
}

/// The name of an iteration variable argument.
fn iter_var(h: &Helper<'_>, arg: &Expr, not_ident: &str) -> Result<String, MacroError> {
    let v = arg.as_ident().ok_or_else(|| err(arg, not_ident))?;
    if h.check_names && is_accumulator(v) {
        return Err(err(
            arg,
            "iteration variable overwrites accumulator variable",
        ));
    }
    Ok(v.to_string())
}

/// The two iteration variables of a two-variable comprehension.
fn iter_vars(h: &Helper<'_>, a0: &Expr, a1: &Expr) -> Result<(String, String), MacroError> {
    let simple = "argument must be a simple name";
    let v1 = a0.as_ident().ok_or_else(|| err(a0, simple))?.to_string();
    let v2 = a1.as_ident().ok_or_else(|| err(a1, simple))?.to_string();
    if v1 == v2 {
        return Err(err(a1, &format!("duplicate variable name: {v1}")));
    }
    if h.check_names && is_accumulator(&v1) {
        return Err(err(
            a0,
            "iteration variable overwrites accumulator variable",
        ));
    }
    if h.check_names && is_accumulator(&v2) {
        return Err(err(
            a1,
            "iteration variable overwrites accumulator variable",
        ));
    }
    Ok((v1, v2))
}

/// Expands a macro call. `target` is the receiver of a member-style macro.
pub(crate) fn expand(
    m: Macro,
    h: &mut Helper<'_>,
    target: Option<Expr>,
    args: Vec<Expr>,
) -> Result<Expr, MacroError> {
    let call_offset = h.offset;
    let target =
        target.unwrap_or_else(|| Expr::new(0, call_offset, ExprKind::Literal(Literal::Null)));
    let mut args = args.into_iter();
    let a0 = args
        .next()
        .unwrap_or_else(|| Expr::new(0, call_offset, ExprKind::Literal(Literal::Null)));
    let rest: Vec<Expr> = args.collect();
    match m {
        Macro::Has => match a0.kind {
            ExprKind::Select { operand, field, .. } => Ok(h.node(ExprKind::Select {
                operand,
                field,
                test_only: true,
            })),
            _ => Err(err(&a0, "invalid argument to has() macro")),
        },
        Macro::All | Macro::Exists | Macro::ExistsOne => {
            let v = iter_var(h, &a0, "argument must be a simple name")?;
            let pred = rest
                .into_iter()
                .next()
                .unwrap_or_else(|| h.lit(Literal::Null));
            quantifier(m, h, target, &v, None, pred)
        }
        Macro::Map => {
            let v = iter_var(h, &a0, "argument is not an identifier")?;
            Ok(make_map(h, target, v, rest))
        }
        Macro::Filter => {
            let v = iter_var(h, &a0, "argument is not an identifier")?;
            let filter = rest
                .into_iter()
                .next()
                .unwrap_or_else(|| h.lit(Literal::Null));
            // `filter(v, p)` is `map(v, p, v)`, node for node.
            Ok(make_map(h, target, v, vec![filter, a0]))
        }
        Macro::OptMap | Macro::OptFlatMap => {
            let name = if m == Macro::OptMap {
                "optMap"
            } else {
                "optFlatMap"
            };
            let var = a0
                .as_ident()
                .ok_or_else(|| {
                    err(
                        &a0,
                        &format!("{name}() variable name must be a simple identifier"),
                    )
                })?
                .to_string();
            let map_expr = rest
                .into_iter()
                .next()
                .unwrap_or_else(|| h.lit(Literal::Null));
            let original = target.clone();
            let has_value = h.member_call("hasValue", target, Vec::new());
            let range = h.list(Vec::new());
            let target_copy = if h.shared_nodes {
                original
            } else {
                h.copy(&original)
            };
            let value = h.member_call("value", target_copy, Vec::new());
            let cond = h.lit(Literal::Bool(false));
            let step = h.ident(&var);
            let compre = h.comprehension(range, "#unused", None, &var, value, cond, step, map_expr);
            let present = if m == Macro::OptMap {
                h.call("optional.of", vec![compre])
            } else {
                compre
            };
            let none = h.call("optional.none", Vec::new());
            Ok(h.call("_?_:_", vec![has_value, present, none]))
        }
        Macro::All2 | Macro::Exists2 | Macro::ExistsOne2 => {
            let mut rest = rest.into_iter();
            let a1 = rest.next().unwrap_or_else(|| h.lit(Literal::Null));
            let (v1, v2) = iter_vars(h, &a0, &a1)?;
            let pred = rest.next().unwrap_or_else(|| h.lit(Literal::Null));
            let one = match m {
                Macro::All2 => Macro::All,
                Macro::Exists2 => Macro::Exists,
                _ => Macro::ExistsOne,
            };
            quantifier(one, h, target, &v1, Some(&v2), pred)
        }
        Macro::TransformList | Macro::TransformMap | Macro::TransformMapEntry => {
            let mut rest = rest.into_iter();
            let a1 = rest.next().unwrap_or_else(|| h.lit(Literal::Null));
            let (v1, v2) = iter_vars(h, &a0, &a1)?;
            let mut tail: Vec<Expr> = rest.collect();
            let transform = tail.pop().unwrap_or_else(|| h.lit(Literal::Null));
            let filter = tail.pop();
            let mut step = match m {
                Macro::TransformList => {
                    let accu = h.accu();
                    let l = h.list(vec![transform]);
                    h.call("_+_", vec![accu, l])
                }
                Macro::TransformMap => {
                    let accu = h.accu();
                    let key = h.ident(&v1);
                    h.call("cel.@mapInsert", vec![accu, key, transform])
                }
                _ => {
                    let accu = h.accu();
                    h.call("cel.@mapInsert", vec![accu, transform])
                }
            };
            if let Some(f) = filter {
                let accu = h.accu();
                step = h.call("_?_:_", vec![f, step, accu]);
            }
            let init = if m == Macro::TransformList {
                h.list(Vec::new())
            } else {
                h.empty_map()
            };
            let cond = h.lit(Literal::Bool(true));
            let result = h.accu();
            let accu = h.accumulator;
            Ok(h.comprehension(target, &v1, Some(&v2), accu, init, cond, step, result))
        }
        Macro::SortBy => {
            let var_ident = h.ident("@__sortBy_input__");
            let allowed = matches!(
                target.kind,
                ExprKind::List { .. }
                    | ExprKind::Select { .. }
                    | ExprKind::Ident(_)
                    | ExprKind::Comprehension(_)
                    | ExprKind::Call { .. }
            );
            if !allowed {
                return Err(err(
                    &target,
                    "sortBy can only be applied to a list, identifier, comprehension, call or select expression",
                ));
            }
            let range = h.copy(&var_ident);
            let v = iter_var(h, &a0, "argument is not an identifier")?;
            let map_compre = make_map(h, range, v, rest);
            let keys_target = h.copy(&var_ident);
            let call = h.member_call("@sortByAssociatedKeys", keys_target, vec![map_compre]);
            let empty = h.list(Vec::new());
            let cond = h.lit(Literal::Bool(false));
            Ok(h.comprehension(
                empty,
                "#unused",
                None,
                "@__sortBy_input__",
                target,
                cond,
                var_ident,
                call,
            ))
        }
    }
}

/// `map(v, fn)` / `map(v, filter, fn)` (arguments after the variable in `rest`).
fn make_map(h: &mut Helper<'_>, target: Expr, v: String, rest: Vec<Expr>) -> Expr {
    let mut rest = rest;
    let func = rest.pop().unwrap_or_else(|| h.lit(Literal::Null));
    let filter = rest.pop();
    // With shared nodes, one accumulator identifier, made first, in the step and as the
    // result; otherwise one for each use.
    let shared = h.shared_nodes.then(|| h.accu());
    let accu = |h: &mut Helper<'_>| shared.clone().unwrap_or_else(|| h.accu());
    let init = h.list(Vec::new());
    let cond = h.lit(Literal::Bool(true));
    let a = accu(h);
    let elem = h.list(vec![func]);
    let mut step = h.call("_+_", vec![a, elem]);
    if let Some(f) = filter {
        let a = accu(h);
        step = h.call("_?_:_", vec![f, step, a]);
    }
    let result = accu(h);
    let name = h.accumulator;
    h.comprehension(target, &v, None, name, init, cond, step, result)
}

fn quantifier(
    m: Macro,
    h: &mut Helper<'_>,
    target: Expr,
    v: &str,
    v2: Option<&str>,
    pred: Expr,
) -> Result<Expr, MacroError> {
    let (init, cond, step, result) = match m {
        Macro::All => {
            let init = h.lit(Literal::Bool(true));
            let accu = h.accu();
            let cond = h.call("@not_strictly_false", vec![accu]);
            let accu = h.accu();
            let step = h.call("_&&_", vec![accu, pred]);
            (init, cond, step, h.accu())
        }
        Macro::Exists => {
            let init = h.lit(Literal::Bool(false));
            let accu = h.accu();
            let not = h.call("!_", vec![accu]);
            let cond = h.call("@not_strictly_false", vec![not]);
            let accu = h.accu();
            let step = h.call("_||_", vec![accu, pred]);
            (init, cond, step, h.accu())
        }
        _ => {
            let init = h.lit(Literal::Int(0));
            // With shared nodes, one literal 1, made second, in the step and the result;
            // otherwise one for each use.
            let shared = h.shared_nodes.then(|| h.lit(Literal::Int(1)));
            let one = |h: &mut Helper<'_>| shared.clone().unwrap_or_else(|| h.lit(Literal::Int(1)));
            let cond = h.lit(Literal::Bool(true));
            let accu = h.accu();
            let o = one(h);
            let add = h.call("_+_", vec![accu, o]);
            let accu = h.accu();
            let step = h.call("_?_:_", vec![pred, add, accu]);
            let accu = h.accu();
            let o = one(h);
            let result = h.call("_==_", vec![accu, o]);
            (init, cond, step, result)
        }
    };
    let accu = h.accumulator;
    Ok(h.comprehension(target, v, v2, accu, init, cond, step, result))
}
