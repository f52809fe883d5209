//! Every limit of the engine, tested at its edge and far beyond it: expression length,
//! nesting and chain depth, number of conditions, literal sizes, regular expression pattern
//! and compiled sizes, growth of strings and lists (also inside comprehensions), and the
//! cost budgets. Each case runs on a thread with a 2 MiB stack, must end (in a value or the
//! limit's error) and must do so quickly: the checks happen before the work or allocation.
//! (`tests/stack_safety.rs` feeds long and deep inputs of every syntactic form.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use std::sync::OnceLock;
use std::time::Duration;

use matchcond::dispatch::{load_documents, Validator};
use matchcond::limits::{
    MAX_CREATED_SIZE, MAX_LIST_SIZE, MAX_REGEX_PATTERN_SIZE, MAX_STRING_SIZE, REGEX_SIZE_LIMIT,
};
use matchcond::{
    Activation, CompileOptions, Decision, Environment, FailurePolicy, KubeVersion, MatchCondition,
    MatchConditions, Skip, MATCH_CONDITIONS_BUDGET, PER_CALL_COST_LIMIT,
};
use serde_json::{json, Value as Json};

/// How long one case may take in a debug build.
const TIME: Duration = Duration::from_secs(5);

/// Runs `f` on a thread with a 2 MiB stack; it must not overflow, panic or take long.
fn bounded<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    common::bounded(what, TIME, f)
}

/// A request whose object is over 3 MiB: 40,000 items and a 1 MiB string; `oldObject` is
/// an equal copy.
fn big_request() -> &'static Json {
    static REQUEST: OnceLock<Json> = OnceLock::new();
    REQUEST.get_or_init(|| {
        let items: Vec<Json> = (0..40_000)
            .map(|i| json!({"name": format!("item-{i:06}"), "labels": {"app": "web", "tier": "t"}}))
            .collect();
        let object =
            json!({"metadata": {"name": "big"}, "items": items, "blob": "a".repeat(1 << 20)});
        assert!(serde_json::to_string(&object).unwrap().len() > 3 << 20);
        json!({"operation": "CREATE", "object": object.clone(), "oldObject": object})
    })
}

/// Compiles (checked, any result type) and evaluates `expr` over the big request with the
/// apiserver's per-call limit: the value (as debug text) or the error, and the cost.
fn eval(expr: &str) -> (Result<String, String>, u64) {
    let env = Environment::latest();
    let program = match env.compile(expr, &CompileOptions::default()) {
        Ok(p) => p,
        Err(e) => return (Err(e.to_string()), 0),
    };
    let act = Activation::from_request(big_request());
    let out = program.evaluate(&act, Some(PER_CALL_COST_LIMIT));
    (
        out.result
            .map(|v| format!("{v:?}"))
            .map_err(|e| e.to_string()),
        out.cost,
    )
}

/// Evaluates each `(expression, expected result)` on a 2 MiB stack, in bounded time.
fn expect_all(cases: &[(&str, Result<&str, &str>)]) {
    big_request();
    for (expr, want) in cases {
        let e = expr.to_string();
        let (got, cost) = bounded(expr, move || eval(&e));
        let want = want.map(str::to_string).map_err(str::to_string);
        assert_eq!(got, want, "{expr} (cost {cost})");
    }
}

fn compile_error(expr: String) -> String {
    bounded("compile", move || {
        Environment::latest()
            .compile(&expr, &CompileOptions::default())
            .map(|_| ())
            .unwrap_err()
            .to_string()
    })
}

#[test]
fn the_limits_have_their_documented_values() {
    for env in [
        Environment::latest(),
        Environment::kubernetes(KubeVersion::V1_28),
    ] {
        let p = env.parser_options();
        assert_eq!(
            (p.max_expression_size, p.max_recursion_depth),
            (100_000, 250)
        );
        assert_eq!(p.error_reporting_limit, 100);
    }
    assert_eq!(PER_CALL_COST_LIMIT, 1_000_000);
    assert_eq!(MATCH_CONDITIONS_BUDGET, 2_500_000);
    assert_eq!(matchcond::MAX_MATCH_CONDITIONS, 64);
    assert_eq!(MAX_STRING_SIZE, 10_000_000);
    assert_eq!(MAX_LIST_SIZE, 1_000_000);
    assert_eq!(MAX_CREATED_SIZE, 100_000_000);
    assert_eq!(MAX_REGEX_PATTERN_SIZE, 32 * 1024);
    assert_eq!(REGEX_SIZE_LIMIT, 64 << 20);
}

#[test]
fn expression_length_is_limited_to_100000_code_points() {
    // Exactly 100,000 code points (two bytes each) compile and evaluate.
    let inner = "é".repeat(100_000 - "size('') > 0".len());
    let text = format!("size('{inner}') > 0");
    assert_eq!(text.chars().count(), 100_000);
    assert_eq!(
        bounded("100,000 code points", move || eval(&text)).0,
        Ok("Bool(true)".to_string())
    );
    let text = format!("size('{inner}é') > 0");
    assert_eq!(
        compile_error(text),
        "compilation failed: ERROR: <input>:-1:0: expression code point size exceeds limit: size: 100001, limit 100000"
    );
}

#[test]
fn nesting_10000_deep_is_the_recursion_limit() {
    let recursion =
        "compilation failed: ERROR: <input>:-1:0: expression recursion limit exceeded: 250";
    let n = 10_000;
    for text in [
        format!("{}1{} == 1", "(".repeat(n), ")".repeat(n)),
        format!("{}1{} == []", "[".repeat(n), "]".repeat(n)),
        format!("{}1{}", "f(".repeat(n), ")".repeat(n)),
        format!("{}1{} == {{}}", "{1:".repeat(n), "}".repeat(n)),
        format!(
            "{}true{}",
            "[1].all(x, ".repeat(n * 8 / 10),
            ")".repeat(n * 8 / 10)
        ),
    ] {
        assert_eq!(compile_error(text), recursion);
    }
    // Moderate nesting is fine.
    expect_all(&[(
        "((((((((((((((((((((1)))))))))))))))))))) == [[[[[[[[[[1]]]]]]]]]][0][0][0][0][0][0][0][0][0][0]",
        Ok("Bool(true)"),
    )]);
}

#[test]
fn chains_of_100000_code_points_are_the_depth_limit() {
    let depth = "compilation failed: ERROR: <input>:-1:0: max recursion depth exceeded";
    let fill = |unit: &str, head: &str, tail: &str| {
        let n = (100_000 - head.len() - tail.len()) / unit.len();
        format!("{head}{}{tail}", unit.repeat(n))
    };
    for text in [
        fill(".b", "object", " == 1"),
        fill("+1", "1", " == 1"),
        fill("[0]", "object", " == 1"),
        fill(".f()", "object", " == 1"),
        fill(" < 1", "1", ""),
    ] {
        assert!(text.chars().count() <= 100_000);
        assert_eq!(compile_error(text), depth);
    }
    // Logical chains are balanced by the parser, as cel-go balances them.
    let ors = fill(" || false", "true", "");
    assert_eq!(
        bounded("|| chain", move || eval(&ors)).0,
        Ok("Bool(true)".to_string())
    );
}

#[test]
fn a_webhook_has_at_most_64_conditions() {
    let env = Environment::latest();
    let conditions = |n: usize| -> Vec<MatchCondition> {
        (0..n)
            .map(|i| MatchCondition::new(format!("c{i}"), "true"))
            .collect()
    };
    let c64 = MatchConditions::compile(&env, &conditions(64)).unwrap();
    let act = Activation::from_request(big_request());
    assert_eq!(c64.decide(&act, FailurePolicy::Fail), Decision::Call);
    assert_eq!(
        MatchConditions::compile(&env, &conditions(65))
            .unwrap_err()
            .to_string(),
        "matchConditions: Too many: 65: must have at most 64 items"
    );
    // The configuration's validation reports it too.
    let list: Vec<String> = (0..65)
        .map(|i| format!("  - {{name: c{i}, expression: 'true'}}"))
        .collect();
    let yaml = format!(
        "apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {{name: many}}
webhooks:
- name: many.example.com
  clientConfig: {{url: 'https://example.com/'}}
  sideEffects: None
  admissionReviewVersions: [v1]
  matchConditions:
{}
",
        list.join("\n")
    );
    let configs = load_documents(&yaml).unwrap();
    let errors: Vec<String> = Validator::new(KubeVersion::LATEST)
        .validate(&configs[0])
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(
        errors
            .iter()
            .any(|e| e.ends_with("matchConditions: Too many: 65: must have at most 64 items")),
        "{errors:?}"
    );
}

#[test]
fn literals_are_limited_by_the_expression_length() {
    // The largest literals an expression can hold compile and evaluate quickly; constant
    // literals cost nothing.
    let string = format!("size('{}') == 99980", "x".repeat(99_980));
    let list = format!("[{}].size() == 30000", vec!["0"; 30_000].join(","));
    let entries: Vec<String> = (0..9_000).map(|i| format!("{i}:{i}")).collect();
    let map = format!("{{{}}}.size() == 9000", entries.join(","));
    let bytes = format!("size(b'{}') == 24000", "\\xff".repeat(24_000));
    for text in [string, list, map, bytes] {
        let (r, cost) = bounded("literal", move || eval(&text));
        assert_eq!(r, Ok("Bool(true)".to_string()));
        assert!(cost <= 2, "cost {cost}");
    }
    // A repeated key in a large map literal is found (and, as in cel-go, keeps the last
    // value).
    let repeated = format!("{{{},5:6}}.size() == 9000", entries.join(","));
    let (r, _) = bounded("literal", move || eval(&repeated));
    assert_eq!(r, Ok("Bool(true)".to_string()));
    let last = format!("{{{},5:6}}[5] == 6", entries.join(","));
    let (r, _) = bounded("literal", move || eval(&last));
    assert_eq!(r, Ok("Bool(true)".to_string()));
}

#[test]
fn regular_expressions_are_limited_in_pattern_and_compiled_size() {
    let long = "a".repeat(MAX_REGEX_PATTERN_SIZE + 1);
    // A constant pattern is checked when the expression is compiled (literal validation
    // of the newest versions, or when the program is built).
    let constant = format!("'abc'.matches('{long}')");
    // (A source line over 16,384 characters is not quoted in the message.)
    assert_eq!(
        compile_error(constant.clone()),
        "compilation failed: ERROR: <input>:1:15: invalid matches argument"
    );
    let old = Environment::kubernetes(KubeVersion::V1_28);
    assert_eq!(
        old.compile(&constant, &CompileOptions::default())
            .unwrap_err()
            .to_string(),
        "program instantiation failed: regex pattern size exceeds limit: size: 32769, limit 32768"
    );
    // A 30 KB pattern repeated 1000 times exceeds the compiled size (Go's "expression too
    // large"); a pattern from the object that is too long is not compiled at all; one that
    // would exceed the cost limit is not even looked at.
    let (r, _) = bounded("compiled size", || {
        eval("'abc'.matches('(?:' + object.blob.substring(0, 30000) + '){1000}')")
    });
    let msg = r.unwrap_err();
    assert!(
        msg.starts_with("error parsing regexp: expression too large: `(?:aaaa"),
        "{}",
        &msg[..100]
    );
    expect_all(&[
        (
            "'abc'.matches(object.blob.substring(0, 40000))",
            Err("regex pattern size exceeds limit: size: 40000, limit 32768"),
        ),
        (
            "'abc'.find(object.blob.substring(0, 40000)) == ''",
            Err("Illegal regex: regex pattern size exceeds limit: size: 40000, limit 32768"),
        ),
        (
            "object.blob.matches(object.blob)",
            Err("operation cancelled: actual cost limit exceeded"),
        ),
        // A 1 MiB string is matched in linear time.
        ("object.blob.matches('^(a|b)*c$')", Ok("Bool(false)")),
        ("object.blob.matches('^(a+)+$')", Ok("Bool(true)")),
    ]);
}

/// `[1, 2].map(x0, [1, 2].map(x1, ... inner))`, `n` deep.
fn nested_maps(n: usize, inner: &str) -> String {
    (0..n).fold(inner.to_string(), |acc, i| {
        format!("[1, 2].map(x{i}, {acc})")
    })
}

/// `[seed].map(v0, [v0 + v0].map(v1, ... size(vN) > 0))`: the value doubles at each level.
fn doubling(seed: &str, n: usize) -> String {
    let mut s = format!("size(v{n}) > 0");
    for i in (1..=n).rev() {
        s = format!("[v{p} + v{p}].map(v{i}, {s})", p = i - 1);
    }
    format!("[{seed}].map(v0, {s}).size() > 0")
}

#[test]
fn exponential_comprehensions_end_at_a_limit() {
    let cost = Err("operation cancelled: actual cost limit exceeded");
    let list_doubling = doubling("[0]", 30);
    let string_doubling = doubling("'a'", 30);
    let nested20 = nested_maps(20, "1") + " == []";
    let nested30 = nested_maps(30, "x0 + x1") + " == []";
    let all30 = (0..30).fold("true".to_string(), |acc, i| {
        format!("[1, 2].all(y{i}, {acc})")
    });
    expect_all(&[
        // 2^20 and 2^30 iterations: the cost limit ends them.
        (&nested20, cost),
        (&nested30, cost),
        (&all30, cost),
        // A list that doubles reaches the list size limit before it is built.
        (
            &list_doubling,
            Err("list size exceeds limit: size: 1048576, limit 1000000"),
        ),
        // A string that doubles reaches the cost limit: the concatenation that would
        // exceed it is not made.
        (&string_doubling, cost),
    ]);
}

#[test]
fn strings_and_lists_cannot_grow_past_their_limits() {
    let replace = (0..6).fold("'aaaaaaaaaa'".to_string(), |acc, _| {
        format!("{acc}.replace('', '{}')", "a".repeat(53))
    }) + ".size() > 0";
    let concat = ["object.blob"; 11].join(" + ") + " != ''";
    let flatten = format!(
        "[lists.range(1000)].all(l, [{}].flatten().size() > 0)",
        vec!["l"; 1001].join(", ")
    );
    expect_all(&[
        (
            &replace,
            Err("string size exceeds limit: size: 93533615, limit 10000000"),
        ),
        (
            &concat,
            Err("string size exceeds limit: size: 10485760, limit 10000000"),
        ),
        (
            "lists.range(1000).map(i, object.blob).join().size() > 0",
            Err("string size exceeds limit: size: 10485760, limit 10000000"),
        ),
        (
            "'%s'.format([lists.range(1000).map(i, object.blob)]).size() > 0",
            Err("error during formatting: string size exceeds limit: size: 10485782, limit 10000000"),
        ),
        (
            "strings.quote(object.blob.replace('a', '\\n')).size() > 0",
            Ok("Bool(true)"),
        ),
        (
            "lists.range(2000000).size() > 0",
            Err("list size exceeds limit: size: 2000000, limit 1000000"),
        ),
        (
            "object.blob.split('').size() > 0",
            Err("list size exceeds limit: size: 1048576, limit 1000000"),
        ),
        (
            &flatten,
            Err("list size exceeds limit: size: 1000001, limit 1000000"),
        ),
        (
            "[lists.range(600000)].all(l, size(l + l) > 0)",
            Err("list size exceeds limit: size: 1200000, limit 1000000"),
        ),
        // Copies made again and again end at the limit on what one evaluation creates.
        (
            "[lists.range(400000)].all(big, lists.range(100000).all(i, size(big + big) > 0))",
            Err("operation cancelled: created values size limit exceeded: limit 100000000"),
        ),
    ]);
}

#[test]
fn comprehension_results_grow_in_linear_time() {
    // The accumulator is extended in place: 60,000 iterations, not 60,000 copies.
    expect_all(&[
        (
            "lists.range(60000).map(x, x).size() == 60000",
            Ok("Bool(true)"),
        ),
        (
            "lists.range(60000).filter(x, x % 2 == 0).size() == 30000",
            Ok("Bool(true)"),
        ),
        (
            "lists.range(30000).transformMap(i, x, x * 2).size() == 30000",
            Ok("Bool(true)"),
        ),
        (
            "lists.range(30000).transformList(i, x, x).size() == 30000",
            Ok("Bool(true)"),
        ),
        // Left-nested concatenations extend the new list in place.
        (
            &(String::from("(lists.range(100000)")
                + &" + lists.range(10)".repeat(200)
                + ").size() == 102000"),
            Ok("Bool(true)"),
        ),
    ]);
}

#[test]
fn a_3_mib_object_is_evaluated_within_the_budget() {
    let cost = Err("operation cancelled: actual cost limit exceeded");
    expect_all(&[
        (
            "object.items.all(i, i.name.startsWith('item'))",
            Ok("Bool(true)"),
        ),
        ("object == oldObject", Ok("Bool(true)")),
        (
            "object.items.exists(i, i.name.matches('^x'))",
            Ok("Bool(false)"),
        ),
        (
            "object.items.map(i, i.labels.app + i.name).filter(n, n.startsWith('web')).size() > 0",
            cost,
        ),
        (
            "object.items.all(i, object.items.exists(j, j.name == i.name))",
            cost,
        ),
        // Shapes of the fast tier: it gives up at the limit within the loop.
        (
            "object.items.all(i, object.items.exists(j, j.name == 'item-039999'))",
            cost,
        ),
        (
            "object.items.all(i, object.items.all(j, has(j.labels) && 'app' in j.labels))",
            cost,
        ),
        (
            "object.items.transformMap(i, x, x.name).size() > 0",
            Ok("Bool(true)"),
        ),
        (
            "object.items.map(i, i).filter(x, x.name != '').map(x, x).size() > 0",
            cost,
        ),
    ]);
}

#[test]
fn the_per_call_cost_limit_is_inclusive() {
    // lists.range(n) costs n + 11, size() and == one each.
    let (r, c) = bounded("at the limit", || {
        eval("size(lists.range(999987)) == 999987")
    });
    assert_eq!((r, c), (Ok("Bool(true)".to_string()), 1_000_000));
    let (r, c) = bounded("over the limit", || {
        eval("size(lists.range(999988)) == 999988")
    });
    assert_eq!(
        (r, c),
        (
            Err("operation cancelled: actual cost limit exceeded".to_string()),
            1_000_001
        )
    );
}

#[test]
fn the_conditions_of_a_webhook_share_one_budget() {
    bounded("budget", || {
        let env = Environment::latest();
        // Each condition costs 900,013: two fit in 2,500,000, the third does not.
        let c = |name: &str| MatchCondition::new(name, "size(lists.range(900000)) > 0");
        let act = Activation::from_request(big_request());
        let two = MatchConditions::compile(&env, &[c("a"), c("b")]).unwrap();
        let report = two.explain(&act, FailurePolicy::Fail);
        assert_eq!(
            (report.decision, report.total_cost),
            (Decision::Call, 1_800_026)
        );
        let three = MatchConditions::compile(&env, &[c("a"), c("b"), c("c")]).unwrap();
        assert_eq!(
            three.decide(&act, FailurePolicy::Fail),
            Decision::Reject {
                message: "validation failed due to running out of cost budget, no further validation rules will be run".into()
            }
        );
        let Decision::Skip(Skip::Ignored(e)) = three.decide(&act, FailurePolicy::Ignore) else {
            panic!("not an ignored error");
        };
        assert_eq!(
            (e.condition(), e.out_of_budget()),
            ("c", true),
            "{}",
            e.message()
        );
    });
}
