//! A linked vertex + fragment program, owned by a Rust value and deleted on drop. Kernels,
//! reductions and viz all build theirs here; each caller words the driver's log its own way.

use std::rc::Rc;

use glow::HasContext;

use crate::context::GlContext;
use crate::error::GlError;

/// A GL program object: a vertex and a fragment shader linked together, deleted when
/// dropped.
pub struct Program {
    ctx: Rc<GlContext>,
    raw: glow::Program,
}

impl Program {
    /// Compiles `vertex` and `fragment` (complete sources, `#version` included) and links
    /// them. A rejected stage is `GlError::Shader` with the driver's log and the stage's text.
    pub fn link(ctx: &Rc<GlContext>, vertex: &str, fragment: &str) -> Result<Program, GlError> {
        ctx.make_current()?;
        let gl = ctx.gl();
        let no_object =
            |e: String| GlError::Unsupported(format!("the driver made no shader object: {e}"));
        // SAFETY: object creation and queries on the current context; every object made here
        // is deleted here or owned by the returned value.
        unsafe {
            let program = Program {
                ctx: ctx.clone(),
                raw: gl.create_program().map_err(no_object)?,
            };
            let mut shaders = Vec::new();
            let mut failure = None;
            for (stage, kind, text) in [
                ("vertex", glow::VERTEX_SHADER, vertex),
                ("fragment", glow::FRAGMENT_SHADER, fragment),
            ] {
                let shader = gl.create_shader(kind).map_err(no_object)?;
                gl.shader_source(shader, text);
                gl.compile_shader(shader);
                shaders.push(shader);
                if !gl.get_shader_compile_status(shader) {
                    failure = Some(GlError::Shader {
                        stage,
                        log: gl.get_shader_info_log(shader),
                        text: text.to_string(),
                    });
                    break;
                }
                gl.attach_shader(program.raw, shader);
            }
            if failure.is_none() {
                gl.link_program(program.raw);
                if !gl.get_program_link_status(program.raw) {
                    failure = Some(GlError::Shader {
                        stage: "linked",
                        log: gl.get_program_info_log(program.raw),
                        text: fragment.to_string(),
                    });
                }
            }
            for s in shaders {
                gl.detach_shader(program.raw, s);
                gl.delete_shader(s);
            }
            if let Some(failure) = failure {
                return Err(failure);
            }
            ctx.check_error("linking a program")?;
            ctx.count(1, 0);
            Ok(program)
        }
    }

    /// The GL name, to bind it and set its uniforms.
    pub fn raw(&self) -> glow::Program {
        self.raw
    }

    /// The context the program belongs to (and is only valid in).
    pub fn context(&self) -> &Rc<GlContext> {
        &self.ctx
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        if self.ctx.make_current().is_ok() {
            // SAFETY: the program was made by this context and is deleted once.
            unsafe { self.ctx.gl().delete_program(self.raw) };
            self.ctx.count(-1, 0);
        }
    }
}
