//! The gate: the one layer every stream operation passes on its way to the backend. It
//! implements [`Backend`] around the runtime's backend, so each operation is one of its
//! methods, and each method decides from its own arguments what must happen first: which
//! kernel call waiting for a reduction ([`deferred`]) it runs — one that uses a stream it
//! reads into or lends, one that writes a stream it reads, any call before another kernel
//! call, a reduction it cannot fuse with, a scatter, gather-op, mask, query or swap — and
//! what it reports to the explorer's recorder ([`recording`]). So no operation of the runtime
//! flushes anything by hand, and a new `Backend` method without a default cannot be added
//! without the gate deciding for it. The runtime and its streams and programs reach the
//! backend only through their gate; its streams and programs are handles ([`handles`]) the
//! gate unwraps for the backend.

mod deferred;
mod handles;
// Element histories re-evaluate elements on the CPU interpreter (cargo feature `cpu`).
#[cfg(feature = "cpu")]
mod history;
#[cfg(not(feature = "cpu"))]
#[path = "no_history.rs"]
mod history;
#[cfg(feature = "explain")]
mod recording;
// Without the explorer (cargo feature `explain` off) nothing is recorded.
#[cfg(not(feature = "explain"))]
#[path = "not_recording.rs"]
mod recording;
mod worth_deferring;

use std::any::Any;
#[cfg(any(feature = "explain", feature = "cpu"))]
use std::cell::RefCell;
use std::rc::Rc;

use brook_core::{
    Backend, BackendProgram, BackendStream, BrookError, Compiled, ElementFormat, GatherOpCall,
    IterSpec, KernelCall, PassTrace, ReduceCall, ReduceOutput, ScatterCall, StreamArg, TraceEntry,
};
#[cfg(feature = "explain")]
use brook_explain::Recorder;

use deferred::Deferred;
use handles::{inner, inner_combiner, inner_output, with_kernel, with_reduce};
pub(crate) use handles::{Prepared, StreamBody};

/// The runtime's backend behind the gate, the kernel call waiting for a reduction, and the
/// explorer's recorder. Shared by the runtime and every stream made on it.
pub(crate) struct Gate {
    backend: Rc<dyn Backend>,
    deferred: Deferred,
    /// The explorer's recorder, while a run is explained (`crate::explaining`).
    #[cfg(feature = "explain")]
    recorder: RefCell<Option<Recorder>>,
    /// The record element histories are walked in, while one is kept (`crate::why`).
    #[cfg(feature = "cpu")]
    history: RefCell<Option<crate::why::HistoryLog>>,
}

impl Gate {
    /// A gate before `backend`, deferring kernel calls for fusion when the backend fuses.
    pub(crate) fn new(backend: Rc<dyn Backend>) -> Gate {
        Gate {
            deferred: Deferred::new(backend.fuses()),
            backend,
            #[cfg(feature = "explain")]
            recorder: RefCell::new(None),
            #[cfg(feature = "cpu")]
            history: RefCell::new(None),
        }
    }

    /// A write mask the program made (`write_mask::create`), reported as an operation of its
    /// own.
    pub(crate) fn made_write_mask(
        &self,
        shape: &[usize],
    ) -> Result<brook_core::BackendMask, BrookError> {
        let mask = self.create_write_mask(shape)?;
        self.backend.clear_write_mask(&*mask)?;
        self.record_mask_opened("write_mask::create");
        Ok(mask)
    }

    /// The backend behind the gate.
    pub(crate) fn backend(&self) -> &Rc<dyn Backend> {
        &self.backend
    }

    /// A stream of `format` and `shape`.
    pub(crate) fn stream(
        &self,
        format: &ElementFormat,
        shape: &[usize],
    ) -> Result<Rc<StreamBody>, BrookError> {
        let storage = self.backend.create_stream(format, shape)?;
        let body = StreamBody::new(format.clone(), shape.to_vec(), storage, None);
        self.history_created(&body);
        Ok(body)
    }

    /// An iterator stream.
    pub(crate) fn iter(&self, spec: &IterSpec) -> Result<Rc<StreamBody>, BrookError> {
        let storage = self.backend.create_iter(spec)?;
        let format = ElementFormat::scalar(spec.components())?;
        let body = StreamBody::new(format, spec.shape().to_vec(), storage, Some(spec.clone()));
        self.history_created(&body);
        Ok(body)
    }

    /// `compiled` prepared for the backend; its source is kept when a run is recorded.
    pub(crate) fn program(&self, compiled: &Rc<Compiled>) -> Result<Rc<Prepared>, BrookError> {
        let prepared = self.backend.prepare(compiled)?;
        self.compiled(compiled);
        Ok(Prepared::new(compiled.clone(), prepared))
    }
}

/// Each method: what runs first, then the backend's own method on the unwrapped call, then
/// the recorder's card.
impl Backend for Gate {
    fn name(&self) -> &'static str {
        self.backend.name()
    }

    fn describe(&self) -> String {
        self.backend.describe()
    }

    fn fuses(&self) -> bool {
        self.backend.fuses()
    }

    fn resize_index_bits(&self) -> u32 {
        self.backend.resize_index_bits()
    }

    /// A handle (`Rc<StreamBody>`); the gate's [`StreamArg`]s point at the body it holds.
    fn create_stream(
        &self,
        format: &ElementFormat,
        shape: &[usize],
    ) -> Result<BackendStream, BrookError> {
        Ok(Box::new(self.stream(format, shape)?))
    }

    fn create_iter(&self, spec: &IterSpec) -> Result<BackendStream, BrookError> {
        Ok(Box::new(self.iter(spec)?))
    }

    /// An `Rc<Prepared>`, which the gate's calls name as their `program`.
    fn prepare(&self, program: &Rc<Compiled>) -> Result<BackendProgram, BrookError> {
        Ok(Box::new(self.program(program)?))
    }

    /// Replacing a stream's contents: a waiting call that reads or writes it runs first.
    fn read(&self, stream: &StreamArg, data: &[f32]) -> Result<(), BrookError> {
        self.run_waiting(|call| call.uses(stream))?;
        self.backend.read(&inner(stream), data)?;
        self.noted_read(stream);
        Ok(())
    }

    /// Reading a stream: a waiting call that writes it runs first.
    fn write(&self, stream: &StreamArg, out: &mut [f32]) -> Result<(), BrookError> {
        self.run_waiting(|call| call.writes(stream))?;
        self.backend.write(&inner(stream), out)
    }

    /// Lending a stream's storage, which the borrower may read or write: a waiting call that
    /// uses it runs first.
    fn lend<'a>(&self, stream: &StreamArg<'a>) -> Result<&'a dyn Any, BrookError> {
        self.run_waiting(|call| call.uses(stream))?;
        self.backend.lend(&inner(stream))
    }

    /// A kernel call waits for a reduction of its output, or runs the waiting call first and
    /// itself now (see [`deferred`]).
    fn run_kernel(&self, call: &KernelCall) -> Result<Vec<usize>, BrookError> {
        with_kernel(call, |inner| {
            if self.defer(call, inner)? {
                return Ok(Vec::new());
            }
            let noted = self.note_kernel(call);
            let pushed = self.backend.run_kernel(inner)?;
            self.noted_kernel(noted, call);
            self.record_kernel(inner);
            Ok(pushed)
        })
    }

    /// Encodes without running anything: nothing waits on it.
    fn plan_kernel(&self, call: &KernelCall) -> Result<Vec<PassTrace>, BrookError> {
        with_kernel(call, |inner| self.backend.plan_kernel(inner))
    }

    fn prepare_deferred(&self, call: &KernelCall) -> Result<bool, BrookError> {
        with_kernel(call, |inner| self.backend.prepare_deferred(inner))
    }

    /// Fuses with the waiting call that computes its input, or runs that call first (see
    /// [`deferred`]).
    fn reduce(&self, call: &ReduceCall, mut output: ReduceOutput) -> Result<(), BrookError> {
        let noted = self.note_reduce(call);
        self.reduce_fusing(call, &mut output)?;
        self.noted_reduce(noted, &output);
        self.record_reduction(&output);
        Ok(())
    }

    /// Another kernel call: the waiting one runs first.
    fn map_reduce(
        &self,
        kernel: &KernelCall,
        reduce: &ReduceCall,
        mut output: ReduceOutput,
    ) -> Result<bool, BrookError> {
        self.run_waiting(|_| true)?;
        if self.recording_history() {
            // A history needs the kernel's output as written: the two calls run apart.
            self.run_kernel(kernel)?;
            self.reduce(reduce, output)?;
            return Ok(false);
        }
        let fused = with_kernel(kernel, |kernel| {
            with_reduce(reduce, |reduce| {
                map_reduce_where_allowed(&*self.backend, kernel, reduce, inner_output(&mut output))
            })
        })?;
        self.record_reduction(&output);
        Ok(fused)
    }

    /// The waiting call runs first: scatters are not fused with it.
    fn scatter(&self, call: &ScatterCall) -> Result<(), BrookError> {
        self.run_waiting(|_| true)?;
        let noted = self.note_scatter(call);
        self.backend.scatter(&ScatterCall {
            dst: inner(&call.dst),
            index: inner(&call.index),
            data: inner(&call.data),
            op: inner_combiner(&call.op),
        })?;
        self.noted_scatter(noted, call);
        self.record(None, &[("dst", &call.dst)]);
        Ok(())
    }

    /// The waiting call runs first, as for a scatter.
    fn gather_op(&self, call: &GatherOpCall) -> Result<(), BrookError> {
        self.run_waiting(|_| true)?;
        let noted = self.note_gather_op(call);
        self.backend.gather_op(&GatherOpCall {
            dst: inner(&call.dst),
            index: inner(&call.index),
            data: inner(&call.data),
            update: (call.update.as_ref()).map(|(op, operand)| (inner_combiner(op), *operand)),
        })?;
        self.noted_gather_op(noted, call);
        let wrote: &[(&str, &StreamArg)] = match call.update {
            Some(_) => &[("dst", &call.dst), ("data", &call.data)],
            None => &[("dst", &call.dst)],
        };
        self.record(None, wrote);
        Ok(())
    }

    /// Reports nothing: the runtime's own mask is reported with the load that follows it
    /// (GL's pass opening it becomes that operation's first), a program's through
    /// [`Gate::made_write_mask`].
    fn create_write_mask(&self, shape: &[usize]) -> Result<brook_core::BackendMask, BrookError> {
        self.backend.create_write_mask(shape)
    }

    /// The waiting call runs first: it ran before the clear.
    fn clear_write_mask(&self, mask: &dyn Any) -> Result<(), BrookError> {
        self.run_waiting(|_| true)?;
        self.backend.clear_write_mask(mask)?;
        self.noted_mask_cleared(mask);
        self.record_mask_opened("write_mask::clear");
        Ok(())
    }

    /// The waiting call runs first: the mask is taken now, and GL draws it into the depth
    /// buffer a call may be using.
    fn load_write_mask(&self, mask: &dyn Any, from: &StreamArg) -> Result<(), BrookError> {
        self.run_waiting(|_| true)?;
        self.backend.load_write_mask(mask, &inner(from))?;
        self.noted_mask(mask, from);
        self.record_write_mask(from);
        Ok(())
    }

    /// The waiting call runs first: a query counts what later calls write (GL's occlusion
    /// query would count the waiting call's samples too).
    fn begin_write_query(&self) -> Result<(), BrookError> {
        self.run_waiting(|_| true)?;
        self.backend.begin_write_query()
    }

    fn end_write_query(&self) -> Result<u64, BrookError> {
        self.run_waiting(|_| true)?;
        self.backend.end_write_query()
    }

    /// The waiting call runs first: its streams' storage is exchanged.
    fn swap(&self, a: &StreamArg, b: &StreamArg) -> Result<(), BrookError> {
        self.run_waiting(|_| true)?;
        let noted = self.note_swap(a, b);
        self.backend.swap(&inner(a), &inner(b))?;
        self.noted_swap(noted);
        self.record_swap(a, b);
        Ok(())
    }

    /// The waiting call runs first, under the limit it was called under.
    fn set_time_limit(&self, limit: Option<std::time::Duration>) -> Result<(), BrookError> {
        self.run_waiting(|_| true)?;
        self.backend.set_time_limit(limit)
    }

    /// The waiting call runs first, in the mode it was called in.
    fn set_math_mode(&self, mode: brook_ir::MathMode) -> Result<(), BrookError> {
        self.run_waiting(|_| true)?;
        self.backend.set_math_mode(mode)
    }

    /// A waiting call that has not run in any form runs first, into the trace it was called
    /// under (its error kept for the next call that can return one).
    fn set_trace(&self, on: bool) {
        self.settle_or_keep();
        self.backend.set_trace(on);
    }

    /// As [`Gate::set_trace`]: the trace holds every call made before it.
    fn take_trace(&self) -> Vec<TraceEntry> {
        self.settle_or_keep();
        self.backend.take_trace()
    }

    /// As [`Gate::set_trace`]: the work waited for includes every call made before it.
    fn finish(&self) {
        self.settle_or_keep();
        self.backend.finish();
    }

    /// The backend's: the gate adds no capability of its own to reach.
    fn as_any(&self) -> &dyn Any {
        self.backend.as_any()
    }
}

/// `backend.map_reduce` where brook-core's rule allows fusing the pair
/// (`brook_core::call::fusion_refused`), else the two calls: the one place the rule is
/// asked, so a backend's `map_reduce` only sees pairs it may fuse (and refuses only what its
/// own mechanism cannot do).
fn map_reduce_where_allowed(
    backend: &dyn Backend,
    kernel: &KernelCall,
    reduce: &ReduceCall,
    output: ReduceOutput,
) -> Result<bool, BrookError> {
    if brook_core::call::fusion_refused(kernel, reduce, &output).is_some() {
        backend.run_kernel(kernel)?;
        backend.reduce(reduce, output)?;
        return Ok(false);
    }
    backend.map_reduce(kernel, reduce, output)
}
