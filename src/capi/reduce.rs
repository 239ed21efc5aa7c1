//! Reductions through the C ABI: `sum(s, result)` in host code, where `result` is a host
//! value or a smaller stream (001 §2.3).

use std::ffi::c_char;

use super::kernel::{with_args, BrookArg};
use super::runtime::{c_str, fail, or_exit, with_runtime};
use super::stream::{bounds, program_ref, stream_ref, BrookProgram, BrookStream};
use crate::stream::Stream;
use brook_core::HostScalar;

/// Reduces `input` (a whole stream, or with `rank` > 0 its domain) with reduce function
/// `name` into the `count` floats at `out` (the element type's host layout), or, where `host`
/// names a host type (`"int"`, `"uint"`: a reduction over `int` streams into a host `int`),
/// into `count` components of that type, converted as `streamWrite` converts them (see
/// [`HostScalar`]). `args` binds the function's other parameters, in order.
///
/// # Safety
/// `program` and `input` are live, `name` is NUL-terminated, `host` null or NUL-terminated,
/// `out` holds `count` floats (or components of `host`'s type) and `args`/`n` are as for
/// [`brook_kernel_run`](super::brook_kernel_run).
#[no_mangle]
pub unsafe extern "C" fn brook_reduce_value(
    program: *const BrookProgram,
    name: *const c_char,
    input: *const BrookArg,
    args: *const BrookArg,
    n: usize,
    out: *mut f32,
    count: usize,
    host: *const c_char,
) {
    let program = program_ref(program);
    let name = c_str(name, "the reduction name");
    let copy = domain_copy(input, name);
    let input = copy.as_ref().unwrap_or_else(|| whole(input));
    if out.is_null() {
        fail(&format!("reduction `{name}`: the result is a null pointer"));
    }
    let value = with_args(args, n, name, |extra| {
        with_runtime(|rt| rt.reduce_to_value(&program, name, input, extra))
    });
    if value.len() != count {
        fail(&format!(
            "reduction `{name}`: the stream's elements have {} floats but the result variable holds {count}",
            value.len()
        ));
    }
    match (!host.is_null()).then(|| c_str(host, "the result's host type")) {
        None => std::slice::from_raw_parts_mut(out, count).copy_from_slice(&value),
        Some(type_name) => {
            let Some((scalar, _)) = HostScalar::of_type_name(type_name) else {
                fail(&format!("reduction `{name}`: no host type `{type_name}`"));
            };
            let bytes = std::slice::from_raw_parts_mut(out.cast(), count * scalar.bytes());
            scalar.encode(&value, bytes);
        }
    }
}

/// Reduces `input` with reduce function `name` into the smaller stream `output`.
///
/// # Safety
/// As [`brook_reduce_value`], with `output` a live stream.
#[no_mangle]
pub unsafe extern "C" fn brook_reduce_stream(
    program: *const BrookProgram,
    name: *const c_char,
    input: *const BrookArg,
    args: *const BrookArg,
    n: usize,
    output: *const BrookStream,
) {
    let program = program_ref(program);
    let name = c_str(name, "the reduction name");
    let copy = domain_copy(input, name);
    let input = copy.as_ref().unwrap_or_else(|| whole(input));
    let output = &stream_ref(output).0;
    with_args(args, n, name, |extra| {
        with_runtime(|rt| rt.reduce_to_stream(&program, name, input, output, extra))
    })
}

/// The stream of a reduction's input argument.
///
/// # Safety
/// `input` is a live argument naming a live stream.
unsafe fn whole<'a>(input: *const BrookArg) -> &'a Stream {
    &stream_ref((*input).stream).0
}

/// A reduction of `s.domain(lo, hi)`: the domain's elements copied into a stream of the
/// domain's shape, which is reduced as a stream is (None for a whole stream). The copy goes
/// through host memory: correct on every backend, not fast.
///
/// # Safety
/// `input` is null or a live argument naming a live stream, with `rank` bounds.
unsafe fn domain_copy(input: *const BrookArg, name: &str) -> Option<Stream> {
    let Some(arg) = input.as_ref() else {
        fail(&format!("reduction `{name}`: the input is a null pointer"));
    };
    if arg.stream.is_null() {
        fail(&format!("reduction `{name}`: the input is not a stream"));
    }
    if arg.rank == 0 {
        return None;
    }
    let stream = &stream_ref(arg.stream).0;
    let (lo, hi) = (bounds(arg.lo, arg.rank), bounds(arg.hi, arg.rank));
    let domain = or_exit(stream.domain(&lo, &hi));
    let mut values = vec![0.0; domain.len() * stream.floats_per_element()];
    or_exit(domain.write(&mut values));
    let copy = with_runtime(|rt| rt.stream(stream.format().clone(), &domain.shape()));
    or_exit(copy.read(&values));
    Some(copy)
}
