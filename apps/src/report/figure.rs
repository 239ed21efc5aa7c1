//! What the report's charts share: one way to write a plotters figure to PNG or SVG, the text
//! font, and one colour per variant.
//!
//! Text goes through plotters' `ab_glyph` font backend with DejaVu Sans embedded in the binary
//! (the `dejavu` crate), so charts come out the same on a machine without fonts or fontconfig
//! (CI, a headless server). PNGs are encoded by the workspace's `image`.

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

use crate::app::Flavor;
use crate::error::AppError;

/// The family every chart's text names; [`save`] registers DejaVu Sans under it.
pub const FONT: &str = "sans-serif";

/// A chart's file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A bitmap, for viewing anywhere.
    Png,
    /// Vector graphics, for the README and print.
    Svg,
}

/// A chart that plotters can draw on any backend.
pub trait Figure {
    /// Width and height in pixels.
    fn size(&self) -> (u32, u32);
    /// Draws the whole chart on `root`, background included.
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>;
}

/// The colour of `flavor`'s bars and lines, the same in every chart.
pub fn color(flavor: Flavor) -> RGBColor {
    match flavor {
        Flavor::HandGl => RGBColor(90, 90, 90),
        Flavor::BrookGl => RGBColor(31, 119, 180),
        Flavor::BrookWgpu => RGBColor(148, 103, 189),
        Flavor::HandWgpu => RGBColor(140, 86, 75),
        Flavor::HandWgpuExpert => RGBColor(227, 119, 194),
        Flavor::BrookCpu => RGBColor(255, 127, 14),
        Flavor::Rust => RGBColor(44, 160, 44),
    }
}

/// Writes `figure` to `path` as `format`.
pub fn save(figure: &impl Figure, path: &Path, format: Format) -> Result<(), AppError> {
    static FONTS: Once = Once::new();
    FONTS.call_once(|| {
        // The bytes are a well-formed TTF shipped by the crate: registering cannot fail.
        let _ = register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
        let _ = register_font(FONT, FontStyle::Bold, dejavu::sans::bold());
    });
    let failed = |e: String| AppError::Write(format!("{}: {e}", path.display()));
    let size = figure.size();
    match format {
        Format::Svg => {
            let root = SVGBackend::new(path, size).into_drawing_area();
            figure.draw(&root).map_err(|e| failed(e.to_string()))?;
            root.present().map_err(|e| failed(e.to_string()))
        }
        Format::Png => {
            let mut pixels = vec![0u8; size.0 as usize * size.1 as usize * 3];
            {
                let root = BitMapBackend::with_buffer(&mut pixels, size).into_drawing_area();
                figure.draw(&root).map_err(|e| failed(e.to_string()))?;
                root.present().map_err(|e| failed(e.to_string()))?;
            }
            image::save_buffer_with_format(
                path,
                &pixels,
                size.0,
                size.1,
                image::ExtendedColorType::Rgb8,
                image::ImageFormat::Png,
            )
            .map_err(|e| failed(e.to_string()))
        }
    }
}

/// The powers of `base` times `lo` up to `hi`: the ticks of a log axis.
pub fn powers(lo: f64, hi: f64, base: f64) -> Vec<f64> {
    std::iter::successors(Some(lo), |v| Some(v * base))
        .take_while(|v| *v <= hi * 1.0001)
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Checks that `path` holds a PNG of `size` that is not all one colour.
    pub fn assert_png(path: &Path, size: (u32, u32)) {
        let image = image::open(path).expect("a PNG that decodes").to_rgb8();
        assert_eq!(image.dimensions(), size, "{}", path.display());
        let first = image.get_pixel(0, 0);
        assert!(
            image.pixels().any(|p| p != first),
            "{}: blank",
            path.display()
        );
    }

    /// Checks that `path` is an SVG document containing every one of `texts`.
    pub fn assert_svg(path: &Path, texts: &[&str]) {
        let svg = std::fs::read_to_string(path).expect("an SVG file");
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        for text in texts {
            assert!(svg.contains(text), "{}: no `{text}`", path.display());
        }
    }

    #[test]
    fn log_ticks_are_powers_from_the_low_end() {
        assert_eq!(powers(0.25, 4.0, 4.0), vec![0.25, 1.0, 4.0]);
        assert_eq!(powers(1e-6, 1e-3, 10.0).len(), 4);
    }
}
