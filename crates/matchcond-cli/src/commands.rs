//! The commands: each returns the exit code (0 or 1) or an [`InputError`] (exit 2).

use std::sync::Arc;

use matchcond::dispatch::{
    Configuration, Dispatcher, FieldError, HookDecision, HookKind, HookOutcome, Labels,
    NamespaceFn, Rejection, SkipReason, Validator,
};
use matchcond::runtime::authz::{AuthzDecision, StaticAuthorizer};
use matchcond::{
    Activation, CompileOptions, ConditionOutcome, Environment, KubeVersion, Report,
    PER_CALL_COST_LIMIT,
};
use serde_json::{json, Value as Json};

use crate::color::{Streams, Tone};
use crate::input::{self, InputError};
use crate::json_value;
use crate::traps;
use crate::Output;

fn authorizer(path: Option<&str>) -> Result<StaticAuthorizer, InputError> {
    match path {
        Some(p) => input::read_authorizer(p),
        None => Ok(StaticAuthorizer::new(AuthzDecision::NoOpinion)),
    }
}

fn print_json(value: &Json) {
    println!("{value}");
}

/// `matchcond eval`.
pub fn eval(
    expr: &str,
    review: Option<&str>,
    authorizer_file: Option<&str>,
    version: KubeVersion,
    output: Output,
    paint: Streams,
) -> Result<u8, InputError> {
    let request = review.map(input::read_review).transpose()?;
    let authz = authorizer(authorizer_file)?;
    let env = Environment::kubernetes(version);
    let program = match env.compile(expr, &CompileOptions::default()) {
        Ok(p) => p,
        Err(e) => {
            match output {
                Output::Text => eprintln!("{}", paint.err.message(Tone::Error, &e.to_string())),
                Output::Json => print_json(&json!({
                    "result": "compileError",
                    "error": e.to_string(),
                })),
            }
            return Ok(1);
        }
    };
    let activation = match &request {
        Some(r) => Activation::from_request(r),
        None => Activation::empty(),
    }
    .with_authorizer(Arc::new(authz));
    let out = program.evaluate(&activation, Some(PER_CALL_COST_LIMIT));
    match out.result {
        Ok(v) => {
            match output {
                Output::Text => {
                    println!("value: {v}");
                    println!("type: {}", v.type_name());
                    println!("cost: {}", out.cost);
                }
                Output::Json => print_json(&json!({
                    "result": "value",
                    "value": json_value::to_json(&v),
                    "valueText": v.to_string(),
                    "type": v.type_name(),
                    "cost": out.cost,
                })),
            }
            Ok(0)
        }
        Err(e) => {
            match output {
                Output::Text => {
                    eprintln!(
                        "{}",
                        paint
                            .err
                            .tone(Tone::Error, &format!("evaluation error: {e}"))
                    );
                    eprintln!("cost: {}", out.cost);
                }
                Output::Json => print_json(&json!({
                    "result": "evalError",
                    "error": e.to_string(),
                    "cost": out.cost,
                })),
            }
            Ok(1)
        }
    }
}

struct Linted<'a> {
    file: &'a str,
    document: usize,
    config: Configuration,
    update: bool,
    errors: Vec<FieldError>,
    warnings: Vec<Warning>,
}

/// A trap found in one matchCondition of a configuration.
struct Warning {
    /// `webhooks[i].matchConditions[j].expression`.
    field: String,
    found: traps::Located,
}

/// The traps of every matchCondition of a configuration (see [`traps`]).
fn warnings(config: &Configuration) -> Vec<Warning> {
    let mut out = Vec::new();
    for (i, hook) in config.webhooks.iter().enumerate() {
        let ops = traps::rule_operations(
            hook.rules
                .iter()
                .flat_map(|r| r.operations.iter().flatten().map(String::as_str)),
        );
        for (j, condition) in hook.match_conditions.iter().enumerate() {
            for found in traps::check_expression(&condition.expression, ops) {
                out.push(Warning {
                    field: format!("webhooks[{i}].matchConditions[{j}].expression"),
                    found,
                });
            }
        }
    }
    out
}

fn kind_name(kind: HookKind) -> &'static str {
    kind.configuration_kind()
}

/// `matchcond lint`.
pub fn lint(
    files: &[String],
    old: Option<&str>,
    version: KubeVersion,
    output: Output,
    paint: Streams,
) -> Result<u8, InputError> {
    let olds: Vec<Configuration> = match old {
        Some(p) => input::read_configurations(p)?
            .into_iter()
            .flat_map(|d| d.configurations)
            .collect(),
        None => Vec::new(),
    };
    let validator = Validator::new(version);
    let mut linted = Vec::new();
    for file in files {
        for doc in input::read_configurations(file)? {
            for config in doc.configurations {
                let previous = olds
                    .iter()
                    .find(|o| o.hook_kind() == config.hook_kind() && o.name() == config.name());
                let errors = match previous {
                    Some(o) => validator.validate_update(&config, o),
                    None => validator.validate(&config),
                };
                let warnings = warnings(&config);
                linted.push(Linted {
                    file: input::display_name(file),
                    document: doc.index,
                    config,
                    update: previous.is_some(),
                    errors,
                    warnings,
                });
            }
        }
    }
    let count: usize = linted.iter().map(|l| l.errors.len()).sum();
    let warning_count: usize = linted.iter().map(|l| l.warnings.len()).sum();
    match output {
        Output::Text => {
            for l in &linted {
                let at = format!(
                    "{}:{}: {} {}",
                    l.file,
                    l.document,
                    kind_name(l.config.hook_kind()),
                    l.config.name()
                );
                let at = paint.out.strong(&at);
                for e in &l.errors {
                    println!("{at}: {}", paint.out.message(Tone::Error, &e.to_string()));
                }
                for w in &l.warnings {
                    println!(
                        "{at}: {}: {}: {}\n{}",
                        paint.out.label(Tone::Warning, "warning"),
                        w.field,
                        w.found.finding.message,
                        paint.out.snippet(Tone::Warning, &w.found.caret)
                    );
                }
            }
            let errors = format!("{count} error(s)");
            let mut summary = format!(
                "{} configuration(s) checked, {}",
                linted.len(),
                if count > 0 {
                    paint.out.label(Tone::Error, &errors)
                } else {
                    errors
                }
            );
            if warning_count > 0 {
                summary.push_str(&format!(
                    ", {}",
                    paint
                        .out
                        .label(Tone::Warning, &format!("{warning_count} warning(s)"))
                ));
            }
            println!("{summary}");
        }
        Output::Json => {
            let configurations: Vec<Json> = linted
                .iter()
                .map(|l| {
                    json!({
                        "file": l.file,
                        "document": l.document,
                        "kind": kind_name(l.config.hook_kind()),
                        "name": l.config.name(),
                        "operation": if l.update { "update" } else { "create" },
                        "errors": l.errors.iter().map(|e| json!({
                            "field": e.field,
                            "type": e.kind.as_str(),
                            "detail": e.detail,
                            "message": e.to_string(),
                        })).collect::<Vec<_>>(),
                        "warnings": l.warnings.iter().map(|w| json!({
                            "field": w.field,
                            "trap": w.found.finding.trap.as_str(),
                            "message": w.found.finding.message,
                            "line": w.found.location.line,
                            "column": w.found.location.column,
                            "caret": w.found.caret,
                        })).collect::<Vec<_>>(),
                    })
                })
                .collect();
            print_json(&json!({
                "configurations": configurations,
                "errorCount": count,
                "warningCount": warning_count,
            }));
        }
    }
    Ok(u8::from(count > 0))
}

fn hook_kind_word(kind: HookKind) -> &'static str {
    match kind {
        HookKind::Validating => "validating",
        HookKind::Mutating => "mutating",
    }
}

fn skip_key(reason: &SkipReason) -> &'static str {
    match reason {
        SkipReason::ExemptKind => "exemptKind",
        SkipReason::NamespaceSelector => "namespaceSelector",
        SkipReason::ObjectSelector => "objectSelector",
        SkipReason::Rules => "rules",
        SkipReason::MatchCondition { .. } => "matchCondition",
        SkipReason::SideEffectsUnsetIgnored => "sideEffectsUnsetIgnored",
    }
}

fn rejection_json(r: &Rejection) -> Json {
    json!({"code": r.code, "reason": r.reason, "message": r.message})
}

fn outcome_text(o: &ConditionOutcome) -> String {
    match o {
        ConditionOutcome::Value(b) => b.to_string(),
        ConditionOutcome::Error(e) => format!("error: {e}"),
        ConditionOutcome::NotEvaluated => "not evaluated".to_owned(),
    }
}

fn report_json(r: &Report) -> Json {
    let results: Vec<Json> = r
        .conditions
        .iter()
        .map(|c| {
            let mut o = json!({
                "name": &*c.name,
                "expression": c.expression,
                "outcome": match &c.outcome {
                    ConditionOutcome::Value(true) => "true",
                    ConditionOutcome::Value(false) => "false",
                    ConditionOutcome::Error(_) => "error",
                    ConditionOutcome::NotEvaluated => "notEvaluated",
                },
                "cost": c.cost,
            });
            if let (ConditionOutcome::Error(e), Json::Object(m)) = (&c.outcome, &mut o) {
                m.insert("error".into(), Json::String(e.clone()));
            }
            o
        })
        .collect();
    json!({
        "results": results,
        "evaluationError": r.evaluation_error,
        "totalCost": r.total_cost,
    })
}

fn hook_json(h: &HookOutcome) -> Json {
    let mut o = serde_json::Map::new();
    o.insert("uid".into(), json!(h.hook.uid));
    o.insert("configuration".into(), json!(h.hook.configuration));
    o.insert("name".into(), json!(h.hook.name));
    o.insert("kind".into(), json!(hook_kind_word(h.hook.kind)));
    match &h.decision {
        HookDecision::Call(inv) => {
            o.insert("decision".into(), json!("call"));
            o.insert(
                "invocation".into(),
                json!({
                    "group": inv.resource.group,
                    "version": inv.resource.version,
                    "resource": inv.resource.resource,
                    "subresource": inv.subresource,
                    "kind": {"group": inv.kind.group, "version": inv.kind.version, "kind": inv.kind.kind},
                }),
            );
        }
        HookDecision::Skip(reason) => {
            o.insert("decision".into(), json!("skip"));
            o.insert("skipReason".into(), json!(skip_key(reason)));
            o.insert("skipText".into(), json!(reason.to_string()));
            if let SkipReason::MatchCondition { name } = reason {
                o.insert("failedCondition".into(), json!(name));
            }
        }
        HookDecision::Reject(r) => {
            o.insert("decision".into(), json!("reject"));
            o.insert("rejection".into(), rejection_json(r));
        }
    }
    o.insert(
        "conditions".into(),
        h.conditions.as_ref().map_or(Json::Null, report_json),
    );
    Json::Object(o)
}

/// `matchcond match`.
pub fn dispatch(
    configs: &[String],
    review: &str,
    labels: Labels,
    authorizer_file: Option<&str>,
    version: KubeVersion,
    output: Output,
    paint: Streams,
) -> Result<u8, InputError> {
    let mut configurations = Vec::new();
    for file in configs {
        for doc in input::read_configurations(file)? {
            configurations.extend(doc.configurations);
        }
    }
    let request = input::read_review(review)?;
    let authz = authorizer(authorizer_file)?;
    let dispatcher = Dispatcher::new(&configurations, version).with_authorizer(Arc::new(authz));
    let namespaces = NamespaceFn(|name: &str| -> Result<Option<Labels>, String> {
        let mut l = labels.clone();
        l.entry("kubernetes.io/metadata.name".to_owned())
            .or_insert_with(|| name.to_owned());
        Ok(Some(l))
    });
    let result = dispatcher
        .dispatch(&request, &namespaces)
        .map_err(|e| InputError(format!("{}: {e}", input::display_name(review))))?;
    let admitted = result.rejection.is_none();
    match output {
        Output::Text => {
            for h in &result.hooks {
                let what = match &h.decision {
                    HookDecision::Call(inv) => format!(
                        "{} ({}, {})",
                        paint.out.label(Tone::Good, "call"),
                        inv.resource,
                        inv.kind
                    ),
                    HookDecision::Skip(reason) => {
                        format!("{}: {reason}", paint.out.label(Tone::Warning, "skip"))
                    }
                    HookDecision::Reject(r) => {
                        paint.out.message(Tone::Error, &format!("reject: {r}"))
                    }
                };
                println!(
                    "{}: {what}",
                    paint
                        .out
                        .strong(&format!("{} {}", hook_kind_word(h.hook.kind), h.hook.uid))
                );
                if let Some(report) = &h.conditions {
                    for c in &report.conditions {
                        let outcome = outcome_text(&c.outcome);
                        let outcome = match &c.outcome {
                            ConditionOutcome::Error(_) => paint.out.message(Tone::Error, &outcome),
                            _ => outcome,
                        };
                        println!("  condition {:?}: {outcome} (cost {})", &*c.name, c.cost);
                    }
                    if let Some(e) = &report.evaluation_error {
                        println!(
                            "  {}",
                            paint
                                .out
                                .tone(Tone::Error, &format!("evaluation error: {e}"))
                        );
                    }
                }
            }
            match &result.rejection {
                None => {
                    let called = result.called().count();
                    println!(
                        "{}: {called} webhook(s) called",
                        paint.out.label(Tone::Good, "admitted")
                    );
                }
                Some(r) => println!(
                    "{}",
                    paint.out.message(
                        Tone::Error,
                        &format!("rejected: {} {}: {}", r.code, r.reason, r.message)
                    )
                ),
            }
        }
        Output::Json => {
            let hooks: Vec<Json> = result.hooks.iter().map(hook_json).collect();
            print_json(&json!({
                "webhooks": hooks,
                "rejection": result.rejection.as_ref().map(rejection_json),
                "admitted": admitted,
            }));
        }
    }
    Ok(u8::from(!admitted))
}
