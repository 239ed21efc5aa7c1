//! The formula of each composite built-in, in IR arithmetic, in the operation order the
//! numeric contract states (`accuracy.rs`) and every back end computed before this pass
//! existed, so results keep their bits.

use crate::builtin::Builtin;
use crate::module::{BinaryOp, Expr, ExprKind, Scalar, Type};
use crate::span::Span;

/// A built-in the back ends do not implement: this pass writes it as its formula.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Composite {
    Clamp,
    Degrees,
    Distance,
    Frac,
    Length,
    Lerp,
    Normalize,
    Radians,
    Rsqrt,
    Smoothstep,
    Step,
}

impl Composite {
    /// What `b` is to the back ends: a composite this pass rewrites, or (`None`) a primitive
    /// they implement. The match is exhaustive, so a new built-in must be placed here.
    pub(super) fn of(b: Builtin) -> Option<Composite> {
        use Builtin::*;
        Some(match b {
            Clamp => Composite::Clamp,
            Degrees => Composite::Degrees,
            Distance => Composite::Distance,
            Frac => Composite::Frac,
            Length => Composite::Length,
            Lerp => Composite::Lerp,
            Normalize => Composite::Normalize,
            Radians => Composite::Radians,
            Rsqrt => Composite::Rsqrt,
            Smoothstep => Composite::Smoothstep,
            Step => Composite::Step,
            Abs | Acos | All | Any | Asin | Atan | Atan2 | Ceil | Cos | Cosh | Cross | Dot
            | Exp | Exp2 | Floor | Fmod | Frexp | IsFinite | IsInf | IsNan | Ldexp | Log | Log2
            | Log10 | Max | Min | Modf | Mul | Pack4ubyte | Pow | Round | Saturate | Sign | Sin
            | Sinh | Sqrt | Tan | Tanh | Unpack4ubyte => return None,
        })
    }

    /// The arguments the formula reads more than once, which must be bound (to a helper's
    /// parameters) unless they are plain values; `None` when the formula binds a value of
    /// its own (`smoothstep`'s clamped ratio), so it always goes through a helper.
    pub(super) fn reused(self) -> Option<&'static [usize]> {
        use Composite::*;
        match self {
            Lerp | Frac | Length | Normalize => Some(&[0]),
            Clamp | Degrees | Distance | Radians | Rsqrt | Step => Some(&[]),
            Smoothstep => None,
        }
    }
}

/// IR nodes of one type and span.
pub(super) struct Build {
    pub span: Span,
}

impl Build {
    fn expr(&self, kind: ExprKind, ty: Type) -> Expr {
        Expr {
            kind,
            ty,
            span: self.span,
        }
    }

    pub(super) fn float(&self, v: f32) -> Expr {
        self.expr(ExprKind::Float(v), Type::FLOAT)
    }

    /// `a op b` of type `ty` (a scalar operand beside a vector splats, by the IR's rule).
    pub(super) fn binary(&self, op: BinaryOp, a: Expr, b: Expr, ty: &Type) -> Expr {
        self.expr(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty.clone())
    }

    pub(super) fn builtin(&self, b: Builtin, args: Vec<Expr>, ty: &Type) -> Expr {
        self.expr(ExprKind::Builtin(b, args), ty.clone())
    }

    /// The formula of composite `c` on `args`, giving `ty`. Arguments in
    /// [`Composite::reused`] appear more than once: the caller passes plain values for them.
    /// `smoothstep` takes one argument here, its clamped ratio `t`, which the caller has bound
    /// ([`Build::smoothstep_ratio`]).
    pub(super) fn formula(&self, c: Composite, mut args: Vec<Expr>, ty: &Type) -> Expr {
        use BinaryOp::*;
        use Builtin::{Dot, Floor, Max, Min, Sqrt};
        use Composite::*;
        let arg = |args: &mut Vec<Expr>, i: usize| args[i].clone();
        match c {
            // a + t * (b - a)
            Lerp => {
                let (a, b, t) = (arg(&mut args, 0), arg(&mut args, 1), arg(&mut args, 2));
                let d = self.binary(Sub, b, a.clone(), ty);
                let scaled = self.binary(Mul, t, d, ty);
                self.binary(Add, a, scaled, ty)
            }
            // min(max(x, lo), hi), in float or int
            Clamp => {
                let hi = args.pop().expect("arity");
                let low = self.builtin(Max, args, ty);
                self.builtin(Min, vec![low, hi], ty)
            }
            // x >= edge ? 1 : 0, as the conversion of the comparison
            Step => {
                let (edge, x) = (arg(&mut args, 0), arg(&mut args, 1));
                let width = ty.width().unwrap_or(1);
                let ge = self.binary(Ge, x, edge, &Type::vector(Scalar::Bool, width));
                self.expr(ExprKind::Convert(Box::new(ge)), ty.clone())
            }
            // 1 / sqrt(x)
            Rsqrt => {
                let root = self.builtin(Sqrt, args, ty);
                self.binary(Div, self.float(1.0), root, ty)
            }
            // x times 180/pi or pi/180, each rounded once to float
            Degrees => self.binary(Mul, arg(&mut args, 0), self.float(DEGREES_PER_RADIAN), ty),
            Radians => self.binary(Mul, arg(&mut args, 0), self.float(RADIANS_PER_DEGREE), ty),
            // x - floor(x)
            Frac => {
                let x = arg(&mut args, 0);
                let fl = self.builtin(Floor, vec![x.clone()], ty);
                self.binary(Sub, x, fl, ty)
            }
            // sqrt(dot(v, v))
            Length => {
                let v = arg(&mut args, 0);
                let d = self.builtin(Dot, vec![v.clone(), v], &Type::FLOAT);
                self.builtin(Sqrt, vec![d], &Type::FLOAT)
            }
            // v / length(v)
            Normalize => {
                let v = arg(&mut args, 0);
                let len = self.formula(Length, vec![v.clone()], &Type::FLOAT);
                self.binary(Div, v, len, ty)
            }
            // length(a - b): the difference is one argument of `length`, bound in its turn
            Distance => {
                let (a, b) = (arg(&mut args, 0), arg(&mut args, 1));
                let d = self.binary(Sub, a, b.clone(), &b.ty);
                self.builtin(Builtin::Length, vec![d], &Type::FLOAT)
            }
            // t * t * (3 - 2 t), t = saturate((x - e0) / (e1 - e0))
            Smoothstep => {
                let t = arg(&mut args, 0);
                let tt = self.binary(Mul, t.clone(), t.clone(), ty);
                let twice = self.binary(Mul, self.float(2.0), t, ty);
                let k = self.binary(Sub, self.float(3.0), twice, ty);
                self.binary(Mul, tt, k, ty)
            }
        }
    }

    /// `smoothstep`'s clamped ratio `saturate((x - e0) / (e1 - e0))`, the value its
    /// [`Build::formula`] reads three times.
    pub(super) fn smoothstep_ratio(&self, e0: Expr, e1: Expr, x: Expr, ty: &Type) -> Expr {
        use BinaryOp::*;
        let num = self.binary(Sub, x, e0.clone(), ty);
        let den = self.binary(Sub, e1, e0, ty);
        let q = self.binary(Div, num, den, ty);
        self.builtin(Builtin::Saturate, vec![q], ty)
    }
}

/// 180/pi rounded once to float (`180.0 / PI` computed in float is an ulp off).
pub const DEGREES_PER_RADIAN: f32 = (180.0 / std::f64::consts::PI) as f32;
/// pi/180 rounded once to float (see [`DEGREES_PER_RADIAN`]).
pub const RADIANS_PER_DEGREE: f32 = (std::f64::consts::PI / 180.0) as f32;
