//! The structures inside the `request` view — `kind` and `requestKind`
//! (`GroupVersionKind`), `resource` and `requestResource` (`GroupVersionResource`) and
//! `userInfo` (`UserInfo`) — shown as the apiserver's typed AdmissionRequest has them,
//! whatever the JSON the host parsed says.
//!
//! The apiserver builds `request` from Go structs, whose members and empty rules are
//! [`crate::request_schema`]'s: a `GroupVersionKind` has exactly its three string members (a
//! JSON `null` decodes to `""`), and every member of `UserInfo` is `omitempty` (an empty or
//! `null` member is absent). A request that did not come from the apiserver's JSON —
//! kube-rs's `AdmissionRequest` serialised by serde writes `"requestKind": null`, and its
//! `GroupVersionResource` carries an extra `api_version` — must decide the same. A structure
//! already in that form (what the apiserver sends) is viewed as the JSON node itself; any
//! other is viewed through [`Part`], which shows the declared members only, as Go would hold
//! them. Checking the form reads a handful of keys and allocates nothing.

use serde_json::{Map as JsonMap, Value as Json};

use crate::request_schema::{
    const_members, sorted_names, str_eq, Member, MemberType, WhenEmpty, GROUP_VERSION_KIND,
    GROUP_VERSION_RESOURCE, USER_INFO,
};
use crate::request_view::{json_member, request_field_index, shown, SHAPES};

/// A structure of the `request` view whose members are shown as Go declares them: one of
/// the schema's declared object types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    /// `GroupVersionKind` (`kind`, `requestKind`): `group`, `version`, `kind`, always
    /// present (`""` when the JSON has none).
    Gvk,
    /// `GroupVersionResource` (`resource`, `requestResource`): `group`, `version`,
    /// `resource`, always present.
    Gvr,
    /// `UserInfo`: `username`, `uid`, `groups`, `extra`, each absent when empty.
    UserInfo,
}

/// The declared members of each part (the schema's), looked up once at compile time.
const GVK_MEMBERS: &[Member] = const_members(GROUP_VERSION_KIND);
const GVR_MEMBERS: &[Member] = const_members(GROUP_VERSION_RESOURCE);
const USER_INFO_MEMBERS: &[Member] = const_members(USER_INFO);

/// The member names of each part, in the order a JSON object iterates them.
const GVK_NAMES: [&str; 3] = sorted_names(GVK_MEMBERS, &[]);
const GVR_NAMES: [&str; 3] = sorted_names(GVR_MEMBERS, &[]);
const USER_INFO_NAMES: [&str; 4] = sorted_names(USER_INFO_MEMBERS, &[]);

/// The part each member of the view is, by [`crate::activation::REQUEST_FIELDS`] index.
#[allow(clippy::indexing_slicing)] // evaluated at compile time: a bad index fails the build
const fn field_parts() -> [Option<Part>; SHAPES.len()] {
    let mut out = [None; SHAPES.len()];
    let mut i = 0;
    while i < SHAPES.len() {
        if let MemberType::Object(name) = SHAPES[i].ty() {
            out[i] = Part::of_type(name);
        }
        i += 1;
    }
    out
}

/// [`field_parts`], computed once.
const FIELD_PARTS: [Option<Part>; SHAPES.len()] = field_parts();

impl Part {
    /// The part of a declared object type, by the type's name.
    pub const fn of_type(name: &str) -> Option<Part> {
        if str_eq(name, GROUP_VERSION_KIND) {
            Some(Part::Gvk)
        } else if str_eq(name, GROUP_VERSION_RESOURCE) {
            Some(Part::Gvr)
        } else if str_eq(name, USER_INFO) {
            Some(Part::UserInfo)
        } else {
            None
        }
    }

    /// The name of the declared object type.
    pub const fn type_name(self) -> &'static str {
        match self {
            Part::Gvk => GROUP_VERSION_KIND,
            Part::Gvr => GROUP_VERSION_RESOURCE,
            Part::UserInfo => USER_INFO,
        }
    }

    /// The declared members (the schema's).
    pub const fn declared_members(self) -> &'static [Member] {
        match self {
            Part::Gvk => GVK_MEMBERS,
            Part::Gvr => GVR_MEMBERS,
            Part::UserInfo => USER_INFO_MEMBERS,
        }
    }

    /// The structure a member of the `request` view is (by
    /// [`crate::activation::REQUEST_FIELDS`] index), if any.
    pub fn of_field(index: usize) -> Option<Part> {
        FIELD_PARTS.get(index).copied().flatten()
    }

    /// The structure a member of the `request` view is, by name.
    pub fn of_name(name: &str) -> Option<Part> {
        Part::of_field(request_field_index(name)?)
    }

    /// The declared members' names, in the order a JSON object iterates them (by name).
    pub const fn members(self) -> &'static [&'static str] {
        match self {
            Part::Gvk => &GVK_NAMES,
            Part::Gvr => &GVR_NAMES,
            Part::UserInfo => &USER_INFO_NAMES,
        }
    }

    /// A declared member, by name.
    fn declared(self, name: &str) -> Option<&'static Member> {
        self.declared_members()
            .iter()
            .find(|m| m.name.len() == name.len() && m.name == name)
    }

    /// A member as the structure shows it: `None` when it has no such member.
    pub fn member<'a>(self, m: &'a JsonMap<String, Json>, name: &str) -> Option<&'a Json> {
        shown(self.declared(name)?, json_member(m, name))
    }

    /// True when a JSON node is shown as itself: an object of the declared members only,
    /// each shown as given and every always-present one there (or not an object at all,
    /// shown as given).
    pub fn shows_as_is(self, node: &Json) -> bool {
        let Json::Object(m) = node else {
            return true;
        };
        let mut present = 0;
        for (k, v) in m {
            let Some(member) = self.declared(k) else {
                return false;
            };
            if !member.shows_given(Some(v)) {
                return false;
            }
            if member.when_empty == WhenEmpty::Zero {
                present += 1;
            }
        }
        present
            == self
                .declared_members()
                .iter()
                .filter(|m| m.when_empty == WhenEmpty::Zero)
                .count()
    }

    /// The number of members shown.
    pub fn len(self, m: &JsonMap<String, Json>) -> usize {
        self.members()
            .iter()
            .filter(|k| self.member(m, k).is_some())
            .count()
    }

    /// The members shown, in order.
    pub fn iter(self, m: &JsonMap<String, Json>) -> PartIter<'_> {
        PartIter {
            map: m,
            part: self,
            next: 0,
        }
    }
}

/// True when the member of the `request` view at `index` (a
/// [`crate::activation::REQUEST_FIELDS`] index), found as `node`, is shown as the node
/// itself (so its members can be read on the JSON directly).
pub fn field_shows_as_is(index: usize, node: &Json) -> bool {
    Part::of_field(index).is_none_or(|p| p.shows_as_is(node))
}

/// [`field_shows_as_is`] by the member's name.
pub fn named_field_shows_as_is(name: &str, node: &Json) -> bool {
    Part::of_name(name).is_none_or(|p| p.shows_as_is(node))
}

/// The members a [`Part`] shows, by name.
#[derive(Clone, Debug)]
pub struct PartIter<'a> {
    map: &'a JsonMap<String, Json>,
    part: Part,
    next: usize,
}

impl<'a> Iterator for PartIter<'a> {
    type Item = (&'static str, &'a Json);
    fn next(&mut self) -> Option<Self::Item> {
        while let Some(&name) = self.part.members().get(self.next) {
            self.next += 1;
            if let Some(v) = self.part.member(self.map, name) {
                return Some((name, v));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::request_view::request_fields as f;
    use serde_json::json;

    fn shown(part: Part, node: &Json) -> Vec<(String, Json)> {
        let Json::Object(m) = node else {
            panic!("an object")
        };
        part.iter(m)
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    #[test]
    fn what_the_apiserver_sends_is_shown_as_is() {
        let gvk = json!({"group": "", "version": "v1", "kind": "Pod"});
        assert!(Part::Gvk.shows_as_is(&gvk));
        let gvr = json!({"group": "apps", "version": "v1", "resource": "deployments"});
        assert!(Part::Gvr.shows_as_is(&gvr));
        let user = json!({"username": "alice", "uid": "1", "groups": ["a"], "extra": {"k": ["v"]}});
        assert!(Part::UserInfo.shows_as_is(&user));
        assert!(Part::UserInfo.shows_as_is(&json!({})));
        assert!(Part::Gvk.shows_as_is(&json!("not an object")));
    }

    #[test]
    fn nulls_empty_and_unknown_members_are_not_shown() {
        // kube-rs's GroupVersionResource serialises an `api_version` member.
        let gvr = json!({"group": "", "version": "v1", "resource": "pods", "api_version": "v1"});
        assert!(!Part::Gvr.shows_as_is(&gvr));
        assert_eq!(
            shown(Part::Gvr, &gvr),
            [
                ("group".into(), json!("")),
                ("resource".into(), json!("pods")),
                ("version".into(), json!("v1"))
            ]
        );
        let gvk = json!({"group": null, "kind": "Pod"});
        assert!(!Part::Gvk.shows_as_is(&gvk));
        let Json::Object(m) = &gvk else { panic!() };
        assert_eq!(Part::Gvk.member(m, "group"), Some(&json!("")));
        assert_eq!(Part::Gvk.member(m, "version"), Some(&json!("")));
        assert_eq!(Part::Gvk.member(m, "resource"), None);
        assert_eq!(Part::Gvk.len(m), 3);
        let user = json!({"username": "alice", "uid": "", "groups": null, "extra": {}, "x": 1});
        assert!(!Part::UserInfo.shows_as_is(&user));
        assert_eq!(
            shown(Part::UserInfo, &user),
            [("username".into(), json!("alice"))]
        );
        let Json::Object(m) = &user else { panic!() };
        assert_eq!(Part::UserInfo.len(m), 1);
        assert_eq!(Part::UserInfo.member(m, "groups"), None);
        assert_eq!(Part::UserInfo.member(m, "x"), None);
        assert!(!Part::UserInfo.shows_as_is(&json!({"groups": []})));
    }

    #[test]
    fn parts_are_the_schemas_object_types() {
        use crate::request_schema::{declared_type, request_members};
        for m in request_members() {
            let part = Part::of_name(m.name);
            match m.ty {
                MemberType::Object(t) => {
                    let part = part.unwrap();
                    assert_eq!(part.type_name(), t);
                    let mut names: Vec<&str> = declared_type(t)
                        .unwrap()
                        .members
                        .iter()
                        .map(|m| m.name)
                        .collect();
                    names.sort_unstable();
                    assert_eq!(part.members(), names);
                }
                _ => assert_eq!(part, None, "{}", m.name),
            }
        }
    }

    #[test]
    fn structures_by_field() {
        use crate::request_view::{request_field_index, REQUEST_FIELDS};
        for name in REQUEST_FIELDS {
            assert_eq!(
                Part::of_field(request_field_index(name).unwrap()),
                Part::of_name(name),
                "{name}"
            );
        }
        assert!(field_shows_as_is(f::NAME, &json!(null)));
        assert!(!named_field_shows_as_is(
            "userInfo",
            &json!({"groups": null})
        ));
    }
}
