//! Which kernels are worth deferring for automatic fusion (`deferred.rs`).
//!
//! Deferring a call costs GL the call's shader preparation twice (once at the call, so its
//! errors stay the call's, and again when it runs), which a kernel whose output is never
//! reduced would pay on every call for nothing: the knee's 43-MAD ping-pong is such a loop.
//! So the runtime remembers, per kernel, whether its last call fed a reduction, and defers a
//! kernel only while it does (or before it has been seen). A kernel run at once whose output
//! the next reduction folds is remembered as feeding, so it waits from its next call on.
//! Only speed depends on this: a deferred call and one run at once give the same results.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::{Rc, Weak};

use brook_core::StreamArg;
use brook_ir::FunctionId;

use super::handles::{Prepared, StreamBody};

/// A kernel: its program (a weak handle on the gate's program, which keeps the allocation,
/// so no later program can take its address while the key is remembered) and its function.
#[derive(Clone)]
pub(crate) struct KernelKey {
    program: Weak<Prepared>,
    function: u32,
}

impl PartialEq for KernelKey {
    fn eq(&self, other: &KernelKey) -> bool {
        self.function == other.function && self.program.ptr_eq(&other.program)
    }
}

/// How many kernels are remembered: a loop of a few kernels fits, and the memory is bounded
/// however many programs a long run compiles.
const REMEMBERED: usize = 16;

/// The memory: the most recently seen kernels, whether each last fed a reduction.
#[derive(Default)]
pub(crate) struct WorthDeferring {
    seen: RefCell<VecDeque<(KernelKey, bool)>>,
    /// The last call run at once because it was not worth deferring, and its output stream
    /// (a weak handle, so its identity outlives it): a reduction of that output teaches that the kernel feeds one.
    ran_at_once: RefCell<Option<(KernelKey, Weak<StreamBody>)>>,
}

/// The key of kernel `kernel` of `program`.
pub(crate) fn key(program: &Rc<Prepared>, kernel: FunctionId) -> KernelKey {
    KernelKey {
        program: Rc::downgrade(program),
        function: kernel.0,
    }
}

/// A weak handle on a gate's stream: its identity, kept while remembered.
fn identity(stream: &StreamArg) -> Weak<StreamBody> {
    Rc::downgrade(&StreamBody::of(stream).handle())
}

impl WorthDeferring {
    /// Whether a call of `kernel` should wait: unless its last call did not feed a
    /// reduction. When not, the call (writing `output`) is remembered as run at once.
    pub(crate) fn should_wait(&self, kernel: KernelKey, output: &StreamArg) -> bool {
        let fed = (self.seen.borrow().iter())
            .find(|(k, _)| *k == kernel)
            .is_none_or(|(_, fed)| *fed);
        *self.ran_at_once.borrow_mut() = (!fed).then(|| (kernel, identity(output)));
        fed
    }

    /// Remembers whether `kernel`'s last call fed a reduction.
    pub(crate) fn learn(&self, kernel: KernelKey, fed: bool) {
        let mut seen = self.seen.borrow_mut();
        seen.retain(|(k, _)| *k != kernel);
        if seen.len() == REMEMBERED {
            seen.pop_front();
        }
        seen.push_back((kernel, fed));
    }

    /// A reduction of `input` that no waiting call fed: if it folds the output of the call
    /// last run at once, that kernel feeds reductions after all.
    pub(crate) fn reduced(&self, input: &StreamArg) {
        if let Some((kernel, output)) = self.ran_at_once.take() {
            if output.ptr_eq(&identity(input)) {
                self.learn(kernel, true);
            }
        }
    }
}
