//! Reductions: `reduce void f(T a<>, reduce T r<>)` folded over a stream.
//!
//! Brook only promises that a reduction operator is associative, not commutative, so the
//! elements are combined in index order (row-major) as a left fold, `r = f(r, a)`, starting
//! from the first element (no identity is needed). A reduction by 2×2 matrix product therefore
//! gives the same answer here as a sequential loop.
//!
//! Reducing to a smaller stream: each output element reduces its block of `in/out` consecutive
//! elements per dimension (`float a<100>` into `r<25>` folds every 4; `<50,50>` into `<50,1>`
//! folds each row), and the extents must divide. Ranks may differ: the smaller shape is
//! left-padded with extent-1 dimensions, as for implicit resizing.
//!
//! Parallelism: into a stream, output elements are split into chunks run by rayon, each output
//! element folding its block sequentially. Into a single value, the input is cut into chunks of
//! [`CHUNK`] consecutive elements folded in parallel, then the partial results are folded in
//! order; associativity makes that equal to the sequential fold, and the fixed chunk
//! boundaries make it deterministic whatever the thread count.

use brook_frontend::ir::{FunctionId, FunctionKind, Module, ParamClass, Type};
use rayon::prelude::*;

use crate::error::{fmt_shape, CpuError};
use crate::exec::{Frame, Interp, Interrupt};
use crate::kernel::{bind_input, check_elements, kind_name, Binding, CpuArg, CHUNK};
use crate::shape::{ravel, unravel, Index};
use crate::stream::CpuStream;
use crate::value::Value;

/// Where a reduction's result goes.
#[derive(Debug)]
pub enum ReduceTarget<'a> {
    /// One value: its floats (a `float4` reduction needs 4).
    Value(&'a mut [f32]),
    /// A stream whose extents divide the input's.
    Stream(&'a mut CpuStream),
}

pub(crate) struct Reducer<'a> {
    interp: Interp<'a>,
    func: &'a brook_frontend::ir::Function,
    ty: &'a Type,
    /// The input element parameter and the accumulator parameter.
    a: usize,
    r: usize,
    bindings: Vec<Binding<'a>>,
}

impl<'a> Reducer<'a> {
    /// The reducer of `reduce_fn` for elements of `input_floats` floats, `extra` binding its
    /// constant and gather parameters in order (see [`run_reduce`]).
    pub(crate) fn new(
        module: &'a Module,
        reduce_fn: FunctionId,
        input_floats: usize,
        extra: &'a [CpuArg],
    ) -> Result<Reducer<'a>, CpuError> {
        let func = module
            .functions
            .get(reduce_fn.0 as usize)
            .ok_or(CpuError::UnknownFunction(reduce_fn.0))?;
        if func.kind != FunctionKind::Reduce {
            return Err(CpuError::WrongFunctionKind {
                name: func.name.clone(),
                kind: kind_name(func.kind),
                wanted: "reduction",
            });
        }
        let err = |reason: String| CpuError::Reduce {
            function: func.name.clone(),
            reason,
        };
        let find = |class: ParamClass| {
            let mut it = func
                .params
                .iter()
                .enumerate()
                .filter(|(_, p)| p.class == class);
            match (it.next(), it.next()) {
                (Some((i, _)), None) => Some(i),
                _ => None,
            }
        };
        let (Some(a), Some(r)) = (find(ParamClass::Stream), find(ParamClass::Reduce)) else {
            return Err(err(
                "a reduction needs exactly one input stream and one `reduce` parameter".into(),
            ));
        };
        let ty = &func.params[a].ty;
        if func.params[r].ty != *ty {
            return Err(err(format!(
                "the input `{}` and the accumulator `{}` must have the same type",
                func.params[a].name, func.params[r].name
            )));
        }
        check_elements(module, &func.name, &func.params[a], input_floats)?;
        if extra.len() + 2 != func.params.len() {
            return Err(CpuError::ArgCount {
                function: func.name.clone(),
                expected: func.params.len() - 2,
                got: extra.len(),
            });
        }
        let mut bindings = Vec::with_capacity(func.params.len());
        let mut extra_args = extra.iter();
        for i in 0..func.params.len() {
            if i == a || i == r {
                bindings.push(Binding::External);
                continue;
            }
            let arg = extra_args.next().expect("counted above");
            let b = bind_input(module, func, i, arg)?;
            if !matches!(b, Binding::Constant(_) | Binding::Gather(_)) {
                return Err(err(format!(
                    "extra parameter `{}` must be a constant or a gather",
                    func.params[i].name
                )));
            }
            bindings.push(b);
        }

        Ok(Reducer {
            interp: Interp::new(module),
            func,
            ty,
            a,
            r,
            bindings,
        })
    }

    pub(crate) fn frame(&self) -> Frame<'a> {
        let mut f = Frame::new(self.interp.module, self.func);
        for (k, b) in self.bindings.iter().enumerate() {
            if let Binding::Gather(s) = b {
                f.gathers[k] = Some(s);
            }
        }
        f
    }

    pub(crate) fn element(&self, s: &CpuStream, linear: usize) -> Value {
        self.value(s.element(linear))
    }

    /// The value of one element's floats (C layout).
    pub(crate) fn value(&self, floats: &[f32]) -> Value {
        Value::decode(self.ty, self.interp.module, floats).0
    }

    /// `acc = f(acc, x)`. A `discard` in the body leaves the accumulator unchanged.
    pub(crate) fn combine(
        &self,
        frame: &mut Frame<'a>,
        acc: Value,
        x: Value,
    ) -> Result<Value, CpuError> {
        for (k, b) in self.bindings.iter().enumerate() {
            if let Binding::Constant(v) = b {
                frame.params[k] = v.clone();
            }
        }
        frame.params[self.a] = x;
        frame.params[self.r] = acc.clone();
        match self.interp.run(frame) {
            Ok(_) => Ok(std::mem::replace(&mut frame.params[self.r], Value::Void)),
            Err(Interrupt::Discard) => Ok(acc),
            Err(Interrupt::Error(e)) => Err(e),
        }
    }

    /// Left fold of `items` (non-empty).
    fn fold(
        &self,
        frame: &mut Frame<'a>,
        mut items: impl Iterator<Item = Value>,
    ) -> Result<Value, CpuError> {
        let mut acc = items.next().unwrap_or(Value::Void);
        for x in items {
            acc = self.combine(frame, acc, x)?;
        }
        Ok(acc)
    }

    fn error(&self, reason: String) -> CpuError {
        CpuError::Reduce {
            function: self.func.name.clone(),
            reason,
        }
    }
}

/// Reduces `input` with the reduction `reduce_fn` into `output`. `extra` binds the
/// reduction's other parameters (constants and gathers), positionally, skipping its input
/// stream and `reduce` accumulator.
pub fn run_reduce(
    module: &Module,
    reduce_fn: FunctionId,
    input: &CpuStream,
    extra: &mut [CpuArg],
    output: ReduceTarget,
) -> Result<(), CpuError> {
    let red = Reducer::new(module, reduce_fn, input.floats_per_element(), extra)?;
    let (module, func, ty) = (red.interp.module, red.func, red.ty);
    let width = Value::flat_len(ty, module);
    match output {
        ReduceTarget::Value(dst) => {
            if dst.len() != width {
                return Err(red.error(format!(
                    "the result needs {width} float(s) but the target holds {}",
                    dst.len()
                )));
            }
            let acc = reduce_all(&red, input)?;
            acc.encode(dst);
            Ok(())
        }
        ReduceTarget::Stream(out) => {
            check_elements(
                module,
                &func.name,
                &func.params[red.r],
                out.floats_per_element(),
            )?;
            reduce_blocks(&red, input, out)
        }
    }
}

fn reduce_all(red: &Reducer, input: &CpuStream) -> Result<Value, CpuError> {
    let n = input.len();
    if n <= CHUNK {
        let mut frame = red.frame();
        return red.fold(&mut frame, (0..n).map(|l| red.element(input, l)));
    }
    let partials = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut frame = red.frame();
            let end = ((c + 1) * CHUNK).min(n);
            red.fold(&mut frame, (c * CHUNK..end).map(|l| red.element(input, l)))
        })
        .collect::<Result<Vec<Value>, CpuError>>()?;
    let mut frame = red.frame();
    red.fold(&mut frame, partials.into_iter())
}

fn reduce_blocks(red: &Reducer, input: &CpuStream, out: &mut CpuStream) -> Result<(), CpuError> {
    let rank = input.rank().max(out.rank());
    let pad = |s: &[usize]| -> Vec<usize> {
        let mut p = vec![1; rank - s.len()];
        p.extend_from_slice(s);
        p
    };
    let (ins, outs) = (pad(input.shape()), pad(out.shape()));
    if ins.iter().zip(&outs).any(|(i, o)| i % o != 0) {
        return Err(red.error(format!(
            "the output shape {} must divide the input shape {} in every dimension",
            fmt_shape(out.shape()),
            fmt_shape(input.shape())
        )));
    }
    let block: Vec<usize> = ins.iter().zip(&outs).map(|(i, o)| i / o).collect();
    let block_len: usize = block.iter().product();
    let fpe = out.floats_per_element();
    out.data_mut()
        .par_chunks_mut(CHUNK * fpe)
        .enumerate()
        .try_for_each(|(c, slice)| {
            let mut frame = red.frame();
            for (e, dst) in slice.chunks_mut(fpe).enumerate() {
                let o = unravel(c * CHUNK + e, &outs);
                let items = (0..block_len).map(|k| {
                    let local = unravel(k, &block);
                    let mut idx: Index = [0; 4];
                    for d in 0..rank {
                        idx[d] = o[d] * block[d] + local[d];
                    }
                    red.element(input, ravel(&idx, &ins))
                });
                red.fold(&mut frame, items)?.encode(dst);
            }
            Ok(())
        })
}
