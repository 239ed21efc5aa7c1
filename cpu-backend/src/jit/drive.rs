//! Running compiled kernels: the call's variant, its slot values, and its tiles in parallel.
//!
//! The output elements are cut into tiles of consecutive elements, a few per core (so a
//! heavy kernel over a small output still spreads) and at most [`MAX_TILE`] (so a light one
//! pays one call per few thousand elements). Each rayon task runs one tile through the
//! compiled function, which writes that tile's output elements and nothing else; inputs are
//! only read. The result does not depend on scheduling: each element is computed from the
//! inputs alone, and vout pushes are concatenated in tile order.

use rayon::prelude::*;

use super::code::Code;
use super::kernel::{quads, tile, Along, ParamKey, Variant};
use super::runtime::VoutTile;
use super::slots::Slot;
use crate::args::Binding;
use crate::shape::last_bound;
use crate::value::Value;
use crate::watchdog::Watchdog;

/// A call stopped by its time limit.
#[derive(Debug)]
pub(crate) struct TimeUp;

/// The most elements one tile runs.
pub const MAX_TILE: usize = 4096;

/// What the code of a call depends on (see [`Variant`]); `watched` when it has a time limit,
/// its built-ins computed as `math` asks.
pub(crate) fn variant(
    bindings: &[Binding],
    out_shape: &[usize],
    watched: bool,
    math: brook_ir::MathMode,
) -> Variant {
    let same = |shape: &[usize]| -> Vec<Along> {
        let (ro, ri) = (out_shape.len(), shape.len());
        (0..ri)
            .map(|d| match (d + ro).checked_sub(ri).map(|od| out_shape[od]) {
                Some(o) if o == shape[d] => Along::Same,
                Some(_) if shape[d] != 1 => Along::Scaled,
                _ => Along::Zero,
            })
            .collect()
    };
    let params = bindings
        .iter()
        .map(|b| match b {
            Binding::Stream(s) if s.shape() == out_shape => ParamKey::Direct,
            Binding::Stream(s) => ParamKey::Resized(same(s.shape())),
            Binding::Iter(it, _) => ParamKey::Iter(same(it.shape())),
            Binding::Gather(s) => ParamKey::Gather(s.rank() as u8),
            Binding::Constant(_) => ParamKey::Constant,
            Binding::Out(_) => ParamKey::Out,
            Binding::Vout(_) | Binding::External => ParamKey::Vout,
        })
        .collect();
    Variant {
        out_rank: out_shape.len() as u8,
        params,
        watched,
        quads: false,
        math,
    }
}

/// Whether every extent of every gathered stream is at most `i32::MAX`: four-element code
/// clamps gather indices in 32-bit lanes (`lower::address::gather_lanes`), so a call with a
/// larger one runs one element at a time, whose indices are 64-bit.
pub(crate) fn narrow_gathers(bindings: &[Binding]) -> bool {
    bindings.iter().all(|b| match b {
        Binding::Gather(s) => s.shape().iter().all(|&e| e <= i32::MAX as usize),
        _ => true,
    })
}

/// Elements between consecutive indices of dimension `d` of `shape`.
pub(crate) fn stride(shape: &[usize], d: usize) -> usize {
    shape[d + 1..].iter().product()
}

/// The raw bits of every component of a constant, in `Value::flatten` order.
pub(crate) fn raw_components(v: &Value) -> Vec<u32> {
    let mut comps = Vec::new();
    v.flatten(&mut comps);
    comps
        .into_iter()
        .map(|c| match c {
            crate::value::Comp::F(x) => x.to_bits(),
            crate::value::Comp::I(i) => i as u32,
            crate::value::Comp::B(b) => b as u32,
        })
        .collect()
}

/// The value of one slot for a call with `bindings`; `outs[o]` is the data of output `o`,
/// `watchdog` the call's time limit (reductions have none).
pub(crate) fn slot_value(
    s: Slot,
    bindings: &[Binding],
    out_shape: &[usize],
    outs: &[*mut f32],
    watchdog: Option<&Watchdog>,
) -> u64 {
    let shape = |p: u32| -> &[usize] {
        match &bindings[p as usize] {
            Binding::Stream(s) | Binding::Gather(s) => s.shape(),
            Binding::Iter(it, _) => it.shape(),
            _ => &[],
        }
    };
    match s {
        Slot::Data(p) => match &bindings[p as usize] {
            Binding::Stream(s) | Binding::Gather(s) => s.data().as_ptr() as u64,
            Binding::Out(o) => outs[*o] as u64,
            _ => 0,
        },
        Slot::Extent(p, d) => shape(p)[d as usize] as u64,
        Slot::Stride(p, d) => stride(shape(p), d as usize) as u64,
        Slot::Last(p, d) => (shape(p)[d as usize] - 1) as u64,
        Slot::LastF(p, d) => last_bound(shape(p)[d as usize]).to_bits() as u64,
        Slot::IterStart(p, c) => match &bindings[p as usize] {
            Binding::Iter(it, _) => it.start()[c as usize].to_bits() as u64,
            _ => 0,
        },
        Slot::IterStep(p, c) => match &bindings[p as usize] {
            Binding::Iter(_, steps) => steps[c as usize].to_bits() as u64,
            _ => 0,
        },
        Slot::Const(p, c) => match &bindings[p as usize] {
            Binding::Constant(v) => raw_components(v).get(c as usize).copied().unwrap_or(0) as u64,
            _ => 0,
        },
        Slot::OutExtent(d) => out_shape[d as usize] as u64,
        Slot::Watchdog => watchdog.map_or(0, |w| w as *const Watchdog as u64),
    }
}

/// Elements per tile for a call of `total` elements.
fn tile_size(total: usize) -> usize {
    let per_core = total / (rayon::current_num_threads().max(1) * 8);
    // A multiple of 4, so only a call's last tile has elements after its last quad.
    per_core.clamp(64, MAX_TILE).next_multiple_of(4)
}

/// Runs every element of a call: returns the elements that wrote their outputs (not
/// discarded, not masked off) and each tile's vout pushes, in element order; or [`TimeUp`]
/// when a tile of code compiled for a time limit found it passed (tiles not yet started
/// then do not start).
///
/// # Safety
/// `ctx` holds the slot values of `k` for this call: addresses of live streams with the
/// extents given, output streams of `total` elements not accessed by anything else during
/// the call, and `mask` (when given) has `total` entries; `narrow_gathers` says every
/// extent of every gathered stream is at most `i32::MAX` ([`narrow_gathers`]).
pub(crate) unsafe fn run(
    k: &Code,
    ctx: &[u64],
    total: usize,
    mask: Option<&[bool]>,
    vout_fpe: &[usize],
    narrow_gathers: bool,
) -> Result<(usize, Vec<VoutTile>), TimeUp> {
    // Four elements per iteration where the code has it, no write mask picks elements, and
    // every gathered extent fits the 32-bit lane indices of its gathers.
    let quads = mask.is_none() && narrow_gathers;
    let tile = tile_size(total);
    let one = |t: usize| -> Result<(usize, VoutTile), TimeUp> {
        let start = t * tile;
        let count = tile.min(total - start);
        let mut vouts = VoutTile::new(vout_fpe.to_vec());
        // SAFETY: the caller's contract; this tile writes only elements start..start+count.
        let written = unsafe { run_elements(k, ctx, start, count, mask, quads, &mut vouts) }?;
        Ok((written, vouts))
    };
    let n_tiles = total.div_ceil(tile);
    let tiles: Vec<(usize, VoutTile)> = if n_tiles <= 1 {
        (0..n_tiles).map(one).collect::<Result<_, _>>()?
    } else {
        (0..n_tiles)
            .into_par_iter()
            .map(one)
            .collect::<Result<_, _>>()?
    };
    let written = tiles.iter().map(|(w, _)| w).sum();
    Ok((written, tiles.into_iter().map(|(_, v)| v).collect()))
}

/// Runs elements `start..start + count` of a call on this thread, four per iteration where
/// `k` has the code for it and `quads` allows it: returns how many wrote their outputs, or
/// [`TimeUp`].
///
/// # Safety
/// As [`run`], for the elements `start..start + count`; `quads` only where `mask` is `None`
/// and gathers are narrow ([`narrow_gathers`]).
pub(crate) unsafe fn run_elements(
    k: &Code,
    ctx: &[u64],
    start: usize,
    count: usize,
    mask: Option<&[bool]>,
    quads_allowed: bool,
    vouts: &mut VoutTile,
) -> Result<usize, TimeUp> {
    let tile_fn = tile(k);
    let mask = mask.map_or(std::ptr::null(), |m| m.as_ptr());
    // SAFETY (both calls): the caller's contract.
    let elements = |vouts: &mut VoutTile, from: usize, n: usize| match unsafe {
        tile_fn(ctx.as_ptr(), from as i64, n as i64, mask, vouts)
    } {
        -1 => Err(TimeUp),
        w => Ok(w as usize),
    };
    let Some(quads_fn) = quads(k).filter(|_| quads_allowed) else {
        return elements(vouts, start, count);
    };
    // Quads until one bails out (its lanes disagreed on a condition), which then runs one
    // element at a time; the elements after the last quad run one at a time.
    let (mut at, end) = (start, start + count / 4 * 4);
    let mut written = 0;
    while at < end {
        let n = (end - at) as i64;
        let done = unsafe { quads_fn(ctx.as_ptr(), at as i64, n, mask, vouts) };
        let done = usize::try_from(done).map_err(|_| TimeUp)?;
        (at, written) = (at + done, written + done);
        if at < end {
            written += elements(vouts, at, 4)?;
            at += 4;
        }
    }
    // The elements after the last quad: a call's last tile has them, and a fused run.
    if end < start + count {
        written += elements(vouts, end, start + count - end)?;
    }
    Ok(written)
}
