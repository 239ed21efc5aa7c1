//! A backend defined outside the workspace's crates (`support/counting.rs`) plugs into the
//! runtime: it wraps the CPU backend and counts the calls that reach it. Calls the runtime's checks refuse never
//! reach it, so a backend implements mechanisms, not rules.

mod support;

use brook::{args, BrookError, Runtime, ScatterOp};
use support::counting::Counting;

const SRC: &str =
    "kernel void saxpy(float a, float4 x<>, float4 y<>, out float4 r<>) { r = a * x + y; }
reduce void sum(float a<>, reduce float r<>) { r += a; }
kernel void keep(float a<>, out float b<>) { if (a > 1.5) { b = a; } else { discard; } }";

#[test]
fn a_backend_defined_outside_runs_checked_calls() {
    let counting = Counting::cpu(false);
    let rt = Runtime::with_backend(counting.clone());
    assert_eq!(rt.backend_name(), "counting");
    let program = rt.compile(SRC, "custom.br").unwrap();
    let (x, y, r) = (
        rt.stream_of(4, &[8]).unwrap(),
        rt.stream_of(4, &[8]).unwrap(),
        rt.stream_of(4, &[8]).unwrap(),
    );
    x.read(&[1.0; 32]).unwrap();
    y.read(&[2.0; 32]).unwrap();
    rt.run(&program, "saxpy", args![3.0f32, &x, &y, &r])
        .unwrap();
    assert_eq!(r.to_vec().unwrap(), vec![5.0; 32]);

    let a = rt.stream_of(1, &[4]).unwrap();
    a.read(&[1.0, 2.0, 3.0, 4.0]).unwrap();
    assert_eq!(
        rt.reduce_to_value(&program, "sum", &a, args![]).unwrap(),
        [10.0]
    );
    let (dst, index) = (
        rt.stream_of(1, &[2]).unwrap(),
        rt.stream_of(1, &[4]).unwrap(),
    );
    dst.read(&[0.0, 0.0]).unwrap();
    index.read(&[0.0, 1.0, 0.0, 1.0]).unwrap();
    rt.scatter(&dst, &index, &a, ScatterOp::Add).unwrap();
    assert_eq!(dst.to_vec().unwrap(), [4.0, 6.0]);

    // The write query and mask state machine is the runtime's: the backend counts elements.
    let b = rt.stream_of(1, &[4]).unwrap();
    rt.begin_write_query().unwrap();
    rt.run(&program, "keep", args![&a, &b]).unwrap();
    assert_eq!(
        rt.end_write_query().unwrap(),
        3,
        "2.0, 3.0 and 4.0 are kept"
    );
    assert!(rt.end_write_query().is_err());

    assert_eq!(counting.calls("prepare"), 1);
    assert_eq!(counting.calls("run_kernel"), 2);
    assert_eq!(counting.calls("reduce"), 1);
    assert_eq!(counting.calls("scatter"), 1);
    assert_eq!(
        counting.calls("end_write_query"),
        1,
        "the second end is refused first"
    );

    // Calls that do not fit never reach the backend.
    let wrong = rt.stream_of(2, &[8]).unwrap();
    let err = rt
        .run(&program, "saxpy", args![3.0f32, &wrong, &y, &r])
        .unwrap_err();
    assert!(
        matches!(err.unplaced(), BrookError::ArgumentType { .. }),
        "{err}"
    );
    let err = rt.run(&program, "saxpy", args![&x, &y, &r]).unwrap_err();
    assert!(
        matches!(
            err.unplaced(),
            BrookError::ArgumentCount {
                expected: 4,
                got: 3,
                ..
            }
        ),
        "{err}"
    );
    let err = rt.run(&program, "nothing", args![]).unwrap_err();
    assert!(matches!(err, BrookError::Unknown { .. }), "{err}");
    rt.run(&program, "saxpy", args![3.0f32, &x, &y, &x])
        .unwrap();
    assert_eq!(x.to_vec().unwrap(), vec![5.0; 32], "in place");
    assert_eq!(
        counting.calls("run_kernel"),
        3,
        "only the in-place call ran"
    );

    // A stream of another runtime is refused by name.
    let cpu = Runtime::cpu();
    let foreign = cpu.stream_of(4, &[8]).unwrap();
    let err = rt
        .run(&program, "saxpy", args![3.0f32, &foreign, &y, &r])
        .unwrap_err();
    assert!(
        matches!(err.unplaced(), BrookError::ForeignStream { .. }),
        "{err}"
    );
}

/// With automatic fusion on, a kernel call whose output is reduced next reaches the backend
/// as one `map_reduce`; when the backend fused it, the call runs again only if its output is
/// read, and runs before a reduction that writes a stream it reads.
#[test]
fn a_backend_that_fuses_gets_a_call_and_the_reduction_of_its_output_together() {
    let counting = Counting::cpu(true);
    let rt = Runtime::with_backend(counting.clone());
    rt.set_automatic_fusion(true).unwrap();
    let program = rt
        .compile(
            "kernel void offset(float x<>, float w<>, out float y<>) { y = x + w; }
             kernel void keep(float a<>, out float b<>) { if (a > 2.5) { b = a; } else { discard; } }
             reduce void sum(float a<>, reduce float r<>) { r += a; }",
            "fused.br",
        )
        .unwrap();
    let (x, w, y) = (
        rt.stream_of(1, &[2, 2]).unwrap(),
        rt.stream_of(1, &[2, 1]).unwrap(),
        rt.stream_of(1, &[2, 2]).unwrap(),
    );
    x.read(&[1.0, 2.0, 3.0, 4.0]).unwrap();
    w.read(&[10.0, 20.0]).unwrap();
    rt.run(&program, "offset", args![&x, &w, &y]).unwrap();
    let total = rt.reduce_to_value(&program, "sum", &y, args![]).unwrap();
    assert_eq!(total, [70.0]);
    assert_eq!(counting.calls("map_reduce"), 1);
    assert_eq!(counting.calls("run_kernel"), 0, "fused: not run on its own");
    assert_eq!(y.to_vec().unwrap(), [11.0, 12.0, 23.0, 24.0]);
    assert_eq!(counting.calls("run_kernel"), 1, "run for the read");

    // The reduction writes w, which the call reads: the call runs first, with the old w.
    rt.run(&program, "offset", args![&x, &w, &y]).unwrap();
    rt.reduce_to_stream(&program, "sum", &y, &w, args![])
        .unwrap();
    assert_eq!(w.to_vec().unwrap(), [23.0, 47.0]);
    assert_eq!(y.to_vec().unwrap(), [11.0, 12.0, 23.0, 24.0]);
    assert_eq!(counting.calls("map_reduce"), 1);
    assert_eq!(counting.calls("run_kernel"), 2);
    assert_eq!(counting.calls("reduce"), 1);

    // A call writing the whole output replaces one that ran fused, unless it can discard
    // (its discarded elements keep the first call's values): then the first runs first.
    rt.run(&program, "offset", args![&x, &w, &y]).unwrap();
    rt.reduce_to_value(&program, "sum", &y, args![]).unwrap();
    rt.run(&program, "offset", args![&x, &w, &y]).unwrap();
    rt.reduce_to_value(&program, "sum", &y, args![]).unwrap();
    assert_eq!(counting.calls("run_kernel"), 2, "replaced, never run alone");
    rt.run(&program, "keep", args![&x, &y]).unwrap();
    assert_eq!(
        counting.calls("run_kernel"),
        3,
        "run before a call that can discard"
    );
    assert_eq!(y.to_vec().unwrap(), [24.0, 25.0, 3.0, 4.0]);
    assert_eq!(counting.calls("run_kernel"), 4);
}
