//! The difference view of a side-by-side run: which elements of the shown member differ
//! between backends by more than the numeric contract lets them.
//!
//! Each backend meets the contract of docs/limits.md ("Numbers") per operation: `+ - * /` and
//! `sqrt` correctly rounded everywhere, built-ins within a few ulp, denormals flushed on GL
//! only. A simulation run for many steps adds up such differences, and a chaotic one (a
//! Mandelbrot orbit near the set's edge) amplifies them, so the view compares whole elements
//! after the step with a [`Tolerance`] of its own, and shows where it is exceeded.

use brook::ElementFormat;

use crate::error::VizError;

/// How far two backends' values may be apart and still agree: `|a - b| <= absolute +
/// relative · max(|a|, |b|)`. NaN agrees only with NaN, an infinity only with itself.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Relative to the larger magnitude.
    pub relative: f32,
    /// For values near zero (denormals, which GL flushes, and cancellations).
    pub absolute: f32,
}

/// The difference view's tolerance: 64 ulp of the larger value (`64 · 2⁻²³`), plus `1e-6`
/// near zero. A few ulp per operation (the contract) over the dozens of operations of one
/// step stays inside it; an element outside it differs in a way a picture can show.
pub const TOLERANCE: Tolerance = Tolerance {
    relative: 64.0 * f32::EPSILON / 2.0,
    absolute: 1e-6,
};

impl Tolerance {
    /// Whether `a` and `b` agree.
    pub fn agree(&self, a: f32, b: f32) -> bool {
        if a.is_nan() || b.is_nan() {
            return a.is_nan() && b.is_nan();
        }
        if a.is_infinite() || b.is_infinite() {
            return a == b;
        }
        (a - b).abs() <= self.absolute + self.relative * a.abs().max(b.abs())
    }
}

/// Per element, `1.0` where member `member` of any of `others` differs from `reference`
/// beyond `tolerance` in any component, else `0.0`; and how many elements differ. Each slice
/// holds a stream's elements as `streamWrite` gives them (`format`'s floats per element).
pub fn differences(
    format: &ElementFormat,
    member: usize,
    reference: &[f32],
    others: &[Vec<f32>],
    tolerance: Tolerance,
) -> Result<(Vec<f32>, usize), VizError> {
    let components = format
        .members()
        .get(member)
        .ok_or_else(|| {
            VizError::Usage(format!(
                "the difference view compares member {member} of elements with {} member(s)",
                format.members().len()
            ))
        })?
        .components as usize;
    let stride = format.floats_per_element();
    let offset = format.member_offset(member);
    let count = reference.len() / stride;
    let mut marks = vec![0.0; count];
    let mut differing = 0;
    for (element, mark) in marks.iter_mut().enumerate() {
        let at = element * stride + offset;
        let agree = others
            .iter()
            .all(|other| (at..at + components).all(|i| tolerance.agree(reference[i], other[i])));
        if !agree {
            *mark = 1.0;
            differing += 1;
        }
    }
    Ok((marks, differing))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agreement_follows_the_tolerance_and_ieee_special_values() {
        let t = TOLERANCE;
        assert!(t.agree(1.0, 1.0 + 32.0 * f32::EPSILON));
        assert!(!t.agree(1.0, 1.0 + 128.0 * f32::EPSILON));
        assert!(t.agree(0.0, 5e-7) && t.agree(1e-39, 0.0));
        assert!(!t.agree(0.0, 1e-5));
        assert!(t.agree(f32::NAN, f32::NAN) && !t.agree(f32::NAN, 0.0));
        assert!(t.agree(f32::INFINITY, f32::INFINITY));
        assert!(!t.agree(f32::INFINITY, f32::NEG_INFINITY) && !t.agree(f32::INFINITY, 3e38));
    }

    #[test]
    fn marks_the_elements_whose_shown_member_differs() {
        // Two members: a float2 and a float. Element 1 differs in member 0's .y, element 2
        // only in member 1.
        let member = |name: &str, components| brook::MemberFormat {
            name: name.into(),
            components,
        };
        let format = ElementFormat::structure(vec![member("p", 2), member("m", 1)]).unwrap();
        let reference = [0.0, 1.0, 5.0, 2.0, 3.0, 6.0, 4.0, 5.0, 7.0];
        let other = vec![0.0, 1.0, 5.0, 2.0, 3.5, 6.0, 4.0, 5.0, 9.0];
        let (marks, n) = differences(
            &format,
            0,
            &reference,
            std::slice::from_ref(&other),
            TOLERANCE,
        )
        .unwrap();
        assert_eq!((marks, n), (vec![0.0, 1.0, 0.0], 1));
        let (marks, n) = differences(&format, 1, &reference, &[other], TOLERANCE).unwrap();
        assert_eq!((marks, n), (vec![0.0, 0.0, 1.0], 1));
        assert!(differences(&format, 2, &reference, &[], TOLERANCE).is_err());
    }
}
