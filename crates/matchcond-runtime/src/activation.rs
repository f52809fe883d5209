//! The variables an expression is evaluated with.
//!
//! In the matchConditions environment the variables are `object`, `oldObject`, `request`,
//! `namespaceObject`, `authorizer` and `authorizer.requestResource`. They are bound from an
//! already parsed AdmissionRequest without copying it: `object` and `oldObject` are views of
//! the request's JSON nodes (null when absent), and `request` is the request itself, as the
//! apiserver exposes it (its `dryRun` is always present). `authorizer` and
//! `authorizer.requestResource` are bound by [`Activation::with_authorizer`].

use std::sync::{Arc, LazyLock};

use serde_json::Value as Json;

use crate::authz::{authorizer_values, Authorizer, RequestResource, UserInfo};
use crate::value::Value;

/// The global variable slots of the matchConditions environment, in slot order.
pub const MATCH_CONDITION_VARIABLES: [&str; 6] = [
    "object",
    "oldObject",
    "request",
    "namespaceObject",
    "authorizer",
    "authorizer.requestResource",
];

/// Slot of `object`.
pub const SLOT_OBJECT: usize = 0;
/// Slot of `oldObject`.
pub const SLOT_OLD_OBJECT: usize = 1;
/// Slot of `request`.
pub const SLOT_REQUEST: usize = 2;
/// Slot of `namespaceObject`.
pub const SLOT_NAMESPACE_OBJECT: usize = 3;
/// Slot of `authorizer`.
pub const SLOT_AUTHORIZER: usize = 4;
/// Slot of `authorizer.requestResource`.
pub const SLOT_REQUEST_RESOURCE: usize = 5;

/// The zero-valued AdmissionRequest as the apiserver would expose it: the fields without
/// `omitempty` are present with zero values.
static ZERO_REQUEST: LazyLock<Json> = LazyLock::new(|| {
    serde_json::json!({
        "kind": {"group": "", "version": "", "kind": ""},
        "resource": {"group": "", "version": "", "resource": ""},
        "operation": "",
        "userInfo": {},
        "dryRun": false
    })
});

/// Fields of an AdmissionRequest that are `omitempty` strings: empty means absent.
const OMITEMPTY_STRINGS: [&str; 4] = ["subResource", "requestSubResource", "name", "namespace"];

/// Variable values for one evaluation.
#[derive(Clone, Debug)]
pub struct Activation<'a> {
    /// The matchConditions variables, by slot.
    globals: [Option<Value<'a>>; MATCH_CONDITION_VARIABLES.len()],
    /// Extra declared variables (slots after the matchConditions variables).
    extra: Vec<Option<Value<'a>>>,
    /// The AdmissionRequest the variables were bound from (the zero request for
    /// [`Activation::empty`]); the authorizer's principal and preset resource come from it.
    request: &'a Json,
}

impl<'a> Activation<'a> {
    /// An activation with every matchConditions variable unbound except `object`,
    /// `oldObject` and `namespaceObject` (null) and `request` (zero-valued).
    pub fn empty() -> Activation<'static> {
        let mut a = Activation {
            globals: Default::default(),
            extra: Vec::new(),
            request: &ZERO_REQUEST,
        };
        a.set(SLOT_OBJECT, Value::Null);
        a.set(SLOT_OLD_OBJECT, Value::Null);
        a.set(SLOT_NAMESPACE_OBJECT, Value::Null);
        a.set(SLOT_REQUEST, Value::from_json(&ZERO_REQUEST));
        a
    }

    /// Binds the variables from an AdmissionRequest (the `request` field of an
    /// AdmissionReview), viewed in place. `object` and `oldObject` come from the request and
    /// are null when absent; `namespaceObject` is null.
    pub fn from_request(request: &'a Json) -> Activation<'a> {
        let mut object = Value::Null;
        let mut old_object = Value::Null;
        let mut needs_fix = true;
        if let Json::Object(m) = request {
            // One pass over the request's fields: find the objects, and whether the
            // request already has the shape the apiserver exposes.
            let mut dry_run = false;
            let mut empty_optional = false;
            for (k, v) in m {
                match k.as_str() {
                    "object" => object = Value::from_json(v),
                    "oldObject" => old_object = Value::from_json(v),
                    "dryRun" => dry_run = matches!(v, Json::Bool(_)),
                    "subResource" | "requestSubResource" | "name" | "namespace" => {
                        empty_optional |= matches!(v, Json::String(s) if s.is_empty());
                    }
                    "options" => empty_optional |= v.is_null(),
                    _ => {}
                }
            }
            needs_fix = !dry_run || empty_optional;
        }
        let request_value = if needs_fix {
            request_value(request)
        } else {
            Value::from_json(request)
        };
        Activation {
            globals: [
                Some(object),
                Some(old_object),
                Some(request_value),
                Some(Value::Null),
                None,
                None,
            ],
            extra: Vec::new(),
            request,
        }
    }

    /// Binds `authorizer` and `authorizer.requestResource` to an authorizer, for the
    /// request's user (`request.userInfo`: username, uid, groups, extra) and resource
    /// (`request.resource` group and resource, `subResource`, `namespace`, `name`), as the
    /// apiserver binds them for webhooks. See [`crate::authz`].
    pub fn with_authorizer(mut self, authorizer: Arc<dyn Authorizer>) -> Self {
        self.bind_authorizer(authorizer);
        self
    }

    /// [`Activation::with_authorizer`] in place (replaces an earlier binding).
    pub fn bind_authorizer(&mut self, authorizer: Arc<dyn Authorizer>) {
        let user = match self.request.get("userInfo") {
            Some(u) => UserInfo::from_json(u),
            None => UserInfo::default(),
        };
        let resource = RequestResource::from_request(self.request);
        self.bind_authorizer_for(user, authorizer, &resource);
    }

    /// Binds `authorizer` and `authorizer.requestResource` for a principal and resource the
    /// host gives (instead of reading them from the request).
    pub fn bind_authorizer_for(
        &mut self,
        user: UserInfo,
        authorizer: Arc<dyn Authorizer>,
        resource: &RequestResource<'_>,
    ) {
        let (authz, request_resource) = authorizer_values(user, authorizer, resource);
        self.set(SLOT_AUTHORIZER, authz);
        self.set(SLOT_REQUEST_RESOURCE, request_resource);
    }

    /// The number of global slots.
    pub fn len(&self) -> usize {
        self.globals.len() + self.extra.len()
    }

    /// True when there are no slots.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sets a global slot, growing the slot table as needed (slots beyond the
    /// matchConditions variables hold extra declared variables).
    pub fn set(&mut self, slot: usize, value: Value<'a>) {
        if let Some(g) = self.globals.get_mut(slot) {
            *g = Some(value);
            return;
        }
        let i = slot - self.globals.len();
        if self.extra.len() <= i {
            self.extra.resize(i + 1, None);
        }
        if let Some(g) = self.extra.get_mut(i) {
            *g = Some(value);
        }
    }

    /// The value of a global slot, if bound.
    pub fn get(&self, slot: usize) -> Option<&Value<'a>> {
        match self.globals.get(slot) {
            Some(g) => g.as_ref(),
            None => self
                .extra
                .get(slot - self.globals.len())
                .and_then(Option::as_ref),
        }
    }
}

/// The value of `request`: the request JSON itself when it already has the shape the
/// apiserver exposes, otherwise a normalised copy (dryRun added, empty omitempty strings
/// removed, object/oldObject dropped).
fn request_value(request: &Json) -> Value<'_> {
    let Json::Object(m) = request else {
        return Value::from_json(request);
    };
    let mut fixed = serde_json::Map::new();
    for (k, v) in m {
        if k == "object" || k == "oldObject" {
            continue;
        }
        if OMITEMPTY_STRINGS.contains(&k.as_str()) && matches!(v, Json::String(s) if s.is_empty()) {
            continue;
        }
        if k == "options" && v.is_null() {
            continue;
        }
        fixed.insert(k.clone(), v.clone());
    }
    if !matches!(fixed.get("dryRun"), Some(Json::Bool(_))) {
        fixed.insert("dryRun".into(), Json::Bool(false));
    }
    Value::from_json(&Json::Object(fixed)).into_owned()
}
