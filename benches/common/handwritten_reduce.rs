//! A sum reduction of a `width × height` RGBA32F texture written by hand in glow: the same
//! k-way passes as Brook's plan (each row folded 8 texels at a time, then the rows), with
//! fixed shaders, no uniforms and no bounds checks; the 1×1 result is read back.

use glow::HasContext;

use super::gl_program::{float_texture, link, RGBA32F};

/// A shader summing `k` texels along x (`axis` = "x") or y into each output texel.
fn fragment(k: usize, axis: &str) -> String {
    let step = if axis == "x" {
        "ivec2(i, 0)"
    } else {
        "ivec2(0, i)"
    };
    format!(
        "#version 330 core
uniform sampler2D src;
out vec4 result;
void main() {{
    ivec2 t = ivec2(gl_FragCoord.xy);
    t.{axis} *= {k};
    vec4 r = texelFetch(src, t, 0);
    for (int i = 1; i < {k}; i++) {{
        r += texelFetch(src, t + {step}, 0);
    }}
    result = r;
}}
"
    )
}

/// One pass: its program and the texture/framebuffer it renders.
struct Pass {
    program: glow::Program,
    texture: glow::Texture,
    framebuffer: glow::Framebuffer,
    width: i32,
    height: i32,
}

pub struct HandReduce<'a> {
    gl: &'a glow::Context,
    vao: glow::VertexArray,
    input: glow::Texture,
    passes: Vec<Pass>,
}

unsafe fn program(gl: &glow::Context, fragment: &str) -> glow::Program {
    unsafe {
        let program = link(gl, fragment);
        gl.uniform_1_i32(gl.get_uniform_location(program, "src").as_ref(), 0);
        program
    }
}

impl<'a> HandReduce<'a> {
    /// `steps`: (k, "x" or "y") for each pass, e.g. 8, 8, 8, 2 along x then along y.
    pub fn new(
        gl: &'a glow::Context,
        width: usize,
        height: usize,
        data: &[f32],
        steps: &[(usize, &str)],
    ) -> HandReduce<'a> {
        unsafe {
            let vao = gl.create_vertex_array().unwrap();
            let input = float_texture(gl, width as i32, height as i32, RGBA32F, Some(data));
            let (mut w, mut h) = (width, height);
            let passes = steps
                .iter()
                .map(|&(k, axis)| {
                    if axis == "x" {
                        w = w.div_ceil(k);
                    } else {
                        h = h.div_ceil(k);
                    }
                    let texture = float_texture(gl, w as i32, h as i32, RGBA32F, None);
                    let framebuffer = gl.create_framebuffer().unwrap();
                    gl.bind_framebuffer(glow::FRAMEBUFFER, Some(framebuffer));
                    gl.framebuffer_texture_2d(
                        glow::FRAMEBUFFER,
                        glow::COLOR_ATTACHMENT0,
                        glow::TEXTURE_2D,
                        Some(texture),
                        0,
                    );
                    assert_eq!(
                        gl.check_framebuffer_status(glow::FRAMEBUFFER),
                        glow::FRAMEBUFFER_COMPLETE
                    );
                    Pass {
                        program: program(gl, &fragment(k, axis)),
                        texture,
                        framebuffer,
                        width: w as i32,
                        height: h as i32,
                    }
                })
                .collect();
            assert_eq!(gl.get_error(), glow::NO_ERROR);
            HandReduce {
                gl,
                vao,
                input,
                passes,
            }
        }
    }

    /// Runs every pass and reads the 1×1 result back.
    pub fn sum(&self) -> [f32; 4] {
        let gl = self.gl;
        let mut result = [0.0f32; 4];
        unsafe {
            gl.bind_vertex_array(Some(self.vao));
            gl.active_texture(glow::TEXTURE0);
            let mut src = self.input;
            for pass in &self.passes {
                gl.bind_framebuffer(glow::FRAMEBUFFER, Some(pass.framebuffer));
                gl.viewport(0, 0, pass.width, pass.height);
                gl.use_program(Some(pass.program));
                gl.bind_texture(glow::TEXTURE_2D, Some(src));
                gl.draw_arrays(glow::TRIANGLES, 0, 3);
                src = pass.texture;
            }
            gl.read_pixels(
                0,
                0,
                1,
                1,
                glow::RGBA,
                glow::FLOAT,
                glow::PixelPackData::Slice(Some(bytemuck::cast_slice_mut(&mut result))),
            );
        }
        result
    }
}

impl Drop for HandReduce<'_> {
    fn drop(&mut self) {
        unsafe {
            self.gl.delete_vertex_array(self.vao);
            self.gl.delete_texture(self.input);
            for p in &self.passes {
                self.gl.delete_program(p.program);
                self.gl.delete_texture(p.texture);
                self.gl.delete_framebuffer(p.framebuffer);
            }
        }
    }
}
