//! What a kernel costs to turn into GLSL and to compile: generation is linear in the kernel's
//! size (it looked the source line of every statement up from the start of the file, so a
//! 40,000-statement kernel took 34 s), and loops nested deeper than a driver can compile in
//! reasonable time are refused with the line of the loop (Mesa's compile time doubles with each
//! level: thirty levels kept it busy for hours).

use std::time::Instant;

use brook_glsl::{generate_kernel, Access, OutputRegion, Profile, SourceText, Target, Variant};

const TARGET: Target = Target {
    profile: Profile::Gl33Core,
    max_draw_buffers: 8,
    loop_cap: None,
    math: brook_ir::MathMode::Accurate,
};

/// The first pass's GLSL of kernel `k` of `src`, and the seconds its generation took (front
/// end excluded).
fn generate_timed(src: &str) -> (Result<String, brook_glsl::GenError>, f64) {
    let module = brook_frontend::compile(src, "k.br").expect("a valid kernel");
    let (id, _) = module.function("k").expect("the kernel");
    let variant = Variant {
        params: vec![Access::AtFragment, Access::Value],
        output: OutputRegion::Direct,
    };
    let source = SourceText::new("k.br", src);
    let start = Instant::now();
    let program = generate_kernel(&module, id, &variant, &TARGET, Some(&source));
    let elapsed = start.elapsed().as_secs_f64();
    (program.map(|p| p.passes[0].fragment.clone()), elapsed)
}

fn generate(src: &str) -> Result<String, brook_glsl::GenError> {
    generate_timed(src).0
}

fn statements(n: usize) -> String {
    let body: String = (0..n)
        .map(|i| format!("    float v{i} = a + {i}.0;\n"))
        .collect();
    format!(
        "kernel void k(float a<>, out float r<>) {{\n{body}    r = v{};\n}}",
        n - 1
    )
}

/// Seconds to generate the GLSL of `n` statements.
fn seconds(n: usize) -> f64 {
    let (glsl, elapsed) = generate_timed(&statements(n));
    let quote = format!("// k.br:{}: float v{} =", n + 1, n - 1);
    assert!(glsl.unwrap().contains(&quote));
    elapsed
}

#[test]
fn generation_time_grows_linearly_with_the_kernel() {
    // Eight times the statements: about eight times the time when linear, sixty-four when the
    // generator rescans the source per statement. The ratio, not the time, is asserted, with
    // the threshold (24×) far from both, and each size takes the fastest of three runs, so a
    // slow or loaded machine does not matter (a 2× threshold on single runs was flaky).
    let fastest = |n| (0..3).map(|_| seconds(n)).fold(f64::INFINITY, f64::min);
    let (small, large) = (fastest(2_500), fastest(20_000));
    assert!(
        large < 24.0 * small + 0.05,
        "2,500 statements: {small:.3} s, 20,000: {large:.3} s"
    );
}

fn nested(depth: usize) -> String {
    let open: String = (0..depth)
        .map(|d| format!("for (int i{d} = 0; i{d} < 1; i{d}++) {{\n"))
        .collect();
    format!(
        "kernel void k(float a<>, out float r<>) {{\nfloat x = 0.0;\n{open}x += a;\n{}\nr = x;\n}}",
        "}".repeat(depth)
    )
}

#[test]
fn loops_nested_past_the_limit_are_refused_at_the_loop_that_goes_too_deep() {
    assert!(generate(&nested(brook_glsl::MAX_LOOP_NESTING)).is_ok());
    let err = generate(&nested(30)).unwrap_err();
    let brook_glsl::GenError::At { message, span } = err else {
        panic!("no location: {err}");
    };
    assert!(message.contains("more than 12 deep"), "{message}");
    let src = nested(30);
    let source = SourceText::new("k.br", src.as_str());
    assert_eq!(source.line_of(span.start), 3 + brook_glsl::MAX_LOOP_NESTING);
    // Loops in a called function nest inside the caller's.
    let helper = format!(
        "float h(float a) {{ float x = 0.0; {} x += a; {} return x; }}\n\
         kernel void k(float a<>, out float r<>) {{ r = 0.0; {} r = h(a); {} }}",
        (0..7)
            .map(|d| format!("for (int j{d} = 0; j{d} < 1; j{d}++) {{"))
            .collect::<String>(),
        "}".repeat(7),
        (0..7)
            .map(|d| format!("for (int i{d} = 0; i{d} < 1; i{d}++) {{"))
            .collect::<String>(),
        "}".repeat(7),
    );
    assert!(generate(&helper).is_err());
}
