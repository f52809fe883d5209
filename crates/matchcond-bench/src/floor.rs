//! The floor: hand-written Rust doing the same checks as each workload condition on the
//! same parsed request (`serde_json::Value`), with CEL's semantics where the workload can
//! reach them (a field of `null` or a missing field is an error; `&&`/`||` absorb errors
//! when the other side decides; `all`/`exists` let a decisive element win over errors).
//!
//! It is meant to be honest: the same lookups as the expression writes them, the same
//! string comparisons, the regular expression compiled once beforehand, comprehensions
//! visiting the same elements. It allocates nothing per evaluation.
//!
//! A result is `Some(bool)`, or `None` for an evaluation error.

use regex::Regex;
use serde_json::Value as Json;

use crate::authz::{mock_allows, Check};
use crate::workload::{ConditionSpec, DecisionClass};

/// A floor check: a hand-written function, or one of the two filler shapes.
#[derive(Clone, Debug)]
pub enum FloorCheck {
    /// One of the named workload conditions.
    Named(Named),
    /// `request.namespace != '<namespace>'`.
    NamespaceNot(String),
    /// `!('<group>' in request.userInfo.groups)`.
    NotInGroup(String),
}

/// The named workload conditions that have a floor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Named {
    /// `exclude-leases`.
    ExcludeLeases,
    /// `exclude-kubelet-requests`.
    ExcludeKubeletRequests,
    /// `exclude-system-users`.
    ExcludeSystemUsers,
    /// `exclude-system-masters`.
    ExcludeSystemMasters,
    /// `exclude-kube-system`.
    ExcludeKubeSystem,
    /// `create-or-update-only`.
    CreateOrUpdateOnly,
    /// `not-dry-run`.
    NotDryRun,
    /// `label-opt-in-app-web`.
    LabelOptInAppWeb,
    /// `team-payments-optional`.
    TeamPaymentsOptional,
    /// `not-opted-out`.
    NotOptedOut,
    /// `images-from-trusted-registry`.
    ImagesFromTrustedRegistry,
    /// `has-privileged-container`.
    HasPrivilegedContainer,
    /// `create-only`.
    CreateOnly,
    /// `small-configmap`.
    SmallConfigmap,
    /// `corporate-human-user`.
    CorporateHumanUser,
    /// `configmap-keys-no-secret-prefix`.
    ConfigmapKeysNoSecretPrefix,
    /// `configmap-values-no-private-key`.
    ConfigmapValuesNoPrivateKey,
    /// `spec-changed`.
    SpecChanged,
    /// `authz-can-create-pods`.
    AuthzCanCreatePods,
    /// `authz-not-breakglass`.
    AuthzNotBreakglass,
}

/// Every named floor with the condition name and the exact expression it implements.
pub const NAMED: [(Named, &str, &str); 20] = [
    (Named::ExcludeLeases, "exclude-leases", r#"!(request.resource.group == "coordination.k8s.io" && request.resource.resource == "leases")"#),
    (Named::ExcludeKubeletRequests, "exclude-kubelet-requests", r#"!("system:nodes" in request.userInfo.groups)"#),
    (Named::ExcludeSystemUsers, "exclude-system-users", "!request.userInfo.username.startsWith('system:')"),
    (Named::ExcludeSystemMasters, "exclude-system-masters", "!('system:masters' in request.userInfo.groups)"),
    (Named::ExcludeKubeSystem, "exclude-kube-system", "request.namespace != 'kube-system'"),
    (Named::CreateOrUpdateOnly, "create-or-update-only", "request.operation in ['CREATE', 'UPDATE']"),
    (Named::NotDryRun, "not-dry-run", "request.dryRun != true"),
    (Named::LabelOptInAppWeb, "label-opt-in-app-web", "has(object.metadata.labels) && 'app' in object.metadata.labels && object.metadata.labels['app'] == 'web'"),
    (Named::TeamPaymentsOptional, "team-payments-optional", "object.?metadata.?labels['team'].orValue('') == 'payments'"),
    (Named::NotOptedOut, "not-opted-out", "object.?metadata.?annotations[?'admission.example.com/skip'].orValue('false') != 'true'"),
    (Named::ImagesFromTrustedRegistry, "images-from-trusted-registry", "object.spec.containers.all(c, c.image.startsWith('registry.example.com/'))"),
    (Named::HasPrivilegedContainer, "has-privileged-container", "object.spec.containers.exists(c, c.securityContext.?privileged.orValue(false))"),
    (Named::CreateOnly, "create-only", "oldObject == null"),
    (Named::SmallConfigmap, "small-configmap", "request.kind.kind != 'ConfigMap' || object == null || !has(object.data) || size(object.data) <= 256"),
    (Named::CorporateHumanUser, "corporate-human-user", r#"request.userInfo.username.matches("^[a-z0-9._-]+@example\\.com$")"#),
    (Named::ConfigmapKeysNoSecretPrefix, "configmap-keys-no-secret-prefix", "object == null || !has(object.data) || object.data.all(k, !k.startsWith('secret-'))"),
    (Named::ConfigmapValuesNoPrivateKey, "configmap-values-no-private-key", "object == null || !has(object.data) || !object.data.exists(k, object.data[k].contains('-----BEGIN PRIVATE KEY-----'))"),
    (Named::SpecChanged, "spec-changed", "request.operation != 'UPDATE' || object.spec != oldObject.spec"),
    (Named::AuthzCanCreatePods, "authz-can-create-pods", "authorizer.group('').resource('pods').namespace(request.namespace).check('create').allowed()"),
    (Named::AuthzNotBreakglass, "authz-not-breakglass", "!authorizer.group('admissionregistration.k8s.io').resource('validatingwebhookconfigurations').name('policy.example.com').check('breakglass').allowed()"),
];

/// The floor of deciding from an AdmissionReview's bytes: one `serde_json` pass over the
/// same bytes that only validates them (every token read, strings checked, nothing built).
/// Whatever an engine does from bytes, it reads them at least this once.
pub fn validate_raw(raw: &[u8]) -> bool {
    serde_json::from_slice::<serde::de::IgnoredAny>(raw).is_ok()
}

/// The regular expression of `corporate-human-user`.
pub const CORPORATE_USER_PATTERN: &str = r"^[a-z0-9._-]+@example\.com$";

impl FloorCheck {
    /// The floor of a condition: the named one whose name and expression match exactly,
    /// or a filler shape recognised from the expression; `None` when there is none.
    pub fn for_condition(name: &str, expression: &str) -> Option<FloorCheck> {
        if let Some((n, _, _)) = NAMED
            .iter()
            .find(|(_, nm, ex)| *nm == name && *ex == expression)
        {
            return Some(FloorCheck::Named(*n));
        }
        if let Some(ns) = expression
            .strip_prefix("request.namespace != '")
            .and_then(|r| r.strip_suffix('\''))
            .filter(|ns| !ns.contains('\'') && !ns.contains('\\'))
        {
            return Some(FloorCheck::NamespaceNot(ns.to_string()));
        }
        expression
            .strip_prefix("!('")
            .and_then(|r| r.strip_suffix("' in request.userInfo.groups)"))
            .filter(|g| !g.contains('\'') && !g.contains('\\'))
            .map(|g| FloorCheck::NotInGroup(g.to_string()))
    }
}

/// Hand-written checks for a list of conditions (one webhook), with the regular
/// expression compiled once.
#[derive(Clone, Debug)]
pub struct Floor {
    checks: Vec<FloorCheck>,
    corporate_user: Regex,
}

impl Floor {
    /// The floor of conditions, or the name of the first condition without one.
    pub fn new(conditions: &[&ConditionSpec]) -> Result<Floor, String> {
        let checks = conditions
            .iter()
            .map(|c| FloorCheck::for_condition(&c.name, &c.expression).ok_or(c.name.clone()))
            .collect::<Result<Vec<_>, _>>()?;
        let corporate_user = Regex::new(CORPORATE_USER_PATTERN).map_err(|e| e.to_string())?;
        Ok(Floor {
            checks,
            corporate_user,
        })
    }

    /// The checks, in order.
    pub fn checks(&self) -> &[FloorCheck] {
        &self.checks
    }

    /// Evaluates one check on a request.
    pub fn eval(&self, check: &FloorCheck, req: &Json) -> Option<bool> {
        match check {
            FloorCheck::Named(n) => self.named(*n, req),
            FloorCheck::NamespaceNot(ns) => request_string(req, "namespace").map(|v| v != ns),
            FloorCheck::NotInGroup(g) => user_groups(req).and_then(|l| in_list(l, g)).map(|b| !b),
        }
    }

    /// The result of every check on a request, in order.
    pub fn results<'s>(&'s self, req: &'s Json) -> impl Iterator<Item = Option<bool>> + 's {
        self.checks.iter().map(move |c| self.eval(c, req))
    }

    /// The decision: every check is evaluated, then any false skips, otherwise any error
    /// leaves it to the failurePolicy, otherwise call.
    pub fn decide(&self, req: &Json) -> DecisionClass {
        DecisionClass::decide(self.results(req))
    }

    /// The decision from an AdmissionReview's bytes (parse, take `request`, decide);
    /// `None` when the bytes are not an AdmissionReview.
    pub fn decide_raw(&self, raw: &[u8]) -> Option<DecisionClass> {
        let review: Json = serde_json::from_slice(raw).ok()?;
        review.get("request").map(|r| self.decide(r))
    }

    fn named(&self, n: Named, req: &Json) -> Option<bool> {
        match n {
            Named::ExcludeLeases => {
                let group = request_field(req, "resource")
                    .and_then(|r| field(r, "group"))
                    .map(|g| g == "coordination.k8s.io");
                not(and(group, || {
                    request_field(req, "resource")
                        .and_then(|r| field(r, "resource"))
                        .map(|r| r == "leases")
                }))
            }
            Named::ExcludeKubeletRequests => {
                not(user_groups(req).and_then(|l| in_list(l, "system:nodes")))
            }
            Named::ExcludeSystemUsers => not(request_field(req, "userInfo")
                .and_then(|u| field(u, "username"))
                .and_then(Json::as_str)
                .map(|s| s.starts_with("system:"))),
            Named::ExcludeSystemMasters => {
                not(user_groups(req).and_then(|l| in_list(l, "system:masters")))
            }
            Named::ExcludeKubeSystem => {
                request_string(req, "namespace").map(|v| v != "kube-system")
            }
            Named::CreateOrUpdateOnly => {
                request_field(req, "operation").map(|op| op == "CREATE" || op == "UPDATE")
            }
            Named::NotDryRun => match req.get("dryRun") {
                None => Some(true),
                Some(v) => Some(*v != Json::Bool(true)),
            },
            Named::LabelOptInAppWeb => {
                let obj = object(req, "object");
                let has = field(obj, "metadata").and_then(|m| has(m, "labels"));
                and(
                    and(has, || {
                        field(obj, "metadata")
                            .and_then(|m| field(m, "labels"))
                            .and_then(|l| in_value(l, "app"))
                    }),
                    || {
                        field(obj, "metadata")
                            .and_then(|m| field(m, "labels"))
                            .and_then(|l| index(l, "app"))
                            .map(|v| v == "web")
                    },
                )
            }
            Named::TeamPaymentsOptional => {
                let obj = object(req, "object");
                let team = opt_field(Some(obj), "metadata")
                    .and_then(|m| opt_field(m, "labels"))
                    .and_then(|l| opt_field(l, "team"))?;
                Some(string_or(team, "")? == "payments")
            }
            Named::NotOptedOut => {
                let obj = object(req, "object");
                let skip = opt_field(Some(obj), "metadata")
                    .and_then(|m| opt_field(m, "annotations"))
                    .and_then(|a| opt_field(a, "admission.example.com/skip"))?;
                Some(string_or(skip, "false")? != "true")
            }
            Named::ImagesFromTrustedRegistry => {
                let containers =
                    field(object(req, "object"), "spec").and_then(|s| field(s, "containers"))?;
                all(elements(containers)?, |c| {
                    c.field("image")
                        .and_then(Json::as_str)
                        .map(|i| i.starts_with("registry.example.com/"))
                })
            }
            Named::HasPrivilegedContainer => {
                let containers =
                    field(object(req, "object"), "spec").and_then(|s| field(s, "containers"))?;
                exists(elements(containers)?, |c| {
                    let p = opt_field(Some(c.field("securityContext")?), "privileged")?;
                    match p {
                        None => Some(false),
                        Some(Json::Bool(b)) => Some(*b),
                        Some(_) => None,
                    }
                })
            }
            Named::CreateOnly => Some(object(req, "oldObject").is_null()),
            Named::SmallConfigmap => {
                let not_cm = request_field(req, "kind")
                    .and_then(|k| field(k, "kind"))
                    .map(|k| k != "ConfigMap");
                or(
                    or(or(not_cm, || Some(object(req, "object").is_null())), || {
                        not(has(object(req, "object"), "data"))
                    }),
                    || {
                        field(object(req, "object"), "data")
                            .and_then(size)
                            .map(|s| s <= 256)
                    },
                )
            }
            Named::CorporateHumanUser => request_field(req, "userInfo")
                .and_then(|u| field(u, "username"))
                .and_then(Json::as_str)
                .map(|s| self.corporate_user.is_match(s)),
            Named::ConfigmapKeysNoSecretPrefix => or(
                or(Some(object(req, "object").is_null()), || {
                    not(has(object(req, "object"), "data"))
                }),
                || {
                    let data = field(object(req, "object"), "data")?;
                    all(elements(data)?, |k| {
                        k.as_str().map(|k| !k.starts_with("secret-"))
                    })
                },
            ),
            Named::ConfigmapValuesNoPrivateKey => or(
                or(Some(object(req, "object").is_null()), || {
                    not(has(object(req, "object"), "data"))
                }),
                || {
                    let data = field(object(req, "object"), "data")?;
                    not(exists(elements(data)?, |k| {
                        field(object(req, "object"), "data")
                            .and_then(|d| index(d, k.as_str()?))
                            .and_then(Json::as_str)
                            .map(|v| v.contains("-----BEGIN PRIVATE KEY-----"))
                    }))
                },
            ),
            Named::SpecChanged => or(
                request_field(req, "operation").map(|op| op != "UPDATE"),
                || {
                    let a = field(object(req, "object"), "spec")?;
                    let b = field(object(req, "oldObject"), "spec")?;
                    Some(!json_equal(a, b))
                },
            ),
            Named::AuthzCanCreatePods => {
                let ns = request_string(req, "namespace")?;
                Some(authorize(
                    req,
                    Check {
                        verb: "create",
                        group: "",
                        resource: "pods",
                        namespace: ns,
                    },
                ))
            }
            Named::AuthzNotBreakglass => Some(!authorize(
                req,
                Check {
                    verb: "breakglass",
                    group: "admissionregistration.k8s.io",
                    resource: "validatingwebhookconfigurations",
                    namespace: "",
                },
            )),
        }
    }
}

/// An element of a comprehension's range: a list element, or a map's key (a string).
#[derive(Clone, Copy)]
enum Elem<'a> {
    Value(&'a Json),
    Key(&'a str),
}

impl<'a> Elem<'a> {
    /// `e.f`: a field of a map element; an error on anything else.
    fn field(self, f: &str) -> Option<&'a Json> {
        match self {
            Elem::Value(v) => field(v, f),
            Elem::Key(_) => None,
        }
    }

    /// The element as a string.
    fn as_str(self) -> Option<&'a str> {
        match self {
            Elem::Value(v) => v.as_str(),
            Elem::Key(k) => Some(k),
        }
    }
}

/// The iteration of a comprehension's range.
enum Elements<'a> {
    List(std::slice::Iter<'a, Json>),
    Keys(serde_json::map::Keys<'a>),
}

impl<'a> Iterator for Elements<'a> {
    type Item = Elem<'a>;
    fn next(&mut self) -> Option<Elem<'a>> {
        match self {
            Elements::List(it) => it.next().map(Elem::Value),
            Elements::Keys(it) => it.next().map(|k| Elem::Key(k.as_str())),
        }
    }
}

/// The range of a comprehension: a list's elements or a map's keys; an error otherwise.
fn elements(range: &Json) -> Option<Elements<'_>> {
    match range {
        Json::Array(a) => Some(Elements::List(a.iter())),
        Json::Object(m) => Some(Elements::Keys(m.keys())),
        _ => None,
    }
}

/// `range.all(x, pred)`: stops at the first false, which wins over errors.
fn all<'a>(range: Elements<'a>, mut pred: impl FnMut(Elem<'a>) -> Option<bool>) -> Option<bool> {
    let mut error = false;
    for x in range {
        match pred(x) {
            Some(false) => return Some(false),
            None => error = true,
            Some(true) => {}
        }
    }
    (!error).then_some(true)
}

/// `range.exists(x, pred)`: stops at the first true, which wins over errors.
fn exists<'a>(range: Elements<'a>, mut pred: impl FnMut(Elem<'a>) -> Option<bool>) -> Option<bool> {
    let mut error = false;
    for x in range {
        match pred(x) {
            Some(true) => return Some(true),
            None => error = true,
            Some(false) => {}
        }
    }
    (!error).then_some(false)
}

/// `a && b` with CEL's error absorption (`None` is an error).
fn and(a: Option<bool>, b: impl FnOnce() -> Option<bool>) -> Option<bool> {
    if a == Some(false) {
        return Some(false);
    }
    match (a, b()) {
        (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

/// `a || b` with CEL's error absorption.
fn or(a: Option<bool>, b: impl FnOnce() -> Option<bool>) -> Option<bool> {
    if a == Some(true) {
        return Some(true);
    }
    match (a, b()) {
        (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }
}

fn not(a: Option<bool>) -> Option<bool> {
    a.map(|b| !b)
}

/// `v.f`: a field of a map; an error on anything else or a missing key.
fn field<'a>(v: &'a Json, f: &str) -> Option<&'a Json> {
    match v {
        Json::Object(m) => m.get(f),
        _ => None,
    }
}

/// `v[k]` with a string key.
fn index<'a>(v: &'a Json, k: &str) -> Option<&'a Json> {
    field(v, k)
}

/// `has(v.f)`: an error unless `v` is a map.
fn has(v: &Json, f: &str) -> Option<bool> {
    match v {
        Json::Object(m) => Some(m.contains_key(f)),
        _ => None,
    }
}

/// `k in v` for a string `k`: list membership or map key presence.
fn in_value(v: &Json, k: &str) -> Option<bool> {
    match v {
        Json::Object(m) => Some(m.contains_key(k)),
        Json::Array(a) => Some(a.iter().any(|x| x == k)),
        _ => None,
    }
}

fn in_list(v: &Json, k: &str) -> Option<bool> {
    in_value(v, k)
}

/// `size(v)`.
fn size(v: &Json) -> Option<i64> {
    let n = match v {
        Json::Object(m) => m.len(),
        Json::Array(a) => a.len(),
        Json::String(s) => s.chars().count(),
        _ => return None,
    };
    i64::try_from(n).ok()
}

/// `x.?f` on an optional `x` (`None` = `optional.none()`): a map's field if present;
/// `null` yields none; anything else is an error (outer `None`).
fn opt_field<'a>(v: Option<&'a Json>, f: &str) -> Option<Option<&'a Json>> {
    match v {
        None | Some(Json::Null) => Some(None),
        Some(Json::Object(m)) => Some(m.get(f)),
        Some(_) => None,
    }
}

/// `opt.orValue(default)` where the value must be a string to compare with one.
fn string_or<'a>(v: Option<&'a Json>, default: &'a str) -> Option<&'a str> {
    match v {
        None => Some(default),
        Some(Json::String(s)) => Some(s),
        // Another type compares unequal with a string; model it as a value that is not
        // equal to the literal compared with.
        Some(_) => Some("\u{0}"),
    }
}

/// `object` / `oldObject`: the request's node, `null` when absent.
fn object<'a>(req: &'a Json, name: &str) -> &'a Json {
    req.get(name).unwrap_or(&Json::Null)
}

/// `request.f`.
fn request_field<'a>(req: &'a Json, f: &str) -> Option<&'a Json> {
    field(req, f)
}

/// `request.f` for a string field that is `omitempty` (an empty one is absent).
fn request_string<'a>(req: &'a Json, f: &str) -> Option<&'a str> {
    request_field(req, f)
        .and_then(Json::as_str)
        .filter(|s| !s.is_empty())
}

fn user_groups(req: &Json) -> Option<&Json> {
    request_field(req, "userInfo").and_then(|u| field(u, "groups"))
}

/// The mock authorizer's decision for the request's user.
fn authorize(req: &Json, check: Check<'_>) -> bool {
    let user = req.get("userInfo");
    let name = user
        .and_then(|u| u.get("username"))
        .and_then(Json::as_str)
        .unwrap_or("");
    let groups = user
        .and_then(|u| u.get("groups"))
        .and_then(Json::as_array)
        .map(|g| g.as_slice())
        .unwrap_or(&[]);
    mock_allows(name, groups.iter().filter_map(Json::as_str), Some(check))
}

/// CEL equality of two JSON values (numbers compare by value across int and double).
pub fn json_equal(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| json_equal(v, w))
        }
        (Json::Number(x), Json::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i == j,
            _ => x.as_f64() == y.as_f64(),
        },
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
    use super::*;
    use serde_json::json;

    #[test]
    fn filler_shapes_come_from_the_expression() {
        assert!(matches!(
            FloorCheck::for_condition("x", "request.namespace != 'tenant-01'"),
            Some(FloorCheck::NamespaceNot(ns)) if ns == "tenant-01"
        ));
        assert!(matches!(
            FloorCheck::for_condition("x", "!('a-admins' in request.userInfo.groups)"),
            Some(FloorCheck::NotInGroup(g)) if g == "a-admins"
        ));
        assert!(FloorCheck::for_condition("x", "request.namespace != 'a' || true").is_none());
        // A named floor needs its exact expression.
        assert!(FloorCheck::for_condition("create-only", "oldObject != null").is_none());
        assert!(matches!(
            FloorCheck::for_condition("create-only", "oldObject == null"),
            Some(FloorCheck::Named(Named::CreateOnly))
        ));
    }

    fn eval(name: &str, req: &Json) -> Option<bool> {
        let (_, n, e) = NAMED.iter().find(|(_, n, _)| *n == name).unwrap();
        let spec = ConditionSpec {
            name: n.to_string(),
            expression: e.to_string(),
            note: String::new(),
            needs_authorizer: false,
            heavy: false,
            filler: false,
        };
        let f = Floor::new(&[&spec]).unwrap();
        f.eval(&f.checks()[0], req)
    }

    #[test]
    fn cel_semantics_of_the_floor() {
        // A field of null is an error; `&&` lets a later false win over it.
        assert_eq!(eval("label-opt-in-app-web", &json!({})), None);
        assert_eq!(
            eval("label-opt-in-app-web", &json!({"object": {"metadata": {}}})),
            Some(false)
        );
        assert_eq!(
            eval(
                "label-opt-in-app-web",
                &json!({"object": {"metadata": {"labels": {"app": "web"}}}})
            ),
            Some(true)
        );
        // `.?` on null is optional.none().
        assert_eq!(eval("team-payments-optional", &json!({})), Some(false));
        assert_eq!(eval("team-payments-optional", &json!({"object": 1})), None);
        assert_eq!(
            eval(
                "team-payments-optional",
                &json!({"object": {"metadata": {"labels": {"team": "payments"}}}})
            ),
            Some(true)
        );
        // all: a false element wins over an error.
        let pod = |cs: Json| json!({"object": {"spec": {"containers": cs}}});
        assert_eq!(
            eval(
                "images-from-trusted-registry",
                &pod(json!([{}, {"image": "docker.io/x"}]))
            ),
            Some(false)
        );
        assert_eq!(
            eval(
                "images-from-trusted-registry",
                &pod(json!([{}, {"image": "registry.example.com/x"}]))
            ),
            None
        );
        assert_eq!(
            eval(
                "has-privileged-container",
                &pod(json!([{}, {"securityContext": {"privileged": true}}]))
            ),
            Some(true)
        );
        assert_eq!(
            eval(
                "has-privileged-container",
                &pod(json!([{"securityContext": {}}]))
            ),
            Some(false)
        );
        assert_eq!(eval("not-dry-run", &json!({})), Some(true));
        assert_eq!(eval("not-dry-run", &json!({"dryRun": true})), Some(false));
        assert_eq!(
            eval(
                "spec-changed",
                &json!({"operation": "UPDATE", "object": {"spec": {"a": 1}}, "oldObject": {"spec": {"a": 1.0}}})
            ),
            Some(false)
        );
        assert_eq!(
            eval(
                "configmap-values-no-private-key",
                &json!({"object": {"data": {"a": "x", "b": "-----BEGIN PRIVATE KEY-----"}}})
            ),
            Some(false)
        );
        assert_eq!(
            eval(
                "configmap-keys-no-secret-prefix",
                &json!({"object": {"data": {"secret-a": "x"}}})
            ),
            Some(false)
        );
        assert_eq!(
            eval(
                "corporate-human-user",
                &json!({"userInfo": {"username": "bob@example.com"}})
            ),
            Some(true)
        );
        assert_eq!(eval("exclude-kube-system", &json!({"namespace": ""})), None);
    }
}
