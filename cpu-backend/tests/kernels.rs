//! Kernel calls end to end on hand-built IR: data flow, statements, expressions, errors.

mod support;
use brook_cpu::KernelPlan;
use support::*;

/// A deterministic pseudo-random float in [-8, 8).
fn rnd(i: usize) -> f32 {
    let x = (i as u32).wrapping_mul(2654435761).rotate_left(13) ^ 0x9e37_79b9;
    (x % 16384) as f32 / 1024.0 - 8.0
}

fn saxpy() -> Module {
    // kernel void saxpy(float alpha, float4 x<>, float4 y<>, out float4 result<>)
    //     { result = alpha * x + y; }
    module(vec![kernel(
        "saxpy",
        vec![
            const_param("alpha", Type::FLOAT),
            float4_stream_param("x"),
            float4_stream_param("y"),
            out_param("result", fvec(4)),
        ],
        vec![],
        vec![assign_out(
            3,
            add(
                mul(param(0, Type::FLOAT), param(1, fvec(4))),
                param(2, fvec(4)),
            ),
        )],
    )])
}

#[test]
fn saxpy_float4_matches_a_plain_loop_exactly() {
    let m = saxpy();
    // More than two chunks, with a partial last one.
    let n = 10_007;
    let xs: Vec<f32> = (0..4 * n).map(rnd).collect();
    let ys: Vec<f32> = (0..4 * n).map(|i| rnd(i + 99_991)).collect();
    let alpha = 0.37f32;
    let x = CpuStream::from_data(&[4], &[n], &xs).unwrap();
    let y = CpuStream::from_data(&[4], &[n], &ys).unwrap();
    let mut r = zeros(&[4], &[n]);
    run_kernel(
        &m,
        FunctionId(0),
        &mut [
            CpuArg::Constant(vec![alpha]),
            CpuArg::Stream(&x),
            CpuArg::Stream(&y),
            CpuArg::Out(&mut r),
        ],
    )
    .unwrap();
    let expected: Vec<f32> = (0..4 * n).map(|i| alpha * xs[i] + ys[i]).collect();
    let mut host = vec![0.0; 4 * n];
    r.write(&mut host).unwrap();
    assert_eq!(host, expected);
}

#[test]
fn saxpy_on_a_2d_stream() {
    let m = saxpy();
    let xs: Vec<f32> = (0..4 * 6).map(|i| i as f32).collect();
    let x = CpuStream::from_data(&[4], &[2, 3], &xs).unwrap();
    let y = CpuStream::from_data(&[4], &[2, 3], &[1.0; 24]).unwrap();
    let mut r = zeros(&[4], &[2, 3]);
    run_kernel(
        &m,
        FunctionId(0),
        &mut [
            CpuArg::Constant(vec![2.0]),
            CpuArg::Stream(&x),
            CpuArg::Stream(&y),
            CpuArg::Out(&mut r),
        ],
    )
    .unwrap();
    let expected: Vec<f32> = xs.iter().map(|x| 2.0 * x + 1.0).collect();
    assert_eq!(r.data(), expected.as_slice());
}

#[test]
fn struct_in_and_out() {
    // struct Particle { float3 pos; float mass; };
    // kernel void step(Particle p<>, float3 v<>, out Particle o<>)
    //     { o = p; o.pos += v * p.mass; o.mass = p.mass + 1; }
    let pt = Type::Struct(StructId(0));
    let mut m = module(vec![kernel(
        "step",
        vec![
            stream_param("p", pt.clone()),
            stream_param("v", fvec(3)),
            out_param("o", pt.clone()),
        ],
        vec![],
        vec![
            assign(place_param(2, pt.clone()), param(0, pt.clone())),
            assign_op(
                step(place_param(2, pt.clone()), Access::Member(0), fvec(3)),
                BinaryOp::Add,
                mul(
                    param(1, fvec(3)),
                    member(param(0, pt.clone()), 1, Type::FLOAT),
                ),
            ),
            assign(
                step(place_param(2, pt.clone()), Access::Member(1), Type::FLOAT),
                add(member(param(0, pt.clone()), 1, Type::FLOAT), lit(1.0)),
            ),
        ],
    )]);
    m.structs.push(strukt(
        "Particle",
        vec![("pos", fvec(3)), ("mass", Type::FLOAT)],
    ));
    let p =
        CpuStream::from_data(&[3, 1], &[2], &[1.0, 2.0, 3.0, 2.0, 10.0, 20.0, 30.0, 0.5]).unwrap();
    let v = CpuStream::from_data(&[3], &[2], &[1.0, 1.0, 1.0, 2.0, 4.0, 6.0]).unwrap();
    let mut o = zeros(&[3, 1], &[2]);
    run_kernel(
        &m,
        FunctionId(0),
        &mut [CpuArg::Stream(&p), CpuArg::Stream(&v), CpuArg::Out(&mut o)],
    )
    .unwrap();
    assert_eq!(o.data(), &[3.0, 4.0, 5.0, 3.0, 11.0, 22.0, 33.0, 1.5]);
}

#[test]
fn multiple_outputs() {
    // kernel void two(float a<>, out float b<>, out float2 c<>) { b = a * 2; c = float2(a, -a); }
    let m = module(vec![kernel(
        "two",
        vec![
            stream_param("a", Type::FLOAT),
            out_param("b", Type::FLOAT),
            out_param("c", fvec(2)),
        ],
        vec![],
        vec![
            assign_out(1, mul(param(0, Type::FLOAT), lit(2.0))),
            assign_out(
                2,
                construct(
                    fvec(2),
                    vec![param(0, Type::FLOAT), neg(param(0, Type::FLOAT))],
                ),
            ),
        ],
    )]);
    let a = floats(&[1.0, 2.0, 3.0]);
    let mut b = zeros(&[1], &[3]);
    let mut c = zeros(&[2], &[3]);
    run_kernel(
        &m,
        FunctionId(0),
        &mut [CpuArg::Stream(&a), CpuArg::Out(&mut b), CpuArg::Out(&mut c)],
    )
    .unwrap();
    assert_eq!(b.data(), &[2.0, 4.0, 6.0]);
    assert_eq!(c.data(), &[1.0, -1.0, 2.0, -2.0, 3.0, -3.0]);
}

/// Native code writes every output over the call's elements: outputs of two shapes (which the
/// runtime refuses) are refused by the crate's own entry point, not run.
#[test]
fn outputs_of_different_shapes_are_refused() {
    let m = module(vec![kernel(
        "two",
        vec![
            stream_param("a", Type::FLOAT),
            out_param("b", Type::FLOAT),
            out_param("c", Type::FLOAT),
        ],
        vec![],
        vec![],
    )]);
    let a = floats(&[1.0; 4]);
    let mut b = zeros(&[1], &[4]);
    let mut c = zeros(&[1], &[2, 2]);
    let err = run_kernel(
        &m,
        FunctionId(0),
        &mut [CpuArg::Stream(&a), CpuArg::Out(&mut b), CpuArg::Out(&mut c)],
    )
    .unwrap_err();
    assert!(
        matches!(err, CpuError::Precondition { ref function, .. } if function == "two"),
        "{err:?}"
    );
}

#[test]
fn discard_keeps_previous_output_values() {
    // kernel void k(float a<>, out float o<>) { if (a < 0) discard; o = a * 10; }
    let m = module(vec![kernel(
        "k",
        vec![stream_param("a", Type::FLOAT), out_param("o", Type::FLOAT)],
        vec![],
        vec![
            if_(lt(param(0, Type::FLOAT), lit(0.0)), vec![discard()], vec![]),
            assign_out(1, mul(param(0, Type::FLOAT), lit(10.0))),
        ],
    )]);
    let a = floats(&[1.0, -1.0, 2.0, -3.0]);
    let mut o = CpuStream::from_data(&[1], &[4], &[7.0; 4]).unwrap();
    run_kernel(
        &m,
        FunctionId(0),
        &mut [CpuArg::Stream(&a), CpuArg::Out(&mut o)],
    )
    .unwrap();
    assert_eq!(o.data(), &[10.0, 7.0, 20.0, 7.0]);
}

#[test]
fn discard_after_writing_still_writes_nothing() {
    let m = module(vec![kernel(
        "k",
        vec![stream_param("a", Type::FLOAT), out_param("o", Type::FLOAT)],
        vec![],
        vec![
            assign_out(1, lit(5.0)),
            if_(lt(param(0, Type::FLOAT), lit(0.0)), vec![discard()], vec![]),
        ],
    )]);
    let a = floats(&[1.0, -1.0]);
    let mut o = CpuStream::from_data(&[1], &[2], &[7.0; 2]).unwrap();
    run_kernel(
        &m,
        FunctionId(0),
        &mut [CpuArg::Stream(&a), CpuArg::Out(&mut o)],
    )
    .unwrap();
    assert_eq!(o.data(), &[5.0, 7.0]);
}

#[test]
fn for_loop_with_break_and_continue() {
    // float s = 0; for (int i = 0; i < 10; i++) { if (i == 2) continue; if (i > a) break; s += i; } o = s;
    let m = module(vec![kernel(
        "k",
        vec![stream_param("a", Type::FLOAT), out_param("o", Type::FLOAT)],
        vec![Type::FLOAT, Type::INT],
        vec![
            decl(0, Some(lit(0.0))),
            for_(
                vec![decl(1, Some(ilit(0)))],
                lt(local(1, Type::INT), ilit(10)),
                vec![assign_op(place_local(1, Type::INT), BinaryOp::Add, ilit(1))],
                vec![
                    if_(eq(local(1, Type::INT), ilit(2)), vec![cont()], vec![]),
                    if_(
                        gt(
                            convert(local(1, Type::INT), Type::FLOAT),
                            param(0, Type::FLOAT),
                        ),
                        vec![brk()],
                        vec![],
                    ),
                    assign_op(
                        place_local(0, Type::FLOAT),
                        BinaryOp::Add,
                        convert(local(1, Type::INT), Type::FLOAT),
                    ),
                ],
            ),
            assign_out(1, local(0, Type::FLOAT)),
        ],
    )]);
    let a = floats(&[-1.0, 0.0, 1.0, 2.0, 3.0, 5.5, 100.0]);
    let got = run_unary(&m, &a, &[7], 1);
    let expected: Vec<f32> = a
        .data()
        .iter()
        .map(|&a| {
            let mut s = 0.0;
            for i in 0..10 {
                if i == 2 {
                    continue;
                }
                if i as f32 > a {
                    break;
                }
                s += i as f32;
            }
            s
        })
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn do_while_runs_at_least_once() {
    // float n = 0; do { n += 1; } while (n < a); o = n;
    let m = module(vec![kernel(
        "k",
        vec![stream_param("a", Type::FLOAT), out_param("o", Type::FLOAT)],
        vec![Type::FLOAT],
        vec![
            decl(0, None),
            do_while(
                vec![assign_op(
                    place_local(0, Type::FLOAT),
                    BinaryOp::Add,
                    lit(1.0),
                )],
                lt(local(0, Type::FLOAT), param(0, Type::FLOAT)),
            ),
            assign_out(1, local(0, Type::FLOAT)),
        ],
    )]);
    let got = run_unary(&m, &floats(&[-5.0, 0.0, 3.0, 4.5]), &[4], 1);
    assert_eq!(got, vec![1.0, 1.0, 3.0, 5.0]);
}

#[test]
fn while_loop_and_early_return() {
    // float n = a; while (true) { if (n > 10) return; n = n * 2; o = n; }  (o is 0 if it returns first)
    let m = module(vec![kernel(
        "k",
        vec![stream_param("a", Type::FLOAT), out_param("o", Type::FLOAT)],
        vec![Type::FLOAT],
        vec![
            decl(0, Some(param(0, Type::FLOAT))),
            st(StmtKind::Loop {
                init: vec![],
                cond: None,
                step: vec![],
                body: vec![
                    if_(
                        gt(local(0, Type::FLOAT), lit(10.0)),
                        vec![ret(None)],
                        vec![],
                    ),
                    assign(
                        place_local(0, Type::FLOAT),
                        mul(local(0, Type::FLOAT), lit(2.0)),
                    ),
                    assign_out(1, local(0, Type::FLOAT)),
                ],
                test_first: true,
            }),
        ],
    )]);
    let a = floats(&[1.0, 3.0, 20.0]);
    let mut o = CpuStream::from_data(&[1], &[3], &[-1.0; 3]).unwrap();
    run_kernel(
        &m,
        FunctionId(0),
        &mut [CpuArg::Stream(&a), CpuArg::Out(&mut o)],
    )
    .unwrap();
    // A return from a kernel still writes what was assigned so far; an output never
    // assigned is zero (not the stream's previous contents), as on GL.
    assert_eq!(o.data(), &[16.0, 12.0, 0.0]);
}

#[test]
fn if_else_and_select() {
    // o = a > 0 ? a : -a;  if (a == 0) o2 = 1; else o2 = 2;
    let m = module(vec![kernel(
        "k",
        vec![
            stream_param("a", Type::FLOAT),
            out_param("o", Type::FLOAT),
            out_param("o2", Type::FLOAT),
        ],
        vec![],
        vec![
            assign_out(
                1,
                select(
                    gt(param(0, Type::FLOAT), lit(0.0)),
                    param(0, Type::FLOAT),
                    neg(param(0, Type::FLOAT)),
                ),
            ),
            if_(
                eq(param(0, Type::FLOAT), lit(0.0)),
                vec![assign_out(2, lit(1.0))],
                vec![assign_out(2, lit(2.0))],
            ),
        ],
    )]);
    let a = floats(&[-2.0, 0.0, 3.0]);
    let mut o = zeros(&[1], &[3]);
    let mut o2 = zeros(&[1], &[3]);
    run_kernel(
        &m,
        FunctionId(0),
        &mut [
            CpuArg::Stream(&a),
            CpuArg::Out(&mut o),
            CpuArg::Out(&mut o2),
        ],
    )
    .unwrap();
    assert_eq!(o.data(), &[2.0, 0.0, 3.0]);
    assert_eq!(o2.data(), &[2.0, 1.0, 2.0]);
}

#[test]
fn component_wise_select_on_a_bool_vector() {
    // o = (a > float2(0, 0)) ? a : float2(9, 9)
    let m = module(vec![kernel(
        "k",
        vec![stream_param("a", fvec(2)), out_param("o", fvec(2))],
        vec![],
        vec![assign_out(
            1,
            select(
                gt(param(0, fvec(2)), flits(&[0.0, 0.0])),
                param(0, fvec(2)),
                flits(&[9.0, 9.0]),
            ),
        )],
    )]);
    let a = CpuStream::from_data(&[2], &[2], &[1.0, -1.0, -2.0, 2.0]).unwrap();
    assert_eq!(run_unary(&m, &a, &[2], 2), vec![1.0, 9.0, 9.0, 2.0]);
}

#[test]
fn logical_operators_short_circuit() {
    // The right-hand sides would fail (a gather from a non-gather parameter), so passing means
    // the interpreter never evaluated them.
    let boom = || gt(gather(0, vec![lit(0.0)], Type::FLOAT), lit(0.0));
    let m = module(vec![kernel(
        "k",
        vec![stream_param("a", Type::FLOAT), out_param("o", Type::FLOAT)],
        vec![],
        vec![
            if_(
                and(blit(false), boom()),
                vec![assign_out(1, lit(1.0))],
                vec![],
            ),
            if_(
                or(blit(true), boom()),
                vec![assign_out(1, lit(2.0))],
                vec![],
            ),
        ],
    )]);
    // Invalid IR the checker never makes: only the interpreter runs it (the JIT refuses it).
    let mut out = zeros(&[1], &[1]);
    let input = floats(&[0.0]);
    let mut args = [CpuArg::Stream(&input), CpuArg::Out(&mut out)];
    KernelPlan::interpreted(last(&m))
        .run(&m, &mut args)
        .unwrap();
    assert_eq!(out.data(), &[2.0]);
}

#[test]
fn write_masks_and_swizzles() {
    // float4 t = a.wzyx; o = 0; o.xz = t.xy; o.y = a.x; o.w += 4;
    let f4 = fvec(4);
    let m = module(vec![kernel(
        "k",
        vec![stream_param("a", f4.clone()), out_param("o", f4.clone())],
        vec![f4.clone()],
        vec![
            decl(0, Some(swz(param(0, f4.clone()), "wzyx"))),
            assign(
                place_param(1, f4.clone()),
                construct(f4.clone(), vec![lit(0.0)]),
            ),
            assign(
                mask(place_param(1, f4.clone()), "xz"),
                swz(local(0, f4.clone()), "xy"),
            ),
            assign(
                mask(place_param(1, f4.clone()), "y"),
                swz(param(0, f4.clone()), "x"),
            ),
            assign_op(
                mask(place_param(1, f4.clone()), "w"),
                BinaryOp::Add,
                lit(4.0),
            ),
        ],
    )]);
    let a = CpuStream::from_data(&[4], &[1], &[1.0, 2.0, 3.0, 4.0]).unwrap();
    assert_eq!(run_unary(&m, &a, &[1], 4), vec![4.0, 1.0, 3.0, 4.0]);
}

#[test]
fn partial_write_leaves_the_other_components_zero() {
    // o.y = 5;
    let m = module(vec![kernel(
        "k",
        vec![stream_param("a", Type::FLOAT), out_param("o", fvec(2))],
        vec![],
        vec![assign(mask(place_param(1, fvec(2)), "y"), lit(5.0))],
    )]);
    let a = floats(&[0.0, 0.0]);
    let mut o = CpuStream::from_data(&[2], &[2], &[1.0, 2.0, 3.0, 4.0]).unwrap();
    run_kernel(
        &m,
        FunctionId(0),
        &mut [CpuArg::Stream(&a), CpuArg::Out(&mut o)],
    )
    .unwrap();
    // Outputs start at zero at every element (GL cannot read its output), not at the
    // stream's previous contents.
    assert_eq!(o.data(), &[0.0, 5.0, 0.0, 5.0]);
}

#[test]
fn construct_fills_in_order_and_splats() {
    // o = float4(a.xy, 7, a.x) ; o2 = float3(2)
    let m = module(vec![kernel(
        "k",
        vec![
            stream_param("a", fvec(2)),
            out_param("o", fvec(4)),
            out_param("o2", fvec(3)),
        ],
        vec![],
        vec![
            assign_out(
                1,
                construct(
                    fvec(4),
                    vec![
                        swz(param(0, fvec(2)), "xy"),
                        lit(7.0),
                        swz(param(0, fvec(2)), "x"),
                    ],
                ),
            ),
            assign_out(2, construct(fvec(3), vec![lit(2.0)])),
        ],
    )]);
    let a = CpuStream::from_data(&[2], &[1], &[1.0, 2.0]).unwrap();
    let mut o = zeros(&[4], &[1]);
    let mut o2 = zeros(&[3], &[1]);
    run_kernel(
        &m,
        FunctionId(0),
        &mut [
            CpuArg::Stream(&a),
            CpuArg::Out(&mut o),
            CpuArg::Out(&mut o2),
        ],
    )
    .unwrap();
    assert_eq!(o.data(), &[1.0, 2.0, 7.0, 1.0]);
    assert_eq!(o2.data(), &[2.0, 2.0, 2.0]);
}

#[test]
fn conversions_follow_c() {
    // o = float4((float)(int)a, (float)(bool)a, (float)((int)a / 0), (float)((int)a % 3))
    let i = || convert(param(0, Type::FLOAT), Type::INT);
    let m = module(vec![kernel(
        "k",
        vec![stream_param("a", Type::FLOAT), out_param("o", fvec(4))],
        vec![],
        vec![assign_out(
            1,
            construct(
                fvec(4),
                vec![
                    convert(i(), Type::FLOAT),
                    convert(convert(param(0, Type::FLOAT), Type::BOOL), Type::FLOAT),
                    convert(div(i(), ilit(0)), Type::FLOAT),
                    convert(rem(i(), ilit(3)), Type::FLOAT),
                ],
            ),
        )],
    )]);
    let a = floats(&[-2.7, 2.7, 0.0, -7.2, 7.9]);
    let got = run_unary(&m, &a, &[5], 4);
    assert_eq!(
        got,
        vec![
            -2.0, 1.0, 0.0, -2.0, //
            2.0, 1.0, 0.0, 2.0, //
            0.0, 0.0, 0.0, 0.0, //
            -7.0, 1.0, 0.0, -1.0, //
            7.0, 1.0, 0.0, 1.0,
        ]
    );
}

#[test]
fn float_remainder_is_fmod() {
    // o = a % 2
    let m = module(vec![kernel(
        "k",
        vec![stream_param("a", Type::FLOAT), out_param("o", Type::FLOAT)],
        vec![],
        vec![assign_out(1, rem(param(0, Type::FLOAT), lit(2.0)))],
    )]);
    let got = run_unary(&m, &floats(&[-5.5, 5.5, 4.0, -0.5]), &[4], 1);
    assert_eq!(got, vec![-1.5, 1.5, 0.0, -0.5]);
}

#[test]
fn int_and_bool_constants() {
    // kernel void k(int n, bool b, float2 v, out float o<>) { o = b ? (float)n + v.y : -1; }
    let m = module(vec![kernel(
        "k",
        vec![
            const_param("n", Type::INT),
            const_param("b", Type::BOOL),
            const_param("v", fvec(2)),
            out_param("o", Type::FLOAT),
        ],
        vec![],
        vec![assign_out(
            3,
            select(
                param(1, Type::BOOL),
                add(
                    convert(param(0, Type::INT), Type::FLOAT),
                    swz(param(2, fvec(2)), "y"),
                ),
                lit(-1.0),
            ),
        )],
    )]);
    let mut o = zeros(&[1], &[2]);
    run_kernel(
        &m,
        FunctionId(0),
        &mut [
            CpuArg::Constant(vec![3.0]),
            CpuArg::Constant(vec![1.0]),
            CpuArg::Constant(vec![0.5, 0.25]),
            CpuArg::Out(&mut o),
        ],
    )
    .unwrap();
    assert_eq!(o.data(), &[3.25, 3.25]);
}

#[test]
fn local_arrays() {
    // float w[3]; for (int i = 0; i < 3; i++) w[i] = a * i; o = w[0] + w[1] * 10 + w[2] * 100;
    let arr = Type::Array(Box::new(Type::FLOAT), 3);
    let w = || local(0, Type::Array(Box::new(Type::FLOAT), 3));
    let m = module(vec![kernel(
        "k",
        vec![stream_param("a", Type::FLOAT), out_param("o", Type::FLOAT)],
        vec![arr.clone(), Type::INT],
        vec![
            decl(0, None),
            for_(
                vec![decl(1, Some(ilit(0)))],
                lt(local(1, Type::INT), ilit(3)),
                vec![assign_op(place_local(1, Type::INT), BinaryOp::Add, ilit(1))],
                vec![assign(
                    step(
                        place_local(0, arr.clone()),
                        Access::Index(Box::new(local(1, Type::INT))),
                        Type::FLOAT,
                    ),
                    mul(
                        param(0, Type::FLOAT),
                        convert(local(1, Type::INT), Type::FLOAT),
                    ),
                )],
            ),
            assign_out(
                1,
                add(
                    add(
                        index(w(), ilit(0), Type::FLOAT),
                        mul(index(w(), ilit(1), Type::FLOAT), lit(10.0)),
                    ),
                    mul(index(w(), ilit(2), Type::FLOAT), lit(100.0)),
                ),
            ),
        ],
    )]);
    assert_eq!(
        run_unary(&m, &floats(&[1.0, 2.0]), &[2], 1),
        vec![210.0, 420.0]
    );
}

#[test]
fn matrices() {
    // float2x2 m = float2x2(1, 2, 3, 4); m[1][0] += a;
    // o = float4(mul(m, float2(1, 10)), mul(float2(1, 10), m));
    let m22 = mat(2, 2);
    let row1 = || {
        step(
            place_local(0, mat(2, 2)),
            Access::Index(Box::new(ilit(1))),
            fvec(2),
        )
    };
    let md = module(vec![kernel(
        "k",
        vec![stream_param("a", Type::FLOAT), out_param("o", fvec(4))],
        vec![m22.clone()],
        vec![
            decl(
                0,
                Some(construct(
                    m22.clone(),
                    vec![lit(1.0), lit(2.0), lit(3.0), lit(4.0)],
                )),
            ),
            assign_op(
                step(row1(), Access::Index(Box::new(ilit(0))), Type::FLOAT),
                BinaryOp::Add,
                param(0, Type::FLOAT),
            ),
            assign_out(
                1,
                construct(
                    fvec(4),
                    vec![
                        bi(
                            Builtin::Mul,
                            vec![local(0, m22.clone()), flits(&[1.0, 10.0])],
                        ),
                        bi(
                            Builtin::Mul,
                            vec![flits(&[1.0, 10.0]), local(0, m22.clone())],
                        ),
                    ],
                ),
            ),
        ],
    )]);
    // m = [[1, 2], [3 + a, 4]]; mul(m, v) = [1 + 20, 3 + a + 40]; mul(v, m) = [1 + 10(3+a), 2 + 40]
    let got = run_unary(&md, &floats(&[0.0, 1.0]), &[2], 4);
    assert_eq!(got, vec![21.0, 43.0, 31.0, 42.0, 21.0, 44.0, 41.0, 42.0]);
}

#[test]
fn matrix_times_matrix_and_row_reads() {
    // float2x2 a = (1,2,3,4), b = (5,6,7,8); float2x2 c = mul(a, b); o = float4(c[0], c[1]);
    let m22 = mat(2, 2);
    let c = || local(2, mat(2, 2));
    let md = module(vec![kernel(
        "k",
        vec![stream_param("x", Type::FLOAT), out_param("o", fvec(4))],
        vec![m22.clone(), m22.clone(), m22.clone()],
        vec![
            decl(
                0,
                Some(construct(
                    m22.clone(),
                    vec![flits(&[1.0, 2.0]), flits(&[3.0, 4.0])],
                )),
            ),
            decl(
                1,
                Some(construct(m22.clone(), vec![flits(&[5.0, 6.0, 7.0, 8.0])])),
            ),
            decl(
                2,
                Some(bi(
                    Builtin::Mul,
                    vec![local(0, m22.clone()), local(1, m22.clone())],
                )),
            ),
            assign_out(
                1,
                construct(
                    fvec(4),
                    vec![index(c(), ilit(0), fvec(2)), index(c(), ilit(1), fvec(2))],
                ),
            ),
        ],
    )]);
    assert_eq!(
        run_unary(&md, &floats(&[0.0]), &[1], 4),
        vec![19.0, 22.0, 43.0, 50.0]
    );
}

#[test]
fn helper_functions_with_return_values() {
    // float sq(float x) { float y = x * x; return y; }
    // float4 pair(float x) { if (x < 0) return float4(-1); return float4(x, sq(x), 0, 0); }
    // kernel void k(float a<>, out float4 o<>) { o = pair(a); }
    let m = module(vec![
        helper(
            "sq",
            vec![const_param("x", Type::FLOAT)],
            Type::FLOAT,
            vec![Type::FLOAT],
            vec![
                decl(0, Some(mul(param(0, Type::FLOAT), param(0, Type::FLOAT)))),
                ret(Some(local(0, Type::FLOAT))),
            ],
        ),
        helper(
            "pair",
            vec![const_param("x", Type::FLOAT)],
            fvec(4),
            vec![],
            vec![
                if_(
                    lt(param(0, Type::FLOAT), lit(0.0)),
                    vec![ret(Some(construct(fvec(4), vec![lit(-1.0)])))],
                    vec![],
                ),
                ret(Some(construct(
                    fvec(4),
                    vec![
                        param(0, Type::FLOAT),
                        call(0, vec![param(0, Type::FLOAT)], Type::FLOAT),
                        lit(0.0),
                        lit(0.0),
                    ],
                ))),
            ],
        ),
        kernel(
            "k",
            vec![stream_param("a", Type::FLOAT), out_param("o", fvec(4))],
            vec![],
            vec![assign_out(1, call(1, vec![param(0, Type::FLOAT)], fvec(4)))],
        ),
    ]);
    let got = run_unary(&m, &floats(&[3.0, -2.0]), &[2], 4);
    assert_eq!(got, vec![3.0, 9.0, 0.0, 0.0, -1.0, -1.0, -1.0, -1.0]);
}

#[test]
fn helper_receiving_a_gather_and_discarding() {
    // float pick(float t[], float i) { if (i > 5) discard; return t[i]; }
    // kernel void k(float i<>, float t[], out float o<>) { o = pick(t, i); }
    let m = module(vec![
        helper(
            "pick",
            vec![
                gather_param("t", Type::FLOAT, 1),
                const_param("i", Type::FLOAT),
            ],
            Type::FLOAT,
            vec![],
            vec![
                if_(gt(param(1, Type::FLOAT), lit(5.0)), vec![discard()], vec![]),
                ret(Some(gather(0, vec![param(1, Type::FLOAT)], Type::FLOAT))),
            ],
        ),
        kernel(
            "k",
            vec![
                stream_param("i", Type::FLOAT),
                gather_param("t", Type::FLOAT, 1),
                out_param("o", Type::FLOAT),
            ],
            vec![],
            vec![assign_out(
                2,
                call(
                    0,
                    vec![param(1, Type::FLOAT), param(0, Type::FLOAT)],
                    Type::FLOAT,
                ),
            )],
        ),
    ]);
    let i = floats(&[2.0, 9.0, 0.0]);
    let t = floats(&[10.0, 11.0, 12.0]);
    let mut o = CpuStream::from_data(&[1], &[3], &[-1.0; 3]).unwrap();
    run_kernel(
        &m,
        last(&m),
        &mut [CpuArg::Stream(&i), CpuArg::Gather(&t), CpuArg::Out(&mut o)],
    )
    .unwrap();
    assert_eq!(o.data(), &[12.0, -1.0, 10.0]);
}

#[test]
fn helper_out_parameters_are_copied_back() {
    // void split(float x, out float a, out float b) { a = x + 1; b = x * 2; }
    // kernel void k(float x<>, out float2 o<>) { float p; float q; split(x, p, q); o = float2(p, q); }
    let m = module(vec![
        helper(
            "split",
            vec![
                const_param("x", Type::FLOAT),
                out_param("a", Type::FLOAT),
                out_param("b", Type::FLOAT),
            ],
            Type::Void,
            vec![],
            vec![
                assign_out(1, add(param(0, Type::FLOAT), lit(1.0))),
                assign_out(2, mul(param(0, Type::FLOAT), lit(2.0))),
            ],
        ),
        kernel(
            "k",
            vec![stream_param("x", Type::FLOAT), out_param("o", fvec(2))],
            vec![Type::FLOAT, Type::FLOAT],
            vec![
                decl(0, None),
                decl(1, None),
                st(StmtKind::Expr(call(
                    0,
                    vec![
                        param(0, Type::FLOAT),
                        local(0, Type::FLOAT),
                        local(1, Type::FLOAT),
                    ],
                    Type::Void,
                ))),
                assign_out(
                    1,
                    construct(fvec(2), vec![local(0, Type::FLOAT), local(1, Type::FLOAT)]),
                ),
            ],
        ),
    ]);
    assert_eq!(run_unary(&m, &floats(&[3.0]), &[1], 2), vec![4.0, 6.0]);
}

// ---- preconditions -----------------------------------------------------------------------
// Brook's rules about arguments are brook-core's (the root crate's `tests/errors.rs` and
// `tests/argument_types.rs` test them through `Runtime::cpu()`); the engines only refuse,
// rather than run, arguments their native code would read out of bounds.

#[test]
fn arguments_that_do_not_fit_are_refused_not_run() {
    let precondition =
        |err: CpuError| assert!(matches!(err, CpuError::Precondition { .. }), "{err:?}");
    let m = copy_kernel();
    let a = floats(&[1.0]);
    // Too few arguments.
    precondition(run_kernel(&m, FunctionId(0), &mut [CpuArg::Stream(&a)]).unwrap_err());
    // An input where the output goes.
    let b = floats(&[1.0]);
    let err = run_kernel(
        &m,
        FunctionId(0),
        &mut [CpuArg::Stream(&a), CpuArg::Stream(&b)],
    );
    precondition(err.unwrap_err());
    // float2 elements for a float parameter.
    let wide = CpuStream::new(&[2], &[3]).unwrap();
    let mut o = zeros(&[1], &[3]);
    let err = run_kernel(
        &m,
        FunctionId(0),
        &mut [CpuArg::Stream(&wide), CpuArg::Out(&mut o)],
    );
    precondition(err.unwrap_err());
}

#[test]
fn malformed_ir_is_an_error_not_a_panic() {
    // o = a + float2(1, 2) with a a float3: a width mismatch the checker would reject.
    let m = module(vec![kernel(
        "bad",
        vec![stream_param("a", fvec(3)), out_param("o", fvec(3))],
        vec![],
        vec![assign_out(1, add(param(0, fvec(3)), flits(&[1.0, 2.0])))],
    )]);
    let a = CpuStream::new(&[3], &[2]).unwrap();
    let mut o = CpuStream::new(&[3], &[2]).unwrap();
    let err = run_kernel(
        &m,
        FunctionId(0),
        &mut [CpuArg::Stream(&a), CpuArg::Out(&mut o)],
    )
    .unwrap_err();
    assert!(
        matches!(err, CpuError::Malformed { ref function, .. } if function == "bad"),
        "{err:?}"
    );
}

#[test]
fn a_kernel_without_outputs_does_nothing() {
    let m = module(vec![kernel(
        "k",
        vec![stream_param("a", Type::FLOAT)],
        vec![],
        vec![],
    )]);
    let a = floats(&[1.0]);
    run_kernel(&m, FunctionId(0), &mut [CpuArg::Stream(&a)]).unwrap();
}

#[test]
fn nested_place_paths() {
    // struct S { float a; float4 m[2]; };
    // S s; s.m[1].zx = float2(5, 6); s.m[0][3] = x; s.a = s.m[1].z + 1;
    // o = float4(s.m[1].x, s.m[1].z, s.m[0].w, s.a);
    let st_ty = Type::Struct(StructId(0));
    let arr = Type::Array(Box::new(fvec(4)), 2);
    let s = || local(0, Type::Struct(StructId(0)));
    let m_i = |i: i32| {
        index(
            member(s(), 1, Type::Array(Box::new(fvec(4)), 2)),
            ilit(i),
            fvec(4),
        )
    };
    let pm = |i: i32| {
        step(
            step(
                place_local(0, st_ty.clone()),
                Access::Member(1),
                arr.clone(),
            ),
            Access::Index(Box::new(ilit(i))),
            fvec(4),
        )
    };
    let mut m = module(vec![kernel(
        "k",
        vec![stream_param("x", Type::FLOAT), out_param("o", fvec(4))],
        vec![st_ty.clone()],
        vec![
            decl(0, None),
            assign(mask(pm(1), "zx"), flits(&[5.0, 6.0])),
            assign(
                step(pm(0), Access::Index(Box::new(ilit(3))), Type::FLOAT),
                param(0, Type::FLOAT),
            ),
            assign(
                step(
                    place_local(0, st_ty.clone()),
                    Access::Member(0),
                    Type::FLOAT,
                ),
                add(swz(m_i(1), "z"), lit(1.0)),
            ),
            assign_out(
                1,
                construct(
                    fvec(4),
                    vec![
                        swz(m_i(1), "x"),
                        swz(m_i(1), "z"),
                        swz(m_i(0), "w"),
                        member(s(), 0, Type::FLOAT),
                    ],
                ),
            ),
        ],
    )]);
    m.structs
        .push(strukt("S", vec![("a", Type::FLOAT), ("m", arr.clone())]));
    assert_eq!(
        run_unary(&m, &floats(&[9.0]), &[1], 4),
        vec![6.0, 5.0, 9.0, 6.0]
    );
}

#[test]
fn struct_construction_and_out_of_range_local_index() {
    // struct P { float2 p; float q; };  P v = P(float2(1, 2), 3);  (as the checker lowers it)
    // float w[2] = {4, 5};  o = float4(v.p, v.q, w[7]);   // w[7] reads the last element
    let pt = Type::Struct(StructId(0));
    let arr = Type::Array(Box::new(Type::FLOAT), 2);
    let mut m = module(vec![kernel(
        "k",
        vec![stream_param("x", Type::FLOAT), out_param("o", fvec(4))],
        vec![pt.clone(), arr.clone()],
        vec![
            decl(
                0,
                Some(construct(pt.clone(), vec![flits(&[1.0, 2.0]), lit(3.0)])),
            ),
            decl(1, Some(construct(arr.clone(), vec![lit(4.0), lit(5.0)]))),
            assign_out(
                1,
                construct(
                    fvec(4),
                    vec![
                        member(local(0, pt.clone()), 0, fvec(2)),
                        member(local(0, pt.clone()), 1, Type::FLOAT),
                        index(local(1, arr.clone()), ilit(7), Type::FLOAT),
                    ],
                ),
            ),
        ],
    )]);
    m.structs
        .push(strukt("P", vec![("p", fvec(2)), ("q", Type::FLOAT)]));
    assert_eq!(
        run_unary(&m, &floats(&[0.0]), &[1], 4),
        vec![1.0, 2.0, 3.0, 5.0]
    );
}

#[test]
fn many_outputs_over_many_chunks() {
    // kernel void k(float a<>, out float b<>, out float3 c<>) { b = a + 1; c = float3(a, 2a, 3a); }
    let m = module(vec![kernel(
        "k",
        vec![
            stream_param("a", Type::FLOAT),
            out_param("b", Type::FLOAT),
            out_param("c", fvec(3)),
        ],
        vec![],
        vec![
            assign_out(1, add(param(0, Type::FLOAT), lit(1.0))),
            assign_out(
                2,
                construct(
                    fvec(3),
                    vec![
                        param(0, Type::FLOAT),
                        mul(param(0, Type::FLOAT), lit(2.0)),
                        mul(param(0, Type::FLOAT), lit(3.0)),
                    ],
                ),
            ),
        ],
    )]);
    let shape = [100, 123];
    let a = ramp(&shape);
    let mut b = zeros(&[1], &shape);
    let mut c = zeros(&[3], &shape);
    run_kernel(
        &m,
        FunctionId(0),
        &mut [CpuArg::Stream(&a), CpuArg::Out(&mut b), CpuArg::Out(&mut c)],
    )
    .unwrap();
    for i in 0..100 * 123 {
        let x = i as f32;
        assert_eq!(b.data()[i], x + 1.0);
        assert_eq!(&c.data()[3 * i..3 * i + 3], &[x, 2.0 * x, 3.0 * x]);
    }
}

#[test]
fn a_function_with_a_stream_parameter_sees_the_callers_position() {
    // float pos(float x<>) { return indexof(x).x; }
    // kernel void k(float a<>, out float o<>) { o = pos(a) + a * 100; }
    // (The checker also lets kernels whose parameters are all inputs be called this way.)
    let m = module(vec![
        helper(
            "pos",
            vec![stream_param("x", Type::FLOAT)],
            Type::FLOAT,
            vec![],
            vec![ret(Some(swz(indexof(0), "x")))],
        ),
        kernel(
            "k",
            vec![stream_param("a", Type::FLOAT), out_param("o", Type::FLOAT)],
            vec![],
            vec![assign_out(
                1,
                add(
                    call(0, vec![param(0, Type::FLOAT)], Type::FLOAT),
                    mul(param(0, Type::FLOAT), lit(100.0)),
                ),
            )],
        ),
    ]);
    // <3> into <6>: the input position is floor(i / 2).
    let got = run_unary(&m, &floats(&[1.0, 2.0, 3.0]), &[6], 1);
    assert_eq!(got, vec![100.0, 100.0, 201.0, 201.0, 302.0, 302.0]);
}

#[test]
fn many_batches_with_divergence_and_discard_agree_across_engines() {
    // float s = 0; for (i = 0; i < a % 7; i++) { if (a % 11 == 3) discard; s += a; } o = float2(s, a);
    // over 40 001 elements: several rayon tasks, many batches, a partial last batch.
    let f = Type::FLOAT;
    let m = module(vec![kernel(
        "k",
        vec![stream_param("a", f.clone()), out_param("o", fvec(2))],
        vec![f.clone(), Type::INT],
        vec![
            decl(0, Some(lit(0.0))),
            for_(
                vec![decl(1, Some(ilit(0)))],
                lt(
                    convert(local(1, Type::INT), f.clone()),
                    rem(param(0, f.clone()), lit(7.0)),
                ),
                vec![assign_op(place_local(1, Type::INT), BinaryOp::Add, ilit(1))],
                vec![
                    if_(
                        eq(rem(param(0, f.clone()), lit(11.0)), lit(3.0)),
                        vec![discard()],
                        vec![],
                    ),
                    assign_op(
                        place_local(0, f.clone()),
                        BinaryOp::Add,
                        param(0, f.clone()),
                    ),
                ],
            ),
            assign_out(
                1,
                construct(fvec(2), vec![local(0, f.clone()), param(0, f.clone())]),
            ),
        ],
    )]);
    let n = 40_001;
    let a = ramp(&[n]);
    let mut o = CpuStream::from_data(&[2], &[n], &vec![-1.0; 2 * n]).unwrap();
    run_kernel(
        &m,
        FunctionId(0),
        &mut [CpuArg::Stream(&a), CpuArg::Out(&mut o)],
    )
    .unwrap();
    for (i, e) in o.data().chunks(2).enumerate() {
        let x = i as f32;
        let trips = (x % 7.0) as usize;
        if x % 11.0 == 3.0 && trips > 0 {
            assert_eq!(e, &[-1.0, -1.0], "element {i} discarded");
        } else {
            assert_eq!(e, &[x * trips as f32, x], "element {i}");
        }
    }
}
