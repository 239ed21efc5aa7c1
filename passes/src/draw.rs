//! One draw of a linked pass: the step every kernel and reduction pass ends in.

use brook_glsl::UniformValue;
use brook_texture_streams::{GlContext, Layout, Texture};
use glow::HasContext;

use crate::args::KernelArg;
use crate::error::PassError;
use crate::linked::LinkedPass;
use crate::runner::texture;

/// The texture of every sampler of `pass`, in texture-unit order, from the call's arguments.
pub fn sampled_textures<'a>(
    pass: &LinkedPass,
    args: &[KernelArg<'a>],
) -> Result<Vec<&'a Texture>, String> {
    pass.plan
        .samplers
        .iter()
        .map(|slot| match args[slot.source.param as usize] {
            KernelArg::Stream(s) | KernelArg::Gather(s) => texture(s, slot.source.member),
            _ => Err("a sampled parameter needs a stream".to_string()),
        })
        .collect()
}

/// Draws `pass` over the texels of `layout` into `targets` (its outputs, in order), with
/// `inputs[k]` on texture unit `k` and each uniform set by `uniform`. The caller has made
/// the context current.
pub fn draw_pass(
    ctx: &GlContext,
    function: &str,
    pass: &LinkedPass,
    targets: &[&Texture],
    layout: &Layout,
    inputs: &[&Texture],
    mut uniform: impl FnMut(
        &glow::Context,
        Option<&glow::UniformLocation>,
        UniformValue,
    ) -> Result<(), String>,
) -> Result<(), PassError> {
    ctx.framebuffer_for(targets)?;
    let gl = ctx.gl();
    // SAFETY: the context is current and every object bound was created on it.
    unsafe {
        gl.viewport(0, 0, layout.width() as i32, layout.height() as i32);
        gl.use_program(Some(pass.program.raw()));
        for (unit, texture) in inputs.iter().enumerate() {
            gl.active_texture(glow::TEXTURE0 + unit as u32);
            gl.bind_texture(glow::TEXTURE_2D, Some(texture.raw()));
        }
    }
    for (slot, location) in pass.plan.uniforms.iter().zip(&pass.locations) {
        uniform(gl, location.as_ref(), slot.value).map_err(|message| PassError::Call {
            kernel: function.to_string(),
            message,
        })?;
    }
    // SAFETY: as above.
    unsafe {
        gl.bind_vertex_array(Some(ctx.fullscreen_vao()));
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
    }
    Ok(())
}
