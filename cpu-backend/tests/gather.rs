//! Gathers: Brook's `floor(v + 0.25)` rounding, clamping at the edges, vector index order
//! (`.x` = column) and C-order subscripts.

mod support;
use support::*;

/// `kernel void g(IT i<>, float t[] (rank), out float o<>) { o = t[i]; }` with a single index.
fn gather_kernel(index_ty: Type, rank: u8) -> Module {
    module(vec![kernel(
        "g",
        vec![
            stream_param("i", index_ty.clone()),
            gather_param("t", Type::FLOAT, rank),
            out_param("o", Type::FLOAT),
        ],
        vec![],
        vec![assign_out(
            2,
            gather(1, vec![param(0, index_ty)], Type::FLOAT),
        )],
    )])
}

fn run_gather(m: &Module, idx: &CpuStream, table: &CpuStream) -> Vec<f32> {
    let mut o = zeros(&[1], idx.shape());
    run_kernel(
        m,
        last(m),
        &mut [
            CpuArg::Stream(idx),
            CpuArg::Gather(table),
            CpuArg::Out(&mut o),
        ],
    )
    .unwrap();
    o.data().to_vec()
}

#[test]
fn one_dimensional_float_indices_round_and_clamp() {
    let t = floats(&[10.0, 11.0, 12.0, 13.0, 14.0]);
    let i = floats(&[
        0.0, 4.0, -1.0, 5.0, 2.74, 2.76, 100.0, -0.3, -0.2, 0.74, 0.75, 3.5,
    ]);
    let got = run_gather(&gather_kernel(Type::FLOAT, 1), &i, &t);
    // -1 → 0; 5 → 4 (edge); 2.74 → floor(2.99) = 2; 2.76 → floor(3.01) = 3; -0.3 → floor(-0.05)
    // = -1 → 0; -0.2 → floor(0.05) = 0; 0.74 → 0; 0.75 → 1; 3.5 → 3.
    assert_eq!(
        got,
        vec![10.0, 14.0, 10.0, 14.0, 12.0, 13.0, 14.0, 10.0, 10.0, 10.0, 11.0, 13.0]
    );
}

#[test]
fn one_dimensional_int_indices_clamp() {
    // kernel void g(float i<>, float t[], out float o<>) { o = t[(int)i]; }
    let m = module(vec![kernel(
        "g",
        vec![
            stream_param("i", Type::FLOAT),
            gather_param("t", Type::FLOAT, 1),
            out_param("o", Type::FLOAT),
        ],
        vec![],
        vec![assign_out(
            2,
            gather(
                1,
                vec![convert(param(0, Type::FLOAT), Type::INT)],
                Type::FLOAT,
            ),
        )],
    )]);
    let t = floats(&[10.0, 11.0, 12.0]);
    let i = floats(&[-1.0, 0.0, 1.0, 2.0, 3.0, 7.0, 1.9]);
    assert_eq!(
        run_gather(&m, &i, &t),
        vec![10.0, 10.0, 11.0, 12.0, 12.0, 12.0, 11.0]
    );
}

/// `<3, 4>` table holding `10 * row + col`.
fn table_3x4() -> CpuStream {
    let data: Vec<f32> = (0..3)
        .flat_map(|r| (0..4).map(move |c| (10 * r + c) as f32))
        .collect();
    CpuStream::from_data(&[1], &[3, 4], &data).unwrap()
}

#[test]
fn two_dimensional_vector_index_x_is_the_column() {
    let idx = CpuStream::from_data(
        &[2],
        &[6],
        &[
            1.0, 2.0, // col 1, row 2
            -1.0, 5.0, // clamped: col 0, row 2
            4.0, -1.0, // clamped: col 3, row 0
            2.74, 0.76, // col 2, row 1
            2.76, 1.74, // col 3, row 1
            0.0, 0.0,
        ],
    )
    .unwrap();
    let got = run_gather(&gather_kernel(fvec(2), 2), &idx, &table_3x4());
    assert_eq!(got, vec![21.0, 20.0, 3.0, 12.0, 13.0, 0.0]);
}

#[test]
fn two_dimensional_int_vector_index() {
    // o = t[(int2)i]
    let m = module(vec![kernel(
        "g",
        vec![
            stream_param("i", fvec(2)),
            gather_param("t", Type::FLOAT, 2),
            out_param("o", Type::FLOAT),
        ],
        vec![],
        vec![assign_out(
            2,
            gather(1, vec![convert(param(0, fvec(2)), ivec(2))], Type::FLOAT),
        )],
    )]);
    let idx = CpuStream::from_data(&[2], &[3], &[1.0, 2.0, -1.0, 9.0, 3.0, 0.0]).unwrap();
    assert_eq!(run_gather(&m, &idx, &table_3x4()), vec![21.0, 20.0, 3.0]);
}

#[test]
fn two_scalar_subscripts_are_c_order() {
    // o = t[i.x][i.y]: first subscript is the row.
    let m = module(vec![kernel(
        "g",
        vec![
            stream_param("i", fvec(2)),
            gather_param("t", Type::FLOAT, 2),
            out_param("o", Type::FLOAT),
        ],
        vec![],
        vec![assign_out(
            2,
            gather(
                1,
                vec![swz(param(0, fvec(2)), "x"), swz(param(0, fvec(2)), "y")],
                Type::FLOAT,
            ),
        )],
    )]);
    let idx = CpuStream::from_data(
        &[2],
        &[5],
        &[2.0, 1.0, 5.0, -1.0, -1.0, 4.0, 0.76, 2.74, 1.74, 2.76],
    )
    .unwrap();
    assert_eq!(
        run_gather(&m, &idx, &table_3x4()),
        vec![21.0, 20.0, 3.0, 12.0, 13.0]
    );
}

#[test]
fn three_dimensional_vector_index() {
    // <2, 3, 4> holding 100*p + 10*r + c; float3 index (.x col, .y row, .z plane).
    let data: Vec<f32> = (0..24)
        .map(|i| (100 * (i / 12) + 10 * ((i / 4) % 3) + i % 4) as f32)
        .collect();
    let t = CpuStream::from_data(&[1], &[2, 3, 4], &data).unwrap();
    let idx =
        CpuStream::from_data(&[3], &[3], &[3.0, 2.0, 1.0, 0.0, 1.0, 0.0, 9.0, 9.0, 9.0]).unwrap();
    let got = run_gather(&gather_kernel(fvec(3), 3), &idx, &t);
    assert_eq!(got, vec![123.0, 10.0, 123.0]);
}

#[test]
fn gather_of_float4_elements() {
    // kernel void g(float i<>, float4 t[], out float4 o<>) { o = t[i]; }
    let m = module(vec![kernel(
        "g",
        vec![
            stream_param("i", Type::FLOAT),
            gather_param("t", fvec(4), 1),
            out_param("o", fvec(4)),
        ],
        vec![],
        vec![assign_out(
            2,
            gather(1, vec![param(0, Type::FLOAT)], fvec(4)),
        )],
    )]);
    let t = CpuStream::from_data(&[4], &[2], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]).unwrap();
    let i = floats(&[1.0, 0.0]);
    let mut o = zeros(&[4], &[2]);
    run_kernel(
        &m,
        FunctionId(0),
        &mut [CpuArg::Stream(&i), CpuArg::Gather(&t), CpuArg::Out(&mut o)],
    )
    .unwrap();
    assert_eq!(o.data(), &[5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0]);
}

#[test]
fn gather_index_rule_as_a_pure_function() {
    use brook_cpu::shape::{gather_component_f, gather_component_i};
    assert_eq!(gather_component_f(2.74, 10), 2);
    assert_eq!(gather_component_f(2.76, 10), 3);
    assert_eq!(gather_component_f(-1.0, 10), 0);
    assert_eq!(gather_component_f(10.0, 10), 9);
    assert_eq!(gather_component_f(f32::NAN, 10), 0);
    assert_eq!(gather_component_f(f32::INFINITY, 10), 9);
    assert_eq!(gather_component_i(-5, 3), 0);
    assert_eq!(gather_component_i(3, 3), 2);
    assert_eq!(gather_component_i(1, 3), 1);
}
