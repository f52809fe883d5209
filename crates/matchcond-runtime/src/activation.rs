//! The variables an expression is evaluated with.
//!
//! In the matchConditions environment the variables are `object`, `oldObject`, `request`,
//! `namespaceObject`, `authorizer` and `authorizer.requestResource`. They are bound from an
//! already parsed AdmissionRequest without copying it: `object` and `oldObject` are views of
//! the request's JSON nodes (null when absent), and `request` is the request itself, as the
//! apiserver exposes it (its `dryRun` is always present). `authorizer` and
//! `authorizer.requestResource` are bound by [`Activation::with_authorizer`].

use std::cell::Cell;
use std::sync::{Arc, LazyLock};

use serde_json::Value as Json;

use crate::authz::{
    authorizer_value, authorizer_values, request_resource_value, Authorizer, RequestResource, User,
    UserInfo,
};
use crate::request_view::json_member;
pub use crate::request_view::{
    request_field_index, request_field_sources, request_fields, RequestView, REQUEST_FIELDS,
};
use crate::value::{Map, Value};

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

/// The empty AdmissionRequest: its `request` view shows every member at its zero value.
static ZERO_REQUEST: LazyLock<Json> = LazyLock::new(|| Json::Object(serde_json::Map::new()));

/// A variable bound to a JSON object (see [`Activation::json_root`]).
#[derive(Clone, Copy, Debug)]
pub enum JsonRoot<'a> {
    /// A JSON object of the request.
    Object(&'a serde_json::Map<String, Json>),
    /// The AdmissionRequest view of `request` (see [`Map::Request`]).
    Request(RequestView<'a>),
}

/// Variable values for one evaluation.
#[derive(Clone, Debug)]
pub struct Activation<'a> {
    /// The values bound to slots; `None` until one is (an activation bound to a request
    /// object reads its variables from the request, and is then built and dropped without
    /// touching the table).
    slots: Option<Box<Slots<'a>>>,
    /// The AdmissionRequest the variables were bound from (the zero request for
    /// [`Activation::empty`]); the authorizer's principal and preset resource come from it.
    request: &'a Json,
    /// The request object the variables were bound from (an unset `object`/`oldObject`
    /// slot then means "the request's field, null when absent").
    index: Option<BoundRequest<'a>>,
    /// An authorizer bound for the request's user and resource, whose `authorizer` and
    /// `authorizer.requestResource` values are built when first read.
    lazy_authorizer: Option<LazyAuthorizer<'a>>,
    /// `object`/`oldObject` slots (a bit each) whose value is unknown: reading them is an
    /// evaluation error (see [`Activation::unbind`]).
    unknown: u8,
}

/// The number of matchConditions variables' slots.
const GLOBALS: usize = MATCH_CONDITION_VARIABLES.len();

/// The values bound to an activation's slots.
#[derive(Clone, Debug, Default)]
struct Slots<'a> {
    /// The matchConditions variables, by slot.
    globals: [Option<Value<'a>>; GLOBALS],
    /// Extra declared variables (slots after the matchConditions variables).
    extra: Vec<Option<Value<'a>>>,
}

/// `authorizer` and `authorizer.requestResource`, each built on first use (the preset
/// resource check only for the conditions that read it; it shares the principal of
/// `authorizer`).
#[derive(Clone)]
struct LazyAuthorizer<'a> {
    authorizer: Arc<dyn Authorizer>,
    /// The request's `userInfo` (`None` when absent), looked up once when bound.
    user: Option<&'a Json>,
    principal: std::sync::OnceLock<Value<'static>>,
    request_resource: std::sync::OnceLock<Value<'static>>,
}

impl<'a> LazyAuthorizer<'a> {
    /// The request's user (`request.userInfo`, empty when absent), read in place.
    fn request_user(&self) -> User<'a> {
        User::from_json(self.user.unwrap_or(&Json::Null))
    }
}

impl std::fmt::Debug for LazyAuthorizer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyAuthorizer")
            .field("built", &self.principal.get().is_some())
            .finish()
    }
}

/// The AdmissionRequest an activation was bound from.
#[derive(Clone, Copy, Debug)]
struct BoundRequest<'a> {
    map: &'a serde_json::Map<String, Json>,
    /// The kind the webhook sees, when the host gives it (see
    /// [`Activation::from_request_with_kind`]).
    kind: Option<&'a Json>,
    /// False once `request` was bound to something else.
    fields_valid: bool,
}

impl<'a> BoundRequest<'a> {
    /// The `request` view of the bound request.
    fn view(&self) -> RequestView<'a> {
        RequestView::with_kind(self.map, self.kind)
    }
}

/// The request fields and objects read during one decision, each looked up in the request
/// when a condition first reads it and shared by the evaluations of its conditions (a set
/// reads a few of the request's members: looking those up costs less than a pass over all).
/// Local to one decision: it is not shared between threads (the activation itself stays
/// immutable).
#[derive(Debug, Default)]
pub struct Lookups<'a> {
    /// By [`REQUEST_FIELDS`] index as the `request` view shows them, then `object` and
    /// `oldObject`; `None` until looked up, [`ABSENT`] when looked up and absent.
    cells: [Cell<Option<&'a Json>>; REQUEST_FIELDS.len() + 2],
    /// By [`REQUEST_FIELDS`] index (a bit each): whether the member's form was checked, and
    /// whether it is shown as its JSON node (see [`crate::request_parts`]).
    form_checked: Cell<u32>,
    form_as_is: Cell<u32>,
}

/// The marker of a looked-up absent member in [`Lookups`] (compared by address).
static ABSENT: Json = Json::Null;

impl<'a> Lookups<'a> {
    /// Nothing looked up yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// True when the `request` view's member `index`, found as `node`, is shown as the node
    /// itself (its members read on the JSON in place); checked once per decision.
    pub fn shows_as_is(&self, index: usize, node: &Json) -> bool {
        let Some(bit) = 1u32.checked_shl(index as u32) else {
            return crate::request_parts::field_shows_as_is(index, node);
        };
        if self.form_checked.get() & bit != 0 {
            return self.form_as_is.get() & bit != 0;
        }
        let as_is = crate::request_parts::field_shows_as_is(index, node);
        self.form_checked.set(self.form_checked.get() | bit);
        if as_is {
            self.form_as_is.set(self.form_as_is.get() | bit);
        }
        as_is
    }

    /// The member of cell `i` (a [`REQUEST_FIELDS`] index, or `REQUEST_FIELDS.len()` plus the
    /// slot of `object`/`oldObject`), looked up on first use.
    fn get(&self, view: RequestView<'a>, i: usize) -> Option<&'a Json> {
        let cell = self.cells.get(i)?;
        match cell.get() {
            Some(j) if std::ptr::eq(j, &ABSENT) => None,
            Some(j) => Some(j),
            None => {
                let found = lookup(view, i);
                cell.set(Some(found.unwrap_or(&ABSENT)));
                found
            }
        }
    }
}

/// The member of a request a [`Lookups`] cell holds: by [`REQUEST_FIELDS`] index as the
/// `request` view shows it, then `object` and `oldObject`.
pub(crate) fn lookup(view: RequestView<'_>, i: usize) -> Option<&Json> {
    match i.checked_sub(REQUEST_FIELDS.len()) {
        None => view.field(i),
        Some(SLOT_OBJECT) => json_member(view.json(), "object"),
        Some(SLOT_OLD_OBJECT) => json_member(view.json(), "oldObject"),
        Some(_) => None,
    }
}

impl<'a> Activation<'a> {
    /// An activation with every matchConditions variable unbound except `object`,
    /// `oldObject` and `namespaceObject` (null) and `request` (zero-valued).
    pub fn empty() -> Activation<'static> {
        Activation::from_request(&ZERO_REQUEST)
    }

    /// Binds the variables from an AdmissionRequest (the `request` field of an
    /// AdmissionReview), viewed in place. `object` and `oldObject` come from the request and
    /// are null when absent; `namespaceObject` is null.
    pub fn from_request(request: &'a Json) -> Activation<'a> {
        Activation::from_request_with_kind(request, None)
    }

    /// [`Activation::from_request`] for a webhook invoked with another kind than the
    /// request's own: `request.kind` is `kind` (a `GroupVersionKind` object), as when
    /// `matchPolicy: Equivalent` converts the request to an equivalent resource's version.
    /// Every other member is the request's.
    #[doc(hidden)]
    pub fn from_request_with_kind(request: &'a Json, kind: Option<&'a Json>) -> Activation<'a> {
        // Bound to a request object, the unset `object`, `oldObject`, `request` and
        // `namespaceObject` slots mean the request's members, the request view and null.
        let (slots, index) = match request {
            Json::Object(m) => (
                None,
                Some(BoundRequest {
                    map: m,
                    kind,
                    fields_valid: true,
                }),
            ),
            other => (
                Some(Box::new(Slots {
                    globals: [
                        Some(Value::Null),
                        Some(Value::Null),
                        Some(Value::from_json(other)),
                        Some(Value::Null),
                        None,
                        None,
                    ],
                    extra: Vec::new(),
                })),
                None,
            ),
        };
        Activation {
            slots,
            request,
            index,
            lazy_authorizer: None,
            unknown: 0,
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
    ///
    /// The values are built when an expression first reads `authorizer` or
    /// `authorizer.requestResource`, so binding costs nothing for conditions that do not.
    pub fn bind_authorizer(&mut self, authorizer: Arc<dyn Authorizer>) {
        for slot in [SLOT_AUTHORIZER, SLOT_REQUEST_RESOURCE] {
            self.clear(slot);
        }
        self.lazy_authorizer = Some(LazyAuthorizer {
            authorizer,
            user: self
                .request
                .as_object()
                .and_then(|m| crate::request_view::json_member(m, "userInfo")),
            principal: std::sync::OnceLock::new(),
            request_resource: std::sync::OnceLock::new(),
        });
    }

    /// The authorizer `authorizer` asks and its principal, the request's `userInfo` read in
    /// place, while `authorizer` is bound lazily to the request (see
    /// [`Activation::bind_authorizer`]): a check can ask it without building the value.
    pub(crate) fn lazy_authorizer(&self) -> Option<(&dyn Authorizer, User<'a>)> {
        if self.is_unknown(SLOT_AUTHORIZER) || !matches!(self.global(SLOT_AUTHORIZER), Some(None)) {
            return None;
        }
        let lazy = self.lazy_authorizer.as_ref()?;
        Some((&*lazy.authorizer, lazy.request_user()))
    }

    /// The lazily bound authorizer's values (built on first call).
    fn authorizer_value(&self, slot: usize) -> Option<Value<'a>> {
        let lazy = self.lazy_authorizer.as_ref()?;
        let authz = lazy.principal.get_or_init(|| {
            authorizer_value(
                lazy.request_user().to_user_info(),
                Arc::clone(&lazy.authorizer),
            )
        });
        match slot {
            SLOT_AUTHORIZER => Some(authz.clone()),
            SLOT_REQUEST_RESOURCE => Some(
                lazy.request_resource
                    .get_or_init(|| {
                        request_resource_value(authz, &RequestResource::from_request(self.request))
                    })
                    .clone(),
            ),
            _ => None,
        }
    }

    /// Binds `authorizer` and `authorizer.requestResource` for a principal and resource the
    /// host gives (instead of reading them from the request).
    #[doc(hidden)]
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

    /// Binds a matchConditions variable by name (`object`, `oldObject`, `request`,
    /// `namespaceObject`), replacing what the request gave it: for example `object` alone,
    /// to evaluate an expression on one document. False (and nothing bound) for any other
    /// name.
    pub fn bind_variable(&mut self, name: &str, value: Value<'a>) -> bool {
        let slot = match name {
            "object" => SLOT_OBJECT,
            "oldObject" => SLOT_OLD_OBJECT,
            "request" => SLOT_REQUEST,
            "namespaceObject" => SLOT_NAMESPACE_OBJECT,
            _ => return false,
        };
        self.set(slot, value);
        true
    }

    /// The number of global slots.
    #[doc(hidden)]
    pub fn len(&self) -> usize {
        GLOBALS + self.slots.as_ref().map_or(0, |s| s.extra.len())
    }

    /// True when there are no slots.
    #[doc(hidden)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sets a global slot, growing the slot table as needed (slots beyond the
    /// matchConditions variables hold extra declared variables).
    /// Makes `object` or `oldObject` unknown: reading it is the error `no such
    /// attribute(s): object`, which CEL's `&&`, `||` and the comprehension loop conditions
    /// absorb only where the other operand decides the result. A condition that still
    /// evaluates to a boolean therefore has the same result whatever the value would have
    /// been (a replay of requests whose objects were not recorded relies on it). Binding the
    /// slot with [`Activation::set`] makes it known again; other slots are left as they are.
    #[doc(hidden)]
    pub fn unbind(&mut self, slot: usize) {
        if let SLOT_OBJECT | SLOT_OLD_OBJECT = slot {
            self.clear(slot);
            self.unknown |= 1 << slot;
        }
    }

    /// True when the slot was made unknown with [`Activation::unbind`].
    fn is_unknown(&self, slot: usize) -> bool {
        slot < 8 && self.unknown & (1 << slot) != 0
    }

    #[doc(hidden)]
    pub fn set(&mut self, slot: usize, value: Value<'a>) {
        if slot < 8 {
            self.unknown &= !(1u8 << slot);
        }
        if slot == SLOT_AUTHORIZER || slot == SLOT_REQUEST_RESOURCE {
            // An explicit binding replaces a lazy one (for both variables, which go together).
            if self.lazy_authorizer.is_some() {
                let other = if slot == SLOT_AUTHORIZER {
                    SLOT_REQUEST_RESOURCE
                } else {
                    SLOT_AUTHORIZER
                };
                let keep = self.authorizer_value(other);
                self.lazy_authorizer = None;
                if let (Some(v), Some(g)) = (keep, self.slots_mut().globals.get_mut(other)) {
                    *g = Some(v);
                }
            }
        }
        if slot == SLOT_REQUEST {
            if let Some(i) = self.index.as_mut() {
                i.fields_valid = false;
            }
        }
        let slots = self.slots_mut();
        if let Some(g) = slots.globals.get_mut(slot) {
            *g = Some(value);
            return;
        }
        let i = slot - GLOBALS;
        if slots.extra.len() <= i {
            slots.extra.resize(i + 1, None);
        }
        if let Some(g) = slots.extra.get_mut(i) {
            *g = Some(value);
        }
    }

    /// The slot table, made when first needed.
    fn slots_mut(&mut self) -> &mut Slots<'a> {
        self.slots.get_or_insert_with(Box::default)
    }

    /// Unbinds a matchConditions variable's slot (nothing to do when no slot is bound).
    fn clear(&mut self, slot: usize) {
        if let Some(g) = self.slots.as_mut().and_then(|s| s.globals.get_mut(slot)) {
            *g = None;
        }
    }

    /// A matchConditions variable's slot: `None` past them, `Some(None)` when unbound.
    #[inline]
    fn global(&self, slot: usize) -> Option<&Option<Value<'a>>> {
        match &self.slots {
            Some(s) => s.globals.get(slot),
            None => (slot < GLOBALS).then_some(&None),
        }
    }

    /// `object` or `oldObject` of the bound request, if present.
    fn request_object(&self, slot: usize) -> Option<&'a Json> {
        let map = self.index.as_ref()?.map;
        match slot {
            SLOT_OBJECT => json_member(map, "object"),
            SLOT_OLD_OBJECT => json_member(map, "oldObject"),
            _ => None,
        }
    }

    /// A field of the bound request as `request` shows it (by [`request_field_index`]):
    /// `None` when absent or hidden, or when the activation was not bound from a request
    /// object (`request` then is whatever it was bound to).
    #[doc(hidden)]
    pub fn request_field(&self, index: usize) -> Option<&'a Json> {
        let bound = self.index.as_ref().filter(|i| i.fields_valid)?;
        if index >= REQUEST_FIELDS.len() {
            return None;
        }
        lookup(bound.view(), index)
    }

    /// [`Activation::request_field`], remembered in `lookups`.
    #[doc(hidden)]
    pub fn request_field_in(&self, lookups: &Lookups<'a>, index: usize) -> Option<&'a Json> {
        let bound = self.index.as_ref().filter(|i| i.fields_valid)?;
        if index >= REQUEST_FIELDS.len() {
            return None;
        }
        lookups.get(bound.view(), index)
    }

    /// [`Activation::get`], with the request's objects remembered in `lookups` (the
    /// general evaluator after the fast tier of the same decision found them).
    #[doc(hidden)]
    pub fn get_in(&self, lookups: &Lookups<'a>, slot: usize) -> Option<Value<'a>> {
        if self.is_unknown(slot) {
            return None;
        }
        match (self.global(slot), slot, self.index.as_ref()) {
            (Some(None), SLOT_OBJECT | SLOT_OLD_OBJECT, Some(bound)) => Some(
                lookups
                    .get(bound.view(), REQUEST_FIELDS.len() + slot)
                    .map_or(Value::Null, Value::from_json),
            ),
            _ => self.get(slot),
        }
    }

    /// [`Activation::json_node`], with the request's objects remembered in `lookups`.
    #[doc(hidden)]
    pub fn json_node_in(&self, lookups: &Lookups<'a>, slot: usize) -> Option<&'a Json> {
        static NULL: Json = Json::Null;
        if self.is_unknown(slot) {
            return None;
        }
        match (self.global(slot)?, slot) {
            (None, SLOT_OBJECT | SLOT_OLD_OBJECT) => match self.index.as_ref() {
                Some(bound) => Some(
                    lookups
                        .get(bound.view(), REQUEST_FIELDS.len() + slot)
                        .unwrap_or(&NULL),
                ),
                None => self.json_node(slot),
            },
            _ => self.json_node(slot),
        }
    }

    /// [`Activation::json_root`], with the request's objects remembered in `lookups`.
    #[doc(hidden)]
    pub fn json_root_in(&self, lookups: &Lookups<'a>, slot: usize) -> Option<JsonRoot<'a>> {
        if self.is_unknown(slot) {
            return None;
        }
        match (self.global(slot)?, slot) {
            (None, SLOT_OBJECT | SLOT_OLD_OBJECT) => match self.json_node_in(lookups, slot)? {
                Json::Object(m) => Some(JsonRoot::Object(m)),
                _ => None,
            },
            _ => self.json_root(slot),
        }
    }

    /// True when `request` is the view of a bound request object (see
    /// [`Activation::request_field`]).
    #[doc(hidden)]
    pub fn has_request_index(&self) -> bool {
        self.index.as_ref().is_some_and(|i| i.fields_valid)
    }

    /// The JSON object a variable is bound to, when it is one (the fast path of field
    /// selection; `None` for any other value).
    #[doc(hidden)]
    pub fn json_root(&self, slot: usize) -> Option<JsonRoot<'a>> {
        if self.is_unknown(slot) {
            return None;
        }
        match self.global(slot)? {
            Some(Value::Map(Map::Json(m))) => Some(JsonRoot::Object(m)),
            Some(Value::Map(Map::Request(m))) => Some(JsonRoot::Request(*m)),
            Some(_) => None,
            None if slot == SLOT_REQUEST => Some(JsonRoot::Request(self.index.as_ref()?.view())),
            None => match self.request_object(slot)? {
                Json::Object(m) => Some(JsonRoot::Object(m)),
                _ => None,
            },
        }
    }

    /// The JSON node a variable is bound to, when it is one: `object` and `oldObject` read
    /// from the request (null when absent), or a variable bound to null.
    #[doc(hidden)]
    pub fn json_node(&self, slot: usize) -> Option<&'a Json> {
        static NULL: Json = Json::Null;
        if self.is_unknown(slot) {
            return None;
        }
        match self.global(slot)? {
            Some(Value::Null) => Some(&NULL),
            Some(_) => None,
            None => {
                self.index.as_ref()?;
                match slot {
                    SLOT_OBJECT | SLOT_OLD_OBJECT => {
                        Some(self.request_object(slot).unwrap_or(&NULL))
                    }
                    SLOT_NAMESPACE_OBJECT => Some(&NULL),
                    _ => None,
                }
            }
        }
    }

    /// The value of a global slot, if bound.
    #[doc(hidden)]
    pub fn get(&self, slot: usize) -> Option<Value<'a>> {
        if self.is_unknown(slot) {
            return None;
        }
        match self.global(slot) {
            Some(Some(v)) => Some(v.clone()),
            Some(None) => match slot {
                SLOT_OBJECT | SLOT_OLD_OBJECT => {
                    self.index.as_ref()?;
                    Some(
                        self.request_object(slot)
                            .map_or(Value::Null, Value::from_json),
                    )
                }
                SLOT_REQUEST => Some(Value::Map(Map::Request(self.index.as_ref()?.view()))),
                SLOT_NAMESPACE_OBJECT => self.index.as_ref().map(|_| Value::Null),
                SLOT_AUTHORIZER | SLOT_REQUEST_RESOURCE => self.authorizer_value(slot),
                _ => None,
            },
            None => self
                .slots
                .as_ref()?
                .extra
                .get(slot - GLOBALS)
                .and_then(Option::as_ref)
                .cloned(),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    /// An activation bound to a request object reads its variables from the request and
    /// makes its slot table only when a slot is set; unbinding needs none.
    #[test]
    fn a_request_bound_activation_makes_its_slots_when_one_is_set() {
        let req = serde_json::json!({"object": {"a": 1}, "oldObject": {"a": 0}});
        let mut act = Activation::from_request(&req);
        assert!(act.slots.is_none());
        assert_eq!(act.len(), GLOBALS);
        assert_eq!(act.json_node(SLOT_OBJECT), req.get("object"));
        act.unbind(SLOT_OLD_OBJECT);
        assert!(act.slots.is_none());
        assert_eq!(act.get(SLOT_OLD_OBJECT), None);
        assert_eq!(act.get(GLOBALS), None);
        act.set(GLOBALS + 1, Value::Int(3));
        assert!(act.slots.is_some());
        assert_eq!(act.len(), GLOBALS + 2);
        assert_eq!(act.get(GLOBALS + 1), Some(Value::Int(3)));
        assert_eq!(act.get(GLOBALS), None);
        assert_eq!(act.get(GLOBALS + 5), None);
        // The other variables still come from the request.
        assert_eq!(act.json_node(SLOT_OBJECT), req.get("object"));
        assert_eq!(act.get(SLOT_OLD_OBJECT), None);
        act.set(SLOT_OLD_OBJECT, Value::Null);
        assert_eq!(act.get(SLOT_OLD_OBJECT), Some(Value::Null));
        // A request that is not an object binds every variable at once.
        let scalar = serde_json::json!("x");
        let act = Activation::from_request(&scalar);
        assert!(act.slots.is_some());
        assert_eq!(act.get(SLOT_OBJECT), Some(Value::Null));
    }

    #[test]
    fn request_field_indexes_follow_the_field_list() {
        for (i, name) in REQUEST_FIELDS.iter().enumerate() {
            assert_eq!(request_field_index(name), Some(i), "{name}");
        }
        assert_eq!(request_field_index("patch"), None);
    }

    #[test]
    fn an_unbound_object_is_unknown_on_every_read() {
        let req = serde_json::json!({"object": {"a": 1}, "oldObject": {"a": 2}});
        let mut act = Activation::from_request(&req);
        let lookups = Lookups::new();
        assert!(act.get_in(&lookups, SLOT_OBJECT).is_some());
        act.unbind(SLOT_OBJECT);
        assert!(act.get(SLOT_OBJECT).is_none());
        assert!(act.get_in(&lookups, SLOT_OBJECT).is_none());
        assert!(act.json_node_in(&lookups, SLOT_OBJECT).is_none());
        assert!(act.json_root_in(&lookups, SLOT_OBJECT).is_none());
        // The other object stays known.
        assert!(act.get_in(&lookups, SLOT_OLD_OBJECT).is_some());
    }

    #[test]
    fn indexed_fields_are_what_the_request_view_shows() {
        let req = serde_json::json!({
            "name": "", "namespace": "shop", "options": null, "dryRun": "yes",
            "uid": "u", "object": {"a": 1}
        });
        let act = Activation::from_request(&req);
        let Some(Value::Map(view)) = act.get(SLOT_REQUEST) else {
            panic!("request is a map")
        };
        for (i, name) in REQUEST_FIELDS.iter().enumerate() {
            let shown = view.get_str(name).map(|v| v.to_string());
            let indexed = act
                .request_field(i)
                .map(|j| Value::from_json(j).to_string());
            assert_eq!(indexed, shown, "{name}");
        }
        assert_eq!(act.request_field(0), Some(&Json::Bool(false)));
    }

    /// The members of the view, as the apiserver's `CreateAdmissionRequest` gives them.
    fn view_of(req: &Json) -> Vec<(String, String)> {
        let act = Activation::from_request(req);
        let Some(Value::Map(view)) = act.get(SLOT_REQUEST) else {
            panic!("request is a map")
        };
        let members: Vec<(String, String)> = view
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(members.len(), view.len());
        members
    }

    #[test]
    fn the_view_of_an_empty_request_has_every_struct_member_at_its_zero_value() {
        let names: Vec<String> = view_of(&serde_json::json!({}))
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        assert_eq!(
            names,
            [
                "\"dryRun\"=false",
                "\"kind\"={\"group\": \"\", \"kind\": \"\", \"version\": \"\"}",
                "\"object\"=null",
                "\"oldObject\"=null",
                "\"operation\"=\"\"",
                "\"options\"=null",
                "\"requestKind\"={\"group\": \"\", \"kind\": \"\", \"version\": \"\"}",
                "\"requestResource\"={\"group\": \"\", \"resource\": \"\", \"version\": \"\"}",
                "\"resource\"={\"group\": \"\", \"resource\": \"\", \"version\": \"\"}",
                "\"uid\"=\"\"",
                "\"userInfo\"={}",
            ]
        );
        assert_eq!(
            Activation::empty().get(SLOT_REQUEST).map(|v| v.to_string()),
            Activation::from_request(&serde_json::json!({}))
                .get(SLOT_REQUEST)
                .map(|v| v.to_string())
        );
    }

    #[test]
    fn a_converted_request_shows_the_original_resource_and_the_converted_kind() {
        let req = serde_json::json!({
            "uid": "u", "operation": "UPDATE", "name": "w", "subResource": "status",
            "kind": {"group": "g", "version": "v1", "kind": "W"},
            "resource": {"group": "g", "version": "v1", "resource": "ws"},
            "requestKind": {"group": "g", "version": "v1beta1", "kind": "W"},
            "requestResource": {"group": "g", "version": "v1beta1", "resource": "ws"},
            "requestSubResource": "status",
            "object": {"a": 1}, "options": {"kind": "UpdateOptions"}, "extra": 1
        });
        let act = Activation::from_request(&req);
        let field = |name| {
            act.request_field(request_field_index(name).unwrap())
                .map(|j| j.to_string())
        };
        assert_eq!(field("resource"), field("requestResource"));
        assert_eq!(
            field("resource").as_deref(),
            Some(r#"{"group":"g","resource":"ws","version":"v1beta1"}"#)
        );
        assert_eq!(
            field("kind").as_deref(),
            Some(r#"{"group":"g","kind":"W","version":"v1"}"#)
        );
        assert_eq!(field("uid").as_deref(), Some(r#""""#));
        assert_eq!(field("object").as_deref(), Some("null"));
        assert_eq!(field("subResource").as_deref(), Some(r#""status""#));
        // Every member but `namespace` (empty); the unknown `extra` is not shown.
        assert_eq!(view_of(&req).len(), 14);
        let resource = crate::authz::RequestResource::from_request(&req);
        assert_eq!((resource.group, resource.resource), ("g", "ws"));
        assert_eq!(resource.subresource, "status");
    }
}

#[cfg(test)]
mod unbind_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn an_unbound_object_reads_as_unbound_until_set_again() {
        let req = serde_json::json!({"object": {"a": 1}, "oldObject": {"b": 2}});
        let mut act = Activation::from_request(&req);
        act.unbind(SLOT_OBJECT);
        assert!(act.get(SLOT_OBJECT).is_none());
        assert!(act.json_node(SLOT_OBJECT).is_none());
        assert!(act.json_root(SLOT_OBJECT).is_none());
        let lookups = Lookups::new();
        assert!(act.json_node_in(&lookups, SLOT_OBJECT).is_none());
        assert!(act.json_root_in(&lookups, SLOT_OBJECT).is_none());
        // Others are untouched; unbinding another slot does nothing.
        assert!(act.get(SLOT_OLD_OBJECT).is_some());
        act.unbind(SLOT_REQUEST);
        assert!(act.get(SLOT_REQUEST).is_some());
        act.set(SLOT_OBJECT, Value::Null);
        assert!(matches!(act.get(SLOT_OBJECT), Some(Value::Null)));
    }
}
