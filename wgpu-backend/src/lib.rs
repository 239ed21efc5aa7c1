//! Brook on wgpu: the typed IR as naga compute modules over storage buffers.
//!
//! - [`lower`]: Brook's IR → naga IR (the compiler back end), validated by naga.
//! - [`shaders`]: the entry points each operation runs (kernels, reductions, scatters,
//!   scans), as naga modules.
//! - [`WgpuBackend`]: the API (streams, kernels, reductions, scatter, gather-op, masks,
//!   queries, swap, trace), on a device of its own or an application's.
//! - [`WgpuStream`]: a stream as one storage buffer in C layout.

pub mod backend;
pub mod error;
pub mod gpu;
pub mod lower;
pub mod ops;
pub mod pipeline;
pub mod program;
pub mod shaders;
pub mod stream;
pub mod trace;
mod work;

pub use backend::WgpuBackend;
pub use error::WgpuError;
pub use ops::KernelArg;
pub use pipeline::Source;
pub use program::WgpuProgram;
pub use stream::{Domain, WgpuStream};
pub use trace::{CallTrace, Dispatch, Step};
