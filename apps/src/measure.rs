//! Checking and timing one instance: each variant uploads, computes (once to warm up, then
//! repeatedly, interleaved with the other variants in an order that rotates each round, taking
//! the median), downloads, and has its result compared with the reference. Each ratio to the
//! hand-written GL version is the median of the per-round ratios with a 95% interval, so
//! noise is stated rather than taken for a difference.

use std::time::{Duration, Instant};

use brook::{Runtime, TraceEntry};

use brook_bench_kit::stats::{median, median_interval};

use crate::app::{Baseline, Env, Flavor, Instance, Tolerance, Variant, Work};
use crate::error::AppError;
use crate::hand_transfer::HandWgpu;

/// How long all the variants together keep repeating `compute`, and the most repetitions of
/// each.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Total time for all variants' timed computes, shared equally among them.
    pub time: Duration,
    /// The most timed rounds (each variant computes at most once a round).
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
    /// Which version these are the figures of.
    pub flavor: Flavor,
    /// streamRead of the inputs: the median of the transfer rounds for the variants that
    /// take part in them (Brook and hand-written GL, Brook wgpu), else the one upload.
    pub upload: Duration,
    /// Median time of one compute.
    pub compute: Duration,
    /// What the untimed first compute spent compiling (GL programs generated and linked,
    /// kernels and reductions compiled to native code), from the runtime's pass trace; `None`
    /// for the variants that do not run through a Brook runtime.
    pub compile: Option<Duration>,
    /// streamWrite of the result: the median of the transfer rounds, as for `upload`, else
    /// the one download that was checked.
    pub download: Duration,
    /// How many timed computes the median is over.
    pub runs: usize,
    /// Scaled error against the reference (see [`Tolerance`]).
    pub error: f64,
    /// Whether `error` is within the instance's tolerance.
    pub passed: bool,
    /// Compute time over the hand-written GL version's, from the rounds both ran in.
    pub versus_hand_gl: Option<Ratio>,
    /// streamRead and streamWrite over the hand-written upload and read back on the same API,
    /// from rotated rounds of the transfers alone: Brook GL's over the hand-written GL
    /// version's, Brook wgpu's over [`HandWgpu`]'s of the same arrays (issue 34).
    pub transfers_versus_hand: Option<(Ratio, Ratio)>,
    /// Compute time over the hand-written wgpu version's (same passes), from the rounds both
    /// ran in: for Brook wgpu, Brook's overhead on wgpu (issue 34).
    pub versus_hand_wgpu: Option<Ratio>,
}

/// A ratio of compute times: the median of per-round ratios and its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ratio {
    /// The median of the per-round ratios.
    pub median: f64,
    /// A 95% interval for the median from 6 rounds on; with fewer, the range of the rounds.
    pub interval: (f64, f64),
    /// The rounds both variants ran in.
    pub rounds: usize,
}

impl Ratio {
    /// The ratio of `times` to `base`, pairing the rounds both ran in (`None` when none).
    fn paired(times: &[(usize, Duration)], base: &[(usize, Duration)]) -> Option<Ratio> {
        let ratios: Vec<f64> = times
            .iter()
            .filter_map(|(round, t)| {
                let (_, b) = base.iter().find(|(r, _)| r == round)?;
                Some(t.as_secs_f64() / b.as_secs_f64().max(1e-12))
            })
            .collect();
        Ratio::of(&ratios)
    }

    /// The median of per-round `ratios` and its interval (`None` when there are none).
    pub fn of(ratios: &[f64]) -> Option<Ratio> {
        (!ratios.is_empty()).then(|| Ratio {
            median: median(ratios),
            interval: median_interval(ratios),
            rounds: ratios.len(),
        })
    }

    /// Whether the 95% interval holds 1.0: no measured difference (never said of fewer
    /// than 6 rounds, which give no 95% interval).
    pub fn is_equal(&self) -> bool {
        self.has_interval() && self.interval.0 <= 1.0 && 1.0 <= self.interval.1
    }

    /// Whether there were rounds enough (6) for a 95% interval.
    pub fn has_interval(&self) -> bool {
        self.rounds >= 6
    }
}

/// One application's figures at one size.
#[derive(Clone, Debug)]
pub struct AppResult {
    /// The application's short name.
    pub name: String,
    /// What the hand-written GL version is, so what the ratios to it measure.
    pub baseline: Baseline,
    /// What was computed, e.g. `1024×1024 float4`.
    pub size: String,
    /// What one compute achieves, to turn its time into a rate.
    pub work: Work,
    /// The tolerance the results were checked against.
    pub tolerance: Tolerance,
    /// The variants that ran, in the instance's order.
    pub rows: Vec<Row>,
    /// Variants that failed to run at all, with why.
    pub failures: Vec<(Flavor, String)>,
}

impl AppResult {
    /// The figures of `flavor`, if it ran.
    pub fn row(&self, flavor: Flavor) -> Option<&Row> {
        self.rows.iter().find(|r| r.flavor == flavor)
    }

    /// Compute time of `flavor` over that of the hand-written GL version: the median of the
    /// per-round ratios.
    pub fn ratio_to_hand_gl(&self, flavor: Flavor) -> Option<f64> {
        Some(self.row(flavor)?.versus_hand_gl?.median)
    }

    /// Brook wgpu's compute time over the hand-written wgpu version's (same passes), with its
    /// interval.
    pub fn brook_wgpu_to_hand_wgpu(&self) -> Option<Ratio> {
        self.row(Flavor::BrookWgpu)?.versus_hand_wgpu
    }

    /// True when every variant ran and matched the reference.
    pub fn all_passed(&self) -> bool {
        self.failures.is_empty() && self.rows.iter().all(|r| r.passed)
    }
}

/// What [`measure`] is doing, for a progress display.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Uploading `flavor`'s inputs and running it once, untimed (compiling its programs).
    WarmingUp(Flavor),
    /// Timed round `round` (from 1) of at most `of`, every variant in turn.
    Timing {
        /// This round's number, from 1.
        round: usize,
        /// How many rounds there are at most.
        of: usize,
    },
    /// Downloading `flavor`'s result and checking it against the reference.
    Checking(Flavor),
    /// Transfer round `round` (from 1) of `of`: streamRead and streamWrite beside the
    /// hand-written upload and read back.
    Transfers {
        /// This round's number, from 1.
        round: usize,
        /// How many rounds there are.
        of: usize,
    },
}

/// A variant being timed: its upload time and its compute times so far.
struct Timing<'v> {
    flavor: Flavor,
    variant: Box<dyn Variant + 'v>,
    upload: Duration,
    compile: Option<Duration>,
    /// Each timed compute with the round it ran in.
    computes: Vec<(usize, Duration)>,
}

impl Timing<'_> {
    fn spent(&self) -> Duration {
        self.computes.iter().map(|(_, d)| *d).sum()
    }
}

/// Runs every variant of `instance` (those `keep` accepts), checking each result. With `env`
/// (the runtimes the Brook variants run on), the Brook variants' first compute is traced to
/// tell what compiling cost.
///
/// The variants' timed runs are interleaved, round by round, so that a change in the machine's
/// load (other processes; llvmpipe shares the CPU) falls on all of them alike and their ratios
/// stay honest. Each variant gets an equal share of `budget.time` (but at least one run).
/// `progress` hears of each stage as it starts.
pub fn measure(
    name: &str,
    baseline: Baseline,
    instance: Instance<'_>,
    budget: Budget,
    keep: impl Fn(Flavor) -> bool,
    env: Option<&Env>,
    progress: &mut dyn FnMut(Stage),
) -> AppResult {
    let mut failures = Vec::new();
    let mut timings = Vec::new();
    for (flavor, mut variant) in instance.variants {
        if !keep(flavor) {
            continue;
        }
        progress(Stage::WarmingUp(flavor));
        let upload = timed(variant.as_mut(), |v| v.upload());
        // The first run compiles shaders and touches every texture: not timed.
        let brook = matches!(flavor, Flavor::BrookGl | Flavor::BrookCpu);
        let runtime = env.filter(|_| brook).map(|env| env.runtime(flavor));
        match upload.and_then(|upload| Ok((upload, warm_up(variant.as_mut(), runtime)?))) {
            Ok((upload, compile)) => timings.push(Timing {
                flavor,
                variant,
                upload,
                compile,
                computes: Vec::new(),
            }),
            Err(e) => failures.push((flavor, e.to_string())),
        }
    }
    let share = budget.time / timings.len().max(1) as u32;
    let rounds = budget.max_runs.max(1);
    for round in 0..rounds {
        progress(Stage::Timing {
            round: round + 1,
            of: rounds,
        });
        let mut ran = false;
        // The order rotates, so that no variant always runs first; each is timed right after
        // an untimed compute of its own, so that none pays for its neighbour (`settled`).
        let n = timings.len();
        for k in 0..n {
            let t = &mut timings[(round + k) % n];
            if !t.computes.is_empty() && t.spent() >= share {
                continue;
            }
            ran = true;
            match settled(t.variant.as_mut(), |v| v.compute()) {
                Ok(d) => t.computes.push((round, d)),
                Err(e) => failures.push((t.flavor, e.to_string())),
            }
        }
        timings.retain(|t| !failures.iter().any(|(f, _)| *f == t.flavor));
        if !ran {
            break;
        }
    }
    let mut checked = Vec::new();
    let mut hand_wgpu = None;
    for mut t in timings {
        progress(Stage::Checking(t.flavor));
        let download_start = Instant::now();
        let result = match t.variant.download() {
            Ok(result) => result,
            Err(e) => {
                failures.push((t.flavor, e.to_string()));
                continue;
            }
        };
        let download = download_start.elapsed();
        if let (Flavor::BrookWgpu, Some(env)) = (t.flavor, env) {
            let inputs = t.variant.host_inputs();
            let read = t.variant.read_floats().unwrap_or(result.len());
            match HandWgpu::new(env.runtime(t.flavor), &inputs, &result, read) {
                Ok(transfers) => hand_wgpu = transfers,
                Err(e) => failures.push((t.flavor, e.to_string())),
            }
        }
        match Tolerance::error(&instance.reference, &result) {
            Ok(error) => checked.push((t, download, error)),
            Err(e) => failures.push((t.flavor, e.to_string())),
        }
    }
    let rounds = budget.max_runs.clamp(1, TRANSFER_ROUNDS);
    let mut transfers = transfer_rounds(&mut checked, hand_wgpu.as_ref(), rounds, progress);
    let mut rows = Vec::new();
    for (t, download, error) in checked {
        let timed = transfers.iter().find(|x| x.who == Some(t.flavor));
        rows.push((
            Row {
                flavor: t.flavor,
                upload: timed
                    .and_then(|x| median_time(&x.uploads))
                    .unwrap_or(t.upload),
                compute: median_time(&t.computes).expect("a checked variant was timed"),
                compile: t.compile,
                download: timed
                    .and_then(|x| median_time(&x.downloads))
                    .unwrap_or(download),
                runs: t.computes.len(),
                error,
                passed: error <= instance.tolerance.0,
                versus_hand_gl: None,
                transfers_versus_hand: None,
                versus_hand_wgpu: None,
            },
            t.computes,
        ));
    }
    failures.extend(transfers.iter_mut().flat_map(|x| x.failures.drain(..)));
    let row_of = |flavor| (rows.iter()).find(|(r, _): &&(Row, _)| r.flavor == flavor);
    let computes_of = |flavor| row_of(flavor).map(|(_, c)| c.clone());
    let (hand_gl, hand_wgpu) = (computes_of(Flavor::HandGl), computes_of(Flavor::HandWgpu));
    let versus = |base: &Option<Vec<_>>, computes: &[_]| {
        base.as_ref().and_then(|h| Ratio::paired(computes, h))
    };
    let transfers_of = |who: Option<Flavor>| transfers.iter().find(|x| x.who == who);
    let rows = rows
        .into_iter()
        .map(|(mut row, computes)| {
            row.versus_hand_gl = versus(&hand_gl, &computes);
            row.versus_hand_wgpu = versus(&hand_wgpu, &computes);
            let base = match row.flavor {
                Flavor::BrookGl => transfers_of(Some(Flavor::HandGl)),
                Flavor::BrookWgpu => transfers_of(None),
                _ => None,
            };
            row.transfers_versus_hand =
                base.zip(transfers_of(Some(row.flavor)))
                    .and_then(|(hand, brook)| {
                        let up = Ratio::paired(&brook.uploads, &hand.uploads)?;
                        Some((up, Ratio::paired(&brook.downloads, &hand.downloads)?))
                    });
            row
        })
        .collect();
    AppResult {
        name: name.to_string(),
        baseline,
        size: instance.size,
        work: instance.work,
        tolerance: instance.tolerance,
        rows,
        failures,
    }
}

/// Rounds of the transfer comparison: enough for a 95% interval (6 and more), few enough that
/// they add seconds, not minutes, to a full report.
const TRANSFER_ROUNDS: usize = 7;

/// One side of a transfer comparison: a variant's uploads and downloads (`who: None`: the
/// hand-written wgpu transfers'), each with the round it ran in.
struct TransferTimes {
    who: Option<Flavor>,
    uploads: Vec<(usize, Duration)>,
    downloads: Vec<(usize, Duration)>,
    /// What stopped it, charged to the Brook variant it is compared with for the hand-written
    /// wgpu transfers.
    failures: Vec<(Flavor, String)>,
}

/// The median of timed rounds (the upper one of an even count); `None` for none.
fn median_time(rounds: &[(usize, Duration)]) -> Option<Duration> {
    let mut ts: Vec<Duration> = rounds.iter().map(|(_, d)| *d).collect();
    ts.sort();
    ts.get(ts.len() / 2).copied()
}

/// Times streamRead and streamWrite of Brook GL and Brook wgpu and the hand-written upload and
/// read back they are compared with (the hand-written GL version's, `hand_wgpu`'s) in `rounds`
/// rounds whose order rotates, so that no side always runs first: a single sample in a fixed
/// order moved these ratios by up to 2×. Each is timed right after an untimed run of its own,
/// as computes are ([`settled`]). Only the pairs that are both there take part.
fn transfer_rounds(
    checked: &mut [(Timing<'_>, Duration, f64)],
    hand_wgpu: Option<&HandWgpu<'_>>,
    rounds: usize,
    progress: &mut dyn FnMut(Stage),
) -> Vec<TransferTimes> {
    let has = |flavor| checked.iter().any(|(t, _, _)| t.flavor == flavor);
    let mut sides = Vec::new();
    if has(Flavor::BrookGl) && has(Flavor::HandGl) {
        sides.extend([Some(Flavor::BrookGl), Some(Flavor::HandGl)]);
    }
    if has(Flavor::BrookWgpu) && hand_wgpu.is_some() {
        sides.extend([Some(Flavor::BrookWgpu), None]);
    }
    let mut times: Vec<TransferTimes> = (sides.iter())
        .map(|&who| TransferTimes {
            who,
            uploads: Vec::new(),
            downloads: Vec::new(),
            failures: Vec::new(),
        })
        .collect();
    if sides.is_empty() {
        return times;
    }
    for round in 0..rounds {
        progress(Stage::Transfers {
            round: round + 1,
            of: rounds,
        });
        for k in 0..times.len() {
            let side = &mut times[(round + k) % sides.len()];
            if !side.failures.is_empty() {
                continue;
            }
            let both = match (side.who, hand_wgpu) {
                (Some(flavor), _) => {
                    let (t, _, _) = (checked.iter_mut())
                        .find(|(t, _, _)| t.flavor == flavor)
                        .expect("a side is a checked variant");
                    settled(t.variant.as_mut(), |v| v.upload()).and_then(|up| {
                        Ok((up, settled(t.variant.as_mut(), |v| v.download().map(drop))?))
                    })
                }
                (None, Some(hand)) => {
                    let (brook, _, _) = (checked.iter())
                        .find(|(t, _, _)| t.flavor == Flavor::BrookWgpu)
                        .expect("the hand wgpu side pairs Brook wgpu's");
                    let keep = |read| brook.variant.kept(read);
                    after_an_untimed_one(|| hand.upload())
                        .and_then(|up| Ok((up, after_an_untimed_one(|| hand.download(&keep))?)))
                }
                (None, None) => continue,
            };
            match both {
                Ok((up, down)) => {
                    side.uploads.push((round, up));
                    side.downloads.push((round, down));
                }
                Err(e) => {
                    let flavor = side.who.unwrap_or(Flavor::BrookWgpu);
                    side.failures.push((flavor, e.to_string()));
                }
            }
        }
    }
    times
}

/// Time of `step` as [`timed`] gives it, right after one untimed run of the same step: a
/// variant's time must not depend on which ran before it. On a GPU the variant before may have
/// used the other API, and the device switches between the GL and the Vulkan context at the
/// first work after the other's; or none, and the clocks drop while a CPU variant runs. The
/// order rotates, but each variant keeps the same neighbour before it, so one API's variants
/// paid the switch every round: on an H100 Brook wgpu (always after Brook GL) took 2.4× the
/// hand wgpu SAXPY (always after a CPU variant) that, alternating with it alone, it matched
/// within 1.07× (docs/performance.md, "The seventh session on the H100").
fn settled(
    variant: &mut dyn Variant,
    step: impl Fn(&mut dyn Variant) -> Result<(), AppError>,
) -> Result<Duration, AppError> {
    after_an_untimed_one(|| timed(variant, &step))
}

/// The second of two runs of `timed_step`: the rule of [`settled`], for steps that time
/// themselves (the hand-written transfers).
fn after_an_untimed_one(
    mut timed_step: impl FnMut() -> Result<Duration, AppError>,
) -> Result<Duration, AppError> {
    timed_step()?;
    timed_step()
}

/// The first, untimed compute; with the variant's `runtime`, the compile time its trace
/// reports.
fn warm_up(
    variant: &mut dyn Variant,
    runtime: Option<&Runtime>,
) -> Result<Option<Duration>, AppError> {
    let Some(rt) = runtime else {
        return timed(variant, |v| v.compute()).map(|_| None);
    };
    rt.set_trace(true);
    let run = timed(variant, |v| v.compute());
    let trace = rt.take_trace();
    rt.set_trace(false);
    run?;
    let compiled = trace.iter().filter_map(|entry| match entry {
        TraceEntry::Kernel(c)
        | TraceEntry::Reduce(c)
        | TraceEntry::Scatter(c)
        | TraceEntry::GatherOp(c)
        | TraceEntry::WriteMask(c) => c.compiled,
        _ => None,
    });
    Ok(Some(compiled.sum()))
}

/// Time of `step` including the GL or wgpu work it queued.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Work;

    /// Returns `value` for each of its two elements; fails its third compute if `flaky`.
    struct Fake {
        value: f32,
        flaky: bool,
        computes: usize,
    }

    impl Variant for Fake {
        fn upload(&mut self) -> Result<(), AppError> {
            Ok(())
        }
        fn compute(&mut self) -> Result<(), AppError> {
            self.computes += 1;
            if self.flaky && self.computes == 3 {
                return Err(AppError::Usage("lost the context".into()));
            }
            Ok(())
        }
        fn download(&mut self) -> Result<Vec<f32>, AppError> {
            Ok(vec![self.value; 2])
        }
    }

    fn fake(value: f32, flaky: bool) -> Box<dyn Variant> {
        Box::new(Fake {
            value,
            flaky,
            computes: 0,
        })
    }

    #[test]
    fn every_variant_is_checked_and_failures_are_reported_not_hidden() {
        let instance = Instance {
            size: "2".into(),
            work: Work::Elements(2.0),
            reference: vec![1.0, 1.0],
            tolerance: Tolerance(1e-3),
            variants: vec![
                (Flavor::HandGl, fake(1.0, false)),
                (Flavor::BrookGl, fake(1.5, false)),
                (Flavor::BrookCpu, fake(1.0, true)),
                (Flavor::Rust, fake(1.0, false)),
            ],
        };
        let budget = Budget {
            time: Duration::from_secs(10),
            max_runs: 4,
        };
        let mut stages = Vec::new();
        let result = measure(
            "fake",
            Baseline::SamePasses,
            instance,
            budget,
            |f| f != Flavor::Rust,
            None,
            &mut |stage| stages.push(stage),
        );
        assert!(result
            .row(Flavor::HandGl)
            .is_some_and(|r| r.passed && r.runs == 4));
        let wrong = result.row(Flavor::BrookGl).unwrap();
        assert!(!wrong.passed);
        assert!((wrong.error - 0.5).abs() < 1e-12, "{}", wrong.error);
        assert!(result.row(Flavor::BrookCpu).is_none());
        assert_eq!(result.failures.len(), 1);
        assert_eq!(result.failures[0].0, Flavor::BrookCpu);
        assert!(result.row(Flavor::Rust).is_none(), "filtered out");
        assert!(!result.all_passed());
        let warmed = [Flavor::HandGl, Flavor::BrookGl, Flavor::BrookCpu].map(Stage::WarmingUp);
        assert_eq!(stages[..3], warmed);
        assert_eq!(stages[3], Stage::Timing { round: 1, of: 4 });
        let checked = [Flavor::HandGl, Flavor::BrookGl].map(Stage::Checking);
        assert_eq!(
            stages[stages.len() - 6..stages.len() - 4],
            checked,
            "{stages:?}"
        );
        // Then the transfers of Brook GL and the hand-written GL version, side by side.
        let transfers = [1, 2, 3, 4].map(|round| Stage::Transfers { round, of: 4 });
        assert_eq!(stages[stages.len() - 4..], transfers, "{stages:?}");
        let (read, write) = wrong.transfers_versus_hand.expect("transfer ratios");
        assert_eq!((read.rounds, write.rounds), (4, 4));
        assert!(result
            .row(Flavor::HandGl)
            .unwrap()
            .transfers_versus_hand
            .is_none());
    }

    /// Logs its name at each compute, to see the order the rounds ran in.
    struct Logged(
        &'static str,
        std::rc::Rc<std::cell::RefCell<Vec<&'static str>>>,
    );

    impl Variant for Logged {
        fn upload(&mut self) -> Result<(), AppError> {
            Ok(())
        }
        fn compute(&mut self) -> Result<(), AppError> {
            self.1.borrow_mut().push(self.0);
            Ok(())
        }
        fn download(&mut self) -> Result<Vec<f32>, AppError> {
            Ok(vec![1.0])
        }
    }

    #[test]
    fn the_order_of_variants_rotates_each_round() {
        let log = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let variant = |name| Box::new(Logged(name, log.clone())) as Box<dyn Variant>;
        let instance = Instance {
            size: "1".into(),
            work: Work::Elements(1.0),
            reference: vec![1.0],
            tolerance: Tolerance(0.0),
            variants: vec![
                (Flavor::HandGl, variant("hand")),
                (Flavor::BrookGl, variant("gl")),
                (Flavor::Rust, variant("rust")),
            ],
        };
        let budget = Budget {
            time: Duration::from_secs(60),
            max_runs: 3,
        };
        let result = measure(
            "log",
            Baseline::SamePasses,
            instance,
            budget,
            |_| true,
            None,
            &mut |_| {},
        );
        assert!(result.all_passed());
        // One untimed warm-up each, in the given order, then three rotated rounds, where
        // each timed compute follows an untimed one of its own.
        let log = log.borrow();
        let twice = |names: [&'static str; 9]| names.into_iter().flat_map(|n| [n, n]);
        assert_eq!(
            log[3..],
            twice(["hand", "gl", "rust", "gl", "rust", "hand", "rust", "hand", "gl"])
                .collect::<Vec<_>>()
        );
        let ratio = result.row(Flavor::BrookGl).unwrap().versus_hand_gl.unwrap();
        assert!(ratio.interval.0 <= ratio.median && ratio.median <= ratio.interval.1);
    }

    #[test]
    fn ratios_pair_the_rounds_both_variants_ran_in() {
        let ms = Duration::from_millis;
        let base = [(0, ms(10)), (1, ms(20)), (2, ms(10))];
        // Round 3 has no baseline time: left out, not paired with another round's.
        let times = [(0, ms(20)), (1, ms(40)), (2, ms(20)), (3, ms(1))];
        let r = Ratio::paired(&times, &base).unwrap();
        assert_eq!(r.median, 2.0);
        assert_eq!(r.interval, (2.0, 2.0));
        assert_eq!(r.rounds, 3);
        assert!(
            !r.has_interval() && !r.is_equal(),
            "3 rounds give no 95% interval"
        );
        assert!(Ratio::paired(&times, &[]).is_none());
    }
}
