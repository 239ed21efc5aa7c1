//! What the shader-text tests share.

use brook_glsl::{generate_kernel, Access, OutputRegion, Profile, Target, Variant};

/// The fragment shader of kernel `k` of `src` in the variant whose parameters are reached as
/// `params`, writing a direct layout on desktop GL 3.3.
pub fn fragment(src: &str, params: impl FnOnce(&brook_ir::Function) -> Vec<Access>) -> String {
    let mut module = brook_frontend::compile(src, "k.br").unwrap();
    // As the runtime hands it to a backend: composite built-ins written as formulas.
    brook_ir::lower_composites(&mut module);
    let (id, f) = module.function("k").unwrap();
    let target = Target {
        profile: Profile::Gl33Core,
        max_draw_buffers: 8,
        loop_cap: None,
        math: brook_ir::MathMode::Accurate,
    };
    let variant = Variant {
        params: params(f),
        output: OutputRegion::Direct,
    };
    let program = generate_kernel(&module, id, &variant, &target, None).unwrap();
    program.passes[0].fragment.clone()
}
