//! Reductions through the C ABI: `sum(s, result)` in host code, where `result` is a host
//! value or a smaller stream (001 §2.3).

use std::ffi::c_char;

use super::kernel::{with_args, BrookArg};
use super::runtime::{c_str, fail, with_runtime};
use super::stream::{program_ref, stream_ref, BrookProgram, BrookStream};

/// Reduces `input` with reduce function `name` into the `count` floats at `out` (the
/// element type's host layout). `args` binds the function's other parameters, in order.
///
/// # Safety
/// `program` and `input` are live, `name` is NUL-terminated, `out` holds `count` floats and
/// `args`/`n` are as for [`brook_kernel_run`](super::brook_kernel_run).
#[no_mangle]
pub unsafe extern "C" fn brook_reduce_value(
    program: *const BrookProgram,
    name: *const c_char,
    input: *const BrookStream,
    args: *const BrookArg,
    n: usize,
    out: *mut f32,
    count: usize,
) {
    let program = program_ref(program);
    let name = c_str(name, "the reduction name");
    let input = &stream_ref(input).0;
    if out.is_null() {
        fail(&format!("reduction `{name}`: the result is a null pointer"));
    }
    let value = with_args(args, n, name, |extra| {
        with_runtime(|rt| rt.reduce_to_value(program, name, input, extra))
    });
    if value.len() != count {
        fail(&format!(
            "reduction `{name}`: the stream's elements have {} floats but the result variable holds {count}",
            value.len()
        ));
    }
    std::slice::from_raw_parts_mut(out, count).copy_from_slice(&value);
}

/// Reduces `input` with reduce function `name` into the smaller stream `output`.
///
/// # Safety
/// As [`brook_reduce_value`], with `output` a live stream.
#[no_mangle]
pub unsafe extern "C" fn brook_reduce_stream(
    program: *const BrookProgram,
    name: *const c_char,
    input: *const BrookStream,
    args: *const BrookArg,
    n: usize,
    output: *const BrookStream,
) {
    let program = program_ref(program);
    let name = c_str(name, "the reduction name");
    let (input, output) = (&stream_ref(input).0, &stream_ref(output).0);
    with_args(args, n, name, |extra| {
        with_runtime(|rt| rt.reduce_to_stream(program, name, input, output, extra))
    })
}
