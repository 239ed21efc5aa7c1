//! Statements: declarations (with initialisers and initialiser lists), assignments and
//! `++`/`--` as statements, `push`, control flow, `return`, `discard`.

use super::construct::build;
use super::expr::{check, mk};
use super::items::{coerce_or_report, const_size, resolve_type};
use super::operators::{binary, to_bool};
use super::place::check_place;
use super::scope::{FnCtx, Resolved};
use super::{Reported, R};
use crate::ast::{self, BinOp, FnKind, UnOp};
use crate::diagnostics::Diagnostic;
use crate::ir::{
    self, Access, Block, ExprKind, ParamClass, Place, PlaceRoot, Scalar, Stmt, StmtKind, Type,
};
use crate::span::Span;

fn st(kind: StmtKind, span: Span) -> Stmt {
    Stmt { kind, span }
}

/// Checks a function body (its outermost block shares the parameters' scope).
pub fn check_body(ctx: &mut FnCtx<'_>, body: &[ast::Stmt]) -> R<Block> {
    let before = ctx.g.diags.len();
    let mut out = Vec::new();
    for s in body {
        stmt(ctx, s, &mut out);
    }
    if ctx.g.diags.len() > before {
        Err(Reported)
    } else {
        Ok(out)
    }
}

/// Checks statements in a new scope.
fn block(ctx: &mut FnCtx<'_>, body: &[ast::Stmt]) -> Block {
    ctx.push_scope();
    let mut out = Vec::new();
    for s in body {
        stmt(ctx, s, &mut out);
    }
    ctx.pop_scope();
    out
}

/// A sub-statement (`if` branch, loop body) as a block of its own.
fn sub(ctx: &mut FnCtx<'_>, s: &ast::Stmt) -> Block {
    match &s.kind {
        ast::StmtKind::Block(b) => block(ctx, b),
        _ => {
            ctx.push_scope();
            let mut out = Vec::new();
            stmt(ctx, s, &mut out);
            ctx.pop_scope();
            out
        }
    }
}

/// Checks one statement, appending its IR (zero or more statements) to `out`. Errors are
/// reported and the statement is dropped.
fn stmt(ctx: &mut FnCtx<'_>, s: &ast::Stmt, out: &mut Vec<Stmt>) {
    let span = s.span;
    match &s.kind {
        ast::StmtKind::Decl(d) => decl(ctx, d, out),
        ast::StmtKind::Exprs(list) => {
            for e in list {
                let _ = expr_stmt(ctx, e, out);
            }
        }
        ast::StmtKind::If {
            cond,
            then,
            otherwise,
        } => {
            let c = check(ctx, cond).and_then(|c| to_bool(ctx, c, "an `if` condition"));
            let t = sub(ctx, then);
            let o = otherwise.as_ref().map(|o| sub(ctx, o)).unwrap_or_default();
            if let Ok(c) = c {
                out.push(st(
                    StmtKind::If {
                        cond: c,
                        then: t,
                        otherwise: o,
                    },
                    span,
                ));
            }
        }
        ast::StmtKind::For {
            init,
            cond,
            step,
            body,
        } => {
            ctx.push_scope();
            let mut init_out = Vec::new();
            let mut ok = true;
            match init {
                ast::ForInit::None => {}
                ast::ForInit::Decl(d) => decl(ctx, d, &mut init_out),
                ast::ForInit::Exprs(list) => {
                    for e in list {
                        ok &= expr_stmt(ctx, e, &mut init_out).is_ok();
                    }
                }
            }
            let c = cond
                .as_ref()
                .map(|c| check(ctx, c).and_then(|c| to_bool(ctx, c, "a `for` condition")))
                .transpose();
            let mut step_out = Vec::new();
            for e in step {
                ok &= expr_stmt(ctx, e, &mut step_out).is_ok();
            }
            ctx.loop_depth += 1;
            let b = sub(ctx, body);
            ctx.loop_depth -= 1;
            ctx.pop_scope();
            if let (Ok(c), true) = (c, ok) {
                out.push(st(
                    StmtKind::Loop {
                        init: init_out,
                        cond: c,
                        step: step_out,
                        body: b,
                        test_first: true,
                    },
                    span,
                ));
            }
        }
        ast::StmtKind::While { cond, body } => {
            let c = check(ctx, cond).and_then(|c| to_bool(ctx, c, "a `while` condition"));
            ctx.loop_depth += 1;
            let b = sub(ctx, body);
            ctx.loop_depth -= 1;
            if let Ok(c) = c {
                out.push(st(
                    StmtKind::Loop {
                        init: Vec::new(),
                        cond: Some(c),
                        step: Vec::new(),
                        body: b,
                        test_first: true,
                    },
                    span,
                ));
            }
        }
        ast::StmtKind::DoWhile { body, cond } => {
            ctx.loop_depth += 1;
            let b = sub(ctx, body);
            ctx.loop_depth -= 1;
            let c = check(ctx, cond).and_then(|c| to_bool(ctx, c, "a `do … while` condition"));
            if let Ok(c) = c {
                out.push(st(
                    StmtKind::Loop {
                        init: Vec::new(),
                        cond: Some(c),
                        step: Vec::new(),
                        body: b,
                        test_first: false,
                    },
                    span,
                ));
            }
        }
        ast::StmtKind::Break | ast::StmtKind::Continue => {
            let word = if matches!(s.kind, ast::StmtKind::Break) {
                "break"
            } else {
                "continue"
            };
            if ctx.loop_depth == 0 {
                ctx.error(
                    Diagnostic::error(format!("`{word}` outside of a loop"), span)
                        .with_label(span, "not inside `for`, `while` or `do`"),
                );
            } else if word == "break" {
                out.push(st(StmtKind::Break, span));
            } else {
                out.push(st(StmtKind::Continue, span));
            }
        }
        ast::StmtKind::Return(value) => {
            let ret = ctx.ret.clone();
            match (value, &ret) {
                (None, Type::Void) => out.push(st(StmtKind::Return(None), span)),
                (Some(v), Type::Void) => {
                    let _ = check(ctx, v);
                    let what = match ctx.kind {
                        Some(FnKind::Kernel) => "a kernel",
                        Some(FnKind::Reduce) => "a reduce function",
                        _ => "a `void` function",
                    };
                    let hint = if ctx.kind == Some(FnKind::Helper) {
                        "declare the function's return type"
                    } else {
                        "assign the result to an `out` parameter instead"
                    };
                    ctx.error(
                        Diagnostic::error(format!("{what} cannot return a value"), v.span)
                            .with_label(v.span, "returned here")
                            .with_hint(hint),
                    );
                }
                (None, _) => {
                    let tn = ctx.type_name(&ret);
                    ctx.error(
                        Diagnostic::error(format!("missing return value of type `{tn}`"), span)
                            .with_label(span, "returns nothing"),
                    );
                }
                (Some(v), _) => {
                    let name = ctx.name.clone();
                    if let Ok(e) = check(ctx, v).and_then(|e| {
                        coerce_or_report(ctx, e, &ret, &format!("the return value of `{name}`"))
                    }) {
                        out.push(st(StmtKind::Return(Some(e)), span));
                    }
                }
            }
        }
        ast::StmtKind::Block(b) => {
            let inner = block(ctx, b);
            out.push(st(StmtKind::Block(inner), span));
        }
        ast::StmtKind::Discard => {
            if ctx.kind == Some(FnKind::Reduce) {
                ctx.error(
                    Diagnostic::error("`discard` is not allowed in a reduce function", span)
                        .with_label(span, "every element must be combined"),
                );
            } else {
                out.push(st(StmtKind::Discard, span));
            }
        }
        ast::StmtKind::Empty => {}
    }
}

fn decl(ctx: &mut FnCtx<'_>, d: &ast::Decl, out: &mut Vec<Stmt>) {
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

/// An expression used as a statement: assignments, `++`/`--`, `push`, calls, other values.
fn expr_stmt(ctx: &mut FnCtx<'_>, e: &ast::Expr, out: &mut Vec<Stmt>) -> R<()> {
    let span = e.span;
    match &e.kind {
        ast::ExprKind::Assign { op, target, value } => {
            // `a = b = c`: do `b = c` first, then `a = b`.
            let value_expr = if let ast::ExprKind::Assign { target: inner, .. } = &value.kind {
                expr_stmt(ctx, value, out)?;
                inner.as_ref()
            } else {
                value.as_ref()
            };
            let place = check_place(ctx, target, op.is_some());
            let v = check(ctx, value_expr);
            let (place, v) = (place?, v?);
            let v = match op {
                None => coerce_or_report(ctx, v, &place.ty, "the assignment")?,
                Some(op) => compound_value(ctx, *op, &place, v, target.span, span)?,
            };
            out.push(st(
                StmtKind::Assign {
                    target: place,
                    op: *op,
                    value: v,
                },
                span,
            ));
            Ok(())
        }
        ast::ExprKind::Unary(
            op @ (UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec),
            target,
        ) => {
            let place = check_place(ctx, target, true)?;
            let one = match place.ty.scalar() {
                Some(Scalar::Float) if place.ty.width().is_some() => {
                    mk(ExprKind::Float(1.0), Type::FLOAT, span)
                }
                Some(Scalar::Int) if place.ty.width().is_some() => {
                    mk(ExprKind::Int(1), Type::INT, span)
                }
                _ => {
                    let tn = ctx.type_name(&place.ty);
                    return Err(ctx.error(
                        Diagnostic::error(
                            format!("cannot increment or decrement a `{tn}`"),
                            target.span,
                        )
                        .with_label(target.span, format!("this is `{tn}`")),
                    ));
                }
            };
            let bop = if matches!(op, UnOp::PreInc | UnOp::PostInc) {
                ir::BinaryOp::Add
            } else {
                ir::BinaryOp::Sub
            };
            out.push(st(
                StmtKind::Assign {
                    target: place,
                    op: Some(bop),
                    value: one,
                },
                span,
            ));
            Ok(())
        }
        ast::ExprKind::Push(arg) => {
            let p = push_target(ctx, arg)?;
            let ty = ctx.params[p as usize].ty.clone();
            out.push(st(
                StmtKind::Push {
                    param: p,
                    value: mk(ExprKind::Param(p), ty, arg.span),
                },
                span,
            ));
            Ok(())
        }
        _ => {
            let v = check(ctx, e)?;
            out.push(st(StmtKind::Expr(v), span));
            Ok(())
        }
    }
}

fn push_target(ctx: &mut FnCtx<'_>, arg: &ast::Expr) -> R<u32> {
    if ctx.kind != Some(FnKind::Kernel) {
        return Err(ctx.error(
            Diagnostic::error("`push` is only allowed in kernels", arg.span)
                .with_label(arg.span, "pushed here"),
        ));
    }
    let not_vout = |ctx: &mut FnCtx<'_>, what: String| -> Reported {
        ctx.error(
            Diagnostic::error(
                format!("`push` needs a `vout` stream, but {what}"),
                arg.span,
            )
            .with_label(arg.span, "not a `vout` parameter")
            .with_hint("declare the output as `vout [N] T name<>` and push it by name"),
        )
    };
    let ast::ExprKind::Ident(name) = &arg.kind else {
        return Err(not_vout(ctx, "this is an expression".into()));
    };
    match ctx.lookup(name) {
        Resolved::Param(i) => match ctx.params[i as usize].class {
            ParamClass::Vout { .. } => Ok(i),
            c => {
                let w = match c {
                    ParamClass::Out => "an `out` stream",
                    ParamClass::Stream => "an input stream",
                    ParamClass::Gather { .. } => "a gather array",
                    ParamClass::Iter => "an iterator",
                    ParamClass::Reduce => "a `reduce` parameter",
                    _ => "a constant parameter",
                };
                Err(not_vout(ctx, format!("`{name}` is {w}")))
            }
        },
        Resolved::Local(_) | Resolved::Const(_) => {
            Err(not_vout(ctx, format!("`{name}` is a variable")))
        }
        Resolved::Poisoned => Err(Reported),
        Resolved::Unknown => Err(ctx.unknown_ident(name, arg.span)),
    }
}

/// The value of `place op= v`, converted so that `place op value` has the place's type.
fn compound_value(
    ctx: &mut FnCtx<'_>,
    op: BinOp,
    place: &Place,
    v: ir::Expr,
    target_span: Span,
    span: Span,
) -> R<ir::Expr> {
    // Type `place op v` with a stand-in for the place's current value.
    let current = mk(ExprKind::Int(0), place.ty.clone(), target_span);
    let vty = v.ty.clone();
    let combined = binary(ctx, op, current, v, span)?;
    if let ExprKind::Binary(_, a, b) = combined.kind {
        if a.ty == place.ty && combined.ty == place.ty {
            return Ok(*b);
        }
    }
    let (pt, vt) = (ctx.type_name(&place.ty), ctx.type_name(&vty));
    Err(ctx.error(
        Diagnostic::error(
            format!(
                "type mismatch: `{pt} {}= {vt}` does not give a `{pt}`",
                op.symbol()
            ),
            span,
        )
        .with_label(target_span, format!("this is `{pt}`")),
    ))
}

/// Does every path through `b` end in `return` (or `discard`)?
pub fn always_returns(b: &[Stmt]) -> bool {
    b.iter().any(|s| match &s.kind {
        StmtKind::Return(_) | StmtKind::Discard => true,
        StmtKind::Block(inner) => always_returns(inner),
        StmtKind::If {
            then, otherwise, ..
        } => always_returns(then) && always_returns(otherwise),
        StmtKind::Loop {
            cond: None, body, ..
        } => !contains_break(body),
        _ => false,
    })
}

fn contains_break(b: &[Stmt]) -> bool {
    b.iter().any(|s| match &s.kind {
        StmtKind::Break => true,
        StmtKind::Block(inner) => contains_break(inner),
        StmtKind::If {
            then, otherwise, ..
        } => contains_break(then) || contains_break(otherwise),
        _ => false,
    })
}
