//! What every shader running a Brook function shares (kernel and reduction passes, a
//! scatter's user combiner): the lowered functions and the call of one from `main`, constants
//! as uniforms, element fetches, gather accessors, and the colour outputs with their stores —
//! on the one [`ShaderBuilder`].

use brook_ir::{Function, FunctionId, Module, ParamClass, Type};

use crate::builder::ShaderBuilder;
use crate::error::GenError;
use crate::lower::{element_function, gather_function, passed_as_argument, FunctionLowering};
use crate::members::stream_members;
use crate::names::glsl_name;
use crate::pass::{MemberRef, PassProgram, UniformValue};
use crate::prelude::{Helper, Prelude, GATHER_FLOAT_BOUND, GEN_FLOAT, GEN_INT};
use crate::source::SourceText;
use crate::types::glsl_type;
use crate::variant::{Access, Placement, Target, Wrap};
use crate::vout::{candidate_name, candidate_of, count_name};
use crate::walk::callees;
use brook_ir::MathMode;

/// `root` and every function it calls as GLSL, callees first; with `check_loops`, loops
/// record how they ended (`loops.rs`); in `math`'s mode (`FunctionLowering::in_mode`).
pub fn lowered_functions(
    module: &Module,
    root: FunctionId,
    prelude: &mut Prelude,
    source: Option<&SourceText>,
    (check_loops, math): (bool, MathMode),
) -> Result<String, GenError> {
    lowered_functions_of(module, &[root], prelude, source, (check_loops, math))
}

/// [`lowered_functions`] of several roots in one shader (a kernel fused into a reduction):
/// a function both call is lowered once, still before every caller.
pub fn lowered_functions_of(
    module: &Module,
    roots: &[FunctionId],
    prelude: &mut Prelude,
    source: Option<&SourceText>,
    (check_loops, math): (bool, MathMode),
) -> Result<String, GenError> {
    let mut order: Vec<FunctionId> = Vec::new();
    for &root in roots {
        for f in callees(module, root).into_iter().chain([root]) {
            if !order.contains(&f) {
                order.push(f);
            }
        }
    }
    let mut functions = String::new();
    for f in order {
        let lowering = FunctionLowering::new(module, module.func(f), prelude, source)
            .checking_loops(check_loops)
            .in_mode(math);
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

impl ShaderBuilder<'_> {
    /// Constant parameter `param` as the GLSL variable `name`: a uniform, or for a struct one
    /// uniform per member and the struct rebuilt from them at the start of `main`.
    pub fn constant(
        &mut self,
        module: &Module,
        param: u32,
        name: &str,
        ty: &Type,
    ) -> Result<(), GenError> {
        let what = format!("constant `{name}`");
        let Type::Struct(id) = ty else {
            let value = UniformValue::Constant(param);
            self.uniform(&glsl_type(module, ty), name, value, &what);
            return Ok(());
        };
        let def = module.struct_def(*id);
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
            self.uniform(&glsl_type(module, &member.ty), &uniform, value, &what);
            parts.push(uniform);
        }
        let ty = glsl_type(module, ty);
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

    /// The GLSL value of element `texel` of stream parameter `param`: one fetch per member,
    /// through the member's sampler (declared the first time a parameter is fetched).
    pub fn fetch_element(
        &mut self,
        module: &Module,
        param: u32,
        ty: &Type,
        name: &str,
        texel: &str,
    ) -> Result<String, GenError> {
        let members = stream_members(module, ty)?;
        let mut parts = Vec::new();
        for (m, (suffix, width)) in members.iter().enumerate() {
            let sampler = member_name(name, suffix, "tex");
            let source = MemberRef {
                param,
                member: m as u32,
            };
            self.sampler(&sampler, source, "");
            let swizzle = [".x", ".xy", ".xyz", ""][*width as usize - 1];
            parts.push(format!("texelFetch({sampler}, {texel}, 0){swizzle}"));
        }
        Ok(match ty {
            Type::Struct(_) => format!("{}({})", glsl_type(module, ty), parts.join(", ")),
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
        let wrap = match placement {
            Placement::Direct => return format!("({index}).xy"),
            Placement::Translated(wrap) => wrap,
        };
        self.prelude.require(Helper::Addressing);
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
        match wrap {
            Wrap::PowerOfTwo(k) => {
                format!("brook_texel_at_pow2(brook_linearize({index}, {extent}), {k})")
            }
            Wrap::Uniform => {
                self.uniform(
                    "int",
                    &format!("{name}_width"),
                    UniformValue::Width(param),
                    &format!("texture width of `{name}`"),
                );
                format!("brook_texel({index}, {extent}, {name}_width)")
            }
        }
    }

    /// The accessor functions a lowered body calls for `name[…]` (see `lower`): at an `ivec4`
    /// index, or at a `vec4` one already rounded (or proven integral), each with Brook's clamp
    /// on the components the gathered stream's rank uses (the others select element 0), then
    /// the element's texel.
    pub fn gather_function(
        &mut self,
        module: &Module,
        param: u32,
        name: &str,
        ty: &Type,
        access: Access,
    ) -> Result<(), GenError> {
        let (rank, placement, domain) = match access {
            Access::GatherDirect { rank } => (rank, Placement::Direct, false),
            Access::GatherTranslated { rank, wrap } => (rank, Placement::Translated(wrap), false),
            Access::GatherDomain { rank, placement } => (rank, placement, true),
            _ => {
                return Err(GenError::Unsupported(format!(
                    "gather `{name}` cannot be accessed as {access:?}"
                )))
            }
        };
        self.extent_uniform(param, name);
        // The clamp's bounds, once per fragment: gathers sit in loops, and llvmpipe hoists
        // nothing out of them, so `extent - 1` in the accessor would cost a subtraction per call.
        self.declare(&format!(
            "ivec4 {name}_last; // last element of `{name}` along each dimension"
        ));
        self.setup
            .push_str(&format!("    {name}_last = {name}_extent - 1;\n"));
        let r = rank.clamp(1, 4) as usize;
        // The components the rank uses, as a swizzle (none for all four).
        let used = if r == 4 {
            String::new()
        } else {
            format!(".{}", &"xyz"[..r])
        };
        let (int_t, float_t) = (GEN_INT[r - 1], GEN_FLOAT[r - 1]);
        let int_clamp = if r == 1 {
            format!("clamp(i{used}, 0, {name}_last{used})")
        } else {
            format!("clamp(i{used}, {int_t}(0), {name}_last{used})")
        };
        // A direct layout's extents are at most a texture side, so `last` is exact in float and
        // the whole clamp is float; a wrapped one may exceed 2^24 along a dimension, so there
        // the float clamp only bounds the conversion and the stream's clamp is in integers.
        self.prelude.require(Helper::GatherClamp);
        let float_clamp = match placement {
            Placement::Direct => {
                self.declare(&format!(
                    "vec4 {name}_last_f; // `{name}_last` as floats (exact: at most a texture side)"
                ));
                self.setup
                    .push_str(&format!("    {name}_last_f = vec4({name}_last);\n"));
                format!("brook_gather_clamp(r{used}, {name}_last_f{used})")
            }
            Placement::Translated(_) => format!(
                "min(brook_gather_clamp(r{used}, {float_t}({GATHER_FLOAT_BOUND})), {name}_last{used})"
            ),
        };
        let zeros = ", 0".repeat(4 - r);
        let padded = |clamp: String| {
            if r == 4 {
                clamp
            } else {
                format!("ivec4({clamp}{zeros})")
            }
        };
        let texel = self.texel_of(param, name, "index", domain, placement);
        let value = self.fetch_element(module, param, ty, name, &texel)?;
        let (t, element, gather) = (
            glsl_type(module, ty),
            element_function(name),
            gather_function(name),
        );
        self.accessors.push_str(&format!(
            "// Element `index` of `{name}`, in range: its texel.\n{t} {element}(ivec4 index) {{\n    return {value};\n}}\n\
             // Gather from `{name}`: Brook's clamp of an int index, or of a float one already rounded.\n\
             {t} {gather}(ivec4 i) {{ return {element}({}); }}\n\
             {t} {gather}(vec4 r) {{ return {element}({}); }}\n",
            padded(int_clamp),
            padded(float_clamp),
        ));
        Ok(())
    }

    /// The complete shader of one pass of `func`: `title` is its first comment, `body` the
    /// statements of `main` before the stores, `written` the output members this pass stores
    /// (named after parameters of `func`, holding the values of the GLSL variables of the
    /// same names). With `loop_status`, the pass also writes `brook_loop_cut` (see
    /// [`PassProgram::loop_status`]).
    #[allow(clippy::too_many_arguments)]
    pub fn pass(
        &self,
        module: &Module,
        target: &Target,
        title: &str,
        func: &Function,
        functions: &str,
        body: &str,
        written: &[(MemberRef, u8)],
        loop_status: bool,
    ) -> Result<PassProgram, GenError> {
        let mut outputs = String::new();
        let mut stores = String::new();
        for (location, (slot, width)) in written.iter().enumerate() {
            let (value, out) = stored_member(module, func, *slot)?;
            // float3 lives in an RGBA texture (RGB32F is not colour-renderable).
            let storage = ["float", "vec2", "vec4", "vec4"][*width as usize - 1];
            outputs.push_str(&output_declaration(location, storage, &out));
            let value = if *width == 3 {
                format!("vec4({value}, 0.0)")
            } else {
                value
            };
            stores.push_str(&format!("    {out} = {value};\n"));
        }
        let loop_status = loop_status.then_some(written.len() as u32);
        if let Some(location) = loop_status {
            outputs.push_str(&output_declaration(
                location as usize,
                "float",
                "brook_status_out",
            ));
            stores.push_str("    brook_status_out = float(brook_loop_cut);\n");
        }
        let body = format!("{body}{stores}");
        Ok(PassProgram {
            fragment: self.text(target.profile, title, &outputs, functions, &body),
            outputs: written.iter().map(|(m, _)| *m).collect(),
            samplers: self.samplers.clone(),
            uniforms: self.uniforms.clone(),
            loop_status,
        })
    }
}

/// `layout(location = k) out T name;`: colour output `k`.
pub fn output_declaration(location: usize, storage: &str, name: &str) -> String {
    format!("layout(location = {location}) out {storage} {name};\n")
}

/// The GLSL value output member `slot` of `func` stores, and the name of its output: a
/// member of an `out` parameter, or a candidate or the count of a vout (`vout.rs`).
fn stored_member(
    module: &Module,
    func: &Function,
    slot: MemberRef,
) -> Result<(String, String), GenError> {
    let p = &func.params[slot.param as usize];
    let members = stream_members(module, &p.ty)?;
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
