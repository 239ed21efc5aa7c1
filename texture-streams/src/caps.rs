//! What the device can do, probed once when a context is set up.
//!
//! The integer limits come from `glGet`. Float render targets are probed by
//! *doing* it — clear an R32F/RG32F/RGBA32F target to values outside [0, 1] and
//! read them back — because drivers have advertised float formats that were
//! clamped, or incomplete as attachments, and a stream must hold any float a
//! kernel writes.

use glow::HasContext;

use crate::check::check_gl;
use crate::context::ContextOptions;
use crate::error::GlError;
use crate::framebuffer;
use crate::spans::TexelRect;
use crate::texel_format::TexelFormat;
use crate::texture::allocate;
use crate::transfer::read_rgba;

/// The device's limits and float render support, after the
/// [`ContextOptions`] overrides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caps {
    /// `GL_MAX_TEXTURE_SIZE`, lowered by the override: the largest texture side.
    pub max_texture_size: u32,
    /// `GL_MAX_DRAW_BUFFERS`, lowered by the override: outputs of one pass.
    pub max_draw_buffers: u32,
    /// `GL_MAX_COLOR_ATTACHMENTS`.
    pub max_color_attachments: u32,
    /// `GL_MAX_TEXTURE_IMAGE_UNITS`: textures one fragment shader may sample.
    pub max_texture_units: u32,
    /// `GL_RENDERER`, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)".
    pub renderer: String,
    /// `GL_VERSION`, e.g. "4.5 (Core Profile) Mesa 22.3.6".
    pub version: String,
    /// Whether R32F, RG32F, RGBA32F, RGBA32F (indexed by components − 1; a
    /// `float3` is stored as RGBA32F) render and read back unclamped.
    pub float_renderable: [bool; 4],
}

impl Caps {
    /// The loop iterations one shader invocation may make, over all its loops, before the
    /// driver silently ends them, where it caps them ([`brook_core::loops::loop_iteration_cap`]).
    pub fn loop_iteration_cap(&self) -> Option<u32> {
        brook_core::loops::loop_iteration_cap(&self.renderer)
    }
}

/// Cleared into each probe target and expected back exactly: outside [0, 1],
/// negative, huge and tiny, so clamping or a half-float format would show.
const PROBE_VALUES: [f32; 4] = [-1.5, 1.0e20, 3.25, -7.0e-3];

impl Caps {
    /// Queries the limits and probes float rendering on the current context.
    /// Fails with [`GlError::Unsupported`] if RGBA32F cannot be rendered.
    pub(crate) fn probe(gl: &glow::Context, options: &ContextOptions) -> Result<Caps, GlError> {
        let limit = |parameter| {
            // SAFETY: integer queries with valid enums on the current context.
            u32::try_from(unsafe { gl.get_parameter_i32(parameter) }).unwrap_or(0)
        };
        let lowered = |probed: u32, cap: Option<u32>| cap.map_or(probed, |cap| probed.min(cap));
        let mut caps = Caps {
            max_texture_size: lowered(limit(glow::MAX_TEXTURE_SIZE), options.max_texture_size),
            max_draw_buffers: lowered(limit(glow::MAX_DRAW_BUFFERS), options.max_draw_buffers),
            max_color_attachments: limit(glow::MAX_COLOR_ATTACHMENTS),
            max_texture_units: limit(glow::MAX_TEXTURE_IMAGE_UNITS),
            // SAFETY: string queries with valid enums on the current context.
            renderer: unsafe { gl.get_parameter_string(glow::RENDERER) },
            version: unsafe { gl.get_parameter_string(glow::VERSION) },
            float_renderable: [false; 4],
        };
        check_gl(gl, "querying the device limits")?;
        let rgba = renders_exactly(gl, TexelFormat::with_channels(4))?;
        caps.float_renderable = [
            renders_exactly(gl, TexelFormat::with_channels(1))?,
            renders_exactly(gl, TexelFormat::with_channels(2))?,
            rgba,
            rgba,
        ];
        if !rgba {
            return Err(GlError::Unsupported(format!(
                "{} ({}) cannot render to RGBA32F textures without clamping; every Brook \
                 stream is a 32-bit float texture, so this device cannot run Brook kernels",
                caps.renderer, caps.version
            )));
        }
        Ok(caps)
    }
}

/// Whether a 1x1 target of `format` clears to [`PROBE_VALUES`] and reads them
/// back unchanged. An incomplete framebuffer or a GL error while clearing or
/// reading means "no"; failing to allocate the texture is an error.
fn renders_exactly(gl: &glow::Context, format: TexelFormat) -> Result<bool, GlError> {
    let mut target = ProbeTarget {
        gl,
        texture: allocate(gl, 1, 1, format)?,
        framebuffer: None,
    };
    match framebuffer::create(gl, &[target.texture]) {
        Ok(framebuffer) => target.framebuffer = Some(framebuffer),
        Err(GlError::FramebufferIncomplete { .. }) => return Ok(false),
        Err(other) => return Err(other),
    }
    // SAFETY: the probe framebuffer is bound; a clear has no other inputs.
    // Scissor and colour mask would limit the clear, so they are set to pass all.
    unsafe {
        gl.disable(glow::SCISSOR_TEST);
        gl.color_mask(true, true, true, true);
        gl.clear_buffer_f32_slice(glow::COLOR, 0, &PROBE_VALUES);
    }
    if check_gl(gl, &format!("clearing a {} target", format.name)).is_err() {
        return Ok(false);
    }
    let rect = TexelRect {
        x: 0,
        y: 0,
        width: 1,
        height: 1,
    };
    Ok(match read_rgba(gl, format, rect) {
        Ok(rgba) => rgba[..format.channels] == PROBE_VALUES[..format.channels],
        Err(_) => false,
    })
}

/// The texture and FBO of one probe, deleted when the probe ends however it ends.
struct ProbeTarget<'gl> {
    gl: &'gl glow::Context,
    texture: glow::Texture,
    framebuffer: Option<glow::Framebuffer>,
}

impl Drop for ProbeTarget<'_> {
    fn drop(&mut self) {
        // SAFETY: both objects were created for this probe and are deleted once.
        unsafe {
            if let Some(framebuffer) = self.framebuffer {
                self.gl.delete_framebuffer(framebuffer);
            }
            self.gl.delete_texture(self.texture);
        }
    }
}
