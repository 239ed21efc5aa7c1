//! Brook expressions as GLSL expressions.

use brook_ir::{
    Access, BinaryOp, Expr, ExprKind, MathMode, Place, PlaceRoot, Scalar, Type, UnaryOp,
};

use super::builtins::lower_builtin;
use super::{gather_function, index_global, FunctionLowering};
use crate::error::GenError;
use crate::math::MathFile;
use crate::names::glsl_name;
use crate::prelude::{Helper, COMPARISONS, GATHER_FLOAT_BOUND};
use crate::types::glsl_type;

const COMPONENTS: [char; 4] = ['x', 'y', 'z', 'w'];

/// A float literal GLSL reads back as the same f32 (always with a `.` or an exponent).
pub fn float_literal(v: f32) -> String {
    if v.is_nan() {
        "(0.0 / 0.0)".into()
    } else if v.is_infinite() {
        if v > 0.0 {
            "(1.0 / 0.0)"
        } else {
            "(-1.0 / 0.0)"
        }
        .into()
    } else {
        let s = format!("{v:?}");
        if v < 0.0 {
            format!("({s})")
        } else {
            s
        }
    }
}

pub fn swizzle_text(components: &[u8]) -> String {
    components.iter().map(|c| COMPONENTS[*c as usize]).collect()
}

impl FunctionLowering<'_> {
    /// `e` as GLSL; a float constant hidden from the driver's compiler
    /// (`brook_ir::exact`), in the accurate mode.
    pub(super) fn expr(&mut self, e: &Expr) -> Result<String, GenError> {
        let text = self.expr_value(e)?;
        Ok(
            if self.math == MathMode::Accurate && brook_ir::exact::hidden_constant(e) {
                self.hidden(&text)
            } else {
                text
            },
        )
    }

    /// Whether a `?:` is written as GLSL's `mix` with a boolean: Mesa evaluates `?:` into a
    /// temporary of its own under an `if`, whose condition `precise` does not reach
    /// (`((x - x) <= (x - x)) ? …` took the accepting side for an infinite `x`), and `mix`
    /// keeps the condition in the `precise` assignment. For float results whose sides call
    /// no function (`mix` computes both), with a condition that computes with floats, in
    /// the accurate mode.
    fn select_as_mix(&self, cond: &Expr, accept: &Expr, reject: &Expr, ty: &Type) -> bool {
        let float = matches!(
            ty,
            Type::Scalar(Scalar::Float) | Type::Vector(Scalar::Float, _)
        );
        let mut calls = false;
        for side in [accept, reject] {
            brook_ir::walk::expr(side, &mut |e| {
                calls |= matches!(e.kind, ExprKind::Call(..));
            });
        }
        float && !calls && self.precise_condition(cond)
    }

    /// `value`, a float constant, as the same bits the compiler cannot know: exclusive-or
    /// the `brook_zero` uniform, which it cannot see is zero (`brook_ir::exact` says why).
    pub(super) fn hidden(&mut self, value: &str) -> String {
        self.prelude.require(Helper::Zero);
        format!("uintBitsToFloat(floatBitsToUint({value}) ^ uint(brook_zero))")
    }

    fn expr_value(&mut self, e: &Expr) -> Result<String, GenError> {
        Ok(match &e.kind {
            ExprKind::Float(v) => float_literal(*v),
            ExprKind::Int(v) if *v < 0 => format!("({v})"),
            ExprKind::Int(v) => v.to_string(),
            ExprKind::Bool(v) => v.to_string(),
            ExprKind::Local(id) => self.local_names[id.0 as usize].clone(),
            ExprKind::Param(i) => glsl_name(&self.func.params[*i as usize].name),
            ExprKind::Unary(op, x) => self.unary(*op, x)?,
            ExprKind::Binary(op, l, r) => self.binary(*op, l, r, &e.ty)?,
            ExprKind::Select {
                cond,
                accept,
                reject,
            } => {
                let (c, a, b) = (self.expr(cond)?, self.expr(accept)?, self.expr(reject)?);
                if self.select_as_mix(cond, accept, reject, &e.ty) {
                    // `mix` with a boolean selects without arithmetic, as `?:` does.
                    let c = match (&cond.ty, &e.ty) {
                        (Type::Scalar(_), Type::Vector(_, n)) => format!("bvec{n}({c})"),
                        _ => c,
                    };
                    format!("mix({b}, {a}, {c})")
                } else if matches!(cond.ty, Type::Vector(..)) {
                    self.prelude.require(Helper::Select);
                    format!("brook_select({c}, {a}, {b})")
                } else {
                    format!("({c} ? {a} : {b})")
                }
            }
            ExprKind::Convert(x) => format!("{}({})", glsl_type(self.module, &e.ty), self.expr(x)?),
            ExprKind::Construct(parts) => {
                let parts = parts
                    .iter()
                    .map(|p| self.expr(p))
                    .collect::<Result<Vec<_>, _>>()?;
                format!("{}({})", glsl_type(self.module, &e.ty), parts.join(", "))
            }
            ExprKind::Swizzle(base, comps) => self.swizzle(base, comps, &e.ty)?,
            ExprKind::Member(base, m) => {
                format!("{}.{}", self.expr(base)?, self.member_name(&base.ty, *m))
            }
            ExprKind::Index(base, index) => format!("{}[{}]", self.expr(base)?, self.expr(index)?),
            ExprKind::Gather { param, indices } => self.gather(*param, indices)?,
            ExprKind::IndexOf(p) => format!(
                "vec4({})",
                index_global(&glsl_name(&self.func.params[*p as usize].name))
            ),
            ExprKind::Builtin(b, args) => {
                let lowered = args
                    .iter()
                    .map(|a| self.expr(a))
                    .collect::<Result<Vec<_>, _>>()?;
                let types: Vec<&Type> = args.iter().map(|a| &a.ty).collect();
                lower_builtin(*b, &lowered, &types, &e.ty, self.prelude, self.math)?
            }
            ExprKind::Call(f, args) => {
                let lowered = args
                    .iter()
                    .map(|a| self.expr(a))
                    .collect::<Result<Vec<_>, _>>()?;
                format!(
                    "{}({})",
                    glsl_name(&self.module.func(*f).name),
                    lowered.join(", ")
                )
            }
        })
    }

    fn unary(&mut self, op: UnaryOp, x: &Expr) -> Result<String, GenError> {
        let v = self.expr(x)?;
        Ok(match (op, &x.ty) {
            (UnaryOp::Neg, _) => format!("(-{v})"),
            (UnaryOp::Not, Type::Vector(..)) => format!("not({v})"),
            (UnaryOp::Not, _) => format!("(!{v})"),
            (UnaryOp::BitNot, _) => format!("(~{v})"),
        })
    }

    fn binary(&mut self, op: BinaryOp, l: &Expr, r: &Expr, ty: &Type) -> Result<String, GenError> {
        if let (BinaryOp::Div, ExprKind::Float(zero)) = (op, &r.kind) {
            if *zero == 0.0 {
                // IEEE's x / ±0 (±inf, NaN for 0 / 0): Mesa folds a division by a literal zero
                // into a tiny or zero value, but keeps a product with an infinity from its bits.
                let a = self.expr(l)?;
                self.prelude.require(Helper::Math(MathFile::Scale));
                let sign = if zero.is_sign_negative() { "-" } else { "" };
                return Ok(format!("({a} * {sign}brook_inf())"));
            }
        }
        let (a, b) = (self.expr(l)?, self.expr(r)?);
        if self.eager_logic(op, l, r) {
            let sym = if op == BinaryOp::And { "&" } else { "|" };
            return Ok(format!("bool(uint({a}) {sym} uint({b}))"));
        }
        Ok(binary_text(op, (&a, &l.ty), (&b, &r.ty), ty, self))
    }

    /// Whether a scalar `&&` or `||` is written without short-circuiting, both sides
    /// computed: Mesa turns a short-circuit whose right side needs statements of its own (a
    /// hidden constant's) into an `if` of its own, whose condition `precise` does not reach
    /// (`x - x == 0.0 && r < 1.0` held for an infinite `x`). Where either side computes with
    /// floats, in the accurate mode, and only where computing the right side when the left
    /// decides is harmless: it has no effects (`brook_ir::effects`) and indexes no array
    /// (`i < n && a[i] > 0.0` must not read past `a`, which GLSL leaves undefined).
    fn eager_logic(&self, op: BinaryOp, l: &Expr, r: &Expr) -> bool {
        let guarded = || {
            brook_ir::effects::has_effects(r)
                || brook_ir::walk::any_in(r, &mut |e| matches!(e.kind, ExprKind::Index(..)))
        };
        matches!(op, BinaryOp::And | BinaryOp::Or)
            && matches!(l.ty, Type::Scalar(_))
            && (self.precise_condition(l) || self.precise_condition(r))
            && !guarded()
    }

    fn swizzle(&mut self, base: &Expr, comps: &[u8], ty: &Type) -> Result<String, GenError> {
        let v = self.expr(base)?;
        Ok(match &base.ty {
            // GLSL 3.30 cannot swizzle a scalar: `x.xxx` is a splat.
            Type::Scalar(_) if comps.len() == 1 => v,
            Type::Scalar(_) => format!("{}({v})", glsl_type(self.module, ty)),
            _ => format!("{v}.{}", swizzle_text(comps)),
        })
    }

    fn gather(&mut self, param: u32, indices: &[Expr]) -> Result<String, GenError> {
        // Brook's vector index has `.x` as the last dimension; C-style subscripts `a[r][c]`
        // come first-dimension first, so they are reversed into the same vec4 or ivec4.
        let ordered: Vec<&Expr> = if indices.len() == 1 {
            vec![&indices[0]]
        } else {
            indices.iter().rev().collect()
        };
        // All-float subscripts reach the accessor as floats, which clamps them in float; any
        // int among them makes the index an ivec4, the floats clamped and converted first.
        let all_float = ordered.iter().all(|e| e.ty.scalar() == Some(Scalar::Float));
        let mut parts = Vec::with_capacity(4);
        for index in ordered {
            parts.push(if all_float {
                self.rounded(index)?
            } else {
                self.as_int_index(index)?
            });
        }
        let width: usize = indices
            .iter()
            .map(|i| i.ty.width().unwrap_or(1) as usize)
            .sum();
        let (vector, zero) = if all_float {
            ("vec4", "0.0")
        } else {
            ("ivec4", "0")
        };
        for _ in width..4 {
            parts.push(zero.into());
        }
        let name = glsl_name(&self.func.params[param as usize].name);
        Ok(format!(
            "{}({vector}({}))",
            gather_function(&name),
            parts.join(", ")
        ))
    }

    /// A float index expression rounded by Brook's rule, `floor(v + 0.25)`; as it is where it
    /// is proven integral (`brook_ir::integral`), since the rounding leaves integers, ±inf and
    /// NaN unchanged.
    fn rounded(&mut self, e: &Expr) -> Result<String, GenError> {
        let v = self.expr(e)?;
        Ok(if self.integral.expr(e) {
            v
        } else {
            format!("floor({v} + 0.25)")
        })
    }

    /// An index expression as integer components: a float one rounded, then clamped in float
    /// to [0, 2^30] (past every extent; NaN to 0) before the conversion, which is undefined past
    /// int's range; an int one as it is, so an int loop counter indexes without a conversion to
    /// float and back. The accessor clamps the result to the stream.
    fn as_int_index(&mut self, e: &Expr) -> Result<String, GenError> {
        Ok(match &e.ty {
            Type::Scalar(Scalar::Float) | Type::Vector(Scalar::Float, _) => {
                let v = self.rounded(e)?;
                self.prelude.require(Helper::GatherClamp);
                let t = glsl_type(self.module, &e.ty);
                format!("brook_gather_clamp({v}, {t}({GATHER_FLOAT_BOUND}))")
            }
            Type::Scalar(Scalar::Int) | Type::Vector(Scalar::Int, _) => self.expr(e)?,
            Type::Vector(_, n) => format!("ivec{n}({})", self.expr(e)?),
            _ => format!("int({})", self.expr(e)?),
        })
    }

    pub(super) fn member_name(&self, ty: &Type, member: u32) -> String {
        match ty {
            Type::Struct(id) => {
                glsl_name(&self.module.struct_def(*id).members[member as usize].name)
            }
            _ => format!("member{member}"),
        }
    }

    pub(super) fn place(&mut self, place: &Place) -> Result<String, GenError> {
        let (mut text, mut ty) = match place.root {
            PlaceRoot::Local(id) => (
                self.local_names[id.0 as usize].clone(),
                self.func.local(id).ty.clone(),
            ),
            PlaceRoot::Param(i) => {
                let p = &self.func.params[i as usize];
                (glsl_name(&p.name), p.ty.clone())
            }
        };
        for step in &place.path {
            match step {
                Access::Member(m) => {
                    text = format!("{text}.{}", self.member_name(&ty, *m));
                    ty = match &ty {
                        Type::Struct(id) => {
                            self.module.struct_def(*id).members[*m as usize].ty.clone()
                        }
                        other => other.clone(),
                    };
                }
                Access::Swizzle(comps) => {
                    text = format!("{text}.{}", swizzle_text(comps));
                    ty = Type::vector(ty.scalar().unwrap_or(Scalar::Float), comps.len() as u8);
                }
                Access::Index(index) => {
                    text = format!("{text}[{}]", self.expr(index)?);
                    ty = match &ty {
                        Type::Array(elem, _) => (**elem).clone(),
                        Type::Vector(s, _) => Type::Scalar(*s),
                        Type::Matrix { cols, .. } => Type::Vector(Scalar::Float, *cols),
                        other => other.clone(),
                    };
                }
            }
        }
        Ok(text)
    }
}

/// GLSL for `a op b` with Cg semantics where GLSL's differ (vector comparisons are
/// component-wise, `%` on floats is `fmod`, `*` on two matrices is component-wise).
pub(super) fn binary_text(
    op: BinaryOp,
    (a, at): (&str, &Type),
    (b, bt): (&str, &Type),
    ty: &Type,
    lowering: &mut FunctionLowering<'_>,
) -> String {
    use BinaryOp::*;
    let vector_width = at.width().max(bt.width()).filter(|w| *w > 1);
    let splat = |v: &str, t: &Type| match (t, vector_width) {
        (Type::Scalar(s), Some(n)) => {
            format!("{}({v})", glsl_type(lowering.module, &Type::Vector(*s, n)))
        }
        _ => v.to_string(),
    };
    // Float comparisons in the accurate mode go through `brook_lt` … (`Helper::PreciseCompare`).
    let precise = at.scalar() == Some(Scalar::Float)
        && bt.scalar() == Some(Scalar::Float)
        && lowering.math == MathMode::Accurate;
    let mut comparison = |sym: &str| {
        let (_, suffix, vector) = COMPARISONS
            .iter()
            .find(|(s, _, _)| *s == sym)
            .expect("every comparison is in the table");
        if precise {
            lowering.prelude.require(Helper::PreciseCompare);
            return format!("brook_{suffix}({}, {})", splat(a, at), splat(b, bt));
        }
        match vector_width {
            Some(_) => format!("{vector}({}, {})", splat(a, at), splat(b, bt)),
            None => format!("({a} {sym} {b})"),
        }
    };
    if let (And | Or, Some(n)) = (op, vector_width) {
        // Cg's component-wise `&&`, `||` on bool vectors (of one width: the front end
        // splats), through 0/1 integers; GLSL has them only on scalars.
        let sym = if op == And { "&" } else { "|" };
        return format!("bvec{n}(uvec{n}({a}) {sym} uvec{n}({b}))");
    }
    match op {
        Add => format!("({a} + {b})"),
        Sub => format!("({a} - {b})"),
        Mul if matches!((at, bt), (Type::Matrix { .. }, Type::Matrix { .. })) => {
            format!("matrixCompMult({a}, {b})")
        }
        Mul => format!("({a} * {b})"),
        Div | Rem if ty.scalar() == Some(Scalar::Int) => {
            lowering.prelude.require(Helper::IntDivision);
            let f = if op == Div {
                "brook_idiv"
            } else {
                "brook_imod"
            };
            format!("{f}({}, {})", splat(a, at), splat(b, bt))
        }
        Div => format!("({a} / {b})"),
        Rem if ty.scalar() == Some(Scalar::Float) => {
            lowering.prelude.require(Helper::Fmod);
            format!("brook_fmod({}, {})", splat(a, at), splat(b, bt))
        }
        Rem => format!("({a} % {b})"),
        Eq => comparison("=="),
        Ne => comparison("!="),
        Lt => comparison("<"),
        Le => comparison("<="),
        Gt => comparison(">"),
        Ge => comparison(">="),
        And => format!("({a} && {b})"),
        Or => format!("({a} || {b})"),
        BitAnd => format!("({a} & {b})"),
        BitOr => format!("({a} | {b})"),
        BitXor => format!("({a} ^ {b})"),
        Shl => format!("({a} << {b})"),
        Shr => format!("({a} >> {b})"),
    }
}
