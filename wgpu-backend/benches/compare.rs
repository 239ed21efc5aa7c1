//! Brook on wgpu against the same work hand-written in wgpu compute (WGSL, bind groups made
//! once), side by side in one run on one device (bench-kit: every side's result checked
//! against an f64 reference first, then rotated rounds, ratios with 95% intervals):
//!
//! - `wgpu saxpy`: SAXPY on 1024×1024 float4 (ping-pong), and the per-call cost of a cached
//!   kernel on one element (the host overhead of a call);
//! - `wgpu reduce`: the sum of 2^20 floats to a value (read back);
//! - `wgpu sgemv-gather`: y = αAx + βy on 1024², one invocation per row gathering A and x;
//! - `wgpu layout`: a struct update over 2^20 elements stored interleaved (one buffer, C
//!   layout: what Brook does) against one buffer per member, both hand-written, and Brook.
//!
//! The goal (issue 21): Brook wgpu within 1.10× of hand-written wgpu. lavapipe runs on the
//! CPU: compare the ratios, not the absolute times.

mod hand;

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use brook_bench_kit::{Comparison, Tolerance, Variant};
use brook_wgpu::ops::reduce::ReduceTarget;
use brook_wgpu::{KernelArg, WgpuBackend, WgpuProgram, WgpuStream};
use criterion::Criterion;
use hand::Hand;

fn program(b: &WgpuBackend, src: &str) -> WgpuProgram {
    b.prepare(
        Rc::new(brook_frontend::compile(src, "bench.br").expect("compiles")),
        None,
    )
}

fn stream(b: &WgpuBackend, widths: &[u8], shape: &[usize], data: &[f32]) -> WgpuStream {
    let s = b.create_stream(widths, shape).expect("a stream");
    b.read(&s, None, data).expect("streamRead");
    s
}

fn data(n: usize, seed: u32) -> Vec<f32> {
    let mut x = seed.wrapping_mul(2654435761).max(1);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        })
        .collect()
}

/// One side of a comparison: a call (given its number since the side began), how to wait
/// for the queue, and its result after a number of calls.
struct Side<'a> {
    name: &'a str,
    call: &'a dyn Fn(u64),
    finish: &'a dyn Fn(),
    result: &'a dyn Fn(u64) -> Vec<f32>,
}

/// Checks every side's result after one call against `expected`, lets criterion measure each,
/// then times them in rotated rounds and prints the ratios to the first side with their 95%
/// intervals.
fn compare(
    c: &mut Criterion,
    group_name: &str,
    per: &'static str,
    expected: Vec<f64>,
    tolerance: Tolerance,
    sides: &[Side],
) {
    let mut comparison = Comparison::new(group_name, per, 1, expected, tolerance)
        .measurement_time(Duration::from_secs(3));
    for side in sides {
        let calls = Rc::new(Cell::new(0u64));
        let made = calls.clone();
        comparison = comparison.variant(Variant::new(
            side.name,
            move |n| {
                for _ in 0..n {
                    (side.call)(made.get());
                    made.set(made.get() + 1);
                }
                (side.finish)();
            },
            move || (side.result)(calls.get()),
        ));
    }
    comparison.run(c);
}

const SAXPY: &str =
    "kernel void saxpy(float a, float4 x<>, float4 y<>, out float4 r<>) { r = a * x + y; }";
const HAND_SAXPY: &str = "
@group(0) @binding(0) var<uniform> a: vec4<f32>;
@group(0) @binding(1) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> y: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> r: array<vec4<f32>>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    if (i >= arrayLength(&r)) { return; }
    r[i] = a.x * x[i] + y[i];
}";

fn saxpy(c: &mut Criterion, b: &WgpuBackend, h: &Hand, n: usize, group_name: &str) {
    let x = data(4 * n, 1);
    let y = data(4 * n, 2);
    let p = program(b, SAXPY);
    let k = p.module().function("saxpy").unwrap().0;
    let bx = stream(b, &[4], &[n], &x);
    let by = [stream(b, &[4], &[n], &y), stream(b, &[4], &[n], &y)];
    let a = [0.5f32];
    let hp = h.pipeline(HAND_SAXPY);
    let ha = h.uniform(&[0.5f32.to_bits(), 0, 0, 0]);
    let hx = h.buffer(&x);
    let hy = [h.buffer(&y), h.buffer(&y)];
    let groups = [(n as u32).div_ceil(64), 1, 1];
    let binds = [
        h.bind(&hp, &[&ha, &hx, &hy[0], &hy[1]]),
        h.bind(&hp, &[&ha, &hx, &hy[1], &hy[0]]),
    ];
    let hand = |i: u64| h.dispatch(&hp, &binds[(i % 2) as usize], groups);
    let brook = |i: u64| {
        let (src, dst) = (&by[(i % 2) as usize], &by[((i + 1) % 2) as usize]);
        let args = [
            KernelArg::Constant(&a),
            KernelArg::Stream(&bx),
            KernelArg::Stream(src),
            KernelArg::Stream(dst),
        ];
        b.run_kernel(&p, k, &args).unwrap();
    };
    // After `calls` calls the result is in buffer `calls % 2` on both sides; one call gives
    // y + a·x, exact for a = ½ but for one f32 rounding of the sum.
    let expected: Vec<f64> = x
        .iter()
        .zip(&y)
        .map(|(&xi, &yi)| f64::from(yi) + 0.5 * f64::from(xi))
        .collect();
    let hand_result = |calls: u64| h.read(&hy[(calls % 2) as usize], 4 * n);
    let brook_result = |calls: u64| {
        let mut out = vec![0.0; 4 * n];
        b.write(&by[(calls % 2) as usize], None, &mut out).unwrap();
        out
    };
    compare(
        c,
        group_name,
        "per call",
        expected,
        Tolerance::Relative(f64::from(f32::EPSILON)),
        &[
            Side {
                name: "hand-written wgpu",
                call: &hand,
                finish: &|| h.finish(),
                result: &hand_result,
            },
            Side {
                name: "Brook wgpu",
                call: &brook,
                finish: &|| b.finish().unwrap(),
                result: &brook_result,
            },
        ],
    );
}

const SUM: &str = "reduce void sum(float a<>, reduce float r<>) { r = r + a; }";
const HAND_SUM: &str = "
struct Params { n: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<f32>;
@group(0) @binding(2) var<storage, read_write> partials: array<f32>;
var<workgroup> s: array<f32, 256>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) w: vec3<u32>) {
    var acc = 0.0;
    let base = w.x * 2048u;
    for (var k = 0u; k < 8u; k++) {
        let i = base + k * 256u + l;
        if (i < params.n) { acc += input[i]; }
    }
    s[l] = acc;
    workgroupBarrier();
    for (var st = 128u; st > 0u; st >>= 1u) {
        if (l < st) { s[l] += s[l + st]; }
        workgroupBarrier();
    }
    if (l == 0u) { partials[w.x] = s[0]; }
}";

fn reduce(c: &mut Criterion, b: &WgpuBackend, h: &Hand) {
    let n = 1 << 20;
    let x = data(n, 3);
    let p = program(b, SUM);
    let f = p.module().function("sum").unwrap().0;
    let input = stream(b, &[1], &[n], &x);
    let hp = h.pipeline(HAND_SUM);
    let hin = h.buffer(&x);
    let g1 = (n as u32).div_ceil(2048);
    let partials = h.buffer(&vec![0.0; g1 as usize]);
    let result = h.buffer(&[0.0]);
    let b1 = h.bind(&hp, &[&h.uniform(&[n as u32, 0, 0, 0]), &hin, &partials]);
    let b2 = h.bind(&hp, &[&h.uniform(&[g1, 0, 0, 0]), &partials, &result]);
    // Both read the sum back in the timed call; the f64 sum bounds their rounding: 2^20 terms
    // of |x| ≤ ½ added in a tree of depth ≤ 20, each step one rounding of a partial sum.
    let total: f64 = x.iter().map(|&v| f64::from(v)).sum();
    let bound = 20.0 * f64::from(f32::EPSILON) * x.iter().map(|&v| f64::from(v).abs()).sum::<f64>();
    let hand_value = Cell::new(0.0f32);
    let brook_value = Cell::new(0.0f32);
    let hand = |_: u64| {
        h.dispatches(&[(&hp, &b1, [g1, 1, 1]), (&hp, &b2, [1, 1, 1])]);
        hand_value.set(h.read(&result, 1)[0]);
    };
    let brook = |_: u64| {
        let mut v = [0.0f32];
        b.reduce(&p, f, &input, &[], ReduceTarget::Value(&mut v))
            .unwrap();
        brook_value.set(v[0]);
    };
    compare(
        c,
        "wgpu reduce",
        "per sum (read back)",
        vec![total],
        // Relative to max(1, |sum|): the bound over the sum's magnitude.
        Tolerance::Relative(bound / total.abs().max(1.0)),
        &[
            Side {
                name: "hand-written wgpu",
                call: &hand,
                finish: &|| {},
                result: &|_| vec![hand_value.get()],
            },
            Side {
                name: "Brook wgpu",
                call: &brook,
                finish: &|| {},
                result: &|_| vec![brook_value.get()],
            },
        ],
    );
}

const GEMV: &str = "
kernel void gemv(int n, float alpha, float beta, float a[][], float x[], float y<>,
                 out float result<>) {
    float i = indexof(result).x;
    float sum = 0.0;
    for (int j = 0; j < n; j++) {
        sum += a[i][j] * x[j];
    }
    result = alpha * sum + beta * y;
}";
const HAND_GEMV: &str = "
struct Params { n: u32, alpha: f32, beta: f32, pad: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> y: array<f32>;
@group(0) @binding(4) var<storage, read_write> r: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    if (i >= p.n) { return; }
    var sum = 0.0;
    for (var j = 0u; j < p.n; j++) { sum += a[i * p.n + j] * x[j]; }
    r[i] = p.alpha * sum + p.beta * y[i];
}";

fn gemv(c: &mut Criterion, b: &WgpuBackend, h: &Hand) {
    let n = 1024;
    let (a, x, y) = (data(n * n, 4), data(n, 5), data(n, 6));
    let (alpha, beta) = (1.5f32, -0.5f32);
    let p = program(b, GEMV);
    let k = p.module().function("gemv").unwrap().0;
    let (ba, bx, by) = (
        stream(b, &[1], &[n, n], &a),
        stream(b, &[1], &[n], &x),
        stream(b, &[1], &[n], &y),
    );
    let br = b.create_stream(&[1], &[n]).unwrap();
    let (nn, al, be) = ([n as f32], [alpha], [beta]);
    let args = [
        KernelArg::Constant(&nn),
        KernelArg::Constant(&al),
        KernelArg::Constant(&be),
        KernelArg::Stream(&ba),
        KernelArg::Stream(&bx),
        KernelArg::Stream(&by),
        KernelArg::Stream(&br),
    ];
    let hp = h.pipeline(HAND_GEMV);
    let params = h.uniform(&[n as u32, alpha.to_bits(), beta.to_bits(), 0]);
    let (ha, hx, hy, hr) = (
        h.buffer(&a),
        h.buffer(&x),
        h.buffer(&y),
        h.buffer(&vec![0.0; n]),
    );
    let bind = h.bind(&hp, &[&params, &ha, &hx, &hy, &hr]);
    let groups = [(n as u32).div_ceil(64), 1, 1];
    // αAx + βy in f64; each row's f32 sum of n products carries at most n·ε of Σ|a·x|.
    let expected: Vec<f64> = (0..n)
        .map(|i| {
            let ax: f64 = (0..n)
                .map(|j| f64::from(a[i * n + j]) * f64::from(x[j]))
                .sum();
            f64::from(alpha) * ax + f64::from(beta) * f64::from(y[i])
        })
        .collect();
    let abs_row_max = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| f64::from(a[i * n + j] * x[j]).abs())
                .sum::<f64>()
        })
        .fold(0.0, f64::max);
    let hand = |_: u64| h.dispatch(&hp, &bind, groups);
    let brook = |_: u64| drop(b.run_kernel(&p, k, &args).unwrap());
    let brook_result = |_: u64| {
        let mut got = vec![0.0; n];
        b.write(&br, None, &mut got).unwrap();
        got
    };
    compare(
        c,
        "wgpu sgemv-gather",
        "per product",
        expected,
        // A row's f32 sum of n products is within n·ε·Σ|a·x| of the exact one (times α).
        Tolerance::Relative(f64::from(alpha) * n as f64 * f64::from(f32::EPSILON) * abs_row_max),
        &[
            Side {
                name: "hand-written wgpu",
                call: &hand,
                finish: &|| h.finish(),
                result: &|_| h.read(&hr, n),
            },
            Side {
                name: "Brook wgpu",
                call: &brook,
                finish: &|| b.finish().unwrap(),
                result: &brook_result,
            },
        ],
    );
}

const STRUCT_STEP: &str = "
struct P { float3 pos; float3 vel; float m; };
kernel void step(P p<>, float dt, out P q<>) {
    P n = p;
    n.pos += p.vel * dt;
    n.vel.y -= 9.8 * dt * p.m;
    q = n;
}";
const HAND_INTERLEAVED: &str = "
@group(0) @binding(0) var<uniform> dt: vec4<f32>;
@group(0) @binding(1) var<storage, read> p: array<f32>;
@group(0) @binding(2) var<storage, read_write> q: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    if (i * 7u >= arrayLength(&q)) { return; }
    let b = i * 7u;
    let pos = vec3<f32>(p[b], p[b + 1u], p[b + 2u]);
    var vel = vec3<f32>(p[b + 3u], p[b + 4u], p[b + 5u]);
    let m = p[b + 6u];
    let np = pos + vel * dt.x;
    vel.y -= 9.8 * dt.x * m;
    q[b] = np.x; q[b + 1u] = np.y; q[b + 2u] = np.z;
    q[b + 3u] = vel.x; q[b + 4u] = vel.y; q[b + 5u] = vel.z;
    q[b + 6u] = m;
}";
const HAND_PER_MEMBER: &str = "
@group(0) @binding(0) var<uniform> dt: vec4<f32>;
@group(0) @binding(1) var<storage, read> pos: array<f32>;
@group(0) @binding(2) var<storage, read> vel: array<f32>;
@group(0) @binding(3) var<storage, read> mass: array<f32>;
@group(0) @binding(4) var<storage, read_write> npos: array<f32>;
@group(0) @binding(5) var<storage, read_write> nvel: array<f32>;
@group(0) @binding(6) var<storage, read_write> nmass: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    if (i >= arrayLength(&nmass)) { return; }
    let b = i * 3u;
    let p = vec3<f32>(pos[b], pos[b + 1u], pos[b + 2u]);
    var v = vec3<f32>(vel[b], vel[b + 1u], vel[b + 2u]);
    let m = mass[i];
    let np = p + v * dt.x;
    v.y -= 9.8 * dt.x * m;
    npos[b] = np.x; npos[b + 1u] = np.y; npos[b + 2u] = np.z;
    nvel[b] = v.x; nvel[b + 1u] = v.y; nvel[b + 2u] = v.z;
    nmass[i] = m;
}";

fn layout(c: &mut Criterion, b: &WgpuBackend, h: &Hand) {
    let n = 1 << 20;
    let all = data(7 * n, 7);
    let p = program(b, STRUCT_STEP);
    let k = p.module().function("step").unwrap().0;
    let s = [
        stream(b, &[3, 3, 1], &[n], &all),
        stream(b, &[3, 3, 1], &[n], &all),
    ];
    let dt = [0.01f32];
    let hdt = h.uniform(&[0.01f32.to_bits(), 0, 0, 0]);
    let inter = h.pipeline(HAND_INTERLEAVED);
    let hi = [h.buffer(&all), h.buffer(&all)];
    let bi = [
        h.bind(&inter, &[&hdt, &hi[0], &hi[1]]),
        h.bind(&inter, &[&hdt, &hi[1], &hi[0]]),
    ];
    let per = h.pipeline(HAND_PER_MEMBER);
    let (pos, vel, mass): (Vec<f32>, Vec<f32>, Vec<f32>) = (
        all.chunks(7).flat_map(|e| e[..3].to_vec()).collect(),
        all.chunks(7).flat_map(|e| e[3..6].to_vec()).collect(),
        all.chunks(7).map(|e| e[6]).collect(),
    );
    let m0 = [h.buffer(&pos), h.buffer(&vel), h.buffer(&mass)];
    let m1 = [h.buffer(&pos), h.buffer(&vel), h.buffer(&mass)];
    let bm = [
        h.bind(
            &per,
            &[&hdt, &m0[0], &m0[1], &m0[2], &m1[0], &m1[1], &m1[2]],
        ),
        h.bind(
            &per,
            &[&hdt, &m1[0], &m1[1], &m1[2], &m0[0], &m0[1], &m0[2]],
        ),
    ];
    let groups = [(n as u32).div_ceil(64), 1, 1];
    let inter_call = |i: u64| h.dispatch(&inter, &bi[(i % 2) as usize], groups);
    let per_call = |i: u64| h.dispatch(&per, &bm[(i % 2) as usize], groups);
    let brook = |i: u64| {
        let (src, dst) = (&s[(i % 2) as usize], &s[((i + 1) % 2) as usize]);
        let args = [
            KernelArg::Stream(src),
            KernelArg::Constant(&dt),
            KernelArg::Stream(dst),
        ];
        b.run_kernel(&p, k, &args).unwrap();
    };
    // One step from `all`: pos += vel·dt, vel.y -= 9.8·dt·m (each a couple of f32 roundings).
    let expected: Vec<f64> = all
        .chunks(7)
        .flat_map(|e| {
            let e: Vec<f64> = e.iter().map(|&v| f64::from(v)).collect();
            let dt = f64::from(0.01f32);
            [
                e[0] + e[3] * dt,
                e[1] + e[4] * dt,
                e[2] + e[5] * dt,
                e[3],
                e[4] - 9.8 * dt * e[6],
                e[5],
                e[6],
            ]
        })
        .collect();
    let interleaved = |calls: u64| h.read(&hi[(calls % 2) as usize], 7 * n);
    let per_member = |calls: u64| {
        let m = if calls.is_multiple_of(2) { &m0 } else { &m1 };
        let (pos, vel, mass) = (h.read(&m[0], 3 * n), h.read(&m[1], 3 * n), h.read(&m[2], n));
        (0..n)
            .flat_map(|i| {
                let mut e = pos[3 * i..3 * i + 3].to_vec();
                e.extend_from_slice(&vel[3 * i..3 * i + 3]);
                e.push(mass[i]);
                e
            })
            .collect()
    };
    let brook_result = |calls: u64| {
        let mut out = vec![0.0; 7 * n];
        b.write(&s[(calls % 2) as usize], None, &mut out).unwrap();
        out
    };
    compare(
        c,
        "wgpu layout",
        "per step",
        expected,
        // Values ≤ ½ in size, a few roundings each (9.8·dt·m is three products).
        Tolerance::Relative(8.0 * f64::from(f32::EPSILON)),
        &[
            Side {
                name: "hand interleaved",
                call: &inter_call,
                finish: &|| h.finish(),
                result: &interleaved,
            },
            Side {
                name: "hand per member",
                call: &per_call,
                finish: &|| h.finish(),
                result: &per_member,
            },
            Side {
                name: "Brook wgpu",
                call: &brook,
                finish: &|| b.finish().unwrap(),
                result: &brook_result,
            },
        ],
    );
}

fn main() {
    let b = WgpuBackend::new().expect("a wgpu adapter");
    println!("{}", b.describe());
    let h = Hand::new(b.device(), b.queue());
    let mut c = Criterion::default().configure_from_args();
    saxpy(&mut c, &b, &h, 1 << 20, "wgpu saxpy");
    saxpy(&mut c, &b, &h, 1, "wgpu saxpy knee");
    reduce(&mut c, &b, &h);
    gemv(&mut c, &b, &h);
    layout(&mut c, &b, &h);
    c.final_summary();
}
