//! Why a Brook call could not run on GL, and how that reads as a [`BrookError`].

use brook_core::{BrookError, Compiled, ShaderRejection};
use brook_glsl::GenError;
use brook_texture_streams::{GlError, StoreError};

#[derive(Debug, thiserror::Error)]
pub enum PassError {
    /// A check of the runtime's (brook-core), passed through.
    #[error(transparent)]
    Brook(#[from] BrookError),
    #[error(transparent)]
    Request(#[from] brook_core::StreamError),
    #[error(transparent)]
    Generate(#[from] GenError),
    #[error(transparent)]
    Gl(#[from] GlError),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The driver rejected a generated shader; `brook_lines` are the Brook source lines its
    /// messages point at (through the source quotes in the generated text).
    #[error("the GL driver rejected the {stage} shader of `{function}`:\n{log}")]
    Compile {
        function: String,
        stage: &'static str,
        log: String,
        brook_lines: Vec<String>,
        glsl: String,
    },
    /// Something this GL cannot do at all.
    #[error("{call}: {message}")]
    Unsupported { call: String, message: String },
    /// Something this GL cannot do at this size.
    #[error("{call}: {message}")]
    DeviceLimit { call: String, message: String },
    /// An inconsistency between a call and the programs generated for it (a bug of this
    /// crate or of the generator, not of the Brook program).
    #[error("{call}: {message}")]
    Call { call: String, message: String },
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
