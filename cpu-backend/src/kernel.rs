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
//! Two engines run the body. Normally native code: the kernel compiled by Cranelift for the
//! call's shape ([`crate::jit`], once per [`KernelPlan`] and shape), run over tiles of
//! consecutive elements in parallel. The interpreter ([`crate::exec`]) runs kernels the JIT
//! does not take, and [`KernelPlan::interpreted`] asks for it: it is the reference the JIT is
//! tested against. Its parallelism: the output elements are cut into chunks of [`CHUNK`]
//! consecutive elements, every output stream's data split at the same boundaries with
//! `chunks_mut`, each chunk's slices owned by one rayon task; inputs are shared read-only.
//! Either way the result does not depend on scheduling: each element is computed from the
//! inputs alone, exactly as on the GPU.
//!
//! A write mask ([`KernelPlan::run_masked`]) skips the elements it leaves off, before
//! computing them; the call reports how many elements wrote their outputs (write queries).
//!
//! An `out` value starts at zero at every element, whatever the output held (GL cannot read
//! its output, so it zero-initialises; the reference agrees). An element that executes
//! `discard` writes none of its outputs, so they keep their previous contents.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use brook_ir::{FunctionId, MathMode, Module, ParamClass};
use rayon::prelude::*;

use crate::args::{bind_input, check_elements, Binding, CpuArg};
use crate::error::CpuError;
use crate::exec::{Frame, Interp, Interrupt};
use crate::jit::{self, code::Code, kernel::Variant, Unjittable};
use crate::shape::{position, ravel, resize_index, unravel, Index};
use crate::stream::CpuStream;
use crate::value::Value;
use crate::watchdog::Watchdog;

/// Output elements per parallel task of the interpreter: large enough that scheduling costs
/// nothing next to the interpretation, small enough that a 256×256 stream still spreads over
/// every core.
pub const CHUNK: usize = 4096;

/// Which engine ran a kernel's body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// Native code compiled by Cranelift ([`crate::jit`]).
    Jit,
    /// The tree-walking interpreter, one element at a time ([`crate::exec`]).
    Interpreter,
}

/// A kernel variant this call compiled (the first call of its shape).
#[derive(Debug, Clone, PartialEq)]
pub struct Compiled {
    /// What the code is specialised on (how each parameter is bound).
    pub variant: String,
    /// From typed IR to linked native code.
    pub time: Duration,
}

/// Which engine ran a call, and what compiling for it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Execution {
    /// The engine that ran the body.
    pub engine: Engine,
    /// Why the interpreter ran the call when native code was asked for.
    pub fallback: Option<String>,
    /// Set when this call compiled its variant.
    pub compiled: Option<Compiled>,
}

impl Execution {
    /// What a call is about to do with native code asked for (`jit`) or not.
    pub(crate) fn planned(jit: bool) -> Execution {
        Execution {
            engine: if jit {
                Engine::Jit
            } else {
                Engine::Interpreter
            },
            fallback: None,
            compiled: None,
        }
    }

    /// The interpreter runs the call, because native code was not asked for or (`why`)
    /// cannot run it.
    pub(crate) fn fell_back(&mut self, why: Option<Unjittable>) {
        self.engine = Engine::Interpreter;
        if let Some(why) = why {
            self.fallback = Some(why.0);
        }
    }
}

/// What one kernel call did.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelRun {
    /// Values each `vout` parameter received, in parameter order.
    pub vout_counts: Vec<usize>,
    /// Elements that wrote their outputs: neither discarded nor masked off.
    pub written: usize,
    /// Which engine ran it, and what compiling for it cost.
    pub execution: Execution,
}

/// A kernel prepared for repeated calls. Calls run native code compiled by Cranelift, once
/// per call shape ([`crate::jit`]; keep one plan per kernel to pay compilation once, as the
/// GL backend keeps its programs); a kernel the JIT does not take runs on the interpreter.
#[derive(Debug, Clone)]
pub struct KernelPlan {
    kernel: FunctionId,
    jit: bool,
    /// Whether native code may run four elements per iteration where the kernel allows it
    /// ([`crate::jit`]'s `soa`).
    quads: bool,
    /// Which formulas the built-ins use, on either engine (`Runtime::set_fast_math`).
    math: MathMode,
    variants: Cache<Variant, Code>,
}

impl KernelPlan {
    /// A plan for `kernel` of `module`, compiled at its first call of each shape; errors in
    /// the call itself are reported by [`KernelPlan::run`].
    pub fn new(_module: &Module, kernel: FunctionId) -> KernelPlan {
        KernelPlan {
            kernel,
            jit: true,
            quads: true,
            math: MathMode::Accurate,
            variants: Arc::default(),
        }
    }

    /// The plan computing built-ins as `math` asks, on native code and the interpreter
    /// alike (fast math: `exec::builtin::formula_in`); its code's variants carry the mode.
    pub fn in_mode(self, math: MathMode) -> KernelPlan {
        KernelPlan { math, ..self }
    }

    /// The mode the plan computes built-ins in.
    pub fn math(&self) -> MathMode {
        self.math
    }

    /// A plan whose native code always runs one element per iteration (to compare the two
    /// layouts: both must give the interpreter's bits).
    pub fn one_element(module: &Module, kernel: FunctionId) -> KernelPlan {
        KernelPlan {
            quads: false,
            ..KernelPlan::new(module, kernel)
        }
    }

    /// A plan that always uses the interpreter (the reference the JIT is tested against).
    pub fn interpreted(kernel: FunctionId) -> KernelPlan {
        KernelPlan {
            jit: false,
            ..KernelPlan::new(&Module::default(), kernel)
        }
    }

    /// Runs the kernel with `args` (see [`run_kernel`]). `module` must be the one the plan
    /// was made from.
    pub fn run(&self, module: &Module, args: &mut [CpuArg]) -> Result<(), CpuError> {
        self.run_vout(module, args).map(drop)
    }

    /// Runs the kernel like [`KernelPlan::run`] and returns how many values each `vout`
    /// parameter received, in parameter order (see [`run_kernel`] for how they are stored).
    pub fn run_vout(&self, module: &Module, args: &mut [CpuArg]) -> Result<Vec<usize>, CpuError> {
        self.run_masked(module, args, None).map(|r| r.vout_counts)
    }

    /// Runs the kernel under a write mask: element `i` of the call (row-major) runs only
    /// where `mask[i]` holds, and one masked off keeps its outputs' contents. Reports what
    /// the call did, including how many elements wrote their outputs (a write query).
    pub fn run_masked(
        &self,
        module: &Module,
        args: &mut [CpuArg],
        mask: Option<&[bool]>,
    ) -> Result<KernelRun, CpuError> {
        run(module, self, args, mask, None, Watchdog::default())
    }

    /// [`KernelPlan::run_masked`] stopped with [`CpuError::TimeLimit`] when `watchdog`'s time
    /// is up. Either engine checks at loop back edges: native code compiled for calls with a
    /// time limit (a variant of its own, so calls without one pay nothing) asks the watchdog
    /// every [`crate::watchdog::NATIVE_CHECK_EVERY`] back edges, the interpreter at every one.
    ///
    /// With `wrote` (one entry per element, row-major) it also says which elements wrote
    /// their outputs, for a write mask's set mode: `wrote[i]` becomes true where element `i`
    /// was neither masked off nor discarded. The interpreter marks each element in its
    /// chunk; native code runs one element at a time only where the kernel can `discard`
    /// (elsewhere the mask's test is the answer).
    pub fn run_watched(
        &self,
        module: &Module,
        args: &mut [CpuArg],
        mask: Option<&[bool]>,
        watchdog: Watchdog,
        wrote: Option<&mut [bool]>,
    ) -> Result<KernelRun, CpuError> {
        run(module, self, args, mask, wrote, watchdog)
    }

    /// The native code for a call bound as `bindings` with outputs of `out_shape` (`watched`:
    /// with a time limit), compiling it on first use (which `execution` records); `None`
    /// where the plan asks for the interpreter or the JIT does not take the kernel
    /// (`execution` says why).
    pub(crate) fn native(
        &self,
        module: &Module,
        bindings: &[Binding],
        out_shape: &[usize],
        watched: bool,
        execution: &mut Execution,
    ) -> Option<Arc<Code>> {
        if !self.jit {
            return None;
        }
        let variant = jit::drive::variant(bindings, out_shape, watched, self.math);
        let (k, compiled) = self.variant(module, variant);
        execution.compiled = compiled;
        k.map_err(|why| execution.fell_back(Some(why))).ok()
    }

    /// Whether the plan runs native code where the JIT takes the kernel.
    pub(crate) fn jit(&self) -> bool {
        self.jit
    }

    /// The kernel this plan runs.
    pub fn kernel(&self) -> FunctionId {
        self.kernel
    }

    /// The compiled code of `variant`, compiling it on first use (with the four-element
    /// function where the kernel allows it and the plan does not turn it off).
    fn variant(
        &self,
        module: &Module,
        variant: Variant,
    ) -> (Result<Arc<Code>, Unjittable>, Option<Compiled>) {
        let describe = |v: &Variant, code: &Code| {
            let quads = jit::kernel::quads(code).is_some();
            Variant { quads, ..v.clone() }.describe()
        };
        cached(&self.variants, variant, describe, |v| {
            let quads = self.quads && jit::soa::eligible(module, self.kernel, v).is_ok();
            let v = Variant { quads, ..v.clone() };
            jit::kernel::compile(module, self.kernel, &v, false)
        })
    }
}

/// Compiled code per call shape, each compiled once.
pub(crate) type Cache<K, C> = Arc<Mutex<HashMap<K, Result<Arc<C>, Unjittable>>>>;

/// The code for `key` from `cache`, compiled by `compile` on first use (then also saying what
/// compiling cost, and what was compiled: `describe`).
pub(crate) fn cached<K: std::hash::Hash + Eq, C>(
    cache: &Cache<K, C>,
    key: K,
    describe: impl FnOnce(&K, &C) -> String,
    compile: impl FnOnce(&K) -> Result<C, Unjittable>,
) -> (Result<Arc<C>, Unjittable>, Option<Compiled>) {
    let mut map = cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(c) = map.get(&key) {
        return (c.clone(), None);
    }
    let started = Instant::now();
    let c = compile(&key).map(Arc::new);
    let time = started.elapsed();
    let compiled = c.as_ref().ok().map(|code| Compiled {
        variant: describe(&key, &**code),
        time,
    });
    map.insert(key, c.clone());
    (c, compiled)
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

/// A kernel call's arguments bound to its parameters and checked against what the engines
/// read without bounds checks.
pub(crate) struct Bound<'a, 'b> {
    pub func: &'a brook_ir::Function,
    pub bindings: Vec<Binding<'b>>,
    pub outs: Vec<&'b mut CpuStream>,
    pub vouts: Vec<(usize, &'b mut CpuStream)>,
    /// The call's shape; `None` for a call with no outputs (nothing to compute).
    pub out_shape: Option<Vec<usize>>,
}

impl<'a, 'b> Bound<'a, 'b> {
    pub(crate) fn new(
        module: &'a Module,
        kernel: FunctionId,
        args: &'b mut [CpuArg],
        mask: Option<&[bool]>,
    ) -> Result<Bound<'a, 'b>, CpuError> {
        let func = module.func(kernel);
        let unchecked = |reason: String| CpuError::precondition(&func.name, reason);
        if args.len() != func.params.len() {
            return Err(unchecked(format!(
                "{} argument(s) for {} parameter(s)",
                args.len(),
                func.params.len()
            )));
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
            // No outputs: nothing observable to compute.
            (None, true) => {
                return Ok(Bound {
                    func,
                    bindings,
                    outs,
                    vouts,
                    out_shape: None,
                })
            }
            (None, false) => call_shape(&bindings).ok_or_else(|| {
                unchecked("only vouts, and no input to give the call its shape".into())
            })?,
        };
        // What native code writes and reads without bounds checks: the runtime's call checks
        // (`brook_core::call`) guarantee it, the crate's own entry points check it here.
        if outs.iter().any(|o| o.shape() != out_shape.as_slice()) {
            return Err(unchecked("outputs of different shapes".into()));
        }
        let total: usize = out_shape.iter().product();
        if mask.is_some_and(|m| m.len() != total) {
            return Err(unchecked("a mask of another element count".into()));
        }
        for (i, v) in &vouts {
            let Some(ParamClass::Vout { max }) = func.params.get(*i).map(|p| p.class) else {
                unreachable!("bound as a vout above");
            };
            if v.len() < max as usize * total {
                return Err(unchecked(format!(
                    "vout `{}` without room for its pushes",
                    func.params[*i].name
                )));
            }
        }
        Ok(Bound {
            func,
            bindings,
            outs,
            vouts,
            out_shape: Some(out_shape),
        })
    }
}

fn run(
    module: &Module,
    plan: &KernelPlan,
    args: &mut [CpuArg],
    mask: Option<&[bool]>,
    mut wrote: Option<&mut [bool]>,
    watchdog: Watchdog,
) -> Result<KernelRun, CpuError> {
    let Bound {
        func,
        bindings,
        mut outs,
        vouts,
        out_shape,
    } = Bound::new(module, plan.kernel, args, mask)?;
    let mut done = KernelRun {
        vout_counts: Vec::new(),
        written: 0,
        execution: Execution::planned(plan.jit),
    };
    let Some(out_shape) = out_shape else {
        return Ok(done);
    };
    let total: usize = out_shape.iter().product();
    if wrote.as_ref().is_some_and(|w| w.len() != total) {
        return Err(CpuError::precondition(
            &func.name,
            "set-mode marks of another element count".to_string(),
        ));
    }
    let out_fpe: Vec<usize> = outs.iter().map(|o| o.floats_per_element()).collect();
    let vout_fpe: Vec<usize> = vouts.iter().map(|(_, v)| v.floats_per_element()).collect();

    let native = plan.native(
        module,
        &bindings,
        &out_shape,
        watchdog.is_limited(),
        &mut done.execution,
    );
    // Per chunk (tile), the floats each vout received; in chunk order they are in element
    // order.
    let pushed: Vec<Vec<Vec<f32>>> = match native {
        Some(k) => {
            let out_data: Vec<*mut f32> =
                outs.iter_mut().map(|o| o.data_mut().as_mut_ptr()).collect();
            let ctx: Vec<u64> = k
                .slots
                .iter()
                .map(|&s| {
                    jit::drive::slot_value(s, &bindings, &out_shape, &out_data, Some(&watchdog))
                })
                .collect();
            // SAFETY: `ctx` was filled for this call from its bindings, whose streams are
            // borrowed (inputs shared, outputs exclusively) until the end of this function;
            // the outputs are not touched through their references while the tiles run, and
            // the mask's length was checked.
            let narrow = jit::drive::narrow_gathers(&bindings);
            let stopped = |jit::drive::TimeUp| watchdog.stopped(&func.name);
            // Set mode needs each element's own answer only where the kernel can `discard`;
            // otherwise an element writes exactly when the mask's test lets it run.
            let serial = wrote.is_some() && brook_ir::walk::can_discard(module, plan.kernel);
            if let (true, Some(wrote)) = (serial, wrote.as_deref_mut()) {
                let mut vouts = jit::runtime::VoutTile::new(vout_fpe.clone());
                for (e, w) in wrote.iter_mut().enumerate() {
                    // SAFETY: as above, one element at a time.
                    let n = unsafe {
                        jit::drive::run_elements(&k, &ctx, e, 1, mask, false, &mut vouts)
                    }
                    .map_err(stopped)?;
                    *w |= n == 1;
                    done.written += n;
                }
                vec![vouts.bufs]
            } else {
                let (written, tiles) =
                    unsafe { jit::drive::run(&k, &ctx, total, mask, &vout_fpe, narrow) }
                        .map_err(stopped)?;
                done.written = written;
                if let Some(wrote) = wrote {
                    for (e, w) in wrote.iter_mut().enumerate() {
                        *w |= mask.is_none_or(|m| m[e]);
                    }
                }
                tiles.into_iter().map(|t| t.bufs).collect()
            }
        }
        None => {
            done.execution.fell_back(None);
            let n_chunks = total.div_ceil(CHUNK);
            let mut chunks: Vec<Vec<&mut [f32]>> = (0..n_chunks)
                .map(|_| Vec::with_capacity(outs.len()))
                .collect();
            for (o, &fpe) in outs.iter_mut().zip(&out_fpe) {
                for (c, slice) in o.data_mut().chunks_mut(CHUNK * fpe).enumerate() {
                    chunks[c].push(slice);
                }
            }
            let driver = Driver {
                interp: Interp::new(module).watched(watchdog).in_mode(plan.math),
                func,
                bindings: &bindings,
                out_shape: &out_shape,
                out_fpe: &out_fpe,
                vout_fpe: &vout_fpe,
            };
            // One `wrote` piece (empty without set mode) per chunk.
            let wrote_chunks: Vec<Option<&mut [bool]>> = match wrote {
                Some(wrote) => wrote.chunks_mut(CHUNK).map(Some).collect(),
                None => (0..n_chunks).map(|_| None).collect(),
            };
            let per_chunk: Vec<(usize, Vec<Vec<f32>>)> = chunks
                .into_par_iter()
                .zip(wrote_chunks)
                .enumerate()
                .map(|(c, (mut slices, wrote))| {
                    let base = c * CHUNK;
                    let n = (total - base).min(CHUNK);
                    let mut bufs = vec![Vec::new(); vouts.len()];
                    let chunk_mask = mask.map(|m| &m[base..base + n]);
                    let written =
                        driver.run_chunk(base, n, chunk_mask, &mut slices, &mut bufs, wrote)?;
                    Ok((written, bufs))
                })
                .collect::<Result<_, CpuError>>()?;
            done.written = per_chunk.iter().map(|(w, _)| w).sum();
            per_chunk.into_iter().map(|(_, b)| b).collect()
        }
    };
    Ok(finish_vouts(done, vouts, &vout_fpe, pushed))
}

/// `done` with each vout's count, its pushes (`pushed`: per chunk, the floats each vout
/// received) packed at its front in chunk order and the rest zeroed.
fn finish_vouts(
    mut done: KernelRun,
    vouts: Vec<(usize, &mut CpuStream)>,
    vout_fpe: &[usize],
    pushed: Vec<Vec<Vec<f32>>>,
) -> KernelRun {
    done.vout_counts = vouts
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
        .collect();
    done
}

/// The shape of a call without `out` streams: that of its first input stream or iterator.
fn call_shape(bindings: &[Binding]) -> Option<Vec<usize>> {
    bindings.iter().find_map(|b| match b {
        Binding::Stream(s) => Some(s.shape().to_vec()),
        Binding::Iter(it, _) => Some(it.shape().to_vec()),
        _ => None,
    })
}

/// The read-only state shared by all chunks of one call (and by [`crate::why`], which
/// re-evaluates one element).
pub(crate) struct Driver<'a> {
    pub(crate) interp: Interp<'a>,
    pub(crate) func: &'a brook_ir::Function,
    pub(crate) bindings: &'a [Binding<'a>],
    pub(crate) out_shape: &'a [usize],
    pub(crate) out_fpe: &'a [usize],
    pub(crate) vout_fpe: &'a [usize],
}

impl<'a> Driver<'a> {
    /// Fills the frame's parameters for the output element at `out_idx` (outputs start at
    /// zero).
    pub(crate) fn load_params(&self, frame: &mut Frame<'a>, linear: usize, out_idx: &Index) {
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
                    let rank = it.shape().len();
                    let idx = resize_index(out_idx, self.out_shape, it.shape());
                    let value = it.value_stepped(&idx[..rank], steps);
                    frame.params[k] = Value::Float(value, it.components());
                    frame.positions[k] = position(&idx, rank);
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

    /// Runs elements `base..base + n` (those `mask` leaves on), writing `out`s into `slices`
    /// and appending each vout's pushes to its buffer in `bufs`; returns how many elements
    /// wrote their outputs, marking each in `wrote` (one entry per element of the chunk)
    /// where given.
    pub(crate) fn run_chunk(
        &self,
        base: usize,
        n: usize,
        mask: Option<&[bool]>,
        slices: &mut [&mut [f32]],
        bufs: &mut [Vec<f32>],
        mut wrote: Option<&mut [bool]>,
    ) -> Result<usize, CpuError> {
        let mut frame = Frame::new(self.interp.module, self.func);
        for (k, b) in self.bindings.iter().enumerate() {
            if let Binding::Gather(s) = b {
                frame.gathers[k] = Some(s);
            }
        }
        let mut written = 0;
        for e in 0..n {
            if mask.is_some_and(|m| !m[e]) {
                continue;
            }
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
            if let Some(wrote) = wrote.as_deref_mut() {
                wrote[e] = true;
            }
            written += 1;
        }
        Ok(written)
    }
}
