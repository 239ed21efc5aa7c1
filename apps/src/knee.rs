//! The kernel-call knee (001 Fig. 4): the time of one call of the synthetic 43-MAD kernel
//! against the number of elements, hand-written GL, Brook GL and Brook CPU side by side. Below
//! the knee the fixed cost of issuing a call dominates; above it the elements do.

use std::path::Path;
use std::time::{Duration, Instant};

use brook::{args, Program, Runtime, Stream};

use crate::app::{Env, Flavor, Scale};
use crate::error::AppError;
use crate::glkit::{self, Draw, Shader, Texture};
use crate::report::canvas::{log_position, Canvas, Color, GRID, INK};
use crate::synthetic::{mad_kernel, FLOPS_PER_ELEMENT};

/// One stream length and the time per call of each flavour measured there.
#[derive(Clone, Debug)]
pub struct Point {
    pub elements: usize,
    pub per_call: Vec<(Flavor, Duration)>,
}

/// Square streams of 1, 4, 16, … elements (2048² at full scale, 512² quick).
fn sides(scale: Scale) -> Vec<usize> {
    let top = scale.pick(2048, 512, 4);
    std::iter::successors(Some(1usize), |s| Some(s * 2))
        .take_while(|s| *s <= top)
        .collect()
}

/// Measures every size; each flavour repeats calls for `per_size` (at least 3 calls), each
/// call reading the previous one's result so that no draw can be skipped.
pub fn sweep(env: &Env, scale: Scale, per_size: Duration) -> Result<Vec<Point>, AppError> {
    let (brook_source, hand_source) = mad_kernel();
    let hand = Shader::fragment(&env.context, &hand_source)?;
    let mut points = Vec::new();
    for side in sides(scale) {
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
    let flavors = [Flavor::HandGl, Flavor::BrookGl, Flavor::BrookCpu];
    let mut out = format!("{:>10}", "elements");
    for f in flavors {
        out.push_str(&format!("  {:>16}", f.label()));
    }
    out.push_str(&format!("  {:>10}\n", "GL / hand"));
    for p in points {
        out.push_str(&format!("{:>10}", p.elements));
        let mut times = Vec::new();
        for f in flavors {
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
    for f in flavors {
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

const LINES: [(Flavor, Color); 3] = [
    (Flavor::HandGl, [90, 90, 90]),
    (Flavor::BrookGl, [31, 119, 180]),
    (Flavor::BrookCpu, [255, 127, 14]),
];

/// The sweep as a log–log plot (PNG): time per call against elements, one line per flavour.
pub fn plot(points: &[Point], title: &str, path: &Path) -> Result<(), AppError> {
    let (left, right, top, bottom) = (90, 960, 50, 420);
    let mut canvas = Canvas::new(1000, 480);
    canvas.text(10, 10, title, 2, INK);
    let max_n = points.last().map_or(1, |p| p.elements).max(2) as f64;
    let times = points
        .iter()
        .flat_map(|p| p.per_call.iter().map(|(_, t)| t.as_secs_f64()));
    let (lo, hi) = decades(times);
    let x_of = |n: f64| log_position(n, 1.0, max_n, left, right);
    let y_of = |t: f64| log_position(t, lo, hi, bottom, top);
    let mut decade = lo;
    while decade <= hi * 1.0001 {
        let y = y_of(decade);
        canvas.line((left, y), (right, y), 1, GRID);
        canvas.text(4, y - 4, &seconds(decade), 1, INK);
        decade *= 10.0;
    }
    let mut n = 1.0;
    while n <= max_n {
        let x = x_of(n);
        canvas.line((x, top), (x, bottom), 1, GRID);
        let label = if n >= 1e6 {
            format!("{}M", n / 1048576.0)
        } else if n >= 1e3 {
            format!("{}K", n / 1024.0)
        } else {
            format!("{n}")
        };
        canvas.text(
            x - Canvas::text_width(&label, 1) / 2,
            bottom + 6,
            &label,
            1,
            INK,
        );
        n *= 16.0;
    }
    canvas.text(
        left,
        bottom + 22,
        "elements per call (log)   vs   time per call (log)",
        1,
        INK,
    );
    for (flavor, color) in LINES {
        let line: Vec<(i64, i64)> = points
            .iter()
            .filter_map(|p| {
                let (_, t) = p.per_call.iter().find(|(f, _)| *f == flavor)?;
                Some((x_of(p.elements as f64), y_of(t.as_secs_f64())))
            })
            .collect();
        for pair in line.windows(2) {
            canvas.line(pair[0], pair[1], 2, color);
        }
        if let Some(n) = knee(points, flavor) {
            let x = x_of(n as f64);
            canvas.rect(x - 3, bottom - 3, x + 3, bottom + 3, color);
        }
    }
    let mut x = left;
    for (flavor, color) in LINES {
        canvas.rect(x, bottom + 40, x + 10, bottom + 50, color);
        canvas.text(x + 14, bottom + 41, flavor.label(), 1, INK);
        x += 30 + Canvas::text_width(flavor.label(), 1);
    }
    canvas.text(x + 10, bottom + 41, "(squares: knees)", 1, INK);
    canvas.save(path)
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

fn seconds(s: f64) -> String {
    if s >= 1.0 {
        format!("{s} s")
    } else if s >= 1e-3 {
        format!("{} ms", s * 1e3)
    } else {
        format!("{} us", (s * 1e6).round())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
