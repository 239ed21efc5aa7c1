//! Reductions as a workgroup-shared-memory tree that combines in index order.
//!
//! A reduction to a stream reduces one *segment* per output element (its block of the input,
//! row-major); a reduction to a value is one segment of the whole input. Each pass cuts
//! every segment into runs of `G = P × 256` consecutive elements, one workgroup per run:
//!
//! ```text
//! invocation l folds its P consecutive elements left to right:  acc = f(acc, x)
//! shared[l] = acc
//! for s in 1, 2, 4, … 128:                      (barrier between steps)
//!     if l % 2s == 0 and l + s < live: shared[l] = f(shared[l], shared[l + s])
//! invocation 0 writes shared[0]: the run's partial result
//! ```
//!
//! `shared[l]` and `shared[l + s]` always hold adjacent ranges, left before right, and the
//! invocations holding elements are a prefix (`live`), so no identity element is needed and
//! a non-commutative operator (a 2×2 matrix product) gets the CPU's answer. The next pass
//! reduces the partials of each segment the same way, until one per segment is left.
//!
//! Combining `left` and `right` is `r = left; f(right, &r)` (the reduce function's `reduce`
//! parameter is the accumulator); a `discard` in it keeps `left`, as on the CPU.
//!
//! A kernel whose one output only feeds the reduction (`Backend::map_reduce`) is computed in
//! the first pass ([`ReduceVariant::mapped`]): where the pass would load element `L` of its
//! input, it evaluates the kernel for its output's element `L` (its inputs read, resized,
//! gathered or computed as the kernel's own shader does, `shaders/kernel.rs`'s
//! `kernel_args`), so the kernel's output is never written nor read. Every element is folded
//! in the same place of the same tree, so the result is the two calls' bit for bit. The
//! pass's parameters are the kernel's, then the reduce function's numbered after them (for
//! gathers and `indexof`); its slots the reduction's, then the kernel's
//! ([`KernelPlan::after`]); its resources the reduction's but its input, then the kernel's
//! but its output ([`PassLayout`]).

use brook_ir::{self as ir, FunctionId, ParamClass};
use naga::{AddressSpace, Expression, Handle};

use super::kernel::{
    bind_streams, kernel_args, ArgPlan, ArgShape, Args, KernelPlan, KernelVariant, CALL_EXTENT,
};
use super::{add_entry, declare_info, declare_storage, entry_ids, Elem, InfoPlan, Resource};
use crate::lower::address::{linearize, unlinearize};
use crate::lower::module::{constant_argument, info_slot, OpaqueZero, StreamAccess};
use crate::lower::values::{flat_len, vector_width, Elements};
use crate::lower::{FnBuilder, Lowered, ShaderModule};
use crate::pipeline::Plan;

/// Invocations per workgroup of a reduction pass.
pub const GROUP: u32 = 256;
/// The most elements one invocation folds before the tree.
pub const MAX_PER_THREAD: u32 = 8;

/// Slot 0: `[workgroups, row, segment length, runs per segment]`; slot 1: `[P, G, 0, 0]`
/// (its `.w` the opaque zero, `lower::module::OpaqueZero`);
/// slots 2–4: the input's, a block's and the output's extents (first pass).
pub const EXTRA_SLOTS: u32 = 5;

/// What a reduction pass's shader depends on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ReduceVariant {
    pub function: FunctionId,
    /// The pass reads the input through the block geometry (the first pass, when a block is
    /// not one run of consecutive elements); otherwise segment `s`'s element `k` is at
    /// `s × length + k` (later passes read the partials so).
    pub blocks: bool,
    /// The constant and gather arguments (in parameter order, the input and accumulator left
    /// out): `Constant` or `Gather`.
    pub extras: Vec<ArgShape>,
    /// The kernel call computing the input in this pass (the first), instead of reading it.
    pub mapped: Option<KernelVariant>,
}

/// Which buffer a resource of a reduction pass binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bind {
    /// Resource `k` of [`plan`]: 0 the input, 1 the output, then the extras' gathers.
    Reduce(usize),
    /// Resource `k` of the mapped kernel's [`KernelPlan`].
    Kernel(usize),
}

/// The slots and resources of a reduction pass, with a mapped kernel's.
#[derive(Debug)]
pub struct PassLayout {
    /// The slots: [`plan`]'s, then the kernel's.
    pub info: InfoPlan,
    /// The storage buffers in binding order, and what each binds.
    pub resources: Vec<(Bind, Resource)>,
    /// Where the shader finds the extras ([`plan`]'s).
    pub extras: Vec<ArgPlan>,
    /// The mapped kernel's plan.
    pub kernel: Option<KernelPlan>,
}

/// The layout of a pass of `v`: [`plan`]'s, or with a mapped kernel, its resources but the
/// input (never read) followed by the kernel's but its output (never written).
pub fn layout(brook: &ir::Module, v: &ReduceVariant) -> PassLayout {
    let (info, resources, extras) = plan(brook, v);
    let Some(kv) = &v.mapped else {
        let resources = (resources.into_iter().enumerate())
            .map(|(k, r)| (Bind::Reduce(k), r))
            .collect();
        return PassLayout {
            info,
            resources,
            extras,
            kernel: None,
        };
    };
    let kernel = KernelPlan::after(brook, kv, info);
    let own = (resources.into_iter().enumerate().skip(1)).map(|(k, r)| (Bind::Reduce(k), r));
    let outputs: Vec<usize> = (kernel.args.iter())
        .filter_map(|a| match a {
            ArgPlan::Out { buffer, .. } => Some(*buffer),
            _ => None,
        })
        .collect();
    let kernel_own = (kernel.resources.iter().cloned().enumerate())
        .filter(|(k, _)| !outputs.contains(k))
        .map(|(k, r)| (Bind::Kernel(k), r));
    PassLayout {
        info: kernel.info.clone(),
        resources: own.chain(kernel_own).collect(),
        extras,
        kernel: Some(kernel),
    }
}

/// Slots and resources of a reduction pass: resource 0 the input (stream or partials),
/// resource 1 the output, then the extras' gathers.
pub fn plan(brook: &ir::Module, v: &ReduceVariant) -> (InfoPlan, Vec<Resource>, Vec<ArgPlan>) {
    let func = brook.func(v.function);
    let mut info = InfoPlan::default();
    info.alloc(EXTRA_SLOTS);
    let acc = func
        .params
        .iter()
        .find(|p| p.class == ParamClass::Reduce)
        .expect("checked: a reduce parameter");
    let floats = Elem::Floats(vector_width(flat_len(brook, &acc.ty)));
    let mut resources = vec![
        Resource::new("input", false, floats),
        Resource::new("out partials", true, floats),
    ];
    let mut args = Vec::new();
    let extras = func
        .params
        .iter()
        .filter(|p| !matches!(p.class, ParamClass::Stream | ParamClass::Reduce));
    for (p, shape) in extras.zip(&v.extras) {
        args.push(match shape {
            ArgShape::Gather { .. } => {
                let elem = Elem::Floats(vector_width(flat_len(brook, &p.ty)));
                resources.push(Resource::new(p.name.clone(), false, elem));
                ArgPlan::Gather {
                    buffer: resources.len() - 1,
                    extent: info.alloc(1),
                    domain: None,
                }
            }
            _ => ArgPlan::Constant {
                slot: info.alloc(flat_len(brook, &p.ty).div_ceil(4)),
            },
        });
    }
    (info, resources, args)
}

pub fn reduce_module(
    brook: &ir::Module,
    v: &ReduceVariant,
    math: ir::MathMode,
) -> Lowered<(naga::Module, (Vec<Resource>, Plan))> {
    let func = brook.func(v.function);
    let layout = layout(brook, v);
    let extra_plans = &layout.extras;
    let acc_index = func
        .params
        .iter()
        .position(|p| p.class == ParamClass::Reduce)
        .expect("checked: a reduce parameter");
    let ty = func.params[acc_index].ty.clone();
    let fpe = flat_len(brook, &ty);
    let mut sm = ShaderModule::new(brook);
    sm.math = math;
    let info = declare_info(&mut sm, layout.info.slots);
    let opaque = OpaqueZero { info, slot: 1 };
    sm.zero = Some(opaque);
    let resources: Vec<Resource> = layout.resources.iter().map(|(_, r)| r.clone()).collect();
    let declared = declare_storage(&mut sm, &resources);
    let global = |bind: Bind| {
        let at = layout.resources.iter().position(|(b, _)| *b == bind);
        at.map(|k| declared[k])
    };
    let g: Vec<_> = (0..plan(brook, v).1.len())
        .map(|k| global(Bind::Reduce(k)))
        .collect();
    // The kernel's parameters first, then the reduce function's.
    let kparams = v
        .mapped
        .as_ref()
        .map_or(0, |kv| brook.func(kv.kernel).params.len());
    sm.streams = vec![None; kparams + func.params.len()];
    sm.positions = vec![None; kparams + func.params.len()];
    let mapped = match (&v.mapped, &layout.kernel) {
        (Some(kv), Some(kplan)) => {
            // The kernel's output resources are never bound: their indices get any global,
            // which `kernel_args` never reads for an output.
            let any = declared[0];
            let kernel_g: Vec<_> = (0..kplan.resources.len())
                .map(|k| global(Bind::Kernel(k)).unwrap_or(any))
                .collect();
            bind_streams(&mut sm, kv, kplan, &kernel_g);
            let identity = (0..kparams as u32).map(Some).collect();
            let kernel_fn = sm.instance(kv.kernel, identity)?;
            Some((kv, kplan, kernel_g, kernel_fn))
        }
        _ => None,
    };
    let positions = sm.positions.clone();
    let extra_params: Vec<usize> = (0..func.params.len())
        .filter(|&k| {
            !matches!(
                func.params[k].class,
                ParamClass::Stream | ParamClass::Reduce
            )
        })
        .collect();
    for (&k, (plan, shape)) in extra_params.iter().zip(extra_plans.iter().zip(&v.extras)) {
        if let (ArgPlan::Gather { buffer, extent, .. }, ArgShape::Gather { rank, .. }) =
            (plan, shape)
        {
            sm.streams[kparams + k] = Some(StreamAccess {
                buffer: g[*buffer].expect("an extra's gather is bound"),
                fpe: flat_len(brook, &func.params[k].ty),
                rank: *rank,
                extent_slot: *extent,
                domain: None,
            });
        }
    }
    let after_kernel = (0..func.params.len()).map(|k| Some((kparams + k) as u32));
    let f = sm.instance(v.function, after_kernel.collect())?;
    let elem = crate::lower::types::value_type(&mut sm.types, brook, &ty);
    let shared_ty = sm.types.array_of(elem, GROUP);
    let shared = sm.variable("partial", AddressSpace::WorkGroup, shared_ty);
    let discard = sm.discard;
    let sm_may_discard = sm.may_discard[v.function.0 as usize];

    let mut b = FnBuilder::new(&mut sm.types, "main");
    let ids = entry_ids(&mut b, info, GROUP);
    let head = info_slot(&mut b, info, 0);
    let workgroups = b.index(head, 0);
    let seg_len = b.index(head, 2);
    let runs = b.index(head, 3);
    let pg = info_slot(&mut b, info, 1);
    let per = b.index(pg, 0);
    let run_len = b.index(pg, 1);
    // Workgroups past the last do nothing (uniformly, so the barriers below are safe).
    let past = b.ge(ids.group, workgroups);
    b.when(past, |b| b.ret(None));
    let seg = b.div(ids.group, runs);
    let run = b.rem(ids.group, runs);
    let run_first = b.mul(run, run_len);
    let lper = b.mul(ids.local, per);
    let first = b.add_(run_first, lper);
    let u32_ty = b.types.u32();
    let remaining = b.local("brook_remaining", u32_ty);
    let zero = b.u32(0);
    b.store(remaining, zero);
    let has = b.lt(first, seg_len);
    b.when(has, |b| {
        let left = b.sub(seg_len, first);
        let n = b.min(left, per);
        b.store(remaining, n);
    });
    // The invocations holding elements: ceil((seg_len - run_first) / P), at most GROUP.
    let live = b.local("brook_live", u32_ty);
    let in_run = b.gt(seg_len, run_first);
    b.when(in_run, |b| {
        let left = b.sub(seg_len, run_first);
        let p1 = b.u32(1);
        let pm1 = b.sub(per, p1);
        let up = b.add_(left, pm1);
        let n = b.div(up, per);
        let cap = b.u32(GROUP);
        let n = b.min(n, cap);
        b.store(live, n);
    });

    // Extras: constants from the info slots (gathers are reached through `streams`).
    let mut extra_values = Vec::new();
    for (&k, plan) in extra_params.iter().zip(extra_plans) {
        if let ArgPlan::Constant { slot } = plan {
            let value = constant_argument(&mut b, brook, &func.params[k].ty, opaque, *slot);
            extra_values.push((k, value));
        }
    }
    let input = g[0].map(|buffer| Elements { buffer, fpe });
    let output = Elements {
        buffer: g[1].expect("the output is bound"),
        fpe,
    };
    let may_discard = sm_may_discard;
    let fetch = |b: &mut FnBuilder, k: Handle<Expression>| -> Handle<Expression> {
        let linear = if v.blocks {
            let in_ext = info_slot(b, info, 2);
            let block = info_slot(b, info, 3);
            let out_ext = info_slot(b, info, 4);
            let o = unlinearize(b, seg, out_ext, 4);
            let local = unlinearize(b, k, block, 4);
            let idx: Vec<_> = (0..4)
                .map(|d| {
                    let bd = b.index(block, d as u32);
                    let scaled = b.mul(o[d], bd);
                    b.add_(scaled, local[d])
                })
                .collect();
            linearize(b, &idx, in_ext)
        } else {
            let base = b.mul(seg, seg_len);
            b.add_(base, k)
        };
        match (&mapped, &input) {
            (Some((kv, kplan, kernel_g, kernel_fn)), _) => {
                let extents = info_slot(b, info, kplan.head + CALL_EXTENT);
                let index = unlinearize(b, linear, extents, kv.rank);
                let Args {
                    call_args, outs, ..
                } = kernel_args(
                    b,
                    brook,
                    kv,
                    kplan,
                    (opaque, kernel_g),
                    &positions,
                    linear,
                    &index,
                );
                b.call(*kernel_fn, call_args, false);
                b.load(outs[0].1)
            }
            (None, Some(input)) => input.load(b, brook, linear, &ty),
            (None, None) => unreachable!("an unmapped pass binds its input"),
        }
    };
    let combine = |b: &mut FnBuilder,
                   left: Handle<Expression>,
                   right: Handle<Expression>|
     -> Handle<Expression> {
        let r = b.local_with("r", elem, left);
        if may_discard {
            let flag = b.global(discard);
            let no = b.bool(false);
            b.store(flag, no);
        }
        let mut args = Vec::new();
        for (k, p) in func.params.iter().enumerate() {
            match p.class {
                ParamClass::Reduce => args.push(r),
                ParamClass::Stream => args.push(right),
                ParamClass::Gather { .. } => {}
                _ => {
                    if let Some((_, v)) = extra_values.iter().find(|(q, _)| *q == k) {
                        args.push(*v);
                    }
                }
            }
        }
        b.call(f, args, false);
        // A discard (in a helper the reduction calls) keeps the left value, as on the CPU.
        if may_discard {
            let flag = b.global(discard);
            let d = b.load(flag);
            b.when(d, |b| b.store(r, left));
        }
        b.load(r)
    };

    // Each live invocation folds its run of P elements.
    let acc = b.local("acc", elem);
    let n = b.load(remaining);
    let some = b.gt(n, zero);
    let one = b.u32(1);
    let fold = b.block(|b| {
        let x0 = fetch(b, first);
        b.store(acc, x0);
        b.for_u32("j", one, n, 1, |b, j| {
            let k = b.add_(first, j);
            let x = fetch(b, k);
            let a = b.load(acc);
            let c = combine(b, a, x);
            b.store(acc, c);
        });
    });
    b.stmt(naga::Statement::If {
        condition: some,
        accept: fold,
        reject: naga::Block::new(),
    });
    let sh = b.global(shared);
    let mine = b.access(sh, ids.local);
    let a = b.load(acc);
    b.store(mine, a);
    let live_v = b.load(live);
    let mut s = 1;
    while s < GROUP {
        b.workgroup_barrier();
        let two_s = b.u32(2 * s);
        let sh_ = b.u32(s);
        let m = b.rem(ids.local, two_s);
        let aligned = b.eq(m, zero);
        let partner = b.add_(ids.local, sh_);
        let partner_live = b.lt(partner, live_v);
        let go = b.and(aligned, partner_live);
        b.when(go, |b| {
            let lp = b.access(sh, ids.local);
            let l = b.load(lp);
            let rp = b.access(sh, partner);
            let r = b.load(rp);
            let c = combine(b, l, r);
            b.store(lp, c);
        });
        s *= 2;
    }
    b.workgroup_barrier();
    let is_first = b.eq(ids.local, zero);
    b.when(is_first, |b| {
        let p0 = b.access(sh, zero);
        let v0 = b.load(p0);
        output.store(b, brook, ids.group, v0, &ty);
    });
    let entry = b.finish();
    add_entry(&mut sm, entry, GROUP);
    Ok((sm.finish(), (resources, Plan::Reduce(layout))))
}
