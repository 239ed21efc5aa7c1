//! Declarations of locals: array sizes, initialisers (expressions, and `{…}` lists for
//! arrays, vectors, matrices and structs) and `const`.

use super::construct::build;
use super::expr::{check, mk};
use super::items::{coerce_or_report, const_size, resolve_type};
use super::scope::FnCtx;
use super::stmt::{flush, st};
use super::{Reported, R};
use crate::ast;
use brook_ir::Diagnostic;
use brook_ir::Span;
use brook_ir::{self as ir, Access, ExprKind, Place, PlaceRoot, Stmt, StmtKind, Type};

pub(super) fn decl(ctx: &mut FnCtx<'_>, d: &ast::Decl, out: &mut Vec<Stmt>) {
    let Ok(base) = resolve_type(ctx.g, &d.ty) else {
        for x in &d.declarators {
            ctx.poison(&x.name.name);
        }
        return;
    };
    if base == Type::Void {
        ctx.error(
            Diagnostic::error("a variable cannot have type `void`", d.ty.span)
                .with_label(d.ty.span, "not a value type"),
        );
        for x in &d.declarators {
            ctx.poison(&x.name.name);
        }
        return;
    }
    for x in &d.declarators {
        let name = &x.name;
        let result = (|| -> R<()> {
            let mut sizes = Vec::new();
            let mut bad = false;
            for dim in &x.dims {
                match const_size(ctx, dim, "array size") {
                    Ok(n) => sizes.push(n),
                    Err(_) => bad = true,
                }
            }
            if bad {
                return Err(Reported);
            }
            let mut ty = base.clone();
            for n in sizes.into_iter().rev() {
                ty = Type::Array(Box::new(ty), n);
            }
            if d.is_const && x.init.is_none() {
                return Err(ctx.error(
                    Diagnostic::error(
                        format!("const variable `{}` needs a value", name.name),
                        name.span,
                    )
                    .with_label(name.span, "no initialiser"),
                ));
            }
            match &x.init {
                None => {
                    let id = ctx.declare(name, ty, d.is_const)?;
                    out.push(st(
                        StmtKind::Decl {
                            local: id,
                            init: None,
                        },
                        x.span,
                    ));
                }
                Some(ast::Init::List(items, lspan)) if matches!(ty, Type::Array(..)) => {
                    // Arrays: declare, then assign each element.
                    let mut assigns = Vec::new();
                    array_list(ctx, &ty, items, *lspan, &mut Vec::new(), &mut assigns)?;
                    let id = ctx.declare(name, ty, d.is_const)?;
                    flush(ctx, out);
                    out.push(st(
                        StmtKind::Decl {
                            local: id,
                            init: None,
                        },
                        x.span,
                    ));
                    for (path, value, ety) in assigns {
                        let span = value.span;
                        out.push(st(
                            StmtKind::Assign {
                                target: Place {
                                    root: PlaceRoot::Local(id),
                                    path,
                                    ty: ety,
                                },
                                op: None,
                                value,
                            },
                            span,
                        ));
                    }
                }
                Some(init) => {
                    let v = check_init_value(ctx, init, &ty)?;
                    let id = ctx.declare(name, ty, d.is_const)?;
                    flush(ctx, out);
                    out.push(st(
                        StmtKind::Decl {
                            local: id,
                            init: Some(v),
                        },
                        x.span,
                    ));
                }
            }
            Ok(())
        })();
        if result.is_err() {
            ctx.poison(&name.name);
        }
    }
}

/// An array initialiser list, flattened into `(path, value, element type)` assignments.
fn array_list(
    ctx: &mut FnCtx<'_>,
    ty: &Type,
    items: &[ast::Init],
    span: Span,
    prefix: &mut Vec<Access>,
    out: &mut Vec<(Vec<Access>, ir::Expr, Type)>,
) -> R<()> {
    let Type::Array(elem, n) = ty else {
        return Err(Reported);
    };
    if items.len() > *n as usize {
        let tn = ctx.type_name(ty);
        return Err(ctx.error(
            Diagnostic::error(
                format!("too many initialisers for `{tn}`: {} given", items.len()),
                span,
            )
            .with_label(span, format!("at most {n}")),
        ));
    }
    for (i, item) in items.iter().enumerate() {
        let idx = mk(ExprKind::Int(i as i32), Type::INT, item.span());
        prefix.push(Access::Index(Box::new(idx)));
        let r = match (item, elem.as_ref()) {
            (ast::Init::List(inner, s), Type::Array(..)) => {
                array_list(ctx, elem, inner, *s, prefix, out)
            }
            _ => check_init_value(ctx, item, elem)
                .map(|v| out.push((prefix.clone(), v, (**elem).clone()))),
        };
        prefix.pop();
        r?;
    }
    Ok(())
}

/// Checks an initialiser against the declared type (an expression, or a `{…}` list for a
/// vector, matrix or struct).
pub fn check_init_value(ctx: &mut FnCtx<'_>, init: &ast::Init, ty: &Type) -> R<ir::Expr> {
    match init {
        ast::Init::Expr(e) => {
            let v = check(ctx, e)?;
            coerce_or_report(ctx, v, ty, "the initialiser")
        }
        ast::Init::List(items, span) => {
            if matches!(ty, Type::Array(..)) {
                let tn = ctx.type_name(ty);
                return Err(ctx.error(
                    Diagnostic::error(format!("cannot initialise `{tn}` here"), *span)
                        .with_hint("initialise arrays in a local declaration"),
                ));
            }
            let mut parts = Vec::new();
            if let Type::Struct(id) = ty {
                let members = ctx.g.module.structs[id.0 as usize].members.clone();
                for (i, item) in items.iter().enumerate() {
                    let mty = members.get(i).map_or(Type::FLOAT, |m| m.ty.clone());
                    match item {
                        ast::Init::List(..) => parts.push(check_init_value(ctx, item, &mty)?),
                        ast::Init::Expr(e) => parts.push(check(ctx, e)?),
                    }
                }
            } else {
                for item in items {
                    match item {
                        ast::Init::Expr(e) => parts.push(check(ctx, e)?),
                        ast::Init::List(_, s) => {
                            return Err(ctx.error(
                                Diagnostic::error("unexpected nested initialiser list", *s)
                                    .with_label(*s, "expected a value"),
                            ))
                        }
                    }
                }
            }
            let tn = ctx.type_name(ty);
            build(ctx, ty, parts, *span, &tn)
        }
    }
}
