//! Brook's reference backend: executes the typed IR ([`brook_frontend::ir`]) on the CPU.
//!
//! Every GL test is compared against this crate, so it favours being obviously right over
//! being clever: a tree-walking interpreter over the IR, one element at a time, with the
//! rules of `brook-semantics.md` (gather rounding and clamping, implicit resizing, iterators,
//! `indexof`, Cg built-ins) written out as small pure functions in [`shape`] and
//! [`exec`]. Arithmetic is done in `f32`, like the GPU, so results agree with the GL backend
//! up to the GPU's own rounding.
//!
//! The pieces:
//! - [`CpuStream`]: host storage, C's array-of-structs layout (see [`stream`]).
//! - [`run_kernel`]: one kernel call over all output elements, split into chunks run in
//!   parallel with rayon (see [`kernel`]).
//! - [`run_reduce`]: reductions to one value or to a smaller stream (see [`reduce`]).
//! - [`Value`]: the interpreter's runtime values (see [`value`]).
//! - [`CpuError`]: everything that can go wrong, with messages meant for the Brook user.

pub mod batch;
pub mod error;
pub mod exec;
pub mod kernel;
pub mod reduce;
pub mod shape;
pub mod stream;
pub mod value;

pub use error::CpuError;
pub use kernel::{run_kernel, CpuArg, CpuIter, Engine, KernelPlan};

pub use reduce::{run_reduce, ReduceTarget};
pub use stream::CpuStream;
pub use value::Value;
