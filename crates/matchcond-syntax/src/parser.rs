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
    let source = Source::new(text);
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
    let limits = Limits {
        max_recursion_depth: options.max_recursion_depth,
        error_reporting_limit: options.error_reporting_limit.max(1),
        error_recovery_limit: options.error_recovery_limit,
        lookahead_limit: options.error_recovery_lookahead_limit.max(1),
    };
    let mut rec = grammar::Recognizer::new(text, limits, SyntaxErrors::default());
    let root = rec.start();
    let errs = std::mem::take(&mut rec.errs);
    let root = match root {
        Ok(r) if !rec.aborted() => r,
        _ => return Err(Issues::new(source, errs.issues)),
    };
    let macros = MacroSet {
        optional: options.enable_optional_syntax,
        two_var: options.enable_two_var_comprehensions,
        lists: options.enable_lists_macros,
    };
    let mut builder = build::Builder::new(
        &rec,
        errs,
        options.max_recursion_depth,
        options.enable_optional_syntax,
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
