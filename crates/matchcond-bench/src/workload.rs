//! Loading the benchmark workload: `conditions.yaml`, the condition sets,
//! `expected-outcomes.json` and the request files (raw bytes and parsed). The repository
//! keeps its own copy in `crates/matchcond-bench/workload` (compiled in: [`Workload::builtin`]);
//! any other directory in the same layout loads with [`Workload::load`].

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value as Json;

/// The sizes the large ConfigMap is truncated to for the growth measurements.
pub const GROWTH_KEYS: [usize; 4] = [64, 256, 1024, 4127];

/// The request whose `data` is truncated for the growth measurements.
pub const LARGE_CONFIGMAP: &str = "large-configmap-create";

/// The two conditions measured for growth with object size.
pub const GROWTH_CONDITIONS: [&str; 2] = [
    "configmap-keys-no-secret-prefix",
    "configmap-values-no-private-key",
];

/// Why the workload could not be loaded.
#[derive(Debug)]
pub struct LoadError {
    /// The file concerned.
    pub path: PathBuf,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for LoadError {}

fn load_error(path: &Path, message: impl fmt::Display) -> LoadError {
    LoadError {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

/// The expected `what` (outcome or decision) of each subject on each request, read from the
/// texts of `path` by `parse`.
fn parse_expected<T>(
    texts: &BTreeMap<String, BTreeMap<String, String>>,
    parse: fn(&str) -> Option<T>,
    what: &str,
    path: &Path,
) -> Result<BTreeMap<String, BTreeMap<String, T>>, LoadError> {
    let mut expected = BTreeMap::new();
    for (subject, by_req) in texts {
        let mut m = BTreeMap::new();
        for (r, s) in by_req {
            let v = parse(s).ok_or_else(|| {
                load_error(path, format!("{subject} on {r}: unknown {what} {s:?}"))
            })?;
            m.insert(r.clone(), v);
        }
        expected.insert(subject.clone(), m);
    }
    Ok(expected)
}

/// One condition of `conditions.yaml` (a `conditions` or `filler_conditions` entry).
#[derive(Clone, Debug, Deserialize)]
pub struct ConditionSpec {
    /// The unique name.
    pub name: String,
    /// The CEL expression.
    pub expression: String,
    /// What it shows.
    #[serde(default)]
    pub note: String,
    /// Whether it uses the `authorizer` variable.
    #[serde(default)]
    pub needs_authorizer: bool,
    /// Whether its cost grows with the object's size.
    #[serde(default)]
    pub heavy: bool,
    /// Whether it comes from `filler_conditions`.
    #[serde(skip)]
    pub filler: bool,
}

/// A condition's expected result on one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `true`.
    True,
    /// `false`.
    False,
    /// An evaluation error.
    Error,
}

impl Outcome {
    /// Reads `true`, `false` or `error…` (the texts of `expected-outcomes.json`).
    pub fn parse(s: &str) -> Option<Outcome> {
        match s {
            "true" => Some(Outcome::True),
            "false" => Some(Outcome::False),
            _ if s.starts_with("error") => Some(Outcome::Error),
            _ => None,
        }
    }

    /// The outcome of a result where `None` is an evaluation error.
    pub fn of(result: Option<bool>) -> Outcome {
        match result {
            Some(true) => Outcome::True,
            Some(false) => Outcome::False,
            None => Outcome::Error,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outcome::True => "true",
            Outcome::False => "false",
            Outcome::Error => "error",
        })
    }
}

/// The class of a condition set's decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecisionClass {
    /// Every condition is true: the webhook is called.
    Call,
    /// Some condition is false: the webhook is skipped.
    Skip,
    /// No condition is false and some failed: the webhook's failurePolicy decides.
    FailurePolicy,
}

impl DecisionClass {
    /// Reads `call`, `skip` or `failurePolicy`.
    pub fn parse(s: &str) -> Option<DecisionClass> {
        match s {
            "call" => Some(DecisionClass::Call),
            "skip" => Some(DecisionClass::Skip),
            "failurePolicy" => Some(DecisionClass::FailurePolicy),
            _ => None,
        }
    }

    /// The matcher's rule over the results of every condition (`None` = error): any false
    /// skips; otherwise any error leaves it to the failurePolicy; otherwise call.
    pub fn decide<I: IntoIterator<Item = Option<bool>>>(results: I) -> DecisionClass {
        let mut error = false;
        let mut skip = false;
        for r in results {
            match r {
                Some(false) => skip = true,
                None => error = true,
                Some(true) => {}
            }
        }
        if skip {
            DecisionClass::Skip
        } else if error {
            DecisionClass::FailurePolicy
        } else {
            DecisionClass::Call
        }
    }

    /// The class of an engine decision (with `FailurePolicy::Fail`, a rejection is the
    /// failurePolicy's answer).
    pub fn of_decision(d: &matchcond::Decision) -> DecisionClass {
        match d {
            matchcond::Decision::Call => DecisionClass::Call,
            matchcond::Decision::Skip { .. } => DecisionClass::Skip,
            matchcond::Decision::Reject { .. } => DecisionClass::FailurePolicy,
        }
    }
}

impl fmt::Display for DecisionClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DecisionClass::Call => "call",
            DecisionClass::Skip => "skip",
            DecisionClass::FailurePolicy => "failurePolicy",
        })
    }
}

/// One request file.
#[derive(Clone, Debug)]
pub struct Request {
    /// Its name (the file name without `.json`).
    pub name: String,
    /// The file's bytes (an AdmissionReview).
    pub raw: Vec<u8>,
    /// The AdmissionReview's `request`, parsed.
    pub request: Json,
}

/// A named condition set (one webhook's matchConditions, in order).
#[derive(Clone, Debug)]
pub struct ConditionSet {
    /// The set's name.
    pub name: String,
    /// The names of its conditions, in order.
    pub conditions: Vec<String>,
}

/// The whole workload.
#[derive(Clone, Debug)]
pub struct Workload {
    /// The directory it was loaded from.
    pub dir: PathBuf,
    /// The `conditions`, then the `filler_conditions`, in file order.
    pub conditions: Vec<ConditionSpec>,
    /// The condition sets, in file order.
    pub sets: Vec<ConditionSet>,
    /// The requests, in the order of `expected-outcomes.json`.
    pub requests: Vec<Request>,
    /// Expected outcome by condition, then request.
    pub expected_conditions: BTreeMap<String, BTreeMap<String, Outcome>>,
    /// Expected decision by set, then request.
    pub expected_sets: BTreeMap<String, BTreeMap<String, DecisionClass>>,
}

#[derive(Deserialize)]
struct ConditionsFile {
    conditions: Vec<ConditionSpec>,
    #[serde(default)]
    filler_conditions: Vec<ConditionSpec>,
    condition_sets: serde_yaml_ng::Mapping,
}

#[derive(Deserialize)]
struct ExpectedFile {
    requests: Vec<String>,
    conditions: BTreeMap<String, BTreeMap<String, String>>,
    condition_sets: BTreeMap<String, BTreeMap<String, String>>,
}

fn read(path: &Path) -> Result<Vec<u8>, LoadError> {
    std::fs::read(path).map_err(|e| load_error(path, e))
}

/// The workload kept in this repository (`crates/matchcond-bench/workload`), compiled into
/// the crate: relative path and bytes of each file [`Workload::load`] reads.
const BUILTIN: [(&str, &[u8]); 6] = [
    (
        "conditions.yaml",
        include_bytes!("../workload/conditions.yaml"),
    ),
    (
        "expected-outcomes.json",
        include_bytes!("../workload/expected-outcomes.json"),
    ),
    (
        "requests/configmap-delete.json",
        include_bytes!("../workload/requests/configmap-delete.json"),
    ),
    (
        "requests/deployment-update.json",
        include_bytes!("../workload/requests/deployment-update.json"),
    ),
    (
        "requests/large-configmap-create.json",
        include_bytes!("../workload/requests/large-configmap-create.json"),
    ),
    (
        "requests/pod-create.json",
        include_bytes!("../workload/requests/pod-create.json"),
    ),
];

/// The files of the built-in workload, as relative paths and bytes (for checking that the
/// repository's copy matches another one).
pub fn builtin_files() -> impl Iterator<Item = (&'static str, &'static [u8])> {
    BUILTIN.iter().copied()
}

/// The directory of the repository's own copy of the workload (what [`Workload::builtin`]
/// holds); it exists only in a checkout of the repository.
pub fn repository_workload_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("workload")
}

/// Whether `dir` holds a workload (a `conditions.yaml`).
pub fn is_workload_dir(dir: &Path) -> bool {
    dir.join("conditions.yaml").is_file()
}

/// Finds a workload: `start` itself when it holds one, else `shared/bench` beside `start`
/// or one of its ancestors (where the shared copy of the workload is kept).
pub fn find_workload_dir(start: &Path) -> Option<PathBuf> {
    if is_workload_dir(start) {
        return Some(start.to_path_buf());
    }
    start
        .ancestors()
        .map(|a| a.join("shared").join("bench"))
        .find(|d| is_workload_dir(d))
}

/// The shared copy of the workload (`../shared/bench` beside the repository), when present.
pub fn shared_workload_dir() -> Option<PathBuf> {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|a| a.join("shared").join("bench"))
        .find(|d| is_workload_dir(d))
}

impl Workload {
    /// Loads the workload of a directory.
    pub fn load(dir: &Path) -> Result<Workload, LoadError> {
        Workload::load_with(dir, |rel| read(&dir.join(rel)))
    }

    /// The workload kept in the repository, compiled into this crate: it needs no file.
    pub fn builtin() -> Result<Workload, LoadError> {
        let dir = PathBuf::from("crates/matchcond-bench/workload (built in)");
        Workload::load_with(&dir, |rel| {
            BUILTIN
                .iter()
                .find(|(p, _)| *p == rel)
                .map(|(_, b)| b.to_vec())
                .ok_or_else(|| load_error(&dir.join(rel), "not part of the built-in workload"))
        })
    }

    /// Loads a workload whose files `read` gives by relative path (`conditions.yaml`,
    /// `expected-outcomes.json`, `requests/<name>.json`); `dir` names it in errors.
    fn load_with(
        dir: &Path,
        read: impl Fn(&str) -> Result<Vec<u8>, LoadError>,
    ) -> Result<Workload, LoadError> {
        let cpath = dir.join("conditions.yaml");
        let file: ConditionsFile = serde_yaml_ng::from_slice(&read("conditions.yaml")?)
            .map_err(|e| load_error(&cpath, e))?;
        let mut conditions = file.conditions;
        conditions.extend(file.filler_conditions.into_iter().map(|mut c| {
            c.filler = true;
            c
        }));
        let mut sets = Vec::new();
        for (k, v) in &file.condition_sets {
            let name = k
                .as_str()
                .ok_or_else(|| load_error(&cpath, "a condition set name is not a string"))?;
            let names: Vec<String> = serde_yaml_ng::from_value(v.clone())
                .map_err(|e| load_error(&cpath, format!("condition set {name}: {e}")))?;
            for n in &names {
                if !conditions.iter().any(|c| &c.name == n) {
                    return Err(load_error(
                        &cpath,
                        format!("condition set {name}: unknown condition {n}"),
                    ));
                }
            }
            sets.push(ConditionSet {
                name: name.to_string(),
                conditions: names,
            });
        }

        let epath = dir.join("expected-outcomes.json");
        let expected: ExpectedFile = serde_json::from_slice(&read("expected-outcomes.json")?)
            .map_err(|e| load_error(&epath, e))?;
        let expected_conditions =
            parse_expected(&expected.conditions, Outcome::parse, "outcome", &epath)?;
        let expected_sets = parse_expected(
            &expected.condition_sets,
            DecisionClass::parse,
            "decision",
            &epath,
        )?;

        let mut requests = Vec::new();
        for name in &expected.requests {
            let rel = format!("requests/{name}.json");
            let raw = read(&rel)?;
            let request = request_of(&raw).map_err(|e| load_error(&dir.join(&rel), e))?;
            requests.push(Request {
                name: name.clone(),
                raw,
                request,
            });
        }
        Ok(Workload {
            dir: dir.to_path_buf(),
            conditions,
            sets,
            requests,
            expected_conditions,
            expected_sets,
        })
    }

    /// A condition by name.
    pub fn condition(&self, name: &str) -> Option<&ConditionSpec> {
        self.conditions.iter().find(|c| c.name == name)
    }

    /// A request by name.
    pub fn request(&self, name: &str) -> Option<&Request> {
        self.requests.iter().find(|r| r.name == name)
    }

    /// The conditions of a set, in order (an unknown name is left out; [`Workload::load`]
    /// rejects sets with unknown names).
    pub fn set_conditions(&self, set: &ConditionSet) -> Vec<&ConditionSpec> {
        set.conditions
            .iter()
            .filter_map(|n| self.condition(n))
            .collect()
    }

    /// The expected outcome of a condition on a request.
    pub fn expected_outcome(&self, condition: &str, request: &str) -> Option<Outcome> {
        self.expected_conditions
            .get(condition)
            .and_then(|m| m.get(request))
            .copied()
    }

    /// The expected decision of a set on a request.
    pub fn expected_decision(&self, set: &str, request: &str) -> Option<DecisionClass> {
        self.expected_sets
            .get(set)
            .and_then(|m| m.get(request))
            .copied()
    }

    /// The large ConfigMap request with `object.data` truncated to its first `keys` keys
    /// in sorted order (all of them when it has fewer), or `None` when the workload has no
    /// such request.
    pub fn truncated_configmap(&self, keys: usize) -> Option<Json> {
        self.request(LARGE_CONFIGMAP)
            .map(|r| truncate_data(&r.request, keys))
    }
}

/// The `request` of an AdmissionReview's bytes (what the engine and the baselines see).
pub fn request_of(raw: &[u8]) -> Result<Json, String> {
    let mut review: Json = serde_json::from_slice(raw).map_err(|e| e.to_string())?;
    match review.get_mut("request") {
        Some(r) if r.is_object() => Ok(r.take()),
        _ => Err("not an AdmissionReview with a request".to_string()),
    }
}

/// A copy of a request whose `object.data` keeps only its first `keys` keys in sorted
/// order.
pub fn truncate_data(request: &Json, keys: usize) -> Json {
    let mut out = request.clone();
    if let Some(Json::Object(data)) = out.get_mut("object").and_then(|o| o.get_mut("data")) {
        let mut names: Vec<String> = data.keys().cloned().collect();
        names.sort();
        for n in names.iter().skip(keys) {
            data.remove(n);
        }
    }
    out
}

/// The number of keys of a request's `object.data` and their total size in bytes (keys
/// plus string values).
pub fn data_size(request: &Json) -> (usize, usize) {
    match request.get("object").and_then(|o| o.get("data")) {
        Some(Json::Object(d)) => (
            d.len(),
            d.iter()
                .map(|(k, v)| k.len() + v.as_str().map_or(0, str::len))
                .sum(),
        ),
        _ => (0, 0),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn decide_rule() {
        use DecisionClass::*;
        assert_eq!(DecisionClass::decide([Some(true), Some(true)]), Call);
        assert_eq!(DecisionClass::decide([None, Some(false)]), Skip);
        assert_eq!(DecisionClass::decide([Some(true), None]), FailurePolicy);
        assert_eq!(DecisionClass::decide([]), Call);
    }

    #[test]
    fn outcome_texts() {
        assert_eq!(Outcome::parse("true"), Some(Outcome::True));
        assert_eq!(Outcome::parse("false"), Some(Outcome::False));
        assert_eq!(
            Outcome::parse("error: no such key: spec"),
            Some(Outcome::Error)
        );
        assert_eq!(Outcome::parse("maybe"), None);
    }

    #[test]
    fn truncation_keeps_the_first_sorted_keys() {
        let r = serde_json::json!({"object": {"data": {"c": "3", "a": "1", "b": "22"}}});
        let t = truncate_data(&r, 2);
        assert_eq!(
            t,
            serde_json::json!({"object": {"data": {"a": "1", "b": "22"}}})
        );
        assert_eq!(data_size(&t), (2, 5));
        assert_eq!(truncate_data(&r, 10), r);
    }

    #[test]
    fn request_of_rejects_non_reviews() {
        assert_eq!(
            request_of(br#"{"request": {"uid": "1"}}"#).unwrap(),
            serde_json::json!({"uid": "1"})
        );
        assert_eq!(
            request_of(b"[]").unwrap_err(),
            "not an AdmissionReview with a request"
        );
        assert!(request_of(b"{").is_err());
    }
}
