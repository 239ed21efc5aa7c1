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

/// Brook SAXPY state: the program and three streams, ping-ponging between the last two.
struct BrookSaxpy<'a> {
    rt: &'a Runtime,
    program: brook::Program,
    streams: [brook::Stream; 3],
    flip: bool,
}

impl<'a> BrookSaxpy<'a> {
    fn new(rt: &'a Runtime, shape: &[usize]) -> Self {
        let (x, y) = inputs(shape.iter().product());
        let program = rt.compile(SAXPY, "saxpy.br").unwrap();
        let streams = [0, 1, 2].map(|_| rt.stream_of(4, shape).unwrap());
        streams[0].read(&x).unwrap();
        streams[1].read(&y).unwrap();
        streams[2].read(&y).unwrap();
        BrookSaxpy {
            rt,
            program,
            streams,
            flip: false,
        }
    }

    fn time(&mut self, iters: u64) -> Duration {
        let s = &self.streams;
        let start = Instant::now();
        for _ in 0..iters {
            let (src, dst) = if self.flip { (2, 1) } else { (1, 2) };
            self.rt
                .run(&self.program, "saxpy", args![A, &s[0], &s[src], &s[dst]])
                .unwrap();
            self.flip = !self.flip;
        }
        self.rt.finish();
        start.elapsed()
    }
}

fn hand_time(hand: &mut HandSaxpy, iters: u64) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        hand.step(A);
    }
    hand.finish();
    start.elapsed()
}

fn rust_saxpy(x: &[f32], y: &mut [f32], iters: u64) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        for (yi, xi) in y.iter_mut().zip(x) {
            *yi += A * xi;
        }
        std::hint::black_box(&mut *y);
    }
    start.elapsed()
}

/// One group: every variant's state is built once, outside the timed loops, so each sample
/// times only the calls and the final glFinish.
fn bench(c: &mut Criterion, group_name: &str, shape: &[usize]) {
    let gl = Runtime::gl().expect("a headless GL context");
    let cpu = Runtime::cpu();
    let n: usize = shape.iter().product();
    let (x, mut y) = inputs(n);
    let (h, w) = if shape.len() == 2 {
        (shape[0], shape[1])
    } else {
        (1, shape[0])
    };
    let ctx = gl.gl_context().expect("a GL runtime").clone();
    let mut hand = HandSaxpy::new(ctx.gl(), w, h, &x, &y);
    let mut on_gl = BrookSaxpy::new(&gl, shape);
    let mut on_cpu = BrookSaxpy::new(&cpu, shape);
    let mut group = c.benchmark_group(group_name);
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    group.bench_function(BenchmarkId::from_parameter("hand-written glow"), |b| {
        b.iter_custom(|i| hand_time(&mut hand, i))
    });
    group.bench_function(BenchmarkId::from_parameter("brook gl"), |b| {
        b.iter_custom(|i| on_gl.time(i))
    });
    group.bench_function(BenchmarkId::from_parameter("brook cpu"), |b| {
        b.iter_custom(|i| on_cpu.time(i))
    });
    group.bench_function(BenchmarkId::from_parameter("plain rust loop"), |b| {
        b.iter_custom(|i| rust_saxpy(&x, &mut y, i))
    });
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, "saxpy 1024x1024 float4", &[1024, 1024]);
    bench(&mut c, "kernel call 4x4 float4", &[4, 4]);
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
