//! The work-efficient scan as passes over a pyramid of 2D streams. Level 0 is the input;
//! each level above halves the one below (rounding up) by adding neighbour pairs, first along
//! the columns until one column is left, then along the rows, down to one element: the
//! up-sweep of 004 §3.3.3, each tree level in its own stream instead of in place. Pairing
//! along columns before rows keeps the pairs those of the row-major linear order, so the tree
//! is the binary tree over the linear index whenever the column count is a power of two.
//!
//! The down-sweep then walks back: the top's exclusive prefix is 0, and element `i` of a
//! level gets its parent's prefix, plus its left sibling's sum when it is a right child —
//! the CUDA version's "swap and add", written as a gather. Up and down together touch each
//! element about three times: O(n) work in 2·log n passes.

use crate::error::AppError;

/// One level above the input: `rows × cols`, made by pairing the level below along `axis`
/// (`[1, 0]` the columns, `[0, 1]` the rows; `.x` the column as in Brook's indices), whose
/// extent along that axis is `below`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Level {
    pub rows: usize,
    pub cols: usize,
    pub axis: [i32; 2],
    pub below: usize,
}

/// The levels above a `rows × cols` input, lowest first.
pub(super) fn levels(rows: usize, cols: usize) -> Vec<Level> {
    let mut levels = Vec::new();
    let (mut r, mut c) = (rows, cols);
    while c > 1 {
        levels.push(Level {
            rows: r,
            cols: c.div_ceil(2),
            axis: [1, 0],
            below: c,
        });
        c = c.div_ceil(2);
    }
    while r > 1 {
        levels.push(Level {
            rows: r.div_ceil(2),
            cols: 1,
            axis: [0, 1],
            below: r,
        });
        r = r.div_ceil(2);
    }
    levels
}

/// Where every level's sums and exclusive prefixes live (streams or textures, `T`).
pub(super) struct Pyramid<T> {
    levels: Vec<Level>,
    /// Level 0's sums: the input.
    pub values: T,
    /// The top level's prefix: one zero, set once.
    pub top: T,
    /// `sums[k]`: the sums of level `k + 1`.
    sums: Vec<T>,
    /// `prefix[k]`: the exclusive prefix of level `k`; `prefix[0]` is the result.
    prefix: Vec<T>,
}

impl<T> Pyramid<T> {
    /// The storage for a `rows × cols` input, each level made by `make(rows, cols)`.
    pub fn new(
        rows: usize,
        cols: usize,
        mut make: impl FnMut(usize, usize) -> Result<T, AppError>,
    ) -> Result<Pyramid<T>, AppError> {
        let levels = levels(rows, cols);
        let mut below = (rows, cols);
        let (mut sums, mut prefix) = (Vec::new(), Vec::new());
        for level in &levels {
            sums.push(make(level.rows, level.cols)?);
            prefix.push(make(below.0, below.1)?);
            below = (level.rows, level.cols);
        }
        Ok(Pyramid {
            levels,
            values: make(rows, cols)?,
            top: make(1, 1)?,
            sums,
            prefix,
        })
    }

    /// The sums of level `k` (0: the input).
    fn sums_of(&self, k: usize) -> &T {
        if k == 0 {
            &self.values
        } else {
            &self.sums[k - 1]
        }
    }

    /// The exclusive prefix of level `k` (the top: one zero).
    fn prefix_of(&self, k: usize) -> &T {
        self.prefix.get(k).unwrap_or(&self.top)
    }

    /// The exclusive scan of the input (after [`Pyramid::sweep`]).
    pub fn result(&self) -> &T {
        self.prefix_of(0)
    }

    /// Runs the scan: `up(level, below, sums)` for every level from the bottom, then
    /// `down(level, above, own_sums, prefix)` from the top, where `level` is the one paired
    /// to make `above` and `prefix` is written.
    pub fn sweep(
        &self,
        mut up: impl FnMut(&Level, &T, &T) -> Result<(), AppError>,
        mut down: impl FnMut(&Level, &T, &T, &T) -> Result<(), AppError>,
    ) -> Result<(), AppError> {
        for (k, level) in self.levels.iter().enumerate() {
            up(level, self.sums_of(k), &self.sums[k])?;
        }
        for (k, level) in self.levels.iter().enumerate().rev() {
            down(
                level,
                self.prefix_of(k + 1),
                self.sums_of(k),
                &self.prefix[k],
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_halve_columns_then_rows_to_one() {
        let l = levels(3, 5);
        let shapes: Vec<_> = l.iter().map(|l| (l.rows, l.cols, l.below)).collect();
        assert_eq!(
            shapes,
            [(3, 3, 5), (3, 2, 3), (3, 1, 2), (2, 1, 3), (1, 1, 2)]
        );
        assert!(levels(1, 1).is_empty());
    }
}
