//! A kernel compiled for one call shape: the tile function.
//!
//! The compiled function runs elements `start..start + count` of a call, in row-major order:
//!
//! ```text
//! fn tile(ctx: *const u64, start: i64, count: i64, mask: *const bool, vouts: *mut VoutTile) -> i64
//! ```
//!
//! For each element it skips it if the write mask (when there is one) is off, loads the
//! inputs (a stream at the element's own position, or through the implicit resize; an
//! iterator's value; constants once per tile), zeroes the outputs, runs the body, and stores
//! the outputs unless the element discarded. It returns how many elements wrote their
//! outputs (for write queries), or -1 when the call's time limit ran out (code compiled for
//! a call with one checks it at loop back edges, see [`super::lower::Watch`]). The multi-dimensional output index is kept as counters, not
//! divided out per element, and only when something reads it (a resize, an iterator,
//! `indexof`).
//!
//! What the code is specialised on is the call's [`Variant`]: per parameter, how it is
//! bound (a stream of the output's shape, a resized stream of known rank, an iterator, a
//! gather of known rank, …). Extents and addresses are not: they come from the slots, so
//! one variant serves every stream size.

use brook_ir::{Function, FunctionId, MathMode, Module, ParamClass, Scalar, Type};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, AbiParam, Block, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::{FunctionBuilder, Variable};

use super::code::{Builder, Code};
use super::lower::num::{from_lanes, Num, Val};
use super::lower::{
    self, decode, encode, gather_ref, position, ravel, resize, transpose, uses_indexof, Bind,
    Layout, Lower, Quad, Res, Scope, VoutParam, Watch,
};
use super::runtime::{Call, VoutTile};
use super::slots::Slot;
use super::{soa, Unjittable};
use crate::value::Value as V;

/// How one parameter is bound in a call, as far as the code depends on it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum ParamKey {
    /// An input stream of the output's shape: read at the element's own position.
    Direct,
    /// An input stream of another shape; per input dimension, how its index follows the
    /// output's.
    Resized(Vec<Along>),
    /// An iterator (or a stream parameter bound to one), resized like a stream.
    Iter(Vec<Along>),
    /// A gather of this rank.
    Gather(u8),
    Constant,
    Out,
    Vout,
}

/// How a resized input's index along one dimension follows the output index (the implicit
/// resize, `shape::resize_index`), as far as the code depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Along {
    /// The input's extent is the aligned output dimension's: the index passes straight
    /// through.
    Same,
    /// The input's extent is 1 (a row or column repeated, as SGEMV's `x<1,n>` over the rows
    /// of `<n,n>`), or the dimension has no aligned output one: the index is 0. Compiled
    /// as the general case, it was a 64-bit division per element: most of SGEMV's time.
    Zero,
    /// Any other extent: `out_index * in_extent / out_extent`.
    Scaled,
}

/// The shape of a call the code is specialised on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Variant {
    pub out_rank: u8,
    pub params: Vec<ParamKey>,
    /// Whether the call has a time limit: its loops check the watchdog (code for calls
    /// without one has no check at all).
    pub watched: bool,
    /// Whether the code also has a function running four elements per iteration
    /// ([`super::soa`]).
    pub quads: bool,
    /// Which formulas the built-ins compile to: code for one mode never runs in the other.
    pub math: MathMode,
}

impl Variant {
    /// A short description for traces (`direct, gather rank 2, out`).
    pub fn describe(&self) -> String {
        let parts: Vec<String> = self
            .params
            .iter()
            .map(|p| match p {
                ParamKey::Direct => "stream".into(),
                ParamKey::Resized(_) => "resized stream".into(),
                ParamKey::Iter(_) => "iterator".into(),
                ParamKey::Gather(r) => format!("gather rank {r}"),
                ParamKey::Constant => "constant".into(),
                ParamKey::Out => "out".into(),
                ParamKey::Vout => "vout".into(),
            })
            .collect();
        let watched = if self.watched { "; time limit" } else { "" };
        let layout = if self.quads {
            "four elements per iteration"
        } else {
            "one element per iteration"
        };
        let fast = match self.math {
            MathMode::Accurate => "",
            MathMode::Fast => "; fast math",
        };
        format!(
            "rank {} output; {}{watched}; {layout}{fast}",
            self.out_rank,
            parts.join(", ")
        )
    }
}

/// The tile function's type.
pub(crate) type TileFn =
    unsafe extern "C" fn(*const u64, i64, i64, *const bool, *mut VoutTile) -> i64;

/// The tile function of a kernel variant's code.
pub(crate) fn tile(code: &Code) -> TileFn {
    // SAFETY: entry 0 of a kernel's code is the tile function, built with this signature.
    unsafe { std::mem::transmute::<*const u8, TileFn>(code.entry(0)) }
}

/// The function running four elements per iteration, when the variant has one
/// ([`Variant::quads`]). Same arguments as the tile function (no mask: calls with one run
/// the tile function), `count` a multiple of 4; it returns how many elements it ran before
/// a quad whose lanes disagreed on a condition (`count` when none did), or -1 when the time
/// limit ran out.
pub(crate) fn quads(code: &Code) -> Option<TileFn> {
    // SAFETY: entry 1 of a kernel's code, when there is one, is this function, built with
    // the tile function's signature.
    (code.entries() > 1).then(|| unsafe { std::mem::transmute::<*const u8, TileFn>(code.entry(1)) })
}

/// Compiles kernel `id` for calls of shape `variant`; `clif` keeps the IR text.
pub(crate) fn compile(
    module: &Module,
    id: FunctionId,
    variant: &Variant,
    clif: bool,
) -> Result<Code, Unjittable> {
    let func = super::function(module, id)?;
    if func.params.len() != variant.params.len() {
        return Err(Unjittable("variant of another kernel".into()));
    }
    let mut builder = Builder::new(clif)?;
    let ptr = builder.pointer_type();
    let mut sig = builder.signature();
    for t in [ptr, types::I64, types::I64, ptr, ptr] {
        sig.params.push(AbiParam::new(t));
    }
    sig.returns.push(AbiParam::new(types::I64));
    let mut slots = Vec::new();
    builder.function(sig.clone(), |b, imports| {
        let ((), read) = lower::function(b, imports, module, variant.math, ptr, &[], |l, p| {
            emit(l, func, variant, Tile::new(p))
        })?;
        slots = read;
        Ok(())
    })?;
    if variant.quads {
        let scalar = soa::scalar_kernel(module, id, variant).map_err(Unjittable)?;
        let wide = soa::widened(&scalar);
        let (scalar_func, wide_func) = (super::function(&scalar, id)?, super::function(&wide, id)?);
        builder.function(sig, |b, imports| {
            let ((), read) =
                lower::function(b, imports, &wide, variant.math, ptr, &slots, |l, p| {
                    emit_quads(l, wide_func, scalar_func, variant, Tile::new(p))
                })?;
            slots = read;
            Ok(())
        })?;
    }
    builder.finish(slots)
}

/// The tile function's arguments.
struct Tile {
    start: Value,
    count: Value,
    mask: Value,
    vouts: Value,
}

impl Tile {
    /// From the function's parameters (`ctx` first).
    fn new(p: &[Value]) -> Tile {
        Tile {
            start: p[1],
            count: p[2],
            mask: p[3],
            vouts: p[4],
        }
    }
}

/// How each parameter gets its value at an element.
enum Fill {
    /// Decoded from the stream at the element's position (`None`) or a resized one.
    Stream(Option<Vec<Along>>),
    Iter(Vec<Along>),
    /// The same value every element.
    Uniform(Val),
    Zero,
    None,
}

/// The parameters as the element sees them: bindings, how each is filled, vouts.
struct Params {
    binds: Vec<Bind>,
    fills: Vec<Fill>,
    vouts: Vec<Option<VoutParam>>,
}

/// Binds every parameter of `func` for `variant` (in the setup block: gathers' bounds and
/// constants' values are the same for every element). `element` is the kernel as one
/// element sees it (`func` itself, or the scalar kernel `func` widens to four lanes): its
/// types say how many floats an element has and what a constant holds.
fn bind_params(
    l: &mut Lower,
    func: &Function,
    element: &Function,
    variant: &Variant,
) -> Res<Params> {
    let module = l.module;
    let mut ps = Params {
        binds: Vec::with_capacity(func.params.len()),
        fills: Vec::with_capacity(func.params.len()),
        vouts: Vec::with_capacity(func.params.len()),
    };
    let mut n_vouts = 0;
    for (k, ((p, e), key)) in func
        .params
        .iter()
        .zip(&element.params)
        .zip(&variant.params)
        .enumerate()
    {
        let k = k as u32;
        let mut vout = None;
        let fill = match (key, p.class) {
            (ParamKey::Gather(r), ParamClass::Gather { .. }) => {
                let fpe = V::flat_len(&e.ty, module);
                let g = gather_ref(l, k, *r as usize, fpe);
                ps.binds.push(Bind::Gather(std::rc::Rc::new(g)));
                ps.fills.push(Fill::None);
                ps.vouts.push(None);
                continue;
            }
            (ParamKey::Direct, _) => Fill::Stream(None),
            (ParamKey::Resized(same), _) => Fill::Stream(Some(same.clone())),
            (ParamKey::Iter(same), _) => Fill::Iter(same.clone()),
            (ParamKey::Constant, _) => {
                let v = constant(l, k, &e.ty)?;
                Fill::Uniform(uniform(l, v, &p.ty)?)
            }
            (ParamKey::Out, ParamClass::Out) => Fill::Zero,
            (ParamKey::Vout, ParamClass::Vout { max }) => {
                let count = l.b.declare_var(types::I32);
                vout = Some(VoutParam {
                    index: n_vouts,
                    max,
                    count,
                });
                n_vouts += 1;
                Fill::Zero
            }
            _ => {
                return Err(Unjittable(format!(
                    "parameter `{}` bound as {key:?}",
                    p.name
                )))
            }
        };
        ps.binds.push(Bind::Value(l.declare(&p.ty)?));
        ps.fills.push(fill);
        ps.vouts.push(vout);
    }
    Ok(ps)
}

/// Where the element is: its linear position, its multi-dimensional index (when tracked)
/// and the output's extents.
struct Here<'a> {
    at: Value,
    idx: &'a [Value],
    out_ext: &'a [Value],
}

fn emit<'m>(
    l: &mut Lower<'m, '_, '_, '_>,
    func: &'m Function,
    variant: &Variant,
    t: Tile,
) -> Res<()> {
    let rank = variant.out_rank as usize;
    let needs_idx = uses_indexof(l.module, &func.body)
        || variant
            .params
            .iter()
            .any(|p| matches!(p, ParamKey::Resized(_) | ParamKey::Iter(_)));

    // Setup, once per tile: bindings, uniform values, the starting index.
    let out_ext: Vec<Value> = (0..rank as u8)
        .map(|d| l.slots.get(l.b.func, Slot::OutExtent(d), types::I64))
        .collect();
    let params = bind_params(l, func, func, variant)?;
    if params.vouts.iter().any(Option::is_some) {
        l.vout_state = Some(t.vouts);
    }
    let written = l.b.declare_var(types::I64);
    let zero = l.b.ins().iconst(types::I64, 0);
    l.b.def_var(written, zero);
    let idx: Vec<Variable> = (0..rank).map(|_| l.b.declare_var(types::I64)).collect();
    if needs_idx {
        for (&v, i) in idx.iter().zip(unravel(l.b, t.start, &out_ext)) {
            l.b.def_var(v, i);
        }
    }
    watch(l, variant);
    let end = l.b.ins().iadd(t.start, t.count);
    let masked = l.b.ins().icmp_imm_s(IntCC::NotEqual, t.mask, 0);

    l.count_loop(
        t.start,
        end,
        |l, at, next| {
            // The write mask, where there is one.
            let (check, compute) = (l.b.create_block(), l.b.create_block());
            l.b.ins().brif(masked, check, &[], compute, &[]);
            l.b.switch_to_block(check);
            l.b.seal_block(check);
            let m_addr = l.b.ins().iadd(t.mask, at);
            let flags = MemFlagsData::trusted().with_readonly();
            let on = l.b.ins().uload8(types::I32, flags, m_addr, 0);
            l.b.ins().brif(on, compute, &[], next, &[]);
            l.b.switch_to_block(compute);
            l.b.seal_block(compute);
            let out_idx: Vec<Value> = match needs_idx {
                true => idx.iter().map(|&v| l.b.use_var(v)).collect(),
                false => Vec::new(),
            };
            let here = Here {
                at,
                idx: &out_idx,
                out_ext: &out_ext,
            };
            element(l, func, func, &params, &here, next)?;
            let w = l.b.use_var(written);
            let w = l.b.ins().iadd_imm_s(w, 1);
            l.b.def_var(written, w);
            Ok(())
        },
        |l| {
            if needs_idx {
                let now: Vec<Value> = idx.iter().map(|&v| l.b.use_var(v)).collect();
                for (&v, i) in idx.iter().zip(next_index(l.b, &now, &out_ext)) {
                    l.b.def_var(v, i);
                }
            }
            Ok(())
        },
    )?;
    let w = l.b.use_var(written);
    l.b.ins().return_(&[w]);
    expired(l);
    Ok(())
}

/// Under a time limit, the countdown of loop back edges to the next check.
fn watch(l: &mut Lower, variant: &Variant) {
    if variant.watched {
        let countdown = l.b.declare_var(types::I64);
        let every =
            l.b.ins()
                .iconst(types::I64, crate::watchdog::NATIVE_CHECK_EVERY);
        l.b.def_var(countdown, every);
        l.watch = Some(Watch {
            countdown,
            expired: l.b.create_block(),
        });
    }
}

/// Under a time limit, where the code goes when it is up: it returns -1.
fn expired(l: &mut Lower) {
    if let Some(watch) = l.watch {
        l.b.switch_to_block(watch.expired);
        l.b.seal_block(watch.expired);
        let stopped = l.b.ins().iconst(types::I64, -1);
        l.b.ins().return_(&[stopped]);
    }
}

/// The function of [`quads`]: quad `q` runs elements `start + 4q ..= start + 4q + 3` as the
/// lanes of `wide`, the scalar kernel `func` with every scalar widened to four lanes (see
/// [`super::soa`]). Every stream is read at the element's own position, so a quad's inputs
/// and outputs are four consecutive floats: one vector load or store each.
fn emit_quads<'m>(
    l: &mut Lower<'m, '_, '_, '_>,
    wide: &'m Function,
    func: &Function,
    variant: &Variant,
    t: Tile,
) -> Res<()> {
    let params = bind_params(l, wide, func, variant)?;
    watch(l, variant);
    let bail = l.b.create_block();
    let out_ext: Vec<Value> = (0..variant.out_rank)
        .map(|d| l.slots.get(l.b.func, Slot::OutExtent(d), types::I64))
        .collect();
    let indexof = uses_indexof(l.module, &func.body);
    // The index of the quad's first element, kept from quad to quad like the tile
    // function's (dividing it out of each lane's linear position cost 12 divisions a quad).
    let idx: Vec<Variable> = out_ext
        .iter()
        .map(|_| l.b.declare_var(types::I64))
        .collect();
    if indexof {
        for (&v, i) in idx.iter().zip(unravel(l.b, t.start, &out_ext)) {
            l.b.def_var(v, i);
        }
    }
    let at = l.b.declare_var(types::I64);
    l.b.def_var(at, t.start);
    let zero = l.b.ins().iconst(types::I64, 0);
    let n = l.b.ins().sshr_imm_s(t.count, 2);
    l.count_loop(
        zero,
        n,
        |l, q, next| {
            let first = l.b.ins().ishl_imm_s(q, 2);
            let first = l.b.ins().iadd(t.start, first);
            l.b.def_var(at, first);
            let position = indexof.then(|| {
                let first: Vec<Value> = idx.iter().map(|&v| l.b.use_var(v)).collect();
                let (position, after) = quad_position(l.b, first, &out_ext);
                for (&v, i) in idx.iter().zip(after) {
                    l.b.def_var(v, i);
                }
                position
            });
            l.soa = Some(Quad { bail, position });
            let here = Here {
                at: first,
                idx: &[],
                out_ext: &[],
            };
            element(l, wide, func, &params, &here, next)
        },
        |_| Ok(()),
    )?;
    let done = l.b.ins().ishl_imm_s(n, 2);
    l.b.ins().return_(&[done]);
    // A quad's lanes disagreed: report the elements run before it.
    l.b.switch_to_block(bail);
    let first = l.b.use_var(at);
    let done = l.b.ins().isub(first, t.start);
    l.b.ins().return_(&[done]);
    expired(l);
    Ok(())
}

/// One element: inputs loaded, outputs zeroed, the body run, the outputs stored. Ends where
/// the element wrote its outputs; a discard goes straight to `next`. `element`'s types give
/// each stream's floats per element (see [`bind_params`]).
fn element<'m>(
    l: &mut Lower<'m, '_, '_, '_>,
    func: &'m Function,
    element: &Function,
    params: &Params,
    here: &Here,
    next: Block,
) -> Res<()> {
    let module = l.module;
    let ptr = l.ptr;
    let out_pos = (!here.idx.is_empty()).then(|| position(l.b, here.idx));
    let mut positions = Vec::with_capacity(func.params.len());
    for (k, ((p, fill), bind)) in func
        .params
        .iter()
        .zip(&params.fills)
        .zip(&params.binds)
        .enumerate()
    {
        let k = k as u32;
        let Bind::Value(store) = bind else {
            positions.push(None);
            continue;
        };
        let (val, pos) = match fill {
            Fill::Stream(resized) => {
                let fpe = V::flat_len(&element.params[k as usize].ty, module) as i64;
                let data = l.slots.get(l.b.func, Slot::Data(k), ptr);
                let (elem, pos) = match resized {
                    None => (here.at, out_pos),
                    Some(same) => {
                        let (in_idx, strides) = input_index(l, k, same, here);
                        let elem = ravel(l.b, &in_idx, &strides);
                        (elem, Some(position(l.b, &in_idx)))
                    }
                };
                let off = l.b.ins().imul_imm_s(elem, 4 * fpe);
                let addr = l.b.ins().iadd(data, off);
                let v = match quad_vector(&p.ty).filter(|_| l.soa.is_some()) {
                    Some((s, n)) => transpose::decode(l.b, s, n, addr),
                    None => decode(l, &p.ty, addr, &mut 0, Layout::Stream, true)?,
                };
                (v, pos)
            }
            Fill::Iter(same) => {
                let (in_idx, _) = input_index(l, k, same, here);
                let v = iterator(l, k, &p.ty, &in_idx)?;
                (v, Some(position(l.b, &in_idx)))
            }
            Fill::Uniform(v) => (v.clone(), None),
            Fill::Zero => (l.zero(&p.ty)?, out_pos),
            Fill::None => continue,
        };
        l.write(store, &val)?;
        positions.push(pos);
    }
    let mut locals = Vec::with_capacity(func.locals.len());
    for x in &func.locals {
        let z = l.zero(&x.ty)?;
        locals.push(l.var(&x.ty, &z)?);
    }
    if let Some(state) = l.vout_state {
        let mark = l.imports.get(l.b.func, Call::VoutMark);
        l.b.ins().call(mark, &[state]);
        let zero = l.b.ins().iconst(types::I32, 0);
        for v in params.vouts.iter().flatten() {
            l.b.def_var(v.count, zero);
        }
    }
    let finish = l.b.create_block();
    let mut scope = Scope {
        func,
        params: params.binds.clone(),
        positions,
        locals,
        exit: finish,
        ret: None,
        loops: Vec::new(),
        vouts: params.vouts.clone(),
        integral: brook_ir::Integral::of(func),
    };
    l.block(&mut scope, &func.body)?;
    l.b.ins().jump(finish, &[]);

    // The element discarded: nothing written, nothing pushed.
    l.b.switch_to_block(l.discard);
    l.b.seal_block(l.discard);
    if let Some(state) = l.vout_state {
        let drop = l.imports.get(l.b.func, Call::VoutDiscard);
        l.b.ins().call(drop, &[state]);
    }
    l.b.ins().jump(next, &[]);

    // It finished: store the outputs.
    l.b.switch_to_block(finish);
    l.b.seal_block(finish);
    for (k, (p, bind)) in func.params.iter().zip(&scope.params).enumerate() {
        let (ParamClass::Out, Bind::Value(store)) = (p.class, bind) else {
            continue;
        };
        let v = l.read(store);
        let fpe = V::flat_len(&element.params[k].ty, module) as i64;
        let data = l.slots.get(l.b.func, Slot::Data(k as u32), ptr);
        let off = l.b.ins().imul_imm_s(here.at, 4 * fpe);
        let addr = l.b.ins().iadd(data, off);
        match quad_vector(&p.ty).filter(|_| l.soa.is_some()) {
            Some(_) => transpose::encode(l.b, &v, addr)?,
            None => encode(l.b, &v, addr, &mut 0, Layout::Stream)?,
        }
    }
    Ok(())
}

/// The kind and width of a vector stream's or constant's elements, when `ty` is its type in
/// code for four elements ([`soa::widened`]: one four-lane value per component).
fn quad_vector(ty: &Type) -> Option<(Scalar, u8)> {
    match ty {
        Type::Array(comp, n) => match **comp {
            Type::Vector(s, 4) => Some((s, *n as u8)),
            _ => None,
        },
        _ => None,
    }
}

/// Constant `v` as a parameter of type `ty` holds it: in code for four elements, a vector
/// constant is each component in all four lanes.
fn uniform(l: &mut Lower, v: Val, ty: &Type) -> Res<Val> {
    match (quad_vector(ty), &v) {
        (Some((s, n)), Val::Num(x)) if x.s == s && x.n == n => Ok(Val::Agg(
            (0..n as usize)
                .map(|c| Val::Num(Num::scalar(s, x.lane(l.b, c)).widen(l.b, 4)))
                .collect(),
        )),
        _ => l.coerce(v, ty),
    }
}

/// `indexof` of the output for the four elements from index `first` on (of an output of
/// extents `ext`), component by component, each converted as [`position`] does; and the
/// index of the element after them.
fn quad_position(
    b: &mut FunctionBuilder,
    first: Vec<Value>,
    ext: &[Value],
) -> ([Num; 4], Vec<Value>) {
    let mut idx = first;
    let mut per_lane = Vec::with_capacity(4);
    for _ in 0..4 {
        let p = position(b, &idx);
        per_lane.push([0, 1, 2, 3].map(|c| p.lane(b, c)));
        idx = next_index(b, &idx, ext);
    }
    let position = [0, 1, 2, 3].map(|c| {
        let lanes: Vec<Value> = per_lane.iter().map(|l| l[c]).collect();
        from_lanes(b, Scalar::Float, &lanes)
    });
    (position, idx)
}

/// The index (outermost dimension first) of linear position `at` in extents `ext`.
fn unravel(b: &mut FunctionBuilder, at: Value, ext: &[Value]) -> Vec<Value> {
    let mut idx = vec![at; ext.len()];
    let mut rest = at;
    for d in (0..ext.len()).rev() {
        idx[d] = b.ins().urem(rest, ext[d]);
        rest = b.ins().udiv(rest, ext[d]);
    }
    idx
}

/// The index after `idx` in extents `ext`: the last dimension counts up, with carries.
fn next_index(b: &mut FunctionBuilder, idx: &[Value], ext: &[Value]) -> Vec<Value> {
    let mut next = idx.to_vec();
    let mut carry = b.ins().iconst(types::I64, 1);
    for d in (0..idx.len()).rev() {
        let c = b.ins().iadd(idx[d], carry);
        let wrap = b.ins().icmp(IntCC::Equal, c, ext[d]);
        let z = b.ins().iconst(types::I64, 0);
        next[d] = b.ins().select(wrap, z, c);
        carry = b.ins().uextend(types::I64, wrap);
    }
    next
}

/// The index into input `p` (a resized stream or an iterator) read by the output index, and
/// the input's strides (for streams).
fn input_index(l: &mut Lower, p: u32, same: &[Along], here: &Here) -> (Vec<Value>, Vec<Value>) {
    let dims = 0..same.len() as u8;
    let ext: Vec<Value> = dims
        .clone()
        .map(|d| l.slots.get(l.b.func, Slot::Extent(p, d), types::I64))
        .collect();
    let idx = resize(l.b, here.idx, here.out_ext, &ext, same);
    let strides = dims
        .map(|d| l.slots.get(l.b.func, Slot::Stride(p, d), types::I64))
        .collect();
    (idx, strides)
}

/// An iterator's value at `idx` (brook-core's `IterSpec::value_at`): 1D `start + i * step` per component;
/// N-D `.x` along the columns, `.y` along the rows, `.z` and `.w` along the dimensions before.
fn iterator(l: &mut Lower, p: u32, ty: &brook_ir::Type, idx: &[Value]) -> Res<Val> {
    let n = ty.width().unwrap_or(1);
    let comp =
        |l: &mut Lower, s: fn(u32, u8) -> Slot, c: u8| l.slots.get(l.b.func, s(p, c), types::F32);
    let starts: Vec<Value> = (0..n).map(|c| comp(l, Slot::IterStart, c)).collect();
    let steps: Vec<Value> = (0..n).map(|c| comp(l, Slot::IterStep, c)).collect();
    // Indices are below 2^63: the signed conversion gives the unsigned one's float.
    let as_float = |l: &mut Lower, i: Value| l.b.ins().fcvt_from_sint(types::F32, i);
    let at = if idx.len() >= 2 {
        let lanes: Vec<Value> = idx.iter().rev().map(|&i| as_float(l, i)).collect();
        from_lanes(l.b, Scalar::Float, &lanes)
    } else {
        let i = as_float(l, idx[0]);
        Num::scalar(Scalar::Float, i).widen(l.b, n)
    };
    let start = from_lanes(l.b, Scalar::Float, &starts);
    let step = from_lanes(l.b, Scalar::Float, &steps);
    let prod = l.b.ins().fmul(at.v, step.v);
    Ok(Val::Num(Num {
        s: Scalar::Float,
        n,
        v: l.b.ins().fadd(start.v, prod),
    }))
}

/// A constant parameter's value from its slots (one per flattened component, raw bits).
pub(crate) fn constant(l: &mut Lower, p: u32, ty: &brook_ir::Type) -> Res<Val> {
    let mut ks = Vec::new();
    super::lower::kinds(ty, l.module, &mut ks)?;
    let comps: Vec<(Scalar, Value)> = ks
        .iter()
        .enumerate()
        .map(|(c, &s)| {
            let (ty, slot) = match s {
                Scalar::Float => (types::F32, Slot::Const(p, c as u32)),
                _ => (types::I32, Slot::Const(p, c as u32)),
            };
            let v = l.slots.get(l.b.func, slot, ty);
            let v = match s {
                Scalar::Bool => l.b.ins().icmp_imm_s(IntCC::NotEqual, v, 0),
                _ => v,
            };
            (s, v)
        })
        .collect();
    l.from_comps(ty, &mut comps.into_iter())?
        .ok_or_else(|| Unjittable("constant of too few components".into()))
}
