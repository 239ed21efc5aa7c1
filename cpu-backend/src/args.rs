//! A kernel call's arguments and how each binds to its parameter.
//!
//! [`CpuArg`] is what a caller passes, positionally; `Binding` is what the engines read per
//! element once `bind_input` has checked the argument's class and element size against the
//! parameter. Both the interpreter and native code ([`crate::jit`]) take bindings, so this
//! module depends on neither.

use brook_core::IterSpec;
use brook_ir::{Module, ParamClass};

use crate::error::CpuError;
use crate::stream::CpuStream;
use crate::value::Value;

/// One argument of a kernel call, positional, one per kernel parameter.
#[derive(Debug)]
pub enum CpuArg<'a> {
    /// For `T a<>`.
    Stream(&'a CpuStream),
    /// For `T a[]`, `T a[][]`.
    Gather(&'a CpuStream),
    /// For `iter T a<>`: brook-core's iterator, whose values every backend computes alike.
    Iter(&'a IterSpec),
    /// For `T a`: the constant's floats (a `float4` is 4 floats; an `int` is its value as
    /// `f32`, converted by the parameter's type).
    Constant(Vec<f32>),
    /// For `out T a<>`.
    Out(&'a mut CpuStream),
}

/// How the driver fills one parameter for each element.
#[derive(Debug)]
pub(crate) enum Binding<'a> {
    Stream(&'a CpuStream),
    Gather(&'a CpuStream),
    Iter(&'a IterSpec, [f32; 4]),
    Constant(Value),
    /// Index into the list of outputs.
    Out(usize),
    /// Index into the list of `vout` outputs.
    Vout(usize),
    /// Filled by the caller (a reduction's accumulator).
    External,
}

/// Checks that an argument has the floats per element its parameter's type needs, which the
/// engines read without bounds checks (native code) — the runtime checked it already
/// (`brook_core::call`); this guards the crate's own entry points.
pub(crate) fn check_elements(
    module: &Module,
    func: &str,
    param: &brook_ir::Param,
    got: usize,
) -> Result<(), CpuError> {
    let expected = Value::flat_len(&param.ty, module);
    if expected != got {
        return Err(CpuError::precondition(
            func,
            format!(
                "`{}` has {got} float(s) per element, its type {expected}",
                param.name
            ),
        ));
    }
    Ok(())
}

/// Binds one non-output argument (shared by kernels and reductions).
pub(crate) fn bind_input<'a>(
    module: &Module,
    func: &brook_ir::Function,
    index: usize,
    arg: &CpuArg<'a>,
) -> Result<Binding<'a>, CpuError> {
    let p = &func.params[index];
    Ok(match (p.class, arg) {
        (ParamClass::Stream, CpuArg::Stream(s)) => {
            check_elements(module, &func.name, p, s.floats_per_element())?;
            Binding::Stream(s)
        }
        (ParamClass::Gather { .. }, CpuArg::Gather(s)) => {
            check_elements(module, &func.name, p, s.floats_per_element())?;
            Binding::Gather(s)
        }
        (ParamClass::Constant, CpuArg::Constant(v)) => {
            check_elements(module, &func.name, p, v.len())?;
            Binding::Constant(Value::decode(&p.ty, module, v).0)
        }
        (ParamClass::Iter | ParamClass::Stream, CpuArg::Iter(it)) => {
            check_elements(module, &func.name, p, usize::from(it.components()))?;
            Binding::Iter(it, it.step())
        }
        _ => {
            return Err(CpuError::precondition(
                &func.name,
                format!(
                    "argument {index} does not fit parameter `{}`'s kind",
                    p.name
                ),
            ))
        }
    })
}
