//! A kernel call as one compute shader: one invocation per element of the call, no matter
//! how many outputs (nothing is split into passes).
//!
//! ```text
//! main(gid):
//!   id = linear invocation; if id >= count { return }
//!   index = unlinearize(id, call extents)          // component 0 the last dimension
//!     (a 2D call on a rows grid: index = gid.xy, id = its linear number; columns past the
//!     width return)
//!   for each input: its element (resized by Brook's rule, through its domain) → value
//!   outputs start at zero; vouts as N candidates and a count
//!   brook_kernel(values…, &outputs…)
//!   discarded → write nothing (a vout records 0 pushes)
//!   masked off → write nothing; counted → atomicAdd(query, 1)
//!   store outputs at their element (through their domain)
//! ```
//!
//! A [`KernelVariant`] is what the shader depends on besides the kernel: which inputs have
//! the call's shape (read at `id` with no index arithmetic), which arguments are domains,
//! iterator ranks, whether the write mask and query apply. Extents, bounds and constants are
//! per-call data in the `info` uniform, so one pipeline serves every shape.

use brook_ir::{self as ir, FunctionId, ParamClass};
use naga::{AddressSpace, Expression, Handle};

use super::{add_entry, declare_info, entry_ids, Elem, InfoPlan, Resource, WORKGROUP};
use crate::lower::address::{linearize, position, resize, unlinearize};
use crate::lower::module::{constant_argument, info_slot, LoopCheck, OpaqueZero, StreamAccess};
use crate::lower::values::{flat_len, vector_width, Elements};
use crate::lower::{FnBuilder, Lowered, ShaderModule};
use brook_ir::walk::for_each_expr;

/// How one argument of a kernel call is bound, as far as the shader is concerned.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ArgShape {
    /// An input stream.
    Stream {
        /// It has the call's shape and is not a domain, so its element is the call's element
        /// (read at the invocation's id, no index arithmetic).
        direct: bool,
        /// It is passed as a domain: its element is offset by the domain's first element.
        domain: bool,
        /// The stream's rank.
        rank: u8,
        /// It is also an output of the call, each element reading the one it writes, so it
        /// is bound to the output's buffer (read-write).
        aliased: bool,
        /// The index components its implicit resize needs no arithmetic for.
        resize: ResizeDims,
    },
    /// A gather parameter (`float a[]`): any element, by index.
    Gather {
        /// It is passed as a domain: indices clamp to the domain and are offset by its start.
        domain: bool,
        /// The gathered stream's rank.
        rank: u8,
    },
    /// An iterator stream: its values are computed from the element's index.
    Iter {
        /// It has the call's shape, so its element's index is the output element's and the
        /// resize is skipped, as for a direct stream: the resize's `select` would evaluate a
        /// `u32` division per element, which lavapipe runs as scalar divisions (Bitonic,
        /// `docs/performance.md`). A resize of equal extents is the identity: same bits.
        direct: bool,
        /// The iterator's rank (1, or 2 for a `float2` iterator).
        rank: u8,
    },
    /// A constant parameter: the same value for every element.
    Constant,
    /// An `out` stream.
    Out {
        /// It is passed as a domain: only that region is written.
        domain: bool,
    },
    /// A `vout` stream: pushes gathered as candidates, packed after the kernel.
    Vout,
}

/// The index components of a resized input (bit `k`: component `k`, the `k`-th dimension from
/// the last) whose implicit resize is known from the shapes alone, so the shader computes
/// none of it: `same`, where the input's extent is the call's (the index itself), and `zero`,
/// where the input's extent is 1 (always element 0: `i · 1 / n` for `i < n`). The general
/// resize, `i · to / from`, is a `u32` division per component and element, which lavapipe runs
/// as scalar divisions (a matrix–vector product's `x<1, n>` paid two per product); the CPU
/// backend likewise compiles an extent-1 dimension's index as 0. Same results bit for bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ResizeDims {
    /// Components where the input's extent is the call's.
    pub same: u8,
    /// Components where the input's extent is 1.
    pub zero: u8,
}

impl ResizeDims {
    /// The components of an input of `input` shape in a call of `call` shape (C order, the
    /// trailing dimensions lined up) that need no resize arithmetic.
    pub fn of(input: &[usize], call: &[usize]) -> ResizeDims {
        let mut dims = ResizeDims::default();
        for (k, (&i, &c)) in input
            .iter()
            .rev()
            .zip(call.iter().rev())
            .enumerate()
            .take(8)
        {
            if i == c {
                dims.same |= 1 << k;
            } else if i == 1 {
                dims.zero |= 1 << k;
            }
        }
        dims
    }
}

/// What a kernel's shader depends on (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KernelVariant {
    /// The kernel.
    pub kernel: FunctionId,
    /// How each argument is bound, in parameter order.
    pub args: Vec<ArgShape>,
    /// The rank of the call's shape.
    pub rank: u8,
    /// The write mask's test applies: elements whose mask is set write nothing.
    pub masked: bool,
    /// The write mask's set mode: elements that write set their mask element.
    pub sets_mask: bool,
    /// A write query is open: the shader counts the elements it writes.
    pub counting: bool,
    /// Every loop records how it ended, and one the driver cut short is reported
    /// (`lower/stmt.rs`): the driver caps loop iterations and the kernel's loops are not
    /// known to stay within the cap with this call's constants.
    pub check_loops: bool,
    /// The call is 2D and dispatched on a [`super::rows_grid`]: an invocation's element is
    /// its grid x and y (columns past the width idle), not its linear id divided out.
    pub rows: bool,
}

/// Where the shader finds each argument.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgPlan {
    /// An input stream: resource `buffer`; extents in slot `extent`; its resize ratio in
    /// `resize`; a domain's first element and whole extents in `domain`.
    Stream {
        /// Its storage buffer, an index into [`KernelPlan::resources`].
        buffer: usize,
        /// The info slot of its extents.
        extent: u32,
        /// The two info slots of its implicit resize from the call's extents ([`RESIZE_SLOTS`]).
        resize: u32,
        /// The info slots of a domain's first element and of the whole stream's extents.
        domain: Option<(u32, u32)>,
    },
    /// A gather stream, bound as an input stream is.
    Gather {
        /// Its storage buffer, an index into [`KernelPlan::resources`].
        buffer: usize,
        /// The info slot of its extents (the domain's, for a domain).
        extent: u32,
        /// The info slots of a domain's first element and of the whole stream's extents.
        domain: Option<(u32, u32)>,
    },
    /// An iterator: the info slots of its start and step (`f32` bits), its extents and its
    /// resize ratio.
    Iter {
        /// The slot of its start value.
        start: u32,
        /// The slot of its step per element.
        step: u32,
        /// The slot of its extents.
        extent: u32,
        /// The two info slots of its implicit resize from the call's extents ([`RESIZE_SLOTS`]).
        resize: u32,
    },
    /// The constant's floats from slot `slot` on, four per slot.
    Constant {
        /// The first slot.
        slot: u32,
    },
    /// An output stream.
    Out {
        /// Its storage buffer, an index into [`KernelPlan::resources`].
        buffer: usize,
        /// The info slots of a domain's first element and of the whole stream's extents.
        domain: Option<(u32, u32)>,
    },
    /// The candidates (N per element) and the per-element push counts.
    Vout {
        /// The candidates' buffer, an index into [`KernelPlan::resources`].
        candidates: usize,
        /// The counts' buffer, an index into [`KernelPlan::resources`].
        counts: usize,
    },
}

/// The interface between a kernel's shader and the host: slots and resources.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelPlan {
    /// The slots of the info uniform the shader reads.
    pub info: InfoPlan,
    /// The first of them: [`HEAD`], then [`CALL_EXTENT`] (0 but for [`KernelPlan::after`]).
    pub head: u32,
    /// The storage buffers it binds, from binding 1.
    pub resources: Vec<Resource>,
    /// Where it finds each argument, in parameter order.
    pub args: Vec<ArgPlan>,
    /// The write mask's resource (its floats per element in `info[0].z`).
    pub mask: Option<usize>,
    /// The write query's counter resource.
    pub counter: Option<usize>,
    /// The loop status resource (`lower::module::LoopCheck`), for a variant that checks loops.
    pub loop_status: Option<usize>,
}

/// Slot 0: element count, invocations per grid row, mask floats per element, 0 (the opaque
/// zero, `lower::module::OpaqueZero`).
pub const HEAD: u32 = 0;
/// Slot 1: the call's extents.
pub const CALL_EXTENT: u32 = 1;
/// Info slots of an input's implicit resize: per component (`.x` the last dimension), the
/// call's extent and the input's divided by their gcd (`brook_core::index::resize_ratio`), so
/// the shader's 32-bit product `i * to` stays small for every simple ratio.
pub const RESIZE_SLOTS: u32 = 2;

impl KernelPlan {
    /// Allocates the slots and resources of variant `v` of its kernel in `brook`.
    pub fn new(brook: &ir::Module, v: &KernelVariant) -> KernelPlan {
        KernelPlan::after(brook, v, InfoPlan::default())
    }

    /// [`KernelPlan::new`] with its slots after those `info` already holds (a reduction's,
    /// whose first pass computes the kernel: `shaders/fused.rs`): [`HEAD`] and
    /// [`CALL_EXTENT`] are then relative to `info.slots`.
    pub fn after(brook: &ir::Module, v: &KernelVariant, mut info: InfoPlan) -> KernelPlan {
        let func = brook.func(v.kernel);
        let head = info.alloc(2);
        let mut resources = Vec::new();
        let mut resource = |name: String, writable: bool, elem: Elem| {
            resources.push(Resource::new(name, writable, elem));
            resources.len() - 1
        };
        let mut args = Vec::with_capacity(v.args.len());
        for (p, a) in func.params.iter().zip(&v.args) {
            let floats = Elem::Floats(vector_width(flat_len(brook, &p.ty)));
            let domain = |info: &mut InfoPlan, d: bool| d.then(|| (info.alloc(1), info.alloc(1)));
            args.push(match *a {
                ArgShape::Stream {
                    domain: d, aliased, ..
                } => ArgPlan::Stream {
                    buffer: resource(p.name.clone(), aliased, floats),
                    extent: info.alloc(1),
                    resize: info.alloc(RESIZE_SLOTS),
                    domain: domain(&mut info, d),
                },
                ArgShape::Gather { domain: d, .. } => ArgPlan::Gather {
                    buffer: resource(p.name.clone(), false, floats),
                    extent: info.alloc(1),
                    domain: domain(&mut info, d),
                },
                ArgShape::Iter { .. } => ArgPlan::Iter {
                    start: info.alloc(1),
                    step: info.alloc(1),
                    extent: info.alloc(1),
                    resize: info.alloc(RESIZE_SLOTS),
                },
                ArgShape::Constant => ArgPlan::Constant {
                    slot: info.alloc(flat_len(brook, &p.ty).div_ceil(4)),
                },
                ArgShape::Out { domain: d } => ArgPlan::Out {
                    buffer: resource(format!("out {}", p.name), true, floats),
                    domain: domain(&mut info, d),
                },
                ArgShape::Vout => ArgPlan::Vout {
                    candidates: resource(format!("vout {} candidates", p.name), true, floats),
                    counts: resource(format!("vout {} counts", p.name), true, Elem::U32),
                },
            });
        }
        let mask = (v.masked || v.sets_mask)
            .then(|| resource("write mask".into(), v.sets_mask, Elem::Floats(1)));
        let counter = v
            .counting
            .then(|| resource("write query".into(), true, Elem::AtomicU32));
        let loop_status = v
            .check_loops
            .then(|| resource("loop status".into(), true, Elem::AtomicU32));
        KernelPlan {
            info,
            head,
            resources,
            args,
            mask,
            counter,
            loop_status,
        }
    }
}

/// The shader module of a kernel call of `variant`, in `math`'s mode.
pub fn kernel_module(
    brook: &ir::Module,
    v: &KernelVariant,
    math: ir::MathMode,
) -> Lowered<(naga::Module, KernelPlan)> {
    let plan = KernelPlan::new(brook, v);
    let func = brook.func(v.kernel);
    let mut sm = ShaderModule::new(brook);
    sm.math = math;
    let info = declare_info(&mut sm, plan.info.slots);
    let buffers = super::declare_storage(&mut sm, &plan.resources);
    sm.zero = Some(OpaqueZero { info, slot: HEAD });
    sm.loop_check = plan.loop_status.map(|r| LoopCheck { status: buffers[r] });
    sm.streams = vec![None; func.params.len()];
    sm.positions = vec![None; func.params.len()];
    bind_streams(&mut sm, v, &plan, &buffers);
    let identity = (0..func.params.len() as u32).map(Some).collect();
    let kernel_fn = sm.instance(v.kernel, identity)?;
    let (discard, positions) = (sm.discard, sm.positions.clone());

    let mut b = FnBuilder::new(&mut sm.types, "main");
    let ids = entry_ids(&mut b, info, WORKGROUP);
    let id = ids.global;
    let extents = info_slot(&mut b, info, CALL_EXTENT);
    let index = if v.rows {
        // The grid's rows are the call's (`info[0].y` is its width, so `id` is the element's
        // linear number); the columns past its width idle.
        let width = b.index(extents, 0);
        let past = b.ge(ids.xy[0], width);
        b.when(past, |b| b.ret(None));
        ids.xy.to_vec()
    } else {
        let head = info_slot(&mut b, info, HEAD);
        let count = b.index(head, 0);
        let past = b.ge(id, count);
        b.when(past, |b| b.ret(None));
        unlinearize(&mut b, id, extents, v.rank)
    };
    let flag = b.global(discard);
    let no = b.bool(false);
    b.store(flag, no);

    let Args {
        call_args,
        outs,
        vouts,
    } = kernel_args(
        &mut b,
        brook,
        v,
        &plan,
        (OpaqueZero { info, slot: HEAD }, &buffers),
        &positions,
        id,
        &index,
    );
    b.call(kernel_fn, call_args, false);
    let discarded = b.load(flag);

    // Vouts: an element that discards pushed nothing.
    for &(k, cand, n, cand_buf, count_buf, max) in &vouts {
        let p = &func.params[k];
        let pushed = b.load(n);
        let zero = b.i32(0);
        let pushed = b.select(discarded, zero, pushed);
        let pushed_u = b.convert(pushed, naga::ScalarKind::Uint);
        let counts_buf = b.global(buffers[count_buf]);
        let slot = b.access(counts_buf, id);
        b.store(slot, pushed_u);
        let cands = Elements {
            buffer: buffers[cand_buf],
            fpe: flat_len(brook, &p.ty),
        };
        let maxh = b.u32(max);
        let first = b.mul(id, maxh);
        let zero_u = b.u32(0);
        b.for_u32("brook_k", zero_u, pushed_u, 1, |b, k| {
            let c = b.add_(first, k);
            let kk = b.convert(k, naga::ScalarKind::Sint);
            let src = b.access(cand, kk);
            let v = b.load(src);
            cands.store(b, brook, c, v, &p.ty);
        });
    }
    b.when(discarded, |b| b.ret(None));

    // Where each output element lives (and the mask's element: the first output's).
    let mut places = Vec::with_capacity(outs.len());
    for &(_, _, _, domain) in &outs {
        places.push(match domain {
            None => id,
            Some((lo, full)) => shifted_linear(&mut b, info, &index, lo, full),
        });
    }
    if let (Some(mask), Some(&place)) = (plan.mask, places.first()) {
        let head = info_slot(&mut b, info, HEAD);
        let mfpe = b.index(head, 2);
        let at = b.mul(place, mfpe);
        let m = b.global(buffers[mask]);
        let mp = b.access(m, at);
        if v.masked {
            let on = b.load(mp);
            let zero = b.f32(0.0);
            let off = b.eq(on, zero);
            b.when(off, |b| b.ret(None));
        }
        if v.sets_mask {
            let set = b.f32(0.0);
            b.store(mp, set);
        }
    }
    if let Some(c) = plan.counter {
        let g = b.global(buffers[c]);
        let p = b.index(g, 0);
        let one = b.u32(1);
        let u = b.types.u32();
        b.atomic(naga::AtomicFunction::Add, p, one, u);
    }
    for (&(k, local, buffer, _), &place) in outs.iter().zip(&places) {
        let p = &func.params[k];
        let v = b.load(local);
        let elements = Elements {
            buffer: buffers[buffer],
            fpe: flat_len(brook, &p.ty),
        };
        elements.store(&mut b, brook, place, v, &p.ty);
    }
    let entry = b.finish();
    add_entry(&mut sm, entry, WORKGROUP);
    Ok((sm.finish(), plan))
}

/// Makes the kernel's gathers and `indexof` reach its streams through module globals
/// (`sm.streams` and `sm.positions`, indexed by kernel parameter, already long enough).
pub fn bind_streams(
    sm: &mut ShaderModule,
    v: &KernelVariant,
    plan: &KernelPlan,
    buffers: &[Handle<naga::GlobalVariable>],
) {
    let brook = sm.brook;
    let func = brook.func(v.kernel);
    let uses_indexof = module_uses_indexof(brook);
    let vec4 = sm.types.vector(naga::Scalar::F32, 4);
    for (k, (p, a)) in func.params.iter().zip(&plan.args).enumerate() {
        if let (
            ArgPlan::Gather {
                buffer,
                extent,
                domain,
            },
            ArgShape::Gather { rank, .. },
        ) = (a, &v.args[k])
        {
            sm.streams[k] = Some(StreamAccess {
                buffer: buffers[*buffer],
                fpe: flat_len(brook, &p.ty),
                rank: *rank,
                extent_slot: *extent,
                domain: *domain,
            });
        }
        if uses_indexof
            && matches!(
                p.class,
                ParamClass::Stream | ParamClass::Iter | ParamClass::Out
            )
        {
            sm.positions[k] = Some(sm.variable(
                &format!("brook_index_{}", p.name),
                AddressSpace::Private,
                vec4,
            ));
        }
    }
}

/// An `out` parameter in the shader: its index, the local it is written into, its buffer
/// (an index into [`KernelPlan::resources`]) and domain slots.
pub type OutLocal = (usize, Handle<Expression>, usize, Option<(u32, u32)>);

/// A vout in the shader: its index, candidates and count locals, candidates' and counts'
/// buffers, N.
pub type VoutLocals = (
    usize,
    Handle<Expression>,
    Handle<Expression>,
    usize,
    usize,
    u32,
);

/// What the kernel is called with for one element, and where its outputs go.
pub struct Args {
    /// The kernel function's arguments, in parameter order (vouts take three).
    pub call_args: Vec<Handle<Expression>>,
    /// Per `out` parameter, in parameter order.
    pub outs: Vec<OutLocal>,
    /// Per vout, in parameter order.
    pub vouts: Vec<VoutLocals>,
}

/// The arguments of kernel call variant `v` (`plan`; `zero`, the module's opaque zero in the
/// `info` uniform, through which constants are read; `buffers`, its resources' globals) for
/// the call's element `id` at `index`: each input read or computed (resized, through its
/// domain, an iterator's value, a constant's floats), `indexof` of each stored in
/// `positions`, and a zeroed local per output.
#[allow(clippy::too_many_arguments)] // the element, and where the shader finds its inputs
pub fn kernel_args(
    b: &mut FnBuilder,
    brook: &ir::Module,
    v: &KernelVariant,
    plan: &KernelPlan,
    (zero, buffers): (OpaqueZero, &[Handle<naga::GlobalVariable>]),
    positions: &[Option<Handle<naga::GlobalVariable>>],
    id: Handle<Expression>,
    index: &[Handle<Expression>],
) -> Args {
    let info = zero.info;
    let func = brook.func(v.kernel);
    let mut call_args = Vec::new();
    let mut outs = Vec::new();
    let mut vouts = Vec::new();
    for (k, (p, a)) in func.params.iter().zip(&plan.args).enumerate() {
        let ty = crate::lower::types::naga_type(b.types, brook, &p.ty);
        match (a, &v.args[k]) {
            (
                ArgPlan::Stream {
                    buffer,
                    extent,
                    resize,
                    domain,
                },
                ArgShape::Stream {
                    direct,
                    rank,
                    resize: dims,
                    ..
                },
            ) => {
                let (linear, own) = if *direct {
                    (id, index.to_vec())
                } else {
                    let slots = (*extent, *resize);
                    element_of(b, info, index, (slots, *dims), *domain, *rank)
                };
                if let Some(g) = positions[k] {
                    let pos = position(b, &own);
                    let gp = b.global(g);
                    b.store(gp, pos);
                }
                let elements = Elements {
                    buffer: buffers[*buffer],
                    fpe: flat_len(brook, &p.ty),
                };
                call_args.push(elements.load(b, brook, linear, &p.ty));
            }
            (
                ArgPlan::Iter {
                    start,
                    step,
                    resize,
                    ..
                },
                ArgShape::Iter { direct, rank },
            ) => {
                let own = if *direct {
                    index.to_vec()
                } else {
                    resized(b, info, index, (*resize, ResizeDims::default()), *rank)
                };
                if let Some(g) = positions[k] {
                    let pos = position(b, &own);
                    let gp = b.global(g);
                    b.store(gp, pos);
                }
                call_args.push(iterator_value(b, info, *start, *step, &own, &p.ty));
            }
            (ArgPlan::Constant { slot }, _) => {
                call_args.push(constant_argument(b, brook, &p.ty, zero, *slot));
            }
            (ArgPlan::Out { buffer, domain }, _) => {
                if let Some(g) = positions[k] {
                    let pos = position(b, index);
                    let gp = b.global(g);
                    b.store(gp, pos);
                }
                let local = b.local(&p.name, ty.expect("outputs have types"));
                call_args.push(local);
                outs.push((k, local, *buffer, *domain));
            }
            (ArgPlan::Vout { candidates, counts }, _) => {
                let ParamClass::Vout { max } = p.class else {
                    unreachable!("a vout plan is made for vout parameters")
                };
                let elem = ty.expect("vouts have types");
                let value = b.local(&p.name, elem);
                call_args.push(value);
                let arr = b.types.array_of(elem, max);
                let cand = b.local(&format!("{}_candidates", p.name), arr);
                let i32_ty = b.types.i32();
                let n = b.local(&format!("{}_count", p.name), i32_ty);
                call_args.push(cand);
                call_args.push(n);
                vouts.push((k, cand, n, *candidates, *counts, max));
            }
            (ArgPlan::Gather { .. }, _) => {}
            _ => unreachable!("plans follow the variant"),
        }
    }
    Args {
        call_args,
        outs,
        vouts,
    }
}

/// The element of an input stream read by the call's element `index`: resized into the
/// stream's extents (slots `(extent, resize)`), then through its domain. Returns the linear
/// position in the stream's storage and the index in the stream (for `indexof`).
fn element_of(
    b: &mut FnBuilder,
    info: Handle<naga::GlobalVariable>,
    index: &[Handle<Expression>],
    ((extent, resize), dims): ((u32, u32), ResizeDims),
    domain: Option<(u32, u32)>,
    rank: u8,
) -> (Handle<Expression>, Vec<Handle<Expression>>) {
    let own_ext = info_slot(b, info, extent);
    let own = resized(b, info, index, (resize, dims), rank);
    let linear = match domain {
        None => linearize(b, &own, own_ext),
        Some((lo, full)) => shifted_linear(b, info, &own, lo, full),
    };
    (linear, own)
}

/// Brook's implicit resize of the call's `index` into a stream of `rank` whose reduced ratio
/// is in the [`RESIZE_SLOTS`] slots from `slot`: the trailing dimensions line up (a lower-rank
/// stream sees the last dimensions). Components in `dims` take no arithmetic.
fn resized(
    b: &mut FnBuilder,
    info: Handle<naga::GlobalVariable>,
    index: &[Handle<Expression>],
    (slot, dims): (u32, ResizeDims),
    rank: u8,
) -> Vec<Handle<Expression>> {
    let froms = info_slot(b, info, slot);
    let tos = info_slot(b, info, slot + 1);
    (0..rank as usize)
        .map(|k| match index.get(k) {
            Some(&i) if dims.same & (1 << k) != 0 => i,
            Some(_) if dims.zero & (1 << k) != 0 => b.u32(0),
            Some(&i) => {
                let from = b.index(froms, k as u32);
                let to = b.index(tos, k as u32);
                resize(b, i, to, from)
            }
            None => b.u32(0),
        })
        .collect()
}

/// The linear position of `index` + the domain's first element (slot `lo`) in the whole
/// stream's extents (slot `full`).
fn shifted_linear(
    b: &mut FnBuilder,
    info: Handle<naga::GlobalVariable>,
    index: &[Handle<Expression>],
    lo: u32,
    full: u32,
) -> Handle<Expression> {
    let lo = info_slot(b, info, lo);
    let full = info_slot(b, info, full);
    let shifted: Vec<_> = index
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let o = b.index(lo, k as u32);
            b.add_(i, o)
        })
        .collect();
    linearize(b, &shifted, full)
}

/// An iterator's value at its index `own` (column first): `start + i * step` per component
/// (1D), or each component along its own dimension (N-D: `.x` the columns, `.y` the rows, …),
/// as the host computes it.
fn iterator_value(
    b: &mut FnBuilder,
    info: Handle<naga::GlobalVariable>,
    start: u32,
    step: u32,
    own: &[Handle<Expression>],
    ty: &ir::Type,
) -> Handle<Expression> {
    let starts = info_slot(b, info, start);
    let steps = info_slot(b, info, step);
    let n = ty.width().unwrap_or(1);
    let mut comps = Vec::with_capacity(n as usize);
    for c in 0..u32::from(n) {
        let i = if own.len() >= 2 {
            own[c as usize]
        } else {
            own[0]
        };
        let s0 = b.index(starts, c);
        let s0 = b.bitcast(s0, naga::ScalarKind::Float);
        let d = b.index(steps, c);
        let d = b.bitcast(d, naga::ScalarKind::Float);
        let fi = b.convert(i, naga::ScalarKind::Float);
        let t = b.mul(fi, d);
        comps.push(b.add_(s0, t));
    }
    if n == 1 {
        comps[0]
    } else {
        let t = b.types.vector(naga::Scalar::F32, n);
        b.compose(t, comps)
    }
}

/// Whether any function of the module uses `indexof`.
fn module_uses_indexof(m: &ir::Module) -> bool {
    let mut found = false;
    for f in &m.functions {
        for_each_expr(&f.body, &mut |e| {
            found |= matches!(e.kind, ir::ExprKind::IndexOf(_));
        });
    }
    found
}
