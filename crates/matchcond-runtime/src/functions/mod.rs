//! Implementations of CEL functions, keyed by overload id.
//!
//! Every declared overload (see `matchcond_front::decls`) has one implementation here with
//! the same id. An implementation receives the arguments (the receiver first for member
//! calls) already evaluated, and may assume the types the declaration promises only after
//! checking them: with dynamic arguments the runtime tries overloads in turn, and an
//! implementation given values of other types returns [`EvalError::no_such_overload`].

use matchcond_gocompat::regexp;

use crate::error::EvalError;
use crate::value::Value;

pub mod comprehensions;
pub mod ext;
pub mod k8s;
pub mod std_ops;
pub mod time;

/// A function implementation.
pub type Function = for<'a> fn(&[Value<'a>]) -> Result<Value<'a>, EvalError>;

/// Every implementation, indexed by overload id (built once).
static IMPLEMENTATIONS: std::sync::LazyLock<std::collections::HashMap<&'static str, Function>> =
    std::sync::LazyLock::new(|| {
        std_ops::FUNCTIONS
            .iter()
            .chain(time::FUNCTIONS.iter())
            .chain(ext::FUNCTIONS.iter())
            .chain(comprehensions::FUNCTIONS.iter())
            .chain(k8s::functions())
            .map(|(id, f)| (*id, *f))
            .collect()
    });

/// The implementation of an overload (as the newest modelled Kubernetes version behaves;
/// see [`implementation_with`]).
pub fn implementation(overload_id: &str) -> Option<Function> {
    IMPLEMENTATIONS.get(overload_id).copied()
}

/// Run-time behaviours of the Go code behind a function that differ between Kubernetes
/// versions although the function's declaration does not (a library's fix, a dependency's
/// new version). The default is the newest modelled version's behaviour.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Behaviours {
    /// `%e` of `string.format` writes narrow no-break spaces around `×`
    /// (`2.718280\u{202f}×\u{202f}10⁰⁰`), as golang.org/x/text before v0.23.0 does
    /// (Kubernetes up to 1.32).
    pub spaced_scientific_format: bool,
    /// Quantity `add` and `sub` work on a deep copy of the receiver (Kubernetes 1.37:
    /// `q.DeepCopy()`) instead of a shallow one that shares a decimal-backed receiver's
    /// decimal and so changes the receiver too (up to 1.36: `copy := *q`).
    pub quantity_add_sub_deep_copy: bool,
}

impl Behaviours {
    /// The newest modelled version's behaviours.
    pub const fn new() -> Self {
        Behaviours {
            spaced_scientific_format: false,
            quantity_add_sub_deep_copy: false,
        }
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

/// The implementation of an overload under the given behaviours.
pub fn implementation_with(overload_id: &str, behaviours: Behaviours) -> Option<Function> {
    match overload_id {
        "string_format" if behaviours.spaced_scientific_format => {
            Some(ext::format::string_format_spaced)
        }
        "quantity_add" | "quantity_add_int" | "quantity_sub" | "quantity_sub_int"
            if behaviours.quantity_add_sub_deep_copy =>
        {
            k8s::quantity::DEEP_COPY_FUNCTIONS
                .iter()
                .find(|(id, _)| *id == overload_id)
                .map(|(_, f)| *f)
        }
        _ => implementation(overload_id),
    }
}

/// Calls a regex function whose pattern was a constant, compiled when the program was
/// planned: `matches`, `find`, `findAll` (the pattern is the second argument, after the
/// string).
pub fn call_with_regex<'a>(
    function: &str,
    re: &regex::Regex,
    args: &[Value<'a>],
) -> Result<Value<'a>, EvalError> {
    match (function, args) {
        ("matches", [Value::String(s), _]) => Ok(Value::Bool(re.is_match(s))),
        ("find", [Value::String(s), _]) => Ok(Value::string(re.find(s).map_or("", |m| m.as_str()))),
        ("findAll", [Value::String(s), _]) => Ok(Value::list(
            re.find_iter(s).map(|m| Value::string(m.as_str())).collect(),
        )),
        ("findAll", [Value::String(s), _, Value::Int(n)]) => {
            let all = re.find_iter(s).map(|m| Value::string(m.as_str()));
            Ok(Value::list(match usize::try_from(*n) {
                Ok(limit) => all.take(limit).collect(),
                Err(_) => all.collect(),
            }))
        }
        _ => Err(EvalError::no_such_overload(function, args)),
    }
}

/// The runtime cost that a library's own cost tracker assigns to an overload, if it has one.
pub fn tracked_cost(overload: Option<&str>, args: &[Value<'_>], result: &Value<'_>) -> Option<u64> {
    // cel-go's ext libraries: `callCost` 1, list creation 10.
    const CALL: u64 = 1;
    const LIST_CREATE: u64 = 10;
    let size = |v: Option<&Value<'_>>| v.map(Value::cost_size).unwrap_or(0);
    let allocating = |factor: f64, n: u64| (n as f64 * factor) as u64 + CALL + LIST_CREATE;
    let self_compare = |l: Option<&Value<'_>>| {
        let n = size(l);
        let mut factor = 2.0;
        if let Some(Value::List(list)) = l {
            if matches!(list.get(0), Some(Value::String(_) | Value::Bytes(_))) {
                factor += 0.1;
            }
        }
        allocating(factor, n.saturating_mul(n))
    };
    let id = overload?;
    match id {
        "list_slice" | "lists_range" | "list_reverse" => Some(allocating(1.0, result.cost_size())),
        "list_flatten" | "list_flatten_int" => {
            let depth = match args.get(1) {
                Some(Value::Int(d)) => *d as f64,
                _ => 1.0,
            };
            Some(allocating(depth, size(args.first())))
        }
        "list_distinct" => Some(self_compare(args.first())),
        "list_sets_contains_list" | "list_sets_intersects_list" => {
            Some(CALL + size(args.first()).saturating_mul(size(args.get(1))))
        }
        "list_sets_equivalent_list" => {
            Some(CALL + (size(args.first()).saturating_mul(size(args.get(1))) as f64 * 2.0) as u64)
        }
        _ if id.starts_with("list_") && id.ends_with("_sortByAssociatedKeys") => {
            Some(self_compare(args.get(1)))
        }
        _ if id.starts_with("list_") && id.ends_with("_sort") => Some(self_compare(args.first())),
        _ => None,
    }
}

/// What the lists extension's cost tracker of an overload converts without checking (see
/// [`cost_tracker_failure`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrackedArgument {
    /// The argument at this position, to a list (`distinct`, `sort`: 0; `sortBy`'s keys: 1).
    List(usize),
    /// The depth of `flatten(int)`, to an int.
    Depth,
}

/// The argument the cost tracker of an overload converts unchecked, if it has such a tracker
/// (decided once, when the call is planned).
pub fn tracked_argument(overload: Option<&str>) -> Option<TrackedArgument> {
    let id = overload?;
    match id {
        "list_distinct" => Some(TrackedArgument::List(0)),
        "list_flatten_int" => Some(TrackedArgument::Depth),
        _ if id.starts_with("list_") && id.ends_with("_sortByAssociatedKeys") => {
            Some(TrackedArgument::List(1))
        }
        _ if id.starts_with("list_") && id.ends_with("_sort") => Some(TrackedArgument::List(0)),
        _ => None,
    }
}

/// The internal error cel-go reports when the lists extension's cost tracker fails on the
/// call's arguments (it converts an argument to a list, or a depth to an int, without
/// checking, and the interpreter recovers the panic): the tracker runs after every charged
/// call, whatever the call returned, so an erroneous argument (`errored`, a bit per
/// argument) or a value of another type ends the evaluation.
pub fn cost_tracker_failure(
    tracked: TrackedArgument,
    args: &[Value<'_>],
    errored: u64,
) -> Option<EvalError> {
    let failed = |i: usize| errored & 1u64.checked_shl(i as u32).unwrap_or(0) != 0;
    match tracked {
        TrackedArgument::List(i) => {
            let go_type = if failed(i) {
                "*types.Err"
            } else {
                match args.get(i)? {
                    Value::List(_) => return None,
                    other => go_type_name(other),
                }
            };
            Some(internal_error(format!(
                "interface conversion: {go_type} is not traits.Lister: missing method Add"
            )))
        }
        TrackedArgument::Depth => {
            let go_type = if failed(1) {
                "*types.Err"
            } else {
                match args.get(1)? {
                    Value::Int(_) => return None,
                    other => go_type_name(other),
                }
            };
            Some(internal_error(format!(
                "interface conversion: ref.Val is {go_type}, not types.Int"
            )))
        }
    }
}

/// cel-go's `internal error: …` of a recovered panic.
fn internal_error(message: String) -> EvalError {
    EvalError::new(
        crate::error::ErrorKind::Other,
        format!("internal error: {message}"),
    )
}

/// The Go type (`%T`) of the cel-go value behind a value.
fn go_type_name(v: &Value<'_>) -> &'static str {
    match v {
        Value::Null => "types.Null",
        Value::Bool(_) => "types.Bool",
        Value::Int(_) => "types.Int",
        Value::Uint(_) => "types.Uint",
        Value::Double(_) => "types.Double",
        Value::String(_) => "types.String",
        Value::Bytes(_) => "types.Bytes",
        Value::Timestamp(_) => "types.Timestamp",
        Value::Duration(_) => "types.Duration",
        Value::List(_) => "*types.baseList",
        Value::Map(_) => "*types.baseMap",
        Value::Optional(_) => "*types.Optional",
        Value::Type(_) => "*types.Type",
        Value::Opaque(o) => match o.type_name() {
            "kubernetes.Quantity" => "cel.Quantity",
            "net.IP" => "cel.IP",
            "net.CIDR" => "cel.CIDR",
            "kubernetes.URL" => "cel.URL",
            "kubernetes.Semver" => "cel.Semver",
            _ => "types.Err",
        },
    }
}

/// True when a library's own cost tracker prices this overload.
pub fn has_tracker(overload: Option<&str>) -> bool {
    tracked_cost(overload, &[], &Value::Null).is_some()
}

/// The maximum regex size of a named format (used by the cost of `validate`).
pub fn format_max_regex_size(format: &dyn crate::value::Opaque) -> Option<u64> {
    k8s::format::as_format(format).map(|f| f.max_regex_size())
}

/// Compiles a regular expression with Go's (RE2) syntax and semantics, as cel-go does when
/// it builds a program with a constant pattern; the error is Go's text.
pub fn compile_regex(pattern: &str) -> Result<regex::Regex, EvalError> {
    regexp::compile_uncached(pattern).map_err(|e| EvalError::invalid_argument(e.to_string()))
}

/// Compiles a regular expression with Go's syntax (cached per thread); the error is Go's
/// text as an invalid-argument evaluation error.
pub(crate) fn cached_regex(pattern: &str) -> Result<std::sync::Arc<regex::Regex>, EvalError> {
    regexp::compile(pattern).map_err(|e| EvalError::invalid_argument(e.to_string()))
}
