//! The standard library's declarations (ids, signatures, call styles in cel-go's order), and
//! the type checker over them as cel-go checks. The implementations are tested through their
//! overload ids by the integration tests (`tests/stdlib.rs`) and in [`super::time`].

use std::collections::HashSet;

use matchcond_front::ast::ExprKind;
use matchcond_front::checker::{check_ids, CheckerEnv, Reference};
use matchcond_front::decls::{Function, Overload};
use matchcond_front::{parse, ParserOptions, Type};

use crate::libraries::Library;

/// The declarations of the standard library.
fn functions() -> Vec<Function> {
    Library::Standard.definition().declarations()
}

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

// The checker over these declarations.

fn env() -> CheckerEnv {
    let mut env = CheckerEnv::default();
    env.add_standard_type_idents();
    env.add_functions(Library::Standard.definition().declarations());
    env.add_functions(Library::Optionals.definition().declarations());
    env.variables.insert("x".into(), Type::Dyn);
    env.variables.insert("a.b".into(), Type::list(Type::String));
    env
}

fn messages(text: &str) -> Vec<String> {
    let env = env();
    let parsed = parse(text, &ParserOptions::default()).unwrap();
    match check_ids(&parsed.expr, &env, parsed.next_id) {
        Ok(_) => Vec::new(),
        Err(issues) => issues.into_iter().map(|i| i.message().to_owned()).collect(),
    }
}

/// Fresh type variables are numbered as cel-go numbers them, counting those of the
/// overloads that cannot apply (they show in messages).
#[test]
fn fresh_variables_are_numbered_as_in_cel_go() {
    assert_eq!(
        messages("[1][0] == [].foo"),
        ["type 'list(_var6)' does not support field selection"]
    );
    assert_eq!(
        messages("{}.a == [].foo"),
        ["type 'list(_var2)' does not support field selection"]
    );
    assert_eq!(
        messages("{?'a': []}"),
        ["expected type 'optional_type(list(_var0))' but found 'list(_var0)'"]
    );
}

#[test]
fn element_types_references_and_result() {
    let env = env();
    let parsed = parse("[x, 'a'].size() + a.b.size()", &ParserOptions::default()).unwrap();
    let c = check_ids(&parsed.expr, &env, parsed.next_id).unwrap();
    assert_eq!(c.result_type, Type::Int);
    let ExprKind::Call { args, .. } = &parsed.expr.kind else {
        panic!("not a call")
    };
    let ExprKind::Call {
        target: Some(list), ..
    } = &args[0].kind
    else {
        panic!("not a member call")
    };
    let ExprKind::List { elements, .. } = &list.kind else {
        panic!("not a list")
    };
    assert_eq!(c.element_type(elements[0].id), Some(&Type::Dyn));
    assert_eq!(c.element_type(elements[1].id), Some(&Type::String));
    assert_eq!(c.element_type(list.id), None);
    assert_eq!(c.reference(elements[0].id), Some(&Reference::Variable("x")));
    let ExprKind::Call {
        target: Some(ab), ..
    } = &args[1].kind
    else {
        panic!("not a member call")
    };
    assert_eq!(c.reference(ab.id), Some(&Reference::Variable("a.b")));
    match c.reference(args[1].id) {
        Some(Reference::Function {
            function,
            overloads,
            global: false,
        }) => {
            let ids: Vec<&str> = overloads.overloads(function).map(|o| o.id).collect();
            assert_eq!((function.name, ids), ("size", vec!["list_size"]));
        }
        other => panic!("{other:?}"),
    }
    match c.reference(parsed.expr.id) {
        Some(Reference::Function { overloads, .. }) => assert_eq!(overloads.len(), 1),
        other => panic!("{other:?}"),
    }
}
