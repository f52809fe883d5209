//! Planned programs: the executable form of a checked expression.
//!
//! A plan is a tree of [`Node`]s in which every name is resolved to a variable slot, every
//! call to its candidate implementations, every constant literal to a value and every
//! constant regular expression compiled. Field selections and indexing are grouped into
//! attributes (a root and a chain of qualifiers), as cel-go plans them, which is also what the
//! cost model charges for.

use crate::libraries::definition::Implementation;
pub use crate::value::Trait;
use crate::value::{TypeName, Value};

/// One node of a planned program.
#[derive(Debug)]
pub enum Node {
    /// A constant (costs nothing).
    Const(Value<'static>),
    /// An attribute: a root with qualifiers (`object.metadata.labels['app']`).
    Attr(Box<Attr>),
    /// A function call.
    Call(Box<Call>),
    /// `a && b`
    And(Box<Node>, Box<Node>),
    /// `a || b`
    Or(Box<Node>, Box<Node>),
    /// `c ? t : f`
    Cond(Box<Node>, Box<Node>, Box<Node>),
    /// A list literal with non-constant elements; `optional` marks `?e` elements.
    List(Vec<Node>, Vec<bool>),
    /// A map literal with non-constant entries: key, value, optional.
    Map(Vec<(Node, Node, bool)>),
    /// A comprehension.
    Fold(Box<Fold>),
    /// `x in [constant list]`: membership in a set of constants (costs nothing itself).
    InConstSet(Box<Node>, Vec<Value<'static>>),
    /// `a.or(b)` on optionals (costs nothing itself; `b` is evaluated only if needed).
    OptOr(Box<Node>, Box<Node>),
    /// `a.orValue(b)` (costs nothing itself; `b` is evaluated only if needed).
    OptOrValue(Box<Node>, Box<Node>),
    /// An error known when the program was planned, raised when evaluated.
    Error(crate::error::EvalError),
    /// A resource check read at once (see [`AuthzCheck`]).
    AuthzCheck(Box<AuthzCheck>),
}

/// `authorizer.group(g).resource(r)…check(verb)` followed by `allowed()` or `errored()`,
/// possibly negated (`!…allowed()`), the builders being `subresource`,
/// `namespace` and `name`, and every argument a constant or an attribute: evaluated as one
/// call of the [`Authorizer`](crate::authz::Authorizer) whose attributes are read from the
/// arguments in place, with no value built for the builders. `calls` is the chain as
/// planned; whatever leaves the common road (an argument that is not a string or fails, a
/// blank resource, a receiver that is not an authorizer, a cost that would reach the limit)
/// is evaluated by it instead, from the start, so results, costs and errors are the
/// chain's.
#[derive(Debug)]
pub struct AuthzCheck {
    /// The accessor's call, whose receiver is the `check` call and so on down to `group`,
    /// whose receiver is the `authorizer` variable; when `negated`, the `!` call whose
    /// argument is the accessor's call.
    pub calls: Node,
    /// What the chain's calls cost together (each has a fixed cost), the `!` included.
    pub cost: u64,
    /// Whether the result is negated (`calls` is the `!` call).
    pub negated: bool,
}

/// Where an attribute's value starts.
#[derive(Debug)]
pub enum AttrRoot {
    /// A global variable by slot.
    Global(usize),
    /// A comprehension variable by slot (innermost scope has the highest slot).
    Local(usize),
    /// The value of another expression (a call result, a literal …).
    Expr(Node),
    /// A conditional `c ? t : f` whose result is qualified (the conditional costs nothing).
    Cond(Node),
}

/// An attribute: a root and a chain of qualifiers.
#[derive(Debug)]
pub struct Attr {
    /// The root.
    pub root: AttrRoot,
    /// The qualifiers applied in order.
    pub quals: Vec<Qual>,
    /// The attribute is the operand of `has()`: the last qualifier is a presence test, and
    /// the root is not charged.
    pub test_only: bool,
    /// Points along a leading chain of plain field qualifiers whose JSON node is remembered
    /// for the rest of the evaluation, because other attributes of the program pass through
    /// the same prefix (sorted by `quals`).
    pub memo: Vec<MemoPoint>,
    /// The memo slot of the attribute's path extended by one field, when other attributes
    /// pass through it: the presence-tested field of `has()`, or the constant key of a
    /// `'key' in` test of which the attribute is the map. The fast tier fills it when it
    /// finds that field; the general evaluator does not use it.
    pub extended_memo: Option<usize>,
}

/// A remembered attribute prefix: the root with its first `quals` qualifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoPoint {
    /// How many leading qualifiers the prefix has (at least 1).
    pub quals: usize,
    /// The evaluation's memo slot.
    pub slot: usize,
}

impl Attr {
    /// An attribute without qualifiers.
    pub fn new(root: AttrRoot) -> Attr {
        Attr {
            root,
            quals: Vec::new(),
            test_only: false,
            memo: Vec::new(),
            extended_memo: None,
        }
    }

    /// How many leading qualifiers are plain field selections (neither optional nor the
    /// presence test of `has()`): the chain the evaluator may walk in place.
    pub fn plain_field_prefix(&self) -> usize {
        let presence_at = if self.test_only {
            self.quals.len().saturating_sub(1)
        } else {
            usize::MAX
        };
        self.quals
            .iter()
            .enumerate()
            .take_while(|(i, q)| {
                !q.optional && *i != presence_at && matches!(q.kind, QualKind::Field(_))
            })
            .count()
    }
}

/// A qualifier of an attribute.
#[derive(Debug)]
pub struct Qual {
    /// What qualifies.
    pub kind: QualKind,
    /// True for `.?field` and `[?key]`.
    pub optional: bool,
}

/// The kinds of qualifier.
#[derive(Debug)]
pub enum QualKind {
    /// A field name or constant string key.
    Field(Box<str>),
    /// A constant key or index of another type (int, uint, double, bool).
    Const(Value<'static>),
    /// A key or index computed at run time. `charge_root` is false when the index is itself
    /// an attribute, whose root cel-go does not charge in that position.
    Dyn(Node),
}

/// A function call.
#[derive(Debug)]
pub struct Call {
    /// The function name (for messages and the cost model).
    pub function: Box<str>,
    /// The overload id when exactly one overload applies (the cost model keys on it).
    pub overload: Option<&'static str>,
    /// Candidate implementations, tried in order when there are several.
    pub candidates: Vec<Candidate>,
    /// Arguments (the receiver first for member calls).
    pub args: Vec<Node>,
    /// A precompiled regular expression for a constant pattern argument.
    pub regex: Option<Box<regex::Regex>>,
    /// Non-strict: errors in arguments are passed to the implementation.
    pub non_strict: bool,
    /// How the call is priced.
    pub cost: crate::cost::CostKind,
    /// How the implementation is chosen at run time.
    pub dispatch: Dispatch,
    /// cel-go evaluates the arguments one by one and stops at the first error (its
    /// `evalVarArgs`: calls of three or more arguments, a function's dispatcher over several
    /// overloads, overloads bound as variadic functions, regular expression calls with a
    /// constant pattern). The arguments after an error are then not evaluated, and the call
    /// is not charged unless the error was the last argument's (the cost tracker charges a
    /// call only once every argument has been observed).
    pub varargs: bool,
    /// The argument the overload's cost tracker converts unchecked (see
    /// [`crate::cost::cost_tracker_failure`]).
    pub tracked: Option<crate::cost::TrackedArgument>,
}

/// How cel-go chooses a call's implementation at run time (its planner's `planCall` with the
/// function bindings of `common/decls`), which decides both which overload runs and the
/// text of the error when none applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dispatch {
    /// A function with one implementation for all its overloads (a singleton binding: the
    /// operators, `size`, `matches`): whatever overload the checker chose, the values
    /// decide. The candidates are every overload of the function. A first argument without
    /// the trait fails with `no such overload: <function>`, other values with the trait
    /// method's `no such overload`.
    Singleton(Option<Trait>),
    /// One overload (the checker resolved one, or the function has one): its parameter
    /// types guard the call, lists and maps by their first element and entry, and values of
    /// other types fail with `no such overload: <function>(<types>)`.
    Guarded,
    /// Several overloads: the first, in declaration order, whose parameter types admit the
    /// values runs; none is `no such overload: <function>(<types>)`.
    Dynamic,
    /// Overloads bound without type guards (`flatten`): the first of the call's arity runs,
    /// and its implementation checks what it needs.
    Unguarded,
}

/// How cel-go dispatches calls of a function whose overloads share one implementation (a
/// singleton binding: the standard library's operators, `size`, `matches`, the lists
/// extension's `sort`) or are bound without type guards (`flatten`), if it does.
pub fn singleton_dispatch(function: &str) -> Option<Dispatch> {
    let t = match function {
        "_+_" => Some(Trait::Adder),
        "_-_" => Some(Trait::Subtractor),
        "_*_" => Some(Trait::Multiplier),
        "_/_" => Some(Trait::Divider),
        "_%_" => Some(Trait::Modder),
        "-_" => Some(Trait::Negater),
        "_<_" | "_<=_" | "_>_" | "_>=_" => Some(Trait::Comparer),
        "size" => Some(Trait::Sizer),
        "matches" => Some(Trait::Matcher),
        "_[_]" => Some(Trait::Indexer),
        "sort" | "@sortByAssociatedKeys" => Some(Trait::Lister),
        "flatten" => return Some(Dispatch::Unguarded),
        "!_" | "@in" | "_in_" | "in" | "dyn" | "type" => None,
        _ => return None,
    };
    Some(Dispatch::Singleton(t))
}

/// One candidate implementation of a call.
#[derive(Debug)]
pub struct Candidate {
    /// The overload id.
    pub id: &'static str,
    /// Parameter types, to select among candidates at run time.
    pub params: Vec<matchcond_front::Type>,
    /// The implementation.
    pub func: Implementation,
}

/// A comprehension.
#[derive(Debug)]
pub struct Fold {
    /// The range.
    pub range: Node,
    /// The accumulator's initial value.
    pub init: Node,
    /// Local slot of the accumulator.
    pub accu_slot: usize,
    /// Local slot of the first iteration variable.
    pub iter_slot: usize,
    /// Local slot of the second iteration variable, if any.
    pub iter2_slot: Option<usize>,
    /// The loop condition.
    pub cond: Node,
    /// The step.
    pub step: Node,
    /// The result.
    pub result: Node,
    /// The step reads the accumulator at most once per iteration (as the macros' steps
    /// `@result + [e]`, `c ? @result + [e] : @result` and `cel.@mapInsert(@result, k, v)`
    /// do): it may then take the accumulator's value instead of sharing it, so that the
    /// result is extended in place rather than copied in every iteration.
    pub step_reads_accu_once: bool,
    /// A range that fails to evaluate is reported as cel-go v0.22 reports it for
    /// two-variable comprehensions (Kubernetes 1.32): `unsupported comprehension range
    /// type: *types.Err`, rather than with its own error.
    pub range_error_unsupported: bool,
    /// The accumulator's initial value is evaluated (and charged) before the loop, as cel-go
    /// before v0.22 does (Kubernetes 1.30, 1.31), rather than when first read.
    pub eager_init: bool,
}

impl Node {
    /// How many times evaluating the node may read the local variable in `slot`: 0, 1, or
    /// 2 for "more than once" (a read inside a loop counts as more than once).
    pub fn reads_of_local(&self, slot: usize) -> u8 {
        let sum = |a: u8, b: u8| a.saturating_add(b).min(2);
        match self {
            Node::Const(_) | Node::Error(_) => 0,
            Node::Attr(a) => {
                let root = match &a.root {
                    AttrRoot::Local(s) => u8::from(*s == slot),
                    AttrRoot::Global(_) => 0,
                    AttrRoot::Expr(n) | AttrRoot::Cond(n) => n.reads_of_local(slot),
                };
                a.quals.iter().fold(root, |acc, q| match &q.kind {
                    QualKind::Dyn(n) => sum(acc, n.reads_of_local(slot)),
                    _ => acc,
                })
            }
            Node::Call(c) => c
                .args
                .iter()
                .fold(0, |acc, n| sum(acc, n.reads_of_local(slot))),
            Node::And(l, r) | Node::Or(l, r) | Node::OptOr(l, r) | Node::OptOrValue(l, r) => {
                sum(l.reads_of_local(slot), r.reads_of_local(slot))
            }
            Node::Cond(c, t, f) => sum(
                c.reads_of_local(slot),
                t.reads_of_local(slot).max(f.reads_of_local(slot)),
            ),
            Node::List(elems, _) => elems
                .iter()
                .fold(0, |acc, n| sum(acc, n.reads_of_local(slot))),
            Node::Map(entries) => entries.iter().fold(0, |acc, (k, v, _)| {
                sum(acc, sum(k.reads_of_local(slot), v.reads_of_local(slot)))
            }),
            Node::Fold(f) => {
                let once = sum(
                    sum(f.range.reads_of_local(slot), f.init.reads_of_local(slot)),
                    f.result.reads_of_local(slot),
                );
                let looped = sum(f.cond.reads_of_local(slot), f.step.reads_of_local(slot));
                sum(once, if looped > 0 { 2 } else { 0 })
            }
            Node::InConstSet(a, _) => a.reads_of_local(slot),
            Node::AuthzCheck(c) => c.calls.reads_of_local(slot),
        }
    }

    /// A type value constant.
    pub fn type_const(name: TypeName) -> Node {
        Node::Const(Value::Type(name))
    }
}
