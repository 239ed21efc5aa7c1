//! Brook's typed IR: what the front end produces and every back end reads.
//!
//! This crate is the bottom of the workspace: it depends on nothing of Brook's, and the
//! front end, `brook-core` and every back end depend on it.
//!
//! - [`module`]: the IR itself ([`Module`], [`Function`], [`Expr`], …), plain data like
//!   naga's `Module`, every expression typed and every name resolved;
//! - [`builtin`]: the built-in catalogue ([`Builtin`]: name, arity, typing after checking)
//!   and [`accuracy`], the numeric contract of each built-in;
//! - [`validate`]: the invariants a back end relies on, checked once between the front end
//!   and any back end;
//! - [`lower_composites`]: the built-ins defined by a formula of others (`lerp`, `smoothstep`,
//!   `clamp`, …) rewritten into that formula, once for every back end;
//! - [`exact`]: which constants an accurate back end hides from the driver's compiler, and
//!   the [`MathMode`] that asks for it;
//! - [`integral`]: which float values are proven to hold integers, so every back end's
//!   gathers at them skip Brook's index rounding ([`Integral`]);
//! - [`visit`]: read-only and mutable walks over the IR, one traversal order for both, and
//!   [`walk`]: the questions backends and analyses ask with it (every expression, the
//!   functions a kernel calls, whether it can `discard`);
//! - [`Span`] and [`Diagnostics`]: positions in the Brook source, and errors that point at
//!   them with carets.

#![warn(missing_docs)]

pub mod accuracy;
pub mod builtin;
mod composite;
pub mod diagnostics;
pub mod effects;
pub mod exact;
pub mod integral;
pub mod module;
pub mod span;
mod valid;
pub mod visit;
pub mod walk;

pub use builtin::Builtin;
pub use composite::{lower_composites, unlowered, DEGREES_PER_RADIAN, RADIANS_PER_DEGREE};
pub use diagnostics::{Diagnostic, Diagnostics};
pub use exact::MathMode;
pub use integral::Integral;
pub use module::*;
pub use span::Span;
pub use valid::{validate, Invalid, ValidationError};
