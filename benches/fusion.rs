//! Automatic kernel → reduction fusion against the two calls and the explicit call: SASUM's
//! `|x|` then a sum over 2^20 floats (a 1024×1024 stream) on GL, written three ways on three
//! runtimes — `run` then `reduce_to_value` with automatic fusion off (a kernel pass, then the
//! reduction's passes), the same two calls with it on (the default: the kernel computed in the
//! reduction's first pass, the previous iteration's waiting call replaced), and
//! `map_reduce_to_value`. Each is checked bit for bit (small integers: every order of summation
//! is exact) before it is timed.

use std::time::Duration;

use brook::{args, Program, Runtime, Stream};
use brook_bench_kit::{Comparison, Tolerance, Variant};
use criterion::Criterion;

const SRC: &str = "kernel void absolute(float x<>, out float a<>) { a = abs(x); }
reduce void sum(float a<>, reduce float r<>) { r += a; }";
const SIDE: usize = 1024;

/// Small integers with signs: |x| sums exactly in any order.
fn data() -> Vec<f32> {
    (0..SIDE * SIDE).map(|i| (i % 13) as f32 - 6.0).collect()
}

/// A GL runtime with automatic fusion `on`, its program, `x` filled and the scratch output.
fn setup(on: bool, data: &[f32]) -> (Runtime, Program, Stream, Stream) {
    let rt = Runtime::gl().expect("a headless GL context");
    rt.set_automatic_fusion(on).unwrap();
    let p = rt.compile(SRC, "sasum.br").unwrap();
    let x = rt.stream_of(1, &[SIDE, SIDE]).unwrap();
    x.read(data).unwrap();
    let a = rt.stream_of(1, &[SIDE, SIDE]).unwrap();
    (rt, p, x, a)
}

fn two_calls(rt: &Runtime, p: &Program, x: &Stream, a: &Stream) -> Vec<f32> {
    rt.run(p, "absolute", args![x, a]).unwrap();
    rt.reduce_to_value(p, "sum", a, args![]).unwrap()
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let data = data();
    let expected = vec![data.iter().map(|v| f64::from(v.abs())).sum::<f64>()];
    let (off, off_p, off_x, off_a) = setup(false, &data);
    let (on, on_p, on_x, on_a) = setup(true, &data);
    let (explicit, ex_p, ex_x, ex_a) = setup(false, &data);
    Comparison::new(
        "sasum of 1024x1024 floats on gl",
        "per |x| and sum",
        1,
        expected,
        Tolerance::Exact,
    )
    .measurement_time(Duration::from_secs(3))
    .variant(Variant::returning("run + reduce, fusion off", || {
        two_calls(&off, &off_p, &off_x, &off_a)
    }))
    .variant(Variant::returning("run + reduce, automatic fusion", || {
        two_calls(&on, &on_p, &on_x, &on_a)
    }))
    .variant(Variant::returning("map_reduce_to_value", || {
        explicit
            .map_reduce_to_value(&ex_p, "absolute", args![&ex_x, &ex_a], "sum", args![])
            .unwrap()
    }))
    .run(&mut c);
    c.final_summary();
}
