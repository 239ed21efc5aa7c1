//! SAXPY written by hand in glow: the paper's "reference GPU implementation" to compare
//! Brook-GL against. Same textures, same single draw, same shader work — nothing Brook.

use glow::HasContext;

use super::gl_program::{float_texture, link, read_texture, RGBA32F};

const FRAGMENT: &str = "#version 330 core
uniform float a;
uniform sampler2D x;
uniform sampler2D y;
out vec4 result;
void main() {
    ivec2 t = ivec2(gl_FragCoord.xy);
    result = a * texelFetch(x, t, 0) + texelFetch(y, t, 0);
}
";

/// `x` and two ping-pong `y` textures of `size`×`size` RGBA32F with their framebuffers.
pub struct HandSaxpy<'a> {
    gl: &'a glow::Context,
    program: glow::Program,
    vao: glow::VertexArray,
    a: Option<glow::UniformLocation>,
    textures: [glow::Texture; 3],
    framebuffers: [glow::Framebuffer; 2],
    width: i32,
    height: i32,
    flip: bool,
}

impl<'a> HandSaxpy<'a> {
    pub fn new(
        gl: &'a glow::Context,
        width: usize,
        height: usize,
        x: &[f32],
        y: &[f32],
    ) -> HandSaxpy<'a> {
        unsafe {
            let program = link(gl, FRAGMENT);
            gl.uniform_1_i32(gl.get_uniform_location(program, "x").as_ref(), 0);
            gl.uniform_1_i32(gl.get_uniform_location(program, "y").as_ref(), 1);
            let a = gl.get_uniform_location(program, "a");
            let vao = gl.create_vertex_array().unwrap();
            let textures = [0, 1, 2].map(|i| {
                let data = if i == 0 { x } else { y };
                float_texture(gl, width as i32, height as i32, RGBA32F, Some(data))
            });
            let framebuffers = [1, 2].map(|i| {
                let f = gl.create_framebuffer().unwrap();
                gl.bind_framebuffer(glow::FRAMEBUFFER, Some(f));
                gl.framebuffer_texture_2d(
                    glow::FRAMEBUFFER,
                    glow::COLOR_ATTACHMENT0,
                    glow::TEXTURE_2D,
                    Some(textures[i]),
                    0,
                );
                assert_eq!(
                    gl.check_framebuffer_status(glow::FRAMEBUFFER),
                    glow::FRAMEBUFFER_COMPLETE
                );
                f
            });
            assert_eq!(gl.get_error(), glow::NO_ERROR);
            HandSaxpy {
                gl,
                program,
                vao,
                a,
                textures,
                framebuffers,
                width: width as i32,
                height: height as i32,
                flip: false,
            }
        }
    }

    /// One SAXPY draw: `y' = a*x + y`, reading the last result (a real data dependency).
    pub fn step(&mut self, a: f32) {
        let gl = self.gl;
        let (src, dst) = if self.flip { (2, 1) } else { (1, 2) };
        unsafe {
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(self.framebuffers[dst - 1]));
            gl.viewport(0, 0, self.width, self.height);
            gl.use_program(Some(self.program));
            gl.active_texture(glow::TEXTURE0);
            gl.bind_texture(glow::TEXTURE_2D, Some(self.textures[0]));
            gl.active_texture(glow::TEXTURE1);
            gl.bind_texture(glow::TEXTURE_2D, Some(self.textures[src]));
            gl.uniform_1_f32(self.a.as_ref(), a);
            gl.bind_vertex_array(Some(self.vao));
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
        }
        self.flip = !self.flip;
    }

    pub fn finish(&self) {
        unsafe { self.gl.finish() };
    }

    /// The last call's result (the initial `y` before any call).
    pub fn result(&self) -> Vec<f32> {
        let last = if self.flip { 2 } else { 1 };
        // SAFETY: the bench's context is current.
        unsafe {
            read_texture(
                self.gl,
                self.textures[last],
                self.width,
                self.height,
                RGBA32F,
            )
        }
    }
}

impl Drop for HandSaxpy<'_> {
    fn drop(&mut self) {
        unsafe {
            self.gl.delete_program(self.program);
            self.gl.delete_vertex_array(self.vao);
            for t in self.textures {
                self.gl.delete_texture(t);
            }
            for f in self.framebuffers {
                self.gl.delete_framebuffer(f);
            }
        }
    }
}
