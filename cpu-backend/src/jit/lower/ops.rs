//! Operators (the interpreter's `exec::ops`): component-wise, a scalar side splatting, vectors
//! as SIMD where Cranelift has the instruction and lane by lane where it has not (integer
//! division and shifts by a vector). Same IEEE operations in the same order, so the same
//! bits: `%` on floats is `x - y * trunc(x / y)`, integer arithmetic wraps, division or
//! remainder by zero gives 0, shift counts are taken modulo 32.

use brook_ir::{BinaryOp, Scalar, UnaryOp};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

use super::num::{convert, fconst, iconst, per_lane, vconst, Num, Val};
use super::{no, Lower, Res};

/// The result width of a component-wise operation: equal widths, or one side a scalar.
pub(crate) fn width2(na: u8, nb: u8) -> Res<u8> {
    if na == nb || nb == 1 {
        Ok(na)
    } else if na == 1 {
        Ok(nb)
    } else {
        no(format!(
            "component-wise operation on vectors of widths {na} and {nb}"
        ))
    }
}

/// Both sides at their common width.
pub(crate) fn widen2(b: &mut FunctionBuilder, x: Num, y: Num) -> Res<(Num, Num)> {
    let n = width2(x.n, y.n)?;
    Ok((x.widen(b, n), y.widen(b, n)))
}

/// `x op y` on floats of one shape, or `None` for an operator that is not float arithmetic.
pub(crate) fn float_arith(
    b: &mut FunctionBuilder,
    op: BinaryOp,
    x: Value,
    y: Value,
) -> Option<Value> {
    Some(match op {
        BinaryOp::Add => b.ins().fadd(x, y),
        BinaryOp::Sub => b.ins().fsub(x, y),
        BinaryOp::Mul => b.ins().fmul(x, y),
        BinaryOp::Div => b.ins().fdiv(x, y),
        BinaryOp::Rem => fmod(b, x, y),
        _ => return None,
    })
}

/// `ops::fmod`: `x - y * trunc(x / y)`.
pub(crate) fn fmod(b: &mut FunctionBuilder, x: Value, y: Value) -> Value {
    let q = b.ins().fdiv(x, y);
    let t = b.ins().trunc(q);
    let p = b.ins().fmul(y, t);
    b.ins().fsub(x, p)
}

fn float_cc(op: BinaryOp) -> Option<FloatCC> {
    Some(match op {
        BinaryOp::Eq => FloatCC::Equal,
        BinaryOp::Ne => FloatCC::NotEqual,
        BinaryOp::Lt => FloatCC::LessThan,
        BinaryOp::Le => FloatCC::LessThanOrEqual,
        BinaryOp::Gt => FloatCC::GreaterThan,
        BinaryOp::Ge => FloatCC::GreaterThanOrEqual,
        _ => return None,
    })
}

fn int_cc(op: BinaryOp) -> Option<IntCC> {
    Some(match op {
        BinaryOp::Eq => IntCC::Equal,
        BinaryOp::Ne => IntCC::NotEqual,
        BinaryOp::Lt => IntCC::SignedLessThan,
        BinaryOp::Le => IntCC::SignedLessThanOrEqual,
        BinaryOp::Gt => IntCC::SignedGreaterThan,
        BinaryOp::Ge => IntCC::SignedGreaterThanOrEqual,
        _ => return None,
    })
}

/// `i32::wrapping_div` with 0 for a zero divisor, on scalars.
fn int_div(b: &mut FunctionBuilder, x: Value, y: Value, rem: bool) -> Value {
    let zero = b.ins().icmp_imm_s(IntCC::Equal, y, 0);
    let minus_one = b.ins().icmp_imm_s(IntCC::Equal, y, -1);
    let special = b.ins().bor(zero, minus_one);
    let one = iconst(b, 1);
    let safe = b.ins().select(special, one, y);
    let z = iconst(b, 0);
    if rem {
        // x % -1 is 0 (wrapping_rem), as is x % 0 here.
        let r = b.ins().srem(x, safe);
        b.ins().select(special, z, r)
    } else {
        let q = b.ins().sdiv(x, safe);
        let neg = b.ins().ineg(x);
        let q = b.ins().select(minus_one, neg, q);
        b.ins().select(zero, z, q)
    }
}

fn float_binary(b: &mut FunctionBuilder, op: BinaryOp, x: Num, y: Num) -> Res<Num> {
    let (x, y) = widen2(b, x, y)?;
    if let Some(v) = float_arith(b, op, x.v, y.v) {
        return Ok(Num { v, ..x });
    }
    match float_cc(op) {
        Some(cc) => Ok(Num {
            s: Scalar::Bool,
            n: x.n,
            v: b.ins().fcmp(cc, x.v, y.v),
        }),
        None => no(format!("operator {op:?} on floats")),
    }
}

fn int_binary(b: &mut FunctionBuilder, op: BinaryOp, x: Num, y: Num) -> Res<Num> {
    use BinaryOp::*;
    let (x, y) = widen2(b, x, y)?;
    let v = match op {
        Add => b.ins().iadd(x.v, y.v),
        Sub => b.ins().isub(x.v, y.v),
        Mul => b.ins().imul(x.v, y.v),
        BitAnd => b.ins().band(x.v, y.v),
        BitOr => b.ins().bor(x.v, y.v),
        BitXor => b.ins().bxor(x.v, y.v),
        Div | Rem | Shl | Shr => {
            return Ok(per_lane(b, Scalar::Int, &[x, y], |b, a| match op {
                Div => int_div(b, a[0], a[1], false),
                Rem => int_div(b, a[0], a[1], true),
                Shl => b.ins().ishl(a[0], a[1]),
                _ => b.ins().sshr(a[0], a[1]),
            }))
        }
        _ => match int_cc(op) {
            Some(cc) => {
                return Ok(Num {
                    s: Scalar::Bool,
                    n: x.n,
                    v: b.ins().icmp(cc, x.v, y.v),
                })
            }
            None => return no(format!("operator {op:?} on ints")),
        },
    };
    Ok(Num { v, ..x })
}

fn bool_binary(b: &mut FunctionBuilder, op: BinaryOp, x: Num, y: Num) -> Res<Num> {
    use BinaryOp::*;
    let (x, y) = widen2(b, x, y)?;
    let v = match op {
        Eq => b.ins().icmp(IntCC::Equal, x.v, y.v),
        Ne | BitXor => b.ins().bxor(x.v, y.v),
        BitAnd | And => b.ins().band(x.v, y.v),
        BitOr | Or => b.ins().bor(x.v, y.v),
        _ => return no(format!("operator {op:?} on bools")),
    };
    Ok(Num { v, ..x })
}

impl Lower<'_, '_, '_, '_> {
    pub fn unary(&mut self, op: UnaryOp, v: Val) -> Res<Val> {
        let b = &mut *self.b;
        let x = match (&v, op) {
            (Val::Mat(rows), UnaryOp::Neg) => {
                return Ok(Val::Mat(
                    rows.iter()
                        .map(|r| Num {
                            v: b.ins().fneg(r.v),
                            ..*r
                        })
                        .collect(),
                ))
            }
            (Val::Num(x), _) => *x,
            _ => return no(format!("operator {op:?} on {v:?}")),
        };
        let out = match (op, x.s) {
            (UnaryOp::Neg, Scalar::Float) => Num {
                v: b.ins().fneg(x.v),
                ..x
            },
            (UnaryOp::Neg, Scalar::Int) => Num {
                v: b.ins().ineg(x.v),
                ..x
            },
            (UnaryOp::Not, Scalar::Bool) if x.n == 1 => Num {
                v: b.ins().bxor_imm_s(x.v, 1),
                ..x
            },
            (UnaryOp::Not, Scalar::Bool) => Num {
                v: b.ins().bnot(x.v),
                ..x
            },
            (UnaryOp::Not, Scalar::Float | Scalar::Int) => {
                // `!x` is `x == 0`.
                let zero = if x.n == 1 {
                    match x.s {
                        Scalar::Float => fconst(b, 0.0),
                        _ => iconst(b, 0),
                    }
                } else {
                    let ty = super::num::clif_ty(x.s, x.n);
                    vconst(b, ty, [0; 4])
                };
                let v = match x.s {
                    Scalar::Float => b.ins().fcmp(FloatCC::Equal, x.v, zero),
                    _ => b.ins().icmp(IntCC::Equal, x.v, zero),
                };
                Num {
                    s: Scalar::Bool,
                    n: x.n,
                    v,
                }
            }
            (UnaryOp::BitNot, Scalar::Int) => Num {
                v: b.ins().bnot(x.v),
                ..x
            },
            _ => return no(format!("operator {op:?} on {x:?}")),
        };
        Ok(Val::Num(out))
    }

    /// The interpreter's `ops::binary`.
    pub fn binary(&mut self, op: BinaryOp, x: Val, y: Val) -> Res<Val> {
        if matches!(op, BinaryOp::And | BinaryOp::Or) {
            let (Some(a), Some(c)) = (x.num(), y.num()) else {
                return no(format!("logical operator on {x:?} and {y:?}"));
            };
            let a = convert(self.b, a, Scalar::Bool);
            let c = convert(self.b, c, Scalar::Bool);
            return Ok(Val::Num(bool_binary(self.b, op, a, c)?));
        }
        match (&x, &y) {
            (Val::Mat(_), _) | (_, Val::Mat(_)) => self.matrix_binary(op, x, y),
            (Val::Num(a), Val::Num(c)) => {
                let b = &mut *self.b;
                Ok(Val::Num(match (a.s, c.s) {
                    (Scalar::Float, Scalar::Float) => float_binary(b, op, *a, *c)?,
                    (Scalar::Int, Scalar::Int) => int_binary(b, op, *a, *c)?,
                    (Scalar::Bool, Scalar::Bool) => bool_binary(b, op, *a, *c)?,
                    // Mixed kinds should have been converted by the front end; promote to
                    // float as C would, as the interpreter does.
                    _ => {
                        let a = convert(b, *a, Scalar::Float);
                        let c = convert(b, *c, Scalar::Float);
                        float_binary(b, op, a, c)?
                    }
                }))
            }
            _ => no(format!("operator {op:?} on {x:?} and {y:?}")),
        }
    }

    /// Component-wise matrix arithmetic, a float or int scalar splatting over the matrix.
    fn matrix_binary(&mut self, op: BinaryOp, x: Val, y: Val) -> Res<Val> {
        let b = &mut *self.b;
        let scalar = |b: &mut FunctionBuilder, v: &Val| match v {
            Val::Num(n) if n.n == 1 && n.s != Scalar::Bool => Some(convert(b, *n, Scalar::Float).v),
            _ => None,
        };
        let rows: Vec<(Value, Value, u8)> = match (&x, &y) {
            (Val::Mat(a), Val::Mat(c)) => {
                if a.len() != c.len() || a.iter().zip(c).any(|(p, q)| p.n != q.n) {
                    return no("matrices of different shapes");
                }
                a.iter().zip(c).map(|(p, q)| (p.v, q.v, p.n)).collect()
            }
            (Val::Mat(a), s) => {
                let Some(s) = scalar(b, s) else {
                    return no("matrix with a non-scalar");
                };
                a.iter()
                    .map(|r| {
                        let s = Num::scalar(Scalar::Float, s).widen(b, r.n);
                        (r.v, s.v, r.n)
                    })
                    .collect()
            }
            (s, Val::Mat(c)) => {
                let Some(s) = scalar(b, s) else {
                    return no("matrix with a non-scalar");
                };
                c.iter()
                    .map(|r| {
                        let s = Num::scalar(Scalar::Float, s).widen(b, r.n);
                        (s.v, r.v, r.n)
                    })
                    .collect()
            }
            _ => return no("matrix operator"),
        };
        let mut out = Vec::with_capacity(rows.len());
        for (p, q, n) in rows {
            let Some(v) = float_arith(b, op, p, q) else {
                return no(format!("operator {op:?} on matrices"));
            };
            out.push(Num {
                s: Scalar::Float,
                n,
                v,
            });
        }
        Ok(Val::Mat(out))
    }
}

/// The truth of a scalar-like value: its first component `!= 0` (an `i8` 0 or 1).
pub(crate) fn truth(b: &mut FunctionBuilder, v: &Val) -> Res<Value> {
    let Some(x) = v.num() else {
        return no(format!("condition of {v:?}"));
    };
    let first = Num::scalar(x.s, x.lane(b, 0));
    Ok(convert(b, first, Scalar::Bool).v)
}

/// An `i64` index from a value's first component (the interpreter's `index_of_value`: ints
/// as they are, floats truncated toward zero saturating, bools 0 or 1).
pub(crate) fn index_value(b: &mut FunctionBuilder, v: &Val) -> Res<Value> {
    let Some(x) = v.num() else {
        return no(format!("index of {v:?}"));
    };
    let c = x.lane(b, 0);
    Ok(match x.s {
        Scalar::Int => b.ins().sextend(types::I64, c),
        Scalar::Float => b.ins().fcvt_to_sint_sat(types::I64, c),
        Scalar::Bool => b.ins().uextend(types::I64, c),
    })
}
