//! The evaluator of planned programs.
//!
//! Semantics follow cel-go: `&&` and `||` absorb errors commutatively (a false/true operand
//! decides even when the other one errs), a ternary evaluates one branch, calls are strict
//! (the first argument error is the result) except non-strict functions, comprehensions keep
//! iterating while the loop condition is not `false`, and the accumulator may hold an error.
//! Exceeding the cost limit aborts the whole evaluation: no operator absorbs it.
//!
//! Memory and time stay proportional to the cost charged (see [`crate::limits`]): a call
//! whose cost is known from its arguments is checked against the limit before it is made,
//! what function calls create is counted, and a comprehension's result grows in place.

use std::sync::Arc;

use smallvec::SmallVec;

use crate::activation::{Activation, Lookups, SLOT_AUTHORIZER, SLOT_OBJECT, SLOT_OLD_OBJECT};
use crate::cost;
use crate::error::{ErrorKind, EvalError};
use crate::libraries;
use crate::limits;
use crate::plan::{Attr, AttrRoot, AuthzCheck, Call, Dispatch, Fold, Node, Qual, QualKind};
pub use crate::value::go_type_name;
use crate::value::{values_equal, Bin, List, Map, MapData, Optional, Str, Value};
use matchcond_front::Type;

/// The outcome of one evaluation: the value or error, and the runtime cost charged.
#[derive(Clone, Debug)]
pub struct Evaluation<'a> {
    /// The result.
    pub result: Result<Value<'a>, EvalError>,
    /// The cost charged, as cel-go's cost tracker would report it.
    pub cost: u64,
}

/// The per-evaluation storage a planned program needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    /// Comprehension variable slots.
    pub locals: usize,
    /// Remembered attribute prefixes (see [`crate::plan::MemoPoint`]).
    pub memos: usize,
}

/// Memo slots kept inline (no allocation) for most programs.
type Memo<'a> = SmallVec<[Option<&'a serde_json::Value>; 4]>;

/// Evaluates a planned program.
///
/// `frame` gives the storage the program uses; `cost_limit` the per-evaluation limit
/// (`None`: unlimited).
pub fn evaluate<'a>(
    root: &'a Node,
    frame: Frame,
    activation: &Activation<'a>,
    cost_limit: Option<u64>,
) -> Evaluation<'a> {
    evaluate_in(root, frame, activation, None, cost_limit)
}

/// [`evaluate`], reading `object` and `oldObject` through the lookups of the decision
/// (shared with the fast tier and the other conditions) when given.
pub fn evaluate_in<'a>(
    root: &'a Node,
    frame: Frame,
    activation: &Activation<'a>,
    lookups: Option<&Lookups<'a>>,
    cost_limit: Option<u64>,
) -> Evaluation<'a> {
    let mut it = Interp {
        act: activation,
        lookups,
        locals: Vec::new(),
        memo: SmallVec::new(),
        cost: 0,
        limit: cost_limit.unwrap_or(u64::MAX),
        exceeded: false,
        internal: None,
        created: 0,
        oversized: false,
        take_slot: None,
        lazy_init: SmallVec::new(),
    };
    if frame.locals > 0 {
        it.locals.resize(frame.locals, Ok(Value::Null));
    }
    if frame.memos > 0 {
        it.memo.resize(frame.memos, None);
    }
    let result = it.eval(root);
    let result = match it.abort_if_exceeded() {
        Err(e) => Err(e),
        Ok(()) => result,
    };
    Evaluation {
        result,
        cost: it.cost,
    }
}

type R<'a> = Result<Value<'a>, EvalError>;

struct Interp<'a, 'v> {
    act: &'v Activation<'a>,
    /// The decision's lookups of the request's members, if shared.
    lookups: Option<&'v Lookups<'a>>,
    locals: Vec<R<'a>>,
    memo: Memo<'a>,
    cost: u64,
    limit: u64,
    exceeded: bool,
    /// An internal error that ends the evaluation (no operator absorbs it).
    internal: Option<EvalError>,
    /// Bytes created by function calls so far.
    created: u64,
    /// `created` went over [`limits::MAX_CREATED_SIZE`]: the evaluation is aborted.
    oversized: bool,
    /// The local slot whose next read takes the value out of the slot instead of sharing
    /// it (the accumulator, while a step that reads it at most once is evaluated).
    take_slot: Option<usize>,
    /// Comprehension accumulators whose initial value is evaluated when first read.
    lazy_init: SmallVec<[(usize, &'a Node); 2]>,
}

/// Views a program constant for the evaluation's lifetime without copying.
pub fn borrow_const<'a>(v: &'a Value<'static>) -> Value<'a> {
    match v {
        Value::String(Str::Shared(s)) => Value::String(Str::Borrowed(s)),
        Value::Bytes(Bin::Shared(b)) => Value::Bytes(Bin::Borrowed(b)),
        Value::List(List::Shared(l)) => Value::List(List::Borrowed(l.as_slice())),
        Value::Map(Map::Shared(m)) => Value::Map(Map::Borrowed(m)),
        other => other.clone(),
    }
}

fn no_such_attribute(name: &str) -> EvalError {
    EvalError::new(ErrorKind::Unbound, format!("no such attribute(s): {name}"))
}

/// True when a runtime value may be passed for a declared parameter type.
pub fn value_matches_type(v: &Value<'_>, t: &Type) -> bool {
    match t {
        Type::Dyn | Type::Param(_) | Type::Error => true,
        Type::Null => matches!(v, Value::Null),
        Type::Bool => matches!(v, Value::Bool(_)),
        Type::Int => matches!(v, Value::Int(_)),
        Type::Uint => matches!(v, Value::Uint(_)),
        Type::Double => matches!(v, Value::Double(_)),
        Type::String => matches!(v, Value::String(_)),
        Type::Bytes => matches!(v, Value::Bytes(_)),
        Type::Timestamp => matches!(v, Value::Timestamp(_)),
        Type::Duration => matches!(v, Value::Duration(_)),
        Type::List(_) => matches!(v, Value::List(_)),
        Type::Map(..) => matches!(v, Value::Map(_)),
        Type::Optional(_) => matches!(v, Value::Optional(_)),
        Type::Type(_) => matches!(v, Value::Type(_)),
        Type::Named(n, _) => match v {
            Value::Opaque(o) => o.type_name() == n.as_ref(),
            Value::Map(_) => true,
            _ => false,
        },
    }
}

/// Whether a value may be passed for a parameter, as cel-go's type guards decide
/// (`Type.IsAssignableRuntimeType`): by the value's type, a list by its first element and a
/// map by its first entry (an empty one always).
pub fn value_assignable(v: &Value<'_>, t: &Type) -> bool {
    match (t, v) {
        (Type::List(elem), Value::List(l)) => match l.get(0) {
            Some(first) => value_assignable(&first, elem),
            None => true,
        },
        (Type::Map(kt, vt), Value::Map(m)) => match m.iter().next() {
            Some((k, val)) => value_assignable(&k, kt) && value_assignable(&val, vt),
            None => true,
        },
        _ => value_matches_type(v, t),
    }
}

/// Where the in-place walk of an attribute's field chain stopped.
enum Walk<'a> {
    /// At this qualifier, with the node reached (if any qualifier was applied) and whether
    /// an optional selection was passed.
    At(usize, Option<&'a serde_json::Value>, bool),
    /// An optional selection found nothing: the attribute is `optional.none()`.
    Absent,
}

/// What a qualification found.
enum Found<'a> {
    Value(Value<'a>),
    Absent,
}

impl<'a> Interp<'a, '_> {
    fn charge(&mut self, n: u64) -> Result<(), EvalError> {
        self.cost = self.cost.saturating_add(n);
        if self.cost > self.limit {
            self.exceeded = true;
            return Err(EvalError::cost_limit_exceeded());
        }
        Ok(())
    }

    /// Charges `n` qualifications at once, ending where `n` charges of 1 would.
    fn charge_quals(&mut self, n: usize) -> Result<(), EvalError> {
        let n = n as u64;
        if self.cost.saturating_add(n) > self.limit {
            self.cost = self.cost.max(self.limit.saturating_add(1));
            self.exceeded = true;
            return Err(EvalError::cost_limit_exceeded());
        }
        self.cost += n;
        Ok(())
    }

    fn abort_if_exceeded(&self) -> Result<(), EvalError> {
        if self.exceeded {
            Err(EvalError::cost_limit_exceeded())
        } else if self.oversized {
            Err(limits::created_size_exceeded())
        } else if let Some(e) = &self.internal {
            Err(e.clone())
        } else {
            Ok(())
        }
    }

    /// Counts what a call created; aborts the evaluation past the limit.
    fn count_created(&mut self, n: u64) -> Result<(), EvalError> {
        self.created = self.created.saturating_add(n);
        if self.created > limits::MAX_CREATED_SIZE {
            self.oversized = true;
            return Err(limits::created_size_exceeded());
        }
        Ok(())
    }

    /// Evaluates a node. This dispatcher's frame is on the stack once per level of nesting,
    /// so each kind of node is evaluated by a function of its own.
    fn eval(&mut self, n: &'a Node) -> R<'a> {
        match n {
            Node::Const(v) => Ok(borrow_const(v)),
            Node::Attr(a) => self.eval_attr(a, true),
            Node::Call(c) => self.eval_call(c),
            Node::And(l, r) => self.eval_logic(l, r, false),
            Node::Or(l, r) => self.eval_logic(l, r, true),
            Node::Cond(c, t, f) => self.eval_cond(c, t, f),
            Node::List(elems, optional) => self.eval_list_node(elems, optional),
            Node::Map(entries) => self.eval_map_node(entries),
            Node::Fold(f) => self.eval_fold(f),
            Node::InConstSet(arg, set) => self.eval_in_const_set(arg, set),
            Node::OptOr(l, r) => self.eval_opt_or(l, r),
            Node::OptOrValue(l, r) => self.eval_opt_or_value(l, r),
            Node::Error(e) => Err(e.clone()),
            Node::AuthzCheck(c) => self.eval_authz_check(c),
        }
    }

    /// A resource check read at once, or, off the common road, its calls as planned (out of
    /// line: [`Interp::eval`]'s frame stays as small as before).
    #[inline(never)]
    fn eval_authz_check(&mut self, c: &'a AuthzCheck) -> R<'a> {
        let before = (self.cost, self.created, self.exceeded, self.oversized);
        let internal_before = self.internal.is_some();
        if let Some(v) = self.authz_check_at_once(c) {
            return Ok(v);
        }
        // Evaluated again from the start: the arguments have no effect but their cost.
        (self.cost, self.created, self.exceeded, self.oversized) = before;
        if !internal_before {
            self.internal = None;
        }
        self.eval(&c.calls)
    }

    /// [`Interp::eval_authz_check`]'s common road: `None` when the chain must be evaluated
    /// call by call (nothing has been asked of the authorizer then).
    fn authz_check_at_once(&mut self, c: &'a AuthzCheck) -> Option<Value<'a>> {
        let Node::Call(outer) = &c.calls else {
            return None;
        };
        let accessor = match (c.negated, outer.args.first()) {
            (false, _) => outer,
            (true, Some(Node::Call(accessor))) => accessor,
            (true, _) => return None,
        };
        let Some(Node::Call(check)) = accessor.args.first() else {
            return None;
        };
        // The builders, outermost first, down to `group`.
        let mut chain: SmallVec<[&'a Call; 6]> = SmallVec::new();
        let mut at = check.args.first()?;
        let root = loop {
            let Node::Call(b) = at else {
                return None;
            };
            chain.push(b);
            let [receiver, _] = b.args.as_slice() else {
                return None;
            };
            if &*b.function == "group" {
                break receiver;
            }
            at = receiver;
        };
        // Who is asked: while `authorizer` is bound lazily to the request, its authorizer
        // for the request's `userInfo` read in place (nothing is built, and the variable is
        // charged as reading it is); otherwise the value `root` evaluates to.
        let in_place = match root {
            Node::Attr(a)
                if a.quals.is_empty()
                    && !a.test_only
                    && matches!(a.root, AttrRoot::Global(SLOT_AUTHORIZER)) =>
            {
                self.act.lazy_authorizer()
            }
            _ => None,
        };
        let value;
        let (authorizer, user) = match in_place {
            Some(asked) => {
                self.charge(1).ok()?;
                asked
            }
            None => {
                value = self.eval(root).ok()?;
                let Value::Opaque(o) = &value else {
                    return None;
                };
                o.as_any()
                    .downcast_ref::<crate::authz::AuthorizerValue>()?
                    .asked()
            }
        };
        // The arguments in evaluation order: the builders' from `group` out, then the verb;
        // each kept in the place of the attribute it sets (a builder called again replaces
        // it, as the chain's value would).
        let mut held: [Str<'a>; 5] = std::array::from_fn(|_| Str::Borrowed(""));
        for b in chain.iter().rev() {
            let arg = self.eval_string(b.args.get(1)?)?;
            let at = match &*b.function {
                "group" => 0,
                "resource" if !arg.trim().is_empty() => 1,
                "subresource" => 2,
                "namespace" => 3,
                "name" => 4,
                _ => return None,
            };
            *held.get_mut(at)? = arg;
        }
        let verb = self.eval_string(check.args.get(1)?)?;
        if self.exceeded || self.oversized || self.cost.saturating_add(c.cost) > self.limit {
            return None;
        }
        let [group, resource, subresource, namespace, name] = &held;
        let r = crate::authz::ResourceAttributes {
            api_group: group,
            api_version: "*",
            resource,
            subresource,
            namespace,
            name,
            field_selector: None,
            label_selector: None,
        };
        let response = authorizer.authorize(&crate::authz::Attributes::resource(user, &verb, r));
        // The calls' values are opaque and the result a boolean: nothing counts as created.
        self.cost += c.cost;
        let result = match &*accessor.function {
            "allowed" => response.decision == crate::authz::AuthzDecision::Allow,
            _ => response.error.is_some(),
        };
        Some(Value::Bool(result != c.negated))
    }

    /// A string argument's value (a constant read in place); `None` when it fails or is not
    /// a string.
    fn eval_string(&mut self, n: &'a Node) -> Option<Str<'a>> {
        match n {
            Node::Const(Value::String(s)) => Some(Str::Borrowed(s)),
            n => match self.eval(n).ok()? {
                Value::String(s) => Some(s),
                _ => None,
            },
        }
    }

    fn eval_cond(&mut self, c: &'a Node, t: &'a Node, f: &'a Node) -> R<'a> {
        let cv = self.eval(c);
        self.abort_if_exceeded()?;
        match cv? {
            Value::Bool(true) => self.eval_branch(t),
            Value::Bool(false) => self.eval_branch(f),
            // cel-go: `ValOrErr(cond, "no such overload")`.
            _ => Err(EvalError::no_such_overload_bare()),
        }
    }

    fn eval_list_node(&mut self, elems: &'a [Node], optional: &[bool]) -> R<'a> {
        let r = self.eval_list(elems, optional);
        self.abort_if_exceeded()?;
        self.charge(cost::LIST_CREATE_COST)?;
        r
    }

    fn eval_map_node(&mut self, entries: &'a [(Node, Node, bool)]) -> R<'a> {
        let r = self.eval_map(entries);
        self.abort_if_exceeded()?;
        self.charge(cost::MAP_CREATE_COST)?;
        r
    }

    fn eval_in_const_set(&mut self, arg: &'a Node, set: &[Value<'static>]) -> R<'a> {
        let v = self.eval(arg)?;
        Ok(Value::Bool(set.iter().any(|s| values_equal(s, &v))))
    }

    fn eval_opt_or(&mut self, l: &'a Node, r: &'a Node) -> R<'a> {
        match self.eval(l)? {
            Value::Optional(o) if o.has_value() => Ok(Value::Optional(o)),
            Value::Optional(_) => self.eval(r),
            other => Err(EvalError::no_such_overload("or", &[other])),
        }
    }

    fn eval_opt_or_value(&mut self, l: &'a Node, r: &'a Node) -> R<'a> {
        match self.eval(l)? {
            Value::Optional(o) => match o.get() {
                Some(v) => Ok(v),
                None => self.eval(r),
            },
            other => Err(EvalError::no_such_overload("orValue", &[other])),
        }
    }

    /// A branch of a conditional: an attribute there is resolved without being observed as
    /// an attribute (cel-go plans the branches into a conditional attribute), so only its
    /// qualifiers are charged.
    fn eval_branch(&mut self, n: &'a Node) -> R<'a> {
        match n {
            Node::Attr(a) => self.eval_attr(a, false),
            other => self.eval(other),
        }
    }

    fn eval_logic(&mut self, l: &'a Node, r: &'a Node, is_or: bool) -> R<'a> {
        let decisive = is_or;
        let lv = self.eval(l);
        self.abort_if_exceeded()?;
        if let Ok(Value::Bool(b)) = lv {
            if b == decisive {
                return Ok(Value::Bool(decisive));
            }
        }
        let rv = self.eval(r);
        self.abort_if_exceeded()?;
        if let Ok(Value::Bool(b)) = rv {
            if b == decisive {
                return Ok(Value::Bool(decisive));
            }
        }
        for v in [lv, rv] {
            match v {
                Ok(Value::Bool(_)) => {}
                // cel-go: `MaybeNoSuchOverloadErr(val)`.
                Ok(_) => return Err(EvalError::no_such_overload_bare()),
                Err(e) => return Err(e),
            }
        }
        Ok(Value::Bool(!decisive))
    }

    fn eval_list(&mut self, elems: &'a [Node], optional: &[bool]) -> R<'a> {
        let mut out = Vec::with_capacity(elems.len());
        for (i, e) in elems.iter().enumerate() {
            let v = self.eval(e)?;
            if optional.get(i).copied().unwrap_or(false) {
                match v {
                    Value::Optional(o) => {
                        if let Some(inner) = o.get() {
                            out.push(inner);
                        }
                    }
                    other => {
                        return Err(EvalError::invalid_argument(format!(
                            "cannot initialize optional list element from non-optional value {}",
                            other.type_name()
                        )))
                    }
                }
            } else {
                out.push(v);
            }
        }
        Ok(Value::list(out))
    }

    fn eval_map(&mut self, entries: &'a [(Node, Node, bool)]) -> R<'a> {
        let mut m = MapData::new();
        for (k, v, opt) in entries {
            let kv = self.eval(k)?;
            let vv = self.eval(v)?;
            if *opt {
                match vv {
                    Value::Optional(o) => {
                        if let Some(inner) = o.get() {
                            m.insert_literal(kv, inner);
                        }
                    }
                    other => {
                        return Err(EvalError::invalid_argument(format!(
                            "cannot initialize optional entry '{}' from non-optional value {}",
                            crate::value::key_text(&kv),
                            other.type_name()
                        )))
                    }
                }
            } else {
                m.insert_literal(kv, vv);
            }
        }
        Ok(Value::Map(Map::Shared(std::sync::Arc::new(m))))
    }

    fn root_value(&mut self, root: &'a AttrRoot) -> (R<'a>, bool) {
        match root {
            AttrRoot::Global(slot) => {
                let found = match self.lookups {
                    Some(l) if matches!(*slot, SLOT_OBJECT | SLOT_OLD_OBJECT) => {
                        self.act.get_in(l, *slot)
                    }
                    _ => self.act.get(*slot),
                };
                let v = match found {
                    Some(v) => Ok(v),
                    None => Err(no_such_attribute(
                        crate::activation::MATCH_CONDITION_VARIABLES
                            .get(*slot)
                            .copied()
                            .unwrap_or("variable"),
                    )),
                };
                (v, true)
            }
            AttrRoot::Local(slot) => {
                if !self.lazy_init.is_empty() {
                    self.init_accumulator(*slot);
                }
                let take = self.take_slot == Some(*slot);
                if take {
                    self.take_slot = None;
                }
                let v = match self.locals.get_mut(*slot) {
                    Some(v) if take => std::mem::replace(v, Ok(Value::Null)),
                    Some(v) => v.clone(),
                    None => Err(no_such_attribute("local")),
                };
                (v, true)
            }
            AttrRoot::Expr(n) => (self.eval(n), true),
            AttrRoot::Cond(n) => (self.eval(n), false),
        }
    }

    fn eval_attr(&mut self, a: &'a Attr, charge_root: bool) -> R<'a> {
        // A remembered prefix makes the root's value unnecessary.
        let hit = self.memo_hit(a);
        let (root, root_costs) = match hit {
            Some(_) => (Ok(Value::Null), true),
            None => self.root_value(&a.root),
        };
        self.abort_if_exceeded()?;
        let charge_root = charge_root && root_costs && !a.test_only;
        let mut result = self.apply_quals(root, a, hit);
        self.abort_if_exceeded()?;
        if a.test_only {
            if let Ok(Value::Optional(o)) = &result {
                result = Ok(Value::Bool(o.has_value()));
            }
        }
        if charge_root {
            self.charge(1)?;
        }
        result
    }

    /// The longest remembered prefix of an attribute: its length and node.
    fn memo_hit(&self, a: &'a Attr) -> Option<(usize, &'a serde_json::Value)> {
        a.memo
            .iter()
            .rev()
            .find_map(|p| match self.memo.get(p.slot) {
                Some(&Some(j)) => Some((p.quals, j)),
                _ => None,
            })
    }

    fn apply_quals(
        &mut self,
        root: R<'a>,
        a: &'a Attr,
        hit: Option<(usize, &'a serde_json::Value)>,
    ) -> R<'a> {
        let mut obj = root?;
        let mut is_opt = false;
        if let (Value::Optional(o), None) = (&obj, hit) {
            if !a.quals.is_empty() {
                match o.get() {
                    None => return Ok(obj),
                    Some(v) => {
                        obj = v;
                        is_opt = true;
                    }
                }
            }
        }
        let last = a.quals.len().saturating_sub(1);
        let start = if is_opt {
            0
        } else {
            match self.walk_json_fields(&obj, a, hit)? {
                Walk::Absent => return Ok(Value::Optional(Optional::None)),
                Walk::At(next, found, opt) => {
                    is_opt = opt;
                    if let Some(j) = found {
                        if opt && next == a.quals.len() {
                            // A present optional result that is a node of the request.
                            return Ok(Value::Optional(Optional::Json(j)));
                        }
                        obj = Value::from_json(j);
                    }
                    next
                }
            }
        };
        for (i, q) in a.quals.iter().enumerate().skip(start) {
            is_opt = is_opt || q.optional;
            let presence_only = a.test_only && i == last;
            let key = match self.qual_key(q) {
                Ok(k) => k,
                Err(e) => {
                    self.abort_if_exceeded()?;
                    // The qualification is observed with the error value.
                    if !is_opt || presence_only {
                        self.charge(1)?;
                    }
                    return Err(e);
                }
            };
            if presence_only {
                // After an optional qualifier cel-go tests presence through
                // `QualifyIfPresent`, which is observed (charged) only when the field is
                // there: `has(object.?metadata.deletionTimestamp)` costs 1 without it.
                let found = qualify(&obj, &key, true);
                if !is_opt || matches!(found, Ok(Found::Value(_))) {
                    self.charge(1)?;
                }
                return match found? {
                    Found::Value(_) => Ok(Value::Bool(true)),
                    Found::Absent => Ok(Value::Bool(false)),
                };
            }
            if is_opt {
                match qualify(&obj, &key, true)? {
                    Found::Value(v) => {
                        self.charge(1)?;
                        obj = v;
                    }
                    Found::Absent => return Ok(Value::Optional(Optional::None)),
                }
            } else {
                self.charge(1)?;
                match qualify(&obj, &key, false)? {
                    Found::Value(v) => obj = v,
                    Found::Absent => return Err(EvalError::no_such_key(&key)),
                }
            }
        }
        if is_opt {
            return Ok(Value::Optional(Optional::of(obj)));
        }
        Ok(obj)
    }

    /// The fast path of attribute resolution: the leading plain field qualifiers (neither
    /// optional nor a presence test) on JSON objects are looked up in place, each charged as
    /// a qualification, starting from the longest remembered prefix. Returns the index of the
    /// first qualifier left to the general path and the JSON node reached, if any qualifier
    /// was applied.
    fn walk_json_fields(
        &mut self,
        obj: &Value<'a>,
        a: &'a Attr,
        hit: Option<(usize, &'a serde_json::Value)>,
    ) -> Result<Walk<'a>, EvalError> {
        let mut i = 0;
        let mut found: Option<&'a serde_json::Value> = None;
        if let Some((quals, j)) = hit {
            self.charge_quals(quals)?;
            i = quals;
            found = Some(j);
        }
        let plain = a.plain_field_prefix();
        if let (None, Value::Map(Map::Request(m)), Some(QualKind::Field(f))) =
            (found, obj, a.quals.first().map(|q| &q.kind))
        {
            let j = if plain > 0 {
                crate::request_view::request_field(*m, f)
            } else {
                None
            };
            // A structure not in Go's form is read through the view, by the general path.
            if plain > 0 && j.is_none_or(|j| crate::request_parts::named_field_shows_as_is(f, j)) {
                // The request view's own field rules apply to its first qualifier.
                self.charge(1)?;
                let Some(j) = j else {
                    return Err(EvalError::no_such_key(&Value::String(Str::Borrowed(f))));
                };
                i = 1;
                found = Some(j);
                if let Some(p) = a.memo.first().filter(|p| p.quals == 1) {
                    if let Some(slot) = self.memo.get_mut(p.slot) {
                        *slot = Some(j);
                    }
                }
            }
        }
        let mut map: &'a serde_json::Map<String, serde_json::Value> = match (found, obj) {
            (Some(serde_json::Value::Object(m)), _) => m,
            (Some(_), _) => return Ok(Walk::At(i, found, false)),
            (None, Value::Map(Map::Json(m))) => m,
            (None, _) => return Ok(Walk::At(0, None, false)),
        };
        let from = i;
        let mut points = a.memo.iter().filter(|p| p.quals > from).peekable();
        let presence_at = if a.test_only {
            a.quals.len().saturating_sub(1)
        } else {
            usize::MAX
        };
        // Past the plain chain, optional field selections (and every field after the first
        // optional one) continue in place: absent means `optional.none()`, charged only
        // when present.
        let mut opt = false;
        while let Some(q) = a.quals.get(i) {
            let QualKind::Field(f) = &q.kind else {
                break;
            };
            if i == presence_at {
                break;
            }
            if i >= plain {
                opt = true;
            }
            if opt {
                let Some(j) = map.get(&**f) else {
                    return Ok(Walk::Absent);
                };
                self.charge(1)?;
                found = Some(j);
                i += 1;
                match j {
                    serde_json::Value::Object(m) => map = m,
                    _ => break,
                }
                continue;
            }
            self.charge(1)?;
            let Some(j) = map.get(&**f) else {
                return Err(EvalError::no_such_key(&Value::String(Str::Borrowed(f))));
            };
            found = Some(j);
            i += 1;
            if let Some(p) = points.next_if(|p| p.quals == i) {
                if let Some(m) = self.memo.get_mut(p.slot) {
                    *m = Some(j);
                }
            }
            match j {
                serde_json::Value::Object(m) => map = m,
                _ => break,
            }
        }
        Ok(Walk::At(i, found, opt))
    }

    fn qual_key(&mut self, q: &'a Qual) -> R<'a> {
        match &q.kind {
            QualKind::Field(f) => Ok(Value::String(Str::Borrowed(f))),
            QualKind::Const(v) => Ok(borrow_const(v)),
            QualKind::Dyn(Node::Attr(a)) => {
                let hit = self.memo_hit(a);
                let root = match hit {
                    Some(_) => Ok(Value::Null),
                    None => self.root_value(&a.root).0,
                };
                self.abort_if_exceeded()?;
                self.apply_quals(root, a, hit)
            }
            QualKind::Dyn(n) => self.eval(n),
        }
    }

    fn eval_call(&mut self, c: &'a Call) -> R<'a> {
        let mut vals: SmallVec<[Value<'a>; 4]> = SmallVec::new();
        let mut first_err: Option<EvalError> = None;
        let mut errored: u64 = 0;
        for (i, a) in c.args.iter().enumerate() {
            match self.eval(a) {
                Ok(v) => vals.push(v),
                Err(e) => {
                    self.abort_if_exceeded()?;
                    if c.varargs && !c.non_strict && i + 1 < c.args.len() {
                        // cel-go stops at the error: the other arguments are not evaluated
                        // and the call is not charged.
                        return Err(e);
                    }
                    // An erroneous argument is sized 1 by the cost model, as `null` is.
                    vals.push(Value::Null);
                    errored |= 1u64.checked_shl(i as u32).unwrap_or(0);
                    if first_err.is_none() {
                        first_err = Some(e);
                    }
                }
            }
        }
        if let Some(e) = c
            .tracked
            .and_then(|t| cost::cost_tracker_failure(t, &vals, errored))
        {
            // cel-go's cost tracker for this overload fails on the arguments after the
            // call; the interpreter turns the failure into an internal error of the whole
            // evaluation.
            self.internal = Some(e.clone());
            return Err(e);
        }
        self.finish_call(c, vals, first_err)
    }

    /// A call once its arguments are evaluated (apart from [`Interp::eval_call`], whose
    /// frame is on the stack once per level of nesting).
    fn finish_call(
        &mut self,
        c: &'a Call,
        mut vals: SmallVec<[Value<'a>; 4]>,
        first_err: Option<EvalError>,
    ) -> R<'a> {
        let cost_before = cost::cost_before_call(c.cost, &vals);
        let mut created = 0;
        let result = match first_err {
            // The only non-strict function is @not_strictly_false: true unless its
            // argument is false; an error counts as true.
            Some(_) if c.non_strict => Ok(Value::Bool(true)),
            Some(e) => Err(e),
            None => {
                if let Some(cost) = cost_before {
                    if self.cost.saturating_add(cost) > self.limit {
                        // The call would exceed the limit: it is not made.
                        self.charge(cost)?;
                    }
                }
                let in_place = match cost_before {
                    Some(_) => extend_in_place(&c.function, &mut vals),
                    None => None,
                };
                match in_place {
                    Some((r, n)) => {
                        created = n;
                        r
                    }
                    None => {
                        let r = self.invoke(c, &vals);
                        if let Ok(v) = &r {
                            created = created_size(v, &vals);
                        }
                        r
                    }
                }
            }
        };
        let cost = match cost_before {
            Some(cost) => cost,
            None => {
                let placeholder = Value::Null;
                let res_ref = match &result {
                    Ok(v) => v,
                    Err(_) => &placeholder,
                };
                cost::cost_of(c.cost, &vals, res_ref)
            }
        };
        self.charge(cost)?;
        if created > 0 {
            self.count_created(created)?;
        }
        result
    }

    fn invoke(&mut self, c: &'a Call, vals: &[Value<'a>]) -> R<'a> {
        let func = match c.dispatch {
            Dispatch::Singleton(t) => {
                let refused = || match t {
                    Some(t) if !vals.first().is_some_and(|v| t.of(v)) => {
                        EvalError::no_such_overload_of(&c.function)
                    }
                    _ => EvalError::no_such_overload_bare(),
                };
                let Some(cand) = c.candidates.iter().find(|cand| {
                    cand.params.len() == vals.len()
                        && cand
                            .params
                            .iter()
                            .zip(vals.iter())
                            .all(|(t, v)| value_matches_type(v, t))
                }) else {
                    return Err(refused());
                };
                // One implementation answers for every overload: a value its method does
                // not take is its bare "no such overload".
                let r = match &c.regex {
                    Some(re) => libraries::call_with_regex(&c.function, re, vals),
                    None => (cand.func)(vals),
                };
                return r.map_err(|e| match e.kind {
                    ErrorKind::NoSuchOverload => refused(),
                    _ => e,
                });
            }
            Dispatch::Guarded | Dispatch::Dynamic => {
                let found = c.candidates.iter().find(|cand| {
                    cand.params.len() == vals.len()
                        && cand
                            .params
                            .iter()
                            .zip(vals.iter())
                            .all(|(t, v)| value_assignable(v, t))
                });
                match found {
                    Some(cand) => cand.func,
                    None => return Err(EvalError::no_such_overload(&c.function, vals)),
                }
            }
            Dispatch::Unguarded => {
                match c
                    .candidates
                    .iter()
                    .find(|cand| cand.params.len() == vals.len())
                {
                    Some(cand) => cand.func,
                    None => return Err(EvalError::no_such_overload(&c.function, vals)),
                }
            }
        };
        match &c.regex {
            Some(re) => libraries::call_with_regex(&c.function, re, vals),
            None => func(vals),
        }
    }
    fn eval_fold(&mut self, f: &'a Fold) -> R<'a> {
        let range = match self.eval(&f.range) {
            Err(e)
                if f.range_error_unsupported
                    && !matches!(
                        e.kind(),
                        ErrorKind::CostLimitExceeded | ErrorKind::SizeLimitExceeded
                    ) =>
            {
                return Err(EvalError::new(
                    ErrorKind::Other,
                    "unsupported comprehension range type: *types.Err",
                ));
            }
            r => r?,
        };
        let max_slot = f.iter2_slot.unwrap_or(0).max(f.iter_slot).max(f.accu_slot);
        if self.locals.len() <= max_slot {
            self.locals.resize(max_slot + 1, Ok(Value::Null));
        }
        // cel-go initializes the accumulator when it is first read, without checking it: an
        // initial value that is never read is never evaluated (nor charged: `optFlatMap`
        // binds the target's value so), and an erroneous one is the accumulator's value
        // (`sortBy` binds its target so). A constant is simply set.
        match &f.init {
            Node::Const(v) => self.set_local(f.accu_slot, Ok(borrow_const(v))),
            init if f.eager_init => {
                let v = self.eval(init);
                self.abort_if_exceeded()?;
                self.set_local(f.accu_slot, v);
            }
            init => {
                self.set_local(f.accu_slot, Ok(Value::Null));
                self.lazy_init.push((f.accu_slot, init));
            }
        }
        let r = self.fold_range(f, &range);
        if !self.lazy_init.is_empty() {
            self.lazy_init.retain(|(s, _)| *s != f.accu_slot);
        }
        r
    }

    /// The iterations and the result of a comprehension whose accumulator is set.
    fn fold_range(&mut self, f: &'a Fold, range: &Value<'a>) -> R<'a> {
        match range {
            Value::List(l) => {
                for (i, elem) in l.iter().enumerate() {
                    match f.iter2_slot {
                        Some(s2) => {
                            self.set_local(f.iter_slot, Ok(Value::Int(i as i64)));
                            self.set_local(s2, Ok(elem));
                        }
                        None => self.set_local(f.iter_slot, Ok(elem)),
                    }
                    if !self.fold_step(f)? {
                        break;
                    }
                }
            }
            Value::Map(m) => {
                for (k, v) in m.iter() {
                    self.set_local(f.iter_slot, Ok(k));
                    if let Some(s2) = f.iter2_slot {
                        self.set_local(s2, Ok(v));
                    }
                    if !self.fold_step(f)? {
                        break;
                    }
                }
            }
            other => {
                return Err(EvalError::invalid_argument(format!(
                    "got '{}', expected iterable type",
                    go_type_name(other)
                )))
            }
        }
        let r = self.eval(&f.result);
        self.abort_if_exceeded()?;
        r
    }

    /// One iteration; false when the loop condition stopped the loop.
    fn fold_step(&mut self, f: &'a Fold) -> Result<bool, EvalError> {
        let c = self.eval(&f.cond);
        self.abort_if_exceeded()?;
        if let Ok(Value::Bool(b)) = c {
            if !b {
                return Ok(false);
            }
        }
        // The step's only read of the accumulator takes its value: nothing else holds it,
        // so `@result + [e]` appends in place.
        let outer_take = if f.step_reads_accu_once {
            self.take_slot.replace(f.accu_slot)
        } else {
            self.take_slot.take()
        };
        let step = self.eval(&f.step);
        self.take_slot = outer_take;
        self.abort_if_exceeded()?;
        self.set_local(f.accu_slot, step);
        Ok(true)
    }

    /// Evaluates a comprehension's initial accumulator on its first read.
    #[inline(never)]
    fn init_accumulator(&mut self, slot: usize) {
        if let Some(i) = self.lazy_init.iter().position(|(s, _)| *s == slot) {
            let (_, init) = self.lazy_init.swap_remove(i);
            let v = self.eval(init);
            self.set_local(slot, v);
        }
    }

    fn set_local(&mut self, slot: usize, v: R<'a>) {
        if let Some(s) = self.locals.get_mut(slot) {
            *s = v;
        }
    }
}

/// Bytes a call created: the size of a string, bytes, list or map it returned, unless that
/// value is one of its arguments.
fn created_size(result: &Value<'_>, args: &[Value<'_>]) -> u64 {
    match shared_allocation(result) {
        Some((at, size))
            if !args
                .iter()
                .any(|a| shared_allocation(a).map(|s| s.0) == Some(at)) =>
        {
            size
        }
        _ => 0,
    }
}

/// The address and counted size of the shared allocation behind a string, bytes, list or
/// map created during evaluation.
fn shared_allocation(v: &Value<'_>) -> Option<(*const (), u64)> {
    Some(match v {
        Value::String(Str::Shared(s)) => (Arc::as_ptr(s).cast::<()>(), s.len() as u64),
        Value::Bytes(Bin::Shared(b)) => (Arc::as_ptr(b).cast::<()>(), b.len() as u64),
        Value::List(List::Shared(l)) => (
            Arc::as_ptr(l).cast::<()>(),
            l.len() as u64 * limits::ELEMENT_SIZE,
        ),
        Value::Map(Map::Shared(m)) => (
            Arc::as_ptr(m).cast::<()>(),
            m.len() as u64 * 2 * limits::ELEMENT_SIZE,
        ),
        _ => return None,
    })
}

/// List concatenation and `cel.@mapInsert` on a list or map that no one else holds (a
/// comprehension's accumulator taken from its slot, or a value just created) extend it in
/// place. Returns the result and the bytes added, or `None` when the call is not one of
/// these.
fn extend_in_place<'a>(
    function: &str,
    vals: &mut [Value<'a>],
) -> Option<(Result<Value<'a>, EvalError>, u64)> {
    match (function, vals) {
        ("_+_", [Value::List(List::Shared(x)), Value::List(y)]) if !y.is_empty() => {
            let xv = Arc::get_mut(x)?;
            if let Err(e) = limits::check_list_size(xv.len().saturating_add(y.len())) {
                return Some((Err(e), 0));
            }
            xv.extend(y.iter());
            let added = y.len() as u64 * limits::ELEMENT_SIZE;
            let list = std::mem::replace(x, Arc::new(Vec::new()));
            Some((Ok(Value::List(List::Shared(list))), added))
        }
        ("cel.@mapInsert", [Value::Map(Map::Shared(m)), k, v]) => {
            let d = Arc::get_mut(m)?;
            if let Err(e) = libraries::comprehensions::insert(d, k.clone(), v.clone()) {
                return Some((Err(e), 0));
            }
            let map = std::mem::replace(m, Arc::new(MapData::new()));
            Some((Ok(Value::Map(Map::Shared(map))), 2 * limits::ELEMENT_SIZE))
        }
        ("cel.@mapInsert", [Value::Map(Map::Shared(m)), Value::Map(update)]) => {
            let d = Arc::get_mut(m)?;
            for (k, v) in update.iter() {
                if let Err(e) = libraries::comprehensions::insert(d, k, v) {
                    return Some((Err(e), 0));
                }
            }
            let added = update.len() as u64 * 2 * limits::ELEMENT_SIZE;
            let map = std::mem::replace(m, Arc::new(MapData::new()));
            Some((Ok(Value::Map(Map::Shared(map))), added))
        }
        _ => None,
    }
}

/// Qualifies `obj` by `key`: a map lookup, a list index, or (for anything else) a missing
/// key. With `presence`, a missing key or a non-container is `Absent` instead of an error.
fn qualify<'a>(obj: &Value<'a>, key: &Value<'_>, presence: bool) -> Result<Found<'a>, EvalError> {
    match obj {
        Value::Map(m) => {
            match key {
                Value::String(_)
                | Value::Int(_)
                | Value::Uint(_)
                | Value::Bool(_)
                | Value::Double(_) => {}
                other => {
                    return Err(EvalError::invalid_argument(format!(
                        "unsupported key type: {}",
                        other.type_name()
                    )))
                }
            }
            let found = match (m, key) {
                (Map::Json(_), Value::String(s)) => m.get_str(s),
                (Map::Json(_), _) => None,
                _ => m.get(key),
            };
            Ok(match found {
                Some(v) => Found::Value(v),
                None => Found::Absent,
            })
        }
        Value::List(l) => {
            let idx = list_index(key)?;
            match idx
                .and_then(|i| usize::try_from(i).ok())
                .and_then(|i| l.get(i))
            {
                Some(v) => Ok(Found::Value(v)),
                None if presence => Ok(Found::Absent),
                None => Err(EvalError::index_out_of_range(crate::value::key_text(key))),
            }
        }
        _ if presence => Ok(Found::Absent),
        _ => Err(EvalError::no_such_key(key)),
    }
}

/// A list index from a key value (cel-go's `IndexOrError`): ints, uints and integral doubles.
fn list_index(key: &Value<'_>) -> Result<Option<i64>, EvalError> {
    match key {
        Value::Int(i) => Ok(Some(*i)),
        Value::Uint(u) => Ok(i64::try_from(*u).ok()),
        Value::Double(d) => {
            if d.fract() == 0.0 && d.is_finite() && *d >= -9.2e18 && *d <= 9.2e18 {
                Ok(Some(*d as i64))
            } else {
                Err(EvalError::invalid_argument(format!(
                    "unsupported index value {d} in list"
                )))
            }
        }
        other => Err(EvalError::invalid_argument(format!(
            "unsupported index type '{}' in list",
            other.type_name()
        ))),
    }
}
