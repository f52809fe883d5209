//! The interface between the conformance runner and the engine under test.
//!
//! The runner knows nothing of the engine's internals: it hands each case to an [`Engine`] as
//! plain data (expression texts, JSON objects, an [`AuthorizerTable`]) and compares what comes
//! back ([`CelValue`], [`ExprOutcome`], [`DecisionOutcome`], validation errors) with the case's
//! expectation. The one thing it shares with the library is the schema of the authorizer
//! table, which is also the command line's `--authorizer` file: the data, not the engine.

use std::fmt;

pub use matchcond_dispatch::authz_table::AuthorizerTable;

/// A CEL value as the runner sees it: the result of an evaluation, or of an `equals` literal.
#[derive(Debug, Clone)]
pub enum CelValue {
    /// `null`.
    Null,
    /// A `bool`.
    Bool(bool),
    /// An `int`.
    Int(i64),
    /// A `uint`.
    Uint(u64),
    /// A `double`.
    Double(f64),
    /// A `string`.
    String(String),
    /// A `bytes` value.
    Bytes(Vec<u8>),
    /// A `list`, in order.
    List(Vec<CelValue>),
    /// A `map`, as entries in the engine's iteration order (order does not matter to comparisons).
    Map(Vec<(CelValue, CelValue)>),
    /// A `google.protobuf.Timestamp`: seconds since the Unix epoch and nanoseconds (0..1e9).
    Timestamp {
        /// Seconds since 1970-01-01T00:00:00Z.
        secs: i64,
        /// Nanoseconds within the second.
        nanos: u32,
    },
    /// A `google.protobuf.Duration`.
    Duration {
        /// The whole duration in nanoseconds.
        nanos: i64,
    },
    /// A type value, by its CEL name (`int`, `null_type`, `google.protobuf.Timestamp`, ...).
    Type(String),
    /// An `optional_type` value: `optional.none()` or `optional.of(v)`.
    Optional(Option<Box<CelValue>>),
    /// A library value (`kubernetes.Quantity`, `net.IP`, `net.CIDR`, `kubernetes.URL`,
    /// `kubernetes.Semver`, ...), with its text form (what `string(v)` gives, where it exists).
    Opaque {
        /// The CEL type name.
        type_name: String,
        /// The value's text form.
        text: String,
    },
}

impl CelValue {
    /// The CEL type name of the value: `int`, `uint`, `double`, `string`, `bytes`, `bool`,
    /// `null_type`, `list`, `map`, `google.protobuf.Timestamp`, `google.protobuf.Duration`,
    /// `type`, `optional_type`, or the opaque value's type name.
    pub fn type_name(&self) -> String {
        match self {
            CelValue::Null => "null_type".to_owned(),
            CelValue::Bool(_) => "bool".to_owned(),
            CelValue::Int(_) => "int".to_owned(),
            CelValue::Uint(_) => "uint".to_owned(),
            CelValue::Double(_) => "double".to_owned(),
            CelValue::String(_) => "string".to_owned(),
            CelValue::Bytes(_) => "bytes".to_owned(),
            CelValue::List(_) => "list".to_owned(),
            CelValue::Map(_) => "map".to_owned(),
            CelValue::Timestamp { .. } => "google.protobuf.Timestamp".to_owned(),
            CelValue::Duration { .. } => "google.protobuf.Duration".to_owned(),
            CelValue::Type(_) => "type".to_owned(),
            CelValue::Optional(_) => "optional_type".to_owned(),
            CelValue::Opaque { type_name, .. } => type_name.clone(),
        }
    }
}

/// Formats a duration as cel-go's `string(duration)` does: seconds, with a fraction trimmed of
/// trailing zeros, and an `s` suffix (`0s`, `1.5s`, `-3s`, `0.000000001s`).
pub fn format_duration(nanos: i64) -> String {
    let sign = if nanos < 0 { "-" } else { "" };
    let magnitude = nanos.unsigned_abs();
    let secs = magnitude / 1_000_000_000;
    let frac = magnitude % 1_000_000_000;
    if frac == 0 {
        format!("{sign}{secs}s")
    } else {
        let digits = format!("{frac:09}");
        format!("{sign}{secs}.{}s", digits.trim_end_matches('0'))
    }
}

/// Formats a timestamp as RFC 3339 text in UTC with the fraction trimmed of trailing zeros (as
/// cel-go's `string(timestamp)` does), or `None` when it is outside the representable range.
pub fn format_timestamp(secs: i64, nanos: u32) -> Option<String> {
    let instant = chrono::DateTime::<chrono::Utc>::from_timestamp(secs, 0)?;
    let base = instant.format("%Y-%m-%dT%H:%M:%S").to_string();
    if nanos == 0 {
        Some(format!("{base}Z"))
    } else {
        let digits = format!("{nanos:09}");
        Some(format!("{base}.{}Z", digits.trim_end_matches('0')))
    }
}

/// Writes a string as a quoted literal in JSON's quoting, which CEL reads as the same string.
fn write_string(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    f.write_str(&serde_json::to_string(s).map_err(|_| fmt::Error)?)
}

/// Renders the value as CEL-like text (strings in JSON's quoting, bytes with Rust's ASCII
/// escapes, both read by CEL as the same value): `1`, `1u`, `1.0`, `"text"`, `b"\x00"`, `[1, 2]`,
/// `{"a": 1}`, `timestamp("...")`, `duration("1.5s")`, `optional.of(1)`, `net.IP("10.0.0.1")`.
/// The items between the brackets, separated by `, `, each as `write` writes it.
fn write_separated<T>(
    f: &mut fmt::Formatter<'_>,
    [open, close]: [&str; 2],
    items: &[T],
    write: impl Fn(&mut fmt::Formatter<'_>, &T) -> fmt::Result,
) -> fmt::Result {
    f.write_str(open)?;
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write(f, item)?;
    }
    f.write_str(close)
}

impl fmt::Display for CelValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CelValue::Null => f.write_str("null"),
            CelValue::Bool(b) => write!(f, "{b}"),
            CelValue::Int(i) => write!(f, "{i}"),
            CelValue::Uint(u) => write!(f, "{u}u"),
            CelValue::Double(d) => {
                if d.is_nan() {
                    f.write_str("double(\"NaN\")")
                } else if d.is_infinite() {
                    let sign = if *d < 0.0 { "-" } else { "" };
                    write!(f, "{sign}double(\"Infinity\")")
                } else {
                    write!(f, "{d:?}")
                }
            }
            CelValue::String(s) => write_string(f, s),
            CelValue::Bytes(bytes) => write!(f, "b\"{}\"", bytes.escape_ascii()),
            CelValue::List(items) => {
                write_separated(f, ["[", "]"], items, |f, item| write!(f, "{item}"))
            }
            CelValue::Map(entries) => write_separated(f, ["{", "}"], entries, |f, (key, value)| {
                write!(f, "{key}: {value}")
            }),
            CelValue::Timestamp { secs, nanos } => match format_timestamp(*secs, *nanos) {
                Some(text) => write!(f, "timestamp(\"{text}\")"),
                None => write!(f, "timestamp(seconds: {secs}, nanos: {nanos})"),
            },
            CelValue::Duration { nanos } => write!(f, "duration(\"{}\")", format_duration(*nanos)),
            CelValue::Type(name) => f.write_str(name),
            CelValue::Optional(None) => f.write_str("optional.none()"),
            CelValue::Optional(Some(inner)) => write!(f, "optional.of({inner})"),
            CelValue::Opaque { type_name, text } => {
                write!(f, "{type_name}(")?;
                write_string(f, text)?;
                f.write_str(")")
            }
        }
    }
}

/// An `expression` case, as handed to the engine.
#[derive(Debug, Clone)]
pub struct ExprInput<'c> {
    /// The CEL expression.
    pub expression: &'c str,
    /// The AdmissionRequest (`None`: absent, every variable empty/null).
    pub request: Option<&'c serde_json::Value>,
    /// Extra variables, in the order written: name and CEL expression (evaluated in an empty
    /// environment; the variable is declared `dyn`).
    pub bindings: Vec<(String, String)>,
    /// The static authorizer (`None`: every check is denied with no opinion).
    pub authorizer: Option<&'c AuthorizerTable>,
    /// Compile without the type checker.
    pub disable_check: bool,
    /// The per-expression runtime cost limit (`None`: the default, 1,000,000).
    pub cost_limit: Option<u64>,
}

/// What compiling and evaluating one expression gave.
#[derive(Debug, Clone)]
pub enum ExprOutcome {
    /// Compiling failed (the message as the reference renders it).
    CompileError(String),
    /// Compiling succeeded and evaluating failed.
    EvalError {
        /// The error message.
        message: String,
        /// The cost charged up to the error, where known.
        cost: Option<u64>,
    },
    /// The result and the runtime cost charged.
    Value {
        /// The result.
        value: CelValue,
        /// The runtime cost.
        cost: u64,
    },
}

/// A `matchConditions` case, as handed to the engine.
#[derive(Debug, Clone)]
pub struct ConditionsInput<'c> {
    /// The conditions, in order: name and expression.
    pub conditions: Vec<(String, String)>,
    /// `Fail` or `Ignore`; `None` means `Fail`.
    pub failure_policy: Option<&'c str>,
    /// The AdmissionRequest.
    pub request: Option<&'c serde_json::Value>,
    /// The static authorizer.
    pub authorizer: Option<&'c AuthorizerTable>,
    /// The per-expression cost limit (`None`: the apiserver's 1,000,000).
    pub cost_limit: Option<u64>,
}

/// Whether a webhook is called, as the apiserver decides it.
#[derive(Debug, Clone)]
pub enum DecisionOutcome {
    /// The webhook is called; the total cost of its conditions.
    Call {
        /// The total runtime cost.
        cost: u64,
    },
    /// The webhook is skipped.
    Skip {
        /// The name of the condition that was false, when a condition decided it.
        failed_condition: Option<String>,
        /// The total runtime cost.
        cost: u64,
    },
    /// The request is rejected (an error under failurePolicy `Fail`).
    Reject {
        /// The rejection's text.
        message: String,
        /// The total runtime cost.
        cost: u64,
    },
    /// A condition did not compile.
    CompileError(String),
}

/// A `webhook` case, as handed to the engine.
#[derive(Debug, Clone)]
pub struct WebhookInput<'c> {
    /// One whole Validating/MutatingWebhook object.
    pub webhook: &'c serde_json::Value,
    /// The AdmissionRequest.
    pub request: Option<&'c serde_json::Value>,
    /// The labels of the request's namespace.
    pub namespace_labels: Option<&'c serde_json::Value>,
    /// The static authorizer.
    pub authorizer: Option<&'c AuthorizerTable>,
}

/// The engine under test. Every method returns `Err` when the engine cannot run the case at all
/// (a case kind or feature it does not support, a malformed input it refuses); the runner reports
/// such a case as failed, whatever it expected.
pub trait Engine {
    /// Compiles (in the matchConditions environment) and evaluates one expression.
    fn eval(&self, input: &ExprInput<'_>) -> Result<ExprOutcome, String>;
    /// Evaluates an `equals` expectation (a CEL expression in an empty environment).
    fn eval_literal(&self, expression: &str) -> Result<CelValue, String>;
    /// The CEL type name of a result, as the engine's version names it (the optional type
    /// was `optional` before it was `optional_type`).
    fn type_name(&self, value: &CelValue) -> String {
        value.type_name()
    }
    /// Decides a webhook's matchConditions as the apiserver does.
    fn decide(&self, input: &ConditionsInput<'_>) -> Result<DecisionOutcome, String>;
    /// Compiles a `matchConditions` list without evaluating it: the compile error of every
    /// condition that does not compile (empty when all compile). A `compileError`
    /// expectation on a `matchConditions` case is checked against these, while decisions
    /// follow the apiserver, where a stored condition that does not compile is an
    /// evaluation error.
    fn compile_conditions(&self, _input: &ConditionsInput<'_>) -> Result<Vec<String>, String> {
        Err("compiling conditions alone is not supported".to_owned())
    }
    /// Decides whether the apiserver calls a whole webhook.
    fn decide_webhook(&self, _input: &WebhookInput<'_>) -> Result<DecisionOutcome, String> {
        Err("deciding whole webhooks is not supported".to_owned())
    }
    /// Validation errors ("field.path: message") of a whole configuration, as on create.
    fn validate_configuration(&self, _config: &serde_json::Value) -> Result<Vec<String>, String> {
        Err("validating configurations is not supported".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names() {
        assert_eq!(CelValue::Null.type_name(), "null_type");
        assert_eq!(CelValue::Uint(1).type_name(), "uint");
        assert_eq!(
            CelValue::Timestamp { secs: 0, nanos: 0 }.type_name(),
            "google.protobuf.Timestamp"
        );
        assert_eq!(
            CelValue::Duration { nanos: 0 }.type_name(),
            "google.protobuf.Duration"
        );
        assert_eq!(CelValue::Type("int".into()).type_name(), "type");
        assert_eq!(CelValue::Optional(None).type_name(), "optional_type");
        let ip = CelValue::Opaque {
            type_name: "net.IP".into(),
            text: "10.0.0.1".into(),
        };
        assert_eq!(ip.type_name(), "net.IP");
    }

    #[test]
    fn durations_format_like_cel_go() {
        assert_eq!(format_duration(0), "0s");
        assert_eq!(format_duration(1_500_000_000), "1.5s");
        assert_eq!(format_duration(-3_000_000_000), "-3s");
        assert_eq!(format_duration(1), "0.000000001s");
        assert_eq!(format_duration(-1_010_000_000), "-1.01s");
        assert_eq!(format_duration(i64::MIN), "-9223372036.854775808s");
    }

    #[test]
    fn timestamps_format_as_rfc3339() {
        assert_eq!(
            format_timestamp(1_234_567_890, 0).as_deref(),
            Some("2009-02-13T23:31:30Z")
        );
        assert_eq!(
            format_timestamp(0, 120_000_000).as_deref(),
            Some("1970-01-01T00:00:00.12Z")
        );
        assert_eq!(
            format_timestamp(-62_135_596_800, 1).as_deref(),
            Some("0001-01-01T00:00:00.000000001Z")
        );
        assert_eq!(format_timestamp(i64::MAX, 0), None);
    }

    #[test]
    fn display_is_cel_like() {
        let value = CelValue::Map(vec![
            (
                CelValue::String("a\"b\n".into()),
                CelValue::List(vec![
                    CelValue::Int(-1),
                    CelValue::Uint(2),
                    CelValue::Double(1.0),
                    CelValue::Double(f64::NAN),
                    CelValue::Double(f64::NEG_INFINITY),
                ]),
            ),
            (
                CelValue::Bool(true),
                CelValue::Bytes(vec![b'a', 0, 0xff, b'"']),
            ),
            (
                CelValue::Null,
                CelValue::Optional(Some(Box::new(CelValue::Duration {
                    nanos: 1_500_000_000,
                }))),
            ),
        ]);
        assert_eq!(
            value.to_string(),
            r#"{"a\"b\n": [-1, 2u, 1.0, double("NaN"), -double("Infinity")], true: b"a\x00\xff\"", null: optional.of(duration("1.5s"))}"#
        );
        assert_eq!(
            CelValue::Timestamp { secs: 0, nanos: 0 }.to_string(),
            "timestamp(\"1970-01-01T00:00:00Z\")"
        );
        assert_eq!(CelValue::Optional(None).to_string(), "optional.none()");
        assert_eq!(
            CelValue::Opaque {
                type_name: "kubernetes.Quantity".into(),
                text: "1Gi".into()
            }
            .to_string(),
            "kubernetes.Quantity(\"1Gi\")"
        );
    }
}
