//! A Brook program prepared for wgpu: its IR and the pipelines built for it, one per shader
//! variant, on first use.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

use brook_core::budget::{refuse_over_budget, OverBudget};
use brook_ir::{Function, FunctionId, FunctionKind, MathMode, Module};

use crate::error::{Result, WgpuError};
use crate::gpu::Gpu;
use crate::pipeline::{build, shader_error, Bounds, Pipeline, Plan, Source};
use crate::shaders::Resource;

/// How long a call spent building pipelines (lowering, validation, the driver's compile);
/// `None` when it reused them all.
pub type Built = Option<Duration>;

/// The build times of two steps of one call, together.
pub fn both(a: Built, b: Built) -> Built {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or_default() + b.unwrap_or_default()),
    }
}

/// Refuses a shader of `func` binding more than the device's storage buffers per shader stage,
/// naming the function, the count and the limit: wgpu's own refusal, at the bind group layout,
/// names no Brook function or stream.
fn check_storage_buffers(gpu: &Gpu, func: &Function, count: usize) -> Result<()> {
    let max = gpu.limits.max_storage_buffers_per_shader_stage;
    if count <= max as usize {
        return Ok(());
    }
    let kind = match func.kind {
        FunctionKind::Kernel => "kernel",
        FunctionKind::Reduce => "reduce function",
        FunctionKind::Helper => "function",
    };
    Err(WgpuError::DeviceLimit {
        call: format!("{kind} `{}`", func.name),
        message: format!(
            "binds {count} storage buffers in one shader (one per input, gathered and output stream, two per vout, one each for a write mask and a write query), but this wgpu device allows {max} per shader stage; pass fewer streams, or pack them into float4s or structs"
        ),
    })
}

/// What a pipeline of a program is keyed by.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum PipelineKey {
    /// A kernel's variant (shared: a call looks its pipeline up with the variant it made,
    /// and the pipeline keeps it in its plan).
    Kernel(Rc<crate::shaders::kernel::KernelVariant>),
    /// A reduction's variant (shared as a kernel's is).
    Reduce(Rc<crate::shaders::reduce::ReduceVariant>),
    /// A round of a scatter or gather-op with a reduce function.
    Round(FunctionId, crate::shaders::scatter::RoundInput),
}

/// A Brook program prepared for this backend: its IR, its source for error lines, and the
/// pipelines built for it so far (one per kernel variant, reduction or scatter round).
pub struct WgpuProgram {
    pub(crate) module: Rc<Module>,
    pub(crate) source: Option<Source>,
    /// By the math mode they were built in ([`Gpu::math`]) and their key.
    pipelines: RefCell<HashMap<MathMode, HashMap<PipelineKey, Rc<Pipeline>>>>,
}

impl WgpuProgram {
    /// A program of `module` (its `source`, when known, names the Brook line of a shader
    /// error), with no pipelines built yet: they are built at first use.
    pub fn new(module: Rc<Module>, source: Option<Source>) -> WgpuProgram {
        WgpuProgram {
            module,
            source,
            pipelines: RefCell::new(HashMap::new()),
        }
    }

    /// The program's typed IR.
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The pipeline of `key`, built by `make` on first use; also how long building it took
    /// when it was built now (`None`: reused).
    pub(crate) fn pipeline(
        &self,
        gpu: &Gpu,
        key: &PipelineKey,
        function: FunctionId,
        make: impl FnOnce() -> Result<(String, naga::Module, (Vec<Resource>, Plan))>,
    ) -> Result<(Rc<Pipeline>, Built)> {
        let math = gpu.math.get();
        if let Some(p) = (self.pipelines.borrow().get(&math)).and_then(|m| m.get(key)) {
            return Ok((p.clone(), None));
        }
        let started = Instant::now();
        let (label, module, layout) = make()?;
        let func = self.module.func(function);
        check_storage_buffers(gpu, func, layout.0.len())?;
        let name = &func.name;
        let bounds = match key {
            PipelineKey::Kernel(_) => Bounds::BrookClamped,
            PipelineKey::Reduce(_) | PipelineKey::Round(..) => Bounds::Checked,
        };
        let p = Rc::new(build(
            gpu,
            label,
            module,
            layout,
            name,
            self.source.as_ref(),
            bounds,
        )?);
        (self.pipelines.borrow_mut().entry(math).or_default()).insert(key.clone(), p.clone());
        Ok((p, Some(started.elapsed())))
    }

    /// Like [`WgpuProgram::pipeline`] for a module lowered from the program's Brook code:
    /// a function past the compile budget (`brook_core::budget`: lavapipe compiles through
    /// Mesa as llvmpipe does) and a construct the lowering refuses are reported at their
    /// Brook line. `label` is formatted only when the pipeline is built; `make` lowers in the
    /// math mode it is given ([`Gpu::math`]).
    pub(crate) fn lowered_pipeline(
        &self,
        gpu: &Gpu,
        key: &PipelineKey,
        function: FunctionId,
        label: impl std::fmt::Display,
        make: impl FnOnce(MathMode) -> crate::lower::Lowered<(naga::Module, (Vec<Resource>, Plan))>,
    ) -> Result<(Rc<Pipeline>, Built)> {
        let math = gpu.math.get();
        self.pipeline(gpu, key, function, || {
            refuse_over_budget(&self.module, function).map_err(|e| self.over_budget(e))?;
            let (m, r) = make(math).map_err(|e| {
                shader_error(
                    &self.module.func(function).name,
                    self.source.as_ref(),
                    Some(e.span.start as usize),
                    e.message,
                )
            })?;
            Ok((label.to_string(), m, r))
        })
    }

    /// A compile budget refusal, placed at its Brook line.
    fn over_budget(&self, e: OverBudget) -> WgpuError {
        let error = Box::new(WgpuError::Unsupported {
            call: "compute shader generation".into(),
            message: e.message,
        });
        let Some(source) = &self.source else {
            return *error;
        };
        let line = source.line_of(e.span.start);
        WgpuError::At {
            file: source.name.clone(),
            line,
            text: source.line(line).to_string(),
            error,
        }
    }

    /// How many pipelines the program has built.
    pub fn pipelines_built(&self) -> usize {
        self.pipelines.borrow().values().map(HashMap::len).sum()
    }
}
