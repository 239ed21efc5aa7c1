//! Reductions on wgpu against the CPU backend: sums (tolerance: the tree adds in another
//! association than the CPU's left fold), exact operators (min, max: bit-identical), a
//! non-commutative operator (2×2 matrix product of integer matrices: exact, so
//! bit-identical, and wrong if combined out of order), struct elements, reductions to
//! streams of several shapes, and reduce functions with constant and gather arguments.

mod support;

use brook_cpu::{run_reduce, CpuArg, ReduceTarget as CpuTarget};
use brook_wgpu::ops::reduce::ReduceTarget;
use brook_wgpu::{KernelArg, WgpuBackend};
use support::*;

const SRC: &str = "
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

fn both(
    b: &WgpuBackend,
    name: &str,
    widths: &[u8],
    shape: &[usize],
    data: &[f32],
    out_shape: Option<&[usize]>,
    (extra, cpu_extra): (&[KernelArg], &mut [CpuArg]),
) -> (Vec<f32>, Vec<f32>) {
    let p = program(b, SRC);
    let f = function(&p, name);
    let input = stream(b, widths, shape, data);
    let fpe: usize = widths.iter().map(|&w| w as usize).sum();
    let module = brook_frontend::compile(SRC, "t.br").unwrap();
    let cin = cpu_stream(widths, shape, data);
    match out_shape {
        None => {
            let mut got = vec![0.0; fpe];
            b.reduce(&p, f, &input, extra, ReduceTarget::Value(&mut got))
                .unwrap();
            let mut want = vec![0.0; fpe];
            run_reduce(&module, f, &cin, cpu_extra, CpuTarget::Value(&mut want)).unwrap();
            (got, want)
        }
        Some(os) => {
            let out = b.create_stream(widths, os).unwrap();
            b.reduce(&p, f, &input, extra, ReduceTarget::Stream(&out))
                .unwrap();
            let mut cout = brook_cpu::CpuStream::new(widths, os).unwrap();
            run_reduce(&module, f, &cin, cpu_extra, CpuTarget::Stream(&mut cout)).unwrap();
            (read_all(b, &out), cout.data().to_vec())
        }
    }
}

#[test]
fn sums_of_many_sizes_match_the_cpu() {
    let b = backend();
    for n in [1, 2, 7, 63, 64, 65, 511, 512, 513, 4097, 100_000, 1 << 20] {
        let data = values(n, n as u32, -1.0, 1.0);
        let (got, want) = both(&b, "sum", &[1], &[n], &data, None, (&[], &mut []));
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
    let b = backend();
    let n = 300_001;
    let data: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1000) as f32 - 500.0).collect();
    let (got, want) = both(&b, "sum", &[1], &[n], &data, None, (&[], &mut []));
    assert_close("integer sum", &got, &want, 0.0);
    let (got, want) = both(&b, "smallest", &[1], &[n], &data, None, (&[], &mut []));
    assert_close("min", &got, &want, 0.0);
}

#[test]
fn a_non_commutative_operator_combines_in_index_order() {
    let b = backend();
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
    let (got, want) = both(&b, "matprod", &[4], &[n], &data, None, (&[], &mut []));
    assert_close("matrix product", &got, &want, 0.0);
    // Combined in reverse order the product differs: the test can fail.
    let mut reversed: Vec<f32> = data.chunks(4).rev().flatten().copied().collect();
    let (rev, _) = both(&b, "matprod", &[4], &[n], &reversed, None, (&[], &mut []));
    reversed.clear();
    assert_ne!(
        rev, want,
        "the operator commutes on this data; pick other matrices"
    );
}

#[test]
fn reductions_to_streams_reduce_each_block() {
    let b = backend();
    let data = values(100, 3, 0.0, 10.0);
    let (got, want) = both(&b, "sum", &[1], &[100], &data, Some(&[25]), (&[], &mut []));
    assert_close("<100> to <25>", &got, &want, 1e-6);
    let data = values(50 * 50, 4, 0.0, 10.0);
    let (got, want) = both(
        &b,
        "sum",
        &[1],
        &[50, 50],
        &data,
        Some(&[50, 1]),
        (&[], &mut []),
    );
    assert_close("<50,50> to <50,1>", &got, &want, 1e-5);
    let (got, want) = both(
        &b,
        "sum",
        &[1],
        &[50, 50],
        &data,
        Some(&[5, 10]),
        (&[], &mut []),
    );
    assert_close("<50,50> to <5,10>", &got, &want, 1e-5);
    let data = values(4 * 3000, 5, -1.0, 1.0);
    let (got, want) = both(
        &b,
        "sum4",
        &[4],
        &[2, 1500],
        &data,
        Some(&[2, 1]),
        (&[], &mut []),
    );
    assert_close("float4 <2,1500> to <2,1>", &got, &want, 1e-4);
}

#[test]
fn struct_elements() {
    let b = backend();
    let n = 5000;
    let mut data = Vec::new();
    for (i, w) in values(n, 9, 0.0, 100.0).into_iter().enumerate() {
        data.extend_from_slice(&[w, i as f32, -(i as f32)]);
    }
    let (got, want) = both(&b, "heaviest", &[1, 2], &[n], &data, None, (&[], &mut []));
    assert_close("heaviest struct", &got, &want, 0.0);
}

#[test]
fn constant_and_gather_arguments() {
    let b = backend();
    let table = stream(&b, &[1], &[3], &[10.0, 500.0, 30.0]);
    let ctable = cpu_stream(&[1], &[3], &[10.0, 500.0, 30.0]);
    let data: Vec<f32> = (0..777).map(|i| (i % 5) as f32).collect();
    let k = [2.0f32];
    let (got, want) = both(
        &b,
        "capped",
        &[1],
        &[777],
        &data,
        None,
        (
            &[KernelArg::Constant(&k), KernelArg::Stream(&table)],
            &mut [CpuArg::Constant(vec![2.0]), CpuArg::Gather(&ctable)],
        ),
    );
    assert_close("constant and gather", &got, &want, 0.0);
    assert_eq!(got, [1000.0], "the cap k * t[1] = 2 * 500");
}
