//! A reduction compiled to native code: the fold and the update.
//!
//! ```text
//! fn fold(ctx: *const u64, acc: *mut u32, src: *const f32, n: i64)      // stream elements
//! fn fold_raw(ctx: *const u64, acc: *mut u32, src: *const u32, n: i64)  // accumulators
//! fn update(ctx: *const u64, dst: *mut f32, x: *const f32)              // dst = f(dst, x)
//! ```
//!
//! `fold` runs `acc = f(acc, x)` over `n` consecutive elements, the accumulator staying in
//! registers; `fold_raw` does the same over earlier accumulators (combining per-chunk
//! results in order). Accumulators are raw (each component 32 bits of its own kind), so an
//! `int` reduction keeps every bit between chunks, as the interpreter's values do. `update`
//! is one combine on stream elements, for ScatterOp and GatherOp with a reduce function.
//! A `discard` in the body leaves the accumulator as it was before that combine.

use brook_ir::{Function, FunctionId, MathMode, Module, ParamClass};
use cranelift_codegen::ir::{types, AbiParam, InstBuilder, Value};

use super::code::{Builder, Code};
use super::lower::num::Val;
use super::lower::{self, decode, encode, gather_ref, Bind, Layout, Lower, Res, Scope, Store};
use super::slots::Slot;
use super::Unjittable;
use crate::value::Value as V;

pub(crate) type FoldFn = unsafe extern "C" fn(*const u64, *mut u32, *const u32, i64);
pub(crate) type UpdateFn = unsafe extern "C" fn(*const u64, *mut f32, *const f32);

/// The fold of a reduction's code: over stream elements, or (`raw`) over accumulators.
pub(crate) fn fold_fn(code: &Code, raw: bool) -> FoldFn {
    // SAFETY: entries 0 and 1 of a reduction's code were built with `FoldFn`'s signature.
    unsafe { std::mem::transmute::<*const u8, FoldFn>(code.entry(raw as usize)) }
}

/// The update of a reduction's code.
pub(crate) fn update_fn(code: &Code) -> UpdateFn {
    // SAFETY: entry 2 of a reduction's code was built with `UpdateFn`'s signature.
    unsafe { std::mem::transmute::<*const u8, UpdateFn>(code.entry(2)) }
}

/// The three functions of reduction `id`; `ranks[p]` is the rank of gather parameter `p`;
/// built-ins compute as `math` asks.
pub(crate) fn compile(
    module: &Module,
    math: MathMode,
    id: FunctionId,
    a: usize,
    r: usize,
    ranks: &[Option<u8>],
    clif: bool,
) -> Result<Code, Unjittable> {
    let func = super::function(module, id)?;
    let mut builder = Builder::new(clif)?;
    let ptr = builder.pointer_type();
    let mut slots: Vec<Slot> = Vec::new();
    for raw in [false, true] {
        let mut sig = builder.signature();
        for t in [ptr, ptr, ptr, types::I64] {
            sig.params.push(AbiParam::new(t));
        }
        builder.function(sig, |b, imports| {
            let ((), read) = lower::function(b, imports, module, math, ptr, &slots, |l, p| {
                fold(l, func, (a, r), ranks, (p[1], p[2], p[3]), raw)
            })?;
            slots = read;
            Ok(())
        })?;
    }
    let mut sig = builder.signature();
    for t in [ptr, ptr, ptr] {
        sig.params.push(AbiParam::new(t));
    }
    builder.function(sig, |b, imports| {
        let ((), read) = lower::function(b, imports, module, math, ptr, &slots, |l, p| {
            update(l, func, (a, r), ranks, p[1], p[2])
        })?;
        slots = read;
        Ok(())
    })?;
    builder.finish(slots)
}

/// Binds every parameter: the element and accumulator as variables, constants from their
/// slots, gathers from theirs.
fn bind<'m>(
    l: &mut Lower<'m, '_, '_, '_>,
    func: &'m Function,
    ranks: &[Option<u8>],
) -> Res<(Vec<Bind>, Vec<Option<Val>>)> {
    let mut binds = Vec::with_capacity(func.params.len());
    let mut uniform = Vec::with_capacity(func.params.len());
    for (k, p) in func.params.iter().enumerate() {
        match (p.class, ranks.get(k).copied().flatten()) {
            (ParamClass::Gather { .. }, Some(rank)) => {
                let fpe = V::flat_len(&p.ty, l.module);
                let g = gather_ref(l, k as u32, rank as usize, fpe);
                binds.push(Bind::Gather(std::rc::Rc::new(g)));
                uniform.push(None);
            }
            (ParamClass::Gather { .. }, None) => return Err(Unjittable("unbound gather".into())),
            (ParamClass::Constant, _) => {
                binds.push(Bind::Value(l.declare(&p.ty)?));
                uniform.push(Some(constant(l, k as u32, &p.ty)?));
            }
            _ => {
                binds.push(Bind::Value(l.declare(&p.ty)?));
                uniform.push(None);
            }
        }
    }
    Ok((binds, uniform))
}

fn constant(l: &mut Lower, p: u32, ty: &brook_ir::Type) -> Res<Val> {
    super::kernel::constant(l, p, ty)
}

fn store_of(binds: &[Bind], k: usize) -> Res<Store> {
    match binds.get(k) {
        Some(Bind::Value(s)) => Ok(s.clone()),
        _ => Err(Unjittable("reduction parameter".into())),
    }
}

/// One combine: constants set, locals zeroed, the body run, then on to `after`; a `discard`
/// sets the accumulator back to `saved` first. Emission continues in a block nothing reaches:
/// the caller goes on at `after`.
fn combine<'m>(
    l: &mut Lower<'m, '_, '_, '_>,
    func: &'m Function,
    (binds, uniform): (&[Bind], &[Option<Val>]),
    (accum, saved): (&Store, &Val),
    after: cranelift_codegen::ir::Block,
) -> Res<()> {
    for (b, u) in binds.iter().zip(uniform) {
        if let (Bind::Value(s), Some(v)) = (b, u) {
            l.write(s, v)?;
        }
    }
    let mut locals = Vec::with_capacity(func.locals.len());
    for x in &func.locals {
        let z = l.zero(&x.ty)?;
        locals.push(l.var(&x.ty, &z)?);
    }
    let mut scope = Scope {
        func,
        params: binds.to_vec(),
        positions: vec![None; func.params.len()],
        locals,
        exit: after,
        ret: None,
        loops: Vec::new(),
        vouts: Vec::new(),
        integral: brook_ir::Integral::of(func),
    };
    l.block(&mut scope, &func.body)?;
    l.b.ins().jump(after, &[]);
    l.b.switch_to_block(l.discard);
    l.b.seal_block(l.discard);
    l.write(accum, saved)?;
    l.b.ins().jump(after, &[]);
    l.unreachable_rest();
    Ok(())
}

fn fold<'m>(
    l: &mut Lower<'m, '_, '_, '_>,
    func: &'m Function,
    (a, r): (usize, usize),
    ranks: &[Option<u8>],
    (acc, src, n): (Value, Value, Value),
    raw: bool,
) -> Res<()> {
    let (binds, uniform) = bind(l, func, ranks)?;
    let (elem, accum) = (store_of(&binds, a)?, store_of(&binds, r)?);
    let ty = &func.params[r].ty;
    let start = decode(l, ty, acc, &mut 0, Layout::Raw, false)?;
    l.write(&accum, &start)?;
    let zero = l.b.ins().iconst(types::I64, 0);
    let fpe = V::flat_len(&func.params[a].ty, l.module) as i64;
    let layout = if raw { Layout::Raw } else { Layout::Stream };
    l.count_loop(
        zero,
        n,
        |l, at, next| {
            let off = l.b.ins().imul_imm_s(at, 4 * fpe);
            let addr = l.b.ins().iadd(src, off);
            let x = decode(l, &func.params[a].ty, addr, &mut 0, layout, true)?;
            l.write(&elem, &x)?;
            let saved = l.read(&accum);
            combine(l, func, (&binds, &uniform), (&accum, &saved), next)
        },
        |_| Ok(()),
    )?;
    let end = l.read(&accum);
    encode(l.b, &end, acc, &mut 0, Layout::Raw)?;
    l.b.ins().return_(&[]);
    Ok(())
}

fn update<'m>(
    l: &mut Lower<'m, '_, '_, '_>,
    func: &'m Function,
    (a, r): (usize, usize),
    ranks: &[Option<u8>],
    dst: Value,
    x: Value,
) -> Res<()> {
    let (binds, uniform) = bind(l, func, ranks)?;
    let (elem, accum) = (store_of(&binds, a)?, store_of(&binds, r)?);
    let acc = decode(l, &func.params[r].ty, dst, &mut 0, Layout::Stream, false)?;
    l.write(&accum, &acc)?;
    let v = decode(l, &func.params[a].ty, x, &mut 0, Layout::Stream, true)?;
    l.write(&elem, &v)?;
    let done = l.b.create_block();
    combine(l, func, (&binds, &uniform), (&accum, &acc), done)?;
    l.b.seal_block(done);
    l.b.switch_to_block(done);
    let end = l.read(&accum);
    encode(l.b, &end, dst, &mut 0, Layout::Stream)?;
    l.b.ins().return_(&[]);
    Ok(())
}
