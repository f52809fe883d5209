//! Running a deep recursion on a stack of its own: the one place that knows whether the
//! target has threads.
//!
//! The compiler checks and plans very deep syntax trees, and the `regex` crate compiles
//! deeply nested patterns, on a thread with a large stack, so that callers never need more
//! than a small stack. WebAssembly (`target_family = "wasm"`) has no threads: there the work
//! runs on the caller's stack, which the host sizes (the playground links its module with a
//! large stack).

/// Why the work could not run on a stack of its own.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StackError {
    /// The thread could not be started (the operating system's reason).
    #[error("{0}")]
    Spawn(String),
    /// The work panicked.
    #[error("the work panicked")]
    Panicked,
}

/// Runs `work` on a thread named `name` with a stack of `size` bytes, and returns its
/// result. On WebAssembly it runs `work` on the caller's stack.
#[cfg(not(target_family = "wasm"))]
pub fn on_large_stack<T: Send>(
    name: &str,
    size: usize,
    work: impl FnOnce() -> T + Send,
) -> Result<T, StackError> {
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name(name.to_owned())
            .stack_size(size)
            .spawn_scoped(scope, work)
            .map_err(|e| StackError::Spawn(e.to_string()))?;
        worker.join().map_err(|_| StackError::Panicked)
    })
}

/// Runs `work` on a thread named `name` with a stack of `size` bytes, and returns its
/// result. On WebAssembly it runs `work` on the caller's stack.
#[cfg(target_family = "wasm")]
pub fn on_large_stack<T: Send>(
    _name: &str,
    _size: usize,
    work: impl FnOnce() -> T + Send,
) -> Result<T, StackError> {
    Ok(work())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_the_work_and_returns_its_result() {
        let text = String::from("borrowed");
        assert_eq!(on_large_stack("t", 1 << 20, || text.len()), Ok(8));
    }

    #[test]
    fn a_panic_is_an_error() {
        let r: Result<(), StackError> = on_large_stack("t", 1 << 20, || panic!("boom"));
        assert_eq!(r, Err(StackError::Panicked));
    }
}
