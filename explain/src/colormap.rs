//! Colour maps for scalar fields: piecewise-linear through a few stops.
//!
//! The stops below are the one definition of each map: the view shader receives them as a
//! uniform array and interpolates exactly as [`ColorMap::sample`] does on the host, so tests
//! can predict every rendered pixel.

/// A map from `[0, 1]` to colours; values outside are clamped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColorMap {
    /// Perceptually uniform dark blue → green → yellow (matplotlib's default).
    Viridis,
    /// Perceptually uniform black → purple → orange → pale yellow.
    Magma,
    /// Black to white.
    Grey,
    /// Blue → light grey → red, for signed fields: the middle of the range is neutral.
    Diverging,
}

/// The most stops a map may have (the size of the shader's uniform array).
pub const MAX_STOPS: usize = 16;

/// Nine samples of matplotlib's viridis at 0, 1/8, …, 1.
const VIRIDIS: [[u8; 3]; 9] = [
    [0x44, 0x01, 0x54],
    [0x47, 0x2d, 0x7b],
    [0x3b, 0x52, 0x8b],
    [0x2c, 0x72, 0x8e],
    [0x21, 0x90, 0x8c],
    [0x27, 0xad, 0x81],
    [0x5d, 0xc8, 0x63],
    [0xaa, 0xdc, 0x32],
    [0xfd, 0xe7, 0x25],
];

/// Nine samples of matplotlib's magma at 0, 1/8, …, 1.
const MAGMA: [[u8; 3]; 9] = [
    [0x00, 0x00, 0x04],
    [0x1d, 0x11, 0x47],
    [0x51, 0x12, 0x7c],
    [0x82, 0x26, 0x81],
    [0xb6, 0x36, 0x79],
    [0xe6, 0x51, 0x64],
    [0xfb, 0x88, 0x61],
    [0xfe, 0xc2, 0x87],
    [0xfc, 0xfd, 0xbf],
];

const GREY: [[u8; 3]; 2] = [[0, 0, 0], [255, 255, 255]];

/// Moreland's cool-warm map at 0, 1/4, …, 1.
const DIVERGING: [[u8; 3]; 5] = [
    [59, 76, 192],
    [141, 176, 254],
    [221, 221, 221],
    [244, 154, 123],
    [180, 4, 38],
];

impl ColorMap {
    /// Every map, for menus and tests.
    pub const ALL: [ColorMap; 4] = [
        ColorMap::Viridis,
        ColorMap::Magma,
        ColorMap::Grey,
        ColorMap::Diverging,
    ];

    /// The stops, evenly spaced over `[0, 1]`, as 8-bit sRGB.
    pub fn stops(self) -> &'static [[u8; 3]] {
        match self {
            ColorMap::Viridis => &VIRIDIS,
            ColorMap::Magma => &MAGMA,
            ColorMap::Grey => &GREY,
            ColorMap::Diverging => &DIVERGING,
        }
    }

    /// The stops as floats in `[0, 1]`, the form the shader gets.
    pub fn stops_f32(self) -> Vec<[f32; 3]> {
        self.stops()
            .iter()
            .map(|c| c.map(|v| f32::from(v) / 255.0))
            .collect()
    }

    /// The colour of `t` (clamped to `[0, 1]`), interpolated as the shader does.
    pub fn sample(self, t: f32) -> [f32; 3] {
        let stops = self.stops_f32();
        let scaled = t.clamp(0.0, 1.0) * (stops.len() - 1) as f32;
        let i = (scaled.floor() as usize).min(stops.len() - 2);
        let f = scaled - i as f32;
        // GLSL's mix(a, b, f), term for term.
        std::array::from_fn(|c| stops[i][c] * (1.0 - f) + stops[i + 1][c] * f)
    }

    /// Whether the auto range should be symmetric about zero (so zero is the neutral middle).
    pub fn is_diverging(self) -> bool {
        self == ColorMap::Diverging
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ends_are_the_first_and_last_stops() {
        for map in ColorMap::ALL {
            let first = map.stops_f32()[0];
            let last = *map.stops_f32().last().unwrap();
            assert_eq!(map.sample(0.0), first);
            assert_eq!(map.sample(1.0), last);
            assert_eq!(map.sample(-3.0), first, "clamped below");
            assert_eq!(map.sample(7.0), last, "clamped above");
            assert!(map.stops().len() <= MAX_STOPS);
        }
    }

    #[test]
    fn interpolates_linearly_between_stops() {
        assert_eq!(ColorMap::Grey.sample(0.25), [0.25; 3]);
        let mid = ColorMap::Viridis.sample(1.0 / 16.0);
        let (a, b) = (
            ColorMap::Viridis.sample(0.0),
            ColorMap::Viridis.sample(0.125),
        );
        for c in 0..3 {
            assert!((mid[c] - (a[c] + b[c]) / 2.0).abs() < 1e-6);
        }
        assert_eq!(ColorMap::Diverging.sample(0.5), [221.0 / 255.0; 3]);
    }
}
