//! The shaders of `streamScatterOp` and `streamGatherOp`.
//!
//! Every one finds an element's target the CPU's way (`scatter_target`): the index element
//! has one float per destination dimension, `.x` the last, each rounded `floor(v + 0.25)` and
//! clamped to the destination (the gather rule).
//!
//! - Replace, last element in index order wins: [`claim`] has every element `atomicMax` its
//!   number (plus one) into a per-target winner, then [`write_winners`] has the winners copy
//!   their element. Deterministic.
//! - Min and max: floats mapped to `u32` keys whose order is the floats' order
//!   ([`to_keys`]), combined with `atomicMin`/`atomicMax` ([`min_max`]), mapped back. NaN
//!   elements are skipped and a NaN destination starts as the identity, which gives
//!   `f32::min`/`max`'s answers (the CPU's). Deterministic.
//! - Add: a compare-and-swap loop on each float's bits ([`add`]). Collisions add in the order
//!   the GPU runs them, so results equal the CPU's in-order sums only up to rounding (exactly
//!   when the sums are exact, e.g. integers).
//! - A user `reduce` function, and every `streamGatherOp` update: in conflict-free rounds
//!   planned on the host (`reduce_round`, `gather_op_round`): round `k` holds the `k`-th
//!   element aimed at each target, so each target is combined in index order by one
//!   invocation per round, reading and writing it in place.

use brook_ir::{self as ir, FunctionId, Scalar as BScalar};
use naga::{AtomicFunction, Expression, Handle, ScalarKind, Statement};

use super::{add_entry, declare_info, declare_storage, entry_ids, Elem, Resource, WORKGROUP};
use crate::lower::address::{gather_component_f, linearize};
use crate::lower::module::{info_slot, info_slot_opaque, OpaqueZero};
use crate::lower::values::Elements;
use crate::lower::{FnBuilder, Lowered, ShaderModule};

type H = Handle<Expression>;

fn res(name: &str, writable: bool, elem: Elem) -> Resource {
    Resource::new(name, writable, elem)
}

const F: Elem = Elem::Floats(1);

/// Info slot 0: `[n, row, rank of the destination, floats per element]`; slot 1: the
/// destination's extents; slot 2: `[op, first, 0, 0]` where the shader needs them.
pub const SLOTS: u32 = 3;

/// The slot whose `.w` is every scatter shader's opaque zero (`lower::module::OpaqueZero`):
/// slot 2, which the host fills with at most two components.
const ZERO_SLOT: u32 = 2;

/// Info slot 0, `[n, row, rank, floats per element]`, read at an index offset by the opaque
/// zero (`info_slot_opaque`): the rank decides branches against constants and the floats per
/// element bound a loop, which lavapipe would otherwise inline, compiling the shader anew at
/// every dispatch.
fn head(b: &mut FnBuilder, info: Handle<naga::GlobalVariable>) -> H {
    let zero = OpaqueZero {
        info,
        slot: ZERO_SLOT,
    };
    info_slot_opaque(b, zero, 0)
}

/// The target (linear element of the destination) of index element `i`.
fn target(b: &mut FnBuilder, index: H, i: H, info: Handle<naga::GlobalVariable>) -> H {
    let head = head(b, info);
    let rank = b.index(head, 2);
    let extents = info_slot(b, info, 1);
    // The rank is data, so all four components are computed and the unused ones are 0.
    let zero = b.u32(0);
    let mut comps = Vec::with_capacity(4);
    for k in 0..4u32 {
        let kk = b.u32(k);
        let used = b.lt(kk, rank);
        let at_rank = b.mul(i, rank);
        let at = b.add_(at_rank, kk);
        let f32_ty = b.types.f32();
        let slot = b.local("brook_index_component", f32_ty);
        b.when(used, |b| {
            let p = b.access(index, at);
            let v = b.load(p);
            b.store(slot, v);
        });
        let v = b.load(slot);
        let e = b.index(extents, k);
        let c = gather_component_f(b, v, e);
        comps.push(b.select(used, c, zero));
    }
    linearize(b, &comps, extents)
}

/// A module with one entry point whose body `body` builds, over `n = info[0].x` invocations
/// (each returning early past `n`).
fn element_shader(
    brook: &ir::Module,
    resources: Vec<Resource>,
    body: impl FnOnce(&mut FnBuilder, H, Handle<naga::GlobalVariable>, &[Handle<naga::GlobalVariable>]),
) -> (naga::Module, Vec<Resource>) {
    let mut sm = ShaderModule::new(brook);
    let info = declare_info(&mut sm, SLOTS);
    let g = declare_storage(&mut sm, &resources);
    let mut b = FnBuilder::new(&mut sm.types, "main");
    let ids = entry_ids(&mut b, info, WORKGROUP);
    let head = info_slot(&mut b, info, 0);
    let n = b.index(head, 0);
    let past = b.ge(ids.global, n);
    b.when(past, |b| b.ret(None));
    body(&mut b, ids.global, info, &g);
    let f = b.finish();
    add_entry(&mut sm, f, WORKGROUP);
    (sm.finish(), resources)
}

/// `atomicMax(winner[target(i)], i + 1)`.
pub fn claim(brook: &ir::Module) -> (naga::Module, Vec<Resource>) {
    element_shader(
        brook,
        vec![
            res("index", false, F),
            res("winners", true, Elem::AtomicU32),
        ],
        |b, i, info, g| {
            let index = b.global(g[0]);
            let t = target(b, index, i, info);
            let w = b.global(g[1]);
            let p = b.access(w, t);
            let one = b.u32(1);
            let me = b.add_(i, one);
            let u = b.types.u32();
            b.atomic(AtomicFunction::Max, p, me, u);
        },
    )
}

/// The winner of each target copies its element there.
pub fn write_winners(brook: &ir::Module) -> (naga::Module, Vec<Resource>) {
    element_shader(
        brook,
        vec![
            res("index", false, F),
            res("data", false, F),
            res("winners", false, Elem::U32),
            res("out dst", true, F),
        ],
        |b, i, info, g| {
            let index = b.global(g[0]);
            let t = target(b, index, i, info);
            let w = b.global(g[2]);
            let wp = b.access(w, t);
            let winner = b.load(wp);
            let one = b.u32(1);
            let me = b.add_(i, one);
            let lost = b.ne(winner, me);
            b.when(lost, |b| b.ret(None));
            copy_element(b, g[1], i, g[3], t, info);
        },
    )
}

/// `streamGatherOp` without an update: `out[i] = data[target(i)]`.
pub fn fetch(brook: &ir::Module) -> (naga::Module, Vec<Resource>) {
    element_shader(
        brook,
        vec![
            res("index", false, F),
            res("data", false, F),
            res("out gathered", true, F),
        ],
        |b, i, info, g| {
            let index = b.global(g[0]);
            let t = target(b, index, i, info);
            copy_element(b, g[1], t, g[2], i, info);
        },
    )
}

/// `dst[t] = src[s]`, `info[0].w` floats.
fn copy_element(
    b: &mut FnBuilder,
    src: Handle<naga::GlobalVariable>,
    s: H,
    dst: Handle<naga::GlobalVariable>,
    t: H,
    info: Handle<naga::GlobalVariable>,
) {
    let head = head(b, info);
    let fpe = b.index(head, 3);
    let from = b.mul(s, fpe);
    let to = b.mul(t, fpe);
    let src = b.global(src);
    let dst = b.global(dst);
    let zero = b.u32(0);
    b.for_u32("f", zero, fpe, 1, |b, f| {
        let a = b.add_(from, f);
        let sp = b.access(src, a);
        let v = b.load(sp);
        let c = b.add_(to, f);
        let dp = b.access(dst, c);
        b.store(dp, v);
    });
}

/// The order-preserving key of float bits: flip all bits of negatives, the sign of others.
fn key(b: &mut FnBuilder, bits: H) -> H {
    let sign = b.u32(0x8000_0000);
    let s = b.bin(naga::BinaryOperator::And, bits, sign);
    let zero = b.u32(0);
    let negative = b.ne(s, zero);
    let all = b.u32(0xffff_ffff);
    let mask = b.select(negative, all, sign);
    b.bin(naga::BinaryOperator::ExclusiveOr, bits, mask)
}

/// The float bits of a key (the inverse of [`key`]).
fn unkey(b: &mut FnBuilder, k: H) -> H {
    let sign = b.u32(0x8000_0000);
    let s = b.bin(naga::BinaryOperator::And, k, sign);
    let zero = b.u32(0);
    let was_positive = b.ne(s, zero);
    let all = b.u32(0xffff_ffff);
    let mask = b.select(was_positive, sign, all);
    b.bin(naga::BinaryOperator::ExclusiveOr, k, mask)
}

fn is_nan_bits(b: &mut FnBuilder, bits: H) -> H {
    let m = b.u32(0x7fff_ffff);
    let mag = b.bin(naga::BinaryOperator::And, bits, m);
    let inf = b.u32(0x7f80_0000);
    b.gt(mag, inf)
}

/// Maps every float of the destination to its key (`info[2].x`: 0 min, 1 max; NaN becomes
/// the identity of the combination), or (`info[2].y` = 1) back from keys to floats.
pub fn to_keys(brook: &ir::Module) -> (naga::Module, Vec<Resource>) {
    element_shader(
        brook,
        vec![res("out dst", true, Elem::U32)],
        |b, i, info, g| {
            let s = info_slot(b, info, 2);
            let op = b.index(s, 0);
            let back = b.index(s, 1);
            let dst = b.global(g[0]);
            let p = b.access(dst, i);
            let v = b.load(p);
            let one = b.u32(1);
            let backward = b.eq(back, one);
            b.if_(
                backward,
                |b| {
                    let f = unkey(b, v);
                    b.store(p, f);
                },
                |b| {
                    let k = key(b, v);
                    let nan = is_nan_bits(b, v);
                    let is_max = b.eq(op, one);
                    let lowest = b.u32(0);
                    let highest = b.u32(0xffff_ffff);
                    let identity = b.select(is_max, lowest, highest);
                    let k = b.select(nan, identity, k);
                    b.store(p, k);
                },
            );
        },
    )
}

/// `atomicMin`/`atomicMax` (`info[2].x`: 0 min, 1 max) of each non-NaN float's key into its
/// target's key.
pub fn min_max(brook: &ir::Module) -> (naga::Module, Vec<Resource>) {
    element_shader(brook, atomic_resources(), |b, i, info, g| {
        let s = info_slot(b, info, 2);
        let op = b.index(s, 0);
        let one = b.u32(1);
        let is_max = b.eq(op, one);
        each_float_into_target(b, i, info, g, |b, x, dst| {
            let bits = b.bitcast(x, ScalarKind::Uint);
            let nan = is_nan_bits(b, bits);
            let ok = b.not(nan);
            b.when(ok, |b| {
                let k = key(b, bits);
                let u = b.types.u32();
                b.if_(
                    is_max,
                    |b| {
                        b.atomic(AtomicFunction::Max, dst, k, u);
                    },
                    |b| {
                        b.atomic(AtomicFunction::Min, dst, k, u);
                    },
                );
            });
        });
    })
}

/// Index, data, and the destination as atomic `u32`s.
fn atomic_resources() -> Vec<Resource> {
    vec![
        res("index", false, F),
        res("data", false, F),
        res("out dst", true, Elem::AtomicU32),
    ]
}

/// Calls `body` with each float `x` of element `i` of the data (resource 1) and a pointer
/// to the float of its target in the destination (resource 2).
fn each_float_into_target(
    b: &mut FnBuilder,
    i: H,
    info: Handle<naga::GlobalVariable>,
    g: &[Handle<naga::GlobalVariable>],
    body: impl Fn(&mut FnBuilder, H, H),
) {
    let index = b.global(g[0]);
    let t = target(b, index, i, info);
    let head = head(b, info);
    let fpe = b.index(head, 3);
    let from = b.mul(i, fpe);
    let to = b.mul(t, fpe);
    let data = b.global(g[1]);
    let dst = b.global(g[2]);
    let zero = b.u32(0);
    b.for_u32("f", zero, fpe, 1, |b, f| {
        let a = b.add_(from, f);
        let sp = b.access(data, a);
        let x = b.load(sp);
        let c = b.add_(to, f);
        let dp = b.access(dst, c);
        body(b, x, dp);
    });
}

/// Adds each float into its target with a compare-and-swap loop on the bits.
pub fn add(brook: &ir::Module) -> (naga::Module, Vec<Resource>) {
    element_shader(brook, atomic_resources(), |b, i, info, g| {
        let result_ty = b.types.compare_exchange_result();
        each_float_into_target(b, i, info, g, |b, x, dp| {
            let u = b.types.u32();
            let first = b.load(dp);
            let old = b.local_with("old", u, first);
            let body = b.block(|b| {
                let o = b.load(old);
                let of = b.bitcast(o, ScalarKind::Float);
                let sum = b.add_(of, x);
                let new = b.bitcast(sum, ScalarKind::Uint);
                let r = b.add(Expression::AtomicResult {
                    ty: result_ty,
                    comparison: true,
                });
                b.stmt(Statement::Atomic {
                    pointer: dp,
                    fun: AtomicFunction::Exchange { compare: Some(o) },
                    value: new,
                    result: Some(r),
                });
                let swapped = b.index(r, 1);
                b.when(swapped, |b| b.stmt(Statement::Break));
                let seen = b.index(r, 0);
                b.store(old, seen);
            });
            b.loop_(body, naga::Block::new(), None);
        });
    })
}

/// Info of a round shader: slot 0 `[count, row, rank, fpe]`, slot 1 the extents of the
/// combined stream, slot 2 `[_, first, 0, 0]` (its `.w` the opaque zero,
/// `lower::module::OpaqueZero`), then the operand's floats from slot 3.
pub const ROUND_OPERAND: u32 = 3;

/// What a round combines into its target: a scattered element, or for a gather-op, the
/// call's constant operand or the element it has just fetched (combined with itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RoundInput {
    /// A scatter: `data[element]`.
    Scattered,
    /// A gather-op with a constant operand, read from the call info.
    Constant,
    /// A gather-op whose operand is the fetched element (`brook_core::Operand::Fetched`).
    Fetched,
}

/// The combination of a round: a built-in, or a Brook reduce function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Combine {
    Replace,
    Add,
    Min,
    Max,
    Reduce(FunctionId),
}

/// `op(x, old)` for a built-in combiner on one float (the CPU's `Combiner`): replace gives
/// `x`, add `old + x`, min and max `f32::min`/`max` (a NaN side gives the other).
fn builtin_combine(b: &mut FnBuilder, op: Combine, x: H, old: H) -> H {
    match op {
        Combine::Replace | Combine::Reduce(_) => x,
        Combine::Add => b.add_(old, x),
        Combine::Min | Combine::Max => {
            let pick_x = if op == Combine::Min {
                b.lt(x, old)
            } else {
                b.gt(x, old)
            };
            let m = b.select(pick_x, x, old);
            let xb = b.bitcast(x, ScalarKind::Uint);
            let ob = b.bitcast(old, ScalarKind::Uint);
            let x_nan = is_nan_bits(b, xb);
            let o_nan = is_nan_bits(b, ob);
            let m = b.select(x_nan, old, m);
            b.select(o_nan, x, m)
        }
    }
}

/// One round of a combination in index order: invocation `k` takes the pair
/// `pairs[first + k] = (element, target)`; for a scatter the element is `data[element]`; for
/// a gather-op `out[element] = dst[target]` first and the element is the operand (the
/// constant, or `dst[target]` itself). Then `dst[target] = op(element, dst[target])`. `ty` is
/// the element's Brook type; a constant operand has `operand_floats` floats.
pub fn round(
    brook: &ir::Module,
    op: Combine,
    input: RoundInput,
    ty: &ir::Type,
    operand_floats: u32,
    math: ir::MathMode,
) -> Lowered<(naga::Module, Vec<Resource>)> {
    let gather = input != RoundInput::Scattered;
    let fpe = crate::lower::values::flat_len(brook, ty);
    let floats = Elem::Floats(crate::lower::values::vector_width(fpe));
    let resources = if gather {
        vec![
            res("pairs", false, Elem::U32),
            res("out gathered", true, floats),
            res("out data", true, floats),
        ]
    } else {
        vec![
            res("pairs", false, Elem::U32),
            res("data", false, floats),
            res("out dst", true, floats),
        ]
    };
    let mut sm = ShaderModule::new(brook);
    sm.math = math;
    let info = declare_info(&mut sm, ROUND_OPERAND + operand_floats.div_ceil(4));
    sm.zero = Some(OpaqueZero {
        info,
        slot: ZERO_SLOT,
    });
    let g = declare_storage(&mut sm, &resources);
    let reduce = match op {
        Combine::Reduce(f) => {
            let func = brook.func(f);
            let binding = vec![None; func.params.len()];
            Some((sm.instance(f, binding)?, func))
        }
        _ => None,
    };
    let discard = sm.discard;
    let mut b = FnBuilder::new(&mut sm.types, "main");
    let ids = entry_ids(&mut b, info, WORKGROUP);
    let head = info_slot(&mut b, info, 0);
    let n = b.index(head, 0);
    let past = b.ge(ids.global, n);
    b.when(past, |b| b.ret(None));
    let s2 = info_slot(&mut b, info, 2);
    let first = b.index(s2, 1);
    let k = b.add_(first, ids.global);
    let two = b.u32(2);
    let at = b.mul(k, two);
    let pairs = b.global(g[0]);
    let ep = b.access(pairs, at);
    let element = b.load(ep);
    let one = b.u32(1);
    let at1 = b.add_(at, one);
    let tp = b.access(pairs, at1);
    let t = b.load(tp);
    let dst = Elements { buffer: g[2], fpe };
    let old = dst.load(&mut b, brook, t, ty);
    let x = if gather {
        let out = Elements { buffer: g[1], fpe };
        out.store(&mut b, brook, element, old, ty);
        old
    } else {
        Elements { buffer: g[1], fpe }.load(&mut b, brook, element, ty)
    };
    let x = if input == RoundInput::Constant {
        let mut floats = Vec::with_capacity(operand_floats as usize);
        for c in 0..operand_floats {
            let s = info_slot(&mut b, info, ROUND_OPERAND + c / 4);
            let bits = b.index(s, c % 4);
            floats.push((b.bitcast(bits, ScalarKind::Float), BScalar::Float));
        }
        crate::lower::values::assemble(&mut b, brook, ty, &mut floats.into_iter())
            .expect("the operand has the element's floats")
    } else {
        x
    };
    let new = match reduce {
        Some((f, func)) => {
            // `r = old; f(x, &r)`; a discard leaves the old value (the CPU's `combine`).
            let vt = crate::lower::types::value_type(b.types, brook, ty);
            let r = b.local_with("r", vt, old);
            let flag = b.global(discard);
            let no = b.bool(false);
            b.store(flag, no);
            let args = func
                .params
                .iter()
                .map(|p| match p.class {
                    ir::ParamClass::Reduce => r,
                    _ => x,
                })
                .collect();
            b.call(f, args, false);
            let d = b.load(flag);
            let result = b.load(r);
            b.select_value(d, old, result, vt)
        }
        None => {
            let comps_x = crate::lower::values::components(&mut b, brook, x, ty);
            let comps_o = crate::lower::values::components(&mut b, brook, old, ty);
            let mut out = Vec::with_capacity(comps_x.len());
            for ((xc, _), (oc, _)) in comps_x.into_iter().zip(comps_o) {
                out.push((builtin_combine(&mut b, op, xc, oc), BScalar::Float));
            }
            crate::lower::values::assemble(&mut b, brook, ty, &mut out.into_iter())
                .expect("the element's floats")
        }
    };
    dst.store(&mut b, brook, t, new, ty);
    let f = b.finish();
    add_entry(&mut sm, f, WORKGROUP);
    Ok((sm.finish(), resources))
}

impl FnBuilder<'_> {
    /// `c ? a : b` for a value of any type (through a temporary for aggregates).
    fn select_value(&mut self, c: H, a: H, b: H, ty: naga::Handle<naga::Type>) -> H {
        let tmp = self.local_with("brook_choice", ty, b);
        self.when(c, |s| s.store(tmp, a));
        self.load(tmp)
    }
}
