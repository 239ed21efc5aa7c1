//! The foundation's stream rules seen through kernels, GL against the CPU backend and against
//! the values `docs/semantics.md` gives: resizing, gathers at and past edges, iterators,
//! `indexof`, structs, pass splitting, and address translation under a lowered texture limit.

mod support;

use brook::{args, IterSpec, Runtime};
use support::{gl_equals_cpu, gl_with, ramp, Input};

const COPY: &str = "kernel void copy(float a<>, out float b<>) { b = a; }";

fn resized(gl: &Runtime, from: &[usize], to: &[usize]) -> Vec<f32> {
    let n: usize = from.iter().product();
    let inputs = [
        Input::Data {
            components: 1,
            shape: from,
            data: ramp(n),
        },
        Input::Out {
            components: 1,
            shape: to,
        },
    ];
    gl_equals_cpu(gl, COPY, "copy", &inputs, 0).remove(0)
}

#[test]
fn implicit_resize_repeats_and_strides_as_the_original() {
    let gl = Runtime::gl().unwrap();
    assert_eq!(
        resized(&gl, &[5], &[10]),
        [0., 0., 1., 1., 2., 2., 3., 3., 4., 4.]
    );
    assert_eq!(resized(&gl, &[10], &[5]), [0., 2., 4., 6., 8.]);
    assert_eq!(
        resized(&gl, &[7], &[21]),
        (0..21).map(|i| (i / 3) as f32).collect::<Vec<_>>()
    );
    assert_eq!(
        resized(&gl, &[21], &[7]),
        (0..7).map(|i| (i * 3) as f32).collect::<Vec<_>>()
    );
    // <2,15> into <4,5>: rows repeat (0 0 1 1), columns stride by 3.
    let expected: Vec<f32> = (0..4)
        .flat_map(|r| (0..5).map(move |c| ((r / 2) * 15 + c * 3) as f32))
        .collect();
    assert_eq!(resized(&gl, &[2, 15], &[4, 5]), expected);
}

#[test]
fn resize_under_address_translation() {
    let gl = gl_with(Some(8), None);
    let expected: Vec<f32> = (0..4)
        .flat_map(|r| (0..5).map(move |c| ((r / 2) * 15 + c * 3) as f32))
        .collect();
    assert_eq!(resized(&gl, &[2, 15], &[4, 5]), expected);
    assert_eq!(
        resized(&gl, &[7], &[21]),
        (0..21).map(|i| (i / 3) as f32).collect::<Vec<_>>()
    );
}

const GATHER_1D: &str = "kernel void pick(float i<>, float t[], out float r<>) { r = t[i]; }";

#[test]
fn gathers_round_and_clamp_like_brook() {
    for gl in [Runtime::gl().unwrap(), gl_with(Some(4), None)] {
        let table: Vec<f32> = (0..10).map(|i| 100.0 + i as f32).collect();
        let idx = vec![-1.0, 0.0, 2.74, 2.76, 9.0, 9.9, 10.0, 1e6];
        let inputs = [
            Input::Data {
                components: 1,
                shape: &[8],
                data: idx,
            },
            Input::Data {
                components: 1,
                shape: &[10],
                data: table,
            },
            Input::Out {
                components: 1,
                shape: &[8],
            },
        ];
        let out = gl_equals_cpu(&gl, GATHER_1D, "pick", &inputs, 0).remove(0);
        assert_eq!(out, [100., 100., 102., 103., 109., 109., 109., 109.]);
    }
}

#[test]
fn two_dimensional_gathers_take_x_as_the_column() {
    let src = "kernel void pick(float2 i<>, float t[][], out float r<>, out float s<>) {
        r = t[i];            // .x is the column
        s = t[i.y][i.x];     // C order: row, then column
    }";
    for gl in [Runtime::gl().unwrap(), gl_with(Some(8), None)] {
        // A 5×7 table (5 rows, 7 columns) holding row*100 + column.
        let table: Vec<f32> = (0..5)
            .flat_map(|r| (0..7).map(move |c| (r * 100 + c) as f32))
            .collect();
        let idx = vec![3.0, 1.0, 6.0, 4.0, -2.0, 9.0, 6.9, 0.2];
        let inputs = [
            Input::Data {
                components: 2,
                shape: &[4],
                data: idx,
            },
            Input::Data {
                components: 1,
                shape: &[5, 7],
                data: table,
            },
            Input::Out {
                components: 1,
                shape: &[4],
            },
            Input::Out {
                components: 1,
                shape: &[4],
            },
        ];
        let out = gl_equals_cpu(&gl, src, "pick", &inputs, 0);
        assert_eq!(out[0], [103., 406., 400., 6.]);
        assert_eq!(out[1], out[0]);
    }
}

#[test]
fn iterators_give_the_semantics_note_values_inside_kernels() {
    let src = "kernel void take(float it<>, out float r<>) { r = it; }";
    let gl = Runtime::gl().unwrap();
    let cpu = Runtime::cpu();
    let program = |rt: &Runtime| rt.compile(src, "iter.br").unwrap();
    for (n, start, end) in [(10, 0.0, 10.0), (10, 9.0, -1.0), (128, 0.0, 64.0)] {
        let spec = IterSpec::new(&[n], 1, [start, 0., 0., 0.], [end, 0., 0., 0.]).unwrap();
        let expected: Vec<f32> = (0..n)
            .map(|i| start + i as f32 * ((end - start) / n as f32))
            .collect();
        for rt in [&gl, &cpu] {
            let it = rt.iter(spec.clone()).unwrap();
            let r = rt.stream_of(1, &[n]).unwrap();
            rt.run(&program(rt), "take", args![&it, &r]).unwrap();
            assert_eq!(r.to_vec().unwrap(), expected, "{}", rt.backend_name());
            assert_eq!(it.to_vec().unwrap(), expected);
        }
    }
    assert_eq!(
        IterSpec::new(&[10], 1, [0.; 4], [10., 0., 0., 0.])
            .unwrap()
            .values(),
        (0..10).map(|i| i as f32).collect::<Vec<_>>()
    );
}

#[test]
fn two_dimensional_iterators_run_along_columns_and_rows() {
    let src = "kernel void take(float2 it<>, out float2 r<>) { r = it; }";
    let spec = IterSpec::new(&[3, 4], 2, [0., 10., 0., 0.], [4., 16., 0., 0.]).unwrap();
    for rt in [Runtime::gl().unwrap(), Runtime::cpu()] {
        let program = rt.compile(src, "iter2.br").unwrap();
        let it = rt.iter(spec.clone()).unwrap();
        let r = rt.stream_of(2, &[3, 4]).unwrap();
        rt.run(&program, "take", args![&it, &r]).unwrap();
        let expected: Vec<f32> = (0..3)
            .flat_map(|row| (0..4).flat_map(move |col| [col as f32, 10.0 + 2.0 * row as f32]))
            .collect();
        assert_eq!(r.to_vec().unwrap(), expected, "{}", rt.backend_name());
    }
}

#[test]
fn indexof_gives_column_then_row_of_input_and_output() {
    let src = "kernel void where(float a<>, out float4 pin<>, out float4 pout<>) {
        pin = indexof(a);
        pout = indexof pout;
    }";
    // With 5-texel textures the 6-column output is wrapped (translated).
    for gl in [Runtime::gl().unwrap(), gl_with(Some(5), None)] {
        let inputs = [
            Input::Data {
                components: 1,
                shape: &[2, 3],
                data: ramp(6),
            },
            Input::Out {
                components: 4,
                shape: &[4, 6],
            },
            Input::Out {
                components: 4,
                shape: &[4, 6],
            },
        ];
        let out = gl_equals_cpu(&gl, src, "where", &inputs, 0);
        for r in 0..4 {
            for c in 0..6 {
                let k = (r * 6 + c) * 4;
                assert_eq!(out[1][k..k + 4], [c as f32, r as f32, 0., 0.]);
                assert_eq!(out[0][k..k + 4], [(c / 2) as f32, (r / 2) as f32, 0., 0.]);
            }
        }
    }
}

#[test]
fn three_and_four_dimensional_streams_under_address_translation() {
    let src = "kernel void f(float a<>, float b<>, out float r<>) { r = a * 2.0 + b; }";
    let gl = gl_with(Some(16), None);
    for shape in [vec![3usize, 5, 7], vec![2, 3, 5, 7]] {
        let n: usize = shape.iter().product();
        let inputs = [
            Input::Data {
                components: 1,
                shape: &shape,
                data: ramp(n),
            },
            Input::Data {
                components: 1,
                shape: &shape,
                data: ramp(n).iter().map(|v| -v / 4.0).collect(),
            },
            Input::Out {
                components: 1,
                shape: &shape,
            },
        ];
        let out = gl_equals_cpu(&gl, src, "f", &inputs, 0).remove(0);
        assert_eq!(out, (0..n).map(|i| i as f32 * 1.75).collect::<Vec<_>>());
    }
}

#[test]
fn many_outputs_split_into_passes_give_the_same_results() {
    let src = "kernel void many(float4 a<>, out float4 o0<>, out float4 o1<>, out float4 o2<>, out float o3<>, out float2 o4<>) {
        o0 = a; o1 = a * 2.0; o2 = a + 1.0; o3 = a.x - a.w; o4 = a.yz;
    }";
    let data: Vec<f32> = (0..9 * 4).map(|i| i as f32 * 0.5).collect();
    let inputs = |s: &'static [usize]| {
        vec![
            Input::Data {
                components: 4,
                shape: s,
                data: data.clone(),
            },
            Input::Out {
                components: 4,
                shape: s,
            },
            Input::Out {
                components: 4,
                shape: s,
            },
            Input::Out {
                components: 4,
                shape: s,
            },
            Input::Out {
                components: 1,
                shape: s,
            },
            Input::Out {
                components: 2,
                shape: s,
            },
        ]
    };
    let whole = gl_equals_cpu(&Runtime::gl().unwrap(), src, "many", &inputs(&[3, 3]), 0);
    for limit in [1, 2, 3] {
        let split = gl_equals_cpu(
            &gl_with(None, Some(limit)),
            src,
            "many",
            &inputs(&[3, 3]),
            0,
        );
        assert_eq!(split, whole, "max_draw_buffers = {limit}");
    }
    let gl = gl_with(None, Some(2));
    let program = gl.compile(src, "many.br").unwrap();
    let s: Vec<_> = [4u8, 4, 4, 4, 1, 2]
        .iter()
        .map(|c| gl.stream_of(*c, &[3, 3]).unwrap())
        .collect();
    let plan = gl
        .plan(
            &program,
            "many",
            args![&s[0], &s[1], &s[2], &s[3], &s[4], &s[5]],
        )
        .unwrap();
    assert_eq!(plan.len(), 3, "5 outputs at 2 per pass");
}

#[test]
fn struct_streams_in_and_out() {
    let src = "typedef struct { float3 pos; float mass; } Body;
    kernel void step(Body b<>, float dt, out Body r<>) {
        r.pos = b.pos + dt * float3(1.0, 2.0, 3.0);
        r.mass = b.mass * 0.5;
    }";
    let gl = Runtime::gl().unwrap();
    let cpu = Runtime::cpu();
    let data: Vec<f32> = (0..6 * 4).map(|i| i as f32).collect();
    let mut results = Vec::new();
    for rt in [&gl, &cpu] {
        let program = rt.compile(src, "body.br").unwrap();
        let format = brook::ElementFormat::structure(vec![
            brook::MemberFormat {
                name: "pos".into(),
                components: 3,
            },
            brook::MemberFormat {
                name: "mass".into(),
                components: 1,
            },
        ])
        .unwrap();
        let b = rt.stream(format.clone(), &[2, 3]).unwrap();
        let r = rt.stream(format, &[2, 3]).unwrap();
        b.read(&data).unwrap();
        rt.run(&program, "step", args![&b, 0.5f32, &r]).unwrap();
        results.push(r.to_vec().unwrap());
    }
    assert_eq!(results[0], results[1]);
    assert_eq!(results[0][..8], [0.5, 2.0, 3.5, 1.5, 4.5, 6.0, 7.5, 3.5]);
}
