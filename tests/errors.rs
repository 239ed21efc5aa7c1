//! Bad input gets a clear error, never a panic or an unchecked GL error.

use brook::{args, BrookError, ContextOptions, Runtime};

const SAXPY: &str = "kernel void saxpy(float a, float4 x<>, float4 y<>, out float4 result<>) {
    result = a * x + y;
}";

#[test]
fn a_type_error_points_at_line_and_column_with_a_caret() {
    let rt = Runtime::cpu();
    let err = rt
        .compile(
            "kernel void k(float a<>, out float b<>) {\n    b = a + undefined_name;\n}",
            "bad.br",
        )
        .err()
        .expect("an unknown name is an error");
    let text = err.to_string();
    assert!(text.contains("bad.br:2:13"), "{text}");
    assert!(text.contains("b = a + undefined_name;"), "{text}");
    assert!(text.contains('^'), "{text}");
}

#[test]
fn calls_that_do_not_fit_the_kernel_are_errors() {
    for rt in [Runtime::gl().unwrap(), Runtime::cpu()] {
        let program = rt.compile(SAXPY, "saxpy.br").unwrap();
        let s4 = rt.stream_of(4, &[4]).unwrap();
        let other = rt.stream_of(4, &[5]).unwrap();
        let e = rt.run(&program, "nope", args![&s4]).unwrap_err();
        assert!(e.to_string().contains("no kernel `nope`"), "{e}");
        let e = rt.run(&program, "saxpy", args![1.0f32, &s4]).unwrap_err();
        assert!(
            e.to_string().contains("takes 4 arguments but 2 were given"),
            "{}: {e}",
            rt.backend_name()
        );
        let e = rt
            .run(&program, "saxpy", args![&s4, &s4, &s4, &s4])
            .unwrap_err();
        assert!(
            e.to_string().contains("constant"),
            "{}: {e}",
            rt.backend_name()
        );
        let two_outputs = rt
            .compile(
                "kernel void k(float a<>, out float b<>, out float c<>) { b = a; c = a; }",
                "k.br",
            )
            .unwrap();
        let (a, b) = (
            rt.stream_of(1, &[4]).unwrap(),
            rt.stream_of(1, &[4]).unwrap(),
        );
        let c = rt.stream_of(1, &[2, 2]).unwrap();
        let e = rt.run(&two_outputs, "k", args![&a, &b, &c]).unwrap_err();
        assert!(
            e.to_string().contains("same shape"),
            "{}: {e}",
            rt.backend_name()
        );
        drop(other);
    }
}

#[test]
fn a_stream_too_large_for_the_device_names_the_limit() {
    let rt = Runtime::gl_with(ContextOptions {
        max_texture_size: Some(32),
        ..ContextOptions::default()
    })
    .unwrap();
    let e = rt.stream_of(4, &[32 * 32 + 1]).err().expect("too large");
    assert!(matches!(e, BrookError::DeviceLimit { .. }), "{e:?}");
    let text = e.to_string();
    assert!(
        text.contains("1025") && text.contains("1024") && text.contains("32"),
        "{text}"
    );
    assert!(rt.stream_of(4, &[32 * 32]).is_ok());
}

#[test]
fn host_arrays_of_the_wrong_size_are_errors() {
    for rt in [Runtime::gl().unwrap(), Runtime::cpu()] {
        let s = rt.stream_of(4, &[3, 3]).unwrap();
        assert!(s.read(&[0.0; 35]).is_err(), "{}", rt.backend_name());
        let mut out = vec![0.0; 37];
        assert!(s.write(&mut out).is_err(), "{}", rt.backend_name());
    }
}

#[test]
fn unknown_backend_names_are_errors_not_fallbacks() {
    let e = Runtime::named("dx9").err().expect("unknown backend");
    assert!(e.to_string().contains("unknown Brook backend `dx9`"), "{e}");
    assert_eq!(Runtime::named("cpu").unwrap().backend_name(), "cpu");
    assert_eq!(Runtime::named("gl").unwrap().backend_name(), "gl");
}

#[test]
fn streams_of_one_runtime_cannot_be_used_with_another() {
    let (a, b) = (Runtime::cpu(), Runtime::cpu());
    let program = a
        .compile("kernel void k(float x<>, out float y<>) { y = x; }", "k.br")
        .unwrap();
    let x = a.stream_of(1, &[4]).unwrap();
    let y = b.stream_of(1, &[4]).unwrap();
    let e = a.run(&program, "k", args![&x, &y]).unwrap_err();
    assert!(e.to_string().contains("another runtime"), "{e}");
}

#[test]
fn a_stream_whose_textures_are_held_refuses_calls_that_replace_them() {
    let gl = Runtime::gl().unwrap();
    let p = gl
        .compile(
            "kernel void inc(float a<>, out float b<>) { b = a + 1.0; }",
            "inc.br",
        )
        .unwrap();
    let (s, other) = (
        gl.stream_of(1, &[4]).unwrap(),
        gl.stream_of(1, &[4]).unwrap(),
    );
    s.read(&[1.0; 4]).unwrap();
    let held = s.gl_textures().expect("a GL stream has textures");
    let state = |r: Result<(), BrookError>| matches!(r, Err(BrookError::State { .. }));
    assert!(state(s.read(&[2.0; 4])), "streamRead");
    assert!(state(gl.swap(&s, &other)), "streamSwap");
    assert!(state(gl.run(&p, "inc", args![&s, &s])), "in place");
    // Reading and using it as an input are fine while it is held.
    gl.run(&p, "inc", args![&s, &other]).unwrap();
    assert_eq!(s.to_vec().unwrap(), [1.0; 4]);
    assert_eq!(held.layout().shape(), [4]);
    drop(held);
    gl.run(&p, "inc", args![&s, &s]).unwrap();
    assert_eq!(s.to_vec().unwrap(), [2.0; 4]);
}
