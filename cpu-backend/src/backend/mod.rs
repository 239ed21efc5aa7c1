//! The CPU reference backend behind brook-core's `Backend` trait: streams in host memory,
//! kernels run by [`KernelPlan`], reductions, scatters and gather-ops by [`run_reduce`],
//! [`run_scatter`] and [`run_gather_op`]. Calls arrive checked by the runtime; this module
//! only marshals them (domains and in-place inputs become copies) and applies the write mask.

mod mask;

use std::any::Any;
use std::cell::{Ref, RefCell, RefMut};
use std::collections::HashMap;
use std::fmt::Display;
use std::rc::Rc;

use brook_core::call::CallName;
use brook_core::{
    Backend, BackendArg, BackendProgram, BackendStream, BrookError, Combiner, Compiled, Domain,
    ElementFormat, GatherOpCall, IterSpec, KernelCall, ReduceCall, ReduceOutput, ScatterCall,
    StreamArg, StreamError, TraceEntry,
};
use brook_frontend::ir::{FunctionId, ParamClass};

use crate::error::CpuError;
use crate::{
    run_gather_op, run_reduce, run_scatter, CpuArg, CpuIter, CpuStream, KernelPlan, ReduceTarget,
    ScatterCombine, Watchdog,
};
use mask::CpuMasking;

/// Brook on the host's cores.
#[derive(Default)]
pub struct CpuBackend {
    masking: CpuMasking,
    /// How long one kernel call may run (`Runtime::set_time_limit`).
    time_limit: std::cell::Cell<Option<std::time::Duration>>,
}

/// A program on the CPU: the checked IR and each kernel's plan, compiled on first call.
struct CpuProgram {
    compiled: Rc<Compiled>,
    plans: RefCell<HashMap<FunctionId, Rc<KernelPlan>>>,
}

impl CpuProgram {
    fn plan(&self, kernel: FunctionId) -> Rc<KernelPlan> {
        self.plans
            .borrow_mut()
            .entry(kernel)
            .or_insert_with(|| Rc::new(KernelPlan::new(&self.compiled.module, kernel)))
            .clone()
    }
}

enum CpuStorage {
    Data(RefCell<CpuStream>),
    Iter(CpuIter),
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
        format!("CPU: {} threads", rayon::current_num_threads())
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
        Ok(Box::new(CpuStorage::Iter(CpuIter {
            shape: spec.shape().to_vec(),
            components: spec.components(),
            start: spec.start(),
            end: spec.end(),
        })))
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
        Ok(Box::new(CpuProgram {
            compiled: program.clone(),
            plans: RefCell::new(HashMap::new()),
        }))
    }

    fn run_kernel(&self, call: &KernelCall) -> Result<Vec<usize>, BrookError> {
        let program = cpu_program(call.program)?;
        let func = call.function();
        let name = CallName("kernel", &func.name);
        let args = call.args;
        // Inputs that are domains are read from a copy of the sub-stream; an input that is also
        // an output of this call (in place) from a copy of the stream, so every element sees
        // the old values. Copies first: no output is borrowed mutably yet. An output domain is
        // written into a copy of the region, copied back after the call: elements the kernel
        // discards keep their values, the rest of the stream is untouched.
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
                    CpuStorage::Data(d) if is_output(param.class) => {
                        Held::Out(borrow_mut(d, &name)?)
                    }
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
        let plan = program.plan(call.kernel);
        let module = &program.compiled.module;
        let counts = std::cell::Cell::new(Vec::new());
        let watchdog = self
            .time_limit
            .get()
            .map_or_else(Watchdog::default, Watchdog::limited);
        let run = |a: &mut [CpuArg]| plan.run_watched(module, a, watchdog).map(|c| counts.set(c));
        if call.mask.masked || call.mask.counting {
            // Every output of a call has the first one's shape and place (checked by the
            // runtime), so the first output masks them all.
            let place = args.iter().zip(&func.params).find_map(|(a, p)| match a {
                BackendArg::Stream(s) if p.class == ParamClass::Out => Some(s),
                _ => None,
            });
            let domain = place.and_then(|s| s.domain.map(|d| (s.shape, d)));
            self.masking.run(call.mask, &mut cpu_args, domain, run)?;
        } else {
            run(&mut cpu_args)?;
        }
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
        Ok(counts.take())
    }

    fn reduce(&self, call: &ReduceCall, output: ReduceOutput) -> Result<(), BrookError> {
        let module = &cpu_program(call.program)?.compiled.module;
        let name = CallName("reduction", &call.function().name);
        let input = borrow(data(call.input.storage, &name)?, &name)?;
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
            ReduceOutput::Value(dst) => run_reduce(
                module,
                call.function,
                &input,
                &mut cpu_args,
                ReduceTarget::Value(dst),
            )?,
            ReduceOutput::Stream(out) => {
                let mut out = borrow_mut(data(out.storage, &name)?, &name)?;
                run_reduce(
                    module,
                    call.function,
                    &input,
                    &mut cpu_args,
                    ReduceTarget::Stream(&mut out),
                )?
            }
        }
        Ok(())
    }

    fn scatter(&self, call: &ScatterCall) -> Result<(), BrookError> {
        let name: &dyn Display = &"streamScatterOp";
        let index = borrow(data(call.index.storage, name)?, name)?;
        let elements = borrow(data(call.data.storage, name)?, name)?;
        let mut dst = borrow_mut(data(call.dst.storage, name)?, name)?;
        Ok(run_scatter(
            &mut dst,
            &index,
            &elements,
            combine(&call.op)?,
        )?)
    }

    fn gather_op(&self, call: &GatherOpCall) -> Result<(), BrookError> {
        let name: &dyn Display = &"streamGatherOp";
        let index = borrow(data(call.index.storage, name)?, name)?;
        let mut values = borrow_mut(data(call.data.storage, name)?, name)?;
        let mut dst = borrow_mut(data(call.dst.storage, name)?, name)?;
        let update = match &call.update {
            Some((op, operand)) => Some((combine(op)?, *operand)),
            None => None,
        };
        Ok(run_gather_op(&mut dst, &index, &mut values, update)?)
    }

    fn set_write_mask(&self, mask: &StreamArg) -> Result<(), BrookError> {
        let name: &dyn Display = &"streamSetWriteMask";
        self.masking.set(&*borrow(data(mask.storage, name)?, name)?);
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

    /// The CPU backend runs the IR directly: there are no passes to record.
    fn set_time_limit(&self, limit: Option<std::time::Duration>) -> Result<(), BrookError> {
        self.time_limit.set(limit);
        Ok(())
    }

    fn set_trace(&self, _: bool) {}

    fn take_trace(&self) -> Vec<TraceEntry> {
        Vec::new()
    }

    fn finish(&self) {}

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A call argument with the borrow that keeps it valid for the call.
enum Held<'a> {
    Constant(&'a [f32]),
    Iter(&'a CpuIter),
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

/// The CPU form of a ScatterOp/GatherOp combiner.
fn combine<'a>(op: &Combiner<'a>) -> Result<ScatterCombine<'a>, BrookError> {
    Ok(match op {
        Combiner::Replace => ScatterCombine::Replace,
        Combiner::Add => ScatterCombine::Add,
        Combiner::Min => ScatterCombine::Min,
        Combiner::Max => ScatterCombine::Max,
        Combiner::Reduce {
            program, function, ..
        } => ScatterCombine::Reduce(&cpu_program(*program)?.compiled.module, *function),
    })
}

/// Whether a kernel parameter is written by the call (`out`, or `vout` filled by `push`).
fn is_output(class: ParamClass) -> bool {
    matches!(class, ParamClass::Out | ParamClass::Vout { .. })
}

impl From<CpuError> for BrookError {
    fn from(e: CpuError) -> BrookError {
        match e {
            CpuError::InvalidShape { .. } => StreamError::Shape(e.to_string()).into(),
            CpuError::InvalidWidths { .. } => StreamError::Format(e.to_string()).into(),
            CpuError::HostSize { expected, got, .. } => StreamError::Size { expected, got }.into(),
            CpuError::ArgCount {
                function,
                expected,
                got,
            } => BrookError::ArgumentCount {
                call: format!("`{function}`"),
                expected,
                got,
            },
            CpuError::ArgClass {
                ref function,
                ref param,
                ..
            }
            | CpuError::ElementSize {
                ref function,
                ref param,
                ..
            }
            | CpuError::Iterator {
                ref function,
                ref param,
                ..
            } => BrookError::ArgumentType {
                call: format!("`{function}`"),
                param: param.clone(),
                message: e.to_string(),
            },
            CpuError::OutputShapes { ref function, .. }
            | CpuError::VoutCapacity { ref function, .. }
            | CpuError::Reduce { ref function, .. } => BrookError::ShapeMismatch {
                call: format!("`{function}`"),
                message: e.to_string(),
            },
            CpuError::VoutShape(ref function) => BrookError::ShapeMismatch {
                call: format!("kernel `{function}`"),
                message: e.to_string(),
            },
            CpuError::Indexed { op, .. } => BrookError::ArgumentType {
                call: op.into(),
                param: String::new(),
                message: e.to_string(),
            },
            CpuError::Unsupported(message) => BrookError::Unsupported {
                call: "the CPU backend".into(),
                message,
            },
            e => BrookError::backend("CPU", e),
        }
    }
}
