//! A time limit for kernel calls on the CPU: a kernel may loop forever (`while (1) {}`), and
//! nothing outside the call can stop a thread in the middle of one. Both engines check the
//! watchdog at every loop back edge and stop the call with [`CpuError::TimeLimit`] once its
//! time is up. (`brcc run --timeout 60 prog.br` ends the whole program instead; GL cannot stop a draw.)

use std::time::{Duration, Instant};

use crate::error::CpuError;

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
}
