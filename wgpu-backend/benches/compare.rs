//! Brook on wgpu against the same work hand-written in wgpu compute (WGSL, bind groups made
//! once), side by side in one run on one device, with ratios printed after each group:
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
#[path = "../../benches/common/ratios.rs"]
mod ratios;

use std::rc::Rc;
use std::time::{Duration, Instant};

use brook_wgpu::ops::reduce::ReduceTarget;
use brook_wgpu::{KernelArg, WgpuBackend, WgpuProgram, WgpuStream};
use criterion::Criterion;
use hand::Hand;
use ratios::print_ratios;

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

/// Rounds of the paired measurement.
const ROUNDS: usize = 15;

/// One side of a comparison: a call (given its number) and how to wait for the queue.
struct Side<'a> {
    name: &'a str,
    call: &'a dyn Fn(u64),
    finish: &'a dyn Fn(),
}

/// Runs criterion on each side, then a paired measurement: the sides alternate, round by
/// round, each timing `batch` calls, and the ratio printed is the median of the per-round
/// ratios to the first side, which load changes on a shared machine shift much less than
/// the ratio of two medians taken minutes apart.
fn compare(c: &mut Criterion, group_name: &str, per: &str, batch: u64, sides: &[Side]) {
    let mut group = c.benchmark_group(group_name);
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(3));
    for s in sides {
        group.bench_function(s.name, |bench| {
            bench.iter_custom(|iters| timed(iters, s.call, s.finish))
        });
    }
    group.finish();
    let names: Vec<&str> = sides.iter().map(|s| s.name).collect();
    print_ratios(group_name, sides[0].name, &names, per);
    let mut ratios = vec![Vec::with_capacity(ROUNDS); sides.len()];
    for _ in 0..ROUNDS {
        let times: Vec<f64> = sides
            .iter()
            .map(|s| timed(batch, s.call, s.finish).as_secs_f64())
            .collect();
        for (r, t) in ratios.iter_mut().zip(&times) {
            r.push(t / times[0]);
        }
    }
    println!(
        "{group_name}: paired ratio to {} (median of {ROUNDS} alternating rounds of {batch})",
        sides[0].name
    );
    for (s, r) in sides.iter().zip(&mut ratios) {
        r.sort_by(f64::total_cmp);
        println!(
            "  {:<28} {:>8.3}×  (rounds: {:.3}–{:.3})",
            s.name,
            r[ROUNDS / 2],
            r[0],
            r[ROUNDS - 1]
        );
    }
}

/// Times `iters` calls of `step` followed by one wait for the queue.
fn timed(iters: u64, step: impl Fn(u64), finish: impl Fn()) -> Duration {
    let start = Instant::now();
    for i in 0..iters {
        step(i);
    }
    finish();
    start.elapsed()
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
    let batch = if n > 1 { 4 } else { 200 };
    compare(
        c,
        group_name,
        "per call",
        batch,
        &[
            Side {
                name: "hand-written wgpu",
                call: &hand,
                finish: &|| h.finish(),
            },
            Side {
                name: "Brook wgpu",
                call: &brook,
                finish: &|| b.finish().unwrap(),
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
    // Both give the sum (to rounding): the comparison is of the same work.
    let mut got = [0.0f32];
    b.reduce(&p, f, &input, &[], ReduceTarget::Value(&mut got))
        .unwrap();
    h.dispatches(&[(&hp, &b1, [g1, 1, 1]), (&hp, &b2, [1, 1, 1])]);
    let hand_sum = h.read(&result, 1)[0];
    assert!((got[0] - hand_sum).abs() < 1e-2, "{} vs {hand_sum}", got[0]);
    let hand = |_: u64| {
        h.dispatches(&[(&hp, &b1, [g1, 1, 1]), (&hp, &b2, [1, 1, 1])]);
        std::hint::black_box(h.read(&result, 1));
    };
    let brook = |_: u64| {
        let mut v = [0.0f32];
        b.reduce(&p, f, &input, &[], ReduceTarget::Value(&mut v))
            .unwrap();
        std::hint::black_box(v);
    };
    compare(
        c,
        "wgpu reduce",
        "per sum (read back)",
        4,
        &[
            Side {
                name: "hand-written wgpu",
                call: &hand,
                finish: &|| {},
            },
            Side {
                name: "Brook wgpu",
                call: &brook,
                finish: &|| {},
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
    // Same answers (same sums in the same order).
    b.run_kernel(&p, k, &args).unwrap();
    h.dispatch(&hp, &bind, groups);
    let mut got = vec![0.0; n];
    b.write(&br, None, &mut got).unwrap();
    let want = h.read(&hr, n);
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() <= 1e-4 * w.abs().max(1.0), "{g} vs {w}");
    }
    let hand = |_: u64| h.dispatch(&hp, &bind, groups);
    let brook = |_: u64| drop(b.run_kernel(&p, k, &args).unwrap());
    compare(
        c,
        "wgpu sgemv-gather",
        "per product",
        8,
        &[
            Side {
                name: "hand-written wgpu",
                call: &hand,
                finish: &|| h.finish(),
            },
            Side {
                name: "Brook wgpu",
                call: &brook,
                finish: &|| b.finish().unwrap(),
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
    compare(
        c,
        "wgpu layout",
        "per step",
        2,
        &[
            Side {
                name: "hand interleaved",
                call: &inter_call,
                finish: &|| h.finish(),
            },
            Side {
                name: "hand per member",
                call: &per_call,
                finish: &|| h.finish(),
            },
            Side {
                name: "Brook wgpu",
                call: &brook,
                finish: &|| b.finish().unwrap(),
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
