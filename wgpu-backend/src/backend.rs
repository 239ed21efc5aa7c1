//! The backend: its device access (public), and the engine's entry points for every Brook
//! operation on wgpu, shaped like the runtime's backend trait (stream creation, read/write
//! with domains, programs, kernels with vouts, reductions, scatter and gather-op, write masks
//! and queries, swap, trace, finish), so the seam is glue over them. The entry points take
//! calls brook-core has checked; they are public only as hidden hooks for the bench and the
//! example.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use brook_ir::{self as ir, FunctionId};

use brook_core::StreamError;

use crate::error::{Result, WgpuError};
use crate::gpu::Gpu;
use crate::ops::mask::MaskState;
use crate::ops::KernelArg;
use crate::pipeline::{build, Bounds, Pipeline, Plan, Source};
use crate::program::WgpuProgram;
use crate::shaders::Resource;
use crate::stream::{Domain, IterSpec, Storage, WgpuStream};
use crate::trace::{CallTrace, Step};

/// Brook on a wgpu device.
pub struct WgpuBackend {
    pub(crate) gpu: Gpu,
    /// This backend's serial number, which its streams carry.
    serial: u64,
    next_id: Cell<u32>,
    trace: RefCell<Option<Vec<CallTrace>>>,
    /// The same records as brook-core's trace entries, for the runtime (`seam.rs`).
    pub(crate) entries: RefCell<Vec<brook_core::TraceEntry>>,
    pub(crate) mask: RefCell<MaskState>,
    fixed: RefCell<HashMap<String, Rc<Pipeline>>>,
    /// Reductions' partials and kernels' loop status, kept between calls.
    pub(crate) kept_scratch: crate::kept_scratch::KeptScratch,
    /// The module of the fixed shaders (they call no Brook function).
    empty: ir::Module,
}

impl WgpuBackend {
    /// A backend on a device of its own, headless: a GPU when there is one, else lavapipe
    /// (Vulkan on the CPU), else wgpu's GL backend. The error names the packages to install
    /// when no adapter exists.
    pub fn new() -> Result<WgpuBackend> {
        Ok(WgpuBackend::on(Gpu::headless()?))
    }

    /// Like [`WgpuBackend::new`], choosing only among adapters of `backends`
    /// (`wgpu::Backends::GL` for wgpu's GL backend).
    pub fn new_on(backends: wgpu::Backends) -> Result<WgpuBackend> {
        Ok(WgpuBackend::on(Gpu::headless_on(backends)?))
    }

    /// A backend on an application's device and queue: every stream is a buffer of that
    /// device ([`WgpuStream::buffer`]), to bind in the app's own passes with no copy.
    pub fn with_device(
        device: wgpu::Device,
        queue: wgpu::Queue,
        adapter: wgpu::AdapterInfo,
    ) -> WgpuBackend {
        WgpuBackend::on(Gpu::from_device(device, queue, adapter))
    }

    fn on(gpu: Gpu) -> WgpuBackend {
        static SERIAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        WgpuBackend {
            gpu,
            serial: SERIAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            next_id: Cell::new(1),
            trace: RefCell::new(None),
            entries: RefCell::new(Vec::new()),
            mask: RefCell::new(MaskState::default()),
            fixed: RefCell::new(HashMap::new()),
            kept_scratch: Default::default(),
            empty: ir::Module::default(),
        }
    }

    /// `"wgpu"`, as `BRT_RUNTIME` spells it.
    pub fn name(&self) -> &'static str {
        "wgpu"
    }

    /// The adapter, its API and device type.
    pub fn describe(&self) -> String {
        self.gpu.describe()
    }

    /// The wgpu device, for an application's own buffers and pipelines beside Brook's.
    pub fn device(&self) -> &wgpu::Device {
        &self.gpu.device
    }

    /// The queue Brook submits to; an application's work on it is ordered with Brook's.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.gpu.queue
    }

    /// The adapter's name, driver and backend (lavapipe shows as a CPU device).
    pub fn adapter_info(&self) -> &wgpu::AdapterInfo {
        &self.gpu.info
    }

    /// How many bind groups kernel calls keep for reuse (one per pipeline and set of buffers
    /// bound; a dropped stream's go with it), to check that they do not pile up.
    pub fn kept_bind_groups(&self) -> usize {
        self.gpu.binds.len()
    }

    /// The wgpu requests (submissions, waits, buffers, bind groups, …) the backend has made
    /// so far: two readings' difference is what the operations between them asked wgpu for.
    pub fn api_counts(&self) -> crate::ApiCounts {
        self.gpu.api_counts()
    }
}

/// The engine's entry points, on the crate's own types: hooks for its bench and example,
/// hidden from the docs. Calls through `brook::Runtime` reach them by the seam, checked.
#[doc(hidden)]
impl WgpuBackend {
    /// The device, queue and adapter facts the backend runs on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// A stream of `shape` whose elements have members of `widths` floats (`[4]` for
    /// `float4`, `[1, 3]` for `struct {float a; float3 b;}`), zero-filled.
    pub fn create_stream(&self, widths: &[u8], shape: &[usize]) -> Result<WgpuStream> {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        WgpuStream::new_buffer(&self.gpu, self.serial, widths, shape, id)
    }

    /// An iterator stream (`iter float2 s<4, 4> = iter(...)`): its values are computed in
    /// each kernel, never stored.
    pub fn create_iter(&self, spec: IterSpec) -> WgpuStream {
        WgpuStream::new_iter(self.serial, spec)
    }

    /// Brook's `streamRead`: a host array in C layout into the stream, or into a domain of it
    /// (the domain's elements row-major).
    pub fn read(&self, s: &WgpuStream, domain: Option<&Domain>, data: &[f32]) -> Result<()> {
        self.own("streamRead", &[s])?;
        let buf = s
            .buffer()
            .ok_or_else(|| WgpuError::precondition("streamRead", "an iterator stream"))?;
        let fpe = s.floats_per_element();
        let expected = domain.map_or(s.len(), Domain::len) * fpe;
        if data.len() != expected {
            return Err(StreamError::Size {
                expected,
                got: data.len(),
            }
            .into());
        }
        if let Some(d) = domain {
            d.fits(s.shape())?;
        }
        self.gpu.scoped("streamRead", || {
            match domain {
                None => self.gpu.write_buffer(&buf, 0, bytemuck::cast_slice(data)),
                Some(d) => {
                    let mut at = 0;
                    for (first, len) in crate::stream::domain_runs(d, s.shape()) {
                        let n = len * fpe;
                        self.gpu.write_buffer(
                            &buf,
                            (first * fpe * 4) as u64,
                            bytemuck::cast_slice(&data[at..at + n]),
                        );
                        at += n;
                    }
                }
            }
            self.gpu.submit(None);
            Ok(())
        })
    }

    /// Brook's `streamWrite`: the stream, or a domain of it, to a host array in C layout.
    pub fn write(&self, s: &WgpuStream, domain: Option<&Domain>, out: &mut [f32]) -> Result<()> {
        self.own("streamWrite", &[s])?;
        let fpe = s.floats_per_element();
        let expected = domain.map_or(s.len(), Domain::len) * fpe;
        if out.len() != expected {
            return Err(StreamError::Size {
                expected,
                got: out.len(),
            }
            .into());
        }
        if let Some(d) = domain {
            d.fits(s.shape())?;
        }
        let shape = s.shape();
        match &s.storage {
            Storage::Iter(r) => copy_domain(domain, shape, fpe, &r.values(), out),
            Storage::Buffer(b) => {
                let buf = b.borrow().buffer().clone();
                // The mapped staging memory is copied once, into `out`.
                self.gpu.scoped("streamWrite", || {
                    self.gpu
                        .read_back_with(&buf, 0..(s.len() * fpe * 4) as u64, |bytes| {
                            copy_domain(domain, shape, fpe, &floats(bytes), out)
                        })
                })?
            }
        }
        Ok(())
    }

    /// Prepares a checked program (its pipelines are built on first use of each variant).
    pub fn prepare(&self, module: Rc<ir::Module>, source: Option<Source>) -> WgpuProgram {
        WgpuProgram::new(module, source)
    }

    /// Runs a kernel; `args` has one entry per kernel parameter. Returns how many values each
    /// `vout` parameter received, in parameter order (empty without vouts). A stream that is
    /// an input and an output reads its old values everywhere; an element that discards, or
    /// that the enabled write mask switches off, keeps its values.
    pub fn run_kernel(
        &self,
        program: &WgpuProgram,
        kernel: FunctionId,
        args: &[KernelArg],
    ) -> Result<Vec<usize>> {
        self.kernel_call(program, kernel, args)
    }

    /// Brook's `streamSwap`: exchanges the storage of two streams of one shape and format.
    pub fn swap(&self, a: &WgpuStream, b: &WgpuStream) -> Result<()> {
        self.own("streamSwap", &[a, b])?;
        if a.shape() != b.shape() || a.widths() != b.widths() {
            return Err(WgpuError::precondition(
                "streamSwap",
                "two streams of different shapes or formats",
            ));
        }
        a.swap_with(b)?;
        self.record_steps("streamSwap", Vec::new());
        Ok(())
    }

    /// Starts (afresh) or stops recording what each call becomes.
    pub fn set_trace(&self, on: bool) {
        *self.trace.borrow_mut() = on.then(Vec::new);
    }

    /// Whether calls are being recorded.
    pub fn tracing(&self) -> bool {
        self.trace.borrow().is_some()
    }

    /// The calls recorded since tracing started or since the last take.
    pub fn take_trace(&self) -> Vec<CallTrace> {
        self.trace
            .borrow_mut()
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Waits until all work issued so far has finished.
    pub fn finish(&self) -> Result<()> {
        self.gpu.wait()
    }

    /// Checks that every stream was made by this backend: the runtime passes only its own,
    /// but a buffer of another device bound here would be undefined behaviour in the driver.
    /// `call` is formatted only for the error.
    pub(crate) fn own<'s>(
        &self,
        call: impl std::fmt::Display,
        streams: impl IntoIterator<Item = &'s &'s WgpuStream>,
    ) -> Result<()> {
        if streams.into_iter().any(|s| s.owner != self.serial) {
            return Err(WgpuError::precondition(
                call,
                "a stream made by another wgpu backend (another device)",
            ));
        }
        Ok(())
    }

    pub(crate) fn record(&self, call: CallTrace) {
        if let Some(t) = self.trace.borrow_mut().as_mut() {
            t.push(call);
        }
    }

    /// Records an operation that issued no work of its own.
    pub(crate) fn record_steps(&self, op: &str, steps: Vec<Step>) {
        self.record(CallTrace {
            op: op.into(),
            compiled: None,
            steps,
        });
    }

    /// The pipeline of a fixed shader (no Brook function in it), built once per backend.
    pub(crate) fn fixed_pipeline(
        &self,
        name: &str,
        make: fn(&ir::Module) -> (naga::Module, Vec<Resource>),
    ) -> Result<Rc<Pipeline>> {
        self.cached_pipeline(name, || Ok(make(&self.empty)))
    }

    /// A pipeline the backend keeps by `name` (shaders that depend on no program).
    pub(crate) fn cached_pipeline(
        &self,
        name: &str,
        make: impl FnOnce() -> Result<(naga::Module, Vec<Resource>)>,
    ) -> Result<Rc<Pipeline>> {
        if let Some(p) = self.fixed.borrow().get(name) {
            return Ok(p.clone());
        }
        let (m, resources) = make()?;
        let p = Rc::new(build(
            &self.gpu,
            name.to_string(),
            m,
            (resources, Plan::Resources),
            name,
            None,
            Bounds::Checked,
        )?);
        self.fixed.borrow_mut().insert(name.to_string(), p.clone());
        Ok(p)
    }

    /// The module of the fixed shaders.
    pub(crate) fn empty_module(&self) -> &ir::Module {
        &self.empty
    }
}

/// `domain`'s elements (all of them without one) of a stream of `shape` whose floats are
/// `all`, `fpe` floats per element, into `out` in row-major order.
fn copy_domain(domain: Option<&Domain>, shape: &[usize], fpe: usize, all: &[f32], out: &mut [f32]) {
    let Some(d) = domain else {
        out.copy_from_slice(all);
        return;
    };
    let mut at = 0;
    for (first, len) in crate::stream::domain_runs(d, shape) {
        let n = len * fpe;
        out[at..at + n].copy_from_slice(&all[first * fpe..first * fpe + n]);
        at += n;
    }
}

/// Mapped bytes as floats, borrowed where they are aligned for `f32` (wgpu maps at
/// `MAP_ALIGNMENT`), copied otherwise.
fn floats(bytes: &[u8]) -> std::borrow::Cow<'_, [f32]> {
    match bytemuck::try_cast_slice(bytes) {
        Ok(floats) => std::borrow::Cow::Borrowed(floats),
        Err(_) => std::borrow::Cow::Owned(bytemuck::pod_collect_to_vec(bytes)),
    }
}
