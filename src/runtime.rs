//! The runtime: one backend, the streams made on it, and the kernels run there.

use std::any::Any;
use std::rc::Rc;

use brook_texture_streams::{ContextOptions, ElementFormat, GlContext, IterSpec};

use crate::arg::Arg;
use crate::backend::{Backend, BackendArg};
use crate::cpu::CpuBackend;
use crate::error::BrookError;
use crate::gl::GlBackend;
use crate::program::{Compiled, Program};
use crate::stream::Stream;
use brook_frontend::ir::{Function, FunctionId, ParamClass};
use brook_glsl::{KernelProgram, SourceText};
use brook_passes::TraceEntry;

/// Brook's runtime: where streams live and kernels run.
pub struct Runtime {
    backend: Rc<dyn Backend>,
}

/// Which backend [`Runtime::from_env`] picks from `BRT_RUNTIME`.
pub const BACKEND_NAMES: &[&str] = &["gl", "cpu"];

impl Runtime {
    /// GL on a headless EGL context (desktop GL 3.3 core): no window or display needed.
    pub fn gl() -> Result<Runtime, BrookError> {
        Runtime::gl_with(ContextOptions::default())
    }

    /// GL on a headless context with these options (ES 3.0 profile, lowered limits for tests).
    pub fn gl_with(options: ContextOptions) -> Result<Runtime, BrookError> {
        Ok(Runtime::on_context(GlContext::headless(options)?))
    }

    /// GL on a context the application made (a window's, for viz); it must be current.
    pub fn on_context(ctx: Rc<GlContext>) -> Runtime {
        Runtime {
            backend: Rc::new(GlBackend::new(ctx)),
        }
    }

    /// The CPU reference backend.
    pub fn cpu() -> Runtime {
        Runtime {
            backend: Rc::new(CpuBackend),
        }
    }

    /// The backend `BRT_RUNTIME` names (`gl` or `cpu`); `gl` when unset. An unknown name is an
    /// error rather than a silent fallback.
    pub fn from_env() -> Result<Runtime, BrookError> {
        match std::env::var("BRT_RUNTIME") {
            Err(_) => Runtime::gl(),
            Ok(name) => Runtime::named(&name),
        }
    }

    /// The backend of this name (`gl` or `cpu`).
    pub fn named(name: &str) -> Result<Runtime, BrookError> {
        match name.trim().to_ascii_lowercase().as_str() {
            "gl" | "ogl" | "opengl" => Runtime::gl(),
            "cpu" => Ok(Runtime::cpu()),
            other => Err(BrookError::Usage(format!(
                "unknown Brook backend `{other}`: expected one of {}",
                BACKEND_NAMES.join(", ")
            ))),
        }
    }

    /// `"gl"` or `"cpu"`.
    pub fn backend_name(&self) -> &'static str {
        self.backend.name()
    }

    /// The backend and the machine it runs on, for reports.
    pub fn describe(&self) -> String {
        self.backend.describe()
    }

    /// Checks Brook source; `name` appears in diagnostics and generated-code comments.
    pub fn compile(&self, source: &str, name: &str) -> Result<Program, BrookError> {
        let module = brook_frontend::compile(source, name).map_err(BrookError::Compile)?;
        let compiled = Rc::new(Compiled {
            module,
            source: SourceText {
                name: name.to_string(),
                text: source.to_string(),
            },
        });
        let prepared = self.backend.prepare(&compiled)?;
        Ok(Program { compiled, prepared })
    }

    /// A stream of `format` elements and extents `shape` (first dimension first). Its contents
    /// are undefined until read into or written by a kernel.
    pub fn stream(&self, format: ElementFormat, shape: &[usize]) -> Result<Stream, BrookError> {
        let storage = self.backend.create_stream(&format, shape)?;
        Ok(Stream {
            backend: self.backend.clone(),
            format,
            shape: shape.to_vec(),
            storage,
            is_iter: false,
        })
    }

    /// A `float`..`float4` stream (`components` 1..=4).
    pub fn stream_of(&self, components: u8, shape: &[usize]) -> Result<Stream, BrookError> {
        self.stream(ElementFormat::scalar(components)?, shape)
    }

    /// Brook's `iter float s<N> = iter(start, end)`: see `IterSpec` for the values.
    pub fn iter(&self, spec: IterSpec) -> Result<Stream, BrookError> {
        let storage = self.backend.create_iter(&spec)?;
        Ok(Stream {
            backend: self.backend.clone(),
            format: ElementFormat::scalar(spec.components())?,
            shape: spec.shape().to_vec(),
            storage,
            is_iter: true,
        })
    }

    /// Waits for all queued work (GL draws are asynchronous; reads wait by themselves).
    pub fn finish(&self) {
        self.backend.finish();
    }

    /// The GL context of a GL runtime: bind a stream's textures in your own rendering.
    pub fn gl_context(&self) -> Option<&Rc<GlContext>> {
        self.backend.gl_context()
    }

    /// The GLSL passes (shader text and bindings) that a call with these arguments runs on a
    /// GL runtime; `None` on backends without GLSL. For learning what a call becomes.
    pub fn glsl(
        &self,
        program: &Program,
        kernel: &str,
        args: &[Arg],
    ) -> Result<Option<KernelProgram>, BrookError> {
        let (id, backend_args) = self.call_args(program, kernel, args)?;
        self.backend
            .glsl_plan(program.prepared.as_ref(), id, &backend_args)
    }

    /// Runs kernel `kernel` of `program`, one argument per parameter (see [`args!`](crate::args)).
    pub fn run(&self, program: &Program, kernel: &str, args: &[Arg]) -> Result<(), BrookError> {
        let (id, backend_args) = self.call_args(program, kernel, args)?;
        self.backend
            .run_kernel(program.prepared.as_ref(), id, &backend_args)
    }

    /// Brook's `streamSwap`: exchanges the contents of two streams of the same shape and
    /// element format by swapping their storage (no copy). For ping-pong iterations.
    pub fn swap(&self, a: &Stream, b: &Stream) -> Result<(), BrookError> {
        for s in [a, b] {
            self.owns(s, "streamSwap")?;
            if s.is_iter {
                return Err(BrookError::Usage(
                    "streamSwap: an iterator stream is computed, it has no storage to swap".into(),
                ));
            }
        }
        if a.shape != b.shape || a.format != b.format {
            return Err(BrookError::Usage(format!(
                "streamSwap needs two streams of one shape and element format, got {:?} of {:?} and {:?} of {:?}",
                a.shape, a.format, b.shape, b.format
            )));
        }
        if std::ptr::addr_eq(a.storage.as_ref(), b.storage.as_ref()) {
            return Ok(());
        }
        self.backend.swap(a.storage.as_ref(), b.storage.as_ref())
    }

    /// Starts (forgetting earlier entries) or stops the pass trace: a record of what each
    /// kernel call and swap became on GL — programs, textures bound, uniforms, viewport,
    /// passes. The CPU backend records nothing.
    pub fn set_trace(&self, on: bool) {
        self.backend.set_trace(on);
    }

    /// The trace entries since tracing started or since the last take; each prints readably.
    pub fn take_trace(&self) -> Vec<TraceEntry> {
        self.backend.take_trace()
    }

    fn owns(&self, s: &Stream, what: &str) -> Result<(), BrookError> {
        if Rc::ptr_eq(&s.backend, &self.backend) {
            Ok(())
        } else {
            Err(BrookError::Usage(format!(
                "{what}: a stream made by another runtime was passed to this one"
            )))
        }
    }

    fn call_args<'a>(
        &self,
        program: &Program,
        kernel: &str,
        args: &'a [Arg],
    ) -> Result<(FunctionId, Vec<BackendArg<'a>>), BrookError> {
        let (id, func) = program
            .module()
            .function(kernel)
            .ok_or_else(|| BrookError::Usage(format!("the program has no kernel `{kernel}`")))?;
        let what = format!("kernel `{kernel}`");
        let mut backend_args = Vec::with_capacity(args.len());
        for arg in args {
            backend_args.push(match arg {
                Arg::Stream(s) => {
                    self.owns(s, &what)?;
                    BackendArg::Stream(s.storage.as_ref())
                }
                Arg::Domain(d) => {
                    self.owns(d.stream, &what)?;
                    if d.stream.is_iter {
                        return Err(BrookError::Usage(format!(
                            "{what}: a domain of an iterator stream cannot be passed to a kernel; make an iterator of the domain's range instead"
                        )));
                    }
                    if d.is_whole() {
                        BackendArg::Stream(d.stream.storage.as_ref())
                    } else {
                        BackendArg::Domain(d.stream.storage.as_ref(), &d.domain)
                    }
                }
                Arg::Constant(v) => BackendArg::Constant(v),
            });
        }
        check_aliasing(&what, func, &backend_args)?;
        Ok((id, backend_args))
    }
}

/// Brook's rule for one stream in several roles of a call: it may be an input and an output
/// (in place: every element reads the old values), but not two outputs, and not gathered and
/// written, since a gather may read any element.
fn check_aliasing(what: &str, func: &Function, args: &[BackendArg]) -> Result<(), BrookError> {
    let storage = |a: &BackendArg| a.stream().map(|(s, _)| s as *const dyn Any as *const ());
    for (i, (a, p)) in args.iter().zip(&func.params).enumerate() {
        if p.class != ParamClass::Out {
            continue;
        }
        for (j, (b, q)) in args.iter().zip(&func.params).enumerate() {
            if i == j || storage(a).is_none() || storage(a) != storage(b) {
                continue;
            }
            match q.class {
                ParamClass::Out => {
                    return Err(BrookError::Usage(format!(
                        "{what}: one stream is passed to two outputs (`{}` and `{}`)",
                        p.name, q.name
                    )))
                }
                ParamClass::Gather { .. } => {
                    return Err(BrookError::Usage(format!(
                        "{what}: stream `{}` is both gathered (`{}`) and written; Brook allows in-place calls only for plain stream inputs",
                        p.name, q.name
                    )))
                }
                _ => {}
            }
        }
    }
    Ok(())
}
