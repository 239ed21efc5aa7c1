//! The passes of a reduction, planned from the shapes alone (a pure function, tested without GL).
//!
//! Brook reduces each block of `in / out` neighbours per dimension to one element of the
//! target (a single block when reducing to a value). Following 000 §5.4, one dimension is
//! reduced at a time, and a dimension in passes that each fold up to 8 consecutive elements.
//! The last dimension goes first: folding every row before combining rows keeps the combining
//! in row-major index order, which an associative but non-commutative operator needs.
//!
//! Each pass folds `k = min(8, b)` elements of the `b` a block still has along the dimension;
//! when `k` does not divide `b` the last partial of a block folds fewer and the next pass
//! carries it on. Taking the largest `k` every time gives both the fewest passes,
//! `⌈log₈ b⌉`, and the smallest intermediate after every pass, hence the fewest reads.

use std::fmt;

use crate::error::fmt_shape;

/// Reads and writes of a whole reduction, or of one pass, counted in stream elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReducePass {
    /// The reduced dimension, first dimension = 0 (as in the shapes).
    pub dim: usize,
    /// Input elements one output element folds (1 only for a plain copy).
    pub k: usize,
    /// Blocks of the target along `dim` (1 when reducing to a value).
    pub blocks: usize,
    /// Input elements per block along `dim` in this pass.
    pub block: usize,
    /// This pass's input shape (the same rank as the plan's).
    pub from: Vec<usize>,
    /// This pass's output shape: `from` with `dim` folded `k` to 1.
    pub to: Vec<usize>,
}

impl ReducePass {
    /// Partial results each block has after this pass.
    pub fn groups(&self) -> usize {
        self.block.div_ceil(self.k)
    }

    /// Whether an output element finds its block by division (several blocks, several
    /// partials per block); otherwise its first input element is simply `k ×` its own index.
    pub fn blocked(&self) -> bool {
        self.blocks > 1 && self.groups() > 1
    }

    /// Whether some output elements fold fewer than `k` elements.
    pub fn partial(&self) -> bool {
        !self.block.is_multiple_of(self.k)
    }

    /// Elements this pass reads: all of its input.
    pub fn elements_read(&self) -> usize {
        self.from.iter().product()
    }

    /// Elements this pass writes: all of its output.
    pub fn elements_written(&self) -> usize {
        self.to.iter().product()
    }
}

/// Every pass of one reduction, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReducePlan {
    /// The input shape, left-padded with 1s to the rank of the longer of the two shapes.
    pub input: Vec<usize>,
    /// The target shape, padded the same way (all 1s for a single value).
    pub target: Vec<usize>,
    /// The passes, last dimension first; at least one (a copy when nothing folds).
    pub passes: Vec<ReducePass>,
}

impl ReducePlan {
    /// Plans the reduction of a stream of shape `input` to one of shape `target` (all 1s, or
    /// empty, for a single value). Every extent of `target` must divide the input's; a target of
    /// the input's own shape is one copying pass.
    pub fn new(input: &[usize], target: &[usize]) -> Result<ReducePlan, String> {
        let rank = input.len().max(target.len());
        let pad = |s: &[usize]| {
            let mut p = vec![1; rank - s.len()];
            p.extend_from_slice(s);
            p
        };
        let (input, target) = (pad(input), pad(target));
        if let Some(d) = (0..rank).find(|&d| target[d] == 0 || input[d] % target[d] != 0) {
            return Err(format!(
                "the output shape {} must divide the input shape {} in every dimension, but extent {} does not divide {} (dimension {d})",
                fmt_shape(&target),
                fmt_shape(&input),
                target[d],
                input[d]
            ));
        }
        let mut passes = Vec::new();
        let mut shape = input.clone();
        for dim in (0..rank).rev() {
            let blocks = target[dim];
            while shape[dim] > blocks {
                let block = shape[dim] / blocks;
                let k = block.min(8);
                let mut to = shape.clone();
                to[dim] = blocks * block.div_ceil(k);
                passes.push(ReducePass {
                    dim,
                    k,
                    blocks,
                    block,
                    from: std::mem::replace(&mut shape, to.clone()),
                    to,
                });
            }
        }
        if passes.is_empty() {
            // Nothing to fold: the target receives a copy (a value, of the only element).
            let dim = rank - 1;
            passes.push(ReducePass {
                dim,
                k: 1,
                blocks: input[dim],
                block: 1,
                from: input.clone(),
                to: input.clone(),
            });
        }
        Ok(ReducePlan {
            input,
            target,
            passes,
        })
    }

    /// Elements read by all passes together (the paper's "reads", 000 §5.4).
    pub fn elements_read(&self) -> usize {
        self.passes.iter().map(ReducePass::elements_read).sum()
    }

    /// Elements written by all passes together: the intermediates and the result.
    pub fn elements_written(&self) -> usize {
        self.passes.iter().map(ReducePass::elements_written).sum()
    }
}

/// One line per pass: `dim 1: <1024, 1024> -> <1024, 128> (8-way)`.
impl fmt::Display for ReducePlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.passes {
            writeln!(
                f,
                "dim {}: {} -> {} ({}-way{})",
                p.dim,
                fmt_shape(&p.from),
                fmt_shape(&p.to),
                p.k,
                if p.partial() {
                    ", last of each block shorter"
                } else {
                    ""
                }
            )?;
        }
        write!(
            f,
            "{} passes, {} elements read, {} written",
            self.passes.len(),
            self.elements_read(),
            self.elements_written()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ks(plan: &ReducePlan) -> Vec<(usize, usize)> {
        plan.passes.iter().map(|p| (p.dim, p.k)).collect()
    }

    #[test]
    fn a_power_of_eight_meets_the_papers_read_count() {
        let n = 8usize.pow(6);
        let plan = ReducePlan::new(&[n], &[]).unwrap();
        assert_eq!(ks(&plan), vec![(0, 8); 6]);
        // Below the paper's n + n/(k-1): the geometric series stops at 8.
        assert_eq!(plan.elements_read(), n + (n - 8) / 7);
        assert_eq!(plan.elements_written(), (n - 1) / 7);
    }

    #[test]
    fn leftovers_carry_into_the_next_pass() {
        let plan = ReducePlan::new(&[1009], &[1]).unwrap();
        // 1009 -> 127 -> 16 -> 2 -> 1
        assert_eq!(ks(&plan), vec![(0, 8), (0, 8), (0, 8), (0, 2)]);
        let to: Vec<usize> = plan.passes.iter().map(|p| p.to[0]).collect();
        assert_eq!(to, [127, 16, 2, 1]);
        assert!(plan.passes[0].partial() && !plan.passes[2].partial());
        assert_eq!(plan.elements_read(), 1009 + 127 + 16 + 2);
    }

    #[test]
    fn the_last_dimension_goes_first() {
        let plan = ReducePlan::new(&[11, 10], &[]).unwrap();
        assert_eq!(ks(&plan), vec![(1, 8), (1, 2), (0, 8), (0, 2)]);
        assert_eq!(plan.passes[1].to, [11, 1]);
        assert_eq!(plan.passes[3].to, [1, 1]);
    }

    #[test]
    fn blocks_of_a_stream_target() {
        // float a<100> into r<25>: every 4 consecutive elements, one pass.
        let plan = ReducePlan::new(&[100], &[25]).unwrap();
        assert_eq!(ks(&plan), vec![(0, 4)]);
        assert!(!plan.passes[0].blocked());
        // <50,50> into <50,1>: each row.
        let rows = ReducePlan::new(&[50, 50], &[50, 1]).unwrap();
        assert_eq!(ks(&rows), vec![(1, 8), (1, 7)]);
        assert!(!rows.passes[0].blocked());
        // Several blocks, several passes: the first pass must find its block.
        let blocked = ReducePlan::new(&[3 * 20], &[3]).unwrap();
        assert_eq!(ks(&blocked), vec![(0, 8), (0, 3)]);
        assert!(blocked.passes[0].blocked() && blocked.passes[0].partial());
        assert_eq!(blocked.passes[0].to, [9]);
    }

    #[test]
    fn ranks_are_padded_and_equal_shapes_copy() {
        let plan = ReducePlan::new(&[4, 6], &[6]).unwrap();
        assert_eq!(plan.target, [1, 6]);
        assert_eq!(ks(&plan), vec![(0, 4)]);
        let copy = ReducePlan::new(&[1], &[]).unwrap();
        assert_eq!(ks(&copy), vec![(0, 1)]);
    }

    #[test]
    fn targets_must_divide_the_input() {
        let err = ReducePlan::new(&[10, 9], &[10, 2]).unwrap_err();
        assert!(err.contains("<10, 2>") && err.contains("<10, 9>"), "{err}");
        assert!(err.contains("extent 2 does not divide 9"), "{err}");
        assert!(ReducePlan::new(&[4], &[8]).is_err());
    }
}
