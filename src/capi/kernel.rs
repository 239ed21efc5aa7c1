//! Kernel calls through the C ABI: the generated stubs pass every argument in one array.

use std::ffi::c_char;

use super::runtime::{c_str, fail, or_exit, with_runtime};
use super::stream::{bounds, program_ref, stream_ref, BrookProgram, BrookStream};
use brook_ir::ParamClass;

use crate::arg::Arg;
use crate::stream::StreamDomain;

/// One kernel argument: a stream (`stream` non-null), whole when `rank` is 0, else its domain
/// `lo..hi` (`rank` values each, `x` = column first); or a constant's `count` floats in C
/// layout (`int`s converted to float, as for [`Arg::Constant`]).
#[repr(C)]
pub struct BrookArg {
    /// The stream, or null for a constant.
    pub stream: *const BrookStream,
    /// A constant's floats (ignored for a stream).
    pub values: *const f32,
    /// How many floats `values` holds.
    pub count: usize,
    /// The domain's first element per dimension (`rank` values).
    pub lo: *const i64,
    /// The domain's end per dimension, exclusive (`rank` values).
    pub hi: *const i64,
    /// 0 for the whole stream, else the domain's rank.
    pub rank: usize,
}

/// Runs kernel `name` of `program` with `n` arguments, one per kernel parameter.
///
/// # Safety
/// `program` is a live program, `name` a NUL-terminated string, `args` points to `n`
/// arguments whose streams are live, whose values hold `count` floats and whose bounds hold
/// `rank` values.
#[no_mangle]
pub unsafe extern "C" fn brook_kernel_run(
    program: *const BrookProgram,
    name: *const c_char,
    args: *const BrookArg,
    n: usize,
) {
    let program = program_ref(program);
    let name = c_str(name, "the kernel name");
    with_args(args, n, name, |args| {
        with_runtime(|rt| rt.run(program, name, args))
    })
}

/// Runs kernel `name`, which has `vout` parameters, and gives each vout argument the
/// original's result: `replaced[k]` (for each vout parameter `k`; null elsewhere) is a new 1D
/// stream holding exactly the values pushed, which `brook.hpp` puts in place of the old one.
///
/// # Safety
/// As [`brook_kernel_run`], with `replaced` pointing to `n` writable pointers.
#[no_mangle]
pub unsafe extern "C" fn brook_kernel_run_vout(
    program: *const BrookProgram,
    name: *const c_char,
    args: *const BrookArg,
    n: usize,
    replaced: *mut *mut BrookStream,
) {
    let program = program_ref(program);
    let name = c_str(name, "the kernel name");
    if replaced.is_null() && n > 0 {
        fail(&format!(
            "`{name}`: the vout result array is a null pointer"
        ));
    }
    let counts = with_args(args, n, name, |args| {
        with_runtime(|rt| rt.run_vout(program, name, args))
    });
    let vouts: Vec<(usize, &str)> = program
        .module()
        .functions
        .iter()
        .find(|f| f.name == name)
        .map(|f| {
            f.params
                .iter()
                .enumerate()
                .filter(|(_, p)| matches!(p.class, ParamClass::Vout { .. }))
                .map(|(k, p)| (k, p.name.as_str()))
                .collect()
        })
        .unwrap_or_default();
    let out = std::slice::from_raw_parts_mut(replaced, n);
    out.fill(std::ptr::null_mut());
    for ((k, param), count) in vouts.into_iter().zip(counts) {
        let old = &stream_ref((*args.add(k)).stream).0;
        if count == 0 {
            fail(&format!(
                "`{name}`: vout `{param}` received no values, and this runtime has no empty streams"
            ));
        }
        let floats = old.floats_per_element();
        let values = or_exit(old.to_vec());
        let new = with_runtime(|rt| rt.stream(old.format().clone(), &[count]));
        or_exit(new.read(&values[..count * floats]));
        out[k] = Box::into_raw(Box::new(BrookStream(new)));
    }
}

/// Calls `f` with the runtime's form of the `n` arguments at `args` of a call of `name`.
/// Domains are made first, since the arguments borrow them.
///
/// # Safety
/// As [`brook_kernel_run`]'s `args`.
pub(crate) unsafe fn with_args<T>(
    args: *const BrookArg,
    n: usize,
    name: &str,
    f: impl FnOnce(&[Arg]) -> T,
) -> T {
    if args.is_null() && n > 0 {
        fail(&format!("`{name}`: the argument array is a null pointer"));
    }
    let raw = if n == 0 {
        &[][..]
    } else {
        std::slice::from_raw_parts(args, n)
    };
    let domains: Vec<Option<StreamDomain>> = raw
        .iter()
        .map(|a| {
            (!a.stream.is_null() && a.rank > 0).then(|| {
                let (lo, hi) = (bounds(a.lo, a.rank), bounds(a.hi, a.rank));
                or_exit(stream_ref(a.stream).0.domain(&lo, &hi))
            })
        })
        .collect();
    let args: Vec<Arg> = raw
        .iter()
        .zip(&domains)
        .map(|(a, domain)| match domain {
            Some(d) => Arg::Domain(d),
            None if a.stream.is_null() => {
                let values = if a.count == 0 {
                    &[][..]
                } else {
                    std::slice::from_raw_parts(a.values, a.count)
                };
                Arg::Constant(values.to_vec())
            }
            None => Arg::Stream(&stream_ref(a.stream).0),
        })
        .collect();
    f(&args)
}
