//! Calls of user functions, kernels and built-ins.
//!
//! A kernel called from a kernel takes each argument as its parameter is declared: a value
//! for a stream, iterator or constant parameter (the element, as the original's kernels
//! calling kernels did), a variable or output for an `out` parameter, and a gather parameter
//! of the caller for a gather. A kernel that has only value parameters and does not use
//! `indexof` is called like a helper function (`ExprKind::Call`); any other is inlined into
//! its caller (see `inline.rs`), so back ends never pass outputs or gathers to functions.

use super::expr::{a_class_word, check, check_all};
use super::inline::{inline_kernel, Binding};
use super::items::coerce_or_report;
use super::matrix_fns::{self, MatrixFn};
use super::place::check_place;
use super::scope::{FnCtx, Resolved};
use super::{builtins, names, types, Reported, R};
use crate::ast;
use brook_ir::Diagnostic;
use brook_ir::Span;
use brook_ir::{Builtin, Expr, ExprKind, FunctionId, FunctionKind, Param, ParamClass};

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

pub(super) fn call(
    ctx: &mut FnCtx<'_>,
    name: &ast::Ident,
    args: &[ast::Expr],
    span: Span,
) -> R<Expr> {
    let fname = &name.name;
    if ctx.kind.is_some() && *fname == ctx.name {
        let _ = check_all(ctx, args);
        return Err(ctx.error(
            Diagnostic::error(
                format!("recursive call to `{fname}` is not supported"),
                name.span,
            )
            .with_label(name.span, "calls the function being defined")
            .with_hint("GPU kernels cannot recurse; rewrite it with a loop"),
        ));
    }
    if let Some(&id) = ctx.g.functions.get(fname) {
        return user_call(ctx, id, name, args, span);
    }
    if fname == "instance" && args.is_empty() {
        return super::expr::instance(ctx, span);
    }
    let checked = check_all(ctx, args);
    if let Some(b) = Builtin::from_name(fname) {
        return builtins::check(ctx, b, checked.ok_or(Reported)?, span);
    }
    if let Some(f) = MatrixFn::from_name(fname) {
        return matrix_fns::check(ctx, f, checked.ok_or(Reported)?, span);
    }
    if checked.is_none() {
        return Err(Reported);
    }
    let mut candidates: Vec<&str> = Builtin::ALL.iter().map(|(_, n)| *n).collect();
    candidates.extend(MatrixFn::ALL.iter().map(|(_, n)| *n));
    let user: Vec<String> = ctx.g.functions.keys().cloned().collect();
    candidates.extend(user.iter().map(String::as_str));
    let mut hint = names::suggest(fname, candidates).map(|s| format!("did you mean `{s}`?"));
    if hint.is_none() && types::builtin_type(fname).is_none() {
        if let Some(t) = names::suggest_type(fname) {
            hint = Some(format!("did you mean the constructor `{t}(…)`?"));
        }
    }
    if hint.is_none() && ctx.g.types.contains_key(fname) {
        hint = Some(format!("`{fname}` is a type"));
    }
    Err(ctx.error(
        Diagnostic::error(format!("unknown function `{fname}`"), name.span)
            .with_label(
                name.span,
                "no function with this name is declared before here",
            )
            .with_hint_opt(hint),
    ))
}

/// A call of a function declared in the program.
fn user_call(
    ctx: &mut FnCtx<'_>,
    id: FunctionId,
    name: &ast::Ident,
    args: &[ast::Expr],
    span: Span,
) -> R<Expr> {
    let fname = &name.name;
    let callee = ctx.g.module.func(id);
    let (params, ret, kind) = (callee.params.clone(), callee.ret.clone(), callee.kind);
    if ctx.g.poisoned_fns.contains(fname) {
        let _ = check_all(ctx, args);
        return Err(Reported);
    }
    if args.len() != params.len() {
        let _ = check_all(ctx, args);
        let n = params.len();
        return Err(ctx.error(
            Diagnostic::error(
                format!(
                    "`{fname}` takes {n} argument{} but {} {} given",
                    plural(n),
                    args.len(),
                    if args.len() == 1 { "was" } else { "were" }
                ),
                span,
            )
            .with_label(span, format!("expected {n} argument{}", plural(n))),
        ));
    }
    if kind == FunctionKind::Reduce {
        let _ = check_all(ctx, args);
        return Err(ctx.error(
            Diagnostic::error(
                format!("cannot call reduce function `{fname}` from a function body"),
                span,
            )
            .with_label(name.span, "a reduction runs over a whole stream")
            .with_hint("call it from host code, or write the combining step as a helper function"),
        ));
    }
    let mut bindings = Vec::with_capacity(args.len());
    let mut failed = false;
    for (i, (a, p)) in args.iter().zip(&params).enumerate() {
        match argument(ctx, fname, i, a, p) {
            Ok(b) => bindings.push(b),
            Err(_) => failed = true,
        }
    }
    if failed {
        return Err(Reported);
    }
    let by_value = bindings.iter().all(|b| matches!(b, Binding::Value(_)));
    if kind == FunctionKind::Helper || (by_value && !ctx.g.uses_indexof.contains(&id)) {
        let args = bindings
            .into_iter()
            .filter_map(|b| match b {
                Binding::Value(e) => Some(e),
                _ => None,
            })
            .collect();
        return Ok(Expr {
            kind: ExprKind::Call(id, args),
            ty: ret,
            span,
        });
    }
    if ctx.kind.is_none() {
        return Err(ctx.error(
            Diagnostic::error(
                format!("kernel `{fname}` cannot be called in a constant's value"),
                span,
            )
            .with_label(span, "called here"),
        ));
    }
    inline_kernel(ctx, id, bindings, span)
}

/// Checks argument `i` of `fname` against its parameter `p`.
fn argument(ctx: &mut FnCtx<'_>, fname: &str, i: usize, a: &ast::Expr, p: &Param) -> R<Binding> {
    let what = format!("argument {} of `{fname}`", i + 1);
    match p.class {
        ParamClass::Stream | ParamClass::Constant | ParamClass::Iter => {
            let e = check(ctx, a)?;
            Ok(Binding::Value(coerce_or_report(ctx, e, &p.ty, &what)?))
        }
        ParamClass::Out => {
            if !matches!(
                a.kind,
                ast::ExprKind::Ident(_) | ast::ExprKind::Member(..) | ast::ExprKind::Index(..)
            ) {
                let _ = check(ctx, a);
                return Err(ctx.error(
                    Diagnostic::error(
                        format!("{what} must be a variable or an output: `{fname}` writes it"),
                        a.span,
                    )
                    .with_label(a.span, format!("passed for `out` parameter `{}`", p.name))
                    .with_hint("pass a local variable, or an `out` parameter of the caller"),
                ));
            }
            Ok(Binding::Out(check_place(ctx, a, false)?))
        }
        ParamClass::Gather { rank } => gather_argument(ctx, &what, a, p, rank).map(Binding::Gather),
        ParamClass::Vout { .. } | ParamClass::Reduce => {
            let _ = check(ctx, a);
            Err(ctx.error(
                Diagnostic::error(
                    format!(
                        "cannot call `{fname}` from a function body: its parameter `{}` is {}",
                        p.name,
                        a_class_word(p.class)
                    ),
                    a.span,
                )
                .with_label(a.span, "passed here")
                .with_hint("call it from host code"),
            ))
        }
    }
}

/// A gather argument: a gather parameter of the caller with the callee's rank and type.
fn gather_argument(ctx: &mut FnCtx<'_>, what: &str, a: &ast::Expr, p: &Param, rank: u8) -> R<u32> {
    let want = format!(
        "`{} {}{}`",
        ctx.type_name(&p.ty),
        p.name,
        "[]".repeat(usize::from(rank))
    );
    let not_gather = |ctx: &mut FnCtx<'_>, found: String| -> Reported {
        ctx.error(
            Diagnostic::error(
                format!("{what} must be a gather array like {want}, but {found}"),
                a.span,
            )
            .with_label(a.span, "not a gather parameter")
            .with_hint("pass a gather parameter of the calling kernel by name"),
        )
    };
    let ast::ExprKind::Ident(n) = &a.kind else {
        let _ = check(ctx, a);
        return Err(not_gather(ctx, "this is an expression".into()));
    };
    match ctx.lookup(n) {
        Resolved::Param(q) => {
            let arg = &ctx.params[q as usize];
            match arg.class {
                ParamClass::Gather { rank: r } if r == rank && arg.ty == p.ty => Ok(q),
                ParamClass::Gather { rank: r } => {
                    let found = format!(
                        "`{n}` is `{} {n}{}`",
                        ctx.type_name(&arg.ty),
                        "[]".repeat(usize::from(r))
                    );
                    Err(not_gather(ctx, found))
                }
                c => Err(not_gather(ctx, format!("`{n}` is {}", a_class_word(c)))),
            }
        }
        Resolved::Local(_) | Resolved::Const(_) => {
            Err(not_gather(ctx, format!("`{n}` is a variable")))
        }
        Resolved::Poisoned => Err(Reported),
        Resolved::Unknown => Err(ctx.unknown_ident(n, a.span)),
    }
}
