//! Conflict-free rounds for ScatterOp with a user combiner and for GatherOp, planned on the
//! host from the index stream.
//!
//! A fragment cannot read the texel it writes, and a compute invocation cannot order its
//! writes against another's, so collisions — several elements aimed at one destination —
//! cannot be combined in one pass in index order. Round `k` therefore holds the `k`-th
//! element (in index order) aimed at each destination: no two elements of a round collide,
//! and every element comes after all earlier elements aimed at its destination.

use crate::index::gather_component_f;

/// The rounds of one call: every element, round by round, index order within a round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rounds {
    /// Element positions, round 0 first.
    pub order: Vec<usize>,
    /// Elements in each round; they add up to `order.len()`.
    pub counts: Vec<usize>,
}

impl Rounds {
    /// Plans the rounds of elements whose indices are `index` (one `rank`-float index per
    /// element, `.x` the column, as the index stream holds them) into a stream of
    /// `dst_shape`, each index rounded and clamped by Brook's gather rule.
    pub fn plan(dst_shape: &[usize], index: &[f32]) -> Rounds {
        let rank = dst_shape.len();
        let mut hits = std::collections::HashMap::new();
        let round_of: Vec<usize> = index
            .chunks(rank)
            .map(|v| {
                let target = (0..rank).fold(0, |lin, d| {
                    lin * dst_shape[d] + gather_component_f(v[rank - 1 - d], dst_shape[d])
                });
                let k = hits.entry(target).or_insert(0usize);
                *k += 1;
                *k - 1
            })
            .collect();
        let mut counts = vec![0usize; hits.values().max().copied().unwrap_or(0)];
        for &k in &round_of {
            counts[k] += 1;
        }
        let mut next: Vec<usize> = counts
            .iter()
            .scan(0, |start, &c| {
                let s = *start;
                *start += c;
                Some(s)
            })
            .collect();
        let mut order = vec![0; round_of.len()];
        for (e, &k) in round_of.iter().enumerate() {
            order[next[k]] = e;
            next[k] += 1;
        }
        Rounds { order, counts }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collisions_go_to_later_rounds_in_index_order() {
        // Elements 0, 2, 3 hit destination 1; element 1 hits 0; element 4 hits 1 again
        // through rounding (0.8 + 0.25 floors to 1).
        let rounds = Rounds::plan(&[4], &[1.0, 0.0, 1.0, 1.2, 0.8]);
        assert_eq!(rounds.counts, [2, 1, 1, 1]);
        assert_eq!(rounds.order, [0, 1, 2, 3, 4]);
        let two_d = Rounds::plan(&[2, 2], &[1.0, 1.0, 0.0, 0.0, 1.0, 1.0]);
        assert_eq!(two_d.counts, [2, 1]);
        assert_eq!(two_d.order, [0, 1, 2]);
    }
}
