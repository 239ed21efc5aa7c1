//! Reductions on GL: the planned passes (brook-core's `ReducePlan`, 000 §5.4) ping-pong
//! through intermediate streams, each drawn over a smaller output (001 §4.3).
//!
//! Pass `i` reads pass `i − 1`'s output; the last pass writes the target stream, or a
//! 1-element stream that is read back for a value. Intermediates are owned [`Stream`]s, kept
//! from one reduction for the next where shape and element format match, so a repeated
//! reduction allocates nothing and finds its framebuffers cached.

use std::rc::Rc;

use brook_core::{ReducePass, ReducePlan, UniformData};
use brook_glsl::{Access, OutputRegion, Placement, ReduceStep, Resize, UniformValue, Variant};
use brook_ir::{Function, FunctionId, ParamClass};
use brook_texture_streams::Stream;

use crate::args::{placement, KernelArg, StreamArg};
use crate::encode::{textures_of, Encoder};
use crate::error::{call_error, PassError};
use crate::linked::LinkedKernel;
use crate::programs::{both, GlProgram, Linked};
use crate::spare::SpareStreams;
use crate::step::{Pass, Step};
use crate::uniforms::{uniform_data, uniforms_of};

/// What a reduction reads and where it ends.
#[derive(Clone, Copy)]
pub struct Ends<'a> {
    pub input: &'a Stream,
    /// The reduce function's constant and gather arguments, in order.
    pub extra: &'a [KernelArg<'a>],
    /// The target stream; `None` for a value (the last intermediate holds it).
    pub into: Option<&'a Stream>,
    /// A kernel whose output is `input`, computed inside the first pass instead of read
    /// (`brook_glsl::generate_fused_reduce_pass`); `input` is then never read or written.
    pub map: Option<Map<'a>>,
}

/// A kernel fused into a reduction's first pass: its call's arguments and their variant
/// (inputs resized or placed from the output's shape, see [`mapped_variant`]).
#[derive(Clone, Copy)]
pub struct Map<'a> {
    pub kernel: FunctionId,
    pub args: &'a [KernelArg<'a>],
    pub variant: &'a Variant,
}

/// The variant of a kernel call computed inside a reduction: an input at the output's place
/// is read through its own layout from the element index, as a resized input of equal shape,
/// since there is no fragment of the kernel's output.
pub fn mapped_variant(mut variant: Variant, args: &[KernelArg]) -> Variant {
    for (access, arg) in variant.params.iter_mut().zip(args) {
        if let (Access::AtFragment, Some(s)) = (*access, arg.stream()) {
            let shape = s.shape();
            *access = Access::Resized(Resize::between(&shape, &shape), s.placement());
        }
    }
    variant
}

/// A reduction's passes with their programs and intermediate streams.
pub struct Reduction {
    /// Per planned pass: its linked step program.
    programs: Vec<Rc<LinkedKernel>>,
    /// How long linking this call's new programs took, if it linked any.
    pub compiled: Linked,
    /// The streams between passes; the last one holds a value reduction's result.
    pub intermediates: Vec<Stream>,
}

impl Reduction {
    /// Links (or finds) the program of every pass of `plan` and takes the intermediates.
    pub fn new(
        enc: &Encoder,
        spare: &SpareStreams,
        program: &GlProgram,
        function: FunctionId,
        plan: &ReducePlan,
        ends: Ends,
    ) -> Result<Reduction, PassError> {
        let Ends {
            input,
            extra,
            into,
            map,
        } = ends;
        let func = program.compiled.module.func(function);
        let variant = reduce_variant(func, extra).map_err(|m| call_error(&func.name, m))?;
        let rank = plan.input.len();
        let mut programs = Vec::with_capacity(plan.passes.len());
        let mut intermediates = Vec::with_capacity(plan.passes.len());
        let mut compiled = None;
        let mut placed = placement(input.layout());
        for (i, pass) in plan.passes.iter().enumerate() {
            let output = match into.filter(|_| i + 1 == plan.passes.len()) {
                Some(out) => placement(out.layout()),
                None => {
                    let s = spare.take(enc.ctx, input.format(), &pass.to)?;
                    let p = placement(s.layout());
                    intermediates.push(s);
                    p
                }
            };
            let step = ReduceStep {
                component: (rank - 1 - pass.dim) as u8,
                k: pass.k as u8,
                blocked: pass.blocked(),
                partial: pass.partial(),
                input: placed,
                output_translated: output != Placement::Direct,
            };
            let (linked, now) = match map.filter(|_| i == 0) {
                Some(m) => {
                    program.fused(enc.ctx, &enc.target, m.kernel, m.variant, function, step)?
                }
                None => program.reduction(enc.ctx, &enc.target, function, step, &variant)?,
            };
            compiled = both(compiled, now);
            programs.push(linked);
            placed = output;
        }
        Ok(Reduction {
            programs,
            compiled,
            intermediates,
        })
    }

    /// The draws of every pass: from the input through the intermediates into the target
    /// (or the last intermediate).
    pub fn encode<'s>(
        &'s self,
        enc: &Encoder,
        module: &'s brook_ir::Module,
        func: &'s Function,
        plan: &'s ReducePlan,
        ends: Ends<'s>,
        steps: &mut Vec<Step<'s>>,
    ) -> Result<(), PassError> {
        let Ends {
            input,
            extra,
            into,
            map,
        } = ends;
        let (a, r) = brook_core::call::reduce_roles(func)
            .map_err(|e| call_error(&func.name, e.to_string()))?;
        let mut src = input;
        let mut next = self.intermediates.iter();
        for (i, (pass, linked)) in plan.passes.iter().zip(&self.programs).enumerate() {
            let dst = match into.filter(|_| i + 1 == plan.passes.len()) {
                Some(out) => out,
                None => next
                    .next()
                    .expect("one intermediate per pass not into the target"),
            };
            let mut others = extra.iter();
            let own = (0..func.params.len()).map(|p| match p {
                p if p == a => KernelArg::Stream(src.into()),
                p if p == r => KernelArg::Out(dst.into()),
                _ => *others
                    .next()
                    .expect("the runtime counted the extra arguments"),
            });
            // A fused pass numbers the reduce function's parameters after the kernel's.
            let fused = map.filter(|_| i == 0);
            let kernel = fused.map(|m| (module.func(m.kernel), m.args));
            let args: Vec<KernelArg> = kernel
                .map_or(&[][..], |(_, args)| args)
                .iter()
                .copied()
                .chain(own)
                .collect();
            let label = if enc.tracing {
                let fused_in = kernel.map_or(String::new(), |(k, _)| {
                    format!(", kernel `{}` computed in its reads", k.name)
                });
                format!("{}{fused_in}", pass_label(pass, i, plan.passes.len()))
            } else {
                String::new()
            };
            let draw = Draw {
                linked,
                pass,
                args: &args,
                kernel,
                dst,
            };
            encode_pass(enc, module, func, draw, label, steps)?;
            src = dst;
        }
        Ok(())
    }
}

/// `pass 2 of 3: dim 0, <1024> -> <128> (8-way)`.
fn pass_label(pass: &ReducePass, i: usize, n: usize) -> String {
    let shape = |s: &[usize]| brook_core::fmt_shape(s);
    format!(
        "pass {} of {n}: dim {}, {} -> {} ({}-way)",
        i + 1,
        pass.dim,
        shape(&pass.from),
        shape(&pass.to),
        pass.k
    )
}

/// One planned pass to draw: its program, arguments (a fused kernel's first) and target.
struct Draw<'s, 'a> {
    linked: &'s LinkedKernel,
    pass: &'a ReducePass,
    args: &'a [KernelArg<'s>],
    /// The fused kernel and its arguments, whose uniforms the pass also sets.
    kernel: Option<(&'a Function, &'a [KernelArg<'a>])>,
    dst: &'s Stream,
}

/// The draws of one planned pass into `dst` (one per group of output members).
fn encode_pass<'s>(
    enc: &Encoder,
    module: &brook_ir::Module,
    func: &Function,
    draw: Draw<'s, '_>,
    label: String,
    steps: &mut Vec<Step<'s>>,
) -> Result<(), PassError> {
    let Draw {
        linked,
        pass,
        args,
        kernel,
        dst,
    } = draw;
    let fail = |message: String| call_error(&func.name, message);
    let output = StreamArg::whole(dst);
    let stream_of = |param: u32| match args[param as usize] {
        KernelArg::Stream(s) | KernelArg::Gather(s) | KernelArg::Out(s) => Ok(s.stream),
        _ => Err("a sampled or written parameter needs a stream".to_string()),
    };
    for draw in &linked.passes {
        let targets = textures_of(draw.plan.outputs.iter().copied(), stream_of).map_err(fail)?;
        let inputs =
            textures_of(draw.plan.samplers.iter().map(|s| s.source), stream_of).map_err(fail)?;
        let uniforms = uniforms_of(draw, |value| match value {
            UniformValue::ReduceBlock => Ok(UniformData::Ints(vec![pass.block as i32])),
            UniformValue::ReduceGroups => Ok(UniformData::Ints(vec![pass.groups() as i32])),
            // A fused kernel's uniforms are its parameters'; the output's are the pass's.
            other => match kernel {
                Some((kfunc, kargs)) => uniform_data(other, module, kfunc, kargs, &output),
                None => uniform_data(other, module, func, args, &output),
            },
        })
        .map_err(fail)?;
        let names = vec!["partial results".to_string(); targets.len()];
        let drawn = Pass::over(draw, targets, inputs, uniforms);
        steps.push(Step::Draw(
            drawn.labelled(enc.tracing, || (label.clone(), names)),
        ));
    }
    Ok(())
}

/// The shader variant for a reduction's extra arguments (checked by the runtime): gathers
/// direct or translated.
fn reduce_variant(func: &Function, extra: &[KernelArg]) -> Result<Variant, String> {
    let mut extra = extra.iter();
    let mut params = Vec::with_capacity(func.params.len());
    for p in &func.params {
        params.push(match p.class {
            ParamClass::Stream | ParamClass::Reduce => Access::Value,
            _ => match extra.next() {
                Some(KernelArg::Gather(g)) => {
                    let rank = g.stream.layout().rank() as u8;
                    match g.placement() {
                        Placement::Translated(wrap) => Access::GatherTranslated { rank, wrap },
                        Placement::Direct => Access::GatherDirect { rank },
                    }
                }
                Some(KernelArg::Constant(_)) => Access::Value,
                _ => return Err(format!("parameter `{}` has no argument", p.name)),
            },
        });
    }
    Ok(Variant {
        params,
        // Not read: each pass's `ReduceStep` says how its output is placed.
        output: OutputRegion::Direct,
    })
}
