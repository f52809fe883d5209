//! Declarations of the CEL standard library.
//!
//! Every function and overload of cel-go's standard library, with cel-go's overload ids, call
//! styles (global or member) and signatures, in cel-go's declaration order. The cross-type
//! numeric comparisons (`less_int64_uint64`, `less_double_int64` …) are included: the
//! Kubernetes environment enables `CrossTypeNumericComparisons`.
//!
//! Declarations that cel-go keeps only for compatibility and disables (`_in_`, `in`,
//! `__not_strictly_false__`) are not declared: they can be neither written nor resolved.

use super::{func, ov, Function, Overload};
use crate::types::Type;

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

/// A global overload.
fn g(id: &'static str, params: Vec<Type>, result: Type) -> Overload {
    ov(id, false, params, result)
}

/// A member overload (the receiver is the first parameter).
fn m(id: &'static str, params: Vec<Type>, result: Type) -> Overload {
    ov(id, true, params, result)
}

/// The standard functions.
pub(crate) fn functions() -> Vec<Function> {
    use Type::{Bool, Bytes, Double, Duration, Int, String, Timestamp, Uint};
    let mut fns = vec![
        // Logical operators; the interpreter evaluates these itself.
        func("_?_:_", vec![g("conditional", vec![Bool, a(), a()], a())]),
        func("_&&_", vec![g("logical_and", vec![Bool, Bool], Bool)]),
        func("_||_", vec![g("logical_or", vec![Bool, Bool], Bool)]),
        func("!_", vec![g("logical_not", vec![Bool], Bool)]),
        func(
            "@not_strictly_false",
            vec![g("not_strictly_false", vec![Bool], Bool)],
        ),
        // Equality.
        func("_==_", vec![g("equals", vec![a(), a()], Bool)]),
        func("_!=_", vec![g("not_equals", vec![a(), a()], Bool)]),
        // Arithmetic.
        func(
            "_+_",
            vec![
                g("add_bytes", vec![Bytes, Bytes], Bytes),
                g("add_double", vec![Double, Double], Double),
                g("add_duration_duration", vec![Duration, Duration], Duration),
                g(
                    "add_duration_timestamp",
                    vec![Duration, Timestamp],
                    Timestamp,
                ),
                g(
                    "add_timestamp_duration",
                    vec![Timestamp, Duration],
                    Timestamp,
                ),
                g("add_int64", vec![Int, Int], Int),
                g("add_list", vec![list_a(), list_a()], list_a()),
                g("add_string", vec![String, String], String),
                g("add_uint64", vec![Uint, Uint], Uint),
            ],
        ),
        func(
            "_/_",
            vec![
                g("divide_double", vec![Double, Double], Double),
                g("divide_int64", vec![Int, Int], Int),
                g("divide_uint64", vec![Uint, Uint], Uint),
            ],
        ),
        func(
            "_%_",
            vec![
                g("modulo_int64", vec![Int, Int], Int),
                g("modulo_uint64", vec![Uint, Uint], Uint),
            ],
        ),
        func(
            "_*_",
            vec![
                g("multiply_double", vec![Double, Double], Double),
                g("multiply_int64", vec![Int, Int], Int),
                g("multiply_uint64", vec![Uint, Uint], Uint),
            ],
        ),
        func(
            "-_",
            vec![
                g("negate_double", vec![Double], Double),
                g("negate_int64", vec![Int], Int),
            ],
        ),
        func(
            "_-_",
            vec![
                g("subtract_double", vec![Double, Double], Double),
                g(
                    "subtract_duration_duration",
                    vec![Duration, Duration],
                    Duration,
                ),
                g("subtract_int64", vec![Int, Int], Int),
                g(
                    "subtract_timestamp_duration",
                    vec![Timestamp, Duration],
                    Timestamp,
                ),
                g(
                    "subtract_timestamp_timestamp",
                    vec![Timestamp, Timestamp],
                    Duration,
                ),
                g("subtract_uint64", vec![Uint, Uint], Uint),
            ],
        ),
    ];
    // Relations.
    fns.push(func("_<_", relation_overloads(LESS)));
    fns.push(func("_<=_", relation_overloads(LESS_EQUALS)));
    fns.push(func("_>_", relation_overloads(GREATER)));
    fns.push(func("_>=_", relation_overloads(GREATER_EQUALS)));
    fns.extend([
        // Indexing and membership.
        func(
            "_[_]",
            vec![
                g("index_list", vec![list_a(), Int], a()),
                g("index_map", vec![map_ab(), a()], b()),
            ],
        ),
        func(
            "@in",
            vec![
                g("in_list", vec![a(), list_a()], Bool),
                g("in_map", vec![a(), map_ab()], Bool),
            ],
        ),
        func(
            "size",
            vec![
                g("size_bytes", vec![Bytes], Int),
                m("bytes_size", vec![Bytes], Int),
                g("size_list", vec![list_a()], Int),
                m("list_size", vec![list_a()], Int),
                g("size_map", vec![map_ab()], Int),
                m("map_size", vec![map_ab()], Int),
                g("size_string", vec![String], Int),
                m("string_size", vec![String], Int),
            ],
        ),
        // Conversions.
        func("type", vec![g("type", vec![a()], Type::type_of(a()))]),
        func(
            "bool",
            vec![
                g("bool_to_bool", vec![Bool], Bool),
                g("string_to_bool", vec![String], Bool),
            ],
        ),
        func(
            "bytes",
            vec![
                g("bytes_to_bytes", vec![Bytes], Bytes),
                g("string_to_bytes", vec![String], Bytes),
            ],
        ),
        func(
            "double",
            vec![
                g("double_to_double", vec![Double], Double),
                g("int64_to_double", vec![Int], Double),
                g("string_to_double", vec![String], Double),
                g("uint64_to_double", vec![Uint], Double),
            ],
        ),
        func(
            "duration",
            vec![
                g("duration_to_duration", vec![Duration], Duration),
                g("int64_to_duration", vec![Int], Duration),
                g("string_to_duration", vec![String], Duration),
            ],
        ),
        func("dyn", vec![g("to_dyn", vec![a()], Type::Dyn)]),
        func(
            "int",
            vec![
                g("int64_to_int64", vec![Int], Int),
                g("double_to_int64", vec![Double], Int),
                g("duration_to_int64", vec![Duration], Int),
                g("string_to_int64", vec![String], Int),
                g("timestamp_to_int64", vec![Timestamp], Int),
                g("uint64_to_int64", vec![Uint], Int),
            ],
        ),
        func(
            "string",
            vec![
                g("string_to_string", vec![String], String),
                g("bool_to_string", vec![Bool], String),
                g("bytes_to_string", vec![Bytes], String),
                g("double_to_string", vec![Double], String),
                g("duration_to_string", vec![Duration], String),
                g("int64_to_string", vec![Int], String),
                g("timestamp_to_string", vec![Timestamp], String),
                g("uint64_to_string", vec![Uint], String),
            ],
        ),
        func(
            "timestamp",
            vec![
                g("timestamp_to_timestamp", vec![Timestamp], Timestamp),
                g("int64_to_timestamp", vec![Int], Timestamp),
                g("string_to_timestamp", vec![String], Timestamp),
            ],
        ),
        func(
            "uint",
            vec![
                g("uint64_to_uint64", vec![Uint], Uint),
                g("double_to_uint64", vec![Double], Uint),
                g("int64_to_uint64", vec![Int], Uint),
                g("string_to_uint64", vec![String], Uint),
            ],
        ),
        // Strings.
        func(
            "contains",
            vec![m("contains_string", vec![String, String], Bool)],
        ),
        func(
            "endsWith",
            vec![m("ends_with_string", vec![String, String], Bool)],
        ),
        func(
            "startsWith",
            vec![m("starts_with_string", vec![String, String], Bool)],
        ),
        func(
            "matches",
            vec![
                g("matches", vec![String, String], Bool),
                m("matches_string", vec![String, String], Bool),
            ],
        ),
    ]);
    // Timestamp and duration accessors.
    fns.extend([
        timestamp_accessor(
            "getFullYear",
            "timestamp_to_year",
            "timestamp_to_year_with_tz",
            None,
        ),
        timestamp_accessor(
            "getMonth",
            "timestamp_to_month",
            "timestamp_to_month_with_tz",
            None,
        ),
        timestamp_accessor(
            "getDayOfYear",
            "timestamp_to_day_of_year",
            "timestamp_to_day_of_year_with_tz",
            None,
        ),
        timestamp_accessor(
            "getDayOfMonth",
            "timestamp_to_day_of_month",
            "timestamp_to_day_of_month_with_tz",
            None,
        ),
        timestamp_accessor(
            "getDate",
            "timestamp_to_day_of_month_1_based",
            "timestamp_to_day_of_month_1_based_with_tz",
            None,
        ),
        timestamp_accessor(
            "getDayOfWeek",
            "timestamp_to_day_of_week",
            "timestamp_to_day_of_week_with_tz",
            None,
        ),
        timestamp_accessor(
            "getHours",
            "timestamp_to_hours",
            "timestamp_to_hours_with_tz",
            Some("duration_to_hours"),
        ),
        timestamp_accessor(
            "getMinutes",
            "timestamp_to_minutes",
            "timestamp_to_minutes_with_tz",
            Some("duration_to_minutes"),
        ),
        timestamp_accessor(
            "getSeconds",
            "timestamp_to_seconds",
            "timestamp_to_seconds_tz",
            Some("duration_to_seconds"),
        ),
        timestamp_accessor(
            "getMilliseconds",
            "timestamp_to_milliseconds",
            "timestamp_to_milliseconds_with_tz",
            Some("duration_to_milliseconds"),
        ),
    ]);
    fns
}

/// A timestamp accessor: `ts.f()`, `ts.f(tz)` and, for some, `duration.f()`.
fn timestamp_accessor(
    name: &'static str,
    id: &'static str,
    id_with_tz: &'static str,
    duration_id: Option<&'static str>,
) -> Function {
    let mut overloads = vec![
        m(id, vec![Type::Timestamp], Type::Int),
        m(id_with_tz, vec![Type::Timestamp, Type::String], Type::Int),
    ];
    if let Some(d) = duration_id {
        overloads.push(m(d, vec![Type::Duration], Type::Int));
    }
    func(name, overloads)
}

/// The overload ids of one relation operator, in cel-go's order: bool, int, int/double,
/// int/uint, uint, uint/double, uint/int, double, double/int, double/uint, string, bytes,
/// timestamp, duration.
type RelationIds = [&'static str; 14];

const LESS: RelationIds = [
    "less_bool",
    "less_int64",
    "less_int64_double",
    "less_int64_uint64",
    "less_uint64",
    "less_uint64_double",
    "less_uint64_int64",
    "less_double",
    "less_double_int64",
    "less_double_uint64",
    "less_string",
    "less_bytes",
    "less_timestamp",
    "less_duration",
];

const LESS_EQUALS: RelationIds = [
    "less_equals_bool",
    "less_equals_int64",
    "less_equals_int64_double",
    "less_equals_int64_uint64",
    "less_equals_uint64",
    "less_equals_uint64_double",
    "less_equals_uint64_int64",
    "less_equals_double",
    "less_equals_double_int64",
    "less_equals_double_uint64",
    "less_equals_string",
    "less_equals_bytes",
    "less_equals_timestamp",
    "less_equals_duration",
];

const GREATER: RelationIds = [
    "greater_bool",
    "greater_int64",
    "greater_int64_double",
    "greater_int64_uint64",
    "greater_uint64",
    "greater_uint64_double",
    "greater_uint64_int64",
    "greater_double",
    "greater_double_int64",
    "greater_double_uint64",
    "greater_string",
    "greater_bytes",
    "greater_timestamp",
    "greater_duration",
];

const GREATER_EQUALS: RelationIds = [
    "greater_equals_bool",
    "greater_equals_int64",
    "greater_equals_int64_double",
    "greater_equals_int64_uint64",
    "greater_equals_uint64",
    "greater_equals_uint64_double",
    "greater_equals_uint64_int64",
    "greater_equals_double",
    "greater_equals_double_int64",
    "greater_equals_double_uint64",
    "greater_equals_string",
    "greater_equals_bytes",
    "greater_equals_timestamp",
    "greater_equals_duration",
];

/// The overloads of one relation operator.
fn relation_overloads(ids: RelationIds) -> Vec<Overload> {
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
        .map(|(id, (l, r))| g(id, vec![l, r], Bool))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn find<'f>(fns: &'f [Function], name: &str) -> &'f Function {
        fns.iter().find(|f| f.name == name).unwrap()
    }

    fn overload<'f>(fns: &'f [Function], id: &str) -> &'f Overload {
        fns.iter()
            .flat_map(|f| f.overloads.iter())
            .find(|o| o.id == id)
            .unwrap()
    }

    #[test]
    fn ids_and_names_are_unique() {
        let fns = functions();
        let mut names = HashSet::new();
        let mut ids = HashSet::new();
        for f in &fns {
            assert!(names.insert(f.name), "repeated function {}", f.name);
            for o in &f.overloads {
                assert!(ids.insert(o.id), "repeated overload {}", o.id);
            }
        }
        assert_eq!(fns.len(), 44);
        assert_eq!(ids.len(), 163);
    }

    #[test]
    fn relations_cover_cross_type_numerics() {
        let fns = functions();
        for name in ["_<_", "_<=_", "_>_", "_>=_"] {
            assert_eq!(find(&fns, name).overloads.len(), 14, "{name}");
        }
        let o = overload(&fns, "less_int64_uint64");
        assert_eq!(o.params, vec![Type::Int, Type::Uint]);
        assert_eq!(o.result, Type::Bool);
        assert!(!o.member);
        let o = overload(&fns, "greater_equals_double_int64");
        assert_eq!(o.params, vec![Type::Double, Type::Int]);
        let o = overload(&fns, "less_equals_uint64_double");
        assert_eq!(o.params, vec![Type::Uint, Type::Double]);
    }

    #[test]
    fn signatures() {
        let fns = functions();
        let o = overload(&fns, "add_list");
        assert_eq!(
            o.params,
            vec![Type::list(Type::param("A")), Type::list(Type::param("A"))]
        );
        assert_eq!(o.result, Type::list(Type::param("A")));
        let o = overload(&fns, "index_map");
        assert_eq!(
            o.params,
            vec![
                Type::map(Type::param("A"), Type::param("B")),
                Type::param("A")
            ]
        );
        assert_eq!(o.result, Type::param("B"));
        let o = overload(&fns, "in_list");
        assert_eq!(
            o.params,
            vec![Type::param("A"), Type::list(Type::param("A"))]
        );
        let o = overload(&fns, "type");
        assert_eq!(o.result, Type::type_of(Type::param("A")));
        assert_eq!(overload(&fns, "to_dyn").result, Type::Dyn);
        let o = overload(&fns, "subtract_timestamp_timestamp");
        assert_eq!(o.result, Type::Duration);
        let o = overload(&fns, "conditional");
        assert_eq!(
            o.params,
            vec![Type::Bool, Type::param("A"), Type::param("A")]
        );
    }

    #[test]
    fn call_styles() {
        let fns = functions();
        assert!(!overload(&fns, "size_string").member);
        assert!(overload(&fns, "string_size").member);
        assert!(overload(&fns, "list_size").member);
        assert!(overload(&fns, "map_size").member);
        assert!(overload(&fns, "bytes_size").member);
        assert!(!overload(&fns, "matches").member);
        assert!(overload(&fns, "matches_string").member);
        for id in ["contains_string", "starts_with_string", "ends_with_string"] {
            let o = overload(&fns, id);
            assert!(o.member);
            assert_eq!(o.params, vec![Type::String, Type::String]);
        }
        for f in &fns {
            if f.name.starts_with("get") {
                assert!(f.overloads.iter().all(|o| o.member), "{}", f.name);
                assert!(f.overloads.iter().all(|o| o.result == Type::Int));
            }
        }
        let o = overload(&fns, "timestamp_to_seconds_tz");
        assert_eq!(o.params, vec![Type::Timestamp, Type::String]);
        assert_eq!(find(&fns, "getHours").overloads.len(), 3);
        assert_eq!(find(&fns, "getDate").overloads.len(), 2);
    }
}
