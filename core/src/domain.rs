//! A box-shaped part of a stream, for Brook's `streamRead`/`streamWrite` of a
//! domain (`s.domain(lo, hi)`).
//!
//! Bounds are in stream dimension order (outermost first, like the shape), with
//! `hi` exclusive. Brook source writes vector bounds `.x`-first (column first);
//! the front end reverses them before they get here. A domain's elements are
//! exchanged with the host in row-major order over the box.

use crate::error::StreamError;

/// The elements `lo[k] <= i_k < hi[k]` in every dimension `k`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Domain {
    lo: Vec<usize>,
    hi: Vec<usize>,
}

// A valid domain holds at least one element, so `is_empty` would be a constant.
#[allow(clippy::len_without_is_empty)]
impl Domain {
    /// The box from `lo` (inclusive) to `hi` (exclusive). Checks what can be
    /// checked without a stream: same rank (1 to 4) and `lo < hi` everywhere.
    /// Whether it fits a stream is checked by [`fits`](Self::fits) on use.
    pub fn new(lo: &[usize], hi: &[usize]) -> Result<Domain, StreamError> {
        if lo.len() != hi.len() || lo.is_empty() || lo.len() > 4 {
            return Err(StreamError::Domain(format!(
                "bounds {lo:?} and {hi:?} must both have 1 to 4 coordinates, the same number"
            )));
        }
        if let Some(k) = (0..lo.len()).find(|&k| lo[k] >= hi[k]) {
            return Err(StreamError::Domain(format!(
                "dimension {k} of domain {lo:?}..{hi:?} is empty: lo must be below hi (hi is exclusive)"
            )));
        }
        Ok(Domain {
            lo: lo.to_vec(),
            hi: hi.to_vec(),
        })
    }

    /// The whole of a stream of `shape`.
    pub fn full(shape: &[usize]) -> Domain {
        Domain {
            lo: vec![0; shape.len()],
            hi: shape.to_vec(),
        }
    }

    /// Whether the domain is the whole of a stream of `shape`.
    pub fn is_whole(&self, shape: &[usize]) -> bool {
        self.lo.iter().all(|l| *l == 0) && self.hi == shape
    }

    /// Lower bounds, inclusive, outermost dimension first.
    pub fn lo(&self) -> &[usize] {
        &self.lo
    }

    /// Upper bounds, exclusive, outermost dimension first.
    pub fn hi(&self) -> &[usize] {
        &self.hi
    }

    /// The extents of the box.
    pub fn shape(&self) -> Vec<usize> {
        self.lo.iter().zip(&self.hi).map(|(l, h)| h - l).collect()
    }

    /// The number of elements in the box.
    pub fn len(&self) -> usize {
        self.shape().iter().product()
    }

    /// `Ok` when the domain has the rank of a stream of `shape` and lies inside it.
    pub fn fits(&self, shape: &[usize]) -> Result<(), StreamError> {
        if self.lo.len() != shape.len() {
            return Err(StreamError::Domain(format!(
                "domain {:?}..{:?} has {} dimensions but the stream has {}",
                self.lo,
                self.hi,
                self.lo.len(),
                shape.len()
            )));
        }
        if self.hi.iter().zip(shape).any(|(h, e)| h > e) {
            return Err(StreamError::Domain(format!(
                "domain {:?}..{:?} reaches outside the stream of shape {shape:?}",
                self.lo, self.hi,
            )));
        }
        Ok(())
    }

    /// The row-major linear positions, in a stream of `shape`, of the domain's elements in
    /// the domain's own row-major order (how host arrays of a domain are laid out).
    pub fn linear_positions<'a>(&'a self, shape: &'a [usize]) -> impl Iterator<Item = usize> + 'a {
        let sub = self.shape();
        (0..self.len()).map(move |k| {
            let mut rest = k;
            let mut linear = 0;
            let mut stride = 1;
            for d in (0..shape.len()).rev() {
                linear += (rest % sub[d] + self.lo[d]) * stride;
                rest /= sub[d];
                stride *= shape[d];
            }
            linear
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_and_len() {
        let domain = Domain::new(&[1, 2], &[3, 7]).unwrap();
        assert_eq!(domain.shape(), vec![2, 5]);
        assert_eq!(domain.len(), 10);
    }

    #[test]
    fn bad_bounds_are_errors() {
        assert!(matches!(
            Domain::new(&[0], &[1, 2]),
            Err(StreamError::Domain(_))
        ));
        assert!(matches!(Domain::new(&[], &[]), Err(StreamError::Domain(_))));
        assert!(matches!(
            Domain::new(&[2, 0], &[2, 3]),
            Err(StreamError::Domain(_))
        ));
    }

    #[test]
    fn fits_checks_rank_and_extent() {
        let shape = [4, 6];
        assert!(Domain::new(&[0, 0], &[4, 6]).unwrap().fits(&shape).is_ok());
        assert!(Domain::new(&[0, 0], &[4, 7]).unwrap().fits(&shape).is_err());
        assert!(Domain::new(&[0], &[4]).unwrap().fits(&shape).is_err());
        assert_eq!(Domain::full(&shape).len(), 24);
        assert!(Domain::full(&shape).is_whole(&shape));
    }

    #[test]
    fn linear_positions_walk_the_box_row_by_row() {
        let domain = Domain::new(&[1, 2], &[3, 4]).unwrap();
        let at: Vec<usize> = domain.linear_positions(&[4, 6]).collect();
        assert_eq!(at, [8, 9, 14, 15]);
    }
}
