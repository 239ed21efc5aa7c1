//! Checking and timing one instance: each variant uploads, computes (once to warm up, then
//! repeatedly, taking the median), downloads, and has its result compared with the reference.

use std::time::{Duration, Instant};

use crate::app::{Flavor, Instance, Tolerance, Variant, Work};
use crate::error::AppError;

/// How long to keep repeating `compute`, and the most repetitions.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub time: Duration,
    pub max_runs: usize,
}

impl Budget {
    /// One timed run only: for tests, which check and do not time.
    pub const CHECK_ONLY: Budget = Budget {
        time: Duration::ZERO,
        max_runs: 1,
    };
}

/// One variant's figures.
#[derive(Clone, Debug)]
pub struct Row {
    pub flavor: Flavor,
    /// streamRead of the inputs.
    pub upload: Duration,
    /// Median time of one compute.
    pub compute: Duration,
    /// streamWrite of the result.
    pub download: Duration,
    pub runs: usize,
    /// Scaled error against the reference (see [`Tolerance`]).
    pub error: f64,
    pub passed: bool,
}

/// One application's figures at one size.
#[derive(Clone, Debug)]
pub struct AppResult {
    pub name: String,
    pub size: String,
    pub work: Work,
    pub tolerance: Tolerance,
    pub rows: Vec<Row>,
    /// Variants that failed to run at all, with why.
    pub failures: Vec<(Flavor, String)>,
}

impl AppResult {
    pub fn row(&self, flavor: Flavor) -> Option<&Row> {
        self.rows.iter().find(|r| r.flavor == flavor)
    }

    /// Compute time of `flavor` over that of the hand-written GL version.
    pub fn ratio_to_hand_gl(&self, flavor: Flavor) -> Option<f64> {
        let base = self.row(Flavor::HandGl)?.compute.as_secs_f64();
        Some(self.row(flavor)?.compute.as_secs_f64() / base)
    }

    /// True when every variant ran and matched the reference.
    pub fn all_passed(&self) -> bool {
        self.failures.is_empty() && self.rows.iter().all(|r| r.passed)
    }
}

/// Runs every variant of `instance` (those `keep` accepts), checking each result.
pub fn measure(
    name: &str,
    instance: Instance<'_>,
    budget: Budget,
    keep: impl Fn(Flavor) -> bool,
) -> AppResult {
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for (flavor, mut variant) in instance.variants {
        if !keep(flavor) {
            continue;
        }
        match measure_variant(variant.as_mut(), budget) {
            Ok((mut row, result)) => {
                row.flavor = flavor;
                match Tolerance::error(&instance.reference, &result) {
                    Ok(error) => {
                        row.error = error;
                        row.passed = error <= instance.tolerance.0;
                        rows.push(row);
                    }
                    Err(e) => failures.push((flavor, e.to_string())),
                }
            }
            Err(e) => failures.push((flavor, e.to_string())),
        }
    }
    AppResult {
        name: name.to_string(),
        size: instance.size,
        work: instance.work,
        tolerance: instance.tolerance,
        rows,
        failures,
    }
}

fn measure_variant(variant: &mut dyn Variant, budget: Budget) -> Result<(Row, Vec<f32>), AppError> {
    let upload = timed(variant, |v| v.upload())?;
    // The first run compiles shaders and touches every texture: not timed.
    timed(variant, |v| v.compute())?;
    let mut times = Vec::new();
    let start = Instant::now();
    while times.is_empty() || (start.elapsed() < budget.time && times.len() < budget.max_runs) {
        times.push(timed(variant, |v| v.compute())?);
    }
    let download_start = Instant::now();
    let result = variant.download()?;
    let download = download_start.elapsed();
    times.sort();
    let row = Row {
        flavor: Flavor::HandGl,
        upload,
        compute: times[times.len() / 2],
        download,
        runs: times.len(),
        error: 0.0,
        passed: false,
    };
    Ok((row, result))
}

/// Time of `step` including the GL work it queued.
fn timed(
    variant: &mut dyn Variant,
    step: impl FnOnce(&mut dyn Variant) -> Result<(), AppError>,
) -> Result<Duration, AppError> {
    variant.sync();
    let start = Instant::now();
    step(variant)?;
    variant.sync();
    Ok(start.elapsed())
}
