//! Brook streams stored in float textures: the GL context, stream layout and
//! address translation, and Brook's `streamRead`/`streamWrite`.
//!
//! # Design
//!
//! * **A context, shared.** [`GlContext`] wraps a current GL context (made
//!   headless through EGL, or adopted from an application), probes what the
//!   device can do once ([`Caps`]), and owns the objects every pass shares: an
//!   empty VAO and a cache of framebuffer objects.
//! * **One texture per member.** A stream of `float`..`float4` elements is one
//!   texture (R32F, RG32F, RGBA32F; a `float3` is padded to RGBA32F because RGB32F
//!   cannot be rendered to). A stream of structs is one texture per field, as in
//!   the Brook paper: a kernel writing a struct writes several render targets.
//! * **One layout rule.** Streams are row-major with the last dimension fastest.
//!   Element `(i_0, …, i_{r-1})` has linear index `L = Σ i_k·stride_k` and lives
//!   at texel `(L mod W, L div W)` of a `W × H` texture. 1D and 2D streams that
//!   fit are stored directly (`W` = columns, `H` = rows, texel = (column, row));
//!   others are *translated*: `H = ⌈n / max⌉`, `W = ⌈n / H⌉`. See [`layout`]
//!   for the details and why the arithmetic is exact in 32-bit shader ints.
//! * **Ownership.** Every GL object is owned by a Rust value and deleted when it
//!   drops; dropping a [`Texture`] also drops the cached framebuffers that use it.
//! * **Errors, not panics.** Bad shapes, sizes and domains are [`StoreError`]s;
//!   GL errors are checked after every allocation, upload and readback and
//!   become [`GlError`]s.

#![warn(missing_docs)]

mod caps;
mod check;
mod context;
mod egl;
mod error;
mod framebuffer;
pub mod layout;
mod program;
mod spans;
mod stream;
mod texel_format;
mod texture;
mod transfer;

pub use brook_core::{Domain, ElementFormat, IterSpec, MemberFormat};
pub use caps::Caps;
pub use context::{ContextOptions, CurrentScope, GlContext, LiveObjects, Profile};
pub use error::{GlError, StoreError};
pub use layout::{Layout, MAX_ADDRESSABLE_TEXTURE_SIZE};
pub use program::Program;
pub use spans::TexelRect;
pub use stream::Stream;
pub use texture::Texture;
