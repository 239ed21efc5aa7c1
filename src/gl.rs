//! The GL backend: streams in float textures, kernels as fragment-shader passes.

use std::any::Any;
use std::cell::RefCell;
use std::rc::Rc;

use brook_frontend::ir::{FunctionId, ParamClass};
use brook_glsl::KernelProgram;
use brook_passes::{
    KernelArg, KernelModule, KernelRunner, ReduceInto, ScatterWith, StreamArg, TraceEntry,
};
use brook_texture_streams::{Domain, ElementFormat, GlContext, IterSpec, Stream as GlStream};
use glow::HasContext;

use crate::backend::{
    Backend, BackendArg, BackendProgram, BackendReduceTarget, BackendScatterOp, BackendStream,
};
use crate::error::BrookError;
use crate::program::Compiled;

pub struct GlBackend {
    runner: KernelRunner,
}

impl GlBackend {
    pub fn new(ctx: Rc<GlContext>) -> GlBackend {
        GlBackend {
            runner: KernelRunner::new(&ctx),
        }
    }
}

/// GL storage of one user stream: textures, or an iterator computed in the shader.
enum GlStorage {
    Textures(RefCell<GlStream>),
    Iter(IterSpec),
}

/// The textures and layout behind a GL stream's storage; `None` for an iterator (computed in
/// the shader, it has no texture) or a stream of another backend.
pub(crate) fn texture_stream(any: &dyn Any) -> Option<std::cell::Ref<'_, GlStream>> {
    match any.downcast_ref::<GlStorage>()? {
        GlStorage::Textures(s) => Some(s.borrow()),
        GlStorage::Iter(_) => None,
    }
}

fn storage(any: &dyn Any) -> Result<&GlStorage, BrookError> {
    any.downcast_ref::<GlStorage>()
        .ok_or_else(|| BrookError::Usage("this stream does not belong to the GL runtime".into()))
}

impl Backend for GlBackend {
    fn name(&self) -> &'static str {
        "gl"
    }

    fn describe(&self) -> String {
        let caps = self.runner.context().caps();
        format!("GL: {} ({})", caps.renderer, caps.version)
    }

    fn create_stream(
        &self,
        format: &ElementFormat,
        shape: &[usize],
    ) -> Result<BackendStream, BrookError> {
        let stream = GlStream::new(self.runner.context(), format.clone(), shape)?;
        Ok(Box::new(GlStorage::Textures(RefCell::new(stream))))
    }

    fn create_iter(&self, spec: &IterSpec) -> Result<BackendStream, BrookError> {
        Ok(Box::new(GlStorage::Iter(spec.clone())))
    }

    fn read(
        &self,
        stream: &dyn Any,
        domain: Option<&Domain>,
        data: &[f32],
    ) -> Result<(), BrookError> {
        match storage(stream)? {
            GlStorage::Textures(s) => match domain {
                None => s.borrow_mut().read(data)?,
                Some(d) => s.borrow_mut().read_domain(d, data)?,
            },
            GlStorage::Iter(_) => {
                return Err(BrookError::Usage(
                    "an iterator stream cannot be read into".into(),
                ))
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
            GlStorage::Textures(s) => match domain {
                None => s.borrow().write(out)?,
                Some(d) => s.borrow().write_domain(d, out)?,
            },
            // The same f32 formula the shaders evaluate, so no texture is needed.
            GlStorage::Iter(spec) => crate::host_values::write_iter(spec, domain, out)?,
        }
        Ok(())
    }

    fn prepare(&self, program: &Rc<Compiled>) -> Result<BackendProgram, BrookError> {
        Ok(Box::new(KernelModule::new(
            program.module.clone(),
            Some(program.source.clone()),
        )))
    }

    fn run_kernel(
        &self,
        program: &dyn Any,
        kernel: FunctionId,
        args: &[BackendArg],
    ) -> Result<Vec<usize>, BrookError> {
        let module = kernel_module(program)?;
        let ran = with_kernel_args(module, kernel, args, |kernel_args| {
            Ok(self.runner.run(module, kernel, kernel_args)?)
        })?;
        // In place: the call drew into scratch streams; they become the streams now that the
        // call's borrows are over (the old textures drop with the scratch values).
        for mut r in ran.replacements {
            if let Some((GlStorage::Textures(cell), _)) = args[r.param]
                .stream()
                .map(|(s, d)| storage(s).map(|st| (st, d)))
                .transpose()?
            {
                std::mem::swap(&mut *cell.borrow_mut(), &mut r.stream);
            }
        }
        Ok(ran.vout_counts)
    }

    fn scatter(
        &self,
        dst: &dyn Any,
        index: &dyn Any,
        data: &dyn Any,
        op: BackendScatterOp,
    ) -> Result<(), BrookError> {
        let dst = textures(dst, "scattered into")?.borrow();
        let index = textures(index, "a scatter index")?.borrow();
        let data = textures(data, "scattered")?.borrow();
        Ok(self
            .runner
            .scatter(&dst, &index, &data, scatter_with(op)?)?)
    }

    fn gather_op(
        &self,
        dst: &dyn Any,
        index: &dyn Any,
        data: &dyn Any,
        update: Option<(BackendScatterOp, &[f32])>,
    ) -> Result<(), BrookError> {
        let dst = textures(dst, "gathered into")?.borrow();
        let index = textures(index, "a gather-op index")?.borrow();
        let data = textures(data, "gathered and updated")?.borrow();
        let update = match update {
            Some((op, operand)) => Some((scatter_with(op)?, operand)),
            None => None,
        };
        Ok(self.runner.gather_op(&dst, &index, &data, update)?)
    }

    fn set_write_mask(&self, mask: &dyn Any) -> Result<(), BrookError> {
        let mask = textures(mask, "a write mask")?.borrow();
        Ok(self.runner.set_write_mask(&mask)?)
    }

    fn enable_write_mask(&self, on: bool) -> Result<(), BrookError> {
        Ok(self.runner.enable_write_mask(on)?)
    }

    fn begin_write_query(&self) -> Result<(), BrookError> {
        Ok(self.runner.begin_write_query()?)
    }

    fn end_write_query(&self) -> Result<u64, BrookError> {
        Ok(self.runner.end_write_query()?)
    }

    fn swap(&self, a: &dyn Any, b: &dyn Any) -> Result<(), BrookError> {
        let (GlStorage::Textures(a), GlStorage::Textures(b)) = (storage(a)?, storage(b)?) else {
            return Err(BrookError::Usage(
                "streamSwap: an iterator stream has no storage to swap".into(),
            ));
        };
        std::mem::swap(&mut *a.borrow_mut(), &mut *b.borrow_mut());
        let names = |s: &GlStream| s.textures().iter().map(|t| t.raw().0.get()).collect();
        self.runner.record(|| TraceEntry::Swap {
            first: names(&a.borrow()),
            second: names(&b.borrow()),
        });
        Ok(())
    }

    fn set_trace(&self, on: bool) {
        self.runner.set_trace(on);
    }

    fn take_trace(&self) -> Vec<TraceEntry> {
        self.runner.take_trace()
    }

    fn reduce(
        &self,
        program: &dyn Any,
        reduce_fn: FunctionId,
        input: &dyn Any,
        extra: &[BackendArg],
        target: BackendReduceTarget,
    ) -> Result<(), BrookError> {
        let module = kernel_module(program)?;
        let input = textures(input, "reduced")?.borrow();
        let gathers = extra
            .iter()
            .map(|a| match a {
                BackendArg::Stream(s) => textures(*s, "gathered by a reduction").map(Some),
                BackendArg::Constant(_) => Ok(None),
                BackendArg::Domain(..) => Err(BrookError::Usage(
                    "a domain cannot be passed to a reduction; reduce a stream of the domain's shape".into(),
                )),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let gathers: Vec<Option<std::cell::Ref<GlStream>>> =
            gathers.iter().map(|g| g.map(RefCell::borrow)).collect();
        let extra_args: Vec<KernelArg> = extra
            .iter()
            .zip(&gathers)
            .map(|(a, g)| match (a, g) {
                (_, Some(g)) => KernelArg::Gather(StreamArg::whole(g)),
                (BackendArg::Constant(v), None) => KernelArg::Constant(v),
                (_, None) => unreachable!("every stream is borrowed above, domains refused"),
            })
            .collect();
        match target {
            BackendReduceTarget::Value(dst) => {
                self.runner.reduce(
                    module,
                    reduce_fn,
                    &input,
                    &extra_args,
                    ReduceInto::Value(dst),
                )?;
            }
            BackendReduceTarget::Stream(out) => {
                let out = textures(out, "written by a reduction")?.borrow();
                self.runner.reduce(
                    module,
                    reduce_fn,
                    &input,
                    &extra_args,
                    ReduceInto::Stream(&out),
                )?;
            }
        }
        Ok(())
    }

    fn finish(&self) {
        let ctx = self.runner.context();
        // Nothing can be queued on a context that cannot be made current.
        if ctx.make_current().is_ok() {
            // SAFETY: the context was just made current on this thread.
            unsafe { ctx.gl().finish() };
        }
    }

    fn gl_context(&self) -> Option<&Rc<GlContext>> {
        Some(self.runner.context())
    }

    fn glsl_plan(
        &self,
        program: &dyn Any,
        kernel: FunctionId,
        args: &[BackendArg],
    ) -> Result<Option<KernelProgram>, BrookError> {
        let module = kernel_module(program)?;
        with_kernel_args(module, kernel, args, |kernel_args| {
            Ok(Some(self.runner.plan(module, kernel, kernel_args)?))
        })
    }
}

/// The textures of a stream that is not an iterator.
fn textures<'a>(any: &'a dyn Any, role: &str) -> Result<&'a RefCell<GlStream>, BrookError> {
    match storage(any)? {
        GlStorage::Textures(t) => Ok(t),
        GlStorage::Iter(_) => Err(BrookError::Usage(format!(
            "an iterator cannot be {role}; copy it into a stream with a kernel first"
        ))),
    }
}

fn kernel_module(program: &dyn Any) -> Result<&KernelModule, BrookError> {
    program
        .downcast_ref::<KernelModule>()
        .ok_or_else(|| BrookError::Usage("this program was compiled for another runtime".into()))
}

/// Borrows the call's streams as the pass executor's arguments (their kind from the kernel's
/// parameters) for the duration of `f`.
fn with_kernel_args<T>(
    module: &KernelModule,
    kernel: FunctionId,
    args: &[BackendArg],
    f: impl FnOnce(&[KernelArg]) -> Result<T, BrookError>,
) -> Result<T, BrookError> {
    let func = module.module().func(kernel);
    let stores = args
        .iter()
        .map(|a| match a.stream() {
            Some((s, domain)) => storage(s).map(|st| Some((st, domain))),
            None => Ok(None),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let borrows: Vec<Option<std::cell::Ref<GlStream>>> = stores
        .iter()
        .map(|s| match s {
            Some((GlStorage::Textures(t), _)) => Some(t.borrow()),
            _ => None,
        })
        .collect();
    let kernel_args: Vec<KernelArg> = args
        .iter()
        .zip(&stores)
        .zip(&borrows)
        .zip(&func.params)
        .map(
            |(((arg, store), borrowed), param)| match (arg, store, borrowed) {
                (BackendArg::Constant(v), _, _) => KernelArg::Constant(v),
                (_, Some((GlStorage::Iter(spec), _)), _) => KernelArg::Iter(spec),
                (_, Some((_, domain)), Some(t)) => {
                    let s = StreamArg {
                        stream: t,
                        domain: *domain,
                    };
                    match param.class {
                        ParamClass::Out | ParamClass::Vout { .. } => KernelArg::Out(s),
                        ParamClass::Gather { .. } => KernelArg::Gather(s),
                        _ => KernelArg::Stream(s),
                    }
                }
                _ => unreachable!("every texture stream is borrowed above"),
            },
        )
        .collect();
    f(&kernel_args)
}

/// The GL form of a ScatterOp/GatherOp combiner.
fn scatter_with(op: BackendScatterOp) -> Result<ScatterWith, BrookError> {
    Ok(match op {
        BackendScatterOp::Replace => ScatterWith::Replace,
        BackendScatterOp::Add => ScatterWith::Add,
        BackendScatterOp::Min => ScatterWith::Min,
        BackendScatterOp::Max => ScatterWith::Max,
        BackendScatterOp::Reduce(program, f) => ScatterWith::Reduce(kernel_module(program)?, f),
    })
}
