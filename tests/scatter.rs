//! `streamScatterOp` on GL (point rendering) against the CPU backend and hand-worked values:
//! every combiner with collisions, replace ordering, clamped indices, struct and float3
//! elements, 1–3D destinations under address translation, a non-commutative user reduction.

mod support;

use brook::{ElementFormat, MemberFormat, Runtime, ScatterOp, Stream};
use support::{agree_with_cpu, gl_profiles};

fn stream(rt: &Runtime, components: u8, shape: &[usize], data: &[f32]) -> Stream {
    let s = rt.stream_of(components, shape).unwrap();
    s.read(data).unwrap();
    s
}

/// Scatters `data` (widths `components`) through `index` (`rank` floats each) into a
/// destination of `shape` holding `init`; returns the destination.
#[allow(clippy::too_many_arguments)]
fn scatter(
    rt: &Runtime,
    op: impl Fn(&Runtime) -> Option<brook::Program>,
    name: &str,
    components: u8,
    shape: &[usize],
    init: &[f32],
    index: &[f32],
    data: &[f32],
) -> Vec<Vec<f32>> {
    let rank = shape.len();
    let n = index.len() / rank;
    let dst = stream(rt, components, shape, init);
    let idx = stream(rt, rank as u8, &[n], index);
    let d = stream(rt, components, &[n], data);
    let program = op(rt);
    let op = match (name, &program) {
        ("replace", _) => ScatterOp::Replace,
        ("add", _) => ScatterOp::Add,
        ("min", _) => ScatterOp::Min,
        ("max", _) => ScatterOp::Max,
        (f, Some(p)) => ScatterOp::Reduce(p, f),
        _ => unreachable!(),
    };
    rt.scatter(&dst, &idx, &d, op).unwrap();
    vec![dst.to_vec().unwrap()]
}

fn builtin(_: &Runtime) -> Option<brook::Program> {
    None
}

#[test]
fn builtin_combiners_with_collisions_and_clamped_indices() {
    let gls = gl_profiles(None, None);
    // Elements 0..5 land on 1, 3, 1, 0 (−7 clamps), 3 (99 clamps), 2 (1.8 rounds to 2), 1.
    let index = [1.0, 3.0, 1.0, -7.0, 99.0, 1.8, 0.76];
    let data = [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 5.0];
    // The initial values win some min and max slots and lose others, so a combiner that
    // ignored either the destination or the data would be caught.
    let init = [25.0, 8.0, 100.0, 45.0];
    let run = |name: &'static str| {
        agree_with_cpu(&gls, 0, |rt| {
            scatter(rt, builtin, name, 1, &[4], &init, &index, &data)
        })
    };
    assert_eq!(run("add")[0], [65.0, 53.0, 160.0, 115.0]);
    assert_eq!(run("replace")[0], [40.0, 5.0, 60.0, 50.0]);
    assert_eq!(run("min")[0], [25.0, 5.0, 60.0, 20.0]);
    assert_eq!(run("max")[0], [40.0, 30.0, 100.0, 50.0]);
}

#[test]
fn replace_keeps_the_last_element_in_index_order_among_thousands() {
    let gls = gl_profiles(None, None);
    let n = 5000;
    let index: Vec<f32> = (0..n).map(|i| ((i * 7919) % 13) as f32).collect();
    let data: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut expected = vec![-1.0f32; 13];
    for i in 0..n {
        expected[index[i] as usize] = data[i];
    }
    let got = agree_with_cpu(&gls, 0, |rt| {
        scatter(rt, builtin, "replace", 1, &[13], &[-1.0; 13], &index, &data)
    });
    assert_eq!(got[0], expected);
}

#[test]
fn struct_and_float3_elements_scatter_member_by_member() {
    // One draw buffer: each member is its own pass.
    let mut gls = gl_profiles(None, Some(1));
    gls.extend(gl_profiles(None, None));
    let format = ElementFormat::structure(vec![
        MemberFormat {
            name: "a".into(),
            components: 1,
        },
        MemberFormat {
            name: "b".into(),
            components: 3,
        },
    ])
    .unwrap();
    let got = agree_with_cpu(&gls, 0, |rt| {
        let dst = rt.stream(format.clone(), &[3]).unwrap();
        dst.read(&[0.0; 12]).unwrap();
        let data = rt.stream(format.clone(), &[3]).unwrap();
        data.read(&[
            1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0,
        ])
        .unwrap();
        let idx = stream(rt, 1, &[3], &[2.0, 0.0, 2.0]);
        rt.scatter(&dst, &idx, &data, ScatterOp::Add).unwrap();
        vec![dst.to_vec().unwrap()]
    });
    assert_eq!(
        got[0],
        [5.0, 6.0, 7.0, 8.0, 0.0, 0.0, 0.0, 0.0, 10.0, 12.0, 14.0, 16.0]
    );
}

#[test]
fn multi_dimensional_destinations_under_address_translation() {
    // Textures at most 16 texels wide: <3, 20> and <4, 3, 5> wrap into translated layouts.
    let mut gls = gl_profiles(Some(16), None);
    gls.extend(gl_profiles(None, None));
    for shape in [vec![3usize, 20], vec![4, 3, 5]] {
        let rank = shape.len();
        let len: usize = shape.iter().product();
        let n = 200;
        // Index vectors are column first; some components fall outside and clamp.
        let index: Vec<f32> = (0..n * rank)
            .map(|k| ((k * 37 + k / rank * 11) % 25) as f32 - 2.0)
            .collect();
        let data: Vec<f32> = (0..n * 2).map(|i| (i % 17) as f32 + 0.5).collect();
        let mut expected = vec![0.0f32; len * 2];
        for i in 0..n {
            let mut lin = 0;
            for d in 0..rank {
                let v = index[i * rank + rank - 1 - d];
                lin =
                    lin * shape[d] + (v + 0.25).floor().clamp(0.0, (shape[d] - 1) as f32) as usize;
            }
            expected[lin * 2] += data[i * 2];
            expected[lin * 2 + 1] += data[i * 2 + 1];
        }
        let got = agree_with_cpu(&gls, 0, |rt| {
            scatter(
                rt,
                builtin,
                "add",
                2,
                &shape,
                &vec![0.0; len * 2],
                &index,
                &data,
            )
        });
        assert_eq!(got[0], expected, "shape {shape:?}");
    }
}

#[test]
fn a_user_reduction_combines_collisions_in_index_order() {
    let mut gls = gl_profiles(Some(4), None);
    gls.extend(gl_profiles(None, None));
    // 2×2 matrix product: associative, not commutative; r = r · a in index order.
    let src = "reduce void matmul(float4 a<>, reduce float4 r<>) {
        r = float4(r.x * a.x + r.y * a.z, r.x * a.y + r.y * a.w,
                   r.z * a.x + r.w * a.z, r.z * a.y + r.w * a.w);
    }";
    let program = |rt: &Runtime| Some(rt.compile(src, "matmul.br").unwrap());
    let index = [0.0, 1.0, 0.0, 0.0, 4.0, 1.0];
    let m = [
        [1.0, 1.0, 0.0, 1.0],
        [2.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 1.0, 0.0],
        [1.0, 2.0, 3.0, 4.0],
        [1.0, 0.0, 0.0, 2.0],
        [3.0, 0.0, 1.0, 1.0],
    ];
    let data: Vec<f32> = m.iter().flatten().copied().collect();
    let identity = [1.0, 0.0, 0.0, 1.0];
    let init: Vec<f32> = (0..5).flat_map(|_| identity).collect();
    let got = agree_with_cpu(&gls, 0, |rt| {
        scatter(rt, program, "matmul", 4, &[5], &init, &index, &data)
    });
    let mul = |r: [f32; 4], a: [f32; 4]| {
        [
            r[0] * a[0] + r[1] * a[2],
            r[0] * a[1] + r[1] * a[3],
            r[2] * a[0] + r[3] * a[2],
            r[2] * a[1] + r[3] * a[3],
        ]
    };
    let mut expected = [identity; 5];
    for (i, &t) in index.iter().enumerate() {
        expected[t as usize] = mul(expected[t as usize], m[i]);
    }
    assert_eq!(
        got[0],
        expected.iter().flatten().copied().collect::<Vec<_>>()
    );
    // Element 0 then 2 then 3 onto destination 0: not the product in another order.
    assert_ne!(
        mul(mul(mul(identity, m[3]), m[2]), m[0]).to_vec(),
        got[0][0..4].to_vec()
    );
}

#[test]
fn mismatched_streams_are_clear_errors() {
    for rt in [Runtime::cpu(), support::gl_with(None, None)] {
        let dst = stream(&rt, 1, &[2, 2], &[0.0; 4]);
        let idx = stream(&rt, 1, &[2], &[0.0, 1.0]);
        let data = stream(&rt, 1, &[2], &[1.0, 2.0]);
        let err = rt.scatter(&dst, &idx, &data, ScatterOp::Add).unwrap_err();
        assert!(err.to_string().contains("one float per dimension"), "{err}");
        let err = rt.scatter(&data, &idx, &data, ScatterOp::Add).unwrap_err();
        assert!(err.to_string().contains("cannot also be"), "{err}");
        let program = rt
            .compile("kernel void k(float a<>, out float b<>) { b = a; }", "k.br")
            .unwrap();
        let dst = stream(&rt, 1, &[2], &[0.0; 2]);
        let err = rt
            .scatter(&dst, &idx, &data, ScatterOp::Reduce(&program, "k"))
            .unwrap_err();
        assert!(err.to_string().contains("not a reduce function"), "{err}");
    }
}
