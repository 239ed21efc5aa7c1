//! A kernel variant compiled for one context: its passes' programs and uniform locations.

use std::rc::Rc;

use brook_glsl::{vertex_shader, KernelProgram, PassProgram};
use brook_texture_streams::GlContext;
use glow::HasContext;

use crate::error::PassError;
use crate::program::link;
use brook_texture_streams::Program;

/// Every pass of a kernel variant, linked, with everything a call needs looked up once.
pub struct LinkedKernel {
    pub passes: Vec<LinkedPass>,
}

pub struct LinkedPass {
    pub program: Program,
    pub plan: PassProgram,
    /// Location of `plan.uniforms[i]`; `None` where the driver optimised the uniform away.
    pub locations: Vec<Option<glow::UniformLocation>>,
}

impl LinkedKernel {
    pub fn link(ctx: &Rc<GlContext>, generated: KernelProgram) -> Result<LinkedKernel, PassError> {
        let vertex = vertex_shader(profile(ctx));
        let passes = generated
            .passes
            .into_iter()
            .map(|plan| LinkedPass::link(ctx, &generated.kernel, &vertex, plan))
            .collect::<Result<_, _>>()?;
        Ok(LinkedKernel { passes })
    }
}

impl LinkedPass {
    /// Links one pass with `vertex` as its vertex shader; every sampler gets its unit.
    pub(crate) fn link(
        ctx: &Rc<GlContext>,
        kernel: &str,
        vertex: &str,
        plan: PassProgram,
    ) -> Result<LinkedPass, PassError> {
        // Checked here rather than left to the driver, whose refusal at link names no Brook
        // parameter ("Too many fragment shader texture samplers").
        let max = ctx.caps().max_texture_units;
        if plan.samplers.len() > max as usize {
            return Err(PassError::TooManyTextures {
                kernel: kernel.to_string(),
                textures: plan.samplers.len(),
                max,
            });
        }
        let program = link(ctx, kernel, vertex, &plan.fragment)?;
        let gl = ctx.gl();
        unsafe {
            gl.use_program(Some(program.raw()));
            // Sampler k always reads texture unit k: set once here, never per call.
            for (unit, slot) in plan.samplers.iter().enumerate() {
                let location = gl.get_uniform_location(program.raw(), &slot.uniform);
                gl.uniform_1_i32(location.as_ref(), unit as i32);
            }
            let locations = plan
                .uniforms
                .iter()
                .map(|u| gl.get_uniform_location(program.raw(), &u.uniform))
                .collect();
            ctx.check_error("setting up a kernel program")?;
            Ok(LinkedPass {
                program,
                plan,
                locations,
            })
        }
    }
}

/// The GLSL dialect of a context.
pub fn profile(ctx: &GlContext) -> brook_glsl::Profile {
    match ctx.profile() {
        brook_texture_streams::Profile::Gl33Core => brook_glsl::Profile::Gl33Core,
        brook_texture_streams::Profile::Es30 => brook_glsl::Profile::Es30,
    }
}
