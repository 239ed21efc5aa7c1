//! Brook's reference backend: executes the typed IR ([`brook_ir`]) on the CPU.
//!
//! Every GL test is compared against this crate, so it must be obviously right: the rules of
//! `docs/semantics.md` (gather rounding and clamping, implicit resizing, iterators,
//! `indexof`, Cg built-ins) are small pure functions in `shape` and `exec`, and a
//! tree-walking interpreter (`exec`) runs the IR one element at a time. It must also be
//! fast enough that comparisons are meaningful, so kernels and reductions normally run as
//! native code compiled by Cranelift (`jit`), once per call shape, calling the very same
//! built-in functions where it does not inline their IEEE operations. The two engines agree
//! bit for bit (the conformance suite and `tests/jit_*.rs` compare them). Arithmetic is done in `f32`, like the GPU, so results agree with
//! the GL backend up to the GPU's own rounding.
//!
//! Its public surface is [`CpuBackend`] — brook-core's `Backend`, which `brook::Runtime::cpu()`
//! runs on and which receives every call checked by the runtime — with [`CpuError`], the
//! backend's own failures (host memory, time limits, what it does not implement), and
//! [`clif_text`] (`brcc clif`). The engines' entry points below are public only as hooks for
//! this crate's tests and benches (hidden from the docs): they take calls the runtime has
//! checked, and meet a broken precondition as [`CpuError::Precondition`], never as a rule of
//! their own.
//!
//! The pieces:
//! - `CpuStream`: host storage, C's array-of-structs layout (see `stream`).
//! - `run_kernel` / `KernelPlan`: one kernel call over all output elements, split into
//!   chunks run in parallel with rayon (see `kernel`).
//! - `run_reduce`: reductions to one value or to a smaller stream (see `reduce`).
//! - `run_map_reduce`: a kernel computed inside the fold of a reduction of its output, never
//!   written (see `fused`).
//! - `run_scatter`: `streamScatterOp`, sequential in index order (see `scatter`).
//! - `run_gather_op`: `streamGatherOp` (fetch-and-op), sequential in index order.
//! - `Value`: the interpreter's runtime values (see `value`).
//! - `Watchdog`: a time limit for kernel calls, checked at every loop back edge.
//! - [`CpuBackend`]: all of it behind brook-core's `Backend` trait, for the runtime.

#![warn(missing_docs)]

#[doc(hidden)]
pub mod args;
mod backend;
mod error;
#[doc(hidden)]
pub mod exec;
#[doc(hidden)]
pub mod fused;
#[doc(hidden)]
pub mod gather_op;
#[doc(hidden)]
pub mod jit;
#[doc(hidden)]
pub mod kernel;
#[doc(hidden)]
pub mod reduce;
#[doc(hidden)]
pub mod scatter;
#[doc(hidden)]
pub mod shape;
#[doc(hidden)]
pub mod stream;
#[doc(hidden)]
pub mod value;
#[doc(hidden)]
pub mod watchdog;
#[doc(hidden)]
pub mod why;

pub use backend::CpuBackend;
pub use error::CpuError;
pub use jit::{clif_text, ClifError};

#[doc(hidden)]
pub use args::CpuArg;
#[doc(hidden)]
pub use fused::run_map_reduce;
#[doc(hidden)]
pub use gather_op::run_gather_op;
#[doc(hidden)]
pub use kernel::{run_kernel, Compiled, Engine, Execution, KernelPlan, KernelRun};
#[doc(hidden)]
pub use reduce::{run_reduce, ReducePlan, ReduceTarget};
#[doc(hidden)]
pub use scatter::{run_scatter, ScatterCombine};
#[doc(hidden)]
pub use stream::CpuStream;
#[doc(hidden)]
pub use value::Value;
#[doc(hidden)]
pub use watchdog::Watchdog;
