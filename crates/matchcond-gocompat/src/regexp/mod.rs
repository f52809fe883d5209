//! Regular expressions with Go's `regexp` syntax and semantics (RE2 as Go implements it),
//! which cel-go's `matches` and the Kubernetes regex library use.
//!
//! A pattern is parsed as Go's `regexp/syntax` parses it (Perl flags), with Go's errors and
//! their exact text (`error parsing regexp: missing closing ): `(``), and re-emitted in the
//! syntax of the `regex` crate with Go's meaning:
//!
//! - `\d`, `\s`, `\w`, `\b`, `\B` and the POSIX classes are ASCII-only, as in Go (`\s` is
//!   `[\t\n\f\r ]`, without `\v`);
//! - `\Q…\E`, octal escapes, `\<`-style escaped punctuation, a `{` that does not start a
//!   valid repetition (a literal in Go), character classes containing `[` or `&&`, `(?)` and
//!   repeated flags are accepted as Go accepts them;
//! - what Go rejects is rejected: `a**`, `(?x)`, `\Z`, repetition counts above 1000 (also as
//!   a product of nested counts), unknown escapes;
//! - capture names are validated but dropped (Go accepts repeated names).
//!
//! Known differences: Unicode class names are resolved by the `regex` crate (general
//! categories and scripts; its Unicode tables and its loose name matching may differ from the
//! Go release's), the threshold of Go's "expression too large" differs (the message is Go's:
//! see [`REGEX_SIZE_LIMIT`]), and its nesting limit is approximated.
//!
//! Three jobs, one module each:
//!
//! - `translate`: Go's syntax to the `regex` crate's ([`translate`], [`GoRegexError`]);
//! - `compile`: building the translated pattern under the size limits, deeply nested ones
//!   on a large stack ([`compile_uncached`], [`CompileError`]);
//! - `cache`: a per-thread cache of compiled patterns, bounded in number and memory
//!   ([`compile`], [`is_match`]).

mod cache;
mod compile;
mod translate;

#[cfg(test)]
mod tests;

use std::fmt;

pub use cache::{compile, is_match, REGEX_CACHE_SIZE};
pub use compile::{compile_uncached, MAX_PATTERN_SIZE, REGEX_SIZE_LIMIT};
pub use translate::translate;

/// A pattern that Go's `regexp` rejects; displays as Go's error does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoRegexError {
    /// Go's error code text, e.g. `missing closing )`.
    pub code: &'static str,
    /// The offending part of the pattern.
    pub expr: String,
}

impl fmt::Display for GoRegexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error parsing regexp: {}: `{}`", self.code, self.expr)
    }
}

impl std::error::Error for GoRegexError {}

/// Why a pattern could not be compiled.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CompileError {
    /// Go's `regexp` rejects the pattern (including Go's `expression too large` when the
    /// compiled form would exceed [`REGEX_SIZE_LIMIT`]).
    #[error("{0}")]
    Go(#[from] GoRegexError),
    /// The pattern is longer than [`MAX_PATTERN_SIZE`] bytes.
    #[error("regex pattern size exceeds limit: size: {size}, limit {limit}")]
    PatternTooLong {
        /// The pattern's length in bytes.
        size: usize,
        /// The limit ([`MAX_PATTERN_SIZE`]).
        limit: usize,
    },
}
