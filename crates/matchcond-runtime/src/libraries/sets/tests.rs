//! The sets extension, through its overload ids, with the expectations of cel-go's `ext`
//! tests.

use crate::error::ErrorKind;
use crate::libraries::Library;
use crate::test_util::*;

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
    // (first list, second list, expected result) of each function.
    let cases = [
        (
            "list_sets_contains_list",
            vec![
                (l(vec![]), l(vec![]), true),
                (ints(&[1]), l(vec![]), true),
                (ints(&[1]), ints(&[1]), true),
                (ints(&[1]), ints(&[1, 1]), true),
                (ints(&[1, 1]), ints(&[1]), true),
                (ints(&[2, 1]), ints(&[1]), true),
                (ints(&[1, 2, 3, 4]), ints(&[2, 3]), true),
                (ints(&[1]), l(vec![d(1.0), i(1)]), true),
                (ints(&[1, 2]), l(vec![u(2), d(2.0)]), true),
                (l(vec![i(1), u(2)]), l(vec![i(2), d(2.0)]), true),
                (
                    l(vec![i(1), d(2.0), u(3)]),
                    l(vec![d(1.0), u(2), i(3)]),
                    true,
                ),
                (
                    l(vec![ints(&[1]), ints(&[2, 3])]),
                    l(vec![l(vec![i(2), d(3.0)])]),
                    true,
                ),
                (ints(&[1]), ints(&[2]), false),
                (ints(&[1]), ints(&[1, 2]), false),
                (ints(&[1]), l(vec![s("1"), i(1)]), false),
                (ints(&[1]), l(vec![d(1.1), u(1)]), false),
            ],
        ),
        (
            "list_sets_equivalent_list",
            vec![
                (l(vec![]), l(vec![]), true),
                (ints(&[1]), ints(&[1]), true),
                (ints(&[1]), ints(&[1, 1]), true),
                (ints(&[1, 1]), ints(&[1]), true),
                (ints(&[1]), l(vec![u(1), d(1.0)]), true),
                (ints(&[1, 2, 3]), l(vec![u(3), d(2.0), i(1)]), true),
                (
                    l(vec![l(vec![d(1.0)]), ints(&[2, 3])]),
                    l(vec![ints(&[1]), l(vec![i(2), d(3.0)])]),
                    true,
                ),
                (ints(&[2, 1]), ints(&[1]), false),
                (ints(&[1]), ints(&[1, 2]), false),
                (ints(&[1, 2]), l(vec![u(2), i(2), d(2.0)]), false),
                (ints(&[1, 2]), l(vec![u(1), i(2), d(2.3)]), false),
            ],
        ),
        (
            "list_sets_intersects_list",
            vec![
                (ints(&[1]), ints(&[1]), true),
                (ints(&[1]), ints(&[1, 1]), true),
                (ints(&[1, 1]), ints(&[1]), true),
                (ints(&[2, 1]), ints(&[1]), true),
                (ints(&[1]), ints(&[1, 2]), true),
                (ints(&[1]), l(vec![d(1.0), i(2)]), true),
                (ints(&[1, 2]), l(vec![u(2), i(2), d(2.0)]), true),
                (ints(&[1, 2]), l(vec![u(1), i(2), d(2.3)]), true),
                (
                    l(vec![ints(&[1]), ints(&[2, 3])]),
                    l(vec![ints(&[1, 2]), l(vec![i(2), d(3.0)])]),
                    true,
                ),
                (l(vec![]), l(vec![]), false),
                (ints(&[1]), l(vec![]), false),
                (ints(&[1]), ints(&[2]), false),
                (ints(&[1]), l(vec![s("1"), i(2)]), false),
                (ints(&[1]), l(vec![d(1.1), u(2)]), false),
            ],
        ),
    ];
    for (id, rows) in cases {
        for (a, b, want) in rows {
            assert_eq!(ok(id, vec![a, b]), want.to_string(), "{id}");
        }
    }
    assert_eq!(
        err_kind("list_sets_contains_list", vec![ints(&[1]), i(1)]),
        ErrorKind::NoSuchOverload
    );
}
