//! Differential testing of the engine against the `cel` crate: generated expressions
//! (literals, lists, maps, field selection and index on a generated JSON `object`,
//! arithmetic, comparisons, `&&`/`||`/`!`/ternary, `size`, `in`, `startsWith`/
//! `endsWith`/`contains`, `has()`, `all`/`exists`/`exists_one`/`map`/`filter`) over
//! generated JSON objects, evaluated by both, unchecked (the cel crate has no checker).
//! Results must be equal values, or both errors.
//!
//! Every disagreement is either a known divergence of the cel crate from the CEL
//! specification, listed in [`DIVERGENCES`] with the reason and the cel-spec case that
//! settles it (`../shared/conformance/cel-spec/<file>.yaml`), or a failure. A failing
//! case is reduced to a minimal expression before it is reported.
//!
//! The engine is also checked against itself: where the type checker accepts the
//! expression, the checked program gives the same result as the unchecked one.
//!
//! Cases: 2000 by default, `MATCHCOND_DIFF_CASES=N` for more; `MATCHCOND_DIFF_SEED`
//! changes the seed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::io::Write as _;
use std::sync::Arc;

use matchcond::{Activation, CompileOptions, Environment, Value};
use matchcond_bench::rng::Rng;
use serde_json::{json, Value as Json};

// ---------------------------------------------------------------------------------------
// Generation

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Bool,
    Int,
    Uint,
    Double,
    Str,
    List,
    Map,
    Dyn,
}

const TYPES: [Ty; 8] = [
    Ty::Bool,
    Ty::Int,
    Ty::Uint,
    Ty::Double,
    Ty::Str,
    Ty::List,
    Ty::Map,
    Ty::Dyn,
];

#[derive(Clone, Debug, PartialEq)]
enum Expr {
    Int(i64),
    Uint(u64),
    Double(f64),
    Str(String),
    Bool(bool),
    Null,
    List(Vec<Expr>),
    Map(Vec<(Expr, Expr)>),
    Ident(String),
    Select(Box<Expr>, String),
    Index(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Binary(&'static str, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    Size(Box<Expr>),
    Method(&'static str, Box<Expr>, Box<Expr>),
    Has(Box<Expr>, String),
    Macro(&'static str, Box<Expr>, String, Box<Expr>),
}

const KEYS: [&str; 4] = ["a", "b", "c", "d"];
const STR_ALPHABET: [&str; 6] = ["a", "b", "é", "-", " ", "ab"];

fn gen_string(rng: &mut Rng) -> String {
    let n = rng.below(4);
    (0..n).map(|_| *rng.pick(&STR_ALPHABET)).collect()
}

fn gen_int(rng: &mut Rng) -> i64 {
    match rng.below(10) {
        0 => *rng.pick(&[i64::MAX, i64::MIN, i64::MAX - 1, i64::MIN + 1]),
        1 => rng.next_u64() as i64,
        _ => rng.below(11) as i64 - 5,
    }
}

fn gen_uint(rng: &mut Rng) -> u64 {
    match rng.below(10) {
        0 => *rng.pick(&[u64::MAX, u64::MAX - 1, 1 << 63]),
        1 => rng.next_u64(),
        _ => rng.below(6),
    }
}

fn gen_double(rng: &mut Rng) -> f64 {
    match rng.below(10) {
        0 => *rng.pick(&[
            1e300,
            -1e300,
            0.1,
            9.223372036854776e18,
            1.8446744073709552e19,
        ]),
        1 => (rng.below(2001) as f64 - 1000.0) / 8.0,
        _ => (rng.below(11) as f64 - 5.0) / 2.0,
    }
}

fn gen_json(rng: &mut Rng, depth: u32) -> Json {
    let k = if depth == 0 {
        rng.below(5)
    } else {
        rng.below(8)
    };
    match k {
        0 => Json::Null,
        1 => json!(rng.chance(50)),
        2 => json!(rng.below(11) as i64 - 5),
        3 => json!((rng.below(21) as f64 - 10.0) / 4.0 + 0.25),
        4 => json!(gen_string(rng)),
        5 => Json::Array(
            (0..rng.below(4))
                .map(|_| gen_json(rng, depth - 1))
                .collect(),
        ),
        _ => gen_object(rng, depth - 1),
    }
}

fn gen_object(rng: &mut Rng, depth: u32) -> Json {
    let mut m = serde_json::Map::new();
    for k in KEYS {
        if rng.chance(85) {
            m.insert(k.to_string(), gen_json(rng, depth));
        }
    }
    Json::Object(m)
}

struct Gen<'r> {
    rng: &'r mut Rng,
    /// The document bound to `object`.
    doc: &'r Json,
    /// Comprehension variables in scope.
    scope: Vec<String>,
}

fn b(e: Expr) -> Box<Expr> {
    Box::new(e)
}

impl Gen<'_> {
    fn literal(&mut self, ty: Ty) -> Expr {
        match ty {
            Ty::Bool => Expr::Bool(self.rng.chance(50)),
            Ty::Int => Expr::Int(gen_int(self.rng)),
            Ty::Uint => Expr::Uint(gen_uint(self.rng)),
            Ty::Double => Expr::Double(gen_double(self.rng)),
            Ty::Str => Expr::Str(gen_string(self.rng)),
            Ty::List => {
                let elem = *self.rng.pick(&TYPES[..5]);
                Expr::List((0..self.rng.below(4)).map(|_| self.literal(elem)).collect())
            }
            Ty::Map => {
                let kt = *self
                    .rng
                    .pick(&[Ty::Str, Ty::Str, Ty::Int, Ty::Uint, Ty::Bool]);
                let vt = *self.rng.pick(&TYPES[..5]);
                Expr::Map(
                    (0..self.rng.below(3))
                        .map(|_| (self.literal(kt), self.literal(vt)))
                        .collect(),
                )
            }
            Ty::Dyn => {
                if self.rng.chance(10) {
                    Expr::Null
                } else {
                    let t = *self.rng.pick(&TYPES[..7]);
                    self.literal(t)
                }
            }
        }
    }

    /// A reference into the data: `object.k…`, `object['k']`, `object.k[0]` (mostly
    /// along paths the document has), or `x` (a comprehension variable) with selections.
    fn path(&mut self, depth: u32) -> Expr {
        let steps = self.rng.below(depth.min(2) as u64 + 1) + 1;
        let (mut e, mut node) = if !self.scope.is_empty() && self.rng.chance(40) {
            (Expr::Ident(self.rng.pick(&self.scope).clone()), None)
        } else {
            (Expr::Ident("object".into()), Some(self.doc))
        };
        for _ in 0..steps {
            let existing = self.rng.chance(85);
            (e, node) = match node {
                Some(Json::Object(m)) if existing && !m.is_empty() => {
                    let keys: Vec<&String> = m.keys().collect();
                    let k = (*self.rng.pick(&keys)).clone();
                    let next = m.get(&k);
                    if self.rng.chance(25) {
                        (Expr::Index(b(e), b(Expr::Str(k))), next)
                    } else {
                        (Expr::Select(b(e), k), next)
                    }
                }
                Some(Json::Array(a)) if existing && !a.is_empty() => {
                    let i = self.rng.below(a.len() as u64);
                    (Expr::Index(b(e), b(Expr::Int(i as i64))), a.get(i as usize))
                }
                Some(Json::Object(_) | Json::Array(_)) | None if !existing || node.is_none() => {
                    match self.rng.below(6) {
                        0 => (
                            Expr::Index(b(e), b(Expr::Str((*self.rng.pick(&KEYS)).into()))),
                            None,
                        ),
                        1 => (
                            Expr::Index(b(e), b(Expr::Int(self.rng.below(3) as i64))),
                            None,
                        ),
                        _ => (Expr::Select(b(e), (*self.rng.pick(&KEYS)).into()), None),
                    }
                }
                // A scalar: stop here.
                _ => break,
            };
        }
        e
    }

    fn expr(&mut self, ty: Ty, depth: u32) -> Expr {
        if depth == 0 || self.rng.chance(20) {
            return if self.rng.chance(20) {
                self.path(depth)
            } else {
                self.literal(ty)
            };
        }
        // Now and then an operand of any type, to reach the error paths.
        let any = |g: &mut Self| -> Ty {
            if g.rng.chance(12) {
                *g.rng.pick(&TYPES)
            } else {
                ty
            }
        };
        let d = depth - 1;
        if self.rng.chance(8) {
            return Expr::Cond(
                b(self.expr(Ty::Bool, d)),
                b(self.expr(ty, d)),
                b(self.expr(ty, d)),
            );
        }
        if self.rng.chance(10) {
            return self.path(depth);
        }
        match ty {
            Ty::Bool => match self.rng.below(12) {
                0 => Expr::Not(b(self.expr(Ty::Bool, d))),
                1 | 2 => {
                    let op = *self.rng.pick(&["&&", "||"]);
                    Expr::Binary(op, b(self.expr(Ty::Bool, d)), b(self.expr(Ty::Bool, d)))
                }
                3 | 4 => {
                    let op = *self.rng.pick(&["<", "<=", ">", ">="]);
                    let (t1, t2) = (self.num_ty(), self.num_ty());
                    let (t1, t2) = if self.rng.chance(15) {
                        (Ty::Str, Ty::Str)
                    } else {
                        (t1, t2)
                    };
                    Expr::Binary(op, b(self.expr(t1, d)), b(self.expr(t2, d)))
                }
                5 | 6 => {
                    let op = *self.rng.pick(&["==", "!="]);
                    let t = *self.rng.pick(&TYPES);
                    let t2 = if self.rng.chance(30) {
                        self.num_ty()
                    } else {
                        t
                    };
                    Expr::Binary(op, b(self.expr(t, d)), b(self.expr(t2, d)))
                }
                7 => {
                    let m = *self.rng.pick(&["startsWith", "endsWith", "contains"]);
                    let (t1, t2) = (any(self), any(self));
                    let (t1, t2) = (
                        if t1 == Ty::Bool { Ty::Str } else { t1 },
                        if t2 == Ty::Bool { Ty::Str } else { t2 },
                    );
                    Expr::Method(m, b(self.expr(t1, d)), b(self.expr(t2, d)))
                }
                8 => {
                    let container = *self.rng.pick(&[Ty::List, Ty::Map, Ty::Dyn]);
                    let t = *self.rng.pick(&TYPES[..5]);
                    Expr::Binary("in", b(self.expr(t, d)), b(self.expr(container, d)))
                }
                9 => {
                    let target = self.path(d.max(1));
                    Expr::Has(b(target), (*self.rng.pick(&KEYS)).into())
                }
                _ => self.comprehension(Ty::Bool, d),
            },
            Ty::Int | Ty::Uint | Ty::Double => match self.rng.below(6) {
                0 if ty != Ty::Uint => Expr::Neg(b(self.expr(ty, d))),
                0..=3 => {
                    let op = if ty == Ty::Double {
                        *self.rng.pick(&["+", "-", "*", "/"])
                    } else {
                        *self.rng.pick(&["+", "-", "*", "/", "%"])
                    };
                    let t2 = any(self);
                    Expr::Binary(op, b(self.expr(ty, d)), b(self.expr(t2, d)))
                }
                4 if ty == Ty::Int => {
                    let t = *self.rng.pick(&[Ty::Str, Ty::List, Ty::Map, Ty::Dyn]);
                    Expr::Size(b(self.expr(t, d)))
                }
                _ => {
                    let list =
                        Expr::List((0..=self.rng.below(3)).map(|_| self.expr(ty, d)).collect());
                    Expr::Index(b(list), b(Expr::Int(self.rng.below(3) as i64)))
                }
            },
            Ty::Str => match self.rng.below(3) {
                0 => {
                    let t2 = any(self);
                    Expr::Binary("+", b(self.expr(Ty::Str, d)), b(self.expr(t2, d)))
                }
                1 => {
                    let m = self.expr(Ty::Map, d);
                    Expr::Index(b(m), b(self.expr(Ty::Str, d)))
                }
                _ => self.literal(Ty::Str),
            },
            Ty::List => match self.rng.below(4) {
                0 => {
                    let t2 = any(self);
                    Expr::Binary("+", b(self.expr(Ty::List, d)), b(self.expr(t2, d)))
                }
                1 => self.comprehension(Ty::List, d),
                _ => {
                    let t = *self.rng.pick(&TYPES);
                    Expr::List((0..self.rng.below(4)).map(|_| self.expr(t, d)).collect())
                }
            },
            Ty::Map => {
                let kt = *self
                    .rng
                    .pick(&[Ty::Str, Ty::Int, Ty::Uint, Ty::Bool, Ty::Dyn]);
                let vt = *self.rng.pick(&TYPES);
                Expr::Map(
                    (0..self.rng.below(3))
                        .map(|_| (self.expr(kt, d), self.expr(vt, d)))
                        .collect(),
                )
            }
            Ty::Dyn => {
                let t = *self.rng.pick(&TYPES[..7]);
                self.expr(t, depth)
            }
        }
    }

    fn num_ty(&mut self) -> Ty {
        *self.rng.pick(&[Ty::Int, Ty::Uint, Ty::Double])
    }

    fn comprehension(&mut self, ty: Ty, d: u32) -> Expr {
        let range_ty = *self.rng.pick(&[Ty::List, Ty::List, Ty::Map, Ty::Dyn]);
        let range = self.expr(range_ty, d);
        let var = if self.scope.contains(&"x".to_string()) {
            "y"
        } else {
            "x"
        }
        .to_string();
        self.scope.push(var.clone());
        let (name, body) = if ty == Ty::Bool {
            let m = *self.rng.pick(&["all", "exists", "exists_one"]);
            (m, self.expr(Ty::Bool, d))
        } else if self.rng.chance(50) {
            let t = *self.rng.pick(&TYPES);
            ("map", self.expr(t, d))
        } else {
            ("filter", self.expr(Ty::Bool, d))
        };
        self.scope.pop();
        Expr::Macro(name, b(range), var, b(body))
    }
}

fn quote(s: &str) -> String {
    let mut out = String::from("'");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

fn render(e: &Expr) -> String {
    match e {
        Expr::Int(i) if *i == i64::MIN => "-9223372036854775808".to_string(),
        Expr::Int(i) if *i < 0 => format!("({i})"),
        Expr::Int(i) => i.to_string(),
        Expr::Uint(u) => format!("{u}u"),
        Expr::Double(d) if *d < 0.0 => format!("({d:?})"),
        Expr::Double(d) => format!("{d:?}"),
        Expr::Str(s) => quote(s),
        Expr::Bool(v) => v.to_string(),
        Expr::Null => "null".into(),
        Expr::List(xs) => format!("[{}]", xs.iter().map(render).collect::<Vec<_>>().join(", ")),
        Expr::Map(kvs) => format!(
            "{{{}}}",
            kvs.iter()
                .map(|(k, v)| format!("{}: {}", render(k), render(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Expr::Ident(n) => n.clone(),
        Expr::Select(t, f) => format!("{}.{f}", render_operand(t)),
        Expr::Index(t, i) => format!("{}[{}]", render_operand(t), render(i)),
        Expr::Not(x) => format!("!{}", render_operand(x)),
        Expr::Neg(x) => format!("-{}", render_operand(x)),
        Expr::Binary(op, l, r) => format!("({} {op} {})", render(l), render(r)),
        Expr::Cond(c, t, f) => format!("({} ? {} : {})", render(c), render(t), render(f)),
        Expr::Size(x) => format!("size({})", render(x)),
        Expr::Method(m, t, a) => format!("{}.{m}({})", render_operand(t), render(a)),
        Expr::Has(t, f) => format!("has({}.{f})", render_operand(t)),
        Expr::Macro(m, r, v, body) => {
            format!("{}.{m}({v}, {})", render_operand(r), render(body))
        }
    }
}

/// An operand of a member operator (`.f`, `[i]`, `.m()`): parenthesised unless it is a
/// primary expression.
fn render_operand(e: &Expr) -> String {
    let s = render(e);
    match e {
        Expr::Int(i) if *i < 0 => format!("({s})"),
        Expr::Double(d) if *d < 0.0 => s,
        Expr::Not(_) | Expr::Neg(_) => format!("({s})"),
        _ => s,
    }
}

// ---------------------------------------------------------------------------------------
// Evaluation

/// A value both implementations can produce, compared structurally (maps regardless of
/// order; numbers by type and value).
#[derive(Clone, Debug)]
enum Norm {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    Str(String),
    List(Vec<Norm>),
    Map(Vec<(Norm, Norm)>),
    Other(String),
}

impl PartialEq for Norm {
    fn eq(&self, other: &Norm) -> bool {
        match (self, other) {
            (Norm::Null, Norm::Null) => true,
            (Norm::Bool(a), Norm::Bool(b)) => a == b,
            (Norm::Int(a), Norm::Int(b)) => a == b,
            (Norm::Uint(a), Norm::Uint(b)) => a == b,
            (Norm::Double(a), Norm::Double(b)) => a == b || (a.is_nan() && b.is_nan()),
            (Norm::Str(a), Norm::Str(b)) => a == b,
            (Norm::List(a), Norm::List(b)) => a == b,
            (Norm::Map(a), Norm::Map(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|(k, v)| b.iter().any(|(k2, v2)| k == k2 && v == v2))
            }
            (Norm::Other(a), Norm::Other(b)) => a == b,
            _ => false,
        }
    }
}

fn norm_engine(v: &Value<'_>) -> Norm {
    match v {
        Value::Null => Norm::Null,
        Value::Bool(b) => Norm::Bool(*b),
        Value::Int(i) => Norm::Int(*i),
        Value::Uint(u) => Norm::Uint(*u),
        Value::Double(d) => Norm::Double(*d),
        Value::String(s) => Norm::Str(s.as_str().to_string()),
        Value::List(l) => Norm::List(l.iter().map(|x| norm_engine(&x)).collect()),
        Value::Map(m) => Norm::Map(
            m.iter()
                .map(|(k, v)| (norm_engine(&k), norm_engine(&v)))
                .collect(),
        ),
        other => Norm::Other(format!("{}:{other}", other.type_name())),
    }
}

fn norm_cel(v: &cel::Value) -> Norm {
    use cel::objects::Key;
    match v {
        cel::Value::Null => Norm::Null,
        cel::Value::Bool(b) => Norm::Bool(*b),
        cel::Value::Int(i) => Norm::Int(*i),
        cel::Value::UInt(u) => Norm::Uint(*u),
        cel::Value::Float(d) => Norm::Double(*d),
        cel::Value::String(s) => Norm::Str(s.as_str().to_string()),
        cel::Value::List(l) => Norm::List(l.iter().map(norm_cel).collect()),
        cel::Value::Map(m) => Norm::Map(
            m.map
                .iter()
                .map(|(k, v)| {
                    let k = match k {
                        Key::Int(i) => Norm::Int(*i),
                        Key::Uint(u) => Norm::Uint(*u),
                        Key::Bool(b) => Norm::Bool(*b),
                        Key::String(s) => Norm::Str(s.as_str().to_string()),
                    };
                    (k, norm_cel(v))
                })
                .collect(),
        ),
        other => Norm::Other(format!("{other:?}")),
    }
}

/// JSON into the cel crate's values as the engine (and Kubernetes) sees JSON: integers
/// are `int`, other numbers `double`. (The crate's serde conversion would make
/// non-negative integers `uint`, a conversion choice rather than evaluation semantics.)
fn json_to_cel(j: &Json) -> cel::Value {
    use cel::objects::{Key, Map};
    match j {
        Json::Null => cel::Value::Null,
        Json::Bool(b) => cel::Value::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => cel::Value::Int(i),
            None => cel::Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Json::String(s) => cel::Value::String(Arc::new(s.clone())),
        Json::Array(a) => cel::Value::List(Arc::new(a.iter().map(json_to_cel).collect())),
        Json::Object(m) => {
            let map: HashMap<Key, cel::Value> = m
                .iter()
                .map(|(k, v)| (Key::String(Arc::new(k.clone())), json_to_cel(v)))
                .collect();
            cel::Value::Map(Map { map: Arc::new(map) })
        }
    }
}

type Outcome = Result<Norm, String>;

thread_local! {
    /// Set while the cel crate runs: its panics are caught and not printed.
    static IN_CEL_CRATE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Installs a panic hook that is silent for the cel crate's caught panics.
fn quiet_cel_crate_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !IN_CEL_CRATE.with(|f| f.get()) {
            default(info)
        }
    }));
}

struct Engines {
    env: Environment,
    cel_env: Arc<cel::Env>,
}

impl Engines {
    fn new() -> Self {
        Engines {
            env: Environment::latest(),
            cel_env: Arc::new(cel::Env::stdlib()),
        }
    }

    fn matchcond(&self, expr: &str, doc: &Json, checked: bool) -> Option<Outcome> {
        let opts = CompileOptions::default().with_unchecked(!checked);
        let program = match self.env.compile(expr, &opts) {
            Ok(p) => p,
            Err(e) if checked => {
                let _ = e;
                return None;
            }
            Err(e) => return Some(Err(format!("compile: {e}"))),
        };
        let mut act = Activation::empty();
        act.bind_variable("object", Value::from_json(doc));
        let out = program.evaluate(&act, None);
        Some(match out.result {
            Ok(v) => Ok(norm_engine(&v)),
            Err(e) => Err(e.to_string()),
        })
    }

    fn cel_crate(&self, expr: &str, doc: &Json) -> Outcome {
        let env = Arc::clone(&self.cel_env);
        let expr = expr.to_string();
        let doc = doc.clone();
        // The crate may panic (a bug of its own); that is an error for the comparison.
        IN_CEL_CRATE.with(|f| f.set(true));
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
            let program = env.compile(&expr).map_err(|e| format!("compile: {e}"))?;
            let mut ctx = cel::Context::with_env(env);
            ctx.add_variable_from_value("object", json_to_cel(&doc));
            program
                .execute(&ctx)
                .map(|v| norm_cel(&v))
                .map_err(|e| e.to_string())
        }))
        .unwrap_or_else(|_| Err("panic".to_string()));
        IN_CEL_CRATE.with(|f| f.set(false));
        r
    }
}

/// A result as `{"t": type, "v": value}` (maps as a list of `[key, value]` pairs), or
/// `{"error": text}`.
fn typed(o: &Outcome) -> Json {
    fn t(n: &Norm) -> Json {
        match n {
            Norm::Null => json!({"t": "null_type", "v": null}),
            Norm::Bool(v) => json!({"t": "bool", "v": v}),
            Norm::Int(v) => json!({"t": "int", "v": v}),
            Norm::Uint(v) => json!({"t": "uint", "v": v}),
            Norm::Double(v) if v.is_finite() => json!({"t": "double", "v": v}),
            Norm::Double(v) => json!({"t": "double", "v": format!("{v}")}),
            Norm::Str(v) => json!({"t": "string", "v": v}),
            Norm::List(xs) => json!({"t": "list", "v": xs.iter().map(t).collect::<Vec<_>>()}),
            Norm::Map(kvs) => json!({
                "t": "map",
                "v": kvs.iter().map(|(k, v)| json!([t(k), t(v)])).collect::<Vec<_>>()
            }),
            Norm::Other(s) => json!({"t": "other", "v": s}),
        }
    }
    match o {
        Ok(n) => t(n),
        Err(e) => json!({ "error": e }),
    }
}

fn agree(a: &Outcome, b: &Outcome) -> bool {
    match (a, b) {
        (Ok(x), Ok(y)) => x == y,
        (Err(_), Err(_)) => true,
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------
// Known divergences of the cel crate

/// Who departs from whom in a known disagreement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The cel crate departs from the CEL specification; the engine follows it.
    CelCrate,
    /// The specification leaves it open or cel-go (what Kubernetes runs, the engine's
    /// reference) departs from it; the engine follows cel-go.
    Reference,
}

/// A known disagreement.
struct Divergence {
    name: &'static str,
    kind: Kind,
    /// Why, with the reference: `<file>.yaml` is
    /// `../shared/conformance/cel-spec/<file>.yaml` (suite and case), `langdef` is the
    /// cel-spec language definition (`doc/langdef.md`, section).
    reason: &'static str,
    /// Whether a disagreement, reduced to this minimal expression and these results
    /// (matchcond, cel crate), is this one.
    matches: fn(&Expr, &Outcome, &Outcome) -> bool,
}

fn err_has(o: &Outcome, text: &str) -> bool {
    matches!(o, Err(m) if m.contains(text))
}

fn contains_expr(e: &Expr, f: &dyn Fn(&Expr) -> bool) -> bool {
    f(e) || children(e).into_iter().any(|c| contains_expr(c, f))
}

/// The same values in another order (lists compared as multisets, recursively).
fn same_up_to_order(a: &Norm, b: &Norm) -> bool {
    match (a, b) {
        (Norm::List(x), Norm::List(y)) => {
            x.len() == y.len()
                && x.iter().all(|v| {
                    x.iter().filter(|w| same_up_to_order(v, w)).count()
                        == y.iter().filter(|w| same_up_to_order(v, w)).count()
                })
        }
        _ => a == b,
    }
}

const DIVERGENCES: &[Divergence] = &[
    Divergence {
        name: "has() on a value that is neither a map nor a message",
        kind: Kind::Reference,
        reason: "langdef, Field Selection, rule 5: `has(e.f)` is an error when `e` is not a map \
                 or message, as the cel crate does; cel-go returns false unless the option \
                 EnableErrorOnBadPresenceTest is set (interpreter/attributes.go, refQualify), and \
                 Kubernetes does not set it, so the engine returns false",
        matches: |e, a, c| {
            matches!(e, Expr::Has(..)) && *a == Ok(Norm::Bool(false)) && err_has(c, "'_._'")
        },
    },
    Divergence {
        name: "`in` a map with a key of a non-key type",
        kind: Kind::Reference,
        reason: "langdef, Aggregate Values: map keys are int, uint, bool or string; membership of \
                 another value is not defined there (comparisons.yaml, in_map_literal, has keys \
                 of key types only); cel-go answers false (common/types/map.go, Find on a key \
                 of another type), as the engine does; the cel crate reports no matching overload",
        matches: |e, a, c| {
            matches!(e, Expr::Binary("in", ..))
                && *a == Ok(Norm::Bool(false))
                && err_has(c, "'@in'")
        },
    },
    Divergence {
        name: "iteration order of a map",
        kind: Kind::Reference,
        reason: "langdef, Aggregate Values: a map is a set of keys, with no order; `map`/`filter` \
                 over a map give its keys in the implementation's order (cel-go: Go map order)",
        matches: |e, a, c| match (a, c) {
            (Ok(x), Ok(y)) => {
                same_up_to_order(x, y)
                    && contains_expr(e, &|x| matches!(x, Expr::Macro("map" | "filter", ..)))
            }
            _ => false,
        },
    },
    Divergence {
        name: "list + non-list",
        kind: Kind::CelCrate,
        reason: "langdef, Standard Definitions, Addition: concatenation is only \
                 `list(A) + list(A) -> list(A)`; the cel crate appends the elements (or keys) of \
                 any iterable, e.g. `[] + {}` is `[]`; the engine, like cel-go, reports no such \
                 overload",
        matches: |e, a, c| {
            matches!(e, Expr::Binary("+", ..))
                && err_has(a, "no such overload")
                && matches!(c, Ok(Norm::List(_)))
        },
    },
    Divergence {
        name: "repeated key in a map literal",
        kind: Kind::Reference,
        reason: "cel-go builds map literals into a Go map, the last value of a repeated key \
                 winning (interpreter/interpretable.go, evalMap.Eval; a constant literal is \
                 folded the same way at program creation, decorators.go maybeBuildMapLiteral): \
                 `{true: 1, true: 2}[true]` is 2 in Kubernetes, and in the engine; the cel crate \
                 fails with `Failed with repeated key`, the spec's error (fields.yaml, \
                 qualified_identifier_resolution/map_value_repeat_key, listed there as a known \
                 cel-go divergence)",
        matches: |e, a, c| {
            a.is_ok()
                && err_has(c, "repeated key")
                && contains_expr(e, &|x| matches!(x, Expr::Map(_)))
        },
    },
    Divergence {
        name: "map literal key of a type that is not a map key type",
        kind: Kind::Reference,
        reason: "cel-go builds a map literal whatever its keys' types (evalMap.Eval; constant \
                 literals folded by maybeBuildMapLiteral): in Kubernetes, and in the engine, \
                 `size({null: 1})`, `size({{}: true})`, `size({[1]: 2})` are 1 and \
                 `{1.5: 2}[1.5]` is 2; the cel crate fails with `Unable to use value … as a \
                 key`, as the spec would (fields.yaml, qualified_identifier_resolution/\
                 map_key_float and map_key_null, listed there as Kubernetes/cel-go divergences)",
        matches: |e, a, c| {
            a.is_ok() && err_has(c, "as a key") && contains_expr(e, &|x| matches!(x, Expr::Map(_)))
        },
    },
];

/// A known difference between the engine's checked and unchecked programs, as cel-go has
/// it: with the type checker, `x in []` (overload `in_list` on a constant empty list) is
/// folded to false at program creation (cel-go interpreter/decorators.go,
/// maybeOptimizeSetMembership, under the `OptOptimize` Kubernetes sets), so an error of
/// `x` is not raised; unchecked, `x` is evaluated. The expression with every `x in []`
/// replaced by `false`.
fn fold_in_empty_list(e: &Expr) -> Expr {
    let f = |x: &Expr| b(fold_in_empty_list(x));
    match e {
        Expr::Binary("in", _, r) if matches!(r.as_ref(), Expr::List(l) if l.is_empty()) => {
            Expr::Bool(false)
        }
        Expr::List(xs) => Expr::List(xs.iter().map(fold_in_empty_list).collect()),
        Expr::Map(kvs) => Expr::Map(
            kvs.iter()
                .map(|(k, v)| (fold_in_empty_list(k), fold_in_empty_list(v)))
                .collect(),
        ),
        Expr::Select(t, n) => Expr::Select(f(t), n.clone()),
        Expr::Has(t, n) => Expr::Has(f(t), n.clone()),
        Expr::Index(t, i) => Expr::Index(f(t), f(i)),
        Expr::Not(x) => Expr::Not(f(x)),
        Expr::Neg(x) => Expr::Neg(f(x)),
        Expr::Size(x) => Expr::Size(f(x)),
        Expr::Binary(op, l, r) => Expr::Binary(op, f(l), f(r)),
        Expr::Method(m, l, r) => Expr::Method(m, f(l), f(r)),
        Expr::Cond(c, t, e) => Expr::Cond(f(c), f(t), f(e)),
        Expr::Macro(m, r, v, body) => Expr::Macro(m, f(r), v.clone(), f(body)),
        other => other.clone(),
    }
}

// ---------------------------------------------------------------------------------------
// Reduction

/// The direct sub-expressions.
fn children(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::List(xs) => xs.iter().collect(),
        Expr::Map(kvs) => kvs.iter().flat_map(|(k, v)| [k, v]).collect(),
        Expr::Select(t, _) | Expr::Has(t, _) => vec![t],
        Expr::Index(t, i) => vec![t, i],
        Expr::Not(x) | Expr::Neg(x) | Expr::Size(x) => vec![x],
        Expr::Binary(_, l, r) | Expr::Method(_, l, r) => vec![l, r],
        Expr::Cond(c, t, f) => vec![c, t, f],
        Expr::Macro(_, r, _, body) => vec![r, body],
        _ => vec![],
    }
}

/// Smaller variants of an expression: each direct child of the same kind of result,
/// and the expression with one child reduced.
fn shrinks(e: &Expr) -> Vec<Expr> {
    let mut out = Vec::new();
    let kids = children(e);
    // Replace the whole by a child (fewer nodes).
    out.extend(kids.iter().map(|k| (*k).clone()));
    // Simplify literals.
    match e {
        Expr::List(xs) => {
            for i in 0..xs.len() {
                let mut ys = xs.clone();
                ys.remove(i);
                out.push(Expr::List(ys));
            }
        }
        Expr::Map(kvs) => {
            for i in 0..kvs.len() {
                let mut ys = kvs.clone();
                ys.remove(i);
                out.push(Expr::Map(ys));
            }
        }
        Expr::Int(i) if *i != 0 && *i != 1 => out.extend([Expr::Int(0), Expr::Int(1)]),
        Expr::Uint(u) if *u > 1 => out.extend([Expr::Uint(0), Expr::Uint(1)]),
        Expr::Double(d) if *d != 0.0 && *d != 1.0 => {
            out.extend([Expr::Double(0.0), Expr::Double(1.0)])
        }
        Expr::Str(s) if !s.is_empty() => out.push(Expr::Str(String::new())),
        _ => {}
    }
    // Reduce one child in place.
    let rebuild = |e: &Expr, i: usize, new: Expr| -> Expr {
        let mut c = e.clone();
        let mut n = 0;
        let mut slot = |x: &mut Expr| {
            if n == i {
                *x = new.clone();
            }
            n += 1;
        };
        match &mut c {
            Expr::List(xs) => xs.iter_mut().for_each(&mut slot),
            Expr::Map(kvs) => kvs.iter_mut().for_each(|(k, v)| {
                slot(k);
                slot(v)
            }),
            Expr::Select(t, _) | Expr::Has(t, _) => slot(t),
            Expr::Index(t, x) => {
                slot(t);
                slot(x)
            }
            Expr::Not(x) | Expr::Neg(x) | Expr::Size(x) => slot(x),
            Expr::Binary(_, l, r) | Expr::Method(_, l, r) => {
                slot(l);
                slot(r)
            }
            Expr::Cond(a, t, f) => {
                slot(a);
                slot(t);
                slot(f)
            }
            Expr::Macro(_, r, _, body) => {
                slot(r);
                slot(body)
            }
            _ => {}
        }
        c
    };
    for (i, k) in kids.iter().enumerate() {
        for s in shrinks(k).into_iter().take(8) {
            out.push(rebuild(e, i, s));
        }
    }
    out
}

fn size_of(e: &Expr) -> usize {
    render(e).len()
}

/// Greedily reduces an expression while `still` holds.
fn reduce(e: &Expr, still: &dyn Fn(&Expr) -> bool) -> Expr {
    let mut cur = e.clone();
    loop {
        let mut next = None;
        let mut cands = shrinks(&cur);
        cands.sort_by_key(size_of);
        for c in cands {
            if size_of(&c) < size_of(&cur) && still(&c) {
                next = Some(c);
                break;
            }
        }
        match next {
            Some(n) => cur = n,
            None => return cur,
        }
    }
}

/// A minimal JSON document on which the expression still disagrees.
fn reduce_doc(doc: &Json, still: &dyn Fn(&Json) -> bool) -> Json {
    let mut cur = doc.clone();
    'outer: loop {
        if let Json::Object(m) = &cur {
            for k in m.keys() {
                let mut c = m.clone();
                c.remove(k);
                let c = Json::Object(c);
                if still(&c) {
                    cur = c;
                    continue 'outer;
                }
            }
        }
        return cur;
    }
}

// ---------------------------------------------------------------------------------------
// The test

#[derive(Default)]
struct Counts {
    cases: usize,
    both_values: usize,
    both_errors: usize,
    checked: usize,
    checked_in_empty_list: usize,
    divergences: BTreeMap<&'static str, usize>,
}

fn cases() -> usize {
    std::env::var("MATCHCOND_DIFF_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000)
}

fn seed() -> u64 {
    std::env::var("MATCHCOND_DIFF_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x6d61_7463_6863_6f6e)
}

#[test]
fn engine_agrees_with_the_cel_crate() {
    quiet_cel_crate_panics();
    let engines = Engines::new();
    let mut rng = Rng::new(seed());
    let mut counts = Counts::default();
    let mut failures = String::new();
    let n = cases();
    let verbose = std::env::var_os("MATCHCOND_DIFF_VERBOSE").is_some();
    // MATCHCOND_DIFF_DUMP=FILE writes every case as a JSON line (expression, object, the
    // checked program's result as `{"t": type, "v": value}` or `{"error": …}`), for
    // comparison with another implementation.
    let mut dump = std::env::var_os("MATCHCOND_DIFF_DUMP")
        .map(|p| std::io::BufWriter::new(std::fs::File::create(p).unwrap()));
    for case in 0..n {
        let doc = gen_object(&mut rng, 3);
        let ty = *rng.pick(&TYPES);
        let depth = 1 + rng.below(4) as u32;
        let expr = Gen {
            rng: &mut rng,
            doc: &doc,
            scope: Vec::new(),
        }
        .expr(ty, depth);
        let text = render(&expr);
        counts.cases += 1;
        let ours = engines.matchcond(&text, &doc, false).unwrap();
        let checked = engines.matchcond(&text, &doc, true);
        if let Some(out) = dump.as_mut() {
            let line = json!({
                "id": case.to_string(),
                "expr": text,
                "request": {"object": doc},
                "checked": checked.as_ref().map(typed),
            });
            writeln!(out, "{line}").unwrap();
        }
        if let Some(checked) = checked {
            counts.checked += 1;
            let same = match (&checked, &ours) {
                (Ok(a), Ok(b)) => a == b,
                (Err(_), Err(_)) => true,
                _ => false,
            };
            let folded = fold_in_empty_list(&expr);
            if !same
                && folded != expr
                && engines
                    .matchcond(&render(&folded), &doc, false)
                    .is_some_and(|u| agree(&u, &checked))
            {
                counts.checked_in_empty_list += 1;
            } else if !same {
                let _ = writeln!(
                    failures,
                    "case {case}: checked and unchecked differ on {text}\n  object = {doc}\n  checked: {checked:?}\n  unchecked: {ours:?}"
                );
            }
        }
        let theirs = engines.cel_crate(&text, &doc);
        if verbose {
            println!("{text}\n  matchcond: {ours:?}\n  cel crate: {theirs:?}");
        }
        if agree(&ours, &theirs) {
            if ours.is_ok() {
                counts.both_values += 1;
            } else {
                counts.both_errors += 1;
            }
            continue;
        }
        let disagrees = |e: &Expr, d: &Json| {
            let t = render(e);
            let a = engines.matchcond(&t, d, false).unwrap();
            !agree(&a, &engines.cel_crate(&t, d))
        };
        let min = reduce(&expr, &|e| disagrees(e, &doc));
        let min_doc = reduce_doc(&doc, &|d| disagrees(&min, d));
        let mt = render(&min);
        let a = engines.matchcond(&mt, &min_doc, false).unwrap();
        let c = engines.cel_crate(&mt, &min_doc);
        match DIVERGENCES.iter().find(|d| (d.matches)(&min, &a, &c)) {
            Some(d) => *counts.divergences.entry(d.name).or_default() += 1,
            None => {
                let _ = writeln!(
                    failures,
                    "case {case}: {text}\n  object = {doc}\n  minimal: {mt}\n  on object = {min_doc}\n  matchcond: {a:?}\n  cel crate: {c:?}"
                );
            }
        }
    }
    println!(
        "differential: {} cases: {} equal values, {} both errors, {} known disagreements; {} also checked ({} with `x in []` folded as cel-go folds it)",
        counts.cases,
        counts.both_values,
        counts.both_errors,
        counts.divergences.values().sum::<usize>(),
        counts.checked,
        counts.checked_in_empty_list
    );
    for d in DIVERGENCES {
        println!(
            "  [{:?}] {} ({} cases): {}",
            d.kind,
            d.name,
            counts.divergences.get(d.name).copied().unwrap_or(0),
            d.reason
        );
    }
    assert!(failures.is_empty(), "{failures}");
    assert_eq!(counts.cases, n);
    // The generator reaches both values and errors in quantity.
    assert!(counts.both_values > n / 4, "{}", counts.both_values);
    assert!(counts.both_errors > n / 20, "{}", counts.both_errors);
}

// ---------------------------------------------------------------------------------------
// Map literals as cel-go builds them (see DIVERGENCES: the cel crate follows the spec).

fn eval_engine(expr: &str, doc: &Json) -> Outcome {
    Engines::new()
        .matchcond(expr, doc, true)
        .unwrap_or_else(|| Err("check failed".into()))
}

#[test]
fn repeated_map_literal_keys_keep_the_last_value() {
    assert_eq!(
        eval_engine("{true: 1, true: 2}[true]", &json!({})),
        Ok(Norm::Int(2))
    );
    assert_eq!(
        eval_engine("{object.a: 1, object.a: 2}", &json!({"a": "x"})),
        Ok(Norm::Map(vec![(Norm::Str("x".into()), Norm::Int(2))]))
    );
}

#[test]
fn map_literal_keys_of_any_type() {
    assert_eq!(eval_engine("size({null: 1})", &json!({})), Ok(Norm::Int(1)));
    assert_eq!(
        eval_engine("size({{}: true})", &json!({})),
        Ok(Norm::Int(1))
    );
    assert_eq!(eval_engine("size({[1]: 2})", &json!({})), Ok(Norm::Int(1)));
    assert_eq!(eval_engine("{1.5: 2}[1.5]", &json!({})), Ok(Norm::Int(2)));
    assert_eq!(
        eval_engine("size({object.a: 1})", &json!({"a": 1.5})),
        Ok(Norm::Int(1))
    );
}
