//! The lists extension: its declarations by version.

use super::{functions, COMPARABLE, SORT_BY_IDS, SORT_IDS};

fn ids(version: u32) -> Vec<&'static str> {
    functions(version)
        .iter()
        .flat_map(|f| f.overloads().iter().map(|o| o.id()))
        .collect()
}

#[test]
fn sort_ids_follow_type_names() {
    for ((name, _), id) in COMPARABLE.iter().zip(SORT_IDS) {
        assert_eq!(id, format!("list_{name}_sort"));
    }
    for ((name, _), id) in COMPARABLE.iter().zip(SORT_BY_IDS) {
        assert_eq!(id, format!("list_{name}_sortByAssociatedKeys"));
    }
}

#[test]
fn lists_versions() {
    assert_eq!(ids(0), vec!["list_slice"]);
    assert_eq!(
        ids(1),
        vec!["list_slice", "list_flatten", "list_flatten_int"]
    );
    let v3 = ids(3);
    assert_eq!(v3.len(), 3 + 8 + 8 + 3);
    assert_eq!(v3, ids(2));
    assert!(v3.contains(&"list_google.protobuf.Timestamp_sort"));
    assert!(v3.contains(&"lists_range"));
}
