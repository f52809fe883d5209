//! The optional types library: its declarations.

use matchcond_front::Type;

use crate::libraries::Library;
use crate::test_util::{declaration, declared_ids};

#[test]
fn optional_member_styles() {
    let def = Library::Optionals.definition();
    assert!(!declaration(def, "optional_unwrap").member);
    assert!(declaration(def, "optional_unwrapOpt").member);
    assert!(declaration(def, "list_first").member);
    assert_eq!(
        declaration(def, "optional_orValue_value").result,
        Type::param("V")
    );
    assert_eq!(declared_ids(def).len(), 18);
}
