//! The checks of a kernel call: its arguments, Brook's aliasing rule, the outputs' shapes
//! and places, and the vouts' room.

use std::fmt::Display;

use brook_ir::{Function, ParamClass, Type};

use super::{check_argument, CallName};
use crate::backend::BackendArg;
use crate::error::{fmt_shape, BrookError};
use crate::index::{resize_product, resize_ratio};
use crate::program::Compiled;

/// Checks a kernel call and returns its shape: that of its `out` streams (of their domain),
/// or for a kernel writing only vouts, that of its first input stream or iterator.
pub fn check_kernel(
    compiled: &Compiled,
    func: &Function,
    args: &[BackendArg],
) -> Result<Vec<usize>, BrookError> {
    let call = CallName("kernel", &func.name);
    if func.ret != Type::Void {
        return Err(BrookError::Unsupported {
            call: call.to_string(),
            message: "it returns a value, so only kernels can call it (as in the original Brook); host code runs kernels that write `out` streams".into(),
        });
    }
    if args.len() != func.params.len() {
        return Err(BrookError::ArgumentCount {
            call: call.to_string(),
            expected: func.params.len(),
            got: args.len(),
        });
    }
    let module = &compiled.module;
    for (arg, p) in args.iter().zip(&func.params) {
        check_argument(module, &call, p, arg)?;
    }
    check_aliasing(&call, func, args)?;
    let shape = check_outputs(&call, func, args)?;
    check_vouts(&call, func, args, &shape)?;
    Ok(shape)
}

/// Brook's rule for one stream in several roles of a call: it may be an input and an output
/// (in place: every element reads the old values), but not two outputs, and not gathered and
/// written, since a gather may read any element.
fn check_aliasing(
    call: &dyn Display,
    func: &Function,
    args: &[BackendArg],
) -> Result<(), BrookError> {
    let stream = |a: &BackendArg| match a {
        BackendArg::Stream(s) => Some(s.storage as *const dyn std::any::Any as *const ()),
        BackendArg::Constant(_) => None,
    };
    for (i, (a, p)) in args.iter().zip(&func.params).enumerate() {
        if !p.class.is_output() || stream(a).is_none() {
            continue;
        }
        for (j, (b, q)) in args.iter().zip(&func.params).enumerate() {
            if i == j || stream(a) != stream(b) {
                continue;
            }
            let message = match q.class {
                c if c.is_output() => format!(
                    "one stream is passed to two outputs (`{}` and `{}`)",
                    p.name, q.name
                ),
                ParamClass::Gather { .. } => format!(
                    "stream `{}` is both gathered (`{}`) and written; Brook allows in-place calls only for plain stream inputs",
                    p.name, q.name
                ),
                _ => continue,
            };
            return Err(BrookError::Aliasing {
                call: call.to_string(),
                message,
            });
        }
    }
    Ok(())
}

/// The call's shape, after checking that every `out` stream has it (Brook's rule) and, with
/// domains, is the same region of streams of one shape (so one draw or dispatch writes the
/// same elements of every output).
fn check_outputs(
    call: &dyn Display,
    func: &Function,
    args: &[BackendArg],
) -> Result<Vec<usize>, BrookError> {
    let streams = |class: fn(ParamClass) -> bool| {
        args.iter()
            .zip(&func.params)
            .filter(move |(_, p)| class(p.class))
            .filter_map(|(a, _)| match a {
                BackendArg::Stream(s) => Some(*s),
                BackendArg::Constant(_) => None,
            })
    };
    let mismatch = |message: String| BrookError::ShapeMismatch {
        call: call.to_string(),
        message,
    };
    let mut outs = streams(|c| c == ParamClass::Out);
    let Some(first) = outs.next() else {
        let has_vouts = func
            .params
            .iter()
            .any(|p| matches!(p.class, ParamClass::Vout { .. }));
        if !has_vouts {
            return Err(BrookError::ArgumentType {
                call: call.to_string(),
                param: String::new(),
                message: "a kernel call writes at least one `out` or `vout` stream, and this kernel has none".into(),
            });
        }
        return streams(|c| matches!(c, ParamClass::Stream | ParamClass::Iter))
            .next()
            .map(|s| s.call_shape().into_owned())
            .ok_or_else(|| mismatch("it writes only vout streams, so it needs an input stream or iterator to give the call its shape".into()));
    };
    let shape = first.call_shape();
    for other in outs {
        if other.call_shape() != shape {
            return Err(mismatch(format!(
                "all output streams of one call must have the same shape, but got {} and {}",
                fmt_shape(&shape),
                fmt_shape(&other.call_shape())
            )));
        }
        if other.shape != first.shape || other.lo() != first.lo() {
            return Err(mismatch(
                "output domains of one call must be the same region of streams of the same shape (one pass writes the same elements of every output)".into(),
            ));
        }
    }
    Ok(shape.into_owned())
}

/// Every vout has room for N pushes per element of the call.
fn check_vouts(
    call: &dyn Display,
    func: &Function,
    args: &[BackendArg],
    shape: &[usize],
) -> Result<(), BrookError> {
    let elements: usize = shape.iter().product();
    for (arg, p) in args.iter().zip(&func.params) {
        let (ParamClass::Vout { max }, BackendArg::Stream(s)) = (p.class, arg) else {
            continue;
        };
        if args.iter().zip(&func.params).any(|(a, q)| {
            q.class == ParamClass::Out && matches!(a, BackendArg::Stream(o) if o.domain.is_some())
        }) {
            return Err(BrookError::ArgumentType {
                call: call.to_string(),
                param: p.name.clone(),
                message: "a kernel with vout parameters writes whole streams; pass its outputs without domains".into(),
            });
        }
        let needed = max as usize * elements;
        let room: usize = s.shape.iter().product();
        if room < needed {
            return Err(BrookError::ShapeMismatch {
                call: call.to_string(),
                message: format!(
                    "vout `{}` needs room for {needed} elements (its N = {max} times the {elements} elements of the call) but its stream has {room}",
                    p.name
                ),
            });
        }
    }
    Ok(())
}

/// Refuses a call whose implicit resize of an input (a stream or iterator of another shape
/// than the call) multiplies, along some dimension, an index by an extent past what `bits`-bit
/// integers hold: `i * to / from` (the ratio `in / out` reduced, `index::resize_ratio`) would
/// wrap and read the wrong elements. Dimensions are aligned as `index::resize_index` aligns
/// them; equal extents and extent 1 need no product.
pub fn check_resize(
    call: &dyn Display,
    func: &Function,
    args: &[BackendArg],
    shape: &[usize],
    bits: u32,
) -> Result<(), BrookError> {
    if bits >= 64 {
        return Ok(());
    }
    for (arg, p) in args.iter().zip(&func.params) {
        let (BackendArg::Stream(s), ParamClass::Stream | ParamClass::Iter) = (arg, p.class) else {
            continue;
        };
        let input = s.call_shape();
        for (d, &ie) in input.iter().enumerate().rev() {
            let Some(od) = (d + shape.len()).checked_sub(input.len()) else {
                break;
            };
            let oe = shape[od];
            if ie > 1 && resize_product(oe, ie) >= 1u128 << bits {
                let (from, to) = resize_ratio(oe, ie);
                return Err(BrookError::DeviceLimit {
                    call: call.to_string(),
                    message: format!(
                        "`{}` of shape {} is resized to the call's shape {}: along that dimension \
                         element i reads i × {to} / {from} ({ie} / {oe} reduced), and {} × {to} \
                         does not fit this backend's {bits}-bit index arithmetic; give the input \
                         the call's shape, or resize in steps of simpler ratios (the CPU backend \
                         computes it in 64 bits)",
                        p.name,
                        fmt_shape(&input),
                        fmt_shape(shape),
                        oe - 1
                    ),
                });
            }
        }
    }
    Ok(())
}
