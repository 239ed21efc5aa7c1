//! Branches as selects, for code running four elements per iteration ([`super::soa`]).
//!
//! In that code a branch whose condition differs between the four lanes makes the quad bail
//! out to the one-element function. Ray's intersection test (`if (u >= 0.0 && … ) { best =
//! t; id = i; }` in a loop over triangles) differs between neighbouring rays at every
//! triangle edge, so many quads would. An `if` that only assigns is rewritten here into
//! straight-line code that needs no agreement: the condition goes to a new `bool` local,
//! and each assignment `x = v` of the taken side becomes `x = c ? v : x` (`x = c ? x : v` on
//! the other side), so a lane keeps its old value where its condition says the branch does
//! not run. Both sides are then computed for every lane, which is why only an `if` whose
//! condition and values have no effects (no helper call that could write, discard or loop)
//! is rewritten; a gather's index is clamped and Brook's integer division by zero is
//! defined, so computing a side a lane would have skipped cannot fault.
//!
//! Each lane's result is what the interpreter computes for it: a lane whose condition holds
//! runs the side's assignments in order with the same values (a select moves bits), and a
//! lane whose condition does not keeps every variable's value. A local declared inside a
//! side is only read inside it, so declaring it on every lane changes nothing outside.
//! Nested `if`s are rewritten first, so a nest of assignments becomes a nest of selects.
//! Anything else in a side (a loop, `break`, `return`, `discard`, a call statement, a
//! compound assignment mixing kinds) keeps the `if` as it was.

use brook_ir::{
    Access, Block, Expr, ExprKind, Local, LocalId, Module, Param, Place, PlaceRoot, Stmt, StmtKind,
    Type,
};

use super::lower::has_effects;

/// `module` with every `if` of its functions that only assigns rewritten as selects.
pub(crate) fn selects(mut module: Module) -> Module {
    for k in 0..module.functions.len() {
        let body = std::mem::take(&mut module.functions[k].body);
        let mut r = Rewrite {
            module: &module,
            params: &module.functions[k].params,
            new_locals: Vec::new(),
            first: module.functions[k].locals.len() as u32,
        };
        let body = r.block(body);
        let new_locals = r.new_locals;
        let f = &mut module.functions[k];
        f.body = body;
        f.locals.extend(new_locals);
    }
    module
}

/// The rewrite of one function's body.
struct Rewrite<'m> {
    module: &'m Module,
    params: &'m [Param],
    /// The conditions' locals, numbered from `first`.
    new_locals: Vec<Local>,
    first: u32,
}

impl Rewrite<'_> {
    fn block(&mut self, b: Block) -> Block {
        let mut out = Vec::with_capacity(b.len());
        for s in b {
            self.stmt(s, &mut out);
        }
        out
    }

    fn stmt(&mut self, s: Stmt, out: &mut Block) {
        let span = s.span;
        let kind = match s.kind {
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                let (then, otherwise) = (self.block(then), self.block(otherwise));
                if has_effects(self.module, &cond) || !self.plain(&then) || !self.plain(&otherwise)
                {
                    StmtKind::If {
                        cond,
                        then,
                        otherwise,
                    }
                } else {
                    let c = LocalId(self.first + self.new_locals.len() as u32);
                    self.new_locals.push(Local {
                        name: "if".into(),
                        ty: Type::BOOL,
                    });
                    let read = Expr {
                        kind: ExprKind::Local(c),
                        ty: Type::BOOL,
                        span: cond.span,
                    };
                    out.push(Stmt {
                        kind: StmtKind::Decl {
                            local: c,
                            init: Some(cond),
                        },
                        span,
                    });
                    for (side, taken) in [(then, true), (otherwise, false)] {
                        for s in side {
                            out.push(self.guarded(s, &read, taken));
                        }
                    }
                    return;
                }
            }
            StmtKind::Loop {
                init,
                cond,
                step,
                body,
                test_first,
            } => StmtKind::Loop {
                init: self.block(init),
                cond,
                step: self.block(step),
                body: self.block(body),
                test_first,
            },
            StmtKind::Block(b) => StmtKind::Block(self.block(b)),
            k => k,
        };
        out.push(Stmt { kind, span });
    }

    /// Whether every statement of `b` declares a local or assigns a scalar variable (or one
    /// component of a vector output) a value of its own type, without effects.
    fn plain(&self, b: &Block) -> bool {
        b.iter().all(|s| match &s.kind {
            StmtKind::Decl { init, .. } => {
                init.as_ref().is_none_or(|e| !has_effects(self.module, e))
            }
            StmtKind::Assign { target, value, .. } => {
                matches!(target.ty, Type::Scalar(_))
                    && value.ty == target.ty
                    && self.read(target, value).is_some()
                    && !has_effects(self.module, value)
            }
            _ => false,
        })
    }

    /// Statement `s` of a side of an `if` on `c`, run on every lane: an assignment keeps the old
    /// value where `c` is not `taken`.
    fn guarded(&self, s: Stmt, c: &Expr, taken: bool) -> Stmt {
        let StmtKind::Assign { target, op, value } = s.kind else {
            return s;
        };
        let Some(old) = self.read(&target, &value) else {
            unreachable!("`plain` checked the target");
        };
        let span = value.span;
        let new = match op {
            Some(op) => Expr {
                kind: ExprKind::Binary(op, Box::new(old.clone()), Box::new(value)),
                ty: target.ty.clone(),
                span,
            },
            None => value,
        };
        let (accept, reject) = match taken {
            true => (new, old),
            false => (old, new),
        };
        Stmt {
            kind: StmtKind::Assign {
                value: Expr {
                    kind: ExprKind::Select {
                        cond: Box::new(c.clone()),
                        accept: Box::new(accept),
                        reject: Box::new(reject),
                    },
                    ty: target.ty.clone(),
                    span,
                },
                target,
                op: None,
            },
            span: s.span,
        }
    }

    /// The value `p` holds, as an expression where `like` is: a local or parameter, or one
    /// component of a vector parameter (`o[c]`); `None` for other places.
    fn read(&self, p: &Place, like: &Expr) -> Option<Expr> {
        let expr = |kind, ty: &Type| Expr {
            kind,
            ty: ty.clone(),
            span: like.span,
        };
        match (p.root, p.path.as_slice()) {
            (PlaceRoot::Local(l), []) => Some(expr(ExprKind::Local(l), &p.ty)),
            (PlaceRoot::Param(k), []) => Some(expr(ExprKind::Param(k), &p.ty)),
            (PlaceRoot::Param(k), [Access::Index(c)]) if matches!(c.kind, ExprKind::Int(_)) => {
                let whole = expr(ExprKind::Param(k), &self.params.get(k as usize)?.ty);
                Some(expr(ExprKind::Index(Box::new(whole), c.clone()), &p.ty))
            }
            _ => None,
        }
    }
}
