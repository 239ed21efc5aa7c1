//! The report as JSON (`brook-report --json FILE`): every measurement, in seconds and plain
//! numbers, with the machine it was taken on, so that people comparing backends can plot and
//! analyse the figures their own way. [`Report`] is also what a program reads the file back
//! into (`serde_json::from_str::<Report>`).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::app::{Baseline, Flavor, Scale, Work};
use crate::error::AppError;
use crate::knee::Point;
use crate::measure::{AppResult, Row};

use super::machine::Machine;

/// The whole report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Where it was measured.
    pub machine: Machine,
    /// `full` (the papers' sizes) or `quick`.
    pub scale: String,
    /// Every application measured, in the report's order.
    pub applications: Vec<Application>,
    /// The kernel-call knee sweep; empty when it was not measured.
    pub knee: Vec<KneePoint>,
}

/// One application at one size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Application {
    /// The application's short name, as in the papers' figures.
    pub name: String,
    /// What the hand-written GL version is, so what the ratios to it measure: `same passes`
    /// (Brook's own passes written by hand) or `expert` (the best hand version).
    pub baseline: String,
    /// For an expert baseline, how it differs from Brook's passes.
    pub baseline_differs: Option<String>,
    /// What was computed, e.g. `1024×1024 float4`.
    pub size: String,
    /// What one compute achieves, in `work_unit`s.
    pub work: f64,
    /// `flops`, `ray-triangle tests` or `elements`.
    pub work_unit: String,
    /// The largest scaled error a variant may have (0: exact).
    pub tolerance: f64,
    /// The figures of each variant that ran.
    pub variants: Vec<Variant>,
    /// Variants that did not run at all, with why.
    pub failures: Vec<Failure>,
    /// Every variant ran and matched the reference.
    pub passed: bool,
}

/// One variant's figures; times in seconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Variant {
    /// `hand_gl`, `brook_gl`, `brook_wgpu`, `hand_wgpu`, `hand_wgpu_expert`, `brook_cpu` or
    /// `rust`.
    pub variant: String,
    /// As the table prints it: `hand-written GL`, `Brook GL`, …
    pub label: String,
    /// streamRead of the inputs.
    pub upload_s: f64,
    /// What the first (untimed) compute spent compiling; absent for the variants that do
    /// not run through a Brook runtime.
    pub compile_s: Option<f64>,
    /// Median of the timed computes.
    pub compute_s: f64,
    /// streamWrite of the result.
    pub download_s: f64,
    /// Timed computes the median is taken over.
    pub runs: usize,
    /// The compute rate, in `rate_unit` (MFLOPS, Mtests/s or Melem/s).
    pub rate: f64,
    /// `MFLOPS`, `Mtests/s` or `Melem/s`.
    pub rate_unit: String,
    /// Compute time over the hand-written GL version's: the median of the per-round ratios;
    /// absent without a hand-written GL version.
    pub ratio_to_hand_gl: Option<f64>,
    /// That ratio's 95% interval over the rounds (from 6 rounds on; with fewer, their range).
    pub ratio_interval: Option<[f64; 2]>,
    /// The rounds the ratio was taken over.
    pub ratio_rounds: Option<usize>,
    /// Compute time over the hand-written wgpu version's (same passes; for Brook wgpu, Brook's
    /// overhead on wgpu): the median of the per-round ratios; absent without that version.
    #[serde(default)]
    pub ratio_to_hand_wgpu: Option<f64>,
    /// That ratio's 95% interval (from 6 rounds on; with fewer, their range).
    #[serde(default)]
    pub ratio_to_hand_wgpu_interval: Option<[f64; 2]>,
    /// The rounds that ratio was taken over.
    #[serde(default)]
    pub ratio_to_hand_wgpu_rounds: Option<usize>,
    /// Brook's streamRead over the hand-written upload on the same API (Brook GL: the
    /// hand-written GL version's; Brook wgpu: the hand-written wgpu transfers'), the median of
    /// the per-round ratios of rotated transfer rounds; absent for the other variants.
    #[serde(default)]
    pub read_ratio_to_hand: Option<f64>,
    /// That ratio's 95% interval (from 6 rounds on; with fewer, their range).
    #[serde(default)]
    pub read_ratio_interval: Option<[f64; 2]>,
    /// streamWrite over the hand-written read back, as `read_ratio_to_hand`.
    #[serde(default)]
    pub write_ratio_to_hand: Option<f64>,
    /// That ratio's 95% interval.
    #[serde(default)]
    pub write_ratio_interval: Option<[f64; 2]>,
    /// The transfer rounds both ratios were taken over.
    #[serde(default)]
    pub transfer_rounds: Option<usize>,
    /// Scaled error against the reference; absent when the result held NaN or infinity.
    pub error: Option<f64>,
    /// The application's tolerance, repeated for convenience.
    pub tolerance: f64,
    /// Whether `error` is within the tolerance.
    pub passed: bool,
}

/// A variant that failed to run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// The variant's slug (`brook_gl`, …).
    pub variant: String,
    /// The error it stopped with.
    pub error: String,
}

/// One length of the kernel-call knee sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KneePoint {
    /// The stream length (elements).
    pub elements: usize,
    /// Seconds per call, per variant (`hand_gl`, `brook_gl`, `brook_cpu`): the median of
    /// the rotated rounds.
    pub per_call_s: BTreeMap<String, f64>,
    /// Each Brook variant's time over hand-written GL's: the median of the per-round ratios.
    pub ratio_to_hand_gl: BTreeMap<String, f64>,
    /// Its 95% interval (the range of the rounds below 6 rounds).
    pub ratio_interval: BTreeMap<String, [f64; 2]>,
    /// Variants whose checked call failed or gave a wrong result: not timed.
    pub failures: Vec<Failure>,
}

impl Report {
    /// Collects everything measured.
    pub fn new(machine: Machine, scale: Scale, results: &[AppResult], knee: &[Point]) -> Report {
        Report {
            machine,
            scale: scale.pick("full", "quick", "tiny").to_string(),
            applications: results.iter().map(application).collect(),
            knee: knee.iter().map(knee_point).collect(),
        }
    }

    /// Writes the report as pretty-printed JSON.
    pub fn write(&self, path: &Path) -> Result<(), AppError> {
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| AppError::Write(format!("{}: {e}", path.display())))?;
        std::fs::write(path, text + "\n")
            .map_err(|e| AppError::Write(format!("{}: {e}", path.display())))
    }
}

fn application(result: &AppResult) -> Application {
    let (work, work_unit) = match result.work {
        Work::Flops(n) => (n, "flops"),
        Work::RayTriangleTests(n) => (n, "ray-triangle tests"),
        Work::Elements(n) => (n, "elements"),
    };
    Application {
        name: result.name.clone(),
        baseline: result.baseline.label().into(),
        baseline_differs: match result.baseline {
            Baseline::SamePasses => None,
            Baseline::Expert(how) => Some(how.into()),
        },
        size: result.size.clone(),
        work,
        work_unit: work_unit.into(),
        tolerance: result.tolerance.0,
        variants: result.rows.iter().map(|row| variant(result, row)).collect(),
        failures: failures(&result.failures),
        passed: result.all_passed(),
    }
}

fn variant(result: &AppResult, row: &Row) -> Variant {
    let (rate, unit) = result.work.rate(row.compute.as_secs_f64());
    Variant {
        variant: row.flavor.slug().into(),
        label: row.flavor.label().into(),
        upload_s: row.upload.as_secs_f64(),
        compile_s: row.compile.map(|d| d.as_secs_f64()),
        compute_s: row.compute.as_secs_f64(),
        download_s: row.download.as_secs_f64(),
        runs: row.runs,
        rate,
        rate_unit: unit.into(),
        ratio_to_hand_gl: row.versus_hand_gl.map(|r| r.median),
        ratio_interval: row.versus_hand_gl.map(|r| [r.interval.0, r.interval.1]),
        ratio_rounds: row.versus_hand_gl.map(|r| r.rounds),
        ratio_to_hand_wgpu: row.versus_hand_wgpu.map(|r| r.median),
        ratio_to_hand_wgpu_interval: row.versus_hand_wgpu.map(|r| [r.interval.0, r.interval.1]),
        ratio_to_hand_wgpu_rounds: row.versus_hand_wgpu.map(|r| r.rounds),
        read_ratio_to_hand: row.transfers_versus_hand.map(|(r, _)| r.median),
        read_ratio_interval: row
            .transfers_versus_hand
            .map(|(r, _)| [r.interval.0, r.interval.1]),
        write_ratio_to_hand: row.transfers_versus_hand.map(|(_, w)| w.median),
        write_ratio_interval: row
            .transfers_versus_hand
            .map(|(_, w)| [w.interval.0, w.interval.1]),
        transfer_rounds: row.transfers_versus_hand.map(|(r, _)| r.rounds),
        error: row.error.is_finite().then_some(row.error),
        tolerance: result.tolerance.0,
        passed: row.passed,
    }
}

fn knee_point(point: &Point) -> KneePoint {
    KneePoint {
        elements: point.elements,
        per_call_s: point
            .per_call
            .iter()
            .map(|(flavor, t)| (flavor.slug().to_string(), t.as_secs_f64()))
            .collect(),
        ratio_to_hand_gl: point
            .versus_hand_gl
            .iter()
            .map(|(flavor, r)| (flavor.slug().to_string(), r.median))
            .collect(),
        ratio_interval: point
            .versus_hand_gl
            .iter()
            .map(|(flavor, r)| (flavor.slug().to_string(), [r.interval.0, r.interval.1]))
            .collect(),
        failures: failures(&point.failures),
    }
}

fn failures(failures: &[(Flavor, String)]) -> Vec<Failure> {
    failures
        .iter()
        .map(|(flavor, why)| Failure {
            variant: flavor.slug().into(),
            error: why.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::Ratio;
    use crate::report::chart::tests::result;
    use std::time::Duration;

    fn machine() -> Machine {
        Machine {
            cpu: "Test CPU".into(),
            threads: 2,
            rayon_threads: 2,
            gl_renderer: "llvmpipe".into(),
            gl_version: "4.5 (Core Profile) Mesa".into(),
            wgpu: "wgpu: lavapipe (Vulkan)".into(),
        }
    }

    #[test]
    fn every_measurement_is_written_and_reads_back_the_same() {
        let mut saxpy = result("SAXPY", &[(Flavor::HandGl, 2.0), (Flavor::BrookGl, 3.0)]);
        saxpy.rows[1].error = f64::NAN;
        saxpy.rows[1].passed = false;
        saxpy.rows[1].versus_hand_wgpu = Ratio::of(&[0.5, 0.75, 1.0]);
        saxpy
            .failures
            .push((Flavor::BrookCpu, "lost the context".into()));
        let knee = [Point {
            elements: 16,
            per_call: vec![(Flavor::HandGl, Duration::from_micros(25))],
            versus_hand_gl: vec![(
                Flavor::BrookGl,
                Ratio::of(&[1.2, 1.25, 1.3, 1.25, 1.25, 1.25]).unwrap(),
            )],
            failures: vec![(Flavor::BrookCpu, "wrong result".into())],
        }];
        let report = Report::new(machine(), Scale::Quick, &[saxpy], &knee);
        let path = std::env::temp_dir().join(format!("brook-report-{}.json", std::process::id()));
        report.write(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let back: Report = serde_json::from_str(&text).unwrap();
        assert_eq!(back, report);

        assert_eq!(back.scale, "quick");
        assert_eq!(back.machine.gl_renderer, "llvmpipe");
        let app = &back.applications[0];
        assert_eq!((app.name.as_str(), app.size.as_str()), ("SAXPY", "4×4"));
        assert_eq!((app.work, app.work_unit.as_str()), (1e6, "flops"));
        assert!(!app.passed);
        assert_eq!(app.failures[0].variant, "brook_cpu");
        let [hand, gl] = &app.variants[..] else {
            panic!("two variants: {:?}", app.variants)
        };
        assert_eq!(hand.variant, "hand_gl");
        assert_eq!(hand.compute_s, 2e-3);
        assert_eq!(hand.upload_s, 120e-6);
        assert_eq!(hand.download_s, 80e-6);
        assert_eq!(hand.compile_s, None);
        assert!((hand.rate - 500.0).abs() < 1e-9 && hand.rate_unit == "MFLOPS");
        assert_eq!(
            (hand.error, hand.tolerance, hand.passed),
            (Some(1e-7), 1e-5, true)
        );
        assert_eq!(gl.compile_s, Some(0.03));
        assert!(gl.ratio_to_hand_gl.is_some_and(|r| (r - 1.5).abs() < 1e-12));
        assert_eq!(gl.ratio_to_hand_wgpu, Some(0.75));
        assert_eq!(gl.ratio_to_hand_wgpu_interval, Some([0.5, 1.0]));
        assert_eq!(gl.ratio_to_hand_wgpu_rounds, Some(3));
        assert_eq!(hand.ratio_to_hand_wgpu, None);
        let [from, to] = gl.ratio_interval.unwrap();
        assert!((from - 1.35).abs() < 1e-12 && (to - 1.65).abs() < 1e-12);
        assert_eq!(app.baseline, "same passes");
        assert_eq!(app.baseline_differs, None);
        assert_eq!(gl.error, None, "a NaN error is written as null");
        assert!(!gl.passed);
        assert_eq!(back.knee[0].per_call_s["hand_gl"], 25e-6);
        assert_eq!(back.knee[0].ratio_to_hand_gl["brook_gl"], 1.25);
        assert_eq!(back.knee[0].ratio_interval["brook_gl"], [1.2, 1.3]);
        assert_eq!(back.knee[0].failures[0].variant, "brook_cpu");
        // The file names its fields as documented.
        for field in [
            "\"upload_s\"",
            "\"compile_s\"",
            "\"compute_s\"",
            "\"tolerance\"",
            "\"machine\"",
        ] {
            assert!(text.contains(field), "{field}");
        }
    }
}
