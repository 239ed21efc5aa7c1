//! Running kernel calls on GL: choose the variant, fetch or build its programs, draw each pass.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use brook_frontend::ir::{FunctionId, Module};
use brook_glsl::{generate_kernel, SourceText, Target, Variant};
use brook_texture_streams::{GlContext, Stream, Texture};

use crate::args::{variant_for, KernelArg};
use crate::draw::{draw_pass, sampled_textures};
use crate::error::PassError;
use crate::linked::LinkedKernel;
use crate::reduce::ReduceCache;
use crate::uniforms::set_uniform;

/// A checked Brook module with a process-unique identity, so compiled programs can be cached
/// per (module, kernel, variant) without hashing the IR on every call.
pub struct KernelModule {
    pub(crate) id: u64,
    module: Module,
    source: Option<SourceText>,
}

impl KernelModule {
    pub fn new(module: Module, source: Option<SourceText>) -> KernelModule {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        KernelModule {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            module,
            source,
        }
    }

    pub fn module(&self) -> &Module {
        &self.module
    }

    pub fn source(&self) -> Option<&SourceText> {
        self.source.as_ref()
    }
}

type CacheKey = (u64, FunctionId, Variant);

/// Runs kernels on one GL context, compiling each distinct shader once.
pub struct KernelRunner {
    pub(crate) ctx: Rc<GlContext>,
    pub(crate) target: Target,
    programs: RefCell<HashMap<CacheKey, Rc<LinkedKernel>>>,
    pub(crate) reductions: ReduceCache,
}

impl KernelRunner {
    pub fn new(ctx: &Rc<GlContext>) -> KernelRunner {
        let target = Target {
            profile: crate::linked::profile(ctx),
            max_draw_buffers: ctx.caps().max_draw_buffers,
        };
        KernelRunner {
            ctx: ctx.clone(),
            target,
            programs: RefCell::new(HashMap::new()),
            reductions: ReduceCache::default(),
        }
    }

    pub fn context(&self) -> &Rc<GlContext> {
        &self.ctx
    }

    /// Distinct programs compiled so far (one per kernel variant or reduction step).
    pub fn compiled_variants(&self) -> usize {
        self.programs.borrow().len() + self.reductions.compiled()
    }

    /// The GLSL passes a call with these arguments runs, without running it.
    pub fn plan(
        &self,
        module: &KernelModule,
        kernel: FunctionId,
        args: &[KernelArg],
    ) -> Result<brook_glsl::KernelProgram, PassError> {
        let func = module.module.func(kernel);
        let outputs = outputs(args);
        let shape = output_shape(&func.name, &outputs)?;
        let variant =
            variant_for(func, args, shape).map_err(|message| call_error(&func.name, message))?;
        Ok(generate_kernel(
            &module.module,
            kernel,
            &variant,
            &self.target,
            module.source(),
        )?)
    }

    /// Runs `kernel` over its output streams.
    pub fn run(
        &self,
        module: &KernelModule,
        kernel: FunctionId,
        args: &[KernelArg],
    ) -> Result<(), PassError> {
        let func = module.module.func(kernel);
        let outputs = outputs(args);
        let shape = output_shape(&func.name, &outputs)?;
        let variant =
            variant_for(func, args, shape).map_err(|message| call_error(&func.name, message))?;
        reject_in_place(&func.name, args, &outputs)?;
        self.ctx.make_current()?;
        let linked = self.linked(module, kernel, variant)?;
        let out_layout = outputs[0].layout();
        for pass in &linked.passes {
            let targets: Vec<&Texture> = pass
                .plan
                .outputs
                .iter()
                .map(|m| match args[m.param as usize] {
                    KernelArg::Out(s) => texture(s, m.member),
                    _ => unreachable!(
                        "variant_for checked that output parameters get output streams"
                    ),
                })
                .collect::<Result<_, _>>()
                .map_err(|message| call_error(&func.name, message))?;
            let inputs =
                sampled_textures(pass, args).map_err(|message| call_error(&func.name, message))?;
            draw_pass(
                &self.ctx,
                &func.name,
                pass,
                &targets,
                out_layout,
                &inputs,
                |gl, location, value| set_uniform(gl, location, value, func, args, out_layout),
            )?;
        }
        self.ctx
            .check_error(&format!("running kernel `{}`", func.name))?;
        Ok(())
    }

    fn linked(
        &self,
        module: &KernelModule,
        kernel: FunctionId,
        variant: Variant,
    ) -> Result<Rc<LinkedKernel>, PassError> {
        let key = (module.id, kernel, variant);
        if let Some(found) = self.programs.borrow().get(&key) {
            return Ok(found.clone());
        }
        let generated = generate_kernel(
            &module.module,
            kernel,
            &key.2,
            &self.target,
            module.source(),
        )?;
        let linked = Rc::new(LinkedKernel::link(&self.ctx, generated)?);
        self.programs.borrow_mut().insert(key, linked.clone());
        Ok(linked)
    }
}

fn outputs<'a>(args: &[KernelArg<'a>]) -> Vec<&'a Stream> {
    args.iter()
        .filter_map(|a| match a {
            KernelArg::Out(s) => Some(*s),
            _ => None,
        })
        .collect()
}

fn output_shape<'a>(kernel: &str, outputs: &[&'a Stream]) -> Result<&'a [usize], PassError> {
    let first = outputs.first().ok_or_else(|| {
        call_error(
            kernel,
            "a kernel call needs at least one output stream".into(),
        )
    })?;
    let shape = first.layout().shape();
    if let Some(other) = outputs.iter().find(|s| s.layout().shape() != shape) {
        return Err(call_error(
            kernel,
            format!(
                "all output streams of one call must have the same shape, but got {:?} and {:?}",
                shape,
                other.layout().shape()
            ),
        ));
    }
    Ok(shape)
}

/// GL cannot sample a texture while drawing into it.
fn reject_in_place(kernel: &str, args: &[KernelArg], outputs: &[&Stream]) -> Result<(), PassError> {
    for arg in args {
        if let KernelArg::Stream(s) | KernelArg::Gather(s) = arg {
            if outputs.iter().any(|o| std::ptr::eq(*o, *s)) {
                return Err(call_error(
                    kernel,
                    "a stream that is both read and written by one call (in place) is not supported on GL yet; write to another stream and swap".into(),
                ));
            }
        }
    }
    Ok(())
}

pub(crate) fn texture(stream: &Stream, member: u32) -> Result<&Texture, String> {
    stream.textures().get(member as usize).ok_or_else(|| {
        format!("the stream has no member {member}: its element type does not match the parameter")
    })
}

pub(crate) fn call_error(kernel: &str, message: String) -> PassError {
    PassError::Call {
        kernel: kernel.to_string(),
        message,
    }
}
