//! Assignment targets: locals and output/reduce parameters, then member, swizzle (write mask)
//! and index steps. Inputs, gathers, iterators, constants and `const` locals are read-only.

use super::access::{index_value, indexable, swizzle};
use super::expr::check;
use super::scope::{FnCtx, Resolved};
use super::{Reported, R};
use crate::ast;
use crate::diagnostics::Diagnostic;
use crate::ir::{Access, ParamClass, Place, PlaceRoot, Type};

/// Checks `e` as an assignment target. `reads` is set for compound assignments and `++`,
/// which also read the target (so an `out` parameter is not allowed).
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
                let readonly = |what: &str, hint: String| {
                    Diagnostic::error(
                        format!(
                            "cannot assign to {what} `{name}`: {}",
                            readonly_reason(class)
                        ),
                        e.span,
                    )
                    .with_label(e.span, "assigned here")
                    .with_label(pspan, "declared here")
                    .with_hint(hint)
                };
                match class {
                    ParamClass::Out | ParamClass::Vout { .. } if reads => Err(ctx.error(
                        Diagnostic::error(
                            format!("cannot read `{name}`: outputs are write-only"),
                            e.span,
                        )
                        .with_label(e.span, "a compound assignment reads the old value")
                        .with_hint(format!(
                            "compute the value in a local variable, then assign it to `{name}`"
                        )),
                    )),
                    ParamClass::Out | ParamClass::Vout { .. } | ParamClass::Reduce => Ok(Place {
                        root: PlaceRoot::Param(i),
                        path: Vec::new(),
                        ty,
                    }),
                    ParamClass::Stream => Err(ctx.error(readonly(
                        "input stream",
                        format!(
                            "declare it `out {} {name}<>` to write it, or copy it to a local",
                            ctx.type_name(&ty)
                        ),
                    ))),
                    ParamClass::Gather { .. } => Err(ctx.error(readonly(
                        "gather array",
                        "copy the element to a local variable".into(),
                    ))),
                    ParamClass::Iter => {
                        Err(ctx.error(readonly("iterator", "copy it to a local variable".into())))
                    }
                    ParamClass::Constant => {
                        Err(ctx.error(readonly("parameter", "copy it to a local variable".into())))
                    }
                }
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
                    let sd = &ctx.g.module.structs[id.0 as usize];
                    match sd.members.iter().position(|x| x.name == m.name) {
                        Some(i) => {
                            place.ty = sd.members[i].ty.clone();
                            place.path.push(Access::Member(i as u32));
                            Ok(place)
                        }
                        None => {
                            let sname = sd.name.clone();
                            let hint = super::names::suggest(
                                &m.name,
                                sd.members.iter().map(|x| x.name.as_str()),
                            )
                            .map(|s| format!("did you mean `{s}`?"));
                            Err(ctx.error(
                                Diagnostic::error(
                                    format!("struct `{sname}` has no member `{}`", m.name),
                                    m.span,
                                )
                                .with_label(m.span, "unknown member")
                                .with_hint_opt(hint),
                            ))
                        }
                    }
                }
                Type::Scalar(s) | Type::Vector(s, _) => {
                    let s = *s;
                    let ty = place.ty.clone();
                    let comps = swizzle(ctx, &ty, m, true)?;
                    place.ty = Type::vector(s, comps.len() as u8);
                    place.path.push(Access::Swizzle(comps));
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

fn readonly_reason(class: ParamClass) -> &'static str {
    match class {
        ParamClass::Stream => "inputs are read-only",
        ParamClass::Gather { .. } => "gathers are read-only",
        ParamClass::Iter => "iterators are read-only",
        _ => "constant parameters are read-only",
    }
}
