//! The strings extension: its declarations by version.

use super::library;
use crate::test_util::declared_ids;

#[test]
fn strings_versions() {
    let v0 = declared_ids(&library(0));
    assert!(v0.contains(&"list_join"));
    assert!(!v0.contains(&"string_format"));
    assert!(!v0.contains(&"strings_quote"));
    let v2 = declared_ids(&library(2));
    assert!(v2.contains(&"string_format"));
    assert!(v2.contains(&"strings_quote"));
    assert!(!v2.contains(&"string_reverse"));
    assert_eq!(v2.len(), v0.len() + 2);
    assert!(declared_ids(&library(3)).contains(&"string_reverse"));
}
