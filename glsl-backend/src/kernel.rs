//! A kernel call as complete fragment shaders: one per pass.
//!
//! The shader of a pass has four parts: declarations (uniforms for constants, one `sampler2D`
//! per stream member, the addressing uniforms, one colour output per output member), the
//! helpers the body needs, the Brook functions lowered by `lower`, and a `main` that fetches
//! this fragment's inputs, calls the kernel and stores the outputs this pass writes.
//!
//! A kernel with more output members than the device can write at once is split (001 §4.2):
//! every pass runs the whole body and stores a different subset; the driver's dead-code
//! elimination drops the work that feeds no stored output.

use brook_core::budget::refuse_over_budget;
use brook_core::loops::iteration_bound;
use brook_ir::{Function, FunctionId, FunctionKind, Module, ParamClass, Type};

use crate::builder::{ShaderBuilder, Stage};
use crate::error::GenError;
use crate::loops::needs_loop_check;
use crate::lower::index_global;
use crate::members::member_slots;
use crate::names::glsl_name;
use crate::pass::{MemberRef, PassProgram, UniformValue};
use crate::prelude::{Helper, Prelude};
use crate::resize::resized_index;
use crate::shader::{call_text, lowered_functions, output_chunks};
use crate::source::SourceText;
use crate::types::{glsl_type, zero_value};
use crate::variant::{Access, OutputRegion, Resize, Target, Variant};
use crate::vout::{candidate_name, count_name, vout_slots};
use crate::walk::uses_indexof;

/// Every pass of one kernel variant.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelProgram {
    /// The kernel's name.
    pub kernel: String,
    /// One pass per group of output members that fit the draw buffers, in draw order.
    pub passes: Vec<PassProgram>,
}

/// Generates every pass of `kernel` for one variant.
pub fn generate_kernel(
    module: &Module,
    kernel: FunctionId,
    variant: &Variant,
    target: &Target,
    source: Option<&SourceText>,
) -> Result<KernelProgram, GenError> {
    let func = module.func(kernel);
    if func.kind != FunctionKind::Kernel {
        return Err(GenError::NotAKernel(func.name.clone()));
    }
    if func.ret != Type::Void {
        return Err(GenError::Unsupported(format!(
            "kernel `{}` returns a value: only other kernels can call it",
            func.name
        )));
    }
    if variant.params.len() != func.params.len() {
        return Err(GenError::VariantMismatch {
            kernel: func.name.clone(),
            params: func.params.len(),
            given: variant.params.len(),
        });
    }
    refuse_over_budget(module, kernel)?;
    let check_loops = needs_loop_check(module, kernel, target);
    let mut shader = KernelShader::new(module, func, variant, None)?;
    let functions = lowered_functions(
        module,
        kernel,
        &mut shader.parts.prelude,
        source,
        (check_loops, target.math),
    )?;
    let mut outputs = member_slots(module, func, ParamClass::Out)?;
    outputs.extend(vout_slots(module, func)?);
    if outputs.is_empty() {
        return Err(GenError::Unsupported(format!(
            "kernel `{}` has no output stream",
            func.name
        )));
    }
    let chunks = with_loop_status(output_chunks(&outputs, target), check_loops, target);
    let from = source
        .map(|s| format!(" ({})", s.name_in_comment()))
        .unwrap_or_default();
    // A loop whose trip count no constant bounds (`element_guard`); vout kernels' fragments
    // are their input's elements, which they address themselves.
    let guard = if iteration_bound(module, kernel).is_none() && vout_slots(module, func)?.is_empty()
    {
        shader.element_guard()
    } else {
        String::new()
    };
    let body = format!("{guard}{}    {}\n", shader.fetches, call_text(func));
    let passes = chunks
        .iter()
        .enumerate()
        .map(|(i, written)| {
            let title = format!(
                "Brook kernel `{}`{from}, pass {} of {}.",
                func.name,
                i + 1,
                chunks.len()
            );
            let status = check_loops && i == 0;
            shader.parts.pass(
                module, target, &title, func, &functions, &body, written, status,
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(KernelProgram {
        kernel: func.name.clone(),
        passes,
    })
}

/// The output chunks of a kernel whose first pass also writes the loop status: that pass gets
/// one output fewer (a pass of the status alone where one output is all a pass may write).
/// Every pass runs the whole body, so the first sees any loop the driver cuts short.
fn with_loop_status(
    chunks: Vec<Vec<(MemberRef, u8)>>,
    check_loops: bool,
    target: &Target,
) -> Vec<Vec<(MemberRef, u8)>> {
    if !check_loops {
        return chunks;
    }
    let all: Vec<(MemberRef, u8)> = chunks.into_iter().flatten().collect();
    let per_pass = target.max_draw_buffers.max(1) as usize;
    let first = (per_pass - 1).min(all.len());
    let mut out = vec![all[..first].to_vec()];
    out.extend(all[first..].chunks(per_pass).map(<[_]>::to_vec));
    out
}

/// The parts of a kernel's shader shared by all its passes.
pub(crate) struct KernelShader<'a> {
    module: &'a Module,
    pub parts: ShaderBuilder<'a>,
    /// Statements that compute the inputs of the element `brook_output_index`: the start of
    /// `main`, or the body of a fused reduction's `brook_map` (`fused.rs`).
    pub fetches: String,
    /// The parameter whose shape resized inputs scale from in a fused reduction's map; `None`:
    /// the outputs' shape.
    scale_from: Option<u32>,
}

impl<'a> KernelShader<'a> {
    /// The fetches of a kernel pass (`mapped_output` `None`), or with `mapped_output` the
    /// kernel's output parameter (never stored), those of a function of the element
    /// `brook_output_index` that a reduction pass calls per element it folds (`fused.rs`):
    /// there no input is at the fragment, so [`Access::AtFragment`] and vouts are refused.
    pub(crate) fn new(
        module: &'a Module,
        func: &'a Function,
        variant: &'a Variant,
        mapped_output: Option<u32>,
    ) -> Result<Self, GenError> {
        let mapped = mapped_output.is_some();
        let mut s = KernelShader {
            module,
            parts: ShaderBuilder::new(Stage::Fragment, Some(module)),
            fetches: String::new(),
            scale_from: mapped_output,
        };
        // The element of the outputs this fragment computes: for `indexof`, for resized
        // inputs and iterators, and to skip the texels outside a masked domain.
        let needs_output_index = mapped
            || uses_indexof(&func.body)
            || matches!(variant.output, OutputRegion::Masked { .. })
            || variant.params.iter().any(|a| {
                matches!(
                    a,
                    Access::Resized(..) | Access::Domain(..) | Access::Iter1(_) | Access::IterNd(_)
                )
            });
        if needs_output_index && !mapped {
            s.output_index(variant.output);
        }
        for (i, p) in func.params.iter().enumerate() {
            let i = i as u32;
            let name = glsl_name(&p.name);
            let ty = glsl_type(module, &p.ty);
            match (p.class, variant.params[i as usize]) {
                (ParamClass::Constant, _) => s.parts.constant(module, i, &name, &p.ty)?,
                (ParamClass::Stream, Access::AtFragment) | (ParamClass::Vout { .. }, _) if mapped => {
                    return Err(GenError::Unsupported(format!(
                        "kernel `{}`: parameter `{}` needs a fragment of its own; it cannot be fused into a reduction",
                        func.name, p.name
                    )))
                }
                (ParamClass::Stream, access @ (Access::AtFragment | Access::Resized(..) | Access::Domain(..))) => {
                    let idx = index_global(&name);
                    let texel = match access {
                        Access::Resized(resize, placement) | Access::Domain(resize, placement) => {
                            s.parts.extent_uniform(i, &name);
                            let index = resized_index(resize, "brook_output_index", (i, &name), s.scale_from, &mut s.parts);
                            s.fetches.push_str(&format!("    {idx} = {index};\n"));
                            let domain = matches!(access, Access::Domain(..));
                            s.parts.texel_of(i, &name, &idx, domain, placement)
                        }
                        _ => {
                            if needs_output_index {
                                s.fetches.push_str(&format!("    {idx} = brook_output_index;\n"));
                            }
                            "brook_fragment".to_string()
                        }
                    };
                    if needs_output_index {
                        s.parts.declare(&format!("ivec4 {idx};"));
                    }
                    let value = s.parts.fetch_element(module, i, &p.ty, &name, &texel)?;
                    s.fetches.push_str(&format!("    {ty} {name} = {value};\n"));
                }
                (ParamClass::Stream | ParamClass::Iter, Access::Iter1(resize)) => s.iterator(i, &name, &p.ty, resize, false)?,
                (ParamClass::Stream | ParamClass::Iter, Access::IterNd(resize)) => s.iterator(i, &name, &p.ty, resize, true)?,
                (ParamClass::Gather { .. }, access @ (Access::GatherDirect { .. } | Access::GatherTranslated { .. } | Access::GatherDomain { .. })) => {
                    s.parts.gather_function(module, i, &name, &p.ty, access)?
                }
                (ParamClass::Out, Access::Value) => {
                    if needs_output_index {
                        s.parts.declare(&format!("ivec4 {};", index_global(&name)));
                        s.fetches.push_str(&format!("    {} = brook_output_index;\n", index_global(&name)));
                    }
                    // Zero first, so elements the body leaves unwritten are 0 on every backend.
                    s.fetches.push_str(&format!("    {ty} {name} = {};\n", zero_value(module, &p.ty)));
                }
                (ParamClass::Reduce, _) => {
                    return Err(GenError::Unsupported(format!(
                        "kernel `{}`: parameter `{}` is a reduction accumulator; reduce functions run through the reduction passes",
                        func.name, p.name
                    )))
                }
                (ParamClass::Vout { max }, Access::Value) => {
                    // The vout variable, its candidates and its count all start at zero.
                    let zero = zero_value(module, &p.ty);
                    s.fetches.push_str(&format!("    {ty} {name} = {zero};\n"));
                    for k in 0..max {
                        s.fetches.push_str(&format!("    {ty} {} = {zero};\n", candidate_name(&name, k)));
                    }
                    s.fetches.push_str(&format!("    int {} = 0;\n", count_name(&name)));
                }
                (class, access) => {
                    return Err(GenError::Unsupported(format!(
                        "kernel `{}`: parameter `{}` ({class:?}) cannot be accessed as {access:?}",
                        func.name, p.name
                    )))
                }
            }
        }
        Ok(s)
    }

    /// Declares `brook_output_index`, the element of the outputs (of their domain) this
    /// fragment computes.
    fn output_index(&mut self, region: OutputRegion) {
        self.parts.uniform(
            "ivec4",
            "brook_output_extent",
            UniformValue::OutputExtent,
            "shape of the output streams (of their domain)",
        );
        // In a direct layout the fragment's texel is the element: (column, row), or (column, 0).
        let texel = "ivec4(brook_fragment, 0, 0)";
        let linear = "brook_linear_at(brook_fragment, brook_output_width)";
        let index = match region {
            OutputRegion::Direct => texel.to_string(),
            OutputRegion::Viewport => {
                self.output_lo();
                format!("{texel} - brook_output_lo")
            }
            OutputRegion::Whole { rank } => {
                self.output_width();
                unlinearized(linear, "brook_output_extent", rank, &mut self.parts.prelude)
            }
            OutputRegion::Masked { rank } => {
                self.output_width();
                self.output_lo();
                self.parts.uniform(
                    "ivec4",
                    "brook_output_stream_extent",
                    UniformValue::OutputStreamExtent,
                    "shape of the whole output streams",
                );
                let element = unlinearized(
                    linear,
                    "brook_output_stream_extent",
                    rank,
                    &mut self.parts.prelude,
                );
                self.fetches
                    .push_str(&format!("    ivec4 brook_output_element = {element};\n"));
                self.fetches.push_str(
                    "    // The domain is not one rectangle of this wrapped texture: skip the texels outside it.\n    if (any(lessThan(brook_output_element, brook_output_lo)) || any(greaterThanEqual(brook_output_element, brook_output_lo + brook_output_extent))) discard;\n",
                );
                "brook_output_element - brook_output_lo".to_string()
            }
        };
        self.fetches
            .push_str(&format!("    ivec4 brook_output_index = {index};\n"));
    }

    /// The first statement of `main` for a kernel whose loops only its data ends: fragments
    /// that are no element of the outputs are discarded before they fetch anything. A GPU
    /// shades a 2×2 block of fragments together, and those past the texture's edge (helper
    /// invocations) or on a translated layout's padding texels read no element's values: a
    /// loop such as `while (x < 100.0) x *= 2.0;` on a zero they read never ends, and NVIDIA's
    /// GL runs every lane of the block until its loops end (the call hung, then read back
    /// zeros). llvmpipe ends such loops at its cap, so it never showed.
    fn element_guard(&mut self) -> String {
        self.output_width();
        self.parts.uniform(
            "int",
            "brook_output_elements",
            UniformValue::ElementCount,
            "elements of the output streams (texels past them are padding)",
        );
        self.parts.prelude.require(Helper::Layout);
        "    // Not an element (a helper fragment past the texture's edge, a padding texel): its loops might never end.\n    if (brook_fragment.x >= brook_output_width || brook_linear_at(brook_fragment, brook_output_width) >= brook_output_elements) discard;\n".to_string()
    }

    fn output_width(&mut self) {
        self.parts.uniform(
            "int",
            "brook_output_width",
            UniformValue::OutputWidth,
            "texture width of the output streams",
        );
    }

    fn output_lo(&mut self) {
        self.parts.uniform(
            "ivec4",
            "brook_output_lo",
            UniformValue::OutputLo,
            "first element of the output domain",
        );
    }

    fn iterator(
        &mut self,
        param: u32,
        name: &str,
        ty: &Type,
        resize: Resize,
        n_d: bool,
    ) -> Result<(), GenError> {
        self.parts.extent_uniform(param, name);
        self.parts.uniform(
            "vec4",
            &format!("{name}_start"),
            UniformValue::IterStart(param),
            &format!("first value of iterator `{name}`"),
        );
        self.parts.uniform(
            "vec4",
            &format!("{name}_step"),
            UniformValue::IterStep(param),
            &format!("step of iterator `{name}`"),
        );
        let idx = index_global(name);
        self.parts.declare(&format!("ivec4 {idx};"));
        let index = resized_index(
            resize,
            "brook_output_index",
            (param, name),
            self.scale_from,
            &mut self.parts,
        );
        self.fetches.push_str(&format!("    {idx} = {index};\n"));
        // The same f32 operations as the host's `start + i * step`, so both agree.
        // N-D: the index is column first, so component k runs along its own dimension (the
        // index's unused lanes are 0, as are the step's).
        let position = if n_d {
            format!("vec4({idx})")
        } else {
            format!("vec4(float({idx}.x))")
        };
        let swizzle = match ty.width() {
            Some(1) => ".x",
            Some(2) => ".xy",
            Some(3) => ".xyz",
            Some(4) => "",
            _ => {
                return Err(GenError::Unsupported(format!(
                    "iterator `{name}` must be float, float2, float3 or float4"
                )))
            }
        };
        self.fetches.push_str(&format!(
            "    {} {name} = ({name}_start + {position} * {name}_step){swizzle};\n",
            glsl_type(self.module, ty)
        ));
        Ok(())
    }
}

/// The element at linear position `linear` of a stream of `rank` dimensions and shape `extent`
/// (GLSL expressions). A 1D stream's element is its position and a 2D one's takes one division;
/// the general helper would also divide by the extent-1 dimensions, one lane at a time on
/// llvmpipe.
fn unlinearized(linear: &str, extent: &str, rank: u8, prelude: &mut Prelude) -> String {
    prelude.require(Helper::Layout);
    match rank {
        1 => format!("ivec4({linear}, 0, 0, 0)"),
        2 => format!("ivec4(({linear}) % {extent}.x, ({linear}) / {extent}.x, 0, 0)"),
        _ => {
            prelude.require(Helper::Addressing);
            format!("brook_unlinearize({linear}, {extent})")
        }
    }
}
