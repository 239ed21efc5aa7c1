//! Why a Brook call could not run on GL, and how that reads as a [`BrookError`].

use brook_core::{BrookError, Compiled, ShaderRejection};
use brook_glsl::GenError;
use brook_texture_streams::{GlError, StoreError};

/// Why a GL call failed, before it becomes a [`BrookError`] (see `From<PassError>`).
#[derive(Debug, thiserror::Error)]
pub enum PassError {
    /// A check of the runtime's (brook-core), passed through.
    #[error(transparent)]
    Brook(#[from] BrookError),
    /// A stream request that makes no sense on any device (shape, format, domain).
    #[error(transparent)]
    Request(#[from] brook_core::StreamError),
    /// The GLSL generator could not express the kernel (see [`GenError`]).
    #[error(transparent)]
    Generate(#[from] GenError),
    /// A GL call failed (a GL error, an incomplete framebuffer).
    #[error(transparent)]
    Gl(#[from] GlError),
    /// Stream storage could not be made (a bad request, too large for the textures, GL).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The driver rejected a generated shader; `brook_lines` are the Brook source lines its
    /// messages point at (through the source quotes in the generated text).
    #[error("the GL driver rejected the {stage} shader of `{function}`:\n{log}")]
    Compile {
        /// The kernel or reduce function the shader was generated for.
        function: String,
        /// `vertex`, `fragment`, or `linked` for a link failure.
        stage: &'static str,
        /// The driver's log.
        log: String,
        /// The Brook source lines the log points at, quoted.
        brook_lines: Vec<String>,
        /// The generated shader's full text.
        glsl: String,
    },
    /// Something this GL cannot do at all.
    #[error("{call}: {message}")]
    Unsupported {
        /// The call that asked for it.
        call: String,
        /// What is missing, and what to do instead.
        message: String,
    },
    /// Something this GL cannot do at this size.
    #[error("{call}: {message}")]
    DeviceLimit {
        /// The call that asked for it.
        call: String,
        /// Which limit, and the size asked for.
        message: String,
    },
    /// An inconsistency between a call and the programs generated for it (a bug of this
    /// crate or of the generator, not of the Brook program).
    #[error("{call}: {message}")]
    Call {
        /// The call that found it.
        call: String,
        /// What did not match.
        message: String,
    },
}

/// A [`PassError::Call`].
pub fn call_error(call: &str, message: String) -> PassError {
    PassError::Call {
        call: call.to_string(),
        message,
    }
}

impl PassError {
    /// The error as a [`BrookError`], placed at the Brook statement a generation error is
    /// about (a loop nested too deep); other errors are placed by the runtime.
    pub fn placed(self, compiled: &Compiled) -> BrookError {
        match &self {
            PassError::Generate(GenError::At { span, .. }) => {
                compiled.at(span.start, BrookError::from(self))
            }
            _ => BrookError::from(self),
        }
    }
}

impl From<PassError> for BrookError {
    fn from(e: PassError) -> BrookError {
        match e {
            PassError::Brook(e) => e,
            PassError::Request(e) => BrookError::Stream(e),
            PassError::Store(StoreError::Invalid(e)) => BrookError::Stream(e),
            PassError::Store(e @ StoreError::TooLarge { .. }) => BrookError::DeviceLimit {
                call: "stream".into(),
                message: e.to_string(),
            },
            PassError::Store(StoreError::Gl(e)) | PassError::Gl(e) => BrookError::backend("GL", e),
            PassError::Generate(e) => BrookError::Unsupported {
                call: "GLSL generation".into(),
                message: e.to_string(),
            },
            PassError::Compile {
                function,
                stage,
                log,
                brook_lines,
                glsl,
            } => BrookError::ShaderRejected(Box::new(ShaderRejection {
                backend: "GL",
                function,
                stage,
                log,
                brook_lines,
                text: glsl,
            })),
            PassError::Unsupported { call, message } => BrookError::Unsupported { call, message },
            PassError::DeviceLimit { call, message } => BrookError::DeviceLimit { call, message },
            e @ PassError::Call { .. } => BrookError::backend("GL", e),
        }
    }
}
