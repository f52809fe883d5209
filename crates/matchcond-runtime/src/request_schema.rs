//! The declared shape of the `request` variable: the object types the apiserver's
//! matchConditions environment declares for the AdmissionRequest and its parts, their
//! members and the members' types, in one table ([`DECLARED_TYPES`]). The compiler declares
//! them from it, the lint reads the kinds of values from it, and the run-time view
//! ([`REQUEST_FIELDS`](crate::activation::REQUEST_FIELDS)) shows every member it declares.
//! Every modelled version declares the same shape (the suites of 1.30 to 1.37 answer alike).

use matchcond_front::Type;

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
}

/// A declared object type: its name and members.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ObjectType {
    /// The type's name (`kubernetes.AdmissionRequest`).
    pub name: &'static str,
    /// Its members: name and type.
    pub members: &'static [(&'static str, MemberType)],
}

impl ObjectType {
    /// The type of a member, if declared.
    pub fn member(&self, name: &str) -> Option<MemberType> {
        self.members
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t)
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

/// The object types declared for `request` (the AdmissionRequest's `uid`, `object` and
/// `oldObject` are not declared: they are reached only through `dyn(request)`).
pub const DECLARED_TYPES: [ObjectType; 4] = {
    use MemberType::{Bool, Dyn, Object, String, StringList, StringListMap};
    [
        ObjectType {
            name: ADMISSION_REQUEST,
            members: &[
                ("kind", Object(GROUP_VERSION_KIND)),
                ("resource", Object(GROUP_VERSION_RESOURCE)),
                ("subResource", String),
                ("requestKind", Object(GROUP_VERSION_KIND)),
                ("requestResource", Object(GROUP_VERSION_RESOURCE)),
                ("requestSubResource", String),
                ("name", String),
                ("namespace", String),
                ("operation", String),
                ("userInfo", Object(USER_INFO)),
                ("dryRun", Bool),
                ("options", Dyn),
            ],
        },
        ObjectType {
            name: USER_INFO,
            members: &[
                ("username", String),
                ("uid", String),
                ("groups", StringList),
                ("extra", StringListMap),
            ],
        },
        ObjectType {
            name: GROUP_VERSION_KIND,
            members: &[("group", String), ("version", String), ("kind", String)],
        },
        ObjectType {
            name: GROUP_VERSION_RESOURCE,
            members: &[("group", String), ("version", String), ("resource", String)],
        },
    ]
};

/// A declared object type, by name.
pub fn declared_type(name: &str) -> Option<&'static ObjectType> {
    DECLARED_TYPES.iter().find(|t| t.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::activation::{request_field_index, REQUEST_FIELDS};

    #[test]
    fn the_view_shows_every_declared_member_and_the_undeclared_ones() {
        let request = declared_type(ADMISSION_REQUEST).map(|t| t.members);
        let declared: Vec<&str> = request.unwrap_or_default().iter().map(|m| m.0).collect();
        assert!(declared.iter().all(|m| request_field_index(m).is_some()));
        let undeclared: Vec<&str> = REQUEST_FIELDS
            .iter()
            .copied()
            .filter(|f| !declared.contains(f))
            .collect();
        assert_eq!(undeclared, ["object", "oldObject", "uid"]);
    }

    #[test]
    fn every_object_member_names_a_declared_type() {
        for t in DECLARED_TYPES {
            for (name, ty) in t.members {
                if let MemberType::Object(o) = ty {
                    assert!(declared_type(o).is_some(), "{}.{name}", t.name);
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
    }
}
