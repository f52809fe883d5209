//! The shape of `admissionregistration.k8s.io/v1` webhook configurations, field by field,
//! as the apiserver's strict field validation knows them: every field with its JSON type.
//! Checking a document against it gives unknown, duplicate and mistyped fields with their
//! paths and positions; what passes decodes into the k8s-openapi types.

use base64::Engine;
use serde_json::Value as Json;

use crate::yaml::{Node, Position, Style, Value};

/// The JSON type of a field.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Shape {
    /// A string.
    Str,
    /// A 32-bit integer.
    Int32,
    /// A 64-bit integer.
    Int64,
    /// A boolean.
    Bool,
    /// Base64 text (`[]byte`).
    Bytes,
    /// An RFC 3339 time (`metav1.Time`).
    Time,
    /// A list of strings.
    StrList,
    /// A map of strings to strings.
    StrMap,
    /// Any JSON object (`fieldsV1`).
    AnyObject,
    /// A list of objects of one type.
    List(&'static Struct),
    /// An object.
    Object(&'static Struct),
}

/// An object type: its Go name and its fields.
#[derive(Debug)]
pub(crate) struct Struct {
    /// The Go type name (for reading the table against the API types).
    #[allow(dead_code)]
    pub(crate) name: &'static str,
    pub(crate) fields: &'static [(&'static str, Shape)],
}

use Shape::*;

static OWNER_REFERENCE: Struct = Struct {
    name: "OwnerReference",
    fields: &[
        ("apiVersion", Str),
        ("kind", Str),
        ("name", Str),
        ("uid", Str),
        ("controller", Bool),
        ("blockOwnerDeletion", Bool),
    ],
};

static MANAGED_FIELDS_ENTRY: Struct = Struct {
    name: "ManagedFieldsEntry",
    fields: &[
        ("manager", Str),
        ("operation", Str),
        ("apiVersion", Str),
        ("time", Time),
        ("fieldsType", Str),
        ("fieldsV1", AnyObject),
        ("subresource", Str),
    ],
};

pub(crate) static OBJECT_META: Struct = Struct {
    name: "ObjectMeta",
    fields: &[
        ("name", Str),
        ("generateName", Str),
        ("namespace", Str),
        ("selfLink", Str),
        ("uid", Str),
        ("resourceVersion", Str),
        ("generation", Int64),
        ("creationTimestamp", Time),
        ("deletionTimestamp", Time),
        ("deletionGracePeriodSeconds", Int64),
        ("labels", StrMap),
        ("annotations", StrMap),
        ("ownerReferences", List(&OWNER_REFERENCE)),
        ("finalizers", StrList),
        ("managedFields", List(&MANAGED_FIELDS_ENTRY)),
    ],
};

pub(crate) static LIST_META: Struct = Struct {
    name: "ListMeta",
    fields: &[
        ("selfLink", Str),
        ("resourceVersion", Str),
        ("continue", Str),
        ("remainingItemCount", Int64),
    ],
};

static SERVICE_REFERENCE: Struct = Struct {
    name: "ServiceReference",
    fields: &[
        ("namespace", Str),
        ("name", Str),
        ("path", Str),
        ("port", Int32),
    ],
};

static CLIENT_CONFIG: Struct = Struct {
    name: "WebhookClientConfig",
    fields: &[
        ("url", Str),
        ("service", Object(&SERVICE_REFERENCE)),
        ("caBundle", Bytes),
    ],
};

static RULE: Struct = Struct {
    name: "RuleWithOperations",
    fields: &[
        ("operations", StrList),
        ("apiGroups", StrList),
        ("apiVersions", StrList),
        ("resources", StrList),
        ("scope", Str),
    ],
};

static REQUIREMENT: Struct = Struct {
    name: "LabelSelectorRequirement",
    fields: &[("key", Str), ("operator", Str), ("values", StrList)],
};

static LABEL_SELECTOR: Struct = Struct {
    name: "LabelSelector",
    fields: &[
        ("matchLabels", StrMap),
        ("matchExpressions", List(&REQUIREMENT)),
    ],
};

static MATCH_CONDITION: Struct = Struct {
    name: "MatchCondition",
    fields: &[("name", Str), ("expression", Str)],
};

/// The fields of both kinds of webhook, then the kind's own.
macro_rules! webhook_fields {
    ($($own:expr),*) => {
        &[
            ("name", Str),
            ("clientConfig", Object(&CLIENT_CONFIG)),
            ("rules", List(&RULE)),
            ("failurePolicy", Str),
            ("matchPolicy", Str),
            ("namespaceSelector", Object(&LABEL_SELECTOR)),
            ("objectSelector", Object(&LABEL_SELECTOR)),
            ("sideEffects", Str),
            ("timeoutSeconds", Int32),
            ("admissionReviewVersions", StrList),
            ("matchConditions", List(&MATCH_CONDITION)),
            $($own),*
        ]
    };
}

static VALIDATING_WEBHOOK: Struct = Struct {
    name: "ValidatingWebhook",
    fields: webhook_fields!(),
};

static MUTATING_WEBHOOK: Struct = Struct {
    name: "MutatingWebhook",
    fields: webhook_fields!(("reinvocationPolicy", Str)),
};

/// A configuration of `kind` whose `webhooks` are `webhook`s.
macro_rules! configuration {
    ($kind:literal, $webhook:expr) => {
        Struct {
            name: $kind,
            fields: &[
                ("apiVersion", Str),
                ("kind", Str),
                ("metadata", Object(&OBJECT_META)),
                ("webhooks", List($webhook)),
            ],
        }
    };
}

pub(crate) static VALIDATING_CONFIGURATION: Struct =
    configuration!("ValidatingWebhookConfiguration", &VALIDATING_WEBHOOK);

pub(crate) static MUTATING_CONFIGURATION: Struct =
    configuration!("MutatingWebhookConfiguration", &MUTATING_WEBHOOK);

/// What is wrong with a field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Problem {
    /// A field the type does not have; with the name of a field it probably meant.
    Unknown { suggestion: Option<&'static str> },
    /// A field given twice.
    Duplicate,
    /// A value of the wrong JSON type: what was expected.
    Type { expected: &'static str },
    /// A value of the right type that does not decode (base64, times, integer range).
    Value { detail: String },
    /// A plain scalar that YAML 1.2 reads as the string expected but YAML 1.1 (kubectl's
    /// YAML decoder) as this boolean.
    Yaml11Boolean(bool),
}

/// The boolean YAML 1.1 reads a plain scalar as, where YAML 1.2 reads a string: `y`,
/// `yes`, `on` and `n`, `no`, `off` in the three cases go-yaml v2 resolves (`yes`, `Yes`,
/// `YES`).
fn yaml11_boolean(plain: &str) -> Option<bool> {
    match plain {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => Some(true),
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => Some(false),
        _ => None,
    }
}

/// A problem at a field path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FieldProblem {
    pub(crate) path: String,
    pub(crate) position: Position,
    pub(crate) problem: Problem,
    /// The offending value, described (`string "ten"`), for type problems.
    pub(crate) found: String,
}

fn join(path: &str, field: &str) -> String {
    if path.is_empty() {
        field.to_owned()
    } else {
        format!("{path}.{field}")
    }
}

/// Checks a node against a type; returns its JSON form (without the unknown fields) and
/// records every problem.
pub(crate) fn check(node: &Node, shape: Shape, path: &str, out: &mut Vec<FieldProblem>) -> Json {
    let mut type_problem = |expected: &'static str| {
        out.push(FieldProblem {
            path: path.to_owned(),
            position: node.start,
            problem: Problem::Type { expected },
            found: node.describe(),
        });
        Json::Null
    };
    if node.value == Value::Null {
        return Json::Null;
    }
    match shape {
        Str => match &node.value {
            Value::String(s) => {
                if let (Style::Plain, Some(b)) = (node.style, yaml11_boolean(s)) {
                    out.push(FieldProblem {
                        path: path.to_owned(),
                        position: node.start,
                        problem: Problem::Yaml11Boolean(b),
                        found: node.describe(),
                    });
                }
                Json::String(s.clone())
            }
            _ => type_problem("a string"),
        },
        Bool => match &node.value {
            Value::Bool(b) => Json::Bool(*b),
            _ => type_problem("a boolean"),
        },
        Int32 | Int64 => {
            let (name, min, max) = match shape {
                Int32 => ("int32", i64::from(i32::MIN), i64::from(i32::MAX)),
                _ => ("int64", i64::MIN, i64::MAX),
            };
            let value = match &node.value {
                Value::Int(i) => Some(*i),
                Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => {
                    // A JSON number such as 1e1 is an integer for Go's decoder.
                    Some(*f as i64)
                }
                Value::Uint(_) | Value::Float(_) => None,
                _ => {
                    return type_problem(if name == "int32" {
                        "an integer (int32)"
                    } else {
                        "an integer (int64)"
                    })
                }
            };
            match value {
                Some(v) if (min..=max).contains(&v) => Json::from(v),
                _ => {
                    out.push(FieldProblem {
                        path: path.to_owned(),
                        position: node.start,
                        problem: Problem::Value {
                            detail: format!("{} is not an {name}", node.describe()),
                        },
                        found: node.describe(),
                    });
                    Json::Null
                }
            }
        }
        Bytes => match &node.value {
            // As Go's JSON decoder reads a `[]byte`: the standard encoding, newlines
            // skipped; the stored value is what the apiserver would encode back.
            Value::String(s) => match matchcond_gocompat::base64::decode_std(s.as_bytes()) {
                Ok(bytes) => Json::String(base64::engine::general_purpose::STANDARD.encode(bytes)),
                Err(e) => {
                    out.push(FieldProblem {
                        path: path.to_owned(),
                        position: node.start,
                        problem: Problem::Value {
                            detail: e.to_string(),
                        },
                        found: node.describe(),
                    });
                    Json::Null
                }
            },
            _ => type_problem("a base64 string"),
        },
        Time => match &node.value {
            Value::String(s) if is_rfc3339(s) => Json::String(s.clone()),
            Value::String(s) => {
                out.push(FieldProblem {
                    path: path.to_owned(),
                    position: node.start,
                    problem: Problem::Value {
                        detail: format!("{s:?} is not an RFC 3339 time"),
                    },
                    found: node.describe(),
                });
                Json::Null
            }
            _ => type_problem("an RFC 3339 time string"),
        },
        StrList => match &node.value {
            Value::Seq(items) => Json::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, n)| check(n, Str, &format!("{path}[{i}]"), out))
                    .collect(),
            ),
            _ => type_problem("a list of strings"),
        },
        StrMap => match &node.value {
            Value::Map(entries) => {
                let mut m = serde_json::Map::new();
                for (k, v) in entries {
                    let key = k.key_text().map(|c| c.into_owned()).unwrap_or_default();
                    let p = format!("{path}[{key}]");
                    if m.contains_key(&key) {
                        out.push(FieldProblem {
                            path: p.clone(),
                            position: k.start,
                            problem: Problem::Duplicate,
                            found: String::new(),
                        });
                    }
                    let value = check(v, Str, &p, out);
                    m.insert(key, value);
                }
                Json::Object(m)
            }
            _ => type_problem("a map of strings"),
        },
        AnyObject => match &node.value {
            Value::Map(_) => node.to_json(),
            _ => type_problem("an object"),
        },
        List(s) => match &node.value {
            Value::Seq(items) => Json::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, n)| check(n, Object(s), &format!("{path}[{i}]"), out))
                    .collect(),
            ),
            _ => type_problem("a list"),
        },
        Object(s) => match &node.value {
            Value::Map(entries) => {
                let mut m = serde_json::Map::new();
                for (k, v) in entries {
                    let key = k.key_text().map(|c| c.into_owned()).unwrap_or_default();
                    let p = join(path, &key);
                    let Some((name, field)) = s.fields.iter().find(|(n, _)| *n == key) else {
                        out.push(FieldProblem {
                            path: p,
                            position: k.start,
                            problem: Problem::Unknown {
                                suggestion: suggest(&key, s),
                            },
                            found: String::new(),
                        });
                        continue;
                    };
                    if m.contains_key(*name) {
                        out.push(FieldProblem {
                            path: p.clone(),
                            position: k.start,
                            problem: Problem::Duplicate,
                            found: String::new(),
                        });
                    }
                    let value = check(v, *field, &p, out);
                    m.insert(key, value);
                }
                Json::Object(m)
            }
            _ => type_problem("an object"),
        },
    }
}

/// The field of a type a mistyped name most likely meant: the same name in another case,
/// or one edit away (two for longer names), or a singular/plural form.
fn suggest(key: &str, s: &Struct) -> Option<&'static str> {
    let lower = key.to_ascii_lowercase();
    let mut best: Option<(usize, &'static str)> = None;
    for (name, _) in s.fields {
        let candidate = name.to_ascii_lowercase();
        let d = if candidate == lower {
            0
        } else if candidate.trim_end_matches('s') == lower.trim_end_matches('s') {
            1
        } else {
            edit_distance(&lower, &candidate)
        };
        let limit = if name.len() > 8 { 2 } else { 1 };
        if d <= limit && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, name));
        }
    }
    best.map(|(_, n)| n)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row.first().copied().unwrap_or(0);
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let above = row.get(j + 1).copied().unwrap_or(usize::MAX);
            let left = row.get(j).copied().unwrap_or(usize::MAX);
            let cost = prev + usize::from(ca != *cb);
            let value = cost.min(above + 1).min(left + 1);
            prev = above;
            if let Some(slot) = row.get_mut(j + 1) {
                *slot = value;
            }
        }
    }
    row.last().copied().unwrap_or(0)
}

/// `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`, as `metav1.Time` parses it.
fn is_rfc3339(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |from: usize, n: usize| {
        b.get(from..from + n)
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
    };
    if !(digits(0, 4)
        && b.get(4) == Some(&b'-')
        && digits(5, 2)
        && b.get(7) == Some(&b'-')
        && digits(8, 2)
        && matches!(b.get(10), Some(b'T' | b't'))
        && digits(11, 2)
        && b.get(13) == Some(&b':')
        && digits(14, 2)
        && b.get(16) == Some(&b':')
        && digits(17, 2))
    {
        return false;
    }
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    match b.get(i) {
        Some(b'Z' | b'z') => i + 1 == b.len(),
        Some(b'+' | b'-') => {
            digits(i + 1, 2) && b.get(i + 3) == Some(&b':') && digits(i + 4, 2) && i + 6 == b.len()
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        assert_eq!(
            suggest("matchCondition", &VALIDATING_WEBHOOK),
            Some("matchConditions")
        );
        assert_eq!(
            suggest("failurepolicy", &VALIDATING_WEBHOOK),
            Some("failurePolicy")
        );
        assert_eq!(
            suggest("timeoutSecond", &VALIDATING_WEBHOOK),
            Some("timeoutSeconds")
        );
        assert_eq!(
            suggest("sideEffect", &VALIDATING_WEBHOOK),
            Some("sideEffects")
        );
        assert_eq!(suggest("expresion", &MATCH_CONDITION), Some("expression"));
        assert_eq!(suggest("reinvocationPolicy", &VALIDATING_WEBHOOK), None);
        assert_eq!(suggest("zzz", &VALIDATING_WEBHOOK), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn times() {
        assert!(is_rfc3339("2024-01-02T03:04:05Z"));
        assert!(is_rfc3339("2024-01-02T03:04:05.123+02:00"));
        assert!(!is_rfc3339("2024-01-02 03:04:05Z"));
        assert!(!is_rfc3339("yesterday"));
    }
}
