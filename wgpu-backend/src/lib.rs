//! Brook on wgpu: the typed IR as naga compute modules over storage buffers.
//!
//! The same Brook programs the GL backend draws as fragment shaders over float textures run
//! here as WGSL-level compute shaders, so the two can be read and measured side by side.
//!
//! # How a program becomes compute work
//!
//! - `lower`: Brook's typed IR → naga IR, built directly (arenas, handles, `Emit` ranges)
//!   and validated by naga's `Validator`, then handed to wgpu as `ShaderSource::Naga`. No WGSL
//!   text is ever built; naga's WGSL writer prints the module for people
//!   (the trace's pass programs, `brcc wgsl`). Every naga expression and statement carries the Brook byte range
//!   it came from, so a validation failure names the Brook line.
//! - `shaders`: the entry points: one invocation per element for a kernel (any number of
//!   outputs, no pass splitting), a workgroup-shared-memory tree for reductions, atomics and
//!   conflict-free rounds for scatters, a workgroup scan for `vout` packing.
//! - `ops`: the host side of each operation (buffers, call info, dispatches).
//! - `seam`: brook-core's `Backend` trait over it, so `brook::Runtime::wgpu()`,
//!   `BRT_RUNTIME=wgpu` and `brcc run --backend wgpu` run every Brook program here (calls
//!   arrive checked by the runtime; each call's dispatches become brook-core pass traces).
//! - [`describe`]: each kernel's WGSL and dispatches without a device (`brcc wgsl`).
//!
//! # The public surface
//!
//! [`WgpuBackend`] — brook-core's `Backend`, which `brook::Runtime::wgpu()` runs on and
//! which receives every call checked by the runtime — with its device access (the device,
//! queue and adapter, [`WgpuBackend::with_device`] for an application's own device, and
//! [`WgpuStream::buffer`], a stream's storage buffer), [`WgpuError`] (the backend's own
//! failures, which the runtime wraps in `BrookError`) and [`describe`] (`brcc wgsl`). Brook's
//! rules about calls are brook-core's alone. The engine's entry points (stream creation,
//! reads, kernels, reductions, … on the crate's own types) are public only as hooks for the
//! crate's bench and example, hidden from the docs: they take calls the runtime has checked,
//! and meet a broken precondition as [`WgpuError::Precondition`], never as a rule of their
//! own.
//!
//! # Streams are linear storage buffers
//!
//! A stream is one `array<f32>` buffer in C layout: elements row-major, each element's
//! members back to back (`stream`). There is no texture size limit, so none of the GL
//! backend's address translation exists here: no wrapping of long or high-rank streams into
//! 2D textures, no texel ↔ element conversion in every fetch, gather and output, no special
//! cases for direct layouts. An element's position is its row-major linear index; only
//! Brook's own rules (implicit resizing, gather rounding and clamping, domains) remain.
//!
//! Interleaved rather than one buffer per struct member, measured on lavapipe by the
//! `wgpu layout` bench (a 7-float struct update over 2^20 elements): see the crate's bench
//! `compare` and `docs` in the report. Interleaved also makes host reads and writes single
//! copies, keeps a call's bindings to one per stream (WebGPU caps storage buffers per
//! stage), and makes a stream's buffer a ready vertex buffer for an application.
//!
//! # Errors
//!
//! wgpu reports errors through error scopes and panics on uncaptured ones by default; every
//! operation here runs inside validation, out-of-memory and internal scopes and returns a
//! [`WgpuError`] instead (`gpu`). The adapter is a GPU when there is one, else Mesa's
//! lavapipe (Vulkan on the CPU), else wgpu's GL backend; with none, the error names the
//! packages to install.

#![warn(missing_docs)]

mod backend;
mod binds;
mod counts;
pub mod describe;
mod error;
#[doc(hidden)]
pub mod exact;
#[doc(hidden)]
pub mod gpu;
mod kept_scratch;
pub(crate) mod lower;
#[doc(hidden)]
pub mod ops;
#[doc(hidden)]
pub mod pipeline;
#[doc(hidden)]
pub mod program;
mod seam;
#[doc(hidden)]
pub mod shaders;
mod staging;
mod stream;
#[doc(hidden)]
pub mod trace;
mod work;

/// The wgpu this crate runs on, for applications that hand it their device
/// ([`WgpuBackend::with_device`]) or bind a stream's buffer in their own passes.
pub use wgpu;

pub use backend::WgpuBackend;
pub use counts::ApiCounts;
pub use error::{WgpuError, ADAPTER_PACKAGES};
pub use stream::WgpuStream;

#[doc(hidden)]
pub use error::Result;
#[doc(hidden)]
pub use ops::KernelArg;
#[doc(hidden)]
pub use pipeline::Source;
#[doc(hidden)]
pub use program::WgpuProgram;
#[doc(hidden)]
pub use stream::{Domain, IterSpec, Storage};
#[doc(hidden)]
pub use trace::{CallTrace, Dispatch, Step};
