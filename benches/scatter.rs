//! Scatter-add of 1M elements (1024×1024 `float`, random `float2` indices into a 1024×1024
//! destination, so many collide): Brook-GL's point rendering against the same points drawn by
//! hand in glow, Brook-wgpu (a compare-and-swap loop on `f32` bits), the CPU backend
//! (sequential in index order) and a plain Rust loop, in one run.
//! Each timed batch ends with glFinish; blending accumulates, so no draw is skipped. Every
//! variant's first scatter is checked exactly (integer data) before anything is timed.

mod common;

use std::cell::RefCell;
use std::time::Duration;

use brook::{Runtime, ScatterOp, Stream};
use brook_bench_kit::{Comparison, Tolerance, Variant};
use common::handwritten_scatter::HandScatter;
use criterion::Criterion;

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

fn brook_scatter<'a>(name: &str, rt: &'a Runtime, s: &'a [Stream; 3]) -> Variant<'a> {
    Variant::new(
        name,
        move |n| {
            for _ in 0..n {
                rt.scatter(&s[0], &s[1], &s[2], ScatterOp::Add).unwrap();
            }
            rt.finish();
        },
        move || s[0].to_vec().unwrap(),
    )
}

fn rust_scatter(index: &[f32], data: &[f32], dst: &mut [f32]) {
    for (i, x) in data.iter().enumerate() {
        let (c, r) = (index[2 * i] as usize, index[2 * i + 1] as usize);
        dst[r * SIDE + c] += x;
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let (index, data) = (index(), data());
    let gl = Runtime::gl().expect("a headless GL context");
    let cpu = Runtime::cpu();
    let wgpu = Runtime::wgpu().expect("a wgpu adapter (lavapipe)");
    let ctx = gl.gl_context().expect("a GL runtime").clone();
    let hand = RefCell::new(HandScatter::new(ctx.gl(), SIDE, &index, &data));
    let on_gl = brook_streams(&gl, &index, &data);
    let on_cpu = brook_streams(&cpu, &index, &data);
    let on_wgpu = brook_streams(&wgpu, &index, &data);
    let host = RefCell::new(vec![0.0f32; SIDE * SIDE]);
    // Small integers: every sum is exact in any order, so one scatter-add must match exactly.
    let mut expected = vec![0.0f32; SIDE * SIDE];
    rust_scatter(&index, &data, &mut expected);
    let expected = expected.into_iter().map(f64::from).collect();
    Comparison::new(GROUP, "per scatter", 1, expected, Tolerance::Exact)
        .measurement_time(Duration::from_secs(3))
        .variant(Variant::new(
            "hand-written glow",
            |n| {
                let mut hand = hand.borrow_mut();
                for _ in 0..n {
                    hand.step();
                }
                hand.finish();
            },
            || hand.borrow().result(),
        ))
        .variant(brook_scatter("brook gl", &gl, &on_gl))
        .variant(brook_scatter("brook wgpu", &wgpu, &on_wgpu))
        .variant(brook_scatter("brook cpu", &cpu, &on_cpu))
        .variant(Variant::new(
            "plain rust loop",
            |n| {
                let mut dst = host.borrow_mut();
                for _ in 0..n {
                    rust_scatter(&index, &data, &mut dst);
                    std::hint::black_box(&mut *dst);
                }
            },
            || host.borrow().clone(),
        ))
        .run(&mut c);
    c.final_summary();
}
