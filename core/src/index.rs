//! Brook's index rules, which every backend follows: index arithmetic, implicit resizing,
//! gather rounding and `indexof` positions. Pure functions, so each rule is tested on its own
//! and can be read next to `docs/semantics.md`; the GLSL generator writes the same rules as
//! shader helpers, the CPU backend calls these.
//!
//! Index vectors are first dimension first (`[row, col]`), like the shapes; positions handed
//! to kernels (`indexof`, vector gather indices) are the other way round (`.x` = last
//! dimension), as Brook defines them.

use crate::shape::MAX_RANK;

/// A multi-dimensional index, first dimension first; only the first `rank` entries are used.
pub type Index = [usize; MAX_RANK];

/// Row-major index of linear position `linear` in `shape` (last dimension fastest).
pub fn unravel(mut linear: usize, shape: &[usize]) -> Index {
    let mut idx = [0; MAX_RANK];
    for d in (0..shape.len()).rev() {
        idx[d] = linear % shape[d];
        linear /= shape[d];
    }
    idx
}

/// Linear position of `idx` in `shape` (row-major).
pub fn ravel(idx: &Index, shape: &[usize]) -> usize {
    let mut lin = 0;
    for (d, &e) in shape.iter().enumerate() {
        lin = lin * e + idx[d];
    }
    lin
}

/// Brook's implicit resize: the input index read by output index `out_idx`.
///
/// Per dimension, output element `i` reads input element `floor(i * in_extent / out_extent)`
/// (5→10: 0 0 1 1 2 2 3 3 4 4; 10→5: 0 2 4 6 8), computed as `floor(i * to / from)` with the
/// ratio reduced by [`resize_ratio`] — the same value, with a product small enough for the
/// GPUs' 32-bit integers in every simple ratio — in `u64` so no float rounding creeps in. This is what the original runtime does with
/// texture coordinates scaled by `in/out`, written in integers. When the ranks differ, the
/// smaller shape is left-padded with extent-1 dimensions (a `<5>` input into a `<3,10>`
/// output behaves like `<1,5>`), so the trailing dimensions — the columns — line up.
pub fn resize_index(out_idx: &Index, out_shape: &[usize], in_shape: &[usize]) -> Index {
    let mut idx = [0; MAX_RANK];
    let (ro, ri) = (out_shape.len(), in_shape.len());
    for d in 0..ri {
        // The output dimension aligned with input dimension `d`; none (extent 1, index 0) when
        // the input has more dimensions than the output.
        if d + ro < ri {
            idx[d] = 0;
            continue;
        }
        let od = d + ro - ri;
        let (from, to) = resize_ratio(out_shape[od], in_shape[d]);
        idx[d] = (out_idx[od] as u64 * to / from) as usize;
    }
    idx
}

/// The implicit resize's ratio along one dimension, `(from, to)` = `(out_extent, in_extent)`
/// divided by their greatest common divisor: output element `i` reads input element
/// `floor(i * to / from)`. Reduced, the largest product `(out_extent - 1) * to` stays small
/// for every simple ratio (a `<50000>` input resized to `<100000>` multiplies by 1, not by
/// 50000), so the GPU backends, which compute it in 32-bit integers, refuse only resizes
/// between extents with little in common ([`resize_product`]).
pub fn resize_ratio(out_extent: usize, in_extent: usize) -> (u64, u64) {
    let g = num_integer::gcd(out_extent, in_extent).max(1);
    ((out_extent / g) as u64, (in_extent / g) as u64)
}

/// The largest product the resize from `out_extent` to `in_extent` computes, `(out_extent - 1)
/// * to` (0 when the extents are equal: the index passes through).
pub fn resize_product(out_extent: usize, in_extent: usize) -> u128 {
    if out_extent == in_extent {
        return 0;
    }
    let (_, to) = resize_ratio(out_extent, in_extent);
    out_extent.saturating_sub(1) as u128 * to as u128
}

/// `indexof`: the `float4` position of `idx` in a stream of rank `rank`; `.x` is the last
/// dimension (column), `.y` the one before, unused components 0.
pub fn position(idx: &Index, rank: usize) -> [f32; 4] {
    let mut p = [0.0; 4];
    for (k, c) in p.iter_mut().enumerate().take(rank) {
        *c = idx[rank - 1 - k] as f32;
    }
    p
}

/// Brook's gather rounding for one float index component: `floor(v + 0.25)`, clamped to
/// `[0, extent-1]`. The 0.25 bias makes texel-centre coordinates from any source round to the
/// intended element; the clamp makes out-of-range gathers read the edge. Values no integer
/// type holds follow the clamp too: +inf and huge positive values read the last element,
/// -inf and huge negative values element 0, and NaN reads element 0. This is the one rule for
/// gathers, ScatterOp and GatherOp on every backend (GLSL: `floor(v + 0.25)` at the gather,
/// left out where the index is proven integral, then `brook_gather_clamp` in the prelude,
/// which clamps in float before converting; docs/limits.md).
///
/// The clamp is exact for every extent: the rounded index is compared with [`last_bound`], not
/// with `extent - 1` rounded to the nearest float, which past 2²⁴ elements could send an index
/// just below the end to the last element (GL and wgpu clamp such indices in integers).
pub fn gather_component_f(v: f32, extent: usize) -> usize {
    let i = (v + 0.25).floor();
    if i.is_nan() || i <= 0.0 {
        0
    } else if i >= last_bound(extent) {
        extent - 1
    } else {
        i as usize
    }
}

/// The float bound of [`gather_component_f`]'s clamp: the smallest `f32` at or above
/// `extent - 1`. For a rounded (integral) index `i`, `i >= last_bound` exactly when
/// `i >= extent - 1`, and below it `i` converts to an integer below `extent - 1`, so the clamp
/// compares in float (one comparison, as the CPU's native code does) yet matches an integer
/// clamp even where `extent - 1` is not a float.
pub fn last_bound(extent: usize) -> f32 {
    let last = extent - 1;
    let nearest = last as f32;
    if (nearest as usize) < last {
        nearest.next_up()
    } else {
        nearest
    }
}

/// The same rule for an `int` index (`floor(i + 0.25) == i`): clamped to `[0, extent-1]`.
pub fn gather_component_i(v: i32, extent: usize) -> usize {
    if v <= 0 {
        0
    } else {
        (v as usize).min(extent - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reduced_ratio_reads_what_the_plain_one_does() {
        for (out, input) in [
            (10, 5),
            (5, 10),
            (6, 4),
            (7, 3),
            (100_000, 50_000),
            (40, 60),
        ] {
            let (from, to) = resize_ratio(out, input);
            assert_eq!(num_integer::gcd(from, to), 1, "{out} {input}");
            for i in 0..out {
                let plain = (i as u64 * input as u64 / out as u64) as usize;
                assert_eq!(resize_index(&[i, 0, 0, 0], &[out], &[input])[0], plain);
                assert_eq!((i as u64 * to / from) as usize, plain);
            }
        }
        // A simple ratio multiplies by little, however large its extents.
        assert_eq!(resize_product(100_000, 50_000), 99_999);
        assert_eq!(resize_product(7, 7), 0);
        assert_eq!(resize_product(65_536, 100_003), 65_535 * 100_003);
    }
}
