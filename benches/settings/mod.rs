//! The criterion settings the benchmarks share.

use std::time::Duration;

use criterion::Criterion;

/// Criterion with these warm-up and measurement times, and 20 samples per benchmark.
pub fn with_times(warm_up: Duration, measurement: Duration) -> Criterion {
    Criterion::default()
        .warm_up_time(warm_up)
        .measurement_time(measurement)
        .sample_size(20)
}
