//! The host side of each Brook operation on wgpu: buffers, call info, dispatches. Calls
//! arrive checked by brook-core; what would bind wrongly if they did not is refused as
//! [`WgpuError::Precondition`].
//!
//! - [`kernel`]: kernel calls (in-place copies, domains, masks, queries).
//! - `vout`: packing `vout` values after a kernel (scan and compaction).
//! - `mask`: the write mask and the write query.
//! - [`reduce`]: reductions to a value or a stream.
//! - [`scatter`]: `streamScatterOp` and `streamGatherOp`.

pub mod kernel;
pub(crate) mod mask;
pub mod reduce;
pub mod scatter;
pub(crate) mod vout;

use brook_core::loops::{unbounded_loops_message, within_cap};
use brook_ir::{FunctionId, Module, Param};

use crate::error::WgpuError;
use crate::gpu::Gpu;
use crate::lower::values::flat_len;
use crate::stream::{Domain, WgpuStream};

/// One argument of a kernel call (or an extra argument of a reduction): a stream, a domain
/// of one, or a constant's floats in C layout (a `float4` is 4 floats, an `int` its value).
#[derive(Clone, Copy)]
pub enum KernelArg<'a> {
    /// A whole stream.
    Stream(&'a WgpuStream),
    /// The region of a stream a call sees (`a.domain(lo, hi)`).
    Domain(&'a WgpuStream, &'a Domain),
    /// A constant's floats in C layout.
    Constant(&'a [f32]),
}

impl<'a> KernelArg<'a> {
    /// The stream of a stream argument (callers check constants first).
    pub fn stream(&self) -> &'a WgpuStream {
        match *self {
            KernelArg::Stream(s) | KernelArg::Domain(s, _) => s,
            KernelArg::Constant(_) => panic!("a constant has no stream"),
        }
    }
}

/// The shape the call sees of a stream argument: its domain's, or its own (borrowed: the
/// common case, on every call's path).
pub fn call_shape_of<'a>(a: &KernelArg<'a>) -> std::borrow::Cow<'a, [usize]> {
    match *a {
        KernelArg::Domain(_, d) => d.shape().into(),
        KernelArg::Stream(s) => s.shape().into(),
        KernelArg::Constant(_) => (&[][..]).into(),
    }
}

/// Checks that a stream's elements (of `got` floats) have the floats of the parameter's type,
/// as brook-core's call checks guarantee (elements of another size would be read wrongly);
/// `call` names the call (`kernel \`saxpy\``) for the error.
pub fn check_fpe(
    module: &Module,
    call: &dyn std::fmt::Display,
    p: &Param,
    got: usize,
) -> Result<(), WgpuError> {
    if got != flat_len(module, &p.ty) as usize {
        return Err(WgpuError::precondition(
            call,
            format!(
                "`{}`: elements of another size than the parameter's",
                p.name
            ),
        ));
    }
    Ok(())
}

/// For shaders that cannot report a cut loop (reduction and scatter rounds, which call `f` up
/// to `calls` times per invocation, besides `own` iterations of their own loops): an error,
/// on a driver that caps loop iterations, unless `f`'s loops are known to stay within the
/// cap, so a result is never silently wrong (as on GL).
pub fn refuse_unbounded_loops(
    gpu: &Gpu,
    module: &Module,
    f: FunctionId,
    calls: u32,
    own: u32,
) -> Result<(), WgpuError> {
    match gpu.loop_cap() {
        Some(cap) if !within_cap(module, f, calls, cap.saturating_sub(own)) => {
            Err(WgpuError::DeviceLimit {
                call: "shader generation".into(),
                message: unbounded_loops_message(&module.func(f).name, cap),
            })
        }
        _ => Ok(()),
    }
}
