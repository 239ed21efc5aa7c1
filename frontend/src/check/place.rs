//! Assignment targets: locals and parameters, then member, swizzle (write mask) and index
//! steps, and the value a place holds. Gathers, global constants and `const` locals are
//! read-only; an assigned value parameter becomes a local copy and a read output a local
//! (see `shadow.rs`).

use super::access::{index_value, indexable, matrix_swizzle, struct_member, swizzle};
use super::expr::{check, mk};
use super::matrix_fns::int;
use super::scope::{FnCtx, Resolved};
use super::{Reported, R};
use crate::ast;
use brook_ir::Diagnostic;
use brook_ir::Span;
use brook_ir::{Access, Expr, ExprKind, ParamClass, Place, PlaceRoot, Scalar, Type};

/// Checks `e` as an assignment target. `reads` is set for compound assignments and `++`,
/// which also read the target.
pub fn check_place(ctx: &mut FnCtx<'_>, e: &ast::Expr, reads: bool) -> R<Place> {
    match &e.kind {
        ast::ExprKind::Ident(name) => match ctx.lookup(name) {
            Resolved::Local(id) => {
                if ctx.const_locals.contains(&id.0) {
                    let decl = ctx.local_spans[id.0 as usize];
                    return Err(ctx.error(
                        Diagnostic::error(
                            format!("cannot assign to const variable `{name}`"),
                            e.span,
                        )
                        .with_label(e.span, "assigned here")
                        .with_label(decl, "declared `const` here"),
                    ));
                }
                let ty = ctx.locals[id.0 as usize].ty.clone();
                Ok(Place {
                    root: PlaceRoot::Local(id),
                    path: Vec::new(),
                    ty,
                })
            }
            Resolved::Param(i) => {
                let p = &ctx.params[i as usize];
                let (class, ty, pspan) = (p.class, p.ty.clone(), p.span);
                match class {
                    ParamClass::Out | ParamClass::Vout { .. } => {
                        if reads {
                            ctx.read_outputs.insert(i);
                        }
                    }
                    ParamClass::Reduce => {}
                    // A value parameter assigned is a local copy, as in C and Cg.
                    ParamClass::Stream | ParamClass::Constant | ParamClass::Iter => {
                        ctx.assigned_values.insert(i);
                    }
                    ParamClass::Gather { .. } => {
                        return Err(ctx.error(
                            Diagnostic::error(
                                format!(
                                    "cannot assign to gather array `{name}`: gathers are read-only"
                                ),
                                e.span,
                            )
                            .with_label(e.span, "assigned here")
                            .with_label(pspan, "declared here")
                            .with_hint("copy the element to a local variable"),
                        ))
                    }
                }
                Ok(Place {
                    root: PlaceRoot::Param(i),
                    path: Vec::new(),
                    ty,
                })
            }
            Resolved::Const(_) => Err(ctx.error(
                Diagnostic::error(format!("cannot assign to constant `{name}`"), e.span)
                    .with_label(e.span, "a global `const`"),
            )),
            Resolved::Poisoned => Err(Reported),
            Resolved::Unknown => Err(ctx.unknown_ident(name, e.span)),
        },
        ast::ExprKind::Member(base, m) => {
            let mut place = check_place(ctx, base, reads)?;
            match &place.ty {
                Type::Struct(id) => {
                    let (i, ty) = struct_member(ctx, *id, m)?;
                    place.ty = ty;
                    place.path.push(Access::Member(i));
                    Ok(place)
                }
                Type::Scalar(s) | Type::Vector(s, _) => {
                    let s = *s;
                    let ty = place.ty.clone();
                    let comps = swizzle(ctx, &ty, m, true)?;
                    place.ty = Type::vector(s, comps.len() as u8);
                    place.path.push(Access::Swizzle(comps));
                    Ok(place)
                }
                Type::Matrix { rows, cols } => {
                    let elems = matrix_swizzle(ctx, *rows, *cols, m)?;
                    let row = elems[0].0;
                    let columns: Vec<u8> = elems.iter().map(|&(_, c)| c).collect();
                    let distinct = columns
                        .iter()
                        .enumerate()
                        .all(|(k, c)| !columns[..k].contains(c));
                    if elems.iter().any(|&(r, _)| r != row) || !distinct {
                        return Err(ctx.error(
                            Diagnostic::error(
                                format!("matrix write mask `.{}` must name distinct elements of one row", m.name),
                                m.span,
                            )
                            .with_label(m.span, "elements of several rows, or one twice")
                            .with_hint("assign the rows one by one (`m[i] = …`)"),
                        ));
                    }
                    place.path.push(Access::Index(Box::new(int(row, m.span))));
                    place.ty = Type::vector(Scalar::Float, columns.len() as u8);
                    place.path.push(match columns[..] {
                        [c] => Access::Index(Box::new(int(c, m.span))),
                        _ => Access::Swizzle(columns),
                    });
                    Ok(place)
                }
                other => {
                    let tn = ctx.type_name(other);
                    Err(ctx.error(
                        Diagnostic::error(format!("`{tn}` has no member `{}`", m.name), m.span)
                            .with_label(base.span, format!("this is `{tn}`")),
                    ))
                }
            }
        }
        ast::ExprKind::Index(base, i) => {
            let place = check_place(ctx, base, reads);
            let i = check(ctx, i);
            let (mut place, i) = (place?, i?);
            let Some((elem, n)) = indexable(&place.ty) else {
                let tn = ctx.type_name(&place.ty);
                return Err(ctx.error(
                    Diagnostic::error(format!("`{tn}` cannot be indexed"), base.span)
                        .with_label(base.span, format!("this is `{tn}`")),
                ));
            };
            let i = index_value(ctx, i, Some(n))?;
            place.ty = elem;
            place.path.push(Access::Index(Box::new(i)));
            Ok(place)
        }
        _ => Err(ctx.error(
            Diagnostic::error("cannot assign to this expression", e.span)
                .with_label(e.span, "not a variable or output")
                .with_hint("the left side of `=` must be a variable, an output, or a part of one"),
        )),
    }
}

/// The value `place` holds, as an expression (for `x op= v` written out in full, and for the
/// value of an assignment used as an expression).
pub fn place_value(ctx: &mut FnCtx<'_>, place: &Place, span: Span) -> Expr {
    let (mut e, mut ty) = match place.root {
        PlaceRoot::Local(id) => {
            let ty = ctx.locals[id.0 as usize].ty.clone();
            (ExprKind::Local(id), ty)
        }
        PlaceRoot::Param(i) => {
            let p = &ctx.params[i as usize];
            if matches!(p.class, ParamClass::Out | ParamClass::Vout { .. }) {
                ctx.read_outputs.insert(i);
            }
            (ExprKind::Param(i), p.ty.clone())
        }
    };
    for step in &place.path {
        let base = Box::new(mk(e, ty.clone(), span));
        (e, ty) = match step {
            Access::Member(m) => {
                let mty = match &ty {
                    Type::Struct(id) => ctx.g.module.structs[id.0 as usize].members[*m as usize]
                        .ty
                        .clone(),
                    other => other.clone(),
                };
                (ExprKind::Member(base, *m), mty)
            }
            Access::Swizzle(comps) => {
                let s = ty.scalar().unwrap_or(Scalar::Float);
                (
                    ExprKind::Swizzle(base, comps.clone()),
                    Type::vector(s, comps.len() as u8),
                )
            }
            Access::Index(i) => {
                let elem = indexable(&ty).map_or(ty.clone(), |(elem, _)| elem);
                (ExprKind::Index(base, i.clone()), elem)
            }
        };
    }
    mk(e, ty, span)
}
