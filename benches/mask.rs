//! Write masks (000 §7.4.2, Fig. 7.6): the 43-multiply-add kernel over a 1024×1024 float4
//! stream, masked at densities 0%, 10%, 50% and 100%, with a random mask (each element on
//! with that probability) and a tile-coherent one (32×32 tiles, each on with that
//! probability), against the same kernel unmasked. Brook-GL (the depth test) runs beside the
//! same masked draw written by hand in glow (a depth texture drawn by a mask pass, depth test
//! LESS, the triangle at depth 0.5) and, at two points, the CPU backend.
//!
//! The depth test pays off only where whole blocks of fragments fail it: llvmpipe shades in
//! blocks, so a random mask saves little and a coherent one saves about its off fraction.
//! Every variant ping-pongs (each call reads the previous call's result), because llvmpipe
//! skips draws whose output a later draw overwrites; each timed batch ends with glFinish.

mod common;

use std::time::Duration;

use brook::{Runtime, Stream};
use common::brook_kernel::BrookKernel;
use common::handwritten_kernel::{hand_time, HandKernel};
use common::handwritten_mask::HandMask;
use common::mad::mad_kernel;
use common::ratios::{human, median_ns, print_ratios};
use criterion::{BenchmarkId, Criterion, SamplingMode};

const SIDE: usize = 1024;
const TILE: usize = 32;
const DENSITIES: [u32; 4] = [0, 10, 50, 100];

const HAND: &str = "hand-written glow";
const GL: &str = "brook gl";
const CPU: &str = "brook cpu";
const UNMASKED: &str = "mask unmasked";

#[derive(Clone, Copy)]
enum Pattern {
    Random,
    Tiles,
}

impl Pattern {
    fn name(self) -> &'static str {
        match self {
            Pattern::Random => "random",
            Pattern::Tiles => "32x32 tiles",
        }
    }

    /// The mask (1.0 on, 0.0 off) at `percent` density, from a fixed LCG so both sides and
    /// every run see the same elements.
    fn mask(self, percent: u32) -> Vec<f32> {
        let mut x: u32 = 12345;
        let mut on = move || {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (x >> 8) % 100 < percent
        };
        match self {
            Pattern::Random => (0..SIDE * SIDE).map(|_| f32::from(on())).collect(),
            Pattern::Tiles => {
                let tiles = SIDE / TILE;
                let lit: Vec<bool> = (0..tiles * tiles).map(|_| on()).collect();
                (0..SIDE * SIDE)
                    .map(|i| f32::from(lit[(i / SIDE / TILE) * tiles + (i % SIDE) / TILE]))
                    .collect()
            }
        }
    }
}

fn group_name(pattern: Pattern, percent: u32) -> String {
    format!("mask {} {percent}%", pattern.name())
}

fn mask_stream(rt: &Runtime, data: &[f32]) -> Stream {
    let s = rt.stream_of(1, &[SIDE, SIDE]).unwrap();
    s.read(data).unwrap();
    s
}

/// One group: the hand-written and Brook-GL calls (and the CPU backend's when `cpu` is given)
/// under `mask` (`None`: unmasked).
fn group(c: &mut Criterion, name: &str, gl: &Runtime, cpu: Option<&Runtime>, mask: Option<&[f32]>) {
    let (brook_src, hand_src) = mad_kernel();
    let ctx = gl.gl_context().expect("a GL runtime").clone();
    ctx.make_current().unwrap();
    let data = common::brook_kernel::input(SIDE * SIDE);
    let mut hand = HandKernel::new(ctx.gl(), (SIDE, SIDE), &data, &[(hand_src, vec![0])], 1);
    let hand_mask = mask.map(|m| HandMask::new(ctx.gl(), (SIDE, SIDE), m));
    hand.set_mask(hand_mask.as_ref().map(HandMask::depth));
    let mut on_gl = BrookKernel::new(gl, &brook_src, "mad", &[SIDE, SIDE], 1);
    let mut group = c.benchmark_group(name);
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(2));
    group.bench_function(BenchmarkId::from_parameter(HAND), |b| {
        b.iter_custom(|i| hand_time(&ctx, &mut hand, i))
    });
    let masked = |rt: &Runtime| {
        if let Some(m) = mask {
            rt.set_write_mask(&mask_stream(rt, m)).unwrap();
            rt.enable_write_mask().unwrap();
        }
    };
    masked(gl);
    group.bench_function(BenchmarkId::from_parameter(GL), |b| {
        b.iter_custom(|i| on_gl.time(i))
    });
    gl.disable_write_mask().unwrap();
    if let Some(cpu) = cpu {
        let mut on_cpu = BrookKernel::new(cpu, &brook_src, "mad", &[SIDE, SIDE], 1);
        masked(cpu);
        group.bench_function(BenchmarkId::from_parameter(CPU), |b| {
            b.iter_custom(|i| on_cpu.time(i))
        });
        cpu.disable_write_mask().unwrap();
    }
    group.finish();
}

/// Fig. 7.6 as a table: time per call at each density and pattern, as a fraction of the
/// unmasked call on the same side, and Brook-GL against the hand-written draw.
fn print_table(groups: &[(Pattern, u32, String)]) {
    let (Some(hand_base), Some(gl_base)) = (median_ns(UNMASKED, HAND), median_ns(UNMASKED, GL))
    else {
        println!("(no saved estimate for {UNMASKED}: table skipped)");
        return;
    };
    println!("\n43-MAD kernel, 1024×1024 float4, masked: median time per call");
    println!(
        "  {:<12} {:>7}  {:>12}  {:>12}  {:>10}  {:>10}  {:>10}",
        "mask", "density", HAND, GL, "hand/unm.", "gl/unm.", "gl/hand"
    );
    println!(
        "  {:<12} {:>7}  {:>12}  {:>12}  {:>9.3}×  {:>9.3}×  {:>9.3}×",
        "unmasked",
        "",
        human(hand_base),
        human(gl_base),
        1.0,
        1.0,
        gl_base / hand_base
    );
    for (pattern, percent, group) in groups {
        let (Some(hand), Some(gl)) = (median_ns(group, HAND), median_ns(group, GL)) else {
            continue;
        };
        println!(
            "  {:<12} {:>6}%  {:>12}  {:>12}  {:>9.3}×  {:>9.3}×  {:>9.3}×",
            pattern.name(),
            percent,
            human(hand),
            human(gl),
            hand / hand_base,
            gl / gl_base,
            gl / hand
        );
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let gl = Runtime::gl().expect("a headless GL context");
    let cpu = Runtime::cpu();
    group(&mut c, UNMASKED, &gl, Some(&cpu), None);
    let mut groups = Vec::new();
    for pattern in [Pattern::Random, Pattern::Tiles] {
        for percent in DENSITIES {
            let name = group_name(pattern, percent);
            let with_cpu = matches!(pattern, Pattern::Random) && percent == 50;
            let mask = pattern.mask(percent);
            group(&mut c, &name, &gl, with_cpu.then_some(&cpu), Some(&mask));
            groups.push((pattern, percent, name));
        }
    }
    c.final_summary();
    print_ratios(UNMASKED, HAND, &[HAND, GL, CPU], "per call");
    let with_cpu = group_name(Pattern::Random, 50);
    print_ratios(&with_cpu, HAND, &[HAND, GL, CPU], "per call");
    print_table(&groups);
}
