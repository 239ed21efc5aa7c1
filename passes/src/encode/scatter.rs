//! `streamScatterOp` and `streamGatherOp` on GL by point rendering (000 §5.5); the shaders are
//! brook-glsl's `generate_scatter_*` and `generate_gather_fetch`.
//!
//! - Replace: one draw of all points in index order, no blending. GL applies the fragments of
//!   one draw to the framebuffer in primitive order, so the last element in index order wins.
//! - Add, min, max: the same draw with fixed-function blending (`FUNC_ADD` with `ONE, ONE`;
//!   `MIN`; `MAX`) into the float texture, exact in `f32` and applied in primitive order, so
//!   collisions add in index order as on the CPU. ES 3.0 blends float targets only with
//!   `GL_EXT_float_blend`; without it these combiners are refused.
//! - A user `reduce` function: a shader cannot read the texture it draws into, so points are
//!   drawn in conflict-free rounds (brook-core's `Rounds`, planned from the index stream read
//!   back once), each reading the destination's values from a copy made just before it. The
//!   element order of the rounds goes to the GPU as a float stream (exact up to 2^24).
//!
//! GatherOp is a fetch-and-op: per round, a fetch draw (each point lands on its own element of
//! `dst` and copies the data texel its index selects), then an update draw scattering the
//! operand into `data` through the same combiners: a stream of the constant operand, or `dst`
//! itself, which the fetch has just filled with the elements to combine with themselves. An
//! element therefore sees the updates of every earlier element hitting the same place, as the
//! CPU's sequential loop does.

use std::rc::Rc;

use brook_core::{Blend, Combiner, Operand, Rounds, ScatterInputs, UniformData};
use brook_glsl::UniformValue;
use brook_texture_streams::{ElementFormat, Profile, Stream};
use glow::HasContext;

use crate::encode::{textures_of, Encoder};
use crate::error::{call_error, PassError};
use crate::programs::{both, GlProgram, Linked, LinkedScatter};
use crate::step::{Pass, Primitive, Step};
use crate::uniforms::{extent_vector, uniforms_of};

/// Largest element count whose positions a float order stream holds exactly.
const MAX_ORDERED: usize = 1 << 24;

/// How points combine into a destination: the linked programs, the blend of a built-in
/// combiner, and the copy of the destination a user reduction reads.
pub struct PointCombiner {
    linked: Rc<LinkedScatter>,
    blend: Option<Blend>,
    /// How long linking the programs took, if this call did.
    pub compiled: Linked,
    old: Option<Stream>,
}

impl PointCombiner {
    /// The combiner of `op` into `dst`; `ordered` when the points are drawn in planned rounds.
    pub fn new(
        enc: &Encoder,
        call: &'static str,
        op: &Combiner,
        dst: &Stream,
        ordered: bool,
    ) -> Result<PointCombiner, PassError> {
        if let Combiner::Reduce {
            program, function, ..
        } = op
        {
            let program = program.downcast_ref::<GlProgram>().ok_or_else(|| {
                call_error(
                    call,
                    "the combiner's program was compiled for another runtime".into(),
                )
            })?;
            let (linked, compiled) = program.combiner(enc.ctx, &enc.target, *function)?;
            let old = Stream::new(dst.context(), dst.format().clone(), dst.layout().shape())?;
            return Ok(PointCombiner {
                linked,
                blend: None,
                compiled,
                old: Some(old),
            });
        }
        let blend = match op {
            Combiner::Add => Some(Blend::Add),
            Combiner::Min => Some(Blend::Min),
            Combiner::Max => Some(Blend::Max),
            _ => None,
        };
        if blend.is_some() && !float_blending(enc) {
            return Err(PassError::Unsupported {
                call: call.into(),
                message: "this GL (ES 3.0 without GL_EXT_float_blend) cannot blend float streams; add, min and max need it".into(),
            });
        }
        let (linked, compiled) =
            enc.builtins
                .scatter_write(enc.ctx, &enc.target, &dst.format().widths(), ordered)?;
        Ok(PointCombiner {
            linked,
            blend,
            compiled,
            old: None,
        })
    }

    /// Points `first..first + count` of `s` combined into `s.dst`: for a user reduction the
    /// destination is copied first, and the copy is what its shader reads.
    fn encode<'s>(
        &'s self,
        enc: &Encoder,
        s: &Streams<'s>,
        first: usize,
        count: usize,
        label: &str,
        steps: &mut Vec<Step<'s>>,
    ) -> Result<(), PassError> {
        if let Some(old) = &self.old {
            for (copy, t) in old.textures().iter().zip(s.dst.textures()) {
                steps.push(Step::Copy {
                    label: enc.label(|| format!("{label}: the destination's old values")),
                    from: t,
                    to: copy,
                });
            }
        }
        let streams = Streams {
            old: self.old.as_ref(),
            ..*s
        };
        points(
            enc,
            &self.linked,
            &streams,
            first,
            count,
            self.blend,
            label,
            steps,
        )
    }
}

/// The streams one point draw reads and writes.
#[derive(Clone, Copy)]
pub struct Streams<'a> {
    pub dst: &'a Stream,
    pub index: &'a Stream,
    pub data: &'a Stream,
    pub old: Option<&'a Stream>,
    pub order: Option<&'a Stream>,
}

/// A scatter: its combiner and, for a user reduction, the planned rounds.
pub struct Scatter {
    combiner: PointCombiner,
    rounds: Option<(Stream, Vec<usize>)>,
}

impl Scatter {
    pub fn new(
        enc: &Encoder,
        dst: &Stream,
        index: &Stream,
        op: &Combiner,
    ) -> Result<Scatter, PassError> {
        let ordered = matches!(op, Combiner::Reduce { .. });
        let combiner = PointCombiner::new(enc, "streamScatterOp", op, dst, ordered)?;
        let rounds = if ordered {
            Some(plan_rounds(enc, "streamScatterOp", dst, index)?)
        } else {
            None
        };
        Ok(Scatter { combiner, rounds })
    }

    pub fn compiled(&self) -> Linked {
        self.combiner.compiled
    }

    pub fn encode<'s>(
        &'s self,
        enc: &Encoder,
        dst: &'s Stream,
        index: &'s Stream,
        data: &'s Stream,
        steps: &mut Vec<Step<'s>>,
    ) -> Result<(), PassError> {
        let streams = Streams {
            dst,
            index,
            data,
            old: None,
            order: self.rounds.as_ref().map(|(order, _)| order),
        };
        match &self.rounds {
            None => {
                let n = data.layout().len();
                self.combiner
                    .encode(enc, &streams, 0, n, "every element", steps)
            }
            Some((_, counts)) => {
                let mut first = 0;
                for (k, &count) in counts.iter().enumerate() {
                    let label = enc.label(|| format!("round {}", k + 1));
                    self.combiner
                        .encode(enc, &streams, first, count, &label, steps)?;
                    first += count;
                }
                Ok(())
            }
        }
    }
}

/// A gather-op: the fetch, the update's combiner and operand, and the rounds.
pub struct GatherOp {
    fetch: Rc<LinkedScatter>,
    fetch_compiled: Linked,
    /// The combiner and, for a constant operand, a stream of it per element; without one the
    /// update combines what the round just fetched into `dst` ([`Operand::Fetched`]).
    update: Option<(PointCombiner, Option<Stream>)>,
    order: Stream,
    counts: Vec<usize>,
}

impl GatherOp {
    pub fn new(
        enc: &Encoder,
        dst: &Stream,
        index: &Stream,
        data: &Stream,
        update: Option<(&Combiner, Operand)>,
    ) -> Result<GatherOp, PassError> {
        const CALL: &str = "streamGatherOp";
        let n = index.layout().len();
        let update = match update {
            Some((op, operand)) => {
                let constant = match operand {
                    Operand::Constant(floats) => {
                        let mut stream = Stream::new(enc.ctx, data.format().clone(), &[n])?;
                        stream.read(&floats.repeat(n))?;
                        Some(stream)
                    }
                    Operand::Fetched => None,
                };
                Some((PointCombiner::new(enc, CALL, op, data, true)?, constant))
            }
            None => None,
        };
        let (fetch, fetch_compiled) =
            enc.builtins
                .fetch(enc.ctx, &enc.target, &dst.format().widths())?;
        let (order, counts) = plan_rounds(enc, CALL, data, index)?;
        Ok(GatherOp {
            fetch,
            fetch_compiled,
            update,
            order,
            counts,
        })
    }

    pub fn compiled(&self) -> Linked {
        both(
            self.fetch_compiled,
            self.update.as_ref().and_then(|(c, _)| c.compiled),
        )
    }

    pub fn encode<'s>(
        &'s self,
        enc: &Encoder,
        dst: &'s Stream,
        index: &'s Stream,
        data: &'s Stream,
        steps: &mut Vec<Step<'s>>,
    ) -> Result<(), PassError> {
        let fetched = Streams {
            dst,
            index,
            data,
            old: None,
            order: Some(&self.order),
        };
        let mut first = 0;
        for (k, &count) in self.counts.iter().enumerate() {
            let label = enc.label(|| format!("round {}: fetch", k + 1));
            points(
                enc,
                &self.fetch,
                &fetched,
                first,
                count,
                None,
                &label,
                steps,
            )?;
            if let Some((combiner, constant)) = &self.update {
                // Element i's operand: the constant, or what this round fetched into dst[i].
                let updated = Streams {
                    dst: data,
                    data: constant.as_ref().unwrap_or(dst),
                    ..fetched
                };
                let label = enc.label(|| format!("round {}: update", k + 1));
                combiner.encode(enc, &updated, first, count, &label, steps)?;
            }
            first += count;
        }
        Ok(())
    }
}

/// Whether this GL blends into float targets.
fn float_blending(enc: &Encoder) -> bool {
    enc.ctx.profile() == Profile::Gl33Core
        || enc
            .ctx
            .gl()
            .supported_extensions()
            .contains("GL_EXT_float_blend")
}

/// The element order of the conflict-free rounds (a float stream of element positions,
/// round by round, index order within a round) and each round's element count.
fn plan_rounds(
    enc: &Encoder,
    call: &'static str,
    dst: &Stream,
    index: &Stream,
) -> Result<(Stream, Vec<usize>), PassError> {
    let n = index.layout().len();
    if n > MAX_ORDERED {
        return Err(PassError::DeviceLimit {
            call: call.into(),
            message: format!(
                "conflict-free rounds order at most {MAX_ORDERED} elements (float positions), not {n}"
            ),
        });
    }
    let mut host = vec![0.0; n * dst.layout().rank()];
    index.write(&mut host)?;
    let rounds = Rounds::plan(dst.layout().shape(), &host);
    let order: Vec<f32> = rounds.order.iter().map(|&e| e as f32).collect();
    let mut stream = Stream::new(enc.ctx, ElementFormat::scalar(1)?, &[order.len()])?;
    stream.read(&order)?;
    Ok((stream, rounds.counts))
}

/// The draws of points `first..first + count` of `linked`'s passes into `s.dst`.
#[allow(clippy::too_many_arguments)]
fn points<'s>(
    enc: &Encoder,
    linked: &'s LinkedScatter,
    s: &Streams<'s>,
    first: usize,
    count: usize,
    blend: Option<Blend>,
    label: &str,
    steps: &mut Vec<Step<'s>>,
) -> Result<(), PassError> {
    let roles = linked.roles;
    let layout = s.dst.layout();
    let stream_of = |param: u32| -> Result<&'s Stream, String> {
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
    let fail = |m: String| call_error("streamScatterOp", m);
    for pass in &linked.passes {
        // Every output member is a member of the destination, whatever parameter the shader
        // names it after.
        let targets =
            textures_of(pass.plan.outputs.iter().copied(), |_| Ok(s.dst)).map_err(fail)?;
        let inputs =
            textures_of(pass.plan.samplers.iter().map(|s| s.source), stream_of).map_err(fail)?;
        let int = |v: usize| Ok(UniformData::Ints(vec![v as i32]));
        let uniforms = uniforms_of(pass, |value| match value {
            UniformValue::Width(p) => int(stream_of(p)?.layout().width() as usize),
            UniformValue::Extent(p) => Ok(UniformData::Ints(
                extent_vector(stream_of(p)?.layout().shape()).to_vec(),
            )),
            UniformValue::OutputExtent => {
                Ok(UniformData::Ints(extent_vector(layout.shape()).to_vec()))
            }
            UniformValue::OutputWidth => int(layout.width() as usize),
            UniformValue::OutputSize => Ok(UniformData::Floats(vec![
                layout.width() as f32,
                layout.height() as f32,
            ])),
            other => Err(format!("a scatter shader has no uniform {other:?}")),
        })
        .map_err(fail)?;
        let names = vec!["destination".to_string(); targets.len()];
        let unit = |param: u32| {
            let samplers = pass.plan.samplers.iter();
            samplers.map(|s| s.source.param).position(|p| p == param)
        };
        let scatter = unit(roles.index)
            .filter(|_| linked.at_index)
            .map(|index| ScatterInputs {
                index,
                order: unit(roles.order),
            });
        let drawn = Pass {
            primitive: Primitive::Points { first, count },
            blend,
            scatter,
            ..Pass::over(pass, targets, inputs, uniforms)
        };
        steps.push(Step::Draw(
            drawn.labelled(enc.tracing, || (label.to_string(), names)),
        ));
    }
    Ok(())
}
