//! Generated passes compiled for one context: each pass's program, its plan (what to bind
//! where) and its uniform locations, looked up once.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use brook_core::{ShaderSource, UniformData};
use brook_glsl::{vertex_shader, KernelProgram, PassProgram};
use brook_texture_streams::{GlContext, Program};
use glow::HasContext;

use crate::error::PassError;
use crate::program::link;

/// Every pass of a kernel variant or reduction step, linked.
pub struct LinkedKernel {
    /// The passes, in the order they are drawn.
    pub passes: Vec<LinkedPass>,
}

/// One pass's program, with everything a draw needs looked up once.
pub struct LinkedPass {
    /// The linked GL program.
    pub program: Program,
    /// What the generator said the program binds: samplers, uniforms, draw buffers.
    pub plan: PassProgram,
    /// Location of `plan.uniforms[i]`; `None` where the driver optimised the uniform away.
    pub locations: Vec<Option<glow::UniformLocation>>,
    /// The program's text, shared with every trace of it.
    pub source: Arc<ShaderSource>,
    /// What each uniform was last set to in this program (uniforms are program state, kept
    /// between draws), so the executor sets only those that changed.
    pub set: RefCell<Vec<Option<UniformData>>>,
}

impl LinkedKernel {
    /// Links every pass of `generated` with the covering-triangle vertex shader.
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
    pub fn link(
        ctx: &Rc<GlContext>,
        function: &str,
        vertex: &str,
        plan: PassProgram,
    ) -> Result<LinkedPass, PassError> {
        // Checked here rather than left to the driver, whose refusal at link names no Brook
        // parameter ("Too many fragment shader texture samplers").
        let max = ctx.caps().max_texture_units;
        if plan.samplers.len() > max as usize {
            return Err(PassError::DeviceLimit {
                call: format!("kernel `{function}`"),
                message: format!(
                    "reads {} textures in one pass (one per member of each input and gathered stream), but this GL driver allows {max} per shader; pass fewer streams, or pack them into float4s or structs of fewer members",
                    plan.samplers.len()
                ),
            });
        }
        let program = link(ctx, function, vertex, &plan.fragment)?;
        let gl = ctx.gl();
        // SAFETY: the program was just linked on this (current) context.
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
            ctx.check_error("setting up a program")?;
            let source = Arc::new(ShaderSource::Raster {
                vertex: vertex.to_string(),
                fragment: plan.fragment.clone(),
            });
            Ok(LinkedPass {
                set: RefCell::new(vec![None; plan.uniforms.len()]),
                program,
                plan,
                locations,
                source,
            })
        }
    }
}

/// The GLSL dialect of a context: an ES context of 3.2 or later gets ES 3.20's, which has
/// `precise` (`brook_glsl::Profile::header`).
pub fn profile(ctx: &GlContext) -> brook_glsl::Profile {
    match ctx.profile() {
        brook_texture_streams::Profile::Gl33Core => brook_glsl::Profile::Gl33Core,
        brook_texture_streams::Profile::Es30 => {
            let version = ctx.gl().version();
            if (version.major, version.minor) >= (3, 2) {
                brook_glsl::Profile::Es32
            } else {
                brook_glsl::Profile::Es30
            }
        }
    }
}
