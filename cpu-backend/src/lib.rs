//! Brook's reference backend: executes the typed IR ([`brook_ir`]) on the CPU.
//!
//! Every GL test is compared against this crate, so it must be obviously right: the rules of
//! `docs/semantics.md` (gather rounding and clamping, implicit resizing, iterators,
//! `indexof`, Cg built-ins) are small pure functions in [`shape`] and [`exec`], and a
//! tree-walking interpreter ([`exec`]) runs the IR one element at a time. It must also be
//! fast enough that comparisons are meaningful, so kernels and reductions normally run as
//! native code compiled by Cranelift ([`jit`]), once per call shape, calling the very same
//! built-in functions where it does not inline their IEEE operations. The two engines agree
//! bit for bit (the conformance suite and `tests/jit_*.rs` compare them). Arithmetic is done in `f32`, like the GPU, so results agree with
//! the GL backend up to the GPU's own rounding.
//!
//! The pieces:
//! - [`CpuStream`]: host storage, C's array-of-structs layout (see [`stream`]).
//! - [`run_kernel`] / [`KernelPlan`]: one kernel call over all output elements, split into
//!   chunks run in parallel with rayon (see [`kernel`]).
//! - [`run_reduce`]: reductions to one value or to a smaller stream (see [`reduce`]).
//! - [`run_scatter`]: `streamScatterOp`, sequential in index order (see [`scatter`]).
//! - [`run_gather_op`]: `streamGatherOp` (fetch-and-op), sequential in index order.
//! - [`Value`]: the interpreter's runtime values (see [`value`]).
//! - [`Watchdog`]: a time limit for kernel calls, checked at every loop back edge.
//! - [`CpuError`]: everything that can go wrong, with messages meant for the Brook user.
//! - [`CpuBackend`]: all of it behind brook-core's `Backend` trait, for the runtime.

#![warn(missing_docs)]

pub mod args;
pub mod backend;
pub mod error;
pub mod exec;
pub mod gather_op;
pub mod jit;
pub mod kernel;
pub mod reduce;
pub mod scatter;
pub mod shape;
pub mod stream;
pub mod value;
pub mod watchdog;

pub use args::{CpuArg, CpuIter};
pub use backend::CpuBackend;
pub use error::CpuError;
pub use kernel::{run_kernel, Compiled, Engine, Execution, KernelPlan, KernelRun};

pub use gather_op::run_gather_op;
pub use reduce::{run_reduce, ReducePlan, ReduceTarget};
pub use scatter::{run_scatter, ScatterCombine};
pub use stream::CpuStream;
pub use value::Value;
pub use watchdog::Watchdog;
