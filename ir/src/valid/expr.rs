//! Expressions: indices in range, and every type the one its operands give (the module
//! conventions of `module.rs`, the catalogue of `builtin.rs`).

use super::{FnCheck, Invalid, Res};
use crate::builtin::Builtin;
use crate::module::{BinaryOp, Expr, ExprKind, ParamClass, Scalar, Type, UnaryOp};

/// How many float/int/bool components a scalar, vector or matrix type has.
fn components(ty: &Type) -> Option<u32> {
    match ty {
        Type::Scalar(_) => Some(1),
        Type::Vector(_, n) => Some(u32::from(*n)),
        Type::Matrix { rows, cols } => Some(u32::from(*rows) * u32::from(*cols)),
        _ => None,
    }
}

fn operands(what: impl Into<String>, types: &[&Type], span: crate::Span) -> (crate::Span, Invalid) {
    (
        span,
        Invalid::Operands {
            what: what.into(),
            operands: types.iter().map(|t| (*t).clone()).collect(),
        },
    )
}

impl FnCheck<'_> {
    pub(super) fn expr(&mut self, e: &Expr) -> Res {
        let span = e.span;
        match &e.kind {
            ExprKind::Float(_) => Self::same("float constant", &Type::FLOAT, &e.ty, span),
            ExprKind::Int(_) => Self::same("int constant", &Type::INT, &e.ty, span),
            ExprKind::Bool(_) => Self::same("bool constant", &Type::BOOL, &e.ty, span),
            ExprKind::Local(l) => {
                let ty = self.local_type(l.0, span)?;
                Self::same("local", ty, &e.ty, span)
            }
            ExprKind::Param(p) => {
                let (class, ty) = self.param_class(*p, span)?;
                if matches!(class, ParamClass::Gather { .. } | ParamClass::Out) {
                    return Err((
                        span,
                        Invalid::ParamUse {
                            param: *p,
                            class,
                            used: "read as a value",
                        },
                    ));
                }
                Self::same("parameter", ty, &e.ty, span)
            }
            ExprKind::IndexOf(p) => {
                let (class, _) = self.param_class(*p, span)?;
                if !matches!(
                    class,
                    ParamClass::Stream | ParamClass::Out | ParamClass::Iter
                ) {
                    return Err((
                        span,
                        Invalid::ParamUse {
                            param: *p,
                            class,
                            used: "the operand of `indexof`",
                        },
                    ));
                }
                Self::same("indexof", &Type::Vector(Scalar::Float, 4), &e.ty, span)
            }
            ExprKind::Unary(op, a) => {
                self.expr(a)?;
                let ok = match op {
                    UnaryOp::Neg => matches!(a.ty.scalar(), Some(Scalar::Float | Scalar::Int)),
                    UnaryOp::Not => a.ty.scalar() == Some(Scalar::Bool) && a.ty.width().is_some(),
                    UnaryOp::BitNot => a.ty.scalar() == Some(Scalar::Int) && a.ty.width().is_some(),
                };
                if !ok {
                    return Err(operands(format!("{op:?}"), &[&a.ty], span));
                }
                Self::same("unary operation", &a.ty, &e.ty, span)
            }
            ExprKind::Binary(op, a, b) => {
                self.expr(a)?;
                self.expr(b)?;
                let ty = binary_type(*op, &a.ty, &b.ty)
                    .ok_or_else(|| operands(op.symbol(), &[&a.ty, &b.ty], span))?;
                Self::same("binary operation", &ty, &e.ty, span)
            }
            ExprKind::Select {
                cond,
                accept,
                reject,
            } => {
                self.expr(cond)?;
                self.expr(accept)?;
                self.expr(reject)?;
                let ok = accept.ty == reject.ty
                    && match cond.ty {
                        Type::Scalar(Scalar::Bool) => true,
                        Type::Vector(Scalar::Bool, n) => accept.ty.width() == Some(n),
                        _ => false,
                    };
                if !ok {
                    return Err(operands("?:", &[&cond.ty, &accept.ty, &reject.ty], span));
                }
                Self::same("selection", &accept.ty, &e.ty, span)
            }
            ExprKind::Convert(a) => {
                self.expr(a)?;
                match (a.ty.width(), e.ty.width()) {
                    (Some(n), Some(m)) if n == m => Ok(()),
                    _ => Err(operands(
                        format!("conversion to {:?}", e.ty),
                        &[&a.ty],
                        span,
                    )),
                }
            }
            ExprKind::Construct(parts) => {
                for p in parts {
                    self.expr(p)?;
                }
                self.construct(parts, e)
            }
            ExprKind::Swizzle(a, comps) => {
                self.expr(a)?;
                let (Some(s), Some(n)) = (a.ty.scalar(), a.ty.width()) else {
                    return Err(operands("swizzle", &[&a.ty], span));
                };
                if comps.is_empty() || comps.len() > 4 || comps.iter().any(|&c| c >= n) {
                    return Err((
                        span,
                        Invalid::Access(format!("swizzle {comps:?} of a {:?}", a.ty)),
                    ));
                }
                Self::same("swizzle", &Type::vector(s, comps.len() as u8), &e.ty, span)
            }
            ExprKind::Member(a, m) => {
                self.expr(a)?;
                let ty = self.member_type(&a.ty, *m, span)?;
                Self::same("member", &ty, &e.ty, span)
            }
            ExprKind::Index(a, i) => {
                self.expr(a)?;
                self.expr(i)?;
                Self::same("index", &Type::INT, &i.ty, i.span)?;
                let ty = element_type(&a.ty)
                    .ok_or_else(|| (span, Invalid::Access(format!("indexing a {:?}", a.ty))))?;
                Self::same("indexed element", &ty, &e.ty, span)
            }
            ExprKind::Gather { param, indices } => {
                let (class, ty) = self.param_class(*param, span)?;
                let ParamClass::Gather { rank } = class else {
                    return Err((
                        span,
                        Invalid::ParamUse {
                            param: *param,
                            class,
                            used: "gathered",
                        },
                    ));
                };
                let ty = ty.clone();
                for i in indices {
                    self.expr(i)?;
                }
                let number = |t: &Type| matches!(t.scalar(), Some(Scalar::Float | Scalar::Int));
                let ok = match indices.as_slice() {
                    [one] if one.ty.width().is_some_and(|w| w > 1) => number(&one.ty),
                    // Up to one scalar subscript per dimension, as the front end allows.
                    many => {
                        (1..=usize::from(rank)).contains(&many.len())
                            && many
                                .iter()
                                .all(|i| i.ty.width() == Some(1) && number(&i.ty))
                    }
                };
                if !ok {
                    let types: Vec<&Type> = indices.iter().map(|i| &i.ty).collect();
                    return Err(operands(format!("gather of rank {rank}"), &types, span));
                }
                Self::same("gather", &ty, &e.ty, span)
            }
            ExprKind::Builtin(b, args) => {
                for a in args {
                    self.expr(a)?;
                }
                self.builtin(*b, args, e)
            }
            ExprKind::Call(f, args) => {
                for a in args {
                    self.expr(a)?;
                }
                let callee = self.callable(*f, span)?;
                if callee.params.len() != args.len() {
                    return Err((
                        span,
                        Invalid::ArgumentCount {
                            expected: callee.params.len(),
                            found: args.len(),
                        },
                    ));
                }
                for (p, a) in callee.params.iter().zip(args) {
                    Self::same("argument", &p.ty, &a.ty, a.span)?;
                }
                Self::same("call", &callee.ret, &e.ty, span)
            }
        }
    }

    /// `Construct`: a vector or matrix from parts whose components fill it (or one scalar that
    /// splats), a struct from one part per member.
    fn construct(&self, parts: &[Expr], e: &Expr) -> Res {
        let types: Vec<&Type> = parts.iter().map(|p| &p.ty).collect();
        match &e.ty {
            Type::Struct(s) => {
                let def = self
                    .module
                    .structs
                    .get(s.0 as usize)
                    .ok_or((e.span, Invalid::NoStruct(s.0)))?;
                let fits = def.members.len() == parts.len()
                    && def.members.iter().zip(parts).all(|(m, p)| m.ty == p.ty);
                if fits {
                    Ok(())
                } else {
                    Err(operands(
                        format!("construction of `{}`", def.name),
                        &types,
                        e.span,
                    ))
                }
            }
            ty => {
                let want = components(ty);
                let have: Option<u32> = parts.iter().map(|p| components(&p.ty)).sum();
                let splat = parts.len() == 1 && components(&parts[0].ty) == Some(1);
                if want.is_some() && (splat || have == want) {
                    Ok(())
                } else {
                    Err(operands(format!("construction of {ty:?}"), &types, e.span))
                }
            }
        }
    }

    /// The type of member `m` of a value of type `ty`.
    pub(super) fn member_type(&self, ty: &Type, m: u32, span: crate::Span) -> Res<Type> {
        let Type::Struct(s) = ty else {
            return Err((span, Invalid::Access(format!("member {m} of a {ty:?}"))));
        };
        let def = self
            .module
            .structs
            .get(s.0 as usize)
            .ok_or((span, Invalid::NoStruct(s.0)))?;
        def.members
            .get(m as usize)
            .map(|x| x.ty.clone())
            .ok_or_else(|| {
                (
                    span,
                    Invalid::Access(format!("member {m} of `{}`", def.name)),
                )
            })
    }

    /// A built-in call: the catalogue's type for its arguments, and `frexp`/`modf` writing a
    /// local.
    fn builtin(&self, b: Builtin, args: &[Expr], e: &Expr) -> Res {
        let types: Vec<Type> = args.iter().map(|a| a.ty.clone()).collect();
        let expected = b.result_type(&types);
        if expected.as_ref() != Some(&e.ty) {
            return Err((
                e.span,
                Invalid::Builtin {
                    builtin: b.name(),
                    args: types,
                    expected,
                    found: e.ty.clone(),
                },
            ));
        }
        if matches!(b, Builtin::Frexp | Builtin::Modf)
            && !matches!(args[1].kind, ExprKind::Local(_))
        {
            return Err((args[1].span, Invalid::OutArgument(b.name())));
        }
        Ok(())
    }
}

/// The element an `Index` step reaches: an array's element, a vector's component, a
/// matrix's row.
pub(super) fn element_type(ty: &Type) -> Option<Type> {
    match ty {
        Type::Array(inner, _) => Some((**inner).clone()),
        Type::Vector(s, _) => Some(Type::Scalar(*s)),
        Type::Matrix { cols, .. } => Some(Type::Vector(Scalar::Float, *cols)),
        _ => None,
    }
}

/// The type of `a op b` by the module conventions: operands of one scalar kind, one side
/// possibly a scalar beside a vector (or matrix), the wider type out; comparisons give
/// `bool`s of that width; `&&`/`||` take `bool`s, the bit operators `int`s.
pub(super) fn binary_type(op: BinaryOp, a: &Type, b: &Type) -> Option<Type> {
    use BinaryOp::*;
    let s = a.scalar()?;
    if b.scalar()? != s {
        return None;
    }
    let wide = match (a, b) {
        _ if a == b => a.clone(),
        (Type::Scalar(_), _) => b.clone(),
        (_, Type::Scalar(_)) => a.clone(),
        _ => return None,
    };
    match op {
        Add | Sub | Mul | Div | Rem => matches!(s, Scalar::Float | Scalar::Int).then_some(wide),
        BitAnd | BitOr | BitXor | Shl | Shr => {
            (s == Scalar::Int && wide.width().is_some()).then_some(wide)
        }
        Eq | Ne | Lt | Le | Gt | Ge => wide.width().map(|n| Type::vector(Scalar::Bool, n)),
        And | Or => (s == Scalar::Bool && wide.width().is_some()).then_some(wide),
    }
}
