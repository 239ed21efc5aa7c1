//! The time limit on the CPU: a kernel looping forever is stopped with an error naming it, at a
//! loop back edge. Native code does not read the clock, so a call with a time limit runs on the
//! interpreter, and its record says so.

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
            .run_watched(&module, &mut args, None, Watchdog::limited(limit))
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
fn a_call_with_a_time_limit_runs_on_the_interpreter_and_says_why() {
    let module = brook_frontend::compile(
        "kernel void twice(float a<>, out float r<>) { float x = a; for (int i = 0; i < 2; i++) { x += x; } r = x; }",
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
    let watched = plan
        .run_watched(
            &module,
            &mut args,
            None,
            Watchdog::limited(Duration::from_secs(60)),
        )
        .unwrap();
    assert_eq!(watched.execution.engine, Engine::Interpreter);
    assert!(
        watched
            .execution
            .fallback
            .as_deref()
            .is_some_and(|why| why.contains("time limit")),
        "{:?}",
        watched.execution
    );
    drop(args);
    assert_eq!(r.data(), &[4.0, 8.0, 12.0]);
}
