//! The runtime: one backend, the streams made on it, and the programs compiled for it.

use std::cell::RefCell;
use std::fmt::Display;
use std::rc::Rc;

use brook_core::{
    Backend, BrookError, Compiled, ElementFormat, IterSpec, SourceText, TraceEntry, WriteMaskState,
};
#[cfg(feature = "cpu")]
use brook_cpu::CpuBackend;
#[cfg(feature = "gl")]
use brook_passes::GlBackend;
#[cfg(feature = "gl")]
use brook_texture_streams::{ContextOptions, GlContext};
#[cfg(feature = "wgpu")]
use brook_wgpu::WgpuBackend;

use crate::gate::{Gate, StreamBody};
use crate::program::Program;
use crate::program_cache::ProgramCache;
use crate::stream::Stream;
use crate::write_mask::WriteMask;

/// Brook's runtime: where streams live and kernels run.
pub struct Runtime {
    /// The backend, behind the gate every operation passes (`src/gate/`), which the runtime
    /// shares with its streams and programs.
    pub(crate) gate: Rc<Gate>,
    pub(crate) programs: ProgramCache,
    /// Which write-mask and write-query calls are allowed now, for every backend alike.
    pub(crate) masks: RefCell<WriteMaskState>,
    /// The mask `streamSetWriteMask` loads (`crate::write_mask`).
    pub(crate) own_mask: RefCell<Option<WriteMask>>,
}

/// Which backend [`Runtime::from_env`] picks from `BRT_RUNTIME`.
pub const BACKEND_NAMES: &[&str] = &["gl", "cpu", "wgpu"];

impl Runtime {
    /// A runtime on any backend, this crate's or one's own: every call reaches it checked
    /// (argument kinds and element types, aliasing, shapes, the write-mask state). Automatic
    /// fusion ([`Runtime::set_automatic_fusion`]) is on where the backend fuses
    /// ([`Backend::fuses`]: GL, wgpu and the CPU).
    pub fn with_backend(backend: Rc<dyn Backend>) -> Runtime {
        Runtime {
            gate: Rc::new(Gate::new(backend)),
            programs: ProgramCache::default(),
            masks: RefCell::new(WriteMaskState::default()),
            own_mask: RefCell::new(None),
        }
    }

    /// GL on a headless EGL context (desktop GL 3.3 core): no window or display needed.
    #[cfg(feature = "gl")]
    pub fn gl() -> Result<Runtime, BrookError> {
        Runtime::gl_with(ContextOptions::default())
    }

    /// GL on a headless context with these options (ES 3.0 profile, lowered limits for tests).
    #[cfg(feature = "gl")]
    pub fn gl_with(options: ContextOptions) -> Result<Runtime, BrookError> {
        let ctx = GlContext::headless(options).map_err(|e| BrookError::backend("GL", e))?;
        Ok(Runtime::on_context(ctx))
    }

    /// GL on a context the application made (a window's, for viz); it must be current.
    #[cfg(feature = "gl")]
    pub fn on_context(ctx: Rc<GlContext>) -> Runtime {
        Runtime::with_backend(Rc::new(GlBackend::new(ctx)))
    }

    /// wgpu compute on a headless device: a GPU when there is one, else Mesa's lavapipe
    /// (Vulkan on the CPU), else wgpu's GL backend; with none, the error names the packages
    /// to install.
    #[cfg(feature = "wgpu")]
    pub fn wgpu() -> Result<Runtime, BrookError> {
        Ok(Runtime::with_backend(Rc::new(WgpuBackend::new()?)))
    }

    /// wgpu compute on an application's own device and queue: every stream is a buffer of
    /// that device, to bind in the app's own passes with no copy (`Stream::wgpu_buffer`).
    #[cfg(feature = "wgpu")]
    pub fn on_wgpu_device(
        device: brook_wgpu::wgpu::Device,
        queue: brook_wgpu::wgpu::Queue,
        adapter: brook_wgpu::wgpu::AdapterInfo,
    ) -> Runtime {
        Runtime::with_backend(Rc::new(WgpuBackend::with_device(device, queue, adapter)))
    }

    /// The CPU reference backend: kernels compiled to native code.
    #[cfg(feature = "cpu")]
    pub fn cpu() -> Runtime {
        Runtime::with_backend(Rc::new(CpuBackend::default()))
    }

    /// The CPU backend with native code that runs every kernel one element per iteration
    /// (never four per iteration across SIMD lanes, which it does for kernels on scalars):
    /// to compare the two layouts, which give the same bits.
    #[cfg(feature = "cpu")]
    pub fn cpu_one_element() -> Runtime {
        Runtime::with_backend(Rc::new(CpuBackend::one_element()))
    }

    /// The CPU backend running every kernel on its IR interpreter: the readable reference
    /// the native code is tested against, and a baseline for comparing the two.
    #[cfg(feature = "cpu")]
    pub fn cpu_interpreter() -> Runtime {
        Runtime::with_backend(Rc::new(CpuBackend::interpreter()))
    }

    /// The backend `BRT_RUNTIME` names (`gl`, `cpu` or `wgpu`); `gl` when unset. An unknown name is an
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

    /// The backend of this name (`gl`, `cpu` or `wgpu`; `ogl`/`opengl` are `gl`; case and
    /// surrounding blanks ignored).
    /// A backend this build leaves out (its cargo feature off) is an error naming the feature.
    pub fn named(name: &str) -> Result<Runtime, BrookError> {
        match canonical(name)? {
            #[cfg(feature = "gl")]
            "gl" => Runtime::gl(),
            #[cfg(feature = "wgpu")]
            "wgpu" => Runtime::wgpu(),
            #[cfg(feature = "cpu")]
            "cpu" => Ok(Runtime::cpu()),
            left_out => Err(BrookError::Unsupported {
                call: format!("the `{left_out}` backend"),
                message: format!(
                    "not in this build of brook: enable its cargo feature `{left_out}`"
                ),
            }),
        }
    }

    /// The backend's name: `"gl"`, `"cpu"`, or one's own backend's.
    pub fn backend_name(&self) -> &'static str {
        self.gate.name()
    }

    /// The backend and the machine it runs on, for reports.
    pub fn describe(&self) -> String {
        self.gate.describe()
    }

    /// The backend itself, to reach what only it offers (downcast [`Backend::as_any`]).
    /// Calls made on it directly bypass the runtime's checks and its gate (a deferred
    /// kernel call does not run first): use it for capabilities, not stream operations.
    pub fn backend(&self) -> &Rc<dyn Backend> {
        self.gate.backend()
    }

    /// The GL backend, on a GL runtime: its context.
    #[cfg(feature = "gl")]
    pub fn as_gl(&self) -> Option<&GlBackend> {
        self.backend().as_any().downcast_ref::<GlBackend>()
    }

    /// The wgpu backend, on a wgpu runtime: its device and queue, the WGSL of a call.
    #[cfg(feature = "wgpu")]
    pub fn as_wgpu(&self) -> Option<&WgpuBackend> {
        self.backend().as_any().downcast_ref::<WgpuBackend>()
    }

    /// The GL context of a GL runtime: bind a stream's textures in your own rendering.
    #[cfg(feature = "gl")]
    pub fn gl_context(&self) -> Option<&Rc<GlContext>> {
        self.as_gl().map(GlBackend::context)
    }

    /// Checks Brook source; `name` appears in diagnostics and generated-code comments.
    pub fn compile(&self, source: &str, name: &str) -> Result<Program, BrookError> {
        let module = brook_frontend::compile(source, name).map_err(BrookError::Compile)?;
        let compiled = Rc::new(Compiled::new(module, SourceText::new(name, source))?);
        Ok(Program {
            prepared: self.gate.program(&compiled)?,
            gate: self.gate.clone(),
        })
    }

    /// A stream of `format` elements and extents `shape` (first dimension first). Its contents
    /// are undefined until read into or written by a kernel.
    pub fn stream(&self, format: ElementFormat, shape: &[usize]) -> Result<Stream, BrookError> {
        brook_core::shape::element_count(shape)?;
        Ok(self.made(self.gate.stream(&format, shape)?))
    }

    /// A `float`..`float4` stream (`components` 1..=4).
    pub fn stream_of(&self, components: u8, shape: &[usize]) -> Result<Stream, BrookError> {
        self.stream(ElementFormat::scalar(components)?, shape)
    }

    /// Brook's `iter float s<N> = iter(start, end)`: see `IterSpec` for the values.
    pub fn iter(&self, spec: IterSpec) -> Result<Stream, BrookError> {
        Ok(self.made(self.gate.iter(&spec)?))
    }

    /// A stream of this runtime with `body`.
    fn made(&self, body: Rc<StreamBody>) -> Stream {
        Stream {
            gate: self.gate.clone(),
            body,
        }
    }

    /// Waits for all queued work (GL draws are asynchronous; reads wait by themselves). A
    /// deferred kernel call runs first, unless it already ran inside a reduction (see
    /// [`Runtime::set_automatic_fusion`]); an error it meets is returned by the next call.
    pub fn finish(&self) {
        self.gate.finish();
    }

    /// [`Runtime::finish`] for the end of a host program, where an error must still be
    /// seen (brcc calls it when `main` returns): returns the error of a deferred kernel call
    /// that runs now, or one kept from a call that ran where it could not return it.
    pub fn finish_checked(&self) -> Result<(), BrookError> {
        self.gate.settle()?;
        self.gate.finish();
        Ok(())
    }

    /// Starts (forgetting earlier entries) or stops the pass trace: a record of what each
    /// call became, pass by pass — programs, textures bound, uniforms, viewport, blending and
    /// depth. The CPU backend records each kernel call, reduction, ScatterOp and GatherOp
    /// without passes: the engine that ran it, and on the call that compiled its native code, what compiling cost.
    /// A deferred kernel call appears when it runs, as a separate call or inside the
    /// reduction of its output (see [`Runtime::set_automatic_fusion`]).
    pub fn set_trace(&self, on: bool) {
        self.gate.set_trace(on);
    }

    /// Stops every later kernel call that runs longer than `limit` with an error naming the
    /// kernel (`None`, the default: no limit), so a kernel that loops forever (`while (1) {}`)
    /// cannot hang the program. The CPU backend checks at every loop back edge; GL and wgpu
    /// cannot stop a draw or dispatch they have started, so there a limit is an error
    /// (`brcc run --timeout 60 prog.br` ends a whole program on any backend).
    pub fn set_time_limit(&self, limit: Option<std::time::Duration>) -> Result<(), BrookError> {
        self.gate.set_time_limit(limit)
    }

    /// Opts into fast math (`true`) or back into the accurate contract (`false`, the
    /// default) for later calls. Fast math lets GL and wgpu drop what keeps special values
    /// IEEE's (`precise`, hidden constants, exact SPIR-V) and call the driver's `exp`, `log`,
    /// `pow`, `sin`, … instead of Brook's math library; the CPU keeps IEEE operations and
    /// special values and takes a shorter `exp` (3 ulp against 1.5). Each mode's accuracy per
    /// built-in and backend is in `docs/limits.md`. A program compiled in one mode is never
    /// reused in the other.
    pub fn set_fast_math(&self, on: bool) -> Result<(), BrookError> {
        let mode = if on {
            brook_ir::MathMode::Fast
        } else {
            brook_ir::MathMode::Accurate
        };
        self.gate.set_math_mode(mode)
    }

    /// The trace entries since tracing started or since the last take; each prints readably.
    pub fn take_trace(&self) -> Vec<TraceEntry> {
        self.gate.take_trace()
    }

    /// Runs `run` with every call recorded for the pipeline explorer: the pass trace, on
    /// GL a picture of every texture each pass binds, before and after it, and on every
    /// backend the streams each operation wrote, read back after it (`max_side`: the longest
    /// side of a picture, larger ones shown every n-th element). Write the site with
    /// [`explain::write`](crate::explain::write), or compare backends with
    /// [`explain::write_side_by_side`](crate::explain::write_side_by_side) and one recording
    /// per backend; tracing is off afterwards. Operations are compared in order, so record
    /// GL for a comparison with automatic fusion off ([`Runtime::set_automatic_fusion`]): a
    /// kernel call it fuses into a reduction runs, if at all, when its output is read, after
    /// the reduction's card.
    ///
    /// ```no_run
    /// # use brook::{args, Runtime};
    /// let rt = Runtime::gl()?;
    /// let p = rt.compile("kernel void twice(float a<>, out float b<>) { b = 2.0 * a; }", "t.br")?;
    /// let (a, b) = (rt.stream_of(1, &[8])?, rt.stream_of(1, &[8])?);
    /// a.read(&[1.0; 8])?;
    /// let (ran, recording) = rt.explain(128, |rt| rt.run(&p, "twice", args![&a, &b]));
    /// ran?;
    /// let options = brook::explain::Options::default();
    /// brook::explain::write(&recording, &[p.source().clone()], "site".as_ref(), &options)
    ///     .expect("the site");
    /// # Ok::<(), brook::BrookError>(())
    /// ```
    #[cfg(feature = "explain")]
    pub fn explain<R>(
        &self,
        max_side: u32,
        run: impl FnOnce(&Runtime) -> R,
    ) -> (R, brook_explain::Recording) {
        self.start_explaining(max_side);
        let result = run(self);
        (result, self.finish_explaining())
    }

    /// `s`, checked to be a stream of this runtime.
    pub(crate) fn own<'a>(
        &self,
        s: &'a Stream,
        call: &dyn Display,
    ) -> Result<&'a Stream, BrookError> {
        self.check_owner(&s.gate, call, "")?;
        Ok(s)
    }

    /// `p`, checked to be a program of this runtime.
    pub(crate) fn own_program<'a>(
        &self,
        p: &'a Program,
        call: &dyn Display,
    ) -> Result<&'a Program, BrookError> {
        self.check_owner(&p.gate, call, " (a program compiled by another runtime)")?;
        Ok(p)
    }

    /// An error for `call` unless `gate` is this runtime's: what the caller holds (a stream,
    /// a program, a write mask) was made by another runtime, which `whose` says after `call`.
    pub(crate) fn check_owner(
        &self,
        gate: &Rc<Gate>,
        call: &dyn Display,
        whose: &str,
    ) -> Result<(), BrookError> {
        if Rc::ptr_eq(gate, &self.gate) {
            return Ok(());
        }
        Err(BrookError::ForeignStream {
            call: format!("{call}{whose}"),
        })
    }
}

impl Drop for Runtime {
    /// Runs a deferred kernel call; its error, which nothing else could see now, goes to
    /// standard error.
    fn drop(&mut self) {
        self.gate.settle_or_keep();
        if let Err(e) = self.gate.reported() {
            eprintln!("brook: error: a deferred kernel call failed: {e}");
        }
    }
}

fn env_setting() -> Option<String> {
    std::env::var("BRT_RUNTIME").ok()
}

/// `"gl"` or `"cpu"` for a backend name, or the error listing the names.
fn canonical(name: &str) -> Result<&'static str, BrookError> {
    match name.trim().to_ascii_lowercase().as_str() {
        "gl" | "ogl" | "opengl" => Ok("gl"),
        "cpu" => Ok("cpu"),
        "wgpu" => Ok("wgpu"),
        other => Err(BrookError::Unknown {
            name: other.to_string(),
            what: "backend",
            message: format!(
                "unknown Brook backend `{other}`: expected one of {}",
                BACKEND_NAMES.join(", ")
            ),
        }),
    }
}

/// Opens backend `name` with `open`; if it is GL and fails, warns and uses the CPU.
fn with_fallback(
    name: &str,
    open: impl Fn(&str) -> Result<Runtime, BrookError>,
) -> Result<Runtime, BrookError> {
    let canon = canonical(name)?;
    match open(canon) {
        #[cfg(feature = "cpu")]
        Err(e) if canon == "gl" => {
            eprintln!("brook: GL is not available ({e}); falling back to the CPU backend");
            Ok(Runtime::cpu())
        }
        other => other,
    }
}

#[cfg(all(test, feature = "cpu"))]
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
        assert!(err.to_string().contains("gl, cpu, wgpu"), "{err}");
    }
}
