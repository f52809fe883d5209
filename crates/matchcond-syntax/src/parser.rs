//! Parser entry point (to be written).
use crate::ast::Expr;
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

/// Parses an expression.
pub fn parse(text: &str, _options: &ParserOptions) -> Result<Parsed, Issues> {
    Err(Issues::new(
        Source::new(text),
        vec![Issue {
            offset: None,
            message: "parser not available".into(),
        }],
    ))
}
