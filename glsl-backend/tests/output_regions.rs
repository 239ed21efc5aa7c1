//! The shader text of output variants, without GL: a direct layout's output index is the
//! fragment's texel, an output domain drawn with the viewport only offsets it, one under address translation discards outside the domain,
//! and an input domain is offset by its corner in the whole stream.

use brook_glsl::{generate_kernel, Access, OutputRegion, Profile, Target, Variant};

fn fragment(params: Vec<Access>, output: OutputRegion) -> String {
    let module = brook_frontend::compile(
        "kernel void k(float a<>, float t[], out float2 r<>) { r.x = a + t[indexof(r).x]; }",
        "k.br",
    )
    .unwrap();
    let (id, _) = module.function("k").unwrap();
    let target = Target {
        profile: Profile::Gl33Core,
        max_draw_buffers: 8,
    };
    let program = generate_kernel(&module, id, &Variant { params, output }, &target, None).unwrap();
    program.passes[0].fragment.clone()
}

#[test]
fn output_regions_in_the_shader() {
    let inputs = vec![Access::AtFragment, Access::GatherDirect, Access::Value];
    let whole = fragment(inputs.clone(), OutputRegion::Whole);
    assert!(!whole.contains("brook_output_lo") && !whole.contains("discard"));
    assert!(whole.contains("brook_unlinearize(brook_fragment.y * brook_output_width"));
    // A direct layout's output index is the fragment's texel, without divisions.
    let direct = fragment(inputs.clone(), OutputRegion::WholeDirect);
    assert!(direct.contains("ivec4 brook_output_index = ivec4(brook_fragment, 0, 0);"));
    assert!(!direct.contains("brook_output_width") && !direct.contains("discard"));
    let viewport = fragment(inputs.clone(), OutputRegion::Viewport);
    assert!(viewport
        .contains("ivec4 brook_output_index = ivec4(brook_fragment, 0, 0) - brook_output_lo;"));
    assert!(!viewport.contains("brook_output_width") && !viewport.contains("discard"));
    let masked = fragment(inputs, OutputRegion::Masked);
    assert!(masked.contains("discard;"), "{masked}");
    assert!(masked.contains("brook_output_element - brook_output_lo;"));
    // Outputs start at zero, so the unwritten `.y` is deterministic.
    for text in [&whole, &direct, &viewport, &masked] {
        assert!(text.contains("vec2 r = vec2(0.0);"), "{text}");
    }
}

#[test]
fn input_domains_are_offset_into_the_whole_stream() {
    let text = fragment(
        vec![Access::Domain, Access::GatherDomain, Access::Value],
        OutputRegion::Whole,
    );
    assert!(
        text.contains("brook_texel(brook_index_a + a_lo, a_stream_extent, a_width)"),
        "{text}"
    );
    assert!(
        text.contains("brook_texel(index + t_lo, t_stream_extent, t_width)"),
        "{text}"
    );
    assert!(text.contains("brook_gather_index(v, t_extent)"), "{text}");
}
