//! The JSON form of a CEL value, for `eval --output json`'s `value` (beside `valueText`,
//! the CEL literal text).
//!
//! The mapping follows protobuf's JSON conventions, as `google.protobuf.Value` renders CEL
//! values: `null`, booleans, strings and lists as themselves; `int` and `uint` as exact JSON
//! numbers; `double` as a number, or `"NaN"`, `"Infinity"`, `"-Infinity"`; `bytes` as
//! standard base64; maps as objects, keys of other types than string in their text form
//! (`1`, `true`); a timestamp as RFC 3339 text, a duration as seconds text (`"1.5s"`); a
//! type as its name; `optional.of(v)` as `v` and `optional.none()` as `null`; library
//! values (quantities, IPs, CIDRs, URLs, semvers …) as their text form.

use base64::Engine;
use matchcond::Value;
use serde_json::{Map, Number, Value as Json};

/// The JSON form of a value.
pub fn to_json(value: &Value<'_>) -> Json {
    match value {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => Json::Number(Number::from(*i)),
        Value::Uint(u) => Json::Number(Number::from(*u)),
        Value::Double(d) => match Number::from_f64(*d) {
            Some(n) => Json::Number(n),
            None if d.is_nan() => Json::String("NaN".into()),
            None if *d > 0.0 => Json::String("Infinity".into()),
            None => Json::String("-Infinity".into()),
        },
        Value::String(s) => Json::String(s.as_str().to_owned()),
        Value::Bytes(b) => Json::String(base64::engine::general_purpose::STANDARD.encode(&**b)),
        Value::List(l) => Json::Array(l.iter().map(|v| to_json(&v)).collect()),
        Value::Map(m) => {
            let mut out = Map::new();
            for (k, v) in m.iter() {
                out.insert(key_text(&k), to_json(&v));
            }
            Json::Object(out)
        }
        Value::Timestamp(t) => Json::String(t.to_rfc3339()),
        Value::Duration(d) => Json::String(d.to_text()),
        Value::Type(t) => Json::String(t.as_str().to_owned()),
        Value::Optional(o) => o.get().map_or(Json::Null, |v| to_json(&v)),
        Value::Opaque(o) => Json::String(o.text()),
    }
}

/// A map key as JSON object key text.
fn key_text(key: &Value<'_>) -> String {
    match key {
        Value::String(s) => s.as_str().to_owned(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Bool(b) => b.to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use matchcond::{Activation, CompileOptions, Environment, KubeVersion};
    use serde_json::json;

    fn eval(expr: &str) -> (Json, String) {
        let env = Environment::kubernetes(KubeVersion::V1_34);
        let program = env
            .compile(expr, &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{expr}: {e}"));
        let v = program.evaluate(&Activation::empty(), None).result.unwrap();
        (to_json(&v), v.to_string())
    }

    #[test]
    fn values() {
        assert_eq!(eval("null").0, Json::Null);
        assert_eq!(
            eval("[dyn(true), dyn(1), dyn(-2), dyn(3u), dyn(1.5), dyn('é')]").0,
            json!([true, 1, -2, 3, 1.5, "é"])
        );
        assert_eq!(
            eval("9223372036854775807").0,
            json!(9_223_372_036_854_775_807i64)
        );
        assert_eq!(
            eval("18446744073709551615u").0,
            json!(18_446_744_073_709_551_615u64)
        );
        assert_eq!(
            eval("[double('NaN'), double('Infinity'), -double('Infinity')]").0,
            json!(["NaN", "Infinity", "-Infinity"])
        );
        assert_eq!(
            eval("b'\\x00\\xffab'"),
            (json!("AP9hYg=="), "b\"\\x00\\xffab\"".to_owned())
        );
        assert_eq!(
            eval("{'a': dyn({1: [2]}), 'b': dyn({true: 'x'}), 'c': dyn({3u: null})}").0,
            json!({"a": {"1": [2]}, "b": {"true": "x"}, "c": {"3": null}})
        );
        assert_eq!(
            eval("[dyn(timestamp('2024-01-01T00:00:00Z')), dyn(duration('1m30s')), dyn(int)]").0,
            json!(["2024-01-01T00:00:00Z", "90s", "int"])
        );
        assert_eq!(
            eval("[optional.of(1), optional.none()]"),
            (
                json!([1, null]),
                "[optional.of(1), optional.none()]".to_owned()
            )
        );
        assert_eq!(
            eval(
                "[dyn(quantity('1Gi')), dyn(ip('10.0.0.1')), dyn(cidr('10.0.0.0/8')), dyn(url('https://a.example/x'))]"
            )
            .0,
            json!(["1Gi", "10.0.0.1", "10.0.0.0/8", "https://a.example/x"])
        );
    }
}
