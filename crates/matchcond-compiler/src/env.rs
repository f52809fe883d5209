//! Environments: which variables, types, libraries and language options exist, by
//! Kubernetes version, as `pkg/cel/environment/base.go` defines them.

use std::fmt;

use matchcond_front::checker::{CheckerEnv, NameMap};
use matchcond_front::{ParserOptions, Type};
use matchcond_runtime::libraries::{Behaviours, Library, StringOffsets};

/// A Kubernetes minor version (`1.34`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion {
    /// Major version (1).
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

impl KubeVersion {
    /// Kubernetes 1.28.
    pub const V1_28: KubeVersion = KubeVersion::new(1, 28);
    /// Kubernetes 1.30.
    pub const V1_30: KubeVersion = KubeVersion::new(1, 30);
    /// Kubernetes 1.31.
    pub const V1_31: KubeVersion = KubeVersion::new(1, 31);
    /// Kubernetes 1.32.
    pub const V1_32: KubeVersion = KubeVersion::new(1, 32);
    /// Kubernetes 1.33.
    pub const V1_33: KubeVersion = KubeVersion::new(1, 33);
    /// Kubernetes 1.34.
    pub const V1_34: KubeVersion = KubeVersion::new(1, 34);
    /// Kubernetes 1.35.
    pub const V1_35: KubeVersion = KubeVersion::new(1, 35);
    /// Kubernetes 1.36.
    pub const V1_36: KubeVersion = KubeVersion::new(1, 36);
    /// Kubernetes 1.37.
    pub const V1_37: KubeVersion = KubeVersion::new(1, 37);
    /// The newest version this library models.
    pub const LATEST: KubeVersion = KubeVersion::V1_37;

    /// A version.
    pub const fn new(major: u32, minor: u32) -> Self {
        KubeVersion { major, minor }
    }

    /// The previous minor version (the apiserver's default compatibility version).
    pub fn previous(self) -> Self {
        KubeVersion::new(self.major, self.minor.saturating_sub(1))
    }

    /// Reads the major and minor version from what a cluster reports (`1.34`, `v1.34.2`,
    /// `1.34+`, `v1.34.2-eks-…`, `v1.34.2+k3s1`), modelled or not; `str::parse` also checks
    /// the modelled range and gives typed errors.
    pub fn parse(s: &str) -> Option<Self> {
        crate::version::read(s)
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

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
    /// `%e` of `string.format` writes narrow no-break spaces around `×`: golang.org/x/text
    /// before v0.23.0, which Kubernetes up to 1.32 is built with. A property of the binary
    /// (not of the compatibility version).
    pub spaced_scientific_format: bool,
    /// Quantity `add` and `sub` leave their receiver unchanged (`q.DeepCopy()`, from
    /// Kubernetes 1.37); before, a decimal-backed receiver shares its decimal with the result
    /// and changes with it. A property of the binary.
    pub quantity_add_sub_deep_copy: bool,
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
    /// How `indexOf`/`lastIndexOf` treat offsets (the binary's cel-go).
    pub string_offsets: StringOffsets,
    /// The format library words its messages as apimachinery's content package (1.35+).
    pub label_messages_in_bytes: bool,
    /// The optional type is named `optional` (cel-go v0.17: 1.30), not `optional_type`.
    pub optional_named_optional: bool,
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
    /// An optional value counts as size 1 in cel-go's size-based charges (cel-go before
    /// v0.23: 1.32 and older), not as its value's size.
    pub unsized_optionals: bool,
    /// `containsCIDR` compares prefixes by overlap (1.32+), not by network address.
    pub cidr_contains_by_overlap: bool,
}

impl Features {
    /// The features of the apiserver binary of `version` in `mode`: the libraries and
    /// language options of the environment's version (the previous one for new
    /// expressions), the validators and messages of the binary's own code and cel-go.
    pub fn for_mode(version: KubeVersion, mode: EnvMode) -> Features {
        let binary = Features::for_version(version);
        if mode == EnvMode::StoredExpressions {
            return binary;
        }
        let mut features = Features::for_version(version.previous());
        features.format_validation = if features.libraries.contains(&Library::StringsV2) {
            binary.format_validation
        } else {
            FormatValidation::Off
        };
        features.result_type_message_names_actual = binary.result_type_message_names_actual;
        features.hidden_accumulator_name = binary.hidden_accumulator_name;
        features.strict_cost = binary.strict_cost;
        features.backquote_tokens = binary.backquote_tokens;
        features.spaced_scientific_format = binary.spaced_scientific_format;
        features.quantity_add_sub_deep_copy = binary.quantity_add_sub_deep_copy;
        features.string_offsets = binary.string_offsets;
        features.label_messages_in_bytes = binary.label_messages_in_bytes;
        features.optional_named_optional = binary.optional_named_optional;
        features.shared_macro_nodes = binary.shared_macro_nodes;
        features.untyped_dyn_range_second_variable = binary.untyped_dyn_range_second_variable;
        features.optional_list_functions = binary.optional_list_functions;
        features.eager_accumulator_init = binary.eager_accumulator_init;
        features.unsized_optionals = binary.unsized_optionals;
        features.cidr_contains_by_overlap = binary.cidr_contains_by_overlap;
        features
    }

    /// The options whose `[introduced, removed)` interval contains `v`, per base.go: the
    /// libraries of that version (each library knows its versions), and the language options.
    pub fn for_version(v: KubeVersion) -> Features {
        let at = |minor: u32| v >= KubeVersion::new(1, minor);
        let libraries = Library::of_version(v.major, v.minor);
        let has = |l: Library| libraries.contains(&l);
        Features {
            // `cel.OptionalTypes()` is the library and its syntax; the two-variable and the
            // lists extension's macros come with their libraries.
            optional_types: has(Library::Optionals),
            two_var_comprehensions: has(Library::TwoVarComprehensions),
            lists_ext: has(Library::ListsV3),
            libraries,
            cross_type_numeric_comparisons: at(28),
            literal_validators: at(29),
            spaced_scientific_format: !at(33),
            quantity_add_sub_deep_copy: at(37),
            result_type_message_names_actual: at(32),
            hidden_accumulator_name: at(33),
            strict_cost: at(32),
            backquote_tokens: at(33),
            label_messages_in_bytes: at(35),
            optional_named_optional: !at(31),
            shared_macro_nodes: !at(31),
            untyped_dyn_range_second_variable: v == KubeVersion::V1_32,
            optional_list_functions: at(33),
            eager_accumulator_init: !at(32),
            unsized_optionals: !at(33),
            cidr_contains_by_overlap: at(32),
            string_offsets: if at(34) {
                StringOffsets::LongerNotFound
            } else if at(32) {
                StringOffsets::PastEndNotFound
            } else {
                StringOffsets::PastEndIsError
            },
            format_validation: if at(33) {
                FormatValidation::On
            } else if at(31) {
                FormatValidation::MessageAsPattern
            } else {
                FormatValidation::Off
            },
        }
    }

    /// The run-time behaviours of the function implementations these features select.
    pub fn behaviours(&self) -> Behaviours {
        Behaviours::new()
            .with_spaced_scientific_format(self.spaced_scientific_format)
            .with_quantity_add_sub_deep_copy(self.quantity_add_sub_deep_copy)
            .with_string_offsets(self.string_offsets)
            .with_label_messages_in_bytes(self.label_messages_in_bytes)
            .with_optional_named_optional(self.optional_named_optional)
            .with_unsized_optionals(self.unsized_optionals)
            .with_cidr_contains_by_overlap(self.cidr_contains_by_overlap)
    }
}

/// The declared object types of the matchConditions environment.
fn object_types() -> NameMap<NameMap<Type>> {
    let s = || Type::String;
    let fields = |fs: &[(&str, Type)]| -> NameMap<Type> {
        fs.iter().map(|(n, t)| (n.to_string(), t.clone())).collect()
    };
    let gvk = Type::named("kubernetes.GroupVersionKind");
    let gvr = Type::named("kubernetes.GroupVersionResource");
    let mut m = NameMap::default();
    m.insert(
        "kubernetes.GroupVersionKind".to_string(),
        fields(&[("group", s()), ("version", s()), ("kind", s())]),
    );
    m.insert(
        "kubernetes.GroupVersionResource".to_string(),
        fields(&[("group", s()), ("version", s()), ("resource", s())]),
    );
    m.insert(
        "kubernetes.UserInfo".to_string(),
        fields(&[
            ("username", s()),
            ("uid", s()),
            ("groups", Type::list(s())),
            ("extra", Type::map(s(), Type::list(s()))),
        ]),
    );
    m.insert(
        "kubernetes.AdmissionRequest".to_string(),
        fields(&[
            ("kind", gvk.clone()),
            ("resource", gvr.clone()),
            ("subResource", s()),
            ("requestKind", gvk),
            ("requestResource", gvr),
            ("requestSubResource", s()),
            ("name", s()),
            ("namespace", s()),
            ("operation", s()),
            ("userInfo", Type::named("kubernetes.UserInfo")),
            ("dryRun", Type::Bool),
            ("options", Type::Dyn),
        ]),
    );
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
        ("request".into(), Type::named("kubernetes.AdmissionRequest")),
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
        optional_named_optional: features.optional_named_optional,
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
        for minor in 28..=37 {
            let v = KubeVersion::new(1, minor);
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

    /// The planner takes a checked call's overloads by position: an overload id must name
    /// one overload of its function.
    #[test]
    fn overload_ids_are_unique_within_each_function() {
        for minor in 28..=37 {
            let features = Features::for_version(KubeVersion::new(1, minor));
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
