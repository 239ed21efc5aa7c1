//! What the CPU backend does at the edge of the machine: a stream larger than memory is an
//! error naming it and its size (it aborted the process), and a kernel that never ends is
//! stopped by the runtime's time limit (it hung).

use std::time::{Duration, Instant};

use brook::{args, Runtime};

#[test]
fn a_stream_larger_than_memory_is_an_error_naming_its_shape_and_size() {
    let rt = Runtime::cpu();
    let err = rt
        .stream_of(4, &[100_000, 100_000])
        .err()
        .expect("160 GB cannot be had")
        .to_string();
    assert!(
        err.contains("<100000, 100000>")
            && err.contains("float4")
            && err.contains("160000000000 bytes"),
        "{err}"
    );
    // The runtime still works afterwards.
    assert_eq!(rt.stream_of(1, &[4]).unwrap().to_vec().unwrap(), [0.0; 4]);
}

const FOREVER: &str = "kernel void spin(float a<>, out float r<>) {
    float x = a;
    while (1) { x += 1.0; }
    r = x;
}";

#[test]
fn a_kernel_that_never_ends_is_stopped_by_the_time_limit() {
    let rt = Runtime::cpu();
    let p = rt.compile(FOREVER, "spin.br").unwrap();
    let a = rt.stream_of(1, &[64]).unwrap();
    let r = rt.stream_of(1, &[64]).unwrap();
    rt.set_time_limit(Some(Duration::from_millis(200))).unwrap();
    let start = Instant::now();
    // The CPU fuses, so the call may wait for a reduction of `r`: its error then comes from
    // the next operation that runs it (here `finish_checked`).
    let err = (rt.run(&p, "spin", args![&a, &r]))
        .and_then(|()| rt.finish_checked())
        .unwrap_err()
        .to_string();
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "stopped late: {:?}",
        start.elapsed()
    );
    assert!(
        err.contains("`spin`") && err.contains("time limit of 200ms"),
        "{err}"
    );
    // Without the limit a finite kernel still runs.
    rt.set_time_limit(None).unwrap();
    let finite = rt
        .compile(
            "kernel void k(float a<>, out float r<>) { r = a + 1.0; }",
            "k.br",
        )
        .unwrap();
    rt.run(&finite, "k", args![&a, &r]).unwrap();
    assert_eq!(r.to_vec().unwrap(), [1.0; 64]);
}

#[test]
fn gl_says_it_cannot_stop_a_draw() {
    let gl = Runtime::gl().unwrap();
    let err = gl
        .set_time_limit(Some(Duration::from_secs(1)))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("cannot stop") && err.contains("brcc run --timeout 60"),
        "{err}"
    );
    gl.set_time_limit(None).unwrap();
}
