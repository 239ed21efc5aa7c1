//! The CPU reference backend: streams in host memory, kernels interpreted from the IR.

use std::any::Any;
use std::cell::{Cell, Ref, RefCell, RefMut};
use std::collections::HashMap;
use std::rc::Rc;

use brook_cpu::{
    run_gather_op, run_reduce, run_scatter, CpuArg, CpuIter, CpuStream, KernelPlan, ReduceTarget,
    ScatterCombine, Watchdog,
};
use brook_frontend::ir::{FunctionId, ParamClass};
use brook_glsl::KernelProgram;
use brook_passes::TraceEntry;
use brook_texture_streams::{Domain, ElementFormat, GlContext, IterSpec};

use crate::backend::{
    Backend, BackendArg, BackendProgram, BackendReduceTarget, BackendScatterOp, BackendStream,
};
use crate::cpu_mask::CpuMasking;
use crate::error::BrookError;
use crate::host_values::{domain_elements, write_iter};
use crate::program::Compiled;

#[derive(Default)]
pub struct CpuBackend {
    masking: CpuMasking,
    /// How long one kernel call may run (`Runtime::set_time_limit`).
    time_limit: Cell<Option<std::time::Duration>>,
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
    Iter(IterSpec, CpuIter),
}

fn storage(any: &dyn Any) -> Result<&CpuStorage, BrookError> {
    any.downcast_ref::<CpuStorage>()
        .ok_or_else(|| BrookError::Usage("this stream does not belong to the CPU runtime".into()))
}

fn widths(format: &ElementFormat) -> Vec<u8> {
    format.members().iter().map(|m| m.components).collect()
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
        Ok(Box::new(CpuStorage::Data(RefCell::new(CpuStream::new(
            &widths(format),
            shape,
        )?))))
    }

    fn create_iter(&self, spec: &IterSpec) -> Result<BackendStream, BrookError> {
        let iter = CpuIter {
            shape: spec.shape().to_vec(),
            components: spec.components(),
            start: spec.start(),
            end: spec.end(),
        };
        Ok(Box::new(CpuStorage::Iter(spec.clone(), iter)))
    }

    fn read(
        &self,
        stream: &dyn Any,
        domain: Option<&Domain>,
        data: &[f32],
    ) -> Result<(), BrookError> {
        let CpuStorage::Data(s) = storage(stream)? else {
            return Err(BrookError::Usage(
                "an iterator stream cannot be read into".into(),
            ));
        };
        let mut s = s.borrow_mut();
        match domain {
            None => s.read(data)?,
            Some(d) => set_region(&mut s, d, data)?,
        }
        Ok(())
    }

    fn write(
        &self,
        stream: &dyn Any,
        domain: Option<&Domain>,
        out: &mut [f32],
    ) -> Result<(), BrookError> {
        match storage(stream)? {
            CpuStorage::Iter(spec, _) => write_iter(spec, domain, out),
            CpuStorage::Data(s) => {
                let s = s.borrow();
                match domain {
                    None => s.write(out)?,
                    Some(d) => out.copy_from_slice(&region(&s, d, out.len())?),
                }
                Ok(())
            }
        }
    }

    fn prepare(&self, program: &Rc<Compiled>) -> Result<BackendProgram, BrookError> {
        Ok(Box::new(CpuProgram {
            compiled: program.clone(),
            plans: RefCell::new(HashMap::new()),
        }))
    }

    fn run_kernel(
        &self,
        program: &dyn Any,
        kernel: FunctionId,
        args: &[BackendArg],
    ) -> Result<Vec<usize>, BrookError> {
        let program = cpu_program(program)?;
        let compiled = &program.compiled;
        let func = compiled.module.func(kernel);
        // Inputs that are domains are read from a copy of the sub-stream; an input that is also
        // an output of this call (in place) from a copy of the stream, so every element sees
        // the old values. Copies first: no output is borrowed mutably yet.
        let aliases_output = |s: &dyn Any| {
            args.iter().zip(&func.params).any(|(a, p)| {
                is_output(p.class) && matches!(a.stream(), Some((o, _)) if std::ptr::addr_eq(o, s))
            })
        };
        // An output domain is written into a copy of the region, copied back after the call:
        // elements the kernel discards keep their values, the rest of the stream is untouched.
        let mut copies: Vec<Option<CpuStream>> = Vec::with_capacity(args.len());
        for (arg, param) in args.iter().zip(&func.params) {
            let Some((s, domain)) = arg.stream() else {
                copies.push(None);
                continue;
            };
            copies.push(match (storage(s)?, domain) {
                (CpuStorage::Data(d), Some(domain)) => Some(sub_stream(&d.borrow(), domain)?),
                (CpuStorage::Data(d), None) if !is_output(param.class) && aliases_output(s) => {
                    Some(d.borrow().clone())
                }
                _ => None,
            });
        }
        let mut held = Vec::with_capacity(args.len());
        for ((arg, param), copy) in args.iter().zip(&func.params).zip(copies.iter_mut()) {
            if let Some(copy) = copy {
                held.push(if is_output(param.class) {
                    Held::Region(copy)
                } else {
                    Held::Copy(copy)
                });
                continue;
            }
            held.push(match *arg {
                BackendArg::Constant(v) => Held::Constant(v),
                BackendArg::Stream(s) | BackendArg::Domain(s, _) => {
                    match (storage(s)?, param.class) {
                        (CpuStorage::Iter(..), ParamClass::Out | ParamClass::Vout { .. }) => {
                            return Err(BrookError::Usage(format!(
                                "kernel `{}`: an iterator cannot be an output",
                                func.name
                            )))
                        }
                        (CpuStorage::Iter(_, it), _) => Held::Iter(it),
                        (CpuStorage::Data(d), ParamClass::Out | ParamClass::Vout { .. }) => {
                            Held::Out(d.try_borrow_mut().map_err(|_| {
                                BrookError::Usage(format!(
                                    "kernel `{}`: one stream is passed to two outputs",
                                    func.name
                                ))
                            })?)
                        }
                        (CpuStorage::Data(d), _) => Held::Input(d.borrow()),
                    }
                }
            });
        }
        let mut cpu_args: Vec<CpuArg> = held
            .iter_mut()
            .zip(&func.params)
            .map(|(h, p)| {
                let gather = matches!(p.class, ParamClass::Gather { .. });
                let input: &CpuStream = match h {
                    Held::Constant(v) => return CpuArg::Constant(v.to_vec()),
                    Held::Iter(it) => return CpuArg::Iter(it),
                    Held::Out(o) => return CpuArg::Out(o),
                    Held::Region(r) => return CpuArg::Out(r),
                    Held::Input(i) => i,
                    Held::Copy(c) => c,
                };
                if gather {
                    CpuArg::Gather(input)
                } else {
                    CpuArg::Stream(input)
                }
            })
            .collect();
        let plan = program.plan(kernel);
        let counts = std::cell::Cell::new(Vec::new());
        let watchdog = self
            .time_limit
            .get()
            .map_or_else(Watchdog::default, Watchdog::limited);
        let run = |a: &mut [CpuArg]| {
            plan.run_watched(&compiled.module, a, watchdog)
                .map(|c| counts.set(c))
        };
        if self.masking.active() {
            if func
                .params
                .iter()
                .any(|p| matches!(p.class, ParamClass::Vout { .. }))
            {
                return Err(BrookError::Usage(format!(
                    "kernel `{}`: write masks and write queries do not apply to kernels with vout parameters; disable the mask (end the query) first",
                    func.name
                )));
            }
            // Every output of a call has the first one's shape and domain (checked with the
            // kernel's outputs), so the first output's place masks them all.
            let whole = args.iter().zip(&func.params).find_map(|(a, p)| match a {
                BackendArg::Domain(s, d) if p.class == ParamClass::Out => Some((*s, *d)),
                _ => None,
            });
            let whole_shape = match whole {
                Some((s, _)) => Some(data(s, "written")?.borrow().shape().to_vec()),
                None => None,
            };
            let domain = whole_shape.as_deref().zip(whole.map(|(_, d)| d));
            self.masking.run(&func.name, &mut cpu_args, domain, run)?;
        } else {
            run(&mut cpu_args)?;
        }
        drop(cpu_args);
        drop(held);
        for ((arg, param), copy) in args.iter().zip(&func.params).zip(&copies) {
            if let (true, Some((s, Some(domain))), Some(region)) =
                (is_output(param.class), arg.stream(), copy)
            {
                if let CpuStorage::Data(d) = storage(s)? {
                    set_region(&mut d.borrow_mut(), domain, region.data())?;
                }
            }
        }
        Ok(counts.take())
    }

    fn reduce(
        &self,
        program: &dyn Any,
        reduce_fn: FunctionId,
        input: &dyn Any,
        extra: &[BackendArg],
        target: BackendReduceTarget,
    ) -> Result<(), BrookError> {
        let compiled = &cpu_program(program)?.compiled;
        let input = data(input, "reduced")?.borrow();
        let held = extra
            .iter()
            .map(|a| match a {
                BackendArg::Stream(s) => {
                    data(*s, "gathered by a reduction").map(|d| Some(d.borrow()))
                }
                BackendArg::Constant(_) => Ok(None),
                BackendArg::Domain(..) => Err(BrookError::Usage(
                    "a domain cannot be passed to a reduction; reduce a stream of the domain's shape".into(),
                )),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut cpu_args: Vec<CpuArg> = extra
            .iter()
            .zip(&held)
            .map(|(a, h)| match (a, h) {
                (_, Some(g)) => CpuArg::Gather(g),
                (BackendArg::Constant(v), None) => CpuArg::Constant(v.to_vec()),
                (_, None) => unreachable!("every stream is borrowed above, domains refused"),
            })
            .collect();
        let module = &compiled.module;
        match target {
            BackendReduceTarget::Value(dst) => run_reduce(
                module,
                reduce_fn,
                &input,
                &mut cpu_args,
                ReduceTarget::Value(dst),
            )?,
            BackendReduceTarget::Stream(out) => {
                let mut out = data(out, "written by a reduction")?
                    .try_borrow_mut()
                    .map_err(|_| {
                        BrookError::Usage(
                            "a reduction cannot write its own input (or a gathered) stream".into(),
                        )
                    })?;
                run_reduce(
                    module,
                    reduce_fn,
                    &input,
                    &mut cpu_args,
                    ReduceTarget::Stream(&mut out),
                )?
            }
        }
        Ok(())
    }

    fn scatter(
        &self,
        dst: &dyn Any,
        index: &dyn Any,
        data: &dyn Any,
        op: BackendScatterOp,
    ) -> Result<(), BrookError> {
        let index = self::data(index, "a scatter index")?.borrow();
        let elements = self::data(data, "scattered")?.borrow();
        let mut dst = self::data(dst, "scattered into")?.borrow_mut();
        Ok(run_scatter(&mut dst, &index, &elements, combine(op)?)?)
    }

    fn gather_op(
        &self,
        dst: &dyn Any,
        index: &dyn Any,
        data: &dyn Any,
        update: Option<(BackendScatterOp, &[f32])>,
    ) -> Result<(), BrookError> {
        let index = self::data(index, "a gather-op index")?.borrow();
        let mut data = self::data(data, "gathered and updated")?.borrow_mut();
        let mut dst = self::data(dst, "gathered into")?.borrow_mut();
        let update = match update {
            Some((op, operand)) => Some((combine(op)?, operand)),
            None => None,
        };
        Ok(run_gather_op(&mut dst, &index, &mut data, update)?)
    }

    fn set_write_mask(&self, mask: &dyn Any) -> Result<(), BrookError> {
        self.masking.set(&data(mask, "a write mask")?.borrow());
        Ok(())
    }

    fn enable_write_mask(&self, on: bool) -> Result<(), BrookError> {
        self.masking.enable(on)
    }

    fn begin_write_query(&self) -> Result<(), BrookError> {
        self.masking.begin_query()
    }

    fn end_write_query(&self) -> Result<u64, BrookError> {
        self.masking.end_query()
    }

    fn swap(&self, a: &dyn Any, b: &dyn Any) -> Result<(), BrookError> {
        let (CpuStorage::Data(a), CpuStorage::Data(b)) = (storage(a)?, storage(b)?) else {
            return Err(BrookError::Usage(
                "streamSwap: an iterator stream has no storage to swap".into(),
            ));
        };
        std::mem::swap(&mut *a.borrow_mut(), &mut *b.borrow_mut());
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

    fn gl_context(&self) -> Option<&Rc<GlContext>> {
        None
    }

    fn glsl_plan(
        &self,
        _: &dyn Any,
        _: FunctionId,
        _: &[BackendArg],
    ) -> Result<Option<KernelProgram>, BrookError> {
        Ok(None)
    }
}

fn cpu_program(program: &dyn Any) -> Result<&CpuProgram, BrookError> {
    program
        .downcast_ref::<CpuProgram>()
        .ok_or_else(|| BrookError::Usage("this program was compiled for another runtime".into()))
}

/// The data of a stream that is not an iterator.
fn data<'a>(any: &'a dyn Any, role: &str) -> Result<&'a RefCell<CpuStream>, BrookError> {
    match storage(any)? {
        CpuStorage::Data(d) => Ok(d),
        CpuStorage::Iter(..) => Err(BrookError::Usage(format!(
            "an iterator cannot be {role}; copy it into a stream with a kernel first"
        ))),
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
    for linear in domain_elements(s.shape(), domain) {
        out.extend_from_slice(&s.data()[linear * n..(linear + 1) * n]);
    }
    Ok(out)
}

/// Writes `data`, `domain`'s elements in row-major order, into that part of `s`.
fn set_region(s: &mut CpuStream, domain: &Domain, data: &[f32]) -> Result<(), BrookError> {
    let n = s.floats_per_element();
    check_len(domain.len() * n, data.len())?;
    let shape = s.shape().to_vec();
    for (k, linear) in domain_elements(&shape, domain).enumerate() {
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
        Err(BrookError::Usage(format!(
            "the host array must hold {expected} floats, got {got}"
        )))
    }
}

/// The CPU form of a ScatterOp/GatherOp combiner.
fn combine(op: BackendScatterOp) -> Result<ScatterCombine, BrookError> {
    Ok(match op {
        BackendScatterOp::Replace => ScatterCombine::Replace,
        BackendScatterOp::Add => ScatterCombine::Add,
        BackendScatterOp::Min => ScatterCombine::Min,
        BackendScatterOp::Max => ScatterCombine::Max,
        BackendScatterOp::Reduce(program, f) => {
            ScatterCombine::Reduce(&cpu_program(program)?.compiled.module, f)
        }
    })
}

/// Whether a kernel parameter is written by the call (`out`, or `vout` filled by `push`).
fn is_output(class: ParamClass) -> bool {
    matches!(class, ParamClass::Out | ParamClass::Vout { .. })
}
