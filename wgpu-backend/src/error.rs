//! Everything that can go wrong on the wgpu backend, with messages meant for the Brook user.
//!
//! wgpu reports validation errors, out-of-memory and device loss through error scopes and
//! callbacks rather than return values, and panics on an uncaptured one; the backend wraps
//! every operation in error scopes (`Gpu::scoped`) so each becomes one of these instead.

/// The packages that give this machine a wgpu adapter, for error messages.
pub const ADAPTER_PACKAGES: &str = "install Mesa's Vulkan driver (Debian/Ubuntu: `apt-get install \
mesa-vulkan-drivers libvulkan1`, which gives lavapipe) or Mesa's EGL/GL drivers (`libegl1 \
libegl-mesa0 libgl1-mesa-dri`) for wgpu's GL backend";

/// The backend's errors. Each kind of call mistake has a variant of its own mirroring
/// brook-core's [`brook_core::BrookError`] (mapped through field for field in `seam.rs`),
/// rather than one variant boxing a `BrookError`: that keeps `WgpuError` `Clone` and
/// `PartialEq` (its users and tests compare errors), keeps the crate's own API matchable
/// without brook-core's runtime-only variants, and leaves no `BrookError` inside a
/// `BrookError::Backend` when a call goes through the runtime.
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
    /// The device cannot do it at this size (a stream larger than its storage buffers).
    #[error("{call}: {message}")]
    DeviceLimit {
        /// The call that failed, as messages name it (`kernel \`saxpy\``, `streamSwap`).
        call: String,
        /// What is wrong, and what to change.
        message: String,
    },
    /// A stream request that makes no sense on any device (a bad shape, element format or
    /// domain, a host array of the wrong size): brook-core's error, as every backend reports it.
    #[error(transparent)]
    Stream(#[from] brook_core::StreamError),
    /// A stream of another wgpu backend (another device) passed to this one.
    #[error(
        "{call}: a stream made by another wgpu backend (another device) was passed to this one"
    )]
    ForeignStream {
        /// The call that failed, as messages name it (`kernel \`saxpy\``, `streamSwap`).
        call: String,
    },
    /// Streams that do not fit together (a `streamSwap` of two shapes or formats).
    #[error("{call}: {message}")]
    ShapeMismatch {
        /// The call that failed, as messages name it (`kernel \`saxpy\``, `streamSwap`).
        call: String,
        /// What is wrong, and what to change.
        message: String,
    },
    /// An argument of the wrong kind or element size (an iterator where stored elements are
    /// needed, a stream for a constant, `float2` elements for a `float` parameter); `param`
    /// names the parameter, empty when the call has none to name.
    #[error("{call}: {message}")]
    ArgumentType {
        /// The call that failed, as messages name it (`kernel \`saxpy\``, `streamSwap`).
        call: String,
        /// The parameter the argument was passed for (empty when there is none to name).
        param: String,
        /// What is wrong, and what to change.
        message: String,
    },
    /// Nothing of that name or number: no kernel or reduce function (`what` says which was
    /// looked for), as brook-core's program lookup reports it.
    #[error("{message}")]
    Unknown {
        /// The name looked for.
        name: String,
        /// What kind of thing was looked for (`kernel`, `reduce function`).
        what: &'static str,
        /// The whole message.
        message: String,
    },
    /// A call with more or fewer arguments than its function has parameters (brook-core's
    /// text).
    #[error("{}", brook_core::BrookError::ArgumentCount { call: call.clone(), expected: *expected, got: *got })]
    ArgumentCount {
        /// The call that failed, as messages name it (`kernel \`saxpy\``, `streamSwap`).
        call: String,
        /// Parameters the function declares.
        expected: usize,
        /// Arguments the call passed.
        got: usize,
    },
    /// One stream in two roles of a call that Brook does not allow (the streams of a scatter
    /// or gather-op, a reduction's input and output).
    #[error("{call}: {message}")]
    Aliasing {
        /// The call that failed, as messages name it (`kernel \`saxpy\``, `streamSwap`).
        call: String,
        /// What is wrong, and what to change.
        message: String,
    },
    /// A call that does not fit the backend's state: enabling a write mask never set, a
    /// second write query, ending one never begun.
    #[error("{call}: {message}")]
    State {
        /// The call that failed, as messages name it (`kernel \`saxpy\``, `streamSwap`).
        call: String,
        /// What is wrong, and what to change.
        message: String,
    },
    /// Something Brook or this backend does not do (a reduce function of the wrong form, a
    /// write mask on a kernel with vouts).
    #[error("{call}: {message}")]
    Unsupported {
        /// The call that failed, as messages name it (`kernel \`saxpy\``, `streamSwap`).
        call: String,
        /// What is wrong, and what to change.
        message: String,
    },
    /// An error about one statement of the Brook source (a function past brook-core's compile
    /// budget), placed at its line as brook-core's `BrookError::At` places it.
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
}

/// What every fallible operation of this crate returns.
pub type Result<T> = std::result::Result<T, WgpuError>;
