//! A kernel call as passes: pick the shader variant the arguments need, fetch (or link) its
//! programs, then one covering-triangle draw per pass (several when the outputs outnumber
//! the draw buffers, 001 §4.2), each binding the output textures, the input textures, the
//! uniforms and the viewport. Outputs that are also inputs are drawn into scratch copies
//! first made on the GPU, which the caller swaps in afterwards (GL cannot sample a texture
//! while drawing into it).

use std::rc::Rc;

use brook_core::loops::{cut_loop_message, iteration_bound_given};
use brook_core::{ScratchTrace, SourceText};
use brook_glsl::{candidate_of, stream_members, MemberRef, OutputRegion, Target};
use brook_ir::{Function, FunctionId, Module, ParamClass};
use brook_texture_streams::{ElementFormat, Stream, TexelRect};

use crate::args::{variant_for, KernelArg, StreamArg};
use crate::encode::mask::WriteMask;
use crate::encode::{textures_of, Encoder};
use crate::error::{call_error, PassError};
use crate::linked::LinkedKernel;
use crate::programs::{GlProgram, Linked};
use crate::spare::SpareStreams;
use crate::step::{DepthUse, MaskTest, Pass, Step};
use crate::uniforms::{uniform_data, uniforms_of};

/// An output of a call that was also one of its inputs (in place): the call drew into this
/// scratch stream, which must now take the place of the argument's stream.
#[must_use = "the result of an in-place call is in the scratch stream until it is swapped in"]
pub struct Replacement {
    /// The output parameter's position.
    pub param: usize,
    pub stream: Stream,
}

/// A kernel call's programs, chosen for its arguments.
pub struct KernelPasses<'a> {
    pub linked: Rc<LinkedKernel>,
    /// How long linking them took, if this call did (the first call of its variant).
    pub compiled: Linked,
    /// How the draw covers the outputs.
    pub region: OutputRegion,
    /// The variant as the trace shows it (built only while tracing).
    pub variant: String,
    /// The first output: every output is at its place (checked by the runtime).
    pub output: StreamArg<'a>,
    /// Where a kernel that checks its loops writes, per texel, the Brook line of a loop the
    /// driver cut short (`PassProgram::loop_status`); one float per texel of the outputs,
    /// taken from the backend's spares so a repeated call allocates nothing (and finds its
    /// framebuffer cached).
    pub loop_status: Option<Stream>,
}

impl<'a> KernelPasses<'a> {
    /// The programs of `kernel` for `args`.
    pub fn new(
        enc: &Encoder,
        program: &GlProgram,
        kernel: FunctionId,
        args: &[KernelArg<'a>],
        spare: &SpareStreams,
    ) -> Result<KernelPasses<'a>, PassError> {
        let func = program.compiled.module.func(kernel);
        let fail = |message: String| call_error(&func.name, message);
        let output = args
            .iter()
            .find_map(|a| match a {
                KernelArg::Out(s) => Some(*s),
                _ => None,
            })
            .ok_or_else(|| fail("a kernel call needs at least one output stream".into()))?;
        let variant = variant_for(func, args, &output).map_err(fail)?;
        let region = variant.output;
        let described = enc.label(|| format!("{variant:?}"));
        let target = call_target(&enc.target, &program.compiled.module, kernel, args);
        let (linked, compiled) = program.kernel(enc.ctx, &target, kernel, variant)?;
        let loop_status = if linked.passes.iter().any(|p| p.plan.loop_status.is_some()) {
            let layout = output.stream.layout();
            let shape = [layout.height() as usize, layout.width() as usize];
            Some(spare.take(enc.ctx, &status_format(), &shape)?)
        } else {
            None
        };
        Ok(KernelPasses {
            linked,
            compiled,
            region,
            variant: described,
            output,
            loop_status,
        })
    }

    /// Fails the call if a loop was cut short in any element it drew: the status texture
    /// holds the Brook line of such a loop, 0 elsewhere.
    pub fn check_loops(&self, function: &str, source: &SourceText) -> Result<(), PassError> {
        let Some(status) = self.loop_status.as_ref().map(|s| &s.textures()[0]) else {
            return Ok(());
        };
        let [x, y, width, height] = viewport(&self.output, self.region).map(|v| v.max(0) as u32);
        let cut = status
            .read(TexelRect {
                x,
                y,
                width,
                height,
            })?
            .into_iter()
            .fold(0.0f32, f32::max);
        if cut == 0.0 {
            return Ok(());
        }
        let line = cut as usize;
        let caps = self.output.stream.context().caps();
        let cap = caps.loop_iteration_cap().unwrap_or(0);
        Err(PassError::DeviceLimit {
            call: format!("kernel `{function}`"),
            message: cut_loop_message(source, line, &caps.renderer, cap),
        })
    }

    /// Appends the call's draws to `steps`: `scratch` are the in-place outputs' copies (made
    /// by [`in_place_scratch`]), `mask` the depth mask every pass tests (and, in set mode,
    /// the last pass sets: every pass writes the same elements, so the earlier ones must
    /// still find them open), `counting` whether the first pass is counted into the open
    /// write query (one counts, for the same reason).
    #[allow(clippy::too_many_arguments)]
    pub fn encode<'s>(
        &'s self,
        enc: &Encoder,
        module: &Module,
        func: &Function,
        args: &'s [KernelArg<'s>],
        scratch: &'s [Replacement],
        mask: Option<(&'s WriteMask, MaskTest)>,
        counting: bool,
        steps: &mut Vec<Step<'s>>,
    ) -> Result<(), PassError> {
        let fail = |message: String| call_error(&func.name, message);
        let viewport = viewport(&self.output, self.region);
        let discards = matches!(self.region, OutputRegion::Masked { .. });
        let count = self.linked.passes.len();
        let status = self.loop_status.as_ref().map(|s| &s.textures()[0]);
        if let Some(status) = status {
            steps.push(Step::Clear {
                label: enc.label(|| "the loop status cleared".into()),
                target: status,
            });
        }
        for (k, pass) in self.linked.passes.iter().enumerate() {
            let stream_of = |param: u32| match scratch.iter().find(|r| r.param == param as usize) {
                Some(r) => Ok(&r.stream),
                None => args[param as usize]
                    .stream()
                    .map(|s| s.stream)
                    .ok_or_else(|| "a sampled or written parameter needs a stream".to_string()),
            };
            let mut targets =
                textures_of(pass.plan.outputs.iter().copied(), stream_of).map_err(fail)?;
            if let (Some(_), Some(status)) = (pass.plan.loop_status, status) {
                targets.push(status);
            }
            let inputs = textures_of(pass.plan.samplers.iter().map(|s| s.source), stream_of)
                .map_err(fail)?;
            let uniforms = uniforms_of(pass, |value| {
                uniform_data(value, module, func, args, &self.output)
            })
            .map_err(fail)?;
            let drawn = Pass {
                viewport,
                depth: mask.map_or(DepthUse::None, |(m, t)| {
                    let sets = t.sets && k + 1 == count;
                    DepthUse::Test(m, MaskTest { sets, ..t })
                }),
                counted: counting && k == 0,
                discards_outside_domain: discards,
                ..Pass::over(pass, targets, inputs, uniforms)
            };
            steps.push(Step::Draw(drawn.labelled(enc.tracing, || {
                let names = pass.plan.outputs.iter();
                (
                    format!("pass {} of {count}", k + 1),
                    names.map(|m| member_label(module, func, *m)).collect(),
                )
            })));
        }
        Ok(())
    }
}

/// The target a call generates for: without the run-time loop check when the driver caps
/// loops but the kernel's loops, with this call's constants, stay within the cap (a loop
/// `for (k = 0; k < m; k++)` over a kernel constant `m` is as cheap as a literal bound).
fn call_target(target: &Target, module: &Module, kernel: FunctionId, args: &[KernelArg]) -> Target {
    let Some(cap) = target.loop_cap else {
        return *target;
    };
    let constant = |p: u32| match args.get(p as usize) {
        Some(KernelArg::Constant([v])) => Some(f64::from(*v)),
        _ => None,
    };
    match iteration_bound_given(module, kernel, &constant) {
        Some(bound) if bound <= u64::from(cap) => Target {
            loop_cap: None,
            ..*target
        },
        _ => *target,
    }
}

/// The viewport of a call's draws: the domain's rectangle when it is one, else the texture.
fn viewport(output: &StreamArg, region: OutputRegion) -> [i32; 4] {
    let layout = output.stream.layout();
    if region != OutputRegion::Viewport {
        return [0, 0, layout.width() as i32, layout.height() as i32];
    }
    // A direct layout: texel (x, y) is (column, row), and a 1D stream is one row.
    let (lo, shape) = (output.lo(), output.shape());
    let column = lo.len() - 1;
    let (y, h) = if column == 1 {
        (lo[0], shape[0])
    } else {
        (0, 1)
    };
    [lo[column] as i32, y as i32, shape[column] as i32, h as i32]
}

/// A scratch stream for every output the call also reads as a plain input (a spare one when
/// the last in-place call left one of its format and shape), to be filled by
/// [`encode_scratch_copies`] first (so elements outside a domain, or discarded, keep their
/// values).
pub fn in_place_scratch(
    args: &[KernelArg],
    spare: &SpareStreams,
) -> Result<Vec<Replacement>, PassError> {
    let mut scratch = Vec::new();
    for (param, arg) in args.iter().enumerate() {
        let KernelArg::Out(out) = arg else { continue };
        let read = args
            .iter()
            .any(|a| matches!(a, KernelArg::Stream(s) if std::ptr::eq(s.stream, out.stream)));
        if read {
            let s = out.stream;
            scratch.push(Replacement {
                param,
                stream: spare.take(s.context(), s.format(), s.layout().shape())?,
            });
        }
    }
    Ok(scratch)
}

/// The copies of the in-place outputs into their scratch streams.
pub fn encode_scratch_copies<'s>(
    enc: &Encoder,
    args: &'s [KernelArg<'s>],
    scratch: &'s [Replacement],
    steps: &mut Vec<Step<'s>>,
) {
    for r in scratch {
        let Some(old) = args[r.param].stream() else {
            continue;
        };
        for (from, to) in old.stream.textures().iter().zip(r.stream.textures()) {
            steps.push(Step::Copy {
                label: if enc.tracing {
                    "in place: the output copied to its scratch".into()
                } else {
                    String::new()
                },
                from,
                to,
            });
        }
    }
}

/// The trace of the in-place outputs.
pub fn scratch_trace(
    func: &Function,
    args: &[KernelArg],
    scratch: &[Replacement],
) -> Vec<ScratchTrace> {
    let names = |s: &Stream| s.textures().iter().map(|t| t.raw().0.get()).collect();
    scratch
        .iter()
        .map(|r| ScratchTrace {
            param: func.params[r.param].name.clone(),
            old: args[r.param]
                .stream()
                .map(|s| names(s.stream))
                .unwrap_or_default(),
            new: names(&r.stream),
        })
        .collect()
}

/// `name` or `name.member` of an output member, for the trace; for a vout `name[k]`,
/// `name[k].member` or `name (push count)`.
fn member_label(module: &Module, func: &Function, m: MemberRef) -> String {
    let param = &func.params[m.param as usize];
    let Ok(members) = stream_members(module, &param.ty) else {
        return param.name.clone();
    };
    let (base, member) = match param.class {
        ParamClass::Vout { max } => match candidate_of(members.len(), max, m.member) {
            Some((k, member)) => (format!("{}[{k}]", param.name), member),
            None => return format!("{} (push count)", param.name),
        },
        _ => (param.name.clone(), m.member as usize),
    };
    match members.get(member) {
        Some((suffix, _)) if !suffix.is_empty() => format!("{base}.{suffix}"),
        _ => base,
    }
}

/// The loop status's element: one float per texel.
fn status_format() -> ElementFormat {
    ElementFormat::scalar(1).expect("one component is a valid element")
}
