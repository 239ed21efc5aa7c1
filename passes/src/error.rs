//! Why a Brook call could not run on GL.

use brook_glsl::GenError;
use brook_texture_streams::{GlError, StoreError};

#[derive(Debug, thiserror::Error)]
pub enum PassError {
    #[error(transparent)]
    Request(#[from] brook_core::StreamError),
    #[error(transparent)]
    Generate(#[from] GenError),
    #[error(transparent)]
    Gl(#[from] GlError),
    #[error(transparent)]
    Stream(#[from] StoreError),
    /// The driver rejected a generated shader; `brook_lines` are the Brook source lines its
    /// messages point at (through the source quotes in the generated text).
    #[error(
        "the GL driver rejected the {stage} shader of kernel `{kernel}`:\n{log}{}",
        brook_context(brook_lines)
    )]
    Compile {
        kernel: String,
        stage: &'static str,
        log: String,
        brook_lines: Vec<String>,
        glsl: String,
    },
    #[error("kernel `{kernel}`: {message}")]
    Call { kernel: String, message: String },
}

fn brook_context(lines: &[String]) -> String {
    if lines.is_empty() {
        String::new()
    } else {
        format!("\nat Brook source:\n  {}", lines.join("\n  "))
    }
}
