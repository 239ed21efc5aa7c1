//! A texture's contents as a small PNG: colour-mapped like viz, downsampled when large.
//!
//! Scalars (one component) go through viridis over the texels' own range; two to four
//! components become red, green and blue of the first three over their common range (the
//! fourth is not drawn). Values that are not finite are magenta. Row 0 is the top row of the
//! picture, as a learner reads an array, and the page says so.
//!
//! A large texture is shown as every `step`-th texel in each direction (nearest, so every
//! pixel is a value the texture really holds), with the texture's extents stated.

use std::io::Cursor;

use crate::colormap::ColorMap;

/// The colour of a value that is NaN or infinite.
const NOT_FINITE: [u8; 3] = [255, 0, 255];
/// A difference picture's colours: an element beyond the tolerance, one within it.
pub const DIFFERS: [u8; 3] = [220, 30, 30];
pub const AGREES: [u8; 3] = [225, 225, 225];
/// A write mask's colours: an element written, one masked off (drawn over a result with
/// `multiply`, white leaves the result as it is and the dark grey dims it).
pub const MASK_ON: [u8; 3] = [255, 255, 255];
pub const MASK_OFF: [u8; 3] = [70, 70, 70];

/// One texture's contents, as shown.
#[derive(Debug, Clone, PartialEq)]
pub struct Picture {
    /// The texture's width in texels.
    pub width: u32,
    /// The texture's height in texels.
    pub height: u32,
    /// Floats per texel read (1 to 4): one goes through the colour map, more become RGB.
    pub components: u8,
    /// Every `step`-th texel in each direction is shown (1: all of them).
    pub step: u32,
    /// The smallest and largest finite value shown (`None`: none is finite).
    pub range: Option<(f32, f32)>,
    /// Texels shown with a value that is not finite.
    pub not_finite: usize,
    /// The picture, PNG-encoded: `shown()` pixels.
    pub png: Vec<u8>,
    /// The values shown, `components` per pixel, top row first (for the value under the
    /// pointer); empty when the picture is too large to carry them.
    pub values: Vec<f32>,
}

/// Pictures at most this many pixels carry their values into the page.
pub const MAX_VALUE_PIXELS: usize = 64 * 64;

impl Picture {
    /// The step that fits a `width × height` texture into `max_side` pixels a side.
    pub fn step_for(width: u32, height: u32, max_side: u32) -> u32 {
        width.max(height).div_ceil(max_side.max(1)).max(1)
    }

    /// The pixels shown: the texture's extents divided by the step, rounded up.
    pub fn shown(&self) -> (u32, u32) {
        (
            self.width.div_ceil(self.step),
            self.height.div_ceil(self.step),
        )
    }

    /// The picture of `rows`: the texels shown (every `step`-th row, lowest first, each of
    /// every `step`-th texel, `components` floats each) of a `width × height` texture.
    pub fn of_rows(
        width: u32,
        height: u32,
        components: u8,
        step: u32,
        rows: &[f32],
    ) -> Result<Picture, String> {
        let shown = (width.div_ceil(step), height.div_ceil(step));
        let per = usize::from(components);
        let pixels = shown.0 as usize * shown.1 as usize;
        if rows.len() != pixels * per {
            return Err(format!(
                "{} floats read for {pixels} texels of {components} components",
                rows.len()
            ));
        }
        let drawn = usize::from(components.min(3));
        let finite = rows
            .chunks(per)
            .flat_map(|t| &t[..drawn])
            .copied()
            .filter(|v| v.is_finite());
        let range = finite.fold(None, |r: Option<(f32, f32)>, v| match r {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        });
        let scale = |v: f32| match range {
            Some((lo, hi)) if hi > lo => (v - lo) / (hi - lo),
            _ => 0.5,
        };
        let byte = |x: f32| (x.clamp(0.0, 1.0) * 255.0).round() as u8;
        let mut not_finite = 0;
        let mut rgb = Vec::with_capacity(pixels * 3);
        // Top row first in the image: the texture's row 0.
        for texel in rows.chunks(per) {
            let shown = &texel[..drawn];
            if shown.iter().any(|v| !v.is_finite()) {
                not_finite += 1;
                rgb.extend(NOT_FINITE);
            } else if per == 1 {
                rgb.extend(ColorMap::Viridis.sample(scale(texel[0])).map(byte));
            } else {
                rgb.extend((0..3).map(|c| shown.get(c).map_or(0, |v| byte(scale(*v)))));
            }
        }
        let png = png(shown, rgb)?;
        let values = if pixels <= MAX_VALUE_PIXELS {
            rows.to_vec()
        } else {
            Vec::new()
        };
        Ok(Picture {
            width,
            height,
            components,
            step,
            range,
            not_finite,
            png,
            values,
        })
    }
}

impl Picture {
    /// A picture of flags (one per element shown, row by row): `colours.0` where one is
    /// set, `colours.1` elsewhere; its values are 1 and 0 (for the value under the pointer).
    /// Differences are drawn red on light grey, a write mask white (written) on dark grey.
    pub fn of_flags(
        width: u32,
        height: u32,
        step: u32,
        flags: &[bool],
        colours: ([u8; 3], [u8; 3]),
    ) -> Result<Picture, String> {
        let shown = (width.div_ceil(step), height.div_ceil(step));
        if flags.len() != shown.0 as usize * shown.1 as usize {
            return Err(format!(
                "{} flags for {}×{} pixels",
                flags.len(),
                shown.0,
                shown.1
            ));
        }
        let rgb = flags
            .iter()
            .flat_map(|f| if *f { colours.0 } else { colours.1 })
            .collect();
        let values: Vec<f32> = flags.iter().map(|f| f32::from(u8::from(*f))).collect();
        Ok(Picture {
            width,
            height,
            components: 1,
            step,
            range: Some((0.0, if flags.contains(&true) { 1.0 } else { 0.0 })),
            not_finite: 0,
            png: png(shown, rgb)?,
            values: if flags.len() <= MAX_VALUE_PIXELS {
                values
            } else {
                Vec::new()
            },
        })
    }
}

/// `rgb` (three bytes a pixel, top row first) as a PNG of `size` pixels.
fn png(size: (u32, u32), rgb: Vec<u8>) -> Result<Vec<u8>, String> {
    let image = image::RgbImage::from_raw(size.0, size.1, rgb)
        .ok_or("the picture's pixels do not fill it")?;
    let mut png = Vec::new();
    image
        .write_to(&mut Cursor::new(&mut png), image::ImageFormat::Png)
        .map_err(|e| format!("PNG encoding failed: {e}"))?;
    Ok(png)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(p: &Picture) -> image::RgbImage {
        image::load_from_memory(&p.png).unwrap().to_rgb8()
    }

    #[test]
    fn scalars_are_viridis_over_their_range_with_row_zero_on_top() {
        // 2×2: row 0 = [0, 1], row 1 = [2, 4].
        let p = Picture::of_rows(2, 2, 1, 1, &[0.0, 1.0, 2.0, 4.0]).unwrap();
        assert_eq!(p.range, Some((0.0, 4.0)));
        let img = decode(&p);
        assert_eq!(img.dimensions(), (2, 2));
        let viridis = |t: f32| {
            ColorMap::Viridis
                .sample(t)
                .map(|c| (c * 255.0).round() as u8)
        };
        assert_eq!(img.get_pixel(0, 0).0, viridis(0.0));
        assert_eq!(img.get_pixel(1, 0).0, viridis(0.25));
        assert_eq!(img.get_pixel(1, 1).0, viridis(1.0));
        assert_eq!(p.values, [0.0, 1.0, 2.0, 4.0]);
    }

    #[test]
    fn vectors_are_rgb_and_non_finite_values_magenta() {
        let p =
            Picture::of_rows(2, 1, 4, 1, &[1.0, 0.0, 0.0, 9.0, 0.0, f32::NAN, 1.0, 1.0]).unwrap();
        let img = decode(&p);
        assert_eq!(
            img.get_pixel(0, 0).0,
            [255, 0, 0],
            "the fourth component is not drawn"
        );
        assert_eq!(img.get_pixel(1, 0).0, NOT_FINITE);
        assert_eq!((p.not_finite, p.range), (1, Some((0.0, 1.0))));
    }

    #[test]
    fn large_textures_are_stepped_and_say_so() {
        assert_eq!(Picture::step_for(1000, 10, 128), 8);
        assert_eq!(Picture::step_for(100, 100, 128), 1);
        let (w, h, step) = (1000, 10, 8);
        let shown = (125usize, 2usize);
        let rows = vec![1.0; shown.0 * shown.1];
        let p = Picture::of_rows(w, h, 1, step, &rows).unwrap();
        assert_eq!(p.shown(), (125, 2));
        assert_eq!(decode(&p).dimensions(), (125, 2));
        assert!(Picture::of_rows(w, h, 1, step, &rows[1..]).is_err());
    }
}
