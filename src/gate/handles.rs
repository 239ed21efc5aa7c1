//! What the gate's streams and programs are: the backend's own storage and prepared program,
//! each in an `Rc` that the user's [`Stream`](crate::Stream) or [`Program`](crate::Program)
//! and a waiting kernel call share, so the call keeps them alive if the user drops them
//! first. Every call the gate passes on reaches the backend unwrapped: with the backend's own
//! storage and program, as if there were no gate.

use std::any::Any;
use std::rc::{Rc, Weak};

use brook_core::{
    BackendArg, BackendProgram, BackendStream, Combiner, Compiled, Domain, ElementFormat, IterSpec,
    KernelCall, ReduceCall, ReduceOutput, StreamArg,
};

/// A stream of the gate: its element format, extents and the backend's storage. A
/// [`StreamArg`] of it points at the body (the `storage` the gate is handed), the same
/// address for every holder, so `same_storage` tells streams apart wherever they come from.
/// It holds no gate: the gate holds the waiting call, and a gate held back would never be
/// freed.
pub(crate) struct StreamBody {
    /// Itself, for the gate to keep a stream a call waits on ([`StreamBody::handle`]).
    me: Weak<StreamBody>,
    pub(crate) format: ElementFormat,
    pub(crate) shape: Vec<usize>,
    /// The backend's storage.
    storage: BackendStream,
    /// The iterator, for an `iter` stream (computed, read-only).
    pub(crate) iter: Option<IterSpec>,
}

impl StreamBody {
    /// A body around the backend's `storage`.
    pub(crate) fn new(
        format: ElementFormat,
        shape: Vec<usize>,
        storage: BackendStream,
        iter: Option<IterSpec>,
    ) -> Rc<StreamBody> {
        Rc::new_cyclic(|me| StreamBody {
            me: me.clone(),
            format,
            shape,
            storage,
            iter,
        })
    }

    /// The stream (or its `domain`) as the gate and the call checks see it.
    pub(crate) fn arg<'a>(&'a self, domain: Option<&'a Domain>) -> StreamArg<'a> {
        StreamArg {
            storage: self,
            format: &self.format,
            shape: &self.shape,
            domain: domain.filter(|d| !d.is_whole(&self.shape)),
            iter: self.iter.as_ref(),
        }
    }

    /// The body a gate's [`StreamArg`] points at.
    pub(crate) fn of<'a>(stream: &StreamArg<'a>) -> &'a StreamBody {
        (stream.storage.downcast_ref()).expect("the runtime hands its gate only its own streams")
    }

    /// Another handle on this body.
    pub(crate) fn handle(&self) -> Rc<StreamBody> {
        self.me
            .upgrade()
            .expect("a stream lent to the gate is alive")
    }
}

/// A program of the gate: the checked IR and the backend's prepared form, shared by the
/// user's `Program` and a waiting call of one of its kernels.
pub(crate) struct Prepared {
    pub(crate) compiled: Rc<Compiled>,
    backend: BackendProgram,
}

impl Prepared {
    pub(crate) fn new(compiled: Rc<Compiled>, backend: BackendProgram) -> Rc<Prepared> {
        Rc::new(Prepared { compiled, backend })
    }

    /// The program a gate's call names (its `program`: an `Rc<Prepared>`).
    pub(crate) fn of(program: &dyn Any) -> &Rc<Prepared> {
        (program.downcast_ref()).expect("the runtime hands its gate only its own programs")
    }

    /// The backend's prepared form.
    pub(crate) fn backend(&self) -> &dyn Any {
        self.backend.as_ref()
    }
}

/// `stream` as the backend sees it: its own storage.
pub(crate) fn inner<'a>(stream: &StreamArg<'a>) -> StreamArg<'a> {
    StreamArg {
        storage: StreamBody::of(stream).storage.as_ref(),
        ..*stream
    }
}

/// Arguments as the backend sees them.
pub(crate) fn inner_args<'a>(args: &[BackendArg<'a>]) -> Vec<BackendArg<'a>> {
    (args.iter())
        .map(|a| match a {
            BackendArg::Stream(s) => BackendArg::Stream(inner(s)),
            BackendArg::Constant(v) => BackendArg::Constant(v),
        })
        .collect()
}

/// `f` of the kernel call `call` as the backend takes it.
pub(crate) fn with_kernel<T>(call: &KernelCall, f: impl FnOnce(&KernelCall) -> T) -> T {
    let args = inner_args(call.args);
    f(&KernelCall {
        program: Prepared::of(call.program).backend(),
        compiled: call.compiled,
        kernel: call.kernel,
        args: &args,
        shape: call.shape,
        mask: call.mask,
        write_mask: call.write_mask,
    })
}

/// `f` of the reduction `call` as the backend takes it.
pub(crate) fn with_reduce<T>(call: &ReduceCall, f: impl FnOnce(&ReduceCall) -> T) -> T {
    let extra = inner_args(call.extra);
    f(&ReduceCall {
        program: Prepared::of(call.program).backend(),
        compiled: call.compiled,
        function: call.function,
        input: inner(&call.input),
        extra: &extra,
        plan: call.plan,
    })
}

/// A reduction's target as the backend takes it.
pub(crate) fn inner_output<'a>(output: &'a mut ReduceOutput<'_>) -> ReduceOutput<'a> {
    match output {
        ReduceOutput::Value(v) => ReduceOutput::Value(v),
        ReduceOutput::Stream(s) => ReduceOutput::Stream(inner(s)),
    }
}

/// A combiner as the backend takes it: its reduce function's program the backend's own.
pub(crate) fn inner_combiner<'a>(op: &Combiner<'a>) -> Combiner<'a> {
    match *op {
        Combiner::Reduce {
            program,
            compiled,
            function,
        } => Combiner::Reduce {
            program: Prepared::of(program).backend(),
            compiled,
            function,
        },
        other => other,
    }
}
