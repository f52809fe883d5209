//! Parser tests: the reference implementation's parser test table, exact error
//! rendering, node locations, literals, macro expansions, limits and stack safety.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use common::celgo_cases::celgo_parser_cases;
use common::debug::{strip, with_kinds, with_offsets};
use common::hostile_inputs;
use matchcond_front::ast::{ExprKind, Literal};
use matchcond_front::{parse, ParserOptions};

/// The options of the reference parser tests: recursion depth 32, 4 recovery attempts,
/// 4 lookahead tokens, the parser's own macros (with the one-variable `existsOne`), no
/// optional syntax, backquoted names accepted.
fn test_options() -> ParserOptions {
    ParserOptions {
        max_recursion_depth: 32,
        error_recovery_limit: 4,
        error_recovery_lookahead_limit: 4,
        enable_optional_syntax: false,
        enable_two_var_comprehensions: false,
        enable_lists_macros: false,
        enable_exists_one_alias: true,
        enable_ident_escape_syntax: true,
        ..ParserOptions::default()
    }
}

fn parse_str(src: &str, opts: &ParserOptions) -> Result<String, String> {
    parse(src, opts)
        .map(|p| with_kinds(&p.expr))
        .map_err(|e| e.to_string())
}

/// Inputs of the reference table whose expected output this parser does not reproduce.
const KNOWN_DIFFERENCES: &[&str] = &[];

#[test]
fn reference_parser_table() {
    let mut failures = Vec::new();
    let mut passed = 0;
    let mut skipped = 0;
    let cases = celgo_parser_cases();
    assert_eq!(cases.len(), 194);
    for case in &cases {
        let (input, opts_text) = (case.input.as_str(), case.options.as_str());
        let (want_tree, want_err) = (case.tree.as_str(), case.error.as_str());
        if opts_text.contains("NewGlobalVarArgMacro") {
            skipped += 1;
            continue;
        }
        let mut opts = test_options();
        if opts_text.contains("EnableIdentEscapeSyntax(false)") {
            opts.enable_ident_escape_syntax = false;
        }
        if opts_text.contains("EnableHiddenAccumulatorName(false)") {
            opts.enable_hidden_accumulator_name = false;
        }
        if opts_text.contains("EnableOptionalSyntax(true)") {
            opts.enable_optional_syntax = true;
        }
        if opts_text.contains("ErrorReportingLimit(2)") {
            opts.error_reporting_limit = 2;
        }
        if opts_text.contains("ErrorRecoveryLimit(10)") {
            opts.error_recovery_limit = 10;
            opts.error_recovery_lookahead_limit = 10;
        }
        let got = parse_str(input, &opts);
        let ok = match (&got, want_err.is_empty()) {
            (Ok(tree), true) => strip(tree) == strip(want_tree),
            (Err(e), false) => strip(e) == strip(want_err),
            _ => false,
        };
        let known = KNOWN_DIFFERENCES.contains(&input);
        if ok {
            assert!(!known, "listed as a known difference but passes: {input}");
            passed += 1;
        } else if known {
            skipped += 1;
        } else {
            failures.push(format!(
                "INPUT: {input}\nGOT:  {}\nWANT: {}\n",
                match &got {
                    Ok(t) => t.clone(),
                    Err(e) => e.clone(),
                },
                if want_err.is_empty() {
                    want_tree
                } else {
                    want_err
                }
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures ({passed} passed, {skipped} skipped):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(passed > 150, "{passed}");
}

// ---------------------------------------------------------------------------------------
// Stack safety: every input up to the size limit parses (or fails) on a 2 MiB stack.

fn on_small_stack<F: FnOnce() + Send + 'static>(f: F) {
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

/// The deepest trees the default limits accept.
fn deepest_valid_inputs() -> Vec<(String, String)> {
    let k = 248;
    vec![
        (
            "calls around a select chain".into(),
            format!("{}x{}{}", "f(".repeat(k), ".a".repeat(k), ")".repeat(k)),
        ),
        (
            "lists around an index chain".into(),
            format!("{}x{}{}", "[".repeat(k), "[0]".repeat(k), "]".repeat(k)),
        ),
        (
            "negations around arithmetic".into(),
            format!("{}1{}{}", "-(".repeat(k), "+1".repeat(k), ")".repeat(k)),
        ),
        ("ternaries".into(), format!("{}c", "a?b:".repeat(k))),
        (
            "maps around member calls".into(),
            format!("{}x{}{}", "{1:".repeat(k), ".f()".repeat(k), "}".repeat(k)),
        ),
        (
            "macros".into(),
            format!("{}x{}", "x.exists(y,".repeat(k / 2), ")".repeat(k / 2)),
        ),
    ]
}

#[test]
fn deepest_valid_trees_on_a_small_stack() {
    on_small_stack(|| {
        for (name, input) in deepest_valid_inputs() {
            let r = parse(&input, &ParserOptions::default());
            assert!(r.is_ok(), "{name}: {}", r.unwrap_err());
            let cloned = r.clone();
            drop(r);
            drop(cloned);
        }
    });
}

#[test]
fn hostile_inputs_on_a_small_stack() {
    on_small_stack(|| {
        for (name, input) in hostile_inputs() {
            assert!(input.chars().count() <= 100_000, "{name}");
            let r = parse(&input, &ParserOptions::default());
            // Render errors too: rendering must be safe as well.
            if let Err(e) = &r {
                assert!(!e.to_string().is_empty(), "{name}");
            }
            drop(r);
        }
    });
}

// ---------------------------------------------------------------------------------------
// The cel-spec conformance suites: every expression (and binding) of a case that is not
// skipped must parse; parse.yaml is the suite dedicated to the parser.

/// `../shared/conformance/cel-spec` beside the repository, when present. Absent, the tests
/// that read it pass without it, unless `MATCHCOND_REQUIRE_SHARED` is set (as CI sets it).
fn spec_dir() -> Option<std::path::PathBuf> {
    let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = base
        .ancestors()
        .map(|a| a.join("shared/conformance/cel-spec"))
        .find(|p| p.join("parse.yaml").exists());
    assert!(
        found.is_some() || std::env::var_os("MATCHCOND_REQUIRE_SHARED").is_none(),
        "../shared/conformance/cel-spec is required (MATCHCOND_REQUIRE_SHARED is set) but not found"
    );
    found
}

fn spec_expressions(file: &std::path::Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(file).unwrap();
    let doc: serde_yaml_ng::Value = serde_yaml_ng::from_str(&text).unwrap();
    let mut out = Vec::new();
    for case in doc["cases"].as_sequence().unwrap() {
        if case.get("skip").is_some() {
            continue;
        }
        let name = case["name"].as_str().unwrap().to_string();
        if let Some(e) = case.get("expression").and_then(|e| e.as_str()) {
            out.push((name.clone(), e.to_string()));
        }
        if let Some(b) = case.get("bindings").and_then(|b| b.as_mapping()) {
            for (k, v) in b {
                out.push((
                    format!("{name} binding {}", k.as_str().unwrap()),
                    v.as_str().unwrap().to_string(),
                ));
            }
        }
    }
    out
}

#[test]
fn cel_spec_parse_suite() {
    let Some(dir) = spec_dir() else {
        eprintln!("cel-spec suites not found; skipping");
        return;
    };
    let cases = spec_expressions(&dir.join("parse.yaml"));
    assert!(cases.len() > 150, "{}", cases.len());
    let mut failures = Vec::new();
    for (name, expr) in &cases {
        if let Err(e) = parse(expr, &ParserOptions::default()) {
            failures.push(format!("{name}: {expr}\n{e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn cel_spec_all_suites_parse() {
    let Some(dir) = spec_dir() else {
        eprintln!("cel-spec suites not found; skipping");
        return;
    };
    let mut failures = Vec::new();
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") {
            for (name, expr) in spec_expressions(&path) {
                count += 1;
                let options = ParserOptions {
                    enable_ident_escape_syntax: true,
                    ..ParserOptions::default()
                };
                if let Err(e) = parse(&expr, &options) {
                    failures.push(format!("{}: {name}: {expr}\n{e}", path.display()));
                }
            }
        }
    }
    assert!(count > 1000, "{count}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// ---------------------------------------------------------------------------------------
// Targeted expectations.

fn tree(src: &str) -> String {
    strip(&with_kinds(
        &parse(src, &ParserOptions::default()).unwrap().expr,
    ))
}

fn offsets(src: &str) -> String {
    strip(&with_offsets(
        &parse(src, &ParserOptions::default()).unwrap().expr,
    ))
}

fn error(src: &str, opts: &ParserOptions) -> String {
    parse(src, opts).unwrap_err().to_string()
}

#[test]
fn kubernetes_missing_bracket() {
    assert_eq!(
        error("object.x in [1, 2,", &ParserOptions::default()),
        "ERROR: <input>:1:19: Syntax error: missing ']' at '<EOF>'\n | object.x in [1, 2,\n | ..................^"
    );
}

#[test]
fn exact_error_rendering() {
    let d = ParserOptions::default();
    assert_eq!(
        error("a | b", &d),
        "ERROR: <input>:1:3: Syntax error: token recognition error at: '| '\n | a | b\n | ..^\n\
         ERROR: <input>:1:5: Syntax error: extraneous input 'b' expecting <EOF>\n | a | b\n | ....^"
    );
    assert_eq!(
        error("a.b(", &d),
        "ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | a.b(\n | ....^"
    );
    assert_eq!(
        error("{'a' 1}", &d),
        "ERROR: <input>:1:6: Syntax error: missing ':' at '1'\n | {'a' 1}\n | .....^"
    );
    assert_eq!(
        error("a.", &d),
        "ERROR: <input>:1:3: Syntax error: no viable alternative at input '.'\n | a.\n | ..^"
    );
    assert_eq!(
        error("x.false", &d),
        "ERROR: <input>:1:3: Syntax error: mismatched input 'false' expecting IDENTIFIER\n | x.false\n | ..^"
    );
    assert_eq!(
        error("9223372036854775808", &d),
        "ERROR: <input>:1:1: invalid int literal\n | 9223372036854775808\n | ^"
    );
    assert_eq!(
        error("'\\400'", &d),
        "ERROR: <input>:1:1: Syntax error: token recognition error at: ''\\4'\n | '\\400'\n | ^\n\
         ERROR: <input>:1:6: Syntax error: token recognition error at: '''\n | '\\400'\n | .....^"
    );
    assert_eq!(
        error("in == 1", &d),
        "ERROR: <input>:1:1: Syntax error: mismatched input 'in' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | in == 1\n | ^\n\
         ERROR: <input>:1:4: Syntax error: extraneous input '==' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | in == 1\n | ...^"
    );
    assert_eq!(
        error("while", &d),
        "ERROR: <input>:1:1: reserved identifier: while\n | while\n | ^"
    );
}

#[test]
fn node_offsets() {
    assert_eq!(offsets("a.b(c)"), strip("a^#1@0#.b(c^#3@4#)^#2@3#"));
    assert_eq!(
        offsets("f(x) + -y"),
        strip("_+_(f(x^#2@2#)^#1@1#, -_(y^#5@8#)^#4@7#)^#3@5#")
    );
    assert_eq!(
        offsets("x[0].y"),
        strip("_[_](x^#1@0#, 0^#3@2#)^#2@1#.y^#4@4#")
    );
    assert_eq!(
        offsets("a ? [1] : {'k': !b}"),
        strip("_?_:_(a^#1@0#, [1^#4@5#]^#3@4#, {\"k\"^#7@11#: !_(b^#9@17#)^#8@16#^#6@14#}^#5@10#)^#2@2#")
    );
    assert_eq!(offsets("M{f: 1}"), strip("M{f:1^#3@5#^#2@3#}^#1@1#"));
    assert_eq!(offsets("has(a.b)"), strip("a^#2@4#.b~test-only~^#4@3#"));
    // Multi-byte characters: offsets are byte offsets.
    assert_eq!(offsets("'é' + x"), strip("_+_(\"é\"^#1@0#, x^#3@7#)^#2@5#"));
}

#[test]
fn literals() {
    let lit = |s: &str| parse(s, &ParserOptions::default()).unwrap().expr.kind;
    assert_eq!(
        lit("-9223372036854775808"),
        ExprKind::Literal(Literal::Int(i64::MIN))
    );
    assert_eq!(lit("0x1u"), ExprKind::Literal(Literal::Uint(1)));
    assert_eq!(
        lit("18446744073709551615u"),
        ExprKind::Literal(Literal::Uint(u64::MAX))
    );
    assert_eq!(lit("-0x10"), ExprKind::Literal(Literal::Int(-16)));
    assert_eq!(lit("1e3"), ExprKind::Literal(Literal::Double(1000.0)));
    assert_eq!(lit(".5"), ExprKind::Literal(Literal::Double(0.5)));
    assert_eq!(lit("1.5e-3"), ExprKind::Literal(Literal::Double(0.0015)));
    assert_eq!(lit("-2.5"), ExprKind::Literal(Literal::Double(-2.5)));
    assert_eq!(
        lit(r"r'\n'"),
        ExprKind::Literal(Literal::String("\\n".into()))
    );
    assert_eq!(
        lit(r"b'\xFF\101'"),
        ExprKind::Literal(Literal::Bytes(vec![0xFF, 0x41]))
    );
    assert_eq!(
        lit(r"'\xFF'"),
        ExprKind::Literal(Literal::String("\u{FF}".into()))
    );
    assert_eq!(
        lit(r"b'é'"),
        ExprKind::Literal(Literal::Bytes("é".as_bytes().to_vec()))
    );
    assert_eq!(
        lit("'''a'b\nc'''"),
        ExprKind::Literal(Literal::String("a'b\nc".into()))
    );
    assert_eq!(
        lit(r#""""x""""#),
        ExprKind::Literal(Literal::String("x".into()))
    );
    assert_eq!(
        lit(r"BR'\d'"),
        ExprKind::Literal(Literal::Bytes(b"\\d".to_vec()))
    );
    assert_eq!(lit("null"), ExprKind::Literal(Literal::Null));
    assert_eq!(lit("--1"), ExprKind::Literal(Literal::Int(1)));
    let d = ParserOptions::default();
    assert!(error("18446744073709551616u", &d).contains("invalid uint literal"));
    assert!(error("1e999", &d).contains("invalid double literal"));
    assert!(error(r"b'\u00ff'", &d).contains("unable to unescape string"));
}

#[test]
fn escaped_identifiers_and_optionals() {
    let escapes = ParserOptions {
        enable_ident_escape_syntax: true,
        ..ParserOptions::default()
    };
    let tree = |src: &str| strip(&with_kinds(&parse(src, &escapes).unwrap().expr));
    assert_eq!(
        tree("a.`b-c`"),
        strip("a^#1:*expr.Expr_IdentExpr#.b-c^#2:*expr.Expr_SelectExpr#")
    );
    assert_eq!(
        tree("a.?`b c`"),
        strip("_?._(a^#1:*expr.Expr_IdentExpr#, \"b c\"^#2:*expr.Constant_StringValue#)^#3:*expr.Expr_CallExpr#")
    );
    assert_eq!(
        tree("M{?`x.y`: 1}"),
        strip("M{?x.y:1^#3:*expr.Constant_Int64Value#^#2:*expr.Expr_CreateStruct_Entry#}^#1:*expr.Expr_StructExpr#")
    );
    // Without the escape syntax (every apiserver environment), a backquoted name is an
    // error where it stands, in a selection or a field initialiser.
    let d = ParserOptions::default();
    assert_eq!(
        error("object.`foo.bar`", &d),
        "ERROR: <input>:1:8: unsupported syntax: '`'\n | object.`foo.bar`\n | .......^"
    );
    assert_eq!(
        error("a.?`b c` || x.`y`", &d),
        "ERROR: <input>:1:4: unsupported syntax: '`'\n | a.?`b c` || x.`y`\n | ...^\n\
         ERROR: <input>:1:15: unsupported syntax: '`'\n | a.?`b c` || x.`y`\n | ..............^"
    );
    assert_eq!(
        error("M{`x`: 1, y: 2}", &d),
        "ERROR: <input>:1:3: unsupported syntax: '`'\n | M{`x`: 1, y: 2}\n | ..^"
    );
    // The grammar before cel-go v0.23 has no backquoted names: a backquote is a character
    // no token starts with, and no error expects one.
    let old = ParserOptions {
        backquote_tokens: false,
        ..ParserOptions::default()
    };
    assert_eq!(
        error("object.`foo.bar`", &old),
        "ERROR: <input>:1:8: Syntax error: token recognition error at: '`'\n | object.`foo.bar`\n | .......^\n\
         ERROR: <input>:1:16: Syntax error: token recognition error at: '`'\n | object.`foo.bar`\n | ...............^"
    );
    // Its field after `.?` is a token, inserted by inline recovery where what follows may
    // follow it; the newer grammar's rule does not insert.
    assert_eq!(
        error("a.?", &old),
        "ERROR: <input>:1:4: Syntax error: missing IDENTIFIER at '<EOF>'\n | a.?\n | ...^"
    );
    assert_eq!(
        error("a.?null", &old),
        "ERROR: <input>:1:4: Syntax error: mismatched input 'null' expecting IDENTIFIER\n | a.?null\n | ...^"
    );
    assert_eq!(
        error("a.?", &d),
        "ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting {IDENTIFIER, ESC_IDENTIFIER}\n | a.?\n | ...^"
    );
    assert!(parse("'`' + a.b", &old).is_ok());
    let p = parse("[a, ?b, ?c]", &ParserOptions::default()).unwrap();
    match p.expr.kind {
        ExprKind::List {
            optional_indices, ..
        } => assert_eq!(optional_indices, vec![1, 2]),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        tree("a[?0]"),
        strip("_[?_](a^#1:*expr.Expr_IdentExpr#, 0^#3:*expr.Constant_Int64Value#)^#2:*expr.Expr_CallExpr#")
    );
}

#[test]
fn two_variable_comprehensions() {
    assert_eq!(
        tree("m.all(k, v, k == v)"),
        strip(
            "__comprehension__(//Variable\nk,v,//Target\nm^#1:*expr.Expr_IdentExpr#,//Accumulator\n@result,//Init\n\
             true^#8:*expr.Constant_BoolValue#,//LoopCondition\n\
             @not_strictly_false(@result^#9:*expr.Expr_IdentExpr#)^#10:*expr.Expr_CallExpr#,//LoopStep\n\
             _&&_(@result^#11:*expr.Expr_IdentExpr#,_==_(k^#5:*expr.Expr_IdentExpr#,v^#7:*expr.Expr_IdentExpr#)^#6:*expr.Expr_CallExpr#)^#12:*expr.Expr_CallExpr#,//Result\n\
             @result^#13:*expr.Expr_IdentExpr#)^#14:*expr.Expr_ComprehensionExpr#"
        )
    );
    assert_eq!(
        tree("[1].transformList(i, v, i > 0, v * 2)"),
        strip(
            "__comprehension__(//Variable\ni,v,//Target\n[1^#2:*expr.Constant_Int64Value#]^#1:*expr.Expr_ListExpr#,//Accumulator\n@result,//Init\n\
             []^#17:*expr.Expr_ListExpr#,//LoopCondition\ntrue^#18:*expr.Constant_BoolValue#,//LoopStep\n\
             _?_:_(_>_(i^#6:*expr.Expr_IdentExpr#,0^#8:*expr.Constant_Int64Value#)^#7:*expr.Expr_CallExpr#,\
             _+_(@result^#12:*expr.Expr_IdentExpr#,[_*_(v^#9:*expr.Expr_IdentExpr#,2^#11:*expr.Constant_Int64Value#)^#10:*expr.Expr_CallExpr#]^#13:*expr.Expr_ListExpr#)^#14:*expr.Expr_CallExpr#,\
             @result^#15:*expr.Expr_IdentExpr#)^#16:*expr.Expr_CallExpr#,//Result\n\
             @result^#19:*expr.Expr_IdentExpr#)^#20:*expr.Expr_ComprehensionExpr#"
        )
    );
    assert_eq!(
        tree("{'a': 1}.transformMap(k, v, v + 1)"),
        strip(
            "__comprehension__(//Variable\nk,v,//Target\n{\"a\"^#3:*expr.Constant_StringValue#:1^#4:*expr.Constant_Int64Value#^#2:*expr.Expr_CreateStruct_Entry#}^#1:*expr.Expr_StructExpr#,//Accumulator\n@result,//Init\n\
             {}^#14:*expr.Expr_StructExpr#,//LoopCondition\ntrue^#15:*expr.Constant_BoolValue#,//LoopStep\n\
             cel.@mapInsert(@result^#11:*expr.Expr_IdentExpr#,k^#12:*expr.Expr_IdentExpr#,_+_(v^#8:*expr.Expr_IdentExpr#,1^#10:*expr.Constant_Int64Value#)^#9:*expr.Expr_CallExpr#)^#13:*expr.Expr_CallExpr#,//Result\n\
             @result^#16:*expr.Expr_IdentExpr#)^#17:*expr.Expr_ComprehensionExpr#"
        )
    );
    let d = ParserOptions::default();
    assert!(error("m.exists(k, k, true)", &d)
        .starts_with("ERROR: <input>:1:13: duplicate variable name: k"));
    assert!(error("m.all(k.a, v, true)", &d)
        .starts_with("ERROR: <input>:1:8: argument must be a simple name"));
    assert!(error("m.all(k, @result, true)", &d).contains("Syntax error"));
    // Without the extension the three-argument forms are plain calls.
    let off = ParserOptions {
        enable_two_var_comprehensions: false,
        ..ParserOptions::default()
    };
    let p = parse("m.all(k, v, true)", &off).unwrap();
    assert!(matches!(p.expr.kind, ExprKind::Call { ref function, .. } if function == "all"));
}

#[test]
fn sort_by_and_optional_macros() {
    assert_eq!(
        tree("[3, 1].sortBy(x, -x)"),
        strip(
            "__comprehension__(//Variable\n#unused,//Target\n[]^#19:*expr.Expr_ListExpr#,//Accumulator\n@__sortBy_input__,//Init\n\
             [3^#2:*expr.Constant_Int64Value#,1^#3:*expr.Constant_Int64Value#]^#1:*expr.Expr_ListExpr#,//LoopCondition\n\
             false^#20:*expr.Constant_BoolValue#,//LoopStep\n@__sortBy_input__^#8:*expr.Expr_IdentExpr#,//Result\n\
             @__sortBy_input__^#17:*expr.Expr_IdentExpr#.@sortByAssociatedKeys(__comprehension__(//Variable\nx,//Target\n\
             @__sortBy_input__^#9:*expr.Expr_IdentExpr#,//Accumulator\n@result,//Init\n[]^#10:*expr.Expr_ListExpr#,//LoopCondition\n\
             true^#11:*expr.Constant_BoolValue#,//LoopStep\n_+_(@result^#12:*expr.Expr_IdentExpr#,[-_(x^#7:*expr.Expr_IdentExpr#)^#6:*expr.Expr_CallExpr#]^#13:*expr.Expr_ListExpr#)^#14:*expr.Expr_CallExpr#,//Result\n\
             @result^#15:*expr.Expr_IdentExpr#)^#16:*expr.Expr_ComprehensionExpr#)^#18:*expr.Expr_CallExpr#)^#21:*expr.Expr_ComprehensionExpr#"
        )
    );
    assert_eq!(
        tree("o.optMap(x, x + 1)"),
        strip(
            "_?_:_(o^#1:*expr.Expr_IdentExpr#.hasValue()^#7:*expr.Expr_CallExpr#,optional.of(__comprehension__(//Variable\n#unused,//Target\n\
             []^#8:*expr.Expr_ListExpr#,//Accumulator\nx,//Init\no^#9:*expr.Expr_IdentExpr#.value()^#10:*expr.Expr_CallExpr#,//LoopCondition\n\
             false^#11:*expr.Constant_BoolValue#,//LoopStep\nx^#12:*expr.Expr_IdentExpr#,//Result\n\
             _+_(x^#4:*expr.Expr_IdentExpr#,1^#6:*expr.Constant_Int64Value#)^#5:*expr.Expr_CallExpr#)^#13:*expr.Expr_ComprehensionExpr#)^#14:*expr.Expr_CallExpr#,\
             optional.none()^#15:*expr.Expr_CallExpr#)^#16:*expr.Expr_CallExpr#"
        )
    );
    let d = ParserOptions::default();
    assert!(error("1.sortBy(x, x)", &d).starts_with(
        "ERROR: <input>:1:1: sortBy can only be applied to a list, identifier, comprehension, call or select expression"
    ));
    assert!(error("o.optMap(x.y, 1)", &d)
        .starts_with("ERROR: <input>:1:11: optMap() variable name must be a simple identifier"));
    assert!(error("o.optFlatMap(1, 1)", &d).starts_with(
        "ERROR: <input>:1:14: optFlatMap() variable name must be a simple identifier"
    ));
}

#[test]
fn limits() {
    let small = ParserOptions {
        max_expression_size: 2,
        ..ParserOptions::default()
    };
    assert_eq!(
        error("foo", &small),
        "ERROR: <input>:-1:0: expression code point size exceeds limit: size: 3, limit 2"
    );
    assert!(parse(
        "'é'",
        &ParserOptions {
            max_expression_size: 3,
            ..ParserOptions::default()
        }
    )
    .is_ok());
    let d = ParserOptions::default();
    assert_eq!(
        error(&format!("{}1{}", "(".repeat(250), ")".repeat(250)), &d),
        "ERROR: <input>:-1:0: expression recursion limit exceeded: 250"
    );
    assert!(parse(&format!("{}1{}", "(".repeat(249), ")".repeat(249)), &d).is_ok());
    assert_eq!(
        error(&format!("a{}", ".b".repeat(251)), &d),
        "ERROR: <input>:-1:0: max recursion depth exceeded"
    );
    assert!(parse(&format!("a{}", ".b".repeat(250)), &d).is_ok());
    let p = parse(&format!("a{}", "||a".repeat(20_000)), &d).unwrap();
    assert_eq!(p.next_id, 40_002);
    // The error reporting limit stops parsing.
    let two = ParserOptions {
        error_reporting_limit: 2,
        ..ParserOptions::default()
    };
    assert_eq!(
        error("@ # $ %", &two),
        "ERROR: <input>:1:1: Syntax error: token recognition error at: '@'\n | @ # $ %\n | ^\n\
         ERROR: <input>:1:3: Syntax error: token recognition error at: '#'\n | @ # $ %\n | ..^\n\
         ERROR: <input>:1:5: Syntax error: More than 2 syntax errors\n | @ # $ %\n | ....^"
    );
    // The error recovery limit stops parsing too.
    let msg = error(&")".repeat(100), &ParserOptions::default());
    assert!(!msg.is_empty());
}
