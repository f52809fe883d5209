//! The fast tier: a second, narrow form of a planned program for the shapes most
//! matchConditions take (field paths of the variables compared with constants, presence
//! tests, key and set membership, string prefixes, joined by `&&`, `||` and `!`).
//!
//! It evaluates directly on the request's JSON nodes and computes the same result and the
//! same cost as the general evaluator. Of the errors it reproduces one, the commonest: a
//! field selected where there is none (`object.metadata` when `object` is null on DELETE, or
//! a field an object lacks), cel-go's `no such key`, outside comprehensions. An unexpected
//! type, any other error or an exceeded cost limit makes it give up, and the general
//! evaluator then runs the program from the start (evaluation has no side effects, so
//! running it again is exact).

use memchr::arch::all::is_equal;
use serde_json::Value as Json;
use smallvec::SmallVec;

use crate::activation::{Activation, JsonRoot, Lookups};
use crate::cost::{self, Charge, CostKind, Estimate};
use crate::error::EvalError;
use crate::interp::borrow_const;
use crate::plan::{Attr, AttrRoot, MemoPoint, Node, QualKind};
use crate::request_view::{json_member, request_field};
use crate::value::{json_equals_scalar, values_equal, Str, Value};

/// The most memo slots a program in the fast tier may have (more: the general evaluator
/// runs it).
pub const MAX_MEMOS: usize = 8;

/// A program in the fast tier (see the module documentation).
#[derive(Debug)]
pub enum Fast {
    /// A boolean constant.
    Const(bool),
    /// `!a`, with the call's cost.
    Not(Box<Fast>, CallCost),
    /// `a && b`
    And(Box<Fast>, Box<Fast>),
    /// `a || b`
    Or(Box<Fast>, Box<Fast>),
    /// `path == constant` or `path != constant` (either operand order).
    Eq(Box<EqTest>),
    /// `path == path` or `path != path` (deep equality of what two paths reach).
    EqPaths(Box<EqPaths>),
    /// `has(path)`: the last field's presence.
    Has(Path),
    /// `'key' in path`: a key of a map or an element of a list.
    InKey(Box<str>, Path, CallCost),
    /// `path in [constants]`.
    InSet(Path, Vec<Value<'static>>),
    /// `path.startsWith('s')`, `endsWith`, `contains`.
    Str(Path, StrOp, Box<str>, CallCost),
    /// `path.contains('s')` with the needle's searcher built once.
    Contains(Path, Box<Needle>, CallCost),
    /// `@not_strictly_false(a)` (the loop condition of `all` and `exists`).
    NotStrictlyFalse(Box<Fast>, CallCost),
    /// A boolean comprehension variable (the accumulator of `all` and `exists`).
    Local(usize),
    /// A path whose value is a boolean (`request.dryRun`).
    Path(Path),
    /// A comprehension over the keys of a map or the elements of a list with a boolean
    /// accumulator (`all`, `exists`).
    Fold(Box<FastFold>),
}

/// A comprehension in the fast tier.
#[derive(Debug)]
pub struct FastFold {
    range: Path,
    init: bool,
    accu: usize,
    iter: usize,
    cond: Fast,
    step: Fast,
    result: Fast,
}

/// An equality test against a constant.
#[derive(Debug)]
pub struct EqTest {
    /// The field path.
    pub path: Path,
    /// The constant (a scalar).
    pub constant: Value<'static>,
    /// `!=`.
    pub negate: bool,
    /// The constant is the left operand.
    pub constant_first: bool,
    /// The call's cost.
    pub cost: CallCost,
}

/// An equality of two paths.
#[derive(Debug)]
pub struct EqPaths {
    left: Path,
    right: Path,
    negate: bool,
    cost: CallCost,
}

/// A constant substring with its searcher and size.
#[derive(Debug)]
pub struct Needle {
    text: Box<str>,
    finder: memchr::memmem::Finder<'static>,
    chars: u64,
}

/// A string test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StrOp {
    /// `startsWith`
    StartsWith,
    /// `endsWith`
    EndsWith,
    /// `contains`
    Contains,
}

/// How a call is priced (as the general evaluator prices it).
#[derive(Debug)]
pub struct CallCost {
    kind: CostKind,
    /// An equality priced `ceil(min(size) * 0.1)` (see [`CallCost::quick_equality`]).
    min_tenth: bool,
    /// The cost of the call when its path's selection errs, known when it is lowered (the
    /// other arguments are constants): see [`CallCost::erring`].
    on_error: u64,
}

impl CallCost {
    /// The cost of an equality between a JSON node and a scalar constant: cel-go's
    /// `ceil(min(size) * 0.1)` (which the Kubernetes estimator keeps for non-library
    /// values), computed without building values where it is cheap to.
    fn quick_equality(&self, node: &Json, constant: &Value<'_>) -> Option<u64> {
        if self.min_tenth {
            match (node, constant) {
                (Json::String(x), Value::String(y)) if x.len() <= 10 || y.len() <= 10 => {
                    return Some(u64::from(!x.is_empty() && !y.is_empty()));
                }
                (Json::String(_), _) | (_, Value::String(_)) => {}
                // Every other scalar has size 1: ceil(0.1) = 1.
                (Json::Null | Json::Bool(_) | Json::Number(_), _) => return Some(1),
                // A list or map beside a scalar of size 1: 0 when it is empty, else 1.
                (Json::Array(items), _) => return Some(u64::from(!items.is_empty())),
                (Json::Object(members), _) => return Some(u64::from(!members.is_empty())),
            }
        }
        None
    }

    fn new(kind: CostKind) -> Self {
        let min_tenth = matches!(
            kind,
            CostKind::Charge(Charge::MinTenth)
                | CostKind::Estimated(Estimate::LibraryEquality, Charge::MinTenth)
        );
        CallCost {
            kind,
            min_tenth,
            on_error: 0,
        }
    }

    /// This cost with the charge of the call whose erring argument is priced as `null`
    /// (`args`, as cel-go sizes an error value) computed once.
    fn erring(mut self, args: &[Value<'_>]) -> Self {
        self.on_error = self.of_error(args);
        self
    }

    /// The cost when it does not depend on the arguments.
    fn fixed(&self) -> Option<u64> {
        match self.kind {
            CostKind::Fixed(n) => Some(n),
            _ => None,
        }
    }

    fn of(&self, args: &[Value<'_>], result: bool) -> u64 {
        if let CostKind::Fixed(n) = self.kind {
            return n;
        }
        cost::cost_of(self.kind, args, &Value::Bool(result))
    }

    /// The cost of a call that ends in an error (an erroneous argument priced as `null`,
    /// as cel-go sizes an error value).
    fn of_error(&self, args: &[Value<'_>]) -> u64 {
        if let CostKind::Fixed(n) = self.kind {
            return n;
        }
        cost::cost_of(self.kind, args, &Value::Null)
    }
}

/// A field selected where there is none (`no such key: <field>`): the field and its path
/// position are in [`FastEval`]'s `missing` and `missing_at`, so that results stay a byte
/// (a node) or a path's reach (a path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Missing;

/// What the fast tier evaluates a node to: a boolean, or a missing field; `None` when the
/// general evaluator must decide.
type Out = Option<Result<bool, Missing>>;

/// What a path reaches, or a missing field; `None` as [`Out`].
type Reach<'a> = Option<Result<Reached<'a>, Missing>>;

/// A chain of plain field selections (or indexes by a comprehension variable) from a
/// variable.
#[derive(Debug)]
pub struct Path {
    root: Root,
    fields: Box<[Step]>,
    memo: Vec<MemoPoint>,
    /// The memo slot of the path extended by a presence-tested field or a `'key' in` key.
    extended_memo: Option<usize>,
    /// For a path of `request`: the first field's index in the bound request's fields.
    request_field: Option<usize>,
}

/// Where a path starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Root {
    /// A variable of the activation.
    Global(usize),
    /// A comprehension variable.
    Local(usize),
}

/// One step of a path.
#[derive(Debug)]
enum Step {
    /// A field name or constant string key.
    Field(Box<str>),
    /// An index by a comprehension variable holding a string (`m[k]`).
    Local(usize),
}

impl Path {
    /// From a planned attribute: a variable with plain field qualifiers (or indexes by a
    /// comprehension variable) only.
    fn of(a: &Attr) -> Option<Path> {
        let root = match a.root {
            AttrRoot::Global(slot) => Root::Global(slot),
            AttrRoot::Local(slot) => Root::Local(slot),
            _ => return None,
        };
        let mut fields = Vec::with_capacity(a.quals.len());
        for q in &a.quals {
            match &q.kind {
                _ if q.optional => return None,
                QualKind::Field(f) => fields.push(Step::Field(f.clone())),
                QualKind::Dyn(Node::Attr(k))
                    if k.quals.is_empty()
                        && !k.test_only
                        && matches!(k.root, AttrRoot::Local(_)) =>
                {
                    let AttrRoot::Local(slot) = k.root else {
                        return None;
                    };
                    fields.push(Step::Local(slot));
                }
                _ => return None,
            }
        }
        let request_field = match (root, fields.first()) {
            (Root::Global(crate::activation::SLOT_REQUEST), Some(Step::Field(f))) => {
                crate::request_view::request_field_index(f)
            }
            _ => None,
        };
        Some(Path {
            root,
            fields: fields.into_boxed_slice(),
            memo: a.memo.clone(),
            extended_memo: a.extended_memo,
            request_field,
        })
    }
}

/// A comprehension variable's value in the fast tier.
#[derive(Clone, Copy, Debug)]
enum Var<'a> {
    Bool(bool),
    Json(&'a Json),
    /// A key of the map being iterated, with its value and the map.
    Entry(&'a str, &'a Json, &'a serde_json::Map<String, Json>),
}

/// What a path reached.
#[derive(Clone, Copy, Debug)]
enum Reached<'a> {
    Json(&'a Json),
    Key(&'a str),
}

impl<'a> Reached<'a> {
    fn value(self) -> Value<'a> {
        match self {
            Reached::Json(j) => Value::from_json(j),
            Reached::Key(k) => Value::String(Str::Borrowed(k)),
        }
    }

    fn as_str(self) -> Option<&'a str> {
        match self {
            Reached::Json(Json::String(s)) => Some(s),
            Reached::Key(k) => Some(k),
            Reached::Json(_) => None,
        }
    }
}

/// Lowers a planned program to the fast tier, when every part of it has a fast form.
pub fn lower(n: &Node) -> Option<Fast> {
    match n {
        Node::Const(Value::Bool(b)) => Some(Fast::Const(*b)),
        Node::And(l, r) => Some(Fast::And(Box::new(lower(l)?), Box::new(lower(r)?))),
        Node::Or(l, r) => Some(Fast::Or(Box::new(lower(l)?), Box::new(lower(r)?))),
        Node::Attr(a) if a.test_only && !a.quals.is_empty() => {
            let p = Path::of(a)?;
            let plain = p.fields.iter().all(|f| matches!(f, Step::Field(_)));
            (plain && matches!(p.root, Root::Global(_))).then_some(Fast::Has(p))
        }
        Node::Attr(a) if !a.test_only && a.quals.is_empty() => match a.root {
            AttrRoot::Local(slot) => Some(Fast::Local(slot)),
            _ => None,
        },
        Node::Attr(a) if !a.test_only => Some(Fast::Path(Path::of(a)?)),
        Node::Fold(f) => {
            if f.iter2_slot.is_some() {
                return None;
            }
            let range = match &f.range {
                Node::Attr(a) if !a.test_only => Path::of(a)?,
                _ => return None,
            };
            let Node::Const(Value::Bool(init)) = f.init else {
                return None;
            };
            Some(Fast::Fold(Box::new(FastFold {
                range,
                init,
                accu: f.accu_slot,
                iter: f.iter_slot,
                cond: lower(&f.cond)?,
                step: lower(&f.step)?,
                result: lower(&f.result)?,
            })))
        }
        Node::InConstSet(arg, set) => match &**arg {
            Node::Attr(a) if !a.test_only => Some(Fast::InSet(Path::of(a)?, set.clone())),
            _ => None,
        },
        Node::Call(c) => {
            let cost = CallCost::new(c.cost);
            if c.non_strict {
                return match (c.function.as_ref(), c.args.as_slice()) {
                    ("@not_strictly_false", [a]) => Some(Fast::NotStrictlyFalse(
                        Box::new(lower(a)?),
                        cost.erring(&[Value::Null]),
                    )),
                    _ => None,
                };
            }
            if c.regex.is_some() || (c.candidates.len() != 1 && c.function.as_ref() != "@in") {
                return None;
            }
            let attr = |n: &Node| match n {
                Node::Attr(a) if !a.test_only => Path::of(a),
                _ => None,
            };
            let scalar = |n: &Node| match n {
                Node::Const(
                    v @ (Value::Null
                    | Value::Bool(_)
                    | Value::Int(_)
                    | Value::Uint(_)
                    | Value::Double(_)
                    | Value::String(_)),
                ) => Some(v.clone()),
                _ => None,
            };
            let string = |n: &Node| match n {
                Node::Const(Value::String(s)) => Some(Box::<str>::from(s.as_str())),
                _ => None,
            };
            match (c.function.as_ref(), c.args.as_slice()) {
                ("!_", [a]) => Some(Fast::Not(Box::new(lower(a)?), cost.erring(&[Value::Null]))),
                ("_==_" | "_!=_", [l, r]) => {
                    let negate = c.function.as_ref() == "_!=_";
                    if let (Some(left), Some(right)) = (attr(l), attr(r)) {
                        return Some(Fast::EqPaths(Box::new(EqPaths {
                            left,
                            right,
                            negate,
                            cost,
                        })));
                    }
                    let (path, constant, constant_first) = match (attr(l), scalar(r)) {
                        (Some(p), Some(k)) => (p, k, false),
                        _ => (attr(r)?, scalar(l)?, true),
                    };
                    let cost = if constant_first {
                        cost.erring(&[constant.clone(), Value::Null])
                    } else {
                        cost.erring(&[Value::Null, constant.clone()])
                    };
                    Some(Fast::Eq(Box::new(EqTest {
                        path,
                        constant,
                        negate,
                        constant_first,
                        cost,
                    })))
                }
                ("@in", [k, m]) => {
                    let key = string(k)?;
                    let cost = cost.erring(&[Value::String(Str::Borrowed(&key)), Value::Null]);
                    Some(Fast::InKey(key, attr(m)?, cost))
                }
                ("startsWith" | "endsWith" | "contains", [s, t]) => {
                    let op = match c.overload? {
                        "starts_with_string" => StrOp::StartsWith,
                        "ends_with_string" => StrOp::EndsWith,
                        "contains_string" => StrOp::Contains,
                        _ => return None,
                    };
                    let needle = string(t)?;
                    let cost = cost.erring(&[Value::Null, Value::String(Str::Borrowed(&needle))]);
                    if op == StrOp::Contains {
                        let finder = memchr::memmem::Finder::new(needle.as_bytes()).into_owned();
                        let chars = needle.chars().count() as u64;
                        let needle = Needle {
                            text: needle,
                            finder,
                            chars,
                        };
                        return Some(Fast::Contains(attr(s)?, Box::new(needle), cost));
                    }
                    Some(Fast::Str(attr(s)?, op, needle, cost))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The fast tier's state for one decision: made once, then used by each program the
/// decision evaluates (see [`FastEval::evaluate`]).
pub struct FastEval<'a, 'v, 'f> {
    act: &'v Activation<'a>,
    lookups: &'v Lookups<'a>,
    memo: [Option<&'a Json>; MAX_MEMOS],
    locals: SmallVec<[Option<Var<'a>>; 4]>,
    cost: u64,
    /// The cost limit: past it the fast tier gives up (checked at every comprehension
    /// step, so a loop ends as soon as the general evaluator would stop it).
    limit: u64,
    /// The field of the [`Missing`] last returned.
    missing: &'f str,
    /// Its position in its path (the qualifiers charged before it).
    missing_at: usize,
}

impl<'a, 'v, 'f> FastEval<'a, 'v, 'f> {
    /// The state for the decisions on an activation, with its lookups.
    pub fn new(activation: &'v Activation<'a>, lookups: &'v Lookups<'a>) -> Self {
        FastEval {
            act: activation,
            lookups,
            memo: [None; MAX_MEMOS],
            locals: SmallVec::new(),
            cost: 0,
            limit: u64::MAX,
            missing: "",
            missing_at: 0,
        }
    }

    /// Evaluates a fast-tier program with `memos` memo slots: the boolean result (or the
    /// error it reproduces) and its cost, or `None` when the general evaluator must decide.
    #[inline]
    pub fn evaluate(
        &mut self,
        fast: &'f Fast,
        memos: usize,
        cost_limit: Option<u64>,
    ) -> Option<(Result<bool, EvalError>, u64)> {
        // What an earlier program remembered is not this one's.
        if memos > MAX_MEMOS {
            return None;
        }
        if memos > 0 {
            self.memo = [None; MAX_MEMOS];
        }
        self.locals.clear();
        self.cost = 0;
        self.limit = cost_limit.unwrap_or(u64::MAX);
        let result = self.eval(fast)?;
        if self.cost > self.limit {
            return None;
        }
        match result {
            Ok(b) => Some((Ok(b), self.cost)),
            Err(Missing) => Some((Err(EvalError::no_such_field_key(self.missing)), self.cost)),
        }
    }
}

impl<'a, 'f> FastEval<'a, '_, 'f> {
    fn eval(&mut self, n: &'f Fast) -> Out {
        match n {
            Fast::Const(b) => Some(Ok(*b)),
            Fast::Not(a, cost) => match self.eval(a)? {
                Ok(v) => {
                    self.cost += cost
                        .fixed()
                        .unwrap_or_else(|| cost.of(&[Value::Bool(v)], !v));
                    Some(Ok(!v))
                }
                Err(e) => {
                    self.cost += cost.on_error;
                    Some(Err(e))
                }
            },
            Fast::And(l, r) => self.logic(l, r, false),
            Fast::Or(l, r) => self.logic(l, r, true),
            Fast::Eq(t) => self.eq(t),
            Fast::EqPaths(t) => self.eq_paths(t),
            Fast::Has(p) => self.has(p),
            Fast::InKey(key, p, cost) => self.in_key(key, p, cost),
            Fast::InSet(p, set) => self.in_set(p, set),
            Fast::Str(p, op, arg, cost) => self.str_op(p, *op, arg, cost),
            Fast::Contains(p, needle, cost) => self.contains(p, needle, cost),
            Fast::NotStrictlyFalse(a, cost) => match self.eval(a)? {
                Ok(r) => {
                    self.cost += cost
                        .fixed()
                        .unwrap_or_else(|| cost.of(&[Value::Bool(r)], r));
                    Some(Ok(r))
                }
                // Not strict: an error counts as true.
                Err(_) => {
                    self.cost += cost.on_error;
                    Some(Ok(true))
                }
            },
            Fast::Local(slot) => match self.locals.get(*slot) {
                Some(Some(Var::Bool(b))) => {
                    self.cost += 1;
                    Some(Ok(*b))
                }
                _ => None,
            },
            Fast::Fold(f) => self.fold(f).map(Ok),
            Fast::Path(p) => match self.node(p)? {
                Ok(Reached::Json(Json::Bool(b))) => Some(Ok(*b)),
                Ok(_) => None,
                Err(e) => Some(Err(e)),
            },
        }
    }

    /// `path == constant`, `path != constant`.
    #[inline(never)]
    fn eq(&mut self, t: &'f EqTest) -> Out {
        let reached = match self.node(&t.path)? {
            Ok(reached) => reached,
            Err(e) => {
                self.cost += t.cost.on_error;
                return Some(Err(e));
            }
        };
        let quick = match reached {
            Reached::Json(node) => {
                let quick = t.cost.quick_equality(node, &t.constant);
                if let (Some(c), Some(eq)) = (quick, json_equals_scalar(node, &t.constant)) {
                    self.cost += c;
                    return Some(Ok(eq != t.negate));
                }
                quick
            }
            Reached::Key(_) => None,
        };
        let v = reached.value();
        let k = borrow_const(&t.constant);
        let r = values_equal(&v, &k) != t.negate;
        self.cost += match quick {
            Some(c) => c,
            None if t.constant_first => t.cost.of(&[k, v], r),
            None => t.cost.of(&[v, k], r),
        };
        Some(Ok(r))
    }

    /// `path == path`, `path != path`.
    #[inline(never)]
    fn eq_paths(&mut self, t: &'f EqPaths) -> Out {
        // Both operands are evaluated, as the general evaluator does; the error is
        // the left one's when both err.
        let left = self.node(&t.left)?;
        let left_missing = (self.missing, self.missing_at);
        let right = self.node(&t.right)?;
        match (left, right) {
            (Ok(l), Ok(r)) => {
                let (l, r) = (l.value(), r.value());
                let eq = values_equal(&l, &r) != t.negate;
                self.cost += t.cost.of(&[l, r], eq);
                Some(Ok(eq))
            }
            (left, right) => {
                if left.is_err() {
                    (self.missing, self.missing_at) = left_missing;
                }
                let value =
                    |side: Result<Reached<'a>, Missing>| side.map_or(Value::Null, Reached::value);
                self.cost += t.cost.of_error(&[value(left), value(right)]);
                Some(Err(Missing))
            }
        }
    }

    /// `'key' in path`.
    #[inline(never)]
    fn in_key(&mut self, key: &str, p: &'f Path, cost: &CallCost) -> Out {
        let node = match self.node(p)? {
            Ok(Reached::Json(node)) => node,
            Ok(Reached::Key(_)) => return None,
            Err(e) => {
                self.cost += cost.on_error;
                return Some(Err(e));
            }
        };
        let r = match node {
            Json::Object(m) => self.find(p, m, key).is_some(),
            Json::Array(items) => items
                .iter()
                .any(|e| matches!(e, Json::String(s) if is_equal(s.as_bytes(), key.as_bytes()))),
            _ => return None,
        };
        self.cost += match (cost.kind, node) {
            (CostKind::Fixed(n), _) => n,
            // cel-go's default for `in` on a list: the list's size.
            (CostKind::Charge(Charge::InList), Json::Array(items)) => items.len() as u64,
            _ => cost.of(
                &[Value::String(Str::Borrowed(key)), Value::from_json(node)],
                r,
            ),
        };
        Some(Ok(r))
    }

    /// `startsWith`, `endsWith`, `contains` of a path.
    #[inline(never)]
    fn str_op(&mut self, p: &'f Path, op: StrOp, arg: &str, cost: &CallCost) -> Out {
        let s = match self.node(p)? {
            Ok(reached) => reached.as_str()?,
            Err(e) => {
                self.cost += cost.on_error;
                return Some(Err(e));
            }
        };
        let r = match op {
            StrOp::StartsWith => s.starts_with(arg),
            StrOp::EndsWith => s.ends_with(arg),
            StrOp::Contains => s.contains(arg),
        };
        self.cost += if matches!(cost.kind, CostKind::Charge(Charge::FirstTenth)) {
            // cel-go's default for startsWith/endsWith: ceil(size(receiver) * 0.1).
            cost::traversal_tenth(s.chars().count() as u64)
        } else {
            cost.of(
                &[
                    Value::String(Str::Borrowed(s)),
                    Value::String(Str::Borrowed(arg)),
                ],
                r,
            )
        };
        Some(Ok(r))
    }

    /// `contains` of a path, with the needle's searcher.
    #[inline(never)]
    fn contains(&mut self, p: &'f Path, needle: &Needle, cost: &CallCost) -> Out {
        let s = match self.node(p)? {
            Ok(reached) => reached.as_str()?,
            Err(e) => {
                self.cost += cost.on_error;
                return Some(Err(e));
            }
        };
        let r = needle.finder.find(s.as_bytes()).is_some();
        self.cost += if matches!(cost.kind, CostKind::Charge(Charge::Contains)) {
            // cel-go's default: ceil(size * 0.1) for both strings, multiplied.
            cost::traversal_tenth(s.chars().count() as u64) * cost::traversal_tenth(needle.chars)
        } else {
            cost.of(
                &[
                    Value::String(Str::Borrowed(s)),
                    Value::String(Str::Borrowed(&needle.text)),
                ],
                r,
            )
        };
        Some(Ok(r))
    }

    /// `path in [constants]`.
    #[inline(never)]
    fn in_set(&mut self, p: &'f Path, set: &[Value<'static>]) -> Out {
        match self.node(p)? {
            Ok(Reached::Json(node)) => Some(Ok(set.iter().any(|s| {
                json_equals_scalar(node, s)
                    .unwrap_or_else(|| values_equal(s, &Value::from_json(node)))
            }))),
            Ok(reached) => {
                let v = reached.value();
                Some(Ok(set.iter().any(|s| values_equal(s, &v))))
            }
            Err(e) => Some(Err(e)),
        }
    }

    /// `a && b` (`decisive` false) or `a || b` (true), as cel-go evaluates them: the
    /// decisive value of either side wins, else the left error, then the right.
    #[inline]
    fn logic(&mut self, l: &'f Fast, r: &'f Fast, decisive: bool) -> Out {
        let left = self.eval(l)?;
        if left == Ok(decisive) {
            return Some(left);
        }
        let left_missing = self.missing;
        let right = self.eval(r)?;
        if right == Ok(decisive) {
            return Some(right);
        }
        match (left, right) {
            (Err(Missing), _) => {
                self.missing = left_missing;
                Some(Err(Missing))
            }
            (_, Err(Missing)) => Some(Err(Missing)),
            _ => Some(Ok(!decisive)),
        }
    }

    /// `has(path)`: the last field's presence. Charged a qualifier for each field of the
    /// path up to the last one tested (the presence test on `null` or a scalar is false),
    /// or up to the one whose selection erred.
    #[inline(never)]
    fn has(&mut self, p: &'f Path) -> Out {
        let (last, prefix) = p.fields.split_last()?;
        let Root::Global(slot) = p.root else {
            return None;
        };
        let Step::Field(last) = last else {
            return None;
        };
        if prefix.is_empty() {
            self.cost += 1;
            if let (Some(i), true) = (p.request_field, self.act.has_request_index()) {
                return Some(Ok(self.act.request_field_in(self.lookups, i).is_some()));
            }
            return match self.act.json_root_in(self.lookups, slot) {
                Some(JsonRoot::Request(m)) => Some(Ok(request_field(m, last).is_some())),
                Some(JsonRoot::Object(m)) => Some(Ok(json_member(m, last).is_some())),
                None => match self.act.json_node_in(self.lookups, slot)? {
                    Json::Object(_) | Json::Array(_) => None,
                    _ => Some(Ok(false)),
                },
            };
        }
        match self.walk(p, prefix.len())? {
            Ok(Reached::Json(Json::Object(m))) => {
                self.cost += p.fields.len() as u64;
                Some(Ok(self.find(p, m, last).is_some()))
            }
            Ok(Reached::Json(Json::Array(_)) | Reached::Key(_)) => None,
            Ok(Reached::Json(_)) => {
                self.cost += p.fields.len() as u64;
                Some(Ok(false))
            }
            Err(Missing) => {
                self.cost += self.missing_at as u64 + 1;
                Some(Err(Missing))
            }
        }
    }

    fn set_local(&mut self, slot: usize, v: Var<'a>) {
        if self.locals.len() <= slot {
            self.locals.resize(slot + 1, None);
        }
        if let Some(l) = self.locals.get_mut(slot) {
            *l = Some(v);
        }
    }

    /// A comprehension; an error anywhere in it leaves it to the general evaluator.
    fn fold(&mut self, f: &'f FastFold) -> Option<bool> {
        let range = self.node(&f.range)?.ok()?;
        self.set_local(f.accu, Var::Bool(f.init));
        match range {
            Reached::Json(Json::Object(m)) => {
                for (k, v) in m {
                    self.set_local(f.iter, Var::Entry(k, v, m));
                    if !self.fold_step(f)? {
                        break;
                    }
                }
            }
            Reached::Json(Json::Array(items)) => {
                for e in items {
                    self.set_local(f.iter, Var::Json(e));
                    if !self.fold_step(f)? {
                        break;
                    }
                }
            }
            _ => return None,
        }
        self.eval(&f.result)?.ok()
    }

    /// One iteration; false when the loop condition stopped the loop.
    fn fold_step(&mut self, f: &'f FastFold) -> Option<bool> {
        if self.cost > self.limit {
            return None;
        }
        if !self.eval(&f.cond)?.ok()? {
            return Some(false);
        }
        let accu = self.eval(&f.step)?.ok()?;
        self.set_local(f.accu, Var::Bool(accu));
        Some(true)
    }

    /// What a path reaches (charged as an attribute: the variable and each step), or the
    /// field whose selection erred (charged the variable and the steps up to it).
    #[inline]
    fn node(&mut self, p: &'f Path) -> Reach<'a> {
        let r = if p.fields.is_empty() {
            match p.root {
                Root::Local(slot) => match self.locals.get(slot)? {
                    Some(Var::Json(j)) => Ok(Reached::Json(j)),
                    Some(Var::Entry(k, _, _)) => Ok(Reached::Key(k)),
                    _ => return None,
                },
                Root::Global(slot) => Ok(Reached::Json(self.act.json_node_in(self.lookups, slot)?)),
            }
        } else {
            self.walk(p, p.fields.len())?
        };
        self.cost += match r {
            Ok(_) => 1 + p.fields.len() as u64,
            Err(Missing) => 1 + self.missing_at as u64 + 1,
        };
        Some(r)
    }

    /// The error of selecting field `at` of a path on `node` (`null` or a scalar), or
    /// `None` when the general evaluator must tell (a list, an index by a variable).
    fn missing(&mut self, p: &'f Path, at: usize, node: &Json) -> Reach<'a> {
        match (node, p.fields.get(at)?) {
            (Json::Object(_) | Json::Array(_), _) | (_, Step::Local(_)) => None,
            (_, Step::Field(field)) => self.missing_field(field, at),
        }
    }

    /// A missing field, at position `at` of its path.
    fn missing_field(&mut self, field: &'f str, at: usize) -> Reach<'a> {
        self.missing = field;
        self.missing_at = at;
        Some(Err(Missing))
    }

    /// Walks the first `upto` (at least 1) steps of a path, from the longest remembered
    /// prefix, remembering the prefixes other paths share.
    fn walk(&mut self, p: &'f Path, upto: usize) -> Reach<'a> {
        let mut i = 0;
        let mut node: Option<&'a Json> = None;
        for point in p.memo.iter().rev().filter(|m| m.quals <= upto) {
            if let Some(&Some(j)) = self.memo.get(point.slot) {
                i = point.quals;
                node = Some(j);
                break;
            }
        }
        if let (None, Some(f), true) = (node, p.request_field, self.act.has_request_index()) {
            // The bound request's field, found when it was bound; a structure not in Go's
            // form is read by the general evaluator's view.
            let j = self.act.request_field_in(self.lookups, f)?;
            if !self.lookups.shows_as_is(f, j) {
                return None;
            }
            i = 1;
            node = Some(j);
            self.remember(p, 1, j);
        }
        let mut map = match node {
            Some(j) if i == upto => return Some(Ok(Reached::Json(j))),
            Some(Json::Object(m)) => m,
            Some(j) => return self.missing(p, i, j),
            None => match p.root {
                Root::Global(slot) => match self.act.json_root_in(self.lookups, slot) {
                    Some(JsonRoot::Object(m)) => m,
                    Some(JsonRoot::Request(m)) => {
                        let Step::Field(f) = p.fields.first()? else {
                            return None;
                        };
                        let j = request_field(m, f)?;
                        if !crate::request_parts::named_field_shows_as_is(f, j) {
                            return None;
                        }
                        i = 1;
                        self.remember(p, 1, j);
                        if upto == 1 {
                            return Some(Ok(Reached::Json(j)));
                        }
                        match j {
                            Json::Object(m) => m,
                            _ => return self.missing(p, 1, j),
                        }
                    }
                    // A variable that is `null` (`object` on DELETE) or a scalar.
                    None => {
                        let node = self.act.json_node_in(self.lookups, slot)?;
                        return self.missing(p, 0, node);
                    }
                },
                Root::Local(slot) => match self.locals.get(slot)? {
                    Some(Var::Json(Json::Object(m))) => m,
                    _ => return None,
                },
            },
        };
        loop {
            let j = match p.fields.get(i)? {
                Step::Field(f) => match json_member(map, f) {
                    Some(j) => j,
                    None => return self.missing_field(f, i),
                },
                Step::Local(slot) => match *self.locals.get(*slot)? {
                    // Indexing the map being iterated by its own key: the value is at hand.
                    Some(Var::Entry(_, v, of)) if std::ptr::eq(of, map) => v,
                    Some(Var::Entry(k, _, _)) => json_member(map, k)?,
                    Some(Var::Json(Json::String(k))) => json_member(map, k)?,
                    _ => return None,
                },
            };
            i += 1;
            self.remember(p, i, j);
            if i >= upto {
                return Some(Ok(Reached::Json(j)));
            }
            match j {
                Json::Object(m) => map = m,
                _ => return self.missing(p, i, j),
            }
        }
    }

    /// Looks up the field that extends a path (a presence-tested field or a `'key' in`
    /// key), remembering it when other paths pass through it.
    fn find(
        &mut self,
        p: &Path,
        m: &'a serde_json::Map<String, Json>,
        key: &str,
    ) -> Option<&'a Json> {
        let found = json_member(m, key)?;
        if let Some(slot) = p.extended_memo.and_then(|s| self.memo.get_mut(s)) {
            *slot = Some(found);
        }
        Some(found)
    }

    fn remember(&mut self, p: &Path, quals: usize, j: &'a Json) {
        if let Some(point) = p.memo.iter().find(|m| m.quals == quals) {
            if let Some(slot) = self.memo.get_mut(point.slot) {
                *slot = Some(j);
            }
        }
    }
}
