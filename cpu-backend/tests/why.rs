//! One element re-evaluated with its reads logged (`brook_cpu::why`), the source of what an
//! element's history says a kernel read: the element each input bound (resized), every
//! gather's index as computed and the element it rounded and clamped to, gathers made inside
//! a called kernel reported as the caller's, a discard, pushes, and a reduction step.

use brook_cpu::why::{combine, element};
use brook_cpu::{CpuArg, CpuStream};
use brook_ir::{FunctionId, Module};

const SRC: &str = "
kernel float look(float t[][], float at) { return t[1][at]; }
kernel void k(float a<>, float b<>, float t[][], float s, out float r<>) {
    r = t[a][b * s] + look(t, a);
    if (a < 0.0) discard;
}
kernel void two(float a<>, vout [2] float o<>) { o = a; push(o); o = a * 3.0; push(o); }
reduce void prod(float a<>, reduce float r<>) { r = r * a + 1.0; }
";

fn module() -> Module {
    brook_frontend::compile(SRC, "why.br").expect("compiles")
}

fn function(m: &Module, name: &str) -> FunctionId {
    let k = m.functions.iter().position(|f| f.name == name).unwrap();
    FunctionId(k as u32)
}

fn stream(shape: &[usize], data: &[f32]) -> CpuStream {
    CpuStream::from_data(&[1], shape, data).unwrap()
}

#[test]
fn a_kernel_element_logs_its_inputs_and_gathers() {
    let m = module();
    // Output <2, 2>; `a` <2> is resized (row 1 reads a[1]), `b` <2, 2> is not.
    let a = stream(&[2], &[0.6, 1.9]);
    let b = stream(&[2, 2], &[0.0, 1.0, 2.0, 3.0]);
    let t = stream(&[2, 3], &[10.0, 11.0, 12.0, 13.0, 14.0, 15.0]);
    let args = [
        Some(CpuArg::Stream(&a)),
        Some(CpuArg::Stream(&b)),
        Some(CpuArg::Gather(&t)),
        Some(CpuArg::Constant(vec![0.7])),
        None,
    ];
    // Element [1][1]: a = a[1] = 1.9, b = b[1][1] = 3; t[1.9][2.1]: rows floor(2.15) = 2
    // clamped to 1, columns floor(2.35) = 2, so t[1][2] = 15; look(t, 1.9) gathers t[1][1.9],
    // column floor(2.15) = 2, t[1][2] again: 30 in all.
    let e = element(&m, function(&m, "k"), &args, &[2, 2], 3).unwrap();
    assert_eq!(e.outputs, Some(vec![(4, vec![30.0])]));
    let inputs: Vec<(usize, Vec<usize>, Vec<f32>)> = e
        .inputs
        .iter()
        .map(|r| (r.param, r.element.clone(), r.value.clone()))
        .collect();
    assert_eq!(
        inputs,
        [(0, vec![1], vec![1.9]), (1, vec![1, 1], vec![3.0])]
    );
    let gathers: Vec<(usize, Vec<f32>, Vec<usize>, usize)> = (e.gathers.iter())
        .map(|g| (g.param, g.index.clone(), g.element.clone(), g.linear))
        .collect();
    assert_eq!(
        gathers,
        [
            // The called kernel's gather (the front end inlines it before the statement that
            // calls it), reported on the caller's parameter `t`, then the statement's own.
            (2, vec![1.0, 1.9], vec![1, 2], 5),
            (2, vec![1.9, 3.0 * 0.7], vec![1, 2], 5),
        ]
    );
    // Each gather's place in the source: its first subscript.
    let at = |k: usize| SRC[e.gathers[k].at as usize..].split(']').next();
    assert_eq!((at(0), at(1)), (Some("1"), Some("a")));
}

#[test]
fn a_discarded_element_has_no_outputs_and_pushes_are_listed() {
    let m = module();
    let a = stream(&[1], &[-1.0]);
    let b = stream(&[1], &[0.0]);
    let t = stream(&[1, 1], &[5.0]);
    let args = [
        Some(CpuArg::Stream(&a)),
        Some(CpuArg::Stream(&b)),
        Some(CpuArg::Gather(&t)),
        Some(CpuArg::Constant(vec![1.0])),
        None,
    ];
    let e = element(&m, function(&m, "k"), &args, &[1], 0).unwrap();
    assert_eq!(e.outputs, None);
    let a = stream(&[3], &[1.0, 2.0, 4.0]);
    let e = element(
        &m,
        function(&m, "two"),
        &[Some(CpuArg::Stream(&a)), None],
        &[3],
        2,
    )
    .unwrap();
    assert_eq!(e.pushed, [(1, vec![4.0]), (1, vec![12.0])]);
    // An input missing is the caller's mistake, said as such.
    let err = element(&m, function(&m, "two"), &[None, None], &[3], 0).unwrap_err();
    assert!(
        err.to_string().contains("no argument for input `a`"),
        "{err}"
    );
}

#[test]
fn a_reduction_step_folds_the_element_into_the_accumulator() {
    let m = module();
    // r = r * a + 1 with r = 3, a = 5: 16.
    assert_eq!(
        combine(&m, function(&m, "prod"), &[], &[5.0], &[3.0]).unwrap(),
        [16.0]
    );
}
