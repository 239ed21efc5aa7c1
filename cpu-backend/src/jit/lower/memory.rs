//! Values to and from memory: stream elements (the interpreter's `Value::decode` and
//! `Value::encode`: every component a float, ints truncated on the way in, bools `!= 0`)
//! and raw accumulators (every component 32 bits of its own kind, so an `int` reduction keeps
//! all its bits between chunks, as the interpreter's values do).

use brook_ir::{Scalar, Type};
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type as Ty, Value};
use cranelift_frontend::FunctionBuilder;

use super::num::{clif_ty, convert, lane_cast, Num, Val};
use super::{no, Lower, Res};

/// How a value is laid out in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// A stream element: floats.
    Stream,
    /// An accumulator: each component as its own kind (`f32`, `i32`, bool as `i32` 0/1).
    Raw,
}

/// Loads `n` lanes of 32-bit type `lane` at `addr + offset` (scalar for one lane).
fn load_lanes(
    b: &mut FunctionBuilder,
    lane: Ty,
    n: u8,
    flags: MemFlagsData,
    addr: Value,
    offset: i32,
) -> Value {
    let vec_ty = if lane == types::F32 {
        types::F32X4
    } else {
        types::I32X4
    };
    match n {
        1 => b.ins().load(lane, flags, addr, offset),
        4 => b.ins().load(vec_ty, flags, addr, offset),
        _ => {
            let pair = b.ins().load(types::I64, flags, addr, offset);
            let v = b.ins().scalar_to_vector(types::I64X2, pair);
            let v = b.ins().bitcast(vec_ty, lane_cast(), v);
            if n == 3 {
                let z = b.ins().load(lane, flags, addr, offset + 8);
                b.ins().insertlane(v, z, 2)
            } else {
                v
            }
        }
    }
}

/// Stores the first `n` lanes of `v` (a scalar for one lane) at `addr + offset`.
fn store_lanes(b: &mut FunctionBuilder, v: Value, n: u8, addr: Value, offset: i32) {
    let flags = MemFlagsData::new().with_notrap();
    match n {
        1 | 4 => {
            b.ins().store(flags, v, addr, offset);
        }
        _ => {
            let wide = b.ins().bitcast(types::I64X2, lane_cast(), v);
            let pair = b.ins().extractlane(wide, 0);
            b.ins().store(flags, pair, addr, offset);
            if n == 3 {
                let z = b.ins().extractlane(v, 2);
                b.ins().store(flags, z, addr, offset + 8);
            }
        }
    }
}

/// Reads a value of `ty` at `addr + 4 * at` floats (advancing `at` past it). `readonly`:
/// nothing writes that memory while the code runs (inputs), so loads may be moved or merged.
pub(crate) fn decode(
    l: &mut Lower,
    ty: &Type,
    addr: Value,
    at: &mut i32,
    layout: Layout,
    readonly: bool,
) -> Res<Val> {
    let mut flags = MemFlagsData::new().with_notrap();
    if readonly {
        flags = flags.with_readonly().with_can_move();
    }
    let b = &mut *l.b;
    let num = |b: &mut FunctionBuilder, s: Scalar, n: u8, at: &mut i32| {
        let raw = layout == Layout::Raw && s != Scalar::Float;
        let lane = if raw { types::I32 } else { types::F32 };
        let v = load_lanes(b, lane, n, flags, addr, 4 * *at);
        *at += n as i32;
        let loaded = Num {
            s: if raw { Scalar::Int } else { Scalar::Float },
            n,
            v,
        };
        convert(b, loaded, s)
    };
    Ok(match ty {
        Type::Void => Val::Void,
        Type::Scalar(s) => Val::Num(num(b, *s, 1, at)),
        Type::Vector(s, n) => Val::Num(num(b, *s, *n, at)),
        Type::Matrix { rows, cols } => Val::Mat(
            (0..*rows)
                .map(|_| num(b, Scalar::Float, *cols, at))
                .collect(),
        ),
        Type::Struct(id) => {
            let fields = super::members(l.module, *id)?;
            let mut parts = Vec::with_capacity(fields.len());
            for m in fields {
                parts.push(decode(l, &m.ty, addr, at, layout, readonly)?);
            }
            Val::Agg(parts)
        }
        Type::Array(elem, n) => {
            let mut parts = Vec::with_capacity(*n as usize);
            for _ in 0..*n {
                parts.push(decode(l, elem, addr, at, layout, readonly)?);
            }
            Val::Agg(parts)
        }
    })
}

/// Writes `v` at `addr + 4 * at` floats (advancing `at` past it).
pub(crate) fn encode(
    b: &mut FunctionBuilder,
    v: &Val,
    addr: Value,
    at: &mut i32,
    layout: Layout,
) -> Res<()> {
    match v {
        Val::Void => {}
        Val::Num(x) => {
            let kind = match (layout, x.s) {
                (_, Scalar::Float) | (Layout::Stream, _) => Scalar::Float,
                (Layout::Raw, _) => Scalar::Int,
            };
            let c = convert(b, *x, kind);
            debug_assert_eq!(b.func.dfg.value_type(c.v), clif_ty(kind, x.n));
            store_lanes(b, c.v, x.n, addr, 4 * *at);
            *at += x.n as i32;
        }
        Val::Mat(rows) => {
            for r in rows {
                store_lanes(b, r.v, r.n, addr, 4 * *at);
                *at += r.n as i32;
            }
        }
        Val::Agg(parts) => {
            for p in parts {
                encode(b, p, addr, at, layout)?;
            }
        }
    }
    if *at < 0 {
        return no("element too large");
    }
    Ok(())
}
