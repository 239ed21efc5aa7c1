//! Four consecutive stream elements of `n` floats each, moved between memory (element after
//! element: `x₀ y₀ x₁ y₁ …`) and the four-element code's registers (component after
//! component: one `f32x4` of the four `x`, one of the four `y`, …), what running a kernel on
//! `float2`..`float4` streams four elements per iteration needs ([`crate::jit::soa`]).
//!
//! The `4n` floats are `n` vector loads (or stores); each register is put together from the
//! lanes it needs with byte shuffles: one where those lanes come from at most two vectors,
//! else two shuffles that gather them pairwise and a third that joins the pairs. Only lanes
//! move, so the bits are the elements' own.

use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::FunctionBuilder;

use brook_ir::Scalar;

use super::num::{convert, shuffle2, Num, Val};
use super::{no, Res};
use crate::jit::Unjittable;

/// One lane of a result: which source vector, which of its lanes.
type From = (usize, u8);

/// The `n` components (`f32x4` each, lane `j` element `j`) of the four elements of `n`
/// floats at `addr`.
pub(crate) fn load(b: &mut FunctionBuilder, n: u8, flags: MemFlagsData, addr: Value) -> Vec<Value> {
    let memory: Vec<Value> = (0..n as i32)
        .map(|v| b.ins().load(types::F32X4, flags, addr, 16 * v))
        .collect();
    (0..n as usize)
        .map(|c| {
            // Lane `j` of component `c` is float `j * n + c` of memory.
            let from = [0, 1, 2, 3].map(|j| at(j * n as usize + c));
            pick(b, &memory, from)
        })
        .collect()
}

/// Stores components `comps` (`f32x4` each, lane `j` element `j`) as the four elements of
/// `comps.len()` floats at `addr`.
pub(crate) fn store(b: &mut FunctionBuilder, comps: &[Value], addr: Value) {
    let n = comps.len();
    let flags = MemFlagsData::new().with_notrap();
    for v in 0..n {
        // Float `4v + i` of memory is component `(4v + i) % n` of element `(4v + i) / n`.
        let from = [0, 1, 2, 3].map(|i| {
            let f = 4 * v + i;
            (f % n, (f / n) as u8)
        });
        let x = pick(b, comps, from);
        b.ins().store(flags, x, addr, 16 * v as i32);
    }
}

/// Float `f` of consecutive vectors: which vector, which lane.
fn at(f: usize) -> From {
    (f / 4, (f % 4) as u8)
}

/// An `f32x4` whose lane `j` is lane `from[j].1` of `srcs[from[j].0]`.
pub(crate) fn pick(b: &mut FunctionBuilder, srcs: &[Value], from: [From; 4]) -> Value {
    let mut used: Vec<usize> = Vec::with_capacity(4);
    for (s, _) in from {
        if !used.contains(&s) {
            used.push(s);
        }
    }
    if used.len() <= 2 {
        let (a, c) = (used[0], *used.get(1).unwrap_or(&used[0]));
        let sel = from.map(|(s, l)| if s == a { l } else { 4 + l });
        return shuffle2(b, srcs[a], srcs[c], sel);
    }
    // Lanes from the first two sources in one vector, the rest in another, each at the
    // result's position (lanes not taken from a source: any), then one shuffle of the two.
    let (first, rest) = used.split_at(2);
    let half = |b: &mut FunctionBuilder, pair: &[usize]| {
        let (a, c) = (pair[0], *pair.get(1).unwrap_or(&pair[0]));
        let sel = from.map(|(s, l)| match s {
            _ if s == a => l,
            _ if s == c => 4 + l,
            _ => 0,
        });
        shuffle2(b, srcs[a], srcs[c], sel)
    };
    let (lo, hi) = (half(b, first), half(b, rest));
    let sel = [0, 1, 2, 3].map(|j| match first.contains(&from[j].0) {
        true => j as u8,
        false => 4 + j as u8,
    });
    shuffle2(b, lo, hi, sel)
}

/// The four elements at `addr` of a stream of `n`-component vectors of kind `s`, as the
/// four-element code holds them: one four-lane value per component, each float converted
/// to `s` as [`super::decode`] converts one element's.
pub(crate) fn decode(b: &mut FunctionBuilder, s: Scalar, n: u8, addr: Value) -> Val {
    let flags = MemFlagsData::new()
        .with_notrap()
        .with_readonly()
        .with_can_move();
    let comps = load(b, n, flags, addr);
    Val::Agg(
        comps
            .into_iter()
            .map(|v| {
                Val::Num(convert(
                    b,
                    Num {
                        s: Scalar::Float,
                        n: 4,
                        v,
                    },
                    s,
                ))
            })
            .collect(),
    )
}

/// Writes `v`, the four-element code's value of a vector output (one four-lane value per
/// component), as the four elements at `addr`, each component a float as
/// [`super::encode`] writes one element's.
pub(crate) fn encode(b: &mut FunctionBuilder, v: &Val, addr: Value) -> Res<()> {
    let Val::Agg(parts) = v else {
        return no(format!("four elements of {v:?}"));
    };
    let mut comps = Vec::with_capacity(parts.len());
    for p in parts {
        let x = p.num().ok_or_else(|| Unjittable("a component".into()))?;
        comps.push(convert(b, x, Scalar::Float).v);
    }
    store(b, &comps, addr);
    Ok(())
}
