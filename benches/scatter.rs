//! Scatter-add of 1M elements (1024×1024 `float`, random `float2` indices into a 1024×1024
//! destination, so many collide): Brook-GL's point rendering against the same points drawn by
//! hand in glow, Brook-wgpu (a compare-and-swap loop on `f32` bits), the CPU backend
//! (sequential in index order) and a plain Rust loop, in one run.
//! Each timed batch ends with glFinish; blending accumulates, so no draw is skipped.

mod common;

use std::time::{Duration, Instant};

use brook::{Runtime, ScatterOp, Stream};
use common::handwritten_scatter::HandScatter;
use common::ratios::print_ratios;
use criterion::{BenchmarkId, Criterion};

const SIDE: usize = 1024;
const GROUP: &str = "scatter-add 1M float";

/// Column and row of each element's destination, from a fixed linear congruential sequence.
fn index() -> Vec<f32> {
    let mut x: u32 = 12345;
    (0..SIDE * SIDE * 2)
        .map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            ((x >> 8) as usize % SIDE) as f32
        })
        .collect()
}

fn data() -> Vec<f32> {
    (0..SIDE * SIDE).map(|i| (i % 13) as f32).collect()
}

fn brook_streams(rt: &Runtime, index: &[f32], data: &[f32]) -> [Stream; 3] {
    let dst = rt.stream_of(1, &[SIDE, SIDE]).unwrap();
    dst.read(&vec![0.0; SIDE * SIDE]).unwrap();
    let idx = rt.stream_of(2, &[SIDE, SIDE]).unwrap();
    idx.read(index).unwrap();
    let d = rt.stream_of(1, &[SIDE, SIDE]).unwrap();
    d.read(data).unwrap();
    [dst, idx, d]
}

fn brook_time(rt: &Runtime, s: &[Stream; 3], iters: u64) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        rt.scatter(&s[0], &s[1], &s[2], ScatterOp::Add).unwrap();
    }
    rt.finish();
    start.elapsed()
}

fn rust_time(index: &[f32], data: &[f32], dst: &mut [f32], iters: u64) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        for (i, x) in data.iter().enumerate() {
            let (c, r) = (index[2 * i] as usize, index[2 * i + 1] as usize);
            dst[r * SIDE + c] += x;
        }
        std::hint::black_box(&mut *dst);
    }
    start.elapsed()
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let (index, data) = (index(), data());
    let gl = Runtime::gl().expect("a headless GL context");
    let cpu = Runtime::cpu();
    let wgpu = Runtime::wgpu().expect("a wgpu adapter (lavapipe)");
    let ctx = gl.gl_context().expect("a GL runtime").clone();
    let mut hand = HandScatter::new(ctx.gl(), SIDE, &index, &data);
    let on_gl = brook_streams(&gl, &index, &data);
    let on_cpu = brook_streams(&cpu, &index, &data);
    let on_wgpu = brook_streams(&wgpu, &index, &data);
    let mut host = vec![0.0f32; SIDE * SIDE];
    let mut group = c.benchmark_group(GROUP);
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(3));
    group.bench_function(BenchmarkId::from_parameter("hand-written glow"), |b| {
        b.iter_custom(|i| {
            let start = Instant::now();
            for _ in 0..i {
                hand.step();
            }
            hand.finish();
            start.elapsed()
        })
    });
    group.bench_function(BenchmarkId::from_parameter("brook gl"), |b| {
        b.iter_custom(|i| brook_time(&gl, &on_gl, i))
    });
    group.bench_function(BenchmarkId::from_parameter("brook wgpu"), |b| {
        b.iter_custom(|i| brook_time(&wgpu, &on_wgpu, i))
    });
    group.bench_function(BenchmarkId::from_parameter("brook cpu"), |b| {
        b.iter_custom(|i| brook_time(&cpu, &on_cpu, i))
    });
    group.bench_function(BenchmarkId::from_parameter("plain rust loop"), |b| {
        b.iter_custom(|i| rust_time(&index, &data, &mut host, i))
    });
    group.finish();
    c.final_summary();
    print_ratios(
        GROUP,
        "hand-written glow",
        &[
            "hand-written glow",
            "brook gl",
            "brook wgpu",
            "brook cpu",
            "plain rust loop",
        ],
        "per scatter",
    );
}
