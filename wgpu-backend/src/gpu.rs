//! The device the backend runs on: one it creates (headless: a GPU when there is one, else
//! Mesa's lavapipe over Vulkan, else wgpu's GL backend), or one a wgpu application hands it.
//!
//! Every operation runs inside [`Gpu::scoped`]: validation, out-of-memory and internal error
//! scopes around it, popped after the work is submitted, so a wgpu error becomes a
//! [`WgpuError`] instead of wgpu's default panic. Device loss is recorded by a callback and
//! reported by the next operation.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::binds::BindGroups;
use crate::counts::ApiCounts;
use crate::error::{Result, WgpuError};
use crate::exact::ExactSpirv;
use crate::staging::StagingPool;

/// A device and its queue, with what is known about the adapter.
pub struct Gpu {
    /// The wgpu device every buffer, pipeline and bind group is made on.
    pub device: wgpu::Device,
    /// The queue all work is submitted to.
    pub queue: wgpu::Queue,
    /// The adapter's name, driver and backend (Vulkan, GL), for reports.
    pub info: wgpu::AdapterInfo,
    /// The device's limits (buffer sizes, bindings, workgroups), checked before a call asks for
    /// more.
    pub limits: wgpu::Limits,
    /// [`Gpu::loop_cap`], known from the adapter's name once: every kernel call asks.
    loop_cap: Option<u32>,
    lost: Arc<Mutex<Option<String>>>,
    /// Whether this backend created the device (it then owns the uncaptured-error handler).
    own: bool,
    uncaptured: Arc<AtomicBool>,
    /// How modules become exact SPIR-V on this device (`exact.rs`); `None` where they go to
    /// wgpu as naga IR.
    pub exact: Option<ExactSpirv>,
    /// The math mode pipelines are built in now (`WgpuBackend::set_math_mode`): part of every
    /// program pipeline's key, and fast math builds without [`Gpu::exact`].
    pub math: std::cell::Cell<brook_ir::MathMode>,
    /// The bind groups kernel calls keep, shared with the buffers and pipelines they bind.
    pub(crate) binds: Arc<BindGroups>,
    /// The staging buffers reads back copy through, kept between reads (`staging.rs`).
    staging: StagingPool,
    /// The wgpu requests made so far (`counts.rs`): every one goes through this type.
    counts: std::cell::Cell<ApiCounts>,
}

impl Gpu {
    /// A device of its own, headless. The adapter: a discrete or integrated GPU when there is
    /// one, else Vulkan on the CPU (lavapipe), else wgpu's GL backend. `WGPU_BACKEND`
    /// (`vulkan`, `gl`) restricts the choice, as in every wgpu program.
    pub fn headless() -> Result<Gpu> {
        Gpu::headless_on(
            wgpu::Backends::from_env().unwrap_or(wgpu::Backends::VULKAN | wgpu::Backends::GL),
        )
    }

    /// Like [`Gpu::headless`], choosing only among adapters of `backends`.
    ///
    /// wgpu's GL backend is asked only when no other backend has an adapter: it releases
    /// the thread's current EGL context after each use of its own, which would leave a
    /// Brook GL runtime on the same thread without its context.
    pub fn headless_on(backends: wgpu::Backends) -> Result<Gpu> {
        let first = backends - wgpu::Backends::GL;
        let adapter = match Gpu::best_adapter(first) {
            Some(a) => a,
            None if backends.contains(wgpu::Backends::GL) => Gpu::best_adapter(wgpu::Backends::GL)
                .ok_or_else(|| {
                    WgpuError::NoAdapter(format!(
                        "no adapter with compute shaders among the {backends:?} backends"
                    ))
                })?,
            None => {
                return Err(WgpuError::NoAdapter(format!(
                    "no adapter with compute shaders among the {backends:?} backends"
                )))
            }
        };
        let info = adapter.get_info();
        let limits = adapter.limits();
        let exact = ExactSpirv::probe(&adapter);
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("brook"),
            required_limits: limits.clone(),
            required_features: exact.map_or(wgpu::Features::empty(), |_| ExactSpirv::features()),
            ..Default::default()
        }))
        .map_err(|e| WgpuError::Device(e.to_string()))?;
        let mut gpu = Gpu::wrap(device, queue, info, true);
        gpu.exact = exact;
        Ok(gpu)
    }

    /// The best adapter with compute shaders among `backends` (none asked: none found): a
    /// discrete, integrated or virtual GPU before the CPU, Vulkan before the others.
    fn best_adapter(backends: wgpu::Backends) -> Option<wgpu::Adapter> {
        if backends.is_empty() {
            return None;
        }
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = backends;
        let instance = wgpu::Instance::new(desc);
        let adapters = pollster::block_on(instance.enumerate_adapters(backends));
        let rank = |a: &wgpu::Adapter| {
            let i = a.get_info();
            let kind = match i.device_type {
                wgpu::DeviceType::DiscreteGpu => 0,
                wgpu::DeviceType::IntegratedGpu => 1,
                wgpu::DeviceType::VirtualGpu => 2,
                _ => 3,
            };
            let api = match i.backend {
                wgpu::Backend::Vulkan => 0,
                _ => 1,
            };
            (kind, api)
        };
        adapters
            .into_iter()
            .filter(|a| {
                a.get_downlevel_capabilities()
                    .flags
                    .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
            })
            .min_by_key(rank)
    }

    /// The loop iterations one invocation may make before the driver silently ends its loops,
    /// where it caps them (lavapipe, and llvmpipe under wgpu's GL backend: 65,535).
    pub fn loop_cap(&self) -> Option<u32> {
        self.loop_cap
    }

    /// The backend on an application's own device and queue (a winit + wgpu app, egui,
    /// bevy): streams are buffers of that device, so the app binds them in its own passes.
    /// The app keeps its uncaptured-error handler; the backend's own work runs in error scopes.
    pub fn from_device(device: wgpu::Device, queue: wgpu::Queue, info: wgpu::AdapterInfo) -> Gpu {
        Gpu::wrap(device, queue, info, false)
    }

    fn wrap(device: wgpu::Device, queue: wgpu::Queue, info: wgpu::AdapterInfo, own: bool) -> Gpu {
        let lost = Arc::new(Mutex::new(None));
        let l = lost.clone();
        device.set_device_lost_callback(move |reason, message| {
            if let Ok(mut slot) = l.lock() {
                *slot = Some(format!("{reason:?}: {message}"));
            }
        });
        let uncaptured = Arc::new(AtomicBool::new(false));
        if own {
            // Every operation is scoped; should anything escape, it must not panic.
            let u = uncaptured.clone();
            device.on_uncaptured_error(Arc::new(move |_e: wgpu::Error| {
                u.store(true, Ordering::Relaxed);
            }));
        }
        let limits = device.limits();
        let loop_cap =
            brook_core::loops::loop_iteration_cap(&format!("{} {}", info.name, info.driver));
        Gpu {
            device,
            queue,
            info,
            limits,
            loop_cap,
            lost,
            own,
            uncaptured,
            exact: None,
            math: std::cell::Cell::default(),
            binds: Arc::default(),
            staging: StagingPool::default(),
            counts: std::cell::Cell::default(),
        }
    }

    /// "wgpu: llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan, Cpu)".
    pub fn describe(&self) -> String {
        format!(
            "wgpu: {} ({:?}, {:?})",
            self.info.name, self.info.backend, self.info.device_type
        )
    }

    /// Whether kernels in the accurate contract keep denormal results (exact SPIR-V in
    /// `DenormPreserve`, `exact.rs`). Elsewhere the driver may flush them to a zero of the
    /// same sign, as GL does.
    pub fn keeps_denormals(&self) -> bool {
        self.exact.is_some_and(|e| e.keeps_denormals())
    }

    /// Whether the device was created by this backend (not handed over by an app).
    pub fn owns_device(&self) -> bool {
        self.own
    }

    fn check_lost(&self) -> Result<()> {
        match self.lost.lock().ok().and_then(|l| l.clone()) {
            Some(why) => Err(WgpuError::DeviceLost(why)),
            None => Ok(()),
        }
    }

    /// Runs `work` (which creates resources and submits commands) inside error scopes and
    /// turns what they catch into an error about `op`.
    /// `op` is formatted only when there is an error to report.
    pub fn scoped<T>(
        &self,
        op: impl std::fmt::Display,
        work: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        self.check_lost()?;
        let internal = self.device.push_error_scope(wgpu::ErrorFilter::Internal);
        let memory = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let result = work();
        let v = resolve(validation.pop());
        let m = resolve(memory.pop());
        let i = resolve(internal.pop());
        self.check_lost()?;
        if let Some(e) = m {
            return Err(WgpuError::OutOfMemory {
                op: op.to_string(),
                message: e.to_string(),
            });
        }
        if let Some(e) = v.or(i) {
            return Err(WgpuError::Validation {
                op: op.to_string(),
                message: error_text(&e),
            });
        }
        result
    }

    /// The wgpu requests made on this device so far (`counts.rs`); subtract two readings
    /// for what the calls between them asked for.
    pub fn api_counts(&self) -> ApiCounts {
        self.counts.get()
    }

    /// Adds to the request counts.
    pub(crate) fn count(&self, add: impl FnOnce(&mut ApiCounts)) {
        let mut c = self.counts.get();
        add(&mut c);
        self.counts.set(c);
    }

    /// `device.create_buffer`, counted.
    pub(crate) fn create_buffer(&self, desc: &wgpu::BufferDescriptor) -> wgpu::Buffer {
        self.count(|c| c.buffers += 1);
        self.device.create_buffer(desc)
    }

    /// `device.create_bind_group`, counted.
    pub(crate) fn create_bind_group(&self, desc: &wgpu::BindGroupDescriptor) -> wgpu::BindGroup {
        self.count(|c| c.bind_groups += 1);
        self.device.create_bind_group(desc)
    }

    /// A command encoder, counted.
    pub(crate) fn encoder(&self, label: &str) -> wgpu::CommandEncoder {
        self.count(|c| c.encoders += 1);
        self.device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) })
    }

    /// `queue.submit` of `commands` (none: only the pending `write_buffer`s), counted.
    pub(crate) fn submit(&self, commands: Option<wgpu::CommandBuffer>) {
        self.count(|c| c.submits += 1);
        self.queue.submit(commands);
    }

    /// `queue.write_buffer`, counted: wgpu copies `data` through a staging buffer of its own
    /// at the next submission.
    pub(crate) fn write_buffer(&self, buffer: &wgpu::Buffer, offset: u64, data: &[u8]) {
        self.count(|c| c.writes += 1);
        self.queue.write_buffer(buffer, offset, data);
    }

    /// Waits until the queue's work has finished.
    pub fn wait(&self) -> Result<()> {
        self.count(|c| c.waits += 1);
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(drop)
            .map_err(|e| WgpuError::DeviceLost(e.to_string()))
    }

    /// The bytes `range` of `buffer` (which has `COPY_SRC`), read back through a staging
    /// buffer.
    pub fn read_back(&self, buffer: &wgpu::Buffer, range: std::ops::Range<u64>) -> Result<Vec<u8>> {
        self.read_back_with(buffer, range, <[u8]>::to_vec)
    }

    /// Reads the bytes `range` of `buffer` (which has `COPY_SRC`) back through a staging
    /// buffer and hands them to `take` while the staging buffer is mapped, so a caller copies
    /// them once, straight to where they go (streamWrite into the host array).
    pub fn read_back_with<T>(
        &self,
        buffer: &wgpu::Buffer,
        range: std::ops::Range<u64>,
        take: impl FnOnce(&[u8]) -> T,
    ) -> Result<T> {
        if range.is_empty() {
            return Ok(take(&[]));
        }
        self.read_back_after(self.encoder("brook read-back"), buffer, range, take)
    }

    /// Like [`Gpu::read_back_with`], after the commands already in `enc`, in one submission
    /// with them (a reduction to a value: its passes, then the copy of the value).
    pub(crate) fn read_back_after<T>(
        &self,
        mut enc: wgpu::CommandEncoder,
        buffer: &wgpu::Buffer,
        range: std::ops::Range<u64>,
        take: impl FnOnce(&[u8]) -> T,
    ) -> Result<T> {
        let size = range.end - range.start;
        if size == 0 {
            self.submit(Some(enc.finish()));
            return Ok(take(&[]));
        }
        let copied = size.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
        let staging = self.staging.take(self, copied);
        enc.copy_buffer_to_buffer(buffer, range.start, &staging, 0, copied);
        self.submit(Some(enc.finish()));
        let slice = staging.slice(..copied);
        let (tx, rx) = std::sync::mpsc::channel();
        self.count(|c| c.maps += 1);
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.wait()?;
        match rx.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                return Err(WgpuError::Validation {
                    op: "reading a stream back".into(),
                    message: e.to_string(),
                })
            }
            Err(_) => {
                return Err(WgpuError::DeviceLost(
                    "the read-back never completed".into(),
                ))
            }
        }
        let taken = take(
            &slice
                .get_mapped_range()
                .map_err(|e| WgpuError::Validation {
                    op: "reading a stream back".into(),
                    message: e.to_string(),
                })?[..size as usize],
        );
        staging.unmap();
        // Kept only after a read that succeeded: a buffer left mapped by an error is dropped.
        self.staging.give(staging);
        Ok(taken)
    }

    /// The bytes of staging buffers kept for the next reads back (at most 64 MiB: the
    /// bound is in `staging.rs`).
    pub fn kept_staging_bytes(&self) -> u64 {
        self.staging.kept_bytes()
    }

    /// Whether an error escaped every scope (only possible on a device the backend owns).
    pub fn uncaptured_error(&self) -> bool {
        self.uncaptured.load(Ordering::Relaxed)
    }
}

/// An error's message with its sources.
fn error_text(e: &wgpu::Error) -> String {
    let mut s = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(x) = source {
        let t = x.to_string();
        if !s.contains(&t) {
            s.push_str(": ");
            s.push_str(&t);
        }
        source = x.source();
    }
    s
}

/// The output of `future`: polled once, since native wgpu resolves an error scope's pop at
/// once; waited for with pollster otherwise (the web). Every operation pops three scopes, and
/// `pollster::block_on` allocates a signal each time.
fn resolve<F: std::future::Future>(future: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut future = std::pin::pin!(future);
    match (future.as_mut()).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => output,
        Poll::Pending => pollster::block_on(future),
    }
}
