//! Rotated rounds: the timing schedule that keeps order effects and load drift out of ratios.

use std::time::Duration;

/// Times `batch` calls of every variant in each of `rounds` rounds, the order rotated by one
/// each round (round r starts with variant r mod n). `time(v, batch)` runs variant v and
/// returns how long it took. Returns the seconds per call, `[variant][round]`.
pub fn rounds(
    variants: usize,
    rounds: usize,
    batch: u64,
    mut time: impl FnMut(usize, u64) -> Duration,
) -> Vec<Vec<f64>> {
    let mut per_call = vec![Vec::with_capacity(rounds); variants];
    for r in 0..rounds {
        for k in 0..variants {
            let v = (r + k) % variants;
            per_call[v].push(time(v, batch).as_secs_f64() / batch as f64);
        }
    }
    per_call
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_leads_in_turn() {
        let mut order = Vec::new();
        let t = rounds(3, 4, 2, |v, batch| {
            order.push(v);
            Duration::from_millis(10 * (v as u64 + 1) * batch)
        });
        assert_eq!(order, [0, 1, 2, 1, 2, 0, 2, 0, 1, 0, 1, 2]);
        assert_eq!(t[1], vec![0.02; 4]);
    }
}
