//! Moving texel rectangles between host memory and GL textures.
//!
//! Both directions hand GL a raw pointer and let it compute how many bytes to
//! touch from the pixel-store state, which any other part of the program may
//! have changed (a row length, skipped rows, a bound pixel buffer). So every
//! transfer first puts that state back to tightly packed client memory: the
//! buffer sizes checked here are then exactly what GL reads or writes.

use glow::{HasContext, PixelPackData, PixelUnpackData};

use crate::check::check_gl_with;
use crate::error::GlError;
use crate::spans::TexelRect;
use crate::texel_format::TexelFormat;

/// Writes `texels` (`client.channels` floats per texel, row-major, bottom row
/// first) into `rect` of `texture`, stored as `format`.
pub(crate) fn upload(
    gl: &glow::Context,
    texture: glow::Texture,
    format: TexelFormat,
    rect: TexelRect,
    client: Client,
    texels: &[f32],
) -> Result<(), GlError> {
    let expected = rect.texels() * client.channels;
    if texels.len() != expected {
        return Err(GlError::InvalidArgument(format!(
            "{} floats given for a {}x{} {} rectangle of {expected} floats",
            texels.len(),
            rect.width,
            rect.height,
            format.name
        )));
    }
    // SAFETY: the unpack state is reset to tight packing from client memory,
    // so GL reads exactly `rect.texels() * client.channels` floats, the slice length.
    unsafe {
        reset_pixel_store(gl, glow::PIXEL_UNPACK_BUFFER, UNPACK_STATE);
        gl.bind_texture(glow::TEXTURE_2D, Some(texture));
        gl.tex_sub_image_2d(
            glow::TEXTURE_2D,
            0,
            rect.x as i32,
            rect.y as i32,
            rect.width as i32,
            rect.height as i32,
            client.format,
            glow::FLOAT,
            PixelUnpackData::Slice(Some(bytemuck::cast_slice(texels))),
        );
    }
    check_gl_with(gl, || describe("uploading", format, rect))
}

/// Reads `rect` of colour attachment 0 of the bound read framebuffer as RGBA
/// floats (4 per texel, row-major). `GL_RGBA`/`GL_FLOAT` is the one read
/// format that desktop GL and ES 3 both accept for every float colour buffer;
/// missing channels read as 0 (green, blue) and 1 (alpha).
pub(crate) fn read_rgba(
    gl: &glow::Context,
    format: TexelFormat,
    rect: TexelRect,
) -> Result<Vec<f32>, GlError> {
    let mut rgba = vec![0.0f32; rect.texels() * 4];
    read_into(gl, format, rect, Client::RGBA, &mut rgba)?;
    Ok(rgba)
}

/// Reads `rect` of colour attachment 0 of the bound read framebuffer into
/// `out` as `client` floats per texel, row-major, straight into the caller's
/// memory: no intermediate buffer, so a readback costs what glReadPixels costs.
/// The client format must be one the context accepts for the colour buffer
/// ([`Client::for_read`]).
pub(crate) fn read_into(
    gl: &glow::Context,
    format: TexelFormat,
    rect: TexelRect,
    client: Client,
    out: &mut [f32],
) -> Result<(), GlError> {
    let expected = rect.texels() * client.channels;
    if out.len() != expected {
        return Err(GlError::InvalidArgument(format!(
            "room for {} floats given for a {}x{} readback of {expected}",
            out.len(),
            rect.width,
            rect.height
        )));
    }
    // SAFETY: the pack state is reset to tight packing into client memory, so
    // GL writes exactly `rect.texels() * client.channels` floats, `out`'s length.
    unsafe {
        reset_pixel_store(gl, glow::PIXEL_PACK_BUFFER, PACK_STATE);
        gl.read_buffer(glow::COLOR_ATTACHMENT0);
        gl.read_pixels(
            rect.x as i32,
            rect.y as i32,
            rect.width as i32,
            rect.height as i32,
            client.format,
            glow::FLOAT,
            PixelPackData::Slice(Some(bytemuck::cast_slice_mut(out))),
        );
    }
    check_gl_with(gl, || describe("reading back", format, rect))
}

/// The layout of texels in host memory for a transfer: `GL_RED`, `GL_RG`,
/// `GL_RGB` or `GL_RGBA` floats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Client {
    /// The GL client format.
    pub format: u32,
    /// Floats per texel in host memory.
    pub channels: usize,
}

impl Client {
    /// Four floats per texel.
    pub const RGBA: Client = Client {
        format: glow::RGBA,
        channels: 4,
    };

    /// `channels` (1 to 4) floats per texel.
    fn of(channels: usize) -> Client {
        let format = match channels {
            1 => glow::RED,
            2 => glow::RG,
            3 => glow::RGB,
            _ => glow::RGBA,
        };
        Client { format, channels }
    }

    /// The client layout to read a member of `components` floats with: the
    /// member's own floats where the API converts between formats (desktop GL
    /// packs any subset of channels, so a readback lands in the host's layout
    /// with no copy), RGBA on ES 3.0, which guarantees only RGBA/FLOAT for
    /// float colour buffers.
    pub fn for_read(components: u8, es: bool) -> Client {
        if es {
            Client::RGBA
        } else {
            Client::of(usize::from(components))
        }
    }

    /// The client layout to upload a member of `components` floats stored as
    /// `stored` with: the member's own floats on desktop GL (which fills a
    /// `float3`'s padding channel itself), the stored format's on ES 3.0, whose
    /// texSubImage2D takes only the internal format's own layout.
    pub fn for_upload(components: u8, stored: TexelFormat, es: bool) -> Client {
        if es {
            Client::of(stored.channels)
        } else {
            Client::of(usize::from(components))
        }
    }
}

/// Pixel-store parameters and their tightly packed values for uploads.
const UNPACK_STATE: [(u32, i32); 4] = [
    (glow::UNPACK_ALIGNMENT, 4),
    (glow::UNPACK_ROW_LENGTH, 0),
    (glow::UNPACK_SKIP_ROWS, 0),
    (glow::UNPACK_SKIP_PIXELS, 0),
];

/// Pixel-store parameters and their tightly packed values for readbacks.
const PACK_STATE: [(u32, i32); 4] = [
    (glow::PACK_ALIGNMENT, 4),
    (glow::PACK_ROW_LENGTH, 0),
    (glow::PACK_SKIP_ROWS, 0),
    (glow::PACK_SKIP_PIXELS, 0),
];

/// Unbinds the pixel buffer of `target` (so pointers mean client memory) and
/// sets `state`.
unsafe fn reset_pixel_store(gl: &glow::Context, target: u32, state: [(u32, i32); 4]) {
    unsafe {
        gl.bind_buffer(target, None);
        for (parameter, value) in state {
            gl.pixel_store_i32(parameter, value);
        }
    }
}

fn describe(what: &str, format: TexelFormat, rect: TexelRect) -> String {
    format!(
        "{what} {}x{} texels at ({}, {}) of a {} texture",
        rect.width, rect.height, rect.x, rect.y, format.name
    )
}
