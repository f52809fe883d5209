//! Label selectors: validation (`ValidateLabelSelector`), conversion to a selector
//! (`LabelSelectorAsSelector`) and matching, as apimachinery does them.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};

use crate::field::{aggregate, BadValue, FieldError, Path, Wording};
use crate::names;

/// A requirement's operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operator {
    /// `matchLabels` entries (`=`).
    Equals,
    /// `In`.
    In,
    /// `NotIn`.
    NotIn,
    /// `Exists`.
    Exists,
    /// `DoesNotExist`.
    DoesNotExist,
}

/// One requirement of a selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// The label key.
    pub key: String,
    /// The operator.
    pub operator: Operator,
    /// The values.
    pub values: Vec<String>,
}

impl Requirement {
    /// Whether the labels satisfy the requirement.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        let has = |v: &String| self.values.iter().any(|x| x == v);
        match self.operator {
            Operator::Equals | Operator::In => labels.get(&self.key).is_some_and(has),
            Operator::NotIn => labels.get(&self.key).is_none_or(|v| !has(v)),
            Operator::Exists => labels.contains_key(&self.key),
            Operator::DoesNotExist => !labels.contains_key(&self.key),
        }
    }
}

/// A parsed label selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selector {
    /// A nil selector: matches nothing.
    Nothing,
    /// Requirements, all of which must hold; none means everything (an empty selector).
    Requirements(Vec<Requirement>),
}

impl Selector {
    /// `Selector.Empty()`: true only for a selector without requirements (a nil selector is
    /// not empty).
    pub fn is_empty(&self) -> bool {
        matches!(self, Selector::Requirements(r) if r.is_empty())
    }

    /// Whether the labels match.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        match self {
            Selector::Nothing => false,
            Selector::Requirements(rs) => rs.iter().all(|r| r.matches(labels)),
        }
    }
}

fn new_requirement(
    key: &str,
    operator: Operator,
    values: Vec<String>,
    nil_values: bool,
    w: Wording,
) -> Result<Requirement, String> {
    let mut errs = Vec::new();
    let key_errs = names::qualified_name(key, w);
    if !key_errs.is_empty() {
        errs.push(FieldError::invalid(
            "key",
            BadValue::Str(key.to_owned()),
            key_errs.join("; "),
            w,
        ));
    }
    let list = BadValue::List {
        type_name: "string",
        items: values.clone(),
        nil: nil_values,
    };
    match operator {
        Operator::In | Operator::NotIn if values.is_empty() => errs.push(FieldError::invalid(
            "values",
            list,
            "for 'in', 'notin' operators, values set can't be empty",
            w,
        )),
        Operator::Equals if values.len() != 1 => errs.push(FieldError::invalid(
            "values",
            list,
            "exact-match compatibility requires one single value",
            w,
        )),
        Operator::Exists | Operator::DoesNotExist if !values.is_empty() => {
            errs.push(FieldError::invalid(
                "values",
                list,
                "values set must be empty for exists and does not exist",
                w,
            ))
        }
        _ => {}
    }
    for (i, v) in values.iter().enumerate() {
        let v_errs = names::label_value(v, w);
        if !v_errs.is_empty() {
            errs.push(FieldError::invalid(
                Path::new("values").index(i).key(key).as_str(),
                BadValue::Str(v.clone()),
                v_errs.join("; "),
                w,
            ));
        }
    }
    if errs.is_empty() {
        Ok(Requirement {
            key: key.to_owned(),
            operator,
            values,
        })
    } else {
        Err(aggregate(&errs))
    }
}

/// `LabelSelectorAsSelector`: `None` gives [`Selector::Nothing`]; the error is the Go error
/// text (the first invalid requirement; `matchLabels` are taken in key order).
pub fn parse_selector(selector: Option<&LabelSelector>, w: Wording) -> Result<Selector, String> {
    let Some(s) = selector else {
        return Ok(Selector::Nothing);
    };
    let labels = s.match_labels.as_ref();
    let exprs = s.match_expressions.as_deref().unwrap_or(&[]);
    if labels.is_none_or(BTreeMap::is_empty) && exprs.is_empty() {
        return Ok(Selector::Requirements(Vec::new()));
    }
    let mut reqs = Vec::new();
    for (k, v) in labels.into_iter().flatten() {
        reqs.push(new_requirement(
            k,
            Operator::Equals,
            vec![v.clone()],
            false,
            w,
        )?);
    }
    for e in exprs {
        let op = match e.operator.as_str() {
            "In" => Operator::In,
            "NotIn" => Operator::NotIn,
            "Exists" => Operator::Exists,
            "DoesNotExist" => Operator::DoesNotExist,
            other => {
                return Err(format!(
                    "{} is not a valid label selector operator",
                    matchcond_gocompat::strconv::quote(other)
                ))
            }
        };
        let values = e.values.clone().unwrap_or_default();
        let nil = values.is_empty();
        reqs.push(new_requirement(&e.key, op, values, nil, w)?);
    }
    reqs.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(Selector::Requirements(reqs))
}

fn validate_requirement(
    r: &LabelSelectorRequirement,
    allow_invalid_values: bool,
    path: &Path,
    w: Wording,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let values = r.values.as_deref().unwrap_or(&[]);
    match r.operator.as_str() {
        "In" | "NotIn" => {
            if values.is_empty() {
                errs.push(FieldError::required(
                    path.child("values").as_str(),
                    "must be specified when `operator` is 'In' or 'NotIn'",
                    w,
                ));
            }
        }
        "Exists" | "DoesNotExist" => {
            if !values.is_empty() {
                errs.push(FieldError::forbidden(
                    path.child("values").as_str(),
                    "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                    w,
                ));
            }
        }
        other => errs.push(FieldError::invalid(
            path.child("operator").as_str(),
            BadValue::Named(other.to_owned()),
            "not a valid selector operator",
            w,
        )),
    }
    errs.extend(validate_label_name(&r.key, &path.child("key"), w));
    if !allow_invalid_values {
        for (i, v) in values.iter().enumerate() {
            for m in names::label_value(v, w) {
                errs.push(FieldError::invalid(
                    path.child("values").index(i).as_str(),
                    BadValue::Str(v.clone()),
                    m,
                    w,
                ));
            }
        }
    }
    errs
}

/// `ValidateLabelName`.
pub(crate) fn validate_label_name(name: &str, path: &Path, w: Wording) -> Vec<FieldError> {
    names::qualified_name(name, w)
        .into_iter()
        .map(|m| FieldError::invalid(path.as_str(), BadValue::Str(name.to_owned()), m, w))
        .collect()
}

/// `ValidateLabels` (keys in sorted order).
pub(crate) fn validate_labels(
    labels: Option<&BTreeMap<String, String>>,
    path: &Path,
    w: Wording,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (k, v) in labels.into_iter().flatten() {
        errs.extend(validate_label_name(k, path, w));
        for m in names::label_value(v, w) {
            errs.push(FieldError::invalid(
                path.as_str(),
                BadValue::Str(v.clone()),
                m,
                w,
            ));
        }
    }
    errs
}

/// `ValidateLabelSelector`: every error of the selector at `path`.
pub fn validate_label_selector(
    selector: &LabelSelector,
    allow_invalid_values: bool,
    path: &str,
    w: Wording,
) -> Vec<FieldError> {
    let path = Path::new(path);
    let mut errs = validate_labels(
        selector.match_labels.as_ref(),
        &path.child("matchLabels"),
        w,
    );
    for (i, r) in selector
        .match_expressions
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
        errs.extend(validate_requirement(
            r,
            allow_invalid_values,
            &path.child("matchExpressions").index(i),
            w,
        ));
    }
    errs
}

/// Whether a selector has a `matchExpressions` value that is not a valid label value
/// (`LabelSelectorHasInvalidLabelValue`-style check used on update).
pub(crate) fn has_invalid_label_value(selector: &LabelSelector, w: Wording) -> bool {
    !validate_label_selector(selector, false, "", w).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: Wording = Wording::NEW;

    fn sel(json: serde_json::Value) -> LabelSelector {
        serde_json::from_value(json).unwrap()
    }

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn nil_empty_and_matching() {
        assert_eq!(parse_selector(None, W), Ok(Selector::Nothing));
        let nothing = parse_selector(None, W).unwrap();
        assert!(!nothing.is_empty());
        assert!(!nothing.matches(&labels(&[])));
        let empty = parse_selector(Some(&sel(serde_json::json!({}))), W).unwrap();
        assert!(empty.is_empty());
        assert!(empty.matches(&labels(&[("a", "b")])));
        let s = parse_selector(
            Some(&sel(serde_json::json!({
                "matchLabels": {"env": "prod"},
                "matchExpressions": [
                    {"key": "tier", "operator": "In", "values": ["web", "api"]},
                    {"key": "skip", "operator": "DoesNotExist"},
                    {"key": "team", "operator": "Exists"},
                    {"key": "zone", "operator": "NotIn", "values": ["z1"]}
                ]
            }))),
            W,
        )
        .unwrap();
        assert!(s.matches(&labels(&[("env", "prod"), ("tier", "web"), ("team", "x")])));
        assert!(s.matches(&labels(&[
            ("env", "prod"),
            ("tier", "api"),
            ("team", "x"),
            ("zone", "z2")
        ])));
        assert!(!s.matches(&labels(&[("env", "prod"), ("tier", "web")])));
        assert!(!s.matches(&labels(&[
            ("env", "prod"),
            ("tier", "web"),
            ("team", "x"),
            ("skip", "")
        ])));
        assert!(!s.matches(&labels(&[
            ("env", "prod"),
            ("tier", "web"),
            ("team", "x"),
            ("zone", "z1")
        ])));
        assert!(!s.matches(&labels(&[("env", "dev"), ("tier", "web"), ("team", "x")])));
    }

    #[test]
    fn parse_errors() {
        let e = parse_selector(
            Some(&sel(serde_json::json!({"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]}))),
            W,
        )
        .unwrap_err();
        assert_eq!(e, "\"Gt\" is not a valid label selector operator");
        let e = parse_selector(
            Some(&sel(
                serde_json::json!({"matchExpressions": [{"key": "a", "operator": "In"}]}),
            )),
            W,
        )
        .unwrap_err();
        assert_eq!(
            e,
            "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"
        );
        let old = Wording {
            json_values: false,
            ..W
        };
        let e = parse_selector(
            Some(&sel(
                serde_json::json!({"matchExpressions": [{"key": "a", "operator": "In"}]}),
            )),
            old,
        )
        .unwrap_err();
        assert_eq!(
            e,
            "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"
        );
        let e = parse_selector(
            Some(&sel(serde_json::json!({"matchLabels": {"a b": "-x"}}))),
            W,
        )
        .unwrap_err();
        assert!(
            e.starts_with("[key: Invalid value: \"a b\": name part must consist"),
            "{e}"
        );
        assert!(
            e.contains(", values[0][a b]: Invalid value: \"-x\": a valid label must be"),
            "{e}"
        );
        let e = parse_selector(
            Some(&sel(serde_json::json!({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]}))),
            W,
        )
        .unwrap_err();
        assert_eq!(
            e,
            "values: Invalid value: [\"x\"]: values set must be empty for exists and does not exist"
        );
    }

    #[test]
    fn validation() {
        let s = sel(serde_json::json!({
            "matchLabels": {"-bad": "ok", "good": "-bad"},
            "matchExpressions": [
                {"key": "a", "operator": "In"},
                {"key": "b", "operator": "Exists", "values": ["x"]},
                {"key": "c", "operator": "Gt", "values": ["1"]},
                {"key": "d", "operator": "In", "values": ["-v"]}
            ]
        }));
        let errs: Vec<String> =
            validate_label_selector(&s, false, "webhooks[0].namespaceSelector", W)
                .iter()
                .map(ToString::to_string)
                .collect();
        assert_eq!(errs.len(), 6, "{errs:#?}");
        assert!(errs[0].starts_with("webhooks[0].namespaceSelector.matchLabels: Invalid value: \"-bad\": name part must consist"));
        assert!(errs[1].starts_with("webhooks[0].namespaceSelector.matchLabels: Invalid value: \"-bad\": a valid label must be"));
        assert_eq!(errs[2], "webhooks[0].namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'");
        assert_eq!(errs[3], "webhooks[0].namespaceSelector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
        assert_eq!(errs[4], "webhooks[0].namespaceSelector.matchExpressions[2].operator: Invalid value: \"Gt\": not a valid selector operator");
        assert!(errs[5].starts_with("webhooks[0].namespaceSelector.matchExpressions[3].values[0]: Invalid value: \"-v\": a valid label must be"));
        assert_eq!(validate_label_selector(&s, true, "x", W).len(), 5);
    }
}
