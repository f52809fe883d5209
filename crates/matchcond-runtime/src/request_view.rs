//! The `request` variable in terms of the request's JSON: the members of the
//! AdmissionRequest the apiserver builds for matchConditions ([`REQUEST_FIELDS`]), and the
//! JSON node each of them shows for a given request ([`RequestView::field`]). Both derive
//! from [`crate::request_schema`]: the members are its declared and undeclared ones, and
//! what a member shows when empty or absent is its [`WhenEmpty`] rule. What is this
//! module's own is where each member is read from (a converted request's original resource
//! and kind). The values built on these nodes are [`crate::value`]'s; the structures inside
//! a member are [`crate::request_parts`]'.

use std::sync::LazyLock;

use serde_json::Value as Json;

use crate::request_schema::{
    request_members, sorted_names, str_eq, Member, MemberType, WhenEmpty, DECLARED_TYPES,
    UNDECLARED_REQUEST_MEMBERS,
};

/// The number of members of the `request` view.
const FIELD_COUNT: usize = request_members().len() + UNDECLARED_REQUEST_MEMBERS.len();

/// The members of the `request` view, by index (see [`request_field_index`]): the members
/// of the AdmissionRequest the apiserver builds for matchConditions, converted to
/// unstructured — the schema's declared and undeclared members, in the order of a JSON
/// object's keys. Which of them a given request shows, and with what value, is
/// [`Activation::request_field`](crate::Activation::request_field)'s answer.
pub const REQUEST_FIELDS: [&str; FIELD_COUNT] =
    sorted_names(request_members(), &UNDECLARED_REQUEST_MEMBERS);

/// The index of a member in [`REQUEST_FIELDS`], at compile time (a name that is not a
/// member fails the build).
#[allow(clippy::indexing_slicing)] // evaluated at compile time: a bad index fails the build
const fn const_field_index(name: &str) -> usize {
    let mut i = 0;
    while i < REQUEST_FIELDS.len() {
        if str_eq(REQUEST_FIELDS[i], name) {
            return i;
        }
        i += 1;
    }
    assert!(i < REQUEST_FIELDS.len(), "not a member of the request");
    i
}

/// The indexes of [`REQUEST_FIELDS`] by name.
pub mod request_fields {
    use super::const_field_index as at;
    /// `dryRun`.
    pub const DRY_RUN: usize = at("dryRun");
    /// `kind`.
    pub const KIND: usize = at("kind");
    /// `name`.
    pub const NAME: usize = at("name");
    /// `namespace`.
    pub const NAMESPACE: usize = at("namespace");
    /// `object` (always null in the view).
    pub const OBJECT: usize = at("object");
    /// `oldObject` (always null in the view).
    pub const OLD_OBJECT: usize = at("oldObject");
    /// `operation`.
    pub const OPERATION: usize = at("operation");
    /// `options`.
    pub const OPTIONS: usize = at("options");
    /// `requestKind`.
    pub const REQUEST_KIND: usize = at("requestKind");
    /// `requestResource`.
    pub const REQUEST_RESOURCE: usize = at("requestResource");
    /// `requestSubResource`.
    pub const REQUEST_SUB_RESOURCE: usize = at("requestSubResource");
    /// `resource`.
    pub const RESOURCE: usize = at("resource");
    /// `subResource`.
    pub const SUB_RESOURCE: usize = at("subResource");
    /// `uid` (always empty in the view).
    pub const UID: usize = at("uid");
    /// `userInfo`.
    pub const USER_INFO: usize = at("userInfo");
}

/// What the schema says of a member of the view.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Shape {
    /// A declared member.
    Declared(Member),
    /// An undeclared member, always at the zero value of its type.
    Undeclared(MemberType),
}

impl Shape {
    /// The member's type.
    pub(crate) const fn ty(self) -> MemberType {
        match self {
            Shape::Declared(m) => m.ty,
            Shape::Undeclared(t) => t,
        }
    }
}

/// The schema of each member of the view, by [`REQUEST_FIELDS`] index, at compile time.
#[allow(clippy::indexing_slicing)] // evaluated at compile time: a bad index fails the build
const fn shapes() -> [Shape; FIELD_COUNT] {
    let mut out = [Shape::Undeclared(MemberType::Dyn); FIELD_COUNT];
    let mut i = 0;
    while i < FIELD_COUNT {
        let name = REQUEST_FIELDS[i];
        let mut declared: &[Member] = request_members();
        while let [m, rest @ ..] = declared {
            if str_eq(m.name, name) {
                out[i] = Shape::Declared(*m);
            }
            declared = rest;
        }
        let mut undeclared: &[(&str, MemberType)] = &UNDECLARED_REQUEST_MEMBERS;
        while let [(n, t), rest @ ..] = undeclared {
            if str_eq(n, name) {
                out[i] = Shape::Undeclared(*t);
            }
            undeclared = rest;
        }
        i += 1;
    }
    out
}

/// [`shapes`], computed once.
pub(crate) const SHAPES: [Shape; FIELD_COUNT] = shapes();

/// The index of an AdmissionRequest field in [`REQUEST_FIELDS`].
pub fn request_field_index(name: &str) -> Option<usize> {
    let wanted = name.as_bytes();
    REQUEST_FIELDS
        .iter()
        .position(|f| f.len() == wanted.len() && f.as_bytes() == wanted)
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
        .find(|(k, _)| k.len() == wanted.len() && same_name(k.as_bytes(), wanted))
        .map(|(_, v)| v)
}

/// `memchr`'s comparison of short strings (no call to `memcmp`), out of line: inlined,
/// the scan's loop compiles larger and slower.
#[inline(never)]
fn same_name(a: &[u8], b: &[u8]) -> bool {
    memchr::arch::all::is_equal(a, b)
}

/// `null`, the zero of `dyn`.
static JSON_NULL: Json = Json::Null;
/// `""`, the zero of `string`.
static JSON_EMPTY_STRING: Json = Json::String(String::new());
/// `false`, the zero of `bool`.
static JSON_FALSE: Json = Json::Bool(false);
/// `[]`, the zero of a list.
static JSON_EMPTY_LIST: Json = Json::Array(Vec::new());
/// The zeros of the other types (maps and the declared object types), built once.
static OTHER_ZEROS: LazyLock<[Json; DECLARED_TYPES.len() + 1]> = LazyLock::new(|| {
    let mut zeros: [Json; DECLARED_TYPES.len() + 1] = Default::default();
    for (z, t) in zeros.iter_mut().zip(DECLARED_TYPES) {
        *z = MemberType::Object(t.name).zero();
    }
    if let Some(z) = zeros.last_mut() {
        *z = MemberType::StringListMap.zero();
    }
    zeros
});

/// The zero value of a type, as a JSON node ([`MemberType::zero`]).
pub(crate) fn zero_node(ty: MemberType) -> &'static Json {
    let other = |i: Option<usize>| i.and_then(|i| OTHER_ZEROS.get(i)).unwrap_or(&JSON_NULL);
    match ty {
        MemberType::String => &JSON_EMPTY_STRING,
        MemberType::Bool => &JSON_FALSE,
        MemberType::Dyn => &JSON_NULL,
        MemberType::StringList => &JSON_EMPTY_LIST,
        MemberType::StringListMap => other(Some(DECLARED_TYPES.len())),
        MemberType::Object(name) => other(DECLARED_TYPES.iter().position(|t| t.name == name)),
    }
}

/// What a member shows for the node the request gives it (`None` when absent): the node
/// when [`Member::shows_given`], else nothing ([`WhenEmpty::Omitted`]) or its zero value.
pub(crate) fn shown<'j>(member: &Member, given: Option<&'j Json>) -> Option<&'j Json> {
    match given {
        Some(j) if member.shows_given(Some(j)) => Some(j),
        _ => match member.when_empty {
            WhenEmpty::Omitted => None,
            _ => Some(zero_node(member.ty)),
        },
    }
}

/// Where the view reads a member: the request's own member, except for what a converted
/// request (sent to a webhook of another version) gives twice. `resource` is the original
/// request's (`requestResource`, which differs from the review's `resource` when the request
/// was converted), as are the subresources; `kind` is the kind the webhook sees (the review's
/// `kind`). A review lacking `requestKind`/`requestResource` was not converted, so the one
/// stands for the other.
fn sources(index: usize) -> (Option<&'static str>, Option<&'static str>) {
    use request_fields as f;
    match index {
        f::KIND => (Some("kind"), Some("requestKind")),
        f::REQUEST_KIND => (Some("requestKind"), Some("kind")),
        f::RESOURCE | f::REQUEST_RESOURCE => (Some("requestResource"), Some("resource")),
        f::SUB_RESOURCE | f::REQUEST_SUB_RESOURCE => {
            (Some("requestSubResource"), Some("subResource"))
        }
        _ => (REQUEST_FIELDS.get(index).copied(), None),
    }
}

/// The members of the request JSON that member `index` of the view is read from (see
/// [`RequestView::field`]): its own and, for what a converted request gives twice, the other
/// one (`kind` and `requestKind`, `resource` and `requestResource`, the subresources). A
/// reader that builds only some members of a request builds all of these for a member read.
pub fn request_field_sources(index: usize) -> [Option<&'static str>; 2] {
    let (first, second) = sources(index);
    [first, second]
}

/// A member of an AdmissionRequest view by its [`REQUEST_FIELDS`] index,
/// as the apiserver builds `request` for matchConditions (`CreateAdmissionRequest` from the
/// admission attributes, converted to unstructured): `None` when the view has no such member.
///
/// - the undeclared members (`uid`, `object`, `oldObject`) are always their zero values;
/// - a declared member is read from its [`sources`] in turn, the first one the schema shows
///   as given winning; when none does, an omitted member is absent and any other is its
///   zero value (`{"group": "", "version": "", "kind": ""}`, `""`, `{}`, `false`, `null`).
///
/// A member given as `null` reads as absent (as Go decodes it).
pub(crate) fn request_view_field(m: &serde_json::Map<String, Json>, index: usize) -> Option<&Json> {
    match SHAPES.get(index)? {
        Shape::Undeclared(ty) => Some(zero_node(*ty)),
        Shape::Declared(member) => {
            let (first, second) = sources(index);
            let read = |k: Option<&str>| {
                k.and_then(|k| json_member(m, k))
                    .filter(|j| member.shows_given(Some(j)))
            };
            match read(first).or_else(|| read(second)) {
                Some(j) => Some(j),
                None => shown(member, None),
            }
        }
    }
}

/// An AdmissionRequest seen as the `request` variable: the request's JSON through the
/// schema, with the kind the webhook sees when the host gives it (a request converted to an
/// equivalent resource's version under `matchPolicy: Equivalent`).
#[derive(Clone, Copy, Debug)]
pub struct RequestView<'a> {
    map: &'a serde_json::Map<String, Json>,
    kind: Option<&'a Json>,
}

impl<'a> RequestView<'a> {
    /// The view of a request: every member as the apiserver shows it (see `request_view_field`).
    pub fn new(map: &'a serde_json::Map<String, Json>) -> Self {
        RequestView { map, kind: None }
    }

    /// The view of a request whose `kind` is the given node (the kind a webhook is invoked
    /// with) instead of the request's.
    pub fn with_kind(map: &'a serde_json::Map<String, Json>, kind: Option<&'a Json>) -> Self {
        RequestView { map, kind }
    }

    /// The request's JSON object.
    pub fn json(&self) -> &'a serde_json::Map<String, Json> {
        self.map
    }

    /// A member by [`REQUEST_FIELDS`] index: `None` when the view has no such member.
    pub fn field(&self, index: usize) -> Option<&'a Json> {
        match self.kind {
            Some(kind) if index == request_fields::KIND => Some(kind),
            _ => request_view_field(self.map, index),
        }
    }
}

/// A field of an AdmissionRequest view, as a JSON node.
pub(crate) fn request_field<'a>(view: RequestView<'a>, k: &str) -> Option<&'a Json> {
    view.field(request_field_index(k)?)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing)]
    use super::*;

    /// Every member of the view follows the schema: on a request that lacks it or gives it
    /// empty, an omitted member is absent and any other is its type's zero value; the
    /// undeclared ones are their zero values whatever the request gives.
    #[test]
    fn every_member_shows_what_the_schema_says_when_empty() {
        use serde_json::json;
        for (i, name) in REQUEST_FIELDS.iter().enumerate() {
            let zero = Some(SHAPES[i].ty().zero());
            let expected_empty = match SHAPES[i] {
                Shape::Declared(m) if m.when_empty == WhenEmpty::Omitted => None,
                _ => zero.clone(),
            };
            let empty = serde_json::Map::new();
            assert_eq!(
                RequestView::new(&empty).field(i).cloned(),
                expected_empty,
                "{name}"
            );
            for given in [json!(null), json!(""), json!([]), json!({})] {
                let mut m = serde_json::Map::new();
                for k in ["kind", "requestKind", "resource", "requestResource"] {
                    m.insert(k.to_owned(), json!(null));
                }
                m.insert(k_for(name).to_owned(), given.clone());
                let shown = RequestView::new(&m).field(i).cloned();
                match SHAPES[i] {
                    Shape::Undeclared(_) => assert_eq!(shown, zero, "{name} = {given}"),
                    Shape::Declared(m) => match m.when_empty {
                        WhenEmpty::Omitted => assert_eq!(shown, None, "{name} = {given}"),
                        _ if given.is_null() || m.ty == MemberType::Bool => {
                            assert_eq!(shown, zero, "{name} = {given}")
                        }
                        _ => assert_eq!(shown, Some(given.clone()), "{name} = {given}"),
                    },
                }
            }
        }
        let kind = json!({"group": "g", "version": "v", "kind": "K"});
        let m = serde_json::Map::new();
        let view = RequestView::with_kind(&m, Some(&kind));
        assert_eq!(view.field(request_fields::KIND), Some(&kind));
        assert_eq!(
            view.field(request_fields::REQUEST_KIND),
            Some(zero_node(MemberType::Object(
                crate::request_schema::GROUP_VERSION_KIND
            )))
        );
    }

    /// The member of the request a view member is read from first.
    fn k_for(name: &str) -> &str {
        match name {
            "resource" => "requestResource",
            "subResource" => "requestSubResource",
            other => other,
        }
    }

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
