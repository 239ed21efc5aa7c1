//! Domains as kernel arguments (000 §5.5): an output domain is the region a call writes (the
//! rest keeps its contents) and the call's shape for resizing and `indexof`; an input domain is
//! a sub-stream whose element 0 is `lo`. GL (both profiles, direct and translated layouts)
//! against the CPU backend, bit for bit, and against values computed here.

mod support;

use brook::{args, Runtime, TraceEntry};
use support::{agree_with_cpu, gl_profiles, ramp};

/// Each element records what it read and where it is: (a, indexof(r).x, indexof(r).y, indexof(a).x).
const PLACE: &str = "kernel void place(float a<>, out float4 r<>) {
    r = float4(a, indexof(r).x, indexof(r).y, indexof(a).x);
}";

/// Every runtime that must agree with the CPU: direct layouts, and 7-texel textures that wrap
/// (translate) any stream with more than 7 columns.
fn gl_runtimes() -> Vec<Runtime> {
    let mut all = gl_profiles(None, None);
    all.extend(gl_profiles(Some(7), None));
    all
}

/// `place` from all of `a` (`a_shape`, ramp) into `r.domain(lo, hi)` of a `<6, 8>` stream
/// filled with -1: returns r.
fn place_into_domain(rt: &Runtime, a_shape: &[usize], lo: &[usize], hi: &[usize]) -> Vec<f32> {
    let program = rt.compile(PLACE, "place.br").unwrap();
    let a = rt.stream_of(1, a_shape).unwrap();
    a.read(&ramp(a.len())).unwrap();
    let r = rt.stream_of(4, &[6, 8]).unwrap();
    r.read(&vec![-1.0; 6 * 8 * 4]).unwrap();
    let region = r.domain(lo, hi).unwrap();
    rt.run(&program, "place", args![&a, &region]).unwrap();
    r.to_vec().unwrap()
}

#[test]
fn an_output_domain_writes_only_its_region_with_its_own_indexof() {
    // Columns 2..6 of rows 1..4: a 3x4 region, the shape of `a`.
    let out = agree_with_cpu(&gl_runtimes(), 0, |rt| {
        vec![place_into_domain(rt, &[3, 4], &[2, 1], &[6, 4])]
    })
    .remove(0);
    for row in 0..6 {
        for col in 0..8 {
            let got = &out[(row * 8 + col) * 4..][..4];
            if (1..4).contains(&row) && (2..6).contains(&col) {
                let (i, j) = (row - 1, col - 2);
                let expected = [(i * 4 + j) as f32, j as f32, i as f32, j as f32];
                assert_eq!(got, expected, "row {row} col {col}");
            } else {
                assert_eq!(got, [-1.0; 4], "outside the domain, row {row} col {col}");
            }
        }
    }
}

#[test]
fn an_output_domain_is_the_shape_inputs_are_resized_to() {
    // A 2x8 input into a 4x2 region (rows 2..6, columns 5..7): rows repeat, columns stride by 4.
    let out = agree_with_cpu(&gl_runtimes(), 0, |rt| {
        vec![place_into_domain(rt, &[2, 8], &[5, 2], &[7, 6])]
    })
    .remove(0);
    for i in 0..4 {
        for j in 0..2 {
            let got = &out[((i + 2) * 8 + j + 5) * 4..][..4];
            let (ai, aj) = (i / 2, j * 4);
            assert_eq!(got, [(ai * 8 + aj) as f32, j as f32, i as f32, aj as f32]);
        }
    }
    assert_eq!(&out[..4], [-1.0; 4]);
}

#[test]
fn an_input_domain_is_a_sub_stream() {
    // a is <5, 9>; its columns 1..5 of rows 2..5 are a 3x4 stream: element (0, 0) is a[2][1].
    let out = agree_with_cpu(&gl_runtimes(), 0, |rt| {
        let program = rt.compile(PLACE, "place.br").unwrap();
        let a = rt.stream_of(1, &[5, 9]).unwrap();
        a.read(&ramp(45)).unwrap();
        let r = rt.stream_of(4, &[3, 4]).unwrap();
        rt.run(
            &program,
            "place",
            args![&a.domain(&[1, 2], &[5, 5]).unwrap(), &r],
        )
        .unwrap();
        // The same sub-stream resized onto a 6x2 output.
        let wide = rt.stream_of(4, &[6, 2]).unwrap();
        rt.run(
            &program,
            "place",
            args![&a.domain(&[1, 2], &[5, 5]).unwrap(), &wide],
        )
        .unwrap();
        vec![r.to_vec().unwrap(), wide.to_vec().unwrap()]
    });
    for i in 0..3 {
        for j in 0..4 {
            let got = &out[0][(i * 4 + j) * 4..][..4];
            assert_eq!(
                got,
                [((i + 2) * 9 + j + 1) as f32, j as f32, i as f32, j as f32]
            );
        }
    }
    for i in 0..6 {
        for j in 0..2 {
            let (si, sj) = (i / 2, j * 2);
            let got = &out[1][(i * 2 + j) * 4..][..4];
            assert_eq!(
                got,
                [
                    ((si + 2) * 9 + sj + 1) as f32,
                    j as f32,
                    i as f32,
                    sj as f32
                ]
            );
        }
    }
}

#[test]
fn a_gather_from_a_domain_clamps_to_the_domain() {
    let src = "kernel void pick(float i<>, float t[], out float r<>) { r = t[i]; }";
    let idx = vec![-3.0, 0.0, 1.74, 1.76, 3.0, 4.0, 100.0];
    let out = agree_with_cpu(&gl_runtimes(), 0, |rt| {
        let program = rt.compile(src, "pick.br").unwrap();
        let i = rt.stream_of(1, &[7]).unwrap();
        i.read(&idx).unwrap();
        let t = rt.stream_of(1, &[12]).unwrap();
        t.read(&ramp(12).iter().map(|v| v + 100.0).collect::<Vec<_>>())
            .unwrap();
        let r = rt.stream_of(1, &[7]).unwrap();
        rt.run(
            &program,
            "pick",
            args![&i, &t.domain(&[3], &[8]).unwrap(), &r],
        )
        .unwrap();
        vec![r.to_vec().unwrap()]
    });
    // The domain holds t[3..8] = 103..107; indices clamp to 0..4 of it.
    assert_eq!(out[0], [103., 103., 104., 105., 106., 107., 107.]);
}

#[test]
fn domains_of_three_and_four_dimensional_streams() {
    let src = "kernel void f(float a<>, out float r<>) { r = a * 2.0 + indexof(r).z; }";
    // Streams of rank 3 and 4 are always translated; 11-texel textures wrap them differently.
    let mut gls = gl_profiles(None, None);
    gls.extend(gl_profiles(Some(11), None));
    let out = agree_with_cpu(&gls, 0, |rt| {
        let program = rt.compile(src, "f.br").unwrap();
        let a = rt.stream_of(1, &[2, 3, 4, 5]).unwrap();
        a.read(&ramp(120)).unwrap();
        let r = rt.stream_of(1, &[3, 4, 5]).unwrap();
        r.read(&vec![-1.0; 60]).unwrap();
        // a's box [1, 0..2, 1..3, 2..5] is a 1x2x2x3 input; r's box [1..3, 2..4, 0..3] is 2x2x3.
        let input = a.domain(&[2, 1, 0, 1], &[5, 3, 2, 2]).unwrap();
        let output = r.domain(&[0, 2, 1], &[3, 4, 3]).unwrap();
        rt.run(&program, "f", args![&input, &output]).unwrap();
        vec![r.to_vec().unwrap()]
    })
    .remove(0);
    for z in 0..3 {
        for y in 0..4 {
            for x in 0..5 {
                let got = out[(z * 4 + y) * 5 + x];
                if (1..3).contains(&z) && (2..4).contains(&y) && x < 3 {
                    // Output element (i, j, k) of the 2x2x3 region reads element (0, i, j, k) of
                    // the 1x2x2x3 box (extents compared per dimension, the missing one is 1),
                    // which is a[1][i][j + 1][k + 2].
                    let (i, j, k) = (z - 1, y - 2, x);
                    let a_index = ((3 + i) * 4 + (j + 1)) * 5 + (k + 2);
                    assert_eq!(got, a_index as f32 * 2.0 + i as f32, "({z}, {y}, {x})");
                } else {
                    assert_eq!(got, -1.0, "outside, ({z}, {y}, {x})");
                }
            }
        }
    }
}

#[test]
fn domains_that_are_the_whole_stream_or_do_not_fit() {
    let gl = Runtime::gl().unwrap();
    let program = gl.compile(PLACE, "place.br").unwrap();
    let a = gl.stream_of(1, &[4]).unwrap();
    a.read(&ramp(4)).unwrap();
    let r = gl.stream_of(4, &[4]).unwrap();
    gl.set_trace(true);
    gl.run(&program, "place", args![&a, &r.domain(&[0], &[4]).unwrap()])
        .unwrap();
    let trace = gl.take_trace();
    let TraceEntry::Kernel(call) = &trace[0] else {
        panic!("a kernel entry")
    };
    assert!(
        call.variant.contains("output: Direct") && call.variant.contains("AtFragment"),
        "a whole-stream domain is the stream itself: {}",
        call.variant
    );
    assert!(r.domain(&[2], &[5]).is_err());
    assert!(r.domain(&[0, 0], &[1, 1]).is_err());
    let it = gl
        .iter(brook::IterSpec::new(&[4], 1, [0.; 4], [4., 0., 0., 0.]).unwrap())
        .unwrap();
    let err = gl
        .run(
            &program,
            "place",
            args![&it.domain(&[1], &[3]).unwrap(), &r],
        )
        .unwrap_err();
    assert!(err.to_string().contains("iterator"), "{err}");
}

#[test]
fn the_trace_shows_a_viewport_for_direct_domains_and_discards_for_translated_ones() {
    for (limit, discards) in [(None, false), (Some(7), true)] {
        for gl in gl_profiles(limit, None) {
            gl.set_trace(true);
            place_into_domain(&gl, &[3, 4], &[2, 1], &[6, 4]);
            let trace = gl.take_trace();
            let TraceEntry::Kernel(call) = &trace[0] else {
                panic!("a kernel entry")
            };
            let pass = &call.passes[0];
            assert_eq!(pass.discards_outside_domain, discards, "{call}");
            if discards {
                // 48 elements in 7-wide textures: 7 rows of 7, drawn whole.
                assert_eq!(pass.viewport, [0, 0, 7, 7], "{call}");
            } else {
                assert_eq!(pass.viewport, [2, 1, 4, 3], "{call}");
            }
            let text = call.to_string();
            assert!(text.contains("uniform brook_output_lo"), "{text}");
        }
    }
}
