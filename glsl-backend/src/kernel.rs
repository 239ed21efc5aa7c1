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

use brook_frontend::ir::{Function, FunctionId, FunctionKind, Module, ParamClass, Scalar, Type};

use crate::error::GenError;
use crate::lower::{gather_function, index_global, passed_as_argument, FunctionLowering};
use crate::names::glsl_name;
use crate::prelude::{Helper, Prelude};
use crate::source::SourceText;
use crate::types::{glsl_type, struct_declarations, zero_value};
use crate::variant::{Access, OutputRegion, Target, Variant};
use crate::walk::{callees, uses_indexof};

/// Every pass of one kernel variant.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelProgram {
    pub kernel: String,
    pub passes: Vec<PassProgram>,
}

/// One draw: a complete fragment shader and how to bind it.
#[derive(Debug, Clone, PartialEq)]
pub struct PassProgram {
    pub fragment: String,
    /// Colour output `k` (`layout(location = k)`) stores this output member.
    pub outputs: Vec<MemberRef>,
    /// Texture unit `k` holds this input member, read through the named sampler.
    pub samplers: Vec<SamplerSlot>,
    /// Every non-sampler uniform the shader declares.
    pub uniforms: Vec<UniformSlot>,
}

/// A member of a parameter's element: 0 for non-struct elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemberRef {
    pub param: u32,
    pub member: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SamplerSlot {
    pub uniform: String,
    pub source: MemberRef,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UniformSlot {
    pub uniform: String,
    pub value: UniformValue,
}

/// What a uniform holds; the pass executor fills it from the call's arguments and layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UniformValue {
    /// The value of a constant parameter, with the parameter's type.
    Constant(u32),
    /// `ivec4` extents of a parameter's stream as the kernel sees it (a domain's shape when
    /// passed as a domain), `.x` the last dimension, 1 where unused.
    Extent(u32),
    /// `int` texture width of a parameter's stream layout.
    Width(u32),
    /// `ivec4` extents of the whole stream behind a domain parameter (its texture's layout).
    StreamExtent(u32),
    /// `ivec4` lower corner of a domain parameter, in the whole stream.
    Lo(u32),
    /// `ivec4` extents and `int` width of the output streams (all outputs share one shape;
    /// the extent is the domain's shape when the outputs are domains).
    OutputExtent,
    OutputWidth,
    /// `ivec4` extents of the whole output streams and lower corner of their domain.
    OutputStreamExtent,
    OutputLo,
    /// `vec4` start and step of an iterator parameter.
    IterStart(u32),
    IterStep(u32),
}

/// The float members (name suffix, components) a stream of element type `ty` is stored as.
pub fn stream_members(module: &Module, ty: &Type) -> Result<Vec<(String, u8)>, GenError> {
    let float_width = |t: &Type| match t {
        Type::Scalar(Scalar::Float) => Some(1),
        Type::Vector(Scalar::Float, n) => Some(*n),
        _ => None,
    };
    let members = match ty {
        Type::Struct(id) => {
            let def = module.struct_def(*id);
            def.members
                .iter()
                .map(|m| float_width(&m.ty).map(|w| (glsl_name(&m.name), w)))
                .collect::<Option<Vec<_>>>()
        }
        t => float_width(t).map(|w| vec![(String::new(), w)]),
    };
    members.ok_or_else(|| {
        GenError::Unsupported(format!(
            "streams of `{}` cannot be stored in float textures: stream elements are float, float2, float3, float4 or structs of them",
            glsl_type(module, ty)
        ))
    })
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
    let mut functions = String::new();
    for f in callees(module, kernel).into_iter().chain([kernel]) {
        functions.push_str(
            &FunctionLowering::new(module, module.func(f), &mut prelude, source).lower()?,
        );
        functions.push('\n');
    }
    let shader = KernelShader::new(module, func, variant, &mut prelude)?;
    let outputs = shader.output_slots()?;
    let per_pass = target.max_draw_buffers.max(1) as usize;
    let chunks: Vec<&[(MemberRef, u8)]> = outputs.chunks(per_pass).collect();
    let passes = chunks
        .iter()
        .enumerate()
        .map(|(i, written)| {
            shader.pass(
                target,
                source,
                &functions,
                &prelude,
                written,
                (i + 1, chunks.len()),
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(KernelProgram {
        kernel: func.name.clone(),
        passes,
    })
}

/// The parts of a kernel's shader shared by all its passes.
struct KernelShader<'a> {
    module: &'a Module,
    func: &'a Function,
    declarations: String,
    /// Per-parameter functions (gathers); they call prelude helpers, so they come after them.
    accessors: String,
    fetches: String,
    samplers: Vec<SamplerSlot>,
    uniforms: Vec<UniformSlot>,
}

impl<'a> KernelShader<'a> {
    fn new(
        module: &'a Module,
        func: &'a Function,
        variant: &'a Variant,
        prelude: &mut Prelude,
    ) -> Result<Self, GenError> {
        let mut s = KernelShader {
            module,
            func,
            declarations: String::new(),
            accessors: String::new(),
            fetches: String::new(),
            samplers: Vec::new(),
            uniforms: Vec::new(),
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
                (ParamClass::Constant, _) => s.uniform(&ty, &name, UniformValue::Constant(i), &format!("constant `{}`", p.name)),
                (ParamClass::Stream, access @ (Access::AtFragment | Access::Resized | Access::Domain)) => {
                    let texel = if access == Access::AtFragment {
                        if needs_output_index {
                            s.fetches.push_str(&format!("    {} = brook_output_index;\n", index_global(&name)));
                        }
                        "brook_fragment".to_string()
                    } else {
                        s.addressing_uniforms(i, &name);
                        s.fetches.push_str(&format!(
                            "    {idx} = brook_resize(brook_output_index, brook_output_extent, {name}_extent);\n",
                            idx = index_global(&name)
                        ));
                        s.texel_of(i, &name, &index_global(&name), access == Access::Domain)
                    };
                    if needs_output_index {
                        s.declarations.push_str(&format!("ivec4 {};\n", index_global(&name)));
                    }
                    let value = s.fetch_element(i, &p.ty, &name, &texel)?;
                    s.fetches.push_str(&format!("    {ty} {name} = {value};\n"));
                }
                (ParamClass::Stream | ParamClass::Iter, access @ (Access::Iter1 | Access::Iter2)) => s.iterator(i, &name, &p.ty, access == Access::Iter2)?,
                (ParamClass::Gather { .. }, access @ (Access::GatherDirect | Access::GatherTranslated | Access::GatherDomain)) => {
                    s.gather_function(i, &name, &p.ty, access)?
                }
                (ParamClass::Out, Access::Value) => {
                    if needs_output_index {
                        s.declarations.push_str(&format!("ivec4 {};\n", index_global(&name)));
                        s.fetches.push_str(&format!("    {} = brook_output_index;\n", index_global(&name)));
                    }
                    // Zero first, so elements the body leaves unwritten are 0 on every backend.
                    s.fetches.push_str(&format!("    {ty} {name} = {};\n", zero_value(module, &p.ty)));
                }
                (ParamClass::Reduce | ParamClass::Vout { .. }, _) => {
                    return Err(GenError::Unsupported(format!(
                        "kernel `{}`: parameter `{}` needs the reduction or vout passes, which the GL back end does not have yet",
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

    fn uniform(&mut self, ty: &str, name: &str, value: UniformValue, what: &str) {
        self.declarations
            .push_str(&format!("uniform {ty} {name}; // {what}\n"));
        self.uniforms.push(UniformSlot {
            uniform: name.to_string(),
            value,
        });
    }

    fn addressing_uniforms(&mut self, param: u32, name: &str) {
        self.uniform(
            "ivec4",
            &format!("{name}_extent"),
            UniformValue::Extent(param),
            &format!("shape of `{name}`"),
        );
        self.uniform(
            "int",
            &format!("{name}_width"),
            UniformValue::Width(param),
            &format!("texture width of `{name}`"),
        );
    }

    /// Declares `brook_output_index`, the element of the outputs (of their domain) this
    /// fragment computes.
    fn output_index(&mut self, region: OutputRegion) {
        self.uniform(
            "ivec4",
            "brook_output_extent",
            UniformValue::OutputExtent,
            "shape of the output streams (of their domain)",
        );
        self.uniform(
            "int",
            "brook_output_width",
            UniformValue::OutputWidth,
            "texture width of the output streams",
        );
        let linear = "brook_fragment.y * brook_output_width + brook_fragment.x";
        if region == OutputRegion::Whole {
            self.fetches.push_str(&format!(
                "    ivec4 brook_output_index = brook_unlinearize({linear}, brook_output_extent);\n"
            ));
            return;
        }
        self.uniform(
            "ivec4",
            "brook_output_stream_extent",
            UniformValue::OutputStreamExtent,
            "shape of the whole output streams",
        );
        self.uniform(
            "ivec4",
            "brook_output_lo",
            UniformValue::OutputLo,
            "first element of the output domain",
        );
        self.fetches.push_str(&format!(
            "    ivec4 brook_output_element = brook_unlinearize({linear}, brook_output_stream_extent);\n"
        ));
        if region == OutputRegion::Masked {
            self.fetches.push_str(
                "    // The domain is not one rectangle of this wrapped texture: skip the texels outside it.\n    if (any(lessThan(brook_output_element, brook_output_lo)) || any(greaterThanEqual(brook_output_element, brook_output_lo + brook_output_extent))) discard;\n",
            );
        }
        self.fetches
            .push_str("    ivec4 brook_output_index = brook_output_element - brook_output_lo;\n");
    }

    /// The texel of element `index` of stream parameter `param`; for a domain, `index` is in
    /// the domain and is offset by its corner within the whole stream.
    fn texel_of(&mut self, param: u32, name: &str, index: &str, domain: bool) -> String {
        if !domain {
            return format!("brook_texel({index}, {name}_extent, {name}_width)");
        }
        self.uniform(
            "ivec4",
            &format!("{name}_lo"),
            UniformValue::Lo(param),
            &format!("first element of the domain of `{name}`"),
        );
        self.uniform(
            "ivec4",
            &format!("{name}_stream_extent"),
            UniformValue::StreamExtent(param),
            &format!("shape of the whole stream behind `{name}`"),
        );
        format!("brook_texel({index} + {name}_lo, {name}_stream_extent, {name}_width)")
    }

    /// The GLSL value of element `texel` of stream parameter `param`: one fetch per member.
    fn fetch_element(
        &mut self,
        param: u32,
        ty: &Type,
        name: &str,
        texel: &str,
    ) -> Result<String, GenError> {
        let members = stream_members(self.module, ty)?;
        let mut parts = Vec::new();
        for (m, (suffix, width)) in members.iter().enumerate() {
            let sampler = member_name(name, suffix, "tex");
            self.declarations
                .push_str(&format!("uniform sampler2D {sampler};\n"));
            self.samplers.push(SamplerSlot {
                uniform: sampler.clone(),
                source: MemberRef {
                    param,
                    member: m as u32,
                },
            });
            let swizzle = [".x", ".xy", ".xyz", ""][*width as usize - 1];
            parts.push(format!("texelFetch({sampler}, {texel}, 0){swizzle}"));
        }
        Ok(match ty {
            Type::Struct(_) => format!("{}({})", glsl_type(self.module, ty), parts.join(", ")),
            _ => parts.remove(0),
        })
    }

    fn iterator(&mut self, param: u32, name: &str, ty: &Type, two_d: bool) -> Result<(), GenError> {
        self.addressing_uniforms(param, name);
        self.uniform(
            "vec4",
            &format!("{name}_start"),
            UniformValue::IterStart(param),
            &format!("first value of iterator `{name}`"),
        );
        self.uniform(
            "vec4",
            &format!("{name}_step"),
            UniformValue::IterStep(param),
            &format!("step of iterator `{name}`"),
        );
        let idx = index_global(name);
        self.declarations.push_str(&format!("ivec4 {idx};\n"));
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
            glsl_type(self.module, ty)
        ));
        Ok(())
    }

    fn gather_function(
        &mut self,
        param: u32,
        name: &str,
        ty: &Type,
        access: Access,
    ) -> Result<(), GenError> {
        let texel = if access == Access::GatherDirect {
            self.uniform(
                "ivec4",
                &format!("{name}_extent"),
                UniformValue::Extent(param),
                &format!("shape of `{name}`"),
            );
            "index.xy".to_string()
        } else {
            self.addressing_uniforms(param, name);
            self.texel_of(param, name, "index", access == Access::GatherDomain)
        };
        let value = self.fetch_element(param, ty, name, &texel)?;
        self.accessors.push_str(&format!(
            "// Gather from `{name}`: Brook's index rule, then the element's texel.\n{} {}(vec4 v) {{\n    ivec4 index = brook_gather_index(v, {name}_extent);\n    return {value};\n}}\n",
            glsl_type(self.module, ty),
            gather_function(name),
        ));
        Ok(())
    }

    /// Every output member in parameter order, with its component count.
    fn output_slots(&self) -> Result<Vec<(MemberRef, u8)>, GenError> {
        let mut slots = Vec::new();
        for (i, p) in self.func.params.iter().enumerate() {
            if p.class == ParamClass::Out {
                for (m, (_, width)) in stream_members(self.module, &p.ty)?.into_iter().enumerate() {
                    slots.push((
                        MemberRef {
                            param: i as u32,
                            member: m as u32,
                        },
                        width,
                    ));
                }
            }
        }
        if slots.is_empty() {
            return Err(GenError::Unsupported(format!(
                "kernel `{}` has no output stream",
                self.func.name
            )));
        }
        Ok(slots)
    }

    fn pass(
        &self,
        target: &Target,
        source: Option<&SourceText>,
        functions: &str,
        prelude: &Prelude,
        written: &[(MemberRef, u8)],
        (number, count): (usize, usize),
    ) -> Result<PassProgram, GenError> {
        let mut text = String::from(target.profile.header());
        let from = source.map(|s| format!(" ({})", s.name)).unwrap_or_default();
        text.push_str(&format!(
            "// Brook kernel `{}`{from}, pass {number} of {count}.\n",
            self.func.name
        ));
        text.push_str(&struct_declarations(self.module));
        text.push_str(&self.declarations);
        let mut stores = String::new();
        for (location, (slot, width)) in written.iter().enumerate() {
            let p = &self.func.params[slot.param as usize];
            let name = glsl_name(&p.name);
            let (suffix, _) = &stream_members(self.module, &p.ty)?[slot.member as usize];
            let out = member_name(&name, suffix, "out");
            // float3 lives in an RGBA texture (RGB32F is not colour-renderable).
            let storage = ["float", "vec2", "vec4", "vec4"][*width as usize - 1];
            text.push_str(&format!(
                "layout(location = {location}) out {storage} {out};\n"
            ));
            let value = if suffix.is_empty() {
                name.clone()
            } else {
                format!("{name}.{suffix}")
            };
            let value = if *width == 3 {
                format!("vec4({value}, 0.0)")
            } else {
                value
            };
            stores.push_str(&format!("    {out} = {value};\n"));
        }
        text.push_str(&prelude.source());
        text.push_str(&self.accessors);
        text.push_str(functions);
        let args: Vec<String> = self
            .func
            .params
            .iter()
            .filter(|p| passed_as_argument(p.class))
            .map(|p| glsl_name(&p.name))
            .collect();
        text.push_str("void main() {\n    ivec2 brook_fragment = ivec2(gl_FragCoord.xy);\n");
        text.push_str(&self.fetches);
        text.push_str(&format!(
            "    {}({});\n",
            glsl_name(&self.func.name),
            args.join(", ")
        ));
        text.push_str(&stores);
        text.push_str("}\n");
        Ok(PassProgram {
            fragment: text,
            outputs: written.iter().map(|(m, _)| *m).collect(),
            samplers: self.samplers.clone(),
            uniforms: self.uniforms.clone(),
        })
    }
}

fn member_name(param: &str, member: &str, what: &str) -> String {
    if member.is_empty() {
        format!("{param}_{what}")
    } else {
        format!("{param}_{member}_{what}")
    }
}
