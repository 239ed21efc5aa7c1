//! Kernel calls on the GL pipeline against the same shaders written by hand in glow, in one run:
//!
//! * the paper's synthetic kernel (000 §6.1.2): 43 multiply-adds per element on one float4
//!   read, over streams of 1 to 4M elements — the time per call, and the *knee*, the size
//!   below which the fixed cost of a call dominates (the CPU backend runs the small sizes);
//! * a kernel with 8 float4 outputs, unsplit, split at 4 outputs per pass (2 passes) and at 1
//!   (8 passes), each against a hand-written version split the same way.
//!
//! Every variant ping-pongs (each call reads the previous call's result), because llvmpipe
//! skips draws whose output a later draw overwrites; each timed batch ends with glFinish.

mod common;

use std::time::Duration;

use brook::{ContextOptions, Runtime};
use common::brook_kernel::{input, BrookKernel};
use common::handwritten_kernel::{hand_time, HandKernel};
use common::mad::{mad_kernel, GLSL_HEADER};
use common::ratios::{human, median_ns, print_ratios};
use criterion::{BenchmarkId, Criterion};

/// Output `k` of the 8-output kernel.
fn eight_value(k: usize) -> String {
    format!("a * {}.5 + {k}.0", k + 1)
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

fn mad_group(c: &mut Criterion, gl: &Runtime, cpu: &Runtime, (h, w): (usize, usize)) -> String {
    let n = h * w;
    let name = format!("mad43 {n} elements");
    let (brook_src, hand_src) = mad_kernel();
    let ctx = gl.gl_context().expect("a GL runtime").clone();
    ctx.make_current().unwrap();
    let mut hand = HandKernel::new(ctx.gl(), (w, h), &input(n), &[(hand_src, vec![0])], 1);
    let mut on_gl = BrookKernel::new(gl, &brook_src, "mad", &[h, w], 1);
    let mut group = c.benchmark_group(&name);
    let big = n >= 1 << 20;
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(if big { 200 } else { 300 }))
        .measurement_time(Duration::from_secs(if big { 4 } else { 1 }));
    group.bench_function(BenchmarkId::from_parameter(HAND), |b| {
        b.iter_custom(|i| hand_time(&ctx, &mut hand, i))
    });
    group.bench_function(BenchmarkId::from_parameter(GL), |b| {
        b.iter_custom(|i| on_gl.time(i))
    });
    // The interpreter is the reference, not a contender: small sizes only.
    if n <= 4096 {
        let mut on_cpu = BrookKernel::new(cpu, &brook_src, "mad", &[h, w], 1);
        group.bench_function(BenchmarkId::from_parameter(CPU), |b| {
            b.iter_custom(|i| on_cpu.time(i))
        });
    }
    group.finish();
    name
}

fn split_group(c: &mut Criterion, per_pass: u32) -> String {
    let name = format!("8 outputs, {per_pass} per pass");
    let gl = Runtime::gl_with(ContextOptions {
        max_draw_buffers: Some(per_pass),
        ..ContextOptions::default()
    })
    .expect("a headless GL context");
    let (h, w) = (1024, 1024);
    let ctx = gl.gl_context().unwrap().clone();
    ctx.make_current().unwrap();
    let mut hand = HandKernel::new(
        ctx.gl(),
        (w, h),
        &input(h * w),
        &eight_hand(per_pass as usize),
        8,
    );
    let mut on_gl = BrookKernel::new(&gl, &eight_brook(), "eight", &[h, w], 8);
    let mut group = c.benchmark_group(&name);
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(3));
    group.bench_function(BenchmarkId::from_parameter(HAND), |b| {
        b.iter_custom(|i| hand_time(&ctx, &mut hand, i))
    });
    group.bench_function(BenchmarkId::from_parameter(GL), |b| {
        b.iter_custom(|i| on_gl.time(i))
    });
    group.finish();
    name
}

/// The sweep as one table, and the knee: the first size whose call takes twice the time of a
/// one-element call, i.e. where the elements start to cost more than the call itself.
fn print_sweep(groups: &[String]) {
    println!("\n43-MAD kernel: median time per call");
    println!(
        "  {:>10}  {:>12}  {:>12}  {:>7}  {:>14}",
        "elements", HAND, GL, "ratio", "gl ns/element"
    );
    let mut base = None;
    let mut knee = None;
    for (group, (h, w)) in groups.iter().zip(SIZES) {
        let (Some(hand), Some(gl)) = (median_ns(group, HAND), median_ns(group, GL)) else {
            continue;
        };
        let n = h * w;
        let first = *base.get_or_insert(gl);
        if knee.is_none() && gl > 2.0 * first {
            knee = Some(n);
        }
        println!(
            "  {n:>10}  {:>12}  {:>12}  {:>6.3}×  {:>14.3}",
            human(hand),
            human(gl),
            gl / hand,
            gl / n as f64
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
    let cpu = Runtime::cpu();
    let sweep: Vec<String> = SIZES
        .iter()
        .map(|size| mad_group(&mut c, &gl, &cpu, *size))
        .collect();
    let splits: Vec<String> = [8, 4, 1].iter().map(|p| split_group(&mut c, *p)).collect();
    c.final_summary();
    for group in &sweep {
        print_ratios(group, HAND, &[HAND, GL, CPU], "per call");
    }
    print_sweep(&sweep);
    for group in &splits {
        print_ratios(group, HAND, &[HAND, GL], "per call");
    }
    if let (Some(whole), Some(split)) = (median_ns(&splits[0], GL), median_ns(&splits[2], GL)) {
        println!(
            "\n8 outputs on brook gl: 8 passes take {:.2}× one pass",
            split / whole
        );
    }
}
