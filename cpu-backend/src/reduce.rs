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

use std::sync::Arc;

use brook_ir::{FunctionId, MathMode, Module, ParamClass, Scalar, Type};
use rayon::prelude::*;

use crate::args::{bind_input, check_elements, Binding, CpuArg};
use crate::error::CpuError;
use crate::exec::{Frame, Interp, Interrupt};
use crate::jit::{self, code::Code};
use crate::kernel::{cached, Cache, Execution, CHUNK};
use crate::shape::{ravel, unravel, Index};
use crate::stream::CpuStream;
use crate::value::{Comp, Value};
use brook_core::fmt_shape;

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
    func: &'a brook_ir::Function,
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
        // The front end and brook-core's call checks guarantee the form (one input, one
        // accumulator of its type) and the arguments; the crate's own entry points meet a
        // broken one as a precondition error.
        let func = module.func(reduce_fn);
        let err = |reason: String| CpuError::precondition(&func.name, reason);
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
            return Err(err("not a reduce function".into()));
        };
        let ty = &func.params[a].ty;
        check_elements(module, &func.name, &func.params[a], input_floats)?;
        if extra.len() + 2 != func.params.len() {
            return Err(err(format!(
                "{} extra argument(s) for {} parameter(s)",
                extra.len(),
                func.params.len() - 2
            )));
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
                    "`{}` is neither a constant nor a gather",
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

    pub(crate) fn error(&self, reason: String) -> CpuError {
        CpuError::precondition(&self.func.name, reason)
    }
}

/// A reduction prepared for repeated calls: compiled to native code once per binding of its
/// gathers ([`crate::jit`]), or run by the interpreter when the JIT does not take it.
#[derive(Debug, Clone)]
pub struct ReducePlan {
    func: FunctionId,
    jit: bool,
    /// Which formulas the built-ins use, on either engine (`Runtime::set_fast_math`).
    math: MathMode,
    /// Code per mode and gather ranks.
    compiled: Cache<(MathMode, Vec<Option<u8>>), Code>,
}

impl ReducePlan {
    /// A plan for reduction `func` of `module`, compiled at its first call.
    pub fn new(_module: &Module, func: FunctionId) -> ReducePlan {
        ReducePlan {
            func,
            jit: true,
            math: MathMode::Accurate,
            compiled: Arc::default(),
        }
    }

    /// The plan computing built-ins as `math` asks, on native code and the interpreter
    /// alike (fast math: `exec::builtin::formula_in`).
    pub fn in_mode(self, math: MathMode) -> ReducePlan {
        ReducePlan { math, ..self }
    }

    /// The reducer of this plan's function in its mode, for elements of `input_floats`
    /// floats (see [`Reducer::new`]).
    pub(crate) fn reducer<'a>(
        &self,
        module: &'a Module,
        input_floats: usize,
        extra: &'a [CpuArg],
    ) -> Result<Reducer<'a>, CpuError> {
        let mut red = Reducer::new(module, self.func, input_floats, extra)?;
        red.interp = red.interp.in_mode(self.math);
        Ok(red)
    }

    /// A plan that always uses the interpreter (the reference the JIT is tested against).
    pub fn interpreted(func: FunctionId) -> ReducePlan {
        ReducePlan {
            jit: false,
            ..ReducePlan::new(&Module::default(), func)
        }
    }

    /// The reduce function this plan runs.
    pub fn function(&self) -> FunctionId {
        self.func
    }

    /// Reduces `input` into `output` (see [`run_reduce`]).
    pub fn run(
        &self,
        module: &Module,
        input: &CpuStream,
        extra: &mut [CpuArg],
        output: ReduceTarget,
    ) -> Result<Execution, CpuError> {
        self.run_over(module, input, extra, output)
    }

    /// Reduces the elements `input` gives into `output` (a stream, or a kernel computed run
    /// by run: [`crate::fused`]).
    pub(crate) fn run_over(
        &self,
        module: &Module,
        input: &dyn Elements,
        extra: &mut [CpuArg],
        output: ReduceTarget,
    ) -> Result<Execution, CpuError> {
        let red = self.reducer(module, input.floats_per_element(), extra)?;
        let mut execution = Execution::planned(self.jit);
        match self.native(&red, &mut execution) {
            Some(native) => reduce(&red, &native, input, output)?,
            None => reduce(&red, &Interpreted(&red), input, output)?,
        }
        Ok(execution)
    }

    /// The native fold for `red`'s binding, compiling it on first use; `None` (the
    /// interpreter runs it) when the JIT was not asked for or does not take it.
    pub(crate) fn native(&self, red: &Reducer, execution: &mut Execution) -> Option<Native> {
        if !self.jit {
            execution.fell_back(None);
            return None;
        }
        let ranks: Vec<Option<u8>> = red
            .bindings
            .iter()
            .map(|b| match b {
                Binding::Gather(s) => Some(s.rank() as u8),
                _ => None,
            })
            .collect();
        let describe = format!("reduction `{}`", red.func.name);
        let (code, compiled) = cached(
            &self.compiled,
            (red.interp.math, ranks),
            |_, _| describe,
            |(math, ranks)| {
                jit::reduce::compile(
                    red.interp.module,
                    *math,
                    self.func,
                    red.a,
                    red.r,
                    ranks,
                    false,
                )
            },
        );
        execution.compiled = compiled;
        match code {
            Ok(code) => {
                let ctx = code
                    .slots
                    .iter()
                    .map(|&s| jit::drive::slot_value(s, &red.bindings, &[], &[], None))
                    .collect();
                let mut kinds = Vec::new();
                jit::lower::kinds(red.ty, red.interp.module, &mut kinds).ok()?;
                Some(Native { code, ctx, kinds })
            }
            Err(why) => {
                execution.fell_back(Some(why));
                None
            }
        }
    }
}

/// Reduces `input` with the reduction `reduce_fn` into `output`. `extra` binds the
/// reduction's other parameters (constants and gathers), positionally, skipping its input
/// stream and `reduce` accumulator. Compiles the reduction on every call: keep a
/// [`ReducePlan`] to call it repeatedly.
pub fn run_reduce(
    module: &Module,
    reduce_fn: FunctionId,
    input: &CpuStream,
    extra: &mut [CpuArg],
    output: ReduceTarget,
) -> Result<(), CpuError> {
    ReducePlan::new(module, reduce_fn)
        .run(module, input, extra, output)
        .map(drop)
}

/// What a reduction folds: elements in stream layout, given run by run.
pub(crate) trait Elements: Sync {
    /// The extents, outermost first.
    fn shape(&self) -> &[usize];
    /// Floats per element.
    fn floats_per_element(&self) -> usize;
    /// Calls `fold` on the elements `start..start + count` (row-major positions), in order,
    /// as one or more runs of consecutive elements.
    fn runs(
        &self,
        start: usize,
        count: usize,
        fold: &mut dyn FnMut(&[f32]) -> Result<(), CpuError>,
    ) -> Result<(), CpuError>;
}

impl Elements for CpuStream {
    fn shape(&self) -> &[usize] {
        CpuStream::shape(self)
    }

    fn floats_per_element(&self) -> usize {
        CpuStream::floats_per_element(self)
    }

    fn runs(
        &self,
        start: usize,
        count: usize,
        fold: &mut dyn FnMut(&[f32]) -> Result<(), CpuError>,
    ) -> Result<(), CpuError> {
        let fpe = CpuStream::floats_per_element(self);
        fold(&self.data()[start * fpe..(start + count) * fpe])
    }
}

/// `acc = f(acc, x)` for each element of `elements`, `acc` starting as the first element
/// when it is `None`.
fn fold_into<F: Fold>(
    f: &F,
    acc: &mut Option<F::Acc>,
    elements: &[f32],
    fpe: usize,
) -> Result<(), CpuError> {
    match acc {
        None => {
            let mut a = f.start(&elements[..fpe]);
            f.fold(&mut a, &elements[fpe..])?;
            *acc = Some(a);
        }
        Some(a) => f.fold(a, elements)?,
    }
    Ok(())
}

/// A left fold over stream elements, as one engine runs it.
pub(crate) trait Fold: Sync {
    type Acc: Send;
    /// The accumulator holding element `first` (its floats).
    fn start(&self, first: &[f32]) -> Self::Acc;
    /// `acc = f(acc, x)` for each element `x` of `elements` (consecutive, in order).
    fn fold(&self, acc: &mut Self::Acc, elements: &[f32]) -> Result<(), CpuError>;
    /// `acc = f(acc, p)` for each accumulator `p` of `later`, in order.
    fn merge(&self, acc: &mut Self::Acc, later: Vec<Self::Acc>) -> Result<(), CpuError>;
    /// The accumulator's floats in stream layout.
    fn encode(&self, acc: &Self::Acc, dst: &mut [f32]);
}

/// The interpreter's fold.
struct Interpreted<'r, 'a>(&'r Reducer<'a>);

impl Fold for Interpreted<'_, '_> {
    type Acc = Value;

    fn start(&self, first: &[f32]) -> Value {
        self.0.value(first)
    }

    fn fold(&self, acc: &mut Value, elements: &[f32]) -> Result<(), CpuError> {
        let red = self.0;
        let fpe = Value::flat_len(red.ty, red.interp.module);
        let mut frame = red.frame();
        for x in elements.chunks_exact(fpe) {
            let a = std::mem::replace(acc, Value::Void);
            *acc = red.combine(&mut frame, a, red.value(x))?;
        }
        Ok(())
    }

    fn merge(&self, acc: &mut Value, later: Vec<Value>) -> Result<(), CpuError> {
        let mut frame = self.0.frame();
        for p in later {
            let a = std::mem::replace(acc, Value::Void);
            *acc = self.0.combine(&mut frame, a, p)?;
        }
        Ok(())
    }

    fn encode(&self, acc: &Value, dst: &mut [f32]) {
        acc.encode(dst);
    }
}

/// A reduction's native code bound to a call: its slot values and the accumulator's kinds.
pub(crate) struct Native {
    code: Arc<Code>,
    ctx: Vec<u64>,
    kinds: Vec<Scalar>,
}

impl Native {
    /// `dst = f(dst, x)` on two elements in stream layout (ScatterOp's update).
    pub(crate) fn update(&self, dst: &mut [f32], x: &[f32]) {
        debug_assert!(dst.len() == self.kinds.len() && x.len() == self.kinds.len());
        // SAFETY: `ctx` holds this call's slots (gathers borrowed by the caller's `Reducer`),
        // and both pointers address one element of the reduction's type.
        unsafe {
            (jit::reduce::update_fn(&self.code))(self.ctx.as_ptr(), dst.as_mut_ptr(), x.as_ptr())
        }
    }
}

impl Fold for Native {
    /// Each component as 32 bits of its own kind.
    type Acc = Vec<u32>;

    fn start(&self, first: &[f32]) -> Vec<u32> {
        self.kinds
            .iter()
            .zip(first)
            .map(|(k, &x)| match k {
                Scalar::Float => x.to_bits(),
                Scalar::Int => Comp::F(x).to_i32() as u32,
                Scalar::Bool => Comp::F(x).to_bool() as u32,
            })
            .collect()
    }

    fn fold(&self, acc: &mut Vec<u32>, elements: &[f32]) -> Result<(), CpuError> {
        let n = elements.len() / self.kinds.len();
        // SAFETY: `ctx` holds this call's slots; `acc` is one raw accumulator and `elements`
        // holds `n` elements.
        unsafe {
            (jit::reduce::fold_fn(&self.code, false))(
                self.ctx.as_ptr(),
                acc.as_mut_ptr(),
                elements.as_ptr().cast(),
                n as i64,
            )
        };
        Ok(())
    }

    fn merge(&self, acc: &mut Vec<u32>, later: Vec<Vec<u32>>) -> Result<(), CpuError> {
        let raw: Vec<u32> = later.concat();
        // SAFETY: as `fold`, over raw accumulators.
        unsafe {
            (jit::reduce::fold_fn(&self.code, true))(
                self.ctx.as_ptr(),
                acc.as_mut_ptr(),
                raw.as_ptr(),
                (raw.len() / self.kinds.len()) as i64,
            )
        };
        Ok(())
    }

    fn encode(&self, acc: &Vec<u32>, dst: &mut [f32]) {
        for ((d, &r), k) in dst.iter_mut().zip(acc).zip(&self.kinds) {
            *d = match k {
                Scalar::Float => f32::from_bits(r),
                Scalar::Int => r as i32 as f32,
                Scalar::Bool => r as f32,
            };
        }
    }
}

fn reduce<F: Fold>(
    red: &Reducer,
    f: &F,
    input: &dyn Elements,
    output: ReduceTarget,
) -> Result<(), CpuError> {
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
            let acc = reduce_all(f, input)?;
            f.encode(&acc, dst);
            Ok(())
        }
        ReduceTarget::Stream(out) => {
            check_elements(
                module,
                &func.name,
                &func.params[red.r],
                out.floats_per_element(),
            )?;
            reduce_blocks(red, f, input, out)
        }
    }
}

/// The whole stream to one value: chunks of [`CHUNK`] elements folded in parallel, then
/// their results folded in order.
fn reduce_all<F: Fold>(f: &F, input: &dyn Elements) -> Result<F::Acc, CpuError> {
    let (n, fpe): (usize, usize) = (input.shape().iter().product(), input.floats_per_element());
    let chunk = |c: usize| -> Result<F::Acc, CpuError> {
        let (start, mut acc) = (c * CHUNK, None);
        input.runs(start, CHUNK.min(n - start), &mut |run| {
            fold_into(f, &mut acc, run, fpe)
        })?;
        Ok(acc.expect("a chunk holds one element at least"))
    };
    if n <= CHUNK {
        return chunk(0);
    }
    let mut partials = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(chunk)
        .collect::<Result<Vec<F::Acc>, CpuError>>()?;
    let later = partials.split_off(1);
    let mut acc = partials.pop().expect("one chunk at least");
    f.merge(&mut acc, later)?;
    Ok(acc)
}

/// Each output element folds its block of the input, row of the block by row.
fn reduce_blocks<F: Fold>(
    red: &Reducer,
    f: &F,
    input: &dyn Elements,
    out: &mut CpuStream,
) -> Result<(), CpuError> {
    let rank = input.shape().len().max(out.rank());
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
    let row = block[rank - 1];
    let rows = block.iter().product::<usize>() / row;
    let in_fpe = input.floats_per_element();
    let fpe = out.floats_per_element();
    // Output elements per parallel task: about CHUNK input elements' work. Each output
    // element folds its own block, so the split changes no bit; a task of CHUNK output
    // elements left SGEMV's 1024 row sums of 1024 elements on one core.
    let per_task = (CHUNK / (rows * row).max(1)).clamp(1, CHUNK);
    out.data_mut()
        .par_chunks_mut(per_task * fpe)
        .enumerate()
        .try_for_each(|(c, slice)| {
            for (e, dst) in slice.chunks_mut(fpe).enumerate() {
                let o = unravel(c * per_task + e, &outs);
                let mut acc = None;
                for r in 0..rows {
                    let local = unravel(r * row, &block);
                    let mut idx: Index = [0; 4];
                    for d in 0..rank {
                        idx[d] = o[d] * block[d] + local[d];
                    }
                    let at = ravel(&idx, &ins);
                    input.runs(at, row, &mut |run| fold_into(f, &mut acc, run, in_fpe))?;
                }
                if let Some(a) = &acc {
                    f.encode(a, dst);
                }
            }
            Ok(())
        })
}
