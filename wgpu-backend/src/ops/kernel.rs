//! A kernel call: the shader variant, the call info, in-place copies, one dispatch,
//! then the vouts' packing (`vout.rs`).

use brook_core::index::resize_ratio;
use brook_core::loops::{cut_loop_message, iteration_bound_given};
use brook_core::SourceText;
use brook_ir::{FunctionKind, ParamClass};
use std::rc::Rc;

use super::vout::{pack_vouts, VoutScratch};
use super::{call_shape_of, KernelArg};
use brook_core::call::CallName;

use crate::backend::WgpuBackend;
use crate::binds::BufferKey;
use crate::error::{Result, WgpuError};
use crate::lower::values::flat_len;
use crate::pipeline::{scratch, Plan};
use crate::program::{PipelineKey, WgpuProgram};
use crate::shaders::kernel::{
    kernel_module, ArgPlan, ArgShape, KernelPlan, KernelVariant, ResizeDims, CALL_EXTENT, HEAD,
};
use crate::shaders::{rows_grid, WORKGROUP};
use crate::trace::CallTrace;
use crate::work::{Bound, Grid, Work};

/// A checked kernel call with its pipeline, which keeps the call's variant and plan
/// ([`crate::pipeline::Pipeline::kernel_plan`]).
struct Prepared {
    shape: Vec<usize>,
    elements: usize,
    /// Its dispatch: a rows grid for a 2D call that fills one ([`rows_grid`]), else linear.
    grid: Grid,
    masking: super::mask::CallMasking,
    pipeline: std::rc::Rc<crate::pipeline::Pipeline>,
    compiled: crate::program::Built,
}

/// A checked kernel call: its shader variant, shape, element count and masking.
pub(crate) struct Checked {
    pub variant: KernelVariant,
    pub shape: Vec<usize>,
    pub elements: usize,
    pub masking: super::mask::CallMasking,
}

/// Extents as an info slot: `.x` the last dimension, 1 in unused ones.
pub fn extent_slot(shape: &[usize]) -> [u32; 4] {
    let mut e = [1u32; 4];
    for (k, &x) in shape.iter().rev().enumerate() {
        e[k] = x as u32;
    }
    e
}

/// Fills the two info slots ([`crate::shaders::kernel::RESIZE_SLOTS`]) from `slot` with the resize from the call's `shape` to an
/// input's `own`: per component, both extents divided by their gcd.
fn resize_slots(info: &mut [[u32; 4]], slot: u32, shape: &[usize], own: &[usize]) {
    let (call, own) = (extent_slot(shape), extent_slot(own));
    for k in 0..4 {
        let (from, to) = resize_ratio(call[k] as usize, own[k] as usize);
        info[slot as usize][k] = from as u32;
        info[slot as usize + 1][k] = to as u32;
    }
}

impl WgpuBackend {
    /// Finds (or builds) a kernel call's pipeline; `None` for a call with no outputs (nothing
    /// observable to compute). The call arrives checked by brook-core: what would bind
    /// wrongly if it did not is refused as a precondition.
    fn prepare_call(
        &self,
        program: &WgpuProgram,
        kernel: brook_ir::FunctionId,
        args: &[KernelArg],
    ) -> Result<Option<Prepared>> {
        let Some(Checked {
            variant,
            shape,
            elements,
            masking,
        }) = self.check_call(program, kernel, args)?
        else {
            return Ok(None);
        };
        let module = &program.module;
        let func = module.func(kernel);
        let gpu = &self.gpu;
        // The grid is a kernel call's own (a reduction computing the kernel has its own), so
        // it is chosen here, not by the checks both share.
        let rows = rows_grid(&shape, WORKGROUP);
        let grid = match rows {
            // The shader's `id` is a row's start plus the column: rows of the width.
            Some(groups) => Grid::Set {
                groups,
                row: shape[1] as u32,
            },
            None => Grid::linear(elements as u64, WORKGROUP),
        };
        let variant = Rc::new(KernelVariant {
            rows: rows.is_some(),
            ..variant
        });
        let (pipeline, compiled) = program.lowered_pipeline(
            gpu,
            &PipelineKey::Kernel(variant.clone()),
            kernel,
            format_args!("kernel {}", func.name),
            |m| {
                let (m, plan) = kernel_module(module, &variant, m)?;
                let resources = plan.resources.clone();
                Ok((m, (resources, Plan::Kernel(variant.clone(), plan))))
            },
        )?;
        Ok(Some(Prepared {
            shape,
            elements,
            grid,
            masking,
            pipeline,
            compiled,
        }))
    }

    /// Checks a kernel call and finds its shader variant; `None` for a call with no outputs
    /// (nothing observable to compute).
    pub(crate) fn check_call(
        &self,
        program: &WgpuProgram,
        kernel: brook_ir::FunctionId,
        args: &[KernelArg],
    ) -> Result<Option<Checked>> {
        let module = &program.module;
        let func = (module.functions.get(kernel.0 as usize))
            .filter(|f| f.kind == FunctionKind::Kernel)
            .ok_or_else(|| {
                WgpuError::precondition(format_args!("#{}", kernel.0), "no kernel of this program")
            })?;
        let call = CallName("kernel", &func.name);
        if args.len() != func.params.len() {
            return Err(WgpuError::precondition(
                &call,
                "another number of arguments than parameters",
            ));
        }
        let streams = args.iter().filter_map(|a| match a {
            KernelArg::Stream(s) | KernelArg::Domain(s, _) => Some(s),
            KernelArg::Constant(_) => None,
        });
        self.own(&call, streams)?;
        for (p, a) in func.params.iter().zip(args) {
            if let Some(reason) = unfit(module, p.class, &p.ty, a) {
                return Err(WgpuError::precondition(
                    &call,
                    format!("`{}`: {reason}", p.name),
                ));
            }
        }
        // The call's shape: the outputs' (all the same), or for vouts alone the first input's.
        let mut outputs = (func.params.iter().zip(args))
            .filter(|(p, _)| p.class == ParamClass::Out)
            .map(|(_, a)| call_shape_of(a));
        let first_output = outputs.next();
        // The shaders run without bounds checks (`pipeline::brook_shader_checks`): an output
        // of another shape, or a domain outside its stream, would be written out of bounds.
        if !outputs.all(|s| Some(&s) == first_output.as_ref()) {
            return Err(WgpuError::precondition(
                &call,
                "outputs of different shapes",
            ));
        }
        let has_vouts = func
            .params
            .iter()
            .any(|p| matches!(p.class, ParamClass::Vout { .. }));
        let shape = match first_output {
            Some(s) => s.into_owned(),
            None if !has_vouts => return Ok(None),
            None => (func.params.iter().zip(args))
                .find(|(p, _)| matches!(p.class, ParamClass::Stream | ParamClass::Iter))
                .map(|(_, a)| call_shape_of(a).into_owned())
                .ok_or_else(|| {
                    WgpuError::precondition(
                        &call,
                        "only vouts, and no input to give the call its shape",
                    )
                })?,
        };
        let elements: usize = shape.iter().product();
        for (p, a) in func.params.iter().zip(args) {
            if let ParamClass::Vout { max } = p.class {
                if a.stream().len() < max as usize * elements {
                    return Err(WgpuError::precondition(
                        &call,
                        format!("vout `{}` without room for its values", p.name),
                    ));
                }
            }
        }
        let masking = self.masking_for_call(&func.name, has_vouts, args, func)?;
        let variant = KernelVariant {
            kernel,
            args: func
                .params
                .iter()
                .zip(args)
                .map(|(p, a)| match (p.class, a) {
                    (ParamClass::Constant, _) => ArgShape::Constant,
                    (ParamClass::Gather { .. }, a) => ArgShape::Gather {
                        domain: matches!(a, KernelArg::Domain(..)),
                        rank: a.stream().shape().len() as u8,
                    },
                    (ParamClass::Out, a) => ArgShape::Out {
                        domain: matches!(a, KernelArg::Domain(..)),
                    },
                    (ParamClass::Vout { .. }, _) => ArgShape::Vout,
                    (_, a) if a.stream().iter_spec().is_some() => ArgShape::Iter {
                        direct: a.stream().shape() == shape.as_slice(),
                        rank: a.stream().shape().len() as u8,
                    },
                    (_, a) => ArgShape::Stream {
                        direct: matches!(a, KernelArg::Stream(_))
                            && a.stream().shape() == shape.as_slice(),
                        domain: matches!(a, KernelArg::Domain(..)),
                        rank: a.stream().shape().len() as u8,
                        aliased: reads_what_it_writes(func, args, a),
                        resize: match a {
                            KernelArg::Domain(..) => ResizeDims::default(),
                            _ => ResizeDims::of(a.stream().shape(), &shape),
                        },
                    },
                })
                .collect(),
            rank: shape.len() as u8,
            masked: masking.test,
            sets_mask: masking.sets,
            counting: masking.counting,
            check_loops: self.gpu.loop_cap().is_some_and(|cap| {
                let constant = |p: u32| match args.get(p as usize) {
                    Some(KernelArg::Constant([v])) => Some(f64::from(*v)),
                    _ => None,
                };
                iteration_bound_given(module, kernel, &constant).is_none_or(|b| b > u64::from(cap))
            }),
            // Chosen with the kernel call's grid (`prepare_call`).
            rows: false,
        };
        Ok(Some(Checked {
            variant,
            shape,
            elements,
            masking,
        }))
    }

    pub(crate) fn kernel_call(
        &self,
        program: &WgpuProgram,
        kernel: brook_ir::FunctionId,
        args: &[KernelArg],
    ) -> Result<Vec<usize>> {
        let Some(Prepared {
            shape,
            elements,
            grid,
            masking,
            pipeline,
            compiled,
        }) = self.prepare_call(program, kernel, args)?
        else {
            return Ok(Vec::new());
        };
        let module = &program.module;
        let func = module.func(kernel);
        let gpu = &self.gpu;
        let (variant, plan) = pipeline.kernel_plan();

        let name = CallName("kernel", &func.name);
        let result = gpu.scoped(&name, || {
            let mut info = vec![[0u32; 4]; plan.info.slots as usize];
            info[HEAD as usize] = [elements as u32, 0, masking.mask_fpe, 0];
            info[CALL_EXTENT as usize] = extent_slot(&shape);
            let mut work = Work::new(gpu, self.tracing());
            // Buffers bound, by resource number: (buffer, trace id, key); a scratch buffer of
            // this call has no key, and its bind group is not kept.
            let mut bound: Vec<Option<(wgpu::Buffer, u32, Option<BufferKey>)>> =
                vec![None; plan.resources.len()];
            let vout_scratch = self.bind_args(
                &mut work,
                (plan, variant),
                program,
                kernel,
                args,
                &shape,
                &mut info,
                &mut bound,
            );
            for (r, b) in [(plan.mask, &masking.mask), (plan.counter, &masking.counter)] {
                if let (Some(r), Some((buf, key))) = (r, b) {
                    bound[r] = Some((buf.clone(), 0, Some(*key)));
                }
            }
            // The status is kept between calls (each reads it back before returning). It
            // holds 0 (wgpu zeroes new buffers, `check_loops` zeroes it after a cut loop): no
            // loop was cut until the shader says so.
            let loop_status = plan.loop_status.map(|r| {
                let (status, key) = self.kept_scratch.get(gpu, "brook loop status", 0, 4);
                bound[r] = Some((status.clone(), 0, Some(key)));
                status
            });
            let bound = || {
                bound
                    .iter()
                    .map(|b| b.as_ref().expect("every resource is bound"))
            };
            let bufs: Vec<Bound> = bound().map(|(buf, id, _)| (buf, *id)).collect();
            let keys: Option<Vec<BufferKey>> = bound().map(|(_, _, key)| *key).collect();
            work.dispatch_kept("kernel", &pipeline, info, &bufs, keys.as_deref(), grid);
            let pending = pack_vouts(self, &mut work, &vout_scratch, elements)?;
            // A call that checks its loops reads its status back in the submission of its
            // work: one submission, as a reduction to a value reads its value.
            let steps = match loop_status {
                Some(status) => {
                    let (steps, read) = work.submit_reading(&status, 0..4)?;
                    self.check_loops(program, &func.name, &status, &read)?;
                    steps
                }
                None => work.submit()?,
            };
            let counts = pending.counts(gpu)?;
            if self.tracing() {
                self.record(CallTrace {
                    op: name.to_string(),
                    compiled,
                    steps,
                });
            }
            Ok(counts)
        });
        if result.is_err() {
            // A bind group wgpu refused must not be found by the next call.
            pipeline.forget_bind_groups();
        }
        result
    }
}

impl WgpuBackend {
    /// Fills the slots of `plan` (`variant`'s, of `kernel` of `program`) in `info` and the
    /// buffers of its resources in `bound` from the call's `args` (of call shape `shape`):
    /// extents, resize ratios, domains, iterators, constants; each stream's buffer, or for an
    /// input the call also writes elsewhere than at the element reading it, a copy recorded
    /// in `work`; scratch buffers for vouts, returned for their packing.
    #[allow(clippy::too_many_arguments)] // the call, and what its dispatch binds
    pub(crate) fn bind_args<'a>(
        &self,
        work: &mut Work,
        (plan, variant): (&KernelPlan, &KernelVariant),
        program: &WgpuProgram,
        kernel: brook_ir::FunctionId,
        args: &[KernelArg<'a>],
        shape: &[usize],
        info: &mut [[u32; 4]],
        bound: &mut [Option<(wgpu::Buffer, u32, Option<BufferKey>)>],
    ) -> Vec<VoutScratch<'a>> {
        let module = &program.module;
        let func = module.func(kernel);
        let gpu = &self.gpu;
        let elements: usize = shape.iter().product();
        let mut vout_scratch = Vec::new();
        let outputs = (func.params.iter().zip(args))
            .filter(|(p, _)| p.class.is_output())
            .map(|(_, a)| a.stream());
        for (k, ((p, a), ap)) in func.params.iter().zip(args).zip(&plan.args).enumerate() {
            let domain_slots = |info: &mut [[u32; 4]], d: Option<(u32, u32)>| {
                if let (Some((lo, full)), KernelArg::Domain(s, dom)) = (d, a) {
                    info[lo as usize] = extent_slot(dom.lo());
                    info[lo as usize]
                        .iter_mut()
                        .skip(dom.lo().len())
                        .for_each(|x| *x = 0);
                    info[full as usize] = extent_slot(s.shape());
                }
            };
            match ap {
                ArgPlan::Stream {
                    buffer,
                    extent,
                    domain,
                    ..
                }
                | ArgPlan::Gather {
                    buffer,
                    extent,
                    domain,
                } => {
                    let seen = call_shape_of(a);
                    info[*extent as usize] = extent_slot(&seen);
                    if let ArgPlan::Stream { resize, .. } = ap {
                        resize_slots(info, *resize, shape, &seen);
                    }
                    domain_slots(info, *domain);
                    let s = a.stream();
                    let (buf, key) = s.keyed_buffer().expect("checked: not an iterator");
                    // In place: an input that is also an output of this call is read
                    // from a copy, unless each element reads exactly the one it writes
                    // (then the shader binds that one buffer read-write).
                    let aliased = outputs.clone().any(|o| std::ptr::eq(o, s));
                    let same_element =
                        matches!(variant.args[k], ArgShape::Stream { aliased: true, .. });
                    if aliased && !same_element {
                        let copy = scratch(gpu, "brook in-place copy", buf.size());
                        work.copy(
                            &format!("{} (also an output) to a scratch buffer", p.name),
                            &buf,
                            0,
                            &copy,
                            0,
                            buf.size(),
                        );
                        bound[*buffer] = Some((copy, s.id(), None));
                    } else {
                        bound[*buffer] = Some((buf, s.id(), Some(key)));
                    }
                }
                ArgPlan::Iter {
                    start,
                    step,
                    extent,
                    resize,
                } => {
                    let s = a.stream();
                    let r = s.iter_spec().expect("checked: an iterator");
                    info[*start as usize] = r.start().map(f32::to_bits);
                    info[*step as usize] = r.step().map(f32::to_bits);
                    info[*extent as usize] = extent_slot(s.shape());
                    resize_slots(info, *resize, shape, s.shape());
                }
                ArgPlan::Constant { slot } => {
                    let KernelArg::Constant(v) = a else {
                        unreachable!("checked above")
                    };
                    for (i, x) in v.iter().enumerate() {
                        info[*slot as usize + i / 4][i % 4] = x.to_bits();
                    }
                }
                ArgPlan::Out { buffer, domain } => {
                    domain_slots(info, *domain);
                    let s = a.stream();
                    let (buf, key) = s.keyed_buffer().expect("checked: not an iterator");
                    bound[*buffer] = Some((buf, s.id(), Some(key)));
                }
                ArgPlan::Vout { candidates, counts } => {
                    let ParamClass::Vout { max } = p.class else {
                        unreachable!("vout plan")
                    };
                    let fpe = flat_len(module, &p.ty) as u64;
                    let cand = scratch(
                        gpu,
                        "brook vout candidates",
                        elements as u64 * u64::from(max) * fpe * 4,
                    );
                    let cnt = scratch(gpu, "brook vout counts", elements as u64 * 4);
                    bound[*candidates] = Some((cand.clone(), 0, None));
                    bound[*counts] = Some((cnt.clone(), 0, None));
                    vout_scratch.push(VoutScratch {
                        param: p.name.clone(),
                        stream: a.stream(),
                        candidates: cand,
                        counts: cnt,
                        max,
                        fpe: fpe as u32,
                    });
                }
            }
        }
        vout_scratch
    }
}

impl WgpuBackend {
    /// Fails the call if the driver cut a loop short: `read`, the bytes of `status` read
    /// back after the call's work, hold 0, or 1 + the byte offset of the loop
    /// (`lower::module::LoopCheck`).
    fn check_loops(
        &self,
        program: &WgpuProgram,
        kernel: &str,
        status: &wgpu::Buffer,
        read: &[u8],
    ) -> Result<()> {
        let at = u32::from_le_bytes(read[..4].try_into().expect("4 bytes read"));
        let Some(offset) = at.checked_sub(1) else {
            return Ok(());
        };
        // The next call that checks its loops reads this buffer again: zeroed before it runs.
        self.gpu.write_buffer(status, 0, &[0; 4]);
        let source = program.source.as_ref().map_or_else(
            || SourceText::new("<program>", ""),
            |s| SourceText::new(s.name.as_str(), s.text.as_str()),
        );
        let cap = self.gpu.loop_cap().unwrap_or(0);
        Err(WgpuError::DeviceLimit {
            call: format!("kernel `{kernel}`"),
            message: cut_loop_message(&source, source.line_of(offset), &self.gpu.info.name, cap),
        })
    }
}

/// Why argument `a` cannot be bound to a parameter of class `class` and type `ty` as the
/// shader plans bind it (brook-core's call checks refuse each of these first): `None` when
/// it can. A constant or element of another size would be read wrongly without an error, a
/// domain outside its stream out of bounds.
fn unfit(
    module: &brook_ir::Module,
    class: ParamClass,
    ty: &brook_ir::Type,
    a: &KernelArg,
) -> Option<&'static str> {
    let floats = flat_len(module, ty) as usize;
    let iter = |a: &KernelArg| a.stream().iter_spec().is_some();
    match (class, a) {
        (ParamClass::Constant, KernelArg::Constant(v)) => {
            (v.len() != floats).then_some("a constant of another size")
        }
        (ParamClass::Constant, _) => Some("a stream for a constant"),
        (_, KernelArg::Constant(_)) => Some("a constant for a stream"),
        (ParamClass::Reduce, _) => Some("a reduce parameter in a kernel"),
        (ParamClass::Iter, a) if !iter(a) => Some("a stored stream for an iterator"),
        (ParamClass::Gather { .. } | ParamClass::Out | ParamClass::Vout { .. }, a) if iter(a) => {
            Some("an iterator where elements are stored")
        }
        (_, KernelArg::Domain(s, d)) if d.fits(s.shape()).is_err() => {
            Some("a domain outside its stream")
        }
        (_, a) => (a.stream().floats_per_element() != floats)
            .then_some("elements of another size than the parameter's"),
    }
}

/// Whether input `a` is a whole stream that an output of the call also writes whole, with
/// the call's shape: element `i` then reads exactly what element `i` writes.
fn reads_what_it_writes(func: &brook_ir::Function, args: &[KernelArg], a: &KernelArg) -> bool {
    let KernelArg::Stream(s) = a else {
        return false;
    };
    func.params.iter().zip(args).any(|(p, o)| {
        p.class == ParamClass::Out && matches!(o, KernelArg::Stream(t) if std::ptr::eq(*t, *s))
    })
}
