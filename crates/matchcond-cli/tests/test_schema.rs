//! The JSON schema of test files (`test-file.schema.json`) describes what the loader
//! accepts: the same fields, and the same verdict on the test files of the repository
//! (checked with a validator of the schema keywords it uses, JSON Schema 2020-12).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};

use matchcond::dispatch::request::{load_test_file, CASE_FIELDS, FILE_FIELDS};
use serde_json::Value as Json;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn schema() -> Json {
    serde_json::from_str(&std::fs::read_to_string(root().join("test-file.schema.json")).unwrap())
        .unwrap()
}

fn resolve<'a>(schema: &'a Json, root: &'a Json) -> &'a Json {
    match schema.get("$ref").and_then(Json::as_str) {
        Some(r) => {
            let name = r.strip_prefix("#/$defs/").unwrap();
            &root["$defs"][name]
        }
        None => schema,
    }
}

fn type_ok(t: &str, v: &Json) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "null" => v.is_null(),
        other => panic!("type {other} not handled"),
    }
}

/// Validates `v` against `s`: the keywords the schema uses, each one checked (an unknown
/// keyword fails the test, so the validator cannot silently ignore one).
fn valid(s: &Json, v: &Json, root: &Json) -> bool {
    let s = resolve(s, root);
    let Json::Object(m) = s else {
        panic!("schema {s}")
    };
    for (k, kw) in m {
        let ok = match k.as_str() {
            "$schema" | "$id" | "title" | "description" | "$defs" | "$ref" => true,
            "type" => type_ok(kw.as_str().unwrap(), v),
            "const" => v == kw,
            "enum" => kw.as_array().unwrap().contains(v),
            "pattern" => v
                .as_str()
                .is_none_or(|t| regex::Regex::new(kw.as_str().unwrap()).unwrap().is_match(t)),
            "minLength" => v
                .as_str()
                .is_none_or(|t| t.chars().count() as u64 >= kw.as_u64().unwrap()),
            "minItems" => v
                .as_array()
                .is_none_or(|a| a.len() as u64 >= kw.as_u64().unwrap()),
            "minProperties" => v
                .as_object()
                .is_none_or(|o| o.len() as u64 >= kw.as_u64().unwrap()),
            "items" => v
                .as_array()
                .is_none_or(|a| a.iter().all(|i| valid(kw, i, root))),
            "required" => v.as_object().is_none_or(|o| {
                kw.as_array()
                    .unwrap()
                    .iter()
                    .all(|r| o.contains_key(r.as_str().unwrap()))
            }),
            "properties" => v.as_object().is_none_or(|o| {
                o.iter()
                    .all(|(pk, pv)| kw.get(pk).is_none_or(|ps| valid(ps, pv, root)))
            }),
            "additionalProperties" => v.as_object().is_none_or(|o| {
                let props = m.get("properties");
                o.iter()
                    .filter(|(pk, _)| props.is_none_or(|p| p.get(pk.as_str()).is_none()))
                    .all(|(_, pv)| match kw {
                        Json::Bool(b) => *b,
                        sub => valid(sub, pv, root),
                    })
            }),
            "oneOf" => {
                kw.as_array()
                    .unwrap()
                    .iter()
                    .filter(|sub| valid(sub, v, root))
                    .count()
                    == 1
            }
            other => panic!("schema keyword {other} not handled by the test's validator"),
        };
        if !ok {
            return false;
        }
    }
    true
}

fn yaml_as_json(path: &Path) -> Json {
    let v: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    serde_json::to_value(v).unwrap()
}

fn keys(v: &Json) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    k.sort();
    k
}

fn sorted(fields: &[&str]) -> Vec<String> {
    let mut k: Vec<String> = fields.iter().map(|s| (*s).to_owned()).collect();
    k.sort();
    k
}

#[test]
fn the_schema_names_the_fields_the_loader_reads() {
    let s = schema();
    assert_eq!(keys(&s["properties"]), sorted(FILE_FIELDS));
    assert_eq!(keys(&s["$defs"]["case"]["properties"]), sorted(CASE_FIELDS));
    assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
}

#[test]
fn schema_and_loader_agree_on_the_repository_test_files() {
    let s = schema();
    let files = [
        (root().join("../../examples/webhooks.test.yaml"), true),
        (root().join("tests/data/suite/pods.test.yaml"), true),
        (root().join("tests/data/suite/failing.test.yaml"), true),
        (root().join("tests/data/suite/bad/fields.test.yaml"), false),
        (root().join("tests/data/suite/bad/missing.test.yaml"), true),
    ];
    for (path, expected) in files {
        let by_schema = valid(&s, &yaml_as_json(&path), &s);
        let by_loader = load_test_file(&std::fs::read_to_string(&path).unwrap()).is_ok();
        assert_eq!(by_schema, expected, "schema on {}", path.display());
        assert_eq!(by_loader, expected, "loader on {}", path.display());
    }
}

#[test]
fn the_validator_refuses_what_the_schema_refuses() {
    let s = schema();
    let base = serde_json::json!({
        "apiVersion": "matchcond/v1alpha1", "kind": "Test", "configurations": ["w.yaml"],
        "cases": [{"object": "p.yaml", "expect": {"w": "called"}}]
    });
    assert!(valid(&s, &base, &s));
    for (path, bad) in [
        ("/kind", serde_json::json!("Other")),
        ("/cases/0/expect/w", serde_json::json!("calld")),
        (
            "/cases/0/expect/w",
            serde_json::json!({"skipped": "selectors"}),
        ),
        (
            "/cases/0/expect/w",
            serde_json::json!({"skipped": {"condition": "a"}, "called": true}),
        ),
        ("/cases/0/dryRun", serde_json::json!("yes")),
        ("/cases/0/objekt", serde_json::json!("p.yaml")),
        ("/kubernetesVersion", serde_json::json!("1.x")),
    ] {
        let mut v = base.clone();
        let (parent, key) = path.rsplit_once('/').unwrap();
        v.pointer_mut(parent).unwrap()[key] = bad;
        assert!(!valid(&s, &v, &s), "{path}");
        let text = serde_json::to_string(&v).unwrap();
        assert!(load_test_file(&text).is_err(), "loader accepts {path}");
    }
}

/// The schema's authorizer rules have the fields the authorizer table reads (named by its
/// decoder's own complaint about an unknown one).
#[test]
fn the_schema_names_the_authorizer_rule_fields() {
    let s = schema();
    let rule = &s["$defs"]["authorizer"]["oneOf"];
    let object = rule
        .as_array()
        .unwrap()
        .iter()
        .find(|alt| alt["type"] == "object")
        .unwrap();
    let in_schema = keys(&object["properties"]["rules"]["items"]["properties"]);
    let e = serde_json::from_value::<matchcond::authz::AuthorizerTable>(
        serde_json::json!({"rules": [{"nope": 1}]}),
    )
    .unwrap_err()
    .to_string();
    let list = e
        .split("expected one of ")
        .nth(1)
        .unwrap()
        .split(" at ")
        .next()
        .unwrap();
    let mut read: Vec<String> = list
        .split(", ")
        .map(|f| f.trim_matches('`').to_owned())
        .collect();
    read.sort();
    assert_eq!(in_schema, read);
}
