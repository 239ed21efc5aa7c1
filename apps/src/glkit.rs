//! The few lines of GL that every hand-written version needs, written once: a float texture
//! (texture-streams' owned [`Texture`], freed on drop), a fragment program drawn over one
//! triangle that covers the target, and a draw call that binds samplers and uniforms by name.
//! No Brook here: no address translation, no generated code, no pass planning — the
//! hand-written versions are what a GL programmer would write for each algorithm.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

pub use brook::texture_streams::Texture;
use brook::texture_streams::{GlContext, Program, TexelRect};
use glow::HasContext;

use crate::error::AppError;

/// A vertex shader for one triangle that covers the whole viewport.
const COVER: &str = "
void main() {
    vec2 corner = vec2(float((gl_VertexID & 1) << 2), float((gl_VertexID & 2) << 1));
    gl_Position = vec4(corner - 1.0, 0.0, 1.0);
}
";

/// A float texture of `width × height` texels of `components` floats, filled with `data`
/// (row-major, lowest row first) when given.
pub fn texture(
    ctx: &Rc<GlContext>,
    width: usize,
    height: usize,
    components: u8,
    data: Option<&[f32]>,
) -> Result<Texture, AppError> {
    let t = Texture::new(ctx, width as u32, height as u32, components)?;
    if let Some(data) = data {
        t.upload(whole(&t), data)?;
    }
    Ok(t)
}

/// Every texel of `t`.
pub fn whole(t: &Texture) -> TexelRect {
    TexelRect {
        x: 0,
        y: 0,
        width: t.width(),
        height: t.height(),
    }
}

/// Reads every texel of `t` back.
pub fn read(t: &Texture) -> Result<Vec<f32>, AppError> {
    Ok(t.read(whole(t))?)
}

/// A uniform value to set before a draw.
#[derive(Clone, Copy, Debug)]
pub enum Uniform {
    /// A GLSL `float`.
    Float(f32),
    /// A GLSL `vec2`.
    Vec2([f32; 2]),
    /// A GLSL `vec4`.
    Vec4([f32; 4]),
    /// A GLSL `int`.
    Int(i32),
    /// A GLSL `ivec2`.
    IVec2([i32; 2]),
}

/// A linked program and its uniform locations, looked up once per name.
pub struct Shader {
    ctx: Rc<GlContext>,
    program: Program,
    locations: RefCell<HashMap<&'static str, Option<glow::UniformLocation>>>,
}

impl Shader {
    /// A fragment program drawn over the target; `fragment` is the source after `#version`.
    pub fn fragment(ctx: &Rc<GlContext>, fragment: &str) -> Result<Shader, AppError> {
        Shader::new(ctx, COVER, fragment)
    }

    /// A program with its own vertex shader (point rendering); sources after `#version`.
    pub fn new(ctx: &Rc<GlContext>, vertex: &str, fragment: &str) -> Result<Shader, AppError> {
        let header = ctx.glsl_header();
        let program = Program::link(
            ctx,
            &format!("{header}{vertex}"),
            &format!("{header}{fragment}"),
        )?;
        Ok(Shader {
            ctx: ctx.clone(),
            program,
            locations: RefCell::new(HashMap::new()),
        })
    }

    fn location(&self, name: &'static str) -> Option<glow::UniformLocation> {
        *self.locations.borrow_mut().entry(name).or_insert_with(|| {
            // SAFETY: a query on the program this context made.
            unsafe { self.ctx.gl().get_uniform_location(self.program.raw(), name) }
        })
    }
}

/// One draw: what to read, what to write and where.
pub struct Draw<'a> {
    /// The program drawn.
    pub shader: &'a Shader,
    /// Textures to read, each bound to the sampler uniform of that name.
    pub samplers: &'a [(&'static str, &'a Texture)],
    /// Uniform values to set, by name.
    pub uniforms: &'a [(&'static str, Uniform)],
    /// Textures written, as the framebuffer's colour attachments in order.
    pub targets: &'a [&'a Texture],
    /// `(x, y, width, height)` in texels; the whole first target when `None`.
    pub viewport: Option<[i32; 4]>,
}

impl Draw<'_> {
    /// Covers the viewport with one triangle.
    pub fn cover(&self) -> Result<(), AppError> {
        self.prepare()?;
        // SAFETY: state set up by `prepare` on the current context.
        unsafe { self.shader.ctx.gl().draw_arrays(glow::TRIANGLES, 0, 3) };
        Ok(())
    }

    /// Draws `count` points; the vertex shader places each from `gl_VertexID`.
    pub fn points(&self, count: usize) -> Result<(), AppError> {
        self.prepare()?;
        // SAFETY: state set up by `prepare` on the current context.
        unsafe {
            self.shader
                .ctx
                .gl()
                .draw_arrays(glow::POINTS, 0, count as i32)
        };
        Ok(())
    }

    fn prepare(&self) -> Result<(), AppError> {
        let ctx = &self.shader.ctx;
        ctx.make_current()?;
        let gl = ctx.gl();
        let first = self
            .targets
            .first()
            .ok_or_else(|| AppError::Gl("a draw with no target".into()))?;
        ctx.framebuffer_for(self.targets)?;
        let [x, y, w, h] =
            self.viewport
                .unwrap_or([0, 0, first.width() as i32, first.height() as i32]);
        // SAFETY: binding objects that outlive the draw, on the current context.
        unsafe {
            gl.viewport(x, y, w, h);
            gl.use_program(Some(self.shader.program.raw()));
            for (unit, (name, texture)) in self.samplers.iter().enumerate() {
                gl.active_texture(glow::TEXTURE0 + unit as u32);
                gl.bind_texture(glow::TEXTURE_2D, Some(texture.raw()));
                gl.uniform_1_i32(self.shader.location(name).as_ref(), unit as i32);
            }
            for (name, value) in self.uniforms {
                let at = self.shader.location(name);
                let at = at.as_ref();
                match *value {
                    Uniform::Float(v) => gl.uniform_1_f32(at, v),
                    Uniform::Vec2(v) => gl.uniform_2_f32(at, v[0], v[1]),
                    Uniform::Vec4(v) => gl.uniform_4_f32(at, v[0], v[1], v[2], v[3]),
                    Uniform::Int(v) => gl.uniform_1_i32(at, v),
                    Uniform::IVec2(v) => gl.uniform_2_i32(at, v[0], v[1]),
                }
            }
            gl.bind_vertex_array(Some(ctx.fullscreen_vao()));
        }
        Ok(())
    }
}

/// Sets every texel of `target` to zero (`glClearBufferfv`), as an accumulation starts.
pub fn clear(ctx: &Rc<GlContext>, target: &Texture) -> Result<(), AppError> {
    ctx.make_current()?;
    ctx.framebuffer_for(&[target])?;
    // SAFETY: clears the colour attachment of the framebuffer just bound, on the current context.
    unsafe { ctx.gl().clear_buffer_f32_slice(glow::COLOR, 0, &[0.0; 4]) };
    Ok(())
}

/// Runs `draw` with additive blending (`FUNC_ADD`, `ONE, ONE`): each fragment is added to its
/// texel, in primitive order and exactly in a float target — scatter-add by point rendering.
pub fn additive<T>(
    ctx: &GlContext,
    draw: impl FnOnce() -> Result<T, AppError>,
) -> Result<T, AppError> {
    ctx.make_current()?;
    let gl = ctx.gl();
    // SAFETY: blend state on the current context, restored below whatever `draw` returns.
    unsafe {
        gl.enable(glow::BLEND);
        gl.blend_equation(glow::FUNC_ADD);
        gl.blend_func(glow::ONE, glow::ONE);
    }
    let drawn = draw();
    // SAFETY: as above; every other draw is unblended.
    unsafe { gl.disable(glow::BLEND) };
    drawn
}

/// Waits for every queued GL command.
pub fn finish(ctx: &GlContext) {
    if ctx.make_current().is_ok() {
        // SAFETY: glFinish on the current context.
        unsafe { ctx.gl().finish() };
    }
}

/// Turns a GL error left by the hand-written code into an error naming `what`.
pub fn check(ctx: &GlContext, what: &str) -> Result<(), AppError> {
    Ok(ctx.check_error(what)?)
}
