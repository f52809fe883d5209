//! A static estimate of a condition's run-time cost, after cel-go's checker cost estimator
//! (`checker/cost.go`) with the Kubernetes library estimates (`pkg/cel/library/cost.go`),
//! priced as the run time charges: an identifier or a field selection costs 1, constants
//! (and literals of constants, which the apiserver folds) nothing, building a list 10 and a
//! map 30, a comprehension its range's size times its step, string functions by the sizes
//! of their strings, an authorizer check 350,000 (from Kubernetes 1.32, where strict cost
//! is always on; before, Kubernetes library calls cost 1).
//!
//! Sizes the expression does not tell (the strings and lists of `object`, `oldObject` and
//! the request) are unknown: the estimate then has no upper bound. Each estimate is made
//! twice: with unknown sizes unbounded (the worst case) and with unknown sizes zero (the
//! part of the cost that does not depend on the request's data, such as authorizer checks).
//!
//! Library calls are priced by the libraries themselves: the environment's bindings give the
//! overloads a call may resolve to, each with the cost formula the run time charges and its
//! static range ([`CostKind::static_range`]); this module keeps the operators (`&&`, `||`,
//! `?:`, indexing, optionals, comprehensions, literals) and cel-go's own size-based charges.

use matchcond_compiler::{Change, Environment};
use matchcond_front::ast::{Expr, ExprKind, Literal};
use matchcond_front::Type;
use matchcond_runtime::cost::{CostKind, Elements, Shape, StaticOperand};
use matchcond_runtime::libraries::{Bindings, StaticOverload};
use matchcond_runtime::request_schema::{declared_type, MemberType, ADMISSION_REQUEST};

/// A range of costs or sizes (the runtime's static range); `u64::MAX` stands for "no bound".
pub(crate) use matchcond_runtime::cost::StaticRange as Range;

const TRAVERSAL: f64 = 0.1;
const REGEX: f64 = 0.25;
/// The cost of an authorizer check.
pub(crate) const CHECK_COST: u64 = matchcond_runtime::cost::AUTHZ_CHECK_COST;

/// The kind of value a node gives, as far as cost goes.
#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Str,
    Bytes,
    List(Box<Kind>),
    Map,
    Struct(&'static str),
    Scalar,
    Dyn,
}

/// A node's estimate.
#[derive(Clone, Debug)]
struct Est {
    cost: Range,
    size: Option<Range>,
    /// The sizes of a list's elements, where known (list literals).
    elements: Option<Range>,
    kind: Kind,
    constant: bool,
    /// An optional value (optional selection or index, or chained after one): selections
    /// and indexes of it are charged only when it has a value.
    optional: bool,
}

impl Est {
    fn scalar(cost: Range) -> Est {
        Est {
            cost,
            size: None,
            elements: None,
            kind: Kind::Scalar,
            constant: false,
            optional: false,
        }
    }
}

/// The estimate of one condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CostEstimate {
    /// With unknown sizes unbounded.
    pub(crate) worst: Range,
    /// With unknown sizes zero: what does not depend on the request's data.
    pub(crate) fixed: Range,
    /// Authorizer checks in the expression.
    pub(crate) checks: u32,
}

/// Estimates a condition's cost in an environment (its Kubernetes version and libraries).
pub(crate) fn estimate(expr: &Expr, env: &Environment) -> CostEstimate {
    let strict = Change::StrictCost.in_force(env.version());
    let bindings = env.bindings();
    let mut worst = Estimator {
        unknown: Range {
            min: 0,
            max: u64::MAX,
        },
        strict,
        bindings,
        scopes: Vec::new(),
        checks: 0,
    };
    let w = worst.cost(expr).cost;
    let mut fixed = Estimator {
        unknown: Range::ZERO,
        strict,
        bindings,
        scopes: Vec::new(),
        checks: 0,
    };
    let f = fixed.cost(expr).cost;
    CostEstimate {
        worst: w,
        fixed: f,
        checks: worst.checks,
    }
}

struct Estimator<'b> {
    unknown: Range,
    strict: bool,
    /// The environment's libraries: the cost rule of every overload.
    bindings: &'b Bindings,
    /// Comprehension variables: name, kind, size.
    scopes: Vec<(String, Kind, Option<Range>)>,
    checks: u32,
}

/// The kind of a member of a declared object type of `request` (the request schema's).
fn struct_field(name: &str, field: &str) -> Kind {
    match declared_type(name).and_then(|t| t.member(field)) {
        Some(MemberType::String) => Kind::Str,
        Some(MemberType::StringList) => Kind::List(Box::new(Kind::Str)),
        Some(MemberType::StringListMap) => Kind::Map,
        Some(MemberType::Object(o)) => Kind::Struct(o),
        Some(MemberType::Bool) => Kind::Scalar,
        _ => Kind::Dyn,
    }
}

/// True when a declared parameter type admits a value of this kind.
fn admits(param: &Type, kind: &Kind) -> bool {
    match (param, kind) {
        (_, Kind::Dyn) | (Type::Dyn | Type::Param(_), _) => true,
        (Type::String, Kind::Str) | (Type::Bytes, Kind::Bytes) => true,
        (Type::List(_), Kind::List(_)) | (Type::Map(..), Kind::Map) => true,
        (Type::Named(..), Kind::Struct(_)) => true,
        (
            Type::String | Type::Bytes | Type::List(_) | Type::Map(..),
            Kind::Scalar | Kind::Struct(_),
        )
        | (_, Kind::Str | Kind::Bytes | Kind::List(_) | Kind::Map) => false,
        _ => true,
    }
}

/// The kind of a value of a declared type.
fn kind_of_type(t: &Type) -> Kind {
    match t {
        Type::String => Kind::Str,
        Type::Bytes => Kind::Bytes,
        Type::List(e) => Kind::List(Box::new(match &**e {
            Type::String => Kind::Str,
            Type::Bytes => Kind::Bytes,
            _ => Kind::Dyn,
        })),
        Type::Map(..) => Kind::Map,
        Type::Bool
        | Type::Int
        | Type::Uint
        | Type::Double
        | Type::Timestamp
        | Type::Duration
        | Type::Null
        | Type::Named(..) => Kind::Scalar,
        _ => Kind::Dyn,
    }
}

impl Estimator<'_> {
    fn size(&self, e: &Est) -> Range {
        match (&e.size, &e.kind) {
            (Some(s), _) => *s,
            (None, Kind::Scalar | Kind::Struct(_)) => Range::fixed(1),
            (None, _) => self.unknown,
        }
    }

    fn cost(&mut self, e: &Expr) -> Est {
        match &e.kind {
            ExprKind::Literal(l) => {
                let (kind, size) = match l {
                    Literal::String(s) => (Kind::Str, Some(Range::fixed(s.chars().count() as u64))),
                    Literal::Bytes(b) => (Kind::Bytes, Some(Range::fixed(b.len() as u64))),
                    _ => (Kind::Scalar, None),
                };
                Est {
                    cost: Range::ZERO,
                    size,
                    elements: None,
                    kind,
                    constant: true,
                    optional: false,
                }
            }
            ExprKind::Ident(name) => {
                if let Some((_, kind, size)) = self.scopes.iter().rev().find(|(n, _, _)| n == name)
                {
                    return Est {
                        cost: Range::fixed(1),
                        size: *size,
                        elements: None,
                        kind: kind.clone(),
                        constant: false,
                        optional: false,
                    };
                }
                let kind = match name.as_str() {
                    "request" => Kind::Struct(ADMISSION_REQUEST),
                    "namespaceObject" => Kind::Struct("kubernetes.Namespace"),
                    "authorizer" | "authorizer.requestResource" => Kind::Scalar,
                    _ => Kind::Dyn,
                };
                Est {
                    cost: Range::fixed(1),
                    size: None,
                    elements: None,
                    kind,
                    constant: false,
                    optional: false,
                }
            }
            ExprKind::Select {
                operand,
                field,
                test_only,
            } => {
                let o = self.cost(operand);
                if *test_only {
                    return Est::scalar(o.cost);
                }
                let kind = match &o.kind {
                    Kind::Struct(s) => struct_field(s, field),
                    _ => Kind::Dyn,
                };
                let step = if o.optional {
                    Range { min: 0, max: 1 }
                } else {
                    Range::fixed(1)
                };
                Est {
                    cost: o.cost.plus(step),
                    size: None,
                    elements: None,
                    kind,
                    constant: false,
                    optional: o.optional,
                }
            }
            ExprKind::List { elements, .. } => {
                let mut cost = Range::ZERO;
                let mut constant = true;
                let mut elem = None;
                let mut sizes: Option<Range> = None;
                for el in elements {
                    let x = self.cost(el);
                    cost = cost.plus(x.cost);
                    constant &= x.constant;
                    let size = self.size(&x);
                    sizes = Some(sizes.map_or(size, |s| s.union(size)));
                    // Elements of several kinds are of none in particular.
                    elem = Some(match elem {
                        Some(k) if k != x.kind => Kind::Dyn,
                        _ => x.kind,
                    });
                }
                if !constant {
                    cost = cost.plus(Range::fixed(10));
                }
                Est {
                    cost,
                    size: Some(Range::fixed(elements.len() as u64)),
                    elements: sizes,
                    kind: Kind::List(Box::new(elem.unwrap_or(Kind::Dyn))),
                    constant,
                    optional: false,
                }
            }
            ExprKind::Map { entries } => {
                let mut cost = Range::ZERO;
                let mut constant = true;
                for en in entries {
                    let k = self.cost(&en.key);
                    let v = self.cost(&en.value);
                    cost = cost.plus(k.cost).plus(v.cost);
                    constant &= k.constant && v.constant;
                }
                if !constant {
                    cost = cost.plus(Range::fixed(30));
                }
                Est {
                    cost,
                    size: Some(Range::fixed(entries.len() as u64)),
                    elements: None,
                    kind: Kind::Map,
                    constant,
                    optional: false,
                }
            }
            ExprKind::Struct { fields, .. } => {
                let mut cost = Range::fixed(40);
                for f in fields {
                    cost = cost.plus(self.cost(&f.value).cost);
                }
                Est::scalar(cost)
            }
            ExprKind::Comprehension(c) => {
                let range = self.cost(&c.iter_range);
                let init = self.cost(&c.accu_init);
                let elem = match &range.kind {
                    Kind::List(k) => (**k).clone(),
                    Kind::Map => Kind::Str,
                    _ => Kind::Dyn,
                };
                let depth = self.scopes.len();
                self.scopes
                    .push((c.accu_var.clone(), init.kind.clone(), init.size));
                match &c.iter_var2 {
                    Some(v2) => {
                        self.scopes.push((c.iter_var.clone(), Kind::Dyn, None));
                        self.scopes.push((v2.clone(), Kind::Dyn, None));
                    }
                    None => self.scopes.push((c.iter_var.clone(), elem, None)),
                }
                let cond = self.cost(&c.loop_condition);
                let step = self.cost(&c.loop_step);
                self.scopes.truncate(depth + 1);
                let result = self.cost(&c.result);
                self.scopes.truncate(depth);
                let n = self.size(&range);
                let cost = range
                    .cost
                    .plus(init.cost)
                    .plus(n.times(cond.cost.plus(step.cost)))
                    .plus(result.cost);
                let (kind, size) = match &init.kind {
                    Kind::List(_) | Kind::Map => (init.kind.clone(), Some(n)),
                    k => (k.clone(), result.size),
                };
                Est {
                    cost,
                    size,
                    elements: None,
                    kind,
                    constant: false,
                    optional: false,
                }
            }
            ExprKind::Call {
                target,
                function,
                args,
            } => self.call(target.as_deref(), function, args),
        }
    }

    /// What the static estimate of a library function's cost reads of an operand.
    fn operand(&self, e: &Est) -> StaticOperand {
        let shape = match &e.kind {
            Kind::Str | Kind::Bytes => Shape::Text,
            Kind::List(k) => Shape::List(match **k {
                Kind::Str | Kind::Bytes => Elements::Text(e.elements.unwrap_or(self.unknown)),
                Kind::Scalar | Kind::Struct(_) => Elements::Scalar,
                _ => Elements::Unknown,
            }),
            Kind::Map => Shape::Map,
            Kind::Scalar | Kind::Struct(_) => Shape::Scalar,
            Kind::Dyn => Shape::Unknown,
        };
        // A scalar's size is 1, but a library value's is its own (a CIDR's prefix bytes):
        // not known here, the formulas bound it.
        let size = match e.kind {
            Kind::Scalar => Range::UNBOUNDED,
            _ => self.size(e),
        };
        StaticOperand::new(size, shape)
    }

    /// A call of a function the Kubernetes cost estimator prices, as the environment's
    /// libraries state its static range: the union over the overloads the call may resolve
    /// to (by call style, arity and the kinds of its operands). `None` for other functions
    /// (cel-go's own charges, priced below) and undeclared ones.
    fn library_call(
        &mut self,
        function: &str,
        member: bool,
        operands: &[&Est],
        sum: Range,
        constant: bool,
    ) -> Option<Est> {
        // Operators (`_==_`, `_+_`, `@in` …) are this module's: the estimator prices them by
        // the kinds of their operands, which the declarations do not tell apart.
        if function.starts_with('_') || function.starts_with('@') {
            return None;
        }
        let fits = |o: &&StaticOverload| {
            o.declaration.member == member && o.declaration.params.len() == operands.len()
        };
        let declared = self.bindings.overloads_of(function, self.strict);
        let by_arity: Vec<&StaticOverload> = declared.iter().filter(fits).collect();
        let by_kind: Vec<&StaticOverload> = by_arity
            .iter()
            .copied()
            .filter(|o| {
                o.declaration
                    .params
                    .iter()
                    .zip(operands)
                    .all(|(p, e)| admits(p, &e.kind))
            })
            .collect();
        let candidates = if by_kind.is_empty() {
            by_arity
        } else {
            by_kind
        };
        if candidates.is_empty() || !candidates.iter().any(|o| o.estimated) {
            return None;
        }
        let statics: Vec<StaticOperand> = operands.iter().map(|e| self.operand(e)).collect();
        let mut cost: Option<Range> = None;
        let mut size: Option<Option<Range>> = None;
        let mut kind: Option<Kind> = None;
        for o in &candidates {
            let s = o.result_size.map(|rs| rs.of(&statics));
            let result = s.unwrap_or(self.unknown);
            let r: Range = o.cost.static_range(&statics, result);
            cost = Some(cost.map_or(r, |c| c.union(r)));
            size = Some(match size {
                None => s,
                Some(prev) => prev.zip(s).map(|(a, b)| a.union(b)),
            });
            let k = kind_of_type(&o.declaration.result);
            kind = Some(match kind {
                Some(prev) if prev != k => Kind::Dyn,
                _ => k,
            });
        }
        // Authorizer checks, counted whether or not strict cost prices them.
        let check = matchcond_runtime::cost::AUTHZ_CHECK_COST;
        if self
            .bindings
            .overloads_of(function, true)
            .iter()
            .any(|o| o.cost == CostKind::Fixed(check))
        {
            self.checks += 1;
        }
        Some(Est {
            cost: sum.plus(cost.unwrap_or(Range::fixed(1))),
            size: size.flatten(),
            elements: None,
            kind: kind.unwrap_or(Kind::Dyn),
            constant,
            optional: false,
        })
    }

    fn call(&mut self, target: Option<&Expr>, function: &str, args: &[Expr]) -> Est {
        // A member-style call on a qualified name that, with the function, names a declared
        // function is a call of that namespaced function (`ip.isCanonical(s)`,
        // `format.dns1123Label()`), as the checker resolves it.
        if let Some(prefix) = target.and_then(matchcond_front::checker::qualified_name) {
            let name = format!("{prefix}.{function}");
            if !self.bindings.overloads_of(&name, self.strict).is_empty() {
                return self.call(None, &name, args);
            }
        }
        let t = target.map(|t| self.cost(t));
        let a: Vec<Est> = args.iter().map(|x| self.cost(x)).collect();
        let mut sum = t.as_ref().map_or(Range::ZERO, |t| t.cost);
        for x in &a {
            sum = sum.plus(x.cost);
        }
        let constant = t.as_ref().is_none_or(|t| t.constant) && a.iter().all(|x| x.constant);
        // The receiver counts as the first argument of the Kubernetes estimates.
        let all: Vec<&Est> = t.iter().chain(a.iter()).collect();
        let arg = |i: usize| all.get(i).copied();
        let size = |s: &Self, i: usize| arg(i).map_or(Range::fixed(1), |x| s.size(x));
        let kind_of = |i: usize| arg(i).map(|x| x.kind.clone());
        let result = |cost: Range, kind: Kind, size: Option<Range>| Est {
            cost,
            size,
            elements: None,
            kind,
            constant,
            optional: false,
        };
        match function {
            "_&&_" | "_||_" => {
                let (l, r) = (
                    arg(0).map_or(Range::ZERO, |x| x.cost),
                    arg(1).map_or(Range::ZERO, |x| x.cost),
                );
                return result(
                    Range {
                        min: l.min.min(r.min),
                        max: l.max.saturating_add(r.max),
                    },
                    Kind::Scalar,
                    None,
                );
            }
            "_?_:_" => {
                let c = arg(0).map_or(Range::ZERO, |x| x.cost);
                let (th, el) = (arg(1), arg(2));
                let branch = match (th, el) {
                    (Some(x), Some(y)) => x.cost.union(y.cost),
                    _ => Range::ZERO,
                };
                let kind = th.map_or(Kind::Dyn, |x| x.kind.clone());
                let size = match (th.and_then(|x| x.size), el.and_then(|x| x.size)) {
                    (Some(x), Some(y)) => Some(x.union(y)),
                    _ => None,
                };
                return result(c.plus(branch), kind, size);
            }
            "dyn" => {
                let x = arg(0);
                return result(
                    sum.plus(Range::fixed(1)),
                    x.map_or(Kind::Dyn, |x| x.kind.clone()),
                    x.and_then(|x| x.size),
                );
            }
            "_?._" => {
                let mut r = result(sum.plus(Range { min: 0, max: 1 }), Kind::Dyn, None);
                r.optional = true;
                return r;
            }
            "_[_]" | "_[?_]" => {
                let elem = match kind_of(0) {
                    Some(Kind::List(k)) => *k,
                    _ => Kind::Dyn,
                };
                let operand_optional = arg(0).is_some_and(|x| x.optional);
                let step = if operand_optional {
                    Range { min: 0, max: 1 }
                } else {
                    Range::fixed(1)
                };
                let mut r = result(sum.plus(step), elem, None);
                r.optional = operand_optional || function == "_[?_]";
                return r;
            }
            "or" | "orValue" => return result(sum, kind_of(0).unwrap_or(Kind::Dyn), None),
            _ => {}
        }
        if let Some(est) = self.library_call(function, target.is_some(), &all, sum, constant) {
            return est;
        }
        let k0 = kind_of(0);
        let k1 = kind_of(1);
        let is_text = |k: &Option<Kind>| matches!(k, Some(Kind::Str | Kind::Bytes | Kind::Dyn));
        let (cost, kind, out) = match function {
            "_==_" | "_!=_" | "_<_" | "_<=_" | "_>_" | "_>=_" => {
                let (a, b) = (size(self, 0), size(self, 1));
                (
                    Range {
                        min: a.min.min(b.min),
                        max: a.max.min(b.max),
                    }
                    .factor(TRAVERSAL),
                    Kind::Scalar,
                    None,
                )
            }
            "_+_" => match (&k0, &k1) {
                (Some(Kind::List(k)), _) => (
                    Range::fixed(1),
                    Kind::List(k.clone()),
                    Some(size(self, 0).plus(size(self, 1))),
                ),
                _ if is_text(&k0) && is_text(&k1) => {
                    let s = size(self, 0).plus(size(self, 1));
                    let kind = if k0 == Some(Kind::Dyn) {
                        k1.clone().unwrap_or(Kind::Dyn)
                    } else {
                        k0.clone().unwrap_or(Kind::Dyn)
                    };
                    (s.factor(TRAVERSAL).union(Range::fixed(1)), kind, Some(s))
                }
                _ => (Range::fixed(1), Kind::Scalar, None),
            },
            "startsWith" | "endsWith" => (
                size(self, 0).union(size(self, 1)).factor(TRAVERSAL),
                Kind::Scalar,
                None,
            ),
            "matches" => (
                size(self, 0)
                    .plus(Range::fixed(1))
                    .factor(TRAVERSAL)
                    .times(size(self, 1).factor(REGEX)),
                Kind::Scalar,
                None,
            ),
            "contains" => (
                size(self, 0)
                    .factor(TRAVERSAL)
                    .times(size(self, 1).factor(TRAVERSAL)),
                Kind::Scalar,
                None,
            ),
            "@in" => {
                let container = arg(1);
                let c = match container {
                    Some(x) if x.constant => Range::ZERO,
                    Some(x) if matches!(x.kind, Kind::Map) => Range::fixed(1),
                    Some(x) => self.size(x).union(Range::fixed(1)),
                    None => Range::fixed(1),
                };
                (c, Kind::Scalar, None)
            }
            "size" => (Range::fixed(1), Kind::Scalar, None),
            "string" => (Range::fixed(1), Kind::Str, arg(0).and_then(|x| x.size)),
            _ => (Range::fixed(1), Kind::Dyn, None),
        };
        result(sum.plus(cost), kind, out)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use matchcond_compiler::KubeVersion;
    use matchcond_front::{parse, ParserOptions};

    fn at(text: &str, version: KubeVersion) -> CostEstimate {
        let parsed = parse(text, &ParserOptions::default()).unwrap();
        estimate(&parsed.expr, &Environment::kubernetes(version))
    }

    fn est(text: &str) -> CostEstimate {
        at(text, KubeVersion::V1_34)
    }

    #[test]
    fn straight_line_costs_are_exact() {
        // object (1) + two selections + equality bounded by the 1-character literal (0 for
        // an empty name).
        assert_eq!(
            est("object.metadata.name == 'x'").worst,
            Range { min: 3, max: 4 }
        );
        assert_eq!(
            est("request.operation == 'CREATE'").worst,
            Range { min: 2, max: 3 }
        );
        assert_eq!(est("request.dryRun != true").worst, Range::fixed(3));
        assert_eq!(est("has(object.metadata)").worst, Range::fixed(1));
    }

    #[test]
    fn authorizer_checks() {
        let one =
            "authorizer.group('').resource('pods').namespace('default').check('create').allowed()";
        let e = est(one);
        assert_eq!(e.worst, Range::fixed(350_005));
        assert_eq!(e.checks, 1);
        let e = est(&format!("{one} || {one} || {one}"));
        assert_eq!(e.fixed.max, 1_050_015);
        assert_eq!(e.fixed.min, 350_005);
        assert_eq!(e.checks, 3);
        // Before strict cost (1.32), library calls cost 1.
        assert_eq!(at(one, KubeVersion::V1_31).worst, Range::fixed(6));
    }

    #[test]
    fn data_dependent_costs_are_unbounded_in_the_worst_case() {
        let e = est("object.spec.containers.all(c, c.image.startsWith('registry.example.com/'))");
        assert_eq!(e.worst.max, u64::MAX);
        // object, spec, containers, the result: 4, as the run time charges an empty list.
        assert_eq!(e.fixed.max, 4);
        let e = est("[1, 2, 3].all(x, x > 0)");
        assert!(e.worst.max < 100, "{e:?}");
        assert_eq!(e.worst, e.fixed);
    }

    /// The run time's cost lies in the estimate's range, on the example reviews.
    #[test]
    fn run_time_costs_lie_in_the_estimates() {
        use matchcond_runtime::Activation;
        let env = Environment::kubernetes(KubeVersion::V1_34);
        let dir = format!("{}/../../examples/reviews", env!("CARGO_MANIFEST_DIR"));
        let expressions = [
            "request.operation == 'CREATE'",
            "request.namespace != 'kube-system'",
            "request.dryRun != true",
            "!('system:nodes' in request.userInfo.groups)",
            "object.?metadata.?labels['app'].orValue('') == 'web'",
            "object.?metadata.?annotations[?'sidecar.example.com/inject'].orValue('true') != 'false'",
            "request.operation != 'UPDATE' || object.spec != oldObject.spec",
            "has(object.metadata) && object.metadata.name.startsWith('web')",
            "request.userInfo.username.endsWith(':admin') || request.userInfo.username.contains('system')",
            "object.?spec.?containers.orValue([]).all(c, c.image.matches('^registry[.]example[.]com/'))",
            "object.?spec.?containers.orValue([]).exists(c, c.name + '-x' == 'web-x')",
            "object.?metadata.?labels.orValue({}).all(k, k.size() < 64)",
            "[1, 2, 3].map(x, x * 2).size() == 3",
            "request.resource.group + '/' + request.resource.resource != 'apps/deployments'",
            "size(request.userInfo.groups) > 0 && request.userInfo.groups[0] != ''",
            "request.operation in ['CREATE', 'UPDATE'] ? object != null : oldObject != null",
            // Library calls, priced by the libraries' static ranges.
            "cidr('10.0.0.0/8').containsIP('10.1.2.3') && cidr('0.0.0.0/0').containsCIDR('10.0.0.0/8')",
            "cidr('2001:db8::/32').containsIP(ip('2001:db8::1')) && cidr('2001:db8::/32').containsCIDR(cidr('2001:db8::/48'))",
            "['b', 'a'].isSorted() || [3, 1, 2].sum() == 6 || 'abc'.indexOf('b') == 1",
            "'a,b,,c'.split(',').size() == 4 && ['a', 'bb'].join('-') == 'a-bb'",
            "request.userInfo.username.split(':').exists(p, p == 'system')",
            "format.dns1123Label().validate(request.name).hasValue() || format.uri().validate(request.namespace).hasValue()",
            "request.userInfo.username.lowerAscii().startsWith('system:')",
            "url('https://example.com/x').getHost() == 'example.com' && isIP('2001:db8::1') && ip.isCanonical('10.0.0.1')",
            "quantity('1Gi').isGreaterThan(quantity('100m')) && 'abc'.find('[a-z]+') == 'abc'",
            "request.userInfo.groups.join(',').size() > 3",
        ];
        let mut checked = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            let review: serde_json::Value = serde_json::from_str(&text).unwrap();
            let activation = Activation::from_request(&review["request"]);
            for text in expressions {
                let program = env.compile_condition(text).unwrap();
                let out = program.evaluate(&activation, None);
                let parsed = parse(text, &ParserOptions::default()).unwrap();
                let e = estimate(&parsed.expr, &env);
                assert!(
                    e.worst.min <= out.cost && out.cost <= e.worst.max,
                    "{text}: run time {} outside {:?}",
                    out.cost,
                    e.worst
                );
                checked += 1;
            }
        }
        assert_eq!(checked, 3 * expressions.len());
    }

    /// Library calls cost what their libraries state (Kubernetes' `EstimateCallCost`, or the
    /// run-time charge where that estimate does not bound it).
    #[test]
    fn library_calls_are_priced_by_their_libraries() {
        // Parse (1 each) and compare: a CIDR's prefix is 0 to 16 bytes, ceil(2 * 16 * 0.1)
        // = 4 at most; the string to parse 1 more (ceil(8 * 0.1)).
        assert_eq!(
            est("cidr('10.0.0.0/8').containsIP('10.1.2.3')").worst,
            Range { min: 2, max: 6 }
        );
        // containsCIDR masks and compares the bits too: 1 + ceil(16 * 0.1) + 1 more.
        assert_eq!(
            est("cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')").worst,
            Range { min: 4, max: 10 }
        );
        // A list of ints is traversed once: 1 per element.
        assert_eq!(est("[3, 1, 2].sum()").worst, Range::fixed(3));
        // A string's traversal is truncated: 'abc' costs 0.
        assert_eq!(est("'abc'.indexOf('b')").worst, Range::fixed(0));
        // Split pieces: at most one more than the string's code points (4 here). The split
        // (ceil(3 * 0.2)), 4 iterations of the loop's condition (3) and step (at most 3),
        // the result (1).
        let e = est("'a,b'.split(',').exists(p, p == 'a')");
        assert_eq!(
            e.worst,
            Range {
                min: 2,
                max: 1 + 4 * 6 + 1
            }
        );
        // validate: the format's regular expression, 30 (dns1123Label) to 1103 (uri).
        assert_eq!(
            est("format.dns1123Label().validate('web')").worst,
            Range {
                min: 1 + 8,
                max: 1 + 276
            }
        );
    }

    #[test]
    fn literals_are_folded() {
        assert_eq!(
            est("request.operation in ['CREATE', 'UPDATE']").worst,
            Range::fixed(2)
        );
        assert_eq!(est("[request.name].size() == 1").worst.max, 3 + 10 + 1);
    }
}
