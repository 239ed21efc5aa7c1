//! streamScatterOp, streamGatherOp, write masks and queries, vouts and the trace on wgpu,
//! against the CPU backend.
//!
//! Tolerances: every combiner is bit-identical to the CPU except scatter `add` on
//! non-integer values, whose collisions the GPU adds in its own order (compare-and-swap):
//! relative 1e-5 per collision sum of at most ~50 terms of magnitude ≤ 1.

mod support;

use brook_core::Operand;
use brook_cpu::{run_gather_op, run_scatter, ReducePlan, ScatterCombine};
use brook_wgpu::ops::scatter::ScatterOp;
use brook_wgpu::{KernelArg, Step};
use support::*;

const SRC: &str = "
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
    values(n, seed, -2.0, extent as f32 + 2.0)
        .into_iter()
        .map(|v| v.floor() + 0.3)
        .collect()
}

fn scatter_both(op_name: &str, fpe: u8, n: usize, m: usize, data: Vec<f32>, rel: f32) {
    let b = backend();
    let p = program(&b, SRC);
    let idx = indices(n, m, 17);
    // Whole-number initial values: a sum of whole numbers is exact in any order, so the
    // integer `add` case below can demand bit-identical results.
    let init: Vec<f32> = values(m * fpe as usize, 18, -4.0, 4.0)
        .into_iter()
        .map(f32::round)
        .collect();
    let dst = stream(&b, &[fpe], &[m], &init);
    let index = stream(&b, &[1], &[n], &idx);
    let d = stream(&b, &[fpe], &[n], &data);
    let module = brook_frontend::compile(SRC, "t.br").unwrap();
    let plan = module
        .function(op_name)
        .map(|(f, _)| ReducePlan::new(&module, f));
    let (op, cop) = match op_name {
        "replace" => (ScatterOp::Replace, ScatterCombine::Replace),
        "add" => (ScatterOp::Add, ScatterCombine::Add),
        "min" => (ScatterOp::Min, ScatterCombine::Min),
        "max" => (ScatterOp::Max, ScatterCombine::Max),
        f => (
            ScatterOp::Reduce(&p, function(&p, f)),
            ScatterCombine::Reduce(&module, plan.as_ref().expect("a reduce function")),
        ),
    };
    b.scatter(&dst, &index, &d, op).unwrap();
    let mut cdst = cpu_stream(&[fpe], &[m], &init);
    run_scatter(
        &mut cdst,
        &cpu_stream(&[1], &[n], &idx),
        &cpu_stream(&[fpe], &[n], &data),
        cop,
    )
    .unwrap();
    assert_close(
        &format!("scatter {op_name}"),
        &read_all(&b, &dst),
        cdst.data(),
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
    let signs: Vec<f32> = (0..n)
        .map(|i| if i % 3 == 0 { -1.0 } else { 1.0 })
        .collect();
    scatter_both("mul", 1, 2000, 50, signs[..2000].to_vec(), 0.0);
    let ties: Vec<f32> = (0..2000)
        .flat_map(|i| [((i % 5) as f32), i as f32])
        .collect();
    scatter_both("first_max", 2, 2000, 50, ties, 0.0);
}

#[test]
fn gather_op_fetches_and_updates_in_index_order() {
    let b = backend();
    let p = program(&b, SRC);
    let module = brook_frontend::compile(SRC, "t.br").unwrap();
    let mul = ReducePlan::new(&module, function(&p, "mul"));
    let halve = ReducePlan::new(&module, function(&p, "halve_sum"));
    let (n, m) = (5000, 40);
    let idx = indices(n, m, 21);
    let init: Vec<f32> = (0..m).map(|i| i as f32 * 100.0).collect();
    // A constant operand, or (None) the fetched element combined with itself: doubling by
    // add (to infinity at the busiest places), halving by a user reduction.
    for (name, op, cop, operand) in [
        (
            "fetch-and-add",
            Some(ScatterOp::Add),
            Some(ScatterCombine::Add),
            Some(1.0f32),
        ),
        (
            "fetch-and-min",
            Some(ScatterOp::Min),
            Some(ScatterCombine::Min),
            Some(50.0),
        ),
        (
            "fetch-and-mul",
            Some(ScatterOp::Reduce(&p, function(&p, "mul"))),
            Some(ScatterCombine::Reduce(&module, &mul)),
            Some(-1.0),
        ),
        (
            "fetch-and-double",
            Some(ScatterOp::Add),
            Some(ScatterCombine::Add),
            None,
        ),
        (
            "fetch-and-halve",
            Some(ScatterOp::Reduce(&p, function(&p, "halve_sum"))),
            Some(ScatterCombine::Reduce(&module, &halve)),
            None,
        ),
        ("fetch", None, None, Some(0.0)),
    ] {
        let data = stream(&b, &[1], &[m], &init);
        let dst = b.create_stream(&[1], &[n]).unwrap();
        let index = stream(&b, &[1], &[n], &idx);
        let operands = operand.map(|x| [x]);
        let operand = match &operands {
            Some(x) => Operand::Constant(x),
            None => Operand::Fetched,
        };
        b.gather_op(&dst, &index, &data, op.map(|o| (o, operand)))
            .unwrap();
        let mut cdata = cpu_stream(&[1], &[m], &init);
        let mut cdst = brook_cpu::CpuStream::new(&[1], &[n]).unwrap();
        run_gather_op(
            &mut cdst,
            &cpu_stream(&[1], &[n], &idx),
            &mut cdata,
            cop.map(|c| (c, operand)),
        )
        .unwrap();
        assert_close(
            &format!("{name}: fetched"),
            &read_all(&b, &dst),
            cdst.data(),
            0.0,
        );
        assert_close(
            &format!("{name}: updated"),
            &read_all(&b, &data),
            cdata.data(),
            0.0,
        );
    }
}

#[test]
fn write_masks_and_queries() {
    let b = backend();
    let p = program(&b, SRC);
    let (copy, keep) = (function(&p, "copy"), function(&p, "keep_positive"));
    let n = 1000;
    let a: Vec<f32> = (0..n)
        .map(|i| if i % 4 == 0 { -(i as f32) } else { i as f32 })
        .collect();
    let input = stream(&b, &[1], &[n], &a);
    let out = stream(&b, &[1], &[n], &vec![7.0; n]);
    let mask_data: Vec<f32> = (0..n).map(|i| if i % 3 == 0 { 0.0 } else { 1.0 }).collect();
    let mask = stream(&b, &[1], &[n], &mask_data);
    b.set_write_mask(&mask).unwrap();
    // The mask is a copy: changing the stream afterwards changes nothing.
    b.read(&mask, None, &vec![1.0; n]).unwrap();
    b.enable_write_mask(true).unwrap();
    b.begin_write_query().unwrap();
    b.run_kernel(
        &p,
        keep,
        &[KernelArg::Stream(&input), KernelArg::Stream(&out)],
    )
    .unwrap();
    let written = b.end_write_query().unwrap();
    let got = read_all(&b, &out);
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
    b.enable_write_mask(false).unwrap();
    b.begin_write_query().unwrap();
    b.run_kernel(
        &p,
        copy,
        &[KernelArg::Stream(&input), KernelArg::Stream(&out)],
    )
    .unwrap();
    assert_eq!(b.end_write_query().unwrap(), n as u64);
    assert_eq!(read_all(&b, &out), a);
    // Misuse is an error.
    assert!(b.end_write_query().is_err());
    b.begin_write_query().unwrap();
    assert!(b.begin_write_query().is_err());
    b.end_write_query().unwrap();
    let small = b.create_stream(&[1], &[10]).unwrap();
    b.set_write_mask(&small).unwrap();
    b.enable_write_mask(true).unwrap();
    let e = b
        .run_kernel(
            &p,
            copy,
            &[KernelArg::Stream(&input), KernelArg::Stream(&out)],
        )
        .unwrap_err();
    assert!(e.to_string().contains("write mask has shape"), "{e}");
}

#[test]
fn vouts_pack_in_element_order_like_the_cpu() {
    let b = backend();
    let p = program(&b, SRC);
    let burst = function(&p, "burst");
    let module = brook_frontend::compile(SRC, "t.br").unwrap();
    // Enough elements for a three-level scan (256² < 70000).
    let n = 70_000;
    let a: Vec<f32> = (0..n).map(|i| ((i * 7) % 6) as f32).collect();
    let input = stream(&b, &[1], &[n], &a);
    let out = b.create_stream(&[2], &[4 * n]).unwrap();
    let counts = b
        .run_kernel(
            &p,
            burst,
            &[KernelArg::Stream(&input), KernelArg::Stream(&out)],
        )
        .unwrap();
    let cin = cpu_stream(&[1], &[n], &a);
    let mut cout = brook_cpu::CpuStream::new(&[2], &[4 * n]).unwrap();
    let want = brook_cpu::KernelPlan::new(&module, burst)
        .run_vout(
            &module,
            &mut [
                brook_cpu::CpuArg::Stream(&cin),
                brook_cpu::CpuArg::Out(&mut cout),
            ],
        )
        .unwrap();
    assert_eq!(counts, want);
    assert_close("vout", &read_all(&b, &out), cout.data(), 0.0);
}

#[test]
fn the_trace_shows_dispatches_and_reuse() {
    let b = backend();
    let p = program(&b, SRC);
    let copy = function(&p, "copy");
    let a = stream(&b, &[1], &[100_000], &vec![1.0; 100_000]);
    let r = b.create_stream(&[1], &[100_000]).unwrap();
    let (ida, idr) = (a.id(), r.id());
    b.set_trace(true);
    b.run_kernel(&p, copy, &[KernelArg::Stream(&a), KernelArg::Stream(&r)])
        .unwrap();
    b.run_kernel(&p, copy, &[KernelArg::Stream(&a), KernelArg::Stream(&r)])
        .unwrap();
    b.swap(&a, &r).unwrap();
    let t = b.take_trace();
    assert_eq!(t.len(), 3);
    assert!(t[0].compiled.is_some() && t[1].compiled.is_none());
    let d: Vec<_> = t[0].dispatches().collect();
    assert_eq!(d.len(), 1);
    assert_eq!(
        d[0].workgroups,
        [1563, 1, 1],
        "100000 invocations in workgroups of 64"
    );
    assert_eq!(
        d[0].bindings,
        vec![("a".to_string(), ida), ("out r".to_string(), idr)]
    );
    // The swap exchanged the buffers, and their ids with them.
    assert_eq!((a.id(), r.id()), (idr, ida));
    assert_eq!(t[2].op, "streamSwap");
    assert!(
        t[0].to_string()
            .contains("dispatch kernel [1563x1x1 workgroups"),
        "{}",
        t[0]
    );
    // An in-place call with a shifted domain copies its input first.
    let d_in = brook_wgpu::Domain::new(&[0], &[99_999]).unwrap();
    let d_out = brook_wgpu::Domain::new(&[1], &[100_000]).unwrap();
    b.run_kernel(
        &p,
        copy,
        &[KernelArg::Domain(&r, &d_in), KernelArg::Domain(&r, &d_out)],
    )
    .unwrap();
    let t = b.take_trace();
    assert!(matches!(t[0].steps[0], Step::Copy { .. }), "{}", t[0]);
}

#[test]
fn the_wgsl_of_a_call_is_printed_for_people() {
    let b = backend();
    let p = program(&b, SRC);
    let copy = function(&p, "copy");
    let a = stream(&b, &[1], &[10], &[1.0; 10]);
    let r = b.create_stream(&[1], &[10]).unwrap();
    let wgsl = b
        .wgsl(&p, copy, &[KernelArg::Stream(&a), KernelArg::Stream(&r)])
        .unwrap();
    assert!(wgsl.contains("@compute @workgroup_size(64"), "{wgsl}");
    assert!(wgsl.contains("fn brook_copy"), "{wgsl}");
    assert!(
        wgsl.contains("var<storage, read_write> out_r: array<f32>"),
        "{wgsl}"
    );
}

/// A kernel's loops are checked (`brook_left` counts in its shader) only on an adapter that
/// caps loop iterations, and only for a call whose constants do not bound them within the cap.
#[test]
fn a_call_checks_its_loops_only_when_the_cap_could_cut_them() {
    let b = backend();
    let p = program(
        &b,
        "kernel void k(float a<>, int m, out float r<>) {
            float x = 0.0;
            for (int i = 0; i < m; i++) x += a;
            r = x;
        }",
    );
    let k = function(&p, "k");
    let a = stream(&b, &[1], &[2], &[1.0, 2.0]);
    let r = b.create_stream(&[1], &[2]).unwrap();
    let capped = b.gpu().loop_cap().is_some();
    for (m, checked) in [(1000.0, false), (70_000.0, capped)] {
        let wgsl = b
            .wgsl(
                &p,
                k,
                &[
                    KernelArg::Stream(&a),
                    KernelArg::Constant(&[m]),
                    KernelArg::Stream(&r),
                ],
            )
            .unwrap();
        assert_eq!(wgsl.contains("brook_left"), checked, "m = {m}:\n{wgsl}");
    }
}
