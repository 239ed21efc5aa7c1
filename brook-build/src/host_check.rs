//! What can be found wrong in host code without running it (`brcc check`, and before any
//! build): calls of kernels and reductions with the wrong number of arguments, a stream where
//! the parameter is a constant or a constant where it is a stream, a stream declared with a
//! constant extent that is negative, and operations this runtime lacks. Each is
//! reported at its line. Only what is certain is reported: an argument that is an expression
//! is left to the run-time checks.

use std::collections::HashSet;
use std::ops::Range;

use brook_frontend::{Diagnostic, Span};
use brook_ir::{FunctionKind, ParamClass};

use crate::program::Program;
use crate::scan::{Kind, Token};

/// Brook host operations this runtime does not provide yet; calling one is a translation
/// error rather than a C++ compiler error about an undeclared name.
const NOT_YET: &[&str] = &["indexof"];

/// What host code written for the original may reach that this runtime refuses, with why:
/// the original CPU runtime's internals and kernels hand-written as ps20/fp30 assembly.
const REFUSED: &[(&str, &str)] = &[
    ("__BrtFloat1", CPU_INTERNALS),
    ("__BrtFloat2", CPU_INTERNALS),
    ("__BrtFloat3", CPU_INTERNALS),
    ("__BrtFloat4", CPU_INTERNALS),
    ("unsafeGetAt", CPU_INTERNALS),
    ("castToArg", CPU_INTERNALS),
    ("gpu_kernel_desc", SHADERS),
    ("cpu_kernel_desc", SHADERS),
];
const CPU_INTERNALS: &str = "it belongs to the original CPU runtime's internals, which this \
    runtime does not have; use float..float4 and streamRead/streamWrite";
const SHADERS: &str = "kernels hand-written as GPU assembly (ps20/fp30) are not supported; \
    write the kernel in Brook";
/// Every problem found in `program`'s host code; `not_callable` names the kernels host code
/// cannot call, with why.
pub fn check(program: &Program, not_callable: &[(&str, &str)]) -> Vec<Diagnostic> {
    let mut errors = extent_errors(program);
    let src = &program.source;
    let toks = &program.tokens;
    let streams: HashSet<&str> = program
        .stream_decls
        .iter()
        .flatten()
        .flat_map(|d| d.declarators.iter().map(|d| d.name.as_str()))
        .collect();
    for (_, item) in program.host_items() {
        for k in item.tokens.clone() {
            let t = &toks[k];
            if t.kind != Kind::Ident {
                continue;
            }
            let name = t.text(src);
            let span = span_of(t);
            if NOT_YET.contains(&name) {
                errors.push(
                    Diagnostic::error(
                        format!("`{name}` is not supported by this Brook runtime yet"),
                        span,
                    )
                    .with_label(span, "not available"),
                );
            } else if let Some((_, why)) = REFUSED.iter().find(|(n, _)| *n == name) {
                errors.push(
                    Diagnostic::error(format!("`{name}` is not supported: {why}"), span)
                        .with_label(span, "not available"),
                );
            } else if let Some((_, why)) = not_callable.iter().find(|(n, _)| *n == name) {
                errors.push(
                    Diagnostic::error(
                        format!("`{name}` cannot be called from host code: {why}"),
                        span,
                    )
                    .with_label(span, "called here"),
                );
            } else if is_call(toks, src, k, item.tokens.end) {
                errors.extend(call_errors(program, &streams, k, item.tokens.end));
            }
        }
    }
    errors
}

/// A constant extent that is negative: `float s<-1>;`. (A zero extent declares the
/// original's placeholder, `float3 s<0, 0>`, which a swap replaces before use.)
fn extent_errors(program: &Program) -> Vec<Diagnostic> {
    let src = &program.source;
    let mut errors = Vec::new();
    for decl in program.stream_decls.iter().flatten() {
        for d in &decl.declarators {
            for r in &d.extents {
                let text = src[r.clone()].trim();
                if let Ok(v) = text.parse::<i64>() {
                    if v < 0 {
                        let span = Span::new(r.start, r.end);
                        errors.push(
                            Diagnostic::error(
                                format!(
                                    "stream `{}` has extent {v}: extents must not be negative",
                                    d.name
                                ),
                                span,
                            )
                            .with_label(span, "a negative extent"),
                        );
                    }
                }
            }
        }
    }
    errors
}

/// Token `k` is a name called as a plain function: `name(` or `::name(` (the global name, as
/// the original's host code often wrote kernel calls), not `x.name(` or `a::name(`.
fn is_call(toks: &[Token], src: &str, k: usize, end: usize) -> bool {
    let member = k > 0
        && ([".", "->"].iter().any(|p| toks[k - 1].is(src, p))
            || (toks[k - 1].is(src, "::") && k > 1 && qualifies(&toks[k - 2], src)));
    !member && k + 1 < end && toks[k + 1].is(src, "(")
}

/// Token `t` before a `::` names a scope (`a::`, `T<int>::`) rather than ending an expression.
fn qualifies(t: &Token, src: &str) -> bool {
    t.kind == Kind::Ident || t.is(src, ">")
}

/// A call of a kernel or reduction at token `k` checked against its parameters.
fn call_errors(
    program: &Program,
    streams: &HashSet<&str>,
    k: usize,
    end: usize,
) -> Vec<Diagnostic> {
    let src = &program.source;
    let toks = &program.tokens;
    let name = toks[k].text(src);
    let Some(f) = program
        .kernels()
        .chain(&program.other_kernels)
        .find(|f| f.name == name)
    else {
        return Vec::new();
    };
    let Some(args) = arguments(toks, src, k + 1, end) else {
        return Vec::new();
    };
    let span = span_of(&toks[k]);
    let what = if f.kind == FunctionKind::Reduce {
        "reduction"
    } else {
        "kernel"
    };
    if args.len() != f.params.len() {
        return vec![Diagnostic::error(
            format!(
                "{what} `{name}` takes {} argument(s) but is given {}",
                f.params.len(),
                args.len()
            ),
            span,
        )
        .with_label(span, "called here")];
    }
    let mut errors = Vec::new();
    for (n, (arg, p)) in args.iter().zip(&f.params).enumerate() {
        let bytes = toks[arg.start].span.start..toks[arg.end - 1].span.end;
        let text = &src[bytes.clone()];
        let arg_span = Span::new(bytes.start, bytes.end);
        let is_stream_param = !matches!(p.class, ParamClass::Constant);
        // A reduction's result may be a host variable or a stream.
        let either = f.kind == FunctionKind::Reduce && p.class == ParamClass::Reduce;
        let names_stream = toks[arg.start].kind == Kind::Ident
            && streams.contains(toks[arg.start].text(src))
            && (arg.len() == 1 || toks[arg.start + 1].is(src, "."));
        let is_number = toks[arg.clone()]
            .iter()
            .all(|t| t.kind == Kind::Number || t.is(src, "-"))
            && toks[arg.clone()].iter().any(|t| t.kind == Kind::Number);
        let problem = if either {
            None
        } else if names_stream && !is_stream_param {
            Some("a stream, but the parameter is a constant")
        } else if is_number && is_stream_param {
            Some("a constant, but the parameter is a stream")
        } else {
            None
        };
        if let Some(problem) = problem {
            errors.push(
                Diagnostic::error(
                    format!(
                        "argument {} of {what} `{name}` (`{}`) is {problem}: `{text}`",
                        n + 1,
                        p.name
                    ),
                    arg_span,
                )
                .with_label(arg_span, "this argument"),
            );
        }
    }
    errors
}

/// The token ranges of the top-level arguments of the call whose `(` is token `open`.
fn arguments(toks: &[Token], src: &str, open: usize, end: usize) -> Option<Vec<Range<usize>>> {
    let mut args = Vec::new();
    let mut depth = 0usize;
    let mut start = open + 1;
    for (k, t) in toks.iter().enumerate().take(end).skip(open + 1) {
        if ["(", "[", "{"].iter().any(|p| t.is(src, p)) {
            depth += 1;
        } else if depth > 0 && ["]", "}"].iter().any(|p| t.is(src, p)) {
            depth -= 1;
        } else if t.is(src, ")") {
            if depth == 0 {
                if k > start {
                    args.push(start..k);
                } else if !args.is_empty() {
                    return None;
                }
                return Some(args);
            }
            depth -= 1;
        } else if depth == 0 && t.is(src, ",") {
            if k == start {
                return None;
            }
            args.push(start..k);
            start = k + 1;
        }
    }
    None
}

fn span_of(t: &Token) -> Span {
    Span::new(t.span.start, t.span.end)
}
