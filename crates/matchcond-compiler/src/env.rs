//! Environments: which variables, types, libraries and language options exist, by
//! Kubernetes version, as `pkg/cel/environment/base.go` defines them.

use matchcond_front::checker::{CheckerEnv, NameMap};
use matchcond_front::{ParserOptions, Type};
use matchcond_runtime::libraries::{Behaviours, Library, StringOffsets};
use matchcond_runtime::request_schema::{ADMISSION_REQUEST, DECLARED_TYPES};

use crate::release::{Change, KubeVersion, Layer};

/// Which of the apiserver's two environments to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EnvMode {
    /// For new or changed expressions: the options of the compatibility version
    /// (the binary's previous minor version).
    NewExpressions,
    /// For stored expressions and run time: every option the binary has.
    StoredExpressions,
}

/// Whether and how `string.format` calls are validated when compiling: cel-go's strings
/// extension (version 1 and later) checks a literal format string against a list literal of
/// arguments (`'%d'.format([1.5])` does not compile).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FormatValidation {
    /// Not validated (cel-go before v0.20: Kubernetes 1.30 and older).
    Off,
    /// Validated, the message being reported as a Go format string, so that a `%` in it
    /// reads as a verb (cel-go v0.20 to v0.22: Kubernetes 1.31 and 1.32).
    MessageAsPattern,
    /// Validated (cel-go v0.23 and later: Kubernetes 1.33 and newer).
    On,
}

/// The language options and libraries in force.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Features {
    /// Libraries whose functions are declared.
    pub libraries: Vec<Library>,
    /// `cel.OptionalTypes()` (syntax and functions).
    pub optional_types: bool,
    /// `cel.CrossTypeNumericComparisons(true)`.
    pub cross_type_numeric_comparisons: bool,
    /// The duration/timestamp/regex literal validators (1.29+).
    pub literal_validators: bool,
    /// `ext.TwoVarComprehensions()` macros (1.32+).
    pub two_var_comprehensions: bool,
    /// The lists extension (`sortBy` macro) (1.34+).
    pub lists_ext: bool,
    /// The compile-time validation of `string.format` calls (1.31+).
    pub format_validation: FormatValidation,
    /// Calls are priced by the Kubernetes cost estimator (`StrictCostEnforcementForWebhooks`,
    /// on by default from 1.32: an authorizer check costs 350,000); before, by cel-go's own
    /// trackers and defaults alone.
    pub strict_cost: bool,
    /// The grammar knows backquoted names (cel-go v0.23+: 1.33+), which are then refused
    /// as `unsupported syntax`; before, a backquote is a token recognition error.
    pub backquote_tokens: bool,
    /// Macros accumulate in the hidden `@result` and reject `__result__` as an iteration
    /// variable (cel-go v0.23+: 1.33+); before, they accumulate in `__result__`.
    pub hidden_accumulator_name: bool,
    /// A result of the wrong type is reported with the type found (`must evaluate to bool
    /// but got int`, 1.32+) rather than without it (`must evaluate to bool`).
    pub result_type_message_names_actual: bool,
    /// Macro expansions share nodes and allocate ids as cel-go before v0.18 (1.30 and
    /// older) builds them: `optMap` and `optFlatMap` put their target itself, the same nodes
    /// with the same ids, under both `hasValue()` and `value()`, and the checker, checking
    /// it twice, keeps each node's first type and reports a different second one
    /// (`incompatible type already exists for expression: …`); `map`, `filter` and
    /// `exists_one` share a node between their step and result. Later versions build every
    /// use as a node of its own. A property of the binary's cel-go.
    pub shared_macro_nodes: bool,
    /// cel-go v0.22 (1.32) leaves the second variable of a two-variable comprehension over
    /// a `dyn` range untyped.
    pub untyped_dyn_range_second_variable: bool,
    /// The optional library is cel-go's version 2, with `first`, `last`, `optional.unwrap`
    /// and `unwrapOpt` (cel-go v0.23+: 1.33+; the binary's cel-go chooses it).
    pub optional_list_functions: bool,
    /// Comprehension accumulators are initialized before the loop (cel-go before v0.22:
    /// 1.30, 1.31): `optFlatMap` then pays for its target's value even when unread.
    pub eager_accumulator_init: bool,
    /// The run-time behaviours of the binary's function implementations.
    pub behaviours: Behaviours,
}

impl Features {
    /// The features of the apiserver binary of `version` in `mode`, projected from
    /// [`RELEASES`](crate::release::RELEASES): the libraries and language options of the
    /// environment's version (the previous one for new expressions), everything else of the
    /// binary's own version.
    pub fn for_mode(version: KubeVersion, mode: EnvMode) -> Features {
        let environment = match mode {
            EnvMode::StoredExpressions => version,
            EnvMode::NewExpressions => version.previous(),
        };
        let has = |change: Change| match change.layer() {
            Layer::Environment => change.in_force(environment),
            _ => change.in_force(version),
        };
        let libraries: Vec<Library> = Library::ALL
            .into_iter()
            .filter(|&l| has(Change::Library(l)))
            .collect();
        let declared = |l: Library| libraries.contains(&l);
        Features {
            // `cel.OptionalTypes()` is the library and its syntax; the two-variable and the
            // lists extension's macros come with their libraries.
            optional_types: declared(Library::Optionals),
            two_var_comprehensions: declared(Library::TwoVarComprehensions),
            lists_ext: declared(Library::ListsV3),
            // The binary validates format calls only where the strings library that has
            // `format` is declared.
            format_validation: if !declared(Library::StringsV2) {
                FormatValidation::Off
            } else if has(Change::FormatValidation) {
                FormatValidation::On
            } else if has(Change::FormatValidationAsPattern) {
                FormatValidation::MessageAsPattern
            } else {
                FormatValidation::Off
            },
            libraries,
            cross_type_numeric_comparisons: has(Change::CrossTypeNumericComparisons),
            literal_validators: has(Change::LiteralValidators),
            result_type_message_names_actual: has(Change::ResultTypeMessageNamesActual),
            hidden_accumulator_name: has(Change::HiddenAccumulatorName),
            strict_cost: has(Change::StrictCost),
            backquote_tokens: has(Change::BackquoteTokens),
            shared_macro_nodes: !has(Change::MacroNodesOfTheirOwn),
            untyped_dyn_range_second_variable: has(Change::UntypedDynRangeSecondVariable),
            optional_list_functions: has(Change::OptionalListFunctions),
            eager_accumulator_init: !has(Change::LazyAccumulatorInit),
            behaviours: Behaviours::new()
                .with_spaced_scientific_format(!has(Change::UnspacedScientificFormat))
                .with_quantity_add_sub_deep_copy(has(Change::QuantityAddSubDeepCopy))
                .with_string_offsets(if has(Change::StringOffsetsLongerNotFound) {
                    StringOffsets::LongerNotFound
                } else if has(Change::StringOffsetsPastEndNotFound) {
                    StringOffsets::PastEndNotFound
                } else {
                    StringOffsets::PastEndIsError
                })
                .with_label_messages_in_bytes(has(Change::ContentPackageMessages))
                .with_optional_named_optional(!has(Change::OptionalTypeNamedOptionalType))
                .with_unsized_optionals(!has(Change::SizedOptionals))
                .with_cidr_contains_by_overlap(has(Change::CidrContainsByOverlap)),
        }
    }

    /// The features of the apiserver binary of `v` for stored expressions (every option
    /// the binary has).
    pub fn for_version(v: KubeVersion) -> Features {
        Features::for_mode(v, EnvMode::StoredExpressions)
    }
}

/// The declared object types of the matchConditions environment: the request's from the
/// runtime's request schema, then the namespace object's.
fn object_types() -> NameMap<NameMap<Type>> {
    let s = || Type::String;
    let fields = |fs: &[(&str, Type)]| -> NameMap<Type> {
        fs.iter().map(|(n, t)| (n.to_string(), t.clone())).collect()
    };
    let mut m: NameMap<NameMap<Type>> = DECLARED_TYPES
        .iter()
        .map(|t| {
            let members = t
                .members
                .iter()
                .map(|m| (m.name.to_string(), m.ty.to_type()));
            (t.name.to_string(), members.collect())
        })
        .collect();
    m.insert(
        "kubernetes.NamespaceSpec".to_string(),
        fields(&[("finalizers", Type::list(s()))]),
    );
    m.insert(
        "kubernetes.NamespaceCondition".to_string(),
        fields(&[
            ("status", s()),
            ("type", s()),
            ("lastTransitionTime", Type::Timestamp),
            ("message", s()),
            ("reason", s()),
        ]),
    );
    m.insert(
        "kubernetes.NamespaceStatus".to_string(),
        fields(&[
            (
                "conditions",
                Type::list(Type::named("kubernetes.NamespaceCondition")),
            ),
            ("phase", s()),
        ]),
    );
    m.insert(
        "kubernetes.NamespaceMetadata".to_string(),
        fields(&[
            ("name", s()),
            ("generateName", s()),
            ("namespace", s()),
            ("labels", Type::map(s(), s())),
            ("annotations", Type::map(s(), s())),
            ("UID", s()),
            ("creationTimestamp", Type::Timestamp),
            ("deletionGracePeriodSeconds", Type::Int),
            ("deletionTimestamp", Type::Timestamp),
            ("generation", Type::Int),
            ("resourceVersion", s()),
            ("finalizers", Type::list(s())),
        ]),
    );
    m.insert(
        "kubernetes.Namespace".to_string(),
        fields(&[
            ("metadata", Type::named("kubernetes.NamespaceMetadata")),
            ("spec", Type::named("kubernetes.NamespaceSpec")),
            ("status", Type::named("kubernetes.NamespaceStatus")),
        ]),
    );
    m
}

/// The global variables of the matchConditions environment, in slot order, with types.
pub fn match_condition_variables() -> Vec<(String, Type)> {
    vec![
        ("object".into(), Type::Dyn),
        ("oldObject".into(), Type::Dyn),
        ("request".into(), Type::named(ADMISSION_REQUEST)),
        (
            "namespaceObject".into(),
            Type::named("kubernetes.Namespace"),
        ),
        (
            "authorizer".into(),
            Type::named("kubernetes.authorization.Authorizer"),
        ),
        (
            "authorizer.requestResource".into(),
            Type::named("kubernetes.authorization.ResourceCheck"),
        ),
    ]
}

/// Builds the checker environment for a feature set and extra variables.
pub(crate) fn checker_env(features: &Features, variables: &[(String, Type)]) -> CheckerEnv {
    let mut env = CheckerEnv {
        homogeneous_aggregate_literals: false,
        optional_named_optional: features.behaviours.optional_named_optional,
        untyped_dyn_range_second_variable: features.untyped_dyn_range_second_variable,
        one_type_per_node: features.shared_macro_nodes,
        object_types: object_types(),
        ..CheckerEnv::default()
    };
    env.add_standard_type_idents();
    // The apiserver's type provider also resolves its declared object types and its own
    // scalar type names (`timestamp`, `duration`) as types, which the runtime cannot.
    for name in env.object_types.keys() {
        env.provider_types.insert(name.clone(), Type::named(name));
    }
    env.provider_types
        .insert("timestamp".into(), Type::Timestamp);
    env.provider_types.insert("duration".into(), Type::Duration);
    if features.optional_types {
        env.type_idents
            .insert("optional_type".into(), Type::optional(Type::Dyn));
    }
    for (n, t) in variables {
        env.variables.insert(n.clone(), t.clone());
    }
    for lib in &features.libraries {
        let def = lib.definition();
        let mut fs = def.declarations();
        if !features.cross_type_numeric_comparisons && *lib == Library::Standard {
            for f in fs.iter_mut() {
                f.overloads.retain(|o| !is_cross_type_comparison(o.id));
            }
        }
        if !features.optional_list_functions && *lib == Library::Optionals {
            fs.retain(|f| !OPTIONAL_LIST_FUNCTIONS.contains(&f.name));
        }
        env.add_functions(fs);
        for (name, t) in def.type_names() {
            env.type_idents.insert(name.to_string(), t.clone());
        }
        for name in def.unresolved_object_types() {
            env.unresolved_struct_types.insert(name.to_string());
        }
    }
    env
}

/// The functions of version 2 of cel-go's optional library (cel-go v0.23+).
const OPTIONAL_LIST_FUNCTIONS: [&str; 4] = ["first", "last", "optional.unwrap", "unwrapOpt"];

fn is_cross_type_comparison(id: &str) -> bool {
    let cmp = ["less_", "less_equals_", "greater_", "greater_equals_"];
    let types = [
        ("int64", "uint64"),
        ("int64", "double"),
        ("uint64", "int64"),
        ("uint64", "double"),
        ("double", "int64"),
        ("double", "uint64"),
    ];
    cmp.iter().any(|c| {
        types
            .iter()
            .any(|(a, b)| id == format!("{c}{a}_{b}").as_str())
    })
}

/// Parser options for a feature set.
pub(crate) fn parser_options(features: &Features) -> ParserOptions {
    ParserOptions {
        enable_optional_syntax: features.optional_types,
        enable_two_var_comprehensions: features.two_var_comprehensions,
        enable_lists_macros: features.lists_ext,
        enable_hidden_accumulator_name: features.hidden_accumulator_name,
        backquote_tokens: features.backquote_tokens,
        // cel-go before v0.23 reports ANTLR's messages as format strings.
        syntax_errors_as_patterns: !features.backquote_tokens,
        invalid_code_points_replaced: !features.backquote_tokens,
        empty_input_at_first_column: features.eager_accumulator_init,
        shared_macro_nodes: features.shared_macro_nodes,
        ..ParserOptions::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Macro expansions share nodes, and the checker keeps a node's first type, with the
    /// binary's cel-go before v0.18 (Kubernetes 1.30 and older), whichever environment.
    #[test]
    fn macro_nodes_are_shared_up_to_1_30() {
        for v in KubeVersion::modelled() {
            let minor = v.minor;
            for mode in [EnvMode::StoredExpressions, EnvMode::NewExpressions] {
                let features = Features::for_mode(v, mode);
                assert_eq!(
                    features.shared_macro_nodes,
                    minor <= 30,
                    "1.{minor} {mode:?}"
                );
                let checker = checker_env(&features, &match_condition_variables());
                assert_eq!(checker.one_type_per_node, minor <= 30);
                assert_eq!(parser_options(&features).shared_macro_nodes, minor <= 30);
            }
        }
    }

    /// The runtime's default behaviours are the newest release's, and the behaviours of new
    /// expressions are the binary's whatever the environment's version.
    #[test]
    fn behaviours_follow_the_binary() {
        assert_eq!(
            Features::for_version(KubeVersion::LATEST).behaviours,
            Behaviours::new()
        );
        for v in KubeVersion::modelled() {
            let stored = Features::for_mode(v, EnvMode::StoredExpressions);
            let new = Features::for_mode(v, EnvMode::NewExpressions);
            assert_eq!(stored.behaviours, new.behaviours, "{v}");
            assert_eq!(stored.strict_cost, new.strict_cost, "{v}");
            assert_eq!(new.libraries, Features::for_version(v.previous()).libraries);
        }
        let f = |minor| Features::for_version(KubeVersion::new(1, minor));
        assert_eq!(
            (30..=35)
                .map(|m| f(m).behaviours.string_offsets)
                .collect::<Vec<_>>(),
            [
                StringOffsets::PastEndIsError,
                StringOffsets::PastEndIsError,
                StringOffsets::PastEndNotFound,
                StringOffsets::PastEndNotFound,
                StringOffsets::LongerNotFound,
                StringOffsets::LongerNotFound,
            ]
        );
        assert_eq!(
            (30..=33)
                .map(|m| f(m).format_validation)
                .collect::<Vec<_>>(),
            [
                FormatValidation::Off,
                FormatValidation::MessageAsPattern,
                FormatValidation::MessageAsPattern,
                FormatValidation::On,
            ]
        );
        // 1.28's compatibility version has no strings library with `format`.
        assert_eq!(
            Features::for_mode(KubeVersion::V1_29, EnvMode::NewExpressions).format_validation,
            FormatValidation::Off
        );
    }

    /// The planner takes a checked call's overloads by position: an overload id must name
    /// one overload of its function.
    #[test]
    fn overload_ids_are_unique_within_each_function() {
        for v in KubeVersion::modelled() {
            let features = Features::for_version(v);
            let env = checker_env(&features, &match_condition_variables());
            assert!(env.functions.len() > 90);
            for f in env.functions.values() {
                for (i, o) in f.overloads.iter().enumerate() {
                    let first = f.overloads.iter().position(|d| d.id == o.id);
                    assert_eq!(first, Some(i), "{} has {} twice", f.name, o.id);
                }
            }
        }
    }
}
