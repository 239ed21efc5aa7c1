//! The CPU backend's own failures (memory, time limits, what it does not implement), with
//! messages meant for the Brook user; mistakes in calls are brook-core's errors.

use brook_core::{fmt_shape, StreamError};
use thiserror::Error;

/// An element type from its member widths: `float4`, or `struct {float, float3}`.
fn fmt_widths(widths: &[u8]) -> String {
    let name = |w: &u8| {
        if *w == 1 {
            "float".to_string()
        } else {
            format!("float{w}")
        }
    };
    match widths {
        [one] => name(one),
        many => format!(
            "struct {{{}}}",
            many.iter().map(name).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// Bytes as Brook users think of them: `160000000000 bytes (149.0 GiB)`.
fn fmt_bytes(bytes: u128) -> String {
    format!(
        "{bytes} bytes ({:.1} GiB)",
        bytes as f64 / (1u64 << 30) as f64
    )
}

/// What fails on the CPU backend itself: memory, a time limit, what it does not implement,
/// and IR or calls that break the preconditions of its engines. Brook's rules about calls
/// (argument kinds and counts, element types, shapes) are brook-core's: the runtime checks
/// them before a call gets here and reports them as [`brook_core::BrookError`]; the crate's
/// own entry points (test hooks) meet a broken one as [`CpuError::Precondition`].
#[derive(Debug, Clone, PartialEq, Error)]
pub enum CpuError {
    /// A stream request that makes no sense on any backend (a bad shape or element layout, a
    /// host array of the wrong size): brook-core's error, as every backend reports it.
    #[error(transparent)]
    Stream(#[from] StreamError),

    /// A stream larger than the memory this process can allocate.
    #[error("a stream {} of {} cannot be allocated: it needs {} of host memory, more than this process can get", fmt_shape(.shape), fmt_widths(.widths), fmt_bytes(*.bytes))]
    OutOfMemory {
        /// The shape asked for, outermost first.
        shape: Vec<usize>,
        /// Floats per member of its element type.
        widths: Vec<u8>,
        /// The bytes it would need.
        bytes: u128,
    },

    /// A call that breaks what the engines rely on (arguments of the kinds, counts, element
    /// sizes and shapes brook-core's call checks guarantee): reachable only by calling this
    /// crate directly, never through `brook::Runtime`.
    #[error("a call of `{function}` that brook-core's checks would refuse reached the CPU backend: {reason}")]
    Precondition {
        /// The function called.
        function: String,
        /// What does not hold.
        reason: String,
    },

    /// A call stopped by its time limit ([`crate::Watchdog`]): a loop was still running.
    #[error("`{function}` was still running when its time limit of {limit:?} ran out, so the call was stopped (its outputs may be partly written); raise the limit (Runtime::set_time_limit) or look for a loop that does not end")]
    TimeLimit {
        /// The kernel stopped (empty until [`CpuError::in_function`] names it).
        function: String,
        /// The limit it ran past.
        limit: std::time::Duration,
    },

    /// A language feature this backend does not implement (yet).
    #[error("{0} not supported yet by the CPU backend")]
    Unsupported(String),

    /// IR that breaks the conventions of `brook_ir` (a front-end bug, not a user one).
    #[error("malformed IR in `{function}`: {reason}")]
    Malformed {
        /// The function whose IR it is (empty until [`CpuError::in_function`] names it).
        function: String,
        /// What convention it breaks.
        reason: String,
    },
}

impl CpuError {
    /// Shorthand for [`CpuError::Malformed`].
    pub fn malformed(function: &str, reason: impl Into<String>) -> CpuError {
        CpuError::Malformed {
            function: function.to_string(),
            reason: reason.into(),
        }
    }

    /// Shorthand for [`CpuError::Precondition`].
    pub fn precondition(function: &str, reason: impl Into<String>) -> CpuError {
        CpuError::Precondition {
            function: function.to_string(),
            reason: reason.into(),
        }
    }
    /// Names `function` in a [`CpuError::Malformed`] or [`CpuError::TimeLimit`] raised where
    /// it was not known.
    pub fn in_function(self, name: &str) -> CpuError {
        match self {
            CpuError::Malformed { function, reason } if function.is_empty() => {
                CpuError::Malformed {
                    function: name.to_string(),
                    reason,
                }
            }
            CpuError::TimeLimit { function, limit } if function.is_empty() => CpuError::TimeLimit {
                function: name.to_string(),
                limit,
            },
            e => e,
        }
    }
}
