//! Timing for criterion's `iter_custom`.

use std::time::{Duration, Instant};

/// Wall time of `iters` calls of `f`.
pub fn timed(iters: u64, mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        f();
    }
    start.elapsed()
}
