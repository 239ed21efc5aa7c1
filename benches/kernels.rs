//! Kernel calls on the GL pipeline against the same shaders written by hand in glow, in one run:
//!
//! * the paper's synthetic kernel (000 §6.1.2): 43 multiply-adds per element on one float4
//!   read, over streams of 1 to 4M elements — the time per call, and the *knee*, the size
//!   below which the fixed cost of a call dominates — through Brook on GL, wgpu and the CPU;
//! * a kernel with 8 float4 outputs, unsplit, split at 4 outputs per pass (2 passes) and at 1
//!   (8 passes), each against a hand-written version split the same way.
//!
//! Every variant ping-pongs (each call reads the previous call's result), because llvmpipe
//! skips draws whose output a later draw overwrites; each timed batch ends with glFinish.
//! Every variant's first call is checked against an f64 reference before anything is timed,
//! all eight outputs of the split kernels included (so no pass can be skipped unnoticed).

mod common;

use std::cell::RefCell;
use std::time::Duration;

use brook::{ContextOptions, Runtime};
use brook_bench_kit::{human, Comparison, Table, Tolerance, Variant};
use common::brook_kernel::{input, BrookKernel};
use common::handwritten_kernel::{hand_time, HandKernel};
use common::mad::{mad_kernel, GLSL_HEADER};
use criterion::Criterion;

/// Output `k` of the 8-output kernel.
fn eight_value(k: usize) -> String {
    format!("a * {}.5 + {k}.0", k + 1)
}

/// What the 8-output kernel's first call gives, outputs in order.
fn eight_reference(a: &[f32]) -> Vec<f64> {
    (0..8)
        .flat_map(|k| {
            a.iter()
                .map(move |&v| f64::from(v) * (k as f64 + 1.5) + k as f64)
        })
        .collect()
}

/// What the 43-MAD kernel's first call gives: the GLSL constants are f32, so are these.
fn mad_reference(a: &[f32]) -> Vec<f64> {
    let (m, c) = (f64::from(0.999f32), f64::from(0.001f32));
    a.iter()
        .map(|&v| (0..common::mad::MADS).fold(f64::from(v), |x, _| x * m + c))
        .collect()
}

fn eight_brook() -> String {
    let params: Vec<String> = (0..8).map(|k| format!("out float4 o{k}<>")).collect();
    let body: String = (0..8)
        .map(|k| format!("    o{k} = {};\n", eight_value(k)))
        .collect();
    format!(
        "kernel void eight(float4 a<>, {}) {{\n{body}}}\n",
        params.join(", ")
    )
}

/// The hand-written 8-output kernel split into passes of `per_pass` outputs.
fn eight_hand(per_pass: usize) -> Vec<(String, Vec<usize>)> {
    (0..8)
        .collect::<Vec<_>>()
        .chunks(per_pass)
        .map(|outs| {
            let mut src = GLSL_HEADER.to_string();
            for (loc, k) in outs.iter().enumerate() {
                src.push_str(&format!("layout(location = {loc}) out vec4 o{k};\n"));
            }
            src.push_str("void main() {\n    vec4 a = texelFetch(a, ivec2(gl_FragCoord.xy), 0);\n");
            for k in outs {
                src.push_str(&format!("    o{k} = {};\n", eight_value(*k)));
            }
            src.push_str("}\n");
            (src, outs.to_vec())
        })
        .collect()
}

const HAND: &str = "hand-written glow";
const GL: &str = "brook gl";
const WGPU: &str = "brook wgpu";
const CPU: &str = "brook cpu";

/// Stream sizes of the 43-MAD sweep as 2D shapes (direct layouts on both sides).
const SIZES: [(usize, usize); 7] = [
    (1, 1),
    (4, 4),
    (16, 16),
    (64, 64),
    (256, 256),
    (1024, 1024),
    (2048, 2048),
];

/// A kernel compared as Brook source and hand-written passes: the Brook source, the kernel's
/// name, the hand-written passes (each GLSL body with the outputs it writes) and the number of
/// outputs.
type SplitKernel<'a> = (&'a str, &'static str, &'a [(String, Vec<usize>)], usize);

/// The hand-written kernel on `gl`'s context and Brook on each of `brooks` (named; GL first)
/// compared, each checked against `expected` after one call within `tolerance`.
fn compare(
    c: &mut Criterion,
    name: &str,
    brooks: &[(&'static str, &Runtime)],
    shape: (usize, usize),
    (brook_src, kernel, hand_passes, outputs): SplitKernel,
    expected: Vec<f64>,
    tolerance: Tolerance,
) -> Table {
    let (h, w) = shape;
    let gl = brooks[0].1;
    let ctx = gl.gl_context().expect("a GL runtime first").clone();
    ctx.make_current().unwrap();
    let hand = RefCell::new(HandKernel::new(
        ctx.gl(),
        (w, h),
        &input(h * w),
        hand_passes,
        outputs,
    ));
    let on: Vec<(&str, RefCell<BrookKernel>)> = brooks
        .iter()
        .map(|(name, rt)| {
            let kernel = BrookKernel::new(rt, brook_src, kernel, &[h, w], outputs);
            (*name, RefCell::new(kernel))
        })
        .collect();
    let big = h * w >= 1 << 20;
    let mut comparison = Comparison::new(name, "per call", 1, expected, tolerance)
        .measurement_time(Duration::from_secs(if big { 4 } else { 1 }))
        .variant(Variant::new(
            HAND,
            |n| {
                hand_time(&ctx, &mut hand.borrow_mut(), n);
            },
            || {
                ctx.make_current().unwrap();
                hand.borrow().result()
            },
        ));
    for (name, kernel) in &on {
        comparison = comparison.variant(Variant::new(
            *name,
            |n| {
                kernel.borrow_mut().time(n);
            },
            || kernel.borrow().result(),
        ));
    }
    comparison.run(c)
}

fn mad_group(
    c: &mut Criterion,
    brooks: &[(&'static str, &Runtime)],
    (h, w): (usize, usize),
) -> Table {
    let n = h * w;
    let (brook_src, hand_src) = mad_kernel();
    // 43 multiply-adds, each at most two f32 roundings (one if fused) of values below 1,
    // none amplified (the factor 0.999 shrinks earlier errors): 86 ε relative bounds them.
    compare(
        c,
        &format!("mad43 {n} elements"),
        brooks,
        (h, w),
        (&brook_src, "mad", &[(hand_src, vec![0])], 1),
        mad_reference(&input(n)),
        Tolerance::Relative(86.0 * f64::from(f32::EPSILON)),
    )
}

fn split_group(c: &mut Criterion, per_pass: u32) -> Table {
    let gl = Runtime::gl_with(ContextOptions {
        max_draw_buffers: Some(per_pass),
        ..ContextOptions::default()
    })
    .expect("a headless GL context");
    let (h, w) = (1024, 1024);
    // One multiply and one add per value: two roundings at most.
    compare(
        c,
        &format!("8 outputs, {per_pass} per pass"),
        &[(GL, &gl)],
        (h, w),
        (&eight_brook(), "eight", &eight_hand(per_pass as usize), 8),
        eight_reference(&input(h * w)),
        Tolerance::Relative(2.0 * f64::from(f32::EPSILON)),
    )
}

/// The sweep as one table, and the knee: the first size whose call takes twice the time of a
/// one-element call, i.e. where the elements start to cost more than the call itself.
fn print_sweep(tables: &[Table]) {
    if tables.iter().all(|t| t.rows.is_empty()) {
        return; // `--test`: checked, not timed
    }
    println!("\n43-MAD kernel: median time per call (rotated rounds)");
    println!(
        "  {:>10}  {:>12}  {:>12}  {:>7}  {:>16}  {:>14}",
        "elements", HAND, GL, "ratio", "95% interval", "gl ns/element"
    );
    let mut base = None;
    let mut knee = None;
    for (table, (h, w)) in tables.iter().zip(SIZES) {
        let (Some(hand), Some(gl)) = (table.row(HAND), table.row(GL)) else {
            continue;
        };
        let n = h * w;
        let first = *base.get_or_insert(gl.median);
        if knee.is_none() && gl.median > 2.0 * first {
            knee = Some(n);
        }
        println!(
            "  {n:>10}  {:>12}  {:>12}  {:>6.3}×  [{:.3}, {:.3}] {:>6}  {:>14.3}",
            human(hand.median * 1e9),
            human(gl.median * 1e9),
            gl.ratio,
            gl.interval.0,
            gl.interval.1,
            gl.verdict(),
            gl.median * 1e9 / n as f64
        );
    }
    match knee {
        Some(n) => {
            println!("  knee: calls on fewer than ~{n} elements cost about the same as on one")
        }
        None => println!("  knee: beyond the largest size"),
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let gl = Runtime::gl().expect("a headless GL context");
    let wgpu = Runtime::wgpu().expect("a wgpu adapter (lavapipe)");
    let cpu = Runtime::cpu();
    let brooks = [(GL, &gl), (WGPU, &wgpu), (CPU, &cpu)];
    let sweep: Vec<Table> = SIZES
        .iter()
        .map(|size| mad_group(&mut c, &brooks, *size))
        .collect();
    let splits: Vec<Table> = [8, 4, 1].iter().map(|p| split_group(&mut c, *p)).collect();
    c.final_summary();
    print_sweep(&sweep);
    if let (Some(whole), Some(split)) = (splits[0].row(GL), splits[2].row(GL)) {
        println!(
            "\n8 outputs on brook gl: 8 passes take {:.2}× one pass (medians of separate rounds)",
            split.median / whole.median
        );
    }
}
