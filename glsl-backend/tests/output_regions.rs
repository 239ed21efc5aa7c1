//! The shader text of output variants, without GL: a direct layout's fragment is its element,
//! an output domain drawn with the viewport only offsets it, one under address translation
//! discards outside the domain, and an input domain is offset by its corner in the whole stream.

use brook_glsl::{
    generate_kernel, Access, Axis, OutputRegion, Placement, Profile, Resize, Target, Variant, Wrap,
};

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
        loop_cap: None,
        math: brook_ir::MathMode::Accurate,
    };
    let program = generate_kernel(&module, id, &Variant { params, output }, &target, None).unwrap();
    program.passes[0].fragment.clone()
}

#[test]
fn output_regions_in_the_shader() {
    let inputs = vec![
        Access::AtFragment,
        Access::GatherDirect { rank: 1 },
        Access::Value,
    ];
    let whole = fragment(inputs.clone(), OutputRegion::Whole { rank: 3 });
    assert!(!whole.contains("brook_output_lo") && !whole.contains("discard"));
    assert!(whole.contains("ivec4 brook_output_index = brook_unlinearize("));
    // A direct layout's texel is its element: no division per fragment.
    let direct = fragment(inputs.clone(), OutputRegion::Direct);
    assert!(direct.contains("ivec4 brook_output_index = ivec4(brook_fragment, 0, 0);"));
    assert!(!direct.contains("= brook_unlinearize(") && !direct.contains("brook_output_width"));
    let viewport = fragment(inputs.clone(), OutputRegion::Viewport);
    assert!(viewport
        .contains("ivec4 brook_output_index = ivec4(brook_fragment, 0, 0) - brook_output_lo;"));
    assert!(!viewport.contains("discard") && !viewport.contains("= brook_unlinearize("));
    let masked = fragment(inputs.clone(), OutputRegion::Masked { rank: 3 });
    assert!(masked.contains("discard;"), "{masked}");
    assert!(masked.contains("ivec4 brook_output_index = brook_output_element - brook_output_lo;"));
    // A wrapped 1D output's element is its linear position; a 2D one's takes one division.
    let linear = "brook_linear_at(brook_fragment, brook_output_width)";
    let whole_1d = fragment(inputs.clone(), OutputRegion::Whole { rank: 1 });
    assert!(
        whole_1d.contains(&format!(
            "ivec4 brook_output_index = ivec4({linear}, 0, 0, 0);"
        )),
        "{whole_1d}"
    );
    let whole_2d = fragment(inputs.clone(), OutputRegion::Whole { rank: 2 });
    assert!(whole_2d.contains(&format!("ivec4 brook_output_index = ivec4(({linear}) % brook_output_extent.x, ({linear}) / brook_output_extent.x, 0, 0);")), "{whole_2d}");
    let masked_1d = fragment(inputs, OutputRegion::Masked { rank: 1 });
    assert!(masked_1d.contains(&format!(
        "ivec4 brook_output_element = ivec4({linear}, 0, 0, 0);"
    )));
    for text in [&whole_1d, &whole_2d, &masked_1d] {
        assert!(!text.contains("brook_unlinearize"), "{text}");
    }
    // Outputs start at zero, so the unwritten `.y` is deterministic.
    for text in [&whole, &direct, &viewport, &masked] {
        assert!(text.contains("vec2 r = vec2(0.0);"), "{text}");
    }
}

#[test]
fn input_domains_are_offset_into_the_whole_stream() {
    let text = fragment(
        vec![
            Access::Domain(
                Resize([Axis::Same; 4]),
                Placement::Translated(Wrap::Uniform),
            ),
            Access::GatherDomain {
                rank: 1,
                placement: Placement::Translated(Wrap::Uniform),
            },
            Access::Value,
        ],
        OutputRegion::Whole { rank: 3 },
    );
    assert!(
        text.contains("brook_texel(brook_index_a + a_lo, a_stream_extent, a_width)"),
        "{text}"
    );
    assert!(
        text.contains("brook_texel(index + t_lo, t_stream_extent, t_width)"),
        "{text}"
    );
    assert!(text.contains("clamp(i.x, 0, t_last.x)"), "{text}");
    // A domain of a direct layout is one rectangle: offset, and no translation.
    let direct = fragment(
        vec![
            Access::Domain(Resize([Axis::Same; 4]), Placement::Direct),
            Access::GatherDomain {
                rank: 1,
                placement: Placement::Direct,
            },
            Access::Value,
        ],
        OutputRegion::Direct,
    );
    assert!(
        direct.contains("texelFetch(a_tex, (brook_index_a + a_lo).xy, 0)"),
        "{direct}"
    );
    assert!(
        direct.contains("texelFetch(t_tex, (index + t_lo).xy, 0)"),
        "{direct}"
    );
    assert!(!direct.contains("brook_texel("), "{direct}");
}
