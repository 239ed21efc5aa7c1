//! The time limit on both engines: a kernel looping forever is stopped with an error naming it,
//! at a loop back edge, by the batch engine and by the interpreter alike.

use std::time::Duration;

use brook_cpu::{CpuArg, CpuError, CpuStream, Engine, KernelPlan, Watchdog};

#[test]
fn both_engines_stop_an_endless_loop_when_the_time_is_up() {
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
        let engine = plan.engine();
        let err = plan
            .run_watched(&module, &mut args, Watchdog::limited(limit))
            .unwrap_err();
        assert_eq!(
            err,
            CpuError::TimeLimit {
                function: "spin".into(),
                limit
            },
            "{engine:?}"
        );
    }
    assert_eq!(KernelPlan::new(&module, id).engine(), Engine::Batch);
}
