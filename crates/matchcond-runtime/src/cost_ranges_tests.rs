//! Every overload of every library, called on generated arguments of several sizes: the
//! run-time charge of each successful call lies in the static range its cost rule states
//! for operands of those exact sizes (with and without strict cost), and a result size the
//! function states holds the result.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use matchcond_front::Type;

use super::*;
use crate::authz::{authorizer_value, AuthzResponse, UserInfo};
use crate::libraries::{Behaviours, Binding, Bindings, Library};
use crate::test_util::{dur, opt, ts};
use crate::value::{Map, MapData};

/// The most argument combinations tried per overload.
const MAX_COMBINATIONS: usize = 400;
/// The most values kept per library type.
const MAX_PER_TYPE: usize = 6;

/// The interpreter's own overloads: it plans their calls as nodes of their own (short
/// circuits, the conditional, optional selection and indexing) and charges them as cel-go's
/// interpreter does, not through a cost rule of the overload.
const INTERPRETED: &str = "evaluated by the interpreter, which prices the node itself";

/// Overloads no generated arguments exercise, and why.
const EXCLUDED: &[(&str, &str)] = &[
    ("conditional", INTERPRETED),
    ("logical_and", INTERPRETED),
    ("logical_or", INTERPRETED),
    ("select_optional_field", INTERPRETED),
    ("list_optindex_optional_int", INTERPRETED),
    ("map_optindex_optional_value", INTERPRETED),
    ("optional_list_index_int", INTERPRETED),
    ("optional_list_optindex_optional_int", INTERPRETED),
    ("optional_map_index_value", INTERPRETED),
    ("optional_map_optindex_optional_value", INTERPRETED),
    (
        "int64_to_duration",
        "declared but always a conversion error, as in cel-go: no call succeeds",
    ),
];

fn map(entries: Vec<(Value<'static>, Value<'static>)>) -> Value<'static> {
    let mut d = MapData::new();
    for (k, v) in entries {
        d.insert_literal(k, v);
    }
    Value::Map(Map::Shared(Arc::new(d)))
}

/// Strings of several sizes, the texts the library types parse among them.
fn strings() -> Vec<Value<'static>> {
    [
        "",
        "a",
        "kube-system",
        "a,b,,c",
        "ééé-ü",
        "42",
        "-7",
        "1.5",
        "true",
        "2024-01-02T03:04:05Z",
        "1h30m",
        "10.0.0.1",
        "2001:db8::1",
        "10.0.0.0/8",
        "0.0.0.0/0",
        "2001:db8::/32",
        "192.168.1.7/32",
        "1Gi",
        "100m",
        "https://user@example.com:8443/a/b?c=d#e",
        "1.2.3",
        "v1.2.3-alpha.1+build",
        "app=web,tier!=db",
        "metadata.name=x",
        "dns1123Label",
        "uri",
        "labelValue",
        "[a-z]+",
        "system:serviceaccount:kube-system:statefulset-controller-with-a-long-name-0123456789",
    ]
    .into_iter()
    .map(Value::string)
    .collect()
}

fn samples_of(t: &Type, pool: &BTreeMap<String, Vec<Value<'static>>>) -> Vec<Value<'static>> {
    let strs = strings();
    let ints = || vec![Value::Int(0), Value::Int(1), Value::Int(3), Value::Int(-1)];
    let scalars = |pool: &BTreeMap<String, Vec<Value<'static>>>| {
        let mut v = vec![
            Value::Int(2),
            Value::string("a"),
            Value::string("web"),
            Value::Bool(true),
            Value::Double(1.5),
        ];
        v.extend(pool.values().filter_map(|l| l.first().cloned()));
        v
    };
    match t {
        Type::String => strs,
        Type::Bytes => vec![
            Value::bytes(&b""[..]),
            Value::bytes(&b"abc"[..]),
            Value::bytes(&b"a longer run of twenty-five"[..]),
        ],
        Type::Int => ints(),
        Type::Uint => vec![Value::Uint(0), Value::Uint(2), Value::Uint(7)],
        Type::Double => vec![Value::Double(0.0), Value::Double(2.5), Value::Double(-1.25)],
        Type::Bool => vec![Value::Bool(true), Value::Bool(false)],
        Type::Null => vec![Value::Null],
        Type::Timestamp => vec![ts(0), ts(1_700_000_000)],
        Type::Duration => vec![dur(0), dur(90)],
        Type::List(e) => {
            let el = match &**e {
                Type::Dyn | Type::Param(_) => vec![Value::Int(3), Value::Int(1), Value::Int(2)],
                other => samples_of(other, pool),
            };
            let mut out = vec![Value::list(vec![])];
            for n in [1, 3, 12] {
                out.push(Value::list(el.iter().cycle().take(n).cloned().collect()));
            }
            if matches!(&**e, Type::Dyn | Type::Param(_)) {
                out.push(Value::list(strs.iter().take(5).cloned().collect()));
                out.push(Value::list(vec![
                    Value::list(vec![Value::Int(1), Value::Int(2)]),
                    Value::list(vec![Value::string("nested")]),
                ]));
            }
            out
        }
        Type::Map(k, v) => {
            let keys = match &**k {
                Type::Dyn | Type::Param(_) | Type::String => {
                    vec![
                        Value::string("a"),
                        Value::string("bb"),
                        Value::string("ccc"),
                    ]
                }
                other => samples_of(other, pool),
            };
            let vals = match &**v {
                Type::Dyn | Type::Param(_) => vec![Value::Int(1), Value::string("v")],
                other => samples_of(other, pool),
            };
            let mut out = vec![map(vec![])];
            if let (Some(k), Some(v)) = (keys.first(), vals.first()) {
                out.push(map(vec![(k.clone(), v.clone())]));
            }
            let pairs: Vec<_> = keys
                .iter()
                .zip(vals.iter().cycle())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            out.push(map(pairs));
            out
        }
        Type::Optional(inner) => {
            let mut out = vec![crate::test_util::none()];
            out.extend(samples_of(inner, pool).into_iter().take(3).map(opt));
            out
        }
        Type::Named(name, _) => pool.get(&**name).cloned().unwrap_or_default(),
        Type::Dyn | Type::Param(_) => {
            let mut v = scalars(pool);
            v.push(Value::list(vec![Value::Int(1), Value::Int(2)]));
            v.push(Value::list(strs.iter().take(3).cloned().collect()));
            v.push(map(vec![(Value::string("k"), Value::Int(1))]));
            v.push(opt(Value::string("a longer optional string")));
            v
        }
        Type::Type(_) | Type::Error => vec![],
    }
}

/// Up to `MAX_COMBINATIONS` argument lists, one value per parameter.
fn combinations(per_param: &[Vec<Value<'static>>]) -> Vec<Vec<Value<'static>>> {
    let mut out: Vec<Vec<Value<'static>>> = vec![vec![]];
    for values in per_param {
        let mut next = Vec::new();
        for prefix in &out {
            for v in values {
                let mut p = prefix.clone();
                p.push(v.clone());
                next.push(p);
                if next.len() >= MAX_COMBINATIONS {
                    break;
                }
            }
        }
        out = next;
    }
    out
}

/// Values of every library type, built by calling the libraries' own overloads (parsers,
/// constants, builders) from strings and an authorizer, until no new type appears.
fn library_values(libraries: &[Library]) -> BTreeMap<String, Vec<Value<'static>>> {
    let allow_pods = |a: &crate::authz::Attributes<'_>| match &a.resource {
        Some(r) if r.resource == "pods" => AuthzResponse::allow().with_reason("pods ok"),
        Some(_) => AuthzResponse::deny(),
        None => AuthzResponse::error("no paths"),
    };
    let authorizer = authorizer_value(UserInfo::new("u"), Arc::new(allow_pods));
    let mut pool: BTreeMap<String, Vec<Value<'static>>> = BTreeMap::new();
    pool.entry(authorizer.type_name().to_string())
        .or_default()
        .push(authorizer);
    for _ in 0..4 {
        for lib in libraries {
            for f in lib.definition().entries() {
                for o in f.overloads() {
                    let d = o.declaration();
                    let name = match &d.result {
                        Type::Named(n, _) => n.to_string(),
                        _ => continue,
                    };
                    if pool.get(&name).is_some_and(|v| v.len() >= MAX_PER_TYPE) {
                        continue;
                    }
                    let Some(f) = o.binding().implementation(Behaviours::new()) else {
                        continue;
                    };
                    let per_param: Vec<_> = d.params.iter().map(|p| samples_of(p, &pool)).collect();
                    for args in combinations(&per_param) {
                        if let Ok(v) = f(&args) {
                            let values = pool.entry(name.clone()).or_default();
                            if values.len() < MAX_PER_TYPE {
                                values.push(v);
                            }
                        }
                    }
                }
            }
        }
    }
    pool
}

/// What a static estimate knows of a value, exactly.
fn exact(v: &Value<'_>) -> StaticOperand {
    let size = StaticRange::fixed(v.cost_size());
    let shape = match v {
        Value::String(_) | Value::Bytes(_) => Shape::Text,
        Value::List(l) => {
            let elements: Vec<Value<'_>> = l.iter().collect();
            if elements
                .iter()
                .all(|e| matches!(e, Value::String(_) | Value::Bytes(_)))
            {
                let sizes = elements
                    .iter()
                    .map(|e| StaticRange::fixed(e.cost_size()))
                    .reduce(StaticRange::union)
                    .unwrap_or(StaticRange::ZERO);
                Shape::List(Elements::Text(sizes))
            } else if elements.iter().all(|e| {
                !matches!(
                    e,
                    Value::List(_)
                        | Value::Map(_)
                        | Value::Optional(_)
                        | Value::String(_)
                        | Value::Bytes(_)
                )
            }) {
                Shape::List(Elements::Scalar)
            } else {
                Shape::List(Elements::Unknown)
            }
        }
        Value::Map(_) => Shape::Map,
        Value::Optional(_) => Shape::Unknown,
        _ => Shape::Scalar,
    };
    StaticOperand::new(size, shape)
}

#[test]
fn run_time_charges_lie_in_the_static_ranges() {
    let newest: Vec<Library> = Library::ALL
        .into_iter()
        .filter(|l| ![Library::StringsV0, Library::K8sListsV0].contains(l))
        .collect();
    let bindings = Bindings::new(&newest, Behaviours::new());
    let pool = library_values(&Library::ALL);
    let mut unexercised = BTreeSet::new();
    let mut checked = 0usize;
    for lib in Library::ALL {
        for f in lib.definition().entries() {
            for o in f.overloads() {
                let d = o.declaration();
                let implementation = match o.binding() {
                    Binding::Interpreter => {
                        unexercised.insert(o.id());
                        continue;
                    }
                    b => b.implementation(Behaviours::new()),
                };
                let Some(implementation) = implementation else {
                    unexercised.insert(o.id());
                    continue;
                };
                let per_param: Vec<_> = d.params.iter().map(|p| samples_of(p, &pool)).collect();
                let mut ran = false;
                for args in combinations(&per_param) {
                    let Ok(result) = implementation(&args) else {
                        continue;
                    };
                    ran = true;
                    let operands: Vec<StaticOperand> = args.iter().map(exact).collect();
                    if let Some(rule) = f.result_size() {
                        let want = rule.of(&operands);
                        assert!(
                            want.holds(result.cost_size()),
                            "{}: result size {} outside {want:?} for {args:?}",
                            o.id(),
                            result.cost_size()
                        );
                    }
                    let result_size = StaticRange::fixed(result.cost_size());
                    for strict in [true, false] {
                        // The rule of the overload as this library states it (an older
                        // version of a library shares ids with the newest).
                        let kind = CostKind::resolve(Some(o.cost()), f.estimate(), strict);
                        let charged = cost_of(kind, &args, &result);
                        let range = kind.static_range(&operands, result_size);
                        assert!(
                            range.holds(charged),
                            "{} ({}, strict {strict}): charged {charged} outside {range:?} for {args:?}",
                            o.id(),
                            f.name()
                        );
                        // The environment's resolution agrees where the library is the
                        // newest of its name.
                        if newest.contains(&lib) {
                            assert_eq!(
                                bindings
                                    .cost(f.name(), Some(o.id()), strict)
                                    .static_range(&operands, result_size),
                                range,
                                "{}",
                                o.id()
                            );
                        }
                        checked += 1;
                    }
                }
                if !ran {
                    unexercised.insert(o.id());
                }
            }
        }
    }
    let excluded: BTreeSet<&str> = EXCLUDED.iter().map(|(id, _)| *id).collect();
    assert_eq!(
        unexercised, excluded,
        "overloads no generated arguments exercise"
    );
    assert!(checked > 10_000, "{checked}");
}
