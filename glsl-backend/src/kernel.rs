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

use brook_frontend::ir::{Function, FunctionId, FunctionKind, Module, ParamClass, Type};

use crate::error::GenError;
use crate::lower::index_global;
use crate::names::glsl_name;
use crate::prelude::{Helper, Prelude};
use crate::shader::{
    call_text, lowered_functions, member_slots, output_chunks, PassProgram, ShaderParts,
    UniformValue,
};
use crate::source::SourceText;
use crate::types::{glsl_type, zero_value};
use crate::variant::{Access, OutputRegion, Target, Variant};
use crate::walk::uses_indexof;

/// Every pass of one kernel variant.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelProgram {
    pub kernel: String,
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
    if variant.params.len() != func.params.len() {
        return Err(GenError::VariantMismatch {
            kernel: func.name.clone(),
            params: func.params.len(),
            given: variant.params.len(),
        });
    }
    let mut prelude = Prelude::default();
    let functions = lowered_functions(module, kernel, &mut prelude, source)?;
    let shader = KernelShader::new(module, func, variant, &mut prelude)?;
    let outputs = member_slots(module, func, ParamClass::Out)?;
    if outputs.is_empty() {
        return Err(GenError::Unsupported(format!(
            "kernel `{}` has no output stream",
            func.name
        )));
    }
    let chunks = output_chunks(&outputs, target);
    let from = source.map(|s| format!(" ({})", s.name)).unwrap_or_default();
    let body = format!("{}    {}\n", shader.fetches, call_text(func));
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
            shader
                .parts
                .pass(target, &title, func, &prelude, &functions, &body, written)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(KernelProgram {
        kernel: func.name.clone(),
        passes,
    })
}

/// The parts of a kernel's shader shared by all its passes.
struct KernelShader<'a> {
    parts: ShaderParts<'a>,
    /// Statements of `main` that compute this fragment's inputs.
    fetches: String,
}

impl<'a> KernelShader<'a> {
    fn new(
        module: &'a Module,
        func: &'a Function,
        variant: &'a Variant,
        prelude: &mut Prelude,
    ) -> Result<Self, GenError> {
        let mut s = KernelShader {
            parts: ShaderParts::new(module),
            fetches: String::new(),
        };
        let gathers_only = |a: &Access| {
            matches!(
                a,
                Access::GatherDirect | Access::GatherTranslated | Access::GatherDomain
            )
        };
        let addressed = variant.params.iter().any(|a| {
            matches!(
                a,
                Access::Resized
                    | Access::Iter1
                    | Access::Iter2
                    | Access::GatherTranslated
                    | Access::Domain
                    | Access::GatherDomain
            )
        }) || uses_indexof(&func.body);
        let needs_output_index = addressed && variant.params.iter().any(|a| !gathers_only(a))
            || uses_indexof(&func.body)
            || variant.output == OutputRegion::Masked;
        if addressed
            || variant.params.contains(&Access::GatherDirect)
            || variant.output != OutputRegion::Whole
        {
            prelude.require(Helper::Addressing);
        }
        if needs_output_index {
            s.output_index(variant.output);
        }
        for (i, p) in func.params.iter().enumerate() {
            let i = i as u32;
            let name = glsl_name(&p.name);
            let ty = glsl_type(module, &p.ty);
            match (p.class, variant.params[i as usize]) {
                (ParamClass::Constant, _) => s.parts.constant(i, &name, &p.ty)?,
                (ParamClass::Stream, access @ (Access::AtFragment | Access::Resized | Access::Domain)) => {
                    let texel = if access == Access::AtFragment {
                        if needs_output_index {
                            s.fetches.push_str(&format!("    {} = brook_output_index;\n", index_global(&name)));
                        }
                        "brook_fragment".to_string()
                    } else {
                        s.parts.addressing_uniforms(i, &name);
                        s.fetches.push_str(&format!(
                            "    {idx} = brook_resize(brook_output_index, brook_output_extent, {name}_extent);\n",
                            idx = index_global(&name)
                        ));
                        s.parts.texel_of(i, &name, &index_global(&name), access == Access::Domain)
                    };
                    if needs_output_index {
                        s.parts.declarations.push_str(&format!("ivec4 {};\n", index_global(&name)));
                    }
                    let value = s.parts.fetch_element(i, &p.ty, &name, &texel)?;
                    s.fetches.push_str(&format!("    {ty} {name} = {value};\n"));
                }
                (ParamClass::Stream | ParamClass::Iter, access @ (Access::Iter1 | Access::Iter2)) => s.iterator(i, &name, &p.ty, access == Access::Iter2)?,
                (ParamClass::Gather { .. }, access @ (Access::GatherDirect | Access::GatherTranslated | Access::GatherDomain)) => {
                    s.parts.gather_function(i, &name, &p.ty, access)?
                }
                (ParamClass::Out, Access::Value) => {
                    if needs_output_index {
                        s.parts.declarations.push_str(&format!("ivec4 {};\n", index_global(&name)));
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
                (ParamClass::Vout { .. }, _) => {
                    return Err(GenError::Unsupported(format!(
                        "kernel `{}`: parameter `{}` needs the vout passes, which the GL back end does not have yet",
                        func.name, p.name
                    )))
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
        self.parts.uniform(
            "int",
            "brook_output_width",
            UniformValue::OutputWidth,
            "texture width of the output streams",
        );
        if region == OutputRegion::Whole {
            self.fetches.push_str(
                "    ivec4 brook_output_index = brook_element_at(brook_fragment, brook_output_extent, brook_output_width);\n",
            );
            return;
        }
        self.parts.uniform(
            "ivec4",
            "brook_output_stream_extent",
            UniformValue::OutputStreamExtent,
            "shape of the whole output streams",
        );
        self.parts.uniform(
            "ivec4",
            "brook_output_lo",
            UniformValue::OutputLo,
            "first element of the output domain",
        );
        self.fetches.push_str(
            "    ivec4 brook_output_element = brook_element_at(brook_fragment, brook_output_stream_extent, brook_output_width);\n",
        );
        if region == OutputRegion::Masked {
            self.fetches.push_str(
                "    // The domain is not one rectangle of this wrapped texture: skip the texels outside it.\n    if (any(lessThan(brook_output_element, brook_output_lo)) || any(greaterThanEqual(brook_output_element, brook_output_lo + brook_output_extent))) discard;\n",
            );
        }
        self.fetches
            .push_str("    ivec4 brook_output_index = brook_output_element - brook_output_lo;\n");
    }

    fn iterator(&mut self, param: u32, name: &str, ty: &Type, two_d: bool) -> Result<(), GenError> {
        self.parts.addressing_uniforms(param, name);
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
        self.parts.declarations.push_str(&format!("ivec4 {idx};\n"));
        self.fetches.push_str(&format!(
            "    {idx} = brook_resize(brook_output_index, brook_output_extent, {name}_extent);\n"
        ));
        // The same f32 operations as the host's `start + i * step`, so both agree.
        let position = if two_d {
            format!("vec4(vec2({idx}.xy), 0.0, 0.0)")
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
            glsl_type(self.parts.module, ty)
        ));
        Ok(())
    }
}
