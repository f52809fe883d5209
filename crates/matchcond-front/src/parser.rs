//! Parser entry point.
//!
//! Parsing runs in two passes, as in CEL's reference implementation: a recognizer builds
//! a concrete syntax tree (reporting syntax errors and recovering from them exactly as
//! the reference parser does), then a builder turns it into the AST (assigning node ids,
//! expanding macros, decoding literals, reporting semantic errors).
//!
//! Hostile input is bounded: the expression size is limited in code points, rule nesting
//! is limited per rule while recognizing ("expression recursion limit exceeded"), and the
//! nesting of selections, calls, indexing and operators is limited while building ("max
//! recursion depth exceeded"). Both limits are checked before descending, so recursion
//! depth, and the depth of the resulting tree, stay proportional to
//! [`ParserOptions::max_recursion_depth`].

mod build;
mod direct;
mod grammar;
mod unescape;

use crate::ast::Expr;
use crate::macros::MacroSet;
use crate::source::{Issue, Issues, Source};

/// Parser limits and features.
#[derive(Clone, Debug)]
pub struct ParserOptions {
    /// Maximum expression size in code points (cel-go default 100,000).
    pub max_expression_size: usize,
    /// Maximum recursion depth (cel-go default 250).
    pub max_recursion_depth: usize,
    /// Maximum number of syntax errors reported (cel-go default 100).
    pub error_reporting_limit: usize,
    /// Maximum number of error recovery attempts (cel-go default 30).
    pub error_recovery_limit: usize,
    /// Maximum number of tokens skipped by one error recovery (cel-go default 256).
    pub error_recovery_lookahead_limit: usize,
    /// Accept `?.`, `[?`, `?elem` and `{?key: v}` (optional types).
    pub enable_optional_syntax: bool,
    /// Expand the two-variable comprehension macros (`all(i, v, p)`, `transformList` …).
    pub enable_two_var_comprehensions: bool,
    /// Expand the lists extension's `sortBy` macro.
    pub enable_lists_macros: bool,
    /// Expand the one-variable `existsOne(x, p)` as `exists_one(x, p)` (cel-go's parser
    /// macro list has it, but no environment of the apiserver declares it).
    pub enable_exists_one_alias: bool,
    /// Accept backquoted field names (``a.`b-c` ``); without it they are the parse error
    /// ``unsupported syntax: '`'``, as in every apiserver environment.
    pub enable_ident_escape_syntax: bool,
    /// Backquoted identifiers are tokens of the grammar (cel-go v0.23+, Kubernetes 1.33+:
    /// without the escape syntax they are then ``unsupported syntax: '`'``); without it a
    /// backquote is a token recognition error and syntax errors never expect one.
    pub backquote_tokens: bool,
    /// Macros accumulate in the hidden `@result`, which no iteration variable (nor
    /// `__result__`) may be named as (cel-go v0.23+, Kubernetes 1.33+); without it they
    /// accumulate in `__result__`, which an iteration variable may shadow.
    pub enable_hidden_accumulator_name: bool,
    /// Syntax error messages are reported as Go format strings, so that a `%` in the text
    /// reads as a verb (`token recognition error at: ''%!f(MISSING)x='`: cel-go before
    /// v0.23, Kubernetes 1.32 and older).
    pub syntax_errors_as_patterns: bool,
    /// A `\u`/`\U` escape of a code point that is no character (a lone surrogate,
    /// `'\ud800'`) reads as U+FFFD (cel-go before v0.23, Kubernetes 1.32 and older);
    /// without it, it is the error `invalid unicode code point`.
    pub invalid_code_points_replaced: bool,
    /// The syntax error of an empty expression is at `1:1` (cel-go before v0.22, Kubernetes
    /// 1.31 and older); without it at `1:0`. Either way without a snippet.
    pub empty_input_at_first_column: bool,
    /// Macro expansions share nodes, the same nodes with the same ids in two places, and
    /// allocate ids, as cel-go before v0.18 (Kubernetes 1.30 and older) builds them:
    /// `optMap` and `optFlatMap` put their target itself under both `hasValue()` and
    /// `value()` (so that the checker checks it twice), `map` and `filter` use one
    /// accumulator identifier in the step and as the result, `exists_one` one literal `1`.
    /// Without it every use is a node of its own (the target's copy has fresh ids).
    pub shared_macro_nodes: bool,
}

impl ParserOptions {
    /// The macros these options enable, and how they expand.
    fn macros(&self) -> MacroSet {
        MacroSet {
            optional: self.enable_optional_syntax,
            two_var: self.enable_two_var_comprehensions,
            lists: self.enable_lists_macros,
            exists_one_alias: self.enable_exists_one_alias,
            legacy_accumulator: !self.enable_hidden_accumulator_name,
            invalid_code_points_replaced: self.invalid_code_points_replaced,
            shared_nodes: self.shared_macro_nodes,
        }
    }
}

impl Default for ParserOptions {
    fn default() -> Self {
        ParserOptions {
            max_expression_size: 100_000,
            max_recursion_depth: 250,
            error_reporting_limit: 100,
            error_recovery_limit: 30,
            error_recovery_lookahead_limit: 256,
            enable_optional_syntax: true,
            enable_two_var_comprehensions: true,
            enable_lists_macros: true,
            enable_exists_one_alias: false,
            enable_ident_escape_syntax: false,
            enable_hidden_accumulator_name: true,
            backquote_tokens: true,
            syntax_errors_as_patterns: false,
            invalid_code_points_replaced: false,
            empty_input_at_first_column: false,
            shared_macro_nodes: false,
        }
    }
}

/// A parsed expression.
#[derive(Clone, Debug)]
pub struct Parsed {
    /// The root of the tree.
    pub expr: Expr,
    /// The source text.
    pub source: Source,
    /// One more than the largest node id used.
    pub next_id: u32,
}

/// Limits used by the recognizer.
#[derive(Clone, Copy, Debug)]
struct Limits {
    max_recursion_depth: usize,
    error_reporting_limit: usize,
    error_recovery_limit: usize,
    lookahead_limit: usize,
    /// [`ParserOptions::backquote_tokens`].
    backquotes: bool,
    /// [`ParserOptions::syntax_errors_as_patterns`].
    messages_as_patterns: bool,
}

/// The errors collected while parsing.
#[derive(Debug, Default)]
struct SyntaxErrors {
    issues: Vec<Issue>,
    syntax_reports: usize,
}

impl SyntaxErrors {
    /// Records a syntax error; false when the reporting limit was exceeded (a final
    /// "More than N syntax errors" is recorded instead and parsing must stop).
    fn syntax(&mut self, offset: u32, msg: &str, limit: usize) -> bool {
        if self.syntax_reports < limit {
            self.syntax_reports += 1;
            self.issues.push(Issue {
                offset: Some(offset),
                message: format!("Syntax error: {msg}"),
            });
            true
        } else {
            self.issues.push(Issue {
                offset: Some(offset),
                message: format!("Syntax error: More than {limit} syntax errors"),
            });
            false
        }
    }

    /// Records an error without position.
    fn internal(&mut self, msg: String) {
        self.issues.push(Issue {
            offset: None,
            message: msg,
        });
    }

    /// Records an error found while building the tree.
    fn semantic(&mut self, offset: Option<u32>, msg: String) {
        self.issues.push(Issue {
            offset,
            message: msg,
        });
    }

    fn is_empty(&self) -> bool {
        self.issues.is_empty()
    }
}

/// Parses an expression.
///
/// Errors are rendered by [`Issues`]'s `Display` exactly as cel-go renders them, e.g.
/// `ERROR: <input>:1:19: Syntax error: missing ']' at '<EOF>'` followed by the source line
/// and a caret.
pub fn parse(text: &str, options: &ParserOptions) -> Result<Parsed, Issues> {
    let mut source = Source::new(text);
    source.empty_input_at_first_column = options.empty_input_at_first_column;
    // A text has no more code points than bytes.
    if text.len() > options.max_expression_size
        && text.chars().count() > options.max_expression_size
    {
        let size = text.chars().count();
        return Err(Issues::new(
            source,
            vec![Issue {
                offset: None,
                message: format!(
                    "expression code point size exceeds limit: size: {size}, limit {}",
                    options.max_expression_size
                ),
            }],
        ));
    }
    let macros = options.macros();
    if let Some((expr, next_id)) = direct::parse(
        text,
        options.max_recursion_depth,
        options.enable_optional_syntax,
        options.enable_ident_escape_syntax && options.backquote_tokens,
        macros,
    ) {
        return Ok(Parsed {
            expr,
            source,
            next_id,
        });
    }
    parse_in_two_passes(source, options, macros)
}

/// Parses with the recognizer and the tree builder (what [`parse`] falls back to when the
/// direct parser gives up; the two agree whenever the direct parser succeeds).
fn parse_in_two_passes(
    source: Source,
    options: &ParserOptions,
    macros: MacroSet,
) -> Result<Parsed, Issues> {
    let text = source.text();
    let limits = Limits {
        max_recursion_depth: options.max_recursion_depth,
        error_reporting_limit: options.error_reporting_limit.max(1),
        error_recovery_limit: options.error_recovery_limit,
        lookahead_limit: options.error_recovery_lookahead_limit.max(1),
        backquotes: options.backquote_tokens,
        messages_as_patterns: options.syntax_errors_as_patterns,
    };
    let mut rec = grammar::Recognizer::new(text, limits, SyntaxErrors::default());
    let root = rec.start();
    let errs = std::mem::take(&mut rec.errs);
    let root = match root {
        Ok(r) if !rec.aborted() => r,
        _ => return Err(Issues::new(source, errs.issues)),
    };
    let mut builder = build::Builder::new(
        &rec,
        errs,
        options.max_recursion_depth,
        options.enable_optional_syntax,
        options.enable_ident_escape_syntax,
        macros,
    );
    let built = builder.visit(Some(root));
    let next_id = builder.next_id;
    let errs = builder.errs;
    match built {
        Ok(expr) if errs.is_empty() => Ok(Parsed {
            expr,
            source,
            next_id,
        }),
        _ => Err(Issues::new(source, errs.issues)),
    }
}

/// The loader of the reference parser table, shared with the integration tests (the unit
/// tests read only the inputs).
#[cfg(test)]
#[allow(dead_code)]
#[path = "../tests/common/celgo_cases.rs"]
mod celgo_cases;

#[cfg(test)]
mod tests {
    use super::*;

    /// The direct parser, where it succeeds, builds what the two-pass parser builds.
    fn assert_agree(text: &str, options: &ParserOptions) -> bool {
        let macros = options.macros();
        let direct = direct::parse(
            text,
            options.max_recursion_depth,
            options.enable_optional_syntax,
            options.enable_ident_escape_syntax && options.backquote_tokens,
            macros,
        );
        let Some((expr, next_id)) = direct else {
            return false;
        };
        match parse_in_two_passes(Source::new(text), options, macros) {
            Ok(p) => {
                assert_eq!(p.expr, expr, "{text:?}");
                assert_eq!(p.next_id, next_id, "{text:?}");
            }
            Err(issues) => panic!("{text:?}: the direct parser accepts what fails: {issues}"),
        }
        true
    }

    fn option_sets() -> Vec<ParserOptions> {
        let mut sets = vec![ParserOptions::default()];
        sets.push(ParserOptions {
            enable_optional_syntax: false,
            enable_two_var_comprehensions: false,
            enable_lists_macros: false,
            ..ParserOptions::default()
        });
        sets.push(ParserOptions {
            enable_exists_one_alias: true,
            enable_ident_escape_syntax: true,
            ..ParserOptions::default()
        });
        sets.push(ParserOptions {
            enable_ident_escape_syntax: true,
            backquote_tokens: false,
            enable_hidden_accumulator_name: false,
            ..ParserOptions::default()
        });
        for depth in [0, 1, 2, 3, 4, 5, 8, 12, 20] {
            sets.push(ParserOptions {
                max_recursion_depth: depth,
                ..ParserOptions::default()
            });
        }
        sets
    }

    #[test]
    fn direct_parser_agrees_on_the_reference_cases() {
        let mut accepted = 0;
        for case in super::celgo_cases::celgo_parser_cases() {
            for options in option_sets() {
                if assert_agree(&case.input, &options) {
                    accepted += 1;
                }
            }
        }
        assert!(accepted > 500, "{accepted}");
    }

    #[test]
    fn direct_parser_gives_up_on_errors_and_limits() {
        let default = ParserOptions::default();
        let depth = |d| ParserOptions {
            max_recursion_depth: d,
            ..ParserOptions::default()
        };
        let no_optional = ParserOptions {
            enable_optional_syntax: false,
            ..ParserOptions::default()
        };
        for (text, options) in [
            ("a.b{c: 1}", &default),
            ("in", &default),
            ("a + ", &default),
            ("'\\z'", &default),
            ("1e400", &default),
            ("9223372036854775808", &default),
            ("x.?y", &no_optional),
            ("[?x]", &no_optional),
            ("a #", &default),
            ("has(a)", &default),
            ("a.b.c", &depth(6)),
        ] {
            assert!(!assert_agree(text, options), "{text:?}");
        }
        for (text, options) in [
            ("-9223372036854775808", &default),
            ("a.b.c", &depth(7)),
            ("has(a.b) && [1, 2,].all(x, x > 0)", &default),
            ("{?'a': x, 'b': -1.5}[?'a']", &default),
        ] {
            assert!(assert_agree(text, options), "{text:?}");
        }
    }

    /// A small deterministic generator of expressions (mostly well formed, some not).
    struct Gen(u64);

    impl Gen {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn pick<'s>(&mut self, items: &[&'s str]) -> &'s str {
            items[(self.next() % items.len() as u64) as usize]
        }
        /// `n` entries of a list or map literal, some optional (`?`), sometimes with a
        /// trailing comma.
        fn entries(&mut self, n: u64, out: &mut String, entry: impl Fn(&mut Self, &mut String)) {
            for i in 0..n {
                if i > 0 {
                    out.push_str(", ");
                }
                if self.chance(5) {
                    out.push('?');
                }
                entry(self, out);
            }
            if self.chance(4) {
                out.push(',');
            }
        }
        fn chance(&mut self, n: u64) -> bool {
            self.next().is_multiple_of(n)
        }
        fn expr(&mut self, depth: u32, out: &mut String) {
            if depth > 4 || self.chance(3) {
                self.atom(depth, out);
                return;
            }
            match self.next() % 9 {
                0 => {
                    self.expr(depth + 1, out);
                    out.push_str(self.pick(&[" && ", " || ", "&&", " ||\n"]));
                    self.expr(depth + 1, out);
                }
                1 => {
                    self.expr(depth + 1, out);
                    out.push_str(self.pick(&[
                        " == ", " != ", " < ", "<=", " >= ", " > ", " in ", " + ", "-", " * ",
                        " / ", " % ",
                    ]));
                    self.expr(depth + 1, out);
                }
                2 => {
                    self.expr(depth + 1, out);
                    out.push_str(" ? ");
                    self.expr(depth + 1, out);
                    out.push_str(" : ");
                    self.expr(depth + 1, out);
                }
                3 => {
                    out.push_str(self.pick(&["!", "-", "!!", "--", "- -", "!-"]));
                    self.expr(depth + 1, out);
                }
                4 => {
                    out.push('(');
                    self.expr(depth + 1, out);
                    out.push(')');
                }
                5 => {
                    self.atom(depth, out);
                    out.push_str(self.pick(&[
                        ".a",
                        ".b",
                        ".?c",
                        ".`d-e`",
                        "[0]",
                        "[?'k']",
                        "['x']",
                        ".size()",
                        ".startsWith('s')",
                    ]));
                }
                6 => {
                    out.push('[');
                    let n = self.next() % 4;
                    self.entries(n, out, |g, out| g.expr(depth + 1, out));
                    out.push(']');
                }
                7 => {
                    out.push('{');
                    let n = self.next() % 3;
                    self.entries(n, out, |g, out| {
                        g.atom(depth, out);
                        out.push_str(": ");
                        g.expr(depth + 1, out);
                    });
                    out.push('}');
                }
                _ => {
                    let m = self.pick(&[
                        "all",
                        "exists",
                        "exists_one",
                        "map",
                        "filter",
                        "transformList",
                        "sortBy",
                        "optMap",
                        "foo",
                    ]);
                    self.atom(depth, out);
                    out.push('.');
                    out.push_str(m);
                    out.push('(');
                    out.push_str(self.pick(&["x", "y", "x, y", "1", ""]));
                    out.push_str(", ");
                    self.expr(depth + 1, out);
                    if self.chance(3) {
                        out.push_str(", ");
                        self.expr(depth + 1, out);
                    }
                    out.push(')');
                }
            }
        }
        fn atom(&mut self, depth: u32, out: &mut String) {
            let a = self.pick(&[
                "x",
                "y",
                ".x",
                "a.b",
                "a.b.c",
                "object.metadata.labels",
                "1",
                "-1",
                "0x1F",
                "1u",
                "0x1Fu",
                "1.5",
                "-2.5e3",
                "1e400",
                "'s'",
                "\"d\"",
                "'''t'''",
                "r'\\d'",
                "b'\\xff'",
                "'\\u00e9'",
                "'\\z'",
                "true",
                "false",
                "null",
                "in",
                "as",
                "if",
                "has(a.b)",
                "has(a)",
                "size(x)",
                ".f(1)",
                "f()",
                "dyn(1)",
                "`x`",
                "[]",
                "{}",
                "x/*c*/",
                "// c\nx",
                "9223372036854775808",
                "-9223372036854775808",
                "''",
                "x.",
                "(",
                ")",
                "?",
                ":",
                ",",
                "a b",
            ]);
            out.push_str(a);
            if depth < 3 && self.chance(8) {
                out.push_str(self.pick(&[".a", "[1]", ".f()", ".?z"]));
            }
        }
    }

    #[test]
    fn direct_parser_agrees_on_generated_expressions() {
        let options = option_sets();
        let mut g = Gen(0x9E37_79B9_7F4A_7C15);
        let mut accepted = 0;
        for i in 0..50_000 {
            let mut s = String::new();
            g.expr(0, &mut s);
            let o = &options[[0, 1, 0, 1, 8, 10][i % 6]];
            if assert_agree(&s, o) {
                accepted += 1;
            }
        }
        assert!(accepted > 10_000, "{accepted}");
    }
}
