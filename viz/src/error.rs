//! Everything that can go wrong while viewing a stream, in one type.

use brook::texture_streams::{GlError, StoreError};
use brook::BrookError;

#[derive(Debug, thiserror::Error)]
pub enum VizError {
    /// A Brook operation (a kernel call, a stream read) failed.
    #[error(transparent)]
    Brook(#[from] BrookError),
    #[error(transparent)]
    Gl(#[from] GlError),
    /// A stream of another backend could not be staged into the renderer's textures.
    #[error("staging the stream for drawing: {0}")]
    Staging(#[from] StoreError),
    /// A view shader did not compile or link; the driver's log is included.
    #[error("viz shader `{what}` failed: {log}")]
    Shader { what: String, log: String },
    /// The window, its GL context or its event loop could not be set up.
    #[error("window: {0}")]
    Window(String),
    #[error("PNG `{path}`: {reason}")]
    Image { path: String, reason: String },
    /// A view that does not fit the stream, a bad size, a bad command line.
    #[error("{0}")]
    Usage(String),
}
