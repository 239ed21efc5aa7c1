//! Brook's write mask through the depth test (000 §7.4.2) and write queries through occlusion
//! queries.
//!
//! The mask stream is drawn once into a depth texture of its layout: elements whose mask is
//! non-zero get depth 1.0, the rest (and the layout's padding texels) 0.0. A masked kernel pass
//! attaches that texture to its framebuffer and draws its triangle at depth 0.5 (the kernel
//! vertex shader's z = 0) with `depth_func(LESS)` and depth writes off, so masked-off texels
//! fail the depth test: they keep their values and, where the hardware has early-z, are never
//! shaded. The triangle's depth is set by the vertex shader, so kernel shaders are unchanged.

use std::rc::Rc;

use brook_texture_streams::{GlContext, GlError, Layout, Profile, Program, Stream, Texture};
use glow::HasContext;

use crate::error::PassError;

/// The depth-writing pass: one texel of the mask per fragment; `brook_all` ignores the mask
/// (every element of the layout is writable, padding is not).
const MASK_FRAGMENT: &str = "uniform sampler2D brook_mask;
uniform int brook_len;
uniform int brook_width;
uniform bool brook_all;
void main() {
    ivec2 t = ivec2(gl_FragCoord.xy);
    bool inside = t.y * brook_width + t.x < brook_len;
    bool on = inside && (brook_all || texelFetch(brook_mask, t, 0).x != 0.0);
    gl_FragDepth = on ? 1.0 : 0.0;
}
";

/// A write mask as a depth texture of one stream layout, owned and deleted on drop.
pub struct WriteMask {
    ctx: Rc<GlContext>,
    depth: glow::Texture,
    layout: Layout,
}

impl WriteMask {
    /// The layout the mask was made for; a masked call's outputs must have it.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Draws `mask` (its first component; `None`: every element on) into a new depth texture
    /// with `program` (built by [`mask_program`]).
    pub(crate) fn draw(
        ctx: &Rc<GlContext>,
        program: &Program,
        layout: &Layout,
        mask: Option<&Texture>,
    ) -> Result<WriteMask, PassError> {
        ctx.make_current()?;
        let gl = ctx.gl();
        let (w, h) = (layout.width() as i32, layout.height() as i32);
        // SAFETY: objects are created on the current context; the texture is owned by the
        // returned value and the framebuffer deleted before returning.
        unsafe {
            let depth = gl.create_texture().map_err(GlError::Unsupported)?;
            let written = WriteMask {
                ctx: ctx.clone(),
                depth,
                layout: layout.clone(),
            };
            gl.bind_texture(glow::TEXTURE_2D, Some(depth));
            gl.tex_parameter_i32(
                glow::TEXTURE_2D,
                glow::TEXTURE_MIN_FILTER,
                glow::NEAREST as i32,
            );
            gl.tex_parameter_i32(
                glow::TEXTURE_2D,
                glow::TEXTURE_MAG_FILTER,
                glow::NEAREST as i32,
            );
            gl.tex_storage_2d(glow::TEXTURE_2D, 1, glow::DEPTH_COMPONENT32F, w, h);
            let fbo = gl.create_framebuffer().map_err(GlError::Unsupported)?;
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
            gl.framebuffer_texture_2d(
                glow::FRAMEBUFFER,
                glow::DEPTH_ATTACHMENT,
                glow::TEXTURE_2D,
                Some(depth),
                0,
            );
            gl.draw_buffers(&[glow::NONE]);
            let status = gl.check_framebuffer_status(glow::FRAMEBUFFER);
            if status == glow::FRAMEBUFFER_COMPLETE {
                gl.viewport(0, 0, w, h);
                gl.use_program(Some(program.raw()));
                gl.active_texture(glow::TEXTURE0);
                gl.bind_texture(glow::TEXTURE_2D, mask.map(Texture::raw));
                let at = |name| gl.get_uniform_location(program.raw(), name);
                gl.uniform_1_i32(at("brook_mask").as_ref(), 0);
                gl.uniform_1_i32(at("brook_len").as_ref(), layout.len() as i32);
                gl.uniform_1_i32(at("brook_width").as_ref(), w);
                gl.uniform_1_i32(at("brook_all").as_ref(), i32::from(mask.is_none()));
                // Depth is only written while the depth test is on.
                gl.enable(glow::DEPTH_TEST);
                gl.depth_func(glow::ALWAYS);
                gl.depth_mask(true);
                gl.bind_vertex_array(Some(ctx.fullscreen_vao()));
                gl.draw_arrays(glow::TRIANGLES, 0, 3);
                gl.disable(glow::DEPTH_TEST);
                gl.depth_func(glow::LESS);
            }
            gl.bind_framebuffer(glow::FRAMEBUFFER, None);
            gl.delete_framebuffer(fbo);
            if status != glow::FRAMEBUFFER_COMPLETE {
                return Err(GlError::FramebufferIncomplete { status }.into());
            }
            ctx.check_error("drawing a write mask into a depth texture")?;
            Ok(written)
        }
    }

    /// Attaches the mask to the framebuffer of `targets` (binding it) and turns the depth
    /// test on for the next draw; the guard detaches it and restores the state on drop.
    pub(crate) fn attach(&self, targets: &[&Texture]) -> Result<Attached<'_>, PassError> {
        self.ctx.framebuffer_for(targets)?;
        let gl = self.ctx.gl();
        // SAFETY: the context is current (the caller draws on it) and the FBO is bound.
        unsafe {
            gl.framebuffer_texture_2d(
                glow::FRAMEBUFFER,
                glow::DEPTH_ATTACHMENT,
                glow::TEXTURE_2D,
                Some(self.depth),
                0,
            );
            gl.enable(glow::DEPTH_TEST);
            gl.depth_func(glow::LESS);
            gl.depth_mask(false);
        }
        Ok(Attached { mask: self })
    }
}

/// A mask attached to the bound framebuffer; detached, with the depth test off, on drop.
pub(crate) struct Attached<'a> {
    mask: &'a WriteMask,
}

impl Drop for Attached<'_> {
    fn drop(&mut self) {
        let gl = self.mask.ctx.gl();
        // SAFETY: the framebuffer the mask was attached to is still bound (the pass drew
        // into it); cached FBOs must not keep a reference to the mask's texture.
        unsafe {
            gl.framebuffer_texture_2d(
                glow::FRAMEBUFFER,
                glow::DEPTH_ATTACHMENT,
                glow::TEXTURE_2D,
                None,
                0,
            );
            gl.disable(glow::DEPTH_TEST);
            gl.depth_mask(true);
        }
    }
}

impl Drop for WriteMask {
    fn drop(&mut self) {
        if self.ctx.make_current().is_ok() {
            // SAFETY: the texture was created on this context and is owned by this value.
            unsafe { self.ctx.gl().delete_texture(self.depth) };
        }
    }
}

/// Links the depth-writing program for this context.
pub(crate) fn mask_program(ctx: &Rc<GlContext>) -> Result<Program, PassError> {
    let vertex = brook_glsl::vertex_shader(crate::linked::profile(ctx));
    let fragment = format!("{}{MASK_FRAGMENT}", ctx.glsl_header());
    Ok(Program::link(ctx, &vertex, &fragment)?)
}

/// The mask of `stream` (its first texture's first component).
pub(crate) fn mask_of(
    ctx: &Rc<GlContext>,
    program: &Program,
    stream: &Stream,
) -> Result<WriteMask, PassError> {
    WriteMask::draw(ctx, program, stream.layout(), stream.textures().first())
}

/// Occlusion queries of the kernel calls between `begin` and `end` of a write query, owned
/// and deleted on drop.
pub struct WriteQuery {
    ctx: Rc<GlContext>,
    queries: Vec<glow::Query>,
}

impl WriteQuery {
    /// A new, empty query. ES 3.0 has only `ANY_SAMPLES_PASSED` (a yes/no answer), which
    /// cannot count elements: refused there.
    pub fn new(ctx: &Rc<GlContext>) -> Result<WriteQuery, PassError> {
        if ctx.profile() == Profile::Es30 {
            return Err(GlError::Unsupported(
                "write queries count samples with GL_SAMPLES_PASSED, which OpenGL ES 3.0 lacks (it has only ANY_SAMPLES_PASSED); use a desktop GL context".into(),
            )
            .into());
        }
        Ok(WriteQuery {
            ctx: ctx.clone(),
            queries: Vec::new(),
        })
    }

    /// Counts the samples of the draws `draw` makes.
    pub(crate) fn count<T>(
        &mut self,
        draw: impl FnOnce() -> Result<T, PassError>,
    ) -> Result<T, PassError> {
        let gl = self.ctx.gl();
        // SAFETY: the context is current (the caller draws on it); the query is owned here.
        let query = unsafe { gl.create_query() }.map_err(GlError::Unsupported)?;
        self.queries.push(query);
        // SAFETY: as above; begin and end bracket the draw, even when it fails.
        unsafe { gl.begin_query(glow::SAMPLES_PASSED, query) };
        let drawn = draw();
        unsafe { gl.end_query(glow::SAMPLES_PASSED) };
        drawn
    }

    /// The samples (texels) written by every counted draw; waits for them.
    pub fn total(&self) -> Result<u64, PassError> {
        self.ctx.make_current()?;
        let gl = self.ctx.gl();
        let total = self
            .queries
            .iter()
            // SAFETY: every query was ended; reading its result waits for the draw.
            .map(|&q| u64::from(unsafe { gl.get_query_parameter_u32(q, glow::QUERY_RESULT) }))
            .sum();
        self.ctx.check_error("reading write queries")?;
        Ok(total)
    }
}

impl Drop for WriteQuery {
    fn drop(&mut self) {
        if self.ctx.make_current().is_ok() {
            for &q in &self.queries {
                // SAFETY: the queries were created on this context and are owned here.
                unsafe { self.ctx.gl().delete_query(q) };
            }
        }
    }
}
