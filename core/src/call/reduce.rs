//! The checks of a reduction: its roles, its input and extra arguments, its target.

use brook_ir::{Function, ParamClass};

use super::{check_argument, check_format, CallName};
use crate::backend::{BackendArg, StreamArg};
use crate::error::BrookError;
use crate::program::Compiled;
use crate::reduce_plan::ReducePlan;

/// The input and accumulator parameters of a reduce function, by position.
pub fn reduce_roles(func: &Function) -> Result<(usize, usize), BrookError> {
    let only = |class: ParamClass| {
        let mut found = (0..func.params.len()).filter(|&i| func.params[i].class == class);
        match (found.next(), found.next()) {
            (Some(i), None) => Some(i),
            _ => None,
        }
    };
    match (only(ParamClass::Stream), only(ParamClass::Reduce)) {
        (Some(a), Some(r)) if func.params[a].ty == func.params[r].ty => Ok((a, r)),
        _ => Err(BrookError::Unsupported {
            call: format!("reduction `{}`", func.name),
            message: "a reduce function needs exactly one input stream and one `reduce` parameter of the same type".into(),
        }),
    }
}

/// Where a reduction's result goes, as the checks see it.
#[derive(Clone, Copy)]
pub enum ReduceShape<'a> {
    /// A value of this many floats.
    Value(usize),
    /// A stream.
    Stream(&'a StreamArg<'a>),
}

/// Checks a reduction of `input` by `func` with `extra` for its constant and gather
/// parameters (in order), and plans it.
pub fn check_reduce(
    compiled: &Compiled,
    func: &Function,
    input: &StreamArg,
    extra: &[BackendArg],
    target: ReduceShape,
) -> Result<ReducePlan, BrookError> {
    let call = CallName("reduction", &func.name);
    let module = &compiled.module;
    let (a, _) = reduce_roles(func)?;
    let p = &func.params[a];
    let wrong = |param: &str, message: String| BrookError::ArgumentType {
        call: call.to_string(),
        param: param.to_string(),
        message,
    };
    if input.iter.is_some() {
        return Err(wrong(
            &p.name,
            "an iterator cannot be reduced; copy it into a stream with a kernel first".into(),
        ));
    }
    check_format(module, &|m| wrong(&p.name, m), p, input.format)?;
    if extra.len() + 2 != func.params.len() {
        return Err(BrookError::ArgumentCount {
            call: format!("{call} (besides its input and accumulator)"),
            expected: func.params.len().saturating_sub(2),
            got: extra.len(),
        });
    }
    let others = func
        .params
        .iter()
        .filter(|q| !matches!(q.class, ParamClass::Stream | ParamClass::Reduce));
    for (q, arg) in others.zip(extra) {
        if let (ParamClass::Gather { .. }, BackendArg::Stream(s)) = (q.class, arg) {
            if s.domain.is_some() {
                return Err(wrong(
                    &q.name,
                    format!("a domain cannot be gathered by a reduction (`{}`); pass a stream of the domain's shape", q.name),
                ));
            }
        }
        check_argument(module, &call, q, arg)?;
    }
    let target_shape: &[usize] = match target {
        ReduceShape::Value(floats) => {
            let wanted = input.format.floats_per_element();
            if floats != wanted {
                return Err(BrookError::ShapeMismatch {
                    call: call.to_string(),
                    message: format!(
                        "the result needs {wanted} float(s) but the target holds {floats}"
                    ),
                });
            }
            &[]
        }
        ReduceShape::Stream(out) => {
            if out.iter.is_some() {
                return Err(wrong(
                    "",
                    "an iterator cannot be written by a reduction".into(),
                ));
            }
            check_format(module, &|m| wrong(&p.name, m), p, out.format)?;
            let gathered = extra
                .iter()
                .any(|e| matches!(e, BackendArg::Stream(g) if g.same_storage(out)));
            if out.same_storage(input) || gathered {
                return Err(BrookError::Aliasing {
                    call: call.to_string(),
                    message: "a reduction cannot write its own input (or a gathered) stream".into(),
                });
            }
            out.shape
        }
    };
    ReducePlan::new(input.shape, target_shape).map_err(|message| BrookError::ShapeMismatch {
        call: call.to_string(),
        message,
    })
}
