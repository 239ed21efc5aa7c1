//! Operators and conversions with the CPU backend's semantics (`cpu-backend/src/exec/ops.rs`).
//!
//! - A scalar operand next to a vector is splatted (Cg); matrix operators work row by row and
//!   are component-wise (Cg's algebraic product is `mul`).
//! - `!=` on floats is `!(x == y)`, true for a NaN as in C (naga's SPIR-V `!=` is ordered);
//!   `%` on floats is `x - y * trunc(x / y)`; int `/` and `%` by zero give 0, as on the CPU
//!   (WGSL leaves `x / 0` as `x`); shift counts are taken modulo 32.
//! - Conversions follow C: float → int truncates, anything → bool is `!= 0`; a scalar splats
//!   to a vector, a wider vector keeps its first components.

use brook_ir::{BinaryOp, Scalar as BScalar, Type as BType, UnaryOp};
use naga::{BinaryOperator as Op, Expression, Handle, MathFunction, UnaryOperator};

use super::builder::FnBuilder;
use super::types::value_type;
use super::values::{assemble, components, convert_kind};

/// A lowered value and its Brook type.
pub type Typed<'t> = (Handle<Expression>, &'t BType);

/// `a op b` with Cg semantics; `ty` is the result type.
pub fn binary(
    b: &mut FnBuilder,
    brook: &brook_ir::Module,
    op: BinaryOp,
    (x, xt): Typed,
    (y, yt): Typed,
    ty: &BType,
) -> Handle<Expression> {
    if let (BType::Matrix { rows, .. }, _) | (_, BType::Matrix { rows, .. }) = (xt, yt) {
        let rows = *rows;
        let row_ty = match (xt, yt) {
            (BType::Matrix { cols, .. }, _) | (_, BType::Matrix { cols, .. }) => {
                BType::Vector(BScalar::Float, *cols)
            }
            _ => unreachable!("one side is a matrix"),
        };
        let mut out = Vec::with_capacity(rows as usize);
        for r in 0..rows {
            let row = |b: &mut FnBuilder, v: Handle<Expression>, t: &BType| match t {
                BType::Matrix { .. } => b.index(v, u32::from(r)),
                _ => convert_kind(
                    b,
                    v,
                    t.scalar().unwrap_or(BScalar::Float),
                    BScalar::Float,
                    1,
                ),
            };
            let xr = row(b, x, xt);
            let yr = row(b, y, yt);
            let xrt = if matches!(xt, BType::Matrix { .. }) {
                &row_ty
            } else {
                &BType::FLOAT
            };
            let yrt = if matches!(yt, BType::Matrix { .. }) {
                &row_ty
            } else {
                &BType::FLOAT
            };
            out.push(binary(b, brook, op, (xr, xrt), (yr, yrt), &row_ty));
        }
        let t = value_type(b.types, brook, ty);
        return b.compose(t, out);
    }
    let n = xt.width().unwrap_or(1).max(yt.width().unwrap_or(1));
    let kind = xt.scalar().unwrap_or(BScalar::Float);
    let x = b.splat(x, if xt.width() == Some(1) { n } else { 1 });
    let y = b.splat(y, if yt.width() == Some(1) { n } else { 1 });
    use BinaryOp::*;
    match (op, kind) {
        (And | Or, _) | (_, BScalar::Bool) => bool_binary(b, op, x, y, n),
        (Rem, BScalar::Float) => fmod(b, x, y),
        // C's `!=` is true for a NaN; naga writes SPIR-V's ordered not-equal, false for one.
        (Ne, BScalar::Float) => {
            let equal = b.eq(x, y);
            b.un(UnaryOperator::LogicalNot, equal)
        }
        (Div | Rem, BScalar::Int) => int_div_rem(b, op, x, y, n),
        (Shl | Shr, _) => {
            let mask = b.i32(31);
            let mask = b.splat(mask, n);
            let count = b.bin(Op::And, y, mask);
            let count = b.convert(count, naga::ScalarKind::Uint);
            b.bin(
                if op == Shl {
                    Op::ShiftLeft
                } else {
                    Op::ShiftRight
                },
                x,
                count,
            )
        }
        _ => b.bin(arith(op), x, y),
    }
}

/// Int `/` and `%` as the CPU computes them (`wrapping_div`, `wrapping_rem`; by zero: 0),
/// from unsigned magnitudes so that no backend's rules for negative operands (GLSL leaves
/// them to the driver) or for division by zero apply.
fn int_div_rem(
    b: &mut FnBuilder,
    op: BinaryOp,
    x: Handle<Expression>,
    y: Handle<Expression>,
    n: u8,
) -> Handle<Expression> {
    let zero = b.i32(0);
    let zero = b.splat(zero, n);
    let magnitude = |b: &mut FnBuilder, v: Handle<Expression>| {
        let negative = b.lt(v, zero);
        let minus = b.un(naga::UnaryOperator::Negate, v);
        let m = b.select(negative, minus, v);
        (b.bitcast(m, naga::ScalarKind::Uint), negative)
    };
    let (ax, xneg) = magnitude(b, x);
    let (ay, yneg) = magnitude(b, y);
    let by_zero = b.eq(y, zero);
    let one = b.u32(1);
    let one = b.splat(one, n);
    let safe = b.select(by_zero, one, ay);
    let q = b.div(ax, safe);
    let q = b.bitcast(q, naga::ScalarKind::Sint);
    let differ = b.ne(xneg, yneg);
    let minus_q = b.un(naga::UnaryOperator::Negate, q);
    let q = b.select(differ, minus_q, q);
    let r = if op == BinaryOp::Div {
        q
    } else {
        let qy = b.mul(q, y);
        b.sub(x, qy)
    };
    b.select(by_zero, zero, r)
}

/// naga's operator for a Brook operator on numbers.
fn arith(op: BinaryOp) -> Op {
    use BinaryOp::*;
    match op {
        Add => Op::Add,
        Sub => Op::Subtract,
        Mul => Op::Multiply,
        Div => Op::Divide,
        Rem => Op::Modulo,
        Eq => Op::Equal,
        Ne => Op::NotEqual,
        Lt => Op::Less,
        Le => Op::LessEqual,
        Gt => Op::Greater,
        Ge => Op::GreaterEqual,
        And => Op::LogicalAnd,
        Or => Op::LogicalOr,
        BitAnd => Op::And,
        BitOr => Op::InclusiveOr,
        BitXor => Op::ExclusiveOr,
        Shl => Op::ShiftLeft,
        Shr => Op::ShiftRight,
    }
}

/// Operators on booleans (operands already bool, or made so for `&&` and `||`).
fn bool_binary(
    b: &mut FnBuilder,
    op: BinaryOp,
    x: Handle<Expression>,
    y: Handle<Expression>,
    n: u8,
) -> Handle<Expression> {
    use BinaryOp::*;
    match op {
        Eq => b.eq(x, y),
        Ne | BitXor => b.ne(x, y),
        And | BitAnd if n == 1 => b.and(x, y),
        Or | BitOr if n == 1 => b.or(x, y),
        And | BitAnd => b.bin(Op::And, x, y),
        _ => b.bin(Op::InclusiveOr, x, y),
    }
}

/// Cg's `fmod` as GPUs and the CPU backend compute it: `x - y * trunc(x / y)`.
pub fn fmod(b: &mut FnBuilder, x: Handle<Expression>, y: Handle<Expression>) -> Handle<Expression> {
    let q = b.div(x, y);
    let t = b.math(MathFunction::Trunc, &[q]);
    let p = b.mul(y, t);
    b.sub(x, p)
}

/// A unary operator with the CPU's semantics (`!` of a number is `== 0`).
pub fn unary(
    b: &mut FnBuilder,
    op: UnaryOp,
    x: Handle<Expression>,
    xt: &BType,
) -> Handle<Expression> {
    let n = xt.width().unwrap_or(1);
    match (op, xt.scalar()) {
        (UnaryOp::Neg, _) => b.un(UnaryOperator::Negate, x),
        (UnaryOp::BitNot, _) => b.un(UnaryOperator::BitwiseNot, x),
        (UnaryOp::Not, Some(BScalar::Bool)) => b.un(UnaryOperator::LogicalNot, x),
        (UnaryOp::Not, Some(k)) => {
            let zero = super::values::zero_scalar(b, k);
            let zero = b.splat(zero, n);
            b.eq(x, zero)
        }
        (UnaryOp::Not, None) => b.un(UnaryOperator::LogicalNot, x),
    }
}

/// Converts `x` of type `from` to `to` (C rules; see the module documentation).
pub fn coerce(
    b: &mut FnBuilder,
    brook: &brook_ir::Module,
    x: Handle<Expression>,
    from: &BType,
    to: &BType,
) -> Handle<Expression> {
    if from == to {
        return x;
    }
    match (from, to) {
        (BType::Scalar(_) | BType::Vector(..), BType::Scalar(t) | BType::Vector(t, _)) => {
            let (fw, tw) = (from.width().unwrap_or(1), to.width().unwrap_or(1));
            let f = from.scalar().unwrap_or(BScalar::Float);
            if fw == tw {
                return convert_kind(b, x, f, *t, fw);
            }
            if fw == 1 {
                let c = convert_kind(b, x, f, *t, 1);
                return b.splat(c, tw);
            }
            let picked: Vec<u8> = (0..tw).collect();
            let narrowed = b.swizzle(x, &picked);
            convert_kind(b, narrowed, f, *t, tw)
        }
        (BType::Scalar(s), BType::Matrix { rows, cols }) => {
            let f = convert_kind(b, x, *s, BScalar::Float, 1);
            let row = b.splat(f, *cols);
            let t = value_type(b.types, brook, to);
            b.compose(t, vec![row; *rows as usize])
        }
        _ => {
            // Same-shaped aggregates (the checker leaves nothing else): rebuild from parts.
            let comps = components(b, brook, x, from);
            assemble(b, brook, to, &mut comps.into_iter()).unwrap_or(x)
        }
    }
}
