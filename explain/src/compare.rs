//! Backends side by side: which elements of an operation's results differ between two
//! backends beyond the tolerance, as a count and a picture.
//!
//! The tolerance is relative 1e-5 (about 84 ulp of an `f32`) of the larger magnitude, with
//! an absolute floor of 1e-6 for values near zero. Why so loose against the numeric
//! contract's per-function bounds (0.5 to 4 ulp, docs/limits.md): a stream
//! after an operation is the composition of many such functions, a reduction combines its
//! elements in a different order on each backend (a tree of passes on GL, index order on the
//! CPU), and a result near zero (`sin(π)`) is many ulp of itself while tiny in absolute
//! terms. A real disagreement (a wrong element, a lost write, a masked element written)
//! is far beyond it. NaN agrees with NaN, and infinities with the same infinity.

use crate::outcome::Sampled;
use crate::picture::{Picture, AGREES, DIFFERS};

/// Relative tolerance: of the larger magnitude of the two values.
pub const RELATIVE_TOLERANCE: f32 = 1e-5;
/// Absolute tolerance: values this close always agree.
pub const ABSOLUTE_TOLERANCE: f32 = 1e-6;

/// Whether two floats agree within the tolerance.
pub fn agree(a: f32, b: f32) -> bool {
    if a == b || (a.is_nan() && b.is_nan()) {
        return true;
    }
    if !a.is_finite() || !b.is_finite() {
        return false;
    }
    let scale = a.abs().max(b.abs());
    (a - b).abs() <= ABSOLUTE_TOLERANCE.max(RELATIVE_TOLERANCE * scale)
}

/// Where one backend's results differ from the reference's.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// Elements (of those shown) with a component beyond the tolerance.
    pub differ: usize,
    /// Elements compared: those shown (every `step`-th each way of a large stream).
    pub compared: usize,
    /// Red where an element differs, grey where it agrees.
    pub mask: Picture,
}

/// `other` against `reference`, element by element over the elements both show.
pub fn difference(reference: &Sampled, other: &Sampled) -> Result<Difference, String> {
    let extents = |s: &Sampled| (s.width, s.height, s.components, s.step);
    if extents(reference) != extents(other) || reference.values.len() != other.values.len() {
        return Err(format!(
            "the streams differ in shape: {}×{} of {} floats against {}×{} of {}",
            reference.width,
            reference.height,
            reference.components,
            other.width,
            other.height,
            other.components
        ));
    }
    let per = usize::from(reference.components);
    let flags: Vec<bool> = reference
        .values
        .chunks(per)
        .zip(other.values.chunks(per))
        .map(|(a, b)| a.iter().zip(b).any(|(a, b)| !agree(*a, *b)))
        .collect();
    let mask = Picture::of_flags(
        reference.width,
        reference.height,
        reference.step,
        &flags,
        (DIFFERS, AGREES),
    )?;
    Ok(Difference {
        differ: flags.iter().filter(|f| **f).count(),
        compared: flags.len(),
        mask,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tolerance_is_relative_with_an_absolute_floor() {
        assert!(agree(1000.0, 1000.0 * (1.0 + 0.9e-5)));
        assert!(!agree(1000.0, 1000.0 * (1.0 + 2e-5)));
        assert!(agree(1e-9, -5e-7), "near zero the absolute floor holds");
        assert!(!agree(0.0, 1e-5));
        assert!(agree(f32::NAN, f32::NAN) && agree(f32::INFINITY, f32::INFINITY));
        assert!(!agree(f32::NAN, 1.0) && !agree(f32::INFINITY, f32::NEG_INFINITY));
    }

    #[test]
    fn differing_elements_are_counted_and_drawn_red() {
        let sampled = |values: Vec<f32>| Sampled {
            width: 3,
            height: 1,
            components: 2,
            step: 1,
            values,
        };
        let a = sampled(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let b = sampled(vec![1.0, 2.0, 3.0, 4.5, 5.0, 6.0 + 1e-6]);
        let d = difference(&a, &b).unwrap();
        assert_eq!((d.differ, d.compared), (1, 3));
        assert_eq!(d.mask.values, [0.0, 1.0, 0.0]);
        let png = image::load_from_memory(&d.mask.png).unwrap().to_rgb8();
        assert_eq!(png.get_pixel(1, 0).0, crate::picture::DIFFERS);
        assert_eq!(png.get_pixel(0, 0).0, crate::picture::AGREES);
        let short = sampled(vec![1.0; 4]);
        assert!(difference(&a, &short).is_err());
    }
}
