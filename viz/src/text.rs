//! Text as pixels, from the 8×8 bitmap font of `font8x8`: the live window's overlay letters
//! with it, rasterised into a texture when its text changes: no font files, no rasteriser.

use font8x8::legacy::BASIC_LEGACY;

/// Calls `ink(x, y)` for every inked pixel of `line` drawn with each font pixel as a
/// `scale × scale` block; (0, 0) is the top-left corner of the first glyph, y grows down.
/// Characters outside ASCII are drawn as `?`.
pub fn ink_line(line: &str, scale: usize, mut ink: impl FnMut(usize, usize)) {
    let glyph = 8 * scale;
    for (c, ch) in line.chars().enumerate() {
        let code = if ch.is_ascii() {
            ch as usize
        } else {
            '?' as usize
        };
        for (gy, bits) in BASIC_LEGACY[code].iter().enumerate() {
            for gx in (0..8).filter(|gx| bits & (1 << gx) != 0) {
                for sy in 0..scale {
                    for sx in 0..scale {
                        ink(c * glyph + gx * scale + sx, gy * scale + sy);
                    }
                }
            }
        }
    }
}
