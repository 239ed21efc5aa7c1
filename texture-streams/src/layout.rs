//! Where each element of a stream lives in its texture: the one place that
//! decides it. The GLSL generator, the pass executor and viz all read a
//! [`Layout`] instead of redoing the arithmetic.
//!
//! # The rule
//!
//! Streams are row-major like C arrays, last dimension fastest. For a shape
//! `<e_0, …, e_{r-1}>` the strides are `s_{r-1} = 1`, `s_k = s_{k+1}·e_{k+1}`,
//! and element `(i_0, …, i_{r-1})` has the linear index
//!
//! ```text
//! L = Σ_k i_k · s_k
//! ```
//!
//! The texel of element `L` in a texture `W` wide is **always**
//!
//! ```text
//! (x, y) = (L mod W, L div W)
//! ```
//!
//! and `W × H` is chosen as follows (`max` = `MAX_TEXTURE_SIZE`, `n` = element count):
//!
//! * **direct** — rank ≤ 2 and every extent ≤ `max`: `W` = the last extent (columns),
//!   `H` = the rows (1 for a 1D stream). Then texel `(x, y)` is simply
//!   `(column, row)`, so a 2D stream looks in the texture like the array printed
//!   row by row, and kernels need no address translation.
//! * **translated** — rank 3 or 4, or an extent over `max`: `W` = the smallest
//!   power of two with `W² ≥ n`, `H = ⌈n / W⌉`, so the texture is about square
//!   (`H ≤ W < 2√n + 1`). A power-of-two width lets the generated code find a
//!   texel with a mask and a shift by a constant instead of an integer division
//!   (which llvmpipe does one lane at a time), and a square texture fills
//!   whole 64×64 tiles of a rasteriser, where a 16384-texel-wide strip of a few
//!   rows wastes most of each. When that `W` exceeds `max` (a `max` that is not
//!   a power of two), `H = ⌈n / max⌉` and `W = ⌈n / H⌉`. Either way `W, H ≤
//!   max`, `H ≤ W`, and the padding (`W·H − n < W` texels) all sits at the end
//!   of the last row, which always holds at least one element. Padding texels
//!   are never read.
//!
//! A stream needs `n ≤ max²` elements, else [`StoreError::TooLarge`].
//!
//! # Exactness
//!
//! The generated GLSL does this arithmetic in 32-bit `int`s. `max` is capped at
//! [`MAX_ADDRESSABLE_TEXTURE_SIZE`] = 2¹⁵ here, so `W·H ≤ 2³⁰` and every linear
//! index and texel coordinate of a stream that fits is an exact `int`. (The
//! original Brook translated addresses in `float`, which stopped being exact
//! past 2²⁴ elements.)

use brook_core::shape::element_count;

use crate::error::StoreError;

/// The largest texture side the layout uses, whatever the device allows:
/// `32768² = 2³⁰` keeps every address below `i32::MAX` in shader arithmetic.
pub const MAX_ADDRESSABLE_TEXTURE_SIZE: u32 = 1 << 15;

/// The placement of a stream's elements in a `width × height` texture.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Layout {
    shape: Vec<usize>,
    width: u32,
    height: u32,
}

// A layout always holds at least one element, so `is_empty` would be a constant.
#[allow(clippy::len_without_is_empty)]
impl Layout {
    /// Computes the layout of a stream of `shape` (row-major, 1 to 4
    /// dimensions) on a device whose textures are at most `max_texture_size` wide.
    pub fn new(shape: &[usize], max_texture_size: u32) -> Result<Layout, StoreError> {
        let elements = element_count(shape)?;
        let max = max_texture_size.min(MAX_ADDRESSABLE_TEXTURE_SIZE);
        let max_elements = u64::from(max) * u64::from(max);
        if elements as u64 > max_elements {
            return Err(StoreError::TooLarge {
                elements,
                max_elements,
                max_texture_size: max,
            });
        }
        let max = max as usize;
        let (width, height) = if shape.len() <= 2 && shape.iter().all(|&e| e <= max) {
            let rows = if shape.len() == 2 { shape[0] } else { 1 };
            (shape[shape.len() - 1], rows)
        } else {
            translated_size(elements, max)
        };
        // Both sides are at most `max` ≤ 2^15, so they fit in u32.
        Ok(Layout {
            shape: shape.to_vec(),
            width: width as u32,
            height: height as u32,
        })
    }

    /// The extents, outermost first.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of dimensions (1 to 4).
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// The texture width in texels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// The texture height in texels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// `false` when texel `(x, y)` is `(column, row)` of a 1D or 2D stream, so
    /// kernels can address it without translating linear indices.
    pub fn is_translated(&self) -> bool {
        let rows = if self.rank() == 2 { self.shape[0] } else { 1 };
        let columns = self.shape[self.rank() - 1];
        self.rank() > 2 || self.width as usize != columns || self.height as usize != rows
    }

    /// The row-major strides: the last dimension has stride 1.
    pub fn strides(&self) -> Vec<usize> {
        brook_core::shape::strides(&self.shape)
    }

    /// The linear index `Σ i_k·s_k` of `index` (outermost first). `index` must
    /// have [`rank`](Self::rank) coordinates inside the shape; this hot helper
    /// does not check, and a bad index gives a meaningless (never panicking) answer.
    pub fn linear_index(&self, index: &[usize]) -> usize {
        index.iter().zip(self.strides()).map(|(i, s)| i * s).sum()
    }

    /// The index (outermost first) of the element with linear index `linear`.
    pub fn index_of_linear(&self, linear: usize) -> Vec<usize> {
        let mut rest = linear;
        let mut index = vec![0; self.rank()];
        for k in (0..self.rank()).rev() {
            index[k] = rest % self.shape[k];
            rest /= self.shape[k];
        }
        index
    }

    /// The texel `(L mod W, L div W)` holding linear element `linear`.
    pub fn texel_of_linear(&self, linear: usize) -> (u32, u32) {
        let width = self.width as usize;
        ((linear % width) as u32, (linear / width) as u32)
    }

    /// The texel holding the element at `index` (outermost first).
    pub fn texel_of(&self, index: &[usize]) -> (u32, u32) {
        self.texel_of_linear(self.linear_index(index))
    }
}

/// `(W, H)` of a translated layout of `elements` (at most `max²`): see the rule above.
fn translated_size(elements: usize, max: usize) -> (usize, usize) {
    // The smallest power of two whose square holds every element.
    let mut width = 1usize;
    while width * width < elements {
        width *= 2;
    }
    if width <= max {
        return (width, elements.div_ceil(width));
    }
    let height = elements.div_ceil(max);
    (elements.div_ceil(height), height)
}

#[cfg(test)]
mod tests {
    use super::*;
    use brook_core::StreamError;

    #[test]
    fn direct_2d_is_columns_by_rows() {
        let layout = Layout::new(&[3, 5], 16).unwrap();
        assert_eq!((layout.width(), layout.height()), (5, 3));
        assert!(!layout.is_translated());
        assert_eq!(layout.texel_of(&[2, 4]), (4, 2));
        assert_eq!(layout.strides(), vec![5, 1]);
    }

    #[test]
    fn direct_1d_is_one_row() {
        let layout = Layout::new(&[16], 16).unwrap();
        assert_eq!((layout.width(), layout.height()), (16, 1));
        assert!(!layout.is_translated());
    }

    #[test]
    fn translated_1d_pads_less_than_a_row() {
        let layout = Layout::new(&[17], 16).unwrap();
        assert_eq!((layout.width(), layout.height()), (8, 3));
        assert!(layout.is_translated());
        assert_eq!(layout.texel_of(&[16]), (0, 2));
    }

    #[test]
    fn rank_3_is_always_translated() {
        let layout = Layout::new(&[1, 1, 5], 16).unwrap();
        assert!(layout.is_translated());
        assert_eq!((layout.width(), layout.height()), (4, 2));
    }

    #[test]
    fn wide_2d_is_translated() {
        let layout = Layout::new(&[2, 20], 16).unwrap();
        assert!(layout.is_translated());
        assert_eq!((layout.width(), layout.height()), (8, 5));
    }

    #[test]
    fn translated_widths_are_square_powers_of_two_where_they_fit() {
        // 2^16 floats: 256 x 256, not a 16384-wide strip of 4 rows.
        let layout = Layout::new(&[1 << 16], 16384).unwrap();
        assert_eq!((layout.width(), layout.height()), (256, 256));
        let layout = Layout::new(&[3, 5, 7], 16384).unwrap();
        assert_eq!((layout.width(), layout.height()), (16, 7));
        // Past a limit that is not a power of two: as wide as the limit allows.
        let layout = Layout::new(&[49], 7).unwrap();
        assert_eq!((layout.width(), layout.height()), (7, 7));
        let layout = Layout::new(&[40], 7).unwrap();
        assert_eq!((layout.width(), layout.height()), (7, 6));
    }

    #[test]
    fn bad_shapes_are_errors() {
        assert!(matches!(
            Layout::new(&[], 16),
            Err(StoreError::Invalid(StreamError::Shape(_)))
        ));
        assert!(matches!(
            Layout::new(&[1, 2, 3, 4, 5], 16),
            Err(StoreError::Invalid(StreamError::Shape(_)))
        ));
        assert!(matches!(
            Layout::new(&[4, 0], 16),
            Err(StoreError::Invalid(StreamError::Shape(_)))
        ));
        assert!(matches!(
            Layout::new(&[usize::MAX, 2], 16),
            Err(StoreError::Invalid(StreamError::Shape(_)))
        ));
        assert!(matches!(
            Layout::new(&[1], 0),
            Err(StoreError::TooLarge { .. })
        ));
    }

    #[test]
    fn too_large_names_the_limit() {
        let err = Layout::new(&[257], 16).unwrap_err();
        assert_eq!(
            err,
            StoreError::TooLarge {
                elements: 257,
                max_elements: 256,
                max_texture_size: 16
            }
        );
        assert!(Layout::new(&[256], 16).is_ok());
    }

    #[test]
    fn device_limit_is_capped_for_int_arithmetic() {
        let err = Layout::new(&[1 << 31], 1 << 16).unwrap_err();
        assert!(matches!(
            err,
            StoreError::TooLarge {
                max_texture_size: MAX_ADDRESSABLE_TEXTURE_SIZE,
                ..
            }
        ));
    }
}
