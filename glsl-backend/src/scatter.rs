//! `streamScatterOp` as point rendering (000 §5.5): one point per scattered element, placed by
//! the vertex shader on the destination texel its index selects, coloured by the fragment
//! shader with the element's value.
//!
//! The vertex shader fetches the index itself (no read-back): element `e` reads its index,
//! applies Brook's gather rule (`brook_gather_index`: `floor(v + 0.25)`, clamped) and the
//! destination's address translation (`brook_texel`). With an order stream, point `k` scatters
//! element `order[k]` instead of element `k`, so a host-planned subset can be drawn in any
//! order. The fragment shader either writes the element (replace, or add/min/max through
//! fixed-function blending), or combines it with the destination's old value through a user
//! `reduce` function, reading the old value from a copy of the destination.
//!
//! GatherOp (`generate_gather_fetch`) reuses the same vertex shader with the other placement:
//! each point lands on its own element of the fetched-into stream and reads the data texel
//! its index selects.
//!
//! Parameters are numbered as in [`MemberRef`]: the reduce function's own parameters, then
//! the index and order streams ([`ScatterRoles`]).

use brook_core::budget::refuse_over_budget;
use brook_ir::{FunctionId, FunctionKind, Module, ParamClass};

use crate::builder::{ShaderBuilder, Stage};
use crate::error::GenError;
use crate::loops::refuse_uncheckable_loops;
use crate::members::member_slots;
use crate::names::glsl_name;
use crate::pass::{MemberRef, PassProgram, UniformValue};
use crate::prelude::Helper;
use crate::shader::{call_text, lowered_functions, output_chunks, output_declaration};
use crate::source::SourceText;
use crate::types::glsl_type;
use crate::variant::{Profile, Target};

/// The parameter numbers a scatter's shaders use for their streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScatterRoles {
    /// The scattered elements.
    pub data: u32,
    /// The destination's old values (a copy of it), read by a user combiner.
    pub old: Option<u32>,
    /// The index stream: where each element goes.
    pub index: u32,
    /// The order stream: the element point `k` scatters (a host-planned round of a
    /// colliding scatter, in any order).
    pub order: u32,
}

/// A scatter's vertex shader and its fragment passes (several when the element has more
/// members than one pass writes).
#[derive(Debug, Clone, PartialEq)]
pub struct ScatterProgram {
    /// The vertex shader placing each point at its destination texel.
    pub vertex: String,
    /// Which parameter numbers the shaders use for which stream.
    pub roles: ScatterRoles,
    /// The fragment passes, each writing a group of the element's members.
    pub passes: Vec<PassProgram>,
}

/// Where a point lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placement {
    /// ScatterOp: on the destination texel the element's index selects.
    AtIndex,
    /// GatherOp's fetch: on the element's own texel of the output, carrying (as
    /// `brook_source`) the texel of the data stream its index selects.
    Fetch,
}

/// The vertex shader placing point `gl_VertexID` (of element `order[gl_VertexID]` when
/// `ordered`) as `placement` says; with the slots it adds to every pass. The `carried` data
/// members are fetched here, once per point, and handed to the fragment shader as flat
/// `brook_value{member}`: on a rasteriser that shades each one-texel point as a block of
/// fragments (llvmpipe), a fetch in the fragment shader costs a block's worth.
fn vertex(
    profile: Profile,
    roles: ScatterRoles,
    ordered: bool,
    placement: Placement,
    carried: &[MemberRef],
) -> (String, ShaderBuilder<'static>) {
    let mut v = ShaderBuilder::new(Stage::Vertex, None);
    v.prelude.require(Helper::Addressing);
    v.prelude.require(Helper::GatherIndex);
    let member = |param: u32| MemberRef { param, member: 0 };
    v.sampler("brook_index_tex", member(roles.index), "the index stream");
    let width = |p: u32| UniformValue::Width(p);
    v.uniform(
        "int",
        "brook_index_width",
        width(roles.index),
        "its texture width",
    );
    let dst = "the destination (the stream points land on)";
    v.uniform(
        "ivec4",
        "brook_dst_extent",
        UniformValue::OutputExtent,
        &format!("shape of {dst}"),
    );
    v.uniform(
        "int",
        "brook_dst_width",
        UniformValue::OutputWidth,
        "its texture width",
    );
    v.uniform(
        "vec2",
        "brook_dst_size",
        UniformValue::OutputSize,
        "its texture size",
    );
    if placement == Placement::Fetch {
        let extent = UniformValue::Extent(roles.data);
        v.uniform(
            "ivec4",
            "brook_data_extent",
            extent,
            "shape of the data stream",
        );
    }
    if placement == Placement::Fetch || !carried.is_empty() {
        v.uniform(
            "int",
            "brook_data_width",
            width(roles.data),
            "its texture width",
        );
    }
    let mut varyings = String::from("flat out highp int brook_element;\n");
    let mut carry = String::new();
    if !carried.is_empty() {
        carry.push_str("    ivec2 brook_data_texel = brook_texel_at(e, brook_data_width);\n");
    }
    for m in carried {
        let sampler = data_sampler(m);
        v.sampler(&sampler, *m, "");
        varyings.push_str(&format!("flat out highp vec4 brook_value{};\n", m.member));
        carry.push_str(&format!(
            "    brook_value{} = texelFetch({sampler}, brook_data_texel, 0);\n",
            m.member
        ));
    }
    let element = if ordered {
        v.sampler(
            "brook_order_tex",
            member(roles.order),
            "the elements in round order",
        );
        v.uniform(
            "int",
            "brook_order_width",
            width(roles.order),
            "its texture width",
        );
        "int(texelFetch(brook_order_tex, brook_texel_at(gl_VertexID, brook_order_width), 0).x)"
    } else {
        "gl_VertexID"
    };
    let place = match placement {
        Placement::AtIndex => "    ivec2 t = brook_texel(brook_gather_index(v, brook_dst_extent), brook_dst_extent, brook_dst_width);\n".to_string(),
        Placement::Fetch => {
            varyings.push_str("flat out highp ivec2 brook_source;\n");
            "    brook_source = brook_texel(brook_gather_index(v, brook_data_extent), brook_data_extent, brook_data_width);\n    ivec2 t = brook_texel_at(e, brook_dst_width);\n".to_string()
        }
    };
    let title = match placement {
        Placement::AtIndex => "Brook ScatterOp: one point per scattered element, on the destination texel its index selects.",
        Placement::Fetch => "Brook GatherOp: one point per fetching element, on its own texel, carrying the data texel its index selects.",
    };
    let body = format!(
        "    int e = {element};
    vec4 v = texelFetch(brook_index_tex, brook_texel_at(e, brook_index_width), 0);
{place}    gl_Position = vec4((vec2(t) + 0.5) / brook_dst_size * 2.0 - 1.0, 0.0, 1.0);
    gl_PointSize = 1.0;
    brook_element = e;
{carry}"
    );
    (v.text(profile, title, &varyings, "", &body), v)
}

/// The texel of the element a point scatters, in the fragment shader.
const DATA_TEXEL: &str = "brook_texel_at(brook_element, brook_data_width)";

/// The most data members a write scatter carries from the vertex to the fragment shader (flat
/// `vec4`s: GL 3.3 and ES 3.0 guarantee 16 vertex outputs); wider elements are fetched by
/// the fragment shader.
const MAX_CARRIED: usize = 8;

fn data_sampler(m: &MemberRef) -> String {
    format!("brook_data_tex{}", m.member)
}

/// A scatter whose fragments write the element itself (replace, or a blended combiner):
/// `widths` are the element's member widths. Roles: data 0, index 1, order 2.
pub fn generate_scatter_write(target: &Target, widths: &[u8], ordered: bool) -> ScatterProgram {
    copy_program(target, widths, ordered, Placement::AtIndex)
}

/// GatherOp's fetch (`dst[e] = data[index[e]]` for the points drawn): one point per element
/// `e` on `dst`'s texel of `e`, coloured with the data element its index selects (gather
/// rule, address translation of `data`). The output is `dst`; roles: data 0, index 1, order 2
/// (points are drawn ordered, round by round).
pub fn generate_gather_fetch(target: &Target, widths: &[u8]) -> ScatterProgram {
    copy_program(target, widths, true, Placement::Fetch)
}

/// Points whose fragments copy a data element of member widths `widths`: element
/// `brook_element` (AtIndex; carried from the vertex shader when it has at most
/// [`MAX_CARRIED`] members) or the texel `brook_source` (Fetch).
fn copy_program(
    target: &Target,
    widths: &[u8],
    ordered: bool,
    placement: Placement,
) -> ScatterProgram {
    let roles = ScatterRoles {
        data: 0,
        old: None,
        index: 1,
        order: 2,
    };
    let members: Vec<(MemberRef, u8)> = widths
        .iter()
        .enumerate()
        .map(|(m, w)| {
            let member = MemberRef {
                param: roles.data,
                member: m as u32,
            };
            (member, *w)
        })
        .collect();
    let carried: Vec<MemberRef> = if placement == Placement::AtIndex && members.len() <= MAX_CARRIED
    {
        members.iter().map(|(m, _)| *m).collect()
    } else {
        Vec::new()
    };
    let (vertex_text, vertex) = vertex(target.profile, roles, ordered, placement, &carried);
    let passes = output_chunks(&members, target)
        .into_iter()
        .map(|written| {
            let mut f = ShaderBuilder::new(Stage::Fragment, None)
                .after(&vertex.samplers, &vertex.uniforms);
            let texel = match placement {
                Placement::AtIndex if !carried.is_empty() => "",
                Placement::AtIndex => {
                    f.declare("flat in highp int brook_element;");
                    let width = UniformValue::Width(roles.data);
                    f.uniform("int", "brook_data_width", width, "texture width of the data stream");
                    f.prelude.require(Helper::Layout);
                    DATA_TEXEL
                }
                Placement::Fetch => {
                    f.declare("flat in highp ivec2 brook_source;");
                    "brook_source"
                }
            };
            let mut outputs = String::new();
            let mut body = String::new();
            for (location, (m, _)) in written.iter().enumerate() {
                outputs.push_str(&output_declaration(location, "vec4", &format!("brook_out{location}")));
                if carried.is_empty() {
                    let sampler = data_sampler(m);
                    f.sampler(&sampler, *m, "");
                    body.push_str(&format!(
                        "    brook_out{location} = texelFetch({sampler}, {texel}, 0);\n"
                    ));
                } else {
                    f.declare(&format!("flat in highp vec4 brook_value{};", m.member));
                    body.push_str(&format!("    brook_out{location} = brook_value{};\n", m.member));
                }
            }
            let title = match placement {
                Placement::AtIndex => "Brook ScatterOp: the scattered element's members, written where its point landed.",
                Placement::Fetch => "Brook GatherOp: the fetched data element's members, written at the fetching element.",
            };
            PassProgram {
                fragment: f.text(target.profile, title, &outputs, "", &body),
                outputs: written.iter().map(|(m, _)| *m).collect(),
                samplers: f.samplers,
                uniforms: f.uniforms,
                loop_status: None,
            }
        })
        .collect();
    ScatterProgram {
        vertex: vertex_text,
        roles,
        passes,
    }
}

/// A scatter combining through the user reduction `reduce_fn` (no parameters besides its
/// input and accumulator): each fragment computes `f(a = element, r = old destination)` and
/// writes `r`. Points are drawn ordered, in conflict-free rounds planned by the caller.
pub fn generate_scatter_reduce(
    module: &Module,
    reduce_fn: FunctionId,
    target: &Target,
    source: Option<&SourceText>,
) -> Result<ScatterProgram, GenError> {
    let func = module.func(reduce_fn);
    if func.kind != FunctionKind::Reduce {
        return Err(GenError::NotAReduction(func.name.clone()));
    }
    let find = |class: ParamClass| func.params.iter().position(|p| p.class == class);
    let (Some(a), Some(r), 2) = (
        find(ParamClass::Stream),
        find(ParamClass::Reduce),
        func.params.len(),
    ) else {
        return Err(GenError::Unsupported(format!(
            "streamScatterOp with `{}`: the combiner must be `reduce void {}(T a<>, reduce T r<>)` with no other parameters",
            func.name, func.name
        )));
    };
    let n = func.params.len() as u32;
    let roles = ScatterRoles {
        data: a as u32,
        old: Some(r as u32),
        index: n,
        order: n + 1,
    };
    let (vertex_text, vertex) = vertex(target.profile, roles, true, Placement::AtIndex, &[]);
    let mut parts =
        ShaderBuilder::new(Stage::Fragment, Some(module)).after(&vertex.samplers, &vertex.uniforms);
    refuse_over_budget(module, reduce_fn)?;
    refuse_uncheckable_loops(module, reduce_fn, 1, target)?;
    let functions = lowered_functions(
        module,
        reduce_fn,
        &mut parts.prelude,
        source,
        (false, target.math),
    )?;
    parts.declare("flat in highp int brook_element;");
    parts.prelude.require(Helper::Layout);
    parts.uniform(
        "int",
        "brook_data_width",
        UniformValue::Width(roles.data),
        "texture width of the scattered stream",
    );
    let (an, rn) = (
        glsl_name(&func.params[a].name),
        glsl_name(&func.params[r].name),
    );
    let ty = &func.params[a].ty;
    let element = parts.fetch_element(module, roles.data, ty, &an, DATA_TEXEL)?;
    let old = parts.fetch_element(module, r as u32, ty, &rn, "brook_fragment")?;
    let glsl_ty = glsl_type(module, ty);
    let body = format!(
        "    // The scattered element and the destination's value before this round.\n    {glsl_ty} {an} = {element};\n    {glsl_ty} {rn} = {old};\n    {}\n",
        call_text(func)
    );
    let outputs = member_slots(module, func, ParamClass::Reduce)?;
    let chunks = output_chunks(&outputs, target);
    let passes = chunks
        .iter()
        .enumerate()
        .map(|(i, written)| {
            let title = format!(
                "Brook ScatterOp with `{}`: the element combined with the destination's old value, output {} of {}.",
                func.name,
                i + 1,
                chunks.len()
            );
            parts.pass(module, target, &title, func, &functions, &body, written, false)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ScatterProgram {
        vertex: vertex_text,
        roles,
        passes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vertex_shader_fetches_the_index_and_translates_it() {
        let target = Target {
            profile: Profile::Gl33Core,
            max_draw_buffers: 1,
            loop_cap: None,
            math: brook_ir::MathMode::Accurate,
        };
        let p = generate_scatter_write(&target, &[1, 3], false);
        assert!(p.vertex.contains("brook_gather_index(v, brook_dst_extent)"));
        assert!(p.vertex.contains("int e = gl_VertexID;"));
        // Two members, one draw buffer: two passes, each writing one member.
        assert_eq!(p.passes.len(), 2);
        assert_eq!(
            p.passes[1].outputs,
            vec![MemberRef {
                param: 0,
                member: 1
            }]
        );
        let ordered = generate_scatter_write(&target, &[4], true);
        assert!(ordered.vertex.contains("texelFetch(brook_order_tex"));
    }

    #[test]
    fn a_write_scatter_fetches_the_element_in_the_vertex_shader() {
        let target = Target {
            profile: Profile::Gl33Core,
            max_draw_buffers: 8,
            loop_cap: None,
            math: brook_ir::MathMode::Accurate,
        };
        let p = generate_scatter_write(&target, &[1, 3], false);
        assert!(p
            .vertex
            .contains("brook_value1 = texelFetch(brook_data_tex1, brook_data_texel, 0);"));
        let fragment = &p.passes[0].fragment;
        assert!(
            fragment.contains("brook_out1 = brook_value1;"),
            "{fragment}"
        );
        assert!(!fragment.contains("texelFetch"), "{fragment}");
        // Elements wider than the carried limit are fetched per fragment.
        let wide = generate_scatter_write(&target, &[4; MAX_CARRIED + 1], false);
        assert!(!wide.vertex.contains("brook_value"));
        assert!(wide.passes[0]
            .fragment
            .contains("texelFetch(brook_data_tex0"));
    }

    #[test]
    fn a_fetch_lands_on_its_own_texel_and_reads_the_indexed_data_texel() {
        let target = Target {
            profile: Profile::Gl33Core,
            max_draw_buffers: 8,
            loop_cap: None,
            math: brook_ir::MathMode::Accurate,
        };
        let p = generate_gather_fetch(&target, &[4]);
        assert!(p
            .vertex
            .contains("brook_gather_index(v, brook_data_extent)"));
        assert!(p
            .vertex
            .contains("ivec2 t = brook_texel_at(e, brook_dst_width);"));
        assert!(p.passes[0]
            .fragment
            .contains("texelFetch(brook_data_tex0, brook_source, 0)"));
    }

    #[test]
    fn a_reduction_with_extra_parameters_is_refused() {
        let module = brook_frontend::compile(
            "reduce void f(float a<>, reduce float r<>, float k) { r = r + a * k; }",
            "t.br",
        )
        .unwrap();
        let (id, _) = module.function("f").unwrap();
        let target = Target {
            profile: Profile::Gl33Core,
            max_draw_buffers: 8,
            loop_cap: None,
            math: brook_ir::MathMode::Accurate,
        };
        let err = generate_scatter_reduce(&module, id, &target, None).unwrap_err();
        assert!(err.to_string().contains("no other parameters"), "{err}");
    }
}
