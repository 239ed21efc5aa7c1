//! The GL backend: streams in float textures, every call encoded as steps and run by the
//! executor. This is where the runtime's checked calls (brook-core's `Backend` trait) meet
//! the encoders; it holds what lives across calls: the context, the programs no Brook program
//! owns, spare intermediates, the write mask and the open write query.

mod fused;
mod kernel;
mod ops;
mod storage;

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use brook_core::call::CallName;
use brook_core::{
    Backend, BackendMask, BackendProgram, BackendStream, BrookError, Compiled, ElementFormat,
    GatherOpCall, IterSpec, KernelCall, PassObserver, PassTrace, ReduceCall, ReduceOutput,
    ScatterCall, StreamArg, TraceEntry,
};
use brook_glsl::Target;
use brook_texture_streams::{GlContext, Layout, Stream as GlStream};
use glow::HasContext;

use crate::encode::mask::{gl_mask, WriteMask, WriteQuery};
use crate::encode::Encoder;
use crate::error::PassError;
use crate::executor::Executor;
use crate::programs::{both, Builtins, GlProgram, Linked};
use crate::spare::SpareStreams;
use kernel::kernel_classes;
use storage::{hold, kernel_args, textures, textures_mut, GlStorage};

pub use storage::gl_textures;

/// Brook on one GL context.
pub struct GlBackend {
    ctx: Rc<GlContext>,
    /// Changes only with the math mode ([`Backend::set_math_mode`]).
    target: Cell<Target>,
    exec: Executor,
    builtins: Builtins,
    reduce_spares: SpareStreams,
    vout_spares: SpareStreams,
    /// The streams the last in-place kernel call replaced: the next one draws into them.
    scratch_spares: SpareStreams,
    /// The last loop-checked kernel call's status texture.
    status_spares: SpareStreams,
    /// The open write query.
    query: RefCell<Option<WriteQuery>>,
    /// How long preparing deferred calls spent generating and linking their shaders
    /// (`prepare_deferred`), not yet in any trace entry: the next kernel or reduction that
    /// runs reports it (the deferred call itself, or the reduction it was fused into), so a
    /// program's first run still shows what compiling it cost.
    unreported_link: Cell<Linked>,
}

impl GlBackend {
    /// A backend drawing with `ctx`, generating GLSL for its version, draw buffers and
    /// loop cap.
    pub fn new(ctx: Rc<GlContext>) -> GlBackend {
        let target = Target {
            profile: crate::linked::profile(&ctx),
            max_draw_buffers: ctx.caps().max_draw_buffers,
            loop_cap: ctx.caps().loop_iteration_cap(),
            math: brook_ir::MathMode::Accurate,
        };
        GlBackend {
            exec: Executor::new(&ctx),
            ctx,
            target: Cell::new(target),
            builtins: Builtins::default(),
            reduce_spares: SpareStreams::default(),
            vout_spares: SpareStreams::default(),
            scratch_spares: SpareStreams::default(),
            status_spares: SpareStreams::default(),
            query: RefCell::new(None),
            unreported_link: Cell::new(None),
        }
    }

    /// `linked` (what a call linked itself) plus what preparing deferred calls linked and no
    /// trace entry has reported yet ([`GlBackend::unreported_link`]).
    fn link_time(&self, linked: Linked) -> Linked {
        both(linked, self.unreported_link.take())
    }

    /// The GL context: to bind stream textures in one's own rendering, or to time against
    /// hand-written GL on the same context.
    pub fn context(&self) -> &Rc<GlContext> {
        &self.ctx
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
            target: self.target.get(),
            builtins: &self.builtins,
            tracing,
        }
    }
}

/// The GL form of a program.
pub(super) fn gl_program(program: &dyn Any) -> Result<&GlProgram, BrookError> {
    program
        .downcast_ref::<GlProgram>()
        .ok_or_else(|| BrookError::ForeignStream {
            call: "a program compiled for another runtime".into(),
        })
}

impl Backend for GlBackend {
    /// A reduction computes a plain kernel call inside its first pass (`encode/reduce.rs`).
    fn fuses(&self) -> bool {
        true
    }

    /// GLSL 3.30 has no 64-bit integers.
    fn resize_index_bits(&self) -> u32 {
        32
    }

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
        let ran = self
            .kernel(call, &args, false)
            .map_err(|e| e.placed(call.compiled))?;
        drop(args);
        drop(held);
        self.swap_in(call, ran.scratch)?;
        Ok(ran.counts)
    }

    fn prepare_deferred(&self, call: &KernelCall) -> Result<bool, BrookError> {
        let name = CallName("kernel", &call.function().name);
        let held = hold(call.args, &name)?;
        let args = kernel_args(&held, kernel_classes(call.function()));
        let (checks_loops, linked) = self
            .kernel_programs(call, &args)
            .map_err(|e| e.placed(call.compiled))?;
        self.unreported_link
            .set(both(self.unreported_link.take(), linked));
        Ok(!checks_loops && !brook_ir::walk::can_discard(&call.compiled.module, call.kernel))
    }

    fn plan_kernel(&self, call: &KernelCall) -> Result<Vec<PassTrace>, BrookError> {
        let name = CallName("kernel", &call.function().name);
        let held = hold(call.args, &name)?;
        let args = kernel_args(&held, kernel_classes(call.function()));
        let planned = self
            .kernel(call, &args, true)
            .map_err(|e| e.placed(call.compiled))?;
        Ok(planned.plan)
    }

    fn reduce(&self, call: &ReduceCall, output: ReduceOutput) -> Result<(), BrookError> {
        self.reduction(call, output, None)
            .map_err(|e| e.placed(call.compiled))
    }

    fn map_reduce(
        &self,
        kernel: &KernelCall,
        reduce: &ReduceCall,
        output: ReduceOutput,
    ) -> Result<bool, BrookError> {
        self.map_reduction(kernel, reduce, output)
    }

    fn scatter(&self, call: &ScatterCall) -> Result<(), BrookError> {
        Ok(self.scatter_call(call)?)
    }

    fn gather_op(&self, call: &GatherOpCall) -> Result<(), BrookError> {
        Ok(self.gather_op_call(call)?)
    }

    fn create_write_mask(&self, shape: &[usize]) -> Result<BackendMask, BrookError> {
        let layout =
            Layout::new(shape, self.ctx.caps().max_texture_size).map_err(PassError::from)?;
        Ok(Box::new(WriteMask::new(&self.ctx, &layout)?))
    }

    fn clear_write_mask(&self, mask: &dyn Any) -> Result<(), BrookError> {
        let call = "write_mask::clear";
        Ok(self.draw_mask(gl_mask(mask, call)?, None, call)?)
    }

    fn load_write_mask(&self, mask: &dyn Any, from: &StreamArg) -> Result<(), BrookError> {
        let call = "streamSetWriteMask";
        Ok(self.draw_mask(gl_mask(mask, call)?, Some(from), call)?)
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

    /// Later calls generate (and cache, by mode) their shaders in `mode`
    /// (`brook_glsl::Target::math`).
    fn set_math_mode(&self, mode: brook_ir::MathMode) -> Result<(), BrookError> {
        self.target.set(Target {
            math: mode,
            ..self.target.get()
        });
        Ok(())
    }

    /// Every step (draw, copy, clear) of every call, its textures readable, timed alone.
    fn set_pass_observer(&self, observer: Option<Box<dyn PassObserver>>) -> Result<(), BrookError> {
        self.exec.set_observer(observer);
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
