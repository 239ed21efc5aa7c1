//! A kernel written by hand in glow, for benches to compare Brook-GL against: RGBA32F
//! textures of one size, one or more passes (fragment shaders reading sampler `a` at unit 0
//! and writing some of the outputs), ping-ponging so each call reads the previous result.
//!
//! Output 0 alternates between textures `A` and `B`, and the input is the other one, exactly as
//! the Brook side alternates `run(k, a, b, …)` and `run(k, b, a, …)`; outputs 1.. are plain
//! textures written every call.

use std::time::{Duration, Instant};

use glow::HasContext;

use super::gl_program::{float_texture, link, read_texture, RGBA32F};

/// One draw: a program and the framebuffer it writes, for one parity of the ping-pong.
struct Draw {
    program: glow::Program,
    framebuffer: glow::Framebuffer,
    input: glow::Texture,
}

pub struct HandKernel<'a> {
    gl: &'a glow::Context,
    vao: glow::VertexArray,
    programs: Vec<glow::Program>,
    textures: Vec<glow::Texture>,
    /// The draws of even and of odd calls.
    draws: [Vec<Draw>; 2],
    width: i32,
    height: i32,
    flip: bool,
    /// Whether a depth texture (a write mask) is attached: draws then test depth LESS.
    masked: bool,
}

impl<'a> HandKernel<'a> {
    /// `passes[k]` is a fragment shader and the outputs (0..`outputs`) it writes, at
    /// locations 0, 1, … in that order; `a` holds the first input (RGBA floats, row-major).
    pub fn new(
        gl: &'a glow::Context,
        (width, height): (usize, usize),
        a: &[f32],
        passes: &[(String, Vec<usize>)],
        outputs: usize,
    ) -> HandKernel<'a> {
        unsafe {
            let vao = gl.create_vertex_array().unwrap();
            let textures: Vec<glow::Texture> = (0..outputs + 1)
                .map(|i| {
                    let data = (i < 2).then_some(a);
                    float_texture(gl, width as i32, height as i32, RGBA32F, data)
                })
                .collect();
            let programs: Vec<glow::Program> =
                passes.iter().map(|(src, _)| link_pass(gl, src)).collect();
            // Texture of output `o` on a call of parity `p`: output 0 is A then B.
            let target = |o: usize, p: usize| {
                if o == 0 {
                    textures[1 - p]
                } else {
                    textures[o + 1]
                }
            };
            let draws = [0, 1].map(|p| {
                passes
                    .iter()
                    .zip(&programs)
                    .map(|((_, outs), &program)| {
                        let framebuffer = gl.create_framebuffer().unwrap();
                        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(framebuffer));
                        let attachments: Vec<u32> = (0..outs.len() as u32)
                            .map(|k| glow::COLOR_ATTACHMENT0 + k)
                            .collect();
                        for (k, o) in outs.iter().enumerate() {
                            gl.framebuffer_texture_2d(
                                glow::FRAMEBUFFER,
                                attachments[k],
                                glow::TEXTURE_2D,
                                Some(target(*o, p)),
                                0,
                            );
                        }
                        gl.draw_buffers(&attachments);
                        assert_eq!(
                            gl.check_framebuffer_status(glow::FRAMEBUFFER),
                            glow::FRAMEBUFFER_COMPLETE
                        );
                        Draw {
                            program,
                            framebuffer,
                            input: textures[p],
                        }
                    })
                    .collect()
            });
            assert_eq!(gl.get_error(), glow::NO_ERROR);
            HandKernel {
                gl,
                vao,
                programs,
                textures,
                draws,
                width: width as i32,
                height: height as i32,
                flip: false,
                masked: false,
            }
        }
    }

    /// Attaches `depth` (a write mask's depth texture; `None`: unmasked) to every draw's
    /// framebuffer: the triangle is at depth 0.5, so texels of depth 0.0 fail `LESS`.
    pub fn set_mask(&mut self, depth: Option<glow::Texture>) {
        let gl = self.gl;
        for draw in self.draws.iter().flatten() {
            unsafe {
                gl.bind_framebuffer(glow::FRAMEBUFFER, Some(draw.framebuffer));
                gl.framebuffer_texture_2d(
                    glow::FRAMEBUFFER,
                    glow::DEPTH_ATTACHMENT,
                    glow::TEXTURE_2D,
                    depth,
                    0,
                );
                assert_eq!(
                    gl.check_framebuffer_status(glow::FRAMEBUFFER),
                    glow::FRAMEBUFFER_COMPLETE
                );
            }
        }
        self.masked = depth.is_some();
    }

    /// One kernel call: every pass, reading the previous call's output 0.
    pub fn step(&mut self) {
        let gl = self.gl;
        if self.masked {
            unsafe {
                gl.enable(glow::DEPTH_TEST);
                gl.depth_func(glow::LESS);
                gl.depth_mask(false);
            }
        }
        for draw in &self.draws[self.flip as usize] {
            unsafe {
                gl.bind_framebuffer(glow::FRAMEBUFFER, Some(draw.framebuffer));
                gl.viewport(0, 0, self.width, self.height);
                gl.use_program(Some(draw.program));
                gl.active_texture(glow::TEXTURE0);
                gl.bind_texture(glow::TEXTURE_2D, Some(draw.input));
                gl.bind_vertex_array(Some(self.vao));
                gl.draw_arrays(glow::TRIANGLES, 0, 3);
            }
        }
        if self.masked {
            unsafe {
                gl.disable(glow::DEPTH_TEST);
                gl.depth_mask(true);
            }
        }
        self.flip = !self.flip;
    }

    pub fn finish(&self) {
        unsafe { self.gl.finish() };
    }

    /// Every output of the last call, output 0 first (before any call, output 0 is the input).
    pub fn result(&self) -> Vec<f32> {
        let last = if self.flip { 1 } else { 0 };
        let outputs = std::iter::once(last).chain(2..self.textures.len());
        outputs
            // SAFETY: the bench's context is current.
            .flat_map(|t| unsafe {
                read_texture(self.gl, self.textures[t], self.width, self.height, RGBA32F)
            })
            .collect()
    }
}

/// A pass's program, with sampler `a` on texture unit 0.
fn link_pass(gl: &glow::Context, fragment: &str) -> glow::Program {
    // SAFETY: bench set-up on the current context.
    unsafe {
        let program = link(gl, fragment);
        gl.uniform_1_i32(gl.get_uniform_location(program, "a").as_ref(), 0);
        program
    }
}

impl Drop for HandKernel<'_> {
    fn drop(&mut self) {
        unsafe {
            for draw in self.draws.iter().flatten() {
                self.gl.delete_framebuffer(draw.framebuffer);
            }
            for p in &self.programs {
                self.gl.delete_program(*p);
            }
            for t in &self.textures {
                self.gl.delete_texture(*t);
            }
            self.gl.delete_vertex_array(self.vao);
        }
    }
}

/// Times `iters` calls of `hand` on `ctx` (made current first), ended by glFinish.
pub fn hand_time(
    ctx: &brook::texture_streams::GlContext,
    hand: &mut HandKernel,
    iters: u64,
) -> Duration {
    ctx.make_current().unwrap();
    let start = Instant::now();
    for _ in 0..iters {
        hand.step();
    }
    hand.finish();
    start.elapsed()
}
