//! Deciding from the raw bytes of an AdmissionReview, parsing only what the conditions read.
//!
//! A compiled set of conditions knows every path it can read of its variables
//! ([`matchcond_compiler::Program::read_paths`]): everything it observes of them lies in the
//! subtrees those paths reach, and of a member only tested for presence, that it is there.
//! The reader builds `object` and `oldObject` with those subtrees only (a tested member as
//! null); every other member of the two objects is scanned (the bytes must still be valid
//! JSON) but never built. The rest of the request is built in full, or, to decide, only the
//! members read. The decision on the pruned request is the decision on the whole one.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value as Json};

/// Which parts of a JSON value are needed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum Need {
    /// Nothing (the value is not read).
    #[default]
    Nothing,
    /// The whole value.
    All,
    /// When the value is an object, only these members (each with its own need); any other
    /// value is needed whole.
    Members(BTreeMap<Box<str>, Need>),
}

impl Need {
    /// Adds a path: the subtree it reaches is needed whole.
    pub(crate) fn add(&mut self, path: &[Box<str>]) {
        let Some((first, rest)) = path.split_first() else {
            *self = Need::All;
            return;
        };
        if let Some(members) = self.members_mut() {
            members.entry(first.clone()).or_default().add(rest);
        }
    }

    /// Adds a path of which only the last member's presence is read (`has()`, a `'key' in`
    /// test): the members on the way are needed as far as the path goes, and the last one
    /// is kept present (as null) without its value unless something else reads it.
    pub(crate) fn add_presence(&mut self, path: &[Box<str>]) {
        let Some((first, rest)) = path.split_first() else {
            *self = Need::All;
            return;
        };
        if let Some(members) = self.members_mut() {
            let member = members.entry(first.clone()).or_default();
            if !rest.is_empty() {
                member.add_presence(rest);
            }
        }
    }

    /// The members needed, a value not needed yet now needing some; `None` when the whole
    /// value is needed.
    fn members_mut(&mut self) -> Option<&mut BTreeMap<Box<str>, Need>> {
        if let Need::Nothing = self {
            *self = Need::Members(BTreeMap::new());
        }
        match self {
            Need::Members(members) => Some(members),
            Need::All | Need::Nothing => None,
        }
    }

    /// The needed member of this name, with the name (a few members, compared by length
    /// first); none unless members are needed.
    fn member(&self, key: &[u8]) -> Option<(&str, &Need)> {
        let Need::Members(members) = self else {
            return None;
        };
        members
            .iter()
            .find(|(name, _)| name.len() == key.len() && name.as_bytes() == key)
            .map(|(name, need)| (name.as_ref(), need))
    }
}

/// Reads an AdmissionReview's `request`, building `object` and `oldObject` as far as
/// `object` and `old_object` say and its other members as far as `request` says (a member
/// it does not name is left out).
pub(crate) struct ReviewSeed<'n> {
    pub(crate) object: &'n Need,
    pub(crate) old_object: &'n Need,
    pub(crate) request: &'n Need,
}

impl<'de> DeserializeSeed<'de> for ReviewSeed<'_> {
    type Value = Option<Json>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ReviewSeed<'_> {
    type Value = Option<Json>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an AdmissionReview object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut request = None;
        while let Some(key) = map.next_key_seed(Key)? {
            if key == "request" {
                request = Some(map.next_value_seed(RequestSeed {
                    object: self.object,
                    old_object: self.old_object,
                    request: self.request,
                })?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(request)
    }
}

/// Reads an AdmissionReview's `apiVersion`, `kind` and `request` into one object (those
/// present), the request as [`ReviewSeed`] reads it; other members are scanned, not built.
pub(crate) struct EnvelopeSeed<'n> {
    pub(crate) object: &'n Need,
    pub(crate) old_object: &'n Need,
}

impl<'de> DeserializeSeed<'de> for EnvelopeSeed<'_> {
    type Value = Json;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for EnvelopeSeed<'_> {
    type Value = Json;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an AdmissionReview object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key_seed(Key)? {
            match key.as_ref() {
                "request" => {
                    let request = map.next_value_seed(RequestSeed {
                        object: self.object,
                        old_object: self.old_object,
                        request: &Need::All,
                    })?;
                    out.insert(key.into_owned(), request);
                }
                "apiVersion" | "kind" => {
                    let value = map.next_value::<Json>()?;
                    out.insert(key.into_owned(), value);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Json::Object(out))
    }
}

struct RequestSeed<'n> {
    object: &'n Need,
    old_object: &'n Need,
    /// The members other than the objects.
    request: &'n Need,
}

impl<'de> DeserializeSeed<'de> for RequestSeed<'_> {
    type Value = Json;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for RequestSeed<'_> {
    type Value = Json;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an AdmissionRequest object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut out = Map::new();
        if let Need::All = self.request {
            // Every member is built, under its own name (checked as UTF-8).
            while let Some(key) = map.next_key_seed(Key)? {
                let need = match key.as_ref() {
                    "object" => self.object,
                    "oldObject" => self.old_object,
                    _ => &Need::All,
                };
                let v = map.next_value_seed(Pruned(need))?;
                out.insert(key.into_owned(), v);
            }
            return Ok(Json::Object(out));
        }
        while let Some(key) = map.next_key_seed(KeyBytes)? {
            let named = match key.as_ref() {
                b"object" => Some(("object", self.object)),
                b"oldObject" => Some(("oldObject", self.old_object)),
                other => self.request.member(other),
            };
            match named {
                Some((name, need)) => {
                    let v = map.next_value_seed(Pruned(need))?;
                    out.insert(name.to_owned(), v);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Json::Object(out))
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
}

/// A member's name, borrowed from the bytes when it has no escapes (serde's own
/// `Cow<str>` always allocates): a member that is not built costs no allocation.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(s))
    }
    fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(s.to_owned()))
    }
    fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(s))
    }
}

/// A member's name as bytes, escapes resolved (serde_json's raw string): a name is only
/// compared with the names needed, and a member built takes the needed name, so names are
/// not checked as UTF-8 — as the values skipped are not.
struct KeyBytes;

impl<'de> DeserializeSeed<'de> for KeyBytes {
    type Value = Cow<'de, [u8]>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_bytes(self)
    }
}

impl<'de> Visitor<'de> for KeyBytes {
    type Value = Cow<'de, [u8]>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_borrowed_bytes<E>(self, b: &'de [u8]) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(b))
    }
    fn visit_bytes<E>(self, b: &[u8]) -> Result<Self::Value, E> {
        Ok(Cow::Owned(b.to_vec()))
    }
    fn visit_byte_buf<E>(self, b: Vec<u8>) -> Result<Self::Value, E> {
        Ok(Cow::Owned(b))
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(s.as_bytes()))
    }
    fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(s.as_bytes().to_vec()))
    }
}

/// Builds a value as far as a [`Need`] says.
struct Pruned<'n>(&'n Need);

impl<'de> DeserializeSeed<'de> for Pruned<'_> {
    type Value = Json;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        match self.0 {
            Need::All => serde::Deserialize::deserialize(d),
            Need::Nothing => {
                d.deserialize_ignored_any(IgnoredAny)?;
                Ok(Json::Null)
            }
            Need::Members(_) => d.deserialize_any(self),
        }
    }
}

impl<'de> Visitor<'de> for Pruned<'_> {
    type Value = Json;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key_seed(KeyBytes)? {
            match self.0.member(&key) {
                Some((name, need)) => {
                    let v = map.next_value_seed(Pruned(need))?;
                    out.insert(name.to_owned(), v);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Json::Object(out))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element::<Json>()? {
            out.push(v);
        }
        Ok(Json::Array(out))
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
        Ok(Json::Bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<Json, E> {
        Ok(Json::from(i))
    }
    fn visit_u64<E>(self, u: u64) -> Result<Json, E> {
        Ok(Json::from(u))
    }
    fn visit_f64<E>(self, f: f64) -> Result<Json, E> {
        Ok(serde_json::Number::from_f64(f).map_or(Json::Null, Json::Number))
    }
    fn visit_str<E>(self, s: &str) -> Result<Json, E> {
        Ok(Json::String(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Json, E> {
        Ok(Json::String(s))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn b(s: &str) -> Box<str> {
        s.into()
    }

    #[test]
    fn needs_merge_to_the_shortest_path() {
        let mut n = Need::Nothing;
        n.add(&[b("metadata"), b("labels")]);
        n.add(&[b("metadata"), b("name")]);
        n.add(&[b("spec")]);
        n.add(&[b("spec"), b("replicas")]);
        let Need::Members(m) = &n else { panic!() };
        assert_eq!(m["spec"], Need::All);
        let Need::Members(meta) = &m["metadata"] else {
            panic!()
        };
        assert_eq!(meta.len(), 2);
        n.add(&[]);
        assert_eq!(n, Need::All);
    }

    #[test]
    fn a_presence_test_keeps_the_member_but_not_its_value() {
        let members = |pairs: Vec<(&str, Need)>| {
            Need::Members(pairs.into_iter().map(|(k, v)| (b(k), v)).collect())
        };
        let mut n = Need::Nothing;
        n.add_presence(&[b("metadata"), b("labels")]);
        assert_eq!(
            n,
            members(vec![("metadata", members(vec![("labels", Need::Nothing)]))])
        );
        // A value read below or at the tested member wins, in either order.
        n.add(&[b("metadata"), b("labels"), b("app")]);
        n.add_presence(&[b("metadata"), b("labels"), b("app")]);
        n.add_presence(&[b("metadata"), b("annotations")]);
        let labels = members(vec![("app", Need::All)]);
        assert_eq!(
            n,
            members(vec![(
                "metadata",
                members(vec![("labels", labels), ("annotations", Need::Nothing)])
            )])
        );
        n.add(&[b("metadata")]);
        n.add_presence(&[b("metadata"), b("labels")]);
        assert_eq!(n, members(vec![("metadata", Need::All)]));
        let mut all = Need::All;
        all.add_presence(&[b("spec")]);
        assert_eq!(all, Need::All);
    }

    #[test]
    fn prunes_objects_and_keeps_the_rest() {
        let mut object = Need::Nothing;
        object.add(&[b("metadata"), b("labels")]);
        let old = Need::Nothing;
        let text = r#"{"kind":"AdmissionReview","request":{"uid":"u","dryRun":false,
            "object":{"metadata":{"labels":{"a":"b"},"name":"x"},"spec":{"big":[1,2,{"c":"\u00e9"}]}},
            "oldObject":{"spec":1},"userInfo":{"groups":["g"]}}}"#;
        let prune = |text: &str| {
            let mut de = serde_json::Deserializer::from_str(text);
            ReviewSeed {
                object: &object,
                old_object: &old,
                request: &Need::All,
            }
            .deserialize(&mut de)
            .unwrap()
            .unwrap()
        };
        assert_eq!(
            prune(text),
            serde_json::json!({"uid":"u","dryRun":false,
                "object":{"metadata":{"labels":{"a":"b"}}},
                "oldObject":null,"userInfo":{"groups":["g"]}})
        );
        // A non-object where members are expected is kept whole.
        let text = r#"{"request":{"object":{"metadata":[1,{"x":2}]}}}"#;
        assert_eq!(
            prune(text),
            serde_json::json!({"object":{"metadata":[1,{"x":2}]}})
        );
    }

    #[test]
    fn the_envelope_keeps_the_type_and_the_pruned_request() {
        let mut object = Need::Nothing;
        object.add(&[b("metadata"), b("labels")]);
        let old = Need::Nothing;
        let text = r#"{"kind":"AdmissionReview","extra":{"big":[1,2,3]},"apiVersion":"admission.k8s.io/v1",
            "request":{"uid":"u","object":{"metadata":{"labels":{"a":"b"},"name":"n"},"spec":{}}}}"#;
        let mut de = serde_json::Deserializer::from_str(text);
        let review = EnvelopeSeed {
            object: &object,
            old_object: &old,
        }
        .deserialize(&mut de)
        .unwrap();
        assert_eq!(
            review,
            serde_json::json!({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",
                "request":{"uid":"u","object":{"metadata":{"labels":{"a":"b"}}}}})
        );
        // Members absent are absent; a later duplicate wins, as in a JSON value.
        let mut de = serde_json::Deserializer::from_str(r#"{"kind":1,"kind":"K"}"#);
        let review = EnvelopeSeed {
            object: &object,
            old_object: &old,
        }
        .deserialize(&mut de)
        .unwrap();
        assert_eq!(review, serde_json::json!({"kind":"K"}));
    }

    #[test]
    fn bad_json_is_an_error_with_a_position() {
        let n = Need::All;
        let mut de = serde_json::Deserializer::from_str(r#"{"request":{"object":{"a":}}}"#);
        let err = ReviewSeed {
            object: &n,
            old_object: &n,
            request: &n,
        }
        .deserialize(&mut de)
        .unwrap_err();
        assert_eq!(err.to_string(), "expected value at line 1 column 27");
    }
}
