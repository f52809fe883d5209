//! The sets extension, through its overload ids, with the expectations of cel-go's `ext`
//! tests.

use crate::error::ErrorKind;
use crate::libraries::Library;
use crate::test_util::*;
use crate::value::Value;

#[test]
fn declarations() {
    assert!(declared(Library::Sets.definition()).contains(&(
        "sets.intersects",
        "list_sets_intersects_list",
        false
    )));
}

#[test]
fn sets() {
    let contains = |a: Value<'static>, c: Value<'static>| ok("list_sets_contains_list", vec![a, c]);
    let equivalent =
        |a: Value<'static>, c: Value<'static>| ok("list_sets_equivalent_list", vec![a, c]);
    let intersects =
        |a: Value<'static>, c: Value<'static>| ok("list_sets_intersects_list", vec![a, c]);
    assert_eq!(contains(l(vec![]), l(vec![])), "true");
    assert_eq!(contains(ints(&[1]), l(vec![])), "true");
    assert_eq!(contains(ints(&[1]), ints(&[1])), "true");
    assert_eq!(contains(ints(&[1]), ints(&[1, 1])), "true");
    assert_eq!(contains(ints(&[1, 1]), ints(&[1])), "true");
    assert_eq!(contains(ints(&[2, 1]), ints(&[1])), "true");
    assert_eq!(contains(ints(&[1, 2, 3, 4]), ints(&[2, 3])), "true");
    assert_eq!(contains(ints(&[1]), l(vec![d(1.0), i(1)])), "true");
    assert_eq!(contains(ints(&[1, 2]), l(vec![u(2), d(2.0)])), "true");
    assert_eq!(contains(l(vec![i(1), u(2)]), l(vec![i(2), d(2.0)])), "true");
    assert_eq!(
        contains(l(vec![i(1), d(2.0), u(3)]), l(vec![d(1.0), u(2), i(3)])),
        "true"
    );
    assert_eq!(
        contains(
            l(vec![ints(&[1]), ints(&[2, 3])]),
            l(vec![l(vec![i(2), d(3.0)])])
        ),
        "true"
    );
    assert_eq!(contains(ints(&[1]), ints(&[2])), "false");
    assert_eq!(contains(ints(&[1]), ints(&[1, 2])), "false");
    assert_eq!(contains(ints(&[1]), l(vec![s("1"), i(1)])), "false");
    assert_eq!(contains(ints(&[1]), l(vec![d(1.1), u(1)])), "false");

    assert_eq!(equivalent(l(vec![]), l(vec![])), "true");
    assert_eq!(equivalent(ints(&[1]), ints(&[1])), "true");
    assert_eq!(equivalent(ints(&[1]), ints(&[1, 1])), "true");
    assert_eq!(equivalent(ints(&[1, 1]), ints(&[1])), "true");
    assert_eq!(equivalent(ints(&[1]), l(vec![u(1), d(1.0)])), "true");
    assert_eq!(
        equivalent(ints(&[1, 2, 3]), l(vec![u(3), d(2.0), i(1)])),
        "true"
    );
    assert_eq!(
        equivalent(
            l(vec![l(vec![d(1.0)]), ints(&[2, 3])]),
            l(vec![ints(&[1]), l(vec![i(2), d(3.0)])])
        ),
        "true"
    );
    assert_eq!(equivalent(ints(&[2, 1]), ints(&[1])), "false");
    assert_eq!(equivalent(ints(&[1]), ints(&[1, 2])), "false");
    assert_eq!(
        equivalent(ints(&[1, 2]), l(vec![u(2), i(2), d(2.0)])),
        "false"
    );
    assert_eq!(
        equivalent(ints(&[1, 2]), l(vec![u(1), i(2), d(2.3)])),
        "false"
    );

    assert_eq!(intersects(ints(&[1]), ints(&[1])), "true");
    assert_eq!(intersects(ints(&[1]), ints(&[1, 1])), "true");
    assert_eq!(intersects(ints(&[1, 1]), ints(&[1])), "true");
    assert_eq!(intersects(ints(&[2, 1]), ints(&[1])), "true");
    assert_eq!(intersects(ints(&[1]), ints(&[1, 2])), "true");
    assert_eq!(intersects(ints(&[1]), l(vec![d(1.0), i(2)])), "true");
    assert_eq!(
        intersects(ints(&[1, 2]), l(vec![u(2), i(2), d(2.0)])),
        "true"
    );
    assert_eq!(
        intersects(ints(&[1, 2]), l(vec![u(1), i(2), d(2.3)])),
        "true"
    );
    assert_eq!(
        intersects(
            l(vec![ints(&[1]), ints(&[2, 3])]),
            l(vec![ints(&[1, 2]), l(vec![i(2), d(3.0)])])
        ),
        "true"
    );
    assert_eq!(intersects(l(vec![]), l(vec![])), "false");
    assert_eq!(intersects(ints(&[1]), l(vec![])), "false");
    assert_eq!(intersects(ints(&[1]), ints(&[2])), "false");
    assert_eq!(intersects(ints(&[1]), l(vec![s("1"), i(2)])), "false");
    assert_eq!(intersects(ints(&[1]), l(vec![d(1.1), u(2)])), "false");
    assert_eq!(
        err_kind("list_sets_contains_list", vec![ints(&[1]), i(1)]),
        ErrorKind::NoSuchOverload
    );
}
