//! A linked GL program for viz's own shaders, owned: deleted on drop.

use std::rc::Rc;

use brook::texture_streams::GlContext;
use glow::HasContext;

use crate::error::VizError;

/// A vertex + fragment program of the context's GLSL dialect.
pub(crate) struct Program {
    ctx: Rc<GlContext>,
    raw: glow::Program,
}

impl Program {
    /// Compiles and links `vertex` and `fragment` (complete sources, `#version` line
    /// included); `what` names the program in errors.
    pub fn new(
        ctx: &Rc<GlContext>,
        what: &str,
        vertex: &str,
        fragment: &str,
    ) -> Result<Program, VizError> {
        ctx.make_current()?;
        let gl = ctx.gl();
        // SAFETY: object creation and queries on the current context; every object made here
        // is deleted here or owned by the returned value.
        unsafe {
            let raw = gl.create_program().map_err(|log| shader_error(what, log))?;
            let mut shaders = Vec::new();
            for (stage, body) in [
                (glow::VERTEX_SHADER, vertex),
                (glow::FRAGMENT_SHADER, fragment),
            ] {
                let shader = gl
                    .create_shader(stage)
                    .map_err(|log| shader_error(what, log))?;
                gl.shader_source(shader, body);
                gl.compile_shader(shader);
                if !gl.get_shader_compile_status(shader) {
                    let log = gl.get_shader_info_log(shader);
                    gl.delete_shader(shader);
                    for s in shaders {
                        gl.delete_shader(s);
                    }
                    gl.delete_program(raw);
                    return Err(shader_error(what, log));
                }
                gl.attach_shader(raw, shader);
                shaders.push(shader);
            }
            gl.link_program(raw);
            for shader in shaders {
                gl.detach_shader(raw, shader);
                gl.delete_shader(shader);
            }
            if !gl.get_program_link_status(raw) {
                let log = gl.get_program_info_log(raw);
                gl.delete_program(raw);
                return Err(shader_error(what, log));
            }
            ctx.check_error(&format!("building the viz program `{what}`"))?;
            Ok(Program {
                ctx: Rc::clone(ctx),
                raw,
            })
        }
    }

    /// Makes this the current program.
    pub fn bind(&self) {
        // SAFETY: the program is live on the current context.
        unsafe { self.ctx.gl().use_program(Some(self.raw)) };
    }

    /// Uniform setters on the bound program; unknown names (optimised away) are skipped.
    pub fn set_i32(&self, name: &str, v: i32) {
        if let Some(l) = self.location(name) {
            // SAFETY: `l` belongs to this program, which is bound.
            unsafe { self.ctx.gl().uniform_1_i32(Some(&l), v) };
        }
    }

    pub fn set_ivec2(&self, name: &str, v: [i32; 2]) {
        if let Some(l) = self.location(name) {
            // SAFETY: as above.
            unsafe { self.ctx.gl().uniform_2_i32(Some(&l), v[0], v[1]) };
        }
    }

    pub fn set_f32(&self, name: &str, v: f32) {
        if let Some(l) = self.location(name) {
            // SAFETY: as above.
            unsafe { self.ctx.gl().uniform_1_f32(Some(&l), v) };
        }
    }

    pub fn set_vec2(&self, name: &str, v: [f32; 2]) {
        if let Some(l) = self.location(name) {
            // SAFETY: as above.
            unsafe { self.ctx.gl().uniform_2_f32(Some(&l), v[0], v[1]) };
        }
    }

    pub fn set_vec3(&self, name: &str, v: [f32; 3]) {
        if let Some(l) = self.location(name) {
            // SAFETY: as above.
            unsafe { self.ctx.gl().uniform_3_f32(Some(&l), v[0], v[1], v[2]) };
        }
    }

    pub fn set_vec4(&self, name: &str, v: [f32; 4]) {
        if let Some(l) = self.location(name) {
            // SAFETY: as above.
            unsafe {
                self.ctx
                    .gl()
                    .uniform_4_f32(Some(&l), v[0], v[1], v[2], v[3])
            };
        }
    }

    /// A `vec3` array uniform, from its first element.
    pub fn set_vec3_array(&self, name: &str, v: &[[f32; 3]]) {
        if let Some(l) = self.location(name) {
            let flat: Vec<f32> = v.iter().flatten().copied().collect();
            // SAFETY: as above; the array uniform has at least `v.len()` elements (callers
            // keep to the declared size).
            unsafe { self.ctx.gl().uniform_3_f32_slice(Some(&l), &flat) };
        }
    }

    fn location(&self, name: &str) -> Option<glow::UniformLocation> {
        // SAFETY: a query on a live program of the current context.
        unsafe { self.ctx.gl().get_uniform_location(self.raw, name) }
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        if self.ctx.make_current().is_ok() {
            // SAFETY: the program was made by this context and is deleted once.
            unsafe { self.ctx.gl().delete_program(self.raw) };
        }
    }
}

fn shader_error(what: &str, log: String) -> VizError {
    VizError::Shader {
        what: what.to_string(),
        log,
    }
}
