//! Reading parts of values: struct members, swizzles, indexing of arrays, vectors and
//! matrices, and gathers.

use super::expr::{check, check_all, class_word, mk};
use super::scope::{FnCtx, Resolved};
use super::types::{self, fold_int};
use super::{matrix_fns, names, Reported, R};
use crate::ast;
use brook_ir::Diagnostic;
use brook_ir::Span;
use brook_ir::{Expr, ExprKind, ParamClass, Scalar, StructId, Type};

/// Parses a swizzle (`xyzw` or `rgba`, not mixed, 1..4 letters) into component indices.
pub fn parse_swizzle(name: &str) -> Option<Vec<u8>> {
    if name.is_empty() || name.len() > 4 {
        return None;
    }
    for set in ["xyzw", "rgba"] {
        let comps: Option<Vec<u8>> = name.chars().map(|c| set.find(c).map(|i| i as u8)).collect();
        if comps.is_some() {
            return comps;
        }
    }
    None
}

/// Member `m` of struct `id`: its position and type.
pub fn struct_member(ctx: &mut FnCtx<'_>, id: StructId, m: &ast::Ident) -> R<(u32, Type)> {
    let sd = &ctx.g.module.structs[id.0 as usize];
    if let Some(i) = sd.members.iter().position(|x| x.name == m.name) {
        return Ok((i as u32, sd.members[i].ty.clone()));
    }
    let sname = sd.name.clone();
    let hint = names::suggest(&m.name, sd.members.iter().map(|x| x.name.as_str()))
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

/// `.name` on a value: a struct member or a swizzle.
pub fn member(ctx: &mut FnCtx<'_>, b: Expr, m: &ast::Ident, span: Span) -> R<Expr> {
    match &b.ty {
        Type::Struct(id) => {
            let (i, ty) = struct_member(ctx, *id, m)?;
            Ok(mk(ExprKind::Member(Box::new(b), i), ty, span))
        }
        Type::Scalar(s) | Type::Vector(s, _) => {
            let s = *s;
            let comps = swizzle(ctx, &b.ty, m, false)?;
            let ty = Type::vector(s, comps.len() as u8);
            Ok(mk(ExprKind::Swizzle(Box::new(b), comps), ty, span))
        }
        Type::Matrix { rows, cols } => {
            let (rows, cols) = (*rows, *cols);
            let elems = matrix_swizzle(ctx, rows, cols, m)?;
            let b = matrix_fns::reusable(ctx, b, span);
            let mut parts: Vec<Expr> = elems
                .iter()
                .map(|&(i, j)| matrix_fns::element(&b, cols, i, j, span))
                .collect();
            Ok(match parts.len() {
                1 => parts.pop().ok_or(Reported)?,
                n => mk(
                    ExprKind::Construct(parts),
                    Type::vector(Scalar::Float, n as u8),
                    span,
                ),
            })
        }
        _ => {
            let tn = ctx.type_name(&b.ty);
            Err(ctx.error(
                Diagnostic::error(format!("`{tn}` has no member `{}`", m.name), m.span)
                    .with_label(b.span, format!("this is `{tn}`")),
            ))
        }
    }
}

/// Parses Cg's matrix swizzle: 1 to 4 elements, each `_mRC` (row and column from 0) or `_RC`
/// (from 1): `m._m00_m11`, `m._11_22`. The elements as (row, column) from 0.
pub fn parse_matrix_swizzle(name: &str) -> Option<Vec<(u8, u8)>> {
    let mut out = Vec::new();
    for part in name.strip_prefix('_')?.split('_') {
        let (digits, base) = match part.strip_prefix('m') {
            Some(d) => (d, b'0'),
            None => (part, b'1'),
        };
        let &[r, c] = digits.as_bytes() else {
            return None;
        };
        let (r, c) = (r.checked_sub(base)?, c.checked_sub(base)?);
        if r > 3 || c > 3 {
            return None;
        }
        out.push((r, c));
    }
    (1..=4).contains(&out.len()).then_some(out)
}

/// Validates a matrix swizzle `m` on a `floatRxC`: its elements, (row, column) from 0.
pub fn matrix_swizzle(ctx: &mut FnCtx<'_>, rows: u8, cols: u8, m: &ast::Ident) -> R<Vec<(u8, u8)>> {
    let tn = ctx.type_name(&Type::Matrix { rows, cols });
    let Some(elems) = parse_matrix_swizzle(&m.name) else {
        return Err(ctx.error(
            Diagnostic::error(format!("`{tn}` has no member `{}`", m.name), m.span)
                .with_label(m.span, "not a matrix swizzle")
                .with_hint("a matrix swizzle is 1 to 4 of `_mRC` (from 0) or `_RC` (from 1), e.g. `._m00_m11`; a row is `m[i]`"),
        ));
    };
    if let Some(&(r, c)) = elems.iter().find(|&&(r, c)| r >= rows || c >= cols) {
        return Err(ctx.error(
            Diagnostic::error(
                format!(
                    "`.{}` names row {r}, column {c} (from 0), outside `{tn}`",
                    m.name
                ),
                m.span,
            )
            .with_label(m.span, "element out of range"),
        ));
    }
    Ok(elems)
}

/// Validates swizzle `m` on a value of type `ty`; `write` also forbids repeated components.
pub fn swizzle(ctx: &mut FnCtx<'_>, ty: &Type, m: &ast::Ident, write: bool) -> R<Vec<u8>> {
    let tn = ctx.type_name(ty);
    let Some(comps) = parse_swizzle(&m.name) else {
        return Err(ctx.error(
            Diagnostic::error(format!("invalid swizzle `.{}` on `{tn}`", m.name), m.span)
                .with_label(m.span, "not a swizzle")
                .with_hint("a swizzle is 1 to 4 of `xyzw` (or of `rgba`)"),
        ));
    };
    let width = ty.width().unwrap_or(1);
    if let Some(&c) = comps.iter().find(|&&c| c >= width) {
        let letter = m
            .name
            .chars()
            .nth(comps.iter().position(|&x| x == c).unwrap_or(0))
            .unwrap_or('?');
        return Err(ctx.error(
            Diagnostic::error(
                format!("swizzle `.{}` reads component `{letter}`, beyond the {width} component{} of `{tn}`", m.name, if width == 1 { "" } else { "s" }),
                m.span,
            )
            .with_label(m.span, "component out of range"),
        ));
    }
    if write {
        for (i, c) in comps.iter().enumerate() {
            if comps[..i].contains(c) {
                return Err(ctx.error(
                    Diagnostic::error(
                        format!("write mask `.{}` names a component twice", m.name),
                        m.span,
                    )
                    .with_label(m.span, "repeated component")
                    .with_hint("each component can be written once per assignment"),
                ));
            }
        }
    }
    Ok(comps)
}

/// Checks an index (of a local array, vector or matrix) as an `int` scalar.
pub fn index_value(ctx: &mut FnCtx<'_>, i: Expr, extent: Option<u32>) -> R<Expr> {
    let i = match &i.ty {
        Type::Scalar(Scalar::Int) => i,
        Type::Scalar(Scalar::Float) => types::convert_to(i, Type::INT),
        _ => {
            let tn = ctx.type_name(&i.ty);
            return Err(ctx.error(
                Diagnostic::error(
                    format!("an index must be an `int` scalar, found `{tn}`"),
                    i.span,
                )
                .with_label(i.span, format!("this is `{tn}`")),
            ));
        }
    };
    if let (Some(n), Some(v)) = (extent, fold_int(&i)) {
        if v < 0 || v >= i64::from(n) {
            return Err(ctx.error(
                Diagnostic::error(
                    format!("index {v} is out of bounds (the extent is {n})"),
                    i.span,
                )
                .with_label(i.span, format!("must be in 0..{n}")),
            ));
        }
    }
    Ok(i)
}

/// What `[i]` applies to: its element type and extent, if indexable.
pub fn indexable(ty: &Type) -> Option<(Type, u32)> {
    match ty {
        Type::Array(e, n) => Some(((**e).clone(), *n)),
        Type::Vector(s, n) => Some((Type::Scalar(*s), u32::from(*n))),
        Type::Matrix { rows, cols } => Some((Type::Vector(Scalar::Float, *cols), u32::from(*rows))),
        _ => None,
    }
}

/// Walks `a[i][j]…` down to its root; returns the root and the subscripts in source order.
pub fn index_chain(e: &ast::Expr) -> (&ast::Expr, Vec<&ast::Expr>) {
    let mut subs = Vec::new();
    let mut cur = e;
    while let ast::ExprKind::Index(base, i) = &cur.kind {
        subs.push(i.as_ref());
        cur = base;
    }
    subs.reverse();
    (cur, subs)
}

pub(super) fn index(ctx: &mut FnCtx<'_>, e: &ast::Expr) -> R<Expr> {
    let (root, subs) = index_chain(e);
    if let ast::ExprKind::Ident(name) = &root.kind {
        if let Resolved::Param(p) = ctx.lookup(name) {
            let param = &ctx.params[p as usize];
            let (class, ty, pname) = (param.class, param.ty.clone(), param.name.clone());
            match class {
                ParamClass::Gather { rank } => {
                    return gather(ctx, p, rank, ty, &pname, &subs, e.span)
                }
                ParamClass::Stream
                | ParamClass::Iter
                | ParamClass::Out
                | ParamClass::Vout { .. }
                    if !matches!(ty, Type::Array(..) | Type::Vector(..) | Type::Matrix { .. }) =>
                {
                    return Err(ctx.error(
                        Diagnostic::error(
                            format!("{} `{pname}` cannot be indexed", class_word(class)),
                            root.span,
                        )
                        .with_label(root.span, "not a gather array")
                        .with_hint(format!(
                            "a stream parameter is the current element; declare it as `{} {pname}[]` to gather",
                            ctx.type_name(&ty)
                        )),
                    ));
                }
                _ => {}
            }
        }
    }
    let ast::ExprKind::Index(base, i) = &e.kind else {
        return Err(Reported);
    };
    let b = check(ctx, base);
    let i = check(ctx, i);
    let (b, i) = (b?, i?);
    let Some((elem, n)) = indexable(&b.ty) else {
        let tn = ctx.type_name(&b.ty);
        return Err(ctx.error(
            Diagnostic::error(format!("`{tn}` cannot be indexed"), b.span)
                .with_label(b.span, format!("this is `{tn}`")),
        ));
    };
    let i = index_value(ctx, i, Some(n))?;
    Ok(mk(ExprKind::Index(Box::new(b), Box::new(i)), elem, e.span))
}

fn gather(
    ctx: &mut FnCtx<'_>,
    p: u32,
    rank: u8,
    ty: Type,
    pname: &str,
    subs: &[&ast::Expr],
    span: Span,
) -> R<Expr> {
    if subs.len() > usize::from(rank) {
        return Err(ctx.error(
            Diagnostic::error(
                format!(
                    "too many subscripts for gather `{pname}`: it has {rank} dimension{} but {} subscripts are given",
                    if rank == 1 { "" } else { "s" },
                    subs.len()
                ),
                span,
            )
            .with_label(subs[usize::from(rank)].span, "extra subscript"),
        ));
    }
    let indices = check_all(ctx, subs.iter().copied()).ok_or(Reported)?;
    for i in &indices {
        let ok = match &i.ty {
            Type::Scalar(Scalar::Float | Scalar::Int) => true,
            Type::Vector(Scalar::Float | Scalar::Int, _) => subs.len() == 1,
            _ => false,
        };
        if !ok {
            let tn = ctx.type_name(&i.ty);
            let hint = if matches!(i.ty, Type::Vector(..)) {
                "a vector index must be the only subscript (`a[v]` with `.x` the column)"
            } else {
                "a gather index is a `float` or `int`, or one `float2`..`float4` vector"
            };
            return Err(ctx.error(
                Diagnostic::error(format!("invalid gather index of type `{tn}`"), i.span)
                    .with_label(i.span, format!("this is `{tn}`"))
                    .with_hint(hint),
            ));
        }
    }
    Ok(mk(ExprKind::Gather { param: p, indices }, ty, span))
}
