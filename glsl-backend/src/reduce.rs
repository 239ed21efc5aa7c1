//! One pass of a reduction as a fragment shader (001 §4.3, 000 §5.4).
//!
//! A reduction runs as a sequence of passes, each drawn over a smaller stream: every output
//! element of a pass folds `k` (1 to 8) consecutive input elements along one dimension. The
//! fold is a left fold in index order, `r = e0; f(e1, r); f(e2, r); …`, calling the lowered
//! Brook reduce function with its `inout` accumulator exactly as the CPU back end does
//! (`r = op(a, r)`), so an associative but non-commutative operator gives the same result.
//!
//! The reduced dimension is cut into blocks, one per element of the reduction's target
//! (a single block when reducing to a value). A pass turns each block of `b` elements into
//! `⌈b / k⌉` partial results; when `k` does not divide `b` the last partial of a block folds
//! fewer elements, and the next pass carries it on. Sizes are uniforms; the shader is
//! specialised only on what changes its text ([`ReduceStep`]).

use brook_core::budget::refuse_over_budget;
use brook_ir::{Function, FunctionId, FunctionKind, Module, ParamClass};

use crate::builder::{ShaderBuilder, Stage};
use crate::error::GenError;
use crate::kernel::KernelProgram;
use crate::loops::refuse_uncheckable_loops;
use crate::members::member_slots;
use crate::names::glsl_name;
use crate::pass::UniformValue;
use crate::prelude::Helper;
use crate::shader::{call_text, lowered_functions_of, output_chunks};
use crate::source::SourceText;
use crate::types::glsl_type;
use crate::variant::{Access, Placement, Target, Variant};

/// What a reduction pass's shader text depends on; the extents are uniforms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReduceStep {
    /// The reduced dimension as a component of an index vector: 0 is `.x`, the last dimension
    /// (columns), 1 is `.y` (rows), then `.z`, `.w`.
    pub component: u8,
    /// Input elements one output element folds, 1 to 8 (1 copies).
    pub k: u8,
    /// Whether an output element must find its block by division: the target has several
    /// blocks along this dimension and this pass leaves several partials per block.
    pub blocked: bool,
    /// Whether some output elements fold fewer than `k` elements (`k` does not divide the block).
    pub partial: bool,
    /// How the input's elements lie in its texture.
    pub input: Placement,
    /// Whether the output's layout wraps elements (address translation).
    pub output_translated: bool,
}

const COMPONENTS: [&str; 4] = ["x", "y", "z", "w"];

/// The passes (one, or more when the element has more members than one pass can write)
/// of one reduction step of `reduce_fn`. `variant` has one access per parameter; only those of
/// gathers matter (direct or translated).
pub fn generate_reduce_pass(
    module: &Module,
    reduce_fn: FunctionId,
    step: &ReduceStep,
    variant: &Variant,
    target: &Target,
    source: Option<&SourceText>,
) -> Result<KernelProgram, GenError> {
    let parts = ShaderBuilder::new(Stage::Fragment, Some(module));
    reduce_program(
        parts, module, reduce_fn, step, variant, target, source, None,
    )
}

/// A kernel computed inside a reduction pass instead of read from a stream (`fused.rs`).
pub(crate) struct Mapped<'a> {
    pub kernel: FunctionId,
    /// GLSL defining `brook_map(ivec4)`: the kernel's output at an element of the input.
    pub function: &'a str,
}

/// The passes of one reduction step on `parts`, which may already declare a fused kernel's
/// inputs; with `mapped`, every element folded is `brook_map(index)` rather than a fetch.
#[allow(clippy::too_many_arguments)]
pub(crate) fn reduce_program(
    mut parts: ShaderBuilder,
    module: &Module,
    reduce_fn: FunctionId,
    step: &ReduceStep,
    variant: &Variant,
    target: &Target,
    source: Option<&SourceText>,
    mapped: Option<Mapped>,
) -> Result<KernelProgram, GenError> {
    let func = module.func(reduce_fn);
    if func.kind != FunctionKind::Reduce {
        return Err(GenError::NotAReduction(func.name.clone()));
    }
    if variant.params.len() != func.params.len() {
        return Err(GenError::VariantMismatch {
            kernel: func.name.clone(),
            params: func.params.len(),
            given: variant.params.len(),
        });
    }
    if !(1..=8).contains(&step.k) || step.component > 3 {
        return Err(GenError::Unsupported(format!(
            "a reduction pass folds 1 to 8 elements along component .x to .w, not {} along {}",
            step.k, step.component
        )));
    }
    let (input, accumulator) = reduction_params(func)?;
    refuse_over_budget(module, reduce_fn)?;
    refuse_uncheckable_loops(module, reduce_fn, u32::from(step.k), target)?;
    let roots: Vec<FunctionId> = mapped.iter().map(|m| m.kernel).chain([reduce_fn]).collect();
    let mut functions = lowered_functions_of(
        module,
        &roots,
        &mut parts.prelude,
        source,
        (false, target.math),
    )?;
    if let Some(m) = &mapped {
        functions.push_str(m.function);
    }
    for (i, p) in func.params.iter().enumerate() {
        let name = glsl_name(&p.name);
        match (p.class, variant.params[i]) {
            (ParamClass::Constant, _) => parts.constant(module, i as u32, &name, &p.ty)?,
            (
                ParamClass::Gather { .. },
                access @ (Access::GatherDirect { .. } | Access::GatherTranslated { .. }),
            ) => parts.gather_function(module, i as u32, &name, &p.ty, access)?,
            (ParamClass::Stream | ParamClass::Reduce, _) => {}
            (class, access) => {
                return Err(GenError::Unsupported(format!(
                    "reduction `{}`: parameter `{}` ({class:?}) cannot be accessed as {access:?}",
                    func.name, p.name
                )))
            }
        }
    }
    let reads = mapped.is_some().then_some("brook_map(brook_index)");
    let body = fold_body(&mut parts, module, func, step, input, accumulator, reads)?;
    let outputs = member_slots(module, func, ParamClass::Reduce)?;
    let chunks = output_chunks(&outputs, target);
    let from = source
        .map(|s| format!(" ({})", s.name_in_comment()))
        .unwrap_or_default();
    let fused = mapped
        .as_ref()
        .map(|m| {
            format!(
                " with kernel `{}` fused into its reads",
                module.func(m.kernel).name
            )
        })
        .unwrap_or_default();
    let passes = chunks
        .iter()
        .enumerate()
        .map(|(i, written)| {
            let title = format!(
                "Brook reduction `{}`{fused}{from}: each element folds {} input element(s) along .{}, output {} of {}.",
                func.name,
                step.k,
                COMPONENTS[step.component as usize],
                i + 1,
                chunks.len()
            );
            parts.pass(module, target, &title, func, &functions, &body, written, false)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(KernelProgram {
        kernel: func.name.clone(),
        passes,
    })
}

/// The input stream and accumulator parameters of a reduce function (brook-core's rule).
fn reduction_params(func: &Function) -> Result<(usize, usize), GenError> {
    brook_core::call::reduce_roles(func).map_err(|e| GenError::Unsupported(e.to_string()))
}

/// The statements of `main`: find this fragment's run of input elements, fold it.
/// `reads`: the GLSL value of element `brook_index` of the input when it is computed rather
/// than fetched (a fused kernel).
fn fold_body(
    parts: &mut ShaderBuilder,
    module: &Module,
    func: &Function,
    step: &ReduceStep,
    input: usize,
    accumulator: usize,
    reads: Option<&str>,
) -> Result<String, GenError> {
    let c = COMPONENTS[step.component as usize];
    let k = step.k;
    let a = glsl_name(&func.params[input].name);
    let r = glsl_name(&func.params[accumulator].name);
    let ty = glsl_type(module, &func.params[input].ty);
    let mut body = String::new();
    let input_translated = reads.is_none() && matches!(step.input, Placement::Translated(_));
    if input_translated || step.output_translated {
        parts.prelude.require(Helper::Addressing);
    }
    if step.output_translated {
        parts.uniform(
            "ivec4",
            "brook_output_extent",
            UniformValue::OutputExtent,
            "shape of this pass's output",
        );
        parts.uniform(
            "int",
            "brook_output_width",
            UniformValue::OutputWidth,
            "texture width of this pass's output",
        );
        body.push_str("    // The output element this fragment holds (its layout wraps).\n");
        body.push_str("    ivec4 brook_index = brook_unlinearize(brook_linear_at(brook_fragment, brook_output_width), brook_output_extent);\n");
    } else {
        body.push_str("    // The output element this fragment holds: .x column, .y row.\n");
        body.push_str("    ivec4 brook_index = ivec4(brook_fragment, 0, 0);\n");
    }
    let texel = if input_translated {
        parts.extent_uniform(input as u32, &a);
        parts.texel_of(input as u32, &a, "brook_index", false, step.input)
    } else {
        "brook_index.xy".to_string()
    };
    if step.blocked || step.partial {
        parts.uniform(
            "int",
            "brook_block",
            UniformValue::ReduceBlock,
            "input elements per block of the target along the reduced dimension",
        );
    }
    body.push_str(&format!(
        "    // It folds elements brook_first, brook_first + 1, ... (up to {k}) of its block along .{c}, in index order.\n"
    ));
    if step.blocked {
        parts.uniform(
            "int",
            "brook_groups",
            UniformValue::ReduceGroups,
            "partial results per block after this pass",
        );
        body.push_str(&format!(
            "    int brook_group = brook_index.{c} % brook_groups;\n    int brook_first = (brook_index.{c} / brook_groups) * brook_block + brook_group * {k};\n"
        ));
        if step.partial {
            body.push_str(&format!(
                "    int brook_count = min({k}, brook_block - brook_group * {k});\n"
            ));
        }
    } else {
        body.push_str(&format!("    int brook_first = brook_index.{c} * {k};\n"));
        if step.partial {
            body.push_str(&format!(
                "    int brook_count = min({k}, brook_block - brook_first);\n"
            ));
        }
    }
    body.push_str(&format!("    brook_index.{c} = brook_first;\n"));
    let element = |parts: &mut ShaderBuilder| match reads {
        Some(value) => Ok(value.to_string()),
        None => parts.fetch_element(module, input as u32, &func.params[input].ty, &a, &texel),
    };
    let first = element(parts)?;
    body.push_str(&format!("    {ty} {r} = {first};\n"));
    if k > 1 {
        body.push_str(&format!("    {ty} {a};\n"));
    }
    let call = call_text(func);
    for t in 1..k {
        let value = element(parts)?;
        let combine = format!("brook_index.{c} = brook_first + {t};\n{a} = {value};\n{call}");
        if step.partial {
            body.push_str(&format!("    if ({t} < brook_count) {{\n"));
            for line in combine.lines() {
                body.push_str(&format!("        {line}\n"));
            }
            body.push_str("    }\n");
        } else {
            for line in combine.lines() {
                body.push_str(&format!("    {line}\n"));
            }
        }
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::OutputRegion;
    use crate::variant::Profile;

    const TARGET: Target = Target {
        profile: Profile::Gl33Core,
        max_draw_buffers: 8,
        loop_cap: None,
        math: brook_ir::MathMode::Accurate,
    };

    fn pass(src: &str, step: ReduceStep, target: &Target) -> KernelProgram {
        let module = brook_frontend::compile(src, "t.br").unwrap();
        let (id, f) = module.function("f").unwrap();
        let variant = Variant {
            params: f
                .params
                .iter()
                .map(|p| match p.class {
                    ParamClass::Gather { rank } => Access::GatherDirect { rank },
                    _ => Access::Value,
                })
                .collect(),
            output: OutputRegion::Direct,
        };
        generate_reduce_pass(&module, id, &step, &variant, target, None).unwrap()
    }

    const STEP: ReduceStep = ReduceStep {
        component: 0,
        k: 3,
        blocked: false,
        partial: true,
        input: Placement::Direct,
        output_translated: false,
    };

    #[test]
    fn folds_in_index_order_with_the_accumulator_last() {
        let p = pass(
            "reduce void f(float a<>, reduce float r<>, float w) { r += w * a; }",
            STEP,
            &TARGET,
        );
        let text = &p.passes[0].fragment;
        let first = text.find("float r = texelFetch(a_tex").unwrap();
        let second = text.find("brook_index.x = brook_first + 1;").unwrap();
        let third = text.find("brook_index.x = brook_first + 2;").unwrap();
        assert!(first < second && second < third, "{text}");
        assert_eq!(text.matches("f(a, r, w);").count(), 2, "{text}");
        assert!(text.contains("if (2 < brook_count)"), "{text}");
        // One sampler however often the input is fetched.
        assert_eq!(p.passes[0].samplers.len(), 1);
        let uniforms: Vec<UniformValue> = p.passes[0].uniforms.iter().map(|u| u.value).collect();
        assert_eq!(
            uniforms,
            [UniformValue::Constant(2), UniformValue::ReduceBlock]
        );
    }

    #[test]
    fn full_blocks_need_no_counts_and_struct_members_split_over_passes() {
        let step = ReduceStep {
            partial: false,
            k: 2,
            component: 1,
            ..STEP
        };
        let src = "typedef struct { float v; float2 at; } Pick;\n\
                   reduce void f(Pick a<>, reduce Pick r<>) { if (a.v < r.v) { r = a; } }";
        let one = Target {
            max_draw_buffers: 1,
            ..TARGET
        };
        let p = pass(src, step, &one);
        assert_eq!(p.passes.len(), 2);
        let text = &p.passes[0].fragment;
        assert!(!text.contains("brook_count"), "{text}");
        assert!(text.contains("brook_index.y = brook_first + 1;"), "{text}");
        assert_eq!(p.passes[0].samplers.len(), 2);
        assert_eq!(p.passes[1].outputs[0].member, 1);
    }

    #[test]
    fn kernels_are_not_reductions() {
        let module =
            brook_frontend::compile("kernel void f(float a<>, out float b<>) { b = a; }", "t.br")
                .unwrap();
        let variant = Variant {
            params: vec![Access::AtFragment, Access::Value],
            output: OutputRegion::Direct,
        };
        let err = generate_reduce_pass(&module, FunctionId(0), &STEP, &variant, &TARGET, None)
            .unwrap_err();
        assert_eq!(err, GenError::NotAReduction("f".into()));
    }
}
