//! Everything that can go wrong on the wgpu backend, with messages meant for the Brook user.
//!
//! wgpu reports validation errors, out-of-memory and device loss through error scopes and
//! callbacks rather than return values, and panics on an uncaptured one; the backend wraps
//! every operation in error scopes (`Gpu::scoped`) so each becomes one of these instead.

/// The packages that give this machine a wgpu adapter, for error messages.
pub const ADAPTER_PACKAGES: &str = "install Mesa's Vulkan driver (Debian/Ubuntu: `apt-get install \
mesa-vulkan-drivers libvulkan1`, which gives lavapipe) or Mesa's EGL/GL drivers (`libegl1 \
libegl-mesa0 libgl1-mesa-dri`) for wgpu's GL backend";

/// What fails on the wgpu backend itself: no adapter, the device (creation, loss, memory,
/// limits), wgpu refusing an operation, a shader this backend generated wrongly, what it
/// does not do. Brook's rules about calls (argument kinds and counts, element types,
/// aliasing, shapes, the write-mask state) are brook-core's: the runtime checks them before a
/// call gets here and reports them as [`brook_core::BrookError`], which wraps this type at the
/// seam; the crate's own entry points (hooks for its bench and example) meet a broken one as
/// [`WgpuError::Precondition`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WgpuError {
    /// No adapter could be created: no GPU driver, Vulkan or GL library was found.
    #[error("no wgpu adapter is available ({0}); {ADAPTER_PACKAGES}")]
    NoAdapter(String),
    /// The device could not be created from the adapter.
    #[error("the wgpu device could not be created: {0}")]
    Device(String),
    /// The shader generated for a Brook function is invalid: a bug of this backend, reported
    /// at the Brook line it came from.
    #[error("{place}: the compute shader generated for `{function}` is invalid: {message}")]
    Shader {
        /// The Brook function the shader was generated for.
        function: String,
        /// `file:line`, or the file alone when the error has no line.
        place: String,
        /// naga's validation message.
        message: String,
    },
    /// wgpu refused an operation (a limit exceeded, an invalid binding, …).
    #[error("wgpu refused {op}: {message}")]
    Validation {
        /// The operation that failed (`creating a buffer`, `kernel \`k\``).
        op: String,
        /// wgpu's own message.
        message: String,
    },
    /// The device ran out of memory.
    #[error("out of GPU memory during {op}: {message}")]
    OutOfMemory {
        /// The operation that failed (`creating a buffer`, `kernel \`k\``).
        op: String,
        /// wgpu's own message.
        message: String,
    },
    /// The device was lost (driver reset, GPU removed); create a new backend.
    #[error("the GPU device was lost: {0}")]
    DeviceLost(String),
    /// The device cannot do it at this size (a stream larger than its storage buffers, more
    /// buffers than a stage binds, a loop its driver cuts).
    #[error("{call}: {message}")]
    DeviceLimit {
        /// The call that failed, as messages name it (`kernel \`saxpy\``, `streamSwap`).
        call: String,
        /// What is wrong, and what to change.
        message: String,
    },
    /// What this backend does not do (a function past brook-core's compile budget).
    #[error("{call}: {message}")]
    Unsupported {
        /// What was being done (`compute shader generation`).
        call: String,
        /// What is wrong, and what to change.
        message: String,
    },
    /// An error about one statement of the Brook source, placed at its line as brook-core's
    /// `BrookError::At` places it.
    #[error("{file}:{line}: {error}\n    {line} | {text}")]
    At {
        /// The Brook file.
        file: String,
        /// The 1-based line of the statement.
        line: usize,
        /// The source line, trimmed.
        text: String,
        /// What is wrong there.
        error: Box<WgpuError>,
    },
    /// A host array of the wrong size, a shape that is none: brook-core's error, as every
    /// backend reports it.
    #[error(transparent)]
    Stream(#[from] brook_core::StreamError),
    /// A call that breaks what the engine relies on (arguments of the kinds, counts, element
    /// sizes and shapes brook-core's call checks guarantee, streams of this device): reachable
    /// only by calling this crate directly, never through `brook::Runtime`. Refused rather
    /// than bound, since a buffer of another device or a binding of the wrong size is
    /// undefined in the driver or silently wrong.
    #[error(
        "a call of {call} that brook-core's checks would refuse reached the wgpu backend: {reason}"
    )]
    Precondition {
        /// The call, as messages name it (`kernel \`saxpy\``, `streamSwap`).
        call: String,
        /// What does not hold.
        reason: String,
    },
}

impl WgpuError {
    /// A [`WgpuError::Precondition`] of `call`.
    pub(crate) fn precondition(
        call: impl std::fmt::Display,
        reason: impl Into<String>,
    ) -> WgpuError {
        WgpuError::Precondition {
            call: call.to_string(),
            reason: reason.into(),
        }
    }
}

/// What every fallible operation of this crate returns.
pub type Result<T> = std::result::Result<T, WgpuError>;
