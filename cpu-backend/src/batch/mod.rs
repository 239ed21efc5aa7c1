//! The batch engine: kernels compiled once, then run over batches of elements.
//!
//! The interpreter ([`crate::exec`]) pays a `match` on the IR and on each `Value`'s variant
//! for every operation of every element. Here a kernel is compiled once ([`compile`]) into
//! instructions whose operands are registers holding one component for a whole batch of
//! [`LANES`] elements, so each instruction is one tight loop (SAXPY's `a * x + y` is eight
//! loops of 512 multiplies or adds) and dispatch is paid once per batch.
//!
//! The semantics are the interpreter's, by construction: operators and built-in formulas are
//! the same functions ([`crate::exec::ops`], [`crate::exec::builtin`]); the built-ins that are
//! not component-wise (`dot`, `length`, `distance`, `normalize`, `cross`, `mul` with matrices,
//! `all`, `any`) call the interpreter's `builtin` per lane; divergent control flow runs under
//! execution masks ([`exec`]). Kernels the compiler does not take (vout/`push`, malformed IR)
//! run on the interpreter, which reports the error ([`compile::Unbatchable`] says why).

pub mod compile;
pub(crate) mod drive;
pub(crate) mod exec;
pub mod program;
pub(crate) mod regs;

pub use compile::{compile_kernel, Unbatchable};
pub use program::{BatchKernel, LANES};
