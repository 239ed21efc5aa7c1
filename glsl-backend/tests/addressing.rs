//! One addressing vocabulary: every kind of generated shader turns elements into texels
//! through the prelude's layout helpers (`brook_texel_at`, `brook_linear_at`), never with its
//! own arithmetic on a texture width, so a change of layout is one change in the prelude.

use brook_glsl::{
    compact_pass, generate_gather_fetch, generate_kernel, generate_reduce_pass,
    generate_scatter_reduce, generate_scatter_write, layout_helpers, mask_pass, scan_down_pass,
    scan_up_pass, Access, Axis, OutputRegion, Placement, Profile, ReduceStep, Resize, Target,
    Variant, Wrap,
};
use brook_ir::ParamClass;

const TARGET: Target = Target {
    profile: Profile::Gl33Core,
    max_draw_buffers: 8,
    loop_cap: None,
    math: brook_ir::MathMode::Accurate,
};

const SRC: &str =
    "kernel void k(float a<>, float t[], float b<>, out float r<>) { r = a + b + t[indexof(r).x]; }
reduce void f(float a<>, reduce float r<>, float g[]) { r += a * g[0]; }
reduce void m(float a<>, reduce float r<>) { r = max(a, r); }";

/// Every shader text the generator makes, with address translation wherever it applies.
fn every_kind() -> Vec<(String, String)> {
    let module = brook_frontend::compile(SRC, "all.br").unwrap();
    let id = |name| module.function(name).unwrap().0;
    let mut texts = Vec::new();
    let kernel_variant = Variant {
        params: vec![
            Access::Resized(
                Resize([Axis::Scaled; 4]),
                Placement::Translated(Wrap::Uniform),
            ),
            Access::GatherTranslated {
                rank: 3,
                wrap: Wrap::Uniform,
            },
            Access::Domain(
                Resize([Axis::Same; 4]),
                Placement::Translated(Wrap::Uniform),
            ),
            Access::Value,
        ],
        output: OutputRegion::Masked { rank: 3 },
    };
    for output in [
        OutputRegion::Masked { rank: 3 },
        OutputRegion::Whole { rank: 1 },
        OutputRegion::Whole { rank: 2 },
    ] {
        let variant = Variant {
            output,
            ..kernel_variant.clone()
        };
        let k = generate_kernel(&module, id("k"), &variant, &TARGET, None).unwrap();
        texts.push((format!("kernel {output:?}"), k.passes[0].fragment.clone()));
    }
    let f = module.func(id("f"));
    let reduce_variant = Variant {
        params: f
            .params
            .iter()
            .map(|p| match p.class {
                ParamClass::Gather { rank } => Access::GatherTranslated {
                    rank,
                    wrap: Wrap::Uniform,
                },
                _ => Access::Value,
            })
            .collect(),
        output: OutputRegion::Direct,
    };
    let step = ReduceStep {
        component: 1,
        k: 8,
        blocked: true,
        partial: true,
        input: Placement::Translated(Wrap::Uniform),
        output_translated: true,
    };
    let r = generate_reduce_pass(&module, id("f"), &step, &reduce_variant, &TARGET, None).unwrap();
    texts.push(("reduction".into(), r.passes[0].fragment.clone()));
    for (name, p) in [
        ("scatter", generate_scatter_write(&TARGET, &[4], false)),
        (
            "ordered scatter",
            generate_scatter_write(&TARGET, &[4; 9], true),
        ),
        ("gather fetch", generate_gather_fetch(&TARGET, &[2])),
        (
            "scatter combiner",
            generate_scatter_reduce(&module, id("m"), &TARGET, None).unwrap(),
        ),
    ] {
        texts.push((format!("{name} vertex"), p.vertex.clone()));
        texts.push((format!("{name} fragment"), p.passes[0].fragment.clone()));
    }
    for (name, p) in [
        ("up-sweep", scan_up_pass(&TARGET)),
        ("down-sweep", scan_down_pass(&TARGET)),
        ("compaction", compact_pass(&TARGET, 3, 4)),
        ("mask", mask_pass(&TARGET)),
    ] {
        texts.push((name.into(), p.fragment));
    }
    texts
}

/// The identifiers right after a `%`, `/` or `*` outside comments.
fn operands(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        for (at, c) in code.char_indices() {
            if !matches!(c, '%' | '/' | '*') {
                continue;
            }
            let rest = code[at + 1..].trim_start_matches([' ', '(']);
            let word: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
                .collect();
            found.push(word);
        }
    }
    found
}

#[test]
fn no_shader_divides_by_a_texture_width_itself() {
    assert!(
        operands(layout_helpers()).iter().any(|w| w == "width"),
        "the layout helpers do the arithmetic"
    );
    let texts = every_kind();
    for helper in ["brook_texel_at(", "brook_linear_at("] {
        let users = texts.iter().filter(|(_, t)| t.matches(helper).count() > 1);
        assert!(users.count() >= 5, "{helper} is the shared vocabulary");
    }
    for (name, text) in texts {
        let own = text.replace(layout_helpers(), "");
        let by_width: Vec<String> = operands(&own)
            .into_iter()
            .filter(|w| w.contains("width"))
            .collect();
        assert!(
            by_width.is_empty(),
            "{name} computes with {by_width:?}:\n{text}"
        );
    }
}
