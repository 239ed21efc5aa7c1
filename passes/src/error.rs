//! Why a Brook call could not run on GL.

use brook_glsl::GenError;
use brook_texture_streams::{GlError, StreamError};

#[derive(Debug, thiserror::Error)]
pub enum PassError {
    #[error(transparent)]
    Generate(#[from] GenError),
    #[error(transparent)]
    Gl(#[from] GlError),
    #[error(transparent)]
    Stream(#[from] StreamError),
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
    /// A pass would sample more textures than the driver allows in one shader: every member
    /// of every input and gather stream is a texture.
    #[error(
        "kernel `{kernel}` reads {textures} textures in one pass (one per member of each input and gathered stream), but this GL driver allows {max} per shader; pass fewer streams, or pack them into float4s or structs of fewer members"
    )]
    TooManyTextures {
        kernel: String,
        textures: usize,
        max: u32,
    },
    /// A loop of the kernel ended early because the driver caps loop iterations (llvmpipe:
    /// 65,535 per element over all loops), so the call's results would be wrong.
    #[error(
        "kernel `{kernel}`: the loop at {at} did not finish: this driver ({renderer}) ends a shader's loops after {cap} iterations in all, without an error, so the call's results would be wrong. Bound the loop by constants within {cap} iterations, split the work over several calls, or run on the CPU backend"
    )]
    LoopCut {
        kernel: String,
        /// `file.br:LINE: the line`.
        at: String,
        renderer: String,
        cap: u32,
    },
}

fn brook_context(lines: &[String]) -> String {
    if lines.is_empty() {
        String::new()
    } else {
        format!("\nat Brook source:\n  {}", lines.join("\n  "))
    }
}
