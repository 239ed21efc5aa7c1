//! The seam between the user API and the machines that run Brook: GL, CPU, later wgpu.
//!
//! A backend owns its own stream storage and compiled programs; the runtime hands them back as
//! opaque values (`Box<dyn Any>`), so a stream made by one backend can only be used with that
//! backend, and adding a backend touches nothing else.

use std::any::Any;
use std::rc::Rc;

use brook_frontend::ir::FunctionId;
use brook_glsl::KernelProgram;
use brook_passes::TraceEntry;
use brook_texture_streams::{Domain, ElementFormat, GlContext, IterSpec};

use crate::error::BrookError;
use crate::program::Compiled;

/// A backend's own stream storage.
pub type BackendStream = Box<dyn Any>;
/// A backend's own compiled form of a program.
pub type BackendProgram = Box<dyn Any>;

/// One argument of a kernel call as a backend sees it: a stream of that backend (whole or a
/// domain of it), or the floats of a constant.
#[derive(Clone, Copy)]
pub enum BackendArg<'a> {
    Stream(&'a dyn Any),
    /// A domain of a stream, bounds outermost dimension first; it fits the stream and is not
    /// the whole of it (the runtime passes a whole-stream domain as the stream).
    Domain(&'a dyn Any, &'a Domain),
    Constant(&'a [f32]),
}

/// Where a reduction's result goes, as a backend sees it.
pub enum BackendReduceTarget<'a> {
    /// The reduced element's floats in C layout.
    Value(&'a mut [f32]),
    /// A stream of this backend whose extents divide the input's.
    Stream(&'a dyn Any),
}

/// A `streamScatterOp` combiner as a backend sees it.
#[derive(Clone, Copy)]
pub enum BackendScatterOp<'a> {
    Replace,
    Add,
    Min,
    Max,
    /// A reduce function (checked by the runtime) of a program prepared by this backend.
    Reduce(&'a dyn Any, FunctionId),
}

impl<'a> BackendArg<'a> {
    /// The stream storage of a stream argument, and its domain if any.
    pub fn stream(&self) -> Option<(&'a dyn Any, Option<&'a Domain>)> {
        match *self {
            BackendArg::Stream(s) => Some((s, None)),
            BackendArg::Domain(s, d) => Some((s, Some(d))),
            BackendArg::Constant(_) => None,
        }
    }
}

/// What every backend implements. Semantics are those of `brook-semantics.md`; the CPU
/// backend is the reference the others are tested against.
pub trait Backend {
    /// `"gl"`, `"cpu"`, … as `BRT_RUNTIME` spells it.
    fn name(&self) -> &'static str;
    /// A longer description (renderer, cores, …) for reports.
    fn describe(&self) -> String;
    fn create_stream(
        &self,
        format: &ElementFormat,
        shape: &[usize],
    ) -> Result<BackendStream, BrookError>;
    fn create_iter(&self, spec: &IterSpec) -> Result<BackendStream, BrookError>;
    /// Brook's `streamRead`: host array (C array-of-structs layout) into the stream or a domain of it.
    fn read(
        &self,
        stream: &dyn Any,
        domain: Option<&Domain>,
        data: &[f32],
    ) -> Result<(), BrookError>;
    /// Brook's `streamWrite`: the stream, or a domain of it, to a host array.
    fn write(
        &self,
        stream: &dyn Any,
        domain: Option<&Domain>,
        out: &mut [f32],
    ) -> Result<(), BrookError>;
    /// Prepares a checked program for this backend (once per program).
    fn prepare(&self, program: &Rc<Compiled>) -> Result<BackendProgram, BrookError>;
    /// Runs a kernel; `args` has one entry per kernel parameter. The runtime has checked that
    /// no stream is passed to two outputs or gathered and written; a stream that is an input
    /// and an output (in place) must read its old values everywhere. Returns how many values
    /// each `vout` parameter received, in parameter order (empty without vouts).
    fn run_kernel(
        &self,
        program: &dyn Any,
        kernel: FunctionId,
        args: &[BackendArg],
    ) -> Result<Vec<usize>, BrookError>;
    /// Reduces `input` with a reduce function in index order (`brook-semantics.md`);
    /// `extra` binds its constant and gather parameters in order.
    fn reduce(
        &self,
        program: &dyn Any,
        reduce_fn: FunctionId,
        input: &dyn Any,
        extra: &[BackendArg],
        target: BackendReduceTarget,
    ) -> Result<(), BrookError>;
    /// Brook's `streamScatterOp(dst, index, data, op)`, in index order (`brook-semantics.md`);
    /// three distinct non-iterator streams of this backend (checked by the runtime).
    fn scatter(
        &self,
        dst: &dyn Any,
        index: &dyn Any,
        data: &dyn Any,
        op: BackendScatterOp,
    ) -> Result<(), BrookError>;
    /// Brook's `streamSetWriteMask`: takes the mask's current contents (a non-iterator stream
    /// of this backend); while enabled, kernel calls (on output streams of the mask's shape,
    /// or domains of them) write only the elements whose mask's first float is non-zero.
    fn set_write_mask(&self, mask: &dyn Any) -> Result<(), BrookError>;
    /// `streamEnableWriteMask` (`true`; a mask must be set) / `streamDisableWriteMask`.
    fn enable_write_mask(&self, on: bool) -> Result<(), BrookError>;
    /// `streamBeginWriteQuery`: starts counting the elements kernel calls write.
    fn begin_write_query(&self) -> Result<(), BrookError>;
    /// `streamEndWriteQuery`: the elements written (not discarded, not masked off) by the
    /// kernel calls since the query began.
    fn end_write_query(&self) -> Result<u64, BrookError>;
    /// Brook's `streamGatherOp(dst, index, data, op)`, in index order (`brook-semantics.md`):
    /// `dst[i] = data[index[i]]`, then (with `update`) `data[index[i]] = op(operand,
    /// data[index[i]])`; three distinct non-iterator streams of this backend, `operand` one
    /// element of `data`'s type (checked by the runtime).
    fn gather_op(
        &self,
        dst: &dyn Any,
        index: &dyn Any,
        data: &dyn Any,
        update: Option<(BackendScatterOp, &[f32])>,
    ) -> Result<(), BrookError>;
    /// Brook's `streamSwap`: exchanges the storage of two streams of one shape and format
    /// (checked by the runtime).
    fn swap(&self, a: &dyn Any, b: &dyn Any) -> Result<(), BrookError>;
    /// Stops each later kernel call that runs longer than `limit` with an error (`None`: no
    /// limit), for backends that can stop one in its course.
    fn set_time_limit(&self, limit: Option<std::time::Duration>) -> Result<(), BrookError> {
        match limit {
            None => Ok(()),
            Some(_) => Err(BrookError::Usage(format!(
                "the {} backend cannot stop a kernel call once it has started (a GL draw runs to its end); time limits are for the CPU backend, and `brcc run --timeout` ends a whole program on any backend",
                self.name()
            ))),
        }
    }
    /// Starts (afresh) or stops recording what each call becomes, for backends that can say.
    fn set_trace(&self, on: bool);
    /// The entries recorded since tracing started or since the last take.
    fn take_trace(&self) -> Vec<TraceEntry>;
    /// Waits until all work issued so far has finished (GL queues draws asynchronously).
    fn finish(&self);
    /// The GL context, for backends that have one (to bind stream textures in one's own
    /// rendering, or to time against hand-written GL on the same context).
    fn gl_context(&self) -> Option<&Rc<GlContext>>;
    /// The GLSL passes a kernel call would run, for backends that generate GLSL.
    fn glsl_plan(
        &self,
        program: &dyn Any,
        kernel: FunctionId,
        args: &[BackendArg],
    ) -> Result<Option<KernelProgram>, BrookError>;
}
