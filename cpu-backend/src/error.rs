//! The errors of the CPU backend. Each message names the Brook-level thing that is wrong
//! (the kernel, the parameter, the shapes) rather than an internal detail, because the person
//! reading it wrote a `.br` file and a host program, not this interpreter.

use thiserror::Error;

/// Formats a shape the way Brook declares it: `<2, 15>`.
pub fn fmt_shape(shape: &[usize]) -> String {
    let parts: Vec<String> = shape.iter().map(|e| e.to_string()).collect();
    format!("<{}>", parts.join(", "))
}

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

fn fmt_shapes(shapes: &[Vec<usize>]) -> String {
    let parts: Vec<String> = shapes.iter().map(|s| fmt_shape(s)).collect();
    parts.join(", ")
}

#[derive(Debug, Clone, PartialEq, Error)]
pub enum CpuError {
    /// A stream shape Brook cannot hold.
    #[error("invalid stream shape {}: {reason}", fmt_shape(.shape))]
    InvalidShape { shape: Vec<usize>, reason: String },

    /// A stream larger than the memory this process can allocate.
    #[error("a stream {} of {} cannot be allocated: it needs {} of host memory, more than this process can get", fmt_shape(.shape), fmt_widths(.widths), fmt_bytes(*.bytes))]
    OutOfMemory {
        shape: Vec<usize>,
        widths: Vec<u8>,
        bytes: u128,
    },

    /// A stream element layout (member widths) Brook cannot hold.
    #[error("invalid stream element layout {widths:?}: {reason}")]
    InvalidWidths { widths: Vec<u8>, reason: String },

    /// `streamRead`/`streamWrite` with a host buffer of the wrong size.
    #[error("{op}: the stream holds {expected} floats but the host buffer has {got}")]
    HostSize {
        op: &'static str,
        expected: usize,
        got: usize,
    },

    #[error("function #{0} does not exist in this module")]
    UnknownFunction(u32),

    #[error("`{name}` is a {kind}, not a {wanted}")]
    WrongFunctionKind {
        name: String,
        kind: &'static str,
        wanted: &'static str,
    },

    #[error("`{function}` takes {expected} argument(s) but was called with {got}")]
    ArgCount {
        function: String,
        expected: usize,
        got: usize,
    },

    #[error(
        "argument {index} of `{function}` (`{param}`) must be {expected}, but {got} was passed"
    )]
    ArgClass {
        function: String,
        index: usize,
        param: String,
        expected: &'static str,
        got: &'static str,
    },

    /// A stream or constant whose floats per element do not match the parameter's type.
    #[error(
        "argument `{param}` of `{function}` has {got} float(s) per element but its type needs {expected}"
    )]
    ElementSize {
        function: String,
        param: String,
        expected: usize,
        got: usize,
    },

    #[error("all outputs of `{function}` must have the same shape, but they are {}", fmt_shapes(.shapes))]
    OutputShapes {
        function: String,
        shapes: Vec<Vec<usize>>,
    },

    /// A `vout [N]` output without room for N values per element of the call.
    #[error("vout `{param}` of `{function}` needs room for {needed} elements (its N times the {elements} elements of the call) but its stream has {got}")]
    VoutCapacity {
        function: String,
        param: String,
        needed: usize,
        elements: usize,
        got: usize,
    },

    /// A kernel whose only outputs are `vout`s and that has no input stream to take its shape from.
    #[error("kernel `{0}` writes only vout streams, so it needs an input stream or iterator to give the call its shape")]
    VoutShape(String),

    /// A write mask whose element count is not the call's.
    #[error(
        "the write mask of a call of `{function}` has {got} elements but the call has {expected}"
    )]
    MaskSize {
        function: String,
        expected: usize,
        got: usize,
    },

    #[error("iterator `{param}` of `{function}`: {reason}")]
    Iterator {
        function: String,
        param: String,
        reason: String,
    },

    #[error("reduction `{function}`: {reason}")]
    Reduce { function: String, reason: String },

    /// A ScatterOp or GatherOp call whose streams do not fit together.
    #[error("{op}: {reason}")]
    Indexed { op: &'static str, reason: String },

    /// A call stopped by its time limit ([`crate::Watchdog`]): a loop was still running.
    #[error("`{function}` was still running when its time limit of {limit:?} ran out, so the call was stopped (its outputs may be partly written); raise the limit (Runtime::set_time_limit) or look for a loop that does not end")]
    TimeLimit {
        function: String,
        limit: std::time::Duration,
    },

    /// A language feature this backend does not implement (yet).
    #[error("{0} not supported yet by the CPU backend")]
    Unsupported(String),

    /// IR that breaks the conventions of `brook_frontend::ir` (a front-end bug, not a user one).
    #[error("malformed IR in `{function}`: {reason}")]
    Malformed { function: String, reason: String },
}

impl CpuError {
    /// Shorthand for [`CpuError::Malformed`].
    pub fn malformed(function: &str, reason: impl Into<String>) -> CpuError {
        CpuError::Malformed {
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
