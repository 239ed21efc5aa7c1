//! A white RGBA canvas with the three things charts need: filled rectangles, straight lines
//! and 8×8-font text (shared with viz's overlay).

use std::path::Path;

use brook_viz::RgbaImage;

use crate::error::AppError;

pub type Color = [u8; 3];

pub const INK: Color = [30, 30, 30];
pub const GRID: Color = [215, 215, 215];

pub struct Canvas {
    image: RgbaImage,
}

impl Canvas {
    pub fn new(width: u32, height: u32) -> Canvas {
        Canvas {
            image: RgbaImage::from_pixel(width, height, image::Rgba([255, 255, 255, 255])),
        }
    }

    pub fn width(&self) -> i64 {
        self.image.width() as i64
    }

    pub fn height(&self) -> i64 {
        self.image.height() as i64
    }

    fn dot(&mut self, x: i64, y: i64, c: Color) {
        if (0..self.width()).contains(&x) && (0..self.height()).contains(&y) {
            self.image
                .put_pixel(x as u32, y as u32, image::Rgba([c[0], c[1], c[2], 255]));
        }
    }

    /// Fills the rectangle with corners `(x0, y0)` and `(x1, y1)`, in either order.
    pub fn rect(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, c: Color) {
        for y in y0.min(y1)..=y0.max(y1) {
            for x in x0.min(x1)..=x0.max(x1) {
                self.dot(x, y, c);
            }
        }
    }

    /// A line `width` pixels thick (Bresenham, thickened as a square brush).
    pub fn line(&mut self, from: (i64, i64), to: (i64, i64), width: i64, c: Color) {
        let (mut x, mut y) = from;
        let (dx, dy) = ((to.0 - x).abs(), -(to.1 - y).abs());
        let (sx, sy) = ((to.0 - x).signum(), (to.1 - y).signum());
        let mut err = dx + dy;
        loop {
            self.rect(x, y, x + width - 1, y + width - 1, c);
            if (x, y) == to {
                break;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                x += sx;
            }
            if e2 <= dx {
                err += dx;
                y += sy;
            }
        }
    }

    /// Text with its top-left corner at `(x, y)`; each font pixel drawn `scale` times as wide.
    pub fn text(&mut self, x: i64, y: i64, text: &str, scale: usize, c: Color) {
        brook_viz::text::ink_line(text, scale, |dx, dy| {
            self.dot(x + dx as i64, y + dy as i64, c)
        });
    }

    /// Width in pixels of `text` at `scale`.
    pub fn text_width(text: &str, scale: usize) -> i64 {
        (text.chars().count() * 8 * scale) as i64
    }

    pub fn save(&self, path: &Path) -> Result<(), AppError> {
        brook_viz::save_png(&self.image, path).map_err(|e| AppError::Usage(e.to_string()))
    }
}

/// Where `value` falls on a log axis from `lo` to `hi` mapped onto `from..to` pixels.
pub fn log_position(value: f64, lo: f64, hi: f64, from: i64, to: i64) -> i64 {
    let t = (value.max(lo).min(hi).ln() - lo.ln()) / (hi.ln() - lo.ln());
    from + ((to - from) as f64 * t).round() as i64
}
