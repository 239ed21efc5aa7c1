//! Why an application could not be built, run or checked.

use brook::BrookError;

/// Everything that can stop an application, from the runtimes to writing the report.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// A Brook version failed: compile, stream or run error from the runtime.
    #[error(transparent)]
    Brook(#[from] BrookError),
    /// The hand-written GL version hit a GL error or a shader that would not build.
    #[error("hand-written GL: {0}")]
    Gl(String),
    /// The hand-written wgpu version hit a wgpu error (a shader that would not build, a
    /// validation error, a failed read back).
    #[error("hand-written wgpu: {0}")]
    Wgpu(String),
    /// A result that cannot be compared with its reference at all.
    #[error("result mismatch: {0}")]
    Mismatch(String),
    /// A request that makes no sense: an unknown application name on the command line, a
    /// uniform of a size GL has no type for.
    #[error("{0}")]
    Usage(String),
    /// A report file (table, chart, JSON) that could not be written.
    #[error("writing {0}")]
    Write(String),
}

impl From<brook::texture_streams::GlError> for AppError {
    fn from(e: brook::texture_streams::GlError) -> Self {
        AppError::Gl(e.to_string())
    }
}
