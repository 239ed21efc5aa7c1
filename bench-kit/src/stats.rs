//! Medians with distribution-free intervals: no assumption that timings are normal (they are
//! not: a shared machine gives long right tails).

/// The median of `x` (sorted internally).
pub fn median(x: &[f64]) -> f64 {
    let mut s = x.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// A ≥ 95% confidence interval for the median of the distribution `x` was drawn from: the
/// order statistics x₍ₖ₎ and x₍ₙ₊₁₋ₖ₎ with the largest k for which the binomial(n, ½) tails
/// hold at most 2.5% each. Needs at least 6 values (below that no such k exists); with fewer
/// it returns the whole range.
pub fn median_interval(x: &[f64]) -> (f64, f64) {
    let mut s = x.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    let k = order_statistic(n);
    if k == 0 {
        return (s[0], s[n - 1]);
    }
    (s[k - 1], s[n - k])
}

/// The largest k ≥ 1 with P(Binomial(n, ½) ≤ k − 1) ≤ 0.025, or 0 when none.
fn order_statistic(n: usize) -> usize {
    let mut tail = 0.0;
    let mut coefficient = 1.0f64;
    let total = 2f64.powi(n as i32);
    let mut k = 0;
    for j in 0..n {
        tail += coefficient / total;
        if tail > 0.025 {
            break;
        }
        k = j + 1;
        coefficient = coefficient * (n - j) as f64 / (j + 1) as f64;
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }

    #[test]
    fn interval_order_statistics_match_the_binomial_tables() {
        // n = 15: P(X ≤ 3) = 576/32768 = 1.8%, P(X ≤ 4) = 5.9%: x₍₄₎ to x₍₁₂₎.
        assert_eq!(order_statistic(15), 4);
        // n = 6: P(X ≤ 0) = 1.6%: the extremes; n = 5 has no 95% interval.
        assert_eq!(order_statistic(6), 1);
        assert_eq!(order_statistic(5), 0);
        let x: Vec<f64> = (1..=15).map(f64::from).collect();
        assert_eq!(median_interval(&x), (4.0, 12.0));
    }
}
