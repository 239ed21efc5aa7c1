//! A write mask made by hand in glow, as Brook's GL backend makes one (000 §7.4.2): the mask
//! (one float per texel) is uploaded and drawn once into a depth texture, 1.0 where it is
//! non-zero and 0.0 elsewhere; [`super::handwritten_kernel::HandKernel::set_mask`] attaches it.

use glow::HasContext;

use super::gl_program::link;

const FRAGMENT: &str = "#version 330 core
uniform sampler2D mask;
void main() {
    gl_FragDepth = texelFetch(mask, ivec2(gl_FragCoord.xy), 0).x != 0.0 ? 1.0 : 0.0;
}
";

/// The depth texture of a mask, owned and deleted on drop.
pub struct HandMask<'a> {
    gl: &'a glow::Context,
    depth: glow::Texture,
}

impl<'a> HandMask<'a> {
    /// Draws `mask` (`width × height` floats, row-major) into a new depth texture.
    pub fn new(gl: &'a glow::Context, (width, height): (usize, usize), mask: &[f32]) -> Self {
        let (w, h) = (width as i32, height as i32);
        unsafe {
            let source = gl.create_texture().unwrap();
            gl.bind_texture(glow::TEXTURE_2D, Some(source));
            gl.tex_storage_2d(glow::TEXTURE_2D, 1, glow::R32F, w, h);
            gl.tex_sub_image_2d(
                glow::TEXTURE_2D,
                0,
                0,
                0,
                w,
                h,
                glow::RED,
                glow::FLOAT,
                glow::PixelUnpackData::Slice(Some(bytemuck::cast_slice(mask))),
            );
            let depth = gl.create_texture().unwrap();
            gl.bind_texture(glow::TEXTURE_2D, Some(depth));
            gl.tex_storage_2d(glow::TEXTURE_2D, 1, glow::DEPTH_COMPONENT32F, w, h);
            let framebuffer = gl.create_framebuffer().unwrap();
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(framebuffer));
            gl.framebuffer_texture_2d(
                glow::FRAMEBUFFER,
                glow::DEPTH_ATTACHMENT,
                glow::TEXTURE_2D,
                Some(depth),
                0,
            );
            gl.draw_buffers(&[glow::NONE]);
            assert_eq!(
                gl.check_framebuffer_status(glow::FRAMEBUFFER),
                glow::FRAMEBUFFER_COMPLETE
            );
            let program = link(gl, FRAGMENT);
            gl.uniform_1_i32(gl.get_uniform_location(program, "mask").as_ref(), 0);
            gl.active_texture(glow::TEXTURE0);
            gl.bind_texture(glow::TEXTURE_2D, Some(source));
            gl.viewport(0, 0, w, h);
            let vao = gl.create_vertex_array().unwrap();
            gl.bind_vertex_array(Some(vao));
            // Depth is only written while the depth test is on.
            gl.enable(glow::DEPTH_TEST);
            gl.depth_func(glow::ALWAYS);
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            gl.disable(glow::DEPTH_TEST);
            gl.depth_func(glow::LESS);
            gl.delete_vertex_array(vao);
            gl.delete_program(program);
            gl.delete_framebuffer(framebuffer);
            gl.delete_texture(source);
            assert_eq!(gl.get_error(), glow::NO_ERROR);
            HandMask { gl, depth }
        }
    }

    pub fn depth(&self) -> glow::Texture {
        self.depth
    }
}

impl Drop for HandMask<'_> {
    fn drop(&mut self) {
        unsafe { self.gl.delete_texture(self.depth) };
    }
}
