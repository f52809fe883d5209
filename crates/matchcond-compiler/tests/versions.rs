//! Which libraries and language options exist at which Kubernetes version (base.go's table),
//! and the "new expressions" environment one minor version behind the binary.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use matchcond_compiler::{EnvMode, Environment, KubeVersion};

fn compiles(version: (u32, u32), mode: EnvMode, expr: &str) -> bool {
    let env = Environment::with_mode(KubeVersion::new(version.0, version.1), mode);
    env.compile_condition(expr).is_ok()
}

/// (expression, first version where it compiles as a stored expression)
const INTRODUCED: &[(&str, u32)] = &[
    ("[1, 2].isSorted()", 24),
    ("'abc'.find('b') == 'b'", 24),
    ("isURL('https://example.com')", 24),
    (
        "authorizer.group('').resource('pods').check('get').allowed()",
        27,
    ),
    ("isQuantity('20M')", 28),
    ("optional.of(1).hasValue()", 28),
    ("object.?metadata.hasValue()", 28),
    ("1 < 2u", 28),
    ("'a,b'.split(',').size() == 2", 24),
    ("sets.contains([1], [1])", 29),
    ("'%s'.format(['a']) == 'a'", 29),
    ("isIP('1.2.3.4')", 30),
    ("isCIDR('10.0.0.0/8')", 30),
    ("format.named('uuid').hasValue()", 31),
    (
        "authorizer.group('').resource('pods').fieldSelector('a=b').check('list').allowed()",
        31,
    ),
    ("[1].all(i, v, v > 0)", 32),
    ("isSemver('1.0.0')", 33),
    ("lists.range(3).size() == 3", 34),
    ("[3, 1].sort() == [1, 3]", 34),
];

#[test]
fn libraries_appear_at_their_version_in_stored_environments() {
    for (expr, minor) in INTRODUCED {
        let minor = *minor;
        assert!(
            compiles((1, minor), EnvMode::StoredExpressions, expr),
            "{expr} at 1.{minor}"
        );
        if minor > 24 {
            assert!(
                !compiles((1, minor - 1), EnvMode::StoredExpressions, expr),
                "{expr} should not compile at 1.{}",
                minor - 1
            );
        }
    }
}

#[test]
fn new_expressions_use_the_previous_minor_version() {
    // A 1.34 apiserver validates new expressions against 1.33: the lists extension (1.34)
    // is missing there, but is there for stored expressions.
    let expr = "lists.range(3).size() == 3";
    assert!(!compiles((1, 34), EnvMode::NewExpressions, expr));
    assert!(compiles((1, 34), EnvMode::StoredExpressions, expr));
    assert!(compiles((1, 35), EnvMode::NewExpressions, expr));
    // isQuantity: a compile error in a new-expressions environment older than 1.28.
    let q = "isQuantity('20M')";
    assert!(!compiles((1, 28), EnvMode::NewExpressions, q));
    assert!(compiles((1, 28), EnvMode::StoredExpressions, q));
    let err = Environment::with_mode(KubeVersion::new(1, 28), EnvMode::NewExpressions)
        .compile_condition(q)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "compilation failed: ERROR: <input>:1:11: undeclared reference to 'isQuantity' (in container '')\n | isQuantity('20M')\n | ..........^"
    );
}

#[test]
fn strings_extension_version_follows_the_release() {
    // Version 2 (1.29+) has format and quote; version 0 does not.
    assert!(!compiles(
        (1, 28),
        EnvMode::StoredExpressions,
        "strings.quote('a') == '\"a\"'"
    ));
    assert!(compiles(
        (1, 29),
        EnvMode::StoredExpressions,
        "strings.quote('a') == '\"a\"'"
    ));
}

#[test]
fn literal_validators_start_at_1_29() {
    let expr = "duration('1x') > duration('0s')";
    let err = Environment::kubernetes(KubeVersion::new(1, 29))
        .compile_condition(expr)
        .unwrap_err();
    assert!(
        err.to_string().contains("invalid duration argument"),
        "{err}"
    );
    // Before the validators the constant conversion still fails, when the program is built
    // (constant folding), as cel-go's program creation does.
    let err = Environment::kubernetes(KubeVersion::new(1, 28))
        .compile_condition(expr)
        .unwrap_err();
    assert!(err.is_internal(), "{err}");
    assert!(
        err.to_string()
            .starts_with("program instantiation failed: "),
        "{err}"
    );
}

/// The value of an expression evaluated in the stored environment of a version.
fn value_at(version: KubeVersion, mode: EnvMode, expr: &str) -> String {
    let env = Environment::with_mode(version, mode);
    let program = env
        .compile(expr, &matchcond_compiler::CompileOptions::default())
        .unwrap();
    let act = matchcond_runtime::Activation::empty();
    program.evaluate(&act, None).result.unwrap().to_string()
}

/// `%e` follows the golang.org/x/text the binary is built with: v0.23.0 (Kubernetes 1.33)
/// dropped the narrow no-break spaces around the times sign. The binary decides, not the
/// compatibility version of the new-expressions environment.
#[test]
fn scientific_format_follows_the_binarys_x_text() {
    let expr = "'%e'.format([1.5])";
    let unspaced = "\"1.500000×10⁰⁰\"";
    let spaced = "\"1.500000\u{202f}×\u{202f}10⁰⁰\"";
    for minor in 29..=32 {
        let v = KubeVersion::new(1, minor);
        assert_eq!(
            value_at(v, EnvMode::StoredExpressions, expr),
            spaced,
            "1.{minor}"
        );
    }
    for minor in 33..=36 {
        let v = KubeVersion::new(1, minor);
        assert_eq!(
            value_at(v, EnvMode::StoredExpressions, expr),
            unspaced,
            "1.{minor}"
        );
    }
    assert_eq!(
        value_at(KubeVersion::V1_33, EnvMode::NewExpressions, expr),
        unspaced
    );
}

/// Quantity `add`/`sub` change a decimal-backed receiver up to 1.36 (`copy := *q` shares its
/// `*inf.Dec`), and leave it from 1.37 (`q.DeepCopy()`); their results are pointers, which
/// `Quantity.Equal` refuses as its argument in both.
#[test]
fn quantity_add_and_sub_change_their_receiver_up_to_1_36() {
    let changed = "[quantity('1.5Gi')].all(q, q.add(1).isGreaterThan(quantity('1.5Gi')) \
                   && q.isGreaterThan(quantity('1.5Gi')))";
    assert_eq!(
        value_at(KubeVersion::V1_36, EnvMode::StoredExpressions, changed),
        "true"
    );
    assert_eq!(
        value_at(KubeVersion::V1_28, EnvMode::StoredExpressions, changed),
        "true"
    );
    let v1_37 = KubeVersion::new(1, 37);
    assert_eq!(
        value_at(v1_37, EnvMode::StoredExpressions, changed),
        "false"
    );
    // The binary decides, not the compatibility version.
    assert_eq!(value_at(v1_37, EnvMode::NewExpressions, changed), "false");
    for v in [KubeVersion::V1_36, v1_37] {
        let env = Environment::kubernetes(v);
        let program = env
            .compile(
                "quantity('2') == quantity('1').add(1)",
                &matchcond_compiler::CompileOptions::default(),
            )
            .unwrap();
        let act = matchcond_runtime::Activation::empty();
        let err = program.evaluate(&act, None).result.unwrap_err();
        assert_eq!(err.message, "no such overload", "{v}");
    }
}
