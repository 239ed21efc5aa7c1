//! How Brook values live in Cranelift IR, and the small emitters every rule builds on.
//!
//! A scalar is one CLIF value (`f32`, `i32`, or `i8` holding 0/1 for `bool`). A vector of 2 to
//! 4 components is one 128-bit SIMD value (`f32x4` for floats, `i32x4` for ints, and for
//! bools an `i32x4` mask whose lanes are all ones or zero, what vector compares produce), so
//! `a * x + y` on `float4` is two SIMD instructions. Lanes past the width hold whatever the
//! operation left there: nothing reads them (horizontal operations, stores and lane loops stop
//! at the width) and no SIMD float operation traps on them. A matrix is its rows, each a
//! vector (or a scalar for one column); structs and arrays are their members in order.

use brook_ir::Scalar;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, ConstantData, Endianness, InstBuilder, MemFlagsData, Type as Ty, Value,
};
use cranelift_frontend::FunctionBuilder;

/// A scalar (`n == 1`) or vector value.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Num {
    pub s: Scalar,
    pub n: u8,
    pub v: Value,
}

/// Any Brook value.
#[derive(Debug, Clone)]
pub(crate) enum Val {
    Void,
    Num(Num),
    /// Rows, each of the matrix's column count.
    Mat(Vec<Num>),
    /// Struct members or array elements, in order.
    Agg(Vec<Val>),
}

/// One scalar component: its kind and its CLIF scalar.
pub(crate) type Comp = (Scalar, Value);

/// The CLIF type of a scalar or vector of kind `s` and width `n`.
pub(crate) fn clif_ty(s: Scalar, n: u8) -> Ty {
    match (s, n > 1) {
        (Scalar::Float, false) => types::F32,
        (Scalar::Int, false) => types::I32,
        (Scalar::Bool, false) => types::I8,
        (Scalar::Float, true) => types::F32X4,
        (_, true) => types::I32X4,
    }
}

/// Flags for reinterpreting a vector's lanes (Cranelift asks for an explicit byte order).
pub(crate) fn lane_cast() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

pub(crate) fn fconst(b: &mut FunctionBuilder, x: f32) -> Value {
    b.ins().f32const(x)
}

pub(crate) fn iconst(b: &mut FunctionBuilder, i: i32) -> Value {
    b.ins().iconst(types::I32, i as i64)
}

/// A constant of kind `s` from the raw bits of one component.
pub(crate) fn raw_const(b: &mut FunctionBuilder, s: Scalar, bits: u32) -> Value {
    match s {
        Scalar::Float => b.ins().f32const(f32::from_bits(bits)),
        Scalar::Int => b.ins().iconst(types::I32, bits as i32 as i64),
        Scalar::Bool => b.ins().iconst(types::I8, (bits != 0) as i64),
    }
}

/// The zero scalar of kind `s`.
pub(crate) fn zero_scalar(b: &mut FunctionBuilder, s: Scalar) -> Value {
    raw_const(b, s, 0)
}

/// A 128-bit constant from four 32-bit lanes.
pub(crate) fn vconst(b: &mut FunctionBuilder, ty: Ty, lanes: [u32; 4]) -> Value {
    let bytes: Vec<u8> = lanes.iter().flat_map(|l| l.to_le_bytes()).collect();
    let c = b.func.dfg.constants.insert(ConstantData::from(bytes));
    b.ins().vconst(ty, c)
}

/// A vector lane of a bool: all ones for true.
fn mask_lane(b: &mut FunctionBuilder, x: Value) -> Value {
    let wide = b.ins().uextend(types::I32, x);
    b.ins().ineg(wide)
}

/// Scalar `x` of kind `s` in every lane.
pub(crate) fn splat(b: &mut FunctionBuilder, s: Scalar, x: Value) -> Value {
    match s {
        Scalar::Float => b.ins().splat(types::F32X4, x),
        Scalar::Int => b.ins().splat(types::I32X4, x),
        Scalar::Bool => {
            let m = mask_lane(b, x);
            b.ins().splat(types::I32X4, m)
        }
    }
}

impl Num {
    pub fn scalar(s: Scalar, v: Value) -> Num {
        Num { s, n: 1, v }
    }

    /// Component `i` as a scalar (a scalar is its own every component).
    pub fn lane(self, b: &mut FunctionBuilder, i: usize) -> Value {
        if self.n == 1 {
            return self.v;
        }
        let x = b.ins().extractlane(self.v, i as u8);
        match self.s {
            Scalar::Bool => b.ins().icmp_imm_s(IntCC::NotEqual, x, 0),
            _ => x,
        }
    }

    /// Every component, in order.
    pub fn lanes(self, b: &mut FunctionBuilder) -> Vec<Value> {
        (0..self.n as usize).map(|i| self.lane(b, i)).collect()
    }

    /// This value at width `n`: a scalar splats, a vector keeps its lanes.
    pub fn widen(self, b: &mut FunctionBuilder, n: u8) -> Num {
        if self.n == 1 && n > 1 {
            Num {
                s: self.s,
                n,
                v: splat(b, self.s, self.v),
            }
        } else {
            Num { n, ..self }
        }
    }
}

/// A scalar or vector of kind `s` from its components (scalars of kind `s`).
pub(crate) fn from_lanes(b: &mut FunctionBuilder, s: Scalar, lanes: &[Value]) -> Num {
    let n = lanes.len() as u8;
    if n == 1 {
        return Num::scalar(s, lanes[0]);
    }
    if lanes.iter().all(|&l| l == lanes[0]) {
        return Num {
            s,
            n,
            v: splat(b, s, lanes[0]),
        };
    }
    let ty = clif_ty(s, n);
    let lane = |b: &mut FunctionBuilder, x: Value| match s {
        Scalar::Bool => mask_lane(b, x),
        _ => x,
    };
    let first = lane(b, lanes[0]);
    let mut v = b.ins().scalar_to_vector(ty, first);
    for (i, &x) in lanes.iter().enumerate().skip(1) {
        let x = lane(b, x);
        v = b.ins().insertlane(v, x, i as u8);
    }
    Num { s, n, v }
}

/// Rearranges the 32-bit lanes of `v`: result lane `j` is lane `sel[j]`.
pub(crate) fn shuffle(b: &mut FunctionBuilder, v: Value, sel: [u8; 4]) -> Value {
    shuffle2(b, v, v, sel)
}

/// The vector (of `a`'s type) whose 32-bit lane `j` is lane `sel[j]` of `a` (0–3) or of
/// `c` (4–7).
pub(crate) fn shuffle2(b: &mut FunctionBuilder, a: Value, c: Value, sel: [u8; 4]) -> Value {
    if sel == [0, 1, 2, 3] {
        return a;
    }
    let ty = b.func.dfg.value_type(a);
    let bytes: Vec<u8> = sel
        .iter()
        .flat_map(|&k| (0..4).map(move |byte| 4 * k + byte))
        .collect();
    let mask = b
        .func
        .dfg
        .immediates
        .push(ConstantData::from(bytes.as_slice()));
    let a8 = b.ins().bitcast(types::I8X16, lane_cast(), a);
    let c8 = match c == a {
        true => a8,
        false => b.ins().bitcast(types::I8X16, lane_cast(), c),
    };
    let s = b.ins().shuffle(a8, c8, mask);
    b.ins().bitcast(ty, lane_cast(), s)
}

/// Reads components `sel` (x y z w): one component is a scalar, more a vector; a scalar
/// repeats (`x.xxx`). `None` for a component past the width.
pub(crate) fn swizzle(b: &mut FunctionBuilder, v: Num, sel: &[u8]) -> Option<Num> {
    if sel.is_empty() || sel.len() > 4 {
        return None;
    }
    if v.n == 1 {
        return Some(Num::scalar(v.s, v.v).widen(b, sel.len() as u8));
    }
    if sel.iter().any(|&k| k >= v.n) {
        return None;
    }
    if let [k] = sel {
        return Some(Num::scalar(v.s, v.lane(b, *k as usize)));
    }
    let mut lanes = [0u8; 4];
    for (j, l) in lanes.iter_mut().enumerate() {
        *l = sel.get(j).copied().unwrap_or(sel[0]);
    }
    Some(Num {
        s: v.s,
        n: sel.len() as u8,
        v: shuffle(b, v.v, lanes),
    })
}

/// `v` with component `i` (< width) replaced by scalar `x` of the same kind.
pub(crate) fn set_lane(b: &mut FunctionBuilder, v: Num, i: usize, x: Value) -> Num {
    if v.n == 1 {
        return Num { v: x, ..v };
    }
    let x = match v.s {
        Scalar::Bool => mask_lane(b, x),
        _ => x,
    };
    Num {
        v: b.ins().insertlane(v.v, x, i as u8),
        ..v
    }
}

/// Converts the components of `v` to kind `s` with C's rules (the interpreter's `Comp`
/// conversions): float to int truncates toward zero, saturating, NaN to 0; anything to bool
/// is `!= 0`; bool to a number is 0 or 1.
pub(crate) fn convert(b: &mut FunctionBuilder, v: Num, s: Scalar) -> Num {
    if v.s == s {
        return v;
    }
    let vector = v.n > 1;
    let out = match (v.s, s, vector) {
        (Scalar::Float, Scalar::Int, false) => b.ins().fcvt_to_sint_sat(types::I32, v.v),
        (Scalar::Float, Scalar::Int, true) => b.ins().fcvt_to_sint_sat(types::I32X4, v.v),
        (Scalar::Int, Scalar::Float, false) => b.ins().fcvt_from_sint(types::F32, v.v),
        (Scalar::Int, Scalar::Float, true) => b.ins().fcvt_from_sint(types::F32X4, v.v),
        (Scalar::Bool, Scalar::Int, false) => b.ins().uextend(types::I32, v.v),
        (Scalar::Bool, Scalar::Int, true) => b.ins().ineg(v.v),
        (Scalar::Bool, Scalar::Float, false) => {
            let (one, zero) = (fconst(b, 1.0), fconst(b, 0.0));
            b.ins().select(v.v, one, zero)
        }
        (Scalar::Bool, Scalar::Float, true) => {
            let one = vconst(b, types::I32X4, [1f32.to_bits(); 4]);
            let bits = b.ins().band(v.v, one);
            b.ins().bitcast(types::F32X4, lane_cast(), bits)
        }
        (Scalar::Float, Scalar::Bool, false) => {
            let zero = fconst(b, 0.0);
            b.ins().fcmp(FloatCC::NotEqual, v.v, zero)
        }
        (Scalar::Float, Scalar::Bool, true) => {
            let zero = vconst(b, types::F32X4, [0; 4]);
            b.ins().fcmp(FloatCC::NotEqual, v.v, zero)
        }
        (Scalar::Int, Scalar::Bool, false) => b.ins().icmp_imm_s(IntCC::NotEqual, v.v, 0),
        (Scalar::Int, Scalar::Bool, true) => {
            let zero = vconst(b, types::I32X4, [0; 4]);
            b.ins().icmp(IntCC::NotEqual, v.v, zero)
        }
        (a, c, _) if a == c => v.v,
        _ => unreachable!("every pair of kinds is listed"),
    };
    Num { s, n: v.n, v: out }
}

/// Applies a scalar emitter to each component (of `args`, scalars splatting), for the
/// operations Cranelift has no vector form of (integer division, calls into Rust).
pub(crate) fn per_lane(
    b: &mut FunctionBuilder,
    s: Scalar,
    args: &[Num],
    mut f: impl FnMut(&mut FunctionBuilder, &[Value]) -> Value,
) -> Num {
    let n = args.iter().map(|a| a.n).max().unwrap_or(1);
    let mut lanes = Vec::with_capacity(n as usize);
    for i in 0..n as usize {
        let xs: Vec<Value> = args.iter().map(|a| a.lane(b, i)).collect();
        lanes.push(f(b, &xs));
    }
    from_lanes(b, s, &lanes)
}

impl Val {
    /// The scalar or vector, if this is one.
    pub fn num(&self) -> Option<Num> {
        match self {
            Val::Num(n) => Some(*n),
            _ => None,
        }
    }

    /// Every scalar component in order (members in order, matrices row by row): the
    /// interpreter's `Value::flatten`.
    pub fn flatten(&self, b: &mut FunctionBuilder, out: &mut Vec<Comp>) {
        match self {
            Val::Void => {}
            Val::Num(n) => {
                for x in n.lanes(b) {
                    out.push((n.s, x));
                }
            }
            Val::Mat(rows) => {
                for r in rows {
                    for x in r.lanes(b) {
                        out.push((Scalar::Float, x));
                    }
                }
            }
            Val::Agg(parts) => {
                for p in parts {
                    p.flatten(b, out);
                }
            }
        }
    }
}

/// One component converted to kind `s` (the interpreter's `Value::set_comp`).
pub(crate) fn convert_comp(b: &mut FunctionBuilder, c: Comp, s: Scalar) -> Value {
    convert(b, Num::scalar(c.0, c.1), s).v
}
