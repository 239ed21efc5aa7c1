//! A linked GL program for viz's own shaders, owned: deleted on drop.

use std::rc::Rc;

use brook::texture_streams::{self, GlContext};
use glow::HasContext;

use crate::error::VizError;

/// A vertex + fragment program of the context's GLSL dialect, with uniform setters by name.
pub(crate) struct Program {
    ctx: Rc<GlContext>,
    linked: texture_streams::Program,
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
        let linked =
            texture_streams::Program::link(ctx, vertex, fragment).map_err(|e| match e {
                texture_streams::GlError::Shader { log, .. } => VizError::Shader {
                    what: what.to_string(),
                    log,
                },
                other => other.into(),
            })?;
        Ok(Program {
            ctx: Rc::clone(ctx),
            linked,
        })
    }

    /// Makes this the current program.
    pub fn bind(&self) {
        // SAFETY: the program is live on the current context.
        unsafe { self.ctx.gl().use_program(Some(self.linked.raw())) };
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
        unsafe { self.ctx.gl().get_uniform_location(self.linked.raw(), name) }
    }
}
