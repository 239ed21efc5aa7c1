//! File-scope declarations: structs, typedefs, global constants, functions and their
//! parameter lists.

use super::scope::FnCtx;
use super::shadow::shadow_params;
use super::types::{builtin_type, coerce, fold_int, matrix_name_hint};
use super::{decl, names, stmt, Globals, Reported, R};
use crate::ast::{self, FnKind, ParamQual, ParamShape};
use brook_ir::Diagnostic;
use brook_ir::Span;
use brook_ir::{self as ir, FunctionId, ParamClass, Scalar, StructId, Type};

/// The largest array size / vout count accepted.
const MAX_ARRAY: i64 = 1 << 16;

/// Resolves a written type.
pub fn resolve_type(g: &mut Globals, ts: &ast::TypeSpec) -> R<Type> {
    if ts.is_struct_ref {
        return match g.struct_tags.get(&ts.name) {
            Some(id) => Ok(Type::Struct(*id)),
            None => {
                let hint = names::suggest(&ts.name, g.struct_tags.keys().map(String::as_str))
                    .map(|s| format!("did you mean `struct {s}`?"));
                Err(g.error(
                    Diagnostic::error(format!("unknown struct `{}`", ts.name), ts.span)
                        .with_label(ts.span, "no struct with this name is declared before here")
                        .with_hint_opt(hint),
                ))
            }
        };
    }
    if ts.name == "void" {
        return Ok(Type::Void);
    }
    if let Some(t) = builtin_type(&ts.name) {
        return Ok(t);
    }
    if let Some(t) = g.types.get(&ts.name) {
        return Ok(t.clone());
    }
    if g.poisoned.contains(&ts.name) {
        return Err(Reported);
    }
    let mut candidates = names::builtin_type_names();
    candidates.extend(g.types.keys().cloned());
    let hint = matrix_name_hint(&ts.name).map(String::from).or_else(|| {
        names::suggest(&ts.name, candidates.iter().map(String::as_str))
            .map(|s| format!("did you mean `{s}`?"))
    });
    Err(g.error(
        Diagnostic::error(format!("unknown type `{}`", ts.name), ts.span)
            .with_label(ts.span, "not a type")
            .with_hint_opt(hint),
    ))
}

/// Evaluates a constant array size / count (`10`, `N` from `#define`, a global `const int`).
pub fn const_size(ctx: &mut FnCtx<'_>, e: &ast::Expr, what: &str) -> R<u32> {
    let checked = super::expr::check(ctx, e)?;
    match fold_int(&checked) {
        Some(v) if v > 0 && v <= MAX_ARRAY => Ok(v as u32),
        Some(v) if v <= 0 => Err(ctx.error(
            Diagnostic::error(format!("{what} must be positive, not {v}"), e.span)
                .with_label(e.span, "must be at least 1"),
        )),
        Some(v) => Err(ctx.error(
            Diagnostic::error(
                format!("{what} {v} is too large (at most {MAX_ARRAY})"),
                e.span,
            )
            .with_label(e.span, "too large"),
        )),
        None => Err(ctx.error(
            Diagnostic::error(format!("{what} must be a constant integer"), e.span)
                .with_label(e.span, "not a constant integer"),
        )),
    }
}

/// Wraps `elem` in array types for `dims` (`float m[3][4]` → `float[4]` of 3).
fn array_type(ctx: &mut FnCtx<'_>, elem: Type, dims: &[ast::Expr]) -> R<Type> {
    let mut sizes = Vec::new();
    for d in dims {
        sizes.push(const_size(ctx, d, "array size")?);
    }
    let mut ty = elem;
    for n in sizes.into_iter().rev() {
        ty = Type::Array(Box::new(ty), n);
    }
    Ok(ty)
}

pub fn struct_decl(g: &mut Globals, s: &ast::StructDecl) {
    let Some(name) = s.typedef_name.as_ref().or(s.tag.as_ref()) else {
        g.error(
            Diagnostic::error("a struct needs a name", s.span)
                .with_hint("write `struct Name { … };` or `typedef struct { … } Name;`"),
        );
        return;
    };
    let poison = |g: &mut Globals| {
        for n in [&s.tag, &s.typedef_name].into_iter().flatten() {
            g.poisoned.insert(n.name.clone());
        }
    };
    for n in [&s.tag, &s.typedef_name].into_iter().flatten() {
        if g.types.contains_key(&n.name) || builtin_type(&n.name).is_some() || n.name == "void" {
            // `typedef struct Foo {…} Foo;` names the same struct twice: fine.
            if s.tag.as_ref().map(|t| &t.name) == s.typedef_name.as_ref().map(|t| &t.name)
                && !g.types.contains_key(&n.name)
            {
                continue;
            }
            g.error(
                Diagnostic::error(format!("type `{}` is already defined", n.name), n.span)
                    .with_label(n.span, "defined again here"),
            );
            return;
        }
    }
    if s.fields.is_empty() {
        g.error(Diagnostic::error(
            format!("struct `{}` has no members", name.name),
            s.span,
        ));
        poison(g);
        return;
    }
    let mut members: Vec<ir::StructMember> = Vec::new();
    let mut ok = true;
    {
        let mut ctx = FnCtx::new(g, None, "", Type::Void);
        for f in &s.fields {
            if members.iter().any(|m| m.name == f.name.name) {
                ctx.error(
                    Diagnostic::error(
                        format!(
                            "struct `{}` has two members named `{}`",
                            name.name, f.name.name
                        ),
                        f.name.span,
                    )
                    .with_label(f.name.span, "second member with this name"),
                );
                ok = false;
                continue;
            }
            let Ok(ty) = resolve_type(ctx.g, &f.ty) else {
                ok = false;
                continue;
            };
            if ty == Type::Void {
                ctx.error(Diagnostic::error(
                    "a struct member cannot be `void`",
                    f.ty.span,
                ));
                ok = false;
                continue;
            }
            match array_type(&mut ctx, ty, &f.dims) {
                Ok(ty) => members.push(ir::StructMember {
                    name: f.name.name.clone(),
                    ty,
                }),
                Err(_) => ok = false,
            }
        }
    }
    if !ok {
        poison(g);
        return;
    }
    let id = StructId(g.module.structs.len() as u32);
    g.module.structs.push(ir::StructDef {
        name: name.name.clone(),
        members,
        span: s.span,
    });
    if let Some(tag) = &s.tag {
        g.struct_tags.insert(tag.name.clone(), id);
        g.types.insert(tag.name.clone(), Type::Struct(id));
    }
    if let Some(n) = &s.typedef_name {
        g.types.insert(n.name.clone(), Type::Struct(id));
    }
}

pub fn typedef(g: &mut Globals, ty: &ast::TypeSpec, name: &ast::Ident, _span: Span) {
    let Ok(t) = resolve_type(g, ty) else {
        g.poisoned.insert(name.name.clone());
        return;
    };
    if builtin_type(&name.name).is_some() || name.name == "void" {
        g.error(
            Diagnostic::error(
                format!("cannot redefine built-in type `{}`", name.name),
                name.span,
            )
            .with_label(name.span, "built-in type"),
        );
        return;
    }
    if let Some(old) = g.types.get(&name.name) {
        if *old != t {
            g.error(
                Diagnostic::error(
                    format!("type `{}` is already defined differently", name.name),
                    name.span,
                )
                .with_label(name.span, "defined again here"),
            );
        }
        return;
    }
    g.types.insert(name.name.clone(), t);
}

pub fn global(g: &mut Globals, d: &ast::Decl) {
    if !d.is_const {
        for decl in &d.declarators {
            g.poisoned.insert(decl.name.name.clone());
        }
        let first = &d.declarators[0].name;
        g.error(
            Diagnostic::error(
                format!("global variable `{}` must be `const`", first.name),
                first.span,
            )
            .with_label(first.span, "kernels cannot have global state")
            .with_hint(format!(
                "write `const {} {} = …;`, pass it as a kernel parameter, or use `#define`",
                d.ty.name, first.name
            )),
        );
        return;
    }
    let Ok(ty) = resolve_type(g, &d.ty) else {
        for decl in &d.declarators {
            g.poisoned.insert(decl.name.name.clone());
        }
        return;
    };
    for decl in &d.declarators {
        let name = &decl.name;
        let result = (|| -> R<ir::Expr> {
            if !decl.dims.is_empty() {
                return Err(g.error(
                    Diagnostic::error("global constant arrays are not supported", decl.span)
                        .with_hint("declare the array inside the kernel"),
                ));
            }
            if g.consts.contains_key(&name.name) || g.functions.contains_key(&name.name) {
                return Err(g.error(
                    Diagnostic::error(format!("`{}` is already defined", name.name), name.span)
                        .with_label(name.span, "defined again here"),
                ));
            }
            let Some(init) = &decl.init else {
                return Err(g.error(
                    Diagnostic::error(format!("constant `{}` needs a value", name.name), name.span)
                        .with_hint(format!("write `const {} {} = …;`", d.ty.name, name.name)),
                ));
            };
            let mut ctx = FnCtx::new(g, None, "", Type::Void);
            decl::check_init_value(&mut ctx, init, &ty)
        })();
        match result {
            Ok(e) => {
                g.consts.insert(name.name.clone(), e);
            }
            Err(_) => {
                g.poisoned.insert(name.name.clone());
            }
        }
    }
}

/// Checks one parameter declaration, giving its IR form.
fn param(ctx: &mut FnCtx<'_>, kind: FnKind, p: &ast::ParamDecl) -> R<ir::Param> {
    let ty = resolve_type(ctx.g, &p.ty)?;
    if matches!(ty, Type::Void | Type::Array(..)) {
        return Err(ctx.error(
            Diagnostic::error(
                format!(
                    "parameter `{}` cannot have type `{}`",
                    p.name.name,
                    ctx.type_name(&ty)
                ),
                p.ty.span,
            )
            .with_label(p.ty.span, "not a value type"),
        ));
    }
    let name = &p.name.name;
    let stream_only = |ctx: &mut FnCtx<'_>, q: &str| -> Reported {
        ctx.error(
            Diagnostic::error(format!("`{q}` parameter `{name}` must be a stream"), p.span)
                .with_label(p.name.span, "declared without `<>`")
                .with_hint(format!("write `{q} {} {name}<>`", p.ty.name)),
        )
    };
    let class = match (&p.qual, &p.shape) {
        (ParamQual::None | ParamQual::Const, ParamShape::Value) => ParamClass::Constant,
        (ParamQual::None | ParamQual::Const, ParamShape::Stream) => ParamClass::Stream,
        (ParamQual::None | ParamQual::Const, ParamShape::Array(dims)) => {
            if dims.len() > 4 {
                return Err(ctx.error(Diagnostic::error(
                    format!(
                        "gather `{name}` has {} dimensions; at most 4 are supported",
                        dims.len()
                    ),
                    p.span,
                )));
            }
            for d in dims.iter().flatten() {
                const_size(ctx, d, "gather extent")?;
            }
            ParamClass::Gather {
                rank: dims.len() as u8,
            }
        }
        (ParamQual::Out, ParamShape::Stream) => ParamClass::Out,
        (ParamQual::Out, _) => return Err(stream_only(ctx, "out")),
        (ParamQual::Reduce, ParamShape::Stream | ParamShape::Value) => ParamClass::Reduce,
        (ParamQual::Reduce, ParamShape::Array(_)) => {
            return Err(ctx.error(
                Diagnostic::error(
                    format!("`reduce` parameter `{name}` cannot be an array"),
                    p.span,
                )
                .with_hint(format!("write `reduce {} {name}<>`", p.ty.name)),
            ))
        }
        (ParamQual::Iter, ParamShape::Stream) => {
            if !matches!(
                ty,
                Type::Scalar(Scalar::Float) | Type::Vector(Scalar::Float, _)
            ) {
                return Err(ctx.error(Diagnostic::error(
                    format!(
                        "iterator `{name}` must be `float`..`float4`, not `{}`",
                        ctx.type_name(&ty)
                    ),
                    p.ty.span,
                )));
            }
            ParamClass::Iter
        }
        (ParamQual::Iter, _) => return Err(stream_only(ctx, "iter")),
        (ParamQual::Vout(count), ParamShape::Stream) => {
            let Some(count) = count else {
                return Err(ctx.error(
                    Diagnostic::error(
                        format!("`vout` parameter `{name}` needs a maximum count"),
                        p.qual_span,
                    )
                    .with_label(
                        p.qual_span,
                        "how many elements may one kernel instance push?",
                    )
                    .with_hint(format!("write `vout [4] {} {name}<>`", p.ty.name)),
                ));
            };
            ParamClass::Vout {
                max: const_size(ctx, count, "vout count")?,
            }
        }
        (ParamQual::Vout(_), _) => return Err(stream_only(ctx, "vout")),
    };
    // Which classes each kind of function may have.
    let allowed = match kind {
        FnKind::Kernel => !matches!(class, ParamClass::Reduce),
        // Besides its input and accumulator, a reduction may read constants and gathers: the
        // same for every combination, so the operator stays associative if its body is.
        FnKind::Reduce => matches!(
            class,
            ParamClass::Stream
                | ParamClass::Reduce
                | ParamClass::Constant
                | ParamClass::Gather { .. }
        ),
        FnKind::Helper => matches!(class, ParamClass::Constant),
    };
    if !allowed {
        let what = match class {
            ParamClass::Stream => "input stream",
            ParamClass::Out => "`out`",
            ParamClass::Gather { .. } => "gather",
            ParamClass::Constant => "constant",
            ParamClass::Iter => "`iter`",
            ParamClass::Reduce => "`reduce`",
            ParamClass::Vout { .. } => "`vout`",
        };
        let d = match kind {
            FnKind::Kernel => Diagnostic::error(
                format!("{what} parameters are only allowed in reduce functions"),
                p.span,
            )
            .with_hint("declare the function with `reduce void …`"),
            FnKind::Reduce => Diagnostic::error(
                format!("a reduce function cannot have {what} parameter `{name}`"),
                p.span,
            )
            .with_hint("a reduction takes one input stream, one `reduce` parameter, and constants or gathers"),
            FnKind::Helper => Diagnostic::error(
                format!("{what} parameters are only allowed in kernels"),
                p.span,
            )
            .with_hint("declare the function with `kernel void …`, or pass a plain value"),
        };
        return Err(ctx.error(d.with_label(p.span, "not allowed here")));
    }
    Ok(ir::Param {
        name: name.clone(),
        ty,
        declared: None,
        class,
        span: p.span,
    })
}

pub fn function(g: &mut Globals, f: &ast::FunctionDecl) {
    let name = &f.name;
    if g.functions.contains_key(&name.name) {
        let prev = g.functions[&name.name];
        let pspan = g.module.functions[prev.0 as usize].span;
        g.error(
            Diagnostic::error(
                format!("function `{}` is already defined", name.name),
                name.span,
            )
            .with_label(name.span, "defined again here")
            .with_label(
                Span::new(pspan.start as usize, pspan.start as usize),
                "first defined here",
            ),
        );
        return;
    }
    if g.consts.contains_key(&name.name) {
        g.error(
            Diagnostic::error(
                format!("`{}` is already defined as a constant", name.name),
                name.span,
            )
            .with_label(name.span, "defined again here"),
        );
        return;
    }
    let ret = resolve_type(g, &f.ret).ok();
    let kind = f.kind;
    let mut sig_ok = ret.is_some();
    let ret = ret.unwrap_or(Type::Void);
    let mut ctx = FnCtx::new(g, Some(kind), &name.name, ret.clone());
    if kind == FnKind::Reduce && ret != Type::Void {
        ctx.error(
            Diagnostic::error("a reduce function must return `void`", f.ret.span)
                .with_label(f.ret.span, "write `void` here")
                .with_hint("a reduction produces its result through its `reduce` parameter"),
        );
        sig_ok = false;
    }
    if matches!(ret, Type::Array(..)) {
        ctx.error(Diagnostic::error(
            "a function cannot return an array",
            f.ret.span,
        ));
        sig_ok = false;
    }
    for p in &f.params {
        if ctx.param_index(&p.name.name).is_some() {
            ctx.error(
                Diagnostic::error(
                    format!("two parameters are named `{}`", p.name.name),
                    p.name.span,
                )
                .with_label(p.name.span, "second parameter with this name"),
            );
            sig_ok = false;
            continue;
        }
        match param(&mut ctx, kind, p) {
            Ok(ip) => ctx.params.push(ip),
            Err(_) => {
                sig_ok = false;
                // Keep the name known so uses in the body don't cascade.
                ctx.params.push(ir::Param {
                    name: p.name.name.clone(),
                    ty: Type::FLOAT,
                    declared: None,
                    class: ParamClass::Constant,
                    span: p.span,
                });
                ctx.poison_param(p.name.name.clone());
            }
        }
    }
    if kind == FnKind::Reduce && sig_ok {
        let streams: Vec<&ir::Param> = ctx
            .params
            .iter()
            .filter(|p| p.class == ParamClass::Stream)
            .collect();
        let reduces: Vec<&ir::Param> = ctx
            .params
            .iter()
            .filter(|p| p.class == ParamClass::Reduce)
            .collect();
        if streams.len() != 1 || reduces.len() != 1 {
            let (ns, nr) = (streams.len(), reduces.len());
            ctx.error(
                Diagnostic::error(
                    format!(
                        "reduce function `{}` must have exactly one input stream and one `reduce` parameter (it has {ns} and {nr})",
                        name.name
                    ),
                    f.sig_span,
                )
                .with_hint(format!("write `reduce void {}(float a<>, reduce float r<>)`", name.name)),
            );
            sig_ok = false;
        } else if streams[0].ty != reduces[0].ty {
            let (a, b) = (streams[0].ty.clone(), reduces[0].ty.clone());
            let rspan = reduces[0].span;
            let msg = format!(
                "the input and the `reduce` parameter of `{}` must have the same type (`{}` vs `{}`)",
                name.name,
                ctx.type_name(&a),
                ctx.type_name(&b)
            );
            ctx.error(Diagnostic::error(msg, rspan).with_label(rspan, "different type"));
            sig_ok = false;
        }
    }
    let mut body = stmt::check_body(&mut ctx, &f.body);
    if ret != Type::Void && sig_ok {
        if let Ok(b) = &body {
            if !stmt::always_returns(b) {
                let tn = ctx.type_name(&ret);
                ctx.error(
                    Diagnostic::error(
                        format!(
                            "function `{}` does not return a value on every path",
                            name.name
                        ),
                        name.span,
                    )
                    .with_label(name.span, format!("declared to return `{tn}`"))
                    .with_hint("end the function with a `return` statement"),
                );
            }
        }
    }
    if let Ok(b) = &mut body {
        shadow_params(&mut ctx, b);
    }
    let uses_indexof = ctx.uses_indexof;
    let FnCtx { params, locals, .. } = ctx;
    let ir_kind = match kind {
        FnKind::Kernel => ir::FunctionKind::Kernel,
        FnKind::Reduce => ir::FunctionKind::Reduce,
        FnKind::Helper => ir::FunctionKind::Helper,
    };
    // Registered even when the body has errors, so calls to it don't cascade.
    let id = FunctionId(g.module.functions.len() as u32);
    g.module.functions.push(ir::Function {
        name: name.name.clone(),
        kind: ir_kind,
        params,
        ret,
        locals,
        body: body.unwrap_or_default(),
        span: f.span,
    });
    g.functions.insert(name.name.clone(), id);
    if uses_indexof {
        g.uses_indexof.insert(id);
    }
    if !sig_ok {
        g.poisoned_fns.insert(name.name.clone());
    }
}

pub(crate) fn coerce_or_report(
    ctx: &mut FnCtx<'_>,
    e: ir::Expr,
    ty: &Type,
    what: &str,
) -> R<ir::Expr> {
    match coerce(e, ty) {
        Ok(e) => Ok(e),
        Err(e) => {
            let (from, to) = (ctx.type_name(&e.ty), ctx.type_name(ty));
            let mut d = Diagnostic::error(
                format!("type mismatch: {what} expects `{to}`, found `{from}`"),
                e.span,
            )
            .with_label(e.span, format!("this is `{from}`"));
            d = d.with_hint_opt(conversion_hint(&e.ty, ty, &to));
            Err(ctx.error(d))
        }
    }
}

/// A hint for a failed implicit conversion.
pub(crate) fn conversion_hint(from: &Type, to: &Type, to_name: &str) -> Option<String> {
    match (from, to) {
        (Type::Vector(_, n), Type::Vector(_, m)) if n > m => Some(format!(
            "take the components you need with a swizzle such as `.{}`",
            &"xyzw"[..*m as usize]
        )),
        (Type::Vector(..), Type::Scalar(_)) => {
            Some("take one component with a swizzle such as `.x`".to_string())
        }
        (Type::Scalar(Scalar::Float), Type::Scalar(Scalar::Int))
        | (Type::Vector(Scalar::Float, _), Type::Vector(Scalar::Int, _)) => {
            Some(format!("convert explicitly with `({to_name})`"))
        }
        (Type::Scalar(Scalar::Bool) | Type::Vector(Scalar::Bool, _), _)
        | (_, Type::Scalar(Scalar::Bool) | Type::Vector(Scalar::Bool, _)) => {
            Some(format!("convert explicitly with `({to_name})`"))
        }
        _ => None,
    }
}
