//! Bounds on what the server holds at once: the size of one body, the admission requests
//! in flight and the body bytes they hold together, and the time to receive a body.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The bounds (see the `--max-*` and `--request-timeout` flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest AdmissionReview body accepted (larger ones get 413).
    pub max_body_bytes: usize,
    /// Admission requests received or decided at once (more get 503).
    pub max_inflight_requests: usize,
    /// Body bytes held at once by all admission requests (more get 503).
    pub max_inflight_bytes: usize,
    /// The time allowed to receive a request's body (longer gets 408).
    pub request_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_body_bytes: 16 << 20,
            max_inflight_requests: 256,
            max_inflight_bytes: 64 << 20,
            request_timeout: Duration::from_secs(30),
        }
    }
}

/// A shared allowance (requests or bytes) taken without waiting.
#[derive(Debug)]
pub struct Budget {
    used: AtomicUsize,
    max: usize,
}

impl Budget {
    /// An allowance of `max`.
    pub fn new(max: usize) -> Arc<Budget> {
        Arc::new(Budget {
            used: AtomicUsize::new(0),
            max,
        })
    }

    /// The allowance.
    pub fn max(&self) -> usize {
        self.max
    }

    /// What is taken now.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    fn take(&self, amount: usize) -> bool {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(amount).filter(|total| *total <= self.max)
            })
            .is_ok()
    }

    /// Takes `amount` if that stays within the allowance; it is given back when the
    /// returned share is dropped.
    pub fn try_take(self: &Arc<Budget>, amount: usize) -> Option<Share> {
        self.take(amount).then(|| Share {
            budget: self.clone(),
            amount,
        })
    }

    /// An empty share, to grow.
    pub fn share(self: &Arc<Budget>) -> Share {
        Share {
            budget: self.clone(),
            amount: 0,
        }
    }
}

/// A part of a [`Budget`], given back on drop.
#[derive(Debug)]
pub struct Share {
    budget: Arc<Budget>,
    amount: usize,
}

impl Share {
    /// Takes `amount` more if that stays within the allowance.
    pub fn grow(&mut self, amount: usize) -> bool {
        let ok = self.budget.take(amount);
        if ok {
            self.amount += amount;
        }
        ok
    }

    /// The amount held.
    pub fn amount(&self) -> usize {
        self.amount
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        self.budget.used.fetch_sub(self.amount, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn shares_stay_within_the_budget_and_are_given_back() {
        let budget = Budget::new(10);
        let a = budget.try_take(6).unwrap();
        assert!(budget.try_take(5).is_none());
        let mut b = budget.share();
        assert!(b.grow(4));
        assert!(!b.grow(1));
        assert_eq!((budget.used(), a.amount(), b.amount()), (10, 6, 4));
        drop(a);
        assert!(b.grow(6));
        drop(b);
        assert_eq!(budget.used(), 0);
        assert!(budget.try_take(usize::MAX).is_none());
    }
}
