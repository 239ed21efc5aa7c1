//! A kernel fused into the first pass of the reduction that consumes its output, as a GL
//! programmer writing the pair by hand would (`|x|` inside a sum's first fold, `A[i][j]·x[j]`
//! inside a row sum's): the kernel's output is never written, and the pass computes each
//! element it folds by calling `brook_map(index)`, the kernel's body at that element.
//!
//! The kernel's inputs are reached as in a kernel pass, but from the element index rather
//! than the fragment: every input stream is resized (or placed) from the kernel's output
//! shape, which is the reduction's input shape. Only what keeps the result equal to the
//! unfused kernel-then-reduce pair is fused ([`fusion_refused`]); the caller runs the pair
//! otherwise.

use brook_ir::{FunctionId, Module, ParamClass, Type};

use crate::error::GenError;
use crate::kernel::{KernelProgram, KernelShader};
use crate::loops::{needs_loop_check, refuse_uncheckable_loops};
use crate::names::glsl_name;
use crate::reduce::{reduce_program, Mapped, ReduceStep};
use crate::shader::call_text;
use crate::source::SourceText;
use crate::types::glsl_type;
use crate::variant::{Access, OutputRegion, Target, Variant};
use brook_core::budget::refuse_over_budget;
use brook_core::loops::iteration_bound;
use brook_ir::walk::can_discard;

/// Why kernel `kernel` (called as `variant`) cannot run inside a pass of reduction
/// `reduce_fn` that folds `k` elements per fragment, or `None` when it can. The reasons are
/// what fusing would change: an element that `discard`s keeps its old value, which a fused
/// pass does not have; a driver that cuts loops short reports it only from a kernel pass;
/// a struct constant is rebuilt in `main`; a reduce function's own arguments and struct
/// elements are left to the unfused passes, which handle them.
pub fn fusion_refused(
    module: &Module,
    kernel: FunctionId,
    variant: &Variant,
    reduce_fn: FunctionId,
    k: u8,
    target: &Target,
) -> Option<String> {
    let kfunc = module.func(kernel);
    let rfunc = module.func(reduce_fn);
    let outs = kfunc
        .params
        .iter()
        .filter(|p| matches!(p.class, ParamClass::Out | ParamClass::Vout { .. }))
        .count();
    let out_struct = kfunc
        .params
        .iter()
        .any(|p| p.class == ParamClass::Out && matches!(p.ty, Type::Struct(_)));
    // Checked in order, each only if the ones before passed: the last two walk the kernel
    // and its callees, and this runs on every `map_reduce` call.
    let reasons: [(&str, &dyn Fn() -> bool); 9] = [
        ("the kernel has more than one output", &|| outs != 1),
        (
            "the reduce function takes constant or gather arguments",
            &|| rfunc.params.len() != 2,
        ),
        ("the elements are structs", &|| out_struct),
        ("the kernel writes a domain of its output", &|| {
            !matches!(
                variant.output,
                OutputRegion::Direct | OutputRegion::Whole { .. }
            )
        }),
        ("an input is read at the fragment", &|| {
            variant.params.contains(&Access::AtFragment)
        }),
        ("the kernel takes a struct constant", &|| {
            kfunc
                .params
                .iter()
                .any(|p| p.class == ParamClass::Constant && matches!(p.ty, Type::Struct(_)))
        }),
        ("the kernel can `discard`", &|| can_discard(module, kernel)),
        (
            "the kernel's loops could pass the driver's iteration cap",
            &|| {
                needs_loop_check(module, kernel, target)
                    || refuse_uncheckable_loops(module, kernel, u32::from(k), target).is_err()
            },
        ),
        // A kernel pass discards the fragments that are no element before such loops
        // (`KernelShader::element_guard`); a reduction pass's fragments evaluate the kernel
        // for the elements of their blocks, and a GPU's helper fragments past its edge have
        // none: a loop that only the data ends could run on there forever.
        ("the kernel's loops only its data ends", &|| {
            iteration_bound(module, kernel).is_none()
        }),
    ];
    let why = reasons.into_iter().find(|(_, refused)| refused());
    why.map(|(why, _)| why.to_string())
}

/// The first pass of reduction `reduce_fn` (`step`) with kernel `kernel` (`kernel_variant`,
/// whose inputs are all resized or placed, never [`Access::AtFragment`]) computing the
/// elements it folds. The pass's parameters are the kernel's, then the reduce function's
/// numbered after them: its output member refers to parameter `kernel params + accumulator`.
pub fn generate_fused_reduce_pass(
    module: &Module,
    kernel: FunctionId,
    kernel_variant: &Variant,
    reduce_fn: FunctionId,
    step: &ReduceStep,
    target: &Target,
    source: Option<&SourceText>,
) -> Result<KernelProgram, GenError> {
    if let Some(why) = fusion_refused(module, kernel, kernel_variant, reduce_fn, step.k, target) {
        return Err(GenError::Unsupported(format!(
            "kernel `{}` cannot be fused into reduction `{}`: {why}",
            module.func(kernel).name,
            module.func(reduce_fn).name
        )));
    }
    refuse_over_budget(module, kernel)?;
    let kfunc = module.func(kernel);
    let out = kfunc
        .params
        .iter()
        .position(|p| p.class == ParamClass::Out)
        .expect("fusion_refused checked there is one output");
    let out_name = glsl_name(&kfunc.params[out].name);
    let mut shader = KernelShader::new(module, kfunc, kernel_variant, Some(out as u32))?;
    shader.parts.extent_uniform(out as u32, &out_name);
    let function = format!(
        "// Kernel `{}` at element brook_output_index of its output, which is never stored:\n// the reduction folds each value as it is computed.\n{} brook_map(ivec4 brook_output_index) {{\n{}    {}\n    return {out_name};\n}}\n",
        kfunc.name,
        glsl_type(module, &kfunc.params[out].ty),
        shader.fetches,
        call_text(kfunc),
    );
    let params = module.func(reduce_fn).params.len();
    let reduce_variant = Variant {
        params: vec![Access::Value; params],
        output: OutputRegion::Direct,
    };
    let mapped = Mapped {
        kernel,
        function: &function,
    };
    let mut program = reduce_program(
        shader.parts,
        module,
        reduce_fn,
        step,
        &reduce_variant,
        target,
        source,
        Some(mapped),
    )?;
    let shift = kfunc.params.len() as u32;
    for pass in &mut program.passes {
        for output in &mut pass.outputs {
            output.param += shift;
        }
    }
    Ok(program)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::{Placement, Profile, Resize};

    const TARGET: Target = Target {
        profile: Profile::Gl33Core,
        max_draw_buffers: 8,
        loop_cap: Some(65_535),
        math: brook_ir::MathMode::Accurate,
    };

    const STEP: ReduceStep = ReduceStep {
        component: 0,
        k: 8,
        blocked: false,
        partial: true,
        input: Placement::Direct,
        output_translated: false,
    };

    const GEMV: &str = "
        kernel void mul(float a<>, float x<>, out float t<>) { t = a * x; }
        reduce void sum(float t<>, reduce float r<>) { r += t; }";

    fn ids(module: &Module) -> (FunctionId, FunctionId) {
        let k = module
            .functions
            .iter()
            .position(|f| f.name != "sum")
            .unwrap();
        let r = module
            .functions
            .iter()
            .position(|f| f.name == "sum")
            .unwrap();
        (FunctionId(k as u32), FunctionId(r as u32))
    }

    fn gemv_variant() -> Variant {
        let same = Resize::between(&[4, 4], &[4, 4]);
        let row = Resize::between(&[4, 4], &[1, 4]);
        Variant {
            params: vec![
                Access::Resized(same, Placement::Direct),
                Access::Resized(row, Placement::Direct),
                Access::Value,
            ],
            output: OutputRegion::Direct,
        }
    }

    #[test]
    fn the_pass_computes_each_element_it_folds_and_never_samples_the_products() {
        let module = brook_frontend::compile(GEMV, "gemv.br").unwrap();
        let (mul, sum) = ids(&module);
        let p =
            generate_fused_reduce_pass(&module, mul, &gemv_variant(), sum, &STEP, &TARGET, None)
                .unwrap();
        let text = &p.passes[0].fragment;
        assert!(
            text.contains("with kernel `mul` fused into its reads"),
            "{text}"
        );
        assert!(
            text.contains("float brook_map(ivec4 brook_output_index)"),
            "{text}"
        );
        assert_eq!(text.matches("brook_map(brook_index)").count(), 8, "{text}");
        // x<1, n> is read at row 0 of the element's column; the products have no sampler.
        assert!(
            text.contains("brook_index_x = ivec4(brook_output_index.x, 0, "),
            "{text}"
        );
        assert!(
            text.contains("texelFetch(x_tex, (brook_index_x).xy, 0)"),
            "{text}"
        );
        let sampled: Vec<u32> = p.passes[0]
            .samplers
            .iter()
            .map(|s| s.source.param)
            .collect();
        assert_eq!(sampled, [0, 1]);
        // The accumulator `r` (parameter 1 of `sum`) is numbered after mul's three.
        assert_eq!(p.passes[0].outputs[0].param, 4);
    }

    #[test]
    fn what_would_change_the_result_is_refused() {
        let refused = |src: &str, variant: Variant| {
            let module = brook_frontend::compile(src, "t.br").unwrap();
            let (k, r) = ids(&module);
            fusion_refused(&module, k, &variant, r, 8, &TARGET)
        };
        let discarding = "kernel void mul(float a<>, float x<>, out float t<>) { if (a < 0.0) { discard; } t = a * x; }
            reduce void sum(float t<>, reduce float r<>) { r += t; }";
        assert_eq!(
            refused(discarding, gemv_variant()).unwrap(),
            "the kernel can `discard`"
        );
        let weighted = "kernel void mul(float a<>, float x<>, out float t<>) { t = a * x; }
            reduce void sum(float t<>, reduce float r<>, float w) { r += w * t; }";
        assert!(refused(weighted, gemv_variant())
            .unwrap()
            .contains("constant or gather"));
        let looping = "kernel void mul(float a<>, float x<>, out float t<>) { float s = 0.0; int i; for (i = 0; i < int(a); i++) { s += x; } t = s; }
            reduce void sum(float t<>, reduce float r<>) { r += t; }";
        assert!(refused(looping, gemv_variant())
            .unwrap()
            .contains("iteration cap"));
        let mut at_fragment = gemv_variant();
        at_fragment.params[0] = Access::AtFragment;
        assert!(refused(GEMV, at_fragment).is_some());
        assert_eq!(refused(GEMV, gemv_variant()), None);
    }
}
