//! The seam between the user API and the machines that run Brook: GL, the CPU, wgpu, or a
//! backend of one's own (`brook::Runtime::with_backend`).
//!
//! A backend owns its stream storage and its compiled programs; the runtime holds them as
//! opaque values (`Box<dyn Any>`) and hands them back, so a stream made by one backend can
//! only be used with that backend. Every call reaches the backend checked
//! ([`crate::call`]): the right number and kinds of arguments, element types that match, no
//! forbidden aliasing, shapes that fit, the write-mask state valid. A backend implements the
//! mechanism, never the rules, so all backends accept and refuse the same calls.
//!
//! Nothing here names a graphics API: streams are storage plus a format and a shape,
//! programs are the checked IR, and the trace is plain data ([`crate::trace`]).
//! A backend's own capabilities (a GL context, its textures) are reached by downcasting
//! [`Backend::as_any`]; what every backend may offer (a pass observer, a time limit) is a
//! method here with a default that refuses.

use std::any::Any;
use std::rc::Rc;

use brook_ir::{Function, FunctionId};

use crate::domain::Domain;
use crate::error::BrookError;
use crate::format::ElementFormat;
use crate::iter::IterSpec;
use crate::observe::PassObserver;
use crate::program::Compiled;
use crate::reduce_plan::ReducePlan;
use crate::trace::{PassTrace, TraceEntry};

/// A backend's own stream storage.
pub type BackendStream = Box<dyn Any>;
/// A backend's own prepared form of a program.
pub type BackendProgram = Box<dyn Any>;
/// A backend's own write mask (from its `create_write_mask`): one flag per element of its
/// shape, *open* (a kernel call under the mask's test may write the element) or *set*.
pub type BackendMask = Box<dyn Any>;

/// A stream as a backend and the call checks see it.
#[derive(Clone, Copy)]
pub struct StreamArg<'a> {
    /// The backend's storage (from its `create_stream` or `create_iter`).
    pub storage: &'a dyn Any,
    /// Its element type: float..float4 or a struct of them, with the layout of each member.
    pub format: &'a ElementFormat,
    /// The whole stream's extents, outermost first.
    pub shape: &'a [usize],
    /// The region passed, when it is not the whole stream (bounds outermost first).
    pub domain: Option<&'a Domain>,
    /// The iterator, for an iterator stream (computed, no storage to write).
    pub iter: Option<&'a IterSpec>,
}

impl<'a> StreamArg<'a> {
    /// The shape the call sees: the domain's, or the stream's (borrowed: every call checks it).
    pub fn call_shape(&self) -> std::borrow::Cow<'a, [usize]> {
        match self.domain {
            Some(d) => d.shape().into(),
            None => self.shape.into(),
        }
    }

    /// The first element the call sees, in the whole stream (outermost first).
    pub fn lo(&self) -> Vec<usize> {
        match self.domain {
            Some(d) => d.lo().to_vec(),
            None => vec![0; self.shape.len()],
        }
    }

    /// Whether two arguments are the same stream (whatever their domains).
    pub fn same_storage(&self, other: &StreamArg) -> bool {
        std::ptr::addr_eq(self.storage, other.storage)
    }
}

/// One argument of a call as a backend sees it.
#[derive(Clone, Copy)]
pub enum BackendArg<'a> {
    /// A stream (whole, or a domain of it), or an iterator.
    Stream(StreamArg<'a>),
    /// A constant's floats in C layout (`float4` is 4 floats, `int` its value).
    Constant(&'a [f32]),
}

impl<'a> BackendArg<'a> {
    /// The stream, or `None` for a constant.
    pub fn stream(&self) -> Option<&StreamArg<'a>> {
        match self {
            BackendArg::Stream(s) => Some(s),
            BackendArg::Constant(_) => None,
        }
    }
}

/// How the write mask and write query apply to a kernel call. The mask
/// ([`KernelCall::write_mask`]) has the shape of the whole output streams; a call writing a
/// domain of them uses the mask elements at the domain's place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MaskUse {
    /// The mask's test: only elements whose mask element is open are written (the others
    /// keep their values, as if discarded).
    pub masked: bool,
    /// The mask's set mode: every element the call writes (neither discarded nor failing
    /// the test) is set in the mask afterwards, so a later tested call leaves it alone.
    pub sets: bool,
    /// The elements written are counted into the open write query.
    pub counting: bool,
}

/// A checked kernel call.
pub struct KernelCall<'a> {
    /// The backend's prepared program.
    pub program: &'a dyn Any,
    /// The program as checked, with its IR module.
    pub compiled: &'a Compiled,
    /// Which function of `compiled` to run.
    pub kernel: FunctionId,
    /// One per kernel parameter, in order.
    pub args: &'a [BackendArg<'a>],
    /// The call's shape: its `out` streams' (their domain's), or for a kernel writing only
    /// vouts its first input's.
    pub shape: &'a [usize],
    /// How the write mask and the write query apply to this call.
    pub mask: MaskUse,
    /// The bound write mask (the backend's, from `create_write_mask`), given when
    /// [`MaskUse::masked`] or [`MaskUse::sets`] is.
    pub write_mask: Option<&'a dyn Any>,
}

impl KernelCall<'_> {
    /// The kernel's IR.
    pub fn function(&self) -> &Function {
        self.compiled.module.func(self.kernel)
    }
}

/// A checked reduction.
pub struct ReduceCall<'a> {
    /// The backend's prepared program.
    pub program: &'a dyn Any,
    /// The program as checked, with its IR module.
    pub compiled: &'a Compiled,
    /// Which reduce function of `compiled` to run.
    pub function: FunctionId,
    /// The stream reduced (whole, or a domain of it).
    pub input: StreamArg<'a>,
    /// The function's constant and gather parameters, in order.
    pub extra: &'a [BackendArg<'a>],
    /// The passes of 000 §5.4 (one dimension at a time, up to 8 elements per pass), for
    /// backends that reduce in passes.
    pub plan: &'a ReducePlan,
}

impl ReduceCall<'_> {
    /// The reduce function's IR.
    pub fn function(&self) -> &Function {
        self.compiled.module.func(self.function)
    }
}

/// Where a reduction's result goes.
pub enum ReduceOutput<'a> {
    /// The reduced element's floats in C layout.
    Value(&'a mut [f32]),
    /// A stream whose extents divide the input's: each element reduces its block.
    Stream(StreamArg<'a>),
}

/// How `streamScatterOp` and `streamGatherOp` combine a value into an element.
#[derive(Clone, Copy)]
pub enum Combiner<'a> {
    /// The new value replaces the old.
    Replace,
    /// Every float added.
    Add,
    /// Component-wise minimum.
    Min,
    /// Component-wise maximum.
    Max,
    /// A `reduce void f(T a<>, reduce T r<>)` of a program prepared by this backend: `a` is
    /// the value, `r` the element.
    Reduce {
        /// The backend's prepared program (from its `prepare`).
        program: &'a dyn Any,
        /// The program as checked, with its IR module.
        compiled: &'a Compiled,
        /// Which reduce function of `compiled` combines.
        function: FunctionId,
    },
}

impl Combiner<'_> {
    /// The combiner as the trace names it: `add`, or a reduce function's name in backquotes.
    pub fn name(&self) -> String {
        match self {
            Combiner::Replace => "replace".into(),
            Combiner::Add => "add".into(),
            Combiner::Min => "min".into(),
            Combiner::Max => "max".into(),
            Combiner::Reduce {
                compiled, function, ..
            } => format!("`{}`", compiled.module.func(*function).name),
        }
    }

    /// `error` of a call combining with this, placed at its reduce function when it has one.
    pub fn locate(&self, error: BrookError) -> BrookError {
        match self {
            Combiner::Reduce {
                compiled, function, ..
            } => compiled.locate(*function, error),
            _ => error,
        }
    }
}

/// A checked `streamScatterOp(dst, index, data, op)`: for every element `i` of `data`, in
/// index order, `dst[index[i]] = op(data[i], dst[index[i]])`.
pub struct ScatterCall<'a> {
    /// The stream written into.
    pub dst: StreamArg<'a>,
    /// For each element of `data`, the element of `dst` it goes to (a `float` per dimension,
    /// rounded and clamped like a gather).
    pub index: StreamArg<'a>,
    /// The values scattered.
    pub data: StreamArg<'a>,
    /// How a value is combined with the element it lands on (when two land on one, in index order).
    pub op: Combiner<'a>,
}

/// A checked `streamGatherOp(dst, index, data, op)`: for every element `i` of `index`, in
/// index order, `dst[i] = data[index[i]]`, then with an update `data[index[i]] = op(operand,
/// data[index[i]])`.
pub struct GatherOpCall<'a> {
    /// Receives, for each element of `index`, the `data` element it names.
    pub dst: StreamArg<'a>,
    /// For each element of `dst`, the element of `data` to fetch (rounded and clamped like a
    /// gather).
    pub index: StreamArg<'a>,
    /// The stream fetched from (and updated, with `update`).
    pub data: StreamArg<'a>,
    /// `None`: a plain gather. Otherwise the combiner and what it combines into each fetched
    /// element, written back to `data`.
    pub update: Option<(Combiner<'a>, Operand<'a>)>,
}

/// What a gather-op's update combines into the data element it has just fetched, as the
/// combiner's first (`a`) argument; the element itself is the second (`r`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Operand<'a> {
    /// One element of `data`'s type in C layout floats, the same for every element:
    /// `data[t] = op(operand, data[t])` (fetch-and-add of a constant, an exchange).
    Constant(&'a [f32]),
    /// The fetched element itself: `data[t] = op(data[t], data[t])`. This is what the original
    /// BrookGPU runtime does for `streamGatherOp(dst, index, data, f)` with a reduce function
    /// `f`: it hands the fetched element to `f` as both arguments.
    Fetched,
}

/// What every backend implements. Semantics are those of `docs/semantics.md`; the CPU
/// backend is the reference the others are tested against.
pub trait Backend {
    /// `"gl"`, `"cpu"`, … as `BRT_RUNTIME` spells it.
    fn name(&self) -> &'static str;
    /// A longer description (renderer, cores, …) for reports.
    fn describe(&self) -> String;
    /// Storage for a stream of `format` and `shape` (checked to be a stream shape); its
    /// contents are undefined until written.
    fn create_stream(
        &self,
        format: &ElementFormat,
        shape: &[usize],
    ) -> Result<BackendStream, BrookError>;
    /// What a kernel needs of an iterator (its values are computed, never stored).
    fn create_iter(&self, spec: &IterSpec) -> Result<BackendStream, BrookError>;
    /// Brook's `streamRead`: a host array (C array-of-structs layout, the domain's elements
    /// row-major) into a stream that is not an iterator, or into its domain.
    fn read(&self, stream: &StreamArg, data: &[f32]) -> Result<(), BrookError>;
    /// Brook's `streamWrite`: a stream that is not an iterator, or its domain, to a host array.
    fn write(&self, stream: &StreamArg, out: &mut [f32]) -> Result<(), BrookError>;
    /// Prepares a checked program for this backend (once per program; dropped with it, so
    /// whatever the backend compiles for the program should live in the returned value).
    fn prepare(&self, program: &Rc<Compiled>) -> Result<BackendProgram, BrookError>;
    /// Runs a kernel. A stream that is an input and an output (in place) must read its old
    /// values everywhere; an element that `discard`s keeps its values. Returns how many
    /// values each `vout` parameter received, in parameter order (empty without vouts).
    fn run_kernel(&self, call: &KernelCall) -> Result<Vec<usize>, BrookError>;
    /// The passes a kernel call would run, encoded without executing them (for people
    /// learning what a call becomes); empty for backends without passes.
    fn plan_kernel(&self, call: &KernelCall) -> Result<Vec<PassTrace>, BrookError> {
        let _ = call;
        Ok(Vec::new())
    }
    /// For a kernel call the runtime would defer for automatic fusion: prepares what
    /// running it needs and could fail on, without running it (GL generates and compiles the
    /// shaders of the call's variant, which it keeps), so that such errors are still the
    /// call's own, and says whether to defer it. `false` runs it at once: GL says so for a
    /// call that can `discard` or whose loops are checked against the driver's cap, which it
    /// never fuses and whose cut loop only its own pass reports. The default prepares nothing
    /// and defers.
    fn prepare_deferred(&self, call: &KernelCall) -> Result<bool, BrookError> {
        let _ = call;
        Ok(true)
    }
    /// Reduces `call.input` in index order (`docs/semantics.md`) into `output`.
    fn reduce(&self, call: &ReduceCall, output: ReduceOutput) -> Result<(), BrookError>;
    /// A kernel call whose one output, `reduce.input`, is reduced at once
    /// (`Runtime::map_reduce_to_value`): the result must equal running the kernel, then the
    /// reduction. A backend may compute the kernel inside the reduction instead (GL and wgpu
    /// in its first pass, as a hand-written reduction would, the CPU in its fold), so the
    /// output stream's contents afterwards are unspecified. The runtime's gate calls it only
    /// where `call::fusion_refused` allows (elsewhere fusing could change the result) and runs
    /// the two calls itself otherwise, so a backend refuses only what its mechanism cannot do. Returns whether it did: `true` when the output
    /// stream was not written, `false` when the kernel ran and wrote it (the runtime's
    /// automatic fusion then has nothing left to materialise).
    fn map_reduce(
        &self,
        kernel: &KernelCall,
        reduce: &ReduceCall,
        output: ReduceOutput,
    ) -> Result<bool, BrookError> {
        self.run_kernel(kernel)?;
        self.reduce(reduce, output)?;
        Ok(false)
    }
    /// Whether [`Backend::map_reduce`] computes the kernel inside the reduction rather than
    /// running the two calls (GL does): the runtime then defers plain kernel calls by default
    /// so that a reduction of their output fuses with them (`Runtime::set_automatic_fusion`).
    fn fuses(&self) -> bool {
        false
    }
    /// `stream`'s own storage, lent to code outside the runtime (a GL texture bound in an
    /// application's rendering, a wgpu buffer in its passes, a backend's own operation):
    /// whatever the backend keeps queued that writes the stream has been done. The default
    /// lends `stream.storage` as it is; the runtime's gate runs a waiting kernel call that
    /// uses the stream first.
    fn lend<'a>(&self, stream: &StreamArg<'a>) -> Result<&'a dyn Any, BrookError> {
        Ok(stream.storage)
    }
    /// Brook's `streamScatterOp` (see [`ScatterCall`]).
    fn scatter(&self, call: &ScatterCall) -> Result<(), BrookError>;
    /// Brook's `streamGatherOp` (see [`GatherOpCall`]).
    fn gather_op(&self, call: &GatherOpCall) -> Result<(), BrookError>;
    /// A write mask of `shape`, its elements undefined until [`Backend::clear_write_mask`] or
    /// [`Backend::load_write_mask`] (the runtime's gate clears one the program made, the
    /// original's `write_mask::create`; the runtime's own mask is loaded at once, so it is
    /// drawn once, not opened first).
    fn create_write_mask(&self, shape: &[usize]) -> Result<BackendMask, BrookError>;
    /// Opens every element of `mask` (`write_mask::clear`).
    fn clear_write_mask(&self, mask: &dyn Any) -> Result<(), BrookError>;
    /// Brook's `streamSetWriteMask`: `mask` (of `from`'s shape) takes `from`'s current
    /// contents, open where an element's first float is non-zero, set elsewhere.
    fn load_write_mask(&self, mask: &dyn Any, from: &StreamArg) -> Result<(), BrookError>;
    /// `streamBeginWriteQuery`: starts counting what calls with [`MaskUse::counting`] write.
    fn begin_write_query(&self) -> Result<(), BrookError>;
    /// `streamEndWriteQuery`: the elements written (neither discarded nor masked off) since
    /// the query began; a call split into several passes counts once.
    fn end_write_query(&self) -> Result<u64, BrookError>;
    /// Brook's `streamSwap`: exchanges the storage of two streams of one shape and format.
    fn swap(&self, a: &StreamArg, b: &StreamArg) -> Result<(), BrookError>;
    /// The width of the unsigned integers the backend's shaders compute Brook's implicit
    /// resize in (`i * to / from` along a dimension, the ratio `in / out` reduced by
    /// `index::resize_ratio`): a call whose largest such product reaches `2^bits` is refused
    /// rather than computed wrongly. The
    /// CPU computes in 64 bits; GLSL 3.30 and WGSL have only 32.
    fn resize_index_bits(&self) -> u32 {
        64
    }
    /// Stops each later kernel call that runs longer than `limit` with an error (`None`: no
    /// limit), for backends that can stop one in its course.
    fn set_time_limit(&self, limit: Option<std::time::Duration>) -> Result<(), BrookError> {
        match limit {
            None => Ok(()),
            Some(_) => Err(BrookError::Unsupported {
                call: "set_time_limit".into(),
                message: format!(
                    "the {} backend cannot stop a kernel call once it has started (a draw or dispatch runs to its end); time limits are for the CPU backend, and `brcc run --timeout 60 prog.br` ends a whole program on any backend",
                    self.name()
                ),
            }),
        }
    }
    /// Computes later calls in `mode` (`brook_ir::MathMode`): the accurate contract, or the
    /// driver's fast math, each mode's accuracy as `docs/limits.md` states. A backend whose
    /// accurate code is its fast code keeps it: the default, which accepts either mode.
    fn set_math_mode(&self, mode: brook_ir::MathMode) -> Result<(), BrookError> {
        let _ = mode;
        Ok(())
    }
    /// Installs (or with `None` removes) an observer told about every pass before and after
    /// it runs, with what the pass binds readable ([`crate::observe`]; the pipeline
    /// explorer's pictures). A backend with no passes to show refuses one: the default.
    fn set_pass_observer(&self, observer: Option<Box<dyn PassObserver>>) -> Result<(), BrookError> {
        match observer {
            None => Ok(()),
            Some(_) => Err(BrookError::Unsupported {
                call: "set_pass_observer".into(),
                message: format!("the {} backend shows no passes as they run", self.name()),
            }),
        }
    }
    /// Starts (afresh) or stops recording what each call becomes.
    fn set_trace(&self, on: bool);
    /// The entries recorded since tracing started or since the last take.
    fn take_trace(&self) -> Vec<TraceEntry>;
    /// Waits until all work issued so far has finished (for timing).
    fn finish(&self);
    /// The backend itself, to reach its own capabilities by downcasting.
    fn as_any(&self) -> &dyn Any;
}
