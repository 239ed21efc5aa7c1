//! Shared pieces of the benchmarks.
#![allow(dead_code)] // each bench binary uses a subset

pub mod handwritten_kernel;
pub mod handwritten_saxpy;
pub mod ratios;
