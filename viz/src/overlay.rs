//! The on-screen text of the live window (frame and kernel times, the key help), drawn with
//! the 8×8 bitmap font of `font8x8` into a texture, and that texture drawn as an RGB view.

use std::rc::Rc;

use brook::texture_streams::{GlContext, TexelRect, Texture};

use crate::error::VizError;
use crate::range::Resolved;
use crate::renderer::{Renderer, Source};
use crate::view::View;

/// Each font pixel is drawn as a 2×2 block when the text fits the window that way, else 1×1.
const SCALES: [usize; 2] = [2, 1];
/// Pixels around the text inside the box, and between the box and the window edge.
const PAD: usize = 6;
const INK: [f32; 3] = [0.95, 0.95, 0.95];
const PAPER: [f32; 3] = [0.0, 0.0, 0.0];

/// Text lines rasterised into RGBA floats, top row first: drawn as an image view, whose
/// row 0 is at the top.
struct Bitmap {
    width: usize,
    height: usize,
    rgba: Vec<f32>,
}

fn rasterise(lines: &[String], scale: usize) -> Bitmap {
    let glyph = 8 * scale;
    let columns = lines
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
        .max(1);
    let width = columns * glyph + 2 * PAD;
    let height = lines.len().max(1) * glyph + 2 * PAD;
    let mut rgba = Vec::with_capacity(width * height * 4);
    for _ in 0..width * height {
        rgba.extend_from_slice(&[PAPER[0], PAPER[1], PAPER[2], 1.0]);
    }
    for (l, line) in lines.iter().enumerate() {
        crate::text::ink_line(line, scale, |x, y| {
            let at = ((PAD + l * glyph + y) * width + PAD + x) * 4;
            rgba[at..at + 3].copy_from_slice(&INK);
        });
    }
    Bitmap {
        width,
        height,
        rgba,
    }
}

/// The overlay's texture, remade when its text changes.
pub(crate) struct Overlay {
    ctx: Rc<GlContext>,
    text: Vec<String>,
    texture: Option<Texture>,
    /// The largest scale the text may take.
    max_scale: usize,
}

/// The height of a one-line [`Overlay::label`]'s box.
pub(crate) const LABEL_HEIGHT: u32 = 8 + 2 * PAD as u32;

impl Overlay {
    pub fn new(ctx: &Rc<GlContext>) -> Overlay {
        Overlay {
            ctx: Rc::clone(ctx),
            text: Vec::new(),
            texture: None,
            max_scale: SCALES[0],
        }
    }

    /// A one-line label, always at scale 1 ([`LABEL_HEIGHT`] pixels high).
    pub fn label(ctx: &Rc<GlContext>) -> Overlay {
        Overlay {
            max_scale: 1,
            ..Overlay::new(ctx)
        }
    }

    /// Shows `lines` from now on in a window `width` pixels wide (uploading only when they
    /// changed).
    pub fn set_text(&mut self, lines: Vec<String>, width: u32) -> Result<(), VizError> {
        if lines == self.text && self.texture.is_some() {
            return Ok(());
        }
        let columns = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        let scale = SCALES
            .into_iter()
            .filter(|s| *s <= self.max_scale)
            .find(|s| columns * 8 * s + 2 * PAD <= width as usize)
            .unwrap_or(1);
        let bitmap = rasterise(&lines, scale);
        let texture = Texture::new(&self.ctx, bitmap.width as u32, bitmap.height as u32, 4)?;
        texture.upload(
            TexelRect {
                x: 0,
                y: 0,
                width: bitmap.width as u32,
                height: bitmap.height as u32,
            },
            &bitmap.rgba,
        )?;
        self.texture = Some(texture);
        self.text = lines;
        Ok(())
    }

    /// Draws the text box in the top-left corner of the bound framebuffer.
    pub fn draw(&self, renderer: &Renderer, viewport: (u32, u32)) -> Result<(), VizError> {
        self.draw_at(
            renderer,
            viewport,
            [PAD as u32, viewport.1.saturating_sub(PAD as u32)],
        )
    }

    /// Draws the text box with its top-left corner at `corner` (`[x, y]`, GL pixels: y is
    /// the box's top edge).
    pub fn draw_at(
        &self,
        renderer: &Renderer,
        viewport: (u32, u32),
        corner: [u32; 2],
    ) -> Result<(), VizError> {
        let Some(texture) = &self.texture else {
            return Ok(());
        };
        let (w, h) = (texture.width(), texture.height());
        let source = Source {
            texture: texture.raw(),
            width: w,
            count: (w * h) as usize,
            columns: w as usize,
        };
        let rect = [
            corner[0] as f32,
            corner[1] as f32 - h as f32,
            w as f32,
            h as f32,
        ];
        let ranges = Resolved {
            value: (0.0, 1.0),
            x: (0.0, 1.0),
        };
        renderer.draw_source(&source, &View::rgb(), &ranges, rect, rect, viewport)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_inked_inside_a_padded_box() {
        let bitmap = rasterise(&["I".to_string(), "ab".to_string()], 2);
        assert_eq!(bitmap.width, 2 * 16 + 2 * PAD);
        assert_eq!(bitmap.height, 2 * 16 + 2 * PAD);
        let inked = bitmap.rgba.chunks_exact(4).filter(|p| p[0] > 0.5).count();
        assert!(inked > 0);
        // The padding rows (top and bottom) stay paper; the top of `I` is inked.
        let row = |y: usize| &bitmap.rgba[y * bitmap.width * 4..(y + 1) * bitmap.width * 4];
        assert!(row(0).chunks_exact(4).all(|p| p[0] == 0.0));
        assert!(row(bitmap.height - 1).chunks_exact(4).all(|p| p[0] == 0.0));
        // font8x8's `I` has its top bar in glyph row 0: image row PAD, top first.
        assert!(row(PAD).chunks_exact(4).any(|p| p[0] > 0.5));
    }
}
