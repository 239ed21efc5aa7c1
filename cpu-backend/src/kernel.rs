//! Running a kernel over every element of its outputs.
//!
//! [`run_kernel`] binds the positional arguments to the kernel's parameters (checking count,
//! class and element size up front, so a mistake is one clear error instead of a panic), then
//! evaluates the body once per output element in row-major order.
//!
//! Inputs follow Brook's rules: a stream whose shape differs from the output's is read through
//! the implicit resize ([`crate::shape::resize_index`]), iterators are computed from their
//! range and resized the same way, constants are decoded once.
//!
//! Parallelism: the output elements are cut into chunks of [`CHUNK`] ([`BATCH_CHUNK`] for the
//! batch engine) consecutive elements.
//! Every output stream's data is split at the same element boundaries with `chunks_mut`, and
//! each chunk's slices go to one rayon task, which owns them exclusively; inputs are shared
//! read-only. So there is no locking and no `unsafe`, and the result does not depend on
//! scheduling: each element is computed from the inputs alone, exactly as on the GPU.
//!
//! Two engines run the body: the batch engine ([`crate::batch`], compiled once per
//! [`KernelPlan`], one instruction loop per batch of elements) and the interpreter
//! ([`crate::exec`], one element at a time) for kernels the batch compiler does not take.
//!
//! An `out` value starts at zero at every element, whatever the output held (GL cannot read
//! its output, so it zero-initialises; the reference agrees). An element that executes
//! `discard` writes none of its outputs, so they keep their previous contents.

use brook_frontend::ir::{FunctionId, FunctionKind, Module, ParamClass, Scalar, Type};
use rayon::prelude::*;

use crate::batch::drive::{run_chunk as batch_chunk, Io};
use crate::batch::exec::Machine;
use crate::batch::{compile_kernel, BatchKernel, Unbatchable};
use crate::error::CpuError;
use crate::exec::{Frame, Interp, Interrupt};
use crate::shape::{position, ravel, resize_index, unravel, Index};
use crate::stream::{validate_shape, CpuStream};
use crate::value::Value;
use crate::watchdog::Watchdog;

/// Output elements per parallel task: large enough that scheduling costs nothing next to the
/// interpretation, small enough that a 256×256 stream still spreads over every core.
pub const CHUNK: usize = 4096;

/// Output elements per parallel task of the batch engine.
pub const BATCH_CHUNK: usize = 16 * 1024;

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
    pub shape: Vec<usize>,
    pub components: u8,
    pub start: [f32; 4],
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

pub(crate) use brook_core::call::class_name;

pub(crate) fn kind_name(k: FunctionKind) -> &'static str {
    match k {
        FunctionKind::Kernel => "kernel",
        FunctionKind::Reduce => "reduction",
        FunctionKind::Helper => "helper function",
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
    param: &brook_frontend::ir::Param,
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
    func: &brook_frontend::ir::Function,
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

/// Which engine runs a kernel's body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// Compiled once, run over batches of elements ([`crate::batch`]).
    Batch,
    /// The tree-walking interpreter, one element at a time ([`crate::exec`]).
    Interpreter,
}

/// A kernel prepared for repeated calls: compiled for the batch engine when it can be (keep
/// one per kernel to pay compilation once), else run by the interpreter.
#[derive(Debug, Clone)]
pub struct KernelPlan {
    kernel: FunctionId,
    batch: Result<BatchKernel, Unbatchable>,
}

impl KernelPlan {
    /// Compiles `kernel` of `module`; errors in the call itself are reported by [`KernelPlan::run`].
    pub fn new(module: &Module, kernel: FunctionId) -> KernelPlan {
        KernelPlan {
            kernel,
            batch: compile_kernel(module, kernel),
        }
    }

    /// A plan that always uses the interpreter (to compare the engines).
    pub fn interpreted(kernel: FunctionId) -> KernelPlan {
        KernelPlan {
            kernel,
            batch: Err(Unbatchable("the interpreter was asked for".into())),
        }
    }

    pub fn engine(&self) -> Engine {
        match self.batch {
            Ok(_) => Engine::Batch,
            Err(_) => Engine::Interpreter,
        }
    }

    /// Why the batch engine does not run this kernel, if it does not.
    pub fn unbatchable(&self) -> Option<&Unbatchable> {
        self.batch.as_ref().err()
    }

    /// Runs the kernel with `args` (see [`run_kernel`]). `module` must be the one the plan
    /// was made from.
    pub fn run(&self, module: &Module, args: &mut [CpuArg]) -> Result<(), CpuError> {
        self.run_vout(module, args).map(drop)
    }

    /// Runs the kernel like [`KernelPlan::run`] and returns how many values each `vout`
    /// parameter received, in parameter order (see [`run_kernel`] for how they are stored).
    pub fn run_vout(&self, module: &Module, args: &mut [CpuArg]) -> Result<Vec<usize>, CpuError> {
        self.run_watched(module, args, Watchdog::default())
    }

    /// [`KernelPlan::run_vout`] stopped with [`CpuError::TimeLimit`] when `watchdog`'s time
    /// is up.
    pub fn run_watched(
        &self,
        module: &Module,
        args: &mut [CpuArg],
        watchdog: Watchdog,
    ) -> Result<Vec<usize>, CpuError> {
        run(
            module,
            self.kernel,
            self.batch.as_ref().ok(),
            args,
            watchdog,
        )
    }
}

/// Runs `kernel` once per element of its outputs. `args` are positional, one per parameter,
/// of the matching class; all outputs must have the same shape. Each output element starts
/// at zero (as on GL); one that executes `discard` keeps its previous contents. On error no
/// output has been written, except for a runtime error inside the body (malformed IR), which
/// may leave some chunks written. Compiles the kernel on every call: keep a [`KernelPlan`]
/// to call it repeatedly.
///
/// `vout [N] T v<>` parameters take an [`CpuArg::Out`] stream with room for N values per
/// element of the call; the call's shape is that of its `out` streams, or, when it has none,
/// of its first input stream (or iterator). The values an element pushes (at most N: later
/// pushes are dropped, as GL has room for N) are packed at the front of the vout stream in
/// element (row-major) order, then push order; the rest of it is zeroed; an element that
/// `discard`s pushes nothing. [`KernelPlan::run_vout`] returns the counts.
pub fn run_kernel(
    module: &Module,
    kernel: FunctionId,
    args: &mut [CpuArg],
) -> Result<(), CpuError> {
    KernelPlan::new(module, kernel).run(module, args)
}

fn run(
    module: &Module,
    kernel: FunctionId,
    batch: Option<&BatchKernel>,
    args: &mut [CpuArg],
    watchdog: Watchdog,
) -> Result<Vec<usize>, CpuError> {
    let func = module
        .functions
        .get(kernel.0 as usize)
        .ok_or(CpuError::UnknownFunction(kernel.0))?;
    if func.kind != FunctionKind::Kernel {
        return Err(CpuError::WrongFunctionKind {
            name: func.name.clone(),
            kind: kind_name(func.kind),
            wanted: "kernel",
        });
    }
    if args.len() != func.params.len() {
        return Err(CpuError::ArgCount {
            function: func.name.clone(),
            expected: func.params.len(),
            got: args.len(),
        });
    }

    let mut bindings = Vec::with_capacity(args.len());
    let mut outs: Vec<&mut CpuStream> = Vec::new();
    let mut vouts: Vec<(usize, &mut CpuStream)> = Vec::new();
    for (i, arg) in args.iter_mut().enumerate() {
        let p = &func.params[i];
        match (p.class, arg) {
            (ParamClass::Out, CpuArg::Out(s)) => {
                check_elements(module, &func.name, p, s.floats_per_element())?;
                bindings.push(Binding::Out(outs.len()));
                outs.push(&mut **s);
            }
            (ParamClass::Vout { .. }, CpuArg::Out(s)) => {
                check_elements(module, &func.name, p, s.floats_per_element())?;
                bindings.push(Binding::Vout(vouts.len()));
                vouts.push((i, &mut **s));
            }
            (_, arg) => bindings.push(bind_input(module, func, i, arg)?),
        }
    }

    let out_shape = match (outs.first(), vouts.is_empty()) {
        (Some(first), _) => first.shape().to_vec(),
        (None, true) => return Ok(Vec::new()), // No outputs: nothing observable to compute.
        (None, false) => {
            call_shape(&bindings).ok_or_else(|| CpuError::VoutShape(func.name.clone()))?
        }
    };
    if outs.iter().any(|o| o.shape() != out_shape.as_slice()) {
        return Err(CpuError::OutputShapes {
            function: func.name.clone(),
            shapes: outs.iter().map(|o| o.shape().to_vec()).collect(),
        });
    }

    let total: usize = out_shape.iter().product();
    for (i, v) in &vouts {
        let Some(ParamClass::Vout { max }) = func.params.get(*i).map(|p| p.class) else {
            unreachable!("bound as a vout above");
        };
        let needed = max as usize * total;
        if v.len() < needed {
            return Err(CpuError::VoutCapacity {
                function: func.name.clone(),
                param: func.params[*i].name.clone(),
                needed,
                elements: total,
                got: v.len(),
            });
        }
    }
    let out_fpe: Vec<usize> = outs.iter().map(|o| o.floats_per_element()).collect();
    let vout_fpe: Vec<usize> = vouts.iter().map(|(_, v)| v.floats_per_element()).collect();
    // The batch engine has no `push`: kernels with vouts are interpreted.
    let batch = batch.filter(|_| vouts.is_empty());
    // The batch engine is ~50× cheaper per element, so it takes larger tasks (each sets up a
    // register file); both still spread a 256×256 stream over every core.
    let chunk = if batch.is_some() { BATCH_CHUNK } else { CHUNK };
    let n_chunks = total.div_ceil(chunk);
    let mut chunks: Vec<Vec<&mut [f32]>> = (0..n_chunks)
        .map(|_| Vec::with_capacity(outs.len()))
        .collect();
    for (o, &fpe) in outs.iter_mut().zip(&out_fpe) {
        for (c, slice) in o.data_mut().chunks_mut(chunk * fpe).enumerate() {
            chunks[c].push(slice);
        }
    }

    if let Some(batch) = batch {
        let io = Io {
            bindings: &bindings,
            out_shape: &out_shape,
            out_fpe: &out_fpe,
        };
        let gathers: Vec<Option<&CpuStream>> = bindings
            .iter()
            .map(|b| match b {
                Binding::Gather(s) => Some(*s),
                _ => None,
            })
            .collect();
        return chunks
            .into_par_iter()
            .enumerate()
            .try_for_each_init(
                || Machine::new(module, batch, gathers.clone(), watchdog),
                |m, (c, mut slices)| {
                    let n = (total - c * chunk).min(chunk);
                    batch_chunk(&io, m, c * chunk, n, &mut slices)
                },
            )
            .map(|()| Vec::new())
            .map_err(|e| e.in_function(&func.name));
    }
    let driver = Driver {
        interp: Interp::new(module).watched(watchdog),
        func,
        bindings: &bindings,
        out_shape: &out_shape,
        out_fpe: &out_fpe,
        vout_fpe: &vout_fpe,
    };
    // Each chunk collects its pushes; concatenated in chunk order they are in element order.
    let pushed: Vec<Vec<Vec<f32>>> = chunks
        .into_par_iter()
        .enumerate()
        .map(|(c, mut slices)| {
            let n = (total - c * chunk).min(chunk);
            let mut bufs = vec![Vec::new(); vouts.len()];
            driver.run_chunk(c * chunk, n, &mut slices, &mut bufs)?;
            Ok(bufs)
        })
        .collect::<Result<_, CpuError>>()?;
    Ok(vouts
        .into_iter()
        .enumerate()
        .map(|(k, (_, v))| {
            let data = v.data_mut();
            let mut at = 0;
            for bufs in &pushed {
                data[at..at + bufs[k].len()].copy_from_slice(&bufs[k]);
                at += bufs[k].len();
            }
            data[at..].fill(0.0);
            at / vout_fpe[k]
        })
        .collect())
}

/// The shape of a call without `out` streams: that of its first input stream or iterator.
fn call_shape(bindings: &[Binding]) -> Option<Vec<usize>> {
    bindings.iter().find_map(|b| match b {
        Binding::Stream(s) => Some(s.shape().to_vec()),
        Binding::Iter(it, _) => Some(it.shape.clone()),
        _ => None,
    })
}

/// The read-only state shared by all chunks of one call.
struct Driver<'a> {
    interp: Interp<'a>,
    func: &'a brook_frontend::ir::Function,
    bindings: &'a [Binding<'a>],
    out_shape: &'a [usize],
    out_fpe: &'a [usize],
    vout_fpe: &'a [usize],
}

impl<'a> Driver<'a> {
    /// Fills the frame's parameters for the output element at `out_idx` (outputs start at
    /// zero).
    fn load_params(&self, frame: &mut Frame<'a>, linear: usize, out_idx: &Index) {
        let module = self.interp.module;
        for (k, b) in self.bindings.iter().enumerate() {
            match b {
                Binding::Stream(s) => {
                    // Same shape (the common case): no resizing arithmetic.
                    let (idx, lin) = if s.shape() == self.out_shape {
                        (*out_idx, linear)
                    } else {
                        let idx = resize_index(out_idx, self.out_shape, s.shape());
                        (idx, ravel(&idx, s.shape()))
                    };
                    frame.params[k] =
                        Value::decode(&self.func.params[k].ty, module, s.element(lin)).0;
                    frame.positions[k] = position(&idx, s.rank());
                }
                Binding::Iter(it, steps) => {
                    let idx = resize_index(out_idx, self.out_shape, &it.shape);
                    frame.params[k] = Value::Float(it.value_at(&idx, steps), it.components);
                    frame.positions[k] = position(&idx, it.shape.len());
                }
                Binding::Constant(v) => frame.params[k] = v.clone(),
                Binding::Out(_) | Binding::Vout(_) => {
                    frame.params[k] = Value::zero(&self.func.params[k].ty, module);
                    frame.positions[k] = position(out_idx, self.out_shape.len());
                }
                Binding::Gather(_) | Binding::External => {}
            }
        }
    }

    /// Runs elements `base..base + n`, writing `out`s into `slices` and appending each vout's
    /// pushes to its buffer in `bufs`.
    fn run_chunk(
        &self,
        base: usize,
        n: usize,
        slices: &mut [&mut [f32]],
        bufs: &mut [Vec<f32>],
    ) -> Result<(), CpuError> {
        let mut frame = Frame::new(self.interp.module, self.func);
        for (k, b) in self.bindings.iter().enumerate() {
            if let Binding::Gather(s) = b {
                frame.gathers[k] = Some(s);
            }
        }
        for e in 0..n {
            let out_idx = unravel(base + e, self.out_shape);
            self.load_params(&mut frame, base + e, &out_idx);
            frame.pushed.clear();
            match self.interp.run(&mut frame) {
                Ok(_) => {}
                Err(Interrupt::Discard) => continue,
                Err(Interrupt::Error(err)) => return Err(err),
            }
            for (param, v) in frame.pushed.drain(..) {
                if let Binding::Vout(o) = self.bindings[param as usize] {
                    let buf = &mut bufs[o];
                    let at = buf.len();
                    buf.resize(at + self.vout_fpe[o], 0.0);
                    v.encode(&mut buf[at..]);
                }
            }
            for (k, b) in self.bindings.iter().enumerate() {
                if let Binding::Out(o) = b {
                    let fpe = self.out_fpe[*o];
                    frame.params[k].encode(&mut slices[*o][e * fpe..(e + 1) * fpe]);
                }
            }
        }
        Ok(())
    }
}
