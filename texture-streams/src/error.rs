//! The two error types of this crate.
//!
//! [`GlError`] is about the device: the context could not be made, the driver
//! reported an error, a needed feature is missing. [`StoreError`] is about what
//! the program asked for: a shape, a size or a domain that makes no sense
//! ([`brook_core::StreamError`]), or a stream that does not fit the device. A
//! `GlError` met while serving a stream request is wrapped in [`StoreError::Gl`].

use thiserror::Error;

/// Something went wrong talking to OpenGL.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GlError {
    /// The headless context could not be created (no EGL library, no device,
    /// no config or context of the requested profile) or made current.
    #[error("headless OpenGL context: {reason}\nhint: {hint}")]
    Context {
        /// What EGL or glutin said.
        reason: String,
        /// What the user can do about it.
        hint: String,
    },

    /// `glGetError` reported `code` after the operation `what`.
    #[error("OpenGL error {name} (0x{code:04X}) after {what}")]
    Gl {
        /// The operation that was being checked, e.g. "allocating a 64x64 RGBA32F texture".
        what: String,
        /// The raw error code.
        code: u32,
        /// Its symbolic name, e.g. "GL_INVALID_OPERATION".
        name: &'static str,
    },

    /// The device lacks a feature the runtime depends on.
    #[error("unsupported: {0}")]
    Unsupported(String),

    /// `glCheckFramebufferStatus` did not answer `GL_FRAMEBUFFER_COMPLETE`.
    #[error("framebuffer incomplete: {} (0x{status:04X})", framebuffer_status_name(*status))]
    FramebufferIncomplete {
        /// The raw status.
        status: u32,
    },

    /// The caller passed something this crate cannot act on (a rectangle outside
    /// a texture, a texture of another context, an empty attachment list, a zero
    /// limit override).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    /// The driver rejected a shader: `stage` is "vertex", "fragment" or "linked", `log` the
    /// driver's message and `text` the source it rejected.
    #[error("the GL driver rejected the {stage} shader:\n{log}")]
    Shader {
        /// `"vertex"`, `"fragment"` or `"linked"`.
        stage: &'static str,
        /// The driver's info log.
        log: String,
        /// The GLSL source of the rejected stage (the fragment shader's, for a link failure).
        text: String,
    },
}

/// Why a stream could not be stored on the device.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StoreError {
    /// A request that makes no sense on any device: a bad shape, domain, format or host
    /// array size.
    #[error(transparent)]
    Invalid(#[from] brook_core::StreamError),

    /// The stream has more elements than one texture of the device can hold.
    #[error(
        "stream of {elements} elements does not fit the device: at most {max_elements} = \
         MAX_TEXTURE_SIZE\u{b2} elements (MAX_TEXTURE_SIZE = {max_texture_size})"
    )]
    TooLarge {
        /// Elements asked for.
        elements: usize,
        /// `max_texture_size²`.
        max_elements: u64,
        /// The texture size limit the layout was computed with.
        max_texture_size: u32,
    },

    /// The device failed while serving the request.
    #[error(transparent)]
    Gl(#[from] GlError),
}

/// The symbolic name of a `glCheckFramebufferStatus` answer.
fn framebuffer_status_name(status: u32) -> &'static str {
    match status {
        glow::FRAMEBUFFER_COMPLETE => "GL_FRAMEBUFFER_COMPLETE",
        glow::FRAMEBUFFER_UNDEFINED => "GL_FRAMEBUFFER_UNDEFINED",
        glow::FRAMEBUFFER_INCOMPLETE_ATTACHMENT => "GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT",
        glow::FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT => {
            "GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT"
        }
        glow::FRAMEBUFFER_INCOMPLETE_DRAW_BUFFER => "GL_FRAMEBUFFER_INCOMPLETE_DRAW_BUFFER",
        glow::FRAMEBUFFER_INCOMPLETE_READ_BUFFER => "GL_FRAMEBUFFER_INCOMPLETE_READ_BUFFER",
        glow::FRAMEBUFFER_UNSUPPORTED => "GL_FRAMEBUFFER_UNSUPPORTED",
        glow::FRAMEBUFFER_INCOMPLETE_MULTISAMPLE => "GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE",
        glow::FRAMEBUFFER_INCOMPLETE_LAYER_TARGETS => "GL_FRAMEBUFFER_INCOMPLETE_LAYER_TARGETS",
        _ => "unknown framebuffer status",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_numbers() {
        let too_large = StoreError::TooLarge {
            elements: 300,
            max_elements: 256,
            max_texture_size: 16,
        };
        assert_eq!(
            too_large.to_string(),
            "stream of 300 elements does not fit the device: at most 256 = MAX_TEXTURE_SIZE\u{b2} \
             elements (MAX_TEXTURE_SIZE = 16)"
        );
        let incomplete = GlError::FramebufferIncomplete {
            status: glow::FRAMEBUFFER_UNSUPPORTED,
        };
        assert_eq!(
            incomplete.to_string(),
            "framebuffer incomplete: GL_FRAMEBUFFER_UNSUPPORTED (0x8CDD)"
        );
        let gl = GlError::Gl {
            what: "uploading".into(),
            code: glow::INVALID_VALUE,
            name: "GL_INVALID_VALUE",
        };
        assert_eq!(
            gl.to_string(),
            "OpenGL error GL_INVALID_VALUE (0x0501) after uploading"
        );
    }
}
