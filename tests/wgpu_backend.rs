//! The wgpu backend's mechanisms through `Runtime::wgpu()`, against the CPU backend on data
//! large enough to cross workgroups: gathers with Brook's rounding and clamping, resizing,
//! iterators, `indexof`, struct streams, many outputs, built-ins, int arithmetic, helpers
//! that discard; domains and in-place calls against values worked out by hand; reductions
//! (tree), scatters and gather-ops (atomics and conflict-free rounds), write masks and
//! queries (a mask copy, an atomic counter), vouts (a three-level scan); kept bind groups;
//! the trace of dispatches, the WGSL, and device limits as errors.
//!
//! Tolerances: 0 (bit-identical) wherever the operations are exact or are the same IEEE
//! operations in the same order (each built-in alone is bit-identical on lavapipe; sums of
//! several allow 1e-6 for contraction into fused multiply-adds); transcendentals come from
//! GL's math library, each within a few ulp of the CPU's (`tests/numeric_contract.rs` holds
//! them to the contract), so sums of ten of them get 2e-6 relative. Reductions to a sum add
//! in another association than the CPU's left fold; scatter `add` of non-integers adds
//! collisions in the GPU's order (compare-and-swap): relative 1e-5 per sum of at most ~50
//! terms of magnitude ≤ 1.

mod support;

use brook::core::Draw;
use brook::{
    args, Arg, BrookError, ElementFormat, GatherOp, IterSpec, MemberFormat, Program, Runtime,
    ScatterOp, Stream, TraceEntry,
};

fn wgpu() -> Runtime {
    support::wgpu()
}

/// The format of elements with members of `widths` floats.
fn format(widths: &[u8]) -> ElementFormat {
    match widths {
        [one] => ElementFormat::scalar(*one).unwrap(),
        many => ElementFormat::structure(
            (many.iter().enumerate())
                .map(|(k, &components)| MemberFormat {
                    name: format!("m{k}"),
                    components,
                })
                .collect(),
        )
        .unwrap(),
    }
}

/// A stream of `rt` of `widths` and `shape` holding `data`.
fn stream(rt: &Runtime, widths: &[u8], shape: &[usize], data: &[f32]) -> Stream {
    let s = rt.stream(format(widths), shape).unwrap();
    s.read(data).unwrap();
    s
}

fn compile(rt: &Runtime, src: &str) -> Program {
    rt.compile(src, "test.br").unwrap_or_else(|e| panic!("{e}"))
}

/// Deterministic pseudo-random floats in [lo, hi).
fn values(n: usize, seed: u32, lo: f32, hi: f32) -> Vec<f32> {
    let mut x = seed.wrapping_mul(2654435761).max(1);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            lo + (hi - lo) * ((x >> 8) as f32 / (1u32 << 24) as f32)
        })
        .collect()
}

/// Asserts `got` equals `want` within `rel` relative tolerance (0: bit-identical; NaNs
/// match NaNs).
fn assert_close(what: &str, got: &[f32], want: &[f32], rel: f32) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = if rel == 0.0 {
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan())
        } else {
            (g.is_nan() && w.is_nan()) || (g - w).abs() <= rel * w.abs().max(1.0)
        };
        assert!(
            ok,
            "{what}: element {i}: wgpu {g}, CPU {w} (tolerance {rel})"
        );
    }
}

/// Whether `got` is `want`'s bits, or, on a device that does not keep denormals
/// (`keeps_denormals` false), a zero of the same sign where `want` is denormal: what the
/// contract allows a GPU (NVIDIA flushes them, as GL does).
fn same_or_flushed(got: f32, want: f32, keeps_denormals: bool) -> bool {
    let flushed = got == 0.0 && got.is_sign_negative() == want.is_sign_negative();
    got.to_bits() == want.to_bits() || (!keeps_denormals && want.is_subnormal() && flushed)
}

/// One argument of a kernel call run on both backends.
enum A {
    /// An input or gathered stream: (widths, shape, data).
    In(Vec<u8>, Vec<usize>, Vec<f32>),
    /// An iterator over a shape, from start to end (one float per component).
    Iter(Vec<usize>, Vec<f32>, Vec<f32>),
    Const(Vec<f32>),
    /// An output stream: (widths, shape).
    Out(Vec<u8>, Vec<usize>),
}

/// A kernel call: kernel `name` of `src` with one argument per parameter.
struct Call<'a> {
    src: &'a str,
    name: &'a str,
    args: Vec<A>,
}

/// The iterator over `shape` from `start` to `end`.
fn iter_spec(shape: &[usize], start: &[f32], end: &[f32]) -> IterSpec {
    let (mut a0, mut a1) = ([0.0; 4], [0.0; 4]);
    a0[..start.len()].copy_from_slice(start);
    a1[..end.len()].copy_from_slice(end);
    IterSpec::new(shape, start.len() as u8, a0, a1).unwrap()
}

/// Runs the call on `rt` and returns its outputs.
fn run(rt: &Runtime, c: &Call) -> Vec<Vec<f32>> {
    let p = compile(rt, c.src);
    let streams: Vec<Option<Stream>> = (c.args.iter())
        .map(|a| match a {
            A::In(w, s, d) => Some(stream(rt, w, s, d)),
            A::Iter(s, st, en) => Some(rt.iter(iter_spec(s, st, en)).unwrap()),
            A::Out(w, s) => Some(rt.stream(format(w), s).unwrap()),
            A::Const(_) => None,
        })
        .collect();
    let args: Vec<Arg> = (c.args.iter().zip(&streams))
        .map(|(a, s)| match (a, s) {
            (A::Const(v), _) => Arg::Constant(v.clone()),
            (_, Some(s)) => Arg::Stream(s),
            _ => unreachable!(),
        })
        .collect();
    rt.run(&p, c.name, &args)
        .unwrap_or_else(|e| panic!("{}: {e}", rt.backend_name()));
    (c.args.iter().zip(&streams))
        .filter(|(a, _)| matches!(a, A::Out(..)))
        .map(|(_, s)| s.as_ref().unwrap().to_vec().unwrap())
        .collect()
}

/// Runs the call on wgpu and on the CPU and compares every output within `rel`.
fn check(c: Call, rel: f32) {
    let (got, want) = (run(&wgpu(), &c), run(&Runtime::cpu(), &c));
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_close(&format!("{} output {k}", c.name), g, w, rel);
    }
}

#[test]
fn gathers_round_and_clamp_like_the_cpu() {
    let src = "
kernel void g1(float i<>, float t[], out float r<>) { r = t[i]; }
kernel void g2(float2 i<>, float t[][], out float r<>) { r = t[i]; }
kernel void g2s(float2 i<>, float t[][], out float r<>) { r = t[i.y][i.x]; }
kernel void gint(float i<>, float4 t[], out float4 r<>) { int k = (int)i; r = t[k] + t[k + 1]; }
";
    let n = 5000;
    // Indices around every boundary: negative, fractional near the .25 bias, past the end, NaN.
    let mut idx = values(n, 1, -3.0, 103.0);
    idx[0] = f32::NAN;
    idx[1] = 0.74;
    idx[2] = 0.75;
    idx[3] = -0.26;
    idx[4] = 98.76;
    let table = values(100, 2, -10.0, 10.0);
    // A float subscript also takes infinities and values past int's range (Brook's index
    // rule, docs/limits.md).
    let mut wild = idx.clone();
    wild[5..10].copy_from_slice(&[f32::INFINITY, f32::NEG_INFINITY, 1e30, -1e30, 3e9]);
    let call = |name, args| Call { src, name, args };
    check(
        call(
            "g1",
            vec![
                A::In(vec![1], vec![n], wild),
                A::In(vec![1], vec![100], table.clone()),
                A::Out(vec![1], vec![n]),
            ],
        ),
        0.0,
    );
    let idx2 = values(2 * n, 3, -2.0, 12.0);
    for name in ["g2", "g2s"] {
        check(
            call(
                name,
                vec![
                    A::In(vec![2], vec![n], idx2.clone()),
                    A::In(vec![1], vec![10, 10], table.clone()),
                    A::Out(vec![1], vec![n]),
                ],
            ),
            0.0,
        );
    }
    check(
        call(
            "gint",
            vec![
                A::In(vec![1], vec![n], idx),
                A::In(vec![4], vec![100], values(400, 4, -1.0, 1.0)),
                A::Out(vec![4], vec![n]),
            ],
        ),
        0.0,
    );
}

#[test]
fn resizing_iterators_and_indexof() {
    let src = "
kernel void copy(float a<>, out float r<>) { r = a; }
kernel void pos(float a<>, out float4 r<>, out float4 q<>) { r = indexof(a); q = indexof(r); }
kernel void it1(iter float2 i<>, out float2 r<>) { r = i; }
kernel void it2(iter float2 i<>, float a<>, out float2 r<>) { r = i + a; }
";
    let call = |name, args| Call { src, name, args };
    for (from, to) in [
        (5usize, 10usize),
        (10, 5),
        (7, 21),
        (21, 7),
        (1000, 333),
        (333, 1000),
    ] {
        let d: Vec<f32> = (0..from).map(|i| i as f32).collect();
        check(
            call(
                "copy",
                vec![A::In(vec![1], vec![from], d), A::Out(vec![1], vec![to])],
            ),
            0.0,
        );
    }
    let d: Vec<f32> = (0..30).map(|i| i as f32).collect();
    check(
        call(
            "copy",
            vec![
                A::In(vec![1], vec![2, 15], d.clone()),
                A::Out(vec![1], vec![4, 5]),
            ],
        ),
        0.0,
    );
    check(
        call(
            "pos",
            vec![
                A::In(vec![1], vec![2, 15], d),
                A::Out(vec![4], vec![4, 5]),
                A::Out(vec![4], vec![4, 5]),
            ],
        ),
        0.0,
    );
    check(
        call(
            "it1",
            vec![
                A::Iter(vec![1000], vec![0.0, 9.0], vec![64.0, -1.0]),
                A::Out(vec![2], vec![1000]),
            ],
        ),
        0.0,
    );
    check(
        call(
            "it2",
            vec![
                A::Iter(vec![6, 7], vec![0.0, 1.0], vec![7.0, 13.0]),
                A::In(vec![1], vec![60, 70], values(60 * 70, 5, 0.0, 1.0)),
                A::Out(vec![2], vec![60, 70]),
            ],
        ),
        0.0,
    );
}

#[test]
fn struct_streams_and_many_outputs() {
    let src = "
struct P { float3 pos; float m; float2 v; };
kernel void step(P p<>, float dt, out P q<>, out float e<>) {
    P n = p;
    n.pos.xy += p.v * dt;
    n.v.y -= 9.8 * dt;
    q = n;
    e = 0.5 * p.m * dot(p.v, p.v);
}
// Four floats: stored as one vec4 per element.
struct Q { float2 a; float b; float c; };
kernel void mix(Q q<>, Q t[], out Q r<>) { Q o = t[q.b]; r.a = q.a + o.a; r.b = q.c; r.c = o.b; }
kernel void fan(float a<>, out float o0<>, out float o1<>, out float o2<>, out float o3<>,
    out float o4<>, out float o5<>) {
    o0 = a; o1 = a * 2.0; o2 = a * 3.0; o3 = a * 4.0; o4 = a * 5.0; o5 = a * 6.0;
}
";
    let call = |name, args| Call { src, name, args };
    let n = 3000;
    check(
        call(
            "step",
            vec![
                A::In(vec![3, 1, 2], vec![n], values(n * 6, 6, -5.0, 5.0)),
                A::Const(vec![0.01]),
                A::Out(vec![3, 1, 2], vec![n]),
                A::Out(vec![1], vec![n]),
            ],
        ),
        0.0,
    );
    check(
        call(
            "mix",
            vec![
                A::In(vec![2, 1, 1], vec![n], values(n * 4, 12, 0.0, 40.0)),
                A::In(vec![2, 1, 1], vec![50], values(50 * 4, 13, -1.0, 1.0)),
                A::Out(vec![2, 1, 1], vec![n]),
            ],
        ),
        0.0,
    );
    let mut args = vec![A::In(vec![1], vec![n], values(n, 7, -5.0, 5.0))];
    args.extend((0..6).map(|_| A::Out(vec![1], vec![n])));
    check(call("fan", args), 0.0);
}

#[test]
fn builtins_match_the_cpu() {
    let exact = "
kernel void k(float4 x<>, float4 y<>, out float4 a<>, out float4 c<>, out float4 d<>, out float4 e<>) {
    a = floor(x) + ceil(y) * 2.0 + frac(x) - round(y * 3.0);
    c = fmod(x, y) + min(x, y) * max(y, x) + clamp(x, -0.5, 0.5) + step(y, x) + sign(x) + abs(y);
    d = saturate(x) + lerp(x, y, 0.25) + x % y + sqrt(abs(x)) + rsqrt(abs(y) + 1.0);
    e = float4(dot(x, y), length(x), distance(x, y), any(x > y) ? 1.0 : 0.0) + normalize(y)
      + smoothstep(-1.0, 1.0, x) + (float4)isnan(x / y) + ldexp(x, floor(y));
}
";
    let trans = "
kernel void k(float4 x<>, float4 y<>, out float4 a<>, out float4 c<>) {
    a = sin(x) + cos(y) + tan(x * 0.3) + exp(x * 0.5) + exp2(y) + atan2(x, y) + atan(x);
    c = log(abs(x) + 1.0) + log2(abs(y) + 1.0) + log10(abs(x) + 2.0) + pow(abs(x) + 0.5, y * 0.5)
      + tanh(x) + sinh(y * 0.5) + cosh(x * 0.5) + degrees(x) * 0.01 + radians(y);
}
";
    let inverse =
        "kernel void k(float4 x<>, float4 y<>, out float4 a<>) { a = asin(x * 0.2) + acos(y * 0.2); }";
    let n = 4096;
    let x = values(4 * n, 8, -4.0, 4.0);
    let mut y = values(4 * n, 9, -4.0, 4.0);
    y[0] = 0.0;
    y[5] = -0.0;
    let call = |src, outs: usize| {
        let mut args = vec![
            A::In(vec![4], vec![n], x.clone()),
            A::In(vec![4], vec![n], y.clone()),
        ];
        args.extend((0..outs).map(|_| A::Out(vec![4], vec![n])));
        Call {
            src,
            name: "k",
            args,
        }
    };
    // Exact operations, but the driver may fuse `a * b + c` into one rounding, and `sqrt`
    // and division are correctly rounded only to 1 ulp on some drivers.
    check(call(exact, 4), 1e-6);
    check(call(trans, 2), 2e-6);
    // asin and acos: the library's, not lavapipe's (off by about 2e-4).
    check(call(inverse, 1), 1e-6);
}

#[test]
fn int_arithmetic_and_helpers_with_discard() {
    let src = "
float twice(float v) { if (v > 100.0) { discard; } return v * 2.0; }
kernel void k(float a<>, float c<>, out float r<>, out float s<>) {
    int x = (int)a;
    int y = (int)c;
    r = (float)(x / y + x % y + (x << (y & 7)) + (x >> 2) + (x & y) + (x | y) + (x ^ y));
    s = twice(a);
}
";
    let n = 2000;
    let a: Vec<f32> = (values(n, 10, -200.0, 200.0).into_iter())
        .map(f32::trunc)
        .collect();
    let mut c: Vec<f32> = (values(n, 11, -10.0, 10.0).into_iter())
        .map(f32::trunc)
        .collect();
    c[3] = 0.0;
    c[4] = 0.0;
    check(
        Call {
            src,
            name: "k",
            args: vec![
                A::In(vec![1], vec![n], a),
                A::In(vec![1], vec![n], c),
                A::Out(vec![1], vec![n]),
                A::Out(vec![1], vec![n]),
            ],
        },
        0.0,
    );
}

#[test]
fn domains_and_in_place_calls() {
    let rt = wgpu();
    let p = compile(
        &rt,
        "
kernel void add(float a<>, float c<>, out float r<>) { r = a + c; }
kernel void inc(float a<>, out float r<>) { r = a + 1.0; }
kernel void pos(float a<>, out float2 r<>) { r = indexof(a).xy; }
",
    );
    // In place, whole stream: every element reads its old value.
    let s = stream(
        &rt,
        &[1],
        &[1000],
        &(0..1000).map(|i| i as f32).collect::<Vec<_>>(),
    );
    rt.run(&p, "inc", args![&s, &s]).unwrap();
    assert_eq!(
        s.to_vec().unwrap(),
        (0..1000).map(|i| i as f32 + 1.0).collect::<Vec<_>>()
    );
    // In place, shifted: out[1..] = in[0..n-1] + 1, all reading old values.
    let (d_in, d_out) = (
        s.domain(&[0], &[999]).unwrap(),
        s.domain(&[1], &[1000]).unwrap(),
    );
    rt.run(&p, "inc", &[Arg::Domain(&d_in), Arg::Domain(&d_out)])
        .unwrap();
    let got = s.to_vec().unwrap();
    assert_eq!(got[0], 1.0);
    assert!(
        (1..1000).all(|i| got[i] == i as f32 + 1.0),
        "a shifted in-place call reads old values"
    );
    // A 2D output domain (rows 1..4, columns 2..6 of <6, 8>): only its elements change.
    let m = stream(&rt, &[1], &[6, 8], &[0.0; 48]);
    let a = stream(&rt, &[1], &[3, 4], &[1.0; 12]);
    let c = stream(
        &rt,
        &[1],
        &[6, 8],
        &(0..48).map(|i| i as f32).collect::<Vec<_>>(),
    );
    // Domains are given x (column) first.
    let dc = c.domain(&[3, 2], &[7, 5]).unwrap();
    let dm = m.domain(&[2, 1], &[6, 4]).unwrap();
    rt.run(
        &p,
        "add",
        &[Arg::Stream(&a), Arg::Domain(&dc), Arg::Domain(&dm)],
    )
    .unwrap();
    let got = m.to_vec().unwrap();
    for r in 0..6 {
        for col in 0..8 {
            let inside = (1..4).contains(&r) && (2..6).contains(&col);
            let want = if inside {
                1.0 + ((r + 1) * 8 + col + 1) as f32
            } else {
                0.0
            };
            assert_eq!(got[r * 8 + col], want, "element ({r}, {col})");
        }
    }
    // indexof of a domain input is its position in the domain.
    let q = rt.stream_of(2, &[3, 4]).unwrap();
    rt.run(&p, "pos", &[Arg::Domain(&dc), Arg::Stream(&q)])
        .unwrap();
    let got = q.to_vec().unwrap();
    for r in 0..3 {
        for col in 0..4 {
            assert_eq!(
                &got[(r * 4 + col) * 2..(r * 4 + col) * 2 + 2],
                &[col as f32, r as f32]
            );
        }
    }
    // Reading and writing domains from the host.
    let mut part = vec![0.0; 12];
    dc.write(&mut part).unwrap();
    assert_eq!(part[..4], [19.0, 20.0, 21.0, 22.0]);
    dc.read(&[-1.0; 12]).unwrap();
    let all = c.to_vec().unwrap();
    assert_eq!(all.iter().filter(|&&x| x == -1.0).count(), 12);
    assert_eq!(all[19], -1.0);
    assert_eq!(all[18], 18.0);
}

/// The backend's own failures reach the user as brook-core's errors: a stream past the
/// device's storage-buffer limit and a call binding more buffers than a stage allows are
/// `DeviceLimit`s naming the call, a host array of the wrong size core's `StreamError`.
#[test]
fn device_limits_are_errors_not_panics() {
    let rt = wgpu();
    let Err(e) = rt.stream_of(1, &[1 << 20, 1 << 20]) else {
        panic!("a stream past the device's limit was made")
    };
    assert!(
        matches!(&e, BrookError::DeviceLimit { call, .. } if call == "creating a stream"),
        "{e}"
    );
    assert!(
        e.to_string().contains("limit") || e.to_string().contains("2^32"),
        "{e}"
    );
    let a = rt.stream_of(1, &[4]).unwrap();
    assert!(matches!(
        a.read(&[1.0; 3]).unwrap_err(),
        BrookError::Stream(brook::StreamError::Size {
            expected: 4,
            got: 3
        })
    ));

    // wgpu's GL backend binds 16 storage buffers per shader stage; 17 outputs need 17.
    let Some(rt) = support::wgpu_gl() else {
        return;
    };
    let outs: Vec<String> = (0..17).map(|k| format!("out float o{k}<>")).collect();
    let body: Vec<String> = (0..17).map(|k| format!("o{k} = a;")).collect();
    let src = format!(
        "kernel void k(float a<>, {}) {{ {} }}",
        outs.join(", "),
        body.join(" ")
    );
    let p = compile(&rt, &src);
    let a = stream(&rt, &[1], &[4], &[1.0; 4]);
    let streams: Vec<_> = (0..17).map(|_| rt.stream_of(1, &[4]).unwrap()).collect();
    let mut args = vec![Arg::Stream(&a)];
    args.extend(streams.iter().map(Arg::Stream));
    let e = rt.run(&p, "k", &args).unwrap_err();
    // Placed at the kernel's line by the runtime.
    let BrookError::At { line: 1, error, .. } = &e else {
        panic!("not placed at the kernel: {e}")
    };
    assert!(
        matches!(&**error, BrookError::DeviceLimit { call, .. } if call == "kernel `k`"),
        "{e}"
    );
    let text = e.to_string();
    assert!(
        text.contains("binds 18 storage buffers") && text.contains("allows 16 per shader stage"),
        "{text}"
    );
}

const OPS: &str = "
reduce void mul(float a<>, reduce float r<>) { r = r * a; }
reduce void halve_sum(float a<>, reduce float r<>) { r = (r + a) * 0.25; }
// Keeps the element of larger .x, the earlier one on ties (not commutative on ties).
reduce void first_max(float2 a<>, reduce float2 r<>) { if (a.x > r.x) { r = a; } }
kernel void copy(float a<>, out float r<>) { r = a; }
kernel void keep_positive(float a<>, out float r<>) { if (a < 0.0) { discard; } r = a * 10.0; }
kernel void burst(float a<>, vout [4] float2 o<>) {
    float i;
    for (i = 0.0; i < a; i += 1.0) { o = float2(a, i); push(o); }
}
";

/// Index streams (float per dimension) with many collisions and out-of-range values.
fn indices(n: usize, extent: usize, seed: u32) -> Vec<f32> {
    (values(n, seed, -2.0, extent as f32 + 2.0).into_iter())
        .map(|v| v.floor() + 0.3)
        .collect()
}

/// A scatter with combiner `op` (`replace`, `add`, `min`, `max`, or a reduce function of
/// [`OPS`]) of `n` elements of `fpe` floats into `m`, on `rt`: the destination after it.
fn scatter_on(rt: &Runtime, op: &str, fpe: u8, (n, m): (usize, usize), data: &[f32]) -> Vec<f32> {
    let p = compile(rt, OPS);
    // Whole-number initial values: a sum of whole numbers is exact in any order, so the
    // integer `add` case below can demand bit-identical results.
    let init: Vec<f32> = (values(m * fpe as usize, 18, -4.0, 4.0).into_iter())
        .map(f32::round)
        .collect();
    let dst = stream(rt, &[fpe], &[m], &init);
    let index = stream(rt, &[1], &[n], &indices(n, m, 17));
    let d = stream(rt, &[fpe], &[n], data);
    let op = match op {
        "replace" => ScatterOp::Replace,
        "add" => ScatterOp::Add,
        "min" => ScatterOp::Min,
        "max" => ScatterOp::Max,
        f => ScatterOp::Reduce(&p, f),
    };
    rt.scatter(&dst, &index, &d, op).unwrap();
    dst.to_vec().unwrap()
}

fn scatter_both(op: &str, fpe: u8, n: usize, m: usize, data: Vec<f32>, rel: f32) {
    assert_close(
        &format!("scatter {op}"),
        &scatter_on(&wgpu(), op, fpe, (n, m), &data),
        &scatter_on(&Runtime::cpu(), op, fpe, (n, m), &data),
        rel,
    );
}

#[test]
fn scatter_combiners_match_the_cpu() {
    let (n, m) = (20_000, 300);
    // Replace, min, max: exact, with NaNs among the elements.
    let mut data = values(n * 2, 19, -5.0, 5.0);
    data[7] = f32::NAN;
    data[100] = f32::NAN;
    for op in ["replace", "min", "max"] {
        scatter_both(op, 2, n, m, data.clone(), 0.0);
    }
    // Add of integers: exact in any order.
    let ints: Vec<f32> = (0..n).map(|i| (i % 7) as f32 - 3.0).collect();
    scatter_both("add", 1, n, m, ints, 0.0);
    // Add of fractions: the order of collisions differs (see the module documentation).
    scatter_both("add", 1, n, m, values(n, 20, -1.0, 1.0), 1e-5);
    // User reductions in index order: a product of ±1s (exact), and an order-sensitive pick.
    let signs: Vec<f32> = (0..2000)
        .map(|i| if i % 3 == 0 { -1.0 } else { 1.0 })
        .collect();
    scatter_both("mul", 1, 2000, 50, signs, 0.0);
    let ties: Vec<f32> = (0..2000)
        .flat_map(|i| [((i % 5) as f32), i as f32])
        .collect();
    scatter_both("first_max", 2, 2000, 50, ties, 0.0);
}

#[test]
fn gather_op_fetches_and_updates_in_index_order() {
    let (n, m) = (5000, 40);
    let idx = indices(n, m, 21);
    let init: Vec<f32> = (0..m).map(|i| i as f32 * 100.0).collect();
    // A constant operand, or the fetched element combined with itself: doubling by add (to
    // infinity at the busiest places), halving by a user reduction.
    let on = |rt: &Runtime, case: &str| {
        let p = compile(rt, OPS);
        let op = match case {
            "fetch-and-add" => GatherOp::With(ScatterOp::Add, &[1.0]),
            "fetch-and-min" => GatherOp::With(ScatterOp::Min, &[50.0]),
            "fetch-and-mul" => GatherOp::With(ScatterOp::Reduce(&p, "mul"), &[-1.0]),
            "fetch-and-double" => GatherOp::WithFetched(ScatterOp::Add),
            "fetch-and-halve" => GatherOp::WithFetched(ScatterOp::Reduce(&p, "halve_sum")),
            _ => GatherOp::Fetch,
        };
        let data = stream(rt, &[1], &[m], &init);
        let dst = rt.stream_of(1, &[n]).unwrap();
        let index = stream(rt, &[1], &[n], &idx);
        rt.gather_op(&dst, &index, &data, op).unwrap();
        (dst.to_vec().unwrap(), data.to_vec().unwrap())
    };
    let rt = wgpu();
    let keeps = rt.as_wgpu().unwrap().gpu().keeps_denormals();
    for case in [
        "fetch-and-add",
        "fetch-and-min",
        "fetch-and-mul",
        "fetch-and-double",
        "fetch-and-halve",
        "fetch",
    ] {
        let (got, want) = (on(&rt, case), on(&Runtime::cpu(), case));
        for (what, got, want) in [("fetched", got.0, want.0), ("updated", got.1, want.1)] {
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                // Halving reaches denormals at the busiest places.
                assert!(
                    same_or_flushed(*g, *w, keeps),
                    "{case}: {what}: element {i}: wgpu {g:e}, CPU {w:e}"
                );
            }
        }
    }
}

#[test]
fn write_masks_and_queries() {
    let rt = wgpu();
    let p = compile(&rt, OPS);
    let n = 1000;
    let a: Vec<f32> = (0..n)
        .map(|i| if i % 4 == 0 { -(i as f32) } else { i as f32 })
        .collect();
    let input = stream(&rt, &[1], &[n], &a);
    let out = stream(&rt, &[1], &[n], &vec![7.0; n]);
    let mask_data: Vec<f32> = (0..n).map(|i| if i % 3 == 0 { 0.0 } else { 1.0 }).collect();
    let mask = stream(&rt, &[1], &[n], &mask_data);
    rt.set_write_mask(&mask).unwrap();
    // The mask is a copy: changing the stream afterwards changes nothing.
    mask.read(&vec![1.0; n]).unwrap();
    rt.enable_write_mask().unwrap();
    rt.begin_write_query().unwrap();
    rt.run(&p, "keep_positive", args![&input, &out]).unwrap();
    let written = rt.end_write_query().unwrap();
    let got = out.to_vec().unwrap();
    let mut expected_written = 0;
    for i in 0..n {
        let on = i % 3 != 0;
        let kept = a[i] >= 0.0;
        let want = if on && kept { a[i] * 10.0 } else { 7.0 };
        assert_eq!(got[i], want, "element {i}");
        expected_written += usize::from(on && kept);
    }
    assert_eq!(written, expected_written as u64);
    // Disabled: everything is written; a query counts every element.
    rt.disable_write_mask().unwrap();
    rt.begin_write_query().unwrap();
    rt.run(&p, "copy", args![&input, &out]).unwrap();
    assert_eq!(rt.end_write_query().unwrap(), n as u64);
    assert_eq!(out.to_vec().unwrap(), a);
}

#[test]
fn vouts_pack_in_element_order_like_the_cpu() {
    // Enough elements for a three-level scan (256² < 70000).
    let n = 70_000;
    let a: Vec<f32> = (0..n).map(|i| ((i * 7) % 6) as f32).collect();
    let on = |rt: &Runtime| {
        let p = compile(rt, OPS);
        let input = stream(rt, &[1], &[n], &a);
        let out = rt.stream_of(2, &[4 * n]).unwrap();
        let counts = rt.run_vout(&p, "burst", args![&input, &out]).unwrap();
        (counts, out.to_vec().unwrap())
    };
    let (got, want) = (on(&wgpu()), on(&Runtime::cpu()));
    assert_eq!(got.0, want.0);
    assert_close("vout", &got.1, &want.1, 0.0);
}

const REDUCE: &str = "
reduce void sum(float a<>, reduce float r<>) { r = r + a; }
reduce void sum4(float4 a<>, reduce float4 r<>) { r += a; }
reduce void smallest(float a<>, reduce float r<>) { r = min(r, a); }
// 2x2 matrices as float4 (row-major): r = r * a, which does not commute.
reduce void matprod(float4 a<>, reduce float4 r<>) {
    float4 m = r;
    r = float4(m.x * a.x + m.y * a.z, m.x * a.y + m.y * a.w,
               m.z * a.x + m.w * a.z, m.z * a.y + m.w * a.w);
}
struct P { float w; float2 v; };
reduce void heaviest(P a<>, reduce P r<>) { if (a.w > r.w) { r = a; } }
// A saturating sum (associative for non-negative elements), capped at k * t[1].
reduce void capped(float a<>, reduce float r<>, float k, float t[]) { r = min(r + a, k * t[1]); }
";

/// Reduction `name` of `data` (`widths`, `shape`) to a value or to a stream of `out_shape`,
/// on wgpu and on the CPU: (wgpu's result, the CPU's).
fn reduce_both(
    name: &str,
    widths: &[u8],
    shape: &[usize],
    data: &[f32],
    out_shape: Option<&[usize]>,
) -> (Vec<f32>, Vec<f32>) {
    let on = |rt: &Runtime| {
        let p = compile(rt, REDUCE);
        let input = stream(rt, widths, shape, data);
        match out_shape {
            None => rt.reduce_to_value(&p, name, &input, args![]).unwrap(),
            Some(os) => {
                let out = rt.stream(format(widths), os).unwrap();
                rt.reduce_to_stream(&p, name, &input, &out, args![])
                    .unwrap();
                out.to_vec().unwrap()
            }
        }
    };
    (on(&wgpu()), on(&Runtime::cpu()))
}

#[test]
fn sums_of_many_sizes_match_the_cpu() {
    for n in [1, 2, 7, 63, 64, 65, 511, 512, 513, 4097, 100_000, 1 << 20] {
        let data = values(n, n as u32, -1.0, 1.0);
        let (got, want) = reduce_both("sum", &[1], &[n], &data, None);
        // Both sum in f32 in a different association; the bound grows with sqrt(n).
        assert_close(
            &format!("sum of {n}"),
            &got,
            &want,
            1e-4 * (n as f32).sqrt(),
        );
    }
}

#[test]
fn integer_sums_and_minimums_are_exact() {
    let n = 300_001;
    let data: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1000) as f32 - 500.0).collect();
    let (got, want) = reduce_both("sum", &[1], &[n], &data, None);
    assert_close("integer sum", &got, &want, 0.0);
    let (got, want) = reduce_both("smallest", &[1], &[n], &data, None);
    assert_close("min", &got, &want, 0.0);
}

#[test]
fn a_non_commutative_operator_combines_in_index_order() {
    // Integer 2x2 matrices with entries in {0, 1}, products kept small: exact in f32.
    let n = 3002;
    let mut data = Vec::with_capacity(n * 4);
    for i in 0..n {
        // A swap, a reflection and a rotation: they generate a dihedral group, so every
        // product stays a signed permutation matrix (exact), and they do not commute.
        let m = match (i * 7 + i / 5) % 3 {
            0 => [0.0, 1.0, 1.0, 0.0],
            1 => [1.0, 0.0, 0.0, -1.0],
            _ => [0.0, -1.0, 1.0, 0.0],
        };
        data.extend_from_slice(&m);
    }
    let (got, want) = reduce_both("matprod", &[4], &[n], &data, None);
    assert_close("matrix product", &got, &want, 0.0);
    // Combined in reverse order the product differs: the test can fail.
    let reversed: Vec<f32> = data.chunks(4).rev().flatten().copied().collect();
    let (rev, _) = reduce_both("matprod", &[4], &[n], &reversed, None);
    assert_ne!(
        rev, want,
        "the operator commutes on this data; pick other matrices"
    );
}

#[test]
fn reductions_to_streams_reduce_each_block() {
    let data = values(100, 3, 0.0, 10.0);
    let (got, want) = reduce_both("sum", &[1], &[100], &data, Some(&[25]));
    assert_close("<100> to <25>", &got, &want, 1e-6);
    let data = values(50 * 50, 4, 0.0, 10.0);
    let (got, want) = reduce_both("sum", &[1], &[50, 50], &data, Some(&[50, 1]));
    assert_close("<50,50> to <50,1>", &got, &want, 1e-5);
    let (got, want) = reduce_both("sum", &[1], &[50, 50], &data, Some(&[5, 10]));
    assert_close("<50,50> to <5,10>", &got, &want, 1e-5);
    let data = values(4 * 3000, 5, -1.0, 1.0);
    let (got, want) = reduce_both("sum4", &[4], &[2, 1500], &data, Some(&[2, 1]));
    assert_close("float4 <2,1500> to <2,1>", &got, &want, 1e-4);
}

#[test]
fn struct_elements() {
    let n = 5000;
    let mut data = Vec::new();
    for (i, w) in values(n, 9, 0.0, 100.0).into_iter().enumerate() {
        data.extend_from_slice(&[w, i as f32, -(i as f32)]);
    }
    let (got, want) = reduce_both("heaviest", &[1, 2], &[n], &data, None);
    assert_close("heaviest struct", &got, &want, 0.0);
}

#[test]
fn constant_and_gather_arguments() {
    let data: Vec<f32> = (0..777).map(|i| (i % 5) as f32).collect();
    let on = |rt: &Runtime| {
        let p = compile(rt, REDUCE);
        let table = stream(rt, &[1], &[3], &[10.0, 500.0, 30.0]);
        let input = stream(rt, &[1], &[777], &data);
        rt.reduce_to_value(&p, "capped", &input, args![2.0f32, &table])
            .unwrap()
    };
    let (got, want) = (on(&wgpu()), on(&Runtime::cpu()));
    assert_close("constant and gather", &got, &want, 0.0);
    assert_eq!(got, [1000.0], "the cap k * t[1] = 2 * 500");
}

const STEP: &str =
    "kernel void step(float a, float x<>, float y<>, out float r<>) { r = a * x + y; }";

/// How many bind groups the wgpu backend under `rt` keeps.
fn kept(rt: &Runtime) -> usize {
    rt.as_wgpu().expect("a wgpu runtime").kept_bind_groups()
}

/// Kernel calls reuse their bind groups, keyed by the exact buffers bound and call-info
/// buffer, one kept per distinct call info: a reused group must never bind the wrong buffer
/// or stale call info (integers, so that the results are exact).
#[test]
fn ping_pong_with_swap_binds_the_swapped_buffers_every_call() {
    let rt = wgpu();
    let p = compile(&rt, STEP);
    let n = 37;
    let x: Vec<f32> = (0..n).map(|i| (i % 5) as f32).collect();
    let y = stream(
        &rt,
        &[1],
        &[n],
        &(0..n).map(|i| i as f32).collect::<Vec<_>>(),
    );
    let r = stream(&rt, &[1], &[n], &vec![-1.0; n]);
    let xs = stream(&rt, &[1], &[n], &x);
    let mut want: Vec<f32> = (0..n).map(|i| i as f32).collect();
    // The constant changes on some calls and repeats on others: the call info must follow.
    for (call, a) in [1.0f32, 1.0, 2.0, 2.0, -3.0, 1.0, 1.0]
        .into_iter()
        .enumerate()
    {
        rt.run(&p, "step", args![a, &xs, &y, &r]).unwrap();
        for (w, xi) in want.iter_mut().zip(&x) {
            *w += a * xi;
        }
        assert_eq!(r.to_vec().unwrap(), want, "call {call}: r = a·x + y");
        rt.swap(&y, &r).unwrap();
        assert_eq!(y.to_vec().unwrap(), want, "call {call}: y after the swap");
    }
    // Two buffer sets alternate (x, y, r) and (x, r, y), each with the call info of the
    // constants it met (1 and 2 on both, -3 on the first): five kept groups, one per call
    // info and buffer set, not one per call.
    assert_eq!(kept(&rt), 5);
}

#[test]
fn streams_dropped_and_made_again_are_bound_afresh_and_their_groups_forgotten() {
    let rt = wgpu();
    let p = compile(&rt, STEP);
    let n = 16;
    for round in 0..4 {
        // New streams of the same size each round: the allocator may well hand out the old
        // memory again, which must not find the old streams' bind group.
        let base = round as f32 * 100.0;
        let x = stream(&rt, &[1], &[n], &vec![1.0; n]);
        let y = stream(
            &rt,
            &[1],
            &[n],
            &(0..n).map(|i| base + i as f32).collect::<Vec<_>>(),
        );
        let r = rt.stream_of(1, &[n]).unwrap();
        rt.run(&p, "step", args![2.0f32, &x, &y, &r]).unwrap();
        let want: Vec<f32> = (0..n).map(|i| base + i as f32 + 2.0).collect();
        assert_eq!(r.to_vec().unwrap(), want, "round {round}");
        assert_eq!(kept(&rt), 1, "round {round}: this round's group");
        drop((x, y, r));
        assert_eq!(
            kept(&rt),
            0,
            "round {round}: dropping a stream frees its groups"
        );
    }
}

#[test]
fn a_call_with_an_in_place_copy_or_a_new_output_still_gets_the_right_buffers() {
    let rt = wgpu();
    let p = compile(&rt, STEP);
    let n = 9;
    let x = stream(&rt, &[1], &[n], &vec![3.0; n]);
    let y = stream(
        &rt,
        &[1],
        &[n],
        &(0..n).map(|i| i as f32).collect::<Vec<_>>(),
    );
    let r = rt.stream_of(1, &[n]).unwrap();
    let call = |out: &Stream, input: &Stream| {
        rt.run(&p, "step", args![1.0f32, &x, input, out]).unwrap();
    };
    call(&r, &y);
    let once: Vec<f32> = (0..n).map(|i| i as f32 + 3.0).collect();
    assert_eq!(r.to_vec().unwrap(), once);
    // In place (y both input and output): read whole and written whole, bound read-write.
    call(&y, &y);
    assert_eq!(y.to_vec().unwrap(), once);
    // The first buffer set again, after other sets were bound: its kept group.
    call(&r, &y);
    let twice: Vec<f32> = (0..n).map(|i| i as f32 + 6.0).collect();
    assert_eq!(r.to_vec().unwrap(), twice);
    // A fresh output, then the first output again.
    let s = rt.stream_of(1, &[n]).unwrap();
    call(&s, &r);
    assert_eq!(
        s.to_vec().unwrap(),
        (0..n).map(|i| i as f32 + 9.0).collect::<Vec<_>>()
    );
    call(&r, &s);
    assert_eq!(
        r.to_vec().unwrap(),
        (0..n).map(|i| i as f32 + 12.0).collect::<Vec<_>>()
    );
}

/// The kernel call's one pass in `entry`.
fn dispatch(entry: &TraceEntry) -> &brook::PassTrace {
    match entry {
        TraceEntry::Kernel(c) => {
            assert_eq!(c.passes.len(), 1, "{entry}");
            &c.passes[0]
        }
        other => panic!("not a kernel call: {other}"),
    }
}

#[test]
fn the_trace_shows_dispatches_and_reuse() {
    let rt = wgpu();
    let p = compile(&rt, OPS);
    let a = stream(&rt, &[1], &[100_000], &vec![1.0; 100_000]);
    let r = rt.stream_of(1, &[100_000]).unwrap();
    rt.set_trace(true);
    rt.run(&p, "copy", args![&a, &r]).unwrap();
    rt.run(&p, "copy", args![&a, &r]).unwrap();
    rt.swap(&a, &r).unwrap();
    rt.run(&p, "copy", args![&a, &r]).unwrap();
    let t = rt.take_trace();
    assert_eq!(t.len(), 4, "{t:?}");
    let compiled = |e: &TraceEntry| match e {
        TraceEntry::Kernel(c) => c.compiled.is_some(),
        _ => false,
    };
    assert!(
        compiled(&t[0]) && !compiled(&t[1]),
        "built once, then reused"
    );
    let first = dispatch(&t[0]);
    assert_eq!(
        first.draw,
        Draw::Dispatch {
            workgroups: [1563, 1, 1]
        },
        "100000 invocations in workgroups of 64"
    );
    let [(ref an, ida), (ref rn, idr)] = first.targets[..] else {
        panic!("two bindings: {:?}", first.targets)
    };
    assert_eq!((an.as_str(), rn.as_str()), ("a", "out r"));
    // The swap exchanged the buffers, and their ids with them.
    assert!(
        matches!(&t[2], TraceEntry::Swap { first, second } if first == &[ida] && second == &[idr]),
        "{}",
        t[2]
    );
    assert_eq!(
        dispatch(&t[3]).targets,
        vec![("a".to_string(), idr), ("out r".to_string(), ida)]
    );
    // An in-place call with a shifted domain copies its input first.
    let (d_in, d_out) = (
        r.domain(&[0], &[99_999]).unwrap(),
        r.domain(&[1], &[100_000]).unwrap(),
    );
    rt.run(&p, "copy", &[Arg::Domain(&d_in), Arg::Domain(&d_out)])
        .unwrap();
    let t = rt.take_trace();
    let TraceEntry::Kernel(c) = &t[0] else {
        panic!("{}", t[0])
    };
    assert_eq!(c.passes[0].draw, Draw::Copy, "{}", t[0]);
    rt.set_trace(false);
}

/// The WGSL of a call's pipeline, from the trace.
fn wgsl_of(rt: &Runtime, p: &Program, kernel: &str, args: &[Arg]) -> String {
    rt.set_trace(true);
    rt.run(p, kernel, args).unwrap();
    let t = rt.take_trace();
    rt.set_trace(false);
    let pass = dispatch(&t[0]);
    pass.program
        .as_ref()
        .expect("a pipeline")
        .source
        .to_string()
}

#[test]
fn the_wgsl_of_a_call_is_printed_for_people() {
    let rt = wgpu();
    let p = compile(&rt, OPS);
    let a = stream(&rt, &[1], &[10], &[1.0; 10]);
    let r = rt.stream_of(1, &[10]).unwrap();
    let wgsl = wgsl_of(&rt, &p, "copy", args![&a, &r]);
    assert!(wgsl.contains("@compute @workgroup_size(64"), "{wgsl}");
    assert!(wgsl.contains("fn brook_copy"), "{wgsl}");
    assert!(
        wgsl.contains("var<storage, read_write> out_r: array<f32>"),
        "{wgsl}"
    );
}

/// A kernel's loops are checked (`brook_left` counts in its shader) only on an adapter that
/// caps loop iterations, and only for a call whose constants do not bound them within the cap
/// (this loop ends early by its `break`, so the checked call runs to the end).
#[test]
fn a_call_checks_its_loops_only_when_the_cap_could_cut_them() {
    let rt = wgpu();
    let p = compile(
        &rt,
        "kernel void k(float a<>, int m, out float r<>) {
            float x = 0.0;
            for (int i = 0; i < m; i++) { if ((float)i >= a) break; x += a; }
            r = x;
        }",
    );
    let a = stream(&rt, &[1], &[2], &[1.0, 2.0]);
    let r = rt.stream_of(1, &[2]).unwrap();
    let capped = rt.as_wgpu().unwrap().gpu().loop_cap().is_some();
    for (m, checked) in [(1000.0f32, false), (70_000.0, capped)] {
        let wgsl = wgsl_of(&rt, &p, "k", args![&a, m, &r]);
        assert_eq!(wgsl.contains("brook_left"), checked, "m = {m}:\n{wgsl}");
    }
}

/// Kernels are built without naga's bounds checks (`brook_wgpu::pipeline::Bounds`): Brook's
/// own index rules are what keeps every index in range, so indices far past either end must
/// still read the elements those rules pick — a float and an int gather of a 1D stream, both
/// subscripts of a 2D one, a local array's and a vector's subscripts — exactly as on the CPU.
#[test]
fn out_of_range_indices_follow_brooks_rule_without_naga_bounds_checks() {
    let src = "
kernel void pick(float i<>, float t[], float u[][], out float4 r<>) {
    float a[3];
    a[0] = 1.0;
    a[1] = 2.0;
    a[2] = 3.0;
    float4 v = float4(10.0, 20.0, 30.0, 40.0);
    int k = (int) i;
    r = float4(t[i], t[k], u[i][-i], a[k] + v[k]);
}";
    let idx = [-1e9, -70000.0, -1.0, 0.0, 2.0, 9.0, 10.0, 4096.0, 1e9];
    let table: Vec<f32> = (0..10).map(|e| 100.0 + e as f32).collect();
    let grid: Vec<f32> = (0..6 * 10).map(|e| e as f32).collect();
    let run = |rt: &Runtime| {
        let p = compile(rt, src);
        let i = stream(rt, &[1], &[idx.len()], &idx);
        let t = stream(rt, &[1], &[10], &table);
        let u = stream(rt, &[1], &[6, 10], &grid);
        let r = rt.stream_of(4, &[idx.len()]).unwrap();
        rt.run(&p, "pick", args![&i, &t, &u, &r]).unwrap();
        r.to_vec().unwrap()
    };
    let got = run(&wgpu());
    assert_eq!(got, run(&Runtime::cpu()), "wgpu against the CPU");
    // Far below: element 0 everywhere; far above: the last element of each.
    assert_eq!(got[..4], [100.0, 100.0, 9.0, 11.0]);
    let last = &got[got.len() - 4..];
    assert_eq!(last, [109.0, 109.0, 50.0, 43.0]);
}

/// Brook's index rule inside reduction passes: a kernel fused into the first pass gathering
/// past both ends, and a reduce function gathering and subscripting past both ends, reduced
/// through the block geometry (a 4 × 8 stream to its column sums) and to a value, give the
/// CPU's bits and the sums the rule implies (integers, so every order sums exactly; the
/// clamped reads are the ends of `u` and `a`, all 1, so the reduce function stays a sum).
#[test]
fn reductions_follow_brooks_index_rule() {
    let src = "
kernel void shift(float x<>, float t[], out float y<>) {
    y = x + t[x * 1000.0];
}

reduce void sum(float y<>, reduce float r<>, float u[]) {
    float a[2];
    a[0] = 1.0;
    a[1] = 1.0;
    int k = (int) y;
    r += y * u[y * 1000.0] * a[k];
}";
    let x: Vec<f32> = (0..32).map(|e| (e % 8 - 3) as f32).collect();
    let mut t = vec![5.0; 10];
    (t[0], t[9]) = (2.0, 3.0);
    let mut u = vec![7.0; 10];
    (u[0], u[9]) = (1.0, 1.0);
    let run = |rt: &Runtime| {
        let p = compile(rt, src);
        let xs = stream(rt, &[1], &[4, 8], &x);
        let ts = stream(rt, &[1], &[10], &t);
        let us = stream(rt, &[1], &[10], &u);
        let y = rt.stream_of(1, &[4, 8]).unwrap();
        let columns = rt.stream_of(1, &[1, 8]).unwrap();
        let kernel_args = args![&xs, &ts, &y];
        rt.map_reduce_to_stream(&p, "shift", kernel_args, "sum", &columns, args![&us])
            .unwrap();
        let total = rt
            .map_reduce_to_value(&p, "shift", kernel_args, "sum", args![&us])
            .unwrap();
        (columns.to_vec().unwrap(), total)
    };
    let got = run(&wgpu());
    assert_eq!(got, run(&Runtime::cpu()), "wgpu against the CPU");
    // x ≤ 0 gathers t[0] = 2, x > 0 gathers t[9] = 3; each column holds one x four times.
    let y = |x: f32| x + if x > 0.0 { 3.0 } else { 2.0 };
    let columns: Vec<f32> = x[..8].iter().map(|&x| 4.0 * y(x)).collect();
    assert_eq!(got.0, columns);
    assert_eq!(got.1, [columns.iter().sum::<f32>()]);
}

/// A call of more invocations than one row of 65,535 workgroups holds runs in two rows of
/// equal length (not a full row and a row of one workgroup, which left half the grid idle and
/// doubled the dispatch's time on lavapipe), and every element is computed once, at its own
/// index: each holds its linear position, exact in float below 2²⁴.
#[test]
fn a_call_past_one_row_of_workgroups_numbers_every_element() {
    let rt = wgpu();
    let p = compile(
        &rt,
        "kernel void number(out float o<>) {
            o = indexof(o).x;
        }",
    );
    let n = 2050 * 2048;
    let o = rt.stream_of(1, &[n]).unwrap();
    rt.set_trace(true);
    rt.run(&p, "number", args![&o]).unwrap();
    let trace = rt.take_trace();
    assert_eq!(
        dispatch(&trace[0]).draw,
        Draw::Dispatch {
            workgroups: [32800, 2, 1]
        },
        "{n} invocations in two rows of workgroups of 64",
    );
    numbered_in_order(&o.to_vec().unwrap());
}

/// A 2D call runs as the rasteriser covers a texture: one row of workgroups per row of
/// elements, the element's column and row its invocation's (no division by the call's width);
/// the columns past a width that is no multiple of 64 idle, and every element is computed
/// once, at its own index, in both layouts of the grid (rows, and linear for rows too narrow
/// to fill their workgroups).
#[test]
fn a_2d_call_runs_a_row_of_workgroups_per_row_of_elements() {
    let rt = wgpu();
    let p = compile(
        &rt,
        "kernel void number(float width, out float o<>) {
            float2 i = indexof(o).xy;
            o = i.y * width + i.x;
        }",
    );
    for (rows, width, workgroups) in [
        (2050, 2048, [32, 2050, 1]),
        (300, 1000, [16, 300, 1]),
        (1000, 100, [1563, 1, 1]),
    ] {
        let o = rt.stream_of(1, &[rows, width]).unwrap();
        rt.set_trace(true);
        rt.run(&p, "number", args![width as f32, &o]).unwrap();
        let trace = rt.take_trace();
        assert_eq!(
            dispatch(&trace[0]).draw,
            Draw::Dispatch { workgroups },
            "{rows} × {width}"
        );
        numbered_in_order(&o.to_vec().unwrap());
    }
}

/// Each element holds its linear index.
fn numbered_in_order(got: &[f32]) {
    let wrong: Vec<_> = (got.iter().enumerate())
        .filter(|&(i, &v)| v != i as f32)
        .take(5)
        .collect();
    assert!(wrong.is_empty(), "elements not at their index: {wrong:?}");
}

/// The WGSL a call ran, from its trace.
fn traced_wgsl(entry: &TraceEntry) -> String {
    let program = (dispatch(entry).program.as_ref()).expect("a dispatch runs a pipeline");
    match &*program.source {
        brook::core::ShaderSource::Compute(wgsl) => wgsl.clone(),
        other => panic!("a compute shader, not {other:?}"),
    }
}

/// No uniform read at a constant index decides a branch or bounds a loop alone in a kernel's
/// shader, so lavapipe (Mesa 22.3), which inlines such uniforms and compiles the shader anew
/// at every dispatch to do so, keeps one compiled shader: a loop bounded by a constant reads
/// it at an index offset by the opaque zero, and the loop check's never-taken branch tests
/// the zero read at an index offset by itself. Both calls still give the CPU's answer.
#[test]
fn no_uniform_a_driver_could_inline_decides_a_branch() {
    let src = "kernel void grow(float a<>, out float r<>) {
        float x = a;
        while (x < 100.0) x *= 2.0;
        r = x;
    }
    kernel void sum(float a[][], int m, out float r<>) {
        float t = 0.0;
        for (int k = 0; k < m; k++) t += a[k][indexof(r).x];
        r = t;
    }";
    let rt = wgpu();
    let p = compile(&rt, src);
    let a = stream(&rt, &[1], &[4, 8], &values(32, 7, 1.0, 50.0));
    let (grown, summed) = (
        rt.stream_of(1, &[4, 8]).unwrap(),
        rt.stream_of(1, &[8]).unwrap(),
    );
    rt.set_trace(true);
    rt.run(&p, "grow", args![&a, &grown]).unwrap();
    rt.run(&p, "sum", args![&a, 4.0f32, &summed]).unwrap();
    let trace = rt.take_trace();
    let (grow, sum) = (traced_wgsl(&trace[0]), traced_wgsl(&trace[1]));
    let cpu = Runtime::cpu();
    let pc = compile(&cpu, src);
    let ac = stream(&cpu, &[1], &[4, 8], &values(32, 7, 1.0, 50.0));
    let (gc, sc) = (
        cpu.stream_of(1, &[4, 8]).unwrap(),
        cpu.stream_of(1, &[8]).unwrap(),
    );
    cpu.run(&pc, "grow", args![&ac, &gc]).unwrap();
    cpu.run(&pc, "sum", args![&ac, 4.0f32, &sc]).unwrap();
    assert_eq!(grown.to_vec().unwrap(), gc.to_vec().unwrap());
    assert_eq!(summed.to_vec().unwrap(), sc.to_vec().unwrap());
    // The loop check's branch, where the driver caps loops (lavapipe; NVIDIA's does not, and
    // there the loop is not checked): `if (info[(0u + z.w)].w != 0u)`.
    if rt.as_wgpu().unwrap().gpu().loop_cap().is_some() {
        let branch = (grow.lines()).find(|l| l.contains("!= 0u"));
        assert!(branch.is_some(), "the checked loop's branch:\n{grow}");
        assert!(
            grow.contains("info[(0u + "),
            "the branch's zero read at an opaque index:\n{grow}"
        );
    } else {
        assert!(
            !grow.contains("!= 0u"),
            "no loop check without a cap:\n{grow}"
        );
    }
    assert!(
        sum.contains("info[(3u + ") && !sum.contains("info[3]"),
        "the constant m read at an opaque index:\n{sum}"
    );
}

/// Denormal results: kept, as the CPU keeps them, where the device can in the accurate
/// contract (`Gpu::keeps_denormals`: exact SPIR-V in `DenormPreserve` where the device offers
/// it); elsewhere kept or flushed to a zero of the same sign, as the driver does (neither
/// lavapipe nor NVIDIA's driver offers the mode: lavapipe keeps them, NVIDIA flushes them, as
/// GL does).
#[test]
fn denormal_results_are_kept_where_the_device_can() {
    // One product: a normal result never depends on a flushed intermediate.
    let src = "kernel void shrink(float a<>, out float r<>) { r = a * 0.375; }";
    let a = [
        4e-38f32, -4e-38, 1.5e-38, -2e-38, 1e-39, -3e-40, 1e-45, 2e-30, -3.0, 0.0, -0.0,
    ];
    let rt = wgpu();
    let keeps = rt.as_wgpu().unwrap().gpu().keeps_denormals();
    let run = |rt: &Runtime| {
        let p = compile(rt, src);
        let (x, r) = (
            stream(rt, &[1], &[a.len()], &a),
            rt.stream_of(1, &[a.len()]).unwrap(),
        );
        rt.run(&p, "shrink", args![&x, &r]).unwrap();
        r.to_vec().unwrap()
    };
    let (got, want) = (run(&rt), run(&Runtime::cpu()));
    assert!(
        want.iter().filter(|w| w.is_subnormal()).count() >= 4,
        "{want:?}"
    );
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(
            same_or_flushed(*g, *w, keeps),
            "element {i} ({}): wgpu {g:e}, CPU {w:e} (denormals kept: {keeps})",
            a[i]
        );
    }
}

/// Inputs resized along some dimensions and not others (extent 1: always element 0; the
/// call's extent: the index itself; any other: `i · to / from`), each dimension's case known
/// from the shapes and compiled without arithmetic where it needs none, give the CPU's
/// results bit for bit, in every combination, and each call's own after others.
#[test]
fn resized_inputs_by_dimension_match_the_cpu() {
    let src = "kernel void mix(float a<>, float b<>, float c<>, float d<>, out float r<>) {
        r = a + 10.0 * b + 100.0 * c + 1000.0 * d;
    }";
    let run = |rt: &Runtime| {
        let p = compile(rt, src);
        let mut outs = Vec::new();
        for shapes in [
            [[1, 7], [5, 1], [1, 1], [10, 7]],
            [[5, 7], [1, 7], [5, 14], [1, 1]],
            [[5, 1], [10, 14], [1, 7], [5, 7]],
        ] {
            let ins: Vec<Stream> = (shapes.iter().enumerate())
                .map(|(k, s)| {
                    let n = s[0] * s[1];
                    stream(rt, &[1], s, &values(n, 3 + k as u32, 0.0, 9.0))
                })
                .collect();
            let r = rt.stream_of(1, &[5, 7]).unwrap();
            rt.run(&p, "mix", args![&ins[0], &ins[1], &ins[2], &ins[3], &r])
                .unwrap();
            outs.push(r.to_vec().unwrap());
        }
        outs
    };
    assert_eq!(run(&wgpu()), run(&Runtime::cpu()));
}
