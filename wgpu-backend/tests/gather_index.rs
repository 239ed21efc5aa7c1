//! The WGSL of Brook's gather index rule (what `brcc wgsl` prints): a float index is rounded
//! (`floor(v + 0.25)`) unless it is proven integral (`brook_ir::integral`), which the rounding
//! would leave unchanged; the clamp is the same either way. The values themselves are checked
//! against the CPU's interpreter in the root package's `index_rule` tests.

/// The WGSL `brcc wgsl` prints for `src`.
fn wgsl(src: &str) -> String {
    let mut module = brook_frontend::compile(src, "k.br").unwrap();
    // As the runtime hands it to a backend: composite built-ins written as formulas.
    brook_ir::lower_composites(&mut module);
    brook_wgpu::describe::describe(&module, "k.br")
}

#[test]
fn an_integral_index_is_clamped_without_rounding() {
    let text = wgsl(
        "kernel void k(float a[][], out float r<>) { r = a[indexof(r).xy + float2(1.0, 0.0)]; }",
    );
    assert!(!text.contains("floor("), "{text}");
    // The clamp stays, per component: the cap at 2^30 (printed rounded by naga) before the
    // conversion, the bound, and the select of element 0 for what is not positive.
    assert_eq!(text.matches("min(u32(min(").count(), 2, "{text}");
    assert_eq!(text.matches("> 0f)").count(), 2, "{text}");
}

#[test]
fn a_fractional_index_is_rounded_then_clamped() {
    let text = wgsl("kernel void k(float a[][], float2 p<>, out float r<>) { r = a[p * 0.5]; }");
    assert_eq!(text.matches("floor(").count(), 2, "{text}");
    assert_eq!(text.matches("+ 0.25f)").count(), 2, "{text}");
    assert_eq!(text.matches("min(u32(min(").count(), 2, "{text}");
    assert_eq!(text.matches("> 0f)").count(), 2, "{text}");
}
