//! The plain-Rust versions' inner sum: `Σ term(a[i], b[i])` kept in 8 independent lanes, so
//! the compiler can vectorise it (one f32 accumulator is a serial chain it may not reorder).

const LANES: usize = 8;

/// `Σ term(a[i], b[i])` over the shorter of `a` and `b`.
pub fn sum_of(a: &[f32], b: &[f32], term: impl Fn(f32, f32) -> f32) -> f32 {
    let mut acc = [0.0f32; LANES];
    let (a_lanes, b_lanes) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: f32 = a_lanes
        .remainder()
        .iter()
        .zip(b_lanes.remainder())
        .map(|(a, b)| term(*a, *b))
        .sum();
    for (ca, cb) in a_lanes.zip(b_lanes) {
        for l in 0..LANES {
            acc[l] += term(ca[l], cb[l]);
        }
    }
    acc.iter().sum::<f32>() + tail
}
