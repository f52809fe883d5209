//! Building a translated pattern under the size limits; deeply nested patterns are built on
//! a thread with a large stack (the `regex` crate's compiler recurses on nesting).

use regex::{Regex, RegexBuilder};

use super::translate::{err, nesting, translate, ERR_LARGE};
use super::CompileError;
use crate::stack::{on_large_stack, StackError};

/// Largest compiled size of a regular expression (bytes of the compiled program); a pattern
/// over it fails with Go's `expression too large`.
pub const REGEX_SIZE_LIMIT: usize = 64 << 20;

/// The most bytes of a regular expression pattern (`matches`, `find`, `findAll`).
pub const MAX_PATTERN_SIZE: usize = 32 * 1024;

/// Fails when a pattern is longer than [`MAX_PATTERN_SIZE`].
pub(super) fn check_pattern_size(size: usize) -> Result<(), CompileError> {
    if size > MAX_PATTERN_SIZE {
        Err(CompileError::PatternTooLong {
            size,
            limit: MAX_PATTERN_SIZE,
        })
    } else {
        Ok(())
    }
}

fn build(text: &str, size_limit: usize) -> Result<Regex, String> {
    RegexBuilder::new(text)
        .size_limit(size_limit)
        .nest_limit(10_000)
        .build()
        .map_err(|e| e.to_string())
}

/// The compiled size under which an expression counts as small in the cache.
pub(super) const SMALL_REGEX_SIZE: usize = 1 << 20;

/// Compiles a translated pattern; deeply nested ones on a thread with a large stack (the
/// `regex` compiler recurses on nesting).
pub(super) fn build_regex(text: String, size_limit: usize) -> Result<Regex, String> {
    if nesting(&text) <= 64 {
        return build(&text, size_limit);
    }
    on_large_stack("regex-compile", 256 << 20, || build(&text, size_limit)).unwrap_or_else(|e| {
        Err(match e {
            StackError::Spawn(reason) => reason,
            _ => String::from("regex compilation failed"),
        })
    })
}

/// Compiles a Go regular expression (not cached), or returns Go's error.
pub fn compile_uncached(pattern: &str) -> Result<Regex, CompileError> {
    check_pattern_size(pattern.len())?;
    let text = translate(pattern)?;
    build_regex(text, REGEX_SIZE_LIMIT).map_err(|_| err(ERR_LARGE, pattern).into())
}
