//! Bad input gets a clear error, never a panic or an unchecked GL error.

use brook::{args, BrookError, ContextOptions, Runtime, ScatterOp};

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
    for rt in [
        Runtime::gl().unwrap(),
        Runtime::wgpu().unwrap(),
        Runtime::cpu(),
    ] {
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
    for rt in [
        Runtime::gl().unwrap(),
        Runtime::wgpu().unwrap(),
        Runtime::cpu(),
    ] {
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
    assert_eq!(Runtime::named("wgpu").unwrap().backend_name(), "wgpu");
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

/// A program whose kernel and reduction sit on known lines.
const PLACED: &str = "// placed.br
kernel void twice(float a<>, out float b<>, out float c<>) {
    b = a;
    c = a;
}
reduce void total(float a<>, reduce float r<>) { r += a; }
";

#[test]
fn run_time_errors_carry_the_brook_line_they_concern() {
    for rt in [
        Runtime::gl().unwrap(),
        Runtime::wgpu().unwrap(),
        Runtime::cpu(),
    ] {
        let p = rt.compile(PLACED, "placed.br").unwrap();
        let a = rt.stream_of(1, &[4]).unwrap();
        let b = rt.stream_of(1, &[4]).unwrap();
        let c = rt.stream_of(1, &[2, 2]).unwrap();
        // A call that does not fit: at the kernel's definition.
        let e = rt
            .run(&p, "twice", args![&a, &b, &c])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("placed.br:2: ")
                && e.contains("same shape")
                && e.contains("2 | kernel void twice(float a<>, out float b<>, out float c<>) {"),
            "{}: {e}",
            rt.backend_name()
        );
        // A reduction into a stream whose extents do not divide: at the reduce function.
        let three = rt.stream_of(1, &[3]).unwrap();
        let e = rt
            .reduce_to_stream(&p, "total", &a, &three, &[])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("placed.br:6: "), "{}: {e}", rt.backend_name());
    }
}

#[test]
fn a_generation_error_points_at_its_statement() {
    let open: String = (0..20)
        .map(|d| format!("    for (int i{d} = 0; i{d} < 1; i{d}++) {{\n"))
        .collect();
    let src = format!(
        "kernel void k(float a<>, out float b<>) {{\n    float x = 0.0;\n{open}    x += a;\n{}    b = x;\n}}",
        "}\n".repeat(20)
    );
    let rt = Runtime::gl().unwrap();
    let p = rt.compile(&src, "deep.br").unwrap();
    let (a, b) = (
        rt.stream_of(1, &[2]).unwrap(),
        rt.stream_of(1, &[2]).unwrap(),
    );
    let e = rt.run(&p, "k", args![&a, &b]).unwrap_err().to_string();
    // The thirteenth loop, on line 15, is one too deep.
    assert!(
        e.starts_with("deep.br:15: ") && e.contains("for (int i12 = 0; i12 < 1; i12++) {"),
        "{e}"
    );
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
    let held = (s.gl_textures().unwrap()).expect("a GL stream has textures");
    let state = |r: Result<(), BrookError>| {
        matches!(
            r.as_ref().map_err(BrookError::unplaced),
            Err(BrookError::State { .. })
        )
    };
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

#[test]
fn a_file_name_with_a_newline_stays_inside_the_shader_comments() {
    // The name is quoted in comments above each function and statement of the GLSL; a
    // newline in it must not end the comment and turn the rest into shader code.
    let gl = Runtime::gl().unwrap();
    let p = gl
        .compile(
            "kernel void inc(float a<>, out float b<>) {\n    b = a + 1.0;\n}",
            "odd.br\n#error injected",
        )
        .unwrap();
    let (a, b) = (
        gl.stream_of(1, &[2]).unwrap(),
        gl.stream_of(1, &[2]).unwrap(),
    );
    a.read(&[1.0, 2.0]).unwrap();
    gl.run(&p, "inc", args![&a, &b]).unwrap();
    assert_eq!(b.to_vec().unwrap(), [2.0, 3.0]);
}

/// Brook's call rules are brook-core's, so every backend refuses a call that breaks one with
/// the same variant before the backend sees it (the wgpu and CPU engines no longer check
/// them): arguments, vouts, the write-mask state, reductions and scatters.
#[test]
fn broken_call_rules_are_cores_variants_on_every_backend() {
    for rt in [
        Runtime::gl().unwrap(),
        Runtime::wgpu().unwrap(),
        Runtime::cpu(),
    ] {
        let name = rt.backend_name();
        let p = rt
            .compile(
                "kernel void k(float a<>, out float r<>, out float q<>) { r = a; q = a; }\n\
                 kernel void v(float a<>, vout[1] float o<>) { o = a; push(o); }\n\
                 reduce void sum(float a<>, reduce float r<>) { r += a; }",
                "rules.br",
            )
            .unwrap();
        let s = |c: u8, n: usize| rt.stream_of(c, &[n]).unwrap();
        let (a, r, q, w) = (s(1, 4), s(1, 4), s(1, 4), s(2, 4));
        let iter = rt
            .iter(brook::IterSpec::new(&[4], 1, [0.0; 4], [4.0; 4]).unwrap())
            .unwrap();
        let param = |e: BrookError, want: &str| {
            assert!(
                matches!(&e, BrookError::ArgumentType { param, .. } if param == want),
                "{name}: {e}"
            );
        };
        // Elements of another size; an iterator as an output.
        param(
            rt.run(&p, "k", args![&w, &r, &q])
                .map_err(unplaced)
                .unwrap_err(),
            "a",
        );
        param(
            rt.run(&p, "k", args![&a, &iter, &q])
                .map_err(unplaced)
                .unwrap_err(),
            "r",
        );
        // A vout without room for N per element.
        let e = rt
            .run(&p, "v", args![&a, &s(1, 2)])
            .map_err(unplaced)
            .unwrap_err();
        assert!(
            matches!(&e, BrookError::ShapeMismatch { .. })
                && e.to_string().contains("vout `o` needs room for 4"),
            "{name}: {e}"
        );
        // The write-mask state: enabling none, ending no query, a second query, a mask or a
        // query on a vout kernel, a mask of another shape than the outputs.
        let state = |e: BrookError, call: &str| {
            assert!(
                matches!(&e, BrookError::State { call: c, .. } if c == call),
                "{name}: {e}"
            );
        };
        state(
            rt.enable_write_mask().map_err(unplaced).unwrap_err(),
            "streamEnableWriteMask",
        );
        state(
            rt.end_write_query().map_err(unplaced).unwrap_err(),
            "streamEndWriteQuery",
        );
        rt.begin_write_query().unwrap();
        state(
            rt.begin_write_query().map_err(unplaced).unwrap_err(),
            "streamBeginWriteQuery",
        );
        let e = rt
            .run(&p, "v", args![&a, &r])
            .map_err(unplaced)
            .unwrap_err();
        assert!(
            matches!(&e, BrookError::Unsupported { call, .. } if call == "kernel `v`"),
            "{name}: {e}"
        );
        rt.end_write_query().unwrap();
        rt.set_write_mask(&s(1, 5)).unwrap();
        rt.enable_write_mask().unwrap();
        let e = rt
            .run(&p, "k", args![&a, &r, &q])
            .map_err(unplaced)
            .unwrap_err();
        assert!(
            matches!(&e, BrookError::ShapeMismatch { .. })
                && e.to_string().contains("write mask has shape <5>"),
            "{name}: {e}"
        );
        rt.disable_write_mask().unwrap();
        // Reductions: a kernel as the reduce function, into its own input, into a stream
        // whose shape does not divide the input's, with arguments it does not take.
        let e = rt
            .reduce_to_stream(&p, "k", &a, &r, args![])
            .map_err(unplaced)
            .unwrap_err();
        assert!(
            matches!(&e, BrookError::Unknown { name, .. } if name == "k"),
            "{name}: {e}"
        );
        let e = rt
            .reduce_to_stream(&p, "sum", &a, &a, args![])
            .map_err(unplaced)
            .unwrap_err();
        assert!(matches!(&e, BrookError::Aliasing { .. }), "{name}: {e}");
        let e = (rt.reduce_to_stream(&p, "sum", &a, &s(1, 3), args![]))
            .map_err(unplaced)
            .unwrap_err();
        assert!(
            matches!(&e, BrookError::ShapeMismatch { .. }),
            "{name}: {e}"
        );
        let e = rt
            .reduce_to_value(&p, "sum", &a, args![1.0f32])
            .map_err(unplaced)
            .unwrap_err();
        assert!(
            matches!(
                &e,
                BrookError::ArgumentCount {
                    expected: 0,
                    got: 1,
                    ..
                }
            ),
            "{name}: {e}"
        );
        // Scatters: one stream in two roles, an index of the wrong width, index and data of
        // different lengths, a combiner that is no reduce function.
        let index = s(1, 4);
        index.read(&[0.0, 1.0, 2.0, 3.0]).unwrap();
        let e = rt
            .scatter(&a, &index, &a, ScatterOp::Add)
            .map_err(unplaced)
            .unwrap_err();
        assert!(matches!(&e, BrookError::Aliasing { .. }), "{name}: {e}");
        param(
            rt.scatter(&a, &w, &r, ScatterOp::Add)
                .map_err(unplaced)
                .unwrap_err(),
            "index",
        );
        let e = rt
            .scatter(&a, &index, &s(1, 5), ScatterOp::Add)
            .map_err(unplaced)
            .unwrap_err();
        assert!(
            matches!(&e, BrookError::ShapeMismatch { .. }),
            "{name}: {e}"
        );
        let e = (rt.scatter(&a, &index, &r, ScatterOp::Reduce(&p, "k")))
            .map_err(unplaced)
            .unwrap_err();
        assert!(
            matches!(&e, BrookError::Unknown { name, .. } if name == "k"),
            "{name}: {e}"
        );
    }
}

/// An error without the Brook line the runtime placed it at.
fn unplaced(e: BrookError) -> BrookError {
    match e {
        BrookError::At { error, .. } => *error,
        e => e,
    }
}
