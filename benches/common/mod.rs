//! Shared pieces of the benchmarks.
#![allow(dead_code)] // each bench binary uses a subset

pub mod brook_kernel;
pub mod gl_program;
pub mod handwritten_kernel;
pub mod handwritten_mask;
pub mod handwritten_reduce;
pub mod handwritten_saxpy;
pub mod handwritten_scatter;
pub mod handwritten_vout;
pub mod mad;
pub mod ping_pong;
