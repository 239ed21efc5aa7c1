//! The side-by-side table a comparison prints.

use std::fmt;

use crate::stats::{median, median_interval};

/// One variant's figures.
#[derive(Clone, Debug)]
pub struct Row {
    /// The variant's name.
    pub name: String,
    /// Median seconds per call over the rounds.
    pub median: f64,
    /// Median of the per-round ratios to the baseline (below 1: faster).
    pub ratio: f64,
    /// The 95% confidence interval of that median ratio, low and high.
    pub interval: (f64, f64),
}

impl Row {
    /// The figures of a variant timed at `times` (seconds per call per round) against a
    /// baseline timed at `base` in the same rounds.
    pub fn new(name: &str, times: &[f64], base: &[f64]) -> Row {
        let ratios: Vec<f64> = times.iter().zip(base).map(|(t, b)| t / b).collect();
        Row {
            name: name.to_string(),
            median: median(times),
            ratio: median(&ratios),
            interval: median_interval(&ratios),
        }
    }

    /// Whether the interval holds 1.0: no measured difference from the baseline.
    pub fn is_equal(&self) -> bool {
        self.interval.0 <= 1.0 && 1.0 <= self.interval.1
    }

    /// "equal", "slower" or "faster" than the baseline, as the interval says.
    pub fn verdict(&self) -> &'static str {
        if self.is_equal() {
            "equal"
        } else if self.ratio > 1.0 {
            "slower"
        } else {
            "faster"
        }
    }
}

/// A comparison's result: the rows in the order the variants were given, the baseline first.
#[derive(Clone, Debug)]
pub struct Table {
    /// What was compared (the heading, and criterion's group name).
    pub group: String,
    /// What one call is ("per call", "per sort").
    pub per: &'static str,
    /// How many rounds were timed; each runs every variant once, in a rotated order.
    pub rounds: usize,
    /// Calls per variant in each round.
    pub batch: u64,
    /// One row per variant, the baseline first.
    pub rows: Vec<Row>,
}

impl Table {
    /// The row of the variant called `name`.
    pub fn row(&self, name: &str) -> Option<&Row> {
        self.rows.iter().find(|r| r.name == name)
    }
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let base = &self.rows[0].name;
        writeln!(
            f,
            "\n{}: median time {}, ratio to {base} (median of {} rotated rounds of {} calls, 95% interval)",
            self.group, self.per, self.rounds, self.batch
        )?;
        for r in &self.rows {
            writeln!(
                f,
                "  {:<28} {:>12}  {:>7.3}×  [{:.3}, {:.3}]  {}",
                r.name,
                human(r.median * 1e9),
                r.ratio,
                r.interval.0,
                r.interval.1,
                if r.name == *base { "" } else { r.verdict() }
            )?;
        }
        Ok(())
    }
}

/// `ns` nanoseconds in the unit that reads best.
pub fn human(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_holding_one_is_equal() {
        let base = vec![1.0; 15];
        let noisy: Vec<f64> = (0..15).map(|i| 0.9 + 0.02 * f64::from(i)).collect();
        let row = Row::new("b", &noisy, &base);
        assert!(row.is_equal(), "{row:?}");
        let slower = Row::new("b", &[1.2; 15], &base);
        assert_eq!((slower.verdict(), slower.ratio), ("slower", 1.2));
        assert_eq!(Row::new("b", &[0.5; 15], &base).verdict(), "faster");
    }
}
