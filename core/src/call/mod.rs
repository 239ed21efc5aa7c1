//! The checks every call passes before any backend sees it: argument count, the kind and
//! element type of every argument against its parameter, Brook's aliasing rule, the shapes
//! outputs, reductions, vouts, scatters and gathers need. One place, so every backend accepts
//! and refuses exactly the same calls with the same messages.

mod fusion;
mod indexed;
mod kernel;
mod reduce;

use std::fmt::{self, Display};

use brook_ir::{Module, ParamClass, Type};

use crate::backend::{BackendArg, StreamArg};
use crate::error::BrookError;
use crate::format::ElementFormat;

pub use fusion::fusion_refused;
pub use indexed::{check_gather_op, check_indexed, check_scatter};
pub use kernel::{check_kernel, check_resize};
pub use reduce::{check_reduce, reduce_roles, ReduceShape};

/// The floats a constant of type `ty` takes in C layout (a `float4` 4, a `float2x2` 4, a
/// struct its members' back to back).
pub fn floats_of(module: &Module, ty: &Type) -> usize {
    match ty {
        Type::Void => 0,
        Type::Scalar(_) => 1,
        Type::Vector(_, n) => usize::from(*n),
        Type::Matrix { rows, cols } => usize::from(*rows) * usize::from(*cols),
        Type::Struct(id) => module
            .struct_def(*id)
            .members
            .iter()
            .map(|m| floats_of(module, &m.ty))
            .sum(),
        Type::Array(elem, n) => floats_of(module, elem) * *n as usize,
    }
}

/// What a parameter of this class takes, for messages.
pub fn class_name(class: ParamClass) -> &'static str {
    match class {
        ParamClass::Stream => "an input stream",
        ParamClass::Out => "an output stream",
        ParamClass::Gather { .. } => "a gather stream",
        ParamClass::Constant => "a constant",
        ParamClass::Iter => "an iterator",
        ParamClass::Reduce => "a reduction accumulator",
        ParamClass::Vout { .. } => "a vout stream",
    }
}

/// How errors name a call (`kernel \`saxpy\``), formatted only when there is an error: the
/// checks run on every call and must cost next to nothing when it is right.
pub struct CallName<'a>(pub &'static str, pub &'a str);

impl Display for CallName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} `{}`", self.0, self.1)
    }
}

/// One argument against its parameter: its kind, and its element type or size.
fn check_argument(
    module: &Module,
    call: &dyn Display,
    p: &brook_ir::Param,
    arg: &BackendArg,
) -> Result<(), BrookError> {
    let wrong = |message: String| BrookError::ArgumentType {
        call: call.to_string(),
        param: p.name.clone(),
        message,
    };
    let passed = match arg {
        BackendArg::Constant(_) => "a constant",
        BackendArg::Stream(s) if s.iter.is_some() => "an iterator",
        BackendArg::Stream(_) => "a stream",
    };
    let mismatch = || {
        wrong(format!(
            "parameter `{}` is {} but the call passes {passed}",
            p.name,
            class_name(p.class)
        ))
    };
    match (p.class, arg) {
        (ParamClass::Constant, BackendArg::Constant(values)) => {
            let expected = floats_of(module, &p.ty);
            if values.len() != expected {
                return Err(wrong(format!(
                    "constant `{}` needs {expected} value(s), got {}",
                    p.name,
                    values.len()
                )));
            }
            Ok(())
        }
        (ParamClass::Constant, _) | (_, BackendArg::Constant(_)) => Err(mismatch()),
        (ParamClass::Reduce, _) => Err(wrong(format!(
            "parameter `{}` is a reduction accumulator; reduce functions run through reductions, not kernel calls",
            p.name
        ))),
        (ParamClass::Stream | ParamClass::Iter, BackendArg::Stream(s)) if s.iter.is_some() => {
            check_iterator(module, &wrong, p, s)
        }
        (ParamClass::Iter, _) => Err(mismatch()),
        (class, BackendArg::Stream(s)) => {
            if s.iter.is_some() {
                let role = match class {
                    ParamClass::Gather { .. } => "gathered",
                    _ => "an output",
                };
                return Err(wrong(format!(
                    "an iterator cannot be {role} (`{}`); copy it into a stream with a kernel first",
                    p.name
                )));
            }
            if matches!(class, ParamClass::Vout { .. }) && s.domain.is_some() {
                return Err(wrong(format!(
                    "vout `{}` is filled from its front; pass the whole stream, not a domain",
                    p.name
                )));
            }
            check_format(module, &wrong, p, s.format)
        }
    }
}

/// A stream's element format against the parameter's element type (Brook has no implicit
/// conversion between stream types: a `float4` stream is not a `float` one).
fn check_format(
    module: &Module,
    wrong: &dyn Fn(String) -> BrookError,
    p: &brook_ir::Param,
    format: &ElementFormat,
) -> Result<(), BrookError> {
    // The format wanted is spelled out only for the error (it is a `Vec` per call).
    if format.holds(module, &p.ty) == Some(true) {
        return Ok(());
    }
    match ElementFormat::of_type(module, &p.ty) {
        Some(wanted) => Err(wrong(format!(
            "`{}` takes elements of member widths {:?}, but the stream passed has {:?}",
            p.name,
            wanted.widths(),
            format.widths()
        ))),
        None => Err(wrong(format!(
            "`{}` has a type that streams cannot hold; stream elements are float..float4 or structs of them",
            p.name
        ))),
    }
}

fn check_iterator(
    module: &Module,
    wrong: &dyn Fn(String) -> BrookError,
    p: &brook_ir::Param,
    s: &StreamArg,
) -> Result<(), BrookError> {
    if s.domain.is_some() {
        return Err(wrong(format!(
            "a domain of an iterator stream cannot be passed to `{}`; make an iterator of the domain's range instead",
            p.name
        )));
    }
    match s.format.holds(module, &p.ty) {
        Some(true) if !matches!(p.ty, Type::Struct(_)) => Ok(()),
        _ => Err(wrong(format!(
            "iterator `{}`: the parameter's type needs a float..float4 iterator of its width, but the iterator has {} float component(s)",
            p.name,
            s.format.floats_per_element()
        ))),
    }
}
