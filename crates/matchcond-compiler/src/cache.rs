//! A thread-safe LRU cache of compiled programs.

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use lru::LruCache;

use crate::{CompileError, CompileOptions, Program};

/// Default number of programs an environment's cache holds.
pub const DEFAULT_CACHE_SIZE: usize = 4096;

/// What identifies a compiled program within one environment.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct CacheKey {
    expression: String,
    options: CompileOptions,
}

impl CacheKey {
    pub(crate) fn new(expression: &str, options: &CompileOptions) -> Self {
        CacheKey {
            expression: expression.to_string(),
            options: options.clone(),
        }
    }
}

type Entry = Result<Arc<Program>, CompileError>;

/// Hit and miss counters of a [`ProgramCache`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups that had to compile.
    pub misses: u64,
    /// Programs (and compile errors) currently held.
    pub len: usize,
    /// Capacity.
    pub capacity: usize,
}

/// An LRU cache of compiled programs (and of compile errors), keyed by expression text and
/// compile options, shared by all users of an environment.
pub struct ProgramCache {
    entries: Mutex<LruCache<CacheKey, Entry>>,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl std::fmt::Debug for ProgramCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProgramCache")
            .field("stats", &self.stats())
            .finish()
    }
}

impl ProgramCache {
    /// A cache holding at most `capacity` programs (at least 1).
    pub fn new(capacity: usize) -> Self {
        let cap = NonZeroUsize::new(capacity.max(1)).unwrap_or(NonZeroUsize::MIN);
        ProgramCache {
            entries: Mutex::new(LruCache::new(cap)),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LruCache<CacheKey, Entry>> {
        // A poisoned lock only means another thread panicked while holding it; the cache
        // content is still consistent (every operation is a single call on the map).
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn get(&self, key: &CacheKey) -> Option<Entry> {
        let found = self.lock().get(key).cloned();
        match found {
            Some(e) => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                Some(e)
            }
            None => {
                self.misses.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    pub(crate) fn put(&self, key: CacheKey, entry: Entry) {
        self.lock().put(key, entry);
    }

    /// Changes the capacity, evicting the least recently used programs if needed.
    pub fn resize(&self, capacity: usize) {
        let cap = NonZeroUsize::new(capacity.max(1)).unwrap_or(NonZeroUsize::MIN);
        self.lock().resize(cap);
    }

    /// Removes every entry (counters are kept).
    pub fn clear(&self) {
        self.lock().clear();
    }

    /// Current counters.
    pub fn stats(&self) -> CacheStats {
        let g = self.lock();
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            len: g.len(),
            capacity: g.cap().get(),
        }
    }
}
