//! The Kubernetes lists library: its declarations by version.

use matchcond_front::Type;

use super::{library, COMPARABLE, IS_SORTED, MAX, MIN};
use crate::test_util::{declaration, declared};

#[test]
fn ids_follow_type_names() {
    for (i, (name, _)) in COMPARABLE.iter().enumerate() {
        assert_eq!(IS_SORTED[i].0, format!("list_{name}_is_sorted_bool"));
        assert_eq!(MAX[i].0, format!("list_{name}_max_{name}"));
        assert_eq!(MIN[i].0, format!("list_{name}_min_{name}"));
    }
}

#[test]
fn versions() {
    let v0 = library(0);
    assert!(declared(&v0).iter().all(|(f, _, _)| *f != "includes"));
    assert_eq!(declared(&v0).len(), 8 + 4 + 8 + 8 + 1 + 1);
    assert_eq!(declared(&library(1)).len(), declared(&v0).len() + 1);
    assert_eq!(
        declaration(&v0, "list_duration_sum_duration").result,
        Type::Duration
    );
}
