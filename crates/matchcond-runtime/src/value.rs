//! CEL values.
//!
//! A [`Value`] either owns its data (behind `Arc`, so clones are cheap) or borrows it: from the
//! request document (`serde_json::Value` nodes, viewed in place: a JSON object is a CEL map, an
//! array a list, a number an int or a double), or from the compiled program (constants). No
//! whole object is ever converted; a field selection on a JSON map is a lookup that yields
//! another borrowed view.

use std::any::Any;
use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

use memchr::arch::all::is_equal;
use serde_json::Value as Json;
use smallvec::SmallVec;

use crate::error::{ErrorKind, EvalError};
pub use crate::request_view::json_member;
use crate::request_view::{request_field_index, RequestView, REQUEST_FIELDS};
pub use crate::time::{Duration, Timestamp};

/// A CEL value whose borrowed parts live for `'a`.
#[derive(Clone, Debug)]
pub enum Value<'a> {
    /// `null`
    Null,
    /// `bool`
    Bool(bool),
    /// `int` (64-bit signed)
    Int(i64),
    /// `uint` (64-bit unsigned)
    Uint(u64),
    /// `double`
    Double(f64),
    /// `string`
    String(Str<'a>),
    /// `bytes`
    Bytes(Bin<'a>),
    /// `list`
    List(List<'a>),
    /// `map`
    Map(Map<'a>),
    /// `google.protobuf.Timestamp`
    Timestamp(Timestamp),
    /// `google.protobuf.Duration`
    Duration(Duration),
    /// A type value such as `int` or `kubernetes.Quantity`.
    Type(TypeName),
    /// `optional_type`
    Optional(Optional<'a>),
    /// A value of a library type (Quantity, IP, CIDR, URL, Semver, format, authorizer values).
    Opaque(Arc<dyn Opaque>),
}

/// A value of a type that a library defines.
pub trait Opaque: Send + Sync + fmt::Debug + 'static {
    /// The CEL type name, e.g. `kubernetes.Quantity`.
    fn type_name(&self) -> &'static str;
    /// CEL equality with another value of any opaque type.
    fn equals(&self, other: &dyn Opaque) -> bool;
    /// For downcasting in library functions.
    fn as_any(&self) -> &dyn Any;
    /// The size the cost model uses (`Sizer` in cel-go); `None` means 1.
    fn cost_size(&self) -> Option<u64> {
        None
    }
    /// A text form of the value (what `string(v)` gives where the library defines it).
    fn text(&self) -> String {
        format!("{self:?}")
    }
    /// `==` with this value on the left: `None` when the library's `Equal` rejects the other
    /// value (cel-go's "no such overload"). By default only a value of the same type
    /// compares, through [`Opaque::equals`].
    fn equal_value(&self, other: &Value<'_>) -> Option<bool> {
        match other {
            Value::Opaque(o) if o.type_name() == self.type_name() => Some(self.equals(o.as_ref())),
            _ => None,
        }
    }
}

/// A string, borrowed or shared.
#[derive(Clone, Debug)]
pub enum Str<'a> {
    /// Borrowed from the request or the program.
    Borrowed(&'a str),
    /// Created during evaluation.
    Shared(Arc<str>),
}

impl Deref for Str<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            Str::Borrowed(s) => s,
            Str::Shared(s) => s,
        }
    }
}

impl<'a> Str<'a> {
    /// The text, borrowed for `'a` when possible.
    pub fn as_str(&self) -> &str {
        self
    }
}

/// A byte string, borrowed or shared.
#[derive(Clone, Debug)]
pub enum Bin<'a> {
    /// Borrowed from the program.
    Borrowed(&'a [u8]),
    /// Created during evaluation.
    Shared(Arc<[u8]>),
}

impl Deref for Bin<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bin::Borrowed(s) => s,
            Bin::Shared(s) => s,
        }
    }
}

/// A list (read it with its methods: its variants are how the engine holds it).
#[derive(Clone, Debug)]
pub enum List<'a> {
    #[doc(hidden)]
    /// A JSON array of the request, viewed in place.
    Json(&'a [Json]),
    #[doc(hidden)]
    /// Values borrowed from the program (constants).
    Borrowed(&'a [Value<'a>]),
    #[doc(hidden)]
    /// Values created during evaluation.
    Shared(Arc<Vec<Value<'a>>>),
}

impl<'a> List<'a> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            List::Json(v) => v.len(),
            List::Borrowed(v) => v.len(),
            List::Shared(v) => v.len(),
        }
    }

    /// True when the list has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element at `i`.
    pub fn get(&self, i: usize) -> Option<Value<'a>> {
        match self {
            List::Json(v) => v.get(i).map(Value::from_json),
            List::Borrowed(v) => v.get(i).cloned(),
            List::Shared(v) => v.get(i).cloned(),
        }
    }

    /// Iterates over the elements.
    pub fn iter(&self) -> ListIter<'a, '_> {
        ListIter { list: self, i: 0 }
    }

    /// Makes a list from values.
    pub fn from_vec(v: Vec<Value<'a>>) -> Self {
        List::Shared(Arc::new(v))
    }
}

/// Iterator over a [`List`].
pub struct ListIter<'a, 'l> {
    list: &'l List<'a>,
    i: usize,
}

impl<'a> Iterator for ListIter<'a, '_> {
    type Item = Value<'a>;
    fn next(&mut self) -> Option<Value<'a>> {
        let v = self.list.get(self.i)?;
        self.i += 1;
        Some(v)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.list.len().saturating_sub(self.i);
        (n, Some(n))
    }
}

/// A map (read it with its methods: its variants are how the engine holds it).
#[derive(Clone, Debug)]
pub enum Map<'a> {
    #[doc(hidden)]
    /// A JSON object of the request, viewed in place (string keys).
    Json(&'a serde_json::Map<String, Json>),
    #[doc(hidden)]
    /// An AdmissionRequest viewed in place as the apiserver exposes it in `request`: the
    /// members of the AdmissionRequest it builds from the admission attributes (`uid` empty,
    /// `object`, `oldObject` and a missing `options` null, `resource` the original request's,
    /// struct members at their zero values, empty `omitempty` strings absent, `dryRun`
    /// always present); see [`REQUEST_FIELDS`].
    Request(RequestView<'a>),
    #[doc(hidden)]
    /// A structure of the `request` view (`kind`, `resource`, `userInfo` …) whose JSON is
    /// not in the form Go gives it (`null` or empty members, undeclared members): shown with
    /// its declared members only, as the apiserver's typed request has them (see
    /// [`crate::request_parts`]).
    RequestPart(
        &'a serde_json::Map<String, Json>,
        crate::request_parts::Part,
    ),
    #[doc(hidden)]
    /// Entries borrowed from the program (constants).
    Borrowed(&'a MapData<'a>),
    #[doc(hidden)]
    /// Entries created during evaluation.
    Shared(Arc<MapData<'a>>),
}

/// The entries of a map created by CEL (literals, `transformMap`), in insertion order.
///
/// Small maps are searched linearly; past [`MapData::INDEXED_FROM`] entries a hash index
/// (by a hash of the key's value, numbers hashed by their numeric value) finds keys, so
/// that building a large map is not quadratic.
#[derive(Clone, Debug, Default)]
pub struct MapData<'a> {
    entries: Vec<(Value<'a>, Value<'a>)>,
    /// Key hash → positions in `entries`; filled once there are `INDEXED_FROM` entries.
    index: HashMap<u64, SmallVec<[usize; 1]>>,
}

/// The hash of a map key by value: equal keys (`1`, `1u`, `1.0`) hash alike. `None` for a
/// value no map key can equal.
fn key_hash(k: &Value<'_>) -> Option<u64> {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    match k {
        Value::String(s) => (0u8, s.as_str()).hash(&mut h),
        Value::Bool(b) => (1u8, *b).hash(&mut h),
        Value::Int(i) => (2u8, i128::from(*i)).hash(&mut h),
        Value::Uint(u) => (2u8, i128::from(*u)).hash(&mut h),
        Value::Double(d) => {
            // Only an integral double within the range of ints and uints can equal a key.
            if d.fract() != 0.0 || !d.is_finite() || d.abs() > 2e19 {
                return None;
            }
            (2u8, *d as i128).hash(&mut h)
        }
        _ => return None,
    }
    Some(h.finish())
}

impl<'a> MapData<'a> {
    /// The number of entries from which keys are found through a hash index.
    pub const INDEXED_FROM: usize = 16;

    /// An empty map.
    pub fn new() -> Self {
        MapData {
            entries: Vec::new(),
            index: HashMap::new(),
        }
    }

    /// Appends an entry whose key is not present, keeping the index.
    fn push(&mut self, k: Value<'a>, v: Value<'a>) {
        self.entries.push((k, v));
        let n = self.entries.len();
        if n == Self::INDEXED_FROM {
            for (i, (k, _)) in self.entries.iter().enumerate() {
                if let Some(h) = key_hash(k) {
                    self.index.entry(h).or_default().push(i);
                }
            }
        } else if n > Self::INDEXED_FROM {
            if let Some(h) = self.entries.last().and_then(|(k, _)| key_hash(k)) {
                self.index.entry(h).or_default().push(n - 1);
            }
        }
    }

    /// The position of a key, as cel-go finds one (`Find` of its map of values): the key
    /// itself (same type and value), else a double that is an integer as an int and then
    /// as a uint, an int as a uint, a uint as an int. An int is never found as a double:
    /// `{1.0: 'a'}[1]` has no such key, while `{1: 'a'}[1.0]` is `'a'`.
    fn position(&self, k: &Value<'_>) -> Option<usize> {
        if let Some(i) = self.exact_position(k) {
            return Some(i);
        }
        match *k {
            Value::Double(d) => {
                let as_int =
                    double_to_int_lossless(d).and_then(|i| self.exact_position(&Value::Int(i)));
                as_int.or_else(|| {
                    double_to_uint_lossless(d).and_then(|u| self.exact_position(&Value::Uint(u)))
                })
            }
            Value::Int(i) => u64::try_from(i)
                .ok()
                .and_then(|u| self.exact_position(&Value::Uint(u))),
            Value::Uint(u) => i64::try_from(u)
                .ok()
                .and_then(|i| self.exact_position(&Value::Int(i))),
            _ => None,
        }
    }

    /// The position of a key of the same type and value.
    fn exact_position(&self, k: &Value<'_>) -> Option<usize> {
        if self.entries.len() < Self::INDEXED_FROM {
            return self
                .entries
                .iter()
                .position(|(ek, _)| same_literal_key(ek, k));
        }
        let candidates = self.index.get(&key_hash(k)?)?;
        candidates.iter().copied().find(|&i| {
            self.entries
                .get(i)
                .is_some_and(|(ek, _)| same_literal_key(ek, k))
        })
    }

    /// Builds a map, failing on a repeated key (`Failed with repeated key`) or a key of a
    /// type that cannot be a map key.
    pub fn from_entries(entries: Vec<(Value<'a>, Value<'a>)>) -> Result<Self, EvalError> {
        let mut m = MapData {
            entries: Vec::with_capacity(entries.len()),
            index: HashMap::new(),
        };
        for (k, v) in entries {
            m.insert_new(k, v)?;
        }
        Ok(m)
    }

    /// Inserts a key that must not be present yet.
    pub fn insert_new(&mut self, k: Value<'a>, v: Value<'a>) -> Result<(), EvalError> {
        check_key_type(&k)?;
        if self.position(&k).is_some() {
            return Err(EvalError::repeated_key(&k));
        }
        self.push(k, v);
        Ok(())
    }

    /// Adds an entry of a map literal as cel-go builds one: any value may be a key, and a
    /// repeated key (the same type and value) keeps the last value, in the first key's place.
    pub fn insert_literal(&mut self, k: Value<'a>, v: Value<'a>) {
        let found = if key_hash(&k).is_none() {
            self.entries.iter().position(|e| same_literal_key(&e.0, &k))
        } else {
            self.exact_position(&k)
        };
        match found.and_then(|i| self.entries.get_mut(i)) {
            Some(e) => e.1 = v,
            None => self.push(k, v),
        }
    }

    /// Inserts or replaces a key.
    pub fn insert(&mut self, k: Value<'a>, v: Value<'a>) -> Result<(), EvalError> {
        check_key_type(&k)?;
        match self.position(&k).and_then(|i| self.entries.get_mut(i)) {
            Some(e) => e.1 = v,
            None => self.push(k, v),
        }
        Ok(())
    }

    /// Looks a key up as cel-go does (see `MapData::position`: `1.0` finds `1` and `1u`, `1`
    /// finds `1u` and `1u` finds `1`, but neither finds `1.0`).
    pub fn get(&self, k: &Value<'_>) -> Option<&Value<'a>> {
        self.position(k)
            .and_then(|i| self.entries.get(i))
            .map(|(_, v)| v)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries in insertion order.
    pub fn entries(&self) -> &[(Value<'a>, Value<'a>)] {
        &self.entries
    }
}

/// cel-go's `doubleToInt64Lossless`: the int a double is exactly, strictly inside the range
/// of ints.
fn double_to_int_lossless(d: f64) -> Option<i64> {
    if !d.is_finite() || d <= i64::MIN as f64 || d >= i64::MAX as f64 {
        return None;
    }
    let i = d as i64;
    (i as f64 == d).then_some(i)
}

/// cel-go's `doubleToUint64Lossless`: the uint a double is exactly, below the largest uint.
fn double_to_uint_lossless(d: f64) -> Option<u64> {
    if !d.is_finite() || d < 0.0 || d >= u64::MAX as f64 {
        return None;
    }
    let u = d as u64;
    (u as f64 == d).then_some(u)
}

/// Whether two map keys are one key (same type and value, as Go compares the keys of a
/// map of values; values of other types, like lists, are never the same key).
fn same_literal_key(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) => x.as_str() == y.as_str(),
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Uint(x), Value::Uint(y)) => x == y,
        (Value::Double(x), Value::Double(y)) => x == y,
        (Value::Null, Value::Null) => true,
        (Value::Bytes(x), Value::Bytes(y)) => **x == **y,
        (Value::Timestamp(x), Value::Timestamp(y)) => x == y,
        (Value::Duration(x), Value::Duration(y)) => x == y,
        (Value::Type(x), Value::Type(y)) => x == y,
        _ => false,
    }
}

fn check_key_type(k: &Value<'_>) -> Result<(), EvalError> {
    match k {
        Value::Bool(_) | Value::Int(_) | Value::Uint(_) | Value::String(_) => Ok(()),
        other => Err(EvalError::new(
            crate::error::ErrorKind::InvalidArgument,
            format!("unsupported key type: {}", other.type_name()),
        )),
    }
}

/// Map-key equality: same type, or numerically equal int/uint/double.
pub fn key_equals(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) => x.as_str() == y.as_str(),
        (Value::Bool(x), Value::Bool(y)) => x == y,
        _ => match numeric_cmp(a, b) {
            Some(o) => o == Ordering::Equal,
            None => false,
        },
    }
}

/// True when `serde_json`'s maps iterate in key order (its default B-tree map); false when
/// the `preserve_order` feature is enabled somewhere in the build (insertion order).
fn json_maps_are_sorted() -> bool {
    static SORTED: std::sync::LazyLock<bool> = std::sync::LazyLock::new(|| {
        let mut m = serde_json::Map::new();
        m.insert("b".into(), Json::Null);
        m.insert("a".into(), Json::Null);
        m.keys().next().map(String::as_str) == Some("a")
    });
    *SORTED
}

/// [`json_equal`] of two JSON objects.
fn json_equal_objects(
    x: &serde_json::Map<String, Json>,
    y: &serde_json::Map<String, Json>,
) -> bool {
    x.len() == y.len()
        && if json_maps_are_sorted() {
            x.iter()
                .zip(y.iter())
                .all(|((ka, va), (kb, vb))| ka == kb && json_equal(va, vb))
        } else {
            x.iter()
                .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
}

/// CEL equality of two JSON nodes: what [`values_equal`] says of their views, computed on
/// the nodes (objects with the same keys in the same order are compared pairwise, without
/// lookups).
pub fn json_equal(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Object(x), Json::Object(y)) => json_equal_objects(x, y),
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_equal(p, q))
        }
        (Json::String(x), Json::String(y)) => x == y,
        _ => values_equal(&Value::from_json(a), &Value::from_json(b)),
    }
}

/// A field of an AdmissionRequest view.
fn request_get<'a>(m: RequestView<'a>, k: &str) -> Option<Value<'a>> {
    let i = request_field_index(k)?;
    m.field(i).map(|j| request_value(i, j))
}

/// The value of the `request` view's member `index` found as `j`: the node itself, or the
/// view of a structure not in Go's form.
fn request_value(index: usize, j: &Json) -> Value<'_> {
    match (crate::request_parts::Part::of_field(index), j) {
        (Some(part), Json::Object(m)) if !part.shows_as_is(j) => {
            Value::Map(Map::RequestPart(m, part))
        }
        _ => Value::from_json(j),
    }
}

impl<'a> Map<'a> {
    /// Number of entries.
    pub fn len(&self) -> usize {
        match self {
            Map::Json(m) => m.len(),
            Map::Request(m) => (0..REQUEST_FIELDS.len())
                .filter(|&i| m.field(i).is_some())
                .count(),
            Map::RequestPart(m, p) => p.len(m),
            Map::Borrowed(m) => m.len(),
            Map::Shared(m) => m.len(),
        }
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Looks a key up.
    pub fn get(&self, k: &Value<'_>) -> Option<Value<'a>> {
        match self {
            Map::Json(m) => match k {
                Value::String(s) => m.get(s.as_str()).map(Value::from_json),
                _ => None,
            },
            Map::Request(m) => match k {
                Value::String(s) => request_get(*m, s),
                _ => None,
            },
            Map::RequestPart(m, p) => match k {
                Value::String(s) => p.member(m, s).map(Value::from_json),
                _ => None,
            },
            Map::Borrowed(m) => m.get(k).cloned(),
            Map::Shared(m) => m.get(k).cloned(),
        }
    }

    /// Looks a string key up (the fast path of field selection).
    pub fn get_str(&self, k: &str) -> Option<Value<'a>> {
        match self {
            Map::Json(m) => m.get(k).map(Value::from_json),
            Map::Request(m) => request_get(*m, k),
            Map::RequestPart(m, p) => p.member(m, k).map(Value::from_json),
            Map::Borrowed(m) => m.get(&Value::String(Str::Borrowed(k))).cloned(),
            Map::Shared(m) => m.get(&Value::String(Str::Borrowed(k))).cloned(),
        }
    }

    /// True when the key is present.
    pub fn contains_key(&self, k: &Value<'_>) -> bool {
        match self {
            Map::Json(m) => match k {
                Value::String(s) => m.contains_key(s.as_str()),
                _ => false,
            },
            Map::Request(m) => match k {
                Value::String(s) => request_get(*m, s).is_some(),
                _ => false,
            },
            Map::RequestPart(m, p) => match k {
                Value::String(s) => p.member(m, s).is_some(),
                _ => false,
            },
            Map::Borrowed(m) => m.get(k).is_some(),
            Map::Shared(m) => m.get(k).is_some(),
        }
    }

    /// The keys in iteration order.
    pub fn keys(&self) -> MapKeys<'a, '_> {
        match self {
            Map::Json(m) => MapKeys::Json(m.keys()),
            Map::Request(m) => MapKeys::Request(RequestIter::new(*m)),
            Map::RequestPart(m, p) => MapKeys::Part(p.iter(m)),
            Map::Borrowed(m) => MapKeys::Entries(m.entries().iter()),
            Map::Shared(m) => MapKeys::Entries(m.entries().iter()),
        }
    }

    /// Iterates over the entries in iteration order.
    pub fn iter(&self) -> MapIter<'a, '_> {
        match self {
            Map::Json(m) => MapIter::Json(m.iter()),
            Map::Request(m) => MapIter::Request(RequestIter::new(*m)),
            Map::RequestPart(m, p) => MapIter::Part(p.iter(m)),
            Map::Borrowed(m) => MapIter::Entries(m.entries().iter()),
            Map::Shared(m) => MapIter::Entries(m.entries().iter()),
        }
    }
}

/// Iterator over the keys of a [`Map`].
pub enum MapKeys<'a, 'm> {
    /// Keys of a JSON object.
    Json(serde_json::map::Keys<'a>),
    /// Keys of an AdmissionRequest view.
    Request(RequestIter<'a>),
    /// Keys of a structure of an AdmissionRequest view.
    Part(crate::request_parts::PartIter<'a>),
    /// Keys of CEL-created entries.
    Entries(std::slice::Iter<'m, (Value<'a>, Value<'a>)>),
}

impl<'a> Iterator for MapKeys<'a, '_> {
    type Item = Value<'a>;
    fn next(&mut self) -> Option<Value<'a>> {
        match self {
            MapKeys::Json(it) => it.next().map(|k| Value::String(Str::Borrowed(k.as_str()))),
            MapKeys::Request(it) => it.next().map(|(k, _)| k),
            MapKeys::Part(it) => it.next().map(|(k, _)| Value::String(Str::Borrowed(k))),
            MapKeys::Entries(it) => it.next().map(|(k, _)| k.clone()),
        }
    }
}

/// Iterator over the entries of a [`Map`].
pub enum MapIter<'a, 'm> {
    /// Entries of a JSON object.
    Json(serde_json::map::Iter<'a>),
    /// Entries of an AdmissionRequest view.
    Request(RequestIter<'a>),
    /// Entries of a structure of an AdmissionRequest view.
    Part(crate::request_parts::PartIter<'a>),
    /// CEL-created entries.
    Entries(std::slice::Iter<'m, (Value<'a>, Value<'a>)>),
}

impl<'a> Iterator for MapIter<'a, '_> {
    type Item = (Value<'a>, Value<'a>);
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            MapIter::Json(it) => it.next().map(|(k, v)| {
                (
                    Value::String(Str::Borrowed(k.as_str())),
                    Value::from_json(v),
                )
            }),
            MapIter::Request(it) => it.next(),
            MapIter::Part(it) => it
                .next()
                .map(|(k, v)| (Value::String(Str::Borrowed(k)), Value::from_json(v))),
            MapIter::Entries(it) => it.next().cloned(),
        }
    }
}

/// Iterator over the entries of an AdmissionRequest view, in the order of
/// [`REQUEST_FIELDS`] (by name).
pub struct RequestIter<'a> {
    map: RequestView<'a>,
    /// The next index into the request fields.
    next: usize,
}

impl<'a> RequestIter<'a> {
    fn new(map: RequestView<'a>) -> Self {
        RequestIter { map, next: 0 }
    }
}

impl<'a> Iterator for RequestIter<'a> {
    type Item = (Value<'a>, Value<'a>);
    fn next(&mut self) -> Option<Self::Item> {
        while let Some(&name) = REQUEST_FIELDS.get(self.next) {
            let i = self.next;
            self.next += 1;
            if let Some(v) = self.map.field(i) {
                return Some((Value::String(Str::Borrowed(name)), request_value(i, v)));
            }
        }
        None
    }
}

/// The name of a CEL type, as a type value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypeName(pub Cow<'static, str>);

impl TypeName {
    /// A type name known at compile time.
    pub const fn new_static(s: &'static str) -> Self {
        TypeName(Cow::Borrowed(s))
    }
    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An optional value.
#[derive(Clone, Debug)]
pub enum Optional<'a> {
    /// `optional.none()`
    None,
    /// A present value that is a node of the request (no allocation).
    Json(&'a Json),
    /// A present value.
    Some(Arc<Value<'a>>),
}

impl<'a> Optional<'a> {
    /// The present value, if any.
    pub fn get(&self) -> Option<Value<'a>> {
        match self {
            Optional::None => None,
            Optional::Json(j) => Some(Value::from_json(j)),
            Optional::Some(v) => Some((**v).clone()),
        }
    }

    /// Wraps a value.
    pub fn of(v: Value<'a>) -> Self {
        Optional::Some(Arc::new(v))
    }

    /// True when a value is present.
    pub fn has_value(&self) -> bool {
        !matches!(self, Optional::None)
    }
}

impl<'a> Value<'a> {
    /// Views a JSON node as a CEL value (O(1), no copy). Numbers that fit an `i64` are ints,
    /// others doubles, as the apiserver's unstructured conversion gives.
    pub fn from_json(j: &'a Json) -> Value<'a> {
        match j {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Value::Int(i)
                } else {
                    Value::Double(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Json::String(s) => Value::String(Str::Borrowed(s.as_str())),
            Json::Array(a) => Value::List(List::Json(a.as_slice())),
            Json::Object(m) => Value::Map(Map::Json(m)),
        }
    }

    /// A string value created during evaluation.
    pub fn string(s: impl Into<Arc<str>>) -> Value<'a> {
        Value::String(Str::Shared(s.into()))
    }

    /// A bytes value created during evaluation.
    pub fn bytes(b: impl Into<Arc<[u8]>>) -> Value<'a> {
        Value::Bytes(Bin::Shared(b.into()))
    }

    /// A list value created during evaluation.
    pub fn list(v: Vec<Value<'a>>) -> Value<'a> {
        Value::List(List::from_vec(v))
    }

    /// The CEL type name of the value.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null_type",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Uint(_) => "uint",
            Value::Double(_) => "double",
            Value::String(_) => "string",
            Value::Bytes(_) => "bytes",
            Value::List(_) => "list",
            Value::Map(_) => "map",
            Value::Timestamp(_) => "google.protobuf.Timestamp",
            Value::Duration(_) => "google.protobuf.Duration",
            Value::Type(_) => "type",
            Value::Optional(_) => "optional_type",
            Value::Opaque(o) => o.type_name(),
        }
    }

    /// The type of the value as a type value (`type(x)`).
    pub fn type_value(&self) -> TypeName {
        TypeName::new_static(self.type_name())
    }

    /// The size that the cost model charges for (cel-go's `actualSize`): code points of a
    /// string, bytes of a byte string, elements of a list or map, the inner value's size for
    /// a present optional, the library's size for opaque values, 1 otherwise.
    pub fn cost_size(&self) -> u64 {
        match self {
            Value::String(s) => s.chars().count() as u64,
            Value::Bytes(b) => b.len() as u64,
            Value::List(l) => l.len() as u64,
            Value::Map(m) => m.len() as u64,
            Value::Optional(o) => match o.get() {
                Some(v) => v.cost_size(),
                None => 1,
            },
            Value::Opaque(o) => o.cost_size().unwrap_or(1),
            _ => 1,
        }
    }

    /// The boolean, if this is a bool.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The string, if this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// Converts the value into an owned value that no longer borrows the request or the
    /// program (copying borrowed parts).
    pub fn into_owned(self) -> Value<'static> {
        match self {
            Value::Null => Value::Null,
            Value::Bool(b) => Value::Bool(b),
            Value::Int(i) => Value::Int(i),
            Value::Uint(u) => Value::Uint(u),
            Value::Double(d) => Value::Double(d),
            Value::String(s) => Value::String(Str::Shared(Arc::from(s.as_str()))),
            Value::Bytes(b) => Value::Bytes(Bin::Shared(Arc::from(&*b))),
            Value::List(l) => {
                Value::List(List::from_vec(l.iter().map(Value::into_owned).collect()))
            }
            Value::Map(m) => {
                let mut d = MapData::new();
                for (k, v) in m.iter() {
                    // The keys of a map are distinct.
                    d.push(k.into_owned(), v.into_owned());
                }
                Value::Map(Map::Shared(Arc::new(d)))
            }
            Value::Timestamp(t) => Value::Timestamp(t),
            Value::Duration(d) => Value::Duration(d),
            Value::Type(t) => Value::Type(t),
            Value::Optional(o) => Value::Optional(match o.get() {
                None => Optional::None,
                Some(v) => Optional::of(v.into_owned()),
            }),
            Value::Opaque(o) => Value::Opaque(o),
        }
    }
}

/// Compares two numeric values of any of int, uint and double exactly (by mathematical
/// value; map keys are matched this way). `None` when either is not a number, or a double is
/// NaN. CEL's `==` and `<` use [`cel_numeric_cmp`] instead.
pub fn numeric_cmp(a: &Value<'_>, b: &Value<'_>) -> Option<Ordering> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::Uint(x), Value::Uint(y)) => Some(x.cmp(y)),
        (Value::Double(x), Value::Double(y)) => x.partial_cmp(y),
        (Value::Int(x), Value::Uint(y)) => Some(cmp_int_uint(*x, *y)),
        (Value::Uint(x), Value::Int(y)) => Some(cmp_int_uint(*y, *x).reverse()),
        (Value::Int(x), Value::Double(y)) => cmp_int_double(*x, *y),
        (Value::Double(x), Value::Int(y)) => cmp_int_double(*y, *x).map(Ordering::reverse),
        (Value::Uint(x), Value::Double(y)) => cmp_uint_double(*x, *y),
        (Value::Double(x), Value::Uint(y)) => cmp_uint_double(*y, *x).map(Ordering::reverse),
        _ => None,
    }
}

/// Compares two numeric values as cel-go's `Compare` and `Equal` do: int and uint exactly,
/// but a double against an int or uint by converting the integer to a double (so
/// `9223372036854775807 == 9223372036854775808.0`), except that a double outside the integer
/// type's range orders beyond every integer of that type. `None` when either is not a number,
/// or a double is NaN.
pub fn cel_numeric_cmp(a: &Value<'_>, b: &Value<'_>) -> Option<Ordering> {
    match (a, b) {
        (Value::Double(x), Value::Int(y)) => cel_cmp_double_int(*x, *y),
        (Value::Int(x), Value::Double(y)) => cel_cmp_double_int(*y, *x).map(Ordering::reverse),
        (Value::Double(x), Value::Uint(y)) => cel_cmp_double_uint(*x, *y),
        (Value::Uint(x), Value::Double(y)) => cel_cmp_double_uint(*y, *x).map(Ordering::reverse),
        _ => numeric_cmp(a, b),
    }
}

fn cel_cmp_double_int(d: f64, i: i64) -> Option<Ordering> {
    if d.is_nan() {
        return None;
    }
    if d < -9_223_372_036_854_775_808.0 {
        return Some(Ordering::Less);
    }
    if d > 9_223_372_036_854_775_808.0 {
        return Some(Ordering::Greater);
    }
    d.partial_cmp(&(i as f64))
}

fn cel_cmp_double_uint(d: f64, u: u64) -> Option<Ordering> {
    if d.is_nan() {
        return None;
    }
    if d < 0.0 {
        return Some(Ordering::Less);
    }
    if d > 18_446_744_073_709_551_616.0 {
        return Some(Ordering::Greater);
    }
    d.partial_cmp(&(u as f64))
}

fn cmp_int_uint(i: i64, u: u64) -> Ordering {
    if i < 0 {
        Ordering::Less
    } else {
        (i as u64).cmp(&u)
    }
}

fn cmp_int_double(i: i64, d: f64) -> Option<Ordering> {
    if d.is_nan() {
        return None;
    }
    // i64 range as doubles: [-2^63, 2^63).
    if d < -9_223_372_036_854_775_808.0 {
        return Some(Ordering::Greater);
    }
    if d >= 9_223_372_036_854_775_808.0 {
        return Some(Ordering::Less);
    }
    // Compare exactly: i against the integer part of d, then the fraction.
    let t = d.trunc();
    let ti = t as i64;
    match i.cmp(&ti) {
        Ordering::Equal => {
            let frac = d - t;
            if frac > 0.0 {
                Some(Ordering::Less)
            } else if frac < 0.0 {
                Some(Ordering::Greater)
            } else {
                Some(Ordering::Equal)
            }
        }
        o => Some(o),
    }
}

fn cmp_uint_double(u: u64, d: f64) -> Option<Ordering> {
    if d.is_nan() {
        return None;
    }
    if d < 0.0 {
        return Some(Ordering::Greater);
    }
    if d >= 18_446_744_073_709_551_616.0 {
        return Some(Ordering::Less);
    }
    let t = d.trunc();
    let tu = t as u64;
    match u.cmp(&tu) {
        Ordering::Equal => {
            if d - t > 0.0 {
                Some(Ordering::Less)
            } else {
                Some(Ordering::Equal)
            }
        }
        o => Some(o),
    }
}

/// [`values_equal`] of a JSON node and a scalar (a constant of a program), decided on the
/// node itself where the types tell without building a value: a string or a bool beside
/// one of its own type, `null` (equal only to `null`), and a list or map (equal to no
/// scalar). `None` where [`values_equal`] must decide (numbers, mixed scalar types, a
/// value that is not a scalar).
#[inline]
pub fn json_equals_scalar(node: &Json, scalar: &Value<'_>) -> Option<bool> {
    match (node, scalar) {
        (Json::String(x), Value::String(y)) => Some(is_equal(x.as_bytes(), y.as_bytes())),
        (Json::Bool(x), Value::Bool(y)) => Some(x == y),
        (node, Value::Null) => Some(node.is_null()),
        (
            Json::Null | Json::Array(_) | Json::Object(_),
            Value::Bool(_) | Value::Int(_) | Value::Uint(_) | Value::Double(_) | Value::String(_),
        ) => Some(false),
        _ => None,
    }
}

/// CEL equality (`==`) for values of any types: numbers compare by numeric value across
/// int, uint and double (as cel-go does, see [`cel_numeric_cmp`]); lists element-wise; maps
/// by keys and values; values of different types are unequal. NaN is unequal to everything.
pub fn values_equal(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x.as_str() == y.as_str(),
        (Value::Bytes(x), Value::Bytes(y)) => **x == **y,
        (Value::Int(_) | Value::Uint(_) | Value::Double(_), _) => {
            matches!(cel_numeric_cmp(a, b), Some(Ordering::Equal))
        }
        (Value::List(List::Json(x)), Value::List(List::Json(y))) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| json_equal(p, q))
        }
        (Value::Map(Map::Json(x)), Value::Map(Map::Json(y))) => json_equal_objects(x, y),
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| element_equal(&p, &q))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| match y.get(&k) {
                    Some(w) => element_equal(&v, &w),
                    None => false,
                })
        }
        (Value::Timestamp(x), Value::Timestamp(y)) => x == y,
        (Value::Duration(x), Value::Duration(y)) => x == y,
        (Value::Type(x), Value::Type(y)) => x == y,
        (Value::Optional(x), Value::Optional(y)) => match (x.get(), y.get()) {
            (None, None) => true,
            (Some(p), Some(q)) => values_equal(&p, &q),
            _ => false,
        },
        // The library's `Equal`; one that refuses the other value (an error in cel-go) is
        // not equality (`in`, `distinct` and `contains` look for `true`).
        (Value::Opaque(x), Value::Opaque(_)) => x.equal_value(b) == Some(true),
        _ => false,
    }
}

/// Equality of two elements of lists, or values of maps, being compared: cel-go's list and
/// map `Equal` stop only at `false`, so an element whose library `Equal` refuses the other
/// (an error) does not make the aggregates unequal.
fn element_equal(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::Opaque(x), Value::Opaque(_)) => x.equal_value(b) != Some(false),
        _ => values_equal(a, b),
    }
}

impl PartialEq for Value<'_> {
    fn eq(&self, other: &Self) -> bool {
        values_equal(self, other)
    }
}

/// Writes a string as a double-quoted CEL string literal.
pub fn write_string_literal(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    f.write_str("\"")?;
    for c in s.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            c if c.is_control() => write!(f, "\\u{:04x}", u32::from(c))?,
            c => write!(f, "{c}")?,
        }
    }
    f.write_str("\"")
}

/// Writes bytes as a CEL bytes literal (`b"..."`, printable ASCII kept, other bytes as `\xNN`).
pub fn write_bytes_literal(f: &mut fmt::Formatter<'_>, bytes: &[u8]) -> fmt::Result {
    f.write_str("b\"")?;
    for &c in bytes {
        match c {
            b'"' => f.write_str("\\\"")?,
            b'\\' => f.write_str("\\\\")?,
            0x20..=0x7e => write!(f, "{}", char::from(c))?,
            _ => write!(f, "\\x{c:02x}")?,
        }
    }
    f.write_str("\"")
}

/// Renders the value as CEL literal text: `1`, `1u`, `1.5`, `"text"`, `b"\x00"`, `[1, 2]`,
/// `{"a": 1}`, `timestamp("2024-01-01T00:00:00Z")`, `duration("1.5s")`, `optional.of(1)`.
impl fmt::Display for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Uint(u) => write!(f, "{u}u"),
            Value::Double(d) => {
                if d.is_nan() {
                    f.write_str("double(\"NaN\")")
                } else if d.is_infinite() {
                    f.write_str(if *d > 0.0 {
                        "double(\"Infinity\")"
                    } else {
                        "double(\"-Infinity\")"
                    })
                } else {
                    write!(f, "{d:?}")
                }
            }
            Value::String(s) => write_string_literal(f, s),
            Value::Bytes(b) => write_bytes_literal(f, b),
            Value::List(l) => {
                f.write_str("[")?;
                for (i, v) in l.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
            Value::Map(m) => {
                f.write_str("{")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
            // cel-go's `String()` of a timestamp is in UTC.
            Value::Timestamp(t) => write!(
                f,
                "timestamp(\"{}\")",
                crate::time::format_rfc3339(&t.with_offset(0))
            ),
            Value::Duration(d) => {
                write!(f, "duration(\"{}\")", crate::time::format_duration(d.nanos))
            }
            Value::Type(t) => f.write_str(t.as_str()),
            Value::Optional(o) => match o.get() {
                None => f.write_str("optional.none()"),
                Some(v) => write!(f, "optional.of({v})"),
            },
            Value::Opaque(o) => write!(f, "{}({:?})", o.type_name(), o.text()),
        }
    }
}

/// The trait a singleton function needs of its first argument (cel-go's `traits`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trait {
    /// `_+_`: int, uint, double, string, bytes, list, timestamp, duration.
    Adder,
    /// `_-_`: int, uint, double, timestamp, duration.
    Subtractor,
    /// `_*_`: int, uint, double.
    Multiplier,
    /// `_/_`: int, uint, double.
    Divider,
    /// `_%_`: int, uint.
    Modder,
    /// `-_`: bool, int, double, duration.
    Negater,
    /// `_<_` and the other orderings: bool, int, uint, double, string, bytes, timestamp,
    /// duration.
    Comparer,
    /// `size`: string, bytes, list, map.
    Sizer,
    /// `matches`: string.
    Matcher,
    /// `_[_]`: list, map.
    Indexer,
    /// `sort`, `@sortByAssociatedKeys`: list.
    Lister,
}

impl Trait {
    /// Whether a value's type has the trait.
    pub fn of(self, v: &Value<'_>) -> bool {
        use Value as V;
        match self {
            Trait::Adder => matches!(
                v,
                V::Int(_)
                    | V::Uint(_)
                    | V::Double(_)
                    | V::String(_)
                    | V::Bytes(_)
                    | V::List(_)
                    | V::Timestamp(_)
                    | V::Duration(_)
            ),
            Trait::Subtractor => matches!(
                v,
                V::Int(_) | V::Uint(_) | V::Double(_) | V::Timestamp(_) | V::Duration(_)
            ),
            Trait::Multiplier | Trait::Divider => {
                matches!(v, V::Int(_) | V::Uint(_) | V::Double(_))
            }
            Trait::Modder => matches!(v, V::Int(_) | V::Uint(_)),
            Trait::Negater => matches!(v, V::Bool(_) | V::Int(_) | V::Double(_) | V::Duration(_)),
            Trait::Comparer => matches!(
                v,
                V::Bool(_)
                    | V::Int(_)
                    | V::Uint(_)
                    | V::Double(_)
                    | V::String(_)
                    | V::Bytes(_)
                    | V::Timestamp(_)
                    | V::Duration(_)
            ),
            Trait::Sizer => matches!(v, V::String(_) | V::Bytes(_) | V::List(_) | V::Map(_)),
            Trait::Matcher => matches!(v, V::String(_)),
            Trait::Indexer => matches!(v, V::List(_) | V::Map(_)),
            Trait::Lister => matches!(v, V::List(_)),
        }
    }
}

/// The Go type name cel-go prints for a value in some messages (`%T`).
pub fn go_type_name(v: &Value<'_>) -> &'static str {
    match v {
        Value::Null => "types.Null",
        Value::Bool(_) => "types.Bool",
        Value::Int(_) => "types.Int",
        Value::Uint(_) => "types.Uint",
        Value::Double(_) => "types.Double",
        Value::String(_) => "types.String",
        Value::Bytes(_) => "types.Bytes",
        Value::List(_) => "*types.baseList",
        Value::Map(_) => "*types.baseMap",
        Value::Timestamp(_) => "types.Timestamp",
        Value::Duration(_) => "types.Duration",
        Value::Type(_) => "*types.Type",
        Value::Optional(_) => "*types.Optional",
        Value::Opaque(o) => o.type_name(),
    }
}

/// A key or index as cel-go's errors write it: its value for strings, numbers and
/// booleans, its type name otherwise.
pub(crate) fn key_text(k: &Value<'_>) -> String {
    match k {
        Value::String(s) => s.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Double(d) => d.to_string(),
        other => other.type_name().to_string(),
    }
}

/// The errors that name values (a key, the arguments' types).
impl EvalError {
    /// `no such key: <key>`
    pub fn no_such_key(key: &Value<'_>) -> Self {
        if let Value::String(s) = key {
            return Self::no_such_field_key(s.as_str());
        }
        EvalError::new(
            ErrorKind::NoSuchKey,
            format!("no such key: {}", key_text(key)),
        )
    }

    /// `no such overload: f(t1, t2)`: no overload of a function takes values of these types
    /// (cel-go's `MaybeNoSuchOverload` of the function's dispatcher and type guards).
    pub fn no_such_overload(function: &str, args: &[Value<'_>]) -> Self {
        let types: Vec<&str> = args.iter().map(Value::type_name).collect();
        EvalError::new(
            ErrorKind::NoSuchOverload,
            format!("no such overload: {}({})", function, types.join(", ")),
        )
    }

    /// `Failed with repeated key`
    pub fn repeated_key(_k: &Value<'_>) -> Self {
        EvalError::new(ErrorKind::Other, "Failed with repeated key")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A string node beside a string constant is compared byte for byte, whatever the
    /// length (short ones are compared in place, not through `memcmp`).
    #[test]
    fn a_string_node_is_equal_to_a_constant_byte_for_byte() {
        let text = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
        let same = |a: &[u8], b: &[u8]| {
            let b = text(b);
            json_equals_scalar(&Json::String(text(a)), &Value::String(Str::Borrowed(&b)))
                == Some(true)
        };
        let base: Vec<u8> = (0u8..40).map(|i| b'a' + i % 26).collect();
        for n in 0..=base.len() {
            let a = &base[..n];
            assert!(same(a, a), "{n}");
            assert!(!same(a, &base[..n.saturating_sub(1)]) || n == 0, "{n}");
            for at in 0..n {
                let mut b = a.to_vec();
                b[at] ^= 0x20;
                assert!(!same(a, &b), "{n} bytes, differing at {at}");
                assert!(!same(&b, a), "{n} bytes, differing at {at}");
            }
        }
    }

    /// Where the equality of a node and a scalar is decided on the node, it is
    /// [`values_equal`]'s answer, whichever the types.
    #[test]
    fn a_node_beside_a_scalar_is_equal_as_values_are() {
        use serde_json::json;
        let nodes = [
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(1),
            json!(1.5),
            json!(""),
            json!("a"),
            json!("1"),
            json!([]),
            json!([1]),
            json!({}),
            json!({"a": 1}),
        ];
        let list = [Value::Int(1)];
        let values = [
            Value::Null,
            Value::Bool(true),
            Value::Bool(false),
            Value::Int(1),
            Value::Uint(1),
            Value::Double(1.0),
            Value::String(Str::Borrowed("")),
            Value::String(Str::Borrowed("a")),
            Value::String(Str::Borrowed("1")),
            Value::List(List::Borrowed(&list)),
        ];
        let mut decided = 0;
        for node in &nodes {
            for v in &values {
                if let Some(eq) = json_equals_scalar(node, v) {
                    assert_eq!(eq, values_equal(&Value::from_json(node), v), "{node} {v:?}");
                    decided += 1;
                }
            }
        }
        // Strings and bools beside their own types, `null` beside anything, lists and
        // maps beside every scalar (not beside the list).
        assert_eq!(decided, 9 + 4 + nodes.len() + 4 * 8 + 8);
        // A list or map beside a list or map is left to `values_equal`.
        assert_eq!(json_equals_scalar(&json!([1]), &values[9]), None);
    }

    #[test]
    fn json_equality_is_the_equality_of_the_views() {
        let nodes: Vec<Json> = [
            "null",
            "true",
            "false",
            "0",
            "1",
            "1.0",
            "-1",
            "18446744073709551615",
            "1.8446744073709552e19",
            "\"\"",
            "\"a\"",
            "[]",
            "[1]",
            "[1.0]",
            "[1, 2]",
            "[2, 1]",
            "{}",
            "{\"a\": 1}",
            "{\"a\": 1.0}",
            "{\"b\": 1}",
            "{\"a\": 1, \"b\": 2}",
            "{\"a\": 1, \"c\": 2}",
            "{\"a\": {\"x\": [1, {\"y\": null}]}}",
            "{\"a\": {\"x\": [1.0, {\"y\": null}]}}",
            "{\"a\": {\"x\": [1, {\"y\": false}]}}",
        ]
        .iter()
        .map(|t| serde_json::from_str(t).unwrap())
        .collect();
        for a in &nodes {
            for b in &nodes {
                // The general comparison of the views, element by element and key by key.
                let general = match (Value::from_json(a), Value::from_json(b)) {
                    (Value::Map(x), Value::Map(y)) => {
                        x.len() == y.len()
                            && x.iter().all(|(k, v)| y.get(&k).is_some_and(|w| v == w))
                    }
                    (Value::List(x), Value::List(y)) => {
                        x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| p == q)
                    }
                    (x, y) => values_equal(&x, &y),
                };
                assert_eq!(json_equal(a, b), general, "{a} == {b}");
                assert_eq!(
                    values_equal(&Value::from_json(a), &Value::from_json(b)),
                    general,
                    "{a} == {b}"
                );
            }
        }
    }

    #[test]
    fn large_maps_find_keys_through_the_index_with_numeric_equivalence() {
        let mut m = MapData::new();
        for i in 0..100 {
            m.insert_new(Value::Int(i), Value::Int(i * 10)).unwrap();
        }
        m.insert_new(Value::string("k"), Value::Bool(true)).unwrap();
        assert!(matches!(m.get(&Value::Int(50)), Some(Value::Int(500))));
        assert!(matches!(m.get(&Value::Uint(99)), Some(Value::Int(990))));
        assert!(matches!(m.get(&Value::Double(7.0)), Some(Value::Int(70))));
        assert!(matches!(m.get(&Value::Double(-0.0)), Some(Value::Int(0))));
        assert!(m.get(&Value::Double(7.5)).is_none());
        assert!(m.get(&Value::Double(f64::NAN)).is_none());
        assert!(m.get(&Value::Int(100)).is_none());
        assert!(matches!(
            m.get(&Value::string("k")),
            Some(Value::Bool(true))
        ));
        assert_eq!(
            m.insert_new(Value::Uint(3), Value::Null)
                .unwrap_err()
                .message,
            "Failed with repeated key"
        );
        m.insert(Value::Int(3), Value::Null).unwrap();
        assert!(matches!(m.get(&Value::Int(3)), Some(Value::Null)));
        assert_eq!(m.len(), 101);
        // Small maps (no index) behave alike.
        let mut s = MapData::new();
        s.insert_new(Value::Int(1), Value::Null).unwrap();
        assert!(s.get(&Value::Double(1.0)).is_some());
        assert!(s.insert_new(Value::Uint(1), Value::Null).is_err());
    }
}
