//! Everything that can go wrong in a Brook program, in one type.

use brook_cpu::CpuError;
use brook_frontend::Diagnostics;
use brook_passes::PassError;
use brook_texture_streams::{GlError, StreamError};

#[derive(Debug, thiserror::Error)]
pub enum BrookError {
    /// Syntax or type errors, rendered with the source line and a caret.
    #[error("{0}")]
    Compile(Diagnostics),
    #[error(transparent)]
    Gl(#[from] GlError),
    #[error(transparent)]
    Pass(#[from] PassError),
    #[error(transparent)]
    Stream(#[from] StreamError),
    #[error(transparent)]
    Cpu(#[from] CpuError),
    /// A call or argument that does not fit: unknown kernel, a stream of another runtime, …
    #[error("{0}")]
    Usage(String),
    #[error("could not read `{path}`: {reason}")]
    Io { path: String, reason: String },
    /// An error of a call of a Brook function, placed in the Brook source: at the statement it
    /// is about, else at the function's definition (`Program::locate`).
    #[error("{file}:{line}: {error}\n    {line} | {text}")]
    At {
        file: String,
        line: usize,
        /// The source line, trimmed.
        text: String,
        error: Box<BrookError>,
    },
}
