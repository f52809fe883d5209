//! The principal of a check: [`UserInfo`] owns one, [`User`] is how an [`Authorizer`]
//! sees one, the request's `userInfo` read in place or a [`UserInfo`].
//!
//! [`Authorizer`]: super::Authorizer

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map as JsonMap, Value as Json};

/// A principal (`user.Info`), owned: a user the host names, or a service account's user.
/// Checks see it, or the request's own `userInfo`, through [`User`].
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct UserInfo {
    /// The user name.
    pub name: String,
    /// The user's UID (may be empty).
    pub uid: String,
    /// The groups.
    pub groups: Vec<String>,
    /// Extra attributes from the authenticator.
    pub extra: BTreeMap<String, Vec<String>>,
}

impl UserInfo {
    /// A user with a name and nothing else.
    pub fn new(name: impl Into<String>) -> Self {
        UserInfo {
            name: name.into(),
            ..UserInfo::default()
        }
    }

    /// Sets the groups.
    pub fn with_groups<I, S>(mut self, groups: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.groups = groups.into_iter().map(Into::into).collect();
        self
    }

    /// The user a service account authenticates as (`serviceaccount.ServiceAccountInfo`):
    /// `system:serviceaccount:<namespace>:<name>`, in the groups `system:serviceaccounts`
    /// and `system:serviceaccounts:<namespace>`, without UID or extra.
    pub fn service_account(namespace: &str, name: &str) -> Self {
        UserInfo {
            name: format!("system:serviceaccount:{namespace}:{name}"),
            uid: String::new(),
            groups: vec![
                "system:serviceaccounts".to_owned(),
                format!("system:serviceaccounts:{namespace}"),
            ],
            extra: BTreeMap::new(),
        }
    }

    /// The user as an AdmissionRequest's `userInfo` (`username`, `uid`, `groups`, `extra`),
    /// empty members left out as Go's `omitempty` leaves them; [`UserInfo::from_json`]
    /// reads it back.
    ///
    /// ```
    /// use matchcond_runtime::authz::UserInfo;
    ///
    /// let alice = UserInfo::new("alice").with_groups(["devs"]);
    /// assert_eq!(
    ///     alice.to_json(),
    ///     serde_json::json!({"username": "alice", "groups": ["devs"]})
    /// );
    /// assert_eq!(UserInfo::from_json(&alice.to_json()), alice);
    /// ```
    pub fn to_json(&self) -> Json {
        let mut m = JsonMap::new();
        if !self.name.is_empty() {
            m.insert("username".into(), Json::String(self.name.clone()));
        }
        if !self.uid.is_empty() {
            m.insert("uid".into(), Json::String(self.uid.clone()));
        }
        if !self.groups.is_empty() {
            m.insert("groups".into(), serde_json::json!(self.groups));
        }
        if !self.extra.is_empty() {
            m.insert("extra".into(), serde_json::json!(self.extra));
        }
        Json::Object(m)
    }

    /// Reads an AdmissionRequest's `userInfo` (`username`, `uid`, `groups`, `extra`);
    /// missing or malformed fields are empty.
    pub fn from_json(user_info: &Json) -> Self {
        User::from_json(user_info).to_user_info()
    }
}

/// The principal of a check (`user.Info`) as an [`Authorizer`](super::Authorizer) sees it:
/// the request's `userInfo` read in place (no copy is made for a check), or a
/// [`UserInfo`] (a service account's user, or one the host gives).
///
/// The request's members read as [`UserInfo::from_json`] reads them: missing or malformed
/// ones are empty, and groups or extra values that are not strings are left out.
///
/// ```
/// use matchcond_runtime::authz::{User, UserInfo};
///
/// let json = serde_json::json!({"username": "alice", "groups": ["devs", 7]});
/// let user = User::from_json(&json);
/// assert_eq!(user.name(), "alice");
/// assert_eq!(user.groups().collect::<Vec<_>>(), ["devs"]);
/// assert!(user.in_group("devs"));
/// assert_eq!(user.to_user_info(), UserInfo::new("alice").with_groups(["devs"]));
/// ```
#[derive(Clone, Copy)]
pub struct User<'c>(Repr<'c>);

#[derive(Clone, Copy)]
enum Repr<'c> {
    Info(&'c UserInfo),
    /// The members of a `userInfo` object (`None`: not an object, an empty user).
    Json(Option<&'c JsonMap<String, Json>>),
}

impl<'c> User<'c> {
    /// An AdmissionRequest's `userInfo` (`username`, `uid`, `groups`, `extra`), read in
    /// place.
    pub fn from_json(user_info: &'c Json) -> Self {
        User(Repr::Json(user_info.as_object()))
    }

    fn member(&self, name: &str) -> Option<&'c Json> {
        match self.0 {
            Repr::Json(Some(m)) => crate::request_view::json_member(m, name),
            _ => None,
        }
    }

    /// The user name (`""` when none).
    pub fn name(&self) -> &'c str {
        match self.0 {
            Repr::Info(u) => &u.name,
            Repr::Json(_) => self.member("username").and_then(Json::as_str).unwrap_or(""),
        }
    }

    /// The UID (`""` when none).
    pub fn uid(&self) -> &'c str {
        match self.0 {
            Repr::Info(u) => &u.uid,
            Repr::Json(_) => self.member("uid").and_then(Json::as_str).unwrap_or(""),
        }
    }

    /// The groups, in order.
    pub fn groups(&self) -> impl Iterator<Item = &'c str> + Clone + 'c {
        match self.0 {
            Repr::Info(u) => Strings::Owned(u.groups.iter()),
            Repr::Json(_) => Strings::json(self.member("groups")),
        }
    }

    /// True when the user is in `group`.
    pub fn in_group(&self, group: &str) -> bool {
        self.groups().any(|g| g == group)
    }

    /// The extra attributes from the authenticator: each key with its values. A
    /// [`UserInfo`]'s come sorted by key, the request's in the order its JSON map holds
    /// them (as in Go, authorizers should not depend on the order).
    pub fn extra(
        &self,
    ) -> impl Iterator<Item = (&'c str, impl Iterator<Item = &'c str> + Clone + 'c)> + 'c {
        let owned = match self.0 {
            Repr::Info(u) => Some(u.extra.iter()),
            Repr::Json(_) => None,
        };
        let json = self
            .member("extra")
            .and_then(Json::as_object)
            .map(|m| m.iter());
        let owned = owned
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.as_str(), Strings::Owned(v.iter())));
        let json = json
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.as_str(), Strings::json(Some(v))));
        owned.chain(json)
    }

    /// The values of one extra attribute (none when the key is absent).
    pub fn extra_values(&self, key: &str) -> impl Iterator<Item = &'c str> + Clone + 'c {
        match self.0 {
            Repr::Info(u) => Strings::Owned(u.extra.get(key).map_or([].iter(), |v| v.iter())),
            Repr::Json(_) => Strings::json(
                self.member("extra")
                    .and_then(Json::as_object)
                    .and_then(|m| m.get(key)),
            ),
        }
    }

    /// An owned copy.
    pub fn to_user_info(&self) -> UserInfo {
        match self.0 {
            Repr::Info(u) => u.clone(),
            Repr::Json(_) => UserInfo {
                name: self.name().to_owned(),
                uid: self.uid().to_owned(),
                groups: self.groups().map(str::to_owned).collect(),
                extra: self
                    .extra()
                    .map(|(k, v)| (k.to_owned(), v.map(str::to_owned).collect()))
                    .collect(),
            },
        }
    }
}

impl<'c> From<&'c UserInfo> for User<'c> {
    fn from(user: &'c UserInfo) -> Self {
        User(Repr::Info(user))
    }
}

impl PartialEq for User<'_> {
    /// Equal when name, UID, groups and extra attributes are.
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
            && self.uid() == other.uid()
            && self.groups().eq(other.groups())
            && self.to_user_info().extra == other.to_user_info().extra
    }
}

impl Eq for User<'_> {}

impl fmt::Debug for User<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct List<I>(I);
        impl<'s, I: Iterator<Item = &'s str> + Clone> fmt::Debug for List<I> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_list().entries(self.0.clone()).finish()
            }
        }
        f.debug_struct("User")
            .field("name", &self.name())
            .field("uid", &self.uid())
            .field("groups", &List(self.groups()))
            .field("extra", &self.to_user_info().extra)
            .finish()
    }
}

/// A list of strings: a [`UserInfo`]'s, or a JSON array's string elements (a member that
/// is not an array has none).
#[derive(Clone)]
enum Strings<'c> {
    Owned(std::slice::Iter<'c, String>),
    Json(std::slice::Iter<'c, Json>),
}

impl<'c> Strings<'c> {
    fn json(list: Option<&'c Json>) -> Self {
        Strings::Json(
            list.and_then(Json::as_array)
                .map_or([].iter(), |a| a.iter()),
        )
    }
}

impl<'c> Iterator for Strings<'c> {
    type Item = &'c str;

    fn next(&mut self) -> Option<&'c str> {
        match self {
            Strings::Owned(i) => i.next().map(String::as_str),
            Strings::Json(i) => i.find_map(Json::as_str),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    /// The request's `userInfo` read in place equals the owned copy `from_json` makes,
    /// malformed members included.
    #[test]
    fn in_place_reads_as_from_json() {
        let cases = [
            json!({"username": "alice", "uid": "u-1", "groups": ["a", "b"],
                   "extra": {"scopes": ["x", "y"], "zone": ["eu"]}}),
            json!({"username": 7, "uid": null, "groups": "devs", "extra": ["x"]}),
            json!({"groups": ["a", 1, null, "b"], "extra": {"k": "v", "n": [1, "one"]}}),
            json!({}),
            json!(null),
            json!("alice"),
        ];
        for case in &cases {
            let owned = UserInfo::from_json(case);
            let user = User::from_json(case);
            assert_eq!(user.to_user_info(), owned, "{case}");
            assert_eq!(user, User::from(&owned), "{case}");
            assert_eq!(user.name(), owned.name);
            assert_eq!(user.uid(), owned.uid);
            assert_eq!(
                user.groups().collect::<Vec<_>>(),
                owned.groups.iter().map(String::as_str).collect::<Vec<_>>()
            );
            for (k, v) in &owned.extra {
                assert_eq!(
                    user.extra_values(k).collect::<Vec<_>>(),
                    v.iter().map(String::as_str).collect::<Vec<_>>()
                );
            }
        }
        let user = User::from_json(&cases[0]);
        assert!(user.in_group("b") && !user.in_group("c"));
        assert_eq!(user.extra_values("none").count(), 0);
        assert_eq!(
            format!("{user:?}"),
            r#"User { name: "alice", uid: "u-1", groups: ["a", "b"], extra: {"scopes": ["x", "y"], "zone": ["eu"]} }"#
        );
        assert_ne!(user, User::from(&UserInfo::new("alice")));
    }

    /// `to_json` writes what `from_json` reads, empty members left out.
    #[test]
    fn to_json_writes_the_request_member() {
        let full = json!({"username": "alice", "uid": "u-1", "groups": ["a", "b"],
                          "extra": {"scopes": ["x", "y"], "zone": ["eu"]}});
        let user = UserInfo::from_json(&full);
        assert_eq!(user.to_json(), full);
        assert_eq!(UserInfo::default().to_json(), json!({}));
        let mut only_extra = UserInfo::default();
        only_extra.extra.insert("k".into(), vec![]);
        assert_eq!(only_extra.to_json(), json!({"extra": {"k": []}}));
        assert_eq!(UserInfo::from_json(&only_extra.to_json()), only_extra);
    }
}
