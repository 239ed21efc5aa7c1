//! Brook's index rules in the shader (`brook-semantics.md`), the same arithmetic as the CPU
//! backend's `shape.rs`.
//!
//! An index is a list of `u32` components ordered like Brook's `indexof`: component 0 is the
//! last dimension (the column), component 1 the one before, and so on; extents are a
//! `vec4<u32>` in the same order, 1 in unused dimensions. Streams are row-major, so storage is
//! linear with no address translation: no texture size limit applies, so there is no 2D
//! wrapping to undo.

use naga::{Expression, Handle};

use super::builder::FnBuilder;

/// Row-major linear position of `index` (component 0 the fastest) in `extents`.
pub fn linearize(
    b: &mut FnBuilder,
    index: &[Handle<Expression>],
    extents: Handle<Expression>,
) -> Handle<Expression> {
    let mut lin = index[index.len() - 1];
    for k in (0..index.len() - 1).rev() {
        let e = b.index(extents, k as u32);
        let scaled = b.mul(lin, e);
        lin = b.add_(scaled, index[k]);
    }
    lin
}

/// The index of linear position `linear` in `extents`, `rank` components.
pub fn unlinearize(
    b: &mut FnBuilder,
    linear: Handle<Expression>,
    extents: Handle<Expression>,
    rank: u8,
) -> Vec<Handle<Expression>> {
    let mut out = Vec::with_capacity(rank as usize);
    let mut rest = linear;
    for k in 0..rank {
        if k + 1 == rank {
            out.push(rest);
            break;
        }
        let e = b.index(extents, u32::from(k));
        out.push(b.rem(rest, e));
        rest = b.div(rest, e);
    }
    out
}

/// Brook's implicit resize along one dimension: output element `i` reads element
/// `i * to / from`, the ratio of the input's extent to the output's reduced by their gcd
/// (`brook_core::index::resize_ratio`; 32-bit, as the GL backend computes it).
pub fn resize(
    b: &mut FnBuilder,
    i: Handle<Expression>,
    to: Handle<Expression>,
    from: Handle<Expression>,
) -> Handle<Expression> {
    // Equal extents (ratio 1/1) pass through, so no product can wrap there (the runtime
    // refuses calls whose other products would: `brook_core::call::check_resize`).
    let p = b.mul(i, to);
    let scaled = b.div(p, from);
    let same = b.eq(to, from);
    b.select(same, i, scaled)
}

/// Brook's gather rounding of a float index component: `floor(v + 0.25)` clamped to
/// `[0, extent-1]`, NaN reading element 0 (the CPU's `gather_component_f`).
pub fn gather_component_f(
    b: &mut FnBuilder,
    v: Handle<Expression>,
    extent: Handle<Expression>,
) -> Handle<Expression> {
    let one = b.u32(1);
    let last = b.sub(extent, one);
    gather_round_clamp(b, v, last)
}

/// [`gather_component_f`] with the bound `extent - 1` given as `u32`: `floor(v + 0.25)`, then
/// [`gather_clamp`].
pub fn gather_round_clamp(
    b: &mut FnBuilder,
    v: Handle<Expression>,
    last: Handle<Expression>,
) -> Handle<Expression> {
    let quarter = b.f32(0.25);
    let biased = b.add_(v, quarter);
    let i = b.math(naga::MathFunction::Floor, &[biased]);
    gather_clamp(b, i, last)
}

/// Brook's clamp of a float index component already rounded (or proven integral, which the
/// rounding leaves unchanged: `brook_ir::integral`) to `[0, last]`, `last` a `u32`. The index
/// is capped at 2³⁰ in float (so its conversion is defined), converted, then clamped in
/// integers: exact at every extent, where a float bound `f32(extent - 1)` is rounded past 2²⁴
/// elements. A NaN or negative index fails `i > 0` and reads element 0 (its conversion is
/// discarded).
pub fn gather_clamp(
    b: &mut FnBuilder,
    i: Handle<Expression>,
    last: Handle<Expression>,
) -> Handle<Expression> {
    let zero_f = b.f32(0.0);
    let zero = b.u32(0);
    let cap = b.f32(1073741824.0);
    let capped = b.min(i, cap);
    let as_u = b.convert(capped, naga::ScalarKind::Uint);
    let clamped = b.min(as_u, last);
    let positive = b.gt(i, zero_f);
    b.select(positive, clamped, zero)
}

/// The same rule for an `int` component: clamped to `[0, last]` (`last` = extent - 1).
pub fn gather_component_i(
    b: &mut FnBuilder,
    v: Handle<Expression>,
    last: Handle<Expression>,
) -> Handle<Expression> {
    let zero = b.i32(0);
    let non_negative = b.max(v, zero);
    let as_u = b.convert(non_negative, naga::ScalarKind::Uint);
    b.min(as_u, last)
}

/// A `vec4<f32>` position (`indexof`) of an index of `rank` components.
pub fn position(b: &mut FnBuilder, index: &[Handle<Expression>]) -> Handle<Expression> {
    let mut comps = Vec::with_capacity(4);
    for k in 0..4 {
        comps.push(match index.get(k) {
            Some(&i) => b.convert(i, naga::ScalarKind::Float),
            None => b.f32(0.0),
        });
    }
    let t = b.types.vector(naga::Scalar::F32, 4);
    b.compose(t, comps)
}
