//! Brook on wgpu.

pub mod lower;
pub mod shaders;
