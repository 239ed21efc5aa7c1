//! The parts every generated fragment shader shares, whatever draws it (kernel or reduction
//! pass): uniform and sampler declarations with their binding slots, element fetches, gather
//! accessors, the lowered Brook functions, and the colour outputs with their stores.

use brook_frontend::ir::{Function, FunctionId, Module, ParamClass, Scalar, Type};

use crate::error::GenError;
use crate::lower::{gather_function, passed_as_argument, FunctionLowering};
use crate::names::glsl_name;
use crate::prelude::{Helper, Prelude};
use crate::source::SourceText;
use crate::types::{glsl_type, struct_declarations};
use crate::variant::{Access, Placement, Target};
use crate::vout::{candidate_name, candidate_of, count_name};
use crate::walk::callees;

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
    /// The colour output (after the stream outputs) holding, per element, the Brook line of a
    /// loop the driver cut short, 0 if none (`loops.rs`): the executor binds a float texture
    /// there and fails the call if any element is not 0.
    pub loop_status: Option<u32>,
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
    /// Member `member` of a struct constant parameter `param` (GL has no location for a
    /// whole struct uniform, so each member is a uniform of its own).
    ConstantMember {
        param: u32,
        member: u32,
    },
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
    /// `int`, reduction passes only: input elements per output block along the reduced
    /// dimension (the block one element of the reduction's target reduces).
    ReduceBlock,
    /// `int`, reduction passes only: partial results per block after this pass.
    ReduceGroups,
    /// `vec2` texture size of the output, scatter passes only: where its points land.
    OutputSize,
    /// `int`, vout scan and compaction passes only: elements of the level read (up-sweep) or
    /// of the call (compaction).
    ScanLength,
    /// `int`, vout scan and compaction passes only: texture width of the texture on unit k.
    SampledWidth(u32),
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

/// `root` and every function it calls as GLSL, callees first; with `check_loops`, loops
/// record how they ended (`loops.rs`).
pub fn lowered_functions(
    module: &Module,
    root: FunctionId,
    prelude: &mut Prelude,
    source: Option<&SourceText>,
    check_loops: bool,
) -> Result<String, GenError> {
    let mut functions = String::new();
    for f in callees(module, root).into_iter().chain([root]) {
        let lowering = FunctionLowering::new(module, module.func(f), prelude, source)
            .checking_loops(check_loops);
        functions.push_str(&lowering.lower()?);
        functions.push('\n');
    }
    Ok(functions)
}

/// The GLSL call of Brook function `func` from `main`, its arguments the GLSL variables named
/// after its parameters (gathers are reached through globals, not passed).
pub fn call_text(func: &Function) -> String {
    let mut args: Vec<String> = Vec::new();
    for p in func.params.iter().filter(|p| passed_as_argument(p.class)) {
        let name = glsl_name(&p.name);
        args.push(name.clone());
        // A vout's candidates and count follow it, as in the lowered signature.
        if let ParamClass::Vout { max } = p.class {
            args.extend((0..max).map(|k| candidate_name(&name, k)));
            args.push(count_name(&name));
        }
    }
    format!("{}({});", glsl_name(&func.name), args.join(", "))
}

/// Every member of every parameter of `class`, in parameter order, with its component count.
pub fn member_slots(
    module: &Module,
    func: &Function,
    class: ParamClass,
) -> Result<Vec<(MemberRef, u8)>, GenError> {
    let mut slots = Vec::new();
    for (i, p) in func.params.iter().enumerate() {
        if p.class == class {
            for (m, (_, width)) in stream_members(module, &p.ty)?.into_iter().enumerate() {
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
    Ok(slots)
}

/// Declarations, accessors and bindings of one shader, built up parameter by parameter.
pub struct ShaderParts<'a> {
    pub module: &'a Module,
    pub declarations: String,
    /// Per-parameter functions (gathers); they call prelude helpers, so they come after them.
    pub accessors: String,
    pub samplers: Vec<SamplerSlot>,
    pub uniforms: Vec<UniformSlot>,
    /// Statements at the start of `main` (struct constants rebuilt from their members).
    pub setup: String,
}

impl<'a> ShaderParts<'a> {
    pub fn new(module: &'a Module) -> Self {
        ShaderParts {
            module,
            setup: String::new(),
            declarations: String::new(),
            accessors: String::new(),
            samplers: Vec::new(),
            uniforms: Vec::new(),
        }
    }

    pub fn uniform(&mut self, ty: &str, name: &str, value: UniformValue, what: &str) {
        self.declarations
            .push_str(&format!("uniform {ty} {name}; // {what}\n"));
        self.uniforms.push(UniformSlot {
            uniform: name.to_string(),
            value,
        });
    }

    /// Constant parameter `param` as the GLSL variable `name`: a uniform, or for a struct one
    /// uniform per member and the struct rebuilt from them at the start of `main`.
    pub fn constant(&mut self, param: u32, name: &str, ty: &Type) -> Result<(), GenError> {
        let what = format!("constant `{name}`");
        let Type::Struct(id) = ty else {
            self.uniform(
                &glsl_type(self.module, ty),
                name,
                UniformValue::Constant(param),
                &what,
            );
            return Ok(());
        };
        let def = self.module.struct_def(*id);
        let mut parts = Vec::with_capacity(def.members.len());
        for (m, member) in def.members.iter().enumerate() {
            if matches!(member.ty, Type::Struct(_) | Type::Array(..)) {
                return Err(GenError::Unsupported(format!(
                    "constant `{name}`: struct constants with nested structs or arrays are not supported on GL"
                )));
            }
            let uniform = format!("{name}_{}", glsl_name(&member.name));
            let value = UniformValue::ConstantMember {
                param,
                member: m as u32,
            };
            self.uniform(&glsl_type(self.module, &member.ty), &uniform, value, &what);
            parts.push(uniform);
        }
        let ty = glsl_type(self.module, ty);
        self.setup
            .push_str(&format!("    {ty} {name} = {ty}({});\n", parts.join(", ")));
        Ok(())
    }

    /// `NAME_extent`: the shape of parameter `param`'s stream (of its domain).
    pub fn extent_uniform(&mut self, param: u32, name: &str) {
        self.uniform(
            "ivec4",
            &format!("{name}_extent"),
            UniformValue::Extent(param),
            &format!("shape of `{name}`"),
        );
    }

    /// The GLSL value of element `texel` of stream parameter `param`: one fetch per member.
    /// Declares the member samplers the first time a parameter is fetched.
    pub fn fetch_element(
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
            let source = MemberRef {
                param,
                member: m as u32,
            };
            if !self.samplers.iter().any(|s| s.source == source) {
                self.declarations
                    .push_str(&format!("uniform sampler2D {sampler};\n"));
                self.samplers.push(SamplerSlot {
                    uniform: sampler.clone(),
                    source,
                });
            }
            let swizzle = [".x", ".xy", ".xyz", ""][*width as usize - 1];
            parts.push(format!("texelFetch({sampler}, {texel}, 0){swizzle}"));
        }
        Ok(match ty {
            Type::Struct(_) => format!("{}({})", glsl_type(self.module, ty), parts.join(", ")),
            _ => parts.remove(0),
        })
    }

    /// The texel of element `index` of stream parameter `param`; for a domain, `index` is in
    /// the domain and is offset by its corner within the whole stream.
    pub fn texel_of(
        &mut self,
        param: u32,
        name: &str,
        index: &str,
        domain: bool,
        placement: Placement,
        prelude: &mut Prelude,
    ) -> String {
        let index = if domain {
            self.uniform(
                "ivec4",
                &format!("{name}_lo"),
                UniformValue::Lo(param),
                &format!("first element of the domain of `{name}`"),
            );
            format!("{index} + {name}_lo")
        } else {
            index.to_string()
        };
        if placement == Placement::Direct {
            return format!("({index}).xy");
        }
        prelude.require(Helper::Addressing);
        self.uniform(
            "int",
            &format!("{name}_width"),
            UniformValue::Width(param),
            &format!("texture width of `{name}`"),
        );
        let extent = if domain {
            self.uniform(
                "ivec4",
                &format!("{name}_stream_extent"),
                UniformValue::StreamExtent(param),
                &format!("shape of the whole stream behind `{name}`"),
            );
            format!("{name}_stream_extent")
        } else {
            format!("{name}_extent")
        };
        format!("brook_texel({index}, {extent}, {name}_width)")
    }

    /// The accessor function a lowered body calls for `name[…]` with the rounded index (see
    /// `lower`): Brook's clamp on the components the gathered stream's rank uses (the others
    /// select element 0), then the element's texel.
    pub fn gather_function(
        &mut self,
        param: u32,
        name: &str,
        ty: &Type,
        access: Access,
        prelude: &mut Prelude,
    ) -> Result<(), GenError> {
        let (rank, placement, domain) = match access {
            Access::GatherDirect { rank } => (rank, Placement::Direct, false),
            Access::GatherTranslated { rank } => (rank, Placement::Translated, false),
            Access::GatherDomain { rank, placement } => (rank, placement, true),
            _ => {
                return Err(GenError::Unsupported(format!(
                    "gather `{name}` cannot be accessed as {access:?}"
                )))
            }
        };
        self.extent_uniform(param, name);
        // The clamp's bound, once per fragment: gathers sit in loops, and llvmpipe hoists
        // nothing out of them, so `extent - 1` in the accessor would cost a subtraction per call.
        self.declarations.push_str(&format!(
            "ivec4 {name}_last; // last element of `{name}` along each dimension\n"
        ));
        self.setup
            .push_str(&format!("    {name}_last = {name}_extent - 1;\n"));
        let index = match rank.clamp(1, 4) {
            1 => format!("ivec4(clamp(i.x, 0, {name}_last.x), 0, 0, 0)"),
            4 => format!("clamp(i, ivec4(0), {name}_last)"),
            r => {
                let used = &"xyz"[..r as usize];
                let zeros = ", 0".repeat(4 - r as usize);
                format!("ivec4(clamp(i.{used}, ivec{r}(0), {name}_last.{used}){zeros})")
            }
        };
        let texel = self.texel_of(param, name, "index", domain, placement, prelude);
        let value = self.fetch_element(param, ty, name, &texel)?;
        self.accessors.push_str(&format!(
            "// Gather from `{name}` at an index already rounded: Brook's clamp, then the element's texel.\n{} {}(ivec4 i) {{\n    ivec4 index = {index};\n    return {value};\n}}\n",
            glsl_type(self.module, ty),
            gather_function(name),
        ));
        Ok(())
    }

    /// The complete shader of one pass: `title` is its first comment, `body` the statements of
    /// `main` before the stores, `written` the output members this pass stores (named after
    /// parameters of `func`, holding the values of the GLSL variables of the same names).
    /// With `loop_status`, the pass also writes `brook_loop_cut` (see [`PassProgram::loop_status`]).
    #[allow(clippy::too_many_arguments)]
    pub fn pass(
        &self,
        target: &Target,
        title: &str,
        func: &Function,
        prelude: &Prelude,
        functions: &str,
        body: &str,
        written: &[(MemberRef, u8)],
        loop_status: bool,
    ) -> Result<PassProgram, GenError> {
        let mut text = String::from(target.profile.header());
        text.push_str(&format!("// {title}\n"));
        text.push_str(&struct_declarations(self.module));
        text.push_str(&self.declarations);
        let mut stores = String::new();
        for (location, (slot, width)) in written.iter().enumerate() {
            let (value, out) = self.stored_member(func, *slot)?;
            // float3 lives in an RGBA texture (RGB32F is not colour-renderable).
            let storage = ["float", "vec2", "vec4", "vec4"][*width as usize - 1];
            text.push_str(&format!(
                "layout(location = {location}) out {storage} {out};\n"
            ));
            let value = if *width == 3 {
                format!("vec4({value}, 0.0)")
            } else {
                value
            };
            stores.push_str(&format!("    {out} = {value};\n"));
        }
        let loop_status = loop_status.then_some(written.len() as u32);
        if let Some(location) = loop_status {
            text.push_str(&format!(
                "layout(location = {location}) out float brook_status_out;\n"
            ));
            stores.push_str("    brook_status_out = float(brook_loop_cut);\n");
        }
        text.push_str(&prelude.source());
        text.push_str(&self.accessors);
        text.push_str(functions);
        text.push_str("void main() {\n    ivec2 brook_fragment = ivec2(gl_FragCoord.xy);\n");
        text.push_str(&self.setup);
        text.push_str(body);
        text.push_str(&stores);
        text.push_str("}\n");
        Ok(PassProgram {
            fragment: text,
            outputs: written.iter().map(|(m, _)| *m).collect(),
            samplers: self.samplers.clone(),
            uniforms: self.uniforms.clone(),
            loop_status,
        })
    }
}

impl ShaderParts<'_> {
    /// The GLSL value output member `slot` of `func` stores, and the name of its output: a
    /// member of an `out` parameter, or a candidate or the count of a vout (`vout.rs`).
    fn stored_member(
        &self,
        func: &Function,
        slot: MemberRef,
    ) -> Result<(String, String), GenError> {
        let p = &func.params[slot.param as usize];
        let members = stream_members(self.module, &p.ty)?;
        let name = glsl_name(&p.name);
        let (variable, member) = match p.class {
            ParamClass::Vout { max } => match candidate_of(members.len(), max, slot.member) {
                Some((k, m)) => (candidate_name(&name, k), m),
                None => {
                    let count = count_name(&name);
                    return Ok((format!("float({count})"), format!("{count}_out")));
                }
            },
            _ => (name, slot.member as usize),
        };
        let (suffix, _) = &members[member];
        let out = member_name(&variable, suffix, "out");
        let value = if suffix.is_empty() {
            variable
        } else {
            format!("{variable}.{suffix}")
        };
        Ok((value, out))
    }
}

/// The output members split into passes of at most `max_draw_buffers` colour outputs each
/// (001 §4.2: a kernel with more outputs than the device writes at once runs several times).
pub fn output_chunks(slots: &[(MemberRef, u8)], target: &Target) -> Vec<Vec<(MemberRef, u8)>> {
    let per_pass = target.max_draw_buffers.max(1) as usize;
    slots.chunks(per_pass).map(<[_]>::to_vec).collect()
}

fn member_name(param: &str, member: &str, what: &str) -> String {
    if member.is_empty() {
        format!("{param}_{what}")
    } else {
        format!("{param}_{member}_{what}")
    }
}
