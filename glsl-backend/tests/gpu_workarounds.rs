//! What the generated GLSL does for GPU drivers that llvmpipe never shows (found on NVIDIA's
//! GL, H100, driver 580.159; the conformance cases `while_loop`, `while_loop_padding` and
//! `comparison_selects_exactly` run them there): kernels whose loops only their data ends skip
//! the fragments that are no element, and accurate float comparisons keep their result in a
//! `precise` local; such kernels are not fused into a reduction, whose fragments would run
//! their loops for elements past the edge.

use brook_glsl::{
    fusion_refused, generate_kernel, Access, Axis, OutputRegion, Placement, Profile, Resize,
    Target, Variant,
};
use brook_ir::MathMode;

fn fragment(src: &str, math: MathMode) -> String {
    let module = brook_frontend::compile(src, "gpu.br").unwrap();
    let id = module.function("k").unwrap().0;
    let target = Target {
        profile: Profile::Gl33Core,
        max_draw_buffers: 8,
        loop_cap: None,
        math,
    };
    let variant = Variant {
        params: vec![Access::AtFragment, Access::Value],
        output: OutputRegion::Whole { rank: 1 },
    };
    let program = generate_kernel(&module, id, &variant, &target, None).unwrap();
    program.passes[0].fragment.clone()
}

const GUARD: &str = "brook_output_elements) discard;";

#[test]
fn kernels_whose_loops_the_data_ends_skip_fragments_that_are_no_element() {
    for math in [MathMode::Accurate, MathMode::Fast] {
        let text = fragment(
            "kernel void k(float a<>, out float b<>) { float x = a; while (x < 100.0) x *= 2.0; b = x; }",
            math,
        );
        let guard = text.find(GUARD).expect("a guard before the fetches");
        let fetch = text.find("texelFetch(a_tex").expect("a fetch");
        assert!(guard < fetch, "the guard comes first:\n{text}");
        assert!(text.contains("uniform int brook_output_width;"), "{text}");
        assert!(
            text.contains("uniform int brook_output_elements;"),
            "{text}"
        );
    }
    // A loop of constant trip count ends on any data: no guard, no uniforms.
    let text = fragment(
        "kernel void k(float a<>, out float b<>) { float x = a; float i; for (i = 0.0; i < 10.0; i += 1.0) x *= 2.0; b = x; }",
        MathMode::Accurate,
    );
    assert!(!text.contains(GUARD), "{text}");
    assert!(!text.contains("brook_output_elements"), "{text}");
}

#[test]
fn accurate_float_comparisons_keep_their_result_in_a_precise_local() {
    let src = "kernel void k(float a<>, out float b<>) { float x = a; b = x - x == 0.0 && x < 3.0 ? 1.0 : 0.0; }";
    let text = fragment(src, MathMode::Accurate);
    assert!(text.contains("brook_eq((x - x), "), "{text}");
    assert!(text.contains("brook_lt(x, "), "{text}");
    assert!(
        text.contains("bool brook_eq(brook_precise float a, brook_precise float b) { brook_precise bool r = a == b; return r; }"),
        "{text}"
    );
    assert!(
        text.contains("bvec4 brook_lt(brook_precise vec4 a, brook_precise vec4 b) { brook_precise bvec4 r = lessThan(a, b); return r; }"),
        "{text}"
    );
    // Fast math lets the driver fold: the plain operators.
    let text = fragment(src, MathMode::Fast);
    assert!(!text.contains("brook_eq"), "{text}");
    assert!(text.contains("((x - x) == 0.0)"), "{text}");
}

#[test]
fn kernels_whose_loops_the_data_ends_are_not_fused_into_a_reduction() {
    let src = "kernel void k(float a<>, out float b<>) { float x = a; while (x < 100.0) x *= 2.0; b = x; }
kernel void bounded(float a<>, out float b<>) { float x = a; float i; for (i = 0.0; i < 10.0; i += 1.0) x *= 2.0; b = x; }
reduce void sum(float a<>, reduce float r<>) { r += a; }";
    let module = brook_frontend::compile(src, "fused.br").unwrap();
    let id = |name| module.function(name).unwrap().0;
    let variant = Variant {
        params: vec![
            Access::Resized(Resize([Axis::Same; 4]), Placement::Direct),
            Access::Value,
        ],
        output: OutputRegion::Whole { rank: 1 },
    };
    // A GPU's target: no loop cap, so only the new reason can refuse.
    let target = Target {
        profile: Profile::Gl33Core,
        max_draw_buffers: 8,
        loop_cap: None,
        math: MathMode::Accurate,
    };
    let why = fusion_refused(&module, id("k"), &variant, id("sum"), 8, &target);
    assert_eq!(
        why.as_deref(),
        Some("the kernel's loops only its data ends")
    );
    let why = fusion_refused(&module, id("bounded"), &variant, id("sum"), 8, &target);
    assert_eq!(why, None);
}
