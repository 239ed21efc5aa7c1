//! Unary and binary operators, component-wise, with Cg's scalar-to-vector splat.
//!
//! Float arithmetic is IEEE `f32` like the GPU; `%` on floats is `x - y*trunc(x/y)` (the
//! formula GPUs use for `fmod`, sign of `x`). Int arithmetic wraps on overflow and is
//! error-free: division or remainder by zero yields 0 (C leaves it undefined and GPUs return
//! garbage; a reference backend must not crash), and shift counts are taken modulo 32.

use brook_ir::{BinaryOp, UnaryOp};

use crate::error::CpuError;
use crate::value::{Mat, Value};

pub(crate) fn bad(reason: impl Into<String>) -> CpuError {
    CpuError::malformed("", reason)
}

/// The result width of a component-wise operation: equal widths, or one side a scalar.
fn width2(na: u8, nb: u8) -> Result<u8, CpuError> {
    if na == nb || nb == 1 {
        Ok(na)
    } else if na == 1 {
        Ok(nb)
    } else {
        Err(bad(format!(
            "component-wise operation on vectors of widths {na} and {nb}"
        )))
    }
}

/// Applies `f` to each component pair, splatting a scalar side.
pub(crate) fn zip<T: Copy, U: Copy + Default>(
    x: &[T; 4],
    na: u8,
    y: &[T; 4],
    nb: u8,
    f: impl Fn(T, T) -> U,
) -> Result<([U; 4], u8), CpuError> {
    let n = width2(na, nb)?;
    let mut o = [U::default(); 4];
    for (i, oi) in o.iter_mut().enumerate().take(n as usize) {
        let a = if na == 1 { x[0] } else { x[i] };
        let b = if nb == 1 { y[0] } else { y[i] };
        *oi = f(a, b);
    }
    Ok((o, n))
}

/// C's `fmod` as GPUs compute it: `x - y * trunc(x / y)`.
pub fn fmod(x: f32, y: f32) -> f32 {
    x - y * (x / y).trunc()
}

/// A unary operator (`-`, `!`, `~`) on a scalar, vector or matrix, component-wise.
pub fn unary(op: UnaryOp, v: &Value) -> Result<Value, CpuError> {
    Ok(match (op, v) {
        (UnaryOp::Neg, Value::Float(c, n)) => Value::Float(c.map(|x| -x), *n),
        (UnaryOp::Neg, Value::Int(c, n)) => Value::Int(c.map(i32::wrapping_neg), *n),
        (UnaryOp::Neg, Value::Matrix(m)) => Value::Matrix(Mat {
            m: m.m.map(|r| r.map(|x| -x)),
            ..*m
        }),
        (UnaryOp::Not, Value::Bool(c, n)) => Value::Bool(c.map(|b| !b), *n),
        (UnaryOp::Not, Value::Float(c, n)) => Value::Bool(c.map(|x| x == 0.0), *n),
        (UnaryOp::Not, Value::Int(c, n)) => Value::Bool(c.map(|i| i == 0), *n),
        (UnaryOp::BitNot, Value::Int(c, n)) => Value::Int(c.map(|i| !i), *n),
        _ => return Err(bad(format!("operator {op:?} on {}", describe(v)))),
    })
}

/// A binary operator, component-wise (a scalar operand splatted to the vector's width);
/// integer `/` and `%` by zero give 0 (see the module docs).
pub fn binary(op: BinaryOp, a: &Value, b: &Value) -> Result<Value, CpuError> {
    use BinaryOp::*;
    if matches!(op, And | Or) {
        return logical(op, a, b);
    }
    match (a, b) {
        (Value::Float(x, na), Value::Float(y, nb)) => float_binary(op, x, *na, y, *nb),
        (Value::Int(x, na), Value::Int(y, nb)) => int_binary(op, x, *na, y, *nb),
        (Value::Bool(x, na), Value::Bool(y, nb)) if !matches!(op, And | Or) => {
            bools_binary(op, x, *na, y, *nb)
        }
        (Value::Matrix(_), _) | (_, Value::Matrix(_)) => matrix_binary(op, a, b),
        _ => match (a.as_floats(), b.as_floats()) {
            // Mixed kinds should have been converted by the front end; promote to float as C
            // would rather than fail.
            (Some((x, na)), Some((y, nb))) => float_binary(op, &x, na, &y, nb),
            _ => Err(bad(format!(
                "operator {op:?} on {} and {}",
                describe(a),
                describe(b)
            ))),
        },
    }
}

fn logical(op: BinaryOp, a: &Value, b: &Value) -> Result<Value, CpuError> {
    let truth = |v: &Value| -> Result<([bool; 4], u8), CpuError> {
        let n = v.width();
        if n == 0 {
            return Err(bad(format!("logical operator on {}", describe(v))));
        }
        let mut o = [false; 4];
        for (i, oi) in o.iter_mut().enumerate().take(n as usize) {
            *oi = v.comp(i).is_some_and(|c| c.to_bool());
        }
        Ok((o, n))
    };
    let ((x, na), (y, nb)) = (truth(a)?, truth(b)?);
    bools_binary(op, &x, na, &y, nb)
}

/// Applies `f` to every lane: `out[i] = f(x[i], y[i])`.
#[inline(always)]
fn lanes<T: Copy, U>(x: &[T], y: &[T], out: &mut [U], f: impl Fn(T, T) -> U) {
    for ((o, &a), &b) in out.iter_mut().zip(x).zip(y) {
        *o = f(a, b);
    }
}

/// Float arithmetic over lanes, `out[i] = x[i] op y[i]`: the one definition of each float
/// operator, used by the per-element interpreter (up to 4 lanes, a vector) and by the batch
/// engine (a batch of elements). `false` when `op` is not float arithmetic.
pub fn float_arith(op: BinaryOp, x: &[f32], y: &[f32], out: &mut [f32]) -> bool {
    use BinaryOp::*;
    match op {
        Add => lanes(x, y, out, |p, q| p + q),
        Sub => lanes(x, y, out, |p, q| p - q),
        Mul => lanes(x, y, out, |p, q| p * q),
        Div => lanes(x, y, out, |p, q| p / q),
        Rem => lanes(x, y, out, fmod),
        _ => return false,
    }
    true
}

/// Comparisons over lanes of floats or ints (see [`float_arith`]).
pub fn compare<T: PartialOrd + Copy>(op: BinaryOp, x: &[T], y: &[T], out: &mut [bool]) -> bool {
    use BinaryOp::*;
    match op {
        Eq => lanes(x, y, out, |p, q| p == q),
        Ne => lanes(x, y, out, |p, q| p != q),
        Lt => lanes(x, y, out, |p, q| p < q),
        Le => lanes(x, y, out, |p, q| p <= q),
        Gt => lanes(x, y, out, |p, q| p > q),
        Ge => lanes(x, y, out, |p, q| p >= q),
        _ => return false,
    }
    true
}

/// Int arithmetic over lanes (see [`float_arith`] and the module documentation for the
/// wrapping and division-by-zero rules).
pub fn int_arith(op: BinaryOp, x: &[i32], y: &[i32], out: &mut [i32]) -> bool {
    use BinaryOp::*;
    match op {
        Add => lanes(x, y, out, i32::wrapping_add),
        Sub => lanes(x, y, out, i32::wrapping_sub),
        Mul => lanes(x, y, out, i32::wrapping_mul),
        Div => lanes(x, y, out, |p, q| if q == 0 { 0 } else { p.wrapping_div(q) }),
        Rem => lanes(x, y, out, |p, q| if q == 0 { 0 } else { p.wrapping_rem(q) }),
        BitAnd => lanes(x, y, out, |p, q| p & q),
        BitOr => lanes(x, y, out, |p, q| p | q),
        BitXor => lanes(x, y, out, |p, q| p ^ q),
        Shl => lanes(x, y, out, |p, q| p.wrapping_shl(q as u32)),
        Shr => lanes(x, y, out, |p, q| p.wrapping_shr(q as u32)),
        _ => return false,
    }
    true
}

/// Operators on bools over lanes: comparisons, bitwise and logical (`&&`, `||`).
pub fn bool_binary(op: BinaryOp, x: &[bool], y: &[bool], out: &mut [bool]) -> bool {
    use BinaryOp::*;
    match op {
        Eq => lanes(x, y, out, |p, q| p == q),
        Ne | BitXor => lanes(x, y, out, |p, q| p != q),
        BitAnd | And => lanes(x, y, out, |p, q| p & q),
        BitOr | Or => lanes(x, y, out, |p, q| p | q),
        _ => return false,
    }
    true
}

/// Splats a scalar side to the other's width (Cg), as two 4-lane arrays and their width.
fn splat2<T: Copy>(
    x: &[T; 4],
    na: u8,
    y: &[T; 4],
    nb: u8,
) -> Result<([T; 4], [T; 4], usize), CpuError> {
    let n = width2(na, nb)?;
    let s = |v: &[T; 4], w: u8| if w == 1 { [v[0]; 4] } else { *v };
    Ok((s(x, na), s(y, nb), n as usize))
}

fn float_binary(
    op: BinaryOp,
    x: &[f32; 4],
    na: u8,
    y: &[f32; 4],
    nb: u8,
) -> Result<Value, CpuError> {
    let (x, y, n) = splat2(x, na, y, nb)?;
    let (mut f, mut b) = ([0.0; 4], [false; 4]);
    if float_arith(op, &x[..n], &y[..n], &mut f[..n]) {
        Ok(Value::Float(f, n as u8))
    } else if compare(op, &x[..n], &y[..n], &mut b[..n]) {
        Ok(Value::Bool(b, n as u8))
    } else {
        Err(bad(format!("operator {op:?} on floats")))
    }
}

fn int_binary(op: BinaryOp, x: &[i32; 4], na: u8, y: &[i32; 4], nb: u8) -> Result<Value, CpuError> {
    let (x, y, n) = splat2(x, na, y, nb)?;
    let (mut i, mut b) = ([0; 4], [false; 4]);
    if int_arith(op, &x[..n], &y[..n], &mut i[..n]) {
        Ok(Value::Int(i, n as u8))
    } else if compare(op, &x[..n], &y[..n], &mut b[..n]) {
        Ok(Value::Bool(b, n as u8))
    } else {
        Err(bad(format!("operator {op:?} on ints")))
    }
}

fn bools_binary(
    op: BinaryOp,
    x: &[bool; 4],
    na: u8,
    y: &[bool; 4],
    nb: u8,
) -> Result<Value, CpuError> {
    let (x, y, n) = splat2(x, na, y, nb)?;
    let mut b = [false; 4];
    if bool_binary(op, &x[..n], &y[..n], &mut b[..n]) {
        Ok(Value::Bool(b, n as u8))
    } else {
        Err(bad(format!("operator {op:?} on bools")))
    }
}

/// Component-wise matrix arithmetic (Cg's `*` on matrices is component-wise; the algebraic
/// product is `mul`), with a scalar splatting over the matrix.
fn matrix_binary(op: BinaryOp, a: &Value, b: &Value) -> Result<Value, CpuError> {
    if !matches!(
        op,
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem
    ) {
        return Err(bad(format!("operator {op:?} on matrices")));
    }
    let f = |p: f32, q: f32| {
        let mut o = [0.0];
        float_arith(op, &[p], &[q], &mut o);
        o[0]
    };
    let scalar = |v: &Value| match v {
        Value::Float(c, 1) => Some(c[0]),
        Value::Int(c, 1) => Some(c[0] as f32),
        _ => None,
    };
    let mut out;
    match (a, b) {
        (Value::Matrix(x), Value::Matrix(y)) if x.rows == y.rows && x.cols == y.cols => {
            out = *x;
            for r in 0..4 {
                for c in 0..4 {
                    out.m[r][c] = f(x.m[r][c], y.m[r][c]);
                }
            }
        }
        (Value::Matrix(x), s) if scalar(s).is_some() => {
            let s = scalar(s).unwrap_or_default();
            out = *x;
            out.m = x.m.map(|r| r.map(|v| f(v, s)));
        }
        (s, Value::Matrix(y)) if scalar(s).is_some() => {
            let s = scalar(s).unwrap_or_default();
            out = *y;
            out.m = y.m.map(|r| r.map(|v| f(s, v)));
        }
        _ => {
            return Err(bad(format!(
                "operator {op:?} on {} and {}",
                describe(a),
                describe(b)
            )))
        }
    }
    Ok(Value::Matrix(out))
}

/// A short description of a value's type for error messages (`float3`, `int`, `float2x2`).
pub(crate) fn describe(v: &Value) -> String {
    let vec = |k: &str, n: u8| {
        if n == 1 {
            k.to_string()
        } else {
            format!("{k}{n}")
        }
    };
    match v {
        Value::Void => "void".into(),
        Value::Float(_, n) => vec("float", *n),
        Value::Int(_, n) => vec("int", *n),
        Value::Bool(_, n) => vec("bool", *n),
        Value::Matrix(m) => format!("float{}x{}", m.rows, m.cols),
        Value::Struct(_) => "a struct".into(),
        Value::Array(p) => format!("an array of {}", p.len()),
    }
}
