//! A kernel call on the GL backend: the kernel's passes, then for a kernel with vouts the
//! packing of each vout, run (or only encoded, to plan) and traced.

use brook_core::call::CallName;
use brook_core::{BrookError, CallTrace, KernelCall, MaskUse, PassTrace, TraceEntry, VoutTrace};
use brook_ir::{Function, ParamClass};

use super::storage::textures_mut;
use super::{gl_program, GlBackend};
use crate::args::KernelArg;
use crate::encode::kernel::{
    encode_scratch_copies, in_place_scratch, scratch_trace, KernelPasses, Replacement,
};
use crate::encode::mask::{gl_mask, WriteMask};
use crate::encode::vout::{Packing, VoutCall};
use crate::encode::Encoder;
use crate::error::PassError;
use crate::executor::traced;
use crate::programs::{GlProgram, Linked};
use crate::step::MaskTest;

/// What a kernel call left: in-place outputs to swap in, the pushes of each vout, and (when
/// planning) the passes it would run.
pub(super) struct KernelOutcome {
    pub scratch: Vec<Replacement>,
    pub counts: Vec<usize>,
    pub plan: Vec<PassTrace>,
}

impl GlBackend {
    /// Generates and compiles the shaders a kernel call runs (kept in its program's cache),
    /// encoding and running nothing (`Backend::prepare_deferred`); whether they check their
    /// loops against the driver's cap, and how long linking them took.
    pub(super) fn kernel_programs(
        &self,
        call: &KernelCall,
        args: &[KernelArg],
    ) -> Result<(bool, Linked), PassError> {
        let enc = self.encoder(false);
        let program = gl_program(call.program)?;
        let passes = KernelPasses::new(&enc, program, call.kernel, args, &self.status_spares)?;
        let checks_loops = passes.loop_status.is_some();
        // The status texture it took goes back for the call's run, which takes it again.
        self.status_spares
            .keep(passes.loop_status.into_iter().collect());
        Ok((checks_loops, passes.compiled))
    }

    /// Encodes a kernel call and runs it unless `plan_only`.
    pub(super) fn kernel(
        &self,
        call: &KernelCall,
        args: &[KernelArg],
        plan_only: bool,
    ) -> Result<KernelOutcome, PassError> {
        let program = gl_program(call.program)?;
        let func = call.function();
        let enc = self.encoder(plan_only || self.exec.described());
        if !func
            .params
            .iter()
            .any(|p| matches!(p.class, ParamClass::Vout { .. }))
        {
            let (scratch, plan) = self.kernel_passes(&enc, program, call, args, None, plan_only)?;
            return Ok(KernelOutcome {
                scratch,
                counts: Vec::new(),
                plan,
            });
        }
        let module = &call.compiled.module;
        let vouts = VoutCall::new(&enc, &self.vout_spares, module, func, args, call.shape)?;
        let with_candidates = vouts.kernel_args(args);
        let (scratch, mut plan) = self.kernel_passes(
            &enc,
            program,
            call,
            &with_candidates,
            Some(&vouts),
            plan_only,
        )?;
        let mut kept = Vec::new();
        let mut counts = Vec::new();
        for v in &vouts.vouts {
            let packing = Packing::new(&enc, &self.vout_spares, v, vouts.elements)?;
            let mut steps = Vec::new();
            packing.encode(&enc, v, vouts.elements, &mut steps)?;
            if plan_only {
                plan.extend(traced(&steps));
            } else {
                self.exec.run(&steps, None)?;
                let passes = self.exec.tracing().then(|| traced(&steps));
                drop(steps);
                let pushed = packing.pushed()?;
                counts.push(pushed);
                if let Some(passes) = passes {
                    self.exec.record(|| {
                        TraceEntry::Vout(VoutTrace {
                            kernel: func.name.clone(),
                            vout: func.params[v.param].name.clone(),
                            elements: vouts.elements,
                            pushed,
                            passes,
                        })
                    });
                }
            }
            kept.extend(packing.into_spares());
        }
        self.exec
            .check(|| format!("packing the vouts of kernel `{}`", func.name))?;
        drop(with_candidates);
        kept.extend(vouts.into_spares());
        self.vout_spares.keep(kept);
        Ok(KernelOutcome {
            scratch,
            counts,
            plan,
        })
    }

    /// The kernel's own passes: the vouts' count clears, scratch copies, the mask a write
    /// query counts through, the draws.
    fn kernel_passes(
        &self,
        enc: &Encoder,
        program: &GlProgram,
        call: &KernelCall,
        args: &[KernelArg],
        vouts: Option<&VoutCall>,
        plan_only: bool,
    ) -> Result<(Vec<Replacement>, Vec<PassTrace>), PassError> {
        let func = call.function();
        let module = &call.compiled.module;
        let passes = KernelPasses::new(enc, program, call.kernel, args, &self.status_spares)?;
        let scratch = in_place_scratch(args, &self.scratch_spares)?;
        let MaskUse {
            masked,
            sets,
            counting,
        } = call.mask;
        // While counting without a mask, the call draws through one that passes every
        // element, so the layout's padding texels are not counted.
        let counting_mask = if counting && !masked && !sets {
            let layout = passes.output.stream.layout();
            let program = self.builtins.mask(&self.ctx, &self.target.get())?;
            Some((WriteMask::new(&self.ctx, layout)?, program))
        } else {
            None
        };
        let bound = (call.write_mask.filter(|_| masked || sets))
            .map(|m| gl_mask(m, &func.name))
            .transpose()?;
        let test = MaskTest { test: masked, sets };
        let mask = (bound.or(counting_mask.as_ref().map(|(m, _)| m))).map(|m| (m, test));
        let scratch_ref = &scratch;
        let mut steps = Vec::new();
        if let Some(vouts) = vouts {
            vouts.encode_clears(enc, &mut steps);
        }
        encode_scratch_copies(enc, args, scratch_ref, &mut steps);
        if let Some((m, p)) = &counting_mask {
            let label = enc.label(|| "every element on, for the write query".into());
            steps.push(m.draw(p, None, label)?);
        }
        passes.encode(
            enc,
            module,
            func,
            args,
            scratch_ref,
            mask,
            counting,
            &mut steps,
        )?;
        if plan_only {
            let plan = traced(&steps);
            drop(steps);
            return Ok((scratch, plan));
        }
        self.exec.run(&steps, self.query.borrow_mut().as_mut())?;
        self.exec
            .check(|| format!("running kernel `{}`", func.name))?;
        passes.check_loops(&func.name, &call.compiled.source)?;
        let compiled = self.link_time(passes.compiled);
        self.exec.record(|| {
            TraceEntry::Kernel(CallTrace {
                function: func.name.clone(),
                source_line: Some(call.compiled.line_of(func)),
                variant: passes.variant.clone(),
                compiled,
                scratch: scratch_trace(func, args, scratch_ref),
                passes: traced(&steps),
            })
        });
        drop(steps);
        self.status_spares
            .keep(passes.loop_status.into_iter().collect());
        Ok((scratch, Vec::new()))
    }
}

impl GlBackend {
    /// Swaps the in-place outputs' scratch streams in, now that the call's borrows are over,
    /// and keeps the streams they replaced as the next in-place call's scratch.
    pub(super) fn swap_in(
        &self,
        call: &KernelCall,
        scratch: Vec<Replacement>,
    ) -> Result<(), BrookError> {
        let mut replaced = Vec::with_capacity(scratch.len());
        for mut r in scratch {
            if let Some(s) = call.args[r.param].stream() {
                let name = CallName("kernel", &call.function().name);
                std::mem::swap(&mut *textures_mut(s.storage, &name)?, &mut r.stream);
                replaced.push(r.stream);
            }
        }
        self.scratch_spares.keep(replaced);
        Ok(())
    }
}

pub(super) fn kernel_classes(func: &Function) -> impl Iterator<Item = ParamClass> + '_ {
    func.params.iter().map(|p| p.class)
}
