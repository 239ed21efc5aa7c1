//! Everything that can go wrong while viewing a stream, in one type.

use brook::texture_streams::{GlError, StoreError};
use brook::BrookError;

/// Why a stream could not be viewed, drawn or saved.
#[derive(Debug, thiserror::Error)]
pub enum VizError {
    /// A Brook operation (a kernel call, a stream read) failed.
    #[error(transparent)]
    Brook(#[from] BrookError),
    /// A GL call of the renderer failed.
    #[error(transparent)]
    Gl(#[from] GlError),
    /// A stream of another backend could not be staged into the renderer's textures.
    #[error("staging the stream for drawing: {0}")]
    Staging(#[from] StoreError),
    /// Drawing a wgpu stream with wgpu failed (a pipeline, a draw or its read-back).
    #[error("wgpu view: {0}")]
    Wgpu(String),
    /// A view shader did not compile or link; the driver's log is included.
    #[error("viz shader `{what}` failed: {log}")]
    Shader {
        /// Which view program (`image view`, `plot/points view`).
        what: String,
        /// The driver's compile or link log.
        log: String,
    },
    /// The window, its GL context or its event loop could not be set up.
    #[error("window: {0}")]
    Window(String),
    /// A PNG could not be written.
    #[error("PNG `{path}`: {reason}")]
    Image {
        /// The file.
        path: String,
        /// Why: the encoder's or the operating system's message.
        reason: String,
    },
    /// The pipeline explorer's site could not be written (`--explain`).
    #[error("explain: {0}")]
    Explain(#[from] brook::explain::ExplainError),
    /// A view that does not fit the stream, a bad size, a bad command line.
    #[error("{0}")]
    Usage(String),
}
