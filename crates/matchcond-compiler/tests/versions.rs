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
    ("[1, 2].includes(2)", 37),
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
    for (minors, want) in [(29..=32, spaced), (33..=36, unspaced)] {
        for minor in minors {
            let got = value_at(KubeVersion::new(1, minor), EnvMode::StoredExpressions, expr);
            assert_eq!(got, want, "1.{minor}");
        }
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
    let v1_37 = KubeVersion::V1_37;
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
        assert_eq!(err.message(), "no such overload", "{v}");
    }
}

#[test]
fn the_newest_version_is_the_default() {
    assert_eq!(KubeVersion::LATEST, KubeVersion::V1_37);
    assert_eq!(Environment::latest().version(), KubeVersion::V1_37);
    // 1.37 validates new expressions against 1.36, which has no `includes`.
    let expr = "'model-a'.includes('model-a')";
    assert!(compiles((1, 37), EnvMode::StoredExpressions, expr));
    assert!(!compiles((1, 37), EnvMode::NewExpressions, expr));
    assert!(!compiles((1, 36), EnvMode::StoredExpressions, expr));
}

fn compile_error(version: (u32, u32), mode: EnvMode, expr: &str) -> String {
    Environment::with_mode(KubeVersion::new(version.0, version.1), mode)
        .compile_condition(expr)
        .map(|_| String::from("compiles"))
        .unwrap_or_else(|e| e.to_string())
}

#[test]
fn format_calls_are_validated_from_1_31() {
    let stored = EnvMode::StoredExpressions;
    let expr = "'%v'.format([1]) == ''";
    // cel-go v0.17 (1.30) has no format validator: the error is the evaluation's.
    assert_eq!(compile_error((1, 30), stored, expr), "compiles");
    let want = "compilation failed: ERROR: <input>:1:12: could not parse formatting clause: \
                unrecognized formatting clause \"v\"\n | '%v'.format([1]) == ''\n | ...........^";
    for minor in 31..=37 {
        assert_eq!(compile_error((1, minor), stored, expr), want, "1.{minor}");
    }
    // The validator comes with the binary's cel-go: a 1.31 apiserver validates new
    // expressions against the 1.30 libraries, with the 1.31 validator.
    assert_eq!(compile_error((1, 31), EnvMode::NewExpressions, expr), want);
    assert_eq!(
        compile_error((1, 30), EnvMode::NewExpressions, expr),
        "compiles"
    );
}

#[test]
fn format_messages_are_go_format_strings_on_1_31_and_1_32() {
    // cel-go v0.20 to v0.22 passed the message to Sprintf as the format: the clause `%`
    // followed by the closing quote reads as a verb without argument.
    let expr = "'%.1%'.format([1]) == ''";
    let message = |minor| {
        let e = compile_error((1, minor), EnvMode::StoredExpressions, expr);
        e.lines().next().unwrap_or_default().to_string()
    };
    for minor in [31, 32] {
        assert_eq!(
            message(minor),
            "compilation failed: ERROR: <input>:1:14: could not parse formatting clause: \
             unrecognized formatting clause \"%!\"(MISSING)",
            "1.{minor}"
        );
    }
    for minor in 33..=37 {
        assert_eq!(
            message(minor),
            "compilation failed: ERROR: <input>:1:14: could not parse formatting clause: \
             unrecognized formatting clause \"%\"",
            "1.{minor}"
        );
    }
}

#[test]
fn literal_arguments_of_any_kind_are_validated() {
    let stored = EnvMode::StoredExpressions;
    for (expr, message) in [
        (
            "timestamp(253402300800) == timestamp(0)",
            "invalid timestamp argument",
        ),
        (
            "timestamp(null) == timestamp(0)",
            "invalid timestamp argument",
        ),
        ("duration(1) == duration('1s')", "invalid duration argument"),
        ("'a'.matches('(')", "invalid matches argument"),
    ] {
        assert!(
            compile_error((1, 29), stored, expr).contains(message),
            "{expr}"
        );
        // Before the validators, the constant call fails when the program is built.
        let e = compile_error((1, 28), stored, expr);
        assert!(
            e.starts_with("program instantiation failed: "),
            "{expr}: {e}"
        );
    }
}

#[test]
fn the_wrong_result_type_is_named_from_1_32() {
    // compile.go: `must evaluate to %v` up to 1.31, `must evaluate to %v but got %v` since.
    for (minor, want) in [
        (30, "must evaluate to bool"),
        (31, "must evaluate to bool"),
        (32, "must evaluate to bool but got int"),
        (37, "must evaluate to bool but got int"),
    ] {
        for mode in [EnvMode::StoredExpressions, EnvMode::NewExpressions] {
            assert_eq!(compile_error((1, minor), mode, "1 + 1"), want, "1.{minor}");
        }
    }
}

/// Asserts the compile error of a stored expression in each 1.x of `minors`.
fn stored_error_in(minors: std::ops::RangeInclusive<u32>, expr: &str, want: &str) {
    for minor in minors {
        let got = compile_error((1, minor), EnvMode::StoredExpressions, expr);
        assert_eq!(got, want, "1.{minor}");
    }
}

#[test]
fn macros_accumulate_in_a_hidden_variable_from_1_33() {
    // cel-go before v0.23 expanded macros with the accumulator `__result__`, which an
    // iteration variable of that name shadows; from v0.23 the accumulator is hidden and the
    // name is refused.
    let expr = "[1].all(__result__, true)";
    stored_error_in(
        30..=32,
        expr,
        "compilation failed: ERROR: <input>:1:8: found no matching overload for \
         '@not_strictly_false' applied to '(int)'\n | [1].all(__result__, true)\n | .......^\n\
         ERROR: <input>:1:8: expected type 'bool' but found 'int'\n | [1].all(__result__, true)\n \
         | .......^",
    );
    stored_error_in(
        33..=37,
        expr,
        "compilation failed: ERROR: <input>:1:9: iteration variable overwrites accumulator \
         variable\n | [1].all(__result__, true)\n | ........^",
    );
    // The accumulator's name only matters when an expression names it.
    assert!(compiles(
        (1, 30),
        EnvMode::StoredExpressions,
        "[1, 2].all(x, x > 0)"
    ));
}

fn cost(version: (u32, u32), expr: &str) -> u64 {
    let env = Environment::kubernetes(KubeVersion::new(version.0, version.1));
    let program = env.compile_condition(expr).unwrap();
    let request = serde_json::json!({
        "operation": "CREATE",
        "userInfo": {"username": "alice"},
        "object": {"spec": {"url": "https://example.com/a", "items": [3, 1, 2]}}
    });
    let activation = matchcond_runtime::Activation::from_request(&request).with_authorizer(
        std::sync::Arc::new(matchcond_runtime::authz::StaticAuthorizer::new(
            matchcond_runtime::authz::AuthzDecision::Allow,
        )),
    );
    let out = program.evaluate(&activation, Some(matchcond_compiler::PER_CALL_COST_LIMIT));
    assert!(out.result.is_ok(), "{expr}: {:?}", out.result);
    out.cost
}

#[test]
fn library_calls_are_priced_by_the_kubernetes_estimator_from_1_32() {
    // StrictCostEnforcementForWebhooks (on by default from 1.32) installs the Kubernetes
    // cost estimator; before, cel-go prices every library call at 1.
    let check = "authorizer.group('').resource('pods').check('get').allowed()";
    assert_eq!(cost((1, 31), check), 5);
    assert_eq!(cost((1, 32), check), 350_004);
    let sorted = "object.spec.items.isSorted() || true";
    assert_eq!(cost((1, 31), sorted), 4);
    assert_eq!(cost((1, 32), sorted), 6);
    // cel-go's own defaults stay: startsWith by the receiver's length.
    let starts = "object.spec.url.startsWith('https://')";
    assert_eq!(cost((1, 31), starts), cost((1, 36), starts));
}

#[test]
fn backquoted_names_are_refused_by_every_version() {
    let expr = "object.`foo.bar` == 1";
    // cel-go v0.23+ (1.33+) parses them and refuses them without the escape syntax.
    stored_error_in(
        33..=37,
        expr,
        "compilation failed: ERROR: <input>:1:8: unsupported syntax: '`'\n | object.`foo.bar` == 1\n | .......^",
    );
    // Before, the lexer has no such token.
    for minor in 30..=32 {
        let e = compile_error((1, minor), EnvMode::StoredExpressions, expr);
        assert!(
            e.starts_with("compilation failed: ERROR: <input>:1:8: Syntax error: token recognition error at: '`'"),
            "1.{minor}: {e}"
        );
    }
}

#[test]
fn backquoted_names_are_an_opt_in_where_the_grammar_knows_them() {
    let env = Environment::kubernetes(KubeVersion::V1_37).with_ident_escape_syntax(true);
    let program = env
        .compile_condition("object.`app.kubernetes.io/name` == 'web'")
        .unwrap();
    assert_eq!(
        program.expression(),
        "object.`app.kubernetes.io/name` == 'web'"
    );
    // Turned off again, the apiserver's refusal.
    assert!(env
        .with_ident_escape_syntax(false)
        .compile_condition("object.`a.b` == 1")
        .is_err());
    // 1.32's grammar has no backquote token: the option changes nothing there.
    let old = Environment::kubernetes(KubeVersion::V1_32).with_ident_escape_syntax(true);
    assert!(old.compile_condition("object.`a.b` == 1").is_err());
}
