//! Conformance of the GL pipeline: every construct on desktop GL 3.3 core and on ES 3.0, with
//! direct and with translated (wrapped) layouts, element by element against the CPU backend —
//! bit for bit where the arithmetic is exact, within a stated ulp bound where it is not — and
//! against the values `docs/semantics.md` gives.

mod support;

use brook::Runtime;
use support::{gl_equals_cpu, gl_profiles, ramp, Input};

/// Both profiles with the device's limits, and with 7-texel textures (any stream of more
/// than 7 columns, and every stream of rank 3 or 4, is translated).
fn all_gl() -> Vec<Runtime> {
    all_gl_wrapping_at(7)
}

fn all_gl_wrapping_at(max_texture_size: u32) -> Vec<Runtime> {
    let mut all = gl_profiles(None, None);
    all.extend(gl_profiles(Some(max_texture_size), None));
    all
}

fn data(components: u8, shape: &[usize], data: Vec<f32>) -> Input<'_> {
    Input::Data {
        components,
        shape,
        data,
    }
}

fn out(components: u8, shape: &[usize]) -> Input<'_> {
    Input::Out { components, shape }
}

#[test]
fn every_resize_case_of_the_semantics_note() {
    let copy = "kernel void copy(float a<>, out float b<>) { b = a; }";
    let cases: [(&[usize], &[usize], Vec<f32>); 5] = [
        (&[5], &[10], vec![0., 0., 1., 1., 2., 2., 3., 3., 4., 4.]),
        (&[10], &[5], vec![0., 2., 4., 6., 8.]),
        (&[7], &[21], (0..21).map(|i| (i / 3) as f32).collect()),
        (&[21], &[7], (0..7).map(|i| (i * 3) as f32).collect()),
        // <2,15> into <4,5>: rows repeat, columns stride by 3, at the same time.
        (
            &[2, 15],
            &[4, 5],
            (0..4)
                .flat_map(|r| (0..5).map(move |c| ((r / 2) * 15 + c * 3) as f32))
                .collect(),
        ),
    ];
    for gl in all_gl() {
        for (from, to, expected) in &cases {
            let n = from.iter().product();
            let inputs = [data(1, from, ramp(n)), out(1, to)];
            let got = gl_equals_cpu(&gl, copy, "copy", &inputs, 0).remove(0);
            assert_eq!(&got, expected, "{from:?} -> {to:?} on {}", gl.describe());
        }
    }
}

#[test]
fn resizing_between_shapes_of_three_and_four_dimensions() {
    let copy = "kernel void copy(float a<>, out float b<>) { b = a; }";
    for gl in all_gl() {
        for (from, to) in [
            (&[2usize, 3, 4][..], &[4usize, 3, 2][..]),
            (&[2, 2, 3, 4], &[1, 4, 3, 2]),
            (&[6, 4], &[3, 2, 8]),
        ] {
            let n = from.iter().product();
            let inputs = [data(1, from, ramp(n)), out(1, to)];
            gl_equals_cpu(&gl, copy, "copy", &inputs, 0);
        }
    }
}

/// The resizes that repeat or drop whole dimensions (a row vector over a matrix, a column over
/// it, a matrix into a column, a single element over a stream), which the GL shaders specialise
/// to need no division, next to ones that scale both dimensions; odd sizes, direct and wrapped.
#[test]
fn resizes_that_repeat_or_drop_whole_dimensions() {
    let mul = "kernel void mul(float a<>, float x<>, out float t<>) { t = 100.0 * a + x; }";
    let cases: [(&[usize], &[usize]); 7] = [
        (&[5, 9], &[1, 9]),
        (&[5, 9], &[9]),
        (&[5, 9], &[5, 1]),
        (&[5, 1], &[5, 9]),
        (&[7, 3], &[3, 7]),
        (&[13], &[1]),
        (&[3, 11], &[3, 4]),
    ];
    for gl in all_gl() {
        for (shape, x_shape) in cases {
            let n = shape.iter().product();
            let xn = x_shape.iter().product::<usize>();
            let inputs = [
                data(1, shape, ramp(n)),
                data(1, x_shape, ramp(xn)),
                out(1, shape),
            ];
            let got = gl_equals_cpu(&gl, mul, "mul", &inputs, 0).remove(0);
            if x_shape == [1, 9] {
                // Every row reads the whole vector.
                let expected: Vec<f32> =
                    (0..45).map(|i| 100.0 * i as f32 + (i % 9) as f32).collect();
                assert_eq!(got, expected, "on {}", gl.describe());
            }
        }
    }
}

/// Gathers read only the index components of the gathered stream's rank: a `float2` index into
/// a 1D stream ignores `.y`, a lone scalar into a 2D stream is the column; int subscripts are
/// only clamped.
#[test]
fn gathers_use_the_components_of_the_streams_rank() {
    let vector = "kernel void pick(float2 i<>, float t[], out float r<>) { r = t[i]; }";
    let scalar = "kernel void pick(float2 i<>, float t[][], out float r<>) { r = t[i.x]; }";
    let ints = "kernel void pick(float2 i<>, float t[][], out float r<>) {
        int c = (int)i.x; int row = (int)i.y; r = t[row][c] + 100.0 * t[int2(c, row)]; }";
    let idx = vec![3.0, 7.0, -2.0, 1.0, 12.7, 0.0, 8.74, -9.0, 5.0, 1e6];
    for gl in all_gl() {
        let got = gl_equals_cpu(
            &gl,
            vector,
            "pick",
            &[
                data(2, &[5], idx.clone()),
                data(1, &[11], ramp(11)),
                out(1, &[5]),
            ],
            0,
        );
        assert_eq!(got[0], [3.0, 0.0, 10.0, 8.0, 5.0], "on {}", gl.describe());
        let got = gl_equals_cpu(
            &gl,
            scalar,
            "pick",
            &[
                data(2, &[5], idx.clone()),
                data(1, &[3, 11], ramp(33)),
                out(1, &[5]),
            ],
            0,
        );
        assert_eq!(got[0], [3.0, 0.0, 10.0, 8.0, 5.0], "on {}", gl.describe());
        let got = gl_equals_cpu(
            &gl,
            ints,
            "pick",
            &[
                data(2, &[5], idx.clone()),
                data(1, &[3, 11], ramp(33)),
                out(1, &[5]),
            ],
            0,
        );
        let expected = [25.0, 11.0, 10.0, 8.0, 27.0].map(|v| v * 101.0);
        assert_eq!(got[0], expected, "on {}", gl.describe());
    }
}

#[test]
fn gathers_at_and_beyond_every_edge() {
    let one = "kernel void pick(float i<>, float t[], out float r<>) { r = t[i]; }";
    let idx = vec![-1e6, -1.0, -0.3, 0.0, 0.74, 0.76, 8.9, 9.0, 9.74, 10.0, 1e6];
    let expected = [
        100., 100., 100., 100., 100., 101., 109., 109., 109., 109., 109.,
    ];
    let two = "kernel void pick2(float2 i<>, float t[][], out float r<>) { r = t[i]; }";
    let idx2 = vec![
        -5.0, -5.0, 0.0, 0.0, 8.0, 0.0, 9.0, 3.0, 0.0, 4.0, 2.74, 1.76, 99.0, 99.0,
    ];
    // `.x` is the column, `.y` the row of the <4, 9> table; both clamp.
    let expected2 = [0., 0., 8., 35., 27., 20., 35.];
    let subscripts =
        "kernel void pick_rc(float2 i<>, float t[][], out float r<>) { r = t[i.y][i.x]; }";
    let three = "kernel void pick3(float3 i<>, float t[][][], out float r<>) { r = t[i]; }";
    let idx3 = vec![
        -1.0, -1.0, -1.0, 4.0, 1.0, 1.0, 2.0, 9.0, 0.0, 1.0, 2.0, 1.0,
    ];
    for gl in all_gl() {
        let got = gl_equals_cpu(
            &gl,
            one,
            "pick",
            &[
                data(1, &[11], idx.clone()),
                data(1, &[10], ramp(10).iter().map(|v| v + 100.0).collect()),
                out(1, &[11]),
            ],
            0,
        );
        assert_eq!(got[0], expected);
        for (src, kernel) in [(two, "pick2"), (subscripts, "pick_rc")] {
            let got = gl_equals_cpu(
                &gl,
                src,
                kernel,
                &[
                    data(2, &[7], idx2.clone()),
                    data(1, &[4, 9], ramp(36)),
                    out(1, &[7]),
                ],
                0,
            );
            assert_eq!(got[0], expected2, "{kernel} on {}", gl.describe());
        }
        let got = gl_equals_cpu(
            &gl,
            three,
            "pick3",
            &[
                data(3, &[4], idx3.clone()),
                data(1, &[2, 3, 5], ramp(30)),
                out(1, &[4]),
            ],
            0,
        );
        // (x, y, z) clamp to columns 0..5, rows 0..3, slices 0..2.
        assert_eq!(got[0], [0., 4. + 5. + 15., 2. + 10., 1. + 10. + 15.]);
    }
}

#[test]
fn shapes_of_two_three_and_four_dimensions_with_indexof() {
    let src = "kernel void f(float a<>, out float4 r<>) { r = float4(a, indexof(a).x, indexof(a).y, indexof(r).z + 10.0 * indexof(r).w); }";
    // 16-texel textures: <3, 20> wraps; ranks 3 and 4 always do.
    for gl in all_gl_wrapping_at(16) {
        for shape in [vec![3usize, 20], vec![3, 5, 7], vec![2, 3, 5, 7]] {
            let n: usize = shape.iter().product();
            let got = gl_equals_cpu(
                &gl,
                src,
                "f",
                &[data(1, &shape, ramp(n)), out(4, &shape)],
                0,
            )
            .remove(0);
            // The last element knows where it is.
            let last: Vec<f32> = shape.iter().rev().map(|e| (e - 1) as f32).collect();
            let w = last.get(3).copied().unwrap_or(0.0);
            let z = last.get(2).copied().unwrap_or(0.0);
            assert_eq!(
                got[(n - 1) * 4..],
                [(n - 1) as f32, last[0], last[1], z + 10.0 * w]
            );
        }
    }
}

#[test]
fn a_struct_output_forcing_a_split() {
    let src = "typedef struct { float3 pos; float2 vel; float mass; } Body;
    kernel void step(float4 a<>, float dt, out Body b<>, out float4 c<>) {
        b.pos = a.xyz * dt;
        b.vel = a.zw + dt;
        b.mass = a.x - a.w;
        c = a * 2.0;
    }";
    let body = brook::ElementFormat::structure(
        [("pos", 3), ("vel", 2), ("mass", 1)]
            .into_iter()
            .map(|(name, components)| brook::MemberFormat {
                name: name.into(),
                components,
            })
            .collect(),
    )
    .unwrap();
    let input: Vec<f32> = (0..5 * 9 * 4).map(|i| i as f32 * 0.25).collect();
    let run = |rt: &Runtime| {
        let program = rt.compile(src, "body.br").unwrap();
        let a = rt.stream_of(4, &[5, 9]).unwrap();
        a.read(&input).unwrap();
        let b = rt.stream(body.clone(), &[5, 9]).unwrap();
        let c = rt.stream_of(4, &[5, 9]).unwrap();
        rt.run(&program, "step", brook::args![&a, 0.5f32, &b, &c])
            .unwrap();
        let passes = rt
            .plan(&program, "step", brook::args![&a, 0.5f32, &b, &c])
            .unwrap()
            .len();
        (b.to_vec().unwrap(), c.to_vec().unwrap(), passes)
    };
    let (cpu_b, cpu_c, _) = run(&Runtime::cpu());
    // Four output members: one pass per member at 1, two at 2, one at 4.
    for (limit, passes) in [(1, 4), (2, 2), (4, 1)] {
        for translated in [None, Some(7)] {
            for gl in gl_profiles(translated, Some(limit)) {
                let (b, c, n) = run(&gl);
                assert_eq!(n, passes, "{} at {limit}", gl.describe());
                assert_eq!(b, cpu_b, "{} at {limit}", gl.describe());
                assert_eq!(c, cpu_c, "{} at {limit}", gl.describe());
            }
        }
    }
    assert_eq!(cpu_b[..6], [0.0, 0.125, 0.25, 1.0, 1.25, -0.75]);
}

#[test]
fn iterators_resized_onto_the_output() {
    let src = "kernel void take(float it<>, float2 grid<>, out float4 r<>) { r = float4(it, grid, 0.0); }";
    for gl in all_gl() {
        for rt in [&gl, &Runtime::cpu()] {
            let program = rt.compile(src, "take.br").unwrap();
            let it = rt
                .iter(brook::IterSpec::new(&[4], 1, [0.; 4], [8., 0., 0., 0.]).unwrap())
                .unwrap();
            let grid = rt
                .iter(brook::IterSpec::new(&[2, 8], 2, [0., 0., 0., 0.], [8., 1., 0., 0.]).unwrap())
                .unwrap();
            let r = rt.stream_of(4, &[4, 8]).unwrap();
            rt.run(&program, "take", brook::args![&it, &grid, &r])
                .unwrap();
            let got = r.to_vec().unwrap();
            for row in 0..4 {
                for col in 0..8 {
                    let k = (row * 8 + col) * 4;
                    // `it` <4> resizes over the last dimension (8 columns): element col/2.
                    let expected = [
                        (col / 2) as f32 * 2.0,
                        col as f32,
                        (row / 2) as f32 * 0.5,
                        0.0,
                    ];
                    assert_eq!(got[k..k + 4], expected, "{} ({row}, {col})", rt.describe());
                }
            }
        }
    }
}

/// Division, square roots and transcendentals are not exact on either side (GLSL allows `exp`
/// 3 ulps and division 2.5; `sin` has no bound at all). The bound stated here is 4 ulps on
/// values of order 1, what Mesa llvmpipe needs; a hardware `sin` may need a wider one.
#[test]
fn inexact_arithmetic_within_a_stated_ulp_bound() {
    let src = "kernel void f(float a<>, out float4 r<>) {
        r = float4(a / 3.0, sqrt(a), exp(-a * 0.125), sin(a * 0.25));
    }";
    let values: Vec<f32> = (1..=49).map(|i| i as f32 * 0.37).collect();
    for gl in all_gl() {
        gl_equals_cpu(
            &gl,
            src,
            "f",
            &[data(1, &[7, 7], values.clone()), out(4, &[7, 7])],
            4,
        );
    }
}

/// A wrapped texture whose width is a power of two (every translated layout on a device whose
/// texture limit is one) is addressed with a mask and a shift by a constant of the program;
/// other widths (under a limit that is not a power of two) divide by a width uniform. Both
/// agree with the CPU, for a gathered table (clamped indices too) and a resized rank-3 input,
/// and the program shows which form it took.
#[test]
fn wrapped_textures_of_power_of_two_and_other_widths() {
    let src =
        "kernel void g(float t[], float i<>, float s<>, out float r<>) { r = t[i] * 2.0 + s; }";
    // (texture limit, table length, the table's texel, the rank-3 input, its shift): with a
    // limit of 16 everything wraps 8 wide; with 7, the 40-element table wraps 7 wide.
    let cases: [(u32, usize, &str, &[usize], u32); 2] = [
        (
            16,
            64,
            "brook_texel_at_pow2(brook_linearize(index, t_extent), 3)",
            &[4, 4, 4],
            3,
        ),
        (
            7,
            40,
            "brook_texel(index, t_extent, t_width)",
            &[2, 2, 4],
            2,
        ),
    ];
    for (max, n, table_texel, s_shape, s_shift) in cases {
        let indices: Vec<f32> = (0..30).map(|k| ((k * 7) % (n + 5)) as f32 - 2.0).collect();
        let table = [n];
        let inputs = [
            data(1, &table, ramp(n)),
            data(1, &[30], indices),
            data(1, s_shape, ramp(s_shape.iter().product())),
            out(1, &[30]),
        ];
        for gl in gl_profiles(Some(max), None) {
            gl_equals_cpu(&gl, src, "g", &inputs, 0);
            let fragment = planned_fragment(&gl, src, "g", &inputs);
            assert!(fragment.contains(table_texel), "{fragment}");
            let s_texel =
                format!("brook_texel_at_pow2(brook_linearize(brook_index_s, s_extent), {s_shift})");
            assert!(fragment.contains(&s_texel), "{fragment}");
            assert!(!fragment.contains("s_width"), "{fragment}");
        }
    }
}

/// The fragment shader of the first pass `kernel` would run with `inputs`.
fn planned_fragment(rt: &Runtime, source: &str, kernel: &str, inputs: &[Input]) -> String {
    let program = rt.compile(source, "test.br").unwrap();
    let streams: Vec<brook::Stream> = inputs
        .iter()
        .map(|i| match i {
            Input::Data {
                components, shape, ..
            }
            | Input::Out { components, shape } => rt.stream_of(*components, shape).unwrap(),
            Input::Constant(_) => panic!("streams only"),
        })
        .collect();
    let args: Vec<brook::Arg> = streams.iter().map(brook::Arg::from).collect();
    let plan = rt.plan(&program, kernel, &args).unwrap();
    let source = &plan.iter().find_map(|p| p.program.as_ref()).unwrap().source;
    match &**source {
        brook::core::ShaderSource::Raster { fragment, .. } => fragment.clone(),
        other => panic!("a GL pass runs a raster program, not {other:?}"),
    }
}

/// A program keeps its uniforms between calls and the executor sets only those that changed:
/// every call still sees its own constants, down to the sign of a zero.
#[test]
fn each_call_sees_its_own_constants() {
    let src = "kernel void inv(float a<>, float k, out float r<>) { r = a / k; }";
    for gl in gl_profiles(None, None) {
        let program = gl.compile(src, "test.br").unwrap();
        let a = gl.stream_of(1, &[2]).unwrap();
        a.read(&[1.0, -3.0]).unwrap();
        let r = gl.stream_of(1, &[2]).unwrap();
        for k in [0.0f32, -0.0, 2.0, 2.0, 0.5, -0.0] {
            gl.run(&program, "inv", &[(&a).into(), k.into(), (&r).into()])
                .unwrap();
            let expected = [1.0 / k, -3.0 / k];
            assert_eq!(
                r.to_vec().unwrap(),
                expected,
                "k = {k:?} on {}",
                gl.describe()
            );
        }
    }
}
