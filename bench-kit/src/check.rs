//! The check every variant passes before it is timed.

/// How far a variant's result may be from the reference.
#[derive(Clone, Copy, Debug)]
pub enum Tolerance {
    /// Bit for bit (after conversion to f32): for work whose every step is exact.
    Exact,
    /// `|got − expected| ≤ rel · max(1, |expected|)` per value; say in the bench where `rel`
    /// comes from (an operation count times ε, a driver's documented precision).
    Relative(f64),
    /// `|got − expected| ≤ s · max(1, max |expected|)`: the error scaled by the largest value,
    /// for results whose small values carry the large ones' rounding (the applications').
    Scaled(f64),
}

/// `Ok` when `got` matches `expected` within `tolerance`; otherwise the first mismatches and
/// how many there are, naming `variant`. NaN matches only NaN and an infinity only itself.
pub fn check(
    variant: &str,
    got: &[f32],
    expected: &[f64],
    tolerance: Tolerance,
) -> Result<(), String> {
    if got.len() != expected.len() {
        return Err(format!(
            "{variant}: {} values, the reference has {}",
            got.len(),
            expected.len()
        ));
    }
    let scale = expected
        .iter()
        .filter(|e| e.is_finite())
        .fold(1.0f64, |m, e| m.max(e.abs()));
    let bad: Vec<String> = got
        .iter()
        .zip(expected)
        .enumerate()
        .filter(|(_, (&g, &e))| !matches(f64::from(g), e, tolerance, scale))
        .map(|(i, (g, e))| format!("value {i}: expected {e}, got {g}"))
        .collect();
    if bad.is_empty() {
        return Ok(());
    }
    let shown: Vec<&str> = bad.iter().take(4).map(String::as_str).collect();
    Err(format!(
        "{variant} gives a wrong result ({} of {} values): {}",
        bad.len(),
        got.len(),
        shown.join("; ")
    ))
}

fn matches(got: f64, expected: f64, tolerance: Tolerance, scale: f64) -> bool {
    if got.is_nan() || expected.is_nan() {
        return got.is_nan() && expected.is_nan();
    }
    if got.is_infinite() || expected.is_infinite() {
        return got == expected;
    }
    match tolerance {
        Tolerance::Exact => got == f64::from(expected as f32),
        Tolerance::Relative(rel) => (got - expected).abs() <= rel * expected.abs().max(1.0),
        Tolerance::Scaled(s) => (got - expected).abs() <= s * scale,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_and_relative_tolerances() {
        assert!(check("v", &[1.0, 2.5], &[1.0, 2.5], Tolerance::Exact).is_ok());
        assert!(check("v", &[1.0, 2.5], &[1.0, 2.5001], Tolerance::Exact).is_err());
        assert!(check("v", &[100.001], &[100.0], Tolerance::Relative(1e-4)).is_ok());
        assert!(check("v", &[100.1], &[100.0], Tolerance::Relative(1e-4)).is_err());
        // Scaled by the largest value: 0.05 off on a small value passes beside 1000.
        assert!(check(
            "v",
            &[0.05, 1000.0],
            &[0.0, 1000.0],
            Tolerance::Scaled(1e-4)
        )
        .is_ok());
        assert!(check("v", &[0.05, 1.0], &[0.0, 1.0], Tolerance::Scaled(1e-4)).is_err());
    }

    #[test]
    fn infinities_nan_and_lengths_match_only_themselves() {
        let inf = Tolerance::Relative(0.5);
        assert!(check("v", &[f32::INFINITY], &[f64::INFINITY], inf).is_ok());
        assert!(check("v", &[1e30], &[f64::INFINITY], inf).is_err());
        assert!(check("v", &[f32::NAN], &[0.0], inf).is_err());
        assert!(check("v", &[1.0], &[1.0, 2.0], inf).is_err());
        let e = check("brook gl", &[0.0; 10], &[1.0; 10], inf).unwrap_err();
        assert!(
            e.starts_with("brook gl gives a wrong result (10 of 10 values)"),
            "{e}"
        );
    }
}
