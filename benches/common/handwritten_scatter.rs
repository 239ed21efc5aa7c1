//! Scatter-add written by hand in glow: one point per element, placed by the vertex shader
//! from an index texture, added into the destination with `ONE, ONE` blending. The same work
//! as Brook-GL's `streamScatterOp(.., SCATTER_ADD)` on a `size`×`size` destination, without
//! Brook's general addressing (the index is already the texel).

use glow::HasContext;

use super::gl_program::{float_texture, link_with, read_texture, R32F, RG32F};

const VERTEX: &str = "#version 330 core
uniform sampler2D index;
uniform int width;
flat out int element;
void main() {
    ivec2 e = ivec2(gl_VertexID % width, gl_VertexID / width);
    vec2 t = floor(texelFetch(index, e, 0).xy + 0.25);
    gl_Position = vec4((t + 0.5) / vec2(width) * 2.0 - 1.0, 0.0, 1.0);
    element = gl_VertexID;
}
";

const FRAGMENT: &str = "#version 330 core
uniform sampler2D data;
uniform int width;
flat in int element;
out float result;
void main() {
    result = texelFetch(data, ivec2(element % width, element / width), 0).x;
}
";

/// The index (RG32F), data and destination (R32F) textures, `width`×`width`.
pub struct HandScatter<'a> {
    gl: &'a glow::Context,
    program: glow::Program,
    vao: glow::VertexArray,
    textures: [glow::Texture; 3],
    framebuffer: glow::Framebuffer,
    width: i32,
}

impl<'a> HandScatter<'a> {
    pub fn new(gl: &'a glow::Context, width: usize, index: &[f32], data: &[f32]) -> Self {
        unsafe {
            let program = link_with(gl, VERTEX, FRAGMENT);
            gl.uniform_1_i32(gl.get_uniform_location(program, "index").as_ref(), 0);
            gl.uniform_1_i32(gl.get_uniform_location(program, "data").as_ref(), 1);
            gl.uniform_1_i32(
                gl.get_uniform_location(program, "width").as_ref(),
                width as i32,
            );
            let vao = gl.create_vertex_array().unwrap();
            let zeros = vec![0.0f32; width * width];
            let textures =
                [(RG32F, index), (R32F, data), (R32F, &zeros[..])].map(|(format, pixels)| {
                    float_texture(gl, width as i32, width as i32, format, Some(pixels))
                });
            let framebuffer = gl.create_framebuffer().unwrap();
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(framebuffer));
            gl.framebuffer_texture_2d(
                glow::FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                glow::TEXTURE_2D,
                Some(textures[2]),
                0,
            );
            assert_eq!(
                gl.check_framebuffer_status(glow::FRAMEBUFFER),
                glow::FRAMEBUFFER_COMPLETE
            );
            assert_eq!(gl.get_error(), glow::NO_ERROR);
            HandScatter {
                gl,
                program,
                vao,
                textures,
                framebuffer,
                width: width as i32,
            }
        }
    }

    /// One scatter-add of every element into the destination.
    pub fn step(&mut self) {
        let gl = self.gl;
        unsafe {
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(self.framebuffer));
            gl.viewport(0, 0, self.width, self.width);
            gl.use_program(Some(self.program));
            for (unit, t) in self.textures[..2].iter().enumerate() {
                gl.active_texture(glow::TEXTURE0 + unit as u32);
                gl.bind_texture(glow::TEXTURE_2D, Some(*t));
            }
            gl.enable(glow::BLEND);
            gl.blend_equation(glow::FUNC_ADD);
            gl.blend_func(glow::ONE, glow::ONE);
            gl.bind_vertex_array(Some(self.vao));
            gl.draw_arrays(glow::POINTS, 0, self.width * self.width);
            gl.disable(glow::BLEND);
        }
    }

    pub fn finish(&self) {
        unsafe { self.gl.finish() };
    }

    /// The destination's contents.
    pub fn result(&self) -> Vec<f32> {
        // SAFETY: the bench's context is current.
        unsafe { read_texture(self.gl, self.textures[2], self.width, self.width, R32F) }
    }
}

impl Drop for HandScatter<'_> {
    fn drop(&mut self) {
        unsafe {
            self.gl.delete_program(self.program);
            self.gl.delete_vertex_array(self.vao);
            for t in self.textures {
                self.gl.delete_texture(t);
            }
            self.gl.delete_framebuffer(self.framebuffer);
        }
    }
}
