use super::*;
use crate::test_util::{call, s};

fn q(text: &'static str) -> Value<'static> {
    call("string_to_quantity", &[s(text)]).unwrap()
}

#[test]
fn parse_errors() {
    let err = call("string_to_quantity", &[s("10Mo")]).unwrap_err();
    assert_eq!(
        err.message,
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    );
    let err = call("string_to_quantity", &[s("10Mm")]).unwrap_err();
    assert_eq!(err.message, "unable to parse quantity's suffix");
    for (text, want) in [("20Mi", true), ("1,3G", false)] {
        let got = call("is_quantity_string", &[s(text)]).unwrap();
        assert_eq!(got, Value::Bool(want), "isQuantity({text:?})");
    }
    let err = call("string_to_quantity", &[Value::Int(1)]).unwrap_err();
    assert_eq!(err.kind, crate::error::ErrorKind::NoSuchOverload);
}

#[test]
fn library_examples() {
    let eq = |a: Value<'static>, b: Value<'static>| crate::value::values_equal(&a, &b);
    assert!(eq(q("200M"), q("0.2G")));
    assert!(!eq(q("200M"), q("0.3G")));
    assert_eq!(
        call("quantity_compare_to", &[q("50M"), q("50Mi")]).unwrap(),
        Value::Int(-1)
    );
    assert_eq!(
        call("quantity_is_greater_than", &[q("150Mi"), q("100Mi")]).unwrap(),
        Value::Bool(true)
    );
    assert_eq!(
        call("quantity_is_less_than", &[q("100M"), q("50M")]).unwrap(),
        Value::Bool(false)
    );
    let added = call("quantity_add", &[q("50k"), q("20")]).unwrap();
    assert!(eq(added.clone(), q("50.02k")));
    assert_eq!(added.type_name(), "kubernetes.Quantity");
    let chain = call("quantity_add_int", &[q("50k"), Value::Int(20)]).unwrap();
    let chain = call("quantity_sub", &[chain, q("100k")]).unwrap();
    assert_eq!(
        call("quantity_get_int", std::slice::from_ref(&chain)).unwrap(),
        Value::Int(-49980)
    );
    let chain = call("quantity_sub_int", &[chain, Value::Int(-50000)]).unwrap();
    assert_eq!(call("quantity_get_int", &[chain]).unwrap(), Value::Int(20));
    let big = q("9999999999999999999999999999999999999G");
    assert_eq!(
        call("quantity_get_int", std::slice::from_ref(&big))
            .unwrap_err()
            .message,
        "cannot convert value to integer"
    );
    assert_eq!(
        call("quantity_is_integer", &[big]).unwrap(),
        Value::Bool(false)
    );
    assert_eq!(
        call("quantity_get_float", &[q("50.703k")]).unwrap(),
        Value::Double(50703.0)
    );
    assert_eq!(call("quantity_sign", &[q("-1n")]).unwrap(), Value::Int(-1));
    assert_eq!(call("quantity_sign", &[q("0Ki")]).unwrap(), Value::Int(0));
    let err = call("quantity_add_int", &[q("1"), Value::Double(1.0)]).unwrap_err();
    assert_eq!(err.kind, crate::error::ErrorKind::NoSuchOverload);
}

#[test]
fn comparison_converts_the_receiver() {
    let x = q("1");
    assert_eq!(
        call("quantity_is_integer", std::slice::from_ref(&x)).unwrap(),
        Value::Bool(true)
    );
    // Comparing with an integer-backed quantity changes nothing.
    call("quantity_compare_to", &[x.clone(), q("2")]).unwrap();
    assert_eq!(
        call("quantity_is_integer", std::slice::from_ref(&x)).unwrap(),
        Value::Bool(true)
    );
    // As the argument of a comparison with a decimal-backed receiver, it stays too.
    call("quantity_compare_to", &[q("1Pi"), x.clone()]).unwrap();
    assert_eq!(
        call("quantity_is_integer", std::slice::from_ref(&x)).unwrap(),
        Value::Bool(true)
    );
    // As the receiver, it is converted.
    assert_eq!(
        call("quantity_is_less_than", &[x.clone(), q("1Pi")]).unwrap(),
        Value::Bool(true)
    );
    assert_eq!(
        call("quantity_is_integer", std::slice::from_ref(&x)).unwrap(),
        Value::Bool(false)
    );
    assert_eq!(
        call("quantity_get_float", &[x]).unwrap(),
        Value::Double(1.0)
    );
}

#[test]
fn text_forms() {
    let text = |v: Value<'static>| match v {
        Value::Opaque(o) => o.text(),
        _ => String::new(),
    };
    assert_eq!(text(q("1.5Gi")), "1536Mi");
    assert_eq!(text(q("200M")), "200M");
    assert_eq!(text(q("0.2G")), "200M");
    assert_eq!(
        text(call("quantity_add", &[q("1Ki"), q("1Ki")]).unwrap()),
        "2Ki"
    );
    assert_eq!(
        text(call("quantity_add_int", &[q("0"), Value::Int(5)]).unwrap()),
        "5"
    );
}

#[test]
fn sign_is_global_only() {
    let def = library();
    let sign: Vec<_> = crate::test_util::declared(&def)
        .into_iter()
        .filter(|(f, _, _)| *f == "sign")
        .collect();
    assert_eq!(sign, vec![("sign", "quantity_sign", false)]);
    let q = Type::named("kubernetes.Quantity");
    let d = crate::test_util::declaration(&def, "quantity_sign");
    assert_eq!((d.params, d.result), (vec![q.clone()], Type::Int));
    assert_eq!(crate::test_util::declared(&def).len(), 13);
    assert_eq!(def.type_names(), [("kubernetes.Quantity", q)]);
}
