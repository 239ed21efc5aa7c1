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
//! Each variant's first call is checked (on elements computed, off elements kept) first.

mod common;

use std::cell::RefCell;

use brook::{Runtime, Stream};
use brook_bench_kit::{human, Comparison, Table, Tolerance, Variant};
use common::brook_kernel::BrookKernel;
use common::handwritten_kernel::{hand_time, HandKernel};
use common::handwritten_mask::HandMask;
use common::mad::mad_kernel;
use criterion::Criterion;

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

/// What one call gives: the 43-MAD result where the mask is on, the input where it is off.
fn reference(data: &[f32], mask: Option<&[f32]>) -> Vec<f64> {
    let (m, c) = (f64::from(0.999f32), f64::from(0.001f32));
    data.iter()
        .enumerate()
        .map(|(i, &v)| {
            let on = mask.is_none_or(|mask| mask[i / 4] != 0.0);
            let mad = (0..common::mad::MADS).fold(f64::from(v), |x, _| x * m + c);
            if on {
                mad
            } else {
                f64::from(v)
            }
        })
        .collect()
}

/// One comparison: the hand-written and Brook-GL calls (and the CPU backend's when `cpu` is
/// given) under `mask` (`None`: unmasked), each checked after one call.
fn group(
    c: &mut Criterion,
    name: &str,
    gl: &Runtime,
    cpu: Option<&Runtime>,
    mask: Option<&[f32]>,
) -> Table {
    let (brook_src, hand_src) = mad_kernel();
    let ctx = gl.gl_context().expect("a GL runtime").clone();
    ctx.make_current().unwrap();
    let data = common::brook_kernel::input(SIDE * SIDE);
    let mut hand = HandKernel::new(ctx.gl(), (SIDE, SIDE), &data, &[(hand_src, vec![0])], 1);
    let hand_mask = mask.map(|m| HandMask::new(ctx.gl(), (SIDE, SIDE), m));
    hand.set_mask(hand_mask.as_ref().map(HandMask::depth));
    let hand = RefCell::new(hand);
    let masked = |rt: &Runtime| {
        if let Some(m) = mask {
            rt.set_write_mask(&mask_stream(rt, m)).unwrap();
            rt.enable_write_mask().unwrap();
        }
    };
    let on_gl = RefCell::new(BrookKernel::new(gl, &brook_src, "mad", &[SIDE, SIDE], 1));
    masked(gl);
    let on_cpu = cpu.map(|cpu| {
        masked(cpu);
        RefCell::new(BrookKernel::new(cpu, &brook_src, "mad", &[SIDE, SIDE], 1))
    });
    // As in the kernels bench: 43 multiply-adds, at most 86 roundings, none amplified.
    let tolerance = Tolerance::Relative(86.0 * f64::from(f32::EPSILON));
    let mut comparison = Comparison::new(name, "per call", 1, reference(&data, mask), tolerance)
        .variant(Variant::new(
            HAND,
            |n| {
                hand_time(&ctx, &mut hand.borrow_mut(), n);
            },
            || {
                ctx.make_current().unwrap();
                hand.borrow().result()
            },
        ))
        .variant(Variant::new(
            GL,
            |n| {
                on_gl.borrow_mut().time(n);
            },
            || on_gl.borrow().result(),
        ));
    if let Some(on_cpu) = &on_cpu {
        comparison = comparison.variant(Variant::new(
            CPU,
            |n| {
                on_cpu.borrow_mut().time(n);
            },
            || on_cpu.borrow().result(),
        ));
    }
    let table = comparison.run(c);
    gl.disable_write_mask().unwrap();
    if let Some(cpu) = cpu {
        cpu.disable_write_mask().unwrap();
    }
    table
}

/// Fig. 7.6 as a table: time per call at each density and pattern, as a fraction of the
/// unmasked call on the same side, and Brook-GL against the hand-written draw (the median of
/// per-round ratios, with its interval).
fn print_table(unmasked: &Table, groups: &[(Pattern, u32, Table)]) {
    let (Some(hand_base), Some(gl_base)) = (unmasked.row(HAND), unmasked.row(GL)) else {
        return;
    };
    println!("\n43-MAD kernel, 1024×1024 float4, masked: median time per call");
    println!(
        "  {:<12} {:>7}  {:>12}  {:>12}  {:>10}  {:>10}  {:>10}  {:>16}",
        "mask", "density", HAND, GL, "hand/unm.", "gl/unm.", "gl/hand", "95% interval"
    );
    let rows = std::iter::once(("unmasked", String::new(), unmasked)).chain(
        groups
            .iter()
            .map(|(p, percent, t)| (p.name(), format!("{percent}%"), t)),
    );
    for (pattern, density, table) in rows {
        let (Some(hand), Some(gl)) = (table.row(HAND), table.row(GL)) else {
            continue;
        };
        println!(
            "  {:<12} {:>7}  {:>12}  {:>12}  {:>9.3}×  {:>9.3}×  {:>9.3}×  [{:.3}, {:.3}] {}",
            pattern,
            density,
            human(hand.median * 1e9),
            human(gl.median * 1e9),
            hand.median / hand_base.median,
            gl.median / gl_base.median,
            gl.ratio,
            gl.interval.0,
            gl.interval.1,
            gl.verdict()
        );
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let gl = Runtime::gl().expect("a headless GL context");
    let cpu = Runtime::cpu();
    let unmasked = group(&mut c, UNMASKED, &gl, Some(&cpu), None);
    let mut groups = Vec::new();
    for pattern in [Pattern::Random, Pattern::Tiles] {
        for percent in DENSITIES {
            let name = group_name(pattern, percent);
            let with_cpu = matches!(pattern, Pattern::Random) && percent == 50;
            let mask = pattern.mask(percent);
            let table = group(&mut c, &name, &gl, with_cpu.then_some(&cpu), Some(&mask));
            groups.push((pattern, percent, table));
        }
    }
    c.final_summary();
    print_table(&unmasked, &groups);
}
