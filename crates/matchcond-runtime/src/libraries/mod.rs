//! The CEL function libraries, one folder each: the CEL standard library, cel-go's extensions
//! the apiserver enables (optional types, strings, sets, lists, two-variable comprehensions)
//! and the Kubernetes libraries (`k8s.io/apiserver/pkg/cel/library`: lists, regex, URLs,
//! quantity, IP and CIDR, format, semver, authz and authz selectors).
//!
//! # A library is one value
//!
//! Each folder builds its library as one [`Definition`], as cel-go's
//! `cel.Function(name, cel.MemberOverload(id, args, result, cel.BinaryBinding(…)))` does: for
//! every function its name and the Kubernetes estimate of its cost, for every overload its
//! declaration (overload id, call style, parameter and result types, what the type checker
//! resolves calls against), its implementation and its cost rule, in one entry, so that a
//! declaration cannot lose its implementation; beside them the type names the library
//! declares. Which Kubernetes versions declare it is the compiler's release table's to say
//! (`matchcond_compiler::RELEASES`, per kubernetes/apiserver
//! `pkg/cel/environment/base.go`). [`Library::ALL`] lists the libraries in the order the
//! apiserver's base environment adds them, which is the order in which an environment
//! declares their functions (overloads of one function name merge in that order).
//!
//! The compiler declares the functions of a version's libraries to the checker
//! ([`Definition::declarations`]) and plans calls with their [`Bindings`].
//!
//! This file is the registry, the only one that names every library folder; what the
//! folders are written in (a [`Definition`] and its entries, [`Library`],
//! [`Behaviours`], the builders `function`, `global`, `member` …) is the `definition`
//! module beneath it, re-exported here, so that no library imports the registry.
//!
//! # Adding a function
//!
//! Everything happens in the folder of its library:
//!
//! 1. the implementation, an [`Implementation`]: the evaluated arguments (the receiver first)
//!    to a value, or an error with cel-go's text;
//! 2. one entry in the library's `library()`:
//!    `function(name, [member(id, params, result, implementation)])` (or `global`), with
//!    `.cost_rule(…)` on the overload when cel-go prices it by its arguments or a tracker,
//!    and `.estimate_by(…)` on the function when the Kubernetes cost estimator names it (the
//!    vocabulary is [`crate::cost`]'s);
//! 3. its tests, in the folder's `tests.rs`.
//!
//! Nothing else names the overload id. A new library also gets a [`Library`] variant (in
//! `definition.rs`), a place in [`Library::ALL`] (here) and its change in the compiler's
//! release table.
//! `crates/matchcond-compiler/tests/libraries.rs` checks every library whole: implemented,
//! costed, versioned as in base.go.
//!
//! # Conventions
//!
//! An implementation receives the arguments already evaluated, and may assume the types the
//! declaration promises only after checking them: with dynamic arguments the runtime tries
//! overloads in turn, and an implementation given values of other types (or another number
//! of them) returns [`EvalError::no_such_overload`](crate::EvalError::no_such_overload).
//! cel-go's extensions apply a runtime type guard to every argument; a failure that cel-go
//! reports with its bare text `no such overload` (an element of the wrong type met while
//! summing, say) is final, of kind [`ErrorKind::Other`](crate::error::ErrorKind::Other)
//! (the `support` module has both, and the finer conventions of the extensions). The
//! reference behaviour is cel-go at the version Kubernetes ships and kubernetes/apiserver
//! `pkg/cel/library`.

use std::collections::HashMap;
use std::sync::LazyLock;

use matchcond_front::checker::NameHasher;

use crate::cost::{Cost, CostKind, Estimate, ResultSize, TrackedArgument};
use matchcond_front::decls::Overload;

pub mod authz;
pub mod authz_selectors;
pub mod comprehensions;
pub(crate) mod definition;
pub mod format;
pub mod k8s_lists;
pub mod lists;
pub mod net;
pub mod optionals;
pub mod quantity;
pub mod regex;
pub mod semver;
pub mod sets;
pub mod standard;
pub mod strings;
pub(crate) mod support;
pub mod urls;

pub use definition::{
    Behaviours, Binding, Definition, FunctionEntry, Implementation, Library, OverloadEntry,
    StringOffsets,
};
pub use support::{call_with_regex, compile_regex};

impl Library {
    /// Every library, in the order kubernetes/apiserver's base environment
    /// (`pkg/cel/environment/base.go`) adds them: the order in which an environment declares
    /// their functions.
    pub const ALL: [Library; 18] = [
        Library::Standard,
        Library::K8sRegex,
        Library::K8sUrls,
        Library::K8sAuthz,
        Library::K8sQuantity,
        Library::K8sIp,
        Library::K8sCidr,
        Library::K8sFormat,
        Library::K8sAuthzSelectors,
        Library::K8sSemver,
        Library::K8sListsV0,
        Library::K8sListsV1,
        Library::Optionals,
        Library::StringsV0,
        Library::StringsV2,
        Library::Sets,
        Library::TwoVarComprehensions,
        Library::ListsV3,
    ];

    /// The library's definition (built once).
    pub fn definition(self) -> &'static Definition {
        static STANDARD: LazyLock<Definition> = LazyLock::new(standard::library);
        static OPTIONALS: LazyLock<Definition> = LazyLock::new(optionals::library);
        static STRINGS_V0: LazyLock<Definition> = LazyLock::new(|| strings::library(0));
        static STRINGS_V2: LazyLock<Definition> = LazyLock::new(|| strings::library(2));
        static SETS: LazyLock<Definition> = LazyLock::new(sets::library);
        static LISTS_V3: LazyLock<Definition> = LazyLock::new(lists::library);
        static K8S_LISTS_V0: LazyLock<Definition> = LazyLock::new(|| k8s_lists::library(0));
        static K8S_LISTS_V1: LazyLock<Definition> = LazyLock::new(|| k8s_lists::library(1));
        static REGEX: LazyLock<Definition> = LazyLock::new(regex::library);
        static COMPREHENSIONS: LazyLock<Definition> = LazyLock::new(comprehensions::library);
        static URLS: LazyLock<Definition> = LazyLock::new(urls::library);
        static QUANTITY: LazyLock<Definition> = LazyLock::new(quantity::library);
        static IP: LazyLock<Definition> = LazyLock::new(net::ip_library);
        static CIDR: LazyLock<Definition> = LazyLock::new(net::cidr_library);
        static FORMAT: LazyLock<Definition> = LazyLock::new(format::library);
        static SEMVER: LazyLock<Definition> = LazyLock::new(semver::library);
        static AUTHZ: LazyLock<Definition> = LazyLock::new(authz::library);
        static AUTHZ_SELECTORS: LazyLock<Definition> = LazyLock::new(authz_selectors::library);
        match self {
            Library::Standard => &STANDARD,
            Library::Optionals => &OPTIONALS,
            Library::StringsV0 => &STRINGS_V0,
            Library::StringsV2 => &STRINGS_V2,
            Library::Sets => &SETS,
            Library::ListsV3 => &LISTS_V3,
            Library::K8sListsV0 => &K8S_LISTS_V0,
            Library::K8sListsV1 => &K8S_LISTS_V1,
            Library::K8sRegex => &REGEX,
            Library::TwoVarComprehensions => &COMPREHENSIONS,
            Library::K8sUrls => &URLS,
            Library::K8sQuantity => &QUANTITY,
            Library::K8sIp => &IP,
            Library::K8sCidr => &CIDR,
            Library::K8sFormat => &FORMAT,
            Library::K8sSemver => &SEMVER,
            Library::K8sAuthz => &AUTHZ,
            Library::K8sAuthzSelectors => &AUTHZ_SELECTORS,
        }
    }
}

/// What an environment's libraries give the planner: the implementation and cost rule of
/// every overload they declare, and the Kubernetes estimate of every function name.
#[derive(Clone, Debug, Default)]
pub struct Bindings {
    overloads: HashMap<&'static str, (Option<Implementation>, Cost), NameHasher>,
    estimates: HashMap<&'static str, Estimate, NameHasher>,
    /// The overloads of each function name, in declaration order, with the size of their
    /// results (for static estimates).
    functions: HashMap<&'static str, Vec<SizedOverload>, NameHasher>,
    unsized_optionals: bool,
}

/// An overload with the size of its function's results.
type SizedOverload = (&'static OverloadEntry, Option<ResultSize>);

/// One overload a call of a function may resolve to, as a static estimate of the call's
/// cost reads it ([`Bindings::overloads_of`]).
#[non_exhaustive]
#[derive(Clone, Copy, Debug)]
pub struct StaticOverload {
    /// Its declaration (call style, parameter and result types).
    pub declaration: &'static Overload,
    /// The formula of a call of it (see [`CostKind::resolve`]); its static range is
    /// [`CostKind::static_range`].
    pub cost: CostKind,
    /// The size of its result, where the Kubernetes cost estimator states it.
    pub result_size: Option<ResultSize>,
    /// The Kubernetes cost estimator prices its calls (its function's estimate, or the
    /// overload's own): with strict cost, its static range is the estimate's.
    pub estimated: bool,
}

impl Bindings {
    /// The bindings of these libraries under the given run-time behaviours.
    pub fn new(libraries: &[Library], behaviours: Behaviours) -> Bindings {
        let mut b = Bindings {
            unsized_optionals: behaviours.unsized_optionals,
            ..Bindings::default()
        };
        for lib in libraries {
            for f in lib.definition().entries() {
                if let Some(e) = f.estimate() {
                    b.estimates.entry(f.name()).or_insert(e);
                }
                for o in f.overloads() {
                    if let std::collections::hash_map::Entry::Vacant(v) = b.overloads.entry(o.id())
                    {
                        v.insert((o.binding().implementation(behaviours), o.cost()));
                        b.functions
                            .entry(f.name())
                            .or_default()
                            .push((o, f.result_size()));
                    }
                }
            }
        }
        b
    }

    /// The implementation of an overload (`None` for an overload the interpreter evaluates
    /// itself, or one not declared).
    pub fn implementation(&self, overload: &str) -> Option<Implementation> {
        self.overloads.get(overload).and_then(|(f, _)| *f)
    }

    /// The cost formula of a call of `function` (see [`CostKind::resolve`]): `overload` is
    /// the overload when only one applies; `strict` prices calls with the Kubernetes
    /// estimator (Kubernetes 1.32+).
    pub fn cost(&self, function: &str, overload: Option<&str>, strict: bool) -> CostKind {
        let cost = overload.and_then(|id| self.overloads.get(id).map(|(_, c)| *c));
        let kind = CostKind::resolve(cost, self.estimates.get(function).copied(), strict);
        if self.unsized_optionals {
            kind.with_unsized_optionals()
        } else {
            kind
        }
    }

    /// The overloads the environment declares for `function`, in declaration order, each
    /// with the cost formula of a call of it under `strict` (as [`Bindings::cost`] resolves
    /// it) and the size of its result: what a static estimate of a call reads, so that a
    /// call's static range and its run-time charge come from the same rule. Empty when the
    /// function is not declared.
    pub fn overloads_of(&self, function: &str, strict: bool) -> Vec<StaticOverload> {
        self.functions
            .get(function)
            .map(|overloads| {
                overloads
                    .iter()
                    .map(|(o, result_size)| StaticOverload {
                        declaration: o.declaration(),
                        cost: self.cost(function, Some(o.id()), strict),
                        result_size: *result_size,
                        estimated: o.cost().estimate().is_some()
                            || self.estimates.contains_key(function),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The argument an overload's cost tracker converts unchecked, if it has such a tracker.
    pub fn tracked_argument(&self, overload: Option<&str>) -> Option<TrackedArgument> {
        let (_, cost) = self.overloads.get(overload?)?;
        match cost.charge() {
            crate::cost::Charge::Tracked(t) => t.argument(),
            _ => None,
        }
    }
}

/// The implementation of an overload of any library, as the newest modelled Kubernetes
/// version behaves ([`Behaviours::new`]).
pub fn implementation(overload_id: &str) -> Option<Implementation> {
    static ALL: LazyLock<Bindings> =
        LazyLock::new(|| Bindings::new(&Library::ALL, Behaviours::new()));
    ALL.implementation(overload_id)
}
