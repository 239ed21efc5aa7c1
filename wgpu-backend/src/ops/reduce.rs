//! Reductions to a value or to a stream (the tree: `shaders/reduce.rs`).

use brook_ir::{FunctionId, FunctionKind, ParamClass};

use super::kernel::extent_slot;
use super::{check_fpe, KernelArg};
use crate::backend::WgpuBackend;
use crate::error::{Result, WgpuError};
use crate::lower::values::flat_len;
use crate::pipeline::scratch;
use crate::program::{PipelineKey, WgpuProgram};
use crate::shaders::kernel::{ArgPlan, ArgShape};
use crate::shaders::reduce::{plan, reduce_module, ReduceVariant, GROUP, MAX_PER_THREAD};
use crate::stream::WgpuStream;
use crate::trace::CallTrace;
use crate::work::Work;
use brook_core::call::CallName;

/// Where a reduction's result goes.
pub enum ReduceTarget<'a> {
    /// The reduced element's floats in C layout.
    Value(&'a mut [f32]),
    /// A stream whose extents divide the input's: each element reduces its block.
    Stream(&'a WgpuStream),
}

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
        self.own("reduction", &[input])?;
        for x in extra {
            if let KernelArg::Stream(s) | KernelArg::Domain(s, _) = x {
                self.own("reduction", &[s])?;
            }
        }
        if let ReduceTarget::Stream(s) = &target {
            self.own("reduction", &[s])?;
        }
        let module = program.module();
        let func = module
            .functions
            .get(f.0 as usize)
            .ok_or_else(|| WgpuError::Unknown {
                name: format!("#{}", f.0),
                what: "reduce function",
                message: format!(
                    "the program has no reduce function #{} (a function id from another program?)",
                    f.0
                ),
            })?;
        let call = CallName("reduction", &func.name);
        let wrong = |param: &str, message: String| WgpuError::ArgumentType {
            call: call.to_string(),
            param: param.to_string(),
            message,
        };
        if func.kind != FunctionKind::Reduce {
            return Err(WgpuError::Unknown {
                name: func.name.clone(),
                what: "reduce function",
                message: format!(
                    "`{0}` is not a reduce function; declare it `reduce void {0}(T a<>, reduce T r<>)`",
                    func.name
                ),
            });
        }
        let one = |c: ParamClass| {
            let mut it = func.params.iter().enumerate().filter(|(_, p)| p.class == c);
            match (it.next(), it.next()) {
                (Some((i, _)), None) => Some(i),
                _ => None,
            }
        };
        let roles = || {
            WgpuError::Unsupported {
            call: call.to_string(),
            message: "a reduce function needs exactly one input stream and one `reduce` parameter of the same type".into(),
        }
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
            return Err(WgpuError::ArgumentCount {
                call: format!("{call} (besides its input and accumulator)"),
                expected: func.params.len() - 2,
                got: extra.len(),
            });
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
                    return Err(WgpuError::ShapeMismatch {
                        call: call.to_string(),
                        message: format!(
                            "the result needs {fpe} float(s) but the target holds {}",
                            v.len()
                        ),
                    });
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
                    return Err(WgpuError::Aliasing {
                        call: call.to_string(),
                        message: "a reduction cannot write its own input stream; reduce into another stream".into(),
                    });
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
            return Err(WgpuError::ShapeMismatch {
                call: call.to_string(),
                message: format!(
                    "the output shape {} must divide the input shape {} in every dimension",
                    brook_core::fmt_shape(&out_shape),
                    brook_core::fmt_shape(input.shape())
                ),
            });
        }
        let block: Vec<usize> = ins.iter().zip(&outs).map(|(i, o)| i / o).collect();
        let segments: usize = outs.iter().product();
        let block_len: usize = block.iter().product();

        let gpu = &self.gpu;
        let label = format!(
            "reduce `{}` to {}",
            func.name,
            if out_stream.is_some() {
                "a stream"
            } else {
                "a value"
            }
        );
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
        for blocks in [!contiguous, false] {
            let v = ReduceVariant {
                function: f,
                blocks,
                extras: extras.clone(),
            };
            let label = format!(
                "reduce {}{}",
                func.name,
                if blocks { " (blocks)" } else { "" }
            );
            let (p, built) =
                program.lowered_pipeline(gpu, &PipelineKey::Reduce(v.clone()), f, label, |m| {
                    reduce_module(module, &v, m)
                })?;
            compiled = crate::program::both(compiled, built);
            pipelines.push(p);
        }
        let (info_plan, _, extra_plans) = plan(
            module,
            &ReduceVariant {
                function: f,
                blocks: false,
                extras: extras.clone(),
            },
        );
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
                    extra_buffers.push((s.buffer().expect("checked").clone(), s.id()));
                }
                _ => unreachable!("plans follow the checked arguments"),
            }
        }
        let value = gpu.scoped(&label, || {
            let mut work = Work::new(gpu, self.tracing());
            let in_buf = input.buffer().expect("checked").clone();
            let mut source = (in_buf, input.id());
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
                    (true, Some(s)) => (s.buffer().expect("checked").clone(), s.id()),
                    _ => (
                        scratch(gpu, "brook reduce partials", (workgroups * fpe * 4) as u64),
                        0,
                    ),
                };
                let mut info = base_info.clone();
                info[0] = [workgroups as u32, 0, seg_len as u32, runs as u32];
                info[1] = [per as u32, run as u32, 0, 0];
                let mut bufs: Vec<(&wgpu::Buffer, u32)> =
                    vec![(&source.0, source.1), (&dest.0, dest.1)];
                for (b, id) in &extra_buffers {
                    bufs.push((b, *id));
                }
                pass += 1;
                work.dispatch(
                    &format!("pass {pass}: {segments} segment(s) of {seg_len} in runs of {run}"),
                    &pipelines[usize::from(pass > 1)],
                    info,
                    &bufs,
                    workgroups as u64 * u64::from(GROUP),
                    GROUP,
                );
                if last {
                    let steps = work.submit()?;
                    let value = match out_stream {
                        Some(_) => None,
                        None => Some(gpu.read_back(&dest.0, 0..(fpe * 4) as u64)?),
                    };
                    return Ok((steps, value));
                }
                source = dest;
                seg_len = runs;
            }
        })?;
        let (steps, bytes) = value;
        if let (ReduceTarget::Value(dst), Some(bytes)) = (target, bytes) {
            dst.copy_from_slice(&bytemuck::pod_collect_to_vec::<u8, f32>(&bytes));
        }
        self.record(CallTrace {
            op: label,
            compiled,
            steps,
        });
        Ok(())
    }
}
