//! The analysis of a configuration's webhooks: the traps of each condition (with what the
//! rules and the other conditions tell), what the rules decide about each condition, the
//! cost estimates against the limits, and the Kubernetes versions each expression needs.

pub(crate) mod cost;
pub(crate) mod flow;
pub(crate) mod scope;
pub(crate) mod truth;

use matchcond_compiler::{Environment, KubeVersion, PER_CALL_COST_LIMIT};
use matchcond_dispatch::load::Severity;
use matchcond_dispatch::{Configuration, WebhookSpec};
use matchcond_front::ast::{Comprehension, Expr, ExprKind};
use matchcond_matcher::MATCH_CONDITIONS_BUDGET;
use matchcond_runtime::{Activation, Value};

use crate::finding::{Code, Finding, Operation};
use crate::position::expr_span;
use crate::report::{ConditionReport, CostRange, WebhookReport};
use scope::{op_list, Scope};

/// The environments the analysis compiles with.
pub(crate) struct Envs<'a> {
    /// The version linted for.
    pub(crate) version: KubeVersion,
    /// The stored-expressions environments of every modelled version, oldest first.
    pub(crate) stored: &'a [Environment],
}

impl Envs<'_> {
    fn at(&self, version: KubeVersion) -> Option<&Environment> {
        self.stored.iter().find(|e| e.version() == version)
    }
}

/// The deepest syntax tree analysed: deeper expressions (far beyond what conditions are in
/// practice) are validated but not analysed, so that linting never needs a large stack.
pub(crate) const MAX_ANALYSED_DEPTH: usize = 100;

/// One condition, parsed and (when valid at run time) compiled.
struct Condition<'c> {
    index: usize,
    name: &'c str,
    expression: &'c str,
    /// Bytes of leading white space the apiserver trims.
    lead: usize,
    trimmed: &'c str,
    expr: Option<Expr>,
    compiles: bool,
}

fn path_of(hook: usize, condition: usize) -> String {
    format!("webhooks[{hook}].matchConditions[{condition}].expression")
}

fn with_span(mut f: Finding, c: &Condition<'_>, offset: usize, end: usize) -> Finding {
    f.span = Some(expr_span(c.expression, c.lead + offset, c.lead + end));
    f
}

/// What `failurePolicy` makes of an error for the requests concerned.
fn consequence(policy: &str, ops: &[Operation]) -> String {
    let which = if ops.is_empty() {
        "such requests".to_owned()
    } else {
        format!("these {} requests", op_list(ops))
    };
    if policy == "Ignore" {
        format!(" (failurePolicy Ignore: the webhook is silently skipped for {which})")
    } else {
        format!(
            " (failurePolicy Fail: the apiserver rejects {which} instead of calling the webhook)"
        )
    }
}

/// True when the expression reads no variable (its value is the same for every request).
fn is_constant(e: &Expr, bound: &mut Vec<String>) -> bool {
    match &e.kind {
        ExprKind::Literal(_) => true,
        ExprKind::Ident(n) => bound.iter().any(|b| b == n),
        ExprKind::Select { operand, .. } => is_constant(operand, bound),
        ExprKind::Call { target, args, .. } => {
            target.as_deref().is_none_or(|t| is_constant(t, bound))
                && args.iter().all(|a| is_constant(a, bound))
        }
        ExprKind::List { elements, .. } => elements.iter().all(|x| is_constant(x, bound)),
        ExprKind::Map { entries } => entries
            .iter()
            .all(|en| is_constant(&en.key, bound) && is_constant(&en.value, bound)),
        ExprKind::Struct { fields, .. } => fields.iter().all(|f| is_constant(&f.value, bound)),
        ExprKind::Comprehension(c) => {
            if !(is_constant(&c.iter_range, bound) && is_constant(&c.accu_init, bound)) {
                return false;
            }
            let depth = bind_comprehension(bound, c);
            let r = is_constant(&c.loop_condition, bound)
                && is_constant(&c.loop_step, bound)
                && is_constant(&c.result, bound);
            bound.truncate(depth);
            r
        }
    }
}

/// Binds a comprehension's variables (its iteration variables, then its accumulator) after
/// the names in scope; returns how many names were in scope, to `truncate` back to.
pub(super) fn bind_comprehension(bound: &mut Vec<String>, c: &Comprehension) -> usize {
    let depth = bound.len();
    bound.push(c.iter_var.clone());
    if let Some(v) = &c.iter_var2 {
        bound.push(v.clone());
    }
    bound.push(c.accu_var.clone());
    depth
}

/// The oldest modelled version whose (stored) environment compiles the expression, and the
/// first issue of the version before it.
fn minimum_version(envs: &Envs<'_>, trimmed: &str) -> Option<(KubeVersion, Option<String>)> {
    let mut previous_error = None;
    for env in envs.stored {
        match env.compile_condition(trimmed) {
            Ok(_) => return Some((env.version(), previous_error)),
            Err(e) => {
                previous_error = Some(match e.issues().and_then(|i| i.issues().first()) {
                    Some(issue) => issue.message().to_owned(),
                    None => e.to_string(),
                });
            }
        }
    }
    None
}

/// Analyses every webhook of a configuration: findings (paths set, positions not) and the
/// per-webhook reports.
pub(crate) fn analyze_configuration(
    config: &Configuration,
    envs: &Envs<'_>,
) -> (Vec<Finding>, Vec<WebhookReport>) {
    let defaulted = config.defaulted();
    let mut findings = Vec::new();
    let mut reports = Vec::new();
    let mutating = config.hook_kind() == matchcond_dispatch::HookKind::Mutating;
    for (i, hook) in defaulted.webhooks.iter().enumerate() {
        let (f, r) = analyze_webhook(i, hook, mutating, envs);
        findings.extend(f);
        reports.push(r);
    }
    (findings, reports)
}

fn analyze_webhook(
    index: usize,
    hook: &WebhookSpec,
    mutating: bool,
    envs: &Envs<'_>,
) -> (Vec<Finding>, WebhookReport) {
    let mut findings = Vec::new();
    let scope = Scope::of(hook, mutating);
    if hook.rules.is_empty() && !hook.match_conditions.is_empty() {
        findings.push(
            Finding::new(
                Severity::Warning,
                Code::NoRules,
                "this webhook has no rules: the apiserver never calls it, whatever its matchConditions say",
            )
            .at_path(format!("webhooks[{index}].rules"))
            .with_help("add rules that select the requests the webhook is for (operations, apiGroups, apiVersions, resources)"),
        );
    }
    let policy = hook.failure_policy.as_deref().unwrap_or("Fail");
    let env = envs.at(envs.version);
    let mut conditions = Vec::new();
    for (j, c) in hook.match_conditions.iter().enumerate() {
        let trimmed = c.expression.trim();
        let lead = c.expression.find(trimmed).unwrap_or(0);
        let expr = env
            .and_then(|e| e.parse(trimmed).ok())
            .map(|p| p.expr)
            .filter(|e| e.depth_up_to(MAX_ANALYSED_DEPTH) <= MAX_ANALYSED_DEPTH);
        let compiles =
            !trimmed.is_empty() && env.is_some_and(|e| e.compile_condition(trimmed).is_ok());
        conditions.push(Condition {
            index: j,
            name: &c.name,
            expression: &c.expression,
            lead,
            trimmed,
            expr,
            compiles,
        });
    }
    // What each compiled condition tells the others when it is true.
    let facts: Vec<Option<flow::Facts>> = conditions
        .iter()
        .map(|c| match (&c.expr, c.compiles) {
            (Some(e), true) => Some(flow::facts_when_true(e, &scope)),
            _ => None,
        })
        .collect();
    let mut condition_reports = Vec::new();
    let mut estimates = Vec::new();
    for c in &conditions {
        let path = path_of(index, c.index);
        let mut report = ConditionReport {
            name: c.name.to_owned(),
            cost: None,
            minimum_version: None,
        };
        // `params` (a compile error, explained).
        if let Some(e) = &c.expr {
            if let Some(at) = flow::params_use(e) {
                findings.push(with_span(
                    Finding::new(
                        Severity::Warning,
                        Code::ParamsUndeclared,
                        "params is not declared for webhook matchConditions (only ValidatingAdmissionPolicy and MutatingAdmissionPolicy have parameters): the expression does not compile",
                    )
                    .at_path(&path)
                    .with_help("write the values into the expression, or move the check to an admission policy with paramKind"),
                    c,
                    at,
                    at + "params".len(),
                ));
            }
        }
        if !c.trimmed.is_empty() {
            if let Some((min, why)) = minimum_version(envs, c.trimmed) {
                {
                    report.minimum_version = Some(min);
                    if min > envs.version {
                        let mut f = Finding::new(
                            Severity::Warning,
                            Code::MinimumVersion,
                            format!(
                                "needs the CEL environment of Kubernetes {min}{}: Kubernetes {} evaluates it, and apiservers from {} accept it in a new configuration; linted for {}",
                                why.map(|w| format!(" (before: {w})")).unwrap_or_default(),
                                min,
                                KubeVersion::new(min.major, min.minor + 1),
                                envs.version
                            ),
                        )
                        .at_path(&path)
                        .with_help(format!("use --k8s-version {} or newer, or avoid what the older versions lack", KubeVersion::new(min.major, min.minor + 1)));
                        f.versions = envs
                            .stored
                            .iter()
                            .map(Environment::version)
                            .filter(|v| *v < min)
                            .collect();
                        findings.push(f);
                    }
                }
            }
        }
        let (Some(expr), true) = (&c.expr, c.compiles) else {
            condition_reports.push(report);
            continue;
        };
        // Reads that fail.
        let mut known = flow::Facts::worlds(scope.all());
        for (k, f) in facts.iter().enumerate() {
            if let (true, Some(f)) = (k != c.index, f) {
                known = known.and(f);
            }
        }
        for raw in flow::analyze(expr, &scope, &known) {
            let ops = raw.worlds.map_or_else(Vec::new, |w| scope.operations(w));
            let mut f = Finding::new(
                Severity::Warning,
                raw.code,
                format!("{}{}", raw.message, consequence(policy, &ops)),
            )
            .at_path(&path);
            f.help = raw.help;
            f.operations = ops;
            findings.push(with_span(f, c, raw.offset, raw.end));
        }
        // What the rules decide.
        let mut verdict = truth::verdict(expr, &scope);
        let mut constant_error = None;
        if is_constant(expr, &mut Vec::new()) && !scope.worlds.is_empty() {
            if let Some(env) = env {
                if let Ok(program) = env.compile_condition(c.trimmed) {
                    let out = program.evaluate(&Activation::empty(), Some(PER_CALL_COST_LIMIT));
                    match out.result {
                        Ok(Value::Bool(true)) => verdict = truth::Verdict::AlwaysTrue,
                        Ok(Value::Bool(false)) => verdict = truth::Verdict::NeverTrue,
                        Err(e) => constant_error = Some(e.to_string()),
                        Ok(_) => {}
                    }
                }
            }
        }
        let ops = truth::scope_operations(&scope);
        let rule_ops = op_list(&ops);
        if let Some(e) = constant_error {
            findings.push(with_span(
                Finding::new(
                    Severity::Warning,
                    Code::NeverTrue,
                    format!(
                        "this condition fails on every request ({e}){}",
                        consequence(policy, &ops)
                    ),
                )
                .at_path(&path),
                c,
                0,
                0,
            ));
        }
        match verdict {
            truth::Verdict::Open => {}
            truth::Verdict::NeverTrue => findings.push(with_span(
                Finding::new(
                    Severity::Warning,
                    Code::NeverTrue,
                    format!("this condition is false for every request the rules let through ({rule_ops}): the webhook is never called"),
                )
                .at_path(&path)
                .with_help("fix the test (an operation the rules do not match, or contradictory tests), or the rules"),
                c,
                0,
                0,
            )),
            truth::Verdict::AlwaysTrue => findings.push(with_span(
                Finding::new(
                    Severity::Warning,
                    Code::AlwaysTrue,
                    format!("this condition is true for every request the rules let through ({rule_ops}): it never skips the webhook"),
                )
                .at_path(&path)
                .with_help("remove it, or fix the test"),
                c,
                0,
                0,
            )),
            truth::Verdict::ExcludesAuthenticated => findings.push(with_span(
                Finding::new(
                    Severity::Warning,
                    Code::ExcludesAuthenticated,
                    "this condition is false for every authenticated user (every user but system:anonymous has the group system:authenticated): the webhook is called only for anonymous requests",
                )
                .at_path(&path)
                .with_help("to exclude a group of users, test that group (for example !('system:nodes' in request.userInfo.groups))"),
                c,
                0,
                0,
            )),
        }
        // Cost.
        let fallback;
        let cost_env = match env {
            Some(env) => env,
            None => {
                fallback = Environment::kubernetes(envs.version);
                &fallback
            }
        };
        let e = cost::estimate(expr, cost_env);
        report.cost = Some(CostRange::of(e.worst, e.fixed));
        if e.fixed.max > PER_CALL_COST_LIMIT {
            let always = e.fixed.min > PER_CALL_COST_LIMIT;
            let conjunction = matches!(&expr.kind, ExprKind::Call { function, target: None, .. } if function == "_&&_");
            let help = match (e.checks > 2, conjunction) {
                (true, true) => "at most 2 authorizer checks (350,000 each) fit in one condition: put the operands of this && in separate conditions (the webhook is called only if all of them are true)",
                (true, false) => "at most 2 authorizer checks (350,000 each) fit in one condition: check fewer permissions here (one broader permission), or move checks into conditions of their own",
                (false, true) => "put the operands of this && in separate conditions, each under the limit",
                (false, false) => "split the condition, or bound what it iterates over",
            };
            let mut f = Finding::new(
                Severity::Warning,
                Code::CostLimit,
                format!(
                    "this condition {} {} ({} authorizer check(s)), over the per-expression limit of {}: its evaluation is cancelled (\"operation cancelled: actual cost limit exceeded\"){}",
                    if always { "always costs at least" } else { "can cost" },
                    if always { e.fixed.min } else { e.fixed.max },
                    e.checks,
                    PER_CALL_COST_LIMIT,
                    consequence(policy, &ops)
                ),
            )
            .at_path(&path)
            .with_help(help);
            f.operations = ops.clone();
            findings.push(with_span(f, c, 0, 0));
        }
        estimates.push((c.index, e));
        condition_reports.push(report);
    }
    // The webhook's budget.
    let charged = |r: cost::Range| cost::Range {
        min: r.min.min(PER_CALL_COST_LIMIT),
        max: r.max.min(PER_CALL_COST_LIMIT),
    };
    let mut fixed_total = cost::Range::ZERO;
    let mut worst_total = cost::Range::ZERO;
    let mut checks = 0u64;
    for (_, e) in &estimates {
        fixed_total = fixed_total.plus(charged(e.fixed));
        worst_total = worst_total.plus(charged(e.worst));
        checks += u64::from(e.checks);
    }
    if fixed_total.max > MATCH_CONDITIONS_BUDGET && !scope.worlds.is_empty() {
        let always = fixed_total.min > MATCH_CONDITIONS_BUDGET;
        // How many webhooks the conditions need, packed first-fit by their costs.
        let mut bins: Vec<u64> = Vec::new();
        for (_, e) in &estimates {
            let c = charged(e.fixed).max;
            match bins.iter_mut().find(|b| **b + c <= MATCH_CONDITIONS_BUDGET) {
                Some(b) => *b += c,
                None => bins.push(c),
            }
        }
        let help = if checks > 0 {
            let other = fixed_total
                .max
                .saturating_sub(checks.saturating_mul(cost::CHECK_COST));
            let fit = MATCH_CONDITIONS_BUDGET.saturating_sub(other) / (cost::CHECK_COST + 5);
            format!(
                "at most {fit} of its {checks} authorizer checks (350,000 each) fit in one webhook's budget: spread the conditions over {} webhooks with the same rules and clientConfig (each webhook has its own budget of {MATCH_CONDITIONS_BUDGET})",
                bins.len()
            )
        } else {
            format!(
                "spread the conditions over {} webhooks with the same rules and clientConfig (each webhook has its own budget of {MATCH_CONDITIONS_BUDGET})",
                bins.len()
            )
        };
        let ops = truth::scope_operations(&scope);
        let mut f = Finding::new(
            Severity::Warning,
            Code::CostBudget,
            format!(
                "the conditions of this webhook {} {} together, over the budget of {} they share: the apiserver stops with \"validation failed due to running out of cost budget, no further validation rules will be run\"{}",
                if always { "always cost at least" } else { "can cost" },
                if always { fixed_total.min } else { fixed_total.max },
                MATCH_CONDITIONS_BUDGET,
                consequence(policy, &ops),
            ),
        )
        .at_path(format!("webhooks[{index}].matchConditions"))
        .with_help(help);
        f.operations = ops;
        findings.push(f);
    }
    let report = WebhookReport {
        name: hook.name.clone(),
        cost: CostRange::of(worst_total, fixed_total),
        conditions: condition_reports,
        operations: scope.operations(scope.all()),
    };
    (findings, report)
}
