//! Four elements per iteration (structure of arrays) for kernels on scalars only.
//!
//! A kernel whose every value is a `float`, `int` or `bool` scalar runs four consecutive
//! output elements per loop iteration, one 128-bit vector per scalar value holding it for
//! the four elements (lane `j` is element `start + j`). The lowering needs no second set of
//! rules for that: a kernel whose scalars all become four-wide vectors ([`widened`]) computes,
//! lane by lane, what the scalar kernel computes per element, because Brook's operators,
//! conversions and component-wise built-ins act on each component of a vector as on a scalar
//! (the same IEEE operations and the same Rust formulas, so the same bits). Only what is not
//! component-wise is lowered differently for it (see [`super::lower::Lower::soa`]): a gather
//! loads each lane's element by its own index, literals splat, and a branch or loop condition
//! must hold for all four lanes or for none.
//!
//! When the four lanes disagree on a condition, the quad *bails out*: its code has stored
//! nothing yet (outputs live in registers until the end of the element body), so the tile
//! function returns, and the driver runs those four elements through the one-element
//! function, then the next quads through this one again ([`super::drive`]). A tile's last
//! `count % 4` elements run one at a time too. So every element's result comes from code that
//! takes the same path through the kernel as the interpreter, lane for lane.
//!
//! [`eligible`] decides which kernels: the ones where it measured faster (`cargo bench -p
//! brook-cpu --bench lanes`) and that stay simple: every value scalar (no vector, matrix,
//! struct or array anywhere in the kernel or the helpers it calls), every stream read at the
//! element's own position (a stream of the output's shape, so four consecutive elements are
//! four consecutive floats in every input and output) or gathered, `indexof` only as one
//! component of a stream's or output's position (`indexof(o).x`, per lane), no `discard`,
//! `vout` or write mask. Everything else keeps the one-element layout.

use std::collections::HashSet;

use brook_frontend::ir::{
    Access, BinaryOp, Builtin, Expr, ExprKind, Function, FunctionId, Module, Stmt, StmtKind, Type,
};

use super::kernel::{ParamKey, Variant};
use super::lower::{componentwise, has_effects};

/// Why kernel `id` of `module`, called as `variant`, keeps one element per iteration; `Ok`
/// when it runs four.
pub(crate) fn eligible(module: &Module, id: FunctionId, variant: &Variant) -> Result<(), String> {
    let func = module
        .functions
        .get(id.0 as usize)
        .ok_or("no such function")?;
    for (p, key) in func.params.iter().zip(&variant.params) {
        match key {
            ParamKey::Direct | ParamKey::Gather(_) | ParamKey::Constant | ParamKey::Out => {}
            _ => return Err(format!("parameter `{}` is not read at the element", p.name)),
        }
    }
    Check {
        module,
        seen: HashSet::new(),
        kernel: Some(variant.params.as_slice()),
    }
    .function(id)
}

/// The walk of [`eligible`] over a kernel and the helpers it calls.
struct Check<'m> {
    module: &'m Module,
    seen: HashSet<u32>,
    /// How the kernel's parameters are bound, while walking the kernel (not a helper).
    kernel: Option<&'m [ParamKey]>,
}

impl Check<'_> {
    fn function(&mut self, id: FunctionId) -> Result<(), String> {
        if !self.seen.insert(id.0) {
            return Ok(());
        }
        let f = self
            .module
            .functions
            .get(id.0 as usize)
            .ok_or("no such function")?;
        let types = f.params.iter().map(|p| (&p.name, &p.ty));
        for (name, ty) in types.chain(f.locals.iter().map(|l| (&l.name, &l.ty))) {
            scalar(ty).map_err(|()| format!("`{name}` in `{}` is not a scalar", f.name))?;
        }
        if f.ret != Type::Void {
            scalar(&f.ret).map_err(|()| format!("`{}` does not return a scalar", f.name))?;
        }
        self.block(&f.body)
    }

    fn block(&mut self, b: &[Stmt]) -> Result<(), String> {
        b.iter().try_for_each(|s| self.stmt(s))
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), String> {
        match &s.kind {
            StmtKind::Decl { init, .. } => init.iter().try_for_each(|e| self.expr(e)),
            StmtKind::Assign { target, value, .. } => {
                if !target.path.is_empty() {
                    return Err("an assignment to part of a value".into());
                }
                scalar(&target.ty).map_err(|()| "an assignment of a non-scalar".to_string())?;
                self.expr(value)
            }
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => self.expr(e),
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond)?;
                self.block(then)?;
                self.block(otherwise)
            }
            StmtKind::Loop {
                init,
                cond,
                step,
                body,
                ..
            } => {
                self.block(init)?;
                cond.iter().try_for_each(|e| self.expr(e))?;
                self.block(step)?;
                self.block(body)
            }
            StmtKind::Block(b) => self.block(b),
            StmtKind::Break | StmtKind::Continue | StmtKind::Return(None) => Ok(()),
            StmtKind::Discard => Err("`discard`".into()),
            StmtKind::Push { .. } => Err("`push`".into()),
        }
    }

    fn expr(&mut self, e: &Expr) -> Result<(), String> {
        if e.ty != Type::Void {
            scalar(&e.ty).map_err(|()| "a value that is not a scalar".to_string())?;
        }
        let parts: Vec<&Expr> = match &e.kind {
            ExprKind::Float(_)
            | ExprKind::Int(_)
            | ExprKind::Bool(_)
            | ExprKind::Local(_)
            | ExprKind::Param(_) => Vec::new(),
            ExprKind::Unary(_, a) | ExprKind::Convert(a) => vec![a],
            ExprKind::Binary(op, a, c) => {
                // Both sides run on every lane: the right one must have nothing to skip.
                if matches!(op, BinaryOp::And | BinaryOp::Or) && has_effects(c) {
                    return Err("a short-circuit operator with a helper call".into());
                }
                vec![a, c]
            }
            ExprKind::Select {
                cond,
                accept,
                reject,
            } => {
                if has_effects(accept) || has_effects(reject) {
                    return Err("`?:` with a helper call".into());
                }
                vec![cond, accept, reject]
            }
            ExprKind::Construct(xs) if xs.len() == 1 => vec![&xs[0]],
            ExprKind::Gather { indices, .. } => indices.iter().collect(),
            ExprKind::Builtin(bi, xs)
                if componentwise(*bi) && !matches!(bi, Builtin::Frexp | Builtin::Modf) =>
            {
                xs.iter().collect()
            }
            ExprKind::Call(f, xs) => {
                let kernel = self.kernel.take();
                let called = self.function(*f);
                self.kernel = kernel;
                called?;
                xs.iter().collect()
            }
            ExprKind::Swizzle(a, sel) if sel.len() == 1 => match (&a.kind, self.kernel) {
                (ExprKind::IndexOf(p), Some(keys))
                    if matches!(
                        keys.get(*p as usize),
                        Some(ParamKey::Direct | ParamKey::Out)
                    ) =>
                {
                    Vec::new()
                }
                _ => return Err("a swizzle".into()),
            },
            ExprKind::Construct(_) => return Err("a constructor".into()),
            ExprKind::Swizzle(..) => return Err("a swizzle".into()),
            ExprKind::Member(..) => return Err("a struct member".into()),
            ExprKind::Index(..) => return Err("an index".into()),
            ExprKind::IndexOf(_) => return Err("`indexof`".into()),
            ExprKind::Builtin(bi, _) => return Err(format!("`{}()`", bi.name())),
        };
        parts.into_iter().try_for_each(|x| self.expr(x))
    }
}

fn scalar(ty: &Type) -> Result<(), ()> {
    match ty {
        Type::Scalar(_) => Ok(()),
        _ => Err(()),
    }
}

/// `module` with every scalar type made a four-wide vector of its kind: what the lowering of
/// an eligible kernel reads (parameters', locals', results' and expressions' types).
pub(crate) fn widened(module: &Module) -> Module {
    let mut m = module.clone();
    for f in &mut m.functions {
        widen_function(f);
    }
    m
}

fn widen_function(f: &mut Function) {
    f.params.iter_mut().for_each(|p| wide(&mut p.ty));
    f.locals.iter_mut().for_each(|l| wide(&mut l.ty));
    wide(&mut f.ret);
    widen_block(&mut f.body);
}

fn wide(ty: &mut Type) {
    if let Type::Scalar(s) = *ty {
        *ty = Type::Vector(s, 4);
    }
}

fn widen_block(b: &mut [Stmt]) {
    for s in b {
        match &mut s.kind {
            StmtKind::Decl { init, .. } => init.iter_mut().for_each(widen_expr),
            StmtKind::Assign { target, value, .. } => {
                wide(&mut target.ty);
                for step in &mut target.path {
                    if let Access::Index(i) = step {
                        widen_expr(i);
                    }
                }
                widen_expr(value);
            }
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) | StmtKind::Push { value: e, .. } => {
                widen_expr(e)
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                widen_expr(cond);
                widen_block(then);
                widen_block(otherwise);
            }
            StmtKind::Loop {
                init,
                cond,
                step,
                body,
                ..
            } => {
                widen_block(init);
                cond.iter_mut().for_each(widen_expr);
                widen_block(step);
                widen_block(body);
            }
            StmtKind::Block(b) => widen_block(b),
            StmtKind::Break | StmtKind::Continue | StmtKind::Return(None) | StmtKind::Discard => {}
        }
    }
}

fn widen_expr(e: &mut Expr) {
    wide(&mut e.ty);
    match &mut e.kind {
        ExprKind::Unary(_, x)
        | ExprKind::Convert(x)
        | ExprKind::Swizzle(x, _)
        | ExprKind::Member(x, _) => widen_expr(x),
        ExprKind::Binary(_, a, c) | ExprKind::Index(a, c) => {
            widen_expr(a);
            widen_expr(c);
        }
        ExprKind::Select {
            cond,
            accept,
            reject,
        } => {
            widen_expr(cond);
            widen_expr(accept);
            widen_expr(reject);
        }
        ExprKind::Construct(xs)
        | ExprKind::Builtin(_, xs)
        | ExprKind::Call(_, xs)
        | ExprKind::Gather { indices: xs, .. } => xs.iter_mut().for_each(widen_expr),
        ExprKind::Float(_)
        | ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Local(_)
        | ExprKind::Param(_)
        | ExprKind::IndexOf(_) => {}
    }
}
