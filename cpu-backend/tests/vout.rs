//! `vout [N] T v<>` and `push`: 0..N values per element, packed in element (row-major)
//! order then push order, the count returned to the host.

use brook_cpu::{CpuArg, CpuError, CpuStream, KernelPlan};
use brook_ir::Module;

const SRC: &str = r#"
// The original BrookGPU vout test: element x pushes its value x times.
kernel void repeat(float a<>, vout [4] float o<>) {
    float i;
    for (i = 0; i < a; i++) {
        o = a;
        push(o);
    }
}
// 0 or 1 push per element; a discarded element pushes nothing even after a push.
kernel void filter(float4 v<>, vout [1] float4 kept<>) {
    if (v.w > 0.5) {
        kept = v;
        push(kept);
    }
    if (v.w > 2.5) {
        discard;
    }
}
// Exactly N pushes per element, in push order; pushes past N are dropped.
kernel void fan(float a<>, vout [3] float2 o<>) {
    float i;
    for (i = 0; i < 5; i++) {
        o = float2(a, i);
        push(o);
    }
}
"#;

fn module() -> Module {
    brook_frontend::compile(SRC, "vout.br").expect("compiles")
}

/// Runs kernel `name` on `input`, returning the vout's valid data and its count.
fn run(m: &Module, name: &str, input: &CpuStream, out_width: u8, max: usize) -> (Vec<f32>, usize) {
    let (id, _) = m.function(name).expect("kernel");
    let mut out = CpuStream::new(&[out_width], &[max * input.len()]).unwrap();
    out.data_mut().fill(-1.0);
    let counts = KernelPlan::new(m, id)
        .run_vout(m, &mut [CpuArg::Stream(input), CpuArg::Out(&mut out)])
        .unwrap();
    assert_eq!(counts.len(), 1);
    let n = counts[0];
    let fpe = out_width as usize;
    assert!(
        out.data()[n * fpe..].iter().all(|&x| x == 0.0),
        "tail is zeroed"
    );
    (out.data()[..n * fpe].to_vec(), n)
}

#[test]
fn repeat_pushes_value_dependent_counts_in_row_major_order() {
    let m = module();
    let a = [2.0, 0.0, 3.0, 1.0, 4.0, 0.0];
    let input = CpuStream::from_data(&[1], &[2, 3], &a).unwrap();
    let (data, n) = run(&m, "repeat", &input, 1, 4);
    let expected: Vec<f32> = a
        .iter()
        .flat_map(|&x| std::iter::repeat_n(x, x as usize))
        .collect();
    assert_eq!(n, 10);
    assert_eq!(data, expected);
}

#[test]
fn no_pushes_give_an_empty_output() {
    let m = module();
    let input = CpuStream::from_data(&[1], &[5], &[0.0; 5]).unwrap();
    assert_eq!(run(&m, "repeat", &input, 1, 4), (vec![], 0));
}

#[test]
fn filter_keeps_one_or_none_and_discard_cancels_pushes() {
    let m = module();
    let ws = [0.0, 1.0, 0.2, 3.0, 0.9, 2.0];
    let v: Vec<f32> = ws
        .iter()
        .enumerate()
        .flat_map(|(i, &w)| [i as f32, 10.0 + i as f32, -(i as f32), w])
        .collect();
    let input = CpuStream::from_data(&[4], &[6], &v).unwrap();
    let (data, n) = run(&m, "filter", &input, 4, 1);
    let expected: Vec<f32> = [1usize, 4, 5]
        .iter()
        .flat_map(|&i| v[i * 4..i * 4 + 4].to_vec())
        .collect();
    assert_eq!(n, 3);
    assert_eq!(data, expected);
}

#[test]
fn fan_pushes_n_values_and_drops_the_rest() {
    let m = module();
    let input = CpuStream::from_data(&[1], &[3], &[7.0, 8.0, 9.0]).unwrap();
    let (data, n) = run(&m, "fan", &input, 2, 3);
    let expected: Vec<f32> = [7.0f32, 8.0, 9.0]
        .iter()
        .flat_map(|&a| [a, 0.0, a, 1.0, a, 2.0])
        .collect();
    assert_eq!(n, 9);
    assert_eq!(data, expected);
}

/// The runtime refuses a vout stream without room for every push (`tests/vout.rs` in the root
/// crate); the crate's own entry point refuses it rather than write past its end.
#[test]
fn too_small_a_vout_stream_is_refused() {
    let m = module();
    let (id, _) = m.function("repeat").unwrap();
    let input = CpuStream::from_data(&[1], &[3], &[1.0; 3]).unwrap();
    let mut out = CpuStream::new(&[1], &[11]).unwrap();
    let err = KernelPlan::new(&m, id)
        .run_vout(&m, &mut [CpuArg::Stream(&input), CpuArg::Out(&mut out)])
        .unwrap_err();
    assert!(
        matches!(err, CpuError::Precondition { ref function, .. } if function == "repeat"),
        "{err}"
    );
}

#[test]
fn order_holds_across_parallel_chunks() {
    let m = module();
    let a: Vec<f32> = (0..100 * 100).map(|i| ((i * 7) % 5) as f32).collect();
    let input = CpuStream::from_data(&[1], &[100, 100], &a).unwrap();
    let (data, n) = run(&m, "repeat", &input, 1, 4);
    let expected: Vec<f32> = a
        .iter()
        .flat_map(|&x| std::iter::repeat_n(x, x.min(4.0) as usize))
        .collect();
    assert_eq!(n, expected.len());
    assert_eq!(data, expected);
}
