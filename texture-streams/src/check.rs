//! Draining `glGetError` into a [`GlError`].
//!
//! GL records errors in flags that stay set until read, so an error left by
//! one operation would be blamed on the next check. Every check therefore reads
//! the flags until `GL_NO_ERROR` and reports the first one, naming the
//! operation the caller was doing.

use glow::HasContext;

use crate::error::GlError;

/// GL implementations keep at most one flag per error kind, but a lost context
/// may answer the same error forever; stop draining after this many reads.
const MAX_DRAINED_ERRORS: usize = 16;

/// Reads every pending GL error; `Err` with the first one if there was any.
pub(crate) fn check_gl(gl: &glow::Context, what: &str) -> Result<(), GlError> {
    check_gl_with(gl, || what.to_owned())
}

/// [`check_gl`] with the operation's name built only when there is an error to report (a
/// check after every call must not format a message every call).
pub(crate) fn check_gl_with(
    gl: &glow::Context,
    what: impl FnOnce() -> String,
) -> Result<(), GlError> {
    let mut first = None;
    for _ in 0..MAX_DRAINED_ERRORS {
        // SAFETY: glGetError has no preconditions beyond a current context,
        // which every caller in this crate ensures.
        let code = unsafe { gl.get_error() };
        if code == glow::NO_ERROR {
            break;
        }
        first.get_or_insert(code);
    }
    match first {
        None => Ok(()),
        Some(code) => Err(GlError::Gl {
            what: what(),
            code,
            name: error_name(code),
        }),
    }
}

/// The symbolic name of a `glGetError` code.
fn error_name(code: u32) -> &'static str {
    match code {
        glow::INVALID_ENUM => "GL_INVALID_ENUM",
        glow::INVALID_VALUE => "GL_INVALID_VALUE",
        glow::INVALID_OPERATION => "GL_INVALID_OPERATION",
        glow::INVALID_FRAMEBUFFER_OPERATION => "GL_INVALID_FRAMEBUFFER_OPERATION",
        glow::OUT_OF_MEMORY => "GL_OUT_OF_MEMORY",
        glow::STACK_UNDERFLOW => "GL_STACK_UNDERFLOW",
        glow::STACK_OVERFLOW => "GL_STACK_OVERFLOW",
        glow::CONTEXT_LOST => "GL_CONTEXT_LOST",
        _ => "unknown GL error",
    }
}

#[cfg(test)]
mod tests {
    use super::error_name;

    #[test]
    fn names_the_common_codes() {
        assert_eq!(error_name(0x0502), "GL_INVALID_OPERATION");
        assert_eq!(error_name(0x0505), "GL_OUT_OF_MEMORY");
        assert_eq!(error_name(0x1234), "unknown GL error");
    }
}
