//! A time limit for kernel calls on the CPU: a kernel may loop forever (`while (1) {}`), and
//! nothing outside the call can stop a thread in the middle of one. Both engines check the
//! watchdog at loop back edges and stop the call with [`CpuError::TimeLimit`] once its
//! time is up: the interpreter at every one, native code compiled for a watched call every
//! [`NATIVE_CHECK_EVERY`] (a countdown in a register; calls without a limit run code with
//! no check at all). (`brcc run --timeout 60 prog.br` ends the whole program instead; GL cannot stop a draw.)

use std::time::{Duration, Instant};

use crate::error::CpuError;

/// Loop back edges native code runs between two reads of the clock: a read costs about
/// 25 ns, so this keeps the check under a nanosecond per iteration while the call still
/// stops within microseconds of its deadline.
pub const NATIVE_CHECK_EVERY: i64 = 1024;

/// When a call must stop; the default never stops it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Watchdog {
    limit: Option<(Duration, Instant)>,
}

impl Watchdog {
    /// A watchdog for a call starting now that may run for `limit`.
    pub fn limited(limit: Duration) -> Watchdog {
        Watchdog {
            limit: Some((limit, Instant::now() + limit)),
        }
    }

    /// Whether the call has a time limit at all.
    pub fn is_limited(&self) -> bool {
        self.limit.is_some()
    }

    /// Called at a loop back edge: an error once the time is up (naming no function yet:
    /// [`CpuError::in_function`] adds it). Reading the clock costs about as much as one
    /// interpreted statement, once per iteration.
    pub fn check(&self) -> Result<(), CpuError> {
        match self.limit {
            Some((limit, deadline)) if Instant::now() >= deadline => Err(CpuError::TimeLimit {
                function: String::new(),
                limit,
            }),
            _ => Ok(()),
        }
    }

    /// The error of a call of `function` stopped by this watchdog.
    pub(crate) fn stopped(&self, function: &str) -> CpuError {
        CpuError::TimeLimit {
            function: function.to_string(),
            limit: self.limit.map_or(Duration::ZERO, |(limit, _)| limit),
        }
    }
}
