//! Reductions on GL: the planned passes ping-pong through intermediate streams, each drawn
//! over a smaller output (001 §4.3, 000 §5.4).
//!
//! Pass `i` reads pass `i − 1`'s output; the last pass writes the target stream, or a 1-element
//! stream that is read back for a value. Intermediates are owned [`Stream`]s (their textures
//! are freed on drop); those of the last reduction are kept and reused by the next one where
//! shape and element format match, so a repeated reduction allocates nothing and finds its
//! framebuffers cached.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use brook_frontend::ir::{FunctionId, FunctionKind, ParamClass};
use brook_glsl::{
    generate_reduce_pass, stream_members, Access, OutputRegion, Placement, ReduceStep,
    UniformValue, Variant,
};
use brook_texture_streams::{Stream, Texture};

use crate::args::{KernelArg, StreamArg};
use crate::draw::{draw_pass, sampled_textures};
use crate::error::PassError;
use crate::linked::LinkedKernel;
use crate::runner::{call_error, texture, KernelModule, KernelRunner};
use crate::spare::SpareStreams;
use crate::uniforms::{uniform_data, UniformData};
use brook_core::{ReducePass, ReducePlan};

/// Where a reduction's result goes.
pub enum ReduceInto<'a> {
    /// One value: the element's floats in C layout (a `float4` needs 4).
    Value(&'a mut [f32]),
    /// A stream whose extents divide the input's: each element reduces its block.
    Stream(&'a Stream),
}

type ProgramKey = (u64, FunctionId, ReduceStep, Variant);

/// The reduction programs and spare intermediate streams of one context.
#[derive(Default)]
pub(crate) struct ReduceCache {
    programs: RefCell<HashMap<ProgramKey, Rc<LinkedKernel>>>,
    spare: SpareStreams,
}

impl ReduceCache {
    pub fn compiled(&self) -> usize {
        self.programs.borrow().len()
    }
}

/// The input and accumulator parameters of a reduce function, by position.
struct Roles {
    input: usize,
    accumulator: usize,
}

impl KernelRunner {
    /// Reduces `input` with the reduce function `reduce_fn` into `into`. `extra` binds the
    /// function's other parameters (constants and gathers) in order, skipping its input stream
    /// and `reduce` accumulator. Returns the plan it ran: passes, `k`, elements read and written.
    pub fn reduce(
        &self,
        module: &KernelModule,
        reduce_fn: FunctionId,
        input: &Stream,
        extra: &[KernelArg],
        into: ReduceInto,
    ) -> Result<ReducePlan, PassError> {
        let func = module.module().func(reduce_fn);
        let fail = |message: String| call_error(&func.name, message);
        if func.kind != FunctionKind::Reduce {
            return Err(fail(format!(
                "`{}` is not a reduce function: declare it `reduce void {}(T a<>, reduce T r<>)`",
                func.name, func.name
            )));
        }
        let roles = roles(func).ok_or_else(|| {
            fail("a reduction needs one input stream and one `reduce` parameter".into())
        })?;
        let variant = reduce_variant(func, &roles, extra).map_err(fail)?;
        let ty = &func.params[roles.input].ty;
        let widths: Vec<u8> = stream_members(module.module(), ty)?
            .into_iter()
            .map(|(_, w)| w)
            .collect();
        let check_format = |what: &str, s: &Stream| {
            let got: Vec<u8> = s.format().members().iter().map(|m| m.components).collect();
            if got == widths {
                Ok(())
            } else {
                Err(fail(format!(
                    "the {what} stream's elements have member widths {got:?}, but `{}` reduces elements of member widths {widths:?}",
                    func.params[roles.input].name
                )))
            }
        };
        check_format("input", input)?;
        let target_shape: &[usize] = match &into {
            ReduceInto::Value(dst) => {
                let floats = input.format().floats_per_element();
                if dst.len() != floats {
                    return Err(fail(format!(
                        "the result needs {floats} float(s) but the target holds {}",
                        dst.len()
                    )));
                }
                &[]
            }
            ReduceInto::Stream(out) => {
                check_format("output", out)?;
                let gathered = extra
                    .iter()
                    .any(|a| matches!(a, KernelArg::Gather(g) if std::ptr::eq(g.stream, *out)));
                if std::ptr::eq(*out, input) || gathered {
                    return Err(fail(
                        "a reduction cannot write its own input (or a gathered) stream".into(),
                    ));
                }
                out.layout().shape()
            }
        };
        let plan = ReducePlan::new(input.layout().shape(), target_shape).map_err(fail)?;
        self.ctx.make_current()?;
        let mut intermediates: Vec<Stream> = Vec::with_capacity(plan.passes.len());
        for (i, pass) in plan.passes.iter().enumerate() {
            let last = i + 1 == plan.passes.len();
            let out_stream = match (&into, last) {
                (ReduceInto::Stream(out), true) => Some(*out),
                _ => {
                    intermediates.push(self.reductions.spare.take(
                        &self.ctx,
                        input.format(),
                        &pass.to,
                    )?);
                    None
                }
            };
            let n = intermediates.len();
            let src = match i {
                0 => input,
                _ if out_stream.is_some() => &intermediates[n - 1],
                _ => &intermediates[n - 2],
            };
            let dst = match out_stream {
                Some(out) => out,
                None => &intermediates[n - 1],
            };
            self.reduce_pass(
                module,
                reduce_fn,
                &roles,
                &variant,
                extra,
                pass,
                plan.input.len(),
                src,
                dst,
            )?;
        }
        self.ctx
            .check_error(&format!("running reduction `{}`", func.name))?;
        if let ReduceInto::Value(dst) = into {
            let result = intermediates
                .last()
                .expect("a value reduction ends in an intermediate");
            result.write(dst)?;
        }
        self.reductions.spare.keep(intermediates);
        Ok(plan)
    }

    /// Draws one planned pass from `src` into `dst` (one draw per group of output members).
    #[allow(clippy::too_many_arguments)]
    fn reduce_pass(
        &self,
        module: &KernelModule,
        reduce_fn: FunctionId,
        roles: &Roles,
        variant: &Variant,
        extra: &[KernelArg],
        pass: &ReducePass,
        rank: usize,
        src: &Stream,
        dst: &Stream,
    ) -> Result<(), PassError> {
        let func = module.module().func(reduce_fn);
        let step = ReduceStep {
            component: (rank - 1 - pass.dim) as u8,
            k: pass.k as u8,
            blocked: pass.blocked(),
            partial: pass.partial(),
            input_translated: src.layout().is_translated(),
            output_translated: dst.layout().is_translated(),
        };
        let linked = self.linked_reduction(module, reduce_fn, step, variant)?;
        let mut extra_args = extra.iter();
        let args: Vec<KernelArg> = (0..func.params.len())
            .map(|p| match p {
                p if p == roles.input => KernelArg::Stream(src.into()),
                p if p == roles.accumulator => KernelArg::Out(dst.into()),
                _ => *extra_args
                    .next()
                    .expect("reduce_variant counted the extra arguments"),
            })
            .collect();
        let fail = |message: String| call_error(&func.name, message);
        for draw in &linked.passes {
            let targets: Vec<&Texture> = draw
                .plan
                .outputs
                .iter()
                .map(|m| texture(dst, m.member))
                .collect::<Result<_, _>>()
                .map_err(fail)?;
            let inputs = sampled_textures(draw, &args).map_err(fail)?;
            let layout = dst.layout();
            let viewport = [0, 0, layout.width() as i32, layout.height() as i32];
            let output = StreamArg::whole(dst);
            draw_pass(
                &self.ctx,
                &func.name,
                draw,
                &targets,
                viewport,
                &inputs,
                |value| match value {
                    UniformValue::ReduceBlock => Ok(UniformData::Ints(vec![pass.block as i32])),
                    UniformValue::ReduceGroups => Ok(UniformData::Ints(vec![pass.groups() as i32])),
                    other => uniform_data(other, module.module(), func, &args, &output),
                },
                None,
            )?;
        }
        Ok(())
    }

    fn linked_reduction(
        &self,
        module: &KernelModule,
        reduce_fn: FunctionId,
        step: ReduceStep,
        variant: &Variant,
    ) -> Result<Rc<LinkedKernel>, PassError> {
        let key = (module.id, reduce_fn, step, variant.clone());
        if let Some(found) = self.reductions.programs.borrow().get(&key) {
            return Ok(found.clone());
        }
        let generated = generate_reduce_pass(
            module.module(),
            reduce_fn,
            &step,
            variant,
            &self.target,
            module.source(),
        )?;
        let linked = Rc::new(LinkedKernel::link(&self.ctx, generated)?);
        self.reductions
            .programs
            .borrow_mut()
            .insert(key, linked.clone());
        Ok(linked)
    }
}

fn roles(func: &brook_frontend::ir::Function) -> Option<Roles> {
    let only = |class: ParamClass| {
        let mut found = (0..func.params.len()).filter(|&i| func.params[i].class == class);
        match (found.next(), found.next()) {
            (Some(i), None) => Some(i),
            _ => None,
        }
    };
    Some(Roles {
        input: only(ParamClass::Stream)?,
        accumulator: only(ParamClass::Reduce)?,
    })
}

/// The shader variant for the extra arguments: gathers direct or translated.
fn reduce_variant(
    func: &brook_frontend::ir::Function,
    roles: &Roles,
    extra: &[KernelArg],
) -> Result<Variant, String> {
    if extra.len() + 2 != func.params.len() {
        return Err(format!(
            "takes {} argument(s) besides its input and accumulator (constants and gathers), but {} were given",
            func.params.len() - 2,
            extra.len()
        ));
    }
    let mut extra = extra.iter();
    let mut params = Vec::with_capacity(func.params.len());
    for (i, p) in func.params.iter().enumerate() {
        if i == roles.input || i == roles.accumulator {
            params.push(Access::Value);
            continue;
        }
        params.push(match (p.class, extra.next()) {
            (ParamClass::Constant, Some(KernelArg::Constant(_))) => Access::Value,
            (ParamClass::Gather { .. }, Some(KernelArg::Gather(g))) if g.region().is_some() => {
                return Err(format!(
                    "parameter `{}`: a domain cannot be gathered by a reduction; pass a stream of the domain's shape",
                    p.name
                ))
            }
            (ParamClass::Gather { .. }, Some(KernelArg::Gather(g))) => {
                let rank = g.stream.layout().rank() as u8;
                match g.placement() {
                    Placement::Translated => Access::GatherTranslated { rank },
                    Placement::Direct => Access::GatherDirect { rank },
                }
            }
            _ => {
                return Err(format!(
                    "parameter `{}` needs {}",
                    p.name,
                    if p.class == ParamClass::Constant {
                        "a constant"
                    } else {
                        "a gather stream"
                    }
                ))
            }
        });
    }
    Ok(Variant {
        params,
        // Not read: each pass's `ReduceStep` says how its output is placed.
        output: OutputRegion::Direct,
    })
}
