//! Automatic kernel → reduction fusion against the two calls, on every backend: SASUM's `|x|`
//! then a sum over 2^20 floats (a 1024×1024 stream, to a value) and SGEMV's products then row
//! sums (1024×1024 by a 1024 vector, to a 1024×1 stream), each on GL, wgpu and the CPU,
//! written three ways on three runtimes — `run` then the reduction with automatic fusion off
//! (the kernel's output written, then read by the reduction), the same two calls with it on
//! (the default: GL and wgpu compute the kernel in the reduction's first pass, the CPU in its
//! fold; the previous iteration's waiting call replaced), and the explicit `map_reduce_*`.
//! Each is checked bit for bit (small integers: every order of summation is exact) before it
//! is timed. `cargo bench --bench fusion -- cpu` runs one backend.

use std::time::Duration;

use brook::{args, Program, Runtime, Stream};
use brook_bench_kit::{Comparison, Tolerance, Variant};
use criterion::Criterion;

const SRC: &str = "kernel void absolute(float x<>, out float a<>) { a = abs(x); }
kernel void mul(float a<>, float x<>, out float t<>) { t = a * x; }
reduce void sum(float a<>, reduce float r<>) { r += a; }";
const SIDE: usize = 1024;

/// Small integers with signs: sums and products of them are exact in any order.
fn ints(n: usize, modulus: usize) -> Vec<f32> {
    (0..n)
        .map(|i| (i % modulus) as f32 - (modulus / 2) as f32)
        .collect()
}

/// One way of running an application on a setup (`true`: the explicit `map_reduce_*`).
type Work = fn(&Setup, bool) -> Vec<f32>;

/// One runtime of a comparison: the program, the inputs `x` (and `a` for SGEMV), the kernel's
/// output and the row sums.
struct Setup {
    rt: Runtime,
    p: Program,
    x: Stream,
    a: Stream,
    v: Stream,
    out: Stream,
    sums: Stream,
}

impl Setup {
    fn new(rt: Runtime, fusion: bool) -> Setup {
        rt.set_automatic_fusion(fusion).unwrap();
        let p = rt.compile(SRC, "fusion.br").unwrap();
        let stream = |shape: &[usize], data: Option<Vec<f32>>| {
            let s = rt.stream_of(1, shape).unwrap();
            if let Some(d) = data {
                s.read(&d).unwrap();
            }
            s
        };
        Setup {
            x: stream(&[SIDE, SIDE], Some(ints(SIDE * SIDE, 13))),
            a: stream(&[SIDE, SIDE], Some(ints(SIDE * SIDE, 7))),
            v: stream(&[1, SIDE], Some(ints(SIDE, 5))),
            out: stream(&[SIDE, SIDE], None),
            sums: stream(&[SIDE, 1], None),
            rt,
            p,
        }
    }

    fn sasum(&self, explicit: bool) -> Vec<f32> {
        let (rt, p) = (&self.rt, &self.p);
        if explicit {
            return (rt.map_reduce_to_value(
                p,
                "absolute",
                args![&self.x, &self.out],
                "sum",
                args![],
            ))
            .unwrap();
        }
        rt.run(p, "absolute", args![&self.x, &self.out]).unwrap();
        rt.reduce_to_value(p, "sum", &self.out, args![]).unwrap()
    }

    fn sgemv(&self, explicit: bool) -> Vec<f32> {
        let (rt, p) = (&self.rt, &self.p);
        let products = args![&self.a, &self.v, &self.out];
        if explicit {
            rt.map_reduce_to_stream(p, "mul", products, "sum", &self.sums, args![])
                .unwrap();
        } else {
            rt.run(p, "mul", products).unwrap();
            rt.reduce_to_stream(p, "sum", &self.out, &self.sums, args![])
                .unwrap();
        }
        self.sums.to_vec().unwrap()
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let (x, a, v) = (ints(SIDE * SIDE, 13), ints(SIDE * SIDE, 7), ints(SIDE, 5));
    let sasum = vec![x.iter().map(|v| f64::from(v.abs())).sum::<f64>()];
    let sgemv: Vec<f64> = (0..SIDE)
        .map(|i| (0..SIDE).map(|j| f64::from(a[i * SIDE + j] * v[j])).sum())
        .collect();
    type Make = fn() -> Runtime;
    let backends: [(&str, Make); 3] = [
        ("gl", || Runtime::gl().expect("a headless GL context")),
        ("wgpu", || Runtime::wgpu().expect("a wgpu adapter")),
        ("cpu", Runtime::cpu),
    ];
    for (backend, make) in backends {
        let (off, on, explicit) = (
            Setup::new(make(), false),
            Setup::new(make(), true),
            Setup::new(make(), false),
        );
        let apps: [(&str, &str, Work, &Vec<f64>); 2] = [
            (
                "sasum of 1024x1024 floats",
                "map_reduce_to_value",
                Setup::sasum,
                &sasum,
            ),
            (
                "sgemv row sums of 1024x1024",
                "map_reduce_to_stream",
                Setup::sgemv,
                &sgemv,
            ),
        ];
        for (app, call, work, expected) in apps {
            Comparison::new(
                format!("{app} on {backend}"),
                "per kernel and reduction",
                1,
                expected.clone(),
                Tolerance::Exact,
            )
            .measurement_time(Duration::from_secs(3))
            .variant(Variant::returning("run + reduce, fusion off", || {
                work(&off, false)
            }))
            .variant(Variant::returning("run + reduce, automatic fusion", || {
                work(&on, false)
            }))
            .variant(Variant::returning(call, || work(&explicit, true)))
            .run(&mut c);
        }
    }
    c.final_summary();
}
