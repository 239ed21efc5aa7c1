//! Brook's write mask through the depth test (000 §7.4.2) and write queries through occlusion
//! queries.
//!
//! A write mask is a depth texture of its shape's layout. `streamSetWriteMask` draws the mask
//! stream into it (brook-glsl's `mask_pass`): depth 1.0 where the mask is on (open), 0.5
//! where it is off (set), 0.0 on the layout's padding; `write_mask::clear` draws every element
//! open (the runtime clears a mask the program creates; its own mask is drawn once, loaded).
//! A kernel pass under the mask attaches that texture and draws its triangle at depth 0.5
//! (the vertex shader's z = 0): with the mask's test, `LESS`, so set texels fail it, keep
//! their values and, where the hardware has early-z, are never shaded; without it (set mode
//! alone), `LEQUAL`, which only the padding fails. In set mode the call's
//! last pass writes depth, so the texels it drew (not discarded, not failing the test) become
//! set: the paper's "write masks by the depth test". Kernel shaders are unchanged. A write
//! query without a mask draws through a mask with every element open, so the padding texels
//! are not counted.

use std::rc::Rc;

use brook_core::UniformData;
use brook_glsl::UniformValue;
use brook_texture_streams::{GlContext, GlError, Layout, Profile, Texture};
use glow::HasContext;

use crate::error::PassError;
use crate::linked::LinkedPass;
use crate::step::{DepthUse, Pass, Step};
use crate::uniforms::uniforms_of;

/// A write mask: a depth texture of one stream layout with its own framebuffer, owned and
/// deleted on drop.
pub struct WriteMask {
    ctx: Rc<GlContext>,
    depth: glow::Texture,
    framebuffer: glow::Framebuffer,
    layout: Layout,
}

impl WriteMask {
    /// An empty mask of `layout` (its depth undefined until drawn).
    pub fn new(ctx: &Rc<GlContext>, layout: &Layout) -> Result<WriteMask, PassError> {
        ctx.make_current()?;
        let gl = ctx.gl();
        let (w, h) = (layout.width() as i32, layout.height() as i32);
        // SAFETY: objects are created on the current context and owned by the returned value
        // (deleted by its drop, also when a check below fails).
        unsafe {
            let depth = gl.create_texture().map_err(GlError::Unsupported)?;
            let framebuffer = match gl.create_framebuffer() {
                Ok(f) => f,
                Err(e) => {
                    gl.delete_texture(depth);
                    return Err(GlError::Unsupported(e).into());
                }
            };
            let mask = WriteMask {
                ctx: ctx.clone(),
                depth,
                framebuffer,
                layout: layout.clone(),
            };
            gl.bind_texture(glow::TEXTURE_2D, Some(depth));
            for parameter in [glow::TEXTURE_MIN_FILTER, glow::TEXTURE_MAG_FILTER] {
                gl.tex_parameter_i32(glow::TEXTURE_2D, parameter, glow::NEAREST as i32);
            }
            gl.tex_storage_2d(glow::TEXTURE_2D, 1, glow::DEPTH_COMPONENT32F, w, h);
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(framebuffer));
            gl.framebuffer_texture_2d(
                glow::FRAMEBUFFER,
                glow::DEPTH_ATTACHMENT,
                glow::TEXTURE_2D,
                Some(depth),
                0,
            );
            gl.draw_buffers(&[glow::NONE]);
            let status = gl.check_framebuffer_status(glow::FRAMEBUFFER);
            if status != glow::FRAMEBUFFER_COMPLETE {
                return Err(GlError::FramebufferIncomplete { status }.into());
            }
            ctx.check_error("making a write mask's depth texture")?;
            Ok(mask)
        }
    }

    /// The layout the mask was made for.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The depth texture's GL name, for the trace.
    pub fn id(&self) -> u32 {
        self.depth.0.get()
    }

    /// The step that draws `mask` (its first member's first component; `None`: every
    /// element on) into this mask with `program` (brook-glsl's `mask_pass`).
    pub fn draw<'a>(
        &'a self,
        program: &'a LinkedPass,
        mask: Option<&'a Texture>,
        label: String,
    ) -> Result<Step<'a>, PassError> {
        let layout = &self.layout;
        let uniforms = uniforms_of(program, |value| match value {
            UniformValue::ElementCount => Ok(UniformData::Ints(vec![layout.len() as i32])),
            UniformValue::OutputWidth => Ok(UniformData::Ints(vec![layout.width() as i32])),
            UniformValue::MaskAll => Ok(UniformData::Ints(vec![i32::from(mask.is_none())])),
            other => Err(format!("a mask pass has no uniform {other:?}")),
        })
        .map_err(|message| PassError::Call {
            call: "streamSetWriteMask".into(),
            message,
        })?;
        Ok(Step::Draw(Pass {
            label,
            viewport: [0, 0, layout.width() as i32, layout.height() as i32],
            depth: DepthUse::Write(self),
            ..Pass::over(program, Vec::new(), mask.into_iter().collect(), uniforms)
        }))
    }

    /// Binds the mask's own framebuffer (depth only), to draw the mask.
    pub(crate) fn bind_framebuffer(&self) -> Result<(), PassError> {
        // SAFETY: the framebuffer is this value's, on the current context.
        unsafe {
            self.ctx
                .gl()
                .bind_framebuffer(glow::FRAMEBUFFER, Some(self.framebuffer))
        };
        Ok(())
    }

    /// Attaches the depth texture to the bound framebuffer, for a masked pass.
    pub(crate) fn attach(&self) -> Result<(), PassError> {
        self.attach_depth(Some(self.depth));
        Ok(())
    }

    /// Detaches it again: cached framebuffers must not keep the mask's texture.
    pub(crate) fn detach(&self) {
        self.attach_depth(None);
    }

    fn attach_depth(&self, depth: Option<glow::Texture>) {
        // SAFETY: the context is current (the executor draws on it) and a framebuffer is bound.
        unsafe {
            self.ctx.gl().framebuffer_texture_2d(
                glow::FRAMEBUFFER,
                glow::DEPTH_ATTACHMENT,
                glow::TEXTURE_2D,
                depth,
                0,
            );
        }
    }
}

impl Drop for WriteMask {
    fn drop(&mut self) {
        if self.ctx.make_current().is_ok() {
            // SAFETY: both objects were created on this context and are owned by this value.
            unsafe {
                self.ctx.gl().delete_framebuffer(self.framebuffer);
                self.ctx.gl().delete_texture(self.depth);
            }
        }
    }
}

/// The GL mask behind a backend mask, or an error naming `call`.
pub fn gl_mask<'a>(mask: &'a dyn std::any::Any, call: &str) -> Result<&'a WriteMask, PassError> {
    mask.downcast_ref().ok_or_else(|| PassError::Call {
        call: call.into(),
        message: "a write mask of another backend".into(),
    })
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
            return Err(PassError::Unsupported {
                call: "streamBeginWriteQuery".into(),
                message: "write queries count samples with GL_SAMPLES_PASSED, which OpenGL ES 3.0 lacks (it has only ANY_SAMPLES_PASSED); use a desktop GL context".into(),
            });
        }
        Ok(WriteQuery {
            ctx: ctx.clone(),
            queries: Vec::new(),
        })
    }

    /// Counts the samples of the draw `draw` makes.
    pub(crate) fn count(&mut self, draw: impl FnOnce()) -> Result<(), PassError> {
        let gl = self.ctx.gl();
        // SAFETY: the context is current (the executor draws on it); the query is owned here,
        // and begin and end bracket the draw.
        unsafe {
            let query = gl.create_query().map_err(GlError::Unsupported)?;
            self.queries.push(query);
            gl.begin_query(glow::SAMPLES_PASSED, query);
            draw();
            gl.end_query(glow::SAMPLES_PASSED);
        }
        Ok(())
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
