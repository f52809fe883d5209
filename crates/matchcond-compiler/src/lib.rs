//! The compiler of matchcond: compiles CEL expressions once — parse, type check against
//! the Kubernetes matchConditions environment of a given version, plan — into programs that
//! are evaluated many times, from many threads; and caches compiled programs.
//!
//! ```
//! use matchcond_compiler::{Environment, KubeVersion};
//! use matchcond_runtime::{Activation, Value};
//!
//! let env = Environment::kubernetes(KubeVersion::V1_34);
//! let program = env.compile_condition("request.operation == 'CREATE'").unwrap();
//! let request = serde_json::json!({
//!     "operation": "CREATE",
//!     "kind": {"group": "", "version": "v1", "kind": "Pod"},
//!     "resource": {"group": "", "version": "v1", "resource": "pods"},
//!     "userInfo": {"username": "alice"}
//! });
//! let activation = Activation::from_request(&request);
//! let out = program.evaluate(&activation, None);
//! assert!(matches!(out.result, Ok(Value::Bool(true))));
//! assert_eq!(out.cost, 3);
//! ```
//!
//! # Should I be using this crate?
//!
//! Probably not. This is an internal crate of matchcond: its API follows what the other
//! crates need and changes without notice. Use the `matchcond` crate (the facade at the root
//! of the workspace), whose curated API is the one kept stable; it does not re-export this
//! crate.

mod cache;
mod env;
mod memo;
mod planner;
pub mod release;
mod validators;
mod version;

use std::fmt;
use std::sync::Arc;

use matchcond_front::checker::{self, CheckerEnv, NameMap};
use matchcond_front::{parse, Issue, Issues, ParserOptions, Source, Type};
use matchcond_gocompat::stack::StackError;
use matchcond_runtime::activation::Lookups;
use matchcond_runtime::plan::Node;
use matchcond_runtime::{evaluate, Activation, Evaluation, Frame};

pub use cache::{CacheStats, ProgramCache};
pub use env::{match_condition_variables, EnvMode, Features, FormatValidation};
#[doc(hidden)]
pub use memo::ReadPath;
pub use release::{Change, KubeVersion, Layer, Release, RELEASES};
pub use version::{ClusterVersion, ParseKubeVersionError};

/// The per-expression runtime cost limit the apiserver sets (`PerCallLimit`).
pub const PER_CALL_COST_LIMIT: u64 = 1_000_000;

/// Why an expression did not compile. `Display` renders the apiserver's text.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CompileError {
    /// Syntax or type errors: `compilation failed: ERROR: <input>:L:C: message` with the
    /// source line and a caret under the position.
    #[error("compilation failed: {0}")]
    Invalid(Issues),
    /// The expression's type is not one the context accepts:
    /// `must evaluate to bool but got int` (`must evaluate to bool` before Kubernetes 1.32).
    #[error("must evaluate to {expected}{}", wrong_type_found(actual, *names_actual))]
    WrongResultType {
        /// The type required.
        expected: Type,
        /// The type found.
        actual: Type,
        /// Whether the message names the type found (Kubernetes 1.32+).
        names_actual: bool,
    },
    /// The program could not be built (for example an invalid constant regular expression):
    /// `program instantiation failed: …`.
    #[error("program instantiation failed: {0}")]
    Instantiation(String),
    /// The checked expression could not be converted for the program, which only cel-go
    /// v0.22 (Kubernetes 1.32) fails to do, for an expression using the untyped second
    /// variable of a two-variable comprehension over a `dyn` range:
    /// `unexpected compilation error: missing type conversion to proto: `.
    #[error("unexpected compilation error: {0}")]
    Unexpected(String),
}

/// The end of the wrong-result-type message: ` but got <type>` where the version says so.
fn wrong_type_found(actual: &Type, names_actual: bool) -> String {
    if names_actual {
        format!(" but got {actual}")
    } else {
        String::new()
    }
}

impl CompileError {
    /// The individual issues with positions, for a syntax/type error.
    pub fn issues(&self) -> Option<&Issues> {
        match self {
            CompileError::Invalid(i) => Some(i),
            _ => None,
        }
    }

    /// True when the apiserver classifies the error as internal (program instantiation).
    pub fn is_internal(&self) -> bool {
        matches!(
            self,
            CompileError::Instantiation(_) | CompileError::Unexpected(_)
        )
    }
}

/// Options for compiling one expression: `CompileOptions::default()` (checked, any result
/// type, the matchConditions variables only), then the `with_` methods.
///
/// ```
/// use matchcond::{CompileOptions, Type};
/// let options = CompileOptions::default()
///     .with_result_type(Type::Bool)
///     .with_variable("params", Type::Dyn);
/// assert_eq!(options.extra_variables.len(), 1);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct CompileOptions {
    /// Extra variables to declare (beside the matchConditions variables), with types.
    pub extra_variables: Vec<(String, Type)>,
    /// Skip type checking (every name is resolved at run time), like cel-go's parse-only
    /// programs.
    pub unchecked: bool,
    /// The type the result must have, if any (`bool` for matchConditions).
    pub result_type: Option<Type>,
}

impl CompileOptions {
    /// Declares a variable beside the matchConditions variables (bind its value with
    /// [`Activation::bind_variable`] for those, or by slot for extra ones).
    pub fn with_variable(mut self, name: impl Into<String>, ty: Type) -> Self {
        self.extra_variables.push((name.into(), ty));
        self
    }

    /// Skips type checking (every name is resolved at run time), like cel-go's parse-only
    /// programs.
    pub fn with_unchecked(mut self, unchecked: bool) -> Self {
        self.unchecked = unchecked;
        self
    }

    /// Requires the result to have a type (`bool` for matchConditions).
    pub fn with_result_type(mut self, ty: Type) -> Self {
        self.result_type = Some(ty);
        self
    }
}

/// A compiled expression, ready to evaluate. `Send + Sync`: share it behind `Arc`.
#[derive(Debug)]
pub struct Program {
    expression: String,
    root: Node,
    locals: usize,
    memos: usize,
    fast: Option<matchcond_runtime::fast::Fast>,
    reads: Vec<ReadPath>,
    result_type: Type,
    globals: Arc<[String]>,
}

impl Program {
    /// The expression text.
    pub fn expression(&self) -> &str {
        &self.expression
    }

    /// The checked result type (`dyn` when compiled unchecked).
    pub fn result_type(&self) -> &Type {
        &self.result_type
    }

    /// The global variable names in slot order (the matchConditions variables first, then
    /// extra variables).
    #[doc(hidden)]
    pub fn globals(&self) -> &[String] {
        &self.globals
    }

    /// The slot of a global variable.
    #[doc(hidden)]
    pub fn slot(&self, name: &str) -> Option<usize> {
        self.globals.iter().position(|g| g == name)
    }

    /// Evaluates the program. `cost_limit` is the per-expression limit (the apiserver uses
    /// [`PER_CALL_COST_LIMIT`]); `None` means unlimited.
    pub fn evaluate<'a>(
        &'a self,
        activation: &Activation<'a>,
        cost_limit: Option<u64>,
    ) -> Evaluation<'a> {
        self.evaluate_in(activation, &Lookups::new(), cost_limit)
    }

    /// [`Program::evaluate`], sharing the request lookups of `lookups` with the other
    /// evaluations of one decision.
    #[doc(hidden)]
    pub fn evaluate_in<'a>(
        &'a self,
        activation: &Activation<'a>,
        lookups: &Lookups<'a>,
        cost_limit: Option<u64>,
    ) -> Evaluation<'a> {
        if let Some((result, cost)) = self.evaluate_fast(activation, lookups, cost_limit) {
            return Evaluation {
                result: result.map(matchcond_runtime::Value::Bool),
                cost,
            };
        }
        self.evaluate_general_in(activation, lookups, cost_limit)
    }

    /// The fast tier alone: the boolean result (or the error it reproduces) and cost, or
    /// `None` when the program has no fast form or the fast tier gave up (then
    /// [`Program::evaluate_general`] decides).
    #[doc(hidden)]
    pub fn evaluate_fast<'a>(
        &self,
        activation: &Activation<'a>,
        lookups: &Lookups<'a>,
        cost_limit: Option<u64>,
    ) -> Option<(Result<bool, matchcond_runtime::EvalError>, u64)> {
        self.evaluate_fast_with(
            &mut matchcond_runtime::fast::FastEval::new(activation, lookups),
            cost_limit,
        )
    }

    /// [`Program::evaluate_fast`] with the fast tier's state of a decision, made once for
    /// all the programs it evaluates.
    #[doc(hidden)]
    #[inline]
    pub fn evaluate_fast_with<'a, 'p>(
        &'p self,
        fast: &mut matchcond_runtime::fast::FastEval<'a, '_, 'p>,
        cost_limit: Option<u64>,
    ) -> Option<(Result<bool, matchcond_runtime::EvalError>, u64)> {
        fast.evaluate(self.fast.as_ref()?, self.memos, cost_limit)
    }

    /// True when the program has a fast-tier form (see [`matchcond_runtime::fast`]); it is
    /// tried first and the general evaluator decides whenever it gives up.
    #[doc(hidden)]
    pub fn has_fast_tier(&self) -> bool {
        self.fast.is_some()
    }

    /// Evaluates with the general evaluator only (what [`Program::evaluate`] falls back to);
    /// the result and cost are the same.
    #[doc(hidden)]
    pub fn evaluate_general<'a>(
        &'a self,
        activation: &Activation<'a>,
        cost_limit: Option<u64>,
    ) -> Evaluation<'a> {
        evaluate(
            &self.root,
            Frame {
                locals: self.locals,
                memos: self.memos,
            },
            activation,
            cost_limit,
        )
    }

    /// [`Program::evaluate_general`], reading `object` and `oldObject` through the lookups
    /// of the decision (those the fast tier or the other conditions already made).
    #[doc(hidden)]
    pub fn evaluate_general_in<'a>(
        &'a self,
        activation: &Activation<'a>,
        lookups: &Lookups<'a>,
        cost_limit: Option<u64>,
    ) -> Evaluation<'a> {
        matchcond_runtime::evaluate_in(
            &self.root,
            Frame {
                locals: self.locals,
                memos: self.memos,
            },
            activation,
            Some(lookups),
            cost_limit,
        )
    }

    /// The variable paths the program reads: each variable slot with the leading field
    /// names an attribute selects, and whether only the last one's presence is read.
    /// Everything the program can observe of a variable lies in these paths: it evaluates
    /// on values pruned to them as on the whole values (what a reader may build of a
    /// review's bytes).
    #[doc(hidden)]
    pub fn read_paths(&self) -> &[ReadPath] {
        &self.reads
    }

    /// How many shared attribute prefixes the program remembers during an evaluation.
    #[doc(hidden)]
    pub fn memo_slots(&self) -> usize {
        self.memos
    }
}

struct EnvInner {
    version: KubeVersion,
    mode: EnvMode,
    features: Features,
    validators: validators::CallValidators,
    parser: ParserOptions,
    checker: CheckerEnv,
    bindings: matchcond_runtime::libraries::Bindings,
    /// The names of the environment's variables in slot order: the globals of programs
    /// without extra variables.
    globals: Arc<[String]>,
    cache: ProgramCache,
}

/// A CEL environment: the variables, types, functions and options of the apiserver's
/// matchConditions environment at a Kubernetes version. Cheap to clone; thread-safe.
#[derive(Clone)]
pub struct Environment {
    inner: Arc<EnvInner>,
}

impl fmt::Debug for Environment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Environment")
            .field("version", &self.inner.version)
            .field("mode", &self.inner.mode)
            .finish()
    }
}

impl Environment {
    /// The environment the apiserver of `version` evaluates matchConditions with (the
    /// "stored expressions" environment: every option the binary has).
    pub fn kubernetes(version: KubeVersion) -> Environment {
        Environment::with_mode(version, EnvMode::StoredExpressions)
    }

    /// The environment of the newest modelled Kubernetes version.
    pub fn latest() -> Environment {
        Environment::kubernetes(KubeVersion::LATEST)
    }

    /// The environment the apiserver of `version` uses in the given mode: new expressions
    /// are validated against the compatibility version (one minor version back).
    pub fn with_mode(version: KubeVersion, mode: EnvMode) -> Environment {
        Environment::build(version, mode, false)
    }

    /// This environment, with backquoted field names accepted or not
    /// (``object.metadata.labels.`app.kubernetes.io/name` ``): cel-go's
    /// `EnableIdentEscapeSyntax` parser option, which the CEL specification describes and
    /// no apiserver enables — the apiserver refuses such names (`unsupported syntax: '`'`),
    /// so expressions compile here that it rejects. Off by default; it applies where the
    /// grammar knows backquotes (Kubernetes 1.33 and newer). The result has a cache of its
    /// own.
    pub fn with_ident_escape_syntax(&self, enable: bool) -> Environment {
        Environment::build(self.version(), self.mode(), enable)
    }

    fn build(version: KubeVersion, mode: EnvMode, ident_escape_syntax: bool) -> Environment {
        let features = Features::for_mode(version, mode);
        let validators = validators::CallValidators::for_features(&features);
        let variables = match_condition_variables();
        let checker = env::checker_env(&features, &variables);
        let mut parser = env::parser_options(&features);
        parser.enable_ident_escape_syntax = ident_escape_syntax;
        let bindings =
            matchcond_runtime::libraries::Bindings::new(&features.libraries, features.behaviours);
        let globals = variables.iter().map(|(n, _)| n.clone()).collect();
        Environment {
            inner: Arc::new(EnvInner {
                version,
                mode,
                features,
                validators,
                parser,
                checker,
                bindings,
                globals,
                cache: ProgramCache::new(cache::DEFAULT_CACHE_SIZE),
            }),
        }
    }

    /// The Kubernetes version.
    pub fn version(&self) -> KubeVersion {
        self.inner.version
    }

    /// The mode.
    pub fn mode(&self) -> EnvMode {
        self.inner.mode
    }

    /// The features in force.
    #[doc(hidden)]
    pub fn features(&self) -> &Features {
        &self.inner.features
    }

    /// What the environment's libraries state of every function: implementations and, for
    /// a static estimate of a call's cost, each overload's cost formula and result size
    /// ([`Bindings::overloads_of`](matchcond_runtime::libraries::Bindings::overloads_of)).
    #[doc(hidden)]
    pub fn bindings(&self) -> &matchcond_runtime::libraries::Bindings {
        &self.inner.bindings
    }

    /// The parser limits in force.
    #[doc(hidden)]
    pub fn parser_options(&self) -> &ParserOptions {
        &self.inner.parser
    }

    /// The environment's program cache.
    #[doc(hidden)]
    pub fn cache(&self) -> &ProgramCache {
        &self.inner.cache
    }

    /// Compiles a matchCondition expression: its result must be exactly `bool`. Cached.
    pub fn compile_condition(&self, expression: &str) -> Result<Arc<Program>, CompileError> {
        let opts = CompileOptions::default().with_result_type(Type::Bool);
        self.compile_cached(expression, &opts)
    }

    /// Compiles through the cache.
    #[doc(hidden)]
    pub fn compile_cached(
        &self,
        expression: &str,
        options: &CompileOptions,
    ) -> Result<Arc<Program>, CompileError> {
        let key = cache::CacheKey::new(expression, options);
        if let Some(p) = self.inner.cache.get(&key) {
            return p;
        }
        let compiled = self.compile(expression, options).map(Arc::new);
        self.inner.cache.put(key, compiled.clone());
        compiled
    }

    /// Compiles an expression (no cache).
    ///
    /// The checker and the planner recurse once per level of the syntax tree; a tree deeper
    /// than [`DEEP_SYNTAX_TREE`] (the parser accepts about 250 levels of nesting, some of
    /// which expand to several) is checked and planned on a thread with a large stack, so
    /// that compiling never needs more than a small stack from the caller.
    pub fn compile(
        &self,
        expression: &str,
        options: &CompileOptions,
    ) -> Result<Program, CompileError> {
        let parsed = parse(expression, &self.inner.parser).map_err(CompileError::Invalid)?;
        if parsed.expr.depth_up_to(DEEP_SYNTAX_TREE) <= DEEP_SYNTAX_TREE {
            return self.compile_parsed(expression, &parsed, options);
        }
        matchcond_gocompat::stack::on_large_stack(
            "compile-deep-expression",
            DEEP_COMPILE_STACK,
            || self.compile_parsed(expression, &parsed, options),
        )
        .unwrap_or_else(|e| {
            Err(CompileError::Instantiation(match e {
                StackError::Spawn(reason) => reason,
                _ => String::from("compilation failed unexpectedly"),
            }))
        })
    }

    /// Checks and plans a parsed expression.
    fn compile_parsed(
        &self,
        expression: &str,
        parsed: &matchcond_front::Parsed,
        options: &CompileOptions,
    ) -> Result<Program, CompileError> {
        let globals: Arc<[String]> = if options.extra_variables.is_empty() {
            Arc::clone(&self.inner.globals)
        } else {
            let mut globals = self.inner.globals.to_vec();
            for (n, _) in &options.extra_variables {
                if !globals.contains(n) {
                    globals.push(n.clone());
                }
            }
            globals.into()
        };
        let extended;
        let checker_env: &CheckerEnv = if options.extra_variables.is_empty() {
            &self.inner.checker
        } else {
            let mut e = self.inner.checker.clone();
            for (n, t) in &options.extra_variables {
                e.variables.insert(n.clone(), t.clone());
            }
            extended = e;
            &extended
        };
        let checked = if options.unchecked {
            None
        } else {
            let c = checker::check_ids(&parsed.expr, checker_env, parsed.next_id).map_err(
                |issues| CompileError::Invalid(Issues::new(parsed.source.clone(), issues)),
            )?;
            Some(c)
        };
        let mut issues: Vec<Issue> = Vec::new();
        if let Some(c) = &checked {
            validators::validate_homogeneous(
                &parsed.expr,
                c,
                &mut issues,
                validators::Homogeneity {
                    exempt_nested: self.inner.features.format_validation != FormatValidation::Off,
                    optional_name: if self.inner.features.behaviours.optional_named_optional {
                        "optional"
                    } else {
                        "optional_type"
                    },
                },
            );
            validators::validate_calls(&parsed.expr, c, self.inner.validators, &mut issues);
        }
        if !issues.is_empty() {
            return Err(CompileError::Invalid(Issues::new(
                parsed.source.clone(),
                issues,
            )));
        }
        let result_type = checked
            .as_ref()
            .map(|c| c.result_type.clone())
            .unwrap_or(Type::Dyn);
        if let Some(expected) = &options.result_type {
            if checked.is_some() && &result_type != expected {
                return Err(CompileError::WrongResultType {
                    expected: expected.clone(),
                    actual: result_type,
                    names_actual: self.inner.features.result_type_message_names_actual,
                });
            }
        }
        if checked.as_ref().is_some_and(|c| c.untyped) {
            return Err(CompileError::Unexpected(
                "missing type conversion to proto: ".to_string(),
            ));
        }
        let no_types = NameMap::default();
        let mut planner = planner::Planner {
            checked: checked.as_ref(),
            globals: &globals,
            functions: &checker_env.functions,
            bindings: &self.inner.bindings,
            type_idents: if checked.is_some() {
                &no_types
            } else {
                &checker_env.type_idents
            },
            scopes: Vec::new(),
            depth: 0,
            max_locals: 0,
            strict_cost: self.inner.features.strict_cost,
            two_var_range_error_unsupported: self.inner.features.untyped_dyn_range_second_variable,
            eager_accumulator_init: self.inner.features.eager_accumulator_init,
            undefined_types_unbound: self.inner.features.eager_accumulator_init,
        };
        let mut root = planner
            .plan(&parsed.expr)
            .map_err(CompileError::Instantiation)?;
        let locals = planner.max_locals;
        let memos = memo::assign_memos(&mut root);
        let fast = if memos <= matchcond_runtime::fast::MAX_MEMOS {
            matchcond_runtime::fast::lower(&root)
        } else {
            None
        };
        let reads = memo::read_paths(&mut root);
        Ok(Program {
            expression: expression.to_string(),
            root,
            locals,
            memos,
            fast,
            reads,
            result_type,
            globals,
        })
    }

    /// Parses an expression only (for tools that want the AST and positions).
    #[doc(hidden)]
    pub fn parse(&self, expression: &str) -> Result<matchcond_front::Parsed, Issues> {
        parse(expression, &self.inner.parser)
    }
}

/// The syntax tree depth above which an expression is checked and planned on a thread of
/// its own with a [`DEEP_COMPILE_STACK`] stack.
pub const DEEP_SYNTAX_TREE: usize = 64;

/// The stack of the thread that compiles deep expressions (reserved, used as needed).
pub const DEEP_COMPILE_STACK: usize = 256 << 20;

/// Renders an issue list for a source (convenience for callers that build issues).
pub fn render_issues(expression: &str, issues: Vec<Issue>) -> String {
    Issues::new(Source::new(expression), issues).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn programs_and_environments_are_thread_safe() {
        assert_send_sync::<Program>();
        assert_send_sync::<Environment>();
    }

    #[test]
    fn cache_counts_hits_and_misses_and_evicts() {
        let env = Environment::latest();
        env.cache().resize(2);
        let a = env
            .compile_condition("request.operation == 'CREATE'")
            .unwrap();
        let a2 = env
            .compile_condition("request.operation == 'CREATE'")
            .unwrap();
        assert!(Arc::ptr_eq(&a, &a2));
        let e1 = env.compile_condition("1 + 1").unwrap_err();
        let e2 = env.compile_condition("1 + 1").unwrap_err();
        assert_eq!(e1.to_string(), e2.to_string());
        let s = env.cache().stats();
        assert_eq!((s.hits, s.misses, s.len, s.capacity), (2, 2, 2, 2));
        env.compile_condition("true").unwrap();
        let s = env.cache().stats();
        assert_eq!((s.misses, s.len), (3, 2));
        // The oldest entry was evicted: compiling it again is a miss.
        let a3 = env
            .compile_condition("request.operation == 'CREATE'")
            .unwrap();
        assert!(!Arc::ptr_eq(&a, &a3));
        assert_eq!(env.cache().stats().misses, 4);
    }

    #[test]
    fn programs_evaluate_concurrently() {
        let env = Environment::latest();
        let p = env
            .compile_condition("request.userInfo.username.startsWith('system:')")
            .unwrap();
        let req = serde_json::json!({"userInfo": {"username": "system:admin"}, "dryRun": false});
        std::thread::scope(|s| {
            for _ in 0..2 {
                let p = Arc::clone(&p);
                let req = &req;
                s.spawn(move || {
                    for _ in 0..1000 {
                        let act = Activation::from_request(req);
                        let r = p.evaluate(&act, Some(PER_CALL_COST_LIMIT));
                        assert!(matches!(r.result, Ok(matchcond_runtime::Value::Bool(true))));
                    }
                });
            }
        });
    }
}
