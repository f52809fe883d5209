//! Every library, whole (`matchcond_runtime::libraries`): each declared overload has an
//! implementation, or is one the interpreter evaluates itself, and a cost rule that fits its
//! signature; an overload id means one overload wherever it is declared; the Kubernetes
//! estimate of a function is the same in every library that declares it (the estimator is
//! keyed by function name); and each library exists in the Kubernetes versions of
//! kubernetes/apiserver's `pkg/cel/environment/base.go`, which every environment follows
//! (`versions.rs` pins the same table by what compiles where).

#![allow(clippy::panic, clippy::indexing_slicing)]

use std::collections::HashMap;

use matchcond_compiler::{Change, EnvMode, Environment, Features, KubeVersion};
use matchcond_front::decls::Overload;
use matchcond_front::Type;
use matchcond_runtime::cost::{Charge, Cost, Estimate, Tracker};
use matchcond_runtime::libraries::{Behaviours, Binding, Library};
use matchcond_runtime::{ErrorKind, Value};

/// base.go's table, in its order: each library with the first minor version of 1.x that has
/// it and the first that no longer does (a newer version of the library replaces it).
const BASE_GO: [(Library, Option<u32>, Option<u32>); 18] = [
    (Library::Standard, None, None),
    (Library::K8sRegex, None, None),
    (Library::K8sUrls, None, None),
    (Library::K8sAuthz, Some(27), None),
    (Library::K8sQuantity, Some(28), None),
    (Library::K8sIp, Some(30), None),
    (Library::K8sCidr, Some(30), None),
    (Library::K8sFormat, Some(31), None),
    (Library::K8sAuthzSelectors, Some(31), None),
    (Library::K8sSemver, Some(33), None),
    (Library::K8sListsV0, None, Some(37)),
    (Library::K8sListsV1, Some(37), None),
    (Library::Optionals, Some(28), None),
    (Library::StringsV0, None, Some(29)),
    (Library::StringsV2, Some(29), None),
    (Library::Sets, Some(29), None),
    (Library::TwoVarComprehensions, Some(32), None),
    (Library::ListsV3, Some(34), None),
];

/// The functions whose calls the planner turns into nodes of their own (`&&`, `||`, `?:`,
/// optional selection and indexing): only their overloads may lack an implementation.
const PLANNED_AS_NODES: [&str; 6] = ["_?_:_", "_&&_", "_||_", "_?._", "_[?_]", "_[_]"];

/// Every combination of the run-time behaviours.
fn all_behaviours() -> Vec<Behaviours> {
    let mut out = Vec::new();
    for spaced in [false, true] {
        for deep in [false, true] {
            out.push(
                Behaviours::new()
                    .with_spaced_scientific_format(spaced)
                    .with_quantity_add_sub_deep_copy(deep),
            );
        }
    }
    out
}

fn is_list(t: &Type) -> bool {
    matches!(t, Type::List(_) | Type::Dyn)
}

/// Why a cost rule does not fit an overload's signature, if it does not.
fn misfit(o: &Overload, cost: Cost, estimate: Option<Estimate>) -> Option<String> {
    let n = o.params.len();
    let param_is_list = |i: usize| o.params.get(i).is_some_and(is_list);
    let charge_fits = match cost.charge() {
        Charge::One => true,
        Charge::FirstTenth => n >= 1,
        Charge::InList => n == 2 && param_is_list(1),
        Charge::MinTenth
        | Charge::MinTenthUnsizedOptionals
        | Charge::SumTenth
        | Charge::Matches
        | Charge::Contains => n == 2,
        Charge::Tracked(Tracker::Result) => is_list(&o.result),
        Charge::Tracked(Tracker::Flatten { depth_argument }) => {
            param_is_list(0) && n == if depth_argument { 2 } else { 1 }
        }
        Charge::Tracked(Tracker::SelfCompare(i)) => param_is_list(i),
        Charge::Tracked(Tracker::SetsProduct | Tracker::SetsEquivalent) => {
            n == 2 && param_is_list(0) && param_is_list(1)
        }
    };
    if !charge_fits {
        return Some(format!("charge {:?}", cost.charge()));
    }
    let estimate_fits = match estimate {
        None | Some(Estimate::Fixed(_)) => true,
        Some(
            Estimate::StringTraversal
            | Estimate::StringTraversalTwice
            | Estimate::JoinedResult
            | Estimate::ListTraversal,
        ) => n >= 1,
        Some(Estimate::Find) => n >= 2,
        Some(
            Estimate::Selector
            | Estimate::ContainsIp { .. }
            | Estimate::ContainsCidr { .. }
            | Estimate::Validate
            | Estimate::LibraryEquality,
        ) => n == 2,
    };
    (!estimate_fits).then(|| format!("estimate {estimate:?}"))
}

#[test]
fn every_overload_is_declared_implemented_and_costed() {
    // An overload id means one overload: same function, declaration, binding kind and cost
    // wherever it is declared (versions of one library declare some ids twice).
    let mut seen: HashMap<&str, (&str, Overload, bool, Cost)> = HashMap::new();
    let mut overloads = 0;
    for lib in Library::ALL {
        let def = lib.definition();
        assert_eq!(def.library(), lib);
        assert!(!def.entries().is_empty(), "{lib:?} declares nothing");
        let mut names = Vec::new();
        for f in def.entries() {
            assert!(
                !names.contains(&f.name()),
                "{lib:?} declares {} twice",
                f.name()
            );
            names.push(f.name());
            assert!(
                !f.overloads().is_empty(),
                "{lib:?}: {} has no overload",
                f.name()
            );
            for o in f.overloads() {
                overloads += 1;
                let d = o.declaration();
                let here = format!("{lib:?}: {} ({})", f.name(), d.id);
                match o.binding() {
                    Binding::Interpreter => assert!(
                        PLANNED_AS_NODES.contains(&f.name()),
                        "{here} is declared but not implemented"
                    ),
                    binding => {
                        for b in all_behaviours() {
                            let Some(imp) = binding.implementation(b) else {
                                panic!("{here} has no implementation under {b:?}")
                            };
                            // Arguments an overload does not take are refused, not a panic.
                            let args = vec![Value::Null; d.params.len() + 1];
                            match imp(&args) {
                                Err(e) => assert_eq!(e.kind(), ErrorKind::NoSuchOverload, "{here}"),
                                Ok(v) => panic!("{here} took too many arguments: {v:?}"),
                            }
                        }
                    }
                }
                let estimate = o.cost().estimate().or(f.estimate());
                if let Some(why) = misfit(d, o.cost(), estimate) {
                    panic!(
                        "{here}: the {why} does not fit {:?} -> {:?}",
                        d.params, d.result
                    );
                }
                let interpreted = matches!(o.binding(), Binding::Interpreter);
                let entry = (f.name(), d.clone(), interpreted, o.cost());
                if let Some(before) = seen.get(d.id) {
                    assert_eq!(before, &entry, "{here} differs from another declaration");
                }
                seen.insert(d.id, entry);
            }
        }
    }
    // The number of distinct overloads: every library at its versions.
    assert_eq!(seen.len(), 341, "{overloads} overloads in all");
}

#[test]
fn the_kubernetes_estimate_of_a_function_is_one_per_name() {
    let mut estimates: HashMap<&str, (Library, Option<Estimate>)> = HashMap::new();
    for lib in Library::ALL {
        for f in lib.definition().entries() {
            match estimates.get(f.name()) {
                Some((first, e)) => assert_eq!(
                    *e,
                    f.estimate(),
                    "{} is estimated differently in {first:?} and {lib:?}",
                    f.name()
                ),
                None => {
                    estimates.insert(f.name(), (lib, f.estimate()));
                }
            }
        }
    }
    // Every function name the Kubernetes estimator prices, and how.
    let mut priced: Vec<(&str, Estimate)> = estimates
        .iter()
        .filter_map(|(name, (_, e))| e.map(|e| (*name, e)))
        .collect();
    priced.sort_by_key(|(n, _)| *n);
    assert_eq!(priced.len(), 71, "{priced:?}");
    let fixed = |n| Estimate::Fixed(n);
    for (name, want) in [
        ("check", fixed(350_000)),
        ("serviceAccount", fixed(1)),
        ("getQuery", fixed(1)),
        ("isGlobalUnicast", fixed(1)),
        ("compareTo", fixed(1)),
        ("format.named", fixed(1)),
        ("fieldSelector", Estimate::Selector),
        ("indexOf", Estimate::ListTraversal),
        ("includes", Estimate::ListTraversal),
        ("lowerAscii", Estimate::StringTraversal),
        ("ip", Estimate::StringTraversal),
        ("ip.isCanonical", Estimate::StringTraversalTwice),
        ("join", Estimate::JoinedResult),
        ("findAll", Estimate::Find),
        (
            "containsCIDR",
            Estimate::ContainsCidr {
                parses_string: false,
            },
        ),
        ("validate", Estimate::Validate),
        ("_==_", Estimate::LibraryEquality),
    ] {
        assert_eq!(
            priced.iter().find(|(n, _)| *n == name).map(|(_, e)| *e),
            Some(want),
            "{name}"
        );
    }
}

#[test]
fn libraries_exist_in_the_versions_of_base_go() {
    assert_eq!(
        Library::ALL,
        BASE_GO.map(|(lib, _, _)| lib),
        "the order of base.go"
    );
    // The release table makes and ends each library where base.go introduces and removes it.
    for (lib, since, until) in BASE_GO {
        for minor in 0..=KubeVersion::LATEST.minor + 3 {
            let in_base_go = since.is_none_or(|s| minor >= s) && until.is_none_or(|u| minor < u);
            assert_eq!(
                Change::Library(lib).in_force(KubeVersion::new(1, minor)),
                in_base_go,
                "{lib:?} 1.{minor}"
            );
        }
    }
    let expected = |minor: u32| -> Vec<Library> {
        BASE_GO
            .iter()
            .filter(|(_, since, until)| {
                since.is_none_or(|s| minor >= s) && until.is_none_or(|u| minor < u)
            })
            .map(|(lib, _, _)| *lib)
            .collect()
    };
    for minor in 20..=KubeVersion::LATEST.minor + 3 {
        let v = KubeVersion::new(1, minor);
        let libraries = Features::for_version(v).libraries;
        assert_eq!(libraries, expected(minor), "1.{minor}");
        let f = Features::for_version(v);
        assert_eq!(f.optional_types, libraries.contains(&Library::Optionals));
        assert_eq!(
            f.two_var_comprehensions,
            libraries.contains(&Library::TwoVarComprehensions)
        );
        assert_eq!(f.lists_ext, libraries.contains(&Library::ListsV3));
        if minor >= 24 {
            // What environments are built with: the binary's version for stored
            // expressions, the previous one for new expressions.
            for (mode, of) in [
                (EnvMode::StoredExpressions, minor),
                (EnvMode::NewExpressions, minor - 1),
            ] {
                let env = Environment::with_mode(v, mode);
                assert_eq!(env.features().libraries, expected(of), "1.{minor} {mode:?}");
            }
        }
    }
    // Every library is in some modelled version.
    for lib in Library::ALL {
        assert!(
            KubeVersion::modelled().any(|v| Change::Library(lib).in_force(v)),
            "{lib:?}"
        );
    }
}
