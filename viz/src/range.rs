//! Turning a view's [`Range`]s into numbers before a draw.
//!
//! `Range::Auto` is computed on the host from the stream's contents, read back with
//! `streamWrite`: the only readback viz does, and only for auto ranges. It costs one transfer
//! of the stream per draw (about 1 ms per MiB on llvmpipe); views drawn every frame of a large
//! stream should use `Range::Fixed`. A GPU min/max reduction will replace the readback once
//! reductions are available in the runtime.

use brook::Stream;

use crate::error::VizError;
use crate::view::{Range, View, ViewKind};

/// The ranges a draw uses: `value` for colour maps, plots and vector magnitudes; `x` and
/// `value` as the two axes of points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resolved {
    /// Low and high of the values drawn (the y axis of points and plots).
    pub value: (f32, f32),
    /// Low and high of the x axis of points.
    pub x: (f32, f32),
}

/// The ranges of `view` over `stream`, reading the stream back only for auto ranges.
pub fn resolve(stream: &Stream, view: &View) -> Result<Resolved, VizError> {
    view.check(stream.format())?;
    let unit = (0.0, 1.0);
    let resolved = match view.kind {
        ViewKind::Scalar { map, range } => {
            let (lo, hi) = pick(range, || {
                let (lo, hi) = extent(&component(stream, view.member, view.component)?);
                Ok(if map.is_diverging() {
                    let m = lo.abs().max(hi.abs());
                    (-m, m)
                } else {
                    (lo, hi)
                })
            })?;
            Resolved {
                value: widen_if_flat(lo, hi),
                x: unit,
            }
        }
        ViewKind::Plot { range } => Resolved {
            value: pick(range, || {
                let (lo, hi) = extent(&component(stream, view.member, view.component)?);
                Ok(widen_if_flat(lo, hi))
            })?,
            x: unit,
        },
        ViewKind::Vector { range } => {
            let value = pick(range, || {
                let (xs, ys) = (
                    component(stream, view.member, 0)?,
                    component(stream, view.member, 1)?,
                );
                let max = xs
                    .iter()
                    .zip(&ys)
                    .map(|(x, y)| x.hypot(*y))
                    .filter(|m| m.is_finite())
                    .fold(0.0f32, f32::max);
                Ok((0.0, if max > 0.0 { max } else { 1.0 }))
            })?;
            Resolved { value, x: unit }
        }
        ViewKind::Points { x, y } => {
            let axis = |range, c| {
                pick(range, || {
                    let (lo, hi) = extent(&component(stream, view.member, c)?);
                    let (lo, hi) = widen_if_flat(lo, hi);
                    let margin = (hi - lo) * 0.05;
                    Ok((lo - margin, hi + margin))
                })
            };
            Resolved {
                x: axis(x, 0)?,
                value: axis(y, 1)?,
            }
        }
        ViewKind::Rgb | ViewKind::Rgba => Resolved {
            value: unit,
            x: unit,
        },
    };
    Ok(resolved)
}

/// A fixed range after checking it, or the auto one.
fn pick(
    range: Range,
    auto: impl FnOnce() -> Result<(f32, f32), VizError>,
) -> Result<(f32, f32), VizError> {
    match range {
        Range::Auto => auto(),
        Range::Fixed(lo, hi) if lo.is_finite() && hi.is_finite() && hi > lo => Ok((lo, hi)),
        Range::Fixed(lo, hi) => Err(VizError::Usage(format!(
            "a fixed view range needs finite lo < hi, not {lo}..{hi}"
        ))),
    }
}

/// Component `c` of member `member` of every element, read back from the stream.
fn component(stream: &Stream, member: usize, c: u8) -> Result<Vec<f32>, VizError> {
    let format = stream.format();
    let offset = format.member_offset(member) + usize::from(c);
    let stride = format.floats_per_element();
    Ok(stream
        .to_vec()?
        .chunks_exact(stride)
        .map(|element| element[offset])
        .collect())
}

/// The smallest and largest finite value; `(0, 1)` when there is none.
pub fn extent(values: &[f32]) -> (f32, f32) {
    let finite = values.iter().copied().filter(|v| v.is_finite());
    let (lo, hi) = finite.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if lo > hi {
        (0.0, 1.0)
    } else {
        (lo, hi)
    }
}

/// A range of one value becomes one unit wide around it, so it maps to the middle.
fn widen_if_flat(lo: f32, hi: f32) -> (f32, f32) {
    if hi > lo {
        (lo, hi)
    } else {
        (lo - 0.5, hi + 0.5)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extent_skips_non_finite_values() {
        assert_eq!(
            extent(&[3.0, f32::NAN, -2.0, f32::INFINITY, 1.0]),
            (-2.0, 3.0)
        );
        assert_eq!(extent(&[f32::NAN]), (0.0, 1.0));
        assert_eq!(extent(&[]), (0.0, 1.0));
    }

    #[test]
    fn flat_ranges_are_widened_and_bad_fixed_ranges_refused() {
        assert_eq!(widen_if_flat(2.0, 2.0), (1.5, 2.5));
        assert!(pick(Range::Fixed(1.0, 1.0), || unreachable!()).is_err());
        assert!(pick(Range::Fixed(0.0, f32::NAN), || unreachable!()).is_err());
        assert_eq!(
            pick(Range::Fixed(-1.0, 2.0), || unreachable!()).unwrap(),
            (-1.0, 2.0)
        );
    }
}
