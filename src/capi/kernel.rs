//! Kernel calls through the C ABI: the generated stubs pass every argument in one array.

use std::ffi::c_char;

use super::runtime::{c_str, fail, with_runtime};
use super::stream::{program_ref, stream_ref, BrookProgram, BrookStream};
use crate::arg::Arg;

/// One kernel argument: a stream (`stream` non-null), or a constant's `count` floats in C
/// layout (`int`s converted to float, as for [`Arg::Constant`]).
#[repr(C)]
pub struct BrookArg {
    pub stream: *const BrookStream,
    pub values: *const f32,
    pub count: usize,
}

/// Runs kernel `name` of `program` with `n` arguments, one per kernel parameter.
///
/// # Safety
/// `program` is a live program, `name` a NUL-terminated string, `args` points to `n`
/// arguments whose streams are live and whose values hold `count` floats.
#[no_mangle]
pub unsafe extern "C" fn brook_kernel_run(
    program: *const BrookProgram,
    name: *const c_char,
    args: *const BrookArg,
    n: usize,
) {
    let program = program_ref(program);
    let name = c_str(name, "the kernel name");
    if args.is_null() && n > 0 {
        fail(&format!(
            "kernel `{name}`: the argument array is a null pointer"
        ));
    }
    let raw = if n == 0 {
        &[][..]
    } else {
        std::slice::from_raw_parts(args, n)
    };
    let args: Vec<Arg> = raw
        .iter()
        .map(|a| {
            if a.stream.is_null() {
                let values = if a.count == 0 {
                    &[][..]
                } else {
                    std::slice::from_raw_parts(a.values, a.count)
                };
                Arg::Constant(values.to_vec())
            } else {
                Arg::Stream(&stream_ref(a.stream).0)
            }
        })
        .collect();
    with_runtime(|rt| rt.run(program, name, &args))
}
