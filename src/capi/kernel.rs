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
        with_runtime(|rt| rt.run(&program, name, args))
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
    let vouts: Vec<(usize, &str, u32)> = program
        .module()
        .functions
        .iter()
        .find(|f| f.name == name)
        .map(|f| {
            f.params
                .iter()
                .enumerate()
                .filter_map(|(k, p)| match p.class {
                    ParamClass::Vout { max } => Some((k, p.name.as_str(), max)),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    // The original's vout argument is a placeholder its result replaces: one without room for
    // this call (a stream an earlier call shrank to its pushes, reused in a loop) is swapped
    // for a fresh stream with room before the call.
    if args.is_null() && n > 0 {
        fail(&format!("`{name}`: the argument array is a null pointer"));
    }
    let mut raw: Vec<BrookArg> = (0..n).map(|k| std::ptr::read(args.add(k))).collect();
    let elements = call_elements(&program, name, &raw);
    let mut scratch: Vec<Box<BrookStream>> = Vec::new();
    // Each vout argument's shape as passed: a 2D one gets its result in rows of its length.
    let mut passed: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(k, _, max) in &vouts {
        let Some(arg) = raw.get_mut(k).filter(|a| !a.stream.is_null()) else {
            continue;
        };
        let old = &stream_ref(arg.stream).0;
        passed[k] = old.shape().to_vec();
        let room = (max as usize).saturating_mul(elements);
        if old.len() < room || old.shape().len() != 1 {
            let fresh = with_runtime(|rt| rt.stream(old.format().clone(), &[room]));
            scratch.push(Box::new(BrookStream::new(fresh, None)));
            arg.stream = &**scratch.last().expect("pushed just above");
        }
    }
    let args = raw.as_ptr();
    let counts = with_args(args, n, name, |args| {
        with_runtime(|rt| rt.run_vout(&program, name, args))
    });
    let out = std::slice::from_raw_parts_mut(replaced, n);
    out.fill(std::ptr::null_mut());
    for ((k, param, _), count) in vouts.into_iter().zip(counts) {
        let BrookStream(old, host, _) = stream_ref((*args.add(k)).stream);
        if count == 0 {
            fail(&format!(
                "`{name}`: vout `{param}` received no values, and this runtime has no empty streams"
            ));
        }
        let floats = old.floats_per_element();
        let mut values = or_exit(old.to_vec());
        let shape = result_shape(&passed[k], count);
        values.truncate(count * floats);
        values.resize(shape.iter().product::<usize>() * floats, f32::INFINITY);
        let new = with_runtime(|rt| rt.stream(old.format().clone(), &shape));
        or_exit(new.read(&values));
        new.gate.noted_copy(&new.arg(None), &old.arg(None));
        out[k] = Box::into_raw(Box::new(BrookStream::new(new, *host)));
    }
}

/// The shape of a vout result of `count` values, as the original made it: a 1D stream of
/// exactly the values pushed, or, for a 2D argument of rows of `L`, `ceil(count / L)` rows of
/// `L`, the last one padded with +inf (the original gathered the tail from its sentinel
/// stream, which holds +inf).
fn result_shape(passed: &[usize], count: usize) -> Vec<usize> {
    match passed {
        [_, row] if *row > 0 => vec![count.div_ceil(*row), *row],
        _ => vec![count],
    }
}

/// The elements of a vout call: those of its `out` streams, or without any, of its first
/// input stream or iterator (brook-core's rule; 0 when the call is malformed, which the call
/// then reports).
///
/// # Safety
/// As [`brook_kernel_run`]'s `args`.
unsafe fn call_elements(program: &crate::program::Program, name: &str, raw: &[BrookArg]) -> usize {
    let Some(f) = program.module().functions.iter().find(|f| f.name == name) else {
        return 0;
    };
    let elements = |a: &BrookArg| -> usize {
        if a.rank == 0 {
            stream_ref(a.stream).0.len()
        } else {
            let (lo, hi) = (bounds(a.lo, a.rank), bounds(a.hi, a.rank));
            lo.iter()
                .zip(&hi)
                .map(|(l, h)| h.saturating_sub(*l))
                .product()
        }
    };
    let of_class = |wanted: fn(ParamClass) -> bool| {
        f.params
            .iter()
            .zip(raw)
            .find(|(p, a)| wanted(p.class) && !a.stream.is_null())
            .map(|(_, a)| elements(a))
    };
    of_class(|c| c == ParamClass::Out)
        .or_else(|| of_class(|c| matches!(c, ParamClass::Stream | ParamClass::Iter)))
        .unwrap_or(0)
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
