//! Deterministic inputs: every run of every variant sees the same numbers, without a
//! random-number crate for what is one multiply-xorshift.

/// `n` values uniform in `[lo, hi)` from `seed` (SplitMix64).
pub fn uniform(n: usize, seed: u64, lo: f32, hi: f32) -> Vec<f32> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            let unit = (z >> 40) as f32 / (1u64 << 24) as f32;
            lo + (hi - lo) * unit
        })
        .collect()
}

/// `n` whole numbers in `0..count`, as floats (indices, bins, sort keys without ties to chance).
pub fn whole(n: usize, seed: u64, count: u32) -> Vec<f32> {
    uniform(n, seed, 0.0, count as f32)
        .into_iter()
        .map(|v| v.floor().min(count as f32 - 1.0))
        .collect()
}

/// The values widened, for references computed in f64.
pub fn wide(values: &[f32]) -> Vec<f64> {
    values.iter().map(|&v| v as f64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_is_in_range_and_repeatable() {
        let a = uniform(1000, 7, -2.0, 3.0);
        assert_eq!(a, uniform(1000, 7, -2.0, 3.0));
        assert!(a.iter().all(|v| (-2.0..3.0).contains(v)));
        let mean = a.iter().sum::<f32>() / 1000.0;
        assert!((mean - 0.5).abs() < 0.2, "mean {mean}");
        assert_ne!(a, uniform(1000, 8, -2.0, 3.0));
    }

    #[test]
    fn whole_numbers_cover_every_bin() {
        let w = whole(10_000, 3, 64);
        assert!(w
            .iter()
            .all(|v| v.fract() == 0.0 && (0.0..64.0).contains(v)));
        for bin in 0..64 {
            assert!(w.contains(&(bin as f32)));
        }
    }
}
