//! The CPU reference backend: streams in host memory, kernels interpreted from the IR.

use std::any::Any;
use std::cell::{Ref, RefCell, RefMut};
use std::collections::HashMap;
use std::rc::Rc;

use brook_cpu::{CpuArg, CpuIter, CpuStream, KernelPlan};
use brook_frontend::ir::{FunctionId, ParamClass};
use brook_glsl::KernelProgram;
use brook_texture_streams::{Domain, ElementFormat, GlContext, IterSpec};

use crate::backend::{Backend, BackendArg, BackendProgram, BackendStream};
use crate::error::BrookError;
use crate::host_values::{domain_elements, write_iter};
use crate::program::Compiled;

pub struct CpuBackend;

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
            Some(d) => {
                let n = s.floats_per_element();
                check_len(d.len() * n, data.len())?;
                let shape = s.shape().to_vec();
                for (k, linear) in domain_elements(&shape, d).enumerate() {
                    s.data_mut()[linear * n..(linear + 1) * n]
                        .copy_from_slice(&data[k * n..(k + 1) * n]);
                }
            }
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
                    Some(d) => {
                        let n = s.floats_per_element();
                        check_len(d.len() * n, out.len())?;
                        for (k, linear) in domain_elements(s.shape(), d).enumerate() {
                            out[k * n..(k + 1) * n]
                                .copy_from_slice(&s.data()[linear * n..(linear + 1) * n]);
                        }
                    }
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
    ) -> Result<(), BrookError> {
        let program = program.downcast_ref::<CpuProgram>().ok_or_else(|| {
            BrookError::Usage("this program was compiled for another runtime".into())
        })?;
        let compiled = &program.compiled;
        let func = compiled.module.func(kernel);
        if args.len() != func.params.len() {
            return Err(BrookError::Usage(format!(
                "kernel `{}` takes {} arguments but {} were given",
                func.name,
                func.params.len(),
                args.len()
            )));
        }
        // Outputs are borrowed mutably; an input that is also an output of this call (in place)
        // is read from a copy taken first, so every element sees the old values.
        let aliases_output = |s: &dyn Any| {
            args.iter().zip(&func.params).any(|(a, p)| {
                p.class == ParamClass::Out
                    && matches!(a, BackendArg::Stream(o) if std::ptr::addr_eq(*o, s))
            })
        };
        // Copies first: no output is borrowed mutably yet.
        let mut copies: Vec<Option<CpuStream>> = Vec::with_capacity(args.len());
        for (arg, param) in args.iter().zip(&func.params) {
            copies.push(match (*arg, param.class) {
                (BackendArg::Stream(s), class) if class != ParamClass::Out && aliases_output(s) => {
                    match storage(s)? {
                        CpuStorage::Data(d) => Some(d.borrow().clone()),
                        CpuStorage::Iter(..) => None,
                    }
                }
                _ => None,
            });
        }
        let mut held = Vec::with_capacity(args.len());
        for ((arg, param), copy) in args.iter().zip(&func.params).zip(copies) {
            if let Some(copy) = copy {
                held.push(Held::Copy(copy));
                continue;
            }
            held.push(match *arg {
                BackendArg::Constant(v) => Held::Constant(v),
                BackendArg::Stream(s) => match (storage(s)?, param.class) {
                    (CpuStorage::Iter(..), ParamClass::Out) => {
                        return Err(BrookError::Usage(format!(
                            "kernel `{}`: an iterator cannot be an output",
                            func.name
                        )))
                    }
                    (CpuStorage::Iter(_, it), _) => Held::Iter(it),
                    (CpuStorage::Data(d), ParamClass::Out) => {
                        Held::Out(d.try_borrow_mut().map_err(|_| {
                            BrookError::Usage(format!(
                                "kernel `{}`: one stream is passed to two outputs",
                                func.name
                            ))
                        })?)
                    }
                    (CpuStorage::Data(d), _) => Held::Input(d.borrow()),
                },
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
        program.plan(kernel).run(&compiled.module, &mut cpu_args)?;
        Ok(())
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

/// A call argument with the borrow that keeps it valid for the call.
enum Held<'a> {
    Constant(&'a [f32]),
    Iter(&'a CpuIter),
    Input(Ref<'a, CpuStream>),
    Copy(CpuStream),
    Out(RefMut<'a, CpuStream>),
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
