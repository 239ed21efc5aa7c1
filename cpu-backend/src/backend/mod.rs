//! The CPU reference backend behind brook-core's `Backend` trait: streams in host memory,
//! kernels run by [`KernelPlan`] and reductions by [`ReducePlan`] (native code compiled by
//! Cranelift on first call, or for comparison the interpreter), scatters and gather-ops by
//! [`run_scatter`] and [`run_gather_op`] with the program's compiled reductions as
//! combiners. Calls arrive checked by the runtime; this module only marshals them (domains
//! and in-place inputs become copies), applies the write mask and records the trace.

mod mask;

use std::any::Any;
use std::cell::{Ref, RefCell, RefMut};
use std::collections::HashMap;
use std::fmt::Display;
use std::rc::Rc;

use brook_core::call::CallName;
use brook_core::{
    Backend, BackendArg, BackendMask, BackendProgram, BackendStream, BrookError, CallTrace,
    Combiner, Compiled, Domain, ElementFormat, GatherOpCall, IterSpec, KernelCall, ReduceCall,
    ReduceOutput, ScatterCall, StreamArg, StreamError, TraceEntry,
};
use brook_ir::{FunctionId, FunctionKind, MathMode, ParamClass};

use crate::error::CpuError;
use crate::{
    run_gather_op, run_map_reduce, run_scatter, CpuArg, CpuStream, Engine, Execution, KernelPlan,
    ReducePlan, ReduceTarget, ScatterCombine, Watchdog,
};
use mask::{cpu_mask, CpuMask, CpuMasking};

/// Brook on the host's cores.
#[derive(Default)]
pub struct CpuBackend {
    masking: CpuMasking,
    /// Run everything on the interpreter instead of native code.
    interpreted: bool,
    /// Native code one element per iteration only (no four-element layout).
    one_element: bool,
    /// The calls recorded since tracing began (`None`: not tracing).
    trace: RefCell<Option<Vec<TraceEntry>>>,
    /// How long one kernel call may run (`Runtime::set_time_limit`).
    time_limit: std::cell::Cell<Option<std::time::Duration>>,
    /// How later calls compute built-ins (`Runtime::set_fast_math`).
    math: std::cell::Cell<MathMode>,
}

impl CpuBackend {
    /// The backend running kernels and reductions on the IR interpreter (the reference the
    /// native code is tested against).
    pub fn interpreter() -> CpuBackend {
        CpuBackend {
            interpreted: true,
            ..CpuBackend::default()
        }
    }

    /// The backend whose native code runs every kernel one element per iteration, never
    /// four (`crate::jit`'s `soa` layout): to compare the two layouts, which must agree bit
    /// for bit.
    pub fn one_element() -> CpuBackend {
        CpuBackend {
            one_element: true,
            ..CpuBackend::default()
        }
    }

    fn record(&self, entry: impl FnOnce() -> TraceEntry) {
        if let Some(trace) = self.trace.borrow_mut().as_mut() {
            trace.push(entry());
        }
    }
}

/// A program on the CPU: the checked IR, each kernel's plan and each reduction's per math
/// mode, compiled to native code on first call (the plans keep the code, as GL keeps its
/// programs; a plan of one mode never runs a call in the other).
struct CpuProgram {
    compiled: Rc<Compiled>,
    interpreted: bool,
    one_element: bool,
    plans: RefCell<HashMap<(FunctionId, MathMode), Rc<KernelPlan>>>,
    reductions: HashMap<(FunctionId, MathMode), ReducePlan>,
}

impl CpuProgram {
    fn plan(&self, kernel: FunctionId, math: MathMode) -> Rc<KernelPlan> {
        self.plans
            .borrow_mut()
            .entry((kernel, math))
            .or_insert_with(|| {
                let plan = match (self.interpreted, self.one_element) {
                    (true, _) => KernelPlan::interpreted(kernel),
                    (false, true) => KernelPlan::one_element(&self.compiled.module, kernel),
                    (false, false) => KernelPlan::new(&self.compiled.module, kernel),
                };
                Rc::new(plan.in_mode(math))
            })
            .clone()
    }

    fn reduction(&self, f: FunctionId, math: MathMode) -> Result<&ReducePlan, BrookError> {
        self.reductions.get(&(f, math)).ok_or_else(|| {
            let name = &self.compiled.module.func(f).name;
            BrookError::Unknown {
                name: name.clone(),
                what: "reduce function",
                message: format!("`{name}` is not a reduce function"),
            }
        })
    }
}

enum CpuStorage {
    Data(RefCell<CpuStream>),
    Iter(IterSpec),
}

fn storage<'a>(any: &'a dyn Any, call: &dyn Display) -> Result<&'a CpuStorage, BrookError> {
    any.downcast_ref::<CpuStorage>()
        .ok_or_else(|| BrookError::ForeignStream {
            call: call.to_string(),
        })
}

/// The data of a stream that is not an iterator (the runtime passes no iterator where data is
/// needed).
fn data<'a>(any: &'a dyn Any, call: &dyn Display) -> Result<&'a RefCell<CpuStream>, BrookError> {
    match storage(any, call)? {
        CpuStorage::Data(d) => Ok(d),
        CpuStorage::Iter(..) => Err(BrookError::ArgumentType {
            call: call.to_string(),
            param: String::new(),
            message: "an iterator has no storage; copy it into a stream with a kernel first".into(),
        }),
    }
}

fn borrow<'a>(
    cell: &'a RefCell<CpuStream>,
    call: &dyn Display,
) -> Result<Ref<'a, CpuStream>, BrookError> {
    cell.try_borrow().map_err(|_| in_use(call))
}

fn borrow_mut<'a>(
    cell: &'a RefCell<CpuStream>,
    call: &dyn Display,
) -> Result<RefMut<'a, CpuStream>, BrookError> {
    cell.try_borrow_mut().map_err(|_| in_use(call))
}

fn in_use(call: &dyn Display) -> BrookError {
    BrookError::State {
        call: call.to_string(),
        message: "the stream is in use by another role of this call".into(),
    }
}

fn cpu_program(program: &dyn Any) -> Result<&CpuProgram, BrookError> {
    program
        .downcast_ref::<CpuProgram>()
        .ok_or_else(|| BrookError::ForeignStream {
            call: "a program compiled for another runtime".into(),
        })
}

impl Backend for CpuBackend {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn describe(&self) -> String {
        let engine = match (self.interpreted, self.one_element) {
            (true, _) => "interpreter",
            (false, true) => "native code (Cranelift), one element per iteration",
            (false, false) => "native code (Cranelift)",
        };
        format!("CPU: {} threads, {engine}", rayon::current_num_threads())
    }

    fn create_stream(
        &self,
        format: &ElementFormat,
        shape: &[usize],
    ) -> Result<BackendStream, BrookError> {
        let stream = CpuStream::new(&format.widths(), shape)?;
        Ok(Box::new(CpuStorage::Data(RefCell::new(stream))))
    }

    fn create_iter(&self, spec: &IterSpec) -> Result<BackendStream, BrookError> {
        Ok(Box::new(CpuStorage::Iter(spec.clone())))
    }

    fn read(&self, stream: &StreamArg, src: &[f32]) -> Result<(), BrookError> {
        let mut s = borrow_mut(data(stream.storage, &"streamRead")?, &"streamRead")?;
        match stream.domain {
            None => s.read(src)?,
            Some(d) => set_region(&mut s, d, src)?,
        }
        Ok(())
    }

    fn write(&self, stream: &StreamArg, out: &mut [f32]) -> Result<(), BrookError> {
        let s = borrow(data(stream.storage, &"streamWrite")?, &"streamWrite")?;
        match stream.domain {
            None => s.write(out)?,
            Some(d) => out.copy_from_slice(&region(&s, d, out.len())?),
        }
        Ok(())
    }

    fn prepare(&self, program: &Rc<Compiled>) -> Result<BackendProgram, BrookError> {
        let module = &program.module;
        let reductions = (0..module.functions.len() as u32)
            .map(FunctionId)
            .filter(|&f| module.func(f).kind == FunctionKind::Reduce)
            .flat_map(|f| [MathMode::Accurate, MathMode::Fast].map(|math| (f, math)))
            .map(|(f, math)| {
                let plan = match self.interpreted {
                    true => ReducePlan::interpreted(f),
                    false => ReducePlan::new(module, f),
                };
                ((f, math), plan.in_mode(math))
            })
            .collect();
        Ok(Box::new(CpuProgram {
            compiled: program.clone(),
            interpreted: self.interpreted,
            one_element: self.one_element,
            plans: RefCell::new(HashMap::new()),
            reductions,
        }))
    }

    fn run_kernel(&self, call: &KernelCall) -> Result<Vec<usize>, BrookError> {
        let program = cpu_program(call.program)?;
        let func = call.function();
        let plan = program.plan(call.kernel, self.math.get());
        let module = &program.compiled.module;
        let result = std::cell::Cell::new(None);
        let watchdog = self.watchdog();
        with_kernel_args(call, |cpu_args| {
            let mut run = |a: &mut [CpuArg], mask: Option<&[bool]>, wrote: Option<&mut [bool]>| {
                let done = plan.run_watched(module, a, mask, watchdog, wrote)?;
                result.set(Some(done.clone()));
                Ok(done)
            };
            // Every output of a call has the first one's shape and place (checked by the
            // runtime), so the first output masks them all.
            let place = call
                .args
                .iter()
                .zip(&func.params)
                .find_map(|(a, p)| match a {
                    BackendArg::Stream(s) if p.class == ParamClass::Out => Some(s),
                    _ => None,
                });
            let domain = place.and_then(|s| s.domain.map(|d| (s.shape, d)));
            let write_mask = (call.write_mask)
                .map(|m| cpu_mask(m, &func.name))
                .transpose()?;
            self.masking
                .run(call.mask, write_mask, cpu_args, domain, &mut run)?;
            Ok(())
        })?;
        let done = result.take();
        if let Some(done) = &done {
            self.record(|| {
                TraceEntry::Kernel(call_trace(
                    call.compiled,
                    func,
                    brook_core::fmt_shape(call.shape),
                    &done.execution,
                ))
            });
        }
        Ok(done.map(|d| d.vout_counts).unwrap_or_default())
    }

    fn reduce(&self, call: &ReduceCall, output: ReduceOutput) -> Result<(), BrookError> {
        let program = cpu_program(call.program)?;
        let module = &program.compiled.module;
        let plan = program.reduction(call.function, self.math.get())?;
        let name = CallName("reduction", &call.function().name);
        let input = borrow(data(call.input.storage, &name)?, &name)?;
        let (execution, target) = with_reduce_args(call, output, |extra, target| {
            Ok(plan.run(module, &input, extra, target)?)
        })?;
        self.record(|| {
            let shapes = format!("{} -> {target}", brook_core::fmt_shape(input.shape()));
            TraceEntry::Reduce(call_trace(
                call.compiled,
                call.function(),
                shapes,
                &execution,
            ))
        });
        Ok(())
    }

    /// The kernel computed inside the reduction's fold, its output never written
    /// (`crate::fused`); the runtime's gate asks `brook_core::call::fusion_refused` first. The trace shows one reduction whose variant names the kernel it computed.
    fn map_reduce(
        &self,
        kernel: &KernelCall,
        reduce: &ReduceCall,
        output: ReduceOutput,
    ) -> Result<bool, BrookError> {
        let program = cpu_program(kernel.program)?;
        let module = &program.compiled.module;
        let plan = program.plan(kernel.kernel, self.math.get());
        let reduction = program.reduction(reduce.function, self.math.get())?;
        let watchdog = self.watchdog();
        let (executions, target) = with_kernel_args(kernel, |args| {
            with_reduce_args(reduce, output, |extra, target| {
                let run = run_map_reduce(module, &plan, args, reduction, extra, target, watchdog);
                Ok(run?)
            })
        })?;
        self.record(|| {
            let (k, r) = &executions;
            let shapes = format!(
                "kernel `{}` fused into the fold ({}), {} -> {target}",
                kernel.function().name,
                engine(k),
                brook_core::fmt_shape(kernel.shape),
            );
            TraceEntry::Reduce(call_trace(reduce.compiled, reduce.function(), shapes, r))
        });
        Ok(true)
    }

    fn fuses(&self) -> bool {
        true
    }

    fn scatter(&self, call: &ScatterCall) -> Result<(), BrookError> {
        let name: &dyn Display = &"streamScatterOp";
        let index = borrow(data(call.index.storage, name)?, name)?;
        let elements = borrow(data(call.data.storage, name)?, name)?;
        let mut dst = borrow_mut(data(call.dst.storage, name)?, name)?;
        let execution = run_scatter(
            &mut dst,
            &index,
            &elements,
            combine(&call.op, self.math.get())?,
        )?;
        self.record(|| {
            let op = Some(&call.op);
            TraceEntry::Scatter(op_trace("streamScatterOp", op, elements.len(), execution))
        });
        Ok(())
    }

    fn gather_op(&self, call: &GatherOpCall) -> Result<(), BrookError> {
        let name: &dyn Display = &"streamGatherOp";
        let index = borrow(data(call.index.storage, name)?, name)?;
        let mut values = borrow_mut(data(call.data.storage, name)?, name)?;
        let mut dst = borrow_mut(data(call.dst.storage, name)?, name)?;
        let update = match &call.update {
            Some((op, operand)) => Some((combine(op, self.math.get())?, *operand)),
            None => None,
        };
        let execution = run_gather_op(&mut dst, &index, &mut values, update)?;
        self.record(|| {
            let op = call.update.as_ref().map(|(op, _)| op);
            TraceEntry::GatherOp(op_trace("streamGatherOp", op, index.len(), execution))
        });
        Ok(())
    }

    fn create_write_mask(&self, shape: &[usize]) -> Result<BackendMask, BrookError> {
        Ok(Box::new(CpuMask::new(shape.iter().product())))
    }

    fn clear_write_mask(&self, mask: &dyn Any) -> Result<(), BrookError> {
        cpu_mask(mask, "write_mask::clear")?.clear();
        Ok(())
    }

    fn load_write_mask(&self, mask: &dyn Any, from: &StreamArg) -> Result<(), BrookError> {
        let name: &dyn Display = &"streamSetWriteMask";
        cpu_mask(mask, "streamSetWriteMask")?.load(&*borrow(data(from.storage, name)?, name)?);
        Ok(())
    }

    fn begin_write_query(&self) -> Result<(), BrookError> {
        self.masking.begin_query();
        Ok(())
    }

    fn end_write_query(&self) -> Result<u64, BrookError> {
        Ok(self.masking.end_query())
    }

    fn swap(&self, a: &StreamArg, b: &StreamArg) -> Result<(), BrookError> {
        let name: &dyn Display = &"streamSwap";
        let mut x = borrow_mut(data(a.storage, name)?, name)?;
        let mut y = borrow_mut(data(b.storage, name)?, name)?;
        std::mem::swap(&mut *x, &mut *y);
        Ok(())
    }

    fn set_time_limit(&self, limit: Option<std::time::Duration>) -> Result<(), BrookError> {
        self.time_limit.set(limit);
        Ok(())
    }

    /// Later calls compute built-ins in `mode` on either engine: fast math takes the shorter
    /// formulas of `exec::builtin::formula_in` (`exp`); kernels and reductions keep a plan,
    /// and so native code, per mode.
    fn set_math_mode(&self, mode: MathMode) -> Result<(), BrookError> {
        self.math.set(mode);
        Ok(())
    }

    /// The CPU backend records each kernel call, reduction, ScatterOp and GatherOp without
    /// passes: the engine that ran it (a user combiner's), the call shape its native code is
    /// compiled for, and on the call that compiled it, what compiling cost.
    fn set_trace(&self, on: bool) {
        *self.trace.borrow_mut() = on.then(Vec::new);
    }

    fn take_trace(&self) -> Vec<TraceEntry> {
        self.trace
            .borrow_mut()
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    fn finish(&self) {}

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The trace of a call on the CPU: `shapes` as the variant, then the engine that ran it and
/// what it compiled.
fn call_trace(
    compiled: &Compiled,
    func: &brook_ir::Function,
    shapes: String,
    e: &Execution,
) -> CallTrace {
    CallTrace {
        function: func.name.clone(),
        source_line: Some(compiled.line_of(func)),
        variant: format!("{shapes}, {}", engine(e)),
        compiled: e.compiled.as_ref().map(|c| c.time),
        scratch: Vec::new(),
        passes: Vec::new(),
    }
}

/// Which engine ran a call, and for native code compiled by it, its variant.
fn engine(e: &Execution) -> String {
    match (&e.engine, &e.compiled, &e.fallback) {
        (Engine::Jit, Some(c), _) => format!("native code for {}", c.variant),
        (Engine::Jit, None, _) => "native code".into(),
        (Engine::Interpreter, _, Some(why)) => format!("interpreter ({why})"),
        (Engine::Interpreter, _, None) => "interpreter".into(),
    }
}

/// The trace of a ScatterOp or GatherOp (`call`) over `elements` with combiner `op` (`None`:
/// a plain fetch); `e` is a reduce function's execution (`None` for a built-in combiner).
fn op_trace(call: &str, op: Option<&Combiner>, elements: usize, e: Option<Execution>) -> CallTrace {
    let source_line = match op {
        Some(Combiner::Reduce {
            compiled, function, ..
        }) => Some(compiled.line_of(compiled.module.func(*function))),
        _ => None,
    };
    CallTrace {
        function: format!("{call} {}", op.map_or("fetch".into(), Combiner::name)),
        source_line,
        variant: match &e {
            Some(e) => format!("{elements} elements, {}", engine(e)),
            None => format!("{elements} elements"),
        },
        compiled: e.and_then(|e| e.compiled).map(|c| c.time),
        scratch: Vec::new(),
        passes: Vec::new(),
    }
}

/// A call argument with the borrow that keeps it valid for the call.
enum Held<'a> {
    Constant(&'a [f32]),
    Iter(&'a IterSpec),
    Input(Ref<'a, CpuStream>),
    Copy(&'a CpuStream),
    Out(RefMut<'a, CpuStream>),
    /// A copy of an output domain, written by the call and copied back after it.
    Region(&'a mut CpuStream),
}

/// The floats of `domain`'s elements in row-major order; `floats` is what the caller expects.
fn region(s: &CpuStream, domain: &Domain, floats: usize) -> Result<Vec<f32>, BrookError> {
    let n = s.floats_per_element();
    check_len(domain.len() * n, floats)?;
    let mut out = Vec::with_capacity(floats);
    for linear in domain.linear_positions(s.shape()) {
        out.extend_from_slice(&s.data()[linear * n..(linear + 1) * n]);
    }
    Ok(out)
}

/// Writes `data`, `domain`'s elements in row-major order, into that part of `s`.
fn set_region(s: &mut CpuStream, domain: &Domain, data: &[f32]) -> Result<(), BrookError> {
    let n = s.floats_per_element();
    check_len(domain.len() * n, data.len())?;
    let shape = s.shape().to_vec();
    for (k, linear) in domain.linear_positions(&shape).enumerate() {
        s.data_mut()[linear * n..(linear + 1) * n].copy_from_slice(&data[k * n..(k + 1) * n]);
    }
    Ok(())
}

/// The elements of `domain` as a stream of the domain's shape.
fn sub_stream(s: &CpuStream, domain: &Domain) -> Result<CpuStream, BrookError> {
    let data = region(s, domain, domain.len() * s.floats_per_element())?;
    Ok(CpuStream::from_data(s.widths(), &domain.shape(), &data)?)
}

fn check_len(expected: usize, got: usize) -> Result<(), BrookError> {
    if expected == got {
        Ok(())
    } else {
        Err(StreamError::Size { expected, got }.into())
    }
}

/// The CPU form of a ScatterOp/GatherOp combiner, a reduction's computing in `math`.
fn combine<'a>(op: &Combiner<'a>, math: MathMode) -> Result<ScatterCombine<'a>, BrookError> {
    Ok(match op {
        Combiner::Replace => ScatterCombine::Replace,
        Combiner::Add => ScatterCombine::Add,
        Combiner::Min => ScatterCombine::Min,
        Combiner::Max => ScatterCombine::Max,
        Combiner::Reduce {
            program, function, ..
        } => {
            let program = cpu_program(*program)?;
            ScatterCombine::Reduce(
                &program.compiled.module,
                program.reduction(*function, math)?,
            )
        }
    })
}

/// Whether a kernel parameter is written by the call (`out`, or `vout` filled by `push`).
fn is_output(class: ParamClass) -> bool {
    matches!(class, ParamClass::Out | ParamClass::Vout { .. })
}

impl From<CpuError> for BrookError {
    fn from(e: CpuError) -> BrookError {
        match e {
            CpuError::Stream(e) => e.into(),
            CpuError::Unsupported(message) => BrookError::Unsupported {
                call: "the CPU backend".into(),
                message,
            },
            e => BrookError::backend("CPU", e),
        }
    }
}

impl CpuBackend {
    /// A kernel call's time limit as its engines check it.
    fn watchdog(&self) -> Watchdog {
        self.time_limit
            .get()
            .map_or_else(Watchdog::default, Watchdog::limited)
    }
}

/// Runs `f` on a kernel call's arguments as the engines take them. Inputs that are domains are
/// read from a copy of the sub-stream; an input that is also an output of this call (in place)
/// from a copy of the stream, so every element sees the old values. Copies first: no output is
/// borrowed mutably yet. An output domain is written into a copy of the region, copied back
/// after `f`: elements the kernel discards keep their values, the rest of the stream is
/// untouched.
fn with_kernel_args<R>(
    call: &KernelCall,
    f: impl FnOnce(&mut [CpuArg]) -> Result<R, BrookError>,
) -> Result<R, BrookError> {
    let func = call.function();
    let name = CallName("kernel", &func.name);
    let args = call.args;
    let aliases_output = |s: &StreamArg| {
        args.iter()
            .zip(&func.params)
            .any(|(a, p)| is_output(p.class) && a.stream().is_some_and(|o| o.same_storage(s)))
    };
    let mut copies: Vec<Option<CpuStream>> = Vec::with_capacity(args.len());
    for (arg, param) in args.iter().zip(&func.params) {
        let copy = match arg.stream() {
            Some(s) if s.iter.is_none() => {
                let d = data(s.storage, &name)?;
                match s.domain {
                    Some(domain) => Some(sub_stream(&*borrow(d, &name)?, domain)?),
                    None if !is_output(param.class) && aliases_output(s) => {
                        Some(borrow(d, &name)?.clone())
                    }
                    None => None,
                }
            }
            _ => None,
        };
        copies.push(copy);
    }
    let mut held = Vec::with_capacity(args.len());
    for ((arg, param), copy) in args.iter().zip(&func.params).zip(copies.iter_mut()) {
        held.push(match (arg, copy) {
            (_, Some(copy)) => {
                if is_output(param.class) {
                    Held::Region(copy)
                } else {
                    Held::Copy(copy)
                }
            }
            (BackendArg::Constant(v), None) => Held::Constant(v),
            (BackendArg::Stream(s), None) => match storage(s.storage, &name)? {
                CpuStorage::Iter(it) => Held::Iter(it),
                CpuStorage::Data(d) if is_output(param.class) => Held::Out(borrow_mut(d, &name)?),
                CpuStorage::Data(d) => Held::Input(borrow(d, &name)?),
            },
        });
    }
    let mut cpu_args: Vec<CpuArg> = held
        .iter_mut()
        .zip(&func.params)
        .map(|(h, p)| {
            let input: &CpuStream = match h {
                Held::Constant(v) => return CpuArg::Constant(v.to_vec()),
                Held::Iter(it) => return CpuArg::Iter(it),
                Held::Out(o) => return CpuArg::Out(o),
                Held::Region(r) => return CpuArg::Out(r),
                Held::Input(i) => i,
                Held::Copy(c) => c,
            };
            if matches!(p.class, ParamClass::Gather { .. }) {
                CpuArg::Gather(input)
            } else {
                CpuArg::Stream(input)
            }
        })
        .collect();
    let result = f(&mut cpu_args)?;
    drop(cpu_args);
    drop(held);
    for ((arg, param), copy) in args.iter().zip(&func.params).zip(&copies) {
        if let (true, Some(s), Some(region)) = (is_output(param.class), arg.stream(), copy) {
            if let Some(domain) = s.domain {
                let mut whole = borrow_mut(data(s.storage, &name)?, &name)?;
                set_region(&mut whole, domain, region.data())?;
            }
        }
    }
    Ok(result)
}

/// Runs `f` on a reduction's constant and gather arguments as the engines take them and its
/// target; returns `f`'s result and the target as the trace names it.
fn with_reduce_args<R>(
    call: &ReduceCall,
    output: ReduceOutput,
    f: impl FnOnce(&mut [CpuArg], ReduceTarget) -> Result<R, BrookError>,
) -> Result<(R, String), BrookError> {
    let name = CallName("reduction", &call.function().name);
    let held = call
        .extra
        .iter()
        .map(|a| match a {
            BackendArg::Stream(s) => Ok(Some(borrow(data(s.storage, &name)?, &name)?)),
            BackendArg::Constant(_) => Ok(None),
        })
        .collect::<Result<Vec<_>, BrookError>>()?;
    let mut cpu_args: Vec<CpuArg> = call
        .extra
        .iter()
        .zip(&held)
        .map(|(a, h)| match (a, h) {
            (_, Some(g)) => CpuArg::Gather(g),
            (BackendArg::Constant(v), None) => CpuArg::Constant(v.to_vec()),
            (BackendArg::Stream(_), None) => unreachable!("every stream is held above"),
        })
        .collect();
    match output {
        ReduceOutput::Value(dst) => {
            let r = f(&mut cpu_args, ReduceTarget::Value(dst))?;
            Ok((r, "a value".to_string()))
        }
        ReduceOutput::Stream(out) => {
            let mut out = borrow_mut(data(out.storage, &name)?, &name)?;
            let shape = brook_core::fmt_shape(out.shape());
            let r = f(&mut cpu_args, ReduceTarget::Stream(&mut out))?;
            Ok((r, shape))
        }
    }
}
