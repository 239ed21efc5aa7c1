//! One float texture, owned: created with its storage, deleted on drop.
//!
//! Textures are sampled with `texelFetch` or NEAREST lookups and rendered to,
//! never filtered, so they have NEAREST filters, clamp-to-edge wrapping and a
//! single mip level (a float texture with mipmap filtering and no mipmaps would
//! be incomplete and sample as black).

use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use brook_core::{BrookError, Grid, Readback};
use glow::{HasContext, PixelUnpackData};

use crate::check::check_gl;
use crate::context::{GlContext, Profile};
use crate::error::GlError;
use crate::spans::TexelRect;
use crate::texel_format::TexelFormat;
use crate::transfer::{self, Client};

/// Source of [`Texture::id`]s: process-wide so ids never repeat, even across
/// contexts, which keeps the framebuffer cache's keys unambiguous.
static NEXT_TEXTURE_ID: AtomicU64 = AtomicU64::new(1);

/// A `width × height` float texture holding one member of `components` floats
/// per texel.
#[derive(Debug)]
pub struct Texture {
    ctx: Rc<GlContext>,
    raw: glow::Texture,
    id: u64,
    width: u32,
    height: u32,
    components: u8,
    format: TexelFormat,
}

impl Texture {
    /// Allocates a texture of `components` (1 to 4) floats per texel. Its
    /// contents are undefined until written.
    pub fn new(
        ctx: &Rc<GlContext>,
        width: u32,
        height: u32,
        components: u8,
    ) -> Result<Texture, GlError> {
        let max = ctx.caps().max_texture_size;
        if !(1..=max).contains(&width) || !(1..=max).contains(&height) {
            return Err(GlError::InvalidArgument(format!(
                "a {width}x{height} texture; sides must be 1 to {max}"
            )));
        }
        if !(1..=4).contains(&components) {
            return Err(GlError::InvalidArgument(format!(
                "a texture of {components} components; 1 to 4 are possible"
            )));
        }
        ctx.make_current()?;
        let format = TexelFormat::for_components(components, &ctx.caps().float_renderable);
        let raw = allocate(ctx.gl(), width, height, format)?;
        ctx.count(0, 1);
        Ok(Texture {
            ctx: Rc::clone(ctx),
            raw,
            id: NEXT_TEXTURE_ID.fetch_add(1, Ordering::Relaxed),
            width,
            height,
            components,
            format,
        })
    }

    /// The GL texture name, for binding as a sampler or attachment.
    pub fn raw(&self) -> glow::Texture {
        self.raw
    }

    /// Width in texels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in texels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Floats per texel as the program sees them (1 to 4); storage may have
    /// more channels (a `float3` is kept in RGBA32F).
    pub fn components(&self) -> u8 {
        self.components
    }

    /// An id unique in this process, never reused.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The context that owns this texture.
    pub(crate) fn context(&self) -> &Rc<GlContext> {
        &self.ctx
    }

    /// Writes `data` (`components` floats per texel, row-major, lowest row
    /// first) into `rect`. Binds the texture to the active texture unit (passes
    /// bind their samplers before each draw anyway). On desktop GL the data goes
    /// to GL as it is, whatever the stored format; ES 3.0 takes only the stored
    /// layout, so a `float3` is padded to four floats there first.
    pub fn upload(&self, rect: TexelRect, data: &[f32]) -> Result<(), GlError> {
        self.check_rect(rect)?;
        let components = usize::from(self.components);
        if data.len() != rect.texels() * components {
            return Err(GlError::InvalidArgument(format!(
                "{} floats given for {} texels of {components} components",
                data.len(),
                rect.texels()
            )));
        }
        self.ctx.make_current()?;
        let client = Client::for_upload(self.components, self.format, self.is_es());
        let padded;
        let texels = if client.channels == components {
            data
        } else {
            padded = widen(data, components, client.channels);
            &padded
        };
        transfer::upload(self.ctx.gl(), self.raw, self.format, rect, client, texels)
    }

    /// Reads `rect` back: `components` floats per texel, row-major, lowest row
    /// first. Leaves this texture's cached framebuffer bound.
    pub fn read(&self, rect: TexelRect) -> Result<Vec<f32>, GlError> {
        let mut out = vec![0.0; rect.texels() * usize::from(self.components)];
        self.read_into(rect, &mut out)?;
        Ok(out)
    }

    /// [`Texture::read`] into `out` (`components` floats per texel): on desktop
    /// GL glReadPixels writes the member's floats straight into `out`; ES 3.0
    /// reads only RGBA, which is narrowed into `out`. Leaves this texture's
    /// cached framebuffer bound.
    pub fn read_into(&self, rect: TexelRect, out: &mut [f32]) -> Result<(), GlError> {
        self.check_rect(rect)?;
        self.ctx.framebuffer_for(&[self])?;
        let client = Client::for_read(self.components, self.is_es());
        let gl = self.ctx.gl();
        let components = usize::from(self.components);
        if client.channels == components {
            return transfer::read_into(gl, self.format, rect, client, out);
        }
        if out.len() != rect.texels() * components {
            return Err(GlError::InvalidArgument(format!(
                "room for {} floats given for {} texels of {components} components",
                out.len(),
                rect.texels()
            )));
        }
        let rgba = transfer::read_rgba(gl, self.format, rect)?;
        for (to, texel) in out.chunks_exact_mut(components).zip(rgba.chunks_exact(4)) {
            to.copy_from_slice(&texel[..components]);
        }
        Ok(())
    }

    /// Whether the context is GL ES, whose transfers take fewer client formats.
    fn is_es(&self) -> bool {
        self.ctx.profile() == Profile::Es30
    }

    /// Sets every texel to zero on the GPU (a clear of its framebuffer, no upload). Leaves
    /// this texture's cached framebuffer bound.
    pub fn clear(&self) -> Result<(), GlError> {
        self.ctx.framebuffer_for(&[self])?;
        // SAFETY: the context is current (framebuffer_for made it so) and the texture's
        // framebuffer is bound, with this texture as draw buffer 0.
        unsafe {
            self.ctx
                .gl()
                .clear_buffer_f32_slice(glow::COLOR, 0, &[0.0; 4]);
        }
        check_gl(self.ctx.gl(), "clearing a texture")
    }

    /// Copies every texel of `source` (same size and components) into this texture on the
    /// GPU, with a framebuffer blit. Leaves this texture's cached framebuffer bound.
    pub fn copy_from(&self, source: &Texture) -> Result<(), GlError> {
        if (source.width, source.height, source.components)
            != (self.width, self.height, self.components)
        {
            return Err(GlError::InvalidArgument(format!(
                "copying a {}x{} texture of {} components into a {}x{} one of {}",
                source.width,
                source.height,
                source.components,
                self.width,
                self.height,
                self.components
            )));
        }
        let read = self.ctx.framebuffer_for(&[source])?;
        let draw = self.ctx.framebuffer_for(&[self])?;
        let (w, h) = (self.width as i32, self.height as i32);
        let gl = self.ctx.gl();
        // SAFETY: both framebuffers are live objects of this current context.
        unsafe {
            gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(read));
            gl.read_buffer(glow::COLOR_ATTACHMENT0);
            gl.blit_framebuffer(
                0,
                0,
                w,
                h,
                0,
                0,
                w,
                h,
                glow::COLOR_BUFFER_BIT,
                glow::NEAREST,
            );
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(draw));
        }
        check_gl(gl, "copying a texture")
    }

    fn check_rect(&self, rect: TexelRect) -> Result<(), GlError> {
        let inside = rect.width > 0
            && rect.height > 0
            && u64::from(rect.x) + u64::from(rect.width) <= u64::from(self.width)
            && u64::from(rect.y) + u64::from(rect.height) <= u64::from(self.height);
        if inside {
            Ok(())
        } else {
            Err(GlError::InvalidArgument(format!(
                "rectangle {rect:?} is empty or outside the {}x{} texture",
                self.width, self.height
            )))
        }
    }
}

/// A texture as a pass observer reads it (brook-core's seam): its texels, lowest row first.
impl Readback for Texture {
    fn grid(&self) -> Grid {
        Grid {
            width: self.width,
            height: self.height,
            components: self.components,
        }
    }

    fn read_rows(&self, first: u32, count: u32) -> Result<Vec<f32>, BrookError> {
        let rows = TexelRect {
            x: 0,
            y: first,
            width: self.width,
            height: count,
        };
        self.read(rows).map_err(|e| BrookError::backend("gl", e))
    }
}

impl Drop for Texture {
    fn drop(&mut self) {
        // With the wrong context current the name would delete some other
        // object; leaking is the lesser harm, and only happens if EGL fails.
        if self.ctx.make_current().is_err() {
            return;
        }
        self.ctx.forget_texture(self.id);
        // SAFETY: the texture was created by this context and is deleted once.
        unsafe { self.ctx.gl().delete_texture(self.raw) };
        self.ctx.count(0, -1);
    }
}

/// Creates a texture of `format` with undefined contents; deletes it again if
/// GL reports an error (typically `GL_OUT_OF_MEMORY`).
pub(crate) fn allocate(
    gl: &glow::Context,
    width: u32,
    height: u32,
    format: TexelFormat,
) -> Result<glow::Texture, GlError> {
    // SAFETY: plain object creation on the current context.
    let raw = unsafe { gl.create_texture() }
        .map_err(|msg| GlError::Unsupported(format!("glGenTextures gave no name: {msg}")))?;
    // SAFETY: `raw` is live; with no pixel-unpack buffer bound a null data
    // pointer means "allocate only".
    unsafe {
        gl.bind_texture(glow::TEXTURE_2D, Some(raw));
        for (parameter, value) in [
            (glow::TEXTURE_MIN_FILTER, glow::NEAREST),
            (glow::TEXTURE_MAG_FILTER, glow::NEAREST),
            (glow::TEXTURE_WRAP_S, glow::CLAMP_TO_EDGE),
            (glow::TEXTURE_WRAP_T, glow::CLAMP_TO_EDGE),
        ] {
            gl.tex_parameter_i32(glow::TEXTURE_2D, parameter, value as i32);
        }
        gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MAX_LEVEL, 0);
        gl.bind_buffer(glow::PIXEL_UNPACK_BUFFER, None);
        gl.tex_image_2d(
            glow::TEXTURE_2D,
            0,
            format.internal as i32,
            width as i32,
            height as i32,
            0,
            format.format,
            glow::FLOAT,
            PixelUnpackData::Slice(None),
        );
    }
    let what = format!("allocating a {width}x{height} {} texture", format.name);
    if let Err(err) = check_gl(gl, &what) {
        // SAFETY: deleting the object made above.
        unsafe { gl.delete_texture(raw) };
        return Err(err);
    }
    Ok(raw)
}

/// Pads each group of `from` floats to `to` floats with zeros.
fn widen(data: &[f32], from: usize, to: usize) -> Vec<f32> {
    let mut wide = vec![0.0; data.len() / from * to];
    for (src, dst) in data.chunks_exact(from).zip(wide.chunks_exact_mut(to)) {
        dst[..from].copy_from_slice(src);
    }
    wide
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widen_pads_each_texel_with_zeros() {
        let data = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let wide = widen(&data, 3, 4);
        assert_eq!(wide, vec![1.0, 2.0, 3.0, 0.0, 4.0, 5.0, 6.0, 0.0]);
    }
}
