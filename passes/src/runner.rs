//! Running kernel calls on GL: choose the variant, fetch or build its programs, draw each pass.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use brook_frontend::ir::{FunctionId, Module, ParamClass};
use brook_glsl::{
    candidate_of, generate_kernel, iteration_bound_given, stream_members, MemberRef, OutputRegion,
    SourceText, Target, Variant,
};
use brook_texture_streams::{GlContext, Program, Stream, TexelRect, Texture};

use crate::args::{variant_for, KernelArg, StreamArg};
use crate::draw::{draw_pass, sampled_textures};
use crate::error::PassError;
use crate::linked::{LinkedKernel, LinkedPass};
use crate::reduce::ReduceCache;
use crate::scatter::ScatterCache;
use crate::trace::{KernelTrace, PassTrace, ScratchTrace, TraceEntry};
use crate::uniforms::uniform_data;
use crate::vout::{has_vouts, VoutCache};
use crate::write_mask::{mask_of, mask_program, WriteMask, WriteQuery};

/// A checked Brook module with a process-unique identity, so compiled programs can be cached
/// per (module, kernel, variant) without hashing the IR on every call.
pub struct KernelModule {
    pub(crate) id: u64,
    module: Module,
    source: Option<SourceText>,
}

impl KernelModule {
    pub fn new(module: Module, source: Option<SourceText>) -> KernelModule {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        KernelModule {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            module,
            source,
        }
    }

    pub fn module(&self) -> &Module {
        &self.module
    }

    pub fn source(&self) -> Option<&SourceText> {
        self.source.as_ref()
    }
}

/// A kernel variant, and whether it checks its loops (`KernelRunner::call_target`).
type CacheKey = (u64, FunctionId, Variant, bool);

/// Runs kernels on one GL context, compiling each distinct shader once.
pub struct KernelRunner {
    pub(crate) ctx: Rc<GlContext>,
    pub(crate) target: Target,
    programs: RefCell<HashMap<CacheKey, Rc<LinkedKernel>>>,
    pub(crate) reductions: ReduceCache,
    pub(crate) scatters: ScatterCache,
    pub(crate) vouts: VoutCache,
    /// The pass trace, while tracing is on.
    trace: RefCell<Option<Vec<TraceEntry>>>,
    /// The depth-writing program of write masks, linked on first use.
    mask_program: RefCell<Option<Program>>,
    /// The write mask last set, and whether kernel calls use it.
    write_mask: RefCell<Option<WriteMask>>,
    mask_enabled: Cell<bool>,
    /// The open write query, between its begin and end.
    query: RefCell<Option<WriteQuery>>,
    /// Where kernels that check their loops write the loop status (`PassProgram::loop_status`),
    /// kept for the next call with outputs of the same texture size.
    loop_status: RefCell<Option<Texture>>,
}

/// What a kernel call left to its caller.
pub struct KernelRun {
    /// Outputs that were also inputs, to swap in.
    pub replacements: Vec<Replacement>,
    /// Pushes each vout parameter received, in parameter order (empty without vouts).
    pub vout_counts: Vec<usize>,
}

/// An output of a call that was also one of its inputs (in place): the call drew into this
/// scratch stream, which must now take the place of the argument's stream (swap their
/// storage, e.g. `std::mem::swap`), because GL cannot sample a texture while drawing into it.
#[must_use = "the result of an in-place call is in the scratch stream until it is swapped in"]
pub struct Replacement {
    /// The output parameter's position.
    pub param: usize,
    pub stream: Stream,
}

impl KernelRunner {
    pub fn new(ctx: &Rc<GlContext>) -> KernelRunner {
        let target = Target {
            profile: crate::linked::profile(ctx),
            max_draw_buffers: ctx.caps().max_draw_buffers,
            loop_cap: ctx.caps().loop_iteration_cap(),
        };
        KernelRunner {
            ctx: ctx.clone(),
            target,
            programs: RefCell::new(HashMap::new()),
            reductions: ReduceCache::default(),
            scatters: ScatterCache::default(),
            vouts: VoutCache::default(),
            trace: RefCell::new(None),
            mask_program: RefCell::new(None),
            write_mask: RefCell::new(None),
            mask_enabled: Cell::new(false),
            query: RefCell::new(None),
            loop_status: RefCell::new(None),
        }
    }

    /// Brook's `streamSetWriteMask`: draws `mask` into a depth texture now (later changes to
    /// the stream need another call). Calls use it while it is enabled.
    pub fn set_write_mask(&self, mask: &Stream) -> Result<(), PassError> {
        let made = self.with_mask_program(|p| mask_of(&self.ctx, p, mask))?;
        *self.write_mask.borrow_mut() = Some(made);
        Ok(())
    }

    /// Brook's `streamEnableWriteMask` / `streamDisableWriteMask`.
    pub fn enable_write_mask(&self, on: bool) -> Result<(), PassError> {
        if on && self.write_mask.borrow().is_none() {
            return Err(PassError::Call {
                kernel: "streamEnableWriteMask".into(),
                message: "no write mask was set (streamSetWriteMask) before enabling it".into(),
            });
        }
        self.mask_enabled.set(on);
        Ok(())
    }

    /// Brook's `streamBeginWriteQuery`: counts the elements the following kernel calls write.
    pub fn begin_write_query(&self) -> Result<(), PassError> {
        if self.query.borrow().is_some() {
            return Err(PassError::Call {
                kernel: "streamBeginWriteQuery".into(),
                message: "a write query is already open; end it first".into(),
            });
        }
        *self.query.borrow_mut() = Some(WriteQuery::new(&self.ctx)?);
        Ok(())
    }

    /// Brook's `streamEndWriteQuery`: the elements written since the query began.
    pub fn end_write_query(&self) -> Result<u64, PassError> {
        let query = self
            .query
            .borrow_mut()
            .take()
            .ok_or_else(|| PassError::Call {
                kernel: "streamEndWriteQuery".into(),
                message: "no write query is open (streamBeginWriteQuery)".into(),
            })?;
        query.total()
    }

    fn with_mask_program<T>(
        &self,
        f: impl FnOnce(&Program) -> Result<T, PassError>,
    ) -> Result<T, PassError> {
        let mut slot = self.mask_program.borrow_mut();
        if slot.is_none() {
            *slot = Some(mask_program(&self.ctx)?);
        }
        f(slot.as_ref().expect("linked above"))
    }

    /// The depth mask a call with these outputs draws through: the enabled write mask, or
    /// while a write query is open one that passes every element (so the layout's padding
    /// texels are not counted). Masks have the shape of the whole output streams, also when
    /// the call writes a domain of them.
    fn call_mask(&self, kernel: &str, output: &StreamArg) -> Result<Option<WriteMask>, PassError> {
        let counting = self.query.borrow().is_some();
        let masking = self.mask_enabled.get();
        if !counting && !masking {
            return Ok(None);
        }
        let fail = |message: String| Err(call_error(kernel, message));
        // The mask covers the whole output streams; a domain's draw (its viewport, or its
        // discards outside the domain) writes only the mask's elements inside it.
        if masking {
            let mask = self.write_mask.borrow();
            let shape = mask.as_ref().map(|m| m.layout().shape().to_vec());
            if shape.as_deref() != Some(output.stream.layout().shape()) {
                return fail(format!(
                    "the write mask has shape {:?} but the outputs have shape {:?}",
                    shape.unwrap_or_default(),
                    output.stream.layout().shape()
                ));
            }
            return Ok(None);
        }
        let layout = output.stream.layout();
        self.with_mask_program(|p| WriteMask::draw(&self.ctx, p, layout, None))
            .map(Some)
    }

    pub fn context(&self) -> &Rc<GlContext> {
        &self.ctx
    }

    /// Distinct programs compiled so far (one per kernel variant, reduction step or scatter).
    pub fn compiled_variants(&self) -> usize {
        self.programs.borrow().len()
            + self.reductions.compiled()
            + self.scatters.compiled()
            + self.vouts.compiled()
    }

    /// Starts (keeping nothing from before) or stops recording the pass trace.
    pub fn set_trace(&self, on: bool) {
        *self.trace.borrow_mut() = on.then(Vec::new);
    }

    /// The entries recorded since tracing started or since the last take.
    pub fn take_trace(&self) -> Vec<TraceEntry> {
        self.trace
            .borrow_mut()
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Adds an entry while tracing (the runtime's own steps, such as `streamSwap`).
    pub fn record(&self, entry: impl FnOnce() -> TraceEntry) {
        if let Some(log) = self.trace.borrow_mut().as_mut() {
            log.push(entry());
        }
    }

    pub(crate) fn tracing(&self) -> bool {
        self.trace.borrow().is_some()
    }

    /// The GLSL passes a call with these arguments runs, without running it. A kernel with
    /// vouts has its kernel passes, then the scan programs (up-sweep, down-sweep: each drawn
    /// once per level) and a compaction program per vout member.
    pub fn plan(
        &self,
        module: &KernelModule,
        kernel: FunctionId,
        args: &[KernelArg],
    ) -> Result<brook_glsl::KernelProgram, PassError> {
        let func = module.module.func(kernel);
        let vouts = if has_vouts(func) {
            self.ctx.make_current()?;
            Some(self.vout_call(&module.module, func, args)?)
        } else {
            None
        };
        let args = match &vouts {
            Some(v) => v.kernel_args(args),
            None => args.to_vec(),
        };
        let call = Call::check(&func.name, func, &args)?;
        let mut program = generate_kernel(
            &module.module,
            kernel,
            &call.variant,
            &self.call_target(&module.module, kernel, &args),
            module.source(),
        )?;
        if vouts.is_some() {
            program.passes.extend(self.vout_plan(&module.module, func)?);
        }
        Ok(program)
    }

    /// Runs `kernel` over its output streams (or their domains). Outputs that are also inputs
    /// come back as [`Replacement`]s to swap in; the vouts' pushes are packed into their
    /// streams (element order, then push order; the rest zeroed), and counted.
    pub fn run(
        &self,
        module: &KernelModule,
        kernel: FunctionId,
        args: &[KernelArg],
    ) -> Result<KernelRun, PassError> {
        let func = module.module.func(kernel);
        if !has_vouts(func) {
            return Ok(KernelRun {
                replacements: self.run_passes(module, kernel, args)?,
                vout_counts: Vec::new(),
            });
        }
        if self.mask_enabled.get() || self.query.borrow().is_some() {
            return Err(call_error(
                &func.name,
                "write masks and write queries do not apply to kernels with vout parameters; disable the mask (end the query) first".into(),
            ));
        }
        self.ctx.make_current()?;
        let vouts = self.vout_call(&module.module, func, args)?;
        let replacements = self.run_passes(module, kernel, &vouts.kernel_args(args))?;
        Ok(KernelRun {
            replacements,
            vout_counts: self.pack_vouts(func, vouts)?,
        })
    }

    /// The kernel passes of a call.
    fn run_passes(
        &self,
        module: &KernelModule,
        kernel: FunctionId,
        args: &[KernelArg],
    ) -> Result<Vec<Replacement>, PassError> {
        let func = module.module.func(kernel);
        let call = Call::check(&func.name, func, args)?;
        self.ctx.make_current()?;
        let target = self.call_target(&module.module, kernel, args);
        let (linked, compiled) = self.linked(module, kernel, call.variant.clone(), &target)?;
        let scratch = in_place_scratch(&func.name, args)?;
        let mut trace = self.tracing().then(|| KernelTrace {
            kernel: func.name.clone(),
            variant: format!("{:?}", call.variant),
            compiled,
            scratch: scratch_trace(func, args, &scratch),
            passes: Vec::new(),
        });
        let viewport = viewport(&call.output, call.variant.output);
        let own_mask = self.call_mask(&func.name, &call.output)?;
        let set_mask = self.write_mask.borrow();
        let mask = own_mask
            .as_ref()
            .or(set_mask.as_ref().filter(|_| self.mask_enabled.get()));
        let status = self.loop_status_target(&linked, &call.output)?;
        for (k, pass) in linked.passes.iter().enumerate() {
            let traced = self.draw(
                &module.module,
                kernel,
                args,
                &scratch,
                pass,
                &call.output,
                viewport,
                (mask, k == 0),
                status.as_ref(),
            )?;
            if let Some(t) = trace.as_mut() {
                t.passes.push(PassTrace {
                    discards_outside_domain: matches!(
                        call.variant.output,
                        OutputRegion::Masked { .. }
                    ),
                    ..traced
                });
            }
        }
        self.ctx
            .check_error(&format!("running kernel `{}`", func.name))?;
        if let Some(status) = status {
            self.check_loops(module, &func.name, &status, viewport)?;
        }
        if let Some(t) = trace {
            self.record(|| TraceEntry::Kernel(t));
        }
        Ok(scratch)
    }

    /// One pass: framebuffer, viewport, program, textures, uniforms, one triangle. Returns
    /// what it bound (built only while tracing; otherwise empty).
    #[allow(clippy::too_many_arguments)]
    fn draw(
        &self,
        module: &Module,
        kernel: FunctionId,
        args: &[KernelArg],
        scratch: &[Replacement],
        pass: &LinkedPass,
        output: &StreamArg,
        viewport: [i32; 4],
        (mask, first_pass): (Option<&WriteMask>, bool),
        loop_status: Option<&std::cell::Ref<'_, Texture>>,
    ) -> Result<PassTrace, PassError> {
        let func = module.func(kernel);
        let tracing = self.tracing();
        let fail = |message: String| call_error(&func.name, message);
        let mut targets: Vec<&Texture> = pass
            .plan
            .outputs
            .iter()
            .map(|m| {
                let param = m.param as usize;
                let stream = match scratch.iter().find(|r| r.param == param) {
                    Some(r) => &r.stream,
                    None => {
                        args[param]
                            .stream()
                            .expect("variant_for checked that output parameters get streams")
                            .stream
                    }
                };
                texture(stream, m.member)
            })
            .collect::<Result<_, _>>()
            .map_err(fail)?;
        if let (Some(_), Some(status)) = (pass.plan.loop_status, loop_status) {
            targets.push(status);
        }
        let inputs = sampled_textures(pass, args).map_err(fail)?;
        let mut record = PassTrace {
            program: pass.program.raw().0.get(),
            targets: Vec::new(),
            textures: Vec::new(),
            uniforms: Vec::new(),
            viewport,
            discards_outside_domain: false,
        };
        if tracing {
            record.targets = pass
                .plan
                .outputs
                .iter()
                .zip(&targets)
                .map(|(m, t)| (member_label(module, func, *m), t.raw().0.get()))
                .collect();
        }
        let attached = mask.map(|m| m.attach(&targets)).transpose()?;
        let mut draw = || {
            draw_pass(
                &self.ctx,
                &func.name,
                pass,
                &targets,
                viewport,
                &inputs,
                |value| uniform_data(value, module, func, args, output),
                tracing.then_some(&mut record),
            )
        };
        // Every pass of a split call writes the same elements: count the first only.
        let drawn = match self.query.borrow_mut().as_mut().filter(|_| first_pass) {
            Some(query) => query.count(draw),
            None => draw(),
        };
        drop(attached);
        drawn?;
        Ok(record)
    }

    /// The texture the loop status of this call goes to, cleared, when its kernel checks its
    /// loops: one float per texel of the outputs' texture.
    fn loop_status_target(
        &self,
        linked: &LinkedKernel,
        output: &StreamArg,
    ) -> Result<Option<std::cell::Ref<'_, Texture>>, PassError> {
        if linked.passes.iter().all(|p| p.plan.loop_status.is_none()) {
            return Ok(None);
        }
        let layout = output.stream.layout();
        let (w, h) = (layout.width() as u32, layout.height() as u32);
        {
            let mut slot = self.loop_status.borrow_mut();
            if !slot
                .as_ref()
                .is_some_and(|t| (t.width(), t.height()) == (w, h))
            {
                *slot = Some(Texture::new(&self.ctx, w, h, 1)?);
            }
            slot.as_ref().expect("made above").clear()?;
        }
        Ok(Some(std::cell::Ref::map(self.loop_status.borrow(), |t| {
            t.as_ref().expect("made above")
        })))
    }

    /// Fails the call if a loop was cut short in any element the call drew (`viewport`).
    fn check_loops(
        &self,
        module: &KernelModule,
        kernel: &str,
        status: &Texture,
        viewport: [i32; 4],
    ) -> Result<(), PassError> {
        let [x, y, width, height] = viewport.map(|v| v.max(0) as u32);
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
        let at = match module.source() {
            Some(src) => format!("{}:{line}: {}", src.name, src.line(line)),
            None => format!("line {line}"),
        };
        Err(PassError::LoopCut {
            kernel: kernel.to_string(),
            at,
            renderer: self.ctx.caps().renderer.clone(),
            cap: self.target.loop_cap.unwrap_or(0),
        })
    }

    /// The target a call generates for: without the run-time loop check when the driver caps
    /// loops but the kernel's loops, with this call's constants, stay within the cap (a loop
    /// `for (k = 0; k < m; k++)` over a kernel constant `m` is as cheap as a literal bound).
    fn call_target(&self, module: &Module, kernel: FunctionId, args: &[KernelArg]) -> Target {
        let Some(cap) = self.target.loop_cap else {
            return self.target;
        };
        let constant = |p: u32| match args.get(p as usize) {
            Some(KernelArg::Constant([v])) => Some(f64::from(*v)),
            _ => None,
        };
        match iteration_bound_given(module, kernel, &constant) {
            Some(bound) if bound <= u64::from(cap) => Target {
                loop_cap: None,
                ..self.target
            },
            _ => self.target,
        }
    }

    fn linked(
        &self,
        module: &KernelModule,
        kernel: FunctionId,
        variant: Variant,
        target: &Target,
    ) -> Result<(Rc<LinkedKernel>, bool), PassError> {
        let key = (module.id, kernel, variant, target.loop_cap.is_some());
        if let Some(found) = self.programs.borrow().get(&key) {
            return Ok((found.clone(), false));
        }
        let generated = generate_kernel(&module.module, kernel, &key.2, target, module.source())?;
        let linked = Rc::new(LinkedKernel::link(&self.ctx, generated)?);
        self.programs.borrow_mut().insert(key, linked.clone());
        Ok((linked, true))
    }
}

/// A call's arguments, checked: where the outputs are and the shader variant.
struct Call<'a> {
    output: StreamArg<'a>,
    variant: Variant,
}

impl<'a> Call<'a> {
    fn check(
        kernel: &str,
        func: &brook_frontend::ir::Function,
        args: &[KernelArg<'a>],
    ) -> Result<Call<'a>, PassError> {
        for arg in args {
            if let Some(StreamArg {
                stream,
                domain: Some(d),
            }) = arg.stream()
            {
                d.fits(stream.layout())?;
            }
        }
        let output = output_place(kernel, args)?;
        let variant =
            variant_for(func, args, &output).map_err(|message| call_error(kernel, message))?;
        Ok(Call { output, variant })
    }
}

/// The first output, after checking that every output has its shape (Brook's rule) and, with
/// domains, its place: one draw writes the same texels of every render target.
fn output_place<'a>(kernel: &str, args: &[KernelArg<'a>]) -> Result<StreamArg<'a>, PassError> {
    let outputs: Vec<StreamArg> = args
        .iter()
        .filter_map(|a| match a {
            KernelArg::Out(s) => Some(*s),
            _ => None,
        })
        .collect();
    let first = *outputs.first().ok_or_else(|| {
        call_error(
            kernel,
            "a kernel call needs at least one output stream".into(),
        )
    })?;
    for other in &outputs[1..] {
        if other.shape() != first.shape() {
            return Err(call_error(
                kernel,
                format!(
                    "all output streams of one call must have the same shape, but got {:?} and {:?}",
                    first.shape(),
                    other.shape()
                ),
            ));
        }
        if other.stream.layout() != first.stream.layout() || other.lo() != first.lo() {
            return Err(call_error(
                kernel,
                "output domains of one call must be the same region of streams of the same shape on GL (one draw writes the same texels of every output)".into(),
            ));
        }
    }
    Ok(first)
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

/// A scratch copy of every output that the call also reads as a plain input. A stream both
/// gathered and written by one call is an error, as in Brook: a gather may read any element,
/// so no order of reads and writes is the obvious one.
fn in_place_scratch(kernel: &str, args: &[KernelArg]) -> Result<Vec<Replacement>, PassError> {
    let mut scratch = Vec::new();
    for (param, arg) in args.iter().enumerate() {
        let KernelArg::Out(out) = arg else { continue };
        let mut read = false;
        for (other, a) in args.iter().enumerate() {
            match a {
                KernelArg::Gather(g) if std::ptr::eq(g.stream, out.stream) => {
                    return Err(call_error(
                        kernel,
                        "a stream is both gathered and written by this call; Brook allows in-place calls only for plain stream inputs".into(),
                    ))
                }
                KernelArg::Out(o) if other != param && std::ptr::eq(o.stream, out.stream) => {
                    return Err(call_error(
                        kernel,
                        "one stream is passed to two outputs".into(),
                    ))
                }
                KernelArg::Stream(s) => read |= std::ptr::eq(s.stream, out.stream),
                _ => {}
            }
        }
        if read {
            // A copy, so elements outside a domain or discarded keep their values.
            scratch.push(Replacement {
                param,
                stream: out.stream.duplicate()?,
            });
        }
    }
    Ok(scratch)
}

fn scratch_trace(
    func: &brook_frontend::ir::Function,
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
fn member_label(module: &Module, func: &brook_frontend::ir::Function, m: MemberRef) -> String {
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

pub(crate) fn texture(stream: &Stream, member: u32) -> Result<&Texture, String> {
    stream.textures().get(member as usize).ok_or_else(|| {
        format!("the stream has no member {member}: its element type does not match the parameter")
    })
}

pub(crate) fn call_error(kernel: &str, message: String) -> PassError {
    PassError::Call {
        kernel: kernel.to_string(),
        message,
    }
}
