//! SAXPY on 1024×1024 float4 (the paper's first application), and the per-call overhead of a
//! cached kernel on a tiny stream (the kernel-call "knee", 000 §6.1.2): Brook-GL against the
//! same work written by hand in glow, the CPU backend and a plain Rust loop, in one run.
//!
//! Every variant ping-pongs (each call reads the previous call's result), because llvmpipe
//! skips draws whose output a later draw overwrites, and each timed batch ends with glFinish.

mod common;

use std::time::{Duration, Instant};

use brook::{args, Runtime};
use common::handwritten_saxpy::HandSaxpy;
use common::ratios::print_ratios;
use criterion::{BenchmarkId, Criterion};

const SAXPY: &str = "kernel void saxpy(float a, float4 x<>, float4 y<>, out float4 result<>) {
    result = a * x + y;
}";
const A: f32 = 0.5;

fn inputs(n: usize) -> (Vec<f32>, Vec<f32>) {
    (
        (0..n * 4).map(|i| (i % 97) as f32 * 0.01).collect(),
        (0..n * 4).map(|i| (i % 89) as f32).collect(),
    )
}

/// Times `iters` Brook SAXPY calls on `rt`, ping-ponging between two result streams.
fn brook_saxpy(rt: &Runtime, shape: &[usize], iters: u64) -> Duration {
    let n: usize = shape.iter().product();
    let (x, y) = inputs(n);
    let program = rt.compile(SAXPY, "saxpy.br").unwrap();
    let streams = [
        rt.stream_of(4, shape).unwrap(),
        rt.stream_of(4, shape).unwrap(),
        rt.stream_of(4, shape).unwrap(),
    ];
    streams[0].read(&x).unwrap();
    streams[1].read(&y).unwrap();
    rt.run(
        &program,
        "saxpy",
        args![A, &streams[0], &streams[1], &streams[2]],
    )
    .unwrap();
    rt.finish();
    let start = Instant::now();
    for i in 0..iters {
        let (src, dst) = if i % 2 == 0 { (2, 1) } else { (1, 2) };
        rt.run(
            &program,
            "saxpy",
            args![A, &streams[0], &streams[src], &streams[dst]],
        )
        .unwrap();
    }
    rt.finish();
    start.elapsed()
}

fn hand_saxpy(rt: &Runtime, shape: &[usize], iters: u64) -> Duration {
    let ctx = rt.gl_context().expect("a GL runtime");
    let n: usize = shape.iter().product();
    let (x, y) = inputs(n);
    let (h, w) = if shape.len() == 2 {
        (shape[0], shape[1])
    } else {
        (1, shape[0])
    };
    let mut hand = HandSaxpy::new(ctx.gl(), w, h, &x, &y);
    hand.step(A);
    hand.finish();
    let start = Instant::now();
    for _ in 0..iters {
        hand.step(A);
    }
    hand.finish();
    start.elapsed()
}

fn rust_saxpy(n: usize, iters: u64) -> Duration {
    let (x, mut y) = inputs(n);
    let start = Instant::now();
    for _ in 0..iters {
        for (yi, xi) in y.iter_mut().zip(&x) {
            *yi += A * xi;
        }
        std::hint::black_box(&mut y);
    }
    start.elapsed()
}

fn bench(c: &mut Criterion, group_name: &str, shape: &[usize], with_cpu: bool) {
    let gl = Runtime::gl().expect("a headless GL context");
    let cpu = Runtime::cpu();
    let n: usize = shape.iter().product();
    let mut group = c.benchmark_group(group_name);
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    group.bench_function(BenchmarkId::from_parameter("hand-written glow"), |b| {
        b.iter_custom(|i| hand_saxpy(&gl, shape, i))
    });
    group.bench_function(BenchmarkId::from_parameter("brook gl"), |b| {
        b.iter_custom(|i| brook_saxpy(&gl, shape, i))
    });
    if with_cpu {
        group.bench_function(BenchmarkId::from_parameter("brook cpu"), |b| {
            b.iter_custom(|i| brook_saxpy(&cpu, shape, i))
        });
    }
    group.bench_function(BenchmarkId::from_parameter("plain rust loop"), |b| {
        b.iter_custom(|i| rust_saxpy(n, i))
    });
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, "saxpy 1024x1024 float4", &[1024, 1024], true);
    bench(&mut c, "kernel call 4x4 float4", &[4, 4], true);
    c.final_summary();
    let all = [
        "hand-written glow",
        "brook gl",
        "brook cpu",
        "plain rust loop",
    ];
    print_ratios(
        "saxpy 1024x1024 float4",
        "hand-written glow",
        &all,
        "per call",
    );
    print_ratios(
        "kernel call 4x4 float4",
        "hand-written glow",
        &all,
        "per call",
    );
}
