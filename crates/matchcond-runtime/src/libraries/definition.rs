//! What a library is made of, the vocabulary every library folder is written in: the
//! [`Library`] names, a library's [`Definition`] (its functions, each [`FunctionEntry`] with
//! its overloads, each [`OverloadEntry`] with its declaration, [`Binding`] and cost rule),
//! the [`Behaviours`] that choose an implementation, and the
//! builders a folder writes its entries with (`function`, `global`, `member` …). The
//! registry ([`super`]) alone knows every library: each one's definition
//! ([`Library::definition`]) and the [`Bindings`](super::Bindings) of an environment.

use matchcond_front::decls::{Function, Overload};
use matchcond_front::Type;

use crate::cost::{Cost, Estimate, ResultSize};
use crate::error::EvalError;
use crate::value::Value;

/// A function implementation: the evaluated arguments (the receiver first for member calls)
/// to the result.
pub type Implementation = for<'a> fn(&[Value<'a>]) -> Result<Value<'a>, EvalError>;

/// A library an environment may enable. Its definition and the list of them all are the
/// registry's ([`Library::definition`], [`Library::ALL`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Library {
    /// The CEL standard library (operators, conversions, strings, timestamps …).
    Standard,
    /// Optional types (`optional.of`, `hasValue`, `orValue` …).
    Optionals,
    /// cel-go strings extension, version 0.
    StringsV0,
    /// cel-go strings extension, version 2.
    StringsV2,
    /// cel-go sets extension.
    Sets,
    /// cel-go lists extension, version 3.
    ListsV3,
    /// Kubernetes lists library, version 0 (`isSorted`, `sum`, `min`, `max`, `indexOf`,
    /// `lastIndexOf`).
    K8sListsV0,
    /// Kubernetes lists library, version 1 (adds `includes`).
    K8sListsV1,
    /// Kubernetes regex library (`find`, `findAll`).
    K8sRegex,
    /// cel-go's two-variable comprehensions (the `cel.@mapInsert` helper of `transformMap`).
    TwoVarComprehensions,
    /// Kubernetes URLs library (`url`, `isURL`, `getScheme` …), type `kubernetes.URL`.
    K8sUrls,
    /// Kubernetes quantity library, type `kubernetes.Quantity`.
    K8sQuantity,
    /// Kubernetes IP library, type `net.IP`.
    K8sIp,
    /// Kubernetes CIDR library, type `net.CIDR`.
    K8sCidr,
    /// Kubernetes format library, type `kubernetes.NamedFormat`.
    K8sFormat,
    /// Kubernetes semver library (version 1, with normalisation), type `kubernetes.Semver`.
    K8sSemver,
    /// Kubernetes authorizer library.
    K8sAuthz,
    /// Kubernetes authorizer selectors (`fieldSelector`, `labelSelector`).
    K8sAuthzSelectors,
}

/// Run-time behaviours of the Go code behind a function that differ between Kubernetes
/// versions although the function's declaration does not (a library's fix, a dependency's
/// new version). The default is the newest modelled version's behaviour.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Behaviours {
    /// `%e` of `string.format` writes narrow no-break spaces around `×`
    /// (`2.718280\u{202f}×\u{202f}10⁰⁰`), as golang.org/x/text before v0.23.0 does
    /// (Kubernetes up to 1.32).
    pub spaced_scientific_format: bool,
    /// Quantity `add` and `sub` work on a deep copy of the receiver (Kubernetes 1.37:
    /// `q.DeepCopy()`) instead of a shallow one that shares a decimal-backed receiver's
    /// decimal and so changes the receiver too (up to 1.36: `copy := *q`).
    pub quantity_add_sub_deep_copy: bool,
    /// How the strings extension's `indexOf` and `lastIndexOf` treat offsets (cel-go's).
    pub string_offsets: StringOffsets,
    /// The format library's messages are apimachinery's content package's (`must be no more
    /// than 63 bytes`, `a valid label key must …`: Kubernetes 1.35+) rather than
    /// `util/validation`'s (`… 63 characters`, `a qualified name must …`).
    pub label_messages_in_bytes: bool,
    /// `type()` of an optional value is `optional` (cel-go v0.17: Kubernetes 1.30), not
    /// `optional_type`.
    pub optional_named_optional: bool,
    /// An optional value counts as size 1 in cel-go's size-based charges (cel-go before
    /// v0.23: Kubernetes 1.32 and older; `optional.of('a') == optional.of('b')` costs 3,
    /// later 4 for longer strings), not as its value's size.
    pub unsized_optionals: bool,
    /// `containsCIDR` tests that the inner prefix lies in the outer one (Kubernetes 1.32+);
    /// before, that the inner address is the outer network address.
    pub cidr_contains_by_overlap: bool,
}

/// How the strings extension's `indexOf` and `lastIndexOf` treat offsets, by cel-go version.
/// In every version the empty substring is found at the offset given, unchecked.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StringOffsets {
    /// An offset at or past the end is `index out of range: <offset>` (cel-go before v0.22:
    /// Kubernetes 1.30 and 1.31), so `''.indexOf('a')` fails.
    PastEndIsError,
    /// An offset at or past the end finds nothing (cel-go v0.22 and v0.23: Kubernetes 1.32
    /// and 1.33); `lastIndexOf` starts at the last code point, so `''.lastIndexOf('a')` is
    /// `index out of range: -1`.
    PastEndNotFound,
    /// As [`StringOffsets::PastEndNotFound`], and `lastIndexOf` first finds nothing when the
    /// substring is longer in bytes than the string (cel-go v0.26 and later: Kubernetes
    /// 1.34 and newer).
    #[default]
    LongerNotFound,
}

impl StringOffsets {
    pub(crate) const LONGER_NOT_FOUND: u8 = 0;
    pub(crate) const PAST_END_NOT_FOUND: u8 = 1;
    pub(crate) const PAST_END_IS_ERROR: u8 = 2;

    /// The behaviour of a code (the implementations are monomorphised by it).
    pub(crate) const fn from_code(code: u8) -> StringOffsets {
        match code {
            StringOffsets::PAST_END_IS_ERROR => StringOffsets::PastEndIsError,
            StringOffsets::PAST_END_NOT_FOUND => StringOffsets::PastEndNotFound,
            _ => StringOffsets::LongerNotFound,
        }
    }
}

impl Default for Behaviours {
    fn default() -> Self {
        Behaviours::new()
    }
}

impl Behaviours {
    /// The newest modelled version's behaviours.
    pub const fn new() -> Self {
        Behaviours {
            spaced_scientific_format: false,
            quantity_add_sub_deep_copy: true,
            string_offsets: StringOffsets::LongerNotFound,
            label_messages_in_bytes: true,
            optional_named_optional: false,
            unsized_optionals: false,
            cidr_contains_by_overlap: true,
        }
    }

    /// With [`Behaviours::cidr_contains_by_overlap`] set as given.
    pub const fn with_cidr_contains_by_overlap(mut self, on: bool) -> Self {
        self.cidr_contains_by_overlap = on;
        self
    }

    /// With [`Behaviours::unsized_optionals`] set as given.
    pub const fn with_unsized_optionals(mut self, on: bool) -> Self {
        self.unsized_optionals = on;
        self
    }

    /// With [`Behaviours::optional_named_optional`] set as given.
    pub const fn with_optional_named_optional(mut self, on: bool) -> Self {
        self.optional_named_optional = on;
        self
    }

    /// With [`Behaviours::label_messages_in_bytes`] set as given.
    pub const fn with_label_messages_in_bytes(mut self, on: bool) -> Self {
        self.label_messages_in_bytes = on;
        self
    }

    /// With [`Behaviours::string_offsets`] set as given.
    pub const fn with_string_offsets(mut self, offsets: StringOffsets) -> Self {
        self.string_offsets = offsets;
        self
    }

    /// With [`Behaviours::quantity_add_sub_deep_copy`] set as given.
    pub const fn with_quantity_add_sub_deep_copy(mut self, on: bool) -> Self {
        self.quantity_add_sub_deep_copy = on;
        self
    }

    /// With [`Behaviours::spaced_scientific_format`] set as given.
    pub const fn with_spaced_scientific_format(mut self, on: bool) -> Self {
        self.spaced_scientific_format = on;
        self
    }
}

/// How an overload is evaluated.
#[derive(Clone, Copy, Debug)]
pub enum Binding {
    /// By this implementation.
    Function(Implementation),
    /// By the implementation the environment's run-time [`Behaviours`] choose.
    Behaviours(fn(Behaviours) -> Implementation),
    /// By the interpreter itself, which plans calls of the function as nodes of their own
    /// (`&&`, `||`, `?:`, optional field selection and indexing), as cel-go does.
    Interpreter,
}

impl Binding {
    /// The implementation under the given behaviours (`None` for the interpreter's).
    pub fn implementation(&self, behaviours: Behaviours) -> Option<Implementation> {
        match self {
            Binding::Function(f) => Some(*f),
            Binding::Behaviours(choose) => Some(choose(behaviours)),
            Binding::Interpreter => None,
        }
    }
}

/// One overload of a library's function: its declaration, its implementation and its cost.
#[derive(Clone, Debug)]
pub struct OverloadEntry {
    declaration: Overload,
    binding: Binding,
    cost: Cost,
}

impl OverloadEntry {
    /// The declaration the checker resolves calls against.
    pub fn declaration(&self) -> &Overload {
        &self.declaration
    }

    /// The overload id.
    pub fn id(&self) -> &'static str {
        self.declaration.id
    }

    /// How the overload is evaluated.
    pub fn binding(&self) -> Binding {
        self.binding
    }

    /// Its cost rule.
    pub fn cost(&self) -> Cost {
        self.cost
    }

    /// With this cost rule (the default is [`Cost::ONE`]).
    pub(crate) fn cost_rule(mut self, cost: Cost) -> Self {
        self.cost = cost;
        self
    }

    /// Evaluated by the implementation the behaviours choose.
    pub(crate) fn by_behaviours(mut self, choose: fn(Behaviours) -> Implementation) -> Self {
        self.binding = Binding::Behaviours(choose);
        self
    }
}

/// A function of a library: its name, the Kubernetes estimate of its calls, its overloads in
/// declaration order.
#[derive(Clone, Debug)]
pub struct FunctionEntry {
    name: &'static str,
    estimate: Option<Estimate>,
    result_size: Option<ResultSize>,
    overloads: Vec<OverloadEntry>,
}

impl FunctionEntry {
    /// The function name (`_+_`, `size`, `startsWith`, `optional.of` …).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// What the Kubernetes cost estimator charges for a call of the function (it is keyed by
    /// function name), if it prices it; an overload may refine it ([`Cost::estimate`]).
    pub fn estimate(&self) -> Option<Estimate> {
        self.estimate
    }

    /// The size of a call's result, where the Kubernetes cost estimator states it.
    pub fn result_size(&self) -> Option<ResultSize> {
        self.result_size
    }

    /// The overloads, in declaration order.
    pub fn overloads(&self) -> &[OverloadEntry] {
        &self.overloads
    }

    /// With the Kubernetes estimate of its calls.
    pub(crate) fn estimate_by(mut self, estimate: Estimate) -> Self {
        self.estimate = Some(estimate);
        self
    }

    /// With the size of its calls' results, as the Kubernetes cost estimator states it.
    pub(crate) fn result_sized(mut self, size: ResultSize) -> Self {
        self.result_size = Some(size);
        self
    }

    /// The declaration.
    pub fn declaration(&self) -> Function {
        Function {
            name: self.name,
            overloads: self
                .overloads
                .iter()
                .map(|o| o.declaration.clone())
                .collect(),
        }
    }
}

/// A library: its functions and the type names it declares.
#[derive(Clone, Debug)]
pub struct Definition {
    library: Library,
    functions: Vec<FunctionEntry>,
    types: Vec<(&'static str, Type)>,
    object_types: Vec<&'static str>,
}

impl Definition {
    /// A library without functions yet.
    pub(crate) fn new(library: Library) -> Definition {
        Definition {
            library,
            functions: Vec::new(),
            types: Vec::new(),
            object_types: Vec::new(),
        }
    }

    /// With these functions.
    pub(crate) fn functions(mut self, functions: impl IntoIterator<Item = FunctionEntry>) -> Self {
        self.functions.extend(functions);
        self
    }

    /// With these type names usable as type values (`type(x) == net.IP`).
    pub(crate) fn types(mut self, types: impl IntoIterator<Item = (&'static str, Type)>) -> Self {
        self.types.extend(types);
        self
    }

    /// With these object types that no type provider describes (`cel.ObjectType` in the
    /// apiserver): selecting a field of one is `unexpected failed resolution of '<type>'`.
    pub(crate) fn object_types(mut self, names: impl IntoIterator<Item = &'static str>) -> Self {
        self.object_types.extend(names);
        self
    }

    /// With an opaque type of the library: its name usable as a type value, and an object type
    /// that no type provider describes.
    pub(crate) fn opaque_type(self, name: &'static str) -> Self {
        self.types([(name, Type::named(name))]).object_types([name])
    }

    /// Which library this is.
    pub fn library(&self) -> Library {
        self.library
    }

    /// Its functions.
    pub fn entries(&self) -> &[FunctionEntry] {
        &self.functions
    }

    /// The declarations of its functions, for the checker.
    pub fn declarations(&self) -> Vec<Function> {
        self.functions
            .iter()
            .map(FunctionEntry::declaration)
            .collect()
    }

    /// The type names it declares, usable as type values.
    pub fn type_names(&self) -> &[(&'static str, Type)] {
        &self.types
    }

    /// The object types it declares without a type provider for their fields.
    pub fn unresolved_object_types(&self) -> &[&'static str] {
        &self.object_types
    }
}

/// A function and its overloads.
pub(crate) fn function(
    name: &'static str,
    overloads: impl IntoIterator<Item = OverloadEntry>,
) -> FunctionEntry {
    FunctionEntry {
        name,
        estimate: None,
        result_size: None,
        overloads: overloads.into_iter().collect(),
    }
}

fn overload(
    id: &'static str,
    member: bool,
    params: impl IntoIterator<Item = Type>,
    result: Type,
    binding: Binding,
) -> OverloadEntry {
    OverloadEntry {
        declaration: Overload {
            id,
            member,
            params: params.into_iter().collect(),
            result,
        },
        binding,
        cost: Cost::ONE,
    }
}

/// A function of one member overload `id(params) -> result`, which the Kubernetes estimator
/// prices 1.
pub(crate) fn fixed_member(
    name: &'static str,
    id: &'static str,
    params: impl IntoIterator<Item = Type>,
    result: Type,
    implementation: Implementation,
) -> FunctionEntry {
    function(name, [member(id, params, result, implementation)]).estimate_by(Estimate::Fixed(1))
}

/// The ordering functions of a library's values: `isGreaterThan` and `isLessThan` (bool)
/// and `compareTo` (int), each one member overload on two `operand`s with its id and
/// implementation (in that order), priced 1.
pub(crate) fn ordering_functions(
    operand: Type,
    ids: [&'static str; 3],
    implementations: [Implementation; 3],
) -> Vec<FunctionEntry> {
    let names = ["isGreaterThan", "isLessThan", "compareTo"];
    let results = [Type::Bool, Type::Bool, Type::Int];
    names
        .into_iter()
        .zip(ids)
        .zip(results)
        .zip(implementations)
        .map(|(((name, id), result), f)| {
            fixed_member(name, id, [operand.clone(), operand.clone()], result, f)
        })
        .collect()
}

/// A global overload `f(params) -> result`.
pub(crate) fn global(
    id: &'static str,
    params: impl IntoIterator<Item = Type>,
    result: Type,
    implementation: Implementation,
) -> OverloadEntry {
    overload(id, false, params, result, Binding::Function(implementation))
}

/// A member overload `params[0].f(params[1..]) -> result`.
pub(crate) fn member(
    id: &'static str,
    params: impl IntoIterator<Item = Type>,
    result: Type,
    implementation: Implementation,
) -> OverloadEntry {
    overload(id, true, params, result, Binding::Function(implementation))
}

/// A global overload that the interpreter evaluates itself ([`Binding::Interpreter`]).
pub(crate) fn interpreted(
    id: &'static str,
    params: impl IntoIterator<Item = Type>,
    result: Type,
) -> OverloadEntry {
    overload(id, false, params, result, Binding::Interpreter)
}
