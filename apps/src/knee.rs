//! The kernel-call knee (001 Fig. 4): the time of one call of the synthetic 43-MAD kernel
//! against the number of elements, hand-written GL, Brook GL and Brook CPU side by side. Below
//! the knee the fixed cost of issuing a call dominates; above it the elements do.
//!
//! At each size every flavour's first call is checked against the kernel computed in f64
//! before anything is timed (a wrong flavour is reported, not timed); then the flavours are
//! timed in rounds whose order rotates (bench-kit's rounds), and each Brook flavour's ratio
//! to hand-written GL is the median of the per-round ratios with its 95% interval.

use std::path::Path;
use std::time::{Duration, Instant};

use brook::{args, Program, Runtime, Stream};
use brook_bench_kit::rounds::rounds;
use brook_bench_kit::stats::median;
use brook_bench_kit::{check, Tolerance};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::app::{Env, Flavor, Scale};
use crate::error::AppError;
use crate::glkit::{self, Draw, Shader, Texture};
use crate::measure::Ratio;
use crate::report::figure::{color, powers, save, Figure, Format, FONT};
use crate::report::ratio_text;
use crate::synthetic::{mad_kernel, mad_reference, FLOPS_PER_ELEMENT, TOLERANCE};

/// One stream length and what was measured there.
#[derive(Clone, Debug)]
pub struct Point {
    /// The stream length (elements).
    pub elements: usize,
    /// The median time per call of each flavour that passed its check.
    pub per_call: Vec<(Flavor, Duration)>,
    /// Each Brook flavour's time over hand-written GL's, from the rounds both ran in.
    pub versus_hand_gl: Vec<(Flavor, Ratio)>,
    /// The flavours whose checked call failed or gave a wrong result, with why: not timed.
    pub failures: Vec<(Flavor, String)>,
}

/// The flavours swept, in the table's and the plot's order.
const FLAVORS: [Flavor; 3] = [Flavor::HandGl, Flavor::BrookGl, Flavor::BrookCpu];

/// Square streams of 1, 4, 16, … elements (2048² at full scale, 512² quick).
fn sides(scale: Scale) -> Vec<usize> {
    let top = scale.pick(2048, 512, 4);
    std::iter::successors(Some(1usize), |s| Some(s * 2))
        .take_while(|s| *s <= top)
        .collect()
}

/// The input at `side`: every float different within [0, 1), so that a misplaced or skipped
/// element shows in the check.
fn input(side: usize) -> Vec<f32> {
    (0..side * side * 4)
        .map(|i| (i % 251) as f32 / 251.0)
        .collect()
}

/// Measures every size: checks each flavour's first call, then times batches of calls in
/// rotated rounds (at least one call per batch, `per_size` per flavour in all), each call
/// reading the previous one's result so that no draw can be skipped. Before each size,
/// `progress` hears how many sizes are done and how many there are.
pub fn sweep(
    env: &Env,
    scale: Scale,
    per_size: Duration,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<Point>, AppError> {
    let (brook_source, hand_source) = mad_kernel();
    let hand = Shader::fragment(&env.context, &hand_source)?;
    // 15 rounds give a 95% interval from the 4th to the 12th ratio, 9 from the 2nd to the 8th.
    let round_count = scale.pick(15, 9, 6);
    let sides = sides(scale);
    let mut points = Vec::new();
    for (done, &side) in sides.iter().enumerate() {
        progress(done, sides.len());
        let input = input(side);
        let expected = mad_reference(&input);
        let hand_calls: Box<dyn Calls + '_> = Box::new(HandCalls::new(env, &hand, side, &input)?);
        let mut flavors = vec![(Flavor::HandGl, hand_calls)];
        for flavor in [Flavor::BrookGl, Flavor::BrookCpu] {
            let calls = BrookCalls::new(env.runtime(flavor), &brook_source, side, &input)?;
            flavors.push((flavor, Box::new(calls) as Box<dyn Calls + '_>));
        }
        let mut failures = Vec::new();
        flavors.retain_mut(|(flavor, calls)| {
            let checked = calls
                .call()
                .and_then(|()| calls.result())
                .map_err(|e| format!("{flavor}: {e}"))
                .and_then(|got| {
                    check(
                        flavor.label(),
                        &got,
                        &expected,
                        Tolerance::Relative(TOLERANCE),
                    )
                });
            checked.map_err(|e| failures.push((*flavor, e))).is_ok()
        });
        let (per_call, versus_hand_gl) = time(env, &mut flavors, per_size, round_count)?;
        points.push(Point {
            elements: side * side,
            per_call,
            versus_hand_gl,
            failures,
        });
    }
    Ok(points)
}

/// Times `flavors` in `round_count` rotated rounds of equal batches, sized from the slowest
/// call so that each flavour gets about `budget`: the median time per call of each, and each
/// one's ratio to hand-written GL (when that is among them).
/// Each flavor's time per call, and each one's ratio to hand-written GL.
type Timed = (Vec<(Flavor, Duration)>, Vec<(Flavor, Ratio)>);

fn time(
    env: &Env,
    flavors: &mut [(Flavor, Box<dyn Calls + '_>)],
    budget: Duration,
    round_count: usize,
) -> Result<Timed, AppError> {
    let mut slowest = Duration::ZERO;
    for (_, calls) in flavors.iter_mut() {
        slowest = slowest.max(batch(env, calls.as_mut(), 1)?);
    }
    let calls_per_batch =
        (budget.as_secs_f64() / round_count as f64 / slowest.as_secs_f64().max(1e-9)) as u64;
    let mut failed = None;
    let seconds = rounds(
        flavors.len(),
        round_count,
        calls_per_batch.max(1),
        |v, n| {
            batch(env, flavors[v].1.as_mut(), n).unwrap_or_else(|e| {
                failed.get_or_insert(e);
                Duration::ZERO
            })
        },
    );
    if let Some(e) = failed {
        return Err(e);
    }
    let per_call = flavors
        .iter()
        .zip(&seconds)
        .map(|((flavor, _), s)| (*flavor, Duration::from_secs_f64(median(s))))
        .collect();
    let hand = flavors.iter().position(|(f, _)| *f == Flavor::HandGl);
    let versus_hand_gl = hand.map_or_else(Vec::new, |h| {
        flavors
            .iter()
            .zip(&seconds)
            .filter(|((flavor, _), _)| *flavor != Flavor::HandGl)
            .filter_map(|((flavor, _), s)| {
                let ratios: Vec<f64> = s.iter().zip(&seconds[h]).map(|(t, b)| t / b).collect();
                Some((*flavor, Ratio::of(&ratios)?))
            })
            .collect()
    });
    Ok((per_call, versus_hand_gl))
}

/// The time of `n` calls, waiting for the GPU before and after.
fn batch(env: &Env, calls: &mut dyn Calls, n: u64) -> Result<Duration, AppError> {
    glkit::finish(&env.context);
    let start = Instant::now();
    for _ in 0..n {
        calls.call()?;
    }
    glkit::finish(&env.context);
    Ok(start.elapsed())
}

/// One flavour's kernel calls at one size.
trait Calls {
    /// One call, reading the previous call's result (the input, before the first).
    fn call(&mut self) -> Result<(), AppError>;
    /// The last call's result, read back.
    fn result(&self) -> Result<Vec<f32>, AppError>;
}

/// Two buffers that calls read and write in turn, starting from the first.
struct PingPong<T> {
    buffers: [T; 2],
    flip: bool,
}

impl<T> PingPong<T> {
    fn new(buffers: [T; 2]) -> Self {
        PingPong {
            buffers,
            flip: false,
        }
    }

    /// The next call's source and destination.
    fn next(&mut self) -> (&T, &T) {
        let [a, b] = &self.buffers;
        let pair = if self.flip { (b, a) } else { (a, b) };
        self.flip = !self.flip;
        pair
    }

    /// What the last call wrote (the first buffer before any call).
    fn last(&self) -> &T {
        &self.buffers[usize::from(self.flip)]
    }
}

struct HandCalls<'a> {
    shader: &'a Shader,
    textures: PingPong<Texture>,
}

impl<'a> HandCalls<'a> {
    fn new(env: &Env, shader: &'a Shader, side: usize, input: &[f32]) -> Result<Self, AppError> {
        let texture = || glkit::texture(&env.context, side, side, 4, Some(input));
        Ok(HandCalls {
            shader,
            textures: PingPong::new([texture()?, texture()?]),
        })
    }
}

impl Calls for HandCalls<'_> {
    fn call(&mut self) -> Result<(), AppError> {
        let (src, dst) = self.textures.next();
        Draw {
            shader: self.shader,
            samplers: &[("a", src)],
            uniforms: &[],
            targets: &[dst],
            viewport: None,
        }
        .cover()
    }

    fn result(&self) -> Result<Vec<f32>, AppError> {
        glkit::read(self.textures.last())
    }
}

struct BrookCalls<'a> {
    rt: &'a Runtime,
    program: Program,
    streams: PingPong<Stream>,
}

impl<'a> BrookCalls<'a> {
    fn new(rt: &'a Runtime, source: &str, side: usize, input: &[f32]) -> Result<Self, AppError> {
        let streams = [
            rt.stream_of(4, &[side, side])?,
            rt.stream_of(4, &[side, side])?,
        ];
        streams[0].read(input)?;
        Ok(BrookCalls {
            rt,
            program: rt.compile(source, "mad.br")?,
            streams: PingPong::new(streams),
        })
    }
}

impl Calls for BrookCalls<'_> {
    fn call(&mut self) -> Result<(), AppError> {
        let (src, dst) = self.streams.next();
        self.rt.run(&self.program, "mad", args![src, dst])?;
        Ok(())
    }

    fn result(&self) -> Result<Vec<f32>, AppError> {
        Ok(self.streams.last().to_vec()?)
    }
}

/// The knee of `flavor`: the first length from which every call takes more than twice the
/// fastest of the first three lengths (one call on almost nothing: the fixed cost alone).
pub fn knee(points: &[Point], flavor: Flavor) -> Option<usize> {
    let time = |p: &Point| {
        p.per_call
            .iter()
            .find(|(f, _)| *f == flavor)
            .map(|(_, t)| *t)
    };
    let fixed = points.iter().take(3).filter_map(time).min()?;
    let above = |p: &Point| time(p).is_some_and(|t| t > fixed * 2);
    // The start of the run of lengths above the line that lasts to the largest one.
    let below = points.iter().rposition(|p| !above(p));
    let first = below.map_or(0, |i| i + 1);
    points.get(first).map(|p| p.elements)
}

/// The sweep as a text table, with each flavour's knee in elements and in flops.
pub fn table(points: &[Point]) -> String {
    let mut out = format!("{:>10}", "elements");
    for f in FLAVORS {
        out.push_str(&format!("  {:>16}", f.label()));
    }
    out.push_str("  GL / hand (95% interval)\n");
    for p in points {
        out.push_str(&format!("{:>10}", p.elements));
        for f in FLAVORS {
            let t = p.per_call.iter().find(|(g, _)| *g == f).map(|(_, t)| *t);
            out.push_str(&format!(
                "  {:>13.1} µs",
                t.map_or(f64::NAN, |t| t.as_secs_f64() * 1e6)
            ));
        }
        let gl = p.versus_hand_gl.iter().find(|(f, _)| *f == Flavor::BrookGl);
        if let Some((_, ratio)) = gl {
            out.push_str(&format!("  {}", ratio_text(ratio)));
        }
        out.push('\n');
    }
    for p in points {
        for (_, why) in &p.failures {
            out.push_str(&format!(
                "FAILED at {} elements, not timed: {why}\n",
                p.elements
            ));
        }
    }
    for f in FLAVORS {
        match knee(points, f) {
            Some(n) => out.push_str(&format!(
                "knee of {}: about {n} elements ({:.2} Mflop per call)\n",
                f.label(),
                (n * FLOPS_PER_ELEMENT) as f64 / 1e6
            )),
            None => out.push_str(&format!("knee of {}: beyond the largest size\n", f.label())),
        }
    }
    out
}

/// Writes the sweep as a log–log plot (PNG or SVG): time per call against elements, one line
/// per flavour, each knee marked.
pub fn plot(points: &[Point], title: &str, path: &Path, format: Format) -> Result<(), AppError> {
    save(&KneePlot { points, title }, path, format)
}

struct KneePlot<'a> {
    points: &'a [Point],
    title: &'a str,
}

impl Figure for KneePlot<'_> {
    fn size(&self) -> (u32, u32) {
        (1000, 520)
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        root.fill(&WHITE)?;
        let max_n = self.points.last().map_or(1, |p| p.elements).max(2) as f64;
        let times = self
            .points
            .iter()
            .flat_map(|p| p.per_call.iter().map(|(_, t)| t.as_secs_f64()));
        let (lo, hi) = decades(times);
        let mut chart = ChartBuilder::on(root)
            .caption(self.title, (FONT, 22))
            .margin(12)
            .margin_right(30)
            .x_label_area_size(50)
            .y_label_area_size(80)
            .build_cartesian_2d(
                // Padded a little so that rounding cannot push the end powers off the axes.
                (0.999..max_n * 1.001).log_scale().base(16.0),
                (lo * 0.999..hi * 1.001).log_scale(),
            )?;
        chart
            .configure_mesh()
            .x_labels(powers(1.0, max_n, 16.0).len())
            .y_labels(powers(lo, hi, 10.0).len())
            .x_desc("elements per call (log)")
            .y_desc("time per call (log)")
            .x_label_formatter(&|n| elements(*n))
            .y_label_formatter(&|t| seconds(*t))
            .label_style((FONT, 15))
            .axis_desc_style((FONT, 15))
            .draw()?;
        for flavor in FLAVORS {
            let line: Vec<(f64, f64)> = self
                .points
                .iter()
                .filter_map(|p| {
                    let (_, t) = p.per_call.iter().find(|(f, _)| *f == flavor)?;
                    Some((p.elements as f64, t.as_secs_f64()))
                })
                .collect();
            let stroke = color(flavor).stroke_width(2);
            chart
                .draw_series(LineSeries::new(line.iter().copied(), stroke))?
                .label(flavor.label())
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], stroke));
            chart.draw_series(
                line.iter()
                    .map(|&xy| Circle::new(xy, 3, color(flavor).filled())),
            )?;
            let knee_at = knee(self.points, flavor)
                .and_then(|n| line.iter().find(|(e, _)| *e == n as f64).copied());
            chart.draw_series(knee_at.map(|(n, t)| {
                EmptyElement::at((n, t))
                    + Rectangle::new([(-7, -7), (7, 7)], color(flavor).stroke_width(2))
            }))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .label_font((FONT, 15))
            .draw()?;
        root.draw(&Text::new(
            "squares: each flavour's knee",
            (100, 500),
            (FONT, 13),
        ))
    }
}

/// Powers of ten around every value.
fn decades(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::MAX, f64::MIN_POSITIVE);
    for v in values.filter(|v| *v > 0.0) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if lo > hi {
        return (1e-6, 1.0);
    }
    (
        10f64.powf(lo.log10().floor()),
        10f64.powf(hi.log10().ceil()),
    )
}

/// 1, 16, 256, 4K, 64K, 1M (the axis ticks are powers of 16).
fn elements(n: f64) -> String {
    if n >= 1048576.0 {
        format!("{}M", n / 1048576.0)
    } else if n >= 1024.0 {
        format!("{}K", n / 1024.0)
    } else {
        format!("{n}")
    }
}

fn seconds(s: f64) -> String {
    if s >= 1.0 {
        format!("{s} s")
    } else if s >= 1e-3 {
        format!("{} ms", (s * 1e3).round())
    } else {
        format!("{} µs", (s * 1e6).round())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::figure::tests::{assert_png, assert_svg};
    use crate::synthetic::MADS;

    fn points(micros: &[u64]) -> Vec<Point> {
        micros
            .iter()
            .enumerate()
            .map(|(i, us)| Point {
                elements: 4usize.pow(i as u32),
                per_call: vec![(Flavor::BrookGl, Duration::from_micros(*us))],
                versus_hand_gl: Vec::new(),
                failures: Vec::new(),
            })
            .collect()
    }

    #[test]
    fn the_kernels_and_the_reference_take_the_same_steps() {
        let (brook, hand) = mad_kernel();
        for source in [brook, hand] {
            assert_eq!(source.matches("x = x * 0.999 + 0.001;").count(), MADS);
        }
        // 43 steps toward 1: 1 − 0.999^43 of the way from 0.
        let r = mad_reference(&[0.0, 1.0]);
        assert!((r[0] - (1.0 - 0.999f64.powi(43))).abs() < 1e-6, "{r:?}");
        assert!((r[1] - 1.0).abs() < 1e-6, "{r:?}");
    }

    #[test]
    fn ping_pong_reads_what_the_last_call_wrote() {
        let mut p = PingPong::new(["a", "b"]);
        assert_eq!(*p.last(), "a", "the input before any call");
        assert_eq!(p.next(), (&"a", &"b"));
        assert_eq!(*p.last(), "b");
        assert_eq!(p.next(), (&"b", &"a"));
        assert_eq!(*p.last(), "a");
    }

    #[test]
    fn the_table_gives_each_ratio_with_its_interval_and_every_failure() {
        let mut p = points(&[30]);
        p[0].per_call
            .push((Flavor::HandGl, Duration::from_micros(20)));
        let ratio = Ratio::of(&[1.4, 1.5, 1.5, 1.5, 1.6, 1.5]).unwrap();
        p[0].versus_hand_gl.push((Flavor::BrookGl, ratio));
        p[0].failures
            .push((Flavor::BrookCpu, "Brook CPU gives a wrong result".into()));
        let table = table(&p);
        assert!(table.contains("1.50× [1.40, 1.60]"), "{table}");
        assert!(
            table.contains("FAILED at 1 elements, not timed: Brook CPU gives a wrong result"),
            "{table}"
        );
    }

    #[test]
    fn the_knee_is_where_calls_stay_above_twice_the_fixed_cost() {
        // Flat at ~20 µs, a noisy spike at 16 elements, then growth from 1024 on.
        let p = points(&[20, 22, 45, 21, 25, 60, 200, 800]);
        assert_eq!(knee(&p, Flavor::BrookGl), Some(1024));
        assert_eq!(knee(&points(&[20, 21, 22, 23]), Flavor::BrookGl), None);
        assert_eq!(knee(&p, Flavor::HandGl), None, "no figures, no knee");
    }

    #[test]
    fn the_knee_plot_is_written_as_png_and_svg_with_every_label() {
        let points: Vec<Point> = [20u64, 21, 22, 23, 80, 400]
            .iter()
            .enumerate()
            .map(|(i, us)| Point {
                elements: 16usize.pow(i as u32),
                per_call: FLAVORS
                    .iter()
                    .zip(1..)
                    .map(|(f, k)| (*f, Duration::from_micros(us * k)))
                    .collect(),
                versus_hand_gl: Vec::new(),
                failures: Vec::new(),
            })
            .collect();
        let dir = std::env::temp_dir().join(format!("brook-knee-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (png, svg) = (dir.join("knee.png"), dir.join("knee.svg"));
        plot(&points, "Knee on test", &png, Format::Png).unwrap();
        plot(&points, "Knee on test", &svg, Format::Svg).unwrap();
        assert_png(&png, (1000, 520));
        let mut labels: Vec<&str> = FLAVORS.iter().map(|f| f.label()).collect();
        labels.extend(["Knee on test", "elements per call", "1M", "10 µs", "1 ms"]);
        assert_svg(&svg, &labels);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
