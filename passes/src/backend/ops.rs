//! Reductions, scatters, gather-ops and write masks on the GL backend: encode, run, trace.

use std::cell::Ref;
use std::fmt::Display;

use brook_core::call::CallName;
use brook_core::{
    CallTrace, GatherOpCall, ReduceCall, ReduceOutput, ScatterCall, StreamArg, TraceEntry,
};
use brook_texture_streams::Stream as GlStream;

use super::storage::{extra_classes, hold, kernel_args, textures};
use super::{gl_program, GlBackend};
use crate::encode::mask::WriteMask;
use crate::encode::reduce::{Ends, Map, Reduction};
use crate::encode::scatter::{GatherOp, Scatter};
use crate::error::PassError;
use crate::executor::traced;

impl GlBackend {
    /// Runs a reduction; with `map`, a kernel whose output is the input is computed inside
    /// the first pass instead of read (`fused.rs`).
    pub(super) fn reduction(
        &self,
        call: &ReduceCall,
        output: ReduceOutput,
        map: Option<Map>,
    ) -> Result<(), PassError> {
        let program = gl_program(call.program)?;
        let func = call.function();
        let name = CallName("reduction", &func.name);
        let input = textures(&call.input, &name)?;
        let held = hold(call.extra, &name)?;
        let extra = kernel_args(&held, extra_classes(func));
        let (into, value): (Option<Ref<GlStream>>, _) = match output {
            ReduceOutput::Stream(s) => (Some(textures(&s, &name)?), None),
            ReduceOutput::Value(v) => (None, Some(v)),
        };
        let enc = self.encoder(self.exec.described());
        let ends = Ends {
            input: &input,
            extra: &extra,
            into: into.as_deref(),
            map,
        };
        let (spare, plan) = (&self.reduce_spares, &call.plan);
        let reduction = Reduction::new(&enc, spare, program, call.function, plan, ends)?;
        let mut steps = Vec::new();
        reduction.encode(&enc, &call.compiled.module, func, plan, ends, &mut steps)?;
        self.exec.run(&steps, None)?;
        self.exec.check(|| format!("running {name}"))?;
        let compiled = self.link_time(reduction.compiled);
        self.exec.record(|| {
            TraceEntry::Reduce(CallTrace {
                function: func.name.clone(),
                source_line: Some(call.compiled.line_of(func)),
                variant: format!(
                    "{} -> {}{}",
                    brook_core::fmt_shape(&call.plan.input),
                    if into.is_some() {
                        brook_core::fmt_shape(&call.plan.target)
                    } else {
                        "a value".into()
                    },
                    map.map_or(String::new(), |m| format!(
                        ", kernel `{}` fused into pass 1 (its output is never written)",
                        call.compiled.module.func(m.kernel).name
                    ))
                ),
                compiled,
                scratch: Vec::new(),
                passes: traced(&steps),
            })
        });
        drop(steps);
        if let Some(dst) = value {
            let result = reduction
                .intermediates
                .last()
                .expect("a value reduction ends in an intermediate");
            result.write(dst)?;
        }
        self.reduce_spares.keep(reduction.intermediates);
        Ok(())
    }

    pub(super) fn scatter_call(&self, call: &ScatterCall) -> Result<(), PassError> {
        let name: &dyn Display = &"streamScatterOp";
        let (dst, index, data) = (
            textures(&call.dst, name)?,
            textures(&call.index, name)?,
            textures(&call.data, name)?,
        );
        let enc = self.encoder(self.exec.described());
        let scatter = Scatter::new(&enc, &dst, &index, &call.op)?;
        let mut steps = Vec::new();
        scatter.encode(&enc, &dst, &index, &data, &mut steps)?;
        self.exec.run(&steps, None)?;
        self.exec.check(|| "scattering".into())?;
        self.exec.record(|| {
            TraceEntry::Scatter(CallTrace {
                function: format!("streamScatterOp {}", call.op.name()),
                source_line: None,
                variant: format!("{} elements", call.data.shape.iter().product::<usize>()),
                compiled: scatter.compiled(),
                scratch: Vec::new(),
                passes: traced(&steps),
            })
        });
        Ok(())
    }

    pub(super) fn gather_op_call(&self, call: &GatherOpCall) -> Result<(), PassError> {
        let name: &dyn Display = &"streamGatherOp";
        let (dst, index, data) = (
            textures(&call.dst, name)?,
            textures(&call.index, name)?,
            textures(&call.data, name)?,
        );
        let enc = self.encoder(self.exec.described());
        let update = call.update.as_ref().map(|(op, operand)| (op, *operand));
        let gather = GatherOp::new(&enc, &dst, &index, &data, update)?;
        let mut steps = Vec::new();
        gather.encode(&enc, &dst, &index, &data, &mut steps)?;
        self.exec.run(&steps, None)?;
        self.exec.check(|| "gathering with an update".into())?;
        self.exec.record(|| {
            TraceEntry::GatherOp(CallTrace {
                function: format!(
                    "streamGatherOp {}",
                    call.update
                        .as_ref()
                        .map_or("fetch".into(), |(op, _)| op.name())
                ),
                source_line: None,
                variant: format!("{} elements", call.index.shape.iter().product::<usize>()),
                compiled: gather.compiled(),
                scratch: Vec::new(),
                passes: traced(&steps),
            })
        });
        Ok(())
    }

    /// Draws into `mask` the first float of `from` (open where non-zero), or with `None`
    /// opens every element: `call` names it in errors and the trace.
    pub(super) fn draw_mask(
        &self,
        mask: &WriteMask,
        from: Option<&StreamArg>,
        call: &str,
    ) -> Result<(), PassError> {
        let stream = from.map(|f| textures(f, &call)).transpose()?;
        let program = self.builtins.mask(&self.ctx, &self.target.get())?;
        let enc = self.encoder(self.exec.described());
        let label = enc.label(|| match from {
            Some(_) => "the mask's first float into depth".into(),
            None => "every element open".into(),
        });
        let steps = [mask.draw(
            &program,
            stream.as_ref().and_then(|s| s.textures().first()),
            label,
        )?];
        self.exec.run(&steps, None)?;
        self.exec
            .check(|| "drawing a write mask into a depth texture".into())?;
        self.exec.record(|| {
            TraceEntry::WriteMask(CallTrace {
                function: call.to_string(),
                source_line: None,
                variant: brook_core::fmt_shape(mask.layout().shape()),
                compiled: None,
                scratch: Vec::new(),
                passes: traced(&steps),
            })
        });
        Ok(())
    }
}
