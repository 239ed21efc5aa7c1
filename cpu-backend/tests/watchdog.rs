//! The time limit on the CPU: a kernel looping forever is stopped with an error naming it, at a
//! loop back edge, on native code (compiled with a check at its back edges for calls with a
//! limit) and on the interpreter alike.

use std::time::Duration;

use brook_cpu::{CpuArg, CpuError, CpuStream, Engine, KernelPlan, Watchdog};

#[test]
fn an_endless_loop_stops_when_the_time_is_up_on_either_plan() {
    let module = brook_frontend::compile(
        "kernel void spin(float a<>, out float r<>) { float x = a; while (x > -1.0) { x += 1.0; } r = x; }",
        "spin.br",
    )
    .unwrap();
    let (id, _) = module.function("spin").unwrap();
    let limit = Duration::from_millis(100);
    for plan in [KernelPlan::new(&module, id), KernelPlan::interpreted(id)] {
        let a = CpuStream::new(&[1], &[8]).unwrap();
        let mut r = CpuStream::new(&[1], &[8]).unwrap();
        let mut args = [CpuArg::Stream(&a), CpuArg::Out(&mut r)];
        let err = plan
            .run_watched(&module, &mut args, None, Watchdog::limited(limit), None)
            .unwrap_err();
        assert_eq!(
            err,
            CpuError::TimeLimit {
                function: "spin".into(),
                limit
            }
        );
    }
}

#[test]
fn an_endless_loop_in_a_called_kernel_stops_natively() {
    let module = brook_frontend::compile(
        "kernel float forever(float a) { float x = a; for (int i = 0; i < 4; i++) { while (x > -1.0) { x = x + 1.0; } } return x; }
         kernel void outer(float a<>, out float r<>) { r = forever(a); }",
        "nested.br",
    )
    .unwrap();
    let (id, _) = module.function("outer").unwrap();
    let limit = Duration::from_millis(50);
    let a = CpuStream::new(&[1], &[100_000]).unwrap();
    let mut r = CpuStream::new(&[1], &[100_000]).unwrap();
    let mut args = [CpuArg::Stream(&a), CpuArg::Out(&mut r)];
    let started = std::time::Instant::now();
    let err = KernelPlan::new(&module, id)
        .run_watched(&module, &mut args, None, Watchdog::limited(limit), None)
        .unwrap_err();
    assert_eq!(
        err,
        CpuError::TimeLimit {
            function: "outer".into(),
            limit
        }
    );
    // Every tile stops at its next check; none that had not started runs on.
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_call_with_a_time_limit_runs_natively_and_gives_the_same_values() {
    let module = brook_frontend::compile(
        "kernel void twice(float a<>, out float r<>) { float x = a; for (int i = 0; i < 2000; i++) { x += x * 0.0005; } r = x; }",
        "twice.br",
    )
    .unwrap();
    let (id, _) = module.function("twice").unwrap();
    let plan = KernelPlan::new(&module, id);
    let a = CpuStream::from_data(&[1], &[3], &[1.0, 2.0, 3.0]).unwrap();
    let mut r = CpuStream::new(&[1], &[3]).unwrap();
    let mut args = [CpuArg::Stream(&a), CpuArg::Out(&mut r)];
    let unlimited = plan.run_masked(&module, &mut args, None).unwrap();
    assert_eq!(unlimited.execution.engine, Engine::Jit);
    drop(args);
    let expected = r.data().to_vec();
    r.data_mut().fill(0.0);
    let mut args = [CpuArg::Stream(&a), CpuArg::Out(&mut r)];
    let watched = plan
        .run_watched(
            &module,
            &mut args,
            None,
            Watchdog::limited(Duration::from_secs(60)),
            None,
        )
        .unwrap();
    assert_eq!(watched.execution.engine, Engine::Jit);
    assert_eq!(watched.execution.fallback, None);
    // Code with the check is a variant of its own, compiled once and kept.
    assert!(
        watched
            .execution
            .compiled
            .as_ref()
            .is_some_and(|c| c.variant.contains("time limit")),
        "{:?}",
        watched.execution
    );
    drop(args);
    let mut reference = CpuStream::new(&[1], &[3]).unwrap();
    KernelPlan::interpreted(id)
        .run_masked(
            &module,
            &mut [CpuArg::Stream(&a), CpuArg::Out(&mut reference)],
            None,
        )
        .unwrap();
    assert_eq!(r.data(), expected.as_slice());
    assert_eq!(r.data(), reference.data());
}
