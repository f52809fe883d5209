//! The `cel` crate (crates.io, the maintained successor of cel-interpreter) as a
//! baseline: every condition compiled with it, the request converted with its documented
//! conversion of serde values ([`cel::to_value`], what `Context::add_variable` does), and
//! the variables `object`, `oldObject`, `request` and a mock `authorizer` bound in a
//! child scope of a context that holds the authorizer's functions.
//!
//! The crate has no type checker, no cost model and no Kubernetes libraries; its
//! conversion maps non-negative JSON integers to `uint` (serde's `u64`). The timed work of
//! a decision includes the conversion of the request, its cost of entry, as the engine's
//! includes building its activation.

use std::collections::HashMap;
use std::sync::Arc;

use cel::extractors::This;
use cel::objects::{Key, Map, Opaque};
use cel::{Context, Env, ExecutionError, Program, Value};
use serde_json::Value as Json;

use crate::authz::{mock_allows, Check};
use crate::workload::{ConditionSpec, DecisionClass};

/// The principal of the mock `authorizer` variable.
#[derive(Debug, PartialEq, Eq)]
struct AuthzUser {
    name: String,
    groups: Vec<String>,
}

impl Opaque for AuthzUser {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.authorization.Authorizer"
    }
}

/// A resource check being built (`authorizer.group(g).resource(r)…`).
#[derive(Clone, Debug, PartialEq, Eq)]
struct AuthzCheck {
    user: Arc<AuthzUser>,
    group: String,
    resource: String,
    namespace: String,
    name: String,
}

impl Opaque for AuthzCheck {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.authorization.ResourceCheck"
    }
}

/// The result of `check(verb)`.
#[derive(Debug, PartialEq, Eq)]
struct AuthzDecision(bool);

impl Opaque for AuthzDecision {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.authorization.Decision"
    }
}

fn authz_error(function: &str) -> ExecutionError {
    ExecutionError::function_error(function, "no matching overload")
}

fn opaque<T: Opaque>(v: T) -> Value {
    Value::Opaque(Arc::new(v))
}

/// `authorizer.group(g)`.
fn group(This(this): This<Arc<dyn Opaque>>, g: Arc<String>) -> Result<Value, ExecutionError> {
    let user = this
        .downcast_ref::<AuthzUser>()
        .ok_or(authz_error("group"))?;
    Ok(opaque(AuthzCheck {
        user: Arc::new(AuthzUser {
            name: user.name.clone(),
            groups: user.groups.clone(),
        }),
        group: g.as_ref().clone(),
        resource: String::new(),
        namespace: String::new(),
        name: String::new(),
    }))
}

fn with_check(
    this: &Arc<dyn Opaque>,
    function: &str,
    set: impl FnOnce(&mut AuthzCheck),
) -> Result<Value, ExecutionError> {
    let mut c = this
        .downcast_ref::<AuthzCheck>()
        .ok_or(authz_error(function))?
        .clone();
    set(&mut c);
    Ok(opaque(c))
}

/// `.resource(r)`.
fn resource(This(this): This<Arc<dyn Opaque>>, r: Arc<String>) -> Result<Value, ExecutionError> {
    with_check(&this, "resource", |c| c.resource = r.as_ref().clone())
}

/// `.namespace(ns)`.
fn namespace(This(this): This<Arc<dyn Opaque>>, n: Arc<String>) -> Result<Value, ExecutionError> {
    with_check(&this, "namespace", |c| c.namespace = n.as_ref().clone())
}

/// `.name(n)`.
fn name(This(this): This<Arc<dyn Opaque>>, n: Arc<String>) -> Result<Value, ExecutionError> {
    with_check(&this, "name", |c| c.name = n.as_ref().clone())
}

/// `.check(verb)`.
fn check(This(this): This<Arc<dyn Opaque>>, verb: Arc<String>) -> Result<Value, ExecutionError> {
    let c = this
        .downcast_ref::<AuthzCheck>()
        .ok_or(authz_error("check"))?;
    let allowed = mock_allows(
        &c.user.name,
        c.user.groups.iter().map(String::as_str),
        Some(Check {
            verb: verb.as_str(),
            group: &c.group,
            resource: &c.resource,
            namespace: &c.namespace,
        }),
    );
    Ok(opaque(AuthzDecision(allowed)))
}

/// `.allowed()`.
fn allowed(This(this): This<Arc<dyn Opaque>>) -> Result<bool, ExecutionError> {
    this.downcast_ref::<AuthzDecision>()
        .map(|d| d.0)
        .ok_or(authz_error("allowed"))
}

/// The conversion of a JSON value into the crate's values (its serde conversion).
pub fn to_cel(v: &Json) -> Result<Value, String> {
    cel::to_value(v).map_err(|e| e.to_string())
}

/// The crate's environment and a root context with the mock authorizer's functions.
pub struct CelCrate {
    env: Arc<Env>,
    root: Context<'static, 'static>,
}

impl std::fmt::Debug for CelCrate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CelCrate")
    }
}

impl CelCrate {
    /// The standard environment (optional syntax on, as by default) and the authorizer's
    /// functions.
    pub fn new() -> Result<CelCrate, String> {
        let env = Arc::new(Env::stdlib());
        let mut root = Context::with_env(Arc::clone(&env));
        let e = |e: cel::DeclarationError| e.to_string();
        root.add_function("group", group).map_err(e)?;
        root.add_function("resource", resource).map_err(e)?;
        root.add_function("namespace", namespace).map_err(e)?;
        root.add_function("name", name).map_err(e)?;
        root.add_function("check", check).map_err(e)?;
        root.add_function("allowed", allowed).map_err(e)?;
        Ok(CelCrate { env, root })
    }

    /// Compiles an expression.
    pub fn compile(&self, expression: &str) -> Result<Program, String> {
        self.env.compile(expression).map_err(|e| e.to_string())
    }

    /// A scope with the variables of a request bound: `object` and `oldObject` (null when
    /// absent), `request` (the request without them), `authorizer` (for the request's
    /// user). Fails when the conversion fails.
    pub fn bind(&self, req: &Json) -> Result<Context<'_, 'static>, String> {
        let mut ctx = self.root.new_inner_scope();
        let mut request = HashMap::new();
        let mut object = Value::Null;
        let mut old_object = Value::Null;
        if let Json::Object(m) = req {
            for (k, v) in m {
                match k.as_str() {
                    "object" => object = to_cel(v)?,
                    "oldObject" => old_object = to_cel(v)?,
                    _ => {
                        request.insert(Key::String(Arc::new(k.clone())), to_cel(v)?);
                    }
                }
            }
        }
        let user = req.get("userInfo");
        let authorizer = AuthzUser {
            name: user
                .and_then(|u| u.get("username"))
                .and_then(Json::as_str)
                .unwrap_or("")
                .to_string(),
            groups: user
                .and_then(|u| u.get("groups"))
                .and_then(Json::as_array)
                .map(|g| {
                    g.iter()
                        .filter_map(Json::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
        };
        ctx.add_variable_from_value("object", object);
        ctx.add_variable_from_value("oldObject", old_object);
        ctx.add_variable_from_value(
            "request",
            Value::Map(Map {
                map: Arc::new(request),
            }),
        );
        ctx.add_variable_from_value("authorizer", opaque(authorizer));
        Ok(ctx)
    }
}

/// A condition result: `Some(bool)`, or `None` for an evaluation error (a non-bool value
/// included).
pub fn bool_result(r: &Result<Value, ExecutionError>) -> Option<bool> {
    match r {
        Ok(Value::Bool(b)) => Some(*b),
        _ => None,
    }
}

/// One webhook's conditions compiled with the cel crate.
pub struct CelSet {
    cel: Arc<CelCrate>,
    programs: Vec<Program>,
}

impl std::fmt::Debug for CelSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CelSet({} programs)", self.programs.len())
    }
}

impl CelSet {
    /// Compiles every condition; fails with the first condition the crate cannot
    /// compile (its name and the crate's error).
    pub fn compile(cel: Arc<CelCrate>, conditions: &[&ConditionSpec]) -> Result<CelSet, String> {
        let programs = conditions
            .iter()
            .map(|c| {
                cel.compile(&c.expression)
                    .map_err(|e| format!("{}: {}", c.name, e))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(CelSet { cel, programs })
    }

    /// Every condition's result on a request (`None`: an error), or the conversion's
    /// error.
    pub fn results(&self, req: &Json) -> Result<Vec<Option<bool>>, String> {
        let ctx = self.cel.bind(req)?;
        Ok(self
            .programs
            .iter()
            .map(|p| bool_result(&p.execute(&ctx)))
            .collect())
    }

    /// The decision on a parsed request: convert, evaluate every condition, decide.
    pub fn decide(&self, req: &Json) -> Result<DecisionClass, String> {
        let ctx = self.cel.bind(req)?;
        Ok(DecisionClass::decide(
            self.programs.iter().map(|p| bool_result(&p.execute(&ctx))),
        ))
    }

    /// The decision from an AdmissionReview's bytes.
    pub fn decide_raw(&self, raw: &[u8]) -> Result<DecisionClass, String> {
        let review: Json = serde_json::from_slice(raw).map_err(|e| e.to_string())?;
        match review.get("request") {
            Some(r) => self.decide(r),
            None => Err("not an AdmissionReview with a request".to_string()),
        }
    }
}

/// One condition compiled with the cel crate, evaluated alone (conversion included).
pub struct CelCondition {
    cel: Arc<CelCrate>,
    program: Program,
}

impl std::fmt::Debug for CelCondition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CelCondition")
    }
}

impl CelCondition {
    /// Compiles an expression; `None` when the crate cannot compile it.
    pub fn compile(cel: Arc<CelCrate>, expression: &str) -> Option<CelCondition> {
        let program = cel.compile(expression).ok()?;
        Some(CelCondition { cel, program })
    }

    /// Converts the request, binds the variables and evaluates: `None` when the request
    /// cannot be converted, `Some(None)` for an evaluation error.
    pub fn eval(&self, req: &Json) -> Option<Option<bool>> {
        let ctx = self.cel.bind(req).ok()?;
        Some(bool_result(&self.program.execute(&ctx)))
    }
}

/// A condition's result with the cel crate: `None` when the crate cannot compile or run
/// it, `Some(None)` for an evaluation error, `Some(Some(b))` for a bool.
pub fn condition_result(cel: &Arc<CelCrate>, expression: &str, req: &Json) -> Option<Option<bool>> {
    CelCondition::compile(Arc::clone(cel), expression)?.eval(req)
}
