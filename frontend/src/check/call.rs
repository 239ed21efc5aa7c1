//! Calls of user functions and built-ins.

use super::expr::{check, class_word, mk};
use super::items::coerce_or_report;
use super::scope::FnCtx;
use super::{builtins, names, types, Reported, R};
use crate::ast;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, Builtin, Expr, ExprKind, ParamClass};
use crate::span::Span;

pub(super) fn call(
    ctx: &mut FnCtx<'_>,
    name: &ast::Ident,
    args: &[ast::Expr],
    span: Span,
) -> R<Expr> {
    let mut checked = Vec::new();
    let mut failed = false;
    for a in args {
        match check(ctx, a) {
            Ok(e) => checked.push(e),
            Err(_) => failed = true,
        }
    }
    let fname = &name.name;
    if ctx.kind.is_some() && *fname == ctx.name {
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
        if ctx.g.poisoned_fns.contains(fname) || failed {
            return Err(Reported);
        }
        let callee = &ctx.g.module.functions[id.0 as usize];
        let (params, ret, kind) = (callee.params.clone(), callee.ret.clone(), callee.kind);
        if kind != ir::FunctionKind::Helper {
            if let Some(p) = params
                .iter()
                .find(|p| !matches!(p.class, ParamClass::Stream | ParamClass::Constant))
            {
                let what = if kind == ir::FunctionKind::Reduce {
                    "reduce function"
                } else {
                    "kernel"
                };
                return Err(ctx.error(
                    Diagnostic::error(
                        format!("cannot call {what} `{fname}` here: its parameter `{}` is a {}", p.name, class_word(p.class)),
                        span,
                    )
                    .with_label(name.span, "called from a kernel body")
                    .with_hint("only kernels whose parameters are all input values can be called like functions"),
                ));
            }
        }
        if checked.len() != params.len() {
            return Err(ctx.error(
                Diagnostic::error(
                    format!(
                        "`{fname}` takes {} argument{} but {} {} given",
                        params.len(),
                        if params.len() == 1 { "" } else { "s" },
                        checked.len(),
                        if checked.len() == 1 { "was" } else { "were" }
                    ),
                    span,
                )
                .with_label(
                    span,
                    format!(
                        "expected {} argument{}",
                        params.len(),
                        if params.len() == 1 { "" } else { "s" }
                    ),
                ),
            ));
        }
        let mut out = Vec::new();
        let mut bad = false;
        for (i, (a, p)) in checked.into_iter().zip(&params).enumerate() {
            match coerce_or_report(ctx, a, &p.ty, &format!("argument {} of `{fname}`", i + 1)) {
                Ok(e) => out.push(e),
                Err(_) => bad = true,
            }
        }
        if bad {
            return Err(Reported);
        }
        return Ok(mk(ExprKind::Call(id, out), ret, span));
    }
    if let Some(b) = Builtin::from_name(fname) {
        if failed {
            return Err(Reported);
        }
        return builtins::check(ctx, b, checked, span);
    }
    if failed {
        return Err(Reported);
    }
    let mut candidates: Vec<&str> = Builtin::ALL.iter().map(|(_, n)| *n).collect();
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
