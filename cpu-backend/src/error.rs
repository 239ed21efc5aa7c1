//! The errors of the CPU backend. Each message names the Brook-level thing that is wrong
//! (the kernel, the parameter, the shapes) rather than an internal detail, because the person
//! reading it wrote a `.br` file and a host program, not this interpreter.

use brook_core::fmt_shape;
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

fn fmt_shapes(shapes: &[Vec<usize>]) -> String {
    let parts: Vec<String> = shapes.iter().map(|s| fmt_shape(s)).collect();
    parts.join(", ")
}

/// Why a CPU backend call failed; the backend turns each into the matching
/// [`brook_core::BrookError`].
#[derive(Debug, Clone, PartialEq, Error)]
pub enum CpuError {
    /// A stream shape Brook cannot hold.
    #[error("invalid stream shape {}: {reason}", fmt_shape(.shape))]
    InvalidShape {
        /// The shape asked for, outermost first.
        shape: Vec<usize>,
        /// What is wrong with it (rank, a zero extent, overflow).
        reason: String,
    },

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

    /// A stream element layout (member widths) Brook cannot hold.
    #[error("invalid stream element layout {widths:?}: {reason}")]
    InvalidWidths {
        /// Floats per member, as asked for.
        widths: Vec<u8>,
        /// What is wrong with them (no members, a member of width 0).
        reason: String,
    },

    /// `streamRead`/`streamWrite` with a host buffer of the wrong size.
    #[error("{op}: the stream holds {expected} floats but the host buffer has {got}")]
    HostSize {
        /// `streamRead` or `streamWrite`.
        op: &'static str,
        /// Floats the stream (or its domain) holds.
        expected: usize,
        /// Floats in the host buffer.
        got: usize,
    },

    /// A function id that is not in the module (the id's number): IR from another program.
    #[error("function #{0} does not exist in this module")]
    UnknownFunction(u32),

    /// A function called as what it is not: a kernel as a reduction, or the reverse.
    #[error("`{name}` is a {kind}, not a {wanted}")]
    WrongFunctionKind {
        /// The function's name.
        name: String,
        /// What it is (`kernel`, `reduce function`).
        kind: &'static str,
        /// What the call needs.
        wanted: &'static str,
    },

    /// A call with more or fewer arguments than the function has parameters.
    #[error("`{function}` takes {expected} argument(s) but was called with {got}")]
    ArgCount {
        /// The function called.
        function: String,
        /// Its parameters.
        expected: usize,
        /// The arguments passed.
        got: usize,
    },

    /// An argument of the wrong kind for its parameter: a constant for a stream, a stream
    /// for an output, an iterator for a gather.
    #[error(
        "argument {index} of `{function}` (`{param}`) must be {expected}, but {got} was passed"
    )]
    ArgClass {
        /// The function called.
        function: String,
        /// The argument's position, from 0.
        index: usize,
        /// The parameter's name.
        param: String,
        /// The kind the parameter needs (`an input stream`, `a constant`, …).
        expected: &'static str,
        /// The kind passed.
        got: &'static str,
    },

    /// A stream or constant whose floats per element do not match the parameter's type.
    #[error(
        "argument `{param}` of `{function}` has {got} float(s) per element but its type needs {expected}"
    )]
    ElementSize {
        /// The function called.
        function: String,
        /// The parameter's name.
        param: String,
        /// Floats per element of the parameter's type.
        expected: usize,
        /// Floats per element of the argument.
        got: usize,
    },

    /// A kernel call whose output streams (or their domains) differ in shape.
    #[error("all outputs of `{function}` must have the same shape, but they are {}", fmt_shapes(.shapes))]
    OutputShapes {
        /// The kernel called.
        function: String,
        /// Each output's shape, in parameter order.
        shapes: Vec<Vec<usize>>,
    },

    /// A `vout [N]` output without room for N values per element of the call.
    #[error("vout `{param}` of `{function}` needs room for {needed} elements (its N times the {elements} elements of the call) but its stream has {got}")]
    VoutCapacity {
        /// The kernel called.
        function: String,
        /// The vout parameter.
        param: String,
        /// Elements the stream needs: N × `elements`.
        needed: usize,
        /// Elements of the call.
        elements: usize,
        /// Elements the stream has.
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
        /// The kernel called.
        function: String,
        /// Elements of the call.
        expected: usize,
        /// Elements of the mask.
        got: usize,
    },

    /// An iterator argument the kernel cannot use (a rank or width its parameter cannot take).
    #[error("iterator `{param}` of `{function}`: {reason}")]
    Iterator {
        /// The kernel called.
        function: String,
        /// The parameter the iterator was passed for.
        param: String,
        /// What does not fit.
        reason: String,
    },

    /// A reduction whose streams do not fit together (a target that does not divide the input).
    #[error("reduction `{function}`: {reason}")]
    Reduce {
        /// The reduce function.
        function: String,
        /// What does not fit.
        reason: String,
    },

    /// A ScatterOp or GatherOp call whose streams do not fit together.
    #[error("{op}: {reason}")]
    Indexed {
        /// `streamScatterOp` or `streamGatherOp`.
        op: &'static str,
        /// What does not fit.
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
