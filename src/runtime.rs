//! The cluster's own objects, live (feature `runtime`): a [`LiveDispatcher`] kept in step
//! with the cluster's Validating- and MutatingWebhookConfigurations by kube-runtime watcher
//! events, and the namespaces of namespaceSelectors served by a reflector's
//! `Store<Namespace>` ([`StoreNamespaces`]).
//!
//! # The live dispatcher
//!
//! Feed it the events of a watcher (or a reflector: its stream yields the same events) of
//! each configuration kind; it recompiles only the configurations an event changed, and
//! swaps the compiled set atomically: [`LiveDispatcher::dispatcher`] never waits for a
//! compile nor sees half a set. A relist (`Init`, `InitApply`…, `InitDone`) is applied
//! whole at `InitDone`, as a reflector's store swaps its contents; until then decisions use
//! the set before it. Conditions are compiled as the apiserver treats a stored
//! configuration: one that does not compile fails when deciding, under the webhook's
//! failure policy; each configuration's problems are reported
//! ([`Applied::problems`], [`LiveDispatcher::problems`]).
//!
//! ```
//! use k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration;
//! use kube_runtime::watcher::Event;
//! use matchcond::dispatch::NoNamespaces;
//! use matchcond::runtime::LiveDispatcher;
//! use matchcond::{Decision, KubeVersion};
//!
//! let live = LiveDispatcher::new(KubeVersion::V1_34);
//! let config: ValidatingWebhookConfiguration = serde_json::from_value(serde_json::json!({
//!     "metadata": {"name": "pods"},
//!     "webhooks": [{
//!         "name": "pods.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
//!         "clientConfig": {"url": "https://example.com"},
//!         "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
//!                    "resources": ["pods"]}],
//!         "matchConditions": [{"name": "not-system",
//!                              "expression": "request.namespace != 'kube-system'"}]
//!     }]
//! })).unwrap();
//! let applied = live.apply_validating(Event::Apply(config));
//! assert!(applied.problems().next().is_none());
//! let request = serde_json::json!({
//!     "operation": "CREATE", "namespace": "kube-system", "name": "p",
//!     "kind": {"group": "", "version": "v1", "kind": "Pod"},
//!     "resource": {"group": "", "version": "v1", "resource": "pods"},
//!     "userInfo": {"username": "alice"}, "object": {"metadata": {"name": "p"}}
//! });
//! let outcome = live.dispatcher()
//!     .decide_webhook("pods.example.com", &request, &NoNamespaces).unwrap().unwrap();
//! assert_eq!(outcome.decision, Decision::skip_condition("not-system"));
//! ```
//!
//! With a cluster, the events come from kube-runtime's `watcher` (the example crate
//! `examples/kube-webhook` is a whole webhook built so, with the namespaces' reflector):
//!
//! ```ignore
//! let api = Api::<ValidatingWebhookConfiguration>::all(client);
//! watcher(api, watcher::Config::default())
//!     .default_backoff() // a failed watch is retried, not the end of the stream
//!     .for_each(|event| async {
//!         match event {
//!             Ok(event) => { live.apply_validating(event); }
//!             Err(e) => tracing::warn!("watch: {e}"),
//!         }
//!     })
//!     .await;
//! ```
//!
//! # Namespaces from a reflector
//!
//! The apiserver reads a namespace's labels from its informer's lister and, when the
//! lister does not have it (a namespace created a moment ago), asks the apiserver itself
//! with a live GET; a namespace found by neither is an error, `namespaces "x" not found`
//! (404), that rejects the request whatever the failure policy. [`StoreNamespaces`] reads
//! the reflector's store; a miss is a live lookup when one is given
//! ([`StoreNamespaces::with_fallback`]), else "not found" at once: a lookup cannot block
//! inside a decision, and a reflector sees a new namespace within its watch latency. Wait
//! for the store (`Store::wait_until_ready`) before answering requests, as a server waits
//! for its informers.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use arc_swap::ArcSwap;
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::api::core::v1::Namespace;
use kube_runtime::reflector::{ObjectRef, Store};
use kube_runtime::watcher::Event;
use matchcond_dispatch::{CompiledConfiguration, ResourceMapper, ResourceTable};

use crate::authz::Authorizer;
use crate::dispatch::{Configuration, Dispatcher, HookKind, Labels, NamespaceLister, NoNamespaces};
use crate::{Environment, KubeVersion};

pub use matchcond_dispatch::CompileProblem;

/// A configuration as last applied, with its compiled webhooks.
struct Entry {
    source: Configuration,
    compiled: CompiledConfiguration,
    problems: Vec<CompileProblem>,
}

/// The configurations of one kind: those in force, and those of a relist in progress.
#[derive(Default)]
struct Kind {
    live: BTreeMap<String, Arc<Entry>>,
    relist: Option<BTreeMap<String, Arc<Entry>>>,
}

/// The configurations of both kinds.
#[derive(Default)]
struct Kinds {
    mutating: Kind,
    validating: Kind,
}

impl Kinds {
    fn of(&mut self, kind: HookKind) -> &mut Kind {
        match kind {
            HookKind::Mutating => &mut self.mutating,
            HookKind::Validating => &mut self.validating,
        }
    }

    fn iter(&self) -> impl Iterator<Item = &Kind> {
        [&self.mutating, &self.validating].into_iter()
    }
}

/// A dispatcher kept in step with the cluster's webhook configurations (see the
/// [module](self) docs).
pub struct LiveDispatcher {
    current: ArcSwap<Dispatcher>,
    /// Writers only: the configurations of each kind.
    state: Mutex<Kinds>,
    env: Environment,
    version: KubeVersion,
    resources: Arc<dyn ResourceMapper + Send + Sync>,
    authorizer: Option<Arc<dyn Authorizer>>,
}

impl fmt::Debug for LiveDispatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LiveDispatcher")
            .field("version", &self.version)
            .field("dispatcher", &*self.current.load())
            .finish_non_exhaustive()
    }
}

/// What one event changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Applied {
    /// The configurations compiled by the event (new or changed), with their problems.
    pub compiled: Vec<ConfigurationProblems>,
    /// The configurations removed.
    pub removed: Vec<String>,
    /// True when the set in force changed (and a new dispatcher was swapped in).
    pub swapped: bool,
}

impl Applied {
    /// The problems of the configurations compiled by the event (those with any).
    pub fn problems(&self) -> impl Iterator<Item = &ConfigurationProblems> {
        self.compiled.iter().filter(|c| !c.problems.is_empty())
    }
}

/// A configuration's compile problems: what fails every decision it takes part in.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConfigurationProblems {
    /// Validating or mutating.
    pub kind: HookKind,
    /// The configuration's name.
    pub name: String,
    /// The problems, by field (empty when it compiled cleanly).
    pub problems: Vec<CompileProblem>,
}

impl LiveDispatcher {
    /// An empty live dispatcher for a version (the "stored expressions" environment, the
    /// version's built-in resource-equivalence table).
    pub fn new(version: KubeVersion) -> LiveDispatcher {
        Self::with_resources(version, Arc::new(ResourceTable::builtin_for(version)))
    }

    /// An empty live dispatcher with a host-supplied resource-equivalence table.
    pub fn with_resources(
        version: KubeVersion,
        resources: Arc<dyn ResourceMapper + Send + Sync>,
    ) -> LiveDispatcher {
        let dispatcher = Dispatcher::from_compiled([], version, Arc::clone(&resources));
        LiveDispatcher {
            current: ArcSwap::from_pointee(dispatcher),
            state: Mutex::new(Default::default()),
            env: Environment::kubernetes(version),
            version,
            resources,
            authorizer: None,
        }
    }

    /// Binds `authorizer` in every webhook's matchConditions (see
    /// [`Dispatcher::with_authorizer`]).
    pub fn with_authorizer(mut self, authorizer: Arc<dyn Authorizer>) -> Self {
        self.authorizer = Some(authorizer);
        self.rebuild(&self.lock());
        self
    }

    /// The Kubernetes version modelled.
    pub fn version(&self) -> KubeVersion {
        self.version
    }

    /// The dispatcher in force: a whole compiled set, never half of one. Loading it takes
    /// no lock; keep it for one request (a later call sees later events).
    pub fn dispatcher(&self) -> Arc<Dispatcher> {
        self.current.load_full()
    }

    /// Applies a watcher event of `ValidatingWebhookConfiguration`s.
    pub fn apply_validating(&self, event: Event<ValidatingWebhookConfiguration>) -> Applied {
        self.apply(
            HookKind::Validating,
            map_event(event, |c| Configuration::from_validating(&c)),
        )
    }

    /// Applies a watcher event of `MutatingWebhookConfiguration`s.
    pub fn apply_mutating(&self, event: Event<MutatingWebhookConfiguration>) -> Applied {
        self.apply(
            HookKind::Mutating,
            map_event(event, |c| Configuration::from_mutating(&c)),
        )
    }

    /// Applies an event of configurations of one kind (each event's configurations must
    /// be of that kind; another kind's is taken as this one's).
    pub fn apply(&self, kind: HookKind, event: Event<Configuration>) -> Applied {
        let mut state = self.lock();
        let mut applied = Applied::default();
        let slot = state.of(kind);
        match event {
            Event::Apply(c) => {
                let entry = self.entry(&slot.live, kind, c, &mut applied);
                if let Some(e) = entry {
                    let name = e.source.name().to_owned();
                    slot.live.insert(name, e);
                    applied.swapped = true;
                }
            }
            Event::Delete(c) => {
                if slot.live.remove(c.name()).is_some() {
                    applied.removed.push(c.name().to_owned());
                    applied.swapped = true;
                }
            }
            Event::Init => slot.relist = Some(BTreeMap::new()),
            Event::InitApply(c) => {
                let mut relist = slot.relist.take().unwrap_or_default();
                let name = c.name().to_owned();
                let entry = match relist.get(&name).or_else(|| slot.live.get(&name)) {
                    Some(e) if same(&e.source, &c, kind) => Arc::clone(e),
                    _ => self.compile(kind, c, &mut applied),
                };
                relist.insert(name, entry);
                slot.relist = Some(relist);
            }
            Event::InitDone => {
                let relist = slot.relist.take().unwrap_or_default();
                applied.removed = slot
                    .live
                    .keys()
                    .filter(|k| !relist.contains_key(*k))
                    .cloned()
                    .collect();
                let changed = !applied.removed.is_empty()
                    || relist.len() != slot.live.len()
                    || relist
                        .iter()
                        .any(|(k, e)| slot.live.get(k).is_none_or(|l| !Arc::ptr_eq(l, e)));
                slot.live = relist;
                applied.swapped = changed;
            }
        }
        if applied.swapped {
            self.rebuild(&state);
        }
        applied
    }

    /// The compile problems of every configuration in force that has any.
    pub fn problems(&self) -> Vec<ConfigurationProblems> {
        let state = self.lock();
        state
            .iter()
            .flat_map(|k| k.live.values())
            .filter(|e| !e.problems.is_empty())
            .map(|e| problems_of(e))
            .collect()
    }

    /// The configuration's entry: the one in force when it did not change (`None`), else
    /// compiled anew.
    fn entry(
        &self,
        live: &BTreeMap<String, Arc<Entry>>,
        kind: HookKind,
        c: Configuration,
        applied: &mut Applied,
    ) -> Option<Arc<Entry>> {
        match live.get(c.name()) {
            Some(e) if same(&e.source, &c, kind) => None,
            _ => Some(self.compile(kind, c, applied)),
        }
    }

    fn compile(&self, kind: HookKind, mut c: Configuration, applied: &mut Applied) -> Arc<Entry> {
        c.kind = kind;
        let compiled = CompiledConfiguration::compile(&c, &self.env);
        let problems = compiled.problems();
        let entry = Entry {
            source: c,
            compiled,
            problems,
        };
        applied.compiled.push(problems_of(&entry));
        Arc::new(entry)
    }

    /// Swaps in a dispatcher over the configurations in force.
    fn rebuild(&self, state: &Kinds) {
        let compiled = state
            .iter()
            .flat_map(|k| k.live.values())
            .map(|e| &e.compiled);
        let mut d = Dispatcher::from_compiled(compiled, self.version, Arc::clone(&self.resources));
        if let Some(a) = &self.authorizer {
            d = d.with_authorizer(Arc::clone(a));
        }
        self.current.store(Arc::new(d));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kinds> {
        // A panic while applying leaves the configurations in force as they were.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn problems_of(e: &Entry) -> ConfigurationProblems {
    ConfigurationProblems {
        kind: e.source.kind,
        name: e.source.name().to_owned(),
        problems: e.problems.clone(),
    }
}

/// True when a configuration applied again is the one in force: its webhooks did not
/// change (metadata such as resourceVersion or managedFields does not count).
fn same(old: &Configuration, new: &Configuration, kind: HookKind) -> bool {
    old.webhooks == new.webhooks && old.name() == new.name() && old.kind == kind
}

fn map_event<K>(event: Event<K>, f: impl Fn(K) -> Configuration) -> Event<Configuration> {
    match event {
        Event::Apply(c) => Event::Apply(f(c)),
        Event::Delete(c) => Event::Delete(f(c)),
        Event::Init => Event::Init,
        Event::InitApply(c) => Event::InitApply(f(c)),
        Event::InitDone => Event::InitDone,
    }
}

/// Namespace labels from a reflector's `Store<Namespace>`, for namespaceSelectors (see the
/// [module](self) docs for a namespace the store does not have).
#[derive(Clone)]
pub struct StoreNamespaces<F = NoNamespaces> {
    store: Store<Namespace>,
    fallback: F,
}

impl<F> fmt::Debug for StoreNamespaces<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreNamespaces")
            .field("namespaces", &self.store.len())
            .finish_non_exhaustive()
    }
}

impl StoreNamespaces {
    /// A lister reading the store; a namespace it does not have is not found.
    pub fn new(store: Store<Namespace>) -> Self {
        StoreNamespaces {
            store,
            fallback: NoNamespaces,
        }
    }

    /// A lister reading the store, asking `fallback` (a live lookup, as the apiserver's
    /// GET) for a namespace the store does not have.
    pub fn with_fallback<F: NamespaceLister>(self, fallback: F) -> StoreNamespaces<F> {
        StoreNamespaces {
            store: self.store,
            fallback,
        }
    }
}

impl<F: NamespaceLister> NamespaceLister for StoreNamespaces<F> {
    fn namespace_labels(&self, name: &str) -> Result<Option<Labels>, String> {
        match self.store.get(&ObjectRef::new(name)) {
            Some(ns) => Ok(Some(ns.metadata.labels.clone().unwrap_or_default())),
            None => self.fallback.namespace_labels(name),
        }
    }
}
