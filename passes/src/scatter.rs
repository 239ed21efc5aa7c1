//! `streamScatterOp(dst, index, data, op)` on GL by point rendering (000 §5.5); the shaders are
//! `brook_glsl::generate_scatter_*`.
//!
//! - Replace: one draw of all points in index order, no blending. GL applies the fragments of
//!   one draw to the framebuffer in primitive order, so the last element in index order wins.
//! - Add, min, max: the same draw with fixed-function blending (`FUNC_ADD` with `ONE, ONE`;
//!   `MIN`; `MAX`) into the float texture, which is exact in `f32` and applied in primitive
//!   order, so collisions add in index order as on the CPU. ES 3.0 blends float targets only
//!   with `GL_EXT_float_blend`; without it these combiners are an error.
//! - A user `reduce` function: a shader cannot read the texture it draws into, so points are
//!   drawn in conflict-free rounds: round `k` holds the `k`-th element (in index order) aimed
//!   at each destination element, and reads the destination's values from a copy made before
//!   the round. The rounds are planned on the host from the index stream (read back once,
//!   the one read-back of this path), with the gather rule of the CPU backend; the element
//!   order of each round goes to the GPU as a float stream (exact up to 2^24 elements).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use brook_core::index::gather_component_f;
use brook_frontend::ir::FunctionId;
use brook_glsl::{
    generate_gather_fetch, generate_scatter_reduce, generate_scatter_write, ScatterProgram,
    ScatterRoles, UniformValue,
};
use brook_texture_streams::{ElementFormat, Stream};
use glow::HasContext;

use crate::draw::bind_pass;
use crate::error::PassError;
use crate::linked::LinkedPass;
use crate::runner::{call_error, texture, KernelModule, KernelRunner};
use crate::uniforms::{extent_vector, UniformData};

/// How scattered elements combine with the destination.
#[derive(Clone, Copy)]
pub enum ScatterWith<'a> {
    Replace,
    Add,
    Min,
    Max,
    /// A user `reduce void f(T a<>, reduce T r<>)`; `a` is the element, `r` the destination.
    Reduce(&'a KernelModule, FunctionId),
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum ProgramKey {
    /// The element written (blended or not), drawn ordered or not.
    Write(Vec<u8>, bool),
    Fetch(Vec<u8>),
    Reduce(u64, FunctionId),
}

/// A linked scatter: its passes and the parameter numbers its shaders use.
pub(crate) struct LinkedScatter {
    roles: ScatterRoles,
    passes: Vec<LinkedPass>,
}

/// The scatter programs of one context.
#[derive(Default)]
pub(crate) struct ScatterCache {
    programs: RefCell<HashMap<ProgramKey, Rc<LinkedScatter>>>,
}

impl ScatterCache {
    pub fn compiled(&self) -> usize {
        self.programs.borrow().len()
    }
}

/// How points combine into a destination: the linked programs, the blend equation of a
/// built-in combiner, and the copy of the destination a user reduction reads.
pub(crate) struct Combiner {
    linked: Rc<LinkedScatter>,
    blend: Option<u32>,
    old: Option<Stream>,
}

/// Largest element count whose positions a float order stream holds exactly.
const MAX_ORDERED: usize = 1 << 24;

impl KernelRunner {
    /// `streamScatterOp(dst, index, data, op)`: for every element `i` of `data`, in index
    /// order, `dst[index[i]] = op(data[i], dst[index[i]])`. `index` has one `float`..`float4`
    /// per element of `data`, one component per dimension of `dst` (`.x` the column),
    /// rounded and clamped by the gather rule.
    pub fn scatter(
        &self,
        dst: &Stream,
        index: &Stream,
        data: &Stream,
        op: ScatterWith,
    ) -> Result<(), PassError> {
        let fail = |m: String| call_error("streamScatterOp", m);
        check_indexed(dst, index, data).map_err(fail)?;
        if std::ptr::eq(dst, data) || std::ptr::eq(dst, index) {
            return Err(fail(
                "the destination cannot also be the index or the data stream".into(),
            ));
        }
        self.ctx.make_current()?;
        let n = data.layout().len();
        if let ScatterWith::Reduce(..) = op {
            let combiner = self.combiner("streamScatterOp", op, dst, true)?;
            let (order, rounds) = self.plan_rounds("streamScatterOp", dst, index)?;
            let mut first = 0;
            for (k, count) in rounds.into_iter().enumerate() {
                let streams = Streams {
                    dst,
                    index,
                    data,
                    old: None,
                    order: Some(&order),
                };
                self.combine(&combiner, &streams, k > 0, first, count)?;
                first += count;
            }
        } else {
            let combiner = self.combiner("streamScatterOp", op, dst, false)?;
            let streams = Streams {
                dst,
                index,
                data,
                old: None,
                order: None,
            };
            self.combine(&combiner, &streams, false, 0, n)?;
        }
        self.ctx.check_error("scattering")?;
        Ok(())
    }

    /// The programs (and the copy of `dst` a user reduction reads) that combine scattered
    /// elements into `dst` with `op`; `ordered` when the points are drawn in planned rounds.
    pub(crate) fn combiner(
        &self,
        call: &'static str,
        op: ScatterWith,
        dst: &Stream,
        ordered: bool,
    ) -> Result<Combiner, PassError> {
        let widths = member_widths(dst);
        let (linked, blend, old) = match op {
            ScatterWith::Reduce(module, f) => {
                let linked = self.scatter_program(ProgramKey::Reduce(module.id, f), || {
                    generate_scatter_reduce(module.module(), f, &self.target, module.source())
                })?;
                (linked, None, Some(dst.duplicate()?))
            }
            _ => {
                let blend = match op {
                    ScatterWith::Add => Some(glow::FUNC_ADD),
                    ScatterWith::Min => Some(glow::MIN),
                    ScatterWith::Max => Some(glow::MAX),
                    _ => None,
                };
                if blend.is_some() && !self.float_blending() {
                    return Err(call_error(call,
                        "this GL (ES 3.0 without GL_EXT_float_blend) cannot blend float streams; add, min and max need it".into(),
                    ));
                }
                let linked = self
                    .scatter_program(ProgramKey::Write(widths.clone(), ordered), || {
                        Ok(generate_scatter_write(&self.target, &widths, ordered))
                    })?;
                (linked, blend, None)
            }
        };
        Ok(Combiner { linked, blend, old })
    }

    /// Draws points `first..first + count` of `s` combined into `s.dst` through `c`
    /// (`s.old` is ignored: the combiner's own copy is used); `refresh` copies `s.dst` into
    /// that copy first (every round after the one it was made for).
    pub(crate) fn combine(
        &self,
        c: &Combiner,
        s: &Streams,
        refresh: bool,
        first: usize,
        count: usize,
    ) -> Result<(), PassError> {
        if let (Some(old), true) = (&c.old, refresh) {
            for (copy, t) in old.textures().iter().zip(s.dst.textures()) {
                copy.copy_from(t)?;
            }
        }
        let streams = Streams {
            old: c.old.as_ref(),
            ..*s
        };
        let gl = self.ctx.gl();
        if let Some(equation) = c.blend {
            // SAFETY: the context is current.
            unsafe {
                gl.enable(glow::BLEND);
                gl.blend_equation(equation);
                gl.blend_func(glow::ONE, glow::ONE);
            }
        }
        let drawn = self.draw_points(&c.linked, &streams, first, count);
        if c.blend.is_some() {
            // SAFETY: as above; every other pass draws unblended.
            unsafe { gl.disable(glow::BLEND) };
        }
        drawn
    }

    /// GatherOp's fetch program for elements of member widths `widths`.
    pub(crate) fn fetch_program(&self, widths: &[u8]) -> Result<Rc<LinkedScatter>, PassError> {
        self.scatter_program(ProgramKey::Fetch(widths.to_vec()), || {
            Ok(generate_gather_fetch(&self.target, widths))
        })
    }

    fn float_blending(&self) -> bool {
        self.ctx.profile() == brook_texture_streams::Profile::Gl33Core
            || self
                .ctx
                .gl()
                .supported_extensions()
                .contains("GL_EXT_float_blend")
    }

    fn scatter_program(
        &self,
        key: ProgramKey,
        generate: impl FnOnce() -> Result<ScatterProgram, brook_glsl::GenError>,
    ) -> Result<Rc<LinkedScatter>, PassError> {
        if let Some(p) = self.scatters.programs.borrow().get(&key) {
            return Ok(p.clone());
        }
        let program = generate()?;
        let passes = program
            .passes
            .into_iter()
            .map(|plan| LinkedPass::link(&self.ctx, "streamScatterOp", &program.vertex, plan))
            .collect::<Result<_, _>>()?;
        let linked = Rc::new(LinkedScatter {
            roles: program.roles,
            passes,
        });
        self.scatters
            .programs
            .borrow_mut()
            .insert(key, linked.clone());
        Ok(linked)
    }

    /// The element order of the conflict-free rounds (a float stream of element positions,
    /// round by round, index order within a round) and each round's element count.
    pub(crate) fn plan_rounds(
        &self,
        call: &'static str,
        dst: &Stream,
        index: &Stream,
    ) -> Result<(Stream, Vec<usize>), PassError> {
        let n = index.layout().len();
        if n > MAX_ORDERED {
            return Err(call_error(
                call,
                format!("conflict-free rounds order at most {MAX_ORDERED} elements, not {n}"),
            ));
        }
        let shape = dst.layout().shape();
        let rank = shape.len();
        let mut host = vec![0.0; index.layout().len() * rank];
        index.write(&mut host)?;
        let mut hits: HashMap<usize, usize> = HashMap::new();
        let mut round_of = Vec::with_capacity(host.len() / rank);
        for v in host.chunks(rank) {
            let target = (0..rank).fold(0, |lin, d| {
                lin * shape[d] + gather_component_f(v[rank - 1 - d], shape[d])
            });
            let k = hits.entry(target).or_insert(0);
            round_of.push(*k);
            *k += 1;
        }
        let mut rounds = vec![0usize; hits.values().max().copied().unwrap_or(0)];
        for &k in &round_of {
            rounds[k] += 1;
        }
        let mut next: Vec<usize> = rounds
            .iter()
            .scan(0, |start, &c| {
                let s = *start;
                *start += c;
                Some(s)
            })
            .collect();
        let mut order = vec![0.0f32; round_of.len()];
        for (e, &k) in round_of.iter().enumerate() {
            order[next[k]] = e as f32;
            next[k] += 1;
        }
        let mut stream = Stream::new(&self.ctx, ElementFormat::scalar(1)?, &[order.len()])?;
        stream.read(&order)?;
        Ok((stream, rounds))
    }

    /// Draws points `first..first + count` of `linked`'s passes into `dst`.
    pub(crate) fn draw_points(
        &self,
        linked: &LinkedScatter,
        s: &Streams,
        first: usize,
        count: usize,
    ) -> Result<(), PassError> {
        let roles = linked.roles;
        let layout = s.dst.layout();
        let stream_of = |param: u32| -> Result<&Stream, String> {
            if param == roles.data {
                Ok(s.data)
            } else if param == roles.index {
                Ok(s.index)
            } else if Some(param) == roles.old {
                s.old
                    .ok_or_else(|| "no copy of the destination".to_string())
            } else if param == roles.order {
                s.order.ok_or_else(|| "no round order".to_string())
            } else {
                Err(format!("a scatter shader has no parameter {param}"))
            }
        };
        for pass in &linked.passes {
            let targets = pass
                .plan
                .outputs
                .iter()
                .map(|m| texture(s.dst, m.member))
                .collect::<Result<Vec<_>, _>>();
            let inputs = pass
                .plan
                .samplers
                .iter()
                .map(|slot| {
                    stream_of(slot.source.param).and_then(|st| texture(st, slot.source.member))
                })
                .collect::<Result<Vec<_>, _>>();
            let (targets, inputs) = (
                targets.map_err(|m| call_error("streamScatterOp", m))?,
                inputs.map_err(|m| call_error("streamScatterOp", m))?,
            );
            let viewport = [0, 0, layout.width() as i32, layout.height() as i32];
            bind_pass(
                &self.ctx,
                "streamScatterOp",
                pass,
                &targets,
                viewport,
                &inputs,
                |value| match value {
                    UniformValue::Width(p) => Ok(UniformData::Ints(vec![stream_of(p)?
                        .layout()
                        .width()
                        as i32])),
                    UniformValue::Extent(p) => Ok(UniformData::Ints(
                        extent_vector(stream_of(p)?.layout().shape()).to_vec(),
                    )),
                    UniformValue::OutputExtent => {
                        Ok(UniformData::Ints(extent_vector(layout.shape()).to_vec()))
                    }
                    UniformValue::OutputWidth => Ok(UniformData::Ints(vec![layout.width() as i32])),
                    UniformValue::OutputSize => Ok(UniformData::Floats(vec![
                        layout.width() as f32,
                        layout.height() as f32,
                    ])),
                    other => Err(format!("a scatter shader has no uniform {other:?}")),
                },
                None,
            )?;
            // SAFETY: the context is current; the VAO is its own and has no attributes (each
            // point finds its element from gl_VertexID).
            unsafe {
                let gl = self.ctx.gl();
                gl.bind_vertex_array(Some(self.ctx.fullscreen_vao()));
                gl.draw_arrays(glow::POINTS, first as i32, count as i32);
            }
        }
        Ok(())
    }
}

/// The streams one scatter draw reads and writes.
#[derive(Clone, Copy)]
pub(crate) struct Streams<'a> {
    pub dst: &'a Stream,
    pub index: &'a Stream,
    pub data: &'a Stream,
    pub old: Option<&'a Stream>,
    pub order: Option<&'a Stream>,
}

/// The member widths of a stream's elements.
pub(crate) fn member_widths(s: &Stream) -> Vec<u8> {
    s.format().members().iter().map(|m| m.components).collect()
}

/// The shapes and formats of a ScatterOp or GatherOp: an index per element of `elements`, with
/// one component per dimension of `addressed`; both of one element layout.
pub(crate) fn check_indexed(
    addressed: &Stream,
    index: &Stream,
    elements: &Stream,
) -> Result<(), String> {
    let rank = addressed.layout().rank();
    if member_widths(index) != [rank as u8] {
        return Err(format!(
            "the index stream must have one float per dimension of the indexed stream {:?} (float{rank}), but its elements have widths {:?}",
            addressed.layout().shape(),
            member_widths(index)
        ));
    }
    if index.layout().len() != elements.layout().len() {
        return Err(format!(
            "the index stream {:?} and the element stream {:?} must have one element each",
            index.layout().shape(),
            elements.layout().shape()
        ));
    }
    if member_widths(addressed) != member_widths(elements) {
        return Err(format!(
            "the elements ({:?}) and the indexed stream ({:?}) must have the same member widths",
            member_widths(elements),
            member_widths(addressed)
        ));
    }
    Ok(())
}
