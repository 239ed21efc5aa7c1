//! A write mask's set mode on the CPU: `wrote` marks exactly the elements that passed the
//! mask's test and did not discard, on native code and the interpreter alike, over more
//! elements than one chunk or tile holds (the marks come back from every piece in place).

use brook_cpu::{CpuArg, CpuStream, Engine, KernelPlan, Watchdog};

/// More elements than an interpreter chunk (`CHUNK`, 4096) or a native tile (at most
/// 4096) holds, and not a multiple of either.
const N: usize = 3 * 4096 + 5;

fn check(source: &str, name: &str, discards: impl Fn(f32) -> bool) {
    let module = brook_frontend::compile(source, "set_mode.br").unwrap();
    let (id, _) = module.function(name).unwrap();
    let input: Vec<f32> = (0..N).map(|i| (i % 7) as f32 - 3.0).collect();
    let tests: [Option<Vec<bool>>; 2] = [None, Some((0..N).map(|i| i % 3 != 1).collect())];
    for (plan, engine) in [
        (KernelPlan::new(&module, id), Engine::Jit),
        (KernelPlan::interpreted(id), Engine::Interpreter),
    ] {
        for test in &tests {
            let a = CpuStream::from_data(&[1], &[N], &input).unwrap();
            let mut r = CpuStream::from_data(&[1], &[N], &vec![-100.0; N]).unwrap();
            let mut wrote = vec![false; N];
            let mut args = [CpuArg::Stream(&a), CpuArg::Out(&mut r)];
            let done = plan
                .run_watched(
                    &module,
                    &mut args,
                    test.as_deref(),
                    Watchdog::default(),
                    Some(&mut wrote),
                )
                .unwrap();
            assert_eq!(done.execution.engine, engine, "{name}");
            let expected: Vec<bool> = (0..N)
                .map(|i| test.as_ref().is_none_or(|t| t[i]) && !discards(input[i]))
                .collect();
            assert_eq!(
                wrote,
                expected,
                "{name} on {engine:?}, test {}",
                test.is_some()
            );
            assert_eq!(done.written, expected.iter().filter(|w| **w).count());
            for (i, &v) in r.data().iter().enumerate() {
                let want = if expected[i] { input[i] * 2.0 } else { -100.0 };
                assert_eq!(v, want, "{name} on {engine:?}, element {i}");
            }
        }
    }
}

#[test]
fn set_mode_marks_what_a_kernel_without_discard_wrote() {
    check(
        "kernel void twice(float a<>, out float r<>) { r = a * 2.0; }",
        "twice",
        |_| false,
    );
}

#[test]
fn set_mode_marks_what_a_discarding_kernel_wrote() {
    check(
        "kernel void twice_some(float a<>, out float r<>) { if (a < 0.0) discard; r = a * 2.0; }",
        "twice_some",
        |a| a < 0.0,
    );
}
