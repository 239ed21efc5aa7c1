//! A kernel call's arguments and how each binds to its parameter.
//!
//! [`CpuArg`] is what a caller passes, positionally; `Binding` is what the engines read per
//! element once `bind_input` has checked the argument's class and element size against the
//! parameter. Both the interpreter and native code ([`crate::jit`]) take bindings, so this
//! module depends on neither.

use brook_core::call::class_name;
use brook_ir::{FunctionKind, Module, ParamClass, Scalar, Type};

use crate::error::CpuError;
use crate::shape::Index;
use crate::stream::{validate_shape, CpuStream};
use crate::value::Value;

/// An iterator stream (`iter float2 it<rows, cols> = iter(start, end)`), computed rather than
/// stored.
///
/// One dimension: element `i` is `start + i*step` per component, `step = (end - start)/N`
/// computed once in `f32` (end exclusive: `iter(0, 10)` over 10 gives 0..9, `iter(9, -1)`
/// gives 9..0), with 1 to 4 components. Two dimensions: a `float2` whose `.x` runs from
/// `start[0]` to `end[0]` along the columns and `.y` from `start[1]` to `end[1]` along the
/// rows. More dimensions are an error, as in Brook.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuIter {
    /// The iterator stream's shape (rank 1 or 2).
    pub shape: Vec<usize>,
    /// Floats per element, 1 to 4.
    pub components: u8,
    /// The first element's value (unused components zero).
    pub start: [f32; 4],
    /// The value one step past the last element (exclusive).
    pub end: [f32; 4],
}

impl CpuIter {
    /// An iterator over `shape` from `start` to `end` (one float per component, 1 to 4).
    pub fn new(shape: &[usize], start: &[f32], end: &[f32]) -> Result<CpuIter, CpuError> {
        if start.len() != end.len() || start.is_empty() || start.len() > 4 {
            return Err(CpuError::Iterator {
                function: String::new(),
                param: String::new(),
                reason: format!(
                    "start and end need the same number of components, 1 to 4 (got {} and {})",
                    start.len(),
                    end.len()
                ),
            });
        }
        let mut it = CpuIter {
            shape: shape.to_vec(),
            components: start.len() as u8,
            start: [0.0; 4],
            end: [0.0; 4],
        };
        it.start[..start.len()].copy_from_slice(start);
        it.end[..end.len()].copy_from_slice(end);
        it.check().map_err(|reason| CpuError::Iterator {
            function: String::new(),
            param: String::new(),
            reason,
        })?;
        Ok(it)
    }

    fn check(&self) -> Result<(), String> {
        validate_shape(&self.shape).map_err(|e| e.to_string())?;
        match (self.shape.len(), self.components) {
            (1, 1..=4) | (2, 2) => Ok(()),
            (1, c) => Err(format!("an iterator has 1 to 4 components, not {c}")),
            (2, c) => Err(format!(
                "a 2D iterator is a float2 (.x along columns, .y along rows), not {c} component(s)"
            )),
            (r, _) => Err(format!(
                "iterators of {r} dimensions are not allowed (at most 2)"
            )),
        }
    }

    /// The per-element step of each component, computed once.
    pub fn steps(&self) -> [f32; 4] {
        let mut s = [0.0; 4];
        match self.shape.as_slice() {
            [n] => {
                let k = self.components as usize;
                for ((sc, e), b) in s.iter_mut().zip(&self.end).zip(&self.start).take(k) {
                    *sc = (e - b) / *n as f32;
                }
            }
            [rows, cols] => {
                s[0] = (self.end[0] - self.start[0]) / *cols as f32;
                s[1] = (self.end[1] - self.start[1]) / *rows as f32;
            }
            _ => {}
        }
        s
    }

    /// The value at `idx` (an index in the iterator's own shape), given [`CpuIter::steps`].
    pub fn value_at(&self, idx: &Index, steps: &[f32; 4]) -> [f32; 4] {
        let mut v = [0.0; 4];
        if self.shape.len() == 2 {
            v[0] = self.start[0] + idx[1] as f32 * steps[0];
            v[1] = self.start[1] + idx[0] as f32 * steps[1];
        } else {
            for c in 0..self.components as usize {
                v[c] = self.start[c] + idx[0] as f32 * steps[c];
            }
        }
        v
    }
}

/// One argument of a kernel call, positional, one per kernel parameter.
#[derive(Debug)]
pub enum CpuArg<'a> {
    /// For `T a<>`.
    Stream(&'a CpuStream),
    /// For `T a[]`, `T a[][]`.
    Gather(&'a CpuStream),
    /// For `iter T a<>`.
    Iter(&'a CpuIter),
    /// For `T a`: the constant's floats (a `float4` is 4 floats; an `int` is its value as
    /// `f32`, converted by the parameter's type).
    Constant(Vec<f32>),
    /// For `out T a<>`.
    Out(&'a mut CpuStream),
}

impl CpuArg<'_> {
    fn class_name(&self) -> &'static str {
        match self {
            CpuArg::Stream(_) => "an input stream",
            CpuArg::Gather(_) => "a gather stream",
            CpuArg::Iter(_) => "an iterator",
            CpuArg::Constant(_) => "a constant",
            CpuArg::Out(_) => "an output stream",
        }
    }
}

/// How the driver fills one parameter for each element.
#[derive(Debug)]
pub(crate) enum Binding<'a> {
    Stream(&'a CpuStream),
    Gather(&'a CpuStream),
    Iter(&'a CpuIter, [f32; 4]),
    Constant(Value),
    /// Index into the list of outputs.
    Out(usize),
    /// Index into the list of `vout` outputs.
    Vout(usize),
    /// Filled by the caller (a reduction's accumulator).
    External,
}

/// Checks a stream argument's element size against the parameter type.
pub(crate) fn check_elements(
    module: &Module,
    func: &str,
    param: &brook_ir::Param,
    got: usize,
) -> Result<(), CpuError> {
    let expected = Value::flat_len(&param.ty, module);
    if expected != got {
        return Err(CpuError::ElementSize {
            function: func.to_string(),
            param: param.name.clone(),
            expected,
            got,
        });
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
    let class_err = || CpuError::ArgClass {
        function: func.name.clone(),
        index,
        param: p.name.clone(),
        expected: class_name(p.class),
        got: arg.class_name(),
    };
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
            let err = |reason: String| CpuError::Iterator {
                function: func.name.clone(),
                param: p.name.clone(),
                reason,
            };
            it.check().map_err(err)?;
            if p.ty != Type::vector(Scalar::Float, it.components) {
                return Err(err(format!(
                    "the parameter's type is {:?} but the iterator has {} float component(s)",
                    p.ty, it.components
                )));
            }
            Binding::Iter(it, it.steps())
        }
        (ParamClass::Reduce, _) if func.kind == FunctionKind::Kernel => {
            return Err(CpuError::Unsupported(format!(
                "reduce parameter `{}` in a kernel",
                p.name
            )))
        }
        _ => return Err(class_err()),
    })
}
