//! The GL backend: streams in float textures, every call encoded as steps and run by the
//! executor. This is where the runtime's checked calls (brook-core's `Backend` trait) meet
//! the encoders; it holds what lives across calls: the context, the programs no Brook program
//! owns, spare intermediates, the write mask and the open write query.

mod storage;

use std::any::Any;
use std::cell::{Ref, RefCell};
use std::fmt::Display;
use std::rc::Rc;

use brook_core::call::CallName;
use brook_core::{
    Backend, BackendProgram, BackendStream, BrookError, CallTrace, Compiled, ElementFormat,
    GatherOpCall, IterSpec, KernelCall, MaskUse, PassTrace, ReduceCall, ReduceOutput, ScatterCall,
    StreamArg, TraceEntry, VoutTrace,
};
use brook_frontend::ir::{Function, ParamClass};
use brook_glsl::Target;
use brook_texture_streams::{GlContext, Stream as GlStream};
use glow::HasContext;

use crate::args::KernelArg;
use crate::encode::kernel::{
    encode_scratch_copies, in_place_scratch, scratch_trace, KernelPasses, Replacement,
};
use crate::encode::mask::{WriteMask, WriteQuery};
use crate::encode::reduce::{Ends, Reduction};
use crate::encode::scatter::{GatherOp, Scatter};
use crate::encode::vout::{Packing, VoutCall};
use crate::encode::Encoder;
use crate::error::PassError;
use crate::executor::{traced, Executor, PassObserver};
use crate::programs::{Builtins, GlProgram};
use crate::spare::SpareStreams;
use storage::{extra_classes, hold, kernel_args, textures, textures_mut, GlStorage};

pub use storage::gl_textures;

/// Brook on one GL context.
pub struct GlBackend {
    ctx: Rc<GlContext>,
    target: Target,
    exec: Executor,
    builtins: Builtins,
    reduce_spares: SpareStreams,
    vout_spares: SpareStreams,
    /// The write mask last set.
    mask: RefCell<Option<WriteMask>>,
    /// The open write query.
    query: RefCell<Option<WriteQuery>>,
}

impl GlBackend {
    pub fn new(ctx: Rc<GlContext>) -> GlBackend {
        let target = Target {
            profile: crate::linked::profile(&ctx),
            max_draw_buffers: ctx.caps().max_draw_buffers,
        };
        GlBackend {
            exec: Executor::new(&ctx),
            ctx,
            target,
            builtins: Builtins::default(),
            reduce_spares: SpareStreams::default(),
            vout_spares: SpareStreams::default(),
            mask: RefCell::new(None),
            query: RefCell::new(None),
        }
    }

    /// The GL context: to bind stream textures in one's own rendering, or to time against
    /// hand-written GL on the same context.
    pub fn context(&self) -> &Rc<GlContext> {
        &self.ctx
    }

    /// Installs (or with `None` removes) an observer that sees every step of every call just
    /// before and after it runs, with its time (the pipeline explorer's hook).
    pub fn set_observer(&self, observer: Option<Box<dyn PassObserver>>) {
        self.exec.set_observer(observer);
    }

    /// Programs linked for this context that no Brook program owns (scatter copies, scans,
    /// masks): a bounded set, by element layout.
    pub fn builtin_programs(&self) -> usize {
        self.builtins.linked()
    }

    /// Programs linked for `program` (a `Program`'s backend form) so far.
    pub fn program_programs(program: &dyn Any) -> usize {
        program
            .downcast_ref::<GlProgram>()
            .map_or(0, GlProgram::linked)
    }

    fn encoder(&self, tracing: bool) -> Encoder<'_> {
        Encoder {
            ctx: &self.ctx,
            target: &self.target,
            builtins: &self.builtins,
            tracing,
        }
    }

    /// Encodes a kernel call and runs it unless `plan_only`.
    fn kernel(
        &self,
        call: &KernelCall,
        args: &[KernelArg],
        plan_only: bool,
    ) -> Result<KernelOutcome, PassError> {
        let program = gl_program(call.program)?;
        let func = call.function();
        let enc = self.encoder(plan_only || self.exec.tracing());
        if !func
            .params
            .iter()
            .any(|p| matches!(p.class, ParamClass::Vout { .. }))
        {
            let (scratch, plan) = self.kernel_passes(&enc, program, call, args, None, plan_only)?;
            return Ok(KernelOutcome {
                scratch,
                counts: Vec::new(),
                plan,
            });
        }
        let module = &call.compiled.module;
        let vouts = VoutCall::new(&enc, &self.vout_spares, module, func, args, &call.shape)?;
        let with_candidates = vouts.kernel_args(args);
        let (scratch, mut plan) = self.kernel_passes(
            &enc,
            program,
            call,
            &with_candidates,
            Some(&vouts),
            plan_only,
        )?;
        let mut kept = Vec::new();
        let mut counts = Vec::new();
        for v in &vouts.vouts {
            let packing = Packing::new(&enc, &self.vout_spares, v, vouts.elements)?;
            let mut steps = Vec::new();
            packing.encode(&enc, v, vouts.elements, &mut steps)?;
            if plan_only {
                plan.extend(traced(&steps));
            } else {
                self.exec.run(&steps, None)?;
                let passes = enc.tracing.then(|| traced(&steps));
                drop(steps);
                let pushed = packing.pushed()?;
                counts.push(pushed);
                if let Some(passes) = passes {
                    self.exec.record(|| {
                        TraceEntry::Vout(VoutTrace {
                            kernel: func.name.clone(),
                            vout: func.params[v.param].name.clone(),
                            elements: vouts.elements,
                            pushed,
                            passes,
                        })
                    });
                }
            }
            kept.extend(packing.into_spares());
        }
        self.exec
            .check(&format!("packing the vouts of kernel `{}`", func.name))?;
        drop(with_candidates);
        kept.extend(vouts.into_spares());
        self.vout_spares.keep(kept);
        Ok(KernelOutcome {
            scratch,
            counts,
            plan,
        })
    }

    /// The kernel's own passes: the vouts' count clears, scratch copies, the mask a write
    /// query counts through, the draws.
    fn kernel_passes(
        &self,
        enc: &Encoder,
        program: &GlProgram,
        call: &KernelCall,
        args: &[KernelArg],
        vouts: Option<&VoutCall>,
        plan_only: bool,
    ) -> Result<(Vec<Replacement>, Vec<PassTrace>), PassError> {
        let func = call.function();
        let module = &call.compiled.module;
        let passes = KernelPasses::new(enc, program, call.kernel, args)?;
        let scratch = in_place_scratch(args)?;
        let MaskUse { masked, counting } = call.mask;
        // While counting without a mask, the call draws through one that passes every
        // element, so the layout's padding texels are not counted.
        let counting_mask = if counting && !masked {
            let layout = passes.output.stream.layout();
            let program = self.builtins.mask(&self.ctx, &self.target)?;
            Some((WriteMask::new(&self.ctx, layout)?, program))
        } else {
            None
        };
        let set_mask = self.mask.borrow();
        let mask = match (masked, &counting_mask) {
            (true, _) => Some(set_mask.as_ref().ok_or_else(|| PassError::Call {
                call: func.name.clone(),
                message: "a masked call without a mask".into(),
            })?),
            (false, Some((m, _))) => Some(m),
            (false, None) => None,
        };
        let scratch_ref = &scratch;
        let mut steps = Vec::new();
        if let Some(vouts) = vouts {
            vouts.encode_clears(enc, &mut steps);
        }
        encode_scratch_copies(enc, args, scratch_ref, &mut steps);
        if let Some((m, p)) = &counting_mask {
            let label = enc.label(|| "every element on, for the write query".into());
            steps.push(m.draw(p, None, label)?);
        }
        passes.encode(
            enc,
            module,
            func,
            args,
            scratch_ref,
            mask,
            counting,
            &mut steps,
        )?;
        if plan_only {
            let plan = traced(&steps);
            drop(steps);
            return Ok((scratch, plan));
        }
        self.exec.run(&steps, self.query.borrow_mut().as_mut())?;
        self.exec
            .check(&format!("running kernel `{}`", func.name))?;
        self.exec.record(|| {
            TraceEntry::Kernel(CallTrace {
                function: func.name.clone(),
                source_line: Some(call.compiled.line_of(func)),
                variant: passes.variant.clone(),
                compiled: passes.compiled,
                scratch: scratch_trace(func, args, scratch_ref),
                passes: traced(&steps),
            })
        });
        drop(steps);
        Ok((scratch, Vec::new()))
    }

    /// Runs a reduction.
    fn reduction(&self, call: &ReduceCall, output: ReduceOutput) -> Result<(), PassError> {
        let program = gl_program(call.program)?;
        let func = call.function();
        let name = CallName("reduction", &func.name);
        let input = textures(&call.input, &name)?;
        let held = hold(call.extra, &name)?;
        let extra = kernel_args(&held, extra_classes(func));
        let (into, value): (Option<Ref<GlStream>>, _) = match output {
            ReduceOutput::Stream(s) => (Some(textures(&s, &name)?), None),
            ReduceOutput::Value(v) => (None, Some(v)),
        };
        let enc = self.encoder(self.exec.tracing());
        let ends = Ends {
            input: &input,
            extra: &extra,
            into: into.as_deref(),
        };
        let (spare, plan) = (&self.reduce_spares, &call.plan);
        let reduction = Reduction::new(&enc, spare, program, call.function, plan, ends)?;
        let mut steps = Vec::new();
        reduction.encode(&enc, &call.compiled.module, func, plan, ends, &mut steps)?;
        self.exec.run(&steps, None)?;
        self.exec.check(&format!("running {name}"))?;
        self.exec.record(|| {
            TraceEntry::Reduce(CallTrace {
                function: func.name.clone(),
                source_line: Some(call.compiled.line_of(func)),
                variant: format!(
                    "{} -> {}",
                    brook_core::fmt_shape(&call.plan.input),
                    if into.is_some() {
                        brook_core::fmt_shape(&call.plan.target)
                    } else {
                        "a value".into()
                    }
                ),
                compiled: reduction.compiled,
                scratch: Vec::new(),
                passes: traced(&steps),
            })
        });
        drop(steps);
        if let Some(dst) = value {
            let result = reduction
                .intermediates
                .last()
                .expect("a value reduction ends in an intermediate");
            result.write(dst)?;
        }
        self.reduce_spares.keep(reduction.intermediates);
        Ok(())
    }

    fn scatter_call(&self, call: &ScatterCall) -> Result<(), PassError> {
        let name: &dyn Display = &"streamScatterOp";
        let (dst, index, data) = (
            textures(&call.dst, name)?,
            textures(&call.index, name)?,
            textures(&call.data, name)?,
        );
        let enc = self.encoder(self.exec.tracing());
        let scatter = Scatter::new(&enc, &dst, &index, &call.op)?;
        let mut steps = Vec::new();
        scatter.encode(&enc, &dst, &index, &data, &mut steps)?;
        self.exec.run(&steps, None)?;
        self.exec.check("scattering")?;
        self.exec.record(|| {
            TraceEntry::Scatter(CallTrace {
                function: format!("streamScatterOp {}", combiner_name(&call.op)),
                source_line: None,
                variant: format!("{} elements", call.data.shape.iter().product::<usize>()),
                compiled: scatter.compiled(),
                scratch: Vec::new(),
                passes: traced(&steps),
            })
        });
        Ok(())
    }

    fn gather_op_call(&self, call: &GatherOpCall) -> Result<(), PassError> {
        let name: &dyn Display = &"streamGatherOp";
        let (dst, index, data) = (
            textures(&call.dst, name)?,
            textures(&call.index, name)?,
            textures(&call.data, name)?,
        );
        let enc = self.encoder(self.exec.tracing());
        let update = call.update.as_ref().map(|(op, operand)| (op, *operand));
        let gather = GatherOp::new(&enc, &dst, &index, &data, update)?;
        let mut steps = Vec::new();
        gather.encode(&enc, &dst, &index, &data, &mut steps)?;
        self.exec.run(&steps, None)?;
        self.exec.check("gathering with an update")?;
        self.exec.record(|| {
            TraceEntry::GatherOp(CallTrace {
                function: format!(
                    "streamGatherOp {}",
                    call.update
                        .as_ref()
                        .map_or("fetch".into(), |(op, _)| combiner_name(op))
                ),
                source_line: None,
                variant: format!("{} elements", call.index.shape.iter().product::<usize>()),
                compiled: gather.compiled(),
                scratch: Vec::new(),
                passes: traced(&steps),
            })
        });
        Ok(())
    }

    fn set_mask(&self, mask: &StreamArg) -> Result<(), PassError> {
        let name: &dyn Display = &"streamSetWriteMask";
        let stream = textures(mask, name)?;
        let made = WriteMask::new(&self.ctx, stream.layout())?;
        let program = self.builtins.mask(&self.ctx, &self.target)?;
        let enc = self.encoder(self.exec.tracing());
        let label = enc.label(|| "the mask's first float into depth".into());
        let steps = [made.draw(&program, stream.textures().first(), label)?];
        self.exec.run(&steps, None)?;
        self.exec
            .check("drawing a write mask into a depth texture")?;
        self.exec.record(|| {
            TraceEntry::WriteMask(CallTrace {
                function: name.to_string(),
                source_line: None,
                variant: brook_core::fmt_shape(mask.shape),
                compiled: false,
                scratch: Vec::new(),
                passes: traced(&steps),
            })
        });
        drop(steps);
        *self.mask.borrow_mut() = Some(made);
        Ok(())
    }
}

/// What a kernel call left: in-place outputs to swap in, the pushes of each vout, and (when
/// planning) the passes it would run.
struct KernelOutcome {
    scratch: Vec<Replacement>,
    counts: Vec<usize>,
    plan: Vec<PassTrace>,
}

/// The GL form of a program.
fn gl_program(program: &dyn Any) -> Result<&GlProgram, BrookError> {
    program
        .downcast_ref::<GlProgram>()
        .ok_or_else(|| BrookError::ForeignStream {
            call: "a program compiled for another runtime".into(),
        })
}

fn combiner_name(op: &brook_core::Combiner) -> String {
    match op {
        brook_core::Combiner::Replace => "replace".into(),
        brook_core::Combiner::Add => "add".into(),
        brook_core::Combiner::Min => "min".into(),
        brook_core::Combiner::Max => "max".into(),
        brook_core::Combiner::Reduce {
            compiled, function, ..
        } => format!("`{}`", compiled.module.func(*function).name),
    }
}

/// Swaps the in-place outputs' scratch streams in, now that the call's borrows are over.
fn swap_in(call: &KernelCall, scratch: Vec<Replacement>) -> Result<(), BrookError> {
    for mut r in scratch {
        if let Some(s) = call.args[r.param].stream() {
            let name = CallName("kernel", &call.function().name);
            std::mem::swap(&mut *textures_mut(s.storage, &name)?, &mut r.stream);
        }
    }
    Ok(())
}

fn kernel_classes(func: &Function) -> impl Iterator<Item = ParamClass> + '_ {
    func.params.iter().map(|p| p.class)
}

impl Backend for GlBackend {
    fn name(&self) -> &'static str {
        "gl"
    }

    fn describe(&self) -> String {
        let caps = self.ctx.caps();
        format!("GL: {} ({})", caps.renderer, caps.version)
    }

    fn create_stream(
        &self,
        format: &ElementFormat,
        shape: &[usize],
    ) -> Result<BackendStream, BrookError> {
        let stream = GlStream::new(&self.ctx, format.clone(), shape).map_err(PassError::from)?;
        Ok(Box::new(GlStorage::Textures(RefCell::new(stream))))
    }

    fn create_iter(&self, spec: &IterSpec) -> Result<BackendStream, BrookError> {
        Ok(Box::new(GlStorage::Iter(spec.clone())))
    }

    fn read(&self, stream: &StreamArg, data: &[f32]) -> Result<(), BrookError> {
        let mut s = textures_mut(stream.storage, &"streamRead")?;
        match stream.domain {
            None => s.read(data),
            Some(d) => s.read_domain(d, data),
        }
        .map_err(|e| PassError::from(e).into())
    }

    fn write(&self, stream: &StreamArg, out: &mut [f32]) -> Result<(), BrookError> {
        let s = textures(stream, &"streamWrite")?;
        match stream.domain {
            None => s.write(out),
            Some(d) => s.write_domain(d, out),
        }
        .map_err(|e| PassError::from(e).into())
    }

    fn prepare(&self, program: &Rc<Compiled>) -> Result<BackendProgram, BrookError> {
        Ok(Box::new(GlProgram::new(program.clone())))
    }

    fn run_kernel(&self, call: &KernelCall) -> Result<Vec<usize>, BrookError> {
        let name = CallName("kernel", &call.function().name);
        let held = hold(call.args, &name)?;
        let args = kernel_args(&held, kernel_classes(call.function()));
        let ran = self.kernel(call, &args, false)?;
        drop(args);
        drop(held);
        swap_in(call, ran.scratch)?;
        Ok(ran.counts)
    }

    fn plan_kernel(&self, call: &KernelCall) -> Result<Vec<PassTrace>, BrookError> {
        let name = CallName("kernel", &call.function().name);
        let held = hold(call.args, &name)?;
        let args = kernel_args(&held, kernel_classes(call.function()));
        Ok(self.kernel(call, &args, true)?.plan)
    }

    fn reduce(&self, call: &ReduceCall, output: ReduceOutput) -> Result<(), BrookError> {
        Ok(self.reduction(call, output)?)
    }

    fn scatter(&self, call: &ScatterCall) -> Result<(), BrookError> {
        Ok(self.scatter_call(call)?)
    }

    fn gather_op(&self, call: &GatherOpCall) -> Result<(), BrookError> {
        Ok(self.gather_op_call(call)?)
    }

    fn set_write_mask(&self, mask: &StreamArg) -> Result<(), BrookError> {
        Ok(self.set_mask(mask)?)
    }

    fn begin_write_query(&self) -> Result<(), BrookError> {
        let query = WriteQuery::new(&self.ctx)?;
        *self.query.borrow_mut() = Some(query);
        Ok(())
    }

    fn end_write_query(&self) -> Result<u64, BrookError> {
        let query = self.query.borrow_mut().take();
        match query {
            Some(q) => Ok(q.total()?),
            None => Err(BrookError::State {
                call: "streamEndWriteQuery".into(),
                message: "no write query is open (streamBeginWriteQuery)".into(),
            }),
        }
    }

    fn swap(&self, a: &StreamArg, b: &StreamArg) -> Result<(), BrookError> {
        let (mut x, mut y) = (
            textures_mut(a.storage, &"streamSwap")?,
            textures_mut(b.storage, &"streamSwap")?,
        );
        std::mem::swap(&mut *x, &mut *y);
        let names = |s: &GlStream| s.textures().iter().map(|t| t.raw().0.get()).collect();
        self.exec.record(|| TraceEntry::Swap {
            first: names(&x),
            second: names(&y),
        });
        Ok(())
    }

    fn set_trace(&self, on: bool) {
        self.exec.set_trace(on);
    }

    fn take_trace(&self) -> Vec<TraceEntry> {
        self.exec.take_trace()
    }

    fn finish(&self) {
        // Nothing can be queued on a context that cannot be made current.
        if self.ctx.make_current().is_ok() {
            // SAFETY: the context was just made current on this thread.
            unsafe { self.ctx.gl().finish() };
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
