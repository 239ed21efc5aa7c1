//! One draw of a linked pass: the step every kernel and reduction pass ends in.

use brook_glsl::UniformValue;
use brook_texture_streams::{GlContext, Texture};
use glow::HasContext;

use crate::args::KernelArg;
use crate::error::PassError;
use crate::linked::LinkedPass;
use crate::runner::texture;
use crate::trace::PassTrace;
use crate::uniforms::{apply, UniformData};

/// The texture of every sampler of `pass`, in texture-unit order, from the call's arguments.
pub fn sampled_textures<'a>(
    pass: &LinkedPass,
    args: &[KernelArg<'a>],
) -> Result<Vec<&'a Texture>, String> {
    pass.plan
        .samplers
        .iter()
        .map(|slot| match args[slot.source.param as usize] {
            KernelArg::Stream(s) | KernelArg::Gather(s) => texture(s.stream, slot.source.member),
            _ => Err("a sampled parameter needs a stream".to_string()),
        })
        .collect()
}

/// Draws `pass` into `targets` (its outputs, in order) over `viewport` (x, y, width, height in
/// texels), with `inputs[k]` on texture unit `k` and each uniform's value from `uniform`
/// (uniforms the driver optimised away are skipped). With `trace`, records the textures and
/// uniform values it bound. The caller has made the context current.
#[allow(clippy::too_many_arguments)]
pub fn draw_pass(
    ctx: &GlContext,
    function: &str,
    pass: &LinkedPass,
    targets: &[&Texture],
    viewport: [i32; 4],
    inputs: &[&Texture],
    uniform: impl FnMut(UniformValue) -> Result<UniformData, String>,
    trace: Option<&mut PassTrace>,
) -> Result<(), PassError> {
    bind_pass(
        ctx, function, pass, targets, viewport, inputs, uniform, trace,
    )?;
    // SAFETY: the context is current; the VAO is its own.
    unsafe {
        let gl = ctx.gl();
        gl.bind_vertex_array(Some(ctx.fullscreen_vao()));
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
    }
    Ok(())
}

/// Everything [`draw_pass`] does but the draw: for passes that draw other primitives (the
/// points of a scatter).
#[allow(clippy::too_many_arguments)]
pub fn bind_pass(
    ctx: &GlContext,
    function: &str,
    pass: &LinkedPass,
    targets: &[&Texture],
    viewport: [i32; 4],
    inputs: &[&Texture],
    mut uniform: impl FnMut(UniformValue) -> Result<UniformData, String>,
    mut trace: Option<&mut PassTrace>,
) -> Result<(), PassError> {
    ctx.framebuffer_for(targets)?;
    let gl = ctx.gl();
    // SAFETY: the context is current and every object bound was created on it.
    unsafe {
        let [x, y, w, h] = viewport;
        gl.viewport(x, y, w, h);
        gl.use_program(Some(pass.program.raw()));
        for ((unit, texture), slot) in inputs.iter().enumerate().zip(&pass.plan.samplers) {
            gl.active_texture(glow::TEXTURE0 + unit as u32);
            gl.bind_texture(glow::TEXTURE_2D, Some(texture.raw()));
            if let Some(t) = trace.as_deref_mut() {
                t.textures
                    .push((slot.uniform.clone(), texture.raw().0.get()));
            }
        }
    }
    for (slot, location) in pass.plan.uniforms.iter().zip(&pass.locations) {
        let Some(location) = location else { continue };
        let data = uniform(slot.value).map_err(|message| PassError::Call {
            kernel: function.to_string(),
            message,
        })?;
        apply(gl, location, &data);
        if let Some(t) = trace.as_deref_mut() {
            t.uniforms.push((slot.uniform.clone(), data));
        }
    }
    Ok(())
}
