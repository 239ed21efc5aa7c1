//! One element of a call re-evaluated by the interpreter with every read logged: how an
//! element's history (`brook`'s `Runtime::why`) knows what a kernel call read and what a
//! reduction's steps combined, from the IR rather than by guessing.
//!
//! The interpreter is the definition of a kernel's meaning, so the history asks it: the
//! element's parameters are bound exactly as a call binds them (`kernel`'s driver: resizing,
//! iterators, `indexof`), and the body runs with its frame's read log on, which records each
//! gather's index as computed, the element it rounded and clamped to, and the gather's place
//! in the source. Nothing here runs on the normal path: a call's frames have no log, and a
//! gather checks one `Option`.

use brook_ir::{FunctionId, Module, ParamClass};

use crate::args::{bind_input, Binding, CpuArg};
use crate::error::CpuError;
pub use crate::exec::GatherRead;
use crate::exec::{Frame, Interp, Interrupt};
use crate::kernel::Driver;
use crate::reduce::Reducer;
use crate::shape::{ravel, resize_index, unravel};
use crate::value::Value;

/// What one element of a kernel call did, as the interpreter computed it.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementEval {
    /// Each `out` parameter's value (parameter index, floats); `None` when the element
    /// executed `discard` and wrote nothing.
    pub outputs: Option<Vec<(usize, Vec<f32>)>>,
    /// The values the element pushed, in push order: (vout parameter, floats). All of them:
    /// the caller keeps the first N, as a call does.
    pub pushed: Vec<(usize, Vec<f32>)>,
    /// The element each stream or iterator parameter bound, in parameter order.
    pub inputs: Vec<InputRead>,
    /// Every gather, in the order the body made them.
    pub gathers: Vec<GatherRead>,
}

/// The element a stream or iterator parameter bound for one output element (resized where
/// the shapes differ).
#[derive(Debug, Clone, PartialEq)]
pub struct InputRead {
    /// The parameter.
    pub param: usize,
    /// The element, first dimension first.
    pub element: Vec<usize>,
    /// Its linear position in the argument.
    pub linear: usize,
    /// Its floats (an iterator's computed value).
    pub value: Vec<f32>,
}

/// Runs `kernel` for output element `linear` of a call of shape `out_shape`, logging its
/// reads. `args` has one entry per parameter: the argument of each input (stream, iterator,
/// gather, constant) and `None` for `out` and `vout` parameters, whose streams the element
/// does not need.
pub fn element(
    module: &Module,
    kernel: FunctionId,
    args: &[Option<CpuArg>],
    out_shape: &[usize],
    linear: usize,
) -> Result<ElementEval, CpuError> {
    let func = module.func(kernel);
    if args.len() != func.params.len() {
        return Err(CpuError::precondition(
            &func.name,
            format!(
                "{} argument(s) for {} parameter(s)",
                args.len(),
                func.params.len()
            ),
        ));
    }
    let (mut outs, mut vouts) = (0, 0);
    let mut bindings = Vec::with_capacity(args.len());
    for (i, arg) in args.iter().enumerate() {
        bindings.push(match (func.params[i].class, arg) {
            (ParamClass::Out, None) => {
                outs += 1;
                Binding::Out(outs - 1)
            }
            (ParamClass::Vout { .. }, None) => {
                vouts += 1;
                Binding::Vout(vouts - 1)
            }
            (_, Some(arg)) => bind_input(module, func, i, arg)?,
            (_, None) => {
                return Err(CpuError::precondition(
                    &func.name,
                    format!("no argument for input `{}`", func.params[i].name),
                ))
            }
        });
    }
    let driver = Driver {
        interp: Interp::new(module),
        func,
        bindings: &bindings,
        out_shape,
        out_fpe: &[],
        vout_fpe: &[],
    };
    let mut frame = Frame::new(module, func);
    for (k, b) in bindings.iter().enumerate() {
        if let Binding::Gather(s) = b {
            frame.gathers[k] = Some(s);
        }
    }
    frame.reads = Some(Vec::new());
    let out_idx = unravel(linear, out_shape);
    driver.load_params(&mut frame, linear, &out_idx);
    let inputs = bindings
        .iter()
        .enumerate()
        .filter_map(|(param, b)| {
            let shape = match b {
                Binding::Stream(s) => s.shape(),
                Binding::Iter(it, _) => it.shape(),
                _ => return None,
            };
            let idx = resize_index(&out_idx, out_shape, shape);
            Some(InputRead {
                param,
                element: idx[..shape.len()].to_vec(),
                linear: ravel(&idx, shape),
                value: floats(&frame.params[param]),
            })
        })
        .collect();
    let outputs = match driver.interp.run(&mut frame) {
        Ok(_) => Some(
            (func.params.iter().enumerate())
                .filter(|(_, p)| p.class == ParamClass::Out)
                .map(|(k, _)| (k, floats(&frame.params[k])))
                .collect(),
        ),
        Err(Interrupt::Discard) => None,
        Err(Interrupt::Error(e)) => return Err(e),
    };
    let pushed = match outputs {
        Some(_) => (frame.pushed.iter())
            .map(|(p, v)| (*p as usize, floats(v)))
            .collect(),
        None => Vec::new(),
    };
    Ok(ElementEval {
        outputs,
        pushed,
        inputs,
        gathers: frame.reads.take().unwrap_or_default(),
    })
}

/// One step of a reduce function `f` (also a scatter's or gather-op's combiner): the
/// accumulator `r` after `f` folds the element `a` into it (`extra` binds `f`'s constant and
/// gather parameters in order). A `discard` leaves `r` as it was.
pub fn combine(
    module: &Module,
    f: FunctionId,
    extra: &[CpuArg],
    a: &[f32],
    r: &[f32],
) -> Result<Vec<f32>, CpuError> {
    let reducer = Reducer::new(module, f, a.len(), extra)?;
    let mut frame = reducer.frame();
    let acc = reducer.combine(&mut frame, reducer.value(r), reducer.value(a))?;
    Ok(floats(&acc))
}

/// A value's floats in C layout.
fn floats(v: &Value) -> Vec<f32> {
    let mut comps = Vec::new();
    v.flatten(&mut comps);
    let mut out = vec![0.0; comps.len()];
    v.encode(&mut out);
    out
}
