//! The `request` variable in terms of the request's JSON: the members of the
//! AdmissionRequest the apiserver builds for matchConditions ([`REQUEST_FIELDS`]), and the
//! JSON node each of them shows for a given request ([`request_view_field`]). The values
//! built on these nodes are [`crate::value`]'s; the structures inside a member are
//! [`crate::request_parts`]'.

use std::sync::LazyLock;

use serde_json::Value as Json;

/// The members of the `request` view, by index (see [`request_field_index`]): the members
/// of the AdmissionRequest the apiserver builds for matchConditions, converted to
/// unstructured. Which of them a given request shows, and with what value, is
/// [`Activation::request_field`](crate::Activation::request_field)'s answer.
pub const REQUEST_FIELDS: [&str; 15] = [
    "dryRun",
    "kind",
    "name",
    "namespace",
    "object",
    "oldObject",
    "operation",
    "options",
    "requestKind",
    "requestResource",
    "requestSubResource",
    "resource",
    "subResource",
    "uid",
    "userInfo",
];

/// The indexes of [`REQUEST_FIELDS`] by name.
pub mod request_fields {
    /// `dryRun`.
    pub const DRY_RUN: usize = 0;
    /// `kind`.
    pub const KIND: usize = 1;
    /// `name`.
    pub const NAME: usize = 2;
    /// `namespace`.
    pub const NAMESPACE: usize = 3;
    /// `object` (always null in the view).
    pub const OBJECT: usize = 4;
    /// `oldObject` (always null in the view).
    pub const OLD_OBJECT: usize = 5;
    /// `operation`.
    pub const OPERATION: usize = 6;
    /// `options`.
    pub const OPTIONS: usize = 7;
    /// `requestKind`.
    pub const REQUEST_KIND: usize = 8;
    /// `requestResource`.
    pub const REQUEST_RESOURCE: usize = 9;
    /// `requestSubResource`.
    pub const REQUEST_SUB_RESOURCE: usize = 10;
    /// `resource`.
    pub const RESOURCE: usize = 11;
    /// `subResource`.
    pub const SUB_RESOURCE: usize = 12;
    /// `uid` (always empty in the view).
    pub const UID: usize = 13;
    /// `userInfo`.
    pub const USER_INFO: usize = 14;
}

/// The index of an AdmissionRequest field in [`REQUEST_FIELDS`].
pub fn request_field_index(name: &str) -> Option<usize> {
    use request_fields as f;
    Some(match name {
        "dryRun" => f::DRY_RUN,
        "kind" => f::KIND,
        "name" => f::NAME,
        "namespace" => f::NAMESPACE,
        "object" => f::OBJECT,
        "oldObject" => f::OLD_OBJECT,
        "operation" => f::OPERATION,
        "options" => f::OPTIONS,
        "requestKind" => f::REQUEST_KIND,
        "requestResource" => f::REQUEST_RESOURCE,
        "requestSubResource" => f::REQUEST_SUB_RESOURCE,
        "resource" => f::RESOURCE,
        "subResource" => f::SUB_RESOURCE,
        "uid" => f::UID,
        "userInfo" => f::USER_INFO,
        _ => return None,
    })
}

/// A member of a JSON object, by name.
///
/// `serde_json`'s map is a B-tree whose search compares the name with each key it passes
/// (a byte comparison call per key). For the objects of a request — a dozen or so members —
/// scanning the entries, comparing bytes only for keys of the same length, finds a member
/// with a fraction of the work (and does not depend on the map's order); larger objects are
/// searched as a B-tree.
pub fn json_member<'m>(map: &'m serde_json::Map<String, Json>, name: &str) -> Option<&'m Json> {
    /// Up to this many members, scan.
    const SCAN_UP_TO: usize = 16;
    if map.len() > SCAN_UP_TO {
        return map.get(name);
    }
    let wanted = name.as_bytes();
    map.iter()
        .find(|(k, _)| k.len() == wanted.len() && k.as_bytes() == wanted)
        .map(|(_, v)| v)
}

/// `null`, for the members of the `request` view that are null (`object`, `oldObject`, an
/// absent `options`).
static JSON_NULL: Json = Json::Null;

/// `""`, for the `request` view's `uid` and an absent `operation`.
static JSON_EMPTY_STRING: Json = Json::String(String::new());

/// `false`, for the `dryRun` of a request that does not say.
static JSON_FALSE: Json = Json::Bool(false);

/// The zero `GroupVersionKind`, for a request without `kind` or `requestKind`.
static ZERO_GVK: LazyLock<Json> =
    LazyLock::new(|| serde_json::json!({"group": "", "version": "", "kind": ""}));

/// The zero `GroupVersionResource`, for a request without `resource` or `requestResource`.
static ZERO_GVR: LazyLock<Json> =
    LazyLock::new(|| serde_json::json!({"group": "", "version": "", "resource": ""}));

/// The zero `UserInfo` (every member `omitempty`), for a request without `userInfo`.
static EMPTY_OBJECT: LazyLock<Json> = LazyLock::new(|| Json::Object(serde_json::Map::new()));

/// The `dryRun` the `request` view shows for the request's own `dryRun` member: a boolean
/// as given, `false` otherwise.
pub(crate) fn request_dry_run_node(given: Option<&Json>) -> &Json {
    match given {
        Some(b @ Json::Bool(_)) => b,
        _ => &JSON_FALSE,
    }
}

/// A member of an AdmissionRequest view by its [`REQUEST_FIELDS`] index,
/// as the apiserver builds `request` for matchConditions (`CreateAdmissionRequest` from the
/// admission attributes, converted to unstructured): `None` when the view has no such member.
///
/// - `uid` is always `""` (the review's uid is not the attributes'), `object` and
///   `oldObject` always `null`, `options` `null` when the request has none, `dryRun` `false`
///   unless the request says `true`;
/// - `kind` is the kind the webhook sees (the converted kind), while `resource`,
///   `requestResource`, `requestKind` and the subresources are the original request's
///   (`requestResource` of the review, which differs from its `resource` when the request was
///   converted to the webhook's version);
/// - struct members are present at their zero values when the request lacks them
///   (`{"group": "", "version": "", "kind": ""}`, `""`, `{}`); the `omitempty` strings
///   (`name`, `namespace`, `subResource`, `requestSubResource`) are absent when empty.
///
/// A member given as `null` reads as absent (as Go decodes it); a review lacking
/// `requestKind`/`requestResource` was not converted, so the one stands for the other.
pub(crate) fn request_view_field(m: &serde_json::Map<String, Json>, index: usize) -> Option<&Json> {
    use request_fields as f;
    let given = |k: &str| json_member(m, k).filter(|v| !v.is_null());
    let non_empty = |k: &str| given(k).filter(|v| !matches!(v, Json::String(s) if s.is_empty()));
    match index {
        f::DRY_RUN => Some(request_dry_run_node(json_member(m, "dryRun"))),
        f::KIND => Some(
            given("kind")
                .or_else(|| given("requestKind"))
                .unwrap_or(&ZERO_GVK),
        ),
        f::REQUEST_KIND => Some(
            given("requestKind")
                .or_else(|| given("kind"))
                .unwrap_or(&ZERO_GVK),
        ),
        f::RESOURCE | f::REQUEST_RESOURCE => Some(
            given("requestResource")
                .or_else(|| given("resource"))
                .unwrap_or(&ZERO_GVR),
        ),
        f::SUB_RESOURCE | f::REQUEST_SUB_RESOURCE => {
            non_empty("requestSubResource").or_else(|| non_empty("subResource"))
        }
        f::NAME => non_empty("name"),
        f::NAMESPACE => non_empty("namespace"),
        f::OBJECT | f::OLD_OBJECT => Some(&JSON_NULL),
        f::OPERATION => Some(given("operation").unwrap_or(&JSON_EMPTY_STRING)),
        f::OPTIONS => Some(given("options").unwrap_or(&JSON_NULL)),
        f::UID => Some(&JSON_EMPTY_STRING),
        f::USER_INFO => Some(given("userInfo").unwrap_or(&EMPTY_OBJECT)),
        _ => None,
    }
}

/// A field of an AdmissionRequest view, as a JSON node.
pub(crate) fn request_field<'a>(m: &'a serde_json::Map<String, Json>, k: &str) -> Option<&'a Json> {
    request_view_field(m, request_field_index(k)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_member_finds_what_the_map_finds() {
        let keys = [
            "",
            "a",
            "app",
            "app.kubernetes.io/name",
            "apps",
            "b",
            "dryRun",
            "kind",
            "name",
            "namespace",
            "object",
            "oldObject",
            "Z",
            "é",
            "éa",
            "zz",
            "~",
        ];
        let probes = [
            "",
            "a",
            "ap",
            "app",
            "apps",
            "appt",
            "b",
            "c",
            "name",
            "namespac",
            "namespace",
            "namespaces",
            "oldObject",
            "Z",
            "é",
            "éa",
            "ê",
            "zz",
            "~",
            "\u{7f}",
            "\u{10ffff}",
        ];
        // Every prefix of the key list: small maps (scanned) and larger ones.
        for n in 0..=keys.len() {
            let mut map = serde_json::Map::new();
            for (i, k) in keys.iter().take(n).enumerate() {
                map.insert((*k).to_string(), Json::from(i));
            }
            for extra in 0..(if n == keys.len() { 20 } else { 0 }) {
                map.insert(format!("extra-{extra:02}"), Json::from(100 + extra));
            }
            for p in probes.iter().chain(keys.iter()) {
                assert_eq!(json_member(&map, p), map.get(*p), "{p:?} in {n} keys");
            }
        }
    }
}
