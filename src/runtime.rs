//! The runtime: one backend, the streams made on it, and the kernels run there.

use std::any::Any;
use std::rc::Rc;

use brook_texture_streams::{ContextOptions, ElementFormat, GlContext, IterSpec};

use crate::arg::Arg;
use crate::backend::{Backend, BackendArg, BackendReduceTarget};
use crate::cpu::CpuBackend;
use crate::error::BrookError;
use crate::gl::GlBackend;
use crate::program::{Compiled, Program};
use crate::program_cache::ProgramCache;
use crate::stream::Stream;
use brook_frontend::ir::{Function, FunctionId, FunctionKind, ParamClass};
use brook_glsl::{KernelProgram, SourceText};
use brook_passes::TraceEntry;

/// Brook's runtime: where streams live and kernels run.
pub struct Runtime {
    pub(crate) backend: Rc<dyn Backend>,
    pub(crate) programs: ProgramCache,
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
            programs: ProgramCache::default(),
        }
    }

    /// The CPU reference backend.
    pub fn cpu() -> Runtime {
        Runtime {
            backend: Rc::new(CpuBackend::default()),
            programs: ProgramCache::default(),
        }
    }

    /// The backend `BRT_RUNTIME` names (`gl` or `cpu`); `gl` when unset. An unknown name is an
    /// error rather than a silent fallback; see [`Runtime::from_env_or_cpu`] for the original's
    /// fallback.
    pub fn from_env() -> Result<Runtime, BrookError> {
        Runtime::from_setting(env_setting().as_deref())
    }

    /// Like [`Runtime::from_env`], but as the original runtime did: when GL cannot be had
    /// (no driver, no EGL), warns on stderr and runs on the CPU backend. An unknown name is
    /// still an error.
    pub fn from_env_or_cpu() -> Result<Runtime, BrookError> {
        Runtime::from_setting_or_cpu(env_setting().as_deref())
    }

    /// The backend a `BRT_RUNTIME` value selects (`None`: unset, which means `gl`).
    pub fn from_setting(value: Option<&str>) -> Result<Runtime, BrookError> {
        Runtime::named(value.unwrap_or("gl"))
    }

    /// [`Runtime::from_setting`] with the fallback of [`Runtime::from_env_or_cpu`].
    pub fn from_setting_or_cpu(value: Option<&str>) -> Result<Runtime, BrookError> {
        with_fallback(value.unwrap_or("gl"), Runtime::named)
    }

    /// The backend of this name (`gl` or `cpu`; `ogl`/`opengl` are `gl`; case and surrounding
    /// blanks ignored).
    pub fn named(name: &str) -> Result<Runtime, BrookError> {
        match canonical(name)? {
            "gl" => Runtime::gl(),
            _ => Ok(Runtime::cpu()),
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
            source: SourceText::new(name, source),
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
        self.located(
            program,
            kernel,
            |id, backend_args| {
                self.backend
                    .glsl_plan(program.prepared.as_ref(), id, backend_args)
            },
            args,
        )
    }

    /// Stops every later kernel call that runs longer than `limit` with an error naming the
    /// kernel (`None`, the default: no limit), so a kernel that loops forever (`while (1) {}`)
    /// cannot hang the program. The CPU backend checks at every loop back edge; GL cannot
    /// stop a draw it has started, so there a limit is an error (`brcc run --timeout` ends a
    /// whole program on any backend).
    pub fn set_time_limit(&self, limit: Option<std::time::Duration>) -> Result<(), BrookError> {
        self.backend.set_time_limit(limit)
    }

    /// Runs kernel `kernel` of `program`, one argument per parameter (see [`args!`](crate::args)).
    pub fn run(&self, program: &Program, kernel: &str, args: &[Arg]) -> Result<(), BrookError> {
        self.run_vout(program, kernel, args).map(drop)
    }

    /// Runs a kernel with `vout [N] T v<>` parameters (000 §4.7) and returns how many values
    /// each vout received, in parameter order. A vout argument is a 1D stream with room for N
    /// values per element of the call, whose shape is that of its `out` streams or, without
    /// any, of its first input stream. The pushed values are packed at the front of the vout
    /// stream in element (row-major) order, then push order; the rest is zeroed. An element
    /// keeps at most N pushes, and one that `discard`s keeps none. A vout stream without room
    /// for N per element is an error. On GL the kernel pass writes N candidates and a push
    /// count per element, a work-efficient scan of the counts (⌈log₂ n⌉ passes each way) gives
    /// every element its offset, and a compaction pass gathers the pushes into place; counts
    /// are floats there, so a call may make at most 2²⁴ pushes (N × elements), and vout calls
    /// write whole streams (no output domains), without write masks or queries.
    pub fn run_vout(
        &self,
        program: &Program,
        kernel: &str,
        args: &[Arg],
    ) -> Result<Vec<usize>, BrookError> {
        self.located(
            program,
            kernel,
            |id, backend_args| {
                self.backend
                    .run_kernel(program.prepared.as_ref(), id, backend_args)
            },
            args,
        )
    }

    /// Brook's reduction to a value: folds every element of `input` with the reduce function
    /// `reduction` of `program`, in index order, and returns the result's floats (C layout:
    /// 4 for a `float4`, the members' floats in order for a struct). `extra` binds the
    /// function's constant and gather parameters, in order (`args![]` when it has none).
    pub fn reduce_to_value(
        &self,
        program: &Program,
        reduction: &str,
        input: &Stream,
        extra: &[Arg],
    ) -> Result<Vec<f32>, BrookError> {
        let mut value = vec![0.0; input.floats_per_element()];
        self.reduce(
            program,
            reduction,
            input,
            extra,
            BackendReduceTarget::Value(&mut value),
        )?;
        Ok(value)
    }

    /// Brook's reduction to a smaller stream: each element of `output` reduces its block of
    /// `input` (`in / out` neighbours per dimension; every extent of `output` must divide the
    /// input's). `float a<100>` into `r<25>` folds every 4 elements; `<50,50>` into `<50,1>`
    /// folds each row.
    pub fn reduce_to_stream(
        &self,
        program: &Program,
        reduction: &str,
        input: &Stream,
        output: &Stream,
        extra: &[Arg],
    ) -> Result<(), BrookError> {
        let output = self.own(output, &format!("reduction `{reduction}`"))?;
        self.reduce(
            program,
            reduction,
            input,
            extra,
            BackendReduceTarget::Stream(output),
        )
    }

    fn reduce(
        &self,
        program: &Program,
        reduction: &str,
        input: &Stream,
        extra: &[Arg],
        target: BackendReduceTarget,
    ) -> Result<(), BrookError> {
        let is_reduction = program
            .module()
            .function(reduction)
            .is_some_and(|(_, f)| f.kind == FunctionKind::Reduce);
        if !is_reduction {
            return Err(BrookError::Usage(format!(
                "`{reduction}` is not a reduce function; declare it `reduce void {reduction}(T a<>, reduce T r<>)`"
            )));
        }
        self.located(program, reduction, |id, backend_args| {
            if input.is_iter() {
                return Err(BrookError::Usage(format!(
                    "reduction `{reduction}`: an iterator cannot be reduced; copy it into a stream with a kernel first"
                )));
            }
            let input = self.own(input, &format!("reduction `{reduction}`"))?;
            self.backend
                .reduce(program.prepared.as_ref(), id, input, backend_args, target)
        }, extra)
    }

    /// Runs `call` with the checked arguments of Brook function `name`, and places any error
    /// it or the checks give in the Brook source (`Program::locate`).
    fn located<T>(
        &self,
        program: &Program,
        name: &str,
        call: impl FnOnce(FunctionId, &[BackendArg]) -> Result<T, BrookError>,
        args: &[Arg],
    ) -> Result<T, BrookError> {
        let Some((id, _)) = program.module().function(name) else {
            return Err(BrookError::Usage(format!(
                "the program has no kernel `{name}`"
            )));
        };
        self.call_args(program, name, args)
            .and_then(|(_, backend_args)| call(id, &backend_args))
            .map_err(|e| program.locate(id, e))
    }

    /// A stream's backend storage, if the stream was made by this runtime.
    pub(crate) fn own<'a>(&self, s: &'a Stream, call: &str) -> Result<&'a dyn Any, BrookError> {
        if !Rc::ptr_eq(&s.backend, &self.backend) {
            return Err(BrookError::Usage(format!(
                "{call}: a stream made by another runtime was passed to this one"
            )));
        }
        Ok(s.storage.as_ref())
    }

    /// Brook's `streamSwap`: exchanges the contents of two streams of the same shape and
    /// element format by swapping their storage (no copy). For ping-pong iterations.
    pub fn swap(&self, a: &Stream, b: &Stream) -> Result<(), BrookError> {
        for s in [a, b] {
            self.own(s, "streamSwap")?;
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

    /// Brook's `streamSetWriteMask`: the write mask of later kernel calls while it is enabled
    /// (see [`Runtime::enable_write_mask`]). Its current contents are taken now (on GL, drawn
    /// into a depth buffer): set it again after changing the stream. An element is on where
    /// the mask's first float is non-zero.
    pub fn set_write_mask(&self, mask: &Stream) -> Result<(), BrookError> {
        let storage = self.own(mask, "streamSetWriteMask")?;
        if mask.is_iter {
            return Err(BrookError::Usage(
                "streamSetWriteMask: an iterator cannot be a write mask; copy it into a stream with a kernel first".into(),
            ));
        }
        self.backend.set_write_mask(storage)
    }

    /// Brook's `streamEnableWriteMask`: from now on a kernel call writes only the output
    /// elements whose mask element is on; the others keep their values (as if discarded).
    /// The output streams must have the mask's shape; a call that writes a domain of them
    /// writes only the elements inside it whose mask element (at their place in the whole
    /// stream) is on. On GL this is the depth test (000 §7.4.2): masked-off elements are not
    /// shaded where the hardware has early-z. Kernels with vout parameters are refused.
    pub fn enable_write_mask(&self) -> Result<(), BrookError> {
        self.backend.enable_write_mask(true)
    }

    /// Brook's `streamDisableWriteMask`: kernel calls write every element again.
    pub fn disable_write_mask(&self) -> Result<(), BrookError> {
        self.backend.enable_write_mask(false)
    }

    /// Brook's `streamBeginWriteQuery`: starts counting the elements kernel calls write (on
    /// GL an occlusion query, `GL_SAMPLES_PASSED`; refused on ES 3.0, which lacks it).
    pub fn begin_write_query(&self) -> Result<(), BrookError> {
        self.backend.begin_write_query()
    }

    /// Brook's `streamEndWriteQuery`: the elements written (neither discarded nor masked
    /// off) by the kernel calls since [`Runtime::begin_write_query`]; a split call counts once.
    pub fn end_write_query(&self) -> Result<u64, BrookError> {
        self.backend.end_write_query()
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
        // A kernel takes one argument per parameter; a reduction's `args` are only its extras.
        if func.kind == FunctionKind::Kernel && args.len() != func.params.len() {
            return Err(BrookError::Usage(format!(
                "{what} takes {} arguments but {} were given",
                func.params.len(),
                args.len()
            )));
        }
        let mut backend_args = Vec::with_capacity(args.len());
        for arg in args {
            backend_args.push(match arg {
                Arg::Stream(s) => BackendArg::Stream(self.own(s, &what)?),
                Arg::Domain(d) => {
                    let storage = self.own(d.stream, &what)?;
                    if d.stream.is_iter {
                        return Err(BrookError::Usage(format!(
                            "{what}: a domain of an iterator stream cannot be passed to a kernel; make an iterator of the domain's range instead"
                        )));
                    }
                    if d.is_whole() {
                        BackendArg::Stream(storage)
                    } else {
                        BackendArg::Domain(storage, &d.domain)
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

fn env_setting() -> Option<String> {
    std::env::var("BRT_RUNTIME").ok()
}

/// `"gl"` or `"cpu"` for a backend name, or the error listing the names.
fn canonical(name: &str) -> Result<&'static str, BrookError> {
    match name.trim().to_ascii_lowercase().as_str() {
        "gl" | "ogl" | "opengl" => Ok("gl"),
        "cpu" => Ok("cpu"),
        other => Err(BrookError::Usage(format!(
            "unknown Brook backend `{other}`: expected one of {}",
            BACKEND_NAMES.join(", ")
        ))),
    }
}

/// Opens backend `name` with `open`; if it is GL and fails, warns and uses the CPU.
fn with_fallback(
    name: &str,
    open: impl Fn(&str) -> Result<Runtime, BrookError>,
) -> Result<Runtime, BrookError> {
    let canon = canonical(name)?;
    match open(canon) {
        Err(e) if canon == "gl" => {
            eprintln!("brook: GL is not available ({e}); falling back to the CPU backend");
            Ok(Runtime::cpu())
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gl_failure_falls_back_to_cpu_only_when_asked_and_only_for_gl() {
        let no_gl = |name: &str| match name {
            "gl" => Err(BrookError::Usage("no EGL display".into())),
            _ => Ok(Runtime::cpu()),
        };
        assert_eq!(with_fallback("gl", no_gl).unwrap().backend_name(), "cpu");
        assert_eq!(
            with_fallback(" OpenGL ", no_gl).unwrap().backend_name(),
            "cpu"
        );
        assert_eq!(with_fallback("cpu", no_gl).unwrap().backend_name(), "cpu");
        let err = with_fallback("dx9", no_gl)
            .err()
            .expect("an unknown name is an error");
        assert!(
            err.to_string().contains("unknown Brook backend `dx9`"),
            "{err}"
        );
        assert!(err.to_string().contains("gl, cpu"), "{err}");
    }
}
