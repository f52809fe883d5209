//! The commands: each returns the exit code (0 or 1) or an [`InputError`] (exit 2).

use std::sync::Arc;

use matchcond::authz::{AuthzDecision, StaticAuthorizer};
use matchcond::dispatch::{
    Configuration, Dispatcher, HookKind, HookOutcome, Labels, NamespaceFn, NamespaceLister,
    Rejection,
};
use matchcond::{
    Activation, CompileOptions, ConditionOutcome, Decision, Environment, KubeVersion, Report,
    PER_CALL_COST_LIMIT,
};
use serde_json::{json, Value as Json};

use crate::color::{Streams, Tone};
use crate::input::{self, InputError};
use crate::json_value;
use crate::lint_cmd::SCHEMA_VERSION;
use crate::request_args::{self, RequestInput};
use crate::Output;

fn authorizer(path: Option<&str>) -> Result<StaticAuthorizer, InputError> {
    match path {
        Some(p) => input::read_authorizer(p),
        None => Ok(StaticAuthorizer::new(AuthzDecision::NoOpinion)),
    }
}

/// Prints a JSON object with the schema version first.
fn print_json(value: &Json) {
    let mut out = serde_json::Map::new();
    out.insert("schemaVersion".into(), json!(SCHEMA_VERSION));
    if let Json::Object(m) = value {
        for (k, v) in m {
            out.insert(k.clone(), v.clone());
        }
    }
    outln!("{}", Json::Object(out));
}

/// `matchcond eval`.
pub fn eval(
    expr: &str,
    input: Option<RequestInput>,
    authorizer_file: Option<&str>,
    version: KubeVersion,
    output: Output,
    paint: Streams,
) -> Result<u8, InputError> {
    if let Some(i) = &input {
        request_args::print_warnings(i, paint);
    }
    let review_warnings = input.as_ref().map_or(Json::Array(Vec::new()), |i| {
        request_args::warnings_json(&i.name, &i.warnings)
    });
    let request = input.map(|i| i.request);
    let authz = authorizer(authorizer_file)?;
    let env = Environment::kubernetes(version);
    let program = match env.compile(expr, &CompileOptions::default()) {
        Ok(p) => p,
        Err(e) => {
            match output {
                Output::Text => errln!("{}", paint.err.message(Tone::Error, &e.to_string())),
                Output::Json => print_json(&json!({
                    "result": "compileError",
                    "error": e.to_string(),
                    "reviewWarnings": review_warnings,
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
                    outln!("value: {v}");
                    outln!("type: {}", v.type_name());
                    outln!("cost: {}", out.cost);
                }
                Output::Json => print_json(&json!({
                    "result": "value",
                    "value": json_value::to_json(&v),
                    "valueText": v.to_string(),
                    "type": v.type_name(),
                    "cost": out.cost,
                    "reviewWarnings": review_warnings,
                })),
            }
            Ok(0)
        }
        Err(e) => {
            match output {
                Output::Text => {
                    errln!(
                        "{}",
                        paint
                            .err
                            .tone(Tone::Error, &format!("evaluation error: {e}"))
                    );
                    errln!("cost: {}", out.cost);
                }
                Output::Json => print_json(&json!({
                    "result": "evalError",
                    "error": e.to_string(),
                    "cost": out.cost,
                    "reviewWarnings": review_warnings,
                })),
            }
            Ok(1)
        }
    }
}

/// A webhook's kind in reports: `validating` or `mutating`.
pub(crate) fn hook_kind_word(kind: HookKind) -> &'static str {
    match kind {
        HookKind::Validating => "validating",
        HookKind::Mutating => "mutating",
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
        _ => "unknown".to_owned(),
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
                    _ => "notEvaluated",
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
    match (&h.decision, h.invocation(), h.rejection()) {
        (Decision::Call, Some(inv), _) => {
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
        (Decision::Skip(skip), _, _) => {
            o.insert("decision".into(), json!("skip"));
            o.insert("skipReason".into(), json!(skip.key()));
            o.insert("skipText".into(), json!(h.skip_text()));
            if skip.key() == "matchCondition" {
                o.insert("failedCondition".into(), json!(skip.condition()));
            }
            if let Some(e) = skip.ignored_error() {
                o.insert(
                    "ignoredError".into(),
                    json!({"condition": e.condition(), "message": e.message()}),
                );
            }
        }
        (Decision::Reject { .. }, _, Some(r)) => {
            o.insert("decision".into(), json!("reject"));
            o.insert("rejection".into(), rejection_json(r));
        }
        _ => {}
    }
    if let Some(k) = &h.converted_to {
        o.insert(
            "convertedTo".into(),
            json!({"group": k.group, "version": k.version, "kind": k.kind}),
        );
    }
    o.insert(
        "conditions".into(),
        h.conditions.as_ref().map_or(Json::Null, report_json),
    );
    Json::Object(o)
}

/// `matchcond match`.
#[allow(clippy::too_many_arguments)]
pub fn dispatch(
    configs: &[String],
    crds: &[String],
    input: RequestInput,
    labels: Labels,
    authorizer_file: Option<&str>,
    version: KubeVersion,
    output: Output,
    paint: Streams,
) -> Result<u8, InputError> {
    let mut configurations: Vec<Configuration> = Vec::new();
    let mut invalid: Vec<Json> = Vec::new();
    for c in input::stored_configurations(configs, version)? {
        if !c.errors.is_empty() {
            errln!(
                "{}",
                paint.err.tone(
                    Tone::Warning,
                    &format!(
                        "matchcond: warning: {} is invalid: the apiserver refuses it ({} error(s)); decided as if it were stored:",
                        c.described(),
                        c.errors.len()
                    )
                )
            );
            for e in &c.errors {
                errln!("  {e}");
            }
            invalid.push(json!({
                "file": c.file,
                "line": c.at.line,
                "column": c.at.column,
                "kind": c.kind,
                "name": c.name,
                "errors": c.errors,
            }));
        }
        configurations.push(c.configuration);
    }
    request_args::print_warnings(&input, paint);
    let request = &input.request;
    let authz = authorizer(authorizer_file)?;
    let dispatcher = Dispatcher::with_resources(
        &configurations,
        version,
        request_args::resources(crds, version)?.1,
    )
    .with_authorizer(Arc::new(authz));
    let any_namespace = NamespaceFn(|name: &str| -> Result<Option<Labels>, String> {
        let mut l = labels.clone();
        l.entry("kubernetes.io/metadata.name".to_owned())
            .or_insert_with(|| name.to_owned());
        Ok(Some(l))
    });
    let namespaces: &dyn NamespaceLister = match &input.namespaces {
        Some(set) => set,
        None => &any_namespace,
    };
    let result = dispatcher
        .dispatch(request, namespaces)
        .map_err(|e| InputError(format!("{}: {e}", input.name)))?;
    let admitted = result.rejection.is_none();
    match output {
        Output::Text => {
            for h in &result.hooks {
                let what = if let Some(inv) = h.invocation() {
                    format!(
                        "{} ({}, {})",
                        paint.out.label(Tone::Good, "call"),
                        inv.resource,
                        inv.kind
                    )
                } else if let Some(r) = h.rejection() {
                    paint.out.message(Tone::Error, &format!("reject: {r}"))
                } else {
                    format!(
                        "{}: {}",
                        paint.out.label(Tone::Warning, "skip"),
                        h.skip_text().unwrap_or_default()
                    )
                };
                outln!(
                    "{}: {what}",
                    paint
                        .out
                        .strong(&format!("{} {}", hook_kind_word(h.hook.kind), h.hook.uid))
                );
                if let Some(w) = request_args::conversion_warning(h, request) {
                    outln!(
                        "  {}",
                        paint.out.tone(Tone::Warning, &format!("warning: {w}"))
                    );
                }
                if let Some(report) = &h.conditions {
                    for c in &report.conditions {
                        let outcome = outcome_text(&c.outcome);
                        let outcome = match &c.outcome {
                            ConditionOutcome::Error(_) => paint.out.message(Tone::Error, &outcome),
                            _ => outcome,
                        };
                        outln!("  condition {:?}: {outcome} (cost {})", &*c.name, c.cost);
                    }
                    if let Some(e) = &report.evaluation_error {
                        outln!(
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
                    outln!(
                        "{}: {called} webhook(s) called",
                        paint.out.label(Tone::Good, "admitted")
                    );
                }
                Some(r) => outln!(
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
                "invalidConfigurations": invalid,
                "reviewWarnings": request_args::warnings_json(&input.name, &input.warnings),
            }));
        }
    }
    Ok(u8::from(!admitted))
}
