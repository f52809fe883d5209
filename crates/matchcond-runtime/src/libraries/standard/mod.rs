//! The CEL standard library: every function and overload of cel-go's standard library, with
//! cel-go's overload ids, call styles (global or member) and signatures, in cel-go's
//! declaration order, each with its implementation (`ops`, and [`time`] for timestamps and
//! durations) and its cost. The cross-type numeric comparisons (`less_int64_uint64`,
//! `less_double_int64` …) are included: the Kubernetes environment enables
//! `CrossTypeNumericComparisons` (from 1.28; the environment leaves them out before).
//!
//! Declarations that cel-go keeps only for compatibility and disables (`_in_`, `in`,
//! `__not_strictly_false__`) are not declared: they can be neither written nor resolved.
//! `_&&_`, `_||_` and `_?_:_` are evaluated by the interpreter (they are not strict in their
//! arguments).

use matchcond_front::Type;

use super::definition::{
    function, global, interpreted, member, Definition, FunctionEntry, Implementation,
};
use super::definition::{Library, OverloadEntry};
use crate::cost::{Cost, Estimate};

/// `pub(super) fn $name(a: &[Value]) -> R`, an overload's implementation (of `ops` or `time`,
/// with `R` their result type): the `$body` of the first `$args` the arguments match, else no
/// such overload of `$function`.
macro_rules! overload {
    ($name:ident, $function:literal, $($args:pat => $body:expr),+ $(,)?) => {
        pub(super) fn $name<'a>(a: &[Value<'a>]) -> R<'a> {
            match a {
                $($args => $body,)+
                _ => Err(EvalError::no_such_overload($function, a)),
            }
        }
    };
}

pub(crate) mod ops;
pub mod time;

#[cfg(test)]
mod tests;

/// `A`
fn a() -> Type {
    Type::param("A")
}

/// `B`
fn b() -> Type {
    Type::param("B")
}

/// `list(A)`
fn list_a() -> Type {
    Type::list(a())
}

/// `map(A, B)`
fn map_ab() -> Type {
    Type::map(a(), b())
}

/// The standard library, in every version.
pub(crate) fn library() -> Definition {
    use super::definition::{global as g, member as m};
    use Type::{Bool, Bytes, Double, Duration, Int, String, Timestamp, Uint};
    let mut fns = vec![
        // Logical operators; the interpreter evaluates the first three itself.
        function("_?_:_", [interpreted("conditional", [Bool, a(), a()], a())]),
        function("_&&_", [interpreted("logical_and", [Bool, Bool], Bool)]),
        function("_||_", [interpreted("logical_or", [Bool, Bool], Bool)]),
        function("!_", [g("logical_not", [Bool], Bool, ops::logical_not)]),
        function(
            "@not_strictly_false",
            [g(
                "not_strictly_false",
                [Bool],
                Bool,
                ops::not_strictly_false,
            )],
        ),
        // Equality.
        function(
            "_==_",
            [g("equals", [a(), a()], Bool, ops::equals).cost_rule(Cost::MIN_TENTH)],
        )
        .estimate_by(Estimate::LibraryEquality),
        function(
            "_!=_",
            [g("not_equals", [a(), a()], Bool, ops::not_equals).cost_rule(Cost::MIN_TENTH)],
        ),
        // Arithmetic.
        function(
            "_+_",
            [
                g("add_bytes", [Bytes, Bytes], Bytes, ops::add_bytes).cost_rule(Cost::SUM_TENTH),
                g("add_double", [Double, Double], Double, ops::add_double),
                g(
                    "add_duration_duration",
                    [Duration, Duration],
                    Duration,
                    time::add_duration_duration,
                ),
                g(
                    "add_duration_timestamp",
                    [Duration, Timestamp],
                    Timestamp,
                    time::add_duration_timestamp,
                ),
                g(
                    "add_timestamp_duration",
                    [Timestamp, Duration],
                    Timestamp,
                    time::add_timestamp_duration,
                ),
                g("add_int64", [Int, Int], Int, ops::add_int64),
                g("add_list", [list_a(), list_a()], list_a(), ops::add_list),
                g("add_string", [String, String], String, ops::add_string)
                    .cost_rule(Cost::SUM_TENTH),
                g("add_uint64", [Uint, Uint], Uint, ops::add_uint64),
            ],
        ),
        function(
            "_/_",
            [
                g(
                    "divide_double",
                    [Double, Double],
                    Double,
                    ops::divide_double,
                ),
                g("divide_int64", [Int, Int], Int, ops::divide_int64),
                g("divide_uint64", [Uint, Uint], Uint, ops::divide_uint64),
            ],
        ),
        function(
            "_%_",
            [
                g("modulo_int64", [Int, Int], Int, ops::modulo_int64),
                g("modulo_uint64", [Uint, Uint], Uint, ops::modulo_uint64),
            ],
        ),
        function(
            "_*_",
            [
                g(
                    "multiply_double",
                    [Double, Double],
                    Double,
                    ops::multiply_double,
                ),
                g("multiply_int64", [Int, Int], Int, ops::multiply_int64),
                g("multiply_uint64", [Uint, Uint], Uint, ops::multiply_uint64),
            ],
        ),
        function(
            "-_",
            [
                g("negate_double", [Double], Double, ops::negate_double),
                g("negate_int64", [Int], Int, ops::negate_int64),
            ],
        ),
        function(
            "_-_",
            [
                g(
                    "subtract_double",
                    [Double, Double],
                    Double,
                    ops::subtract_double,
                ),
                g(
                    "subtract_duration_duration",
                    [Duration, Duration],
                    Duration,
                    time::subtract_duration_duration,
                ),
                g("subtract_int64", [Int, Int], Int, ops::subtract_int64),
                g(
                    "subtract_timestamp_duration",
                    [Timestamp, Duration],
                    Timestamp,
                    time::subtract_timestamp_duration,
                ),
                g(
                    "subtract_timestamp_timestamp",
                    [Timestamp, Timestamp],
                    Duration,
                    time::subtract_timestamp_timestamp,
                ),
                g("subtract_uint64", [Uint, Uint], Uint, ops::subtract_uint64),
            ],
        ),
    ];
    // Relations.
    fns.push(function("_<_", relation_overloads(LESS)));
    fns.push(function("_<=_", relation_overloads(LESS_EQUALS)));
    fns.push(function("_>_", relation_overloads(GREATER)));
    fns.push(function("_>=_", relation_overloads(GREATER_EQUALS)));
    fns.extend([
        // Indexing and membership.
        function(
            "_[_]",
            [
                g("index_list", [list_a(), Int], a(), ops::index_list),
                g("index_map", [map_ab(), a()], b(), ops::index_map),
            ],
        ),
        function(
            "@in",
            [
                g("in_list", [a(), list_a()], Bool, ops::in_list).cost_rule(Cost::IN_LIST),
                g("in_map", [a(), map_ab()], Bool, ops::in_map),
            ],
        ),
        function(
            "size",
            [
                g("size_bytes", [Bytes], Int, ops::size_bytes),
                m("bytes_size", [Bytes], Int, ops::size_bytes),
                g("size_list", [list_a()], Int, ops::size_list),
                m("list_size", [list_a()], Int, ops::size_list),
                g("size_map", [map_ab()], Int, ops::size_map),
                m("map_size", [map_ab()], Int, ops::size_map),
                g("size_string", [String], Int, ops::size_string),
                m("string_size", [String], Int, ops::size_string),
            ],
        ),
        // Conversions.
        function(
            "type",
            [
                g("type", [a()], Type::type_of(a()), ops::type_of).by_behaviours(|b| {
                    if b.optional_named_optional {
                        ops::type_of_optional_named_optional
                    } else {
                        ops::type_of
                    }
                }),
            ],
        ),
        function(
            "bool",
            [
                g("bool_to_bool", [Bool], Bool, ops::bool_to_bool),
                g("string_to_bool", [String], Bool, ops::string_to_bool),
            ],
        ),
        function(
            "bytes",
            [
                g("bytes_to_bytes", [Bytes], Bytes, ops::bytes_to_bytes),
                g("string_to_bytes", [String], Bytes, ops::string_to_bytes)
                    .cost_rule(Cost::FIRST_TENTH),
            ],
        ),
        function(
            "double",
            [
                g("double_to_double", [Double], Double, ops::double_to_double),
                g("int64_to_double", [Int], Double, ops::int64_to_double),
                g("string_to_double", [String], Double, ops::string_to_double),
                g("uint64_to_double", [Uint], Double, ops::uint64_to_double),
            ],
        ),
        function(
            "duration",
            [
                g(
                    "duration_to_duration",
                    [Duration],
                    Duration,
                    time::duration_to_duration,
                ),
                g(
                    "int64_to_duration",
                    [Int],
                    Duration,
                    time::int64_to_duration,
                ),
                g(
                    "string_to_duration",
                    [String],
                    Duration,
                    time::string_to_duration,
                ),
            ],
        ),
        function("dyn", [g("to_dyn", [a()], Type::Dyn, ops::to_dyn)]),
        function(
            "int",
            [
                g("int64_to_int64", [Int], Int, ops::int64_to_int64),
                g("double_to_int64", [Double], Int, ops::double_to_int64),
                g(
                    "duration_to_int64",
                    [Duration],
                    Int,
                    time::duration_to_int64,
                ),
                g("string_to_int64", [String], Int, ops::string_to_int64),
                g(
                    "timestamp_to_int64",
                    [Timestamp],
                    Int,
                    time::timestamp_to_int64,
                ),
                g("uint64_to_int64", [Uint], Int, ops::uint64_to_int64),
            ],
        ),
        function(
            "string",
            [
                g("string_to_string", [String], String, ops::string_to_string),
                g("bool_to_string", [Bool], String, ops::bool_to_string),
                g("bytes_to_string", [Bytes], String, ops::bytes_to_string)
                    .cost_rule(Cost::FIRST_TENTH),
                g("double_to_string", [Double], String, ops::double_to_string),
                g(
                    "duration_to_string",
                    [Duration],
                    String,
                    time::duration_to_string,
                ),
                g("int64_to_string", [Int], String, ops::int64_to_string),
                g(
                    "timestamp_to_string",
                    [Timestamp],
                    String,
                    time::timestamp_to_string,
                ),
                g("uint64_to_string", [Uint], String, ops::uint64_to_string),
            ],
        ),
        function(
            "timestamp",
            [
                g(
                    "timestamp_to_timestamp",
                    [Timestamp],
                    Timestamp,
                    time::timestamp_to_timestamp,
                ),
                g(
                    "int64_to_timestamp",
                    [Int],
                    Timestamp,
                    time::int64_to_timestamp,
                ),
                g(
                    "string_to_timestamp",
                    [String],
                    Timestamp,
                    time::string_to_timestamp,
                ),
            ],
        ),
        function(
            "uint",
            [
                g("uint64_to_uint64", [Uint], Uint, ops::uint64_to_uint64),
                g("double_to_uint64", [Double], Uint, ops::double_to_uint64),
                g("int64_to_uint64", [Int], Uint, ops::int64_to_uint64),
                g("string_to_uint64", [String], Uint, ops::string_to_uint64),
            ],
        ),
        // Strings.
        function(
            "contains",
            [m(
                "contains_string",
                [String, String],
                Bool,
                ops::contains_string,
            )
            .cost_rule(Cost::CONTAINS)],
        ),
        function(
            "endsWith",
            [m(
                "ends_with_string",
                [String, String],
                Bool,
                ops::ends_with_string,
            )
            .cost_rule(Cost::FIRST_TENTH)],
        ),
        function(
            "startsWith",
            [m(
                "starts_with_string",
                [String, String],
                Bool,
                ops::starts_with_string,
            )
            .cost_rule(Cost::FIRST_TENTH)],
        ),
        function(
            "matches",
            [
                g("matches", [String, String], Bool, ops::matches),
                m("matches_string", [String, String], Bool, ops::matches).cost_rule(Cost::MATCHES),
            ],
        ),
    ]);
    // Timestamp and duration accessors.
    fns.extend([
        timestamp_accessor(
            "getFullYear",
            ("timestamp_to_year", time::timestamp_to_year),
            ("timestamp_to_year_with_tz", time::timestamp_to_year_with_tz),
            None,
        ),
        timestamp_accessor(
            "getMonth",
            ("timestamp_to_month", time::timestamp_to_month),
            (
                "timestamp_to_month_with_tz",
                time::timestamp_to_month_with_tz,
            ),
            None,
        ),
        timestamp_accessor(
            "getDayOfYear",
            ("timestamp_to_day_of_year", time::timestamp_to_day_of_year),
            (
                "timestamp_to_day_of_year_with_tz",
                time::timestamp_to_day_of_year_with_tz,
            ),
            None,
        ),
        timestamp_accessor(
            "getDayOfMonth",
            ("timestamp_to_day_of_month", time::timestamp_to_day_of_month),
            (
                "timestamp_to_day_of_month_with_tz",
                time::timestamp_to_day_of_month_with_tz,
            ),
            None,
        ),
        timestamp_accessor(
            "getDate",
            (
                "timestamp_to_day_of_month_1_based",
                time::timestamp_to_day_of_month_1_based,
            ),
            (
                "timestamp_to_day_of_month_1_based_with_tz",
                time::timestamp_to_day_of_month_1_based_with_tz,
            ),
            None,
        ),
        timestamp_accessor(
            "getDayOfWeek",
            ("timestamp_to_day_of_week", time::timestamp_to_day_of_week),
            (
                "timestamp_to_day_of_week_with_tz",
                time::timestamp_to_day_of_week_with_tz,
            ),
            None,
        ),
        timestamp_accessor(
            "getHours",
            ("timestamp_to_hours", time::timestamp_to_hours),
            (
                "timestamp_to_hours_with_tz",
                time::timestamp_to_hours_with_tz,
            ),
            Some(("duration_to_hours", time::duration_to_hours)),
        ),
        timestamp_accessor(
            "getMinutes",
            ("timestamp_to_minutes", time::timestamp_to_minutes),
            (
                "timestamp_to_minutes_with_tz",
                time::timestamp_to_minutes_with_tz,
            ),
            Some(("duration_to_minutes", time::duration_to_minutes)),
        ),
        timestamp_accessor(
            "getSeconds",
            ("timestamp_to_seconds", time::timestamp_to_seconds),
            ("timestamp_to_seconds_tz", time::timestamp_to_seconds_tz),
            Some(("duration_to_seconds", time::duration_to_seconds)),
        ),
        timestamp_accessor(
            "getMilliseconds",
            ("timestamp_to_milliseconds", time::timestamp_to_milliseconds),
            (
                "timestamp_to_milliseconds_with_tz",
                time::timestamp_to_milliseconds_with_tz,
            ),
            Some(("duration_to_milliseconds", time::duration_to_milliseconds)),
        ),
    ]);
    Definition::new(Library::Standard).functions(fns)
}

/// An overload id with its implementation.
type Bound = (&'static str, Implementation);

/// A timestamp accessor: `ts.f()`, `ts.f(tz)` and, for some, `duration.f()`.
fn timestamp_accessor(
    name: &'static str,
    (id, f): Bound,
    (id_with_tz, f_with_tz): Bound,
    duration: Option<Bound>,
) -> FunctionEntry {
    let mut overloads = vec![
        member(id, [Type::Timestamp], Type::Int, f),
        member(
            id_with_tz,
            [Type::Timestamp, Type::String],
            Type::Int,
            f_with_tz,
        ),
    ];
    if let Some((d, f)) = duration {
        overloads.push(member(d, [Type::Duration], Type::Int, f));
    }
    function(name, overloads)
}

/// The overloads of one relation operator, in cel-go's order: bool, int, int/double,
/// int/uint, uint, uint/double, uint/int, double, double/int, double/uint, string, bytes,
/// timestamp, duration.
type RelationIds = [Bound; 14];

const LESS: RelationIds = [
    ("less_bool", ops::less_bool),
    ("less_int64", ops::less_int64),
    ("less_int64_double", ops::less_int64_double),
    ("less_int64_uint64", ops::less_int64_uint64),
    ("less_uint64", ops::less_uint64),
    ("less_uint64_double", ops::less_uint64_double),
    ("less_uint64_int64", ops::less_uint64_int64),
    ("less_double", ops::less_double),
    ("less_double_int64", ops::less_double_int64),
    ("less_double_uint64", ops::less_double_uint64),
    ("less_string", ops::less_string),
    ("less_bytes", ops::less_bytes),
    ("less_timestamp", ops::less_timestamp),
    ("less_duration", ops::less_duration),
];

const LESS_EQUALS: RelationIds = [
    ("less_equals_bool", ops::less_equals_bool),
    ("less_equals_int64", ops::less_equals_int64),
    ("less_equals_int64_double", ops::less_equals_int64_double),
    ("less_equals_int64_uint64", ops::less_equals_int64_uint64),
    ("less_equals_uint64", ops::less_equals_uint64),
    ("less_equals_uint64_double", ops::less_equals_uint64_double),
    ("less_equals_uint64_int64", ops::less_equals_uint64_int64),
    ("less_equals_double", ops::less_equals_double),
    ("less_equals_double_int64", ops::less_equals_double_int64),
    ("less_equals_double_uint64", ops::less_equals_double_uint64),
    ("less_equals_string", ops::less_equals_string),
    ("less_equals_bytes", ops::less_equals_bytes),
    ("less_equals_timestamp", ops::less_equals_timestamp),
    ("less_equals_duration", ops::less_equals_duration),
];

const GREATER: RelationIds = [
    ("greater_bool", ops::greater_bool),
    ("greater_int64", ops::greater_int64),
    ("greater_int64_double", ops::greater_int64_double),
    ("greater_int64_uint64", ops::greater_int64_uint64),
    ("greater_uint64", ops::greater_uint64),
    ("greater_uint64_double", ops::greater_uint64_double),
    ("greater_uint64_int64", ops::greater_uint64_int64),
    ("greater_double", ops::greater_double),
    ("greater_double_int64", ops::greater_double_int64),
    ("greater_double_uint64", ops::greater_double_uint64),
    ("greater_string", ops::greater_string),
    ("greater_bytes", ops::greater_bytes),
    ("greater_timestamp", ops::greater_timestamp),
    ("greater_duration", ops::greater_duration),
];

const GREATER_EQUALS: RelationIds = [
    ("greater_equals_bool", ops::greater_equals_bool),
    ("greater_equals_int64", ops::greater_equals_int64),
    (
        "greater_equals_int64_double",
        ops::greater_equals_int64_double,
    ),
    (
        "greater_equals_int64_uint64",
        ops::greater_equals_int64_uint64,
    ),
    ("greater_equals_uint64", ops::greater_equals_uint64),
    (
        "greater_equals_uint64_double",
        ops::greater_equals_uint64_double,
    ),
    (
        "greater_equals_uint64_int64",
        ops::greater_equals_uint64_int64,
    ),
    ("greater_equals_double", ops::greater_equals_double),
    (
        "greater_equals_double_int64",
        ops::greater_equals_double_int64,
    ),
    (
        "greater_equals_double_uint64",
        ops::greater_equals_double_uint64,
    ),
    ("greater_equals_string", ops::greater_equals_string),
    ("greater_equals_bytes", ops::greater_equals_bytes),
    ("greater_equals_timestamp", ops::greater_equals_timestamp),
    ("greater_equals_duration", ops::greater_equals_duration),
];

/// The overloads of one relation operator; strings and bytes compare by the shorter one's
/// length (cel-go's charge).
fn relation_overloads(ids: RelationIds) -> Vec<OverloadEntry> {
    use Type::{Bool, Bytes, Double, Duration, Int, String, Timestamp, Uint};
    let operands: [(Type, Type); 14] = [
        (Bool, Bool),
        (Int, Int),
        (Int, Double),
        (Int, Uint),
        (Uint, Uint),
        (Uint, Double),
        (Uint, Int),
        (Double, Double),
        (Double, Int),
        (Double, Uint),
        (String, String),
        (Bytes, Bytes),
        (Timestamp, Timestamp),
        (Duration, Duration),
    ];
    ids.into_iter()
        .zip(operands)
        .map(|((id, f), (l, r))| {
            let by_length = matches!(l, String | Bytes);
            let o = global(id, [l, r], Bool, f);
            if by_length {
                o.cost_rule(Cost::MIN_TENTH)
            } else {
                o
            }
        })
        .collect()
}
