//! In-place calls (a stream both input and output of one call: every element reads the old
//! values), `streamSwap`, and outputs the kernel leaves unwritten, GL (both profiles) against
//! the CPU backend and against values computed here.

mod support;

use brook::{args, Runtime, TraceEntry};
use support::{agree_with_cpu, gl_profiles, ramp};

fn gl_runtimes() -> Vec<Runtime> {
    let mut all = gl_profiles(None, None);
    all.extend(gl_profiles(Some(7), None));
    all
}

#[test]
fn a_stream_can_be_input_and_output_of_one_call() {
    let src = "kernel void step(float a<>, float b<>, out float r<>) { r = a * 2.0 + b; }";
    let out = agree_with_cpu(&gl_runtimes(), 0, |rt| {
        let program = rt.compile(src, "step.br").unwrap();
        let a = rt.stream_of(1, &[5, 9]).unwrap();
        a.read(&ramp(45)).unwrap();
        let b = rt.stream_of(1, &[5, 9]).unwrap();
        b.read(&[1.0; 45]).unwrap();
        rt.run(&program, "step", args![&a, &b, &a]).unwrap();
        rt.run(&program, "step", args![&a, &b, &a]).unwrap();
        vec![a.to_vec().unwrap()]
    });
    let expected: Vec<f32> = (0..45).map(|i| i as f32 * 4.0 + 3.0).collect();
    assert_eq!(out[0], expected);
}

#[test]
fn an_in_place_shift_through_domains_reads_the_old_values() {
    // a[1..n] = a[0..n-1] + 0.5: with in-place reads of old values this shifts by one.
    let src = "kernel void next(float a<>, out float r<>) { r = a + 0.5; }";
    let out = agree_with_cpu(&gl_runtimes(), 0, |rt| {
        let program = rt.compile(src, "next.br").unwrap();
        let a = rt.stream_of(1, &[12]).unwrap();
        a.read(&ramp(12)).unwrap();
        let from = a.domain(&[0], &[11]).unwrap();
        let to = a.domain(&[1], &[12]).unwrap();
        rt.run(&program, "next", args![&from, &to]).unwrap();
        vec![a.to_vec().unwrap()]
    });
    let mut expected = vec![0.0];
    expected.extend((0..11).map(|i| i as f32 + 0.5));
    assert_eq!(out[0], expected);
}

#[test]
fn discarded_elements_of_an_in_place_call_keep_their_values() {
    let src =
        "kernel void doubled(float a<>, out float r<>) { if (a < 0.0) discard; r = a * 2.0; }";
    let data: Vec<f32> = (0..20)
        .map(|i| if i % 3 == 0 { -(i as f32) } else { i as f32 })
        .collect();
    let out = agree_with_cpu(&gl_runtimes(), 0, |rt| {
        let program = rt.compile(src, "doubled.br").unwrap();
        let a = rt.stream_of(1, &[20]).unwrap();
        a.read(&data).unwrap();
        rt.run(&program, "doubled", args![&a, &a]).unwrap();
        vec![a.to_vec().unwrap()]
    });
    let expected: Vec<f32> = data
        .iter()
        .map(|v| if *v < 0.0 { *v } else { v * 2.0 })
        .collect();
    assert_eq!(out[0], expected);
}

#[test]
fn the_trace_shows_the_scratch_and_the_swap() {
    let src = "kernel void inc(float a<>, out float r<>) { r = a + 1.0; }";
    let gl = Runtime::gl().unwrap();
    let program = gl.compile(src, "inc.br").unwrap();
    let a = gl.stream_of(1, &[4, 4]).unwrap();
    a.read(&ramp(16)).unwrap();
    gl.set_trace(true);
    gl.run(&program, "inc", args![&a, &a]).unwrap();
    gl.run(&program, "inc", args![&a, &a]).unwrap();
    let trace = gl.take_trace();
    assert_eq!(trace.len(), 2);
    let calls: Vec<_> = trace
        .iter()
        .map(|e| match e {
            TraceEntry::Kernel(k) => k,
            other => panic!("expected kernel calls, got {other}"),
        })
        .collect();
    assert!(calls[0].compiled.is_some() && calls[1].compiled.is_none());
    for call in &calls {
        let scratch = &call.scratch[0];
        assert_eq!(scratch.param, "r");
        // A copy of the stream into the scratch first, then the pass reads the stream's
        // texture and draws into the scratch one.
        let [copy, draw] = &call.passes[..] else {
            panic!("a copy and a draw: {call}")
        };
        assert_eq!(copy.draw, brook::core::Draw::Copy, "{call}");
        assert_eq!(
            (copy.inputs[0].1, copy.targets[0].1),
            (scratch.old[0], scratch.new[0])
        );
        assert_eq!(draw.inputs[0].1, scratch.old[0], "{call}");
        assert_eq!(draw.targets[0].1, scratch.new[0], "{call}");
        assert_ne!(scratch.old, scratch.new);
    }
    // The second call reads what the first drew: the scratch became the stream.
    assert_eq!(calls[1].scratch[0].old, calls[0].scratch[0].new);
    assert!(calls[0].to_string().contains("in place `r`"));
    assert_eq!(
        a.to_vec().unwrap(),
        (0..16).map(|i| i as f32 + 2.0).collect::<Vec<_>>()
    );
}

/// A whole stream gathered and written in one call is gathered as it was before the call (the
/// runtime gathers from a copy, as the original's scan needs); a domain of it as the gather,
/// and one stream passed to two outputs, are errors.
#[test]
fn a_stream_gathered_and_written_gathers_its_old_values_and_two_outputs_are_an_error() {
    let gather = "kernel void g(float i<>, float t[], out float r<>) { r = t[i]; }";
    let twice = "kernel void w(float a<>, out float r<>, out float s<>) { r = a; s = a; }";
    for rt in [Runtime::gl().unwrap(), Runtime::cpu()] {
        let a = rt.stream_of(1, &[4]).unwrap();
        let b = rt.stream_of(1, &[4]).unwrap();
        a.read(&[3.0, 2.0, 1.0, 0.0]).unwrap();
        b.read(&[10.0, 20.0, 30.0, 40.0]).unwrap();
        let program = rt.compile(gather, "g.br").unwrap();
        rt.run(&program, "g", args![&a, &b, &b]).unwrap();
        assert_eq!(b.to_vec().unwrap(), [40.0, 30.0, 20.0, 10.0]);
        let part = b.domain(&[0], &[2]).unwrap();
        let err = rt.run(&program, "g", args![&a, &part, &b]).unwrap_err();
        assert!(err.to_string().contains("gathered"), "{err}");
        let program = rt.compile(twice, "w.br").unwrap();
        let err = rt.run(&program, "w", args![&a, &b, &b]).unwrap_err();
        assert!(err.to_string().contains("two outputs"), "{err}");
    }
}

#[test]
fn stream_swap_exchanges_storage_for_ping_pong() {
    let src = "kernel void inc(float a<>, out float r<>) { r = a + 1.0; }";
    let out = agree_with_cpu(&gl_runtimes(), 0, |rt| {
        let program = rt.compile(src, "inc.br").unwrap();
        let a = rt.stream_of(1, &[3, 8]).unwrap();
        let b = rt.stream_of(1, &[3, 8]).unwrap();
        a.read(&ramp(24)).unwrap();
        for _ in 0..5 {
            rt.run(&program, "inc", args![&a, &b]).unwrap();
            rt.swap(&a, &b).unwrap();
        }
        vec![a.to_vec().unwrap(), b.to_vec().unwrap()]
    });
    assert_eq!(out[0], (0..24).map(|i| i as f32 + 5.0).collect::<Vec<_>>());
    assert_eq!(out[1], (0..24).map(|i| i as f32 + 4.0).collect::<Vec<_>>());
}

#[test]
fn stream_swap_needs_one_shape_and_format() {
    for rt in [Runtime::gl().unwrap(), Runtime::cpu()] {
        let a = rt.stream_of(1, &[4]).unwrap();
        let err = rt.swap(&a, &rt.stream_of(1, &[5]).unwrap()).unwrap_err();
        assert!(
            err.to_string().contains("one shape and element format"),
            "{err}"
        );
        let err = rt.swap(&a, &rt.stream_of(2, &[4]).unwrap()).unwrap_err();
        assert!(
            err.to_string().contains("one shape and element format"),
            "{err}"
        );
        assert!(rt.swap(&a, &a).is_ok());
    }
    let gl = Runtime::gl().unwrap();
    let (a, b) = (
        gl.stream_of(1, &[4]).unwrap(),
        gl.stream_of(1, &[4]).unwrap(),
    );
    gl.set_trace(true);
    gl.swap(&a, &b).unwrap();
    assert!(matches!(gl.take_trace()[..], [TraceEntry::Swap { .. }]));
}

#[test]
fn outputs_the_kernel_leaves_unwritten_are_zero_on_gl() {
    // Only `.x` is written: `.y` is 0, whatever the stream held before.
    let src = "kernel void part(float a<>, out float2 r<>) { r.x = a; }";
    for gl in gl_runtimes() {
        let program = gl.compile(src, "part.br").unwrap();
        let a = gl.stream_of(1, &[10]).unwrap();
        a.read(&ramp(10)).unwrap();
        let r = gl.stream_of(2, &[10]).unwrap();
        r.read(&[7.0; 20]).unwrap();
        gl.run(&program, "part", args![&a, &r]).unwrap();
        let expected: Vec<f32> = (0..10).flat_map(|i| [i as f32, 0.0]).collect();
        assert_eq!(r.to_vec().unwrap(), expected, "{}", gl.describe());
    }
}
