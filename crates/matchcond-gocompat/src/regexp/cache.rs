//! A per-thread cache of compiled patterns, bounded in number and in memory.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use regex::Regex;

use super::compile::{build_regex, check_pattern_size, SMALL_REGEX_SIZE};
use super::translate::{err, translate, ERR_LARGE};
use super::{CompileError, REGEX_SIZE_LIMIT};

/// The most regular expressions the per-thread cache holds.
pub(super) const CACHE_CAPACITY: usize = 256;
/// The most memory the per-thread cache holds, counting each compiled expression as the
/// limit it compiled under (1 MiB for a small one, else [`REGEX_SIZE_LIMIT`]) plus its
/// pattern.
pub const REGEX_CACHE_SIZE: usize = 160 << 20;

/// A per-thread cache of compiled patterns, bounded in number and in memory (full: emptied).
#[derive(Default)]
pub(super) struct Cache {
    pub(super) entries: HashMap<String, Result<Arc<Regex>, CompileError>>,
    pub(super) size: usize,
}

thread_local! {
    pub(super) static CACHE: RefCell<Cache> = RefCell::new(Cache::default());
}

/// Compiles a Go regular expression, returning it with the memory it may use: compiled
/// first under the small size, then (if that is too small) under the full limit.
pub(super) fn compile_weighed(pattern: &str) -> (Result<Regex, CompileError>, usize) {
    if let Err(e) = check_pattern_size(pattern.len()) {
        return (Err(e), 0);
    }
    let text = match translate(pattern) {
        Ok(t) => t,
        Err(e) => return (Err(e.into()), pattern.len()),
    };
    if let Ok(small) = build_regex(text.clone(), SMALL_REGEX_SIZE) {
        return (Ok(small), SMALL_REGEX_SIZE + pattern.len());
    }
    let full = build_regex(text, REGEX_SIZE_LIMIT).map_err(|_| err(ERR_LARGE, pattern).into());
    (full, REGEX_SIZE_LIMIT + pattern.len())
}

/// Compiles a Go regular expression (cached per thread), or returns Go's error.
pub fn compile(pattern: &str) -> Result<Arc<Regex>, CompileError> {
    let cached = CACHE.with(|c| c.borrow().entries.get(pattern).cloned());
    let result = match cached {
        Some(r) => r,
        None => {
            let (r, weight) = compile_weighed(pattern);
            let r = r.map(Arc::new);
            CACHE.with(|c| {
                let mut c = c.borrow_mut();
                if c.entries.len() >= CACHE_CAPACITY
                    || c.size.saturating_add(weight) > REGEX_CACHE_SIZE
                {
                    c.entries.clear();
                    c.size = 0;
                }
                if weight > 0 && weight <= REGEX_CACHE_SIZE {
                    c.size += weight;
                    c.entries.insert(pattern.to_string(), r.clone());
                }
            });
            r
        }
    };
    result
}

/// Go's `regexp.MatchString(pattern, text)`: whether the pattern matches anywhere in the
/// text.
pub fn is_match(pattern: &str, text: &str) -> Result<bool, CompileError> {
    Ok(compile(pattern)?.is_match(text))
}
