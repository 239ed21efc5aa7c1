//! Automatic kernel → reduction fusion: the gate defers a plain kernel call, so that a
//! reduction of its output that follows can compute it inside its first pass
//! (`Backend::map_reduce`), as [`Runtime::map_reduce_to_value`](crate::Runtime::map_reduce_to_value)
//! does on request. Brook programs are written as the two calls (`.br` programs through brcc
//! included) and get the fused pass unchanged. The plan — which call waits, which reduction
//! takes it in — is made here, the same for every backend; each backend executes a fused pair
//! its own way in `map_reduce`, and says whether it fuses at all (`Backend::fuses`, which
//! switches this on by default).
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
//!   still an error there; the call keeps handles on its program and its streams
//!   (`handles.rs`) and copies of its constants.
//! - **What runs it.** At most one call waits, and every operation reaches the backend
//!   through the gate's `Backend` methods, each of which decides from its arguments whether
//!   the waiting call runs first (`gate/mod.rs`): a kernel call, a reduction it does not
//!   feed, a scatter, gather-op, swap, write mask or query, a time limit run it always; a
//!   stream's `read` (`streamRead`) and lending its storage (`Stream::storage`,
//!   `gl_textures`, `wgpu_buffer`, viz drawing it) when the call uses that stream, its
//!   `write` (`streamWrite`, print) when the stream is the call's output. Switching fusion
//!   off runs it. `finish`, the trace's switch and take, explaining's start and end and
//!   dropping the runtime run a call that has not run in any form, and leave one already
//!   computed inside a reduction waiting (what ran is in the trace; its output is written
//!   only if read). Enabling or disabling the write mask runs nothing: whether a call is
//!   masked was decided at the call, and the waiting call is not.
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
//!   the call, or for one that cannot return an error (`finish`, the trace switch) by the
//!   next one that can, located at the kernel's Brook line as if it had run at once.
//!   Dropping the runtime runs a waiting call and prints its error on standard error, where
//!   nothing else could see it; brcc runs it when `main` returns
//!   ([`Runtime::finish_checked`](crate::Runtime::finish_checked)) and fails then.
//!
//! It is on by default on every backend of this crate, each fusing its own way: GL and wgpu
//! compute the kernel in the reduction's first pass, the CPU in its fold (the kernel's native
//! code run just before the fold takes each run of elements). A backend whose `fuses` is
//! false (the default of `Backend`) gets it only when asked, with the same bookkeeping.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use brook_core::{
    BackendArg, BrookError, Domain, KernelCall, MaskUse, ReduceCall, ReduceOutput, StreamArg,
};
use brook_ir::{FunctionId, ParamClass};

use super::handles::{inner, inner_output, with_reduce, Prepared, StreamBody};
use super::worth_deferring::{key, KernelKey, WorthDeferring};
use super::Gate;
use crate::runtime::Runtime;

/// The kernel call waiting for a reduction, and the switch.
pub(super) struct Deferred {
    pub(super) automatic: Cell<bool>,
    pending: RefCell<Option<Pending>>,
    /// An error a waiting call met where it could not be returned, for the next call.
    failed: RefCell<Option<BrookError>>,
    /// Which kernels feed reductions, so that only those wait.
    worth: WorthDeferring,
}

/// A deferred kernel call: what [`KernelCall`] borrows, owned.
pub(super) struct Pending {
    program: Rc<Prepared>,
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
    pub(super) fn new(automatic: bool) -> Deferred {
        Deferred {
            automatic: Cell::new(automatic),
            pending: RefCell::new(None),
            failed: RefCell::new(None),
            worth: WorthDeferring::default(),
        }
    }
}

impl Pending {
    /// The gate's call `call` deferred, when it may wait and `worth` says its kernel is
    /// worth it (asked before anything is copied).
    fn of(call: &KernelCall, worth: &WorthDeferring) -> Option<Pending> {
        let func = call.function();
        let mut outputs = func
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| p.class.is_output());
        let (out, param) = outputs.next()?;
        let (None, ParamClass::Out, Some(BackendArg::Stream(output))) =
            (outputs.next(), param.class, call.args.get(out))
        else {
            return None;
        };
        let in_place = (call.args.iter().enumerate())
            .any(|(i, a)| i != out && a.stream().is_some_and(|s| s.same_storage(output)));
        let whole = output.domain.is_none() && output.iter.is_none();
        if call.mask != MaskUse::default() || in_place || !whole {
            return None;
        }
        if !worth.should_wait(key(Prepared::of(call.program), call.kernel), output) {
            return None;
        }
        let args = (call.args.iter())
            .map(|a| match a {
                BackendArg::Stream(s) => {
                    Held::Stream(StreamBody::of(s).handle(), s.domain.cloned())
                }
                BackendArg::Constant(v) => Held::Constant(v.to_vec()),
            })
            .collect();
        Some(Pending {
            program: Prepared::of(call.program).clone(),
            kernel: call.kernel,
            args,
            shape: call.shape.to_vec(),
            out,
            ran: false,
        })
    }

    /// `f` of the call as the backend takes it.
    fn with_call<T>(&self, f: impl FnOnce(&KernelCall) -> T) -> T {
        let args: Vec<BackendArg> = (self.args.iter())
            .map(|a| match a {
                Held::Stream(body, domain) => BackendArg::Stream(inner(&body.arg(domain.as_ref()))),
                Held::Constant(v) => BackendArg::Constant(v),
            })
            .collect();
        f(&KernelCall {
            program: self.program.backend(),
            compiled: &self.program.compiled,
            kernel: self.kernel,
            args: &args,
            shape: &self.shape,
            mask: MaskUse::default(),
            write_mask: None,
        })
    }

    /// Its streams, as the gate sees them.
    fn streams(&self) -> impl Iterator<Item = StreamArg<'_>> {
        self.args.iter().filter_map(|a| match a {
            Held::Stream(body, _) => Some(body.arg(None)),
            Held::Constant(_) => None,
        })
    }

    /// Its kernel, for [`WorthDeferring`].
    fn key(&self) -> KernelKey {
        key(&self.program, self.kernel)
    }

    fn output(&self) -> StreamArg<'_> {
        match &self.args[self.out] {
            Held::Stream(body, _) => body.arg(None),
            Held::Constant(_) => unreachable!("a deferred call's output is a stream"),
        }
    }

    /// Whether the call reads or writes `stream`.
    pub(super) fn uses(&self, stream: &StreamArg) -> bool {
        self.streams().any(|s| s.same_storage(stream))
    }

    /// Whether the call writes `stream`.
    pub(super) fn writes(&self, stream: &StreamArg) -> bool {
        self.output().same_storage(stream)
    }

    /// Whether `reduce` into `target` may compute this call inside it: a reduction of the
    /// same program (a fused pass is generated from one module) of the output, writing and
    /// gathering no stream of the call.
    fn feeds(&self, reduce: &ReduceCall, target: &ReduceOutput) -> bool {
        let writes_ours = match target {
            ReduceOutput::Stream(t) => self.uses(t),
            ReduceOutput::Value(_) => false,
        };
        std::ptr::eq(reduce.compiled, &*self.program.compiled)
            && reduce.input.domain.is_none()
            && self.writes(&reduce.input)
            && !writes_ours
            && !(reduce.extra.iter().filter_map(BackendArg::stream)).any(|s| self.uses(s))
    }

    /// Whether this call, deferred after `old`, makes running `old` pointless: `old` already
    /// ran inside a reduction and this call writes every element of its output.
    fn replaces(&self, old: &Pending) -> bool {
        let compiled = &self.program.compiled;
        old.ran
            && self.writes(&old.output())
            && !brook_ir::walk::can_discard(&compiled.module, self.kernel)
    }
}

impl Gate {
    /// Defers the gate's kernel call `call` (`inner` as the backend takes it) when automatic
    /// fusion is on and it may wait, running the call waiting before it unless this one
    /// replaces it; `false` when the caller must run it now.
    pub(super) fn defer(&self, call: &KernelCall, inner: &KernelCall) -> Result<bool, BrookError> {
        let deferred = &self.deferred;
        let new = match deferred.automatic.get() {
            true => Pending::of(call, &deferred.worth),
            false => None,
        };
        let new = match new {
            Some(new) if self.backend.prepare_deferred(inner)? => new,
            _ => {
                self.run_waiting(|_| true)?;
                return Ok(false);
            }
        };
        self.reported()?;
        let old = deferred.pending.borrow_mut().take();
        if let Some(old) = old.filter(|old| !new.replaces(old)) {
            self.run(old, false)?;
        }
        *deferred.pending.borrow_mut() = Some(new);
        Ok(true)
    }

    /// Reduces as `reduce` into `target`, with the waiting call inside it when it feeds it.
    pub(super) fn reduce_fusing(
        &self,
        reduce: &ReduceCall,
        target: &mut ReduceOutput,
    ) -> Result<(), BrookError> {
        self.reported()?;
        let deferred = &self.deferred;
        let pending = deferred.pending.borrow_mut().take();
        match pending {
            Some(mut pending) if pending.feeds(reduce, target) => {
                let fused = pending.with_call(|kernel| {
                    with_reduce(reduce, |reduce| {
                        super::map_reduce_where_allowed(
                            &*self.backend,
                            kernel,
                            reduce,
                            inner_output(target),
                        )
                    })
                })?;
                deferred.worth.learn(pending.key(), fused);
                if fused {
                    pending.ran = true;
                    *deferred.pending.borrow_mut() = Some(pending);
                }
                Ok(())
            }
            other => {
                match other {
                    // A waiting call of this reduction's input that cannot fuse with it (the
                    // reduction writes what it reads, …) still feeds reductions: it may wait
                    // again.
                    Some(p) => {
                        let fed = p.writes(&reduce.input);
                        self.run(p, fed)?;
                    }
                    None => deferred.worth.reduced(&reduce.input),
                }
                with_reduce(reduce, |reduce| {
                    self.backend.reduce(reduce, inner_output(target))
                })
            }
        }
    }

    /// Runs the waiting call first if `due` says the operation needs it, and returns an
    /// error kept from a call that ran where it could not be returned.
    pub(super) fn run_waiting(&self, due: impl FnOnce(&Pending) -> bool) -> Result<(), BrookError> {
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

    /// Runs the waiting call if it has not run in any form (not inside a reduction).
    pub(crate) fn settle(&self) -> Result<(), BrookError> {
        self.run_waiting(|p| !p.ran)
    }

    /// [`Gate::settle`], keeping an error for the next call that can return one.
    pub(crate) fn settle_or_keep(&self) {
        if let Err(e) = self.settle() {
            self.deferred.failed.borrow_mut().get_or_insert(e);
        }
    }

    /// An error kept from a call that ran where it could not be returned.
    pub(crate) fn reported(&self) -> Result<(), BrookError> {
        match self.deferred.failed.borrow_mut().take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Runs `pending` as the kernel call it was, with its card when explaining; `fed` says a
    /// reduction of its output is what runs it (one it could not fuse with). A call that
    /// waited and was not fed waited for nothing, which [`WorthDeferring`] learns.
    fn run(&self, pending: Pending, fed: bool) -> Result<(), BrookError> {
        if fed || !pending.ran {
            self.deferred.worth.learn(pending.key(), fed);
        }
        pending
            .with_call(|call| {
                self.backend.run_kernel(call)?;
                self.record_kernel(call);
                Ok(())
            })
            .map_err(|e| (pending.program.compiled).locate(pending.kernel, e))
    }
}

impl Runtime {
    /// Switches automatic kernel → reduction fusion (on by default where the backend fuses:
    /// GL, wgpu and the CPU): a kernel call with one whole `out` stream waits, and a
    /// reduction of that output that follows computes it inside itself, as
    /// [`Runtime::map_reduce_to_value`] does; the output stream still gets the kernel's
    /// values if anything reads it later. Results are those of running each call at once;
    /// an error only running finds (a GL error, a CPU time limit) is reported by the
    /// operation that runs the call, located at the kernel (GL runs a call whose loops it
    /// checks at once, so a cut loop is the call's error). Switching it off runs a waiting
    /// call. The rules are in `src/gate/deferred.rs`.
    pub fn set_automatic_fusion(&self, on: bool) -> Result<(), BrookError> {
        self.gate.deferred.automatic.set(on);
        if on {
            Ok(())
        } else {
            self.gate.run_waiting(|_| true)
        }
    }
}
