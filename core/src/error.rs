//! The errors every backend reports the same way.
//!
//! [`StreamError`] is a stream request that makes no sense whatever the device: a bad shape,
//! element format or domain, or a host array of the wrong size. [`BrookError`] is everything
//! a Brook call can fail with, one variant per kind of mistake, so a caller can match on it;
//! the text of each says what to change.

use brook_ir::Diagnostics;

/// A stream request that cannot be served on any device.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// Not a stream shape: rank 0 or above 4, a zero extent, an element count that overflows;
    /// or an iterator of a shape iterators cannot have.
    #[error("bad stream shape: {0}")]
    Shape(String),
    /// A host array with the wrong number of floats.
    #[error("host array has {got} floats but the stream (or domain) needs exactly {expected}")]
    Size {
        /// Floats needed: elements × floats per element.
        expected: usize,
        /// Floats given.
        got: usize,
    },
    /// A domain that does not fit its stream.
    #[error("bad domain: {0}")]
    Domain(String),
    /// An element format that is not float..float4 or a struct of them.
    #[error("bad element format: {0}")]
    Format(String),
}

/// Why a Brook call failed. Each variant is one kind of mistake; `call` names the operation
/// (`kernel \`saxpy\``, `streamScatterOp`, …) and `message` says what is wrong and what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BrookError {
    /// Syntax or type errors in Brook source, rendered with the line and a caret.
    #[error("{0}")]
    Compile(Diagnostics),
    /// Nothing of that name: no kernel or reduce function in the program, no such backend
    /// or stream element type (`what` says which was looked for).
    #[error("{message}")]
    Unknown {
        /// The name looked for.
        name: String,
        /// What kind of thing was looked for (`kernel`, `reduce function`, `backend`).
        what: &'static str,
        /// The whole message, with the names that do exist where that helps.
        message: String,
    },
    /// A call with more or fewer arguments than its function has parameters.
    #[error("{call} takes {expected} {} but {got} {} given", plural(*expected, "argument", "arguments"), plural(*got, "was", "were"))]
    ArgumentCount {
        /// The call that failed, as messages name it (`kernel \`saxpy\``, `streamScatterOp`).
        call: String,
        /// Parameters the function declares.
        expected: usize,
        /// Arguments the call passed.
        got: usize,
    },
    /// An argument of the wrong kind (a constant for a stream, an iterator for an output) or
    /// of the wrong element type (a `float4` stream for a `float` parameter).
    #[error("{call}: {message}")]
    ArgumentType {
        /// The call that failed, as messages name it (`kernel \`saxpy\``, `streamScatterOp`).
        call: String,
        /// The parameter the argument was passed for.
        param: String,
        /// What is wrong, and what to change.
        message: String,
    },
    /// A stream made by another runtime (another backend or context).
    #[error("{call}: a stream made by another runtime was passed to this one")]
    ForeignStream {
        /// The call that failed, as messages name it (`kernel \`saxpy\``, `streamScatterOp`).
        call: String,
    },
    /// Streams whose shapes do not fit together (outputs of different shapes, a reduction
    /// target that does not divide its input, a mask of another shape, a vout without room).
    #[error("{call}: {message}")]
    ShapeMismatch {
        /// The call that failed, as messages name it (`kernel \`saxpy\``, `streamScatterOp`).
        call: String,
        /// What is wrong, and what to change.
        message: String,
    },
    /// One stream in two roles of a call that Brook does not allow (two outputs, gathered
    /// and written, a scatter into its own index).
    #[error("{call}: {message}")]
    Aliasing {
        /// The call that failed, as messages name it (`kernel \`saxpy\``, `streamScatterOp`).
        call: String,
        /// What is wrong, and what to change.
        message: String,
    },
    /// A stream request that makes no sense on any device (bad shape, domain, format, host
    /// array size).
    #[error(transparent)]
    Stream(#[from] StreamError),
    /// The device cannot do it at this size: a stream larger than its textures or buffers,
    /// more samplers than a pass may bind, more pushes than a float counts exactly.
    #[error("{call}: {message}")]
    DeviceLimit {
        /// The call that failed, as messages name it (`kernel \`saxpy\``, `streamScatterOp`).
        call: String,
        /// What is wrong, and what to change.
        message: String,
    },
    /// A call that does not fit the runtime's state (enabling a write mask never set, ending
    /// a write query never begun) or a stream in use elsewhere (its textures borrowed).
    #[error("{call}: {message}")]
    State {
        /// The call that failed, as messages name it (`kernel \`saxpy\``, `streamScatterOp`).
        call: String,
        /// What is wrong, and what to change.
        message: String,
    },
    /// Something this backend or device does not do (write queries on GL ES 3.0, blending
    /// float targets without the extension, a language feature not lowered yet).
    #[error("{call}: {message}")]
    Unsupported {
        /// The call that failed, as messages name it (`kernel \`saxpy\``, `streamScatterOp`).
        call: String,
        /// What is wrong, and what to change.
        message: String,
    },
    /// The driver rejected a generated shader (boxed: it carries the shader's text).
    #[error("{0}")]
    ShaderRejected(Box<ShaderRejection>),
    /// The device or its driver failed (a GL error, a lost context, malformed IR reaching a
    /// backend); `source` is the backend's own error, to downcast for details.
    #[error("{backend}: {source}")]
    Backend {
        /// The backend that failed (`GL`, `CPU`, `wgpu`).
        backend: &'static str,
        /// The backend's own error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A file could not be read.
    #[error("could not read `{path}`: {reason}")]
    Io {
        /// The file asked for.
        path: String,
        /// The operating system's reason (not found, permission denied, …).
        reason: String,
    },
    /// A bug in this library: a panic caught at the C ABI (which must not unwind into C++), or
    /// IR from the front end that fails validation (`Compiled::new`).
    #[error("internal error in brook (please report it): {message}")]
    Internal {
        /// What went wrong: the panic's message.
        message: String,
    },
    /// An error of a call of a Brook function, placed in the Brook source: at the statement it
    /// is about, else at the function's definition (`Compiled::locate`).
    #[error("{file}:{line}: {error}\n    {line} | {text}")]
    At {
        /// The Brook source file (or the name the source was given).
        file: String,
        /// The line in `file`, counting from 1.
        line: usize,
        /// The source line, trimmed.
        text: String,
        /// The error placed there.
        error: Box<BrookError>,
    },
    /// A misuse with no variant of its own, for host code built on the runtime (generated
    /// kernel functions, applications); the library itself reports the specific variants.
    #[error("{0}")]
    Usage(String),
}

/// A shader the driver rejected: `brook_lines` are the Brook source lines its messages point
/// at (through the source quotes in the generated text), `text` the shader it rejected.
#[derive(Debug, thiserror::Error)]
#[error(
    "the {backend} driver rejected the {stage} shader of `{function}`:\n{log}{}",
    brook_context(brook_lines)
)]
pub struct ShaderRejection {
    /// The backend whose driver rejected it (`GL`).
    pub backend: &'static str,
    /// The kernel or reduce function the shader was generated for.
    pub function: String,
    /// The shader stage (`vertex`, `fragment`, or `linked` for a link failure).
    pub stage: &'static str,
    /// The driver's compile or link log, as it gave it.
    pub log: String,
    /// The Brook source lines the log's messages point at, quoted.
    pub brook_lines: Vec<String>,
    /// The generated shader's full text.
    pub text: String,
}

impl BrookError {
    /// The error itself, without the Brook line a call's error is placed at
    /// ([`BrookError::At`]): what to match on for the kind of mistake.
    pub fn unplaced(&self) -> &BrookError {
        match self {
            BrookError::At { error, .. } => error.unplaced(),
            e => e,
        }
    }

    /// A backend's own failure, wrapped.
    pub fn backend(
        backend: &'static str,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> BrookError {
        BrookError::Backend {
            backend,
            source: Box::new(source),
        }
    }
}

fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 {
        one
    } else {
        many
    }
}

fn brook_context(lines: &[String]) -> String {
    if lines.is_empty() {
        String::new()
    } else {
        format!("\nat Brook source:\n  {}", lines.join("\n  "))
    }
}

/// `<2, 15>`: a shape the way Brook declares it.
pub fn fmt_shape(shape: &[usize]) -> String {
    let parts: Vec<String> = shape.iter().map(usize::to_string).collect();
    format!("<{}>", parts.join(", "))
}
