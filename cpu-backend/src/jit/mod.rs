//! The JIT: kernels and reductions compiled to native code with Cranelift.
//!
//! The typed IR of a kernel becomes one Cranelift function over a *tile* of consecutive
//! output elements (`kernel`): a loop that loads each element's inputs, runs the body and
//! stores the outputs, with Brook's vector types on 128-bit SIMD lanes (`float4` is one
//! `f32x4`), gathers, resizing, iterators and `indexof` as inline address arithmetic, and
//! real branches for control flow (one element at a time, nothing diverges). Tiles run in
//! parallel with rayon (`drive`). A reduction becomes a fold over consecutive elements and
//! a one-element update (`reduce`); ScatterOp and GatherOp call the update.
//!
//! The pieces:
//! - `lower`: IR → Cranelift IR for one element (expressions, statements, built-ins,
//!   places, helper inlining, memory layouts, address arithmetic), rule by rule the
//!   interpreter's.
//! - `slots`: what a compiled function reads from its call (addresses, extents, constants).
//! - `code`: the target, the Cranelift JIT module and the executable memory.
//! - `runtime`: the Rust functions compiled code calls (built-in formulas, vout buffers).
//! - `kernel`, `reduce`: the compiled functions' shapes; `drive`: running them.
//! - [`clif`]: the Cranelift IR of a kernel as text, for people learning from it.
//!
//! The interpreter ([`crate::exec`]) stays the reference: every construct is lowered to the
//! same operations in the same order, built-ins call the same Rust functions or inline the
//! same IEEE operations, and nothing is fused, so both engines give the same bits. A
//! construct the lowering does not take makes the call run on the interpreter
//! ([`Unjittable`] says why), never a different answer.

pub mod clif;
pub(crate) mod code;
pub(crate) mod drive;
pub(crate) mod kernel;
pub(crate) mod lower;
pub(crate) mod reduce;
pub(crate) mod runtime;
pub(crate) mod slots;

pub use clif::{clif_text, ClifError};

/// Function `id` of `module`, to compile.
fn function(
    module: &brook_frontend::ir::Module,
    id: brook_frontend::ir::FunctionId,
) -> Result<&brook_frontend::ir::Function, Unjittable> {
    module
        .functions
        .get(id.0 as usize)
        .ok_or_else(|| Unjittable("no such function".into()))
}

/// Why a kernel or reduction does not run as native code (it runs on the interpreter, which
/// reports any error in it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unjittable(pub String);

impl std::fmt::Display for Unjittable {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
