//! The suite file model (the conformance case format) and its loading.
//!
//! A file that is not valid YAML, or whose structure does not fit the format (an unknown key, a
//! value of the wrong type, a missing `suite`, `cases` or case `name`), is a suite error, reported
//! with the YAML position. So are duplicate or unprintable case names. A case whose keys are
//! well-formed but do not make a runnable case (no expectation group, two groups, a group that
//! does not fit the case kind, ...) loads as an invalid case: it fails when run, with the reason.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::Path;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;

use crate::model::AuthorizerTable;

/// One loaded suite.
#[derive(Debug, Clone)]
pub struct Suite {
    /// The suite's name (`suite:`).
    pub name: String,
    /// The cases, in file order.
    pub cases: Vec<Case>,
}

/// One case of a suite.
#[derive(Debug, Clone)]
pub struct Case {
    /// The case's name, unique in the suite.
    pub name: String,
    /// The skip reason, when the case is skipped.
    pub skip: Option<String>,
    /// The runnable case, or why it cannot run.
    pub spec: Result<CaseSpec, String>,
}

/// A valid, runnable case.
#[derive(Debug, Clone)]
pub struct CaseSpec {
    /// What is run.
    pub kind: CaseKind,
    /// The AdmissionRequest.
    pub request: Option<serde_json::Value>,
    /// The static authorizer's table (checked).
    pub authorizer: Option<AuthorizerTable>,
    /// What is expected.
    pub expect: Expectation,
}

/// What a case runs.
#[derive(Debug, Clone)]
pub enum CaseKind {
    /// One expression, compiled and evaluated once.
    Expression {
        /// The expression.
        expression: String,
        /// Extra variables: name and CEL expression, in the order written.
        bindings: Vec<(String, String)>,
        /// Compile without the type checker.
        disable_check: bool,
        /// The runtime cost limit.
        cost_limit: Option<u64>,
    },
    /// A list of matchConditions, decided as the apiserver decides them.
    Conditions {
        /// Name and expression of each condition.
        conditions: Vec<(String, String)>,
        /// `Fail` or `Ignore`.
        failure_policy: Option<String>,
        /// The per-expression cost limit (default 1,000,000).
        cost_limit: Option<u64>,
    },
    /// One whole webhook object.
    Webhook {
        /// The webhook.
        webhook: serde_json::Value,
        /// The labels of the request's namespace.
        namespace_labels: Option<serde_json::Value>,
    },
    /// A whole webhook configuration, validated.
    Configuration {
        /// The configuration object.
        config: serde_json::Value,
    },
}

/// The three decisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// The webhook is called.
    Call,
    /// The webhook is skipped.
    Skip,
    /// The request is rejected.
    Reject,
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Decision::Call => "Call",
            Decision::Skip => "Skip",
            Decision::Reject => "Reject",
        })
    }
}

/// A case's expectation (one group of the `expect` table).
#[derive(Debug, Clone)]
pub enum Expectation {
    /// `value` (loose comparison), with optional `type` and `cost`.
    Value {
        /// The expected result, as JSON.
        value: serde_json::Value,
        /// The expected CEL type name.
        type_name: Option<String>,
        /// The expected runtime cost.
        cost: Option<u64>,
    },
    /// `equals` (strict comparison with a CEL literal), with optional `type` and `cost`.
    Equals {
        /// The CEL expression giving the expected result.
        expression: String,
        /// The expected CEL type name.
        type_name: Option<String>,
        /// The expected runtime cost.
        cost: Option<u64>,
    },
    /// `compileError`: compiling fails with a text containing this.
    CompileError(String),
    /// `evalError`: compiling succeeds, evaluating fails with a text containing this.
    EvalError(String),
    /// `error`: compiling or evaluating fails with a text containing this.
    AnyError(String),
    /// `compiles: true`.
    Compiles,
    /// `decision`, with `failedCondition` (Skip), `error` (Reject) and `cost`.
    Decision {
        /// The expected decision.
        decision: Decision,
        /// The name of the false condition.
        failed_condition: Option<String>,
        /// Text the rejection contains.
        error: Option<String>,
        /// The expected total cost.
        cost: Option<u64>,
    },
    /// `invalid`: texts each contained in some validation error (`[]`: valid).
    Invalid(Vec<String>),
}

/// Loads a suite file.
pub fn load_file(path: &Path) -> Result<Suite, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    parse_suite(&text)
}

/// Parses a suite from YAML text.
pub fn parse_suite(text: &str) -> Result<Suite, String> {
    let raw: RawSuite = serde_yaml_ng::from_str(text).map_err(|e| format!("invalid YAML: {e}"))?;
    if raw.suite.trim().is_empty() {
        return Err("`suite` is empty".to_owned());
    }
    check_name("suite name", &raw.suite)?;
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut duplicates: BTreeMap<usize, String> = BTreeMap::new();
    for (index, case) in raw.cases.iter().enumerate() {
        if case.name.trim().is_empty() {
            return Err(format!("cases[{index}]: `name` is empty"));
        }
        check_name(&format!("cases[{index}].name"), &case.name)?;
        if let Some(first) = seen.get(case.name.as_str()) {
            duplicates.insert(
                index,
                format!("`{}` (cases[{first}] and cases[{index}])", case.name),
            );
        } else {
            seen.insert(&case.name, index);
        }
    }
    if !duplicates.is_empty() {
        let list: Vec<String> = duplicates.into_values().collect();
        return Err(format!("duplicate case names: {}", list.join(", ")));
    }
    let cases = raw.cases.into_iter().map(build_case).collect();
    Ok(Suite {
        name: raw.suite,
        cases,
    })
}

/// Names are printed one per line in reports and known-failures files.
fn check_name(what: &str, name: &str) -> Result<(), String> {
    if name.chars().any(char::is_control) {
        return Err(format!(
            "{what} `{}` contains a control character (line break, tab, ...)",
            name.escape_debug()
        ));
    }
    Ok(())
}

fn build_case(raw: RawCase) -> Case {
    let spec = build_spec(&raw);
    Case {
        name: raw.name,
        skip: raw.skip,
        spec,
    }
}

fn build_spec(raw: &RawCase) -> Result<CaseSpec, String> {
    let mut problems: Vec<String> = Vec::new();
    let mut kinds: Vec<&str> = Vec::new();
    if raw.expression.is_some() {
        kinds.push("expression");
    }
    if raw.match_conditions.is_some() {
        kinds.push("matchConditions");
    }
    if raw.webhook.is_some() {
        kinds.push("webhook");
    }
    if raw.webhook_configuration.is_some() {
        kinds.push("webhookConfiguration");
    }
    let kind = match kinds.as_slice() {
        [] => {
            return Err(
                "the case gives none of `expression`, `matchConditions`, `webhook`, `webhookConfiguration`"
                    .to_owned(),
            )
        }
        [one] => *one,
        many => {
            return Err(format!(
                "the case gives more than one of `expression`, `matchConditions`, `webhook`, `webhookConfiguration`: {}",
                many.join(", ")
            ))
        }
    };

    let mut only_with = |present: bool, key: &str, allowed: &[&str]| {
        if present && !allowed.contains(&kind) {
            problems.push(format!(
                "`{key}` does not apply to a case with `{kind}` (only with {})",
                listed(allowed, |k| format!("`{k}`"))
            ));
        }
    };
    only_with(raw.bindings.is_some(), "bindings", &["expression"]);
    only_with(raw.disable_check.is_some(), "disableCheck", &["expression"]);
    only_with(
        raw.cost_limit.is_some(),
        "costLimit",
        &["expression", "matchConditions", "webhook"],
    );
    only_with(
        raw.failure_policy.is_some(),
        "failurePolicy",
        &["matchConditions"],
    );
    only_with(
        raw.namespace_labels.is_some(),
        "namespaceLabels",
        &["webhook"],
    );
    only_with(
        raw.request.is_some(),
        "request",
        &["expression", "matchConditions", "webhook"],
    );
    only_with(
        raw.authorizer.is_some(),
        "authorizer",
        &["expression", "matchConditions", "webhook"],
    );

    if let Some(policy) = &raw.failure_policy {
        if policy != "Fail" && policy != "Ignore" {
            problems.push(format!(
                "`failurePolicy` must be `Fail` or `Ignore`, not `{policy}`"
            ));
        }
    }

    let authorizer = match &raw.authorizer {
        None => None,
        Some(a) => match a.to_static_authorizer() {
            Ok(_) => Some(a.clone()),
            Err(e) => {
                problems.push(format!("authorizer.{e}"));
                None
            }
        },
    };

    let expect = match &raw.expect {
        None => Err("the case has no `expect`".to_owned()),
        Some(e) => build_expectation(e, kind),
    };
    let expect = match expect {
        Ok(e) => Some(e),
        Err(e) => {
            problems.push(e);
            None
        }
    };

    let case_kind = if let Some(expression) = &raw.expression {
        CaseKind::Expression {
            expression: expression.clone(),
            bindings: raw.bindings.clone().map(|b| b.0).unwrap_or_default(),
            disable_check: raw.disable_check.unwrap_or(false),
            cost_limit: raw.cost_limit,
        }
    } else if let Some(conditions) = &raw.match_conditions {
        CaseKind::Conditions {
            conditions: conditions
                .iter()
                .map(|c| (c.name.clone(), c.expression.clone()))
                .collect(),
            failure_policy: raw.failure_policy.clone(),
            cost_limit: raw.cost_limit,
        }
    } else if let Some(webhook) = &raw.webhook {
        CaseKind::Webhook {
            webhook: webhook.clone(),
            namespace_labels: raw.namespace_labels.clone(),
        }
    } else if let Some(config) = &raw.webhook_configuration {
        CaseKind::Configuration {
            config: config.clone(),
        }
    } else {
        return Err("the case kind is missing".to_owned());
    };

    match expect {
        Some(expect) if problems.is_empty() => Ok(CaseSpec {
            kind: case_kind,
            request: raw.request.clone(),
            authorizer,
            expect,
        }),
        _ => Err(problems.join("; ")),
    }
}

/// The main keys of `expect`, each starting a group on its own (`error` also qualifies
/// `decision: Reject`).
const GROUP_KEYS: &[&str] = &[
    "value",
    "equals",
    "compileError",
    "evalError",
    "error",
    "compiles",
    "decision",
    "invalid",
];

fn build_expectation(raw: &RawExpect, kind: &str) -> Result<Expectation, String> {
    if let Some(unknown) = raw.unknown.first() {
        return Err(format!(
            "unknown key `{unknown}` in `expect` (known: {}, type, cost, failedCondition)",
            GROUP_KEYS.join(", ")
        ));
    }
    let present = |key: &str| -> bool {
        match key {
            "value" => raw.value.is_some(),
            "equals" => raw.equals.is_some(),
            "compileError" => raw.compile_error.is_some(),
            "evalError" => raw.eval_error.is_some(),
            "error" => raw.error.is_some(),
            "compiles" => raw.compiles.is_some(),
            "decision" => raw.decision.is_some(),
            "invalid" => raw.invalid.is_some(),
            _ => false,
        }
    };
    let groups: Vec<&str> = if raw.decision.is_some() {
        GROUP_KEYS
            .iter()
            .copied()
            .filter(|k| *k != "error" && present(k))
            .collect()
    } else {
        GROUP_KEYS.iter().copied().filter(|k| present(k)).collect()
    };
    let group = match groups.as_slice() {
        [] => {
            return Err(format!(
                "`expect` has no expectation group (one of {})",
                GROUP_KEYS.join(", ")
            ))
        }
        [one] => *one,
        many => {
            return Err(format!(
                "`expect` has more than one expectation group: {}",
                many.join(", ")
            ))
        }
    };

    let allowed_kinds: &[&str] = match group {
        "value" | "equals" | "evalError" => &["expression"],
        "compiles" => &["expression", "matchConditions", "webhook"],
        "compileError" | "error" => &["expression", "matchConditions", "webhook"],
        "decision" => &["matchConditions", "webhook"],
        _ => &["webhookConfiguration"],
    };
    if !allowed_kinds.contains(&kind) {
        return Err(format!(
            "`expect.{group}` does not apply to a case with `{kind}`"
        ));
    }

    let mut extras: Vec<&str> = Vec::new();
    if raw.type_name.is_some() {
        extras.push("type");
    }
    if raw.cost.is_some() {
        extras.push("cost");
    }
    if raw.failed_condition.is_some() {
        extras.push("failedCondition");
    }
    if group == "decision" && raw.error.is_some() {
        extras.push("error");
    }
    let allowed_extras: &[&str] = match group {
        "value" | "equals" => &["type", "cost"],
        "decision" => &["failedCondition", "error", "cost"],
        _ => &[],
    };
    if let Some(extra) = extras.iter().find(|e| !allowed_extras.contains(e)) {
        return Err(format!("`expect.{extra}` is not allowed beside `{group}`"));
    }

    let missing = || format!("`expect.{group}` is missing");
    Ok(match group {
        "value" => Expectation::Value {
            value: raw.value.clone().ok_or_else(missing)?,
            type_name: raw.type_name.clone(),
            cost: raw.cost,
        },
        "equals" => Expectation::Equals {
            expression: raw.equals.clone().ok_or_else(missing)?,
            type_name: raw.type_name.clone(),
            cost: raw.cost,
        },
        "compileError" => Expectation::CompileError(raw.compile_error.clone().ok_or_else(missing)?),
        "evalError" => Expectation::EvalError(raw.eval_error.clone().ok_or_else(missing)?),
        "error" => Expectation::AnyError(raw.error.clone().ok_or_else(missing)?),
        "compiles" => {
            if raw.compiles != Some(true) {
                return Err(
                    "`expect.compiles` must be `true` (expect a compile error with `compileError`)"
                        .to_owned(),
                );
            }
            Expectation::Compiles
        }
        "decision" => {
            let text = raw.decision.clone().ok_or_else(missing)?;
            let decision = match text.as_str() {
                "Call" => Decision::Call,
                "Skip" => Decision::Skip,
                "Reject" => Decision::Reject,
                other => {
                    return Err(format!(
                        "`expect.decision` must be `Call`, `Skip` or `Reject`, not `{other}`"
                    ))
                }
            };
            if raw.failed_condition.is_some() && decision != Decision::Skip {
                return Err(
                    "`expect.failedCondition` is only allowed beside `decision: Skip`".to_owned(),
                );
            }
            if raw.error.is_some() && decision != Decision::Reject {
                return Err(
                    "`expect.error` beside `decision` is only allowed with `decision: Reject`"
                        .to_owned(),
                );
            }
            Expectation::Decision {
                decision,
                failed_condition: raw.failed_condition.clone(),
                error: raw.error.clone(),
                cost: raw.cost,
            }
        }
        _ => Expectation::Invalid(raw.invalid.clone().ok_or_else(missing)?),
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSuite {
    suite: String,
    cases: Vec<RawCase>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawCase {
    name: String,
    expression: Option<String>,
    match_conditions: Option<Vec<RawCondition>>,
    failure_policy: Option<String>,
    webhook: Option<serde_json::Value>,
    webhook_configuration: Option<serde_json::Value>,
    request: Option<serde_json::Value>,
    namespace_labels: Option<serde_json::Value>,
    bindings: Option<Bindings>,
    authorizer: Option<AuthorizerTable>,
    disable_check: Option<bool>,
    cost_limit: Option<u64>,
    skip: Option<String>,
    expect: Option<RawExpect>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCondition {
    name: String,
    expression: String,
}

/// `bindings`: a map of name to expression text, kept in the order written.
#[derive(Clone)]
struct Bindings(Vec<(String, String)>);

impl<'de> Deserialize<'de> for Bindings {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct BindingsVisitor;
        impl<'de> Visitor<'de> for BindingsVisitor {
            type Value = Bindings;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map of variable name to CEL expression")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Bindings, A::Error> {
                let mut entries: Vec<(String, String)> = Vec::new();
                while let Some(name) = map.next_key::<String>()? {
                    let expression = map.next_value::<String>()?;
                    if entries.iter().any(|(n, _)| *n == name) {
                        return Err(de::Error::custom(format!("duplicate binding `{name}`")));
                    }
                    entries.push((name, expression));
                }
                Ok(Bindings(entries))
            }
        }
        deserializer.deserialize_map(BindingsVisitor)
    }
}

/// `expect`, read key by key: a scalar given for a text key is taken as written (`equals: 1.0`
/// is the text `1.0`), `value: null` is kept apart from an absent `value`, and unknown keys are
/// collected (they make the case invalid, not the file).
#[derive(Default)]
struct RawExpect {
    value: Option<serde_json::Value>,
    type_name: Option<String>,
    equals: Option<String>,
    compile_error: Option<String>,
    eval_error: Option<String>,
    error: Option<String>,
    compiles: Option<bool>,
    cost: Option<u64>,
    decision: Option<String>,
    failed_condition: Option<String>,
    invalid: Option<Vec<String>>,
    unknown: Vec<String>,
}

fn set_once<T, E: de::Error>(slot: &mut Option<T>, key: &'static str, value: T) -> Result<(), E> {
    if slot.is_some() {
        return Err(E::duplicate_field(key));
    }
    *slot = Some(value);
    Ok(())
}

impl<'de> Deserialize<'de> for RawExpect {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ExpectVisitor;
        impl<'de> Visitor<'de> for ExpectVisitor {
            type Value = RawExpect;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an expectation table")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawExpect, A::Error> {
                let mut raw = RawExpect::default();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "value" => set_once(&mut raw.value, "value", map.next_value()?)?,
                        "type" => set_once(&mut raw.type_name, "type", map.next_value()?)?,
                        "equals" => set_once(&mut raw.equals, "equals", map.next_value()?)?,
                        "compileError" => {
                            set_once(&mut raw.compile_error, "compileError", map.next_value()?)?
                        }
                        "evalError" => {
                            set_once(&mut raw.eval_error, "evalError", map.next_value()?)?
                        }
                        "error" => set_once(&mut raw.error, "error", map.next_value()?)?,
                        "compiles" => set_once(&mut raw.compiles, "compiles", map.next_value()?)?,
                        "cost" => set_once(&mut raw.cost, "cost", map.next_value()?)?,
                        "decision" => set_once(&mut raw.decision, "decision", map.next_value()?)?,
                        "failedCondition" => set_once(
                            &mut raw.failed_condition,
                            "failedCondition",
                            map.next_value()?,
                        )?,
                        "invalid" => set_once(&mut raw.invalid, "invalid", map.next_value()?)?,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            raw.unknown.push(key);
                        }
                    }
                }
                Ok(raw)
            }
        }
        deserializer.deserialize_map(ExpectVisitor)
    }
}

/// The items, each as `show` gives it, separated by commas.
pub fn listed<T>(items: &[T], show: impl Fn(&T) -> String) -> String {
    items.iter().map(show).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::path::PathBuf;

    fn one_case(yaml_case: &str) -> Case {
        let text = format!("suite: s\ncases:\n{yaml_case}");
        let suite = parse_suite(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(suite.cases.len(), 1);
        suite.cases.into_iter().next().unwrap()
    }

    fn spec(yaml_case: &str) -> CaseSpec {
        one_case(yaml_case).spec.unwrap()
    }

    fn case_error(yaml_case: &str) -> String {
        one_case(yaml_case).spec.unwrap_err()
    }

    #[test]
    fn expression_case_with_everything() {
        let s = spec(
            r#"
  - name: n
    expression: x + y
    bindings: {y: '2', x: '1'}
    disableCheck: true
    costLimit: 10
    request: {operation: CREATE, object: {a: [1, 2.5, null, true]}}
    authorizer:
      default: deny
      defaultReason: no rule
      rules:
        - {user: alice, group: "", resource: pods, decision: allow}
        - {resource: configmaps, error: unavailable}
        - {verb: "*", fieldSelector: "a=b", labelSelector: "x in (y)", decision: noOpinion, reason: r}
    expect: {value: 3, type: int, cost: 4}
"#,
        );
        match &s.kind {
            CaseKind::Expression {
                expression,
                bindings,
                disable_check,
                cost_limit,
            } => {
                assert_eq!(expression, "x + y");
                assert_eq!(
                    bindings,
                    &vec![
                        ("y".to_owned(), "2".to_owned()),
                        ("x".to_owned(), "1".to_owned())
                    ]
                );
                assert!(*disable_check);
                assert_eq!(*cost_limit, Some(10));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            s.request,
            Some(serde_json::json!({"operation": "CREATE", "object": {"a": [1, 2.5, null, true]}}))
        );
        let authz = s.authorizer.unwrap();
        assert_eq!(authz.default.as_deref(), Some("deny"));
        assert_eq!(authz.default_reason.as_deref(), Some("no rule"));
        assert_eq!(authz.rules.len(), 3);
        assert_eq!(authz.rules[0].group.as_deref(), Some(""));
        assert_eq!(authz.rules[0].decision.as_deref(), Some("allow"));
        assert_eq!(authz.rules[1].error.as_deref(), Some("unavailable"));
        assert_eq!(authz.rules[2].field_selector.as_deref(), Some("a=b"));
        assert_eq!(authz.rules[2].label_selector.as_deref(), Some("x in (y)"));
        assert_eq!(authz.rules[2].decision.as_deref(), Some("noOpinion"));
        match s.expect {
            Expectation::Value {
                value,
                type_name,
                cost,
            } => {
                assert_eq!(value, serde_json::json!(3));
                assert_eq!(type_name.as_deref(), Some("int"));
                assert_eq!(cost, Some(4));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn scalars_are_taken_as_written() {
        for (written, text) in [
            ("1.0", "1.0"),
            ("'0'", "0"),
            ("0u", "0u"),
            ("true", "true"),
            ("null", "null"),
            ("1e3", "1e3"),
        ] {
            let s = spec(&format!(
                "  - {{name: n, expression: x, expect: {{equals: {written}}}}}\n"
            ));
            match s.expect {
                Expectation::Equals { expression, .. } => assert_eq!(expression, text),
                other => panic!("{other:?}"),
            }
        }
        let s = spec("  - {name: n, expression: x, expect: {value: null}}\n");
        assert!(matches!(
            s.expect,
            Expectation::Value {
                value: serde_json::Value::Null,
                ..
            }
        ));
    }

    #[test]
    fn other_case_kinds() {
        let s = spec(
            r#"
  - name: n
    matchConditions:
      - {name: a, expression: "true"}
      - {name: b, expression: "false"}
    failurePolicy: Ignore
    expect: {decision: Skip, failedCondition: b, cost: 2}
"#,
        );
        match (&s.kind, &s.expect) {
            (
                CaseKind::Conditions {
                    conditions,
                    failure_policy,
                    ..
                },
                Expectation::Decision {
                    decision,
                    failed_condition,
                    error,
                    cost,
                },
            ) => {
                assert_eq!(conditions.len(), 2);
                assert_eq!(conditions[1], ("b".to_owned(), "false".to_owned()));
                assert_eq!(failure_policy.as_deref(), Some("Ignore"));
                assert_eq!(*decision, Decision::Skip);
                assert_eq!(failed_condition.as_deref(), Some("b"));
                assert_eq!(*error, None);
                assert_eq!(*cost, Some(2));
            }
            other => panic!("{other:?}"),
        }
        let s = spec(
            "  - {name: n, webhook: {name: w.example.com}, namespaceLabels: {a: b}, expect: {decision: Reject, error: boom}}\n",
        );
        assert!(matches!(
            s.kind,
            CaseKind::Webhook {
                namespace_labels: Some(_),
                ..
            }
        ));
        assert!(matches!(
            s.expect,
            Expectation::Decision {
                decision: Decision::Reject,
                error: Some(_),
                ..
            }
        ));
        let s = spec("  - {name: n, webhookConfiguration: {kind: X}, expect: {invalid: [a, b]}}\n");
        match s.expect {
            Expectation::Invalid(texts) => assert_eq!(texts, vec!["a", "b"]),
            other => panic!("{other:?}"),
        }
        let s = spec("  - {name: n, webhookConfiguration: {kind: X}, expect: {invalid: []}}\n");
        assert!(matches!(s.expect, Expectation::Invalid(t) if t.is_empty()));
        let s = spec("  - {name: n, matchConditions: [], expect: {error: x}}\n");
        assert!(matches!(s.expect, Expectation::AnyError(t) if t == "x"));
        let s = spec("  - {name: n, expression: x, expect: {compiles: true}}\n");
        assert!(matches!(s.expect, Expectation::Compiles));
        let s = spec("  - {name: n, expression: x, expect: {compileError: ''}}\n");
        assert!(matches!(s.expect, Expectation::CompileError(t) if t.is_empty()));
        let s = spec("  - {name: n, expression: x, expect: {evalError: div}}\n");
        assert!(matches!(s.expect, Expectation::EvalError(t) if t == "div"));
    }

    #[test]
    fn invalid_cases_carry_their_reason() {
        let cases = [
            ("{name: n, expression: x}", "the case has no `expect`"),
            ("{name: n, expression: x, expect: {}}", "`expect` has no expectation group (one of value, equals, compileError, evalError, error, compiles, decision, invalid)"),
            ("{name: n, expression: x, expect: {value: 1, equals: '1'}}", "`expect` has more than one expectation group: value, equals"),
            ("{name: n, expression: x, expect: {valu: 1}}", "unknown key `valu` in `expect` (known: value, equals, compileError, evalError, error, compiles, decision, invalid, type, cost, failedCondition)"),
            ("{name: n, expression: x, expect: {compileError: '', type: int}}", "`expect.type` is not allowed beside `compileError`"),
            ("{name: n, expression: x, expect: {evalError: '', cost: 1}}", "`expect.cost` is not allowed beside `evalError`"),
            ("{name: n, expression: x, expect: {decision: Call}}", "`expect.decision` does not apply to a case with `expression`"),
            ("{name: n, matchConditions: [], expect: {value: true}}", "`expect.value` does not apply to a case with `matchConditions`"),
            ("{name: n, matchConditions: [], expect: {decision: call}}", "`expect.decision` must be `Call`, `Skip` or `Reject`, not `call`"),
            ("{name: n, matchConditions: [], expect: {decision: Call, failedCondition: a}}", "`expect.failedCondition` is only allowed beside `decision: Skip`"),
            ("{name: n, matchConditions: [], expect: {decision: Skip, error: a}}", "`expect.error` beside `decision` is only allowed with `decision: Reject`"),
            ("{name: n, webhookConfiguration: {}, expect: {decision: Call}}", "`expect.decision` does not apply to a case with `webhookConfiguration`"),
            ("{name: n, expression: x, expect: {compiles: false}}", "`expect.compiles` must be `true` (expect a compile error with `compileError`)"),
            ("{name: n, expect: {compiles: true}}", "the case gives none of `expression`, `matchConditions`, `webhook`, `webhookConfiguration`"),
            ("{name: n, expression: x, webhook: {}, expect: {compiles: true}}", "the case gives more than one of `expression`, `matchConditions`, `webhook`, `webhookConfiguration`: expression, webhook"),
            ("{name: n, matchConditions: [], bindings: {a: '1'}, costLimit: 3, expect: {decision: Call}}", "`bindings` does not apply to a case with `matchConditions` (only with `expression`)"),
            ("{name: n, expression: x, failurePolicy: Fail, expect: {compiles: true}}", "`failurePolicy` does not apply to a case with `expression` (only with `matchConditions`)"),
            ("{name: n, matchConditions: [], failurePolicy: fail, expect: {decision: Call}}", "`failurePolicy` must be `Fail` or `Ignore`, not `fail`"),
            ("{name: n, webhookConfiguration: {}, request: {}, expect: {invalid: []}}", "`request` does not apply to a case with `webhookConfiguration` (only with `expression`, `matchConditions`, `webhook`)"),
            ("{name: n, expression: x, authorizer: {rules: [{verb: get}]}, expect: {compiles: true}}", "authorizer.rules[0] gives neither `decision` nor `error`"),
            ("{name: n, expression: x, authorizer: {rules: [{verb: get, decision: allow, error: e}]}, expect: {compiles: true}}", "authorizer.rules[0] gives both `decision` and `error`"),
            ("{name: n, expression: x, authorizer: {rules: [{error: e, reason: r}]}, expect: {compiles: true}}", "authorizer.rules[0] gives `reason` without `decision`"),
            ("{name: n, expression: x, authorizer: {default: maybe}, expect: {compiles: true}}", "authorizer.default: unknown decision \"maybe\" (expected allow, deny or noOpinion)"),
        ];
        for (case, message) in cases {
            assert_eq!(case_error(&format!("  - {case}\n")), message, "{case}");
        }
    }

    #[test]
    fn skipped_cases_need_no_expectation() {
        let case = one_case("  - {name: n, expression: x, skip: not here}\n");
        assert_eq!(case.skip.as_deref(), Some("not here"));
        assert!(case.spec.is_err());
    }

    #[test]
    fn suite_errors_are_positioned() {
        let err = parse_suite("suite: s\ncases:\n  - name: a\n    expresion: x\n").unwrap_err();
        assert!(
            err.starts_with("invalid YAML: cases[0]: unknown field `expresion`"),
            "{err}"
        );
        assert!(err.ends_with("at line 4 column 5"), "{err}");
        let err = parse_suite("suite: s\ncases:\n  - name: a\n    expression: [x\n").unwrap_err();
        assert!(err.contains("line 4"), "{err}");
        let err =
            parse_suite("suite: s\ncases:\n  - {name: a, expression: x, expect: {cost: -1}}\n")
                .unwrap_err();
        assert!(err.contains("cases[0].expect.cost"), "{err}");
        assert!(err.contains("line 3"), "{err}");
        let err = parse_suite(
            "suite: s\ncases:\n  - {name: a, expression: x, expect: {value: 1, value: 2}}\n",
        )
        .unwrap_err();
        assert!(err.contains("duplicate"), "{err}");
        let err = parse_suite(
            "suite: s\ncases:\n  - {name: a, expression: x, bindings: {a: '1', a: '2'}}\n",
        )
        .unwrap_err();
        assert!(err.contains("duplicate"), "{err}");
        let err = parse_suite("cases: []\n").unwrap_err();
        assert!(err.contains("missing field `suite`"), "{err}");
        let err = parse_suite("suite: s\n").unwrap_err();
        assert!(err.contains("missing field `cases`"), "{err}");
        let err = parse_suite("").unwrap_err();
        assert!(err.starts_with("invalid YAML"), "{err}");
        let err = parse_suite("suite: s\ncases: []\n---\nsuite: t\ncases: []\n").unwrap_err();
        assert!(err.contains("more than one document"), "{err}");
    }

    #[test]
    fn duplicate_and_bad_names_are_suite_errors() {
        let err = parse_suite(
            "suite: s\ncases:\n  - {name: a, skip: x}\n  - {name: b, skip: x}\n  - {name: a, skip: x}\n  - {name: b, skip: x}\n",
        )
        .unwrap_err();
        assert_eq!(
            err,
            "duplicate case names: `a` (cases[0] and cases[2]), `b` (cases[1] and cases[3])"
        );
        let err = parse_suite("suite: s\ncases:\n  - {name: '', skip: x}\n").unwrap_err();
        assert_eq!(err, "cases[0]: `name` is empty");
        let err = parse_suite("suite: s\ncases:\n  - {name: \"a\\nb\", skip: x}\n").unwrap_err();
        assert_eq!(
            err,
            "cases[0].name `a\\nb` contains a control character (line break, tab, ...)"
        );
    }

    /// The converted cel-spec suites (`../shared/conformance/cel-spec` beside the checkout, or
    /// `MATCHCOND_CEL_SPEC_DIR`); `None` (the test is skipped) when they are not there.
    pub(crate) fn cel_spec_dir() -> Option<PathBuf> {
        let mut candidates: Vec<PathBuf> = Vec::new();
        if let Some(dir) = std::env::var_os("MATCHCOND_CEL_SPEC_DIR") {
            candidates.push(PathBuf::from(dir));
        }
        candidates.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("cel-spec"));
        candidates.push(
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance/cel-spec"),
        );
        let found = candidates.into_iter().find(|p| p.is_dir());
        if found.is_none() {
            eprintln!("cel-spec suites not found (../shared/conformance/cel-spec); skipped");
        }
        found
    }

    #[test]
    fn every_cel_spec_suite_loads() {
        let Some(dir) = cel_spec_dir() else { return };
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .collect();
        files.sort();
        assert_eq!(files.len(), 29);
        let (mut total, mut skipped, mut invalid) = (0, 0, 0);
        let mut kinds: BTreeMap<&'static str, usize> = BTreeMap::new();
        for file in &files {
            let suite = load_file(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            assert!(suite.name.starts_with("cel-spec/"), "{}", suite.name);
            for case in &suite.cases {
                total += 1;
                if case.skip.is_some() {
                    skipped += 1;
                    continue;
                }
                match &case.spec {
                    Err(e) => {
                        invalid += 1;
                        eprintln!("{} :: {}: {e}", suite.name, case.name);
                    }
                    Ok(spec) => {
                        let kind = match spec.expect {
                            Expectation::Equals { .. } => "equals",
                            Expectation::EvalError(_) => "evalError",
                            Expectation::AnyError(_) => "error",
                            _ => "other",
                        };
                        *kinds.entry(kind).or_default() += 1;
                    }
                }
            }
        }
        assert_eq!((total, skipped, invalid), (2456, 1058, 0));
        assert_eq!(
            kinds.into_iter().collect::<Vec<_>>(),
            vec![("equals", 1234), ("error", 24), ("evalError", 140)]
        );
    }
}
