//! The fast tier: a second, narrow form of a planned program for the shapes most
//! matchConditions take (field paths of the variables compared with constants, presence
//! tests, key and set membership, string prefixes, joined by `&&`, `||` and `!`).
//!
//! It evaluates directly on the request's JSON nodes and computes the same result and the
//! same cost as the general evaluator, but only on the happy path: a missing field, an
//! unexpected type, an error of any kind or an exceeded cost limit makes it give up, and the
//! general evaluator then runs the program from the start (evaluation has no side effects,
//! so running it again is exact).

use serde_json::Value as Json;
use smallvec::SmallVec;

use crate::activation::{Activation, JsonRoot};
use crate::cost::{self, CostKind};
use crate::interp::borrow_const;
use crate::plan::{Attr, AttrRoot, MemoPoint, Node, QualKind};
use crate::value::{request_field, values_equal, Str, Value};

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
    /// `has(path)`: the last field's presence.
    Has(Path),
    /// `'key' in path`: a key of a map or an element of a list.
    InKey(Box<str>, Path, CallCost),
    /// `path in [constants]`.
    InSet(Path, Vec<Value<'static>>),
    /// `path.startsWith('s')`, `endsWith`, `contains`.
    Str(Path, StrOp, Box<str>, CallCost),
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
    function: Box<str>,
    overload: Option<&'static str>,
}

impl CallCost {
    /// The cost of an equality between a JSON node and a scalar constant: cel-go's
    /// `ceil(min(size) * 0.1)` (which the Kubernetes estimator keeps for non-library
    /// values), computed without building values where it is cheap to.
    fn quick_equality(&self, node: &Json, constant: &Value<'_>) -> Option<u64> {
        let min_tenth = matches!(self.kind, CostKind::MinTenth)
            || (matches!(self.kind, CostKind::Estimated)
                && &*self.function == "_==_"
                && self.overload == Some("equals"));
        if min_tenth {
            match (node, constant) {
                (Json::String(x), Value::String(y)) if x.len() <= 10 || y.len() <= 10 => {
                    return Some(u64::from(!x.is_empty() && !y.is_empty()));
                }
                (Json::String(_), _) | (_, Value::String(_)) => {}
                // Every other scalar has size 1: ceil(0.1) = 1.
                (Json::Null | Json::Bool(_) | Json::Number(_), _) => return Some(1),
                _ => {}
            }
        }
        None
    }

    fn of(&self, args: &[Value<'_>], result: bool) -> u64 {
        if let CostKind::Fixed(n) = self.kind {
            return n;
        }
        cost::cost_of(
            self.kind,
            &self.function,
            self.overload,
            args,
            &Value::Bool(result),
        )
    }
}

/// A chain of plain field selections from a variable.
#[derive(Debug)]
pub struct Path {
    slot: usize,
    fields: Box<[Box<str>]>,
    memo: Vec<MemoPoint>,
}

impl Path {
    /// From a planned attribute: a variable with plain field qualifiers only.
    fn of(a: &Attr) -> Option<Path> {
        let AttrRoot::Global(slot) = a.root else {
            return None;
        };
        let mut fields = Vec::with_capacity(a.quals.len());
        for q in &a.quals {
            match &q.kind {
                QualKind::Field(f) if !q.optional => fields.push(f.clone()),
                _ => return None,
            }
        }
        Some(Path {
            slot,
            fields: fields.into_boxed_slice(),
            memo: a.memo.clone(),
        })
    }
}

/// Lowers a planned program to the fast tier, when every part of it has a fast form.
pub fn lower(n: &Node) -> Option<Fast> {
    match n {
        Node::Const(Value::Bool(b)) => Some(Fast::Const(*b)),
        Node::And(l, r) => Some(Fast::And(Box::new(lower(l)?), Box::new(lower(r)?))),
        Node::Or(l, r) => Some(Fast::Or(Box::new(lower(l)?), Box::new(lower(r)?))),
        Node::Attr(a) if a.test_only && !a.quals.is_empty() => Some(Fast::Has(Path::of(a)?)),
        Node::InConstSet(arg, set) => match &**arg {
            Node::Attr(a) if !a.test_only && !a.quals.is_empty() => {
                Some(Fast::InSet(Path::of(a)?, set.clone()))
            }
            _ => None,
        },
        Node::Call(c) => {
            if c.regex.is_some()
                || c.non_strict
                || (c.candidates.len() != 1 && c.function.as_ref() != "@in")
            {
                return None;
            }
            let cost = CallCost {
                kind: c.cost,
                function: c.function.clone(),
                overload: c.overload,
            };
            let attr = |n: &Node| match n {
                Node::Attr(a) if !a.test_only && !a.quals.is_empty() => Path::of(a),
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
                ("!_", [a]) => Some(Fast::Not(Box::new(lower(a)?), cost)),
                ("_==_" | "_!=_", [l, r]) => {
                    let (path, constant, constant_first) = match (attr(l), scalar(r)) {
                        (Some(p), Some(k)) => (p, k, false),
                        _ => (attr(r)?, scalar(l)?, true),
                    };
                    Some(Fast::Eq(Box::new(EqTest {
                        path,
                        constant,
                        negate: c.function.as_ref() == "_!=_",
                        constant_first,
                        cost,
                    })))
                }
                ("@in", [k, m]) => Some(Fast::InKey(string(k)?, attr(m)?, cost)),
                ("startsWith" | "endsWith" | "contains", [s, t]) => {
                    let op = match c.overload? {
                        "starts_with_string" => StrOp::StartsWith,
                        "ends_with_string" => StrOp::EndsWith,
                        "contains_string" => StrOp::Contains,
                        _ => return None,
                    };
                    Some(Fast::Str(attr(s)?, op, string(t)?, cost))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Evaluates a fast-tier program: the boolean result and its cost, or `None` when the
/// general evaluator must decide.
pub fn evaluate_fast<'a>(
    fast: &Fast,
    memos: usize,
    activation: &Activation<'a>,
    cost_limit: Option<u64>,
) -> Option<(bool, u64)> {
    let mut f = FastEval {
        act: activation,
        memo: SmallVec::new(),
        cost: 0,
    };
    if memos > 0 {
        f.memo.resize(memos, None);
    }
    let b = f.eval(fast)?;
    if f.cost > cost_limit.unwrap_or(u64::MAX) {
        return None;
    }
    Some((b, f.cost))
}

struct FastEval<'a, 'v> {
    act: &'v Activation<'a>,
    memo: SmallVec<[Option<&'a Json>; 4]>,
    cost: u64,
}

impl<'a> FastEval<'a, '_> {
    fn eval(&mut self, n: &Fast) -> Option<bool> {
        match n {
            Fast::Const(b) => Some(*b),
            Fast::Not(a, cost) => {
                let r = !self.eval(a)?;
                self.cost += cost.of(&[Value::Bool(!r)], r);
                Some(r)
            }
            Fast::And(l, r) => Some(self.eval(l)? && self.eval(r)?),
            Fast::Or(l, r) => Some(self.eval(l)? || self.eval(r)?),
            Fast::Eq(t) => {
                let node = self.node(&t.path)?;
                let v = Value::from_json(node);
                let k = borrow_const(&t.constant);
                let r = values_equal(&v, &k) != t.negate;
                self.cost += match t.cost.quick_equality(node, &k) {
                    Some(c) => c,
                    None if t.constant_first => t.cost.of(&[k, v], r),
                    None => t.cost.of(&[v, k], r),
                };
                Some(r)
            }
            Fast::Has(p) => {
                let (last, prefix) = p.fields.split_last()?;
                self.cost += p.fields.len() as u64;
                if prefix.is_empty() {
                    return match self.act.json_root(p.slot)? {
                        JsonRoot::Request(m) => Some(request_field(m, last).is_some()),
                        JsonRoot::Object(m) => Some(m.contains_key(&**last)),
                    };
                }
                match self.walk(p, prefix.len())? {
                    Json::Object(m) => Some(m.contains_key(&**last)),
                    _ => None,
                }
            }
            Fast::InKey(key, p, cost) => {
                let node = self.node(p)?;
                let r = match node {
                    Json::Object(m) => m.contains_key(&**key),
                    Json::Array(items) => items
                        .iter()
                        .any(|e| matches!(e, Json::String(s) if s == &**key)),
                    _ => return None,
                };
                self.cost += cost.of(
                    &[Value::String(Str::Borrowed(key)), Value::from_json(node)],
                    r,
                );
                Some(r)
            }
            Fast::InSet(p, set) => {
                let v = self.value(p)?;
                Some(set.iter().any(|s| values_equal(s, &v)))
            }
            Fast::Str(p, op, arg, cost) => {
                let Json::String(s) = self.node(p)? else {
                    return None;
                };
                let r = match op {
                    StrOp::StartsWith => s.starts_with(&**arg),
                    StrOp::EndsWith => s.ends_with(&**arg),
                    StrOp::Contains => s.contains(&**arg),
                };
                self.cost += cost.of(
                    &[
                        Value::String(Str::Borrowed(s)),
                        Value::String(Str::Borrowed(arg)),
                    ],
                    r,
                );
                Some(r)
            }
        }
    }

    /// The value of a path (charged as an attribute: the variable and each field).
    fn value(&mut self, p: &Path) -> Option<Value<'a>> {
        self.node(p).map(Value::from_json)
    }

    /// The node of a path (charged as an attribute: the variable and each field).
    fn node(&mut self, p: &Path) -> Option<&'a Json> {
        let j = self.walk(p, p.fields.len())?;
        self.cost += 1 + p.fields.len() as u64;
        Some(j)
    }

    /// Walks the first `upto` (at least 1) fields of a path, from the longest remembered
    /// prefix, remembering the prefixes other paths share.
    fn walk(&mut self, p: &Path, upto: usize) -> Option<&'a Json> {
        let mut i = 0;
        let mut node: Option<&'a Json> = None;
        for point in p.memo.iter().rev().filter(|m| m.quals <= upto) {
            if let Some(&Some(j)) = self.memo.get(point.slot) {
                i = point.quals;
                node = Some(j);
                break;
            }
        }
        let mut map = match node {
            Some(Json::Object(m)) => m,
            Some(_) => return (i == upto).then_some(node).flatten(),
            None => match self.act.json_root(p.slot)? {
                JsonRoot::Object(m) => m,
                JsonRoot::Request(m) => {
                    let j = request_field(m, p.fields.first()?)?;
                    i = 1;
                    self.remember(p, 1, j);
                    if upto == 1 {
                        return Some(j);
                    }
                    match j {
                        Json::Object(m) => m,
                        _ => return None,
                    }
                }
            },
        };
        loop {
            let j = map.get(&**p.fields.get(i)?)?;
            i += 1;
            self.remember(p, i, j);
            if i >= upto {
                return Some(j);
            }
            match j {
                Json::Object(m) => map = m,
                _ => return None,
            }
        }
    }

    fn remember(&mut self, p: &Path, quals: usize, j: &'a Json) {
        if let Some(point) = p.memo.iter().find(|m| m.quals == quals) {
            if let Some(slot) = self.memo.get_mut(point.slot) {
                *slot = Some(j);
            }
        }
    }
}
