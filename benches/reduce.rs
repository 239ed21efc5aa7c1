//! The paper's reduction benchmark (000 §5.4): the sum of 2^20 `float4` (a 1024×1024 stream)
//! to one value, by Brook-GL, by the same k-way passes written by hand in glow on the same
//! context, by Brook-wgpu (a workgroup tree), by the CPU backend and by a plain Rust loop, in
//! one run; then the plan's passes and reads against the paper's unrolled parallel reduction,
//! n + n/(k−1) reads.
//!
//! Every variant ends by reading its result back, which also waits for the GPU work; each is
//! checked bit for bit (the data make every order of summation exact) before it is timed.

mod common;

use std::time::Duration;

use brook::ReducePlan;
use brook::{args, Runtime};
use brook_bench_kit::{Comparison, Tolerance, Variant};
use common::handwritten_reduce::HandReduce;
use criterion::Criterion;

const SUM: &str = "reduce void sum(float4 a<>, reduce float4 r<>) { r += a; }";
const SIDE: usize = 1024;
const GROUP: &str = "sum of 1024x1024 float4";

/// Small integers: every partial sum is exact, so all variants must agree bit for bit.
fn data() -> Vec<f32> {
    (0..SIDE * SIDE * 4).map(|i| (i % 7) as f32).collect()
}

fn brook_sum(rt: &Runtime, input: &brook::Stream, program: &brook::Program) -> Vec<f32> {
    rt.reduce_to_value(program, "sum", input, args![]).unwrap()
}

fn rust_sum(data: &[f32]) -> [f32; 4] {
    let mut acc = [0.0f32; 4];
    for e in data.chunks_exact(4) {
        for c in 0..4 {
            acc[c] += e[c];
        }
    }
    acc
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let data = data();
    let shape = [SIDE, SIDE];
    let gl = Runtime::gl().expect("a headless GL context");
    let cpu = Runtime::cpu();
    let wgpu = Runtime::wgpu().expect("a wgpu adapter (lavapipe)");
    let on = |rt: &Runtime| {
        let program = rt.compile(SUM, "sum.br").unwrap();
        let input = rt.stream_of(4, &shape).unwrap();
        input.read(&data).unwrap();
        (program, input)
    };
    let (gl_program, gl_input) = on(&gl);
    let (cpu_program, cpu_input) = on(&cpu);
    let (wgpu_program, wgpu_input) = on(&wgpu);
    let plan = ReducePlan::new(&shape, &[]).unwrap();
    let steps: Vec<(usize, &str)> = plan
        .passes
        .iter()
        .map(|p| (p.k, if p.dim == 1 { "x" } else { "y" }))
        .collect();
    let ctx = gl.gl_context().expect("a GL runtime").clone();
    let hand = HandReduce::new(ctx.gl(), SIDE, SIDE, &data, &steps);
    // Small integers: every partial sum is exact in any order.
    let expected: Vec<f64> = rust_sum(&data).iter().map(|&v| f64::from(v)).collect();
    Comparison::new(GROUP, "per reduction", 1, expected, Tolerance::Exact)
        .measurement_time(Duration::from_secs(3))
        .variant(Variant::returning("hand-written glow", || {
            hand.sum().to_vec()
        }))
        .variant(Variant::returning("brook gl", || {
            brook_sum(&gl, &gl_input, &gl_program)
        }))
        .variant(Variant::returning("brook wgpu", || {
            brook_sum(&wgpu, &wgpu_input, &wgpu_program)
        }))
        .variant(Variant::returning("brook cpu", || {
            brook_sum(&cpu, &cpu_input, &cpu_program)
        }))
        .variant(Variant::returning("plain rust loop", || {
            rust_sum(std::hint::black_box(&data)).to_vec()
        }))
        .run(&mut c);
    c.final_summary();

    let n = (SIDE * SIDE) as f64;
    let bytes = |elements: usize| elements * 16;
    println!("\nplan of {GROUP} (the same passes for brook gl and hand-written glow):\n{plan}");
    println!(
        "reads: {} elements = {:.2} MiB; the paper's unrolled parallel reduction with k = 8: n + n/(k-1) = {:.0} elements = {:.2} MiB ({:+.3}%)",
        plan.elements_read(),
        bytes(plan.elements_read()) as f64 / (1 << 20) as f64,
        n + n / 7.0,
        (n + n / 7.0) * 16.0 / (1 << 20) as f64,
        (plan.elements_read() as f64 / (n + n / 7.0) - 1.0) * 100.0
    );
    println!(
        "passes: {} (log8 n = {:.2}); writes: {} elements (paper n/(k-1) = {:.0})",
        plan.passes.len(),
        n.log(8.0),
        plan.elements_written(),
        n / 7.0
    );
}
