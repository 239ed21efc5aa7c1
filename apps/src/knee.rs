//! The kernel-call knee (001 Fig. 4): the time of one call of the synthetic 43-MAD kernel
//! against the number of elements, hand-written GL, Brook GL and Brook CPU side by side. Below
//! the knee the fixed cost of issuing a call dominates; above it the elements do.

use std::path::Path;
use std::time::{Duration, Instant};

use brook::{args, Program, Runtime, Stream};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::app::{Env, Flavor, Scale};
use crate::error::AppError;
use crate::glkit::{self, Draw, Shader, Texture};
use crate::report::figure::{color, powers, save, Figure, Format, FONT};
use crate::synthetic::{mad_kernel, FLOPS_PER_ELEMENT};

/// One stream length and the time per call of each flavour measured there.
#[derive(Clone, Debug)]
pub struct Point {
    pub elements: usize,
    pub per_call: Vec<(Flavor, Duration)>,
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

/// Measures every size; each flavour repeats calls for `per_size` (at least 3 calls), each
/// call reading the previous one's result so that no draw can be skipped. Before each size,
/// `progress` hears how many sizes are done and how many there are.
pub fn sweep(
    env: &Env,
    scale: Scale,
    per_size: Duration,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<Point>, AppError> {
    let (brook_source, hand_source) = mad_kernel();
    let hand = Shader::fragment(&env.context, &hand_source)?;
    let sides = sides(scale);
    let mut points = Vec::new();
    for (done, &side) in sides.iter().enumerate() {
        progress(done, sides.len());
        let mut per_call = Vec::new();
        let mut hand_calls = HandCalls::new(env, &hand, side)?;
        per_call.push((Flavor::HandGl, repeat(per_size, || hand_calls.call(), env)?));
        for flavor in [Flavor::BrookGl, Flavor::BrookCpu] {
            let rt = env.runtime(flavor);
            let mut calls = BrookCalls::new(rt, &brook_source, side)?;
            per_call.push((flavor, repeat(per_size, || calls.call(), env)?));
        }
        points.push(Point {
            elements: side * side,
            per_call,
        });
    }
    Ok(points)
}

/// Time per call over `budget`, waiting for the GPU before and after.
fn repeat(
    budget: Duration,
    mut call: impl FnMut() -> Result<(), AppError>,
    env: &Env,
) -> Result<Duration, AppError> {
    call()?; // compiles and warms up
    glkit::finish(&env.context);
    let start = Instant::now();
    let mut calls = 0u32;
    while calls < 3 || start.elapsed() < budget {
        call()?;
        calls += 1;
    }
    glkit::finish(&env.context);
    Ok(start.elapsed() / calls)
}

struct HandCalls<'a> {
    shader: &'a Shader,
    textures: [Texture; 2],
    flip: bool,
}

impl<'a> HandCalls<'a> {
    fn new(env: &Env, shader: &'a Shader, side: usize) -> Result<Self, AppError> {
        let data = vec![0.5f32; side * side * 4];
        Ok(HandCalls {
            shader,
            textures: [
                glkit::texture(&env.context, side, side, 4, Some(&data))?,
                glkit::texture(&env.context, side, side, 4, Some(&data))?,
            ],
            flip: false,
        })
    }

    fn call(&mut self) -> Result<(), AppError> {
        let [a, b] = &self.textures;
        let (src, dst) = if self.flip { (b, a) } else { (a, b) };
        self.flip = !self.flip;
        Draw {
            shader: self.shader,
            samplers: &[("a", src)],
            uniforms: &[],
            targets: &[dst],
            viewport: None,
        }
        .cover()
    }
}

struct BrookCalls<'a> {
    rt: &'a Runtime,
    program: Program,
    streams: [Stream; 2],
    flip: bool,
}

impl<'a> BrookCalls<'a> {
    fn new(rt: &'a Runtime, source: &str, side: usize) -> Result<Self, AppError> {
        let streams = [
            rt.stream_of(4, &[side, side])?,
            rt.stream_of(4, &[side, side])?,
        ];
        streams[0].read(&vec![0.5f32; side * side * 4])?;
        Ok(BrookCalls {
            rt,
            program: rt.compile(source, "mad.br")?,
            streams,
            flip: false,
        })
    }

    fn call(&mut self) -> Result<(), AppError> {
        let [a, b] = &self.streams;
        let (src, dst) = if self.flip { (b, a) } else { (a, b) };
        self.flip = !self.flip;
        self.rt.run(&self.program, "mad", args![src, dst])?;
        Ok(())
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
    out.push_str(&format!("  {:>10}\n", "GL / hand"));
    for p in points {
        out.push_str(&format!("{:>10}", p.elements));
        let mut times = Vec::new();
        for f in FLAVORS {
            let t = p.per_call.iter().find(|(g, _)| *g == f).map(|(_, t)| *t);
            times.push(t);
            out.push_str(&format!(
                "  {:>13.1} µs",
                t.map_or(f64::NAN, |t| t.as_secs_f64() * 1e6)
            ));
        }
        if let (Some(h), Some(g)) = (times[0], times[1]) {
            out.push_str(&format!("  {:>9.2}×", g.as_secs_f64() / h.as_secs_f64()));
        }
        out.push('\n');
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

    fn points(micros: &[u64]) -> Vec<Point> {
        micros
            .iter()
            .enumerate()
            .map(|(i, us)| Point {
                elements: 4usize.pow(i as u32),
                per_call: vec![(Flavor::BrookGl, Duration::from_micros(*us))],
            })
            .collect()
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
