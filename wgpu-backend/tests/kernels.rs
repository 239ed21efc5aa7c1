//! Kernels on wgpu against the CPU backend (`brook-cpu`), on data large enough to cross
//! workgroups: gathers with Brook's rounding and clamping, resizing, iterators, `indexof`,
//! struct streams, many outputs, built-ins, int arithmetic, helpers that discard; and
//! domains and in-place calls against values worked out by hand.
//!
//! Tolerances: 0 (bit-identical) wherever the operations are exact or are the same IEEE
//! operations in the same order (each built-in alone is bit-identical on lavapipe; sums of
//! several allow 1e-6 for contraction into fused multiply-adds); transcendentals come from
//! GL's math library, each within a few ulp of the CPU's (`tests/numeric_contract.rs` holds
//! them to the contract), so sums of ten of them get 2e-6 relative.

mod support;

use brook_core::{BrookError, StreamError};
use brook_cpu::{run_kernel, CpuArg, CpuStream};
use brook_wgpu::{Domain, IterSpec, KernelArg, WgpuBackend, WgpuError};
use support::*;

/// Runs kernel `name` of `src` on both backends. `inputs`: (widths, shape, data) per input
/// or gather parameter in order, `consts` the constants in order of appearance, outputs by
/// (widths, shape). Returns (wgpu outputs, CPU outputs).
struct Call<'a> {
    src: &'a str,
    name: &'a str,
    /// One per parameter: an input stream (widths, shape, data), a constant, an output.
    args: Vec<A>,
}

enum A {
    In(Vec<u8>, Vec<usize>, Vec<f32>),
    Iter(Vec<usize>, Vec<f32>, Vec<f32>),
    Const(Vec<f32>),
    Out(Vec<u8>, Vec<usize>),
}

/// The iterator over `shape` from `start` to `end` (one float per component), as both
/// backends take it.
fn iter_spec(shape: &[usize], start: &[f32], end: &[f32]) -> IterSpec {
    let (mut a0, mut a1) = ([0.0; 4], [0.0; 4]);
    a0[..start.len()].copy_from_slice(start);
    a1[..end.len()].copy_from_slice(end);
    IterSpec::new(shape, start.len() as u8, a0, a1).unwrap()
}

fn run_both(b: &WgpuBackend, c: &Call) -> (Vec<Vec<f32>>, Vec<Vec<f32>>) {
    let p = program(b, c.src);
    let f = function(&p, c.name);
    let mut module = brook_frontend::compile(c.src, "t.br").unwrap();
    brook_ir::lower_composites(&mut module);
    let func = module.func(f);
    // wgpu
    let mut ws = Vec::new();
    for a in &c.args {
        ws.push(match a {
            A::In(w, s, d) => Some(stream(b, w, s, d)),
            A::Iter(s, st, en) => Some(b.create_iter(iter_spec(s, st, en))),
            A::Out(w, s) => Some(b.create_stream(w, s).unwrap()),
            A::Const(_) => None,
        });
    }
    let args: Vec<KernelArg> = c
        .args
        .iter()
        .zip(&ws)
        .map(|(a, s)| match (a, s) {
            (A::Const(v), _) => KernelArg::Constant(v),
            (_, Some(s)) => KernelArg::Stream(s),
            _ => unreachable!(),
        })
        .collect();
    b.run_kernel(&p, f, &args).unwrap();
    let got: Vec<Vec<f32>> = c
        .args
        .iter()
        .zip(&ws)
        .filter(|(a, _)| matches!(a, A::Out(..)))
        .map(|(_, s)| read_all(b, s.as_ref().unwrap()))
        .collect();
    // CPU
    let ins: Vec<Option<CpuStream>> = c
        .args
        .iter()
        .map(|a| match a {
            A::In(w, s, d) => Some(cpu_stream(w, s, d)),
            _ => None,
        })
        .collect();
    let iters: Vec<Option<IterSpec>> = c
        .args
        .iter()
        .map(|a| match a {
            A::Iter(s, st, en) => Some(iter_spec(s, st, en)),
            _ => None,
        })
        .collect();
    let mut outs: Vec<CpuStream> = c
        .args
        .iter()
        .filter_map(|a| match a {
            A::Out(w, s) => Some(CpuStream::new(w, s).unwrap()),
            _ => None,
        })
        .collect();
    {
        let mut out_iter = outs.iter_mut();
        let mut cargs = Vec::new();
        for (k, a) in c.args.iter().enumerate() {
            cargs.push(match a {
                A::In(..) => {
                    let s = ins[k].as_ref().unwrap();
                    if matches!(func.params[k].class, brook_ir::ParamClass::Gather { .. }) {
                        CpuArg::Gather(s)
                    } else {
                        CpuArg::Stream(s)
                    }
                }
                A::Iter(..) => CpuArg::Iter(iters[k].as_ref().unwrap()),
                A::Const(v) => CpuArg::Constant(v.clone()),
                A::Out(..) => CpuArg::Out(out_iter.next().unwrap()),
            });
        }
        run_kernel(&module, f, &mut cargs).unwrap();
    }
    (got, outs.iter().map(|o| o.data().to_vec()).collect())
}

fn check(b: &WgpuBackend, c: Call, rel: f32) {
    let (got, want) = run_both(b, &c);
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_close(&format!("{} output {k}", c.name), g, w, rel);
    }
}

#[test]
fn gathers_round_and_clamp_like_the_cpu() {
    let b = backend();
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
    check(
        &b,
        Call {
            src,
            name: "g1",
            args: vec![
                A::In(vec![1], vec![n], wild),
                A::In(vec![1], vec![100], table.clone()),
                A::Out(vec![1], vec![n]),
            ],
        },
        0.0,
    );
    let idx2 = values(2 * n, 3, -2.0, 12.0);
    check(
        &b,
        Call {
            src,
            name: "g2",
            args: vec![
                A::In(vec![2], vec![n], idx2.clone()),
                A::In(vec![1], vec![10, 10], table.clone()),
                A::Out(vec![1], vec![n]),
            ],
        },
        0.0,
    );
    check(
        &b,
        Call {
            src,
            name: "g2s",
            args: vec![
                A::In(vec![2], vec![n], idx2),
                A::In(vec![1], vec![10, 10], table.clone()),
                A::Out(vec![1], vec![n]),
            ],
        },
        0.0,
    );
    let t4 = values(400, 4, -1.0, 1.0);
    check(
        &b,
        Call {
            src,
            name: "gint",
            args: vec![
                A::In(vec![1], vec![n], idx),
                A::In(vec![4], vec![100], t4),
                A::Out(vec![4], vec![n]),
            ],
        },
        0.0,
    );
}

#[test]
fn resizing_iterators_and_indexof() {
    let b = backend();
    let src = "
kernel void copy(float a<>, out float r<>) { r = a; }
kernel void pos(float a<>, out float4 r<>, out float4 q<>) { r = indexof(a); q = indexof(r); }
kernel void it1(iter float2 i<>, out float2 r<>) { r = i; }
kernel void it2(iter float2 i<>, float a<>, out float2 r<>) { r = i + a; }
";
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
            &b,
            Call {
                src,
                name: "copy",
                args: vec![A::In(vec![1], vec![from], d), A::Out(vec![1], vec![to])],
            },
            0.0,
        );
    }
    let d: Vec<f32> = (0..30).map(|i| i as f32).collect();
    check(
        &b,
        Call {
            src,
            name: "copy",
            args: vec![
                A::In(vec![1], vec![2, 15], d.clone()),
                A::Out(vec![1], vec![4, 5]),
            ],
        },
        0.0,
    );
    check(
        &b,
        Call {
            src,
            name: "pos",
            args: vec![
                A::In(vec![1], vec![2, 15], d),
                A::Out(vec![4], vec![4, 5]),
                A::Out(vec![4], vec![4, 5]),
            ],
        },
        0.0,
    );
    check(
        &b,
        Call {
            src,
            name: "it1",
            args: vec![
                A::Iter(vec![1000], vec![0.0, 9.0], vec![64.0, -1.0]),
                A::Out(vec![2], vec![1000]),
            ],
        },
        0.0,
    );
    let a = values(60 * 70, 5, 0.0, 1.0);
    check(
        &b,
        Call {
            src,
            name: "it2",
            args: vec![
                A::Iter(vec![6, 7], vec![0.0, 1.0], vec![7.0, 13.0]),
                A::In(vec![1], vec![60, 70], a),
                A::Out(vec![2], vec![60, 70]),
            ],
        },
        0.0,
    );
}

#[test]
fn struct_streams_and_many_outputs() {
    let b = backend();
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
    let n = 3000;
    let p = values(n * 6, 6, -5.0, 5.0);
    check(
        &b,
        Call {
            src,
            name: "step",
            args: vec![
                A::In(vec![3, 1, 2], vec![n], p),
                A::Const(vec![0.01]),
                A::Out(vec![3, 1, 2], vec![n]),
                A::Out(vec![1], vec![n]),
            ],
        },
        0.0,
    );
    let q = values(n * 4, 12, 0.0, 40.0);
    let t = values(50 * 4, 13, -1.0, 1.0);
    check(
        &b,
        Call {
            src,
            name: "mix",
            args: vec![
                A::In(vec![2, 1, 1], vec![n], q),
                A::In(vec![2, 1, 1], vec![50], t),
                A::Out(vec![2, 1, 1], vec![n]),
            ],
        },
        0.0,
    );
    let a = values(n, 7, -5.0, 5.0);
    let mut args = vec![A::In(vec![1], vec![n], a)];
    args.extend((0..6).map(|_| A::Out(vec![1], vec![n])));
    check(
        &b,
        Call {
            src,
            name: "fan",
            args,
        },
        0.0,
    );
}

#[test]
fn builtins_match_the_cpu() {
    let b = backend();
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
    let outs = |k: usize| (0..k).map(|_| A::Out(vec![4], vec![n])).collect::<Vec<_>>();
    let mut args = vec![
        A::In(vec![4], vec![n], x.clone()),
        A::In(vec![4], vec![n], y.clone()),
    ];
    args.extend(outs(4));
    // Exact operations, but the driver may fuse `a * b + c` into one rounding, and `sqrt`
    // and division are correctly rounded only to 1 ulp on some drivers.
    check(
        &b,
        Call {
            src: exact,
            name: "k",
            args,
        },
        1e-6,
    );
    let mut args = vec![
        A::In(vec![4], vec![n], x.clone()),
        A::In(vec![4], vec![n], y.clone()),
    ];
    args.extend(outs(2));
    check(
        &b,
        Call {
            src: trans,
            name: "k",
            args,
        },
        2e-6,
    );
    // asin and acos: the library's, not lavapipe's (off by about 2e-4).
    let mut args = vec![A::In(vec![4], vec![n], x), A::In(vec![4], vec![n], y)];
    args.extend(outs(1));
    check(
        &b,
        Call {
            src: inverse,
            name: "k",
            args,
        },
        1e-6,
    );
}

#[test]
fn int_arithmetic_and_helpers_with_discard() {
    let b = backend();
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
    let a: Vec<f32> = values(n, 10, -200.0, 200.0)
        .into_iter()
        .map(f32::trunc)
        .collect();
    let mut c: Vec<f32> = values(n, 11, -10.0, 10.0)
        .into_iter()
        .map(f32::trunc)
        .collect();
    c[3] = 0.0;
    c[4] = 0.0;
    check(
        &b,
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
    let b = backend();
    let p = program(
        &b,
        "
kernel void add(float a<>, float c<>, out float r<>) { r = a + c; }
kernel void inc(float a<>, out float r<>) { r = a + 1.0; }
kernel void pos(float a<>, out float2 r<>) { r = indexof(a).xy; }
",
    );
    let (add, inc, pos) = (
        function(&p, "add"),
        function(&p, "inc"),
        function(&p, "pos"),
    );
    // In place, whole stream: every element reads its old value.
    let s = stream(
        &b,
        &[1],
        &[1000],
        &(0..1000).map(|i| i as f32).collect::<Vec<_>>(),
    );
    b.run_kernel(&p, inc, &[KernelArg::Stream(&s), KernelArg::Stream(&s)])
        .unwrap();
    assert_eq!(
        read_all(&b, &s),
        (0..1000).map(|i| i as f32 + 1.0).collect::<Vec<_>>()
    );
    // In place, shifted: out[1..] = in[0..n-1] + 1, all reading old values.
    let d_in = Domain::new(&[0], &[999]).unwrap();
    let d_out = Domain::new(&[1], &[1000]).unwrap();
    b.run_kernel(
        &p,
        inc,
        &[KernelArg::Domain(&s, &d_in), KernelArg::Domain(&s, &d_out)],
    )
    .unwrap();
    let got = read_all(&b, &s);
    assert_eq!(got[0], 1.0);
    assert!(
        (1..1000).all(|i| got[i] == i as f32 + 1.0),
        "a shifted in-place call reads old values"
    );
    // A 2D output domain: only its elements change.
    let m = stream(&b, &[1], &[6, 8], &[0.0; 48]);
    let a = stream(&b, &[1], &[3, 4], &[1.0; 12]);
    let c = stream(
        &b,
        &[1],
        &[6, 8],
        &(0..48).map(|i| i as f32).collect::<Vec<_>>(),
    );
    let dc = Domain::new(&[2, 3], &[5, 7]).unwrap();
    let dm = Domain::new(&[1, 2], &[4, 6]).unwrap();
    b.run_kernel(
        &p,
        add,
        &[
            KernelArg::Stream(&a),
            KernelArg::Domain(&c, &dc),
            KernelArg::Domain(&m, &dm),
        ],
    )
    .unwrap();
    let got = read_all(&b, &m);
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
    let q = b.create_stream(&[2], &[3, 4]).unwrap();
    b.run_kernel(
        &p,
        pos,
        &[KernelArg::Domain(&c, &dc), KernelArg::Stream(&q)],
    )
    .unwrap();
    let got = read_all(&b, &q);
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
    b.write(&c, Some(&dc), &mut part).unwrap();
    assert_eq!(part[..4], [19.0, 20.0, 21.0, 22.0]);
    b.read(&c, Some(&dc), &[-1.0; 12]).unwrap();
    let all = read_all(&b, &c);
    assert_eq!(all.iter().filter(|&&x| x == -1.0).count(), 12);
    assert_eq!(all[19], -1.0);
    assert_eq!(all[18], 18.0);
}

#[test]
fn bad_calls_are_errors() {
    let b = backend();
    let p = program(
        &b,
        "kernel void k(float a<>, out float r<>, out float q<>) { r = a; q = a; }",
    );
    let k = function(&p, "k");
    let a = b.create_stream(&[1], &[4]).unwrap();
    let r = b.create_stream(&[1], &[4]).unwrap();
    let q = b.create_stream(&[1], &[5]).unwrap();
    let e = b
        .run_kernel(
            &p,
            k,
            &[
                KernelArg::Stream(&a),
                KernelArg::Stream(&r),
                KernelArg::Stream(&q),
            ],
        )
        .unwrap_err();
    assert!(e.to_string().contains("same shape"), "{e}");
    let e = b.run_kernel(&p, k, &[KernelArg::Stream(&a)]).unwrap_err();
    assert!(e.to_string().contains("takes 3 arguments"), "{e}");
    let w = b.create_stream(&[2], &[4]).unwrap();
    let e = b
        .run_kernel(
            &p,
            k,
            &[
                KernelArg::Stream(&w),
                KernelArg::Stream(&r),
                KernelArg::Stream(&r),
            ],
        )
        .unwrap_err();
    assert!(e.to_string().contains("floats"), "{e}");
    let other = backend();
    let foreign = other.create_stream(&[1], &[4]).unwrap();
    let e = b
        .run_kernel(
            &p,
            k,
            &[
                KernelArg::Stream(&foreign),
                KernelArg::Stream(&r),
                KernelArg::Stream(&q),
            ],
        )
        .unwrap_err();
    assert!(e.to_string().contains("another wgpu backend"), "{e}");
    let e = b.create_stream(&[1], &[1 << 20, 1 << 20]).unwrap_err();
    assert!(
        e.to_string().contains("limit") || e.to_string().contains("2^32"),
        "{e}"
    );
    let e = b.read(&a, None, &[1.0; 3]).unwrap_err();
    assert_eq!(
        e,
        WgpuError::Stream(StreamError::Size {
            expected: 4,
            got: 3
        })
    );
}

#[test]
fn stream_errors_are_the_variants_brook_core_matches_on() {
    let b = backend();
    let a = b.create_stream(&[1], &[4]).unwrap();
    let wide = b.create_stream(&[2], &[4]).unwrap();
    let foreign = backend().create_stream(&[1], &[4]).unwrap();
    let iter = b.create_iter(IterSpec::new(&[4], 1, [0.0; 4], [4.0; 4]).unwrap());
    assert!(matches!(
        BrookError::from(b.read(&a, None, &[0.0; 5]).unwrap_err()),
        BrookError::Stream(StreamError::Size {
            expected: 4,
            got: 5
        })
    ));
    assert!(matches!(
        BrookError::from(b.write(&a, None, &mut [0.0; 3]).unwrap_err()),
        BrookError::Stream(StreamError::Size {
            expected: 4,
            got: 3
        })
    ));
    assert!(matches!(
        BrookError::from(b.create_stream(&[1], &[0, 4]).unwrap_err()),
        BrookError::Stream(StreamError::Shape(_))
    ));
    assert!(matches!(
        BrookError::from(b.create_stream(&[5], &[4]).unwrap_err()),
        BrookError::Stream(StreamError::Format(_))
    ));
    let d = Domain::new(&[2], &[6]).unwrap();
    assert!(matches!(
        BrookError::from(b.read(&a, Some(&d), &[0.0; 4]).unwrap_err()),
        BrookError::Stream(StreamError::Domain(_))
    ));
    assert!(matches!(
        BrookError::from(b.read(&foreign, None, &[0.0; 4]).unwrap_err()),
        BrookError::ForeignStream { call } if call == "streamRead"
    ));
    assert!(matches!(
        BrookError::from(b.read(&iter, None, &[0.0; 4]).unwrap_err()),
        BrookError::ArgumentType { call, .. } if call == "streamRead"
    ));
    assert!(matches!(
        BrookError::from(b.swap(&a, &wide).unwrap_err()),
        BrookError::ShapeMismatch { call, .. } if call == "streamSwap"
    ));
    assert!(matches!(
        BrookError::from(b.swap(&a, &iter).unwrap_err()),
        BrookError::ArgumentType { call, .. } if call == "streamSwap"
    ));
}

#[test]
fn more_streams_than_the_device_binds_is_a_device_limit_error_not_a_panic() {
    // wgpu's GL backend binds 16 storage buffers per shader stage; 17 outputs need 17.
    let b = WgpuBackend::new_on(wgpu::Backends::GL).expect("wgpu's GL backend");
    let outs: Vec<String> = (0..17).map(|k| format!("out float o{k}<>")).collect();
    let body: Vec<String> = (0..17).map(|k| format!("o{k} = a;")).collect();
    let src = format!(
        "kernel void k(float a<>, {}) {{ {} }}",
        outs.join(", "),
        body.join(" ")
    );
    let p = program(&b, &src);
    let a = stream(&b, &[1], &[4], &[1.0; 4]);
    let streams: Vec<_> = (0..17)
        .map(|_| b.create_stream(&[1], &[4]).unwrap())
        .collect();
    let mut args = vec![KernelArg::Stream(&a)];
    args.extend(streams.iter().map(KernelArg::Stream));
    let e = b.run_kernel(&p, function(&p, "k"), &args).unwrap_err();
    assert!(
        matches!(e, brook_wgpu::WgpuError::DeviceLimit { .. }),
        "{e}"
    );
    let text = e.to_string();
    assert!(
        text.contains("kernel `k`")
            && text.contains("binds 18 storage buffers")
            && text.contains("allows 16 per shader stage"),
        "{text}"
    );
}

#[test]
fn call_errors_are_the_variants_brook_core_matches_on() {
    use brook_wgpu::ops::reduce::ReduceTarget;
    use brook_wgpu::ops::scatter::ScatterOp;
    let b = backend();
    let p = program(
        &b,
        "kernel void k(float a<>, out float r<>, out float q<>) { r = a; q = a; }\n\
         kernel void v(float a<>, vout[1] float o<>) { o = a; push(o); }\n\
         reduce void sum(float a<>, reduce float r<>) { r += a; }",
    );
    let (k, v, sum) = (function(&p, "k"), function(&p, "v"), function(&p, "sum"));
    let a = b.create_stream(&[1], &[4]).unwrap();
    let r = b.create_stream(&[1], &[4]).unwrap();
    let q = b.create_stream(&[1], &[5]).unwrap();
    let w = b.create_stream(&[2], &[4]).unwrap();
    let iter = b.create_iter(IterSpec::new(&[4], 1, [0.0; 4], [4.0; 4]).unwrap());
    let run = |f, args: &[KernelArg]| BrookError::from(b.run_kernel(&p, f, args).unwrap_err());

    // Not a kernel, and no function of that number: Unknown, as the program lookup says.
    let e = run(sum, &[KernelArg::Stream(&a), KernelArg::Stream(&r)]);
    assert!(
        matches!(&e, BrookError::Unknown { name, what: "kernel", .. } if name == "sum"),
        "{e}"
    );
    let e = BrookError::from(b.run_kernel(&p, brook_ir::FunctionId(99), &[]).unwrap_err());
    assert!(
        matches!(&e, BrookError::Unknown { name, .. } if name == "#99"),
        "{e}"
    );
    // Wrong argument count: core's ArgumentCount and its text.
    let e = run(k, &[KernelArg::Stream(&a)]);
    assert!(
        matches!(&e, BrookError::ArgumentCount { call, expected: 3, got: 1 } if call == "kernel `k`"),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "kernel `k` takes 3 arguments but 1 was given"
    );
    // Element size and kind: ArgumentType naming the parameter.
    let e = run(
        k,
        &[
            KernelArg::Stream(&w),
            KernelArg::Stream(&r),
            KernelArg::Stream(&q),
        ],
    );
    assert!(
        matches!(&e, BrookError::ArgumentType { call, param, .. } if call == "kernel `k`" && param == "a"),
        "{e}"
    );
    let e = run(
        k,
        &[
            KernelArg::Constant(&[1.0]),
            KernelArg::Stream(&r),
            KernelArg::Stream(&q),
        ],
    );
    assert!(
        matches!(&e, BrookError::ArgumentType { param, .. } if param == "a"),
        "{e}"
    );
    let e = run(
        k,
        &[
            KernelArg::Stream(&a),
            KernelArg::Stream(&iter),
            KernelArg::Stream(&q),
        ],
    );
    assert!(
        matches!(&e, BrookError::ArgumentType { param, .. } if param == "r"),
        "{e}"
    );
    // Outputs of two shapes; a vout without room: ShapeMismatch.
    let e = run(
        k,
        &[
            KernelArg::Stream(&a),
            KernelArg::Stream(&r),
            KernelArg::Stream(&q),
        ],
    );
    assert!(
        matches!(&e, BrookError::ShapeMismatch { call, .. } if call == "kernel `k`"),
        "{e}"
    );
    let small = b.create_stream(&[1], &[2]).unwrap();
    let e = run(v, &[KernelArg::Stream(&a), KernelArg::Stream(&small)]);
    assert!(matches!(&e, BrookError::ShapeMismatch { .. }), "{e}");
    assert!(e.to_string().contains("vout `o` needs room for 4"), "{e}");

    // Write mask and query state: State; a mask on a vout kernel: Unsupported; a mask of
    // another shape: ShapeMismatch; an iterator as mask: ArgumentType.
    let state = |e: WgpuError, name: &str| {
        let e = BrookError::from(e);
        assert!(
            matches!(&e, BrookError::State { call, .. } if call == name),
            "{e}"
        );
    };
    state(
        b.enable_write_mask(true).unwrap_err(),
        "streamEnableWriteMask",
    );
    state(b.end_write_query().unwrap_err(), "streamEndWriteQuery");
    b.begin_write_query().unwrap();
    state(b.begin_write_query().unwrap_err(), "streamBeginWriteQuery");
    let e = run(v, &[KernelArg::Stream(&a), KernelArg::Stream(&r)]);
    assert!(
        matches!(&e, BrookError::Unsupported { call, .. } if call == "kernel `v`"),
        "{e}"
    );
    b.end_write_query().unwrap();
    let e = BrookError::from(b.set_write_mask(&iter).unwrap_err());
    assert!(
        matches!(&e, BrookError::ArgumentType { call, param, .. } if call == "streamSetWriteMask" && param == "mask"),
        "{e}"
    );
    b.set_write_mask(&q).unwrap();
    b.enable_write_mask(true).unwrap();
    let e = run(
        k,
        &[
            KernelArg::Stream(&a),
            KernelArg::Stream(&r),
            KernelArg::Stream(&r),
        ],
    );
    assert!(matches!(&e, BrookError::ShapeMismatch { .. }), "{e}");
    assert!(e.to_string().contains("write mask has shape <5>"), "{e}");
    b.enable_write_mask(false).unwrap();

    // Reductions: not a reduce function (Unknown), into its own input (Aliasing), a target
    // that does not divide the input (ShapeMismatch), extra arguments (ArgumentCount).
    let e = BrookError::from(
        b.reduce(&p, k, &a, &[], ReduceTarget::Stream(&r))
            .unwrap_err(),
    );
    assert!(
        matches!(&e, BrookError::Unknown { name, what: "reduce function", .. } if name == "k"),
        "{e}"
    );
    let e = BrookError::from(
        b.reduce(&p, sum, &a, &[], ReduceTarget::Stream(&a))
            .unwrap_err(),
    );
    assert!(
        matches!(&e, BrookError::Aliasing { call, .. } if call == "reduction `sum`"),
        "{e}"
    );
    let three = b.create_stream(&[1], &[3]).unwrap();
    let e = BrookError::from(
        b.reduce(&p, sum, &a, &[], ReduceTarget::Stream(&three))
            .unwrap_err(),
    );
    assert!(matches!(&e, BrookError::ShapeMismatch { .. }), "{e}");
    let e = BrookError::from(
        b.reduce(
            &p,
            sum,
            &a,
            &[KernelArg::Constant(&[1.0])],
            ReduceTarget::Value(&mut [0.0]),
        )
        .unwrap_err(),
    );
    assert!(
        matches!(
            &e,
            BrookError::ArgumentCount {
                expected: 0,
                got: 1,
                ..
            }
        ),
        "{e}"
    );

    // Scatters: one stream in two roles (Aliasing), an index of the wrong width
    // (ArgumentType), index and data of different lengths (ShapeMismatch), a combiner that is
    // no reduce function (Unknown).
    let index = stream(&b, &[1], &[4], &[0.0, 1.0, 2.0, 3.0]);
    let e = BrookError::from(b.scatter(&a, &index, &a, ScatterOp::Add).unwrap_err());
    assert!(
        matches!(&e, BrookError::Aliasing { call, .. } if call == "streamScatterOp"),
        "{e}"
    );
    let e = BrookError::from(b.scatter(&a, &w, &r, ScatterOp::Add).unwrap_err());
    assert!(
        matches!(&e, BrookError::ArgumentType { param, .. } if param == "index"),
        "{e}"
    );
    let e = BrookError::from(b.scatter(&a, &index, &q, ScatterOp::Add).unwrap_err());
    assert!(matches!(&e, BrookError::ShapeMismatch { .. }), "{e}");
    let e = BrookError::from(
        b.scatter(&a, &index, &r, ScatterOp::Reduce(&p, k))
            .unwrap_err(),
    );
    assert!(
        matches!(&e, BrookError::Unknown { name, .. } if name == "k"),
        "{e}"
    );
    assert!(e.to_string().contains("streamScatterOp"), "{e}");
}
