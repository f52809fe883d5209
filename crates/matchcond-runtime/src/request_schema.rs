//! The declared shape of the `request` variable: the object types the apiserver's
//! matchConditions environment declares for the AdmissionRequest and its parts, their
//! members, the members' types and what each shows when the request has it empty or lacks
//! it, in one table ([`DECLARED_TYPES`]), and the members reached only through
//! `dyn(request)` ([`UNDECLARED_REQUEST_MEMBERS`]).
//!
//! Everything about the request's shape derives from here: the compiler declares the types,
//! the lint reads the kinds of values and which members may be absent, and the run-time view
//! ([`REQUEST_FIELDS`](crate::activation::REQUEST_FIELDS), its indexes, the zero values,
//! the structures of [`crate::request_parts`]) is computed from these tables.
//!
//! The rules are those of the apiserver's `CreateAdmissionRequest` converted to unstructured:
//! a member tagged `omitempty` in `admission/v1` `AdmissionRequest` or `authentication/v1`
//! `UserInfo` is absent when empty ([`WhenEmpty::Omitted`]); any other is present, at the
//! zero value of its type when the request lacks it ([`WhenEmpty::Zero`]). Every modelled
//! version declares the same shape and follows the same rules (the suites of 1.30 to 1.37
//! answer alike), so none of it is a release change.

use matchcond_front::Type;
use serde_json::Value as Json;

/// The type of a declared member.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MemberType {
    /// `string`.
    String,
    /// `bool`.
    Bool,
    /// `list(string)`.
    StringList,
    /// `map(string, list(string))`.
    StringListMap,
    /// `dyn`.
    Dyn,
    /// Another declared object type, by name.
    Object(&'static str),
}

impl MemberType {
    /// The type the checker knows it by.
    pub fn to_type(self) -> Type {
        match self {
            MemberType::String => Type::String,
            MemberType::Bool => Type::Bool,
            MemberType::StringList => Type::list(Type::String),
            MemberType::StringListMap => Type::map(Type::String, Type::list(Type::String)),
            MemberType::Dyn => Type::Dyn,
            MemberType::Object(name) => Type::named(name),
        }
    }

    /// The zero value of the type as JSON, as the apiserver's unstructured request shows a
    /// member it lacks: `""`, `false`, `[]`, `{}`, `null` for `dyn` (an empty
    /// `RawExtension`), and for an object type its members at their zero values (the
    /// omitted ones left out).
    pub fn zero(self) -> Json {
        match self {
            MemberType::String => Json::String(String::new()),
            MemberType::Bool => Json::Bool(false),
            MemberType::StringList => Json::Array(Vec::new()),
            MemberType::StringListMap => Json::Object(serde_json::Map::new()),
            MemberType::Dyn => Json::Null,
            MemberType::Object(name) => Json::Object(
                declared_type(name)
                    .map(|t| t.members)
                    .unwrap_or_default()
                    .iter()
                    .filter(|m| m.when_empty == WhenEmpty::Zero)
                    .map(|m| (m.name.to_owned(), m.ty.zero()))
                    .collect(),
            ),
        }
    }
}

/// What a member shows when the request has it empty or lacks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WhenEmpty {
    /// `omitempty`: absent when empty ([`is_empty`]), so `has()` is false and a read fails
    /// with `no such key`.
    Omitted,
    /// Always present: the zero value of its type ([`MemberType::zero`]) when the request
    /// lacks it or gives `null` (as Go decodes it). A `bool` shows a boolean only (a
    /// `*bool` the apiserver always sets): any other JSON shows `false`.
    Zero,
}

/// A declared member: name, type and what it shows when empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Member {
    /// The member's name (`namespace`).
    pub name: &'static str,
    /// Its type.
    pub ty: MemberType,
    /// What it shows when empty or absent.
    pub when_empty: WhenEmpty,
}

impl Member {
    /// True when the request's node for the member (a JSON node, `None` when absent) is
    /// shown as given; otherwise the member is absent ([`WhenEmpty::Omitted`]) or shows its
    /// zero value ([`WhenEmpty::Zero`]).
    pub fn shows_given(&self, node: Option<&Json>) -> bool {
        match (node, self.when_empty, self.ty) {
            (None | Some(Json::Null), ..) => false,
            (Some(j), WhenEmpty::Omitted, _) => !is_empty(j),
            (Some(j), WhenEmpty::Zero, MemberType::Bool) => j.is_boolean(),
            (Some(_), WhenEmpty::Zero, _) => true,
        }
    }
}

/// An empty JSON node, as `omitempty` leaves it out: `null`, `""`, `[]`, `{}` (whatever the
/// member's declared type: a request the apiserver sent has each member in its type).
pub fn is_empty(node: &Json) -> bool {
    match node {
        Json::Null => true,
        Json::String(s) => s.is_empty(),
        Json::Array(a) => a.is_empty(),
        Json::Object(o) => o.is_empty(),
        Json::Bool(_) | Json::Number(_) => false,
    }
}

/// A declared object type: its name and members.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ObjectType {
    /// The type's name (`kubernetes.AdmissionRequest`).
    pub name: &'static str,
    /// Its members, in the order Go declares them.
    pub members: &'static [Member],
}

impl ObjectType {
    /// A member, if declared.
    pub fn declared(&self, name: &str) -> Option<&'static Member> {
        self.members.iter().find(|m| m.name == name)
    }

    /// The type of a member, if declared.
    pub fn member(&self, name: &str) -> Option<MemberType> {
        self.declared(name).map(|m| m.ty)
    }
}

/// The name of the `request` variable's type.
pub const ADMISSION_REQUEST: &str = "kubernetes.AdmissionRequest";
/// The name of `request.userInfo`'s type.
pub const USER_INFO: &str = "kubernetes.UserInfo";
/// The name of `request.kind`'s and `request.requestKind`'s type.
pub const GROUP_VERSION_KIND: &str = "kubernetes.GroupVersionKind";
/// The name of `request.resource`'s and `request.requestResource`'s type.
pub const GROUP_VERSION_RESOURCE: &str = "kubernetes.GroupVersionResource";

/// A member of the table (shorthand).
const fn member(name: &'static str, ty: MemberType, when_empty: WhenEmpty) -> Member {
    Member {
        name,
        ty,
        when_empty,
    }
}

/// The object types declared for `request` (the AdmissionRequest's `uid`, `object` and
/// `oldObject` are not declared: see [`UNDECLARED_REQUEST_MEMBERS`]).
pub const DECLARED_TYPES: [ObjectType; 4] = {
    use MemberType::{Bool, Dyn, Object, String, StringList, StringListMap};
    use WhenEmpty::{Omitted, Zero};
    [
        ObjectType {
            name: ADMISSION_REQUEST,
            members: &[
                member("kind", Object(GROUP_VERSION_KIND), Zero),
                member("resource", Object(GROUP_VERSION_RESOURCE), Zero),
                member("subResource", String, Omitted),
                member("requestKind", Object(GROUP_VERSION_KIND), Zero),
                member("requestResource", Object(GROUP_VERSION_RESOURCE), Zero),
                member("requestSubResource", String, Omitted),
                member("name", String, Omitted),
                member("namespace", String, Omitted),
                member("operation", String, Zero),
                member("userInfo", Object(USER_INFO), Zero),
                member("dryRun", Bool, Zero),
                member("options", Dyn, Zero),
            ],
        },
        ObjectType {
            name: USER_INFO,
            members: &[
                member("username", String, Omitted),
                member("uid", String, Omitted),
                member("groups", StringList, Omitted),
                member("extra", StringListMap, Omitted),
            ],
        },
        ObjectType {
            name: GROUP_VERSION_KIND,
            members: &[
                member("group", String, Zero),
                member("version", String, Zero),
                member("kind", String, Zero),
            ],
        },
        ObjectType {
            name: GROUP_VERSION_RESOURCE,
            members: &[
                member("group", String, Zero),
                member("version", String, Zero),
                member("resource", String, Zero),
            ],
        },
    ]
};

/// The members of the AdmissionRequest that are not declared (reading them is a compile
/// error) but that `dyn(request)` shows, always at the zero value of their type whatever the
/// request says: the apiserver builds `request` from the admission attributes, which carry
/// neither the review's `uid` nor the objects (`uid` is `""`, `object` and `oldObject`
/// `null`).
pub const UNDECLARED_REQUEST_MEMBERS: [(&str, MemberType); 3] = [
    ("uid", MemberType::String),
    ("object", MemberType::Dyn),
    ("oldObject", MemberType::Dyn),
];

/// A declared object type, by name.
pub fn declared_type(name: &str) -> Option<&'static ObjectType> {
    DECLARED_TYPES.iter().find(|t| t.name == name)
}

/// The members of the `request` variable's type.
pub const fn request_members() -> &'static [Member] {
    match DECLARED_TYPES.first() {
        Some(t) => t.members,
        None => &[],
    }
}

/// True when the member at a path below `request` (`["namespace"]`,
/// `["userInfo", "extra"]`) is declared [`WhenEmpty::Omitted`]: absent when empty.
pub fn omitted_when_empty(path: &[&str]) -> bool {
    let mut ty = MemberType::Object(ADMISSION_REQUEST);
    let mut last = None;
    for name in path {
        let MemberType::Object(t) = ty else {
            return false;
        };
        let Some(m) = declared_type(t).and_then(|t| t.declared(name)) else {
            return false;
        };
        ty = m.ty;
        last = Some(m.when_empty);
    }
    last == Some(WhenEmpty::Omitted)
}

/// The members of a declared object type, by name, at compile time (none for an unknown
/// name).
pub(crate) const fn const_members(name: &str) -> &'static [Member] {
    let mut types: &[ObjectType] = &DECLARED_TYPES;
    while let [t, rest @ ..] = types {
        if str_eq(t.name, name) {
            return t.members;
        }
        types = rest;
    }
    &[]
}

/// String equality at compile time.
pub(crate) const fn str_eq(a: &str, b: &str) -> bool {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a, b) {
            ([], []) => return true,
            ([x, ra @ ..], [y, rb @ ..]) if *x == *y => {
                a = ra;
                b = rb;
            }
            _ => return false,
        }
    }
}

/// `a < b` by bytes (the order of a JSON object's keys), at compile time.
const fn str_less(a: &str, b: &str) -> bool {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a, b) {
            (_, []) => return false,
            ([], _) => return true,
            ([x, ra @ ..], [y, rb @ ..]) => {
                if *x != *y {
                    return *x < *y;
                }
                a = ra;
                b = rb;
            }
        }
    }
}

/// The names of `first` then `more`, sorted by bytes (the order a JSON object iterates its
/// keys), at compile time. `N` must be their number: any other is a build error.
#[allow(clippy::indexing_slicing)] // evaluated at compile time: a bad index fails the build
pub(crate) const fn sorted_names<const N: usize>(
    first: &[Member],
    more: &[(&'static str, MemberType)],
) -> [&'static str; N] {
    let mut out = [""; N];
    let mut n = 0;
    let mut i = 0;
    while i < first.len() {
        out[n] = first[i].name;
        n += 1;
        i += 1;
    }
    i = 0;
    while i < more.len() {
        out[n] = more[i].0;
        n += 1;
        i += 1;
    }
    assert!(n == N, "N must be the number of names");
    i = 1;
    while i < N {
        let mut j = i;
        while j > 0 && str_less(out[j], out[j - 1]) {
            let t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
            j -= 1;
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::activation::{request_field_index, REQUEST_FIELDS};

    #[test]
    fn the_view_shows_every_declared_member_and_the_undeclared_ones() {
        let declared: Vec<&str> = request_members().iter().map(|m| m.name).collect();
        assert!(declared.iter().all(|m| request_field_index(m).is_some()));
        let undeclared: Vec<&str> = REQUEST_FIELDS
            .iter()
            .copied()
            .filter(|f| !declared.contains(f))
            .collect();
        assert_eq!(undeclared, ["object", "oldObject", "uid"]);
        let mut sorted = REQUEST_FIELDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, REQUEST_FIELDS);
    }

    #[test]
    fn every_object_member_names_a_declared_type() {
        for t in DECLARED_TYPES {
            for m in t.members {
                if let MemberType::Object(o) = m.ty {
                    assert!(declared_type(o).is_some(), "{}.{}", t.name, m.name);
                    assert_eq!(const_members(o), declared_type(o).unwrap().members);
                }
            }
        }
        assert_eq!(
            declared_type(USER_INFO).and_then(|t| t.member("extra")),
            Some(MemberType::StringListMap)
        );
        assert_eq!(
            MemberType::StringListMap.to_type(),
            Type::map(Type::String, Type::list(Type::String))
        );
        assert_eq!(declared_type("kubernetes.Namespace"), None);
        assert!(const_members("kubernetes.Namespace").is_empty());
    }

    /// The `omitempty` tags of `admission/v1` `AdmissionRequest` and `authentication/v1`
    /// `UserInfo` (`DryRun` is a `*bool` the apiserver always sets; `Options` a
    /// `RawExtension`, unstructured as `null`).
    #[test]
    fn omitted_members_are_the_omitempty_ones() {
        let omitted: Vec<String> = DECLARED_TYPES
            .iter()
            .flat_map(|t| {
                t.members
                    .iter()
                    .filter(|m| m.when_empty == WhenEmpty::Omitted)
                    .map(move |m| format!("{}.{}", t.name, m.name))
            })
            .collect();
        assert_eq!(
            omitted,
            [
                "kubernetes.AdmissionRequest.subResource",
                "kubernetes.AdmissionRequest.requestSubResource",
                "kubernetes.AdmissionRequest.name",
                "kubernetes.AdmissionRequest.namespace",
                "kubernetes.UserInfo.username",
                "kubernetes.UserInfo.uid",
                "kubernetes.UserInfo.groups",
                "kubernetes.UserInfo.extra",
            ]
        );
        assert!(omitted_when_empty(&["namespace"]));
        assert!(omitted_when_empty(&["userInfo", "extra"]));
        assert!(!omitted_when_empty(&["userInfo"]));
        assert!(!omitted_when_empty(&["dryRun"]));
        assert!(!omitted_when_empty(&["kind", "group"]));
        assert!(!omitted_when_empty(&["uid"]));
        assert!(!omitted_when_empty(&["name", "x"]));
        assert!(!omitted_when_empty(&[]));
    }

    #[test]
    fn zero_values_follow_the_types() {
        use serde_json::json;
        let zero = |t| MemberType::Object(t).zero();
        assert_eq!(
            zero(GROUP_VERSION_KIND),
            json!({"group": "", "version": "", "kind": ""})
        );
        assert_eq!(
            zero(GROUP_VERSION_RESOURCE),
            json!({"group": "", "version": "", "resource": ""})
        );
        assert_eq!(zero(USER_INFO), json!({}));
        assert_eq!(MemberType::Bool.zero(), json!(false));
        assert_eq!(MemberType::Dyn.zero(), json!(null));
        let dry_run = request_members().iter().find(|m| m.name == "dryRun");
        let dry_run = dry_run.unwrap();
        assert!(dry_run.shows_given(Some(&json!(true))));
        assert!(!dry_run.shows_given(Some(&json!("yes"))));
        let name = request_members().iter().find(|m| m.name == "name").unwrap();
        for empty in [json!(null), json!(""), json!([]), json!({})] {
            assert!(!name.shows_given(Some(&empty)), "{empty}");
        }
        assert!(name.shows_given(Some(&json!("web"))));
        assert!(!name.shows_given(None));
    }

    #[test]
    fn names_sort_as_json_keys() {
        const SORTED: [&str; 3] = sorted_names(const_members(GROUP_VERSION_KIND), &[]);
        assert_eq!(SORTED, ["group", "kind", "version"]);
        assert!(str_less("a", "ab") && !str_less("ab", "a") && !str_less("a", "a"));
        assert!(str_eq("kind", "kind") && !str_eq("kind", "kinds"));
    }
}
