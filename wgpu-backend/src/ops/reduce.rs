//! Reductions to a value or to a stream (the tree: `shaders/reduce.rs`), and a kernel call
//! computed in a reduction's first pass (`Backend::map_reduce`).

use brook_ir::{FunctionId, FunctionKind, ParamClass};

use super::kernel::extent_slot;
use super::{check_fpe, KernelArg};
use crate::backend::WgpuBackend;
use crate::binds::BufferKey;
use crate::error::{Result, WgpuError};
use crate::lower::values::flat_len;
use crate::program::{PipelineKey, WgpuProgram};
use crate::shaders::kernel::{ArgPlan, ArgShape};
use crate::shaders::kernel::{CALL_EXTENT, HEAD};
use crate::shaders::reduce::{reduce_module, Bind, ReduceVariant, GROUP, MAX_PER_THREAD};
use crate::stream::WgpuStream;
use crate::trace::CallTrace;
use crate::work::{Bound, Grid, Work};
use brook_core::call::CallName;

/// Where a reduction's result goes.
pub enum ReduceTarget<'a> {
    /// The reduced element's floats in C layout.
    Value(&'a mut [f32]),
    /// A stream whose extents divide the input's: each element reduces its block.
    Stream(&'a WgpuStream),
}

#[doc(hidden)]
impl WgpuBackend {
    /// Reduces `input` with reduce function `f` in index order (`extra`: its constant and
    /// gather arguments in parameter order) into `target`.
    pub fn reduce(
        &self,
        program: &WgpuProgram,
        f: FunctionId,
        input: &WgpuStream,
        extra: &[KernelArg],
        target: ReduceTarget,
    ) -> Result<()> {
        self.reduce_mapped(program, f, input, extra, target, None)
            .map(drop)
    }

    /// [`WgpuBackend::reduce`] of `input`, the one output of the kernel call `map` (the
    /// kernel and its arguments), computing the kernel in the first pass instead of reading
    /// `input` (`shaders/reduce.rs`), which is never written. Returns `false`, having run
    /// nothing, where the kernel's shader needs what a reduction pass does not bind (a write
    /// mask or query, the loop check). The caller has ruled out what would change the result
    /// (`brook_core::call::fusion_refused`).
    pub(crate) fn reduce_mapped(
        &self,
        program: &WgpuProgram,
        f: FunctionId,
        input: &WgpuStream,
        extra: &[KernelArg],
        target: ReduceTarget,
        map: Option<(FunctionId, &[KernelArg])>,
    ) -> Result<bool> {
        self.own("reduction", &[input])?;
        for x in extra {
            if let KernelArg::Stream(s) | KernelArg::Domain(s, _) = x {
                self.own("reduction", [s])?;
            }
        }
        if let ReduceTarget::Stream(s) = &target {
            self.own("reduction", [s])?;
        }
        let module = program.module();
        let func = module
            .functions
            .get(f.0 as usize)
            .ok_or_else(|| WgpuError::precondition(format_args!("#{}", f.0), "no function"))?;
        let call = CallName("reduction", &func.name);
        let wrong = |param: &str, message: String| {
            WgpuError::precondition(&call, format!("`{param}`: {message}"))
        };
        if func.kind != FunctionKind::Reduce {
            return Err(WgpuError::precondition(&call, "not a reduce function"));
        }
        let one = |c: ParamClass| {
            let mut it = func.params.iter().enumerate().filter(|(_, p)| p.class == c);
            match (it.next(), it.next()) {
                (Some((i, _)), None) => Some(i),
                _ => None,
            }
        };
        let roles = || {
            WgpuError::precondition(
                &call,
                "not one input and one `reduce` parameter of one type",
            )
        };
        let (Some(a), Some(r)) = (one(ParamClass::Stream), one(ParamClass::Reduce)) else {
            return Err(roles());
        };
        if func.params[a].ty != func.params[r].ty {
            return Err(roles());
        }
        if input.buffer().is_none() {
            return Err(wrong(
                &func.params[a].name,
                "an iterator cannot be reduced; copy it into a stream with a kernel first".into(),
            ));
        }
        check_fpe(module, &call, &func.params[a], input.floats_per_element())?;
        if extra.len() + 2 != func.params.len() {
            return Err(WgpuError::precondition(
                &call,
                "another number of arguments than parameters",
            ));
        }
        let extra_params: Vec<_> = func
            .params
            .iter()
            .filter(|p| !matches!(p.class, ParamClass::Stream | ParamClass::Reduce))
            .collect();
        let mut extras = Vec::with_capacity(extra.len());
        for (p, x) in extra_params.iter().zip(extra) {
            extras.push(match (p.class, x) {
                (ParamClass::Constant, KernelArg::Constant(v)) if v.len() == flat_len(module, &p.ty) as usize => ArgShape::Constant,
                (ParamClass::Gather { .. }, KernelArg::Stream(s)) if s.buffer().is_some() => {
                    check_fpe(module, &call, p, s.floats_per_element())?;
                    ArgShape::Gather { domain: false, rank: s.shape().len() as u8 }
                }
                _ => return Err(wrong(&p.name, format!("argument `{}` must be a constant of its type or a gathered stream (not a domain)", p.name))),
            });
        }
        let fpe = input.floats_per_element();
        // Segments: output elements, each reducing a block of the input.
        let (out_shape, out_stream) = match &target {
            ReduceTarget::Value(v) => {
                if v.len() != fpe {
                    return Err(WgpuError::precondition(
                        &call,
                        "a target of another size than the result",
                    ));
                }
                (vec![1; input.shape().len()], None)
            }
            ReduceTarget::Stream(s) => {
                if s.buffer().is_none() {
                    return Err(wrong(
                        "",
                        "an iterator cannot be written by a reduction".into(),
                    ));
                }
                if std::ptr::eq(*s, input) {
                    return Err(WgpuError::precondition(&call, "a target that is its input"));
                }
                check_fpe(module, &call, &func.params[r], s.floats_per_element())?;
                (s.shape().to_vec(), Some(*s))
            }
        };
        let rank = input.shape().len().max(out_shape.len());
        let pad = |s: &[usize]| {
            let mut p = vec![1; rank - s.len()];
            p.extend_from_slice(s);
            p
        };
        let (ins, outs) = (pad(input.shape()), pad(&out_shape));
        if ins.iter().zip(&outs).any(|(i, o)| i % o != 0) {
            return Err(WgpuError::precondition(
                &call,
                "a target whose shape does not divide the input's",
            ));
        }
        let block: Vec<usize> = ins.iter().zip(&outs).map(|(i, o)| i / o).collect();
        let segments: usize = outs.iter().product();
        let block_len: usize = block.iter().product();

        let mapped = match map {
            None => None,
            Some((kernel, args)) => match self.check_call(program, kernel, args)? {
                Some(c) if !(c.variant.check_loops || c.variant.masked || c.variant.counting) => {
                    Some((kernel, args, c))
                }
                _ => return Ok(false),
            },
        };
        let gpu = &self.gpu;
        // Formatted only for an error or the trace.
        let label = std::fmt::from_fn(|out| {
            let to = if out_stream.is_some() {
                "a stream"
            } else {
                "a value"
            };
            write!(out, "reduce `{}` to {to}", func.name)?;
            match &mapped {
                Some((k, ..)) => {
                    write!(out, ", kernel `{}` fused into pass 1", module.func(*k).name)
                }
                None => Ok(()),
            }
        });
        // A block that is one run of consecutive elements (a reduction to a value, or of
        // whole trailing dimensions) is read like the partials: no block geometry.
        let first_reduced = block.iter().position(|&b| b > 1).unwrap_or(rank);
        let contiguous = (first_reduced..rank).all(|d| block[d] == ins[d]);
        // An invocation folds up to MAX_PER_THREAD elements in a loop of its own, then
        // combines once per level of the tree.
        super::refuse_unbounded_loops(
            gpu,
            module,
            f,
            MAX_PER_THREAD + GROUP.ilog2(),
            MAX_PER_THREAD,
        )?;
        let mut compiled = None;
        let mut pipelines = Vec::new();
        let first = mapped.as_ref().map(|(.., c)| c.variant.clone());
        for (blocks, mapped) in [(!contiguous, first), (false, None)] {
            let v = ReduceVariant {
                function: f,
                blocks,
                extras: extras.clone(),
                mapped,
            };
            let computing = v.mapped.as_ref().map(|k| &module.func(k.kernel).name);
            let label = std::fmt::from_fn(|out| {
                write!(out, "reduce {}", func.name)?;
                if blocks {
                    write!(out, " (blocks)")?;
                }
                match computing {
                    Some(k) => write!(out, " computing kernel {k}"),
                    None => Ok(()),
                }
            });
            let v = std::rc::Rc::new(v);
            let key = PipelineKey::Reduce(v.clone());
            let (p, built) =
                program.lowered_pipeline(gpu, &key, f, label, |m| reduce_module(module, &v, m))?;
            compiled = crate::program::both(compiled, built);
            pipelines.push(p);
        }
        // The second pipeline's is the plan without blocks or a fused kernel: the slots and
        // extras every pass has.
        let base = pipelines[1].pass_layout();
        let (info_plan, extra_plans) = (&base.info, &base.extras);
        let mut base_info = vec![[0u32; 4]; info_plan.slots as usize];
        base_info[2] = extent_slot(&ins);
        base_info[3] = extent_slot(&block);
        base_info[4] = extent_slot(&outs);
        let mut extra_buffers = Vec::new();
        for (plan, x) in extra_plans.iter().zip(extra) {
            match (plan, x) {
                (ArgPlan::Constant { slot }, KernelArg::Constant(v)) => {
                    for (i, x) in v.iter().enumerate() {
                        base_info[*slot as usize + i / 4][i % 4] = x.to_bits();
                    }
                }
                (ArgPlan::Gather { extent, .. }, KernelArg::Stream(s)) => {
                    base_info[*extent as usize] = extent_slot(s.shape());
                    let (buf, key) = s.keyed_buffer().expect("checked");
                    extra_buffers.push((buf, s.id(), Some(key)));
                }
                _ => unreachable!("plans follow the checked arguments"),
            }
        }
        let value = gpu.scoped(&label, || {
            let mut work = Work::new(gpu, self.tracing());
            // The mapped kernel's slots and buffers, for the first pass.
            let first_pass = match &mapped {
                Some((kernel, args, c)) => {
                    let layout = pipelines[0].pass_layout();
                    let kplan = layout.kernel.as_ref().expect("a mapped pass's kernel plan");
                    let mut info = base_info.clone();
                    info.resize(layout.info.slots as usize, [0; 4]);
                    info[(kplan.head + HEAD) as usize] = [c.elements as u32, 0, 0, 0];
                    info[(kplan.head + CALL_EXTENT) as usize] = extent_slot(&c.shape);
                    let mut bound = vec![None; kplan.resources.len()];
                    let vouts = self.bind_args(
                        &mut work,
                        (kplan, &c.variant),
                        program,
                        *kernel,
                        args,
                        &c.shape,
                        &mut info,
                        &mut bound,
                    );
                    debug_assert!(vouts.is_empty(), "a mapped kernel has no vout");
                    Some((layout, info, bound))
                }
                None => None,
            };
            let (in_buf, in_key) = input.keyed_buffer().expect("checked");
            let mut source = (in_buf, input.id(), Some(in_key));
            let mut seg_len = block_len;
            let mut pass = 0;
            loop {
                // Elements per invocation: up to MAX_PER_THREAD, fewer for short segments so
                // that more invocations share the work.
                let per = seg_len
                    .div_ceil(GROUP as usize)
                    .clamp(1, MAX_PER_THREAD as usize);
                let run = per * GROUP as usize;
                let runs = seg_len.div_ceil(run);
                let workgroups = segments * runs;
                let last = runs == 1;
                let dest = match (last, out_stream) {
                    (true, Some(s)) => {
                        let (buf, key) = s.keyed_buffer().expect("checked");
                        (buf, s.id(), Some(key))
                    }
                    _ => {
                        let bytes = (workgroups * fpe * 4) as u64;
                        let (buf, key) =
                            (self.kept_scratch).get(gpu, "brook reduce partials", pass, bytes);
                        (buf, 0, Some(key))
                    }
                };
                pass += 1;
                let mut info = match (&first_pass, pass) {
                    (Some((_, info, _)), 1) => info.clone(),
                    _ => base_info.clone(),
                };
                info[0] = [workgroups as u32, 0, seg_len as u32, runs as u32];
                info[1] = [per as u32, run as u32, 0, 0];
                // Each buffer bound, with its trace id and key (none: a scratch copy of
                // this call, whose bind group is not kept).
                let bound: Vec<&(wgpu::Buffer, u32, Option<BufferKey>)> = match (&first_pass, pass)
                {
                    (Some((layout, _, kernel)), 1) => (layout.resources.iter())
                        .map(|(bind, _)| match *bind {
                            Bind::Reduce(0) => &source,
                            Bind::Reduce(1) => &dest,
                            Bind::Reduce(k) => &extra_buffers[k - 2],
                            Bind::Kernel(k) => kernel[k].as_ref().expect("every input is bound"),
                        })
                        .collect(),
                    _ => [&source, &dest].into_iter().chain(&extra_buffers).collect(),
                };
                let bufs: Vec<Bound> = bound.iter().map(|(b, id, _)| (b, *id)).collect();
                let keys: Option<Vec<BufferKey>> = bound.iter().map(|(_, _, key)| *key).collect();
                // The pass's label, for the trace (wgpu's own label otherwise).
                let what: std::borrow::Cow<str> = if work.tracing() {
                    format!("pass {pass}: {segments} segment(s) of {seg_len} in runs of {run}")
                        .into()
                } else {
                    "brook reduce pass".into()
                };
                work.dispatch_kept(
                    &what,
                    &pipelines[usize::from(pass > 1)],
                    info,
                    &bufs,
                    keys.as_deref(),
                    Grid::linear(workgroups as u64 * u64::from(GROUP), GROUP),
                );
                if last {
                    return match out_stream {
                        Some(_) => Ok((work.submit()?, None)),
                        None => (work.submit_reading(&dest.0, 0..(fpe * 4) as u64))
                            .map(|(steps, value)| (steps, Some(value))),
                    };
                }
                source = dest;
                seg_len = runs;
            }
        });
        if value.is_err() {
            // A bind group wgpu refused must not be found by the next call.
            pipelines.iter().for_each(|p| p.forget_bind_groups());
        }
        let (steps, bytes) = value?;
        if let (ReduceTarget::Value(dst), Some(bytes)) = (target, bytes) {
            dst.copy_from_slice(&bytemuck::pod_collect_to_vec::<u8, f32>(&bytes));
        }
        if self.tracing() {
            self.record(CallTrace {
                op: label.to_string(),
                compiled,
                steps,
            });
        }
        Ok(mapped.is_some())
    }
}
