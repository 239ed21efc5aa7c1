//! brook-core's [`Backend`] trait over the crate's own API, so `brook::Runtime::wgpu()` (and
//! `BRT_RUNTIME=wgpu`, `brcc run --backend wgpu`) runs every Brook program here.
//!
//! Calls arrive checked by the runtime (argument kinds, element types, aliasing, shapes, the
//! write-mask state), so the engine checks none of Brook's rules again and this module only
//! translates: a stream's storage is a
//! [`WgpuStream`], a program's a [`WgpuProgram`], and each call's own trace records become
//! brook-core's [`TraceEntry`]s (one pass per dispatch, copy or clear).

use std::any::Any;
use std::rc::Rc;

use brook_core::call::CallName;
use brook_core::{
    Backend, BackendArg, BackendMask, BackendProgram, BackendStream, BrookError, Combiner,
    Compiled, Draw, ElementFormat, GatherOpCall, IterSpec, KernelCall, PassTrace, ProgramTrace,
    ReduceCall, ReduceOutput, ScatterCall, StreamArg, TraceEntry,
};

use crate::backend::WgpuBackend;
use crate::error::WgpuError;
use crate::ops::mask::WgpuMask;
use crate::ops::reduce::ReduceTarget;
use crate::ops::scatter::ScatterOp;
use crate::ops::KernelArg;
use crate::program::WgpuProgram;
use crate::stream::WgpuStream;
use crate::trace::{CallTrace, Step};

/// The backend's own failures inside brook-core's error: a device limit, what it does not do
/// and a place in the source as core's variants of the same name (every backend reports them
/// alike), a stream request as core's, and the device's own failures as `Backend`.
impl From<WgpuError> for BrookError {
    fn from(e: WgpuError) -> BrookError {
        match e {
            WgpuError::Stream(e) => BrookError::Stream(e),
            WgpuError::DeviceLimit { call, message } => BrookError::DeviceLimit { call, message },
            WgpuError::Unsupported { call, message } => BrookError::Unsupported { call, message },
            WgpuError::At {
                file,
                line,
                text,
                error,
            } => BrookError::At {
                file,
                line,
                text,
                error: Box::new(BrookError::from(*error)),
            },
            other => BrookError::backend("wgpu", other),
        }
    }
}

/// The wgpu stream inside a stream argument.
fn stream<'a>(
    s: &StreamArg<'a>,
    call: &dyn std::fmt::Display,
) -> Result<&'a WgpuStream, BrookError> {
    s.storage
        .downcast_ref::<WgpuStream>()
        .ok_or_else(|| BrookError::ForeignStream {
            call: call.to_string(),
        })
}

fn program(p: &dyn Any) -> Result<&WgpuProgram, BrookError> {
    p.downcast_ref::<WgpuProgram>()
        .ok_or_else(|| BrookError::ForeignStream {
            call: "a program compiled for another runtime".into(),
        })
}

/// A call's arguments as the crate's API takes them (a domain argument keeps its domain).
fn kernel_args<'a>(
    args: &[BackendArg<'a>],
    call: &dyn std::fmt::Display,
) -> Result<Vec<KernelArg<'a>>, BrookError> {
    args.iter()
        .map(|a| {
            Ok(match a {
                BackendArg::Constant(v) => KernelArg::Constant(v),
                BackendArg::Stream(s) => match s.domain {
                    Some(d) => KernelArg::Domain(stream(s, call)?, d),
                    None => KernelArg::Stream(stream(s, call)?),
                },
            })
        })
        .collect()
}

fn scatter_op<'a>(c: &Combiner<'a>) -> Result<ScatterOp<'a>, BrookError> {
    Ok(match *c {
        Combiner::Replace => ScatterOp::Replace,
        Combiner::Add => ScatterOp::Add,
        Combiner::Min => ScatterOp::Min,
        Combiner::Max => ScatterOp::Max,
        Combiner::Reduce {
            program: p,
            function,
            ..
        } => ScatterOp::Reduce(program(p)?, function),
    })
}

/// One step of the crate's trace as a pass.
fn pass(step: &Step) -> PassTrace {
    let (label, program, targets, draw, viewport) = match step {
        Step::Dispatch(d) => (
            d.label.clone(),
            Some(ProgramTrace {
                id: d.pipeline,
                source: d.source.clone(),
            }),
            d.bindings.clone(),
            Draw::Dispatch {
                workgroups: d.workgroups,
            },
            // The viewport's width is the invocations that do work.
            [0, 0, d.invocations.min(i32::MAX as u64) as i32, 1],
        ),
        Step::Copy { what, bytes } | Step::Clear { what, bytes } => {
            let (verb, draw) = match step {
                Step::Copy { .. } => ("copy", Draw::Copy),
                _ => ("clear", Draw::Clear),
            };
            // The viewport's width is the floats moved.
            let floats = (*bytes / 4).min(i32::MAX as u64) as i32;
            (
                format!("{verb} {what}"),
                None,
                Vec::new(),
                draw,
                [0, 0, floats, 1],
            )
        }
    };
    PassTrace {
        label,
        program,
        targets,
        inputs: Vec::new(),
        uniforms: Vec::new(),
        viewport,
        draw,
        blend: None,
        depth: None,
        counted: false,
        discards_outside_domain: false,
        scatter: None,
    }
}

/// A call of the crate's trace as brook-core's (`function`: the Brook function, if any).
fn call_trace(c: CallTrace, compiled: &Compiled, function: Option<&str>) -> brook_core::CallTrace {
    let source_line = function
        .and_then(|name| compiled.module.function(name))
        .map(|(_, f)| compiled.line_of(f));
    brook_core::CallTrace {
        function: function.map_or(c.op.clone(), str::to_string),
        source_line,
        variant: format!("compute: {}", c.op),
        compiled: c.compiled,
        scratch: Vec::new(),
        passes: c.steps.iter().map(pass).collect(),
    }
}

impl WgpuBackend {
    /// Runs one seam call and turns what it recorded into trace entries with `entry`.
    fn traced<T>(
        &self,
        run: impl FnOnce() -> Result<T, WgpuError>,
        entry: impl Fn(CallTrace) -> TraceEntry,
    ) -> Result<T, BrookError> {
        let out = run();
        if self.tracing() {
            let recorded = self.take_trace();
            let mut entries = self.entries.borrow_mut();
            entries.extend(recorded.into_iter().map(entry));
        }
        Ok(out?)
    }
}

impl Backend for WgpuBackend {
    /// WGSL has no 64-bit integers.
    fn resize_index_bits(&self) -> u32 {
        32
    }

    fn name(&self) -> &'static str {
        "wgpu"
    }

    fn describe(&self) -> String {
        self.gpu.describe()
    }

    fn create_stream(
        &self,
        format: &ElementFormat,
        shape: &[usize],
    ) -> Result<BackendStream, BrookError> {
        Ok(Box::new(WgpuBackend::create_stream(
            self,
            &format.widths(),
            shape,
        )?))
    }

    fn create_iter(&self, spec: &IterSpec) -> Result<BackendStream, BrookError> {
        Ok(Box::new(WgpuBackend::create_iter(self, spec.clone())))
    }

    fn read(&self, s: &StreamArg, data: &[f32]) -> Result<(), BrookError> {
        Ok(WgpuBackend::read(
            self,
            stream(s, &"streamRead")?,
            s.domain,
            data,
        )?)
    }

    fn write(&self, s: &StreamArg, out: &mut [f32]) -> Result<(), BrookError> {
        Ok(WgpuBackend::write(
            self,
            stream(s, &"streamWrite")?,
            s.domain,
            out,
        )?)
    }

    fn prepare(&self, compiled: &Rc<Compiled>) -> Result<BackendProgram, BrookError> {
        Ok(Box::new(WgpuProgram::new(
            Rc::new(compiled.module.clone()),
            Some(compiled.source.clone()),
        )))
    }

    fn run_kernel(&self, call: &KernelCall) -> Result<Vec<usize>, BrookError> {
        let func = call.function();
        let name = CallName("kernel", &func.name);
        let args = kernel_args(call.args, &name)?;
        let p = program(call.program)?;
        let mask = call.write_mask.map(wgpu_mask).transpose()?;
        self.use_write_mask(mask, call.mask.masked, call.mask.sets);
        let kernel = func.name.as_str();
        self.traced(
            || self.kernel_call(p, call.kernel, &args),
            |c| TraceEntry::Kernel(call_trace(c, call.compiled, Some(kernel))),
        )
    }

    fn reduce(&self, call: &ReduceCall, output: ReduceOutput) -> Result<(), BrookError> {
        let func = call.function();
        let name = CallName("reduction", &func.name);
        let input = stream(&call.input, &name)?;
        let extra = kernel_args(call.extra, &name)?;
        let target = match output {
            ReduceOutput::Value(v) => ReduceTarget::Value(v),
            ReduceOutput::Stream(s) => ReduceTarget::Stream(stream(&s, &name)?),
        };
        let p = program(call.program)?;
        let reduce = func.name.as_str();
        self.traced(
            || WgpuBackend::reduce(self, p, call.function, input, &extra, target),
            |c| TraceEntry::Reduce(call_trace(c, call.compiled, Some(reduce))),
        )
    }

    /// The kernel computed in the reduction's first pass, its output never written
    /// (`shaders/reduce.rs`), where the kernel's shader needs nothing a reduction pass
    /// does not bind (otherwise the two calls); the runtime's gate asks
    /// `brook_core::call::fusion_refused` first.
    fn map_reduce(
        &self,
        kernel: &KernelCall,
        reduce: &ReduceCall,
        output: ReduceOutput,
    ) -> Result<bool, BrookError> {
        let func = reduce.function();
        let name = CallName("reduction", &func.name);
        let kname = CallName("kernel", &kernel.function().name);
        let input = stream(&reduce.input, &name)?;
        let extra = kernel_args(reduce.extra, &name)?;
        let args = kernel_args(kernel.args, &kname)?;
        let mut output = output;
        let target_stream = match &output {
            ReduceOutput::Stream(s) => Some(stream(s, &name)?),
            ReduceOutput::Value(_) => None,
        };
        let p = program(reduce.program)?;
        let fused = self.traced(
            || {
                let target = match (&mut output, target_stream) {
                    (_, Some(s)) => ReduceTarget::Stream(s),
                    (ReduceOutput::Value(v), None) => ReduceTarget::Value(v),
                    (ReduceOutput::Stream(_), None) => unreachable!("found above"),
                };
                let map = Some((kernel.kernel, args.as_slice()));
                self.reduce_mapped(p, reduce.function, input, &extra, target, map)
            },
            |c| TraceEntry::Reduce(call_trace(c, reduce.compiled, Some(func.name.as_str()))),
        )?;
        if !fused {
            Backend::run_kernel(self, kernel)?;
            Backend::reduce(self, reduce, output)?;
        }
        Ok(fused)
    }

    fn fuses(&self) -> bool {
        true
    }

    fn scatter(&self, call: &ScatterCall) -> Result<(), BrookError> {
        let name = "streamScatterOp";
        let (dst, index, data) = (
            stream(&call.dst, &name)?,
            stream(&call.index, &name)?,
            stream(&call.data, &name)?,
        );
        let op = scatter_op(&call.op)?;
        self.traced(
            || WgpuBackend::scatter(self, dst, index, data, op),
            |c| TraceEntry::Scatter(op_trace(c)),
        )
    }

    fn gather_op(&self, call: &GatherOpCall) -> Result<(), BrookError> {
        let name = "streamGatherOp";
        let (dst, index, data) = (
            stream(&call.dst, &name)?,
            stream(&call.index, &name)?,
            stream(&call.data, &name)?,
        );
        let update = match &call.update {
            Some((op, operand)) => Some((scatter_op(op)?, *operand)),
            None => None,
        };
        self.traced(
            || WgpuBackend::gather_op(self, dst, index, data, update),
            |c| TraceEntry::GatherOp(op_trace(c)),
        )
    }

    fn create_write_mask(&self, shape: &[usize]) -> Result<BackendMask, BrookError> {
        let mask = WgpuBackend::create_write_mask(self, shape.iter().product())?;
        Ok(Box::new(mask))
    }

    fn clear_write_mask(&self, mask: &dyn Any) -> Result<(), BrookError> {
        Ok(WgpuBackend::clear_write_mask(self, wgpu_mask(mask)?)?)
    }

    fn load_write_mask(&self, mask: &dyn Any, from: &StreamArg) -> Result<(), BrookError> {
        let m = stream(from, &"streamSetWriteMask")?;
        let mask = wgpu_mask(mask)?;
        self.traced(
            || WgpuBackend::load_write_mask(self, mask, m),
            |c| TraceEntry::WriteMask(op_trace(c)),
        )
    }

    fn begin_write_query(&self) -> Result<(), BrookError> {
        Ok(WgpuBackend::begin_write_query(self)?)
    }

    fn end_write_query(&self) -> Result<u64, BrookError> {
        Ok(WgpuBackend::end_write_query(self)?)
    }

    fn swap(&self, a: &StreamArg, b: &StreamArg) -> Result<(), BrookError> {
        let (x, y) = (stream(a, &"streamSwap")?, stream(b, &"streamSwap")?);
        let (first, second) = (x.id(), y.id());
        self.traced(
            || WgpuBackend::swap(self, x, y),
            |_| TraceEntry::Swap {
                first: vec![first],
                second: vec![second],
            },
        )
    }

    /// Later calls build (and cache, by mode) their pipelines in `mode` ([`crate::gpu::Gpu::math`]).
    fn set_math_mode(&self, mode: brook_ir::MathMode) -> Result<(), BrookError> {
        self.gpu.math.set(mode);
        Ok(())
    }

    fn set_trace(&self, on: bool) {
        WgpuBackend::set_trace(self, on);
        self.entries.borrow_mut().clear();
    }

    fn take_trace(&self) -> Vec<TraceEntry> {
        std::mem::take(&mut *self.entries.borrow_mut())
    }

    fn finish(&self) {
        // A failure here is a lost device: the next call reports it as an error.
        let _ = WgpuBackend::finish(self);
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The wgpu mask behind a backend mask.
fn wgpu_mask(mask: &dyn Any) -> Result<&WgpuMask, BrookError> {
    mask.downcast_ref()
        .ok_or_else(|| BrookError::ForeignStream {
            call: "a write mask of another backend".into(),
        })
}

/// A scatter, gather-op or write mask: no Brook function of its own to name.
fn op_trace(c: CallTrace) -> brook_core::CallTrace {
    brook_core::CallTrace {
        function: c.op.clone(),
        source_line: None,
        variant: "compute".into(),
        compiled: c.compiled,
        scratch: Vec::new(),
        passes: c.steps.iter().map(pass).collect(),
    }
}
