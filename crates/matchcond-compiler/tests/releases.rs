//! What each release's apiserver answers where releases differ, one cause per table: the
//! expression, then what each minor version from 1.30 to 1.37 gives (as observed by
//! running that release's k8s.io/apiserver and cel-go on the expression).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use matchcond_compiler::{CompileOptions, Environment, KubeVersion};
use matchcond_runtime::Activation;
use serde_json::json;

/// The outcome of one expression at `1.minor`: `value <v> cost <n>`, `compile: <text>` or
/// `eval: <text>`.
fn outcome(minor: u32, expr: &str) -> String {
    let env = Environment::kubernetes(KubeVersion::new(1, minor));
    let program = match env.compile(expr, &CompileOptions::default()) {
        Ok(p) => p,
        Err(e) => return format!("compile: {e}"),
    };
    let request = json!({
        "uid": "u",
        "kind": {"group": "", "version": "v1", "kind": "Pod"},
        "resource": {"group": "", "version": "v1", "resource": "pods"},
        "operation": "CREATE",
        "userInfo": {"username": "alice"},
        "object": {"metadata": {"name": "web", "labels": {"app": "web"}}}
    });
    let act = Activation::from_request(&request);
    let out = program.evaluate(&act, Some(1_000_000));
    match out.result {
        Ok(v) => format!("value {v:?} cost {}", out.cost),
        Err(e) => format!("eval: {e}"),
    }
}

/// Checks that `expr` gives an outcome starting with `expected` on each listed minor version.
fn story(expr: &str, by_version: &[(&[u32], &str)]) {
    for (minors, expected) in by_version {
        for &minor in *minors {
            let got = outcome(minor, expr);
            assert!(
                got.starts_with(expected),
                "{expr} on 1.{minor}: expected {expected}, got {got}"
            );
        }
    }
}

const ALL: &[u32] = &[30, 31, 32, 33, 34, 35, 36, 37];

#[test]
fn the_empty_substring_is_found_at_the_offset_given() {
    story("'abc'.indexOf('', 10)", &[(ALL, "value Int(10)")]);
    story("'abc'.lastIndexOf('', 10)", &[(ALL, "value Int(10)")]);
    story("'abc'.indexOf('', -1)", &[(ALL, "value Int(-1)")]);
}

#[test]
fn offsets_past_the_end_by_cel_go_release() {
    story(
        "''.indexOf('a')",
        &[
            (&[30, 31], "eval: index out of range: 0"),
            (&[32, 33, 34, 37], "value Int(-1)"),
        ],
    );
    story(
        "''.lastIndexOf('a')",
        &[
            (&[30, 31, 32, 33], "eval: index out of range: -1"),
            (&[34, 35, 36, 37], "value Int(-1)"),
        ],
    );
}

#[test]
fn a_presence_test_after_an_optional_selection_is_charged_when_present() {
    story(
        "has(object.?metadata.deletionTimestamp)",
        &[(ALL, "value Bool(false) cost 1")],
    );
    story(
        "has(object.?metadata.name)",
        &[(ALL, "value Bool(true) cost 2")],
    );
}

#[test]
fn format_messages_follow_the_apimachinery_package_of_the_release() {
    let long = format!("format.labelValue().validate('{}')", "a".repeat(64));
    story(
        &long,
        &[
            (&[31, 32, 33, 34], "value Optional"),
            (&[35, 36, 37], "value Optional"),
        ],
    );
    let text = |minor| outcome(minor, &long);
    assert!(
        text(34).contains("must be no more than 63 characters"),
        "{}",
        text(34)
    );
    assert!(text(35).contains("must be no more than 63 bytes"));
    let q = "format.qualifiedName().validate('/dev/termination-log')";
    assert!(outcome(34, q).contains("a qualified name must consist of"));
    assert!(outcome(35, q).contains("a valid label key must consist of"));
}

#[test]
fn the_optional_type_is_named_optional_on_1_30() {
    story(
        "optional.none() == ''",
        &[
            (&[30], "compile: compilation failed: ERROR: <input>:1:17: found no matching overload for '_==_' applied to '(optional(dyn), string)'"),
            (&[31, 37], "compile: compilation failed: ERROR: <input>:1:17: found no matching overload for '_==_' applied to '(optional_type(dyn), string)'"),
        ],
    );
    story(
        "type(optional.none())",
        &[
            (&[30], "value Type(TypeName(\"optional\"))"),
            (&[31], "value Type(TypeName(\"optional_type\"))"),
        ],
    );
}

#[test]
fn cel_go_0_17_checks_the_target_of_an_optional_macro_twice() {
    // The target is the same node under `hasValue()` and `value()`: checked twice, the
    // generic call gets a second, different type, which cel-go v0.17's type map refuses.
    story(
        "optional.none().optMap(v, type(v))",
        &[
            (
                &[30],
                "compile: compilation failed: ERROR: <input>:1:14: incompatible type already \
                 exists for expression: id:2 call_expr:{function:\"optional.none\"}(2) \
                 old:optional(_var0), new:optional(_var3)\n\
                 \x20| optional.none().optMap(v, type(v))\n\
                 \x20| .............^",
            ),
            (&[31, 32, 33, 34, 35, 36, 37], "value Optional(None)"),
        ],
    );
    // Inside another such macro's target, the inner expansion's own nodes are checked
    // twice too (its empty list, its `optional.none()`), all at the inner macro call.
    let nested = "((request.?subResource).optFlatMap(x, optional.ofNonZeroValue(x)))\
                  .optFlatMap(x, optional.of(x))";
    let caret = format!(" | {nested}\n | {}^", ".".repeat(34));
    story(
        nested,
        &[
            (
                &[30],
                &format!(
                    "compile: compilation failed: ERROR: <input>:1:35: incompatible type \
                     already exists for expression: id:10 list_expr:{{}}(10) old:list(_var1), \
                     new:list(_var9)\n{caret}\nERROR: <input>:1:35: incompatible type already \
                     exists for expression: id:15 call_expr:{{function:\"optional.none\"}}(15) \
                     old:optional(_var4), new:optional(_var12)\n{caret}"
                ),
            ),
            (&[31, 37], "value Optional(None)"),
        ],
    );
    // A target whose types have no fresh type variable checks the same both times.
    story(
        "request.?subResource.optMap(x, x + 'a')",
        &[(ALL, "value Optional(None)")],
    );
}

#[test]
fn cel_go_0_22_leaves_the_second_variable_over_a_dyn_range_untyped() {
    story(
        "object.metadata.labels.all(k, v, size(v) <= 63)",
        &[
            (&[32], "compile: compilation failed: ERROR: <input>:1:38: found no matching overload for 'size' applied to '()'"),
            (&[33, 37], "value Bool(true)"),
        ],
    );
    story(
        "object.missing.all(k, v, true)",
        &[
            (
                &[32],
                "eval: unsupported comprehension range type: *types.Err",
            ),
            (&[33, 37], "eval: no such key: missing"),
        ],
    );
    // Over a typed range both variables have their types.
    story(
        "{'a': 'b'}.all(k, v, size(v) == 1)",
        &[(&[32], "value Bool(true)")],
    );
}

/// cel-go v0.22 leaves the second variable over a `dyn` range untyped: a nil type, which
/// the checker's tests for nil then take for no type at all. A list or map literal whose
/// first elements (keys) are untyped takes its type from the rest, or fresh type variables;
/// an overload whose result is untyped is no match; the homogeneity validator starts over
/// at an untyped element; and an expression that uses the variable without a check error
/// fails converting the checked expression.
#[test]
fn cel_go_0_22_takes_the_untyped_second_variable_for_no_type() {
    story(
        "dyn(['a', 'b']).transformList(i, v, i % 2 == 0, v) == ['a']",
        &[
            (
                &[32],
                "compile: unexpected compilation error: missing type conversion to proto: ",
            ),
            (&[33, 37], "value Bool(true)"),
        ],
    );
    story(
        "object.metadata.labels.transformMapEntry(k, v, {v: k})",
        &[
            (
                &[32],
                "compile: unexpected compilation error: missing type conversion to proto: ",
            ),
            (&[33, 37], "value Map"),
        ],
    );
    // The step's map has an untyped value, which the accumulator's variables do not take;
    // the message shows the accumulator's type with its variables' names.
    story(
        "object.metadata.labels.transformMapEntry(k, v, {k + '_': v})",
        &[
            (&[32], "compile: compilation failed: ERROR: <input>:1:41: expected type 'map(_var0, _var1)' but found 'map(string, )'"),
            (&[33, 37], "value Map"),
        ],
    );
    story(
        "object.metadata.labels.transformMap(k, v, v)",
        &[
            (&[32], "compile: compilation failed: ERROR: <input>:1:36: expected type 'map(_var0, _var1)' but found 'map(dyn, )'"),
            (&[33, 37], "value Map"),
        ],
    );
    // `[v, 1]` is a list of int: the untyped first element counts for nothing.
    story(
        "object.metadata.labels.all(k, v, [v, 1][0] + 'a' != '')",
        &[
            (&[32], "compile: compilation failed: ERROR: <input>:1:44: found no matching overload for '_+_' applied to '(int, string)'"),
            (&[33, 37], "compile: compilation failed: ERROR: <input>:1:38: expected type 'dyn' but found 'int'"),
        ],
    );
    // Indexing `map(string, )` matches `_[_]` with an untyped result: no overload.
    story(
        "object.metadata.labels.all(k, v, {'a': v}['a'] + 1 == 2)",
        &[
            (&[32], "compile: compilation failed: ERROR: <input>:1:42: found no matching overload for '_[_]' applied to '(map(string, ), string)'"),
            (&[33, 37], "eval: no such overload"),
        ],
    );
    // The validator starts over after an untyped element, and compares the keys with the
    // first entry's untyped key when its value is typed.
    story(
        "object.metadata.labels.all(k, v, [v, 1].size() == 2)",
        &[
            (
                &[32],
                "compile: unexpected compilation error: missing type conversion to proto: ",
            ),
            (&[33, 37], "compile: compilation failed: ERROR: <input>:1:38: expected type 'dyn' but found 'int'"),
        ],
    );

    story(
        "object.metadata.labels.all(k, v, {v: 1, 'a': 2}.size() == 2)",
        &[
            (&[32], "compile: compilation failed: ERROR: <input>:1:41: expected type '' but found 'string'"),
            (&[33, 37], "compile: compilation failed: ERROR: <input>:1:41: expected type 'dyn' but found 'string'"),
        ],
    );
    story(
        "object.metadata.labels.all(k, v, [1, v][0] + 'a' != '')",
        &[
            (&[32], "compile: compilation failed: ERROR: <input>:1:38: expected type 'int' but found ''"),
            (&[33, 37], "compile: compilation failed: ERROR: <input>:1:38: expected type 'int' but found 'dyn'"),
        ],
    );
    // Not using the second variable, or over a typed range, nothing changes.
    story(
        "object.metadata.labels.exists(k, v, k == 'app')",
        &[(&[32, 33, 37], "value Bool(true) cost 10")],
    );
    story(
        "['a', 'b'].transformList(i, v, i % 2 == 0, v) == ['a']",
        &[(&[32, 33, 37], "value Bool(true)")],
    );
}

#[test]
fn the_optional_library_version_2_comes_with_cel_go_0_23() {
    story(
        "[0.0].last()",
        &[
            (&[30, 31, 32], "compile: compilation failed: ERROR: <input>:1:11: undeclared reference to 'last' (in container '')"),
            (&[33, 37], "value Optional"),
        ],
    );
}

#[test]
fn optional_sizes_and_accumulators_in_costs() {
    story(
        "optional.of('team-a@example.com') == optional.of('NewReplicaSetAvailable')",
        &[
            (&[30, 31, 32], "value Bool(false) cost 3"),
            (&[33, 37], "value Bool(false) cost 4"),
        ],
    );
    story(
        "optional.of(1).optFlatMap(x, optional.none())",
        &[
            (&[30, 31], "value Optional(None) cost 5"),
            (&[32, 37], "value Optional(None) cost 3"),
        ],
    );
}

#[test]
fn contains_cidr_compared_the_network_address_before_1_32() {
    story(
        "cidr('::/0').containsCIDR('fe80::/10')",
        &[
            (&[30, 31], "value Bool(false)"),
            (&[32, 37], "value Bool(true)"),
        ],
    );
    story(
        "cidr('10.0.0.0/8').containsCIDR('10.0.0.0/16')",
        &[(&[30, 31, 32], "value Bool(true)")],
    );
}

#[test]
fn a_bare_type_name_was_a_missing_attribute_before_1_32() {
    story(
        "duration",
        &[
            (&[30, 31], "eval: no such attribute(s): duration"),
            (
                &[32, 37],
                "compile: program instantiation failed: reference to undefined type: duration",
            ),
        ],
    );
}

#[test]
fn the_parser_of_older_releases() {
    story(
        "'\\ud800'",
        &[
            (&[30, 32], "value String"),
            (
                &[33, 37],
                "compile: compilation failed: ERROR: <input>:1:1: invalid unicode code point",
            ),
        ],
    );
    story(
        "'%.10fx=",
        &[
            (&[30, 32], "compile: compilation failed: ERROR: <input>:1:1: Syntax error: token recognition error at: ''%!f(MISSING)x='"),
            (&[33, 37], "compile: compilation failed: ERROR: <input>:1:1: Syntax error: token recognition error at: ''%.10fx='"),
        ],
    );
    story(
        "",
        &[
            (&[30, 31], "compile: compilation failed: ERROR: <input>:1:1: Syntax error: mismatched input '<EOF>'"),
            (&[32, 37], "compile: compilation failed: ERROR: <input>:1:0: Syntax error: mismatched input '<EOF>'"),
        ],
    );
    // A field missing after `.?`: before cel-go v0.23 the field is a plain IDENTIFIER
    // token, inserted when what follows could follow it; from v0.23 it is a rule
    // (IDENTIFIER or a backquoted name), which does not insert.
    let missing = |at: &str| format!("Syntax error: missing IDENTIFIER at '{at}'");
    let mismatched = |at: &str| {
        format!("Syntax error: mismatched input '{at}' expecting {{IDENTIFIER, ESC_IDENTIFIER}}")
    };
    for (expr, column, at) in [
        ("object.?", 9, "<EOF>"),
        ("(object.?) == 1", 10, ")"),
        ("[object.?]", 10, "]"),
        ("object.? + 1", 10, "+"),
    ] {
        let old = format!(
            "compile: compilation failed: ERROR: <input>:1:{column}: {}",
            missing(at)
        );
        let new = format!(
            "compile: compilation failed: ERROR: <input>:1:{column}: {}",
            mismatched(at)
        );
        story(
            expr,
            &[(&[30, 31, 32], &old), (&[33, 34, 35, 36, 37], &new)],
        );
    }
    // Where nothing can be inserted, the older grammar's own words.
    story(
        "object.?null",
        &[
            (&[30, 31, 32], "compile: compilation failed: ERROR: <input>:1:9: Syntax error: mismatched input 'null' expecting IDENTIFIER\n"),
            (&[33, 37], "compile: compilation failed: ERROR: <input>:1:9: Syntax error: mismatched input 'null' expecting {IDENTIFIER, ESC_IDENTIFIER}"),
        ],
    );
    story(
        "object.??x",
        &[(&[30, 32], "compile: compilation failed: ERROR: <input>:1:9: Syntax error: extraneous input '?' expecting IDENTIFIER\n")],
    );
}

#[test]
fn literals_nested_in_format_arguments_were_checked_on_1_30() {
    story(
        "'%d %f'.format(dyn([1, 2.0]))",
        &[
            (&[30], "compile: compilation failed: ERROR: <input>:1:24: expected type 'int' but found 'double'"),
            (&[31, 37], "value String"),
        ],
    );
}
