//! Pixels read back from GL as images, and images as PNG files.
//!
//! GL rows run bottom-up; images and PNGs top-down. Everything here flips, so an image shows
//! what the screen showed.

use std::path::Path;

use image::RgbaImage;

use crate::error::VizError;

/// An image from RGBA float pixels (bottom row first), each channel clamped to `[0, 1]` and
/// rounded to 8 bits as GL does when it writes a normalised framebuffer.
pub(crate) fn rgba_from_floats(floats: &[f32], size: (u32, u32)) -> RgbaImage {
    rgba_from_bytes(&bytes_from_floats(floats), size)
}

/// [`rgba_from_floats`] for pixels top row first (wgpu's order): nothing to flip.
pub(crate) fn rgba_from_floats_top_down(floats: &[f32], size: (u32, u32)) -> RgbaImage {
    RgbaImage::from_raw(size.0, size.1, bytes_from_floats(floats))
        .expect("one RGBA pixel per texel read back")
}

/// Each channel clamped to `[0, 1]` and rounded to 8 bits.
fn bytes_from_floats(floats: &[f32]) -> Vec<u8> {
    floats
        .iter()
        .map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8)
        .collect()
}

/// An image from RGBA8 pixels, bottom row first.
pub(crate) fn rgba_from_bytes(bytes: &[u8], size: (u32, u32)) -> RgbaImage {
    let row = size.0 as usize * 4;
    let flipped: Vec<u8> = bytes.chunks_exact(row).rev().flatten().copied().collect();
    RgbaImage::from_raw(size.0, size.1, flipped).expect("one RGBA pixel per texel read back")
}

/// Writes `image` as a PNG, creating missing parent folders.
pub fn save_png(image: &RgbaImage, path: &Path) -> Result<(), VizError> {
    let error = |reason: String| VizError::Image {
        path: path.display().to_string(),
        reason,
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| error(e.to_string()))?;
    }
    image
        .save_with_format(path, image::ImageFormat::Png)
        .map_err(|e| error(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flips_rows_and_rounds() {
        // 1×2: bottom pixel black, top pixel (0.5, 1.2 → 1, -1 → 0, 1).
        let floats = [0.0, 0.0, 0.0, 1.0, 0.5, 1.2, -1.0, 1.0];
        let image = rgba_from_floats(&floats, (1, 2));
        assert_eq!(image.get_pixel(0, 0).0, [128, 255, 0, 255]);
        assert_eq!(image.get_pixel(0, 1).0, [0, 0, 0, 255]);
    }
}
