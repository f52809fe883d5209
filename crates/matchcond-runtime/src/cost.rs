//! The runtime cost model of cel-go as the apiserver configures it.
//!
//! Every evaluation step is charged as cel-go's cost tracker charges it: an attribute (a
//! variable with its qualifiers) costs 1 plus 1 per qualifier applied, constants are free,
//! list and map construction cost 10 and 30, and a function call costs what the Kubernetes
//! cost estimator says for its function, or else cel-go's default for its overload (string
//! comparisons and concatenation by length, `matches` by string and pattern length,
//! `in` on a list by its size, 1 for everything else).
//!
//! # Where the rules are written
//!
//! This module holds the vocabulary; the libraries use it. Each overload of a library
//! (`crate::libraries`) carries its [`Cost`]: cel-go's [`Charge`] for the overload id (1
//! unless written otherwise, or a library's own cost tracker), and, where the Kubernetes
//! estimator singles the overload out, its [`Estimate`]. The Kubernetes estimator
//! (`library.CostEstimator.CallCost`) is keyed by function name, so a library writes its
//! estimate once per function, for every overload of that name (and for calls whose
//! overload is not known). When a call is planned, [`CostKind::resolve`] chooses its formula
//! once from those rules and the environment's version; [`cost_of`] charges it.

use crate::error::{ErrorKind, EvalError};
use crate::value::Value;

/// cel-go's `StringTraversalCostFactor`.
const STRING_TRAVERSAL: f64 = 0.1;
/// cel-go's `RegexStringLengthCostFactor`.
const REGEX_LENGTH: f64 = 0.25;
/// Cost of creating a list.
pub const LIST_CREATE_COST: u64 = 10;
/// Cost of creating a map.
pub const MAP_CREATE_COST: u64 = 30;
/// Cost of an authorizer check.
pub const AUTHZ_CHECK_COST: u64 = 350_000;

fn ceil_factor(n: u64, f: f64) -> u64 {
    (n as f64 * f).ceil() as u64
}

/// cel-go's traversal cost of a string or bytes of `n` elements: `ceil(n * 0.1)`.
pub fn traversal_tenth(n: u64) -> u64 {
    ceil_factor(n, STRING_TRAVERSAL)
}

/// The size of a value as cel-go's `actualSize` counts it.
fn size(v: &Value<'_>) -> u64 {
    v.cost_size()
}

/// The size as the Kubernetes estimator counts it (no unwrapping of optionals).
fn k8s_size(v: &Value<'_>) -> u64 {
    match v {
        Value::Optional(_) => 1,
        other => other.cost_size(),
    }
}

/// Kubernetes' `traversalCost`: bytes of strings times 0.1 (truncated), summed over lists
/// and maps, 1 for anything else.
fn traversal_cost(v: &Value<'_>, depth: u32) -> u64 {
    if depth > 64 {
        return 1;
    }
    match v {
        Value::String(s) => (s.len() as f64 * STRING_TRAVERSAL) as u64,
        Value::Bytes(b) => (b.len() as f64 * STRING_TRAVERSAL) as u64,
        Value::List(l) => l.iter().map(|e| traversal_cost(&e, depth + 1)).sum(),
        Value::Map(m) => m
            .iter()
            .map(|(k, v)| traversal_cost(&k, depth + 1) + traversal_cost(&v, depth + 1))
            .sum(),
        _ => 1,
    }
}

/// How cel-go charges a call of an overload by itself (its cost tracker's `costCall`, with
/// the libraries' own trackers): 1, unless the overload id is one cel-go prices by the sizes
/// of its arguments. `args` below are the evaluated arguments, the receiver first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Charge {
    /// 1.
    One,
    /// `ceil(size(args[0]) * 0.1)` (`startsWith`, `endsWith`, string/bytes conversions,
    /// `strings.quote`, `format`).
    FirstTenth,
    /// `size(args[1])`: `in` on a list.
    InList,
    /// `ceil(min(size(args[0]), size(args[1])) * 0.1)`: comparisons and equality of strings
    /// and bytes.
    MinTenth,
    /// [`Charge::MinTenth`] with an optional value of size 1, as cel-go before v0.23 sizes
    /// it (Kubernetes 1.32 and older).
    MinTenthUnsizedOptionals,
    /// `ceil((size(args[0]) + size(args[1])) * 0.1)`: concatenation.
    SumTenth,
    /// `ceil((1 + size(args[0])) * 0.1) * ceil(size(args[1]) * 0.25)`: `matches`.
    Matches,
    /// `ceil(size(args[0]) * 0.1) * ceil(size(args[1]) * 0.1)`: `contains`.
    Contains,
    /// The library's own cost tracker (cel-go's lists and sets extensions), which also
    /// takes precedence over the Kubernetes estimator.
    Tracked(Tracker),
}

impl Charge {
    /// The charge for a call with these arguments and result.
    fn of(self, args: &[Value<'_>], result: &Value<'_>) -> u64 {
        let a0 = || args.first().map(size).unwrap_or(1);
        let a1 = || args.get(1).map(size).unwrap_or(1);
        match self {
            Charge::One => 1,
            Charge::FirstTenth => ceil_factor(a0(), STRING_TRAVERSAL),
            Charge::InList => a1(),
            Charge::MinTenth => {
                // Sizes of short strings need no counting: any size from 1 to 10 costs 1.
                match (args.first(), args.get(1)) {
                    (Some(Value::String(x)), Some(Value::String(y))) => {
                        let (lx, ly) = (x.len(), y.len());
                        if lx == 0 || ly == 0 {
                            0
                        } else if lx <= 10 || ly <= 10 {
                            1
                        } else {
                            ceil_factor(a0().min(a1()), STRING_TRAVERSAL)
                        }
                    }
                    _ => ceil_factor(a0().min(a1()), STRING_TRAVERSAL),
                }
            }
            Charge::MinTenthUnsizedOptionals => {
                let opt_one = |v: &Value<'_>| match v {
                    Value::Optional(_) => 1,
                    other => size(other),
                };
                let a = args.first().map(opt_one).unwrap_or(1);
                let b = args.get(1).map(opt_one).unwrap_or(1);
                ceil_factor(a.min(b), STRING_TRAVERSAL)
            }
            Charge::SumTenth => ceil_factor(a0() + a1(), STRING_TRAVERSAL),
            Charge::Matches => {
                let str_cost = ((1.0 + a0() as f64) * STRING_TRAVERSAL).ceil() as u64;
                str_cost * ceil_factor(a1(), REGEX_LENGTH)
            }
            Charge::Contains => {
                ceil_factor(a0(), STRING_TRAVERSAL) * ceil_factor(a1(), STRING_TRAVERSAL)
            }
            Charge::Tracked(t) => t.of(args, result),
        }
    }
}

impl Charge {
    /// The range of the charge for a call whose operands (the receiver first) have these
    /// sizes (as the charge counts them: an optional value by its value's size, or 1 for
    /// [`Charge::MinTenthUnsizedOptionals`]) and whose result has this size.
    pub fn static_range(self, operands: &[StaticOperand], result: StaticRange) -> StaticRange {
        let size = |i: usize| operands.get(i).map_or(StaticRange::fixed(1), |o| o.size);
        match self {
            Charge::One => StaticRange::fixed(1),
            Charge::FirstTenth => size(0).factor(STRING_TRAVERSAL),
            Charge::InList => size(1),
            Charge::MinTenth | Charge::MinTenthUnsizedOptionals => {
                let (a, b) = (size(0), size(1));
                StaticRange {
                    min: a.min.min(b.min),
                    max: a.max.min(b.max),
                }
                .factor(STRING_TRAVERSAL)
            }
            Charge::SumTenth => size(0).plus(size(1)).factor(STRING_TRAVERSAL),
            Charge::Matches => size(0)
                .plus(StaticRange::fixed(1))
                .factor(STRING_TRAVERSAL)
                .times(size(1).factor(REGEX_LENGTH)),
            Charge::Contains => size(0)
                .factor(STRING_TRAVERSAL)
                .times(size(1).factor(STRING_TRAVERSAL)),
            Charge::Tracked(t) => t.static_range(operands, result),
        }
    }
}

/// A cost tracker of cel-go's lists and sets extensions (`callCost` 1, list creation 10).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tracker {
    /// A list built from the result: `size(result) + 11` (`slice`, `lists.range`,
    /// `reverse`). Known only after the call.
    Result,
    /// `flatten`: `size(args[0]) * depth + 11`, the depth being `args[1]` when it is given
    /// (then converted unchecked, see [`TrackedArgument::Depth`]), else 1.
    Flatten {
        /// The overload takes the depth as its second argument.
        depth_argument: bool,
    },
    /// Comparisons of the elements of the list at this position with each other:
    /// `size² * 2 (+ 0.1 for strings and bytes) + 11` (`distinct`, `sort`: 0; the keys of
    /// `@sortByAssociatedKeys`: 1). The list is converted unchecked (see
    /// [`TrackedArgument::List`]).
    SelfCompare(usize),
    /// `size(args[0]) * size(args[1]) + 1` (`sets.contains`, `sets.intersects`).
    SetsProduct,
    /// `size(args[0]) * size(args[1]) * 2 + 1` (`sets.equivalent`).
    SetsEquivalent,
}

impl Tracker {
    fn of(self, args: &[Value<'_>], result: &Value<'_>) -> u64 {
        const CALL: u64 = 1;
        const LIST_CREATE: u64 = 10;
        let size = |v: Option<&Value<'_>>| v.map(Value::cost_size).unwrap_or(0);
        let allocating = |factor: f64, n: u64| (n as f64 * factor) as u64 + CALL + LIST_CREATE;
        match self {
            Tracker::Result => allocating(1.0, result.cost_size()),
            Tracker::Flatten { .. } => {
                let depth = match args.get(1) {
                    Some(Value::Int(d)) => *d as f64,
                    _ => 1.0,
                };
                allocating(depth, size(args.first()))
            }
            Tracker::SelfCompare(i) => {
                let l = args.get(i);
                let n = size(l);
                let mut factor = 2.0;
                if let Some(Value::List(list)) = l {
                    if matches!(list.get(0), Some(Value::String(_) | Value::Bytes(_))) {
                        factor += 0.1;
                    }
                }
                allocating(factor, n.saturating_mul(n))
            }
            Tracker::SetsProduct => CALL + size(args.first()).saturating_mul(size(args.get(1))),
            Tracker::SetsEquivalent => {
                CALL + (size(args.first()).saturating_mul(size(args.get(1))) as f64 * 2.0) as u64
            }
        }
    }

    /// The range of the tracker's charge for operands of these sizes and a result of this
    /// size (see [`Charge::static_range`]).
    fn static_range(self, operands: &[StaticOperand], result: StaticRange) -> StaticRange {
        let size = |i: usize| operands.get(i).map_or(StaticRange::ZERO, |o| o.size);
        let allocation = StaticRange::fixed(11);
        let truncated = |n: StaticRange, f: f64| n.factor_down(f);
        match self {
            Tracker::Result => result.plus(allocation),
            Tracker::Flatten {
                depth_argument: false,
            } => size(0).plus(allocation),
            // The depth is a value, not a size: no bound but the list's emptiness.
            Tracker::Flatten {
                depth_argument: true,
            } => StaticRange {
                min: 0,
                max: u64::MAX,
            }
            .plus(allocation),
            Tracker::SelfCompare(i) => {
                let n = size(i);
                let square = n.times(n);
                StaticRange {
                    min: truncated(square, 2.0).min,
                    max: truncated(square, 2.1).max,
                }
                .plus(allocation)
            }
            Tracker::SetsProduct => size(0).times(size(1)).plus(StaticRange::fixed(1)),
            Tracker::SetsEquivalent => {
                truncated(size(0).times(size(1)), 2.0).plus(StaticRange::fixed(1))
            }
        }
    }

    /// The argument this tracker converts without checking, if any.
    pub fn argument(self) -> Option<TrackedArgument> {
        match self {
            Tracker::Flatten {
                depth_argument: true,
            } => Some(TrackedArgument::Depth),
            Tracker::SelfCompare(i) => Some(TrackedArgument::List(i)),
            _ => None,
        }
    }
}

/// What the Kubernetes cost estimator (`library.CostEstimator.CallCost`, strict cost: from
/// Kubernetes 1.32) charges for a call of a function. The estimator is keyed by function
/// name: a library gives its estimate per function, an overload refines it only where the
/// estimator tests the overload id. Where an estimate has no opinion on the values (`None`
/// below), cel-go's [`Charge`] applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Estimate {
    /// A fixed cost (authorizer checks and builders, library accessors).
    Fixed(u64),
    /// `ceil(size(args[0]) * 0.1)`: one traversal of a string (`url`, `lowerAscii`,
    /// `quantity`, `ip` …).
    StringTraversal,
    /// `ceil(size(args[0]) * 2 * 0.1)`: a traversal and the construction of a result
    /// (`replace`, `split`), or a parse and a comparison (`ip.isCanonical`).
    StringTraversalTwice,
    /// `ceil(size(result) * 2 * 0.1)`: `join`. Known only after the call.
    JoinedResult,
    /// Kubernetes' `traversalCost` of `args[0]`: strings by bytes times 0.1 (truncated),
    /// summed over lists and maps, 1 for other values (`isSorted`, `sum`, `min`, `max`,
    /// `indexOf`, `lastIndexOf`, `includes`).
    ListTraversal,
    /// A field or label selector of `args[1]`: `10 + ceil(size * 0.1) + ceil(size * 0.5) *
    /// 50`, the estimate's maximum.
    Selector,
    /// `ceil((1 + size(args[0])) * 0.1) * ceil(size(args[1]) * 0.25)`: `find`, `findAll`.
    Find,
    /// `containsIP`: `ceil(2 * size(args[0]) * 0.1)`, plus `ceil(size(args[1]) * 0.1)`
    /// when the IP is a string to parse.
    ContainsIp {
        /// The overload parses a string.
        parses_string: bool,
    },
    /// `containsCIDR`: `ceil(2 * size(args[0]) * 0.1) + ceil(size(args[0]) * 0.1) + 1`,
    /// plus `ceil(size(args[1]) * 0.1)` when the CIDR is a string to parse.
    ContainsCidr {
        /// The overload parses a string.
        parses_string: bool,
    },
    /// A named format's `validate`: `ceil((1 + size(args[1])) * 0.1) * ceil(n * 0.25)`, `n`
    /// being the size of the format's largest regular expression.
    Validate,
    /// `==` with a library value on the left: 1 (no opinion on other values).
    LibraryEquality,
}

impl Estimate {
    /// The estimator's cost of a call with these arguments and result, if it has an
    /// opinion.
    fn of(self, args: &[Value<'_>], result: &Value<'_>) -> Option<u64> {
        let a0 = args.first();
        let a1 = args.get(1);
        let tenth = |v: &Value<'_>| ceil_factor(k8s_size(v), STRING_TRAVERSAL);
        match self {
            Estimate::Fixed(n) => Some(n),
            Estimate::StringTraversal => a0.map(tenth),
            Estimate::StringTraversalTwice => {
                a0.map(|v| ceil_factor(k8s_size(v) * 2, STRING_TRAVERSAL))
            }
            Estimate::JoinedResult => {
                a0.map(|_| ceil_factor(k8s_size(result) * 2, STRING_TRAVERSAL))
            }
            Estimate::ListTraversal => Some(a0.map(|v| traversal_cost(v, 0)).unwrap_or(0)),
            Estimate::Selector => a1.map(|s| {
                let len = k8s_size(s);
                // ListCreateBaseCost + parse (len * 0.1) + requirements (len * 0.5) * (10 + 40),
                // the maximum of the estimate.
                let parse = ceil_factor(len, STRING_TRAVERSAL);
                let reqs = (len as f64 * 0.5).ceil() as u64 * 50;
                10 + parse + reqs
            }),
            Estimate::Find => match (a0, a1) {
                (Some(s), Some(re)) => {
                    let str_cost = ((1.0 + k8s_size(s) as f64) * STRING_TRAVERSAL).ceil() as u64;
                    Some(str_cost * ceil_factor(k8s_size(re), REGEX_LENGTH))
                }
                _ => None,
            },
            Estimate::ContainsIp { parses_string } => match (a0, a1) {
                (Some(c), Some(o)) => {
                    let cs = k8s_size(c);
                    let mut cost = ceil_factor(cs + cs, STRING_TRAVERSAL);
                    if parses_string {
                        cost += tenth(o);
                    }
                    Some(cost)
                }
                _ => None,
            },
            Estimate::ContainsCidr { parses_string } => match (a0, a1) {
                (Some(c), Some(o)) => {
                    let cs = k8s_size(c);
                    let mut cost = ceil_factor(cs + cs, STRING_TRAVERSAL);
                    cost += ceil_factor(cs, STRING_TRAVERSAL) + 1;
                    if parses_string {
                        cost += tenth(o);
                    }
                    Some(cost)
                }
                _ => None,
            },
            Estimate::Validate => match (a0, a1) {
                (Some(Value::Opaque(f)), Some(s)) => {
                    let regex_size = crate::named_format::max_regex_size(f.as_ref())?;
                    let str_cost = ((1.0 + k8s_size(s) as f64) * STRING_TRAVERSAL).ceil() as u64;
                    Some(str_cost * ceil_factor(regex_size, REGEX_LENGTH))
                }
                _ => None,
            },
            Estimate::LibraryEquality => match a0 {
                Some(Value::Opaque(_)) if args.len() == 2 => Some(1),
                _ => None,
            },
        }
    }
}

/// A range of sizes or costs known before evaluation (what cel-go's checker calls a
/// `SizeEstimate` or `CostEstimate`); `u64::MAX` stands for "no bound".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct StaticRange {
    /// The least.
    pub min: u64,
    /// The most.
    pub max: u64,
}

impl StaticRange {
    /// Nothing: `[0, 0]`.
    pub const ZERO: StaticRange = StaticRange { min: 0, max: 0 };
    /// Anything: `[0, u64::MAX]`.
    pub const UNBOUNDED: StaticRange = StaticRange {
        min: 0,
        max: u64::MAX,
    };

    /// `[n, n]`.
    pub const fn fixed(n: u64) -> StaticRange {
        StaticRange { min: n, max: n }
    }

    /// Both ends added (saturating).
    pub fn plus(self, o: StaticRange) -> StaticRange {
        StaticRange {
            min: self.min.saturating_add(o.min),
            max: self.max.saturating_add(o.max),
        }
    }

    /// Both ends multiplied (saturating).
    pub fn times(self, o: StaticRange) -> StaticRange {
        StaticRange {
            min: self.min.saturating_mul(o.min),
            max: self.max.saturating_mul(o.max),
        }
    }

    /// The smallest range holding both.
    pub fn union(self, o: StaticRange) -> StaticRange {
        StaticRange {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }

    /// `ceil(x * f)` of both ends (cel-go's `MultiplyByCostFactor`), unbounded staying
    /// unbounded.
    pub fn factor(self, f: f64) -> StaticRange {
        StaticRange {
            min: static_factor(self.min, f),
            max: static_factor(self.max, f),
        }
    }

    /// `floor(x * f)` of both ends (Kubernetes' `traversalCost` truncates).
    fn factor_down(self, f: f64) -> StaticRange {
        let down = |x: u64| {
            if x == u64::MAX {
                u64::MAX
            } else {
                (x as f64 * f) as u64
            }
        };
        StaticRange {
            min: down(self.min),
            max: down(self.max),
        }
    }

    /// Both ends at most `n`.
    fn at_most(self, n: u64) -> StaticRange {
        StaticRange {
            min: self.min.min(n),
            max: self.max.min(n),
        }
    }

    /// True when `n` lies in the range.
    pub fn holds(self, n: u64) -> bool {
        self.min <= n && n <= self.max
    }
}

fn static_factor(x: u64, f: f64) -> u64 {
    if x == u64::MAX {
        return u64::MAX;
    }
    let v = (x as f64 * f).ceil();
    if v >= 1.8e19 {
        u64::MAX
    } else {
        v as u64
    }
}

/// What is known of an operand of a call before evaluation (the receiver first), as the
/// static estimate of a call's cost reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StaticOperand {
    /// Its size as cel-go counts it (code points of a string, bytes, elements, entries; a
    /// library value's own size, such as a CIDR's prefix bytes).
    pub size: StaticRange,
    /// What kind of value it is.
    pub shape: Shape,
}

impl StaticOperand {
    /// An operand of this size and shape.
    pub const fn new(size: StaticRange, shape: Shape) -> StaticOperand {
        StaticOperand { size, shape }
    }
}

/// The kind of an operand, as far as the static estimate of a cost goes.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A string or bytes.
    Text,
    /// A list, with what is known of its elements.
    List(Elements),
    /// A map.
    Map,
    /// A scalar or a library value (no elements to traverse).
    Scalar,
    /// Not known (`dyn`).
    Unknown,
}

/// What is known of the elements of a list.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elements {
    /// Strings or bytes of these sizes.
    Text(StaticRange),
    /// Scalars (numbers, booleans, library values …).
    Scalar,
    /// Not known (lists, maps, `dyn`).
    Unknown,
}

/// The sizes of the named formats' largest regular expressions, the least and the most
/// (what `validate` is priced by).
fn named_format_regex_sizes() -> StaticRange {
    let (min, max) = crate::named_format::regex_size_bounds();
    StaticRange { min, max }
}

impl Estimate {
    /// The range of what [`Estimate`] charges for a call whose operands (the receiver first)
    /// have these static sizes and shapes: the static estimate of the call's cost, stated
    /// beside the run-time charge it bounds. Every run-time charge of a call whose operands
    /// have sizes in the given ranges lies in the range returned.
    ///
    /// Only strict cost (Kubernetes 1.32+, [`CostKind::resolve`]) prices calls by an
    /// estimate; before, a library call costs its [`Charge`]. The formulas are Kubernetes' `library.CostEstimator.EstimateCallCost`
    /// (`pkg/cel/library/cost.go`) wherever that estimate bounds its own run-time charge
    /// (`CallCost`): fixed
    /// costs, string traversals, `replace` and `split`, selectors, `find` and `findAll`,
    /// the CIDR comparisons' maximum. Where it does not, the range is the run-time charge's,
    /// and the difference is said at the variant:
    ///
    /// - [`Estimate::StringTraversal`] and [`Estimate::StringTraversalTwice`] of a global
    ///   call (`isIP`, `cidr`, `quantity`, `semver`, `ip`, `ip.isCanonical` …): cel-go's
    ///   checker gives `EstimateCallCost` no target for a global call, the cases that
    ///   require one return nothing, and the checker's default (1) applies, while the
    ///   run time charges the traversal.
    /// - [`Estimate::JoinedResult`]: the estimate traverses the result once (`0.1`), the
    ///   run time charges twice (`0.2`).
    /// - [`Estimate::ListTraversal`]: the estimate charges 1 per element (plus a tenth of a
    ///   string element's size), the run time `traversalCost` (a tenth of a string
    ///   element's size, truncated, 1 per other scalar).
    /// - [`Estimate::ContainsIp`] and [`Estimate::ContainsCidr`]: the estimate takes
    ///   address sizes of 4 to 16 bytes; the run time the CIDR's prefix bytes (0 for `/0`).
    /// - [`Estimate::Validate`]: the estimate takes a regular expression of 128
    ///   (`MaxNameFormatRegexSize`) and the string's size; the run time the format's own
    ///   (up to 1103, `uri`) and one more than the string's size.
    /// - [`Estimate::LibraryEquality`]: 1 (the estimate prices a format or URL equality by
    ///   its size, the run time 1).
    pub fn static_range(self, operands: &[StaticOperand]) -> StaticRange {
        let size = |i: usize| operands.get(i).map_or(StaticRange::fixed(1), |o| o.size);
        match self {
            Estimate::Fixed(n) => StaticRange::fixed(n),
            Estimate::StringTraversal => size(0).factor(STRING_TRAVERSAL),
            Estimate::StringTraversalTwice => size(0).factor(2.0 * STRING_TRAVERSAL),
            Estimate::JoinedResult => ResultSize::Joined
                .of(operands)
                .factor(2.0 * STRING_TRAVERSAL),
            Estimate::ListTraversal => match operands.first().map(|o| o.shape) {
                Some(Shape::Text) => size(0).factor_down(STRING_TRAVERSAL),
                Some(Shape::List(Elements::Scalar)) => size(0),
                Some(Shape::List(Elements::Text(e))) => {
                    size(0).times(e.factor_down(STRING_TRAVERSAL))
                }
                None => StaticRange::ZERO,
                // Nested lists and maps cost their elements' traversal: no bound but the
                // operand's (unknown sizes are unbounded, or zero when they are taken as
                // zero).
                Some(_) => StaticRange {
                    min: 0,
                    max: if size(0).max == 0 { 0 } else { u64::MAX },
                },
            },
            Estimate::Selector => {
                let s = size(1);
                StaticRange::fixed(10)
                    .plus(s.factor(STRING_TRAVERSAL))
                    .plus(s.factor(0.5).times(StaticRange::fixed(50)))
            }
            Estimate::Find => size(0)
                .plus(StaticRange::fixed(1))
                .factor(STRING_TRAVERSAL)
                .times(size(1).factor(REGEX_LENGTH)),
            Estimate::ContainsIp { parses_string } => {
                let cidr = size(0).at_most(16);
                let mut r = cidr.plus(cidr).factor(STRING_TRAVERSAL);
                if parses_string {
                    r = r.plus(size(1).factor(STRING_TRAVERSAL));
                }
                r
            }
            Estimate::ContainsCidr { parses_string } => {
                let cidr = size(0).at_most(16);
                let mut r = cidr
                    .plus(cidr)
                    .factor(STRING_TRAVERSAL)
                    .plus(cidr.factor(STRING_TRAVERSAL))
                    .plus(StaticRange::fixed(1));
                if parses_string {
                    r = r.plus(size(1).factor(STRING_TRAVERSAL));
                }
                r
            }
            Estimate::Validate => size(1)
                .plus(StaticRange::fixed(1))
                .factor(STRING_TRAVERSAL)
                .times(named_format_regex_sizes().factor(REGEX_LENGTH)),
            Estimate::LibraryEquality => StaticRange::fixed(1),
        }
    }
}

/// The size of a function's result from the sizes of its operands, where Kubernetes' cost
/// estimator states it (`EstimateCallCost`'s `ResultSize`): what the static estimate of a
/// later call on the result reads.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultSize {
    /// As large as the receiver (`lowerAscii`, `upperAscii`, `trim`).
    Receiver,
    /// From 0 to the receiver's size (`substring`).
    UpToReceiver,
    /// From 0 to one more than the receiver's size: the pieces of a split (`split`; one
    /// more than Kubernetes' estimate states, which misses the pieces around separators at
    /// the ends, `',,'.split(',')` giving 3, and the one piece of `''.split(',')`).
    Pieces,
    /// The list's elements joined with the separator between them (`join`).
    Joined,
}

impl ResultSize {
    /// The result's size for these operands (the receiver first).
    pub fn of(self, operands: &[StaticOperand]) -> StaticRange {
        let receiver = operands.first().map_or(StaticRange::UNBOUNDED, |o| o.size);
        match self {
            ResultSize::Receiver => receiver,
            ResultSize::UpToReceiver => StaticRange {
                min: 0,
                max: receiver.max,
            },
            ResultSize::Pieces => StaticRange {
                min: 0,
                max: receiver.max.saturating_add(1),
            },
            ResultSize::Joined => {
                let element = match operands.first().map(|o| o.shape) {
                    Some(Shape::List(Elements::Text(e))) => e,
                    _ => StaticRange::UNBOUNDED,
                };
                let separator = operands.get(1).map_or(StaticRange::ZERO, |o| o.size);
                let separators = StaticRange {
                    min: receiver.min.saturating_sub(1),
                    max: receiver.max.saturating_sub(1),
                };
                receiver.times(element).plus(separator.times(separators))
            }
        }
    }
}

/// The cost rule of one overload, as its library writes it: cel-go's charge, and the
/// Kubernetes estimate where the estimator singles the overload out (otherwise the
/// estimate of its function applies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cost {
    charge: Charge,
    estimate: Option<Estimate>,
}

impl Cost {
    /// 1: cel-go's charge for every overload it does not price otherwise.
    pub const ONE: Cost = Cost::charged(Charge::One);
    /// [`Charge::FirstTenth`].
    pub const FIRST_TENTH: Cost = Cost::charged(Charge::FirstTenth);
    /// [`Charge::InList`].
    pub const IN_LIST: Cost = Cost::charged(Charge::InList);
    /// [`Charge::MinTenth`].
    pub const MIN_TENTH: Cost = Cost::charged(Charge::MinTenth);
    /// [`Charge::SumTenth`].
    pub const SUM_TENTH: Cost = Cost::charged(Charge::SumTenth);
    /// [`Charge::Matches`].
    pub const MATCHES: Cost = Cost::charged(Charge::Matches);
    /// [`Charge::Contains`].
    pub const CONTAINS: Cost = Cost::charged(Charge::Contains);

    /// A cost charged as given, without an estimate of its own.
    pub const fn charged(charge: Charge) -> Cost {
        Cost {
            charge,
            estimate: None,
        }
    }

    /// Priced by a library's cost tracker.
    pub const fn tracked(tracker: Tracker) -> Cost {
        Cost::charged(Charge::Tracked(tracker))
    }

    /// With the Kubernetes estimate of this overload (where the estimator tests the overload
    /// id, refining the estimate of its function).
    pub const fn estimated(self, estimate: Estimate) -> Cost {
        Cost {
            charge: self.charge,
            estimate: Some(estimate),
        }
    }

    /// cel-go's charge.
    pub fn charge(&self) -> Charge {
        self.charge
    }

    /// The estimate of this overload in particular, if it has one.
    pub fn estimate(&self) -> Option<Estimate> {
        self.estimate
    }
}

/// The formula that prices a call, chosen once when the program is planned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CostKind {
    /// A fixed cost.
    Fixed(u64),
    /// cel-go's charge.
    Charge(Charge),
    /// The Kubernetes estimate, or, where it has no opinion on the values, cel-go's charge
    /// (never a tracker's).
    Estimated(Estimate, Charge),
}

impl CostKind {
    /// Chooses the formula of a call from the cost rule of its overload (`None` when the
    /// overload is not known: several may apply, or the program is not checked) and the
    /// Kubernetes estimate of its function. With `strict` (Kubernetes 1.32+, where the
    /// apiserver installs its estimator for webhooks), a library's tracker comes first,
    /// then the estimate, then cel-go's charge; without, the estimate is ignored. A call of
    /// an unknown overload costs 1 unless the estimate of its function says otherwise.
    pub fn resolve(overload: Option<Cost>, function: Option<Estimate>, strict: bool) -> CostKind {
        let charge = overload.map_or(Charge::One, |c| c.charge);
        if matches!(charge, Charge::Tracked(_)) {
            return CostKind::Charge(charge);
        }
        let estimate = overload.and_then(|c| c.estimate).or(function);
        match estimate {
            Some(Estimate::Fixed(n)) if strict => CostKind::Fixed(n),
            Some(e) if strict => CostKind::Estimated(e, charge),
            _ => match charge {
                Charge::One => CostKind::Fixed(1),
                c => CostKind::Charge(c),
            },
        }
    }

    /// The formula with optional values of size 1 in equality and comparison charges (cel-go
    /// before v0.23).
    pub fn with_unsized_optionals(self) -> CostKind {
        match self {
            CostKind::Charge(Charge::MinTenth) => {
                CostKind::Charge(Charge::MinTenthUnsizedOptionals)
            }
            CostKind::Estimated(e, Charge::MinTenth) => {
                CostKind::Estimated(e, Charge::MinTenthUnsizedOptionals)
            }
            other => other,
        }
    }

    /// The static range of what the formula charges for a call whose operands (the
    /// receiver first) have these sizes and shapes, and whose result has `result` (the
    /// size the function's [`ResultSize`] states, else unknown): a fixed cost, an
    /// estimate's [`Estimate::static_range`] or a charge's [`Charge::static_range`]. Every
    /// run-time charge ([`cost_of`]) of such a call lies in it.
    pub fn static_range(self, operands: &[StaticOperand], result: StaticRange) -> StaticRange {
        match self {
            CostKind::Fixed(n) => StaticRange::fixed(n),
            CostKind::Charge(c) => c.static_range(operands, result),
            // The estimate has an opinion on library values only.
            CostKind::Estimated(Estimate::LibraryEquality, c) => {
                StaticRange::fixed(1).union(c.static_range(operands, result))
            }
            CostKind::Estimated(e, _) => e.static_range(operands),
        }
    }

    /// True when the formula prices the call's result, which is known only after the call
    /// (`join`, and the trackers of `slice`, `lists.range` and `reverse`).
    fn prices_result(self) -> bool {
        matches!(
            self,
            CostKind::Charge(Charge::Tracked(Tracker::Result))
                | CostKind::Estimated(Estimate::JoinedResult, _)
        )
    }
}

/// Prices a call with a formula chosen by [`CostKind::resolve`].
///
/// `args` are the evaluated arguments (the receiver first); an argument that evaluated to an
/// error is passed as `null` (size 1, as cel-go sizes an error value).
pub fn cost_of(kind: CostKind, args: &[Value<'_>], result: &Value<'_>) -> u64 {
    match kind {
        CostKind::Fixed(n) => n,
        CostKind::Charge(c) => c.of(args, result),
        CostKind::Estimated(e, c) => e.of(args, result).unwrap_or_else(|| c.of(args, result)),
    }
}

/// The cost of a call when its formula does not depend on the call's result, computed from
/// the arguments before the call is made, so that a call that would exceed the cost limit
/// is not made (cel-go makes it, then charges it): `None` for the formulas that price the
/// result (`join`, and the lists extension's `slice`, `range` and `reverse`). When it is
/// `Some`, it is what [`cost_of`] charges after the call.
pub fn cost_before_call(kind: CostKind, args: &[Value<'_>]) -> Option<u64> {
    if kind.prices_result() {
        None
    } else {
        Some(cost_of(kind, args, &Value::Null))
    }
}

/// What the lists extension's cost tracker of an overload converts without checking (see
/// [`cost_tracker_failure`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrackedArgument {
    /// The argument at this position, to a list (`distinct`, `sort`: 0; `sortBy`'s keys: 1).
    List(usize),
    /// The depth of `flatten(int)`, to an int.
    Depth,
}

/// The internal error cel-go reports when the lists extension's cost tracker fails on the
/// call's arguments (it converts an argument to a list, or a depth to an int, without
/// checking, and the interpreter recovers the panic): the tracker runs after every charged
/// call, whatever the call returned, so an erroneous argument (`errored`, a bit per
/// argument) or a value of another type ends the evaluation.
pub fn cost_tracker_failure(
    tracked: TrackedArgument,
    args: &[Value<'_>],
    errored: u64,
) -> Option<EvalError> {
    let failed = |i: usize| errored & 1u64.checked_shl(i as u32).unwrap_or(0) != 0;
    match tracked {
        TrackedArgument::List(i) => {
            let go_type = if failed(i) {
                "*types.Err"
            } else {
                match args.get(i)? {
                    Value::List(_) => return None,
                    other => go_type_name(other),
                }
            };
            Some(internal_error(format!(
                "interface conversion: {go_type} is not traits.Lister: missing method Add"
            )))
        }
        TrackedArgument::Depth => {
            let go_type = if failed(1) {
                "*types.Err"
            } else {
                match args.get(1)? {
                    Value::Int(_) => return None,
                    other => go_type_name(other),
                }
            };
            Some(internal_error(format!(
                "interface conversion: ref.Val is {go_type}, not types.Int"
            )))
        }
    }
}

/// cel-go's `internal error: …` of a recovered panic.
fn internal_error(message: String) -> EvalError {
    EvalError::new(ErrorKind::Other, format!("internal error: {message}"))
}

/// The Go type (`%T`) of the cel-go value behind a value: the library values' own types.
fn go_type_name(v: &Value<'_>) -> &'static str {
    match v {
        Value::Opaque(o) => match o.type_name() {
            "kubernetes.Quantity" => "cel.Quantity",
            "net.IP" => "cel.IP",
            "net.CIDR" => "cel.CIDR",
            "kubernetes.URL" => "cel.URL",
            "kubernetes.Semver" => "cel.Semver",
            _ => "types.Err",
        },
        other => crate::value::go_type_name(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::libraries::{Behaviours, Bindings, Library};
    use crate::test_util::s;

    /// The bindings of every library of Kubernetes 1.37 (the newest version of each).
    fn bindings() -> Bindings {
        let newest: Vec<Library> = Library::ALL
            .into_iter()
            .filter(|l| ![Library::StringsV0, Library::K8sListsV0].contains(l))
            .collect();
        Bindings::new(&newest, Behaviours::new())
    }

    /// Asserts the cost kind of each call `(function, overload)`, with or without the
    /// Kubernetes estimator.
    fn assert_kinds<const N: usize>(estimator: bool, calls: [(&str, Option<&str>, CostKind); N]) {
        let b = bindings();
        for (function, overload, want) in calls {
            let got = b.cost(function, overload, estimator);
            assert_eq!(got, want, "{function} {overload:?}");
        }
    }

    #[test]
    fn without_the_estimator_calls_cost_what_cel_go_alone_charges() {
        assert_kinds(
            false,
            [
                (
                    "startsWith",
                    Some("starts_with_string"),
                    CostKind::Charge(Charge::FirstTenth),
                ),
                ("@in", Some("in_list"), CostKind::Charge(Charge::InList)),
                ("check", Some("resourcecheck_check"), CostKind::Fixed(1)),
                (
                    "sets.contains",
                    Some("list_sets_contains_list"),
                    CostKind::Charge(Charge::Tracked(Tracker::SetsProduct)),
                ),
                ("check", None, CostKind::Fixed(1)),
            ],
        );
        let b = bindings();
        let c = |f: &str, o: Option<&str>| b.cost(f, o, false);
        // The sets extension's tracker, cel-go's default otherwise.
        let list = Value::list(vec![s("a"), s("b")]);
        let tracked = cost_of(
            c("sets.contains", Some("list_sets_contains_list")),
            &[list.clone(), list.clone()],
            &Value::Bool(true),
        );
        assert_eq!(tracked, 5);
        let long = s("a string of twenty..");
        let eq = cost_of(
            c("_==_", Some("equals")),
            &[long.clone(), long],
            &Value::Null,
        );
        assert_eq!(eq, 2);
        assert_eq!(
            cost_before_call(c("join", Some("list_join")), &[list]),
            Some(1)
        );
    }

    #[test]
    fn with_the_estimator_its_estimates_come_between_trackers_and_charges() {
        assert_kinds(
            true,
            [
                (
                    "check",
                    Some("resourcecheck_check"),
                    CostKind::Fixed(AUTHZ_CHECK_COST),
                ),
                ("check", None, CostKind::Fixed(AUTHZ_CHECK_COST)),
                (
                    "_==_",
                    Some("equals"),
                    CostKind::Estimated(Estimate::LibraryEquality, Charge::MinTenth),
                ),
                (
                    "_==_",
                    None,
                    CostKind::Estimated(Estimate::LibraryEquality, Charge::One),
                ),
                (
                    "sets.contains",
                    Some("list_sets_contains_list"),
                    CostKind::Charge(Charge::Tracked(Tracker::SetsProduct)),
                ),
                // The estimator is keyed by name: `ip` parses a string, unless the overload is the
                // CIDR's field.
                (
                    "ip",
                    Some("string_to_ip"),
                    CostKind::Estimated(Estimate::StringTraversal, Charge::One),
                ),
                ("ip", Some("cidr_ip"), CostKind::Fixed(1)),
                (
                    "ip",
                    None,
                    CostKind::Estimated(Estimate::StringTraversal, Charge::One),
                ),
                (
                    "containsIP",
                    Some("cidr_contains_ip_string"),
                    CostKind::Estimated(
                        Estimate::ContainsIp {
                            parses_string: true,
                        },
                        Charge::One,
                    ),
                ),
                (
                    "containsIP",
                    None,
                    CostKind::Estimated(
                        Estimate::ContainsIp {
                            parses_string: false,
                        },
                        Charge::One,
                    ),
                ),
                // Unknown overloads cost 1 unless the function is estimated.
                ("startsWith", None, CostKind::Fixed(1)),
                (
                    "startsWith",
                    Some("starts_with_string"),
                    CostKind::Charge(Charge::FirstTenth),
                ),
            ],
        );
    }

    #[test]
    fn string_equality_cost_is_by_shorter_length() {
        let min = CostKind::Charge(Charge::MinTenth);
        assert_eq!(
            cost_of(min, &[s("shop"), s("kube-system")], &Value::Null),
            1
        );
        assert_eq!(cost_of(min, &[s(""), s("x")], &Value::Null), 0);
    }

    #[test]
    fn matches_cost() {
        let sa = s("system:serviceaccount:kube-system:statefulset-controller");
        let re = s("^[a-z0-9._-]+@example\\.com$");
        assert_eq!(
            cost_of(CostKind::Charge(Charge::Matches), &[sa, re], &Value::Null),
            42
        );
    }

    /// Short strings are priced without counting their code points: the same as
    /// `ceil(min(size) * 0.1)`.
    #[test]
    fn the_shorter_length_is_counted_only_when_it_matters() {
        let strs = [
            Value::string(""),
            Value::string("x"),
            Value::string("kube-system"),
            Value::string("system:serviceaccount:kube-system:statefulset-controller"),
            Value::string("ééééééééééééé"),
        ];
        for a in &strs {
            for b in &strs {
                let direct = ceil_factor(a.cost_size().min(b.cost_size()), STRING_TRAVERSAL);
                let args = [a.clone(), b.clone()];
                assert_eq!(
                    cost_of(CostKind::Charge(Charge::MinTenth), &args, &Value::Null),
                    direct,
                    "{a:?} {b:?}"
                );
            }
        }
    }

    #[test]
    fn costs_known_before_a_call_are_the_costs_charged_after_it() {
        let b = bindings();
        let sa = Value::string("system:serviceaccount:kube-system:statefulset-controller");
        let l = Value::list(vec![Value::Int(3), Value::Int(1), Value::Int(2)]);
        let cases: Vec<(&str, Option<&str>, Vec<Value<'_>>, Value<'_>)> = vec![
            (
                "matches",
                Some("matches_string"),
                vec![sa.clone(), sa.clone()],
                Value::Bool(true),
            ),
            (
                "_+_",
                Some("add_string"),
                vec![sa.clone(), sa.clone()],
                Value::Null,
            ),
            (
                "replace",
                Some("string_replace_string_string"),
                vec![sa.clone(), sa.clone(), sa.clone()],
                sa.clone(),
            ),
            (
                "distinct",
                Some("list_distinct"),
                vec![l.clone()],
                l.clone(),
            ),
            ("sort", Some("list_int_sort"), vec![l.clone()], l.clone()),
            (
                "indexOf",
                None,
                vec![l.clone(), Value::Int(1)],
                Value::Int(1),
            ),
            ("check", None, vec![Value::Null, sa.clone()], Value::Null),
        ];
        for (f, o, args, result) in &cases {
            let kind = b.cost(f, *o, true);
            assert_eq!(
                cost_before_call(kind, args),
                Some(cost_of(kind, args, result)),
                "{f}"
            );
        }
        // Formulas that price the result are only known after the call.
        let joined = Value::string("abc");
        let join = b.cost("join", Some("list_join"), true);
        assert_eq!(cost_before_call(join, std::slice::from_ref(&l)), None);
        assert_eq!(cost_of(join, std::slice::from_ref(&l), &joined), 1);
        for (f, o) in [
            ("lists.range", "lists_range"),
            ("slice", "list_slice"),
            ("reverse", "list_reverse"),
        ] {
            for strict in [true, false] {
                let kind = b.cost(f, Some(o), strict);
                assert_eq!(
                    cost_before_call(kind, std::slice::from_ref(&l)),
                    None,
                    "{o}"
                );
            }
        }
    }

    #[test]
    fn traversal_cost_truncates() {
        let l = Value::list(vec![
            Value::Int(1),
            Value::Int(2),
            Value::Int(3),
            Value::Int(4),
        ]);
        let traversal = CostKind::Estimated(Estimate::ListTraversal, Charge::One);
        assert_eq!(cost_of(traversal, &[l], &Value::Bool(true)), 4);
        let text = Value::string("abc 123 def 123");
        assert_eq!(cost_of(traversal, &[text], &Value::Int(1)), 1);
    }

    /// The lists extension's trackers convert their arguments unchecked: cel-go's internal
    /// error names the Go type of what they got.
    #[test]
    fn tracker_failures_name_the_go_type() {
        let fail = |t, args: &[Value<'_>], errored| {
            cost_tracker_failure(t, args, errored).map(|e| e.message.to_string())
        };
        let lister = |ty: &str| {
            Some(format!(
                "internal error: interface conversion: {ty} is not traits.Lister: missing method Add"
            ))
        };
        let list = Value::list(vec![Value::Int(1)]);
        assert_eq!(
            fail(TrackedArgument::List(0), std::slice::from_ref(&list), 0),
            None
        );
        assert_eq!(
            fail(TrackedArgument::List(0), std::slice::from_ref(&list), 1),
            lister("*types.Err")
        );
        assert_eq!(
            fail(TrackedArgument::List(0), &[Value::Int(1)], 0),
            lister("types.Int")
        );
        let quantity = crate::test_util::call("string_to_quantity", [s("1")]).unwrap();
        assert_eq!(
            fail(TrackedArgument::List(1), &[list.clone(), quantity], 0),
            lister("cel.Quantity")
        );
        assert_eq!(
            fail(TrackedArgument::Depth, &[list.clone(), s("2")], 0),
            Some(
                "internal error: interface conversion: ref.Val is types.String, not types.Int"
                    .to_string()
            )
        );
        assert_eq!(
            fail(TrackedArgument::Depth, &[list, Value::Int(2)], 0),
            None
        );
    }
}

#[cfg(test)]
#[path = "cost_ranges_tests.rs"]
mod ranges_tests;
