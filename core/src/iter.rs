//! Iterator streams: `iter float s<N> = iter(a, b)`.
//!
//! Element `i` of a 1D iterator is `a + i·(b − a)/N` — end exclusive, so
//! `iter(0, 10)` over 10 gives 0..9 and `iter(9, -1)` gives 9..0. `float2..float4`
//! iterators interpolate each component the same way. A 2D iterator is a
//! `float2` whose `.x` runs from `a.x` to `b.x` along the columns and `.y` from
//! `a.y` to `b.y` along the rows; likewise a 3D `float3` and a 4D `float4` iterator,
//! whose `.z` and `.w` run along the third- and fourth-last dimensions (as the
//! original's address-translation test `at_iterator` checks them).
//!
//! The step `(b − a)/N` is computed once, in `f32`, and every value is
//! `start + float(i)·step`. Generated GLSL receives [`IterSpec::step`] as a
//! uniform and does the same two `f32` operations, so host values, materialised
//! streams and values computed in a kernel agree.

use crate::domain::Domain;
use crate::error::StreamError;

/// The shape and end points of an iterator stream.
#[derive(Debug, Clone, PartialEq)]
pub struct IterSpec {
    shape: Vec<usize>,
    components: u8,
    start: [f32; 4],
    end: [f32; 4],
}

impl IterSpec {
    /// An iterator of `shape` from `start` to `end` (exclusive): 1D with 1 to 4
    /// components, or N-D (N = 2..4) with N, one per dimension. Components past
    /// `components` are ignored.
    pub fn new(
        shape: &[usize],
        components: u8,
        start: [f32; 4],
        end: [f32; 4],
    ) -> Result<IterSpec, StreamError> {
        match shape.len() {
            1 if (1..=4).contains(&components) => {}
            1 => {
                return Err(StreamError::Format(format!(
                    "an iterator has float..float4 elements, not {components} components"
                )))
            }
            rank @ 2..=4 if usize::from(components) == rank => {}
            rank @ 2..=4 => {
                return Err(StreamError::Format(format!(
                    "a {rank}D iterator has float{rank} elements (.x along columns, .y along \
                     rows, .z and .w along the dimensions before), not {components} components"
                )))
            }
            rank => {
                return Err(StreamError::Shape(format!(
                    "iterators have 1 to 4 dimensions (this one has {rank})"
                )))
            }
        }
        if shape.contains(&0) {
            return Err(StreamError::Shape(format!(
                "iterator shape {shape:?} has an empty dimension"
            )));
        }
        let keep = |v: [f32; 4]| {
            let mut kept = [0.0; 4];
            kept[..usize::from(components)].copy_from_slice(&v[..usize::from(components)]);
            kept
        };
        Ok(IterSpec {
            shape: shape.to_vec(),
            components,
            start: keep(start),
            end: keep(end),
        })
    }

    /// The extents, outermost first.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Floats per element.
    pub fn components(&self) -> u8 {
        self.components
    }

    /// The value of the first element (unused components 0).
    pub fn start(&self) -> [f32; 4] {
        self.start
    }

    /// The exclusive end value (unused components 0).
    pub fn end(&self) -> [f32; 4] {
        self.end
    }

    /// The `f32` increment per element of each component: `(end − start) / N`
    /// where `N` is the extent that component runs along (columns for `.x` of a
    /// 2D iterator, rows for `.y`). Unused components are 0.
    pub fn step(&self) -> [f32; 4] {
        let mut step = [0.0; 4];
        for (c, s) in step
            .iter_mut()
            .enumerate()
            .take(usize::from(self.components))
        {
            *s = (self.end[c] - self.start[c]) / self.extent_along(c) as f32;
        }
        step
    }

    /// The value at `index` (outermost first; a missing coordinate counts as 0):
    /// `start + float(i)·step` per component, `i` being the column for `.x` of a
    /// 2D iterator and the row for `.y`.
    pub fn value_at(&self, index: &[usize]) -> [f32; 4] {
        self.value_stepped(index, &self.step())
    }

    /// [`IterSpec::value_at`] with the step computed once by the caller ([`IterSpec::step`]),
    /// for a backend computing every element's value.
    pub fn value_stepped(&self, index: &[usize], step: &[f32; 4]) -> [f32; 4] {
        let mut value = [0.0; 4];
        for (c, v) in value
            .iter_mut()
            .enumerate()
            .take(usize::from(self.components))
        {
            let i = self.coordinate_along(c, index);
            *v = self.start[c] + i as f32 * step[c];
        }
        value
    }

    /// Every element's value, row-major, `components` floats each.
    pub fn values(&self) -> Vec<f32> {
        let elements: usize = self.shape.iter().product();
        let components = usize::from(self.components);
        let mut values = Vec::with_capacity(elements * components);
        let mut index = vec![0; self.shape.len()];
        for linear in 0..elements {
            let mut rest = linear;
            for (i, &extent) in index.iter_mut().zip(&self.shape).rev() {
                *i = rest % extent;
                rest /= extent;
            }
            values.extend_from_slice(&self.value_at(&index)[..components]);
        }
        values
    }

    /// The dimension component `c` varies along: the columns (last dimension) for every
    /// component of a 1D iterator; in N-D, `.x` the last, `.y` the one before, and so on.
    fn dimension_of(&self, c: usize) -> usize {
        if self.shape.len() == 1 {
            0
        } else {
            self.shape.len() - 1 - c
        }
    }

    fn extent_along(&self, c: usize) -> usize {
        self.shape[self.dimension_of(c)]
    }

    fn coordinate_along(&self, c: usize, index: &[usize]) -> usize {
        index.get(self.dimension_of(c)).copied().unwrap_or(0)
    }
}

impl IterSpec {
    /// `streamWrite` of an iterator, or of a domain of it: its values in C layout into
    /// `out`, which must hold exactly as many floats. Every backend answers with these values,
    /// the ones its kernels compute.
    pub fn write(&self, domain: Option<&Domain>, out: &mut [f32]) -> Result<(), StreamError> {
        let n = usize::from(self.components);
        let values = self.values();
        let picked: Vec<f32> = match domain {
            None => values,
            Some(d) => {
                d.fits(&self.shape)?;
                d.linear_positions(&self.shape)
                    .flat_map(|linear| values[linear * n..(linear + 1) * n].to_vec())
                    .collect()
            }
        };
        if out.len() != picked.len() {
            return Err(StreamError::Size {
                expected: picked.len(),
                got: out.len(),
            });
        }
        out.copy_from_slice(&picked);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(shape: &[usize], components: u8, start: [f32; 4], end: [f32; 4]) -> IterSpec {
        IterSpec::new(shape, components, start, end).unwrap()
    }

    #[test]
    fn up_and_down_by_one() {
        let up = spec(&[10], 1, [0.0; 4], [10.0, 0.0, 0.0, 0.0]);
        assert_eq!(up.values(), (0..10).map(|i| i as f32).collect::<Vec<_>>());
        let down = spec(&[10], 1, [9.0, 0.0, 0.0, 0.0], [-1.0, 0.0, 0.0, 0.0]);
        assert_eq!(
            down.values(),
            (0..10).rev().map(|i| i as f32).collect::<Vec<_>>()
        );
        assert_eq!(down.step(), [-1.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn two_d_runs_x_along_columns_and_y_along_rows() {
        let it = spec(&[2, 4], 2, [0.0, 10.0, 0.0, 0.0], [4.0, 20.0, 0.0, 0.0]);
        assert_eq!(it.step(), [1.0, 5.0, 0.0, 0.0]);
        assert_eq!(it.value_at(&[1, 3]), [3.0, 15.0, 0.0, 0.0]);
        assert_eq!(
            it.values(),
            vec![
                0.0, 10.0, 1.0, 10.0, 2.0, 10.0, 3.0, 10.0, 0.0, 15.0, 1.0, 15.0, 2.0, 15.0, 3.0,
                15.0
            ]
        );
    }

    #[test]
    fn four_d_runs_each_component_along_its_own_dimension() {
        // at_iterator's 4D case: shape <w, z, y, x> = <5, 8, 6, 3>.
        let it = spec(
            &[5, 8, 6, 3],
            4,
            [0.0, 1.0, 0.0, 10.0],
            [3.0, 7.0, 24.0, 0.0],
        );
        assert_eq!(it.step(), [1.0, 1.0, 3.0, -2.0]);
        assert_eq!(it.value_at(&[4, 7, 5, 2]), [2.0, 6.0, 21.0, 2.0]);
        let values = it.values();
        assert_eq!(values.len(), 5 * 8 * 6 * 3 * 4);
        // Element [1][2][3][1], linear ((1·8 + 2)·6 + 3)·3 + 1.
        let at = (((8 + 2) * 6 + 3) * 3 + 1) * 4;
        assert_eq!(&values[at..at + 4], &[1.0, 4.0, 6.0, 8.0]);
        let three = spec(&[2, 2, 2], 3, [0.0; 4], [2.0, 4.0, 6.0, 0.0]);
        assert_eq!(three.value_at(&[1, 0, 1]), [1.0, 0.0, 3.0, 0.0]);
    }

    #[test]
    fn bad_iterators_are_errors() {
        let err = IterSpec::new(&[2, 2, 2], 1, [0.0; 4], [1.0; 4]).unwrap_err();
        assert!(err
            .to_string()
            .contains("a 3D iterator has float3 elements"));
        let err = IterSpec::new(&[2, 2, 2, 2, 2], 4, [0.0; 4], [1.0; 4]).unwrap_err();
        assert!(err.to_string().contains("iterators have 1 to 4 dimensions"));
        assert!(IterSpec::new(&[4, 4], 1, [0.0; 4], [1.0; 4]).is_err());
        assert!(IterSpec::new(&[4], 5, [0.0; 4], [1.0; 4]).is_err());
        assert!(IterSpec::new(&[0], 1, [0.0; 4], [1.0; 4]).is_err());
    }
}
