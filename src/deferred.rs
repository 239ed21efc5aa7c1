//! Automatic kernel → reduction fusion: a plain kernel call is deferred, so that a reduction
//! of its output that follows can compute it inside its first pass (`Backend::map_reduce`),
//! as [`Runtime::map_reduce_to_value`] does on request. Brook programs are written as the two
//! calls (`.br` programs through brcc included) and get the fused pass unchanged.
//!
//! The rules, which keep every result what running each call at once gives:
//!
//! - **Which calls wait.** A kernel call with one `out` parameter passed a whole stream, no
//!   vout, no write mask or write query applying, whose output is not also one of its inputs
//!   or gathers, and that the backend agrees to defer (`Backend::prepare_deferred`: GL
//!   generates and compiles the call's shaders then, and runs at once a call that can
//!   `discard` or checks its loops against the driver's cap, which it would never fuse).
//!   A kernel whose last call waited for a reduction that did not come runs at once until
//!   one of its calls feeds a reduction again (`worth_deferring.rs`: waiting costs GL the
//!   call's shader preparation twice). Every check runs when it is called, so a bad call is
//!   still an error there; the call keeps its program, its streams' storage and copies of
//!   its constants.
//! - **What runs it.** At most one call waits. Any other operation runs it first: a kernel
//!   call, a reduction of another stream, a scatter, gather-op, swap, write mask or query, a
//!   time limit, switching fusion off, the C ABI's calls (which are these). A stream's `read`
//!   (`streamRead`) runs it when the call uses that stream, its `write` (`streamWrite`,
//!   print) when the stream is the call's output; `gl_textures` and `wgpu_buffer` when the
//!   call uses the stream. `finish`, the trace's switch and take, explaining's start and end
//!   and dropping the runtime run a call that has not run in any form, and leave one already
//!   computed inside a reduction waiting (what ran is in the trace; its output is written
//!   only if read).
//! - **The fused reduction.** A reduction whose input is the waiting call's output, whose
//!   target is none of the call's streams and whose gathers are none of them, hands both to
//!   `Backend::map_reduce`. If the backend fused them the output was never written: the call
//!   stays waiting, as already run, only to write its output if something reads it later
//!   (the inputs cannot have changed meanwhile: writing one runs it first). A later reduction
//!   of the same output fuses again; a later call that writes the whole output without
//!   reading it (the same loop's next iteration) replaces it, unless it can `discard` and
//!   so leave elements of the old output.
//! - **Errors.** A call's checks and shader generation fail at the call, and so does a loop
//!   GL cuts (it runs such calls at once). What else only running finds (a GL error, the
//!   CPU's time limit where deferral is switched on) is reported by the operation that runs
//!   the call, or for one that cannot return an error (`finish`, the trace switch,
//!   `gl_textures`) by the next one that can, located at the kernel's Brook line as if it had
//!   run at once. Dropping the runtime runs a waiting call and prints its error on standard
//!   error, where nothing else could see it; brcc runs it when `main` returns and fails then.
//!
//! On GL this is on by default; the CPU and wgpu do not fuse (their `map_reduce` runs the two
//! calls), so waiting gains nothing there and it is off, but the tests run it there too, as
//! the same bookkeeping must give the same results on every backend.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use brook_core::{
    BackendArg, BrookError, Compiled, Domain, KernelCall, MaskUse, ReduceCall, ReduceOutput,
    StreamArg,
};
use brook_ir::{FunctionId, ParamClass};

use crate::arg::Arg;
use crate::explaining::read_back;
use crate::program::Program;
use crate::runtime::Runtime;
use crate::session::Session;
use crate::stream::StreamBody;
use crate::worth_deferring::{key, KernelKey, WorthDeferring};

/// The kernel call waiting for a reduction, and the switch.
pub(crate) struct Deferred {
    automatic: Cell<bool>,
    pending: RefCell<Option<Pending>>,
    /// An error a waiting call met where it could not be returned, for the next call.
    failed: RefCell<Option<BrookError>>,
    /// Which kernels feed reductions, so that only those wait.
    worth: WorthDeferring,
}

/// A deferred kernel call: what [`KernelCall`] borrows, owned.
struct Pending {
    compiled: Rc<Compiled>,
    prepared: Rc<dyn Any>,
    kernel: FunctionId,
    args: Vec<Held>,
    shape: Vec<usize>,
    /// Which argument is the output stream.
    out: usize,
    /// Already computed inside a reduction: waiting only to write its output if read.
    ran: bool,
}

/// One argument of a deferred call.
enum Held {
    Stream(Rc<StreamBody>, Option<Domain>),
    Constant(Vec<f32>),
}

impl Deferred {
    pub(crate) fn new(automatic: bool) -> Deferred {
        Deferred {
            automatic: Cell::new(automatic),
            pending: RefCell::new(None),
            failed: RefCell::new(None),
            worth: WorthDeferring::default(),
        }
    }
}

impl Pending {
    /// The call `call` (of `program`, with the user's `args`) deferred, when it may wait and
    /// `worth` says its kernel is worth it (asked before anything is copied).
    fn of(
        program: &Program,
        call: &KernelCall,
        args: &[Arg],
        worth: &WorthDeferring,
    ) -> Option<Pending> {
        let func = call.function();
        let mut outputs = func
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| p.class.is_output());
        let (out, param) = outputs.next()?;
        let (None, ParamClass::Out, Some(Arg::Stream(output))) =
            (outputs.next(), param.class, args.get(out))
        else {
            return None;
        };
        let output = output.arg(None);
        let in_place = (call.args.iter().enumerate())
            .any(|(i, a)| i != out && a.stream().is_some_and(|s| s.same_storage(&output)));
        if call.mask != MaskUse::default() || in_place || output.iter.is_some() {
            return None;
        }
        if !worth.should_wait(key(&program.compiled, call.kernel), &output) {
            return None;
        }
        let args = args
            .iter()
            .map(|a| match a {
                Arg::Stream(s) => Held::Stream(s.body.clone(), None),
                Arg::Domain(d) => Held::Stream(d.stream.body.clone(), Some(d.domain.clone())),
                Arg::Constant(v) => Held::Constant(v.clone()),
            })
            .collect();
        Some(Pending {
            compiled: program.compiled.clone(),
            prepared: program.prepared.clone(),
            kernel: call.kernel,
            args,
            shape: call.shape.clone(),
            out,
            ran: false,
        })
    }

    /// `f` of the call as the backend takes it.
    fn with_call<T>(&self, f: impl FnOnce(&KernelCall) -> T) -> T {
        let args: Vec<BackendArg> = (self.args.iter())
            .map(|a| match a {
                Held::Stream(body, domain) => BackendArg::Stream(body.arg(domain.as_ref())),
                Held::Constant(v) => BackendArg::Constant(v),
            })
            .collect();
        f(&KernelCall {
            program: self.prepared.as_ref(),
            compiled: &self.compiled,
            kernel: self.kernel,
            args: &args,
            shape: self.shape.clone(),
            mask: MaskUse::default(),
        })
    }

    fn streams(&self) -> impl Iterator<Item = StreamArg<'_>> {
        self.args.iter().filter_map(|a| match a {
            Held::Stream(body, _) => Some(body.arg(None)),
            Held::Constant(_) => None,
        })
    }

    /// Its kernel, for [`WorthDeferring`].
    fn key(&self) -> KernelKey {
        key(&self.compiled, self.kernel)
    }

    fn output(&self) -> StreamArg<'_> {
        match &self.args[self.out] {
            Held::Stream(body, _) => body.arg(None),
            Held::Constant(_) => unreachable!("a deferred call's output is a stream"),
        }
    }

    /// Whether the call reads or writes `stream`.
    fn uses(&self, stream: &StreamArg) -> bool {
        self.streams().any(|s| s.same_storage(stream))
    }

    /// Whether `reduce` into `target` may compute this call inside it: a reduction of the
    /// same program (a fused pass is generated from one module) of the output, writing and
    /// gathering no stream of the call.
    fn feeds(&self, reduce: &ReduceCall, target: &ReduceOutput) -> bool {
        let writes_ours = match target {
            ReduceOutput::Stream(t) => self.uses(t),
            ReduceOutput::Value(_) => false,
        };
        std::ptr::eq(reduce.compiled, &*self.compiled)
            && reduce.input.domain.is_none()
            && reduce.input.same_storage(&self.output())
            && !writes_ours
            && !(reduce.extra.iter().filter_map(BackendArg::stream)).any(|s| self.uses(s))
    }

    /// Whether this call, deferred after `old`, makes running `old` pointless: `old` already
    /// ran inside a reduction and this call writes every element of its output.
    fn replaces(&self, old: &Pending) -> bool {
        old.ran
            && self.output().same_storage(&old.output())
            && !brook_core::walk::can_discard(&self.compiled.module, self.kernel)
    }
}

impl Session {
    /// Defers `call` when automatic fusion is on and it may wait, running the call waiting
    /// before it unless this one replaces it; `false` when the caller must run it now.
    fn defer(
        &self,
        program: &Program,
        call: &KernelCall,
        args: &[Arg],
    ) -> Result<bool, BrookError> {
        let new = match self.deferred.automatic.get() {
            true => Pending::of(program, call, args, &self.deferred.worth),
            false => None,
        };
        let new = match new {
            Some(new) if self.backend.prepare_deferred(call)? => new,
            _ => {
                self.flush()?;
                return Ok(false);
            }
        };
        self.reported()?;
        let old = self.deferred.pending.borrow_mut().take();
        if let Some(old) = old.filter(|old| !new.replaces(old)) {
            self.run(old, false)?;
        }
        *self.deferred.pending.borrow_mut() = Some(new);
        Ok(true)
    }

    /// Reduces as `reduce` into `target`, with the waiting call inside it when it feeds it.
    fn reduce(&self, reduce: &ReduceCall, target: ReduceOutput) -> Result<(), BrookError> {
        self.reported()?;
        let pending = self.deferred.pending.borrow_mut().take();
        match pending {
            Some(mut pending) if pending.feeds(reduce, &target) => {
                let fused =
                    pending.with_call(|kernel| self.backend.map_reduce(kernel, reduce, target))?;
                self.deferred.worth.learn(pending.key(), fused);
                if fused {
                    pending.ran = true;
                    *self.deferred.pending.borrow_mut() = Some(pending);
                }
                Ok(())
            }
            other => {
                match other {
                    // A waiting call of this reduction's input that cannot fuse with it (the
                    // reduction writes what it reads, …) still feeds reductions: it may wait
                    // again.
                    Some(p) => {
                        let fed = p.output().same_storage(&reduce.input);
                        self.run(p, fed)?;
                    }
                    None => self.deferred.worth.reduced(&reduce.input),
                }
                self.backend.reduce(reduce, target)
            }
        }
    }

    /// Runs the waiting call, if any.
    pub(crate) fn flush(&self) -> Result<(), BrookError> {
        self.run_if(|_| true)
    }

    /// Runs the waiting call if it has not run in any form (not inside a reduction).
    fn settle(&self) -> Result<(), BrookError> {
        self.run_if(|p| !p.ran)
    }

    /// Before `stream`'s contents are replaced (`streamRead`): runs a call that uses it.
    pub(crate) fn flush_before_writing(&self, stream: &StreamArg) -> Result<(), BrookError> {
        self.run_if(|p| p.uses(stream))
    }

    /// Before `stream`'s contents are read (`streamWrite`): runs a call that writes it.
    pub(crate) fn flush_before_reading(&self, stream: &StreamArg) -> Result<(), BrookError> {
        self.run_if(|p| p.output().same_storage(stream))
    }

    /// Before `stream`'s storage is lent out: runs a call that uses it, keeping an error.
    pub(crate) fn flush_before_sharing(&self, stream: &StreamArg) {
        let ran = self.flush_before_writing(stream);
        self.keep(ran);
    }

    /// `result`'s error, kept for the next call that can return one.
    fn keep(&self, result: Result<(), BrookError>) {
        if let Err(e) = result {
            self.deferred.failed.borrow_mut().get_or_insert(e);
        }
    }

    /// An error kept from a call that ran where it could not be returned.
    fn reported(&self) -> Result<(), BrookError> {
        match self.deferred.failed.borrow_mut().take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn run_if(&self, due: impl FnOnce(&Pending) -> bool) -> Result<(), BrookError> {
        self.reported()?;
        let pending = {
            let mut slot = self.deferred.pending.borrow_mut();
            match slot.as_ref() {
                Some(p) if due(p) => slot.take(),
                _ => None,
            }
        };
        pending.map_or(Ok(()), |p| self.run(p, false))
    }

    /// Runs `pending` as the kernel call it was, with its card when explaining; `fed` says a
    /// reduction of its output is what runs it (one it could not fuse with). A call that
    /// waited and was not fed waited for nothing, which [`WorthDeferring`] learns.
    fn run(&self, pending: Pending, fed: bool) -> Result<(), BrookError> {
        if fed || !pending.ran {
            self.deferred.worth.learn(pending.key(), fed);
        }
        pending
            .with_call(|call| self.backend.run_kernel(call))
            .map_err(|e| pending.compiled.locate(pending.kernel, e))?;
        self.explained(
            || None,
            || {
                let func = pending.compiled.module.func(pending.kernel);
                let output = pending.output();
                let floats = output.format.floats_per_element();
                let mut values = vec![0.0; output.shape.iter().product::<usize>() * floats];
                let read = self.backend.write(&output, &mut values).map(|()| values);
                vec![read_back(
                    &func.params[pending.out].name,
                    output.shape,
                    floats,
                    read,
                )]
            },
        );
        Ok(())
    }
}

impl Runtime {
    /// Switches automatic kernel → reduction fusion (on by default on GL, off on the CPU and
    /// wgpu, which do not fuse): a kernel call with one whole `out` stream waits, and a
    /// reduction of that output that follows computes it inside its first pass, as
    /// [`Runtime::map_reduce_to_value`] does; the output stream still gets the kernel's
    /// values if anything reads it later. Results are those of running each call at once;
    /// an error only running finds (a GL error, a CPU time limit) is reported by the
    /// operation that runs the call, located at the kernel (GL runs a call whose loops it
    /// checks at once, so a cut loop is the call's error). Switching it off runs a waiting
    /// call. The rules are in `src/deferred.rs`.
    pub fn set_automatic_fusion(&self, on: bool) -> Result<(), BrookError> {
        self.session.deferred.automatic.set(on);
        if on {
            Ok(())
        } else {
            self.session.flush()
        }
    }

    /// Runs the kernel call `call` of `program` (with the user's `args`) now, or defers it
    /// for a reduction of its output: `None` when deferred.
    pub(crate) fn run_or_defer(
        &self,
        program: &Program,
        call: &KernelCall,
        args: &[Arg],
    ) -> Result<Option<Vec<usize>>, BrookError> {
        if self.session.defer(program, call, args)? {
            return Ok(None);
        }
        self.backend.run_kernel(call).map(Some)
    }

    /// A checked reduction, fused with the waiting kernel call that computes its input.
    pub(crate) fn reduce_deferred(
        &self,
        call: &ReduceCall,
        output: ReduceOutput,
    ) -> Result<(), BrookError> {
        self.session.reduce(call, output)
    }

    /// Runs a kernel call waiting for a reduction, unless it already ran inside one, and
    /// returns its error or one kept from a call that could not return it: for the end of a
    /// host program (brcc runs it when `main` returns), where an error must still be seen.
    pub fn run_waiting(&self) -> Result<(), BrookError> {
        self.session.settle()
    }

    /// Runs a waiting call that has not run in any form, keeping an error for the next call.
    pub(crate) fn settle_or_keep(&self) {
        let settled = self.session.settle();
        self.session.keep(settled);
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.settle_or_keep();
        if let Err(e) = self.session.reported() {
            eprintln!("brook: error: a deferred kernel call failed: {e}");
        }
    }
}
